import Glibc
import Synchronization
import XCTest
@testable import PuttingCore

/// The best line's lanes run on threads of their own, never on libdispatch's worker pool. On Linux that pool's monitor
/// opens /proc/<tid>/stat of its workers once a second while work waits in its queue and traps (SIGILL) when it cannot:
/// in a sandboxed runner (Landlock grants no /proc) `putting bestline` crashed whenever that tick met a lane still
/// queued — seen under load in `SandboxEndToEndTests.testBundledPluginsRunSandboxed`. With `DispatchQueue
/// .concurrentPerform` (the old `Lanes.map`) and `DispatchQueue.global().async` (the old stability probe) these tests fail:
/// their bodies ran on threads named after libdispatch's root queues.
final class LanesTests: XCTestCase {
    private typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32
    private static let getName = dlsym(dlopen(nil, RTLD_NOW), "pthread_getname_np").map { unsafeBitCast($0, to: GetName.self) }

    private static func threadName() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = getName?(pthread_self(), &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func testLanesRunOnThreadsOfTheirOwnAndKeepTheOrder() {
        let caller = LanesTests.threadName()
        let secondStarted = Atomic<Bool>(false)
        let answers = Lanes.map(40, lanes: 3) { k -> (Int, String, Bool) in
            if k == 1 { secondStarted.store(true, ordering: .sequentiallyConsistent) }
            // Index 0 waits (at most 10 s) until another lane has taken index 1: two lanes really run at once.
            var waited = 0
            while k == 0, !secondStarted.load(ordering: .sequentiallyConsistent), waited < 10_000 { usleep(1000); waited += 1 }
            return (k * k, LanesTests.threadName(), k == 0 ? secondStarted.load(ordering: .sequentiallyConsistent) : true)
        }
        XCTAssertEqual(answers.map(\.0), (0..<40).map { $0 * $0 }, "results in index order")
        XCTAssertTrue(answers[0].2, "index 1 ran while index 0 was still running")
        for (k, answer) in answers.enumerated() {
            XCTAssertTrue(answer.1 == caller || answer.1 == LaneThread.name,
                          "index \(k) ran on '\(answer.1)': neither the caller ('\(caller)') nor a lane of our own")
        }
        XCTAssertTrue(answers.contains { $0.1 == LaneThread.name }, "a lane of our own took some indices")
        XCTAssertEqual(Lanes.map(5, lanes: 1) { $0 + 1 }, [1, 2, 3, 4, 5])
        XCTAssertEqual(Lanes.map(0, lanes: 4) { $0 }, [])
    }

    /// The stability check's second search runs on a lane of its own, and `wait` hands back its answer.
    func testTheProbeRunsOnALaneOfItsOwn() throws {
        let name = Mutex<String?>(nil)
        let thread = LaneThread.start { name.withLock { $0 = LanesTests.threadName() } }
        XCTAssertNotNil(thread)
        thread?.join()
        XCTAssertEqual(name.withLock { $0 }, LaneThread.name)

        let surface = GreenSurface(try GreenGenerator.plane(widthFt: 30, depthFt: 12, slopeX: 0.01, slopeZ: 0))
        let solver = PhysicsSolver(simulator: PhysicsSimulator(surface: surface, parameters: PhysicsParameters(stimpFt: 10)))
        let ball = PointFt(x: -5, z: 1), hole = PointFt(x: 5, z: 0)
        let probed = PhysicsSolver.ProbeRun.start(solver, ball: ball, hole: hole).wait()
        let direct = solver.bestLine(ball: ball, hole: hole)
        XCTAssertEqual(probed?.aimOffsetDeg, direct.aimOffsetDeg)
        XCTAssertEqual(probed?.speedFps, direct.speedFps)
    }
}
