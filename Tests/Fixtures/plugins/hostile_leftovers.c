/*
 * A plugin that leaves work behind its call in a signal handler, or in a child process, for
 * ThreadWallEndToEndTests (A23) and RunnerHostileEndToEndTests (A11) — the fourteenth outside round.
 * Commands:
 *   armtid   installs a SIGUSR2 handler that INSERTs a row into table t through the storage service and
 *            arms a one-shot POSIX timer (SIGEV_THREAD_ID) aimed at the thread running this call, firing
 *            500 ms later; returns at once: {"armed": true}. The timer fires while the runner's call
 *            thread runs the next call (`slow`), which may be another client's.
 *   slow     sleeps 1.5 s (a signal does not cut the sleep short), then reports REPORT
 *   count    REPORT
 *   forkaway forks a child that leaves the runner's process group (setsid) and sleeps 60 s holding the
 *            runner's descriptors (its pipes included), and an orphan: the child of a second child (which
 *            left the group too) that ended at once; {"pid": RUNNER, "child": CHILD, "orphan": ORPHAN}
 *   pid      {"pid": RUNNER}
 * (each answer is inside {"data": …})
 * REPORT: {"fired": N, "served": N, "refused": N, "rows": N, "status": S (the handler's last exec status,
 *          -1 before it ran), "during": N (handlers that ran while `slow` slept)}
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

static const clubhouse_host *host_of_handler;
static atomic_int fired, served, refused, last_status = -1, during, sleeping;

static void handler(int signal_number) {
    (void)signal_number;
    atomic_fetch_add(&fired, 1);
    if (atomic_load(&sleeping)) atomic_fetch_add(&during, 1);
    const clubhouse_host *host = host_of_handler;
    const clubhouse_storage_service *db = host ? host->get_service(host, CLUBHOUSE_SERVICE_STORAGE) : NULL;
    if (!db) return;
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    int status = db->exec(host, "INSERT INTO t(v) VALUES('from a signal handler')", &sink);
    atomic_store(&last_status, status);
    atomic_fetch_add(status == CLUBHOUSE_OK ? &served : &refused, 1);
}

static void nap(long milliseconds) {
    struct timespec left = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {}
}

static long long rows(const clubhouse_host *host) {
    const clubhouse_storage_service *db = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    clubhouse_stmt *stmt = NULL;
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    long long n = -1;
    if (db && db->prepare(host, "SELECT count(*) FROM t", &stmt, &sink) == CLUBHOUSE_OK) {
        if (db->step(stmt) == CLUBHOUSE_ROW) n = (long long)db->column_int64(stmt, 0);
        db->finalize(stmt);
    }
    return n;
}

static void report(const clubhouse_host *host, const clubhouse_reply *reply) {
    char json[512];
    snprintf(json, sizeof json, "{\"data\":{\"fired\":%d,\"served\":%d,\"refused\":%d,\"rows\":%lld,\"status\":%d,\"during\":%d}}",
             atomic_load(&fired), atomic_load(&served), atomic_load(&refused), rows(host), atomic_load(&last_status),
             atomic_load(&during));
    say(reply, json);
}

static clubhouse_status signals_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"armtid\",\"summary\":\"Arm a timer whose handler stores a row\",\"arguments\":[]},"
               "{\"name\":\"slow\",\"summary\":\"Sleep 1.5 s\",\"arguments\":[]},"
               "{\"name\":\"count\",\"summary\":\"What the handler did\",\"arguments\":[]},"
               "{\"name\":\"forkaway\",\"summary\":\"Fork a child that leaves the group\",\"arguments\":[]},"
               "{\"name\":\"pid\",\"summary\":\"The runner's pid\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status signals_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host,
                                       void **instance, const clubhouse_reply *reply) {
    (void)self;
    (void)reply;
    const clubhouse_storage_service *db = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    if (db) db->exec(host, "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v TEXT)", &sink);
    host_of_handler = host;
    return fixture_create(host, instance);
}

static void signals_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status signals_invoke(const clubhouse_plugin_descriptor *self, void *instance,
                                       const clubhouse_call *call, const char *command, const char *request,
                                       size_t length, const clubhouse_reply *reply) {
    (void)self;
    (void)call;
    (void)request;
    (void)length;
    const clubhouse_host *host = ((fixture *)instance)->host;
    char json[256];
    if (strcmp(command, "armtid") == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = handler;
        action.sa_flags = SA_RESTART;
        sigaction(SIGUSR2, &action, NULL);
        struct sigevent event;
        memset(&event, 0, sizeof event);
        event.sigev_notify = SIGEV_THREAD_ID;
        event.sigev_signo = SIGUSR2;
        event._sigev_un._tid = (int)syscall(SYS_gettid);
        timer_t timer;
        if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
            say(reply, "timer_create failed");
            return CLUBHOUSE_ERROR;
        }
        struct itimerspec when = {{0, 0}, {0, 500000000L}};
        timer_settime(timer, 0, &when, NULL);
        say(reply, "{\"data\":{\"armed\":true}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "slow") == 0) {
        atomic_store(&sleeping, 1);
        nap(1500);
        atomic_store(&sleeping, 0);
        report(host, reply);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "count") == 0) {
        report(host, reply);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "forkaway") == 0) {
        pid_t child = fork();
        if (child == 0) {
            setsid();
            nap(60000);
            _exit(0);
        }
        int channel[2];
        if (pipe(channel) != 0) return CLUBHOUSE_ERROR;
        pid_t parent = fork();
        if (parent == 0) {
            setsid();
            pid_t orphan = fork();
            if (orphan == 0) {
                nap(60000);
                _exit(0);
            }
            (void)!write(channel[1], &orphan, sizeof orphan);
            _exit(0);
        }
        close(channel[1]);
        pid_t orphan = -1;
        if (parent > 0) {
            (void)!read(channel[0], &orphan, sizeof orphan);
            waitpid(parent, NULL, 0);
        }
        close(channel[0]);
        snprintf(json, sizeof json, "{\"data\":{\"pid\":%d,\"child\":%d,\"orphan\":%d}}", (int)getpid(), (int)child, (int)orphan);
        say(reply, json);
        return child > 0 && orphan > 0 ? CLUBHOUSE_OK : CLUBHOUSE_ERROR;
    }
    if (strcmp(command, "pid") == 0) {
        snprintf(json, sizeof json, "{\"data\":{\"pid\":%d}}", (int)getpid());
        say(reply, json);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const needed[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};
FIXTURE_PLUGIN(signals, "Signals", "Leaves work behind its call", needed)
