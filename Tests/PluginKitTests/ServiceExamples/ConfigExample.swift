// The config service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/config.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// Settings from the site's plugins.json, eg:
/// `"putting": {"path": "…", "config": {"greens": {"stimp": 10.5}, "units": "feet"}}`.
struct GreenSettings: Decodable {
    var stimp: Double
    var slopeLimit: Double?
}

func greenSettings(_ config: Config) throws -> (stimp: Double, units: String, greens: GreenSettings?) {
    let stimp = config.double("greens.stimp", default: 10.0) // the plugin's own default when absent
    let units = config.string("units", default: "metres")
    let greens = try config.decode(GreenSettings.self, "greens") // nil when absent, throws when malformed
    return (stimp, units, greens)
}
// END EXAMPLE
