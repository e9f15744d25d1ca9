// The runner's thread wall (Host/Sources/Runner/RunningCall.swift) in one process: the runner's main
// thread is told by its kernel id without the table, every other thread only by its own entry in the
// table. The attacks themselves (a plugin's threads, a raw clone sharing the call thread's TLS) run
// against a real runner in ThreadWallEndToEndTests.

import CClubhouse
import XCTest
@testable import ClubhouseRunner
#if canImport(Glibc)
import Glibc
#endif

final class RunningCallTests: XCTestCase {
    /// The thread wall's common case: once a thread is the runner's main thread, its calls are told by its
    /// kernel id alone; another thread, in the same moment, is served only through its own entry in the
    /// table, and a thread with none is refused (the end-to-end attacks: ThreadWallEndToEndTests).
    func testTheMainThreadIsToldByItsIdAndEveryOtherThreadByTheTable() {
        final class Probe: @unchecked Sendable { // written by the other thread before join, read after
            var outside: RunningCall.Entry? = RunningCall.Entry(call: 99, lane: nil)
            var inside: RunningCall.Entry?
        }
        RunningCall.adoptMainThread()
        XCTAssertNil(RunningCall.current)
        // Two calls' addresses (compared, never read).
        let a = UnsafeMutablePointer<clubhouse_call>.allocate(capacity: 1), b = UnsafeMutablePointer<clubhouse_call>.allocate(capacity: 1)
        defer { a.deallocate(); b.deallocate() }
        let callPointer = UnsafePointer(a), otherPointer = UnsafePointer(b)
        let probe = Probe()
        RunningCall.during(callPointer) {
            XCTAssertTrue(RunningCall.runs(callPointer))
            XCTAssertFalse(RunningCall.runs(otherPointer))
            XCTAssertNil(RunningCall.refusal("test", call: callPointer, checkCall: true))
            XCTAssertEqual(RunningCall.refusal("test", call: otherPointer, checkCall: true), Int32(CLUBHOUSE_UNSUPPORTED))
            var thread = pthread_t()
            let box = Unmanaged.passRetained(probe).toOpaque()
            pthread_create(&thread, nil, { raw in
                guard let raw else { return nil }
                let probe = Unmanaged<Probe>.fromOpaque(raw).takeRetainedValue()
                probe.outside = RunningCall.current
                RunningCall.during(UnsafePointer(OpaquePointer(bitPattern: 0x1000))) { probe.inside = RunningCall.current }
                return nil
            }, box)
            pthread_join(thread, nil)
            XCTAssertTrue(RunningCall.runs(callPointer), "the other thread's call did not touch this one's")
        }
        XCTAssertNil(probe.outside, "a thread of its own is not the main thread's call")
        XCTAssertEqual(probe.inside?.call, 0x1000)
        XCTAssertNil(RunningCall.current)
    }
}
