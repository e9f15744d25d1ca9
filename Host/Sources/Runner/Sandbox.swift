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
        // Byte by byte: the maps list a file once per mapping (four or five times each), and
        // Swift's Character-wise String search cost milliseconds of every sandboxed start.
        if let maps = try? FileSystem.read("/proc/self/maps") {
            var files = Set<ArraySlice<UInt8>>()
            var start = 0
            for end in maps.indices where maps[end] == 0x0A {
                defer { start = end + 1 }
                guard let slash = maps[start..<end].firstIndex(of: 0x2F) else { continue } // "/"
                let file = maps[slash..<end]
                if file.count >= 10 && file.suffix(10).elementsEqual(" (deleted)".utf8) { continue }
                files.insert(file)
            }
            for file in files {
                let path = String(decoding: file, as: UTF8.self)
                let folder = FileSystem.directoryName(path)
                places.append(folder == executableFolder ? path : folder)
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
        // In this order: no_new_privs (Landlock and seccomp need it); every capability dropped;
        // Landlock; the seccomp filter last, so that it need not allow capset or Landlock's calls.
        guard Kernel.prctl(38, 1) == 0 else { // PR_SET_NO_NEW_PRIVS
            return "cannot confine the runner: prctl(PR_SET_NO_NEW_PRIVS): \(String(cString: strerror(errno)))"
        }
        if let problem = Seccomp.dropCapabilities() {
            return "cannot confine the runner: \(problem)"
        }
        if let problem = Landlock.restrict(readOnly: places, connectPorts: connectPorts, abi: abi) {
            return "cannot confine the runner: \(problem)"
        }
        // Without Landlock's TCP control (ABI < 4), no TCP at all; without its truncate control
        // (ABI < 3), no truncate(2).
        if let problem = Seccomp.install(allowTCP: abi >= 4, refuseTruncate: abi < 3) {
            return "cannot confine the runner: \(problem)"
        }
        return nil
    }
}
