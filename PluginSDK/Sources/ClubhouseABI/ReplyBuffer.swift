// A `clubhouse_reply` sink that collects what the callee writes. Both sides of the ABI use it:
// the host to receive a plugin's reply, a plugin to receive a service's reply.

import CClubhouse

public final class ReplyBuffer {
    public var bytes: [UInt8] = []
    /// The most the buffer keeps (the host's bound on a reply it holds); what a callee writes past
    /// it is dropped and `overflowed` says so.
    public var limit = Int.max
    /// A write would have grown the reply past `limit` (the bytes kept are the start of the reply).
    public private(set) var overflowed = false

    public init() {}

    /// Appends what a callee wrote, within the limit.
    @usableFromInline
    func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard !overflowed else { return }
        guard chunk.count <= limit - bytes.count else {
            overflowed = true
            return
        }
        bytes.append(contentsOf: chunk)
    }

    /// Runs `body` with a sink that appends to this buffer; the sink is valid only inside `body`.
    @inlinable
    public func withSink<R>(_ body: (UnsafePointer<clubhouse_reply>) throws -> R) rethrows -> R {
        var sink = clubhouse_reply(
            struct_size: UInt32(MemoryLayout<clubhouse_reply>.size),
            caller_data: Unmanaged.passUnretained(self).toOpaque(),
            write: replyBufferWrite)
        return try withUnsafePointer(to: &sink) { try body($0) }
    }

    /// The collected bytes as UTF-8 text (invalid sequences repaired).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        overflowed = false
    }
}

/// The sink's write function: appends to the ReplyBuffer in `caller_data`.
@usableFromInline
let replyBufferWrite: @convention(c) (UnsafePointer<clubhouse_reply>?, UnsafePointer<CChar>?, Int) -> Void = { reply, bytes, length in
    guard let reply, let data = reply.pointee.caller_data, let bytes, length > 0 else { return }
    let buffer = Unmanaged<ReplyBuffer>.fromOpaque(data).takeUnretainedValue()
    bytes.withMemoryRebound(to: UInt8.self, capacity: length) { p in
        buffer.append(UnsafeBufferPointer(start: p, count: length))
    }
}

extension UnsafePointer where Pointee == clubhouse_reply {
    /// Writes UTF-8 text to the sink.
    public func write(_ text: String) {
        guard let write = pointee.write else { return }
        var text = text
        text.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                write(self, chars.baseAddress, chars.count)
            }
        }
    }

    /// Writes bytes to the sink.
    public func write(bytes: [UInt8]) {
        guard let write = pointee.write else { return }
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                write(self, chars.baseAddress, chars.count)
            }
        }
    }
}
