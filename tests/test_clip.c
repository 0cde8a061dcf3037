/* SPDX-License-Identifier: MIT */
/* Clips: STEP, LINEAR, CUBICSPLINE against values worked out by hand, exact
 * keys, wrap modes, cursor playback against random access, validation. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"
#include "pose_check.h"

#include <stdlib.h>

static sinew_skeleton *chain(int n)
{
    int parents[8];
    for (int i = 0; i < n; ++i) parents[i] = i - 1;
    sinew_transform rest[8];
    for (int i = 0; i < n; ++i) {
        rest[i] = sinew_transform_identity();
        rest[i].translation = sinew_vec3_make(0.5f, (float)i, -1.0f);
        rest[i].scale = sinew_vec3_make(2.0f, 2.0f, 2.0f);
    }
    sinew_skeleton_desc d = {n, parents, NULL, rest};
    return sinew_skeleton_create(&d, NULL, NULL, NULL);
}

static void sample1(const sinew_track *tr, float t, unsigned flags, float out[4])
{
    sinew_track_sample(tr, t, flags, NULL, out);
}

static void test_step_and_linear(void)
{
    static const float times[] = {0.0f, 1.0f, 3.0f};
    static const float values[] = {0, 0, 0, 2, 4, 6, 10, 10, 10};
    sinew_track step = {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_STEP, 3, times, values, 0};
    sinew_track lin = {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 3, times, values, 0};
    float v[4];
    sample1(&step, 0.5f, 0, v);
    CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0, "STEP holds key 0 until key 1");
    sample1(&step, 2.9f, 0, v);
    CHECK(v[0] == 2 && v[1] == 4 && v[2] == 6, "STEP holds key 1 until key 2");
    sample1(&step, -1.0f, 0, v);
    CHECK(v[0] == 0, "STEP before the first key gives the first");
    sample1(&step, 7.0f, 0, v);
    CHECK(v[0] == 10, "STEP after the last key gives the last");
    sample1(&lin, 0.5f, 0, v);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3, "LINEAR halfway between keys 0 and 1: (%g %g %g)", (double)v[0],
          (double)v[1], (double)v[2]);
    sample1(&lin, 2.0f, 0, v);
    CHECK(v[0] == 6 && v[1] == 7 && v[2] == 8, "LINEAR halfway between keys 1 and 2 (non-uniform spacing)");
    sample1(&lin, 1.5f, 0, v);
    CHECK_NEAR(v[0], 4.0f, 1e-6f, "LINEAR a quarter into the long interval");

    /* rotations: slerp by default, nlerp on request */
    static const float rtimes[] = {0.0f, 1.0f};
    float rvalues[8] = {0, 0, 0, 1};
    float h = sqrtf(0.5f);
    rvalues[6] = h, rvalues[7] = h; /* 90 degrees about z */
    sinew_track rot = {0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 2, rtimes, rvalues, 0};
    sample1(&rot, 0.25f, 0, v);
    CHECK_NEAR(v[2], sinf(22.5f * 3.14159265f / 360.0f), 1e-6f, "slerp a quarter of 90 degrees: z");
    CHECK_NEAR(v[3], cosf(22.5f * 3.14159265f / 360.0f), 1e-6f, "slerp a quarter of 90 degrees: w");
    float n[4];
    sample1(&rot, 0.25f, SINEW_SAMPLE_NLERP, n);
    CHECK(fabsf(n[2] - v[2]) > 1e-4f, "nlerp differs from slerp off the midpoint");
    CHECK_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] + n[3] * n[3], 1.0f, 1e-6f, "nlerp is unit");
}

static void test_cubicspline(void)
{
    /* translation keys at 0 and 2 s; per key: in-tangent, value, out-tangent.
     * x: v0 = 0, b0 = 1, v1 = 1, a1 = 0;  y: v0 = 2, b0 = 0, v1 = 4, a1 = 3.
     * Hermite with tangents times the interval (2 s):
     *   t = 1:   s = 0.5,  h = (0.5, 0.25, 0.5, -0.25):
     *            x = 0.25 + 0.5 = 0.75;  y = 1 + 2 - 0.75 = 2.25
     *   t = 0.5: s = 0.25, h = (0.84375, 0.28125, 0.15625, -0.09375):
     *            x = 0.4375;  y = 1.6875 + 0.625 - 0.28125 = 2.03125 */
    static const float times[] = {0.0f, 2.0f};
    static const float values[] = {
        9, 9, 9, /* in-tangent of key 0: unused */
        0, 2, 0, /* value 0 */
        1, 0, 0, /* out-tangent 0 */
        0, 3, 0, /* in-tangent 1 */
        1, 4, 0, /* value 1 */
        9, 9, 9, /* out-tangent of the last key: unused */
    };
    sinew_track tr = {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_CUBICSPLINE, 2, times, values, 0};
    float v[4];
    sample1(&tr, 1.0f, 0, v);
    CHECK_NEAR(v[0], 0.75f, 1e-6f, "cubic x at t=1 (tangents scaled by the 2 s interval)");
    CHECK_NEAR(v[1], 2.25f, 1e-6f, "cubic y at t=1");
    sample1(&tr, 0.5f, 0, v);
    CHECK_NEAR(v[0], 0.4375f, 1e-6f, "cubic x at t=0.5");
    CHECK_NEAR(v[1], 2.03125f, 1e-6f, "cubic y at t=0.5");
    sample1(&tr, 2.0f, 0, v);
    CHECK(v[0] == 1 && v[1] == 4 && v[2] == 0, "cubic at the last key is its value, not a tangent");
    sample1(&tr, -3.0f, 0, v);
    CHECK(v[0] == 0 && v[1] == 2, "cubic before the first key is the first value");

    /* rotations are normalized after the spline: identity to 90 degrees
     * about z, zero tangents, halfway = 45 degrees about z */
    float h = sqrtf(0.5f);
    static float rv[24];
    memset(rv, 0, sizeof rv);
    rv[4 + 3] = 1.0f;              /* value 0: identity */
    rv[16 + 2] = h, rv[16 + 3] = h; /* value 1 */
    sinew_track rot = {0, SINEW_TARGET_ROTATION, SINEW_INTERP_CUBICSPLINE, 2, times, rv, 0};
    sample1(&rot, 1.0f, 0, v);
    CHECK_NEAR(v[2], sinf(3.14159265f / 8.0f), 1e-6f, "cubic rotation halfway, normalized: z");
    CHECK_NEAR(v[3], cosf(3.14159265f / 8.0f), 1e-6f, "cubic rotation halfway, normalized: w");
}

static void test_exact_keys(void)
{
    unsigned s = 3;
    enum { K = 9 };
    float times[K], values[K * 12];
    float t = 0.0f;
    for (int k = 0; k < K; ++k) {
        t += 0.05f + check_rand(&s);
        times[k] = t;
    }
    for (int i = 0; i < K * 12; ++i) values[i] = check_rand(&s) * 10.0f - 5.0f;
    for (int interp = 0; interp < 3; ++interp) {
        for (int target = 0; target < 3; ++target) {
            sinew_track tr = {0, (sinew_track_target)target, (sinew_interpolation)interp, K, times, values, 0};
            sinew_clip_desc d = {.name = "keys", .joint_count = 1, .duration = 0.0f, .track_count = 1, .tracks = &tr};
            sinew_clip *clip = sinew_clip_create(&d, NULL, NULL);
            CHECK(clip != NULL, "clip created");
            if (!clip) continue;
            const sinew_track *ct = &clip->tracks[0]; /* rotation keys normalized */
            int c = target == SINEW_TARGET_ROTATION ? 4 : 3;
            int stride = interp == SINEW_INTERP_CUBICSPLINE ? 3 * c : c;
            int at = interp == SINEW_INTERP_CUBICSPLINE ? c : 0;
            int32_t hint = 0;
            for (int k = 0; k < K; ++k) {
                float v[4];
                sinew_track_sample(ct, times[k], 0, &hint, v);
                const float *key = &ct->values[k * stride + at];
                bool same = memcmp(v, key, sizeof(float) * (size_t)c) == 0;
                CHECK(same, "interp %d target %d: sampling at key %d returns the key's value", interp, target, k);
            }
            sinew_clip_free(clip);
        }
    }
}

static void test_clip_sampling(void)
{
    sinew_skeleton *sk = chain(3);
    if (!sk) return;
    static const float times[] = {0.0f, 2.0f};
    static const float tv[] = {0, 0, 0, 4, 0, 0};
    float h = sqrtf(0.5f);
    float rv[] = {0, 0, 0, 1, h, 0, 0, h};
    sinew_track tracks[] = {{1, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 2, times, tv, 0},
                            {2, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 2, times, rv, 0}};
    sinew_clip_desc d = {.name = "c", .joint_count = 3, .duration = 0.0f, .track_count = 2, .tracks = tracks};
    sinew_error err;
    sinew_clip *clip = sinew_clip_create(&d, NULL, &err);
    CHECK(clip != NULL, "created: %s", err.description);
    if (!clip) return;
    CHECK(clip->duration == 2.0f, "duration is the last key");
    sinew_transform out[3];
    CHECK(sinew_clip_sample(clip, sk, 1.0f, 0, NULL, out, 3, &err) == SINEW_OK, "sample");
    CHECK(memcmp(&out[0], &sk->rest_pose[0], sizeof out[0]) == 0, "joint without tracks keeps its rest pose");
    CHECK(out[1].translation.x == 2.0f, "animated translation");
    CHECK(memcmp(&out[1].rotation, &sk->rest_pose[1].rotation, sizeof(sinew_quat)) == 0 &&
              out[1].scale.x == 2.0f,
          "rotation and scale without tracks keep the rest values");
    CHECK(memcmp(&out[2].translation, &sk->rest_pose[2].translation, sizeof(sinew_vec3)) == 0,
          "translation of a rotation-only joint keeps the rest value");
    /* wrap modes */
    sinew_transform a[3], b[3];
    sinew_clip_sample(clip, sk, 0.5f, SINEW_SAMPLE_LOOP, NULL, a, 3, NULL);
    sinew_clip_sample(clip, sk, 2.5f, SINEW_SAMPLE_LOOP, NULL, b, 3, NULL);
    CHECK(memcmp(a, b, sizeof a) == 0, "loop: t + duration = t");
    sinew_clip_sample(clip, sk, -0.5f, SINEW_SAMPLE_LOOP, NULL, b, 3, NULL);
    CHECK_NEAR(b[1].translation.x, 3.0f, 1e-6f, "loop: negative time wraps from the end");
    sinew_clip_sample(clip, sk, 4.0f, SINEW_SAMPLE_LOOP, NULL, b, 3, NULL);
    CHECK(b[1].translation.x == 0.0f, "loop: t = 2 duration is the start");
    sinew_clip_sample(clip, sk, 9.0f, SINEW_SAMPLE_CLAMP, NULL, b, 3, NULL);
    CHECK(b[1].translation.x == 4.0f, "clamp past the end holds the last key");
    sinew_clip_sample(clip, sk, -9.0f, SINEW_SAMPLE_CLAMP, NULL, b, 3, NULL);
    CHECK(b[1].translation.x == 0.0f, "clamp before the start holds the first key");
    /* argument errors */
    CHECK(sinew_clip_sample(clip, sk, 1.0f, 0, NULL, out, 2, &err) == SINEW_ERROR_SIZE_MISMATCH, "short output");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "output holds 2");
    int32_t keys[1];
    sinew_cursor small = {keys, 1};
    CHECK(sinew_clip_sample(clip, sk, 1.0f, 0, &small, out, 3, &err) == SINEW_ERROR_BUFFER_TOO_SMALL,
          "cursor too small");
    CHECK(sinew_clip_sample(clip, sk, NAN, 0, NULL, out, 3, &err) == SINEW_ERROR_INVALID_ARGUMENT, "NaN time");
    sinew_skeleton *other = chain(4);
    CHECK(sinew_clip_sample(clip, other, 1.0f, 0, NULL, out, 3, &err) == SINEW_ERROR_SIZE_MISMATCH,
          "clip for another skeleton size");
    sinew_skeleton_free(other);
    /* a clip without tracks plays the rest pose */
    sinew_clip_desc empty = {.name = "empty", .joint_count = 3, .duration = 0.0f, .track_count = 0, .tracks = NULL};
    sinew_clip *e = sinew_clip_create(&empty, NULL, &err);
    CHECK(e && e->duration == 0.0f, "empty clip allowed");
    if (e) {
        CHECK(sinew_clip_sample(e, sk, 5.0f, SINEW_SAMPLE_LOOP, NULL, out, 3, &err) == SINEW_OK, "empty clip samples");
        CHECK(memcmp(out, sk->rest_pose, sizeof out) == 0, "empty clip gives the rest pose");
    }
    sinew_clip_free(e);
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
}

/* Cursor playback must equal random access (binary search) bit for bit, at
 * every step, forward, backward, across loop wraps and after jumps. */
static void compare_cursor(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    int n = sk->joint_count;
    int32_t *keys = calloc((size_t)clip->track_count + 1, sizeof *keys);
    sinew_transform *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    if (!keys || !a || !b) return;
    sinew_cursor cursor = {keys, clip->track_count};
    unsigned s = 11;
    int mismatches = 0, steps = 0;
    float t = 0.0f;
    for (int phase = 0; phase < 4; ++phase) {
        for (int i = 0; i < 400; ++i, ++steps) {
            switch (phase) {
            case 0: t += 1.0f / 60.0f; break;              /* forward, wrapping */
            case 1: t -= 1.0f / 30.0f; break;              /* backward */
            case 2: t = check_rand(&s) * 3.0f * clip->duration - clip->duration; break; /* seeks */
            default: t += check_rand(&s) * 0.2f; break;    /* uneven steps */
            }
            for (int mode = 0; mode < 2; ++mode) {
                unsigned flags = mode ? SINEW_SAMPLE_LOOP : SINEW_SAMPLE_CLAMP;
                sinew_clip_sample(clip, sk, t, flags, &cursor, a, n, NULL);
                sinew_clip_sample(clip, sk, t, flags, NULL, b, n, NULL);
                if (memcmp(a, b, sizeof *a * (size_t)n) != 0) ++mismatches;
            }
        }
    }
    CHECK(mismatches == 0, "%s: cursor playback differs from random access in %d of %d samples", what, mismatches,
          2 * steps);
    free(keys), free(a), free(b);
}

static void test_cursor(void)
{
    sinew_asset *asset = sinew_demo_create(NULL, NULL);
    CHECK(asset != NULL, "demo");
    if (!asset) return;
    for (int i = 0; i < asset->clip_count; ++i) compare_cursor(asset->clips[i], asset->skeleton, asset->clips[i]->name);

    /* many keys at uneven times, all three interpolations */
    enum { K = 500 };
    static float times[K], values[K * 12];
    unsigned s = 5;
    float t = 0.0f;
    for (int k = 0; k < K; ++k) {
        times[k] = t;
        t += 0.001f + 0.02f * check_rand(&s);
    }
    for (int i = 0; i < K * 12; ++i) values[i] = check_rand(&s);
    sinew_track tracks[3] = {{1, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, K, times, values, 0},
                             {2, SINEW_TARGET_ROTATION, SINEW_INTERP_CUBICSPLINE, K, times, values, 0},
                             {3, SINEW_TARGET_SCALE, SINEW_INTERP_STEP, K / 2, times, values, 0}};
    sinew_skeleton *sk = chain(5);
    sinew_clip_desc d = {.name = "dense", .joint_count = 5, .duration = 0.0f, .track_count = 3, .tracks = tracks};
    sinew_clip *clip = sinew_clip_create(&d, NULL, NULL);
    CHECK(clip != NULL && sk != NULL, "dense clip");
    if (clip && sk) compare_cursor(clip, sk, "dense");
    /* a hint left from another clip, or garbage, changes nothing */
    if (clip && sk) {
        int32_t junk[3] = {-7, 100000, 42};
        sinew_cursor c = {junk, 3};
        sinew_transform a[5], b[5];
        sinew_clip_sample(clip, sk, 1.234f, 0, &c, a, 5, NULL);
        sinew_clip_sample(clip, sk, 1.234f, 0, NULL, b, 5, NULL);
        CHECK(memcmp(a, b, sizeof a) == 0, "wrong hints cost a search, not a wrong result");
    }
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
    sinew_asset_free(asset);
}

static void test_validation(void)
{
    sinew_error err;
    float times[] = {0.0f, 0.5f, 0.5f};
    float values[36] = {0};
    for (int k = 0; k < 3; ++k) values[k * 4 + 3] = 1.0f;
    sinew_track tr = {1, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 3, times, values, 0};
    sinew_clip_desc d = {.name = "bad", .joint_count = 2, .duration = 0.0f, .track_count = 1, .tracks = &tr};
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "equal key times refused");
    CHECK_ERROR(err, SINEW_ERROR_KEYS_NOT_INCREASING, "track 0 (joint 1, translation): key 2 time 0.5 is not after key 1");
    CHECK(strncmp(err.description, "sinew_clip_create: ", 19) == 0, "the caller named: %s", err.description);
    times[2] = 1.0f;
    times[0] = -0.1f;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "negative time refused");
    CHECK_ERROR(err, SINEW_ERROR_KEYS_NOT_INCREASING, "negative");
    times[0] = 0.0f;
    values[7] = NAN;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "NaN value refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "key 2 value");
    values[7] = 0.0f;
    tr.interpolation = SINEW_INTERP_CUBICSPLINE;
    values[9 * 2] = INFINITY; /* key 2's in-tangent */
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "infinite tangent refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "key 2 in-tangent");
    values[18] = 0.0f;
    tr.interpolation = SINEW_INTERP_LINEAR;
    times[1] = NAN;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "NaN time refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "key 1 time");
    times[1] = 0.5f;
    tr.joint = 2;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "joint out of range refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "joint 2 is out of range (2 joints)");
    tr.joint = 1;
    sinew_track two[2] = {tr, tr};
    sinew_clip_desc dd = {.name = "dup", .joint_count = 2, .duration = 0.0f, .track_count = 2, .tracks = two};
    CHECK(sinew_clip_create(&dd, NULL, &err) == NULL, "duplicate track refused");
    CHECK_ERROR(err, SINEW_ERROR_DUPLICATE_TRACK, "track 1 animates joint 1 translation");
    static const float identity[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    two[1].target = SINEW_TARGET_ROTATION;
    two[1].values = identity;
    sinew_clip *ok = sinew_clip_create(&dd, NULL, &err);
    CHECK(ok != NULL, "translation and rotation of one joint are two tracks: %s", err.description);
    sinew_clip_free(ok);
    tr.target = SINEW_TARGET_ROTATION;
    values[4 + 3] = 0.0f; /* key 1 = (0,0,0,0) */
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "zero quaternion refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_ROTATION, "key 1 is the zero quaternion");
    values[4 + 3] = 3.0f; /* not unit: normalized and reported */
    check_log log = {0};
    sinew_options opt = {.logger = {check_log_fn, &log}};
    sinew_clip *c = sinew_clip_create(&d, &opt, &err);
    CHECK(c != NULL, "non-unit rotation key accepted");
    if (c) CHECK(c->tracks[0].values[7] == 1.0f, "rotation key normalized in the clip");
    CHECK(values[7] == 3.0f, "the caller's data is not modified");
    CHECK(strstr(log.last, "1 rotation key(s) were not unit length") != NULL, "normalization reported: %s", log.last);
    sinew_clip_free(c);
    d.duration = 0.5f;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "duration shorter than the keys refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "shorter than the last key");
    d.duration = 5.0f;
    c = sinew_clip_create(&d, NULL, &err);
    CHECK(c && c->duration == 5.0f, "a longer duration is kept");
    sinew_clip_free(c);
    tr.key_count = 0;
    d.duration = 0.0f;
    CHECK(sinew_clip_create(&d, NULL, &err) == NULL, "track without keys refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "no keys");
}

/* Weights tracks (morph targets): sampled per component, only by
 * sinew_clip_sample_weights, checked for width. */
static void test_weights(void)
{
    float times[3] = {0.0f, 1.0f, 2.0f};
    float lin[9] = {0, 0, 0, 1, 0.5f, -1, 0, 1, 0};
    /* cubic, width 2: per key in-tangent (2), value (2), out-tangent (2) */
    float cub[12] = {0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0};
    sinew_track tracks[2] = {{1, SINEW_TARGET_WEIGHTS, SINEW_INTERP_LINEAR, 3, times, lin, 3},
                             {2, SINEW_TARGET_WEIGHTS, SINEW_INTERP_CUBICSPLINE, 2, times, cub, 2}};
    sinew_clip_desc d = {.name = "faces", .joint_count = 3, .duration = 0.0f, .track_count = 2, .tracks = tracks};
    sinew_error err;
    sinew_clip *clip = sinew_clip_create(&d, NULL, &err);
    CHECK(clip != NULL, "weights clip: %s", err.description);
    if (!clip) return;
    CHECK(sinew_track_components(&clip->tracks[0]) == 3, "a weights track has its width of components");
    float w[3] = {9, 9, 9};
    CHECK(sinew_clip_sample_weights(clip, 0.5f, 0, NULL, 1, w, 3, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(w[0], 0.5f, 1e-6f, "linear weight 0 halfway");
    CHECK_NEAR(w[1], 0.25f, 1e-6f, "linear weight 1 halfway");
    CHECK_NEAR(w[2], -0.5f, 1e-6f, "linear weight 2 halfway");
    /* cubic, s = 0.5, interval 1: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125 */
    float c[2] = {9, 9};
    CHECK(sinew_clip_sample_weights(clip, 0.5f, 0, NULL, 2, c, 2, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(c[0], 0.5f * 0 + 0.125f * 2 + 0.5f * 1 - 0.125f * 0, 1e-6f, "cubic weight 0");
    CHECK_NEAR(c[1], 0.5f * 1 + 0.5f * 0, 1e-6f, "cubic weight 1");
    /* a joint without a weights track leaves the defaults */
    float keep[3] = {0.25f, 0.5f, 0.75f};
    CHECK(sinew_clip_sample_weights(clip, 0.5f, 0, NULL, 0, keep, 3, &err) == SINEW_OK && keep[1] == 0.5f,
          "no track: weights kept");
    CHECK(sinew_clip_sample_weights(clip, 0.5f, 0, NULL, 1, w, 2, &err) == SINEW_ERROR_SIZE_MISMATCH,
          "width 3 into 2 floats");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "3 weights of joint 1");
    CHECK(sinew_clip_sample_weights(clip, 0.5f, 0, NULL, 3, w, 3, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "joint out of range");
    /* looping wraps the weights too: 2.5 in a 2 s clip is 0.5 */
    CHECK(sinew_clip_sample_weights(clip, 2.5f, SINEW_SAMPLE_LOOP, NULL, 1, w, 3, &err) == SINEW_OK &&
              fabsf(w[0] - 0.5f) < 1e-6f, "looped weights");
    CHECK(sinew_clip_time(clip, 2.5f, SINEW_SAMPLE_LOOP) == 0.5f && sinew_clip_time(clip, 2.5f, 0) == 2.0f &&
              sinew_clip_time(clip, -1.0f, 0) == 0.0f, "clip time wraps or clamps");
    /* the transform sampler leaves weights tracks alone */
    sinew_skeleton_desc sd = {3, (int[]){-1, 0, 1}, NULL, NULL};
    sinew_skeleton *sk = sinew_skeleton_create(&sd, NULL, NULL, &err);
    sinew_transform pose[3];
    CHECK(sk && sinew_clip_sample(clip, sk, 0.5f, 0, NULL, pose, 3, &err) == SINEW_OK &&
              pose[1].translation.x == 0.0f && pose[1].scale.x == 1.0f, "transforms keep the rest pose");
    sinew_skeleton_free(sk);
    sinew_clip_free(clip);
    /* validation: width out of range, one weights track per joint */
    tracks[0].width = 0;
    CHECK(!sinew_clip_create(&d, NULL, &err), "width 0 is refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "width 0");
    tracks[0].width = 3;
    tracks[1].joint = 1;
    CHECK(!sinew_clip_create(&d, NULL, &err), "two weights tracks on one joint");
    CHECK_ERROR(err, SINEW_ERROR_DUPLICATE_TRACK, "weights");
}

/* Retargeting by name: matched tracks move to the new joints, the rest is
 * reported both ways, values untouched. */
static void test_retarget(void)
{
    const char *from_names[3] = {"root", "arm", "camera"}, *to_names[4] = {"root", "spine", "arm", "tail"};
    sinew_skeleton_desc fd = {3, (int[]){-1, 0, -1}, from_names, NULL};
    sinew_skeleton_desc td = {4, (int[]){-1, 0, 1, 0}, to_names, NULL};
    sinew_error err;
    sinew_skeleton *from = sinew_skeleton_create(&fd, NULL, NULL, &err), *to = sinew_skeleton_create(&td, NULL, NULL, &err);
    float times[2] = {0, 1}, tv[6] = {0, 0, 0, 1, 2, 3}, rv[8] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f};
    sinew_track tracks[3] = {{0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 2, times, tv, 0},
                             {1, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 2, times, rv, 0},
                             {2, SINEW_TARGET_TRANSLATION, SINEW_INTERP_STEP, 2, times, tv, 0}};
    sinew_clip_desc cd = {.name = "wave", .joint_count = 3, .duration = 2.0f, .track_count = 3, .tracks = tracks};
    sinew_clip *clip = sinew_clip_create(&cd, NULL, &err);
    check_log log = {0};
    sinew_options o = {.logger = {check_log_fn, &log}};
    sinew_retarget_report rep;
    sinew_clip *moved = sinew_clip_retarget(clip, from, to, &o, &rep, &err);
    CHECK(moved != NULL, "retarget: %s", err.description);
    if (moved) {
        CHECK(moved->joint_count == 4 && moved->track_count == 2 && moved->duration == 2.0f, "two tracks, same length");
        CHECK(moved->tracks[1].joint == 2 && moved->tracks[1].values[7] == 0.8f, "arm's track on the new arm");
        CHECK(rep.matched_tracks == 2 && rep.dropped_tracks == 1 && rep.unanimated_joints == 2, "report counts");
        CHECK(strstr(log.all, "\"camera\"") && strstr(log.all, "\"spine\", \"tail\""),
              "both sides named in the log: %s", log.all);
    }
    CHECK(!sinew_clip_retarget(clip, to, from, NULL, NULL, &err), "the clip's own skeleton must be `from`");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "animates 3 joints");
    sinew_clip_free(moved), sinew_clip_free(clip);
    /* unnamed joints match nothing, and the log names them by index */
    const char *unnamed[3] = {"root", "", ""};
    sinew_skeleton_desc ud = {3, (int[]){-1, 0, -1}, unnamed, NULL};
    sinew_skeleton *anon = sinew_skeleton_create(&ud, NULL, NULL, &err), *anon2 = sinew_skeleton_create(&ud, NULL, NULL, &err);
    clip = sinew_clip_create(&cd, NULL, &err);
    log = (check_log){0};
    moved = sinew_clip_retarget(clip, anon, anon2, &o, &rep, &err);
    CHECK(moved && rep.matched_tracks == 1 && rep.dropped_tracks == 2 && rep.unanimated_joints == 2,
          "unnamed joints match nothing (%d matched)", moved ? rep.matched_tracks : -1);
    CHECK(strstr(log.all, "joint 1, joint 2") && !strstr(log.all, "\"\""), "unnamed joints by index: %s", log.all);
    sinew_clip_free(moved), sinew_clip_free(clip);
    sinew_skeleton_free(anon), sinew_skeleton_free(anon2);
    sinew_skeleton_free(from), sinew_skeleton_free(to);
}

/* A unit quaternion for an angle about z, as floats. */
static void about_z(double angle, float *q)
{
    q[0] = 0.0f, q[1] = 0.0f, q[2] = (float)sin(angle / 2), q[3] = (float)cos(angle / 2);
}

/* sinew_clip_optimize: which tracks become one key (within tolerance,
 * LINEAR and STEP translations, rotations, scales; not cubic, not weights),
 * the value kept (the first key, a -0 made +0), the report's counts and
 * errors against values worked out here, every sample within the tolerance
 * of the clip's own, tolerance 0 keeping only exact constants, and its
 * errors. */
static void test_optimize(void)
{
    enum { KEYS = 5 };
    float times[KEYS] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
    float near_t[3 * KEYS], far_t[3 * KEYS], zero_t[3 * KEYS], near_s[3 * KEYS], near_r[4 * KEYS], far_r[4 * KEYS];
    float cubic_s[9 * KEYS], weights[2 * KEYS];
    const double offsets[KEYS] = {0.0, 1e-4, -4e-4, 2e-4, 3e-4};
    const double angles[KEYS] = {0.0, 1e-6, -2e-6, 5e-7, 0.0};
    for (int k = 0; k < KEYS; ++k) {
        for (int c = 0; c < 3; ++c) {
            near_t[3 * k + c] = (float)(1.0 + c + (c == 0 ? offsets[k] : 0.0));
            far_t[3 * k + c] = (float)(1.0 + c + (k == 3 ? 2e-3 : 0.0));
            zero_t[3 * k + c] = c == 0 ? -0.0f : 5.0f;
            near_s[3 * k + c] = (float)(2.0 + (c == 1 ? offsets[k] / 8 : 0.0));
        }
        about_z(0.5 + angles[k], near_r + 4 * k);
        if (k == 2) /* the same rotation the other way round */
            for (int c = 0; c < 4; ++c) near_r[4 * k + c] = -near_r[4 * k + c];
        about_z(0.5 + 1e-3 * k, far_r + 4 * k);
        for (int c = 0; c < 9; ++c) cubic_s[9 * k + c] = c / 3 == 1 ? 1.0f : 0.0f; /* constant, flat tangents */
        weights[2 * k] = 0.5f, weights[2 * k + 1] = 0.25f;
    }
    sinew_track tracks[8] = {
        {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, KEYS, times, near_t, 0},
        {1, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, KEYS, times, far_t, 0},
        {2, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, KEYS, times, zero_t, 0},
        {0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, KEYS, times, near_r, 0},
        {1, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, KEYS, times, far_r, 0},
        {0, SINEW_TARGET_SCALE, SINEW_INTERP_STEP, KEYS, times, near_s, 0},
        {1, SINEW_TARGET_SCALE, SINEW_INTERP_CUBICSPLINE, KEYS, times, cubic_s, 0},
        {2, SINEW_TARGET_WEIGHTS, SINEW_INTERP_LINEAR, KEYS, times, weights, 2}};
    sinew_clip_desc d = {.name = "fidget", .joint_count = 3, .track_count = 8, .tracks = tracks};
    sinew_error err;
    sinew_clip *clip = sinew_clip_create(&d, NULL, &err);
    sinew_skeleton *sk = chain(3);
    CHECK(clip && sk, "optimize fixture: %s", err.description);
    if (!clip || !sk) goto done;
    sinew_clip_tolerance tol = {1e-3f, 1e-5f, 1e-4f};
    sinew_optimize_report rep;
    sinew_clip *o = sinew_clip_optimize(clip, &tol, sk, NULL, &rep, &err);
    CHECK(o != NULL, "optimize: %s", err.description);
    if (o) {
        const int want_keys[8] = {1, KEYS, 1, 1, KEYS, 1, KEYS, KEYS};
        for (int i = 0; i < 8; ++i)
            CHECK(o->tracks[i].key_count == want_keys[i], "track %d keeps %d keys, want %d", i, o->tracks[i].key_count,
                  want_keys[i]);
        CHECK(o->track_count == 8 && o->duration == clip->duration && strcmp(o->name, "fidget") == 0,
              "the optimized clip keeps its tracks, duration and name");
        CHECK(rep.constant_tracks == 4 && rep.removed_keys == 4 * (KEYS - 1), "report: %d tracks, %d keys",
              rep.constant_tracks, rep.removed_keys);
        CHECK(o->tracks[0].values[0] == near_t[0] && o->tracks[3].values[2] == near_r[2] &&
                  o->tracks[5].values[1] == near_s[1], "the first key is the one kept");
        CHECK(o->tracks[2].values[0] == 0.0f && !signbit(o->tracks[2].values[0]) && o->tracks[2].values[1] == 5.0f,
              "a -0 kept becomes +0");
        double want_t = 0.0, want_r = 0.0, want_s = 0.0;
        for (int k = 1; k < KEYS; ++k) {
            want_t = fmax(want_t, fabs((double)near_t[3 * k] - near_t[0]));
            sinew_quat qk = {near_r[4 * k], near_r[4 * k + 1], near_r[4 * k + 2], near_r[4 * k + 3]};
            want_r = fmax(want_r, quat_angle(qk, (sinew_quat){near_r[0], near_r[1], near_r[2], near_r[3]}));
            want_s = fmax(want_s, fabs((double)near_s[3 * k + 1] - near_s[1]));
        }
        CHECK(fabs(rep.translation_error - want_t) < 1e-7 && fabs(rep.rotation_error - want_r) < 1e-8 &&
                  fabs(rep.scale_error - want_s) < 1e-7,
              "report errors %g %g %g, want %g %g %g", rep.translation_error, rep.rotation_error, rep.scale_error,
              want_t, want_r, want_s);
        CHECK(rep.rotation_error > 1.9e-6 && rep.translation_error > 3.9e-4, "the errors are the largest: %g %g",
              rep.rotation_error, rep.translation_error);
        /* every sample within the tolerance of the clip's own */
        sinew_transform a[3], b[3];
        double worst[3] = {0, 0, 0};
        for (int i = 0; i <= 200; ++i) {
            float t = 1.1f * (float)i / 200.0f - 0.05f;
            sinew_clip_sample(clip, sk, t, 0, NULL, a, 3, NULL);
            sinew_clip_sample(o, sk, t, 0, NULL, b, 3, NULL);
            pose_diff_parts(a, b, 3, worst);
        }
        /* the rotation: the tolerance and the float rounding of the two slerps */
        CHECK(worst[0] <= tol.translation && worst[1] <= tol.rotation + 1e-6 && worst[2] <= tol.scale,
              "samples move %g, %g rad, %g", worst[0], worst[1], worst[2]);
        CHECK(worst[0] > 1e-4, "the samples did change: %g", worst[0]);
    }
    sinew_clip_free(o);
    /* tolerance 0: the exact constant alone */
    o = sinew_clip_optimize(clip, &(sinew_clip_tolerance){0, 0, 0}, NULL, NULL, &rep, &err);
    CHECK(o && rep.constant_tracks == 1 && o->tracks[2].key_count == 1 && rep.translation_error == 0.0f,
          "tolerance 0: %d constant tracks", o ? rep.constant_tracks : -1);
    sinew_clip_free(o);
    /* errors */
    CHECK(!sinew_clip_optimize(NULL, &tol, NULL, NULL, NULL, &err), "no clip");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "tolerance");
    CHECK(strncmp(err.description, "sinew_clip_optimize: ", 21) == 0, "the caller named: %s", err.description);
    CHECK(!sinew_clip_optimize(clip, NULL, NULL, NULL, NULL, &err), "no tolerance");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "tolerance");
    CHECK(!sinew_clip_optimize(clip, &(sinew_clip_tolerance){-1e-3f, 0, 0}, NULL, NULL, NULL, &err),
          "a negative tolerance");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "translation tolerance");
    CHECK(!sinew_clip_optimize(clip, &(sinew_clip_tolerance){0, NAN, 0}, NULL, NULL, NULL, &err), "a NaN tolerance");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "rotation tolerance");
    sinew_skeleton *other = chain(2);
    CHECK(!sinew_clip_optimize(clip, &tol, other, NULL, NULL, &err), "a skeleton of another joint count");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "fidget");
    sinew_skeleton_free(other);
done:
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
}

/* Tracks whose key times are equal share one copy of them (given as
 * separate arrays, -0 and 0 told apart); the times and values read back as
 * given, and the shared copy shows in sinew_clip_bytes. */
static void test_shared_times(void)
{
    static const float t0[] = {0.0f, 0.5f, 1.0f}, t1[] = {0.0f, 0.5f, 1.0f}, t2[] = {0.0f, 0.25f, 1.0f},
                       t3[] = {-0.0f, 0.5f, 1.0f}, t4[] = {0.0f, 0.5f};
    static const float v3[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, v4[] = {0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0};
    sinew_track tracks[] = {{0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 3, t0, v3, 0},
                            {0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 3, t1, v4, 0},
                            {1, SINEW_TARGET_TRANSLATION, SINEW_INTERP_STEP, 3, t2, v3, 0},
                            {1, SINEW_TARGET_SCALE, SINEW_INTERP_LINEAR, 3, t3, v3, 0},
                            {2, SINEW_TARGET_SCALE, SINEW_INTERP_LINEAR, 2, t4, v3, 0},
                            {2, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 3, t0, v3, 0}};
    int n = (int)(sizeof tracks / sizeof tracks[0]);
    sinew_error err;
    sinew_clip *clip = sinew_clip_create(&(sinew_clip_desc){.name = "shared", .joint_count = 3, .track_count = n,
                                                            .tracks = tracks},
                                         NULL, &err);
    CHECK(clip != NULL, "created: %s", err.description);
    if (!clip) return;
    const sinew_track *c = clip->tracks;
    CHECK(c[1].times == c[0].times && c[5].times == c[0].times, "equal times are shared");
    CHECK(c[2].times != c[0].times && c[3].times != c[0].times && c[4].times != c[0].times &&
              c[3].times != c[2].times,
          "other times are not (-0 apart from 0, a prefix apart from the whole)");
    for (int i = 0; i < n; ++i) {
        CHECK(memcmp(c[i].times, tracks[i].times, sizeof(float) * (size_t)tracks[i].key_count) == 0,
              "track %d: times as given", i);
        size_t floats = (size_t)tracks[i].key_count * (size_t)sinew_track_components(&tracks[i]);
        CHECK(memcmp(c[i].values, tracks[i].values, sizeof(float) * floats) == 0, "track %d: values as given", i);
    }
    /* the same tracks with times of their own each: two more copies of three times */
    static const float u1[] = {0.0f, 0.5f, 1.001f}, u5[] = {0.0f, 0.5f, 1.002f};
    tracks[1].times = u1, tracks[5].times = u5;
    sinew_clip *apart = sinew_clip_create(&(sinew_clip_desc){.name = "shared", .joint_count = 3, .track_count = n,
                                                             .tracks = tracks},
                                          NULL, &err);
    CHECK(apart != NULL, "created: %s", err.description);
    if (apart)
        CHECK(sinew_clip_bytes(apart) >= sinew_clip_bytes(clip) + 2 * 3 * sizeof(float),
              "bytes: %zu with shared times, %zu without", sinew_clip_bytes(clip), sinew_clip_bytes(apart));
    sinew_clip_free(apart);
    sinew_clip_free(clip);
}

int main(void)
{
    test_shared_times();
    test_retarget();
    test_weights();
    test_step_and_linear();
    test_cubicspline();
    test_exact_keys();
    test_clip_sampling();
    test_cursor();
    test_validation();
    test_optimize();
    return check_finish("test_clip");
}
