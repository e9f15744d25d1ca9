/* clubhouse/reply.h — the only way data leaves a call: the callee writes, the caller copies. */
#ifndef CLUBHOUSE_REPLY_H
#define CLUBHOUSE_REPLY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A sink owned by the caller and valid only until the function it was passed to returns.
 *
 * On CLUBHOUSE_OK the bytes written are the result (JSON unless the function says otherwise).
 * On any other status they are a one-line, human-readable message: what went wrong, where
 * (file:line:column when there is a file), and what to do — eg:
 *   "course 'presidio' has no hole 12 (holes 1-9); list them with 'putting holes presidio'"
 * A callee may write in several pieces; the caller concatenates them. */
typedef struct clubhouse_reply {
    uint32_t struct_size; /* sizeof(clubhouse_reply) as compiled by the caller, mandatory */
    void *caller_data;    /* owned by the caller; the callee never touches it */

    /* [during-call] Appends `length` bytes to the reply. `bytes` is borrowed for this call. */
    void (*write)(const struct clubhouse_reply *reply, const char *bytes, size_t length);
} clubhouse_reply;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_REPLY_H */
