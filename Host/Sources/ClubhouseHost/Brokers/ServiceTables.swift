// The C function tables the host hands out through get_service. Every function is a C function
// pointer without captures: it finds its Swift context through `host->host_data` (the instance),
// `call->host_data` (the call), or the opaque handle it was given (statement, device).

import CClubhouse
import CSQLite
import ClubhouseABI
import ClubhouseJSON

/// The tables, built once per process and never changed (the pointers stay valid for its life).
final class ServiceTables: @unchecked Sendable {
    let log: UnsafeMutablePointer<clubhouse_log_service>
    let config: UnsafeMutablePointer<clubhouse_config_service>
    let storage: UnsafeMutablePointer<clubhouse_storage_service>
    let progress: UnsafeMutablePointer<clubhouse_progress_service>
    let invoke: UnsafeMutablePointer<clubhouse_invoke_service>
    let device: UnsafeMutablePointer<clubhouse_device_service>

    static let shared = ServiceTables()

    private init() {
        log = .allocate(capacity: 1)
        log.initialize(to: clubhouse_log_service(
            struct_size: UInt32(MemoryLayout<clubhouse_log_service>.size),
            write: { host, level, message in
                guard let instance = PluginInstance.from(host), let message else { return }
                instance.runtime.log.write(level: level, source: instance.entry.alias, message: String(cString: message))
            },
            enabled: { host, level in
                guard let instance = PluginInstance.from(host) else { return 0 }
                return instance.runtime.log.isEnabled(level) ? 1 : 0
            }))

        config = .allocate(capacity: 1)
        config.initialize(to: clubhouse_config_service(
            struct_size: UInt32(MemoryLayout<clubhouse_config_service>.size),
            get: { host, key, reply in
                guard let instance = PluginInstance.from(host), let key else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let value = ConfigLookup.value(in: instance.entry.config, key: String(cString: key)) else {
                    return Int32(CLUBHOUSE_NOT_FOUND)
                }
                reply?.write(JSONWriter.compact(value))
                return Int32(CLUBHOUSE_OK)
            }))

        storage = .allocate(capacity: 1)
        storage.initialize(to: ServiceTables.makeStorageTable())

        progress = .allocate(capacity: 1)
        progress.initialize(to: clubhouse_progress_service(
            struct_size: UInt32(MemoryLayout<clubhouse_progress_service>.size),
            begin: { call, label, total in
                guard let context = CallContext.from(call) else { return }
                context.progress.begin(label: label.map { String(cString: $0) } ?? "", total: total)
            },
            update: { call, done in
                CallContext.from(call)?.progress.update(done: done)
            },
            end: { call in
                CallContext.from(call)?.progress.end()
            }))

        invoke = .allocate(capacity: 1)
        invoke.initialize(to: clubhouse_invoke_service(
            struct_size: UInt32(MemoryLayout<clubhouse_invoke_service>.size),
            invoke: { host, call, alias, command, request, length, reply in
                guard let instance = PluginInstance.from(host), let context = CallContext.from(call), let alias, let command
                else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let bytes = request.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let outcome = instance.runtime.invokeFromPlugin(caller: instance, call: context, alias: String(cString: alias),
                                                                command: String(cString: command), request: bytes)
                reply?.write(bytes: outcome.reply)
                return outcome.status
            }))

        device = .allocate(capacity: 1)
        device.initialize(to: DeviceBroker.makeServiceTable())
    }

    /// The table for a service id, or nil.
    func table(for id: String) -> UnsafeRawPointer? {
        switch id {
        case CLUBHOUSE_SERVICE_LOG: return UnsafeRawPointer(log)
        case CLUBHOUSE_SERVICE_CONFIG: return UnsafeRawPointer(config)
        case CLUBHOUSE_SERVICE_STORAGE: return UnsafeRawPointer(storage)
        case CLUBHOUSE_SERVICE_PROGRESS: return UnsafeRawPointer(progress)
        case CLUBHOUSE_SERVICE_INVOKE: return UnsafeRawPointer(invoke)
        case CLUBHOUSE_SERVICE_DEVICE: return UnsafeRawPointer(device)
        default: return nil
        }
    }

    // MARK: storage

    @inline(__always)
    static func record(_ stmt: OpaquePointer?) -> UnsafeMutablePointer<StatementRecord>? {
        stmt.map { UnsafeMutablePointer<StatementRecord>($0) }
    }

    @inline(__always)
    static func bound(_ stmt: OpaquePointer?, _ rc: Int32) -> Int32 {
        if rc == SQLITE_OK { return Int32(CLUBHOUSE_OK) }
        guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
        return r.pointee.owner.recordFailure(rc)
    }

    static func makeStorageTable() -> clubhouse_storage_service {
        clubhouse_storage_service(
            struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
            exec: { host, sql, reply in
                guard let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return PluginInstance.withDatabase(host, reply) { db in
                    let status = db.exec(String(cString: sql))
                    if status != Int32(CLUBHOUSE_OK) { reply?.write(db.lastError) }
                    return status
                }
            },
            prepare: { host, sql, out, reply in
                guard let sql, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return PluginInstance.withDatabase(host, reply) { db in
                    let (status, record) = db.prepare(sql)
                    out.pointee = record.map { OpaquePointer($0) }
                    if status != Int32(CLUBHOUSE_OK) { reply?.write(db.lastError) }
                    return status
                }
            },
            bind_null: { stmt, index in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ServiceTables.bound(stmt, sqlite3_bind_null(r.pointee.stmt, index))
            },
            bind_int64: { stmt, index, value in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ServiceTables.bound(stmt, sqlite3_bind_int64(r.pointee.stmt, index, value))
            },
            bind_double: { stmt, index, value in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ServiceTables.bound(stmt, sqlite3_bind_double(r.pointee.stmt, index, value))
            },
            bind_text: { stmt, index, text, length in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let text else { return ServiceTables.bound(stmt, sqlite3_bind_null(r.pointee.stmt, index)) }
                return ServiceTables.bound(stmt, sqlite3_bind_text64(r.pointee.stmt, index, text, sqlite3_uint64(length),
                                                       clubhouse_sqlite_transient(), UInt8(SQLITE_UTF8)))
            },
            bind_blob: { stmt, index, bytes, length in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                if bytes == nil || length == 0 { return ServiceTables.bound(stmt, sqlite3_bind_zeroblob(r.pointee.stmt, index, 0)) }
                return ServiceTables.bound(stmt, sqlite3_bind_blob64(r.pointee.stmt, index, bytes, sqlite3_uint64(length),
                                                       clubhouse_sqlite_transient()))
            },
            step: { stmt in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let rc = sqlite3_step(r.pointee.stmt)
                if rc == SQLITE_ROW { return Int32(CLUBHOUSE_ROW) }
                if rc == SQLITE_DONE { return Int32(CLUBHOUSE_DONE) }
                return r.pointee.owner.recordFailure(rc)
            },
            reset: { stmt in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                sqlite3_reset(r.pointee.stmt)
                sqlite3_clear_bindings(r.pointee.stmt)
                return Int32(CLUBHOUSE_OK)
            },
            finalize: { stmt in
                guard let r = ServiceTables.record(stmt) else { return }
                r.pointee.owner.finalize(r)
            },
            column_count: { stmt in
                guard let r = ServiceTables.record(stmt) else { return 0 }
                return sqlite3_column_count(r.pointee.stmt)
            },
            column_type: { stmt, column in
                guard let r = ServiceTables.record(stmt) else { return Int32(CLUBHOUSE_TYPE_NULL) }
                return sqlite3_column_type(r.pointee.stmt, column)
            },
            column_name: { stmt, column in
                guard let r = ServiceTables.record(stmt) else { return nil }
                return sqlite3_column_name(r.pointee.stmt, column)
            },
            column_int64: { stmt, column in
                guard let r = ServiceTables.record(stmt) else { return 0 }
                return sqlite3_column_int64(r.pointee.stmt, column)
            },
            column_double: { stmt, column in
                guard let r = ServiceTables.record(stmt) else { return 0 }
                return sqlite3_column_double(r.pointee.stmt, column)
            },
            column_text: { stmt, column, length in
                guard let r = ServiceTables.record(stmt) else { return nil }
                guard let text = sqlite3_column_text(r.pointee.stmt, column) else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = Int(sqlite3_column_bytes(r.pointee.stmt, column))
                return UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)
            },
            column_blob: { stmt, column, length in
                guard let r = ServiceTables.record(stmt) else { return nil }
                let blob = sqlite3_column_blob(r.pointee.stmt, column)
                length?.pointee = Int(sqlite3_column_bytes(r.pointee.stmt, column))
                return blob
            },
            begin: { host, reply in
                PluginInstance.withDatabase(host, reply) { db in
                    let status = db.begin()
                    if status != Int32(CLUBHOUSE_OK) { reply?.write(db.lastError) }
                    return status
                }
            },
            commit: { host, reply in
                PluginInstance.withDatabase(host, reply) { db in
                    let status = db.commit()
                    if status != Int32(CLUBHOUSE_OK) { reply?.write(db.lastError) }
                    return status
                }
            },
            rollback: { host in
                PluginInstance.withDatabase(host, nil) { $0.rollback() }
            },
            last_insert_rowid: { host in
                PluginInstance.from(host)?.openDatabase.map { sqlite3_last_insert_rowid($0.db) } ?? 0
            },
            changes: { host in
                PluginInstance.from(host)?.openDatabase.map { sqlite3_changes64($0.db) } ?? 0
            },
            last_error: { host in
                PluginInstance.from(host)?.openDatabase?.lastErrorPointer
            },
            migrate: { host, version, name, sql, reply in
                guard let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return PluginInstance.withDatabase(host, reply) { db in
                    let status = db.migrate(version: version, name: String(cString: name), sql: String(cString: sql))
                    if status != Int32(CLUBHOUSE_OK) { reply?.write(db.lastError) }
                    return status
                }
            })
    }
}

/// Dotted-key lookup into a plugin's config object ("physics.capture"; "" = everything).
enum ConfigLookup {
    static func value(in config: JSONValue, key: String) -> JSONValue? {
        if key.isEmpty { return config }
        var current = config
        for part in key.split(separator: ".", omittingEmptySubsequences: false) {
            if let object = current.objectValue, let next = object[String(part)] {
                current = next
            } else if let array = current.arrayValue, let i = Int(part), array.indices.contains(i) {
                current = array[i]
            } else {
                return nil
            }
        }
        return current
    }
}
