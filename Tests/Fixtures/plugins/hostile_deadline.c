/*
 * Hostile deadline plugin (issue 27, the eleventh outside round: n02, n03, n04, n11) for
 * DeadlineEndToEndTests.swift: it goes on acting for a call past the call's deadline — the 5 s
 * cleanup grace after a cancel, or `limits.wall_ms` and the grace after it — and blocks in services
 * that wait (a nested invoke, a device read). Declares the record topic "round" and the event topic
 * "shot"; the site gives it the simulated device "bm".
 *
 * Commands:
 *   count                 migrates, then the rows of t as "n"
 *   write --value V       migrates, inserts V into t
 *   after-grace --file F --target A
 *                         opens device bm and migrates, waits for its cancel, sleeps until 5.6 s after it
 *                         saw it, then tries every act of every service once and logs one warning per act
 *                         "REPORT act status message" (a sandbox writes no files; the log is allowed after
 *                         the grace) (storage prepare/exec/begin/commit/migrate/rollback,
 *                         an outbox record, an event, invoke of A's write "late", the path argument F,
 *                         device open/write/read/safe state); replies "done"
 *   grace-tx              migrates, begins, inserts "before-cancel", waits for its cancel, inserts
 *                         "in-grace", sleeps until 5.6 s after the cancel, commits; logs
 *                         "REPORT commit status message"; replies "done"
 *   sleep --ms N          sleeps N ms without looking at is_cancelled, then inserts "slept"
 *   invoke-sleep --target A --ms N
 *                         invokes A's sleep --ms N; replies (and logs "REPORT invoke-sleep status
 *                         seconds") its status and the seconds it took
 *   fifo-write --out F    opens path argument F (a FIFO nobody reads) to write; logs
 *                         "REPORT fifo-write status seconds" and the message as "REPORT fifo-why status message"
 *   late-invoke --target A --ms N
 *                         migrates, waits for its cancel, sleeps 3.5 s into its grace, then invokes A's drip
 *                         --ms N; logs "REPORT cancel-seen ok T" (T: CLOCK_MONOTONIC seconds, the same clock in
 *                         every process) and "REPORT late-invoke status S" (S: seconds from the cancel it saw)
 *   drip --ms N           inserts a row every 250 ms for N ms without looking at is_cancelled; logs "REPORT
 *                         drip-last ok T" after each row it stored (T: CLOCK_MONOTONIC seconds)
 *   devread --ms N        opens bm and reads with a timeout of N ms (the simulator sends nothing
 *                         unasked); replies (and logs "REPORT devread status seconds") the read's
 *                         status and the seconds it took
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.hostile.deadline"
#endif
#include "fixture.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const void *service(fixture *h, const char *name) { return h->host->get_service(h->host, name); }

static clubhouse_status migrate(const clubhouse_storage_service *s, fixture *h, const clubhouse_reply *reply) {
    return s->migrate(h->host, 1, "table t", "CREATE TABLE t(value TEXT NOT NULL)", reply);
}

static clubhouse_status insert(const clubhouse_storage_service *s, fixture *h, const char *value) {
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = s->prepare(h->host, "INSERT INTO t(value) VALUES (?1)", &stmt, NULL);
    if (status != CLUBHOUSE_OK) return status;
    s->bind_text(stmt, 1, value, strlen(value));
    status = s->step(stmt);
    s->finalize(stmt);
    return status == CLUBHOUSE_DONE ? CLUBHOUSE_OK : status;
}

/* Waits (polling every 10 ms, at most 20 s) until the call is cancelled; the time it saw it. */
static double wait_for_cancel(const clubhouse_call *call) {
    double start = now_s();
    while (!call->is_cancelled(call) && now_s() - start < 20) usleep(10000);
    return now_s();
}

static void sleep_until(double when) {
    while (now_s() < when) usleep(10000);
}

/* One warning "REPORT act status message" (the message with quotes and controls flattened). */
static void line(fixture *h, const char *act, clubhouse_status status, const char *message) {
    const clubhouse_log_service *log = service(h, CLUBHOUSE_SERVICE_LOG);
    char text[600], out[800];
    fixture_json_text(message, text, sizeof text);
    snprintf(out, sizeof out, "REPORT %s %s %s", act, clubhouse_status_name(status), text);
    if (log) log->write(h->host, CLUBHOUSE_LOG_WARNING, out);
}

static void kept_reset(char *kept) { kept[0] = 0; }

static clubhouse_status after_grace(fixture *h, const clubhouse_call *call, const char *request, size_t length,
                                    const clubhouse_reply *reply) {
    char target[64];
    if (!fixture_argument(request, length, "target", target, sizeof target)) { say(reply, "missing argument"); return CLUBHOUSE_INVALID_ARGUMENT; }
    const clubhouse_storage_service *s = service(h, CLUBHOUSE_SERVICE_STORAGE);
    const clubhouse_device_service *d = service(h, CLUBHOUSE_SERVICE_DEVICE);
    const clubhouse_publish_service *p = service(h, CLUBHOUSE_SERVICE_PUBLISH);
    const clubhouse_events_service *e = service(h, CLUBHOUSE_SERVICE_EVENTS);
    const clubhouse_invoke_service *inv = service(h, CLUBHOUSE_SERVICE_INVOKE);
    const clubhouse_files_service *files = service(h, CLUBHOUSE_SERVICE_FILES);
    if (!s || !d || !p || !e || !inv || !files) { say(reply, "a service is missing"); return CLUBHOUSE_UNSUPPORTED; }
    clubhouse_status status = migrate(s, h, reply);
    if (status != CLUBHOUSE_OK) return status;
    char kept[512] = "";
    clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
    clubhouse_device *device = NULL;
    status = d->open(h->host, "bm", &device, &r);
    if (status != CLUBHOUSE_OK) { say(reply, kept); return status; }
    double seen = wait_for_cancel(call);
    sleep_until(seen + 5.6);
    clubhouse_stmt *stmt = NULL;
    status = s->prepare(h->host, "SELECT 1", &stmt, NULL);
    line(h, "prepare", status, s->last_error(h->host));
    if (stmt) s->finalize(stmt);
    status = s->exec(h->host, "INSERT INTO t(value) VALUES ('exec-late')", NULL);
    line(h, "exec", status, s->last_error(h->host));
    kept_reset(kept);
    status = s->begin(h->host, &r);
    line(h, "begin", status, kept);
    kept_reset(kept);
    status = s->commit(h->host, &r);
    line(h, "commit", status, kept);
    kept_reset(kept);
    status = s->migrate(h->host, 2, "late", "CREATE TABLE late(x)", &r);
    line(h, "migrate", status, kept);
    status = s->rollback(h->host);
    line(h, "rollback", status, "");
    kept_reset(kept);
    status = p->publish(h->host, call, "round", "late-1", "{\"round\":1}", 11, &r);
    line(h, "publish", status, kept);
    kept_reset(kept);
    status = e->publish(h->host, call, "shot", "{}", 2, &r);
    line(h, "event", status, kept);
    kept_reset(kept);
    status = inv->invoke(h->host, call, target, "write", "{\"arguments\":{\"value\":\"late\"}}", 30, &r);
    line(h, "invoke", status, kept);
    kept_reset(kept);
    int fd = -1;
    status = files->open_argument(call, "file", CLUBHOUSE_FILE_READ, &fd, &r);
    line(h, "file", status, kept);
    if (fd >= 0) close(fd);
    kept_reset(kept);
    clubhouse_device *again = NULL;
    status = d->open(h->host, "bm", &again, &r);
    line(h, "device-open", status, kept);
    if (again) d->close(again);
    const uint8_t frame[] = {0x5A, 0xA5, 0x01};
    status = d->write(device, frame, sizeof frame);
    line(h, "device-write", status, d->last_error(device));
    uint8_t in[16];
    size_t got = 0;
    status = d->read(device, in, sizeof in, &got, 100);
    line(h, "device-read", status, d->last_error(device));
    status = d->set_safe_state(device, frame, sizeof frame, frame, 1, 100);
    line(h, "device-safe-state", status, d->last_error(device));
    d->close(device);
    say(reply, "{\"data\":\"done\"}");
    return CLUBHOUSE_OK;
}

static clubhouse_status hd_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"count\",\"summary\":\"Rows of t\",\"arguments\":[]},"
               "{\"name\":\"write\",\"summary\":\"Insert a value\",\"arguments\":[{\"name\":\"value\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"after-grace\",\"summary\":\"Every service past the grace\",\"arguments\":["
               "{\"name\":\"file\",\"type\":\"path\",\"required\":true},"
               "{\"name\":\"target\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"grace-tx\",\"summary\":\"A transaction committed past the grace\",\"arguments\":[]},"
               "{\"name\":\"sleep\",\"summary\":\"Sleeps, deaf to cancel\",\"arguments\":[{\"name\":\"ms\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"invoke-sleep\",\"summary\":\"Waits in invoke\",\"arguments\":["
               "{\"name\":\"target\",\"type\":\"string\",\"required\":true},{\"name\":\"ms\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"fifo-write\",\"summary\":\"Opens a FIFO to write\",\"arguments\":[{\"name\":\"out\",\"type\":\"path\",\"access\":\"write\",\"required\":true}]},"
               "{\"name\":\"late-invoke\",\"summary\":\"Invokes late in its grace\",\"arguments\":["
               "{\"name\":\"target\",\"type\":\"string\",\"required\":true},{\"name\":\"ms\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"drip\",\"summary\":\"Stores a row every 250 ms, deaf to cancel\",\"arguments\":[{\"name\":\"ms\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"devread\",\"summary\":\"Waits in a device read\",\"arguments\":[{\"name\":\"ms\",\"type\":\"string\",\"required\":true}]}"
               "],\"topics\":[{\"name\":\"shot\",\"summary\":\"A shot\"}],"
               "\"records\":[{\"name\":\"round\",\"summary\":\"a round\"}]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status hd_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void hd_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status hd_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self;
    fixture *h = instance;
    const clubhouse_storage_service *s = service(h, CLUBHOUSE_SERVICE_STORAGE);
    char text[1024], out[1200];
    clubhouse_status status;
    if (strcmp(command, "after-grace") == 0) return after_grace(h, call, request, length, reply);
    if (!s) { say(reply, "no storage"); return CLUBHOUSE_UNSUPPORTED; }
    if (strcmp(command, "count") == 0) {
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        clubhouse_stmt *stmt = NULL;
        if ((status = s->prepare(h->host, "SELECT count(*) FROM t", &stmt, reply)) != CLUBHOUSE_OK) return status;
        long n = s->step(stmt) == CLUBHOUSE_ROW ? (long)s->column_int64(stmt, 0) : -1;
        s->finalize(stmt);
        snprintf(out, sizeof out, "{\"data\":\"%ld\"}", n);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "write") == 0) {
        if (!fixture_argument(request, length, "value", text, sizeof text)) { say(reply, "missing value"); return CLUBHOUSE_INVALID_ARGUMENT; }
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        if ((status = insert(s, h, text)) != CLUBHOUSE_OK) { say(reply, s->last_error(h->host)); return status; }
        say(reply, "{\"data\":\"ok\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "grace-tx") == 0) {
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        if ((status = s->begin(h->host, reply)) != CLUBHOUSE_OK) return status;
        insert(s, h, "before-cancel");
        double seen = wait_for_cancel(call);
        clubhouse_status in_grace = insert(s, h, "in-grace");
        sleep_until(seen + 5.6);
        char kept[512] = "";
        clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
        status = s->commit(h->host, &r);
        line(h, "in-grace", in_grace, "");
        line(h, "commit", status, kept);
        say(reply, "{\"data\":\"done\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "sleep") == 0) {
        if (!fixture_argument(request, length, "ms", text, sizeof text)) { say(reply, "missing ms"); return CLUBHOUSE_INVALID_ARGUMENT; }
        sleep_until(now_s() + atof(text) / 1000);
        insert(s, h, "slept");
        say(reply, "{\"data\":\"slept\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "drip") == 0) {
        char ms[32];
        if (!fixture_argument(request, length, "ms", ms, sizeof ms)) { say(reply, "missing argument"); return CLUBHOUSE_INVALID_ARGUMENT; }
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        double start = now_s(), last = 0;
        while (now_s() - start < atof(ms) / 1000) {
            if (insert(s, h, "drip") == CLUBHOUSE_OK) {
                last = now_s();
                snprintf(text, sizeof text, "%.3f", last);
                line(h, "drip-last", CLUBHOUSE_OK, text);
            }
            usleep(250000);
        }
        (void)last;
        say(reply, "{\"data\":\"dripped\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "late-invoke") == 0) {
        char target[64], ms[32];
        if (!fixture_argument(request, length, "target", target, sizeof target) || !fixture_argument(request, length, "ms", ms, sizeof ms)) {
            say(reply, "missing argument");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        const clubhouse_invoke_service *inv = service(h, CLUBHOUSE_SERVICE_INVOKE);
        if (!inv) { say(reply, "no invoke"); return CLUBHOUSE_UNSUPPORTED; }
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        double seen = wait_for_cancel(call);
        snprintf(text, sizeof text, "%.3f", seen);
        line(h, "cancel-seen", CLUBHOUSE_OK, text);
        sleep_until(seen + 3.5);
        char body[96], kept[512] = "";
        clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
        snprintf(body, sizeof body, "{\"arguments\":{\"ms\":\"%s\"}}", ms);
        status = inv->invoke(h->host, call, target, "drip", body, strlen(body), &r);
        snprintf(text, sizeof text, "%.3f", now_s() - seen);
        line(h, "late-invoke", status, text);
        say(reply, "{\"data\":\"done\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "invoke-sleep") == 0) {
        char target[64], ms[32], kept[512] = "", body[128];
        if (!fixture_argument(request, length, "target", target, sizeof target) ||
            !fixture_argument(request, length, "ms", ms, sizeof ms)) { say(reply, "missing argument"); return CLUBHOUSE_INVALID_ARGUMENT; }
        const clubhouse_invoke_service *inv = service(h, CLUBHOUSE_SERVICE_INVOKE);
        if (!inv) { say(reply, "no invoke"); return CLUBHOUSE_UNSUPPORTED; }
        clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
        snprintf(body, sizeof body, "{\"arguments\":{\"ms\":\"%s\"}}", ms);
        double start = now_s();
        status = inv->invoke(h->host, call, target, "sleep", body, strlen(body), &r);
        fixture_json_text(kept, text, sizeof text);
        snprintf(out, sizeof out, "{\"data\":\"invoke %s after %.1f s: %s\"}", clubhouse_status_name(status), now_s() - start, text);
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%.2f", now_s() - start);
        line(h, "invoke-sleep", status, seconds);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "fifo-write") == 0) {
        const clubhouse_files_service *files = service(h, CLUBHOUSE_SERVICE_FILES);
        char kept[512] = "", seconds[32];
        clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
        int fd = -1;
        double start = now_s();
        status = files ? files->open_argument(call, "out", CLUBHOUSE_FILE_WRITE, &fd, &r) : CLUBHOUSE_UNSUPPORTED;
        snprintf(seconds, sizeof seconds, "%.2f", now_s() - start);
        line(h, "fifo-write", status, seconds);
        line(h, "fifo-why", status, kept);
        if (fd >= 0) close(fd);
        say(reply, "{\"data\":\"opened\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "devread") == 0) {
        if (!fixture_argument(request, length, "ms", text, sizeof text)) { say(reply, "missing ms"); return CLUBHOUSE_INVALID_ARGUMENT; }
        const clubhouse_device_service *d = service(h, CLUBHOUSE_SERVICE_DEVICE);
        char kept[512] = "";
        clubhouse_reply r = {sizeof(clubhouse_reply), kept, fixture_keep};
        clubhouse_device *device = NULL;
        if (!d || (status = d->open(h->host, "bm", &device, &r)) != CLUBHOUSE_OK) { say(reply, kept); return CLUBHOUSE_IO; }
        uint8_t in[16];
        size_t got = 0;
        double start = now_s();
        status = d->read(device, in, sizeof in, &got, (int32_t)atol(text));
        char message[600];
        fixture_json_text(d->last_error(device), message, sizeof message);
        snprintf(out, sizeof out, "{\"data\":\"read %s after %.1f s: %s\"}", clubhouse_status_name(status), now_s() - start, message);
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%.2f", now_s() - start);
        line(h, "devread", status, seconds);
        d->close(device);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_LOG, NULL};

FIXTURE_PLUGIN(hd, "Hostile deadline", "Acts past its call's deadline (tests only)", services)
