// Timing helpers shared by the benchmark areas: monotonic clock, medians, process spawning.

#if canImport(Glibc)
import Glibc
#endif

enum Measure {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Seconds for `body`, `samples` times; returns the median.
    static func medianSeconds(samples: Int, warmup: Int = 1, _ body: () -> Void) -> Double {
        for _ in 0..<warmup { body() }
        var times: [Double] = []
        for _ in 0..<samples {
            let t0 = now()
            body()
            times.append(now() - t0)
        }
        return median(times)
    }

    /// The calling thread's CPU time for `body` (CLOCK_THREAD_CPUTIME_ID: not the time it waited for
    /// a core on a shared machine), `samples` times; the median and the least.
    static func threadCPUSeconds(samples: Int, warmup: Int = 1, _ body: () -> Void) -> (median: Double, least: Double) {
        func cpu() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        for _ in 0..<warmup { body() }
        var times: [Double] = []
        for _ in 0..<samples {
            let t0 = cpu()
            body()
            times.append(cpu() - t0)
        }
        return (median(times), times.min() ?? .nan)
    }

    /// Wall time of running a program to completion (stdout/stderr to /dev/null), median of `samples`.
    /// A command to start as a process: executable, arguments, extra environment.
    struct Spawn {
        var path: String
        var arguments: [String]
        var environment: [String: String] = [:]
    }

    /// Runs a program to completion (output to /dev/null) and returns its exit status (-1: not started).
    @discardableResult
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) -> Int32 {
        let (walls, _) = spawnRoundsWithCPU([Spawn(path: path, arguments: arguments, environment: environment)], rounds: 1,
                                            warmups: 0, statuses: true)
        return walls.first?.first.map { Int32($0) } ?? -1
    }

    /// The first `name` on the PATH that is executable.
    static func which(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// A figure for Benchmarks/run.sh, which prints it beside the last recorded one
    /// (Benchmarks/figures.tsv): `@figure KEY VALUE UNIT`.
    static func figure(_ key: String, _ value: Double, unit: String) {
        print("@figure \(key) \(value) \(unit)")
    }

    static func spawnMedian(_ path: String, _ arguments: [String], environment: [String: String] = [:], samples: Int) -> Double {
        median(spawnRounds([Spawn(path: path, arguments: arguments, environment: environment)], rounds: samples)[0])
    }

    /// Wall times of `rounds` runs of each command, taken round-robin (one of each per round) so
    /// that a change in the machine's load hits every command alike; two warm-up rounds first.
    /// Output goes to /dev/null. Returns one array of seconds per command (NaN if one cannot start).
    static func spawnRounds(_ commands: [Spawn], rounds: Int) -> [[Double]] {
        spawnRoundsWithCPU(commands, rounds: rounds).wall
    }

    /// `spawnRounds` with each run's CPU time too (user + system of the child, from wait4): what the
    /// machine's other load disturbs least. `before`: a shell command run (untimed) before each run
    /// of a command that is not the first (eg: removing a cache). With `statuses`, the "wall" of
    /// each run is its exit status instead.
    static func spawnRoundsWithCPU(_ commands: [Spawn], rounds: Int, warmups: Int = 2, before: String? = nil,
                                   statuses: Bool = false) -> (wall: [[Double]], cpu: [[Double]]) {
        var inherited: [String] = []
        var current = environ
        while let entry = current.pointee {
            inherited.append(String(cString: entry))
            current += 1
        }
        let prepared = commands.map { c -> (argv: [UnsafeMutablePointer<CChar>?], envp: [UnsafeMutablePointer<CChar>?]) in
            let envp = (inherited + c.environment.map { "\($0.key)=\($0.value)" }).map { strdup($0) } + [nil]
            let argv = ([c.path] + c.arguments).map { strdup($0) } + [nil]
            return (argv, envp)
        }
        defer {
            for p in prepared {
                p.argv.forEach { free($0) }
                p.envp.forEach { free($0) }
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var times = Array(repeating: [Double](), count: commands.count)
        var cpus = Array(repeating: [Double](), count: commands.count)
        for round in 0..<(rounds + warmups) {
            for (k, command) in commands.enumerated() {
                if let before, k > 0 { _ = system(before) }
                var pid: pid_t = 0
                let t0 = now()
                var a = prepared[k].argv, e = prepared[k].envp
                guard posix_spawn(&pid, command.path, &actions, nil, &a, &e) == 0 else {
                    return (commands.map { _ in [statuses ? -1 : .nan] }, commands.map { _ in [.nan] })
                }
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                let elapsed = now() - t0
                let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                if round >= warmups {
                    times[k].append(statuses ? Double((status >> 8) & 0xff) : elapsed)
                    cpus[k].append(cpu)
                }
            }
        }
        return (times, cpus)
    }

    static func format(_ seconds: Double) -> String {
        if seconds < 1e-6 { return "\(round(seconds * 1e11) / 100) ns" }
        if seconds < 1e-3 { return "\(round(seconds * 1e8) / 100) µs" }
        if seconds < 1 { return "\(round(seconds * 1e5) / 100) ms" }
        return "\(round(seconds * 1000) / 1000) s"
    }

    static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }
}
