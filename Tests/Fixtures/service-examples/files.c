/* The files service in C: read the path argument "input", write the path argument "output". */
#include <unistd.h>
#include <clubhouse.h>

// BEGIN EXAMPLE
/* `copy INPUT OUTPUT`: the catalogue declares "input" as {"type": "path"} and "output" as
 * {"type": "path", "access": "write"}. The host opens exactly what the caller named; the output
 * is a temporary file renamed over the target only when this returns CLUBHOUSE_OK. */
static clubhouse_status copy_file(const clubhouse_host *host, const clubhouse_call *call, const clubhouse_reply *reply) {
    const clubhouse_files_service *files = host->get_service(host, CLUBHOUSE_SERVICE_FILES);
    if (files == NULL) {
        static const char message[] = "this host has no files service; upgrade clubhouse";
        reply->write(reply, message, sizeof message - 1);
        return CLUBHOUSE_UNSUPPORTED;
    }
    int in = -1, out = -1;
    clubhouse_status s = files->open_argument(call, "input", CLUBHOUSE_FILE_READ, &in, reply);
    if (s == CLUBHOUSE_OK) s = files->open_argument(call, "output", CLUBHOUSE_FILE_WRITE, &out, reply);
    char buffer[65536];
    ssize_t n = 0;
    while (s == CLUBHOUSE_OK && (n = read(in, buffer, sizeof buffer)) > 0) {
        if (write(out, buffer, (size_t)n) != n) n = -1;
        if (n < 0) break;
    }
    if (s == CLUBHOUSE_OK && n < 0) {
        static const char message[] = "copy: reading input or writing output failed; check the disk and try again";
        reply->write(reply, message, sizeof message - 1);
        s = CLUBHOUSE_IO; /* the host removes the temporary output */
    }
    if (in >= 0) close(in); /* the descriptors are ours */
    if (out >= 0) close(out);
    if (s == CLUBHOUSE_OK) {
        static const char ok[] = "{\"data\":{},\"text\":\"copied\\n\"}";
        reply->write(reply, ok, sizeof ok - 1);
    }
    return s;
}
// END EXAMPLE

void *files_example_entries[] = {(void *)copy_file};
