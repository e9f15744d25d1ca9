import Foundation
import XCTest

/// Files other projects own, read in place: `<repoRoot>/../shared/...` (never copied into the repo).
enum SharedData {
    /// The repository root: three levels above this file (`Tests/PracticeCoreTests/SharedData.swift`).
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/data/practice/<relative>`, or a skip saying why the test can't run.
    static func practice(_ relative: String) throws -> URL {
        try file("data/practice/" + relative)
    }

    /// `../shared/peers/data/<relative>`, or a skip.
    static func peers(_ relative: String) throws -> URL {
        try file("peers/data/" + relative)
    }

    static func file(_ relative: String) throws -> URL {
        let url = repoRoot.appendingPathComponent("../shared/" + relative).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else {
            let reason = "shared data \(url.path) is absent; this test needs ../shared next to the repository"
            print("skipped: \(reason)")
            throw XCTSkip(reason)
        }
        return url
    }

    static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    static func text(_ url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }
}
