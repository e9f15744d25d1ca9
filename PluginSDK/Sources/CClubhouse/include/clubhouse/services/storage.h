/* clubhouse/services/storage.h — "clubhouse.storage/1": the plugin's own SQLite database.
 *
 * Each plugin instance gets one database per site (a file in the site's data directory) and can
 * reach nothing else: the host's authorizer refuses ATTACH, DETACH, loading extensions and any
 * other database. WAL journal, foreign keys on, a busy timeout. Granted by "storage".
 *
 * The table mirrors SQLite's prepared-statement API so bulk work runs at SQLite speed:
 *   prepare → (bind… → step… → reset)* → finalize
 * Statements belong to the instance; finalize every statement before `destroy` returns (the host
 * finalizes leftovers and logs a warning). Column values returned as pointers are owned by the
 * host and valid until the next step, reset or finalize of that statement.
 *
 * Transactions: `begin` opens one (BEGIN IMMEDIATE); nested begins become savepoints. A plugin
 * that returns from invoke with a transaction still open has it rolled back by the host (with a
 * warning), thread-safe plugins included. A thread-safe plugin's concurrent calls share one
 * connection, so one transaction: it is rolled back at the end of the call that opened it.
 *
 * Untrusted SQL: names starting with "_clubhouse" belong to the host (plugins may read those
 * tables, never change, alter, create, drop or hook them); functions that reach outside the
 * database (load_extension, fts3_tokenizer, readfile, writefile, …) are refused
 * (CLUBHOUSE_DENIED). A statement still running when its call is cancelled, before the plugin
 * has seen the cancel (call.h), returns CLUBHOUSE_CANCELLED; once the plugin has seen it, its
 * statements run normally for 5 s (its grace for storing what it did and cleaning up), then a
 * running one is interrupted and prepare, exec and step are refused before they run ("the
 * statement was refused: …"), as are begin, commit and migrate ("commit was refused: …"; a
 * transaction still open is rolled back when the call ends, never committed; rollback stays
 * allowed); past the call's deadline CLUBHOUSE_TIMEOUT ("the statement was
 * interrupted: …"), and an isolated call's storage stops at its limits.wall_ms + 5 s at the latest.
 * A database written by a newer version of the plugin is refused; in a read-only data directory
 * reads work and writes fail naming the file.
 *
 * Limits: what a plugin may make the host hold is bounded by the site ("limits" in plugins.json),
 * in process and isolated alike: open statements (open_statements, 256), the memory they hold —
 * SQLite's for each compiled statement plus the text and blobs bound to them — (statement_mb, 64),
 * the SQL of one exec, prepare or migrate (sql_kb, 1024), the text and blobs bound to one statement
 * (bind_mb, 16) and one row (reply_mb, 64). Past one, the call returns CLUBHOUSE_DENIED (prepare,
 * exec and migrate with the message in `reply`; a bind or a step with it in `last_error`) naming
 * the plugin, the limit and the key that raises it; nothing else changes. Finalize statements a
 * plugin no longer needs.
 *
 * Threads: a thread-safe plugin's concurrent calls share the connection. `last_error` answers the
 * calling call's own last failure, so one call never reads (or outlives) another's message. In a
 * runner only a thread running create, invoke or destroy is served, known by its kernel thread id
 * (clubhouse.h, "Threads the
 * plugin starts itself"): another gets CLUBHOUSE_UNSUPPORTED, last_insert_rowid and changes 0.
 */
#ifndef CLUBHOUSE_SERVICES_STORAGE_H
#define CLUBHOUSE_SERVICES_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_STORAGE "clubhouse.storage/1"

/* A prepared statement. Opaque; owned by the host; valid until finalize. */
typedef struct clubhouse_stmt clubhouse_stmt;

/* Column types (the same numbers as SQLite's). */
enum {
    CLUBHOUSE_TYPE_INTEGER = 1,
    CLUBHOUSE_TYPE_FLOAT = 2,
    CLUBHOUSE_TYPE_TEXT = 3,
    CLUBHOUSE_TYPE_BLOB = 4,
    CLUBHOUSE_TYPE_NULL = 5,
};

typedef struct clubhouse_storage_service {
    uint32_t struct_size; /* sizeof(clubhouse_storage_service) as compiled by the host */

    /* [host-serialized] Runs `sql` (one or more statements, no results), eg: DDL.
     * Errors: CLUBHOUSE_ERROR, CLUBHOUSE_CONSTRAINT, CLUBHOUSE_DENIED (authorizer), CLUBHOUSE_BUSY;
     * the message goes to `reply` (which may be NULL when the caller does not want it). */
    clubhouse_status (*exec)(const clubhouse_host *host, const char *sql, const clubhouse_reply *reply);

    /* [host-serialized] Compiles one statement into *stmt. Errors as exec (eg: a syntax error, or
     * CLUBHOUSE_DENIED for "ATTACH 'other.db' AS o"). */
    clubhouse_status (*prepare)(const clubhouse_host *host, const char *sql, clubhouse_stmt **stmt,
                                const clubhouse_reply *reply);

    /* [host-serialized] Bind parameter `index` (1-based, as in SQLite). Text and blobs are copied
     * by the host before the call returns. CLUBHOUSE_INVALID_ARGUMENT for an index out of range. */
    clubhouse_status (*bind_null)(clubhouse_stmt *stmt, int32_t index);
    clubhouse_status (*bind_int64)(clubhouse_stmt *stmt, int32_t index, int64_t value);
    clubhouse_status (*bind_double)(clubhouse_stmt *stmt, int32_t index, double value);
    clubhouse_status (*bind_text)(clubhouse_stmt *stmt, int32_t index, const char *utf8, size_t length);
    clubhouse_status (*bind_blob)(clubhouse_stmt *stmt, int32_t index, const void *bytes, size_t length);

    /* [host-serialized] Advances the statement: CLUBHOUSE_ROW (a row is ready for column_*),
     * CLUBHOUSE_DONE (finished), or an error status (message from `last_error`). */
    clubhouse_status (*step)(clubhouse_stmt *stmt);

    /* [host-serialized] Rewinds the statement and clears its bindings, ready to bind and step again. */
    clubhouse_status (*reset)(clubhouse_stmt *stmt);

    /* [host-serialized] Destroys the statement. NULL is a no-op. */
    void (*finalize)(clubhouse_stmt *stmt);

    /* [host-serialized] The current row (after CLUBHOUSE_ROW). `column` is 0-based. */
    int32_t (*column_count)(clubhouse_stmt *stmt);
    int32_t (*column_type)(clubhouse_stmt *stmt, int32_t column);      /* CLUBHOUSE_TYPE_* */
    const char *(*column_name)(clubhouse_stmt *stmt, int32_t column);  /* host-owned, valid until finalize */
    int64_t (*column_int64)(clubhouse_stmt *stmt, int32_t column);
    double (*column_double)(clubhouse_stmt *stmt, int32_t column);
    /* UTF-8, NUL-terminated, byte count (without the NUL) in *length when not NULL; NULL for SQL NULL. */
    const char *(*column_text)(clubhouse_stmt *stmt, int32_t column, size_t *length);
    const void *(*column_blob)(clubhouse_stmt *stmt, int32_t column, size_t *length);

    /* [host-serialized] Transactions; see the top of this file. Errors go to `reply` (may be NULL). */
    clubhouse_status (*begin)(const clubhouse_host *host, const clubhouse_reply *reply);
    clubhouse_status (*commit)(const clubhouse_host *host, const clubhouse_reply *reply);
    clubhouse_status (*rollback)(const clubhouse_host *host);

    /* [host-serialized] The rowid of the last INSERT, and the rows changed by the last statement. */
    int64_t (*last_insert_rowid)(const clubhouse_host *host);
    int64_t (*changes)(const clubhouse_host *host);

    /* [host-serialized] The message of the last failed bind/step/reset of the calling call (host-owned,
     * valid until that call's next storage call; never free it), eg:
     * "UNIQUE constraint failed: shots.session_id, shots.row_index". */
    const char *(*last_error)(const clubhouse_host *host);

    /* [host-serialized] Schema migrations. Applies `sql` as migration `version` (1, 2, 3, … in
     * order) named `name` unless the database already records that version. The SQL and the
     * record are written in one transaction, so a failed migration leaves nothing behind.
     * Returns CLUBHOUSE_OK when applied or already present; CLUBHOUSE_INVALID_ARGUMENT when
     * `version` skips one; CLUBHOUSE_ERROR when a recorded version has a different name (a
     * plugin and a database that disagree about history), message in `reply`. */
    clubhouse_status (*migrate)(const clubhouse_host *host, int32_t version, const char *name, const char *sql,
                                const clubhouse_reply *reply);

    /* ---- Added in ABI 1.1: named parameters, columns by name. ---------------------------------
     * Probe each with CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, storage, member) (host.h).
     * Appended to this table rather than a "clubhouse.storage/2": they only add to the same
     * statements, nothing above changes meaning, so a plugin built against this header still works
     * with an older host by probing and an older plugin never sees them. A new service id would
     * make every plugin ask for two tables for one database.
     *
     * column_count and column_name above answer right after prepare (before any step), in process
     * and in an isolated runner alike, so a plugin can map column names to numbers once per
     * statement and read rows by name at the cost of an index. */

    /* [host-serialized] The 1-based index of the parameter named `name`, with its prefix as in the
     * SQL (":carry", "@carry" or "$carry"); 0 when the statement has no parameter of that name. */
    int32_t (*bind_parameter_index)(clubhouse_stmt *stmt, const char *name);

    /* [host-serialized] The largest parameter index of the statement (0 when it has none). */
    int32_t (*bind_parameter_count)(clubhouse_stmt *stmt);

    /* [host-serialized] The name of parameter `index` (1-based) with its prefix, eg ":carry";
     * NULL for a nameless "?" parameter or an index out of range. Host-owned, valid until finalize. */
    const char *(*bind_parameter_name)(clubhouse_stmt *stmt, int32_t index);

    /* [host-serialized] The 0-based number of the result column named `name` (exact match, as
     * column_name returns it), -1 when there is none. Valid right after prepare. */
    int32_t (*column_index)(clubhouse_stmt *stmt, const char *name);
} clubhouse_storage_service;

/* Deprecated since ABI 1.2: CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, table, member) (host.h)
 * says the same for every table. Kept so that plugins written against 1.1 still compile. */
#define CLUBHOUSE_STORAGE_HAS(table, member) CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, table, member)

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_STORAGE_H */
