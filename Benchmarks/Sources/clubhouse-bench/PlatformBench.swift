// Platform benchmarks (issue 2), release build:
//  1. cold start of `clubhouse plugins list` with every plugin loaded vs a Swift program that
//     links Foundation and SQLite and does nothing (≤ 1.3×);
//  2. a no-op command round trip through the router and the C ABI, in process (≤ 1 µs median);
//  3. bulk insert of 100,000 rows through the storage service vs the SQLite C API directly, same
//     process (≤ 1.25×).

import CClubhouse
import CSQLite
import ClubhouseFrontEnds
import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func platformBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    func runs(_ part: String) -> Bool { only == nil || only == part }
    if only == "parse" {
        let reply = Array(#"{"data":null}"#.utf8)
        let t0 = Measure.now()
        var count = 0
        for _ in 0..<3_000_000 { if (try? JSONParser.parse(bytes: reply)) != nil { count += 1 } }
        print("parse {\"data\":null}: \(Measure.format((Measure.now() - t0) / 3_000_000)) each (\(count))")
        return
    }
    let dir = Measure.executableDirectory()
    let scratch = "/tmp/clubhouse-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    mkdir(scratch, 0o700)
    var env = ["CLUBHOUSE_DATA_DIR": scratch + "/data", "XDG_CACHE_HOME": scratch + "/cache"]
    env["SWIFT_BACKTRACE"] = "enable=no"

    // 1. Cold start.
    if runs("cold") {
    let samples = quick ? 10 : 61
    // Round-robin, so that the ratio compares runs made under the same load.
    let times = Measure.spawnRounds([
        .init(path: dir + "/clubhouse-baseline", arguments: []),
        .init(path: dir + "/clubhouse", arguments: ["plugins", "list"], environment: env),
        .init(path: dir + "/clubhouse", arguments: ["--version"], environment: env),
    ], rounds: samples)
    let baseline = Measure.median(times[0]), list = Measure.median(times[1]), version = Measure.median(times[2])
    let perRound = Measure.median(zip(times[1], times[0]).map { $0 / $1 })
    print("cold start (median of \(samples) rounds, the three commands taking turns; wall time: `startup` has CPU time)")
    print("  clubhouse-baseline (Foundation + SQLite, does nothing)  \(Measure.format(baseline))")
    print("  clubhouse --version (no plugins)                       \(Measure.format(version))")
    print("  clubhouse plugins list (catalogue cache warm)          \(Measure.format(list))   ratio \(ratio(list, baseline)) (target ≤ 1.2); median of per-round ratios \(String(Double(Int(perRound * 100 + 0.5)) / 100))×")
    Measure.figure("platform.plugins-list.wall-ratio", list / baseline, unit: "x")
    }

    // 2 and 3 run in this process against the embedded default site.
    setenv("CLUBHOUSE_DATA_DIR", scratch + "/data", 1)
    let configuration: SiteConfiguration
    let site: Site
    do {
        configuration = try GlobalOptions().loadConfiguration()
        site = try configuration.site(named: "default")
    } catch {
        print("cannot load the embedded configuration: \(error)")
        exit(1)
    }
    let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: scratch + "/data",
                              log: LogBroker(verbosity: 0, color: false))
    defer { runtime.shutdown() }

    // 2. No-op round trip.
    if runs("noop") {
    print("no-op command round trip, in process (router → C ABI → plugin → reply read), median of 31 × 20,000 calls")
    for (alias, label) in [("notes", "C plugin (notes ping)"), ("greeter", "Swift PluginKit plugin (greeter ping)")] {
        guard runtime.routed(alias, "ping").status == .ok else {
            print("  \(label): unavailable")
            continue
        }
        let calls = quick ? 2000 : 20_000
        let cpu = Measure.threadCPUSeconds(samples: quick ? 5 : 31) {
            RoutedCall(runtime, alias, "ping").repeated(calls)
        }
        let perBatch = Measure.medianSeconds(samples: quick ? 5 : 31) {
            RoutedCall(runtime, alias, "ping").repeated(calls)
        }
        print("  \(label)  cpu \(Measure.format(cpu.median / Double(calls))) (least \(Measure.format(cpu.least / Double(calls)))), wall \(Measure.format(perBatch / Double(calls))) per call (target ≤ 0.5 µs)")
        Measure.figure("platform.noop.\(alias).cpu", cpu.median / Double(calls), unit: "s")
    }
    }
    if arguments.contains("--breakdown") { platformBreakdown(runtime) }
    guard runs("insert") else { return }

    // 3. Bulk insert.
    let rows = 100_000
    let schema = "CREATE TABLE shots(id INTEGER PRIMARY KEY, session INTEGER NOT NULL, club TEXT NOT NULL, carry REAL, speed REAL, spin INTEGER)"
    let insert = "INSERT INTO shots(session, club, carry, speed, spin) VALUES (?, ?, ?, ?, ?)"
    let clubs = ["Driver", "3W", "5i", "7i", "9i", "PW"]
    var serviceTimes: [Double] = []
    var directTimes: [Double] = []
    var direct: OpaquePointer?
    sqlite3_open(scratch + "/direct.sqlite", &direct)
    for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA foreign_keys=ON", "PRAGMA synchronous=NORMAL"] {
        sqlite3_exec(direct, pragma, nil, nil, nil)
    }
    let rounds = quick ? 2 : 7
    for _ in 0..<rounds {
        // Through the storage service, exactly as a C plugin calls it.
        do {
            try runtime.withHostStruct(of: "notes") { host in
                guard let raw = host.pointee.get_service(host, CLUBHOUSE_SERVICE_STORAGE) else { return }
                let s = raw.assumingMemoryBound(to: clubhouse_storage_service.self).pointee
                _ = s.exec(host, "DROP TABLE IF EXISTS shots", nil)
                _ = s.exec(host, schema, nil)
                let t0 = Measure.now()
                _ = s.begin(host, nil)
                var stmt: OpaquePointer?
                _ = s.prepare(host, insert, &stmt, nil)
                for i in 0..<rows {
                    _ = s.bind_int64(stmt, 1, Int64(i / 60))
                    let club = clubs[i % clubs.count]
                    _ = club.withCString { s.bind_text(stmt, 2, $0, club.utf8.count) }
                    _ = s.bind_double(stmt, 3, 150 + Double(i % 97))
                    _ = s.bind_double(stmt, 4, 110 + Double(i % 31) * 0.5)
                    _ = s.bind_int64(stmt, 5, Int64(5000 + i % 1500))
                    _ = s.step(stmt)
                    _ = s.reset(stmt)
                }
                s.finalize(stmt)
                _ = s.commit(host, nil)
                serviceTimes.append(Measure.now() - t0)
            }
        } catch {
            print("storage service unavailable: \(error)")
            break
        }
        // The SQLite C API directly.
        sqlite3_exec(direct, "DROP TABLE IF EXISTS shots", nil, nil, nil)
        sqlite3_exec(direct, schema, nil, nil, nil)
        let t0 = Measure.now()
        sqlite3_exec(direct, "BEGIN IMMEDIATE", nil, nil, nil)
        var stmt: OpaquePointer?
        sqlite3_prepare_v3(direct, insert, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        for i in 0..<rows {
            sqlite3_bind_int64(stmt, 1, Int64(i / 60))
            let club = clubs[i % clubs.count]
            _ = club.withCString { sqlite3_bind_text(stmt, 2, $0, Int32(club.utf8.count), clubhouse_sqlite_transient()) }
            sqlite3_bind_double(stmt, 3, 150 + Double(i % 97))
            sqlite3_bind_double(stmt, 4, 110 + Double(i % 31) * 0.5)
            sqlite3_bind_int64(stmt, 5, Int64(5000 + i % 1500))
            sqlite3_step(stmt)
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        sqlite3_finalize(stmt)
        sqlite3_exec(direct, "COMMIT", nil, nil, nil)
        directTimes.append(Measure.now() - t0)
    }
    sqlite3_close(direct)
    let service = Measure.median(serviceTimes), directMedian = Measure.median(directTimes)
    print("bulk insert of \(rows) rows, one transaction, prepared statement (median of \(rounds))")
    print("  SQLite C API directly      \(Measure.format(directMedian))  (\(Int(Double(rows) / directMedian)) rows/s)")
    print("  through the storage service \(Measure.format(service))  (\(Int(Double(rows) / service)) rows/s)   ratio \(ratio(service, directMedian)) (target ≤ 1.25)")
}

func ratio(_ a: Double, _ b: Double) -> String {
    "\((a / b * 100).rounded() / 100)×"
}

/// Splits the no-op round trip into its parts (diagnostics for optimising the router).
func platformBreakdown(_ runtime: SiteRuntime) {
    let n = 20_000
    let empty = JSONObject()
    let encode = Measure.medianSeconds(samples: 15) { for _ in 0..<n { _ = runtime.encodeRequestForBenchmark(empty) } } / Double(n)
    let reply = Array(#"{"data":null}"#.utf8)
    let parse = Measure.medianSeconds(samples: 15) {
        for _ in 0..<n { _ = SiteRuntime.outcomeForBenchmark(reply) }
    } / Double(n)
    let context = Measure.medianSeconds(samples: 15) {
        for _ in 0..<n { _ = CallContext.makeForBenchmark() }
    } / Double(n)
    let bare = Measure.medianSeconds(samples: 15) {
        for _ in 0..<n { _ = try? JSONParser.parse(bytes: reply) }
    } / Double(n)
    let string = Array(#""data""#.utf8)
    let str = Measure.medianSeconds(samples: 15) {
        for _ in 0..<n { _ = try? JSONParser.parse(bytes: string) }
    } / Double(n)
    let null = Array("null".utf8)
    let nul = Measure.medianSeconds(samples: 15) {
        for _ in 0..<n { _ = try? JSONParser.parse(bytes: null) }
    } / Double(n)
    print("  parser alone: {\"data\":null} \(Measure.format(bare)), \"data\" \(Measure.format(str)), null \(Measure.format(nul))")
    print("  breakdown: encode request \(Measure.format(encode)), parse reply \(Measure.format(parse)), call context \(Measure.format(context))")
}
