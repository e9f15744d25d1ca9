/*
 * A plugin that uses libdispatch's global queues during a call, for
 * Tests/EndToEndTests/DispatchPoolEndToEndTests.swift (issue 27). libdispatch's worker-pool monitor
 * (src/event/workqueue.c, _dispatch_workq_count_runnable_workers) runs once a second while work
 * waits in a global queue and opens /proc/<tid>/stat of every worker; when that open fails it
 * crashes the process (DISPATCH_CLIENT_CRASH). Commands:
 *   pool    queues 8 blocks per processor (200 ms each) on the default global queue, runs a
 *           dispatch_apply over 4 per processor (50 ms each), and waits (at most 20 s) for all:
 *           {"data": {"queued": N, "done": N, "applied": M}}
 *   proc    opens /proc files read-only and answers, per path, "ok" or the errno's number:
 *           {"data": {"init": E, "hostcmdline": E, "hosttask": E, "owntask": E, "owntid": E,
 *                     "tasklist": E, "status": E}}
 *           init /proc/1/stat, hostcmdline /proc/PPID/cmdline (the host's), hosttask
 *           /proc/PPID/task/PPID/stat, owntask /proc/self/task/TID/stat, owntid /proc/TID/stat
 *           (TID: a thread of this runner other than its main one, the form libdispatch opens),
 *           tasklist opendir /proc/self/task, status /proc/self/status.
 * The fixture links libdispatch itself (the test passes the toolchain's), as a plugin written in
 * Swift that uses Dispatch or Foundation does: the host and its runner no longer load it (issue 33).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

/* libdispatch's C entry points (its headers are not needed for these three). */
void *dispatch_get_global_queue(long identifier, unsigned long flags);
void dispatch_async_f(void *queue, void *context, void (*work)(void *));
void dispatch_apply_f(size_t iterations, void *queue, void *context, void (*work)(void *, size_t));

static atomic_int done, applied;

static void nap(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void slow_block(void *context) { (void)context; nap(200); atomic_fetch_add(&done, 1); }
static void slow_iteration(void *context, size_t i) { (void)context; (void)i; nap(50); atomic_fetch_add(&applied, 1); }

static clubhouse_status pool(const clubhouse_reply *reply) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    if (cpus > 16) cpus = 16;
    int queued = (int)(8 * cpus), iterations = (int)(4 * cpus);
    atomic_store(&done, 0);
    atomic_store(&applied, 0);
    void *queue = dispatch_get_global_queue(0, 0);
    for (int i = 0; i < queued; i++) dispatch_async_f(queue, NULL, slow_block);
    dispatch_apply_f((size_t)iterations, queue, NULL, slow_iteration);
    for (int i = 0; i < 400 && atomic_load(&done) < queued; i++) nap(50);
    char out[160];
    snprintf(out, sizeof out, "{\"data\":{\"queued\":%d,\"done\":%d,\"applied\":%d}}", queued, atomic_load(&done),
             atomic_load(&applied));
    say(reply, out);
    return CLUBHOUSE_OK;
}

static atomic_int helper_tid, helper_stop;

static void *helper(void *unused) {
    (void)unused;
    atomic_store(&helper_tid, (int)syscall(SYS_gettid));
    while (!atomic_load(&helper_stop)) nap(5);
    return NULL;
}

/* "ok" or the errno of opening `path` read-only, in `out`. */
static void probe(const char *path, char *out, size_t capacity) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) { snprintf(out, capacity, "\"ok\""); close(fd); }
    else snprintf(out, capacity, "%d", errno);
}

static clubhouse_status proc(const clubhouse_reply *reply) {
    atomic_store(&helper_tid, 0);
    atomic_store(&helper_stop, 0);
    pthread_t thread;
    if (pthread_create(&thread, NULL, helper, NULL) != 0) {
        say(reply, "{\"error\":{\"message\":\"pthread_create failed\"}}");
        return CLUBHOUSE_ERROR;
    }
    while (atomic_load(&helper_tid) == 0) nap(1);
    int tid = atomic_load(&helper_tid), host = (int)getppid();
    char path[96], init[16], cmdline[16], hosttask[16], owntask[16], owntid[16], status[16], tasklist[16];
    probe("/proc/1/stat", init, sizeof init);
    snprintf(path, sizeof path, "/proc/%d/cmdline", host);
    probe(path, cmdline, sizeof cmdline);
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", host, host);
    probe(path, hosttask, sizeof hosttask);
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    probe(path, owntask, sizeof owntask);
    snprintf(path, sizeof path, "/proc/%d/stat", tid);
    probe(path, owntid, sizeof owntid);
    probe("/proc/self/status", status, sizeof status);
    DIR *dir = opendir("/proc/self/task");
    if (dir) { snprintf(tasklist, sizeof tasklist, "\"ok\""); closedir(dir); }
    else snprintf(tasklist, sizeof tasklist, "%d", errno);
    atomic_store(&helper_stop, 1);
    pthread_join(thread, NULL);
    char out[400];
    snprintf(out, sizeof out,
             "{\"data\":{\"init\":%s,\"hostcmdline\":%s,\"hosttask\":%s,\"owntask\":%s,\"owntid\":%s,\"tasklist\":%s,\"status\":%s}}",
             init, cmdline, hosttask, owntask, owntid, tasklist, status);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static clubhouse_status pool_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"pool\",\"summary\":\"Queue work on libdispatch's global queue and wait for it\",\"arguments\":[]},"
               "{\"name\":\"proc\",\"summary\":\"Open files of /proc\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status pool_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                    const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void pool_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status pool_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                    const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)request; (void)length;
    if (strcmp(command, "pool") == 0) return pool(reply);
    if (strcmp(command, "proc") == 0) return proc(reply);
    say(reply, "{\"error\":{\"message\":\"unknown command\"}}");
    return CLUBHOUSE_ERROR;
}

static const char *const services[] = {NULL};

FIXTURE_PLUGIN(pool, "Dispatch pool", "Uses libdispatch's global queues", services)
