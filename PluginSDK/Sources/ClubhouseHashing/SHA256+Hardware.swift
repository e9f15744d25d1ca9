// The hardware SHA-256 engine: the x86 SHA extensions (sha256rnds2, sha256msg1, sha256msg2), used
// only after CPUID says the processor has them. The module is built with `-Xcc -msha` (see
// Package.swift), which enables exactly those instructions and nothing past SSE2, so all other
// code stays baseline x86-64. Where the flag is absent (other architectures) the portable engine
// is the only one.

#if SHA_EXTENSIONS && arch(x86_64) && canImport(_Builtin_intrinsics)
import _Builtin_intrinsics.intel
import _Builtin_intrinsics.intel.cpuid

extension SHA256 {
    static let cpuHasSHAExtensions: Bool = {
        var eax: UInt32 = 0, ebx: UInt32 = 0, ecx: UInt32 = 0, edx: UInt32 = 0
        guard __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 else { return false }
        return ebx & (1 << 29) != 0
    }()

    /// Round constants, four per 128-bit vector (lane 0 first).
    private static let roundConstants: [__m128i] = stride(from: 0, to: 64, by: 4).map { i in
        _mm_set_epi32(Int32(bitPattern: k[i + 3]), Int32(bitPattern: k[i + 2]),
                      Int32(bitPattern: k[i + 1]), Int32(bitPattern: k[i]))
    }

    static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Sixteen message bytes as four big-endian words (a byte swap per 32-bit lane, SSE2 only).
    @inline(__always) private static func loadWords(_ p: UnsafeRawPointer) -> __m128i {
        let v = _mm_loadu_si128(p.assumingMemoryBound(to: __m128i.self))
        let swapped = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8))
        return _mm_or_si128(_mm_slli_epi32(swapped, 16), _mm_srli_epi32(swapped, 16))
    }

    /// Four rounds. `abef` and `cdgh` hold the working variables in the layout sha256rnds2 expects.
    @inline(__always) private static func fourRounds(_ abef: inout __m128i, _ cdgh: inout __m128i,
                                                     _ words: __m128i, _ k: __m128i) {
        let wk = _mm_add_epi32(words, k)
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk)
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_unpackhi_epi64(wk, wk))
    }

    /// The next four schedule words from the previous sixteen (`w0` oldest).
    @inline(__always) private static func schedule(_ w0: __m128i, _ w1: __m128i, _ w2: __m128i,
                                                   _ w3: __m128i) -> __m128i {
        let a = unsafeBitCast(w2, to: SIMD4<UInt32>.self), b = unsafeBitCast(w3, to: SIMD4<UInt32>.self)
        let w7to4 = unsafeBitCast(SIMD4<UInt32>(a[1], a[2], a[3], b[0]), to: __m128i.self)
        return _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), w7to4), w3)
    }

    static func compressHardware(_ state: inout State, _ blocks: UnsafeRawPointer, count: Int) {
        func i32(_ x: UInt32) -> Int32 { Int32(bitPattern: x) }
        var abef = _mm_set_epi32(i32(state.h0), i32(state.h1), i32(state.h4), i32(state.h5))
        var cdgh = _mm_set_epi32(i32(state.h2), i32(state.h3), i32(state.h6), i32(state.h7))
        roundConstants.withUnsafeBufferPointer { k in
            var p = blocks
            for _ in 0..<count {
                let savedABEF = abef, savedCDGH = cdgh
                var m0 = loadWords(p), m1 = loadWords(p + 16), m2 = loadWords(p + 32), m3 = loadWords(p + 48)
                fourRounds(&abef, &cdgh, m0, k[0])
                fourRounds(&abef, &cdgh, m1, k[1])
                fourRounds(&abef, &cdgh, m2, k[2])
                fourRounds(&abef, &cdgh, m3, k[3])
                m0 = schedule(m0, m1, m2, m3); fourRounds(&abef, &cdgh, m0, k[4])
                m1 = schedule(m1, m2, m3, m0); fourRounds(&abef, &cdgh, m1, k[5])
                m2 = schedule(m2, m3, m0, m1); fourRounds(&abef, &cdgh, m2, k[6])
                m3 = schedule(m3, m0, m1, m2); fourRounds(&abef, &cdgh, m3, k[7])
                m0 = schedule(m0, m1, m2, m3); fourRounds(&abef, &cdgh, m0, k[8])
                m1 = schedule(m1, m2, m3, m0); fourRounds(&abef, &cdgh, m1, k[9])
                m2 = schedule(m2, m3, m0, m1); fourRounds(&abef, &cdgh, m2, k[10])
                m3 = schedule(m3, m0, m1, m2); fourRounds(&abef, &cdgh, m3, k[11])
                m0 = schedule(m0, m1, m2, m3); fourRounds(&abef, &cdgh, m0, k[12])
                m1 = schedule(m1, m2, m3, m0); fourRounds(&abef, &cdgh, m1, k[13])
                m2 = schedule(m2, m3, m0, m1); fourRounds(&abef, &cdgh, m2, k[14])
                m3 = schedule(m3, m0, m1, m2); fourRounds(&abef, &cdgh, m3, k[15])
                abef = _mm_add_epi32(abef, savedABEF)
                cdgh = _mm_add_epi32(cdgh, savedCDGH)
                p += 64
            }
        }
        let x = unsafeBitCast(abef, to: SIMD4<UInt32>.self), y = unsafeBitCast(cdgh, to: SIMD4<UInt32>.self)
        (state.h0, state.h1, state.h4, state.h5) = (x[3], x[2], x[1], x[0])
        (state.h2, state.h3, state.h6, state.h7) = (y[3], y[2], y[1], y[0])
    }
}
#else
extension SHA256 {
    static let cpuHasSHAExtensions = false

    static func compressHardware(_ state: inout State, _ blocks: UnsafeRawPointer, count: Int) {
        compressPortable(&state, blocks, count: count)
    }
}
#endif
