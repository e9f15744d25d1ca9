import ClubhouseJSON
import ClubhouseHashing
import XCTest
@testable import PracticeCore

/// A clock that ticks one second per reading, so insertion order is visible and repeatable.
/// @unchecked Sendable: called from the test's thread only (the importer asks it on the calling thread).
final class TestClock: @unchecked Sendable {
    private var seconds = 0
    func callAsFunction() -> String {
        seconds += 1
        return "2026-02-01T10:\(seconds / 60 < 10 ? "0" : "")\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)Z"
    }
}

/// A fresh in-memory library: store, template library and importer on a ticking clock.
struct PracticeEnvironment {
    let store = InMemoryPracticeStore()
    let library: TemplateLibrary
    let importer: SessionImporter

    init() {
        let clock = TestClock()
        library = TemplateLibrary(store: store, now: { clock() })
        importer = SessionImporter(library: library)
    }
}

class StoreTestCase: XCTestCase {
    var environment = PracticeEnvironment()
    var store: InMemoryPracticeStore { environment.store }
    var library: TemplateLibrary { environment.library }
    var importer: SessionImporter { environment.importer }

    override func setUp() {
        environment = PracticeEnvironment()
    }

    func fixture(_ name: String) throws -> TemplateArgument {
        .file(name: name + ".json", bytes: try SharedData.bytes(SharedData.practice("templates/\(name).json")))
    }

    func sample() throws -> [UInt8] {
        try SharedData.bytes(SharedData.practice("sessions/rapsodo_mlm2pro_mixed_club_sample.csv"))
    }

    func csv(_ clubs: [(String, Int)], seed: UInt64, form: Double = 0, day: Int = 1) -> [UInt8] {
        SessionGenerator.csv(.init(seed: seed, clubs: clubs, date: (2026, 3, day, 10, 0), form: form))
    }
}

final class ImportTests: StoreTestCase {
    func testOracleTwoClubSampleWithFixtureA() throws {
        let result = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv", templates: [fixture("fixture_a")]))
        let sevenIron = try XCTUnwrap(result.clubs.first { $0.analysis.club == "7i" }?.analysis)
        XCTAssertEqual(sevenIron.shotCount, 6)
        XCTAssertEqual(sevenIron.aCount, 5)
        XCTAssertEqual(sevenIron.bCount, 0)
        XCTAssertEqual(sevenIron.cCount, 1)
        XCTAssertEqual(sevenIron.templateHash, "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698")
        XCTAssertEqual(sevenIron.validity, .validLowSample)
        XCTAssertEqual(sevenIron.aPercent ?? 0, 500.0 / 6, accuracy: 1e-12)
        // The A-only average is over the five A shots; the all-shots one over all six.
        XCTAssertEqual(sevenIron.averagesAOnly?.shotCount, 5)
        XCTAssertEqual(sevenIron.averagesAOnly?.means[.ballSpeed] ?? 0, (102.0 + 103.6 + 101.3 + 103.6 + 101.1) / 5, accuracy: 1e-9)
        XCTAssertEqual(sevenIron.averagesAll.means[.ballSpeed] ?? 0, (102.0 + 103.6 + 101.3 + 103.6 + 84.3 + 101.1) / 6, accuracy: 1e-9)
        // 5i had no explicit template: the bundled default graded it.
        let fiveIron = try XCTUnwrap(result.clubs.first { $0.analysis.club == "5i" })
        XCTAssertEqual(fiveIron.templateName, "Clubhouse default 5i")
        XCTAssertEqual(fiveIron.analysis.shotCount, 9)
        // Shots are kept with their rows verbatim and their grades.
        let shots = try store.shots(sessionID: result.session.id)
        XCTAssertEqual(shots.count, 15)
        XCTAssertEqual(shots.filter { $0.club == "7i" }.map(\.grade), [.a, .a, .a, .a, .c, .a])
        XCTAssertTrue(shots[0].rawJSON.contains(#""5660""#))
        XCTAssertEqual(result.session.sourceColumns.count, 18)
        XCTAssertEqual(result.footerRows, 2)
    }

    func testRealExportImportsFiftyNineShots() throws {
        let bytes = try SharedData.bytes(SharedData.practice("sessions/fixture_mlm2pro_shotexport_anonymized.csv"))
        let result = try importer.run(ImportRequest(csv: bytes, sourceName: "real.csv", location: "Range"))
        XCTAssertEqual(result.session.shotCount, 59)
        XCTAssertEqual(result.session.sessionDate, "2026-01-27T16:30")
        XCTAssertEqual(result.session.title, "Anonymized Session")
        XCTAssertEqual(result.session.location, "Range")
        // The hash of the canonical content: this export has no final line feed, so it differs from the bytes' hash.
        XCTAssertEqual(result.session.contentHash, SHA256.hash(SessionImporter.canonicalContent(bytes)).hex)
        XCTAssertNotEqual(result.session.contentHash, SHA256.hash(bytes).hex)
        XCTAssertEqual(result.clubs.map(\.analysis.validity), [.valid])
        let a = result.clubs[0].analysis
        XCTAssertEqual((a.aCount ?? 0) + (a.bCount ?? 0) + (a.cCount ?? 0), 59)
        XCTAssertEqual(try store.shots(sessionID: result.session.id).count, 59)
    }

    func testReimportOfTheSameContentIsRefusedAndWritesNothing() throws {
        let first = try importer.run(ImportRequest(csv: sample(), sourceName: "sample.csv"))
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: sample(), sourceName: "copy-of-sample.csv"))) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .conflict)
            XCTAssertEqual("\(error)", "copy-of-sample.csv: already imported as session \(first.session.id) "
                + "(\(first.session.importedAt), content hash \(first.session.contentHash.prefix(12))…); "
                + "importing it again would duplicate its shots, so nothing was written; see it with `practice session \(first.session.id)`, "
                + "or delete it (`practice session delete \(first.session.id)`) to import the file anew")
        }
        XCTAssertEqual(try store.sessions().count, 1)
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil).count, 2)
        // The store refuses it too, should a caller skip the check.
        let batch = SessionBatch(contentHash: first.session.contentHash, sourceName: "x", importedAt: "t", sessionDate: nil,
                                 location: nil, title: nil, subsessions: [], shots: [])
        XCTAssertThrowsError(try store.insertSession(batch, progress: nil)) { error in
            XCTAssertEqual(error as? PracticeStoreError, .duplicateSession(contentHash: first.session.contentHash, existingID: 1))
        }
    }

    /// Ctrl-C before the shots are written: a one-line "cancelled" error and nothing stored; the same
    /// file imports afterwards.
    func testCancelledImportWritesNothing() throws {
        let csv = try sample()  // skips (saying why) when the shared data is absent
        var asked = 0
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "sample.csv"),
                                              cancelled: { asked += 1; return asked >= 2 })) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .cancelled)
            XCTAssertEqual("\(error)", "sample.csv: import stopped before its shots were written; nothing was written "
                + "— run it again to import the file")
        }
        XCTAssertEqual(asked, 2)
        XCTAssertEqual(try store.sessions().count, 0)
        XCTAssertEqual(try store.subsessions(sessionID: nil, club: nil).count, 0)
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "sample.csv"), cancelled: { true }))
        XCTAssertEqual(try store.sessions().count, 0)
        XCTAssertEqual(try importer.run(ImportRequest(csv: csv, sourceName: "sample.csv")).session.id, 1)
    }

    func testExplicitTemplateMustMatchAClubInTheFile() throws {
        let sixIron = TemplateArgument.file(name: "6i.json", bytes: Array(#"{"schema_version":"1.0","club":"6i","aggregation_method":"worst_metric","metrics":{"carry":{"a_min":150}}}"#.utf8))
        let csv = try sample()  // skips (outside the assertion) when the shared data is absent
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "sample.csv", templates: [sixIron]))) { error in
            XCTAssertTrue("\(error)".hasSuffix("grades 6i, but sample.csv has no 6i shots (clubs: 7i, 5i)"), "\(error)")
            XCTAssertEqual((error as? PracticeError)?.kind, .usage)
        }
        XCTAssertEqual(try store.sessions().count, 0)
    }

    func testTwoTemplatesForOneClubAreRefused() throws {
        let csv = try sample()
        let templates = [try fixture("fixture_a"), try fixture("fixture_b")]
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "s.csv", templates: templates))) { error in
            XCTAssertEqual("\(error)", "two templates for 7i (96bf2f0d9540 and b23b186c3af4); give one template per club")
        }
    }

    func testTemplateByHashPrefixAndUnknownReference() throws {
        _ = try library.add(try SharedData.bytes(SharedData.practice("templates/fixture_b.json")), sourceName: "b.json")
        let result = try importer.run(ImportRequest(csv: sample(), sourceName: "s.csv", templates: [.reference("b23b186c")]))
        XCTAssertEqual(result.clubs[0].analysis.templateHash?.prefix(8), "b23b186c")
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv([("7i", 5)], seed: 3), sourceName: "t.csv",
                                                            templates: [.reference("ffff0000")]))) { error in
            XCTAssertEqual("\(error)", "no template matches 'ffff0000'; give a hash (or its first digits) or a name from `practice template list --all`")
        }
    }

    func testDateOptionOverridesTheTitleAndIsChecked() throws {
        let result = try importer.run(ImportRequest(csv: sample(), sourceName: "s.csv", date: "2026-02-03 07:15"))
        XCTAssertEqual(result.session.sessionDate, "2026-02-03T07:15")
        for bad in ["03/02/2026", "2026-13-01", "2026-02-03T25:00", "yesterday"] {
            XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv([("7i", 5)], seed: 4), sourceName: "t.csv", date: bad))) { error in
                XCTAssertEqual("\(error)", "date '\(bad)' is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM")
            }
        }
    }

    func testClubWithoutAnyTemplateIsStoredUngraded() throws {
        let result = try importer.run(ImportRequest(csv: csv([("7i", 6), ("LW", 3)], seed: 5), sourceName: "lw.csv"))
        let lw = try XCTUnwrap(result.clubs.first { $0.analysis.club == "lw" }?.analysis)
        XCTAssertNil(lw.templateHash)
        XCTAssertNil(lw.aCount)
        XCTAssertNil(lw.aPercent)
        XCTAssertEqual(lw.validity, .invalid, "3 shots: stored, flagged invalid, never dropped")
        XCTAssertTrue(result.text.contains("none (not graded)"))
    }

    func testValidityBoundariesAndNullAPercent() {
        XCTAssertEqual([4, 5, 14, 15].map { Validity(shotCount: $0) }, [.invalid, .validLowSample, .validLowSample, .valid])
        var shots: [ShotMeasurements] = []
        for _ in 0..<4 { shots.append(ShotMeasurements([.ballSpeed: 120])) }
        let template = try? KPITemplate.parse(#"{"schema_version":"1.0","club":"7i","aggregation_method":"worst_metric","metrics":{"ball_speed":{"a_min":100}}}"#, sourceName: "t")
        let (four, _) = SubsessionAnalysis.analyze(club: "7i", shots: shots, template: template)
        XCTAssertEqual(four.aCount, 4)
        XCTAssertNil(four.aPercent, "invalid sub-sessions have no A%")
        let (five, _) = SubsessionAnalysis.analyze(club: "7i", shots: shots + [ShotMeasurements([.ballSpeed: 90])], template: template)
        XCTAssertEqual(five.aPercent, 80)
    }

    func testProgressGoesThroughReadingAndWriting() throws {
        var phases: [ImportProgress.Phase] = []
        _ = try importer.run(ImportRequest(csv: csv([("7i", 6000), ("5i", 4000)], seed: 6), sourceName: "big.csv")) { p in
            if phases.last != p.phase { phases.append(p.phase) }
            XCTAssertLessThanOrEqual(p.done, p.total)
        }
        XCTAssertEqual(phases, [.reading, .writing])
    }

    func testAFailedWriteLeavesNothingBehind() throws {
        let failing = FailingStore()
        let importer = SessionImporter(library: TemplateLibrary(store: failing, now: { "t" }))
        let csv = try sample()
        XCTAssertThrowsError(try importer.run(ImportRequest(csv: csv, sourceName: "s.csv"))) { error in
            XCTAssertEqual("\(error)", "storage failed: disk full")
            XCTAssertEqual((error as? PracticeError)?.kind, .storage)
        }
        XCTAssertEqual(try failing.sessions().count, 0)
    }

    func testGeneratedHundredShotFileRoundTrips() throws {
        let bytes = csv([("Dr", 20), ("7i", 60), ("PW", 20)], seed: 9)
        let result = try importer.run(ImportRequest(csv: bytes, sourceName: "gen.csv"))
        XCTAssertEqual(result.session.shotCount, 100)
        XCTAssertEqual(result.clubs.map(\.analysis.club), ["dr", "7i", "pw"])
        XCTAssertEqual(result.footerRows, 6)
    }
}

/// A store whose session write fails, as a full disk would.
final class FailingStore: PracticeStore {
    let inner = InMemoryPracticeStore()
    func insertTemplate(_ template: StoredTemplate) throws { try inner.insertTemplate(template) }
    func template(hash: String) throws -> StoredTemplate? { try inner.template(hash: hash) }
    func templates() throws -> [StoredTemplate] { try inner.templates() }
    func setTemplatePreferences(hash: String, displayName: String?, hidden: Bool) throws {
        try inner.setTemplatePreferences(hash: hash, displayName: displayName, hidden: hidden)
    }
    func activeTemplates() throws -> [String: String] { try inner.activeTemplates() }
    /// When set, activating a template fails (after the template itself was written).
    var failActivation = false
    func setActiveTemplate(club: String, hash: String) throws {
        if failActivation { throw DiskFull() }
        try inner.setActiveTemplate(club: club, hash: hash)
    }
    func transaction<T>(_ body: () throws -> T) throws -> T { try inner.transaction(body) }
    func session(contentHash: String) throws -> StoredSession? { try inner.session(contentHash: contentHash) }
    func session(id: Int64) throws -> StoredSession? { try inner.session(id: id) }
    func sessions() throws -> [StoredSession] { try inner.sessions() }
    func insertSession(_ batch: SessionBatch, progress: ((Int, Int) -> Void)?) throws -> StoredSession {
        throw DiskFull()
    }
    func subsessions(sessionID: Int64?, club: String?) throws -> [StoredSubsession] { try inner.subsessions(sessionID: sessionID, club: club) }
    func shots(sessionID: Int64) throws -> [StoredShot] { try inner.shots(sessionID: sessionID) }
    func appendAnalyses(_ analyses: [AppendedAnalysis]) throws { throw DiskFull() }
    func deleteSession(id: Int64, deletedAt: String, reason: String?) throws { throw DiskFull() }
    /// Live shots after this many fail.
    var liveShotsBeforeFailure = Int.max
    private var liveShotCount = 0
    func beginLiveSession(device: String, startedAt: String) throws -> Int64 { try inner.beginLiveSession(device: device, startedAt: startedAt) }
    func insertLiveShot(_ shot: LiveShotRow) throws {
        guard liveShotCount < liveShotsBeforeFailure else { throw DiskFull() }
        liveShotCount += 1
        try inner.insertLiveShot(shot)
    }
    func liveShots(liveSessionID: Int64) throws -> [LiveShotRow] { try inner.liveShots(liveSessionID: liveSessionID) }
    func openLiveSessions() throws -> [LiveSessionRow] { try inner.openLiveSessions() }
    func closeLiveSession(_ id: Int64, batch: SessionBatch?, closedAt: String, reason: String) throws -> StoredSession? {
        try inner.closeLiveSession(id, batch: batch, closedAt: closedAt, reason: reason)
    }

    struct DiskFull: Error, CustomStringConvertible { var description: String { "disk full" } }
}

final class TemplateLibraryTests: StoreTestCase {
    func bytes(_ name: String) throws -> [UInt8] { try SharedData.bytes(SharedData.practice("templates/\(name).json")) }

    func testBundledDefaultsAreThereOnFirstUse() throws {
        let list = try library.list()
        XCTAssertEqual(list.templates.count, 10)
        XCTAssertTrue(list.templates.allSatisfy { $0.source == .bundled && $0.active })
        XCTAssertEqual(try library.activeTemplate(for: "7i")?.name, "Clubhouse default 7i")
    }

    func testFirstUserTemplateForAClubBecomesActiveAndAddingIsInsertOnce() throws {
        let added = try library.add(bytes("fixture_a"), sourceName: "a.json")
        XCTAssertFalse(added.alreadyStored)
        XCTAssertTrue(added.activated)
        XCTAssertEqual(added.template.hash, "96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698")
        XCTAssertEqual(try library.activeTemplate(for: "7i")?.hash, added.template.hash)
        let second = try library.add(bytes("fixture_b"), sourceName: "b.json")
        XCTAssertFalse(second.activated, "the first template added for 7i stays active")
        let again = try library.add(bytes("fixture_a"), sourceName: "a-copy.json")
        XCTAssertTrue(again.alreadyStored)
        XCTAssertEqual(again.text, "template 96bf2f0d9540211669916f580aaec0ac26d1a14e8d2fdd35cee2172595f86698 is already in the library (7i); nothing added\n")
        XCTAssertEqual(try store.templates().filter { $0.source == .user }.count, 2)
        // The bundled 7i template is still there, no longer active.
        XCTAssertEqual(try library.list(club: "7I").templates.filter { $0.active }.map(\.hash), [added.template.hash])
    }

    /// All or nothing: when activating a club's first template fails, the template is not kept either.
    func testAFailedActivationLeavesNoTemplateBehind() throws {
        let fixture = try bytes("fixture_a")   // skips, saying why, without ../shared
        let failing = FailingStore()
        let library = TemplateLibrary(store: failing, now: { "2026-01-01T00:00:00Z" })
        _ = try library.list()
        failing.failActivation = true
        XCTAssertThrowsError(try library.add(fixture, sourceName: "a.json")) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .storage, "\(error)")
        }
        XCTAssertEqual(try failing.templates().filter { $0.source == .user }.count, 0)
        failing.failActivation = false
        XCTAssertTrue(try library.add(fixture, sourceName: "a.json").activated)
    }

    func testActivateHideRename() throws {
        let a = try library.add(bytes("fixture_a"), sourceName: "a.json").template
        let b = try library.add(bytes("fixture_b"), sourceName: "b.json").template
        XCTAssertTrue(try library.activate("b23b").active)
        XCTAssertEqual(try library.activeTemplate(for: "7i")?.hash, b.hash)
        XCTAssertThrowsError(try library.hide(b.hash)) { error in
            XCTAssertEqual("\(error)", "template b23b186c3af4 is the active template for 7i; activate another one first")
        }
        XCTAssertTrue(try library.hide(a.hash).hidden)
        XCTAssertFalse(try library.list().templates.contains { $0.hash == a.hash })
        XCTAssertTrue(try library.list(includeHidden: true).templates.contains { $0.hash == a.hash })
        XCTAssertThrowsError(try library.activate(a.hash)) { error in
            XCTAssertEqual("\(error)", "template 96bf2f0d9540 is hidden; unhide it (template hide 96bf2f0d9540 unhide) before activating it")
        }
        XCTAssertFalse(try library.hide(a.hash, hidden: false).hidden)
        let renamed = try library.rename("96bf", to: "  Speed only  ")
        XCTAssertEqual(renamed.displayName, "Speed only")
        XCTAssertEqual(renamed.hash, a.hash, "renaming never touches content or hash")
        XCTAssertEqual(try library.resolve("Speed only").hash, a.hash)
        XCTAssertNil(try library.rename(a.hash, to: "").displayName)
        XCTAssertThrowsError(try library.rename(a.hash, to: String(repeating: "x", count: 81))) { error in
            XCTAssertEqual("\(error)", "a template name has at most 80 characters; this one has 81")
        }
    }

    /// A name refers to one template: rename and duplicate --name refuse a name another template
    /// (hidden ones too) already has, naming it; the template's own name is free to keep.
    func testRenameAndDuplicateRefuseANameAnotherTemplateHas() throws {
        let a = try library.add(bytes("fixture_a"), sourceName: "a.json").template
        let b = try library.add(bytes("fixture_b"), sourceName: "b.json").template
        _ = try library.rename(a.hash, to: "Range 7i")
        XCTAssertEqual(try library.rename(a.hash, to: " Range 7i ").displayName, "Range 7i", "its own name again")
        _ = try library.activate(b.hash)
        _ = try library.hide(a.hash)
        let taken = "template 96bf2f0d9540 (7i, hidden) is already named 'Range 7i'; choose another name, or rename that one first "
            + "(practice template rename 96bf2f0d9540 NEW-NAME)"
        XCTAssertThrowsError(try library.rename(b.hash, to: "Range 7i")) { error in
            XCTAssertEqual("\(error)", taken)
            XCTAssertEqual((error as? PracticeError)?.kind, .conflict)
        }
        XCTAssertThrowsError(try library.duplicate(b.hash, club: "6i", name: "Range 7i")) { error in
            XCTAssertEqual("\(error)", taken)
        }
        // The bundled defaults' own names are taken too.
        let bundled = try library.resolve("Clubhouse default 7i").hash.prefix(12)
        XCTAssertThrowsError(try library.rename(b.hash, to: "Clubhouse default 7i")) { error in
            XCTAssertEqual("\(error)", "template \(bundled) (7i) is already named 'Clubhouse default 7i'; choose another name, "
                + "or rename that one first (practice template rename \(bundled) NEW-NAME)")
        }
        XCTAssertEqual(try library.resolve("Range 7i").hash, a.hash)
        XCTAssertEqual(try library.list(includeHidden: true).templates.filter { $0.displayName == "Range 7i" }.count, 1, "nothing renamed or added")
        XCTAssertEqual(try library.duplicate(b.hash, club: "6i", name: "Range 6i").template.displayName, "Range 6i")
    }

    /// Every `--club` names a known club by the import rule; anything else is refused, never stored
    /// under a made-up key ("not a club" → "notaclub").
    func testAnUnknownClubIsRefusedByEveryClubOption() throws {
        let a = try library.add(bytes("fixture_a"), sourceName: "a.json").template
        let before = try library.list(includeHidden: true).templates.count
        let refusal = "club 'not a club' is not a known club; a club is a driver (dr), a wood (3w), a hybrid (4h), an iron (7i), "
            + "a wedge (pw, gw, sw, lw, or a loft of 40–70° such as 56deg) or the putter; the spellings `practice import --help` lists are accepted"
        XCTAssertThrowsError(try library.duplicate(a.hash, club: "not a club")) { error in
            XCTAssertEqual("\(error)", refusal)
            XCTAssertEqual((error as? PracticeError)?.kind, .usage)
            // The core names the field; a front end names it its way (the command line's adapter: a flag).
            XCTAssertEqual((error as? PracticeError)?.text.leadingField, "club")
            XCTAssertEqual((error as? PracticeError)?.message(naming: { "--" + $0 }), "--" + refusal)
        }
        XCTAssertEqual(try library.list(includeHidden: true).templates.count, before, "nothing added")
        XCTAssertThrowsError(try library.list(club: "not a club")) { XCTAssertEqual("\($0)", refusal) }
        XCTAssertThrowsError(try TrendQuery(store: store).run(TrendRequest(club: "not a club"))) { XCTAssertEqual("\($0)", refusal) }
        XCTAssertThrowsError(try DispersionQuery(store: store).club("not a club")) { XCTAssertEqual("\($0)", refusal) }
        XCTAssertThrowsError(try library.duplicate(a.hash, club: "7 Irön")) {
            XCTAssertTrue("\($0)".hasPrefix("club '7 Irön' is not a known club; "), "\($0)")
        }
        // The spellings the import accepts name the same club.
        let six = try library.duplicate(a.hash, club: "6-Iron").template
        XCTAssertEqual(six.club, "6i")
        let listed = try library.list(club: "6 iron").templates
        XCTAssertEqual(Set(listed.map(\.club)), ["6i"])
        XCTAssertTrue(listed.contains { $0.hash == six.hash })
        XCTAssertEqual(try ClubName.option("56°"), "56deg")
    }

    func testDuplicateMakesANewTemplateWithChanges() throws {
        let a = try library.add(bytes("fixture_a"), sourceName: "a.json").template
        let copy = try library.duplicate(a.hash, club: "6i", changes: ["ball_speed.a_min=98", "ball_speed.b_min=88"])
        XCTAssertEqual(copy.template.club, "6i")
        XCTAssertTrue(copy.activated, "first user template for 6i")
        XCTAssertEqual(copy.template.thresholds.first?.a, 98)
        XCTAssertNotEqual(copy.template.hash, a.hash)
        XCTAssertThrowsError(try library.duplicate(a.hash)) { error in
            XCTAssertEqual("\(error)", "the duplicate would be identical to 96bf2f0d9540; change the club, the name or a threshold (set metric.key=value)")
        }
        XCTAssertThrowsError(try library.duplicate(a.hash, changes: ["ball_speed=3"])) { error in
            XCTAssertEqual("\(error)", "set ball_speed=3 is not metric.key=number (e.g. ball_speed.a_min=105)")
        }
        XCTAssertThrowsError(try library.duplicate(a.hash, changes: ["launch_angle.a_min=3"])) { error in
            XCTAssertTrue("\(error)".contains("unknown metric \"launch_angle\""), "\(error)")
        }
    }

    func testReferencesThatMatchNothingOrSeveral() throws {
        _ = try library.list()
        XCTAssertThrowsError(try library.show("zz")) { error in
            XCTAssertEqual((error as? PracticeError)?.kind, .notFound)
        }
        let a = try library.add(bytes("fixture_a"), sourceName: "a.json").template
        let b = try library.add(bytes("fixture_b"), sourceName: "b.json").template
        _ = try library.rename(a.hash, to: "Same")
        // `rename` refuses a taken name (below); a database written before it could hold two.
        try store.setTemplatePreferences(hash: b.hash, displayName: "Same", hidden: false)
        XCTAssertThrowsError(try library.resolve("Same")) { error in
            XCTAssertEqual("\(error)", "'Same' matches 2 templates (96bf2f0d9540, b23b186c3af4); give more digits of the hash")
            XCTAssertEqual((error as? PracticeError)?.kind, .conflict)
        }
        XCTAssertEqual(try library.show("Clubhouse default 7i").template.club, "7i")
        XCTAssertTrue(try library.show("Clubhouse default 7i").text.contains("ball_speed: A ≥ 106 mph, B ≥ 101 mph, else C"))
    }
}
