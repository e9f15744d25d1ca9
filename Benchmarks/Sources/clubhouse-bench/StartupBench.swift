// Start-up of the command line (issue 33), release build, as processes: CPU time (user + system of
// the child, from wait4) beside wall time, medians of rounds in which the commands take turns, so a
// change in the machine's load hits all of them alike.
//   clubhouse plugins list         vs clubhouse-baseline (a Swift program linking Foundation and
//                                     SQLite that opens a database and does nothing): target ≤ 1.2×
//   clubhouse scorecard player list vs the sqlite3 tool running the query the plugin runs, on the
//                                     same file: target ≤ 3×
// on the scorecard's demo data and on a seeded club (Benchmarks/store/seed.sh: 200 players, 2,001
// rounds, 66,654 score entries). The catalogue cache is warm (one `plugins list` first), as it is
// for a user from the second command on; `--cold-cache` removes it before every run of clubhouse.
// Usage: clubhouse-bench startup [--rounds N] [--quick] [--cold-cache] [--no-seeded]

import ScorecardCore
#if canImport(Glibc)
import Glibc
#endif

func startupBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let rounds = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? (quick ? 7 : 31)
    let dir = Measure.executableDirectory()
    let scratch = "/tmp/clubhouse-startup-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    mkdir(scratch, 0o700)
    guard let sqlite3 = Measure.which("sqlite3") else {
        print("startup bench: the sqlite3 tool is needed (apt-get install sqlite3)")
        return
    }
    let clubhouse = dir + "/clubhouse"
    var sets: [(label: String, data: String)] = []
    let demo = scratch + "/demo"
    guard Measure.run(clubhouse, ["--data-dir", demo, "-q", "scorecard", "demo", "--out", scratch + "/demo-out"]) == 0 else {
        print("startup bench: the scorecard demo failed")
        return
    }
    sets.append(("demo data", demo))
    if !arguments.contains("--no-seeded") && !quick {
        let seeded = scratch + "/seeded"
        if Measure.run("/bin/sh", ["Benchmarks/store/seed.sh", clubhouse, seeded]) == 0 {
            sets.append(("seeded club", seeded))
        } else {
            print("startup bench: Benchmarks/store/seed.sh failed (run from the repository root); the seeded club is left out")
        }
    }
    let coldCache = arguments.contains("--cold-cache")
    print("command-line start-up (median of \(rounds) rounds, commands taking turns; CPU = user + system of the process)\(coldCache ? ", catalogue cache removed before each run" : "")")
    for (label, data) in sets {
        let database = data + "/default/org.clubhouse.scorecard.sqlite"
        var environment = ["CLUBHOUSE_DATA_DIR": data, "SWIFT_BACKTRACE": "enable=no"]
        environment["XDG_CACHE_HOME"] = scratch + "/cache"
        // The catalogue cache warm (the first command after a build or an install describes the plugins).
        _ = Measure.run(clubhouse, ["plugins", "list"], environment: environment)
        _ = Measure.run(clubhouse, ["scorecard", "player", "list"], environment: environment)
        let before = coldCache ? "rm -rf '\(data)/catalogues'" : nil
        let commands: [Measure.Spawn] = [
            .init(path: dir + "/clubhouse-baseline", arguments: [database]),
            .init(path: clubhouse, arguments: ["plugins", "list"], environment: environment),
            .init(path: clubhouse, arguments: ["--version"], environment: environment),
            .init(path: clubhouse, arguments: ["scorecard", "player", "list"], environment: environment),
            .init(path: sqlite3, arguments: ["-batch", "-readonly", database, ScorecardSchema.Statement.selectPlayerSummaries]),
        ]
        let (walls, cpus) = Measure.spawnRoundsWithCPU(commands, rounds: rounds, before: before)
        let wall = walls.map(Measure.median), cpu = cpus.map(Measure.median)
        func row(_ i: Int, _ name: String) -> String {
            "  \(name.padding(toLength: 46, withPad: " ", startingAt: 0)) cpu \(Measure.format(cpu[i]).padding(toLength: 10, withPad: " ", startingAt: 0)) wall \(Measure.format(wall[i]))"
        }
        print("\(label) (\(database))")
        print(row(0, "clubhouse-baseline (Foundation + SQLite)"))
        print(row(1, "clubhouse plugins list") + "   cpu ratio \(ratio(cpu[1], cpu[0])) (target ≤ 1.2), wall \(ratio(wall[1], wall[0]))")
        print(row(2, "clubhouse --version"))
        print(row(3, "clubhouse scorecard player list") + "   cpu ratio \(ratio(cpu[3], cpu[4])) (target ≤ 3), wall \(ratio(wall[3], wall[4]))")
        print(row(4, "sqlite3, the same query on the same file"))
        let key = label.replacingOccurrences(of: " ", with: "-")
        Measure.figure("startup.\(key).plugins-list.cpu-ratio", cpu[1] / cpu[0], unit: "x")
        Measure.figure("startup.\(key).plugins-list.cpu", cpu[1], unit: "s")
        Measure.figure("startup.\(key).player-list.cpu-ratio", cpu[3] / cpu[4], unit: "x")
        Measure.figure("startup.\(key).player-list.cpu", cpu[3], unit: "s")
    }
}
