/*
 * hostile_capabilities.c — a plugin that tries to give itself path capabilities its caller never
 * named (issue 27's independent attack round), and to write lines that pose as the host's.
 *
 *   steal --file F --outf O   reads F and writes "PWNED secret=<first line of F>" to O through
 *                             clubhouse.files/1; reports each status (the honest use of the service)
 *   defaults                  (variant DEFAULTS only) the same, but the catalogue gives both path
 *                             arguments a DEFAULT naming files the caller never passed
 *   background --secret S --victim V   (string arguments, not paths) replies at once and asks the host
 *                             to run "steal" in the background with S and V as its path arguments
 *   forge-log                 logs a message with a newline, a line posing as the host's and
 *                             terminal escape sequences
 *
 * Built by the tests' FixturePlugins (-DFIXTURE_ID, -DFIXTURE_DEFAULTS for the variant with defaults,
 * -DFIXTURE_ESCAPES for escape sequences and newlines in its name, summary and catalogue).
 * Without the host's checks every one of them worked on a sandboxed plugin (issue 27's independent
 * attack round): the background request and the defaults read and wrote files the caller never named.
 */
#include "clubhouse.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.hostile.capabilities"
#endif

static const clubhouse_host *g_host;

static void put(const clubhouse_reply *reply, const char *text) { reply->write(reply, text, strlen(text)); }

static void discard(const clubhouse_reply *reply, const char *bytes, size_t length) {
    (void)reply; (void)bytes; (void)length;
}

/* The value of string argument `key` (no escapes: the tests pass plain paths). */
static int string_argument(const char *request, size_t length, const char *key, char *out, size_t capacity) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    size_t plen = strlen(pattern);
    for (size_t i = 0; i + plen < length; i++) {
        if (memcmp(request + i, pattern, plen) != 0) continue;
        size_t j = i + plen;
        while (j < length && request[j] == ' ') j++;
        if (j >= length || request[j] != '"') return 0;
        size_t k = 0;
        for (j++; j < length && request[j] != '"' && k + 1 < capacity; j++) out[k++] = request[j];
        out[k] = 0;
        return 1;
    }
    return 0;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_LOG, NULL};

static clubhouse_status describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    put(reply, "{\"commands\": ["
               "{\"name\": \"steal\", \"summary\": \"read file, write outf\", \"arguments\": ["
               "{\"name\": \"file\", \"type\": \"path\"},"
               "{\"name\": \"outf\", \"type\": \"path\", \"access\": \"write\"}]},"
#ifdef FIXTURE_DEFAULTS
               "{\"name\": \"defaults\", \"summary\": \"the same with path defaults\", \"arguments\": ["
               "{\"name\": \"file\", \"type\": \"path\", \"default\": \"/tmp/clubhouse-never-given-secret\"},"
               "{\"name\": \"outf\", \"type\": \"path\", \"access\": \"write\", \"default\": \"/tmp/clubhouse-never-given-victim\"}]},"
#endif
               "{\"name\": \"background\", \"summary\": \"asks for steal in the background\", \"arguments\": ["
               "{\"name\": \"secret\", \"type\": \"string\", \"required\": true},"
               "{\"name\": \"victim\", \"type\": \"string\", \"required\": true}]},"
#ifdef FIXTURE_ESCAPES
               "{\"name\": \"paint\", \"summary\": \"Att\\u001b[31mack\\nFORGED LINE\\u001b]0;owned\\u0007\", "
               "\"help\": \"two lines\\nof help\\u001b[2J\", \"arguments\": ["
               "{\"name\": \"colour\", \"type\": \"string\", \"help\": \"red\\u009b31m\"}]},"
#endif
               "{\"name\": \"forge-log\", \"summary\": \"a log line posing as the host's\", \"arguments\": []}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                               const clubhouse_reply *reply) {
    (void)self; (void)reply;
    g_host = host;
    *instance = (void *)1;
    return CLUBHOUSE_OK;
}

static void destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

static clubhouse_status steal(const clubhouse_call *call, const clubhouse_reply *reply) {
    const clubhouse_files_service *files = g_host->get_service(g_host, CLUBHOUSE_SERVICE_FILES);
    const clubhouse_reply quiet = {sizeof(clubhouse_reply), NULL, discard};
    char secret[128] = "";
    int fd = -1;
    clubhouse_status read_status = files->open_argument(call, "file", CLUBHOUSE_FILE_READ, &fd, &quiet);
    if (fd >= 0) {
        ssize_t n = read(fd, secret, sizeof secret - 1);
        if (n > 0) secret[n] = 0;
        char *newline = strchr(secret, '\n');
        if (newline) *newline = 0;
        close(fd);
    }
    int out = -1;
    clubhouse_status write_status = files->open_argument(call, "outf", CLUBHOUSE_FILE_WRITE, &out, &quiet);
    if (out >= 0) {
        dprintf(out, "PWNED secret=%s\n", secret);
        close(out);
    }
    char text[256];
    snprintf(text, sizeof text, "{\"data\": {\"read\": %d, \"write\": %d}}", read_status, write_status);
    put(reply, text);
    return CLUBHOUSE_OK;
}

static clubhouse_status invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                               const char *command, const char *request, size_t request_length,
                               const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)request; (void)request_length;
    if (strcmp(command, "steal") == 0 || strcmp(command, "defaults") == 0) return steal(call, reply);
    if (strcmp(command, "background") == 0) {
        char secret[512], victim[512], text[1200];
        if (!string_argument(request, request_length, "secret", secret, sizeof secret)
            || !string_argument(request, request_length, "victim", victim, sizeof victim)) {
            put(reply, "needs --secret and --victim");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        snprintf(text, sizeof text, "{\"data\": \"queued\", \"background\": {\"command\": \"steal\", \"arguments\": "
                 "{\"file\": \"%s\", \"outf\": \"%s\"}}}", secret, victim);
        put(reply, text);
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "forge-log") == 0) {
        const clubhouse_log_service *log = g_host->get_service(g_host, CLUBHOUSE_SERVICE_LOG);
        log->write(g_host, CLUBHOUSE_LOG_ERROR,
                   "first\n[clubhouse] error: FORGED by the plugin\x1b]0;owned\x07\x1b[2J\rEND");
        put(reply, "{\"data\": \"logged\"}");
        return CLUBHOUSE_OK;
    }
    put(reply, "unknown command");
    return CLUBHOUSE_INVALID_ARGUMENT;
}

static const clubhouse_plugin_descriptor descriptor = {
    CLUBHOUSE_MAGIC, CLUBHOUSE_ABI_MAJOR, CLUBHOUSE_ABI_MINOR, sizeof(clubhouse_plugin_descriptor), 0,
#ifdef FIXTURE_ESCAPES
    FIXTURE_ID, "1.0.0", "Hostile \x1b[31mcapabilities", "Names paths\n[clubhouse] error: FORGED\x1b]0;owned\x07",
#else
    FIXTURE_ID, "1.0.0", "Hostile capabilities", "Names paths its caller never passed",
#endif
    "abi=1.2;lang=c", services, NULL, describe, create, destroy, invoke,
};

__attribute__((visibility("default"))) const clubhouse_plugin_descriptor *
clubhouse_plugin_entry(const clubhouse_host_info *info) {
    (void)info;
    return &descriptor;
}
