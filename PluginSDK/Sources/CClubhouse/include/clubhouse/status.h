/* clubhouse/status.h — what every call returns. */
#ifndef CLUBHOUSE_STATUS_H
#define CLUBHOUSE_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t clubhouse_status;

enum {
    /* Success. */
    CLUBHOUSE_OK = 0,
    /* The operation failed; a one-line message saying what and what to do is in the reply.
     * The CLI exits with 1. */
    CLUBHOUSE_ERROR = 1,
    /* The request itself is wrong (bad or missing argument, value out of range). The CLI exits
     * with 2, the usage-error code. */
    CLUBHOUSE_INVALID_ARGUMENT = 2,
    /* Something named in the request does not exist (a course, a row, a command, an input file
     * the caller gave). The CLI exits with 2, like an invalid argument: the request is wrong.
     * Something the world lacks (a device that is unplugged, a server not listening) is
     * CLUBHOUSE_IO, exit 1. */
    CLUBHOUSE_NOT_FOUND = 3,
    /* The site configuration does not grant this (a service, a device, calling a plugin). */
    CLUBHOUSE_DENIED = 4,
    /* The callee does not implement this (unknown service id, command, or struct too small). */
    CLUBHOUSE_UNSUPPORTED = 5,
    /* A resource is in use (a device awaiting a reply, a locked database past its timeout). */
    CLUBHOUSE_BUSY = 6,
    /* A wait ran out (device read, reply from an isolated plugin). */
    CLUBHOUSE_TIMEOUT = 7,
    /* The caller cancelled the call (clubhouse_call.is_cancelled became true). */
    CLUBHOUSE_CANCELLED = 8,
    /* An operating-system I/O error (file, socket, tty). */
    CLUBHOUSE_IO = 9,
    /* A storage constraint refused the change (UNIQUE, FOREIGN KEY, CHECK, a trigger's ABORT). */
    CLUBHOUSE_CONSTRAINT = 10,
    /* The plugin crashed or broke the protocol (only reported by the host for isolated plugins). */
    CLUBHOUSE_PLUGIN_FAILED = 11,
    /* The command would do something permanent to incomplete data (finish a round with holes
     * unscored) and the request did not confirm it (its `yes` flag). The reply is the question,
     * one line, eg: "round 3 has 17 unscored holes; finish it anyway? It cannot be undone".
     * The CLI asks it on a terminal and, on "y", calls again with `--yes`; elsewhere it exits
     * with 2 (the request is incomplete) and says to pass --yes. A JSON-RPC client resends the
     * call with "yes": true. Added in ABI 1.1 (an older host reports it as CLUBHOUSE_ERROR). */
    CLUBHOUSE_NEEDS_CONFIRMATION = 12,

    /* Not errors: results of clubhouse_storage_service.step. */
    CLUBHOUSE_ROW = 100,
    CLUBHOUSE_DONE = 101,
};

/* A short lowercase name for a status ("ok", "invalid-argument", ...); "unknown" otherwise.
 * [any-thread] The string is static; never free it. Header-only (`static inline`): compiled into
 * whatever includes this header, so a plugin built against the header alone has it, and it is
 * no symbol of the ABI (the host exports none). */
static inline const char *clubhouse_status_name(clubhouse_status status) {
    switch (status) {
    case CLUBHOUSE_OK: return "ok";
    case CLUBHOUSE_ERROR: return "error";
    case CLUBHOUSE_INVALID_ARGUMENT: return "invalid-argument";
    case CLUBHOUSE_NOT_FOUND: return "not-found";
    case CLUBHOUSE_DENIED: return "denied";
    case CLUBHOUSE_UNSUPPORTED: return "unsupported";
    case CLUBHOUSE_BUSY: return "busy";
    case CLUBHOUSE_TIMEOUT: return "timeout";
    case CLUBHOUSE_CANCELLED: return "cancelled";
    case CLUBHOUSE_IO: return "io";
    case CLUBHOUSE_CONSTRAINT: return "constraint";
    case CLUBHOUSE_PLUGIN_FAILED: return "plugin-failed";
    case CLUBHOUSE_NEEDS_CONFIRMATION: return "needs-confirmation";
    case CLUBHOUSE_ROW: return "row";
    case CLUBHOUSE_DONE: return "done";
    default: return "unknown";
    }
}

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_STATUS_H */
