/* SPDX-License-Identifier: MIT */
/* sinew_clip_measure_error: distances on virtual vertices in model space,
 * checked against poses whose errors are known in closed form: a root
 * moved (every point of every joint moves by as much), a child turned
 * about its own origin (its axis points move by 2 d sin(a / 2), its origin
 * not at all), a root turned (the child's points move by their distance
 * from the root: the error goes down the hierarchy); the 99th percentile;
 * the refusals; keys far apart in time, measured by their keys. */
#include <sinew/sinew_asset.h>

#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* A one-track clip on the two-joint skeleton: joint `joint`'s `target`. */
static sinew_clip *one_track(int joint, sinew_track_target target, const float *value, const sinew_skeleton *sk)
{
    static const float times[2] = {0.0f, 1.0f};
    float values[8];
    int width = target == SINEW_TARGET_ROTATION ? 4 : 3;
    for (int k = 0; k < 2; ++k)
        for (int c = 0; c < width; ++c) values[k * width + c] = value[c];
    sinew_track t = {.joint = joint, .target = target, .interpolation = SINEW_INTERP_LINEAR, .key_count = 2,
                     .times = times, .values = values};
    sinew_clip_desc d = {.name = "one", .joint_count = 2, .duration = 1.0f, .track_count = 1, .tracks = &t,
                         .skeleton = sk};
    return sinew_clip_create(&d, NULL, NULL);
}

/* A clip of joint 0's translation along x at `count` keys `times` (from 0
 * to 1 and back: u) plus `offset`; `tangent` above 0 makes it a
 * CUBICSPLINE whose tangents are that (times the time between keys: past
 * a float's range where both are large). */
static sinew_clip *far_clip(const char *name, const float *times, int count, float duration, float offset,
                            float tangent)
{
    float *values = calloc((size_t)count * 9, sizeof *values);
    for (int k = 0; values && k < count; ++k) {
        float *v = tangent > 0.0f ? &values[9 * k + 3] : &values[3 * k];
        v[0] = (float)(k % 2) + offset;
        if (tangent > 0.0f) values[9 * k] = tangent, values[9 * k + 6] = tangent;
    }
    sinew_track t = {.joint = 0, .target = SINEW_TARGET_TRANSLATION,
                     .interpolation = tangent > 0.0f ? SINEW_INTERP_CUBICSPLINE : SINEW_INTERP_LINEAR,
                     .key_count = count, .times = times, .values = values};
    sinew_clip_desc d = {.name = name, .joint_count = 2, .duration = duration, .track_count = 1, .tracks = &t};
    sinew_clip *clip = values ? sinew_clip_create(&d, NULL, NULL) : NULL;
    free(values);
    return clip;
}

/* Keys far apart in time: the measure compares poses at the keys and the
 * quarters between them (report.poses within a multiple of the keys, not
 * ten million for a clip of 1e20 s), finds the error there, and refuses
 * poses past a float's range with a sentence. */
static void test_far_keys(const sinew_skeleton *sk)
{
    enum { MANY = 1000 };
    static float many[MANY];
    for (int k = 0; k < MANY; ++k) many[k] = 3e35f * (float)k;
    const struct {
        const char *name;
        float times[2];
        const float *table;
        int keys;
        float duration;
        int poses; /* the keys, 3 between each two, 0 before and the end after them */
    } cases[] = {
        {"1e20", {0.0f, 1e20f}, NULL, 2, 0.0f, 2 + 3},
        {"3e38", {0.0f, 3e38f}, NULL, 2, 0.0f, 2 + 3},
        {"1e20 after the keys", {0.0f, 1.0f}, NULL, 2, 1e20f, 2 + 3 + 1},
        {"from 1 to the largest float", {1.0f, FLT_MAX}, NULL, 2, 0.0f, 1 + 2 + 3},
        {"many", {0}, many, MANY, 0.0f, MANY + 3 * (MANY - 1)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const float *times = cases[i].table ? cases[i].table : cases[i].times;
        sinew_clip *a = far_clip(cases[i].name, times, cases[i].keys, cases[i].duration, 0.0f, 0.0f);
        sinew_clip *b = far_clip(cases[i].name, times, cases[i].keys, cases[i].duration, 0.01f, 0.0f);
        CHECK(a && b, "%s: the clips", cases[i].name);
        if (!a || !b) {
            sinew_clip_free(a), sinew_clip_free(b);
            continue;
        }
        sinew_clip_error_report r = {0};
        sinew_error err;
        CHECK(sinew_clip_measure_error(a, a, sk, 0.03f, 0, &r, &err) == SINEW_OK && r.largest == 0.0f &&
                  r.poses == cases[i].poses,
              "%s: against itself, 0 over %d poses (%d): %s", cases[i].name, cases[i].poses, r.poses,
              err.description);
        CHECK(sinew_clip_measure_error(a, b, sk, 0.03f, 240.0f, &r, &err) == SINEW_OK && r.poses == cases[i].poses,
              "%s: at 240 a second too, %d poses (%d)", cases[i].name, cases[i].poses, r.poses);
        CHECK_NEAR(r.largest, 0.01f, 1e-6f, "moved 0.01 everywhere");
        sinew_clip_free(a), sinew_clip_free(b);
    }
    /* a clip of few keys over a short time keeps its samples at the rate */
    static const float second[2] = {0.0f, 1.0f};
    sinew_clip *short_clip = far_clip("short", second, 2, 60.0f, 0.0f, 0.0f);
    sinew_clip_error_report r = {0};
    CHECK(short_clip && sinew_clip_measure_error(short_clip, short_clip, sk, 0.03f, 0, &r, NULL) == SINEW_OK &&
              r.poses == 2 + 3601,
          "2 keys over 60 s: the keys and 3,601 samples (%d)", r.poses);
    sinew_clip_free(short_clip);
    /* a spline's tangents times 1e20 s between its keys */
    sinew_clip *wild = far_clip("wild", cases[0].times, 2, 0.0f, 0.0f, 1e30f);
    sinew_error err;
    CHECK(wild && sinew_clip_measure_error(wild, wild, sk, 0.03f, 0, &r, &err) == SINEW_ERROR_NOT_FINITE,
          "poses past a float's range refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "sinew_clip_measure_error: clip \"wild\": joint 0's pose at ");
    sinew_clip_free(wild);
    /* two clips 3e38 apart: a distance no float holds */
    static const float ends[2] = {0.0f, 1.0f};
    sinew_clip *low = far_clip("low", ends, 2, 0.0f, -3e38f, 0.0f), *high = far_clip("high", ends, 2, 0.0f, 3e38f, 0.0f);
    CHECK(low && high && sinew_clip_measure_error(low, high, sk, 0.03f, 0, &r, &err) == SINEW_ERROR_NOT_FINITE,
          "a distance past a float's range refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "sinew_clip_measure_error: clip \"high\": joint 0 at 0 s lies further "
                                             "from clip \"low\" than a float holds");
    sinew_clip_free(low), sinew_clip_free(high);
}

int main(void)
{
    /* a root at the origin, a child one unit along x */
    const sinew_transform rest[2] = {{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}, {{1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){2, (const int[]){-1, 0}, NULL, rest}, NULL,
                                               NULL, NULL);
    CHECK(sk != NULL, "a skeleton");
    if (!sk) return check_finish("test_clip_error");
    const float zero[3] = {0, 0, 0}, moved[3] = {0.01f, 0, 0}, a = 0.02f;
    const float turned[4] = {0, 0, sinf(a / 2), cosf(a / 2)};
    const float d = 0.03f;
    sinew_clip *still = one_track(0, SINEW_TARGET_TRANSLATION, zero, sk);
    sinew_clip *shifted = one_track(0, SINEW_TARGET_TRANSLATION, moved, sk);
    sinew_clip *child = one_track(1, SINEW_TARGET_ROTATION, turned, sk);
    sinew_clip *root = one_track(0, SINEW_TARGET_ROTATION, turned, sk);
    CHECK(still && shifted && child && root, "the clips");
    sinew_clip_error_report r;
    sinew_error err;
    CHECK(sinew_clip_measure_error(still, still, sk, d, 0, &r, &err) == SINEW_OK && r.largest == 0.0f &&
              r.percentile_99 == 0.0f && r.poses == 2 + 61,
          "a clip against itself: 0 over its 2 keys and 61 samples (%d poses)", r.poses);
    CHECK(sinew_clip_measure_error(still, shifted, sk, d, 0, &r, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(r.largest, 0.01f, 1e-7f, "a root moved 0.01: every point moves 0.01");
    CHECK_NEAR(r.percentile_99, 0.01f, 1e-6f, "and so do 99 in 100");
    CHECK(sinew_clip_measure_error(still, child, sk, d, 0, &r, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(r.largest, 2 * d * sinf(a / 2), 1e-7f, "a child turned: its axis points move 2 d sin(a / 2)");
    CHECK(r.worst_joint == 1, "at the child");
    /* half the errors (the root's) are 0: the 99th percentile is the child's */
    CHECK_NEAR(r.percentile_99, 2 * d * sinf(a / 2), 1e-6f, "99 in 100 within the child's error");
    CHECK(sinew_clip_measure_error(still, root, sk, d, 0, &r, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(r.largest, 2 * (1 + d) * sinf(a / 2), 2e-7f, "a root turned: the child's far point moves most");
    CHECK(r.worst_joint == 1, "down the hierarchy, at the child");
    /* refusals */
    CHECK(sinew_clip_measure_error(still, root, sk, 0.0f, 0, &r, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "a shell distance of 0 refused");
    CHECK(sinew_clip_measure_error(still, root, sk, d, -1.0f, &r, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "a negative rate refused");
    CHECK(sinew_clip_measure_error(NULL, root, sk, d, 0, &r, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "no clip refused");
    /* a clip of another skeleton */
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "the built-in character: %s", err.description);
    if (demo) {
        CHECK(sinew_clip_measure_error(demo->clips[0], still, demo->skeleton, d, 0, &r, &err) ==
                  SINEW_ERROR_SIZE_MISMATCH,
              "clips of other joint counts refused");
    }
    sinew_asset_free(demo);
    sinew_clip_free(still), sinew_clip_free(shifted), sinew_clip_free(child), sinew_clip_free(root);
    test_far_keys(sk);
    sinew_skeleton_free(sk);
    return check_finish("test_clip_error");
}
