// Reloading plugins in a running host (`clubhouse serve`): after a version is installed or removed,
// or the lock rewritten, or on `clubhouse.reload`, an isolated plugin is resolved and created
// again on its next call — its old runner finishes the calls in flight and is stopped after the
// last one (SiteRuntime.reload). An in-process plugin cannot be unloaded (its library is loaded
// with RTLD_NODELETE: Swift metadata must stay mapped), so the host says a restart is needed.

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

public enum ReloadOutcome: Sendable, Equatable {
    /// Resolved and created again on its next call.
    case restartsOnNextCall
    /// In process: only a restart of the host loads another build (it runs `version`).
    case needsRestart(version: String)
    /// Not loaded yet: its next call loads the current build anyway.
    case notLoaded

    public var description: String {
        switch self {
        case .restartsOnNextCall: return "restarts on its next call (calls in flight finish first)"
        case .needsRestart(let version): return "runs in process (\(version)) and cannot be unloaded: restart the server to load another build"
        case .notLoaded: return "not loaded yet: its next call loads the current build"
        }
    }
}

extension SiteRuntime {
    /// What tells the watch an alias may resolve differently now: its install folder (mtime and
    /// inode: a version added or removed) and the lock file (mtime and size).
    func watchSignature(_ entry: PluginEntry) -> [Int64] {
        var signature: [Int64] = []
        func add(_ path: String) {
            var st = stat()
            if stat(path, &st) == 0 {
                signature += [Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec), Int64(st.st_ino), Int64(st.st_size)]
            } else {
                signature += [0, 0, 0]
            }
        }
        if entry.path == nil, let id = entry.id, InstallTree.isSafeComponent(id) { add(discovery.installRoot + "/" + id) }
        add(lockGuard.path)
        return signature
    }
}
