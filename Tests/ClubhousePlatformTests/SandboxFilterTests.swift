// The sandbox's seccomp program as bytes: it builds for every combination the runner uses (a jump
// past 255 instructions would stop the runner at start), stays far below the kernel's 4,096
// instructions, checks the architecture first and kills a foreign one at once (SeccompPolicyTests
// runs the program).

@testable import ClubhousePlatform
import XCTest

final class SandboxFilterTests: XCTestCase {
    func testTheFilterBuildsForEveryVariant() throws {
        try XCTSkipUnless(Seccomp.isSupported, "the seccomp filter is written for x86_64 only")
        for allowTCP in [true, false] {
            for refuseTruncate in [true, false] {
                for pid: Int32 in [1, 4_194_304, Int32.max] {
                    let program = Seccomp.program(allowTCP: allowTCP, refuseTruncate: refuseTruncate, processID: pid)
                    XCTAssertEqual(program.count % 8, 0)
                    XCTAssertLessThan(program.count / 8, 4096)
                    // First: load seccomp_data.arch (BPF_LD|BPF_W|BPF_ABS, k = 4).
                    XCTAssertEqual(Array(program[0..<2]), [0x20, 0x00])
                    XCTAssertEqual(Array(program[4..<8]), [4, 0, 0, 0])
                    // Third: return SECCOMP_RET_KILL_PROCESS (the second skips it for x86_64).
                    XCTAssertEqual(Array(program[16..<24]), [0x06, 0, 0, 0, 0, 0, 0, 0x80])
                }
            }
        }
    }

    /// A lowered ABI from the environment is the only override, and only downwards.
    func testTheTestOverrideCanOnlyLowerTheLandlockABI() {
        let real = Landlock.abiVersion().version
        setenv("CLUBHOUSE_TEST_LANDLOCK_ABI", "99", 1)
        defer { unsetenv("CLUBHOUSE_TEST_LANDLOCK_ABI") }
        XCTAssertEqual(Landlock.effectiveABI().version, real)
        setenv("CLUBHOUSE_TEST_LANDLOCK_ABI", "0", 1)
        XCTAssertEqual(Landlock.effectiveABI().version, 0)
        if real >= 1 { XCTAssertNotNil(Landlock.effectiveABI().problem) }
    }
}
