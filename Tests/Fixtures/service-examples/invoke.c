/* The invoke service in C: run another plugin's command as part of this call. */
#include <stdio.h>
#include <string.h>
#include <clubhouse.h>

// BEGIN EXAMPLE
/* Asks the plugin the site calls "scorecard" for the rounds of one player; its reply (or its
 * error message) goes straight to our caller. The site must grant "invoke:scorecard". */
static clubhouse_status player_rounds(const clubhouse_host *host, const clubhouse_call *call, const char *player,
                                      const clubhouse_reply *reply) {
    const clubhouse_invoke_service *invoke = host->get_service(host, CLUBHOUSE_SERVICE_INVOKE);
    if (invoke == NULL) {
        static const char message[] = "rounds needs scorecard: grant \"invoke:scorecard\" in plugins.json";
        reply->write(reply, message, sizeof message - 1);
        return CLUBHOUSE_DENIED;
    }
    char request[256]; /* a real plugin escapes `player` as JSON (clubhouse_helpers.h writes JSON) */
    int n = snprintf(request, sizeof request, "{\"arguments\":{\"player\":\"%s\"}}", player);
    if (n < 0 || (size_t)n >= sizeof request || strchr(player, '"') || strchr(player, '\\')) {
        static const char message[] = "player name too long or not plain text";
        reply->write(reply, message, sizeof message - 1);
        return CLUBHOUSE_INVALID_ARGUMENT;
    }
    return invoke->invoke(host, call, "scorecard", "rounds", request, (size_t)n, reply);
}
// END EXAMPLE

void *invoke_example_entries[] = {(void *)player_rounds};
