import Foundation
import XCTest
@testable import PuttingCore

/// Issue 20: every putting picture type renders to a PNG with a real SVG renderer (`rsvg-convert` from
/// Debian's librsvg2-bin). Skipped, with the reason, where the renderer is not installed.
final class RenderedPictureTests: XCTestCase {
    static let renderer = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }

    private func service() throws -> (PuttingService, PointFt, PointFt) {
        let store = InMemoryPuttingStore()
        let green = try GreenGenerator.procedural(seed: 11, sizeFt: 50)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 50, greenHeightFt: 50, holePosition: green.hole,
                 heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25),
        ])
        return (PuttingService(store: store), try XCTUnwrap(green.balls.first), try XCTUnwrap(green.hole))
    }

    /// Renders `svg` to a PNG and checks it is a PNG of the SVG's size with more than one colour in it.
    private func assertRenders(_ svg: String, _ name: String) throws {
        guard let renderer = RenderedPictureTests.renderer else {
            throw XCTSkip("rsvg-convert is not installed (apt-get install librsvg2-bin); \(name) not rendered")
        }
        let dir = try temporaryDirectory(self)
        let input = dir + "/\(name).svg", output = dir + "/\(name).png"
        try write(svg, to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: renderer)
        process.arguments = ["-o", output, input]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, "\(name): \(message)")
        let png = try Data(contentsOf: URL(fileURLWithPath: output))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(name) is a PNG")
        // IHDR width and height (big-endian) match the SVG's.
        func be32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        _ = try SVGSummary.parse(svg)
        let width = svg.firstMatch(of: /width="(\d+)"/).map { Int($0.1) ?? 0 } ?? 0
        let height = svg.firstMatch(of: /height="(\d+)"/).map { Int($0.1) ?? 0 } ?? 0
        XCTAssertEqual(be32(16), width, name)
        XCTAssertEqual(be32(20), height, name)
        XCTAssertGreaterThan(png.count, 5_000, "\(name): a picture with content, not a blank page")
    }

    func testTheGreenAloneRenders() throws {
        let (service, _, _) = try service()
        try assertRenders(service.render(RenderRequest(course: "gen", hole: 1)).svg, "green")
    }

    func testABestLinePictureRendersWithItsShadingInsideTheBoundary() throws {
        let (service, ball, flag) = try service()
        let svg = try service.render(RenderRequest(course: "gen", hole: 1, putt: PuttSpec(ball: ball, flag: flag))).svg
        XCTAssertTrue(svg.contains("clip-path=\"url(#green-clip)\""), "shading clipped to the boundary")
        try assertRenders(svg, "bestline")
    }

    func testARollPictureRenders() throws {
        let (service, ball, flag) = try service()
        let result = try service.roll(RollRequest(course: "gen", hole: 1, ball: ball, flag: flag, aim: .offsetDeg(1), pace: .speedFps(6)))
        try assertRenders(service.rollPicture(result), "roll")
    }

    func testABookSheetRenders() throws {
        let (service, _, flag) = try service()
        let book = try service.book(BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 6), threads: 2)
        try assertRenders(service.bookPicture(book), "book")
    }
}
