// Every message of the wire (Wire.swift has the frames), one type each, its encoder beside its
// decoder: the host and the runner build and read each message through the same type, so the
// two ends cannot drift apart. Service calls travel as `serviceCall` frames: ServiceCallHeader
// (u32 seq, u8 operation), then the operation's request; the host answers with a `reply` frame:
// ReplyHeader (u32 seq, i32 status), then a byte string holding the operation's reply.

#if canImport(Glibc)
import Glibc
#endif

// MARK: values

/// The type of a storage value: the numbers of CLUBHOUSE_TYPE_* (services/storage.h), which are
/// SQLite's (a unit test checks both).
package enum StorageValueType: UInt8, Sendable {
    case integer = 1, float = 2, text = 3, blob = 4, null = 5

    /// A type from SQLite's or the header's number; anything else is NULL.
    package init(code: Int32) { self = StorageValueType(rawValue: UInt8(truncatingIfNeeded: code)) ?? .null }

    package var code: Int32 { Int32(rawValue) }
}

/// A value bound to a parameter or read from a column, as it travels: the type byte, then an i64,
/// an f64 or a byte string (text and blobs), nothing for NULL.
package enum WireValue: Equatable, Sendable {
    case integer(Int64)
    case float(Double)
    case text([UInt8])
    case blob([UInt8])
    case null

    package var type: StorageValueType {
        switch self {
        case .integer: return .integer
        case .float: return .float
        case .text: return .text
        case .blob: return .blob
        case .null: return .null
        }
    }

    /// Bytes of text or blob (0 for the other types).
    package var byteCount: Int {
        switch self {
        case .text(let b), .blob(let b): return b.count
        default: return 0
        }
    }

    package func encode(into w: inout WireWriter) {
        w.u8(type.rawValue)
        switch self {
        case .integer(let v): w.i64(v)
        case .float(let v): w.f64(v)
        case .text(let b), .blob(let b): w.data(b)
        case .null: break
        }
    }

    /// Encodes a text or blob straight from borrowed bytes (no intermediate array).
    package static func encodeBytes(_ type: StorageValueType, _ bytes: UnsafeRawBufferPointer, into w: inout WireWriter) {
        w.u8(type.rawValue)
        w.data(bytes)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> WireValue {
        switch StorageValueType(code: Int32(try r.u8())) {
        case .integer: return .integer(try r.i64())
        case .float: return .float(try r.f64())
        case .text: return .text(try r.data())
        case .blob: return .blob(try r.data())
        case .null: return .null
        }
    }
}

// MARK: frames around the services

/// The start of a `serviceCall` frame; the operation's request follows.
package struct ServiceCallHeader: Equatable {
    package var seq: UInt32
    package var operation: UInt8

    package init(seq: UInt32, operation: UInt8) {
        self.seq = seq
        self.operation = operation
    }

    package func encode(into w: inout WireWriter) {
        w.u32(seq)
        w.u8(operation)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> ServiceCallHeader {
        ServiceCallHeader(seq: try r.u32(), operation: try r.u8())
    }
}

/// A `reply` (or `replyWithDescriptor`) frame: the answer to service call `seq`.
package struct ServiceReply {
    package var seq: UInt32
    package var status: Int32
    package var payload: [UInt8]

    package init(seq: UInt32, status: Int32, payload: [UInt8]) {
        self.seq = seq
        self.status = status
        self.payload = payload
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.u32(seq)
        w.i32(status)
        w.data(payload)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> ServiceReply {
        var r = WireReader(bytes)
        return ServiceReply(seq: try r.u32(), status: try r.i32(), payload: try r.data())
    }
}

/// `hello` (runner → host, once): i32 status, then the descriptor and catalogue as JSON, or the
/// reason the runner cannot serve.
package struct HelloMessage {
    package var status: Int32
    package var text: String

    package init(status: Int32, text: String) {
        self.status = status
        self.text = text
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.i32(status)
        w.str(text)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> HelloMessage {
        var r = WireReader(bytes)
        return HelloMessage(status: try r.i32(), text: try r.str())
    }
}

/// `create` (host → runner): the instance's settings as JSON (site, alias, host version, config,
/// granted services, log threshold, limits).
package struct CreateMessage {
    package var settings: String

    package init(settings: String) {
        self.settings = settings
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.str(settings)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> CreateMessage {
        var r = WireReader(bytes)
        return CreateMessage(settings: try r.str())
    }
}

/// `invoke` (host → runner): one command call.
package struct InvokeMessage {
    package var call: UInt64
    package var flags: UInt32
    package var command: String
    package var request: [UInt8]

    package init(call: UInt64, flags: UInt32, command: String, request: [UInt8]) {
        self.call = call
        self.flags = flags
        self.command = command
        self.request = request
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.u64(call)
        w.u32(flags)
        w.str(command)
        w.data(request)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> InvokeMessage {
        var r = WireReader(bytes)
        return InvokeMessage(call: try r.u64(), flags: try r.u32(), command: try r.str(), request: try r.data())
    }
}

/// `result` (runner → host): the status and reply of create, invoke or destroy.
package struct ResultMessage {
    package var status: Int32
    package var reply: [UInt8]

    package init(status: Int32, reply: [UInt8]) {
        self.status = status
        self.reply = reply
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.i32(status)
        w.data(reply)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> ResultMessage {
        var r = WireReader(bytes)
        return ResultMessage(status: try r.i32(), reply: try r.data())
    }
}

/// `cancel` (host → runner): call `call` was cancelled.
package struct CancelMessage {
    package var call: UInt64

    package init(call: UInt64) {
        self.call = call
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.u64(call)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> CancelMessage {
        var r = WireReader(bytes)
        return CancelMessage(call: try r.u64())
    }
}

/// A one-way frame that names one host object (`finalize`, `resetStatement`, `deviceClose`).
package struct HandleMessage {
    package var handle: UInt32

    package init(handle: UInt32) {
        self.handle = handle
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.u32(handle)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> HandleMessage {
        var r = WireReader(bytes)
        return HandleMessage(handle: try r.u32())
    }
}

/// `log` (runner → host, one-way): i32 level, str message.
package struct LogMessage {
    package var level: Int32
    package var text: String

    package init(level: Int32, text: String) {
        self.level = level
        self.text = text
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.i32(level)
        w.str(text)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> LogMessage {
        var r = WireReader(bytes)
        return LogMessage(level: try r.i32(), text: try r.str())
    }
}

/// `progress` (runner → host, one-way): u64 call, u8 stage, str label, u64 n.
package struct ProgressMessage {
    package enum Stage: UInt8 { case begin = 0, update = 1, end = 2, unit = 3 }

    package var call: UInt64
    /// A raw stage: a host ignores one it does not know.
    package var stage: UInt8
    package var label: String
    package var n: UInt64

    package init(call: UInt64, stage: UInt8, label: String, n: UInt64) {
        self.call = call
        self.stage = stage
        self.label = label
        self.n = n
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.u64(call)
        w.u8(stage)
        w.str(label)
        w.u64(n)
        return w.bytes
    }

    package static func decode(_ bytes: [UInt8]) throws(WireError) -> ProgressMessage {
        var r = WireReader(bytes)
        return ProgressMessage(call: try r.u64(), stage: try r.u8(), label: try r.str(), n: try r.u64())
    }
}

// MARK: storage

/// Every storage reply starts with this: the message (empty on success), the last insert rowid and
/// the changes of the last statement (the runner answers last_insert_rowid and changes from them).
package struct StorageReplyTail: Equatable {
    package var message: String
    package var lastInsertRowID: Int64
    package var changes: Int64

    package init(message: String, lastInsertRowID: Int64, changes: Int64) {
        self.message = message
        self.lastInsertRowID = lastInsertRowID
        self.changes = changes
    }

    package func encode(into w: inout WireWriter) {
        w.str(message)
        w.i64(lastInsertRowID)
        w.i64(changes)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> StorageReplyTail {
        StorageReplyTail(message: try r.str(), lastInsertRowID: try r.i64(), changes: try r.i64())
    }
}

/// The storage operations a runner sends (after the ServiceCallHeader).
package enum StorageRequest: Equatable {
    case exec(sql: String)
    case prepare(sql: String)
    case step(StepRequest)
    case begin, commit, rollback
    case migrate(version: Int32, name: String, sql: String)

    package var operation: WireOperation {
        switch self {
        case .exec: return .exec
        case .prepare: return .prepare
        case .step: return .step
        case .begin: return .begin
        case .commit: return .commit
        case .rollback: return .rollback
        case .migrate: return .migrate
        }
    }

    package func encode(into w: inout WireWriter) {
        switch self {
        case .exec(let sql), .prepare(let sql): w.str(sql)
        case .step(let step): step.encode(into: &w)
        case .begin, .commit, .rollback: break
        case .migrate(let version, let name, let sql):
            w.i32(version)
            w.str(name)
            w.str(sql)
        }
    }

    /// Nil for an operation that is not storage's.
    package static func decode(_ operation: WireOperation, _ r: inout WireReader) throws(WireError) -> StorageRequest? {
        switch operation {
        case .exec: return .exec(sql: try r.str())
        case .prepare: return .prepare(sql: try r.str())
        case .step: return .step(try StepRequest.decode(&r))
        case .begin: return .begin
        case .commit: return .commit
        case .rollback: return .rollback
        case .migrate: return .migrate(version: try r.i32(), name: try r.str(), sql: try r.str())
        default: return nil
        }
    }
}

/// A step: u32 statement, u8 reset first, u32 binds, each (i32 index, value). The binds a plugin
/// made since its last step travel with it, so a query costs one round trip per row.
package struct StepRequest: Equatable {
    package static let maximumBinds: UInt32 = 32766

    package var handle: UInt32
    package var resetFirst: Bool
    package var binds: [(index: Int32, value: WireValue)]

    package init(handle: UInt32, resetFirst: Bool, binds: [(index: Int32, value: WireValue)]) {
        self.handle = handle
        self.resetFirst = resetFirst
        self.binds = binds
    }

    package static func == (a: StepRequest, b: StepRequest) -> Bool {
        a.handle == b.handle && a.resetFirst == b.resetFirst && a.binds.count == b.binds.count
            && zip(a.binds, b.binds).allSatisfy { $0.index == $1.index && $0.value == $1.value }
    }

    package func encode(into w: inout WireWriter) {
        w.u32(handle)
        w.u8(resetFirst ? 1 : 0)
        w.u32(UInt32(binds.count))
        for bind in binds {
            w.i32(bind.index)
            bind.value.encode(into: &w)
        }
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> StepRequest {
        let handle = try r.u32()
        let resetFirst = try r.u8() != 0
        let count = try r.u32()
        // No statement has more parameters than SQLite allows (SQLITE_MAX_VARIABLE_NUMBER).
        guard count <= StepRequest.maximumBinds else { throw WireError(description: "a step with \(count) binds") }
        var binds: [(index: Int32, value: WireValue)] = []
        binds.reserveCapacity(Int(count))
        for _ in 0..<count { binds.append((try r.i32(), try WireValue.decode(&r))) }
        return StepRequest(handle: handle, resetFirst: resetFirst, binds: binds)
    }
}

/// A prepare's answer after the tail: the statement's handle, its column names, its parameter
/// names with their prefix ("" for "?"), and the bytes SQLite holds for it (counted against the
/// statement limit on both ends).
package struct PreparedReply: Equatable {
    package var handle: UInt32
    package var columns: [String]
    package var parameters: [String]
    package var compiledBytes: Int64

    package init(handle: UInt32, columns: [String], parameters: [String], compiledBytes: Int64) {
        self.handle = handle
        self.columns = columns
        self.parameters = parameters
        self.compiledBytes = compiledBytes
    }

    package func encode(into w: inout WireWriter) {
        w.u32(handle)
        w.u32(UInt32(columns.count))
        for name in columns { w.str(name) }
        w.u32(UInt32(parameters.count))
        for name in parameters { w.str(name) }
        w.i64(compiledBytes)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> PreparedReply {
        let handle = try r.u32()
        var columns: [String] = []
        for _ in 0..<(try r.u32()) { columns.append(try r.str()) }
        var parameters: [String] = []
        for _ in 0..<(try r.u32()) { parameters.append(try r.str()) }
        return PreparedReply(handle: handle, columns: columns, parameters: parameters, compiledBytes: try r.i64())
    }
}

/// What a row is read from on the host (a statement standing on a row).
package protocol RowSource {
    var columnCount: Int32 { get }
    func valueType(_ column: Int32) -> StorageValueType
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    /// Text or blob bytes, borrowed until the statement moves.
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer
}

/// A step's row after the tail (when the status is CLUBHOUSE_ROW): u32 columns, each a WireValue.
/// The runner reads it into its row's one buffer (Runner/ProxyRow.swift, `load`).
package enum RowReply {
    /// Writes the row the statement stands on.
    package static func encode<S: RowSource>(_ source: S, into w: inout WireWriter) {
        let count = source.columnCount
        w.u32(UInt32(max(0, count)))
        for c in 0..<max(0, count) {
            let type = source.valueType(c)
            switch type {
            case .integer: WireValue.integer(source.int64(c)).encode(into: &w)
            case .float: WireValue.float(source.double(c)).encode(into: &w)
            case .text, .blob: WireValue.encodeBytes(type, source.bytes(c), into: &w)
            case .null: WireValue.null.encode(into: &w)
            }
        }
    }
}

// MARK: devices, files, invoke

/// Device operations a runner sends (after the ServiceCallHeader). Every reply starts with a
/// message (empty on success); open adds the u32 handle and the device's address, read the bytes read.
package enum DeviceRequest: Equatable {
    /// The most one read asks for (the host's wire face caps a runner's request at it too).
    package static let maximumRead = 1 << 20

    case open(name: String)
    case write(handle: UInt32, bytes: [UInt8])
    case read(handle: UInt32, capacity: UInt32, timeoutMilliseconds: Int32)
    /// device.h set_safe_state (ABI 1.3): the stop frame, its acknowledgement, the reply timeout.
    case safeState(handle: UInt32, frame: [UInt8], acknowledgement: [UInt8], timeoutMilliseconds: Int32)

    package var operation: WireOperation {
        switch self {
        case .open: return .deviceOpen
        case .write: return .deviceWrite
        case .read: return .deviceRead
        case .safeState: return .deviceSafeState
        }
    }

    package func encode(into w: inout WireWriter) {
        switch self {
        case .open(let name): w.str(name)
        case .write(let handle, let bytes):
            w.u32(handle)
            w.data(bytes)
        case .read(let handle, let capacity, let timeout):
            w.u32(handle)
            w.u32(capacity)
            w.i32(timeout)
        case .safeState(let handle, let frame, let acknowledgement, let timeout):
            w.u32(handle)
            w.data(frame)
            w.data(acknowledgement)
            w.i32(timeout)
        }
    }

    package static func decode(_ operation: WireOperation, _ r: inout WireReader) throws(WireError) -> DeviceRequest? {
        switch operation {
        case .deviceOpen: return .open(name: try r.str())
        case .deviceWrite: return .write(handle: try r.u32(), bytes: try r.data())
        case .deviceRead: return .read(handle: try r.u32(), capacity: try r.u32(), timeoutMilliseconds: try r.i32())
        case .deviceSafeState:
            return .safeState(handle: try r.u32(), frame: try r.data(), acknowledgement: try r.data(), timeoutMilliseconds: try r.i32())
        default: return nil
        }
    }
}

/// A device reply: the message, then for open the handle and the address and for read the bytes.
package struct DeviceReply: Equatable {
    package var message: String
    package var handle: UInt32 = 0
    /// What the device's name reaches (device.h `address`, eg: "tcp:10.0.0.7:9000").
    package var address: String = ""
    package var bytes: [UInt8] = []

    package init(message: String, handle: UInt32 = 0, address: String = "", bytes: [UInt8] = []) {
        self.message = message
        self.handle = handle
        self.address = address
        self.bytes = bytes
    }

    package func encode(for operation: WireOperation) -> [UInt8] {
        var w = WireWriter()
        w.str(message)
        if operation == .deviceOpen && message.isEmpty {
            w.u32(handle)
            w.str(address)
        }
        if operation == .deviceRead { w.data(bytes) }
        return w.bytes
    }

    package static func decode(_ operation: WireOperation, _ r: inout WireReader) -> DeviceReply {
        var reply = DeviceReply(message: (try? r.str()) ?? "")
        if operation == .deviceOpen, let handle = try? r.u32() {
            reply.handle = handle
            reply.address = (try? r.str()) ?? ""
        }
        if operation == .deviceRead { reply.bytes = (try? r.data()) ?? [] }
        return reply
    }
}

/// `fileOpen`: u64 call, str argument name, u8 beneath, str relative path, u32 access. The reply is
/// a message; on success the descriptor rides with it (`replyWithDescriptor`).
package struct FileOpenRequest: Equatable {
    package var call: UInt64
    package var name: String
    package var relative: String?
    package var access: UInt32

    package init(call: UInt64, name: String, relative: String?, access: UInt32) {
        self.call = call
        self.name = name
        self.relative = relative
        self.access = access
    }

    package func encode(into w: inout WireWriter) {
        w.u64(call)
        w.str(name)
        w.u8(relative == nil ? 0 : 1)
        w.str(relative ?? "")
        w.u32(access)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> FileOpenRequest {
        let call = try r.u64()
        let name = try r.str()
        let beneath = try r.u8() != 0
        let relative = try r.str()
        return FileOpenRequest(call: call, name: name, relative: beneath ? relative : nil, access: try r.u32())
    }
}

/// A reply made of one message (files; the storage tail has its own type).
package struct MessageReply: Equatable {
    package var message: String

    package init(message: String) {
        self.message = message
    }

    package func encode() -> [UInt8] {
        var w = WireWriter()
        w.str(message)
        return w.bytes
    }

    package static func decode(_ r: inout WireReader) -> MessageReply { MessageReply(message: (try? r.str()) ?? "") }
}

/// `publish` (services/events.h): u64 call, str topic, bytes json; the reply is a MessageReply.
package struct EventPublishRequest: Equatable {
    package var call: UInt64
    package var topic: String
    package var json: [UInt8]

    package init(call: UInt64, topic: String, json: [UInt8]) {
        self.call = call
        self.topic = topic
        self.json = json
    }

    package func encode(into w: inout WireWriter) {
        w.u64(call)
        w.str(topic)
        w.data(json)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> EventPublishRequest {
        EventPublishRequest(call: try r.u64(), topic: try r.str(), json: try r.data())
    }
}

/// `invoke`: u64 call, str plugin, str command, bytes request; the reply is the callee's reply bytes.
package struct InvokeRequest: Equatable {
    package var call: UInt64
    package var plugin: String
    package var command: String
    package var request: [UInt8]

    package init(call: UInt64, plugin: String, command: String, request: [UInt8]) {
        self.call = call
        self.plugin = plugin
        self.command = command
        self.request = request
    }

    package func encode(into w: inout WireWriter) {
        w.u64(call)
        w.str(plugin)
        w.str(command)
        w.data(request)
    }

    package static func decode(_ r: inout WireReader) throws(WireError) -> InvokeRequest {
        InvokeRequest(call: try r.u64(), plugin: try r.str(), command: try r.str(), request: try r.data())
    }

    package static func encodeReply(_ bytes: [UInt8]) -> [UInt8] {
        var w = WireWriter()
        w.data(bytes)
        return w.bytes
    }

    package static func decodeReply(_ r: inout WireReader) -> [UInt8] { (try? r.data()) ?? [] }
}
