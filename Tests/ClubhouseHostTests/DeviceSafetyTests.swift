// Issue 30: the device watchdog's parts without a process around them — when a device counts as
// safe, the host stopping the simulator itself and taking the connection from its call, and the
// wire face of set_safe_state and address (ABI 1.3).

import CClubhouse
import ClubhouseJSON
import ClubhousePlatform
import XCTest
@testable import ClubhouseHost
@testable import ClubhouseWire
@testable import ClubhouseWire

final class DeviceSafetyTests: XCTestCase {
    static let start: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01, 0x4F]
    static let stop: [UInt8] = [0x5A, 0xA5, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7C]
    static let accepted: [UInt8] = [0x5A, 0xA5, 0x82, 0x01, 0x7C]
    static let rejected: [UInt8] = [0x5A, 0xA5, 0x82, 0x00, 0x7D]
    let state = SafeState(frame: DeviceSafetyTests.stop, acknowledgement: DeviceSafetyTests.accepted, timeoutMilliseconds: 1000)

    func testADeviceIsSafeOnlyAfterItsStopWasAcknowledged() {
        let book = DeviceSafetyBook()
        book.register("m", state, safe: true)
        XCTAssertNil(book.unsafeState(of: "m"), "nothing written yet")
        book.noteWrite("m", DeviceSafetyTests.start)
        XCTAssertEqual(book.unsafeState(of: "m"), state)
        book.noteWrite("m", DeviceSafetyTests.stop)
        XCTAssertNotNil(book.unsafeState(of: "m"), "the stop is written, not yet acknowledged")
        DeviceSafetyTests.rejected.withUnsafeBytes { book.noteRead("m", $0) }
        XCTAssertNotNil(book.unsafeState(of: "m"), "a refused stop leaves it running")
        Array(DeviceSafetyTests.accepted.prefix(2)).withUnsafeBytes { book.noteRead("m", $0) }
        Array(DeviceSafetyTests.accepted.dropFirst(2)).withUnsafeBytes { book.noteRead("m", $0) }
        XCTAssertNil(book.unsafeState(of: "m"), "acknowledged, even split over two reads")
        // Registering again (a new connection) keeps a device that was left running unsafe.
        book.noteWrite("m", DeviceSafetyTests.start)
        book.register("m", state, safe: true)
        XCTAssertNotNil(book.unsafeState(of: "m"))
        XCTAssertNil(book.unsafeState(of: "other"), "no safe state: never touched by the host")
    }

    private func broker() -> (DeviceBroker, PluginEntry) { makeBroker() }

    private func makeBroker(scheduler: Scheduler = DeviceBroker.safetyScheduler) -> (DeviceBroker, PluginEntry) {
        let site = Site(name: "s", description: "", plugins: [], devices: [
            "ballmachine": DeviceEntry(name: "ballmachine", transport: .simulator(kind: "ballmachine"), trace: false,
                                       connectTimeoutMilliseconds: 500, options: ["checksum": "xor"]),
        ])
        let entry = PluginEntry(alias: "tennis", id: nil, enabled: true, path: nil, versionRequirement: nil, config: [:],
                                grants: [.device("ballmachine")], isolation: .inProcess, timeoutMilliseconds: 1000,
                                location: SourceLocation(line: 1, column: 1, offset: 0))
        return (DeviceBroker(site: site, log: LogBroker(verbosity: -1, color: false), scheduler: scheduler), entry)
    }

    func testTheHostStopsTheSimulatorAndTakesTheConnectionFromItsCall() throws {
        let (broker, entry) = broker()
        defer { broker.closeAll() }
        let device = try broker.open(name: "ballmachine", for: entry)
        XCTAssertEqual(device.setSafeState(frame: [], acknowledgement: DeviceSafetyTests.accepted, timeoutMilliseconds: 100),
                       Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(device.lastError, "ballmachine (simulator:ballmachine): a safe-state frame and its acknowledgement take 1–256 bytes each")
        XCTAssertEqual(device.setSafeState(frame: DeviceSafetyTests.stop, acknowledgement: DeviceSafetyTests.accepted, timeoutMilliseconds: 0),
                       Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(device.setSafeState(frame: DeviceSafetyTests.stop, acknowledgement: DeviceSafetyTests.accepted, timeoutMilliseconds: 1000),
                       Int32(CLUBHOUSE_OK))
        XCTAssertEqual(DeviceSafetyTests.start.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_OK))
        XCTAssertTrue(broker.secureAll(because: "a test"))
        XCTAssertNil(broker.safety.unsafeState(of: "ballmachine"))
        XCTAssertEqual(DeviceSafetyTests.start.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_CANCELLED), "taken over")
        XCTAssertEqual(device.lastError, "ballmachine (simulator:ballmachine): the host stopped device 'ballmachine' (a test) and the device acknowledged; this connection takes no more frames")
        var buffer = [UInt8](repeating: 0, count: 16)
        var length = 0
        XCTAssertEqual(buffer.withUnsafeMutableBytes { device.read(into: $0, length: &length, timeout: 1000) }, Int32(CLUBHOUSE_CANCELLED))
    }

    func testTheWireFaceRegistersASafeStateAndTellsTheAddress() throws {
        let (broker, entry) = broker()
        defer { broker.closeAll() }
        var devices = WireHandles<DeviceConnection>()
        func call(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) throws -> (Int32, WireReader) {
            try broker.answer(operation, entry: entry, devices: &devices, build)
        }
        func safeState(_ handle: UInt32, timeout: Int32) throws -> (Int32, WireReader) {
            try call(.deviceSafeState) { w in
                w.u32(handle)
                w.data(DeviceSafetyTests.stop)
                w.data(DeviceSafetyTests.accepted)
                w.i32(timeout)
            }
        }
        var (status, reply) = try call(.deviceOpen) { $0.str("ballmachine") }
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
        XCTAssertEqual(try reply.str(), "")
        let handle = try reply.u32()
        XCTAssertEqual(try reply.str(), "simulator:ballmachine", "open answers the address too")
        (status, reply) = try safeState(handle, timeout: 20_000)
        XCTAssertEqual(status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(try reply.str(), "ballmachine (simulator:ballmachine): a safe state's timeout takes 1–10000 ms, not 20000")
        (status, reply) = try safeState(handle + 7, timeout: 1000)
        XCTAssertEqual(try reply.str(), "no such device handle")
        (status, _) = try safeState(handle, timeout: 1000)
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
        (status, _) = try call(.deviceWrite) { w in
            w.u32(handle)
            w.data(DeviceSafetyTests.start)
        }
        XCTAssertEqual(status, Int32(CLUBHOUSE_OK))
        XCTAssertNotNil(broker.safety.unsafeState(of: "ballmachine"))
        // The runner closes it running: the host stops it first.
        var close = WireWriter()
        close.u32(handle)
        DeviceBroker.serveClose(close.bytes, devices: &devices)
        XCTAssertNil(broker.safety.unsafeState(of: "ballmachine"))
    }

    // MARK: the watchdog's thread (a scheduler that cannot start its thread: the system at its thread limit)

    /// Starts threads until told to fail as `pthread_create` does at the thread limit (EAGAIN).
    /// @unchecked Sendable: `failing` is read and written under `lock`.
    final class ThreadLimit: @unchecked Sendable {
        let lock = Lock()
        var failing: Bool
        init(failing: Bool) { self.failing = failing }
        var starter: Scheduler.Starter {
            { [self] body throws(ThreadStartError) in
                if lock.withLock({ failing }) { throw ThreadStartError(code: EAGAIN) }
                try Thread.start(body)
            }
        }
    }

    /// An open device left running by a call: the safe state registered, a start written.
    private func running(_ broker: DeviceBroker, _ entry: PluginEntry) throws -> DeviceConnection {
        let device = try broker.open(name: "ballmachine", for: entry)
        XCTAssertEqual(device.setSafeState(frame: DeviceSafetyTests.stop, acknowledgement: DeviceSafetyTests.accepted, timeoutMilliseconds: 1000),
                       Int32(CLUBHOUSE_OK))
        XCTAssertEqual(DeviceSafetyTests.start.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_OK))
        XCTAssertNotNil(broker.safety.unsafeState(of: "ballmachine"))
        return device
    }

    private func waitUntilSafe(_ broker: DeviceBroker, within milliseconds: Int64) -> Bool {
        let deadline = Subprocess.monotonicMilliseconds() + milliseconds
        while broker.safety.unsafeState(of: "ballmachine") != nil {
            if Subprocess.monotonicMilliseconds() > deadline { return false }
            Thread.sleep(milliseconds: 5)
        }
        return true
    }

    func testADeviceIsNotOpenedWhenTheWatchdogsThreadCannotStart() {
        let limit = ThreadLimit(failing: true)
        let (broker, entry) = makeBroker(scheduler: Scheduler(starter: limit.starter))
        defer { broker.closeAll() }
        XCTAssertThrowsError(try broker.open(name: "ballmachine", for: entry)) { error in
            guard let error = error as? TransportError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.status, .busy)
            XCTAssertTrue(error.message.hasPrefix("device 'ballmachine' was not opened for 'tennis': the host's device watchdog is not running, "
                                                  + "so it could not stop the device if the call were cancelled — the system would not start a thread "
                                                  + "(pthread_create: Resource temporarily unavailable, errno 11)"), error.message)
            XCTAssertTrue(error.message.hasSuffix("end other work on this machine (or raise the limit) and try again"), error.message)
        }
        XCTAssertFalse(broker.hasOpenConnections, "refused before any connection (no simulator started)")
        // The limit gone, the same broker opens it.
        limit.lock.withLock { limit.failing = false }
        XCTAssertNoThrow(try broker.open(name: "ballmachine", for: entry).close(reason: "a test"))
    }

    func testTheHostStopsTheDeviceAfterTheGraceOfACancelledCall() throws {
        let scheduler = Scheduler()
        defer { scheduler.stop() }
        let (broker, entry) = makeBroker(scheduler: scheduler)
        defer { broker.closeAll() }
        let device = try running(broker, entry)
        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "tennis")
        broker.watch(device, openedBy: call, graceMilliseconds: 300)
        let cancelled = Subprocess.monotonicMilliseconds()
        call.cancel()
        XCTAssertNotNil(broker.safety.unsafeState(of: "ballmachine"), "the call has its grace first")
        XCTAssertTrue(waitUntilSafe(broker, within: 10_000))
        XCTAssertGreaterThanOrEqual(Subprocess.monotonicMilliseconds() - cancelled, 290)
        XCTAssertEqual(DeviceSafetyTests.start.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_CANCELLED), "taken over")
    }

    func testTheHostStopsTheDeviceAtOnceWhenTheGraceCannotBeArmed() throws {
        // The watchdog's thread ran when the device opened, then stopped, and the system reached its thread
        // limit since: the grace cannot be armed, so the stop goes out at once rather than maybe never.
        let limit = ThreadLimit(failing: false)
        let scheduler = Scheduler(starter: limit.starter)
        let (broker, entry) = makeBroker(scheduler: scheduler)
        defer { broker.closeAll() }
        let device = try running(broker, entry)
        XCTAssertTrue(scheduler.isRunning)
        limit.lock.withLock { limit.failing = true }
        scheduler.stop()
        let deadline = Subprocess.monotonicMilliseconds() + 5_000
        while scheduler.isRunning && Subprocess.monotonicMilliseconds() < deadline { Thread.sleep(milliseconds: 1) }
        XCTAssertFalse(scheduler.isRunning)

        let call = CallContext(flags: 0, progress: SilentProgress(), alias: "tennis")
        broker.watch(device, openedBy: call, graceMilliseconds: 60_000)
        call.cancel()
        XCTAssertNil(broker.safety.unsafeState(of: "ballmachine"), "stopped and acknowledged before cancel returned")
        XCTAssertEqual(DeviceSafetyTests.start.withUnsafeBytes { device.write($0) }, Int32(CLUBHOUSE_CANCELLED))
        XCTAssertTrue(device.lastError.contains("the host stopped device 'ballmachine' (its call was cancelled and the host could not wait 60 s for it: the system would not start a thread"),
                      device.lastError)
    }
}

extension DeviceBroker {
    /// The wire face's answer to one device operation built by `build` (the tests' runner).
    func answer(_ operation: WireOperation, entry: PluginEntry, devices: inout WireHandles<DeviceConnection>,
                _ build: (inout WireWriter) -> Void) throws -> (Int32, WireReader) {
        var w = WireWriter()
        build(&w)
        var request = WireReader(w.bytes)
        let decoded = try XCTUnwrap(try DeviceRequest.decode(operation, &request))
        let (status, reply) = serve(decoded, entry: entry, limits: ServiceLimits(), devices: &devices)
        return (status, WireReader(reply))
    }
}
