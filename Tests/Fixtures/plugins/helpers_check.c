#include "clubhouse_helpers.h"
/* Checks PluginSDK/C/clubhouse_helpers.h on its own (ClubhouseHelpersPackageEndToEndTests). */
#include <assert.h>
static char out[4096]; static size_t used;
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
    puts("helpers ok");
    return 0;
}
