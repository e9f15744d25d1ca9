/* clubhouse/services/events.h — "clubhouse.events/1": live events (ABI 1.3). Always offered.
 *
 * During a call, a plugin publishes a small JSON event on one of ITS topics: "a score was entered",
 * "ball 7 was launched". The topics are declared in the catalogue `describe` returns (entry.h):
 *
 *     {"commands": [...], "topics": [{"name": "score", "summary": "a score entered or corrected"}]}
 *
 * (a name is 1–64 characters: lowercase letters, digits, '-' and '.'; eg: "score", "drill.launch").
 * The host keeps the last events of each plugin in a bounded ring (256 events, in memory; a restart
 * of the host starts it empty) and hands each one to whoever listens: `GET /api/<alias>/events`
 * (Server-Sent Events, Host/HTTP.md "Events"), which resumes from the ring with Last-Event-ID.
 * Every event gets the next id of its plugin's ring (1, 2, 3, …). Nobody listening is not an error:
 * the event only goes into the ring.
 *
 * Ownership: `topic` and `json` are borrowed for the duration of the call to publish; the host copies
 * what it keeps. Statuses: CLUBHOUSE_OK (the event is in the ring and on its way to every listener);
 * CLUBHOUSE_INVALID_ARGUMENT (a topic the catalogue does not declare; `json` is not exactly one JSON
 * value, or is not UTF-8; the event is larger than CLUBHOUSE_EVENT_MAX_BYTES; `call` is not a
 * running call). A one-line message goes to `reply` on every failure. Publishing never blocks on a
 * listener: a listener that does not keep up is dropped by the host, not waited for. */
#ifndef CLUBHOUSE_SERVICES_EVENTS_H
#define CLUBHOUSE_SERVICES_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "../call.h"
#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_EVENTS "clubhouse.events/1"

/* The largest event the host takes: its JSON written compactly, in bytes. */
#define CLUBHOUSE_EVENT_MAX_BYTES 4096u

typedef struct clubhouse_events_service {
    uint32_t struct_size; /* sizeof(clubhouse_events_service) as compiled by the host */

    /* [during-call] Publishes `json` (`length` bytes, eg: {"round":3,"hole":7,"strokes":4}) on
     * `topic` (NUL-terminated, declared in the catalogue, eg: "score") of the plugin `host` was
     * created for, as part of `call`. On the thread running the call (in a runner only that thread, known by its kernel thread id;
     * in process a thread it started, while the call runs, too: clubhouse.h). Returns when the event is in the ring; listeners receive it in id order. */
    clubhouse_status (*publish)(const clubhouse_host *host, const clubhouse_call *call, const char *topic,
                                const char *json, size_t length, const clubhouse_reply *reply);
} clubhouse_events_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_EVENTS_H */
