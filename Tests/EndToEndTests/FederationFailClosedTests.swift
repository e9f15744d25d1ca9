// The eighth outside attack on the federation: central SQL whose manifest was deleted (a20, a21: the digest
// check turned itself off), a push or migrate stopped by Ctrl-C or SIGTERM (a08–a10: psql left running, or
// the step's timeout waited out), and a COMMIT whose reply was lost reported as "nothing was committed"
// (a06, a24). Uses FederationEndToEndTests' cluster; the lost reply comes from a proxy of the test's own.

import ClubhouseJSON
import Foundation
import XCTest

extension FederationEndToEndTests {
    // MARK: a manifest deleted

    /// Central SQL installed beside a plugin library (an installed package's folder, the bundled plugins'
    /// folder) whose manifest is gone is refused before anything is applied; a developer's folder (no
    /// library beside it) named with --dir is applied as it is.
    func testCentralSQLWhoseManifestIsGoneIsRefused() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let evil = { () throws -> String in try cluster.sql("SELECT count(*) FROM pg_class WHERE relname = 'evil'", database: db) }
        // An installed package: its manifest.json deleted, a file added.
        let id = "org.tests.fedgone"
        let library = try FixturePlugins.build("OK", id: id, version: "1.0.0")
        let source = c.path("gone-src/federation/postgresql")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        _ = try c.write("gone-src/federation/postgresql/001_one.sql", "CREATE SCHEMA fedgone;\n")
        try c.succeed(["plugin", "pack", library, "--out", c.path("fedgone.chpkg"), "--federation", source])
        try c.succeed(["plugin", "install", c.path("fedgone.chpkg")])
        let installed = c.dataDirectory.appendingPathComponent("plugins/\(id)/1.0.0").path
        let folder = installed + "/federation/postgresql"
        try FileManager.default.removeItem(atPath: installed + "/manifest.json")
        try Data("CREATE TABLE evil (a int);\n".utf8).write(to: URL(fileURLWithPath: folder + "/002_evil.sql"))
        let config = try c.write("fedgone.json", #"{"sites": {"club-a": {"plugins": {"fg": {"id": "\#(id)", "grants": ["storage"]}}}}}"#)
        let missing = "\(folder): central SQL installed beside a plugin library, but its manifest (\(installed)/manifest.json) is missing"
        try c.fail(["--config", config, "--site", "club-a", "federation", "migrate", "--url", cluster.adminURL(db)], exitCode: 2,
                   contains: [missing, "nothing was applied: install the package again (clubhouse plugin install FILE)"])
        try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", folder], exitCode: 2, contains: [missing])
        // Named through a symbolic link (b14): resolved to the installed folder, refused the same.
        try FileManager.default.createSymbolicLink(atPath: c.path("gone-link"), withDestinationPath: folder)
        try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", id, "--dir", c.path("gone-link") + "/"], exitCode: 2, contains: [missing])
        XCTAssertEqual(try evil(), "0")
        // The bundled plugins' layout (scripts/install.sh): federation/<id>/manifest.json deleted.
        let lib = c.path("prefix-lib")
        let bundled = lib + "/federation/org.clubhouse.scorecard/postgresql"
        try FileManager.default.createDirectory(atPath: bundled, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Clubhouse.productsDirectory.appendingPathComponent("libScorecardPlugin.so").path,
                                         toPath: lib + "/libScorecardPlugin.so")
        try FileManager.default.copyItem(atPath: library, toPath: lib + "/libother.so")  // not alone: federation/<id>/ per plugin
        try Data("CREATE TABLE evil (a int);\n".utf8).write(to: URL(fileURLWithPath: bundled + "/001_evil.sql"))
        let prefix = try c.write("prefix.json", #"{"sites": {"club-a": {"plugins": {"scorecard": {"path": "\#(lib)/libScorecardPlugin.so", "grants": ["storage"]}}}}}"#)
        try c.fail(["--config", prefix, "--site", "club-a", "federation", "migrate", "--url", cluster.adminURL(db)], exitCode: 2,
                   contains: ["\(bundled): central SQL installed beside a plugin library, but its manifest (\(lib)/federation/org.clubhouse.scorecard/manifest.json) is missing",
                              "nothing was applied: install clubhouse again (scripts/install.sh)"])
        try FileManager.default.createSymbolicLink(atPath: c.path("bundled-link"), withDestinationPath: bundled)
        try c.fail(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", "org.clubhouse.scorecard", "--dir", c.path("bundled-link")], exitCode: 2,
                   contains: ["\(bundled): central SQL installed beside a plugin library, but its manifest"])
        XCTAssertEqual(try evil(), "0")
        // A developer's own folder, no library beside it: --dir applies it.
        let dev = c.path("dev/federation/postgresql")
        try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
        _ = try c.write("dev/federation/postgresql/001_dev.sql", "CREATE TABLE dev_table (a int);\n")
        try c.succeed(["federation", "migrate", "--url", cluster.adminURL(db), "--plugin", "org.tests.dev", "--dir", dev])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM pg_class WHERE relname = 'dev_table'", database: db), "1")
    }

    // MARK: Ctrl-C, SIGTERM, SIGHUP

    /// A push, pull, migrate or init whose psql hangs (a server that takes the connection and never answers)
    /// ends at once on Ctrl-C, SIGTERM or SIGHUP sent to the host alone: exit 130, one line (no warning
    /// before it), its psql killed (none left running), nothing marked shipped, no COMMIT said handed over.
    func testASignalStopsAHangingFederationCommandAndItsPsqlAtOnce() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let silent = try loopbackListener()
        defer { close(silent.fd) }
        let real = try configuration(c, cluster, db: db, sites: ["club-a"], extra: #", "connect_timeout_seconds": 60, "step_timeout_seconds": 60"#)
        let hanging = try c.write("hanging.json", try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:\(cluster.port)/", with: "127.0.0.1:\(silent.port)/"))
        try c.succeed(["--config", real, "--site", "club-a", "hp", "publish", "--topic", "shot", "--key", "s", "--count", "3"])
        let pids = c.path("psql-pids")
        let wrapper = try c.write("psql-pid.sh", "#!/bin/sh\necho $$ >> \(pids)\nexec psql \"$@\"\n")
        chmod(wrapper, 0o755)
        c.environment["CLUBHOUSE_PSQL"] = wrapper
        c.environment["PGCONNECT_TIMEOUT"] = "60"
        let silentURL = "postgresql://owner@127.0.0.1:\(silent.port)/\(db)"
        let dev = c.path("dev-sql")
        _ = try c.write("dev-sql/001_one.sql", "CREATE TABLE one (a int);\n")
        let runs: [(command: [String], signal: Int32, what: String)] = [
            (["--config", hanging, "--site", "club-a", "federation", "push"], SIGINT, "federation push interrupted"),
            (["--config", hanging, "--site", "club-a", "federation", "push"], SIGTERM, "federation push interrupted"),
            (["--config", hanging, "--site", "club-a", "federation", "pull"], SIGHUP, "federation pull interrupted"),
            (["federation", "migrate", "--url", silentURL, "--plugin", "org.tests.dev", "--dir", dev], SIGINT, "federation migrate interrupted"),
            (["federation", "init", "--url", silentURL, "--sites", "club-z"], SIGTERM, "federation init interrupted"),
        ]
        for run in runs {
            try? FileManager.default.removeItem(atPath: pids)
            let errors = Pipe()
            let process = try background(c, run.command, output: FileHandle.nullDevice, errors: errors)
            let deadline = Date().addingTimeInterval(20)
            while (try? String(contentsOfFile: pids, encoding: .utf8))?.isEmpty != false && Date() < deadline { usleep(20_000) }
            usleep(300_000)  // psql is connecting to the silent server
            let psql = Int32((try? String(contentsOfFile: pids, encoding: .utf8))?.split(separator: "\n").first ?? "") ?? 0
            XCTAssertGreaterThan(psql, 0, "\(run.command): psql never started")
            let sent = Date()
            kill(process.processIdentifier, run.signal)
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertLessThan(Date().timeIntervalSince(sent), 5, "\(run.command): \(said)")
            XCTAssertEqual(process.terminationReason, .exit, "\(run.command) died of its signal: \(said)")
            XCTAssertEqual(process.terminationStatus, 130, "\(run.command): \(said)")
            XCTAssertTrue(said.contains(run.what) && said.contains("psql was stopped"), "\(run.command): \(said)")
            // One line: no generic "asking … to stop" warning before it (b05), and no COMMIT said handed over
            // by a command stopped while psql was still connecting.
            XCTAssertEqual(said.split(separator: "\n").count, 1, said)
            XCTAssertFalse(said.contains("COMMIT had been handed") || said.contains("may have been committed"), said)
            XCTAssertTrue(kill(psql, 0) != 0 && errno == ESRCH, "\(run.command): psql \(psql) still runs after the host ended")
        }
        c.environment["CLUBHOUSE_PSQL"] = nil
        c.environment["PGCONNECT_TIMEOUT"] = nil
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 3, "nothing marked shipped")
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "federation", "push", "--json"]).json()["shipped"]?.intValue, 3)
    }

    /// `clubhouse ARGS` started with the test's environment, not waited for.
    func background(_ c: Clubhouse, _ arguments: [String], output: Any, errors: Any) throws -> Process {
        let process = Process()
        process.executableURL = Clubhouse.executable
        process.arguments = arguments
        var env = c.childEnvironment
        for (k, v) in c.environment { env[k] = v }
        process.environment = env
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return process
    }

    // MARK: a COMMIT whose reply is lost

    /// migrate: a COMMIT whose reply the proxy drops is asked about on a new connection and reported as it
    /// is (applied: counted; the server unreachable: "may have been committed", never "changed nothing"); a
    /// rerun applies nothing twice.
    func testAMigrationWhoseCommitReplyIsLostIsCheckedAndNeverSaidUnapplied() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let owner = "owner_" + UUID().uuidString.prefix(8).lowercased()
        try cluster.sql("CREATE ROLE \(owner) LOGIN SUPERUSER PASSWORD 'pw-owner'")
        defer { _ = try? cluster.sql("DROP OWNED BY \(owner) CASCADE; DROP ROLE \(owner)", database: db) }
        _ = try c.write("sql/001_a.sql", "CREATE TABLE ct (a int);\nINSERT INTO ct VALUES (1);\n")
        _ = try c.write("sql/002_b.sql", "INSERT INTO ct VALUES (2);\n")
        // Every COMMIT's reply dropped: each is asked about again and found applied.
        let dropping = try CommitReplyDropper(upstream: cluster.port, refuseAfterDrop: false)
        defer { dropping.stop() }
        let pgpass = c.environment["PGPASSFILE"] ?? ""
        let lines = try String(contentsOfFile: pgpass, encoding: .utf8)
        try Data((lines + "127.0.0.1:*:*:\(owner):pw-owner\n").utf8).write(to: URL(fileURLWithPath: pgpass))
        _ = try c.write("sql2/001_a.sql", "CREATE TABLE ct2 (a int);\nINSERT INTO ct2 VALUES (1);\n")
        _ = try c.write("sql2/002_b.sql", "INSERT INTO ct2 VALUES (2);\n")
        let migrate = { (port: Int, n: String) in
            ["federation", "migrate", "--url", "postgresql://\(owner)@127.0.0.1:\(port)/\(db)", "--plugin", "org.tests.lost\(n)", "--dir", c.path("sql\(n)")]
        }
        XCTAssertTrue(try c.succeed(migrate(dropping.port, "")).stdout.contains("Applied migrations 1, 2 of org.tests.lost"))
        XCTAssertGreaterThanOrEqual(dropping.dropped, 2)
        XCTAssertEqual(try cluster.sql("SELECT string_agg(a::text, ',' ORDER BY a) FROM ct", database: db), "1,2")
        // The first COMMIT's reply dropped and the server unreachable after it: unknown, said so.
        let refusing = try CommitReplyDropper(upstream: cluster.port, refuseAfterDrop: true)
        defer { refusing.stop() }
        let said = try c.fail(migrate(refusing.port, "2"), contains: [
            "\(c.path("sql2"))/001_a.sql: migration 1 ('a') of plugin org.tests.lost2",
            "its COMMIT had been handed to psql and the server did not confirm it, so it may have been committed",
            "whether it was applied could not be asked",
            "run migrate again: a migration that was applied is recorded and skipped, never applied twice"])
        XCTAssertFalse(said.stderr.contains("changed nothing"), said.stderr)
        XCTAssertEqual(try cluster.sql("SELECT string_agg(version::text, ',') FROM clubhouse.migrations WHERE plugin = 'org.tests.lost2'", database: db), "1")
        XCTAssertTrue(try c.succeed(migrate(cluster.port, "2")).stdout.contains("Applied migration 2 of org.tests.lost2"))
        XCTAssertEqual(try cluster.sql("SELECT string_agg(a::text, ',' ORDER BY a) FROM ct2", database: db), "1,2", "migration 1 not applied twice")
    }

    /// push: a batch whose COMMIT reply is lost is not marked shipped and the message says it may have been
    /// committed (not "nothing was committed"); the next push sends it again and the server keeps one copy.
    func testAPushWhoseCommitReplyIsLostSaysSoAndTheNextPushDoublesNothing() throws {
        let cluster = try requireCluster()
        let c = try Clubhouse()
        let db = try federation(c, cluster, sites: ["club-a"])
        let real = try configuration(c, cluster, db: db, sites: ["club-a"])
        try c.succeed(["--config", real, "--site", "club-a", "hp", "publish", "--topic", "shot", "--key", "s", "--count", "5"])
        let proxy = try CommitReplyDropper(upstream: cluster.port, refuseAfterDrop: false)
        defer { proxy.stop() }
        let pgpass = c.environment["PGPASSFILE"] ?? ""
        let lines = try String(contentsOfFile: pgpass, encoding: .utf8)
        try Data((lines + lines.replacingOccurrences(of: "127.0.0.1:\(cluster.port):", with: "127.0.0.1:\(proxy.port):")).utf8)
            .write(to: URL(fileURLWithPath: pgpass))
        let lost = try c.write("lost.json", try String(contentsOfFile: real, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:\(cluster.port)/", with: "127.0.0.1:\(proxy.port)/"))
        let said = try c.fail(["--config", lost, "--site", "club-a", "federation", "push"], contains: [
            "its COMMIT had been handed to psql and the server did not confirm it, so it may have been committed",
            "records 1–5 of org.tests.publish.a and later ones wait in the outbox",
            "if the server did commit them, the next push finds them there and they are not doubled"])
        XCTAssertFalse(said.stderr.contains("nothing of it was kept") || said.stderr.contains("was not committed"), said.stderr)
        XCTAssertEqual(try records(cluster, db), 5, "the server committed them")
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 5)
        try c.succeed(["--config", real, "--site", "club-a", "federation", "push"])
        XCTAssertEqual(try records(cluster, db), 5, "not doubled")
        XCTAssertEqual(try c.succeed(["--config", real, "--site", "club-a", "outbox", "--json"]).json()["waiting"]?.intValue, 0)
    }
}

/// A TCP proxy to the test's PostgreSQL that forwards everything, except that once a client sends a query
/// holding COMMIT, the server's next reply on that connection is dropped with the connection (the COMMIT
/// reached the server; its answer never reaches psql). `refuseAfterDrop`: every later connection is closed
/// at once (the server seems gone). Threads of its own; `stop` ends accepting.
/// @unchecked Sendable: `stopped`, `refusing` and `dropped` are guarded by `lock`; the rest is set in init.
final class CommitReplyDropper: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let upstream: Int
    private let refuseAfterDrop: Bool
    private let lock = NSLock()
    private var stopped = false
    private var refusing = false
    private var count = 0

    var dropped: Int { lock.withLock { count } }

    init(upstream: Int, refuseAfterDrop: Bool) throws {
        (listener, port) = try loopbackListener()
        self.upstream = upstream
        self.refuseAfterDrop = refuseAfterDrop
        Thread.detachNewThread { [self] in accepting() }
    }

    func stop() { lock.withLock { stopped = true } }

    private func accepting() {
        while !lock.withLock({ stopped }) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            if lock.withLock({ refusing }) {
                close(client)
                continue
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(upstream).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client); close(server)
                continue
            }
            let armed = NSLock()
            nonisolated(unsafe) var commitSent = false
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = read(client, &buffer, buffer.count)
                    guard n > 0 else { break }
                    let chunk = buffer[0..<n]
                    if chunk.first == UInt8(ascii: "Q"), String(decoding: chunk, as: UTF8.self).contains("COMMIT") {
                        armed.withLock { commitSent = true }
                    }
                    guard write(server, Array(chunk), n) == n else { break }
                }
                shutdown(server, Int32(SHUT_RDWR))
            }
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = read(server, &buffer, buffer.count)
                    guard n > 0 else { break }
                    if armed.withLock({ commitSent }) {
                        lock.withLock {
                            count += 1
                            if refuseAfterDrop { refusing = true }
                        }
                        break
                    }
                    guard write(client, buffer, n) == n else { break }
                }
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(server, Int32(SHUT_RDWR))
            }
        }
        close(listener)
    }
}
