/* clubhouse/services/config.h — "clubhouse.config/1": the plugin's `config` object from the
 * site's plugins.json. Always granted. */
#ifndef CLUBHOUSE_SERVICES_CONFIG_H
#define CLUBHOUSE_SERVICES_CONFIG_H

#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_CONFIG "clubhouse.config/1"

typedef struct clubhouse_config_service {
    uint32_t struct_size; /* sizeof(clubhouse_config_service) as compiled by the host */

    /* [any-thread] Writes the JSON value at `key` to `reply`. Keys are dotted paths into the
     * plugin's config object, eg: "physics.past_hole_in" ; "" is the whole object ({} when the
     * site gives none). Returns CLUBHOUSE_OK, or CLUBHOUSE_NOT_FOUND (nothing written) when the
     * key is absent — the plugin then applies its own default. */
    clubhouse_status (*get)(const clubhouse_host *host, const char *key, const clubhouse_reply *reply);
} clubhouse_config_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_CONFIG_H */
