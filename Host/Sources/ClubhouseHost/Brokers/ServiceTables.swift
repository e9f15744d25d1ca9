// The C function tables the host hands out through get_service. Each table is built by its
// broker (`makeServiceTable()`, in the broker's file, a thin face over the broker's Swift API);
// every function is a C function pointer without captures: it finds its Swift context through
// `host->host_data` (the instance), `call->host_data` (the call), or the opaque handle it was
// given (statement, device). An isolated plugin reaches the same Swift APIs through each broker's
// wire face (see `IsolatedPlugin.serve`).

import CClubhouse

/// The tables, built once per process and never changed (the pointers stay valid for its life).
final class ServiceTables: @unchecked Sendable {
    let log: UnsafeMutablePointer<clubhouse_log_service>
    let config: UnsafeMutablePointer<clubhouse_config_service>
    let storage: UnsafeMutablePointer<clubhouse_storage_service>
    let progress: UnsafeMutablePointer<clubhouse_progress_service>
    let invoke: UnsafeMutablePointer<clubhouse_invoke_service>
    let device: UnsafeMutablePointer<clubhouse_device_service>
    let files: UnsafeMutablePointer<clubhouse_files_service>
    let events: UnsafeMutablePointer<clubhouse_events_service>
    let publish: UnsafeMutablePointer<clubhouse_publish_service>

    static let shared = ServiceTables()

    private init() {
        log = .allocate(capacity: 1)
        log.initialize(to: LogBroker.makeServiceTable())

        config = .allocate(capacity: 1)
        config.initialize(to: ConfigBroker.makeServiceTable())

        storage = .allocate(capacity: 1)
        storage.initialize(to: StorageBroker.makeServiceTable())

        progress = .allocate(capacity: 1)
        progress.initialize(to: ProgressBroker.makeServiceTable())

        invoke = .allocate(capacity: 1)
        invoke.initialize(to: InvokeBroker.makeServiceTable())

        device = .allocate(capacity: 1)
        device.initialize(to: DeviceBroker.makeServiceTable())

        files = .allocate(capacity: 1)
        files.initialize(to: FilesBroker.makeServiceTable())

        events = .allocate(capacity: 1)
        events.initialize(to: EventsBroker.makeServiceTable())

        publish = .allocate(capacity: 1)
        publish.initialize(to: PublishBroker.makeServiceTable())
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
        case CLUBHOUSE_SERVICE_FILES: return UnsafeRawPointer(files)
        case CLUBHOUSE_SERVICE_EVENTS: return UnsafeRawPointer(events)
        case CLUBHOUSE_SERVICE_PUBLISH: return UnsafeRawPointer(publish)
        default: return nil
        }
    }
}
