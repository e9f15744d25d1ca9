/*
 * open(2) and open64(2) as the clubhouse executable defines them, ahead of glibc's for every
 * library in the process (the executable's dynamic symbols come first in the lookup).
 *
 * Why: libdispatch's worker-pool monitor (swift-corelibs-libdispatch src/event/workqueue.c,
 * _dispatch_workq_count_runnable_workers) opens /proc/<tid>/stat of each worker once a second while
 * work waits in a global queue, and crashes the process (DISPATCH_CLIENT_CRASH, SIGILL) when that
 * open fails. A sandboxed runner (Host/Sources/Runner/Sandbox.swift) may read only beneath its
 * own /proc/<pid>/task, so /proc/<tid>/stat fails there with EACCES, and every plugin using
 * Dispatch's global queues, Swift concurrency or Foundation on them died (issue 27).
 *
 * What: the open is made exactly as glibc makes it (openat(AT_FDCWD, …)); only when it fails with
 * EACCES and the path is exactly "/proc/<digits>/stat" is /proc/self/task/<digits>/stat tried once,
 * which the kernel answers only for a thread of this process (ENOENT for any other tid) and
 * Landlock only beneath the runner's own task folder. If that fails too, the first error stands.
 * The host (never sandboxed) never sees the retry: its first open succeeds or fails as before.
 * No allocation, no locks: safe wherever open is. Unlike glibc's, this open is not a
 * pthread cancellation point (nothing in the host or the runner cancels threads).
 */
#define _GNU_SOURCE
#include "proc_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

int clubhouse_proc_open_linked(void) { return 1; }

/* The length of the tid's digits when `path` is "/proc/<1-10 digits>/stat", else 0. */
static int proc_tid_stat(const char *path) {
    static const char prefix[] = "/proc/", suffix[] = "/stat";
    for (int i = 0; prefix[i]; i++) if (path[i] != prefix[i]) return 0;
    const char *digits = path + sizeof prefix - 1;
    int n = 0;
    while (digits[n] >= '0' && digits[n] <= '9') if (++n > 10) return 0;
    if (n == 0) return 0;
    for (int i = 0; suffix[i]; i++) if (digits[n + i] != suffix[i]) return 0;
    return digits[n + sizeof suffix - 1] == 0 ? n : 0;
}

static int open_at_cwd(const char *path, int flags, mode_t mode) {
    long fd = syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    if (fd >= 0 || errno != EACCES) return (int)fd;
    int n = proc_tid_stat(path);
    if (n == 0) return -1;
    static const char task[] = "/proc/self/task/";
    char retry[sizeof task + 10 + sizeof "/stat"];
    int used = 0;
    for (int i = 0; task[i]; i++) retry[used++] = task[i];
    for (int i = 0; i < n; i++) retry[used++] = path[sizeof "/proc/" - 1 + i];
    for (int i = 0; "/stat"[i]; i++) retry[used++] = "/stat"[i];
    retry[used] = 0;
    long again = syscall(SYS_openat, AT_FDCWD, retry, flags, mode);
    if (again >= 0) return (int)again;
    errno = EACCES;
    return -1;
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_at_cwd(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_at_cwd(path, flags, mode);
}
