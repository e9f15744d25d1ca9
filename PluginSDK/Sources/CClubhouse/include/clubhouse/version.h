/* clubhouse/version.h — ABI version and magic. */
#ifndef CLUBHOUSE_VERSION_H
#define CLUBHOUSE_VERSION_H

#include <stdint.h>

/* "CLUB" in ASCII. The first field of every descriptor; anything else is not a Clubhouse plugin. */
#define CLUBHOUSE_MAGIC 0x434C5542u

/* The ABI this header describes.
 * MAJOR changes break compatibility: the host refuses a plugin whose major differs from its own.
 * MINOR changes only add (struct members at the end, new services): a host accepts plugins built
 * against a newer minor and probes what exists through struct_size and get_service. */
#define CLUBHOUSE_ABI_MAJOR 1
/* 1.1 added: CLUBHOUSE_NEEDS_CONFIRMATION (status.h), the clubhouse.files/1 service (services/files.h),
 * and named parameters and column lookup at the end of the storage table (services/storage.h). */
/* 1.2 added: CLUBHOUSE_CALL_STYLED_TEXT (call.h), and set_unit with CLUBHOUSE_PROGRESS_UNIT_* at the
 * end of the progress table (services/progress.h). */
/* 1.3 added: set_safe_state and address at the end of the device table (services/device.h); the
 * clubhouse.events/1 service and "topics" in the catalogue (both in services/events.h). */
/* 1.4 added: the clubhouse.publish/1 service (the outbox) and "records" in the catalogue (both in
 * services/publish.h). */
/* 1.5 added: CLUBHOUSE_CALL_NETWORK (call.h). */
/* 1.6 added: "concurrent" on a command in the catalogue (entry.h). */
/* 1.7 added: "cache" on a read command in the catalogue (entry.h). */
#define CLUBHOUSE_ABI_MINOR 7

#define CLUBHOUSE_STRINGIFY_(x) #x
#define CLUBHOUSE_STRINGIFY(x) CLUBHOUSE_STRINGIFY_(x)
/* eg: "1.0" */
#define CLUBHOUSE_ABI_VERSION_STRING \
    CLUBHOUSE_STRINGIFY(CLUBHOUSE_ABI_MAJOR) "." CLUBHOUSE_STRINGIFY(CLUBHOUSE_ABI_MINOR)

#endif /* CLUBHOUSE_VERSION_H */
