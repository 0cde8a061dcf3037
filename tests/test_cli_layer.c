/* SPDX-License-Identifier: MIT */
/* The animation layer through the command line, by numbers: `sinew bake`
 * on the built-in character with the layer's options, its world matrices
 * compared with plain bakes. IK moves the foot by exactly what was asked
 * and leaves the torso; a 1/0 blend is the clip; a crossfade to idle stops
 * the root where the walk left it; --in-place keeps the root over the
 * origin; bad options fail.
 * usage: test_cli_layer SINEW_BINARY WORK_DIR */
#include "sinew/sinew.h"
#include "check.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *sinew_bin, *work;

/* Runs `sinew bake ARGS --json WORK/NAME`; returns the parsed JSON (NULL on
 * failure) and the exit status in *status. */
static cJSON *bake(const char *args, int *status)
{
    char cmd[2048], path[1024];
    snprintf(path, sizeof path, "%s/bake.json", work);
    remove(path);
    snprintf(cmd, sizeof cmd, "'%s' bake %s --json '%s' > '%s/bake.log' 2>&1", sinew_bin, args, path, work);
    int r = system(cmd);
    *status = WIFEXITED(r) ? WEXITSTATUS(r) : -1;
    if (*status != 0) return NULL;
    size_t size;
    char *text = (char *)test_read_file(path, &size);
    cJSON *json = text ? cJSON_Parse(text) : NULL;
    free(text);
    return json;
}

/* The world matrix of joint `name` in frame `frame`, into m[16]. */
static bool world(const cJSON *json, int frame, const char *name, double m[16])
{
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "frames"), frame);
    const cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItem(f, "nodes"))
    {
        const cJSON *n = cJSON_GetObjectItem(node, "name");
        if (!cJSON_IsString(n) || strcmp(n->valuestring, name) != 0) continue;
        const cJSON *w = cJSON_GetObjectItem(node, "world");
        for (int k = 0; k < 16; ++k) m[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(w, k));
        return cJSON_GetArraySize(w) == 16;
    }
    return false;
}

/* Largest difference between joint `name`'s world matrices in two bakes. */
static double joint_diff(const cJSON *a, const cJSON *b, int frame, const char *name)
{
    double ma[16], mb[16], worst = 0.0;
    if (!world(a, frame, name, ma) || !world(b, frame, name, mb)) return INFINITY;
    for (int k = 0; k < 16; ++k) worst = fmax(worst, fabs(ma[k] - mb[k]));
    return worst;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_layer SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    mkdir(work, 0777);
    static const char *const joints[] = {"root", "hips", "chest", "head", "hand_l", "thigh_r", "shin_r", "foot_r"};
    enum { JOINTS = sizeof joints / sizeof joints[0] };
    int status;
    cJSON *plain = bake("--clip walk --times 0.1,0.25,0.5,0.9", &status);
    CHECK(plain != NULL, "plain bake runs (%d)", status);

    /* IK: the foot moves by exactly the offset, the torso not at all */
    cJSON *ik = bake("--clip walk --times 0.1,0.25,0.5,0.9 --ik foot_r+=0,0.3,0", &status);
    CHECK(ik != NULL, "bake --ik runs (%d)", status);
    for (int f = 0; f < 4 && plain && ik; ++f) {
        double a[16], b[16];
        CHECK(world(plain, f, "foot_r", a) && world(ik, f, "foot_r", b), "foot_r is baked");
        CHECK(fabs(b[12] - a[12]) < 1e-5 && fabs(b[13] - a[13] - 0.3) < 1e-5 && fabs(b[14] - a[14]) < 1e-5,
              "frame %d: foot_r moved by (%g, %g, %g), not (0, 0.3, 0)", f, b[12] - a[12], b[13] - a[13],
              b[14] - a[14]);
        CHECK(joint_diff(plain, ik, f, "chest") == 0.0 && joint_diff(plain, ik, f, "foot_l") == 0.0,
              "frame %d: the chest and the other foot are untouched", f);
        CHECK(joint_diff(plain, ik, f, "thigh_r") > 1e-3, "frame %d: the thigh turned", f);
    }
    cJSON_Delete(ik);

    /* a blend of weights 1 and 0 is the clip, root motion carried included */
    cJSON *one = bake("--times 0.1,0.25,0.5,0.9 --blend walk=1,idle=0 --sync", &status);
    CHECK(one != NULL, "bake --blend runs (%d)", status);
    double worst = 0.0;
    for (int f = 0; f < 4 && plain && one; ++f)
        for (int j = 0; j < JOINTS; ++j) worst = fmax(worst, joint_diff(plain, one, f, joints[j]));
    CHECK(worst < 1e-5, "blend walk=1,idle=0 is walk: off by %g", worst);
    cJSON_Delete(one);

    /* in place: the root stays over the origin */
    cJSON *still = bake("--clip walk --times 0.1,0.25,0.5,0.9 --in-place", &status);
    CHECK(still != NULL, "bake --in-place runs (%d)", status);
    for (int f = 0; f < 4 && still; ++f) {
        double m[16];
        CHECK(world(still, f, "root", m) && fabs(m[12]) < 1e-6 && fabs(m[14]) < 1e-6,
              "frame %d: the root in place at (%g, %g)", f, m[12], m[14]);
        CHECK(joint_diff(plain, still, f, "root") > 0.05 || f == 0, "frame %d: in place differs from the walk", f);
    }
    cJSON_Delete(still);

    /* a crossfade to idle: like the walk before it, the root still after it */
    cJSON *fade = bake("--clip walk --crossfade idle,0.5,0.3 --times 0.25,1.0,1.4,2.0", &status);
    CHECK(fade != NULL, "bake --crossfade runs (%d)", status);
    if (fade && plain) {
        /* frame 0 of the fade is at 0.25 s, as is frame 1 of the plain bake */
        double worst_before = 0.0;
        for (int j = 0; j < JOINTS; ++j) {
            double a[16], b[16];
            if (!world(plain, 1, joints[j], a) || !world(fade, 0, joints[j], b)) worst_before = INFINITY;
            for (int k = 0; k < 16; ++k) worst_before = fmax(worst_before, fabs(a[k] - b[k]));
        }
        CHECK(worst_before < 1e-5, "before the fade it is the walk: off by %g", worst_before);
        double r1[16], r2[16], r3[16];
        CHECK(world(fade, 1, "root", r1) && world(fade, 2, "root", r2) && world(fade, 3, "root", r3), "root baked");
        CHECK(fabs(r1[14] - r3[14]) < 1e-6 && fabs(r2[14] - r3[14]) < 1e-6 && r3[14] > 0.7,
              "after the fade the root stays where the walk left it: z %g, %g, %g", r1[14], r2[14], r3[14]);
    }
    cJSON_Delete(fade);
    cJSON_Delete(plain);

    /* bad options */
    CHECK(!bake("--times 0 --blend walk,nope", &status) && status == 1, "unknown clip in --blend: %d", status);
    CHECK(!bake("--times 0 --ik nope", &status) && status == 1, "unknown --ik joint: %d", status);
    CHECK(!bake("--times 0 --crossfade idle,x", &status) && status == 1, "bad crossfade start: %d", status);
    CHECK(!bake("--times 0 --ik", &status) && status == 2, "--ik without a value is a usage error: %d", status);
    CHECK(!bake("--times 0 --up x", &status) && status == 2, "--up x is a usage error: %d", status);
    return check_finish("test_cli_layer");
}
