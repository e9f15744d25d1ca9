/* The log service in C: messages at a level, and a costly message built only when shown. */
#include <stdio.h>
#include <clubhouse.h>

// BEGIN EXAMPLE
static void log_import_summary(const clubhouse_host *host, const char *file, long rows, long skipped) {
    const clubhouse_log_service *log = host->get_service(host, CLUBHOUSE_SERVICE_LOG);
    if (log == NULL) return; /* always offered; a NULL check keeps an old host harmless */
    if (skipped > 0) log->write(host, CLUBHOUSE_LOG_WARNING, "some rows were skipped; run with -v for the count");
    if (log->enabled(host, CLUBHOUSE_LOG_INFO)) { /* build the message only when it is shown */
        char line[256];
        snprintf(line, sizeof line, "%s: %ld rows imported, %ld skipped", file, rows, skipped);
        log->write(host, CLUBHOUSE_LOG_INFO, line);
    }
}
// END EXAMPLE

void *log_example_entries[] = {(void *)log_import_summary};
