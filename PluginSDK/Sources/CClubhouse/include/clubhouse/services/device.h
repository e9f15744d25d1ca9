/* clubhouse/services/device.h — "clubhouse.device/1": byte streams to logical devices.
 * A plugin opens a device by the name the site gives it (eg: "ballmachine"); the site maps the
 * name to a transport (a serial tty with its termios settings, TCP, a Unix socket, or a built-in
 * simulator such as "simulator:ballmachine"). Granted per device: "device:<name>". */
#ifndef CLUBHOUSE_SERVICES_DEVICE_H
#define CLUBHOUSE_SERVICES_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "../host.h"
#include "../reply.h"
#include "../status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLUBHOUSE_SERVICE_DEVICE "clubhouse.device/1"

/* An open device. Opaque; owned by the host; valid until `close`. */
typedef struct clubhouse_device clubhouse_device;

typedef struct clubhouse_device_service {
    uint32_t struct_size; /* sizeof(clubhouse_device_service) as compiled by the host */

    /* [during-call] Opens the device the site calls `name` and stores it in *device.
     * CLUBHOUSE_DENIED when not granted, CLUBHOUSE_NOT_FOUND when the site maps no such device,
     * CLUBHOUSE_IO when the port is missing or the connection is refused (message in `reply`);
     * CLUBHOUSE_DENIED too when the plugin already holds the site's "limits": {"open_devices"}
     * (default 8) open devices. */
    clubhouse_status (*open)(const clubhouse_host *host, const char *name, clubhouse_device **device,
                             const clubhouse_reply *reply);

    /* [host-serialized] Writes all `length` bytes (borrowed). CLUBHOUSE_IO on failure. */
    clubhouse_status (*write)(clubhouse_device *device, const uint8_t *bytes, size_t length);

    /* [host-serialized] Reads up to `capacity` bytes into `buffer` (owned by the plugin), waiting
     * at most `timeout_ms` for the first byte (0 = poll). Stores the count in *length and returns
     * CLUBHOUSE_OK, CLUBHOUSE_TIMEOUT (*length = 0), or CLUBHOUSE_IO (eg: the peer closed). */
    clubhouse_status (*read)(clubhouse_device *device, uint8_t *buffer, size_t capacity, size_t *length,
                             int32_t timeout_ms);

    /* [host-serialized] The message of the last failed write/read on `device` (static until the
     * next call on it; never free it), eg: "ballmachine (tcp:127.0.0.1:9000): connection reset". */
    const char *(*last_error)(clubhouse_device *device);

    /* [host-serialized] Closes the device. `device` is invalid afterwards. */
    void (*close)(clubhouse_device *device);
} clubhouse_device_service;

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_DEVICE_H */
