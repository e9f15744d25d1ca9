/*
 * clubhouse.h — the Clubhouse plugin ABI, version 1.7 (umbrella header; the version is
 * CLUBHOUSE_ABI_MAJOR.CLUBHOUSE_ABI_MINOR of clubhouse/version.h, which a test compares with this line).
 *
 * A Clubhouse plugin is a shared library that exports ONE function, `clubhouse_plugin_entry`
 * (entry.h), returning a descriptor: who the plugin is, what it needs, and four entry points
 * (describe, create, destroy, invoke). Everything else the plugin uses — logging, its
 * configuration, its database, progress reporting, other plugins, devices — it asks the host
 * for by name through `host->get_service(host, "clubhouse.storage/1")` (host.h, services/).
 *
 * Lifecycle (what may be called in which state):
 *
 *   dlopen ─► entry(info) ─► descriptor checks ─► describe() any time, no instance needed
 *                                              └► create(host) ─► invoke()* ─► destroy()
 *
 *   - `entry` may be called more than once and must return the same descriptor each time; it
 *     may return NULL to decline a host it cannot serve (e.g. an ABI minor it needs is missing).
 *   - `describe` is pure: no services, no instance. It lists the plugin's commands as JSON.
 *   - `create` makes an instance bound to one site; services obtained from that host stay valid
 *     until `destroy` returns. A failed create leaves nothing to destroy.
 *   - `invoke` runs one command. Unless the descriptor sets CLUBHOUSE_PLUGIN_THREAD_SAFE the
 *     host never runs two calls into the same instance at once ([host-serialized]).
 *   - The library is never unmapped (the host loads with RTLD_NODELETE): "unload" destroys the
 *     instances and disables the plugin.
 *
 * Rules that hold everywhere:
 *   - Strings are UTF-8 and NUL-terminated unless a length is given; a pointer passed INTO a
 *     function is borrowed for the duration of that call only.
 *   - Results leave a function only through a `clubhouse_reply` sink (reply.h): the callee
 *     writes, the caller copies. Neither side ever frees memory the other allocated.
 *   - Every fallible function returns a `clubhouse_status` (status.h). Plugins never terminate
 *     the process, never throw across the boundary, and never longjmp out of a callback.
 *   - A table grows only at its end. Every struct and service table starts with `struct_size`
 *     (sizeof the table as its writer compiled it), so the reader knows which members exist.
 *     Within ABI major 1 a minor version may append members at the end of a shipped table —
 *     storage.h did in 1.1, progress.h in 1.2, as SQLite appends to sqlite3_api_routines — and
 *     each appended block says "Added in ABI 1.x". A reader probes an appended member with
 *     CLUBHOUSE_TABLE_HAS (host.h) before using it: an older peer's table ends before it.
 *   - A member never changes meaning, type or place, and none is removed. A changed meaning is
 *     a new service id ("clubhouse.storage/2") offered beside the old one, as CLAP versions its
 *     extensions; a new capability of its own is a new service id too (files.h, ABI 1.1).
 *
 * Calling-context tags used on every function:
 *   [any-thread]        may be called from any thread at any time the object is valid
 *   [host-serialized]   the host never calls it concurrently for one instance (unless the plugin
 *                       declared CLUBHOUSE_PLUGIN_THREAD_SAFE, then [any-thread])
 *   [during-call]       only while the host→plugin call that supplied the object is running,
 *                       on the thread that runs it (create, invoke)
 *
 * Threads the plugin starts itself: in a runner (isolation "process" or "sandbox") a service that
 * acts for a call — storage, device (all but close), invoke, files, events, publish, progress —
 * serves only the thread the host runs create, invoke or destroy on, and for a function given a
 * `clubhouse_call` only the thread running that call. Any other thread, one the call started while
 * it runs included, gets CLUBHOUSE_UNSUPPORTED with the reason in `reply` (storage: in last_error)
 * and nothing reaches the host: a thread cannot act inside a later call, or between calls. Log and
 * config are [any-thread]; storage's finalize and a device's close only release and are served to
 * any thread. The runner knows that thread by its kernel thread id (gettid), recorded in its own
 * memory: a thread that copies the call thread's thread-specific values, or a raw clone that shares
 * its TLS, is another thread and is refused. This wall stops threads that use the ABI. A plugin that
 * deliberately rewrites the runner's memory, or writes frames on the runner's pipes itself, can act
 * inside a call its runner is serving — with that call's grants only, which the plugin's own code
 * for that call holds anyway: nothing beyond the plugin's own privileges, and never another
 * plugin's. In process this is not checked (the plugin is trusted code); do not rely on that.
 *
 * Signals: in a runner, the threads the host runs create, invoke and destroy on hold every signal
 * (blocked from before the plugin is loaded, and again after each call, whatever the call did to the
 * mask). A handler the plugin installed does not run on them: a signal aimed at such a thread (a
 * SIGEV_THREAD_ID timer an earlier call armed, pthread_kill) is not delivered, so its handler never
 * acts as another call. A process-directed signal goes to another thread (where the services refuse
 * a handler, as any thread that runs no call); a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) still ends
 * the runner as a crash; threads and processes a call starts inherit the mask. A call that unblocks a
 * signal itself receives it in that call; the services are not re-entrant from its handler (a service
 * called there while the thread waits in another may hold the call until its wall-clock limit, then
 * the runner is restarted). In process the host leaves the mask alone.
 */
#ifndef CLUBHOUSE_H
#define CLUBHOUSE_H

#include "clubhouse/version.h"
#include "clubhouse/status.h"
#include "clubhouse/reply.h"
#include "clubhouse/host.h"
#include "clubhouse/call.h"
#include "clubhouse/entry.h"
#include "clubhouse/services/log.h"
#include "clubhouse/services/config.h"
#include "clubhouse/services/storage.h"
#include "clubhouse/services/progress.h"
#include "clubhouse/services/invoke.h"
#include "clubhouse/services/device.h"
#include "clubhouse/services/files.h" /* added in ABI 1.1: a new service id, no shipped table changed */
#include "clubhouse/services/events.h" /* added in ABI 1.3: a new service id */
#include "clubhouse/services/publish.h" /* added in ABI 1.4: a new service id (the outbox) */

#endif /* CLUBHOUSE_H */
