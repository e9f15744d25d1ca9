/* clubhouse/services/progress.h — "clubhouse.progress/1": progress of long work. Always granted.
 * The CLI draws a bar with rate and ETA on a terminal and stays quiet in pipes and with --quiet;
 * `serve` turns updates into JSON-RPC notifications. */
#ifndef CLUBHOUSE_SERVICES_PROGRESS_H
#define CLUBHOUSE_SERVICES_PROGRESS_H

#include <stddef.h>

#include "../call.h"
#include "../host.h" /* CLUBHOUSE_TABLE_HAS */

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_PROGRESS "clubhouse.progress/1"

typedef struct clubhouse_progress_service {
    uint32_t struct_size; /* sizeof(clubhouse_progress_service) as compiled by the host */

    /* [during-call] Starts a stage of `call`: what is being done (eg: "importing shots") and how
     * many units it has (0 when unknown). A new begin ends the previous stage. A label longer than
     * the site's "limits": {"progress_kb"} (default 16) is cut there, and says so. */
    void (*begin)(const clubhouse_call *call, const char *label, uint64_t total);

    /* [during-call] Reports `done` units of the current stage. Cheap: call it as often as you
     * like; the host rate-limits what it draws or sends. */
    void (*update)(const clubhouse_call *call, uint64_t done);

    /* [during-call] Ends the current stage (the bar is cleared). invoke returning ends it too. */
    void (*end)(const clubhouse_call *call);

    /* ---- Added in ABI 1.2 (probe with CLUBHOUSE_TABLE_HAS, host.h). ------------------------------ */

    /* [during-call] What the current stage counts: CLUBHOUSE_PROGRESS_UNIT_ITEMS (the default of
     * every stage) or CLUBHOUSE_PROGRESS_UNIT_BYTES, so the bar shows "12.3 MiB / 40.0 MiB,
     * 5.1 MiB/s". Call it right after begin; the next begin goes back to items. An unknown unit is
     * treated as items. */
    void (*set_unit)(const clubhouse_call *call, uint32_t unit);
} clubhouse_progress_service;

/* Units for set_unit. */
#define CLUBHOUSE_PROGRESS_UNIT_ITEMS 0u
#define CLUBHOUSE_PROGRESS_UNIT_BYTES 1u

/* Deprecated: CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, table, member) (host.h) says the same
 * for every table, eg:
 * if (CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, progress, set_unit)) progress->set_unit(call, unit);
 * Kept so that plugins written against 1.2 still compile. */
#define CLUBHOUSE_PROGRESS_HAS(table, member) CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, table, member)

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_PROGRESS_H */
