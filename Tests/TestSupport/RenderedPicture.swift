// Renders an SVG the way a browser-less user would see it (rsvg-convert from Debian's librsvg2-bin)
// and checks that it really renders: exit 0, a PNG at the size the SVG declares (or at least
// 100 × 100 px when it declares none), and not a blank page. Skips, saying why, where rsvg-convert
// is not installed. Shared by every test target that draws (core tests and end-to-end tests).
// CLUBHOUSE_KEEP_PNG=DIR keeps a copy of each SVG and PNG there, to look at.

import Foundation
import XCTest

public enum RenderedPicture {
    /// rsvg-convert on the PATH (or in /usr/bin), or nil.
    public static let renderer: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return folders.map { $0 + "/rsvg-convert" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }()

    public static let missingReason = "rsvg-convert is not installed (apt-get install librsvg2-bin); pictures not rendered"

    /// Checks the SVG text `svg` (written to a scratch file named after `name`).
    @discardableResult
    public static func check(svg: String, name: String, minimumBytes: Int = 1_000,
                             file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard renderer != nil else { throw skip() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-png-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let input = dir.appendingPathComponent("\(name).svg")
        try Data(svg.utf8).write(to: input)
        return try check(input.path, minimumBytes: minimumBytes, file: file, line: line)
    }

    /// Renders the SVG file at `svgPath` to a PNG beside it and returns the PNG's path; fails the
    /// test when it does not render.
    @discardableResult
    public static func check(_ svgPath: String, minimumBytes: Int = 3_000,
                             file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard let renderer else { throw skip() }
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
        let (width, height) = (be32(16), be32(20))
        if let text = try? String(contentsOfFile: svgPath, encoding: .utf8), let size = declaredSize(text) {
            XCTAssertEqual(Double(width), size.width.rounded(.up), accuracy: 1, "\(png): width", file: file, line: line)
            XCTAssertEqual(Double(height), size.height.rounded(.up), accuracy: 1, "\(png): height", file: file, line: line)
        } else {
            XCTAssertGreaterThan(width, 100, "\(png) is narrower than 100 px", file: file, line: line)
            XCTAssertGreaterThan(height, 100, "\(png) is lower than 100 px", file: file, line: line)
        }
        // A blank white page compresses to almost nothing; a drawn picture does not.
        XCTAssertGreaterThan(bytes.count, minimumBytes, "\(png) looks blank (\(bytes.count) bytes)", file: file, line: line)
        if let keep = ProcessInfo.processInfo.environment["CLUBHOUSE_KEEP_PNG"] {
            for source in [svgPath, png] {
                let target = URL(fileURLWithPath: keep).appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent)
                try? FileManager.default.removeItem(at: target)
                try? FileManager.default.copyItem(atPath: source, toPath: target.path)
            }
        }
        return png
    }

    /// The numeric width and height attributes of the root element, if it has them.
    public static func declaredSize(_ svg: String) -> (width: Double, height: Double)? {
        guard let open = svg.range(of: "<svg") else { return nil }
        let tag = svg[open.upperBound...].prefix { $0 != ">" }
        func attribute(_ name: String) -> Double? {
            guard let r = tag.range(of: " \(name)=\"") else { return nil }
            let rest = tag[r.upperBound...]
            return rest.firstIndex(of: "\"").flatMap { Double(rest[..<$0]) }
        }
        guard let w = attribute("width"), let h = attribute("height") else { return nil }
        return (w, h)
    }

    private static func skip() -> XCTSkip {
        print(missingReason)
        return XCTSkip(missingReason)
    }
}
