// The site's `config` for scorecard, as the host checks it before the plugin starts (ConfigSchema
// in the host; `clubhouse config validate` reports what does not fit with its file:line:column).

import ClubhouseJSON
import PluginKit
import ScorecardCore

extension Scorecard {
    static let configSchema: JSONValue? = {
        let range = AllowanceTable.range
        var properties: JSONObject = [
            "allowance_percent": ["type": "integer", "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound), "default": 0,
                                  "description": "Allowance for every format, percent of the Course Handicap (0: Appendix C per format)"],
        ]
        for format in PlayFormat.allCases {
            properties[format.configKey] = ["type": "integer", "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound),
                                            "description": .string("Allowance for \(format.rawValue), percent of the Course Handicap")]
        }
        return ["type": "object", "additionalProperties": false, "properties": .object(properties)]
    }()
}
