// The host's one `%XX` decoder (Router/PercentDecoding.swift): strict for HTTP targets, lenient for a
// federation URL's parameters (as libpq reads them).

import XCTest
@testable import ClubhouseHost

final class PercentDecodingTests: XCTestCase {
    private func decode(_ text: String, plus: Bool = false, strict: Bool) -> String? {
        PercentDecoding.bytes(ArraySlice(text.utf8), plusIsSpace: plus, strict: strict).map { String(decoding: $0, as: UTF8.self) }
    }

    func testEscapesOfEitherCaseAndPlusWhenAsked() {
        for strict in [true, false] {
            XCTAssertEqual(decode("pass%77ord%2fx%2Fy", strict: strict), "password/x/y")
            XCTAssertEqual(decode("a+b%20c", strict: strict), "a+b c")
            XCTAssertEqual(decode("a+b%20c", plus: true, strict: strict), "a b c")
            XCTAssertEqual(decode("%41", strict: strict), "A", "an escape that ends the text")
            XCTAssertEqual(decode("", strict: strict), "")
        }
    }

    func testABadEscapeIsRefusedWhenStrictAndKeptOtherwise() {
        for bad in ["%", "%4", "%zz41", "ok%g1", "%%41"] {
            XCTAssertNil(decode(bad, strict: true), bad)
        }
        XCTAssertEqual(decode("%", strict: false), "%")
        XCTAssertEqual(decode("%4", strict: false), "%4")
        XCTAssertEqual(decode("%zz%41", strict: false), "%zzA")
        XCTAssertEqual(decode("%%41", strict: false), "%A")
        XCTAssertEqual(SiteFederation.percentDecoded("?pass%77ord=%zz"), "?password=%zz")
    }
}
