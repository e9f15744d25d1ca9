import ClubhouseJSON
import Foundation
import XCTest
@testable import PuttingCore

final class BestLineServiceTests: XCTestCase {
    /// A service with one generated course: hole 1 a tilted plane, hole 2 a procedural green.
    private func makeService(clock: @escaping () -> Double = { 1_700_000_000 }) throws -> (PuttingService, InMemoryPuttingStore) {
        let store = InMemoryPuttingStore()
        var ids = 0
        let service = PuttingService(store: store, clock: clock, makeJobID: { ids += 1; return "job\(ids)" })
        let plane = try GreenGenerator.plane(widthFt: 40, depthFt: 30, slopeX: 0.01, slopeZ: 0.015)
        let green = try GreenGenerator.procedural(seed: 5, sizeFt: 60)
        try store.replaceCourse(Course(id: "gen", name: "Generated"), holes: [
            Hole(courseID: "gen", number: 1, greenWidthFt: 40, greenHeightFt: 30, heightfield: plane),
            Hole(courseID: "gen", number: 2, greenWidthFt: 60, greenHeightFt: 60, holePosition: green.hole,
                 heightfield: green.heightfield, boundary: green.boundary, contours: green.contours, contourIntervalFt: 0.25),
        ])
        return (service, store)
    }

    private let request = BestLineRequest(course: "gen", hole: 1, ball: PointFt(x: -8, z: -2), flag: PointFt(x: 4, z: 1))
    private let render = "; `putting render --course gen --hole 1 --svg FILE` draws the green with a grid in feet"

    func testSynchronousBestLineIsCachedByContentKey() throws {
        let (service, _) = try makeService()
        var fractions: [Double] = []
        guard case .result(let first, let cached1) = try service.bestLine(request, progress: { fractions.append($0) }) else {
            return XCTFail("expected a result")
        }
        XCTAssertFalse(cached1)
        XCTAssertTrue(first.holed)
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions, fractions.sorted(), "progress only grows")
        guard case .result(let second, let cached2) = try service.bestLine(request) else { return XCTFail("expected a result") }
        XCTAssertTrue(cached2)
        XCTAssertEqual(second, first)
        guard case .result(_, let cached3) = try service.bestLine(request, options: BestLineOptions(useCache: false)) else {
            return XCTFail("expected a result")
        }
        XCTAssertFalse(cached3)
    }

    func testResultJSONUsesTheOriginalFieldNamesFirst() throws {
        let (service, _) = try makeService()
        for model in PuttingModel.allCases {
            var r = request
            r.model = model
            let outcome = try service.bestLine(r)
            let keys = outcome.json["bestLine"]?.objectValue?.keys ?? []
            XCTAssertEqual(Array(keys.prefix(15)), ["ballXFt", "ballZFt", "holeXFt", "holeZFt", "stimpFt", "aimOffsetDeg", "speedFps",
                                                    "v0XFps", "v0ZFps", "holed", "missFt", "tEndS", "pathXFt", "pathZFt", "pathYFt"])
            XCTAssertEqual(outcome.json["bestLine"]?["model"], .string(model.rawValue))
            // Cached text round-trips to the same result.
            guard case .result(let result, _) = outcome else { return XCTFail("expected a result") }
            XCTAssertEqual(try BestLineResult(json: try JSONParser.parse(JSONWriter.compact(result.json))), result)
        }
    }

    func testCompatThroughTheServiceMatchesTheOriginalFile() throws {
        let dir = try SharedData.presidioDirectory()
        let service = PuttingService(store: InMemoryPuttingStore())
        _ = try service.importCourse(CourseImportRequest(directory: dir, id: "presidio"))
        let expected = try JSONParser.parse(try String(contentsOfFile: dir + "/hole_1/Hole_1_bestline.json", encoding: .utf8))
        let line = try XCTUnwrap(expected["bestLine"]?.objectValue)
        func d(_ k: String) -> Double { line[k]?.doubleValue ?? .nan }
        let outcome = try service.bestLine(BestLineRequest(course: "presidio", hole: 1, ball: PointFt(x: d("ballXFt"), z: d("ballZFt")),
                                                           flag: PointFt(x: d("holeXFt"), z: d("holeZFt")), stimpFt: d("stimpFt"), model: .compat))
        let ours = try XCTUnwrap(outcome.json["bestLine"]?.objectValue)
        for (key, value) in line {
            switch value {
            case .number(let n): XCTAssertEqual(ours[key]?.doubleValue, n.double, key)
            case .bool(let b): XCTAssertEqual(ours[key]?.boolValue, b, key)
            case .array(let a): XCTAssertEqual(ours[key]?.arrayValue?.map(\.doubleValue), a.map(\.doubleValue), key)
            default: XCTFail("unexpected field \(key)")
            }
        }
        XCTAssertTrue(outcome.text.contains("aim    30.00° left"), outcome.text)
    }

    func testAsyncJobsQueueRunAndCache() throws {
        let (service, store) = try makeService()
        var r = request
        r.model = .compat
        let submitted = try service.bestLine(r, options: BestLineOptions(async: true))
        XCTAssertEqual(submitted, .submitted(jobID: "job1", state: .queued, existing: false))
        XCTAssertEqual(submitted.text, "Submitted job job1: see it with `putting job job1`")
        XCTAssertEqual(try service.bestLine(r, options: BestLineOptions(async: true)), .submitted(jobID: "job1", state: .queued, existing: true))
        XCTAssertEqual(try service.job(id: "job1").text, "Job job1: queued (submitted 2023-11-14T22:13:20Z)")
        var seen: [Double] = []
        let status = try service.runJob(id: "job1", progress: { seen.append($0) })
        XCTAssertEqual(status.job.state, .completed)
        XCTAssertEqual(status.job.attempts, 1)
        XCTAssertEqual(seen.last, 1)
        XCTAssertEqual(try store.job(id: "job1")?.progress, 1)
        let shown = try service.job(id: "job1")
        XCTAssertEqual(shown.result, status.result)
        XCTAssertTrue(shown.text.hasPrefix("Job job1: completed\nBest line (compat) on gen hole 1"))
        XCTAssertNotNil(shown.json["bestLine"]?["pathXFt"])
        // Submitting the same putt again returns the cached result at once.
        guard case .result(let cached, true) = try service.bestLine(r, options: BestLineOptions(async: true)) else {
            return XCTFail("expected the cached result")
        }
        XCTAssertEqual(cached, status.result)
        XCTAssertEqual(errorMessage { try service.job(id: "nope") }, "unknown job \"nope\": job ids are printed by `putting bestline --async` and `putting book --async`")
    }

    func testJobsSurviveARestart() throws {
        var now = 1_700_000_000.0
        let (service, store) = try makeService(clock: { now })
        _ = try service.bestLine(request, options: BestLineOptions(async: true))
        // The host stops while the job runs: its record says running.
        var job = try XCTUnwrap(store.job(id: "job1"))
        job.state = .running
        job.attempts = 1
        try store.putJob(job)
        // A new host on the same storage, a minute later: the lease has not expired yet.
        now += 60
        let restarted = PuttingService(store: store, clock: { now })
        XCTAssertEqual(try restarted.recoverInterruptedJobs(), [])
        XCTAssertEqual(try restarted.runJob(id: "job1").job.state, .running)
        now += 120
        XCTAssertEqual(try restarted.recoverInterruptedJobs(), ["job1"])
        XCTAssertEqual(try store.job(id: "job1")?.state, .queued)
        let statuses = try restarted.runQueuedJobs()
        XCTAssertEqual(statuses.map(\.job.state), [.completed])
        XCTAssertEqual(statuses.first?.job.attempts, 2)
    }

    func testAFailingJobRecordsWhy() throws {
        let (service, store) = try makeService()
        _ = try service.bestLine(request, options: BestLineOptions(async: true))
        // The hole is re-imported with a smaller green before the job runs: the ball is now off it.
        let small = try GreenGenerator.plane(widthFt: 10, depthFt: 10)
        try store.putHole(Hole(courseID: "gen", number: 1, greenWidthFt: 10, greenHeightFt: 10, heightfield: small))
        let status = try service.runJob(id: "job1")
        XCTAssertEqual(status.job.state, .failed)
        XCTAssertEqual(status.job.error, "ball (-8, -2) is outside the green of gen hole 1: the nearest point on the green is (-5, -2), 3.0 ft away, e.g. ball -5,-2\(render)")
        XCTAssertEqual(status.text, "Job job1: failed: ball (-8, -2) is outside the green of gen hole 1: the nearest point on the green is (-5, -2), 3.0 ft away, e.g. ball -5,-2\(render)")
        XCTAssertEqual(try service.runJob(id: "job1").job.attempts, 1, "a failed job is not run again")
    }

    func testBadInputIsRefusedBeforeAnyJobExists() throws {
        let (service, store) = try makeService()
        func message(_ change: (inout BestLineRequest) -> Void) -> String {
            var r = request
            change(&r)
            return errorMessage { try service.bestLine(r, options: BestLineOptions(async: true)) }
        }
        XCTAssertEqual(message { $0.stimpFt = 0 }, "stimp 0 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
        XCTAssertEqual(message { $0.stimpFt = -3 }, "stimp -3 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
        XCTAssertEqual(message { $0.stimpFt = 20 }, "stimp 20 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
        XCTAssertEqual(message { $0.stimpFt = 0.001 }, "stimp 0.001 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
        // A stimp that is a green speed in metres (1.2–4.9 m) is said to be one.
        XCTAssertEqual(message { $0.stimpFt = 3.99 }, "stimp 3.99 ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments); if 3.99 is metres, that is stimp 13.1 (feet)")
        XCTAssertEqual(message { $0.stimpFt = .nan }, "stimp nan ft is out of range: give a green speed from 4 to 16 ft (real greens measure about 7 when slow to 13–14 at tournaments)")
        XCTAssertEqual(message { $0.ball = PointFt(x: 30, z: 0) },
                       "ball (30, 0) is outside the green of gen hole 1: the nearest point on the green is (20, 0), 10.0 ft away, e.g. ball 20,0\(render)")
        XCTAssertEqual(message { $0.flag = PointFt(x: 0, z: -15.5) },
                       "flag (0, -15.5) is outside the green of gen hole 1: the nearest point on the green is (0, -15), 0.5 ft away, e.g. flag 0,-15\(render)")
        XCTAssertEqual(message { $0.ball = PointFt(x: 4.1, z: 1.05) },
                       "the ball is on the hole (0.112 ft from the flag): place it at least one cup radius (0.177 ft) away")
        XCTAssertEqual(message { $0.ball.x = .infinity }, "ball x is not a finite number: give plain numbers in feet")
        XCTAssertEqual(message { $0.course = "nope" },
                       "unknown course \"nope\": list courses with `putting courses` or import one with `putting course import`")
        XCTAssertEqual(message { $0.hole = 7 }, "course \"gen\" has no hole 7: list its holes with `putting holes gen`")
        XCTAssertEqual(message { $0.finishPastFt = -1 },
                       "finish-past distance -1 ft is out of range: give a value from 0 to 10 ft (default 17 in = 1.417 ft)")
        XCTAssertEqual(errorMessage { try PuttingModel(name: "magic") }, "unknown model \"magic\": use physics (default) or compat")
        XCTAssertEqual(try store.jobs(states: JobState.allCases), [])
        // On the procedural green the compat mask (height > 0) leaves the edge outside.
        var r2 = request
        r2.hole = 2
        r2.ball = PointFt(x: 59, z: 59)
        XCTAssertTrue(errorMessage { try service.bestLine(r2) }.hasPrefix("ball (59, 59) is outside the green of gen hole 2"))
    }

    func testADamagedHeightfieldIsReported() throws {
        let (service, store) = try makeService()
        var hole = try XCTUnwrap(store.hole(courseID: "gen", number: 1))
        hole.heightfieldHash = String(repeating: "0", count: 64)
        try store.putHole(hole)
        let message = errorMessage { try service.bestLine(request) }
        XCTAssertTrue(message.hasPrefix("the stored heightfield of gen hole 1 hashes to "), message)
        XCTAssertTrue(message.hasSuffix("…, not the recorded 000000000000…: re-import the hole"), message)
    }

    func testContentKeyCoversEveryInput() throws {
        let base = request.contentKey(heightfieldHash: "h")
        var keys: Set<String> = [base]
        var r = request; r.course = "other"; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.hole = 2; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.ball.x += 0.001; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.flag.z += 0.001; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.stimpFt = 11; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.model = .compat; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.finishPastFt = 1; keys.insert(r.contentKey(heightfieldHash: "h"))
        r = request; r.capture.falloff = .none; keys.insert(r.contentKey(heightfieldHash: "h"))
        keys.insert(request.contentKey(heightfieldHash: "other"))
        XCTAssertEqual(keys.count, 10)
        XCTAssertEqual(request.contentKey(heightfieldHash: "h"), base, "the key is deterministic")
        XCTAssertEqual(try BestLineRequest(json: request.json), request)
    }

    func testListingsAndTheirText() throws {
        let (service, _) = try makeService()
        XCTAssertEqual(try service.courses().text, "gen  Generated  2 holes")
        let holes = try service.holes(course: "gen")
        XCTAssertEqual(holes.holes.map(\.number), [1, 2])
        let hash = try XCTUnwrap(holes.holes.first?.heightfieldHash)
        XCTAssertTrue(holes.text.hasPrefix("gen  Generated\n  hole 1: green 40.0×30.0 ft, grid 81×61 at 0.5 ft, imported, hash \(hash.prefix(12))\n"), holes.text)
        XCTAssertEqual(holes.json["holes"]?.arrayValue?.first?["status"], "imported")
        XCTAssertEqual(holes.json["holes"]?.arrayValue?.count, 2)
        XCTAssertEqual(errorMessage { try service.holes(course: "x") },
                       "unknown course \"x\": list courses with `putting courses` or import one with `putting course import`")
        XCTAssertEqual(try PuttingService(store: InMemoryPuttingStore()).courses().text,
                       "No courses yet: import one with `putting course import DIR --id ID`")
    }
}
