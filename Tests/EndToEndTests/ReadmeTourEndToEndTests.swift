// The README's tour runs as written (issue 20): the ```bash block after "A tour" is read from
// README.md and run line by line by bash, in order, from an empty folder beside the shared data,
// with the built `clubhouse` first on PATH and a fresh data directory. Every line is one command
// (the tour has no `&&` chains, so `bash -e` sees each failure).

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
        XCTAssertTrue(tour.hasPrefix("clubhouse demo --out tour"), "the tour starts by making its inputs")
    }

    func testTheTourRunsAsWritten() throws {
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

        // <scratch>/shared → the real shared folder, <scratch>/run is the tour's working folder,
        // so the tour's ../shared/data paths read the data in place.
        let shared = Clubhouse.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        try FileManager.default.createSymbolicLink(atPath: c.path("shared"), withDestinationPath: shared.path)
        try FileManager.default.createDirectory(atPath: c.path("run"), withIntermediateDirectories: true)
        let script = try c.write("tour.sh", try ReadmeTourEndToEndTests.tour())

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // -e: stop at the first failing command; -x: show which one in the report; set -m gives
        // the simulator its own job so `kill %1` works as it does at a prompt.
        process.arguments = ["-e", "-x", "-c", "set -m; source \"$0\"", script]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = Clubhouse.productsDirectory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["CLUBHOUSE_DATA_DIR"] = c.dataDirectory.path
        env["XDG_CACHE_HOME"] = c.path("cache")
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "CLUBHOUSE_CONFIG")
        env.removeValue(forKey: "CLUBHOUSE_SITE")
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: c.path("run"))
        let log = c.path("tour.log")
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
        // A simulator left behind by a failing tour must not outlive the test.
        _ = Process.run(pkill: "device simulate ballmachine --listen tcp:127.0.0.1:9000")
        try handle.close()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 0, "the README tour failed; its last lines:\n\(output.suffix(3000))")
        // What the tour says it makes, it made.
        for made in ["run/tour/putting", "run/green.svg", "run/world.svg", "run/globe.gltf", "run/court.svg", "run/7i.svg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: c.path(made)), "\(made) is missing; tour output:\n\(output.suffix(1500))")
        }
        XCTAssertTrue(output.contains("round 1, Ann, hole 1: 5"), output.suffix(1500).description)
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
