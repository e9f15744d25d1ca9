import ClubhouseJSON
import Foundation
import ClubhouseHashing
import ClubhouseGraphics
import XCTest
@testable import PracticeCore
#if canImport(FoundationXML)
import FoundationXML
#endif

final class TrendTests: StoreTestCase {
    func testWeightedAPercentAndValidityFilterAreExplicit() throws {
        // Three sessions of 7i: 20 shots, 6 shots, 3 shots (invalid), in date order.
        for (i, n) in [20, 6, 3].enumerated() {
            _ = try importer.run(ImportRequest(csv: csv([("7i", n)], seed: UInt64(10 + i), day: i + 1), sourceName: "s\(i).csv"))
        }
        let subs = try store.subsessions(sessionID: nil, club: "7i").map(\.analysis)
        let trend = try TrendQuery(store: store).run(TrendRequest(club: "7 Iron"))
        XCTAssertEqual(trend.club, "7i")
        XCTAssertEqual(trend.points.map(\.shotCount), [20, 6])
        XCTAssertEqual(trend.excluded.map(\.reason), ["invalid (3 shots) is below valid_low_sample"])
        let expected = Double((subs[0].aCount ?? 0) + (subs[1].aCount ?? 0)) / 26 * 100
        XCTAssertEqual(trend.weightedAPercent ?? -1, expected, accuracy: 1e-12)
        XCTAssertTrue(trend.text.contains("excluded session 3"))
        // Only full samples.
        let strict = try TrendQuery(store: store).run(TrendRequest(club: "7i", minValidity: .valid))
        XCTAssertEqual(strict.points.map(\.shotCount), [20])
        XCTAssertEqual(strict.excluded.count, 2)
        // Everything, invalid included: the invalid session shows but weighs nothing (it has no A%).
        let all = try TrendQuery(store: store).run(TrendRequest(club: "7i", minValidity: .invalid))
        XCTAssertEqual(all.points.count, 3)
        XCTAssertEqual(all.weightedAPercent ?? -1, expected, accuracy: 1e-12)
    }

    func testAOnlyTrendsStayPinnedWhenANewTemplateArrives() throws {
        // The first session is graded with fixture_a (ball speed ≥ 100 is A), which also becomes active.
        _ = try importer.run(ImportRequest(csv: csv([("7i", 16)], seed: 21, day: 1), sourceName: "a.csv", templates: [fixture("fixture_a")]))
        let before = try TrendQuery(store: store).run(TrendRequest(club: "7i", aOnly: true))
        XCTAssertEqual(before.points.count, 1)
        // A stricter 7i template, added and made active after the first session.
        let strict = #"{"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"ball_speed":{"a_min":111,"b_min":105}}}"#
        let added = try library.add(Array(strict.utf8), sourceName: "strict.json")
        XCTAssertFalse(added.activated)
        _ = try library.activate(added.template.hash)
        _ = try importer.run(ImportRequest(csv: csv([("7i", 16)], seed: 22, form: 1, day: 8), sourceName: "b.csv"))
        let after = try TrendQuery(store: store).run(TrendRequest(club: "7i", aOnly: true))
        XCTAssertEqual(after.points.first, before.points.first, "history never changes")
        XCTAssertEqual(after.points.map(\.templateHash), [before.points[0].templateHash, added.template.hash])
        XCTAssertNotEqual(before.points[0].templateHash, added.template.hash)
        XCTAssertEqual(after.points[1].aOnlyAverages?.means[.ballSpeed].map { $0 >= 111 }, true)
        XCTAssertTrue(after.text.contains("A shots only, each graded by its own template"))
    }

    func testUnknownClubSaysWhichClubsThereAre() throws {
        _ = try importer.run(ImportRequest(csv: sample(), sourceName: "s.csv"))
        XCTAssertThrowsError(try TrendQuery(store: store).run(TrendRequest(club: "Driver"))) { error in
            XCTAssertEqual("\(error)", "no sessions have dr shots (clubs: 5i, 7i)")
        }
        XCTAssertThrowsError(try TrendQuery(store: store).run(TrendRequest(club: " "))) { error in
            XCTAssertEqual("\(error)", "club needs a club name such as 7i")
        }
        XCTAssertThrowsError(try Validity(option: "great")) { error in
            XCTAssertEqual("\(error)", "unknown validity 'great'; use invalid, low_sample or valid")
        }
        XCTAssertEqual(try Validity(option: "low-sample"), .validLowSample)
    }

    func testChartIsWellFormedSVGWithAPointPerSession() throws {
        for day in 1...4 {
            _ = try importer.run(ImportRequest(csv: csv([("7i", 15)], seed: UInt64(30 + day), form: Double(day) / 4, day: day),
                                               sourceName: "d\(day).csv"))
        }
        for aOnly in [false, true] {
            let trend = try TrendQuery(store: store).run(TrendRequest(club: "7i", aOnly: aOnly))
            let svg = TrendChart.svg(trend)
            XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, trend.points.count)
            XCTAssertEqual(svg.components(separatedBy: "<polyline").count - 1, 1)
            XCTAssertTrue(svg.contains(aOnly ? "A-shot mean carry (yd)" : "A% per session"))
            let parser = XMLParser(data: Data(svg.utf8))
            XCTAssertTrue(parser.parse(), "SVG is not well-formed XML: \(String(describing: parser.parserError))")
        }
        XCTAssertEqual(SVGText.escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;")
    }

    func testChartOfNoPointsSaysSo() {
        let empty = TrendResult(club: "7i", aOnly: false, minValidity: .valid, chartMetric: .carry, points: [], excluded: [],
                                weightedAPercent: nil, weightedAOnlyAverages: nil)
        XCTAssertTrue(TrendChart.svg(empty).contains("no sessions pass the filters"))
    }
}

final class SessionQueryTests: StoreTestCase {
    func testSessionsListAndDetail() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv", templates: [fixture("fixture_a")],
                                                      date: "2026-01-20", location: "Home net"))
        let queries = SessionQueries(library: library)
        let list = try queries.sessions()
        XCTAssertEqual(list.sessions.map(\.clubs), [["7i", "5i"]])
        XCTAssertTrue(list.text.contains("2026-01-20"))
        let detail = try queries.session(imported.session.id)
        XCTAssertEqual(detail.clubs.map(\.analysis), imported.clubs.map(\.analysis))
        XCTAssertTrue(detail.text.contains("ALL SHOTS (6)"))
        XCTAssertTrue(detail.text.contains("A SHOTS ONLY (5)"))
        XCTAssertNil(detail.shots)
        let withShots = try queries.session(imported.session.id, includeShots: true)
        XCTAssertEqual(withShots.shots?.map(\.rowIndex), Array(2...16))
        XCTAssertEqual(withShots.shots?.prefix(6).map(\.grade), [.a, .a, .a, .a, .c, .a])
        XCTAssertTrue(withShots.text.contains("ROW  CLUB  GRADE"))
        XCTAssertThrowsError(try queries.session(99)) { error in
            XCTAssertEqual("\(error)", "no session 99; `practice sessions` lists them")
        }
        XCTAssertThrowsError(try SessionQueries.sessionID("seven")) { error in
            XCTAssertEqual("\(error)", "'seven' is not a session id; use the number `practice sessions` shows")
        }
        XCTAssertEqual(try SessionQueries.sessionID("3"), 3)
    }

    func testDeletionAsksFirstThenRemovesTheSessionWhole() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv", templates: [fixture("fixture_a")],
                                                      date: "2026-01-20"))
        let deletion = SessionDeletion(library: library)
        let id = imported.session.id
        XCTAssertThrowsError(try deletion.delete(id, reason: nil, confirmed: false, now: "2026-02-01T00:00:00Z")) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .unconfirmed)
            XCTAssertEqual("\(error)", "session \(id) (sample.csv, 2026-01-20, 15 shots) will be deleted for good and leave every trend — delete it?")
        }
        XCTAssertEqual(try SessionQueries(library: library).sessions().sessions.count, 1, "an unconfirmed delete changes nothing")
        let deleted = try deletion.delete(id, reason: "range balls", confirmed: true, now: "2026-02-01T00:00:00Z")
        XCTAssertEqual(deleted.text, "Deleted session \(id) (sample.csv, 2026-01-20, 15 shots): range balls\n")
        XCTAssertEqual(try SessionQueries(library: library).sessions().sessions.count, 0)
        XCTAssertEqual(try store.subsessions(sessionID: id, club: nil).count, 0)
        XCTAssertThrowsError(try deletion.delete(id, reason: nil, confirmed: true, now: "x")) { error in
            XCTAssertEqual("\(error)", "no session \(id); `practice sessions` lists them")
        }
    }

    func testExportIsCanonicalStableAndPortable() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv", templates: [fixture("fixture_a")]))
        let queries = SessionQueries(library: library)
        let first = try queries.export(imported.session.id)
        let second = try queries.export(imported.session.id)
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.sha256, SHA256.hash(first.canonicalJSON).hex)
        // Its canonical form is itself, in either spelling of the text.
        XCTAssertEqual(try CanonicalJSON.string(of: JSONParser.parse(first.canonicalJSON), profile: .raidV2), first.canonicalJSON)
        let doc = try JSONParser.parse(first.canonicalJSON)
        XCTAssertEqual(doc["kind"]?.stringValue, "clubhouse.practice.session_summary")
        XCTAssertEqual(doc["source_sha256"]?.stringValue, imported.session.contentHash)
        XCTAssertNil(doc["id"], "local ids stay local")
        let seven = try XCTUnwrap(doc["clubs"]?.arrayValue?.first)
        XCTAssertEqual(seven["a_count"]?.intValue, 5)
        XCTAssertEqual(seven["kpi_template_hash"]?.stringValue, "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698")
        XCTAssertEqual(seven["averages_a_only"]?["shot_count"]?.intValue, 5)
        // The same file in another library (other ids, other import time) exports the same bytes.
        let other = PracticeEnvironment()
        _ = try other.importer.run(ImportRequest(csv: csv([("PW", 5)], seed: 1), sourceName: "first.csv"))
        let again = try other.importer.run(ImportRequest(csv: sample(), sourceName: "renamed.csv", templates: [fixture("fixture_a")]))
        XCTAssertNotEqual(again.session.id, imported.session.id)
        XCTAssertEqual(try SessionQueries(library: other.library).export(again.session.id).sha256, first.sha256)
    }
}

final class GeneratorTests: XCTestCase {
    func testSameSeedSameBytesOtherSeedOtherBytes() {
        let config = SessionGenerator.Configuration(seed: 42, clubs: [("7i", 30), ("Dr", 10)])
        XCTAssertEqual(SessionGenerator.csv(config), SessionGenerator.csv(config))
        var other = config
        other.seed = 43
        XCTAssertNotEqual(SessionGenerator.csv(config), SessionGenerator.csv(other))
    }

    /// The generated 7-iron looks like the real export: the same means within a fraction of a
    /// standard deviation, similar spread, and the strong ball speed–carry link.
    func testSevenIronDistributionsLookLikeTheRealExport() throws {
        let real = try RapsodoParser.parse(SharedData.bytes(SharedData.practice("sessions/fixture_mlm2pro_shotexport_anonymized.csv")),
                                           sourceName: "real.csv")
        let generated = try RapsodoParser.parse(SessionGenerator.csv(.init(seed: 7, clubs: [("7i", 2000)])), sourceName: "gen.csv")
        func stats(_ shots: [RapsodoShot], _ m: ShotMetric) -> (mean: Double, sd: Double) {
            let xs = shots.compactMap { $0.measurements[m] }
            let mean = xs.reduce(0, +) / Double(xs.count)
            return (mean, (xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count - 1)).squareRoot())
        }
        for metric in [ShotMetric.ballSpeed, .carry, .smashFactor, .spinRate, .descentAngle, .launchAngle, .clubSpeed] {
            let r = stats(real.shots, metric), g = stats(generated.shots, metric)
            XCTAssertEqual(g.mean, r.mean, accuracy: 0.5 * r.sd, "\(metric) mean")
            XCTAssertEqual(g.sd, r.sd, accuracy: 0.6 * r.sd, "\(metric) spread")
        }
        let pairs = generated.shots.compactMap { s in s.measurements[.ballSpeed].flatMap { b in s.measurements[.carry].map { (b, $0) } } }
        XCTAssertGreaterThan(correlation(pairs), 0.85)
        XCTAssertEqual(generated.footerRows, 2)
        XCTAssertEqual(generated.title?.sessionName, "Generated Session")
    }

    func testRepeatedHeadersParseBack() throws {
        let csv = SessionGenerator.csv(.init(seed: 3, clubs: [("7i", 5), ("5i", 5), ("PW", 5)], titleRow: false, repeatHeaders: true))
        let export = try RapsodoParser.parse(csv, sourceName: "g.csv")
        XCTAssertEqual(export.repeatedHeaders, 2)
        XCTAssertEqual(export.footerRows, 6)
        XCTAssertEqual(export.clubs, ["7i", "5i", "pw"])
        XCTAssertNil(export.title)
    }

    func testDemoImportsSessionsAndChartsTheTrend() throws {
        let store = InMemoryPracticeStore()
        let demo = try PracticeDemo.run(store: store, now: { "2026-03-01T00:00:00Z" })
        XCTAssertEqual(demo.sessions.count, 6)
        XCTAssertEqual(demo.files.count, 6)
        XCTAssertEqual(demo.trend.points.count, 6)
        XCTAssertTrue(demo.svg.contains("<polyline"))
        XCTAssertTrue(demo.sessions.allSatisfy { $0.clubs.allSatisfy { $0.templateName?.hasPrefix("Clubhouse default") == true } })
        // Form improves over the weeks: the last sessions grade better than the first ones.
        let a = demo.trend.points.compactMap(\.aPercent)
        print("demo 7i A% by week:", a.map { fixed($0, 0) })
        XCTAssertGreaterThan(a.suffix(3).reduce(0, +), a.prefix(3).reduce(0, +))
    }

    /// The demo's live template: the 7i default without descent angle (Open Connect sends none),
    /// active afterwards; live shots graded by it are not all C for want of a metric.
    func testDemoLiveTemplateDropsWhatOpenConnectDoesNotSend() throws {
        let store = InMemoryPracticeStore()
        let library = TemplateLibrary(store: store, now: { "2026-03-01T00:00:00Z" })
        let before = try XCTUnwrap(try library.activeTemplate(for: "7i"))
        XCTAssertTrue(before.thresholds.contains { $0.metric == .descentAngle })
        let row = try XCTUnwrap(try PracticeDemo.liveTemplate(library: library))
        XCTAssertTrue(row.active)
        XCTAssertEqual(row.club, "7i")
        XCTAssertEqual(row.displayName, "7i live (Open Connect sends no descent_angle)")
        XCTAssertEqual(Set(row.thresholds.map(\.metric)), Set(before.thresholds.map(\.metric)).subtracting([.descentAngle]))
        XCTAssertTrue(row.thresholds.allSatisfy { OpenConnectMessage.metricsSent.contains($0.metric) })
        XCTAssertEqual(try library.activeTemplate(for: "7i")?.hash, row.hash)
        // The template in use now grades only what arrives: nothing more to add.
        XCTAssertNil(try PracticeDemo.liveTemplate(library: library))
        // Live shots with every Open Connect field get a grade from it, and no missing-metric warning.
        let recorder = LiveRecorder(library: library, device: "t", defaultClub: "7i")
        try recorder.start()
        let message = #"{"DeviceID":"t","Units":"Yards","ShotNumber":1,"APIversion":"1","BallData":{"Speed":112,"SpinAxis":1,"TotalSpin":6500,"HLA":0.5,"VLA":18,"CarryDistance":165},"ClubData":{"Speed":82},"ShotDataOptions":{"ContainsBallData":true,"ContainsClubData":true}}"#
        var queue: [LiveRead] = [.bytes(Array((message + "\n").utf8))]
        let live = try LiveSessionLoop().run(recorder, read: { queue.isEmpty ? .ended : queue.removeFirst() })
        XCTAssertEqual(live.shots.map(\.templateHash), [row.hash])
        XCTAssertFalse(live.text.contains("does not carry"), live.text)
    }

    private func correlation(_ pairs: [(Double, Double)]) -> Double {
        let n = Double(pairs.count)
        let mx = pairs.reduce(0) { $0 + $1.0 } / n, my = pairs.reduce(0) { $0 + $1.1 } / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (x, y) in pairs { sxy += (x - mx) * (y - my); sxx += (x - mx) * (x - mx); syy += (y - my) * (y - my) }
        return sxy / (sxx * syy).squareRoot()
    }
}
