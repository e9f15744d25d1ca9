// `clubhouse federation migrate`: a plugin's central SQL (`federation/postgresql/NNN_name.sql`, shipped
// with its package) applied to the federation in version order, each file in its own transaction and
// recorded in clubhouse.migrations with its SHA-256 (a file changed after it was applied is refused, as
// the host refuses a changed SQLite migration). The first one also gives the plugin its partition of
// clubhouse.records (and that partition a leaf per site).

import ClubhouseHashing
import ClubhouseJSON
import ClubhousePlatform

public struct FederationMigrations {
    public let shell: PostgresShell

    public init(shell: PostgresShell) { self.shell = shell }

    /// The most a central SQL file, a manifest or a signature may hold (each is read whole, and only
    /// when it is a regular file: `FileSystem.readRegular`).
    static let fileLimit = 64 << 20

    public struct Migration: Sendable {
        public var version: Int
        public var name: String
        public var sql: String
        public var sha256: String
        /// Where it was read (messages name it).
        public var path: String = ""

        public init(version: Int, name: String, sql: String, sha256: String, path: String = "") {
            self.version = version
            self.name = name
            self.sql = sql
            self.sha256 = sha256
            self.path = path
        }
    }

    /// A central SQL folder by its real path (symbolic links resolved, relative to the working directory),
    /// or as given (made absolute) when it does not exist: which manifest covers the SQL, and which files are
    /// read, are decided on it.
    public static func realFolder(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : (path == "~" || path.hasPrefix("~/")) ? FileSystem.absolute(path)
            : FileSystem.currentDirectory() + "/" + path
        return FileSystem.realPath(absolute) ?? FileSystem.absolute(path)
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
            do { bytes = try FileSystem.readRegular(path, limit: FederationMigrations.fileLimit) } catch {
                throw FederationError("\(error); nothing was applied", isRequestError: error.isRefusedByReadRegular)
            }
            if let bad = MigrationText.encodingProblem(in: bytes) {
                throw FederationError("\(path):\(bad.line):\(bad.column): \(bad.message); nothing was applied", isRequestError: true)
            }
            migrations.append(Migration(version: version, name: String(file.dropLast(4).split(separator: "_", maxSplits: 1)[1]),
                                        sql: String(decoding: bytes, as: UTF8.self), sha256: SHA256.hash(bytes).hex, path: path))
        }
        migrations.sort { $0.version < $1.version }
        return migrations
    }

    /// What an installed package's manifest says each of its central SQL files is: file name → SHA-256.
    /// The bundled plugins' (scripts/install.sh) have one too, listing only their central SQL.
    public struct ManifestDigests: Sendable {
        /// The manifest.json it was read from (messages name it).
        public var path: String
        public var files: [String: String]
        /// How to put back what was installed (messages say it).
        public var reinstall: String

        /// The manifest that covers a central SQL folder, nil when there is none (the SQL was not installed
        /// from a package or by scripts/install.sh), or the one-line reason it cannot be read: a package's
        /// `<package>/federation/postgresql` is covered by `<package>/manifest.json`, the bundled plugins'
        /// `…/federation/<plugin id>/postgresql` by `…/federation/<plugin id>/manifest.json`.
        /// `folder` is resolved to its real path first (every symbolic link, in any component): a link to a
        /// package's folder is held to that package's manifest (an outside re-check, b09/b14: a link as
        /// `--dir` skipped the check). Callers read the files from `realFolder(_:)`, the same resolved path.
        public static func covering(sqlFolder given: String) throws(FederationError) -> ManifestDigests? {
            let folder = FederationMigrations.realFolder(given)
            let parent = FileSystem.directoryName(folder)
            guard FileSystem.baseName(folder) == "postgresql" else { return nil }
            // `libraries`: where the plugin libraries the SQL was installed beside lie.
            let path: String, reinstall: String, libraries: String
            if FileSystem.baseName(parent) == "federation" {
                libraries = FileSystem.directoryName(parent)
                path = libraries + "/manifest.json"
                reinstall = "install the package again (clubhouse plugin install FILE)"
            } else if FileSystem.baseName(FileSystem.directoryName(parent)) == "federation" {
                libraries = FileSystem.directoryName(FileSystem.directoryName(parent))
                path = parent + "/manifest.json"
                reinstall = "install clubhouse again (scripts/install.sh)"
            } else {
                return nil
            }
            guard FileSystem.exists(path) else {
                // SQL installed beside a plugin library (a package's folder, the bundled plugins' folder) is
                // always installed with its manifest: one gone is refused, not taken as "nothing to check"
                // (the eighth outside attack: the manifest deleted and a file added, then applied). A folder
                // of the developer's own (`--dir`, no library beside it) has none and is applied as it is.
                guard FileSystem.files(in: libraries, suffix: ".so").isEmpty else {
                    throw FederationError("\(folder): central SQL installed beside a plugin library, but its manifest (\(path)) is missing, so the SQL cannot be checked against what was installed; nothing was applied: \(reinstall)", isRequestError: true)
                }
                return nil
            }
            guard let bytes = try? FileSystem.readRegular(path, limit: FederationMigrations.fileLimit), let manifest = try? JSONParser.parse(bytes: bytes), manifest.objectValue != nil else {
                throw FederationError("\(path): the installed manifest cannot be read as JSON, so the central SQL beside it cannot be checked; nothing was applied: \(reinstall)", isRequestError: true)
            }
            // A signed package's manifest is held to its signature: one rewritten to cover changed SQL is refused.
            let signature = FileSystem.directoryName(path) + "/" + PackageSignature.fileName
            if FileSystem.exists(signature) {
                guard let signed = try? FileSystem.readRegular(signature, limit: FederationMigrations.fileLimit), case .success(let parsed) = PackageSignature.parse(signed),
                      parsed.verify(manifest: bytes) == .valid else {
                    throw FederationError("\(path): the package's signature (\(PackageSignature.fileName)) does not verify over its manifest: the manifest changed after install, so its central SQL cannot be trusted; nothing was applied: \(reinstall)", isRequestError: true)
                }
            }
            var files: [String: String] = [:]
            for (name, value) in manifest["federation"]?.objectValue ?? [:] {
                if let digest = value.stringValue { files[name] = digest.lowercased() }
            }
            return ManifestDigests(path: path, files: files, reinstall: reinstall)
        }
    }

    /// Applies what is not applied yet; returns the versions applied now.
    public func apply(plugin: String, _ migrations: [Migration], manifest: ManifestDigests? = nil) throws(FederationError) -> [Int] {
        try apply(plugin: plugin, pending: try pending(plugin: plugin, migrations, manifest: manifest))
    }

    /// What `apply` would apply, every file checked before anything is applied: one already applied must be
    /// the text that was applied; one to apply must be listed with its SHA-256 by the installed package's
    /// `manifest` (when the SQL came from a package) and hold nothing but SQL the host's transaction can
    /// run (MigrationText).
    public func pending(plugin: String, _ migrations: [Migration], manifest: ManifestDigests? = nil) throws(FederationError) -> [Migration] {
        try FederationSchema.checkVersion(shell)
        let id = FederationSchema.literal(plugin)
        var recorded: [Int: String] = [:]
        for row in try shell.query("SELECT version, sha256 FROM clubhouse.migrations WHERE plugin = \(id)") where row.count == 2 {
            if let v = Int(row[0]) { recorded[v] = row[1] }
        }
        for m in migrations {
            if let hash = recorded[m.version] {
                guard hash == m.sha256 else {
                    throw FederationError("\(m.shown): migration \(m.version) of plugin \(plugin) changed after it was applied to the federation (SHA-256 \(m.sha256.prefix(12))…, applied \(hash.prefix(12))…); nothing was applied: put back the text that was applied and ship the change as a new migration \(FederationMigrations.number(migrations.count + 1))_name.sql", isRequestError: true)
                }
            }
        }
        let waiting = migrations.filter { recorded[$0.version] == nil }
        if let manifest {
            for m in waiting {
                let file = FederationMigrations.number(m.version) + "_" + m.name + ".sql"
                let name = m.path.isEmpty ? file : FileSystem.baseName(m.path)
                guard let expected = manifest.files[name] else {
                    let listed = manifest.files.keys.sorted()
                    throw FederationError("\(m.shown): not a file of the installed package (its manifest, \(manifest.path), lists \(listed.isEmpty ? "no central SQL" : listed.joined(separator: ", "))), so it was added after install; nothing was applied: remove it (a plugin's new central SQL comes with a new version of it: plugin pack --federation, plugin install)", isRequestError: true)
                }
                guard expected == m.sha256 else {
                    throw FederationError("\(m.shown): its SHA-256 (\(m.sha256.prefix(12))…) is not the one the installed package's manifest (\(manifest.path)) lists (\(expected.prefix(12))…): it changed after install; nothing was applied: \(manifest.reinstall) or put back its text", isRequestError: true)
                }
            }
            let present = Set(migrations.map { FileSystem.baseName($0.path) })
            if let missing = manifest.files.keys.sorted().first(where: { !present.contains($0) }) {
                throw FederationError("\(manifest.path): the installed package lists \(missing) but its postgresql/ folder lacks it; nothing was applied: \(manifest.reinstall)", isRequestError: true)
            }
        }
        for m in waiting {
            if let problem = MigrationText.problem(in: Array(m.sql.utf8), where: m.shown) {
                throw FederationError(problem + "; nothing was applied", isRequestError: true)
            }
        }
        return waiting
    }

    /// Applies migrations `pending` found not applied yet, each in a transaction of its own with its record
    /// in clubhouse.migrations; returns their versions. psql never reads a file's text: it goes as
    /// hexadecimal in the host's own statement, `DO … EXECUTE convert_from(decode('…', 'hex'), 'UTF8')`, and
    /// the server runs it as SQL inside the host's transaction — a psql meta-command in it is only a syntax
    /// error, transaction control fails ("EXECUTE of transaction commands is not implemented"), and the first
    /// error rolls back the whole file, its record with it.
    public func apply(plugin: String, pending: [Migration]) throws(FederationError) -> [Int] {
        var applied: [Int] = []
        for m in pending {
            do {
                try shell.run(FederationMigrations.script(plugin: plugin, m))
            } catch where error.commitUnknown {
                // The COMMIT went and its reply did not come back (the eighth outside attack, a24): what the
                // server did is asked on a new connection, and said as it is.
                let again = "run migrate again: a migration that was applied is recorded and skipped, never applied twice"
                if error.cancelled {
                    var stopped = FederationError("\(m.shown): migration \(m.version) ('\(m.name)') of plugin \(plugin): \(error.message); \(again)", unreachable: true, cancelled: true)
                    stopped.commitUnknown = true
                    throw stopped
                }
                let recorded: [[String]]
                do {
                    recorded = try shell.query("SELECT sha256 FROM clubhouse.migrations WHERE plugin = \(FederationSchema.literal(plugin)) AND version = \(m.version)")
                } catch let asking {
                    var unknown = FederationError("\(m.shown): migration \(m.version) ('\(m.name)') of plugin \(plugin): \(error.message), and whether it was applied could not be asked (\(asking.message)); \(again)", unreachable: true, cancelled: asking.cancelled)
                    unknown.commitUnknown = true
                    throw unknown
                }
                guard recorded.first?.first == m.sha256 else {
                    throw FederationError("\(m.shown): migration \(m.version) ('\(m.name)') of plugin \(plugin) failed: \(error.message); asked again on a new connection, the federation has not recorded it, so it was not applied: run migrate again", unreachable: true)
                }
            } catch {
                throw FederationError("\(m.shown): migration \(m.version) ('\(m.name)') of plugin \(plugin) failed and changed nothing (nothing of it was applied or recorded)\(FederationMigrations.line(of: error, in: m).map { " at line \($0) of the file" } ?? ""): \(error.message)", cancelled: error.cancelled)
            }
            applied.append(m.version)
        }
        return applied
    }

    /// The line of the migration's file where the server's error points, when it points into the file
    /// (psql prints "LINE n:" and then the failed query, which is the file's text run by EXECUTE).
    static func line(of error: FederationError, in m: Migration) -> Int? {
        let start = String(m.sql.prefix(60))
        guard !start.isEmpty, let query = error.detail.firstRange(of: "QUERY:  " + start) else { return nil }
        let before = error.detail[..<query.lowerBound]
        guard let mark = before.ranges(of: "LINE ").last else { return nil }
        return Int(before[mark.upperBound...].prefix { $0.isNumber })
    }

    /// psql's script for one migration: its transaction, the file's text as data.
    static func script(plugin: String, _ m: Migration) -> String {
        let id = FederationSchema.literal(plugin)
        var script = "BEGIN;\n"
        if m.version == 1 {
            // Its partition, partitioned by site with a leaf per site (FederationSchema.add_partition).
            script += "SELECT clubhouse.add_partition(\(id));\n"
        }
        let digits: [Character] = Array("0123456789abcdef")
        var hex = ""
        hex.reserveCapacity(m.sql.utf8.count * 2)
        for byte in m.sql.utf8 {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        script += "DO $clubhouse_migration$ BEGIN EXECUTE convert_from(decode('\(hex)', 'hex'), 'UTF8'); END $clubhouse_migration$;\n"
        script += "INSERT INTO clubhouse.migrations(plugin, version, name, sha256) VALUES (\(id), \(m.version), "
            + "\(FederationSchema.literal(m.name)), \(FederationSchema.literal(m.sha256)));\nCOMMIT;\n"
        return script
    }
}

extension FederationMigrations.Migration {
    /// Its file, as messages name it.
    var shown: String { path.isEmpty ? "migration \(version) ('\(name)')" : path }
}
