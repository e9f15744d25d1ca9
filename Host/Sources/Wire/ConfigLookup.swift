// A plugin's config object, read by dotted key: the one implementation of the config service,
// answered by the host for an in-process plugin (ConfigBroker) and by the runner itself for an
// isolated one (the object travels once, with `create`, so a read never crosses the pipe).

import CClubhouse
import ClubhouseABI
import ClubhouseJSON

package enum ConfigLookup {
    /// The value at `key` ("physics.capture", "list.0"; "" = everything), or nil.
    package static func value(in config: JSONValue, key: String) -> JSONValue? {
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

    /// The service's `get`: the value's JSON in `reply`, or CLUBHOUSE_NOT_FOUND (nothing written).
    package static func get(in config: JSONValue, key: String, reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        guard let value = value(in: config, key: key) else { return Int32(CLUBHOUSE_NOT_FOUND) }
        reply?.write(JSONWriter.compact(value))
        return Int32(CLUBHOUSE_OK)
    }
}
