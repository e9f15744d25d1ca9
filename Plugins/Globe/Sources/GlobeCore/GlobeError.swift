// Every error a globe user can cause, each rendered as one line: what is wrong, where, and what
// to do about it.

public enum GlobeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The caller asked to stop (Ctrl-C, clubhouse.cancel) before `what`; nothing was written.
    case cancelled(what: String)
    case emptyCountry
    case unknownCountry(String, suggestions: [String])
    case alreadyVisited(code: String, name: String)
    /// `swapped`: where the pair lands read the other way round, when that is a country.
    case invalidLatitude(Double, swapped: SwappedCoordinates? = nil)
    case invalidLongitude(Double)
    case invalidTolerance(Double)
    case emptyUser
    /// A `user` that has nothing stored while other users do: likely mistyped.
    case unknownUser(String, suggestions: [String], known: [String])
    case unknownHighlight(code: String, name: String, item: String, kind: String, known: [String])
    case unreadableFile(path: String, reason: String)
    case unknownConfigKey(String, known: [String])
    case invalidData(source: String, line: Int, column: Int, message: String)
    case invalidDate(String)
    case noChallenge(date: String, covers: String)
    case challengeLocked(date: String, today: String)
    case challengeOver(date: String, solved: Bool, answer: String)
    case emptyGuess
    /// `name` says what the value is for ("config \"toleranceKm\"", "denominator for" the `of` argument).
    case invalidOption(name: FieldText, value: String, expected: String)
    /// A command's argument out of its range: `field` is the argument's name ("width"), `value` as the message shows it.
    case invalidArgument(field: String, value: String, expected: String)
    case storage(String)

    /// Where a latitude beyond ±90 lands read the other way round.
    public struct SwappedCoordinates: Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        /// The country the swapped pair is in.
        public var country: String

        public init(lat: Double, lon: Double, country: String) {
            self.lat = lat
            self.lon = lon
            self.country = country
        }
    }

    /// The message with the arguments' own names ("lat", "user"); `message(naming:)` for a front end's.
    public var description: String { message(naming: { $0 }) }

    /// The one-line message, each argument named by `name` (the command line's adapter says "--lat").
    public func message(naming name: (String) -> String) -> String {
        switch self {
        case .cancelled(let what):
            return "stopped before \(what) as asked; nothing was written"
        case .emptyCountry:
            return "no country given; pass an ISO 3166-1 alpha-2 code such as FR or a name such as France"
        case .unknownCountry(let text, let suggestions):
            let hint = suggestions.isEmpty ? "" : "did you mean \(Self.orList(suggestions))? "
            return "unknown country '\(text)'; \(hint)use an ISO 3166-1 alpha-2 code or the country's name (globe list shows them)"
        case .alreadyVisited(let code, let name):
            return "\(name) (\(code)) is already visited; unvisit it first to put it on the wishlist"
        case .invalidLatitude(let v, let swapped?):
            let (lat, lon) = (name("lat"), name("lon"))
            let pair = "\(lat) \(CountryLocator.number(swapped.lat)) \(lon) \(CountryLocator.number(swapped.lon)) is in \(swapped.country)"
            return "latitude \(v) is outside [-90, 90]; were latitude and longitude swapped? (\(pair)) \(lat) is degrees north, \(lon) degrees east"
        case .invalidLatitude(let v, nil):
            return "\(name("lat")): latitude \(v) is outside [-90, 90]; give degrees north as a number, e.g. 48.86"
        case .invalidLongitude(let v):
            return "\(name("lon")): longitude \(v) is outside [-180, 180]; give degrees east as a number, e.g. 2.35"
        case .invalidTolerance(let v):
            return "\(name("tolerance")) \(v) km must be a number from 0 to 500"
        case .emptyUser:
            return "no user given; pass \(name("user")) NAME or set \"user\" in the globe plugin's config"
        case .unknownUser(let name, let suggestions, let known):
            let hint = suggestions.isEmpty ? "" : "did you mean \(Self.orList(suggestions))? "
            let list = known.prefix(10).joined(separator: ", ") + (known.count > 10 ? ", … (\(known.count) in all)" : "")
            return "no user '\(name)' has marked anything; \(hint)known users: \(list) (a user appears with a first visit, wish or challenge guess)"
        case .unknownHighlight(let code, let name, let item, let kind, let known):
            let list = known.isEmpty ? "none are listed" : "known: " + known.prefix(8).joined(separator: ", ")
            return "'\(item)' is not \(kind.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(kind) of \(name) (\(code)); \(list)"
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason); check the path in the globe plugin's config or the command line"
        case .unknownConfigKey(let key, let known):
            return "unknown globe config key \"\(key)\"; known keys: \(known.joined(separator: ", "))"
        case .invalidData(let source, let line, let column, let message):
            return "\(source):\(line):\(column): \(message)"
        case .invalidDate(let text):
            return "invalid date '\(text)'; use YYYY-MM-DD, e.g. 2026-03-01"
        case .noChallenge(let date, let covers):
            return "no daily challenge for \(date); the schedule covers \(covers)"
        case .challengeLocked(let date, let today):
            return "the challenge for \(date) is locked until that day (today is \(today)); play today's or an earlier one"
        case .challengeOver(let date, let solved, let answer):
            return "the challenge for \(date) is over (\(solved ? "solved" : "failed"); the answer was \(answer)); try another date with \(name("date"))"
        case .emptyGuess:
            return "empty guess; type a country name (or a capital for a capital challenge)"
        case .invalidOption(let what, let value, let expected):
            return "invalid \(what.rendered(naming: name)) '\(value)'; expected \(expected)"
        case .invalidArgument(let field, let value, let expected):
            return "\(name(field)) \(value) is not \(expected)"
        case .storage(let message):
            return "storage failed: \(message)"
        }
    }

    static func orList(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " or " + (items.last ?? "")
        }
    }
}
