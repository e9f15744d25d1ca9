// Whether this machine can run a plugin sandboxed (Landlock and the seccomp filter's
// architecture): asked by the host before it starts a sandboxed runner (and to choose what "auto"
// means) and by the runner before it confines itself.

#if canImport(Glibc)
import Glibc
#endif

public enum SandboxSupport {
    /// Why this kernel cannot run a plugin sandboxed (nil when it can), as the tail of a sentence.
    public static func unavailableReason() -> String? {
        guard Seccomp.isSupported else { return "the sandbox's seccomp filter is written for x86_64 only" }
        let (version, problem) = Landlock.effectiveABI()
        if version < 1 { return "this kernel (\(kernelRelease())) has no Landlock: \(problem ?? "unknown reason")" }
        return nil
    }

    /// `uname -r`.
    public static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown kernel" }
        return withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
