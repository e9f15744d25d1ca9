// `scorecard player list` reads players and their kept summaries (schema 6), computing them from
// every round only when the data moved on: a write by any program (triggers) makes it recompute.

import ClubhouseJSON
import Foundation
import XCTest

final class ScorecardPlayerListEndToEndTests: XCTestCase {
    func testTheKeptListIsReadUntilAnyProgramWritesTheData() throws {
        let c = try Clubhouse()
        let out = c.path("demo")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try c.succeed(["scorecard", "demo", "--out", out])
        let database = c.dataDirectory.appendingPathComponent("default/org.clubhouse.scorecard.sqlite").path
        guard let sqlite = ["/usr/bin/sqlite3", "/bin/sqlite3"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("sqlite3 shell not installed; the kept list is not read directly")
        }
        func sql(_ text: String) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: sqlite)
            p.arguments = [database, text]
            let o = Pipe()
            p.standardOutput = o
            try p.run()
            let text = String(decoding: o.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func rounds() throws -> [Int] {
            (try c.succeed(["scorecard", "player", "list", "--json"]).json()["players"]?.arrayValue ?? [])
                .compactMap { $0["finishedRounds"]?.intValue }
        }
        let computed = try rounds()
        XCTAssertEqual(computed.count, 4)
        XCTAssertTrue(computed.contains { $0 > 0 }, "\(computed)")
        // The list was kept for the data as it is.
        XCTAssertEqual(try sql("SELECT generation FROM data_generation"), try sql("SELECT generation FROM player_summaries_state"))
        // It is what the next list reads (a change to it shows: no round was read).
        _ = try sql("UPDATE player_summaries SET finished_rounds = 99")
        XCTAssertEqual(try rounds(), [99, 99, 99, 99])
        // Another program writes a table the list depends on: the data moved on, the list is computed again.
        for write in ["UPDATE players SET name = name", "UPDATE tee_holes SET par = par WHERE rowid = (SELECT min(rowid) FROM tee_holes)"] {
            _ = try sql("UPDATE player_summaries SET finished_rounds = 99")
            let before = try sql("SELECT generation FROM data_generation")
            _ = try sql(write)
            XCTAssertNotEqual(try sql("SELECT generation FROM data_generation"), before, write)
            XCTAssertEqual(try rounds(), computed, write)
        }
        // A kept value of the wrong type is refused with the column and what it holds (the rows are read
        // column by column when they fit, through Decodable when not: the same words as before).
        _ = try c.succeed(["scorecard", "player", "list"])
        for (value, holds) in [("'x'", #"text("x")"#), ("3.5", "real(3.5)")] {
            _ = try sql("UPDATE player_summaries SET finished_rounds = \(value) WHERE rowid = (SELECT min(rowid) FROM player_summaries)")
            let refused = try c.run(["scorecard", "player", "list"])
            XCTAssertEqual(refused.exitCode, 1, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("a row of player_summaries in the scorecard database does not fit: column "
                                                  + "'finished_rounds' holds \(holds), not an integer that fits Int"), refused.stderr)
        }
    }
}
