// The service tables a plugin sees inside a runner: the same C functions as in process, each one
// forwarded to the host over the wire (messages: WireMessages.swift). Config is answered locally
// (sent with create), binds travel with the next step, and a row arrives whole with its step, so
// a query costs one round trip per row. Log and progress are one-way; progress updates are thinned
// to 20 a second.
//
// One behaviour per service: what the runner answers by itself it answers as the host would in
// process. It applies the plugin's limits (ServiceLimits) where the host applies them, refuses a
// bind where SQLite would (a statement stepped since its reset, an index out of range), and reads a
// column as another type through SQLite's own conversions (ValueConverter), so column_text of an
// INTEGER is "42" here as in process. ServiceConformanceEndToEndTests compares the two, byte for byte.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import CSQLite
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

/// @unchecked Sendable: the tables are built once and never change; the context they reach guards
/// its own state.
final class ProxyTables: @unchecked Sendable {
    let context: RunnerContext
    let tables: ServiceTableSet

    /// The lane the calling thread serves (a concurrent command's), else the main one.
    static func context(_ host: UnsafePointer<clubhouse_host>?) -> RunnerContext? {
        context(host, RunningCall.current)
    }

    /// The lane of `entry` (what the calling thread runs, already looked up), else the main one.
    static func context(_ host: UnsafePointer<clubhouse_host>?, _ entry: RunningCall.Entry?) -> RunnerContext? {
        guard let data = host?.pointee.host_data else { return nil }
        return entry?.context ?? Unmanaged<ProxyTables>.fromOpaque(data).takeUnretainedValue().context
    }

    /// `body` with the context of the calling thread's call, looked up once for the thread wall and the
    /// lane; CLUBHOUSE_UNSUPPORTED (RunningCall.refuse) on a thread that runs none, INVALID_ARGUMENT
    /// without a host.
    static func serve(_ what: String, _ host: UnsafePointer<clubhouse_host>?, reply: UnsafePointer<clubhouse_reply>? = nil,
                      _ body: (RunnerContext) -> Int32) -> Int32 {
        guard let entry = RunningCall.current else { return RunningCall.refuse(what, reply: reply) }
        guard let c = context(host, entry) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        return body(c)
    }

    /// `body` with the statement `stmt` when the calling thread runs a call on the lane the statement was
    /// prepared on; CLUBHOUSE_UNSUPPORTED on a thread that runs none (RunningCall.refuse) and on a concurrent
    /// command's lane for a statement of the main one. Statements are the main lane's (the second lane has
    /// no storage: the host answers its prepare `unsupported`), and a statement's calls go on its lane's
    /// pipe: a concurrent command that stepped or bound another call's statement wrote on the pipes beside
    /// that call, and the host ran its INSERT, bound its values or held it up inside that call (the fourteenth
    /// outside round's L1 and L2).
    static func statement(_ what: String, _ stmt: OpaquePointer?, _ body: (ProxyStatement) -> Int32) -> Int32 {
        let (entry, refused) = RunningCall.serving(what)
        if let refused { return refused }
        guard let s = ProxyStatement.from(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        if let lane = entry?.context, lane !== s.context {
            return RunningCall.refuseOnLane(what)
        }
        return body(s)
    }

    static func callContext(_ call: UnsafePointer<clubhouse_call>?) -> RunnerContext? {
        guard let data = call?.pointee.host_data else { return nil }
        return Unmanaged<RunnerContext>.fromOpaque(data).takeUnretainedValue()
    }

    init(context: RunnerContext) {
        self.context = context
        let log = clubhouse_log_service(
            struct_size: UInt32(MemoryLayout<clubhouse_log_service>.size),
            write: { host, level, message in
                guard let c = ProxyTables.context(host), let message, level <= c.logThreshold else { return }
                // Cut at log_kb here, as the host's C face cuts it (reading no more of it).
                let text = LimitRefusal.cut(cString: message, limit: c.limits.logBytes, key: "log_kb")
                try? c.channel.send(.log, LogMessage(level: level, text: text).encode())
            },
            enabled: { host, level in
                guard let c = ProxyTables.context(host) else { return 0 }
                return level <= c.logThreshold ? 1 : 0
            })
        let config = clubhouse_config_service(
            struct_size: UInt32(MemoryLayout<clubhouse_config_service>.size),
            get: { host, key, reply in
                guard let c = ProxyTables.context(host), let key else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ConfigLookup.get(in: c.config, key: String(cString: key), reply: reply)
            })
        let progress = clubhouse_progress_service(
            struct_size: UInt32(MemoryLayout<clubhouse_progress_service>.size),
            begin: { call, label, total in
                guard RunningCall.refusal("progress begin", call: call, checkCall: true) == nil, let c = ProxyTables.callContext(call) else { return }
                let text = label.map { LimitRefusal.cut(cString: $0, limit: c.limits.progressBytes, key: "progress_kb") } ?? ""
                ProxyTables.sendProgress(call, .begin, text, total)
            },
            update: { call, done in
                guard RunningCall.refusal("progress update", call: call, checkCall: true) == nil, let c = ProxyTables.callContext(call), let id = call?.pointee.id, c.progressDue(id) else { return }
                ProxyTables.sendProgress(call, .update, "", done)
            },
            end: { call in
                guard RunningCall.refusal("progress end", call: call, checkCall: true) == nil else { return }
                ProxyTables.sendProgress(call, .end, "", 0)
            },
            set_unit: { call, unit in
                guard RunningCall.refusal("progress set_unit", call: call, checkCall: true) == nil else { return }
                ProxyTables.sendProgress(call, .unit, "", UInt64(unit))
            })
        let invoke = clubhouse_invoke_service(
            struct_size: UInt32(MemoryLayout<clubhouse_invoke_service>.size),
            invoke: { host, call, alias, command, request, length, reply in
                let (entry, refused) = RunningCall.serving("invoke", call: call, checkCall: true, reply: reply)
                if let refused { return refused }
                guard let c = ProxyTables.context(host, entry), let alias, let command else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let body = request.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let message = InvokeRequest(call: call?.pointee.id ?? 0, plugin: String(cString: alias), command: String(cString: command),
                                            request: body)
                let (status, r0) = c.call(.invoke) { message.encode(into: &$0) }
                var r = r0
                reply?.write(bytes: InvokeRequest.decodeReply(&r))
                return status
            })
        let storage = ProxyTables.makeStorage()
        let device = ProxyTables.makeDevice()
        let files = clubhouse_files_service(
            struct_size: UInt32(MemoryLayout<clubhouse_files_service>.size),
            open_argument: { call, name, access, fd, reply in
                fd?.pointee = -1
                if let refused = RunningCall.refusal("files open_argument", call: call, checkCall: true, reply: reply) { return refused }
                guard let name, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.openFile(call, String(cString: name), nil, access, fd, reply)
            },
            open_beneath: { call, name, relative, fd, reply in
                fd?.pointee = -1
                if let refused = RunningCall.refusal("files open_beneath", call: call, checkCall: true, reply: reply) { return refused }
                guard let name, let relative, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.openFile(call, String(cString: name), String(cString: relative), UInt32(CLUBHOUSE_FILE_READ), fd, reply)
            })
        let events = clubhouse_events_service(
            struct_size: UInt32(MemoryLayout<clubhouse_events_service>.size),
            publish: { host, call, topic, json, length, reply in
                // The host checks the topic and the JSON, as in process; the runner only carries them.
                let (entry, refused) = RunningCall.serving("events publish", call: call, checkCall: true, reply: reply)
                if let refused { return refused }
                guard let c = ProxyTables.context(host, entry), let id = call?.pointee.id, ProxyTables.callContext(call) != nil, let topic else {
                    reply?.write("events: publish needs the running call and a topic")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                let bytes = json.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                guard bytes.count <= c.limits.serviceCallBytes - WireCaps.framing else {
                    reply?.write("events: the event on '\(String(cString: topic))' is \(bytes.count) bytes; an event is at most \(CLUBHOUSE_EVENT_MAX_BYTES) bytes")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                let request = EventPublishRequest(call: id, topic: String(cString: topic), json: bytes)
                let (status, r0) = c.call(.publish) { request.encode(into: &$0) }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { reply?.write(MessageReply.decode(&r).message) }
                return status
            })
        let publish = clubhouse_publish_service(
            struct_size: UInt32(MemoryLayout<clubhouse_publish_service>.size),
            publish: { host, call, topic, key, json, length, reply in
                // The host checks the topic, the key and the body and writes the record in the
                // transaction it keeps for this plugin, as in process; the runner only carries them.
                let (entry, refused) = RunningCall.serving("publish", call: call, checkCall: true, reply: reply)
                if let refused { return refused }
                guard let c = ProxyTables.context(host, entry), let id = call?.pointee.id, ProxyTables.callContext(call) != nil, let topic, let key else {
                    reply?.write("publish: needs the running call, a topic and a key")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                guard length <= c.limits.serviceCallBytes - WireCaps.framing - 1024 else {
                    reply?.write("publish: the record on '\(String(cString: topic))' is \(length) bytes; a record's body is at most \(CLUBHOUSE_RECORD_MAX_BYTES) bytes in canonical form")
                    return Int32(CLUBHOUSE_INVALID_ARGUMENT)
                }
                let bytes = json.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let request = RecordPublishRequest(call: id, topic: String(cString: topic), key: String(cString: key), json: bytes)
                let (status, r0) = c.call(.record) { request.encode(into: &$0) }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { reply?.write(MessageReply.decode(&r).message) }
                return status
            })
        tables = ServiceTableSet(log: log, config: config, storage: storage, progress: progress, invoke: invoke, device: device,
                                 files: files, events: events, publish: publish)
    }

    /// The files service through the wire: the host opens, the descriptor comes back with the reply.
    static func openFile(_ call: UnsafePointer<clubhouse_call>?, _ name: String, _ relative: String?, _ access: UInt32,
                         _ fd: UnsafeMutablePointer<Int32>, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        fd.pointee = -1
        guard let c = callContext(call), let id = call?.pointee.id else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        let request = FileOpenRequest(call: id, name: name, relative: relative, access: access)
        let (status, r0, descriptor) = c.callForDescriptor(.fileOpen) { request.encode(into: &$0) }
        var r = r0
        let message = MessageReply.decode(&r).message
        guard status == Int32(CLUBHOUSE_OK) else {
            if descriptor >= 0 { close(descriptor) }
            reply?.write(message)
            return status
        }
        guard descriptor >= 0 else {
            reply?.write("the host opened '\(name)' but its descriptor did not arrive (is the open-files limit reached?)")
            return Int32(CLUBHOUSE_IO)
        }
        fd.pointee = descriptor
        return status
    }

    static func sendProgress(_ call: UnsafePointer<clubhouse_call>?, _ stage: ProgressMessage.Stage, _ label: String, _ n: UInt64) {
        guard let c = callContext(call), let id = call?.pointee.id else { return }
        try? c.channel.send(.progress, ProgressMessage(call: id, stage: stage.rawValue, label: label, n: n).encode())
    }

    /// The table for a service id: nil for a service the site did not grant.
    func table(for id: String) -> UnsafeRawPointer? {
        if ServiceTableSet.granted.contains(id) && !context.granted.contains(id) { return nil }
        return tables.table(for: id)
    }

    // MARK: storage

    static func simple(_ c: RunnerContext, _ request: StorageRequest, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        let (status, r0) = c.call(request.operation) { request.encode(into: &$0) }
        var r = r0
        c.absorbStorageReply(status, &r, into: reply)
        return status
    }

    /// SQL over the plugin's `sql_kb` is refused here, as the host refuses it (it is never sent).
    static func refuseSQL(_ c: RunnerContext, _ sql: UnsafePointer<CChar>, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32? {
        let length = strnlen(sql, c.limits.sqlBytes + 1)
        guard length > c.limits.sqlBytes else { return nil }
        let message = LimitRefusal.sqlBytes(c.alias, c.limits)
        c.setError(message)
        reply?.write(message)
        return Int32(CLUBHOUSE_DENIED)
    }

    static func makeStorage() -> clubhouse_storage_service {
        clubhouse_storage_service(
            struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
            exec: { host, sql, reply in
                ProxyTables.serve("storage exec", host, reply: reply) { c in
                    guard let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                    if let refusal = ProxyTables.refuseSQL(c, sql, reply) { return refusal }
                    return ProxyTables.simple(c, .exec(sql: String(cString: sql)), reply)
                }
            },
            prepare: { host, sql, out, reply in
                out?.pointee = nil
                let (entry, refused) = RunningCall.serving("storage prepare", reply: reply)
                if let refused { return refused }
                guard let c = ProxyTables.context(host, entry), let sql, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                if let refusal = ProxyTables.refuseSQL(c, sql, reply) { return refusal }
                let request = StorageRequest.prepare(sql: String(cString: sql))
                let (status, r0) = c.call(.prepare) { request.encode(into: &$0) }
                var r = r0
                c.absorbStorageReply(status, &r, into: reply)
                guard status == Int32(CLUBHOUSE_OK), let prepared = try? PreparedReply.decode(&r) else { return status }
                let statement = ProxyStatement(context: c, prepared: prepared)
                out.pointee = OpaquePointer(Unmanaged.passRetained(statement).toOpaque())
                return status
            },
            bind_null: { stmt, index in
                ProxyTables.statement("storage bind_null", stmt) { $0.bind(index, .null) }
            },
            bind_int64: { stmt, index, v in
                ProxyTables.statement("storage bind_int64", stmt) { $0.bind(index, .integer(v)) }
            },
            bind_double: { stmt, index, v in
                ProxyTables.statement("storage bind_double", stmt) { $0.bind(index, .float(v)) }
            },
            bind_text: { stmt, index, text, length in
                ProxyTables.statement("storage bind_text", stmt) { s in
                    guard let text else { return s.bind(index, .null) }
                    return s.bind(index, .text(Array(UnsafeRawBufferPointer(start: text, count: length))))
                }
            },
            bind_blob: { stmt, index, bytes, length in
                ProxyTables.statement("storage bind_blob", stmt) { s in
                    s.bind(index, .blob(bytes == nil ? [] : Array(UnsafeRawBufferPointer(start: bytes, count: length))))
                }
            },
            step: { stmt in ProxyTables.statement("storage step", stmt) { $0.step() } },
            reset: { stmt in ProxyTables.statement("storage reset", stmt) { $0.reset() } },
            // Finalize only releases (the host drops the statement with the next frames it reads): allowed
            // from any thread, as refusing it would leave the statement held for the runner's life.
            finalize: { stmt in
                guard let stmt else { return }
                let s = Unmanaged<ProxyStatement>.fromOpaque(UnsafeRawPointer(stmt))
                s.takeUnretainedValue().finalize()
                s.release()
            },
            column_count: { stmt in Int32(ProxyStatement.from(stmt)?.names.count ?? 0) },
            column_type: { stmt, column in
                ProxyStatement.from(stmt)?.type(column)?.code ?? StorageValueType.null.code
            },
            column_name: { stmt, column in
                guard let s = ProxyStatement.from(stmt), s.names.indices.contains(Int(column)) else { return nil }
                return s.names[Int(column)].pointer
            },
            column_int64: { stmt, column in ProxyStatement.from(stmt)?.int64(column) ?? 0 },
            column_double: { stmt, column in ProxyStatement.from(stmt)?.double(column) ?? 0 },
            column_text: { stmt, column, length in
                guard let (pointer, count) = ProxyStatement.from(stmt)?.text(column) else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = count
                return pointer
            },
            column_blob: { stmt, column, length in
                guard let (pointer, count) = ProxyStatement.from(stmt)?.text(column, asText: false), count > 0 else {
                    // SQLite answers a blob of no bytes (and NULL) with a null pointer.
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = count
                return UnsafeRawPointer(pointer)
            },
            begin: { host, reply in ProxyTables.serve("storage begin", host, reply: reply) { ProxyTables.simple($0, .begin, reply) } },
            commit: { host, reply in ProxyTables.serve("storage commit", host, reply: reply) { ProxyTables.simple($0, .commit, reply) } },
            rollback: { host in ProxyTables.serve("storage rollback", host) { ProxyTables.simple($0, .rollback, nil) } },
            // A call's own figures and message: another thread reads none of them.
            last_insert_rowid: { host in RunningCall.current.map { ProxyTables.context(host, $0)?.lastInsertRowID ?? 0 } ?? 0 },
            changes: { host in RunningCall.current.map { ProxyTables.context(host, $0)?.changes ?? 0 } ?? 0 },
            last_error: { host in
                guard let entry = RunningCall.current else { return RunningCall.lastError.pointer }
                return ProxyTables.context(host, entry)?.lastErrorPointer
            },
            migrate: { host, version, name, sql, reply in
                ProxyTables.serve("storage migrate", host, reply: reply) { c in
                    guard let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                    if let refusal = ProxyTables.refuseSQL(c, sql, reply) { return refusal }
                    return ProxyTables.simple(c, .migrate(version: version, name: String(cString: name), sql: String(cString: sql)), reply)
                }
            },
            // Answered in the runner from the names the prepare brought back.
            bind_parameter_index: { stmt, name in
                guard let s = ProxyStatement.from(stmt), let name else { return 0 }
                return s.parameterIndex(String(cString: name))
            },
            bind_parameter_count: { stmt in Int32(ProxyStatement.from(stmt)?.parameters.count ?? 0) },
            bind_parameter_name: { stmt, index in
                guard let s = ProxyStatement.from(stmt), index >= 1, s.parameters.indices.contains(Int(index - 1)),
                      !s.parameters[Int(index - 1)].isEmpty else { return nil }
                return s.parameters[Int(index - 1)].pointer
            },
            column_index: { stmt, name in
                guard let s = ProxyStatement.from(stmt), let name else { return -1 }
                return s.columnIndex(String(cString: name))
            })
    }

    // MARK: devices

    static func makeDevice() -> clubhouse_device_service {
        clubhouse_device_service(
            struct_size: UInt32(MemoryLayout<clubhouse_device_service>.size),
            open: { host, name, out, reply in
                out?.pointee = nil
                let (entry, refused) = RunningCall.serving("device open", reply: reply)
                if let refused { return refused }
                guard let c = ProxyTables.context(host, entry), let name, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let request = DeviceRequest.open(name: String(cString: name))
                let (status, r0) = c.call(request.operation) { request.encode(into: &$0) }
                var r = r0
                let answer = DeviceReply.decode(request.operation, &r)
                guard status == Int32(CLUBHOUSE_OK) else {
                    reply?.write(answer.message)
                    return status
                }
                out.pointee = OpaquePointer(Unmanaged.passRetained(ProxyDevice(context: c, handle: answer.handle, address: answer.address)).toOpaque())
                return status
            },
            write: { device, bytes, length in
                if let refused = RunningCall.refusal("device write") { return refused }
                guard let d = ProxyDevice.from(device) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let request = DeviceRequest.write(handle: d.handle, bytes: bytes == nil ? [] : Array(UnsafeRawBufferPointer(start: bytes, count: length)))
                let (status, r0) = d.context.call(request.operation) { request.encode(into: &$0) }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { d.lastError = PinnedCString(DeviceReply.decode(request.operation, &r).message) }
                return status
            },
            read: { device, buffer, capacity, length, timeout in
                length?.pointee = 0
                if let refused = RunningCall.refusal("device read") { return refused }
                guard let d = ProxyDevice.from(device), let buffer, let length else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let request = DeviceRequest.read(handle: d.handle, capacity: UInt32(min(capacity, DeviceRequest.maximumRead)),
                                                 timeoutMilliseconds: timeout)
                let (status, r0) = d.context.call(request.operation) { request.encode(into: &$0) }
                var r = r0
                let answer = DeviceReply.decode(request.operation, &r)
                let n = min(answer.bytes.count, capacity)
                if n > 0 { answer.bytes.withUnsafeBufferPointer { $0.baseAddress.map { buffer.update(from: $0, count: n) } } }
                length.pointee = n
                if status != Int32(CLUBHOUSE_OK) { d.lastError = PinnedCString(answer.message) }
                return status
            },
            last_error: { device in
                ProxyDevice.from(device)?.lastError.pointer
            },
            // Close only makes the device safe and releases it: allowed from any thread.
            close: { device in
                guard let device else { return }
                let d = Unmanaged<ProxyDevice>.fromOpaque(UnsafeRawPointer(device))
                try? d.takeUnretainedValue().context.channel.send(.deviceClose, HandleMessage(handle: d.takeUnretainedValue().handle).encode())
                d.release()
            },
            set_safe_state: { device, frame, frameLength, acknowledgement, acknowledgementLength, timeout in
                if let refused = RunningCall.refusal("device set_safe_state") { return refused }
                guard let d = ProxyDevice.from(device), let frame, let acknowledgement else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let request = DeviceRequest.safeState(handle: d.handle,
                                                      frame: Array(UnsafeRawBufferPointer(start: frame, count: frameLength)),
                                                      acknowledgement: Array(UnsafeRawBufferPointer(start: acknowledgement, count: acknowledgementLength)),
                                                      timeoutMilliseconds: timeout)
                let (status, r0) = d.context.call(request.operation) { request.encode(into: &$0) }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { d.lastError = PinnedCString(DeviceReply.decode(request.operation, &r).message) }
                return status
            },
            address: { device in
                ProxyDevice.from(device)?.address.pointer
            })
    }
}

/// A prepared statement living in the host. Binds wait here until the next step; the values of
/// the row the last step brought are kept here, and read as another type through SQLite.
final class ProxyStatement {
    let context: RunnerContext
    let handle: UInt32
    let names: [PinnedCString]
    /// Parameter names with their prefix; empty for "?".
    let parameters: [PinnedCString]
    private let parameterIndices: [String: Int32]
    private let columnIndices: [String: Int32]
    /// What SQLite holds for the compiled statement in the host (counted against `statement_mb`).
    let compiledBytes: Int

    /// Binds made since the last step, by index (a later bind of the same index replaces it).
    private var pending: [(index: Int32, value: WireValue)] = []
    private var pendingAt: [Int32: Int] = [:]
    private var pendingReset = false
    /// Stepped since the last reset: SQLite refuses binds until the statement is reset.
    private var stepped = false
    /// The last step answered a row (the host's statement is still running).
    private var onRow = false
    /// Text or blobs were bound in the host by a step since the last reset.
    private var hostBound = false
    /// Bytes of text and blobs bound at each index (as the host counts them: StatementRecord).
    private var boundByIndex: [Int] = []
    private var boundBytes = 0
    /// The row the last step brought; its text and blobs stay where column_text and column_blob point until
    /// the next step, reset or finalize (storage.h), in one buffer for the row (ProxyRow).
    private let row = ProxyRow()

    init(context: RunnerContext, prepared: PreparedReply) {
        self.context = context
        handle = prepared.handle
        names = prepared.columns.map { PinnedCString($0) }
        parameters = prepared.parameters.map { PinnedCString($0) }
        compiledBytes = Int(prepared.compiledBytes)
        var byName: [String: Int32] = [:]
        for (i, name) in prepared.parameters.enumerated() where !name.isEmpty && byName[name] == nil { byName[name] = Int32(i + 1) }
        parameterIndices = byName
        var columns: [String: Int32] = [:]
        for (i, name) in prepared.columns.enumerated() where columns[name] == nil { columns[name] = Int32(i) }
        columnIndices = columns
        context.hold(compiledBytes)
    }

    func parameterIndex(_ name: String) -> Int32 { parameterIndices[name] ?? 0 }
    func columnIndex(_ name: String) -> Int32 { columnIndices[name] ?? -1 }

    static func from(_ stmt: OpaquePointer?) -> ProxyStatement? {
        stmt.map { Unmanaged<ProxyStatement>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }

    private func bound(at index: Int32) -> Int {
        index >= 1 && Int(index) < boundByIndex.count ? boundByIndex[Int(index)] : 0
    }

    /// A bind, refused where the host would refuse it in process: the limits first (as
    /// StorageStatement checks them before SQLite sees the value), then SQLite's own checks.
    func bind(_ index: Int32, _ value: WireValue) -> Int32 {
        let limits = context.limits
        let old = bound(at: index)
        let bytes = value.byteCount
        if value.type == .text || value.type == .blob {
            let statementTotal = boundBytes - old + bytes
            if statementTotal > limits.bindBytes {
                context.setError(LimitRefusal.bindBytes(context.alias, limits, wanted: statementTotal))
                return Int32(CLUBHOUSE_DENIED)
            }
            let held = context.heldBytes - old + bytes
            if bytes > old && held > limits.statementBytes {
                context.setError(LimitRefusal.statementBytes(context.alias, limits, wanted: Int64(held)))
                return Int32(CLUBHOUSE_DENIED)
            }
        }
        // SQLite's messages for SQLITE_MISUSE and SQLITE_RANGE (sqlite3ErrStr), as the host reports them.
        if stepped {
            context.setError(String(cString: sqlite3_errstr(SQLITE_MISUSE)))
            return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        }
        guard index >= 1, Int(index) <= parameters.count else {
            context.setError(String(cString: sqlite3_errstr(SQLITE_RANGE)))
            return Int32(CLUBHOUSE_INVALID_ARGUMENT)
        }
        if bytes > 0 || old > 0 {
            if boundByIndex.isEmpty { boundByIndex = [Int](repeating: 0, count: parameters.count + 1) }
            boundByIndex[Int(index)] = bytes
            boundBytes += bytes - old
            context.hold(bytes - old)
        }
        if let at = pendingAt[index] {
            pending[at].value = value
        } else {
            pendingAt[index] = pending.count
            pending.append((index, value))
        }
        return Int32(CLUBHOUSE_OK)
    }

    func step() -> Int32 {
        let request = StepRequest(handle: handle, resetFirst: pendingReset, binds: pending)
        if pending.contains(where: { $0.value.byteCount > 0 }) { hostBound = true }
        pendingReset = false
        pending.removeAll(keepingCapacity: true)
        pendingAt.removeAll(keepingCapacity: true)
        stepped = true
        let (status, r0) = context.call(.step) { request.encode(into: &$0) }
        var r = r0
        context.absorbStorageReply(status, &r, into: nil)
        onRow = status == Int32(CLUBHOUSE_ROW)
        if onRow { row.load(&r) } else { row.clear() }
        return status
    }

    func reset() -> Int32 {
        if onRow || hostBound {
            // Left on a row, the host's statement would hold a read snapshot (and keep a COMMIT of
            // the same transaction waiting) until its next step; bound values it holds count against
            // the plugin's limits: rewind it now, one way, no round trip.
            try? context.channel.send(.resetStatement, HandleMessage(handle: handle).encode())
            pendingReset = false
        } else {
            pendingReset = stepped
        }
        clearBindings()
        stepped = false
        onRow = false
        hostBound = false
        row.clear()
        return Int32(CLUBHOUSE_OK)
    }

    func finalize() {
        try? context.channel.send(.finalize, HandleMessage(handle: handle).encode())
        clearBindings()
        context.hold(-compiledBytes)
    }

    private func clearBindings() {
        pending.removeAll()
        pendingAt.removeAll()
        context.hold(-boundBytes)
        boundBytes = 0
        boundByIndex = []
    }

    // MARK: the row

    /// The column's type in the row the last step brought; nil out of range (or no row).
    func type(_ column: Int32) -> StorageValueType? { row.type(Int(column)) }

    func int64(_ column: Int32) -> Int64 {
        guard let type = type(column) else { return 0 }
        let v = row.columns[Int(column)]
        switch type {
        case .integer: return v.int
        case .null: return 0
        case .float: return context.converter.convert(.float, double: v.double) { sqlite3_column_int64($0, 0) } ?? 0
        case .text, .blob: return context.converter.convert(type, bytes: row.raw(Int(column))) { sqlite3_column_int64($0, 0) } ?? 0
        }
    }

    func double(_ column: Int32) -> Double {
        guard let type = type(column) else { return 0 }
        let v = row.columns[Int(column)]
        switch type {
        case .float: return v.double
        case .integer: return Double(v.int)
        case .null: return 0
        case .text, .blob: return context.converter.convert(type, bytes: row.raw(Int(column))) { sqlite3_column_double($0, 0) } ?? 0
        }
    }

    /// The column's bytes (for column_text, and column_blob with `asText` false) and their count,
    /// valid until the next step, reset or finalize; nil for NULL. A number is converted once, by
    /// SQLite. As in SQLite, a blob read as text is text from then on (column_type says TEXT).
    func text(_ column: Int32, asText: Bool = true) -> (UnsafePointer<CChar>, Int)? {
        guard let type = type(column) else { return nil }
        let i = Int(column)
        switch type {
        case .null: return nil
        case .text: return row.bytes(i)
        case .blob:
            if asText { row.markText(i) }
            return row.bytes(i)
        case .integer, .float:
            // Kept with the row: the value has its text from then on, as SQLite's own value does.
            let v = row.columns[i]
            let text = row.converted(i) {
                context.converter.convert(type, int: v.int, double: v.double) { stmt -> PinnedCString in
                    guard let text = sqlite3_column_text(stmt, 0) else { return PinnedCString.empty }
                    let n = Int(sqlite3_column_bytes(stmt, 0))
                    return PinnedCString(bytes: UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self), count: n))
                } ?? PinnedCString.empty
            }
            return (text.pointer, text.count)
        }
    }
}

/// SQLite's own conversions between types, for a value that arrived over the wire: the value is
/// bound to `SELECT ?1` on a private in-memory connection and read back with the column function
/// the plugin called, so the runner converts exactly as SQLite does in the host.
/// @unchecked Sendable: the connection is used under `lock` only.
final class ValueConverter: @unchecked Sendable {
    private let lock = Lock()
    private var db: OpaquePointer?
    private var stmt: OpaquePointer?

    /// `read` of `SELECT ?1` with a value of `type`: `int`, `double` or `bytes` (text or blob).
    func convert<R>(_ type: StorageValueType, int: Int64 = 0, double: Double = 0, bytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                    _ read: (OpaquePointer) -> R) -> R? {
        lock.withLock {
            if stmt == nil {
                guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
                      sqlite3_prepare_v2(db, "SELECT ?1", -1, &stmt, nil) == SQLITE_OK else { return nil }
            }
            guard let stmt else { return nil }
            defer {
                sqlite3_reset(stmt)
                sqlite3_clear_bindings(stmt)
            }
            // A text or blob of no bytes is bound as such, never as NULL (a null pointer would make it NULL).
            let base = bytes.baseAddress ?? UnsafeRawPointer(PinnedCString.empty.pointer)
            switch type {
            case .integer: sqlite3_bind_int64(stmt, 1, int)
            case .float: sqlite3_bind_double(stmt, 1, double)
            case .text:
                _ = sqlite3_bind_text64(stmt, 1, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8))
            case .blob:
                _ = sqlite3_bind_blob64(stmt, 1, base, sqlite3_uint64(bytes.count), clubhouse_sqlite_transient())
            case .null: sqlite3_bind_null(stmt, 1)
            }
            guard sqlite3_step(stmt) == SQLITE_ROW else { return nil }
            return read(stmt)
        }
    }
}

/// An open device in the host.
final class ProxyDevice {
    let context: RunnerContext
    let handle: UInt32
    var lastError = PinnedCString.empty
    /// How the site reaches the device (the host's answer to open).
    let address: PinnedCString

    init(context: RunnerContext, handle: UInt32, address: String) {
        self.context = context
        self.handle = handle
        self.address = PinnedCString(address)
    }

    static func from(_ device: OpaquePointer?) -> ProxyDevice? {
        device.map { Unmanaged<ProxyDevice>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}
