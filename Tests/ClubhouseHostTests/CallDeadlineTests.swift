// The one wall-clock bound both runner loops ask (CallDeadline.swift): the pipes' (IsolatedPlugin) and
// the second lane's (SideLane), which used to repeat it each their own way.

@testable import ClubhouseHost
import XCTest

final class CallDeadlineTests: XCTestCase {
    private let grace = Int64(CallContext.cleanupGraceMilliseconds)

    /// On the pipes: the wall cancels, the grace after it stops; a caller's cancel changes neither.
    func testOnThePipesTheWallCancelsAndTheGraceAfterItStops() {
        var d = CallDeadline(wallMilliseconds: 1000, startedAt: 100, graceAfterAnyCancel: false)
        XCTAssertNil(d.advance(now: 500, cancelled: true))
        XCTAssertEqual(d.untilNext(500), 600)
        XCTAssertNil(d.advance(now: 1099, cancelled: true))
        XCTAssertEqual(d.advance(now: 1100, cancelled: true), .wallReached)
        XCTAssertTrue(d.pastWall)
        XCTAssertEqual(d.untilNext(1100), grace)
        XCTAssertNil(d.advance(now: 1100 + grace - 1, cancelled: true))
        XCTAssertEqual(d.advance(now: 1100 + grace, cancelled: true), .stop)
        XCTAssertEqual(d.untilNext(1100 + grace + 50), 1)
    }

    /// On the second lane: a caller's cancel starts the grace at once, and the wall coming later keeps it.
    func testOnTheLaneACancelStartsTheGraceAndTheWallKeepsIt() {
        var d = CallDeadline(wallMilliseconds: 1000, startedAt: 0, graceAfterAnyCancel: true)
        XCTAssertNil(d.advance(now: 10, cancelled: false))
        XCTAssertNil(d.advance(now: 200, cancelled: true))
        XCTAssertEqual(d.untilNext(200), 800)
        XCTAssertEqual(d.advance(now: 1000, cancelled: true), .wallReached)
        XCTAssertEqual(d.untilNext(1000), 200 + grace - 1000)
        XCTAssertEqual(d.advance(now: 200 + grace, cancelled: true), .stop)
        // The wall noticed late (the loop was busy): the grace still runs from the wall (issue 27).
        var quiet = CallDeadline(wallMilliseconds: 1000, startedAt: 0, graceAfterAnyCancel: true)
        XCTAssertEqual(quiet.advance(now: 1500, cancelled: false), .wallReached)
        XCTAssertNil(quiet.advance(now: 1000 + grace - 1, cancelled: false))
        XCTAssertEqual(quiet.advance(now: 1000 + grace, cancelled: false), .stop)
    }

    /// A loop held in a service (a device read, a nested invoke) until past the grace (issue 27, n02/n11): the
    /// wall counts from itself, not from when the loop saw it; the runner gets 1 s after the service's answer
    /// to return, once — more service calls do not extend it past the grace plus that second.
    func testALoopHeldInAServiceStopsTheRunnerAtTheGracePlusOneSecondAtMost() {
        let end = 1000 + grace
        var d = CallDeadline(wallMilliseconds: 1000, startedAt: 0, graceAfterAnyCancel: false)
        d.noteServed(now: end - 500)
        XCTAssertEqual(d.advance(now: end - 500, cancelled: false), .wallReached)
        XCTAssertNil(d.advance(now: end + 499, cancelled: true))
        XCTAssertEqual(d.advance(now: end + 500, cancelled: true), .stop)
        var held = CallDeadline(wallMilliseconds: 1000, startedAt: 0, graceAfterAnyCancel: false)
        held.noteServed(now: end + 900)
        XCTAssertEqual(held.advance(now: end + 900, cancelled: false), .wallReached)
        XCTAssertEqual(held.untilNext(end + 900), 100)
        XCTAssertEqual(held.advance(now: end + 1000, cancelled: true), .stop)
        // Quiet since the wall: stopped at the wall plus the grace.
        var quiet = CallDeadline(wallMilliseconds: 1000, startedAt: 0, graceAfterAnyCancel: false)
        XCTAssertEqual(quiet.advance(now: 1000, cancelled: false), .wallReached)
        XCTAssertEqual(quiet.advance(now: 1000 + grace, cancelled: false), .stop)
    }
}
