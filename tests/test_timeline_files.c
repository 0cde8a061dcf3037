/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Timelines in files: a glTF animation's extras.sinew (user tracks and
 * events) read back field by field, each class of bad input refused with
 * its place; the events sidecar (sinew_load_events) read and refused
 * likewise; and, given the sinew tool and a folder, `sinew bake --loop
 * --events` listing the events crossed between consecutive times (forward,
 * backward, across many loops, times landing on events) against an
 * enumeration in whole milliseconds, and the user tracks' values at each
 * time against sinew_timeline_sample. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>

/* one joint turned by a 1 s clip "wave", with two user tracks and three
 * events (given out of order) in its extras */
static const char *head =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"arm\",\"translation\":[0,1,0]}],"
    "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAD8AAIA/AAAAAAAAAAAAAAAAAACAPwAAAAAU78M+AAAAAF6DbD8AAAAAAAAAAAAAAAAAAIA/\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":48}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
    "\"animations\":[{\"name\":\"wave\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
    "\"samplers\":[{\"input\":0,\"output\":1}],\"extras\":{\"sinew\":";
static const char *good_extras =
    "{\"events\":[{\"name\":\"up\",\"time\":0.5},{\"name\":\"start\",\"time\":0},{\"name\":\"end\",\"time\":1}],"
    "\"tracks\":[{\"name\":\"contact\",\"type\":\"SCALAR\",\"times\":[0,0.5,1],\"values\":[0,1,0],\"step\":[1,0,0],"
    "\"tolerance\":0.01},"
    "{\"name\":\"look\",\"type\":\"QUATERNION\",\"times\":[0,1],\"values\":[0,0,0,1,0,1,0,0]},"
    "{\"name\":\"aim\",\"type\":\"VEC3\",\"times\":[0.25],\"values\":[1,2,3],\"interpolation\":\"STEP\"}]}";

static char *gltf_with(const char *extras)
{
    size_t n = strlen(head) + strlen(extras) + 8;
    char *s = malloc(n);
    snprintf(s, n, "%s%s}}]}", head, extras);
    return s;
}

static sinew_asset *load(const char *extras, sinew_error *err)
{
    char *json = gltf_with(extras);
    sinew_asset *a = sinew_load_memory(json, strlen(json), NULL, NULL, err);
    free(json);
    return a;
}

static void test_read_back(void)
{
    sinew_error err;
    sinew_asset *a = load(good_extras, &err);
    CHECK(a != NULL, "load: %s", err.description);
    if (!a) return;
    const sinew_timeline *tl = a->timelines ? a->timelines[0] : NULL;
    CHECK(tl != NULL, "no timeline");
    if (tl) {
        CHECK(tl->duration == a->clips[0]->duration, "duration %g", (double)tl->duration);
        CHECK(tl->event_count == 3 && strcmp(tl->events[0].name, "start") == 0 && strcmp(tl->events[1].name, "up") == 0 &&
                  tl->events[2].time == 1.0f,
              "events");
        CHECK(tl->track_count == 3 && tl->value_count == 8, "tracks %d, values %d", tl->track_count, tl->value_count);
        CHECK(tl->tracks[0].step[0] == 1 && tl->tracks[0].step[1] == 0 && tl->tracks[0].tolerance == 0.01f, "contact");
        CHECK(tl->tracks[1].quaternion && tl->tracks[1].components == 4, "look is a quaternion");
        CHECK(tl->tracks[2].components == 3 && tl->tracks[2].step[0] == 1 && tl->tracks[2].times[0] == 0.25f, "aim");
    }
    sinew_asset_free(a);
    /* without extras: no timelines */
    char *plain = gltf_with("{}");
    a = sinew_load_memory(plain, strlen(plain), NULL, NULL, &err);
    free(plain);
    CHECK(a && a->timelines && a->timelines[0] && a->timelines[0]->event_count == 0, "an empty sinew object");
    sinew_asset_free(a);
}

static void expect_refused(const char *extras, const char *needle)
{
    sinew_error err = {0};
    sinew_asset *a = load(extras, &err);
    CHECK(!a, "loaded where \"%s\" was expected", needle);
    CHECK(err.result != SINEW_OK && strstr(err.description, needle) && strstr(err.description, "animations[0].extras.sinew"),
          "expected \"%s\", got \"%s\"", needle, err.description);
    sinew_asset_free(a);
}

static void test_refused(void)
{
    expect_refused("[]", "not an object");
    expect_refused("{\"events\":{}}", ".events: not an array");
    expect_refused("{\"events\":[{\"name\":\"x\",\"time\":2}]}", "events[0].time: 2 is past the clip's end at 1 s");
    expect_refused("{\"events\":[{\"time\":0.2}]}", "events[0].name: a string is required");
    expect_refused("{\"events\":[{\"name\":\"x\",\"time\":-1}]}", "events[0].time: a number >= 0");
    expect_refused("{\"tracks\":[{\"type\":\"VEC5\",\"times\":[0],\"values\":[0]}]}", "tracks[0].type: \"VEC5\"");
    expect_refused("{\"tracks\":[{\"type\":\"VEC2\",\"times\":[0,1],\"values\":[0,1,2]}]}",
                   "tracks[0].values: 3 numbers, expected 4");
    expect_refused("{\"tracks\":[{\"type\":\"VEC2\",\"times\":[0,1],\"values\":[0,1,2,3,4,5,6,7,8]}]}",
                   "tracks[0].values: 9 numbers, expected 4");
    expect_refused("{\"tracks\":[{\"type\":\"SCALAR\",\"times\":[0,1],\"values\":[0,1],\"step\":[0]}]}",
                   "tracks[0].step: 1 entries for 2 keys");
    expect_refused("{\"tracks\":[{\"type\":\"SCALAR\",\"times\":[1,0.5],\"values\":[0,1]}]}", "user track 0 key 1");
    expect_refused("{\"tracks\":[{\"type\":\"SCALAR\",\"times\":[0,3],\"values\":[0,1]}]}", "past the clip's end");
    expect_refused("{\"tracks\":[{\"type\":\"QUATERNION\",\"times\":[0],\"values\":[0,0,0,0]}]}", "a zero quaternion");
    expect_refused("{\"tracks\":[{\"type\":\"SCALAR\",\"times\":[0],\"values\":[\"a\"]}]}",
                   "tracks[0].values[0]: not a finite number");
    expect_refused("{\"tracks\":[{\"type\":\"SCALAR\",\"times\":[0],\"values\":[1],\"tolerance\":-1}]}",
                   "tracks[0].tolerance");
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void test_sidecar(const char *dir)
{
    sinew_error err;
    sinew_asset *a = load(good_extras, &err);
    if (!a) return;
    char path[600];
    snprintf(path, sizeof path, "%s/side.json", dir);
    sinew_timeline *tl[1];
    write_text(path, "{\"clips\":{\"wave\":[{\"name\":\"foot_l\",\"time\":0.3},{\"name\":\"foot_r\",\"time\":0.8}]}}");
    CHECK(sinew_load_events(path, a, NULL, tl, &err) == SINEW_OK, "sidecar: %s", err.description);
    CHECK(tl[0] && tl[0]->event_count == 2 && tl[0]->track_count == 3 && strcmp(tl[0]->events[1].name, "foot_r") == 0,
          "the sidecar's events with the clip's own tracks");
    sinew_timeline_free(tl[0]);
    static const char *const bad[][2] = {
        {"{\"clips\":{\"run\":[]}}", "clips[\"run\"]: the asset has no clip of that name"},
        {"{\"clips\":{\"wave\":[],\"wave\":[]}}", "clips[\"wave\"]: the clip is named twice"},
        {"{\"clips\":{\"wave\":[{\"name\":\"x\",\"time\":1.5}]}}", "[0].time: 1.5 is past the clip's end at 1 s"},
        {"{\"clips\":[]}", "a \"clips\" object is required"},
        {"{\"clips\":{\"wave\":[}", "JSON syntax error near byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        write_text(path, bad[i][0]);
        sinew_error e = {0};
        tl[0] = (sinew_timeline *)1;
        CHECK(sinew_load_events(path, a, NULL, tl, &e) != SINEW_OK && !tl[0] && strstr(e.description, bad[i][1]) &&
                  strstr(e.description, "side.json"),
              "sidecar %zu: expected \"%s\", got \"%s\"", i, bad[i][1], e.description);
    }
    sinew_error e = {0};
    snprintf(path, sizeof path, "%s/missing.json", dir);
    CHECK(sinew_load_events(path, a, NULL, tl, &e) == SINEW_ERROR_IO && strstr(e.description, "missing.json"),
          "a missing sidecar: %s", e.description);
    sinew_asset_free(a);
}

/* ---- the tool --------------------------------------------------------------- */

/* The events of a 1000 ms clip at these milliseconds, as the sidecar
 * below gives them (two at one time, one at the end, one at 0). */
static const int event_ms[] = {0, 300, 300, 800, 1000};
static const char *const event_names[] = {"start", "foot_l", "bell", "foot_r", "end"};
enum { EVENTS = 5 };

typedef struct crossing {
    int event;
    long long at; /* ms, unwrapped */
} crossing;

static int by_crossing(const void *pa, const void *pb)
{
    const crossing *a = pa, *b = pb;
    return a->at != b->at ? (a->at < b->at ? -1 : 1) : a->event - b->event;
}

/* Every event instance from a to b (ms), (a, b] forward, [b, a) backward. */
static int expected_crossings(long long a, long long b, crossing *out, int cap)
{
    int n = 0;
    long long lo = a < b ? a : b, hi = a < b ? b : a;
    for (long long k = lo / 1000 - 1; k <= hi / 1000 + 1; ++k)
        for (int e = 0; e < EVENTS; ++e) {
            long long x = k * 1000 + event_ms[e];
            bool in = a < b ? (x > a && x <= b) : (x >= b && x < a);
            if (in && n < cap) out[n++] = (crossing){e, x};
        }
    return n;
}

static int event_index(const char *name)
{
    for (int e = 0; e < EVENTS; ++e)
        if (strcmp(name, event_names[e]) == 0) return e;
    return -1;
}

static void test_bake(const char *tool, const char *dir)
{
    char gltf[600], side[600], out[600], command[4096];
    snprintf(gltf, sizeof gltf, "%s/wave.gltf", dir);
    snprintf(side, sizeof side, "%s/events.json", dir);
    snprintf(out, sizeof out, "%s/baked.json", dir);
    char *json = gltf_with(good_extras);
    write_text(gltf, json);
    free(json);
    write_text(side, "{\"clips\":{\"wave\":[{\"name\":\"start\",\"time\":0},{\"name\":\"foot_l\",\"time\":0.3},"
                     "{\"name\":\"bell\",\"time\":0.3},{\"name\":\"foot_r\",\"time\":0.8},{\"name\":\"end\",\"time\":1}]}}");
    /* times: forward, backward, on events, across many loops at once */
    enum { T = 40 };
    long long ms[T];
    unsigned seed = 5;
    char times[T * 16] = "";
    for (int i = 0; i < T; ++i) {
        float u = check_rand(&seed);
        long long prev = i ? ms[i - 1] : 0;
        ms[i] = u < 0.2f ? 1000 * (long long)(check_rand(&seed) * 9) + event_ms[(int)(check_rand(&seed) * EVENTS) % EVENTS]
              : u < 0.35f ? prev + (long long)(check_rand(&seed) * 7000)
                          : prev + (long long)((check_rand(&seed) - 0.4f) * 900);
        if (ms[i] < 0) ms[i] = 0;
        char t[24];
        snprintf(t, sizeof t, "%s%lld.%03lld", i ? "," : "", ms[i] / 1000, ms[i] % 1000);
        strcat(times, t);
    }
    snprintf(command, sizeof command, "'%s' bake '%s' --loop --events '%s' --times %s --json '%s'", tool, gltf, side,
             times, out);
    CHECK(system(command) == 0, "bake failed: %s", command);
    size_t size;
    char *text = (char *)test_read_file(out, &size);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(root != NULL, "bake's JSON does not parse");
    if (!root) return;
    sinew_error err;
    sinew_asset *a = sinew_load_file(gltf, NULL, &err);
    const cJSON *frames = cJSON_GetObjectItem(root, "frames");
    CHECK(cJSON_GetArraySize(frames) == T, "%d frames", cJSON_GetArraySize(frames));
    int i = 0, hits = 0;
    const cJSON *frame;
    cJSON_ArrayForEach(frame, frames)
    {
        const cJSON *events = cJSON_GetObjectItem(frame, "events");
        if (i == 0) {
            CHECK(events == NULL, "the first frame lists events");
        } else {
            crossing want[256], got[256];
            int nw = expected_crossings(ms[i - 1], ms[i], want, 256), ng = 0;
            const cJSON *e;
            long long last = -1;
            bool ordered = true;
            cJSON_ArrayForEach(e, events)
            {
                const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
                int index = name ? event_index(name) : -1;
                double loop = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "loop"));
                long long at = (long long)loop * 1000 + (index >= 0 ? event_ms[index] : 0);
                CHECK(index >= 0 && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "clip")), "wave") == 0,
                      "frame %d: event %s", i, name ? name : "(none)");
                if (ng && (ms[i] > ms[i - 1] ? at < last : at > last)) ordered = false;
                last = at;
                if (ng < 256) got[ng++] = (crossing){index, at};
            }
            CHECK(ordered, "frame %d: events not in the order crossed", i);
            CHECK(ng == nw, "frame %d (%lld ms to %lld ms): %d events, %d expected", i, ms[i - 1], ms[i], ng, nw);
            if (ng == nw) {
                qsort(want, (size_t)nw, sizeof *want, by_crossing);
                qsort(got, (size_t)ng, sizeof *got, by_crossing);
                bool same = true;
                for (int k = 0; k < nw; ++k) same = same && want[k].event == got[k].event && want[k].at == got[k].at;
                CHECK(same, "frame %d (%lld ms to %lld ms): not the events crossed", i, ms[i - 1], ms[i]);
            }
            hits += ng;
        }
        /* user tracks: the timeline's sample at that time, bit for bit */
        const cJSON *tracks = cJSON_GetObjectItem(frame, "tracks");
        float want[8];
        double time = cJSON_GetNumberValue(cJSON_GetObjectItem(frame, "time"));
        if (a && a->timelines && a->timelines[0])
            sinew_timeline_sample(a->timelines[0], (float)time, SINEW_SAMPLE_LOOP, NULL, want, 8, NULL);
        CHECK(cJSON_GetArraySize(tracks) == 3, "frame %d: %d tracks", i, cJSON_GetArraySize(tracks));
        int offset = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, tracks)
        {
            const cJSON *v;
            cJSON_ArrayForEach(v, cJSON_GetObjectItem(t, "values"))
            {
                CHECK(offset < 8 && (float)v->valuedouble == want[offset], "frame %d: track value %d is %g, not %g", i,
                      offset, v->valuedouble, offset < 8 ? (double)want[offset] : 0.0);
                ++offset;
            }
        }
        ++i;
    }
    CHECK(hits > 50, "only %d events crossed: the times test little", hits);
    cJSON_Delete(root);
    sinew_asset_free(a);
    /* a sidecar naming a clip the file lacks: refused, naming both */
    write_text(side, "{\"clips\":{\"run\":[]}}");
    snprintf(command, sizeof command, "'%s' bake '%s' --events '%s' --times 0 --json '%s' 2>'%s/err.txt'", tool, gltf,
             side, out, dir);
    CHECK(system(command) != 0, "bake took a sidecar naming a clip the file lacks");
    char err_path[700];
    snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
    char *msg = (char *)test_read_file(err_path, &size);
    CHECK(msg && strstr(msg, "events.json") && strstr(msg, "no clip of that name"), "message: %s", msg ? msg : "");
    free(msg);
}

int main(int argc, char **argv)
{
    test_read_back();
    test_refused();
    if (argc == 3) {
        mkdir(argv[2], 0755);
        test_sidecar(argv[2]);
        test_bake(argv[1], argv[2]);
    } else {
        printf("test_timeline_files: skip the sidecar and the tool: no tool and folder given\n");
    }
    return check_finish("test_timeline_files");
}
