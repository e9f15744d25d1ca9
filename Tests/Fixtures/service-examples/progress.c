/* The progress service in C: a stage counted in bytes, then one with a known total of shots,
 * updated per unit, cancellable. */
#include <clubhouse.h>

// BEGIN EXAMPLE
static clubhouse_status replay_shots(const clubhouse_host *host, const clubhouse_call *call, const char *data,
                                     size_t size, const clubhouse_reply *reply) {
    const clubhouse_progress_service *progress = host->get_service(host, CLUBHOUSE_SERVICE_PROGRESS);
    /* Stage 1 counts bytes: the bar shows "1.2 MiB / 3.0 MiB  5.1 MiB/s". set_unit is new in
     * ABI 1.2, so probe it: an older host's table is shorter and draws the stage in items. */
    if (progress) {
        progress->begin(call, "reading shots", size);
        if (CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, progress, set_unit))
            progress->set_unit(call, CLUBHOUSE_PROGRESS_UNIT_BYTES);
    }
    uint64_t shots = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] != '\n') continue;
        shots++;
        if (progress) progress->update(call, i + 1);
    }
    /* Stage 2 counts shots: a new begin ends the previous stage and counts items again. */
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
