/* SPDX-License-Identifier: MIT */
/* The packed form of a clip (sinew_clip_pack): the exact form's block
 * layout (plan.c, plan.h) with its animated blocks' keys quantized to 16
 * bits, sampled by the AVX2 kernel (simd/plan_avx2.c) where the plan runs
 * at that level, else entry by entry by the reference's formulas; its
 * tracks as stored for the archive writer and the error measure. */
#include "clip/plan.h"

#include <float.h>

/* from's tables copied into t (laid out for the same counts). */
static void copy_tables(const sinew__block_tables *t, const sinew__blocks *from, int partial_count)
{
    int count = from->length / 8;
    memcpy(t->constants, from->constants, sizeof(float) * (size_t)(count - from->animated) * SINEW__BLOCK_FLOATS);
    memcpy(t->mask, from->mask, (size_t)count * SINEW__BLOCK_FLOATS);
    memcpy(t->under_slot, from->under_slot, sizeof(int32_t) * (size_t)count);
    memcpy(t->settled, from->settled, (size_t)count);
    memcpy(t->under, from->under, sizeof(float) * (size_t)partial_count * SINEW__BLOCK_FLOATS);
    memcpy(t->pose_first, from->pose_first, sizeof(int32_t) * ((size_t)count + 1));
    memcpy(t->pose_parts, from->pose_parts, sizeof(sinew__pose_part) * (size_t)from->pose_first[count]);
}

/* The quantization of one lane of a packed vector: the step (a power of
 * two, at least 2^-149 so that q step stays exact) that covers [lo, hi] in
 * 65,535 steps, 0 where lo == hi; false where offset + 65535 step would
 * overflow. */
static bool pack_step(float lo, float hi, float *step)
{
    double range = (double)hi - (double)lo;
    if (range == 0.0) {
        *step = 0.0f;
        return true;
    }
    int e;
    frexp(range / 65535.0, &e); /* 2^e >= range / 65535 */
    if (e < -149) e = -149;
    double st = ldexp(1.0, e);
    if (fabs((double)lo) + 65535.0 * st > (double)FLT_MAX) return false;
    *step = (float)st;
    return true;
}

/* The furthest lane values x (of the 10 of sinew_transform) lie from y:
 * translation distance, rotation angle (x normalized), scale component. */
static void pack_errors(const float *x, const float *y, float err[3])
{
    double t = 0.0, r = 0.0, sc = 0.0, dot = 0.0, len = 0.0;
    for (int c = 0; c < 3; ++c) t += ((double)x[c] - y[c]) * ((double)x[c] - y[c]);
    for (int c = 3; c < 7; ++c) dot += (double)x[c] * y[c], len += (double)x[c] * x[c];
    double sign = dot < 0.0 ? -1.0 : 1.0, inv = len > 0.0 ? 1.0 / sqrt(len) : 0.0;
    for (int c = 3; c < 7; ++c) r += ((double)x[c] * inv - sign * y[c]) * ((double)x[c] * inv - sign * y[c]);
    for (int c = 7; c < 10; ++c) sc = fmax(sc, fabs((double)x[c] - y[c]));
    /* the angle between unit quaternions a and b: 4 asin(|a - b| / 2) */
    double values[3] = {sqrt(t), 4.0 * asin(fmin(1.0, sqrt(r) / 2.0)), sc};
    for (int i = 0; i < 3; ++i)
        if (values[i] > err[i]) err[i] = (float)values[i];
}

/* Where a lane's values at each key come from while a packed layout is
 * made: the exact layout's frames (frames[k * stride]), a stored float
 * (offset + q[k] step, q[k] the little-endian u16 at q + 2k, as the packed
 * kernels compute it: the product exact, one rounding), or one value at
 * every key. */
typedef struct lane_source {
    const float *frames;
    size_t stride;
    const unsigned char *q;
    float offset, step, value;
} lane_source;

static inline float lane_at(const lane_source *l, size_t k)
{
    if (l->frames) return l->frames[k * l->stride];
    if (!l->q) return l->value;
    uint16_t n;
    memcpy(&n, l->q + 2 * k, sizeof n);
    return l->offset + (float)n * l->step;
}

/* A lane's values over the keys in one pass: whether one differs from
 * the first, bit for bit, and their least and greatest (as fminf and
 * fmaxf give them, in key order: the values are finite). */
typedef struct lane_span {
    float lo, hi;
    bool varies;
} lane_span;

static lane_span lane_scan(const lane_source *l, size_t keys)
{
    float first = lane_at(l, 0);
    lane_span sp = {first, first, false};
    if (!l->frames && !l->q) return sp;
    uint32_t bits, differ = 0;
    memcpy(&bits, &first, sizeof bits);
    float lo = first, hi = first;
    /* one loop per source, so that the loop holds no branch on it */
#define SINEW_SCAN(value)                          \
    for (size_t k = 1; k < keys; ++k) {            \
        float x = (value);                         \
        uint32_t xb;                               \
        memcpy(&xb, &x, sizeof xb);                \
        differ |= xb ^ bits;                       \
        lo = lo < x ? lo : x, hi = hi > x ? hi : x; \
    }
    if (l->frames) {
        SINEW_SCAN(l->frames[k * l->stride])
    } else {
        SINEW_SCAN(l->offset + (float)((uint16_t)(l->q[2 * k] | l->q[2 * k + 1] << 8)) * l->step)
    }
#undef SINEW_SCAN
    sp.lo = lo, sp.hi = hi, sp.varies = differ != 0;
    return sp;
}

/* The eight lanes of float vector f of animated block b of the layout
 * being made, from `ctx`. */
typedef void (*vector_sources)(const void *ctx, int b, int f, lane_source out[8]);

/* The packed layout of `plain`'s schedule and tables (an exact block
 * layout of the clip's shape: which joints vary, which floats tracks
 * write) whose animated blocks' values at each of `keys` keys (at `times`)
 * come from `sources`: the vectors that vary over the keys quantized, the
 * others stored once. NULL when a lane's values span too much for 16 bits
 * (res->wide_joint) or out of memory. Leaves res->errors alone. */
static sinew__sampler *pack_layout(const sinew__sampler *plain, const float *times, size_t keys,
                                   vector_sources sources, const void *ctx, int hint_slot,
                                   const sinew_allocator *alloc, sinew__pack_result *res)
{
    const sinew__blocks *fp = plain->blocks;
    int count = fp->length / 8, animated = fp->animated, partial_count = 0;
    for (int b = 0; b < count; ++b) partial_count += fp->under_slot[b] >= 0;
    /* which vectors vary (bit f of each animated block's), and each
     * lane's span, in one pass over the keys */
    uint16_t *varies = sinew__alloc(alloc, sizeof(uint16_t) * ((size_t)animated + 1));
    lane_span *spans = sinew__alloc(alloc, sizeof(lane_span) * ((size_t)animated * SINEW__BLOCK_FLOATS + 1));
    if (!varies || !spans) {
        sinew__free(alloc, varies), sinew__free(alloc, spans);
        return NULL;
    }
    int stored = 0; /* vectors stored per key */
    for (int b = 0; b < animated; ++b) {
        varies[b] = 0;
        for (int f = 0; f < 10; ++f) {
            lane_source lanes[8];
            sources(ctx, b, f, lanes);
            for (int lane = 0; lane < 8; ++lane) {
                lane_span *sp = &spans[(size_t)b * SINEW__BLOCK_FLOATS + 8 * f + lane];
                *sp = lane_scan(&lanes[lane], keys);
                if (sp->varies) varies[b] |= (uint16_t)(1u << f);
            }
            stored += varies[b] >> f & 1;
        }
    }
    sinew__layout lay = {sizeof(sinew__sampler), false};
    size_t off_blocks = sinew__layout_add(&lay, 1, sizeof(sinew__blocks), 8);
    size_t off_packed = sinew__layout_add(&lay, 1, sizeof(sinew__packed_keys), 8);
    size_t off_schedule = sinew__layout_add(&lay, (size_t)fp->length, sizeof(int16_t), 2);
    size_t off_times = sinew__layout_add(&lay, keys, sizeof(float), 4);
    sinew__block_tables_at tables_at = sinew__lay_out_tables(&lay, count, animated, partial_count, fp->pose_first[count]);
    size_t off_varying = sinew__layout_add(&lay, (size_t)animated, sizeof(uint16_t), 2);
    size_t off_first = sinew__layout_add(&lay, (size_t)animated, sizeof(int32_t), 4);
    size_t off_fixed = sinew__layout_add(&lay, (size_t)animated * SINEW__BLOCK_FLOATS, sizeof(float), 32);
    size_t off_step = sinew__layout_add(&lay, 8 * (size_t)stored, sizeof(float), 32);
    size_t off_offset = sinew__layout_add(&lay, 8 * (size_t)stored, sizeof(float), 32);
    size_t off_keys = sinew__layout_add(&lay, keys * 8 * (size_t)stored, sizeof(uint16_t), 16);
    unsigned char *block = lay.overflow ? NULL : sinew__alloc_aligned(alloc, lay.total);
    if (!block) {
        sinew__free(alloc, varies), sinew__free(alloc, spans);
        return NULL;
    }
    memset(block, 0, lay.total);
    sinew__sampler *sm = (sinew__sampler *)block;
    sinew__blocks *p = (sinew__blocks *)(block + off_blocks);
    sinew__packed_keys *q = (sinew__packed_keys *)(block + off_packed);
    int16_t *schedule = (int16_t *)(block + off_schedule);
    float *times_out = (float *)(block + off_times), *fixed = (float *)(block + off_fixed);
    sinew__block_tables tables = sinew__tables_in(block, &tables_at);
    int32_t *first = (int32_t *)(block + off_first);
    float *step = (float *)(block + off_step), *offset = (float *)(block + off_offset);
    uint16_t *packed_keys = (uint16_t *)(block + off_keys), *varying = (uint16_t *)(block + off_varying);
    memcpy(schedule, fp->schedule, sizeof(int16_t) * (size_t)fp->length);
    memcpy(times_out, times, sizeof(float) * keys);
    copy_tables(&tables, fp, partial_count);
    memcpy(varying, varies, sizeof(uint16_t) * (size_t)animated);
    sinew__free(alloc, varies);
    bool fits = true;
    for (int b = 0, v = 0; b < animated; ++b) {
        first[b] = v;
        for (int f = 0; f < 10; ++f) {
            lane_source lanes[8];
            sources(ctx, b, f, lanes);
            if (!(varying[b] >> f & 1)) {
                /* plus 0: the kernel's lerp on a key gives a -0 as +0 */
                for (int lane = 0; lane < 8; ++lane)
                    fixed[(size_t)b * SINEW__BLOCK_FLOATS + 8 * f + lane] = lane_at(&lanes[lane], 0) + 0.0f;
                continue;
            }
            for (int lane = 0; lane < 8; ++lane) {
                const lane_source *l = &lanes[lane];
                const lane_span *sp = &spans[(size_t)b * SINEW__BLOCK_FLOATS + 8 * f + lane];
                float lo = sp->lo, hi = sp->hi;
                float st;
                if (!pack_step(lo, hi, &st)) {
                    fits = false;
                    if (res->wide_joint < 0) res->wide_joint = fp->schedule[8 * b + lane];
                    st = 0.0f;
                }
                step[8 * v + lane] = st, offset[8 * v + lane] = lo;
                /* st is a power of two: times its reciprocal is exactly over
                 * it, a quotient in [0, 65536] (pack_step), which adding and
                 * taking away 2^52 rounds to the nearest integer, ties to
                 * even, as nearbyint does */
                double inverse = st > 0.0f ? 1.0 / (double)st : 0.0;
                const double round = 4503599627370496.0;
                uint16_t *out = packed_keys + 8 * (size_t)v + (size_t)lane;
                size_t row = (size_t)stored * 8;
#define SINEW_QUANTIZE(value)                                      \
    for (size_t k = 0; k < keys; ++k) {                            \
        double x = ((double)(value) - lo) * inverse + round;       \
        double n = x - round;                                      \
        out[k * row] = (uint16_t)(n > 65535.0 ? 65535.0 : n);      \
    }
                if (st > 0.0f && l->frames) {
                    SINEW_QUANTIZE(l->frames[k * l->stride])
                } else if (st > 0.0f && l->q) {
                    SINEW_QUANTIZE(l->offset + (float)((uint16_t)(l->q[2 * k] | l->q[2 * k + 1] << 8)) * l->step)
                } else if (st > 0.0f) {
                    SINEW_QUANTIZE(l->value)
                }
#undef SINEW_QUANTIZE
            }
            ++v;
        }
    }
    sinew__free(alloc, spans);
    if (!fits) {
        sinew__free_aligned(alloc, block);
        return NULL;
    }
    *q = (sinew__packed_keys){.varying = varying, .first = first, .stored = stored, .fixed = fixed,
                              .step = step, .offset = offset, .keys = packed_keys};
    *p = *fp;
    p->times = times_out, p->key_count = (int)keys, p->hint_track = hint_slot, p->schedule = schedule;
    p->frames = NULL, p->packed = q;
    sinew__use_tables(p, &tables);
    *sm = *plain;
    sm->blocks = p, sm->bytes = lay.total;
    memcpy(sm->key_counts, res->key_counts, sizeof sm->key_counts);
    res->varying_floats = 8 * stored;
    return sm;
}

/* The exact layout's frames as a packed layout's sources. */
static void frame_sources(const void *ctx, int b, int f, lane_source out[8])
{
    const sinew__blocks *fp = ctx;
    size_t frame = (size_t)fp->animated * SINEW__BLOCK_FLOATS;
    for (int lane = 0; lane < 8; ++lane)
        out[lane] = (lane_source){.frames = fp->frames + (size_t)b * SINEW__BLOCK_FLOATS + 8 * f + lane,
                                  .stride = frame};
}

sinew__sampler *sinew__sampler_pack(const sinew_clip *clip, const sinew_skeleton *sk, int hint_slot,
                                    const sinew_allocator *alloc, int simd, sinew__pack_result *res)
{
    *res = (sinew__pack_result){.refused_track = -1, .wide_joint = -1};
    res->refused_track = sinew__layout_refusal(clip, &res->why, &res->other_track);
    if (res->refused_track >= 0) return NULL;
    for (int i = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target != SINEW_TARGET_WEIGHTS)
            res->key_counts[clip->tracks[i].target] += clip->tracks[i].key_count;
    sinew__sampler *plain = sinew__blocks_create(clip, sk, alloc, simd);
    if (!plain) return NULL;
    const sinew__blocks *fp = plain->blocks;
    size_t keys = (size_t)fp->key_count, frame = (size_t)fp->animated * SINEW__BLOCK_FLOATS;
    sinew__sampler *sm = pack_layout(plain, fp->times, keys, frame_sources, fp, hint_slot, alloc, res);
    if (!sm) {
        sinew__free_aligned(alloc, plain);
        return NULL;
    }
    /* how far the packed keys lie from the clip's, where tracks write */
    const sinew__blocks *p = sm->blocks;
    for (int e = 0; e < fp->animated * 8; ++e)
        for (size_t k = 0; k < keys; ++k) {
            float x[10], y[10];
            sinew__packed_lane(p, e, k, x);
            for (int f = 0; f < 10; ++f) {
                bool written = p->mask[(size_t)(e / 8) * SINEW__BLOCK_FLOATS + 8 * f + e % 8] != 0;
                y[f] = fp->frames[k * frame + (size_t)(e / 8) * SINEW__BLOCK_FLOATS + 8 * f + e % 8];
                if (!written) x[f] = y[f];
            }
            pack_errors(x, y, res->errors);
        }
    sinew__free_aligned(alloc, plain);
    return sm;
}

/* A packed clip's stored tracks while its layout is made from them: each
 * joint's track of each target (-1: none), the keys, the schedule. */
typedef struct stored_sources {
    const sinew__stored_track *tracks;
    const int *track_of; /* [3 joints] */
    const int16_t *schedule;
} stored_sources;

static void stored_lanes(const void *ctx, int b, int f, lane_source out[8])
{
    const stored_sources *s = ctx;
    int target = f < 3 ? SINEW_TARGET_TRANSLATION : f < 7 ? SINEW_TARGET_ROTATION : SINEW_TARGET_SCALE;
    int c = f - (int)sinew__target_float(target);
    const float *none = &sinew__identity_transform.translation.x;
    for (int lane = 0; lane < 8; ++lane) {
        int ti = s->track_of[3 * s->schedule[8 * b + lane] + target];
        const sinew__stored_float *x = ti >= 0 ? &s->tracks[ti].f[c] : NULL;
        out[lane] = !x     ? (lane_source){.value = none[f]}
                    : x->q ? (lane_source){.q = x->q, .offset = x->offset, .step = x->step}
                           : (lane_source){.value = x->value};
    }
}

sinew__sampler *sinew__sampler_pack_stored(const sinew__stored_track *tracks, int n, const float *times,
                                           int key_count, bool additive, const sinew_skeleton *sk, int hint_slot,
                                           const sinew_allocator *alloc, int simd, sinew__pack_result *res)
{
    *res = (sinew__pack_result){.refused_track = -1, .wide_joint = -1};
    int joints = sk->joint_count;
    /* a track with a float stored per key holds every key, the others one */
    bool keyed = false;
    for (int i = 0; i < n; ++i) {
        int width = tracks[i].target == SINEW_TARGET_ROTATION ? 4 : 3;
        bool q = false;
        for (int c = 0; c < width; ++c) q = q || tracks[i].f[c].q;
        res->key_counts[tracks[i].target] += q ? key_count : 1;
        keyed = keyed || q;
    }
    /* without a keyed track, one key at 0, as the exact layout makes it */
    static const float time_zero = 0.0f;
    size_t keys = keyed ? (size_t)key_count : 1;
    /* the layout's schedule and tables depend on the keys only through
     * which tracks hold one value at every key: a clip of each track's
     * first key, and of the first key that differs from it where one does,
     * makes the same ones at the cost of two keys */
    static const float shape_times[2] = {0.0f, 1.0f};
    sinew_track *shape = sinew__alloc(alloc, sizeof *shape * ((size_t)n + 1));
    float *values = sinew__alloc(alloc, sizeof(float) * 8 * ((size_t)n + 1));
    int *track_of = sinew__alloc(alloc, sizeof(int) * (3 * (size_t)joints + 1));
    sinew__sampler *plain = NULL, *sm = NULL;
    if (!shape || !values || !track_of) goto done;
    for (int i = 0; i < 3 * joints; ++i) track_of[i] = -1;
    for (int i = 0; i < n; ++i) {
        const sinew__stored_track *t = &tracks[i];
        int width = t->target == SINEW_TARGET_ROTATION ? 4 : 3;
        float *v = values + 8 * (size_t)i;
        lane_source l[4];
        for (int c = 0; c < width; ++c)
            l[c] = t->f[c].q ? (lane_source){.q = t->f[c].q, .offset = t->f[c].offset, .step = t->f[c].step}
                             : (lane_source){.value = t->f[c].value};
        for (int c = 0; c < width; ++c) v[c] = lane_at(&l[c], 0);
        int shape_keys = 1;
        for (size_t k = 1; k < keys && shape_keys == 1; ++k)
            for (int c = 0; c < width; ++c) {
                v[4 + c] = lane_at(&l[c], k);
                if (memcmp(&v[4 + c], &v[c], sizeof(float)) != 0) shape_keys = 2;
            }
        if (shape_keys == 2) memmove(v + width, v + 4, sizeof(float) * (size_t)width);
        shape[i] = (sinew_track){.joint = t->joint, .target = t->target, .interpolation = SINEW_INTERP_LINEAR,
                                 .key_count = shape_keys, .times = shape_times, .values = v};
        track_of[3 * t->joint + (int)t->target] = i;
    }
    sinew_clip clip = {.name = "", .joint_count = joints, .track_count = n, .tracks = shape, .additive = additive};
    plain = sinew__blocks_create(&clip, sk, alloc, simd);
    if (!plain) goto done;
    stored_sources ctx = {tracks, track_of, plain->blocks->schedule};
    sm = pack_layout(plain, keyed ? times : &time_zero, keys, stored_lanes, &ctx, hint_slot, alloc, res);
done:
    if (plain) sinew__free_aligned(alloc, plain);
    sinew__free(alloc, shape), sinew__free(alloc, values), sinew__free(alloc, track_of);
    return sm;
}

/* A packed layout sampled by the reference's formulas at key ka, or
 * between ka and kb at factor s: vectors x + (y - x) s (on a key too, as
 * the AVX2 kernel), rotations slerp or nlerp (sinew__rotation_reference)
 * between keys, then normalized; a constant block's values as stored on a
 * key, its translations and scales plus 0 between keys and its rotations
 * as stored. The floats no track writes come from the rest pose (the
 * identity for an additive clip: `under`, its joint's). Entry e of the
 * schedule into `out`, its joint's transform. */
static void packed_entry(const sinew__blocks *p, int e, size_t ka, size_t kb, float s, bool nlerp,
                         const sinew_transform *under, sinew_transform *out)
{
    float x[10], y[10], o[10];
    bool animated = e / 8 < p->animated;
    sinew__packed_lane(p, e, ka, x);
    if (kb != ka) sinew__packed_lane(p, e, kb, y);
    else memcpy(y, x, sizeof x);
    bool on_key = s == 0.0f;
    for (int f = 0; f < 10; ++f) o[f] = (on_key && !animated) ? x[f] : x[f] + (y[f] - x[f]) * s;
    if (!animated) {
        memcpy(o + 3, x + 3, sizeof(float) * 4);
    } else {
        /* normalized: the unpacked keys are unit length only to their
         * rounding, which the reference's slerp would keep (the AVX2
         * kernel normalizes) */
        if (!on_key) sinew__rotation_reference(x + 3, y + 3, s, nlerp, o + 3);
        sinew_quat r = sinew__q_normalize(sinew__q(o[3], o[4], o[5], o[6]));
        memcpy(o + 3, &r, sizeof r);
    }
    const float *u = &under->translation.x;
    for (int f = 0; f < 10; ++f)
        if (!p->mask[(size_t)(e / 8) * SINEW__BLOCK_FLOATS + 8 * f + e % 8]) o[f] = u[f];
    memcpy(out, o, sizeof o);
}

/* The pose under a packed layout's joint: sk's rest pose, the identity for
 * an additive clip. */
static const sinew_transform *packed_under(const sinew__sampler *sm, const sinew_skeleton *sk, int joint)
{
    return sm->additive ? &sinew__identity_transform : &sk->rest_pose[joint];
}

int sinew__packed_tracks(const sinew_clip *clip, const float **times, int *key_count, size_t *stride,
                         sinew__packed_track *out, int capacity)
{
    const sinew__sampler *sm = clip && clip->packed ? sinew__clip_of(clip)->sampler : NULL;
    const sinew__blocks *p = sm ? sm->blocks : NULL;
    if (!p || !p->packed) return 0;
    const sinew__packed_keys *q = p->packed;
    *times = p->times, *key_count = p->key_count, *stride = 8 * (size_t)q->stored;
    int n = 0;
    /* a joint's first entry: the schedule repeats joints to fill pairs and blocks */
    uint8_t seen[SINEW_MAX_JOINTS / 8 + 1] = {0};
    for (int e = 0; e < p->length; ++e) {
        int joint = p->schedule[e], b = e / 8, lane = e % 8;
        if (joint < 0 || seen[joint / 8] >> (joint % 8) & 1) continue;
        seen[joint / 8] |= (uint8_t)(1u << (joint % 8));
        for (int target = 0; target < 3; ++target) {
            int first = (int)sinew__target_float(target), width = target == SINEW_TARGET_ROTATION ? 4 : 3;
            if (!p->mask[(size_t)b * SINEW__BLOCK_FLOATS + 8 * (size_t)first + (size_t)lane]) continue;
            if (n < capacity) {
                sinew__packed_track *t = &out[n];
                t->joint = joint, t->target = (sinew_track_target)target;
                for (int c = 0; c < width; ++c) {
                    int f = first + c;
                    sinew__packed_float *x = &t->f[c];
                    *x = (sinew__packed_float){0};
                    if (b >= p->animated) {
                        x->value = p->constants[(size_t)(b - p->animated) * SINEW__BLOCK_FLOATS + 8 * (size_t)f +
                                                (size_t)lane];
                    } else if (q->varying[b] >> f & 1) {
                        /* vector f of the block's stored ones, counted from its first */
                        int v = q->first[b];
                        for (int g = 0; g < f; ++g) v += q->varying[b] >> g & 1;
                        x->offset = q->offset[8 * v + lane], x->step = q->step[8 * v + lane];
                        x->q = q->keys + 8 * (size_t)v + (size_t)lane;
                    } else {
                        x->value = q->fixed[(size_t)b * SINEW__BLOCK_FLOATS + 8 * (size_t)f + (size_t)lane];
                    }
                }
            }
            ++n;
        }
    }
    return n;
}

/* A packed layout at time t into `local` and, with `model`, on to model
 * space (as the exact block layout runs): with the AVX2 kernel where the
 * plan runs at that level, else entry by entry by the reference's formulas
 * (packed_entry) into `local` alone (packed_model refuses the plan below
 * AVX2). */
static void packed_run(const sinew__sampler *sm, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                       const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model)
{
    const sinew__blocks *p = sm->blocks;
    int ka;
    float s = sinew__locate(p->times, p->key_count, t, hints ? &hints[p->hint_track] : NULL, &ka);
    size_t kb = s != 0.0f ? (size_t)ka + 1 : (size_t)ka;
    bool nlerp = (flags & SINEW_SAMPLE_NLERP) != 0;
    if (sm->kernels) {
        bool copied = sm->additive || sinew__skeleton_of(sk)->rest_hash == p->under_hash;
        sm->kernels->packed_run(p, (size_t)ka, kb, s, nlerp, sm->additive ? NULL : sk->rest_pose, copied, sk->parents,
                               root, local, pose, model);
        return;
    }
    (void)root, (void)pose, (void)model;
    for (int e = 0; e < p->length; ++e) {
        int joint = p->schedule[e];
        packed_entry(p, e, (size_t)ka, kb, s, nlerp, packed_under(sm, sk, joint), &local[joint]);
    }
}

/* The packed form's sample_pose: its layout into the pose alone. */
static void packed_pose(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                        sinew_transform *pose)
{
    packed_run(sinew__clip_of(clip)->sampler, t, flags, hints, sk, NULL, pose, NULL, NULL);
}

/* The packed form's sample_model: in one pass where the layout runs so
 * (sinew__blocks_one_pass). */
static bool packed_model(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                         const sinew_mat4 *root, sinew_transform *local, sinew_mat4 *model)
{
    const sinew__sampler *sm = sinew__clip_of(clip)->sampler;
    if (!sinew__blocks_one_pass(sm, sk, root)) return false;
    packed_run(sm, t, flags, hints, sk, root, local, NULL, model);
    return true;
}

/* The packed form's sample_pose_order: where the layout writes sk's pose
 * order (sinew__blocks_pose_order). */
static bool packed_pose_order(const sinew_clip *clip, float t, unsigned flags, int32_t *hints,
                              const sinew_skeleton *sk, float *pose)
{
    const sinew__sampler *sm = sinew__clip_of(clip)->sampler;
    if (!sinew__blocks_pose_order(sm, sk)) return false;
    packed_run(sm, t, flags, hints, sk, NULL, NULL, pose, NULL);
    return true;
}

/* The packed form's sample_joint: by the reference's formulas, what the
 * plan leaves out from sk's rest pose (the identity for an additive clip). */
static void packed_joint(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                         sinew_transform *out)
{
    const sinew__sampler *sm = sinew__clip_of(clip)->sampler;
    const sinew__blocks *p = sm->blocks;
    int ka;
    float s = sinew__locate(p->times, p->key_count, t, NULL, &ka);
    size_t kb = s != 0.0f ? (size_t)ka + 1 : (size_t)ka;
    for (int e = 0; e < p->length; ++e) {
        if (p->schedule[e] != joint) continue;
        packed_entry(p, e, (size_t)ka, kb, s, (flags & SINEW_SAMPLE_NLERP) != 0, packed_under(sm, sk, joint), out);
        return;
    }
    *out = *packed_under(sm, sk, joint);
}

static size_t packed_bytes(const sinew_clip *clip) { return sinew__sampler_bytes(sinew__clip_of(clip)->sampler); }

/* The keys the packed layout stands for: the clip's before packing. */
static void packed_describe(const sinew_clip *clip, sinew__clip_facts *facts)
{
    memcpy(facts->keys, sinew__clip_of(clip)->sampler->key_counts, sizeof facts->keys);
}

const sinew__clip_form sinew__form_packed = {packed_pose, packed_model, packed_pose_order, packed_joint, packed_bytes,
                                            packed_describe};
