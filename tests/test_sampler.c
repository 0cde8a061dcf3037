/* SPDX-License-Identifier: MIT */
/* sinew_clip_sample (the sampling plan of src/clip/plan.c) against the
 * reference: every track through sinew_track_sample over the rest pose, for
 * clips made with and without their skeleton (the block layout and the
 * timelines), which must agree bit for bit; sinew_clip_sample_model against
 * sinew_clip_sample then sinew_local_to_model, bit for bit, in one pass
 * where the clip is laid out for the skeleton.
 * Stated tolerance: translations and scales bit for bit; rotations within
 * 1e-6 per component (unit quaternions, so 1e-6 relative); every value bit
 * for bit on a key, before the first key and after the last. And
 * sinew_local_to_model on the poses it gives against parent * TRS, within
 * 1e-6 of the size of each entry's terms. */
#include <sinew/sinew.h>
#include <sinew/sinew_asset.h>
#if defined(SINEW_TEST_FILES)
#include <sinew/sinew_import.h>
#endif

#include "check.h"
#include "clip/clip_internal.h"
#include "clip/plan.h" /* which levels have the plan's kernels */ /* sinew__sampler_run_model: whether the one-pass path is taken */

#include "pose_check.h"
#include "product_error.h"
#if defined(SINEW_TEST_FILES)
#include "shared_asset.h"
#endif

#include <stdlib.h>

static const float ROTATION_TOLERANCE = 1e-6f;
static const double MODEL_TOLERANCE = 1e-6;

/* The reference pose at clip time t (wrapped already). */
static void reference_pose(const sinew_clip *clip, const sinew_skeleton *sk, float t, unsigned flags,
                           sinew_transform *out)
{
    const sinew_transform none = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    for (int j = 0; j < sk->joint_count; ++j) out[j] = clip->additive ? none : sk->rest_pose[j];
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *tr = &clip->tracks[i];
        float v[4];
        if (tr->target == SINEW_TARGET_WEIGHTS) continue;
        sinew_track_sample(tr, t, flags, NULL, v);
        sinew_transform *x = &out[tr->joint];
        float *dst = tr->target == SINEW_TARGET_TRANSLATION ? &x->translation.x
                     : tr->target == SINEW_TARGET_ROTATION  ? &x->rotation.x
                                                            : &x->scale.x;
        memcpy(dst, v, sizeof(float) * (size_t)sinew_track_components(tr));
    }
}

/* The TRS matrix of x without normalizing its rotation (what
 * sinew_local_to_model builds), from the formula of the glTF specification. */
static sinew_mat4 trs(const sinew_transform *x)
{
    sinew_quat q = x->rotation;
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2, yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    sinew_vec3 s = x->scale, t = x->translation;
    return (sinew_mat4){{(1.0f - (yy + zz)) * s.x, (xy + wz) * s.x, (xz - wy) * s.x, 0.0f,
                         (xy - wz) * s.y, (1.0f - (xx + zz)) * s.y, (yz + wx) * s.y, 0.0f,
                         (xz + wy) * s.z, (yz - wx) * s.z, (1.0f - (xx + yy)) * s.z, 0.0f, t.x, t.y, t.z, 1.0f}};
}

/* sinew_local_to_model against parent * TRS with sinew_mat4_mul, each
 * joint on its parent's matrix as computed: the largest entry difference
 * over the size of its terms (sum over k of |parent_rk| |TRS_kc|, plus the
 * parent's translation in the last column). The scalar and SSE2 code sum
 * in sinew_mat4_mul's order (0); AVX2 uses fused multiply-adds. Roots under
 * no matrix, an affine one (its last row's zeros also as -0) and a
 * projective one (the general path); under the affine roots every last row
 * must be (+0, +0, +0, 1) bit for bit. */
static double model_error(const sinew_skeleton *sk, const sinew_transform *local, sinew_mat4 *model)
{
    sinew_transform place = {{1.5f, -2.0f, 0.25f}, {0.1f, 0.7f, -0.1f, 0.7f}, {2.0f, 2.0f, 0.5f}};
    sinew_mat4 affine = trs(&place), negative_zeros = affine, projective = affine;
    negative_zeros.m[3] = negative_zeros.m[7] = negative_zeros.m[11] = -0.0f;
    projective.m[3] = 0.01f, projective.m[15] = 1.5f;
    static const sinew_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    static const float last_row[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    const sinew_mat4 *roots[4] = {NULL, &affine, &negative_zeros, &projective};
    double worst = 0.0;
    int inexact_rows = 0;
    for (int r = 0; r < 4; ++r) {
        sinew_local_to_model(sk, local, roots[r], model, sk->joint_count, NULL);
        for (int j = 0; j < sk->joint_count; ++j) {
            sinew_mat4 l = trs(&local[j]);
            const sinew_mat4 *p = sk->parents[j] >= 0 ? &model[sk->parents[j]] : roots[r] ? roots[r] : &identity;
            double e = product_error(p, &l, &model[j]);
            if (!(e <= worst)) worst = e;
            float row[4] = {model[j].m[3], model[j].m[7], model[j].m[11], model[j].m[15]};
            if (roots[r] != &projective && memcmp(row, last_row, sizeof row) != 0) ++inexact_rows;
        }
    }
    CHECK(inexact_rows == 0, "%d model matrices under affine roots with a last row other than (+0, +0, +0, 1)",
          inexact_rows);
    return worst;
}

typedef struct worst {
    double rotation;  /* largest rotation component difference */
    int vector_diffs; /* translation or scale floats not bit for bit */
    int samples;
} worst;

static void compare(const sinew_transform *got, const sinew_transform *want, int n, bool exact, worst *w,
                    const char *what, float t)
{
    for (int j = 0; j < n; ++j) {
        const float *g = &got[j].translation.x, *r = &want[j].translation.x;
        for (int c = 0; c < 10; ++c) {
            bool rotation = c >= 3 && c < 7;
            if (exact || !rotation) {
                if (memcmp(&g[c], &r[c], sizeof(float)) != 0) {
                    if (w->vector_diffs++ < 5)
                        fprintf(stderr, "%s: t %.9g joint %d float %d: %.9g, reference %.9g\n", what, (double)t, j,
                                c, (double)g[c], (double)r[c]);
                }
            } else {
                double d = fabs((double)g[c] - (double)r[c]);
                if (!(d <= w->rotation)) w->rotation = isnan(d) ? INFINITY : d;
            }
        }
    }
    ++w->samples;
}

/* Forward playback with a cursor, random seeks with the same cursor, no
 * cursor, the keys themselves and times outside the clip; slerp and nlerp. */
static void check_clip(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    int n = sk->joint_count;
    sinew_transform *got = malloc(sizeof *got * (size_t)n), *want = malloc(sizeof *want * (size_t)n);
    int32_t *keys = calloc((size_t)clip->track_count + 1, sizeof *keys);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    double model_worst = 0.0;
    CHECK(got && want && keys && model, "memory");
    if (!got || !want || !keys || !model) goto done;
    for (int nlerp = 0; nlerp < 2; ++nlerp) {
        unsigned flags = nlerp ? SINEW_SAMPLE_NLERP : 0;
        sinew_cursor cursor = {keys, clip->track_count};
        worst w = {0};
        sinew_error err;
        unsigned seed = 7;
        for (int i = 0; i < 600; ++i) {
            float t;
            if (i < 300) { /* forward at 1/60 s past the end */
                t = (float)i / 60.0f * (clip->duration + 0.1f) / 5.0f - 0.05f;
            } else {
                seed = seed * 1664525u + 1013904223u;
                t = (clip->duration + 0.2f) * (float)(seed >> 8) / 16777216.0f - 0.1f;
            }
            sinew_cursor *c = i % 3 == 2 ? NULL : &cursor;
            CHECK(sinew_clip_sample(clip, sk, t, flags, c, got, n, &err) == SINEW_OK, "%s: %s", what,
                  err.description);
            reference_pose(clip, sk, sinew_clip_time(clip, t, flags), flags, want);
            compare(got, want, n, false, &w, what, t);
            if (i % 10 == 0) {
                double e = model_error(sk, got, model);
                if (!(e <= model_worst)) model_worst = e;
            }
        }
        /* on every key of every track, and beyond both ends: the keys bit for bit */
        for (int i = 0; i < clip->track_count; ++i) {
            const sinew_track *tr = &clip->tracks[i];
            for (int k = 0; k < tr->key_count; ++k) {
                float t = tr->times[k];
                sinew_clip_sample(clip, sk, t, flags, &cursor, got, n, NULL);
                reference_pose(clip, sk, sinew_clip_time(clip, t, flags), flags, want);
                const float *g = &got[tr->joint].translation.x, *r = &want[tr->joint].translation.x;
                int at = tr->target == SINEW_TARGET_TRANSLATION ? 0 : tr->target == SINEW_TARGET_ROTATION ? 3 : 7;
                if (tr->target != SINEW_TARGET_WEIGHTS &&
                    memcmp(g + at, r + at, sizeof(float) * (size_t)sinew_track_components(tr)) != 0)
                    w.vector_diffs++;
            }
        }
        for (int side = 0; side < 2; ++side) {
            float t = side ? clip->duration + 1.0f : -1.0f;
            sinew_clip_sample(clip, sk, t, flags, &cursor, got, n, NULL);
            reference_pose(clip, sk, sinew_clip_time(clip, t, flags), flags, want);
            compare(got, want, n, true, &w, what, t);
        }
        CHECK(w.vector_diffs == 0, "%s (%s): %d values differ from the reference where they must be bit for bit",
              what, nlerp ? "nlerp" : "slerp", w.vector_diffs);
        CHECK(w.rotation <= ROTATION_TOLERANCE, "%s (%s): rotations differ from the reference by %.3g (tolerance %g)",
              what, nlerp ? "nlerp" : "slerp", w.rotation, (double)ROTATION_TOLERANCE);
        printf("%s (%s): %d samples, rotations within %.2g of the reference\n", what, nlerp ? "nlerp" : "slerp",
               w.samples, w.rotation);
    }
    CHECK(model_worst <= MODEL_TOLERANCE, "%s: model matrices %.3g of their terms' size off parent * TRS (tolerance %g)",
          what, model_worst, MODEL_TOLERANCE);
    printf("%s: model matrices within %.2g of parent * TRS\n", what, model_worst);
done:
    free(got), free(want), free(keys), free(model);
}

/* Whether the clip's translation, rotation and scale tracks are all LINEAR
 * on one set of key times or constant (one key, not CUBICSPLINE, no -0 in a
 * translation or scale), one at least with more keys, and fill a third of
 * the floats of sk's blocks (what the block layout takes). */
static bool baked(const sinew_clip *clip, const sinew_skeleton *sk)
{
    const sinew_track *first = NULL;
    int filled = 0;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        filled += t->target == SINEW_TARGET_ROTATION ? 4 : 3;
        if (t->key_count == 1) {
            if (t->interpolation == SINEW_INTERP_CUBICSPLINE) return false;
            for (int c = 0; c < 3 && t->target != SINEW_TARGET_ROTATION; ++c)
                if (t->values[c] == 0.0f && signbit(t->values[c])) return false;
            continue;
        }
        if (t->interpolation != SINEW_INTERP_LINEAR) return false;
        if (first && (t->key_count != first->key_count ||
                      memcmp(t->times, first->times, sizeof(float) * (size_t)t->key_count) != 0))
            return false;
        if (!first) first = t;
    }
    return first != NULL && 3 * filled >= sinew__skeleton_of(sk)->schedule_length * 10;
}

/* A model array's memory as transforms to sample into (n matrices hold
 * more than n transforms). */
static sinew_transform *model_only_scratch(sinew_mat4 *model) { return (sinew_transform *)(void *)model; }

/* sinew_clip_sample_model against sinew_clip_sample then
 * sinew_local_to_model: local poses and model matrices bit for bit, under
 * no root matrix, an affine one and a projective one, forward, by random
 * seeks and on keys; `one_pass`: whether the clip must take the one-pass
 * path on this skeleton (affine roots). `twin` samples the same tracks
 * (the clip made the other way) and must give the same local poses to the
 * reference's tolerance: translations and scales bit for bit, rotations
 * within 1e-6 (a one-key rotation is its key as stored in the timelines,
 * interpolated between equal keys in the block layout). And without a
 * local pose, into a poisoned buffer: the same matrices bit for bit in one
 * pass, else those of the reference's formulas (sinew_local_to_model on
 * the skeleton made at the scalar level) bit for bit. And
 * sinew_clip_sample_pose: the local pose in the skeleton's pose order, bit
 * for bit, written directly exactly where the one pass runs. */
static void check_sample_model(const sinew_clip *clip, const sinew_clip *twin, const sinew_skeleton *sk,
                               bool one_pass, const char *what)
{
    int n = sk->joint_count, model_only_diffs = 0;
    sinew_transform *local = malloc(sizeof *local * (size_t)n), *want = malloc(sizeof *want * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *want_model = malloc(sizeof *want_model * (size_t)n);
    sinew_mat4 *model_only = malloc(sizeof *model_only * (size_t)n), *in_order = malloc(sizeof *in_order * (size_t)n);
    int *parents = malloc(sizeof *parents * (size_t)n);
    int lanes = sinew_skeleton_pose_order(sk, NULL), pose_diffs = 0, pose_direct = 0, pose_refused = 0;
    float *pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(lanes)), *want_pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(lanes));
    sinew_skeleton *scalar = NULL;
    CHECK(local && want && model && want_model && model_only && in_order && parents && pose && want_pose, "memory");
    if (!local || !want || !model || !want_model || !model_only || !in_order || !parents || !pose || !want_pose)
        goto done;
    for (int j = 0; j < n; ++j) parents[j] = sk->parents[j];
    scalar = sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, sk->rest_pose}, NULL,
                                   &(sinew_options){.simd = SINEW_SIMD_SCALAR}, NULL);
    CHECK(scalar != NULL, "%s: the skeleton at the scalar level", what);
    if (!scalar) goto done;
    sinew_transform place = {{1.5f, -2.0f, 0.25f}, {0.1f, 0.7f, -0.1f, 0.7f}, {2.0f, 2.0f, 0.5f}};
    sinew_mat4 affine = trs(&place), projective = affine;
    projective.m[3] = 0.01f, projective.m[15] = 1.5f;
    const sinew_mat4 *roots[3] = {NULL, &affine, &projective};
    int local_diffs = 0, model_diffs = 0, paths = 0, samples = 0;
    worst twin_worst = {0};
    unsigned seed = 3;
    for (int i = 0; i < 240; ++i) {
        unsigned flags = i % 2 ? SINEW_SAMPLE_NLERP : 0;
        const sinew_track *tr = &clip->tracks[i % (clip->track_count ? clip->track_count : 1)];
        float t;
        if (i < 100) {
            t = (float)i / 60.0f - 0.05f;
        } else if (i < 200 || clip->track_count == 0) {
            seed = seed * 1664525u + 1013904223u;
            t = (clip->duration + 0.2f) * (float)(seed >> 8) / 16777216.0f - 0.1f;
        } else {
            t = tr->times[(i * 7) % tr->key_count];
        }
        const sinew_mat4 *root = roots[i % 3];
        sinew_error err;
        CHECK(sinew_clip_sample_model(clip, sk, t, flags, NULL, root, local, model, n, &err) == SINEW_OK, "%s: %s",
              what, err.description);
        sinew_clip_sample(clip, sk, t, flags, NULL, want, n, NULL);
        sinew_local_to_model(sk, want, root, want_model, n, NULL);
        local_diffs += memcmp(local, want, sizeof *local * (size_t)n) != 0;
        model_diffs += memcmp(model, want_model, sizeof *model * (size_t)n) != 0;
        for (int j = 0; j < n; ++j)
            for (int e = 0; e < 16; ++e) model_only[j].m[e] = NAN;
        CHECK(sinew_clip_sample_model(clip, sk, t, flags, NULL, root, NULL, model_only, n, &err) == SINEW_OK,
              "%s without a local pose: %s", what, err.description);
        sinew_local_to_model(scalar, want, root, in_order, n, NULL);
        /* the one pass's, the two calls' with the local pose on the stack,
         * or the reference formulas' in place */
        bool as_two_calls = (one_pass && root != &projective) || n <= SINEW_SAMPLE_STACK_JOINTS;
        model_only_diffs +=
            memcmp(model_only, as_two_calls ? want_model : in_order, sizeof *model_only * (size_t)n) != 0;
        /* the SoA pose in the skeleton's pose order: every lane written
         * (over NaN), bit for bit the transforms converted; through the
         * caller's transforms half the time, through none (the stack, or
         * refused past it) otherwise */
        for (size_t f = 0; f < SINEW_POSE_FLOATS(lanes); ++f) pose[f] = NAN;
        sinew_pose_order_from_transforms(sk, want, n, want_pose, NULL);
        sinew_result pr = sinew_clip_sample_pose(clip, sk, t, flags, NULL, i % 2 ? model_only_scratch(model_only) : NULL,
                                                 pose, lanes, &err);
        if (pr == SINEW_ERROR_BUFFER_TOO_SMALL && i % 2 == 0 && n > SINEW_SAMPLE_STACK_JOINTS && !one_pass)
            ++pose_refused;
        else
            pose_diffs += pr != SINEW_OK || memcmp(pose, want_pose, sizeof(float) * SINEW_POSE_FLOATS(lanes)) != 0;
        pose_direct += sinew__sampler_run_pose(sinew__clip_of(clip)->sampler, sinew_clip_time(clip, t, flags), flags,
                                               NULL, sk, pose);
        if (twin) {
            sinew_clip_sample(twin, sk, t, flags, NULL, want, n, NULL);
            compare(local, want, n, false, &twin_worst, what, t);
        }
        if (root != &projective) {
            bool fused = sinew__sampler_run_model(sinew__clip_of(clip)->sampler, sinew_clip_time(clip, t, flags), flags, NULL, sk,
                                                  root, local, model);
            paths += fused != one_pass;
        }
        ++samples;
    }
    CHECK(local_diffs == 0 && model_diffs == 0,
          "%s: sinew_clip_sample_model differs from sample then local to model (%d local poses, %d model poses of "
          "%d)", what, local_diffs, model_diffs, samples);
    CHECK(twin_worst.vector_diffs == 0 && twin_worst.rotation <= ROTATION_TOLERANCE,
          "%s: the clip made with and without its skeleton differ: %d translation or scale floats, rotations by %g",
          what, twin_worst.vector_diffs, twin_worst.rotation);
    CHECK(paths == 0, "%s: %d samples %s the one-pass path", what, paths, one_pass ? "missed" : "took");
    CHECK(pose_diffs == 0, "%s: sinew_clip_sample_pose differs from sample then sinew_pose_order_from_transforms "
          "in %d of %d samples", what, pose_diffs, samples);
    CHECK(pose_direct == (one_pass ? samples : 0), "%s: %d of %d samples wrote the pose order directly, expected %s",
          what, pose_direct, samples, one_pass ? "all" : "none");
    CHECK(pose_refused == (n > SINEW_SAMPLE_STACK_JOINTS && !one_pass ? samples / 2 : 0),
          "%s: %d samples refused without transforms to sample into", what, pose_refused);
    CHECK(model_only_diffs == 0, "%s: without a local pose, %d of %d model poses differ from %s", what,
          model_only_diffs, samples,
          n <= SINEW_SAMPLE_STACK_JOINTS ? "the two calls'" : "the one pass's or the reference's formulas'");
    printf("%s: sample to model %s, %d samples bit for bit as the two calls%s\n", what,
           one_pass ? "in one pass" : "by the two calls", samples, twin ? ", as the twin clip" : "");
done:
    free(local), free(want), free(model), free(want_model), free(model_only), free(in_order), free(parents);
    free(pose), free(want_pose);
    sinew_skeleton_free(scalar);
}

/* check_clip at every SIMD level this CPU runs: the clip and the skeleton
 * made again with options.simd at that level (the scalar level is the
 * reference's own formulas, and local to model's SSE2 code), the clip both
 * without and with the skeleton (sinew_clip_desc.skeleton: the block layout
 * where the tracks and the level allow it). And the clip on a skeleton of
 * other parents (every joint a root): the two calls; on a skeleton of the
 * same parents and another rest pose (translations 1.25 times as long, 0
 * turned into -0): the values the tracks leave out from that rest pose, not
 * from the block layout's copy of the first's; and made for that skeleton:
 * its copy, with -0 values that a constant block's sampling would turn into
 * +0 (so those blocks blend it in). */
static void check_clip_levels(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    int n = sk->joint_count;
    int *parents = malloc(sizeof *parents * (size_t)n), *roots = malloc(sizeof *roots * (size_t)n);
    sinew_transform *rest = malloc(sizeof *rest * (size_t)n);
    CHECK(parents && roots && rest, "memory");
    if (!parents || !roots || !rest) goto done;
    for (int j = 0; j < n; ++j) parents[j] = sk->parents[j], roots[j] = -1;
    for (sinew_simd level = SINEW_SIMD_SCALAR; level <= sinew_simd_supported(); ++level) {
        sinew_options options = {.simd = level};
        sinew_error err;
        sinew_skeleton *s = sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, sk->rest_pose}, NULL,
                                                  &options, &err);
        CHECK(s != NULL, "%s: skeleton at %s: %s", what, sinew_simd_name(level), err.description);
        sinew_skeleton *flat = sinew_skeleton_create(&(sinew_skeleton_desc){n, roots, sk->names, sk->rest_pose},
                                                     NULL, &options, &err);
        CHECK(flat != NULL, "%s: flat skeleton at %s: %s", what, sinew_simd_name(level), err.description);
        for (int j = 0; j < n; ++j) {
            rest[j] = sk->rest_pose[j];
            float *t = &rest[j].translation.x;
            for (int c = 0; c < 3; ++c) t[c] = t[c] == 0.0f ? -0.0f : 1.25f * t[c];
        }
        sinew_skeleton *moved =
            sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, rest}, NULL, &options, &err);
        CHECK(moved != NULL, "%s: moved skeleton at %s: %s", what, sinew_simd_name(level), err.description);
        sinew_clip_desc d = {.name = clip->name, .duration = clip->duration, .joint_count = clip->joint_count,
                             .track_count = clip->track_count, .tracks = clip->tracks, .additive = clip->additive};
        sinew_clip *c = sinew_clip_create(&d, &options, &err);
        CHECK(c != NULL, "%s: clip at %s: %s", what, sinew_simd_name(level), err.description);
        d.skeleton = s;
        sinew_clip *bound = s ? sinew_clip_create(&d, &options, &err) : NULL;
        CHECK(bound != NULL, "%s: clip for its skeleton at %s: %s", what, sinew_simd_name(level), err.description);
        d.skeleton = moved;
        sinew_clip *bound_moved = moved ? sinew_clip_create(&d, &options, &err) : NULL;
        CHECK(bound_moved != NULL, "%s: clip for the moved skeleton at %s: %s", what, sinew_simd_name(level),
              err.description);
        char label[512];
        if (s && c && bound && flat) {
            bool one_pass = sinew__plan_kernels_for(level) && baked(clip, s);
            snprintf(label, sizeof label, "%s [%s]", what, sinew_simd_name(level));
            check_clip(c, s, label);
            check_sample_model(c, NULL, s, false, label);
            snprintf(label, sizeof label, "%s [%s, made for its skeleton]", what, sinew_simd_name(level));
            check_clip(bound, s, label);
            check_sample_model(bound, c, s, one_pass, label);
            /* other parents, unless every joint is a root already (the same schedule) */
            bool all_roots = true;
            for (int j = 0; j < n; ++j) all_roots = all_roots && parents[j] < 0;
            snprintf(label, sizeof label, "%s [%s, made for its skeleton, on another]", what, sinew_simd_name(level));
            check_sample_model(bound, c, flat, one_pass && all_roots, label);
        }
        if (s && c && bound && moved && bound_moved) {
            bool one_pass = sinew__plan_kernels_for(level) && baked(clip, s);
            snprintf(label, sizeof label, "%s [%s, made for its skeleton, on another rest pose]", what,
                     sinew_simd_name(level));
            check_clip(bound, moved, label);
            check_sample_model(bound, c, moved, one_pass, label);
            snprintf(label, sizeof label, "%s [%s, made for a rest pose with -0]", what, sinew_simd_name(level));
            check_clip(bound_moved, moved, label);
            check_sample_model(bound_moved, c, moved, one_pass, label);
        }
        sinew_clip_free(c), sinew_clip_free(bound), sinew_clip_free(bound_moved);
        sinew_skeleton_free(s), sinew_skeleton_free(flat), sinew_skeleton_free(moved);
    }
done:
    free(parents), free(roots), free(rest);
}

#if defined(SINEW_TEST_FILES)
/* The clip optimized (sinew_clip_optimize, tolerances of 1e-3 units,
 * 1e-5 rad, 1e-5) for sk: its samples within the tolerance of the clip's
 * (at the SIMD level of both; rotations also within the reference's
 * tolerance for the two sampling paths), still joints in constant blocks
 * where the block layout holds it, and check_clip_levels on it. */
static void check_optimized(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    const sinew_clip_tolerance tol = {1e-3f, 1e-5f, 1e-5f};
    sinew_optimize_report rep;
    sinew_error err;
    sinew_clip *o = sinew_clip_optimize(clip, &tol, sk, NULL, &rep, &err);
    CHECK(o != NULL, "%s optimized: %s", what, err.description);
    if (!o) return;
    int n = sk->joint_count;
    sinew_transform *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    CHECK(a && b, "memory");
    double moved[3] = {0, 0, 0};
    for (int i = 0; a && b && i < 300; ++i) {
        float t = (o->duration + 0.1f) * (float)i / 300.0f - 0.05f;
        sinew_clip_sample(clip, sk, t, 0, NULL, a, n, NULL);
        sinew_clip_sample(o, sk, t, 0, NULL, b, n, NULL);
        pose_diff_parts(a, b, n, moved);
    }
    /* rotations: the tolerance and the two samplings' roundings */
    CHECK(moved[0] <= tol.translation && moved[1] <= tol.rotation + 1e-6 && moved[2] <= tol.scale,
          "%s optimized: samples %g, %g rad, %g from the clip's", what, moved[0], moved[1], moved[2]);
    bool blocks = sinew__plan_kernels_for(sinew__skeleton_of(sk)->simd) && baked(o, sk);
    int constant = sinew__sampler_constant_blocks(sinew__clip_of(o)->sampler);
    CHECK(rep.constant_tracks > 0 && (!blocks || constant > 0), "%s optimized: %d constant tracks, %d constant blocks",
          what, rep.constant_tracks, constant);
    printf("%s optimized: %d of %d tracks constant, %d constant blocks, %zu -> %zu bytes, samples within %g, %g rad, %g\n",
           what, rep.constant_tracks, clip->track_count, constant, sinew_clip_bytes(clip), sinew_clip_bytes(o), moved[0],
           moved[1], moved[2]);
    char label[256];
    snprintf(label, sizeof label, "%s optimized", what);
    check_clip_levels(o, sk, label);
    free(a), free(b);
    sinew_clip_free(o);
}

static void test_file(const char *path, const char *anim)
{
    sinew_asset *a, *b;
    if (!test_load_with_anim(path, anim, &a, &b)) return;
    if (b) {
        sinew_error err;
        sinew_clip *c = sinew_clip_retarget(b->clips[0], b->skeleton, a->skeleton, NULL, NULL, &err);
        CHECK(c != NULL, "%s on %s: %s", anim, path, err.description);
        if (c) check_clip_levels(c, a->skeleton, anim);
        if (c) CHECK(sinew_clip_bytes(c) > 0, "clip bytes");
        if (c) check_optimized(c, a->skeleton, anim);
        sinew_clip_free(c);
    }
    for (int i = 0; i < a->clip_count; ++i) check_clip_levels(a->clips[i], a->skeleton, path);
    sinew_asset_free(b);
    sinew_asset_free(a);
}
#endif

/* check_clip_levels on the clip and on its additive twin (over the rest
 * pose), labelled `what` and `what` additive. */
static void check_with_additive(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    check_clip_levels(clip, sk, what);
    sinew_error err;
    sinew_clip *add = sinew_clip_make_additive(clip, sk, SINEW_ADDITIVE_REST_POSE, NULL, &err);
    CHECK(add != NULL, "%s additive: %s", what, err.description);
    char label[256];
    snprintf(label, sizeof label, "%s additive", what);
    if (add) check_clip_levels(add, sk, label);
    sinew_clip_free(add);
}

/* Tracks on different timelines (one filling most of the pose, one of two
 * joints far apart: an image frame and a packed one), counts that are not a multiple of the
 * SIMD width, one-key tracks, keys a half-turn and more apart (the series
 * gives way to the reference slerp), opposite hemispheres (the shortest
 * path), STEP and CUBICSPLINE beside LINEAR, and an additive clip. */
static void test_synthetic(void)
{
    enum { JOINTS = 11, KEYS = 9 };
    int parents[JOINTS];
    sinew_transform rest[JOINTS];
    for (int j = 0; j < JOINTS; ++j) {
        parents[j] = j - 1;
        rest[j] = (sinew_transform){{0.1f * (float)j, 1, 0}, {0, 0, 0.6f, 0.8f}, {1, 2, 3}};
    }
    sinew_error err;
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){JOINTS, parents, NULL, rest}, NULL, NULL, &err);
    CHECK(sk != NULL, "skeleton: %s", err.description);
    if (!sk) return;
    float times_a[KEYS], times_b[KEYS], one_time[1] = {0.5f};
    float cubic_times[3] = {0.0f, 0.4f, 1.0f};
    static float values[JOINTS * 3][KEYS * 4], cubic[3 * 3 * 4], one_value[4] = {0.0f, 0.6f, 0.0f, 0.8f};
    for (int k = 0; k < KEYS; ++k) times_a[k] = 0.125f * (float)k, times_b[k] = 0.1f * (float)k + 0.05f * (float)(k % 2);
    sinew_track tracks[JOINTS * 3 + 2];
    int nt = 0;
    unsigned seed = 99;
    for (int j = 0; j < JOINTS; ++j) {
        for (int target = 0; target < 3; ++target) {
            if ((j + target) % 4 == 3) continue; /* some values left to the rest pose */
            float *v = values[nt];
            int c = target == SINEW_TARGET_ROTATION ? 4 : 3;
            for (int k = 0; k < KEYS; ++k) {
                for (int i = 0; i < c; ++i) {
                    seed = seed * 1664525u + 1013904223u;
                    v[k * c + i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
                }
                if (c == 4) { /* rotations: joints 0-3 far apart keys, the rest close; some flipped */
                    float spread = j < 4 ? 1.0f : 0.05f;
                    float *q = &v[k * 4];
                    q[0] *= spread, q[1] *= spread, q[2] *= spread, q[3] = 1.0f;
                    if ((k + j) % 3 == 0) q[0] = -q[0], q[1] = -q[1], q[2] = -q[2], q[3] = -q[3];
                    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                    for (int i = 0; i < 4; ++i) q[i] /= len;
                }
            }
            tracks[nt++] = (sinew_track){.joint = j, .target = (sinew_track_target)target,
                .interpolation = j == 9 ? SINEW_INTERP_STEP : SINEW_INTERP_LINEAR,
                .key_count = KEYS, .times = j == 1 || j == 7 ? times_b : times_a, .values = v};
        }
    }
    /* joint 10: a one-key rotation (replacing its own) and a cubic translation */
    for (int i = 0; i < nt; ++i)
        if (tracks[i].joint == 10 && tracks[i].target == SINEW_TARGET_ROTATION)
            tracks[i] = (sinew_track){.joint = 10, .target = SINEW_TARGET_ROTATION, .key_count = 1,
                                      .times = one_time, .values = one_value};
    for (int i = 0; i < 36; ++i) cubic[i] = 0.1f * (float)(i % 7) - 0.2f;
    for (int i = 0; i < nt; ++i)
        if (tracks[i].joint == 10 && tracks[i].target == SINEW_TARGET_TRANSLATION) {
            tracks[i] = (sinew_track){.joint = 10, .target = SINEW_TARGET_TRANSLATION,
                                      .interpolation = SINEW_INTERP_CUBICSPLINE, .key_count = 3,
                                      .times = cubic_times, .values = cubic};
        }
    sinew_clip *clip = sinew_clip_create(&(sinew_clip_desc){.name = "synthetic", .joint_count = JOINTS,
                                                            .track_count = nt, .tracks = tracks}, NULL, &err);
    CHECK(clip != NULL, "clip: %s", err.description);
    if (clip) check_with_additive(clip, sk, "synthetic");
    sinew_clip_free(clip);
    /* the tracks made LINEAR on the first timeline, what the block layout
     * takes: some values still left to the rest pose, far apart keys,
     * joint 10 given a LINEAR translation and rotation */
    int baked_count = 0;
    for (int i = 0; i < nt; ++i)
        if (tracks[i].joint != 10) {
            tracks[baked_count] = tracks[i];
            tracks[baked_count].times = times_a, tracks[baked_count++].interpolation = SINEW_INTERP_LINEAR;
        }
    tracks[baked_count++] = (sinew_track){.joint = 10, .target = SINEW_TARGET_TRANSLATION, .key_count = KEYS,
                                          .times = times_a, .values = values[0]};
    tracks[baked_count++] = (sinew_track){.joint = 10, .target = SINEW_TARGET_ROTATION, .key_count = KEYS,
                                          .times = times_a, .values = values[1]};
    clip = sinew_clip_create(&(sinew_clip_desc){.name = "synthetic baked", .joint_count = JOINTS,
                                                .track_count = baked_count, .tracks = tracks}, NULL, &err);
    CHECK(clip != NULL, "baked clip: %s", err.description);
    if (clip) {
        CHECK(baked(clip, sk), "the baked clip is not baked");
        check_with_additive(clip, sk, "synthetic baked");
    }
    sinew_clip_free(clip);
    /* the baked tracks with joints 6 to 10 still (the chain's end, so that
     * they fill the last block: one with values left to the rest pose,
     * joint 9's scale and joint 10's translation, whose 0 check_clip_levels
     * turns into -0 on a skeleton of its own): one key on even joints, every
     * key the same on odd ones (joint 9's translation x -0); then a one-key
     * -0 translation, which the block layout does not take */
    for (int i = 0; i < baked_count; ++i)
        if (tracks[i].joint == 10 && tracks[i].target == SINEW_TARGET_TRANSLATION) tracks[i--] = tracks[--baked_count];
    static float still[JOINTS * 3][KEYS * 4];
    for (int i = 0; i < baked_count; ++i) {
        if (tracks[i].joint < 6) continue;
        int c = tracks[i].target == SINEW_TARGET_ROTATION ? 4 : 3;
        for (int k = 0; k < KEYS; ++k)
            for (int e = 0; e < c; ++e) still[i][k * c + e] = tracks[i].values[e];
        if (tracks[i].joint == 9 && tracks[i].target == SINEW_TARGET_TRANSLATION)
            for (int k = 0; k < KEYS; ++k) still[i][k * c] = -0.0f;
        tracks[i].values = still[i];
        if (tracks[i].joint % 2 == 0) tracks[i].key_count = 1;
    }
    for (int negative_zero = 0; negative_zero < 2; ++negative_zero) {
        if (negative_zero)
            for (int i = 0; i < baked_count; ++i)
                if (tracks[i].joint == 8 && tracks[i].target == SINEW_TARGET_TRANSLATION) still[i][1] = -0.0f;
        const char *name = negative_zero ? "synthetic still, one-key -0" : "synthetic still";
        clip = sinew_clip_create(&(sinew_clip_desc){.name = name, .joint_count = JOINTS, .track_count = baked_count,
                                                    .tracks = tracks, .skeleton = sk}, NULL, &err);
        CHECK(clip != NULL, "%s: %s", name, err.description);
        if (!clip) continue;
        bool blocks = sinew__plan_kernels_for(sinew__skeleton_of(sk)->simd) != NULL;
        CHECK(baked(clip, sk) == !negative_zero, "%s: the block layout's rule", name);
        int constant = sinew__sampler_constant_blocks(sinew__clip_of(clip)->sampler);
        CHECK(constant == (blocks && !negative_zero ? 1 : 0), "%s: %d constant blocks", name, constant);
        check_with_additive(clip, sk, name);
        sinew_clip_free(clip);
    }
    /* one track on a large skeleton: the timelines (the block layout would
     * hold every joint's floats at every key), and as few bytes either way */
    {
        enum { BIG = 2000 };
        static int big_parents[BIG];
        for (int j = 0; j < BIG; ++j) big_parents[j] = j - 1;
        sinew_skeleton *big = sinew_skeleton_create(&(sinew_skeleton_desc){BIG, big_parents, NULL, NULL}, NULL, NULL,
                                                    &err);
        CHECK(big != NULL, "big skeleton: %s", err.description);
        sinew_track one = {.joint = BIG / 2, .target = SINEW_TARGET_ROTATION, .key_count = KEYS, .times = times_a,
                           .values = values[1]};
        sinew_clip_desc d = {.name = "sparse", .joint_count = BIG, .track_count = 1, .tracks = &one};
        sinew_clip *alone = big ? sinew_clip_create(&d, NULL, &err) : NULL;
        d.skeleton = big;
        sinew_clip *bound = big ? sinew_clip_create(&d, NULL, &err) : NULL;
        CHECK(alone && bound, "sparse clips: %s", err.description);
        if (alone && bound) {
            CHECK(sinew_clip_bytes(bound) == sinew_clip_bytes(alone),
                  "a sparse clip made for a 2000-joint skeleton holds %zu bytes, without it %zu",
                  sinew_clip_bytes(bound), sinew_clip_bytes(alone));
            check_sample_model(bound, alone, big, false, "sparse clip on 2000 joints");
        }
        sinew_clip_free(alone), sinew_clip_free(bound);
        sinew_skeleton_free(big);
    }
    /* a skeleton of another joint count */
    clip = sinew_clip_create(&(sinew_clip_desc){.name = "wrong skeleton", .joint_count = JOINTS - 1,
                                                .skeleton = sk}, NULL, &err);
    CHECK(clip == NULL && err.result == SINEW_ERROR_SIZE_MISMATCH && strstr(err.description, "wrong skeleton"),
          "a clip for a skeleton of another joint count: %s", clip ? "made" : err.description);
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
}

int main(void)
{
    test_synthetic();
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "demo: %s", err.description);
    if (demo)
        for (int i = 0; i < demo->clip_count; ++i) check_clip_levels(demo->clips[i], demo->skeleton, "built-in character");
    sinew_asset_free(demo);
#if defined(SINEW_TEST_FILES)
    test_file(SINEW_ASSETS "/gltf/cesium_man.gltf", NULL);
    test_file(SINEW_ASSETS "/gltf/interpolation_test.gltf", NULL);
    test_file(SINEW_ASSETS "/gltf/box_animated.gltf", NULL);
    test_file(SINEW_ASSETS "/fbx/pab/arnaud.fbx", SINEW_ASSETS "/fbx/pab/walk.fbx");
    test_file(SINEW_ASSETS "/fbx/pab/arnaud.fbx", SINEW_ASSETS "/fbx/pab/run.fbx");
#else
    printf("skip: a build without the loaders: the shared assets are not sampled\n");
#endif
    return check_finish("test_sampler");
}
