/* clubhouse/services/progress.h — "clubhouse.progress/1": progress of long work. Always granted.
 * The CLI draws a bar with rate and ETA on a terminal and stays quiet in pipes and with --quiet;
 * `serve` turns updates into JSON-RPC notifications. */
#ifndef CLUBHOUSE_SERVICES_PROGRESS_H
#define CLUBHOUSE_SERVICES_PROGRESS_H

#include "../call.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_PROGRESS "clubhouse.progress/1"

typedef struct clubhouse_progress_service {
    uint32_t struct_size; /* sizeof(clubhouse_progress_service) as compiled by the host */

    /* [during-call] Starts a stage of `call`: what is being done (eg: "importing shots") and how
     * many units it has (0 when unknown). A new begin ends the previous stage. */
    void (*begin)(const clubhouse_call *call, const char *label, uint64_t total);

    /* [during-call] Reports `done` units of the current stage. Cheap: call it as often as you
     * like; the host rate-limits what it draws or sends. */
    void (*update)(const clubhouse_call *call, uint64_t done);

    /* [during-call] Ends the current stage (the bar is cleared). invoke returning ends it too. */
    void (*end)(const clubhouse_call *call);
} clubhouse_progress_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_PROGRESS_H */
