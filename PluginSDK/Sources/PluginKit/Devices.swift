// Logical devices through "clubhouse.device/1": the site maps a name to a serial port, a socket or
// a simulator; the plugin just reads and writes bytes.

import CClubhouse
import ClubhouseABI

/// Opens devices by the names the site configures.
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

    public func close() {
        if let h = handle {
            table.pointee.close(h)
            handle = nil
        }
    }
}
