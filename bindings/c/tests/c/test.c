/*
 * C test of libmlsched (bindings/c/tests/c/run.sh builds it against libmlsched.so and
 * libmlsched.a and runs it under valgrind). Argument: the folder written by
 * `cargo run -p mlsched-capi --example expected -- DIR`.
 *
 * For every bundled scenario and every policy of its kind: mlsched_run returns the expected
 * code and bytes; on a fresh handle mlsched_engine_run_to_end does too; a handle fed the
 * scenario's events one by one from C (with a snapshot/restore half way) finishes with the same
 * bytes. Then the error paths: NULL pointers, bad UTF-8, a bad policy, bad events. Then the
 * open-world host events (bindings/events/): the sample's events fed one per line with
 * mlsched_engine_event (bad events in between refused with 2, changing nothing) finish with the
 * bytes of `mlsched run --events`.
 */
#include "mlsched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
        }                                                                                      \
    } while (0)

static char *read_file(const char *dir, const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(3);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) exit(3);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

/* Feeds one event; decisions are checked to be a JSON array and freed. */
static int feed(MlschedEngine *e, uint32_t ev, uint32_t job, uint32_t slot) {
    uint8_t *out = NULL;
    size_t len = 0;
    int32_t rc = mlsched_engine_feed(e, ev, job, slot, &out, &len);
    if (rc == 0) CHECK(len >= 2 && out[0] == '[' && out[len - 1] == ']', "decisions not an array");
    else fprintf(stderr, "feed: %s\n", out ? (char *)out : "(null)");
    mlsched_free(out, len);
    return rc;
}

/* The driver's loop (docs/engine.md) from C: arrivals, then the slot advance, then the next
 * slot = min(next arrival, next wake-up). Snapshots and restores the handle half way. */
static int drive(MlschedEngine **pe, const char *scn, size_t scn_len, const char *policy,
                 const uint32_t *arr, size_t n) {
    size_t next = 0, steps = 0;
    int64_t t = -1;
    int64_t w = mlsched_engine_next_wakeup(*pe);
    if (n > 0) t = arr[0];
    if (w >= 0 && (t < 0 || w < t)) t = w;
    while (t >= 0) {
        while (next < n && arr[2 * next] <= (uint32_t)t) {
            if (feed(*pe, MLSCHED_EVENT_JOB_ARRIVED, arr[2 * next + 1], (uint32_t)t) != 0) return 1;
            next++;
        }
        if (feed(*pe, MLSCHED_EVENT_SLOT_ADVANCED, 0, (uint32_t)t) != 0) return 1;
        if (++steps == 3) {
            uint8_t *snap = NULL, *msg = NULL;
            size_t snap_len = 0, msg_len = 0;
            CHECK(mlsched_engine_snapshot(*pe, &snap, &snap_len) == 0, "snapshot");
            MlschedEngine *r = NULL;
            int32_t rc = mlsched_engine_restore(u8(scn), scn_len, u8(policy), strlen(policy), snap,
                                                snap_len, &r, &msg, &msg_len);
            CHECK(rc == 0 && r != NULL, "restore: %s", msg ? (char *)msg : "");
            mlsched_free(msg, msg_len);
            mlsched_free(snap, snap_len);
            if (r) {
                CHECK(mlsched_engine_now(r) == t, "restored now");
                mlsched_engine_free(*pe);
                *pe = r;
            }
        }
        int64_t wake = mlsched_engine_next_wakeup(*pe);
        if (wake >= 0 && wake < t + 1) wake = t + 1;
        int64_t a = next < n ? (int64_t)arr[2 * next] : -1;
        if (a >= 0 && a < t) a = t;
        int64_t nt = a;
        if (wake >= 0 && (nt < 0 || wake < nt)) nt = wake;
        if (nt == t) break;
        t = nt;
    }
    return 0;
}

static void one_case(const char *dir, const char *name, const char *policy, int code) {
    char fname[512];
    size_t scn_len, exp_len, arr_len;
    snprintf(fname, sizeof fname, "%s.scenario.json", name);
    char *scn = read_file(dir, fname, &scn_len);
    snprintf(fname, sizeof fname, "%s.%s.json", name, policy);
    char *expected = read_file(dir, fname, &exp_len);
    snprintf(fname, sizeof fname, "%s.arrivals", name);
    char *arrtext = read_file(dir, fname, &arr_len);

    /* mlsched_run */
    uint8_t *out = NULL;
    size_t len = 0;
    int32_t rc = mlsched_run(u8(scn), scn_len, u8(policy), strlen(policy), &out, &len);
    CHECK(rc == code, "%s %s: mlsched_run returned %d, expected %d", name, policy, rc, code);
    CHECK(len == exp_len && memcmp(out, expected, len) == 0, "%s %s: mlsched_run bytes differ",
          name, policy);
    CHECK(out[len] == 0, "NUL after the buffer");
    mlsched_free(out, len);
    if (code != 0) goto done;

    /* a fresh handle run to the end */
    MlschedEngine *e = NULL;
    rc = mlsched_engine_new(u8(scn), scn_len, u8(policy), strlen(policy), &e, &out, &len);
    CHECK(rc == 0 && e != NULL && out == NULL, "%s %s: engine_new", name, policy);
    rc = mlsched_engine_run_to_end(e, &out, &len);
    CHECK(rc == 0 && len == exp_len && memcmp(out, expected, len) == 0,
          "%s %s: run_to_end bytes differ", name, policy);
    mlsched_free(out, len);
    rc = mlsched_engine_feed(e, MLSCHED_EVENT_SLOT_ADVANCED, 0, 1u << 30, &out, &len);
    CHECK(rc == 2 && strstr((char *)out, "finished") != NULL, "event after finish: %d", rc);
    mlsched_free(out, len);
    mlsched_engine_free(e);

    /* event by event from C */
    size_t n = 0, cap = 16;
    uint32_t *arr = malloc(cap * 2 * sizeof *arr);
    char *p = arrtext;
    unsigned s, j;
    int used;
    while (sscanf(p, "%u %u\n%n", &s, &j, &used) == 2) {
        if (n == cap) arr = realloc(arr, (cap *= 2) * 2 * sizeof *arr);
        arr[2 * n] = s;
        arr[2 * n + 1] = j;
        n++;
        p += used;
    }
    e = NULL;
    rc = mlsched_engine_new(u8(scn), scn_len, u8(policy), strlen(policy), &e, &out, &len);
    CHECK(rc == 0, "engine_new");
    CHECK(drive(&e, scn, scn_len, policy, arr, n) == 0, "%s %s: driving refused an event", name,
          policy);
    rc = mlsched_engine_finish(e, &out, &len);
    CHECK(rc == 0 && len == exp_len && memcmp(out, expected, len) == 0,
          "%s %s: event-by-event result differs", name, policy);
    mlsched_free(out, len);
    mlsched_engine_free(e);
    free(arr);
done:
    free(scn);
    free(expected);
    free(arrtext);
}

static void errors(const char *dir) {
    uint8_t *out = NULL;
    size_t len = 0;
    size_t scn_len;
    char *scn = read_file(dir, "oasis-small.scenario.json", &scn_len);

    CHECK(mlsched_run(NULL, 5, NULL, 0, &out, &len) == 2, "null scenario, length 5");
    CHECK(out && strstr((char *)out, "scenario_json") && strstr((char *)out, "null pointer"),
          "message names the field: %s", out ? (char *)out : "");
    mlsched_free(out, len);
    CHECK(mlsched_run(NULL, 0, NULL, 0, &out, &len) == 2, "null scenario");
    mlsched_free(out, len);
    CHECK(mlsched_run(u8(scn), scn_len, NULL, 3, &out, &len) == 2, "null policy, length 3");
    CHECK(strstr((char *)out, "policy") != NULL, "names policy: %s", (char *)out);
    mlsched_free(out, len);
    CHECK(mlsched_run(u8("\xff\xfe{}"), 4, NULL, 0, &out, &len) == 2, "bad UTF-8");
    CHECK(strstr((char *)out, "UTF-8") != NULL, "says UTF-8: %s", (char *)out);
    mlsched_free(out, len);
    CHECK(mlsched_run(u8(scn), scn_len, u8("nope"), 4, &out, &len) == 2, "unknown policy");
    CHECK(strstr((char *)out, "policy `nope`") != NULL, "%s", (char *)out);
    mlsched_free(out, len);
    CHECK(mlsched_run(u8("{\"kind\": \"oasis\"}"), 17, NULL, 0, &out, &len) == 2, "bad document");
    mlsched_free(out, len);
    CHECK(mlsched_run(u8(scn), scn_len, NULL, 0, NULL, &len) == 2, "null out");
    CHECK(mlsched_run(u8(scn), scn_len, NULL, 0, &out, NULL) == 2, "null out_len");

    MlschedEngine *e = NULL;
    CHECK(mlsched_engine_new(u8(scn), scn_len, NULL, 0, &e, &out, &len) == 0, "engine");
    CHECK(mlsched_engine_now(e) == -1, "now before the first event");
    CHECK(mlsched_engine_feed(e, 7, 0, 0, &out, &len) == 2, "unknown event code");
    CHECK(strstr((char *)out, "event") != NULL, "%s", (char *)out);
    mlsched_free(out, len);
    CHECK(mlsched_engine_feed(e, MLSCHED_EVENT_JOB_ARRIVED, 9999, 0, &out, &len) == 2, "no job");
    CHECK(strstr((char *)out, "field `job`") != NULL, "%s", (char *)out);
    mlsched_free(out, len);
    CHECK(mlsched_engine_feed(e, MLSCHED_EVENT_JOB_FINISHED, 0, 0, &out, &len) == 2, "never arrived");
    mlsched_free(out, len);
    CHECK(mlsched_engine_info(e, &out, &len) == 0 && strstr((char *)out, "\"kind\":\"oasis\""),
          "info: %s", (char *)out);
    mlsched_free(out, len);
    MlschedEngine *r = NULL;
    CHECK(mlsched_engine_restore(u8(scn), scn_len, NULL, 0, u8("junk"), 4, &r, &out, &len) == 2 &&
              r == NULL,
          "junk snapshot");
    mlsched_free(out, len);
    mlsched_engine_free(e);
    CHECK(mlsched_engine_feed(NULL, 1, 0, 0, &out, &len) == 2, "null handle");
    mlsched_free(out, len);
    CHECK(mlsched_engine_next_wakeup(NULL) == -2, "null handle wake-up");
    CHECK(mlsched_policies(u8("route"), 5, &out, &len) == 0 && out[0] == '[', "policies");
    mlsched_free(out, len);
    uint8_t *a = mlsched_alloc(10);
    CHECK(a != NULL && a[9] == 0, "alloc");
    mlsched_free(a, 10);
    mlsched_free(NULL, 0);
    mlsched_engine_free(NULL);
    free(scn);
}

/* Applies one host event (JSON text); its decisions are checked to be a JSON array. */
static int32_t host_event(MlschedEngine *e, const char *json) {
    uint8_t *out = NULL;
    size_t len = 0;
    int32_t rc = mlsched_engine_event(e, u8(json), strlen(json), &out, &len);
    if (rc == 0) CHECK(len >= 2 && out[0] == '[' && out[len - 1] == ']', "decisions not an array");
    mlsched_free(out, len);
    return rc;
}

/* A bad host event: refused with 2 and a message naming `field`. */
static void bad_event(MlschedEngine *e, const char *json, const char *field) {
    uint8_t *out = NULL;
    size_t len = 0;
    int32_t rc = mlsched_engine_event(e, u8(json), strlen(json), &out, &len);
    CHECK(rc == 2, "bad event %s: code %d", json, rc);
    CHECK(out != NULL && strstr((char *)out, field) != NULL, "bad event %s: message %s", json,
          out ? (char *)out : "(null)");
    mlsched_free(out, len);
}

static void events(const char *dir) {
    size_t scn_len, fed_len, want_len;
    char *scn = read_file(dir, "events.scenario.json", &scn_len);
    char *fed = read_file(dir, "events.fed.jsonl", &fed_len);
    char *want = read_file(dir, "events.result.json", &want_len);
    MlschedEngine *e = NULL;
    uint8_t *out = NULL;
    size_t len = 0;
    CHECK(mlsched_engine_new(u8(scn), scn_len, NULL, 0, &e, &out, &len) == 0, "events engine");
    mlsched_free(out, len);
    int lines = 0;
    for (char *line = strtok(fed, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        CHECK(host_event(e, line) == 0, "event %s", line);
        /* Bad events between the good ones change nothing. */
        bad_event(e, "{", "not valid JSON");
        bad_event(e, "{\"event\": \"server_down\", \"at\": 40, \"server\": \"nope\"}", "`server`");
        bad_event(e, "{\"event\": \"cancel\", \"at\": 40, \"job\": \"nope\"}", "`job`");
        bad_event(e, "{\"event\": \"capacity\", \"at\": 40, \"server\": \"h0\", \"capacity\": [1]}",
                  "`capacity`");
        bad_event(e, "{\"event\": \"advance\"}", "`at`");
        lines++;
    }
    CHECK(lines > 6, "only %d fed events", lines);
    out = NULL;
    len = 0;
    CHECK(mlsched_engine_run_to_end(e, &out, &len) == 0, "events run_to_end");
    CHECK(len == want_len && out && memcmp(out, want, len) == 0,
          "events: result differs from `mlsched run --events`");
    mlsched_free(out, len);
    out = NULL;
    len = 0;
    const char *late = "{\"event\": \"advance\", \"at\": 99}";
    CHECK(mlsched_engine_event(e, u8(late), strlen(late), &out, &len) == 2, "event after finish");
    mlsched_free(out, len);
    out = NULL;
    len = 0;
    CHECK(mlsched_engine_event(NULL, u8("{}"), 2, &out, &len) == 2, "null handle");
    mlsched_free(out, len);
    out = NULL;
    len = 0;
    CHECK(mlsched_engine_event(e, NULL, 5, &out, &len) == 2, "null event with a length");
    mlsched_free(out, len);
    mlsched_engine_free(e);
    free(scn);
    free(fed);
    free(want);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s EXPECTED_DIR\n", argv[0]);
        return 3;
    }
    size_t n;
    char *cases = read_file(argv[1], "cases.txt", &n);
    char name[256], policy[64];
    int code, used, runs = 0;
    char *p = cases;
    while (sscanf(p, "%255s %63s %d\n%n", name, policy, &code, &used) == 3) {
        one_case(argv[1], name, policy, code);
        runs++;
        p += used;
    }
    free(cases);
    errors(argv[1]);
    events(argv[1]);
    CHECK(runs > 20, "only %d cases", runs);
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
}
