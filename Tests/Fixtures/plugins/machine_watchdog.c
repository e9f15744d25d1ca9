/*
 * A plugin that starts a ball machine and then misbehaves, for the host's device watchdog
 * (device.h set_safe_state, ABI 1.3; Tests/EndToEndTests/DeviceWatchdogEndToEndTests.swift).
 * Every command opens the device "ballmachine", registers the protocol v0.3 stop command (XOR check
 * byte) as its safe state with "accepted" as the acknowledgement, sends one start command and reads
 * its replies; then:
 *
 *   leave    returns success, the device still open and the machine running;
 *   fail     returns an error, the device still open;
 *   close    closes the device without stopping the machine, then returns success;
 *   crash    writes to address 8 (run isolated: the runner dies);
 *   ignore   logs the warning "the machine took the start command" (a test that cuts the machine off
 *            waits for it), then ignores the cancel: sleeps in 100 ms steps for up to 30 s (no device call);
 *   block    ignores the cancel inside a device read of up to 60 s;
 *   stop     sends the stop command itself and returns success (the host then does nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.tests.watchdog"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#include "fixture.h"

static const uint8_t start_frame[10] = {0x5A, 0xA5, 0x83, 0x32, 0x32, 0x32, 0x32, 0x32, 0x01, 0x4F};
static const uint8_t stop_frame[10] = {0x5A, 0xA5, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7C};
static const uint8_t accepted[5] = {0x5A, 0xA5, 0x82, 0x01, 0x7C};

static clubhouse_status wd_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    say(reply, "{\"commands\":["
               "{\"name\":\"leave\",\"summary\":\"Start the machine and return\",\"arguments\":[]},"
               "{\"name\":\"fail\",\"summary\":\"Start the machine and fail\",\"arguments\":[]},"
               "{\"name\":\"close\",\"summary\":\"Start the machine and close the device\",\"arguments\":[]},"
               "{\"name\":\"crash\",\"summary\":\"Start the machine and crash\",\"arguments\":[]},"
               "{\"name\":\"ignore\",\"summary\":\"Start the machine and ignore Ctrl-C\",\"long_running\":true,\"arguments\":[]},"
               "{\"name\":\"block\",\"summary\":\"Start the machine and block in a read\",\"long_running\":true,\"arguments\":[]},"
               "{\"name\":\"stop\",\"summary\":\"Start the machine and stop it\",\"arguments\":[]}"
               "]}");
    return CLUBHOUSE_OK;
}

static clubhouse_status wd_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                  const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, instance);
}

static void wd_destroy(const clubhouse_plugin_descriptor *self, void *instance) {
    (void)self;
    free(instance);
}

/* Waits up to 2 s for the accepted reply (and whatever follows it within that read). */
static int await_accepted(const clubhouse_device_service *devices, clubhouse_device *machine) {
    uint8_t buffer[64];
    size_t have = 0;
    for (int i = 0; i < 20 && have < sizeof buffer; i++) {
        size_t n = 0;
        clubhouse_status s = devices->read(machine, buffer + have, sizeof buffer - have, &n, 100);
        if (s != CLUBHOUSE_OK && s != CLUBHOUSE_TIMEOUT) return 0;
        have += n;
        for (size_t k = 0; k + sizeof accepted <= have; k++)
            if (memcmp(buffer + k, accepted, sizeof accepted) == 0) return 1;
    }
    return 0;
}

static clubhouse_status wd_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                  const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    fixture *f = instance;
    const clubhouse_device_service *devices = f->host->get_service(f->host, CLUBHOUSE_SERVICE_DEVICE);
    if (!devices) { say(reply, "no device service: grant \"device:ballmachine\""); return CLUBHOUSE_DENIED; }
    if (!CLUBHOUSE_DEVICE_HAS(devices, set_safe_state)) { say(reply, "this host has no set_safe_state"); return CLUBHOUSE_UNSUPPORTED; }
    clubhouse_device *machine = NULL;
    clubhouse_status s = devices->open(f->host, "ballmachine", &machine, reply);
    if (s != CLUBHOUSE_OK) return s;
    s = devices->set_safe_state(machine, stop_frame, sizeof stop_frame, accepted, sizeof accepted, 2000);
    if (s != CLUBHOUSE_OK) { say(reply, devices->last_error(machine)); return s; }
    s = devices->write(machine, start_frame, sizeof start_frame);
    if (s != CLUBHOUSE_OK || !await_accepted(devices, machine)) { say(reply, "the machine did not take the start command"); return CLUBHOUSE_IO; }

    if (strcmp(command, "leave") == 0) {
        say(reply, "{\"data\":{\"running\":true},\"text\":\"left the machine running\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "fail") == 0) {
        say(reply, "the fixture fails with the machine running");
        return CLUBHOUSE_ERROR;
    }
    if (strcmp(command, "close") == 0) {
        devices->close(machine);
        say(reply, "{\"data\":{\"closed\":true},\"text\":\"closed the device with the machine running\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "crash") == 0) {
        *(volatile int *)8 = 1;
        return CLUBHOUSE_ERROR;
    }
    if (strcmp(command, "ignore") == 0) {
        const clubhouse_log_service *log = f->host->get_service(f->host, CLUBHOUSE_SERVICE_LOG);
        if (log) log->write(f->host, CLUBHOUSE_LOG_WARNING, "the machine took the start command");
        for (int i = 0; i < 300; i++) usleep(100 * 1000);
        say(reply, "{\"data\":{},\"text\":\"ignored the cancel for 30 s\\n\"}");
        return CLUBHOUSE_OK;
    }
    if (strcmp(command, "block") == 0) {
        uint8_t buffer[16];
        size_t n = 0;
        /* Past the replies still waiting, then one read of up to 60 s. */
        for (int i = 0; i < 8; i++) {
            s = devices->read(machine, buffer, sizeof buffer, &n, 60000);
            if (s != CLUBHOUSE_OK) break;
        }
        char text[512];
        snprintf(text, sizeof text, "the read ended with status %d: %s", (int)s, s == CLUBHOUSE_OK ? "" : devices->last_error(machine));
        say(reply, text);
        return s == CLUBHOUSE_OK ? CLUBHOUSE_ERROR : s;
    }
    if (strcmp(command, "stop") == 0) {
        s = devices->write(machine, stop_frame, sizeof stop_frame);
        int ok = s == CLUBHOUSE_OK && await_accepted(devices, machine);
        devices->close(machine);
        say(reply, ok ? "{\"data\":{\"stopped\":true},\"text\":\"stopped\\n\"}" : "the machine did not take the stop command");
        return ok ? CLUBHOUSE_OK : CLUBHOUSE_IO;
    }
    (void)call;
    say(reply, "unknown command");
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_DEVICE, NULL};

FIXTURE_PLUGIN(wd, "Device watchdog fixture", "Starts a ball machine and leaves it running, for the watchdog tests", services)
