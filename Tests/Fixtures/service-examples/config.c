/* The config service in C: read one key of the plugin's config, with the plugin's own default. */
#include <stdlib.h>
#include <clubhouse.h>

// BEGIN EXAMPLE
/* Collects a reply into a fixed buffer (the callee writes, the caller copies). */
typedef struct { char text[64]; size_t length; } small_buffer;

static void small_buffer_write(const clubhouse_reply *reply, const char *bytes, size_t length) {
    small_buffer *b = reply->caller_data;
    for (size_t i = 0; i < length && b->length + 1 < sizeof b->text; i++) b->text[b->length++] = bytes[i];
    b->text[b->length] = '\0';
}

/* The stimp (green speed) from {"config": {"greens": {"stimp": 10.5}}} in plugins.json, else 10. */
static double configured_stimp(const clubhouse_host *host) {
    const clubhouse_config_service *config = host->get_service(host, CLUBHOUSE_SERVICE_CONFIG);
    small_buffer value = {{0}, 0};
    clubhouse_reply sink = {sizeof sink, &value, small_buffer_write};
    if (config == NULL || config->get(host, "greens.stimp", &sink) != CLUBHOUSE_OK) return 10.0;
    char *end = NULL;
    double stimp = strtod(value.text, &end); /* the value is JSON: a number here */
    return (end != value.text && stimp > 0) ? stimp : 10.0;
}
// END EXAMPLE

void *config_example_entries[] = {(void *)configured_stimp};
