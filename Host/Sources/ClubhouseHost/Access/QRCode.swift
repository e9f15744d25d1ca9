// A QR code encoder (ISO/IEC 18004:2015, Model 2), written for the pairing URL `clubhouse token
// pair` shows: byte mode, every version 1–40 and error correction level (M by default), Reed–Solomon
// codewords in interleaved blocks, the function patterns, the data in its two-column zigzag, and the
// mask of the eight with the lowest penalty (§7.8.3, rules N1–N4), with the format and version
// information that name them. Rendering: QRCodeSVG.swift.

public struct QRCode: Sendable, Equatable {
    public enum ErrorCorrection: Int, Sendable, CaseIterable {
        /// About 7 %, 15 %, 25 % and 30 % of the codewords may be restored.
        case low, medium, quartile, high

        /// The level's two bits in the format information (§7.9.1, Table 12).
        var formatBits: Int {
            switch self {
            case .low: return 0b01
            case .medium: return 0b00
            case .quartile: return 0b11
            case .high: return 0b10
            }
        }
    }

    public let version: Int
    public let errorCorrection: ErrorCorrection
    /// The mask pattern used (0–7).
    public let mask: Int
    /// Modules per side: 17 + 4 × version.
    public let size: Int
    /// Row-major, true = dark.
    let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark (outside the symbol: light, the quiet zone).
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    public static let versions = 1...40

    /// Encodes `text` (its UTF-8 bytes, in byte mode) in the smallest version that holds it at `level`.
    public static func encode(_ text: String, level: ErrorCorrection = .medium) throws(QRCodeError) -> QRCode {
        try encode(bytes: Array(text.utf8), level: level)
    }

    /// Encodes `bytes` in byte mode, in the smallest version from `minimumVersion` that holds them;
    /// `mask` forces a mask pattern (nil: the one with the lowest penalty).
    public static func encode(bytes: [UInt8], level: ErrorCorrection = .medium, minimumVersion: Int = 1,
                              mask forced: Int? = nil) throws(QRCodeError) -> QRCode {
        guard versions.contains(minimumVersion) else { throw QRCodeError("version \(minimumVersion) is not 1–40") }
        if let forced, !(0...7).contains(forced) { throw QRCodeError("mask \(forced) is not 0–7") }
        guard let version = (minimumVersion...40).first(where: { bitsNeeded(bytes.count, version: $0) <= dataCodewords(version: $0, level: level) * 8 })
        else {
            throw QRCodeError("\(bytes.count) bytes are too many for a QR code at level \(level): at most \(byteCapacity(version: 40, level: level))")
        }
        let codewords = interleaved(dataCodewords: dataSegment(bytes, version: version, level: level), version: version, level: level)
        var symbol = Symbol(version: version)
        symbol.drawFunctionPatterns()
        symbol.place(codewords)
        var chosen = forced ?? 0
        if forced == nil {
            var lowest = Int.max
            for candidate in 0..<8 {
                var trial = symbol
                trial.applyMask(candidate)
                trial.drawFormat(level: level, mask: candidate)
                let penalty = trial.penalty()
                if penalty < lowest { lowest = penalty; chosen = candidate }
            }
        }
        symbol.applyMask(chosen)
        symbol.drawFormat(level: level, mask: chosen)
        return QRCode(version: version, errorCorrection: level, mask: chosen, size: symbol.size, modules: symbol.modules)
    }

    // MARK: capacity (§7.4.10, Table 7; §7.5.1, Table 9)

    /// Error correction codewords per block, [level][version] (index 0 unused).
    static let errorCorrectionPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Error correction blocks, [level][version] (index 0 unused).
    static let blocks: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Modules left for codewords once the function patterns and format/version areas are drawn.
    static func dataModules(version v: Int) -> Int {
        var count = (16 * v + 128) * v + 64
        if v >= 2 {
            let alignments = v / 7 + 2
            count -= (25 * alignments - 10) * alignments - 55
            if v >= 7 { count -= 36 }
        }
        return count
    }

    static func totalCodewords(version: Int) -> Int { dataModules(version: version) / 8 }

    static func dataCodewords(version: Int, level: ErrorCorrection) -> Int {
        totalCodewords(version: version) - errorCorrectionPerBlock[level.rawValue][version] * blocks[level.rawValue][version]
    }

    /// Byte-mode character count bits: 8 for versions 1–9, 16 from 10 (§7.4.1, Table 3).
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    static func bitsNeeded(_ count: Int, version: Int) -> Int {
        count < (1 << countBits(version: version)) ? 4 + countBits(version: version) + 8 * count : Int.max
    }

    /// The most bytes byte mode holds at this version and level.
    public static func byteCapacity(version: Int, level: ErrorCorrection) -> Int {
        (dataCodewords(version: version, level: level) * 8 - 4 - countBits(version: version)) / 8
    }

    // MARK: codewords

    /// Mode 0100, the count, the bytes, a terminator of up to four 0s, 0s to a byte boundary, then the
    /// pad codewords 11101100 00010001 in turn (§7.4.5, §7.4.10).
    static func dataSegment(_ bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for b in bytes { bits.append(Int(b), count: 8) }
        let capacity = dataCodewords(version: version, level: level) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits the data into blocks (the shorter ones first), adds each block's error correction and
    /// interleaves: the data codewords column by column, then the error correction ones (§7.6).
    static func interleaved(dataCodewords data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let blockCount = blocks[level.rawValue][version]
        let ecLength = errorCorrectionPerBlock[level.rawValue][version]
        let total = totalCodewords(version: version)
        let longBlocks = total % blockCount
        let shortDataLength = total / blockCount - ecLength
        let generator = ReedSolomon.generator(degree: ecLength)
        var dataBlocks: [[UInt8]] = []
        var ecBlocks: [[UInt8]] = []
        var offset = 0
        for i in 0..<blockCount {
            let length = shortDataLength + (i >= blockCount - longBlocks ? 1 : 0)
            let block = Array(data[offset..<(offset + length)])
            offset += length
            dataBlocks.append(block)
            ecBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        for column in 0...shortDataLength {
            for block in dataBlocks where column < block.count { out.append(block[column]) }
        }
        for column in 0..<ecLength {
            for block in ecBlocks { out.append(block[column]) }
        }
        return out
    }

    /// Centres of the alignment patterns on each axis (§6.3.6, Annex E): 6, then evenly spaced
    /// (an even step) back from size − 7; none in version 1.
    static func alignmentPositions(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = version * 4 + 10
        // Version 32 is the one where the rounded-up even step differs from the table (26, not 28).
        let step = version == 32 ? 26 : ((last - 6) + (count - 1) * 2 - 1) / ((count - 1) * 2) * 2
        var positions = [6]
        for i in stride(from: count - 2, through: 0, by: -1) { positions.append(last - i * step) }
        return positions
    }

    /// 15 format bits: level and mask, BCH(15,5) with generator 0x537, XOR 0x5412 (§7.9.1).
    static func formatInformation(level: ErrorCorrection, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// 18 version bits for versions 7 and up: BCH(18,6) with generator 0x1F25 (§7.10, Annex D).
    static func versionInformation(_ version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        return version << 12 | remainder
    }

    /// Whether mask pattern `mask` inverts the module at column `x`, row `y` (§7.8.2, Table 10).
    static func masks(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: return (x + y) % 2 == 0
        case 1: return y % 2 == 0
        case 2: return x % 3 == 0
        case 3: return (x + y) % 3 == 0
        case 4: return (x / 3 + y / 2) % 2 == 0
        case 5: return (x * y) % 2 + (x * y) % 3 == 0
        case 6: return ((x * y) % 2 + (x * y) % 3) % 2 == 0
        default: return ((x + y) % 2 + (x * y) % 3) % 2 == 0
        }
    }
}

public struct QRCodeError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    /// Appends the low `count` bits of `value`, most significant first.
    mutating func append(_ value: Int, count bits: Int) {
        guard bits > 0 else { return }
        for i in stride(from: bits - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (count % 8)) }
            count += 1
        }
    }
}

/// The symbol while it is built: modules and which of them belong to function patterns.
struct Symbol {
    let version: Int
    let size: Int
    var modules: [Bool]
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
    }

    subscript(x: Int, y: Int) -> Bool {
        get { modules[y * size + x] }
        set { modules[y * size + x] = newValue }
    }

    mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Timing patterns, finders with their separators, alignment patterns, the format areas
    /// (reserved; filled by drawFormat) and the version information.
    mutating func drawFunctionPatterns() {
        for i in 0..<size {
            setFunction(6, i, i % 2 == 0)
            setFunction(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, y >= 0, x < size, y < size else { continue }
                    let ring = max(abs(dx), abs(dy))
                    setFunction(x, y, ring != 2 && ring != 4)
                }
            }
        }
        let positions = QRCode.alignmentPositions(version: version)
        for (i, cx) in positions.enumerated() {
            for (j, cy) in positions.enumerated() {
                let last = positions.count - 1
                // Not where a finder pattern is.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(level: .medium, mask: 0)
        if version >= 7 {
            let bits = QRCode.versionInformation(version)
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                setFunction(a, b, dark)
                setFunction(b, a, dark)
            }
        }
    }

    /// Both copies of the format information, and the dark module beside the lower-left finder.
    mutating func drawFormat(level: QRCode.ErrorCorrection, mask: Int) {
        let bits = QRCode.formatInformation(level: level, mask: mask)
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        // Around the upper-left finder: bits 0–7 down column 8 (skipping the timing row), 8–14 along row 8.
        for i in 0...5 { setFunction(8, i, bit(i)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
        // Beside the upper-right finder (bits 0–7) and the lower-left one (bits 8–14).
        for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
        setFunction(8, size - 8, true)
    }

    /// The codewords' bits, most significant first, up and down two-module columns from the right,
    /// stepping over column 6 (the vertical timing pattern) and every function module (§7.7.3).
    mutating func place(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = ((right + 1) & 2) == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    // Remainder bits past the last codeword stay light (0).
                    if index < totalBits {
                        self[x, y] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                        index += 1
                    }
                }
            }
            right -= 2
        }
    }

    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && QRCode.masks(mask, x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }

    // MARK: penalty (§7.8.3, Table 11)

    /// N1 = 3, N2 = 3, N3 = 40, N4 = 10.
    func penalty() -> Int {
        var score = 0
        var line = [Bool](repeating: false, count: size)
        for y in 0..<size {
            for x in 0..<size { line[x] = modules[y * size + x] }
            score += Symbol.linePenalty(line)
        }
        for x in 0..<size {
            for y in 0..<size { line[y] = modules[y * size + x] }
            score += Symbol.linePenalty(line)
        }
        // N2: every 2 × 2 block of one colour (blocks overlap).
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let c = modules[y * size + x]
                if modules[y * size + x + 1] == c && modules[(y + 1) * size + x] == c && modules[(y + 1) * size + x + 1] == c { score += 3 }
            }
        }
        // N4: 10 for each full 5 % step the dark share lies beyond 45–55 %.
        let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        let total = size * size
        let k = max(0, (abs(dark * 20 - total * 10) + total - 1) / total - 1)
        return score + k * 10
    }

    /// N1 (runs of five or more alike: 3 + the excess) and N3 (a 1:1:3:1:1 dark:light:dark:light:dark
    /// run of any width n with light 4n wide before or after it; outside the symbol is light) for one
    /// row or column.
    static func linePenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runs: [Int] = []
        var colour = false
        var length = 0
        // Runs alternate starting with a light one (of length 0 when the line begins dark).
        for module in line {
            if module == colour { length += 1; continue }
            runs.append(length)
            colour = module
            length = 1
        }
        runs.append(length)
        if colour { runs.append(0) }
        for r in runs where r >= 5 { score += 3 + (r - 5) }
        // The quiet zone extends the light runs at both ends.
        runs[0] += line.count
        runs[runs.count - 1] += line.count
        // Dark runs are at odd indices.
        var i = 1
        while i + 5 < runs.count {
            let n = runs[i]
            if n > 0, runs[i + 1] == n, runs[i + 2] == 3 * n, runs[i + 3] == n, runs[i + 4] == n {
                let before = runs[i - 1], after = runs[i + 5]
                if before >= 4 * n && after >= n { score += 40 }
                if after >= 4 * n && before >= n { score += 40 }
            }
            i += 2
        }
        return score
    }
}
