// The message buffering SHA-256 and SHA-512 share (FIPS 180-4 §5.1, §5.3): bytes arrive in chunks
// of any size; whole blocks go to the compression function straight from the caller's memory; a
// partial block waits inline (no heap storage); the end is padded with 0x80, zeros and the bit
// length, big-endian, in the block's last `lengthBytes`.

/// `Block` is a tuple of words as large as one block (64 bytes for SHA-256, 128 for SHA-512).
struct SHA2Buffer<Block: Sendable>: Sendable {
    private var pending: Block
    private var pendingCount = 0
    /// Message length in bytes (a 64-bit count covers any message this program hashes; SHA-512's
    /// 128-bit length field is written with its high half zero).
    private var totalBytes: UInt64 = 0

    @inline(__always) static var blockSize: Int { MemoryLayout<Block>.size }

    /// `empty`: a block of zeros.
    init(empty: Block) { pending = empty }

    /// Feeds more message bytes; `compress(blocks, count)` takes `count` whole blocks at `blocks`.
    @inline(__always)
    mutating func update(_ bytes: UnsafeRawBufferPointer, _ compress: (UnsafeRawPointer, Int) -> Void) {
        guard var p = bytes.baseAddress, bytes.count > 0 else { return }
        let size = Self.blockSize
        var remaining = bytes.count
        totalBytes &+= UInt64(remaining)
        if pendingCount > 0 {
            let take = min(size - pendingCount, remaining)
            let offset = pendingCount
            withUnsafeMutableBytes(of: &pending) { buffer in
                // The baseAddress of a non-empty tuple buffer is never nil.
                if let base = buffer.baseAddress { (base + offset).copyMemory(from: p, byteCount: take) }
            }
            pendingCount += take
            p += take
            remaining -= take
            if pendingCount < size { return }
            let block = pending
            withUnsafeBytes(of: block) { buffer in
                if let base = buffer.baseAddress { compress(base, 1) }
            }
            pendingCount = 0
        }
        let whole = remaining / size
        if whole > 0 { compress(p, whole) }
        p += whole * size
        remaining -= whole * size
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                if let base = buffer.baseAddress { base.copyMemory(from: p, byteCount: remaining) }
            }
            pendingCount = remaining
        }
    }

    /// Pads what is pending and compresses the last block or two.
    @inline(__always)
    func finish(lengthBytes: Int, empty: Block, _ compress: (UnsafeRawPointer, Int) -> Void) {
        let size = Self.blockSize
        let bitLength = totalBytes &* 8
        var tail: (Block, Block) = (empty, empty)
        let count = pendingCount
        let blocks = count < size - lengthBytes ? 1 : 2
        let pendingCopy = pending
        withUnsafeMutableBytes(of: &tail) { buffer in
            withUnsafeBytes(of: pendingCopy) { src in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<count]))
            }
            buffer[count] = 0x80
            let end = blocks * size
            // The low 64 bits of the length field; any higher ones stay zero.
            for i in 0..<8 { buffer[end - 1 - i] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i))) }
            if let base = buffer.baseAddress { compress(base, blocks) }
        }
    }
}
