// The site's `config` for practice: it takes no settings, so the host refuses any (ConfigSchema in
// the host) instead of letting a misplaced key go unnoticed.

import ClubhouseJSON
import PluginKit

extension Practice {
    static let configSchema: JSONValue? = ["type": "object", "additionalProperties": false, "properties": [:]]
}
