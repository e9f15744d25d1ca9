/* clubhouse/services/publish.h — "clubhouse.publish/1": the outbox (ABI 1.4). Offered to a plugin
 * the site grants "storage" (the outbox lives in the plugin's own database).
 *
 * During a call, inside a storage transaction the plugin opened (services/storage.h `begin`), a
 * plugin publishes a RECORD: a fact it wants shared beyond this site (a round played, a shot hit).
 * The host writes the record into a host table of the plugin's database, in that same transaction:
 * a record exists exactly when the data it describes was committed, and a transaction rolled back
 * (or left open at the end of the call, which the host rolls back) leaves no record. The host ships
 * waiting records to the site's federation (`clubhouse federation push`: PostgreSQL through psql)
 * and `clubhouse outbox --site S` lists them. Plugin SQL can neither read nor change the outbox.
 *
 * Record topics are declared in the catalogue `describe` returns (entry.h), beside "topics":
 *
 *     {"commands": [...], "records": [{"name": "round", "summary": "a finished round"}]}
 *
 * (a name is 1–64 characters: lowercase letters, digits, '-' and '.'; eg: "round", "score.entry").
 *
 * Each record as the host keeps it: site, plugin id and version, topic, key, a sequence number (1, 2,
 * 3, … per plugin database of a site: the order the records were committed in), the body in the
 * canonical form of RFC 8785 (JSON Canonicalization Scheme) and the SHA-256 of those bytes (the
 * record's identity: the same body published twice under one topic and key is one record to a
 * federation). A key says what the record is about (eg: "round/42", "session/9f86…"; 1–256 bytes of
 * printable ASCII without spaces).
 *
 * Ownership: `topic`, `key` and `json` are borrowed for the duration of the call; the host copies
 * what it keeps. Statuses: CLUBHOUSE_OK (the record is written in the open transaction);
 * CLUBHOUSE_INVALID_ARGUMENT (a topic the catalogue does not declare; a bad key; `json` is not
 * exactly one JSON value, not UTF-8, or has a number RFC 8785 cannot represent; its canonical form
 * is larger than CLUBHOUSE_RECORD_MAX_BYTES; no transaction is open; `call` is not a running call);
 * CLUBHOUSE_DENIED (storage is not granted; the database is read-only); CLUBHOUSE_BUSY (the outbox
 * holds CLUBHOUSE_OUTBOX_MAX_RECORDS records not shipped yet: push them first); CLUBHOUSE_IO (the
 * database failed). A one-line message goes to `reply` on every failure. */
#ifndef CLUBHOUSE_SERVICES_PUBLISH_H
#define CLUBHOUSE_SERVICES_PUBLISH_H

#include <stddef.h>
#include <stdint.h>

#include "../call.h"
#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_PUBLISH "clubhouse.publish/1"

/* The largest record body the host takes: its canonical JSON (RFC 8785), in bytes. */
#define CLUBHOUSE_RECORD_MAX_BYTES 65536u
/* The longest record key, in bytes. */
#define CLUBHOUSE_RECORD_KEY_MAX_BYTES 256u
/* Records an outbox holds before the host refuses more (CLUBHOUSE_BUSY) until some are shipped. */
#define CLUBHOUSE_OUTBOX_MAX_RECORDS 1000000u

typedef struct clubhouse_publish_service {
    uint32_t struct_size; /* sizeof(clubhouse_publish_service) as compiled by the host */

    /* [during-call] Publishes the record `json` (`length` bytes, one JSON value, eg:
     * {"round":42,"player":"M-1001","differential":12.3}) on `topic` (NUL-terminated, declared in
     * the catalogue's "records", eg: "round") with `key` (NUL-terminated, eg: "round/42") as part of
     * `call`, inside the storage transaction the plugin has open (a savepoint rolled back takes the
     * record with it). On the thread running the call. Returns when the record is written. */
    clubhouse_status (*publish)(const clubhouse_host *host, const clubhouse_call *call, const char *topic,
                                const char *key, const char *json, size_t length, const clubhouse_reply *reply);
} clubhouse_publish_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_PUBLISH_H */
