// What plugin SQL may touch: SQLite's authorizer on every plugin connection. Attaching, loading
// extensions and functions that reach outside the database are refused; names starting with
// "_clubhouse" belong to the host (readable, never changed, altered, created, dropped or hooked;
// the outbox's not even readable);
// pragmas are limited to introspection and checks.

import CSQLite

extension PluginDatabase {

    /// Pragmas a plugin may run: introspection and checks only.
    static let allowedPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "user_version", "schema_version", "data_version",
        "page_count", "page_size", "freelist_count", "optimize", "foreign_keys", "journal_mode",
    ]

    @inline(__always)
    static func isHostName(_ name: UnsafePointer<CChar>?) -> Bool {
        guard let name else { return false }
        // "_clubhouse", compared without building a String (the authorizer runs on every prepare).
        let prefix: [UInt8] = [0x5F, 0x63, 0x6C, 0x75, 0x62, 0x68, 0x6F, 0x75, 0x73, 0x65]
        for (i, expected) in prefix.enumerated() {
            let c = UInt8(bitPattern: name[i])
            if c == 0 { return false }
            let lower = c >= 0x41 && c <= 0x5A ? c + 0x20 : c
            if lower != expected { return false }
        }
        return true
    }

    func authorize(action: Int32, arg1: UnsafePointer<CChar>?, arg2: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_SELECT:
            return SQLITE_OK
        case SQLITE_READ:
            // The outbox (Publish/Outbox.swift) is the host's alone: a plugin publishes through
            // clubhouse.publish/1 and never reads or rewrites what waits to be shipped.
            if !hostWriting && Outbox.isOutboxName(arg1) {
                return deny("table \(String(cString: arg1!)) is the host's outbox; plugins publish records through clubhouse.publish/1 and cannot read or change it by SQL")
            }
            return SQLITE_OK
        case SQLITE_ATTACH, SQLITE_DETACH:
            return deny("ATTACH and DETACH are not allowed: a plugin reaches only its own database")
        case SQLITE_FUNCTION:
            if let arg2, let name = Optional(String(cString: arg2).lowercased()), PluginDatabase.deniedFunctions.contains(name) {
                return deny("\(name)() is not allowed for plugins: it reaches outside the database")
            }
            return SQLITE_OK
        case SQLITE_PRAGMA:
            let name = arg1.map { String(cString: $0).lowercased() } ?? ""
            let hasArgument = arg2 != nil
            guard PluginDatabase.allowedPragmas.contains(name) else {
                return deny("PRAGMA \(name) is not allowed for plugins (the host manages the connection)")
            }
            // Reading these is fine; changing them is the host's job.
            if hasArgument && ["foreign_keys", "journal_mode", "user_version", "schema_version"].contains(name) && !hostWriting {
                return deny("PRAGMA \(name) cannot be changed by a plugin (the host sets it)")
            }
            return SQLITE_OK
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
            if !hostWriting && PluginDatabase.isHostName(arg1) {
                return deny("table \(String(cString: arg1!)) belongs to the host; plugins may read it but not change it")
            }
            return SQLITE_OK
        case SQLITE_ALTER_TABLE:
            // arg1 is the database ("main"), arg2 the table.
            if !hostWriting && PluginDatabase.isHostName(arg2) {
                return deny("table \(String(cString: arg2!)) belongs to the host; plugins may not alter it")
            }
            return SQLITE_OK
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
             SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
             SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
             SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE:
            // arg1 names the object; arg2 the table an index or trigger is on (or a vtable's module).
            guard !hostWriting else { return SQLITE_OK }
            for name in [arg1, arg2] where PluginDatabase.isHostName(name) {
                return deny("names starting with _clubhouse belong to the host; plugins may not create, drop or hook \(String(cString: name!))")
            }
            return SQLITE_OK
        default:
            return SQLITE_OK
        }
    }
}
