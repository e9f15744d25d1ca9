/* clubhouse/host.h — what the host hands a plugin instance. */
#ifndef CLUBHOUSE_HOST_H
#define CLUBHOUSE_HOST_H

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
     * struct_size before using members added after the first version. */
    const void *(*get_service)(const struct clubhouse_host *host, const char *id);
} clubhouse_host;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_HOST_H */
