/*
 * Hostile plugins for the router tests (Tests/EndToEndTests/RouterEndToEndTests.swift), one source
 * compiled with a -D per variant:
 *
 *   ROUTER_PINGPONG   "ping": waits 300 ms (so a concurrent call can take the other plugin), then
 *                     invokes "pong" of the plugin named by FIXTURE_PEER and returns what it got.
 *                     "pong" answers at once. Two such plugins called at once, A→B and B→A, are
 *                     the deadlock the call gates must refuse instead of hanging.
 *   ROUTER_BACKGROUND "later": replies at once and asks for background work ("record"), which
 *                     writes a row; "count" reads how many rows there are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.router"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"
#ifndef FIXTURE_PEER
#define FIXTURE_PEER "b"
#endif

static clubhouse_status rx_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"ping\",\"summary\":\"Call the peer's pong\",\"arguments\":[]},"
               "{\"name\":\"pong\",\"summary\":\"Answer\",\"arguments\":[]},"
               "{\"name\":\"later\",\"summary\":\"Ask for background work\",\"arguments\":[]},"
               "{\"name\":\"record\",\"summary\":\"Write a row\",\"arguments\":[]},"
               "{\"name\":\"count\",\"summary\":\"Count rows\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status rx_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void rx_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* Collects a reply into a buffer. */
typedef struct { char text[4096]; size_t n; } collected;
static void collect(const clubhouse_reply *reply, const char *bytes, size_t length) {
    collected *c = reply->caller_data;
    size_t room = sizeof c->text - 1 - c->n;
    size_t k = length < room ? length : room;
    memcpy(c->text + c->n, bytes, k);
    c->n += k;
    c->text[c->n] = 0;
}

static clubhouse_status rx_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    fixture *f = instance;
    if (strcmp(command, "pong") == 0) {
        say(reply, "{\"data\":\"pong from " FIXTURE_ID "\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "ping") == 0) {
        const clubhouse_invoke_service *invoke = f->host->get_service(f->host, CLUBHOUSE_SERVICE_INVOKE);
        if (!invoke) { say(reply, "invoke is not granted"); return CLUBHOUSE_DENIED; }
        usleep(300 * 1000);
        collected got = {{0}, 0};
        clubhouse_reply sink = {sizeof sink, &got, collect};
        const char *body = "{\"arguments\":{}}";
        clubhouse_status status = invoke->invoke(f->host, call, FIXTURE_PEER, "pong", body, strlen(body), &sink);
        if (status != CLUBHOUSE_OK) { say(reply, got.text); return status; }
        say(reply, "{\"data\":\"ping got pong\"}");
        return CLUBHOUSE_OK;
    }
    const clubhouse_storage_service *storage = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    if (!storage) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
    if (strcmp(command, "later") == 0) {
        say(reply, "{\"data\":\"queued\",\"background\":{\"command\":\"record\",\"arguments\":{}}}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "record") == 0) {
        clubhouse_status s = storage->exec(f->host, "CREATE TABLE IF NOT EXISTS done(x); INSERT INTO done VALUES (1)", reply);
        if (s != CLUBHOUSE_OK) return s;
        say(reply, "{\"data\":\"recorded\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "count") == 0) {
        clubhouse_stmt *stmt = NULL;
        clubhouse_status s = storage->prepare(f->host, "SELECT count(*) FROM done", &stmt, reply);
        if (s != CLUBHOUSE_OK) { return s; }
        long long n = storage->step(stmt) == CLUBHOUSE_ROW ? (long long)storage->column_int64(stmt, 0) : -1;
        storage->finalize(stmt);
        char text[64];
        snprintf(text, sizeof text, "{\"data\":%lld}", n);
        say(reply, text);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

#ifdef ROUTER_PINGPONG
static const char *const services[] = {CLUBHOUSE_SERVICE_INVOKE, NULL};
#else
static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};
#endif

FIXTURE_PLUGIN(rx, "Router fixture", "A plugin built by the router tests", services)
