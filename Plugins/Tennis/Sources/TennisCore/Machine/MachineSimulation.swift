// The machine's side of protocol v0.3, for the ball-machine simulator (the `clubhouse-ballmachine`
// program, Plugins/Tennis/Sources/clubhouse-ballmachine) and its tests: bytes in, replies out, no I/O.
// It reads frames with the plugin's own decoder (BallMachineProtocol.swift), so the simulator and the
// plugin share one implementation of the frames and their check byte.
//   Bad frames are rejected (reply code 0); good ones accepted (1), then completed (2). Bytes before a
//   `5A A5` header are skipped and counted.

/// How the simulated machine behaves.
public struct SimulationOptions: Sendable, Equatable {
    public var checksum: Checksum
    /// Probability (0…1) of rejecting a valid frame, as a jammed machine would.
    public var rejectRate: Double
    /// Delay before each reply, in milliseconds (the program's; the simulation itself does no I/O).
    public var latencyMilliseconds: Int
    /// Seed of the deterministic rejection sequence.
    public var seed: UInt64

    public init(checksum: Checksum = .xor, rejectRate: Double = 0, latencyMilliseconds: Int = 0, seed: UInt64 = 0x5EED) {
        self.checksum = checksum
        self.rejectRate = rejectRate
        self.latencyMilliseconds = latencyMilliseconds
        self.seed = seed
    }
}

/// A ball machine that speaks protocol v0.3 exactly.
public struct MachineSimulation: Sendable {
    public enum Event: Sendable, Equatable {
        /// A command frame: its six fields (UW LW PITCH YAW FEED CTRL), and why it was rejected (nil: accepted).
        case command(fields: [UInt8], accepted: Bool, reason: String?)
        /// Bytes skipped before a frame header.
        case garbage(count: Int)
    }

    public let options: SimulationOptions
    private var pending: [UInt8] = []
    private var random: UInt64

    public init(options: SimulationOptions = SimulationOptions()) {
        self.options = options
        random = options.seed | 1
    }

    /// The reply frame with `code`, in the machine's checksum.
    public func reply(_ code: ReplyCode) -> [UInt8] { ReplyFrame(code: code).encode(checksum: options.checksum).array }

    private mutating func nextRandom() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random >> 11) / Double(1 << 53)
    }

    /// Feeds received bytes; returns what happened and the replies to send, in order. Bytes of a frame
    /// not yet complete are kept for the next call.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [(event: Event, replies: [[UInt8]])] {
        pending.append(contentsOf: bytes)
        var results: [(event: Event, replies: [[UInt8]])] = []
        while !pending.isEmpty {
            // Resynchronise on the 5A A5 header, dropping anything before it.
            var start = 0
            while start < pending.count {
                if pending[start] == 0x5A && (start + 1 == pending.count || pending[start + 1] == 0xA5) { break }
                start += 1
            }
            if start > 0 {
                results.append((.garbage(count: start), []))
                pending.removeFirst(start)
                continue
            }
            guard pending.count >= CommandFrame.length else { break }
            let frame = Array(pending[0..<CommandFrame.length])
            pending.removeFirst(CommandFrame.length)
            let fields = Array(frame[3..<9])
            var reason: String?
            do {
                _ = try CommandFrame.decode(frame, checksum: options.checksum)
                if options.rejectRate > 0 && nextRandom() < options.rejectRate {
                    reason = "jammed (simulated reject rate \(options.rejectRate))"
                }
            } catch {
                reason = error.description
            }
            if let reason {
                results.append((.command(fields: fields, accepted: false, reason: reason), [reply(.rejected)]))
            } else {
                results.append((.command(fields: fields, accepted: true, reason: nil), [reply(.accepted), reply(.completed)]))
            }
        }
        return results
    }

    /// One line for a report: "UW=40 LW=40 pitch=10 yaw=0 feed=50 ctrl=1 → accepted, completed".
    public static func describe(_ event: Event) -> String {
        switch event {
        case .garbage(let count):
            return "skipped \(count) byte(s) before a frame header"
        case .command(let fields, let accepted, let reason):
            let text = "UW=\(fields[0]) LW=\(fields[1]) pitch=\(fields[2]) yaw=\(fields[3]) feed=\(fields[4]) ctrl=\(fields[5])"
            return "received \(text) → \(accepted ? "accepted, completed" : "rejected: \(reason ?? "")")"
        }
    }
}
