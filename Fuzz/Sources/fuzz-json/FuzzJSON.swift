// Fuzzes the strict JSON parser. Properties checked on every input:
// - parsing never crashes (errors are values with a location inside the text);
// - whatever it accepts, JSONWriter.compact and JSONWriter.pretty re-parse to the same value;
// - compact output is a fixed point (writing the re-parsed value gives the same text);
// - parseDocument (with locations) agrees with parse on valid UTF-8 text;
// - the duplicate-keys option accepts a superset and its value round-trips too;
// - Codable through JSONValueDecoder/JSONValueEncoder never crashes, and a decoded value encodes
//   to JSON that decodes to the same value again.

import ClubhouseJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let strict: JSONValue?
    do {
        strict = try JSONParser.parse(buffer)
    } catch {
        check(error.location.offset >= 0 && error.location.offset <= size, "error offset \(error.location.offset) outside 0...\(size)")
        check(error.location.line >= 1 && error.location.column >= 1, "error location \(error.location)")
        strict = nil
    }
    if let value = strict {
        roundTrip(value)
        codableRoundTrip(value)
    }

    // The text path (String) must agree with the byte path on valid UTF-8.
    if let text = String(validating: buffer, as: UTF8.self) {
        switch (strict, Result { () throws(JSONParseError) in try JSONParser.parseDocument(text) }) {
        case (let v?, .success(let document)):
            check(v == document.value, "parseDocument and parse disagree")
            check(document.locations[""] != nil, "no location for the root")
        case (nil, .failure), (nil, .success): break
        case (_?, .failure(let error)): fail("parse accepted what parseDocument refused: \(error)")
        }
    }

    // Duplicate keys allowed: accepts everything the strict parser does, and round-trips.
    if let lenient = try? JSONParser.parse(buffer, options: .init(allowDuplicateKeys: true)) {
        roundTrip(lenient)
        if let v = strict { check(v == lenient, "allowDuplicateKeys changed a document without duplicates") }
    } else {
        check(strict == nil, "allowDuplicateKeys refused what the strict parser accepted")
    }
    return 0
}

func roundTrip(_ value: JSONValue) {
    let compact = JSONWriter.compact(value)
    do {
        let again = try JSONParser.parse(compact)
        check(again == value, "compact round trip changed the value: \(compact)")
        check(JSONWriter.compact(again) == compact, "compact text is not a fixed point: \(compact)")
    } catch {
        fail("compact output does not re-parse (\(error)): \(compact)")
    }
    let pretty = JSONWriter.pretty(value)
    do {
        check(try JSONParser.parse(pretty) == value, "pretty round trip changed the value")
    } catch {
        fail("pretty output does not re-parse (\(error))")
    }
}

/// Any JSON through the generic Codable containers (not JSONValue's own fast path).
indirect enum Mirror: Codable, Equatable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([Mirror]), object([String: Mirror])

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object: [String: Mirror] = [:]
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(Mirror.self, forKey: key) }
            self = .object(object)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [Mirror] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(Mirror.self)) }
            self = .array(array)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { self = .null }
            else if let b = try? single.decode(Bool.self) { self = .bool(b) }
            else if let i = try? single.decode(Int.self) { self = .int(i) }
            else if let d = try? single.decode(Double.self) { self = .double(d) }
            else { self = .string(try single.decode(String.self)) }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null: var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let b): var c = encoder.singleValueContainer(); try c.encode(b)
        case .int(let i): var c = encoder.singleValueContainer(); try c.encode(i)
        case .double(let d): var c = encoder.singleValueContainer(); try c.encode(d)
        case .string(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for e in a { try c.encode(e) }
        case .object(let o):
            var c = encoder.container(keyedBy: Key.self)
            for (k, v) in o { try c.encode(v, forKey: Key(stringValue: k)) }
        }
    }
}

func codableRoundTrip(_ value: JSONValue) {
    // Numbers out of Double's range are refused by the decoder: an error, not a crash.
    guard let mirror = try? JSONValueDecoder().decode(Mirror.self, from: value) else { return }
    do {
        let encoded = try JSONValueEncoder().encode(mirror)
        let again = try JSONValueDecoder().decode(Mirror.self, from: encoded)
        check(again == mirror, "Codable round trip changed the value: \(JSONWriter.compact(encoded))")
    } catch {
        fail("a decoded value does not encode and decode again: \(error)")
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    // A property violation is a crash to libFuzzer, which saves the input.
    fatalError("fuzz-json: \(message)")
}
