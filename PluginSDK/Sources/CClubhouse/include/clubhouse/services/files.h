/* clubhouse/services/files.h — "clubhouse.files/1": the files a call's caller named, as open
 * descriptors. Always offered (it reaches nothing but the running call's own path arguments).
 * Added in ABI 1.1, as a service id of its own (an ABI 1.0 host answers NULL for it).
 *
 * Path arguments are capabilities. A catalogue argument of type "path" declares
 * "access": "read" (the default) or "write" (entry.h). For the running call, a plugin asks for the
 * descriptor of one of its path arguments BY NAME; the host opens exactly the path the caller
 * passed and nothing else. With "isolation": "sandbox" this is the only way a plugin reaches a
 * file (the kernel refuses every open(2) of its own); in process and in a runner the same service
 * works the same way, so a plugin written against it runs unchanged under every isolation.
 *
 * Read access ("-" is standard input): the file opened O_RDONLY, or a FOLDER opened
 * O_RDONLY|O_DIRECTORY (list it with fdopendir; open what is inside with `open_beneath`).
 *
 * Write access ("-" is standard output), by the one output rule of PluginKit's `Files`:
 *   - a regular file (or a new one) gets a NEW temporary file beside it; the host renames it over
 *     the target when the call returns CLUBHOUSE_OK and removes it otherwise, so a failed call
 *     leaves nothing behind (asking twice in one call returns the same file, duplicated);
 *   - a symbolic link is written through (the temporary file sits beside its final target);
 *   - a FIFO or a device is opened as a stream (O_WRONLY), never replaced;
 *   - a folder or a socket is refused (CLUBHOUSE_INVALID_ARGUMENT), a missing parent folder too
 *     (CLUBHOUSE_NOT_FOUND): the host creates no folders for a file argument.
 *
 * Ownership: every descriptor returned is the plugin's (close it; it is close-on-exec). The host
 * keeps its own copy of a write target until the call ends. Statuses: CLUBHOUSE_OK;
 * CLUBHOUSE_NOT_FOUND (no such argument in this call, or the path does not exist);
 * CLUBHOUSE_DENIED (write access to a "read" argument; a relative path that leaves the folder);
 * CLUBHOUSE_INVALID_ARGUMENT (bad parameters, a folder where a file is needed); CLUBHOUSE_IO.
 * A one-line message goes to `reply` on every failure. */
#ifndef CLUBHOUSE_SERVICES_FILES_H
#define CLUBHOUSE_SERVICES_FILES_H

#include <stdint.h>

#include "../call.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_FILES "clubhouse.files/1"

/* The `access` of a request. */
#define CLUBHOUSE_FILE_READ 1u
#define CLUBHOUSE_FILE_WRITE 2u

typedef struct clubhouse_files_service {
    uint32_t struct_size; /* sizeof(clubhouse_files_service) as compiled by the host */

    /* [during-call] The descriptor of path argument `name` of `call`, stored in *fd (the
     * plugin's: it closes it). `access` is CLUBHOUSE_FILE_READ or CLUBHOUSE_FILE_WRITE; WRITE
     * only for an argument declared "access": "write". On the thread running the call (in a
     * runner only that thread, known by its kernel thread id; in process a thread it started, while the call runs, too: clubhouse.h). */
    clubhouse_status (*open_argument)(const clubhouse_call *call, const char *name, uint32_t access, int *fd,
                                      const clubhouse_reply *reply);

    /* [during-call] Opens `relative` (a relative path, no "..") beneath the FOLDER given as
     * read argument `name`, read-only, and stores the descriptor in *fd (a folder inside comes
     * back as a folder's descriptor: list it with fdopendir). The host resolves it with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS):
     * ".." that would leave the folder, absolute paths and symbolic links pointing outside it are
     * refused (CLUBHOUSE_DENIED); links that stay inside are followed. */
    clubhouse_status (*open_beneath)(const clubhouse_call *call, const char *name, const char *relative, int *fd,
                                     const clubhouse_reply *reply);
} clubhouse_files_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_FILES_H */
