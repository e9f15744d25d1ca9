// One schema step of a plugin's database, declared by the plugin's core (which knows nothing of
// the ABI) and applied by PluginKit's migrator (`Storage.migrate`) through the storage service.

/// One schema step. Versions start at 1 and never skip; a shipped migration never changes (the
/// host records version and name, and refuses a database whose recorded name differs).
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    public init(_ version: Int, _ name: String, _ sql: String) {
        self.init(version: version, name: name, sql: sql)
    }
}
