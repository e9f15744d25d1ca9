// Codable straight to and from JSONValue, without Foundation: a plugin's typed requests, replies
// and stored documents never pass through text, and a plugin that uses only these coders does not
// load Foundation (and ICU) into the host.
//
// Numbers follow what Foundation's JSONEncoder writes, so output does not change with the coder:
// integers as integers, doubles in their shortest round-trip form with a whole value written
// without ".0" (3.0 → 3), NaN and infinities refused. Keys are sorted by default (stable output).
// A nil optional member is left out by default (as JSONEncoder does); `nilEncoding: .null` writes
// it as null instead, so a reply's keys never depend on its values. A type that knows its exact
// JSON (a decimal with a fixed number of places, say) conforms to JSONValueRepresentable.

/// A value that gives JSONValueEncoder its JSON itself instead of going through its Encodable form
/// (other encoders still use that form).
public protocol JSONValueRepresentable {
    var jsonValue: JSONValue { get }
}

/// Encodes an Encodable value into a JSONValue.
public struct JSONValueEncoder: Sendable {
    /// What a nil optional member of a keyed container becomes.
    public enum NilEncoding: Sendable {
        /// Left out of its object (JSONEncoder's behaviour; the default).
        case omit
        /// Written as `null`, so every key is always present.
        case null
    }

    /// Object keys in ascending order (by Unicode scalars) instead of the order they were encoded.
    public var sortedKeys: Bool
    /// What `encodeIfPresent` does with nil.
    public var nilEncoding: NilEncoding

    public init(sortedKeys: Bool = true) {
        self.init(sortedKeys: sortedKeys, nilEncoding: .omit)
    }

    public init(sortedKeys: Bool = true, nilEncoding: NilEncoding) {
        self.sortedKeys = sortedKeys
        self.nilEncoding = nilEncoding
    }

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let direct = try EncodingSlot.primitive(value, codingPath: []) { return direct }
        let node = EncodingNode()
        try value.encode(to: NodeEncoder(node: node, codingPath: [], options: options))
        return node.resolve(sortedKeys: sortedKeys)
    }

    var options: EncodingOptions { EncodingOptions(sortedKeys: sortedKeys, nullForNil: nilEncoding == .null) }

    /// A number for a double the way Foundation's JSONEncoder writes it; nil for NaN and infinities.
    public static func number(_ value: Double) -> JSONNumber? {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        let isInteger = !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        return JSONNumber(lexeme: text, isInteger: isInteger)
    }
}

/// Decodes a Decodable value from a JSONValue.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try NodeDecoder(value: value, codingPath: []).decodeValue(type)
    }

    /// One line for a decoding error: where (a path like `zones[3].speed`) and what went wrong.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func at(_ path: [any CodingKey]) -> String {
            var text = ""
            for key in path {
                if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(at(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(at(context.codingPath + [key])): missing (\(context.debugDescription))"
        @unknown default:
            return "\(error)"
        }
    }
}

// MARK: - Encoding

/// The encoder's settings, carried by every container.
struct EncodingOptions {
    let sortedKeys: Bool
    let nullForNil: Bool
}

/// A coding key made from a string or an index.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
    init(_ key: any CodingKey) { stringValue = key.stringValue; intValue = key.intValue }
    static let superKey = AnyKey(stringValue: "super")
}

/// What an encoder wrote: a finished value or a node still being filled.
enum EncodingSlot {
    case value(JSONValue)
    case node(EncodingNode)

    func resolve(sortedKeys: Bool) -> JSONValue {
        switch self {
        case .value(let v): return v
        case .node(let n): return n.resolve(sortedKeys: sortedKeys)
        }
    }

    static func invalidFloat(_ value: Any, _ codingPath: [any CodingKey]) -> EncodingError {
        .invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) cannot be written as JSON (no NaN or infinity)"))
    }

    /// The JSON of a value whose encoding is one scalar, without going through an encoder.
    static func primitive<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let v as String: return .string(v)
        case let v as Int: return .int(v)
        case let v as Double:
            guard let n = JSONValueEncoder.number(v) else { throw invalidFloat(v, codingPath) }
            return .number(n)
        case let v as Bool: return .bool(v)
        case let v as JSONValue: return v
        case let v as any JSONValueRepresentable: return v.jsonValue
        case let v as Float:
            guard v.isFinite, let n = JSONValueEncoder.number(Double(v.description) ?? Double(v)) else { throw invalidFloat(v, codingPath) }
            return .number(n)
        case let v as Int64: return .number(JSONNumber(lexeme: String(v), isInteger: true))
        case let v as UInt64: return .number(JSONNumber(lexeme: String(v), isInteger: true))
        case let v as UInt: return .number(JSONNumber(lexeme: String(v), isInteger: true))
        case let v as Int32: return .int(Int(v))
        case let v as UInt32: return .int(Int(v))
        case let v as Int16: return .int(Int(v))
        case let v as UInt16: return .int(Int(v))
        case let v as Int8: return .int(Int(v))
        case let v as UInt8: return .int(Int(v))
        default: return nil
        }
    }
}

/// A container being filled: nothing yet, one value, an object or an array.
final class EncodingNode {
    enum Content {
        case empty
        case single(JSONValue)
        case object(keys: [String], slots: [String: EncodingSlot])
        case array([EncodingSlot])
    }
    var content: Content = .empty

    func resolve(sortedKeys: Bool) -> JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .single(let v): return v
        case .object(let keys, let slots):
            let order = sortedKeys ? keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }) : keys
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(order.count)
            for key in order {
                if let slot = slots[key] { members.append((key, slot.resolve(sortedKeys: sortedKeys))) }
            }
            return .object(JSONObject(members))
        case .array(let slots):
            return .array(slots.map { $0.resolve(sortedKeys: sortedKeys) })
        }
    }

    func makeObject() {
        if case .object = content { return }
        content = .object(keys: [], slots: [:])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func set(_ slot: EncodingSlot, forKey key: String) {
        guard case .object(var keys, var slots) = content else { return }
        content = .empty
        if slots.updateValue(slot, forKey: key) == nil { keys.append(key) }
        content = .object(keys: keys, slots: slots)
    }

    func append(_ slot: EncodingSlot) {
        guard case .array(var slots) = content else { return }
        content = .empty
        slots.append(slot)
        content = .array(slots)
    }

    var arrayCount: Int {
        if case .array(let slots) = content { return slots.count }
        return 0
    }
}

struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let options: EncodingOptions
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedNodeEncoder<Key>(node: node, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedNodeEncoder(node: node, codingPath: codingPath, options: options)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeEncoder(node: node, codingPath: codingPath, options: options)
    }

    /// Encodes a nested value into a slot.
    static func slot<T: Encodable>(_ value: T, codingPath: [any CodingKey], options: EncodingOptions) throws -> EncodingSlot {
        if let direct = try EncodingSlot.primitive(value, codingPath: codingPath) { return .value(direct) }
        let child = EncodingNode()
        try value.encode(to: NodeEncoder(node: child, codingPath: codingPath, options: options))
        if case .single(let v) = child.content { return .value(v) }
        return .node(child)
    }
}

struct KeyedNodeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    mutating func encodeNil(forKey key: Key) throws { node.set(.value(.null), forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.set(.value(.bool(value)), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.set(.value(.string(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.set(.value(.int(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard let n = JSONValueEncoder.number(value) else { throw EncodingSlot.invalidFloat(value, codingPath + [key]) }
        node.set(.value(.number(n)), forKey: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(try NodeEncoder.slot(value, codingPath: codingPath + [key], options: options), forKey: key.stringValue)
    }

    // With nilEncoding .null, a nil optional is written as null instead of being left out. Every
    // overload is here because the synthesized encode(to:) calls the one of the member's type.
    private mutating func present<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else if options.nullForNil { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, forKey: key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        node.set(.node(child), forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key], options: options).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        node.set(.node(child), forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key], options: options).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: AnyKey.superKey) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: AnyKey(key)) }

    private func superEncoder(key: AnyKey) -> any Encoder {
        let child = EncodingNode()
        node.set(.node(child), forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key], options: options)
    }
}

struct UnkeyedNodeEncoder: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let options: EncodingOptions
    var count: Int { node.arrayCount }

    private var nextKey: AnyKey { AnyKey(intValue: count) }

    mutating func encodeNil() throws { node.append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { node.append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { node.append(.value(.string(value))) }
    mutating func encode(_ value: Int) throws { node.append(.value(.int(value))) }
    mutating func encode(_ value: Double) throws {
        guard let n = JSONValueEncoder.number(value) else { throw EncodingSlot.invalidFloat(value, codingPath + [nextKey]) }
        node.append(.value(.number(n)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.append(try NodeEncoder.slot(value, codingPath: codingPath + [nextKey], options: options))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [nextKey]
        let child = EncodingNode()
        node.append(.node(child))
        return NodeEncoder(node: child, codingPath: path, options: options).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [nextKey]
        let child = EncodingNode()
        node.append(.node(child))
        return NodeEncoder(node: child, codingPath: path, options: options).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [nextKey]
        let child = EncodingNode()
        node.append(.node(child))
        return NodeEncoder(node: child, codingPath: path, options: options)
    }
}

struct SingleNodeEncoder: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    mutating func encodeNil() throws { node.content = .single(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .single(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .single(.string(value)) }
    mutating func encode(_ value: Int) throws { node.content = .single(.int(value)) }
    mutating func encode(_ value: Double) throws {
        guard let n = JSONValueEncoder.number(value) else { throw EncodingSlot.invalidFloat(value, codingPath) }
        node.content = .single(.number(n))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        switch try NodeEncoder.slot(value, codingPath: codingPath, options: options) {
        case .value(let v): node.content = .single(v)
        case .node(let child): node.content = child.content
        }
    }
}

// MARK: - Decoding

struct NodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw NodeDecoder.mismatch([String: JSONValue].self, "an object", value, codingPath)
        }
        return KeyedDecodingContainer(KeyedNodeDecoder<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw NodeDecoder.mismatch([JSONValue].self, "an array", value, codingPath)
        }
        return UnkeyedNodeDecoder(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    static func mismatch(_ type: Any.Type, _ expected: String, _ found: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if found.isNull {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(expected), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(expected), found \(found.kindName)"))
    }

    func number<T>(_ type: T.Type, _ expected: String) throws -> JSONNumber {
        guard case .number(let n) = value else { throw NodeDecoder.mismatch(type, expected, value, codingPath) }
        return n
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let n = try number(type, "an integer")
        if n.isInteger, let exact = T(n.lexeme) { return exact }
        if let whole = n.int, let exact = T(exactly: whole) { return exact }
        let d = n.double
        if d.isFinite, d.rounded() == d, let exact = T(exactly: d) { return exact }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(n.lexeme) does not fit \(T.self)"))
    }

    func floating() throws -> Double {
        let n = try number(Double.self, "a number")
        let d = n.double
        guard d.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(n.lexeme) is out of range for a double"))
        }
        return d
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // The common scalars without the generic Decodable path (the casts cannot fail: T is that type).
        if T.self == String.self, let v = try decode(String.self) as? T { return v }
        if T.self == Int.self, let v = try integer(Int.self) as? T { return v }
        if T.self == Double.self, let v = try floating() as? T { return v }
        if T.self == Bool.self, let v = try decode(Bool.self) as? T { return v }
        if T.self == JSONValue.self, let v = value as? T { return v }
        return try T(from: self)
    }
}

extension NodeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw NodeDecoder.mismatch(type, "true or false", value, codingPath) }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw NodeDecoder.mismatch(type, "a string", value, codingPath) }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double { try floating() }

    func decode(_ type: Float.Type) throws -> Float {
        let d = try floating()
        let f = Float(d)
        guard f.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(d) is out of range for a float"))
        }
        return f
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

struct KeyedNodeDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]
    /// Member index by key, built once for objects large enough that a scan would cost more.
    private let index: [String: Int]?

    init(object: JSONObject, codingPath: [any CodingKey]) {
        self.object = object
        self.codingPath = codingPath
        if object.count > 12 {
            var index: [String: Int] = [:]
            for (i, member) in object.members.enumerated() where index[member.key] == nil { index[member.key] = i }
            self.index = index
        } else {
            index = nil
        }
    }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    private func lookup(_ key: Key) -> JSONValue? {
        if let index {
            return index[key.stringValue].map { object.members[$0].value }
        }
        return object[key.stringValue]
    }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    private func child(_ key: Key) throws -> NodeDecoder {
        guard let value = lookup(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return NodeDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).value.isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try NodeDecoder(value: value, codingPath: codingPath + [key]).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(value: object[AnyKey.superKey.stringValue] ?? .null, codingPath: codingPath + [AnyKey.superKey])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(value: lookup(key) ?? .null, codingPath: codingPath + [key])
    }
}

struct UnkeyedNodeDecoder: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next<T>(_ type: T.Type) throws -> NodeDecoder {
        let key = AnyKey(intValue: currentIndex)
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key],
                                                          debugDescription: "the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return NodeDecoder(value: elements[currentIndex], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath + [AnyKey(intValue: currentIndex)],
                                                                    debugDescription: "the array has only \(elements.count) elements"))
        }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(JSONObject.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}
