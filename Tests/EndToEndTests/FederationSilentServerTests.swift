// A server that takes the connection and never answers (the seventh outside attack round: it held
// `federation push`, and its lock, until psql gave up — minutes — and serve's background push with it):
// the connect timeout and the per-step deadline of the site's "federation" block end it with one line,
// nothing shipped, the lock released. Uses FederationEndToEndTests' cluster.

import ClubhouseJSON
import Foundation
import XCTest

extension FederationEndToEndTests {
    /// A TCP port on 127.0.0.1 that takes connections (the kernel completes them into its backlog) and
    /// never says a word; closed by the caller.
    private func silentServer() throws -> (fd: Int32, port: Int) { try loopbackListener() }

    func testASilentServerEndsAPushWithinItsTimeoutsAndTheNextPushShips() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let real = try configuration(c, cluster, db: db, sites: ["club-a"], extra: #", "connect_timeout_seconds": 2, "step_timeout_seconds": 8"#)
        let silent = try silentServer()
        defer { close(silent.fd) }
        let hanging = try c.write("silent.json", try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:\(cluster.port)/", with: "127.0.0.1:\(silent.port)/"))
        try c.succeed(["--config", real, "--site", "club-a", "hp", "publish", "--topic", "shot", "--key", "s", "--count", "3"])
        // The connection is taken and never answered: connect_timeout_seconds ends it.
        var started = Date()
        let said = try c.fail(["--config", hanging, "--site", "club-a", "federation", "push"],
                              contains: ["federation push: postgresql://clubhouse_site_club_a@127.0.0.1:\(silent.port)/\(db)",
                                         "timeout expired (no answer within 2 s: connect_timeout_seconds of the site's \"federation\" in plugins.json)",
                                         "nothing was shipped and every record waits in the outbox: push again once the server answers"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, said.stderr)
        // A server that answers the connection but not a step (psql hangs after it): step_timeout_seconds ends it.
        let hang = try c.write("psql-mute.sh", "#!/bin/sh\nexec sleep 60\n")
        chmod(hang, 0o755)
        c.environment["CLUBHOUSE_PSQL"] = hang
        let short = try c.write("short-step.json", try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: #""step_timeout_seconds": 8"#, with: #""step_timeout_seconds": 2"#))
        started = Date()
        try c.fail(["--config", short, "--site", "club-a", "federation", "push"],
                   contains: ["no answer within 2 s (step_timeout_seconds of the site's \"federation\" in plugins.json), so psql was stopped",
                              "nothing was shipped and every record waits in the outbox"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        c.environment["CLUBHOUSE_PSQL"] = nil
        // The lock was released and nothing was marked shipped: the next push against the real server ships all.
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "federation", "push", "--json"]).json()["shipped"]?.intValue, 3)
        XCTAssertEqual(try records(cluster, db), 3)
        // serve's background push against the silent server: one warning within the timeout, not one per retry.
        try c.succeed(["--config", real, "--site", "club-a", "hp", "publish", "--topic", "shot", "--key", "t", "--count", "2"])
        let backOff = try c.write("silent-serve.json", try String(contentsOfFile: hanging, encoding: .utf8)
            .replacingOccurrences(of: #""connect_timeout_seconds": 2"#, with: #""connect_timeout_seconds": 2, "retry_max_seconds": 1"#))
        let (server, _, log) = try serve(c, ["--config", backOff, "--site", "club-a"])
        defer { server.terminate(); server.waitUntilExit() }
        let deadline = Date().addingTimeInterval(15)
        while !text(log).contains("background push of site 'club-a' failed") && Date() < deadline { usleep(100_000) }
        XCTAssertTrue(text(log).contains("timeout expired (no answer within 2 s: connect_timeout_seconds"), text(log))
        usleep(3_500_000)  // several 2 s timeouts and 1 s back-offs: still one line
        XCTAssertEqual(text(log).components(separatedBy: "background push of site 'club-a' failed").count - 1, 1, text(log))
        server.terminate()
        server.waitUntilExit()
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 2, "nothing marked shipped")
    }
}
