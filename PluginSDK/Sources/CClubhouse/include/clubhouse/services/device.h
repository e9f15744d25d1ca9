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
     * CLUBHOUSE_OK, CLUBHOUSE_TIMEOUT (*length = 0), or CLUBHOUSE_IO (eg: the peer closed).
     * The wait never outlasts the call's deadline (call.h: 5 s after a cancel reached the plugin or
     * this wait, or limits.wall_ms + 5 s): then CLUBHOUSE_CANCELLED or CLUBHOUSE_TIMEOUT, last_error
     * "… the device read was refused: …". Past that deadline open, write, read and set_safe_state
     * are refused the same way; close stays allowed. */
    clubhouse_status (*read)(clubhouse_device *device, uint8_t *buffer, size_t capacity, size_t *length,
                             int32_t timeout_ms);

    /* [host-serialized] The message of the last failed write/read on `device` (static until the
     * next call on it; never free it), eg: "ballmachine (tcp:127.0.0.1:9000): connection reset". */
    const char *(*last_error)(clubhouse_device *device);

    /* [host-serialized] Closes the device. `device` is invalid afterwards. A device with a safe
     * state (below) that is not in it is put in it by the host first. */
    void (*close)(clubhouse_device *device);

    /* ---- Appended in ABI 1.3 (probe with CLUBHOUSE_DEVICE_HAS below). -------------------------- */

    /* [host-serialized] Tells the host how to put the device in its safe state, eg: a ball machine's
     * stop command: the `frame` that does it and the `acknowledgement` the device answers when it
     * took it (both borrowed; the host copies them), awaited for at most `timeout_ms` (1–10000).
     * Call it right after open. The host then watches the device for the plugin: it is safe when
     * nothing was written yet or the last write was exactly `frame`. When it is not safe and the call
     * that opened it is gone — the call returned (an error included), it was cancelled and did not
     * stop the device within the 5 s it has for cleaning up, its runner died, the host is quitting
     * (a second Ctrl-C, SIGTERM), or the plugin closes it — the host writes `frame` itself (on a new
     * connection when this one dropped, for up to 5 s), waits for `acknowledgement`, and logs what
     * happened: a warning when the device acknowledged, an error naming the device when it did not.
     * Once the host has taken the device over this way while the call still runs (a second Ctrl-C,
     * the grace over), the plugin's write and read fail: CLUBHOUSE_CANCELLED while the host stops it
     * and once the device acknowledged, CLUBHOUSE_IO when the host could not stop it (last_error
     * says which); a read waiting then returns at once. Open the device again to use it.
     * CLUBHOUSE_INVALID_ARGUMENT for an empty or longer than 256-byte frame or acknowledgement, or
     * timeout_ms out of range. Without this call the host never writes to the device on its own. */
    clubhouse_status (*set_safe_state)(clubhouse_device *device, const uint8_t *frame, size_t frame_length,
                                       const uint8_t *acknowledgement, size_t acknowledgement_length,
                                       int32_t timeout_ms);

    /* [host-serialized] How the site reaches the device, eg: "simulator:ballmachine",
     * "tcp:127.0.0.1:9000", "serial:/dev/ttyUSB0 115200 8N1". Owned by the host; valid until close;
     * never NULL. A plugin may treat the built-in simulator ("simulator:" prefix) differently, eg: a
     * demo that runs on a simulated clock; a real device keeps real pacing. */
    const char *(*address)(clubhouse_device *device);
} clubhouse_device_service;

/* True when `table` (a clubhouse_device_service pointer from get_service) has `member`: a host built
 * before the member was appended hands out a shorter table (see struct_size), eg:
 * if (CLUBHOUSE_DEVICE_HAS(devices, set_safe_state)) devices->set_safe_state(machine, stop, 10, ack, 5, 2000); */
#define CLUBHOUSE_DEVICE_HAS(table, member) \
    ((table)->struct_size >= offsetof(clubhouse_device_service, member) + sizeof((table)->member))

#ifdef __cplusplus
}
#endif

#endif /* CLUBHOUSE_SERVICES_DEVICE_H */
