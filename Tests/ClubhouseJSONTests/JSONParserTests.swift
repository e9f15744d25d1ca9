import XCTest
@testable import ClubhouseJSON

final class JSONParserTests: XCTestCase {
    func testKeepsNumberLexemesAndKinds() throws {
        let v = try JSONParser.parse(#"{"a":1.0,"b":-0.0,"c":5,"d":1E+30}"#)
        XCTAssertEqual(v["a"]?.numberValue?.lexeme, "1.0")
        XCTAssertEqual(v["a"]?.numberValue?.isInteger, false)
        XCTAssertEqual(v["b"]?.numberValue?.lexeme, "-0.0")
        XCTAssertEqual(v["c"]?.numberValue?.isInteger, true)
        XCTAssertEqual(v["d"]?.numberValue?.lexeme, "1E+30")
        XCTAssertEqual(v.objectValue?.keys, ["a", "b", "c", "d"])
    }

    func testDecodesEscapesAndSurrogatePairs() throws {
        let v = try JSONParser.parse(#"["a\"b\\c\/\n\u00e9\ud83d\ude00"]"#)
        XCTAssertEqual(v.arrayValue?.first?.stringValue, "a\"b\\c/\n\u{e9}\u{1F600}")
    }

    private func assertError(_ text: String, _ fragment: String, line: Int, column: Int,
                             file: StaticString = #filePath, lineNo: UInt = #line) {
        do {
            _ = try JSONParser.parse(text)
            XCTFail("parsed \(text) without error", file: file, line: lineNo)
        } catch {
            XCTAssertTrue(error.message.contains(fragment), "\(error)", file: file, line: lineNo)
            XCTAssertEqual(error.location.line, line, "\(error)", file: file, line: lineNo)
            XCTAssertEqual(error.location.column, column, "\(error)", file: file, line: lineNo)
        }
    }

    /// Issue 30, Why 10: a CSV given where JSON is expected says so, not only "unexpected 'x'".
    func testACSVFileIsCalledOne() {
        assertError("name,carry\n7i,150\n", "this looks like CSV (lines of comma-separated values), not JSON (unexpected 'n'; expected a value)",
                    line: 1, column: 1)
        assertError("1,2,3\n4,5,6\n", "this looks like CSV (lines of comma-separated values), not JSON (unexpected ',' after the JSON value)",
                    line: 1, column: 2)
        assertError("a;b\n", "this looks like CSV", line: 1, column: 1)
        // JSON with a mistake, or text without separators, is not called CSV.
        XCTAssertThrowsError(try JSONParser.parse("{\"a\": 1,}")) { XCTAssertFalse("\($0)".contains("CSV")) }
        XCTAssertThrowsError(try JSONParser.parse("hello world")) { XCTAssertFalse("\($0)".contains("CSV")) }
        XCTAssertThrowsError(try JSONParser.parse("[1,\n2,,]")) { XCTAssertFalse("\($0)".contains("CSV")) }
    }

    func testRejectsWhatCanonicalFormsCannotRepresent() {
        assertError("[NaN]", "NaN", line: 1, column: 2)
        assertError("[Infinity]", "Infinity", line: 1, column: 2)
        assertError("[-Infinity]", "-Infinity", line: 1, column: 2)
        assertError("{\n  \"a\": 012\n}", "leading zeros", line: 2, column: 8)
        assertError(#"["\udead"]"#, "lone low surrogate", line: 1, column: 3)
        assertError(#"["\ud83d x"]"#, "lone high surrogate", line: 1, column: 3)
        assertError("{\"a\":1} x", "after the JSON value", line: 1, column: 9)
        assertError("{\"a\":1,\"a\":2}", "duplicate key \"a\"", line: 1, column: 8)
        assertError("[1,]", "expected a value", line: 1, column: 4)
        assertError("\"abc", "unterminated string", line: 1, column: 1)
        assertError("[\"a\tb\"]", "control character U+0009", line: 1, column: 4)
        assertError("", "empty input", line: 1, column: 1)
        assertError("[1.]", "after the decimal point", line: 1, column: 2)
        assertError("[1e]", "exponent", line: 1, column: 2)
    }

    func testRejectsDepthBombs() {
        let bomb = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(bomb)) { error in
            XCTAssertTrue("\(error)".contains("nesting deeper than 512"), "\(error)")
        }
        XCTAssertNoThrow(try JSONParser.parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)))
    }

    func testRejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D]
        XCTAssertThrowsError(try JSONParser.parse(bytes: bytes)) { error in
            XCTAssertEqual((error as? JSONParseError)?.location.column, 4)
        }
    }

    func testDocumentRecordsLocationsByPointer() throws {
        let text = "{\n  \"sites\": {\n    \"a/b\": [true, {\"x\": null}]\n  }\n}"
        let doc = try JSONParser.parseDocument(text)
        XCTAssertEqual(doc.location(of: "/sites").description, "2:12")
        XCTAssertEqual(doc.location(of: "/sites/a~1b/1/x").description, "3:25")
        XCTAssertEqual(doc.location(of: "/sites/a~1b/0").description, "3:13")
        XCTAssertEqual(doc.location(of: "/sites/missing").description, "2:12")
    }

    /// Locations are worked out from byte offsets on demand (one binary search over the line starts):
    /// the table, a key's location, an exact lookup and the nearest ancestor agree with a count of the
    /// lines and bytes before each value, at a line's first and last byte and past a multi-byte character.
    func testDocumentLocationsAreWorkedOutOnDemand() throws {
        let text = "{\"é\": 1,\n\"b\":\n[2,\n  {\"c\": \"x\"}],\r\n\"d\": null}\n"
        let doc = try JSONParser.parseDocument(text)
        let bytes = Array(text.utf8)
        func expected(_ offset: Int) -> String {
            let before = bytes[..<offset]
            let line = before.filter { $0 == 0x0A }.count + 1
            let start = (before.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
            return "\(line):\(offset - start + 1)"
        }
        XCTAssertEqual(doc.locations.count, 7)
        for (pointer, location) in doc.locations {
            XCTAssertEqual(location.description, expected(location.offset), pointer)
            XCTAssertEqual(doc.location(of: pointer), location, pointer)
            XCTAssertEqual(doc.exactLocation(of: pointer), location, pointer)
        }
        XCTAssertEqual(doc.location(of: "/%C3%A9").description, "1:1", "no such member: the root")
        XCTAssertEqual(doc.location(of: "/é").description, "1:8", "the column counts bytes: é is two")
        XCTAssertEqual(doc.keyLocation(of: "/é").description, "1:2")
        XCTAssertEqual(doc.location(of: "/b").description, "3:1")
        XCTAssertEqual(doc.location(of: "/b/1/c").description, "4:9")
        XCTAssertEqual(doc.location(of: "/b/1/c/deeper").description, "4:9", "the nearest recorded ancestor")
        XCTAssertNil(doc.exactLocation(of: "/b/1/c/deeper"))
        XCTAssertEqual(doc.keyLocation(of: "/d").description, "5:1", "after CR LF: the CR ends the line before")
        XCTAssertEqual(doc.location(of: "/d").description, "5:6")
        XCTAssertEqual(doc.keyLocations.count, 4)
        XCTAssertEqual(doc.keyLocations["/b/1/c"]?.description, "4:4")
    }

    /// The members of one object other than the kept one are scanned, not built: null in their object,
    /// no locations but their key's, listed in order; the kept member and everything around is as a whole parse.
    func testADocumentCanSkipTheOtherMembersOfOneObject() throws {
        let text = "{\"top\": 1,\n\"sites\": {\"a\": {\"x\": [1, 2]},\n \"b\": {\"y\": \"\\u00e9\"}, \"c\": [true]},\n\"z\": {\"a\": 2}}"
        let whole = try JSONParser.parseDocument(text)
        let doc = try JSONParser.parseDocument(text, skippingMembersOf: "/sites", except: .named("b"))
        XCTAssertEqual(doc.skippedMembers, ["a", "c"])
        XCTAssertEqual(whole.skippedMembers, [])
        XCTAssertEqual(doc.value["sites"]?.objectValue?.keys.map { $0 }, ["a", "b", "c"])
        XCTAssertEqual(doc.value["sites"]?["a"], .null)
        XCTAssertEqual(doc.value["sites"]?["c"], .null)
        XCTAssertEqual(doc.value["sites"]?["b"], whole.value["sites"]?["b"])
        XCTAssertEqual(doc.value["z"], whole.value["z"], "an \"a\" elsewhere is built")
        XCTAssertEqual(doc.value["top"], whole.value["top"])
        for pointer in ["", "/top", "/sites", "/sites/b", "/sites/b/y", "/z", "/z/a"] {
            XCTAssertEqual(doc.exactLocation(of: pointer), whole.exactLocation(of: pointer), pointer)
        }
        XCTAssertNil(doc.exactLocation(of: "/sites/a/x"))
        XCTAssertNil(doc.exactLocation(of: "/sites/a"))
        XCTAssertEqual(doc.keyLocation(of: "/sites/c"), whole.keyLocation(of: "/sites/c"), "a skipped member's key is located")
        // Not well-formed inside a skipped member: the whole parse's error, at the same place.
        for bad in ["{\"sites\": {\"a\": {\"x\": [1, 02]}, \"b\": {}}}", "{\"sites\": {\"a\": \"\\q\", \"b\": {}}}",
                    "{\"sites\": {\"a\": tru, \"b\": {}}}", "{\"sites\": {\"a\": {}, \"a\": {}, \"b\": {}}}"] {
            var wholeError: JSONParseError?
            do { _ = try JSONParser.parseDocument(bad) } catch { wholeError = error }
            do {
                _ = try JSONParser.parseDocument(bad, skippingMembersOf: "/sites", except: .named("b"))
                XCTFail("accepted \(bad)")
            } catch {
                XCTAssertEqual(error.description, wholeError?.description, bad)
            }
        }
        // Kept as the root's "pick" names it, when it comes first; after, or not a string: nothing is skipped.
        let named = try JSONParser.parseDocument("{\"pick\": \"c\", \"sites\": {\"a\": 1, \"c\": [2], \"pick\": 3}}",
                                                 skippingMembersOf: "/sites", except: .namedByRootMember("pick"))
        XCTAssertEqual(named.skippedMembers, ["a", "pick"])
        XCTAssertEqual(named.value["sites"]?["c"], [2])
        for late in ["{\"sites\": {\"a\": 1, \"c\": 2}, \"pick\": \"c\"}", "{\"pick\": 5, \"sites\": {\"a\": 1, \"c\": 2}}",
                     "{\"x\": {\"pick\": \"c\"}, \"sites\": {\"a\": 1, \"c\": 2}}"] {
            let doc = try JSONParser.parseDocument(late, skippingMembersOf: "/sites", except: .namedByRootMember("pick"))
            XCTAssertEqual(doc.skippedMembers, [], late)
            XCTAssertEqual(doc.value, try JSONParser.parse(late), late)
        }
        // Nothing to keep (no such member): every member is skipped.
        XCTAssertEqual(try JSONParser.parseDocument(text, skippingMembersOf: "/sites", except: .named("nope")).skippedMembers, ["a", "b", "c"])
    }

    func testWriterEscapesMinimallyAndRoundTrips() throws {
        let v: JSONValue = ["k": "a\"\\\u{1}\u{7F}\u{2028}é", "n": 1.5, "z": [true, nil]]
        XCTAssertEqual(JSONWriter.compact(v), "{\"k\":\"a\\\"\\\\\\u0001\u{7F}\u{2028}é\",\"n\":1.5,\"z\":[true,null]}")
        XCTAssertEqual(try JSONParser.parse(JSONWriter.pretty(v)), v)
    }
}

final class JSONKeyIdentityTests: XCTestCase {
    /// JSON keys are code point sequences: "é" (U+00E9) and "é" (e + U+0301) are different keys,
    /// though Swift's String == calls them equal.
    func testCanonicallyEquivalentKeysAreNotDuplicates() throws {
        let v = try JSONParser.parse("{\"\\u00e9\":1,\"e\\u0301\":2}")
        XCTAssertEqual(v.objectValue?.count, 2)
        XCTAssertEqual(v["\u{E9}"]?.intValue, 1)
        XCTAssertEqual(v["e\u{301}"]?.intValue, 2)
        // Past 16 members the parser switches to a set; the rule must hold there too.
        let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let w = try JSONParser.parse("{" + many + ",\"\\u00e9\":1,\"e\\u0301\":2}")
        XCTAssertEqual(w.objectValue?.count, 22)
        XCTAssertThrowsError(try JSONParser.parse("{" + many + ",\"k3\":1}"))
    }
}
