/* clubhouse/entry.h — the one exported symbol and the descriptor it returns. */
#ifndef CLUBHOUSE_ENTRY_H
#define CLUBHOUSE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "call.h"
#include "host.h"
#include "reply.h"
#include "status.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the host tells the plugin before anything else. Owned by the host; valid during `entry`. */
typedef struct clubhouse_host_info {
    uint32_t struct_size; /* sizeof(clubhouse_host_info) as compiled by the host */
    uint16_t abi_major;   /* the host's CLUBHOUSE_ABI_MAJOR */
    uint16_t abi_minor;   /* the host's CLUBHOUSE_ABI_MINOR */
    const char *host_version; /* eg: "1.0.0" */
} clubhouse_host_info;

enum {
    /* The plugin's instances may be invoked concurrently from several threads. Without this flag
     * the host serializes every call into an instance. */
    CLUBHOUSE_PLUGIN_THREAD_SAFE = 1u << 0,
};

typedef struct clubhouse_plugin_descriptor clubhouse_plugin_descriptor;

struct clubhouse_plugin_descriptor {
    uint32_t magic;       /* CLUBHOUSE_MAGIC, mandatory; checked before anything else */
    uint16_t abi_major;   /* CLUBHOUSE_ABI_MAJOR the plugin was built against, mandatory */
    uint16_t abi_minor;   /* CLUBHOUSE_ABI_MINOR the plugin was built against, mandatory */
    uint32_t struct_size; /* sizeof(clubhouse_plugin_descriptor) as compiled, mandatory */
    uint32_t flags;       /* CLUBHOUSE_PLUGIN_* flags, eg: CLUBHOUSE_PLUGIN_THREAD_SAFE, or 0 */

    const char *id;       /* reverse-DNS, unique among loaded plugins, eg: "org.clubhouse.putting", mandatory */
    const char *version;  /* semver, eg: "1.2.0", mandatory; sites may require a range */
    const char *name;     /* display name, eg: "Putting", mandatory */
    const char *summary;  /* one line, eg: "Read a green and compute the best putting line", mandatory */

    /* How the plugin was built, as `key=value` pairs separated by ';', mandatory:
     *   "abi=1.2;lang=c"                                                   a C plugin: CLUBHOUSE_BUILD_C
     *   "abi=1.2;lang=swift;swift=6.3.1;target=x86_64-unknown-linux-gnu"   a Swift plugin (PluginKit writes it)
     * `abi` is the header the plugin was compiled against: write CLUBHOUSE_BUILD_C (below), never
     * the digits by hand. Swift has no stable ABI on Linux and a Swift plugin runs on the host's
     * Swift runtime, so the host refuses a Swift plugin whose `swift` or `target` differs from its own. */
    const char *build;

    /* The service ids the plugin needs, NULL-terminated, eg:
     *   { CLUBHOUSE_SERVICE_LOG, CLUBHOUSE_SERVICE_STORAGE, NULL }
     * Mandatory (an array holding only NULL when it needs none). The host refuses to create an
     * instance when a needed service is missing or not granted by the site, and says which. */
    const char *const *services;

    void *plugin_data; /* owned by the plugin, for its own use in the functions below; optional */

    /* [any-thread] Writes the plugin's command catalogue as JSON to `reply` (format below).
     * Pure: no instance, no services. Returns CLUBHOUSE_OK. */
    clubhouse_status (*describe)(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply);

    /* [host-serialized] Creates an instance for `host`'s site and stores it in *instance.
     * May use services (eg: run storage migrations). On failure returns a status other than
     * CLUBHOUSE_OK, writes the reason to `reply`, and leaves nothing to destroy. */
    clubhouse_status (*create)(const clubhouse_plugin_descriptor *self, const clubhouse_host *host,
                               void **instance, const clubhouse_reply *reply);

    /* [host-serialized] Destroys an instance made by create. No call into it is running. */
    void (*destroy)(const clubhouse_plugin_descriptor *self, void *instance);

    /* [host-serialized] Runs `command` (a name from the catalogue, eg: "bestline", "template add")
     * with the request JSON `request` (`request_length` bytes, not NUL-terminated; format below).
     * Writes the reply JSON (or, on failure, a one-line message) to `reply`. `call` identifies
     * the call to per-call services and says whether it was cancelled. */
    clubhouse_status (*invoke)(const clubhouse_plugin_descriptor *self, void *instance,
                               const clubhouse_call *call, const char *command,
                               const char *request, size_t request_length,
                               const clubhouse_reply *reply);
};

/*
 * The catalogue `describe` writes:
 *
 *   {"commands": [
 *      {"name": "bestline",                       // words separated by single spaces: "template add"
 *       "summary": "Best putting line for a ball and a flag",
 *       "help": "Longer text shown by --help (optional)",
 *       "long_running": true,                     // the CLI shows progress; default false
 *       "concurrent": true,                       // may run beside the plugin's other calls even
 *                                                 // when the plugin runs isolated; default false
 *       "cache": {"max_age_ms": 60000},           // a read's reply the host may keep (ABI 1.7; below)
 *       "arguments": [
 *         {"name": "course", "type": "string", "required": true, "help": "Course id"},
 *         {"name": "stimp", "type": "number", "default": 10, "help": "Green speed in feet"},
 *         {"name": "model", "type": "choice", "choices": ["compat", "physics"], "default": "physics"},
 *         {"name": "async", "type": "flag", "help": "Return a job id at once"},
 *         {"name": "file", "type": "path", "positional": true, "required": true}
 *       ],
 *       "reply": "Keys of the JSON reply for --json (documented in --help)"}
 *   ]}
 *
 * Argument types: "string", "integer", "number", "flag" (boolean, present = true), "path" (made
 * absolute by the host; "-" means standard input — standard output for a write — and is passed
 * as is; it may declare "access": "read" (the default) or "write", the access the plugin gets
 * through "clubhouse.files/1", services/files.h), "choice" (one of
 * "choices"), "list" (comma-separated on the command line, a JSON array of strings in the request),
 * "point" ("X,Y" on the command line, [x, y] numbers in the request), "json" (any JSON value).
 * Positional arguments are filled in declaration order. A command named "demo" taking a path
 * argument "out" is the plugin's part of `clubhouse demo`.
 *
 * "concurrent" (Added in ABI 1.6) is for a short command that acts on the plugin's other calls
 * while they run — a Stop for a drill started by another client. It is read only from a plugin that
 * declares CLUBHOUSE_PLUGIN_THREAD_SAFE (whose calls already run side by side in process). A plugin
 * in a runner (isolation "process" or "sandbox") otherwise serves one call at a time; there the
 * runner runs a concurrent command on a thread of its own at once, with the same instance, beside
 * the call in progress. Such a command may use the log, config, progress and events services; the
 * others answer CLUBHOUSE_UNSUPPORTED in a runner (the host serves them to the call in progress).
 *
 * "cache" (Added in ABI 1.7) is for a read ("access": "read") whose reply is a function of its
 * arguments, the plugin's database (clubhouse.storage/1) and what the plugin's other commands change —
 * no clock, no file, no device, no other plugin. `serve --http` may then answer a GET or HEAD of its
 * route from the reply it kept, without invoking the plugin, for at most "max_age_ms" (1 to 86400000),
 * and only while: no other command of the plugin has run in this host since the reply was made, the
 * plugin's database file has had no commit from any connection or process (PRAGMA data_version), the
 * plugin was not reloaded, and the request comes with the same credential and the same target. Every
 * access check runs first, as for any request. The host refuses "cache" on a command that writes or
 * takes a path argument. An older host ignores the member (its replies are never kept).
 *
 * The request `invoke` receives:
 *   {"arguments": {"course": "presidio", "stimp": 10, "async": true}, "cwd": "/home/me"}
 * Arguments are validated and typed by the host against the catalogue; absent optional arguments
 * without a default are absent.
 *
 * The reply `invoke` writes on CLUBHOUSE_OK:
 *   {"data": <any JSON>, "text": "what a person reads (printed as is)"}
 * `data` is the machine result (--json, JSON-RPC). `text` is optional; without it the CLI prints
 * `data` as indented JSON. Optionally "background": {"command": "job run", "arguments": {...}}
 * asks the host to run that command of the same plugin after replying (the CLI runs it in a
 * detached child process, `serve` on a worker thread).
 */

/* The symbol name the host looks up with dlsym. */
#define CLUBHOUSE_ENTRY_SYMBOL "clubhouse_plugin_entry"

/* The one function a plugin exports. [any-thread] Returns the plugin's descriptor, which must stay
 * valid until the process exits (the library is never unmapped), or NULL to decline a host it
 * cannot serve. `info` is borrowed for the call. */
typedef const clubhouse_plugin_descriptor *(*clubhouse_plugin_entry_fn)(const clubhouse_host_info *info);

/*
 * What every C plugin writes the same way, as macros (none adds a symbol or a contract):
 *
 *   static const clubhouse_plugin_descriptor descriptor = {
 *       CLUBHOUSE_DESCRIPTOR_INIT,
 *       .id = "org.example.hello", .version = "1.0.0", .name = "Hello", .summary = "Greets people",
 *       .build = CLUBHOUSE_BUILD_C, .services = services,
 *       .describe = describe, .create = create, .destroy = destroy, .invoke = invoke,
 *   };
 *   CLUBHOUSE_DEFINE_ENTRY(descriptor)
 *
 * Build with -fvisibility=hidden: the entry is then the library's only exported symbol.
 */

/* Makes a definition visible outside the shared library (the entry; nothing else needs it). */
#define CLUBHOUSE_EXPORT __attribute__((visibility("default")))

/* The descriptor's first four fields as this header defines them: magic, the ABI this header
 * describes (version.h) and the descriptor's size. */
#define CLUBHOUSE_DESCRIPTOR_INIT                                                              \
    .magic = CLUBHOUSE_MAGIC, .abi_major = CLUBHOUSE_ABI_MAJOR, .abi_minor = CLUBHOUSE_ABI_MINOR, \
    .struct_size = sizeof(clubhouse_plugin_descriptor)

/* The `build` string of a C plugin, from the version macros, eg: "abi=1.2;lang=c". */
#define CLUBHOUSE_BUILD_C "abi=" CLUBHOUSE_ABI_VERSION_STRING ";lang=c"

#ifdef __cplusplus
#define CLUBHOUSE_EXTERN_C extern "C"
#else
#define CLUBHOUSE_EXTERN_C
#endif

/* Defines and exports `clubhouse_plugin_entry`, returning the address of `descriptor` (a static
 * clubhouse_plugin_descriptor), or NULL for a host of another ABI major (the host would refuse the
 * plugin anyway; declining says so first). A plugin that must decline more (eg: a minor it needs)
 * writes its own entry instead, exported with CLUBHOUSE_EXPORT. */
#define CLUBHOUSE_DEFINE_ENTRY(descriptor)                                                         \
    CLUBHOUSE_EXTERN_C CLUBHOUSE_EXPORT const clubhouse_plugin_descriptor *clubhouse_plugin_entry( \
        const clubhouse_host_info *info) {                                                         \
        return info && info->abi_major != CLUBHOUSE_ABI_MAJOR ? NULL : &(descriptor);              \
    }

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_ENTRY_H */
