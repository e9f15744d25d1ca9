// The service tables a plugin sees inside a runner: the same C functions as in process, each one
// forwarded to the host over the wire. Config is answered locally (sent with create), binds
// travel with the next step, and a row arrives whole with its step, so a query costs one round
// trip per row. Log and progress are one-way; progress updates are thinned to 20 a second.

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

final class ProxyTables: @unchecked Sendable {
    let context: RunnerContext
    let log: UnsafeMutablePointer<clubhouse_log_service>
    let config: UnsafeMutablePointer<clubhouse_config_service>
    let storage: UnsafeMutablePointer<clubhouse_storage_service>
    let progress: UnsafeMutablePointer<clubhouse_progress_service>
    let invoke: UnsafeMutablePointer<clubhouse_invoke_service>
    let device: UnsafeMutablePointer<clubhouse_device_service>
    let files: UnsafeMutablePointer<clubhouse_files_service>

    static func context(_ host: UnsafePointer<clubhouse_host>?) -> RunnerContext? {
        guard let data = host?.pointee.host_data else { return nil }
        return Unmanaged<ProxyTables>.fromOpaque(data).takeUnretainedValue().context
    }

    static func callContext(_ call: UnsafePointer<clubhouse_call>?) -> RunnerContext? {
        guard let data = call?.pointee.host_data else { return nil }
        return Unmanaged<RunnerContext>.fromOpaque(data).takeUnretainedValue()
    }

    init(context: RunnerContext) {
        self.context = context
        log = .allocate(capacity: 1)
        log.initialize(to: clubhouse_log_service(
            struct_size: UInt32(MemoryLayout<clubhouse_log_service>.size),
            write: { host, level, message in
                guard let c = ProxyTables.context(host), let message, level <= c.logThreshold else { return }
                var w = WireWriter()
                w.i32(level)
                w.str(String(cString: message))
                try? c.channel.send(.log, w.bytes)
            },
            enabled: { host, level in
                guard let c = ProxyTables.context(host) else { return 0 }
                return level <= c.logThreshold ? 1 : 0
            }))
        config = .allocate(capacity: 1)
        config.initialize(to: clubhouse_config_service(
            struct_size: UInt32(MemoryLayout<clubhouse_config_service>.size),
            get: { host, key, reply in
                guard let c = ProxyTables.context(host), let key else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ConfigBroker.get(in: c.config, key: String(cString: key), reply: reply)
            }))
        progress = .allocate(capacity: 1)
        progress.initialize(to: clubhouse_progress_service(
            struct_size: UInt32(MemoryLayout<clubhouse_progress_service>.size),
            begin: { call, label, total in ProxyTables.sendProgress(call, 0, label.map { String(cString: $0) } ?? "", total) },
            update: { call, done in
                guard let c = ProxyTables.callContext(call), let id = call?.pointee.id else { return }
                let now = Subprocess.monotonicMilliseconds()
                if let last = c.lastProgress[id], now - last < 50 { return }
                c.lastProgress[id] = now
                ProxyTables.sendProgress(call, 1, "", done)
            },
            end: { call in ProxyTables.sendProgress(call, 2, "", 0) },
            set_unit: { call, unit in ProxyTables.sendProgress(call, 3, "", UInt64(unit)) }))
        invoke = .allocate(capacity: 1)
        invoke.initialize(to: clubhouse_invoke_service(
            struct_size: UInt32(MemoryLayout<clubhouse_invoke_service>.size),
            invoke: { host, call, alias, command, request, length, reply in
                guard let c = ProxyTables.context(host), let alias, let command else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = c.call(.invoke) { w in
                    w.u64(call?.pointee.id ?? 0)
                    w.str(String(cString: alias))
                    w.str(String(cString: command))
                    w.data(UnsafeRawBufferPointer(start: request, count: request == nil ? 0 : length))
                }
                var r = r0
                reply?.write(bytes: (try? r.data()) ?? [])
                return status
            }))
        storage = .allocate(capacity: 1)
        storage.initialize(to: ProxyTables.makeStorage())
        device = .allocate(capacity: 1)
        device.initialize(to: ProxyTables.makeDevice())
        files = .allocate(capacity: 1)
        files.initialize(to: clubhouse_files_service(
            struct_size: UInt32(MemoryLayout<clubhouse_files_service>.size),
            open_argument: { call, name, access, fd, reply in
                guard let name, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.openFile(call, String(cString: name), nil, access, fd, reply)
            },
            open_beneath: { call, name, relative, fd, reply in
                guard let name, let relative, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.openFile(call, String(cString: name), String(cString: relative), UInt32(CLUBHOUSE_FILE_READ), fd, reply)
            }))
    }

    /// The files service through the wire: the host opens, the descriptor comes back with the reply.
    static func openFile(_ call: UnsafePointer<clubhouse_call>?, _ name: String, _ relative: String?, _ access: UInt32,
                         _ fd: UnsafeMutablePointer<Int32>, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        fd.pointee = -1
        guard let c = callContext(call), let id = call?.pointee.id else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        let (status, r0, descriptor) = c.callForDescriptor(.fileOpen) { w in
            w.u64(id)
            w.str(name)
            w.u8(relative == nil ? 0 : 1)
            w.str(relative ?? "")
            w.u32(access)
        }
        var r = r0
        let message = (try? r.str()) ?? ""
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

    static func sendProgress(_ call: UnsafePointer<clubhouse_call>?, _ stage: UInt8, _ label: String, _ n: UInt64) {
        guard let c = callContext(call), let id = call?.pointee.id else { return }
        var w = WireWriter()
        w.u64(id)
        w.u8(stage)
        w.str(label)
        w.u64(n)
        try? c.channel.send(.progress, w.bytes)
    }

    func table(for id: String) -> UnsafeRawPointer? {
        switch id {
        case CLUBHOUSE_SERVICE_LOG: return UnsafeRawPointer(log)
        case CLUBHOUSE_SERVICE_CONFIG: return UnsafeRawPointer(config)
        case CLUBHOUSE_SERVICE_PROGRESS: return UnsafeRawPointer(progress)
        case CLUBHOUSE_SERVICE_FILES: return UnsafeRawPointer(files)
        case CLUBHOUSE_SERVICE_STORAGE: return context.granted.contains(id) ? UnsafeRawPointer(storage) : nil
        case CLUBHOUSE_SERVICE_INVOKE: return context.granted.contains(id) ? UnsafeRawPointer(invoke) : nil
        case CLUBHOUSE_SERVICE_DEVICE: return context.granted.contains(id) ? UnsafeRawPointer(device) : nil
        default: return nil
        }
    }

    // MARK: storage

    static func simple(_ host: UnsafePointer<clubhouse_host>?, _ op: WireOperation, _ reply: UnsafePointer<clubhouse_reply>?,
                       _ build: (inout WireWriter) -> Void = { _ in }) -> Int32 {
        guard let c = context(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        let (status, r0) = c.call(op, build)
        var r = r0
        c.absorbStorageReply(status, &r, into: reply)
        return status
    }

    static func makeStorage() -> clubhouse_storage_service {
        clubhouse_storage_service(
            struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
            exec: { host, sql, reply in
                guard let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.simple(host, .exec, reply) { $0.str(String(cString: sql)) }
            },
            prepare: { host, sql, out, reply in
                guard let c = ProxyTables.context(host), let sql, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = c.call(.prepare) { $0.str(String(cString: sql)) }
                var r = r0
                c.absorbStorageReply(status, &r, into: reply)
                guard status == Int32(CLUBHOUSE_OK), let handle = try? r.u32(), let count = try? r.u32() else { return status }
                var names: [String] = []
                for _ in 0..<count { names.append((try? r.str()) ?? "") }
                var parameters: [String] = []
                if let parameterCount = try? r.u32() {
                    for _ in 0..<parameterCount { parameters.append((try? r.str()) ?? "") }
                }
                let statement = ProxyStatement(context: c, handle: handle, names: names, parameters: parameters)
                out.pointee = OpaquePointer(Unmanaged.passRetained(statement).toOpaque())
                return status
            },
            bind_null: { stmt, index in ProxyStatement.from(stmt)?.bind(index, 5) { _ in } ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_int64: { stmt, index, v in ProxyStatement.from(stmt)?.bind(index, 1) { $0.i64(v) } ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_double: { stmt, index, v in ProxyStatement.from(stmt)?.bind(index, 2) { $0.f64(v) } ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_text: { stmt, index, text, length in
                guard let s = ProxyStatement.from(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let text else { return s.bind(index, 5) { _ in } }
                return s.bind(index, 3) { $0.data(UnsafeRawBufferPointer(start: text, count: length)) }
            },
            bind_blob: { stmt, index, bytes, length in
                guard let s = ProxyStatement.from(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return s.bind(index, 4) { $0.data(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length)) }
            },
            step: { stmt in
                guard let s = ProxyStatement.from(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = s.context.call(.step) { w in
                    w.u32(s.handle)
                    w.u8(s.pendingReset ? 1 : 0)
                    w.u32(s.bindCount)
                    w.bytes.append(contentsOf: s.binds.bytes)
                }
                s.pendingReset = false
                s.binds = WireWriter()
                s.bindCount = 0
                var r = r0
                s.context.absorbStorageReply(status, &r, into: nil)
                s.row = []
                s.onRow = status == Int32(CLUBHOUSE_ROW)
                if status == Int32(CLUBHOUSE_ROW), let count = try? r.u32() {
                    for _ in 0..<count {
                        let type = Int32((try? r.u8()) ?? 5)
                        switch type {
                        case 1: s.row.append((type, (try? r.i64()) ?? 0, 0, []))
                        case 2: s.row.append((type, 0, (try? r.f64()) ?? 0, []))
                        case 3, 4:
                            var bytes = ((try? r.data()) ?? []).map { CChar(bitPattern: $0) }
                            bytes.append(0)
                            s.row.append((type, 0, 0, bytes))
                        default: s.row.append((5, 0, 0, []))
                        }
                    }
                }
                return status
            },
            reset: { stmt in
                guard let s = ProxyStatement.from(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                if s.onRow {
                    // Left on a row, the host's statement would hold a read snapshot (and keep a
                    // COMMIT of the same transaction waiting) until its next step: rewind it now,
                    // one way, no round trip.
                    var w = WireWriter()
                    w.u32(s.handle)
                    try? s.context.channel.send(.resetStatement, w.bytes)
                    s.onRow = false
                    s.pendingReset = false
                } else {
                    s.pendingReset = true
                }
                s.binds = WireWriter()
                s.bindCount = 0
                s.row = []
                return Int32(CLUBHOUSE_OK)
            },
            finalize: { stmt in
                guard let stmt else { return }
                let s = Unmanaged<ProxyStatement>.fromOpaque(UnsafeRawPointer(stmt))
                var w = WireWriter()
                w.u32(s.takeUnretainedValue().handle)
                try? s.takeUnretainedValue().context.channel.send(.finalize, w.bytes)
                s.release()
            },
            column_count: { stmt in Int32(ProxyStatement.from(stmt)?.names.count ?? 0) },
            column_type: { stmt, column in
                guard let s = ProxyStatement.from(stmt), s.row.indices.contains(Int(column)) else { return Int32(CLUBHOUSE_TYPE_NULL) }
                return s.row[Int(column)].type
            },
            column_name: { stmt, column in
                guard let s = ProxyStatement.from(stmt), s.names.indices.contains(Int(column)) else { return nil }
                return s.names[Int(column)].withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            },
            column_int64: { stmt, column in
                guard let s = ProxyStatement.from(stmt), s.row.indices.contains(Int(column)) else { return 0 }
                let v = s.row[Int(column)]
                return v.type == 2 ? Int64(v.double) : v.int
            },
            column_double: { stmt, column in
                guard let s = ProxyStatement.from(stmt), s.row.indices.contains(Int(column)) else { return 0 }
                let v = s.row[Int(column)]
                return v.type == 1 ? Double(v.int) : v.double
            },
            column_text: { stmt, column, length in
                guard let s = ProxyStatement.from(stmt), s.row.indices.contains(Int(column)), s.row[Int(column)].type == 3
                        || s.row[Int(column)].type == 4
                else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = s.row[Int(column)].bytes.count - 1
                return s.row[Int(column)].bytes.withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            },
            column_blob: { stmt, column, length in
                guard let s = ProxyStatement.from(stmt), s.row.indices.contains(Int(column)), s.row[Int(column)].type == 3
                        || s.row[Int(column)].type == 4
                else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = s.row[Int(column)].bytes.count - 1
                return s.row[Int(column)].bytes.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            },
            begin: { host, reply in ProxyTables.simple(host, .begin, reply) },
            commit: { host, reply in ProxyTables.simple(host, .commit, reply) },
            rollback: { host in ProxyTables.simple(host, .rollback, nil) },
            last_insert_rowid: { host in ProxyTables.context(host)?.lastInsertRowID ?? 0 },
            changes: { host in ProxyTables.context(host)?.changes ?? 0 },
            last_error: { host in ProxyTables.context(host)?.lastErrorPointer },
            migrate: { host, version, name, sql, reply in
                guard let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ProxyTables.simple(host, .migrate, reply) { w in
                    w.i32(version)
                    w.str(String(cString: name))
                    w.str(String(cString: sql))
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
                      s.parameters[Int(index - 1)].count > 1 else { return nil }
                return s.parameters[Int(index - 1)].withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
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
                guard let c = ProxyTables.context(host), let name, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = c.call(.deviceOpen) { $0.str(String(cString: name)) }
                var r = r0
                let message = (try? r.str()) ?? ""
                guard status == Int32(CLUBHOUSE_OK), let handle = try? r.u32() else {
                    reply?.write(message)
                    return status
                }
                let address = (try? r.str()) ?? ""
                out.pointee = OpaquePointer(Unmanaged.passRetained(ProxyDevice(context: c, handle: handle, address: address)).toOpaque())
                return status
            },
            write: { device, bytes, length in
                guard let d = ProxyDevice.from(device) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = d.context.call(.deviceWrite) { w in
                    w.u32(d.handle)
                    w.data(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length))
                }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { d.lastError = Array(((try? r.str()) ?? "").utf8CString) }
                return status
            },
            read: { device, buffer, capacity, length, timeout in
                guard let d = ProxyDevice.from(device), let buffer, let length else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = d.context.call(.deviceRead) { w in
                    w.u32(d.handle)
                    w.u32(UInt32(min(capacity, 1 << 20)))
                    w.i32(timeout)
                }
                var r = r0
                let message = (try? r.str()) ?? ""
                let bytes = (try? r.data()) ?? []
                let n = min(bytes.count, capacity)
                if n > 0 { bytes.withUnsafeBufferPointer { $0.baseAddress.map { buffer.update(from: $0, count: n) } } }
                length.pointee = n
                if status != Int32(CLUBHOUSE_OK) { d.lastError = Array(message.utf8CString) }
                return status
            },
            last_error: { device in
                ProxyDevice.from(device)?.lastError.withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            },
            close: { device in
                guard let device else { return }
                let d = Unmanaged<ProxyDevice>.fromOpaque(UnsafeRawPointer(device))
                var w = WireWriter()
                w.u32(d.takeUnretainedValue().handle)
                try? d.takeUnretainedValue().context.channel.send(.deviceClose, w.bytes)
                d.release()
            },
            set_safe_state: { device, frame, frameLength, acknowledgement, acknowledgementLength, timeout in
                guard let d = ProxyDevice.from(device), let frame, let acknowledgement else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (status, r0) = d.context.call(.deviceSafeState) { w in
                    w.u32(d.handle)
                    w.data(UnsafeRawBufferPointer(start: frame, count: frameLength))
                    w.data(UnsafeRawBufferPointer(start: acknowledgement, count: acknowledgementLength))
                    w.i32(timeout)
                }
                var r = r0
                if status != Int32(CLUBHOUSE_OK) { d.lastError = Array(((try? r.str()) ?? "").utf8CString) }
                return status
            },
            address: { device in
                ProxyDevice.from(device)?.address.withUnsafeBufferPointer { UnsafePointer($0.baseAddress) }
            })
    }
}
