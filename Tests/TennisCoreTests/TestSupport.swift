import Foundation
import XCTest
@testable import TennisCore

/// The repository root (3 levels up from this file) and the shared data beside it.
enum TestPaths {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func peersData(_ name: String) -> URL {
        repoRoot.appendingPathComponent("../shared/peers/data/\(name)").standardizedFileURL
    }
}

/// A clock that only moves when told to (reads that wait, sleeps).
final class ManualClock: SessionClock {
    var time: Double

    init(_ start: Double = 100) { time = start }

    func now() -> Double { time }
    func sleep(seconds: Double) { if seconds > 0 { time += seconds } }
}

/// An in-memory ball machine speaking protocol v0.3, with scripted misbehaviour per command.
final class FakeBallMachine: BallMachineLink {
    enum Behaviour {
        /// accepted after `latency`, then completed.
        case normal
        case acceptOnly
        case completeOnly
        case reject
        case silent
        /// A reply with a wrong check byte, then a normal answer.
        case corruptFirst
        /// Garbage bytes, then a normal answer.
        case garbageFirst
        /// The raw bytes given, as the whole answer.
        case raw([UInt8])
    }

    let checksum: Checksum
    let clock: ManualClock
    var latency: Double
    /// Behaviour for the n-th command received (0-based); commands past the end behave `.normal`.
    var script: [Behaviour]
    /// Largest chunk one read returns (to exercise partial reads).
    var chunk: Int
    var failWrites = false
    private(set) var received: [[UInt8]] = []
    private(set) var decoded: [CommandFrame] = []
    private var outbox: [UInt8] = []
    /// Bytes that become readable only after some delay: (time available, bytes).
    private var scheduled: [(Double, [UInt8])] = []

    init(checksum: Checksum = .xor, clock: ManualClock, latency: Double = 0.004, script: [Behaviour] = [], chunk: Int = 64) {
        self.checksum = checksum
        self.clock = clock
        self.latency = latency
        self.script = script
        self.chunk = chunk
    }

    var receivedHex: [String] { received.map { Format.hex($0) } }

    func write(_ bytes: [UInt8]) throws {
        if failWrites { throw POSIXError(.EPIPE) }
        received.append(bytes)
        let n = received.count - 1
        guard let frame = try? CommandFrame.decode(bytes, checksum: checksum) else {
            schedule(reply(.rejected), after: latency)
            return
        }
        decoded.append(frame)
        switch n < script.count ? script[n] : .normal {
        case .normal:
            schedule(reply(.accepted), after: latency)
            if frame.start { schedule(reply(.completed), after: 2 * latency) }
        case .acceptOnly:
            schedule(reply(.accepted), after: latency)
        case .completeOnly:
            schedule(reply(.completed), after: latency)
        case .reject:
            schedule(reply(.rejected), after: latency)
        case .silent:
            break
        case .corruptFirst:
            var bad = reply(.accepted)
            bad[4] ^= 0xFF
            schedule(bad, after: latency / 2)
            schedule(reply(.accepted), after: latency)
            if frame.start { schedule(reply(.completed), after: 2 * latency) }
        case .garbageFirst:
            schedule([0x00, 0x5A, 0x13, 0xA5], after: latency / 2)
            schedule(reply(.accepted), after: latency)
            if frame.start { schedule(reply(.completed), after: 2 * latency) }
        case .raw(let bytes):
            schedule(bytes, after: latency)
        }
    }

    func reply(_ code: ReplyCode) -> [UInt8] { ReplyFrame(code: code).encode(checksum: checksum).array }

    private func schedule(_ bytes: [UInt8], after delay: Double) {
        scheduled.append((clock.now() + delay, bytes))
        scheduled.sort { $0.0 < $1.0 }
    }

    func read(max: Int, timeout: Double) throws -> [UInt8] {
        if outbox.isEmpty {
            guard let next = scheduled.first else {
                clock.sleep(seconds: timeout)
                return []
            }
            let wait = next.0 - clock.now()
            if wait > timeout {
                clock.sleep(seconds: timeout)
                return []
            }
            clock.sleep(seconds: wait)
            while let first = scheduled.first, first.0 <= clock.now() {
                outbox += first.1
                scheduled.removeFirst()
            }
        }
        let n = min(max, chunk, outbox.count)
        let out = Array(outbox.prefix(n))
        outbox.removeFirst(n)
        return out
    }

    /// Makes bytes readable at once (a late reply from an earlier command, line noise).
    func inject(_ bytes: [UInt8]) { outbox += bytes }
}

extension XCTestCase {
    /// Asserts that `body` throws an error whose description contains every fragment.
    func assertThrows<T>(_ body: @autoclosure () throws -> T, _ fragments: String..., file: StaticString = #filePath,
                         line: UInt = #line)
    {
        do {
            _ = try body()
            XCTFail("expected an error containing \(fragments)", file: file, line: line)
        } catch {
            let text = "\(error)"
            for f in fragments { XCTAssertTrue(text.contains(f), "«\(text)» does not contain «\(f)»", file: file, line: line) }
        }
    }
}
