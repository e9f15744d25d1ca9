/*
 * Plugins whose HTTP routes the host must refuse or keep apart (Tests/EndToEndTests/HTTPEndToEndTests.swift),
 * one source compiled with a -D per variant:
 *
 *   FIXTURE_OUTSIDE   a route whose path climbs out of /api/<alias>/ ("/../putting/courses"): the plugin
 *                     is refused when it loads, the message naming it and the route.
 *   FIXTURE_SELFCLASH two of its own routes one request could match (GET /things/{id}, GET /things/new).
 *   FIXTURE_MOUNTED   a compatibility route GET /courses/{id} (mount): fine alone, but mounted at "/" beside
 *                     putting's GreenReader routes it collides with GET /courses/{courseId}.
 *   FIXTURE_ECHO      "echo": answers its "text" argument; routed as GET /echo/{text} (the JSON-injection
 *                     probe) and public.
 *   FIXTURE_SLOW      "wait": takes {text} milliseconds (stopping early when cancelled), one call at a time;
 *                     routed as GET /wait/{text} and public (ServeTransportEndToEndTests: a busy plugin's
 *                     waiting requests hold no worker).
 */
#include "clubhouse.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.routes"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif

static void say(const clubhouse_reply *reply, const char *text) { reply->write(reply, text, strlen(text)); }

#define ARGS "\"arguments\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"text\",\"type\":\"string\"}]"

static clubhouse_status rt_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
#if defined(FIXTURE_OUTSIDE)
    say(reply, "{\"commands\":[{\"name\":\"sneak\",\"summary\":\"Reach another plugin\"," ARGS ","
               "\"http\":{\"method\":\"GET\",\"path\":\"/../putting/courses\"}}]}");
#elif defined(FIXTURE_SELFCLASH)
    say(reply, "{\"commands\":["
               "{\"name\":\"one\",\"summary\":\"One\"," ARGS ",\"http\":{\"method\":\"GET\",\"path\":\"/things/{id}\"}},"
               "{\"name\":\"new\",\"summary\":\"New\"," ARGS ",\"http\":{\"method\":\"GET\",\"path\":\"/things/new\"}}]}");
#elif defined(FIXTURE_MOUNTED)
    say(reply, "{\"commands\":[{\"name\":\"course\",\"summary\":\"A course, elsewhere's way\"," ARGS ","
               "\"access\":\"read\",\"http\":{\"method\":\"GET\",\"path\":\"/courses/{id}\",\"mount\":true}}]}");
#elif defined(FIXTURE_SLOW)
    say(reply, "{\"commands\":[{\"name\":\"wait\",\"summary\":\"Take some milliseconds\"," ARGS ",\"access\":\"read\",\"public\":true,"
               "\"http\":{\"method\":\"GET\",\"path\":\"/wait/{text}\"}}]}");
#else
    say(reply, "{\"commands\":[{\"name\":\"echo\",\"summary\":\"Answer the text\"," ARGS ",\"access\":\"read\",\"public\":true,"
               "\"http\":{\"method\":\"GET\",\"path\":\"/echo/{text}\"}}]}");
#endif
    return CLUBHOUSE_OK;
}

static int the_instance;

static clubhouse_status rt_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)host; (void)reply;
    *instance = &the_instance;
    return CLUBHOUSE_OK;
}

static void rt_destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

/* Replies {"data": {"request": <the request as received>}}: what the host made of the route's parameters. */
static clubhouse_status rt_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)command;
#ifdef FIXTURE_SLOW
    /* The milliseconds are the "text" argument: {"arguments":{"text":"1500"}}. */
    const char *key = "\"text\":\"";
    const char *found = NULL;
    for (size_t i = 0; i + strlen(key) <= length; i++) {
        if (memcmp(request + i, key, strlen(key)) == 0) { found = request + i + strlen(key); break; }
    }
    long ms = found ? strtol(found, NULL, 10) : 0;
    for (long waited = 0; waited < ms; waited += 10) {
        if (call->is_cancelled(call)) { say(reply, "cancelled"); return CLUBHOUSE_CANCELLED; }
        struct timespec step = {0, 10 * 1000 * 1000};
        nanosleep(&step, NULL);
    }
#endif
    say(reply, "{\"data\":{\"request\":");
    reply->write(reply, request, length);
    say(reply, "}}");
    return CLUBHOUSE_OK;
}

static const char *const services[] = {NULL};

static const clubhouse_plugin_descriptor descriptor = {
    .magic = CLUBHOUSE_MAGIC,
    .abi_major = CLUBHOUSE_ABI_MAJOR,
    .abi_minor = CLUBHOUSE_ABI_MINOR,
    .struct_size = sizeof(clubhouse_plugin_descriptor),
    .id = FIXTURE_ID,
    .version = FIXTURE_VERSION,
    .name = "Routes fixture",
    .summary = "Routes the host must refuse or keep apart",
    .build = "abi=1.0;lang=c",
    .services = services,
    .describe = rt_describe,
    .create = rt_create,
    .destroy = rt_destroy,
    .invoke = rt_invoke,
};

__attribute__((visibility("default")))
const clubhouse_plugin_descriptor *clubhouse_plugin_entry(const clubhouse_host_info *info) {
    (void)info;
    return &descriptor;
}
