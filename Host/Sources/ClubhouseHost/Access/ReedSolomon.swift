// Reed–Solomon error correction over GF(256) as QR codes use it (ISO/IEC 18004:2015 §7.5.2):
// the field is GF(2⁸) modulo x⁸ + x⁴ + x³ + x² + 1 (0x11D), α = 2, and a block of n error
// correction codewords is the remainder of the data polynomial times xⁿ divided by the generator
// (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).

enum GF256 {
    /// αⁱ for i in 0..<510 (doubled, so a product's exponent needs no reduction).
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// log_α(v) for v in 1...255 (index 0 unused).
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[log[Int(a)] + log[Int(b)]]
    }
}

enum ReedSolomon {
    /// The generator polynomial of `degree`, highest power first, without its leading 1 (it is monic).
    static func generator(degree: Int) -> [UInt8] {
        var polynomial: [UInt8] = [1]
        for i in 0..<degree {
            // polynomial × (x + αⁱ): subtraction is addition (XOR) in GF(2⁸).
            let root = GF256.exp[i]
            var product = [UInt8](repeating: 0, count: polynomial.count + 1)
            for (j, c) in polynomial.enumerated() {
                product[j] ^= c
                product[j + 1] ^= GF256.multiply(c, root)
            }
            polynomial = product
        }
        return Array(polynomial.dropFirst())
    }

    /// The `generator.count` error correction codewords of `data` (polynomial division remainder).
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        let degree = generator.count
        var remainder = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ remainder[0]
            for i in 0..<(degree - 1) { remainder[i] = remainder[i + 1] }
            remainder[degree - 1] = 0
            for i in 0..<degree { remainder[i] ^= GF256.multiply(generator[i], factor) }
        }
        return remainder
    }
}
