// Device broker: a plugin opens a logical device by name; the site maps the name to a transport.
// Only plugins granted "device:NAME" may open it; every byte is logged in hex at -vvv (already at -v
// with "trace": true).
// One implementation (`open` and `DeviceConnection`), reached two ways: the C table an in-process
// plugin gets, and the wire face that answers an isolated plugin's runner.
// A device whose plugin registered a safe state (a ball machine's stop frame) is watched: when the
// call that opened it is gone and the device is not safe, the host stops it (Devices/DeviceSafety.swift).

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: `open` is guarded by `lock`; the safety book guards itself; the rest never changes.
public final class DeviceBroker: @unchecked Sendable {
    let site: Site
    let log: LogBroker
    private let lock = Lock()
    private var open: [ObjectIdentifier: DeviceConnection] = [:]
    /// Which devices are in their safe state (by name: one device, whatever connections reach it).
    let safety = DeviceSafetyBook()
    /// One stop at a time (the watchdog's triggers can fire together).
    let securing = Lock()
    /// Runs the stop a cancelled call's grace ends with (`watch`): `safetyScheduler`, a seam for tests.
    let scheduler: Scheduler

    /// The device watchdog's own scheduler thread, apart from the host's other delayed work (a slow job
    /// there never holds up a stop); started by the first device opened, then it stays. A front end's
    /// timers that stop devices (a SIGTERM's second step) run on it too.
    public static let safetyScheduler = Scheduler()

    init(site: Site, log: LogBroker, scheduler: Scheduler = DeviceBroker.safetyScheduler) {
        self.site = site
        self.log = log
        self.scheduler = scheduler
        // A device can vanish mid-write (a simulator or a machine that dropped its link): that is EPIPE to
        // report, never SIGPIPE, also where the broker is used without a SiteRuntime (the clean-clone CI
        // lost its test process to SIGPIPE in DeviceSafetyTests once).
        Signals.ignoreBrokenPipes()
    }

    /// The connections open now.
    var openConnections: [DeviceConnection] { lock.withLock { Array(open.values) } }

    /// Whether any connection is open now (the check at the end of every call, which copies nothing).
    var hasOpenConnections: Bool { lock.withLock { !open.isEmpty } }

    /// Opens device `name` for plugin `alias` (granted or not is checked by the caller's entry),
    /// within the plugin's `open_devices`. The call running on this thread (if any) owns it: the
    /// watchdog acts when that call is gone.
    func open(name: String, for entry: PluginEntry, limits: ServiceLimits = ServiceLimits()) throws(TransportError) -> DeviceConnection {
        if let (status, message) = ServiceGate.refusal(.openDevice) {
            throw TransportError(status: Status(rawValue: status) ?? .cancelled, message: "device '\(name)': \(message)")
        }
        // The watchdog must be able to stop what is opened: no scheduler thread, no device.
        do throws(ThreadStartError) {
            try scheduler.ensureRunning()
        } catch {
            throw TransportError(status: .busy, message: DeviceBroker.noWatchdog(name, for: entry.alias, error))
        }
        let connection = try connect(name: name, for: entry, limits: limits)
        if let call = CallContext.current { watch(connection, openedBy: call) }
        log.info("opened device '\(name)' (\(connection.address)) for '\(entry.alias)'")
        return connection
    }

    /// Why a device was not opened when the watchdog's thread would not start.
    static func noWatchdog(_ name: String, for alias: String, _ error: ThreadStartError) -> String {
        "device '\(name)' was not opened for '\(alias)': the host's device watchdog is not running, so it could not "
            + "stop the device if the call were cancelled — \(error); end other work on this machine (or raise the limit) "
            + "and try again"
    }

    /// A new connection to device `name` (checked against the plugin's grants and limits).
    private func connect(name: String, for entry: PluginEntry, limits: ServiceLimits) throws(TransportError) -> DeviceConnection {
        guard entry.isGranted(.device(name)) else {
            throw TransportError(status: .denied,
                                 message: "plugin '\(entry.alias)' may not open device '\(name)': "
                                    + "the site does not grant \"device:\(name)\"; add it to the plugin's \"grants\" in plugins.json")
        }
        guard let device = site.devices[name] else {
            let known = site.devices.keys.sorted()
            throw TransportError(status: .notFound,
                                 message: "site '\(site.name)' defines no device '\(name)'"
                                    + (known.isEmpty ? "" : " (devices: \(known.joined(separator: ", ")))")
                                    + "; add it under \"devices\" in plugins.json")
        }
        let held = lock.withLock { open.values.filter { $0.owner == entry.alias }.count }
        guard held < limits.openDevices else {
            throw TransportError(status: .denied, message: LimitRefusal.openDevices(entry.alias, limits))
        }
        let (fd, address) = try openTransport(device)
        let connection = DeviceConnection(name: name, address: address, fd: fd, trace: device.trace, log: log,
                                           owner: entry.alias, broker: self)
        lock.withLock { open[ObjectIdentifier(connection)] = connection }
        return connection
    }

    /// A fresh descriptor to `device` and its address (the watchdog reconnects with it too).
    func openTransport(_ device: DeviceEntry) throws(TransportError) -> (Int32, String) {
        switch device.transport {
        case .simulator(let kind):
            // A program of its own (Devices/DeviceSimulator.swift); its report lines are debug lines.
            let arguments = try DeviceSimulator.arguments(device.options, name: device.name)
            let log = self.log
            let report: (@Sendable (String) -> Void)? =
                log.isEnabled(Int32(CLUBHOUSE_LOG_DEBUG)) ? { @Sendable line in log.debug(line) } : nil
            let fd = try DeviceSimulator.attach(kind: kind, arguments: arguments, name: device.name, report: report)
            return (fd, "simulator:\(kind)")
        default:
            let fd = try Transport.open(device.transport, name: device.name,
                                        connectTimeoutMilliseconds: device.connectTimeoutMilliseconds)
            return (fd, DeviceBroker.describe(device.transport))
        }
    }

    func forget(_ connection: DeviceConnection) {
        _ = lock.withLock { open.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Closes every device still open (at shutdown, so a machine is never left mid-command); one
    /// that is not in its safe state is put in it first.
    func closeAll() {
        let all = lock.withLock { () -> [DeviceConnection] in
            let list = Array(open.values)
            open.removeAll()
            return list
        }
        all.forEach { $0.close(reason: "the host is quitting") }
    }

    static func describe(_ transport: DeviceEntry.Transport) -> String {
        switch transport {
        case .serial(let port, let baud, let parity, let dataBits, let stopBits):
            return "serial:\(port) \(baud) \(dataBits)\(parity.rawValue.prefix(1).uppercased())\(stopBits)"
        case .tcp(let host, let port): return DeviceAddress.tcp(host: host, port: port).description
        case .unix(let path): return "unix:\(path)"
        case .simulator(let kind): return "simulator:\(kind)"
        }
    }

    // MARK: the C face

    static func connection(_ device: OpaquePointer?) -> DeviceConnection? {
        guard let device else { return nil }
        return Unmanaged<DeviceConnection>.fromOpaque(UnsafeRawPointer(device)).takeUnretainedValue()
    }

    static func makeServiceTable() -> clubhouse_device_service {
        clubhouse_device_service(
            struct_size: UInt32(MemoryLayout<clubhouse_device_service>.size),
            open: { host, name, out, reply in
                guard let instance = PluginInstance.from(host), let name, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                do throws(TransportError) {
                    let connection = try instance.runtime.devices.open(name: String(cString: name), for: instance.entry,
                                                                       limits: instance.limits)
                    out.pointee = OpaquePointer(Unmanaged.passRetained(connection).toOpaque())
                    return Int32(CLUBHOUSE_OK)
                } catch {
                    reply?.write(error.message)
                    return error.status.rawValue
                }
            },
            write: { device, bytes, length in
                guard let c = DeviceBroker.connection(device) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return c.write(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length))
            },
            read: { device, buffer, capacity, length, timeout in
                guard let c = DeviceBroker.connection(device), let buffer, let length else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return c.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity), length: length, timeout: timeout)
            },
            last_error: { device in
                DeviceBroker.connection(device)?.lastErrorPointer
            },
            close: { device in
                guard let device else { return }
                let c = Unmanaged<DeviceConnection>.fromOpaque(UnsafeRawPointer(device))
                c.takeUnretainedValue().close()
                c.release()
            },
            set_safe_state: { device, frame, frameLength, acknowledgement, acknowledgementLength, timeout in
                guard let c = DeviceBroker.connection(device), let frame, let acknowledgement else {
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                return c.setSafeState(frame: Array(UnsafeBufferPointer(start: frame, count: frameLength)),
                                      acknowledgement: Array(UnsafeBufferPointer(start: acknowledgement, count: acknowledgementLength)),
                                      timeoutMilliseconds: timeout)
            },
            address: { device in
                DeviceBroker.connection(device)?.addressPointer
            })
    }

    // MARK: the wire face

    /// The most a runner's read may ask for at once (its proxy asks for at most this).
    static let wireReadLimit = DeviceRequest.maximumRead

    /// The buffer a runner's read gets: what it asked for, at least 1 byte, at most `wireReadLimit`.
    static func wireReadCapacity(_ requested: UInt32) -> Int { min(max(1, Int(requested)), wireReadLimit) }

    /// Answers a runner's device service call (DeviceRequest) for plugin `entry`. Every reply
    /// (DeviceReply) starts with a message, empty on success: open adds the handle, read the bytes.
    func serve(_ request: DeviceRequest, entry: PluginEntry, limits: ServiceLimits,
               devices: inout WireHandles<DeviceConnection>) -> (Int32, [UInt8]) {
        let operation = request.operation
        switch request {
        case .open(let name):
            do throws(TransportError) {
                let connection = try open(name: name, for: entry, limits: limits)
                let reply = DeviceReply(message: "", handle: devices.insert(connection), address: connection.address)
                return (Int32(CLUBHOUSE_OK), reply.encode(for: operation))
            } catch {
                return (error.status.rawValue, DeviceReply(message: error.message).encode(for: operation))
            }
        case .write(let handle, let bytes):
            guard let connection = devices[handle] else {
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT), DeviceReply(message: "no such device handle").encode(for: operation))
            }
            let status = bytes.withUnsafeBytes { connection.write($0) }
            return (status, DeviceReply(message: status == Int32(CLUBHOUSE_OK) ? "" : connection.lastError).encode(for: operation))
        case .read(let handle, let requested, let timeout):
            guard let connection = devices[handle] else {
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT), DeviceReply(message: "no such device handle").encode(for: operation))
            }
            var buffer = [UInt8](repeating: 0, count: DeviceBroker.wireReadCapacity(requested))
            var length = 0
            let status = buffer.withUnsafeMutableBytes { connection.read(into: $0, length: &length, timeout: timeout) }
            let reply = DeviceReply(message: status == Int32(CLUBHOUSE_OK) ? "" : connection.lastError,
                                    bytes: Array(buffer[0..<min(length, buffer.count)]))
            return (status, reply.encode(for: operation))
        case .safeState(let handle, let frame, let acknowledgement, let timeout):
            guard let connection = devices[handle] else {
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT), DeviceReply(message: "no such device handle").encode(for: operation))
            }
            let status = connection.setSafeState(frame: frame, acknowledgement: acknowledgement, timeoutMilliseconds: timeout)
            return (status, DeviceReply(message: status == Int32(CLUBHOUSE_OK) ? "" : connection.lastError).encode(for: operation))
        }
    }

    /// A runner's one-way `deviceClose` frame.
    static func serveClose(_ payload: [UInt8], devices: inout WireHandles<DeviceConnection>) {
        if let message = try? HandleMessage.decode(payload), let connection = devices.remove(message.handle) { connection.close() }
    }
}

/// An open device: a non-blocking descriptor with timeouts, tracing and a last-error message.
/// @unchecked Sendable: I/O and `lastErrorStorage` go through `lock` (one operation at a time); `takenOver`,
/// `wrote`, `closed` and `owningCall` through `stateLock`, so a takeover need not wait for a slow read.
final class DeviceConnection: @unchecked Sendable {
    let name: String
    let address: String
    private var fd: Int32
    let trace: Bool
    let log: LogBroker
    let owner: String
    weak var broker: DeviceBroker?
    private var lastErrorStorage = PinnedCString.empty
    private let addressStorage: PinnedCString
    /// Held for every write, read and close (a read waits on it for at most its timeout).
    private let lock = Lock()
    /// Wakes a read in progress when the host takes the device over (a pipe: read end, write end).
    private let wake: Int32
    private let wakeWriter: Int32
    /// Set when the host took the device over to put it in its safe state: the plugin's writes and
    /// reads fail from then on with this status and message. Guarded by `stateLock`, never waited on.
    private let stateLock = Lock()
    private var takenOver: (status: Status, message: String)?
    /// Whether the plugin wrote anything yet (a safe state registered before any write starts safe).
    private var wrote = false
    /// Closed (guarded by `stateLock`: the watchdog asks without waiting for a read in progress).
    private var closed = false
    /// The call that opened the device, while it runs (the watchdog's trigger).
    private var owningCall: UInt64?

    init(name: String, address: String, fd: Int32, trace: Bool, log: LogBroker, owner: String, broker: DeviceBroker) {
        self.name = name
        self.address = address
        self.fd = fd
        self.trace = trace
        self.log = log
        self.owner = owner
        self.broker = broker
        addressStorage = PinnedCString(address)
        let ends = Descriptor.pipe(nonBlocking: true) ?? (-1, -1)
        wake = ends.0
        wakeWriter = ends.1
    }

    deinit {
        lock.withLock {
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
        if wake >= 0 { Glibc.close(wake) }
        if wakeWriter >= 0 { Glibc.close(wakeWriter) }
    }

    var lastErrorPointer: UnsafePointer<CChar> {
        lastErrorStorage.pointer
    }

    var addressPointer: UnsafePointer<CChar> {
        addressStorage.pointer
    }

    /// Why the last write or read failed.
    var lastError: String { lock.withLock { String(cString: lastErrorPointer) } }

    private func fail(_ status: Status, _ message: String) -> Int32 {
        lastErrorStorage = PinnedCString("\(name) (\(address)): \(message)")
        return status.rawValue
    }

    /// `act` refused for the thread's running call past its grace (ServiceGate.swift), the message recorded.
    private func refused(_ act: ServiceAct) -> Int32? {
        guard let (status, message) = ServiceGate.refusal(act) else { return nil }
        lastErrorStorage = PinnedCString("\(name) (\(address)): \(message)")
        return status
    }

    private var takeover: (status: Status, message: String)? { stateLock.withLock { takenOver } }

    /// Every byte in hex: at -vvv (trace level) for every device, already at -v (info) for a device
    /// configured with "trace": true.
    private func traceBytes(_ direction: String, _ bytes: UnsafeRawBufferPointer) {
        let level = Int32(trace ? CLUBHOUSE_LOG_INFO : CLUBHOUSE_LOG_TRACE)
        guard log.isEnabled(level) else { return }
        log.write(level: level, source: owner, message: "\(name) \(direction) \(hexString(Array(bytes)))")
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        lock.withLock {
            guard fd >= 0 else { return fail(.io, "the device is closed") }
            if let (status, message) = takeover { return fail(status, message) }
            if let refusal = refused(.writeDevice) { return refusal }
            traceBytes(">", bytes)
            // The safety book hears of the write before the device does: told after it, a host securing its
            // devices in between (Ctrl-Z, a second Ctrl-C) found the machine safe with its start already sent
            // and left it firing (TennisFieldSafetyEndToEndTests.testASuspendedHostStopsTheMachineFirst, seen
            // under load).
            let before = broker?.safety.noteWrite(name, Array(bytes))
            let bound = Int32(clamping: ServiceGate.waitBound(2000))
            if let error = Descriptor.writeAll(fd, bytes, timeoutMilliseconds: bound) {
                if let before { broker?.safety.restore(name, before) }
                return refused(.writeDevice) ?? fail(.io, error)
            }
            wrote = true
            return Int32(CLUBHOUSE_OK)
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, length: UnsafeMutablePointer<Int>, timeout: Int32) -> Int32 {
        lock.withLock {
            length.pointee = 0
            guard fd >= 0 else { return fail(.io, "the device is closed") }
            if let (status, message) = takeover { return fail(status, message) }
            if let refusal = refused(.readDevice) { return refusal }
            // In slices, each bounded by the end of the call's grace (ServiceGate.waitBound): a call blocked
            // here ends at its wall-clock limit plus the grace at the latest (issue 27, n11).
            let until = Subprocess.monotonicMilliseconds() + Int64(max(0, timeout))
            var n = 0
            var error: String?
            while true {
                let left = Int(max(0, until - Subprocess.monotonicMilliseconds()))
                let slice = ServiceGate.waitBound(min(left, 250))
                (n, error) = Transport.read(fd, into: buffer, timeoutMilliseconds: Int32(slice), wake: wake)
                if n != 0 || error != nil || takeover != nil { break }
                if let refusal = refused(.readDevice) { return refusal }
                if Subprocess.monotonicMilliseconds() >= until { break }
            }
            if let (status, message) = takeover { return fail(status, message) }
            if let error { return fail(.io, error) }
            if n == 0 { return fail(.timeout, "no reply within \(timeout) ms") }
            length.pointee = n
            traceBytes("<", UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            broker?.safety.noteRead(name, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            return Int32(CLUBHOUSE_OK)
        }
    }

    /// The plugin's safe state for this device (device.h `set_safe_state`).
    func setSafeState(frame: [UInt8], acknowledgement: [UInt8], timeoutMilliseconds: Int32) -> Int32 {
        lock.withLock {
            if let refusal = refused(.deviceSafeState) { return refusal }
            guard (1...256).contains(frame.count), (1...256).contains(acknowledgement.count) else {
                return fail(.invalidArgument, "a safe-state frame and its acknowledgement take 1–256 bytes each")
            }
            guard (1...10_000).contains(timeoutMilliseconds) else {
                return fail(.invalidArgument, "a safe state's timeout takes 1–10000 ms, not \(timeoutMilliseconds)")
            }
            broker?.safety.register(name, SafeState(frame: frame, acknowledgement: acknowledgement,
                                                     timeoutMilliseconds: timeoutMilliseconds), safe: !wrote)
            return Int32(CLUBHOUSE_OK)
        }
    }

    // MARK: what the watchdog does with it (DeviceSafety.swift)

    var isOpen: Bool { stateLock.withLock { !closed } }

    /// The call that opened it, until that call ends.
    var openedBy: UInt64? {
        get { stateLock.withLock { owningCall } }
        set { stateLock.withLock { owningCall = newValue } }
    }

    /// From now on the plugin's writes and reads fail with `status` and `message`; a read waiting
    /// now returns at once.
    func takeOver(_ status: Status, _ message: String) {
        stateLock.withLock { takenOver = (status, message) }
        var one: UInt8 = 1
        if wakeWriter >= 0 { _ = Glibc.write(wakeWriter, &one, 1) }
    }

    /// Writes the safe state's frame and waits for its acknowledgement on this connection.
    func exchange(_ state: SafeState) -> DeviceSafetyBook.Outcome {
        lock.withLock {
            guard fd >= 0 else { return .connectionFailed("the connection is closed") }
            state.frame.withUnsafeBytes { traceBytes("> (host, safe state)", $0) }
            return DeviceSafetyBook.exchange(fd, state)
        }
    }

    /// Closes the device; one that is not in its safe state is put in it first.
    func close(reason: String = "the plugin closed it") {
        if isOpen, takeover == nil, let broker, broker.safety.unsafeState(of: name) != nil {
            broker.secure(self, because: reason, takeOver: false)
        }
        stateLock.withLock { closed = true }
        lock.withLock {
            guard fd >= 0 else { return }
            Glibc.close(fd)
            fd = -1
        }
        broker?.forget(self)
    }
}
