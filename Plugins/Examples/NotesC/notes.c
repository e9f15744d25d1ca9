/*
 * notes — an example Clubhouse plugin in plain C, written against clubhouse.h alone.
 *
 * It keeps short notes in the plugin's own SQLite database through the storage service:
 *   clubhouse notes add "buy balls"      clubhouse notes list      clubhouse notes remove 3
 *
 * What it shows a plugin author:
 *   - the one exported entry function and a static descriptor (entry.h)
 *   - a command catalogue as JSON (describe)
 *   - create/destroy with per-instance state and schema migrations (storage.h)
 *   - prepared statements, a transaction, replies and error messages through the reply sink
 *   - its configuration read with clubhouse_helpers.h (`max_length`, with a default) and declared
 *     as a JSON Schema in the catalogue, so a site's bad value is refused with its file:line:column
 *
 * Build: any C99 compiler, `-shared -fPIC`, with the SDK's include directory on the path
 * (`pkg-config --cflags clubhouse`: clubhouse.h and the header-only clubhouse_helpers.h).
 */
#include "clubhouse.h"
#include "clubhouse_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a growable byte buffer */

typedef struct {
    char *bytes;
    size_t length, capacity;
    int failed; /* out of memory: the reply becomes an error */
} buffer;

static void buffer_append(buffer *b, const char *bytes, size_t length) {
    if (b->failed) return;
    if (b->length + length + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 256;
        while (capacity < b->length + length + 1) capacity *= 2;
        char *grown = realloc(b->bytes, capacity);
        if (!grown) { b->failed = 1; return; }
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, bytes, length);
    b->length += length;
    b->bytes[b->length] = 0;
}

static void buffer_puts(buffer *b, const char *text) { buffer_append(b, text, strlen(text)); }

static void buffer_printf_int(buffer *b, long long value) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", value);
    buffer_append(b, digits, (size_t)n);
}

/* Appends `text` as a JSON string literal (quote, backslash and control characters escaped). */
static void buffer_json_string(buffer *b, const char *text, size_t length) {
    static const char hex[] = "0123456789abcdef";
    buffer_append(b, "\"", 1);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            buffer_append(b, escaped, 2);
        } else if (c < 0x20) {
            char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            if (c == '\n') buffer_append(b, "\\n", 2);
            else if (c == '\t') buffer_append(b, "\\t", 2);
            else if (c == '\r') buffer_append(b, "\\r", 2);
            else buffer_append(b, escaped, 6);
        } else {
            buffer_append(b, (const char *)&text[i], 1);
        }
    }
    buffer_append(b, "\"", 1);
}

static void reply_text(const clubhouse_reply *reply, const char *text) {
    reply->write(reply, text, strlen(text));
}

/* ---------------------------------------------------------------- reading the request */

/* The host sends {"arguments": {...}, "cwd": "..."} (entry.h). This is a small strict scanner:
 * it finds a member of "arguments" and reads a string or an integer, skipping anything else. */

static const char *skip_space(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/* Skips one JSON string starting at its quote; returns the position after the closing quote. */
static const char *skip_string(const char *p, const char *end) {
    if (p >= end || *p != '"') return NULL;
    for (p++; p < end; p++) {
        if (*p == '\\') { p++; continue; }
        if (*p == '"') return p + 1;
    }
    return NULL;
}

/* Skips one JSON value of any kind. */
static const char *skip_value(const char *p, const char *end) {
    p = skip_space(p, end);
    if (p >= end) return NULL;
    if (*p == '"') return skip_string(p, end);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < end; p++) {
            if (*p == '"') { p = skip_string(p, end); if (!p) return NULL; p--; continue; }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') { if (--depth == 0) return p + 1; }
        }
        return NULL;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ') p++;
    return p;
}

/* Finds member `key` of the object starting at `p`; returns its value's start or NULL. */
static const char *find_member(const char *p, const char *end, const char *key) {
    size_t key_length = strlen(key);
    p = skip_space(p, end);
    if (p >= end || *p != '{') return NULL;
    p++;
    while (1) {
        p = skip_space(p, end);
        if (p >= end || *p != '"') return NULL;
        const char *name = p + 1;
        const char *after = skip_string(p, end);
        if (!after) return NULL;
        int match = (size_t)(after - 1 - name) == key_length && memcmp(name, key, key_length) == 0;
        p = skip_space(after, end);
        if (p >= end || *p != ':') return NULL;
        p = skip_space(p + 1, end);
        if (match) return p;
        p = skip_value(p, end);
        if (!p) return NULL;
        p = skip_space(p, end);
        if (p < end && *p == ',') { p++; continue; }
        return NULL;
    }
}

static const char *find_argument(const char *request, size_t length, const char *key) {
    const char *end = request + length;
    const char *arguments = find_member(request, end, "arguments");
    return arguments ? find_member(arguments, end, key) : NULL;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void append_utf8(buffer *b, unsigned long scalar) {
    char out[4];
    size_t n;
    if (scalar < 0x80) { out[0] = (char)scalar; n = 1; }
    else if (scalar < 0x800) { out[0] = (char)(0xC0 | (scalar >> 6)); out[1] = (char)(0x80 | (scalar & 0x3F)); n = 2; }
    else if (scalar < 0x10000) {
        out[0] = (char)(0xE0 | (scalar >> 12)); out[1] = (char)(0x80 | ((scalar >> 6) & 0x3F));
        out[2] = (char)(0x80 | (scalar & 0x3F)); n = 3;
    } else {
        out[0] = (char)(0xF0 | (scalar >> 18)); out[1] = (char)(0x80 | ((scalar >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((scalar >> 6) & 0x3F)); out[3] = (char)(0x80 | (scalar & 0x3F)); n = 4;
    }
    buffer_append(b, out, n);
}

/* Decodes the JSON string at `p` into `out` (NUL-terminated). Returns 0 on success. */
static int decode_string(const char *p, const char *end, buffer *out) {
    if (!p || p >= end || *p != '"') return -1;
    for (p++; p < end; p++) {
        if (*p == '"') { buffer_append(out, "", 0); return out->failed ? -1 : 0; }
        if (*p != '\\') { buffer_append(out, p, 1); continue; }
        if (++p >= end) return -1;
        switch (*p) {
        case 'n': buffer_append(out, "\n", 1); break;
        case 't': buffer_append(out, "\t", 1); break;
        case 'r': buffer_append(out, "\r", 1); break;
        case 'b': buffer_append(out, "\b", 1); break;
        case 'f': buffer_append(out, "\f", 1); break;
        case 'u': {
            unsigned long unit = 0;
            if (end - p < 5) return -1;
            for (int i = 1; i <= 4; i++) { int h = hex_value(p[i]); if (h < 0) return -1; unit = unit * 16 + (unsigned long)h; }
            p += 4;
            if (unit >= 0xD800 && unit <= 0xDBFF && end - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                unsigned long low = 0;
                for (int i = 3; i <= 6; i++) { int h = hex_value(p[i]); if (h < 0) return -1; low = low * 16 + (unsigned long)h; }
                if (low >= 0xDC00 && low <= 0xDFFF) { unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00); p += 6; }
            }
            append_utf8(out, unit);
            break;
        }
        default: buffer_append(out, p, 1); break; /* \" \\ \/ */
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- the plugin */

typedef struct {
    const clubhouse_host *host;
    const clubhouse_storage_service *storage;
    long long max_length; /* config "max_length": the longest note, in bytes */
} notes_instance;

static const char *const needed_services[] = {CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_CONFIG, NULL};

/* The site's `config` for notes, as the host checks it (PluginSDK/README.md, "Your configuration"). */
#define NOTES_MAX_LENGTH_DEFAULT 1000
#define NOTES_MAX_LENGTH_LIMIT 100000

static const char catalogue[] =
    "{\"config_schema\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"max_length\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"default\":1000,"
    "\"description\":\"The longest note, in bytes\"}}},"
    "\"commands\":["
    "{\"name\":\"add\",\"summary\":\"Add a note\",\"arguments\":["
    "{\"name\":\"text\",\"type\":\"string\",\"required\":true,\"positional\":true,\"help\":\"The note\"}],"
    "\"reply\":\"{id, text}\"},"
    "{\"name\":\"list\",\"summary\":\"List the notes, oldest first\",\"arguments\":[],\"reply\":\"{notes: [{id, text, created_at}]}\"},"
    "{\"name\":\"remove\",\"summary\":\"Remove a note by id\",\"arguments\":["
    "{\"name\":\"id\",\"type\":\"integer\",\"required\":true,\"positional\":true,\"help\":\"The note's id (from list)\"}],"
    "\"reply\":\"{removed}\"},"
    "{\"name\":\"ping\",\"summary\":\"Do nothing (measures the host's round trip)\",\"arguments\":[]},"
    "{\"name\":\"demo\",\"summary\":\"Add two notes and list them\",\"arguments\":["
    "{\"name\":\"out\",\"type\":\"path\",\"required\":true,\"help\":\"Folder for the demo's output\"}]}"
    "]}";

static clubhouse_status notes_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    reply->write(reply, catalogue, sizeof catalogue - 1);
    return CLUBHOUSE_OK;
}

/* A reply sink that collects a service's message into a buffer. */
static void collect(const clubhouse_reply *reply, const char *bytes, size_t length) {
    buffer_append((buffer *)reply->caller_data, bytes, length);
}

static clubhouse_status notes_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host,
                                     void **instance, const clubhouse_reply *reply) {
    (void)self;
    const clubhouse_storage_service *storage = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    if (!storage) {
        reply_text(reply, "notes needs the storage service; grant \"storage\" to it in plugins.json");
        return CLUBHOUSE_DENIED;
    }
    /* The host has checked the value against config_schema; the helper still says when it is not a
     * whole number (a host without schemas), and the default stands when the site gives none. */
    long long max_length;
    if (clubhouse_config_int(host, "max_length", NOTES_MAX_LENGTH_DEFAULT, &max_length) < 0 || max_length < 1 ||
        max_length > NOTES_MAX_LENGTH_LIMIT) {
        reply_text(reply, "notes: config \"max_length\" must be a whole number from 1 to 100000 (bytes); fix it in plugins.json");
        return CLUBHOUSE_INVALID_ARGUMENT;
    }
    buffer message = {0};
    clubhouse_reply sink = {sizeof(clubhouse_reply), &message, collect};
    clubhouse_status status = storage->migrate(host, 1, "create notes",
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL CHECK (length(text) > 0),"
        " created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')))", &sink);
    if (status != CLUBHOUSE_OK) {
        reply_text(reply, message.bytes ? message.bytes : "migration failed");
        free(message.bytes);
        return status;
    }
    free(message.bytes);
    notes_instance *made = calloc(1, sizeof *made);
    if (!made) { reply_text(reply, "out of memory"); return CLUBHOUSE_ERROR; }
    made->host = host;
    made->storage = storage;
    made->max_length = max_length;
    *instance = made;
    return CLUBHOUSE_OK;
}

static void notes_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* Fails the call with the storage's last error. */
static clubhouse_status storage_failure(notes_instance *n, clubhouse_status status, const clubhouse_reply *reply) {
    const char *message = n->storage->last_error(n->host);
    reply_text(reply, message && *message ? message : "storage error");
    return status;
}

static clubhouse_status add_note(notes_instance *n, const char *text, const clubhouse_reply *reply) {
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = n->storage->prepare(n->host, "INSERT INTO notes(text) VALUES (?)", &stmt, reply);
    if (status != CLUBHOUSE_OK) return status;
    status = n->storage->bind_text(stmt, 1, text, strlen(text));
    if (status == CLUBHOUSE_OK) status = n->storage->step(stmt);
    if (status != CLUBHOUSE_DONE) {
        status = storage_failure(n, status == CLUBHOUSE_OK ? CLUBHOUSE_ERROR : status, reply);
        n->storage->finalize(stmt);
        return status;
    }
    n->storage->finalize(stmt);
    buffer out = {0};
    buffer_puts(&out, "{\"data\":{\"id\":");
    buffer_printf_int(&out, n->storage->last_insert_rowid(n->host));
    buffer_puts(&out, ",\"text\":");
    buffer_json_string(&out, text, strlen(text));
    buffer_puts(&out, "},\"text\":");
    buffer text_line = {0};
    buffer_puts(&text_line, "added note ");
    buffer_printf_int(&text_line, n->storage->last_insert_rowid(n->host));
    buffer_puts(&text_line, "\n");
    buffer_json_string(&out, text_line.bytes ? text_line.bytes : "", text_line.length);
    buffer_puts(&out, "}");
    free(text_line.bytes);
    if (out.failed) { free(out.bytes); reply_text(reply, "out of memory"); return CLUBHOUSE_ERROR; }
    reply->write(reply, out.bytes, out.length);
    free(out.bytes);
    return CLUBHOUSE_OK;
}

static clubhouse_status list_notes(notes_instance *n, const clubhouse_reply *reply) {
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = n->storage->prepare(n->host, "SELECT id, text, created_at FROM notes ORDER BY id", &stmt, reply);
    if (status != CLUBHOUSE_OK) return status;
    buffer data = {0}, text = {0};
    buffer_puts(&data, "{\"data\":{\"notes\":[");
    int count = 0;
    while ((status = n->storage->step(stmt)) == CLUBHOUSE_ROW) {
        size_t length = 0, created_length = 0;
        const char *note = n->storage->column_text(stmt, 1, &length);
        const char *created = n->storage->column_text(stmt, 2, &created_length);
        long long id = (long long)n->storage->column_int64(stmt, 0);
        if (count++) buffer_puts(&data, ",");
        buffer_puts(&data, "{\"id\":");
        buffer_printf_int(&data, id);
        buffer_puts(&data, ",\"text\":");
        buffer_json_string(&data, note ? note : "", length);
        buffer_puts(&data, ",\"created_at\":");
        buffer_json_string(&data, created ? created : "", created_length);
        buffer_puts(&data, "}");
        buffer_printf_int(&text, id);
        buffer_puts(&text, "  ");
        buffer_append(&text, note ? note : "", length);
        buffer_puts(&text, "\n");
    }
    n->storage->finalize(stmt);
    if (status != CLUBHOUSE_DONE) {
        free(data.bytes);
        free(text.bytes);
        return storage_failure(n, status, reply);
    }
    if (count == 0) buffer_puts(&text, "no notes yet; add one with: clubhouse notes add \"text\"\n");
    buffer_puts(&data, "]},\"text\":");
    buffer_json_string(&data, text.bytes ? text.bytes : "", text.length);
    buffer_puts(&data, "}");
    clubhouse_status result = CLUBHOUSE_OK;
    if (data.failed || text.failed) { reply_text(reply, "out of memory"); result = CLUBHOUSE_ERROR; }
    else reply->write(reply, data.bytes, data.length);
    free(data.bytes);
    free(text.bytes);
    return result;
}

static clubhouse_status remove_note(notes_instance *n, long long id, const clubhouse_reply *reply) {
    clubhouse_stmt *stmt = NULL;
    clubhouse_status status = n->storage->prepare(n->host, "DELETE FROM notes WHERE id = ?", &stmt, reply);
    if (status != CLUBHOUSE_OK) return status;
    n->storage->bind_int64(stmt, 1, id);
    status = n->storage->step(stmt);
    n->storage->finalize(stmt);
    if (status != CLUBHOUSE_DONE) return storage_failure(n, status, reply);
    if (n->storage->changes(n->host) == 0) {
        buffer message = {0};
        buffer_puts(&message, "no note ");
        buffer_printf_int(&message, id);
        buffer_puts(&message, "; see clubhouse notes list");
        reply_text(reply, message.bytes ? message.bytes : "no such note");
        free(message.bytes);
        return CLUBHOUSE_NOT_FOUND;
    }
    buffer out = {0};
    buffer_puts(&out, "{\"data\":{\"removed\":");
    buffer_printf_int(&out, id);
    buffer_puts(&out, "},\"text\":\"removed note ");
    buffer_printf_int(&out, id);
    buffer_puts(&out, "\\n\"}");
    reply->write(reply, out.bytes, out.length);
    free(out.bytes);
    return CLUBHOUSE_OK;
}

static clubhouse_status notes_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                     const char *command, const char *request, size_t request_length,
                                     const clubhouse_reply *reply) {
    (void)self;
    (void)call;
    notes_instance *n = instance;
    const char *end = request + request_length;
    if (strcmp(command, "ping") == 0) {
        reply_text(reply, "{\"data\":null}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "add") == 0) {
        buffer text = {0};
        if (decode_string(find_argument(request, request_length, "text"), end, &text) != 0 || text.length == 0) {
            free(text.bytes);
            reply_text(reply, "notes add needs a non-empty TEXT");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        if ((long long)text.length > n->max_length) {
            char message[160];
            snprintf(message, sizeof message, "the note is %zu bytes; this site keeps notes of at most %lld (config \"max_length\")",
                     text.length, n->max_length);
            free(text.bytes);
            reply_text(reply, message);
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        clubhouse_status status = add_note(n, text.bytes, reply);
        free(text.bytes);
        return status;
    }
    if (strcmp(command, "list") == 0) return list_notes(n, reply);
    if (strcmp(command, "remove") == 0) {
        const char *value = find_argument(request, request_length, "id");
        char *after = NULL;
        long long id = value ? strtoll(value, &after, 10) : 0;
        if (!value || after == value) {
            reply_text(reply, "notes remove needs an integer ID");
            return CLUBHOUSE_INVALID_ARGUMENT;
        }
        return remove_note(n, id, reply);
    }
    if (strcmp(command, "demo") == 0) {
        /* Two notes in one transaction: both or neither. */
        buffer ignored = {0};
        clubhouse_reply sink = {sizeof(clubhouse_reply), &ignored, collect};
        clubhouse_status status = n->storage->begin(n->host, reply);
        if (status != CLUBHOUSE_OK) return status;
        if ((status = add_note(n, "Clubhouse demo: the C plugin stores notes", &sink)) != CLUBHOUSE_OK ||
            (status = add_note(n, "Clubhouse demo: in its own SQLite database", &sink)) != CLUBHOUSE_OK) {
            n->storage->rollback(n->host);
            reply_text(reply, ignored.bytes ? ignored.bytes : "demo failed");
            free(ignored.bytes);
            return status;
        }
        free(ignored.bytes);
        status = n->storage->commit(n->host, reply);
        if (status != CLUBHOUSE_OK) return status;
        return list_notes(n, reply);
    }
    buffer message = {0};
    buffer_puts(&message, "unknown command '");
    buffer_puts(&message, command);
    buffer_puts(&message, "'; see clubhouse notes --help");
    reply_text(reply, message.bytes ? message.bytes : "unknown command");
    free(message.bytes);
    return CLUBHOUSE_NOT_FOUND;
}

static const clubhouse_plugin_descriptor descriptor = {
    .magic = CLUBHOUSE_MAGIC,
    .abi_major = CLUBHOUSE_ABI_MAJOR,
    .abi_minor = CLUBHOUSE_ABI_MINOR,
    .struct_size = sizeof(clubhouse_plugin_descriptor),
    .flags = 0,
    .id = "org.example.notes",
    .version = "1.0.0",
    .name = "Notes",
    .summary = "Example C plugin: short notes in the plugin's own database",
    .build = "abi=" CLUBHOUSE_ABI_VERSION_STRING ";lang=c",
    .services = needed_services,
    .plugin_data = NULL,
    .describe = notes_describe,
    .create = notes_create,
    .destroy = notes_destroy,
    .invoke = notes_invoke,
};

/* The one exported symbol. Declines a host with a different ABI major. */
__attribute__((visibility("default")))
const clubhouse_plugin_descriptor *clubhouse_plugin_entry(const clubhouse_host_info *info) {
    if (info && info->abi_major != CLUBHOUSE_ABI_MAJOR) return NULL;
    return &descriptor;
}
