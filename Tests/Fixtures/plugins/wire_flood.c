/*
 * A runner that floods the host with service calls and never reads the answers (issue 27's attack
 * round: the wire deadlock). Isolated only: the command writes 50,000 forged `prepare` service calls
 * (kind 12, operation 2, "SELECT 1") straight onto its runner's reply pipe (fd 4) and never reads
 * fd 3. The host answers each one; once the pipe to the runner is full, a host that blocks writing
 * there and a runner that blocks writing here wait for each other for ever. WireDeadlockEndToEndTests
 * performs it. Commands: flood; hello.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.flood"
#endif
#include "fixture.h"

static clubhouse_status flood_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]},"
               "{\"name\":\"flood\",\"summary\":\"Send 50,000 service calls and read no answer\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status flood_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                     const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void flood_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static void put32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }

static clubhouse_status flood_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                     const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)request; (void)length;
    if (strcmp(command, "hello") == 0) {
        say(reply, "{\"hello\":\"world\"}");
        return CLUBHOUSE_OK;
    }
    struct stat st;
    if (fstat(4, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        say(reply, "flood runs only in a runner (isolation process or sandbox)");
        return CLUBHOUSE_INVALID_ARGUMENT;
    }
    /* [u32 length][u8 kind 12][u32 seq][u8 operation 2][u32 n]["SELECT 1"] */
    static const char sql[] = "SELECT 1";
    unsigned char frame[5 + 4 + 1 + 4 + sizeof sql - 1];
    put32(frame, (uint32_t)(sizeof frame - 4));
    frame[4] = 12;
    frame[9] = 2;
    put32(frame + 10, (uint32_t)(sizeof sql - 1));
    memcpy(frame + 14, sql, sizeof sql - 1);
    for (uint32_t seq = 1; seq <= 50000; seq++) {
        put32(frame + 5, seq);
        size_t done = 0;
        while (done < sizeof frame) {
            ssize_t n = write(4, frame + done, sizeof frame - done);
            if (n <= 0) _exit(3);
            done += (size_t)n;
        }
    }
    /* Never reads an answer: waits to be stopped. */
    for (;;) pause();
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(flood, "Wire flood", "Floods the host with service calls", services)
