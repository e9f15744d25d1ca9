// Fuzzes plugins.json reading: ConfigurationParser.parse on arbitrary text, then every message a
// user would see (the errors' descriptions) and the parsed sites' descriptions. A crash, trap or
// hang anywhere here is a bug: `clubhouse config validate` feeds user files to exactly this path.

import ClubhouseHost
import ClubhouseLoader

/// Versions each parsed requirement is checked against (including the extremes of Int).
let probes: [SemanticVersion] = [
    SemanticVersion(major: 0, minor: 0, patch: 0), SemanticVersion(major: 1, minor: 2, patch: 3, prerelease: ["beta", "1"]),
    SemanticVersion(major: 1, minor: 2, patch: 3), SemanticVersion(major: Int.max, minor: Int.max, patch: Int.max),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let text = String(decoding: buffer, as: UTF8.self)
    do {
        let configuration = try ConfigurationParser.parse(text, source: "fuzz/plugins.json", baseDirectory: "/tmp/fuzz")
        var sink = 0
        for name in configuration.siteOrder {
            guard let site = configuration.sites[name] else { fatalError("fuzz-config: site \(name) listed but missing") }
            for plugin in site.plugins {
                sink &+= plugin.alias.utf8.count &+ plugin.grants.count &+ plugin.timeoutMilliseconds
                if let requirement = plugin.versionRequirement {
                    for version in probes where requirement.isSatisfied(by: version) { sink &+= 1 }
                }
            }
            for (_, device) in site.devices { sink &+= String(describing: device.transport).utf8.count }
        }
        if sink == Int.min { print(sink) }  // keeps the work observable
    } catch {
        if error.errors.isEmpty { fatalError("fuzz-config: a failed parse reported no problem") }
        for problem in error.errors { _ = String(describing: problem) }
        _ = String(describing: error)
    }
    return 0
}
