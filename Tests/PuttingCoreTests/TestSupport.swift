import Foundation
import XCTest
@testable import PuttingCore

/// Where the shared data lives, read in place (never copied into the repository).
enum SharedData {
    /// `<repoRoot>` = three levels up from this file (Tests/PuttingCoreTests/TestSupport.swift).
    static let repoRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let presidio = repoRoot + "/../shared/data/putting/presidio"

    /// The Presidio folder, or a skip that says why the test cannot run.
    static func presidioDirectory() throws -> String {
        let path = presidio
        guard FileManager.default.fileExists(atPath: path + "/hole_1/Hole_1_heightfield.json") else {
            let reason = "shared data not found at \(path): tests that read the Presidio greens are skipped"
            print(reason)
            throw XCTSkip(reason)
        }
        return path
    }

    static func hole1Heightfield() throws -> Heightfield {
        let dir = try presidioDirectory()
        return try Heightfield.read(jsonPath: dir + "/hole_1/Hole_1_heightfield.json")
    }
}

/// A fresh temporary directory removed when the test ends.
func temporaryDirectory(_ test: XCTestCase) throws -> String {
    let path = NSTemporaryDirectory() + "putting-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The message a throwing expression produces, or a failure when it does not throw.
func errorMessage<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
        _ = try body()
        XCTFail("expected an error", file: file, line: line)
        return ""
    } catch {
        return String(describing: error)
    }
}
