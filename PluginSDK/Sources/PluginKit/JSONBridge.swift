// Codable <-> JSONValue for requests, replies and stored documents: ClubhouseJSON's coders, so a
// plugin built on PluginKit does not load Foundation (sorted keys for stable output).

import ClubhouseJSON

public enum JSONBridge {
    /// Encodes a value to a JSONValue.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }

    /// Decodes a value from a JSONValue.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder().decode(type, from: value)
    }

    /// One line for an error of `decode`: where in the value and what is wrong.
    public static func describe(_ error: any Error) -> String {
        JSONValueDecoder.describe(error)
    }
}
