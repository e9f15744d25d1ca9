import Foundation
import XCTest
@testable import ScorecardCore

/// The seed of the original app (read in place from the shared data) and the SQL schema (run through
/// the sqlite3 shell when it is installed).
final class SeedAndSchemaTests: XCTestCase {
    private static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testSeedImportReportsTheStrokeIndexDefect() throws {
        let url = Self.repoRoot.appendingPathComponent("../shared/data/scorecard/default_seed.json").standardizedFileURL
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            print("skipping: \(url.path) is not present (the shared data lives beside the repository)")
            throw XCTSkip("shared seed data not found at \(url.path)")
        }
        let store = InMemoryScorecardStore()
        let commands = ScorecardCommands(store: store)
        let report = try commands.importSeed(SeedImportRequest(file: "default_seed.json", text: text))
        XCTAssertEqual(report.playersAdded.map(\.name), ["Jeff Martin", "Emmett Martin", "Allie Martin", "Bre Martin"])
        XCTAssertEqual(report.coursesAdded.map(\.name), ["St. Andrews Links - The Old Course", "Pebble Beach Golf Links"])
        XCTAssertEqual(report.rejected.count, 1)
        XCTAssertEqual(report.rejected.first?.item, "course 'Augusta National Golf Club'")
        // The second hole with stroke index 4 is hole 17 ("index": 16), its "handicap" value in the file.
        XCTAssertEqual(report.rejected.first?.error,
                       "default_seed.json:110:18: course 'Augusta National Golf Club': tee 'Default' has invalid stroke indexes: "
                       + "stroke index 4 is on holes 13 and 17, stroke index 14 is missing — each of 1–18 must appear exactly once")
        // Issue 30: the Golfer players' handicaps are kept as the Handicap Index each came with.
        XCTAssertEqual(report.playersAdded.map(\.givenIndex), [Tenths(raw: 20), Tenths(raw: 80), Tenths(raw: 80), Tenths(raw: 50)])
        XCTAssertEqual(try store.players().map(\.givenIndex), [Tenths(raw: 20), Tenths(raw: 80), Tenths(raw: 80), Tenths(raw: 50)])
        XCTAssertEqual(try commands.listPlayers().players.map(\.index), [Tenths(raw: 20), Tenths(raw: 80), Tenths(raw: 80), Tenths(raw: 50)])
        XCTAssertTrue(report.text.contains("player 1: Jeff Martin, given Handicap Index 2.0"), report.text)
        XCTAssertEqual(report.notes, ["each player's \"handicap\" is kept as the Handicap Index they came with: in force until "
                                      + "3 differentials are recorded here (scorecard README)"])
        XCTAssertTrue(report.text.contains("rejected course 'Augusta National Golf Club'"))
        XCTAssertEqual(try store.courses().count, 2)
        XCTAssertEqual(try store.courses()[0].tees[0].par, 72)
        // A second import skips what is there and still reports the defect.
        let again = try commands.importSeed(SeedImportRequest(file: "default_seed.json", text: text))
        XCTAssertEqual(again.playersAdded.count, 0)
        XCTAssertEqual(again.skipped.count, 6)
        XCTAssertEqual(again.rejected.count, 1)
    }

    func testSeedSyntaxAndShapeErrors() {
        let commands = ScorecardCommands(store: InMemoryScorecardStore())
        func message(_ text: String) -> String {
            do {
                _ = try commands.importSeed(SeedImportRequest(file: "seed.json", text: text))
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(message("{\"players\": [}"), "seed.json:1:14: unexpected '}'; expected a value — fix the JSON syntax")
        XCTAssertEqual(message("{\"players\": [], \"courses\": {}}"), "seed.json:1:28: \"courses\" must be an array, found an object")
        XCTAssertEqual(message("{\"players\": [], \"course\": []}"),
                       "seed.json:1:27: unknown key \"course\" in the seed — known keys are \"_source\", \"players\", \"courses\"")
    }

    /// Issue 30: a seed player's handicap that is not a Handicap Index leaves that player out, named by
    /// file:line:column; the others are imported.
    func testSeedPlayerHandicapsAreChecked() throws {
        let store = InMemoryScorecardStore()
        let commands = ScorecardCommands(store: store)
        let text = """
            {"players": [{"name": "Ann", "handicap": 1e308}, {"name": "Ben", "handicap": -0}, {"name": "Cy", "handicap": 99999999999999999999},
                         {"name": "Dee", "handicap": 12.34}, {"name": "Eve", "handicap": "low"}, {"name": "Flo", "handicap": -4.5},
                         {"name": "Gus"}],
             "courses": []}
            """
        let report = try commands.importSeed(SeedImportRequest(file: "seed.json", text: text))
        XCTAssertEqual(report.playersAdded.map(\.name), ["Ben", "Flo", "Gus"])
        XCTAssertEqual(report.playersAdded.map(\.givenIndex), [Tenths(raw: 0), Tenths(raw: -45), nil])
        XCTAssertEqual(report.rejected.map(\.item), ["player 'Ann'", "player 'Cy'", "player 'Dee'", "player 'Eve'"])
        XCTAssertEqual(report.rejected.first?.error, "seed.json:1:42: player 'Ann' \"handicap\" 1e308 is not a Handicap Index "
                       + "(plus 10.0 to 54.0 — a plus index is negative here — with at most one decimal); correct it or leave it out")
        XCTAssertEqual(try store.players().count, 3)
    }

    func testMigrationsRunAndEnforceTheRules() throws {
        let sqlite = "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: sqlite) else {
            print("skipping: \(sqlite) is not installed")
            throw XCTSkip("sqlite3 shell not installed")
        }
        let setup = ScorecardSchema.migrations.map(\.sql).joined(separator: "\n") + """

            INSERT INTO players (name) VALUES ('Ann');
            INSERT INTO courses (name) VALUES ('C');
            INSERT INTO rounds (course_id, tee_name, played_on, nine, format) VALUES (1, 'White', '2024-05-01', 'all', 'stroke-play');
            INSERT INTO round_players (round_id, player_id, position) VALUES (1, 1, 0);
            INSERT INTO score_entries (round_id, player_id, hole, strokes) VALUES (1, 1, 1, 5);
            INSERT INTO score_entries (round_id, player_id, hole, strokes) VALUES (1, 1, 1, 4);
            SELECT 'current', strokes FROM current_scores;
            UPDATE rounds SET finished_on = '2024-05-01' WHERE id = 1;

            """
        func run(_ extra: String) throws -> (out: String, err: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sqlite)
            process.arguments = [":memory:"]
            let input = Pipe(), output = Pipe(), error = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = error
            try process.run()
            input.fileHandleForWriting.write(Data(("PRAGMA foreign_keys = ON;\n" + setup + extra).utf8))
            try input.fileHandleForWriting.close()
            let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (out, err)
        }
        let base = try run("")
        XCTAssertEqual(base.err, "")
        XCTAssertEqual(base.out, "current|4\n")
        XCTAssertTrue(try run("INSERT INTO score_entries (round_id, player_id, hole, strokes) VALUES (1, 1, 2, 4);").err
            .contains("the round is finished and final"))
        XCTAssertTrue(try run("UPDATE score_entries SET strokes = 3;").err.contains("score entries are append-only"))
        XCTAssertTrue(try run("DELETE FROM score_entries;").err.contains("score entries are append-only"))
        XCTAssertTrue(try run("UPDATE rounds SET pcc_tenths = 10;").err.contains("the round is finished and final"))
        XCTAssertTrue(try run("INSERT INTO tees (course_id, position, name, rating_tenths, slope) VALUES (1, 0, 'X', 720, 160);").err
            .contains("CHECK constraint failed"))
        // Migration 3: a correction (an entry with a reason) may be appended to a finished round, and is
        // then the current score; a reason must not be blank; round options are fixed.
        let corrected = try run("""
            INSERT INTO score_entries (round_id, player_id, hole, strokes, reason, corrected_on) VALUES (1, 1, 1, 6, 'marker error', '2024-05-02');
            SELECT 'corrected', strokes FROM current_scores;
            SELECT count(*) FROM score_entries;
            """)
        XCTAssertEqual(corrected.err, "")
        XCTAssertEqual(corrected.out, "current|4\ncorrected|6\n3\n")
        XCTAssertTrue(try run("INSERT INTO score_entries (round_id, player_id, hole, strokes, reason) VALUES (1, 1, 1, 6, '  ');").err
            .contains("CHECK constraint failed"))
        XCTAssertTrue(try run("INSERT INTO round_options (round_id, allowance_percent) VALUES (1, 101);").err.contains("CHECK constraint failed"))
        XCTAssertTrue(try run("INSERT INTO round_options (round_id, allowance_percent) VALUES (1, 95); UPDATE round_options SET allowance_percent = 90;")
            .err.contains("round options are fixed"))
        // A deletion is a permanent tombstone, and a deleted round takes no more entries.
        XCTAssertEqual(try run("INSERT INTO round_deletions (round_id, deleted_on, was_final) VALUES (1, '2024-06-02', 1);").err, "")
        let deletion = "INSERT INTO round_deletions (round_id, deleted_on, was_final) VALUES (1, '2024-06-02', 1);"
        XCTAssertTrue(try run(deletion + "DELETE FROM round_deletions;").err.contains("a round deletion is permanent"))
        XCTAssertTrue(try run(deletion + "INSERT INTO score_entries (round_id, player_id, hole, strokes, reason) VALUES (1, 1, 1, 6, 'late');")
            .err.contains("the round was deleted"))
        // Migration 5: the index a player came with, within plus 10.0 to 54.0.
        XCTAssertEqual(try run("UPDATE players SET given_index_tenths = 123 WHERE id = 1;").err, "")
        XCTAssertTrue(try run("UPDATE players SET given_index_tenths = 541 WHERE id = 1;").err.contains("CHECK constraint failed"))
        // Migration 6: a write to a table the player list depends on moves the data's generation on.
        XCTAssertTrue(try run("CREATE TEMP TABLE b AS SELECT generation FROM data_generation; UPDATE players SET name = name WHERE id = 1; "
            + "SELECT 'moved=' || ((SELECT generation FROM data_generation) - (SELECT generation FROM b));").out.hasSuffix("moved=1\n"))
        XCTAssertTrue(try run("SELECT 's=' || generation FROM player_summaries_state;").out.hasSuffix("s=0\n"))
        XCTAssertEqual(ScorecardSchema.migrations.map(\.version), [1, 2, 3, 4, 5, 6, 7])
    }
}
