// No descriptor crosses into a child by accident (issue 27). Two walls:
//
// 1. Every descriptor the host creates is close-on-exec from birth: `pipe2(O_CLOEXEC)`,
//    `accept4(SOCK_CLOEXEC)`, `socket(…|SOCK_CLOEXEC)`, `O_CLOEXEC`, `F_DUPFD_CLOEXEC`,
//    `MSG_CMSG_CLOEXEC`. Setting FD_CLOEXEC with fcntl after the call leaves a window in which
//    another thread's posix_spawn copies the descriptor (under `serve`, client sockets and other
//    runners' pipes reached runners that way). CloseOnExecSourceTests scans Host/ and PluginSDK/
//    for the non-atomic forms.
// 2. Every child is spawned with `closefrom` in its file actions (glibc's
//    posix_spawn_file_actions_addclosefrom_np, close_range(2) in the child between fork and exec):
//    it keeps exactly the descriptors its file actions name, whatever the host inherited from its
//    own parent (a shell's `9<secret`, a supervisor's pipes) and whatever a library opened without
//    close-on-exec (SQLite, Foundation). Closing in the child before exec, rather than in the
//    runner's own code, means no inherited descriptor reaches even the runner's dynamic loader;
//    a spawner forked at start-up (Chromium's zygote) would also work, but costs a process and a
//    protocol for nothing closefrom does not already give. The runner closes everything above its
//    protocol's descriptors once more when it starts (`closeAll(above:)`), a second wall that does
//    not depend on glibc.
//
// glibc's Swift module does not export pipe2, accept4 or addclosefrom_np (they are GNU
// extensions), so they are looked up with dlsym.

#if canImport(Glibc)
import Glibc
#endif

extension Descriptor {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    nonisolated(unsafe) private static let library = dlopen(nil, RTLD_NOW)
    private static let pipe2Function: Pipe2? = dlsym(library, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
    private static let accept4Function: Accept4? = dlsym(library, "accept4").map { unsafeBitCast($0, to: Accept4.self) }
    private static let addCloseFromFunction: AddCloseFrom? =
        dlsym(library, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// A pipe whose ends are close-on-exec from birth (and non-blocking when asked): (read, write).
    public static func pipe(nonBlocking: Bool = false) -> (Int32, Int32)? {
        guard let pipe2 = pipe2Function else {
            errno = ENOSYS
            return nil
        }
        var fds: [Int32] = [-1, -1]
        guard pipe2(&fds, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) == 0 else { return nil }
        return (fds[0], fds[1])
    }

    /// accept4(2): the accepted socket is close-on-exec from birth (and non-blocking when asked);
    /// the peer's address into `address` when given. -1 with errno set on failure.
    public static func accept(_ listener: Int32, nonBlocking: Bool, address: UnsafeMutablePointer<sockaddr_storage>? = nil) -> Int32 {
        guard let accept4 = accept4Function else {
            errno = ENOSYS
            return -1
        }
        let blocking = nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0
        guard let address else { return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | blocking) }
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return address.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept4(listener, $0, &length, Int32(SOCK_CLOEXEC.rawValue) | blocking) }
    }

    /// Adds "close every descriptor from `lowest` up" to a child's file actions (after the dup2s
    /// that put its own descriptors below `lowest`). False when this glibc (before 2.34) cannot;
    /// the caller then refuses to spawn rather than leak.
    public static func closeInChild(_ actions: inout posix_spawn_file_actions_t, from lowest: Int32) -> Bool {
        guard let add = addCloseFromFunction else { return false }
        return add(&actions, lowest) == 0
    }

    /// Adds dup2 file actions that put each source on its target in a child, safe whatever the
    /// numbers (a source that is another's target, the host's own 0–2 closed): each source is first
    /// copied to 10 or above, close-on-exec. Returns the copies, which the caller closes after the
    /// spawn, or nil (errno set) when a copy could not be made.
    public static func placeInChild(_ actions: inout posix_spawn_file_actions_t, _ moves: [(source: Int32, target: Int32)]) -> [Int32]? {
        var copies: [Int32] = []
        for move in moves {
            let copy = fcntl(move.source, F_DUPFD_CLOEXEC, 10)
            guard copy >= 0 else {
                let code = errno
                copies.forEach { close($0) }
                errno = code
                return nil
            }
            copies.append(copy)
            posix_spawn_file_actions_adddup2(&actions, copy, move.target)
        }
        return copies
    }

    /// Why `closeInChild` failed, for messages.
    public static let closeInChildUnavailable =
        "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it), so a child would inherit the host's descriptors"

    /// Closes every descriptor above `highest` (close_range(2), Linux 5.9; a loop over
    /// /proc/self/fd where it is missing).
    public static func closeAll(above highest: Int32) {
        if Kernel.syscall(436, Int(highest) + 1, Int(UInt32.max), 0) == 0 { return }
        guard let folder = opendir("/proc/self/fd") else { return }
        var open: [Int32] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd > highest { open.append(fd) }
        }
        let own = dirfd(folder)
        closedir(folder)
        for fd in open where fd != own { close(fd) }
    }
}
