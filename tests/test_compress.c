/* SPDX-License-Identifier: MIT */
/* sinew_clip_compress: tracks sorted into left out, constant and
 * animated; every pose within the bound as sinew_clip_measure_error
 * measures it; sampling at any time the same whatever came before; the
 * SIMD levels within their tolerance of the reference and the same bytes
 * at each; uneven key times;
 * STEP and CUBICSPLINE tracks;
 * a rotation turning half a turn between two keys; additive clips;
 * weights tracks kept; the refusals; the golden compressed walk,
 * compressed on a build machine (tests/archive), decoded here within its
 * bound; and, with the loaders and the shared assets, the pab clips
 * against the sizes ozz-animation and ACL reach. */
#include <sinew/sinew_archive.h>
#include <sinew/sinew_asset.h>

#include "check.h"
#include "write_memory.h"
#if defined(SINEW_TEST_FILES)
#include <sinew/sinew_import.h>
#include "shared_asset.h"
#endif

#include <float.h>
#include <math.h>
#include <stdlib.h>

enum { JOINTS = 4, KEYS = 31 };

/* A chain of four joints one unit apart along y. */
static sinew_skeleton *chain(void)
{
    sinew_transform rest[JOINTS];
    for (int j = 0; j < JOINTS; ++j)
        rest[j] = (sinew_transform){{0, j ? 1.0f : 0.0f, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return sinew_skeleton_create(&(sinew_skeleton_desc){JOINTS, (const int[]){-1, 0, 1, 2}, NULL, rest}, NULL,
                                 NULL, NULL);
}

/* The test clip on the chain, keys at `times` (KEYS of them): joint 0
 * translated along x and turned about z, joint 1 turned about x, joint 2
 * held turned (constant), joint 3 at its rest pose (keys equal to it), and
 * a weights track on joint 3. */
static sinew_clip *test_clip(const float *times, bool additive)
{
    static float t0[3 * KEYS], r0[4 * KEYS], r1[4 * KEYS], r2[4 * KEYS], t3[3 * KEYS], w3[2 * KEYS];
    for (int k = 0; k < KEYS; ++k) {
        float u = times[k];
        t0[3 * k] = 0.5f * sinf(3.0f * u), t0[3 * k + 1] = 0.0f, t0[3 * k + 2] = 0.1f * u;
        float a = 0.8f * sinf(2.0f * u), b = 1.2f * cosf(5.0f * u);
        r0[4 * k] = 0, r0[4 * k + 1] = 0, r0[4 * k + 2] = sinf(a / 2), r0[4 * k + 3] = cosf(a / 2);
        r1[4 * k] = sinf(b / 2), r1[4 * k + 1] = 0, r1[4 * k + 2] = 0, r1[4 * k + 3] = cosf(b / 2);
        r2[4 * k] = 0, r2[4 * k + 1] = sinf(0.35f), r2[4 * k + 2] = 0, r2[4 * k + 3] = cosf(0.35f);
        t3[3 * k] = 0, t3[3 * k + 1] = 1, t3[3 * k + 2] = 0;
        w3[2 * k] = u, w3[2 * k + 1] = 1 - u;
    }
    sinew_track tracks[] = {
        {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, KEYS, times, t0, 0},
        {0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, KEYS, times, r0, 0},
        {1, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, KEYS, times, r1, 0},
        {2, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, KEYS, times, r2, 0},
        {3, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, KEYS, times, t3, 0},
        {3, SINEW_TARGET_WEIGHTS, SINEW_INTERP_LINEAR, KEYS, times, w3, 2},
    };
    sinew_clip_desc d = {.name = "test", .joint_count = JOINTS, .track_count = 6, .tracks = tracks,
                         .additive = additive};
    return sinew_clip_create(&d, NULL, NULL);
}

static float pose_difference(const sinew_transform *a, const sinew_transform *b, int n)
{
    float worst = 0.0f;
    for (int j = 0; j < n; ++j) {
        const float *x = &a[j].translation.x, *y = &b[j].translation.x;
        for (int f = 0; f < 10; ++f) worst = fmaxf(worst, fabsf(x[f] - y[f]));
    }
    return worst;
}

/* The clip compressed at `bound` (shell 0.1), checked within it by the
 * measure; its report in *r. */
static sinew_clip *compressed_within(const sinew_clip *clip, const sinew_skeleton *sk, float bound, int simd,
                                     sinew_compress_report *r, const char *what)
{
    sinew_error err;
    sinew_compress_options o = {.error_bound = bound, .shell_distance = 0.1f};
    sinew_clip *z = sinew_clip_compress(clip, sk, &o, &(sinew_options){.simd = simd}, r, &err);
    CHECK(z && z->compressed && !z->packed, "%s: compressed: %s", what, z ? "" : err.description);
    if (!z) return NULL;
    sinew_clip_error_report e;
    CHECK(sinew_clip_measure_error(clip, z, sk, 0.1f, 240.0f, &e, &err) == SINEW_OK, "%s", err.description);
    CHECK(e.largest <= bound, "%s: measured at 240 a second: largest %g within the bound %g (the report's %g)", what,
          (double)e.largest, (double)bound, (double)r->largest);
    CHECK(r->largest <= bound && r->percentile_99 <= r->largest && r->bytes > 0 &&
              r->bytes < sinew_clip_bytes(clip),
          "%s: report: largest %g, 99%% %g, %zu bytes (the clip %zu)", what, (double)r->largest,
          (double)r->percentile_99, r->bytes, sinew_clip_bytes(clip));
    sinew_compress_report again;
    CHECK(sinew_clip_compression(z, &again) && again.bytes == r->bytes && again.largest == r->largest &&
              again.animated_tracks == r->animated_tracks,
          "%s: the clip tells its report again", what);
    return z;
}

static void test_sorting_and_bound(const sinew_skeleton *sk, const float *times)
{
    sinew_clip *clip = test_clip(times, false);
    sinew_compress_report r;
    sinew_clip *z = compressed_within(clip, sk, 1e-4f, 0, &r, "the test clip");
    if (z) {
        /* joint 0: translation and rotation animated; joint 1's rotation;
         * joint 2's rotation constant; the rest at the rest pose */
        CHECK(r.animated_tracks == 3 && r.constant_tracks == 1 && r.default_tracks == 3 * JOINTS - 4,
              "tracks: %d animated, %d constant, %d left out", r.animated_tracks, r.constant_tracks,
              r.default_tracks);
        int pairs = 0;
        for (int b = 0; b < 33; ++b) pairs += r.bit_rates[b];
        CHECK(pairs == r.animated_tracks * r.segment_count, "a bit rate for each track and segment (%d)", pairs);
        CHECK(z->track_count == 1 && z->tracks[0].target == SINEW_TARGET_WEIGHTS && sinew_clip_cursor_size(z) == 1,
              "the weights track kept, the cursor its entry alone");
        float w[2] = {-1, -1};
        CHECK(sinew_clip_sample_weights(z, 0.5f, 0, NULL, 3, w, 2, NULL) == SINEW_OK && fabsf(w[0] - 0.5f) < 1e-6f,
              "its weights sample: %g", (double)w[0]);
        /* a tighter bound holds more */
        sinew_compress_report tight;
        sinew_clip *zt = compressed_within(clip, sk, 1e-6f, 0, &tight, "the test clip at 1e-6");
        CHECK(tight.bytes > r.bytes, "a tighter bound takes more bytes: %zu against %zu", tight.bytes, r.bytes);
        sinew_clip_free(zt);
        /* random seek gives what forward playback gives */
        sinew_transform fwd[JOINTS], seek[JOINTS];
        float worst = 0.0f;
        unsigned state = 7;
        for (int i = 0; i < 200; ++i) {
            float t = check_rand(&state) * z->duration;
            sinew_clip_sample(z, sk, t, SINEW_SAMPLE_LOOP, NULL, seek, JOINTS, NULL);
            sinew_clip_sample(z, sk, 0.0f, 0, NULL, fwd, JOINTS, NULL);
            for (float u = 0.0f; u < t; u += 0.05f) sinew_clip_sample(z, sk, u, 0, NULL, fwd, JOINTS, NULL);
            sinew_clip_sample(z, sk, t, SINEW_SAMPLE_LOOP, NULL, fwd, JOINTS, NULL);
            worst = fmaxf(worst, pose_difference(fwd, seek, JOINTS));
        }
        CHECK(worst == 0.0f, "a seek samples what playing up to it samples: %g apart", (double)worst);
        /* the one-pass model call agrees with the two calls */
        sinew_mat4 m1[JOINTS], m2[JOINTS];
        sinew_transform local[JOINTS];
        sinew_clip_sample_model(z, sk, 0.37f, 0, NULL, NULL, NULL, m1, JOINTS, NULL);
        sinew_clip_sample(z, sk, 0.37f, 0, NULL, local, JOINTS, NULL);
        sinew_local_to_model(sk, local, NULL, m2, JOINTS, NULL);
        CHECK(memcmp(m1, m2, sizeof m1) == 0, "sample_model as sample then local-to-model");
        /* root motion reads the compressed joint as sampling does */
        sinew_root_motion_job exact = {.clip = clip, .skeleton = sk, .joint = 0, .from = 0.1f, .to = 0.9f};
        sinew_root_motion_job small = exact;
        small.clip = z;
        CHECK(sinew_root_motion(&exact, NULL) == SINEW_OK && sinew_root_motion(&small, NULL) == SINEW_OK &&
                  fabsf(exact.translation.x - small.translation.x) <= 1e-4f &&
                  fabsf(exact.translation.z - small.translation.z) <= 1e-4f && fabsf(exact.yaw - small.yaw) <= 1e-3f,
              "root motion: (%g, %g) turning %g against the clip's (%g, %g) turning %g", (double)small.translation.x,
              (double)small.translation.z, (double)small.yaw, (double)exact.translation.x,
              (double)exact.translation.z, (double)exact.yaw);
        /* what reads tracks refuses it, naming why */
        sinew_error err;
        sinew_clip_tolerance tol = {1e-4f, 1e-4f, 1e-4f};
        CHECK(!sinew_clip_optimize(z, &tol, sk, NULL, NULL, &err), "optimize refuses it");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "is compressed");
        CHECK(!sinew_clip_pack(z, sk, NULL, NULL, &err), "pack refuses it");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "is compressed");
        CHECK(!sinew_clip_compress(z, sk, NULL, NULL, NULL, &err), "compress refuses it");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "is compressed");
        CHECK(!sinew_clip_retarget(z, sk, sk, NULL, NULL, &err), "retarget refuses it");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "is compressed");
    }
    sinew_clip_free(z);
    sinew_clip_free(clip);
}

/* A clip of many joints (WIDE, their tracks more than two groups of the
 * AVX2 kernel's eight, the last one short): rotations about each axis,
 * some half a turn apart between samples, translations, scales, a STEP
 * rotation, a track held still, at a loose bound and at one so tight that
 * segments keep raw floats beside quantized ones; every level within 1e-6
 * of the scalar one on the samples, between them and across segments. */
enum { WIDE = 19, WIDE_KEYS = 40 };

static void test_wide(void)
{
    sinew_transform rest[WIDE];
    int parents[WIDE];
    for (int j = 0; j < WIDE; ++j)
        rest[j] = (sinew_transform){{0, j ? 0.3f : 0.0f, 0}, {0, 0, 0, 1}, {1, 1, 1}}, parents[j] = j - 1;
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){WIDE, parents, NULL, rest}, NULL, NULL, NULL);
    static float times[WIDE_KEYS], r[WIDE][4 * WIDE_KEYS], t[WIDE][3 * WIDE_KEYS], sc[WIDE][3 * WIDE_KEYS];
    sinew_track tracks[3 * WIDE];
    int n = 0;
    for (int k = 0; k < WIDE_KEYS; ++k) times[k] = (float)k / 30.0f;
    for (int j = 0; j < WIDE; ++j) {
        for (int k = 0; k < WIDE_KEYS; ++k) {
            float u = times[k], a = (j % 5 == 4 ? 2.7f * u * 30.0f : 0.3f + 0.9f * sinf(2.0f + j + (1.0f + 0.3f * j) * u));
            float axis[3] = {j % 3 == 0 ? 1.0f : 0.3f, j % 3 == 1 ? 1.0f : -0.2f, j % 3 == 2 ? 1.0f : 0.1f};
            float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]), h = sinf(a / 2) / len;
            float *q = &r[j][4 * k];
            q[0] = axis[0] * h, q[1] = axis[1] * h, q[2] = axis[2] * h, q[3] = cosf(a / 2);
            float *x = &t[j][3 * k], *y = &sc[j][3 * k];
            x[0] = 0.2f * sinf(u * (j + 1)), x[1] = 0.3f + 0.05f * u, x[2] = j == 7 ? 0.4f : 0.1f * cosf(3 * u);
            y[0] = 1.0f + 0.2f * sinf(2 * u), y[1] = 1.0f, y[2] = 1.0f - 0.1f * u;
        }
        tracks[n++] = (sinew_track){j, SINEW_TARGET_ROTATION, j == 5 ? SINEW_INTERP_STEP : SINEW_INTERP_LINEAR,
                                    WIDE_KEYS, times, r[j], 0};
        if (j % 3 == 0 || j == 7 || j == 8)
            tracks[n++] = (sinew_track){j, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, WIDE_KEYS, times, t[j], 0};
        if (j % 4 == 1)
            tracks[n++] = (sinew_track){j, SINEW_TARGET_SCALE, SINEW_INTERP_LINEAR, WIDE_KEYS, times, sc[j], 0};
    }
    sinew_clip_desc d = {.name = "wide", .joint_count = WIDE, .track_count = n, .tracks = tracks};
    sinew_clip *clip = sk ? sinew_clip_create(&d, NULL, NULL) : NULL;
    CHECK(clip != NULL, "the wide clip");
    for (int tight = 0; clip && tight < 2; ++tight) {
        float bound = tight ? 2e-7f : 1e-4f;
        sinew_compress_options o = {.error_bound = bound, .shell_distance = 0.1f};
        sinew_compress_report rr;
        sinew_error err;
        sinew_clip *reference = sinew_clip_compress(clip, sk, &o, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, &rr, &err);
        CHECK(reference && rr.animated_tracks > 16 && rr.animated_tracks % 8 != 0,
              "the wide clip at %g: %d animated tracks", (double)bound, reference ? rr.animated_tracks : 0);
        if (tight) CHECK(rr.bit_rates[32] > 0, "the tight bound keeps raw samples (%d tracks' segments)", rr.bit_rates[32]);
        for (int level = SINEW_SIMD_AVX2; level <= SINEW_SIMD_NEON && reference; ++level) {
            int best = (int)sinew_simd_supported();
            if (level == SINEW_SIMD_NEON ? best != level : best == SINEW_SIMD_NEON || level > best) continue;
            sinew_clip *z = sinew_clip_compress(clip, sk, &o, &(sinew_options){.simd = level}, NULL, &err);
            float worst = 0.0f;
            sinew_transform a[WIDE], b[WIDE];
            /* on each sample, a quarter after it, and a thousandth around it */
            for (int i = 0; z && i < 4 * (WIDE_KEYS + 1); ++i) {
                float at = (float)(i / 4) / 30.0f + (float[]){0.0f, 0.25f / 30.0f, 0.001f, -0.001f}[i % 4];
                for (unsigned flags = 0; flags <= SINEW_SAMPLE_NLERP; flags += SINEW_SAMPLE_NLERP) {
                    sinew_clip_sample(reference, sk, at, flags, NULL, a, WIDE, NULL);
                    sinew_clip_sample(z, sk, at, flags, NULL, b, WIDE, NULL);
                    worst = fmaxf(worst, pose_difference(a, b, WIDE));
                }
            }
            CHECK(z && worst <= 1e-6f, "the wide clip at %g: %s within 1e-6 of the scalar level: %g", (double)bound,
                  sinew_simd_name((sinew_simd)level), (double)worst);
            sinew_clip_free(z);
        }
        sinew_clip_free(reference);
    }
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
}

/* Every SIMD level this CPU runs samples within 1e-6 of the reference,
 * and compresses to the same bytes. */
static void test_levels(const sinew_skeleton *sk, const float *times)
{
    sinew_clip *clip = test_clip(times, false);
    sinew_compress_report r;
    sinew_clip *reference = compressed_within(clip, sk, 1e-4f, SINEW_SIMD_SCALAR, &r, "the scalar level");
    for (int level = SINEW_SIMD_AVX2; level <= SINEW_SIMD_NEON && reference; ++level) {
        int best = (int)sinew_simd_supported();
        if (level == SINEW_SIMD_NEON ? best != level : best == SINEW_SIMD_NEON || level > best) continue;
        sinew_clip *z = compressed_within(clip, sk, 1e-4f, level, &r, sinew_simd_name((sinew_simd)level));
        float worst = 0.0f;
        sinew_transform a[JOINTS], b[JOINTS];
        for (int i = 0; z && i <= 300; ++i) {
            float t = (float)i / 300.0f * clip->duration;
            for (unsigned flags = 0; flags <= SINEW_SAMPLE_NLERP; flags += SINEW_SAMPLE_NLERP) {
                sinew_clip_sample(reference, sk, t, flags, NULL, a, JOINTS, NULL);
                sinew_clip_sample(z, sk, t, flags, NULL, b, JOINTS, NULL);
                worst = fmaxf(worst, pose_difference(a, b, JOINTS));
            }
        }
        CHECK(worst <= 1e-6f, "%s samples within 1e-6 of the scalar level: %g", sinew_simd_name((sinew_simd)level),
              (double)worst);
        /* the encoder reads the clip by the reference formulas at every
         * level: the same bytes */
        memory written[2] = {{NULL, 0}, {NULL, 0}};
        for (int w = 0; z && w < 2; ++w) {
            const sinew_clip *one[1] = {w ? z : reference};
            sinew_asset asset = {.name = "levels", .skeleton = sk, .clip_count = 1, .clips = one};
            written[w] = write_asset(&asset, &(sinew_archive_write_options){.clips_only = true});
        }
        CHECK(z && written[0].size > 0 && written[0].size == written[1].size &&
                  memcmp(written[0].bytes, written[1].bytes, written[0].size) == 0,
              "%s compresses to the scalar level's bytes (%zu and %zu)", sinew_simd_name((sinew_simd)level),
              written[0].size, written[1].size);
        free(written[0].bytes), free(written[1].bytes);
        sinew_clip_free(z);
    }
    sinew_clip_free(reference);
    sinew_clip_free(clip);
}

/* A rotation that turns by nearly half a turn between two keys can go the
 * other way round once quantized: the search sees it between the samples. */
static void test_half_turn(const sinew_skeleton *sk)
{
    static const float times[4] = {0.0f, 1.0f / 30, 2.0f / 30, 3.0f / 30};
    float r[16];
    const float angles[4] = {0.0f, 0.2f, 0.2f + 3.1f, 0.4f + 3.1f};
    for (int k = 0; k < 4; ++k) r[4 * k] = sinf(angles[k] / 2), r[4 * k + 1] = 0, r[4 * k + 2] = 0,
                                r[4 * k + 3] = cosf(angles[k] / 2);
    sinew_track t = {1, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 4, times, r, 0};
    sinew_clip *clip = sinew_clip_create(&(sinew_clip_desc){.joint_count = JOINTS, .track_count = 1, .tracks = &t},
                                         NULL, NULL);
    sinew_compress_report rep;
    sinew_clip *z = compressed_within(clip, sk, 1e-4f, 0, &rep, "a half turn between two keys");
    sinew_clip_free(z);
    sinew_clip_free(clip);
}

/* STEP tracks hold each key until the next, CUBICSPLINE ones curve
 * between keys: both within the bound (the first sampled at its keys, the
 * other as often as the bound needs). */
static void test_interpolations(const sinew_skeleton *sk)
{
    static const float times[5] = {0.0f, 0.13f, 0.4f, 0.45f, 1.0f};
    float step[20], spline[45];
    for (int k = 0; k < 5; ++k) {
        float a = 0.7f * (float)k;
        step[4 * k] = sinf(a / 2), step[4 * k + 1] = 0, step[4 * k + 2] = 0, step[4 * k + 3] = cosf(a / 2);
        /* values 5 mm apart, flat tangents: curves 240 samples a second follow within the bound */
        for (int c = 0; c < 9; ++c) spline[9 * k + c] = c / 3 == 1 ? 0.005f * (float)(k % 2) : 0.0f;
    }
    sinew_track tracks[2] = {{1, SINEW_TARGET_ROTATION, SINEW_INTERP_STEP, 5, times, step, 0},
                             {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_CUBICSPLINE, 5, times, spline, 0}};
    for (int n = 1; n <= 2; ++n) {
        sinew_clip *clip = sinew_clip_create(
            &(sinew_clip_desc){.joint_count = JOINTS, .track_count = n, .tracks = tracks}, NULL, NULL);
        sinew_compress_report r;
        sinew_compress_options o = {.error_bound = 1e-4f, .shell_distance = 0.1f};
        sinew_clip *z = clip ? sinew_clip_compress(clip, sk, &o, NULL, &r, NULL) : NULL;
        sinew_clip_error_report e = {0};
        if (z) sinew_clip_measure_error(clip, z, sk, 0.1f, 240.0f, &e, NULL);
        CHECK(z && e.largest <= 1e-4f && r.largest <= 1e-4f, "%s: within the bound: %g", n == 1 ? "a step track"
              : "and a spline", (double)e.largest);
        if (n == 1) CHECK(z && r.sample_count == 5 && r.sample_rate == 0.0f, "a step track at its 5 key times (%d)",
                          z ? r.sample_count : 0);
        sinew_clip_free(z);
        sinew_clip_free(clip);
    }
}

static void test_additive(const sinew_skeleton *sk, const float *times)
{
    sinew_clip *clip = test_clip(times, true);
    sinew_compress_report r;
    sinew_clip *z = compressed_within(clip, sk, 1e-4f, 0, &r, "an additive clip");
    /* joint 3's translation (0, 1, 0) is not the identity's: held once */
    CHECK(z && z->additive && r.constant_tracks == 2, "additive, %d constant tracks", r.constant_tracks);
    sinew_transform p[JOINTS];
    if (z) sinew_clip_sample(z, sk, 0.2f, 0, NULL, p, JOINTS, NULL);
    CHECK(z && p[3].rotation.w == 1.0f && p[3].scale.x == 1.0f, "what it leaves out is the identity");
    sinew_clip_free(z);
    sinew_clip_free(clip);
}

static void test_refusals(const sinew_skeleton *sk, const float *times)
{
    sinew_clip *clip = test_clip(times, false);
    sinew_error err;
    CHECK(!sinew_clip_compress(NULL, sk, NULL, NULL, NULL, &err), "no clip");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "required");
    sinew_compress_options bad = {.error_bound = -1.0f};
    CHECK(!sinew_clip_compress(clip, sk, &bad, NULL, NULL, &err), "a negative bound");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "error bound");
    float shells[JOINTS] = {0.1f, 0.1f, NAN, 0.1f};
    sinew_compress_options nan_shell = {.joint_shell_distances = shells};
    CHECK(!sinew_clip_compress(clip, sk, &nan_shell, NULL, NULL, &err), "a NaN shell distance");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "joint 2");
    sinew_skeleton *one = sinew_skeleton_create(&(sinew_skeleton_desc){1, (const int[]){-1}, NULL, NULL}, NULL,
                                                NULL, NULL);
    CHECK(!sinew_clip_compress(clip, one, NULL, NULL, NULL, &err), "another joint count");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "animates 4 joints");
    sinew_skeleton_free(one);
    /* per-joint shells: a larger shell on the chain's root asks more of it */
    float wide[JOINTS] = {10.0f, 0.1f, 0.1f, 0.1f};
    sinew_compress_report plain, more;
    sinew_compress_options o = {.error_bound = 1e-4f, .shell_distance = 0.1f};
    sinew_clip *a = sinew_clip_compress(clip, sk, &o, NULL, &plain, &err);
    o.joint_shell_distances = wide;
    sinew_clip *b = sinew_clip_compress(clip, sk, &o, NULL, &more, &err);
    CHECK(a && b && more.bytes > plain.bytes && more.largest <= 1e-4f,
          "a joint's own shell distance: %zu bytes against %zu", more.bytes, plain.bytes);
    sinew_clip_free(a);
    sinew_clip_free(b);
    sinew_clip_free(clip);
}

/* The golden compressed clips (tests/archive/demo-compressed.sinew: the
 * built-in clips as `sinew convert --compress` leaves them, made on a build
 * machine), read from their file at every SIMD level this CPU runs: the
 * walk decodes within its bound of the built-in walk as this platform
 * builds it, measured as the encoder measures, the levels within 1e-6 of
 * the scalar one; the idle, stored as it was, samples as the built-in idle
 * (within 1e-6: this platform's sinf and cosf made the one, the build
 * machine's the other). */
static void test_golden(void)
{
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "the built-in character: %s", err.description);
    if (!demo) return;
    const sinew_clip *walk = sinew_asset_find_clip(demo, "walk"), *idle = sinew_asset_find_clip(demo, "idle");
    int n = demo->skeleton->joint_count;
    sinew_transform *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    sinew_transform *scalar = malloc(sizeof *scalar * 301 * (size_t)n);
    int best = (int)sinew_simd_supported();
    for (int level = SINEW_SIMD_SCALAR; a && b && scalar && level <= SINEW_SIMD_NEON; ++level) {
        if (level != SINEW_SIMD_SCALAR && (level == SINEW_SIMD_NEON ? best != level : best == SINEW_SIMD_NEON || level > best))
            continue;
        const char *name = sinew_simd_name((sinew_simd)level);
        sinew_options o = {.simd = (sinew_simd)level};
        sinew_asset *g = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/demo-compressed.sinew", &o, &err);
        CHECK(g != NULL, "the golden compressed clips load at %s: %s", name, g ? "" : err.description);
        if (!g) continue;
        const sinew_clip *z = sinew_asset_find_clip(g, "walk"), *kept = sinew_asset_find_clip(g, "idle");
        sinew_compress_report r;
        CHECK(z && z->compressed && sinew_clip_compression(z, &r) && kept && !kept->compressed && !kept->packed &&
                  g->skeleton->joint_count == n,
              "%s: a compressed walk, the idle as it was", name);
        if (z && z->compressed && sinew_clip_compression(z, &r) && kept && g->skeleton->joint_count == n) {
            sinew_clip_error_report e = {0};
            CHECK(sinew_clip_measure_error(walk, z, demo->skeleton, r.shell_distance, 240.0f, &e, &err) == SINEW_OK,
                  "%s: %s", name, err.description);
            CHECK(e.largest <= r.error_bound + 1e-6f && r.error_bound == 1e-4f,
                  "%s: the walk decoded within %g of the built-in one (bound %g; %g when it was compressed)", name,
                  (double)e.largest, (double)r.error_bound, (double)r.largest);
            float levels = 0.0f, still = 0.0f;
            for (int i = 0; i <= 300; ++i) {
                float t = (float)i / 300.0f * z->duration;
                sinew_clip_sample(z, g->skeleton, t, 0, NULL, a, n, NULL);
                if (level == SINEW_SIMD_SCALAR) memcpy(scalar + (size_t)i * (size_t)n, a, sizeof *a * (size_t)n);
                levels = fmaxf(levels, pose_difference(a, scalar + (size_t)i * (size_t)n, n));
                sinew_clip_sample(kept, g->skeleton, t * 3.0f, 0, NULL, a, n, NULL);
                sinew_clip_sample(idle, demo->skeleton, t * 3.0f, 0, NULL, b, n, NULL);
                still = fmaxf(still, pose_difference(a, b, n));
            }
            CHECK(levels <= 1e-6f, "%s: the golden walk samples within 1e-6 of the scalar level: %g", name,
                  (double)levels);
            CHECK(still <= 1e-6f, "%s: the golden idle samples as the built-in idle, within %g", name, (double)still);
            printf("golden compressed walk at %s: within %g of the built-in walk (bound %g)\n", name,
                   (double)e.largest, (double)r.error_bound);
        }
        sinew_asset_free(g);
    }
    free(a), free(b), free(scalar);
    sinew_asset_free(demo);
}

/* A clip on the chain of `keys` keys at `times`: joint 0 translated along
 * x from 0 to 1 and turned about z by up to 1 rad (LINEAR), or, with
 * `tangent` above 0, its translation a CUBICSPLINE whose tangents are
 * `tangent` (tangents times the time between keys: past a float's range
 * where both are large). */
static sinew_clip *far_clip(const char *name, const float *times, int keys, float duration, float tangent)
{
    float *t0 = calloc((size_t)keys * 9, sizeof *t0), *r0 = calloc((size_t)keys * 4, sizeof *r0);
    for (int k = 0; k < keys; ++k) {
        float u = (float)(k % 5) / 4.0f;
        float *v = tangent > 0.0f ? &t0[9 * k + 3] : &t0[3 * k];
        v[0] = u;
        if (tangent > 0.0f) t0[9 * k] = tangent, t0[9 * k + 6] = tangent;
        r0[4 * k + 2] = sinf(0.5f * u), r0[4 * k + 3] = cosf(0.5f * u);
    }
    sinew_track tracks[] = {
        {0, SINEW_TARGET_TRANSLATION, tangent > 0.0f ? SINEW_INTERP_CUBICSPLINE : SINEW_INTERP_LINEAR, keys, times,
         t0, 0},
        {0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, keys, times, r0, 0},
    };
    sinew_clip_desc d = {.name = name, .joint_count = JOINTS, .duration = duration, .track_count = 2,
                         .tracks = tracks};
    sinew_clip *clip = sinew_clip_create(&d, NULL, NULL);
    free(t0), free(r0);
    return clip;
}

/* Keys far apart in time (two keys 1e20 s apart, the last at 3e38, many
 * keys 1e30 s apart): the compression samples and measures by the keys,
 * the work done (report.poses_sampled) within a multiple of them, and
 * what would hold poses past a float's range is refused with a sentence.
 * sinew_clip_optimize too works by the keys. */
static void test_far_keys(const sinew_skeleton *sk)
{
    enum { MANY = 300 };
    static float many[MANY];
    for (int k = 0; k < MANY; ++k) many[k] = 1e30f * (float)k;
    const struct {
        const char *name;
        float times[2];
        const float *table;
        int keys;
        float duration;
    } cases[] = {
        {"1e20", {0.0f, 1e20f}, NULL, 2, 0.0f},
        {"3e38", {0.0f, 3e38f}, NULL, 2, 0.0f},
        {"1e20 after the keys", {0.0f, 1.0f}, NULL, 2, 1e20f},
        {"max", {1.0f, FLT_MAX}, NULL, 2, FLT_MAX},
        {"many", {0}, many, MANY, 0.0f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const float *times = cases[i].table ? cases[i].table : cases[i].times;
        int keys = cases[i].keys;
        for (int spline = 0; spline < 2; ++spline) {
            sinew_clip *clip = far_clip(cases[i].name, times, keys, cases[i].duration, spline ? 1e-3f : 0.0f);
            CHECK(clip != NULL, "%s: the clip", cases[i].name);
            if (!clip) continue;
            sinew_error err;
            sinew_compress_report r = {0};
            sinew_clip *z = sinew_clip_compress(clip, sk, NULL, NULL, &r, &err);
            CHECK(z != NULL, "%s%s: compressed: %s", cases[i].name, spline ? " (spline)" : "",
                  z ? "" : err.description);
            /* the keys themselves, or 16 samples a key time at most */
            CHECK(z && r.sample_count >= 2 && r.sample_count <= 16 * keys + 4096 && r.poses_sampled > 0 &&
                      r.poses_sampled <= (size_t)64 * (size_t)keys,
                  "%s%s: %d samples (rate %g), %zu poses sampled and measured for %d keys", cases[i].name,
                  spline ? " (spline)" : "", r.sample_count, (double)r.sample_rate, r.poses_sampled, keys);
            /* evenly keyed, at their rate, but not one of subnormal floats (keys
             * 3e38 s apart): their times then */
            if (!spline)
                CHECK(z && r.sample_count == keys && (r.sample_rate == 0.0f || r.sample_rate >= FLT_MIN) &&
                          r.largest <= r.error_bound,
                      "%s: sampled at its %d keys (%d, rate %g), largest %g", cases[i].name, keys, r.sample_count,
                      (double)r.sample_rate, (double)r.largest);
            sinew_clip_error_report e = {0};
            CHECK(z && sinew_clip_measure_error(clip, z, sk, 0.03f, 0, &e, &err) == SINEW_OK &&
                      e.poses <= 4 * keys + 2 && (spline || e.largest <= r.error_bound),
                  "%s%s: measured again over %d poses: largest %g", cases[i].name, spline ? " (spline)" : "",
                  e.poses, (double)e.largest);
            sinew_compress_report again = {0};
            CHECK(z && sinew_clip_compression(z, &again) && again.poses_sampled == 0,
                  "%s: the clip's report tells no work", cases[i].name);
            sinew_clip_free(z);
            sinew_optimize_report o = {0};
            sinew_clip *slim = sinew_clip_optimize(clip, &(sinew_clip_tolerance){1e-4f, 1e-4f, 1e-4f}, sk, NULL, &o,
                                                   &err);
            CHECK(slim && o.constant_tracks == 0, "%s: optimized (%d constant tracks): %s", cases[i].name,
                  o.constant_tracks, slim ? "" : err.description);
            sinew_clip_free(slim);
            sinew_clip_free(clip);
        }
    }
    /* a spline's tangents times 1e20 s: poses past a float's range */
    sinew_clip *wild = far_clip("wild", cases[0].times, 2, 0.0f, 1e30f);
    CHECK(wild != NULL, "the wild spline");
    if (wild) {
        sinew_error err;
        sinew_compress_report r = {0};
        CHECK(!sinew_clip_compress(wild, sk, NULL, NULL, &r, &err), "a pose past a float's range refused");
        CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "sinew_clip_compress: clip \"wild\": joint 0's pose at ");
        CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "is not finite");
    }
    sinew_clip_free(wild);
    /* translations from -3e38 to 3e38: a range no float holds */
    static const float ends[2] = {0.0f, 1.0f};
    float wide_values[6] = {-3e38f, 0, 0, 3e38f, 0, 0};
    sinew_track wide_track = {3, SINEW_TARGET_TRANSLATION, SINEW_INTERP_STEP, 2, ends, wide_values, 0};
    sinew_clip *wide = sinew_clip_create(
        &(sinew_clip_desc){.name = "wide", .joint_count = JOINTS, .track_count = 1, .tracks = &wide_track}, NULL,
        NULL);
    CHECK(wide != NULL, "the wide clip");
    if (wide) {
        sinew_error err;
        CHECK(!sinew_clip_compress(wide, sk, NULL, NULL, NULL, &err), "a range past a float's refused");
        CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "sinew_clip_compress: clip \"wide\": joint 3's translation varies by "
                                                 "more than a float holds");
    }
    sinew_clip_free(wide);
}

#if defined(SINEW_TEST_FILES)
/* The walk compressed far below its bounds above (0.0001 units at 0.03,
 * as `sinew bench` does by default): its segments keep some tracks raw
 * beside quantized ones in the same group of eight, and every SIMD level
 * samples it as the scalar level does, rotations within 1e-6, lengths
 * within 1e-6 of their size (at least 1), at times across segments. */
static void test_raw_beside_quantized(const sinew_clip *clip, const sinew_skeleton *sk)
{
    sinew_compress_options tight = {.error_bound = 0.0001f, .shell_distance = 0.03f};
    sinew_compress_report r;
    sinew_error err;
    sinew_clip *reference =
        sinew_clip_compress(clip, sk, &tight, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, &r, &err);
    int pairs = 0;
    for (int b = 0; b <= 32; ++b) pairs += r.bit_rates[b];
    CHECK(reference && r.bit_rates[32] > 0 && r.bit_rates[32] < pairs,
          "the walk at 0.0001: raw and quantized tracks (%d raw of %d track segments)", reference ? r.bit_rates[32] : 0,
          pairs);
    int n = sk->joint_count;
    sinew_transform *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    for (int level = SINEW_SIMD_AVX2; level <= SINEW_SIMD_NEON && reference && a && b; ++level) {
        int best = (int)sinew_simd_supported();
        if (level == SINEW_SIMD_NEON ? best != level : best == SINEW_SIMD_NEON || level > best) continue;
        sinew_clip *z = sinew_clip_compress(clip, sk, &tight, &(sinew_options){.simd = level}, NULL, &err);
        CHECK(z != NULL, "the walk at 0.0001 at %s: %s", sinew_simd_name((sinew_simd)level), err.description);
        float worst_turn = 0.0f, worst_move = 0.0f;
        for (int i = 0; z && i <= 400; ++i) {
            float t = (float)i / 400.0f * clip->duration;
            for (unsigned flags = 0; flags <= SINEW_SAMPLE_NLERP; flags += SINEW_SAMPLE_NLERP) {
                sinew_clip_sample(reference, sk, t, flags, NULL, a, n, NULL);
                sinew_clip_sample(z, sk, t, flags, NULL, b, n, NULL);
                for (int j = 0; j < n; ++j) {
                    const float *x = &a[j].translation.x, *y = &b[j].translation.x;
                    for (int f = 0; f < 10; ++f) {
                        float d = fabsf(x[f] - y[f]);
                        if (f >= 3 && f < 7) worst_turn = fmaxf(worst_turn, d);
                        else worst_move = fmaxf(worst_move, d / fmaxf(1.0f, fabsf(x[f])));
                    }
                }
            }
        }
        CHECK(worst_turn <= 1e-6f && worst_move <= 1e-6f,
              "the walk at 0.0001 at %s as the scalar level: rotations %g, lengths %g of their size",
              sinew_simd_name((sinew_simd)level), (double)worst_turn, (double)worst_move);
        sinew_clip_free(z);
    }
    free(a), free(b);
    sinew_clip_free(reference);
}

/* The pab clips: within the bound, and at ozz-animation's tolerance
 * (1 mm at 10 cm) smaller than ozz's own walk (11,153 bytes), at the
 * default bound within 1.2x of ACL 2.1's 6,474 bytes, given the bind pose (docs/BENCHMARKS.md). */
static void test_pab(void)
{
    char path[1024];
    static const char *const clips[] = {"walk", "jog", "run", "crossarms"};
    for (int i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/fbx/pab/%s.fbx", SINEW_ASSETS, clips[i]);
        sinew_asset *a = test_load_shared(path);
        if (!a) return;
        sinew_error err;
        CHECK(a->clip_count == 1, "%s: one clip", path);
        if (a->clip_count != 1) {
            sinew_asset_free(a);
            continue;
        }
        const sinew_clip *clip = a->clips[0];
        sinew_compress_report r;
        /* FBX's unit here: centimeters */
        sinew_compress_options o = {.meters_per_unit = 0.01f};
        sinew_clip *z = sinew_clip_compress(clip, a->skeleton, &o, NULL, &r, &err);
        sinew_clip_error_report e = {0};
        if (z) sinew_clip_measure_error(clip, z, a->skeleton, 3.0f, 240.0f, &e, NULL);
        CHECK(z && r.error_bound == 0.01f && r.shell_distance == 3.0f && e.largest <= 0.01f,
              "%s: 0.01 cm at 3 cm: %zu bytes, largest %g at 240 a second", clips[i], r.bytes, (double)e.largest);
        if (i == 0) {
            CHECK(r.bytes <= 7768, "the walk in %zu bytes, within 1.2x of ACL's 6,474", r.bytes);
            sinew_compress_options ozz = {.error_bound = 0.1f, .shell_distance = 10.0f};
            sinew_clip *y = sinew_clip_compress(clip, a->skeleton, &ozz, NULL, &r, &err);
            CHECK(y && r.bytes < 11153 && r.largest <= 0.1f, "at 1 mm at 10 cm in %zu bytes, under ozz's 11,153",
                  r.bytes);
            sinew_clip_free(y);
            test_raw_beside_quantized(clip, a->skeleton);
        }
        sinew_clip_free(z);
        sinew_asset_free(a);
    }
}
#else
static void test_pab(void)
{
    printf("skip: a build without the loaders: the pab clips (FBX) are not compressed\n");
}
#endif

int main(void)
{
    sinew_skeleton *sk = chain();
    CHECK(sk != NULL, "the chain");
    if (!sk) return check_finish("test_compress");
    float even[KEYS], uneven[KEYS];
    for (int k = 0; k < KEYS; ++k) {
        even[k] = (float)k / 30.0f;
        /* hand-keyed curves: keys where the motion needs them */
        uneven[k] = 1.2f * ((float)k / (KEYS - 1)) * ((float)k / (KEYS - 1)) + 0.01f * (float)(k % 3);
    }
    for (int k = 1; k < KEYS; ++k)
        if (uneven[k] <= uneven[k - 1]) uneven[k] = uneven[k - 1] + 0.003f;
    test_sorting_and_bound(sk, even);
    test_sorting_and_bound(sk, uneven);
    test_levels(sk, even);
    test_wide();
    test_half_turn(sk);
    test_interpolations(sk);
    test_additive(sk, even);
    test_refusals(sk, even);
    test_golden();
    test_far_keys(sk);
    test_pab();
    sinew_skeleton_free(sk);
    return check_finish("test_compress");
}
