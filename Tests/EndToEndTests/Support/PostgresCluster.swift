// A PostgreSQL cluster of the test's own: initdb in a temporary folder, a free port on 127.0.0.1, the
// unix socket in that folder, run as an unprivileged user when the tests run as root (CI does:
// postgres refuses root). Local socket connections trust (the administrator), TCP ones need a
// password (scram-sha-256: the sites, with a .pgpass). Skips, saying why, when PostgreSQL's server
// is not installed (.ci/deps installs Debian's postgresql). Always stopped by its owner (`stop()`).

import ClubhousePlatform
import Foundation
import XCTest

final class PostgresCluster {
    let folder: URL
    let port: Int
    let bin: String
    /// The user the server runs as ("postgres" or "nobody" under root; nil: this user).
    let runAs: String?
    private(set) var running = false
    static let admin = "clubhouse_admin"

    var data: String { folder.appendingPathComponent("data").path }
    var socketDirectory: String { folder.path }
    var log: String { folder.appendingPathComponent("server.log").path }

    /// The folder of PostgreSQL's server programs, newest version first, or nil.
    static func serverBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for v in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") { return "\(root)/\(v)/bin" }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(dir)/initdb") && FileManager.default.isExecutableFile(atPath: "\(dir)/pg_ctl") {
            return String(dir)
        }
        return nil
    }

    static func psqlAvailable() -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/psql") }
    }

    init() throws {
        guard let bin = PostgresCluster.serverBinaries(), PostgresCluster.psqlAvailable() else {
            let reason = "PostgreSQL is not installed (no initdb/pg_ctl under /usr/lib/postgresql/*/bin or psql on the PATH); .ci/deps installs Debian's postgresql"
            print("skipping: \(reason)")
            throw XCTSkip(reason)
        }
        self.bin = bin
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("clubhouse-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try PostgresCluster.freePort()
        if getuid() == 0 {
            runAs = (getpwnam("postgres") != nil) ? "postgres" : "nobody"
            guard let pw = getpwnam(runAs!) else { throw XCTSkip("no unprivileged user to run PostgreSQL as") }
            chown(folder.path, pw.pointee.pw_uid, pw.pointee.pw_gid)
        } else {
            runAs = nil
        }
        try asServerUser([bin + "/initdb", "-D", data, "-U", PostgresCluster.admin, "--auth-local=trust", "--auth-host=scram-sha-256",
                          "-E", "UTF8", "--locale=C", "--no-sync"], what: "initdb")
        try start()
    }

    /// Runs a server program as the server's user; throws with its output when it fails. Spawned with
    /// every descriptor above 2 closed (ClubhousePlatform's Subprocess): the server pg_ctl leaves running
    /// must not hold one of this process's (Foundation's Process would wait for it to exit).
    @discardableResult
    private func asServerUser(_ command: [String], what: String) throws -> String {
        let runuser = FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
        let (program, arguments) = runAs.map { (runuser, ["-u", $0, "--"] + command) } ?? (command[0], Array(command.dropFirst()))
        let result = Subprocess.run(program, arguments, timeoutMilliseconds: 120_000)
        let text = String(decoding: result.standardOutput + result.standardError, as: UTF8.self)
        guard result.exitCode == 0 else {
            throw NSError(domain: "postgres", code: Int(result.exitCode ?? -1), userInfo: [NSLocalizedDescriptionKey: "\(what) failed (\(result.outcomeDescription)): \(text)"])
        }
        return text
    }

    /// fsync off (the machine does not crash under a test), synchronous_commit on: a push marks records
    /// shipped when COMMIT returns, and an immediate stop must not lose a commit it acknowledged.
    func start() throws {
        try asServerUser([bin + "/pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o",
                          "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
                          "start"], what: "pg_ctl start")
        running = true
    }

    /// Stops the server at once (immediate: what a crash or a pulled cable looks like to clients).
    func stop() {
        guard running else { return }
        _ = try? asServerUser([bin + "/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], what: "pg_ctl stop")
        running = false
    }

    /// A shell command that stops the server at once (for a wrapper script that pulls the plug).
    var stopCommand: String {
        let stop = "\(bin)/pg_ctl -D \(data) -m immediate -w stop"
        return runAs.map { "runuser -u \($0) -- \(stop)" } ?? stop
    }

    /// Stops the server and removes its folder.
    func destroy() {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The administrator's URL for a database (unix socket, trust).
    func adminURL(_ database: String = "postgres") -> String {
        "postgresql://\(PostgresCluster.admin)@/\(database)?host=\(socketDirectory)&port=\(port)"
    }

    /// A role's URL over TCP (a password from a .pgpass).
    func url(role: String, database: String) -> String { "postgresql://\(role)@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL as the administrator; returns psql's unaligned, tuples-only output.
    @discardableResult
    func sql(_ statements: String, database: String = "postgres") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", adminURL(database), "-c", statements]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "psql", code: Int(process.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "psql: \(complaint)"])
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func freePort() throws -> Int {
        let (fd, port) = try loopbackListener()
        close(fd)
        return port
    }
}
