// Durability: the host is killed (SIGKILL) in the middle of a large import, many times. Afterwards
// no partial session exists, every database passes PRAGMA integrity_check, and the import still
// works (once, never twice).

import CSQLite
import ClubhouseJSON
import Foundation
import XCTest

final class DurabilityEndToEndTests: XCTestCase {
    /// A large MLM2PRO export made here (seeded), so the test needs no outside data.
    private func largeExport(rows: Int) -> String {
        var text = "\"Rapsodo MLM2PRO: Durability - 01/27/2026 4:30 PM\",,,,,,,,,,,,,,,,,\n\n"
        text += "\"Club Type\",\"Club Brand\",\"Club Model\",\"Carry Distance\",\"Total Distance\",\"Ball Speed\",\"Launch Angle\",\"Launch Direction\",\"Apex\",\"Side Carry\",\"Club Speed\",\"Smash Factor\",\"Descent Angle\",\"Attack Angle\",\"Club Path\",\"Club Data Est Type\",\"Spin Rate\",\"Spin Axis\"\n"
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let clubs = ["Driver", "5i", "7i", "9i", "PW"]
        for i in 0..<rows {
            let club = clubs[i % clubs.count]
            let speed = 100 + next() * 40
            text += "\"\(club)\",,,\"\(String(format: "%.1f", 130 + next() * 60))\",\"\(String(format: "%.1f", 140 + next() * 60))\",\"\(String(format: "%.1f", speed))\",\"18.2\",\"-1.1\",\"88.0\",\"-4.0\",\"85.0\",\"\(String(format: "%.2f", 1.2 + next() * 0.2))\",\"\(String(format: "%.1f", 40 + next() * 12))\",\"0.5\",\"0.3\",0,\"\(Int(3000 + next() * 4000))\",\"-2.0\"\n"
        }
        return text
    }

    private func integrityProblems(in directory: URL) throws -> [String] {
        var problems: [String] = []
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sqlite") }
        XCTAssertFalse(files.isEmpty, "no databases under \(directory.path)")
        for file in files {
            var db: OpaquePointer?
            guard sqlite3_open_v2(directory.appendingPathComponent(file).path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                problems.append("\(file): cannot open")
                continue
            }
            defer { sqlite3_close(db) }
            var stmt: OpaquePointer?
            sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nil)
            while sqlite3_step(stmt) == SQLITE_ROW {
                let line = String(cString: sqlite3_column_text(stmt, 0))
                if line != "ok" { problems.append("\(file): \(line)") }
            }
            sqlite3_finalize(stmt)
        }
        return problems
    }

    func testKillingTheHostDuringAnImportNeverLeavesAPartialSession() throws {
        let c = try Clubhouse()
        let rows = 40_000
        let csv = try c.write("large.csv", largeExport(rows: rows))
        // Kill the import at different moments, many times.
        let delays: [useconds_t] = [30_000, 80_000, 150_000, 250_000, 400_000, 600_000, 900_000, 1_300_000]
        for delay in delays {
            let process = Process()
            process.executableURL = Clubhouse.executable
            process.arguments = ["practice", "import", csv, "--quiet"]
            var env = ProcessInfo.processInfo.environment
            env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
            env["XDG_CACHE_HOME"] = c.path("cache")
            process.environment = env
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the moment, the site holds either no session or the whole file.
            let sessions = try c.succeed(["practice", "sessions", "--json"]).json()
            for session in sessions["sessions"]?.arrayValue ?? [] {
                XCTAssertEqual(session["session"]?["shot_count"]?.intValue, rows, "a partial session survived a kill after \(delay) µs: \(session)")
            }
            XCTAssertLessThanOrEqual(sessions["sessions"]?.arrayValue?.count ?? 0, 1, "the same file was imported twice")
        }
        XCTAssertEqual(try integrityProblems(in: c.dataDirectory), [])
        // An uninterrupted import completes (or is refused when a killed one had already committed).
        let final = try c.run(["practice", "import", csv, "--json"])
        let sessions = try c.succeed(["practice", "sessions", "--json"]).json()["sessions"]?.arrayValue ?? []
        XCTAssertEqual(sessions.count, 1, final.stderr)
        XCTAssertEqual(sessions.first?["session"]?["shot_count"]?.intValue, rows)
        if final.exitCode != 0 { XCTAssertTrue(final.stderr.contains("already imported"), final.stderr) }
        XCTAssertEqual(try integrityProblems(in: c.dataDirectory), [])
    }
}
