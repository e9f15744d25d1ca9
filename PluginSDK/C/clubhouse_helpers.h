/*
 * clubhouse_helpers.h — typed argument reading and reply writing for C plugins, without
 * hand-written JSON. Include it after clubhouse.h:
 *
 *     #include <clubhouse.h>
 *     #include <clubhouse_helpers.h>
 *
 *     clubhouse_args args;
 *     if (clubhouse_args_init(&args, request, length) != 0) { ... malformed request ... }
 *     char name[64] = "world";
 *     if (clubhouse_args_string(&args, "name", name, sizeof name) < 0) { ... not a string / too long ... }
 *     long long times = 1;
 *     clubhouse_args_int(&args, "times", &times);
 *
 *     clubhouse_writer w;
 *     clubhouse_reply_begin(&w, reply);            -> {"data":{
 *     clubhouse_reply_string(&w, "greeting", text);
 *     clubhouse_reply_int(&w, "times", times);
 *     clubhouse_reply_end(&w, "Hello, world!\n");   -> },"text":"Hello, world!\n"}
 *
 * Why header-only, and not appended to the ABI: these helpers only read and write the JSON the
 * ABI already defines (entry.h: requests are {"arguments": {...}, "cwd": "..."}, replies are
 * {"data": ..., "text": "..."}). Compiled into the plugin (every function is `static`), they add
 * no symbol, no version and no new contract between host and plugin: a plugin built with an older
 * or newer copy of this file runs on any host that speaks ABI 1.x, and a bug fixed here is fixed
 * by rebuilding the plugin, never by a host upgrade. The host already checks every argument
 * against the command's declaration before invoke, so the reader trusts types only as far as it
 * checks them: each getter says whether the value was there and of the right type.
 *
 * Return values: the getters return 1 when the argument is present and was read, 0 when it is
 * absent (or null; *out is left as it was — put the default there first), -1 when it is present
 * but of another type or does not fit. The writers never fail on their own: a key or string is
 * escaped as JSON needs; a nested object or array deeper than CLUBHOUSE_WRITER_DEPTH (16) is left out.
 *
 * The site's configuration, by key, with a default (create or invoke):
 *
 *     char greeting[64];
 *     clubhouse_config_string(host, "greeting", "Hello", greeting, sizeof greeting);
 *     long long limit; clubhouse_config_int(host, "limit", 100, &limit);
 *
 * (also clubhouse_config_double and clubhouse_config_bool; 1 read, 0 absent: the default, -1 wrong
 * type or too long: the default).
 *
 * Pure C99, no allocation, no global state: safe in a CLUBHOUSE_PLUGIN_THREAD_SAFE plugin.
 */
#ifndef CLUBHOUSE_HELPERS_H
#define CLUBHOUSE_HELPERS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clubhouse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- reading a request */

typedef struct {
    const char *request; /* the whole request, borrowed for the duration of invoke */
    size_t length;
    size_t arguments;    /* offset of the arguments object's '{' (or length when there is none) */
} clubhouse_args;

static inline size_t clubhouse_json_space_(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* Offset just past the JSON string starting at s[i] == '"' (n on a malformed string). */
static inline size_t clubhouse_json_skip_string_(const char *s, size_t n, size_t i) {
    for (i++; i < n; i++) {
        if (s[i] == '\\') { i++; continue; }
        if (s[i] == '"') return i + 1;
    }
    return n;
}

/* Offset just past the JSON value starting at s[i] (n when malformed). */
static inline size_t clubhouse_json_skip_value_(const char *s, size_t n, size_t i) {
    i = clubhouse_json_space_(s, n, i);
    if (i >= n) return n;
    if (s[i] == '"') return clubhouse_json_skip_string_(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') { i = clubhouse_json_skip_string_(s, n, i); continue; }
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') { depth--; if (depth == 0) return i + 1; }
            i++;
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r') i++;
    return i;
}

/* Compares the JSON string at s[i] (a key) with `name` (keys the host writes are plain; escaped
 * keys are compared after the simple escapes). */
static inline int clubhouse_json_key_is_(const char *s, size_t n, size_t i, const char *name) {
    size_t k = 0, len = strlen(name);
    for (i++; i < n && s[i] != '"'; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            i++;
            switch (s[i]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': return 0; /* no declared argument name needs one */
            default: c = s[i]; break;
            }
        }
        if (k >= len || name[k] != c) return 0;
        k++;
    }
    return k == len;
}

/* Offset of the value of member `name` of the object starting at s[object] == '{', or n. */
static inline size_t clubhouse_json_member_(const char *s, size_t n, size_t object, const char *name) {
    if (object >= n || s[object] != '{') return n;
    size_t i = object + 1;
    for (;;) {
        i = clubhouse_json_space_(s, n, i);
        if (i >= n || s[i] != '"') return n;
        size_t key = i;
        i = clubhouse_json_space_(s, n, clubhouse_json_skip_string_(s, n, i));
        if (i >= n || s[i] != ':') return n;
        i = clubhouse_json_space_(s, n, i + 1);
        if (clubhouse_json_key_is_(s, n, key, name)) return i;
        i = clubhouse_json_space_(s, n, clubhouse_json_skip_value_(s, n, i));
        if (i >= n || s[i] != ',') return n;
        i++;
    }
}

/* 0 when `request` is a JSON object (its "arguments" may be absent: no arguments), -1 otherwise. */
static inline int clubhouse_args_init(clubhouse_args *a, const char *request, size_t length) {
    a->request = request;
    a->length = request ? length : 0;
    size_t start = clubhouse_json_space_(request, a->length, 0);
    if (start >= a->length || request[start] != '{') { a->arguments = a->length; return -1; }
    a->arguments = clubhouse_json_member_(request, a->length, start, "arguments");
    if (a->arguments < a->length && request[a->arguments] != '{') return -1;
    return 0;
}

/* The value of argument `name` (offset), or length when absent or null. */
static inline size_t clubhouse_args_find_(const clubhouse_args *a, const char *name) {
    size_t at = clubhouse_json_member_(a->request, a->length, a->arguments, name);
    if (at + 4 <= a->length && memcmp(a->request + at, "null", 4) == 0) return a->length;
    return at;
}

static inline int clubhouse_args_has(const clubhouse_args *a, const char *name) {
    return clubhouse_args_find_(a, name) < a->length;
}

static inline size_t clubhouse_utf8_put_(char *out, size_t size, size_t o, unsigned long cp) {
    char b[4];
    size_t k;
    if (cp < 0x80) { b[0] = (char)cp; k = 1; }
    else if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); k = 2; }
    else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[2] = (char)(0x80 | (cp & 0x3F)); k = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); k = 4;
    }
    if (o + k >= size) return (size_t)-1;
    memcpy(out + o, b, k);
    return o + k;
}

static inline int clubhouse_hex4_(const char *s, size_t n, size_t i, unsigned long *out) {
    unsigned long v = 0;
    if (i + 4 > n) return -1;
    for (size_t k = 0; k < 4; k++) {
        char c = s[i + k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned long)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* Decodes the JSON string at s[i] == '"' into out (NUL-terminated, UTF-8). -1 when it does not fit. */
static inline int clubhouse_json_decode_string_(const char *s, size_t n, size_t i, char *out, size_t size) {
    size_t o = 0;
    if (size == 0) return -1;
    for (i++; i < n && s[i] != '"'; i++) {
        unsigned long cp = (unsigned char)s[i];
        if (s[i] == '\\') {
            if (++i >= n) return -1;
            switch (s[i]) {
            case 'n': cp = '\n'; break;
            case 't': cp = '\t'; break;
            case 'r': cp = '\r'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'u':
                if (clubhouse_hex4_(s, n, i + 1, &cp) != 0) return -1;
                i += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && s[i + 1] == '\\' && s[i + 2] == 'u') {
                    unsigned long low;
                    if (clubhouse_hex4_(s, n, i + 3, &low) == 0 && low >= 0xDC00 && low < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    }
                }
                if (cp == 0) return -1; /* a NUL cannot live in a C string */
                o = clubhouse_utf8_put_(out, size, o, cp);
                if (o == (size_t)-1) return -1;
                continue;
            default: cp = (unsigned char)s[i]; break;
            }
        }
        if (o + 1 >= size) return -1;
        out[o++] = (char)cp;
    }
    if (i >= n) return -1;
    out[o] = 0;
    return 0;
}

/* A string (or path or choice) argument, decoded into out[size] with a NUL. */
static inline int clubhouse_args_string(const clubhouse_args *a, const char *name, char *out, size_t size) {
    size_t at = clubhouse_args_find_(a, name);
    if (at >= a->length) return 0;
    if (a->request[at] != '"') return -1;
    return clubhouse_json_decode_string_(a->request, a->length, at, out, size) == 0 ? 1 : -1;
}

/* Copies the number at s[at] into buf (NUL-terminated); -1 when it is not a number. */
static inline int clubhouse_json_number_text_(const char *s, size_t n, size_t at, char *buf, size_t size) {
    size_t end = clubhouse_json_skip_value_(s, n, at);
    char c = at < n ? s[at] : 0;
    if (!((c >= '0' && c <= '9') || c == '-') || end - at >= size) return -1;
    memcpy(buf, s + at, end - at);
    buf[end - at] = 0;
    return 0;
}

/* The integer at s[at] (a JSON number without fraction or exponent, in range): 1, or -1. */
static inline int clubhouse_json_int_(const char *s, size_t n, size_t at, long long *out) {
    char buf[32], *end = NULL;
    if (clubhouse_json_number_text_(s, n, at, buf, sizeof buf) != 0 || strpbrk(buf, ".eE")) return -1;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno != 0 || !end || *end) return -1;
    *out = v;
    return 1;
}

/* The number at s[at]: 1, or -1. */
static inline int clubhouse_json_double_(const char *s, size_t n, size_t at, double *out) {
    char buf[64], *end = NULL;
    if (clubhouse_json_number_text_(s, n, at, buf, sizeof buf) != 0) return -1;
    double v = strtod(buf, &end);
    if (!end || *end) return -1;
    *out = v;
    return 1;
}

/* The boolean at s[at]: 1 (*out = 1 or 0), or -1. */
static inline int clubhouse_json_bool_(const char *s, size_t n, size_t at, int *out) {
    if (at + 4 <= n && memcmp(s + at, "true", 4) == 0) { *out = 1; return 1; }
    if (at + 5 <= n && memcmp(s + at, "false", 5) == 0) { *out = 0; return 1; }
    return -1;
}

/* An integer argument (a JSON number without fraction or exponent, in range). */
static inline int clubhouse_args_int(const clubhouse_args *a, const char *name, long long *out) {
    size_t at = clubhouse_args_find_(a, name);
    if (at >= a->length) return 0;
    return clubhouse_json_int_(a->request, a->length, at, out);
}

/* A number argument. */
static inline int clubhouse_args_double(const clubhouse_args *a, const char *name, double *out) {
    size_t at = clubhouse_args_find_(a, name);
    if (at >= a->length) return 0;
    return clubhouse_json_double_(a->request, a->length, at, out);
}

/* A flag or boolean argument: *out = 1 or 0. */
static inline int clubhouse_args_bool(const clubhouse_args *a, const char *name, int *out) {
    size_t at = clubhouse_args_find_(a, name);
    if (at >= a->length) return 0;
    return clubhouse_json_bool_(a->request, a->length, at, out);
}

/* The caller's working directory (relative paths in arguments are relative to it). */
static inline int clubhouse_request_cwd(const clubhouse_args *a, char *out, size_t size) {
    size_t start = clubhouse_json_space_(a->request, a->length, 0);
    size_t at = clubhouse_json_member_(a->request, a->length, start, "cwd");
    if (at >= a->length) return 0;
    if (a->request[at] != '"') return -1;
    return clubhouse_json_decode_string_(a->request, a->length, at, out, size) == 0 ? 1 : -1;
}

/* ---------------------------------------------------------------- reading the site's config */

/* The plugin's `config` object from the site's plugins.json, by key, through "clubhouse.config/1"
 * (always offered; services/config.h). A key is a dotted path, eg: "limits.max_length". Call them
 * from create or invoke with the host create was given ([during-call]):
 *
 *     long long max_length;
 *     if (clubhouse_config_int(host, "max_length", 1000, &max_length) < 0 || max_length < 1)
 *         return clubhouse_reply_error(reply, CLUBHOUSE_INVALID_ARGUMENT, "config \"max_length\" must be a whole number from 1");
 *
 * Each getter first puts `fallback` in *out, then returns 1 when the key is there and was read,
 * 0 when it is absent or null (*out keeps the fallback), -1 when it is there but of another type
 * or does not fit (*out keeps the fallback; tell the site in create's reply). A value whose JSON is
 * longer than CLUBHOUSE_CONFIG_VALUE_MAX bytes is -1: read long or nested values with the service
 * itself. No allocation: the value is read into a buffer on the stack. */

#ifndef CLUBHOUSE_CONFIG_VALUE_MAX
#define CLUBHOUSE_CONFIG_VALUE_MAX 4096
#endif

typedef struct {
    char bytes[CLUBHOUSE_CONFIG_VALUE_MAX + 1];
    size_t length;
    int overflow;
} clubhouse_config_value_;

static inline void clubhouse_config_sink_(const clubhouse_reply *reply, const char *bytes, size_t length) {
    clubhouse_config_value_ *v = (clubhouse_config_value_ *)reply->caller_data;
    if (v->overflow || length > CLUBHOUSE_CONFIG_VALUE_MAX - v->length) { v->overflow = 1; return; }
    memcpy(v->bytes + v->length, bytes, length);
    v->length += length;
    v->bytes[v->length] = 0;
}

/* Reads the JSON of `key` into v: the offset of the value (1), absent or null (0), or -1 (no config
 * service, an error, or longer than CLUBHOUSE_CONFIG_VALUE_MAX). */
static inline int clubhouse_config_get_(const clubhouse_host *host, const char *key, clubhouse_config_value_ *v, size_t *at) {
    const clubhouse_config_service *config =
        host && host->get_service ? (const clubhouse_config_service *)host->get_service(host, CLUBHOUSE_SERVICE_CONFIG) : NULL;
    clubhouse_reply reply;
    reply.struct_size = (uint32_t)sizeof reply;
    reply.caller_data = v;
    reply.write = clubhouse_config_sink_;
    v->length = 0;
    v->overflow = 0;
    v->bytes[0] = 0;
    if (!config || !config->get || !key) return -1;
    clubhouse_status status = config->get(host, key, &reply);
    if (status == CLUBHOUSE_NOT_FOUND) return 0;
    if (status != CLUBHOUSE_OK || v->overflow) return -1;
    *at = clubhouse_json_space_(v->bytes, v->length, 0);
    if (*at >= v->length) return 0;
    if (*at + 4 <= v->length && memcmp(v->bytes + *at, "null", 4) == 0) return 0;
    return 1;
}

/* A string from the config, decoded into out[size] with a NUL (fallback may be NULL: ""). */
static inline int clubhouse_config_string(const clubhouse_host *host, const char *key, const char *fallback, char *out, size_t size) {
    clubhouse_config_value_ v;
    size_t at = 0;
    if (size == 0) return -1;
    const char *initial = fallback ? fallback : "";
    size_t n = strlen(initial);
    if (n >= size) n = size - 1;
    memcpy(out, initial, n);
    out[n] = 0;
    int found = clubhouse_config_get_(host, key, &v, &at);
    if (found <= 0) return found;
    if (v.bytes[at] != '"') return -1;
    char decoded[CLUBHOUSE_CONFIG_VALUE_MAX + 1];
    size_t limit = size < sizeof decoded ? size : sizeof decoded;
    if (clubhouse_json_decode_string_(v.bytes, v.length, at, decoded, limit) != 0) return -1;
    memcpy(out, decoded, strlen(decoded) + 1);
    return 1;
}

/* The clubhouse_json_*_ readers write *out only when they return 1, so the fallback stays otherwise. */

/* A whole number from the config (a JSON number without fraction or exponent, in range). */
static inline int clubhouse_config_int(const clubhouse_host *host, const char *key, long long fallback, long long *out) {
    clubhouse_config_value_ v;
    size_t at = 0;
    *out = fallback;
    int found = clubhouse_config_get_(host, key, &v, &at);
    return found <= 0 ? found : clubhouse_json_int_(v.bytes, v.length, at, out);
}

/* A number (integer or real) from the config. */
static inline int clubhouse_config_double(const clubhouse_host *host, const char *key, double fallback, double *out) {
    clubhouse_config_value_ v;
    size_t at = 0;
    *out = fallback;
    int found = clubhouse_config_get_(host, key, &v, &at);
    return found <= 0 ? found : clubhouse_json_double_(v.bytes, v.length, at, out);
}

/* true or false from the config: *out = 1 or 0. */
static inline int clubhouse_config_bool(const clubhouse_host *host, const char *key, int fallback, int *out) {
    clubhouse_config_value_ v;
    size_t at = 0;
    *out = fallback;
    int found = clubhouse_config_get_(host, key, &v, &at);
    return found <= 0 ? found : clubhouse_json_bool_(v.bytes, v.length, at, out);
}

/* ---------------------------------------------------------------- writing a reply */

#ifndef CLUBHOUSE_WRITER_DEPTH
#define CLUBHOUSE_WRITER_DEPTH 16
#endif

typedef struct {
    const clubhouse_reply *reply;
    int depth;                              /* open objects and arrays inside "data" */
    unsigned char count[CLUBHOUSE_WRITER_DEPTH + 1]; /* members written at each level (0 or 1: "any") */
    char close[CLUBHOUSE_WRITER_DEPTH + 1];          /* '}' or ']' for each open level */
} clubhouse_writer;

static inline void clubhouse_writer_raw_(clubhouse_writer *w, const char *bytes, size_t n) { w->reply->write(w->reply, bytes, n); }

static inline void clubhouse_writer_quoted_(clubhouse_writer *w, const char *s) {
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    clubhouse_writer_raw_(w, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        clubhouse_writer_raw_(w, run, (size_t)(s - run));
        run = s + 1;
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        switch (c) {
        case '"': clubhouse_writer_raw_(w, "\\\"", 2); break;
        case '\\': clubhouse_writer_raw_(w, "\\\\", 2); break;
        case '\n': clubhouse_writer_raw_(w, "\\n", 2); break;
        case '\t': clubhouse_writer_raw_(w, "\\t", 2); break;
        case '\r': clubhouse_writer_raw_(w, "\\r", 2); break;
        default: clubhouse_writer_raw_(w, esc, 6); break;
        }
    }
    clubhouse_writer_raw_(w, run, (size_t)(s - run));
    clubhouse_writer_raw_(w, "\"", 1);
}

/* The comma and key before a value (key is ignored inside arrays; pass NULL there). */
static inline void clubhouse_writer_key_(clubhouse_writer *w, const char *key) {
    if (w->count[w->depth]) clubhouse_writer_raw_(w, ",", 1);
    w->count[w->depth] = 1;
    if (key) {
        clubhouse_writer_quoted_(w, key);
        clubhouse_writer_raw_(w, ":", 1);
    }
}

/* Starts the reply: {"data":{ — members follow. */
static inline void clubhouse_reply_begin(clubhouse_writer *w, const clubhouse_reply *reply) {
    memset(w, 0, sizeof *w);
    w->reply = reply;
    clubhouse_writer_raw_(w, "{\"data\":{", 9);
}

static inline void clubhouse_reply_string(clubhouse_writer *w, const char *key, const char *value) {
    clubhouse_writer_key_(w, key);
    if (value) clubhouse_writer_quoted_(w, value); else clubhouse_writer_raw_(w, "null", 4);
}

static inline void clubhouse_reply_int(clubhouse_writer *w, const char *key, long long value) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", value);
    clubhouse_writer_key_(w, key);
    clubhouse_writer_raw_(w, buf, (size_t)n);
}

/* Non-finite numbers have no JSON form: they are written as null. */
static inline void clubhouse_reply_double(clubhouse_writer *w, const char *key, double value) {
    char buf[40];
    clubhouse_writer_key_(w, key);
    if (value != value || value > 1.7976931348623157e308 || value < -1.7976931348623157e308) {
        clubhouse_writer_raw_(w, "null", 4);
        return;
    }
    /* The shortest of 15, 16 or 17 digits that reads back as the same double. */
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, sizeof buf, "%.*g", digits, value);
        if (strtod(buf, NULL) == value) break;
    }
    clubhouse_writer_raw_(w, buf, (size_t)n);
}

static inline void clubhouse_reply_bool(clubhouse_writer *w, const char *key, int value) {
    clubhouse_writer_key_(w, key);
    clubhouse_writer_raw_(w, value ? "true" : "false", value ? 4 : 5);
}

static inline void clubhouse_reply_null(clubhouse_writer *w, const char *key) {
    clubhouse_writer_key_(w, key);
    clubhouse_writer_raw_(w, "null", 4);
}

static inline void clubhouse_reply_open_(clubhouse_writer *w, const char *key, const char *bracket) {
    if (w->depth >= CLUBHOUSE_WRITER_DEPTH) return;
    clubhouse_writer_key_(w, key);
    clubhouse_writer_raw_(w, bracket, 1);
    w->count[++w->depth] = 0;
    w->close[w->depth] = bracket[0] == '{' ? '}' : ']';
}

static inline void clubhouse_reply_close_(clubhouse_writer *w) {
    if (w->depth > 0) {
        clubhouse_writer_raw_(w, &w->close[w->depth], 1);
        w->depth--;
    }
}

/* A nested object or array: begin, members (keys NULL inside arrays), end. */
static inline void clubhouse_reply_begin_object(clubhouse_writer *w, const char *key) { clubhouse_reply_open_(w, key, "{"); }
static inline void clubhouse_reply_end_object(clubhouse_writer *w) { clubhouse_reply_close_(w); }
static inline void clubhouse_reply_begin_array(clubhouse_writer *w, const char *key) { clubhouse_reply_open_(w, key, "["); }
static inline void clubhouse_reply_end_array(clubhouse_writer *w) { clubhouse_reply_close_(w); }

/* Closes what is open and the data object, adds the human text (NULL: none), closes the reply. */
static inline void clubhouse_reply_end(clubhouse_writer *w, const char *text) {
    while (w->depth > 0) clubhouse_reply_close_(w);
    clubhouse_writer_raw_(w, "}", 1);
    if (text) {
        clubhouse_writer_raw_(w, ",\"text\":", 8);
        clubhouse_writer_quoted_(w, text);
    }
    clubhouse_writer_raw_(w, "}", 1);
}

/* A one-line error message for a failing status (what, where, what to do). */
static inline clubhouse_status clubhouse_reply_error(const clubhouse_reply *reply, clubhouse_status status, const char *message) {
    reply->write(reply, message, strlen(message));
    return status;
}

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_HELPERS_H */
