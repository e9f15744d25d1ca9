// Renders an SVG the way a browser-less user would see it (rsvg-convert from Debian's librsvg2-bin)
// and checks that it really renders: exit 0, a PNG of the SVG's size, and not a blank page. Skips,
// saying why, where rsvg-convert is not installed.

import Foundation
import XCTest

enum RenderedPicture {
    static let renderer = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: FileManager.default.isExecutableFile(atPath:))

    /// Renders `svgPath` to a PNG beside it and returns the PNG's path; fails the test when the SVG
    /// does not render. Set CLUBHOUSE_KEEP_PNG=DIR to keep a copy to look at.
    @discardableResult
    static func check(_ svgPath: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard let renderer else { throw XCTSkip("rsvg-convert is not installed (apt-get install librsvg2-bin); pictures not rendered") }
        let png = svgPath + ".png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: renderer)
        process.arguments = ["--background-color=white", "-o", png, svgPath]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(svgPath) does not render: \(message)", file: file, line: line)
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: png))) ?? Data())
        XCTAssertGreaterThan(bytes.count, 24, "\(png) is empty", file: file, line: line)
        guard bytes.count > 24 else { return png }
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(png) is not a PNG", file: file, line: line)
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        XCTAssertGreaterThan(be32(16), 100, "\(png) is narrower than 100 px", file: file, line: line)
        XCTAssertGreaterThan(be32(20), 100, "\(png) is lower than 100 px", file: file, line: line)
        // A blank white page compresses to almost nothing; a drawn picture does not.
        XCTAssertGreaterThan(bytes.count, 3_000, "\(png) looks blank (\(bytes.count) bytes)", file: file, line: line)
        if let keep = ProcessInfo.processInfo.environment["CLUBHOUSE_KEEP_PNG"] {
            let target = URL(fileURLWithPath: keep).appendingPathComponent(URL(fileURLWithPath: png).lastPathComponent)
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.copyItem(atPath: png, toPath: target.path)
        }
        return png
    }
}
