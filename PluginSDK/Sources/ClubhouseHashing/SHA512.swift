// SHA-512 (FIPS 180-4 §6.4) with the same streaming API as SHA-256: Ed25519 (RFC 8032) hashes
// with it. Portable Swift only (no x86 extension computes SHA-512 on the CPUs we target); nothing
// is allocated per block, and the message schedule lives in a 16-word ring on the stack.

/// A SHA-512 digest: 64 bytes, printed as 128 lowercase hex digits.
public struct SHA512Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest bytes, most significant first.
    public let bytes: [UInt8]

    init(state: SHA512.State) {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for word in [state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes = out
    }

    /// Lowercase hex, 128 characters.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }
}

/// Incremental SHA-512: `update` with any number of chunks, then `finalize`.
public struct SHA512: Sendable {
    struct State: Sendable {
        var h0: UInt64 = 0x6a09_e667_f3bc_c908, h1: UInt64 = 0xbb67_ae85_84ca_a73b
        var h2: UInt64 = 0x3c6e_f372_fe94_f82b, h3: UInt64 = 0xa54f_f53a_5f1d_36f1
        var h4: UInt64 = 0x510e_527f_ade6_82d1, h5: UInt64 = 0x9b05_688c_2b3e_6c1f
        var h6: UInt64 = 0x1f83_d9ab_fb41_bd6b, h7: UInt64 = 0x5be0_cd19_137e_2179
    }

    /// The 80 round constants (FIPS 180-4 §4.2.3): the first 64 bits of the fractional parts of
    /// the cube roots of the first 80 primes.
    static let k: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
        0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
        0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
        0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
        0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
        0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
        0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
        0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
        0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
        0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
        0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
        0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
        0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]

    /// A 128-byte block held inline (no heap storage).
    private typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                               UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    private static let emptyBlock: Block = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    private var state = State()
    private var buffer = SHA2Buffer(empty: SHA512.emptyBlock)

    public init() {}

    @inline(__always) static func rotr(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &>> n) | (x &<< (64 &- n)) }

    /// Compresses `count` consecutive 128-byte blocks at `blocks` into `state`.
    static func compress(_ state: inout State, _ blocks: UnsafeRawPointer, count: Int) {
        var w = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                 UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var p = blocks
        k.withUnsafeBufferPointer { k in
            withUnsafeMutableBytes(of: &w) { raw in
                let w = raw.bindMemory(to: UInt64.self)
                for _ in 0..<count {
                    var (a, b, c, d, e, f, g, h) = (state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7)
                    for t in 0..<80 {
                        let word: UInt64
                        if t < 16 {
                            word = UInt64(bigEndian: p.loadUnaligned(fromByteOffset: t &* 8, as: UInt64.self))
                        } else {
                            let w15 = w[(t &- 15) & 15], w2 = w[(t &- 2) & 15]
                            let s0 = rotr(w15, 1) ^ rotr(w15, 8) ^ (w15 &>> 7)
                            let s1 = rotr(w2, 19) ^ rotr(w2, 61) ^ (w2 &>> 6)
                            word = w[t & 15] &+ s0 &+ w[(t &- 7) & 15] &+ s1
                        }
                        w[t & 15] = word
                        let t1 = h &+ (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) &+ (g ^ (e & (f ^ g))) &+ k[t] &+ word
                        let t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) &+ ((a & b) | (c & (a | b)))
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    state.h0 &+= a; state.h1 &+= b; state.h2 &+= c; state.h3 &+= d
                    state.h4 &+= e; state.h5 &+= f; state.h6 &+= g; state.h7 &+= h
                    p += 128
                }
            }
        }
    }

    /// Feeds more message bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var state = self.state
        buffer.update(bytes) { SHA512.compress(&state, $0, count: $1) }
        self.state = state
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ string: String) {
        var s = string
        s.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Pads (0x80, zeros, the 128-bit big-endian bit length), compresses the last block(s) and
    /// returns the digest.
    public consuming func finalize() -> SHA512Digest {
        var state = self.state
        buffer.finish(lengthBytes: 16, empty: SHA512.emptyBlock) { SHA512.compress(&state, $0, count: $1) }
        return SHA512Digest(state: state)
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA512Digest {
        var h = SHA512()
        h.update(bytes)
        return h.finalize()
    }

    public static func hash(_ bytes: [UInt8]) -> SHA512Digest {
        bytes.withUnsafeBytes { hash($0) }
    }

    public static func hash(_ string: String) -> SHA512Digest {
        var s = string
        return s.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}

/// Lowercase hexadecimal text of bytes, and back.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: bytes.count * 2)
        for (i, b) in bytes.enumerated() {
            out[2 * i] = digits[Int(b >> 4)]
            out[2 * i + 1] = digits[Int(b & 0x0F)]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even-length hex string (either case); nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
