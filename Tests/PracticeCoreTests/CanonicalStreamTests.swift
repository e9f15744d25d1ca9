import ClubhouseJSON
import ClubhouseHashing
import XCTest
@testable import PracticeCore

/// The one-pass writer must accept exactly what JSONParser accepts and write exactly what the
/// tree writer writes.
final class CanonicalStreamTests: XCTestCase {
    private func stream(_ text: String, _ profile: CanonicalProfile) -> String? {
        var s = CanonicalStream(profile: profile)
        var copy = text
        return copy.withUTF8 { s.canonicalize($0) ? String(decoding: s.output, as: UTF8.self) : nil }
    }

    func testRejectsEverythingTheParserRejects() {
        let bad = [
            "", " ", "[", "]", "{", "}", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":}", "[1 2]",
            "01", "-", "-a", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "-Infinity", "nul", "tru",
            "\"abc", "\"a\tb\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", #""\udead""#, #""\ud83d""#, #""\ud83d\u0041""#,
            "{\"a\":1,\"a\":2}", "[1] 2", "\u{FEFF}[]", "\"\u{0}\"",
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
        ]
        for text in bad {
            XCTAssertThrowsError(try JSONParser.parse(text), "parser accepted \(text.debugDescription)")
            for profile in CanonicalProfile.allCases {
                XCTAssertNil(stream(text, profile), "one-pass writer accepted \(text.debugDescription)")
            }
        }
        // Valid JSON whose numbers no double can hold: the parser keeps the lexeme, the canonical form can't.
        for text in ["1e400", "[-1e400]", "{\"a\":1E999}"] {
            XCTAssertNoThrow(try JSONParser.parse(text))
            for profile in CanonicalProfile.allCases { XCTAssertNil(stream(text, profile), text) }
        }
        // Invalid UTF-8 and overlongs, which a String literal can't hold.
        let badBytes: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D],
        ]
        for bytes in badBytes {
            XCTAssertThrowsError(try JSONParser.parse(bytes: bytes))
            var s = CanonicalStream(profile: .raidV2)
            XCTAssertFalse(bytes.withUnsafeBufferPointer { s.canonicalize($0) }, "\(bytes)")
        }
    }

    func testAcceptsDeepNestingUpToTheLimit() {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        XCTAssertEqual(stream(deep, .raidV2), deep)
    }

    /// Seeded random documents full of the hard cases: astral and U+E000+ keys, escapes, controls,
    /// canonically equivalent keys, numbers of every shape, nesting, whitespace.
    func testMatchesTheTreeWriterOnGeneratedDocuments() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<1500 {
            let text = randomDocument(&random, depth: 0)
            for profile in CanonicalProfile.allCases {
                let tree = try CanonicalJSON.string(of: JSONParser.parse(text), profile: profile)
                XCTAssertEqual(stream(text, profile), tree, text)
            }
        }
    }

    private let keys = ["a", "b", "A", "aa", "", "1", "10", "2", "é", "e\\u0301", "\\u00e9", "\\ud83d\\ude00", "😀",
                        "\u{FB33}", "\\ufb33", "\\ue000", "\u{E000}", "\\ud800\\udc00", "\u{10FFFF}", "\\r", "€", "ö",
                        "\\u0080", "quote\\\"k", "back\\\\slash", "日本語", "\u{FF21}", "\u{FFFD}"]
    private let strings = ["", "plain", "tab\\there", "ctrl\\u0001\\u001f", "del\u{7F}", "ls\u{2028}ps\u{2029}",
                           "nul\\u0000", "\\/slash", "\\b\\f\\n\\r\\t", "🙂", "\\ud83d\\ude42", "naïve", "\u{FEFF}bom",
                           "\\\"\\\\", "\\u20ac", "ﬁ"]
    private let numbers = ["0", "-0", "0.0", "-0.0", "1", "-1", "1.0", "100.0", "4.50", "2e-3", "1E30", "1e21", "1e20",
                           "1e16", "1e15", "1e-7", "1.5e-7", "0.000001", "0.0000001", "5e-324", "1.7976931348623157e308",
                           "2.2250738585072014e-308", "9007199254740992", "9007199254740993", "18446744073709551616",
                           "1000000000000000000000", "0.30000000000000004", "333333333.33333329", "123456789012345680000.0",
                           "-97.12345678901234", "1424953923781206.2", "1e-5", "12345.678", "0.1e1", "10E-1", "123e+2"]

    private func randomDocument(_ r: inout SplitMix64, depth: Int) -> String {
        func pick<T>(_ xs: [T]) -> T { xs[Int(r.next() % UInt64(xs.count))] }
        let space = pick(["", "", " ", "\n", "\t", " \r\n "])
        switch r.next() % (depth > 3 ? 5 : 8) {
        case 0: return "\"" + pick(strings) + "\""
        case 1, 2: return pick(numbers)
        case 3:
            // A random finite double in Swift's shortest form.
            var d = Double(bitPattern: r.next())
            while !d.isFinite { d = Double(bitPattern: r.next()) }
            return JSONValue.double(d).description
        case 4: return pick(["true", "false", "null"])
        case 5:
            let n = Int(r.next() % 5)
            return "[" + space + (0..<n).map { _ in randomDocument(&r, depth: depth + 1) }.joined(separator: "," + space) + "]"
        default:
            var used: Set<String> = []
            var members: [String] = []
            for _ in 0..<Int(r.next() % 7) {
                let k = pick(keys)
                // Skip textual repeats, and escaped/raw spellings of the same key.
                let identity = (try? JSONParser.parse("\"" + k + "\""))?.stringValue.map { Array($0.utf8).description } ?? k
                guard used.insert(identity).inserted else { continue }
                members.append("\"" + k + "\"" + space + ":" + space + randomDocument(&r, depth: depth + 1))
            }
            return "{" + space + members.joined(separator: "," + space) + space + "}"
        }
    }
}

final class JSONLinesTests: XCTestCase {
    func testSplitsOnLineFeedOnlyAndSkipsBlankLines() {
        let text = "{\"a\":\"x\u{2028}y\u{85}z\"}\n\n  \r\n[1]\r\n"
        let lines = JSONLines.split(Array(text.utf8))
        XCTAssertEqual(lines.map(\.number), [1, 4])
        let result = try? CanonicalCommands.hash(HashRequest(profile: .rfc8785, input: Array(text.utf8), sourceName: "x.jsonl",
                                                             jsonLines: true))
        XCTAssertEqual(result?.documents.count, 2)
        XCTAssertEqual(result?.errorCount, 0)
        XCTAssertEqual(result?.documents.first?.sha256, SHA256.hash("{\"a\":\"x\u{2028}y\u{85}z\"}").hex)
        XCTAssertEqual(result?.documents.last?.sha256, SHA256.hash("[1]").hex)
    }

    func testABadLineIsReportedWithItsFileLineAndTheOthersStillHash() throws {
        let text = "[1]\n{\"a\":1,\"a\":2}\n[2]\n  [NaN]"
        let result = try CanonicalCommands.hash(HashRequest(profile: .raidV2, input: Array(text.utf8), sourceName: "c.jsonl",
                                                            jsonLines: true))
        XCTAssertEqual(result.documents.map(\.line), [1, 2, 3, 4])
        XCTAssertEqual(result.errorCount, 2)
        XCTAssertEqual(result.documents[1].error, "c.jsonl:2:8: duplicate key \"a\" in object")
        XCTAssertEqual(result.documents[3].error, "c.jsonl:4:4: NaN is not a JSON number")
        XCTAssertEqual(result.text.split(separator: "\n").count, 4)
        XCTAssertTrue(result.text.contains("ERROR c.jsonl:4:4: NaN is not a JSON number"))
        XCTAssertEqual(JSONWriter.compact(result.summaryJSON), #"{"profile":"raid-v2","count":4,"errors":2}"#)
        XCTAssertEqual(result.json["documents"]?.arrayValue?[1]["error"]?.stringValue, "c.jsonl:2:8: duplicate key \"a\" in object")
        XCTAssertEqual(result.json["documents"]?.arrayValue?[0]["error"], .null)
    }

    func testThreadsChangeNothingButSpeed() throws {
        var lines: [String] = []
        var r = SplitMix64(seed: 11)
        for i in 0..<5000 {
            lines.append(i % 97 == 0 ? "{\"bad\":" : "{\"n\":\(i),\"x\":\(JSONValue.double(Double(bitPattern: r.next() & 0x3FFF_FFFF_FFFF_FFFF)).description),\"s\":\"é\(i)\"}")
        }
        let input = Array(lines.joined(separator: "\n").utf8)
        let one = try CanonicalCommands.hash(HashRequest(profile: .rfc8785, input: input, sourceName: "m.jsonl", jsonLines: true, threads: 1))
        let many = try CanonicalCommands.hash(HashRequest(profile: .rfc8785, input: input, sourceName: "m.jsonl", jsonLines: true, threads: 4))
        XCTAssertEqual(one, many)
        XCTAssertEqual(one.documents.map(\.line), Array(1...5000))
        XCTAssertEqual(one.errorCount, 52)
    }

    func testWithoutJSONLinesSeveralDocumentsAreAnError() {
        XCTAssertThrowsError(try CanonicalCommands.hash(HashRequest(input: Array("[1]\n[2]".utf8), sourceName: "-"))) { error in
            XCTAssertEqual("\(error)", "-:2:1: unexpected '[' after the JSON value")
        }
    }
}

final class DecimalFormTests: XCTestCase {
    /// The 16-digit shortcut must give what the double's own shortest form gives, or step aside.
    func testSixteenDigitShortcutAgreesWithTheShortestForm() {
        var r = SplitMix64(seed: 16)
        var taken = 0
        for i in 0..<60_000 {
            // Random doubles written with 16 significant digits (most have a shorter or another
            // 16-digit form), and doubles whose shortest form has 16 digits.
            let magnitude = Double.pow10(Int(r.next() % 30) - 12)
            let d = (r.unit() * 9 + 1) * magnitude * (r.next() & 1 == 0 ? 1 : -1)
            let text = i % 2 == 0 ? String(format: "%.15e", d) : JSONValue.double(d).description
            var lexeme = text
            let expected = lexeme.withUTF8 { bytes -> String in
                var out: [UInt8] = []
                ShortestDecimal(Double(text) ?? 0).appendECMAScript(to: &out)
                return String(decoding: out, as: UTF8.self)
            }
            lexeme.withUTF8 { bytes in
                guard let shortcut = ShortestDecimal(sixteenDigitLexeme: bytes) else { return }
                taken += 1
                var out: [UInt8] = []
                shortcut.appendECMAScript(to: &out)
                XCTAssertEqual(String(decoding: out, as: UTF8.self), expected, text)
            }
        }
        XCTAssertGreaterThan(taken, 5_000, "the shortcut should apply to many of these")
    }
}

private extension Double {
    static func pow10(_ e: Int) -> Double { Foundation.pow(10, Double(e)) }
}
