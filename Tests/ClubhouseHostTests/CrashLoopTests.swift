// The crash-loop back-off's arithmetic (CrashLoop.swift); CrashLoopEndToEndTests shows it under `serve`.

import XCTest
@testable import ClubhouseHost

final class CrashLoopTests: XCTestCase {
    func testThePauseDoublesFromTenMillisecondsUpToTheLimit() {
        var loop = CrashLoop()
        var now: Int64 = 1_000
        var pauses: [Int] = []
        for _ in 0..<10 {
            loop.started(at: now)
            now += 3
            pauses.append(loop.ended(at: now, cause: "crashed", maximum: 1000))
            XCTAssertEqual(loop.restartAllowed(maximum: 1000), now + Int64(pauses.last ?? 0))
            now += Int64(pauses.last ?? 0)
        }
        XCTAssertEqual(pauses, [0, 10, 20, 40, 80, 160, 320, 640, 1000, 1000])
        XCTAssertEqual(loop.count, 10)
        XCTAssertEqual(loop.summary, "its runner ended 10 times in a row soon after starting (the last: crashed)")
    }

    /// A runner that ran for the longest pause before it ended starts a new count, whatever calls it
    /// answered; one that ended sooner extends the count, even if it answered calls in between.
    func testOnlyARunnerThatRanLongEnoughStartsANewCount() {
        var loop = CrashLoop()
        loop.started(at: 0)
        XCTAssertEqual(loop.ended(at: 5, cause: "a", maximum: 500), 0)
        loop.started(at: 5)
        XCTAssertEqual(loop.ended(at: 499, cause: "b", maximum: 500), 10)
        loop.started(at: 509)
        XCTAssertEqual(loop.ended(at: 1009, cause: "c", maximum: 500), 0, "it ran 500 ms")
        XCTAssertEqual(loop.count, 1)
        loop.started(at: 1009)
        XCTAssertEqual(loop.ended(at: 1010, cause: "d", maximum: 500), 10)
    }

    func testZeroTurnsTheBackOffOff() {
        var loop = CrashLoop()
        for t in 0..<5 {
            loop.started(at: Int64(t))
            XCTAssertEqual(loop.ended(at: Int64(t), cause: "x", maximum: 0), 0)
        }
        XCTAssertEqual(CrashLoop.pause(after: 40, maximum: 60_000), 60_000, "no overflow however long the loop")
    }
}
