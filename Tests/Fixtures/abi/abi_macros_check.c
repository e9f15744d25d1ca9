/*
 * The ABI's own macros, checked in C99 with every warning an error (ABIMacrosTests): a plugin
 * written with CLUBHOUSE_DESCRIPTOR_INIT, CLUBHOUSE_BUILD_C and CLUBHOUSE_DEFINE_ENTRY, and
 * CLUBHOUSE_TABLE_HAS (with the deprecated per-table aliases) against tables that end before a
 * member, as an older host's do. Built as a program (-DCHECK_MAIN) it runs the checks; built as a
 * shared library with -fvisibility=hidden it must export the entry and nothing else.
 */
#include "clubhouse.h"

#include <stdio.h>
#include <string.h>

static clubhouse_status check_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    reply->write(reply, "{\"commands\":[]}", 15);
    return CLUBHOUSE_OK;
}

static clubhouse_status check_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                     const clubhouse_reply *reply) {
    (void)self; (void)host; (void)reply;
    *instance = NULL;
    return CLUBHOUSE_OK;
}

static void check_destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

static clubhouse_status check_invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                     const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)instance; (void)call; (void)command; (void)request; (void)length; (void)reply;
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {NULL};

static const clubhouse_plugin_descriptor descriptor = {
    CLUBHOUSE_DESCRIPTOR_INIT,
    .id = "org.tests.abi-macros", .version = "1.0.0", .name = "ABI macros", .summary = "Checks the header's macros",
    .build = CLUBHOUSE_BUILD_C, .services = services,
    .describe = check_describe, .create = check_create, .destroy = check_destroy, .invoke = check_invoke,
};

CLUBHOUSE_DEFINE_ENTRY(descriptor)

static int failures;

static void expect(int condition, const char *what) {
    if (!condition) {
        fprintf(stderr, "abi_macros_check: %s\n", what);
        failures++;
    }
}

/* Not exported: with -fvisibility=hidden only the entry leaves the library. */
int abi_macros_check(void);
int abi_macros_check(void) {
    /* A progress table as a 1.1 host hands it out: it ends before set_unit (added in 1.2). */
    clubhouse_progress_service progress;
    memset(&progress, 0, sizeof progress);
    progress.struct_size = (uint32_t)offsetof(clubhouse_progress_service, set_unit);
    expect(CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, &progress, end), "a 1.1 progress table has end");
    expect(!CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, &progress, set_unit), "a 1.1 progress table has no set_unit");
    expect(CLUBHOUSE_PROGRESS_HAS(&progress, set_unit) == CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, &progress, set_unit),
           "CLUBHOUSE_PROGRESS_HAS says what CLUBHOUSE_TABLE_HAS says");
    progress.struct_size = (uint32_t)sizeof progress;
    expect(CLUBHOUSE_TABLE_HAS(clubhouse_progress_service, &progress, set_unit), "a 1.2 progress table has set_unit");

    /* A storage table as a 1.0 host hands it out: it ends after migrate. */
    clubhouse_storage_service storage;
    memset(&storage, 0, sizeof storage);
    storage.struct_size = (uint32_t)offsetof(clubhouse_storage_service, bind_parameter_index);
    expect(CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, &storage, migrate), "a 1.0 storage table has migrate");
    expect(!CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, &storage, column_index), "a 1.0 storage table has no column_index");
    expect(!CLUBHOUSE_STORAGE_HAS(&storage, bind_parameter_index), "CLUBHOUSE_STORAGE_HAS still works");
    /* One byte short of a member is without it. */
    storage.struct_size = (uint32_t)(offsetof(clubhouse_storage_service, column_index) + sizeof storage.column_index - 1);
    expect(!CLUBHOUSE_TABLE_HAS(clubhouse_storage_service, &storage, column_index), "a table one byte short lacks the member");

    /* The build string is the header's version, never digits written by hand. */
    char build[64];
    snprintf(build, sizeof build, "abi=%d.%d;lang=c", CLUBHOUSE_ABI_MAJOR, CLUBHOUSE_ABI_MINOR);
    expect(strcmp(CLUBHOUSE_BUILD_C, build) == 0, "CLUBHOUSE_BUILD_C is abi=MAJOR.MINOR;lang=c from version.h");

    /* The entry: the descriptor for this ABI major (and without info), NULL for another major. */
    clubhouse_host_info info = {sizeof info, CLUBHOUSE_ABI_MAJOR, CLUBHOUSE_ABI_MINOR, "1.0.0"};
    const clubhouse_plugin_descriptor *d = clubhouse_plugin_entry(&info);
    expect(d == &descriptor, "the entry returns the descriptor");
    expect(d && d->magic == CLUBHOUSE_MAGIC && d->abi_major == CLUBHOUSE_ABI_MAJOR && d->abi_minor == CLUBHOUSE_ABI_MINOR &&
           d->struct_size == sizeof(clubhouse_plugin_descriptor), "CLUBHOUSE_DESCRIPTOR_INIT sets magic, ABI and size");
    expect(clubhouse_plugin_entry(NULL) == &descriptor, "the entry answers without host info");
    info.abi_major = CLUBHOUSE_ABI_MAJOR + 1;
    expect(clubhouse_plugin_entry(&info) == NULL, "the entry declines another ABI major");
    return failures;
}

#ifdef CHECK_MAIN
int main(void) {
    if (abi_macros_check() != 0) return 1;
    puts("abi macros ok");
    return 0;
}
#endif
