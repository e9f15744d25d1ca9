// A ball-machine simulator (`clubhouse device simulate ballmachine`) listening on a free loopback
// port, and a configuration whose one site lets the tennis plugin drive it over TCP.

import Foundation
import XCTest

struct SimulatedCourt {
    let simulator: BackgroundClubhouse
    /// The configuration file: site `site`, device `ballmachine` on the simulator's port.
    let config: String

    /// - Parameters:
    ///   - checksum: the simulator's `--checksum` (nil: its default).
    ///   - tennisConfig: the tennis plugin's "config" object as JSON text (nil: none).
    ///   - deviceTrace: the device's "trace" setting (nil: not set).
    init(_ c: Clubhouse, site: String = "s", checksum: String? = nil, tennisConfig: String? = nil, deviceTrace: Bool? = nil,
         configName: String = "plugins.json") throws {
        let port = try freePort()
        simulator = try BackgroundClubhouse(["device", "simulate", "ballmachine", "--listen", "tcp:127.0.0.1:\(port)"]
                                            + (checksum.map { ["--checksum", $0] } ?? []), scratch: c)
        _ = try simulator.waitForLine(prefix: "listening on ")
        let trace = deviceTrace.map { ", \"trace\": \($0)" } ?? ""
        let pluginConfig = tennisConfig.map { ",\n                                 \"config\": \($0)" } ?? ""
        config = try c.write(configName, """
            {"sites": {"\(site)": {
              "devices": {"ballmachine": {"transport": "tcp:127.0.0.1:\(port)"\(trace)}},
              "plugins": {"tennis": {"id": "org.clubhouse.tennis", "grants": ["storage", "device:ballmachine"]\(pluginConfig)}}}}}
            """)
    }

    func stop() { simulator.stop() }
}
