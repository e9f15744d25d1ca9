// Every tennis picture type — the session court (positions and targets), the drill landing
// pattern (targets and random sectors), the empty court — rendered to PNG by an independent SVG
// renderer (rsvg-convert, from Debian's librsvg2-bin): it must render, at the size the SVG
// declares. Without rsvg-convert on the PATH the test skips and says why. Set
// CLUBHOUSE_KEEP_PNG=DIR to keep the SVGs and PNGs there (to look at them).

import Foundation
import TestSupport
import XCTest
@testable import TennisCore

final class RenderedPictureTests: XCTestCase {
    func check(_ svg: String, name: String) throws {
        try RenderedPicture.check(svg: svg, name: name, minimumBytes: 1000)
    }

    func testSessionCourtRenders() throws {
        let calibration = try TennisCommands.calibrate(tapsJSON: TennisDemo.tapsJSON(), file: "demo-taps.json", camera: "demo").calibration
        let settings = SessionSettings(mode: .interactive, speed: try BallSpeed(mph: 50), spin: .topspin, dryRun: true)
        let report = try TennisCommands.session(detectionsText: TennisDemo.detectionLines(), file: "demo.jsonl", settings: settings,
                                                calibration: calibration, table: .formula(), link: nil, clock: ManualClock(),
                                                svgTitle: "Tennis demo session")
        try check(try XCTUnwrap(report.svg), name: "court-session")
    }

    func testDrillLandingPatternRenders() throws {
        let drill = try Drill.parse(TennisDemo.drillJSON, file: "demo-drill.json")
        let settings = SessionSettings(mode: .manual, speed: try BallSpeed(mph: 50), spin: .topspin, dryRun: true)
        let report = try TennisCommands.drillRun(drill, settings: settings, table: .formula(), link: nil, clock: ManualClock(),
                                                 svgTitle: "Drill landing pattern")
        try check(try XCTUnwrap(report.svg), name: "court-drill")
    }

    func testEmptyCourtRenders() throws {
        try check(CourtSVG(title: "Tennis half court").render(), name: "court-empty")
    }
}
