// The host's RFC 8785 writer for outbox records, on the RFC's own examples (§3.2.2, Appendix B) and
// the edges of ECMAScript number text.

@testable import ClubhouseHost
import ClubhouseJSON
import XCTest

final class RecordCanonicalFormTests: XCTestCase {
    private func canonical(_ text: String) throws -> String {
        String(decoding: try RecordCanonicalForm.bytes(of: try JSONParser.parse(text)), as: UTF8.self)
    }

    func testTheRFCsSampleObject() throws {
        let input = #"""
            {"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
             "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
             "literals": [null, true, false]}
            """#
        XCTAssertEqual(try canonical(input),
                       #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#)
    }

    func testMembersSortByUTF16CodeUnits() throws {
        // RFC 8785 §3.2.3's example: "\u20ac" (€), "\r", "\ufb33", "1", "\ud83d\ude00", "\u0080", "\u00f6".
        let input = #"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}"#
        let keys = try JSONParser.parse(try canonical(input)).objectValue?.members.map(\.key) ?? []
        XCTAssertEqual(keys, ["\r", "1", "\u{80}", "\u{f6}", "\u{20ac}", "\u{1F600}", "\u{fb33}"])
    }

    func testNumbersAreWrittenTheECMAScriptWay() {
        let cases: [(String, String)] = [
            ("0", "0"), ("-0", "0"), ("-0.0", "0"), ("1.0", "1"), ("100", "100"), ("1e21", "1e+21"), ("1e20", "100000000000000000000"),
            ("123456789012345680000", "123456789012345680000"), ("0.000001", "0.000001"), ("0.0000001", "1e-7"),
            ("-1.5e-7", "-1.5e-7"), ("4.35", "4.35"), ("9007199254740993", "9007199254740992"), ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"), ("295147905179352830000", "295147905179352830000"),
            ("-12.30", "-12.3"), ("0.1", "0.1"), ("1E+2", "100"),
        ]
        for (lexeme, expected) in cases {
            XCTAssertEqual(RecordCanonicalForm.ecmaScript(lexeme: lexeme), expected, lexeme)
        }
        XCTAssertNil(RecordCanonicalForm.ecmaScript(lexeme: "1e400"))
    }

    func testANumberBeyondADoubleSaysWhere() throws {
        XCTAssertThrowsError(try RecordCanonicalForm.bytes(of: try JSONParser.parse(#"{"a": [1, -2e999]}"#))) { error in
            XCTAssertEqual((error as? CanonicalFormError)?.message,
                           "number -2e999 at /a/1 is outside the range of a double (RFC 8785 writes every number as one)")
        }
    }

    func testTheHashIsOfTheCanonicalBytes() throws {
        XCTAssertEqual(RecordCanonicalForm.sha256(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(try canonical(#"{ "b" : 2 , "a" : 1 }"#), #"{"a":1,"b":2}"#)
    }
}
