// `isolation: "sandbox"`: the runner confines itself before it loads the plugin, so even the
// plugin's constructors run confined. What it may still reach: its own wire (fds 3, 4 and 5, already
// open), stderr, and read-only: the plugin file, the folders of the libraries the runner has
// mapped (the Swift runtime, libc; from the executable's own folder only the mapped files), the
// system library folders and the dynamic linker's cache. Nothing is writable; TCP connect only to granted ports; no program can
// be started; no other process can be traced or signalled.

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

package enum Sandbox {
    /// Why this kernel cannot run a plugin sandboxed (nil when it can): SandboxSupport's answer.
    package static func unavailableReason() -> String? { SandboxSupport.unavailableReason() }

    /// The read-only places: the plugin file, the system's library folders, and the folders of
    /// the libraries the runner has mapped (the Swift runtime's, libc's) — but never the folder of
    /// the executable itself (a site's files may sit next to it): only the files mapped from there.
    /// `verified`: the descriptor the plugin is loaded from (its rule is for that file, even if the path changed).
    static func readOnlyPlaces(pluginPath: String, verified: Int32? = nil) -> [Landlock.ReadOnly] {
        var places: [String] = [pluginPath, "/etc/ld.so.cache", "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"]
        let executableFolder = FileSystem.directoryName(FileSystem.realPath(FileSystem.executablePath()) ?? FileSystem.executablePath())
        if let maps = try? FileSystem.read("/proc/self/maps") {
            for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
                guard let slash = line.firstIndex(of: "/") else { continue }
                let file = String(line[slash...])
                if file.hasSuffix(" (deleted)") { continue }
                let folder = FileSystem.directoryName(file)
                places.append(folder == executableFolder ? file : folder)
            }
        }
        var seen = Set<String>()
        return places.filter { seen.insert($0).inserted }.map { Landlock.ReadOnly($0, descriptor: $0 == pluginPath ? verified : nil) }
    }

    /// Threads of this process (Landlock confines only the calling thread and its later children).
    static func threadCount() -> Int {
        guard let dir = opendir("/proc/self/task") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }

    /// Confines the runner for good. Returns what failed (the runner then refuses to load), or nil.
    package static func confine(pluginPath: String, connectPorts: [UInt16], verified: Int32? = nil) -> String? {
        if let reason = unavailableReason() {
            return "cannot run it sandboxed: \(reason)"
        }
        let abi = Landlock.effectiveABI().version
        if abi < 4 && !connectPorts.isEmpty {
            return "cannot grant TCP ports: this kernel's Landlock (ABI \(abi)) cannot restrict TCP (ABI 4, Linux 6.7, can)"
        }
        let threads = threadCount()
        guard threads == 1 else {
            return "cannot confine the runner: it has \(threads) threads before loading the plugin, and Landlock confines only the calling one"
        }
        let places = readOnlyPlaces(pluginPath: pluginPath, verified: verified)
        // Without Landlock's TCP control (ABI < 4), no TCP at all; without its truncate control
        // (ABI < 3), no truncate(2).
        if let problem = Seccomp.install(allowTCP: abi >= 4, refuseTruncate: abi < 3) {
            return "cannot confine the runner: \(problem)"
        }
        if let problem = Landlock.restrict(readOnly: places, connectPorts: connectPorts, abi: abi) {
            return "cannot confine the runner: \(problem)"
        }
        if let problem = Seccomp.dropCapabilities() {
            return "cannot confine the runner: \(problem)"
        }
        return nil
    }
}
