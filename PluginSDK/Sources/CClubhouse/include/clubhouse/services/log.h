/* clubhouse/services/log.h — "clubhouse.log/1": messages into the host's log. Always granted. */
#ifndef CLUBHOUSE_SERVICES_LOG_H
#define CLUBHOUSE_SERVICES_LOG_H

#include "../host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_LOG "clubhouse.log/1"

enum {
    CLUBHOUSE_LOG_ERROR = 0,
    CLUBHOUSE_LOG_WARNING = 1,
    CLUBHOUSE_LOG_INFO = 2,   /* shown with --verbose */
    CLUBHOUSE_LOG_DEBUG = 3,  /* shown with --verbose --verbose */
    CLUBHOUSE_LOG_TRACE = 4,  /* device traffic and the like; shown with -vvv */
};

typedef struct clubhouse_log_service {
    uint32_t struct_size; /* sizeof(clubhouse_log_service) as compiled by the host */

    /* [any-thread] Logs one message (UTF-8, borrowed) at `level`. The host prefixes the plugin's
     * alias and drops messages below the level the user asked for, so calling it is cheap. A
     * message longer than the site's "limits": {"log_kb"} (default 1024) is cut there and ends
     * with " … (cut at N KiB: …)"; the host reads no more of it. */
    void (*write)(const clubhouse_host *host, int32_t level, const char *message);

    /* [any-thread] Nonzero when messages at `level` would be shown (skip building costly ones). */
    int32_t (*enabled)(const clubhouse_host *host, int32_t level);
} clubhouse_log_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_LOG_H */
