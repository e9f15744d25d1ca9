/* clubhouse/call.h — one running command. */
#ifndef CLUBHOUSE_CALL_H
#define CLUBHOUSE_CALL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Passed to `invoke`; identifies the call to per-call services (progress, invoke). Owned by the
 * host and valid until `invoke` returns. */
typedef struct clubhouse_call {
    uint32_t struct_size; /* sizeof(clubhouse_call) as compiled by the host */
    uint32_t flags;       /* CLUBHOUSE_CALL_* below */
    uint64_t id;          /* unique within the host process, eg: 42 */
    void *host_data;      /* owned by the host */

    /* [any-thread] Nonzero once the caller asked to cancel this call (Ctrl-C, a JSON-RPC
     * "cancel"). Long work polls it and returns CLUBHOUSE_CANCELLED, leaving nothing half-done. */
    int32_t (*is_cancelled)(const struct clubhouse_call *call);
} clubhouse_call;

enum {
    /* The caller wants machine output only (--json, JSON-RPC): the "text" of the reply is unused. */
    CLUBHOUSE_CALL_MACHINE_OUTPUT = 1u << 0,
    /* A person is watching a terminal (progress bars are drawn, prompts would be seen). */
    CLUBHOUSE_CALL_INTERACTIVE = 1u << 1,
};

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_CALL_H */
