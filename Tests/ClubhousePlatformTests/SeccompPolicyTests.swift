// The sandbox's seccomp allow list (Platform/SeccompPolicy.swift), run as the kernel runs it: a
// small classic-BPF interpreter executes the compiled program on every call number and on the
// argument cases the policy names, and must give each rule's decision; every other number is
// refused. The table's numbers match the system's <asm/unistd_64.h>, every allowed call has a
// reason, and SECURITY.md names every allowed call (the summary stays in step with the code).

@testable import ClubhousePlatform
import Foundation
import XCTest

final class SeccompPolicyTests: XCTestCase {
    private let me: Int32 = 4242
    private let allowAction: UInt32 = 0x7FFF_0000
    private let eperm: UInt32 = 0x0005_0001
    private let enosys: UInt32 = 0x0005_0026
    private let kill: UInt32 = 0x8000_0000

    private func rules(allowTCP: Bool = true, refuseTruncate: Bool = false) -> [SeccompPolicy.Rule] {
        SeccompPolicy.rules(processID: me, allowTCP: allowTCP, refuseTruncate: refuseTruncate)
    }

    /// Runs the program on one system call (x86_64 unless `arch` says otherwise).
    private func run(_ program: [UInt8], _ number: UInt32, _ arguments: [UInt64] = [], arch: UInt32 = 0xC000_003E) -> UInt32 {
        // struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }
        var data = [UInt8](repeating: 0, count: 64)
        func put32(_ value: UInt32, _ at: Int) { for i in 0..<4 { data[at + i] = UInt8((value >> (8 * UInt32(i))) & 0xFF) } }
        put32(number, 0)
        put32(arch, 4)
        for (i, argument) in arguments.enumerated() {
            put32(UInt32(truncatingIfNeeded: argument), 16 + 8 * i)
            put32(UInt32(truncatingIfNeeded: argument >> 32), 20 + 8 * i)
        }
        var accumulator: UInt32 = 0
        var pc = 0
        let count = program.count / 8
        var steps = 0
        while pc < count {
            steps += 1
            precondition(steps < 10_000, "the program loops")
            let base = pc * 8
            let code = UInt16(program[base]) | UInt16(program[base + 1]) << 8
            let jt = Int(program[base + 2]), jf = Int(program[base + 3])
            var k: UInt32 = 0
            for i in 0..<4 { k |= UInt32(program[base + 4 + i]) << (8 * UInt32(i)) }
            pc += 1
            switch code {
            case 0x20:
                precondition(k % 4 == 0 && k < 64, "load outside seccomp_data")
                accumulator = 0
                for i in 0..<4 { accumulator |= UInt32(data[Int(k) + i]) << (8 * UInt32(i)) }
            case 0x54: accumulator &= k
            case 0x05: pc += Int(k)
            case 0x15: pc += accumulator == k ? jt : jf
            case 0x35: pc += accumulator >= k ? jt : jf
            case 0x45: pc += accumulator & k != 0 ? jt : jf
            case 0x06: return k
            default: preconditionFailure("unknown BPF instruction \(code)")
            }
        }
        preconditionFailure("ran off the end of the program")
    }

    func testEveryCallNumberGetsItsRulesDecisionAndEveryOtherIsRefused() throws {
        for (allowTCP, refuseTruncate) in [(true, false), (false, true), (true, true), (false, false)] {
            let rules = rules(allowTCP: allowTCP, refuseTruncate: refuseTruncate)
            let program = Seccomp.program(rules)
            XCTAssertLessThan(program.count / 8, 4096, "the kernel's limit")
            let byNumber = Dictionary(uniqueKeysWithValues: rules.map { ($0.number, $0) })
            for number in UInt32(0)..<600 {
                let action = run(program, number, [0, 0, 0, 0, 0, 0])
                switch byNumber[number]?.decision {
                case .allow?: XCTAssertEqual(action, allowAction, "\(byNumber[number]?.name ?? "") (\(number))")
                case .absent?: XCTAssertEqual(action, enosys, "\(number)")
                case .refuse?, nil: XCTAssertEqual(action, eperm, "\(byNumber[number]?.name ?? "unlisted") (\(number)) is refused")
                case .when?: XCTAssertTrue(action == allowAction || action == eperm, "\(number)")
                }
            }
            XCTAssertEqual(run(program, 1_000_000), eperm, "far past the table")
            XCTAssertEqual(run(program, 0x4000_0000 | 1), eperm, "the x32 ABI's write")
            XCTAssertEqual(run(program, 1, arch: 0x4000_0003), kill, "another architecture (i386)")
        }
    }

    func testArgumentChecks() throws {
        let program = Seccomp.program(rules())
        let pid = UInt64(UInt32(bitPattern: me))
        let negative = UInt64(UInt32(bitPattern: -me))
        func check(_ name: String, _ arguments: [UInt64], _ expected: UInt32, line: UInt = #line) {
            guard let number = rules().first(where: { $0.name == name })?.number else { return XCTFail("no rule \(name)", line: line) }
            XCTAssertEqual(run(program, number, arguments), expected, "\(name)\(arguments)", line: line)
        }
        // Signals: itself only (Why 3: kill(0) reached the host's group after setpgid).
        check("kill", [pid, 15], allowAction)
        check("kill", [0, 15], eperm)
        check("kill", [negative, 15], eperm)
        check("kill", [4243, 15], eperm)
        check("tgkill", [pid, 4250, 6], allowAction)
        check("tgkill", [1, 1, 6], eperm)
        check("setpgid", [0, 0], allowAction)
        check("setpgid", [pid, pid], allowAction)
        check("setpgid", [0, 77], eperm)
        check("setpgid", [77, 0], eperm)
        check("prlimit64", [0, 7, 0, 1], allowAction)
        check("prlimit64", [1, 7, 0, 1], eperm)
        check("setpriority", [0, 0, 19], allowAction)
        check("setpriority", [2, 0, 19], eperm)   // PRIO_USER: every process of the user, the host too
        check("setpriority", [1, 0, 19], eperm)   // PRIO_PGRP
        check("sched_setaffinity", [pid, 8, 0], allowAction)
        check("sched_setaffinity", [1, 8, 0], eperm)
        check("prctl", [15, 0], allowAction)           // PR_SET_NAME
        check("prctl", [0x5961_6D61, 0], eperm)        // PR_SET_PTRACER
        check("prctl", [4, 1], eperm)                  // PR_SET_DUMPABLE
        check("prctl", [36, 1], eperm)                 // PR_SET_CHILD_SUBREAPER
        check("clock_gettime", [1, 0], allowAction)    // CLOCK_MONOTONIC
        check("clock_gettime", [UInt64(UInt32(bitPattern: ~Int32(1) << 3 | 2)), 0], eperm) // pid 1's CPU clock
        // Processes: threads only.
        check("clone", [0x3D0F00, 0, 0, 0, 0], allowAction)   // glibc's pthread_create flags
        check("clone", [0x11, 0, 0, 0, 0], eperm)             // fork: SIGCHLD only
        check("clone", [0x4111, 0, 0, 0, 0], eperm)           // vfork
        check("clone", [0x3D0F00 | 0x1000_0000, 0, 0, 0, 0], eperm) // CLONE_NEWUSER
        // Descriptors.
        check("fcntl", [3, 3, 0], allowAction)                // F_GETFL
        check("fcntl", [3, 4, 0x800], allowAction)            // F_SETFL O_NONBLOCK
        check("fcntl", [3, 4, 0x2000], eperm)                 // F_SETFL O_ASYNC
        check("fcntl", [3, 8, 1], eperm)                      // F_SETOWN
        check("fcntl", [3, 10, 1], eperm)                     // F_SETSIG
        check("fcntl", [3, 1031, 4096], eperm)                // F_SETPIPE_SZ
        check("fcntl", [3, 1030, 10], allowAction)            // F_DUPFD_CLOEXEC
        check("ioctl", [1, 0x541B, 0], allowAction)           // FIONREAD
        check("ioctl", [2, 0x5401, 0], allowAction)           // TCGETS
        check("ioctl", [2, 0x5412, 0], eperm)                 // TIOCSTI
        check("ioctl", [2, 0x5402, 0], eperm)                 // TCSETS
        check("ioctl", [3, 0x5452, 0], eperm)                 // FIOASYNC
        check("ioctl", [3, 0x8901, 0], eperm)                 // FIOSETOWN
        check("ioctl", [3, 0x1_0000_541B, 0], allowAction)    // the kernel reads the command's low 32 bits
        // Sockets: TCP only, connected sends only.
        check("socket", [2, 1, 0], allowAction)                       // AF_INET, SOCK_STREAM
        check("socket", [10, 1 | 0x80000 | 0x800, 6], allowAction)    // AF_INET6, SOCK_STREAM|CLOEXEC|NONBLOCK, TCP
        check("socket", [2, 2, 0], eperm)                             // UDP
        check("socket", [2, 3, 0], eperm)                             // raw
        check("socket", [2, 1, 17], eperm)                            // stream with UDP's protocol
        check("socket", [1, 1, 0], eperm)                             // AF_UNIX
        check("socket", [16, 3, 0], eperm)                            // netlink
        check("socket", [2, 1 | 0x100, 0], eperm)                     // an unknown type flag
        check("socketpair", [1, 1, 0, 0], allowAction)
        check("socketpair", [1, 5 | 0x80000, 0, 0], allowAction)            // SOCK_SEQPACKET | SOCK_CLOEXEC
        check("socketpair", [1, 2, 0, 0], eperm)                            // SOCK_DGRAM: an end could connect() anywhere
        check("socketpair", [2, 1, 0, 0], eperm)
        check("sendto", [3, 0x1000, 5, 0, 0, 0], allowAction)
        check("sendto", [3, 0x1000, 5, 0x2000_0000, 0, 0], eperm)            // MSG_FASTOPEN
        check("sendto", [3, 0x1000, 5, 0, 0x7FFF_0000_1000, 16], eperm)      // an address
        check("sendto", [3, 0x1000, 5, 0, 0x7FFF_0000_0000, 16], eperm)      // an address with a zero low half
        check("setsockopt", [3, 6, 1, 0, 4], allowAction)     // TCP_NODELAY
        check("setsockopt", [3, 1, 9, 0, 4], allowAction)     // SO_KEEPALIVE
        check("setsockopt", [3, 6, 30, 0, 4], eperm)          // TCP_FASTOPEN_CONNECT
        check("setsockopt", [3, 6, 23, 0, 4], eperm)          // TCP_FASTOPEN
        check("setsockopt", [3, 1, 25, 0, 4], eperm)          // SO_BINDTODEVICE
        check("setsockopt", [3, 1, 26, 0, 4], eperm)          // SO_ATTACH_FILTER
        // Without Landlock's TCP control: no socket at all.
        let noTCP = Seccomp.program(rules(allowTCP: false))
        XCTAssertEqual(run(noTCP, 41, [2, 1, 0]), eperm)
    }

    func testTheTableIsConsistentAndEveryAllowedCallHasAReason() throws {
        let list = rules()
        XCTAssertEqual(Set(list.map(\.name)).count, list.count, "a name twice")
        XCTAssertEqual(Set(list.map(\.number)).count, list.count, "a number twice")
        for rule in list {
            XCTAssertFalse(rule.reason.isEmpty, "\(rule.name) has no reason")
        }
        // The numbers are the system's.
        let header = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
        guard let text = try? String(contentsOfFile: header, encoding: .utf8) else {
            throw XCTSkip("\(header) is absent (install linux-libc-dev to check the numbers)")
        }
        var numbers: [String: UInt32] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("#define __NR_") {
            let words = line.split(separator: " ")
            if words.count == 3, let number = UInt32(words[2]) { numbers[String(words[1].dropFirst(5))] = number }
        }
        for rule in list {
            if let number = numbers[rule.name] {
                XCTAssertEqual(rule.number, number, "\(rule.name)")
            } else {
                XCTAssertGreaterThan(rule.number, 450, "\(rule.name) is unknown to \(header) and not a call newer than it")
            }
        }
    }

    /// A `process` runner's filter refuses exactly SeccompPolicy.processRefusals (memfd_create:
    /// memory RLIMIT_AS does not count; shmget, msgget, semget, mq_open: kernel objects that
    /// outlive the runner), also under the x32 numbers, and lets every other call and every other
    /// architecture pass (shmat, shmctl and the rest: nothing reaches them without an id from a
    /// refused call); the sandbox's allow list refuses them too.
    func testAProcessRunnersFilterRefusesOnlyMemoryOutsideItsAddressSpace() throws {
        let program = Seccomp.refusingProgram(SeccompPolicy.processRefusals)
        let refused = Set(SeccompPolicy.processRefusals.map(\.number))
        XCTAssertEqual(refused, [319, 29, 68, 64, 240])
        for rule in SeccompPolicy.processRefusals {
            XCTAssertFalse(rule.reason.isEmpty, "\(rule.name) says why it is refused")
            XCTAssertEqual(rules().first { $0.name == rule.name }?.number, rule.number, "\(rule.name)'s number is the sandbox's")
        }
        for number in UInt32(0)...460 {
            XCTAssertEqual(run(program, number), refused.contains(number) ? eperm : allowAction, "call \(number)")
        }
        for number in refused { XCTAssertEqual(run(program, 0x4000_0000 | number), eperm, "x32's \(number)") }
        XCTAssertEqual(run(program, 319, arch: 0x4000_0003), allowAction, "another architecture is not this filter's business")
        let sandbox = Seccomp.program(rules())
        for number in refused { XCTAssertEqual(run(sandbox, number), eperm, "the sandbox refuses \(number) too") }
    }

    /// SECURITY.md summarizes the allow list: every allowed call is named in its section.
    func testSecurityMDNamesEveryAllowedCall() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("SECURITY.md"), encoding: .utf8)
        guard let start = text.range(of: "### The system-call allow list"),
              let end = text.range(of: "\n### ", range: start.upperBound..<text.endIndex) ?? text.range(of: "\n## ", range: start.upperBound..<text.endIndex)
        else { return XCTFail("SECURITY.md has no section \"### The system-call allow list\"") }
        let section = text[start.upperBound..<end.lowerBound]
        for rule in SeccompPolicy.allowed(rules()) {
            XCTAssertTrue(section.contains("`\(rule.name)`"), "SECURITY.md's allow list does not name `\(rule.name)`")
        }
    }
}
