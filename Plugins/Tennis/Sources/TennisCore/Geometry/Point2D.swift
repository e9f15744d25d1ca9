// A point in a plane: image pixels or court metres, depending on which side of a homography it is.

/// A point in the plane. Encoded in JSON as a two-element array `[x, y]`.
public struct Point2D: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var isFinite: Bool { x.isFinite && y.isFinite }

    public func distance(to other: Point2D) -> Double {
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let x = try container.decode(Double.self)
        let y = try container.decode(Double.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a point has exactly two numbers [x, y]")
        }
        self.init(x, y)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
    }

    public var description: String { "(\(Format.number(x)), \(Format.number(y)))" }
}

/// Number formatting shared by text renderings, frames and SVG (deterministic, no locale).
public enum Format {
    /// Shortest round-trip form, without a trailing `.0` on whole numbers.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int(value))
        }
        return "\(value)"
    }

    /// Fixed number of decimals, rounding half away from zero; `-0` is written `0`.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        let negative = value < 0 && scaled != 0
        guard scaled < 9e15 else { return "\(value)" }
        var digits = String(Int(scaled))
        if decimals > 0 {
            if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
        }
        return negative ? "-" + digits : digits
    }

    /// Uppercase two-digit hex bytes separated by spaces, e.g. `5A A5 83`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { hexByte($0) }.joined(separator: " ")
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
