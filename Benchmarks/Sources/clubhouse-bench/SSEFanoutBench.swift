// The SSE leaderboard of Benchmarks/http/sse.sh (issue 28: "an SSE leaderboard with 200 subscribers: a
// score entered reaches all of them within 50 ms, p99"). `subscribers` connections listen to
// `GET /api/scorecard/events?topics=score` of a running `serve --http`; then `scores` scores are entered one
// at a time (`POST /api/scorecard/rounds/ROUND/scores`, keep-alive), `interval-ms` apart. For each score:
// the time from sending its POST until its response, and until the last subscriber has its event (every
// subscriber's delivery is kept too). Prints one JSON line; the server's CPU is read by the script.
// Usage: clubhouse-bench sse-fanout --port N --token T [--subscribers 200] [--scores 100] [--interval-ms 50]
//        [--round 1] [--players Ann,Bob] [--holes 9]

import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func sseFanoutBench(_ arguments: [String]) {
    var port = 0, token = "", subscribers = 200, scores = 100, intervalMs = 50, round = 1, holes = 9
    var players = ["Ann", "Bob"]
    var i = 0
    while i + 1 < arguments.count {
        let v = arguments[i + 1]
        switch arguments[i] {
        case "--port": port = Int(v) ?? 0
        case "--token": token = v
        case "--subscribers": subscribers = Int(v) ?? subscribers
        case "--scores": scores = Int(v) ?? scores
        case "--interval-ms": intervalMs = Int(v) ?? intervalMs
        case "--round": round = Int(v) ?? round
        case "--holes": holes = Int(v) ?? holes
        case "--players": players = v.split(separator: ",").map(String.init)
        default: break
        }
        i += 2
    }
    guard port > 0, !token.isEmpty, !players.isEmpty else {
        print("usage: clubhouse-bench sse-fanout --port N --token T [--subscribers 200] [--scores 100] [--interval-ms 50]")
        exit(2)
    }
    func connectTCP() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, rc == 0 else {
            print("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
            exit(1)
        }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
    func sendAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { print("write failed"); exit(1) }
            offset += n
        }
    }
    // The subscribers, each past its response's head.
    var fds: [Int32] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let marker = Array("\nevent: score\n".utf8)
    var pending = [[UInt8]](repeating: [], count: subscribers)
    for k in 0..<subscribers {
        let fd = connectTCP()
        sendAll(fd, "GET /api/scorecard/events?topics=score HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n")
        var head: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { print("subscriber \(k): the stream closed before its head"); exit(1) }
            head += buffer[0..<n]
            if let end = find(Array("\r\n\r\n".utf8), in: head) {
                guard head.starts(with: Array("HTTP/1.1 200".utf8)) else {
                    print("subscriber \(k): \(String(decoding: head.prefix(200), as: UTF8.self))")
                    exit(1)
                }
                pending[k] = Array(head[(end + 4)...])
                break
            }
        }
        fds.append(fd)
    }
    defer { fds.forEach { close($0) } }
    let writer = connectTCP()
    defer { close(writer) }
    var received = [Int](repeating: 0, count: subscribers)
    var deliveries: [Double] = []
    var reachAll: [Double] = []
    var responses: [Double] = []
    var late = 0
    var pfds = (fds + [writer]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var reply: [UInt8] = []
    for s in 1...scores {
        let player = players[(s - 1) % players.count]
        let hole = ((s - 1) / players.count) % holes + 1
        let body = #"{"player": "\#(player)", "hole": \#(hole), "strokes": \#(3 + s % 4)}"#
        let start = Measure.now()
        sendAll(writer, "POST /api/scorecard/rounds/\(round)/scores HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        var reached = 0
        var answered = false
        var last = start
        while (reached < subscribers || !answered) && Measure.now() - start < 5 {
            guard poll(&pfds, nfds_t(pfds.count), 100) > 0 else { continue }
            for k in 0..<pfds.count where pfds[k].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(pfds[k].fd, $0.baseAddress, $0.count) }
                if n <= 0 { print("connection \(k) closed"); exit(1) }
                let now = Measure.now()
                if k == subscribers {
                    reply += buffer[0..<n]
                    // A JSON reply with Content-Length ends with a newline.
                    if let end = find(Array("\r\n\r\n".utf8), in: reply), reply.last == 0x0A, reply.count > end + 4 {
                        if !reply.starts(with: Array("HTTP/1.1 200".utf8)) {
                            print("the score was refused: \(String(decoding: reply.prefix(300), as: UTF8.self))")
                            exit(1)
                        }
                        responses.append(now - start)
                        answered = true
                        reply.removeAll(keepingCapacity: true)
                    }
                    continue
                }
                pending[k] += buffer[0..<n]
                while let at = find(marker, in: pending[k]) {
                    pending[k].removeSubrange(0..<(at + marker.count))
                    received[k] += 1
                    if received[k] == s {
                        deliveries.append(now - start)
                        reached += 1
                        last = now
                    }
                }
            }
        }
        if reached < subscribers { late += subscribers - reached }
        reachAll.append(last - start)
        let rest = Double(intervalMs) / 1000 - (Measure.now() - start)
        if rest > 0 { usleep(UInt32(rest * 1e6)) }
    }
    func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
    }
    let result: JSONValue = [
        "subscribers": .int(subscribers), "scores": .int(scores), "deliveries": .int(deliveries.count), "missing": .int(late),
        "reachAllP50ms": .double(percentile(reachAll, 0.5)), "reachAllP99ms": .double(percentile(reachAll, 0.99)),
        "reachAllMaxms": .double(percentile(reachAll, 1)),
        "deliveryP50ms": .double(percentile(deliveries, 0.5)), "deliveryP99ms": .double(percentile(deliveries, 0.99)),
        "responseP50ms": .double(percentile(responses, 0.5)), "responseP99ms": .double(percentile(responses, 0.99)),
    ]
    print(JSONWriter.compact(result))
}

private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count, let first = needle.first else { return nil }
    var i = 0
    while i + needle.count <= haystack.count {
        if haystack[i] == first && Array(haystack[i..<(i + needle.count)]) == needle { return i }
        i += 1
    }
    return nil
}
