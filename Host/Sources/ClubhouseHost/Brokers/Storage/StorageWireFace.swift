// The storage service's wire face: a runner's storage service calls, decoded and answered
// through the same Swift API as the C face (StorageService.swift). The messages, each with its
// encoder and decoder, are the wire module's (Host/Sources/Wire/WireMessages.swift: StorageRequest,
// StepRequest, StorageReplyTail, PreparedReply, RowReply).

import CClubhouse
import ClubhouseABI
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

extension StorageBroker {
    /// Answers a runner's storage service call. Every reply starts with the tail (message, last
    /// insert rowid, changes); a prepare adds the statement (PreparedReply), a step on a row the
    /// row (RowReply). A statement lives in the host; the runner names it by its handle in
    /// `statements`.
    static func serve(_ request: StorageRequest, service: StorageService,
                      statements: inout WireHandles<StorageStatement>) -> (Int32, [UInt8]) {
        var w = WireWriter()
        func tail(_ message: String) {
            StorageReplyTail(message: message, lastInsertRowID: service.lastInsertRowID, changes: service.changes).encode(into: &w)
        }
        func answer(_ outcome: StorageOutcome) -> (Int32, [UInt8]) {
            tail(outcome.message)
            return (outcome.status, w.bytes)
        }
        switch request {
        case .exec(let sql):
            return answer(service.exec(sql))
        case .prepare(let sql):
            let (outcome, prepared) = service.prepare(sql)
            guard let statement = prepared else { return answer(outcome) }
            tail("")
            let count = max(0, statement.columnCount)
            let parameters = max(0, statement.parameterCount)
            PreparedReply(handle: statements.insert(statement),
                          columns: (0..<count).map { c in statement.columnName(c).map { String(cString: $0) } ?? "" },
                          parameters: (0..<parameters).map { p in statement.parameterName(p + 1).map { String(cString: $0) } ?? "" },
                          compiledBytes: Int64(statement.record.pointee.compiledBytes)).encode(into: &w)
            return (outcome.status, w.bytes)
        case .step(let step):
            guard let statement = statements[step.handle] else {
                tail("no such statement")
                return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
            }
            if step.resetFirst { _ = statement.reset() }
            // The binds a plugin made since its last step; the first refusal is the step's answer
            // (an honest runner refused it already at the bind, with the same message).
            for bind in step.binds {
                let rc = statement.bind(bind.index, bind.value)
                if rc != Int32(CLUBHOUSE_OK) {
                    tail(statement.database.lastError)
                    return (rc, w.bytes)
                }
            }
            let status = statement.step()
            tail(status == Int32(CLUBHOUSE_ROW) || status == Int32(CLUBHOUSE_DONE) ? "" : statement.database.lastError)
            if status == Int32(CLUBHOUSE_ROW) { RowReply.encode(statement, into: &w) }
            return (status, w.bytes)
        case .begin:
            return answer(service.begin())
        case .commit:
            return answer(service.commit())
        case .rollback:
            return answer(service.rollback())
        case .migrate(let version, let name, let sql):
            return answer(service.migrate(version: version, name: name, sql: sql))
        }
    }

    /// A truncated or unreadable storage call: its answer (the tail with the reason).
    static func malformed(_ error: WireError, service: StorageService) -> (Int32, [UInt8]) {
        var w = WireWriter()
        StorageReplyTail(message: "malformed service call: \(error)", lastInsertRowID: service.lastInsertRowID,
                         changes: service.changes).encode(into: &w)
        return (Int32(CLUBHOUSE_INVALID_ARGUMENT), w.bytes)
    }

    /// A runner's one-way `resetStatement` frame: a statement its plugin reset while it stood on a
    /// row (eg a cached statement after a one-row query) is rewound at once, so it holds no read
    /// snapshot and does not keep a COMMIT waiting.
    static func serveReset(_ payload: [UInt8], statements: WireHandles<StorageStatement>) {
        if let message = try? HandleMessage.decode(payload), let statement = statements[message.handle] { _ = statement.reset() }
    }

    /// A runner's one-way `finalize` frame.
    static func serveFinalize(_ payload: [UInt8], statements: inout WireHandles<StorageStatement>) {
        if let message = try? HandleMessage.decode(payload), let statement = statements.remove(message.handle) { statement.finalize() }
    }
}
