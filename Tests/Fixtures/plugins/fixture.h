/* fixture.h — what the C fixtures in this folder share: the reply helper and the descriptor with
 * its exported entry. FixturePlugins.build compiles each with -DFIXTURE_ID and -DFIXTURE_VERSION
 * (and -DFIXTURE_<VARIANT>); a fixture may set FIXTURE_FLAGS before including this file. */
#ifndef FIXTURE_H
#define FIXTURE_H

#include "clubhouse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.fixture"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#ifndef FIXTURE_FLAGS
#define FIXTURE_FLAGS 0
#endif

/* Writes `text` whole to the reply. */
static inline void say(const clubhouse_reply *reply, const char *text) { reply->write(reply, text, strlen(text)); }

/* The string value of argument `name` (JSON escapes \" and \\ understood; fixture-grade). */
static inline const char *fixture_argument(const char *request, size_t length, const char *name, char *out, size_t capacity) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":\"", name);
    size_t k = strlen(key);
    const char *p = NULL;
    for (size_t i = 0; i + k <= length; i++) {
        if (memcmp(request + i, key, k) == 0) { p = request + i + k; break; }
    }
    if (!p) return NULL;
    size_t n = 0;
    const char *end = request + length;
    while (p < end && *p != '"' && n + 1 < capacity) {
        if (*p == '\\' && p + 1 < end) p++;
        out[n++] = *p++;
    }
    out[n] = 0;
    return out;
}

/* A reply sink that keeps what is written (up to 511 bytes) in caller_data, a char[512] that starts empty. */
static inline void fixture_keep(const clubhouse_reply *reply, const char *bytes, size_t length) {
    char *kept = (char *)reply->caller_data;
    size_t used = strlen(kept);
    size_t n = length < 511 - used ? length : 511 - used;
    memcpy(kept + used, bytes, n);
    kept[used + n] = 0;
}

/* Copies `message` (NULL: "") into a JSON string's body: quotes, backslashes and controls become '. */
static inline void fixture_json_text(const char *message, char *out, size_t capacity) {
    size_t n = 0;
    for (const char *p = message ? message : ""; *p && n + 1 < capacity; p++)
        out[n++] = (*p == '"' || *p == '\\' || (unsigned char)*p < 32) ? '\'' : *p;
    out[n] = 0;
}

/* The instance most fixtures keep: the host it was created with. */
typedef struct { const clubhouse_host *host; } fixture;

/* Stores a new fixture for `host` in *instance; CLUBHOUSE_ERROR when out of memory. free() it. */
static inline clubhouse_status fixture_create(const clubhouse_host *host, void **instance) {
    fixture *f = (fixture *)calloc(1, sizeof *f);
    if (!f) return CLUBHOUSE_ERROR;
    f->host = host;
    *instance = f;
    return CLUBHOUSE_OK;
}

/* The descriptor of a fixture whose entry points are PREFIX_describe, PREFIX_create,
 * PREFIX_destroy and PREFIX_invoke, built against this header (CLUBHOUSE_BUILD_C), and the
 * exported clubhouse_plugin_entry returning it. */
#define FIXTURE_PLUGIN(prefix, display_name, one_line, needed_services)                                  \
    static const clubhouse_plugin_descriptor descriptor = {                                              \
        CLUBHOUSE_DESCRIPTOR_INIT, .flags = FIXTURE_FLAGS, .id = FIXTURE_ID, .version = FIXTURE_VERSION, \
        .name = display_name, .summary = one_line, .build = CLUBHOUSE_BUILD_C,                           \
        .services = needed_services, .describe = prefix##_describe, .create = prefix##_create,           \
        .destroy = prefix##_destroy, .invoke = prefix##_invoke,                                          \
    };                                                                                                   \
    CLUBHOUSE_DEFINE_ENTRY(descriptor)

/* The open descriptors, "N:K" each (K: c character device, s socket, p pipe, r regular file, d folder,
 * o other), comma-separated: what a runner holds, as the descriptor tests list it from inside. */
static inline void fixture_list_descriptors(char *out, size_t capacity) {
    size_t used = 0;
    out[0] = 0;
    for (int fd = 0; fd < 65536 && used < capacity; fd++) {
        if (fcntl(fd, F_GETFD) < 0) continue;
        struct stat st;
        char kind = 'o';
        if (fstat(fd, &st) == 0) {
            if (S_ISCHR(st.st_mode)) kind = 'c';
            else if (S_ISSOCK(st.st_mode)) kind = 's';
            else if (S_ISFIFO(st.st_mode)) kind = 'p';
            else if (S_ISREG(st.st_mode)) kind = 'r';
            else if (S_ISDIR(st.st_mode)) kind = 'd';
        }
        used += (size_t)snprintf(out + used, capacity - used, "%s%d:%c", used ? "," : "", fd, kind);
    }
}

#endif /* FIXTURE_H */
