/*
 * A hostile plugin for `isolation: "sandbox"` (SandboxEndToEndTests). Each command tries one
 * escape and replies what the system call said: {"data":{"errno":N,"head":"…"}} (errno 0 when it
 * worked; head = the first bytes read). The test runs the same fixture sandboxed (each attempt
 * refused) and as a plain "process" plugin (the same attempts work: the tests can fail).
 *
 * Variant FIXTURE_CONSTRUCTOR: a constructor (run by dlopen, before any entry point) tries to
 * create $CLUBHOUSE_DATA_DIR/constructor-ran-<pid>.
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
 */
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
#include <sys/ioctl.h>
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
    "{\"name\":\"store\",\"summary\":\"Use the host's storage\",\"arguments\":[]}"   \
    "]}"

static clubhouse_status result(const clubhouse_reply *reply, int error, const char *head) {
    char text[256];
    char clean[64] = {0};
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

static clubhouse_status sb_create(const clubhouse_plugin_descriptor *d, const clubhouse_host *host, void **instance,
                               const clubhouse_reply *reply) {
    (void)d; (void)reply;
    return fixture_create(host, instance);
}

static void sb_destroy(const clubhouse_plugin_descriptor *d, void *instance) { (void)d; free(instance); }

static clubhouse_status sb_describe(const clubhouse_plugin_descriptor *d, const clubhouse_reply *reply) {
    (void)d;
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
