// Fuzzes `practice import`: the Rapsodo MLM2PRO CSV reader, then the whole import (grading by the
// default KPI templates, the session batch) into an in-memory store, as the plugin does with a
// user's file. Properties: parsing never crashes; an accepted file imports once and is refused
// the second time (same content hash); every shot of the export is stored.

import PracticeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRapsodo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let export: RapsodoExport
    do {
        export = try RapsodoParser.parse(bytes, sourceName: "fuzz.csv")
    } catch {
        _ = error.description
        return 0
    }
    _ = export.clubs
    let store = InMemoryPracticeStore()
    let importer = SessionImporter(library: TemplateLibrary(store: store, now: { "2026-01-27T16:30:00Z" }))
    do {
        let result = try importer.run(ImportRequest(csv: bytes, sourceName: "fuzz.csv"))
        _ = result.text
        let stored = (try? store.shots(sessionID: result.session.id))?.count
        if stored != export.shots.count || result.session.shotCount != export.shots.count {
            fatalError("fuzz-rapsodo: \(export.shots.count) shots parsed, \(stored ?? -1) stored, session says \(result.session.shotCount)")
        }
        do {
            _ = try importer.run(ImportRequest(csv: bytes, sourceName: "fuzz.csv"))
            fatalError("fuzz-rapsodo: the same file was imported twice")
        } catch {
            _ = error.description
        }
    } catch {
        _ = error.description
    }
    return 0
}
