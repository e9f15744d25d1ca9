/*
 * The progress unit and the styled-text flag of ABI 1.2 (Tests/EndToEndTests/TerminalEndToEndTests.swift),
 * one source compiled with a -D per variant:
 *
 *   FIXTURE_UNITS  "units": a stage whose set_unit gets a unit no host knows (77: counted as items,
 *                  never a crash), then a stage in bytes (3 MiB); set_unit is probed with
 *                  CLUBHOUSE_TABLE_HAS as the header asks. "styled": a two-line table whose
 *                  header is bold only when the call has CLUBHOUSE_CALL_STYLED_TEXT.
 *   FIXTURE_OLD    the same commands as a plugin built before 1.2 would have them: abi_minor 1,
 *                  never calls set_unit and ignores the flag (the host's larger table and new flag
 *                  change nothing for it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.units"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"

static clubhouse_status pu_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"units\",\"summary\":\"Two stages: an unknown unit, then bytes\",\"long_running\":true,\"arguments\":[]},"
               "{\"name\":\"styled\",\"summary\":\"A table, bold header on a colour terminal\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status pu_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void pu_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static void set_unit(const clubhouse_progress_service *progress, const clubhouse_call *call, uint32_t unit) {
#ifdef FIXTURE_OLD
    (void)progress; (void)call; (void)unit;
#else
    if (CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, progress, set_unit)) progress->set_unit(call, unit);
#endif
}

static clubhouse_status pu_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    fixture *f = instance;
    if (strcmp(command, "units") == 0) {
        const clubhouse_progress_service *progress = f->host->get_service(f->host, CLUBHOUSE_SERVICE_PROGRESS);
        if (!progress) { say(reply, "no progress service"); return CLUBHOUSE_ERROR; }
        progress->begin(call, "odd units", 4096);
        set_unit(progress, call, 77u);  /* no such unit: the host counts items */
        set_unit(progress, NULL, CLUBHOUSE_PROGRESS_UNIT_BYTES); /* no call: ignored */
        for (uint64_t i = 1; i <= 4; i++) {
            usleep(60 * 1000);
            progress->update(call, i * 1024);
        }
        const uint64_t total = 3u * 1024u * 1024u;
        progress->begin(call, "bytes stage", total);
        set_unit(progress, call, CLUBHOUSE_PROGRESS_UNIT_BYTES);
        for (uint64_t i = 1; i <= 6; i++) {
            if (call->is_cancelled(call)) { say(reply, "cancelled"); return CLUBHOUSE_CANCELLED; }
            usleep(120 * 1000);
            progress->update(call, i * total / 8);
        }
        progress->end(call);
        say(reply, "{\"data\":{\"done\":true},\"text\":\"units done\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "styled") == 0) {
#ifdef FIXTURE_OLD
        int styled = 0;
#else
        /* The header's rule: escape sequences only when the host sets CLUBHOUSE_CALL_STYLED_TEXT. */
        int styled = (call->flags & CLUBHOUSE_CALL_STYLED_TEXT) != 0;
#endif
        char text[512];
        snprintf(text, sizeof text, "{\"data\":{\"styled\":%s},\"text\":\"%sNAME   CLUB%s\\nfirst  7i\\n\"}",
                 styled ? "true" : "false", styled ? "\\u001b[1m" : "", styled ? "\\u001b[0m" : "");
        say(reply, text);
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_PROGRESS, NULL};

#ifdef FIXTURE_OLD
/* As a plugin built against ABI 1.1 wrote its descriptor and entry. */
static const clubhouse_plugin_descriptor descriptor = {
    .magic = CLUBHOUSE_MAGIC, .abi_major = 1, .abi_minor = 1, .struct_size = sizeof(clubhouse_plugin_descriptor),
    .id = FIXTURE_ID, .version = FIXTURE_VERSION, .name = "Progress units fixture (1.1)",
    .summary = "A plugin built by the terminal tests", .build = "abi=1.1;lang=c", .services = services,
    .describe = pu_describe, .create = pu_create, .destroy = pu_destroy, .invoke = pu_invoke,
};

__attribute__((visibility("default")))
const clubhouse_plugin_descriptor *clubhouse_plugin_entry(const clubhouse_host_info *info) {
    (void)info;
    return &descriptor;
}
#else
FIXTURE_PLUGIN(pu, "Progress units fixture", "A plugin built by the terminal tests", services)
#endif
