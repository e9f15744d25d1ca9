// The site's `config` for tennis, as the host checks it before the plugin starts (ConfigSchema in
// the host; `clubhouse config validate` reports what does not fit with its file:line:column).
// SiteSettings still checks what a schema cannot say (a speed in steps of 10, a table's entries).

import ClubhouseJSON
import PluginKit
import TennisCore

extension Tennis {
    static let configSchema: JSONValue? = [
        "type": "object",
        "additionalProperties": false,
        "properties": [
            "device": ["type": "string", "default": "ballmachine", "description": "The site's device (under \"devices\") the machine is on"],
            "checksum": ["enum": .array(Checksum.allCases.map { .string($0.rawValue) }), "default": "xor",
                         "description": "The check byte of each frame: xor (protocol v0.3) or modbus (later firmware)"],
            "interval_s": ["type": "number", "minimum": .double(LaunchPlanner.intervalRange.lowerBound),
                           "maximum": .double(LaunchPlanner.intervalRange.upperBound), "default": .double(LaunchPlanner.defaultInterval),
                           "description": "Seconds between balls"],
            "speed_mph": ["type": "integer", "minimum": 20, "maximum": 80, "default": 50, "description": "Ball speed, 20-80 mph in steps of 10"],
            "spin": ["enum": .array(Spin.allCases.map { .string($0.rawValue) }), "default": "topspin", "description": "Spin of each ball"],
            "backspin": ["type": "boolean", "default": false, "description": "Whether the command table has backspin entries"],
            "reply_timeout_s": ["type": "number", "minimum": 0, "maximum": 30, "default": 2,
                                "description": "Seconds to wait for the machine's answer to a frame"],
            "attempts": ["type": "integer", "minimum": 1, "maximum": 5, "default": 2, "description": "Tries per frame"],
            "table": ["type": "object", "description": "A calibrated command table, inline (clubhouse tennis table --help)"],
            "table_file": ["type": "string", "description": "A calibrated command table's file"],
        ],
    ]
}
