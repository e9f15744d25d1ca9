// Fuzzes the strict JSON parser. Properties checked on every input:
// - parsing never crashes (errors are values with a location inside the text);
// - whatever it accepts, JSONWriter.compact and JSONWriter.pretty re-parse to the same value;
// - compact output is a fixed point (writing the re-parsed value gives the same text);
// - parseDocument (with locations) agrees with parse on valid UTF-8 text;
// - the duplicate-keys option accepts a superset and its value round-trips too.

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
    if let value = strict { roundTrip(value) }

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

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never {
    // A property violation is a crash to libFuzzer, which saves the input.
    fatalError("fuzz-json: \(message)")
}
