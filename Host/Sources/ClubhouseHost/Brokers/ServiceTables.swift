// The C function tables the host hands out through get_service. Each table is built by its
// broker (`makeServiceTable()`, in the broker's file, a thin face over the broker's Swift API);
// every function is a C function pointer without captures: it finds its Swift context through
// `host->host_data` (the instance), `call->host_data` (the call), or the opaque handle it was
// given (statement, device). An isolated plugin reaches the same Swift APIs through each broker's
// wire face (see `IsolatedPlugin.serve`); its runner fills the same set (ServiceTableSet) with
// proxies.

import ClubhouseWire

enum ServiceTables {
    /// The tables, built once per process and never changed (the pointers stay valid for its life).
    static let shared = ServiceTableSet(
        log: LogBroker.makeServiceTable(), config: ConfigBroker.makeServiceTable(), storage: StorageBroker.makeServiceTable(),
        progress: ProgressBroker.makeServiceTable(), invoke: InvokeBroker.makeServiceTable(), device: DeviceBroker.makeServiceTable(),
        files: FilesBroker.makeServiceTable(), events: EventsBroker.makeServiceTable(), publish: PublishBroker.makeServiceTable())
}
