// Every tennis picture type — the session court (positions and targets), the drill landing
// pattern (targets and random sectors), the empty court — rendered to PNG by an independent SVG
// renderer (rsvg-convert, from Debian's librsvg2-bin): it must render, at the size the SVG
// declares. Without rsvg-convert on the PATH the test skips and says why. Set
// TENNIS_PICTURES_DIR to keep the SVGs there (to look at them).

import Foundation
import XCTest
@testable import TennisCore

enum PNGRender {
    static let converter: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/rsvg-convert"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Renders `svg` to PNG; returns (width, height, bytes) from the PNG header. Skips without
    /// rsvg-convert; fails on a renderer error.
    static func render(_ svg: String, name: String, file: StaticString = #filePath, line: UInt = #line) throws -> (width: Int, height: Int, bytes: Int) {
        if let keep = ProcessInfo.processInfo.environment["TENNIS_PICTURES_DIR"] {
            try? Data(svg.utf8).write(to: URL(fileURLWithPath: keep).appendingPathComponent("\(name).svg"))
        }
        guard let converter else {
            let reason = "rsvg-convert not found on PATH; skipping the rendered-PNG check (install librsvg2-bin)"
            print(reason)
            throw XCTSkip(reason)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tennis-png-\(getpid())-\(name)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("\(name).svg"), output = dir.appendingPathComponent("\(name).png")
        try Data(svg.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = [input.path, "-o", output.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(name): rsvg-convert failed: \(message)", file: file, line: line)
        let png = try Data(contentsOf: output)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(name): not a PNG", file: file, line: line)
        guard png.count > 24 else { return (0, 0, png.count) }
        func be32(_ at: Int) -> Int { png[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20), png.count)
    }

    static func declaredSize(_ svg: String) -> (Double, Double)? {
        func attribute(_ name: String) -> Double? {
            guard let r = svg.range(of: " \(name)=\"") else { return nil }
            let rest = svg[r.upperBound...]
            return rest.firstIndex(of: "\"").flatMap { Double(rest[..<$0]) }
        }
        guard let w = attribute("width"), let h = attribute("height") else { return nil }
        return (w, h)
    }
}

final class RenderedPictureTests: XCTestCase {
    func check(_ svg: String, name: String) throws {
        let size = try XCTUnwrap(PNGRender.declaredSize(svg), name)
        let png = try PNGRender.render(svg, name: name)
        XCTAssertEqual(Double(png.width), size.0.rounded(.up), accuracy: 1, name)
        XCTAssertEqual(Double(png.height), size.1.rounded(.up), accuracy: 1, name)
        XCTAssertGreaterThan(png.bytes, 1000, "\(name): an empty picture")
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
