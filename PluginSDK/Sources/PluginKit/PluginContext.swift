// What an instance gets from the host: its site, and Swift wrappers around each service table.

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

/// The services of one plugin instance. Valid from `init(context:)` until the instance is destroyed.
/// @unchecked Sendable: immutable; the host's services it reaches may be called from any thread of a call.
public final class PluginContext: @unchecked Sendable {
    /// The site this instance serves, eg: "default".
    public let site: String
    /// The name the site gives the plugin on the command line, eg: "putting".
    public let alias: String
    /// The host's version, eg: "1.0.0".
    public let hostVersion: String

    public let log: Logger
    public let config: Config
    let services: ServiceTables

    init(host: UnsafePointer<clubhouse_host>) {
        let services = ServiceTables(host: host)
        self.services = services
        self.site = host.pointee.site.map { String(cString: $0) } ?? "default"
        self.alias = host.pointee.alias.map { String(cString: $0) } ?? ""
        self.hostVersion = host.pointee.version.map { String(cString: $0) } ?? "0.0.0"
        self.log = Logger(services: services)
        self.config = Config(services: services)
    }

    /// The plugin's database (requires the "clubhouse.storage/1" service and the site's "storage" grant).
    public func storage() throws -> Storage {
        guard let table = services.storage else {
            throw PluginError.denied("storage is not available: the site must grant \"storage\" to plugin '\(alias)'")
        }
        return Storage(host: services.host, table: table)
    }

    /// The device registry (requires "clubhouse.device/1" and a "device:NAME" grant per device).
    public func devices() throws -> Devices {
        guard let table = services.device else {
            throw PluginError.denied("devices are not available: the site must grant \"device:NAME\" to plugin '\(alias)'")
        }
        return Devices(host: services.host, table: table)
    }
}

/// The raw service tables, looked up once per instance.
/// @unchecked Sendable: immutable pointers to the host's tables, which live as long as the instance.
final class ServiceTables: @unchecked Sendable {
    let host: UnsafePointer<clubhouse_host>
    let log: UnsafePointer<clubhouse_log_service>?
    let config: UnsafePointer<clubhouse_config_service>?
    let storage: UnsafePointer<clubhouse_storage_service>?
    let progress: UnsafePointer<clubhouse_progress_service>?
    let invoke: UnsafePointer<clubhouse_invoke_service>?
    let device: UnsafePointer<clubhouse_device_service>?
    /// "clubhouse.files/1" (services/files.h): path arguments as descriptors; Files.swift uses it.
    let files: UnsafePointer<clubhouse_files_service>?
    /// "clubhouse.events/1" (services/events.h, ABI 1.3): Events.swift uses it.
    let events: UnsafePointer<clubhouse_events_service>?
    /// "clubhouse.publish/1" (services/publish.h, ABI 1.4): Outbox.swift uses it.
    let publish: UnsafePointer<clubhouse_publish_service>?

    init(host: UnsafePointer<clubhouse_host>) {
        self.host = host
        func lookup<T>(_ id: String, _ type: T.Type) -> UnsafePointer<T>? {
            guard let get = host.pointee.get_service, let raw = get(host, id) else { return nil }
            // A table smaller than its first version is unusable; treat it as absent.
            let table = raw.assumingMemoryBound(to: UInt32.self)
            guard table.pointee >= UInt32(MemoryLayout<UInt32>.size) else { return nil }
            return raw.assumingMemoryBound(to: T.self)
        }
        log = lookup(Service.log.rawValue, clubhouse_log_service.self)
        config = lookup(Service.config.rawValue, clubhouse_config_service.self)
        storage = lookup(Service.storage.rawValue, clubhouse_storage_service.self)
        progress = lookup(Service.progress.rawValue, clubhouse_progress_service.self)
        invoke = lookup(Service.invoke.rawValue, clubhouse_invoke_service.self)
        device = lookup(Service.device.rawValue, clubhouse_device_service.self)
        files = lookup(CLUBHOUSE_SERVICE_FILES, clubhouse_files_service.self)
        events = lookup(CLUBHOUSE_SERVICE_EVENTS, clubhouse_events_service.self)
        publish = lookup(CLUBHOUSE_SERVICE_PUBLISH, clubhouse_publish_service.self)
    }

    func invokePlugin(alias: String, command: String, arguments: JSONObject,
                      call: UnsafePointer<clubhouse_call>) throws -> InvokeResult {
        guard let table = invoke, let fn = table.pointee.invoke else {
            throw PluginError.denied("calling other plugins is not available: the site must grant \"invoke:\(alias)\"")
        }
        var request: [UInt8] = []
        JSONWriter.appendCompact(["arguments": .object(arguments)], to: &request)
        let buffer = ReplyBuffer()
        let status = buffer.withSink { sink in
            request.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    fn(host, call, alias, command, chars.baseAddress, chars.count, sink)
                }
            }
        }
        guard status == Int32(CLUBHOUSE_OK) else {
            throw PluginError(PluginStatus(rawValue: status) ?? .error, buffer.text)
        }
        let reply = try JSONParser.parse(bytes: buffer.bytes)
        return InvokeResult(data: reply["data"] ?? .null, text: reply["text"]?.stringValue)
    }
}

/// Logging into the host's log (--verbose shows info, -vv debug, -vvv trace).
public struct Logger: Sendable {
    public enum Level: Int32, Sendable {
        case error = 0, warning, info, debug, trace
    }

    let services: ServiceTables

    public func isEnabled(_ level: Level) -> Bool {
        guard let table = services.log, let enabled = table.pointee.enabled else { return false }
        return enabled(services.host, level.rawValue) != 0
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard let table = services.log, let write = table.pointee.write, isEnabled(level) else { return }
        write(services.host, level.rawValue, message())
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
}

/// The plugin's `config` object from the site's plugins.json, by dotted key.
public struct Config: Sendable {
    let services: ServiceTables

    /// The value at `key` ("physics.capture"; "" for the whole object), or nil when absent.
    public func value(_ key: String) -> JSONValue? {
        guard let table = services.config, let get = table.pointee.get else { return nil }
        let buffer = ReplyBuffer()
        let status = buffer.withSink { get(services.host, key, $0) }
        guard status == Int32(CLUBHOUSE_OK) else { return nil }
        return try? JSONParser.parse(bytes: buffer.bytes)
    }

    public func string(_ key: String, default fallback: String) -> String {
        value(key)?.stringValue ?? fallback
    }

    public func double(_ key: String, default fallback: Double) -> Double {
        value(key)?.doubleValue ?? fallback
    }

    public func int(_ key: String, default fallback: Int) -> Int {
        value(key)?.intValue ?? fallback
    }

    public func bool(_ key: String, default fallback: Bool) -> Bool {
        value(key)?.boolValue ?? fallback
    }

    /// Decodes the value at `key` into a Decodable type; nil when absent.
    public func decode<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        guard let v = value(key) else { return nil }
        do {
            return try JSONBridge.decode(type, from: v)
        } catch {
            throw PluginError.invalidArgument("config key '\(key)' does not fit \(T.self): \(JSONBridge.describe(error))")
        }
    }
}

/// Progress of one call.
public struct Progress {
    let service: UnsafePointer<clubhouse_progress_service>?
    let call: UnsafePointer<clubhouse_call>

    /// What a stage counts: the bar shows items with thousands separators ("12,345/21,000") and
    /// bytes in binary units ("12.3 MiB / 40.0 MiB, 5.1 MiB/s").
    public enum Unit: Sendable {
        case items, bytes

        var code: UInt32 {
            switch self {
            case .items: return UInt32(CLUBHOUSE_PROGRESS_UNIT_ITEMS)
            case .bytes: return UInt32(CLUBHOUSE_PROGRESS_UNIT_BYTES)
            }
        }
    }

    /// Starts a stage: what is being done, how many units (0 = unknown) and what they are.
    /// A host older than ABI 1.2 shows every stage in items.
    public func begin(_ label: String, total: Int = 0, unit: Unit = .items) {
        service?.pointee.begin?(call, label, UInt64(max(0, total)))
        if unit != .items, let setUnit = setUnitFunction { setUnit(call, unit.code) }
    }

    /// set_unit when the host's table has it (it was appended in ABI 1.2; see struct_size).
    private var setUnitFunction: (@convention(c) (UnsafePointer<clubhouse_call>?, UInt32) -> Void)? {
        guard let table = service,
              let offset = MemoryLayout<clubhouse_progress_service>.offset(of: \.set_unit),
              Int(table.pointee.struct_size) >= offset + MemoryLayout<UnsafeRawPointer>.size
        else { return nil }
        return table.pointee.set_unit
    }

    /// Reports units done in the current stage (cheap; the host rate-limits drawing).
    public func update(_ done: Int) {
        service?.pointee.update?(call, UInt64(max(0, done)))
    }

    public func end() {
        service?.pointee.end?(call)
    }
}
