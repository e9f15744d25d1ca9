#include <sqlite3.h>

/* Helpers for what Swift cannot call directly (variadic functions, macros). */

/* SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns. */
static inline sqlite3_destructor_type clubhouse_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* Hardens a connection a plugin will use, as SQLite's "Defense Against The Dark Arts" asks for
 * untrusted SQL: no extension loading at the C level, defensive mode (no writable schema, no
 * corrupting pragmas), untrusted schema (no SQL functions with side effects from views or
 * triggers), no two-argument fts3_tokenizer (it takes a raw pointer: a crash or worse), and
 * limits suited to a plugin (no attached databases, bounded lengths and depths).
 * Returns SQLITE_OK or the first error. */
static inline int clubhouse_sqlite_harden(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 256 * 1000 * 1000);     /* one value: 256 MB */
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 16 * 1000 * 1000);  /* one statement's text: 16 MB */
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 500);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 50);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
    return SQLITE_OK;
}

/* The current value of an on/off SQLITE_DBCONFIG_* option (-1 when it cannot be read). */
static inline int clubhouse_sqlite_config_value(sqlite3 *db, int option) {
    int value = -1;
    if (sqlite3_db_config(db, option, -1, &value) != SQLITE_OK) return -1;
    return value;
}
