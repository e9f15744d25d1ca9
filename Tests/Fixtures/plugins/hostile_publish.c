/*
 * Outbox plugin for the outbox tests (OutboxEndToEndTests.swift), written against the C header
 * alone: it publishes whatever record a test gives it (services/publish.h, ABI 1.4), inside or
 * outside a transaction, and sends the host whatever SQL a test gives it (to reach the outbox).
 * Declares the record topics "round" and "shot". Variants (one -D each):
 *
 *   FIXTURE_PUBLISH   the plugin
 *
 * Commands:
 *   publish --topic T --key K [--body B] [--pad N] [--count C] [--mode M]
 *                        creates table t (once), then per M: "commit" (begin, insert a row into t,
 *                        publish C records, commit), "rollback" (the same, then rollback), "open"
 *                        (begin, insert, publish, return without commit: the host rolls back),
 *                        "savepoint" (begin, insert, savepoint, publish, rollback the savepoint,
 *                        commit), "none" (no transaction). With C > 1 the keys are K-1, K-2, ….
 *                        --pad N publishes {"pad": "aaa…"} of N characters instead of B.
 *                        Replies "ok", or the host's status and message.
 *   sql --sql S          exec S: "ok", or the storage status and message
 *   query --sql S        the first column of every row, joined with ","
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.publish"
#endif
#include "fixture.h"

static clubhouse_status hp_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"publish\",\"summary\":\"Publish records\",\"arguments\":["
               "{\"name\":\"topic\",\"type\":\"string\",\"required\":true},{\"name\":\"key\",\"type\":\"string\",\"required\":true},"
               "{\"name\":\"body\",\"type\":\"string\"},{\"name\":\"pad\",\"type\":\"string\"},"
               "{\"name\":\"count\",\"type\":\"string\"},{\"name\":\"mode\",\"type\":\"string\"}]},"
               "{\"name\":\"sql\",\"summary\":\"Run SQL\",\"arguments\":[{\"name\":\"sql\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"query\",\"summary\":\"Run a query\",\"arguments\":[{\"name\":\"sql\",\"type\":\"string\",\"required\":true}]}"
               "],\"records\":[{\"name\":\"round\",\"summary\":\"a round\"},{\"name\":\"shot\",\"summary\":\"a shot\"}]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status hp_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void hp_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* A reply sink that keeps what was written (a failure's message). */
typedef struct { clubhouse_reply reply; char text[2048]; size_t length; } kept;
static void keep(const clubhouse_reply *reply, const char *bytes, size_t length) {
    kept *k = (kept *)reply;
    for (size_t i = 0; i < length && k->length + 1 < sizeof k->text; i++) k->text[k->length++] = bytes[i];
    k->text[k->length] = 0;
}

static clubhouse_status failed(const clubhouse_reply *reply, clubhouse_status status, const char *message) {
    char out[2300];
    snprintf(out, sizeof out, "status %d: %s", (int)status, message ? message : "");
    say(reply, out);
    return status == CLUBHOUSE_OK ? CLUBHOUSE_ERROR : status;
}

static clubhouse_status run_sql(const clubhouse_storage_service *s, const clubhouse_host *host, const char *sql,
                                const clubhouse_reply *reply) {
    kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
    clubhouse_status status = s->exec(host, sql, &k.reply);
    if (status != CLUBHOUSE_OK) return failed(reply, status, k.length ? k.text : s->last_error(host));
    return CLUBHOUSE_OK;
}

static clubhouse_status publish_command(const clubhouse_host *host, const clubhouse_call *call, const char *request, size_t length,
                                        const clubhouse_reply *reply) {
    const clubhouse_storage_service *s = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    const clubhouse_publish_service *p = host->get_service(host, CLUBHOUSE_SERVICE_PUBLISH);
    if (!s || !p) { say(reply, "no storage or publish service"); return CLUBHOUSE_UNSUPPORTED; }
    static char topic[256], key[512], body[8192], pad[32], count_text[32], mode[32];
    if (!fixture_argument(request, length, "topic", topic, sizeof topic)) topic[0] = 0;
    if (!fixture_argument(request, length, "key", key, sizeof key)) key[0] = 0;
    if (!fixture_argument(request, length, "body", body, sizeof body)) strcpy(body, "{\"n\":1}");
    if (!fixture_argument(request, length, "count", count_text, sizeof count_text)) strcpy(count_text, "1");
    if (!fixture_argument(request, length, "mode", mode, sizeof mode)) strcpy(mode, "commit");
    char *json = body;
    size_t json_length = strlen(body);
    char *padded = NULL;
    if (fixture_argument(request, length, "pad", pad, sizeof pad)) {
        long n = strtol(pad, NULL, 10);
        padded = malloc((size_t)n + 16);
        if (!padded) { say(reply, "no memory"); return CLUBHOUSE_ERROR; }
        strcpy(padded, "{\"pad\":\"");
        memset(padded + 8, 'a', (size_t)n);
        strcpy(padded + 8 + n, "\"}");
        json = padded;
        json_length = strlen(padded);
    }
    clubhouse_status status = run_sql(s, host, "CREATE TABLE IF NOT EXISTS t(value TEXT)", reply);
    if (status != CLUBHOUSE_OK) { free(padded); return status; }
    int transaction = strcmp(mode, "none") != 0;
    if (transaction) {
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        status = s->begin(host, &k.reply);
        if (status != CLUBHOUSE_OK) { free(padded); return failed(reply, status, k.text); }
    }
    status = run_sql(s, host, "INSERT INTO t(value) VALUES ('data')", reply);
    if (status != CLUBHOUSE_OK) { free(padded); return status; }
    if (strcmp(mode, "savepoint") == 0) {
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        s->begin(host, &k.reply);
    }
    long count = strtol(count_text, NULL, 10);
    for (long i = 1; i <= count; i++) {
        char each[600];
        if (count > 1) snprintf(each, sizeof each, "%s-%ld", key, i); else snprintf(each, sizeof each, "%s", key);
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        status = p->publish(host, call, topic, each, json, json_length, &k.reply);
        if (status != CLUBHOUSE_OK) {
            if (transaction) s->rollback(host);
            free(padded);
            return failed(reply, status, k.text);
        }
    }
    free(padded);
    if (strcmp(mode, "savepoint") == 0) s->rollback(host);
    if (strcmp(mode, "rollback") == 0) {
        s->rollback(host);
    } else if (strcmp(mode, "open") == 0) {
        /* left open: the host rolls it back at the end of the call */
    } else if (transaction) {
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        status = s->commit(host, &k.reply);
        if (status != CLUBHOUSE_OK) return failed(reply, status, k.text);
    }
    say(reply, "{\"data\":\"ok\"}");
    return CLUBHOUSE_OK;
}

static clubhouse_status hp_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self;
    fixture *h = instance;
    const clubhouse_storage_service *s = h->host->get_service(h->host, CLUBHOUSE_SERVICE_STORAGE);
    if (strcmp(command, "publish") == 0) return publish_command(h->host, call, request, length, reply);
    static char sql[8192];
    if (!s || !fixture_argument(request, length, "sql", sql, sizeof sql)) { say(reply, "no storage or no --sql"); return CLUBHOUSE_INVALID_ARGUMENT; }
    if (strcmp(command, "sql") == 0) {
        clubhouse_status status = run_sql(s, h->host, sql, reply);
        if (status == CLUBHOUSE_OK) say(reply, "{\"data\":\"ok\"}");
        return status;
    }
    if (strcmp(command, "query") == 0) {
        clubhouse_stmt *stmt = NULL;
        kept k = {{sizeof(clubhouse_reply), NULL, keep}, "", 0};
        clubhouse_status status = s->prepare(h->host, sql, &stmt, &k.reply);
        if (status != CLUBHOUSE_OK) return failed(reply, status, k.length ? k.text : s->last_error(h->host));
        char out[4096] = "{\"data\":\"";
        size_t n = strlen(out);
        int first = 1;
        while ((status = s->step(stmt)) == CLUBHOUSE_ROW) {
            const char *text = s->column_text(stmt, 0, NULL);
            if (!first && n + 2 < sizeof out) out[n++] = ',';
            first = 0;
            for (const char *c = text ? text : ""; *c && n + 4 < sizeof out; c++) {
                if (*c == '"' || *c == '\\') out[n++] = '\\';
                out[n++] = *c;
            }
        }
        if (status != CLUBHOUSE_DONE) {
            const char *message = s->last_error(h->host);
            s->finalize(stmt);
            return failed(reply, status, message);
        }
        s->finalize(stmt);
        out[n] = 0;
        strncat(out, "\"}", sizeof out - strlen(out) - 1);
        say(reply, out);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_INVALID_ARGUMENT;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_PUBLISH, NULL};

FIXTURE_PLUGIN(hp, "Publish", "Publishes records on purpose (tests only)", services)
