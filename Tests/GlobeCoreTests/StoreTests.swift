import Foundation
import XCTest
@testable import GlobeCore

final class StoreTests: XCTestCase {
    /// Runs a script through the sqlite3 shell on a fresh database; skips when it is missing.
    private func sqlite(_ script: String, expectErrors: Bool = false) throws -> (output: String, errors: String) {
        let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            let reason = "sqlite3 shell not found; skipping the SQL schema check"
            print(reason)
            throw XCTSkip(reason)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("globe-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scriptURL = dir.appendingPathComponent("script.sql")
        try (".bail on\n" + script).write(to: scriptURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [dir.appendingPathComponent("globe.db").path, ".read \(scriptURL.path)"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errors, as: UTF8.self)
        if !expectErrors { XCTAssertEqual(process.terminationStatus, 0, errorText) }
        return (String(decoding: output, as: UTF8.self), errorText)
    }

    /// The statement with its positional parameters written in as SQL string literals (the shell
    /// cannot bind text that looks like an expression).
    private func bind(_ sql: String, _ parameters: [String]) -> String {
        var text = sql
        for (k, p) in parameters.enumerated().reversed() {
            text = text.replacingOccurrences(of: "?\(k + 1)", with: "'" + p.replacingOccurrences(of: "'", with: "''") + "'")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines) + ";"
    }

    func testSchemaAndStatementsRunOnSQLite() throws {
        XCTAssertEqual(GlobeSchema.migrations.map(\.version), [1])
        let countries = CountrySet.bundled
        var log = TravelLog()
        try log.visit("FR", in: countries)
        try log.wish("PE", in: countries)
        try log.check("N'Djamena", kind: .city, of: "TD", in: countries, highlights: .bundled)
        let old = log
        try log.unvisit("FR", in: countries)
        let changes = TravelLog().changes(from: TravelLog()) + old.changes(from: TravelLog()) + log.changes(from: old)
        var state = ChallengeState(ScheduledChallenge(date: CivilDate(year: 2026, month: 11, day: 22)!, type: .flag, answer: "JP"))
        var script = GlobeSchema.migrations.map(\.sql).joined(separator: "\n") + "\n"
        for change in changes {
            let (sql, parameters) = GlobeSchema.statement(for: change, user: "ana")
            script += bind(sql, parameters) + "\n"
        }
        script += bind(GlobeSchema.upsertGame, ["ana", state.date.description, state.status.rawValue, state.jsonText()]) + "\n"
        state.guesses = ["Korea"]
        script += bind(GlobeSchema.upsertGame, ["ana", state.date.description, state.status.rawValue, state.jsonText()]) + "\n"
        script += ".print MARKS\n" + bind(GlobeSchema.selectMarks, ["ana"]) + "\n"
        script += ".print PLACES\n" + bind(GlobeSchema.selectPlaces, ["ana"]) + "\n"
        script += ".print GAME\n" + bind(GlobeSchema.selectGame, ["ana", "2026-11-22"]) + "\n"
        script += ".print GAMES\n" + bind(GlobeSchema.selectGames, ["ana"]) + "\n"
        let output = try sqlite(script).output
        let sections = output.components(separatedBy: "\n")
        func rows(after header: String) -> [String] {
            guard let start = sections.firstIndex(of: header) else { return [] }
            return Array(sections[(start + 1)...].prefix { !["MARKS", "PLACES", "GAME", "GAMES", ""].contains($0) })
        }
        let marks = rows(after: "MARKS").map { $0.split(separator: "|").map(String.init) }
        let places = rows(after: "PLACES").map { $0.split(separator: "|").map(String.init) }
        XCTAssertEqual(marks, [["PE", "wishlist"], ["TD", "visited"]])
        XCTAssertEqual(places, [["TD", "city", "N'Djamena"]])
        let restored = GlobeSchema.travelLog(marks: marks.map { ($0[0], $0[1]) }, places: places.map { ($0[0], $0[1], $0[2]) })
        XCTAssertEqual(restored, log)
        XCTAssertEqual(try ChallengeState(jsonText: rows(after: "GAME").first ?? ""), state)
        XCTAssertEqual(rows(after: "GAMES").count, 1, "the upsert replaced the first save")
    }

    func testSchemaRejectsBadRows() throws {
        let script = GlobeSchema.migrations.map(\.sql).joined(separator: "\n")
            + "\n.bail off\n"
            + "INSERT INTO travel_marks (user, code, kind) VALUES ('ana', 'fr', 'visited');\n"
            + "INSERT INTO travel_marks (user, code, kind) VALUES ('ana', 'FR', 'liked');\n"
            + "INSERT INTO challenge_games (user, date, status, state) VALUES ('ana', '22/11/2026', 'playing', '{}');\n"
            + "INSERT INTO challenge_games (user, date, status, state) VALUES ('ana', '2026-11-22', 'playing', 'not json');\n"
            + "SELECT count(*) FROM travel_marks; SELECT count(*) FROM challenge_games;\n"
        let result = try sqlite(script, expectErrors: true)
        XCTAssertEqual(result.output, "0\n0\n")
        for constraint in ["code = upper(code)", "kind IN ('visited', 'wishlist')", "date GLOB", "substr(state, 1, 1) = '{'"] {
            XCTAssertTrue(result.errors.contains(constraint), constraint)
        }
    }

    func testInMemoryStoreKeepsUsersApart() throws {
        let store = InMemoryGlobeStore()
        try store.apply([.mark(code: "FR", kind: .visited, on: true)], user: "ana")
        try store.apply([.mark(code: "DE", kind: .visited, on: true)], user: "bo")
        XCTAssertEqual(try store.travelLog(user: "ana").visited, ["FR"])
        XCTAssertEqual(try store.travelLog(user: "bo").visited, ["DE"])
        XCTAssertEqual(try store.travelLog(user: "cy"), TravelLog())
        let state = ChallengeState(ScheduledChallenge(date: CivilDate(year: 2026, month: 1, day: 2)!, type: .flag, answer: "FR"))
        try store.saveChallengeState(state, user: "ana")
        XCTAssertEqual(try store.challengeStates(user: "ana"), [state])
        XCTAssertEqual(try store.challengeStates(user: "bo"), [])
    }
}
