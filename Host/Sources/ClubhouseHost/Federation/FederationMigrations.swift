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
        /// Where it was read (messages name it).
        public var path: String = ""
    }

    /// Where a plugin's central SQL is installed, as its panel is: `federation/postgresql/` beside a library
    /// that has its folder to itself (an installed package's folder: `plugin pack --federation` carries
    /// it), else `federation/<plugin id>/postgresql/` beside it (scripts/install.sh puts the bundled
    /// plugins' there). Nil when the plugin ships none.
    public static func installedFolder(library: String, id: String) -> String? {
        let folder = FileSystem.directoryName(library)
        let alone = FileSystem.files(in: folder, suffix: ".so").count <= 1
        let path = folder + (alone ? "/federation/postgresql" : "/federation/\(id)/postgresql")
        return FileSystem.isDirectory(path) ? path : nil
    }

    /// The version of a migration's file name (NNN_name.sql), or nil.
    public static func version(ofFile file: String) -> Int? {
        guard file.hasSuffix(".sql"), file.utf8.count <= 100 else { return nil }
        let parts = file.dropLast(4).split(separator: "_", maxSplits: 1)
        guard parts.count == 2, parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let version = Int(parts[0]), version > 0,
              parts[1].utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D })
        else { return nil }
        return version
    }

    /// A migration number as file names write it (001).
    static func number(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// Why these file names are not a plugin's migrations, naming the file and what to do, or nil: each
    /// NNN_name.sql, numbered 1, 2, 3, … without a gap or a number twice. `where` prefixes each name.
    public static func orderProblem(_ files: [String], where place: String) -> String? {
        var numbered: [(version: Int, file: String)] = []
        for file in files {
            guard let v = version(ofFile: file) else {
                return "\(place)\(file): a federation migration is named NNN_name.sql (a number, '_', letters, digits, '-' or '_'; eg: 001_scoring_record.sql); rename it"
            }
            numbered.append((v, file))
        }
        numbered.sort { ($0.version, $0.file) < ($1.version, $1.file) }
        for (i, m) in numbered.enumerated() where m.version != i + 1 {
            if i > 0 && numbered[i - 1].version == m.version {
                return "\(place)\(m.file): migration \(m.version) twice (\(numbered[i - 1].file) too); each number once: renumber the later one \(number(numbered.count))_…"
            }
            return "\(place)\(m.file): migration versions go 1, 2, 3, … without gaps, and this is \(m.version) where \(i + 1) belongs; renumber it \(number(i + 1))_… or add the missing one"
        }
        return nil
    }

    /// The migrations in `folder` (NNN_name.sql), in order; a file named otherwise, a gap or a number twice
    /// is an error naming the file.
    public static func read(folder: String) throws(FederationError) -> [Migration] {
        guard FileSystem.isDirectory(folder) else {
            throw FederationError("\(folder) is not a folder of federation migrations (federation/postgresql/NNN_name.sql)", isRequestError: true)
        }
        let paths = FileSystem.files(in: folder, suffix: ".sql")
        if let problem = orderProblem(paths.map(FileSystem.baseName), where: folder + "/") { throw FederationError(problem, isRequestError: true) }
        var migrations: [Migration] = []
        for path in paths {
            let file = FileSystem.baseName(path)
            guard let version = version(ofFile: file) else { continue }
            let bytes: [UInt8]
            do { bytes = try FileSystem.read(path) } catch { throw FederationError("\(path): \(error)") }
            migrations.append(Migration(version: version, name: String(file.dropLast(4).split(separator: "_", maxSplits: 1)[1]),
                                        sql: String(decoding: bytes, as: UTF8.self), sha256: SHA256.hash(bytes).hex, path: path))
        }
        migrations.sort { $0.version < $1.version }
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
        // Every applied one is checked before anything is applied.
        for m in migrations {
            if let hash = recorded[m.version] {
                guard hash == m.sha256 else {
                    throw FederationError("\(m.path.isEmpty ? "migration \(m.version) ('\(m.name)')" : m.path): migration \(m.version) of plugin \(plugin) changed after it was applied to the federation (SHA-256 \(m.sha256.prefix(12))…, applied \(hash.prefix(12))…); nothing was applied: put back the text that was applied and ship the change as a new migration \(FederationMigrations.number(migrations.count + 1))_name.sql", isRequestError: true)
                }
            }
        }
        var applied: [Int] = []
        for m in migrations where recorded[m.version] == nil {
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
