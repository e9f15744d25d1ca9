// Landlock (Linux ≥ 5.13): a process restricts its own access to files, TCP ports and signals, for
// itself and every child it starts; nothing can lift it again. Used by the runner of a plugin with
// `isolation: "sandbox"`. The structures are written byte by byte (`landlock_path_beneath_attr` is
// packed), and the system calls go through glibc's `syscall` (variadic, so looked up with dlsym).

#if canImport(Glibc)
import Glibc
#endif

public enum Landlock {
    // linux/landlock.h
    public static let executeFile: UInt64 = 1 << 0
    public static let writeFile: UInt64 = 1 << 1
    public static let readFile: UInt64 = 1 << 2
    public static let readDirectory: UInt64 = 1 << 3
    static let removeDirectory: UInt64 = 1 << 4
    static let removeFile: UInt64 = 1 << 5
    static let makeCharacterDevice: UInt64 = 1 << 6
    static let makeDirectory: UInt64 = 1 << 7
    static let makeRegular: UInt64 = 1 << 8
    static let makeSocket: UInt64 = 1 << 9
    static let makeFIFO: UInt64 = 1 << 10
    static let makeBlockDevice: UInt64 = 1 << 11
    static let makeSymlink: UInt64 = 1 << 12
    static let refer: UInt64 = 1 << 13          // ABI 2
    static let truncate: UInt64 = 1 << 14       // ABI 3
    static let ioctlDevice: UInt64 = 1 << 15    // ABI 5
    static let bindTCP: UInt64 = 1 << 0         // ABI 4
    static let connectTCP: UInt64 = 1 << 1      // ABI 4
    static let scopeAbstractUnixSocket: UInt64 = 1 << 0  // ABI 6
    static let scopeSignal: UInt64 = 1 << 1              // ABI 6
    static let createRulesetVersion: Int = 1 << 0
    static let rulePathBeneath: Int = 1
    static let ruleNetPort: Int = 2
    /// O_PATH (Glibc does not export it to Swift): a descriptor that names a file without opening it.
    static let oPath: Int32 = 0o10_000_000

    #if arch(x86_64) || arch(arm64)
    static let sysCreateRuleset = 444
    static let sysAddRule = 445
    static let sysRestrictSelf = 446
    #else
    static let sysCreateRuleset = -1
    static let sysAddRule = -1
    static let sysRestrictSelf = -1
    #endif

    /// The kernel's Landlock ABI version (0 when it has none), and why not when it has none.
    public static func abiVersion() -> (version: Int, problem: String?) {
        guard sysCreateRuleset > 0 else { return (0, "Landlock is not supported on this processor architecture") }
        let version = Kernel.syscall(sysCreateRuleset, 0, 0, createRulesetVersion)
        if version >= 1 { return (version, nil) }
        let code = errno
        switch code {
        case ENOSYS: return (0, "the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)")
        case EOPNOTSUPP: return (0, "Landlock is built in but not enabled (add landlock to the kernel's lsm= boot parameter)")
        default: return (0, "landlock_create_ruleset failed: \(String(cString: strerror(code)))")
        }
    }

    /// The ABI the host treats as the kernel's: the real one, or a lower one from
    /// CLUBHOUSE_TEST_LANDLOCK_ABI (tests use it to see the refusal on a kernel without Landlock;
    /// it can only lower the version, never raise it).
    public static func effectiveABI() -> (version: Int, problem: String?) {
        let real = abiVersion()
        if let text = FileSystem.environment("CLUBHOUSE_TEST_LANDLOCK_ABI"), let lowered = Int(text), lowered < real.version {
            return lowered >= 1 ? (lowered, nil) : (0, "the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK) (simulated by CLUBHOUSE_TEST_LANDLOCK_ABI)")
        }
        return real
    }

    /// A read-only place: a folder (read its files and list it, map its libraries) or one file.
    public struct ReadOnly: Sendable {
        public var path: String
        /// When set, the rule is for the file open as this descriptor (the caller keeps it open),
        /// not for whatever `path` names now.
        public var descriptor: Int32?
        public init(_ path: String, descriptor: Int32? = nil) {
            self.path = path
            self.descriptor = descriptor
        }
    }

    /// Restricts the calling thread (and everything it starts later) to reading the given places,
    /// writing nowhere, connecting to the given TCP ports only (ABI ≥ 4), and signalling or
    /// reaching abstract Unix sockets only inside the sandbox (ABI ≥ 6). Missing places are
    /// skipped. Returns what failed, or nil. no_new_privs must already be set.
    public static func restrict(readOnly: [ReadOnly], connectPorts: [UInt16], abi: Int) -> String? {
        var handledFS = executeFile | writeFile | readFile | readDirectory | removeDirectory | removeFile
            | makeCharacterDevice | makeDirectory | makeRegular | makeSocket | makeFIFO | makeBlockDevice | makeSymlink
        if abi >= 2 { handledFS |= refer }
        if abi >= 3 { handledFS |= truncate }
        if abi >= 5 { handledFS |= ioctlDevice }
        let handledNet: UInt64 = abi >= 4 ? bindTCP | connectTCP : 0
        let scoped: UInt64 = abi >= 6 ? scopeAbstractUnixSocket | scopeSignal : 0
        // struct landlock_ruleset_attr { u64 handled_access_fs, handled_access_net, scoped }: the
        // kernel reads only the size it knows (larger is fine when the extra bytes are zero).
        var attributes: [UInt64] = [handledFS, handledNet, scoped]
        let size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8
        let ruleset = attributes.withUnsafeMutableBytes {
            Kernel.syscall(sysCreateRuleset, Int(bitPattern: $0.baseAddress), size, 0)
        }
        guard ruleset >= 0 else { return "landlock_create_ruleset: \(String(cString: strerror(errno)))" }
        defer { close(Int32(ruleset)) }

        for place in readOnly {
            let fd = place.descriptor ?? open(place.path, oPath | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { if place.descriptor == nil { close(fd) } }
            var st = stat()
            guard fstat(fd, &st) == 0 else { continue }
            let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
            let allowed = isDirectory ? executeFile | readFile | readDirectory : executeFile | readFile
            // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } __packed (12 bytes)
            var rule = [UInt8](repeating: 0, count: 12)
            withUnsafeBytes(of: allowed.littleEndian) { rule.replaceSubrange(0..<8, with: $0) }
            withUnsafeBytes(of: fd.littleEndian) { rule.replaceSubrange(8..<12, with: $0) }
            let rc = rule.withUnsafeMutableBytes {
                Kernel.syscall4(sysAddRule, Int(ruleset), rulePathBeneath, Int(bitPattern: $0.baseAddress), 0)
            }
            guard rc == 0 else { return "landlock_add_rule (\(place.path)): \(String(cString: strerror(errno)))" }
        }
        if abi >= 4 {
            for port in connectPorts {
                // struct landlock_net_port_attr { u64 allowed_access; u64 port; }
                var rule: [UInt64] = [connectTCP, UInt64(port)]
                let rc = rule.withUnsafeMutableBytes {
                    Kernel.syscall4(sysAddRule, Int(ruleset), ruleNetPort, Int(bitPattern: $0.baseAddress), 0)
                }
                guard rc == 0 else { return "landlock_add_rule (TCP port \(port)): \(String(cString: strerror(errno)))" }
            }
        }
        guard Kernel.syscall(sysRestrictSelf, Int(ruleset), 0, 0) == 0 else {
            return "landlock_restrict_self: \(String(cString: strerror(errno)))"
        }
        return nil
    }
}

/// Raw system calls and prctl through glibc (both are variadic in C, so Swift cannot import them;
/// on the Linux ABIs we build for, integer arguments pass the same way either way).
public enum Kernel {
    private typealias Call4 = @convention(c) (Int, Int, Int, Int, Int) -> Int
    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    nonisolated(unsafe) private static let library = dlopen(nil, RTLD_NOW)
    nonisolated(unsafe) private static let syscallFunction: Call4? = dlsym(library, "syscall").map { unsafeBitCast($0, to: Call4.self) }
    nonisolated(unsafe) private static let prctlFunction: Prctl? = dlsym(library, "prctl").map { unsafeBitCast($0, to: Prctl.self) }

    /// syscall(number, a, b, c); -1 with errno set on failure.
    public static func syscall(_ number: Int, _ a: Int, _ b: Int, _ c: Int) -> Int {
        syscall4(number, a, b, c, 0)
    }

    public static func syscall4(_ number: Int, _ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int {
        guard let call = syscallFunction else {
            errno = ENOSYS
            return -1
        }
        return call(number, a, b, c, d)
    }

    public static func prctl(_ option: Int32, _ a: UInt, _ b: UInt = 0, _ c: UInt = 0, _ d: UInt = 0) -> Int32 {
        guard let call = prctlFunction else {
            errno = ENOSYS
            return -1
        }
        return call(option, a, b, c, d)
    }
}
