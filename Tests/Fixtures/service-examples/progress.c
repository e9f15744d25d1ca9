/* The progress service in C: a stage with a known total, updated per unit, cancellable. */
#include <clubhouse.h>

// BEGIN EXAMPLE
static clubhouse_status replay_shots(const clubhouse_host *host, const clubhouse_call *call, uint64_t shots,
                                     const clubhouse_reply *reply) {
    const clubhouse_progress_service *progress = host->get_service(host, CLUBHOUSE_SERVICE_PROGRESS);
    if (progress) progress->begin(call, "replaying shots", shots);
    for (uint64_t done = 0; done < shots; done++) {
        if (call->is_cancelled(call)) { /* leave nothing half-done, say so */
            static const char message[] = "replay cancelled; nothing was saved";
            reply->write(reply, message, sizeof message - 1);
            return CLUBHOUSE_CANCELLED; /* returning ends the stage too */
        }
        /* ... one shot's work ... */
        if (progress) progress->update(call, done + 1); /* cheap: the host rate-limits drawing */
    }
    if (progress) progress->end(call);
    return CLUBHOUSE_OK;
}
// END EXAMPLE

void *progress_example_entries[] = {(void *)replay_shots};
