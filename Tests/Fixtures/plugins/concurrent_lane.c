/*
 * A thread-safe plugin with a "concurrent" command (entry.h, ABI 1.6), for the runner's second lane
 * (Host/Sources/ClubhouseHost/Runner/SideLane.swift; Tests/EndToEndTests/SideLaneEndToEndTests.swift).
 * Commands:
 *   hold      waits (in 10 ms slices, at most 20 s) until `release` is called or the call is cancelled;
 *             answers {"released": true|false};
 *   release   "concurrent": sets the flag `hold` waits for, then tries the storage service
 *             (exec "SELECT 1") and answers {"released": true, "storage": STATUS, "message": "…"}.
 *   write     LANE_ROUNDS transactions of LANE_ROWS rows of long text (bound, and inline in the SQL),
 *             1 ms apart: answers {"failed": N, "error": "the first failure"};
 *   check     reads the rows back and compares them with what `write` wrote, byte for byte:
 *             {"rows": N, "mismatched": M};
 *   ping      "concurrent": logs a line and answers {"pong": true};
 *   misuse    "concurrent": calls storage (exec, prepare, begin), files and invoke, which the runner's
 *             second lane does not serve: {"exec": S, "prepare": S, "begin": S, "files": S, "invoke": S,
 *             "message": "exec's message"};
 *   hang      "concurrent": never answers (sleeps, deaf to cancels; gives up after 120 s);
 *   wait      "concurrent": waits until cancelled (at most 20 s): {"cancelled": true|false};
 *   chatty    "concurrent": reports progress every 50 ms for 120 s, deaf to cancels;
 *   abort     "concurrent": aborts the runner.
 *   leave     prepares an INSERT into lane_left and leaves it unstepped (kept for `stepleft`): {"left": true};
 *   stepleft  "concurrent": binds and steps the statement `leave` left — a statement of the main lane,
 *             which the second lane must not touch: {"bind": S, "step": S};
 *   countleft the rows of lane_left: {"rows": N};
 *   fds       "concurrent": the runner's open descriptors, "N:K" each (K: c character device, s socket,
 *             p pipe, r regular file, o other), as {"data": "0:c,1:s,…"}: the lane is one socket.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.lane"
#endif
#define FIXTURE_FLAGS CLUBHOUSE_PLUGIN_THREAD_SAFE
#include "fixture.h"

static atomic_int released;

static clubhouse_status lane_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"hold\",\"summary\":\"Wait for release\",\"long_running\":true,\"arguments\":[]},"
               "{\"name\":\"release\",\"summary\":\"Release hold, then try storage\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"write\",\"summary\":\"Write rows of long text\",\"long_running\":true,\"arguments\":[]},"
               "{\"name\":\"check\",\"summary\":\"Compare the rows with what write wrote\",\"arguments\":[]},"
               "{\"name\":\"ping\",\"summary\":\"Log and answer\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"misuse\",\"summary\":\"Call services the lane does not serve\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"hang\",\"summary\":\"Never answer\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"wait\",\"summary\":\"Wait until cancelled\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"chatty\",\"summary\":\"Report progress, deaf to cancels\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"abort\",\"summary\":\"Abort the runner\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"leave\",\"summary\":\"Prepare an insert and keep it\",\"arguments\":[]},"
               "{\"name\":\"stepleft\",\"summary\":\"Step the kept insert from the lane\",\"concurrent\":true,\"arguments\":[]},"
               "{\"name\":\"countleft\",\"summary\":\"Count the kept insert's rows\",\"arguments\":[]},"
               "{\"name\":\"fds\",\"summary\":\"List open descriptors\",\"concurrent\":true,\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status lane_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                    const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void lane_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* --- write / check: long text stored by the call on the pipes while the lane is busy ------------ */

#define LANE_ROUNDS 40
#define LANE_ROWS 8

/* The text of row `k` (deterministic; 1000-4000 bytes of letters, digits, spaces and '-'). */
static size_t lane_text(int k, char salt, char *out, size_t capacity) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 -ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    unsigned int x = 2166136261u ^ (unsigned int)(k * 16777619u) ^ (unsigned char)salt;
    size_t n = 1000 + (size_t)(k * 7919 % 3000);
    if (n >= capacity) n = capacity - 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        out[i] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
    }
    out[n] = 0;
    return n;
}

static clubhouse_status lane_write(fixture *f, const clubhouse_reply *reply) {
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    if (!db) { say(reply, "no storage"); return CLUBHOUSE_UNSUPPORTED; }
    static char text[4096], inline_text[4096], sql[8192];
    char first[512] = {0};
    clubhouse_reply sink = {sizeof sink, first, fixture_keep};
    int failed = 0;
    if (db->exec(f->host, "CREATE TABLE IF NOT EXISTS lane_rows(k INTEGER PRIMARY KEY, v TEXT NOT NULL, w TEXT NOT NULL)", &sink) != CLUBHOUSE_OK)
        failed++;
    for (int round = 0; round < LANE_ROUNDS && !failed; round++) {
        int ok = db->begin(f->host, &sink) == CLUBHOUSE_OK;
        for (int row = 0; ok && row < LANE_ROWS; row++) {
            int k = round * LANE_ROWS + row + 1;
            size_t n = lane_text(k, 'v', text, sizeof text);
            lane_text(k, 'w', inline_text, sizeof inline_text);
            snprintf(sql, sizeof sql, "INSERT INTO lane_rows(k, v, w) VALUES(?1, ?2, '%s')", inline_text);
            clubhouse_stmt *stmt = NULL;
            ok = db->prepare(f->host, sql, &stmt, &sink) == CLUBHOUSE_OK && db->bind_int64(stmt, 1, k) == CLUBHOUSE_OK &&
                 db->bind_text(stmt, 2, text, n) == CLUBHOUSE_OK && db->step(stmt) == CLUBHOUSE_DONE;
            if (!ok && !first[0]) snprintf(first, sizeof first, "row %d: %s", k, db->last_error(f->host));
            if (stmt) db->finalize(stmt);
            struct timespec slice = {0, 1000 * 1000};
            nanosleep(&slice, NULL);
        }
        if (ok) ok = db->commit(f->host, &sink) == CLUBHOUSE_OK;
        if (!ok) {
            failed++;
            db->rollback(f->host);
        }
    }
    char message[600], out[800];
    fixture_json_text(first, message, sizeof message);
    snprintf(out, sizeof out, "{\"data\":{\"failed\":%d,\"error\":\"%s\"}}", failed, message);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static clubhouse_status lane_check(fixture *f, const clubhouse_reply *reply) {
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    if (!db) { say(reply, "no storage"); return CLUBHOUSE_UNSUPPORTED; }
    static char v[4096], w[4096];
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    clubhouse_stmt *stmt = NULL;
    if (db->prepare(f->host, "SELECT k, v, w FROM lane_rows ORDER BY k", &stmt, &sink) != CLUBHOUSE_OK) {
        say(reply, message);
        return CLUBHOUSE_ERROR;
    }
    int rows = 0, mismatched = 0;
    while (db->step(stmt) == CLUBHOUSE_ROW) {
        rows++;
        int k = (int)db->column_int64(stmt, 0);
        size_t nv = lane_text(k, 'v', v, sizeof v), nw = lane_text(k, 'w', w, sizeof w), lv = 0, lw = 0;
        const char *sv = db->column_text(stmt, 1, &lv);
        if (!sv || lv != nv || memcmp(sv, v, nv) != 0) { mismatched++; continue; }
        const char *sw = db->column_text(stmt, 2, &lw);
        if (!sw || lw != nw || memcmp(sw, w, nw) != 0) mismatched++;
        if (k != rows) mismatched++;
    }
    db->finalize(stmt);
    char out[128];
    snprintf(out, sizeof out, "{\"data\":{\"rows\":%d,\"mismatched\":%d}}", rows, mismatched);
    say(reply, out);
    return CLUBHOUSE_OK;
}

/* The services the second lane does not serve, called from a concurrent command. */
static clubhouse_status lane_misuse(fixture *f, const clubhouse_call *call, const clubhouse_reply *reply) {
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    const clubhouse_files_service *files = f->host->get_service(f->host, CLUBHOUSE_SERVICE_FILES);
    const clubhouse_invoke_service *invoke = f->host->get_service(f->host, CLUBHOUSE_SERVICE_INVOKE);
    char message[512] = {0}, scratch[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep}, other = {sizeof other, scratch, fixture_keep};
    int exec = db ? db->exec(f->host, "CREATE TABLE misuse(x)", &sink) : -1;
    clubhouse_stmt *stmt = NULL;
    int prepare = db ? db->prepare(f->host, "SELECT 1", &stmt, &other) : -1;
    if (stmt) db->finalize(stmt);
    int begin = db ? db->begin(f->host, &other) : -1;
    int fd = -1;
    int opened = files ? files->open_argument(call, "file", CLUBHOUSE_FILE_READ, &fd, &other) : -1;
    if (fd >= 0) close(fd);
    int invoked = invoke ? invoke->invoke(f->host, call, "lane", "ping", "{}", 2, &other) : -1;
    char text[600], out[1024];
    fixture_json_text(message, text, sizeof text);
    snprintf(out, sizeof out,
             "{\"data\":{\"exec\":%d,\"prepare\":%d,\"begin\":%d,\"files\":%d,\"invoke\":%d,\"stmt\":%s,\"message\":\"%s\"}}",
             exec, prepare, begin, opened, invoked, stmt ? "true" : "false", text);
    say(reply, out);
    return CLUBHOUSE_OK;
}

/* A statement the main lane prepared and left, for `stepleft` to try from the second lane. */
static _Atomic(clubhouse_stmt *) left_statement;

static clubhouse_status lane_leave(fixture *f, const clubhouse_call *call, const clubhouse_reply *reply, const char *command) {
    (void)call;
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    if (!db) { say(reply, "no storage"); return CLUBHOUSE_UNSUPPORTED; }
    char message[512] = {0}, out[256];
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    if (db->exec(f->host, "CREATE TABLE IF NOT EXISTS lane_left(x INTEGER)", &sink) != CLUBHOUSE_OK) { say(reply, message); return CLUBHOUSE_ERROR; }
    if (strcmp(command, "leave") == 0) {
        clubhouse_stmt *stmt = NULL;
        if (db->prepare(f->host, "INSERT INTO lane_left(x) VALUES(?1)", &stmt, &sink) != CLUBHOUSE_OK) { say(reply, message); return CLUBHOUSE_ERROR; }
        atomic_store(&left_statement, stmt);
        say(reply, "{\"data\":{\"left\":true}}");
        return CLUBHOUSE_OK;
    }
    clubhouse_stmt *stmt = NULL;
    int rows = -1;
    if (db->prepare(f->host, "SELECT count(*) FROM lane_left", &stmt, &sink) == CLUBHOUSE_OK && db->step(stmt) == CLUBHOUSE_ROW)
        rows = (int)db->column_int64(stmt, 0);
    if (stmt) db->finalize(stmt);
    snprintf(out, sizeof out, "{\"data\":{\"rows\":%d}}", rows);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static clubhouse_status lane_step_left(fixture *f, const clubhouse_reply *reply) {
    const clubhouse_storage_service *db = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    clubhouse_stmt *stmt = atomic_load(&left_statement);
    if (!db || !stmt) { say(reply, "nothing left"); return CLUBHOUSE_ERROR; }
    int bind = db->bind_int64(stmt, 1, 42);
    int step = db->step(stmt);
    char out[128];
    snprintf(out, sizeof out, "{\"data\":{\"bind\":%d,\"step\":%d}}", bind, step);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static clubhouse_status lane_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                    const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    fixture *f = (fixture *)instance;
    if (strcmp(command, "hold") == 0) {
        atomic_store(&released, 0);
        for (int i = 0; i < 2000 && !atomic_load(&released) && !call->is_cancelled(call); i++) {
            struct timespec slice = {0, 10 * 1000 * 1000};
            nanosleep(&slice, NULL);
        }
        say(reply, atomic_load(&released) ? "{\"data\":{\"released\":true}}" : "{\"data\":{\"released\":false}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "write") == 0) return lane_write(f, reply);
    if (strcmp(command, "check") == 0) return lane_check(f, reply);
    if (strcmp(command, "ping") == 0) {
        const clubhouse_log_service *log = f->host->get_service(f->host, CLUBHOUSE_SERVICE_LOG);
        if (log) log->write(f->host, CLUBHOUSE_LOG_DEBUG, "ping");
        say(reply, "{\"data\":{\"pong\":true}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "misuse") == 0) return lane_misuse(f, call, reply);
    if (strcmp(command, "leave") == 0 || strcmp(command, "countleft") == 0) return lane_leave(f, call, reply, command);
    if (strcmp(command, "stepleft") == 0) return lane_step_left(f, reply);
    if (strcmp(command, "hang") == 0) {
        for (int i = 0; i < 12000; i++) {
            struct timespec slice = {0, 10 * 1000 * 1000};
            nanosleep(&slice, NULL);
        }
        say(reply, "{\"data\":{\"hung\":true}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "chatty") == 0) {
        const clubhouse_progress_service *progress = f->host->get_service(f->host, CLUBHOUSE_SERVICE_PROGRESS);
        if (progress) progress->begin(call, "chattering", 0);
        for (int i = 0; i < 2400; i++) {
            struct timespec slice = {0, 50 * 1000 * 1000};
            nanosleep(&slice, NULL);
            if (progress) progress->update(call, (uint64_t)i);
        }
        say(reply, "{\"data\":{\"chattered\":true}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "abort") == 0) abort();
    if (strcmp(command, "fds") == 0) {
        char list[1024], out[1100];
        fixture_list_descriptors(list, sizeof list);
        snprintf(out, sizeof out, "{\"data\":\"%s\"}", list);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "wait") == 0) {
        int cancelled = 0;
        for (int i = 0; i < 2000 && !(cancelled = call->is_cancelled(call)); i++) {
            struct timespec slice = {0, 10 * 1000 * 1000};
            nanosleep(&slice, NULL);
        }
        say(reply, cancelled ? "{\"data\":{\"cancelled\":true}}" : "{\"data\":{\"cancelled\":false}}");
        return CLUBHOUSE_OK;
    }
    atomic_store(&released, 1);
    const clubhouse_storage_service *storage = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, fixture_keep};
    clubhouse_status status = storage ? storage->exec(f->host, "SELECT 1", &sink) : CLUBHOUSE_UNSUPPORTED;
    /* The message holds no quote or backslash (the host's text), so it is put in the JSON as is. */
    char text[1024];
    for (char *p = message; *p; p++) if (*p == '"' || *p == '\\') *p = '\'';
    snprintf(text, sizeof text, "{\"data\":{\"released\":true,\"storage\":%d,\"message\":\"%s\"}}", (int)status, message);
    say(reply, text);
    return CLUBHOUSE_OK;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(lane, "Concurrent lane", "Holds a call and releases it from another", services)
