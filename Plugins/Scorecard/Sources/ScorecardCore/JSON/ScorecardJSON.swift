// Scorecard's results as JSON through ClubhouseJSON's encoder: keys in declaration order (stable for
// --json), nil optionals written as null so every documented key is always present, and tenths as
// exact decimal lexemes ("19.0", "-1.5") through Tenths' JSONValueRepresentable conformance.

import ClubhouseJSON

/// Turns Codable results into JSON with stable keys and exact decimals.
public enum ScorecardJSON {
    static let encoder = JSONValueEncoder(sortedKeys: false, nilEncoding: .null)

    /// The value as an ordered JSON tree.
    public static func value<T: Encodable>(_ value: T) -> JSONValue {
        do { return try encoder.encode(value) } catch { return .string("unencodable: \(error)") }
    }

    /// Pretty-printed JSON text.
    public static func text<T: Encodable>(_ value: T) -> String { JSONWriter.pretty(self.value(value)) }
}

extension Tenths: JSONValueRepresentable {
    /// The exact decimal with its tenth ("19.0", not "19").
    public var jsonValue: JSONValue { .number(JSONNumber(lexeme: description, isInteger: false)) }
}

// `scorecard player list` builds its reply straight from these (no Encodable walk: the keyed
// containers' generic metadata and dynamic casts were ≈ 1.5 % of the whole command). The objects are
// the ones the synthesized Encodable form gives through ScorecardJSON.value — keys in declaration
// order, a missing index as null — which CommandsTests checks against a mirror of the Codable form.
extension PlayerSummary: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(JSONObject([(key: "id", value: .int(id)), (key: "name", value: .string(name)),
                            (key: "index", value: index?.jsonValue ?? .null), (key: "indexIsGiven", value: .bool(indexIsGiven)),
                            (key: "finishedRounds", value: .int(finishedRounds))]))
    }
}

extension PlayerList: JSONValueRepresentable {
    public var jsonValue: JSONValue { .object(["players": .array(players.map(\.jsonValue))]) }
}
