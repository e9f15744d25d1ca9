// Issue 30: what a cancelled call may still do (RELIABILITY.md § Cancellation). Its statements are
// interrupted while it has not seen the cancel (a runaway query stops at once); once it has seen
// it (is_cancelled answered 1, or its runner was sent the cancel), its storage runs normally for
// `CallContext.cleanupGraceMilliseconds`, then is interrupted again. A deadline interrupts always.
// An isolated call's timeout_ms bounds its silence, renewed whenever the runner is heard from.

import CClubhouse
import CSQLite
import XCTest
@testable import ClubhouseHost

final class CancellationGraceTests: XCTestCase {
    var directory = ""

    override func setUp() { directory = NSTemporaryDirectory() + "clubhouse-grace-\(UUID().uuidString)" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func open() throws -> PluginDatabase {
        let db = try StorageBroker(dataDirectory: directory).open(site: "s", pluginID: "org.x.p", owner: "p")
        XCTAssertEqual(db.exec("CREATE TABLE t(x)"), Int32(CLUBHOUSE_OK))
        return db
    }

    /// Enough virtual-machine steps for the progress handler to look (it does every 1,000).
    static let busy = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) INSERT INTO t SELECT i FROM r"

    func testACancelledCallStoresDuringItsGraceOnceItSawTheCancel() throws {
        let db = try open()
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        XCTAssertEqual(call.makeCurrent { db.exec(CancellationGraceTests.busy) }, Int32(CLUBHOUSE_OK), "not cancelled")
        call.cancel()
        // The message is the call's own (read while it runs, as a plugin reads last_error).
        let (status, message) = call.makeCurrent { (db.exec(CancellationGraceTests.busy), db.lastError) }
        XCTAssertEqual(status, Int32(CLUBHOUSE_CANCELLED), "cancelled and not seen: interrupted at once")
        XCTAssertEqual(message, "the statement was interrupted: the call was cancelled")
        // The plugin looks (the C face's is_cancelled answers 1 and notes it).
        let seen = call.withCStruct { $0.pointee.is_cancelled?($0) }
        XCTAssertEqual(seen, 1)
        let (after, afterMessage) = call.makeCurrent { (db.exec(CancellationGraceTests.busy), db.lastError) }
        XCTAssertEqual(after, Int32(CLUBHOUSE_OK), afterMessage)
        XCTAssertFalse(call.interruptsStatements)
    }

    func testTheGraceEndsAndADeadlineAlwaysInterrupts() throws {
        let db = try open()
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        call.cancel()
        call.noteCancelSeen(millisecondsAgo: CallContext.cleanupGraceMilliseconds + 1)
        let (status, message) = call.makeCurrent { (db.exec(CancellationGraceTests.busy), db.lastError) }
        XCTAssertEqual(status, Int32(CLUBHOUSE_CANCELLED))
        XCTAssertTrue(message.hasPrefix("the statement was interrupted: the call was cancelled "), message)
        XCTAssertTrue(message.hasSuffix("ms ago and its 5000 ms for cleaning up are over"), message)

        let late = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        late.cancel()
        late.noteCancelSeen()
        late.limit(milliseconds: 1)
        usleep(5_000)
        XCTAssertEqual(late.makeCurrent { db.exec(CancellationGraceTests.busy) }, Int32(CLUBHOUSE_TIMEOUT), "a deadline has no grace")

        // A time limit that cancels (an isolated plugin's wall limit) ends as a timeout.
        let limited = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        limited.cancel(byDeadline: true)
        let (limitedStatus, limitedMessage) = limited.makeCurrent { (db.exec(CancellationGraceTests.busy), db.lastError) }
        XCTAssertEqual(limitedStatus, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertEqual(limitedMessage, "the statement was interrupted: the call ran past its time limit")
    }

    func testASilenceBoundIsRenewedWhenTheRunnerIsHeardFrom() throws {
        let db = try open()
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        call.heard(budgetMilliseconds: 50)
        usleep(80_000)
        XCTAssertEqual(call.passedDeadline, 50)
        call.heard(budgetMilliseconds: 50)
        XCTAssertNil(call.passedDeadline, "heard from again: a new 50 ms")
        XCTAssertEqual(call.makeCurrent { db.exec(CancellationGraceTests.busy) }, Int32(CLUBHOUSE_OK), db.lastError)
    }

    func testCancelObserversRunOnceAndLateOnesAtOnce() {
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        let nested = CallContext(flags: 0, progress: SilentProgress(), alias: "q", parent: call)
        XCTAssertTrue(nested.outermost === call)
        let count = Counter()
        call.whenCancelled { count.add() }
        call.cancel()
        call.cancel()
        XCTAssertEqual(count.value, 1)
        call.whenCancelled { count.add() }
        XCTAssertEqual(count.value, 2, "registered after the cancel: runs at once")
        XCTAssertTrue(nested.isCancelled)
        XCTAssertFalse(nested.wasCancelledByDeadline)
        // A wall-clock limit that reaches a call a person already cancelled leaves it `cancelled` (n03: it said
        // `timeout` with "the call was cancelled 6001 ms ago").
        call.cancel(byDeadline: true)
        XCTAssertFalse(call.wasCancelledByDeadline)
    }

    /// Issue 27 (n02/n11): the wall cancels the call by itself, and a call nested in it, when first asked —
    /// the loop that would cancel it may be held in a service; the one gate then answers for every act.
    func testTheWallCancelsByItselfAndTheGateRefusesEveryActAfterTheGrace() {
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "p")
        let nested = CallContext(flags: 0, progress: SilentProgress(), alias: "q", parent: call)
        call.limitWall(milliseconds: 1)
        XCTAssertNil(ServiceGate.refusal(.commit, call: nested))
        usleep(5_000)
        XCTAssertTrue(nested.isCancelled)
        XCTAssertTrue(call.wasCancelledByDeadline)
        XCTAssertNil(ServiceGate.refusal(.invoke, call: nested), "in its grace")
        XCTAssertLessThanOrEqual(nested.millisecondsUntilGraceEnds ?? 0, CallContext.cleanupGraceMilliseconds)
        XCTAssertGreaterThan(ServiceGate.waitBound(60_000, call: nested), 0)
        XCTAssertLessThanOrEqual(ServiceGate.waitBound(60_000, call: nested), CallContext.cleanupGraceMilliseconds)
    }
}

/// A thread-safe counter for the observer test (guarded by `lock`, hence @unchecked Sendable).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
