/*
 * A plugin that crashes on demand, for the host's crash-loop back-off (CrashLoop.swift;
 * Tests/EndToEndTests/CrashLoopEndToEndTests.swift). Run isolated (`process`): every runner that
 * creates it appends "start <CLOCK_MONOTONIC ns>" to $CLUBHOUSE_DATA_DIR/crash_loop.log, and `crash`
 * appends "crash <ns>" there before it writes to address 8 (the runner dies by SIGSEGV), so a test
 * reads when each runner started beside when the one before it died. Commands: crash; hello (answers
 * {"pid": N}, the runner's).
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.crashloop"
#endif
#include "fixture.h"

/* Appends "<what> <monotonic ns>\n" to the log in the data directory (one write: whole lines). */
static void note(const char *what) {
    const char *dir = getenv("CLUBHOUSE_DATA_DIR");
    if (!dir) return;
    char path[4096], line[128];
    snprintf(path, sizeof path, "%s/crash_loop.log", dir);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int n = snprintf(line, sizeof line, "%s %llu\n", what, (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) < 0) { /* nothing to do: the test sees the line missing */ }
    close(fd);
}

static clubhouse_status loop_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"hello\",\"summary\":\"Say which runner answers\",\"arguments\":[]},"
               "{\"name\":\"crash\",\"summary\":\"Crash the runner (SIGSEGV)\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status loop_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                    const clubhouse_reply *reply) {
    (void)self; (void)reply;
    note("start");
    return fixture_create(host, instance);
}

static void loop_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static clubhouse_status loop_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                    const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)request; (void)length;
    if (strcmp(command, "crash") == 0) {
        note("crash");
        volatile int *p = (volatile int *)8;
        *p = 1;
    }
    char text[64];
    snprintf(text, sizeof text, "{\"data\":{\"pid\":%d}}", (int)getpid());
    say(reply, text);
    return CLUBHOUSE_OK;
}

static const char *const services[] = {NULL};

FIXTURE_PLUGIN(loop, "Crash loop", "Crashes on demand", services)
