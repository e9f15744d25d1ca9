// PluginLanes' turns inside one lane (issue 27's restarting-serve benchmark): a client's quick calls
// may run back to back (a burst), at most `burstCalls` of them, so another client waits for at most
// one burst; a long call ends its client's turn, so clients with long calls alternate call by call;
// a client's held replies are let go (`release`) before another client's call starts and when the
// lane empties. Driven with a real worker pool and calls that record the order they ran in.

@testable import ClubhouseFrontEnds
@testable import ClubhouseHost
import Dispatch
import Foundation
import XCTest

final class PluginLanesTests: XCTestCase {
    /// What ran, in order: "c1" a call of client 1 started, "r1" client 1's replies let go.
    final class Log: @unchecked Sendable {
        // Safe: every access holds `lock`.
        private let lock = NSLock()
        private var entries: [String] = []
        func add(_ entry: String) { lock.lock(); entries.append(entry); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
    }

    private let lane = "greeter"

    /// Holds the lane with a call of client 0 until `release` is signalled; returns that signal.
    private func occupy(_ lanes: PluginLanes) -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let context = CallContext(flags: 0, progress: SilentProgress(), alias: lane)
        guard case .now = lanes.admit(lane: lane, alias: lane, serialized: true, client: 0, context: context,
                                      start: {}, refuse: { _ in }) else {
            XCTFail("a free lane runs a call at once")
            return gate
        }
        Thread.detachNewThread { [lanes, lane] in
            gate.wait()
            lanes.finished(lane: lane)
        }
        return gate
    }

    /// Queues `count` calls of `client` behind the running one; each takes `microseconds`.
    private func queue(_ lanes: PluginLanes, client: Int, count: Int, microseconds: UInt32, log: Log, done: DispatchGroup) {
        for _ in 0..<count {
            done.enter()
            let context = CallContext(flags: 0, progress: SilentProgress(), alias: lane)
            let admission = lanes.admit(lane: lane, alias: lane, serialized: true, client: client, context: context,
                                        start: {
                                            log.add("c\(client)")
                                            if microseconds > 0 { usleep(microseconds) }
                                            done.leave()
                                        },
                                        refuse: { _ in
                                            log.add("refused")
                                            done.leave()
                                        },
                                        release: { log.add("r\(client)") })
            guard case .waiting = admission else { return XCTFail("a busy lane keeps the call waiting: \(admission)") }
        }
    }

    func testAClientsQuickCallsRunInShortBurstsAndOthersGetTheirTurn() {
        let lanes = PluginLanes(pool: WorkerPool(maxThreads: 4))
        let log = Log()
        let done = DispatchGroup()
        let gate = occupy(lanes)
        queue(lanes, client: 1, count: 40, microseconds: 0, log: log, done: done)
        queue(lanes, client: 2, count: 40, microseconds: 0, log: log, done: done)
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "every queued call ran")
        let calls = log.all.filter { $0.hasPrefix("c") || $0 == "refused" }
        XCTAssertEqual(calls.filter { $0 == "c1" }.count, 40)
        XCTAssertEqual(calls.filter { $0 == "c2" }.count, 40)
        // At most one burst of client 1 before client 2's first call, and no burst longer than that.
        XCTAssertLessThanOrEqual(calls.firstIndex(of: "c2") ?? 99, PluginLanes.burstCalls, "\(calls)")
        var run = 0, longest = 0
        for (i, call) in calls.enumerated() {
            run = i > 0 && calls[i - 1] == call ? run + 1 : 1
            longest = max(longest, run)
        }
        XCTAssertLessThanOrEqual(longest, PluginLanes.burstCalls, "\(calls)")
        assertReleasedBeforeOthers(log)
    }

    func testALongCallEndsItsClientsTurn() {
        let lanes = PluginLanes(pool: WorkerPool(maxThreads: 4))
        let log = Log()
        let done = DispatchGroup()
        let gate = occupy(lanes)
        // Each call outlasts a burst's time: the two clients alternate call by call.
        let long = UInt32(PluginLanes.burstNanoseconds / 1000) * 3
        queue(lanes, client: 1, count: 4, microseconds: long, log: log, done: done)
        queue(lanes, client: 2, count: 4, microseconds: long, log: log, done: done)
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "every queued call ran")
        XCTAssertEqual(log.all.filter { $0.hasPrefix("c") }, ["c1", "c2", "c1", "c2", "c1", "c2", "c1", "c2"])
        assertReleasedBeforeOthers(log)
    }

    /// Between a call of one client and the next call of another, the first client's replies were let
    /// go; after the last call, too (a moment after it ended: the worker lets them go after the call).
    private func assertReleasedBeforeOthers(_ log: Log, file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<2000 where log.all.last?.hasPrefix("r") != true { usleep(1000) }
        let entries = log.all
        var pending: String?
        for entry in entries {
            if entry.hasPrefix("r"), pending == "c" + entry.dropFirst() { pending = nil }
            guard entry.hasPrefix("c") else { continue }
            if let pending, pending != entry { XCTFail("\(entry) started before \(pending)'s replies were let go: \(entries)", file: file, line: line) }
            pending = entry
        }
        XCTAssertNil(pending, "the last client's replies were never let go: \(entries)", file: file, line: line)
    }
}
