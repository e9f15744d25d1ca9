// Encodes any Encodable result into an ordered ClubhouseJSON value: keys in declaration order (stable for
// --json), tenths written as exact decimal lexemes ("19.0", "-1.5"), and nil optionals written as null so
// every documented key is always present.

import ClubhouseJSON

/// Turns Codable results into JSON text with stable keys and exact decimals.
public enum ScorecardJSON {
    /// The value as an ordered JSON tree.
    public static func value<T: Encodable>(_ value: T) -> JSONValue {
        let root = Node()
        let encoder = TreeEncoder(node: root, codingPath: [])
        do { try value.encode(to: encoder) } catch { return .string("unencodable: \(error)") }
        return root.build()
    }

    /// Pretty-printed JSON text.
    public static func text<T: Encodable>(_ value: T) -> String { JSONWriter.pretty(self.value(value)) }
}

private final class Node {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, Node)])
        case array([Node])
    }

    var content: Content = .empty

    func build() -> JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .object(let members): return .object(JSONObject(members.map { (key: $0.0, value: $0.1.build()) }))
        case .array(let elements): return .array(elements.map { $0.build() })
        }
    }

    func member(_ key: String) -> Node {
        var members: [(String, Node)] = []
        if case .object(let existing) = content { members = existing }
        if let found = members.first(where: { $0.0 == key }) { return found.1 }
        let node = Node()
        members.append((key, node))
        content = .object(members)
        return node
    }

    func appendElement() -> Node {
        var elements: [Node] = []
        if case .array(let existing) = content { elements = existing }
        let node = Node()
        elements.append(node)
        content = .array(elements)
        return node
    }

    func set<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let tenths as Tenths:
            content = .value(.number(JSONNumber(lexeme: tenths.description, isInteger: false)))
        case let date as GolfDate:
            content = .value(.string(date.description))
        case let string as String:
            content = .value(.string(string))
        case let bool as Bool:
            content = .value(.bool(bool))
        case let int as Int:
            content = .value(.int(int))
        case let json as JSONValue:
            content = .value(json)
        default:
            try value.encode(to: TreeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = node.content { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = node.content { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.member(key.stringValue).set(value, codingPath: codingPath + [key])
    }

    // Optionals are written as null rather than left out, so the keys of a result never change.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = node.member(key.stringValue)
        child.content = .object([])
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.content = .array([])
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendElement().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.appendElement().set(value, codingPath: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = node.appendElement()
        child.content = .object([])
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.appendElement()
        child.content = .array([])
        return UnkeyedContainer(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.appendElement(), codingPath: codingPath) }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Int) throws { node.content = .value(.int(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.double(value)) }
}
