// The association simulation (issue 34): C clubs, G golfers, R rounds (default 200, 100,000, 2,000,000),
// every round through the real path — each club's outbox written as the publish service writes it
// (OutboxFile.fillForBenchmark: canonical JSON, SHA-256, sequence) with one golfer's 18-hole round per
// record, then `federation push` of every club (FederationPush: its own role, its leaf, batches of
// --batch) — and every member's Handicap Index of record computed in PostgreSQL
// (scorecard.index_of_record: Rule 5.2 with 5.7–5.9, Plugins/Scorecard/federation/postgresql/) into a
// table. Prints the time of each phase, the wall and CPU of the push, the index time per golfer.
// Benchmarks/federation/simulate.sh starts a cluster of its own.
// Usage: clubhouse-bench federation-sim --admin URL --site URL-with-ROLE [--clubs C] [--golfers G] [--rounds R] [--batch B]
//   (the site URL's literal ROLE is replaced by each club's role; the cluster trusts its local socket)

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

func federationSimulation(_ arguments: [String]) {
    let option = { (name: String) in federationOption(arguments, name) }
    guard let admin = option("--admin"), let siteTemplate = option("--site"), siteTemplate.contains("ROLE") else {
        print("usage: clubhouse-bench federation-sim --admin URL --site URL-with-ROLE [--clubs C] [--golfers G] [--rounds R] [--batch B]")
        exit(2)
    }
    let clubs = option("--clubs").flatMap(Int.init) ?? 200
    let golfers = option("--golfers").flatMap(Int.init) ?? 100_000
    let rounds = option("--rounds").flatMap(Int.init) ?? 2_000_000
    let batch = option("--batch").flatMap(Int.init) ?? 50_000
    let sql = option("--sql") ?? "Plugins/Scorecard/federation/postgresql"
    let perClub = rounds / clubs, homeGolfers = golfers / clubs
    let scratch = "/tmp/clubhouse-federation-sim-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    let adminShell = PostgresShell(target: PostgresTarget(url: admin), timeoutMilliseconds: 3_600_000)
    func adminSQL(_ text: String) -> [[String]] {
        do { return try adminShell.query(text) } catch { print("admin SQL failed: \(error)"); exit(1) }
    }
    let cpu = federationCPU
    let sites = (0..<clubs).map { String(format: "club-%03d", $0) }
    var t = Measure.now()
    _ = adminSQL(FederationSchema.initScript(sites: sites))
    do {
        let migrations = FederationMigrations(shell: adminShell)
        _ = try migrations.apply(plugin: "org.clubhouse.scorecard", try FederationMigrations.read(folder: FileSystem.absolute(sql)))
    } catch { print("migrate failed: \(error)"); exit(1) }
    print(String(format: "init (%d sites) and migrate: %.1f s", clubs, Measure.now() - t))

    // Round i of club k: mostly a golfer of the club (golfer g's home club is g mod C), one in five a
    // visitor from another; dates over two years in club order; a differential around the golfer's level.
    let start = 739_000  // a day number; dates below are 2024-2025
    func round(_ k: Int, _ i: Int) -> JSONValue {
        let visitor = i % 5 == 4
        let home = visitor ? (k + 1 + i % 7) % clubs : k
        let golfer = home + clubs * ((i * (visitor ? 7 : 1)) % max(1, homeGolfers))
        let level = (golfer &* 37) % 360
        let tenths = level + (i &* 13) % 90 - 40
        let day = start + i * 730 / max(1, perClub)
        let y = 2024 + (day - start) / 365, d = (day - start) % 365
        let date = String(format: "%04d-%02d-%02d", y, 1 + d / 31 % 12, 1 + d % 28)
        let player: JSONValue = ["member": .string("M-\(golfer)"), "gross": .int(72 + tenths / 10), "differential": .double(Double(tenths) / 10)]
        return ["round": .int(i), "date": .string(date), "course": .string("Course \(k)"), "tee": "White", "holes": 18, "players": [player]]
    }
    t = Measure.now()
    var c0 = cpu()
    _ = system("mkdir -p '\(scratch)'")
    for (k, site) in sites.enumerated() {
        _ = system("mkdir -p '\(scratch)/\(site)'")
        do {
            try OutboxFile.fillForBenchmark(path: "\(scratch)/\(site)/org.clubhouse.scorecard.sqlite", site: site, plugin: "org.clubhouse.scorecard",
                                            topic: "round", count: perClub, body: { round(k, $0) })
        } catch { print("fill failed: \(error)"); exit(1) }
    }
    print(String(format: "outboxes written (%d rounds, canonical JSON + SHA-256, as publish does): %.1f s, CPU %.1f s", perClub * clubs, Measure.now() - t, cpu() - c0))

    t = Measure.now()
    c0 = cpu()
    var shipped = 0
    for site in sites {
        var federation = SiteFederation(url: siteTemplate.replacing("ROLE", with: FederationSchema.role(siteID: site)), siteID: site)
        federation.batchRecords = batch
        let push = FederationPush(shell: PostgresShell(target: PostgresTarget(federation), timeoutMilliseconds: 600_000), federation: federation,
                                  siteName: site, siteFolder: "\(scratch)/\(site)")
        do { shipped += try push.run().shipped } catch { print("push of \(site) failed: \(error)"); exit(1) }
    }
    let pushWall = Measure.now() - t, pushCPU = cpu() - c0
    print(String(format: "pushed %d records from %d clubs: %.1f s (%.0f records/s), CPU %.1f s host + psql", shipped, clubs, pushWall,
                 Double(shipped) / pushWall, pushCPU))

    _ = adminSQL("VACUUM ANALYZE clubhouse.records")
    t = Measure.now()
    let members = adminSQL("""
        DROP TABLE IF EXISTS public.sim_index;
        CREATE TABLE public.sim_index AS SELECT * FROM scorecard.index_of_record;
        SELECT count(*), count(*) FILTER (WHERE soft_cap), count(*) FILTER (WHERE hard_cap), sum(exceptional_scores),
               round(avg(handicap_index), 1) FROM public.sim_index;
        """)
    let indexWall = Measure.now() - t
    let row = members.last ?? []
    let count = Int(row.first ?? "") ?? 0
    func field(_ i: Int) -> String { row.count > i ? row[i] : "?" }
    print(String(format: "every index of record computed in PostgreSQL: %.1f s for %d members (%.1f µs a golfer)", indexWall, count,
                 indexWall * 1e6 / Double(max(count, 1)))
          + "; soft cap \(field(1)), hard cap \(field(2)), exceptional scores \(field(3)), mean index \(field(4))")
    t = Measure.now()
    let one = adminSQL("SELECT handicap_index, clubs FROM scorecard.index_of_record WHERE member = 'M-\(golfers / 2)'")
    print("one member's index through the view (M-\(golfers / 2): \(one.first?.joined(separator: " from ") ?? "none")): " + String(format: "%.3f s", Measure.now() - t))
    // Migration 004: the member's rounds through the expression index on the players (scorecard.index_of).
    var lookups: [Double] = []
    var found: [String] = []
    for k in 0..<5 {
        t = Measure.now()
        found = adminSQL("SELECT handicap_index, clubs FROM scorecard.index_of('M-\(golfers / 2 + k)')").first ?? []
        lookups.append(Measure.now() - t)
        if k == 0 && found != (one.first ?? []) { print("index_of disagrees with the view: \(found) against \(one.first ?? [])") }
    }
    print(String(format: "one member's index through scorecard.index_of (004, the players' expression index): median %.4f s of 5 members (psql start included)", Measure.median(lookups)))
    // The server's own time for each (EXPLAIN ANALYZE's execution time: no psql start, no connection).
    func executionTime(_ sql: String) -> String {
        let rows = adminSQL("EXPLAIN (ANALYZE, TIMING OFF) " + sql).map { $0.joined(separator: ",") }
        return rows.first { $0.contains("Execution Time") }.map { String($0.drop { $0 == " " }) } ?? "?"
    }
    for k in 1...3 {
        let member = "M-\(golfers / 2 + k)"
        print("  server time, \(member): view \(executionTime("SELECT * FROM scorecard.index_of_record WHERE member = '\(member)'")); "
              + "index_of \(executionTime("SELECT * FROM scorecard.index_of('\(member)')"))")
    }
    let plan = adminSQL("EXPLAIN SELECT * FROM scorecard.index_of('M-\(golfers / 2)')").map { $0.joined(separator: ",") }
    print("  its plan reads: " + plan.filter { $0.contains("Index Scan") || $0.contains("Seq Scan") }.map { String($0.drop { $0 == " " }) }.prefix(4).joined(separator: " | "))
    var load = [Double](repeating: 0, count: 3)
    _ = getloadavg(&load, 3)
    print(String(format: "load average %.1f %.1f %.1f", load[0], load[1], load[2]))
}
