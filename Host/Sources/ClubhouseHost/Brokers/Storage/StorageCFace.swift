// The storage service's C face: the clubhouse_storage_service table an in-process plugin gets.
// Each function is a thin adapter: pointers in, the Swift API (StorageService.swift), a status out.

import CClubhouse
import ClubhouseABI
#if canImport(Glibc)
import Glibc
#endif

extension StorageBroker {
    static func makeServiceTable() -> clubhouse_storage_service {
        clubhouse_storage_service(
            struct_size: UInt32(MemoryLayout<clubhouse_storage_service>.size),
            exec: { host, sql, reply in
                guard let instance = PluginInstance.from(host), let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).exec(cString: sql), reply)
            },
            prepare: { host, sql, out, reply in
                guard let instance = PluginInstance.from(host), let sql, let out else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let (outcome, statement) = StorageService(instance: instance).prepare(sql)
                out.pointee = statement?.handle
                return StorageBroker.answer(outcome, reply)
            },
            bind_null: { stmt, index in StorageStatement(stmt)?.bindNull(index) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_int64: { stmt, index, value in StorageStatement(stmt)?.bindInt64(index, value) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_double: { stmt, index, value in StorageStatement(stmt)?.bindDouble(index, value) ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            bind_text: { stmt, index, text, length in
                guard let s = StorageStatement(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                guard let text else { return s.bindNull(index) }
                return s.bindText(index, UnsafeRawBufferPointer(start: text, count: length))
            },
            bind_blob: { stmt, index, bytes, length in
                guard let s = StorageStatement(stmt) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return s.bindBlob(index, UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length))
            },
            step: { stmt in StorageStatement(stmt)?.step() ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            reset: { stmt in StorageStatement(stmt)?.reset() ?? Int32(CLUBHOUSE_INVALID_ARGUMENT) },
            finalize: { stmt in StorageStatement(stmt)?.finalize() },
            column_count: { stmt in StorageStatement(stmt)?.columnCount ?? 0 },
            column_type: { stmt, column in StorageStatement(stmt)?.columnType(column) ?? Int32(CLUBHOUSE_TYPE_NULL) },
            column_name: { stmt, column in StorageStatement(stmt)?.columnName(column) },
            column_int64: { stmt, column in StorageStatement(stmt)?.columnInt64(column) ?? 0 },
            column_double: { stmt, column in StorageStatement(stmt)?.columnDouble(column) ?? 0 },
            column_text: { stmt, column, length in
                guard let text = StorageStatement(stmt)?.columnText(column) else {
                    length?.pointee = 0
                    return nil
                }
                length?.pointee = text.count
                return text.baseAddress
            },
            column_blob: { stmt, column, length in
                guard let s = StorageStatement(stmt) else { return nil }
                let blob = s.columnBlob(column)
                length?.pointee = blob.count
                return blob.baseAddress
            },
            begin: { host, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).begin(), reply)
            },
            commit: { host, reply in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).commit(), reply)
            },
            rollback: { host in
                guard let instance = PluginInstance.from(host) else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageService(instance: instance).rollback().status
            },
            last_insert_rowid: { host in
                PluginInstance.from(host).map { StorageService(instance: $0).lastInsertRowID } ?? 0
            },
            changes: { host in
                PluginInstance.from(host).map { StorageService(instance: $0).changes } ?? 0
            },
            last_error: { host in
                PluginInstance.from(host).flatMap { StorageService(instance: $0).database }?.lastErrorPointer
            },
            migrate: { host, version, name, sql, reply in
                guard let instance = PluginInstance.from(host), let name, let sql else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return StorageBroker.answer(StorageService(instance: instance).migrate(version: version, name: String(cString: name),
                                                                                       cString: sql), reply)
            },
            bind_parameter_index: { stmt, name in
                guard let s = StorageStatement(stmt), let name else { return 0 }
                return s.parameterIndex(name)
            },
            bind_parameter_count: { stmt in StorageStatement(stmt)?.parameterCount ?? 0 },
            bind_parameter_name: { stmt, index in StorageStatement(stmt)?.parameterName(index) },
            column_index: { stmt, name in
                guard let s = StorageStatement(stmt), let name else { return -1 }
                return s.columnIndex(name)
            })
    }

    /// A status for C, its message (when it failed) in the reply.
    @inline(__always)
    static func answer(_ outcome: StorageOutcome, _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        if !outcome.isOK { reply?.write(outcome.message) }
        return outcome.status
    }
}
