// Rule 5.2 (the lowest differentials of the most recent 20, with the table's adjustments), Rule 5.8 (soft
// and hard caps against the Low Handicap Index) and Rule 5.3 (maximum 54.0), on integer tenths.

/// How a Handicap Index was calculated from a list of differentials.
public struct IndexCalculation: Codable, Sendable, Equatable {
    /// How many differentials were considered (the most recent, at most 20).
    public var considered: Int
    /// How many of the lowest counted (Rule 5.2 table).
    public var used: Int
    /// The table's adjustment (−2.0, −1.0 or 0.0).
    public var adjustment: Tenths
    /// Positions of the counted differentials among those considered (0 = oldest considered).
    public var counted: [Int]
    /// The average of the counted differentials, rounded to a tenth (for display; the index rounds once).
    public var average: Tenths
    /// Average + adjustment, rounded once: the index before caps and the maximum.
    public var calculated: Tenths
    /// The Low Handicap Index the caps were measured against, when caps applied.
    public var lowIndex: Tenths?
    public var softCapApplied: Bool
    public var hardCapApplied: Bool
    /// True when the result was limited to 54.0.
    public var maximumApplied: Bool
    /// The Handicap Index.
    public var index: Tenths
}

extension WorldHandicapSystem {
    /// The Handicap Index from differentials in the order played (oldest first); only the most recent 20
    /// are considered. Caps apply when `lowIndex` is given and at least 20 differentials exist.
    /// Nil when fewer than three differentials are given.
    public static func handicapIndex(differentials: [Tenths], lowIndex: Tenths?) -> IndexCalculation? {
        let considered = Array(differentials.suffix(20))
        let capsLow = differentials.count >= 20 ? lowIndex : nil
        var scratch = [Int](repeating: 0, count: 20)
        let kernel = considered.map(\.raw).withUnsafeBufferPointer { values in
            scratch.withUnsafeMutableBufferPointer { buffer in
                IndexKernel.calculate(values, lowIndex: capsLow?.raw, scratch: buffer)
            }
        }
        guard let kernel else { return nil }
        return kernel.calculation(considered: considered.count, lowIndex: capsLow)
    }
}

/// The allocation-free core of the index calculation, shared by the calculator and the scoring record.
struct IndexKernel {
    var used: Int
    var adjustment: Int
    var sum: Int
    var calculated: Int
    var index: Int
    var softCap: Bool
    var hardCap: Bool
    var maximum: Bool
    /// Bit i set when the differential at position i (0 = oldest considered) counted.
    var countedMask: UInt32

    /// `values` are the considered differentials in tenths, oldest first (at most 20); `scratch` holds at
    /// least 20 integers. `lowIndex` is given only when caps apply.
    @inline(__always)
    static func calculate(_ values: UnsafeBufferPointer<Int>, lowIndex: Int?,
                          scratch: UnsafeMutableBufferPointer<Int>) -> IndexKernel? {
        let n = values.count
        guard let row = WorldHandicapSystem.calculationRow(forDifferentialCount: n) else { return nil }
        // Keep the `used` lowest in ascending order in scratch (insertion into a short sorted list). Keys
        // pack the position below the value, so equal values prefer the more recent differential.
        let k = row.used
        var filled = 0
        for position in 0..<n {
            let key = values[position] &* 32 &+ (31 - position)
            if filled == k {
                if key >= scratch[k - 1] { continue }
                filled -= 1
            }
            var slot = filled
            while slot > 0, scratch[slot - 1] > key {
                scratch[slot] = scratch[slot - 1]
                slot -= 1
            }
            scratch[slot] = key
            filled += 1
        }
        var sum = 0
        var mask: UInt32 = 0
        for i in 0..<k {
            let key = scratch[i]
            sum += key >> 5
            mask |= 1 << UInt32(31 - (key & 31))
        }
        return finish(row: row, sum: sum, mask: mask, lowIndex: lowIndex)
    }

    /// The index from the sum of the counted differentials: adjustment, one rounding, caps, maximum.
    @inline(__always)
    static func finish(row: WorldHandicapSystem.CalculationRow, sum: Int, mask: UInt32, lowIndex: Int?) -> IndexKernel {
        let calculated = ExactRounding.roundHalfUp(sum + row.used * row.adjustment.raw, row.used)
        var index = calculated
        var soft = false
        var hard = false
        if let lowIndex {
            let capped = WorldHandicapSystem.applyCaps(to: Tenths(raw: calculated), lowIndex: Tenths(raw: lowIndex))
            index = capped.index.raw
            soft = capped.softCap
            hard = capped.hardCap
        }
        var maximum = false
        if index > WorldHandicapSystem.maximumIndex.raw {
            index = WorldHandicapSystem.maximumIndex.raw
            maximum = true
        }
        return IndexKernel(used: row.used, adjustment: row.adjustment.raw, sum: sum, calculated: calculated,
                           index: index, softCap: soft, hardCap: hard, maximum: maximum, countedMask: mask)
    }

    func calculation(considered: Int, lowIndex: Tenths?) -> IndexCalculation {
        IndexCalculation(
            considered: considered, used: used, adjustment: Tenths(raw: adjustment),
            counted: (0..<considered).filter { countedMask & (1 << UInt32($0)) != 0 },
            average: Tenths(raw: ExactRounding.roundHalfUp(sum, used)), calculated: Tenths(raw: calculated),
            lowIndex: lowIndex, softCapApplied: softCap, hardCapApplied: hardCap, maximumApplied: maximum,
            index: Tenths(raw: index))
    }
}
