import ClubhouseJSON
import Foundation
import XCTest
@testable import PuttingCore

/// Green books as jobs and the book's per-position cache (keyed by the green, the flag, the settings
/// and the position), on a generated green with the in-memory store.
final class BookJobTests: XCTestCase {
    private let flag = PointFt(x: 2, z: 1)

    private func makeService(store: InMemoryPuttingStore, slopeZ: Double = 0.02) throws -> PuttingService {
        let service = PuttingService(store: store, clock: { 1_700_000_000 }, makeJobID: { "job" })
        let plane = try GreenGenerator.plane(widthFt: 30, depthFt: 20, slopeX: 0, slopeZ: slopeZ)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 30, greenHeightFt: 20, heightfield: plane),
        ])
        return service
    }

    func testAStoppedBookJobIsQueuedAgainAndGoesOnWhereItStopped() throws {
        let store = InMemoryPuttingStore()
        let service = try makeService(store: store)
        let request = BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 5)
        guard case .submitted("job", .queued, false) = try service.submitBook(request) else { return XCTFail("expected a new job") }
        guard case .submitted("job", .queued, true) = try service.submitBook(request) else { return XCTFail("expected the same job") }
        XCTAssertEqual(try store.job(id: "job")?.work, .book(request))

        // Stopped before its second batch: the first stays stored, the job is queued again with its progress.
        var asked = 0
        let message = errorMessage { try service.runJob(id: "job", isCancelled: { asked += 1; return asked > 1 }) }
        let total = try request.positions(on: GreenSurface(try service.hole(course: "gen", number: 1).requireHeightfield())).count
        let stopped = try XCTUnwrap(store.job(id: "job"))
        XCTAssertEqual(stopped.state, .queued)
        XCTAssertEqual(stopped.attempts, 1)
        let kept = Int((stopped.progress * Double(total)).rounded())
        XCTAssertTrue(kept > 0 && kept < total, "one batch of \(total) positions: \(kept)")
        XCTAssertEqual(message, "job job stopped as asked after \(kept) of \(total) positions: those are kept and the job is queued again; `putting job run job` goes on where it stopped")
        XCTAssertNil(try service.job(id: "job").book)

        let status = try service.runJob(id: "job")
        XCTAssertEqual(status.job.state, .completed)
        XCTAssertEqual(status.job.attempts, 2)
        let book = try XCTUnwrap(status.book)
        XCTAssertEqual(book.cachedCount, kept)
        XCTAssertEqual(status.json["book"]?["computed"]?.intValue, total - kept)
        XCTAssertEqual(status.json["job"]?["kind"], "book")
        // `job ID` shows the stored book; it is the book solved in one go on a fresh store.
        let shown = try service.job(id: "job")
        XCTAssertEqual(shown.book?.entries, book.entries)
        XCTAssertTrue(shown.text.hasPrefix("Job job: completed\nGreen book for gen hole 1, flag (2.00, 1.00), stimp 10: \(total) positions 5 ft apart (\(kept) from the cache)"),
                      shown.text)
        let fresh = try makeService(store: InMemoryPuttingStore()).book(request, threads: 2)
        XCTAssertEqual(fresh.entries, book.entries)
        XCTAssertEqual(try service.runJob(id: "job").job.attempts, 2, "a completed job is not run again")
    }

    func testThePositionCacheFollowsTheGreenTheSettingsAndThePlace() throws {
        let store = InMemoryPuttingStore()
        let service = try makeService(store: store)
        let request = BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 5)
        let first = try service.book(request, threads: 2)
        XCTAssertEqual(first.cachedCount, 0)
        XCTAssertEqual(try service.book(request, threads: 2).cachedCount, first.entries.count, "a second book of the pin is all cached")
        // A coarser grid on the same pin: its places are places of the 5 ft grid.
        var coarse = request
        coarse.spacingFt = 10
        let wide = try service.book(coarse, threads: 2)
        XCTAssertEqual(wide.cachedCount, wide.entries.count)
        // Another stimp, finish, stroke error or flag is another key.
        var faster = request
        faster.stimpFt = 11
        XCTAssertEqual(try service.book(faster, threads: 2).cachedCount, 0)
        var errors = request
        errors.errors.aimSDDeg = 1
        XCTAssertEqual(try service.book(errors, threads: 2).cachedCount, 0)
        XCTAssertNotEqual(request.positionsKey(heightfieldHash: "h"), { var r = request; r.finishPastFt = 1; return r }().positionsKey(heightfieldHash: "h"))
        XCTAssertNotEqual(request.positionsKey(heightfieldHash: "h"), { var r = request; r.flag.x = 2.5; return r }().positionsKey(heightfieldHash: "h"))
        XCTAssertEqual(request.positionsKey(heightfieldHash: "h"), coarse.positionsKey(heightfieldHash: "h"))
        XCTAssertNotEqual(request.contentKey(heightfieldHash: "h"), coarse.contentKey(heightfieldHash: "h"))
        // The green re-imported with another slope: nothing of the old green is used.
        _ = try makeService(store: store, slopeZ: 0.03)
        let regreened = try service.book(request, threads: 2)
        XCTAssertEqual(regreened.cachedCount, 0)
        XCTAssertNotEqual(regreened.entries, first.entries)
    }

    func testBadBookJobsAreRefusedBeforeAnyJobExists() throws {
        let store = InMemoryPuttingStore()
        let service = try makeService(store: store)
        XCTAssertEqual(errorMessage { try service.submitBook(BookRequest(course: "gen", hole: 1, flag: self.flag, spacingFt: 0)) },
                       "grid spacing 0 is out of range: it must be above 0 ft (3 ft is usual)")
        XCTAssertEqual(errorMessage { try service.submitBook(BookRequest(course: "gen", hole: 1, flag: PointFt(x: 0, z: 40))) },
                       "flag (0, 40) is outside the green of gen hole 1: the nearest point on the green is (0, 10), 30.0 ft away, e.g. flag 0,10; `putting render --course gen --hole 1 --svg FILE` draws the green with a grid in feet")
        XCTAssertEqual(errorMessage { try service.submitBook(BookRequest(course: "gen", hole: 1, flag: self.flag, stimpFt: 2)) },
                       "stimp 2 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments); if 2 is metres, that is stimp 6.6 (feet)")
        XCTAssertEqual(errorMessage { try service.submitBook(BookRequest(course: "gen", hole: 9, flag: self.flag)) },
                       "course \"gen\" has no hole 9: list its holes with `putting holes gen`")
        XCTAssertEqual(try store.jobs(states: JobState.allCases), [])
        XCTAssertEqual(errorMessage { try service.runJob(id: "nope") },
                       "unknown job \"nope\": job ids are printed by `putting bestline --async` and `putting book --async`")
    }

    func testABookJobWhoseGreenLostItsHeightfieldFails() throws {
        let store = InMemoryPuttingStore()
        let service = try makeService(store: store)
        _ = try service.submitBook(BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 5))
        // The hole is re-imported as a smaller green before the job runs: the flag is now off it.
        try store.putHole(Hole(courseID: "gen", number: 1, greenWidthFt: 3, greenHeightFt: 3,
                               heightfield: try GreenGenerator.plane(widthFt: 3, depthFt: 3)))
        let status = try service.runJob(id: "job")
        XCTAssertEqual(status.job.state, .failed)
        XCTAssertEqual(status.text, "Job job: failed: flag (2, 1) is outside the green of gen hole 1: the nearest point on the green is (1.5, 1), 0.5 ft away, e.g. flag 1.5,1; `putting render --course gen --hole 1 --svg FILE` draws the green with a grid in feet")
    }
}
