// Storage broker: one SQLite database per site per plugin (`<data>/<site>/<plugin id>.sqlite`).
// The service is one implementation over one connection per plugin, in four files by concern:
//   PluginDatabase.swift     the connection: opening, hardening, errors, statements, transactions,
//                            migrations (and StorageAuthorizer.swift: what plugin SQL may touch;
//                            StatementInterrupts.swift: the progress handler that stops a statement
//                            of a cancelled or late call)
//   StorageService.swift     the Swift API both faces call (StorageService, StorageStatement), with
//                            the plugin's limits (ServiceLimits)
//   StorageCFace.swift       the C table an in-process plugin gets
//   StorageWireFace.swift    the answers to an isolated plugin's runner (messages: WireMessages.swift)

import ClubhousePlatform
import CClubhouse
import ClubhouseABI
import CSQLite
import ClubhouseWire
import ClubhouseLoader
#if canImport(Glibc)
import Glibc
#endif

/// Opens plugin databases under a data directory: `<data>/<site>/<plugin id>.sqlite`.
/// @unchecked Sendable: immutable (each database it opens guards itself: PluginDatabase).
public final class StorageBroker: @unchecked Sendable {
    public let dataDirectory: String

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    public func databasePath(site: String, pluginID: String) -> String {
        "\(dataDirectory)/\(site)/\(pluginID).sqlite"
    }

    /// Opens (creating on first use) the database of one plugin at one site. The data directory
    /// may be reached through symbolic links (it is resolved first); the database file itself must
    /// not be one. `pluginVersion`, when given, is checked against the newest version of the
    /// plugin that wrote the database (a newer one is refused) and recorded. `origin`, when given,
    /// is checked against the origin that owns the data (DataOrigin.swift) before that: a library of
    /// another origin is refused and nothing in the file changes. `bundledOwner` names the bundled plugin
    /// that declares `pluginID` (asked only when the data has no owner yet and `origin` is not bundled):
    /// such an id is that plugin's, so no database is created for another origin.
    public func open(site: String, pluginID: String, owner: String, pluginVersion: String? = nil, origin: DataOrigin? = nil,
                     adoptCommand: String = "clubhouse plugin adopt", bundledOwner: @escaping @Sendable () -> String? = { nil },
                     limits: ServiceLimits = ServiceLimits(), shared: Bool = true) throws(StorageError) -> PluginDatabase
    {
        // The configuration and the runner's hello are checked already; this is the last place a
        // name becomes a path, so it refuses anything outside the grammar once more.
        if let problem = Names.nameProblem(site, what: "site name") ?? Names.idProblem(pluginID) {
            throw StorageError(status: Int32(CLUBHOUSE_INVALID_ARGUMENT),
                               message: "\(problem); the host opens no database under \(dataDirectory) for it")
        }
        let path = databasePath(site: site, pluginID: pluginID)
        let claim = origin.map {
            OriginClaim(origin: $0, site: site, pluginID: pluginID, adoptCommand: "\(adoptCommand) \(pluginID) --site \(site)", bundledOwner: bundledOwner)
        }
        if let claim, !FileSystem.exists(path), let refusal = claim.bundledIDRefusal(path: path) {
            throw StorageError(status: Int32(CLUBHOUSE_DENIED), message: refusal)
        }
        let folder = FileSystem.directoryName(path)
        do {
            try FileSystem.createDirectory(folder)
        } catch {
            throw StorageError(message: "cannot create the data directory: \(error); set --data-dir or CLUBHOUSE_DATA_DIR to a writable place")
        }
        guard let resolvedFolder = FileSystem.realPath(folder) else {
            throw StorageError(status: Int32(CLUBHOUSE_IO),
                               message: "\(path): cannot resolve the data directory \(folder): \(String(cString: strerror(errno)))")
        }
        let resolved = "\(resolvedFolder)/\(FileSystem.baseName(path))"
        var st = stat()
        if lstat(resolved, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw StorageError(status: Int32(CLUBHOUSE_DENIED),
                                   message: "\(path) is a symbolic link; the host opens a plugin database only as a regular file (replace the link with the file it points to)")
            }
            if (st.st_mode & S_IFMT) != S_IFREG {
                throw StorageError(status: Int32(CLUBHOUSE_IO), message: "\(path) is not a regular file; move it away so the host can create the database")
            }
        }
        return try PluginDatabase(path: path, resolvedPath: resolved, owner: owner, pluginVersion: pluginVersion, origin: claim, limits: limits,
                                  shared: shared)
    }
}

public struct StorageError: Error, Sendable, CustomStringConvertible {
    public var status: Int32 = Int32(CLUBHOUSE_ERROR)
    public var message: String
    public var description: String { message }
}

