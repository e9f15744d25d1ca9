/*
 * Hostile storage plugin for the storage end-to-end tests (StorageEndToEndTests.swift): it sends the
 * host whatever SQL a test gives it, runs away in a recursive CTE, leaves transactions open and
 * migrates on first use. Variants (one -D each):
 *
 *   FIXTURE_STORAGE              calls serialized by the host
 *   FIXTURE_STORAGE_THREAD_SAFE  declares CLUBHOUSE_PLUGIN_THREAD_SAFE (calls may run concurrently)
 *
 * Commands:
 *   sql --sql S          exec S; data "ok", or the storage status and message
 *   query --sql S        the first column of every row, joined with ","
 *   linger --marker P    after it sees its cancel, inserts a row every 10 ms for up to 9 s (issue 27)
 *   runaways --marker P  three recursive CTEs without end in a row (issue 27)
 *   runaway --marker P   creates file P, then runs a recursive CTE without end (never checks
 *                        is_cancelled: only the host can stop it)
 *   runaway-then-think --marker P
 *                        runaway, then 300 ms before it answers with the statement's failure (a
 *                        runner the machine is slow to run again after its statement was interrupted)
 *   write --value V      migrates, then inserts V into t (autocommit)
 *   open-tx --value V    migrates, begins, inserts V, and returns without commit or rollback
 *   count                migrates, then the rows of t as "n"
 *   hoard --count N --who self|parent
 *                        prepares N statements of 1 MB of SQL each and never finalizes them (issue
 *                        27, Why 5: the host used to keep every one: 300 grew it to about 900 MB);
 *                        replies how many were prepared and refused, the first refusal, and the
 *                        peak resident size (VmHWM, kB) of the host: this process in process
 *                        ("self"), the runner's parent when isolated ("parent")
 *   huge-row --columns N --each B --who self|parent|none
 *                        prepares `SELECT zeroblob(B)||x'00', …` with N such columns and steps it
 *                        once (RELIABILITY.md, issue 27's independent round: 6 columns of 250 MB
 *                        grew the host to 2.9 GB before reply_mb refused the row); replies the
 *                        step's status and message, the bytes of the row it read, and the host's
 *                        peak resident size (kB) as for hoard ("none": -1, for a sandbox)
 *   churn --rounds N --tag T
 *                        N times: prepare, bind, step and finalize a statement, then prepare SQL
 *                        naming table "missing_T" and check that the failure read back (the
 *                        reply and last_error) is its own; replies the mismatches. Run at once
 *                        by several calls of a thread-safe build, it races the shared connection.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.hostile.storage"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#ifdef FIXTURE_STORAGE_THREAD_SAFE
#define FIXTURE_FLAGS CLUBHOUSE_PLUGIN_THREAD_SAFE
#endif
#include "fixture.h"

static clubhouse_status hs_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"sql\",\"summary\":\"Run SQL\",\"arguments\":[{\"name\":\"sql\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"query\",\"summary\":\"Run a query\",\"arguments\":[{\"name\":\"sql\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"runaway\",\"summary\":\"A query without end\",\"arguments\":[{\"name\":\"marker\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"runaway-then-think\",\"summary\":\"A query without end, then a pause\",\"arguments\":[{\"name\":\"marker\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"linger\",\"summary\":\"Inserts on past its cancel\",\"arguments\":[{\"name\":\"marker\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"runaways\",\"summary\":\"Three queries without end\",\"arguments\":[{\"name\":\"marker\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"write\",\"summary\":\"Insert a value\",\"arguments\":[{\"name\":\"value\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"open-tx\",\"summary\":\"Insert in a transaction left open\",\"arguments\":[{\"name\":\"value\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"count\",\"summary\":\"Rows of t\",\"arguments\":[]},"
               "{\"name\":\"churn\",\"summary\":\"Prepare and fail in a loop\",\"arguments\":["
               "{\"name\":\"rounds\",\"type\":\"string\",\"required\":true},{\"name\":\"tag\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"huge-row\",\"summary\":\"Select a row of huge values\",\"arguments\":["
               "{\"name\":\"columns\",\"type\":\"string\",\"required\":true},{\"name\":\"each\",\"type\":\"string\",\"required\":true},"
               "{\"name\":\"who\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"hoard\",\"summary\":\"Prepare statements and keep them\",\"arguments\":["
               "{\"name\":\"count\",\"type\":\"string\",\"required\":true},{\"name\":\"who\",\"type\":\"string\",\"required\":true}]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status hs_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void hs_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static const clubhouse_storage_service *storage_of(fixture *h) {
    return h->host->get_service(h->host, CLUBHOUSE_SERVICE_STORAGE);
}

static clubhouse_status migrate(const clubhouse_storage_service *s, fixture *h, const clubhouse_reply *reply) {
    /* Migration 1 backfills a table (a few hundred ms): hosts starting side by side overlap in it. */
    clubhouse_status status = s->migrate(h->host, 1, "table t",
        "CREATE TABLE t(value TEXT NOT NULL);"
        "CREATE TABLE filler AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 150000) "
        "SELECT i, printf('%08d', i) AS label FROM r", reply);
    if (status != CLUBHOUSE_OK) return status;
    return s->migrate(h->host, 2, "index on t", "CREATE INDEX t_value ON t(value)", reply);
}

static clubhouse_status insert(const clubhouse_storage_service *s, fixture *h, const char *value, const clubhouse_reply *reply) {
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = s->prepare(h->host, "INSERT INTO t(value) VALUES (?1)", &stmt, reply);
    if (status != CLUBHOUSE_OK) return status;
    s->bind_text(stmt, 1, value, strlen(value));
    status = s->step(stmt);
    if (status != CLUBHOUSE_DONE) {
        const char *message = s->last_error(h->host);
        say(reply, message ? message : "insert failed");
        s->finalize(stmt);
        return status;
    }
    s->finalize(stmt);
    return CLUBHOUSE_OK;
}

/* VmHWM (kB) of process `pid` from /proc, -1 when unreadable. */
static long peak_kb(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) { kb = strtol(line + 6, NULL, 10); break; }
    }
    fclose(f);
    return kb;
}

static clubhouse_status hoard(const clubhouse_storage_service *s, fixture *h, int count, int parent, const clubhouse_reply *reply) {
    size_t n = 1000 * 1000;
    char *sql = malloc(n + 32);
    if (!sql) { say(reply, "no memory"); return CLUBHOUSE_ERROR; }
    int prepared = 0, refused = 0;
    char first[1024] = "";
    clubhouse_status first_status = CLUBHOUSE_OK;
    for (int i = 0; i < count; i++) {
        /* A different constant each time, so nothing can be shared between them. */
        int head = snprintf(sql, 32, "SELECT %d, '", i);
        memset(sql + head, 'a' + i % 26, n);
        strcpy(sql + head + n, "'");
        clubhouse_stmt *stmt = NULL;
        clubhouse_status status = s->prepare(h->host, sql, &stmt, NULL);
        if (status == CLUBHOUSE_OK) {
            prepared++;
            continue;
        }
        refused++;
        if (first_status == CLUBHOUSE_OK) {
            first_status = status;
            const char *message = s->last_error(h->host);
            snprintf(first, sizeof first, "%s", message ? message : "");
        }
    }
    free(sql);
    long kb = peak_kb(parent ? getppid() : getpid());
    char out[2048];
    char escaped[1200];
    size_t e = 0;
    for (const char *p = first; *p && e + 2 < sizeof escaped; p++) {
        if (*p == '"' || *p == '\\') escaped[e++] = '\\';
        escaped[e++] = *p;
    }
    escaped[e] = 0;
    snprintf(out, sizeof out,
             "{\"data\":{\"prepared\":%d,\"refused\":%d,\"status\":%d,\"message\":\"%s\",\"host_peak_kb\":%ld}}",
             prepared, refused, (int)first_status, escaped, kb);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static void json_escaped(const char *text, char *out, size_t capacity) {
    size_t e = 0;
    for (const char *p = text; *p && e + 2 < capacity; p++) {
        if (*p == '"' || *p == '\\') out[e++] = '\\';
        out[e++] = *p;
    }
    out[e] = 0;
}

static clubhouse_status huge_row(const clubhouse_storage_service *s, fixture *h, int columns, long each, const char *who,
                                 const clubhouse_reply *reply) {
    if (columns < 1 || columns > 64) { say(reply, "columns: 1 to 64"); return CLUBHOUSE_INVALID_ARGUMENT; }
    char sql[4096] = "SELECT ";
    for (int i = 0; i < columns; i++) {
        char column[64];
        snprintf(column, sizeof column, "%szeroblob(%ld)||x'00'", i ? ", " : "", each);
        strncat(sql, column, sizeof sql - strlen(sql) - 1);
    }
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = s->prepare(h->host, sql, &stmt, NULL);
    long long read = 0;
    if (status == CLUBHOUSE_OK) {
        status = s->step(stmt);
        if (status == CLUBHOUSE_ROW) {
            for (int i = 0; i < s->column_count(stmt); i++) {
                size_t n = 0;
                s->column_blob(stmt, i, &n);
                read += (long long)n;
            }
        }
    }
    char message[1200];
    const char *last = status == CLUBHOUSE_ROW ? "" : s->last_error(h->host);
    json_escaped(last ? last : "", message, sizeof message);
    if (stmt) s->finalize(stmt);
    long kb = strcmp(who, "none") == 0 ? -1 : peak_kb(strcmp(who, "parent") == 0 ? getppid() : getpid());
    char out[2048];
    snprintf(out, sizeof out, "{\"data\":{\"status\":%d,\"message\":\"%s\",\"read\":%lld,\"host_peak_kb\":%ld}}",
             (int)status, message, read, kb);
    say(reply, out);
    return CLUBHOUSE_OK;
}

/* A reply sink that keeps what was written (a failure's message). */
typedef struct { clubhouse_reply reply; char text[512]; size_t length; } kept;
static void keep(const clubhouse_reply *reply, const char *bytes, size_t length) {
    kept *k = (kept *)reply;
    for (size_t i = 0; i < length && k->length + 1 < sizeof k->text; i++) k->text[k->length++] = bytes[i];
    k->text[k->length] = 0;
}

static clubhouse_status churn(const clubhouse_storage_service *s, fixture *h, int rounds, const char *tag, const clubhouse_reply *reply) {
    char bad[128], expected[128];
    snprintf(bad, sizeof bad, "SELECT * FROM missing_%s", tag);
    snprintf(expected, sizeof expected, "no such table: missing_%s", tag);
    int mismatches = 0, failures = 0;
    char example[600] = "";
    for (int i = 0; i < rounds; i++) {
        clubhouse_stmt *stmt = NULL;
        if (s->prepare(h->host, "SELECT ?1 + 1", &stmt, NULL) != CLUBHOUSE_OK) { failures++; continue; }
        s->bind_int64(stmt, 1, i);
        if (s->step(stmt) != CLUBHOUSE_ROW || s->column_int64(stmt, 0) != i + 1) failures++;
        s->finalize(stmt);
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        stmt = NULL;
        clubhouse_status status = s->prepare(h->host, bad, &stmt, &k.reply);
        const char *last = s->last_error(h->host);
        if (status == CLUBHOUSE_OK) { failures++; s->finalize(stmt); continue; }
        if (strcmp(k.text, expected) != 0 || !last || strcmp(last, expected) != 0) {
            if (mismatches++ == 0) snprintf(example, sizeof example, "reply '%s', last_error '%s'", k.text, last ? last : "(null)");
        }
    }
    char out[1024];
    snprintf(out, sizeof out, "{\"data\":{\"mismatches\":%d,\"failures\":%d,\"example\":\"%s\"}}", mismatches, failures, example);
    say(reply, out);
    return CLUBHOUSE_OK;
}

static clubhouse_status hs_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self;
    fixture *h = instance;
    const clubhouse_storage_service *s = storage_of(h);
    if (!s) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
    char text[4096];
    clubhouse_status status;
    if (strcmp(command, "sql") == 0) {
        if (!fixture_argument(request, length, "sql", text, sizeof text)) { say(reply, "missing sql"); return CLUBHOUSE_INVALID_ARGUMENT; }
        status = s->exec(h->host, text, reply);
        if (status != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"ok\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "query") == 0 || strcmp(command, "count") == 0) {
        if (strcmp(command, "count") == 0) {
            if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
            strcpy(text, "SELECT count(*) FROM t");
        } else if (!fixture_argument(request, length, "sql", text, sizeof text)) {
            say(reply, "missing sql");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        clubhouse_stmt *stmt = NULL;
        if ((status = s->prepare(h->host, text, &stmt, reply)) != CLUBHOUSE_OK) return status;
        char rows[4096];
        strcpy(rows, "{\"data\":\"");
        int first = 1;
        while ((status = s->step(stmt)) == CLUBHOUSE_ROW) {
            size_t n = 0;
            char number[32];
            const char *value = number;
            /* Numbers by type: the runner's proxy gives column_text only for text and blobs. */
            switch (s->column_type(stmt, 0)) {
            case CLUBHOUSE_TYPE_INTEGER: snprintf(number, sizeof number, "%lld", (long long)s->column_int64(stmt, 0)); break;
            case CLUBHOUSE_TYPE_FLOAT: snprintf(number, sizeof number, "%g", s->column_double(stmt, 0)); break;
            default: value = s->column_text(stmt, 0, &n);
            }
            if (!first) strncat(rows, ",", sizeof rows - strlen(rows) - 1);
            strncat(rows, value ? value : "null", sizeof rows - strlen(rows) - 4);
            first = 0;
        }
        if (status != CLUBHOUSE_DONE) {
            const char *message = s->last_error(h->host);
            say(reply, message ? message : "step failed");
            s->finalize(stmt);
            return status;
        }
        s->finalize(stmt);
        strcat(rows, "\"}");
        say(reply, rows);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "churn") == 0) {
        char tag[32];
        if (!fixture_argument(request, length, "rounds", text, sizeof text) || !fixture_argument(request, length, "tag", tag, sizeof tag)) {
            say(reply, "missing rounds or tag");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        return churn(s, h, atoi(text), tag, reply);
    }
    if (strcmp(command, "hoard") == 0) {
        char who[16];
        if (!fixture_argument(request, length, "count", text, sizeof text) || !fixture_argument(request, length, "who", who, sizeof who)) {
            say(reply, "missing count or who");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        return hoard(s, h, atoi(text), strcmp(who, "parent") == 0, reply);
    }
    if (strcmp(command, "huge-row") == 0) {
        char columns[16], who[16];
        if (!fixture_argument(request, length, "columns", columns, sizeof columns) || !fixture_argument(request, length, "each", text, sizeof text)
            || !fixture_argument(request, length, "who", who, sizeof who)) {
            say(reply, "missing columns, each or who");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        return huge_row(s, h, atoi(columns), atol(text), who, reply);
    }
    if (strcmp(command, "runaway") == 0 || strcmp(command, "runaway-then-think") == 0) {
        if (!fixture_argument(request, length, "marker", text, sizeof text)) { say(reply, "missing marker"); return CLUBHOUSE_INVALID_ARGUMENT; }
        int fd = open(text, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) close(fd);
        status = s->exec(h->host, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r", reply);
        if (status != CLUBHOUSE_OK && strcmp(command, "runaway-then-think") == 0) usleep(300 * 1000);
        if (status != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"the query without end ended\"}");
        return CLUBHOUSE_OK;
    }
    /* Issue 27 (a14): once it has seen its cancel, keeps inserting a row every 10 ms for up to 9 s,
       past the 5 s cleanup grace; stops at its second refusal. Writes what it saw to `marker`
       (stored, refused, the last stored row's ms after the cancel, the refusal). */
    if (strcmp(command, "linger") == 0) {
        if (!fixture_argument(request, length, "marker", text, sizeof text)) { say(reply, "missing marker"); return CLUBHOUSE_INVALID_ARGUMENT; }
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        struct timespec seen = {0, 0}, now;
        int stored = 0, refused = 0;
        long last_ok = -1, elapsed = 0;
        char why[512] = "";
        while (elapsed < 9000 && refused < 2) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (seen.tv_sec == 0 && call->is_cancelled(call)) seen = now;
            if (seen.tv_sec != 0) {
                elapsed = (now.tv_sec - seen.tv_sec) * 1000 + (now.tv_nsec - seen.tv_nsec) / 1000000;
                kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
                if (insert(s, h, "linger", &k.reply) == CLUBHOUSE_OK) { stored++; last_ok = elapsed; }
                else { refused++; const char *m = s->last_error(h->host); snprintf(why, sizeof why, "%s", m ? m : "?"); }
            }
            usleep(10000);
        }
        FILE *f = fopen(text, "w");
        if (f) { fprintf(f, "%d\n%d\n%ld\n%s\n", stored, refused, last_ok, why); fclose(f); }
        say(reply, "{\"data\":\"lingered\"}");
        return CLUBHOUSE_OK;
    }
    /* Issue 27 (a13b): three queries without end in a row, whatever each answers; writes each one's
       status and the last message to `marker`. */
    if (strcmp(command, "runaways") == 0) {
        if (!fixture_argument(request, length, "marker", text, sizeof text)) { say(reply, "missing marker"); return CLUBHOUSE_INVALID_ARGUMENT; }
        int statuses[3];
        char why[512] = "";
        for (int i = 0; i < 3; i++) {
            kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
            statuses[i] = s->exec(h->host, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r", &k.reply);
            const char *m = s->last_error(h->host);
            snprintf(why, sizeof why, "%s", m ? m : "?");
        }
        FILE *f = fopen(text, "w");
        if (f) { fprintf(f, "%d %d %d\n%s\n", statuses[0], statuses[1], statuses[2], why); fclose(f); }
        say(reply, "{\"data\":\"three runaways ended\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "write") == 0 || strcmp(command, "open-tx") == 0) {
        if (!fixture_argument(request, length, "value", text, sizeof text)) { say(reply, "missing value"); return CLUBHOUSE_INVALID_ARGUMENT; }
        if ((status = migrate(s, h, reply)) != CLUBHOUSE_OK) return status;
        if (strcmp(command, "open-tx") == 0 && (status = s->begin(h->host, reply)) != CLUBHOUSE_OK) return status;
        if ((status = insert(s, h, text, reply)) != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"ok\"}");
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(hs, "Hostile storage", "Sends the host hostile SQL", services)
