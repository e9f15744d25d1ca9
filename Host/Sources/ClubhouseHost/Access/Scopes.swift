// Token scopes: `alias:read`, `alias:write` (which includes read) or `alias:*` (everything the
// plugin at that alias serves), checked against the site's plugins when a token is made.

import ClubhouseABI

public struct Scope: Sendable, Hashable, CustomStringConvertible {
    public enum Level: String, Sendable, CaseIterable {
        case read, write
        case all = "*"

        var rank: Int { self == .read ? 0 : self == .write ? 1 : 2 }
    }

    public var alias: String
    public var level: Level

    public init(alias: String, level: Level) {
        self.alias = alias
        self.level = level
    }

    public var description: String { "\(alias):\(level.rawValue)" }

    /// A stored scope's text, or nil when it is not of the form.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let level = Level(rawValue: String(text[text.index(after: colon)...])) else { return nil }
        alias = String(text[..<colon])
        self.level = level
    }

    /// Whether this scope lets a route of `alias` with `access` through.
    func allows(alias other: String, access: RouteAccess) -> Bool {
        guard other == alias else { return false }
        return access == .read || level != .read
    }
}

public enum Scopes {
    /// Parses a comma-separated list (`putting:read,scorecard:write`) against the site's aliases:
    /// each alias must be one of the site's plugins (with a did-you-mean), each level read, write or
    /// `*`. The result is sorted by alias, one scope per alias (the widest named).
    public static func parse(_ text: String, aliases: [String], site: String) -> Result<[Scope], AccessError> {
        let known = aliases.isEmpty ? "it has none" : "its plugins: \(aliases.joined(separator: ", "))"
        let items = text.split(separator: ",").map { Credentials.trim(String($0)) }.filter { !$0.isEmpty }
        guard !items.isEmpty else {
            return .failure(AccessError(.invalidArgument, "--scope needs at least one ALIAS:read, ALIAS:write or ALIAS:* (site '\(site)': \(known))"))
        }
        var byAlias: [String: Scope.Level] = [:]
        for item in items {
            guard let colon = item.lastIndex(of: ":") else {
                return .failure(AccessError(.invalidArgument, "--scope '\(item)' needs an access after a colon: \(item):read, \(item):write or \(item):* (write includes read)"))
            }
            let alias = String(item[..<colon])
            let levelText = String(item[item.index(after: colon)...])
            guard let level = Scope.Level(rawValue: levelText) else {
                return .failure(AccessError(.invalidArgument, "--scope '\(item)': the access '\(levelText)' must be read, write or * (write includes read)"))
            }
            guard aliases.contains(alias) else {
                let hint = closest(alias, among: aliases).map { "did you mean '\($0)'? " } ?? ""
                return .failure(AccessError(.invalidArgument, "--scope '\(item)': site '\(site)' has no plugin '\(alias)'; \(hint)(\(known))"))
            }
            if let previous = byAlias[alias], previous.rank >= level.rank { continue }
            byAlias[alias] = level
        }
        return .success(byAlias.keys.sorted().map { Scope(alias: $0, level: byAlias[$0] ?? .read) })
    }

    /// The scope a route needs: `alias:read` or `alias:write`.
    static func needed(alias: String, access: RouteAccess) -> String { "\(alias):\(access.rawValue)" }
}
