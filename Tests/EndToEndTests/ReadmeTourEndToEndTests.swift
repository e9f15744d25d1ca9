// The README's tour runs as written (issue 20): the ```bash block after "A tour" is read from
// README.md and run line by line by bash, in order, from an empty folder beside the shared data,
// with the built `clubhouse` first on PATH. Every line is one command (the tour has no `&&` chains,
// so `bash -e` sees each failure). Issue 30: it runs twice in a row from two new folders, keeping its
// data beside it (its own CLUBHOUSE_DATA_DIR), never in the user's data home.

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

final class ReadmeTourEndToEndTests: XCTestCase {
    /// The tour block of README.md.
    static func tour() throws -> String {
        let readme = try String(contentsOf: Clubhouse.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let heading = readme.range(of: "A tour ("),
              let open = readme.range(of: "```bash\n", range: heading.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else {
            XCTFail("README.md has no ```bash block after \"A tour (\"")
            return ""
        }
        return String(readme[open.upperBound..<close.lowerBound]) + "\n"
    }

    func testTheTourHasOneCommandPerLine() throws {
        let tour = try ReadmeTourEndToEndTests.tour()
        XCTAssertFalse(tour.contains(" && "), "a && chain hides a failing first command from bash -e")
        let lines = tour.split(separator: "\n").map(String.init)
        let commands = lines.filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        // Issue 30: the tour keeps its data beside it (a second run starts afresh and never touches the
        // user's own data), and says how to put the build on the PATH before its first command.
        XCTAssertTrue(commands.first?.hasPrefix("export CLUBHOUSE_DATA_DIR=\"$PWD/data\"") == true, "\(commands.first ?? "")")
        XCTAssertTrue(commands.dropFirst().first?.hasPrefix("clubhouse demo --out tour") == true, "the tour starts by making its inputs")
        let firstCommand = lines.firstIndex { $0.hasPrefix("clubhouse ") } ?? 0
        XCTAssertTrue(lines[..<firstCommand].contains { $0.hasPrefix("#") && $0.contains("export PATH=") && $0.contains(".build/release") },
                      "a line before the first command says how to put the build on the PATH")
        XCTAssertFalse(tour.contains("--data-dir"), "the tour's data dir comes from its export, not per command")
    }

    /// Runs the tour twice in a row, each time from a new folder beside the shared data, as a user at a
    /// prompt would: the environment has no CLUBHOUSE_DATA_DIR, and the user's own data home (XDG) must
    /// stay empty. The second run must not meet the first run's imports, players or rounds.
    func testTheTourRunsTwiceFromTwoNewFolders() throws {
        _ = try Clubhouse.requireSharedData("putting/presidio")
        let c = try Clubhouse()
        // The simulator in the tour listens on 127.0.0.1:9000: skip (saying why) when it is taken.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(9000).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let taken = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        close(probe)
        if taken { throw XCTSkip("127.0.0.1:9000 is in use; the tour's ball-machine simulator needs it") }

        // <scratch>/shared → the real shared folder; <scratch>/first and <scratch>/second are the tour's
        // working folders, so the tour's ../shared/data paths read the data in place.
        let shared = Clubhouse.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        try FileManager.default.createSymbolicLink(atPath: c.path("shared"), withDestinationPath: shared.path)
        let script = try c.write("tour.sh", try ReadmeTourEndToEndTests.tour())
        let home = c.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        for run in ["first", "second"] {
            try FileManager.default.createDirectory(atPath: c.path(run), withIntermediateDirectories: true)
            let (status, output) = try runTour(script, in: c.path(run), home: home, c: c)
            XCTAssertEqual(status, 0, "the README tour failed on its \(run) run; its last lines:\n\(output.suffix(3000))")
            // What the tour says it makes, it made, in its own folder.
            for made in ["tour/putting", "green.svg", "world.svg", "globe.gltf", "court.svg", "7i.svg", "data/default"] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: c.path("\(run)/\(made)")),
                              "\(run)/\(made) is missing; tour output:\n\(output.suffix(1500))")
            }
            // Each run starts afresh: its score is round 1's, its imports and players are new.
            XCTAssertTrue(output.contains("round 1, Ann, hole 1: 5"), output.suffix(1500).description)
            XCTAssertTrue(output.contains("added player 1: Ann"), output.suffix(1500).description)
            XCTAssertTrue(output.contains("correct: France"), "the tour's challenge guess: \(output.suffix(1500))")
            for earlier in ["already imported", "already exists"] {
                XCTAssertFalse(output.contains(earlier), "the \(run) run met earlier data (\(earlier)): \(output.suffix(1500))")
            }
        }
        // Nothing went to the user's own data home.
        let leaked = (try? FileManager.default.contentsOfDirectory(atPath: home)) ?? []
        XCTAssertEqual(leaked, [], "the tour wrote into the user's data home (\(home))")
    }

    /// Runs the tour script with bash in `folder`; returns its exit status and output.
    private func runTour(_ script: String, in folder: String, home: String, c: Clubhouse) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // -e: stop at the first failing command; -x: show which one in the report; set -m gives
        // the simulator its own job so `kill %1` works as it does at a prompt.
        process.arguments = ["-e", "-x", "-c", "set -m; source \"$0\"", script]
        var env = ProcessInfo.processInfo.environment
        // The build on the PATH, as the tour's first line says; the rest of the environment is the user's,
        // without a data dir of their own choosing (the tour sets it) and with a data home we can inspect.
        env["PATH"] = Clubhouse.productsDirectory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env.removeValue(forKey: "CLUBHOUSE_DATA_DIR")
        env["XDG_DATA_HOME"] = home
        env["XDG_CACHE_HOME"] = c.path("cache")
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let log = folder + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(400)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        if process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.terminate()
            XCTFail("the tour did not finish within 400 s")
        }
        process.waitUntilExit()
        // A simulator left behind by a failing tour must not outlive the run.
        _ = Process.run(pkill: "ballmachine --listen tcp:127.0.0.1:9000")
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

extension Process {
    /// Runs pkill -f PATTERN and waits (quietly; absent pkill is fine).
    static func run(pkill pattern: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        p.arguments = ["-f", pattern]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
