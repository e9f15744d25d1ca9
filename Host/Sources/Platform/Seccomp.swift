// seccomp: a BPF filter the kernel runs on every system call of the process (all its threads, and
// every child, for good). The sandboxed runner installs one before it loads its plugin: no program
// can be started (execve), no process created (fork, vfork, clone without CLONE_THREAD: a plugin
// can start threads, never a child that outlives its call), no other process inspected (ptrace, process_vm_*), no namespaces,
// mounts, BPF, keyrings, modules, clocks, reboot; no change of file owners, modes, times or
// extended attributes (Landlock does not cover those); no TIOCSTI/TIOCLINUX on an inherited
// terminal; signals, rlimits, scheduling and priorities of this process only (Landlock scopes
// signals only from ABI 6, and never prlimit); sockets only for TCP (whose ports Landlock
// decides). A refused call fails with EPERM; the plugin sees an error, nothing is killed.

#if canImport(Glibc)
import Glibc
#endif

public enum Seccomp {
    /// What the filter refuses, for SECURITY.md and messages.
    public static let refusedSummary = "execve/execveat, fork/vfork/clone of a process (threads are allowed), ptrace, process_vm_readv/writev, pidfd_getfd, unshare/setns and namespace flags of clone, mount and the new mount API, chroot/pivot_root, bpf, keyctl/add_key/request_key, perf_event_open, io_uring, kernel modules, kexec, reboot, swap, clocks, hostname, chmod/chown/utimes/xattr families, mknod, ioctl TIOCSTI/TIOCLINUX, signals/prlimit/scheduling/priority of another process, sockets other than TCP over IPv4/IPv6"

    #if arch(x86_64)
    static let architecture: UInt32 = 0xC000_003E  // AUDIT_ARCH_X86_64
    static let socketCall: UInt32 = 41
    static let cloneCall: UInt32 = 56
    static let clone3Call: UInt32 = 435
    static let truncateCall: UInt32 = 76
    static let ioctlCall: UInt32 = 16
    /// Calls that may name another process, allowed only on this one: (number, argument that
    /// names the process). kill also takes 0 and -pid (its own process group).
    static let ownProcessOnly: [(UInt32, Int)] = [
        (62, 0),   // kill
        (234, 0),  // tgkill
        (129, 0),  // rt_sigqueueinfo
        (297, 0),  // rt_tgsigqueueinfo
        (434, 0),  // pidfd_open (so pidfd_send_signal and waitid reach only this process)
        (302, 0),  // prlimit64 (the host's limits are not the plugin's to read or change)
        (203, 0),  // sched_setaffinity
        (142, 0),  // sched_setparam
        (144, 0),  // sched_setscheduler
        (314, 0),  // sched_setattr
        (256, 0),  // migrate_pages
        (279, 0),  // move_pages
        (141, 1),  // setpriority (which, who)
        (251, 1),  // ioprio_set (which, who)
    ]
    /// x86_64 system call numbers refused with EPERM.
    static let refused: [UInt32] = [
        59, 322,                 // execve, execveat
        101, 310, 311, 438, 440, // ptrace, process_vm_readv, process_vm_writev, pidfd_getfd, process_madvise
        272, 308,                // unshare, setns
        165, 166, 155, 161,      // mount, umount2, pivot_root, chroot
        428, 429, 430, 431, 432, 433, 442, // open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
        321, 250, 248, 249, 298, // bpf, keyctl, add_key, request_key, perf_event_open
        425, 426, 427,           // io_uring_setup, io_uring_enter, io_uring_register
        175, 313, 176, 246, 320, // init_module, finit_module, delete_module, kexec_load, kexec_file_load
        323, 303, 304,           // userfaultfd, name_to_handle_at, open_by_handle_at
        169, 167, 168, 170, 171, // reboot, swapon, swapoff, sethostname, setdomainname
        164, 227, 159, 305,      // settimeofday, clock_settime, adjtimex, clock_adjtime
        163, 172, 173, 179, 103, // acct, iopl, ioperm, quotactl, syslog
        312, 153, 135, 154, 134, // kcmp, vhangup, personality, modify_ldt, uselib
        212, 180, 300,           // lookup_dcookie, nfsservctl, fanotify_init
        90, 91, 268, 452,        // chmod, fchmod, fchmodat, fchmodat2
        92, 93, 94, 260,         // chown, fchown, lchown, fchownat
        188, 189, 190, 197, 198, 199, 463, 466, // set/remove xattr families
        132, 235, 280, 261,      // utime, utimes, utimensat, futimesat
        133, 259,                // mknod, mknodat
        57, 58,                  // fork, vfork (threads only: see clone below)
        200,                     // tkill (tgkill names the process)
    ]
    public static let isSupported = true
    #else
    static let architecture: UInt32 = 0
    static let socketCall: UInt32 = 0
    static let cloneCall: UInt32 = 0
    static let clone3Call: UInt32 = 0
    static let truncateCall: UInt32 = 0
    static let ioctlCall: UInt32 = 0
    static let ownProcessOnly: [(UInt32, Int)] = []
    static let refused: [UInt32] = []
    public static let isSupported = false
    #endif

    // linux/filter.h, linux/seccomp.h
    static let loadWord: UInt16 = 0x20       // BPF_LD | BPF_W | BPF_ABS
    static let jumpEqual: UInt16 = 0x15      // BPF_JMP | BPF_JEQ | BPF_K
    static let jumpGreaterEqual: UInt16 = 0x35
    static let jumpSet: UInt16 = 0x45
    static let andConstant: UInt16 = 0x54    // BPF_ALU | BPF_AND | BPF_K
    static let returnConstant: UInt16 = 0x06 // BPF_RET | BPF_K
    static let allow: UInt32 = 0x7FFF_0000
    static let killProcess: UInt32 = 0x8000_0000
    static func error(_ code: Int32) -> UInt32 { 0x0005_0000 | UInt32(code) }
    /// CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
    static let namespaceFlags: UInt32 = 0x7E02_0000
    static let cloneThread: UInt32 = 0x0001_0000

    /// The filter as BPF instructions (code, jt, jf, k), 8 bytes each.
    static func program(allowTCP: Bool, refuseTruncate: Bool, processID: Int32 = getpid()) -> [UInt8] {
        var code: [(UInt16, UInt32, String?, String?)] = []
        var labels: [String: Int] = [:]
        func op(_ c: UInt16, _ k: UInt32, _ jt: String? = nil, _ jf: String? = nil) { code.append((c, k, jt, jf)) }
        func label(_ name: String) { labels[name] = code.count }
        func argument(_ index: Int) -> UInt32 { UInt32(16 + 8 * index) } // low 32 bits (little-endian)

        op(loadWord, 4)                       // seccomp_data.arch
        op(jumpEqual, architecture, nil, "kill")
        op(loadWord, 0)                       // seccomp_data.nr
        op(jumpGreaterEqual, 0x4000_0000, "deny") // the x32 ABI's numbers
        for number in refused { op(jumpEqual, number, "deny") }
        if refuseTruncate { op(jumpEqual, truncateCall, "deny") }
        op(jumpEqual, clone3Call, "enosys")   // its flags are behind a pointer: glibc falls back to clone
        op(jumpEqual, socketCall, allowTCP ? "socket" : "deny")
        op(jumpEqual, cloneCall, "clone")
        op(jumpEqual, ioctlCall, "ioctl")
        for (number, _) in ownProcessOnly { op(jumpEqual, number, "own\(number)") }
        op(returnConstant, allow)
        let me = UInt32(bitPattern: processID)
        for (number, index) in ownProcessOnly {
            label("own\(number)")
            op(loadWord, argument(index))
            op(jumpEqual, 0, "allow")          // this process (or its group, for kill)
            op(jumpEqual, me, "allow")
            op(jumpEqual, UInt32(bitPattern: -processID), "allow", "deny")
        }
        label("ioctl")                        // no typing into the host's terminal (stderr may be one)
        op(loadWord, argument(1))
        op(jumpEqual, 0x5412, "deny")         // TIOCSTI
        op(jumpEqual, 0x541C, "deny", "allow") // TIOCLINUX
        label("socket")
        op(loadWord, argument(0))
        op(jumpEqual, UInt32(AF_INET), "stream")
        op(jumpEqual, UInt32(AF_INET6), "stream", "deny")
        label("stream")
        op(loadWord, argument(1))
        op(andConstant, 0xF)                  // without SOCK_NONBLOCK / SOCK_CLOEXEC
        op(jumpEqual, 1, nil, "deny")         // SOCK_STREAM
        op(loadWord, argument(2))
        op(jumpEqual, 0, "allow")
        op(jumpEqual, 6, "allow", "deny")     // IPPROTO_TCP
        label("clone")                        // threads yes; new processes and namespaces no
        op(loadWord, argument(0))
        op(jumpSet, namespaceFlags, "deny")
        op(jumpSet, cloneThread, "allow", "deny")
        label("allow")
        op(returnConstant, allow)
        label("deny")
        op(returnConstant, error(EPERM))
        label("enosys")
        op(returnConstant, error(ENOSYS))
        label("kill")
        op(returnConstant, killProcess)

        var bytes: [UInt8] = []
        bytes.reserveCapacity(code.count * 8)
        for (index, (c, k, jt, jf)) in code.enumerated() {
            func offset(_ target: String?) -> UInt8 {
                guard let target, let position = labels[target] else { return 0 }
                let distance = position - (index + 1)
                precondition(distance >= 0 && distance < 256, "seccomp jump out of range")
                return UInt8(distance)
            }
            withUnsafeBytes(of: c.littleEndian) { bytes += $0 }
            bytes.append(offset(jt))
            bytes.append(offset(jf))
            withUnsafeBytes(of: k.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// Sets no_new_privs and installs the filter on every thread of the process. Returns what
    /// failed, or nil.
    public static func install(allowTCP: Bool, refuseTruncate: Bool) -> String? {
        guard isSupported else { return "the sandbox's seccomp filter is written for x86_64 only" }
        guard Kernel.prctl(38, 1) == 0 else { // PR_SET_NO_NEW_PRIVS
            return "prctl(PR_SET_NO_NEW_PRIVS): \(String(cString: strerror(errno)))"
        }
        let filter = program(allowTCP: allowTCP, refuseTruncate: refuseTruncate)
        return filter.withUnsafeBytes { instructions -> String? in
            // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
            var header = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt16(filter.count / 8).littleEndian) { header.replaceSubrange(0..<2, with: $0) }
            withUnsafeBytes(of: UInt(bitPattern: instructions.baseAddress).littleEndian) { header.replaceSubrange(8..<16, with: $0) }
            let rc = header.withUnsafeMutableBytes {
                // seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program)
                Kernel.syscall(317, 1, 1, Int(bitPattern: $0.baseAddress))
            }
            if rc == 0 { return nil }
            if rc > 0 { return "seccomp: thread \(rc) could not be synchronized" }
            return "seccomp: \(String(cString: strerror(errno)))"
        }
    }

    /// Drops every capability of the process (a runner started by root keeps uid 0 but no
    /// privilege: no CAP_DAC_OVERRIDE, CAP_KILL, CAP_NET_RAW…). Returns what failed, or nil.
    public static func dropCapabilities() -> String? {
        // capset(&{_LINUX_CAPABILITY_VERSION_3, pid 0}, &{effective, permitted, inheritable} × 2)
        var header: [UInt32] = [0x2008_0522, 0]
        var data = [UInt32](repeating: 0, count: 6)
        let rc = header.withUnsafeMutableBytes { h in
            data.withUnsafeMutableBytes { d in
                Kernel.syscall(126, Int(bitPattern: h.baseAddress), Int(bitPattern: d.baseAddress), 0)
            }
        }
        return rc == 0 ? nil : "capset: \(String(cString: strerror(errno)))"
    }
}
