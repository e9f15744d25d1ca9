/* Status names for logs and error messages (see status.h). */
#include "clubhouse.h"

const char *clubhouse_status_name(clubhouse_status status) {
    switch (status) {
    case CLUBHOUSE_OK: return "ok";
    case CLUBHOUSE_ERROR: return "error";
    case CLUBHOUSE_INVALID_ARGUMENT: return "invalid-argument";
    case CLUBHOUSE_NOT_FOUND: return "not-found";
    case CLUBHOUSE_DENIED: return "denied";
    case CLUBHOUSE_UNSUPPORTED: return "unsupported";
    case CLUBHOUSE_BUSY: return "busy";
    case CLUBHOUSE_TIMEOUT: return "timeout";
    case CLUBHOUSE_CANCELLED: return "cancelled";
    case CLUBHOUSE_IO: return "io";
    case CLUBHOUSE_CONSTRAINT: return "constraint";
    case CLUBHOUSE_PLUGIN_FAILED: return "plugin-failed";
    case CLUBHOUSE_NEEDS_CONFIRMATION: return "needs-confirmation";
    case CLUBHOUSE_ROW: return "row";
    case CLUBHOUSE_DONE: return "done";
    default: return "unknown";
    }
}
