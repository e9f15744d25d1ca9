// The portable SHA-256 compression function: plain Swift, all 64 rounds unrolled, wrapping
// arithmetic, the message schedule kept in sixteen locals (no per-block memory at all).

extension SHA256 {
    @inline(__always) static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }
    @inline(__always) static func s0(_ x: UInt32) -> UInt32 { rotr(x, 7) ^ rotr(x, 18) ^ (x &>> 3) }
    @inline(__always) static func s1(_ x: UInt32) -> UInt32 { rotr(x, 17) ^ rotr(x, 19) ^ (x &>> 10) }

    /// One round. Instead of shifting eight variables each round, the callers rotate the argument
    /// order, so only `d` and `h` are written.
    @inline(__always) static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ k: UInt32, _ w: UInt32
    ) {
        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (g ^ (e & (f ^ g))) &+ k &+ w
        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) | (c & (a | b)))
        d = d &+ t1
        h = t1 &+ t2
    }

    @inline(__always) static func word(_ p: UnsafeRawPointer, _ i: Int) -> UInt32 {
        UInt32(bigEndian: p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
    }

    /// Compresses `count` consecutive 64-byte blocks at `blocks` into `state`.
    static func compressPortable(_ state: inout State, _ blocks: UnsafeRawPointer, count: Int) {
        var (a, b, c, d, e, f, g, h) = (state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7)
        var p = blocks
        for _ in 0..<count {
            var w0 = word(p, 0), w1 = word(p, 1), w2 = word(p, 2), w3 = word(p, 3)
            var w4 = word(p, 4), w5 = word(p, 5), w6 = word(p, 6), w7 = word(p, 7)
            var w8 = word(p, 8), w9 = word(p, 9), w10 = word(p, 10), w11 = word(p, 11)
            var w12 = word(p, 12), w13 = word(p, 13), w14 = word(p, 14), w15 = word(p, 15)
            round(a, b, c, &d, e, f, g, &h, 0x428a2f98, w0)
            round(h, a, b, &c, d, e, f, &g, 0x71374491, w1)
            round(g, h, a, &b, c, d, e, &f, 0xb5c0fbcf, w2)
            round(f, g, h, &a, b, c, d, &e, 0xe9b5dba5, w3)
            round(e, f, g, &h, a, b, c, &d, 0x3956c25b, w4)
            round(d, e, f, &g, h, a, b, &c, 0x59f111f1, w5)
            round(c, d, e, &f, g, h, a, &b, 0x923f82a4, w6)
            round(b, c, d, &e, f, g, h, &a, 0xab1c5ed5, w7)
            round(a, b, c, &d, e, f, g, &h, 0xd807aa98, w8)
            round(h, a, b, &c, d, e, f, &g, 0x12835b01, w9)
            round(g, h, a, &b, c, d, e, &f, 0x243185be, w10)
            round(f, g, h, &a, b, c, d, &e, 0x550c7dc3, w11)
            round(e, f, g, &h, a, b, c, &d, 0x72be5d74, w12)
            round(d, e, f, &g, h, a, b, &c, 0x80deb1fe, w13)
            round(c, d, e, &f, g, h, a, &b, 0x9bdc06a7, w14)
            round(b, c, d, &e, f, g, h, &a, 0xc19bf174, w15)
            w0 = w0 &+ s1(w14) &+ w9 &+ s0(w1)
            round(a, b, c, &d, e, f, g, &h, 0xe49b69c1, w0)
            w1 = w1 &+ s1(w15) &+ w10 &+ s0(w2)
            round(h, a, b, &c, d, e, f, &g, 0xefbe4786, w1)
            w2 = w2 &+ s1(w0) &+ w11 &+ s0(w3)
            round(g, h, a, &b, c, d, e, &f, 0x0fc19dc6, w2)
            w3 = w3 &+ s1(w1) &+ w12 &+ s0(w4)
            round(f, g, h, &a, b, c, d, &e, 0x240ca1cc, w3)
            w4 = w4 &+ s1(w2) &+ w13 &+ s0(w5)
            round(e, f, g, &h, a, b, c, &d, 0x2de92c6f, w4)
            w5 = w5 &+ s1(w3) &+ w14 &+ s0(w6)
            round(d, e, f, &g, h, a, b, &c, 0x4a7484aa, w5)
            w6 = w6 &+ s1(w4) &+ w15 &+ s0(w7)
            round(c, d, e, &f, g, h, a, &b, 0x5cb0a9dc, w6)
            w7 = w7 &+ s1(w5) &+ w0 &+ s0(w8)
            round(b, c, d, &e, f, g, h, &a, 0x76f988da, w7)
            w8 = w8 &+ s1(w6) &+ w1 &+ s0(w9)
            round(a, b, c, &d, e, f, g, &h, 0x983e5152, w8)
            w9 = w9 &+ s1(w7) &+ w2 &+ s0(w10)
            round(h, a, b, &c, d, e, f, &g, 0xa831c66d, w9)
            w10 = w10 &+ s1(w8) &+ w3 &+ s0(w11)
            round(g, h, a, &b, c, d, e, &f, 0xb00327c8, w10)
            w11 = w11 &+ s1(w9) &+ w4 &+ s0(w12)
            round(f, g, h, &a, b, c, d, &e, 0xbf597fc7, w11)
            w12 = w12 &+ s1(w10) &+ w5 &+ s0(w13)
            round(e, f, g, &h, a, b, c, &d, 0xc6e00bf3, w12)
            w13 = w13 &+ s1(w11) &+ w6 &+ s0(w14)
            round(d, e, f, &g, h, a, b, &c, 0xd5a79147, w13)
            w14 = w14 &+ s1(w12) &+ w7 &+ s0(w15)
            round(c, d, e, &f, g, h, a, &b, 0x06ca6351, w14)
            w15 = w15 &+ s1(w13) &+ w8 &+ s0(w0)
            round(b, c, d, &e, f, g, h, &a, 0x14292967, w15)
            w0 = w0 &+ s1(w14) &+ w9 &+ s0(w1)
            round(a, b, c, &d, e, f, g, &h, 0x27b70a85, w0)
            w1 = w1 &+ s1(w15) &+ w10 &+ s0(w2)
            round(h, a, b, &c, d, e, f, &g, 0x2e1b2138, w1)
            w2 = w2 &+ s1(w0) &+ w11 &+ s0(w3)
            round(g, h, a, &b, c, d, e, &f, 0x4d2c6dfc, w2)
            w3 = w3 &+ s1(w1) &+ w12 &+ s0(w4)
            round(f, g, h, &a, b, c, d, &e, 0x53380d13, w3)
            w4 = w4 &+ s1(w2) &+ w13 &+ s0(w5)
            round(e, f, g, &h, a, b, c, &d, 0x650a7354, w4)
            w5 = w5 &+ s1(w3) &+ w14 &+ s0(w6)
            round(d, e, f, &g, h, a, b, &c, 0x766a0abb, w5)
            w6 = w6 &+ s1(w4) &+ w15 &+ s0(w7)
            round(c, d, e, &f, g, h, a, &b, 0x81c2c92e, w6)
            w7 = w7 &+ s1(w5) &+ w0 &+ s0(w8)
            round(b, c, d, &e, f, g, h, &a, 0x92722c85, w7)
            w8 = w8 &+ s1(w6) &+ w1 &+ s0(w9)
            round(a, b, c, &d, e, f, g, &h, 0xa2bfe8a1, w8)
            w9 = w9 &+ s1(w7) &+ w2 &+ s0(w10)
            round(h, a, b, &c, d, e, f, &g, 0xa81a664b, w9)
            w10 = w10 &+ s1(w8) &+ w3 &+ s0(w11)
            round(g, h, a, &b, c, d, e, &f, 0xc24b8b70, w10)
            w11 = w11 &+ s1(w9) &+ w4 &+ s0(w12)
            round(f, g, h, &a, b, c, d, &e, 0xc76c51a3, w11)
            w12 = w12 &+ s1(w10) &+ w5 &+ s0(w13)
            round(e, f, g, &h, a, b, c, &d, 0xd192e819, w12)
            w13 = w13 &+ s1(w11) &+ w6 &+ s0(w14)
            round(d, e, f, &g, h, a, b, &c, 0xd6990624, w13)
            w14 = w14 &+ s1(w12) &+ w7 &+ s0(w15)
            round(c, d, e, &f, g, h, a, &b, 0xf40e3585, w14)
            w15 = w15 &+ s1(w13) &+ w8 &+ s0(w0)
            round(b, c, d, &e, f, g, h, &a, 0x106aa070, w15)
            w0 = w0 &+ s1(w14) &+ w9 &+ s0(w1)
            round(a, b, c, &d, e, f, g, &h, 0x19a4c116, w0)
            w1 = w1 &+ s1(w15) &+ w10 &+ s0(w2)
            round(h, a, b, &c, d, e, f, &g, 0x1e376c08, w1)
            w2 = w2 &+ s1(w0) &+ w11 &+ s0(w3)
            round(g, h, a, &b, c, d, e, &f, 0x2748774c, w2)
            w3 = w3 &+ s1(w1) &+ w12 &+ s0(w4)
            round(f, g, h, &a, b, c, d, &e, 0x34b0bcb5, w3)
            w4 = w4 &+ s1(w2) &+ w13 &+ s0(w5)
            round(e, f, g, &h, a, b, c, &d, 0x391c0cb3, w4)
            w5 = w5 &+ s1(w3) &+ w14 &+ s0(w6)
            round(d, e, f, &g, h, a, b, &c, 0x4ed8aa4a, w5)
            w6 = w6 &+ s1(w4) &+ w15 &+ s0(w7)
            round(c, d, e, &f, g, h, a, &b, 0x5b9cca4f, w6)
            w7 = w7 &+ s1(w5) &+ w0 &+ s0(w8)
            round(b, c, d, &e, f, g, h, &a, 0x682e6ff3, w7)
            w8 = w8 &+ s1(w6) &+ w1 &+ s0(w9)
            round(a, b, c, &d, e, f, g, &h, 0x748f82ee, w8)
            w9 = w9 &+ s1(w7) &+ w2 &+ s0(w10)
            round(h, a, b, &c, d, e, f, &g, 0x78a5636f, w9)
            w10 = w10 &+ s1(w8) &+ w3 &+ s0(w11)
            round(g, h, a, &b, c, d, e, &f, 0x84c87814, w10)
            w11 = w11 &+ s1(w9) &+ w4 &+ s0(w12)
            round(f, g, h, &a, b, c, d, &e, 0x8cc70208, w11)
            w12 = w12 &+ s1(w10) &+ w5 &+ s0(w13)
            round(e, f, g, &h, a, b, c, &d, 0x90befffa, w12)
            w13 = w13 &+ s1(w11) &+ w6 &+ s0(w14)
            round(d, e, f, &g, h, a, b, &c, 0xa4506ceb, w13)
            w14 = w14 &+ s1(w12) &+ w7 &+ s0(w15)
            round(c, d, e, &f, g, h, a, &b, 0xbef9a3f7, w14)
            w15 = w15 &+ s1(w13) &+ w8 &+ s0(w0)
            round(b, c, d, &e, f, g, h, &a, 0xc67178f2, w15)
            a = a &+ state.h0; b = b &+ state.h1; c = c &+ state.h2; d = d &+ state.h3
            e = e &+ state.h4; f = f &+ state.h5; g = g &+ state.h6; h = h &+ state.h7
            (state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7) = (a, b, c, d, e, f, g, h)
            p += 64
        }
    }
}
