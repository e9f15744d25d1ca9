import ClubhouseJSON
import Foundation
import ClubhouseHashing
import XCTest
@testable import PracticeCore

final class CanonicalJSONTests: XCTestCase {
    private func canonical(_ text: String, _ profile: CanonicalProfile) throws -> String {
        try CanonicalCommands.canonicalize(CanonicalizeRequest(profile: profile, input: Array(text.utf8), sourceName: "t.json"))
            .canonical
    }

    /// The tree writer and the one-pass writer must agree byte for byte.
    private func bothWriters(_ text: String, _ profile: CanonicalProfile) throws -> String {
        let viaTree = try CanonicalJSON.string(of: JSONParser.parse(text), profile: profile)
        XCTAssertEqual(try canonical(text, profile), viaTree, "one-pass and tree writers differ on \(text)")
        return viaTree
    }

    // MARK: oracles from the kernel's data

    func testAllTwelveKernelVectors() throws {
        let document = try JSONParser.parse(SharedData.text(SharedData.practice("jcs_vectors.json")))
        let vectors = try XCTUnwrap(document["vectors"]?.arrayValue)
        XCTAssertEqual(vectors.count, 12)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let input = try XCTUnwrap(vector["input"])
            let bytes = try CanonicalJSON.bytes(of: input, profile: .raidV2)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), vector["canonical"]?.stringValue, name)
            XCTAssertEqual(SHA256.hash(bytes).hex, vector["sha256"]?.stringValue, name)
            // The same document as text through the one-pass writer.
            let hash = try CanonicalCommands.hash(HashRequest(profile: .raidV2, input: Array(JSONWriter.pretty(input).utf8),
                                                              sourceName: name))
            XCTAssertEqual(hash.documents.first?.sha256, vector["sha256"]?.stringValue, name)
        }
    }

    func testTheThreeTemplateHashes() throws {
        let expected = try JSONParser.parse(SharedData.text(SharedData.practice("template_hashes.json")))
        for name in ["fixture_a", "fixture_b", "fixture_c"] {
            let bytes = try SharedData.bytes(SharedData.practice("templates/\(name).json"))
            let result = try CanonicalCommands.hash(HashRequest(profile: .raidV2, input: bytes, sourceName: name))
            XCTAssertEqual(result.documents.first?.sha256, expected[name]?.stringValue, name)
        }
    }

    func testFixtureCKeepsOnePointZero() throws {
        // fixture_c only hashes right if 1.0 stays 1.0 (and 1 stays 1).
        XCTAssertEqual(try bothWriters(#"{"a_min":1.0,"b_min":1}"#, .raidV2), #"{"a_min":1.0,"b_min":1}"#)
        XCTAssertEqual(try bothWriters(#"{"a_min":1.0,"b_min":1}"#, .rfc8785), #"{"a_min":1,"b_min":1}"#)
    }

    // MARK: RFC 8785

    /// Appendix B: IEEE-754 bit patterns and their ECMAScript text.
    static let appendixB: [(bits: UInt64, text: String)] = [
        (0x0000_0000_0000_0000, "0"), (0x8000_0000_0000_0000, "0"), (0x0000_0000_0000_0001, "5e-324"),
        (0x8000_0000_0000_0001, "-5e-324"), (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
        (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"), (0x4340_0000_0000_0000, "9007199254740992"),
        (0xc340_0000_0000_0000, "-9007199254740992"), (0x4430_0000_0000_0000, "295147905179352830000"),
        (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"), (0x44b5_2d02_c7e1_4af6, "1e+23"),
        (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"), (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
        (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"), (0x444b_1ae4_d6e2_ef50, "1e+21"),
        (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"), (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
        (0x41b3_de43_5555_5553, "333333333.3333332"), (0x41b3_de43_5555_5554, "333333333.33333325"),
        (0x41b3_de43_5555_5555, "333333333.3333333"), (0x41b3_de43_5555_5556, "333333333.3333334"),
        (0x41b3_de43_5555_5557, "333333333.33333343"), (0xbecb_f647_612f_3696, "-0.0000033333333333333333"),
        (0x4314_3ff3_c1cb_0959, "1424953923781206.2"),
    ]

    func testAppendixBNumbers() throws {
        for (bits, text) in Self.appendixB {
            let value = Double(bitPattern: bits)
            // Written with Swift's shortest form, and also as the RFC's own text, both must come out the same.
            XCTAssertEqual(try bothWriters(JSONValue.double(value).description, .rfc8785), text, String(bits, radix: 16))
            XCTAssertEqual(try bothWriters(text, .rfc8785), text, String(bits, radix: 16))
        }
    }

    func testAppendixBNaNAndInfinityAreRejected() {
        // 7fffffffffffffff and 7ff0000000000000: no JSON text denotes them, and an overflowing
        // literal is refused rather than written as Infinity.
        for text in ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"] {
            for profile in CanonicalProfile.allCases {
                XCTAssertThrowsError(try canonical(text, profile), "\(text) \(profile)")
            }
        }
    }

    func testRFCSortingExample() throws {
        // §3.2.3: keys sorted by UTF-16 code units.
        let input = #"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#
        let out = try JSONParser.parse(try bothWriters(input, .rfc8785))
        XCTAssertEqual(out.objectValue?.members.compactMap { $0.value.stringValue }, [
            "Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign",
            "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh",
        ])
        // raid-v2 sorts keys the same way (only numbers differ between the profiles).
        XCTAssertEqual(try bothWriters(input, .raidV2), try bothWriters(input, .rfc8785))
    }

    func testRFCSerializationExample() throws {
        // §3.2.2.
        let input = #"{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}"#
        XCTAssertEqual(try bothWriters(input, .rfc8785),
                       #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#)
    }

    // MARK: the peers' disagreement table

    /// Every row of `jcs_disagreements.md`: rfc8785 must equal the "numbers-as-double" column;
    /// raid-v2 must equal canonicaljson except where only key order differs (raid-v2 sorts by
    /// UTF-16 code units, canonicaljson by code point).
    func testEveryRowOfThePeersDisagreementTable() throws {
        let table = try SharedData.text(SharedData.peers("jcs_disagreements.md"))
        var rows = 0
        for line in table.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| case") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 6 else { continue }
            let label = cells[1]
            let input = unquote(cells[2]), canonicaljson = unquote(cells[3]), double = unquote(cells[5])
            let keyOrderRow = label.contains("key order") || label.contains("sorting")
            let raidExpected = keyOrderRow ? double : canonicaljson
            for (profile, expected) in [(CanonicalProfile.raidV2, raidExpected), (.rfc8785, double)] {
                if expected.hasPrefix("ERROR") {
                    XCTAssertThrowsError(try canonical(input, profile), "\(label) \(profile)")
                } else {
                    XCTAssertEqual(try bothWriters(input, profile), expected, "\(label) \(profile)")
                }
            }
            rows += 1
        }
        XCTAssertGreaterThanOrEqual(rows, 28, "the table should have all its rows")
    }

    /// Table cells are `code spans`; `<U+XXXX>` stands for an invisible character.
    private func unquote(_ cell: String) -> String {
        var s = cell
        if s.hasPrefix("`") && s.hasSuffix("`") && s.count >= 2 { s = String(s.dropFirst().dropLast()) }
        while let open = s.range(of: "<U+"), let close = s.range(of: ">", range: open.upperBound..<s.endIndex),
              let scalar = UInt32(s[open.upperBound..<close.lowerBound], radix: 16).flatMap(Unicode.Scalar.init) {
            s.replaceSubrange(open.lowerBound..<close.upperBound, with: String(Character(scalar)))
        }
        return s
    }

    // MARK: rules

    func testRaidV2NumbersFollowPythonRepr() throws {
        let cases: [(String, String)] = [
            ("1.0", "1.0"), ("-0.0", "-0.0"), ("-0", "0"), ("100.0", "100.0"), ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"), ("0.0001", "0.0001"), ("0.00001", "1e-05"), ("1e-7", "1e-07"),
            ("1E30", "1e+30"), ("4.50", "4.5"), ("2e-3", "0.002"), ("5e-324", "5e-324"),
            ("123456789012345680000.0", "1.2345678901234568e+20"), ("9007199254740993", "9007199254740993"),
            ("18446744073709551616", "18446744073709551616"), ("1.5e300", "1.5e+300"), ("0.1e1", "1.0"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(try bothWriters(input, .raidV2), expected, input)
        }
    }

    func testRFC8785NumbersFollowECMAScript() throws {
        let cases: [(String, String)] = [
            ("1.0", "1"), ("-0.0", "0"), ("-0", "0"), ("1e21", "1e+21"), ("1e20", "100000000000000000000"),
            ("1e-7", "1e-7"), ("0.000001", "0.000001"), ("9007199254740993", "9007199254740992"),
            ("1000000000000000000000", "1e+21"), ("-1.5E-10", "-1.5e-10"), ("123e-2", "1.23"),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(try bothWriters(input, .rfc8785), expected, input)
        }
    }

    func testStringsAreEscapedMinimallyAndNonASCIIStaysRaw() throws {
        let input = #"["\u0001\u001f\b\f\n\r\t\"\\\/\u007f\u2028é\ud83c\udfaf"]"#
        for profile in CanonicalProfile.allCases {
            XCTAssertEqual(try bothWriters(input, profile), "[\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/\u{7f}\u{2028}é🎯\"]")
        }
    }

    func testCanonicallyEquivalentKeysAreDistinct() throws {
        // "é" (U+00E9) and "é" (e + U+0301) are different keys to JSON, whatever Swift's == says.
        let input = "{\"e\\u0301\":4,\"\\u00e9\":3,\"b\":1}"
        XCTAssertEqual(try bothWriters(input, .raidV2), "{\"b\":1,\"e\u{301}\":4,\"\u{e9}\":3}")
    }

    func testDuplicateKeysAreAnError() {
        XCTAssertThrowsError(try canonical(#"{"a":1,"b":{"c":1,"c":2}}"#, .raidV2)) { error in
            XCTAssertEqual("\(error)", "t.json:1:19: duplicate key \"c\" in object")
        }
        // A programmatic value with a duplicate can't be canonical either.
        let value = JSONValue.object(JSONObject([(key: "k", value: 1), (key: "k", value: 2)]))
        XCTAssertThrowsError(try CanonicalJSON.bytes(of: value, profile: .raidV2)) { error in
            XCTAssertEqual("\(error)", "duplicate key \"k\" in an object at the root")
        }
    }

    func testOverflowingNumberErrorPointsAtIt() {
        XCTAssertThrowsError(try canonical("{\n  \"a\": [1, 1e400]\n}", .rfc8785)) { error in
            XCTAssertEqual("\(error)", "t.json:2:12: number 1e400 is outside the range of a double")
        }
        let value: JSONValue = ["a": [.number(JSONNumber(lexeme: "1e999", isInteger: false))]]
        XCTAssertThrowsError(try CanonicalJSON.bytes(of: value, profile: .raidV2)) { error in
            XCTAssertEqual("\(error)", "number 1e999 is outside the range of a double at /a/0")
        }
    }

    func testBadInputsGetLineAndColumn() {
        let cases: [(String, String)] = [
            ("[NaN]", "t.json:1:2: NaN is not a JSON number"),
            ("{\n\"a\": 012}", "t.json:2:6: leading zeros are not allowed in JSON numbers"),
            (#"["\udead"]"#, #"t.json:1:3: lone low surrogate \uDEAD (not valid Unicode)"#),
            ("{\"a\":1} x", "t.json:1:9: unexpected 'x' after the JSON value"),
            ("", "t.json:1:1: empty input; expected a JSON value"),
            ("\u{FEFF}{}", "t.json:1:1: byte order mark at the start of the text; save the file as UTF-8 without BOM"),
            (String(repeating: "[", count: 600), "t.json:1:513: nesting deeper than 512 levels"),
        ]
        for (input, message) in cases {
            XCTAssertThrowsError(try canonical(input, .raidV2)) { error in
                XCTAssertEqual("\(error)", message)
                XCTAssertEqual((error as? PracticeError)?.kind, .invalidInput)
            }
        }
    }

    func testUnknownProfileNameIsAUsageError() {
        XCTAssertThrowsError(try CanonicalProfile(name: "jcs")) { error in
            XCTAssertEqual("\(error)", "unknown profile 'jcs'; use raid-v2 or rfc8785")
        }
        XCTAssertEqual(try CanonicalProfile(name: "rfc8785"), .rfc8785)
    }
}
