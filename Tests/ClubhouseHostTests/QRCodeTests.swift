// The QR code encoder against the standard's own vectors (ISO/IEC 18004:2015: Reed–Solomon of the
// Annex I example, the format and version information tables of Annexes C and D, the alignment
// pattern table of Annex E, byte-mode capacities of Table 7), against a reference encoder module for
// module (Debian's python3-qrcodegen: same version, same mask, same symbol), and read back by a
// reference decoder (zbarimg from zbar-tools) from the SVG rendered to PNG by rsvg-convert.
// The last two skip, saying why, where the tools are absent (.ci/deps installs them).

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest
@testable import ClubhouseHost

final class QRCodeTests: XCTestCase {
    func testReedSolomonMatchesTheStandardsExamples() {
        // ISO/IEC 18004 Annex I: "01234567" at 1-M.
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        XCTAssertEqual(ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10)),
                       [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
        // "HELLO WORLD" at 1-M (the worked example most tutorials use).
        let hello: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        XCTAssertEqual(ReedSolomon.remainder(hello, generator: ReedSolomon.generator(degree: 10)),
                       [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
        // The generator of degree 7 (Annex A): α⁰, α⁸⁷, α²²⁹, α¹⁴⁶, α¹⁴⁹, α²³⁸, α¹⁰², α²¹.
        XCTAssertEqual(ReedSolomon.generator(degree: 7).map { GF256.log[Int($0)] }, [87, 229, 146, 149, 238, 102, 21])
    }

    func testFormatInformationIsAnnexCsTable() {
        let table: [QRCode.ErrorCorrection: [String]] = [
            .low: ["111011111000100", "111001011110011", "111110110101010", "111100010011101",
                   "110011000101111", "110001100011000", "110110001000001", "110100101110110"],
            .medium: ["101010000010010", "101000100100101", "101111001111100", "101101101001011",
                      "100010111111001", "100000011001110", "100111110010111", "100101010100000"],
            .quartile: ["011010101011111", "011000001101000", "011111100110001", "011101000000110",
                        "010010010110100", "010000110000011", "010111011011010", "010101111101101"],
            .high: ["001011010001001", "001001110111110", "001110011100111", "001100111010000",
                    "000011101100010", "000001001010101", "000110100001100", "000100000111011"],
        ]
        for (level, rows) in table {
            for (mask, bits) in rows.enumerated() {
                XCTAssertEqual(QRCode.formatInformation(level: level, mask: mask), Int(bits, radix: 2), "\(level) mask \(mask)")
            }
        }
    }

    func testVersionInformationIsAnnexDsTable() {
        let table = [7: 0x07C94, 8: 0x085BC, 9: 0x09A99, 10: 0x0A4D3, 20: 0x149A6, 32: 0x209D5, 40: 0x28C69]
        for (version, bits) in table { XCTAssertEqual(QRCode.versionInformation(version), bits, "version \(version)") }
    }

    func testAlignmentPositionsAreAnnexEsTable() {
        let table: [[Int]] = [
            [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
            [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78],
            [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90], [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102],
            [6, 28, 54, 80, 106], [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118], [6, 26, 50, 74, 98, 122],
            [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138],
            [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146], [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154],
            [6, 28, 54, 80, 106, 132, 158], [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
        ]
        for version in QRCode.versions { XCTAssertEqual(QRCode.alignmentPositions(version: version), table[version - 1], "version \(version)") }
    }

    func testCapacityFollowsFromTheDrawnFunctionPatterns() {
        for version in QRCode.versions {
            var symbol = Symbol(version: version)
            symbol.drawFunctionPatterns()
            XCTAssertEqual(symbol.isFunction.filter { !$0 }.count, QRCode.dataModules(version: version), "version \(version)")
        }
        // Table 7, byte mode at level M.
        XCTAssertEqual((1...10).map { QRCode.byteCapacity(version: $0, level: .medium) }, [14, 26, 42, 62, 84, 106, 122, 152, 180, 213])
        XCTAssertEqual(QRCode.byteCapacity(version: 40, level: .medium), 2331)
        XCTAssertEqual(QRCode.byteCapacity(version: 40, level: .low), 2953)
        XCTAssertEqual(QRCode.byteCapacity(version: 40, level: .high), 1273)
    }

    func testPicksTheSmallestVersionAndRefusesTooMuch() throws {
        XCTAssertEqual(try QRCode.encode(bytes: [UInt8](repeating: 65, count: 14)).version, 1)
        XCTAssertEqual(try QRCode.encode(bytes: [UInt8](repeating: 65, count: 15)).version, 2)
        XCTAssertEqual(try QRCode.encode(bytes: [UInt8](repeating: 65, count: 213)).version, 10)
        XCTAssertEqual(try QRCode.encode(bytes: [UInt8](repeating: 65, count: 214)).version, 11)
        XCTAssertThrowsError(try QRCode.encode(bytes: [UInt8](repeating: 65, count: 2332))) { error in
            XCTAssertEqual("\(error)", "2332 bytes are too many for a QR code at level medium: at most 2331")
        }
        XCTAssertThrowsError(try QRCode.encode(bytes: [1], mask: 8)) { XCTAssertEqual("\($0)", "mask 8 is not 0–7") }
        XCTAssertThrowsError(try QRCode.encode(bytes: [1], minimumVersion: 41)) { XCTAssertEqual("\($0)", "version 41 is not 1–40") }
        XCTAssertEqual(try QRCode.encode(bytes: [1], minimumVersion: 7).version, 7)
    }

    func testPenaltyRulesOnHandMadeLines() {
        // N1: a run of 5 costs 3, each module more 1 more; N3: 1:1:3:1:1 with 4 light before (the border counts as light).
        XCTAssertEqual(Symbol.linePenalty([true, true, true, true, true, false, true, false]), 3)
        XCTAssertEqual(Symbol.linePenalty([Bool](repeating: false, count: 7)), 3 + 2)
        let finder = [true, false, true, true, true, false, true]
        XCTAssertEqual(Symbol.linePenalty([false, false, false, false] + finder), 40 + 40, "light 4 wide before it, and the border after it")
        XCTAssertEqual(Symbol.linePenalty([false, false, false, false] + finder + [false, true, true]), 40, "light 4 wide before it only")
        XCTAssertEqual(Symbol.linePenalty([true] + finder + [true]), 0, "no light on either side")
        // A pattern twice as wide counts too (the ratio, not the width, is what a reader looks for).
        let wide = [true, true, false, false, true, true, true, true, true, true, false, false, true, true]
        XCTAssertEqual(Symbol.linePenalty(wide), 3 + 1 + 40 + 40, "N1 for the run of 6; the border on both sides")
        XCTAssertEqual(Symbol.linePenalty([true, false] + wide + [false, true]), 3 + 1, "light only 1 wide on each side")
    }

    // MARK: a reference encoder

    /// Debian's python3-qrcodegen, or a skip saying why.
    func referenceEncoder() throws -> String {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python), (try? ReferenceTool.run(python, ["-c", "import qrcodegen"]))?.status == 0 else {
            throw XCTSkip("python3-qrcodegen is not installed (Debian: apt-get install python3-qrcodegen; .ci/deps does); skipping the comparison with a reference encoder")
        }
        return python
    }

    func testSymbolsMatchAReferenceEncoderModuleForModule() throws {
        let python = try referenceEncoder()
        // Every version 1–10 at level M filled to the brim, a few larger ones (32 has the odd alignment
        // step, 40 is the largest), each level at a few lengths; texts with UTF-8, digits only (which
        // a byte-mode encoder must still put in byte mode), and a URL. (The reference is pure Python:
        // every version up to 40 would take it 10 s.)
        var cases: [(bytes: [UInt8], level: QRCode.ErrorCorrection, mask: Int?)] = []
        var seed: UInt32 = 12345
        func next() -> UInt8 { seed = seed &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: seed >> 16) }
        for version in Array(1...10) + [13, 21, 32, 40] {
            let count = QRCode.byteCapacity(version: version, level: .medium)
            cases.append(((0..<count).map { _ in next() }, .medium, nil))
        }
        for level in QRCode.ErrorCorrection.allCases {
            for count in [1, 17, 100] { cases.append(((0..<count).map { _ in next() }, level, nil)) }
        }
        cases.append((Array("http://192.168.1.20:8080/pair#code=7KQ2MX9P".utf8), .medium, nil))
        cases.append((Array("Ann’s phone — ⛳".utf8), .medium, nil))
        cases.append((Array("01234567".utf8), .medium, nil))
        // Each mask forced gives the reference's symbol for that mask as well.
        for mask in 0..<8 { cases.append((Array("clubhouse".utf8), .medium, mask)) }
        let input = cases.map { c in "\(c.level.rawValue) \(c.mask ?? -1) " + c.bytes.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n")
        let script = """
        import sys, qrcodegen as q
        levels = [q.QrCode.Ecc.LOW, q.QrCode.Ecc.MEDIUM, q.QrCode.Ecc.QUARTILE, q.QrCode.Ecc.HIGH]
        for line in sys.stdin.read().split("\\n"):
            level, mask, data = line.split(" ")
            qr = q.QrCode.encode_segments([q.QrSegment.make_bytes(bytes.fromhex(data))], levels[int(level)], 1, 40, int(mask), False)
            bits = "".join("1" if qr.get_module(x, y) else "0" for y in range(qr.get_size()) for x in range(qr.get_size()))
            print(qr.get_version(), qr.get_mask(), bits)
        """
        let result = try ReferenceTool.run(python, ["-c", script], stdin: input)
        XCTAssertEqual(result.status, 0, result.error)
        let lines = result.output.split(separator: "\n")
        XCTAssertEqual(lines.count, cases.count)
        for (c, line) in zip(cases, lines) {
            let parts = line.split(separator: " ")
            let code = try QRCode.encode(bytes: c.bytes, level: c.level, mask: c.mask)
            let ours = (0..<code.size).flatMap { y in (0..<code.size).map { x in code.isDark(x: x, y: y) ? "1" : "0" } }.joined()
            let what = "\(c.bytes.count) bytes at \(c.level)\(c.mask.map { " with mask \($0)" } ?? "")"
            XCTAssertEqual("\(code.version) \(code.mask)", "\(parts[0]) \(parts[1])", "\(what): version and mask")
            XCTAssertTrue(ours == parts[2], "\(what) (version \(code.version)): the symbols differ")
        }
    }

    // MARK: a reference decoder, on the rendered SVG

    func testZbarimgReadsTheRenderedSVGAtVersionsOneToTenAndBeyond() throws {
        var texts: [String] = []
        var pictures: [String] = []
        for version in Array(1...10) + [14, 22, 27] {
            // Fill the version at level M exactly, with printable ASCII (what a decoder prints as is).
            let count = QRCode.byteCapacity(version: version, level: .medium)
            let text = String((0..<count).map { i in Character(Unicode.Scalar(UInt8(65 + (i * 7 + version) % 26))) })
            let code = try QRCode.encode(text)
            XCTAssertEqual(code.version, version)
            // rsvg-convert renders it at the size it declares, and it is no blank page.
            pictures.append(try RenderedPicture.check(svg: code.svg(moduleSize: 4, title: "version \(version)"), name: "qr-v\(version)", minimumBytes: 200))
            texts.append(text)
        }
        XCTAssertEqual(try QRCodeReader.read(pictures), texts)
    }

    func testTheSVGIsWellFormedWithAQuietZoneAndAnEscapedTitle() throws {
        let code = try QRCode.encode("clubhouse")
        let svg = code.svg(moduleSize: 8, title: "pair <me> & \"you\"")
        XCTAssertTrue(svg.contains("viewBox=\"0 0 29 29\""), "21 modules and 4 of quiet zone on each side")
        XCTAssertTrue(svg.contains("width=\"232\""))
        XCTAssertTrue(svg.contains("<title>pair &lt;me&gt; &amp; &quot;you&quot;</title>"))
        // The top-left finder's first row: seven dark modules from (4, 4).
        XCTAssertTrue(svg.contains("M4 4h7v1h-7z"))
        let parser = XMLParser(data: Data(svg.utf8))
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }
}
