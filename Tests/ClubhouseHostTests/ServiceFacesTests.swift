import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import CSQLite
import XCTest
@testable import ClubhouseHost
@testable import ClubhouseWire
@testable import ClubhouseRunner

/// Each broker is one Swift implementation with two thin faces: the C table an in-process plugin
/// gets and the wire handler an isolated plugin's runner reaches. These tests drive the Swift API,
/// the wire face and (where it needs no loaded plugin) the C face, and compare what they do.
final class ServiceFacesTests: XCTestCase {
    // MARK: log

    /// @unchecked Sendable: `storage` is read and written under `lock`.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [String] = []
        func append(_ line: String) { lock.withLock { storage.append(line) } }
        var all: [String] { lock.withLock { storage } }
    }

    func testLogWireFaceWritesWhatTheSwiftAPIWrites() {
        let direct = Lines(), wired = Lines()
        let a = LogBroker(verbosity: 1, color: false, output: { direct.append($0) })
        let b = LogBroker(verbosity: 1, color: false, output: { wired.append($0) })
        for (level, text) in [(Int32(CLUBHOUSE_LOG_WARNING), "low on balls"), (Int32(CLUBHOUSE_LOG_INFO), "42 shots"),
                              (Int32(CLUBHOUSE_LOG_DEBUG), "hidden at -v")] {
            a.write(level: level, source: "tennis", message: text)
            b.serve(log: LogMessage(level: level, text: text).encode(), source: "tennis", limits: ServiceLimits())
        }
        b.serve(log: [1, 2], source: "tennis", limits: ServiceLimits())  // truncated: ignored
        XCTAssertEqual(direct.all, ["[tennis] warning: low on balls\n", "[tennis] info: 42 shots\n"])
        XCTAssertEqual(wired.all, direct.all)
    }

    // MARK: progress

    /// @unchecked Sendable: only the test's thread reports to it and reads it (the calls run on that thread).
    final class RecordingProgress: ProgressSink, @unchecked Sendable {
        var events: [String] = []
        func begin(label: String, total: UInt64) { events.append("begin \(label) \(total)") }
        func update(done: UInt64) { events.append("update \(done)") }
        func end() { events.append("end") }
        func setUnit(_ unit: ProgressUnit) { events.append("unit \(unit.rawValue)") }
    }

    func testTheProgressUnitReachesTheSinkFromCAndFromTheWireAndUnknownCodesCountItems() {
        let viaC = RecordingProgress(), viaWire = RecordingProgress()
        let table = ServiceTables.shared.progress.pointee
        XCTAssertEqual(Int(table.struct_size), MemoryLayout<clubhouse_progress_service>.size, "the host hands out the whole 1.2 table")
        CallContext(flags: 0, progress: viaC, alias: "p").withCStruct { call in
            table.begin(call, "reading", 2048)
            table.set_unit(call, UInt32(CLUBHOUSE_PROGRESS_UNIT_BYTES))
            table.set_unit(call, 77)
            table.set_unit(nil, UInt32(CLUBHOUSE_PROGRESS_UNIT_BYTES))  // no call: ignored
            table.end(call)
        }
        let callWire = CallContext(flags: 0, progress: viaWire, alias: "p")
        for (stage, label, n) in [(UInt8(0), "reading", UInt64(2048)), (3, "", 1), (3, "", 77), (9, "", 1), (2, "", 0)] {
            let message = ProgressMessage(call: callWire.id, stage: stage, label: label, n: n)
            ProgressBroker.serve(progress: message.encode(), call: callWire, limits: ServiceLimits())
        }
        XCTAssertEqual(viaC.events, ["begin reading 2048", "unit bytes", "unit items", "end"])
        XCTAssertEqual(viaWire.events, viaC.events, "a stage the host does not know (9) is ignored")
    }

    func testProgressReachesTheCallsSinkTheSameWayFromCAndFromTheWire() {
        let direct = RecordingProgress(), viaC = RecordingProgress(), viaWire = RecordingProgress()
        let callDirect = CallContext(flags: 0, progress: direct, alias: "p")
        callDirect.progress.begin(label: "importing", total: 10)
        callDirect.progress.update(done: 4)
        callDirect.progress.end()

        let table = ServiceTables.shared.progress.pointee
        CallContext(flags: 0, progress: viaC, alias: "p").withCStruct { call in
            table.begin(call, "importing", 10)
            table.update(call, 4)
            table.end(call)
        }

        let callWire = CallContext(flags: 0, progress: viaWire, alias: "p")
        for (stage, label, n) in [(UInt8(0), "importing", UInt64(10)), (1, "", 4), (2, "", 0)] {
            let message = ProgressMessage(call: callWire.id, stage: stage, label: label, n: n)
            ProgressBroker.serve(progress: message.encode(), call: callWire, limits: ServiceLimits())
        }
        ProgressBroker.serve(progress: [0, 0, 0], call: callWire, limits: ServiceLimits())  // truncated: ignored

        XCTAssertEqual(direct.events, ["begin importing 10", "update 4", "end"])
        XCTAssertEqual(viaC.events, direct.events)
        XCTAssertEqual(viaWire.events, direct.events)
    }

    // MARK: config

    func testConfigLookupIsSharedByTheHostAndRunnerTables() throws {
        let config = try JSONParser.parse(#"{"physics":{"capture":[0.5,1]},"name":"court 1"}"#)
        let reply = ReplyBuffer()
        XCTAssertEqual(reply.withSink { ConfigLookup.get(in: config, key: "physics.capture.1", reply: $0) }, Int32(CLUBHOUSE_OK))
        XCTAssertEqual(reply.text, "1")
        XCTAssertEqual(ConfigLookup.get(in: config, key: "physics.nothing", reply: nil), Int32(CLUBHOUSE_NOT_FOUND))
    }

    // MARK: storage

    private let ok = Int32(CLUBHOUSE_OK)

    /// One enum for value types on the wire, numbered as storage.h's CLUBHOUSE_TYPE_* and SQLite's.
    func testStorageValueTypesAreTheHeadersAndSQLitesNumbers() {
        let pairs: [(StorageValueType, Int32, Int32)] = [
            (.integer, Int32(CLUBHOUSE_TYPE_INTEGER), SQLITE_INTEGER), (.float, Int32(CLUBHOUSE_TYPE_FLOAT), SQLITE_FLOAT),
            (.text, Int32(CLUBHOUSE_TYPE_TEXT), SQLITE_TEXT), (.blob, Int32(CLUBHOUSE_TYPE_BLOB), SQLITE_BLOB),
            (.null, Int32(CLUBHOUSE_TYPE_NULL), SQLITE_NULL),
        ]
        for (type, header, sqlite) in pairs {
            XCTAssertEqual(type.code, header, "\(type)")
            XCTAssertEqual(type.code, sqlite, "\(type)")
            XCTAssertEqual(StorageValueType(code: header), type)
        }
        XCTAssertEqual(StorageValueType(code: 0), .null, "an unknown number is NULL")
        XCTAssertEqual(StorageValueType(code: 77), .null)
        // A value and a row survive their encoders and decoders.
        var w = WireWriter()
        let values: [WireValue] = [.integer(-9), .float(2.5), .text(Array("é".utf8)), .blob([0, 255]), .null]
        values.forEach { $0.encode(into: &w) }
        var r = WireReader(w.bytes)
        XCTAssertEqual(try values.map { _ in try WireValue.decode(&r) }, values)
        let step = StepRequest(handle: 7, resetFirst: true, binds: [(1, .text([104, 105])), (3, .null)])
        var sw = WireWriter()
        step.encode(into: &sw)
        var sr = WireReader(sw.bytes)
        XCTAssertEqual(try StepRequest.decode(&sr), step)
        var huge = WireWriter()
        huge.u32(1)
        huge.u8(0)
        huge.u32(StepRequest.maximumBinds + 1)
        var hr = WireReader(huge.bytes)
        XCTAssertThrowsError(try StepRequest.decode(&hr), "no statement has more binds than SQLite allows")
    }

    /// Sends one storage service call through the wire face; returns the status and a reader past
    /// the storage tail (message, last rowid, changes), which it returns too.
    private func wire(_ operation: WireOperation, _ service: StorageService, _ statements: inout WireHandles<StorageStatement>,
                      _ build: (inout WireWriter) -> Void = { _ in })
        throws -> (status: Int32, message: String, rowid: Int64, changes: Int64, rest: WireReader)
    {
        var w = WireWriter()
        build(&w)
        var request = WireReader(w.bytes)
        var status: Int32, reply: [UInt8]
        do throws(WireError) {
            let decoded = try StorageRequest.decode(operation, &request)
            (status, reply) = decoded.map { StorageBroker.serve($0, service: service, statements: &statements) }
                ?? (Int32(CLUBHOUSE_INVALID_ARGUMENT), [])
        } catch {
            (status, reply) = StorageBroker.malformed(error, service: service)
        }
        var r = WireReader(reply)
        let message = try r.str()
        let rowid = try r.i64()
        let changes = try r.i64()
        return (status, message, rowid, changes, r)
    }

    func testStorageWireAndCFacesAnswerLikeTheSwiftAPI() throws {
        let directory = NSTemporaryDirectory() + "clubhouse-faces-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try StorageBroker(dataDirectory: directory).open(site: "s", pluginID: "org.x.p", owner: "p")
        defer { db.close() }
        let service = StorageService(database: db)
        var statements = WireHandles<StorageStatement>()

        XCTAssertEqual(service.migrate(version: 1, name: "one",
                                       sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, raw BLOB)"), .ok)
        XCTAssertEqual(service.exec("INSERT INTO t(name, score) VALUES ('ann', 1.5)"), .ok)
        let inserted = try wire(.exec, service, &statements) { $0.str("INSERT INTO t(name, score) VALUES ('bob', 2.5)") }
        XCTAssertEqual(inserted.status, ok)
        XCTAssertEqual(inserted.message, "")
        XCTAssertEqual(inserted.rowid, 2)
        XCTAssertEqual(inserted.changes, 1)

        // One failure, the same status and message from the Swift API and from the wire.
        let refused = service.exec("INSERT INTO _clubhouse_migrations(version, name) VALUES (9, 'x')")
        XCTAssertEqual(refused.status, Int32(CLUBHOUSE_DENIED))
        XCTAssertTrue(refused.message.contains("belongs to the host"), refused.message)
        let refusedOnWire = try wire(.exec, service, &statements) {
            $0.str("INSERT INTO _clubhouse_migrations(version, name) VALUES (9, 'x')")
        }
        XCTAssertEqual(refusedOnWire.status, refused.status)
        XCTAssertEqual(refusedOnWire.message, refused.message)
        let unbalanced = try wire(.commit, service, &statements)
        XCTAssertEqual(unbalanced.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(unbalanced.message, "commit without begin")

        // A query through the wire: prepare, then a step with its bind, the row whole.
        let query = "SELECT name, score, raw FROM t WHERE id = ?"
        let prepared = try wire(.prepare, service, &statements) { $0.str(query) }
        XCTAssertEqual(prepared.status, ok)
        var rest = prepared.rest
        let handle = try rest.u32()
        XCTAssertEqual(try rest.u32(), 3)
        XCTAssertEqual([try rest.str(), try rest.str(), try rest.str()], ["name", "score", "raw"])
        let row = try wire(.step, service, &statements) { w in
            w.u32(handle)
            w.u8(0)
            w.u32(1)
            w.i32(1)
            w.u8(1)
            w.i64(2)
        }
        XCTAssertEqual(row.status, Int32(CLUBHOUSE_ROW))
        rest = row.rest
        XCTAssertEqual(try rest.u32(), 3)
        XCTAssertEqual(Int32(try rest.u8()), Int32(CLUBHOUSE_TYPE_TEXT))
        XCTAssertEqual(try rest.str(), "bob")
        XCTAssertEqual(Int32(try rest.u8()), Int32(CLUBHOUSE_TYPE_FLOAT))
        XCTAssertEqual(try rest.f64(), 2.5)
        XCTAssertEqual(Int32(try rest.u8()), Int32(CLUBHOUSE_TYPE_NULL))

        // The same query through the C face, on a statement the Swift API prepared.
        let (outcome, made) = service.prepare(query)
        XCTAssertEqual(outcome, .ok)
        let statement = try XCTUnwrap(made)
        let table = ServiceTables.shared.storage.pointee
        XCTAssertEqual(table.column_count(statement.handle), 3)
        XCTAssertEqual(table.bind_int64(statement.handle, 1, 2), ok)
        XCTAssertEqual(table.step(statement.handle), Int32(CLUBHOUSE_ROW))
        var length = 0
        let text = try XCTUnwrap(table.column_text(statement.handle, 0, &length))
        XCTAssertEqual(String(cString: text), "bob")
        XCTAssertEqual(length, 3)
        XCTAssertEqual(table.column_double(statement.handle, 1), 2.5)
        XCTAssertEqual(table.column_type(statement.handle, 2), Int32(CLUBHOUSE_TYPE_NULL))
        XCTAssertEqual(table.step(statement.handle), Int32(CLUBHOUSE_DONE))
        XCTAssertEqual(table.bind_int64(statement.handle, 7, 1), Int32(CLUBHOUSE_INVALID_ARGUMENT), "no parameter 7")
        table.finalize(statement.handle)

        // Handles: an unknown one is refused; finalize frees the host's statement.
        let unknown = try wire(.step, service, &statements) { w in
            w.u32(handle + 100)
            w.u8(0)
            w.u32(0)
        }
        XCTAssertEqual(unknown.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(unknown.message, "no such statement")
        var finalize = WireWriter()
        finalize.u32(handle)
        StorageBroker.serveFinalize(finalize.bytes, statements: &statements)
        XCTAssertEqual(statements.count, 0)
        XCTAssertTrue(db.openStatements.isEmpty)

        let malformed = try wire(.migrate, service, &statements) { $0.i32(2) }
        XCTAssertEqual(malformed.status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertTrue(malformed.message.hasPrefix("malformed service call"), malformed.message)
    }

    /// SQL text that is not valid UTF-8 reads the same on every face: an invalid byte is U+FFFD (the fourteenth
    /// outside round's L3: the C face's prepare passed the bytes on as they were, the wire read them as UTF-8).
    func testSQLTextWithAnInvalidByteCompilesTheSameOnEveryFace() throws {
        let directory = NSTemporaryDirectory() + "clubhouse-faces-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try StorageBroker(dataDirectory: directory).open(site: "s", pluginID: "org.x.p", owner: "p")
        defer { db.close() }
        let service = StorageService(database: db)
        let sql: [CChar] = Array("SELECT 'é".utf8CString.dropLast()) + [CChar(bitPattern: 0xFF), CChar(UInt8(ascii: "'")), 0]
        let (outcome, made) = sql.withUnsafeBufferPointer { service.prepare($0.baseAddress!) }
        XCTAssertEqual(outcome, .ok)
        let statement = try XCTUnwrap(made)
        let table = ServiceTables.shared.storage.pointee
        XCTAssertEqual(table.step(statement.handle), Int32(CLUBHOUSE_ROW))
        var length = 0
        let text = try XCTUnwrap(table.column_text(statement.handle, 0, &length))
        let bytes = UnsafeRawBufferPointer(start: text, count: length).map { $0 }
        XCTAssertEqual(bytes, [0xC3, 0xA9, 0xEF, 0xBF, 0xBD], "the C face's text: \(bytes)")
        table.finalize(statement.handle)
        var statements = WireHandles<StorageStatement>()
        let prepared = try wire(.prepare, service, &statements) { $0.str(String(cString: sql)) }
        XCTAssertEqual(prepared.status, ok)
        var rest = prepared.rest
        _ = try rest.u32()
        XCTAssertEqual(try rest.u32(), 1)
        XCTAssertEqual(Array(try rest.str().utf8), Array("'é\u{FFFD}'".utf8), "the wire's column name")
    }

    /// Named parameters and column numbers: the C face asks SQLite; the wire face sends the names
    /// with the prepare and the runner's table answers from them; both agree.
    func testNamedParametersAndColumnIndicesAnswerTheSameOnBothFaces() throws {
        let directory = NSTemporaryDirectory() + "clubhouse-faces-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try StorageBroker(dataDirectory: directory).open(site: "s", pluginID: "org.x.p", owner: "p")
        defer { db.close() }
        let service = StorageService(database: db)
        var statements = WireHandles<StorageStatement>()
        XCTAssertEqual(service.migrate(version: 1, name: "one", sql: "CREATE TABLE shots(id INTEGER PRIMARY KEY, club TEXT, carry REAL)"),
                       .ok)
        XCTAssertEqual(service.exec("INSERT INTO shots(club, carry) VALUES ('7i', 151.5), ('PW', 112.0)"), .ok)
        let query = "SELECT id, club, carry AS distance FROM shots WHERE club = :club AND carry > @least AND id <> ? AND club = :club"

        // C face.
        let table = ServiceTables.shared.storage.pointee
        XCTAssertEqual(Int(table.struct_size), MemoryLayout<clubhouse_storage_service>.size)
        let (outcome, made) = service.prepare(query)
        XCTAssertEqual(outcome, .ok)
        let statement = try XCTUnwrap(made)
        defer { table.finalize(statement.handle) }
        XCTAssertEqual(table.bind_parameter_count(statement.handle), 3, ":club twice is one parameter")
        XCTAssertEqual(table.bind_parameter_index(statement.handle, ":club"), 1)
        XCTAssertEqual(table.bind_parameter_index(statement.handle, "@least"), 2)
        XCTAssertEqual(table.bind_parameter_index(statement.handle, "club"), 0, "the prefix is part of the name")
        XCTAssertEqual(table.bind_parameter_index(statement.handle, ":nothing"), 0)
        XCTAssertEqual(table.bind_parameter_name(statement.handle, 2).map { String(cString: $0) }, "@least")
        XCTAssertNil(table.bind_parameter_name(statement.handle, 3), "a nameless ? has no name")
        XCTAssertNil(table.bind_parameter_name(statement.handle, 9))
        XCTAssertEqual(table.column_count(statement.handle), 3, "known before any step")
        XCTAssertEqual(table.column_index(statement.handle, "distance"), 2)
        XCTAssertEqual(table.column_index(statement.handle, "carry"), -1, "the alias names the column")
        XCTAssertEqual(table.bind_text(statement.handle, table.bind_parameter_index(statement.handle, ":club"), "7i", 2), ok)
        XCTAssertEqual(table.bind_double(statement.handle, table.bind_parameter_index(statement.handle, "@least"), 100), ok)
        XCTAssertEqual(table.bind_int64(statement.handle, 3, 99), ok)
        XCTAssertEqual(table.step(statement.handle), Int32(CLUBHOUSE_ROW))
        XCTAssertEqual(table.column_double(statement.handle, table.column_index(statement.handle, "distance")), 151.5)

        // Wire face: the prepare reply carries column names, then parameter names ("" for ?).
        let prepared = try wire(.prepare, service, &statements) { $0.str(query) }
        XCTAssertEqual(prepared.status, ok)
        var rest = prepared.rest
        _ = try rest.u32()
        XCTAssertEqual(try rest.u32(), 3)
        XCTAssertEqual([try rest.str(), try rest.str(), try rest.str()], ["id", "club", "distance"])
        XCTAssertEqual(try rest.u32(), 3)
        XCTAssertEqual([try rest.str(), try rest.str(), try rest.str()], [":club", "@least", ""])
        XCTAssertGreaterThan(try rest.i64(), 0, "what SQLite holds for the statement")
        XCTAssertEqual(rest.offset, rest.bytes.count)

        // A statement the runner resets while it stands on a row is rewound at once by the
        // one-way reset frame (no read snapshot held, no COMMIT kept waiting).
        var parsed = prepared.rest
        let wireHandle = try parsed.u32()
        let stepped = try wire(.step, service, &statements) { w in
            w.u32(wireHandle)
            w.u8(0)
            w.u32(3)
            w.i32(1); w.u8(3); w.data(Array("7i".utf8))
            w.i32(2); w.u8(2); w.f64(100)
            w.i32(3); w.u8(1); w.i64(99)
        }
        XCTAssertEqual(stepped.status, Int32(CLUBHOUSE_ROW))
        let hostStatement = try XCTUnwrap(statements[wireHandle])
        XCTAssertNotEqual(sqlite3_stmt_busy(hostStatement.record.pointee.stmt), 0)
        var reset = WireWriter()
        reset.u32(wireHandle)
        StorageBroker.serveReset(reset.bytes, statements: statements)
        XCTAssertEqual(sqlite3_stmt_busy(hostStatement.record.pointee.stmt), 0)
        XCTAssertEqual(sqlite3_column_count(hostStatement.record.pointee.stmt), 3)

        // The runner's table answers from those names, as the C face does.
        let proxy = ProxyTables.makeStorage()
        let names = ["id", "club", "distance"]
        let runnerStatement = ProxyStatement(context: RunnerContext(channel: WireChannel(input: -1, output: -1)),
                                             prepared: PreparedReply(handle: 1, columns: names, parameters: [":club", "@least", ""],
                                                                     compiledBytes: 0))
        let handle = OpaquePointer(Unmanaged.passRetained(runnerStatement).toOpaque())
        defer { Unmanaged<ProxyStatement>.fromOpaque(UnsafeRawPointer(handle)).release() }
        for name in [":club", "@least", "club", ":nothing"] {
            XCTAssertEqual(proxy.bind_parameter_index(handle, name), table.bind_parameter_index(statement.handle, name), name)
        }
        XCTAssertEqual(proxy.bind_parameter_count(handle), 3)
        XCTAssertEqual(proxy.bind_parameter_name(handle, 1).map { String(cString: $0) }, ":club")
        XCTAssertNil(proxy.bind_parameter_name(handle, 3))
        XCTAssertNil(proxy.bind_parameter_name(handle, 0))
        XCTAssertEqual(proxy.column_index(handle, "distance"), 2)
        XCTAssertEqual(proxy.column_index(handle, "carry"), -1)
        XCTAssertEqual(proxy.column_count(handle), 3)
    }

    // MARK: devices

    func testDeviceWireFaceOpensWritesAndReadsThroughTheBroker() throws {
        let site = Site(name: "s", description: "", plugins: [], devices: [
            "ballmachine": DeviceEntry(name: "ballmachine", transport: .simulator(kind: "ballmachine"), trace: false,
                                       connectTimeoutMilliseconds: 500, options: ["checksum": "xor"]),
        ])
        let broker = DeviceBroker(site: site, log: LogBroker(verbosity: 0, color: false))
        defer { broker.closeAll() }
        let entry = PluginEntry(alias: "tennis", id: nil, enabled: true, path: nil, versionRequirement: nil, config: [:],
                                grants: [.device("ballmachine")], isolation: .inProcess, timeoutMilliseconds: 1000,
                                location: SourceLocation(line: 1, column: 1, offset: 0))
        var devices = WireHandles<DeviceConnection>()
        func call(_ operation: WireOperation, _ build: (inout WireWriter) -> Void) throws -> (Int32, WireReader) {
            try broker.answer(operation, entry: entry, devices: &devices, build)
        }

        // Refusals read the same as the Swift API's.
        var swiftMessage = ""
        do { _ = try broker.open(name: "nothere", for: entry) } catch { swiftMessage = error.message }
        var (status, reply) = try call(.deviceOpen) { $0.str("nothere") }
        XCTAssertEqual(status, Int32(CLUBHOUSE_DENIED))
        XCTAssertEqual(try reply.str(), swiftMessage)

        (status, reply) = try call(.deviceOpen) { $0.str("ballmachine") }
        XCTAssertEqual(status, ok)
        XCTAssertEqual(try reply.str(), "")
        let handle = try reply.u32()

        var frame: [UInt8] = [0x5A, 0xA5, 0x83, 60, 50, 40, 75, 50, 1]
        frame.append(xorCheck(frame[0..<9]))
        (status, reply) = try call(.deviceWrite) { w in
            w.u32(handle)
            w.data(frame)
        }
        XCTAssertEqual(status, ok)
        var received: [UInt8] = []
        while received.count < 10 {
            (status, reply) = try call(.deviceRead) { w in
                w.u32(handle)
                w.u32(64)
                w.i32(2000)
            }
            XCTAssertEqual(status, ok)
            XCTAssertEqual(try reply.str(), "")
            received += try reply.data()
        }
        XCTAssertEqual(Array(received[0..<5]), [0x5A, 0xA5, 0x82, 0x01, xorCheck([0x5A, 0xA5, 0x82, 0x01])])
        // A runner asking for 4 GB in one read gets a 1 MB buffer (its own proxy asks for no more).
        XCTAssertEqual(DeviceBroker.wireReadCapacity(UInt32.max), 1 << 20)
        XCTAssertEqual(DeviceBroker.wireReadCapacity(0), 1)
        XCTAssertEqual(DeviceBroker.wireReadCapacity(64), 64)
        (status, reply) = try call(.deviceRead) { w in
            w.u32(handle)
            w.u32(UInt32.max)
            w.i32(20)
        }
        XCTAssertEqual(status, Int32(CLUBHOUSE_TIMEOUT))
        XCTAssertEqual(try reply.str(), "ballmachine (simulator:ballmachine): no reply within 20 ms")
        XCTAssertEqual(try reply.data(), [])

        // Closed through the wire: the handle is gone, the connection closed.
        let connection = try XCTUnwrap(devices[handle])
        var close = WireWriter()
        close.u32(handle)
        DeviceBroker.serveClose(close.bytes, devices: &devices)
        XCTAssertEqual(devices.count, 0)
        XCTAssertEqual(frame.withUnsafeBytes { connection.write($0) }, Int32(CLUBHOUSE_IO))
        XCTAssertEqual(connection.lastError, "ballmachine (simulator:ballmachine): the device is closed")
        // The C face reads the same message through its pointer.
        let pointer = OpaquePointer(Unmanaged.passUnretained(connection).toOpaque())
        XCTAssertEqual(ServiceTables.shared.device.pointee.last_error(pointer).map { String(cString: $0) }, connection.lastError)
        (status, reply) = try call(.deviceWrite) { w in
            w.u32(handle)
            w.data([1])
        }
        XCTAssertEqual(status, Int32(CLUBHOUSE_INVALID_ARGUMENT))
        XCTAssertEqual(try reply.str(), "no such device handle")
    }
}
