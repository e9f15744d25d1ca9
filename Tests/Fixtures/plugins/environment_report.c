/*
 * A plugin that reports the names of the variables in its environment (the ninth outside attack, a28:
 * a sandboxed plugin read PGPASSWORD and the host's other secrets from its environ), for
 * Tests/EndToEndTests/RunnerEnvironmentEndToEndTests.swift. Command:
 *   names    {"names": ["PATH", "HOME", ...]}
 */
#include <unistd.h>

#include "fixture.h"

extern char **environ;

static clubhouse_status report_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":[{\"name\":\"names\",\"summary\":\"The names in its environment\"}]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status report_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                      const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void report_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status report_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                      const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)request; (void)length;
    if (strcmp(command, "names") != 0) {
        say(reply, "unknown command");
        return CLUBHOUSE_NOT_FOUND;
    }
    say(reply, "{\"data\":{\"names\":[");
    for (char **entry = environ; entry && *entry; entry++) {
        char name[256], quoted[600];
        size_t n = strcspn(*entry, "=");
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, *entry, n);
        name[n] = 0;
        fixture_json_text(name, quoted, sizeof quoted);
        if (entry != environ) say(reply, ",");
        say(reply, "\"");
        say(reply, quoted);
        say(reply, "\"");
    }
    say(reply, "]}}");
    return CLUBHOUSE_OK;
}

static const char *const report_services[] = {NULL};
FIXTURE_PLUGIN(report, "Environment", "Reports its environment's names", report_services)
