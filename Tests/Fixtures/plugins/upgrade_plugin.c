/*
 * A plugin with a database, built at several versions for the upgrade and rollback tests
 * (FixturePlugins.build(VARIANT, id:, version:, file: "upgrade_plugin.c")):
 *
 *   FIXTURE_V1         migration 1 (notes)
 *   FIXTURE_V2         migrations 1 and 2 (notes gain a "stars" column)
 *   FIXTURE_V2_FAILS   migrations 1, 2 and a third whose SQL fails half-way (after 2 succeeded)
 *
 * Commands: add (one note), count ({"notes": N, "migrations": M, "version": V}).
 */
#include <stdio.h>
#include <string.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.upgrade"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"

static clubhouse_status up_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"add\",\"summary\":\"Add a note\",\"arguments\":[]},"
               "{\"name\":\"count\",\"summary\":\"Count the notes\",\"arguments\":[]}]}");
    return CLUBHOUSE_OK;
}

typedef struct { const clubhouse_host *host; const clubhouse_storage_service *storage; } upgrade;
static upgrade the_instance;

static clubhouse_status up_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self;
    const clubhouse_storage_service *storage = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    if (!storage) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
    clubhouse_status s = storage->migrate(host, 1, "notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)", reply);
    if (s != CLUBHOUSE_OK) return s;
#if defined(FIXTURE_V2) || defined(FIXTURE_V2_FAILS)
    s = storage->migrate(host, 2, "stars", "ALTER TABLE notes ADD COLUMN stars INTEGER NOT NULL DEFAULT 0", reply);
    if (s != CLUBHOUSE_OK) return s;
#endif
#ifdef FIXTURE_V2_FAILS
    s = storage->migrate(host, 3, "tags",
                         "CREATE TABLE tags (note INTEGER REFERENCES notes(id), tag TEXT);"
                         "INSERT INTO tags SELECT id, label FROM no_such_table", reply);
    if (s != CLUBHOUSE_OK) return s;
#endif
    the_instance.host = host;
    the_instance.storage = storage;
    *instance = &the_instance;
    return CLUBHOUSE_OK;
}

static void up_destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

static clubhouse_status up_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)call; (void)request; (void)length;
    upgrade *u = instance;
    if (strcmp(command, "add") == 0) {
        clubhouse_status s = u->storage->exec(u->host, "INSERT INTO notes (body) VALUES ('a note')", reply);
        if (s != CLUBHOUSE_OK) return s;
        say(reply, "{\"data\":null}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "count") == 0) {
        long long counts[2] = {0, 0};
        const char *queries[2] = {"SELECT count(*) FROM notes", "SELECT count(*) FROM _clubhouse_migrations"};
        for (int i = 0; i < 2; i++) {
            clubhouse_stmt *stmt = NULL;
            clubhouse_status s = u->storage->prepare(u->host, queries[i], &stmt, reply);
            if (s != CLUBHOUSE_OK) return s;
            if (u->storage->step(stmt) == CLUBHOUSE_ROW) counts[i] = (long long)u->storage->column_int64(stmt, 0);
            u->storage->finalize(stmt);
        }
        char text[256];
        snprintf(text, sizeof text, "{\"data\":{\"notes\":%lld,\"migrations\":%lld,\"version\":\"%s\"},\"text\":\"%lld notes\\n\"}",
                 counts[0], counts[1], FIXTURE_VERSION, counts[0]);
        say(reply, text);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(up, "Upgrade fixture", "A plugin with migrations, built at several versions by the tests", services)
