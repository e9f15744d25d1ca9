// Where the tests find the other projects' data: read in place, never copied into the repo.

import Foundation
import XCTest

enum SharedData {
    /// The repository root: three levels up from Tests/GlobeCoreTests/SharedData.swift.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var naturalEarth: URL { repoRoot.appendingPathComponent("../shared/peers/data/naturalearth_lowres_countries.geojson") }
    static var voyageWorld: URL { repoRoot.appendingPathComponent("../shared/data/globe/world.geojson") }
    static var voyageHighlights: URL { repoRoot.appendingPathComponent("../shared/data/globe/country_highlights.json") }
    static var voyageChallenges: URL { repoRoot.appendingPathComponent("../shared/data/globe/daily_challenges.json") }

    /// The file's text, or an XCTSkip that says what is missing.
    static func text(_ url: URL) throws -> String {
        let path = url.standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            let reason = "shared data not found at \(path); skipping (it lives beside the repository, see HELPER_BRIEF data rule)"
            print(reason)
            throw XCTSkip(reason)
        }
        return text
    }
}
