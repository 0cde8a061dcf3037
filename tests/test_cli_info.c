/* SPDX-License-Identifier: MIT */
/* `sinew info --json` and `--quiet` through the built binary: the JSON
 * parses and says what the text output says (joints with their parents and
 * rest transforms, clips with durations and key counts, meshes with their
 * influence histograms); --quiet is the one summary line with the same
 * counts; --weld, --order-vertices and --formats load as for the other
 * commands (on the shared FBX files when they are there); `sinew convert
 * --compress` writes compressed clips whose bytes and error info tells,
 * keeps a clip it would not make smaller, and bake plays them.
 * usage: test_cli_info SINEW_BINARY WORK_DIR ASSETS_DIR */
#include "sinew/sinew.h"
#include "check.h"
#include "cli_run.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sinew_bin, *work;

typedef cli_result result;

/* Runs `sinew info ARGS` (formatted) with stdout and stderr to files. */
static result info(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    result res = cli_run(sinew_bin, work, 0, "info ", format, ap);
    va_end(ap);
    return res;
}

static void result_free(result *r) { cli_result_free(r); }

static double number(const cJSON *object, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(object, key));
}

static bool floats(const cJSON *object, const char *key, int count)
{
    const cJSON *a = cJSON_GetObjectItem(object, key);
    bool ok = cJSON_IsArray(a) && cJSON_GetArraySize(a) == count;
    for (int i = 0; ok && i < count; ++i) ok = cJSON_IsNumber(cJSON_GetArrayItem(a, i));
    return ok;
}

/* The JSON of `args` against its text output and --quiet line. */
static void check_file(const char *args, const char *label)
{
    result j = info("%s --json", args), t = info("%s", args), q = info("%s --quiet", args);
    CHECK(j.status == 0 && t.status == 0 && q.status == 0, "%s: info runs (%d, %d, %d): %s", label, j.status,
          t.status, q.status, j.err);
    cJSON *json = cJSON_Parse(j.out);
    CHECK(json != NULL, "%s: --json prints JSON: %.200s", label, j.out);
    if (!json) goto done;

    /* the skeleton: as many joints as the text lists, parents first */
    const cJSON *sk = cJSON_GetObjectItem(json, "skeleton"), *joints = cJSON_GetObjectItem(sk, "joints");
    int joint_count = cJSON_GetArraySize(joints);
    char line[512];
    snprintf(line, sizeof line, "skeleton: %d joints, %d root%s, depth %d\n", joint_count,
             (int)number(sk, "roots"), number(sk, "roots") == 1 ? "" : "s", (int)number(sk, "depth"));
    CHECK(number(sk, "joint_count") == joint_count && strstr(t.out, line), "%s: the text says %s", label, line);
    int i = 0;
    const cJSON *joint;
    cJSON_ArrayForEach(joint, joints)
    {
        const cJSON *name = cJSON_GetObjectItem(joint, "name");
        int parent = (int)number(joint, "parent");
        CHECK(number(joint, "index") == i && cJSON_IsString(name) && parent >= -1 && parent < i,
              "%s: joint %d: index, name, parent %d", label, i, parent);
        CHECK(floats(joint, "translation", 3) && floats(joint, "rotation", 4) && floats(joint, "scale", 3),
              "%s: joint %d: rest translation, rotation, scale", label, i);
        snprintf(line, sizeof line, "%3d ", i);
        const char *at = strstr(t.out, line);
        if (at && cJSON_IsString(name) && name->valuestring[0]) {
            at += strlen(line) + strspn(at + strlen(line), " ");
            CHECK(strncmp(at, name->valuestring, strlen(name->valuestring)) == 0, "%s: joint %d is %s in the text",
                  label, i, name->valuestring);
        }
        ++i;
    }

    /* clips: the text's line for each */
    const cJSON *clips = cJSON_GetObjectItem(json, "clips"), *clip;
    int clip_count = cJSON_GetArraySize(clips);
    snprintf(line, sizeof line, "clips: %d\n", clip_count);
    CHECK(strstr(t.out, line) != NULL, "%s: %s", label, line);
    cJSON_ArrayForEach(clip, clips)
    {
        const cJSON *keys = cJSON_GetObjectItem(clip, "keys");
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(clip, "name"));
        snprintf(line, sizeof line, "  %d \"%s\": %.3f s, %d tracks on %d joints; keys: %d translation, %d rotation, "
                 "%d scale", (int)number(clip, "index"), name ? name : "?", number(clip, "duration"),
                 (int)number(clip, "tracks"), (int)number(clip, "animated_joints"),
                 (int)number(keys, "translation"), (int)number(keys, "rotation"), (int)number(keys, "scale"));
        CHECK(strstr(t.out, line) != NULL, "%s: the text has %s", label, line);
        CHECK(number(clip, "bytes") > 0 && cJSON_IsNumber(cJSON_GetObjectItem(keys, "weights")),
              "%s: clip %s: bytes and weights keys", label, name);
    }

    /* meshes: counts, and the influence histogram the text prints */
    const cJSON *meshes = cJSON_GetObjectItem(json, "meshes"), *mesh;
    int mesh_count = cJSON_GetArraySize(meshes);
    long vertices = 0;
    cJSON_ArrayForEach(mesh, meshes)
    {
        int nv = (int)number(mesh, "vertices");
        vertices += nv;
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(mesh, "name"));
        snprintf(line, sizeof line, "  %d \"%s\": %d vertices, %d triangles; attributes: position",
                 (int)number(mesh, "index"), name ? name : "?", nv, (int)number(mesh, "triangles"));
        CHECK(strstr(t.out, line) != NULL, "%s: the text has %s", label, line);
        const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(mesh, "attributes"), 0);
        CHECK(cJSON_IsString(first) && strcmp(first->valuestring, "position") == 0, "%s: attributes", label);
        const cJSON *skin = cJSON_GetObjectItem(mesh, "skin");
        if (cJSON_IsNull(skin)) continue;
        const cJSON *inf = cJSON_GetObjectItem(skin, "influences"), *h = cJSON_GetObjectItem(inf, "histogram");
        CHECK(cJSON_GetArraySize(h) == SINEW_MAX_INFLUENCES + 1, "%s: histogram of 0 to 8 influences", label);
        long sum = 0;
        char text[512];
        int used = snprintf(text, sizeof text, "influences per vertex: average %.2f;", number(inf, "average"));
        for (int n = 0; n <= SINEW_MAX_INFLUENCES; ++n) {
            int count = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(h, n));
            sum += count;
            if (n > 0 && count && used < (int)sizeof text)
                used += snprintf(text + used, sizeof text - (size_t)used, " %d: %d", n, count);
        }
        CHECK(sum == nv, "%s: the histogram counts %ld of %d vertices", label, sum, nv);
        CHECK(strstr(t.out, text) != NULL, "%s: the text has %s", label, text);
        CHECK(number(skin, "joints") > 0, "%s: skin joints", label);
    }

    /* --quiet: one line, the same counts */
    snprintf(line, sizeof line, ": %d joint%s, %d clip%s, %d mesh%s, %ld vert%s\n", joint_count,
             joint_count == 1 ? "" : "s", clip_count, clip_count == 1 ? "" : "s", mesh_count,
             mesh_count == 1 ? "" : "es", vertices, vertices == 1 ? "ex" : "ices");
    const char *nl = strchr(q.out, '\n');
    CHECK(nl && nl[1] == '\0' && strstr(q.out, line), "%s: --quiet prints the one line \"...%s\", not: %s", label,
          line, q.out);
    cJSON_Delete(json);
done:
    result_free(&j), result_free(&t), result_free(&q);
}

static long quiet_vertices(const char *args)
{
    result q = info("%s --quiet", args);
    const char *at = strstr(q.out, " mesh");
    long v = -1;
    if (q.status == 0 && at) {
        at = strchr(at, ',');
        if (at) v = strtol(at + 1, NULL, 10);
    }
    result_free(&q);
    return v;
}

/* Runs `sinew ARGS` (formatted). */
static result run(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    result res = cli_run(sinew_bin, work, 0, "", format, ap);
    va_end(ap);
    return res;
}

/* The golden archive converted with --compress: its clip compressed
 * within the bound (0.0001 in its metres), told by info, played by bake;
 * the shared glTF interpolation test's splines, which sampling would
 * make larger, kept as they are with a warning; the usage errors. */
static void check_compress(const char *assets)
{
    const char *golden = SINEW_SOURCE_DIR "/tests/archive/golden-2.0.sinew";
    result r = run("convert '%s' -o '%s/z.sinew' --compress", golden, work);
    CHECK(r.status == 0, "convert --compress: %d: %s", r.status, r.err);
    result_free(&r);
    r = info("'%s/z.sinew' --json", work);
    cJSON *json = cJSON_Parse(r.out);
    const cJSON *clip = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "clips"), 0);
    const cJSON *z = cJSON_GetObjectItem(clip, "compressed");
    CHECK(cJSON_IsObject(z) && number(z, "bytes") > 0 && number(z, "bytes") < number(clip, "bytes") &&
              number(z, "largest_error") <= number(z, "error_bound") &&
              fabs(number(z, "error_bound") - 1e-4) < 1e-9 && number(z, "percentile_99") <= number(z, "largest_error"),
          "info --json: the clip compressed within its bound: %.300s", r.out);
    /* what the text tells of a compressed clip, no counts of tracks it does not hold */
    const cJSON *keys = cJSON_GetObjectItem(clip, "keys");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(clip, "animated_joints")) &&
              cJSON_IsNull(cJSON_GetObjectItem(clip, "tracks")) &&
              cJSON_IsNull(cJSON_GetObjectItem(keys, "rotation")) &&
              cJSON_IsNumber(cJSON_GetObjectItem(keys, "weights")) &&
              cJSON_IsNull(cJSON_GetObjectItem(clip, "interpolation")),
          "info --json: a compressed clip's tracks, joints and keys are null, not 0: %.300s", r.out);
    char told[160];
    snprintf(told, sizeof told, "compressed: %d samples (evenly spaced), %d animated and %d constant tracks",
             (int)number(z, "samples"), (int)number(z, "animated_tracks"), (int)number(z, "constant_tracks"));
    cJSON_Delete(json);
    result_free(&r);
    r = info("'%s/z.sinew'", work);
    CHECK(r.status == 0 && strstr(r.out, "compressed: 3 samples (evenly spaced)") && strstr(r.out, told),
          "info says so, as --json does (%s): %s", told, r.out);
    result_free(&r);
    r = run("bake '%s/z.sinew' --times 0.25,0.5 --json '%s/z.json'", work, work);
    CHECK(r.status == 0, "bake plays the compressed clip: %s", r.err);
    result_free(&r);
    r = run("convert '%s' -o '%s/y.sinew' --compress 0", golden, work);
    CHECK(r.status == 2 && strstr(r.err, "--compress: \"0\" is not a distance in centimeters above 0"),
          "a bound of 0 is a usage error: %s", r.err);
    result_free(&r);
    r = run("convert '%s' -o '%s/y.sinew' --pack --compress=0.05", golden, work);
    CHECK(r.status == 2 && strstr(r.err, "choose one"), "--pack with --compress: %s", r.err);
    result_free(&r);
    char splines[1024];
    snprintf(splines, sizeof splines, "%s/gltf/interpolation_test.gltf", assets);
    if (access(splines, R_OK) != 0) {
        printf("skip: %s is missing (the shared assets): no spline clips to keep\n", splines);
        return;
    }
    r = run("convert '%s' -o '%s/s.sinew' --compress", splines, work);
    CHECK(r.status == 0 && strstr(r.err, "\"CubicSpline Translation\" stays as it is"), "splines kept: %s", r.err);
    result_free(&r);
    r = info("'%s/s.sinew' --json", work);
    json = cJSON_Parse(r.out);
    int compressed = 0, kept = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(json, "clips"))
    {
        const cJSON *x = cJSON_GetObjectItem(c, "compressed");
        if (cJSON_IsNull(x)) ++kept;
        else if (number(x, "largest_error") <= number(x, "error_bound")) ++compressed;
    }
    CHECK(compressed == 7 && kept == 2, "the step and linear clips compressed within the bound (%d), the splines "
          "kept (%d)", compressed, kept);
    cJSON_Delete(json);
    result_free(&r);
}

/* Whether object[key] is the string `want`. */
static bool text_is(const cJSON *object, const char *key, const char *want)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(object, key));
    return s && strcmp(s, want) == 0;
}

/* Each clip's timeline, in the text under the clip and in the JSON: an
 * archive whose first clip has a compressed timeline of a vector and a
 * quaternion track and five events, its second one of an event alone (the
 * archive seed tests/fuzz/regressions/archive/seed-timelines); none in the
 * built-in character. */
static void check_timelines(void)
{
    const char *path = SINEW_SOURCE_DIR "/tests/fuzz/regressions/archive/seed-timelines";
    char args[1100];
    snprintf(args, sizeof args, "'%s'", path);
    check_file(args, "seed-timelines");
    result t = info("%s", args), j = info("%s --json", args), plain = info("--json");
    CHECK(t.status == 0 && j.status == 0, "info on an archive with timelines: %d, %d: %s", t.status, j.status,
          t.err);
    static const char *const lines[] = {
        "  0 \"swing\": 1.000 s", "      timeline: 2 user tracks, 5 events, compressed\n",
        "        \"trail\": 3 components, 8 keys\n", "        \"look\": quaternion, ",
        "        events: \"\" at 0.100 s, \"step_l\" at 0.250 s, \"hit\" at 0.500 s, \"step_r\" at 0.750 s, and 1 "
        "more\n",
        "      timeline: 0 user tracks, 1 event\n        events: \"hit\" at 0.500 s\n"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; ++i)
        CHECK(t.out && strstr(t.out, lines[i]) != NULL, "info lists the timeline: %s in %s", lines[i], t.out ? t.out : "");
    cJSON *json = cJSON_Parse(j.out);
    const cJSON *clips = cJSON_GetObjectItem(json, "clips");
    const cJSON *first = cJSON_GetObjectItem(cJSON_GetArrayItem(clips, 0), "timeline");
    const cJSON *second = cJSON_GetObjectItem(cJSON_GetArrayItem(clips, 1), "timeline");
    const cJSON *tracks = cJSON_GetObjectItem(first, "user_tracks"), *trail = cJSON_GetArrayItem(tracks, 0);
    const cJSON *look = cJSON_GetArrayItem(tracks, 1);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(first, "compressed")) && cJSON_GetArraySize(tracks) == 2 &&
              text_is(trail, "name", "trail") &&
              number(trail, "components") == 3 && number(trail, "keys") == 8 &&
              cJSON_IsTrue(cJSON_GetObjectItem(look, "quaternion")) && number(look, "components") == 4 &&
              cJSON_GetArraySize(cJSON_GetObjectItem(first, "events")) == 5,
          "--json: the first clip's timeline: %.300s", j.out);
    const cJSON *hit = cJSON_GetArrayItem(cJSON_GetObjectItem(second, "events"), 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(second, "compressed")) &&
              cJSON_GetArraySize(cJSON_GetObjectItem(second, "user_tracks")) == 0 &&
              text_is(hit, "name", "hit") &&
              number(hit, "time") == 0.5,
          "--json: the second clip's timeline, an event alone");
    cJSON_Delete(json);
    json = cJSON_Parse(plain.out);
    const cJSON *clip;
    cJSON_ArrayForEach(clip, cJSON_GetObjectItem(json, "clips"))
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(clip, "timeline")), "the built-in character's clips: no timeline");
    cJSON_Delete(json);
    result_free(&t), result_free(&j), result_free(&plain);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_cli_info SINEW_BINARY WORK_DIR ASSETS_DIR\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    const char *assets = argv[3];
    mkdir(work, 0777);
    check_file("", "built-in");
    check_compress(argv[3]);
    check_timelines();
    result r = info("--quiet");
    CHECK(r.status == 0 && strcmp(r.out, "built-in character: 26 joints, 2 clips, 1 mesh, 6023 vertices\n") == 0,
          "info --quiet: %s", r.out);
    result_free(&r);
    r = info("--weld --order-vertices --formats obj --scene 0 --quiet");
    CHECK(r.status == 0, "info takes --weld, --order-vertices, --formats and --scene: %s", r.err);
    result_free(&r);

    char path[1024];
    static const char *const files[] = {"gltf/cesium_man.gltf", "gltf/rigged_simple.gltf", "gltf/box_animated.gltf",
                                        "fbx/pab/walk.fbx", "fbx/pab/arnaud.fbx", "collada/seymour.dae"};
    int found = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s", assets, files[i]);
        if (access(path, R_OK) != 0) continue;
        char args[1100];
        snprintf(args, sizeof args, "'%s'", path);
        result probe = info("%s --quiet", args);
        bool loads = probe.status == 0;
        result_free(&probe);
        if (!loads) {
            printf("skip: %s does not load here (no Assimp?)\n", files[i]);
            continue;
        }
        check_file(args, files[i]);
        ++found;
    }
    if (!found) printf("skip: no shared assets under %s\n", assets);
    /* --weld merges arnaud's identical vertices */
    snprintf(path, sizeof path, "'%s/fbx/pab/arnaud.fbx'", assets);
    long plain = quiet_vertices(path);
    if (plain > 0) {
        char welded[1100];
        snprintf(welded, sizeof welded, "%s --weld", path);
        long fewer = quiet_vertices(welded);
        CHECK(fewer > 0 && fewer < plain, "info --weld: %ld vertices, fewer than %ld", fewer, plain);
    }
    /* -v: which process ran the Assimp import, at the logger's info level */
    snprintf(path, sizeof path, "'%s/fbx/pab/walk.fbx'", assets);
    r = info("%s --quiet -v", path);
    if (r.status != 0) {
        printf("skip: %s does not load here (no shared assets or no Assimp): %s", path, r.err);
    } else {
        result quiet = info("%s --quiet", path);
        CHECK(strstr(r.err, "sinew: info: walk.fbx: Assimp runs in ") != NULL,
              "info -v: which process ran the import: %s", r.err);
        CHECK(quiet.status == 0 && !strstr(quiet.err, "Assimp runs in"), "without -v, not: %s", quiet.err);
        result_free(&quiet);
    }
    result_free(&r);
    return check_finish("test_cli_info");
}
