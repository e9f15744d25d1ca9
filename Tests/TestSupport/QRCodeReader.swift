// Reads QR codes back the way a phone would, with a reference decoder (zbarimg from Debian's
// zbar-tools), and runs the other reference tools tests compare against. Skips, saying why, where
// zbarimg is not installed (.ci/deps installs it). Shared by the host's unit tests and the
// end-to-end tests.

import Foundation
import XCTest

public enum QRCodeReader {
    /// zbarimg on the PATH (or in /usr/bin), or nil.
    public static let decoder: String? = ReferenceTool.find("zbarimg")

    public static let missingReason = "zbarimg is not installed (apt-get install zbar-tools; .ci/deps installs it); QR codes not read back"

    /// The text of the QR code in each PNG, in order.
    public static func read(_ pngs: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        guard let decoder else {
            print(missingReason)
            throw XCTSkip(missingReason)
        }
        let result = try ReferenceTool.run(decoder, ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"] + pngs)
        XCTAssertEqual(result.status, 0, "zbarimg found no QR code in \(pngs): \(result.error)", file: file, line: line)
        return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

public enum ReferenceTool {
    /// `name` on the PATH or in /usr/bin, /usr/local/bin.
    public static func find(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return folders.map { $0 + "/" + name }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Runs `tool` to the end; its standard streams go through scratch files (no pipe to drain).
    public static func run(_ tool: String, _ arguments: [String], stdin: String = "") throws -> (status: Int32, output: String, error: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = ["in", "out", "err"].map { folder.appendingPathComponent($0) }
        try Data(stdin.utf8).write(to: paths[0])
        for path in paths.dropFirst() { FileManager.default.createFile(atPath: path.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: paths[0])
        process.standardOutput = try FileHandle(forWritingTo: paths[1])
        process.standardError = try FileHandle(forWritingTo: paths[2])
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: paths[1], encoding: .utf8), try String(contentsOf: paths[2], encoding: .utf8))
    }
}
