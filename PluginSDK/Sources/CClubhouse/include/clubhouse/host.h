/* clubhouse/host.h — what the host hands a plugin instance. */
#ifndef CLUBHOUSE_HOST_H
#define CLUBHOUSE_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Passed to `create`. Owned by the host, valid (with every service table obtained from it) until
 * `destroy` returns for the instance it was passed with. One host struct per instance. */
typedef struct clubhouse_host {
    uint32_t struct_size; /* sizeof(clubhouse_host) as compiled by the host */
    uint16_t abi_major;   /* CLUBHOUSE_ABI_MAJOR of the host */
    uint16_t abi_minor;   /* CLUBHOUSE_ABI_MINOR of the host */
    const char *name;     /* eg: "clubhouse" */
    const char *version;  /* the host's semver, eg: "1.0.0" */
    const char *site;     /* the site this instance serves, eg: "default", "presidio-golf-club" */
    const char *alias;    /* the name the site gives this plugin on the command line, eg: "putting" */
    void *host_data;      /* owned by the host; the plugin never touches it */

    /* [any-thread] Returns the function table of service `id` ("clubhouse.storage/1", see the
     * CLUBHOUSE_SERVICE_* ids in services/), or NULL when the host does not offer that service
     * or the site does not grant it to this plugin. The table is owned by the host and stays
     * valid as long as this host struct. Cast it to the service's struct type and check its
     * struct_size before using members added after the first version (CLUBHOUSE_TABLE_HAS). */
    const void *(*get_service)(const struct clubhouse_host *host, const char *id);
} clubhouse_host;

/* True when `table`, a non-NULL pointer to a `type` (a service table from get_service, or any
 * struct of this header that starts with struct_size), has `member`. A peer built before the
 * member was appended ("Added in ABI 1.x" in its header) hands out a shorter table; probe every
 * appended member before using it, eg:
 *   const clubhouse_progress_service *progress = host->get_service(host, CLUBHOUSE_SERVICE_PROGRESS);
 *   if (progress && CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, progress, set_unit))
 *       progress->set_unit(call, CLUBHOUSE_PROGRESS_UNIT_BYTES);
 * [any-thread] `table` is evaluated twice; the test is a comparison of sizes, nothing is called. */
#define CLUBHOUSE_TABLE_HAS(type, table, member) \
    ((size_t)(table)->struct_size >= offsetof(type, member) + sizeof(((const type *)0)->member))

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_HOST_H */
