/*
 * Hostile plugins for the isolated-plugin runner (Host/Sources/ClubhouseHost/Runner/). Each one
 * attacks the host from inside a runner child process; RunnerHostileEndToEndTests performs the
 * attacks. Variants (-D FIXTURE_<name>):
 *
 *   FIXTURE_HOSTILE          the commands below
 *   FIXTURE_FORGE            its constructor writes a forged hello claiming the id
 *                            "../victim/org.clubhouse.practice" and hides the runner's real hello
 *   FIXTURE_FORGE_LATER      the same with the id "org.clubhouse.practice", but only once the
 *                            command "arm" has left a marker (so the first runner is honest and
 *                            the restarted one lies)
 *   FIXTURE_INVOKE_IN_CREATE create invokes config "target"'s "hello" before it returns
 *
 * Commands: hello; busy (logs and reports progress until cancelled, at most 20 s); poll (polls
 * is_cancelled quietly until cancelled, at most 20 s) — both first leave $CLUBHOUSE_DATA_DIR/<command>.started; spin (burns CPU forever, ignores
 * cancellation); chatty (logs forever, ignores cancellation); bigframe (announces a 300 MB log
 * frame and streams it); hog (mallocs 2 GB); files (opens /dev/null until refused, replies the
 * count); forkhold (forks a child that holds the runner's pipes and sleeps, writes its pid to
 * $CLUBHOUSE_DATA_DIR/forkhold.pid, then crashes); steal (creates a table in its database); arm;
 * pid (replies the runner's process id); forkidle (forks a child that holds the runner's pipes for a
 * minute, writes its pid to $CLUBHOUSE_DATA_DIR/forkidle.pid, replies the runner's process id).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.hostile"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"

#define CATALOGUE                                                                                              \
    "{\"commands\":["                                                                                          \
    "{\"name\":\"hello\",\"summary\":\"Say hello\",\"arguments\":[]},"                                          \
    "{\"name\":\"busy\",\"summary\":\"Log until cancelled\",\"arguments\":[]},"                                 \
    "{\"name\":\"poll\",\"summary\":\"Poll quietly until cancelled\",\"arguments\":[]},"                        \
    "{\"name\":\"spin\",\"summary\":\"Burn CPU\",\"arguments\":[]},"                                            \
    "{\"name\":\"chatty\",\"summary\":\"Log forever\",\"arguments\":[]},"                                       \
    "{\"name\":\"bigframe\",\"summary\":\"A 300 MB log frame\",\"arguments\":[]},"                              \
    "{\"name\":\"hog\",\"summary\":\"Allocate 2 GB\",\"arguments\":[]},"                                        \
    "{\"name\":\"files\",\"summary\":\"Open files until refused\",\"arguments\":[]},"                           \
    "{\"name\":\"forkhold\",\"summary\":\"Fork a child holding the pipes, then crash\",\"arguments\":[]},"      \
    "{\"name\":\"steal\",\"summary\":\"Write into its database\",\"arguments\":[]},"                            \
    "{\"name\":\"arm\",\"summary\":\"Leave the marker, then crash\",\"arguments\":[]},"                         \
    "{\"name\":\"pid\",\"summary\":\"The runner's process id\",\"arguments\":[]},"                              \
    "{\"name\":\"forkidle\",\"summary\":\"Fork a child holding the pipes, then return\",\"arguments\":[]}"        \
    "]}"

/* A reply that collects into a fixed buffer. */
typedef struct { clubhouse_reply reply; char text[512]; size_t length; } collected;
static void collect(const clubhouse_reply *reply, const char *bytes, size_t length) {
    collected *c = (collected *)reply;
    for (size_t i = 0; i < length && c->length + 1 < sizeof c->text; i++) c->text[c->length++] = bytes[i];
    c->text[c->length] = 0;
}
static void __attribute__((unused)) collected_init(collected *c) {
    memset(c, 0, sizeof *c);
    c->reply.struct_size = sizeof(clubhouse_reply);
    c->reply.write = collect;
}

static void marker_path(char *out, size_t capacity, const char *name) {
    const char *dir = getenv("CLUBHOUSE_DATA_DIR");
    snprintf(out, capacity, "%s/%s", dir ? dir : "/tmp", name);
}

/* Forks a child that holds the runner's pipes (fds 3 and 4) for a minute; its pid goes to <data>/<marker>. */
static void fork_holder(const char *marker) {
    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < 600; i++) usleep(100000);
        _exit(0);
    }
    char path[512];
    marker_path(path, sizeof path, marker);
    FILE *f = fopen(path, "w");
    if (f) { fprintf(f, "%d\n", (int)child); fclose(f); }
}

#if defined(FIXTURE_FORGE) || defined(FIXTURE_FORGE_LATER)
/* The runner's reply pipe, kept while the real fd 4 points at /dev/null. */
static int saved_pipe = -1;

static void write_frame(int fd, unsigned char kind, const char *payload, uint32_t n) {
    unsigned char head[5];
    uint32_t length = n + 1;
    for (int i = 0; i < 4; i++) head[i] = (unsigned char)(length >> (8 * i));
    head[4] = kind;
    if (write(fd, head, 5) != 5 || write(fd, payload, n) != (ssize_t)n) _exit(9);
}

/* Before the runner says hello, say it in its place with another id, then silence the real one. */
__attribute__((constructor)) static void forge_hello(void) {
    struct stat st;
    if (fstat(4, &st) != 0 || !S_ISFIFO(st.st_mode)) return; /* not in a runner */
#ifdef FIXTURE_FORGE
    const char *id = "../victim/org.clubhouse.practice";
#else
    char marker[512];
    marker_path(marker, sizeof marker, "forge.marker");
    if (access(marker, F_OK) != 0) return;
    const char *id = "org.clubhouse.practice";
#endif
    static char json[4096];
    char catalogue[2048];
    size_t n = 0;
    for (const char *p = CATALOGUE; *p && n + 2 < sizeof catalogue; p++) {
        if (*p == '"') catalogue[n++] = '\\';
        catalogue[n++] = *p;
    }
    catalogue[n] = 0;
    int length = snprintf(json, sizeof json,
                          "{\"id\":\"%s\",\"version\":\"1.0.0\",\"name\":\"Forged\",\"summary\":\"x\",\"build\":\"abi=1.0;lang=c\","
                          "\"abi_major\":1,\"abi_minor\":0,\"struct_size\":%d,\"thread_safe\":false,"
                          "\"services\":[\"" CLUBHOUSE_SERVICE_STORAGE "\"],\"catalogue\":\"%s\"}",
                          id, (int)sizeof(clubhouse_plugin_descriptor), catalogue);
    static char payload[4200];
    memset(payload, 0, 4);                       /* status OK */
    uint32_t len = (uint32_t)length;
    for (int i = 0; i < 4; i++) payload[4 + i] = (char)(len >> (8 * i));
    memcpy(payload + 8, json, (size_t)length);
    write_frame(4, 10, payload, (uint32_t)length + 8);
    saved_pipe = dup(4);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 4);
    close(null);
}
#endif

static clubhouse_status hx_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, CATALOGUE);
    return CLUBHOUSE_OK;
}

static clubhouse_status hx_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
#if defined(FIXTURE_FORGE) || defined(FIXTURE_FORGE_LATER)
    if (saved_pipe >= 0) { dup2(saved_pipe, 4); close(saved_pipe); saved_pipe = -1; }
#endif
#ifdef FIXTURE_INVOKE_IN_CREATE
    const clubhouse_config_service *config = host->get_service(host, CLUBHOUSE_SERVICE_CONFIG);
    const clubhouse_invoke_service *invoke = host->get_service(host, CLUBHOUSE_SERVICE_INVOKE);
    if (!config || !invoke) { say(reply, "no config or invoke service"); return CLUBHOUSE_ERROR; }
    collected target;
    collected_init(&target);
    if (config->get(host, "target", &target.reply) != CLUBHOUSE_OK || target.length < 2) {
        say(reply, "config has no \"target\"");
        return CLUBHOUSE_ERROR;
    }
    target.text[target.length - 1] = 0; /* strip the JSON quotes */
    collected answer;
    collected_init(&answer);
    static const char request[] = "{\"arguments\":{}}";
    clubhouse_status status = invoke->invoke(host, NULL, target.text + 1, "hello", request, sizeof request - 1, &answer.reply);
    if (status != CLUBHOUSE_OK) {
        say(reply, "invoking during create failed: ");
        say(reply, answer.text);
        return status;
    }
#endif
    return fixture_create(host, instance);
}

static void hx_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static clubhouse_status hx_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    fixture *h = instance;
    const clubhouse_host *host = h->host;
    const clubhouse_log_service *log = host->get_service(host, CLUBHOUSE_SERVICE_LOG);
    const clubhouse_progress_service *progress = host->get_service(host, CLUBHOUSE_SERVICE_PROGRESS);
    if (strcmp(command, "hello") == 0) {
        say(reply, "{\"data\":{\"hello\":\"" FIXTURE_ID "\"},\"text\":\"hello from " FIXTURE_ID "\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "busy") == 0 || strcmp(command, "poll") == 0) {
        int chatty = strcmp(command, "busy") == 0;
        double start = now_seconds();
        char started[512];
        marker_path(started, sizeof started, chatty ? "busy.started" : "poll.started");
        FILE *f = fopen(started, "w");
        if (f) fclose(f);
        if (chatty && progress) progress->begin(call, "busy", 0);
        unsigned long n = 0;
        while (now_seconds() - start < 20) {
            if (call->is_cancelled(call)) {
                say(reply, "the fixture saw is_cancelled and stopped");
                return CLUBHOUSE_CANCELLED;
            }
            if (chatty) {
                if (log) log->write(host, CLUBHOUSE_LOG_DEBUG, "busy, still busy");
                if (progress) progress->update(call, ++n);
            } else {
                usleep(1000);
            }
        }
        say(reply, "{\"data\":\"finished without seeing a cancel\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "spin") == 0) { for (volatile unsigned long i = 0;; i++) {} }
    if (strcmp(command, "chatty") == 0) {
        for (;;) {
            if (log) log->write(host, CLUBHOUSE_LOG_DEBUG, "chatter");
            usleep(2000);
        }
    }
    if (strcmp(command, "bigframe") == 0) {
        /* A log frame of 300 MB: the header first, then the body in 1 MB pieces. */
        uint32_t length = (300u << 20) + 1;
        unsigned char head[5] = {(unsigned char)length, (unsigned char)(length >> 8), (unsigned char)(length >> 16),
                                 (unsigned char)(length >> 24), 13};
        if (write(4, head, 5) != 5) { say(reply, "not in a runner"); return CLUBHOUSE_ERROR; }
        static char chunk[1 << 20];
        memset(chunk, 'A', sizeof chunk);
        chunk[0] = 1; chunk[1] = 0; chunk[2] = 0; chunk[3] = 0; /* level 1, then a length that runs to the end */
        uint32_t text = (300u << 20) - 8;
        for (int i = 0; i < 4; i++) chunk[4 + i] = (char)(text >> (8 * i));
        for (int i = 0; i < 300; i++) {
            if (write(4, chunk, sizeof chunk) != (ssize_t)sizeof chunk) break;
            if (i == 0) memset(chunk, 'A', 8);
        }
        say(reply, "{\"data\":\"sent\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "hog") == 0) {
        char *block = malloc((size_t)2 << 30);
        if (!block) { say(reply, "the fixture could not allocate 2 GB"); return CLUBHOUSE_ERROR; }
        block[0] = 1;
        say(reply, "{\"data\":\"allocated 2 GB\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "files") == 0) {
        int count = 0;
        while (count < 100000 && open("/dev/null", O_RDONLY) >= 0) count++;
        char text[64];
        snprintf(text, sizeof text, "{\"data\":%d}", count);
        say(reply, text);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "forkhold") == 0) {
        fork_holder("forkhold.pid");
        *(volatile int *)(uintptr_t)8 = 1;
    }
    if (strcmp(command, "pid") == 0 || strcmp(command, "forkidle") == 0) {
        if (command[0] == 'f') fork_holder("forkidle.pid");
        char text[64];
        snprintf(text, sizeof text, "{\"data\":%d}", (int)getpid());
        say(reply, text);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "steal") == 0) {
        const clubhouse_storage_service *storage = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
        if (!storage) { say(reply, "no storage granted"); return CLUBHOUSE_DENIED; }
        clubhouse_status status = storage->exec(host, "CREATE TABLE IF NOT EXISTS stolen(x); INSERT INTO stolen VALUES (1)", reply);
        if (status != CLUBHOUSE_OK) return status;
        say(reply, "{\"data\":\"wrote into the database\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "arm") == 0) {
        char path[512];
        marker_path(path, sizeof path, "forge.marker");
        FILE *f = fopen(path, "w");
        if (f) fclose(f);
        *(volatile int *)(uintptr_t)8 = 1;
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, NULL};

FIXTURE_PLUGIN(hx, "Hostile", "A plugin that attacks the host from its runner", services)
