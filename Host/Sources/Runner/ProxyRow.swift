// The row a step brought, as a runner keeps it for the plugin: each column's type and number, and the
// bytes of every text and blob column in one buffer, each followed by a NUL. column_text and
// column_blob answer pointers into that buffer, which the next row overwrites: storage.h promises a
// column's pointer only "until the next step, reset or finalize of that statement", and the buffer is
// the statement's until its finalize. Reading a row's text copies nothing (before, each text column the
// plugin read was copied into a PinnedCString of its own, and decoded into an array of its own before
// that: ≈ 200 ns a row of `notes list`). A number read as text is converted once by SQLite
// (ValueConverter) and kept beside the row, as SQLite keeps a value's text.

import ClubhousePlatform
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

/// Not Sendable: a statement's row, used by the thread that runs its call.
final class ProxyRow {
    struct Column {
        var type: StorageValueType
        var int: Int64 = 0
        var double: Double = 0
        /// Where the column's bytes start in `bytes` (text and blobs), and how many there are (the NUL after them not counted).
        var offset = 0
        var count = 0
    }

    private(set) var columns: [Column] = []
    /// The row's text and blobs, each followed by a NUL; grows to the largest row's, freed with the row.
    private var bytes: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The text of number columns the plugin read as text (by column), until the next row.
    private var converted: [Int: PinnedCString] = [:]

    deinit { bytes?.deallocate() }

    var count: Int { columns.count }

    /// Forgets the row (a step that answered no row, a reset). The buffer stays for the next row.
    func clear() {
        columns.removeAll(keepingCapacity: true)
        if !converted.isEmpty { converted.removeAll() }
    }

    /// Takes in the row of a step's reply (RowReply's encoding: a u32 count, then per column a type
    /// byte and an i64, an f64, or a u32 length and the bytes; nothing for NULL). A reply cut short
    /// leaves no row, as the decoder before did.
    func load(_ r: inout WireReader) {
        clear()
        let total = r.bytes.count
        let start = r.offset
        // Each text or blob column travels with 5 bytes before its own (type and length) and keeps one
        // after it here (the NUL): the buffer never needs more than the reply's remaining bytes.
        let needed = max(0, total - start)
        if needed > capacity {
            bytes?.deallocate()
            let size = max(needed, 256)
            bytes = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
            capacity = size
        }
        let ok: Bool = r.bytes.withUnsafeBytes { wire in
            var at = start
            func has(_ n: Int) -> Bool { n >= 0 && at <= total - n }
            func u32() -> Int { let v = UInt32(littleEndian: wire.loadUnaligned(fromByteOffset: at, as: UInt32.self)); at += 4; return Int(v) }
            func u64() -> UInt64 { let v = UInt64(littleEndian: wire.loadUnaligned(fromByteOffset: at, as: UInt64.self)); at += 8; return v }
            guard has(4) else { return false }
            let n = u32()
            var used = 0
            for _ in 0..<n {
                guard has(1) else { return false }
                let type = StorageValueType(code: Int32(wire[at]))
                at += 1
                switch type {
                case .integer:
                    guard has(8) else { return false }
                    columns.append(Column(type: type, int: Int64(bitPattern: u64())))
                case .float:
                    guard has(8) else { return false }
                    columns.append(Column(type: type, double: Double(bitPattern: u64())))
                case .text, .blob:
                    guard has(4) else { return false }
                    let length = u32()
                    guard has(length), let base = wire.baseAddress, let bytes, used + length < capacity else { return false }
                    if length > 0 { memcpy(bytes + used, base + at, length) }
                    bytes.storeBytes(of: 0, toByteOffset: used + length, as: UInt8.self)
                    at += length
                    columns.append(Column(type: type, offset: used, count: length))
                    used += length + 1
                case .null:
                    columns.append(Column(type: .null))
                }
            }
            return true
        }
        r.offset = total
        if !ok { clear() }
    }

    /// The column's type now (a blob read as text is text from then on, as in SQLite); nil out of range.
    func type(_ column: Int) -> StorageValueType? {
        column >= 0 && column < columns.count ? columns[column].type : nil
    }

    func markText(_ column: Int) { columns[column].type = .text }

    /// The bytes of a text or blob column, NUL after them; valid until the next `load`, `clear`'s row or the row's end.
    func bytes(_ column: Int) -> (UnsafePointer<CChar>, Int) {
        let c = columns[column]
        guard let bytes else { return (PinnedCString.empty.pointer, 0) }
        return (UnsafePointer((bytes + c.offset).assumingMemoryBound(to: CChar.self)), c.count)
    }

    /// The same bytes, for ValueConverter.
    func raw(_ column: Int) -> UnsafeRawBufferPointer {
        let c = columns[column]
        guard let bytes, c.type == .text || c.type == .blob else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes + c.offset, count: c.count)
    }

    /// A number column's text, made once by `make` and kept until the next row.
    func converted(_ column: Int, _ make: () -> PinnedCString) -> PinnedCString {
        if let text = converted[column] { return text }
        let text = make()
        converted[column] = text
        return text
    }
}
