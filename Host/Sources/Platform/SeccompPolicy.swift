// The sandboxed runner's system-call policy: an allow list. Every call the runner (the host's
// runner code, glibc, the Swift runtime and the plugin) may make is below with the reason it is
// there; every other call fails with EPERM (clone3 with ENOSYS, so glibc falls back to clone).
// Calls that can name another process, a socket address or a descriptor's owner are allowed only
// with the arguments listed. Seccomp.swift compiles this table to BPF; SECURITY.md summarizes it
// (SeccompPolicyTests keeps the two in step and runs the compiled program on every rule).
//
// Landlock decides which files open and which TCP ports connect; this list decides which kernel
// interfaces exist at all. Numbers are x86_64's (asm/unistd_64.h).

#if canImport(Glibc)
import Glibc
#endif

public enum SeccompPolicy {
    /// A test on the arguments of a call (seccomp sees the six argument registers, not memory
    /// behind pointers). `oneOf` and `clear` read the low 32 bits: the kernel reads `int`
    /// arguments (pids, flags, commands) from those only.
    public indirect enum Condition: Sendable, Equatable {
        /// Argument `index`, masked, is one of `values`.
        case oneOf(Int, [UInt32], mask: UInt32 = 0xFFFF_FFFF)
        /// Argument `index` has none of the bits of `mask`.
        case clear(Int, UInt32)
        /// Argument `index` has every bit of `mask`.
        case set(Int, UInt32)
        /// Argument `index` is 0 in all 64 bits (a NULL pointer).
        case null(Int)
        /// Every condition holds.
        case all([Condition])
        /// Argument `index` is one of the cases' values and that case's condition holds.
        case cases(Int, [Case])
    }

    public struct Case: Sendable, Equatable {
        public var value: UInt32
        public var condition: Condition?
        public init(_ value: UInt32, _ condition: Condition? = nil) {
            self.value = value
            self.condition = condition
        }
    }

    public enum Decision: Sendable, Equatable {
        case allow
        /// Allowed when the condition holds, EPERM otherwise.
        case when(Condition)
        /// EPERM (listed for its reason; an unlisted call is refused the same way).
        case refuse
        /// ENOSYS: the call does not exist for the plugin (libraries fall back to an older call).
        case absent
    }

    public struct Rule: Sendable {
        public var name: String
        public var number: UInt32
        public var decision: Decision
        public var reason: String
    }

    /// The policy for a runner whose process id is `processID`. `allowTCP`: Landlock filters TCP
    /// ports (ABI ≥ 4), so TCP sockets may be created; `refuseTruncate`: Landlock cannot refuse
    /// truncate(2) (ABI < 3).
    public static func rules(processID: Int32, allowTCP: Bool, refuseTruncate: Bool) -> [Rule] {
        let me = UInt32(bitPattern: processID)
        let itself: Condition = .oneOf(0, [0, me])
        let exactlyItself: Condition = .oneOf(0, [me])
        // A clock id with the top bit set names another process's (or thread's) CPU clock.
        let ownClock: Condition = .clear(0, 0x8000_0000)
        var list: [Rule] = []
        func rule(_ name: String, _ number: UInt32, _ decision: Decision, _ reason: String) {
            list.append(Rule(name: name, number: number, decision: decision, reason: reason))
        }

        // Memory
        rule("brk", 12, .allow, "the C allocator's heap")
        rule("mmap", 9, .allow, "memory, and mapping the libraries and files it holds")
        rule("munmap", 11, .allow, "its own memory")
        rule("mremap", 25, .allow, "its own memory")
        rule("mprotect", 10, .allow, "its own memory (the dynamic loader, the Swift runtime)")
        rule("madvise", 28, .allow, "hints about its own pages (allocators return memory)")
        rule("mincore", 27, .allow, "which of its own pages are resident")
        rule("msync", 26, .allow, "flushing a mapping of a file it holds")
        rule("membarrier", 324, .allow, "memory barriers across its own threads")
        rule("memfd_create", 319, .refuse,
             "an anonymous file in memory that RLIMIT_AS does not count (written, never mapped): a runner with memory_mb 256 held 1.5 GiB in one")
        rule("map_shadow_stack", 453, .allow, "a new thread's own shadow stack (x86 CET)")

        // Threads and waiting
        rule("clone", 56, .when(.all([.clear(0, 0x7E02_0000), .set(0, 0x0001_0000)])),
             "threads only (CLONE_THREAD, no namespace flags): no child process can outlive a call")
        rule("clone3", 435, .absent, "its flags are behind a pointer the filter cannot read; glibc falls back to clone")
        rule("futex", 202, .allow, "waiting on its own memory words (locks, conditions)")
        rule("futex_waitv", 449, .allow, "the same, several words at once")
        rule("futex_wake", 454, .allow, "the same (Linux 6.7 interface)")
        rule("futex_wait", 455, .allow, "the same (Linux 6.7 interface)")
        rule("futex_requeue", 456, .allow, "the same (Linux 6.7 interface)")
        rule("set_robust_list", 273, .allow, "glibc registers each thread's robust mutex list")
        rule("set_tid_address", 218, .allow, "glibc sets each thread's exit notification word")
        rule("rseq", 334, .allow, "glibc registers each thread's restartable sequence")
        rule("arch_prctl", 158, .allow, "a thread's own TLS and CPU feature state")
        rule("sched_yield", 24, .allow, "yields its own thread")
        rule("gettid", 186, .allow, "its own thread id")
        rule("exit", 60, .allow, "ends a thread")
        rule("exit_group", 231, .allow, "ends the runner")
        rule("restart_syscall", 219, .allow, "the kernel resumes an interrupted sleep")
        rule("wait4", 61, .allow, "it has no children: answers ECHILD (popen's failure path)")

        // Signals: its own only
        rule("rt_sigaction", 13, .allow, "its own signal handlers")
        rule("rt_sigprocmask", 14, .allow, "its own signal mask")
        rule("rt_sigreturn", 15, .allow, "return from its own signal handler")
        rule("rt_sigpending", 127, .allow, "its own pending signals")
        rule("rt_sigsuspend", 130, .allow, "waits for its own signals")
        rule("rt_sigtimedwait", 128, .allow, "waits for its own signals")
        rule("sigaltstack", 131, .allow, "its own signal stack")
        rule("pause", 34, .allow, "waits for a signal")
        rule("kill", 62, .when(exactlyItself),
             "only its own pid: not 0 or -pgid (its process group, which without Landlock's signal scoping could be the host's), not the host")
        rule("tgkill", 234, .when(exactlyItself), "only threads of its own process (raise, abort, pthread_kill)")
        rule("rt_sigqueueinfo", 129, .when(exactlyItself), "only itself")
        rule("rt_tgsigqueueinfo", 297, .when(exactlyItself), "only threads of its own process")

        // Its own identity and resources
        for (name, number) in [("getpid", 39), ("getppid", 110), ("getuid", 102), ("geteuid", 107), ("getgid", 104),
                               ("getegid", 108), ("getgroups", 115), ("getresuid", 118), ("getresgid", 120),
                               ("getpgrp", 111), ("getpgid", 121), ("getsid", 124)] as [(String, UInt32)] {
            rule(name, number, .allow, "reads an identity; changes nothing")
        }
        rule("setpgid", 109, .when(.all([itself, .oneOf(1, [0, me])])),
             "only to stay the leader of its own process group (never join the host's)")
        rule("capget", 125, .allow, "reads capabilities (it has none left)")
        rule("prctl", 157, .when(.oneOf(0, [1, 2, 3, 15, 16, 21, 23, 30, 39, 40, 42, 0x5356_4D41])),
             "options that read or name its own thread: PR_SET/GET_PDEATHSIG, GET_DUMPABLE, SET/GET_NAME, GET_SECCOMP, CAPBSET_READ, GET_TIMERSLACK, GET_NO_NEW_PRIVS, GET_TID_ADDRESS, GET_THP_DISABLE, SET_VMA; never PR_SET_PTRACER, SET_DUMPABLE, SET_MM, SET_SECCOMP or the child subreaper")
        rule("getrlimit", 97, .allow, "reads its own limits")
        rule("setrlimit", 160, .allow, "its own limits (never above the hard limits the runner set)")
        rule("prlimit64", 302, .when(itself), "its own limits only: not the host's")
        rule("getrusage", 98, .allow, "its own resource usage")
        rule("times", 100, .allow, "its own CPU times")
        rule("getpriority", 140, .when(.all([.oneOf(0, [0]), .oneOf(1, [0, me])])), "its own priority (PRIO_PROCESS of itself)")
        rule("setpriority", 141, .when(.all([.oneOf(0, [0]), .oneOf(1, [0, me])])),
             "its own priority only: not its group's or its user's (which include the host)")
        for (name, number) in [("sched_getaffinity", 204), ("sched_setaffinity", 203), ("sched_getparam", 143),
                               ("sched_setparam", 142), ("sched_getscheduler", 145), ("sched_setscheduler", 144),
                               ("sched_getattr", 315), ("sched_setattr", 314), ("sched_rr_get_interval", 148)] as [(String, UInt32)] {
            rule(name, number, .when(itself), "its own scheduling (the CPU count comes from sched_getaffinity)")
        }
        rule("sched_get_priority_max", 146, .allow, "reads a constant")
        rule("sched_get_priority_min", 147, .allow, "reads a constant")
        rule("getcpu", 309, .allow, "the CPU it runs on")
        rule("uname", 63, .allow, "the kernel's name and version")
        rule("sysinfo", 99, .allow, "memory size and uptime (Foundation's ProcessInfo)")
        rule("getrandom", 318, .allow, "random bytes")
        rule("umask", 95, .allow, "its own file creation mask (nothing is writable anyway)")

        // Time
        rule("clock_gettime", 228, .when(ownClock), "the time, and its own CPU clocks: not another process's (a negative clock id)")
        rule("clock_getres", 229, .when(ownClock), "the same")
        rule("clock_nanosleep", 230, .when(ownClock), "sleeps")
        rule("gettimeofday", 96, .allow, "the time")
        rule("time", 201, .allow, "the time")
        rule("nanosleep", 35, .allow, "sleeps")
        rule("alarm", 37, .allow, "a timer that signals itself")
        rule("getitimer", 36, .allow, "its own interval timers")
        rule("setitimer", 38, .allow, "its own interval timers")
        rule("timer_create", 222, .when(ownClock), "its own POSIX timers, on its own clocks")
        rule("timer_settime", 223, .allow, "its own POSIX timers")
        rule("timer_gettime", 224, .allow, "its own POSIX timers")
        rule("timer_getoverrun", 225, .allow, "its own POSIX timers")
        rule("timer_delete", 226, .allow, "its own POSIX timers")
        rule("timerfd_create", 283, .when(ownClock), "a timer descriptor on its own clocks")
        rule("timerfd_settime", 286, .allow, "its own timer descriptors")
        rule("timerfd_gettime", 287, .allow, "its own timer descriptors")

        // Descriptors it holds
        for (name, number) in [("read", 0), ("write", 1), ("readv", 19), ("writev", 20), ("pread64", 17), ("pwrite64", 18),
                               ("preadv", 295), ("pwritev", 296), ("preadv2", 327), ("pwritev2", 328),
                               ("lseek", 8)] as [(String, UInt32)] {
            rule(name, number, .allow, "I/O on descriptors it holds (its wire, files the host handed over)")
        }
        rule("close", 3, .allow, "its own descriptors")
        rule("close_range", 436, .allow, "its own descriptors")
        rule("dup", 32, .allow, "copies a descriptor it holds")
        rule("dup2", 33, .allow, "copies a descriptor it holds (the runner puts stdout on stderr)")
        rule("dup3", 292, .allow, "copies a descriptor it holds")
        // F_SETFL without O_ASYNC (0x2000) or O_DIRECT (0x4000).
        rule("fcntl", 72, .when(.cases(1, [Case(0), Case(1), Case(2), Case(3), Case(4, .clear(2, 0x6000)), Case(5), Case(6), Case(7),
                                          Case(36), Case(37), Case(38), Case(1030), Case(1032), Case(1033), Case(1034)])),
             "descriptor flags, locks, duplicates, seals; never F_SETOWN, F_SETSIG or O_ASYNC (SIGIO to a process it names), F_SETLEASE or F_NOTIFY (signals), F_SETPIPE_SZ (the wire's pipes are the host's)")
        rule("ioctl", 16, .when(.oneOf(1, [0x541B, 0x5421, 0x5451, 0x5450, 0x5401, 0x5413, 0x5411])),
             "FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCGETS (isatty), TIOCGWINSZ, TIOCOUTQ: reads and its own descriptor's flags; nothing that types into or changes a terminal, drives a device or names who receives SIGIO")
        rule("ftruncate", 77, .allow, "files it holds open for writing (the host's temporary file for a write argument)")
        rule("fallocate", 285, .allow, "the same")
        rule("fsync", 74, .allow, "flushes a file it holds")
        rule("fdatasync", 75, .allow, "flushes a file it holds")
        rule("flock", 73, .allow, "locks a file it holds")
        rule("fadvise64", 221, .allow, "hints about a file it holds")
        rule("sendfile", 40, .allow, "copies between descriptors it holds")
        rule("copy_file_range", 326, .allow, "copies between descriptors it holds")
        rule("pipe", 22, .allow, "its own pipes")
        rule("pipe2", 293, .allow, "its own pipes")
        rule("eventfd2", 290, .allow, "its own event counters")
        rule("epoll_create", 213, .allow, "its own event loops")
        rule("epoll_create1", 291, .allow, "its own event loops")
        rule("epoll_ctl", 233, .allow, "its own event loops")
        rule("epoll_wait", 232, .allow, "its own event loops")
        rule("epoll_pwait", 281, .allow, "its own event loops")
        rule("epoll_pwait2", 441, .allow, "its own event loops")
        rule("poll", 7, .allow, "waits on descriptors it holds")
        rule("ppoll", 271, .allow, "waits on descriptors it holds")
        rule("select", 23, .allow, "waits on descriptors it holds")
        rule("pselect6", 270, .allow, "waits on descriptors it holds")

        // Paths: Landlock decides what opens; metadata stays visible (Landlock does not cover it)
        rule("open", 2, .allow, "Landlock decides: read-only in the library folders and its own file, nothing else")
        rule("openat", 257, .allow, "the same")
        rule("openat2", 437, .allow, "the same")
        for (name, number) in [("stat", 4), ("fstat", 5), ("lstat", 6), ("newfstatat", 262), ("statx", 332), ("access", 21),
                               ("faccessat", 269), ("faccessat2", 439), ("readlink", 89), ("readlinkat", 267),
                               ("statfs", 137), ("fstatfs", 138)] as [(String, UInt32)] {
            rule(name, number, .allow, "metadata (names, sizes, modes), never contents: Landlock does not cover it")
        }
        rule("getdents64", 217, .allow, "lists a folder it could open (Landlock checked the open)")
        rule("getcwd", 79, .allow, "its working folder")
        rule("chdir", 80, .allow, "its working folder (opening is still Landlock's)")
        rule("fchdir", 81, .allow, "the same")
        rule("truncate", 76, refuseTruncate ? .refuse : .allow,
             refuseTruncate ? "Landlock before ABI 3 cannot refuse it" : "Landlock (ABI ≥ 3) refuses it outside what it may write: nowhere")

        // Sockets
        rule("socket", 41, allowTCP
                ? .when(.all([.oneOf(0, [UInt32(AF_INET), UInt32(AF_INET6)]), .oneOf(1, [1], mask: 0xF),
                              .clear(1, ~UInt32(0xF | 0x800 | 0x80000)), .oneOf(2, [0, 6])]))
                : .refuse,
             allowTCP
                ? "TCP over IPv4 or IPv6 only (SOCK_STREAM, protocol 0 or IPPROTO_TCP, with SOCK_NONBLOCK/SOCK_CLOEXEC): Landlock allows connect to the granted ports; no UDP, raw, netlink, packet or Unix socket"
                : "Landlock before ABI 4 cannot filter TCP ports: no socket at all")
        rule("socketpair", 53, .when(.all([.oneOf(0, [UInt32(AF_UNIX)]), .oneOf(1, [1, 5], mask: 0xF), .clear(1, ~UInt32(0xF | 0x800 | 0x80000))])),
             "a connected AF_UNIX stream or seqpacket pair inside the process: it reaches nothing outside (a datagram end could connect() to any named socket)")
        rule("connect", 42, .allow, "TCP: Landlock allows the granted ports only")
        rule("sendto", 44, .when(.all([.clear(3, 0x2000_0000), .null(4)])),
             "on a connected socket only: no MSG_FASTOPEN and no address (both reach a port without passing Landlock's connect check)")
        rule("recvfrom", 45, .allow, "reads what arrives on its own sockets")
        rule("recvmsg", 47, .allow, "the same (the runner takes the files service's descriptors this way)")
        rule("recvmmsg", 299, .allow, "the same")
        rule("shutdown", 48, .allow, "its own sockets")
        rule("getsockname", 51, .allow, "its own sockets")
        rule("getpeername", 52, .allow, "its own sockets")
        rule("getsockopt", 55, .allow, "reads its own sockets' options")
        rule("setsockopt", 54, .when(.cases(1, [
            Case(1, .oneOf(2, [2, 7, 8, 9, 10, 13, 20, 21, 66, 67])),     // SOL_SOCKET: REUSEADDR, SNDBUF, RCVBUF, KEEPALIVE, OOBINLINE, LINGER, RCV/SNDTIMEO
            Case(6, .oneOf(2, [1, 3, 4, 5, 6, 12, 18, 25])),               // IPPROTO_TCP: NODELAY, CORK, KEEPIDLE/INTVL/CNT, QUICKACK, USER_TIMEOUT, NOTSENT_LOWAT
            Case(41, .oneOf(2, [26])),                                     // IPPROTO_IPV6: V6ONLY
        ])), "buffer sizes, timeouts, keep-alive, Nagle; never TCP_FASTOPEN_CONNECT (data in the SYN), TCP_REPAIR, SO_BINDTODEVICE or filters")

        // Refused, named for their reason (an unlisted call is refused the same way)
        rule("listen", 50, .refuse, "listen() without bind() makes the kernel pick a port on every address: a plugin serves no one")
        rule("accept", 43, .refuse, "nothing listens")
        rule("accept4", 288, .refuse, "nothing listens")
        rule("bind", 49, .refuse, "a client needs no local address; Landlock's bind rule is not the only way to one (listen)")
        rule("sendmsg", 46, .refuse, "its address and flags sit behind a pointer the filter cannot read (Fast Open, an unconnected send)")
        rule("sendmmsg", 307, .refuse, "the same")
        rule("execve", 59, .refuse, "no program can be started")
        rule("execveat", 322, .refuse, "no program can be started")
        rule("fork", 57, .refuse, "no child process")
        rule("vfork", 58, .refuse, "no child process")
        rule("setsid", 112, .refuse, "would leave the process group the host stops")
        rule("tkill", 200, .refuse, "names a thread of any process")
        rule("pidfd_open", 434, .refuse, "a process descriptor is a way to signal or inspect another process")
        rule("pidfd_send_signal", 424, .refuse, "the same")
        rule("pidfd_getfd", 438, .refuse, "takes another process's descriptors")
        rule("ptrace", 101, .refuse, "no other process is inspected")
        rule("process_vm_readv", 310, .refuse, "no other process's memory")
        rule("process_vm_writev", 311, .refuse, "no other process's memory")
        rule("splice", 275, .refuse, "moves pipe contents in the kernel; read and write do what a plugin needs")
        rule("tee", 276, .refuse, "the same, without consuming (a wire pipe read twice)")
        rule("vmsplice", 278, .refuse, "the same")
        rule("userfaultfd", 323, .refuse, "page-fault handling in user space: a kernel-exploit primitive")
        rule("perf_event_open", 298, .refuse, "performance counters: kernel attack surface and side channels")
        rule("bpf", 321, .refuse, "kernel programs")
        rule("keyctl", 250, .refuse, "the kernel keyrings (shared with the user's other processes)")
        rule("add_key", 248, .refuse, "the same")
        rule("request_key", 249, .refuse, "the same")
        rule("name_to_handle_at", 303, .refuse, "file handles bypass path checks")
        rule("open_by_handle_at", 304, .refuse, "the same")
        rule("io_uring_setup", 425, .refuse, "its operations never pass this filter")
        rule("inotify_init1", 294, .refuse, "watches on files outside Landlock's rules")
        rule("fanotify_init", 300, .refuse, "the same")
        rule("mq_open", 240, .refuse, "POSIX message queues are shared with the host and every other plugin")
        rule("shmget", 29, .refuse, "System V IPC is shared with the host and every other plugin")
        rule("semget", 64, .refuse, "the same")
        rule("msgget", 68, .refuse, "the same")
        rule("getxattr", 191, .refuse, "extended attributes of files outside Landlock's rules")
        rule("seccomp", 317, .refuse, "the filter is the host's")
        rule("unshare", 272, .refuse, "namespaces")
        rule("setns", 308, .refuse, "namespaces")
        rule("mount", 165, .refuse, "file systems")
        rule("chmod", 90, .refuse, "file modes (Landlock does not cover metadata)")
        rule("fchmod", 91, .refuse, "the same")
        rule("fchmodat", 268, .refuse, "the same")
        rule("mkdir", 83, .refuse, "nothing is writable (Landlock); the calls that only change the tree are not needed")
        rule("unlink", 87, .refuse, "the same")
        rule("rename", 82, .refuse, "the same")
        rule("mknod", 133, .refuse, "device and FIFO nodes")
        return list
    }

    /// What a `process` runner may not call (it is not sandboxed: every other call passes). Memory a
    /// runner holds outside its address space is memory RLIMIT_AS (`memory_mb`) does not count, and
    /// a kernel object that outlives the runner (System V IPC, POSIX message queues) outlives the
    /// server too: nothing of the host's removes it when the runner ends.
    public static let processRefusals: [Rule] = [
        Rule(name: "memfd_create", number: 319, decision: .refuse,
             reason: "an anonymous file in memory that RLIMIT_AS does not count (written, never mapped): a runner with memory_mb 256 held 1.5 GiB in one"),
        Rule(name: "shmget", number: 29, decision: .refuse,
             reason: "System V shared memory outlives the runner and the server until IPC_RMID: a runner with memory_mb 256 left 1 GiB in 32 segments it detached and never removed"),
        Rule(name: "msgget", number: 68, decision: .refuse,
             reason: "a System V message queue is a kernel object that outlives the runner and holds what was sent to it"),
        Rule(name: "semget", number: 64, decision: .refuse,
             reason: "System V semaphores are kernel objects that outlive the runner"),
        Rule(name: "mq_open", number: 240, decision: .refuse,
             reason: "a POSIX message queue outlives the runner (until mq_unlink) and holds what was sent to it, outside RLIMIT_AS"),
    ]

    /// The rules whose calls are allowed (always or with arguments).
    public static func allowed(_ rules: [Rule]) -> [Rule] {
        rules.filter { if case .refuse = $0.decision { return false } else if case .absent = $0.decision { return false } else { return true } }
    }
}
