// JSONValue as a Codable value, so free-form JSON (a plugin's config, a reply's payload) can sit
// inside Codable types. Decoding through a Decoder loses number lexemes; parse text with
// JSONParser when the exact lexeme matters.

extension JSONValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: Key.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null }
        else if let b = try? single.decode(Bool.self) { self = .bool(b) }
        else if let i = try? single.decode(Int.self) { self = .int(i) }
        else if let d = try? single.decode(Double.self) { self = .double(d) }
        else { self = .string(try single.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if n.isInteger, let i = Int(n.lexeme) { try c.encode(i) } else { try c.encode(n.double) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for e in elements { try c.encode(e) }
        case .object(let object):
            var c = encoder.container(keyedBy: Key.self)
            for m in object { try c.encode(m.value, forKey: Key(stringValue: m.key)) }
        }
    }
}
