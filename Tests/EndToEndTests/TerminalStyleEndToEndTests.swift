// Issue 20.12 on a real terminal (util-linux `script` gives the command a pseudo-terminal):
// table headers are bold where colour is shown (plugins' TextTable through the
// CLUBHOUSE_CALL_STYLED_TEXT flag, in process and isolated, and the host's own tables) and plain
// with NO_COLOR, --no-color, TERM=dumb, --json, in pipes and over serve; progress bars count bytes
// in binary units for a stage a plugin marks as bytes (progress.h set_unit, ABI 1.2), a unit no
// host knows counts items, and a plugin built before 1.2 still works.

import ClubhouseJSON
import Foundation
import XCTest

final class TerminalStyleEndToEndTests: XCTestCase {
    static let bold = "\u{1B}[1m"

    private func requireScript() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux 'script' is not installed; it gives the command a terminal")
        }
    }

    /// A clubhouse whose terminal shows colour, whatever the test runner's own environment says.
    private func colourTerminal() throws -> Clubhouse {
        let c = try Clubhouse()
        c.unsetEnvironment = ["NO_COLOR", "CLUBHOUSE_PAGER", "PAGER"]
        c.environment["TERM"] = "xterm-256color"
        c.environment["CLUBHOUSE_PAGER"] = "cat"   // paging is another test's subject
        return c
    }

    /// An MLM2PRO export of `rows` shots (about 35 bytes a row).
    private func csv(_ c: Clubhouse, _ name: String, rows: Int) throws -> String {
        var lines = [#""Club Type","Ball Speed","Smash Factor","Spin Rate","Descent Angle","Carry Distance""#]
        for i in 0..<rows {
            lines.append("\"\(i % 2 == 0 ? "7i" : "PW")\",\"\(95 + i % 15)\",\"1.\(20 + i % 15)\",\"\(4000 + i % 2000)\",\"\(40 + i % 10)\",\"\(130 + i % 25)\"")
        }
        return try c.write(name, lines.joined(separator: "\n") + "\n")
    }

    /// A site with the progress_units.c fixture: `inp` in process, `iso` in a runner, `old` (built
    /// as a plugin of ABI 1.1 would be) in a runner.
    private func unitsSite(_ c: Clubhouse) throws -> String {
        let inp = try FixturePlugins.build("UNITS", id: "org.tests.units.inp", file: "progress_units.c")
        let iso = try FixturePlugins.build("UNITS", id: "org.tests.units.iso", file: "progress_units.c")
        let old = try FixturePlugins.build("OLD", id: "org.tests.units.old", file: "progress_units.c")
        return try c.write("units.json", """
            {"sites": {"default": {"plugins": {
              "inp": {"path": "\(inp)", "isolation": "in-process"},
              "iso": {"path": "\(iso)", "isolation": "process"},
              "old": {"path": "\(old)", "isolation": "process"}
            }}}}
            """)
    }

    func testPluginTableHeadersAreBoldOnAColourTerminalOnly() throws {
        try requireScript()
        let c = try colourTerminal()
        try c.succeed(["practice", "import", try csv(c, "s.csv", rows: 20)])
        let shown = try c.run(["practice", "sessions"], onTerminal: true)
        XCTAssertEqual(shown.exitCode, 0, shown.stdout)
        XCTAssertTrue(shown.stdout.contains(Self.bold + "ID  "), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("SOURCE\u{1B}[0m"), "the header ends with a reset: \(shown.stdout)")
        XCTAssertEqual(shown.stdout.components(separatedBy: Self.bold).count - 1, 1, "only the header row: \(shown.stdout)")
        // NO_COLOR set to "" does not count (no-color.org); set to anything else it does.
        c.environment["NO_COLOR"] = ""
        XCTAssertTrue(try c.run(["practice", "sessions"], onTerminal: true).stdout.contains(Self.bold))
        c.environment["NO_COLOR"] = "1"
        let noColor = try c.run(["practice", "sessions"], onTerminal: true)
        XCTAssertTrue(noColor.stdout.contains("ID  ") && !noColor.stdout.contains("\u{1B}["), noColor.stdout)
        c.environment["NO_COLOR"] = nil
        for plain in [["--no-color", "practice", "sessions"], ["practice", "sessions", "--json"]] {
            let r = try c.run(plain, onTerminal: true)
            XCTAssertEqual(r.exitCode, 0, r.stdout)
            XCTAssertFalse(r.stdout.contains("\u{1B}["), "\(plain): \(r.stdout)")
        }
        c.environment["TERM"] = "dumb"
        XCTAssertFalse(try c.run(["practice", "sessions"], onTerminal: true).stdout.contains("\u{1B}["), "TERM=dumb")
        c.environment["TERM"] = "xterm-256color"
        let piped = try c.succeed(["practice", "sessions"])
        XCTAssertTrue(piped.stdout.contains("ID  ") && !piped.stdout.contains("\u{1B}["), "never in a pipe: \(piped.stdout)")
    }

    func testTextAPluginAlsoSavesToAFileStaysPlainInTheFile() throws {
        try requireScript()
        let c = try colourTerminal()
        // The scorecard demo prints its report (tables) and saves the same report as demo.txt.
        let run = try c.run(["scorecard", "demo", "--out", c.path("demo")], timeout: 300, onTerminal: true)
        XCTAssertEqual(run.exitCode, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains(Self.bold), "the terminal gets bold headers: \(run.stdout)")
        let saved = try String(contentsOfFile: c.path("demo/demo.txt"), encoding: .utf8)
        XCTAssertFalse(saved.isEmpty)
        XCTAssertFalse(saved.contains("\u{1B}"), "a file is never a terminal: \(saved.prefix(400))")
    }

    func testTheHostsOwnTablesAreBoldTooAndThePagerGetsTheColours() throws {
        try requireScript()
        let c = try colourTerminal()
        let list = try c.run(["plugins", "list"], onTerminal: true)
        XCTAssertEqual(list.exitCode, 0, list.stdout)
        XCTAssertTrue(list.stdout.contains(Self.bold + "PLUGIN  "), list.stdout)
        XCTAssertFalse(try c.run(["--no-color", "plugins", "list"], onTerminal: true).stdout.contains(Self.bold))
        XCTAssertFalse(try c.succeed(["plugins", "list"]).stdout.contains("\u{1B}["), "never in a pipe")
        // Long text goes through the pager as it is: the pager sees the escape sequences (the
        // default, less, runs with LESS=FRX, and -R shows them as colours).
        let paged = c.path("paged.txt")
        c.environment["CLUBHOUSE_PAGER"] = "tee \(paged)"
        c.environment["LINES"] = "4"
        XCTAssertEqual(try c.run(["plugins", "list"], onTerminal: true).exitCode, 0)
        let through = (try? String(contentsOfFile: paged, encoding: .utf8)) ?? ""
        XCTAssertTrue(through.contains(Self.bold + "PLUGIN  "), "the pager got the bold header: \(through)")
    }

    func testTheStyledTextFlagReachesCPluginsInProcessAndIsolatedAndNeverOldOnes() throws {
        try requireScript()
        let c = try colourTerminal()
        let site = try unitsSite(c)
        for alias in ["inp", "iso"] {
            let styled = try c.run(["--config", site, alias, "styled"], onTerminal: true)
            XCTAssertEqual(styled.exitCode, 0, styled.stdout)
            XCTAssertTrue(styled.stdout.contains(Self.bold + "NAME   CLUB\u{1B}[0m"), "\(alias): \(styled.stdout)")
            let piped = try c.succeed(["--config", site, alias, "styled"])
            XCTAssertEqual(piped.stdout, "NAME   CLUB\nfirst  7i\n", alias)
            XCTAssertEqual(try c.succeed(["--config", site, alias, "styled", "--json"]).json()["styled"], false, alias)
            XCTAssertFalse(try c.run(["--config", site, "--no-color", alias, "styled"], onTerminal: true).stdout.contains("\u{1B}["))
        }
        let old = try c.run(["--config", site, "old", "styled"], onTerminal: true)
        XCTAssertEqual(old.exitCode, 0, old.stdout)
        XCTAssertTrue(old.stdout.contains("NAME   CLUB") && !old.stdout.contains(Self.bold), old.stdout)
    }

    func testProgressStagesInBytesShowBinaryUnitsAndUnknownUnitsCountItems() throws {
        try requireScript()
        let c = try colourTerminal()
        let site = try unitsSite(c)
        for alias in ["inp", "iso"] {
            let screen = try c.run(["--config", site, alias, "units"], onTerminal: true)
            XCTAssertEqual(screen.exitCode, 0, screen.stdout)
            XCTAssertTrue(screen.stdout.contains("units done"), screen.stdout)
            // Unit 77 is no unit at all: the stage is drawn in items, and nothing crashed.
            XCTAssertTrue(screen.stdout.contains("odd units  [") && screen.stdout.contains("/4,096"), "\(alias): \(screen.stdout)")
            XCTAssertTrue(screen.stdout.contains("0 B / 3.0 MiB"), "\(alias): \(screen.stdout)")
            XCTAssertNotNil(screen.stdout.range(of: #"\d\.\d (KiB|MiB) / 3\.0 MiB  \d+\.\d MiB/s  ETA \d:\d\d"#, options: .regularExpression),
                            "\(alias): \(screen.stdout)")
        }
        // Built before set_unit existed: its stage is counted in items, as it always was.
        let old = try c.run(["--config", site, "old", "units"], onTerminal: true)
        XCTAssertEqual(old.exitCode, 0, old.stdout)
        XCTAssertTrue(old.stdout.contains("/3,145,728") && !old.stdout.contains("MiB"), old.stdout)
        XCTAssertEqual(try c.succeed(["--config", site, "iso", "units"]).stderr, "", "no bar in a pipe")
    }

    func testPracticeImportShowsItsReadingStageInBytes() throws {
        try requireScript()
        let c = try colourTerminal()
        let file = try csv(c, "big.csv", rows: 32_000)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        XCTAssertGreaterThan(size, 1 << 20, "big enough to be counted in MiB")
        let screen = try c.run(["practice", "import", file], onTerminal: true)
        XCTAssertEqual(screen.exitCode, 0, screen.stdout)
        XCTAssertTrue(screen.stdout.contains("reading big.csv  ["), screen.stdout)
        XCTAssertNotNil(screen.stdout.range(of: #"\d+(\.\d)? (B|KiB|MiB) / 1\.\d MiB"#, options: .regularExpression), screen.stdout)
        XCTAssertTrue(screen.stdout.contains("writing shots  [") && screen.stdout.contains("/32,000"), "shots still count items: \(screen.stdout)")
    }

    func testServeProgressNotificationsSayTheirUnit() throws {
        let c = try Clubhouse()
        let file = try csv(c, "big.csv", rows: 8_000)
        let request: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "clubhouse.call",
                                  "params": ["plugin": "practice", "command": "import", "arguments": ["csv": .string(file)],
                                             "progress": true]]
        let result = try c.succeed(["serve"], stdin: JSONWriter.compact(request) + "\n")
        var units: [String: Set<String>] = [:]
        var response: JSONValue?
        for line in result.stdout.split(separator: "\n") {
            let message = try JSONParser.parse(String(line))
            guard message["method"]?.stringValue == "clubhouse.progress" else { response = message; continue }
            let params = try XCTUnwrap(message["params"]?.objectValue)
            XCTAssertTrue(Set(params.keys).isSubset(of: ["id", "label", "done", "total", "unit", "finished"]), "\(params.keys)")
            let unit = try XCTUnwrap(params["unit"]?.stringValue, "every notification names its unit: \(line)")
            units[params["label"]?.stringValue ?? "", default: []].insert(unit)
        }
        XCTAssertNotNil(response?["result"], result.stdout)
        XCTAssertEqual(units["reading big.csv"], ["items", "bytes"], "begin says items, set_unit switches to bytes: \(units)")
        XCTAssertEqual(units["writing shots"], ["items"], "\(units)")
        let reference = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("Host/JSON-RPC.md"), encoding: .utf8)
        XCTAssertTrue(reference.contains(#""unit": "items""#) && reference.contains(#"`"bytes"`"#), "Host/JSON-RPC.md documents unit")
    }
}
