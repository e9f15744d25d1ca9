/* sqlite_memory.c — see include/sqlite_memory.h. */
#include "sqlite_memory.h"

#include <sqlite3.h>

static sqlite3_mem_methods system_methods;
static int installed;

/* This thread's budget: < 0 when none is running. */
static _Thread_local int64_t budget_limit = -1;
static _Thread_local int64_t budget_used;
static _Thread_local int64_t budget_peak;
static _Thread_local int budget_refused;

static void charge(int64_t bytes) {
    budget_used += bytes;
    if (budget_used > budget_peak) budget_peak = budget_used;
}

static void *counted_malloc(int n) {
    if (budget_limit < 0) return system_methods.xMalloc(n);
    if (budget_used + system_methods.xRoundup(n) > budget_limit) {
        budget_refused = 1;
        return 0;
    }
    void *p = system_methods.xMalloc(n);
    if (p) charge(system_methods.xSize(p));
    return p;
}

static void counted_free(void *p) {
    if (p && budget_limit >= 0) budget_used -= system_methods.xSize(p);
    system_methods.xFree(p);
}

static void *counted_realloc(void *p, int n) {
    if (budget_limit < 0) return system_methods.xRealloc(p, n);
    int64_t old = p ? system_methods.xSize(p) : 0;
    int64_t wanted = system_methods.xRoundup(n);
    if (wanted > old && budget_used + wanted - old > budget_limit) {
        budget_refused = 1;
        return 0;
    }
    void *q = system_methods.xRealloc(p, n);
    if (q) charge((int64_t)system_methods.xSize(q) - old);
    return q;
}

static int counted_size(void *p) { return system_methods.xSize(p); }
static int counted_roundup(int n) { return system_methods.xRoundup(n); }
static int counted_init(void *data) { return system_methods.xInit(data); }
static void counted_shutdown(void *data) { system_methods.xShutdown(data); }

/* Before main and before anything opens a database: SQLite takes a new allocator only before it
 * initializes. */
__attribute__((constructor)) static void clubhouse_sqlite_memory_install(void) {
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &system_methods) != SQLITE_OK) return;
    sqlite3_mem_methods counted = system_methods;
    counted.xMalloc = counted_malloc;
    counted.xFree = counted_free;
    counted.xRealloc = counted_realloc;
    counted.xSize = counted_size;
    counted.xRoundup = counted_roundup;
    counted.xInit = counted_init;
    counted.xShutdown = counted_shutdown;
    counted.pAppData = system_methods.pAppData;
    installed = sqlite3_config(SQLITE_CONFIG_MALLOC, &counted) == SQLITE_OK;
}

int clubhouse_sqlite_memory_installed(void) { return installed; }

int clubhouse_sqlite_memory_begin(int64_t limit) {
    if (budget_limit >= 0) return 0;
    budget_limit = limit < 0 ? 0 : limit;
    budget_used = 0;
    budget_peak = 0;
    budget_refused = 0;
    return 1;
}

int64_t clubhouse_sqlite_memory_end(void) {
    int64_t result = budget_refused ? -1 : budget_peak;
    budget_limit = -1;
    return result;
}
