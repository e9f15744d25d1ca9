/*
 * A hostile plugin for path arguments as capabilities ("clubhouse.files/1", SandboxFilesEndToEndTests).
 * Each command asks the host's files service for something (or opens a path itself) and replies
 * {"data":{"status":S,"errno":E,"head":"…","message":"…"}}: S the service's status, E errno of a
 * direct system call (0 when it worked), head the first bytes read, message the host's refusal.
 *
 * Commands:
 *   read      open_argument("file", READ) and read 15 bytes                (file: path, read)
 *   beneath   open_beneath("dir", rel) and read 15 bytes                   (dir: path, rel: string)
 *   list      open_argument("dir", READ) and count the entries             (dir: path)
 *   ghost     open_argument("nosuch", READ): an argument this call was not given (file: path)
 *   upgrade   open_argument("file", WRITE) of a "read" argument           (file: path, read)
 *   direct    open(2) of "other" itself: a path that is no argument        (file: path, other: string)
 *   write     open_argument("out", WRITE) and write "written\n"            (out: path, write)
 *   failwrite open_argument("out", WRITE), write "partial\n", then fail    (out: path, write)
 *   pid       the runner's pid, to see one runner served the whole session
 *   relay     invoke plugin "fy" (this same fixture under another alias) with "read" of "other":
 *             a plugin trying to make another open a path it does not hold (file: path, other: string)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.files"
#endif
#include "fixture.h"

#define CATALOGUE                                                                                             \
    "{\"commands\":["                                                                                         \
    "{\"name\":\"read\",\"summary\":\"Read an argument\",\"arguments\":["                                     \
    "{\"name\":\"file\",\"type\":\"path\",\"required\":true}]},"                                              \
    "{\"name\":\"beneath\",\"summary\":\"Read inside a folder argument\",\"arguments\":["                     \
    "{\"name\":\"dir\",\"type\":\"path\",\"required\":true,\"access\":\"read\"},"                             \
    "{\"name\":\"rel\",\"type\":\"string\",\"required\":true}]},"                                             \
    "{\"name\":\"list\",\"summary\":\"List a folder argument\",\"arguments\":["                               \
    "{\"name\":\"dir\",\"type\":\"path\",\"required\":true}]},"                                               \
    "{\"name\":\"ghost\",\"summary\":\"Ask for an argument not given\",\"arguments\":["                       \
    "{\"name\":\"file\",\"type\":\"path\"}]},"                                                                \
    "{\"name\":\"upgrade\",\"summary\":\"Write a read argument\",\"arguments\":["                             \
    "{\"name\":\"file\",\"type\":\"path\",\"required\":true}]},"                                              \
    "{\"name\":\"direct\",\"summary\":\"Open a path itself\",\"arguments\":["                                 \
    "{\"name\":\"file\",\"type\":\"path\"},{\"name\":\"other\",\"type\":\"string\",\"required\":true}]},"     \
    "{\"name\":\"write\",\"summary\":\"Write an output argument\",\"arguments\":["                            \
    "{\"name\":\"out\",\"type\":\"path\",\"required\":true,\"access\":\"write\"}]},"                          \
    "{\"name\":\"failwrite\",\"summary\":\"Write, then fail\",\"arguments\":["                                \
    "{\"name\":\"out\",\"type\":\"path\",\"required\":true,\"access\":\"write\"}]},"                          \
    "{\"name\":\"relay\",\"summary\":\"Have fy read a path\",\"arguments\":["                                   \
    "{\"name\":\"file\",\"type\":\"path\"},{\"name\":\"other\",\"type\":\"string\",\"required\":true}]},"     \
    "{\"name\":\"pid\",\"summary\":\"The runner's pid\",\"arguments\":[]}"                                    \
    "]}"

typedef struct {
    const clubhouse_host *host;
    const clubhouse_files_service *files;
    const clubhouse_invoke_service *invoke;
} plugin;

typedef struct {
    char text[512];
    size_t length;
} message;

static void collect(const clubhouse_reply *reply, const char *bytes, size_t length) {
    message *m = (message *)reply->caller_data;
    for (size_t i = 0; i < length && m->length + 1 < sizeof m->text; i++) m->text[m->length++] = bytes[i];
    m->text[m->length] = 0;
}

static void clean(const char *in, char *out, size_t capacity) {
    size_t n = 0;
    for (size_t i = 0; in && in[i] && n + 1 < capacity; i++) {
        unsigned char c = (unsigned char)in[i];
        out[n++] = (c >= 32 && c < 127 && c != '"' && c != '\\') ? (char)c : '.';
    }
    out[n] = 0;
}

static clubhouse_status result(const clubhouse_reply *reply, int status, int error, const char *head, const char *text) {
    char h[64], t[400], out[640];
    clean(head, h, sizeof h);
    clean(text, t, sizeof t);
    snprintf(out, sizeof out, "{\"data\":{\"status\":%d,\"errno\":%d,\"head\":\"%s\",\"message\":\"%s\"}}", status, error, h, t);
    say(reply, out);
    return CLUBHOUSE_OK;
}

/* The string value of `key` in the request (no escapes), or "". */
static void value(const char *request, size_t length, const char *key, char *out, size_t capacity) {
    out[0] = 0;
    char copy[2048], quoted[64];
    if (length >= sizeof copy) return;
    memcpy(copy, request, length);
    copy[length] = 0;
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(copy, quoted);
    if (!at) return;
    const char *quote = strchr(at + strlen(quoted), '"');
    if (!quote) return;
    size_t n = 0;
    for (const char *p = quote + 1; *p && *p != '"' && n + 1 < capacity; p++) out[n++] = *p;
    out[n] = 0;
}

static clubhouse_status read_head(const clubhouse_reply *reply, int status, int fd, const message *m) {
    if (status != CLUBHOUSE_OK) return result(reply, status, 0, "", m->text);
    char head[16] = {0};
    ssize_t n = read(fd, head, 15);
    int e = n < 0 ? errno : 0;
    close(fd);
    return result(reply, status, e, head, "");
}

static clubhouse_status hf_create(const clubhouse_plugin_descriptor *d, const clubhouse_host *host, void **instance,
                               const clubhouse_reply *reply) {
    (void)d;
    plugin *p = calloc(1, sizeof *p);
    if (!p) return CLUBHOUSE_ERROR;
    p->host = host;
    p->files = (const clubhouse_files_service *)host->get_service(host, CLUBHOUSE_SERVICE_FILES);
    if (!p->files) {
        free(p);
        say(reply, "no files service");
        return CLUBHOUSE_ERROR;
    }
    p->invoke = (const clubhouse_invoke_service *)host->get_service(host, CLUBHOUSE_SERVICE_INVOKE);
    *instance = p;
    return CLUBHOUSE_OK;
}

static void hf_destroy(const clubhouse_plugin_descriptor *d, void *instance) { (void)d; free(instance); }

static clubhouse_status hf_describe(const clubhouse_plugin_descriptor *d, const clubhouse_reply *reply) {
    (void)d;
    say(reply, CATALOGUE);
    return CLUBHOUSE_OK;
}

static clubhouse_status hf_invoke(const clubhouse_plugin_descriptor *d, void *instance, const clubhouse_call *call,
                               const char *command, const char *request, size_t request_length,
                               const clubhouse_reply *reply) {
    (void)d;
    const clubhouse_files_service *files = ((plugin *)instance)->files;
    message m = {{0}, 0};
    clubhouse_reply sink = {sizeof(clubhouse_reply), &m, collect};
    int fd = -1;
    if (strcmp(command, "read") == 0) {
        int status = files->open_argument(call, "file", CLUBHOUSE_FILE_READ, &fd, &sink);
        return read_head(reply, status, fd, &m);
    }
    if (strcmp(command, "beneath") == 0) {
        char rel[512];
        value(request, request_length, "rel", rel, sizeof rel);
        int status = files->open_beneath(call, "dir", rel, &fd, &sink);
        return read_head(reply, status, fd, &m);
    }
    if (strcmp(command, "list") == 0) {
        int status = files->open_argument(call, "dir", CLUBHOUSE_FILE_READ, &fd, &sink);
        if (status != CLUBHOUSE_OK) return result(reply, status, 0, "", m.text);
        DIR *dir = fdopendir(fd);
        if (!dir) return result(reply, status, errno, "", "");
        int count = 0;
        struct dirent *entry;
        while ((entry = readdir(dir)) != NULL) {
            if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) count++;
        }
        closedir(dir);
        char head[16];
        snprintf(head, sizeof head, "%d", count);
        return result(reply, status, 0, head, "");
    }
    if (strcmp(command, "ghost") == 0) {
        int status = files->open_argument(call, "nosuch", CLUBHOUSE_FILE_READ, &fd, &sink);
        if (fd >= 0) close(fd);
        return result(reply, status, 0, "", m.text);
    }
    if (strcmp(command, "upgrade") == 0) {
        int status = files->open_argument(call, "file", CLUBHOUSE_FILE_WRITE, &fd, &sink);
        int e = 0;
        if (fd >= 0) {
            if (write(fd, "overwritten\n", 12) < 0) e = errno;
            close(fd);
        }
        return result(reply, status, e, "", m.text);
    }
    if (strcmp(command, "direct") == 0) {
        char other[512];
        value(request, request_length, "other", other, sizeof other);
        fd = open(other, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return result(reply, 0, errno, "", "");
        char head[16] = {0};
        ssize_t n = read(fd, head, 15);
        close(fd);
        return result(reply, 0, n < 0 ? errno : 0, head, "");
    }
    if (strcmp(command, "write") == 0 || strcmp(command, "failwrite") == 0) {
        int status = files->open_argument(call, "out", CLUBHOUSE_FILE_WRITE, &fd, &sink);
        if (status != CLUBHOUSE_OK) return result(reply, status, 0, "", m.text);
        int fail = strcmp(command, "failwrite") == 0;
        const char *text = fail ? "partial\n" : "written\n";
        ssize_t n = write(fd, text, strlen(text));
        int e = n < 0 ? errno : 0;
        close(fd);
        if (fail) {
            say(reply, "failed on purpose after writing");
            return CLUBHOUSE_ERROR;
        }
        return result(reply, status, e, "", "");
    }
    if (strcmp(command, "relay") == 0) {
        const clubhouse_invoke_service *inv = ((plugin *)instance)->invoke;
        if (!inv) { say(reply, "no invoke grant"); return CLUBHOUSE_DENIED; }
        char other[512], nested[700];
        value(request, request_length, "other", other, sizeof other);
        snprintf(nested, sizeof nested, "{\"arguments\":{\"file\":\"%s\"}}", other);
        int status = inv->invoke(((plugin *)instance)->host, call, "fy", "read", nested, strlen(nested), &sink);
        if (status != CLUBHOUSE_OK) return result(reply, status, 0, "", m.text);
        reply->write(reply, m.text, m.length); /* fy's own {"data": …} */
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "pid") == 0) {
        char head[16];
        snprintf(head, sizeof head, "%d", (int)getpid());
        return result(reply, 0, 0, head, "");
    }
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {NULL};

FIXTURE_PLUGIN(hf, "Hostile files", "Tries to reach files it was not given", services)
