// The one deadline every host service asks before it acts for a call, and the bound of every wait it
// makes for one (issue 27; RELIABILITY.md § Cancellation).
//
// A cancelled call gets CallContext.cleanupGraceMilliseconds (5 s) from the moment its plugin saw the
// cancel; a call with `limits.wall_ms` is cancelled at the wall and gets the same grace after it (its own
// wall or an outer call's, for a call nested by clubhouse.invoke). When that grace is over the call may
// no longer act: every act below is refused with the stop's status (`cancelled`, or `timeout` for a
// wall-clock limit) and a one-line message naming the act and the grace or limit. A result the plugin
// returns after it is dropped (PluginInstance.invoke).
//
// Where the gate sits: an in-process plugin calls the brokers' C tables directly (function pointers,
// no dispatcher in between), an isolated one reaches them through IsolatedPlugin.serve; both faces
// end in one implementation per service, and the gate is asked at the start of that implementation,
// so the two faces cannot disagree:
//   storage    StorageService's exec, prepare, begin, commit and migrate, and StorageStatement.step,
//              through PluginDatabase.refuseService                      → .statement, .begin, .commit, .migrate
//   outbox     PublishBroker.publish                                     → .publishRecord
//   events     EventsBroker.publish                                      → .publishEvent
//   invoke     SiteRuntime.invokeFromPlugin                              → .invoke
//   files      FilesBroker.open                                          → .openFile
//   devices    DeviceBroker.open, DeviceConnection.write/read/setSafeState → .openDevice, .writeDevice, …
// (The runner's proxies add nothing of their own: an isolated plugin's refusal is the host's, status and
// message, so the two faces answer alike: DeadlineEndToEndTests runs the same fixture in both.)
// What stays allowed after the grace, so a plugin can still clean up and nothing is left half done:
// rollback (a transaction open past the grace is never committed: commit is refused and the host rolls
// it back at the end of the call at the latest), finalize and reset of statements, closing a device (a
// device left unsafe is stopped by the host: DeviceSafety.swift), log, progress, config reads,
// last_error. None of these changes what the call leaves behind.
//
// Waits: a service that blocks for a call (a device read, the callee of an invoke, opening a FIFO to
// write) waits no longer than `waitBound`: the end of the call's grace. A cancel that arrives while the
// plugin is blocked in such a wait counts as seen by it (its grace starts then): it cannot ask
// is_cancelled while it waits.

/// Every act of a host service that the call's deadline can refuse (ServiceGate.swift's list).
enum ServiceAct: String, Sendable, CaseIterable {
    case statement = "the statement"
    case begin = "begin"
    case commit = "commit"
    case migrate = "migrate"
    case publishRecord = "publish (the outbox record)"
    case publishEvent = "the event"
    case invoke = "invoke"
    case openFile = "opening the file"
    case openDevice = "opening the device"
    case writeDevice = "the device write"
    case readDevice = "the device read"
    case deviceSafeState = "the device's safe state"
}

enum ServiceGate {
    /// The refusal of `act` for `call` (the thread's running call when not given), or nil: it may act.
    static func refusal(_ act: ServiceAct, call: CallContext? = CallContext.current) -> (status: Int32, message: String)? {
        call?.refusal(act)
    }

    /// The longest a wait of `requested` milliseconds may last for `call` (the thread's running call when
    /// not given): never past the end of its grace. A cancel the call got while it waits counts as seen.
    static func waitBound(_ requested: Int, call: CallContext? = CallContext.current) -> Int {
        guard let call else { return requested }
        if call.isCancelled { call.noteCancelSeen() }
        guard let left = call.millisecondsUntilGraceEnds else { return requested }
        return max(0, min(requested, left))
    }
}
