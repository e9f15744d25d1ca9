/* clubhouse/services/invoke.h — "clubhouse.invoke/1": call another plugin's command.
 * Granted per target: the site lists "invoke:<alias>" (or "invoke:*") in the caller's grants. */
#ifndef CLUBHOUSE_SERVICES_INVOKE_H
#define CLUBHOUSE_SERVICES_INVOKE_H

#include <stddef.h>

#include "../call.h"
#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_INVOKE "clubhouse.invoke/1"

typedef struct clubhouse_invoke_service {
    uint32_t struct_size; /* sizeof(clubhouse_invoke_service) as compiled by the host */

    /* [during-call] Runs `command` of the plugin the site calls `alias` (eg: "scorecard"), with
     * the request JSON {"arguments": {...}} (`request_length` bytes), as part of `call`.
     * Writes the target's reply ({"data": ..., "text": ...}) or its error message to `reply` and
     * returns the target's status; CLUBHOUSE_DENIED when the site does not grant the call,
     * CLUBHOUSE_NOT_FOUND for an unknown alias or command. A plugin cannot invoke itself
     * (CLUBHOUSE_DENIED: it would deadlock on its own serialization). */
    clubhouse_status (*invoke)(const clubhouse_host *host, const clubhouse_call *call,
                               const char *alias, const char *command,
                               const char *request, size_t request_length,
                               const clubhouse_reply *reply);
} clubhouse_invoke_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_INVOKE_H */
