// Issue 30, Deliver 1: the host's device watchdog. A plugin registers its machine's stop command as
// the device's safe state (device.h set_safe_state, ABI 1.3); whatever way its call leaves the machine
// running — it returns, fails, closes the device, crashes, ignores Ctrl-C or blocks in a read — the
// host sends the stop itself and says so; a machine that does not answer is reported loudly, by name.
// The plugin is Tests/Fixtures/plugins/machine_watchdog.c, run in process and in a runner.

import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class DeviceWatchdogEndToEndTests: XCTestCase {
    /// What the host says when it takes a first Ctrl-C.
    static let interrupted = "[clubhouse] warning: interrupted; asking 'wd' to stop"

    private func site(_ c: Clubhouse, _ simulator: StampedSimulator, isolation: String) throws -> String {
        let library = try FixturePlugins.build("WATCHDOG", id: "org.tests.watchdog", file: "machine_watchdog.c")
        return try c.write("watchdog-\(isolation).json", """
            {"sites": {"s": {
              "devices": {"ballmachine": {"transport": "tcp:127.0.0.1:\(simulator.port)"}},
              "plugins": {"wd": {"path": "\(library)", "isolation": "\(isolation)", "grants": ["device:ballmachine"]}}}}}
            """)
    }

    /// A simulator and the fixture's `ignore` running against it, the machine started.
    private func startIgnoring(isolation: String) throws -> (StampedSimulator, RunningClubhouse) {
        let c = try Clubhouse()
        scratch = c
        let simulator = try StampedSimulator(c)
        let running = try RunningClubhouse(c, ["--config", try site(c, simulator, isolation: isolation), "wd", "ignore"])
        XCTAssertNotNil(simulator.wait(from: 0) { $0.isStart }, running.stderr)
        // The simulator reports the start before it answers it: a test that kills it must wait until
        // the plugin has its answer (or the start fails, and the host reports that instead).
        XCTAssertTrue(running.waitForStderr("the machine took the start command"), running.stderr)
        return (simulator, running)
    }

    /// Keeps the scratch folder of `startIgnoring` for the length of the test.
    private var scratch: Clubhouse?

    /// The machine's commands since line `from`: starts and stops in order ("start" / "stop").
    private func commands(_ simulator: StampedSimulator, from: Int) -> [String] {
        simulator.lines.dropFirst(from).compactMap { $0.isStart ? "start" : $0.isStop ? "stop" : nil }
    }

    func testTheHostStopsAMachineItsCallLeftRunning() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        for isolation in ["in-process", "process"] {
            let config = try site(c, simulator, isolation: isolation)
            let cases: [(command: String, exit: Int32, reason: String)] = [
                ("leave", 0, "'leave' ended without stopping it"),
                ("fail", 1, "'fail' ended without stopping it"),
                ("close", 0, "the plugin closed it"),
            ] + (isolation == "process" ? [("crash", 1, "its runner crashed")] : [])
            for item in cases {
                let from = simulator.lines.count
                let result = try c.run(["--config", config, "wd", item.command])
                XCTAssertEqual(result.exitCode, item.exit, "\(isolation) \(item.command): \(result.stderr)")
                XCTAssertNotNil(simulator.wait(from: from, timeout: 10) { $0.isStop }, "\(isolation) \(item.command): no stop")
                // Every command the run sent is reported before its connections' close.
                XCTAssertTrue(simulator.waitUntilAllClosed(timeout: 10), "\(isolation) \(item.command): a connection stayed open")
                XCTAssertEqual(commands(simulator, from: from), ["start", "stop"], "\(isolation) \(item.command)")
                XCTAssertTrue(result.stderr.contains("device 'ballmachine' (tcp:127.0.0.1:\(simulator.port)) was left running by 'wd' (\(item.reason)"),
                              "\(isolation) \(item.command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("the host sent its safe-state frame and the device acknowledged it"), result.stderr)
            }
            // A plugin that stops its machine itself: the host adds nothing.
            let from = simulator.lines.count
            let stopped = try c.run(["--config", config, "wd", "stop"])
            XCTAssertEqual(stopped.exitCode, 0, stopped.stderr)
            // The plugin's own stop, then its connection's close (a fixed 300 ms alone was too short on a
            // loaded machine); then 300 ms more for a stop the host would have sent on a connection of its
            // own that the simulator had not yet taken.
            XCTAssertNotNil(simulator.wait(from: from, timeout: 10) { $0.isStop }, "\(isolation) stop: the plugin's stop never came")
            XCTAssertTrue(simulator.waitUntilAllClosed(timeout: 10), "\(isolation): a connection stayed open")
            usleep(300_000)
            XCTAssertTrue(simulator.waitUntilAllClosed(timeout: 10), "\(isolation): a connection stayed open")
            XCTAssertEqual(commands(simulator, from: from), ["start", "stop"], "\(isolation): one stop, the plugin's")
            XCTAssertFalse(stopped.stderr.contains("left running"), stopped.stderr)
        }
    }

    /// A call that ignores Ctrl-C: the host stops its machine 5 s later (the grace for cleaning up);
    /// one blocked in a device read: the second Ctrl-C stops the machine and wakes the read at once.
    func testCtrlCStopsAMachineWhoseCallIgnoresIt() throws {
        let c = try Clubhouse()
        let simulator = try StampedSimulator(c)
        defer { simulator.stop() }
        for isolation in ["in-process", "process"] {
            let config = try site(c, simulator, isolation: isolation)
            var from = simulator.lines.count
            let ignoring = try RunningClubhouse(c, ["--config", config, "wd", "ignore"])
            XCTAssertNotNil(simulator.wait(from: from) { $0.isStart }, "\(isolation): never started")
            let cancelled = monotonicNanoseconds()
            ignoring.signal(SIGINT)
            let stop = simulator.wait(from: from, timeout: 15) { $0.isStop }
            XCTAssertNotNil(stop, "\(isolation): the host did not stop the machine of a call that ignores Ctrl-C")
            if let stop {
                let seconds = Double(stop.at - cancelled) / 1e9
                XCTAssertGreaterThan(seconds, 4.5, "\(isolation): the call had its grace first")
                XCTAssertLessThan(seconds, 9, "\(isolation)")
            }
            ignoring.signal(SIGINT)
            XCTAssertEqual(ignoring.wait(timeout: 10)?.status, 130, "\(isolation): \(ignoring.stderr)")
            XCTAssertTrue(ignoring.stderr.contains("(its call was cancelled 5 s earlier and had not stopped it): the host sent its safe-state frame and the device acknowledged it"),
                          ignoring.stderr)

            from = simulator.lines.count
            let blocked = try RunningClubhouse(c, ["--config", config, "wd", "block"])
            XCTAssertNotNil(simulator.wait(from: from) { $0.isStart }, "\(isolation): never started")
            usleep(300_000)
            blocked.signal(SIGINT)
            // The second Ctrl-C once the host has taken the first: two SIGINTs sent while a loaded machine
            // has not yet run the host are one pending signal.
            XCTAssertTrue(blocked.waitForStderr(DeviceWatchdogEndToEndTests.interrupted), blocked.stderr)
            usleep(200_000)
            let twice = monotonicNanoseconds()
            blocked.signal(SIGINT)
            let second = simulator.wait(from: from, timeout: 5) { $0.isStop }
            XCTAssertNotNil(second, "\(isolation): a second Ctrl-C did not stop the machine")
            // Waiting for the read, the stop would come with the first Ctrl-C's grace, 4.8 s after the second.
            if let second { XCTAssertLessThan(Double(second.at - twice) / 1e6, 2500, "\(isolation): the stop waited for the read") }
            let ended = blocked.wait(timeout: 10)
            XCTAssertEqual(ended?.status, 130, "\(isolation): \(blocked.stderr)")
            XCTAssertTrue(blocked.stderr.contains("was left running by 'wd' (Ctrl-C twice)"), blocked.stderr)
            XCTAssertTrue(blocked.stderr.contains("the read ended with status 8: ") && blocked.stderr.contains("the host is stopping device 'ballmachine' (Ctrl-C twice)"),
                          "the plugin's read was woken with CLUBHOUSE_CANCELLED: \(blocked.stderr)")
            XCTAssertEqual(commands(simulator, from: from), ["start", "stop"], isolation)
        }
    }

    /// SIGTERM to a call that ignores it: the machine is stopped, and the host quits by itself
    /// (130) 5 s + 3 s later, as a service manager expects.
    func testSIGTERMEndsACallThatIgnoresItByItself() throws {
        let (simulator, ignoring) = try startIgnoring(isolation: "process")
        defer { simulator.stop() }
        ignoring.signal(SIGTERM)
        let ended = ignoring.wait(timeout: 20)
        XCTAssertEqual(ended?.status, 130, ignoring.stderr)
        XCTAssertTrue(ignoring.stderr.contains("[clubhouse] warning: terminated; asking 'wd' to stop"), ignoring.stderr)
        XCTAssertTrue(ignoring.stderr.contains("clubhouse: stopping: the call gets 3 s to store what it did"), ignoring.stderr)
        XCTAssertEqual(commands(simulator, from: 0), ["start", "stop"])
    }

    /// The machine's connection drops (its simulator killed): the host tries a new connection for
    /// 5 s, then says loudly, naming the device, that it may still be running.
    func testAMachineTheHostCannotReachIsReportedLoudly() throws {
        let (simulator, leaving) = try startIgnoring(isolation: "in-process")
        defer { simulator.stop() }
        simulator.kill()
        leaving.signal(SIGINT)
        // The second Ctrl-C once the host has taken the first (sent 100 ms apart on a loaded machine, the
        // two were one pending signal: the host saw one Ctrl-C and reported another reason).
        XCTAssertTrue(leaving.waitForStderr(DeviceWatchdogEndToEndTests.interrupted), leaving.stderr)
        usleep(100_000)
        leaving.signal(SIGINT)
        let ended = leaving.wait(timeout: 30)
        XCTAssertEqual(ended?.status, 130, leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("[clubhouse] error: device 'ballmachine' (tcp:127.0.0.1:\(simulator.port)) MAY STILL BE RUNNING: 'wd' left it running (Ctrl-C twice) and the host could not stop it: "),
                      leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("; stop it at the device"), leaving.stderr)
    }
}
