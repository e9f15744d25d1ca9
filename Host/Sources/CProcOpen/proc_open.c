/*
 * open(2) and open64(2) as the clubhouse executable defines them, ahead of glibc's for every
 * library in the process (the executable's dynamic symbols come first in the lookup).
 *
 * Why: libdispatch's worker-pool monitor (swift-corelibs-libdispatch src/event/workqueue.c,
 * _dispatch_workq_count_runnable_workers) opens /proc/<tid>/stat of each worker once a second while
 * work waits in a global queue, and crashes the process (DISPATCH_CLIENT_CRASH, SIGILL) when that
 * open fails. A sandboxed runner (Host/Sources/Runner/Sandbox.swift) may read nothing of /proc, so
 * /proc/<tid>/stat fails there with EACCES, and every plugin using Dispatch's global queues, Swift
 * concurrency or Foundation on them died (issue 27).
 *
 * What: the open is made exactly as glibc makes it (openat(AT_FDCWD, …)); only when it fails with
 * EACCES and the path is exactly "/proc/<digits>/stat" of a thread of this process (the kernel says,
 * tgkill with signal 0) is a pipe returned holding the line libdispatch parses (synthesized_stat),
 * so the sandbox needs no /proc at all (an earlier version granted the runner its own task folder,
 * which also showed the machine's socket tables under task/<tid>/net: the eleventh outside round).
 * Any other path, or another process's tid, keeps the first error.
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

/* The stat line libdispatch reads for thread `tid` of this process: a pipe holding
 * "<tid> (worker) S\n" (state S: the monitor then counts the worker as not runnable and, while work
 * waits, adds a thread — never fewer threads than it would make seeing the real state), or -1 with
 * errno when `tid` is no thread of this process (tgkill with signal 0 asks the kernel). */
static int synthesized_stat(const char *digits, int n, int flags) {
    long tid = 0;
    for (int i = 0; i < n; i++) tid = tid * 10 + (digits[i] - '0');
    if (tid <= 0 || tid > 0x7fffffff) { errno = ENOENT; return -1; }
    if (syscall(SYS_tgkill, (long)getpid(), tid, 0L) != 0) { errno = ENOENT; return -1; }
    int fds[2];
    if (syscall(SYS_pipe2, fds, (flags & O_CLOEXEC) ? O_CLOEXEC : 0) != 0) return -1;
    char line[32];
    int used = 0;
    for (int i = 0; i < n; i++) line[used++] = digits[i];
    static const char rest[] = " (worker) S\n";
    for (int i = 0; rest[i]; i++) line[used++] = rest[i];
    long written = syscall(SYS_write, fds[1], line, (long)used);
    syscall(SYS_close, fds[1]);
    if (written != used) { syscall(SYS_close, fds[0]); errno = EIO; return -1; }
    return fds[0];
}

static int open_at_cwd(const char *path, int flags, mode_t mode) {
    long fd = syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    if (fd >= 0 || errno != EACCES) return (int)fd;
    int n = proc_tid_stat(path);
    if (n == 0) { errno = EACCES; return -1; }
    int answer = synthesized_stat(path + sizeof "/proc/" - 1, n, flags);
    if (answer >= 0) return answer;
    errno = EACCES;
    return -1;
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

/* cloexec-ok: the definition of open itself: the caller's flags are passed on unchanged. */
int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_at_cwd(path, flags, mode);
}

/* cloexec-ok: open64 is open itself (one body, another name: on a 64-bit system the two are the same call). */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
