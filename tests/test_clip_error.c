/* SPDX-License-Identifier: MIT */
/* sinew_clip_measure_error: distances on virtual vertices in model space,
 * checked against poses whose errors are known in closed form: a root
 * moved (every point of every joint moves by as much), a child turned
 * about its own origin (its axis points move by 2 d sin(a / 2), its origin
 * not at all), a root turned (the child's points move by their distance
 * from the root: the error goes down the hierarchy); the 99th percentile;
 * the refusals. */
#include <sinew/sinew_asset.h>

#include "check.h"

#include <math.h>

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
    sinew_skeleton_free(sk);
    return check_finish("test_clip_error");
}
