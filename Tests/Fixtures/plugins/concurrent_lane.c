/*
 * A thread-safe plugin with a "concurrent" command (entry.h, ABI 1.6), for the runner's second lane
 * (Host/Sources/ClubhouseHost/Runner/SideLane.swift; Tests/EndToEndTests/SideLaneEndToEndTests.swift).
 * Commands:
 *   hold      waits (in 10 ms slices, at most 20 s) until `release` is called or the call is cancelled;
 *             answers {"released": true|false};
 *   release   "concurrent": sets the flag `hold` waits for, then tries the storage service
 *             (exec "SELECT 1") and answers {"released": true, "storage": STATUS, "message": "…"}.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

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
               "{\"name\":\"release\",\"summary\":\"Release hold, then try storage\",\"concurrent\":true,\"arguments\":[]}"
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

/* A reply sink that keeps what is written (up to 511 bytes) in caller_data, a char[512]. */
static void keep(const clubhouse_reply *reply, const char *bytes, size_t length) {
    char *kept = (char *)reply->caller_data;
    size_t used = strlen(kept);
    size_t n = length < 511 - used ? length : 511 - used;
    memcpy(kept + used, bytes, n);
    kept[used + n] = 0;
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
    atomic_store(&released, 1);
    const clubhouse_storage_service *storage = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
    char message[512] = {0};
    clubhouse_reply sink = {sizeof sink, message, keep};
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
