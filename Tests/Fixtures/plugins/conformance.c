/*
 * Conformance plugin (issue 27, Why 6): drives every service call a plugin can make and writes
 * what it saw — every status, value, length, type, name and message — as a transcript, the reply
 * of its commands. ServiceConformanceEndToEndTests runs the same library in process, in a
 * `process` runner and sandboxed and compares the transcripts byte for byte: one behaviour per
 * service, whichever face serves it.
 *
 * Commands:
 *   storage              types, NULLs, blobs, conversions between types, binds, names, errors,
 *                        transactions, migrations, rowid and changes
 *   limits               each service limit of the site reached once (the site sets small ones)
 *   files --file F --folder D   the files service: a read argument, a folder, refusals
 *   config               present, nested and missing keys
 *   invoke               another plugin's command, an unknown one, one not granted, itself
 *   progress             stages, updates, units and a label past progress_kb (seen by the caller)
 *   log                  every level and a message past log_kb (seen on the host's stderr)
 *   device               a device that is not granted, then the granted simulator: a frame out, its reply in
 *   bigreply, smallreply a reply of 2 MiB (past the site's reply_mb) and one just under it
 */
#include "fixture.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a growing transcript ---------------------------------------------------------------- */

typedef struct { char *text; size_t length, capacity; } transcript;

static void put(transcript *t, const char *bytes, size_t n) {
    if (t->length + n + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 4096;
        while (capacity < t->length + n + 1) capacity *= 2;
        t->text = realloc(t->text, capacity);
        t->capacity = capacity;
    }
    memcpy(t->text + t->length, bytes, n);
    t->length += n;
    t->text[t->length] = 0;
}

static void note(transcript *t, const char *format, ...) {
    char line[1024];
    va_list list;
    va_start(list, format);
    int n = vsnprintf(line, sizeof line, format, list);
    va_end(list);
    if (n > 0) put(t, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Bytes as a quoted ASCII string: printable characters as they are, the rest as \xHH; NULL as NULL. */
static void quote(transcript *t, const void *bytes, size_t n, int is_null) {
    if (is_null) { put(t, "NULL", 4); return; }
    const unsigned char *p = bytes;
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char c[8];
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
            c[0] = (char)p[i];
            put(t, c, 1);
        } else {
            snprintf(c, sizeof c, "\\x%02x", p[i]);
            put(t, c, 4);
        }
    }
    put(t, "\"", 1);
}

static void quote_text(transcript *t, const char *text) { quote(t, text, text ? strlen(text) : 0, text == NULL); }

/* A reply sink that collects into a buffer (messages of service calls). */
typedef struct { char text[8192]; size_t length; } message;
static void message_write(const clubhouse_reply *reply, const char *bytes, size_t n) {
    message *m = reply->caller_data;
    size_t room = sizeof m->text - 1 - m->length;
    if (n > room) n = room;
    memcpy(m->text + m->length, bytes, n);
    m->length += n;
    m->text[m->length] = 0;
}
static clubhouse_reply sink(message *m) {
    m->length = 0;
    m->text[0] = 0;
    clubhouse_reply r = {sizeof(clubhouse_reply), m, message_write};
    return r;
}

/* The reply of a command: the transcript as a JSON string in {"data": …} (it is ASCII without
 * quotes or backslashes that need more than a backslash). */
static clubhouse_status answer(transcript *t, const clubhouse_reply *reply) {
    reply->write(reply, "{\"data\":\"", 9);
    for (size_t i = 0; i < t->length; i++) {
        char c = t->text[i];
        if (c == '"' || c == '\\') reply->write(reply, "\\", 1);
        if (c == '\n') { reply->write(reply, "\\n", 2); continue; }
        reply->write(reply, &c, 1);
    }
    reply->write(reply, "\"}", 2);
    free(t->text);
    return CLUBHOUSE_OK;
}

/* ---- the plugin --------------------------------------------------------------------------- */

typedef fixture instance;

static const clubhouse_storage_service *storage(instance *p) { return p->host->get_service(p->host, CLUBHOUSE_SERVICE_STORAGE); }

/* One value of the current row, read every way there is, in the order given ("tidb": text, int,
 * double, blob), with its type before and after. */
static void read_column(transcript *t, const clubhouse_storage_service *s, clubhouse_stmt *stmt, int c, const char *order) {
    note(t, "    col %d name=", c);
    quote_text(t, s->column_name(stmt, c));
    note(t, " type=%d", s->column_type(stmt, c));
    for (const char *o = order; *o; o++) {
        size_t n = 12345;
        switch (*o) {
        case 't': {
            const char *text = s->column_text(stmt, c, &n);
            note(t, " text=");
            quote(t, text, text ? n : 0, text == NULL);
            note(t, "/%zu", n);
            if (text && text[n] != 0) note(t, "(not NUL-terminated)");
            break;
        }
        case 'b': {
            const void *blob = s->column_blob(stmt, c, &n);
            note(t, " blob=");
            quote(t, blob, blob ? n : 0, blob == NULL);
            note(t, "/%zu", n);
            break;
        }
        case 'i': note(t, " int=%lld", (long long)s->column_int64(stmt, c)); break;
        case 'd': {
            double d = s->column_double(stmt, c);
            note(t, " double=%.17g%s", d, signbit(d) ? "(neg)" : "");
            break;
        }
        }
    }
    note(t, " type-after=%d\n", s->column_type(stmt, c));
}

static void query(transcript *t, instance *p, const char *sql, const char *order) {
    const clubhouse_storage_service *s = storage(p);
    message m;
    clubhouse_reply r = sink(&m);
    clubhouse_stmt *stmt = NULL;
    note(t, "query ");
    quote_text(t, sql);
    note(t, " order=%s\n", order);
    clubhouse_status status = s->prepare(p->host, sql, &stmt, &r);
    if (status != CLUBHOUSE_OK) {
        note(t, "  prepare %s ", clubhouse_status_name(status));
        quote_text(t, m.text);
        note(t, "\n");
        return;
    }
    int count = s->column_count(stmt);
    note(t, "  columns %d (before step):", count);
    for (int c = 0; c < count; c++) { note(t, " "); quote_text(t, s->column_name(stmt, c)); }
    note(t, " index-of-missing=%d\n", s->column_index(stmt, "no such column"));
    int row = 0;
    while ((status = s->step(stmt)) == CLUBHOUSE_ROW) {
        note(t, "  row %d columns=%d\n", row++, s->column_count(stmt));
        for (int c = 0; c < count; c++) read_column(t, s, stmt, c, order);
        note(t, "    out of range: type=%d text=", s->column_type(stmt, count));
        quote_text(t, s->column_text(stmt, count, NULL));
        note(t, " name=");
        quote_text(t, s->column_name(stmt, count));
        note(t, "\n");
    }
    note(t, "  end %s", clubhouse_status_name(status));
    if (status != CLUBHOUSE_DONE) { note(t, " "); quote_text(t, s->last_error(p->host)); }
    note(t, " after: type=%d int=%lld text=", s->column_type(stmt, 0), (long long)s->column_int64(stmt, 0));
    quote_text(t, s->column_text(stmt, 0, NULL));
    note(t, "\n");
    s->finalize(stmt);
}

/* Every pointer a row's column_text and column_blob gave stays valid until the next step (storage.h):
 * two text columns, a number read as text, a blob and a text read again are all kept, every column is
 * read again as numbers, and only then are the kept pointers read. Two rows, so the second row's
 * pointers are the ones read after its step. */
static void kept_pointers(transcript *t, instance *p) {
    const clubhouse_storage_service *s = storage(p);
    clubhouse_stmt *stmt = NULL;
    note(t, "kept pointers\n");
    if (s->prepare(p->host, "SELECT 'alpha', 'beta, longer than alpha', 42, x'00ff01', '' "
                            "UNION ALL SELECT 'a2', 'b2', -7.5, x'', 'last'", &stmt, NULL) != CLUBHOUSE_OK) {
        note(t, "  prepare failed\n");
        return;
    }
    int row = 0;
    while (s->step(stmt) == CLUBHOUSE_ROW) {
        size_t n[6] = {0};
        const char *t0 = s->column_text(stmt, 0, &n[0]);
        const char *t1 = s->column_text(stmt, 1, &n[1]);
        const char *t2 = s->column_text(stmt, 2, &n[2]);
        const void *b3 = s->column_blob(stmt, 3, &n[3]);
        const char *t4 = s->column_text(stmt, 4, &n[4]);
        const char *again = s->column_text(stmt, 0, &n[5]);
        long long sum = 0;
        for (int c = 0; c < 5; c++) sum += (long long)s->column_int64(stmt, c) + (long long)s->column_double(stmt, c);
        note(t, "  row %d numbers=%lld:", row++, sum);
        note(t, " "); quote(t, t0, t0 ? n[0] : 0, t0 == NULL); note(t, "/%zu", n[0]);
        note(t, " "); quote(t, t1, t1 ? n[1] : 0, t1 == NULL); note(t, "/%zu", n[1]);
        note(t, " "); quote(t, t2, t2 ? n[2] : 0, t2 == NULL); note(t, "/%zu", n[2]);
        note(t, " "); quote(t, b3, b3 ? n[3] : 0, b3 == NULL); note(t, "/%zu", n[3]);
        note(t, " "); quote(t, t4, t4 ? n[4] : 0, t4 == NULL); note(t, "/%zu", n[4]);
        note(t, " again="); quote(t, again, again ? n[5] : 0, again == NULL);
        note(t, " terminated=%d%d%d%d\n", t0 && t0[n[0]] == 0, t1 && t1[n[1]] == 0, t2 && t2[n[2]] == 0, t4 && t4[n[4]] == 0);
    }
    s->finalize(stmt);
}

static void exec(transcript *t, instance *p, const char *sql) {
    const clubhouse_storage_service *s = storage(p);
    message m;
    clubhouse_reply r = sink(&m);
    clubhouse_status status = s->exec(p->host, sql, &r);
    note(t, "exec ");
    quote_text(t, sql);
    note(t, " -> %s ", clubhouse_status_name(status));
    quote_text(t, m.text);
    note(t, " rowid=%lld changes=%lld\n", (long long)s->last_insert_rowid(p->host), (long long)s->changes(p->host));
}

static void bound(transcript *t, instance *p, const char *what, clubhouse_status status) {
    note(t, "  %s -> %s", what, clubhouse_status_name(status));
    if (status != CLUBHOUSE_OK) { note(t, " "); quote_text(t, storage(p)->last_error(p->host)); }
    note(t, "\n");
}

static clubhouse_status run_storage(instance *p, const clubhouse_reply *reply) {
    const clubhouse_storage_service *s = storage(p);
    transcript t = {0};
    message m;
    clubhouse_reply r = sink(&m);
    note(&t, "storage table size=%u has-column_index=%d\n", s->struct_size, CLUBHOUSE_STORAGE_HAS(s, column_index));

    /* Migrations: applied, repeated, a gap, a renamed version. */
    clubhouse_status status = s->migrate(p->host, 1, "values", "CREATE TABLE v(k TEXT PRIMARY KEY, a)", &r);
    note(&t, "migrate 1 -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = s->migrate(p->host, 1, "values", "CREATE TABLE v(k TEXT PRIMARY KEY, a)", &r);
    note(&t, "migrate 1 again -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = s->migrate(p->host, 3, "gap", "SELECT 1", &r);
    note(&t, "migrate 3 -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = s->migrate(p->host, 1, "renamed", "SELECT 1", &r);
    note(&t, "migrate 1 renamed -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = s->migrate(p->host, 2, "broken", "CREATE TABLE v(x)", &r);
    note(&t, "migrate 2 broken -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");

    exec(&t, p, "DELETE FROM v");
    /* Every type through bind, then back every way. */
    clubhouse_stmt *insert = NULL;
    r = sink(&m);
    status = s->prepare(p->host, "INSERT INTO v(k, a) VALUES (:key, ?2)", &insert, &r);
    note(&t, "prepare insert -> %s params=%d name1=", clubhouse_status_name(status), s->bind_parameter_count(insert));
    quote_text(&t, s->bind_parameter_name(insert, 1));
    note(&t, " name2=");
    quote_text(&t, s->bind_parameter_name(insert, 2));
    note(&t, " name3=");
    quote_text(&t, s->bind_parameter_name(insert, 3));
    note(&t, " index(:key)=%d index(:nope)=%d columns=%d\n", s->bind_parameter_index(insert, ":key"),
        s->bind_parameter_index(insert, ":nope"), s->column_count(insert));
    static const char nul_text[] = {'a', 0, 'b'};
    static const unsigned char blob[] = {0x00, 0x01, 0xff, 0x7f};
    struct { const char *key; int kind; long long i; double d; const void *bytes; size_t n; } rows[] = {
        {"int-0", 'i', 0, 0, NULL, 0}, {"int-42", 'i', 42, 0, NULL, 0}, {"int-neg", 'i', -7, 0, NULL, 0},
        {"int-max", 'i', INT64_MAX, 0, NULL, 0}, {"int-min", 'i', INT64_MIN, 0, NULL, 0},
        {"real-3.5", 'd', 0, 3.5, NULL, 0}, {"real-neg0", 'd', 0, -0.0, NULL, 0}, {"real-big", 'd', 0, 1e300, NULL, 0},
        {"real-tenth", 'd', 0, 0.1, NULL, 0}, {"real-third", 'd', 0, 1.0 / 3, NULL, 0}, {"real-whole", 'd', 0, 2.0, NULL, 0},
        {"real-huge", 'd', 0, 9.3e18, NULL, 0}, {"real-nan", 'd', 0, NAN, NULL, 0}, {"real-inf", 'd', 0, INFINITY, NULL, 0},
        {"text-empty", 't', 0, 0, "", 0}, {"text-hello", 't', 0, 0, "hello", 5}, {"text-42", 't', 0, 0, "42", 2},
        {"text-num-junk", 't', 0, 0, " 42abc", 6}, {"text-real", 't', 0, 0, "3.5e2", 5},
        {"text-utf8", 't', 0, 0, "h\xc3\xa9llo", 6}, {"text-nul", 't', 0, 0, nul_text, 3},
        {"text-null-pointer", 'T', 0, 0, NULL, 0},
        {"blob-empty", 'b', 0, 0, "", 0}, {"blob-bytes", 'b', 0, 0, blob, 4}, {"blob-42", 'b', 0, 0, "42", 2},
        {"null", 'n', 0, 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        note(&t, "insert %s\n", rows[i].key);
        bound(&t, p, "bind key", s->bind_text(insert, 1, rows[i].key, strlen(rows[i].key)));
        switch (rows[i].kind) {
        case 'i': bound(&t, p, "bind int64", s->bind_int64(insert, 2, rows[i].i)); break;
        case 'd': bound(&t, p, "bind double", s->bind_double(insert, 2, rows[i].d)); break;
        case 't': bound(&t, p, "bind text", s->bind_text(insert, 2, rows[i].bytes, rows[i].n)); break;
        case 'T': bound(&t, p, "bind text NULL", s->bind_text(insert, 2, NULL, 0)); break;
        case 'b': bound(&t, p, "bind blob", s->bind_blob(insert, 2, rows[i].bytes, rows[i].n)); break;
        default: bound(&t, p, "bind null", s->bind_null(insert, 2)); break;
        }
        status = s->step(insert);
        note(&t, "  step -> %s rowid=%lld changes=%lld\n", clubhouse_status_name(status), (long long)s->last_insert_rowid(p->host),
            (long long)s->changes(p->host));
        bound(&t, p, "bind after step (no reset)", s->bind_int64(insert, 2, 1));
        s->reset(insert);
    }
    bound(&t, p, "bind index 0", s->bind_int64(insert, 0, 1));
    bound(&t, p, "bind index 3", s->bind_int64(insert, 3, 1));
    bound(&t, p, "bind index -1", s->bind_text(insert, -1, "x", 1));
    /* A constraint: the same key twice. */
    bound(&t, p, "bind key", s->bind_text(insert, 1, "int-42", 6));
    status = s->step(insert);
    note(&t, "duplicate key step -> %s ", clubhouse_status_name(status)); quote_text(&t, s->last_error(p->host)); note(&t, "\n");
    status = s->reset(insert);
    note(&t, "reset after failure -> %s\n", clubhouse_status_name(status));
    s->finalize(insert);
    s->finalize(NULL);

    query(&t, p, "SELECT k, a, typeof(a) FROM v ORDER BY rowid", "tidb");
    query(&t, p, "SELECT a FROM v ORDER BY rowid", "idtb");
    query(&t, p, "SELECT a FROM v ORDER BY rowid", "btdi");
    query(&t, p, "SELECT a AS \"renamed col\", 1 + 1, NULL, x'', '' FROM v WHERE k = 'int-42'", "tb");
    query(&t, p, "SELECT count(*) AS n, sum(length(k)) FROM v", "it");
    query(&t, p, "SELECT * FROM no_such_table", "t");
    query(&t, p, "SELEKT 1", "t");
    query(&t, p, "", "t");
    query(&t, p, "SELECT 1; SELECT 2", "t");
    query(&t, p, "SELECT abs(-9223372036854775808)", "i");
    query(&t, p, "ATTACH 'x.db' AS x", "t");
    query(&t, p, "SELECT version, name FROM _clubhouse_migrations ORDER BY version", "ti");
    kept_pointers(&t, p);

    /* Reset on a row, then bind again; a statement reused with named parameters. */
    clubhouse_stmt *select = NULL;
    s->prepare(p->host, "SELECT k FROM v WHERE k >= ?1 ORDER BY k LIMIT 3", &select, NULL);
    bound(&t, p, "bind ?1", s->bind_text(select, 1, "real", 4));
    status = s->step(select);
    note(&t, "step -> %s ", clubhouse_status_name(status)); quote_text(&t, s->column_text(select, 0, NULL)); note(&t, "\n");
    status = s->reset(select);
    note(&t, "reset on a row -> %s type-after-reset=%d\n", clubhouse_status_name(status), s->column_type(select, 0));
    status = s->step(select);
    note(&t, "step with bindings cleared by reset -> %s\n", clubhouse_status_name(status));
    s->reset(select);
    bound(&t, p, "bind ?1", s->bind_text(select, 1, "text", 4));
    while ((status = s->step(select)) == CLUBHOUSE_ROW) { note(&t, "  "); quote_text(&t, s->column_text(select, 0, NULL)); note(&t, "\n"); }
    note(&t, "end %s; step again -> ", clubhouse_status_name(status));
    status = s->step(select);
    note(&t, "%s ", clubhouse_status_name(status)); quote_text(&t, s->column_text(select, 0, NULL)); note(&t, "\n");
    s->finalize(select);

    /* Transactions. */
    r = sink(&m);
    status = s->commit(p->host, &r);
    note(&t, "commit without begin -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    status = s->rollback(p->host);
    note(&t, "rollback without begin -> %s ", clubhouse_status_name(status)); quote_text(&t, s->last_error(p->host)); note(&t, "\n");
    r = sink(&m);
    note(&t, "begin -> %s\n", clubhouse_status_name(s->begin(p->host, &r)));
    exec(&t, p, "INSERT INTO v(k, a) VALUES ('tx-1', 1)");
    note(&t, "nested begin -> %s\n", clubhouse_status_name(s->begin(p->host, &r)));
    exec(&t, p, "INSERT INTO v(k, a) VALUES ('tx-2', 2)");
    note(&t, "inner rollback -> %s\n", clubhouse_status_name(s->rollback(p->host)));
    note(&t, "outer commit -> %s\n", clubhouse_status_name(s->commit(p->host, &r)));
    query(&t, p, "SELECT k FROM v WHERE k LIKE 'tx-%' ORDER BY k", "t");
    exec(&t, p, "UPDATE v SET a = a WHERE k LIKE 'int-%'");
    exec(&t, p, "INSERT INTO v(k) VALUES ('int-0')");
    exec(&t, p, "CREATE TABLE _clubhouse_mine(x)");
    exec(&t, p, "PRAGMA journal_mode=DELETE");
    exec(&t, p, "SELECT load_extension('x')");
    exec(&t, p, "");
    return answer(&t, reply);
}

/* Each limit of the site reached once (the conformance site sets small limits). */
static clubhouse_status run_limits(instance *p, const clubhouse_reply *reply) {
    const clubhouse_storage_service *s = storage(p);
    transcript t = {0};
    message m;
    clubhouse_reply r = sink(&m);
    /* SQL over sql_kb (the site: 1 KiB). */
    size_t n = 3000;
    char *sql = malloc(n + 64);
    strcpy(sql, "SELECT '");
    memset(sql + 8, 'x', n);
    strcpy(sql + 8 + n, "'");
    clubhouse_status status = s->exec(p->host, sql, &r);
    note(&t, "exec 3 KB -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    clubhouse_stmt *stmt = NULL;
    r = sink(&m);
    status = s->prepare(p->host, sql, &stmt, &r);
    note(&t, "prepare 3 KB -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, " stmt-null=%d\n", stmt == NULL);
    r = sink(&m);
    status = s->migrate(p->host, 1, "big", sql, &r);
    note(&t, "migrate 3 KB -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    free(sql);
    /* Open statements over open_statements (the site: 8). */
    clubhouse_stmt *open[16] = {0};
    int made = 0;
    for (int i = 0; i < 16; i++) {
        r = sink(&m);
        status = s->prepare(p->host, "SELECT ?1", &open[i], &r);
        if (status != CLUBHOUSE_OK) {
            note(&t, "prepare #%d -> %s ", i + 1, clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
            break;
        }
        made++;
    }
    note(&t, "prepared %d\n", made);
    /* Bound bytes over bind_mb (the site: 1 MiB) on one statement. */
    size_t big = (1 << 20) - 100;
    char *value = malloc(big);
    memset(value, 'v', big);
    bound(&t, p, "bind 1 MiB - 100", s->bind_text(open[0], 1, value, big));
    bound(&t, p, "bind it again (replaces)", s->bind_blob(open[0], 1, value, big));
    char *bigger = malloc(big + 200);
    memset(bigger, 'w', big + 200);
    bound(&t, p, "bind 1 MiB + 100", s->bind_text(open[2], 1, bigger, big + 200));
    /* Statement memory over statement_mb (the site: 2 MiB): three statements with 1 MiB - 100 each. */
    bound(&t, p, "bind on a second statement", s->bind_text(open[1], 1, value, big));
    bound(&t, p, "bind on a third statement", s->bind_text(open[3], 1, value, big));
    bound(&t, p, "a number frees it", s->bind_int64(open[0], 1, 5));
    bound(&t, p, "bind on the third again", s->bind_text(open[3], 1, value, big));
    /* A row over reply_mb (the site: 1 MiB). */
    status = s->step(open[3]);
    note(&t, "step a row of 1 MiB - 100 -> %s\n", clubhouse_status_name(status));
    clubhouse_stmt *row = NULL;
    for (int i = 0; i < made; i++) { s->finalize(open[i]); open[i] = NULL; }
    r = sink(&m);
    status = s->prepare(p->host, "SELECT ?1 || ?1", &row, &r);
    note(&t, "prepare after finalizing -> %s\n", clubhouse_status_name(status));
    bound(&t, p, "bind ?1", s->bind_text(row, 1, value, 600 * 1024));
    status = s->step(row);
    note(&t, "step a row of 1.2 MiB -> %s ", clubhouse_status_name(status)); quote_text(&t, s->last_error(p->host)); note(&t, "\n");
    s->finalize(row);
    free(value);
    free(bigger);
    return answer(&t, reply);
}

static clubhouse_status run_files(instance *p, const clubhouse_call *call, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_files_service *f = p->host->get_service(p->host, CLUBHOUSE_SERVICE_FILES);
    message m;
    clubhouse_reply r = sink(&m);
    int fd = -1;
    clubhouse_status status = f->open_argument(call, "file", CLUBHOUSE_FILE_READ, &fd, &r);
    note(&t, "open file -> %s fd>=0:%d ", clubhouse_status_name(status), fd >= 0); quote_text(&t, m.text); note(&t, "\n");
    if (fd >= 0) {
        char buffer[256];
        ssize_t got = read(fd, buffer, sizeof buffer);
        note(&t, "  read ");
        quote(&t, buffer, got > 0 ? (size_t)got : 0, 0);
        note(&t, "\n");
        close(fd);
    }
    r = sink(&m);
    status = f->open_argument(call, "file", CLUBHOUSE_FILE_WRITE, &fd, &r);
    note(&t, "open file for writing -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = f->open_argument(call, "nosuch", CLUBHOUSE_FILE_READ, &fd, &r);
    note(&t, "open nosuch -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    const char *relatives[] = {"inside.txt", "../outside.txt", "/etc/passwd", "missing.txt"};
    for (int i = 0; i < 4; i++) {
        r = sink(&m);
        fd = -1;
        status = f->open_beneath(call, "folder", relatives[i], &fd, &r);
        note(&t, "open beneath %s -> %s ", relatives[i], clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
        if (fd >= 0) close(fd);
    }
    return answer(&t, reply);
}

static clubhouse_status run_config(instance *p, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_config_service *c = p->host->get_service(p->host, CLUBHOUSE_SERVICE_CONFIG);
    const char *keys[] = {"greeting", "number", "nested", "list", "missing", ""};
    for (int i = 0; i < 6; i++) {
        message m;
        clubhouse_reply r = sink(&m);
        clubhouse_status status = c->get(p->host, keys[i], &r);
        note(&t, "config %s -> %s ", keys[i], clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    }
    return answer(&t, reply);
}

static clubhouse_status run_invoke(instance *p, const clubhouse_call *call, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_invoke_service *v = p->host->get_service(p->host, CLUBHOUSE_SERVICE_INVOKE);
    struct { const char *alias, *command, *request; } calls[] = {
        {"notes", "ping", "{\"arguments\":{}}"},
        {"notes", "nosuch", "{\"arguments\":{}}"},
        {"notes", "remove", "{\"arguments\":{\"id\":\"x\"}}"},
        {"greeter", "hello", "{\"arguments\":{}}"},
        {"nobody", "ping", "{\"arguments\":{}}"},
        {"conf", "config", "{\"arguments\":{}}"},
    };
    for (int i = 0; i < 6; i++) {
        message m;
        clubhouse_reply r = sink(&m);
        clubhouse_status status = v->invoke(p->host, call, calls[i].alias, calls[i].command, calls[i].request,
                                            strlen(calls[i].request), &r);
        note(&t, "invoke %s %s -> %s ", calls[i].alias, calls[i].command, clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    }
    return answer(&t, reply);
}

static clubhouse_status run_progress(instance *p, const clubhouse_call *call, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_progress_service *g = p->host->get_service(p->host, CLUBHOUSE_SERVICE_PROGRESS);
    g->begin(call, "counting", 10);
    for (uint64_t i = 1; i <= 10; i++) g->update(call, i);
    g->end(call);
    g->begin(call, "reading", 2048);
    if (CLUBHOUSE_PROGRESS_HAS(g, set_unit)) g->set_unit(call, CLUBHOUSE_PROGRESS_UNIT_BYTES);
    g->update(call, 1024);
    g->end(call);
    /* A label past progress_kb (the site: 1 KiB). */
    char label[3000];
    memset(label, 'L', sizeof label - 1);
    label[sizeof label - 1] = 0;
    g->begin(call, label, 0);
    g->end(call);
    g->begin(call, NULL, 5);
    g->update(call, 5);
    note(&t, "progress sent\n");
    return answer(&t, reply);
}

static clubhouse_status run_log(instance *p, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_log_service *l = p->host->get_service(p->host, CLUBHOUSE_SERVICE_LOG);
    for (int level = 0; level <= 4; level++) {
        char text[64];
        snprintf(text, sizeof text, "conformance level %d", level);
        l->write(p->host, level, text);
        note(&t, "enabled(%d)=%d\n", level, l->enabled(p->host, level));
    }
    l->write(p->host, CLUBHOUSE_LOG_WARNING, "conformance: h\xc3\xa9llo, \"quoted\"\tand a tab");
    /* A message past log_kb (the site: 1 KiB), cut in the middle of a two-byte character. */
    char text[3000];
    memset(text, 'm', sizeof text - 1);
    text[sizeof text - 1] = 0;
    text[1023] = (char)0xc3;
    text[1024] = (char)0xa9;
    memcpy(text, "conformance long:", 17);
    l->write(p->host, CLUBHOUSE_LOG_WARNING, text);
    note(&t, "logged\n");
    return answer(&t, reply);
}

static clubhouse_status run_device(instance *p, const clubhouse_reply *reply) {
    transcript t = {0};
    const clubhouse_device_service *d = p->host->get_service(p->host, CLUBHOUSE_SERVICE_DEVICE);
    if (!d) { note(&t, "no device service\n"); return answer(&t, reply); }
    message m;
    clubhouse_reply r = sink(&m);
    clubhouse_device *device = NULL;
    clubhouse_status status = d->open(p->host, "other", &device, &r);
    note(&t, "open other -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = d->open(p->host, "nosuch", &device, &r);
    note(&t, "open nosuch -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    r = sink(&m);
    status = d->open(p->host, "ballmachine", &device, &r);
    note(&t, "open ballmachine -> %s ", clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    if (status != CLUBHOUSE_OK) return answer(&t, reply);
    /* Protocol v0.3 (tennis.md): a shot command and its XOR check byte; the machine answers twice. */
    unsigned char frame[] = {0x5A, 0xA5, 0x83, 60, 50, 40, 75, 50, 1, 0};
    for (int i = 0; i < 9; i++) frame[9] ^= frame[i];
    status = d->write(device, frame, sizeof frame);
    note(&t, "write -> %s\n", clubhouse_status_name(status));
    unsigned char in[64];
    size_t got = 0, total = 0;
    while (total < 10 && (status = d->read(device, in + total, sizeof in - total, &got, 2000)) == CLUBHOUSE_OK) total += got;
    note(&t, "read -> %zu bytes ", total);
    quote(&t, in, total, 0);
    note(&t, "\n");
    status = d->read(device, in, sizeof in, &got, 50);
    note(&t, "read again -> %s length=%zu ", clubhouse_status_name(status), got); quote_text(&t, d->last_error(device)); note(&t, "\n");
    d->close(device);
    d->close(NULL);
    /* Over open_devices (the site: 2). */
    clubhouse_device *many[4] = {0};
    for (int i = 0; i < 4; i++) {
        r = sink(&m);
        status = d->open(p->host, "ballmachine", &many[i], &r);
        note(&t, "open #%d -> %s ", i + 1, clubhouse_status_name(status)); quote_text(&t, m.text); note(&t, "\n");
    }
    for (int i = 0; i < 4; i++) if (many[i]) d->close(many[i]);
    return answer(&t, reply);
}

/* A reply of `n` bytes (over the site's reply_mb of 1 MiB when asked): refused alike in process
 * and in a runner. */
static clubhouse_status run_bigreply(const clubhouse_reply *reply, size_t n) {
    char chunk[4096];
    memset(chunk, 'r', sizeof chunk);
    reply->write(reply, "{\"data\":\"", 9);
    for (size_t done = 0; done < n; done += sizeof chunk) reply->write(reply, chunk, n - done < sizeof chunk ? n - done : sizeof chunk);
    reply->write(reply, "\"}", 2);
    return CLUBHOUSE_OK;
}

static clubhouse_status c_describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
    (void)self;
    const char *catalogue = "{\"commands\":["
        "{\"name\":\"storage\",\"summary\":\"Every storage call\",\"arguments\":[]},"
        "{\"name\":\"limits\",\"summary\":\"Every limit once\",\"arguments\":[]},"
        "{\"name\":\"files\",\"summary\":\"The files service\",\"arguments\":["
        "{\"name\":\"file\",\"type\":\"path\",\"required\":true},{\"name\":\"folder\",\"type\":\"path\",\"required\":true}]},"
        "{\"name\":\"config\",\"summary\":\"Config keys\",\"arguments\":[]},"
        "{\"name\":\"invoke\",\"summary\":\"Other plugins\",\"arguments\":[]},"
        "{\"name\":\"progress\",\"summary\":\"Progress stages\",\"arguments\":[]},"
        "{\"name\":\"log\",\"summary\":\"Log levels\",\"arguments\":[]},"
        "{\"name\":\"device\",\"summary\":\"A device\",\"arguments\":[]},"
        "{\"name\":\"bigreply\",\"summary\":\"A reply past reply_mb\",\"arguments\":[]},"
        "{\"name\":\"smallreply\",\"summary\":\"A reply just under reply_mb\",\"arguments\":[]}"
        "]}";
    reply->write(reply, catalogue, strlen(catalogue));
    return CLUBHOUSE_OK;
}

static clubhouse_status c_create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **made,
                                 const clubhouse_reply *reply) {
    (void)self; (void)reply;
    return fixture_create(host, made);
}

static void c_destroy(const clubhouse_plugin_descriptor *self, void *made) {
    (void)self;
    free(made);
}

static clubhouse_status c_invoke(const clubhouse_plugin_descriptor *self, void *made, const clubhouse_call *call,
                                 const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
    (void)self; (void)request; (void)length;
    instance *p = made;
    if (strcmp(command, "storage") == 0) return run_storage(p, reply);
    if (strcmp(command, "limits") == 0) return run_limits(p, reply);
    if (strcmp(command, "files") == 0) return run_files(p, call, reply);
    if (strcmp(command, "config") == 0) return run_config(p, reply);
    if (strcmp(command, "invoke") == 0) return run_invoke(p, call, reply);
    if (strcmp(command, "progress") == 0) return run_progress(p, call, reply);
    if (strcmp(command, "log") == 0) return run_log(p, reply);
    if (strcmp(command, "device") == 0) return run_device(p, reply);
    if (strcmp(command, "bigreply") == 0) return run_bigreply(reply, 2 << 20);
    if (strcmp(command, "smallreply") == 0) return run_bigreply(reply, (1 << 20) - 4096);
    const char *text = "unknown command";
    reply->write(reply, text, strlen(text));
    return CLUBHOUSE_NOT_FOUND;
}

static const char *const services[] = {CLUBHOUSE_SERVICE_STORAGE, CLUBHOUSE_SERVICE_LOG, NULL};

FIXTURE_PLUGIN(c, "Conformance", "Every service call, written down", services)
