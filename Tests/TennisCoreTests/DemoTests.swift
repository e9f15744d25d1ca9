import Foundation
import XCTest
@testable import TennisCore

final class DemoTests: XCTestCase {
    func testDemoSessionTargetsWherethePlayerStood() throws {
        let calibration = try TennisCommands.calibrate(tapsJSON: TennisDemo.tapsJSON(), file: "demo-taps.json", camera: "demo").calibration
        // Taps rounded to half a pixel: the fit is within a few centimetres.
        XCTAssertLessThan(calibration.maxError, 0.05)
        let detections = TennisDemo.detectionLines()
        XCTAssertEqual(try DetectionReader.parseAll(detections, file: "demo.jsonl"), TennisDemo.detections())
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .topspin, dryRun: true)
        let report = try TennisCommands.session(detectionsText: detections, file: "demo.jsonl", settings: settings,
                                                calibration: calibration, table: .formula(), link: nil, clock: ManualClock())
        let launches = report.log.launches
        XCTAssertEqual(launches.map(\.decision.time), stride(from: 3.0, through: 27, by: 3).map { $0 })
        // Dwell periods of the script: a launch whose whole 2 s window falls in one aims at that spot's zone.
        var dwells: [(from: Double, to: Double, zone: Int?)] = []
        var t = 0.0
        for (i, (point, dwell)) in TennisDemo.script.enumerated() {
            if i > 0 { t += 1 }
            dwells.append((t, t + dwell, CourtZones.zone(at: point)))
            t += dwell
        }
        var checked = 0
        for l in launches {
            guard let d = dwells.first(where: { $0.from <= l.decision.time - 2 && l.decision.time <= $0.to }) else { continue }
            XCTAssertEqual(l.decision.zone, d.zone, "launch at \(l.decision.time)")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 3)
        XCTAssertEqual(report.log.summary.skipped, 0)
        XCTAssertEqual(report.log.framesSent.last, "5A A5 83 00 00 00 00 00 00 7C")
    }
}

final class StoreTests: XCTestCase {
    func testInMemoryStoreKeepsCalibrationsAndSessions() throws {
        let store = InMemoryTennisStore()
        let calibration = try CameraCalibration.calibrate(TennisDemo.taps(), camera: "demo")
        store.saveCalibration(calibration, savedAt: "2026-01-01T00:00:00Z")
        XCTAssertEqual(store.calibration(camera: "demo"), calibration)
        XCTAssertNil(store.calibration(camera: "other"))
        XCTAssertEqual(store.cameras(), ["demo"])
        let report = try TennisCommands.send(.zone(3), settings: SessionSettings(mode: .manual, speed: try BallSpeed(mph: 30), spin: .flat),
                                             table: .formula(), link: nil, clock: ManualClock())
        XCTAssertEqual(store.saveSession(report.log, startedAt: "t1"), 1)
        XCTAssertEqual(store.saveSession(report.log, startedAt: "t2"), 2)
        XCTAssertEqual(store.sessions(limit: 1).map(\.startedAt), ["t2"])
        // A session log survives JSON (how the adapter stores the summary and shows logs).
        let data = try JSONEncoder().encode(report.log)
        XCTAssertEqual(try JSONDecoder().decode(SessionLog.self, from: data), report.log)
        XCTAssertEqual(StoreError.noCalibration(camera: "cam").description,
                       "no calibration for camera \"cam\" at this site; run `clubhouse tennis calibrate --image-points FILE.json --camera cam` first")
    }

    func testSchemaDeclaresWhatTheStatementsUse() {
        let schema = TennisSchema.migrations.map(\.sql).joined()
        for table in ["calibrations", "sessions", "session_events"] { XCTAssertTrue(schema.contains("CREATE TABLE \(table) (")) }
        for column in ["calibration_json", "summary_json", "bytes_hex", "latency_s", "interval_s"] {
            XCTAssertTrue(schema.contains(column))
        }
        XCTAssertTrue(TennisSchema.insertEvent.contains("?11"))
        XCTAssertTrue(TennisSchema.insertSession.contains("?10"))
    }
}
