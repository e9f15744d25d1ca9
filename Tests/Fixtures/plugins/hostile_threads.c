/*
 * A plugin whose own threads use the host's services outside their call (issue 27; the fifth outside
 * attack, a03), for Tests/EndToEndTests/ThreadWallEndToEndTests.swift. Commands (each takes an optional
 * write path argument "out"):
 *   spawn    prepares a statement and starts a detached thread holding the host, this call's pointer
 *            and the statement, then returns. The thread sets on itself every thread-specific value
 *            this call's thread held (the ninth outside attack, a29) and probes once 300 ms later (no call runs then),
 *            and once more when `victim` sets its flag (inside another call); {"spawned": true}
 *   victim   sets the flag, waits (at most 5 s) for the thread's second probe, counts the rows of
 *            table t and answers {"between": PROBE, "during": PROBE, "rows": N}
 *   samecall a thread started by this call probes with this call's own pointer while the call waits
 *            for it (joined); then the call's own thread probes: {"other": PROBE, "own": PROBE}
 *   disguised two threads that pass for the call's own while it waits for them (the ninth outside
 *            attack, a26 and a04): a pthread that sets on itself every thread-specific value (keys
 *            0-1023) the call's thread holds, and a raw clone(CLONE_VM|CLONE_THREAD) without
 *            CLONE_SETTLS, which shares the call thread's TLS; {"keycopy": PROBE, "rawclone": PROBE}
 *
 * PROBE: {"exec": S, "prepare": S, "step": S, "begin": S, "files": S, "device": S, "invoke": S,
 *         "events": S, "rowid": N, "error": "last_error after exec", "message": "exec's reply"}
 * exec inserts a row into t; files opens the call's "out" for writing and writes "stolen"; device
 * opens "machine" and writes "FIRE"; invoke calls this plugin (the host refuses that: DENIED).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

typedef struct {
    const clubhouse_host *host;
    const clubhouse_call *call; /* the call that started the thread: by the probe, possibly over */
    clubhouse_stmt *stmt;       /* prepared by that call */
    char out[4096];             /* the "out" argument of that call, or "" */
} probe_target;

/* Runs every service that acts for a call and writes PROBE (JSON) into `json`. */
static void probe(const probe_target *t, char *json, size_t capacity) {
    const clubhouse_host *host = t->host;
    const clubhouse_storage_service *db = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    const clubhouse_files_service *files = host->get_service(host, CLUBHOUSE_SERVICE_FILES);
    const clubhouse_device_service *devices = host->get_service(host, CLUBHOUSE_SERVICE_DEVICE);
    const clubhouse_invoke_service *invoke = host->get_service(host, CLUBHOUSE_SERVICE_INVOKE);
    const clubhouse_events_service *events = host->get_service(host, CLUBHOUSE_SERVICE_EVENTS);
    char message[512] = {0}, error[512] = {0}, scratch[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    clubhouse_reply drop = {sizeof drop, scratch, fixture_keep};
    int exec = -1, prepare = -1, step = -1, begin = -1, file = -1, device = -1, invoked = -1, published = -1;
    long long rowid = -1;
    if (db) {
        exec = db->exec(host, "INSERT INTO t(v) VALUES('from a thread')", &sink);
        fixture_json_text(db->last_error(host), error, sizeof error);
        rowid = (long long)db->last_insert_rowid(host);
        clubhouse_stmt *stmt = NULL;
        scratch[0] = 0;
        prepare = db->prepare(host, "SELECT 1", &stmt, &drop);
        if (stmt) db->finalize(stmt);
        if (t->stmt) {
            db->reset(t->stmt);
            step = db->step(t->stmt);
        }
        scratch[0] = 0;
        begin = db->begin(host, &drop);
        if (begin == CLUBHOUSE_OK) db->rollback(host);
    }
    if (files) {
        int fd = -1;
        scratch[0] = 0;
        file = files->open_argument(t->call, "out", CLUBHOUSE_FILE_WRITE, &fd, &drop);
        if (fd >= 0) {
            (void)!write(fd, "stolen\n", 7);
            close(fd);
        }
    }
    if (devices) {
        clubhouse_device *d = NULL;
        scratch[0] = 0;
        device = devices->open(host, "machine", &d, &drop);
        if (d) {
            devices->write(d, (const uint8_t *)"FIRE\n", 5);
            devices->close(d);
        }
    }
    if (invoke) {
        scratch[0] = 0;
        invoked = invoke->invoke(host, t->call, host->alias, "samecall", "{}", 2, &drop);
    }
    if (events) {
        scratch[0] = 0;
        published = events->publish(host, t->call, "shot", "{}", 2, &drop);
    }
    char said[600];
    fixture_json_text(message, said, sizeof said);
    snprintf(json, capacity,
             "{\"exec\":%d,\"prepare\":%d,\"step\":%d,\"begin\":%d,\"files\":%d,\"device\":%d,\"invoke\":%d,\"events\":%d,"
             "\"rowid\":%lld,\"error\":\"%s\",\"message\":\"%s\"}",
             exec, prepare, step, begin, file, device, invoked, published, rowid, error, said);
}

/* The thread-specific values of the call that started a thread (keys 0-1023). */
static void *the_call_keys[1024];

/* Sets the call's values on the calling thread, keeping its own in `mine`. */
static void wear_call_keys(void **mine) {
    for (int k = 0; k < 1024; k++) mine[k] = pthread_getspecific((pthread_key_t)k);
    for (int k = 0; k < 1024; k++)
        if (the_call_keys[k]) pthread_setspecific((pthread_key_t)k, the_call_keys[k]);
}

/* Its own values back before the thread ends: the runtime's destructors run on them. */
static void take_off_call_keys(void *const *mine) {
    for (int k = 0; k < 1024; k++)
        if (the_call_keys[k]) pthread_setspecific((pthread_key_t)k, mine[k]);
}

/* The detached thread of `spawn`: it passes for its call's thread by its key values (a29). */
static probe_target spawned;
static atomic_int go, probed;
static char between[2048], during[2048];

static void *lingering(void *unused) {
    (void)unused;
    void *mine[1024];
    wear_call_keys(mine);
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    probe(&spawned, between, sizeof between);
    for (int i = 0; i < 2000 && !atomic_load(&go); i++) {
        struct timespec slice = {0, 10 * 1000 * 1000};
        nanosleep(&slice, NULL);
    }
    probe(&spawned, during, sizeof during);
    take_off_call_keys(mine);
    atomic_store(&probed, 1);
    return NULL;
}

/* The thread of `samecall`. */
static void *helper(void *target) {
    static char result[2048];
    probe((const probe_target *)target, result, sizeof result);
    return result;
}

/* The threads of `disguised`. */
static void *key_copier(void *target) {
    static char result[2048];
    void *mine[1024];
    wear_call_keys(mine);
    probe((const probe_target *)target, result, sizeof result);
    take_off_call_keys(mine);
    return result;
}

static char clone_stack[1 << 20] __attribute__((aligned(16)));
static char cloned_result[2048];
static atomic_int cloned_done;
static int raw_clone(void *target) {
    probe((const probe_target *)target, cloned_result, sizeof cloned_result);
    atomic_store(&cloned_done, 1);
    syscall(SYS_exit, 0);
    return 0;
}

static clubhouse_status threads_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"spawn\",\"summary\":\"Leave a thread behind\",\"arguments\":["
               "{\"name\":\"out\",\"type\":\"path\",\"access\":\"write\"}]},"
               "{\"name\":\"victim\",\"summary\":\"Another call\",\"arguments\":["
               "{\"name\":\"out\",\"type\":\"path\",\"access\":\"write\"}]},"
               "{\"name\":\"samecall\",\"summary\":\"A thread of this call\",\"arguments\":["
               "{\"name\":\"out\",\"type\":\"path\",\"access\":\"write\"}]},"
               "{\"name\":\"disguised\",\"summary\":\"Threads passing for the call's\",\"arguments\":["
               "{\"name\":\"out\",\"type\":\"path\",\"access\":\"write\"}]}"
               "],\"topics\":[{\"name\":\"shot\",\"summary\":\"A shot\"}]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status threads_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                       const clubhouse_reply *reply) {
    (void)self; (void)reply;
    const clubhouse_storage_service *db = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    if (db) db->exec(host, "CREATE TABLE IF NOT EXISTS t(v TEXT)", NULL);
    return fixture_create(host, instance);
}

static void threads_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status threads_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                       const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self;
    fixture *f = (fixture *)instance;
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    if (strcmp(command, "spawn") == 0) {
        spawned.host = f->host;
        spawned.call = call;
        spawned.stmt = NULL;
        if (db) db->prepare(f->host, "SELECT count(*) FROM t", &spawned.stmt, NULL);
        if (!fixture_argument(request, length, "out", spawned.out, sizeof spawned.out)) spawned.out[0] = 0;
        for (int k = 0; k < 1024; k++) the_call_keys[k] = pthread_getspecific((pthread_key_t)k);
        pthread_t thread;
        if (pthread_create(&thread, NULL, lingering, NULL) != 0) { say(reply, "no thread"); return CLUBHOUSE_ERROR; }
        pthread_detach(thread);
        say(reply, "{\"data\":{\"spawned\":true}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "victim") == 0) {
        atomic_store(&go, 1);
        for (int i = 0; i < 500 && !atomic_load(&probed); i++) {
            struct timespec slice = {0, 10 * 1000 * 1000};
            nanosleep(&slice, NULL);
        }
        long long rows = -1;
        clubhouse_stmt *stmt = NULL;
        if (db && db->prepare(f->host, "SELECT count(*) FROM t", &stmt, NULL) == CLUBHOUSE_OK && db->step(stmt) == CLUBHOUSE_ROW)
            rows = (long long)db->column_int64(stmt, 0);
        if (stmt) db->finalize(stmt);
        static char out[5000];
        snprintf(out, sizeof out, "{\"data\":{\"between\":%s,\"during\":%s,\"rows\":%lld}}",
                 between[0] ? between : "null", atomic_load(&probed) ? during : "null", rows);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "samecall") == 0) {
        probe_target target = {f->host, call, NULL, {0}};
        if (db) db->prepare(f->host, "SELECT count(*) FROM t", &target.stmt, NULL);
        pthread_t thread;
        void *other = NULL;
        if (pthread_create(&thread, NULL, helper, &target) != 0) { say(reply, "no thread"); return CLUBHOUSE_ERROR; }
        pthread_join(thread, &other);
        static char own[2048], out[5000];
        probe(&target, own, sizeof own);
        if (target.stmt) db->finalize(target.stmt);
        snprintf(out, sizeof out, "{\"data\":{\"other\":%s,\"own\":%s}}", (const char *)other, own);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "disguised") == 0) {
        probe_target target = {f->host, call, NULL, {0}};
        if (!fixture_argument(request, length, "out", target.out, sizeof target.out)) target.out[0] = 0;
        if (db) db->prepare(f->host, "SELECT count(*) FROM t", &target.stmt, NULL);
        for (int k = 0; k < 1024; k++) the_call_keys[k] = pthread_getspecific((pthread_key_t)k);
        pthread_t thread;
        void *copied = NULL;
        if (pthread_create(&thread, NULL, key_copier, &target) != 0) { say(reply, "no thread"); return CLUBHOUSE_ERROR; }
        pthread_join(thread, &copied);
        atomic_store(&cloned_done, 0);
        strcpy(cloned_result, "null");
        long made = clone(raw_clone, clone_stack + sizeof clone_stack,
                          CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, &target);
        /* The call's thread waits without touching its TLS (raw syscalls), as the attack's did. */
        for (int i = 0; made > 0 && i < 1000 && !atomic_load(&cloned_done); i++) {
            struct timespec slice = {0, 10 * 1000 * 1000};
            syscall(SYS_nanosleep, &slice, NULL);
        }
        if (target.stmt) db->finalize(target.stmt);
        static char out[5000];
        snprintf(out, sizeof out, "{\"data\":{\"keycopy\":%s,\"rawclone\":%s}}", (const char *)copied,
                 atomic_load(&cloned_done) ? cloned_result : "null");
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const threads_services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};
FIXTURE_PLUGIN(threads, "Threads", "Threads that outlive their call", threads_services)
