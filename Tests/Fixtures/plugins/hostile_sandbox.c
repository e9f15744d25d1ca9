/*
 * A hostile plugin for `isolation: "sandbox"` (SandboxEndToEndTests). Each command tries one
 * escape and replies what the system call said: {"data":{"errno":N,"head":"…"}} (errno 0 when it
 * worked; head = the first bytes read). The test runs the same fixture sandboxed (each attempt
 * refused) and as a plain "process" plugin (the same attempts work: the tests can fail).
 *
 * Variant FIXTURE_CONSTRUCTOR: a constructor (run by dlopen, before any entry point) tries to
 * create $CLUBHOUSE_DATA_DIR/constructor-ran-<pid>, and each describe appends one byte to
 * $CLUBHOUSE_DATA_DIR/described-<pid>.
 *
 * Commands (argument "target": a path or a TCP port, as a string):
 *   open     open(target, O_RDONLY) and read 15 bytes
 *   write    open(target, O_WRONLY|O_CREAT|O_TRUNC) and write a line
 *   connect  socket(AF_INET, SOCK_STREAM) + connect(127.0.0.1:target)
 *   udp      socket(AF_INET, SOCK_DGRAM)
 *   exec     execve("/bin/sh", {"sh", "-c", "exit 7"}) in the runner itself
 *   popen    popen("/bin/sh -c 'echo escaped'") and read its output
 *   ptrace   ptrace(PTRACE_ATTACH) of the parent (the host), detached at once if it worked
 *   signal   kill(parent, 0)
 *   chmod    chmod(target, 0777)
 *   truncate truncate(target, 0)
 *   prlimit  read the host's RLIMIT_NOFILE (prlimit on the parent, changing nothing)
 *   fork     fork() a child that would sleep a minute (outliving the call); a thread is fine
 *   thread   pthread_create + join (legitimate: plugins may use threads)
 *   tiocsti  ioctl(2, TIOCSTI, "x"): type into the host's terminal (refused by seccomp before
 *            the kernel looks at what fd 2 is)
 *   caps     the runner's effective capabilities (capget), in hex
 *   pid      the runner's process id (in head), to see that one runner served a whole session
 *   store    the legitimate work: a row written and read back through the host's storage service
 *   relink   target "DIR=OTHER": moves DIR aside and puts a link to OTHER in its place, then stores
 *            (a library that re-points its own folder at the host's bundled plugins before it asks
 *            for another plugin's data: DataOwnershipEndToEndTests)
 *   try      one attack of issue 27 by name (target "NAME" or "NAME:PORT"), replying like the
 *            others; the names are listed above attempt() below
 *   fds      the runner's open descriptors, "N:K" each (K: c character device, s socket, p pipe,
 *            r regular file, d folder, o other), found with fcntl(F_GETFD) over 0…65535 (the
 *            sandbox cannot list /proc/self/fd)
 *   crash    abort() (the host restarts the runner on the next call)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <netinet/tcp.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/xattr.h>
#include <termios.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.sandbox"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"

#define ARG "\"arguments\":[{\"name\":\"target\",\"type\":\"string\",\"required\":false,\"help\":\"path or port\"}]"
#define CATALOGUE                                                                   \
    "{\"commands\":["                                                               \
    "{\"name\":\"open\",\"summary\":\"Read a file\"," ARG "},"                       \
    "{\"name\":\"write\",\"summary\":\"Write a file\"," ARG "},"                     \
    "{\"name\":\"connect\",\"summary\":\"Connect to 127.0.0.1:PORT\"," ARG "},"      \
    "{\"name\":\"udp\",\"summary\":\"Open a UDP socket\",\"arguments\":[]},"         \
    "{\"name\":\"exec\",\"summary\":\"execve /bin/sh\",\"arguments\":[]},"           \
    "{\"name\":\"popen\",\"summary\":\"popen /bin/sh\",\"arguments\":[]},"           \
    "{\"name\":\"ptrace\",\"summary\":\"Attach to the host\",\"arguments\":[]},"     \
    "{\"name\":\"signal\",\"summary\":\"Signal the host\",\"arguments\":[]},"        \
    "{\"name\":\"chmod\",\"summary\":\"chmod a file\"," ARG "},"                     \
    "{\"name\":\"fork\",\"summary\":\"Fork a lingering child\",\"arguments\":[]},"    \
    "{\"name\":\"thread\",\"summary\":\"Start and join a thread\",\"arguments\":[]},"  \
    "{\"name\":\"tiocsti\",\"summary\":\"Type into the terminal\",\"arguments\":[]},"  \
    "{\"name\":\"caps\",\"summary\":\"Effective capabilities\",\"arguments\":[]},"    \
    "{\"name\":\"truncate\",\"summary\":\"Truncate a file\"," ARG "},"              \
    "{\"name\":\"prlimit\",\"summary\":\"Read the host's limits\",\"arguments\":[]}," \
    "{\"name\":\"pid\",\"summary\":\"The runner's pid\",\"arguments\":[]},"          \
    "{\"name\":\"store\",\"summary\":\"Use the host's storage\",\"arguments\":[]},"  \
    "{\"name\":\"relink\",\"summary\":\"Re-point a folder, then store\"," ARG "},"       \
    "{\"name\":\"try\",\"summary\":\"One named attack\"," ARG "},"                     \
    "{\"name\":\"fds\",\"summary\":\"List open descriptors\",\"arguments\":[]},"     \
    "{\"name\":\"crash\",\"summary\":\"abort()\",\"arguments\":[]}"                  \
    "]}"

static clubhouse_status result(const clubhouse_reply *reply, int error, const char *head) {
    char text[2200];
    char clean[2048] = {0};
    for (size_t i = 0; head && head[i] && i + 1 < sizeof clean; i++) {
        unsigned char c = (unsigned char)head[i];
        clean[i] = (c >= 32 && c < 127 && c != '"' && c != '\\') ? (char)c : '.';
    }
    snprintf(text, sizeof text, "{\"data\":{\"errno\":%d,\"head\":\"%s\"}}", error, clean);
    say(reply, text);
    return CLUBHOUSE_OK;
}

/* The string value of "target" in the request (no escapes), or "". */
static void target(const char *request, size_t length, char *out, size_t capacity) {
    out[0] = 0;
    char copy[1024];
    if (length >= sizeof copy) return;
    memcpy(copy, request, length);
    copy[length] = 0;
    const char *key = strstr(copy, "\"target\"");
    if (!key) return;
    const char *quote = strchr(key + 8, '"');
    if (!quote) return;
    size_t n = 0;
    for (const char *p = quote + 1; *p && *p != '"' && n + 1 < capacity; p++) out[n++] = *p;
    out[n] = 0;
}

#ifdef FIXTURE_CONSTRUCTOR
__attribute__((constructor)) static void escape_at_load(void) {
    const char *dir = getenv("CLUBHOUSE_DATA_DIR");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/constructor-ran-%d", dir, (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
}
#endif

static void *worker(void *argument) { *(int *)argument = 42; return NULL; }

/* A TCP socket and 127.0.0.1:port. */
static int tcp_socket(void) { return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }
static struct sockaddr_in loopback(int port) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

#define STEP(call, what)                                      \
    do {                                                      \
        if ((call) < 0) {                                     \
            int saved = errno;                                \
            snprintf(head, capacity, "%s", what);             \
            return saved;                                     \
        }                                                     \
    } while (0)

/*
 * Issue 27's attacks, by name: returns the errno of the step that failed (0: every step worked)
 * and names that step (or what was reached) in head.
 *   network: fastopen:PORT sendmsg:PORT sendmmsg:PORT (MSG_FASTOPEN with an address), sendto:PORT
 *            (an address on a stream socket), listen (no bind), tfoconnect (TCP_FASTOPEN_CONNECT),
 *            accept, bind, udp, unix, dgram:PATH (a datagram socket pair connect()ing to the named
 *            socket PATH), socketpair (allowed: a stream pair inside the process)
 *   signals: pgkill (setpgid into the host's group, then kill(0, SIGTERM)), setsid, tkill, tgkill,
 *            killgroup (signal 0 to the host's group), sigio (F_SETOWN the host + O_ASYNC, then
 *            a write), setown (ioctl FIOSETOWN), pidfd (pidfd_open of the host), pidfdself
 *            (pidfd_open + pidfd_send_signal on itself), prctl (PR_SET_PTRACER any), clockcpu
 *            (the host's CPU clock)
 *   kernel:  vmwrite (process_vm_writev into the host), vmreadself, userfaultfd, perf, bpf, keyctl,
 *            nametohandle, openbyhandle, iouring, mq (a POSIX message queue), shm (SysV), inotify
 *            (a watch on /etc), xattr (getxattr of /etc/passwd), msg (a SysV message queue), sem
 *            (a SysV semaphore set); each removed again when it was made
 *   memory that outlives the runner: shmkeep (the attack round's: 4 SysV segments of 4 MiB with
 *            the keys 0x436c7500-0x436c7503, attached, filled, detached and never removed; head:
 *            the segments made)
 *   memory outside the address space (each writes 1.5 GiB, 1 MiB at a time, never mapped; head:
 *            the MiB written): memfd (memfd_create), tmpfile (O_TMPFILE in /dev/shm), shmfile (a
 *            file in /dev/shm, unlinked at once)
 *   descriptors: splice, tee (on the wire's input pipe, fd 3), setpipesize (F_SETPIPE_SZ on fd 3),
 *            ioctlwire (FIOASYNC on fd 3), ioctlstderr (TCSETS on fd 2), stderr (ftruncate(2, 0)
 *            and F_SETFL O_NONBLOCK on fd 2), stderrwrite (one line), stderrflood (4 MB), stderrcrash
 *            (2 MB, then a crash: the next call starts a new runner)
 *   /proc:   procfd (the N below 256 whose /proc/self/fd/N opens, listed), procself, procmaps,
 *            procenviron (its own /proc/self/…), procparent (/proc/PPID/status), procfddir,
 *            procparentfd (the host's /proc/PPID/fd/N read with readlink or opened: listed, "o" when
 *            it opened)
 */
/* Writes up to 1.5 GiB into `fd` without mapping it (RLIMIT_AS counts mappings only), 1 MiB at a
 * time: 0 when all of it went in, else the errno of the write that failed; head = MiB written. */
static int fill(int fd, char *head, size_t capacity) {
    static char chunk[1 << 20];
    memset(chunk, 'm', sizeof chunk);
    long long total = 0, goal = 1536LL << 20;
    int e = 0;
    while (total < goal) {
        ssize_t n = write(fd, chunk, sizeof chunk);
        if (n < 0) { e = errno; break; }
        total += n;
    }
    snprintf(head, capacity, "%lld", total >> 20);
    return e;
}

static int attempt(const char *name, int port, const char *path, char *head, size_t capacity) {
    head[0] = 0;
    int one = 1;
    if (strcmp(name, "fastopen") == 0 || strcmp(name, "sendto") == 0) {
        int s = tcp_socket();
        STEP(s, "socket");
        struct sockaddr_in a = loopback(port);
        ssize_t n = sendto(s, "escape\n", 7, strcmp(name, "fastopen") == 0 ? MSG_FASTOPEN : 0, (struct sockaddr *)&a, sizeof a);
        int e = n < 0 ? errno : 0;
        close(s);
        snprintf(head, capacity, "%s", n < 0 ? "sendto" : "sent");
        return e;
    }
    if (strcmp(name, "sendmsg") == 0 || strcmp(name, "sendmmsg") == 0) {
        int s = tcp_socket();
        STEP(s, "socket");
        struct sockaddr_in a = loopback(port);
        struct iovec v = {"escape\n", 7};
        struct mmsghdr m;
        memset(&m, 0, sizeof m);
        m.msg_hdr.msg_name = &a;
        m.msg_hdr.msg_namelen = sizeof a;
        m.msg_hdr.msg_iov = &v;
        m.msg_hdr.msg_iovlen = 1;
        long n = strcmp(name, "sendmsg") == 0 ? (long)sendmsg(s, &m.msg_hdr, MSG_FASTOPEN) : (long)sendmmsg(s, &m, 1, MSG_FASTOPEN);
        int e = n < 0 ? errno : 0;
        close(s);
        snprintf(head, capacity, "%s", n < 0 ? name : "sent");
        return e;
    }
    if (strcmp(name, "listen") == 0) {
        int s = tcp_socket();
        STEP(s, "socket");
        if (listen(s, 4) < 0) { int e = errno; close(s); snprintf(head, capacity, "listen"); return e; }
        struct sockaddr_in a;
        socklen_t length = sizeof a;
        getsockname(s, (struct sockaddr *)&a, &length);
        snprintf(head, capacity, "listening on port %d", ntohs(a.sin_port));
        close(s);
        return 0;
    }
    if (strcmp(name, "tfoconnect") == 0) {
        int s = tcp_socket();
        STEP(s, "socket");
        int rc = setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one);
        int e = rc < 0 ? errno : 0;
        close(s);
        snprintf(head, capacity, "setsockopt");
        return e;
    }
    if (strcmp(name, "accept") == 0 || strcmp(name, "bind") == 0) {
        int s = tcp_socket();
        STEP(s, "socket");
        struct sockaddr_in a = loopback(0);
        int rc = name[0] == 'a' ? accept4(s, NULL, NULL, SOCK_CLOEXEC) : bind(s, (struct sockaddr *)&a, sizeof a);
        int e = rc < 0 ? errno : 0;
        if (rc >= 0 && name[0] == 'a') close(rc);
        close(s);
        snprintf(head, capacity, "%s", name);
        return e;
    }
    if (strcmp(name, "udp") == 0 || strcmp(name, "unix") == 0) {
        int s = name[0] == 'u' && name[1] == 'd' ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)
                                                 : socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        STEP(s, "socket");
        close(s);
        return 0;
    }
    if (strcmp(name, "dgram") == 0) {
        /* A datagram pair's end connect()s to any named socket (here the test's, at `path`). */
        int pair[2];
        STEP(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair), "socketpair");
        struct sockaddr_un address;
        memset(&address, 0, sizeof address);
        address.sun_family = AF_UNIX;
        snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
        int rc = connect(pair[0], (struct sockaddr *)&address, sizeof address);
        int e = rc < 0 ? errno : 0;
        if (rc == 0 && send(pair[0], "escaped", 7, 0) < 0) e = errno;
        close(pair[0]);
        close(pair[1]);
        snprintf(head, capacity, "%s", rc < 0 ? "connect" : "sent");
        return e;
    }
    if (strcmp(name, "socketpair") == 0) {
        int pair[2];
        STEP(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), "socketpair");
        close(pair[0]);
        close(pair[1]);
        return 0;
    }
    if (strcmp(name, "pgkill") == 0) {
        int e1 = setpgid(0, getpgid(getppid())) < 0 ? errno : 0;
        int e2 = kill(0, SIGTERM) < 0 ? errno : 0;
        snprintf(head, capacity, "setpgid=%d kill=%d", e1, e2);
        return e2 ? e2 : e1;
    }
    if (strcmp(name, "setsid") == 0) { STEP(setsid(), "setsid"); return 0; }
    if (strcmp(name, "tkill") == 0) { STEP(syscall(SYS_tkill, getppid(), 0), "tkill"); return 0; }
    if (strcmp(name, "tgkill") == 0) { STEP(syscall(SYS_tgkill, getppid(), getppid(), 0), "tgkill"); return 0; }
    if (strcmp(name, "killgroup") == 0) { STEP(kill(-getpgid(getppid()), 0), "kill"); return 0; }
    if (strcmp(name, "sigio") == 0 || strcmp(name, "setown") == 0) {
        int p[2];
        STEP(pipe2(p, O_CLOEXEC), "pipe2");
        pid_t host = getppid();
        int rc = name[1] == 'i' ? fcntl(p[0], F_SETOWN, host) : ioctl(p[0], FIOSETOWN, &host);
        if (rc < 0) { int e = errno; close(p[0]); close(p[1]); snprintf(head, capacity, "setown"); return e; }
        rc = name[1] == 'i' ? fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC) : ioctl(p[0], FIOASYNC, &one);
        if (rc < 0) { int e = errno; close(p[0]); close(p[1]); snprintf(head, capacity, "async"); return e; }
        ssize_t n = write(p[1], "x", 1);
        (void)n;
        close(p[0]);
        close(p[1]);
        snprintf(head, capacity, "SIGIO sent to the host");
        return 0;
    }
    if (strcmp(name, "pidfd") == 0) { STEP(syscall(SYS_pidfd_open, getppid(), 0), "pidfd_open"); return 0; }
    if (strcmp(name, "pidfdself") == 0) {
        long fd = syscall(SYS_pidfd_open, getpid(), 0);
        STEP(fd, "pidfd_open");
        long rc = syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0);
        int e = rc < 0 ? errno : 0;
        close((int)fd);
        snprintf(head, capacity, "pidfd_send_signal");
        return e;
    }
    if (strcmp(name, "prctl") == 0) { STEP(prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0), "prctl"); return 0; }
    if (strcmp(name, "clockcpu") == 0) {
        /* MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED): the host's CPU time. */
        clockid_t clock = (clockid_t)((~(unsigned)getppid()) << 3) | 2;
        struct timespec t;
        STEP(clock_gettime(clock, &t), "clock_gettime");
        snprintf(head, capacity, "%ld s", (long)t.tv_sec);
        return 0;
    }
    if (strcmp(name, "vmwrite") == 0 || strcmp(name, "vmreadself") == 0) {
        char byte = 0, target = 1;
        struct iovec local = {&byte, 1}, remote = {&target, 1};
        long n = name[2] == 'w' ? (long)process_vm_writev(getppid(), &local, 1, &remote, 1, 0)
                                : (long)process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        STEP(n, name);
        return 0;
    }
    if (strcmp(name, "userfaultfd") == 0) { STEP(syscall(SYS_userfaultfd, O_CLOEXEC), "userfaultfd"); return 0; }
    if (strcmp(name, "perf") == 0) {
        struct perf_event_attr attribute;
        memset(&attribute, 0, sizeof attribute);
        attribute.type = PERF_TYPE_SOFTWARE;
        attribute.size = sizeof attribute;
        attribute.config = PERF_COUNT_SW_CPU_CLOCK;
        attribute.exclude_kernel = 1;
        STEP(syscall(SYS_perf_event_open, &attribute, 0, -1, -1, 0), "perf_event_open");
        return 0;
    }
    if (strcmp(name, "bpf") == 0) {
        char attribute[128];
        memset(attribute, 0, sizeof attribute);
        STEP(syscall(SYS_bpf, 0, attribute, sizeof attribute), "bpf");
        return 0;
    }
    if (strcmp(name, "keyctl") == 0) { STEP(syscall(SYS_keyctl, 0, -3, 0), "keyctl"); return 0; }
    if (strcmp(name, "nametohandle") == 0 || strcmp(name, "openbyhandle") == 0) {
        struct file_handle *handle = calloc(1, sizeof *handle + 128);
        if (!handle) return ENOMEM;
        handle->handle_bytes = 128;
        int mount = 0;
        if (name_to_handle_at(AT_FDCWD, "/etc/passwd", handle, &mount, 0) < 0) {
            int e = errno;
            free(handle);
            snprintf(head, capacity, "name_to_handle_at");
            if (name[0] == 'n') return e;
            /* Without a handle of its own, it forges one (the kernel checks the capability first). */
            handle = calloc(1, sizeof *handle + 128);
            if (!handle) return ENOMEM;
            handle->handle_bytes = 8;
            handle->handle_type = 1;
        }
        if (name[0] == 'n') { free(handle); return 0; }
        int fd = open_by_handle_at(AT_FDCWD, handle, O_RDONLY | O_CLOEXEC);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0) close(fd);
        free(handle);
        snprintf(head, capacity, "open_by_handle_at");
        return e;
    }
    if (strcmp(name, "iouring") == 0) {
        char parameters[120];
        memset(parameters, 0, sizeof parameters);
        STEP(syscall(SYS_io_uring_setup, 1, parameters), "io_uring_setup");
        return 0;
    }
    if (strcmp(name, "mq") == 0) {
        long q = syscall(SYS_mq_open, "clubhouse-escape", O_CREAT | O_RDWR | O_CLOEXEC, 0600, NULL);
        STEP(q, "mq_open");
        close((int)q);
        syscall(SYS_mq_unlink, "clubhouse-escape");
        return 0;
    }
    if (strcmp(name, "shm") == 0) {
        long id = syscall(SYS_shmget, 0 /* IPC_PRIVATE */, 4096, 01000 /* IPC_CREAT */ | 0600);
        STEP(id, "shmget");
        syscall(SYS_shmctl, id, 0 /* IPC_RMID */, NULL);
        return 0;
    }
    if (strcmp(name, "msg") == 0) {
        long id = syscall(SYS_msgget, 0 /* IPC_PRIVATE */, 01000 /* IPC_CREAT */ | 0600);
        STEP(id, "msgget");
        syscall(SYS_msgctl, id, 0 /* IPC_RMID */, NULL);
        return 0;
    }
    if (strcmp(name, "sem") == 0) {
        long id = syscall(SYS_semget, 0 /* IPC_PRIVATE */, 1, 01000 /* IPC_CREAT */ | 0600);
        STEP(id, "semget");
        syscall(SYS_semctl, id, 0, 0 /* IPC_RMID */, NULL);
        return 0;
    }
    if (strcmp(name, "shmkeep") == 0) {
        int made = 0;
        for (long i = 0; i < 4; i++) {
            long id = syscall(SYS_shmget, 0x436c7500L + i, 4L << 20, 01000 /* IPC_CREAT */ | 0600);
            if (id < 0) {
                int saved = errno;
                snprintf(head, capacity, "shmget after %d", made);
                return saved;
            }
            made++;
            void *at = (void *)syscall(SYS_shmat, id, NULL, 0);
            STEP(at == (void *)-1 ? -1 : 0, "shmat");
            memset(at, 's', 4 << 20);
            syscall(SYS_shmdt, at);
        }
        snprintf(head, capacity, "%d", made);
        return 0;
    }
    if (strcmp(name, "inotify") == 0) {
        int fd = inotify_init1(IN_CLOEXEC);
        STEP(fd, "inotify_init1");
        int rc = inotify_add_watch(fd, "/etc", IN_ALL_EVENTS);
        int e = rc < 0 ? errno : 0;
        close(fd);
        snprintf(head, capacity, "inotify_add_watch");
        return e;
    }
    if (strcmp(name, "xattr") == 0) {
        char value[64];
        STEP(getxattr("/etc/passwd", "user.clubhouse", value, sizeof value), "getxattr");
        return 0;
    }
    if (strcmp(name, "memfd") == 0) {
        int fd = memfd_create("clubhouse", MFD_CLOEXEC);
        STEP(fd, "memfd_create");
        int e = fill(fd, head, capacity);
        close(fd);
        return e;
    }
    if (strcmp(name, "tmpfile") == 0) {
        int fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        STEP(fd, "open O_TMPFILE");
        int e = fill(fd, head, capacity);
        close(fd);
        return e;
    }
    if (strcmp(name, "shmfile") == 0) {
        char file[64];
        snprintf(file, sizeof file, "/dev/shm/clubhouse-attack-%d", (int)getpid());
        int fd = open(file, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        STEP(fd, "open /dev/shm");
        unlink(file);
        int e = fill(fd, head, capacity);
        close(fd);
        return e;
    }
    if (strcmp(name, "splice") == 0 || strcmp(name, "tee") == 0) {
        int p[2];
        STEP(pipe2(p, O_CLOEXEC | O_NONBLOCK), "pipe2");
        long n = name[0] == 's' ? (long)splice(3, NULL, p[1], NULL, 1, SPLICE_F_NONBLOCK) : (long)tee(3, p[1], 1, SPLICE_F_NONBLOCK);
        int e = n < 0 ? errno : 0;
        close(p[0]);
        close(p[1]);
        snprintf(head, capacity, "%s", name);
        return e;
    }
    if (strcmp(name, "setpipesize") == 0) { STEP(fcntl(3, F_SETPIPE_SZ, 4096), "F_SETPIPE_SZ"); return 0; }
    if (strcmp(name, "ioctlwire") == 0) { STEP(ioctl(3, FIOASYNC, &one), "FIOASYNC"); return 0; }
    if (strcmp(name, "ioctlstderr") == 0) {
        char settings[64];
        memset(settings, 0, sizeof settings);
        STEP(ioctl(2, TCSETS, settings), "TCSETS");
        return 0;
    }
    if (strcmp(name, "stderr") == 0) {
        int e1 = ftruncate(2, 0) < 0 ? errno : 0;
        int e2 = fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK) < 0 ? errno : 0;
        snprintf(head, capacity, "ftruncate=%d setfl=%d", e1, e2);
        return e1;
    }
    if (strcmp(name, "stderrwrite") == 0) {
        dprintf(2, "a line on standard error\n");
        dprintf(1, "a line on standard output\n");
        return 0;
    }
    if (strcmp(name, "stderrcrash") == 0) {
        static char block[65536];
        memset(block, 'y', sizeof block);
        for (size_t i = 63; i < sizeof block; i += 64) block[i] = '\n';
        for (int i = 0; i < 32; i++) if (write(2, block, sizeof block) < 0) break;
        *(volatile int *)8 = 1;
    }
    if (strcmp(name, "stderrflood") == 0) {
        static char block[65536];
        memset(block, 'x', sizeof block);
        for (size_t i = 63; i < sizeof block; i += 64) block[i] = '\n';
        long total = 0;
        for (int i = 0; i < 64; i++) {
            ssize_t n = write(2, block, sizeof block);
            if (n < 0) { int e = errno; snprintf(head, capacity, "%ld", total); return e; }
            total += n;
        }
        snprintf(head, capacity, "%ld", total);
        return 0;
    }
    if (strcmp(name, "procfd") == 0) {
        size_t used = 0;
        for (int n = 0; n < 256; n++) {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", n);
            int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) continue;
            close(fd);
            used += (size_t)snprintf(head + used, capacity - used, "%s%d", used ? "," : "", n);
            if (used >= capacity) break;
        }
        return 0;
    }
    if (strcmp(name, "procparentfd") == 0) {
        /* The host's descriptors through /proc/PPID/fd: their targets (readlink) and a reopen. */
        size_t used = 0;
        int last = 0;
        for (int n = 0; n < 256; n++) {
            char path[64], target[128];
            snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)getppid(), n);
            ssize_t length = readlink(path, target, sizeof target - 1);
            if (length < 0) { if (errno != ENOENT) last = errno; }
            int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) { if (errno != ENOENT) last = errno; }
            else close(fd);
            if (length >= 0 || fd >= 0)
                used += (size_t)snprintf(head + used, capacity - used, "%s%d%s", used ? "," : "", n, fd >= 0 ? "o" : "");
            if (used >= capacity) break;
        }
        return used ? 0 : last;
    }
    if (strncmp(name, "proc", 4) == 0) {
        char path[64];
        if (strcmp(name, "procparent") == 0) snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
        else if (strcmp(name, "procfddir") == 0) snprintf(path, sizeof path, "/proc/self/fd");
        else if (strcmp(name, "procself") == 0) snprintf(path, sizeof path, "/proc/self/status");
        else snprintf(path, sizeof path, "/proc/self/%s", name + 4);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        STEP(fd, path);
        char text[16] = {0};
        ssize_t n = read(fd, text, 15);
        (void)n;
        close(fd);
        snprintf(head, capacity, "%s", text);
        return 0;
    }
    snprintf(head, capacity, "unknown attack");
    return -1;
}

static clubhouse_status sb_create(const clubhouse_plugin_descriptor *d, const clubhouse_host *host, void **instance,
                               const clubhouse_reply *reply) {
    (void)d; (void)reply;
    return fixture_create(host, instance);
}

static void sb_destroy(const clubhouse_plugin_descriptor *d, void *instance) { (void)d; free(instance); }

static clubhouse_status sb_describe(const clubhouse_plugin_descriptor *d, const clubhouse_reply *reply) {
    (void)d;
#ifdef FIXTURE_CONSTRUCTOR
    const char *dir = getenv("CLUBHOUSE_DATA_DIR");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/described-%d", dir, (int)getpid());
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (write(fd, "d", 1) != 1) { /* only a count for the tests */ }
            close(fd);
        }
    }
#endif
    say(reply, CATALOGUE);
    return CLUBHOUSE_OK;
}

static clubhouse_status sb_invoke(const clubhouse_plugin_descriptor *d, void *instance, const clubhouse_call *call,
                               const char *command, const char *request, size_t request_length,
                               const clubhouse_reply *reply) {
    (void)d; (void)call;
    const clubhouse_host *host = ((fixture *)instance)->host;
    char arg[512];
    target(request, request_length, arg, sizeof arg);
    if (strcmp(command, "open") == 0) {
        int fd = open(arg, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return result(reply, errno, "");
        char head[16] = {0};
        ssize_t n = read(fd, head, 15);
        int e = n < 0 ? errno : 0;
        close(fd);
        return result(reply, e, head);
    }
    if (strcmp(command, "write") == 0) {
        int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return result(reply, errno, "");
        ssize_t n = write(fd, "escaped\n", 8);
        int e = n < 0 ? errno : 0;
        close(fd);
        return result(reply, e, "");
    }
    if (strcmp(command, "connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return result(reply, errno, "socket");
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_port = htons((unsigned short)atoi(arg));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int rc = connect(fd, (struct sockaddr *)&address, sizeof address);
        int e = rc < 0 ? errno : 0;
        close(fd);
        return result(reply, e, "connect");
    }
    if (strcmp(command, "udp") == 0) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return result(reply, errno, "");
        close(fd);
        return result(reply, 0, "");
    }
    if (strcmp(command, "exec") == 0) {
        char *const argv[] = {"sh", "-c", "exit 7", NULL};
        char *const envp[] = {NULL};
        execve("/bin/sh", argv, envp);
        return result(reply, errno, "");
    }
    if (strcmp(command, "popen") == 0) {
        FILE *p = popen("/bin/sh -c 'echo escaped'", "r");
        if (!p) return result(reply, errno, "");
        char line[32] = {0};
        if (!fgets(line, sizeof line, p)) line[0] = 0;
        int status = pclose(p);
        /* The shell never ran: no output, and the child's status says so (127). */
        return result(reply, line[0] ? 0 : (status == -1 ? errno : EPERM), line);
    }
    if (strcmp(command, "ptrace") == 0) {
        pid_t parent = getppid();
        if (ptrace(PTRACE_ATTACH, parent, NULL, NULL) == 0) {
            ptrace(PTRACE_DETACH, parent, NULL, NULL);
            return result(reply, 0, "");
        }
        return result(reply, errno, "");
    }
    if (strcmp(command, "signal") == 0) {
        if (kill(getppid(), 0) == 0) return result(reply, 0, "");
        return result(reply, errno, "");
    }
    if (strcmp(command, "chmod") == 0) {
        if (chmod(arg, 0777) == 0) return result(reply, 0, "");
        return result(reply, errno, "");
    }
    if (strcmp(command, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) {
            for (int i = 0; i < 600; i++) usleep(100000);
            _exit(0);
        }
        if (child < 0) return result(reply, errno, "");
        char text[32];
        snprintf(text, sizeof text, "%d", (int)child);
        return result(reply, 0, text);
    }
    if (strcmp(command, "thread") == 0) {
        pthread_t thread;
        int value = 0;
        int rc = pthread_create(&thread, NULL, worker, &value);
        if (rc != 0) return result(reply, rc, "");
        pthread_join(thread, NULL);
        return result(reply, 0, value == 42 ? "joined" : "lost");
    }
    if (strcmp(command, "prlimit") == 0) {
        struct rlimit old;
        if (syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, NULL, &old) == 0) return result(reply, 0, "");
        return result(reply, errno, "");
    }
    if (strcmp(command, "truncate") == 0) {
        if (truncate(arg, 0) == 0) return result(reply, 0, "");
        return result(reply, errno, "");
    }
    if (strcmp(command, "tiocsti") == 0) {
        char c = 'x';
        if (ioctl(2, TIOCSTI, &c) == 0) return result(reply, 0, "");
        return result(reply, errno, "");
    }
    if (strcmp(command, "caps") == 0) {
        struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct data[2];
        memset(data, 0, sizeof data);
        if (syscall(SYS_capget, &header, data) != 0) return result(reply, errno, "");
        char text[32];
        snprintf(text, sizeof text, "%x%08x", data[1].effective, data[0].effective);
        return result(reply, 0, text);
    }
    if (strcmp(command, "pid") == 0) {
        char text[32];
        snprintf(text, sizeof text, "%d", (int)getpid());
        return result(reply, 0, text);
    }
    if (strcmp(command, "try") == 0) {
        char name[64] = {0};
        int port = 0;
        const char *colon = strchr(arg, ':');
        size_t length = colon ? (size_t)(colon - arg) : strlen(arg);
        if (length >= sizeof name) length = sizeof name - 1;
        memcpy(name, arg, length);
        if (colon) port = atoi(colon + 1);
        char head[256];
        int e = attempt(name, port, colon ? colon + 1 : "", head, sizeof head);
        if (e < 0) { say(reply, "unknown attack"); return CLUBHOUSE_NOT_FOUND; }
        return result(reply, e, head);
    }
    if (strcmp(command, "fds") == 0) {
        char list[2048];
        fixture_list_descriptors(list, sizeof list);
        return result(reply, 0, list);
    }
    if (strcmp(command, "crash") == 0) abort();
    if (strcmp(command, "relink") == 0) {
        char *equals = strchr(arg, '=');
        if (!equals) { say(reply, "target is DIR=OTHER"); return CLUBHOUSE_INVALID_ARGUMENT; }
        *equals = 0;
        char aside[600];
        snprintf(aside, sizeof aside, "%s.aside", arg);
        if (rename(arg, aside) != 0 || symlink(equals + 1, arg) != 0) return result(reply, errno, "");
        command = "store";
    }
    if (strcmp(command, "store") == 0) {
        const clubhouse_storage_service *storage = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
        if (!storage) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
        clubhouse_status status = storage->exec(host, "CREATE TABLE IF NOT EXISTS notes(x); INSERT INTO notes VALUES ('kept')", reply);
        if (status != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"stored through the host\"}");
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(sb, "Sandboxed", "A plugin that tries to escape its sandbox", services)
