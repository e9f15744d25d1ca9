// The set of C service tables a plugin reaches through get_service, one per service, in both
// processes: the host fills it with its brokers' C faces (ServiceTables.swift), a runner with its
// proxies over the wire (ProxyTables.swift). Which tables exist and which id names each is said
// once, here.

import CClubhouse

/// One table per service, allocated once and never freed (a plugin keeps the pointers for the
/// life of the process). @unchecked Sendable: the pointers and the tables behind them never change
/// after `init`.
package struct ServiceTableSet: @unchecked Sendable {
    package let log: UnsafeMutablePointer<clubhouse_log_service>
    package let config: UnsafeMutablePointer<clubhouse_config_service>
    package let storage: UnsafeMutablePointer<clubhouse_storage_service>
    package let progress: UnsafeMutablePointer<clubhouse_progress_service>
    package let invoke: UnsafeMutablePointer<clubhouse_invoke_service>
    package let device: UnsafeMutablePointer<clubhouse_device_service>
    package let files: UnsafeMutablePointer<clubhouse_files_service>
    package let events: UnsafeMutablePointer<clubhouse_events_service>
    /// ABI 1.4.
    package let publish: UnsafeMutablePointer<clubhouse_publish_service>

    package init(log: clubhouse_log_service, config: clubhouse_config_service, storage: clubhouse_storage_service,
                 progress: clubhouse_progress_service, invoke: clubhouse_invoke_service, device: clubhouse_device_service,
                 files: clubhouse_files_service, events: clubhouse_events_service, publish: clubhouse_publish_service) {
        func kept<Table>(_ table: Table) -> UnsafeMutablePointer<Table> {
            let pointer = UnsafeMutablePointer<Table>.allocate(capacity: 1)
            pointer.initialize(to: table)
            return pointer
        }
        self.log = kept(log)
        self.config = kept(config)
        self.storage = kept(storage)
        self.progress = kept(progress)
        self.invoke = kept(invoke)
        self.device = kept(device)
        self.files = kept(files)
        self.events = kept(events)
        self.publish = kept(publish)
    }

    /// The services a plugin reaches only when the site grants them (the others every plugin has).
    package static let granted: Set<String> = [CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_INVOKE, CLUBHOUSE_SERVICE_DEVICE,
                                                CLUBHOUSE_SERVICE_PUBLISH]

    /// The table for a service id, or nil for an id no table answers.
    package func table(for id: String) -> UnsafeRawPointer? {
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
