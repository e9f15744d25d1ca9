/*
 * Plugins for the validator's checks (FixturePlugins.build(VARIANT, file: "validate_plugin.c")).
 * Every variant needs the config key "greeting" (create fails without it, so only a validation
 * given the site's configuration can create it) and declares examples:
 *   say --word hi      (a command; "say --word boom" fails)
 *   spin               (long-running; stops when cancelled)
 *
 *   FIXTURE_GOOD          passes every check when given its configuration
 *   FIXTURE_LEAKY         create opens a file that destroy never closes
 *   FIXTURE_UNSTABLE      describe changes from call to call
 *   FIXTURE_DEAF          spin ignores cancellation (for 20 s)
 *   FIXTURE_BAD_EXAMPLE   declares the example "say --word boom", which fails
 *   FIXTURE_NOSY_CREATE   create reads /etc/passwd, and fails when it cannot (as under a sandbox)
 */
#include "clubhouse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void say(const clubhouse_reply *reply, const char *text) { reply->write(reply, text, strlen(text)); }

static clubhouse_status v_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
#ifdef FIXTURE_UNSTABLE
    static int calls;
    calls++;
    if (calls % 2 == 0) { say(reply, "{\"commands\":[{\"name\":\"say\",\"summary\":\"Say a word again\"}]}"); return CLUBHOUSE_OK; }
#endif
    say(reply, "{\"commands\":["
               "{\"name\":\"say\",\"summary\":\"Say a word\",\"arguments\":[{\"name\":\"word\",\"type\":\"string\",\"required\":true}],"
#ifdef FIXTURE_BAD_EXAMPLE
               "\"examples\":[\"say --word hi\",\"say --word boom\"]},"
#else
               "\"examples\":[\"say --word hi\", \"say --word 'two words'\"]},"
#endif
               "{\"name\":\"spin\",\"summary\":\"Work until cancelled\",\"long_running\":true,\"examples\":[\"spin\"]}]}");
    return CLUBHOUSE_OK;
}

static char greeting_value[64];

static void collect(const clubhouse_reply *reply, const char *bytes, size_t length) {
    (void)reply;
    size_t used = strlen(greeting_value);
    if (used + length < sizeof greeting_value) { memcpy(greeting_value + used, bytes, length); greeting_value[used + length] = 0; }
}

static int instance_token;

static clubhouse_status v_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                 const clubhouse_reply *reply) {
    (void)self;
    const clubhouse_config_service *config = host->get_service(host, CLUBHOUSE_SERVICE_CONFIG);
    clubhouse_reply sink = {sizeof sink, NULL, collect};
    greeting_value[0] = 0;
    if (!config || config->get(host, "greeting", &sink) != CLUBHOUSE_OK) {
        say(reply, "config key 'greeting' is missing; set \"config\": {\"greeting\": \"...\"} for this plugin in plugins.json");
        return CLUBHOUSE_INVALID_ARGUMENT;
    }
#ifdef FIXTURE_LEAKY
    (void)open("/dev/null", O_RDONLY);
#endif
#ifdef FIXTURE_NOSY_CREATE
    int nosy = open("/etc/passwd", O_RDONLY);
    if (nosy < 0) {
        char message[160];
        snprintf(message, sizeof message, "cannot read /etc/passwd: %s", strerror(errno));
        say(reply, message);
        return CLUBHOUSE_ERROR;
    }
    close(nosy);
#endif
    *instance = &instance_token;
    return CLUBHOUSE_OK;
}

static void v_destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

static clubhouse_status v_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                 const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance;
    if (strcmp(command, "say") == 0) {
        if (length > 0 && strstr(request, "\"boom\"")) { say(reply, "the word boom is not allowed"); return CLUBHOUSE_ERROR; }
        say(reply, "{\"data\":null}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "spin") == 0) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 2000; i++) {
#ifndef FIXTURE_DEAF
            if (call->is_cancelled(call)) { say(reply, "cancelled"); return CLUBHOUSE_CANCELLED; }
#endif
            nanosleep(&pause, NULL);
        }
        say(reply, "{\"data\":null}");
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {NULL};

static const clubhouse_plugin_descriptor descriptor = {
    .magic = CLUBHOUSE_MAGIC,
    .abi_major = CLUBHOUSE_ABI_MAJOR,
    .abi_minor = CLUBHOUSE_ABI_MINOR,
    .struct_size = sizeof(clubhouse_plugin_descriptor),
    .flags = 0,
    .id = FIXTURE_ID,
    .version = FIXTURE_VERSION,
    .name = "Validate fixture",
    .summary = "A plugin for the validator's checks",
    .build = "abi=1.0;lang=c",
    .services = services,
    .describe = v_describe,
    .create = v_create,
    .destroy = v_destroy,
    .invoke = v_invoke,
};

__attribute__((visibility("default")))
const clubhouse_plugin_descriptor *clubhouse_plugin_entry(const clubhouse_host_info *info) {
    (void)info;
    return &descriptor;
}
