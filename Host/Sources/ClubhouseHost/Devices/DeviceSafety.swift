// The device watchdog (issue 30). A plugin that drives a machine registers the frame that puts it
// in its safe state and the reply that acknowledges it (device.h `set_safe_state`: a ball machine's
// stop command and "accepted"). The host remembers, per device, whether the last frame written to it
// was that frame; when a device is not safe and the call that opened it is gone, the host writes the
// frame itself and waits for the acknowledgement:
//   - the call returned (an error included) and left the device running (`callEnded`);
//   - the call was cancelled and the device was still not safe `CallContext.cleanupGraceMilliseconds`
//     later (`watch`: the plugin ignores the cancel or is stuck);
//   - the device is closed while running: by the plugin, because its runner died, or because the
//     host quits (`DeviceConnection.close`);
//   - a front end asks: a second Ctrl-C, SIGTERM, a server stopping (`secureAll`).
// A connection that dropped is replaced by a new one to the same device, tried for up to 5 s. Every
// outcome is logged: a warning when the device acknowledged, an error naming it when it did not.

import ClubhouseABI
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

/// What puts a device in its safe state.
struct SafeState: Sendable, Equatable {
    var frame: [UInt8]
    var acknowledgement: [UInt8]
    var timeoutMilliseconds: Int32
}

/// The safe states the plugins registered and whether each device is in it, by device name (one
/// machine, whatever connections reach it: a stop written on a new connection makes it safe). A
/// device is safe when nothing was written to it yet, or when the last frame written was the safe
/// state's and the device's acknowledgement was read after it (a refused stop leaves it unsafe).
/// @unchecked Sendable: every entry is read and written under `lock`.
final class DeviceSafetyBook: @unchecked Sendable {
    /// What the book says of one device (kept by a writer to put back with `restore`).
    struct Entry {
        var state: SafeState
        var safe: Bool
        /// Bytes read since the safe-state frame was written, while its acknowledgement is awaited.
        var awaiting: [UInt8]?
    }

    private let lock = Lock()
    private var entries: [String: Entry] = [:]

    /// A device's safe state; it keeps being unsafe when it was (another connection left it running).
    func register(_ name: String, _ state: SafeState, safe: Bool) {
        lock.withLock { entries[name] = Entry(state: state, safe: safe && (entries[name]?.safe ?? true), awaiting: nil) }
    }

    /// A write the plugin is making: the safe-state frame starts awaiting its acknowledgement; anything
    /// else makes the device unsafe. Told before the bytes go out (a host securing its devices meanwhile
    /// must not find safe a device whose start is already on its way); answers what the book said before,
    /// for `restore` when the write fails.
    func noteWrite(_ name: String, _ bytes: [UInt8]) -> Entry? {
        lock.withLock {
            guard var entry = entries[name] else { return nil }
            let before = entry
            entry.safe = false
            entry.awaiting = bytes == entry.state.frame ? [] : nil
            entries[name] = entry
            return before
        }
    }

    /// Puts back what the book said before a write that failed (`noteWrite`'s answer).
    func restore(_ name: String, _ before: Entry) {
        lock.withLock { if entries[name] != nil { entries[name] = before } }
    }

    /// Bytes the plugin read: the acknowledgement after the safe-state frame makes the device safe.
    func noteRead(_ name: String, _ bytes: UnsafeRawBufferPointer) {
        lock.withLock {
            guard var entry = entries[name], var awaiting = entry.awaiting else { return }
            awaiting += bytes
            if DeviceSafetyBook.contains(awaiting, entry.state.acknowledgement) {
                entry.safe = true
                entry.awaiting = nil
            } else {
                entry.awaiting = Array(awaiting.suffix(4096))
            }
            entries[name] = entry
        }
    }

    /// The safe state of a device that is not in it (nil: safe, or none registered).
    func unsafeState(of name: String) -> SafeState? {
        lock.withLock { entries[name].flatMap { $0.safe ? nil : $0.state } }
    }

    func markSafe(_ name: String) {
        lock.withLock {
            entries[name]?.safe = true
            entries[name]?.awaiting = nil
        }
    }

    /// How a safe-state exchange ended.
    enum Outcome: Equatable {
        case acknowledged
        /// The device is reachable but did not acknowledge (no answer, or another one).
        case unacknowledged(String)
        /// The connection failed (a new one may reach the device).
        case connectionFailed(String)

        var failure: String? {
            switch self {
            case .acknowledged: return nil
            case .unacknowledged(let why), .connectionFailed(let why): return why
            }
        }
    }

    /// Writes the frame on `fd` (non-blocking) and reads until the acknowledgement arrives. Bytes
    /// that were waiting before the frame went out do not count.
    static func exchange(_ fd: Int32, _ state: SafeState) -> Outcome {
        var scratch = [UInt8](repeating: 0, count: 256)
        while true {
            let (n, error) = scratch.withUnsafeMutableBytes { Transport.read(fd, into: $0, timeoutMilliseconds: 0) }
            if let error { return .connectionFailed("the connection failed: \(error)") }
            if n <= 0 { break }
        }
        if let error = Descriptor.writeAll(fd, state.frame, timeoutMilliseconds: 2000) {
            return .connectionFailed("writing the safe-state frame failed: \(error)")
        }
        var received: [UInt8] = []
        let deadline = Subprocess.monotonicMilliseconds() + Int64(state.timeoutMilliseconds)
        while true {
            let remaining = deadline - Subprocess.monotonicMilliseconds()
            if remaining <= 0 {
                return .unacknowledged(received.isEmpty ? "no answer within \(state.timeoutMilliseconds) ms"
                    : "no acknowledgement within \(state.timeoutMilliseconds) ms (it answered \(hexString(Array(received.prefix(32)))))")
            }
            let (n, error) = scratch.withUnsafeMutableBytes {
                Transport.read(fd, into: $0, timeoutMilliseconds: Int32(clamping: remaining))
            }
            if let error { return .connectionFailed("reading the answer failed: \(error)") }
            if n > 0 {
                received += scratch[0..<n]
                if contains(received, state.acknowledgement) { return .acknowledged }
            }
        }
    }

    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty, bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
    }
}

extension DeviceBroker {
    /// How long the host keeps trying a device whose connection dropped.
    static let reconnectWindowMilliseconds = 5_000

    /// A connection opened during `call`: when the call is cancelled and the device is still not
    /// safe after the grace for cleaning up, the host takes it over and stops it. The stop runs on the
    /// watchdog's scheduler thread (`scheduler`, known to run since `open`): stops go one at a time
    /// anyway (`securing`). Should the grace not be armed, the device is stopped at once instead.
    func watch(_ connection: DeviceConnection, openedBy call: CallContext,
               graceMilliseconds grace: Int = CallContext.cleanupGraceMilliseconds) {
        connection.openedBy = call.id
        let id = call.id
        call.outermost.whenCancelled { [weak self, weak connection] in
            guard let broker = self, let watched = connection else { return }
            do throws(ThreadStartError) {
                try broker.scheduler.schedule(after: grace) { [weak broker, weak watched] in
                    guard let broker, let watched, watched.openedBy == id, watched.isOpen else { return }
                    broker.secure(watched, because: "its call was cancelled \(grace / 1000) s earlier and had not stopped it",
                                  takeOver: true)
                }
            } catch {
                // The fail-safe: a stop now rather than maybe never.
                guard watched.openedBy == id, watched.isOpen else { return }
                broker.secure(watched, because: "its call was cancelled and the host could not wait \(grace / 1000) s for it: \(error)",
                              takeOver: true)
            }
        }
    }

    /// The end of a call: a device it opened and left running is stopped (it stays open).
    func callEnded(_ call: CallContext, command: String) {
        // Every call ends here: one with no device open anywhere copies nothing.
        guard hasOpenConnections else { return }
        for connection in openConnections where connection.openedBy == call.id {
            connection.openedBy = nil
            if connection.isOpen && safety.unsafeState(of: connection.name) != nil {
                secure(connection, because: "'\(command)' ended without stopping it", takeOver: false)
            }
        }
    }

    /// Stops every device that is not in its safe state, taking it from the calls still running
    /// (a second Ctrl-C, SIGTERM, a server stopping). True when every one acknowledged.
    @discardableResult
    public func secureAll(because reason: String) -> Bool {
        var allStopped = true
        for connection in openConnections where connection.isOpen && safety.unsafeState(of: connection.name) != nil {
            if !secure(connection, because: reason, takeOver: true) { allStopped = false }
        }
        return allStopped
    }

    /// Puts the device of `connection` in its safe state unless it is in it: the frame on this
    /// connection, or on new ones when it dropped (for up to `reconnectWindowMilliseconds`), then
    /// the acknowledgement. `takeOver`: the call still running loses the connection. Logged either way.
    @discardableResult
    func secure(_ connection: DeviceConnection, because reason: String, takeOver: Bool) -> Bool {
        securing.lock()
        defer { securing.unlock() }
        guard let state = safety.unsafeState(of: connection.name) else { return true }
        let name = connection.name
        if takeOver { connection.takeOver(.cancelled, "the host is stopping device '\(name)' (\(reason))") }
        let outcome = connection.exchange(state)
        var why = outcome.failure
        var via = connection.address
        // A connection that dropped: new ones, until the device is back or the window is over.
        if case .connectionFailed(let first) = outcome, let device = site.devices[name] {
            let deadline = Subprocess.monotonicMilliseconds() + Int64(DeviceBroker.reconnectWindowMilliseconds)
            var latest = first
            repeat {
                do throws(TransportError) {
                    let (fd, address) = try openTransport(device)
                    via = address
                    let again = DeviceSafetyBook.exchange(fd, state)
                    Glibc.close(fd)
                    if again == .acknowledged { why = nil } else { latest = again.failure ?? latest }
                    if case .unacknowledged = again { break }
                } catch {
                    latest = error.message
                }
                if why == nil { break }
                usleep(200_000)
            } while Subprocess.monotonicMilliseconds() < deadline
            if why != nil { why = "\(first); a new connection for up to \(DeviceBroker.reconnectWindowMilliseconds / 1000) s: \(latest)" }
        }
        if let why {
            if takeOver { connection.takeOver(.io, "the host could not stop device '\(name)' (\(reason)): \(why)") }
            log.error("device '\(name)' (\(via)) MAY STILL BE RUNNING: '\(connection.owner)' left it running (\(reason)) and the host could not stop it: \(why); stop it at the device")
            return false
        }
        safety.markSafe(name)
        if takeOver {
            connection.takeOver(.cancelled, "the host stopped device '\(name)' (\(reason)) and the device acknowledged; this connection takes no more frames")
        }
        log.warning("device '\(name)' (\(via)) was left running by '\(connection.owner)' (\(reason)): the host sent its safe-state frame and the device acknowledged it")
        return true
    }
}
