// Ed25519 signatures (RFC 8032 §5.1), written from the RFC: key generation from a 32-byte seed
// (§5.1.5), signing (§5.1.6) and verification (§5.1.7), with the point encoding of §5.1.2 and the
// decoding rules of §5.1.3. The card allows no packages, so this is the project's own.
//
// Points are in extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, xy = T/Z, on −x² + y² = 1 + d·x²y²;
// addition is the unified formula of Hisil–Wong–Carter–Dawson (complete on this curve, so it also
// doubles and adds the identity). Signing touches the private key only through constant-time code:
// the base-point multiplication is double-and-add-always with a masked select per bit, the scalar
// arithmetic is Scalar25519's, the field arithmetic Field25519's. Verification handles public data
// only and uses a faster variable-time double-scalar multiplication; it checks the group equation
// with the cofactor, [8][S]B = [8]R + [8][k]A (§5.1.7 step 3), and refuses S ≥ L and every point
// encoding that §5.1.3 rejects (y ≥ p, no square root, x = 0 with the sign bit set).

public enum Ed25519 {
    /// Why a signature did not verify (or `.valid`).
    public enum Verification: Sendable, Equatable, CustomStringConvertible {
        case valid
        /// The public key is not 32 bytes or not a point encoding (§5.1.3).
        case badPublicKey
        /// The signature is not 64 bytes.
        case badLength
        /// R (the signature's first half) is not a point encoding.
        case badR
        /// S (the second half) is not below the group order L: a malleated signature.
        case nonCanonicalS
        /// Well formed, but not a signature of this message by this key.
        case mismatch

        public var description: String {
            switch self {
            case .valid: return "valid"
            case .badPublicKey: return "the public key is not a valid Ed25519 point encoding"
            case .badLength: return "a signature is 64 bytes"
            case .badR: return "the signature's R is not a valid point encoding"
            case .nonCanonicalS: return "the signature's S is not below the group order (non-canonical)"
            case .mismatch: return "the signature does not match the message and key"
            }
        }
    }

    /// The public key (32 bytes) of a 32-byte private key seed (§5.1.5).
    public static func publicKey(seed: [UInt8]) -> [UInt8] {
        let (scalar, _) = expand(seed)
        return Point.baseMultiple(scalar).encoded
    }

    /// The signature (64 bytes: R ‖ S) of `message` by the private key `seed` (§5.1.6).
    public static func sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8] {
        let (s, prefix) = expand(seed)
        let publicKey = Point.baseMultiple(s).encoded
        var nonce = SHA512()
        nonce.update(prefix)
        nonce.update(message)
        let r = Scalar25519.bytes(Scalar25519.reduce(bytes64: nonce.finalize().bytes))
        let rEncoded = Point.baseMultiple(r).encoded
        let k = challenge(rEncoded, publicKey, message)
        let sValue = Scalar25519.mulAdd(k, s, r)
        return rEncoded + Scalar25519.bytes(sValue)
    }

    /// Whether `signature` is a valid signature of `message` by `publicKey` (§5.1.7).
    public static func verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Verification {
        guard publicKey.count == 32, let a = Point(decoding: publicKey) else { return .badPublicKey }
        guard signature.count == 64 else { return .badLength }
        let rBytes = Array(signature[0..<32]), sBytes = Array(signature[32..<64])
        guard let r = Point(decoding: rBytes) else { return .badR }
        guard Scalar25519.isCanonical(sBytes) else { return .nonCanonicalS }
        let k = challenge(rBytes, publicKey, message)
        // [S]B − [k]A − R, times the cofactor 8, must be the identity.
        let sum = Point.doubleScalar(sBytes, k, a.negated) + r.negated
        let eight = sum.doubled.doubled.doubled
        return eight.isIdentity ? .valid : .mismatch
    }

    /// Whether 32 bytes decode to a curve point (§5.1.3): a usable public key.
    public static func isValidPublicKey(_ bytes: [UInt8]) -> Bool { bytes.count == 32 && Point(decoding: bytes) != nil }

    /// k = SHA-512(R ‖ A ‖ M) mod L, as 32 bytes.
    static func challenge(_ r: [UInt8], _ a: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var h = SHA512()
        h.update(r)
        h.update(a)
        h.update(message)
        return Scalar25519.bytes(Scalar25519.reduce(bytes64: h.finalize().bytes))
    }

    /// The secret scalar s (the low half of SHA-512(seed), pruned: §5.1.5 step 2) and the prefix
    /// (the high half) used for nonces.
    static func expand(_ seed: [UInt8]) -> (scalar: [UInt8], prefix: [UInt8]) {
        precondition(seed.count == 32, "an Ed25519 private key seed is 32 bytes")
        let h = SHA512.hash(seed).bytes
        var s = Array(h[0..<32])
        s[0] &= 248
        s[31] &= 127
        s[31] |= 64
        return (s, Array(h[32..<64]))
    }
}

/// A point of edwards25519 in extended coordinates.
struct Point: Sendable {
    var x, y, z, t: Field25519

    static let identity = Point(x: .zero, y: .one, z: .one, t: .zero)

    /// d = −121665/121666 (§5.1), computed once.
    static let d: Field25519 = -(Field25519(small: 121_665) * Field25519(small: 121_666).inverse())
    static let d2: Field25519 = d + d
    /// √−1 = 2^((p−1)/4) (§5.1.3 step 3).
    static let sqrtMinusOne: Field25519 = {
        // 2^((p−1)/4) = 2^(2^253 − 5): 2 raised by square-and-multiply on the public exponent.
        var result = Field25519.one
        let two = Field25519(small: 2)
        for bit in stride(from: 252, through: 0, by: -1) {
            result = result.squared()
            // 2^253 − 5 has every bit set from 252 down to 3, then 0, 1, 1 (…11111011).
            if bit != 2 { result = result * two }
        }
        return result
    }()

    /// The base point B: y = 4/5, x positive (§5.1), decoded from its encoding 0x58 0x66…0x66.
    static let base: Point = {
        var encoding = [UInt8](repeating: 0x66, count: 32)
        encoding[0] = 0x58
        guard let b = Point(decoding: encoding) else { preconditionFailure("the base point encoding decodes") }
        return b
    }()

    /// 0·B … 15·B, for verification's windowed multiplication.
    static let baseTable: [Point] = multiples(of: base)

    init(x: Field25519, y: Field25519, z: Field25519, t: Field25519) {
        (self.x, self.y, self.z, self.t) = (x, y, z, t)
    }

    /// §5.1.3: nil when the 32 bytes are not the encoding of a point (y ≥ p, x² has no root, or
    /// x = 0 with the sign bit set). Public data only.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        let sign = UInt64(bytes[31] >> 7)
        // y ≥ p: the 255-bit value is 2^255 − 19 … 2^255 − 1 (bytes ff…ff7f with the first ≥ 0xed).
        if bytes[31] & 0x7f == 0x7f && bytes[1..<31].allSatisfy({ $0 == 0xff }) && bytes[0] >= 0xed { return nil }
        let y = Field25519(bytes: bytes)
        let y2 = y.squared()
        let u = y2 - .one
        let v = Point.d * y2 + .one
        let v3 = v.squared() * v
        let v7 = v3.squared() * v
        var x = u * v3 * (u * v7).powP58()
        let vx2 = v * x.squared()
        if Field25519.equal(vx2, u) == 0 {
            guard Field25519.equal(vx2, -u) == 1 else { return nil }
            x = x * Point.sqrtMinusOne
        }
        if x.isZero == 1 && sign == 1 { return nil }
        if x.isNegative != sign { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    /// §5.1.2: y with the sign of x in bit 255.
    var encoded: [UInt8] {
        let zi = z.inverse()
        let xa = x * zi, ya = y * zi
        var out = ya.bytes
        out[31] |= UInt8(truncatingIfNeeded: xa.isNegative << 7)
        return out
    }

    var negated: Point { Point(x: -x, y: y, z: z, t: -t) }

    /// X = 0 and Y = Z (projectively (0, 1)).
    var isIdentity: Bool { x.isZero == 1 && Field25519.equal(y, z) == 1 }

    /// add-2008-hwcd-3 with k = 2d: complete, one code path for every pair of points.
    static func + (p: Point, q: Point) -> Point {
        let a = (p.y - p.x) * (q.y - q.x)
        let b = (p.y + p.x) * (q.y + q.x)
        let c = p.t * d2 * q.t
        let dd = p.z * q.z
        let d = dd + dd
        let e = b - a, f = d - c, g = d + c, h = b + a
        return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// dbl-2008-hwcd with a = −1.
    var doubled: Point {
        let a = x.squared(), b = y.squared()
        let zz = z.squared()
        let c = zz + zz
        let e = (x + y).squared() - a - b
        let g = b - a
        let f = g - c
        let h = -(a + b)
        return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    static func select(_ a: Point, _ b: Point, useFirst bit: UInt64) -> Point {
        Point(x: .select(a.x, b.x, useFirst: bit), y: .select(a.y, b.y, useFirst: bit),
              z: .select(a.z, b.z, useFirst: bit), t: .select(a.t, b.t, useFirst: bit))
    }

    /// [scalar]B for a secret 32-byte little-endian scalar: 256 doublings and 256 additions
    /// whatever its bits, each addition kept or dropped by a mask.
    static func baseMultiple(_ scalar: [UInt8]) -> Point {
        var q = identity
        for index in stride(from: 255, through: 0, by: -1) {
            q = q.doubled
            let bit = UInt64(scalar[index >> 3] >> UInt8(index & 7)) & 1
            q = select(q + base, q, useFirst: bit)
        }
        return q
    }

    static func multiples(of p: Point) -> [Point] {
        var table = [identity, p]
        for _ in 2..<16 { table.append(table[table.count - 1] + p) }
        return table
    }

    /// [a]B + [b]P for public scalars (verification only: variable time), 4-bit windows from the top.
    static func doubleScalar(_ a: [UInt8], _ b: [UInt8], _ p: Point) -> Point {
        let pTable = multiples(of: p)
        var q = identity
        for index in stride(from: 63, through: 0, by: -1) {
            if index != 63 { q = q.doubled.doubled.doubled.doubled }
            let shift = UInt8((index & 1) * 4)
            let na = Int((a[index >> 1] >> shift) & 15), nb = Int((b[index >> 1] >> shift) & 15)
            if na != 0 { q = q + baseTable[na] }
            if nb != 0 { q = q + pTable[nb] }
        }
        return q
    }
}
