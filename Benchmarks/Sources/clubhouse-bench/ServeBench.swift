// `serve` transport benchmark (issue 13), release build:
//  - one client pipelining no-op calls (in-process NotesC `ping`) over a Unix socket (≥ 100k/s);
//  - 50 clients at once, each keeping 16 calls in flight (≥ 50k/s in total).
// Usage: clubhouse-bench serve [--quick] [--restarting [--restart-every MS]] [--binary PATH …]  (each
// binary is measured in turn, interleaved round by round, e.g. today's clubhouse beside the one before
// the issue).
// --restarting (issue 27): the calls go to a sandboxed NotesC instead, while another client keeps
// crashing a sandboxed FaultyPlugin (`fatal`), so a runner is restarting all the time: as fast as the
// server answers the crashing calls, or with --restart-every MS at most one crashing call every MS
// milliseconds (the same work for every binary, however promptly each serves the crashing client).

import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// Connects to a Unix socket, retrying while the server starts (5 s); nil when it never answers.
func serveConnect(_ path: String) -> Int32? {
    for _ in 0..<500 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc == 0 { return fd }
        close(fd)
        usleep(10_000)
    }
    return nil
}

nonisolated(unsafe) private var pingLine: [UInt8] = pingRequest("inproc")

private func pingRequest(_ alias: String, command: String = "ping") -> [UInt8] {
    Array(#"{"jsonrpc":"2.0","id":1,"method":"clubhouse.call","params":{"plugin":"\#(alias)","command":"\#(command)"}}"#.utf8) + [0x0A]
}

/// Calls `crash fatal` on `path` again and again (each call starts a new sandboxed runner) until
/// `stop` is set, one call at a time and, with `every` > 0, at most one every `every` seconds; counts
/// the restarts (answers that say the runner crashed: each one started a runner) and how long each
/// call took to be answered. A host that spaces a crash loop's restarts (CrashLoop.swift) makes the
/// call wait; any other answer (none expected) is counted apart, so a quick refusal is never taken
/// for a restart.
/// @unchecked Sendable: the counters are read and written under `lock`; `every` never changes.
private final class Restarter: @unchecked Sendable {
    private let lock = Lock()
    private var generation = 0
    private var count = 0
    private var others = 0
    private var latencies: [Double] = []
    private var busySeconds = 0.0
    let every: Double
    init(every: Double) { self.every = every }
    var restarts: Int { lock.withLock { count } }
    /// Answers that did not report a crash.
    var otherAnswers: Int { lock.withLock { others } }
    /// Median seconds from a crashing call's request to its answer.
    var medianLatency: Double { lock.withLock { Measure.median(latencies) } }
    /// Seconds from `start` to `stop`, over all rounds (the calls counted are those answered in them).
    var seconds: Double { lock.withLock { busySeconds } }
    private var startedAt = 0.0

    func start(_ path: String) {
        let mine = lock.withLock { () -> Int in
            generation += 1
            startedAt = Measure.now()
            return generation
        }
        Thread.detach { [self] in
            guard let fd = serveConnect(path) else { return }
            defer { close(fd) }
            let line = pingRequest("crash", command: "fatal")
            var buffer = [UInt8](repeating: 0, count: 4096)
            var next = Measure.now()
            while lock.withLock({ generation == mine }) {
                if every > 0 {
                    let now = Measure.now()
                    if now < next { usleep(useconds_t((next - now) * 1e6)) }
                    next = max(next + every, Measure.now())
                }
                let sent = Measure.now()
                _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                var got = 0
                while got == 0 || buffer[got - 1] != 0x0A {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
                    if n <= 0 { return }
                    got = min(got + n, buffer.count - 1)
                }
                let latency = Measure.now() - sent
                let crashed = String(decoding: buffer[0..<got], as: UTF8.self).contains("crashed")
                lock.withLock {
                    guard generation == mine else { return }
                    if crashed { count += 1 } else { others += 1 }
                    latencies.append(latency)
                }
            }
        }
    }

    func stop() {
        lock.withLock {
            generation += 1
            busySeconds += Measure.now() - startedAt
        }
    }
}

/// One client writing `n` requests from a helper thread while reading the replies: requests/s.
private func pipelined(_ path: String, _ n: Int) -> Double {
    guard let fd = serveConnect(path) else { return 0 }
    defer { close(fd) }
    var payload: [UInt8] = []
    payload.reserveCapacity(n * pingLine.count)
    for _ in 0..<n { payload += pingLine }
    let t0 = Measure.now()
    let writer = WriterThread(fd: fd, bytes: payload)
    writer.start()
    var lines = 0
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while lines < n {
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        for b in buffer[0..<got] where b == 0x0A { lines += 1 }
    }
    writer.join()
    return Double(lines) / (Measure.now() - t0)
}

/// `clients` connections driven from one thread with poll, each keeping `window` requests in
/// flight until it has had `perClient` replies: total requests/s.
private func concurrent(_ path: String, clients: Int, perClient: Int, window: Int) -> Double {
    var fds: [Int32] = []
    for _ in 0..<clients {
        guard let fd = serveConnect(path) else { break }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        fds.append(fd)
    }
    defer { fds.forEach { close($0) } }
    guard fds.count == clients else { return 0 }
    var sent = [Int](repeating: 0, count: clients)
    var received = [Int](repeating: 0, count: clients)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let windowBytes = [UInt8]((0..<window).flatMap { _ in pingLine })
    let t0 = Measure.now()
    // Each client writes its whole window at once, then one request per reply.
    for (i, fd) in fds.enumerated() {
        let n = windowBytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        sent[i] = n == windowBytes.count ? window : 0
    }
    var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var done = 0
    while done < clients {
        guard poll(&pfds, nfds_t(pfds.count), 10_000) > 0 else { break }
        for i in 0..<clients where pfds[i].revents != 0 {
            let got = buffer.withUnsafeMutableBytes { read(fds[i], $0.baseAddress, $0.count) }
            if got <= 0 { continue }
            var replies = 0
            for b in buffer[0..<got] where b == 0x0A { replies += 1 }
            received[i] += replies
            if received[i] >= perClient {
                if pfds[i].fd >= 0 { done += 1 }
                pfds[i].fd = -1
                continue
            }
            let more = min(replies, perClient - sent[i])
            if more > 0 {
                let bytes = [UInt8]((0..<more).flatMap { _ in pingLine })
                _ = bytes.withUnsafeBytes { write(fds[i], $0.baseAddress, $0.count) }
                sent[i] += more
            }
        }
    }
    return Double(received.reduce(0, +)) / (Measure.now() - t0)
}

/// User + system CPU seconds of process `pid` so far (/proc/PID/stat), 0 when unreadable; with
/// `children`, those of its children it has waited for instead (the runners that ended).
private func processCPUSeconds(_ pid: pid_t, children: Bool = false) -> Double {
    guard let file = fopen("/proc/\(pid)/stat", "re") else { return 0 }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 1024)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return 0 }
    let text = String(cString: buffer)
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    let at = children ? 13 : 11
    guard fields.count > at + 1, let user = Double(fields[at]), let system = Double(fields[at + 1]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func serveBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let dir = Measure.executableDirectory()
    var binaries: [String] = []
    var i = 0
    while i < arguments.count {
        if arguments[i] == "--binary", i + 1 < arguments.count { binaries.append(arguments[i + 1]); i += 2; continue }
        i += 1
    }
    if binaries.isEmpty { binaries = [dir + "/clubhouse"] }
    let scratch = "/tmp/clubhouse-serve-bench-\(getpid())"
    mkdir(scratch, 0o700)
    defer { _ = system("rm -rf '\(scratch)'") }
    let restarting = arguments.contains("--restarting")
    if restarting { pingLine = pingRequest("boxed") }
    // A site runs an id once: NotesC is either in process or sandboxed.
    let config = restarting ? """
        {"sites": {"bench": {"plugins": {
          "boxed": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "sandbox"},
          "crash": {"path": "\(dir)/libFaultyPlugin.so", "grants": ["storage"], "isolation": "sandbox"}
        }}}}
        """ : """
        {"sites": {"bench": {"plugins": {
          "inproc": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "in-process"}
        }}}}
        """
    let configPath = scratch + "/plugins.json"
    guard let file = fopen(configPath, "w") else { return }
    fputs(config, file)
    fclose(file)

    var pids: [pid_t] = []
    var sockets: [String] = []
    for (index, binary) in binaries.enumerated() {
        let socketPath = scratch + "/rpc\(index).sock"
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary, "--config", configPath, "--site", "bench",
                                                     "--data-dir", scratch + "/data\(index)", "serve", "--socket", socketPath] as [String])
            .map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var a = argv
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, &a, environ) == 0 else {
            print("serve: cannot start \(binary)")
            return
        }
        posix_spawn_file_actions_destroy(&actions)
        pids.append(pid)
        sockets.append(socketPath)
    }
    defer {
        for pid in pids {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
    // --busy N: N processes spinning on the CPU the whole time (the machine's other work, on a
    // 2-core box: the target holds "under two busy background cores").
    let busy = arguments.firstIndex(of: "--busy").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 0
    var spinners: [pid_t] = []
    for _ in 0..<busy {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = (["/bin/sh", "-c", "while :; do :; done"] as [String]).map { strdup($0) } + [nil]
        var a = argv
        if posix_spawn(&pid, "/bin/sh", nil, nil, &a, environ) == 0 { spinners.append(pid) }
        argv.forEach { free($0) }
    }
    defer {
        for pid in spinners {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
    let rounds = quick ? 3 : 7
    var one = [[Double]](repeating: [], count: binaries.count)
    var fifty = [[Double]](repeating: [], count: binaries.count)
    for (b, path) in sockets.enumerated() {
        // The calls must succeed (an error reply is quicker than an answer and would be counted).
        if let fd = serveConnect(path) {
            _ = pingLine.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var reply = [UInt8](repeating: 0, count: 4096)
            let n = reply.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            let text = String(decoding: reply[0..<max(0, n)], as: UTF8.self)
            close(fd)
            if !text.contains("\"result\"") {
                print("serve \(binaries[b]): the call fails: \(text)")
                return
            }
        }
        _ = pipelined(path, 2000)
        _ = concurrent(path, clients: 50, perClient: 100, window: 16)
        _ = b
    }
    let every = arguments.firstIndex(of: "--restart-every").flatMap { $0 + 1 < arguments.count ? Double(arguments[$0 + 1]) : nil } ?? 0
    let restarters = sockets.map { _ in Restarter(every: every / 1000) }
    var cpu = [[Double]](repeating: [], count: binaries.count)
    var runnersCPU = [[Double]](repeating: [], count: binaries.count)
    for _ in 0..<rounds {
        for (b, path) in sockets.enumerated() {
            if restarting { restarters[b].start(path) }
            let cpu0 = processCPUSeconds(pids[b])
            let runners0 = processCPUSeconds(pids[b], children: true)
            one[b].append(pipelined(path, quick ? 10_000 : 50_000) )
            fifty[b].append(concurrent(path, clients: 50, perClient: quick ? 400 : 2000, window: 16))
            cpu[b].append(processCPUSeconds(pids[b]) - cpu0)
            runnersCPU[b].append(processCPUSeconds(pids[b], children: true) - runners0)
            if restarting { restarters[b].stop() }
        }
    }
    for (b, binary) in binaries.enumerated() {
        let r = restarters[b]
        let pace = every > 0 ? ", at most one every \(Int(every)) ms" : ""
        let what = restarting
            ? "a sandboxed plugin's ping while runners restart (\(r.restarts) restarts\(pace)\(r.otherAnswers > 0 ? " and \(r.otherAnswers) other answers to the crashing client" : ""), \(String(format: "%.1f", Double(r.restarts) / max(r.seconds, 1e-9)))/s, a crashing call answered in \(String(format: "%.1f", r.medianLatency * 1000)) ms median)"
            : "ping"
        print("serve \(binary) (median of \(rounds) rounds\(busy > 0 ? ", \(busy) busy background processes" : "")), \(what): one client pipelining \(Int(Measure.median(one[b]))) requests/s (target ≥ 100,000); 50 clients × 16 in flight \(Int(Measure.median(fifty[b]))) requests/s (target ≥ 50,000); server CPU per round \(String(format: "%.2f", Measure.median(cpu[b]))) s\(restarting ? String(format: " (the runners that ended: %.2f s)", Measure.median(runnersCPU[b])) : "")")
        if b == 0 {
            let key = (restarting ? ".restarting" : "") + (busy > 0 ? ".busy\(busy)" : "")
            Measure.figure("serve.pipelined\(key)", Measure.median(one[b]), unit: "req/s")
            Measure.figure("serve.fifty-clients\(key)", Measure.median(fifty[b]), unit: "req/s")
        }
    }
}
