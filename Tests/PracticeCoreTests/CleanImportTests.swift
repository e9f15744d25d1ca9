// Imports that keep the data clean: bad rows (wrong width, binary bytes, unknown clubs) refused by
// line or skipped with --skip-bad-rows, the club label rule, duplicates by canonical content, and
// the empty file.

import ClubhouseHashing
import Foundation
import XCTest
@testable import PracticeCore

/// Builders for small MLM2PRO exports.
enum CleanCSV {
    static let header = RapsodoParserTests.header

    /// An 18-cell shot row of `club` with `carry`.
    static func row(_ club: String, carry: Int = 150) -> String {
        #""\#(club)",,,"\#(carry)","158","100","21","-1","85","-3","82","1.27","45","0","0",0,"4500","-2""#
    }

    /// Header then rows, LF-separated with a final LF.
    static func file(_ rows: [String]) -> [UInt8] {
        Array(([header] + rows).joined(separator: "\n").utf8) + [0x0A]
    }
}

final class BadRowTests: XCTestCase {
    private let refused = RapsodoParserTests.refused

    private func assertRefused(_ bytes: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try RapsodoParser.parse(bytes, sourceName: "s.csv"), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
            XCTAssertEqual((error as? PracticeError)?.kind, .invalidInput, file: file, line: line)
        }
    }

    func testARowWithTooFewCellsIsRefusedByLine() {
        let short = #""7i",,,"150","158","100""#
        assertRefused(CleanCSV.file([CleanCSV.row("7i"), short, CleanCSV.row("7i")]),
                      "s.csv:3: the row has 6 cells but the header (line 1) has 18; fill in the missing cells or delete the row" + refused)
    }

    func testBinaryBytesAfterTheDataAreRefusedNotAClub() {
        var bytes = CleanCSV.file([CleanCSV.row("7i"), CleanCSV.row("7i")])
        bytes += [0x00, 0x01] + Array("binary".utf8) + [0x02, 0x0A]
        assertRefused(bytes, "s.csv:4: the row holds binary bytes (control byte 0x00), not text; cut whatever follows "
            + "the export's data" + refused)
        // Skipped: the shots stay, no club called "binary".
        let export = try? RapsodoParser.parse(bytes, sourceName: "s.csv", skipBadRows: true)
        XCTAssertEqual(export?.shots.count, 2)
        XCTAssertEqual(export?.clubs, ["7i"])
        XCTAssertEqual(export?.badRows.map(\.line), [4])
    }

    func testAnUnknownClubIsRefusedWithTheLabelAsWritten() {
        assertRefused(CleanCSV.file([CleanCSV.row("7i"), CleanCSV.row("7i 東京🏌️")]),
                      "s.csv:3: unknown club '7i 東京🏌️'; write a known club such as 7i, 7 Iron, PW, 56°, Driver, 3 Wood, "
                        + "4 Hybrid or Putter (see practice import --help)" + refused)
    }

    func testSeveralBadRowsAreCountedWithTheirLines() {
        let rows = [CleanCSV.row("7i"), CleanCSV.row("Chipper"), CleanCSV.row("7i"), #""7i",1"#, CleanCSV.row("Banana")]
        assertRefused(CleanCSV.file(rows),
                      "s.csv:3: unknown club 'Chipper'; write a known club such as 7i, 7 Iron, PW, 56°, Driver, 3 Wood, "
                        + "4 Hybrid or Putter (see practice import --help) (3 bad rows: lines 3, 5, 6)" + refused)
    }

    func testSkipBadRowsKeepsTheGoodRowsAndListsTheBad() throws {
        let rows = [CleanCSV.row("7i"), CleanCSV.row("Chipper"), CleanCSV.row("7 Iron"), #""7i",1"#]
        let export = try RapsodoParser.parse(CleanCSV.file(rows), sourceName: "s.csv", skipBadRows: true)
        XCTAssertEqual(export.shots.map(\.rowIndex), [2, 4])
        XCTAssertEqual(export.shots.map(\.club), ["7i", "7i"])
        XCTAssertEqual(export.badRows, [
            BadRow(line: 3, reason: "unknown club 'Chipper'; write a known club such as 7i, 7 Iron, PW, 56°, Driver, 3 Wood, "
                + "4 Hybrid or Putter (see practice import --help)"),
            BadRow(line: 5, reason: "the row has 2 cells but the header (line 1) has 18; fill in the missing cells or delete the row"),
        ])
    }

    func testOnlyBadRowsIsAnErrorEvenWhenSkipping() {
        XCTAssertThrowsError(try RapsodoParser.parse(CleanCSV.file([CleanCSV.row("Chipper")]), sourceName: "s.csv",
                                                     skipBadRows: true)) { error in
            XCTAssertEqual("\(error)", "s.csv:2: no good shot rows: unknown club 'Chipper'; write a known club such as 7i, "
                + "7 Iron, PW, 56°, Driver, 3 Wood, 4 Hybrid or Putter (see practice import --help); fix the rows")
        }
    }

    func testAWiderRowWithEmptyExtraCellsIsStillAShot() throws {
        let export = try RapsodoParser.parse(CleanCSV.file([CleanCSV.row("7i") + ",,"]), sourceName: "s.csv")
        XCTAssertEqual(export.shots.count, 1)
    }
}

final class ClubLabelRuleTests: XCTestCase {
    func testKnownSpellingsAreRecognized() {
        let cases: [(String, String)] = [
            ("7i", "7i"), ("  7 IRON\t", "7i"), ("7-iron", "7i"), ("7_Iron", "7i"), ("Driver", "dr"), ("1W", "dr"),
            ("3 Wood", "3w"), ("3 FW", "3w"), ("4 Hybrid", "4h"), ("4 Rescue", "4h"), ("PW", "pw"), ("AW", "gw"),
            ("Sand Wedge", "sw"), ("lob wedge", "lw"), ("56°", "56deg"), ("56 Degree", "56deg"), ("Putter", "putter"),
        ]
        for (raw, key) in cases { XCTAssertEqual(ClubName.recognized(raw), key, raw) }
    }

    /// Nothing is dropped silently: a label with any other character, or any other club, is not recognized.
    func testOtherCharactersOrClubsAreNotRecognized() {
        for raw in ["7i 東京🏌️", "7i東京", "7i!", "7i (old)", "Chipper", "Mini Driver", "binary", "", "   ", "0i", "123i",
                    "30°", "7ï", "Ｐｗ"] {
            XCTAssertNil(ClubName.recognized(raw), raw)
        }
    }
}

final class CanonicalDuplicateTests: StoreTestCase {
    private var export: [UInt8] { CleanCSV.file([CleanCSV.row("7i"), CleanCSV.row("7i", carry: 152), CleanCSV.row("PW", carry: 110)]) }

    func testCanonicalContent() {
        let canonical = Array("a,b\nc,d\n".utf8)
        for variant in ["a,b\nc,d\n", "\u{FEFF}a,b\r\nc,d\r\n", "a,b  \nc,d\t\n\n\n", "a,b\rc,d", "a,b\nc,d"] {
            XCTAssertEqual(SessionImporter.canonicalContent(Array(variant.utf8)), canonical, variant.debugDescription)
        }
        XCTAssertEqual(SessionImporter.canonicalContent([]), [])
        XCTAssertEqual(SessionImporter.canonicalContent(Array("\n\n".utf8)), [])
        // Inner whitespace and cells are content.
        XCTAssertEqual(SessionImporter.canonicalContent(Array(" a , b\n".utf8)), Array(" a , b\n".utf8))
    }

    func testTheSameExportWithBOMCRLFOrTrailingSpacesIsAlreadyImported() throws {
        let first = try importer.run(ImportRequest(csv: export, sourceName: "s.csv"))
        let text = String(decoding: export, as: UTF8.self)
        let variants = ["\u{FEFF}" + text, text.replacingOccurrences(of: "\n", with: "\r\n"),
                        text.replacingOccurrences(of: "\n", with: "  \n") + "\n\n", String(text.dropLast())]
        for variant in variants {
            XCTAssertThrowsError(try importer.run(ImportRequest(csv: Array(variant.utf8), sourceName: "copy.csv"))) { error in
                XCTAssertEqual((error as? PracticeError)?.kind, .conflict)
                XCTAssertTrue("\(error)".hasPrefix("copy.csv: already imported as session \(first.session.id) "), "\(error)")
            }
        }
        XCTAssertEqual(try store.sessions().count, 1)
        XCTAssertEqual(first.session.contentHash, SHA256.hash(export).hex, "a canonical file's hash is its bytes' hash")
    }

    /// A session imported before 1.2.0 carries its file's byte hash; the same file is still recognised.
    func testAnOlderSessionsByteHashIsStillRecognised() throws {
        let crlf = Array(String(decoding: export, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let old = SessionBatch(contentHash: SHA256.hash(crlf).hex, sourceName: "old.csv", importedAt: "2025-01-01T00:00:00Z",
                               sessionDate: nil, location: nil, title: nil, subsessions: [], shots: [])
        let stored = try store.insertSession(old, progress: nil)
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: crlf, sourceName: "old.csv"))) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .conflict)
            XCTAssertTrue("\(error)".hasPrefix("old.csv: already imported as session \(stored.id) "), "\(error)")
        }
        XCTAssertEqual(try store.sessions().count, 1)
    }

    func testSkipBadRowsImportsTheGoodRowsAndSaysWhichWereLeftOut() throws {
        let csv = CleanCSV.file([CleanCSV.row("7i"), CleanCSV.row("7i 東京🏌️"), CleanCSV.row("7i", carry: 140)])
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "s.csv")))
        XCTAssertEqual(try store.sessions().count, 0)
        let result = try importer.run(ImportRequest(csv: csv, sourceName: "s.csv", skipBadRows: true))
        XCTAssertEqual(result.session.shotCount, 2)
        XCTAssertEqual(result.badRows.map(\.line), [3])
        XCTAssertTrue(result.text.contains("left out 1 bad row (--skip-bad-rows):\n  line 3: unknown club '7i 東京🏌️'"), result.text)
    }

    func testAnEmptyFileIsAnError() {
        for empty in ["", "\u{FEFF}", "\r\n\r\n"] {
            XCTAssertThrowsError(try importer.run(ImportRequest(csv: Array(empty.utf8), sourceName: "e.csv"))) { error in
                XCTAssertEqual((error as? PracticeError)?.kind, .invalidInput)
                XCTAssertEqual("\(error)", "e.csv: the file is empty; export a session from the MLM2PRO app as CSV")
            }
        }
        XCTAssertEqual(try? store.sessions().count, 0)
    }
}
