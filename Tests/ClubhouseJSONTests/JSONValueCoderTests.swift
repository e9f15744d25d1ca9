import ClubhouseJSON
import XCTest

final class JSONValueCoderTests: XCTestCase {
    struct Shot: Codable, Equatable {
        enum Grade: String, Codable { case a = "A", b = "B" }
        var club: String
        var carry: Double
        var index: Int
        var grade: Grade
        var note: String?
        var tags: [String]
        var spin: [String: Int]
        var nested: [[Double]]
    }

    let shot = Shot(club: "7i", carry: 151.5, index: 3, grade: .a, note: nil, tags: ["range", "wind"],
                    spin: ["back": 6200, "side": -150], nested: [[1, 2.5], []])

    func testEncodesWithSortedKeysAndFoundationNumberForms() throws {
        let value = try JSONValueEncoder().encode(shot)
        XCTAssertEqual(JSONWriter.compact(value),
                       #"{"carry":151.5,"club":"7i","grade":"A","index":3,"nested":[[1,2.5],[]],"spin":{"back":6200,"side":-150},"tags":["range","wind"]}"#)
        // Whole doubles lose ".0" and become integers, as JSONEncoder writes them.
        XCTAssertEqual(JSONValueEncoder.number(3.0)?.lexeme, "3")
        XCTAssertEqual(JSONValueEncoder.number(3.0)?.isInteger, true)
        XCTAssertEqual(JSONValueEncoder.number(1e21)?.lexeme, "1e+21")
        XCTAssertEqual(JSONValueEncoder.number(1e21)?.isInteger, false)
        XCTAssertEqual(JSONValueEncoder.number(-0.25)?.lexeme, "-0.25")
        XCTAssertNil(JSONValueEncoder.number(.nan))
    }

    func testInsertionOrderWhenAsked() throws {
        struct Pair: Encodable { var zulu = 1, alpha = 2 }
        XCTAssertEqual(JSONWriter.compact(try JSONValueEncoder(sortedKeys: false).encode(Pair())), #"{"zulu":1,"alpha":2}"#)
    }

    func testNilOptionalsAreLeftOutByDefaultAndWrittenAsNullWhenAsked() throws {
        struct Card: Encodable {
            var name: String? = nil
            var index: Double? = nil
            var rounds: Int? = nil
            var low: Int64? = nil
            var posted: Bool? = nil
            var tags: [String]? = nil
            var kept = 1
        }
        XCTAssertEqual(JSONWriter.compact(try JSONValueEncoder(sortedKeys: false).encode(Card())), #"{"kept":1}"#)
        let nulls = JSONValueEncoder(sortedKeys: false, nilEncoding: .null)
        XCTAssertEqual(JSONWriter.compact(try nulls.encode(Card())),
                       #"{"name":null,"index":null,"rounds":null,"low":null,"posted":null,"tags":null,"kept":1}"#)
        // Present values are written as without the option, nested objects and arrays included.
        let full = Card(name: "Maren", index: 5.5, rounds: 20, low: 3, posted: true, tags: ["a"], kept: 2)
        XCTAssertEqual(JSONWriter.compact(try nulls.encode(full)),
                       #"{"name":"Maren","index":5.5,"rounds":20,"low":3,"posted":true,"tags":["a"],"kept":2}"#)
        XCTAssertEqual(JSONWriter.compact(try nulls.encode([Card(kept: 3)])).prefix(13), #"[{"name":null"#)
        // Sorted keys still apply to the null members.
        XCTAssertEqual(JSONWriter.compact(try JSONValueEncoder(nilEncoding: .null).encode(Card())),
                       #"{"index":null,"kept":1,"low":null,"name":null,"posted":null,"rounds":null,"tags":null}"#)
    }

    func testRepresentableTypesGiveTheirOwnJSON() throws {
        struct Decimal1: Encodable, JSONValueRepresentable {
            var tenths: Int
            var jsonValue: JSONValue { .number(JSONNumber(lexeme: "\(tenths / 10).\(tenths % 10)", isInteger: false)) }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                try c.encode(Double(tenths) / 10)
            }
        }
        struct Holder: Encodable { var top: Decimal1; var list: [Decimal1]; var maybe: Decimal1? }
        let value = try JSONValueEncoder(sortedKeys: false).encode(Holder(top: Decimal1(tenths: 190), list: [Decimal1(tenths: 5)], maybe: Decimal1(tenths: 30)))
        XCTAssertEqual(JSONWriter.compact(value), #"{"top":19.0,"list":[0.5],"maybe":3.0}"#)
        XCTAssertEqual(JSONWriter.compact(try JSONValueEncoder().encode(Decimal1(tenths: 10))), "1.0")
    }

    func testRoundTrips() throws {
        let value = try JSONValueEncoder().encode(shot)
        XCTAssertEqual(try JSONValueDecoder().decode(Shot.self, from: value), shot)
        let text = #"{"carry":151.5,"club":"7i","grade":"B","index":3,"note":"gust","nested":[[1]],"spin":{},"tags":[]}"#
        let decoded = try JSONValueDecoder().decode(Shot.self, from: try JSONParser.parse(text))
        XCTAssertEqual(decoded.note, "gust")
        XCTAssertEqual(decoded.grade, .b)
        XCTAssertEqual(decoded.nested, [[1]])
    }

    func testScalarsAtTheTopLevelAndIntegerWidths() throws {
        XCTAssertEqual(try JSONValueEncoder().encode(42), .int(42))
        XCTAssertEqual(try JSONValueEncoder().encode("x"), .string("x"))
        XCTAssertEqual(try JSONValueEncoder().encode(Optional<Int>.none), .null)
        XCTAssertEqual(try JSONValueEncoder().encode(UInt64.max), .number(JSONNumber(lexeme: "18446744073709551615", isInteger: true)))
        XCTAssertEqual(try JSONValueDecoder().decode(UInt64.self, from: try JSONParser.parse("18446744073709551615")), .max)
        XCTAssertEqual(try JSONValueDecoder().decode(Int.self, from: try JSONParser.parse("3.0")), 3)
        XCTAssertEqual(try JSONValueDecoder().decode(Float.self, from: try JSONParser.parse("0.5")), 0.5)
        XCTAssertThrowsError(try JSONValueDecoder().decode(Int8.self, from: .int(300)))
        XCTAssertThrowsError(try JSONValueDecoder().decode(Int.self, from: try JSONParser.parse("2.5")))
        XCTAssertThrowsError(try JSONValueDecoder().decode(Double.self, from: try JSONParser.parse("1e400")))
    }

    func testNonFiniteNumbersAreRefusedWithTheirPath() {
        struct Holder: Encodable { var values: [Double] }
        XCTAssertThrowsError(try JSONValueEncoder().encode(Holder(values: [1, .infinity]))) { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["values", "Index 1"])
        }
    }

    func testDecodingErrorsSayWhereAndWhat() throws {
        func message(_ text: String) throws -> String {
            do {
                _ = try JSONValueDecoder().decode(Shot.self, from: try JSONParser.parse(text))
                return "decoded"
            } catch {
                return JSONValueDecoder.describe(error)
            }
        }
        XCTAssertEqual(try message(#"{"carry":"far","club":"7i","grade":"A","index":3,"nested":[],"spin":{},"tags":[]}"#),
                       "carry: expected a number, found a string")
        XCTAssertEqual(try message(#"{"carry":1,"club":"7i","grade":"A","index":3,"nested":[[1,"x"]],"spin":{},"tags":[]}"#),
                       "nested[0][1]: expected a number, found a string")
        XCTAssertEqual(try message(#"{"carry":1,"grade":"A","index":3,"nested":[],"spin":{},"tags":[]}"#),
                       #"club: missing (no member "club")"#)
        XCTAssertEqual(try message(#"{"carry":1,"club":null,"grade":"A","index":3,"nested":[],"spin":{},"tags":[]}"#),
                       "club: expected a string, found null")
        XCTAssertEqual(try message("[]"), "the top level: expected an object, found an array")
        XCTAssertTrue(try message(#"{"carry":1,"club":"7i","grade":"Z","index":3,"nested":[],"spin":{},"tags":[]}"#).hasPrefix("grade: "))
    }

    func testLargeObjectsAreIndexedAndKeepTheirValues() throws {
        var members: [(key: String, value: JSONValue)] = []
        for i in 0..<100 { members.append(("k\(i)", .int(i))) }
        let decoded = try JSONValueDecoder().decode([String: Int].self, from: .object(JSONObject(members)))
        XCTAssertEqual(decoded.count, 100)
        XCTAssertEqual(decoded["k73"], 73)
    }

    func testJSONValuePassesThroughWithItsLexemes() throws {
        struct Wrapper: Codable { var payload: JSONValue }
        let value = try JSONParser.parse(#"{"payload":{"x":1.0,"y":-0.0}}"#)
        let wrapper = try JSONValueDecoder().decode(Wrapper.self, from: value)
        XCTAssertEqual(JSONWriter.compact(try JSONValueEncoder().encode(wrapper)), #"{"payload":{"x":1.0,"y":-0.0}}"#)
    }

    func testClassHierarchiesThroughSuperEncoders() throws {
        class Base: Codable { var a = 1 }
        final class Derived: Base {
            var b = 2
            enum Keys: String, CodingKey { case b }
            override init() { super.init() }
            required init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                b = try c.decode(Int.self, forKey: .b)
                try super.init(from: try c.superDecoder())
            }
            override func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(b, forKey: .b)
                try super.encode(to: c.superEncoder())
            }
        }
        let value = try JSONValueEncoder().encode(Derived())
        XCTAssertEqual(JSONWriter.compact(value), #"{"b":2,"super":{"a":1}}"#)
        let back = try JSONValueDecoder().decode(Derived.self, from: value)
        XCTAssertEqual(back.a, 1)
        XCTAssertEqual(back.b, 2)
    }
}
