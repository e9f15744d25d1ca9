// Rows decoded as Decodable values by column name, and Encodable values bound as named
// parameters: the Codable side of Storage, without reflection or Foundation.
//
// Decoding: a property reads the column of the same name (a CodingKeys raw value renames it).
// Int, Int64, Int32, Double, Float, Bool (0/1), String, [UInt8] (blob) and RawRepresentable enums
// over those; optionals read NULL (or a missing column) as nil. Encoding is the mirror: each
// property binds the parameter of its name (":name", "@name" or "$name"), nil binds NULL.

/// A column that is not what the property wants, or an unsupported shape.
struct SQLCodingError: Error, CustomStringConvertible {
    let description: String
}

/// Decodes one row: a keyed container over its columns.
struct SQLRowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(row: row))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SQLCodingError(description: "a row decodes as a keyed value (a struct), not a list")
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw SQLCodingError(description: "a row decodes as a keyed value (a struct), not a single value")
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: Row
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columns.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { row.has(key.stringValue) }
        func decodeNil(forKey key: Key) throws -> Bool { row[key.stringValue].isNull }

        private func value(_ key: Key) throws -> SQLValue {
            guard row.has(key.stringValue) else {
                throw SQLCodingError(description: "the row has no column '\(key.stringValue)' (columns: \(row.columns.joined(separator: ", ")))")
            }
            return row[key.stringValue]
        }
        private func mismatch(_ key: Key, _ wanted: String, _ got: SQLValue) -> SQLCodingError {
            SQLCodingError(description: "column '\(key.stringValue)' holds \(got), not \(wanted)")
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            let v = try value(key)
            guard let i = v.int64 else { throw mismatch(key, "a boolean (0 or 1)", v) }
            return i != 0
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            let v = try value(key)
            guard let s = v.string else { throw mismatch(key, "text", v) }
            return s
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            let v = try value(key)
            guard let d = v.double else { throw mismatch(key, "a number", v) }
            return d
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

        private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
            let v = try value(key)
            guard let i = v.int64, let exact = I(exactly: i) else { throw mismatch(key, "an integer that fits \(I.self)", v) }
            return exact
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if T.self == [UInt8].self {
                let v = try value(key)
                guard let bytes = v.bytes as? T else { throw mismatch(key, "a blob", v) }
                return bytes
            }
            return try T(from: ColumnDecoder(value: try value(key), key: key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            throw SQLCodingError(description: "column '\(key.stringValue)': a row has no nested values")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw SQLCodingError(description: "column '\(key.stringValue)': a row has no nested lists")
        }
        func superDecoder() throws -> any Decoder { SQLRowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { SQLRowDecoder(row: row) }
    }
}

/// One column's value seen as a single value (for RawRepresentable enums and wrapper types).
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLValue
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<K: CodingKey>(keyedBy type: K.Type) throws -> KeyedDecodingContainer<K> {
        throw SQLCodingError(description: "column '\(key.stringValue)' holds one value, not a keyed one")
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SQLCodingError(description: "column '\(key.stringValue)' holds one value, not a list")
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func mismatch(_ wanted: String) -> SQLCodingError {
        SQLCodingError(description: "column '\(key.stringValue)' holds \(value), not \(wanted)")
    }
    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool {
        guard let i = value.int64 else { throw mismatch("a boolean") }
        return i != 0
    }
    func decode(_ type: String.Type) throws -> String {
        guard let s = value.string else { throw mismatch("text") }
        return s
    }
    func decode(_ type: Double.Type) throws -> Double {
        guard let d = value.double else { throw mismatch("a number") }
        return d
    }
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    private func integer<I: FixedWidthInteger>() throws -> I {
        guard let i = value.int64, let exact = I(exactly: i) else { throw mismatch("an integer that fits \(I.self)") }
        return exact
    }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}

/// Turns an Encodable value's properties into named parameters.
enum SQLParameterEncoder {
    static func parameters<E: Encodable>(_ value: E) throws -> [String: SQLValue] {
        let sink = Sink()
        try value.encode(to: Encoder(sink: sink, key: nil))
        return sink.values
    }

    final class Sink {
        var values: [String: SQLValue] = [:]
    }

    struct Encoder: Swift.Encoder {
        let sink: Sink
        /// Set when encoding one property's value (a wrapper or a RawRepresentable enum).
        let key: String?
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<K: CodingKey>(keyedBy type: K.Type) -> KeyedEncodingContainer<K> {
            KeyedEncodingContainer(Keyed<K>(sink: sink))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Refuse(key: key) }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(sink: sink, key: key) }
    }

    struct Keyed<K: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: K) throws { sink.values[key.stringValue] = .null }
        mutating func encode(_ value: Bool, forKey key: K) throws { sink.values[key.stringValue] = SQLValue(value) }
        mutating func encode(_ value: String, forKey key: K) throws { sink.values[key.stringValue] = .text(value) }
        mutating func encode(_ value: Double, forKey key: K) throws { sink.values[key.stringValue] = .real(value) }
        mutating func encode(_ value: Float, forKey key: K) throws { sink.values[key.stringValue] = .real(Double(value)) }
        mutating func encode(_ value: Int, forKey key: K) throws { sink.values[key.stringValue] = .integer(Int64(value)) }
        mutating func encode(_ value: Int64, forKey key: K) throws { sink.values[key.stringValue] = .integer(value) }
        mutating func encode(_ value: Int32, forKey key: K) throws { sink.values[key.stringValue] = .integer(Int64(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: K) throws {
            if let bytes = value as? [UInt8] {
                sink.values[key.stringValue] = .blob(bytes)
            } else if let sql = value as? SQLValue {
                sink.values[key.stringValue] = sql
            } else {
                try value.encode(to: Encoder(sink: sink, key: key.stringValue))
            }
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: K) throws {
            if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: K) -> KeyedEncodingContainer<N> {
            KeyedEncodingContainer(Keyed<N>(sink: Sink()))
        }
        mutating func nestedUnkeyedContainer(forKey key: K) -> any UnkeyedEncodingContainer { Refuse(key: key.stringValue) }
        mutating func superEncoder() -> any Swift.Encoder { Encoder(sink: sink, key: nil) }
        mutating func superEncoder(forKey key: K) -> any Swift.Encoder { Encoder(sink: sink, key: key.stringValue) }
    }

    struct Single: SingleValueEncodingContainer {
        let sink: Sink
        let key: String?
        var codingPath: [any CodingKey] { [] }
        private func put(_ value: SQLValue) throws {
            guard let key else { throw SQLCodingError(description: "parameters come from a keyed value (a struct), not a single value") }
            sink.values[key] = value
        }
        mutating func encodeNil() throws { try put(.null) }
        mutating func encode(_ value: Bool) throws { try put(SQLValue(value)) }
        mutating func encode(_ value: String) throws { try put(.text(value)) }
        mutating func encode(_ value: Double) throws { try put(.real(value)) }
        mutating func encode(_ value: Float) throws { try put(.real(Double(value))) }
        mutating func encode(_ value: Int) throws { try put(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { try put(.integer(value)) }
        mutating func encode(_ value: Int32) throws { try put(.integer(Int64(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: Encoder(sink: sink, key: key)) }
    }

    /// Lists have no parameter form: encoding one fails when the value is bound.
    struct Refuse: UnkeyedEncodingContainer {
        let key: String?
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        private func refuse() throws -> Never {
            throw SQLCodingError(description: "parameter '\(key ?? "?")' is a list; bind lists as text or a blob")
        }
        mutating func encodeNil() throws { try refuse() }
        mutating func encode<T: Encodable>(_ value: T) throws { try refuse() }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type) -> KeyedEncodingContainer<N> {
            KeyedEncodingContainer(Keyed<N>(sink: Sink()))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Swift.Encoder { Encoder(sink: Sink(), key: key) }
    }
}
