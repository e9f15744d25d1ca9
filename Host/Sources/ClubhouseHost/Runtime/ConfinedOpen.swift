// Opening a file beneath a folder, for front ends that serve files by name (`serve --http`'s static
// files): the same confinement the files service gives plugins (CallFiles.openBeneath: openat2 with
// RESOLVE_BENEATH, or a walk that refuses '..' and links), so a name can never reach outside the folder.

public enum ConfinedOpen {
    public enum Failure: Error, Sendable, Equatable {
        /// Nothing by that name.
        case notFound
        /// The name leaves the folder ('..', an absolute path, a link pointing outside).
        case escapes
        /// Any other error (permissions, I/O), with its message.
        case failed(String)
    }

    /// Opens `relative` read-only (close-on-exec) beneath the open folder `folder`.
    public static func read(beneath folder: Int32, _ relative: String) -> Result<Int32, Failure> {
        switch CallFiles.openBeneath(folder: folder, relative: relative, shownFolder: "") {
        case .success(let fd): return .success(fd)
        case .failure(let refusal):
            switch refusal.status {
            case .notFound: return .failure(.notFound)
            case .denied: return .failure(.escapes)
            default: return .failure(.failed(refusal.message))
            }
        }
    }
}
