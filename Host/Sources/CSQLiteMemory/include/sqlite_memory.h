/* sqlite_memory.h — what SQLite may allocate on behalf of one plugin's statement.
 *
 * SQLite computes a result row inside sqlite3_step: every value of the row (and every value in
 * between: a concatenation, zeroblob, printf, group_concat) is allocated in the host's memory
 * before the host sees any of it. SQLITE_LIMIT_LENGTH bounds one value, not a row of many. So the
 * host wraps SQLite's allocator (installed before SQLite initializes, at load time) and charges
 * what SQLite allocates, net of what it frees, on the thread running a plugin's statement to that
 * statement: past its budget an allocation fails, and SQLite answers SQLITE_NOMEM, which the host
 * turns into the plugin's limit (PluginDatabase.withMemoryBudget). Outside a budget the wrapper
 * only passes through.
 *
 * [any-thread]: the budget is the calling thread's own (thread-local). */
#ifndef CLUBHOUSE_SQLITE_MEMORY_H
#define CLUBHOUSE_SQLITE_MEMORY_H

#include <stdint.h>

/* 1 when the accounting allocator is installed (SQLite was not initialized before this library
 * loaded), else 0: then budgets are not enforced. */
int clubhouse_sqlite_memory_installed(void);

/* Starts charging this thread's SQLite allocations to a budget of `limit` bytes. Returns 1 when it
 * started, 0 when a budget is already running on this thread (which then goes on; do not end it). */
int clubhouse_sqlite_memory_begin(int64_t limit);

/* Ends this thread's budget. Returns the most the budget held at once (bytes, net of frees), or
 * -1 when an allocation was refused for being past the budget. */
int64_t clubhouse_sqlite_memory_end(void);

#endif
