#include "clubhouse_helpers.h"
/* Checks PluginSDK/C/clubhouse_helpers.h on its own (ClubhouseHelpersPackageEndToEndTests). */
#include <assert.h>
static char out[4096]; static size_t used;
/* A host whose config service answers from one JSON object, as the host's does (services/config.h). */
static const char *config_json[][2] = {{"greeting", "\"Hall\\u00f3\""}, {"limit", "250"}, {"ratio", "0.75"}, {"loud", "true"},
                                       {"wrong", "\"12\""}, {"nothing", "null"}, {"nested.key", "7"}};
static clubhouse_status fake_get(const clubhouse_host *h, const char *key, const clubhouse_reply *r) {
    (void)h;
    for (size_t i = 0; i < sizeof config_json / sizeof config_json[0]; i++)
        if (strcmp(config_json[i][0], key) == 0) { r->write(r, config_json[i][1], strlen(config_json[i][1])); return CLUBHOUSE_OK; }
    return CLUBHOUSE_NOT_FOUND;
}
static const clubhouse_config_service fake_config = {sizeof(clubhouse_config_service), fake_get};
static const void *fake_service(const clubhouse_host *h, const char *id) { (void)h; return strcmp(id, CLUBHOUSE_SERVICE_CONFIG) == 0 ? &fake_config : NULL; }
static void config_checks(void) {
    clubhouse_host host = {sizeof host, CLUBHOUSE_ABI_MAJOR, CLUBHOUSE_ABI_MINOR, "test", "1.0.0", "site", "alias", NULL, fake_service};
    char text[32]; long long n = 0; double d = 0; int b = 0;
    assert(clubhouse_config_string(&host, "greeting", "Hello", text, sizeof text) == 1 && strcmp(text, "Hall\xc3\xb3") == 0);
    assert(clubhouse_config_string(&host, "absent", "Hello", text, sizeof text) == 0 && strcmp(text, "Hello") == 0);
    assert(clubhouse_config_string(&host, "nothing", "Hello", text, sizeof text) == 0 && strcmp(text, "Hello") == 0);
    assert(clubhouse_config_string(&host, "limit", "Hello", text, sizeof text) == -1 && strcmp(text, "Hello") == 0);
    char tiny[4]; assert(clubhouse_config_string(&host, "greeting", "Hi", tiny, sizeof tiny) == -1 && strcmp(tiny, "Hi") == 0);
    assert(clubhouse_config_int(&host, "limit", 100, &n) == 1 && n == 250);
    assert(clubhouse_config_int(&host, "absent", 100, &n) == 0 && n == 100);
    assert(clubhouse_config_int(&host, "ratio", 100, &n) == -1 && n == 100);
    assert(clubhouse_config_int(&host, "wrong", 100, &n) == -1 && n == 100);
    assert(clubhouse_config_int(&host, "nested.key", 0, &n) == 1 && n == 7);
    assert(clubhouse_config_double(&host, "ratio", 1.0, &d) == 1 && d == 0.75);
    assert(clubhouse_config_double(&host, "limit", 1.0, &d) == 1 && d == 250);
    assert(clubhouse_config_double(&host, "loud", 1.0, &d) == -1 && d == 1.0);
    assert(clubhouse_config_bool(&host, "loud", 0, &b) == 1 && b == 1);
    assert(clubhouse_config_bool(&host, "limit", 0, &b) == -1 && b == 0);
    assert(clubhouse_config_bool(NULL, "loud", 1, &b) == -1 && b == 1); /* no host: the default, and -1 */
    /* clubhouse_status_name is header-only: this program links nothing of the SDK. */
    assert(strcmp(clubhouse_status_name(CLUBHOUSE_CANCELLED), "cancelled") == 0);
    assert(strcmp(clubhouse_status_name(CLUBHOUSE_NEEDS_CONFIRMATION), "needs-confirmation") == 0);
    assert(strcmp(clubhouse_status_name(12345), "unknown") == 0);
}
static void sink(const clubhouse_reply *r, const char *b, size_t n) { (void)r; memcpy(out+used,b,n); used+=n; out[used]=0; }
int main(void) {
    const char *req = "{\"arguments\":{\"name\":\"A\\u00e9\\\"b\\ud83d\\ude00\",\"times\":3,\"x\":2.5,\"loud\":true,\"nested\":{\"name\":\"no\"},\"n\":null},\"cwd\":\"/tmp\"}";
    clubhouse_args a; assert(clubhouse_args_init(&a, req, strlen(req)) == 0);
    char name[64]; assert(clubhouse_args_string(&a, "name", name, sizeof name) == 1); assert(strcmp(name, "A\xc3\xa9\"b\xf0\x9f\x98\x80") == 0);
    long long t = 0; assert(clubhouse_args_int(&a, "times", &t) == 1 && t == 3);
    assert(clubhouse_args_int(&a, "x", &t) == -1);
    double x = 0; assert(clubhouse_args_double(&a, "x", &x) == 1 && x == 2.5);
    int loud = 0; assert(clubhouse_args_bool(&a, "loud", &loud) == 1 && loud == 1);
    assert(clubhouse_args_string(&a, "missing", name, sizeof name) == 0);
    assert(clubhouse_args_string(&a, "n", name, sizeof name) == 0);
    assert(clubhouse_args_string(&a, "times", name, sizeof name) == -1);
    char small[3]; assert(clubhouse_args_string(&a, "name", small, sizeof small) == -1);
    char cwd[64]; assert(clubhouse_request_cwd(&a, cwd, sizeof cwd) == 1 && strcmp(cwd, "/tmp") == 0);
    clubhouse_reply r = {sizeof r, 0, sink};
    clubhouse_writer w; clubhouse_reply_begin(&w, &r);
    clubhouse_reply_string(&w, "s", "q\"\n\x01");
    clubhouse_reply_begin_array(&w, "a"); clubhouse_reply_int(&w, NULL, 1); clubhouse_reply_double(&w, NULL, 0.1); clubhouse_reply_begin_object(&w, NULL); clubhouse_reply_bool(&w, "b", 0);
    clubhouse_reply_end(&w, "done\n");
    assert(strcmp(out, "{\"data\":{\"s\":\"q\\\"\\n\\u0001\",\"a\":[1,0.1,{\"b\":false}]},\"text\":\"done\\n\"}") == 0);
    const char *empty = "{\"cwd\":\"/\"}"; assert(clubhouse_args_init(&a, empty, strlen(empty)) == 0); assert(clubhouse_args_has(&a, "x") == 0);
    assert(clubhouse_args_init(&a, "[]", 2) == -1);
    config_checks();
    puts("helpers ok");
    return 0;
}
