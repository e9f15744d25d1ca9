// Logical devices through "clubhouse.device/1": the site maps a name to a serial port, a socket or
// a simulator; the plugin just reads and writes bytes.

import CClubhouse
import ClubhouseABI

/// Opens devices by the names the site configures.
/// @unchecked Sendable: the host's pointers never change, and the device service may be called from any
/// thread (device.h).
public struct Devices: @unchecked Sendable {
    let host: UnsafePointer<clubhouse_host>
    let table: UnsafePointer<clubhouse_device_service>

    /// Opens the device the site calls `name` (eg: "ballmachine").
    public func open(_ name: String) throws -> Device {
        var handle: OpaquePointer?
        let buffer = ReplyBuffer()
        let status = buffer.withSink { table.pointee.open(host, name, &handle, $0) }
        guard status == Int32(CLUBHOUSE_OK), let handle else {
            throw PluginError(PluginStatus(rawValue: status) ?? .error,
                              buffer.text.isEmpty ? "cannot open device '\(name)'" : buffer.text)
        }
        return Device(name: name, table: table, handle: handle)
    }
}

/// An open byte stream. Closed when released or by `close()`.
public final class Device {
    public let name: String
    let table: UnsafePointer<clubhouse_device_service>
    private var handle: OpaquePointer?

    init(name: String, table: UnsafePointer<clubhouse_device_service>, handle: OpaquePointer) {
        self.name = name
        self.table = table
        self.handle = handle
    }

    deinit { close() }

    private func open() throws -> OpaquePointer {
        guard let handle else { throw PluginError(.io, "device '\(name)' is closed") }
        return handle
    }

    private func error(_ status: Int32, _ handle: OpaquePointer) -> PluginError {
        let message = table.pointee.last_error(handle).map { String(cString: $0) } ?? "device '\(name)' failed"
        return PluginError(PluginStatus(rawValue: status) ?? .io, message)
    }

    /// Writes all bytes.
    public func write(_ bytes: [UInt8]) throws {
        let h = try open()
        let status = bytes.withUnsafeBufferPointer { table.pointee.write(h, $0.baseAddress, $0.count) }
        if status != Int32(CLUBHOUSE_OK) { throw error(status, h) }
    }

    /// Reads up to `maxBytes`, waiting at most `timeoutMilliseconds` for the first byte.
    /// Returns an empty array on timeout.
    public func read(upTo maxBytes: Int, timeoutMilliseconds: Int) throws -> [UInt8] {
        let h = try open()
        var buffer = [UInt8](repeating: 0, count: max(1, maxBytes))
        var length = 0
        let status = buffer.withUnsafeMutableBufferPointer {
            table.pointee.read(h, $0.baseAddress, $0.count, &length, Int32(clamping: timeoutMilliseconds))
        }
        if status == Int32(CLUBHOUSE_TIMEOUT) { return [] }
        if status != Int32(CLUBHOUSE_OK) { throw error(status, h) }
        return Array(buffer[0..<min(length, buffer.count)])
    }

    /// Tells the host how to put the device in its safe state (device.h `set_safe_state`): the
    /// `frame` that does it (eg: a ball machine's stop command) and the `acknowledgement` the device
    /// answers. When the device is not in it and the call that opened it is gone (it returned,
    /// was cancelled and did not stop it within 5 s, its runner died, the host is quitting), the
    /// host writes the frame itself and reports whether the device acknowledged. Returns false on
    /// a host older than ABI 1.3 (which never does that).
    @discardableResult
    public func setSafeState(frame: [UInt8], acknowledgement: [UInt8], timeoutMilliseconds: Int = 2000) throws -> Bool {
        let h = try open()
        guard let set = hasMember(\.set_safe_state) ? table.pointee.set_safe_state : nil else { return false }
        let status = frame.withUnsafeBufferPointer { f in
            acknowledgement.withUnsafeBufferPointer { a in
                set(h, f.baseAddress, f.count, a.baseAddress, a.count, Int32(clamping: timeoutMilliseconds))
            }
        }
        if status != Int32(CLUBHOUSE_OK) { throw error(status, h) }
        return true
    }

    /// How the site reaches the device, eg: "simulator:ballmachine", "tcp:127.0.0.1:9000" (nil on a
    /// host older than ABI 1.3).
    public var address: String? {
        guard let h = handle, hasMember(\.address), let text = table.pointee.address?(h) else { return nil }
        return String(cString: text)
    }

    /// Whether the device is the host's built-in simulator (a demo may run it on a simulated clock).
    public var isSimulator: Bool { address?.hasPrefix("simulator:") ?? false }

    /// Whether the host's table has `member` (struct_size covers it).
    private func hasMember<T>(_ member: KeyPath<clubhouse_device_service, T>) -> Bool {
        guard let offset = MemoryLayout<clubhouse_device_service>.offset(of: member) else { return false }
        return Int(table.pointee.struct_size) >= offset + MemoryLayout<T>.size
    }

    public func close() {
        if let h = handle {
            table.pointee.close(h)
            handle = nil
        }
    }
}
