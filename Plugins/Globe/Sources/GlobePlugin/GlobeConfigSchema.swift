// The site's `config` for globe, as the host checks it before the plugin starts (ConfigSchema in
// the host; `clubhouse config validate` reports what does not fit with its file:line:column).
// Null stands for "the default" (GlobeConfiguration).

import ClubhouseJSON
import GlobeCore
import PluginKit

extension GlobePlugin {
    static let configSchema: JSONValue? = {
        func text(_ description: String) -> JSONValue { ["type": ["string", "null"], "description": .string(description)] }
        var properties: JSONObject = [
            "user": text("The user when a command gets no --user"),
            "countries": text("A GeoJSON country set to use instead of the bundled one (relative to plugins.json)"),
            "highlights": text("A country_highlights.json to use instead of the bundled highlights"),
            "challenges": text("A daily_challenges.json to use instead of the generated schedule"),
            "scheduleEpoch": text("The first day of the generated challenge schedule, YYYY-MM-DD"),
            "scheduleSeed": ["type": ["integer", "null"], "minimum": 0, "description": "The generated schedule's seed"],
            "toleranceKm": ["type": ["number", "null"], "minimum": 0, "maximum": 500,
                            "description": "How far off a coordinate may be and still count as in a country, in km"],
        ]
        properties["denominator"] = ["enum": .array(Denominator.allCases.map { .string($0.rawValue) } + [.null]),
                                     "description": "What stats counts against by default"]
        return ["type": "object", "additionalProperties": false, "properties": .object(properties)]
    }()
}
