// Benchmarks for the tennis area: bulk image → court projection, homography estimation from the
// 8 calibration pairs, and protocol v0.3 frame encode + decode. Prints one JSON object.
// Usage: clubhouse-bench tennis [--points N] [--repeat R] [--frames N] [--round-trips N] [--write-pairs PATH]
// The simulator round trip runs the tennis plugin's simulator program (clubhouse-ballmachine) on a socket
// pair, as the host attaches a `simulator:ballmachine` device, and TennisCore's CommandExchange against
// it (write a command → its accepted reply), as a session does.
// Benchmarks/tennis/run.sh runs it beside the OpenCV peer and writes Benchmarks/tennis/RESULTS.md.

#if canImport(Glibc)
import Glibc
#endif
import ClubhouseFrontEnds
import ClubhouseHost
import ClubhousePlatform
import Dispatch
import TennisCore

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

private func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

private func option(_ arguments: [String], _ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

func tennisBench(_ arguments: [String]) {
    let points = option(arguments, "--points").flatMap(Int.init) ?? 1_000_000
    let repeats = max(1, option(arguments, "--repeat").flatMap(Int.init) ?? 15)
    let frames = option(arguments, "--frames").flatMap(Int.init) ?? 10_000_000
    let calibration: CameraCalibration
    do {
        calibration = try CameraCalibration.calibrate(TennisDemo.taps(), camera: "bench")
    } catch {
        print("tennis bench: demo calibration failed: \(error)")
        exit(1)
    }
    // The 8 calibration pairs, in the peer's input format, so both estimate from the same data.
    if let path = option(arguments, "--write-pairs") {
        let items = calibration.pairs.map { "{\"image\": [\($0.image.x), \($0.image.y)], \"court\": [\($0.court.x), \($0.court.y)]}" }
        let text = "{\"pairs\": [\n  " + items.joined(separator: ",\n  ") + "\n]}\n"
        guard let file = fopen(path, "w") else {
            print("tennis bench: cannot write \(path)")
            exit(1)
        }
        fputs(text, file)
        fclose(file)
    }

    // 1. Bulk projection of uniformly random image points (1920×1080), single thread.
    var generator = SplitMix64(seed: 0)
    var source = [Double](repeating: 0, count: 2 * points)
    for i in 0..<points {
        source[2 * i] = Double(generator.next() >> 11) / Double(1 << 53) * 1920
        source[2 * i + 1] = Double(generator.next() >> 11) / Double(1 << 53) * 1080
    }
    var destination = [Double](repeating: 0, count: 2 * points)
    let h = calibration.homography
    var projectSeconds: [Double] = []
    var sink = 0.0
    for _ in 0..<repeats {
        let t0 = monotonicSeconds()
        source.withUnsafeBufferPointer { src in destination.withUnsafeMutableBufferPointer { h.project(src, into: $0) } }
        projectSeconds.append(monotonicSeconds() - t0)
        sink += destination[points]
    }

    // 2. Estimating H from the 8 pairs (normalized DLT, SVD), 1000 estimates per sample.
    var estimateSeconds: [Double] = []
    let pairs = calibration.pairs
    for _ in 0..<repeats {
        let t0 = monotonicSeconds()
        for _ in 0..<1000 {
            if let e = try? HomographyEstimator.estimate(pairs) { sink += e.homography.entries[0] }
        }
        estimateSeconds.append((monotonicSeconds() - t0) / 1000)
    }

    // 3. Frame encode + decode over the whole default table, both check bytes.
    let settings = CommandTable.formula().entries.map(\.settings)
    var frameRates: [String: Double] = [:]
    for checksum in Checksum.allCases {
        var seconds: [Double] = []
        for _ in 0..<max(3, repeats / 3) {
            var acc: UInt64 = 0
            let t0 = monotonicSeconds()
            var k = 0
            for i in 0..<frames {
                let frame = CommandFrame(settings: settings[k], start: i & 1 == 0)
                k += 1
                if k == settings.count { k = 0 }
                let bytes = frame.encode(checksum: checksum)
                if let decoded = try? CommandFrame.decode(bytes, checksum: checksum) {
                    acc &+= UInt64(decoded.settings.upperWheel) &+ UInt64(bytes[9])
                }
            }
            seconds.append(monotonicSeconds() - t0)
            sink += Double(acc)
        }
        frameRates[checksum.rawValue] = Double(frames) / median(seconds) / 1e6
    }

    // 4. Simulator round trip over loopback TCP.
    let roundTrips = option(arguments, "--round-trips").flatMap(Int.init) ?? 2000
    let latencies = simulatorRoundTrips(roundTrips)

    let projectMedian = median(projectSeconds), projectBest = projectSeconds.min() ?? 0
    print("""
    {
     "points": \(points),
     "repeats": \(repeats),
     "project_median_ms": \(projectMedian * 1e3),
     "project_best_ms": \(projectBest * 1e3),
     "project_median_Mpts_per_s": \(Double(points) / projectMedian / 1e6),
     "project_best_Mpts_per_s": \(Double(points) / projectBest / 1e6),
     "estimate_8_pairs_median_us": \(median(estimateSeconds) * 1e6),
     "estimate_8_pairs_best_us": \((estimateSeconds.min() ?? 0) * 1e6),
     "frames": \(frames),
     "frame_encode_decode_xor_M_per_s": \(frameRates["xor"] ?? 0),
     "frame_encode_decode_modbus_M_per_s": \(frameRates["modbus"] ?? 0),
     "simulator_round_trips": \(latencies.count),
     "simulator_round_trip_median_us": \(median(latencies) * 1e6),
     "simulator_round_trip_p90_us": \((latencies.sorted().dropFirst(latencies.count * 9 / 10).first ?? 0) * 1e6),
     "sink": \(sink.isFinite ? 1 : 0)
    }
    """)
}

struct SocketError: Error { let what: String }

/// A TCP connection as a ball machine link (the tennis benchmarks share it).
final class SocketLink: BallMachineLink {
    let fd: Int32

    init(fd: Int32) { self.fd = fd }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in raw.baseAddress.map { Glibc.write(fd, $0 + offset, raw.count - offset) } ?? -1 }
            if n <= 0 { throw SocketError(what: "write failed") }
            offset += n
        }
    }

    func read(max: Int, timeout: Double) throws -> [UInt8] {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32((timeout * 1000).rounded(.up))) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: max)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { throw SocketError(what: "connection closed") }
        return Array(buffer[0..<n])
    }
}

private final class RealClock: SessionClock {
    func now() -> Double { monotonicSeconds() }
    func sleep(seconds: Double) {}
}

/// Seconds from writing each command to its `accepted` reply, against the simulator program on a socket pair.
private func simulatorRoundTrips(_ count: Int) -> [Double] {
    guard count > 0 else { return [] }
    // The simulator program on a socket pair, as the host attaches a `simulator:ballmachine` device.
    guard let fd = try? DeviceSimulator.attach(kind: "ballmachine", arguments: ["--checksum", "xor"], name: "bench", report: nil) else {
        print("tennis bench: the simulator \(DeviceSimulator.program("ballmachine")) did not start; no round-trip figures")
        return []
    }
    defer { close(fd) }
    let clock = RealClock()
    let exchange = CommandExchange(link: SocketLink(fd: fd), clock: clock, checksum: .xor, policy: ExchangePolicy(maxAttempts: 1))
    let recorder = EventRecorder(clock: clock)
    let settings = CommandTable.formula().entries.map(\.settings)
    var latencies: [Double] = []
    for i in 0..<(count + 50) {
        guard let result = try? exchange.send(CommandFrame(settings: settings[i % settings.count]), recorder: recorder),
              result.outcome == .completed, let latency = result.replyLatency
        else { continue }
        if i >= 50 { latencies.append(latency) } // the first ones warm the connection up
    }
    return latencies
}
