// A C string the host hands to a plugin through the ABI (a last error, a column name, a device's
// address) that must stay where it is until the host replaces it: a `[CChar]`'s buffer is lent only
// for the closure of `withUnsafeBufferPointer`, so returning its address from there relies on an
// implementation detail. This holds its bytes in memory of its own, freed with the object.

#if canImport(Glibc)
import Glibc
#endif

/// Bytes followed by a NUL in memory of their own; `pointer` is valid for the object's life.
/// @unchecked Sendable: immutable after init (the pointer and the bytes behind it never change).
public final class PinnedCString: @unchecked Sendable {
    /// The bytes and the NUL after them.
    public let pointer: UnsafePointer<CChar>
    /// The bytes before the NUL (a blob may hold NULs of its own).
    public let count: Int

    /// The empty string, shared.
    public static let empty = PinnedCString("")

    public convenience init(_ string: String) {
        var string = string
        self.init(count: string.utf8.count) { buffer in
            string.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { _ = buffer.initialize(from: $0) }
            }
        }
    }

    /// A copy of `bytes` (any bytes; the NUL is added).
    public convenience init<C: Collection>(bytes: C) where C.Element == CChar {
        self.init(count: bytes.count) { _ = $0.initialize(from: bytes) }
    }

    private init(count: Int, fill: (UnsafeMutableBufferPointer<CChar>) -> Void) {
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        fill(UnsafeMutableBufferPointer(start: storage, count: count))
        storage[count] = 0
        pointer = UnsafePointer(storage)
        self.count = count
    }

    deinit { UnsafeMutablePointer(mutating: pointer).deallocate() }

    public var isEmpty: Bool { count == 0 }
    public var string: String { String(cString: pointer) }
}
