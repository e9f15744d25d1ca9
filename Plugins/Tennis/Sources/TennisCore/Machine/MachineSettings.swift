// What the ball machine is told: wheel speeds, pitch, yaw and feed; and the speeds and spins a user picks.

/// Ball speed levels: 20–80 mph in steps of 10 (level 0–6).
public struct BallSpeed: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public static let allowed = [20, 30, 40, 50, 60, 70, 80]
    public static let all = allowed.map { BallSpeed(uncheckedMPH: $0) }

    public let mph: Int

    public init(mph: Int) throws(CommandError) {
        guard BallSpeed.allowed.contains(mph) else { throw .invalidSpeed(String(mph)) }
        self.mph = mph
    }

    /// Parses "50" or "50mph".
    public init(parsing text: String) throws(CommandError) {
        var digits = Substring(text.lowercased())
        if digits.hasSuffix("mph") { digits = digits.dropLast(3) }
        guard let mph = Int(digits.trimmingSpaces), BallSpeed.allowed.contains(mph) else { throw .invalidSpeed(text) }
        self.mph = mph
    }

    private init(uncheckedMPH mph: Int) { self.mph = mph }

    /// 0 for 20 mph … 6 for 80 mph.
    public var level: Int { (mph - 20) / 10 }

    public static func < (a: BallSpeed, b: BallSpeed) -> Bool { a.mph < b.mph }
    public var description: String { "\(mph) mph" }

    public init(from decoder: any Decoder) throws {
        let mph = try Int(from: decoder)
        do {
            try self.init(mph: mph)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws { try mph.encode(to: encoder) }
}

/// Spin kinds. The first three are the original firmware's; the backspins came with newer firmware.
public enum Spin: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case flat, topspin, extremeTopspin = "extreme-topspin", backspin, extremeBackspin = "extreme-backspin"

    /// Index in the formula `yaw = 45 + 15 · index`.
    public var index: Int { Spin.allCases.firstIndex(of: self) ?? 0 }
    public static let original: [Spin] = [.flat, .topspin, .extremeTopspin]
    public var isBackspin: Bool { self == .backspin || self == .extremeBackspin }

    public init(parsing text: String) throws(CommandError) {
        guard let spin = Spin(rawValue: text.lowercased()) else { throw .invalidSpin(text) }
        self = spin
    }

    public var description: String { rawValue }
}

/// One machine setting: wheel speeds and feed in percent (0–100), pitch and yaw in degrees (0–90).
public struct MachineSettings: Sendable, Hashable, Codable, CustomStringConvertible {
    public static let percentRange = 0...100
    public static let angleRange = 0...90
    public static let stop = MachineSettings(unchecked: 0, 0, 0, 0, 0)

    public let upperWheel: UInt8
    public let lowerWheel: UInt8
    public let pitch: UInt8
    public let yaw: UInt8
    public let feed: UInt8

    /// Checks every field against its range before anything can be sent.
    public init(upperWheel: Int, lowerWheel: Int, pitch: Int, yaw: Int, feed: Int) throws(CommandError) {
        for (name, value, range) in [("upper wheel", upperWheel, MachineSettings.percentRange),
                                     ("lower wheel", lowerWheel, MachineSettings.percentRange),
                                     ("pitch", pitch, MachineSettings.angleRange), ("yaw", yaw, MachineSettings.angleRange),
                                     ("feed", feed, MachineSettings.percentRange)]
        where !range.contains(value) {
            throw .fieldOutOfRange(field: name, value: value, range: range)
        }
        self.init(unchecked: UInt8(upperWheel), UInt8(lowerWheel), UInt8(pitch), UInt8(yaw), UInt8(feed))
    }

    init(unchecked upperWheel: UInt8, _ lowerWheel: UInt8, _ pitch: UInt8, _ yaw: UInt8, _ feed: UInt8) {
        self.upperWheel = upperWheel
        self.lowerWheel = lowerWheel
        self.pitch = pitch
        self.yaw = yaw
        self.feed = feed
    }

    enum CodingKeys: String, CodingKey {
        case upperWheel = "upper", lowerWheel = "lower", pitch, yaw, feed
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(upperWheel: try c.decode(Int.self, forKey: .upperWheel), lowerWheel: try c.decode(Int.self, forKey: .lowerWheel),
                          pitch: try c.decode(Int.self, forKey: .pitch), yaw: try c.decode(Int.self, forKey: .yaw),
                          feed: try c.decode(Int.self, forKey: .feed))
        } catch let error as CommandError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public var description: String {
        "upper \(upperWheel)% lower \(lowerWheel)% pitch \(pitch)° yaw \(yaw)° feed \(feed)%"
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
