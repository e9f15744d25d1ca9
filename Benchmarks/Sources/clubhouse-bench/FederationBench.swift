// Federation push benchmark (issue 34): `clubhouse federation push`'s engine (FederationPush: the outbox
// read straight into COPY text, psql driven as a child, one COPY into the site's leaf of
// clubhouse.records, records marked shipped) beside the raw `psql COPY` of the same rows into the same
// leaf (same table, same CHECKs — body = canonical::jsonb and the SHA-256 — same indexes: the floor, what
// psql and PostgreSQL alone cost), and beside the staging path (7de0dc4's push, now the fallback: COPY
// into a temporary table, one INSERT … SELECT through clubhouse.records), driven the same way by this
// build — in the same run, alternating, release build. Also: the host's share alone (the outbox read and
// the COPY text written, nothing sent), and, with --postmaster PID, the server's CPU per variant (the
// postmaster's and its children's utime + stime from /proc, the reaped backends' included).
// Benchmarks/federation/run.sh starts a cluster of its own.
// Usage: clubhouse-bench federation --admin URL --site URL [--records N] [--batch B] [--samples K] [--postmaster PID]

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

func federationBench(_ arguments: [String]) {
    let option = { (name: String) in federationOption(arguments, name) }
    guard let admin = option("--admin"), let siteURL = option("--site") else {
        print("usage: clubhouse-bench federation --admin URL --site URL [--records N] [--batch B] [--samples K] [--postmaster PID]")
        exit(2)
    }
    let count = option("--records").flatMap(Int.init) ?? 50_000
    let batch = option("--batch").flatMap(Int.init) ?? 10_000
    let samples = option("--samples").flatMap(Int.init) ?? 5
    let postmaster = option("--postmaster").flatMap(Int32.init)
    let scratch = "/tmp/clubhouse-federation-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    _ = system("mkdir -p '\(scratch)/bench'")
    let adminShell = PostgresShell(target: PostgresTarget(url: admin))
    func adminSQL(_ sql: String) {
        do { try adminShell.run(sql) } catch { print("admin SQL failed: \(error)"); exit(1) }
    }
    adminSQL(FederationSchema.initScript(sites: ["bench"]))
    guard let leaf = (try? adminShell.query("SELECT relation FROM clubhouse.leaves WHERE site_id = 'bench' AND plugin = ''"))?.first?.first else {
        print("no leaf for site bench"); exit(1)
    }
    var federation = SiteFederation(url: siteURL, siteID: "bench")
    federation.batchRecords = batch
    let siteShell = PostgresShell(target: PostgresTarget(url: siteURL))
    let push = FederationPush(shell: siteShell, federation: federation, siteName: "bench", siteFolder: scratch + "/bench")
    let database = scratch + "/bench/org.bench.plugin.sqlite"
    func body(_ i: Int) -> JSONValue {
        ["round": .int(i), "date": "2026-05-01", "course": "Test Nine", "tee": "Red", "holes": 9,
         "players": [["member": .string("M-\(i % 1000)"), "gross": .int(80 + i % 20), "differential": .double(Double(100 + i % 300) / 10)]]]
    }
    // The raw COPY's input: the same rows, as the push writes them, in one COPY into the same leaf.
    func rawScript() -> [UInt8] {
        var script = Array("BEGIN;\nCOPY clubhouse.\"\(leaf)\" (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) FROM STDIN;\n".utf8)
        let file = (try? OutboxFile(path: database, writable: false)) ?? nil
        _ = try? file?.copyRows(after: 0, limit: count + 1, siteID: "bench", into: &script)
        script += Array("\\.\nCOMMIT;\n".utf8)
        return script
    }
    // The host's share alone: every batch read and written as COPY text, nothing sent, nothing marked.
    func hostOnly() -> Int {
        guard let file = (try? OutboxFile(path: database, writable: false)) ?? nil else { return 0 }
        var after: Int64 = 0, total = 0
        while true {
            var script: [UInt8] = []
            script.reserveCapacity(batch * 512)
            guard let rows = try? file.copyRows(after: after, limit: batch, siteID: "bench", into: &script) else { break }
            after = rows.last
            total += rows.count
        }
        return total
    }
    // The staging path (7de0dc4's push, the fallback now), batch by batch: its script, then marked shipped.
    func stagingPush() -> Int {
        guard let file = (try? OutboxFile(path: database, writable: true)) ?? nil else { return 0 }
        var shipped = 0
        while let records = try? file.waiting(limit: batch), let last = records.last {
            guard PostgresShell.spawnForBenchmark(siteURL, FederationPush.stagingScriptForBenchmark(records, siteID: "bench")) else {
                print("staging push failed"); exit(1)
            }
            do { try file.markShipped(through: last.seq) } catch { print("staging push: \(error)"); exit(1) }
            shipped += records.count
        }
        return shipped
    }
    func fill() {
        _ = system("rm -f '\(database)' '\(database)-wal' '\(database)-shm'")
        do {
            try OutboxFile.fillForBenchmark(path: database, site: "bench", plugin: "org.bench.plugin", topic: "round", count: count, body: body)
        } catch { print("fill failed: \(error)"); exit(1) }
    }
    let cpu = federationCPU
    // The server's CPU so far: the postmaster's own and reaped children's, plus its live children's.
    func serverCPU() -> Double {
        guard let postmaster else { return .nan }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func fields(_ pid: Int32) -> [Substring]? {
            guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
            defer { fclose(file) }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let n = fread(&buffer, 1, buffer.count, file)
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return nil }
            return text[text.index(after: close)...].split(separator: " ")  // fields from 3 (state) on
        }
        var total = 0.0
        if let f = fields(postmaster), f.count > 14 {
            total += [11, 12, 13, 14].reduce(0.0) { $0 + (Double(f[$1]) ?? 0) }  // utime stime cutime cstime
        }
        guard let dir = opendir("/proc") else { return total / ticks }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), let f = fields(pid), f.count > 12, Int32(f[1]) == postmaster else { continue }
            total += (Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)
        }
        return total / ticks
    }
    var pushWall: [Double] = [], pushCPU: [Double] = [], pushServer: [Double] = []
    var rawWall: [Double] = [], rawCPU: [Double] = [], rawServer: [Double] = []
    var stagingWall: [Double] = [], stagingCPU: [Double] = [], stagingServer: [Double] = []
    var hostWall: [Double] = [], hostCPU: [Double] = []
    var scriptBytes = 0, psqlPerPush = 0
    for sample in 0...samples {  // sample 0 warms up
        adminSQL("TRUNCATE clubhouse.records;")
        fill()
        let script = rawScript()
        scriptBytes = script.count
        let s0 = serverCPU(), c0 = cpu(), t0 = Measure.now()
        let raw = PostgresShell.spawnForBenchmark(siteURL, script)
        let t1 = Measure.now(), c1 = cpu(), s1 = serverCPU()
        guard raw else { print("raw psql COPY failed"); exit(1) }
        adminSQL("TRUNCATE clubhouse.records;")
        let s2 = serverCPU(), c2 = cpu(), t2 = Measure.now()
        let report: FederationPush.Report
        do { report = try push.run() } catch { print("push failed: \(error)"); exit(1) }
        let t3 = Measure.now(), c3 = cpu(), s3 = serverCPU()
        guard report.shipped == count else { print("push shipped \(report.shipped) of \(count)"); exit(1) }
        psqlPerPush = report.psqlStarted
        adminSQL("TRUNCATE clubhouse.records;")
        fill()
        let c4 = cpu(), t4 = Measure.now()
        let formatted = hostOnly()
        let t5 = Measure.now(), c5 = cpu()
        guard formatted == count else { print("host-only read \(formatted) of \(count)"); exit(1) }
        let s6 = serverCPU(), c6 = cpu(), t6 = Measure.now()
        let staged = stagingPush()
        let t7 = Measure.now(), c7 = cpu(), s7 = serverCPU()
        guard staged == count else { print("staging push shipped \(staged) of \(count)"); exit(1) }
        if sample > 0 {
            rawWall.append(t1 - t0); rawCPU.append(c1 - c0); rawServer.append(s1 - s0)
            pushWall.append(t3 - t2); pushCPU.append(c3 - c2); pushServer.append(s3 - s2)
            hostWall.append(t5 - t4); hostCPU.append(c5 - c4)
            stagingWall.append(t7 - t6); stagingCPU.append(c7 - c6); stagingServer.append(s7 - s6)
        }
    }
    var load = [Double](repeating: 0, count: 3)
    _ = getloadavg(&load, 3)
    let pushRate = Double(count) / Measure.median(pushWall), raw = Double(count) / Measure.median(rawWall)
    let stagingRate = Double(count) / Measure.median(stagingWall)
    print("federation push, \(count) records (~\(scriptBytes / max(count, 1)) bytes a row of COPY text) in batches of \(batch), median of \(samples); load average \(String(format: "%.1f %.1f %.1f", load[0], load[1], load[2])):")
    print(String(format: "  clubhouse federation push  %9.0f records/s  (wall %.3f s, CPU %.3f s host+psql, server CPU %.3f s; %d psql a push)", pushRate, Measure.median(pushWall), Measure.median(pushCPU), Measure.median(pushServer), psqlPerPush))
    print(String(format: "  raw psql COPY, same leaf   %9.0f records/s  (wall %.3f s, CPU %.3f s psql, server CPU %.3f s)", raw, Measure.median(rawWall), Measure.median(rawCPU), Measure.median(rawServer)))
    print(String(format: "  staging path (7de0dc4)     %9.0f records/s  (wall %.3f s, CPU %.3f s host+psql, server CPU %.3f s)", stagingRate, Measure.median(stagingWall), Measure.median(stagingCPU), Measure.median(stagingServer)))
    print(String(format: "  host share alone (read + COPY text, nothing sent)  wall %.3f s, CPU %.3f s", Measure.median(hostWall), Measure.median(hostCPU)))
    print(String(format: "  ratio push / raw COPY      %9.2f   (staging path: %.2f)", pushRate / raw, stagingRate / raw))
}

/// The value after `name` in the arguments, or nil.
func federationOption(_ arguments: [String], _ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

/// This process's CPU time and its reaped children's (psql), in seconds.
func federationCPU() -> Double {
    var me = rusage(), children = rusage()
    getrusage(RUSAGE_SELF.rawValue, &me)
    getrusage(RUSAGE_CHILDREN.rawValue, &children)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(me.ru_utime) + s(me.ru_stime) + s(children.ru_utime) + s(children.ru_stime)
}
