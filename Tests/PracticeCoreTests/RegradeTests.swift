import XCTest
@testable import PracticeCore

final class RegradeTests: StoreTestCase {
    var fixtureAHash: String { "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698" }

    /// The kernel's oracle, reached by re-grading instead of at import: the two-club sample first
    /// graded by the bundled 7i default, then re-graded with fixture_a, gives 7i A=5 B=0 C=1.
    func testRegradeAppendsTheOracleAnalysisAndLeavesFactsAlone() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv"))
        let id = imported.session.id
        let shotsBefore = try store.shots(sessionID: id)
        let analysesBefore = try store.subsessions(sessionID: id, club: nil)
        let exportBefore = try SessionQueries(library: library).export(id)
        guard case .file(let name, let bytes) = try fixture("fixture_a") else { return XCTFail("fixture_a") }
        _ = try library.add(bytes, sourceName: name)

        let result = try Regrader(library: library).run(RegradeRequest(template: fixtureAHash, sessionID: id))
        XCTAssertEqual(result.club, "7i")
        XCTAssertEqual(result.regraded.count, 1)
        let a = try XCTUnwrap(result.regraded.first?.analysis)
        XCTAssertEqual([a.shotCount, a.aCount, a.bCount, a.cCount], [6, 5, 0, 0 + 1])
        XCTAssertEqual(a.templateHash, fixtureAHash)
        XCTAssertEqual(a.aPercent ?? 0, 500.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(result.regraded.first?.importAnalysis, analysesBefore.first { $0.analysis.club == "7i" }?.analysis)
        XCTAssertEqual(result.shotsGraded, 6)
        XCTAssertTrue(result.text.contains("re-graded 1 7i sub-session (6 shots) under template 96bf2f0d9540"), result.text)

        // Facts are as they were; the new analysis is appended after them.
        XCTAssertEqual(try store.shots(sessionID: id), shotsBefore)
        let after = try store.subsessions(sessionID: id, club: nil)
        XCTAssertEqual(Array(after.prefix(analysesBefore.count)), analysesBefore)
        XCTAssertEqual(after.count, analysesBefore.count + 1)
        // The summary (and its hash) is the import's.
        XCTAssertEqual(try SessionQueries(library: library).export(id).sha256, exportBefore.sha256)

        // Again: nothing new.
        let again = try Regrader(library: library).run(RegradeRequest(template: "96bf2f0d", all: true))
        XCTAssertEqual(again.regraded, [])
        XCTAssertEqual(again.alreadyGraded, [id])
        XCTAssertEqual(try store.subsessions(sessionID: id, club: nil).count, after.count)
    }

    /// Ctrl-C part-way: a one-line "cancelled" error and no analysis appended (one transaction).
    func testCancelledRegradeWritesNothing() throws {
        for day in 1...3 {
            _ = try importer.run(ImportRequest(csv: csv([("7i", 15)], seed: UInt64(60 + day), day: day), sourceName: "c\(day).csv"))
        }
        let strict = #"{"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"ball_speed":{"a_min":120}}}"#
        let hash = try library.add(Array(strict.utf8), sourceName: "strict.json").template.hash
        let before = try store.subsessions(sessionID: nil, club: nil)
        var asked = 0
        XCTAssertThrowsError(try Regrader(library: library).run(RegradeRequest(template: hash, all: true),
                                                                 cancelled: { asked += 1; return asked > 2 })) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .cancelled)
            XCTAssertEqual("\(error)", "re-grade stopped after 2 of 3 sessions; nothing was written "
                + "(the re-grade is one transaction) — run it again to grade them")
        }
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil), before)
        // Not cancelled: all three are graded.
        XCTAssertEqual(try Regrader(library: library).run(RegradeRequest(template: hash, all: true)).regraded.count, 3)
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil).count, before.count + 3)
    }

    func testTrendsChooseTheAnalysisByTemplateHash() throws {
        for day in 1...3 {
            _ = try importer.run(ImportRequest(csv: csv([("7i", 15)], seed: UInt64(40 + day), day: day), sourceName: "d\(day).csv"))
        }
        let strict = #"{"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"ball_speed":{"a_min":200}}}"#
        let hash = try library.add(Array(strict.utf8), sourceName: "strict.json").template.hash
        let importTrend = try TrendQuery(store: store).run(TrendRequest(club: "7i"))
        // Only session 2 re-graded: the pinned trend shows it and says why the others are out.
        _ = try Regrader(library: library).run(RegradeRequest(template: hash, sessionID: 2))
        let pinned = try TrendQuery(store: store).run(TrendRequest(club: "7i", templateHash: hash))
        XCTAssertEqual(pinned.points.map(\.sessionID), [2])
        XCTAssertEqual(pinned.points.first?.aCount, 0) // nobody hits 200 mph with a 7-iron
        XCTAssertEqual(pinned.points.first?.templateHash, hash)
        XCTAssertEqual(pinned.excluded.map(\.sessionID), [1, 3])
        XCTAssertTrue(pinned.excluded[0].reason.contains("practice regrade --template \(hash.prefix(12)) --session 1"), pinned.excluded[0].reason)
        XCTAssertEqual(pinned.pinnedTemplate, hash)
        // The default trend still shows what each session was graded with at import.
        XCTAssertEqual(try TrendQuery(store: store).run(TrendRequest(club: "7i")), importTrend)
        // --all fills in the rest.
        let all = try Regrader(library: library).run(RegradeRequest(template: hash, all: true))
        XCTAssertEqual(all.regraded.map(\.sessionID), [1, 3])
        XCTAssertEqual(all.alreadyGraded, [2])
        XCTAssertEqual(try TrendQuery(store: store).run(TrendRequest(club: "7i", templateHash: hash)).points.map(\.aCount), [0, 0, 0])
    }

    func testBadRegradeRequestsAreOneLineErrorsAndWriteNothing() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv"))
        let count = try store.subsessions(sessionID: nil, club: nil).count
        func message(_ request: RegradeRequest) -> String {
            do {
                _ = try Regrader(library: library).run(request)
                return "no error"
            } catch { return "\(error)" }
        }
        XCTAssertEqual(message(RegradeRequest(template: "feedface", all: true)),
                       "no template matches 'feedface'; give a hash (or its first digits) or a name from `practice template list --all`")
        XCTAssertEqual(message(RegradeRequest(template: "Clubhouse default 7i")),
                       "regrade needs session ID or all (which sessions to grade again)")
        XCTAssertEqual(message(RegradeRequest(template: "Clubhouse default 7i", sessionID: 1, all: true)),
                       "give either session ID or all, not both")
        XCTAssertEqual(message(RegradeRequest(template: "Clubhouse default 7i", sessionID: 99)), "no session 99; `practice sessions` lists them")
        let driver = #"{"schema_version":"1.0","club":"Driver","aggregation_method":"worst_metric","metrics":{"carry":{"a_min":250}}}"#
        let hash = try library.add(Array(driver.utf8), sourceName: "driver.json").template.hash
        XCTAssertEqual(message(RegradeRequest(template: hash, sessionID: imported.session.id)),
                       "session 1 has no dr shots (clubs: 5i, 7i); template \(hash.prefix(12)) grades dr")
        XCTAssertEqual(message(RegradeRequest(template: hash, all: true)), "no session has dr shots; nothing was re-graded")
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil).count, count)
    }

    func testTheStoreAppendsAllOrNothing() throws {
        let imported = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv"))
        let before = try store.subsessions(sessionID: nil, club: nil)
        let existing = try XCTUnwrap(before.first)
        let fresh = SubsessionAnalysis.analyze(club: "7i", shots: [], template: nil).0
        // A good analysis followed by one that repeats a stored (session, club, template): neither is written.
        XCTAssertThrowsError(try store.appendAnalyses([AppendedAnalysis(sessionID: imported.session.id, analysis: fresh),
                                                       AppendedAnalysis(sessionID: existing.sessionID, analysis: existing.analysis)])) { error in
            XCTAssertTrue("\(error)".hasPrefix("session 1 already has a"), "\(error)")
        }
        XCTAssertThrowsError(try store.appendAnalyses([AppendedAnalysis(sessionID: 42, analysis: fresh)])) { error in
            XCTAssertEqual("\(error)", "no session 42 is stored")
        }
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil), before)
    }
}
