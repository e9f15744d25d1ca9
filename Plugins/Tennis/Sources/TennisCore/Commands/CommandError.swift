// Errors in what a user asks the machine to do (before any byte is built or sent).

import Glibc

public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidSpeed(String)
    case invalidSpin(String)
    case invalidZone(String)
    case invalidPoint(String)
    case pointOutsideCourt(Point2D)
    case fieldOutOfRange(field: String, value: Int, range: ClosedRange<Int>)
    case spinNotInTable(Spin, table: String)
    case missingEntry(zone: Int, speed: Int, spin: Spin, reason: String)
    case invalidInterval(String)

    public var description: String {
        switch self {
        case .invalidSpeed(let text):
            return "speed \"\(text)\" is not one of 20, 30, 40, 50, 60, 70, 80 (mph)"
        case .invalidSpin(let text):
            return "spin \"\(text)\" is not one of flat, topspin, extreme-topspin, backspin, extreme-backspin"
        case .invalidZone(let text):
            return "zone \"\(text)\" is not a zone number 0–15"
        case .invalidPoint(let text):
            return "point \"\(text)\" is not X,Y (two numbers separated by a comma, e.g. 4.1,6.4)"
        case .pointOutsideCourt(let p):
            return "point \(p) is outside the half court (x in [0, 8.23), y in [0, 11.885) metres), so it has no zone; pick a point on the court"
        case .fieldOutOfRange(let field, let value, let range):
            return "\(field) \(value) is out of range \(range.lowerBound)–\(range.upperBound); nothing was sent"
        case .spinNotInTable(let spin, let table):
            return "the \(table) has no \(spin.rawValue) entries; use one of its spins or enable backspin spins"
        case .missingEntry(let zone, let speed, let spin, let reason):
            return "no setting for zone \(zone), \(speed) mph, \(spin.rawValue): \(reason)"
        case .invalidInterval(let text):
            return "launch interval \"\(text)\" is not between 2 and 9 seconds"
        }
    }

}

/// Parsers for the command-line values of the tennis commands.
public enum CommandArgument {
    /// "X,Y" → a finite point.
    public static func point(_ text: String) throws(CommandError) -> Point2D {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces),
              x.isFinite, y.isFinite
        else { throw .invalidPoint(text) }
        return Point2D(x, y)
    }

    /// "0" … "15".
    public static func zone(_ text: String) throws(CommandError) -> Int {
        guard let z = Int(Substring(text).trimmingSpaces), (0..<CourtZones.count).contains(z) else { throw .invalidZone(text) }
        return z
    }

    /// Launch interval in seconds, 2–9.
    public static func interval(_ text: String) throws(CommandError) -> Double {
        guard let s = Double(Substring(text).trimmingSpaces), s.isFinite, (2...9).contains(s) else { throw .invalidInterval(text) }
        return s
    }
}
