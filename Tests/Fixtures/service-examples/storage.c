/* The storage service in C: `notes add TEXT` and `notes list`, with the table made by a migration. */
#include <clubhouse.h>
#include <clubhouse_helpers.h>

// BEGIN EXAMPLE
static const clubhouse_storage_service *storage;

/* In create: keep the table and bring the schema up to date (each version once, atomically). */
static clubhouse_status notes_create(const clubhouse_host *host, const clubhouse_reply *reply) {
    storage = host->get_service(host, CLUBHOUSE_SERVICE_STORAGE);
    if (storage == NULL) return clubhouse_reply_error(reply, CLUBHOUSE_DENIED, "notes needs storage: grant \"storage\" in plugins.json");
    clubhouse_status s = storage->migrate(host, 1, "notes",
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)", reply);
    if (s != CLUBHOUSE_OK) return s;
    return storage->migrate(host, 2, "notes created_at",
        "ALTER TABLE notes ADD COLUMN created_at TEXT NOT NULL DEFAULT (datetime('now'))", reply);
}

/* notes add TEXT */
static clubhouse_status notes_add(const clubhouse_host *host, const char *request, size_t length,
                                  const clubhouse_reply *reply) {
    clubhouse_args args;
    char text[512];
    if (clubhouse_args_init(&args, request, length) != 0 || clubhouse_args_string(&args, "text", text, sizeof text) != 1)
        return clubhouse_reply_error(reply, CLUBHOUSE_INVALID_ARGUMENT, "notes add: give the note's text (at most 511 bytes)");
    clubhouse_stmt *insert = NULL;
    clubhouse_status s = storage->prepare(host, "INSERT INTO notes (text) VALUES (?1)", &insert, reply);
    if (s != CLUBHOUSE_OK) return s;
    storage->bind_text(insert, 1, text, strlen(text));
    s = storage->step(insert);
    if (s != CLUBHOUSE_DONE) {
        s = clubhouse_reply_error(reply, s, storage->last_error(host));
        storage->finalize(insert);
        return s;
    }
    storage->finalize(insert);
    clubhouse_writer w;
    clubhouse_reply_begin(&w, reply);
    clubhouse_reply_int(&w, "id", (long long)storage->last_insert_rowid(host));
    clubhouse_reply_end(&w, "added\n");
    return CLUBHOUSE_OK;
}

/* notes list */
static clubhouse_status notes_list(const clubhouse_host *host, const clubhouse_reply *reply) {
    clubhouse_stmt *select = NULL;
    clubhouse_status s = storage->prepare(host, "SELECT id, text FROM notes ORDER BY id", &select, reply);
    if (s != CLUBHOUSE_OK) return s;
    clubhouse_writer w;
    clubhouse_reply_begin(&w, reply);
    clubhouse_reply_begin_array(&w, "notes");
    while ((s = storage->step(select)) == CLUBHOUSE_ROW) {
        clubhouse_reply_begin_object(&w, NULL);
        clubhouse_reply_int(&w, "id", (long long)storage->column_int64(select, 0));
        clubhouse_reply_string(&w, "text", storage->column_text(select, 1, NULL));
        clubhouse_reply_end_object(&w);
    }
    storage->finalize(select);
    if (s != CLUBHOUSE_DONE) return s; /* the reply is incomplete JSON; the host reports the status */
    clubhouse_reply_end_array(&w);
    clubhouse_reply_end(&w, NULL);
    return CLUBHOUSE_OK;
}
// END EXAMPLE

/* Referenced so the compiler checks them without "unused" warnings. */
void *storage_example_entries[] = {(void *)notes_create, (void *)notes_add, (void *)notes_list};
