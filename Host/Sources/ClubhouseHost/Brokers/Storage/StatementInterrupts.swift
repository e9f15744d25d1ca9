// The progress handler of every plugin connection: what stops a statement whose call was cancelled
// or ran past its deadline. SQLite calls it every 1,000 virtual-machine steps on the thread running
// the statement; a nonzero answer interrupts the statement (SQLITE_INTERRUPT), which
// PluginDatabase.describe turns into `the statement was interrupted: …` with the call's reason.
//
// What a cancelled call may still do (RELIABILITY.md § Cancellation and devices, storage.h): once
// the call has looked at its cancel (clubhouse_call.is_cancelled answered true), its statements run
// for a grace of 5 s from that moment so it can store what happened and clean up; a call that never
// looks is interrupted at once; a deadline passed, or an isolated call's wall_ms + the grace, interrupts always
// (CallContext.interruptsStatements); after the grace later statements are refused before they run
// (PluginDatabase.refuseService, issue 27).

import CSQLite

enum StatementInterrupts {
    /// Virtual-machine steps between two looks.
    static let period: Int32 = 1000

    /// Installs the handler on a connection (PluginDatabase.init). It stops the statement running
    /// on this thread when its call (or an outer one) is past its deadline, or was cancelled and has
    /// not seen it or used up its grace: one thread-local read and atomic loads, the clock only with
    /// a deadline or a grace. A statement that runs outside any call is never interrupted.
    static func install(on db: OpaquePointer) {
        sqlite3_progress_handler(db, period, { _ in
            guard let call = CallContext.current else { return 0 }
            return call.interruptsStatements ? 1 : 0
        }, nil)
    }
}
