import ClubhouseJSON
import ClubhouseToolkit
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ToolkitTests: XCTestCase {
    func testSplitMix64GivesTheReferenceSequence() {
        // The first outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
        var rng = SplitMix64(seed: 0)
        XCTAssertEqual([rng.next(), rng.next(), rng.next()], [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        XCTAssertEqual((0..<100).map { _ in a.below(7) }, (0..<100).map { _ in b.below(7) })
        XCTAssertTrue((0..<1000).allSatisfy { _ in (0..<7).contains(a.below(7)) && (0..<1).contains(a.unit()) })
        var m = SplitMix64(seed: 3), n = SplitMix64(seed: 3)
        XCTAssertEqual(m.modulo(10), Int(n.next() % 10))
        var s = SplitMix64(seed: 9)
        XCTAssertEqual(s.shuffled(Array(0..<20)).sorted(), Array(0..<20))
    }

    /// Issue 30: conversions that never trap, and fixed-point text for any Double.
    func testCheckedConversionsAndDecimalText() {
        XCTAssertEqual(Int(checking: 12.9), 12)
        XCTAssertEqual(Int(checking: 12.5, rounding: .toNearestOrAwayFromZero), 13)
        XCTAssertNil(Int(checking: .nan))
        XCTAssertNil(Int(checking: .infinity))
        XCTAssertNil(Int(checking: 1e308))
        XCTAssertNil(Int(checking: 9_223_372_036_854_775_808.0)) // 2^63
        XCTAssertEqual(Int32(checking: -2_147_483_648.0), Int32.min)
        XCTAssertNil(UInt8(checking: -1))
        XCTAssertEqual(Int(saturating: 1e308), Int.max)
        XCTAssertEqual(Int(saturating: -.infinity), Int.min)
        XCTAssertEqual(Int(saturating: 9_223_372_036_854_775_808.0), Int.max)
        XCTAssertEqual(Int(saturating: .nan), 0)
        XCTAssertEqual(Int(saturating: .nan, nan: -1), -1)
        XCTAssertEqual(Int(saturating: -7.9), -7)
        XCTAssertEqual(UInt16(saturating: 1e9), UInt16.max)
        XCTAssertEqual(UInt16(saturating: -3), 0)
        XCTAssertEqual(DecimalText.fixed(83.3333, 1), "83.3")
        XCTAssertEqual(DecimalText.fixed(2.5, 0), "3")
        XCTAssertEqual(DecimalText.fixed(-0.04, 1), "0.0")
        XCTAssertEqual(DecimalText.fixed(-0.05, 1), "-0.1")
        XCTAssertEqual(DecimalText.fixed(150, 2), "150.00")
        XCTAssertEqual(DecimalText.fixed(1e308, 1), "1e+308")
        XCTAssertEqual(DecimalText.fixed(-1e308, 0), "-1e+308")
        XCTAssertEqual(DecimalText.fixed(1e-308, 3), "0.000")
        XCTAssertEqual(DecimalText.fixed(.infinity, 1), "inf")
        XCTAssertEqual(DecimalText.fixed(-.infinity, 1), "-inf")
        XCTAssertEqual(DecimalText.fixed(.nan, 1), "nan")
        XCTAssertEqual(DecimalText.fixed(123_456_789_012.345, 3), "123456789012.345")
    }

    func testUTCTimestamps() {
        XCTAssertEqual(UTCClock.iso8601(seconds: 1_763_783_431), "2025-11-22T03:50:31Z")
        XCTAssertEqual(UTCClock.iso8601(seconds: 0, milliseconds: 7), "1970-01-01T00:00:00.007Z")
        XCTAssertEqual(UTCClock.iso8601(1_763_783_431.9), "2025-11-22T03:50:31Z")
        XCTAssertEqual(UTCClock.parse("2025-11-22T03:50:31Z"), 1_763_783_431)
        XCTAssertNil(UTCClock.parse("2025-13-22T03:50:31Z"))
        XCTAssertNil(UTCClock.parse("yesterday"))
        let now = UTCClock.iso8601Now()
        XCTAssertEqual(now.count, 20)
        XCTAssertNotNil(UTCClock.parse(now))
        XCTAssertEqual(UTCClock.iso8601NowMilliseconds().count, 24)
    }

    func testTextTablesPadColumnsBothWays() {
        var table = TextTable(["CLUB", "CARRY", "NOTE"])
        table.add(["7i", "151.5", ""])
        table.add(["PW", "112", "wet"])
        XCTAssertEqual(table.text, "CLUB  CARRY  NOTE\n7i    151.5\nPW    112    wet")
        XCTAssertEqual(table.render(), "CLUB  CARRY  NOTE\n7i    151.5  \nPW    112    wet\n")
    }

    func testTextTableHeadersAreBoldOnlyWhileTheStyleIsTerminal() async {
        var table = TextTable(["CLUB", "CARRY", "NOTE"])
        table.add(["7i", "151.5", ""])
        table.add(["PW", "112", "wet"])
        XCTAssertEqual(TextStyle.current, .plain, "plain unless someone binds it")
        TextStyle.with(.terminal) {
            XCTAssertEqual(table.text, "\u{1B}[1mCLUB  CARRY  NOTE\u{1B}[0m\n7i    151.5\nPW    112    wet")
            XCTAssertEqual(table.render(), "\u{1B}[1mCLUB  CARRY  NOTE\u{1B}[0m\n7i    151.5  \nPW    112    wet\n")
            XCTAssertEqual(TextStyle.bold(""), "", "nothing to embolden, no escape sequences")
        }
        XCTAssertEqual(TextStyle.unstyled("\u{1B}[1mCLUB\u{1B}[0m 7i \u{1B}[1;31mred\u{1B}[m"), "CLUB 7i red")
        XCTAssertEqual(TextStyle.unstyled("keep \u{1B}[2K and \u{1B} alone"), "keep \u{1B}[2K and \u{1B} alone", "only SGR sequences go")
        // Scoped: outside the binding (and in a task started elsewhere) the text is plain again.
        XCTAssertEqual(table.render(), "CLUB  CARRY  NOTE\n7i    151.5  \nPW    112    wet\n")
        let elsewhere = await Task.detached { table.text }.value
        XCTAssertFalse(elsewhere.contains("\u{1B}"), elsewhere)
        let detached = await TextStyle.with(.terminal) { Task.detached { TextStyle.current } }.value
        XCTAssertEqual(detached, .plain, "a task started while the style is bound does not inherit it")
        // Bound per thread: another thread's text stays plain while this one builds styled text, and the
        // previous style comes back after a throwing body.
        TextStyle.with(.terminal) {
            var other = TextStyle.terminal
            var thread = pthread_t()
            withUnsafeMutablePointer(to: &other) { slot in
                _ = pthread_create(&thread, nil, { raw in
                    raw?.assumingMemoryBound(to: TextStyle.self).pointee = TextStyle.current
                    return nil
                }, slot)
                _ = pthread_join(thread, nil)
            }
            XCTAssertEqual(other, .plain, "a thread started while the style is bound does not inherit it")
            XCTAssertEqual(TextStyle.current, .terminal)
        }
        struct Failure: Error {}
        XCTAssertThrowsError(try TextStyle.with(.terminal) { () throws(Failure) -> Void in throw Failure() })
        XCTAssertEqual(TextStyle.current, .plain, "restored after a throwing body")
    }

    func testCivilCalendarMatchesKnownDaysAndRoundTrips() {
        // Known day numbers (days since 1970-01-01; `date -d 2000-03-01 +%s` / 86400 and the like).
        XCTAssertEqual(CivilCalendar.dayNumber(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(CivilCalendar.dayNumber(year: 1969, month: 12, day: 31), -1)
        XCTAssertEqual(CivilCalendar.dayNumber(year: 2000, month: 3, day: 1), 11_017)
        XCTAssertEqual(CivilCalendar.dayNumber(year: 2026, month: 11, day: 27), 20_784)
        XCTAssertEqual(CivilCalendar.dayNumber(year: 1, month: 1, day: 1), -719_162)
        XCTAssertTrue(CivilCalendar.date(dayNumber: 11_016) == (2000, 2, 29))
        XCTAssertEqual(CivilCalendar.daysIn(month: 2, year: 1900), 28)
        XCTAssertEqual(CivilCalendar.daysIn(month: 2, year: 2000), 29)
        // Every day of 400 years around 1970, and of 40 years around year 0, comes back as itself, and
        // each follows the one before.
        for days in [-75_000...75_000, -730_000...(-715_000)] {
            var previous = CivilCalendar.date(dayNumber: days.lowerBound - 1)
            for n in days {
                let d = CivilCalendar.date(dayNumber: n)
                let next = previous.day < CivilCalendar.daysIn(month: previous.month, year: previous.year)
                    ? (previous.year, previous.month, previous.day + 1)
                    : previous.month < 12 ? (previous.year, previous.month + 1, 1) : (previous.year + 1, 1, 1)
                if d != next || CivilCalendar.dayNumber(year: d.year, month: d.month, day: d.day) != n {
                    return XCTFail("day \(n): \(d) after \(previous)")
                }
                previous = d
            }
        }
    }

    func testWholeFileReadsAndNamesWhatWentWrong() throws {
        let path = "/tmp/clubhouse-toolkit-\(getpid()).txt"
        defer { unlink(path) }
        let text = String(repeating: "green ", count: 20_000)
        let file = try XCTUnwrap(fopen(path, "w"))
        fputs(text, file)
        fclose(file)
        XCTAssertEqual(try WholeFile.read(path).get(), Array(text.utf8))
        XCTAssertEqual(WholeFile.read(path, limit: 1000), .failure(.tooLarge(limit: 1000)))
        XCTAssertEqual(WholeFile.read("/tmp"), .failure(.folder))
        XCTAssertEqual(WholeFile.read("/nonexistent/file"), .failure(.open(errno: ENOENT)))
        XCTAssertEqual(WholeFile.Failure.open(errno: ENOENT).description, "No such file or directory")
    }

    func testGLTFBufferAlignsRunsAndDescribesThem() {
        var buffer = GLTFBuffer()
        let floats = buffer.appendFloats([Float(1), -2, 0.5])
        let indices = buffer.appendIndices([UInt32(0), 1, 2])
        XCTAssertEqual(floats.offset, 0)
        XCTAssertEqual(floats.length, 12)
        XCTAssertEqual(indices.offset, 12)
        XCTAssertEqual(Array(buffer.bytes[0..<4]), [0, 0, 0x80, 0x3F], "little-endian 1.0")
        XCTAssertEqual(Array(buffer.bytes[16..<20]), [1, 0, 0, 0])
        let view = buffer.view(indices, target: GLTFBuffer.indexTarget)
        let accessor = buffer.accessor(view: view, componentType: GLTFBuffer.unsignedInt, count: 3, type: "SCALAR", min: [0], max: [2])
        XCTAssertEqual(JSONWriter.compact(buffer.bufferViews[view]), #"{"buffer":0,"byteOffset":12,"byteLength":12,"target":34963}"#)
        XCTAssertEqual(JSONWriter.compact(buffer.accessors[accessor]),
                       #"{"bufferView":0,"componentType":5125,"count":3,"type":"SCALAR","min":[0.0],"max":[2.0]}"#)
        XCTAssertEqual(MeshFormat(fileName: "green.GLTF"), .gltf)
        XCTAssertEqual(MeshFormat(fileName: "green.obj"), .obj)
        XCTAssertNil(MeshFormat(fileName: "green.stl"))
    }
}
