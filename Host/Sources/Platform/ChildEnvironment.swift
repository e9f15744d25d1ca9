// What of the host's environment reaches a child that runs code the host does not trust — a plugin's
// runner (isolation "process" or "sandbox") and a device simulator: an allow-list, never the whole
// environment. The ninth outside attack (a28): a sandboxed plugin read PGPASSWORD and the rest of the
// host's secrets from its own environ. SECURITY.md, "A runner's environment".

#if canImport(Glibc)
import Glibc
#endif

public enum ChildEnvironment {
    /// Names passed as they are: where to find programs, the user's home, language and time zone,
    /// temporary files, and the libraries the Swift runtime may need.
    static let names: Set<String> = ["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH"]

    /// Whether `name` passes: the names above, the locale's LC_*, the host's data folder
    /// (CLUBHOUSE_DATA_DIR) and its test hooks (CLUBHOUSE_TEST_*, eg: the runner reads
    /// CLUBHOUSE_TEST_LANDLOCK_ABI). Nothing else: no PG*, no tokens, no other CLUBHOUSE_*.
    public static func passes(_ name: String) -> Bool {
        names.contains(name) || name.hasPrefix("LC_") || name == "CLUBHOUSE_DATA_DIR" || name.hasPrefix("CLUBHOUSE_TEST_")
    }

    /// The allowed `NAME=value` entries of this process's environment, plus `extra` (which replace
    /// an entry of the same name).
    public static func entries(adding extra: [String: String] = [:]) -> [String] {
        entries(passing: passes, adding: extra)
    }

    /// This process's environment entries whose name `passing` accepts (an entry without `=` is
    /// named by the whole of it), plus `extra`, which replace an entry of the same name: the one walk
    /// of `environ` for every child the host starts (runners and simulators allow-listed; psql and
    /// other programs with `{ _ in true }`).
    public static func entries(passing: (String) -> Bool, adding extra: [String: String]) -> [String] {
        var kept: [String] = []
        var current = environ
        while let entry = current.pointee {
            let text = String(cString: entry)
            current += 1
            let name = text.firstIndex(of: "=").map { String(text[..<$0]) } ?? text
            if passing(name) && extra[name] == nil { kept.append(text) }
        }
        return kept + extra.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// `entries` as a NULL-ended array of C strings for posix_spawn; free each with `free`.
    public static func pointers(adding extra: [String: String] = [:]) -> [UnsafeMutablePointer<CChar>?] {
        entries(adding: extra).map { strdup($0) } + [nil]
    }
}
