// Federation push benchmark (issue 34): `clubhouse federation push`'s engine (FederationPush: the outbox
// read, COPY text written, psql driven as a child, the staging table, one INSERT … SELECT, records marked
// shipped) beside the raw `psql COPY` of the same rows into a table of the same shape, constraints and
// indexes (the floor: what psql and PostgreSQL alone cost), and beside the batch script of 90a2383 (the
// push before this one: staging, ANALYZE, the two-hosts check on every batch, INSERT … ORDER BY seq ON
// CONFLICT DO NOTHING), driven the same way by this build — in the same run, alternating, release build.
// Benchmarks/federation/run.sh starts a cluster of its own.
// Usage: clubhouse-bench federation --admin URL --site URL [--records N] [--batch B] [--samples K]

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

func federationBench(_ arguments: [String]) {
    func option(_ name: String) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }
    guard let admin = option("--admin"), let siteURL = option("--site") else {
        print("usage: clubhouse-bench federation --admin URL --site URL [--records N] [--batch B] [--samples K]")
        exit(2)
    }
    let count = option("--records").flatMap(Int.init) ?? 50_000
    let batch = option("--batch").flatMap(Int.init) ?? 10_000
    let samples = option("--samples").flatMap(Int.init) ?? 5
    let scratch = "/tmp/clubhouse-federation-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    _ = system("mkdir -p '\(scratch)/bench'")
    let adminShell = PostgresShell(target: PostgresTarget(url: admin))
    func adminSQL(_ sql: String) {
        do { try adminShell.run(sql) } catch { print("admin SQL failed: \(error)"); exit(1) }
    }
    adminSQL(FederationSchema.initScript(sites: ["bench"]))
    adminSQL("""
        CREATE SCHEMA IF NOT EXISTS bench;
        DROP TABLE IF EXISTS bench.raw;
        CREATE TABLE bench.raw (LIKE clubhouse.records INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES);
        GRANT USAGE ON SCHEMA bench TO clubhouse_site_bench; GRANT INSERT, SELECT ON bench.raw TO clubhouse_site_bench;
        """)
    var federation = SiteFederation(url: siteURL, siteID: "bench")
    federation.batchRecords = batch
    let siteShell = PostgresShell(target: PostgresTarget(url: siteURL))
    let push = FederationPush(shell: siteShell, federation: federation, siteName: "bench", siteFolder: scratch + "/bench")
    let database = scratch + "/bench/org.bench.plugin.sqlite"
    func body(_ i: Int) -> JSONValue {
        ["round": .int(i), "date": "2026-05-01", "course": "Test Nine", "tee": "Red", "holes": 9,
         "players": [["member": .string("M-\(i % 1000)"), "gross": .int(80 + i % 20), "differential": .double(Double(100 + i % 300) / 10)]]]
    }
    // The raw COPY's input: the same rows, as the push writes them (no staging, no check, no conflict).
    func rawScript() -> [UInt8] {
        var script = Array("BEGIN;\nCOPY bench.raw (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at) FROM STDIN;\n".utf8)
        let file = (try? OutboxFile(path: database, writable: false)) ?? nil
        for r in (try? file?.waiting(limit: count + 1)) ?? [] {
            let canonical = String(decoding: r.body, as: UTF8.self).replacing("\\", with: "\\\\")
            script += Array("bench\t\(r.plugin)\t\(r.pluginVersion)\t\(r.topic)\t\(r.key)\t\(r.seq)\t\(canonical)\t\(canonical)\t\(r.sha256)\t\(r.publishedAt)\n".utf8)
        }
        script += Array("\\.\nCOMMIT;\n".utf8)
        return script
    }
    // The push of 90a2383, batch by batch: its script through psql, then the batch marked shipped.
    func previousPush() -> Int {
        guard let file = (try? OutboxFile(path: database, writable: true)) ?? nil else { return 0 }
        do { try FederationSchema.checkVersion(siteShell) } catch { print("previous push: \(error)"); exit(1) }
        var shipped = 0
        while let records = try? file.waiting(limit: batch), let last = records.last {
            var script = Array("""
                BEGIN;
                CREATE TEMPORARY TABLE incoming (site_id text, plugin text, plugin_version text, topic text, key text, seq bigint,
                    canonical text, sha256 text, published_at timestamptz) ON COMMIT DROP;
                COPY incoming FROM STDIN;

                """.utf8)
            for r in records {
                let canonical = String(decoding: r.body, as: UTF8.self).replacing("\\", with: "\\\\")
                script += Array("bench\t\(r.plugin)\t\(r.pluginVersion)\t\(r.topic)\t\(r.key)\t\(r.seq)\t\(canonical)\t\(r.sha256)\t\(r.publishedAt)\n".utf8)
            }
            script += Array("""
                \\.
                ANALYZE incoming;
                DO $$ DECLARE clash record; BEGIN
                  SELECT i.plugin, i.seq INTO clash FROM incoming i JOIN clubhouse.records r
                    ON r.plugin = i.plugin AND r.site_id = i.site_id AND r.seq = i.seq WHERE r.sha256 <> i.sha256 OR r.key <> i.key LIMIT 1;
                  IF FOUND THEN RAISE EXCEPTION 'two hosts'; END IF;
                END $$;
                INSERT INTO clubhouse.records (site_id, plugin, plugin_version, topic, key, seq, canonical, body, sha256, published_at)
                  SELECT site_id, plugin, plugin_version, topic, key, seq, canonical, canonical::jsonb, sha256, published_at FROM incoming
                  ORDER BY seq ON CONFLICT DO NOTHING;
                COMMIT;

                """.utf8)
            guard PostgresShell.spawnForBenchmark(siteURL, script) else { print("previous push failed"); exit(1) }
            do { try file.markShipped(through: last.seq) } catch { print("previous push: \(error)"); exit(1) }
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
    func cpu() -> Double {
        var me = rusage(), children = rusage()
        getrusage(RUSAGE_SELF.rawValue, &me)
        getrusage(RUSAGE_CHILDREN.rawValue, &children)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(me.ru_utime) + s(me.ru_stime) + s(children.ru_utime) + s(children.ru_stime)
    }
    var pushWall: [Double] = [], pushCPU: [Double] = [], rawWall: [Double] = [], rawCPU: [Double] = []
    var previousWall: [Double] = [], previousCPU: [Double] = []
    var scriptBytes = 0
    for sample in 0...samples {  // sample 0 warms up
        adminSQL("TRUNCATE clubhouse.records; TRUNCATE bench.raw;")
        fill()
        let script = rawScript()
        scriptBytes = script.count
        let c0 = cpu(), t0 = Measure.now()
        let raw = PostgresShell.spawnForBenchmark(siteURL, script)
        let t1 = Measure.now(), c1 = cpu()
        guard raw else { print("raw psql COPY failed"); exit(1) }
        let report: FederationPush.Report
        do { report = try push.run() } catch { print("push failed: \(error)"); exit(1) }
        let t2 = Measure.now(), c2 = cpu()
        guard report.shipped == count else { print("push shipped \(report.shipped) of \(count)"); exit(1) }
        adminSQL("TRUNCATE clubhouse.records;")
        fill()
        let c3 = cpu(), t3 = Measure.now()
        let previous = previousPush()
        let t4 = Measure.now(), c4 = cpu()
        guard previous == count else { print("previous push shipped \(previous) of \(count)"); exit(1) }
        if sample > 0 {
            rawWall.append(t1 - t0); rawCPU.append(c1 - c0)
            pushWall.append(t2 - t1); pushCPU.append(c2 - c1)
            previousWall.append(t4 - t3); previousCPU.append(c4 - c3)
        }
    }
    let pushRate = Double(count) / Measure.median(pushWall), raw = Double(count) / Measure.median(rawWall)
    print("federation push, \(count) records (~\(scriptBytes / max(count, 1)) bytes a row of COPY text) in batches of \(batch), median of \(samples):")
    print(String(format: "  clubhouse federation push  %9.0f records/s  (wall %.3f s, CPU %.3f s host+psql)", pushRate, Measure.median(pushWall), Measure.median(pushCPU)))
    print(String(format: "  raw psql COPY (one batch)  %9.0f records/s  (wall %.3f s, CPU %.3f s psql)", raw, Measure.median(rawWall), Measure.median(rawCPU)))
    let previousRate = Double(count) / Measure.median(previousWall)
    print(String(format: "  push of 90a2383 (its SQL)  %9.0f records/s  (wall %.3f s, CPU %.3f s host+psql)", previousRate, Measure.median(previousWall), Measure.median(previousCPU)))
    print(String(format: "  ratio push / raw COPY      %9.2f   (90a2383's: %.2f)", pushRate / raw, previousRate / raw))
}
