import ClubhouseJSON
import Foundation
import XCTest
@testable import PuttingCore

final class GreenBookTests: XCTestCase {
    private func makeService(store: InMemoryPuttingStore = InMemoryPuttingStore()) throws -> PuttingService {
        let service = PuttingService(store: store, clock: { 1_700_000_000 }, makeJobID: { "job" })
        // 30×20 ft, rising 2 % to the north.
        let plane = try GreenGenerator.plane(widthFt: 30, depthFt: 20, slopeX: 0, slopeZ: 0.02)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 30, greenHeightFt: 20, heightfield: plane),
        ])
        return service
    }

    private let flag = PointFt(x: 2, z: 1)

    func testEveryGridPositionGetsTheBestLineItsOwnSolveWouldGive() throws {
        let service = try makeService()
        let request = BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 6)
        var fractions: [Double] = []
        let book = try service.book(request, progress: { fractions.append($0) }, threads: 2)
        // Grid aligned on the flag, on the green, 2 ft or more from the hole.
        XCTAssertGreaterThan(book.entries.count, 10)
        for e in book.entries {
            XCTAssertEqual(((e.ball.x - flag.x) / 6).rounded() * 6, e.ball.x - flag.x, accuracy: 1e-9)
            XCTAssertEqual(((e.ball.z - flag.z) / 6).rounded() * 6, e.ball.z - flag.z, accuracy: 1e-9)
            XCTAssertGreaterThanOrEqual(e.distanceFt, BookRequest.minDistanceFt)
            XCTAssertTrue(e.holed && e.holeable && e.converged, "a plane holes from everywhere: \(e)")
            XCTAssertGreaterThan(e.makeProbability, 0)
            XCTAssertLessThanOrEqual(e.makeProbability, 1)
        }
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions, fractions.sorted())
        // Every position against the best line solved alone (same solver settings, no windows), started from the
        // same neighbour as in the book: the same numbers; and against a search from scratch: the same line.
        let hf = try service.hole(course: "gen", number: 1).requireHeightfield()
        var solver = PhysicsSolver(simulator: PhysicsSimulator(surface: GreenSurface(hf), parameters: PhysicsParameters(stimpFt: 10)))
        solver.computeTolerance = false
        solver.strokeErrors = .tour
        let parents = BookRequest.warmParents(book.entries.map(\.ball), flag: flag, spacingFt: 6)
        for (k, e) in book.entries.enumerated() {
            let warm = parents[k].map { p in
                PhysicsWarmStart(ball: book.entries[p].ball, aimDeg: book.entries[p].aimOffsetDeg, speedFps: book.entries[p].speedFps)
            }
            let alone = solver.bestLine(ball: e.ball, hole: flag, warmStart: warm)
            XCTAssertEqual(e.aimOffsetDeg, alone.aimOffsetDeg)
            XCTAssertEqual(e.speedFps, alone.speedFps)
            XCTAssertEqual(e.makeProbability, alone.probability?.probability)
            if warm != nil { XCTAssertEqual(alone.stage, "warm", "\(e.ball)") }
            let cold = solver.bestLine(ball: e.ball, hole: flag)
            XCTAssertEqual(e.aimOffsetDeg, cold.aimOffsetDeg, accuracy: 0.01, "\(e.ball)")
            XCTAssertEqual(e.speedFps, cold.speedFps, accuracy: 0.002, "\(e.ball)")
            XCTAssertEqual(e.makeProbability, cold.probability?.probability ?? -1, accuracy: 0.005, "\(e.ball)")
        }
        // Uphill plays longer than it is, downhill shorter.
        let uphill = try XCTUnwrap(book.entries.first { $0.ball.z < flag.z - 3 && abs($0.ball.x - flag.x) < 1e-9 })
        let downhill = try XCTUnwrap(book.entries.first { $0.ball.z > flag.z + 3 && abs($0.ball.x - flag.x) < 1e-9 })
        XCTAssertGreaterThan(uphill.playsLikeFt, uphill.distanceFt)
        XCTAssertLessThan(downhill.playsLikeFt, downhill.distanceFt)
    }

    func testAStoppedBookGoesOnFromTheCacheAndGivesTheSameAnswer() throws {
        let store = InMemoryPuttingStore()
        let service = try makeService(store: store)
        let request = BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 5)
        var asked = 0
        // Stop before the second batch (batches are 8 per worker; one worker here).
        let message = errorMessage { try service.book(request, isCancelled: { asked += 1; return asked > 1 }, threads: 1) }
        XCTAssertTrue(message.hasPrefix("stopped as asked after 8 of "), message)
        XCTAssertTrue(message.hasSuffix(" positions: those are cached, run the same book again to go on"), message)
        let resumed = try service.book(request, threads: 1)
        XCTAssertEqual(resumed.cachedCount, 8)
        let again = try service.book(request, threads: 2)
        XCTAssertEqual(again.cachedCount, again.entries.count)
        XCTAssertEqual(again.entries, resumed.entries)
        // A fresh store, all solved now on two workers: the same numbers.
        let fresh = try makeService().book(request, threads: 2)
        XCTAssertEqual(fresh.cachedCount, 0)
        XCTAssertEqual(fresh.entries, resumed.entries)
    }

    func testJSONCSVAndTheSheet() throws {
        let service = try makeService()
        let book = try service.book(BookRequest(course: "gen", hole: 1, flag: flag, spacingFt: 7))
        let json = book.json["book"]
        XCTAssertEqual(json?["positions"]?.intValue, book.entries.count)
        XCTAssertEqual(json?["entries"]?.arrayValue?.count, book.entries.count)
        XCTAssertEqual(json?["entries"]?.arrayValue?.first.flatMap(BookEntry.init(json:)), book.entries.first)
        let rows = book.csv.split(separator: "\n")
        XCTAssertEqual(rows.first.map(String.init), GreenBook.csvHeader)
        XCTAssertEqual(rows.count, book.entries.count + 1)
        XCTAssertEqual(rows[1].split(separator: ",").count, GreenBook.csvHeader.split(separator: ",").count)
        let svg = try service.bookPicture(book)
        for id in ["contours", "book", "flag", "legend", "ramp"] { XCTAssertTrue(svg.contains("id=\"\(id)\""), id) }
        XCTAssertEqual(svg.components(separatedBy: "<circle cx=").count - 1, book.entries.count + 1, "a dot per position and the cup")
        XCTAssertTrue(svg.contains("10 ft</text>"), "scale bar")
        XCTAssertTrue(book.text.hasPrefix("Green book for gen hole 1, flag (2.00, 1.00), stimp 10: \(book.entries.count) positions 7 ft apart (0 from the cache)"),
                      book.text)
    }

    func testBadBooksNameTheLimit() throws {
        let service = try makeService()
        func message(_ spacing: Double, flag: PointFt? = nil) -> String {
            errorMessage { try service.book(BookRequest(course: "gen", hole: 1, flag: flag ?? self.flag, spacingFt: spacing)) }
        }
        XCTAssertEqual(message(0), "grid spacing 0 is out of range: it must be above 0 ft (3 ft is usual)")
        XCTAssertEqual(message(-3), "grid spacing -3 is out of range: it must be above 0 ft (3 ft is usual)")
        XCTAssertEqual(message(.nan), "grid spacing nan is out of range: it must be above 0 ft (3 ft is usual)")
        // 600 ft² of green: 20,000 positions need a spacing of about 0.18 ft.
        let dense = message(0.1)
        XCTAssertTrue(dense.hasPrefix("grid spacing 0.1 ft gives about "), dense)
        XCTAssertTrue(dense.hasSuffix("positions on this green, more than the limit of 20000: use spacing 0.2 or more"), dense)
        XCTAssertTrue(message(1e-6).hasPrefix("grid spacing 0 ft gives about "), "a tiny spacing is refused before any grid is built")
        XCTAssertTrue(message(3, flag: PointFt(x: 40, z: 0)).hasPrefix("flag (40, 0) is outside the green of gen hole 1"))
        XCTAssertEqual(errorMessage { try service.book(BookRequest(course: "gen", hole: 1, flag: self.flag, stimpFt: 0)) },
                       "stimp 0 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
    }
}
