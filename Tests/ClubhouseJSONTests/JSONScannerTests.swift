// JSONScanner: the end of a value and a member's range, checked against the grammar — it must agree with
// JSONParser on what is well-formed (duplicate keys aside), since a reply's data passes through it unparsed.

import XCTest
@testable import ClubhouseJSON

final class JSONScannerTests: XCTestCase {
    func valid(_ text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer { JSONScanner.isValid($0) } }

    func testItAgreesWithTheParser() {
        let cases = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, "[]", "{}", " [ 1 , 2 ] ", "0", "-0.5e+10", "1E3", "\"\\u00e9\\n\"",
            "\"é 😀\"", "[[[[]]]]", #"{"a":{"b":{"c":[1,{"d":null}]}}}"#,
            "", " ", "01", "1.", ".5", "-", "+1", "1e", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "tru", "nulll", "\"\\x\"",
            "\"\\u12\"", "\"\u{1}\"", "[", "]", "{\"a\":}", "\"abc", "[1]]", "{\"a\":1}}", "1 2",
        ]
        for text in cases {
            let parsed = (try? JSONParser.parse(text)) != nil
            XCTAssertEqual(valid(text), parsed, text)
        }
        // Bytes that are not UTF-8 inside a string, an overlong form, a surrogate.
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22]] {
            XCTAssertFalse(bytes.withUnsafeBufferPointer { JSONScanner.isValid($0) }, "\(bytes)")
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        XCTAssertFalse(valid(deep))
    }

    func testMembers() {
        let text = Array(#"{"text":"a \"data\" b","data":{"x":[1,2]} ,"background":{}}"#.utf8)
        let range = text.withUnsafeBufferPointer { JSONScanner.member("data", in: $0) }
        XCTAssertEqual(range.map { String(decoding: text[$0], as: UTF8.self) }, #"{"x":[1,2]}"#)
        XCTAssertNil(text.withUnsafeBufferPointer { JSONScanner.member("nope", in: $0) })
        XCTAssertNil(Array(#"{"data":1"#.utf8).withUnsafeBufferPointer { JSONScanner.member("data", in: $0) })
        XCTAssertNil(Array(#"[{"data":1}]"#.utf8).withUnsafeBufferPointer { JSONScanner.member("data", in: $0) })
    }
}
