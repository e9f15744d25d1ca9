// Config broker: a plugin reads its own "config" object from plugins.json by dotted key.
// One implementation (`ConfigLookup`), reached two ways: the C table an in-process plugin gets,
// and, for an isolated plugin, the runner's own table over the same lookup (the config object
// travels once, with `create`, so a read never crosses the pipe).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

enum ConfigBroker {
    /// The C face: `get` answers the plugin whose host struct is passed.
    static func makeServiceTable() -> clubhouse_config_service {
        clubhouse_config_service(
            struct_size: UInt32(MemoryLayout<clubhouse_config_service>.size),
            get: { host, key, reply in
                guard let instance = PluginInstance.from(host), let key else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ConfigBroker.get(in: instance.entry.config, key: String(cString: key), reply: reply)
            })
    }

    /// `get` over a config object (shared by the host's table and the runner's).
    static func get(in config: JSONValue, key: String, reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        guard let value = ConfigLookup.value(in: config, key: key) else { return Int32(CLUBHOUSE_NOT_FOUND) }
        reply?.write(JSONWriter.compact(value))
        return Int32(CLUBHOUSE_OK)
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
