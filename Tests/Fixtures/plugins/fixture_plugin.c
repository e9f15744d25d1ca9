/*
 * Broken and special plugins for the end-to-end tests, one source compiled with a -D per variant
 * (the tests build them into a scratch folder). Each variant breaks exactly one rule:
 *
 *   FIXTURE_OK               a minimal valid plugin (id from FIXTURE_ID, version FIXTURE_VERSION)
 *   FIXTURE_NO_ENTRY         exports no clubhouse_plugin_entry
 *   FIXTURE_BAD_MAGIC        descriptor magic is wrong
 *   FIXTURE_ABI_MAJOR        built for ABI 2.x
 *   FIXTURE_ABI_NEWER_MINOR  built for ABI 1.7 with a bigger descriptor (must be accepted)
 *   FIXTURE_SMALL_STRUCT     struct_size smaller than ABI 1.0's descriptor
 *   FIXTURE_SWIFT_MISMATCH   claims to be a Swift plugin from another toolchain
 *   FIXTURE_DECLINE          entry returns NULL
 *   FIXTURE_CREATE_FAILS     create returns an error with a message
 *   FIXTURE_NULL_INVOKE      descriptor without an invoke function
 *   FIXTURE_BAD_CATALOGUE    describe returns a catalogue with problems
 *   FIXTURE_HOST_TOPIC       declares the topic clubhouse.missed (the host's own signal)
 *   FIXTURE_WAT_ARGUMENT     a catalogue whose one problem is an argument of type "wat" (pack and install refuse it)
 *   FIXTURE_BAD_SCHEMA       a config_schema with a keyword outside the subset the host checks
 *   FIXTURE_ODD_DESCRIPTOR   needs a service no host offers and has an empty name (pack refuses it)
 *   FIXTURE_SEGV_CREATE      crashes in create (validate must survive it)
 *   FIXTURE_NOSY             tries to ATTACH another database and to change host tables
 *   FIXTURE_SLOW             hangs in create (validate must time out)
 *
 * Every variant that gets as far as invoke also answers the fault commands the isolation tests
 * use: crash (SIGSEGV), abort (SIGABRT), trap (SIGILL, what Swift's fatalError raises), hang (a
 * busy loop that ignores cancellation), garbage (writes junk into the runner's pipe), malformed
 * (a reply that is not JSON), leak (allocates 64 MB and never frees it), badframe --case N (a
 * well-framed message on the runner's pipe that breaks the protocol; see fx_bad_frame).
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h" /* FIXTURE_ID defaults to "org.tests.fixture", FIXTURE_VERSION to "1.0.0" */

static clubhouse_status fx_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
#ifdef FIXTURE_BAD_CATALOGUE
    say(reply, "{\"commands\":[{\"name\":\"go\",\"arguments\":[{\"name\":\"json\",\"type\":\"wibble\"}]},{\"name\":\"go\",\"summary\":\"again\"}]}");
#elif defined(FIXTURE_HOST_TOPIC)
    say(reply, "{\"commands\":[{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]}],"
               "\"topics\":[{\"name\":\"clubhouse.missed\",\"summary\":\"Looks like the host's\"}]}");
#elif defined(FIXTURE_WAT_ARGUMENT)
    say(reply, "{\"commands\":[{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]},"
               "{\"name\":\"serve ball\",\"summary\":\"Serve a ball\",\"arguments\":[{\"name\":\"speed\",\"type\":\"wat\"}]}]}");
#elif defined(FIXTURE_BAD_SCHEMA)
    say(reply, "{\"config_schema\":{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"pattern\":\"^[A-Z]+$\"}}},"
               "\"commands\":[{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]}]}");
#else
    say(reply, "{\"commands\":["
               "{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]},"
               "{\"name\":\"fail\",\"summary\":\"Always fails\",\"arguments\":[]},"
               "{\"name\":\"attach\",\"summary\":\"Try to reach another database\",\"arguments\":["
               "{\"name\":\"sql\",\"type\":\"string\",\"required\":true}]},"
               "{\"name\":\"crash\",\"summary\":\"Segfault\",\"arguments\":[]},"
               "{\"name\":\"abort\",\"summary\":\"abort()\",\"arguments\":[]},"
               "{\"name\":\"trap\",\"summary\":\"Trap like fatalError\",\"arguments\":[]},"
               "{\"name\":\"hang\",\"summary\":\"Loop forever\",\"arguments\":[]},"
               "{\"name\":\"garbage\",\"summary\":\"Write junk into the runner pipe\",\"arguments\":[]},"
               "{\"name\":\"malformed\",\"summary\":\"Reply with something that is not JSON\",\"arguments\":[]},"
               "{\"name\":\"leak\",\"summary\":\"Allocate 64 MB and never free it\",\"arguments\":[]},"
               "{\"name\":\"badframe\",\"summary\":\"Send the host a well-framed but wrong message\",\"arguments\":["
               "{\"name\":\"case\",\"type\":\"integer\",\"required\":true}]}"
               "]}");
#endif
    return CLUBHOUSE_OK;
}

static clubhouse_status fx_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self;
#ifdef FIXTURE_CREATE_FAILS
    (void)host; (void)instance;
    say(reply, "the fixture refuses to start: its licence file is missing");
    return CLUBHOUSE_ERROR;
#else
#ifdef FIXTURE_SEGV_CREATE
    *(volatile int *)(uintptr_t)8 = 1; /* a real fault, not a raise() a handler could return from */
#endif
#ifdef FIXTURE_SLOW
    for (;;) sleep(1);
#endif
    (void)reply;
    return fixture_create(host, instance);
#endif
}

static void fx_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* Finds the "sql" argument's string value (fixture-grade: no escapes). */
static const char *sql_argument(const char *request, size_t length, char *out, size_t capacity) {
    const char *key = "\"sql\":\"";
    const char *p = NULL;
    for (size_t i = 0; i + strlen(key) <= length; i++) {
        if (memcmp(request + i, key, strlen(key)) == 0) { p = request + i + strlen(key); break; }
    }
    if (!p) return NULL;
    size_t n = 0;
    while (p + n < request + length && p[n] != '"' && n + 1 < capacity) { out[n] = p[n]; n++; }
    out[n] = 0;
    return out;
}

/* Writes one frame, [u32 length LE][u8 kind][payload], onto the runner's reply pipe (fd 4). */
static int fx_frame(unsigned char kind, const unsigned char *payload, uint32_t n) {
    unsigned char frame[64];
    uint32_t length = n + 1;
    if (n + 5 > sizeof frame) return -1;
    for (int i = 0; i < 4; i++) frame[i] = (unsigned char)(length >> (8 * i));
    frame[4] = kind;
    if (n > 0) memcpy(frame + 5, payload, n);
    return write(4, frame, n + 5) == (ssize_t)(n + 5) ? 0 : -1;
}

/* Protocol violations the host must survive (Host/Sources/Wire/Wire.swift has the kinds):
 * 1 a service call with an unknown operation; 2 a service call cut short; 3 a result whose reply
 * field is cut short; 4 a kind that does not exist; 5 a host-to-runner kind (create) sent back;
 * 6 one-way messages with nonsense (unknown statement and device handles, a progress stage
 * that does not exist, a truncated log line), which are ignored: the call then succeeds. */
static int fx_bad_frame(int which) {
    static const unsigned char unknown_op[] = {1, 0, 0, 0, 255};
    static const unsigned char short_call[] = {1, 0};
    static const unsigned char short_result[] = {0, 0, 0, 0, 200, 0, 0, 0, 'x'};
    static const unsigned char handle[] = {77, 0, 0, 0};
    static const unsigned char progress[] = {0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char log_line[] = {2, 0, 0, 0, 90, 0, 0, 0, 'h'};
    switch (which) {
    case 1: return fx_frame(12, unknown_op, sizeof unknown_op);
    case 2: return fx_frame(12, short_call, sizeof short_call);
    case 3: return fx_frame(11, short_result, sizeof short_result);
    case 4: return fx_frame(99, NULL, 0);
    case 5: return fx_frame(1, NULL, 0);
    case 6:
        return fx_frame(15, handle, sizeof handle) || fx_frame(16, handle, sizeof handle) ||
               fx_frame(14, progress, sizeof progress) || fx_frame(13, log_line, sizeof log_line);
    default: return -1;
    }
}

static clubhouse_status fx_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)call;
    fixture *f = instance;
    if (strcmp(command, "hello") == 0) {
        say(reply, "{\"data\":{\"hello\":\"" FIXTURE_ID "\"},\"text\":\"hello from " FIXTURE_ID "\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "crash") == 0) { *(volatile int *)(uintptr_t)8 = 1; }
    if (strcmp(command, "abort") == 0) { abort(); }
    if (strcmp(command, "trap") == 0) { __builtin_trap(); }
    if (strcmp(command, "hang") == 0) { for (volatile unsigned long i = 0;; i++) {} }
    if (strcmp(command, "badframe") == 0) {
        const char *key = "\"case\":";
        int which = 0;
        for (size_t i = 0; request && i + strlen(key) < length; i++) {
            if (memcmp(request + i, key, strlen(key)) == 0) { which = request[i + strlen(key)] - '0'; break; }
        }
        if (fx_bad_frame(which) != 0) { say(reply, "not in a runner, or no such case"); return CLUBHOUSE_ERROR; }
        sleep(1);
        say(reply, "{\"data\":\"survived\",\"text\":\"survived\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "garbage") == 0) {
        static const char junk[] = "\xff\xff\xff\x7fTHIS IS NOT A FRAME";
        if (write(4, junk, sizeof junk) < 0) say(reply, "not in a runner");
        sleep(2);
        say(reply, "{\"data\":null}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "malformed") == 0) { say(reply, "{\"data\": [1, 2"); return CLUBHOUSE_OK; }
    if (strcmp(command, "leak") == 0) {
        char *block = malloc(64u << 20);
        if (block) memset(block, 1, 64u << 20);
        say(reply, "{\"data\":\"leaked 64 MB\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "fail") == 0) {
        say(reply, "the fixture failed on purpose: no balls left in the hopper; refill it and retry");
        return CLUBHOUSE_ERROR;
    }
    if (strcmp(command, "attach") == 0) {
        const clubhouse_storage_service *storage = f->host->get_service(f->host, CLUBHOUSE_SERVICE_STORAGE);
        if (!storage) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
        char sql[512];
        if (!sql_argument(request, length, sql, sizeof sql)) { say(reply, "missing sql"); return CLUBHOUSE_INVALID_ARGUMENT; }
        clubhouse_status status = storage->exec(f->host, sql, reply);
        if (status != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"the statement ran\"}");
        return CLUBHOUSE_OK;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

#ifdef FIXTURE_ODD_DESCRIPTOR
static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, "clubhouse.teleport/1", NULL};
#else
static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};
#endif

#ifdef FIXTURE_ABI_NEWER_MINOR
/* A descriptor from a future ABI 1.7: the same fields plus one more at the end. */
typedef struct { clubhouse_plugin_descriptor v1; const char *homepage; } descriptor_v1_7;
static const descriptor_v1_7 descriptor_storage = {{
#else
static const clubhouse_plugin_descriptor descriptor_storage = {
#endif
#ifdef FIXTURE_BAD_MAGIC
    .magic = 0xDEADBEEFu,
#else
    .magic = CLUBHOUSE_MAGIC,
#endif
#ifdef FIXTURE_ABI_MAJOR
    .abi_major = 2,
#else
    .abi_major = CLUBHOUSE_ABI_MAJOR,
#endif
#ifdef FIXTURE_ABI_NEWER_MINOR
    .abi_minor = 7,
    .struct_size = sizeof(descriptor_v1_7),
#elif defined(FIXTURE_SMALL_STRUCT)
    .abi_minor = CLUBHOUSE_ABI_MINOR,
    .struct_size = 24,
#else
    .abi_minor = CLUBHOUSE_ABI_MINOR,
    .struct_size = sizeof(clubhouse_plugin_descriptor),
#endif
    .flags = 0,
    .id = FIXTURE_ID,
    .version = FIXTURE_VERSION,
#ifdef FIXTURE_ODD_DESCRIPTOR
    .name = "",
#else
    .name = "Fixture",
#endif
    .summary = "A plugin built by the tests",
#ifdef FIXTURE_SWIFT_MISMATCH
    .build = "abi=" CLUBHOUSE_ABI_VERSION_STRING ";lang=swift;swift=5.9.2;target=x86_64-unknown-linux-gnu",
#else
    .build = CLUBHOUSE_BUILD_C,
#endif
    .services = services,
    .describe = fx_describe,
    .create = fx_create,
    .destroy = fx_destroy,
#ifdef FIXTURE_NULL_INVOKE
    .invoke = NULL,
#else
    .invoke = fx_invoke,
#endif
#ifdef FIXTURE_ABI_NEWER_MINOR
}, "https://example.org/fixture"};
#define DESCRIPTOR (&descriptor_storage.v1)
#else
};
#define DESCRIPTOR (&descriptor_storage)
#endif

#ifndef FIXTURE_NO_ENTRY
CLUBHOUSE_EXPORT
const clubhouse_plugin_descriptor *clubhouse_plugin_entry(const clubhouse_host_info *info) {
    (void)info;
#ifdef FIXTURE_DECLINE
    return NULL;
#else
    return DESCRIPTOR;
#endif
}
#else
CLUBHOUSE_EXPORT int not_a_plugin(void) { return 42; }
#endif
