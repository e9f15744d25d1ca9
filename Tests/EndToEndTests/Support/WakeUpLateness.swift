// How late the machine wakes a sleeping thread up, measured in the same run as a latency under test:
// the reference that lets a test hold the product to its own bound on a loaded machine without
// letting it off when the product breaks it.
//
// A thread sleeps 2 ms at a time and keeps every wake-up that came more than 1 ms late. A path such as
// Ctrl-C → the host's signal thread → the plugin's wait → the simulator's socket → its report line
// is a chain of such wake-ups, each of which the machine can delay as much as it delays this one.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: `late` and `running` are read and written under `lock`.
final class WakeUpLateness: @unchecked Sendable {
    private static let napNanoseconds: UInt64 = 2_000_000
    private let lock = NSLock()
    /// Wake-ups more than 1 ms late: when the thread woke (CLOCK_MONOTONIC ns) and by how much.
    private var late: [(woke: UInt64, by: UInt64)] = []
    private var running = true

    init() {
        let thread = Thread { [self] in self.measure() }
        thread.name = "WakeUpLateness"
        thread.start()
    }

    private func measure() {
        while lock.withLock({ running }) {
            let asleep = monotonicNanoseconds()
            usleep(useconds_t(WakeUpLateness.napNanoseconds / 1000))
            let woke = monotonicNanoseconds()
            let by = woke &- asleep &- WakeUpLateness.napNanoseconds
            guard woke > asleep + WakeUpLateness.napNanoseconds + 1_000_000 else { continue }
            lock.withLock {
                late.append((woke, by))
                // Keep two minutes: the longest wait a test asks about.
                if late.count > 4096, let first = late.first, woke - first.woke > 120_000_000_000 {
                    late.removeAll { woke - $0.woke > 120_000_000_000 }
                }
            }
        }
    }

    /// The latest wake-up (ns) of any sleep that overlapped `from...to` (0: none came more than 1 ms late).
    func worst(from: UInt64, to: UInt64) -> UInt64 {
        lock.withLock {
            late.filter { $0.woke >= from && $0.woke &- $0.by &- WakeUpLateness.napNanoseconds <= to }.map(\.by).max() ?? 0
        }
    }

    /// The latest wake-up (ns) so far.
    var worstSoFar: UInt64 { lock.withLock { late.map(\.by).max() ?? 0 } }

    func stop() { lock.withLock { running = false } }
}
