// Isolation and serve benchmarks (issue 8), release build:
//  - an isolated call round trip (host → runner → plugin → reply), median (≤ 50 µs);
//  - restart after a crash: the extra time of the first call after a runner died (≤ 20 ms);
//  - `serve` throughput over a Unix socket from one local client pipelining small requests
//    (≥ 20,000 requests/s).

import ClubhouseFrontEnds
import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func isolationBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let dir = Measure.executableDirectory()
    let scratch = "/tmp/clubhouse-isolation-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    let config = """
        {"sites": {"bench": {"plugins": {
          "notes": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "process"},
          "greeter": {"path": "\(dir)/libGreeterPlugin.so", "isolation": "process"},
          "faulty": {"path": "\(dir)/libFaultyPlugin.so", "isolation": "process"}
        }},
        "inproc": {"plugins": {
          "inproc": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "in-process"}
        }}}}
        """
    guard let (configPath, configuration) = Measure.scratchConfiguration("isolation", scratch: scratch, config: config) else { return }
    guard let site = configuration.sites["bench"] else { return }
    let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: scratch + "/data",
                              log: LogBroker(verbosity: 0, color: false))
    defer { runtime.shutdown() }

    print("isolated call round trip (host → runner over pipes → plugin → reply), median of 21 × 2,000 calls")
    if let floor = pipeRoundTripFloor(calls: quick ? 200 : 2000, samples: quick ? 5 : 21) {
        print("  floor: 1 byte to a child process and back over two pipes (/bin/cat)  \(Measure.format(floor)) per round trip")
    }
    for alias in ["notes", "greeter"] {
        guard runtime.routed(alias, "ping").status == .ok else {
            print("  \(alias): unavailable")
            continue
        }
        let calls = quick ? 200 : 2000
        let batch = Measure.medianSeconds(samples: quick ? 5 : 21) {
            let call = RoutedCall(runtime, alias, "ping")
            for _ in 0..<calls { _ = call() }
        }
        print("  \(alias) ping  \(Measure.format(batch / Double(calls))) per call (target ≤ 50 µs)")
    }

    // Restart: a call right after the runner crashed pays for a new runner and a new instance.
    _ = runtime.routed("faulty", "ok")
    var normal: [Double] = []
    var afterCrash: [Double] = []
    for _ in 0..<(quick ? 5 : 25) {
        var t0 = Measure.now()
        _ = runtime.routed("faulty", "ok")
        normal.append(Measure.now() - t0)
        _ = runtime.routed("faulty", "fatal")
        t0 = Measure.now()
        let outcome = runtime.routed("faulty", "ok")
        afterCrash.append(Measure.now() - t0)
        if outcome.status != .ok { print("  restart failed: \(outcome.message)") }
    }
    let restart = Measure.median(afterCrash) - Measure.median(normal)
    print("restart after a crash (median of \(afterCrash.count)): first call after the crash \(Measure.format(Measure.median(afterCrash))), normal call \(Measure.format(Measure.median(normal))), restart \(Measure.format(restart)) (target ≤ 20 ms)")

    // serve over a Unix socket.
    let socketPath = scratch + "/rpc.sock"
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = ([dir + "/clubhouse", "--config", configPath, "--site", "inproc",
                                                 "--data-dir", scratch + "/serve-data", "serve", "--socket", socketPath] as [String])
        .map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var a = argv
    guard posix_spawn(&pid, dir + "/clubhouse", &actions, nil, &a, environ) == 0 else { return }
    posix_spawn_file_actions_destroy(&actions)
    defer {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let pathBytes = Array(socketPath.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: pathBytes)
        raw[pathBytes.count] = 0
    }
    var connected = false
    for _ in 0..<500 {
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc == 0 { connected = true; break }
        usleep(10_000)
    }
    guard connected else {
        print("serve: could not connect")
        return
    }
    defer { close(fd) }
    func roundOfRequests(_ n: Int) -> Double {
        var payload: [UInt8] = []
        for i in 0..<n {
            payload += Array(#"{"jsonrpc":"2.0","id":\#(i),"method":"clubhouse.call","params":{"plugin":"inproc","command":"ping"}}"#.utf8)
            payload.append(0x0A)
        }
        let t0 = Measure.now()
        // Write from a helper thread while this one reads, so neither side's buffer fills up.
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
    _ = roundOfRequests(2000)
    var rates: [Double] = []
    for _ in 0..<(quick ? 3 : 7) { rates.append(roundOfRequests(quick ? 5000 : 20_000)) }
    print("serve over a Unix socket, one client pipelining no-op calls (median of \(rates.count) rounds): \(Int(Measure.median(rates))) requests/s (target ≥ 20,000)")
}

/// A POSIX thread that writes a buffer to a descriptor.
final class WriterThread {
    let fd: Int32
    let bytes: [UInt8]
    var thread = pthread_t()

    init(fd: Int32, bytes: [UInt8]) {
        self.fd = fd
        self.bytes = bytes
    }

    func start() {
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let w = Unmanaged<WriterThread>.fromOpaque(raw).takeRetainedValue()
            var offset = 0
            while offset < w.bytes.count {
                let n = w.bytes.withUnsafeBytes { write(w.fd, $0.baseAddress! + offset, w.bytes.count - offset) }
                if n <= 0 { break }
                offset += n
            }
            return nil
        }, me)
    }

    func join() { pthread_join(thread, nil) }
}

/// The machine's floor for an isolated call: one byte to a child (`cat`) and back over two pipes.
/// Two wake-ups across processes, which on a virtual machine can cost far more than the work.
func pipeRoundTripFloor(calls: Int, samples: Int) -> Double? {
    var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
    guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, "/bin/cat", &actions, nil, &argv, environ) == 0 else { return nil }
    close(toChild[0])
    close(fromChild[1])
    defer {
        close(toChild[1])
        close(fromChild[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
    var byte: UInt8 = 120
    var ok = true
    let batch = Measure.medianSeconds(samples: samples) {
        for _ in 0..<calls where ok {
            ok = write(toChild[1], &byte, 1) == 1 && read(fromChild[0], &byte, 1) == 1
        }
    }
    return ok ? batch / Double(calls) : nil
}
