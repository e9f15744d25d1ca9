// Every lock file written for a data directory, recorded in `<data home>/plugin-locks.json`, so a
// command that changes the install tree can ask all of them, not only the lock of the
// configuration it was given: `clubhouse plugin remove ID@VERSION` refuses a version that any
// recorded lock pins (naming that lock) unless `--force`. `clubhouse lock` and `clubhouse plugin
// rollback` record their lock before writing it (a recorded lock that was never written pins
// nothing). Updates hold an flock on `<data home>/.plugin-locks.json.lock`, so two commands
// recording at once both land; the file itself is replaced atomically.

import ClubhouseJSON
import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

public enum LockRegistry {
    public static func file(dataDirectory: String) -> String { dataDirectory + "/plugin-locks.json" }

    /// The lock files recorded for `dataDirectory`, plus the embedded configuration's
    /// (`<data home>/plugins.lock`), sorted; files that no longer exist are left out.
    public static func locks(dataDirectory: String) -> [String] {
        var paths = Set(recorded(dataDirectory: dataDirectory))
        paths.insert(dataDirectory + "/plugins.lock")
        return paths.filter { FileSystem.exists($0) }.sorted()
    }

    static func recorded(dataDirectory: String) -> [String] {
        guard let bytes = try? FileSystem.read(file(dataDirectory: dataDirectory)), let v = try? JSONParser.parse(bytes: bytes) else { return [] }
        return (v["locks"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Adds `lockPath` (absolute) to the record of `dataDirectory`; nil, or the one-line reason it
    /// could not be recorded.
    public static func record(lockPath: String, dataDirectory: String) -> String? {
        let path = FileSystem.absolute(lockPath)
        do { try FileSystem.createDirectory(dataDirectory) } catch { return error.description }
        let guardFile = dataDirectory + "/.plugin-locks.json.lock"
        let fd = open(guardFile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { return "\(guardFile): cannot open (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        var paths = recorded(dataDirectory: dataDirectory)
        guard !paths.contains(path) else { return nil }
        paths.append(path)
        let text = JSONWriter.pretty(["locks": .array(paths.sorted().map { .string($0) })]) + "\n"
        do { try FileSystem.writeAtomically(file(dataDirectory: dataDirectory), Array(text.utf8)) } catch { return error.description }
        return nil
    }
}
