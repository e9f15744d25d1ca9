// The log service in Swift. Compiled with PluginKitTests (page: PluginSDK/docs/services/log.md).

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
/// After an import: a warning everyone sees, and details only with -v (the message is an
/// autoclosure, built only when the level is shown).
func logImportSummary(_ log: Logger, file: String, rows: Int, skipped: Int) {
    if skipped > 0 { log.warning("some rows were skipped; run with -v for the count") }
    log.info("\(file): \(rows) rows imported, \(skipped) skipped")
    if log.isEnabled(.trace) {
        log.trace("skipped rows: \((0..<skipped).map { "#\($0)" }.joined(separator: ","))")
    }
}
// END EXAMPLE
