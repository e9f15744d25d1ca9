// The JSON-RPC side of Benchmarks/http/run.sh: `clients` connections to `serve --socket`, each with one
// request in flight (as wrk's keep-alive clients each have one), for `seconds`; prints one JSON line with
// the requests, the rate and the latency percentiles. The server's CPU is read by the script from /proc.
// Usage: clubhouse-bench rpc-load --socket PATH --request JSON [--clients 50] [--seconds 10]

import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func rpcLoadBench(_ arguments: [String]) {
    var socketPath = "", request = "", clients = 50, seconds = 10.0
    var i = 0
    while i + 1 < arguments.count {
        switch arguments[i] {
        case "--socket": socketPath = arguments[i + 1]
        case "--request": request = arguments[i + 1]
        case "--clients": clients = Int(arguments[i + 1]) ?? clients
        case "--seconds": seconds = Double(arguments[i + 1]) ?? seconds
        default: break
        }
        i += 2
    }
    guard !socketPath.isEmpty, !request.isEmpty else {
        print("usage: clubhouse-bench rpc-load --socket PATH --request JSON [--clients 50] [--seconds 10]")
        exit(2)
    }
    let line = Array(request.utf8) + [0x0A]
    var fds: [Int32] = []
    for _ in 0..<clients {
        guard let fd = serveConnect(socketPath) else {
            print("cannot connect to \(socketPath)")
            exit(1)
        }
        fds.append(fd)
    }
    defer { fds.forEach { close($0) } }
    var sentAt = [Double](repeating: 0, count: clients)
    var partial = [[UInt8]](repeating: [], count: clients)
    var latencies: [Double] = []
    latencies.reserveCapacity(1 << 20)
    func send(_ k: Int) {
        sentAt[k] = Measure.now()
        _ = line.withUnsafeBytes { write(fds[k], $0.baseAddress, $0.count) }
    }
    let errorMark = Array(#""error":"#.utf8)
    let start = Measure.now()
    for k in 0..<clients { send(k) }
    var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var errors = 0
    while Measure.now() - start < seconds {
        guard poll(&pfds, nfds_t(pfds.count), 1000) > 0 else { continue }
        for k in 0..<clients where pfds[k].revents != 0 {
            let n = buffer.withUnsafeMutableBytes { read(fds[k], $0.baseAddress, $0.count) }
            if n <= 0 { print("connection \(k) closed"); exit(1) }
            partial[k] += buffer[0..<n]
            // One request in flight: a newline ends its reply.
            if partial[k].last == 0x0A {
                latencies.append(Measure.now() - sentAt[k])
                let head = partial[k].prefix(48)
                if head.count >= errorMark.count,
                   (0...(head.count - errorMark.count)).contains(where: { Array(head[$0..<($0 + errorMark.count)]) == errorMark }) {
                    errors += 1
                }
                partial[k].removeAll(keepingCapacity: true)
                send(k)
            }
        }
    }
    let elapsed = Measure.now() - start
    latencies.sort()
    func percentile(_ p: Double) -> Double {
        latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000
    }
    let result: JSONValue = ["requests": .int(latencies.count), "seconds": .double(elapsed),
                             "requestsPerSecond": .double(Double(latencies.count) / elapsed),
                             "p50ms": .double(percentile(0.5)), "p99ms": .double(percentile(0.99)), "errors": .int(errors)]
    print(JSONWriter.compact(result))
}
