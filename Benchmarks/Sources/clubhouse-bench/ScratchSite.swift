// The set-up the host benchmarks share: a scratch folder holding the bench's own plugins.json,
// parsed as the CLI parses one.

import ClubhouseFrontEnds
import ClubhouseHost
#if canImport(Glibc)
import Glibc
#endif

extension Measure {
    /// Writes `config` to `<scratch>/plugins.json` (creating the folder), turns crash backtraces off
    /// (benches crash plugins on purpose) and parses it; prints why and returns nil when it fails.
    static func scratchConfiguration(_ bench: String, scratch: String, config: String) -> (path: String, configuration: SiteConfiguration)? {
        mkdir(scratch, 0o700)
        let configPath = scratch + "/plugins.json"
        guard let file = fopen(configPath, "w") else {
            print("\(bench) bench: cannot write \(configPath)")
            return nil
        }
        fputs(config, file)
        fclose(file)
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        var options = GlobalOptions()
        options.configPath = configPath
        do {
            return (configPath, try options.loadConfiguration())
        } catch {
            print("\(bench) bench: \(error)")
            return nil
        }
    }
}
