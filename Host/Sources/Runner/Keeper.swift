// The keeper of a `process` runner: nothing a plugin forks outlives its runner (the fourteenth outside
// round's A11: a child that left the runner's process group with `setsid` outlived a clean stop of the
// runner, and its SIGKILL — the host kills the runner's group, which such a child has left).
//
// The process the host starts is the keeper. Before any of the plugin's code runs it makes itself the
// child subreaper (PR_SET_CHILD_SUBREAPER) and forks the runner, which goes on as before in the process
// group the host made for it; the keeper leaves that group for the host's, so the host's SIGKILL of the
// group never reaches it. Every process the plugin forks is then the keeper's descendant, and an orphan
// among them — a child whose runner ended, however it ended (a clean stop, a crash, `kill -9`), or a
// grandchild whose own parent ended — is re-parented to the keeper, not to init. When the runner ends the
// keeper kills every child it has (SIGKILL, and the child's process group), again for the orphans that
// killing re-parents to it, until it has none; then it ends as the runner ended (the same exit code, or
// the same signal), which is what the host reads with waitpid. It runs none of the plugin's code, holds
// none of the runner's descriptors and ignores every signal it can, so only SIGKILL ends it early — and the
// runner with it (its parent-death signal): whoever kills the process the host started kills the runner, as
// before the keeper, but the plugin's children then go to init; so does a plugin that kills its keeper on
// purpose (a `process` runner runs as the host's user: crash isolation, not confinement). A sandboxed runner
// has no keeper: it cannot fork.

import ClubhousePlatform
#if canImport(Glibc)
import Glibc
#endif

enum Keeper {
    /// In the process the host started, while it has one thread and before any of the plugin's code runs:
    /// forks the runner and returns in it; the keeper itself never returns from here — it exits as its
    /// runner did. Returns at once when no keeper can be made (no subreaper, no fork): the runner then runs
    /// without one, as it did before the keeper.
    static func keep() {
        guard Kernel.prctl(36, 1) == 0 else { return } // PR_SET_CHILD_SUBREAPER (not inherited by the fork)
        let keeper = getpid()
        let runner = fork()
        if runner < 0 {
            _ = Kernel.prctl(36, 0)
            return
        }
        if runner == 0 {
            // The runner ends with its keeper (PR_SET_PDEATHSIG: the keeper has one thread, so its death is the
            // process's), so a keeper killed from outside (`kill -9` of the process the host started) takes the
            // runner with it, as when the runner was that process; checked after, for a keeper already gone.
            _ = Kernel.prctl(1, UInt(SIGKILL))
            if getppid() != keeper { kill(getpid(), SIGKILL) }
            return
        }
        // Out of the runner's group, into the host's (the same session): the host kills the runner's group.
        _ = setpgid(0, getpgid(getppid()))
        for signal in 1..<Int32(65) where signal != SIGCHLD && signal != SIGKILL && signal != SIGSTOP {
            _ = Glibc.signal(signal, SIG_IGN)
        }
        // None of the runner's descriptors: its pipes close when the runner (and its children) end.
        Descriptor.closeAll(above: 0)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC) // the keeper never execs; dup2 clears it on 1 and 2
        if null >= 0 {
            dup2(null, 1)
            dup2(null, 2)
            if null > 2 { close(null) }
        }
        var status: Int32 = 0
        while true {
            let ended = waitpid(-1, &status, 0) // the runner, or an orphan that ended on its own
            if ended == runner { break }
            if ended < 0 && errno != EINTR {
                status = 0
                break
            }
        }
        sweep()
        end(as: status)
    }

    /// Kills every child the keeper has and reaps them, until it has none left (at most 5 s).
    private static func sweep() {
        let deadline = Subprocess.monotonicMilliseconds() + 5000
        while Subprocess.monotonicMilliseconds() < deadline {
            for child in children() {
                kill(-child, SIGKILL) // its group, where it leads one (a setsid child's own children)
                kill(child, SIGKILL)
            }
            var status: Int32 = 0
            var reaped = false
            while true {
                let ended = waitpid(-1, &status, WNOHANG)
                if ended > 0 {
                    reaped = true
                    continue
                }
                if ended < 0 && errno == ECHILD { return } // none left
                break
            }
            if !reaped { usleep(1000) }
        }
    }

    /// The keeper's children now (its own and the orphans re-parented to it): /proc/PID/task/PID/children
    /// (the keeper has one thread), else every /proc/N/stat whose parent is the keeper.
    private static func children() -> [pid_t] {
        let me = getpid()
        if let text = read("/proc/\(me)/task/\(me)/children") {
            return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        var found: [pid_t] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), let stat = read("/proc/\(pid)/stat"),
                  let close = stat.lastIndex(of: ")") else { continue }
            // "PID (COMM) STATE PPID …": the fields after the command's closing parenthesis.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == me { found.append(pid) }
        }
        return found
    }

    /// A small /proc file's text, or nil (FileSystem.read: close-on-exec, interrupted reads retried).
    private static func read(_ path: String) -> String? {
        guard let bytes = try? FileSystem.read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Ends the keeper as `status` (a waitpid status) says the runner ended: the same signal, or the same code.
    private static func end(as status: Int32) -> Never {
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F {
            var none = rlimit(rlim_cur: 0, rlim_max: 0)
            setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none) // a relayed SIGSEGV writes no core
            _ = Glibc.signal(signal, SIG_DFL)
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, signal)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            kill(getpid(), signal)
            _exit(128 + signal)
        }
        _exit((status >> 8) & 0xFF)
    }
}
