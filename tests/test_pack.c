/* SPDX-License-Identifier: MIT */
/* sinew_clip_pack: packed clips against the clips they were packed from.
 *
 * Stated tolerance: each packed key lies within range / 65,535 of the
 * clip's per component (range: that component's over the track's keys),
 * a rotation's after normalizing within twice its components' error as an
 * angle; sinew_pack_report says how far they lie, and every sample of the
 * packed clip (on keys, between them, before and after, slerp and nlerp, on
 * the skeleton it was packed for and on others) lies within the report's
 * figures of the clip's sample, plus rounding (1e-6 of the values' size,
 * 2e-6 rad). Across SIMD levels the packed clip's translations and scales
 * agree bit for bit and its rotations within 1e-6 per component (what the
 * clip's own kernels keep); sinew_clip_sample_model gives
 * sinew_clip_sample then sinew_local_to_model bit for bit. The golden
 * packed walk, packed on a build machine (tests/archive), samples here
 * within the same bounds of the built-in walk. */
#include <sinew/sinew.h>
#include <sinew/sinew_archive.h>

#include "check.h"
#include "count_alloc.h"
#include "pose_check.h"
#if defined(SINEW_TEST_FILES)
#include <sinew/sinew_import.h>
#include "shared_asset.h"
#endif

#include <float.h>
#include <stdlib.h>

enum { TIMES = 240 };

/* How far a packed key may lie from the clip's: per kind, the largest over
 * the clip's animated tracks of (each component's range over the keys) /
 * 65,535 combined as the report measures (translation distance, rotation
 * angle: twice the quaternion's distance, scale component), and the
 * largest magnitude of any value (for rounding). */
typedef struct bounds {
    double error[3];
    double magnitude;
} bounds;

static bounds pack_bounds(const sinew_clip *clip)
{
    bounds b = {{0, 0, 0}, 1.0};
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        int c = sinew_track_components(t);
        double sum = 0.0, largest = 0.0;
        for (int k = 0; k < c; ++k) {
            double lo = t->values[k], hi = t->values[k];
            for (int key = 0; key < t->key_count; ++key) {
                double v = t->values[(size_t)key * (size_t)c + (size_t)k];
                /* comparisons, not fmin and fmax: Debian's aarch64 GCC 12
                 * crashes vectorizing the two at -O3 (a clip holds no NaN) */
                lo = v < lo ? v : lo, hi = v > hi ? v : hi;
                b.magnitude = fmax(b.magnitude, fabs(v));
            }
            double e = (hi - lo) / 65535.0;
            sum += e * e, largest = fmax(largest, e);
        }
        double e = t->target == SINEW_TARGET_SCALE ? largest : sqrt(sum);
        if (t->target == SINEW_TARGET_ROTATION) e *= 2.0;
        if (e > b.error[t->target]) b.error[t->target] = e;
    }
    return b;
}

/* Whether packing takes the clip: its translation, rotation and scale
 * tracks LINEAR on one set of key times, or single keys (not CUBICSPLINE). */
static bool packable(const sinew_clip *clip)
{
    const sinew_track *first = NULL;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        if (t->interpolation == SINEW_INTERP_CUBICSPLINE) return false;
        if (t->key_count == 1) continue;
        if (t->interpolation != SINEW_INTERP_LINEAR) return false;
        if (first && (first->key_count != t->key_count ||
                      memcmp(first->times, t->times, sizeof(float) * (size_t)t->key_count) != 0))
            return false;
        if (!first) first = t;
    }
    return true;
}

/* A copy of sk made at `level`, with its parents (or every joint a root)
 * and its rest pose (or one with translations moved). */
static sinew_skeleton *skeleton_at(const sinew_skeleton *sk, sinew_simd level, bool flat, bool moved)
{
    int n = sk->joint_count;
    int *parents = malloc(sizeof *parents * ((size_t)n + 1));
    sinew_transform *rest = malloc(sizeof *rest * ((size_t)n + 1));
    sinew_skeleton *out = NULL;
    if (parents && rest) {
        for (int j = 0; j < n; ++j) {
            parents[j] = flat ? -1 : sk->parents[j];
            rest[j] = sk->rest_pose[j];
            if (moved) rest[j].translation = sinew_vec3_scale(rest[j].translation, 1.25f);
        }
        sinew_options options = {.simd = level};
        sinew_error err;
        out = sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, rest}, NULL, &options, &err);
        CHECK(out != NULL, "skeleton at %s: %s", sinew_simd_name(level), err.description);
    }
    free(parents), free(rest);
    return out;
}

/* The packed clip's samples against the clip's on skeleton s, at TIMES
 * times and on every key, by slerp and nlerp: within the report's figures.
 * Writes the packed local poses to `poses` ([2][TIMES + keys][n]) when not
 * NULL. */
static void check_samples(const sinew_clip *clip, const sinew_clip *packed, const sinew_skeleton *s,
                          const sinew_pack_report *rep, const bounds *b, sinew_transform *poses, const char *what)
{
    int n = s->joint_count;
    sinew_transform *want = malloc(sizeof *want * (size_t)n), *got = malloc(sizeof *got * (size_t)n);
    CHECK(want && got, "memory");
    if (!want || !got) goto done;
    /* the key times of the first animated track */
    const sinew_track *keyed = NULL;
    for (int i = 0; i < clip->track_count && !keyed; ++i)
        if (clip->tracks[i].target != SINEW_TARGET_WEIGHTS && clip->tracks[i].key_count > 1) keyed = &clip->tracks[i];
    int keys = keyed ? keyed->key_count : 0, count = TIMES + keys;
    double worst[2][3] = {{0, 0, 0}, {0, 0, 0}};
    for (int nl = 0; nl < 2; ++nl)
        for (int i = 0; i < count; ++i) {
            float t = i < TIMES ? (clip->duration + 0.1f) * (float)i / TIMES - 0.05f : keyed->times[i - TIMES];
            unsigned flags = nl ? SINEW_SAMPLE_NLERP : 0;
            sinew_error err;
            sinew_result r1 = sinew_clip_sample(clip, s, t, flags, NULL, want, n, &err);
            sinew_result r2 = sinew_clip_sample(packed, s, t, flags, NULL, got, n, &err);
            CHECK(r1 == SINEW_OK && r2 == SINEW_OK, "%s: sample at %g: %s", what, (double)t, err.description);
            pose_diff_parts(want, got, n, worst[nl]);
            if (poses) memcpy(poses + ((size_t)nl * (size_t)count + (size_t)i) * (size_t)n, got, sizeof *got * (size_t)n);
        }
    double slack = 1e-6 * b->magnitude;
    for (int nl = 0; nl < 2; ++nl)
        CHECK(worst[nl][0] <= rep->translation_error + slack && worst[nl][1] <= rep->rotation_error + 2e-6 &&
                  worst[nl][2] <= rep->scale_error + slack,
              "%s (%s): samples %g, %g rad, %g from the clip's; the report says %g, %g rad, %g", what,
              nl ? "nlerp" : "slerp", worst[nl][0], worst[nl][1], worst[nl][2], (double)rep->translation_error,
              (double)rep->rotation_error, (double)rep->scale_error);
done:
    free(want), free(got);
}

/* sinew_clip_sample_model on the packed clip against sinew_clip_sample then
 * sinew_local_to_model, bit for bit, with and without a local pose; and
 * sinew_clip_sample_pose against the sampled transforms in the skeleton's
 * pose order, bit for bit, every lane written. */
static void check_sample_model(const sinew_clip *packed, const sinew_skeleton *s, const char *what)
{
    int n = s->joint_count, lanes = sinew_skeleton_pose_order(s, NULL);
    sinew_transform *local = malloc(sizeof *local * (size_t)n), *want_local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *want = malloc(sizeof *want * (size_t)n);
    float *pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(lanes));
    float *want_pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(lanes));
    CHECK(local && want_local && model && want && pose && want_pose, "memory");
    int differ = 0, pose_differ = 0;
    for (int i = 0; local && want_local && model && want && pose && want_pose && i < 60; ++i) {
        float t = packed->duration * (float)i / 59.0f;
        unsigned flags = i % 2 ? SINEW_SAMPLE_NLERP : 0;
        sinew_clip_sample(packed, s, t, flags, NULL, want_local, n, NULL);
        sinew_local_to_model(s, want_local, NULL, want, n, NULL);
        sinew_error err;
        CHECK(sinew_clip_sample_model(packed, s, t, flags, NULL, NULL, local, model, n, &err) == SINEW_OK, "%s: %s",
              what, err.description);
        differ += memcmp(local, want_local, sizeof *local * (size_t)n) != 0;
        differ += memcmp(model, want, sizeof *model * (size_t)n) != 0;
        CHECK(sinew_clip_sample_model(packed, s, t, flags, NULL, NULL, NULL, model, n, &err) == SINEW_OK, "%s: %s",
              what, err.description);
        differ += memcmp(model, want, sizeof *model * (size_t)n) != 0;
        for (size_t f = 0; f < SINEW_POSE_FLOATS(lanes); ++f) pose[f] = NAN;
        sinew_pose_order_from_transforms(s, want_local, n, want_pose, NULL);
        CHECK(sinew_clip_sample_pose(packed, s, t, flags, NULL, local, pose, lanes, &err) == SINEW_OK, "%s: %s",
              what, err.description);
        pose_differ += memcmp(pose, want_pose, sizeof(float) * SINEW_POSE_FLOATS(lanes)) != 0;
    }
    CHECK(differ == 0, "%s: sample_model differs from sample then local_to_model %d times", what, differ);
    CHECK(pose_differ == 0, "%s: sample_pose differs from the sampled transforms in pose order %d times", what,
          pose_differ);
    free(local), free(want_local), free(model), free(want), free(pose), free(want_pose);
}

/* Cursor: its size, a too small one refused, forward playback with hints
 * giving what no hints give. */
static void check_cursor(const sinew_clip *packed, const sinew_skeleton *s, const char *what)
{
    int n = s->joint_count, size = sinew_clip_cursor_size(packed);
    CHECK(size == packed->track_count + 1, "%s: cursor size %d for %d tracks", what, size, packed->track_count);
    int32_t *keys = calloc((size_t)size + 1, sizeof *keys);
    sinew_transform *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    CHECK(keys && a && b, "memory");
    if (!keys || !a || !b) goto done;
    sinew_error err;
    sinew_cursor small = {keys, size - 1};
    CHECK(sinew_clip_sample(packed, s, 0.0f, 0, &small, a, n, &err) == SINEW_ERROR_BUFFER_TOO_SMALL,
          "%s: a cursor of %d keys taken", what, size - 1);
    sinew_cursor cursor = {keys, size};
    int differ = 0;
    for (int i = 0; i < 200; ++i) {
        float t = (float)i / 60.0f;
        sinew_clip_sample(packed, s, t, SINEW_SAMPLE_LOOP, &cursor, a, n, NULL);
        sinew_clip_sample(packed, s, t, SINEW_SAMPLE_LOOP, NULL, b, n, NULL);
        differ += memcmp(a, b, sizeof *a * (size_t)n) != 0;
    }
    CHECK(differ == 0, "%s: %d samples differ with the cursor", what, differ);
done:
    free(keys), free(a), free(b);
}

/* Packs `clip` for sk at every SIMD level and checks it against the clip
 * (on sk, on sk with every joint a root, on sk with another rest pose), the
 * levels against each other, one pass against two calls, the cursor and
 * the key counts; where packing must refuse the clip, that it does with
 * SINEW_ERROR_UNSUPPORTED. Returns the packed clip's bytes at the last
 * level (0 where refused). */
static size_t check_pack(const sinew_clip *clip, const sinew_skeleton *sk, const char *what)
{
    bool fits = packable(clip);
    bounds b = pack_bounds(clip);
    int n = sk->joint_count, keys = 0;
    for (int i = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target != SINEW_TARGET_WEIGHTS && clip->tracks[i].key_count > keys)
            keys = clip->tracks[i].key_count;
    size_t per_level = 2 * ((size_t)TIMES + (size_t)keys) * (size_t)n;
    sinew_transform *scalar_poses = malloc(sizeof *scalar_poses * per_level);
    sinew_transform *poses = malloc(sizeof *poses * per_level);
    CHECK(scalar_poses && poses, "memory");
    size_t bytes = 0;
    for (sinew_simd level = SINEW_SIMD_SCALAR; scalar_poses && poses && level <= sinew_simd_supported(); ++level) {
        char label[512];
        snprintf(label, sizeof label, "%s [%s]", what, sinew_simd_name(level));
        sinew_options options = {.simd = level};
        sinew_skeleton *s = skeleton_at(sk, level, false, false), *flat = skeleton_at(sk, level, true, false);
        sinew_skeleton *moved = skeleton_at(sk, level, false, true);
        sinew_clip_desc d = {.name = clip->name, .duration = clip->duration, .joint_count = clip->joint_count,
                             .track_count = clip->track_count, .tracks = clip->tracks, .additive = clip->additive,
                             .skeleton = s};
        sinew_error err;
        sinew_clip *c = s ? sinew_clip_create(&d, &options, &err) : NULL;
        CHECK(c != NULL, "%s: clip: %s", label, err.description);
        sinew_pack_report rep;
        sinew_clip *p = c ? sinew_clip_pack(c, s, &options, &rep, &err) : NULL;
        if (!fits) {
            CHECK(p == NULL && err.result == SINEW_ERROR_UNSUPPORTED && strstr(err.description, "packing takes"),
                  "%s: expected the clip refused, got %s: %s", label, sinew_result_name(err.result), err.description);
        } else if (c && flat && moved) {
            CHECK(p != NULL, "%s: %s", label, err.description);
        }
        if (p && flat && moved) {
            CHECK(p->packed && p->joint_count == clip->joint_count && p->duration == clip->duration &&
                      p->additive == clip->additive && strcmp(p->name, clip->name) == 0,
                  "%s: the packed clip's fields", label);
            CHECK(rep.translation_error <= b.error[0] * (1 + 1e-6) + 1e-6 * b.magnitude &&
                      rep.rotation_error <= b.error[1] * 1.01 + 1e-6 && rep.scale_error <= b.error[2] * (1 + 1e-6) + 1e-6 * b.magnitude,
                  "%s: packed keys within %g, %g rad, %g; the ranges allow %g, %g rad, %g", label,
                  (double)rep.translation_error, (double)rep.rotation_error, (double)rep.scale_error, b.error[0],
                  b.error[1], b.error[2]);
            for (int target = 0; target < 4; ++target)
                CHECK(sinew_clip_key_count(p, target) == sinew_clip_key_count(c, target), "%s: key count of target %d",
                      label, target);
            check_samples(c, p, s, &rep, &b, poses, label);
            check_samples(c, p, flat, &rep, &b, NULL, label);
            check_samples(c, p, moved, &rep, &b, NULL, label);
            check_sample_model(p, s, label);
            check_sample_model(p, flat, label);
            check_sample_model(p, moved, label);
            check_cursor(p, s, label);
            if (level == SINEW_SIMD_SCALAR) {
                memcpy(scalar_poses, poses, sizeof *poses * per_level);
            } else {
                /* against the scalar level: vectors bit for bit, rotations within 1e-6 */
                int vectors = 0;
                double rotation = 0.0;
                for (size_t i = 0; i < per_level; ++i) {
                    const sinew_transform *x = &poses[i], *y = &scalar_poses[i];
                    vectors += memcmp(&x->translation, &y->translation, sizeof x->translation) != 0 ||
                               memcmp(&x->scale, &y->scale, sizeof x->scale) != 0;
                    const float *qx = &x->rotation.x, *qy = &y->rotation.x;
                    for (int k = 0; k < 4; ++k) rotation = fmax(rotation, fabs((double)qx[k] - qy[k]));
                }
                CHECK(vectors == 0 && rotation <= 1e-6, "%s: against the scalar level %d vectors differ, rotations by %g",
                      label, vectors, rotation);
            }
            bytes = sinew_clip_bytes(p);
        }
        sinew_clip_free(p), sinew_clip_free(c);
        sinew_skeleton_free(s), sinew_skeleton_free(flat), sinew_skeleton_free(moved);
    }
    free(scalar_poses), free(poses);
    return bytes;
}

/* A clip of joints 0..2 of a chain: a translation and a rotation track on
 * joint 1 with key times `times` (three keys), one more track as given. */
typedef struct small_clip {
    float times[3], other_times[3];
    float translations[9], rotations[12], weights[6], wide[9];
    sinew_track tracks[4];
} small_clip;

static void small_clip_init(small_clip *c)
{
    *c = (small_clip){.times = {0.0f, 0.5f, 1.0f}, .other_times = {0.0f, 0.4f, 1.0f},
                      .translations = {0, 1, 0, 0.25f, 1.5f, 0, 0.5f, 1, -0.25f},
                      .rotations = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f, 0.5f, 0, 0, 0.8660254f},
                      .weights = {0, 1, 0.5f, 0.5f, 1, 0},
                      .wide = {-3e38f, 0, 0, 3e38f, 0, 0, 0, 0, 0}};
    c->tracks[0] = (sinew_track){.joint = 1, .target = SINEW_TARGET_TRANSLATION, .interpolation = SINEW_INTERP_LINEAR,
                                 .key_count = 3, .times = c->times, .values = c->translations};
    c->tracks[1] = (sinew_track){.joint = 1, .target = SINEW_TARGET_ROTATION, .interpolation = SINEW_INTERP_LINEAR,
                                 .key_count = 3, .times = c->times, .values = c->rotations};
    c->tracks[2] = (sinew_track){.joint = 0, .target = SINEW_TARGET_WEIGHTS, .interpolation = SINEW_INTERP_LINEAR,
                                 .key_count = 3, .width = 2, .times = c->times, .values = c->weights};
}

/* Packing allocates through the caller's allocator, frees what it
 * allocated, and gives SINEW_ERROR_OUT_OF_MEMORY, nothing left, for each
 * allocation failing in turn. */
static void test_allocation(const sinew_clip *clip, const sinew_skeleton *sk)
{
    counter c = {0, 0, 0};
    sinew_options options = {.allocator = {count_alloc, count_free, &c}};
    sinew_error err;
    sinew_clip *p = sinew_clip_pack(clip, sk, &options, NULL, &err);
    CHECK(p != NULL && c.total >= 3, "pack with a counting allocator (%ld allocations): %s", c.total, err.description);
    sinew_clip_free(p);
    CHECK(c.live == 0, "pack: %ld blocks left", c.live);
    int refused = 0, leaked = 0;
    for (long k = 1; k <= c.total; ++k) {
        counter f = {0, 0, k};
        sinew_options fo = {.allocator = {count_alloc, count_free, &f}};
        p = sinew_clip_pack(clip, sk, &fo, NULL, &err);
        refused += !p && err.result == SINEW_ERROR_OUT_OF_MEMORY;
        sinew_clip_free(p);
        leaked += f.live != 0;
    }
    CHECK(refused == c.total && leaked == 0, "pack: %d of %ld failing allocations refused, %d leaked", refused,
          c.total, leaked);
}

static void test_small(void)
{
    const int parents[3] = {-1, 0, 1};
    const char *names[3] = {"root", "mid", "tip"};
    sinew_transform rest[3];
    for (int j = 0; j < 3; ++j)
        rest[j] = (sinew_transform){{0, (float)j, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    sinew_error err;
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){3, parents, names, rest}, NULL, NULL, &err);
    CHECK(sk != NULL, "skeleton: %s", err.description);
    if (!sk) return;
    small_clip sc;
    small_clip_init(&sc);
    sinew_clip_desc d = {.name = "small", .joint_count = 3, .track_count = 3, .tracks = sc.tracks};
    sinew_clip *clip = sinew_clip_create(&d, NULL, &err);
    CHECK(clip != NULL, "small clip: %s", err.description);
    if (!clip) goto done;
    check_pack(clip, sk, "small clip with a weights track");
    test_allocation(clip, sk);

    /* weights, root motion, the functions that read tracks */
    sinew_pack_report rep;
    sinew_clip *p = sinew_clip_pack(clip, sk, NULL, &rep, &err);
    CHECK(p != NULL, "small: %s", err.description);
    if (p) {
        CHECK(p->track_count == 1 && p->tracks[0].target == SINEW_TARGET_WEIGHTS && rep.packed_floats > 0,
              "small: %d tracks kept, %d floats packed", p->track_count, rep.packed_floats);
        for (int i = 0; i <= 20; ++i) {
            float t = (float)i / 20.0f, w[2] = {-1, -1}, v[2] = {-2, -2};
            sinew_clip_sample_weights(clip, t, 0, NULL, 0, w, 2, NULL);
            CHECK(sinew_clip_sample_weights(p, t, 0, NULL, 0, v, 2, &err) == SINEW_OK && memcmp(w, v, sizeof w) == 0,
                  "small: weights at %g: %g %g vs %g %g (%s)", (double)t, (double)w[0], (double)w[1], (double)v[0],
                  (double)v[1], err.description);
        }
        sinew_root_motion_job a = {.clip = clip, .skeleton = sk, .joint = 1, .from = 0.1f, .to = 0.8f};
        sinew_root_motion_job b = a;
        b.clip = p;
        CHECK(sinew_root_motion(&a, &err) == SINEW_OK && sinew_root_motion(&b, &err) == SINEW_OK, "root motion: %s",
              err.description);
        CHECK(sinew_vec3_length(sinew_vec3_sub(a.translation, b.translation)) <= rep.translation_error + 1e-6 &&
                  fabs((double)a.yaw - b.yaw) <= rep.rotation_error + 1e-6,
              "root motion: (%g %g %g) yaw %g vs (%g %g %g) yaw %g", (double)a.translation.x, (double)a.translation.y,
              (double)a.translation.z, (double)a.yaw, (double)b.translation.x, (double)b.translation.y,
              (double)b.translation.z, (double)b.yaw);
        CHECK(a.yaw != 0.0f, "root motion: the clip turns (yaw %g)", (double)a.yaw);

        sinew_clip_tolerance tol = {0, 0, 0};
        CHECK(sinew_clip_pack(p, sk, NULL, NULL, &err) == NULL, "pack of a packed clip");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "packed");
        CHECK(sinew_clip_optimize(p, &tol, sk, NULL, NULL, &err) == NULL, "optimize of a packed clip");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "packed");
        CHECK(sinew_clip_make_additive(p, sk, SINEW_ADDITIVE_REST_POSE, NULL, &err) == NULL, "additive of a packed clip");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "packed");
        CHECK(sinew_clip_retarget(p, sk, sk, NULL, NULL, &err) == NULL, "retarget of a packed clip");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "packed");
        sinew_clip_free(p);
    }

    /* additive: packed over the identity */
    sinew_clip *add = sinew_clip_make_additive(clip, sk, SINEW_ADDITIVE_FIRST_FRAME, NULL, &err);
    CHECK(add != NULL, "additive: %s", err.description);
    if (add) check_pack(add, sk, "small additive clip");
    sinew_clip_free(add);

    /* a still pose: one key per track, packed exactly */
    small_clip still;
    small_clip_init(&still);
    for (int i = 0; i < 2; ++i) still.tracks[i].key_count = 1;
    d.tracks = still.tracks, d.track_count = 2, d.duration = 1.0f;
    sinew_clip *pose = sinew_clip_create(&d, NULL, &err);
    CHECK(pose != NULL, "still: %s", err.description);
    p = pose ? sinew_clip_pack(pose, sk, NULL, &rep, &err) : NULL;
    CHECK(p != NULL, "still: %s", err.description);
    if (p) {
        sinew_transform a[3], b[3];
        for (int i = 0; i <= 8; ++i) {
            sinew_clip_sample(pose, sk, (float)i / 8.0f, 0, NULL, a, 3, NULL);
            sinew_clip_sample(p, sk, (float)i / 8.0f, 0, NULL, b, 3, NULL);
            CHECK(pose_diff(a, b, 3) == 0.0, "still: pose differs at %g", (double)i / 8.0);
        }
        CHECK(rep.packed_floats == 0 && rep.translation_error == 0.0f && rep.rotation_error == 0.0f,
              "still: %d floats packed, errors %g %g", rep.packed_floats, (double)rep.translation_error,
              (double)rep.rotation_error);
    }
    sinew_clip_free(p), sinew_clip_free(pose);

    /* clips packing refuses, and bad arguments */
    struct {
        const char *what, *needle;
        int change;
    } refused[] = {{"CUBICSPLINE", "track 1 (joint 1 \"mid\", rotation): CUBICSPLINE", 0},
                   {"STEP", "track 0 (joint 1 \"mid\", translation): STEP", 1},
                   {"other key times", "track 1 (joint 1 \"mid\", rotation): other key times than track 0's", 2},
                   {"too wide", "joint 1 \"mid\": its values span", 3}};
    for (size_t r = 0; r < sizeof refused / sizeof *refused; ++r) {
        small_clip x;
        small_clip_init(&x);
        float cubic[36];
        for (int k = 0; k < 3; ++k) {
            memset(cubic + 12 * k, 0, sizeof(float) * 12);
            memcpy(cubic + 12 * k + 4, x.rotations + 4 * k, sizeof(float) * 4);
        }
        if (refused[r].change == 0) x.tracks[1].interpolation = SINEW_INTERP_CUBICSPLINE, x.tracks[1].values = cubic;
        if (refused[r].change == 1) x.tracks[0].interpolation = SINEW_INTERP_STEP;
        if (refused[r].change == 2) x.tracks[1].times = x.other_times;
        if (refused[r].change == 3) x.tracks[0].values = x.wide;
        sinew_clip_desc dx = {.name = "refused", .joint_count = 3, .track_count = 3, .tracks = x.tracks};
        sinew_clip *c = sinew_clip_create(&dx, NULL, &err);
        CHECK(c != NULL, "%s: %s", refused[r].what, err.description);
        if (!c) continue;
        CHECK(sinew_clip_pack(c, sk, NULL, NULL, &err) == NULL, "%s: packed", refused[r].what);
        CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, refused[r].needle);
        sinew_clip_free(c);
    }
    CHECK(sinew_clip_pack(NULL, sk, NULL, NULL, &err) == NULL, "pack of NULL");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "required");
    CHECK(strncmp(err.description, "sinew_clip_pack: ", 17) == 0, "the caller named: %s", err.description);
    CHECK(sinew_clip_pack(clip, NULL, NULL, NULL, &err) == NULL, "pack without a skeleton");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "required");
    d = (sinew_clip_desc){.name = "four", .joint_count = 4};
    sinew_clip *four = sinew_clip_create(&d, NULL, &err);
    CHECK(four && sinew_clip_pack(four, sk, NULL, NULL, &err) == NULL, "pack for another joint count");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "4 joints");
    sinew_clip_free(four);
    CHECK(sinew_clip_cursor_size(NULL) == 0 && sinew_clip_cursor_size(clip) == 3, "cursor size of a clip");
done:
    sinew_clip_free(clip);
    sinew_skeleton_free(sk);
}

/* A chain of 20,000 joints, each rotating: its schedule pairs each joint
 * with itself, 5,000 animated blocks, more than a joint count's eighth. */
static void test_long_chain(void)
{
    enum { N = 20000 };
    int *parents = malloc(sizeof *parents * N);
    sinew_transform *rest = malloc(sizeof *rest * N), *a = malloc(sizeof *a * N), *b = malloc(sizeof *b * N);
    sinew_track *tracks = malloc(sizeof *tracks * N);
    float *values = malloc(sizeof *values * 8 * N), times[2] = {0.0f, 1.0f};
    CHECK(parents && rest && a && b && tracks && values, "memory");
    if (!parents || !rest || !a || !b || !tracks || !values) goto done;
    for (int j = 0; j < N; ++j) {
        parents[j] = j - 1;
        rest[j] = (sinew_transform){{0, 0.01f, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        float angle = 0.001f * (float)(j % 100);
        float q[8] = {0, 0, 0, 1, sinf(angle), 0, 0, cosf(angle)};
        memcpy(values + 8 * j, q, sizeof q);
        tracks[j] = (sinew_track){.joint = j, .target = SINEW_TARGET_ROTATION, .interpolation = SINEW_INTERP_LINEAR,
                                  .key_count = 2, .times = times, .values = values + 8 * j};
    }
    sinew_error err;
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){N, parents, NULL, rest}, NULL, NULL, &err);
    CHECK(sk != NULL, "long chain: %s", err.description);
    sinew_clip *clip = sk ? sinew_clip_create(&(sinew_clip_desc){.name = "chain", .joint_count = N, .track_count = N,
                                                                  .tracks = tracks, .skeleton = sk},
                                              NULL, &err)
                          : NULL;
    CHECK(!sk || clip, "long chain clip: %s", err.description);
    sinew_pack_report rep;
    sinew_clip *p = clip ? sinew_clip_pack(clip, sk, NULL, &rep, &err) : NULL;
    CHECK(!clip || p, "long chain packed: %s", err.description);
    for (int i = 0; p && i < 3; ++i) {
        float t = 0.4f * (float)i;
        double w[3] = {0, 0, 0};
        sinew_clip_sample(clip, sk, t, 0, NULL, a, N, NULL);
        CHECK(sinew_clip_sample(p, sk, t, 0, NULL, b, N, &err) == SINEW_OK, "long chain: %s", err.description);
        pose_diff_parts(a, b, N, w);
        CHECK(w[1] <= rep.rotation_error + 2e-6 && w[0] == 0.0, "long chain at %g: %g rad, %g from the clip's",
              (double)t, w[1], w[0]);
    }
    sinew_clip_free(p), sinew_clip_free(clip);
    sinew_skeleton_free(sk);
done:
    free(parents), free(rest), free(a), free(b), free(tracks), free(values);
}

/* The golden packed walk (tests/archive/demo-packed.sinew: the built-in
 * walk sampled at its own key times and packed, on a build machine), read
 * from its file: it samples within packing's bounds of the walk as this
 * platform builds it (by slerp and nlerp, on keys and between them), and
 * its one-pass model sampling and its cursor agree with the plain calls. */
static void test_golden(const sinew_asset *demo)
{
    sinew_error err;
    sinew_asset *g = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/demo-packed.sinew", NULL, &err);
    CHECK(g != NULL, "the golden packed walk loads: %s", g ? "" : err.description);
    if (!g) return;
    const sinew_clip *walk = sinew_asset_find_clip(demo, "walk");
    const sinew_clip *packed = g->clip_count == 1 ? g->clips[0] : NULL;
    CHECK(walk && packed && packed->packed && strcmp(packed->name, "walk") == 0 &&
              packed->duration == walk->duration && g->skeleton->joint_count == demo->skeleton->joint_count,
          "the golden holds the built-in walk, packed");
    if (walk && packed && packed->packed && g->skeleton->joint_count == demo->skeleton->joint_count) {
        /* the bounds check_pack holds a report to, standing in for the
         * report packing gave on the build machine */
        bounds b = pack_bounds(walk);
        sinew_pack_report rep = {.translation_error = (float)(b.error[0] * (1 + 1e-6) + 1e-6 * b.magnitude),
                                 .rotation_error = (float)(b.error[1] * 1.01 + 1e-6),
                                 .scale_error = (float)(b.error[2] * (1 + 1e-6) + 1e-6 * b.magnitude)};
        check_samples(walk, packed, demo->skeleton, &rep, &b, NULL, "the golden packed walk");
        check_sample_model(packed, g->skeleton, "the golden packed walk");
        check_cursor(packed, g->skeleton, "the golden packed walk");
    }
    sinew_asset_free(g);
}

#if defined(SINEW_TEST_FILES)
static void test_file(const char *path, const char *anim, const char *label)
{
    sinew_asset *a, *b;
    if (!test_load_with_anim(path, anim, &a, &b)) return;
    char what[512];
    if (b) {
        sinew_error err;
        sinew_clip *c = sinew_clip_retarget(b->clips[0], b->skeleton, a->skeleton, NULL, NULL, &err);
        CHECK(c != NULL, "%s: %s", label, err.description);
        const sinew_clip_tolerance tol = {1e-3f, 1e-5f, 1e-5f};
        sinew_clip *o = c ? sinew_clip_optimize(c, &tol, a->skeleton, NULL, NULL, &err) : NULL;
        CHECK(!c || o, "%s optimized: %s", label, err.description);
        if (c && o) {
            size_t raw = check_pack(c, a->skeleton, label);
            snprintf(what, sizeof what, "%s optimized", label);
            size_t packed = check_pack(o, a->skeleton, what);
            printf("%s: %zu bytes (optimized %zu); packed %zu (optimized, then packed: %zu)\n", label,
                   sinew_clip_bytes(c), sinew_clip_bytes(o), raw, packed);
            if (packable(c)) /* the optimized clip packed: a small part of it */
                CHECK(packed > 0 && 3 * packed < sinew_clip_bytes(o) && 2 * raw < sinew_clip_bytes(c),
                      "%s: packed %zu of %zu bytes, optimized %zu of %zu", label, raw, sinew_clip_bytes(c), packed,
                      sinew_clip_bytes(o));
        }
        sinew_clip_free(c), sinew_clip_free(o);
    }
    for (int i = 0; i < a->clip_count; ++i) {
        snprintf(what, sizeof what, "%s clip %d", label, i);
        check_pack(a->clips[i], a->skeleton, what);
    }
    sinew_asset_free(b);
    sinew_asset_free(a);
}
#endif

int main(void)
{
    test_small();
    test_long_chain();
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "demo: %s", err.description);
    for (int i = 0; demo && i < demo->clip_count; ++i) check_pack(demo->clips[i], demo->skeleton, "built-in character");
    if (demo) test_golden(demo);
    sinew_asset_free(demo);
#if defined(SINEW_TEST_FILES)
    test_file(SINEW_ASSETS "/gltf/cesium_man.gltf", NULL, "cesium_man.gltf");
    test_file(SINEW_ASSETS "/gltf/interpolation_test.gltf", NULL, "interpolation_test.gltf");
    test_file(SINEW_ASSETS "/gltf/box_animated.gltf", NULL, "box_animated.gltf");
    test_file(SINEW_ASSETS "/fbx/pab/arnaud.fbx", SINEW_ASSETS "/fbx/pab/walk.fbx", "walk.fbx on arnaud.fbx");
    test_file(SINEW_ASSETS "/fbx/pab/skeleton.fbx", SINEW_ASSETS "/fbx/pab/walk.fbx", "walk.fbx on skeleton.fbx");
    test_file(SINEW_ASSETS "/fbx/pab/arnaud.fbx", SINEW_ASSETS "/fbx/pab/run.fbx", "run.fbx on arnaud.fbx");
#else
    printf("skip: a build without the loaders: the shared assets are not packed\n");
#endif
    return check_finish("test_pack");
}
