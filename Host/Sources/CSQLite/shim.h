#include <sqlite3.h>

/* Helpers for what Swift cannot call directly (variadic functions, macros). */

/* SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns. */
static inline sqlite3_destructor_type clubhouse_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* Hardens a connection a plugin will use: no extension loading, defensive mode (no writable
 * schema, no corrupting pragmas), untrusted schema (no SQL functions with side effects from
 * views or triggers the plugin did not write itself). Returns SQLITE_OK or the first error. */
static inline int clubhouse_sqlite_harden(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    return rc;
}
