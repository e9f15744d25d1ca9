// Codable <-> JSONValue, through Foundation's coders (sorted keys for stable output).

import ClubhouseJSON
import Foundation

public enum JSONBridge {
    /// Encodes a value to a JSONValue.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .throw
        let data = try encoder.encode(value)
        return try JSONParser.parse(bytes: data)
    }

    /// Decodes a value from a JSONValue.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let data = Data(JSONWriter.compact(value).utf8)
        return try JSONDecoder().decode(type, from: data)
    }
}
