// Issue 30: the stop command on every exit path of a session, seen from TennisCore: a connection
// that dropped is replaced to send the stop; a machine the host already stopped is noted; a command
// written before the link failed counts as launched; a journal sees every event as it happens; the
// demo's simulated clock skips waits but not reply timeouts.

import Foundation
import XCTest
@testable import TennisCore

/// A machine whose connection can drop (writes and reads fail) and come back on `reconnect`.
final class DroppingMachine: BallMachineLink {
    let machine: FakeBallMachine
    var dropped = false
    /// Reconnections to refuse before one succeeds.
    var refusals = 0
    private(set) var reconnects = 0
    /// Thrown by every write once set (the host took the machine over).
    var takenOver: MachineStoppedByHost?

    init(_ machine: FakeBallMachine) { self.machine = machine }

    func write(_ bytes: [UInt8]) throws {
        if let takenOver { throw takenOver }
        if dropped { throw POSIXError(.EPIPE) }
        try machine.write(bytes)
    }

    func read(max: Int, timeout: Double) throws -> [UInt8] {
        if dropped { throw POSIXError(.ECONNRESET) }
        return try machine.read(max: max, timeout: timeout)
    }

    func reconnect() throws {
        if refusals > 0 {
            refusals -= 1
            throw POSIXError(.ECONNREFUSED)
        }
        reconnects += 1
        dropped = false
    }
}

/// Records what a journal is told.
final class RecordingJournal: SessionJournal {
    var begun: SessionSettings?
    var events: [SessionEvent] = []
    var summaries: [SessionSummary] = []
    func begin(_ settings: SessionSettings) throws { begun = settings }
    func record(_ events: [SessionEvent], summary: SessionSummary) {
        self.events += events
        summaries.append(summary)
    }
}

final class StopTests: XCTestCase {
    private func settings() throws -> SessionSettings {
        SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .flat)
    }

    func testTheStopGoesOutOnANewConnectionAfterTheOldOneDropped() throws {
        let clock = ManualClock()
        let link = DroppingMachine(FakeBallMachine(clock: clock))
        link.refusals = 2
        let journal = RecordingJournal()
        let session = try BallMachineSession(settings: try settings(), table: .formula(), calibration: nil, link: link, clock: clock,
                                             journal: journal)
        _ = try session.sendNow(zone: 3)
        link.dropped = true
        let log = session.finish()
        XCTAssertEqual(link.reconnects, 1)
        XCTAssertEqual(link.machine.decoded.map(\.start), [true, false], "the ball, then the stop on the new connection")
        XCTAssertTrue(BallMachineSession.stopAcknowledged(log.summary))
        XCTAssertEqual(log.summary.stopNote, "sent on a new connection after the old one dropped")
        XCTAssertTrue(log.events.contains { $0.note == "reconnected to the ball machine to send the stop command" })
        // The journal saw the session begin, the launch's events and counts after it — and nothing
        // of the stop (that waits for no storage; the end stores it).
        XCTAssertEqual(journal.begun?.mode, .manual)
        XCTAssertEqual(journal.events.first?.kind, .command)
        XCTAssertEqual(journal.events, Array(log.events.prefix(journal.events.count)))
        XCTAssertFalse(journal.events.contains { $0.kind == .stop || $0.kind == .abort })
        XCTAssertEqual(journal.summaries.last?.sent, 1)
    }

    func testAMachineThatDoesNotComeBackIsReportedNotStopped() throws {
        let clock = ManualClock()
        let link = DroppingMachine(FakeBallMachine(clock: clock))
        link.refusals = .max
        let session = try BallMachineSession(settings: try settings(), table: .formula(), calibration: nil, link: link, clock: clock)
        _ = try session.sendNow(zone: 3)
        link.dropped = true
        let started = clock.now()
        let log = session.finish()
        XCTAssertFalse(BallMachineSession.stopAcknowledged(log.summary))
        XCTAssertEqual(log.summary.stopNote, "the ball machine could not be reached for 5 s to stop it")
        XCTAssertGreaterThanOrEqual(clock.now() - started, BallMachineSession.stopReconnectSeconds, "it kept trying 5 s")
    }

    func testAMachineTheHostStoppedIsNotedAndNotReconnected() throws {
        let clock = ManualClock()
        let link = DroppingMachine(FakeBallMachine(clock: clock))
        let session = try BallMachineSession(settings: try settings(), table: .formula(), calibration: nil, link: link, clock: clock)
        _ = try session.sendNow(zone: 3)
        link.takenOver = MachineStoppedByHost("the host stopped device 'ballmachine' (Ctrl-C twice) and the device acknowledged", acknowledged: true)
        let log = session.finish()
        XCTAssertEqual(link.reconnects, 0)
        XCTAssertTrue(BallMachineSession.stopAcknowledged(log.summary))
        XCTAssertEqual(log.summary.stopNote, "the host stopped device 'ballmachine' (Ctrl-C twice) and the device acknowledged")
    }

    func testACommandWrittenBeforeTheLinkFailedCountsAsLaunched() throws {
        /// Takes every write, then fails on the reply (the connection dropped after the command went out).
        final class DropAfterWrite: BallMachineLink {
            var written = 0
            func write(_ bytes: [UInt8]) throws { written += 1 }
            func read(max: Int, timeout: Double) throws -> [UInt8] {
                if written == 0 { return [] }
                throw POSIXError(.ECONNRESET)
            }
        }
        let session = try BallMachineSession(settings: try settings(), table: .formula(), calibration: nil, link: DropAfterWrite(),
                                             clock: ManualClock())
        XCTAssertThrowsError(try session.sendNow(zone: 3))
        XCTAssertEqual(session.finish().summary.sent, 1, "written, so launched")
    }

    func testTheSimulatedClockSkipsWaitsButNotTime() {
        let clock = SimulatedSessionClock(base: ManualClock(10))
        XCTAssertEqual(clock.now(), 10)
        clock.sleep(seconds: 2)
        clock.sleep(until: 13.5)
        XCTAssertEqual(clock.now(), 13.5, "waits pass at once")
        clock.sleep(seconds: -1)
        clock.sleep(seconds: .infinity)
        XCTAssertEqual(clock.now(), 13.5)
    }
}
