// `clubhouse federation migrate`: a plugin's central SQL (`federation/postgresql/NNN_name.sql`, shipped
// with its package) applied to the federation in version order, each file in its own transaction and
// recorded in clubhouse.migrations with its SHA-256 (a file changed after it was applied is refused, as
// the host refuses a changed SQLite migration). The first one also gives the plugin its partition of
// clubhouse.records (and that partition a leaf per site).

import ClubhouseHashing
import ClubhousePlatform

public struct FederationMigrations {
    public let shell: PostgresShell

    public init(shell: PostgresShell) { self.shell = shell }

    public struct Migration: Sendable {
        public var version: Int
        public var name: String
        public var sql: String
        public var sha256: String
    }

    /// Where a plugin's central SQL is installed, as its panel is: `federation/postgresql/` beside a library
    /// that has its folder to itself, else `federation/<plugin id>/postgresql/` beside it (scripts/install.sh
    /// puts the bundled plugins' there). Nil when the plugin ships none.
    public static func installedFolder(library: String, id: String) -> String? {
        let folder = FileSystem.directoryName(library)
        let alone = FileSystem.files(in: folder, suffix: ".so").count <= 1
        let path = folder + (alone ? "/federation/postgresql" : "/federation/\(id)/postgresql")
        return FileSystem.isDirectory(path) ? path : nil
    }

    /// The migrations in `folder` (NNN_name.sql), in order; a file named otherwise is an error.
    public static func read(folder: String) throws(FederationError) -> [Migration] {
        guard FileSystem.isDirectory(folder) else {
            throw FederationError("\(folder) is not a folder of federation migrations (federation/postgresql/NNN_name.sql)", isRequestError: true)
        }
        var migrations: [Migration] = []
        for path in FileSystem.files(in: folder, suffix: ".sql") {
            let file = FileSystem.baseName(path)
            let stem = file.dropLast(4)
            let parts = stem.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]), version > 0 else {
                throw FederationError("\(path): a federation migration is named NNN_name.sql (eg: 001_scoring_record.sql)", isRequestError: true)
            }
            let bytes: [UInt8]
            do { bytes = try FileSystem.read(path) } catch { throw FederationError("\(path): \(error)") }
            migrations.append(Migration(version: version, name: String(parts[1]), sql: String(decoding: bytes, as: UTF8.self),
                                        sha256: SHA256.hash(bytes).hex))
        }
        migrations.sort { $0.version < $1.version }
        for (i, m) in migrations.enumerated() where m.version != i + 1 {
            throw FederationError("\(folder): migration versions go 1, 2, 3, … without gaps; found \(m.version) where \(i + 1) belongs", isRequestError: true)
        }
        return migrations
    }

    /// Applies what is not applied yet; returns the versions applied now.
    public func apply(plugin: String, _ migrations: [Migration]) throws(FederationError) -> [Int] {
        try FederationSchema.checkVersion(shell)
        let id = FederationSchema.literal(plugin)
        var recorded: [Int: String] = [:]
        for row in try shell.query("SELECT version, sha256 FROM clubhouse.migrations WHERE plugin = \(id)") where row.count == 2 {
            if let v = Int(row[0]) { recorded[v] = row[1] }
        }
        var applied: [Int] = []
        for m in migrations {
            if let hash = recorded[m.version] {
                guard hash == m.sha256 else {
                    throw FederationError("migration \(m.version) ('\(m.name)') of plugin \(plugin) changed since it was applied to the federation; ship a new migration instead of editing one", isRequestError: true)
                }
                continue
            }
            var script = "BEGIN;\n"
            if m.version == 1 {
                // Its partition, partitioned by site with a leaf per site (FederationSchema.add_partition).
                script += "SELECT clubhouse.add_partition(\(id));\n"
            }
            script += m.sql + "\n;\nINSERT INTO clubhouse.migrations(plugin, version, name, sha256) VALUES (\(id), \(m.version), "
                + "\(FederationSchema.literal(m.name)), \(FederationSchema.literal(m.sha256)));\nCOMMIT;\n"
            do {
                try shell.run(script)
            } catch {
                throw FederationError("migration \(m.version) ('\(m.name)') of plugin \(plugin) failed and changed nothing: \(error.message)")
            }
            applied.append(m.version)
        }
        return applied
    }
}
