import ClubhouseJSON
import XCTest
@testable import ClubhouseGraphics

final class GraphicsTests: XCTestCase {
    func testNumbersAreFixedDecimalWithoutTrailingZeros() {
        var t = SVGText()
        for (v, d) in [(12.5, 2), (3.0, 2), (-0.25, 2), (0.004, 2), (-0.004, 2), (1234.5678, 3), (Double.nan, 2)] {
            t.appendNumber(v, decimals: d)
            t.append(" ")
        }
        XCTAssertEqual(t.string, "12.5 3 -0.25 0 0 1234.568 0 ")
    }

    func testEscapingCoversXMLSpecials() {
        XCTAssertEqual(SVGText.escape(#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&#39;")
        XCTAssertEqual(SVGText.escape("Côte d’Ivoire"), "Côte d’Ivoire")
    }

    func testBase64MatchesRFC4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { XCTAssertEqual(GLTF.base64(Array(plain.utf8)), encoded, plain) }
        XCTAssertEqual(GLTF.base64([0xFF, 0xFE, 0x00]), "//4A")
    }

    func testEmbeddedDocumentIsGLTF2WithItsBuffer() throws {
        let text = GLTF.embeddedDocument(generator: "test", sceneName: "s", nodes: [["mesh": 0]], meshes: [["primitives": []]],
                                         materials: [], accessors: [], bufferViews: [], buffer: [1, 2, 3])
        let doc = try JSONParser.parse(text)
        XCTAssertEqual(doc["asset"]?["version"], "2.0")
        XCTAssertEqual(doc["scenes"]?.arrayValue?.first?["nodes"], [0])
        XCTAssertEqual(doc["buffers"]?.arrayValue?.first?["uri"], "data:application/octet-stream;base64,AQID")
        XCTAssertEqual(doc["buffers"]?.arrayValue?.first?["byteLength"], 3)
    }
}
