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
     * "cancel", a client that went away, an isolated plugin's wall-clock limit). Long work polls
     * it and returns CLUBHOUSE_CANCELLED, leaving nothing half-done.
     * What a cancelled call may still do: from the moment is_cancelled first answers 1, the call
     * has 5 s to clean up — stop its devices, store what really happened — during which its
     * storage calls run normally (a statement running when the cancel lands, before the plugin
     * looked, is interrupted: look, then store again). After the 5 s a statement running is
     * interrupted and every service that acts for the call is refused before it acts
     * (CLUBHOUSE_CANCELLED, or CLUBHOUSE_TIMEOUT when a wall-clock limit asked, with a message
     * "<act> was refused: …" naming the grace or the limit): storage prepare, exec, step, begin,
     * commit and migrate; publish; events; invoke; files; device open, write, read and
     * set_safe_state. Still allowed: rollback (a transaction open then is never committed: the
     * host rolls it back when the call ends), finalize, reset, device close, log, progress, config.
     * A device it left running is stopped by the host (services/device.h set_safe_state). An
     * isolated call's limits.wall_ms cancels it (and any call it invoked), and its services stop
     * at wall_ms + 5 s at the latest; a wait in a service (a device read, the plugin it invoked)
     * ends then too. A second Ctrl-C stops the devices at once and gives the call 3 s more. A call that
     * fails after the cancel ends CLUBHOUSE_CANCELLED (exit 130); its message is kept. A call that
     * returns CLUBHOUSE_OK after its 5 s ends CLUBHOUSE_CANCELLED (or CLUBHOUSE_TIMEOUT) too: its
     * result is dropped. */
    int32_t (*is_cancelled)(const struct clubhouse_call *call);
} clubhouse_call;

enum {
    /* The caller wants machine output only (--json, JSON-RPC): the "text" of the reply is unused. */
    CLUBHOUSE_CALL_MACHINE_OUTPUT = 1u << 0,
    /* A person is watching a terminal (progress bars are drawn, prompts would be seen). */
    CLUBHOUSE_CALL_INTERACTIVE = 1u << 1,
    /* The reply's "text" goes to a terminal that shows colour: the host sets it only when its
     * standard output is a terminal, NO_COLOR is unset or empty, --no-color was not given and TERM
     * is not "dumb"; never under `serve`, --json, a pipe or a file, nor for a call from another
     * plugin. The plugin MAY then put ANSI SGR sequences in the text (eg: "\033[1m" bold ...
     * "\033[0m" reset, as the SDK's tables do for their header row); without it the text MUST be
     * plain. C: `if (call->flags & CLUBHOUSE_CALL_STYLED_TEXT)` around the escape sequences.
     * Added in ABI 1.2 (an older host never sets it, so the text stays plain). */
    CLUBHOUSE_CALL_STYLED_TEXT = 1u << 2,
    /* The call came from a client of the network (`serve --http`, and the calls it makes in turn): a
     * string it gave is not a file of the host. The plugin MUST NOT open, test or list a path that is
     * not one of its path arguments (those come through services/files.h, which the host allows only
     * where the route declares them: an upload's body or an output); PluginKit's Files refuses any
     * other path then. Added in ABI 1.5 (the third outside attack, a10: a drill name over HTTP
     * read a file of the server's folder); an older host never sets it. */
    CLUBHOUSE_CALL_NETWORK = 1u << 3,
};

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_CALL_H */
