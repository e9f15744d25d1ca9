// The site's `config` for putting, as the host checks it before the plugin starts (ConfigSchema
// in the host; `clubhouse config validate` reports what does not fit with its file:line:column).

import ClubhouseJSON
import PluginKit
import PuttingCore

extension Putting {
    static let configSchema: JSONValue? = [
        "type": "object",
        "additionalProperties": false,
        "properties": [
            "stimp": ["type": "number", "minimum": .double(PuttingError.stimpRange.lowerBound),
                      "maximum": .double(PuttingError.stimpRange.upperBound), "default": 10,
                      "description": "Green speed (Stimpmeter, feet) when a command gives none"],
            "model": ["enum": .array(PuttingModel.allCases.map { .string($0.rawValue) }), "default": .string(PuttingModel.physics.rawValue),
                      "description": "The putting model when a command gives none"],
            "past_hole_in": ["type": "number", "minimum": 0, "maximum": 120, "default": 17,
                             "description": "How far past the hole a putt is aimed to finish, in inches"],
            "skill": ["enum": .array(SkillLevel.allCases.map { .string($0.rawValue) }), "default": .string(SkillLevel.tour.rawValue),
                      "description": "Whose stroke the make probability assumes: tour, scratch, 10, 20 or 25 (a handicap)"],
            "aim_sd_deg": ["type": "number", "minimum": 0, "maximum": 10, "default": .double(StrokeErrors.tour.aimSDDeg),
                           "description": "Spread of the aim, in degrees (make probability; replaces the skill level's)"],
            "speed_sd_pct": ["type": "number", "minimum": 0, "maximum": 50, "default": .double(StrokeErrors.tour.speedSDFraction * 100),
                             "description": "Spread of the speed, in percent (make probability; replaces the skill level's)"],
        ],
    ]
}
