// `putting book --async` through the built `clubhouse` binary on a real Presidio green: the host runs
// the book job in the background and `putting job ID` shows the book; a book (foreground or job)
// stopped midway keeps the batches it stored and, run again, solves only the rest and ends with the
// same book as one run; bad input is refused with a clear message.

import ClubhouseJSON
import Foundation
import XCTest

final class PuttingEndToEndBookJobTests: XCTestCase {
    private let book = ["putting", "book", "--course", "presidio", "--hole", "2", "--flag", "7.22,-9.19", "--spacing", "5"]

    private func importPresidio(_ c: Clubhouse) throws {
        let dir = try Clubhouse.requireSharedData("putting/presidio")
        try c.succeed(["putting", "course", "import", dir.path, "--id", "presidio"])
    }

    /// The host starts a job's background run in a detached child whose output goes to the site's
    /// background.log; a folder in its place makes that start fail, so no background run races a test
    /// that runs the job itself.
    private func preventBackgroundRuns(_ c: Clubhouse) throws {
        try FileManager.default.createDirectory(atPath: c.dataDirectory.appendingPathComponent("default/background.log").path,
                                                withIntermediateDirectories: true)
    }

    private func submit(_ c: Clubhouse) throws -> String {
        let submitted = try c.succeed(book + ["--async", "--json"]).json()
        XCTAssertEqual(submitted["job"]?["existing"], .bool(false), "\(submitted)")
        XCTAssertEqual(submitted["job"]?["state"], "queued")
        return try XCTUnwrap(submitted["job"]?["id"]?.stringValue)
    }

    func testABookJobRunsInTheBackgroundAndAStoppedOneGoesOnWhereItStopped() throws {
        // 1. The host runs the job in the background; `job ID` shows the book once it is done.
        let one = try Clubhouse()
        try importPresidio(one)
        let id = try submit(one)
        var status = JSONValue.null
        let deadline = Date().addingTimeInterval(300)
        repeat {
            status = try one.succeed(["putting", "job", id, "--json"]).json()
            if status["job"]?["state"] == "completed" || status["job"]?["state"] == "failed" { break }
            Thread.sleep(forTimeInterval: 0.5)
        } while Date() < deadline
        XCTAssertEqual(status["job"]?["state"], "completed", "\(status)")
        XCTAssertEqual(status["job"]?["kind"], "book")
        XCTAssertEqual(status["job"]?["request"]?["spacingFt"]?.doubleValue, 5)
        let done = try XCTUnwrap(status["book"])
        let n = try XCTUnwrap(done["positions"]?.intValue)
        XCTAssertGreaterThan(n, 32, "enough positions for three batches on two cores")
        XCTAssertEqual(done["cached"]?.intValue, 0)
        XCTAssertEqual(done["computed"]?.intValue, n)
        let entries = try XCTUnwrap(done["entries"]?.arrayValue)
        XCTAssertEqual(entries.count, n)
        let text = try one.succeed(["putting", "job", id]).stdout
        XCTAssertTrue(text.hasPrefix("Job \(id): completed\nGreen book for presidio hole 2, flag (7.22, -9.19), stimp 10: \(n) positions 5 ft apart"),
                      text)
        // The foreground book of the same pin takes every position the job stored.
        let again = try one.succeed(book + ["--json"]).json()
        XCTAssertEqual(again["book"]?["cached"]?.intValue, n)
        XCTAssertEqual(again["book"]?["entries"]?.arrayValue, entries)
        // So does --async now: every position is cached, so it answers the book at once and makes no job.
        let cachedAsync = try one.succeed(book + ["--async", "--json"]).json()
        XCTAssertNil(cachedAsync["job"], "\(cachedAsync)")
        XCTAssertEqual(cachedAsync["book"]?["cached"]?.intValue, n)
        XCTAssertEqual(cachedAsync["book"]?["entries"]?.arrayValue, entries)
        let cachedText = try one.succeed(book + ["--async"]).stdout
        XCTAssertTrue(cachedText.hasPrefix("Green book for presidio hole 2, flag (7.22, -9.19), stimp 10: \(n) positions 5 ft apart"), cachedText)

        // 2. Another site, no background run. A foreground book stopped after its first batch keeps that batch.
        let two = try Clubhouse()
        try importPresidio(two)
        try preventBackgroundRuns(two)
        two.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = "2"
        let cancelled = try two.run(book, timeout: 600)
        XCTAssertEqual(cancelled.exitCode, 130, cancelled.stderr)
        XCTAssertTrue(cancelled.stderr.contains(" positions: those are cached, run the same book again to go on"), cancelled.stderr)
        let firstBatch = cancelled.stderr.components(separatedBy: "stopped as asked after ").last?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        XCTAssertTrue(firstBatch > 0 && firstBatch < n, cancelled.stderr)
        // The job then reads that batch back, stores one more and is stopped.
        two.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = nil
        let stoppedID = try submit(two)
        XCTAssertEqual(try two.succeed(["putting", "job", stoppedID, "--json"]).json()["job"]?["state"], "queued")
        two.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = "2"
        let stopped = try two.run(["putting", "job", "run", stoppedID], timeout: 600)
        two.environment["CLUBHOUSE_TEST_CANCEL_AT_PROGRESS"] = nil
        XCTAssertEqual(stopped.exitCode, 130, stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("job \(stoppedID) stopped as asked after "), stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains(" of \(n) positions: those are kept and the job is queued again; `putting job run \(stoppedID)` goes on where it stopped"),
                      stopped.stderr)
        let queued = try two.succeed(["putting", "job", stoppedID, "--json"]).json()
        XCTAssertEqual(queued["job"]?["state"], "queued")
        XCTAssertEqual(queued["job"]?["attempts"]?.intValue, 1)
        let progress = try XCTUnwrap(queued["job"]?["progress"]?.doubleValue)
        XCTAssertTrue(progress > Double(firstBatch) / Double(n) && progress < 1, "the stored batches count: \(progress)")
        XCTAssertNil(queued["book"])
        let queuedText = try two.succeed(["putting", "job", stoppedID]).stdout
        XCTAssertTrue(queuedText.hasPrefix("Job \(stoppedID): queued again, ") && queuedText.contains("% done before it stopped: `putting job run \(stoppedID)` goes on"),
                      queuedText)
        // Run again: only the positions not stored yet are solved; the book is the one-go book.
        let resumedRun = try two.run(["putting", "job", "run", stoppedID, "--json"], timeout: 600)
        XCTAssertEqual(resumedRun.exitCode, 0, resumedRun.stderr)
        let resumed = try resumedRun.json()
        XCTAssertEqual(resumed["job"]?["state"], "completed")
        XCTAssertEqual(resumed["job"]?["attempts"]?.intValue, 2)
        let kept = try XCTUnwrap(resumed["book"]?["cached"]?.intValue)
        XCTAssertEqual(Double(kept) / Double(n), progress, accuracy: 1e-9, "the stopped run's stored positions are read back")
        XCTAssertEqual(resumed["book"]?["computed"]?.intValue, n - kept)
        XCTAssertEqual(resumed["book"]?["entries"]?.arrayValue, entries)
        XCTAssertEqual(try two.succeed(["putting", "job", stoppedID, "--json"]).json()["book"]?["entries"]?.arrayValue, entries)
        // A finished job is not run again.
        let rerun = try two.succeed(["putting", "job", "run", stoppedID, "--json"]).json()
        XCTAssertEqual(rerun["job"]?["attempts"]?.intValue, 2)
    }

    func testBookJobErrorsSayWhatToDo() throws {
        let c = try Clubhouse()
        try importPresidio(c)
        try preventBackgroundRuns(c)
        try c.fail(["putting", "job", "j0000"], exitCode: 2,
                   contains: ["unknown job \"j0000\": job ids are printed by `putting bestline --async` and `putting book --async`"])
        try c.fail(["putting", "job", "run", "j0000"], exitCode: 2,
                   contains: ["unknown job \"j0000\": job ids are printed by `putting bestline --async` and `putting book --async`"])
        let svg = c.path("job.svg")
        try c.fail(book + ["--async", "--svg", svg, "--csv", c.path("job.csv")], exitCode: 2,
                   contains: ["--async cannot write --svg, --csv: once the job is done, run the same book without --async to write them (every position comes from the cache)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: svg))
        let args = ["putting", "book", "--course", "presidio", "--hole", "2", "--async"]
        try c.fail(args + ["--flag", "7.22,-9.19", "--spacing", "0"], exitCode: 2,
                   contains: ["grid spacing 0 is out of range: it must be above 0 ft (3 ft is usual)"])
        try c.fail(args + ["--flag", "0,90"], exitCode: 2, contains: ["flag (0, 90) is outside the green of presidio hole 2"])
        try c.fail(["putting", "book", "--course", "nope", "--hole", "2", "--flag", "1,1", "--async"], exitCode: 2,
                   contains: ["unknown course \"nope\""])
        // None of them made a job: the next submission is the first.
        let first = try c.succeed(book + ["--async", "--json"]).json()
        XCTAssertEqual(first["job"]?["existing"], .bool(false))
        let again = try c.succeed(book + ["--async", "--json"]).json()
        XCTAssertEqual(again["job"]?["existing"], .bool(true), "the same book while queued is the same job")
        XCTAssertEqual(again["job"]?["id"], first["job"]?["id"])
        let text = try c.succeed(book + ["--async"]).stdout
        XCTAssertTrue(text.hasPrefix("The same book is already queued as job "), text)
    }
}
