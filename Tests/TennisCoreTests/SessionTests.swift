import Foundation
import XCTest
@testable import TennisCore

final class ExchangeTests: XCTestCase {
    let settings = try! MachineSettings(upperWheel: 60, lowerWheel: 60, pitch: 45, yaw: 60, feed: 50)

    func exchange(_ machine: FakeBallMachine, clock: ManualClock, policy: ExchangePolicy = ExchangePolicy()) -> (CommandExchange, EventRecorder) {
        (CommandExchange(link: machine, clock: clock, checksum: machine.checksum, policy: policy), EventRecorder(clock: clock))
    }

    func testAcceptedThenCompleted() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(checksum: .modbus, clock: clock, latency: 0.005)
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder, launch: 1, zone: 5)
        XCTAssertEqual(result.outcome, .completed)
        XCTAssertEqual(result.attempts, 1)
        XCTAssertEqual(result.replyLatency!, 0.005, accuracy: 1e-12)
        XCTAssertEqual(result.completionLatency!, 0.010, accuracy: 1e-12)
        XCTAssertEqual(machine.receivedHex, ["5A A5 83 3C 3C 2D 3C 32 01 B8"])
        XCTAssertEqual(recorder.events.map(\.kind), [.command, .reply, .reply])
        XCTAssertEqual(recorder.events.map(\.reply), [nil, .accepted, .completed])
        XCTAssertEqual(recorder.events[1].bytes, "5A A5 82 01 A3")
    }

    func testTimeoutIsRetriedOnceThenReported() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.silent, .silent])
        let (link, recorder) = exchange(machine, clock: clock)
        let start = clock.now()
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .timedOut)
        XCTAssertEqual(result.attempts, 2)
        XCTAssertEqual(machine.received.count, 2)
        // Each attempt waits exactly the 2 s reply timeout.
        XCTAssertEqual(clock.now() - start, 4, accuracy: 1e-9)
        XCTAssertEqual(recorder.events.map(\.kind), [.command, .timeout, .retry, .command, .timeout])
        XCTAssertEqual(recorder.events[1].note, "no valid reply within 2 s")
    }

    func testTimeoutThenAnswerSucceedsOnTheRetry() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.silent])
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .completed)
        XCTAssertEqual(result.attempts, 2)
    }

    func testRejectedIsRetriedAndCanBeFinal() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.reject, .reject])
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .rejected)
        XCTAssertEqual(result.attempts, 2)
        let noRetry = FakeBallMachine(clock: clock, script: [.reject])
        let (once, _) = exchange(noRetry, clock: clock, policy: ExchangePolicy(retryRejected: false))
        XCTAssertEqual(try once.send(CommandFrame(settings: settings), recorder: recorder).attempts, 1)
        XCTAssertEqual(noRetry.received.count, 1)
    }

    func testRepliesWithBadCheckBytesAreNeverTrusted() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.corruptFirst])
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .completed)
        let invalid = recorder.events.filter { $0.kind == .invalidReply }
        XCTAssertEqual(invalid.count, 1)
        XCTAssertEqual(invalid[0].bytes, "5A A5 82 01 83")
        XCTAssertTrue(invalid[0].note!.contains("check byte 83 is wrong: xor gives 7C"))
        // The corrupt "accepted" did not count: latency is that of the valid one.
        XCTAssertEqual(result.replyLatency!, 0.004, accuracy: 1e-12)
    }

    func testABadReplyAloneEndsInTimeout() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.raw([0x5A, 0xA5, 0x82, 0x02, 0x00]), .raw([0x5A, 0xA5, 0x82, 0x07, 0x7A])])
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .timedOut)
        XCTAssertEqual(recorder.events.filter { $0.kind == .invalidReply }.map(\.note),
                       ["check byte 00 is wrong: xor gives 7F; the frame is corrupt or the device uses the other checksum",
                        "reply code 07 is not 00 (rejected), 01 (accepted) or 02 (completed)"])
    }

    func testGarbageAndSplitRepliesAreResynchronized() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.garbageFirst], chunk: 2)
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .completed)
        XCTAssertEqual(recorder.events.filter { $0.kind == .reply }.count, 2)
        XCTAssertFalse(recorder.events.filter { $0.kind == .discarded }.isEmpty)
    }

    func testLateBytesFromAnEarlierCommandAreDiscarded() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        let (link, recorder) = exchange(machine, clock: clock)
        // A stray "completed" still in the pipe must not complete the next command.
        machine.inject(machine.reply(.completed))
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .completed)
        XCTAssertEqual(recorder.events.first?.kind, .discarded)
        XCTAssertEqual(recorder.events.first?.bytes, "5A A5 82 02 7F")
        XCTAssertEqual(result.replyLatency!, 0.004, accuracy: 1e-12)
    }

    func testAcceptedWithoutCompletionIsNotRetried() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.acceptOnly])
        let (link, recorder) = exchange(machine, clock: clock)
        let result = try link.send(CommandFrame(settings: settings), recorder: recorder)
        XCTAssertEqual(result.outcome, .completionTimedOut)
        XCTAssertEqual(machine.received.count, 1)
        XCTAssertEqual(recorder.events.last?.note, "no completed reply within 2 s after accepted")
        // A stop command does not wait for completion; without awaiting it, accepted is enough.
        let stop = try link.send(.stop, recorder: recorder)
        XCTAssertEqual(stop.outcome, .accepted)
        let (quick, _) = exchange(FakeBallMachine(clock: clock, script: [.acceptOnly]), clock: clock, policy: ExchangePolicy(awaitCompletion: false))
        XCTAssertEqual(try quick.send(CommandFrame(settings: settings), recorder: recorder).outcome, .accepted)
        // A machine that only reports completion is taken at its word.
        let (direct, _) = exchange(FakeBallMachine(clock: clock, script: [.completeOnly]), clock: clock)
        XCTAssertEqual(try direct.send(CommandFrame(settings: settings), recorder: recorder).outcome, .completed)
    }

    func testLinkFailureIsAnError() {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        machine.failWrites = true
        let (link, recorder) = exchange(machine, clock: clock)
        assertThrows(try link.send(CommandFrame(settings: settings), recorder: recorder), "ball machine link failed: write:", "check the device connection")
    }
}

final class LaunchPlannerTests: XCTestCase {
    func testWindowAndWeights() throws {
        XCTAssertEqual(try LaunchPlanner(interval: 2).window, 1.6, accuracy: 1e-12)
        XCTAssertEqual(try LaunchPlanner(interval: 3).window, 2)
        XCTAssertEqual(try LaunchPlanner(interval: 9).window, 2)
        assertThrows(try LaunchPlanner(interval: 1.5), "launch interval \"1.5\" is not between 2 and 9 seconds")
        assertThrows(try LaunchPlanner(interval: 9.5), "not between 2 and 9")
        assertThrows(try CommandArgument.interval("abc"), "launch interval \"abc\"")

        var planner = try LaunchPlanner(interval: 3)
        XCTAssertEqual(planner.add(TimedPosition(t: 0, court: Point2D(0, 0))), [])
        XCTAssertEqual(planner.nextLaunchTime, 3)
        // In the window [1, 3]: three positions, weights 1, 2, 3 (newest heaviest).
        for (t, x) in [(0.5, 9.0), (1.0, 1.0), (2.0, 2.0), (3.0, 4.0)] {
            XCTAssertEqual(planner.add(TimedPosition(t: t, court: Point2D(x, 5))), [])
        }
        let due = try XCTUnwrap(planner.add(TimedPosition(t: 3.1, court: Point2D(7, 7))))
        XCTAssertEqual(due.count, 1)
        XCTAssertEqual(due[0].index, 1)
        XCTAssertEqual(due[0].time, 3)
        XCTAssertEqual(due[0].positions, 3)
        XCTAssertEqual(due[0].average!.x, (1 * 1.0 + 2 * 2.0 + 3 * 4.0) / 6, accuracy: 1e-12)
        XCTAssertEqual(due[0].zone, CourtZones.zone(at: Point2D(17.0 / 6, 5)))
        // Out of order: refused.
        XCTAssertNil(planner.add(TimedPosition(t: 1, court: Point2D(1, 1))))
    }

    func testALongGapIsSkippedInOneStep() throws {
        var planner = try LaunchPlanner(interval: 3)
        for t in [0.0, 0.1, 0.2] { _ = planner.add(TimedPosition(t: t, court: Point2D(1, 1))) }
        let due = try XCTUnwrap(planner.add(TimedPosition(t: 1000, court: Point2D(1, 1))))
        XCTAssertEqual(due.count, 1)
        XCTAssertEqual(due[0].skipReason, "only 0 position(s) in the last 2 s, need 3; 332 more launch(es) skipped until the player was seen again")
        XCTAssertEqual(planner.nextLaunchTime, 1002)
        // Even an absurd jump stays a couple of decisions.
        XCTAssertEqual(planner.add(TimedPosition(t: 1e13, court: Point2D(1, 1)))?.count, 2) // t = 1002 (one position), then the jump
        XCTAssertGreaterThan(planner.nextLaunchTime ?? 0, 1e13)
    }

    func testTooFewPositionsAndOutsideAreSkipped() throws {
        var planner = try LaunchPlanner(interval: 2)
        _ = planner.add(TimedPosition(t: 0, court: Point2D(1, 1)))
        _ = planner.add(TimedPosition(t: 1.5, court: Point2D(1, 1)))
        _ = planner.add(TimedPosition(t: 1.9, court: Point2D(1, 1)))
        let first = planner.advance(to: 2)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(first[0].skipReason, "only 2 position(s) in the last 1.6 s, need 3")
        for t in [2.5, 3.0, 3.5, 4.0] { _ = planner.add(TimedPosition(t: t, court: Point2D(-1, 3))) }
        let second = planner.advance(to: 4)
        XCTAssertEqual(second[0].positions, 4)
        XCTAssertNil(second[0].zone)
        XCTAssertEqual(second[0].skipReason, "average position (-1.000, 3.000) is outside the half court")
    }
}

final class SessionTests: XCTestCase {
    let camera = TennisDemo.cameraHomography()
    lazy var calibration: CameraCalibration = {
        let h = camera
        let t = CalibrationTaps(netLeft: h.apply(Point2D(0, 0))!, netRight: h.apply(Point2D(8.23, 0))!,
                                baselineLeft: h.apply(Point2D(0, 11.885))!, baselineRight: h.apply(Point2D(8.23, 11.885))!,
                                t: h.apply(Point2D(4.115, 6.4))!)
        return try! CameraCalibration.calibrate(t, camera: "test")
    }()

    /// The scripted detection file: the player stands in zone 5 (t 0–2.9), zone 10 (3–5.9), zone 15
    /// (6–8.9), is seen once at t 9 and then again only from 12.5 to 13.
    func scriptedDetections() -> String {
        var lines: [String] = []
        func add(_ t: Double, _ court: Point2D) {
            let p = camera.apply(court)!
            lines.append("{\"t\":\(Format.fixed(t, 1)),\"x\":\(Format.fixed(p.x, 6)),\"y\":\(Format.fixed(p.y, 6)),\"score\":0.9}")
        }
        for k in 0..<30 { add(Double(k) / 10, Point2D(3.0, 4.2)) }
        for k in 30..<60 { add(Double(k) / 10, Point2D(4.615, 7.0)) }
        for k in 60..<90 { add(Double(k) / 10, Point2D(7.0, 10.0)) }
        add(9.0, Point2D(1, 1))
        lines.append("")
        for k in 125...130 { add(Double(k) / 10, Point2D(1, 1)) }
        return lines.joined(separator: "\n") + "\n"
    }

    func run(checksum: Checksum, machine: FakeBallMachine?, clock: ManualClock, dryRun: Bool = false) throws -> TennisCommands.SessionReport {
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .topspin, interval: 3,
                                       checksum: checksum, dryRun: dryRun)
        return try TennisCommands.session(detectionsText: scriptedDetections(), file: "script.jsonl", settings: settings,
                                          calibration: calibration, table: .formula(), link: machine, clock: clock, svgTitle: "scripted")
    }

    func testScriptedDetectionsSendExactlyTheExpectedFrames() throws {
        // Launches at 3, 6, 9, 12 s. Window 2 s, weights 1..n:
        //   t=3: 20 positions in zone 5 + 1 in zone 10 → average (3.147, 4.455) → zone 5
        //   t=6: → (4.832, 7.273) → zone 10;  t=9: → (6.455, 9.182) → zone 15;  t=12: no positions → skipped.
        for (checksum, expected) in [
            (Checksum.xor, ["5A A5 83 3C 3C 2D 3C 32 01 5E", "5A A5 83 46 46 2D 3C 32 01 5E", "5A A5 83 50 50 2D 3C 32 01 5E",
                            "5A A5 83 00 00 00 00 00 00 7C"]),
            (.modbus, ["5A A5 83 3C 3C 2D 3C 32 01 B8", "5A A5 83 46 46 2D 3C 32 01 6A", "5A A5 83 50 50 2D 3C 32 01 21",
                       "5A A5 83 00 00 00 00 00 00 F0"]),
        ] {
            let clock = ManualClock()
            let machine = FakeBallMachine(checksum: checksum, clock: clock)
            let report = try run(checksum: checksum, machine: machine, clock: clock)
            XCTAssertEqual(machine.receivedHex, expected)
            XCTAssertEqual(report.log.framesSent, expected)
            let launches = report.log.launches
            XCTAssertEqual(launches.map(\.decision.time), [3, 6, 9, 12])
            XCTAssertEqual(launches.map(\.decision.zone), [5, 10, 15, nil])
            XCTAssertEqual(launches.map(\.decision.positions), [21, 21, 21, 0])
            XCTAssertEqual(launches[0].target!.x, (3.0 * 210 + 4.615 * 21) / 231, accuracy: 1e-6)
            XCTAssertEqual(launches[0].target!.y, (4.2 * 210 + 7.0 * 21) / 231, accuracy: 1e-6)
            XCTAssertEqual(launches[3].decision.skipReason, "only 0 position(s) in the last 2 s, need 3")
            let s = report.log.summary
            XCTAssertEqual([s.detections, s.launches, s.sent, s.completed, s.skipped], [97, 4, 3, 3, 1])
            XCTAssertTrue(s.stopSent)
            XCTAssertEqual(s.stopOutcome, .accepted)
            XCTAssertEqual(s.zoneCounts[5] + s.zoneCounts[10] + s.zoneCounts[15], 3)
            XCTAssertEqual(s.medianLatencyMs!, 4, accuracy: 1e-9)
            XCTAssertTrue(report.text.contains("launch 4 at t=12.00 s (0 positions): skipped"))
            XCTAssertTrue(report.text.contains("summary: 4 launches, 3 sent, 3 completed"))
        }
    }

    func testDryRunPrintsTheSameFramesWithoutADevice() throws {
        let report = try run(checksum: .xor, machine: nil, clock: ManualClock(), dryRun: true)
        XCTAssertEqual(report.log.framesSent, ["5A A5 83 3C 3C 2D 3C 32 01 5E", "5A A5 83 46 46 2D 3C 32 01 5E",
                                               "5A A5 83 50 50 2D 3C 32 01 5E", "5A A5 83 00 00 00 00 00 00 7C"])
        XCTAssertEqual(report.log.summary.sent, 0)
        XCTAssertTrue(report.text.contains("stop: dry run, frame 5A A5 83 00 00 00 00 00 00 7C"))
    }

    func testSessionSVGShowsZonesPositionsAndTargets() throws {
        let report = try run(checksum: .xor, machine: nil, clock: ManualClock(), dryRun: true)
        let svg = try XCTUnwrap(report.svg)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.hasSuffix("</svg>\n"))
        XCTAssertEqual(svg.components(separatedBy: "class=\"zone\"").count - 1, 16)
        XCTAssertEqual(svg.components(separatedBy: "r=\"2.5\"/>").count - 1, 97) // every projected position
        XCTAssertEqual(svg.components(separatedBy: "class=\"target\"").count - 1, 3) // the skipped launch has no average
        XCTAssertTrue(svg.contains("data-zone=\"10\" data-launches=\"1\""))
        XCTAssertTrue(svg.contains("data-zone=\"0\" data-launches=\"0\""))
        XCTAssertEqual(svg.components(separatedBy: "<g").count, svg.components(separatedBy: "</g>").count)
        // Deterministic output: the same session draws the same picture.
        XCTAssertEqual(try run(checksum: .xor, machine: nil, clock: ManualClock(), dryRun: true).svg, svg)
        XCTAssertTrue(CourtSVG(title: "a < b & c").render().contains("<title>a &lt; b &amp; c</title>"))
    }

    func testSessionStopsWhenTheMachineKeepsFailing() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock, script: [.silent, .silent, .silent, .silent, .silent, .silent])
        let report = try run(checksum: .xor, machine: machine, clock: clock)
        // Three launches timed out (two attempts each): the session ends, then still sends the stop command.
        XCTAssertEqual(report.log.summary.timedOut, 3)
        XCTAssertNotNil(report.log.summary.aborted)
        XCTAssertEqual(machine.received.count, 7)
        XCTAssertEqual(machine.receivedHex.last, "5A A5 83 00 00 00 00 00 00 7C")
        XCTAssertTrue(report.log.summary.stopSent)
        XCTAssertTrue(report.text.contains("aborted: the ball machine failed 3 commands in a row"))
    }

    func testDetectionsThatCannotBeOnTheCourtAreCountedNotFatal() throws {
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .flat, dryRun: true)
        let session = try BallMachineSession(settings: settings, table: .formula(), calibration: calibration, link: nil, clock: ManualClock())
        _ = try session.ingest(Detection(t: 0, x: 640, y: -900))
        _ = try session.ingest(Detection(t: 1, x: 640, y: 500))
        _ = try session.ingest(Detection(t: 0.5, x: 640, y: 500))
        let log = session.finish()
        XCTAssertEqual(log.summary.detections, 3)
        XCTAssertEqual(log.summary.rejectedDetections, 2)
        XCTAssertEqual(log.events.filter { $0.kind == .detectionRejected }.count, 2)
        assertThrows(try session.ingest(Detection(t: 2, x: 1, y: 1)), "already finished")
    }

    func testPacedReplayKeepsTheDetectionTiming() throws {
        let clock = ManualClock(0)
        let machine = FakeBallMachine(clock: clock)
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .topspin, interval: 3)
        _ = try TennisCommands.session(detectionsText: scriptedDetections(), file: "s", settings: settings, calibration: calibration,
                                       table: .formula(), link: machine, clock: clock, pace: true)
        // The third launch (t = 9 s after the first detection) cannot happen before 9 s on the clock.
        XCTAssertGreaterThanOrEqual(clock.now(), 9)
    }

    /// Ctrl-C while a paced replay waits for the next launch's time: the wait ends at once, that
    /// launch is not sent, the machine gets the stop command and the log says the user stopped it.
    func testPacedReplayStopsWhileWaitingWhenCancelled() throws {
        let clock = ManualClock(0)
        let machine = FakeBallMachine(clock: clock)
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .topspin, interval: 3)
        // Cancelled 4.5 s in: after the first launch (due at 3 s), during the wait for the second (6 s).
        let report = try TennisCommands.session(detectionsText: scriptedDetections(), file: "s", settings: settings,
                                                calibration: calibration, table: .formula(), link: machine, clock: clock, pace: true,
                                                shouldStop: { clock.now() >= 4.5 })
        XCTAssertLessThan(clock.now(), 5.5, "the wait did not notice the cancellation")
        XCTAssertEqual(report.log.launches.count, 1)
        XCTAssertEqual(report.log.summary.aborted, "stopped by the user")
        XCTAssertEqual(machine.receivedHex.count, 2, "one launch, then the stop command")
        XCTAssertEqual(machine.receivedHex.last, "5A A5 83 00 00 00 00 00 00 7C")
    }

    func testTableWithoutTheSpinFailsBeforeSending() throws {
        let machine = FakeBallMachine(clock: ManualClock())
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .backspin)
        assertThrows(try TennisCommands.session(detectionsText: scriptedDetections(), file: "s", settings: settings, calibration: calibration,
                                                table: .formula(), link: machine, clock: ManualClock()), "the default table has no backspin entries")
        XCTAssertTrue(machine.received.isEmpty)
    }

    func testManualSendToAPointOrAZone() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        let settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 80), spin: .extremeTopspin)
        let report = try TennisCommands.send(.point(Point2D(8.22, 11.88)), settings: settings, table: .formula(), link: machine, clock: clock)
        XCTAssertEqual(machine.receivedHex, ["5A A5 83 50 50 3C 4B 32 01 38", "5A A5 83 00 00 00 00 00 00 7C"])
        XCTAssertEqual(report.log.launches.first?.outcome, .completed)
        XCTAssertEqual(report.log.summary.completed, 1)
        XCTAssertTrue(report.text.hasPrefix("manual session: 80 mph extreme-topspin"))
        XCTAssertTrue(report.text.contains("launch 1: zone 15 from (8.22, 11.88) → 5A A5 83 50 50 3C 4B 32 01 38 completed in 4.0 ms"))
        let zone = try TennisCommands.send(.zone(0), settings: settings, table: .formula(), link: nil, clock: clock)
        XCTAssertEqual(zone.log.framesSent, ["5A A5 83 32 32 3C 4B 32 01 38", "5A A5 83 00 00 00 00 00 00 7C"])
        assertThrows(try TennisCommands.send(.point(Point2D(-1, 3)), settings: settings, table: .formula(), link: machine, clock: clock),
                     "outside the half court")
    }

    func testDetectionLinesAreValidated() {
        assertThrows(try DetectionReader.parseAll("{\"t\":0,\"x\":1,\"y\":2}\n{\"t\":1,\"x\":1}\n", file: "d.jsonl"),
                     "d.jsonl:2:1: missing image y (pixels)", "{\"t\":seconds,\"x\":px,\"y\":px}")
        assertThrows(try DetectionReader.parseAll("{\"t\":0,\"x\":1,\"y\":2}\n\n{\"t\":1,\"x\":\"a\",\"y\":2}\n", file: "d.jsonl"),
                     "d.jsonl:3:12: image x (pixels) must be a number, found a string")
        assertThrows(try DetectionReader.parseAll("{\"t\":5,\"x\":1,\"y\":2}\n{\"t\":4,\"x\":1,\"y\":2}\n", file: "d.jsonl"),
                     "d.jsonl:2:1: time 4 s is earlier than the previous detection's 5 s")
        assertThrows(try DetectionReader.parseAll("{\"t\":0,\"x\":1,\"y\":2}\n{\"t\":1,\"x\":1,\"y\":2\n", file: "d.jsonl"),
                     "d.jsonl:2:")
        assertThrows(try DetectionReader.parseAll("[1,2,3]\n", file: "-"), "-:1:1: expected an object, found an array")
        XCTAssertEqual(try DetectionReader.parseAll("\n  \n{\"t\":0.5,\"x\":1,\"y\":2}", file: "d").count, 1)
    }
}

final class FailureMessageTests: XCTestCase {
    func testAWrongChecksumSettingIsNamedAsSuch() throws {
        // The machine answers with modbus check bytes, the site is set to xor: every reply is refused.
        let clock = ManualClock()
        let machine = FakeBallMachine(checksum: .xor, clock: clock,
                                      script: [.raw(ReplyFrame(code: .rejected).encode(checksum: .modbus).array),
                                               .raw(ReplyFrame(code: .rejected).encode(checksum: .modbus).array)])
        let settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 40), spin: .flat, checksum: .xor)
        let report = try TennisCommands.send(.zone(3), settings: settings, table: .formula(), link: machine, clock: clock)
        let launch = try XCTUnwrap(report.log.launches.first)
        XCTAssertEqual(launch.outcome, .timedOut)
        XCTAssertEqual(launch.invalidReplies, 2)
        XCTAssertEqual(SessionError.commandFailed(.timedOut, attempts: 2, invalidReplies: 2).description,
                       "the ball machine answered, but 2 replies had a check byte that does not match (2 attempt(s)); check the checksum setting (xor or modbus) for this device")
        XCTAssertEqual(SessionError.commandFailed(.timedOut, attempts: 2, invalidReplies: 0).description,
                       "the ball machine did not answer within the reply timeout (2 attempt(s)); check the device connection")
        XCTAssertEqual(SessionError.commandFailed(.rejected, attempts: 1, invalidReplies: 0).description,
                       "the ball machine rejected the command (1 attempt(s)); check the checksum setting (xor or modbus) for this device")
        XCTAssertTrue(SessionError.commandFailed(.completionTimedOut, attempts: 1, invalidReplies: 0).description.contains("did not report it completed"))
    }
}

final class LinkFailureTests: XCTestCase {
    func testALinkThatFailsMidSessionKeepsTheLog() throws {
        let clock = ManualClock()
        let machine = FakeBallMachine(clock: clock)
        let camera = TennisDemo.cameraHomography()
        let taps = CalibrationTaps(netLeft: camera.apply(Point2D(0, 0))!, netRight: camera.apply(Point2D(8.23, 0))!,
                                   baselineLeft: camera.apply(Point2D(0, 11.885))!, baselineRight: camera.apply(Point2D(8.23, 11.885))!,
                                   t: camera.apply(Point2D(4.115, 6.4))!)
        let calibration = try CameraCalibration.calibrate(taps)
        let lines = (0..<70).map { k -> String in
            let p = camera.apply(Point2D(3, 4.2))!
            return Detection(t: Double(k) / 10, x: p.x, y: p.y).jsonLine
        }.joined(separator: "\n")
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .flat)
        var sent = 0
        let report = try TennisCommands.session(detectionsText: lines, file: "d", settings: settings, calibration: calibration,
                                                table: .formula(), link: machine, clock: clock, progress: { _, _ in
                                                    // The cable is pulled after the first launch went out.
                                                    if machine.received.count > sent { sent = machine.received.count; machine.failWrites = true }
                                                })
        XCTAssertEqual(report.log.launches.count, 2)
        XCTAssertEqual(report.log.launches[0].outcome, .completed)
        XCTAssertTrue(report.linkFailure?.contains("ball machine link failed: write") ?? false, "\(String(describing: report.linkFailure))")
        XCTAssertTrue(report.log.summary.aborted?.contains("link failed") ?? false)
        XCTAssertFalse(report.log.summary.stopSent)
        XCTAssertTrue(report.log.events.contains { $0.kind == .abort && ($0.note ?? "").hasPrefix("stop command not sent") })
    }
}
