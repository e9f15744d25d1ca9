/* The device service in C: write one frame to the ball machine and read its reply. */
#include <stdio.h>
#include <string.h>
#include <clubhouse.h>

// BEGIN EXAMPLE
/* Sends "FEED <n>\n" to the device the site calls "ballmachine" (grant "device:ballmachine")
 * and waits up to 2 s for its answer, eg "OK\n". */
static clubhouse_status feed_balls(const clubhouse_host *host, int count, const clubhouse_reply *reply) {
    const clubhouse_device_service *devices = host->get_service(host, CLUBHOUSE_SERVICE_DEVICE);
    if (devices == NULL) {
        static const char message[] = "feed needs the ball machine: grant \"device:ballmachine\" in plugins.json";
        reply->write(reply, message, sizeof message - 1);
        return CLUBHOUSE_DENIED;
    }
    clubhouse_device *machine = NULL;
    clubhouse_status s = devices->open(host, "ballmachine", &machine, reply); /* message in reply on failure */
    if (s != CLUBHOUSE_OK) return s;
    char frame[32];
    int n = snprintf(frame, sizeof frame, "FEED %d\n", count);
    uint8_t answer[64];
    size_t length = 0;
    s = devices->write(machine, (const uint8_t *)frame, (size_t)n);
    if (s == CLUBHOUSE_OK) s = devices->read(machine, answer, sizeof answer, &length, 2000);
    if (s == CLUBHOUSE_OK && (length < 2 || memcmp(answer, "OK", 2) != 0)) s = CLUBHOUSE_IO;
    if (s != CLUBHOUSE_OK) {
        const char *why = s == CLUBHOUSE_TIMEOUT ? "ballmachine did not answer within 2 s; is it on?"
                        : length ? "ballmachine refused the frame" : devices->last_error(machine);
        reply->write(reply, why, strlen(why)); /* copy before close: last_error belongs to the device */
    } else {
        static const char ok[] = "{\"data\":{\"fed\":true},\"text\":\"fed\\n\"}";
        reply->write(reply, ok, sizeof ok - 1);
    }
    devices->close(machine);
    return s;
}
// END EXAMPLE

void *device_example_entries[] = {(void *)feed_balls};
