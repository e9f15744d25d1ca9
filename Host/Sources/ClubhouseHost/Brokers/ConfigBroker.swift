// Config broker: a plugin reads its own "config" object from plugins.json by dotted key.
// One implementation (`ConfigLookup`, in the wire module: both processes answer with it), reached two ways: the C table an in-process plugin gets,
// and, for an isolated plugin, the runner's own table over the same lookup (the config object
// travels once, with `create`, so a read never crosses the pipe).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON
import ClubhouseWire

enum ConfigBroker {
    /// The C face: `get` answers the plugin whose host struct is passed.
    static func makeServiceTable() -> clubhouse_config_service {
        clubhouse_config_service(
            struct_size: UInt32(MemoryLayout<clubhouse_config_service>.size),
            get: { host, key, reply in
                guard let instance = PluginInstance.from(host), let key else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return ConfigLookup.get(in: instance.entry.config, key: String(cString: key), reply: reply)
            })
    }
}
