// The progress handler of every plugin connection: what stops a statement whose call was cancelled
// or ran past its deadline. SQLite calls it every 1,000 virtual-machine steps on the thread running
// the statement; a nonzero answer interrupts the statement (SQLITE_INTERRUPT), which
// PluginDatabase.describe turns into `the statement was interrupted: …` with the call's reason.

import CSQLite

enum StatementInterrupts {
    /// Virtual-machine steps between two looks.
    static let period: Int32 = 1000

    /// Installs the handler on a connection (PluginDatabase.init). It stops the statement running
    /// on this thread when its call (or an outer one) was cancelled or is past its deadline: one
    /// thread-local read and an atomic load, the clock only with a deadline. A statement that runs
    /// outside any call is never interrupted.
    static func install(on db: OpaquePointer) {
        sqlite3_progress_handler(db, period, { _ in
            guard let call = CallContext.current else { return 0 }
            return call.isCancelled || call.passedDeadline != nil ? 1 : 0
        }, nil)
    }
}
