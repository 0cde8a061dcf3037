/* SPDX-License-Identifier: MIT */
/* sinew_clip_compress: a clip resampled, its tracks sorted into left out,
 * constant and animated, and the animated ones quantized per segment at
 * the fewest bits that keep every joint's virtual vertices within the
 * error bound (the format and its decoding: src/clip/compressed.h). */
#include "offline/offline_internal.h"
#include "clip/compressed.h"

#include <float.h>
#include <stdlib.h>

/* The share of the target a track's first bit rate keeps it within by
 * itself; the passes along the hierarchy then raise and lower it. */
#define ALONE 0.5f

enum {
    MAX_SAMPLES = 1 << 24,
    ATTEMPTS = 6 /* searches at a tighter target when the measure finds the bound passed */
};

/* A 3x4 affine transform, column-major: columns 0 to 2 the axes, 3 the
 * translation, a[3 * column + row]. */
typedef struct affine {
    float a[12];
} affine;

static affine affine_of(const sinew_transform *x)
{
    sinew_quat q = x->rotation;
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    affine m = {{(1.0f - 2.0f * (yy + zz)) * x->scale.x, 2.0f * (xy + wz) * x->scale.x, 2.0f * (xz - wy) * x->scale.x,
                 2.0f * (xy - wz) * x->scale.y, (1.0f - 2.0f * (xx + zz)) * x->scale.y, 2.0f * (yz + wx) * x->scale.y,
                 2.0f * (xz + wy) * x->scale.z, 2.0f * (yz - wx) * x->scale.z, (1.0f - 2.0f * (xx + yy)) * x->scale.z,
                 x->translation.x, x->translation.y, x->translation.z}};
    return m;
}

static affine affine_mul(const affine *p, const affine *c)
{
    affine m;
    for (int col = 0; col < 4; ++col)
        for (int r = 0; r < 3; ++r) {
            float v = p->a[r] * c->a[3 * col] + p->a[3 + r] * c->a[3 * col + 1] + p->a[6 + r] * c->a[3 * col + 2];
            m.a[3 * col + r] = col == 3 ? v + p->a[9 + r] : v;
        }
    return m;
}

/* The largest distance between the images of the origin and of the points
 * d along the three axes (as sinew_clip_measure_error measures). */
static float vertex_error(const affine *x, const affine *y, float d)
{
    float dt[3] = {x->a[9] - y->a[9], x->a[10] - y->a[10], x->a[11] - y->a[11]};
    float worst = dt[0] * dt[0] + dt[1] * dt[1] + dt[2] * dt[2];
    for (int c = 0; c < 3; ++c) {
        float s = 0.0f;
        for (int r = 0; r < 3; ++r) {
            float v = dt[r] + d * (x->a[3 * c + r] - y->a[3 * c + r]);
            s += v * v;
        }
        if (s > worst) worst = s;
    }
    return sqrtf(worst);
}

/* The angle between two rotations: of conj(a) b, from its vector part's
 * length (an arc cosine of their dot product loses small angles to
 * rounding). */
static float angle_between(sinew_quat a, sinew_quat b)
{
    sinew_quat r = sinew__q_mul(sinew__q(-a.x, -a.y, -a.z, a.w), b);
    return 2.0f * atan2f(sqrtf(r.x * r.x + r.y * r.y + r.z * r.z), fabsf(r.w));
}

typedef struct track {
    int joint, target; /* target 0 translation, 1 rotation, 2 scale */
    int kind;          /* 0 default, 1 constant, 2 animated */
    int dropped;       /* an animated rotation's rebuilt component */
    bool step;         /* the clip's track is STEP: each sample holds until the next */
    float deviation;   /* a default or constant track's: how far it moves its subtree at most */
    float constant[4];
    float range[6];    /* min[3], extent[3] */
} track;

/* The compression of one clip: its resampled poses and what the search
 * keeps per segment. */
typedef struct work {
    /* the clip and skeleton made again at the scalar level: the encoder
     * reads them by the reference formulas on every machine */
    const sinew_skeleton *sk;
    const sinew_clip *clip;
    int joints, samples, tracks_n;
    float rate;
    const float *times;   /* the sample times, or NULL: k / rate */
    const float *shells;  /* per joint */
    float *reach;         /* per joint: how far its rotation or scale carries (its subtree's extent plus shells) */
    sinew_transform *raw; /* [samples][joints] */
    sinew_transform *raw_mid; /* [samples - 1][joints]: the clip halfway between each two samples */
    float *between;       /* [samples - 1][3]: the times a quarter, half and three quarters between each two */
    const sinew_transform *under; /* [joints] */
    track *tracks;        /* [joints * 3] */
    int *animated;        /* indices into tracks */
    int animated_n;
    int *subtree, *subtree_at; /* joint j's subtree (itself first, parents first): subtree[subtree_at[j] ..] */
    /* per segment */
    int first, count;     /* samples */
    int entries;          /* of the arrays below: each sample, and halfway between each two */
    uint8_t *rate_of;     /* per animated track */
    uint8_t *seg_range;   /* [animated][6] */
    float *lossy;         /* [animated][16][4] */
    int *lossy_n;         /* [animated][16]: floats of each decoded value */
    sinew_transform *pose; /* [entries][joints]: the lossy local pose */
    affine *raw_model, *lossy_local, *lossy_model; /* [entries][joints] */
    float *error;         /* per joint */
    float *limit;         /* per joint: scratch of the lowering */
} work;

static float *value_of(sinew_transform *x, int target)
{
    return target == 0 ? &x->translation.x : target == 1 ? &x->rotation.x : &x->scale.x;
}

/* How far a track's value moves the joint's virtual vertices and its
 * subtree's, at most: a translation by its distance, a rotation by its
 * angle and a scale by its change, times the joint's reach. */
static float track_deviation(const work *w, int joint, int target, const float *a, const float *b)
{
    if (target == 0) {
        float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return sqrtf(dx * dx + dy * dy + dz * dz);
    }
    if (target == 1)
        return angle_between(sinew__q(a[0], a[1], a[2], a[3]), sinew__q(b[0], b[1], b[2], b[3])) * w->reach[joint];
    float d = 0.0f;
    for (int c = 0; c < 3; ++c) d = fmaxf(d, fabsf(a[c] - b[c]));
    return d * w->reach[joint];
}

/* Component c of the three a track stores of value v: a rotation's
 * others than the dropped one. */
static float stored(const track *t, const float *v, int c)
{
    return t->target == 1 && c >= t->dropped ? v[c + 1] : v[c];
}

static void animate(work *w, track *t);

/* Sorts each track into default, constant or animated: left out or held
 * once where that moves no vertex by more than `tolerance`. */
static void classify(work *w, float tolerance)
{
    for (int i = 0; i < w->tracks_n; ++i) {
        track *t = &w->tracks[i];
        int n = t->target == 1 ? 4 : 3;
        float lo[4], hi[4], dflt[4], mid[4];
        memcpy(dflt, value_of((sinew_transform *)&w->under[t->joint], t->target), sizeof(float) * (size_t)n);
        for (int c = 0; c < n; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
        for (int k = 0; k < w->samples; ++k) {
            const float *v = value_of(&w->raw[(size_t)k * w->joints + t->joint], t->target);
            for (int c = 0; c < n; ++c) lo[c] = fminf(lo[c], v[c]), hi[c] = fmaxf(hi[c], v[c]);
        }
        for (int c = 0; c < n; ++c) mid[c] = 0.5f * (lo[c] + hi[c]);
        if (t->target == 1) {
            sinew_quat q = sinew__q_normalize(sinew__q(mid[0], mid[1], mid[2], mid[3]));
            mid[0] = q.x, mid[1] = q.y, mid[2] = q.z, mid[3] = q.w;
        }
        float to_default = 0.0f, to_mid = 0.0f;
        for (int k = 0; k < w->samples; ++k) {
            const float *v = value_of(&w->raw[(size_t)k * w->joints + t->joint], t->target);
            to_default = fmaxf(to_default, track_deviation(w, t->joint, t->target, v, dflt));
            to_mid = fmaxf(to_mid, track_deviation(w, t->joint, t->target, v, mid));
        }
        memcpy(t->constant, mid, sizeof mid);
        if (to_default <= tolerance) {
            t->kind = 0, t->deviation = to_default;
        } else if (to_mid <= tolerance) {
            t->kind = 1, t->deviation = to_mid;
        } else {
            animate(w, t);
        }
    }
}

/* Makes track t animated: its dropped component and its clip range. */
static void animate(work *w, track *t)
{
    t->kind = 2;
    t->deviation = 0.0f;
    t->dropped = 0;
    if (t->target == 1) {
        /* drop the component furthest from 0 over the clip, each
         * sample's sign chosen to keep it >= 0 */
        float best = -1.0f;
        for (int c = 0; c < 4; ++c) {
            float least = INFINITY;
            for (int k = 0; k < w->samples; ++k)
                least = fminf(least, fabsf(value_of(&w->raw[(size_t)k * w->joints + t->joint], 1)[c]));
            if (least > best) best = least, t->dropped = c;
        }
        for (int k = 0; k < w->samples; ++k) {
            sinew_quat *q = &w->raw[(size_t)k * w->joints + t->joint].rotation;
            if (value_of(&w->raw[(size_t)k * w->joints + t->joint], 1)[t->dropped] < 0.0f)
                *q = sinew__q(-q->x, -q->y, -q->z, -q->w);
        }
    }
    for (int c = 0; c < 3; ++c) {
        float l = INFINITY, h = -INFINITY;
        for (int k = 0; k < w->samples; ++k) {
            float v = stored(t, value_of(&w->raw[(size_t)k * w->joints + t->joint], t->target), c);
            l = fminf(l, v), h = fmaxf(h, v);
        }
        t->range[c] = l, t->range[3 + c] = h - l;
    }
}

/* The largest error of each joint over the clip's samples with every
 * animated track exact and the others at their one value: into w->error.
 * Returns the first joint (parents first) whose error passes `limit`, or -1. */
static int held_error(work *w, float limit)
{
    int n = w->joints;
    for (int j = 0; j < n; ++j) w->error[j] = 0.0f;
    for (int k = 0; k < w->samples; ++k) {
        const sinew_transform *raw = &w->raw[(size_t)k * n];
        for (int j = 0; j < n; ++j) {
            sinew_transform x = raw[j];
            for (int target = 0; target < 3; ++target) {
                const track *t = &w->tracks[3 * j + target];
                if (t->kind == 2) continue;
                const float *v = t->kind == 0 ? value_of((sinew_transform *)&w->under[j], target) : t->constant;
                memcpy(value_of(&x, target), v, sizeof(float) * (target == 1 ? 4 : 3));
            }
            affine l = affine_of(&raw[j]), h = affine_of(&x);
            int p = w->sk->parents[j];
            w->raw_model[j] = p < 0 ? l : affine_mul(&w->raw_model[p], &l);
            w->lossy_model[j] = p < 0 ? h : affine_mul(&w->lossy_model[p], &h);
            w->error[j] = fmaxf(w->error[j], vertex_error(&w->raw_model[j], &w->lossy_model[j], w->shells[j]));
        }
    }
    for (int j = 0; j < n; ++j)
        if (w->error[j] > limit) return j;
    return -1;
}

/* Where the tracks held at one value (each within the tolerance alone)
 * add up along a chain to more than `limit` at a joint, animates the one
 * of the chain that deviates most, until no joint passes it. */
static void settle(work *w, float limit)
{
    for (int j; (j = held_error(w, limit)) >= 0;) {
        track *most = NULL;
        for (int c = j; c >= 0; c = w->sk->parents[c])
            for (int target = 0; target < 3; ++target) {
                track *t = &w->tracks[3 * c + target];
                if (t->kind != 2 && t->deviation > 0.0f && (!most || t->deviation > most->deviation)) most = t;
            }
        if (!most) return;
        animate(w, most);
    }
}

/* Component c of value v normalized over the track's clip range (0 where
 * the range is empty). */
static float normalized(const track *t, const float *v, int c)
{
    float e = t->range[3 + c];
    if (!(e > 0.0f)) return 0.0f;
    float u = (stored(t, v, c) - t->range[c]) / e;
    return u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
}

/* Appends `bits` bits of v to the stream at bit `*at`. */
static void put_bits(unsigned char *stream, uint64_t *at, uint64_t v, int bits)
{
    for (int b = 0; b < bits; ++b, ++*at)
        if (v >> b & 1) stream[*at >> 3] |= (unsigned char)(1u << (*at & 7));
}

/* Segment ranges of animated track a at bit rate index r over the
 * segment's samples, into w->seg_range. */
static void make_range(work *w, int a, int r)
{
    const track *t = &w->tracks[w->animated[a]];
    unsigned char *seg = &w->seg_range[6 * a];
    memset(seg, 0, 6);
    if (r == SINEW__RAW_RATE) return;
    for (int c = 0; c < 3; ++c) {
        float lo = 1.0f, hi = 0.0f;
        for (int k = 0; k < w->count; ++k) {
            float u = normalized(t, value_of(&w->raw[(size_t)(w->first + k) * w->joints + t->joint], t->target), c);
            lo = fminf(lo, u), hi = fmaxf(hi, u);
        }
        if (r == 0) {
            unsigned v = (unsigned)lrintf(0.5f * (lo + hi) * 65535.0f);
            seg[2 * c] = (unsigned char)(v & 255), seg[2 * c + 1] = (unsigned char)(v >> 8);
            continue;
        }
        int l = (int)floorf(lo * 255.0f), h = (int)ceilf(hi * 255.0f);
        l = l < 0 ? 0 : l > 254 ? 254 : l;
        h = h > 255 ? 255 : h <= l ? l + 1 : h;
        seg[c] = (unsigned char)l, seg[3 + c] = (unsigned char)(h - l);
    }
}

/* The quantized integers of a value at bit rate index r (1 .. 14): each
 * nearest to the value through the map the sampler applies. */
static uint64_t quantize(const track *t, const unsigned char *seg, const float *v, int r)
{
    int b = sinew__bits_of[r];
    uint64_t mask = (1u << b) - 1u, out = 0;
    float lo[3], sc[3];
    sinew__segment_map(t->range, seg, r, lo, sc);
    for (int c = 0; c < 3; ++c) {
        long q = sc[c] > 0.0f ? lrintf((stored(t, v, c) - lo[c]) / sc[c]) : 0;
        q = q < 0 ? 0 : q > (long)mask ? (long)mask : q;
        out |= (uint64_t)q << (b * c);
    }
    return out;
}

/* Writes sample k (of the segment) of animated track a at bit rate index
 * r into `stream` at `*at`. */
static void put_sample(const work *w, int a, int k, int r, unsigned char *stream, uint64_t *at)
{
    const track *t = &w->tracks[w->animated[a]];
    const float *v = value_of(&w->raw[(size_t)(w->first + k) * w->joints + t->joint], t->target);
    if (r == 0) return;
    if (r == SINEW__RAW_RATE) {
        for (int c = 0; c < (t->target == 1 ? 4 : 3); ++c) {
            uint32_t u;
            memcpy(&u, &v[c], 4);
            put_bits(stream, at, u, 32);
        }
        return;
    }
    put_bits(stream, at, quantize(t, &w->seg_range[6 * a], v, r), 3 * sinew__bits_of[r]);
}

/* Animated track a at bit rate index r: its segment range and its values
 * as the sampler decodes them, into w->lossy. */
static void set_rate(work *w, int a, int r)
{
    w->rate_of[a] = (uint8_t)r;
    make_range(w, a, r);
    const track *t = &w->tracks[w->animated[a]];
    for (int k = 0; k < w->count; ++k) {
        unsigned char stream[24] = {0};
        uint64_t at = 0;
        put_sample(w, a, k, r, stream, &at);
        float *out = &w->lossy[((size_t)a * SINEW__SEGMENT_SAMPLES + (size_t)k) * 4];
        w->lossy_n[a * SINEW__SEGMENT_SAMPLES + k] =
            sinew__decode_value(stream, 0, r, t->target == 1, t->range, &w->seg_range[6 * a], out);
    }
}

/* The value halfway between two of a track's values (the rotations by
 * slerp, the shorter way), as sampling interpolates; a step track's, the
 * first. */
static void halfway(int target, bool step, const sinew_transform *a, const sinew_transform *b, sinew_transform *out)
{
    if (step)
        memcpy(value_of(out, target), value_of((sinew_transform *)a, target), sizeof(float) * (target == 1 ? 4 : 3));
    else if (target == 1)
        out->rotation = sinew_quat_slerp(a->rotation, b->rotation, 0.5f);
    else if (target == 0)
        out->translation = sinew__v3_scale(sinew__v3_add(a->translation, b->translation), 0.5f);
    else
        out->scale = sinew__v3_scale(sinew__v3_add(a->scale, b->scale), 0.5f);
}

/* The lossy local transforms of animated track a's joint: at each sample
 * (even entries) as decoded, and halfway between each two (odd ones), where
 * a rotation that turns by nearly half a turn between two samples can go
 * the other way round when the samples are quantized. */
static void apply_track(work *w, int a)
{
    const track *t = &w->tracks[w->animated[a]];
    size_t n = (size_t)w->joints;
    for (int k = 0; k < w->count; ++k) {
        sinew_transform *x = &w->pose[2 * (size_t)k * n + (size_t)t->joint];
        const float *v = &w->lossy[((size_t)a * SINEW__SEGMENT_SAMPLES + (size_t)k) * 4];
        if (t->target == 1)
            x->rotation = sinew__rotation_from_stored(v, w->lossy_n[a * SINEW__SEGMENT_SAMPLES + k], t->dropped);
        else if (t->target == 0)
            x->translation = sinew__v3(v[0], v[1], v[2]);
        else
            x->scale = sinew__v3(v[0], v[1], v[2]);
    }
    for (int e = 1; e < w->entries; e += 2)
        halfway(t->target, t->step, &w->pose[(size_t)(e - 1) * n + (size_t)t->joint],
                &w->pose[(size_t)(e + 1) * n + (size_t)t->joint], &w->pose[(size_t)e * n + (size_t)t->joint]);
}

/* Recomputes the lossy model transforms and errors of joint j's subtree,
 * after its own local transform changed. Returns the subtree's largest
 * error. */
static float update_subtree(work *w, int j)
{
    int n = w->joints;
    for (int k = 0; k < w->entries; ++k)
        w->lossy_local[(size_t)k * n + j] = affine_of(&w->pose[(size_t)k * n + j]);
    float worst = 0.0f;
    for (int s = w->subtree_at[j]; s < w->subtree_at[j + 1]; ++s) {
        int d = w->subtree[s], p = w->sk->parents[d];
        float e = 0.0f;
        for (int k = 0; k < w->entries; ++k) {
            affine *m = &w->lossy_model[(size_t)k * n + d];
            *m = p < 0 ? w->lossy_local[(size_t)k * n + d] : affine_mul(&w->lossy_model[(size_t)k * n + p],
                                                                        &w->lossy_local[(size_t)k * n + d]);
            e = fmaxf(e, vertex_error(&w->raw_model[(size_t)k * n + d], m, w->shells[d]));
        }
        w->error[d] = e;
        worst = fmaxf(worst, e);
    }
    return worst;
}

/* Animated track a's bit rate set to r, the lossy pose and the subtree's
 * errors updated; returns the subtree's largest error. */
static float try_rate(work *w, int a, int r)
{
    set_rate(w, a, r);
    apply_track(w, a);
    return update_subtree(w, w->tracks[w->animated[a]].joint);
}

/* The bits a sample of animated track a takes at rate index r. */
static uint32_t cost(const work *w, int a, int r) { return sinew__sample_bits(r, w->tracks[w->animated[a]].target == 1); }

/* The bit rates of the current segment: each track first at the fewest
 * bits that move its own subtree by at most ALONE of the target by itself;
 * then, parents first, the tracks along each joint's chain raised where
 * the joint's error passes the target, the one that cuts it most a bit
 * first; then, leaves first, each track lowered while its subtree stays
 * within the target. */
static void search_segment(work *w, float target)
{
    int n = w->joints;
    /* the raw model transforms, and the lossy pose from the pose under the
     * clip, the constants and the animated tracks */
    w->entries = 2 * w->count - 1;
    for (int k = 0; k < w->entries; ++k) {
        /* even entries: the samples; odd ones: the clip between them */
        const sinew_transform *raw = k % 2 ? &w->raw_mid[(size_t)(w->first + k / 2) * n]
                                           : &w->raw[(size_t)(w->first + k / 2) * n];
        sinew_transform *pose = &w->pose[(size_t)k * n];
        for (int j = 0; j < n; ++j) {
            pose[j] = raw[j];
            affine l = affine_of(&pose[j]);
            int p = w->sk->parents[j];
            w->raw_model[(size_t)k * n + j] = p < 0 ? l : affine_mul(&w->raw_model[(size_t)k * n + p], &l);
        }
        for (int i = 0; i < w->tracks_n; ++i) {
            const track *t = &w->tracks[i];
            if (t->kind == 2) continue;
            const float *v = t->kind == 0 ? value_of((sinew_transform *)&w->under[t->joint], t->target) : t->constant;
            memcpy(value_of(&pose[t->joint], t->target), v, sizeof(float) * (t->target == 1 ? 4 : 3));
        }
    }
    for (int a = 0; a < w->animated_n; ++a) {
        const track *t = &w->tracks[w->animated[a]];
        int r = 0;
        for (; r < SINEW__RAW_RATE; ++r) {
            set_rate(w, a, r);
            float worst = 0.0f;
            for (int k = 0; k < w->count; ++k) {
                const float *raw = value_of(&w->raw[(size_t)(w->first + k) * n + t->joint], t->target);
                const float *v = &w->lossy[((size_t)a * SINEW__SEGMENT_SAMPLES + (size_t)k) * 4];
                float q[4];
                if (t->target == 1) {
                    sinew_quat x =
                        sinew__rotation_from_stored(v, w->lossy_n[a * SINEW__SEGMENT_SAMPLES + k], t->dropped);
                    q[0] = x.x, q[1] = x.y, q[2] = x.z, q[3] = x.w;
                    v = q;
                }
                worst = fmaxf(worst, track_deviation(w, t->joint, t->target, raw, v));
            }
            if (worst <= ALONE * target) break;
        }
        set_rate(w, a, r);
        apply_track(w, a);
    }
    for (int k = 0; k < w->entries; ++k)
        for (int j = 0; j < n; ++j) w->lossy_local[(size_t)k * n + j] = affine_of(&w->pose[(size_t)k * n + j]);
    for (int j = 0; j < n; ++j)
        if (w->sk->parents[j] < 0) update_subtree(w, j);
    /* raise, parents first: where a joint passes the target, the rate of
     * its chain's tracks that cuts its error most a bit, among the next
     * few and floats (one more bit need not cut it: the chain's errors
     * add with their signs), until it is within or nothing cuts it (what a
     * constant or left-out track moves stays) */
    for (int j = 0; j < n; ++j) {
        while (w->error[j] > target) {
            int best = -1, best_rate = 0;
            float best_gain = 0.0f, before = w->error[j];
            for (int c = j; c >= 0; c = w->sk->parents[c])
                for (int a = 0; a < w->animated_n; ++a) {
                    if (w->tracks[w->animated[a]].joint != c || w->rate_of[a] >= SINEW__RAW_RATE) continue;
                    int r = w->rate_of[a];
                    for (int up = r + 1; up <= SINEW__RAW_RATE; up = up < r + 3 ? up + 1 : SINEW__RAW_RATE) {
                        try_rate(w, a, up);
                        float gain = (before - w->error[j]) / (float)(cost(w, a, up) - cost(w, a, r));
                        if (gain > best_gain) best = a, best_rate = up, best_gain = gain;
                        if (up == SINEW__RAW_RATE) break;
                    }
                    try_rate(w, a, r);
                }
            if (best < 0) break;
            try_rate(w, best, best_rate);
        }
    }
    /* lower, leaves first, while no joint of the subtree passes the target
     * (or, where it passed it already, grows) */
    for (int a = w->animated_n - 1; a >= 0; --a) {
        int j = w->tracks[w->animated[a]].joint;
        while (w->rate_of[a] > 0) {
            int r = w->rate_of[a];
            for (int s = w->subtree_at[j]; s < w->subtree_at[j + 1]; ++s)
                w->limit[s - w->subtree_at[j]] = fmaxf(target, w->error[w->subtree[s]]);
            try_rate(w, a, r - 1);
            bool within = true;
            for (int s = w->subtree_at[j]; s < w->subtree_at[j + 1] && within; ++s)
                within = w->error[w->subtree[s]] <= w->limit[s - w->subtree_at[j]];
            if (within) continue;
            try_rate(w, a, r);
            break;
        }
    }
}

/* A growing byte buffer. */
typedef struct buffer {
    unsigned char *p;
    size_t size, capacity;
    bool failed;
} buffer;

static size_t reserve(buffer *b, size_t n, size_t align)
{
    size_t at = (b->size + align - 1) / align * align;
    if (b->failed || n > SIZE_MAX / 2 - at) {
        b->failed = true;
        return 0;
    }
    if (at + n > b->capacity) {
        size_t c = b->capacity ? b->capacity : 4096;
        while (c < at + n) c *= 2;
        unsigned char *q = realloc(b->p, c);
        if (!q) {
            b->failed = true;
            return 0;
        }
        memset(q + b->capacity, 0, c - b->capacity);
        b->p = q, b->capacity = c;
    }
    memset(b->p + b->size, 0, at + n - b->size);
    b->size = at + n;
    return at;
}

static void put_u32(buffer *b, size_t at, uint32_t v) { memcpy(b->p + at, &v, 4); }
static void put_f32(buffer *b, size_t at, float v) { memcpy(b->p + at, &v, 4); }

/* Searches every segment's bit rates at `target` and writes the block
 * into `out` (its error figures 0: measured after). */
static void encode(work *w, float target, float bound, float shell, buffer *out)
{
    int constant = 0;
    for (int i = 0; i < w->tracks_n; ++i) constant += w->tracks[i].kind == 1;
    int animated = w->animated_n, segments = (w->samples + SINEW__SEGMENT_SAMPLES - 1) / SINEW__SEGMENT_SAMPLES;
    out->size = 0;
    size_t h = reserve(out, SINEW__COMPRESSED_HEADER, 16);
    size_t at_times = 0;
    if (w->times) {
        at_times = reserve(out, 4 * (size_t)w->samples, 4);
        if (!out->failed) memcpy(out->p + at_times, w->times, 4 * (size_t)w->samples);
    }
    size_t at_tracks = reserve(out, 4 * (size_t)(constant + animated), 4);
    int listed = 0;
    for (int kind = 1; kind <= 2; ++kind)
        for (int i = 0; i < w->tracks_n && !out->failed; ++i)
            if (w->tracks[i].kind == kind) {
                const track *t = &w->tracks[i];
                uint32_t code = kind == 2 ? sinew__track_code(t->joint, t->target, t->dropped, t->step)
                                          : sinew__track_code(t->joint, t->target, 0, false);
                memcpy(out->p + at_tracks + 4 * (size_t)listed++, &code, 4);
            }
    size_t at_constants = reserve(out, 0, 4);
    for (int i = 0; i < w->tracks_n && !out->failed; ++i)
        if (w->tracks[i].kind == 1) {
            size_t n = w->tracks[i].target == 1 ? 4 : 3;
            size_t at = reserve(out, 4 * n, 4);
            if (!out->failed) memcpy(out->p + at, w->tracks[i].constant, 4 * n);
        }
    size_t at_ranges = reserve(out, 24 * (size_t)animated, 4);
    for (int a = 0; a < animated && !out->failed; ++a)
        memcpy(out->p + at_ranges + 24 * (size_t)a, w->tracks[w->animated[a]].range, 24);
    size_t at_segments = reserve(out, 8 * (size_t)segments, 4);
    for (int s = 0; s < segments && !out->failed; ++s) {
        w->first = s * SINEW__SEGMENT_SAMPLES;
        w->count = w->samples - w->first < SINEW__SEGMENT_SAMPLES ? w->samples - w->first : SINEW__SEGMENT_SAMPLES;
        search_segment(w, target);
        uint64_t frame = 0;
        for (int a = 0; a < animated; ++a) frame += cost(w, a, w->rate_of[a]);
        size_t header = (size_t)(animated + 1) / 2 + 6 * (size_t)animated;
        size_t at = reserve(out, header + (size_t)((frame * (uint64_t)w->count + 7) / 8), 4);
        if (out->failed) break;
        put_u32(out, at_segments + 8 * (size_t)s, (uint32_t)at);
        put_u32(out, at_segments + 8 * (size_t)s + 4, (uint32_t)frame);
        unsigned char *seg = out->p + at;
        for (int a = 0; a < animated; ++a) {
            seg[a / 2] |= (unsigned char)(w->rate_of[a] << (a % 2 * 4));
            memcpy(seg + (animated + 1) / 2 + 6 * a, &w->seg_range[6 * a], 6);
        }
        uint64_t bit = 0;
        for (int k = 0; k < w->count; ++k)
            for (int a = 0; a < animated; ++a) put_sample(w, a, k, w->rate_of[a], seg + header, &bit);
    }
    reserve(out, 0, 4);
    reserve(out, SINEW__COMPRESSED_TAIL, 1);
    if (out->failed) return;
    unsigned char *p = out->p + h;
    memcpy(p, "SNWC", 4);
    put_u32(out, h + 4, (uint32_t)out->size);
    put_u32(out, h + 8, 1);
    put_u32(out, h + 12, (uint32_t)w->joints);
    put_u32(out, h + 16, (uint32_t)w->samples);
    put_f32(out, h + 20, w->rate);
    put_u32(out, h + 24, (uint32_t)segments);
    put_u32(out, h + 28, (uint32_t)constant);
    put_u32(out, h + 32, (uint32_t)animated);
    put_u32(out, h + 36, (uint32_t)(w->tracks_n - constant - animated));
    put_f32(out, h + 40, bound);
    put_f32(out, h + 44, shell);
    put_u32(out, h + 56, (uint32_t)-1);
    put_u32(out, h + 64, (uint32_t)at_tracks);
    put_u32(out, h + 68, (uint32_t)at_constants);
    put_u32(out, h + 72, (uint32_t)at_ranges);
    put_u32(out, h + 76, (uint32_t)at_segments);
    put_u32(out, h + 80, (uint32_t)at_times);
}

/* The joints' reach: for each, the furthest its subtree's virtual vertices
 * lie from it in the rest pose (its own shell at least). */
static void make_reach(work *w)
{
    int n = w->joints;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    for (int j = 0; j < n; ++j) w->reach[j] = w->shells[j];
    if (!model || sinew_local_to_model(w->sk, w->sk->rest_pose, NULL, model, n, NULL) != SINEW_OK) {
        free(model);
        return;
    }
    for (int j = 0; j < n; ++j)
        for (int s = w->subtree_at[j]; s < w->subtree_at[j + 1]; ++s) {
            int d = w->subtree[s];
            float dx = model[d].m[12] - model[j].m[12], dy = model[d].m[13] - model[j].m[13],
                  dz = model[d].m[14] - model[j].m[14];
            w->reach[j] = fmaxf(w->reach[j], sqrtf(dx * dx + dy * dy + dz * dz) + w->shells[d]);
        }
    free(model);
}

/* Each joint's subtree, parents first (itself first). */
static bool make_subtrees(work *w)
{
    int n = w->joints;
    const int16_t *parents = w->sk->parents;
    size_t total = 0;
    int *size = calloc((size_t)n + 1, sizeof *size);
    if (!size) return false;
    for (int j = 0; j < n; ++j)
        for (int a = j; a >= 0; a = parents[a]) ++size[a], ++total;
    w->subtree = malloc(sizeof *w->subtree * (total + 1));
    if (!w->subtree) {
        free(size);
        return false;
    }
    w->subtree_at[0] = 0;
    for (int j = 0; j < n; ++j) w->subtree_at[j + 1] = w->subtree_at[j] + size[j];
    memset(size, 0, sizeof *size * (size_t)n);
    for (int j = 0; j < n; ++j)
        for (int a = j; a >= 0; a = parents[a]) w->subtree[w->subtree_at[a] + size[a]++] = j;
    free(size);
    return true;
}

/* Whether the times are spaced evenly from 0 to the duration (to a
 * thousandth of their spacing), so that a rate gives them. */
static bool evenly_spaced(const float *t, int n, float duration)
{
    if (n < 2 || t[0] != 0.0f) return false;
    double step = (double)duration / (n - 1);
    for (int k = 0; k < n; ++k)
        if (fabs((double)t[k] - step * k) > 1e-3 * step) return false;
    return true;
}

/* The sorted union of n key times (sorted, from 0 up) and a grid of
 * `grid` times evenly from 0 to d, into out; returns its count. */
static int merge_grid(const float *keys, int n, int grid, float d, float *out)
{
    int count = 0, k = 0;
    for (int g = 0; g < grid || k < n;) {
        float t = g < grid ? (g == grid - 1 ? d : (float)((double)d * g / (grid - 1))) : INFINITY;
        float next = k < n && keys[k] <= t ? keys[k++] : (++g, t);
        if (count == 0 || next > out[count - 1]) out[count++] = next;
    }
    return count;
}

/* One way to resample: at a rate, or at a table of times. */
typedef struct sampling {
    int samples;
    float rate;
    const float *times;
} sampling;

/* Sample k's time. */
static float sample_time(const sampling *how, int k, float duration)
{
    return how->times ? how->times[k] : k == how->samples - 1 ? duration : (float)((double)k / how->rate);
}

/* The first joint of pose x (the skeleton's joints) whose local or model
 * transform is not finite, or -1; `model` is scratch of a transform a
 * joint. */
static int not_finite_joint(const work *w, const sinew_transform *x, affine *model)
{
    for (int j = 0; j < w->joints; ++j) {
        affine l = affine_of(&x[j]);
        int p = w->sk->parents[j];
        model[j] = p < 0 ? l : affine_mul(&model[p], &l);
        if (!sinew__finite_n(&x[j].translation.x, 10) || !sinew__finite_n(model[j].a, 12)) return j;
    }
    return -1;
}

/* The first animated track whose range over the clip passes a float's
 * (its extent infinite: values from -1e38 to 1e38, say), or NULL. */
static const track *unbounded_track(const work *w)
{
    for (int a = 0; a < w->animated_n; ++a) {
        const track *t = &w->tracks[w->animated[a]];
        if (!sinew__finite_n(t->range, 6)) return t;
    }
    return NULL;
}

/* The compression of the clip resampled one way: searched at the bound,
 * measured, and searched again at a tighter target while the measure finds
 * the bound passed. NULL with err filled: out of memory, or poses the
 * encoder cannot hold or the measure cannot measure. `*poses` counts the
 * poses sampled and measured. */
static sinew_clip *compress_with(work *w, const sinew_clip *clip, sampling how, float aim, float bound, float shell,
                                 const sinew_track *kept, int weights, const sinew_options *options,
                                 sinew_clip_error_report *measured, size_t *poses, sinew_error *err)
{
    static const char who[] = "sinew_clip_compress";
    int n = w->joints;
    w->samples = how.samples, w->rate = how.rate, w->times = how.times;
    free(w->raw), free(w->raw_mid), free(w->between);
    w->raw = malloc(sizeof *w->raw * (size_t)w->samples * (size_t)n);
    w->raw_mid = malloc(sizeof *w->raw_mid * (size_t)w->samples * (size_t)n);
    w->between = malloc(sizeof *w->between * 3 * (size_t)w->samples);
    if (!w->raw || !w->raw_mid || !w->between) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: clip \"%s\": out of memory", who, clip->name);
        return NULL;
    }
    for (int k = 0; k < w->samples; ++k) {
        float t = sample_time(&how, k, clip->duration);
        if (k + 1 < w->samples) {
            /* the clip itself between samples, which interpolating them may miss */
            float next = sample_time(&how, k + 1, clip->duration);
            for (int q = 0; q < 3; ++q) w->between[3 * k + q] = t + (next - t) * 0.25f * (float)(q + 1);
            sinew_clip_sample(w->clip, w->sk, w->between[3 * k + 1], 0, NULL, &w->raw_mid[(size_t)k * n], n, NULL);
        }
        sinew_transform *pose = &w->raw[(size_t)k * n];
        sinew_clip_sample(w->clip, w->sk, t, 0, NULL, pose, n, NULL);
        /* each rotation on the side of the previous sample's, so that a
         * still one's components stay still */
        for (int j = 0; k > 0 && j < n; ++j)
            if (sinew__q_dot(pose[j].rotation, pose[j - n].rotation) < 0.0f)
                pose[j].rotation = sinew__q(-pose[j].rotation.x, -pose[j].rotation.y, -pose[j].rotation.z,
                                            -pose[j].rotation.w);
    }
    *poses += 2 * (size_t)w->samples - 1;
    /* poses past a float's range (a spline's tangents times keys 1e20 s
     * apart, say) can be neither quantized nor measured */
    for (int k = 0; k < 2 * w->samples - 1; ++k) {
        int j = not_finite_joint(w, k % 2 ? &w->raw_mid[(size_t)(k / 2) * n] : &w->raw[(size_t)(k / 2) * n],
                                 w->raw_model);
        if (j < 0) continue;
        float t = k % 2 ? w->between[3 * (k / 2) + 1] : sample_time(&how, k / 2, clip->duration);
        sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: clip \"%s\": joint %d's pose at %g s is not finite (values "
                    "past a float's range), so it can be neither compressed nor measured", who, clip->name, j,
                    (double)t);
        return NULL;
    }
    buffer block = {0};
    sinew_clip *out = NULL; /* the best attempt: within the bound, or the closest */
    float target = aim, previous = INFINITY;
    bool failed = false;
    for (int attempt = 0; attempt < ATTEMPTS && !failed; ++attempt) {
        classify(w, 0.25f * target);
        settle(w, 0.5f * target);
        w->animated_n = 0;
        for (int i = 0; i < w->tracks_n; ++i)
            if (w->tracks[i].kind == 2) w->animated[w->animated_n++] = i;
        const track *wide = unbounded_track(w);
        if (wide) {
            sinew_clip_free(out);
            free(block.p);
            sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: clip \"%s\": joint %d's %s varies by more than a "
                        "float holds, so it cannot be quantized", who, clip->name, wide->joint,
                        sinew__target_names[wide->target]);
            return NULL;
        }
        encode(w, target, bound, shell, &block);
        if (block.failed || block.size > INT32_MAX) {
            failed = true;
            break;
        }
        sinew_clip_desc d = {.name = clip->name, .joint_count = n, .duration = clip->duration,
                             .track_count = weights, .tracks = kept, .additive = clip->additive};
        sinew_clip *made = sinew_clip_create(&d, options, err);
        sinew_clip_error_report m = {0};
        /* sampled and measured by the reference formulas, as w->clip is,
         * so that the same clip compresses to the same bytes at every
         * SIMD level; the encoder writes what the reader takes, so only
         * memory, or a pose between the samples past a float's range
         * (which the measure refuses), can fail */
        failed = !made || sinew__clip_compressed(made, block.p, block.size, false, SINEW_SIMD_SCALAR);
        sinew_result r = failed ? SINEW_ERROR_OUT_OF_MEMORY
                                : sinew__measure_error(w->clip, made, w->sk, w->shells, 0.0f, w->between,
                                                       3 * (size_t)(w->samples - 1), &m, who, err);
        sinew_clip_free(failed || r != SINEW_OK ? made : NULL);
        if (r == SINEW_ERROR_NOT_FINITE) {
            sinew_clip_free(out);
            free(block.p);
            return NULL;
        }
        if (failed || r != SINEW_OK) {
            failed = true;
            break;
        }
        *poses += (size_t)m.poses;
        if (!out || m.largest < measured->largest) {
            sinew_clip_free(out);
            out = made, *measured = m;
        } else {
            sinew_clip_free(made);
        }
        /* a search over the samples leaves the error between them to the
         * measure: where it passes the bound, the target tightens by as
         * much; where tightening stops helping well above the bound, the
         * resampling itself (not the bits) holds the error, and the
         * attempts end */
        if (m.largest <= aim || (attempt > 0 && m.largest > 0.95f * previous && m.largest > 1.5f * aim)) break;
        previous = m.largest;
        target *= fmaxf(0.5f, 0.97f * aim / m.largest);
    }
    free(block.p);
    if (failed || !out) {
        sinew_clip_free(out);
        if (block.size > INT32_MAX)
            sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "%s: clip \"%s\": %zu bytes compressed pass the 2 GiB a block "
                        "holds", who, clip->name, block.size);
        else
            sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: clip \"%s\": out of memory", who, clip->name);
        return NULL;
    }
    /* the measured figures into the block the clip holds */
    size_t size;
    unsigned char *p = (unsigned char *)(uintptr_t)sinew__clip_compressed_bytes(out, &size);
    buffer at = {.p = p};
    put_f32(&at, 48, measured->largest);
    put_f32(&at, 52, measured->percentile_99);
    put_u32(&at, 56, (uint32_t)measured->worst_joint);
    put_f32(&at, 60, measured->worst_time);
    sinew__compressed *c = (sinew__compressed *)(uintptr_t)sinew__clip_of(out)->compressed;
    c->largest = measured->largest, c->percentile_99 = measured->percentile_99;
    c->worst_joint = measured->worst_joint, c->worst_time = measured->worst_time;
    return out;
}

sinew_clip *sinew_clip_compress(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_compress_options *o,
                                const sinew_options *options, sinew_compress_report *report, sinew_error *err)
{
    static const char who[] = "sinew_clip_compress";
    sinew__ok(err);
    if (!clip || !sk) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: a clip and its skeleton are required", who);
        return NULL;
    }
    if (sinew__refuse_clip_for(clip, sk->joint_count, who, "the skeleton", err)) return NULL;
    static const sinew_compress_options defaults;
    if (!o) o = &defaults;
    float unit = o->meters_per_unit == 0.0f ? 1.0f : o->meters_per_unit;
    float bound = o->error_bound == 0.0f ? 0.0001f / unit : o->error_bound;
    float shell = o->shell_distance == 0.0f ? 0.03f / unit : o->shell_distance;
    if (!(unit > 0.0f) || !isfinite(unit) || !(bound > 0.0f) || !isfinite(bound) || !(shell > 0.0f) ||
        !isfinite(shell)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                    "%s: clip \"%s\": the unit %g m, the error bound %g and the shell distance %g must each be above 0 "
                    "and finite", who, clip->name, (double)unit, (double)bound, (double)shell);
        return NULL;
    }
    int n = sk->joint_count;
    for (int j = 0; o->joint_shell_distances && j < n; ++j)
        if (!(o->joint_shell_distances[j] > 0.0f) || !isfinite(o->joint_shell_distances[j])) {
            sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: clip \"%s\": joint %d's shell distance %g is not above 0 "
                        "and finite", who, clip->name, j, (double)o->joint_shell_distances[j]);
            return NULL;
        }
    /* the search aims a hundredth under the bound: the SIMD levels sample
     * within rounding of the reference formulas it measures by, which at
     * a few units in the last place of a clip's magnitudes can come to a
     * few thousandths of a tight bound */
    float aim = bound * 0.99f;
    work w = {.sk = sk, .joints = n, .tracks_n = 3 * n};
    float *shells = malloc(sizeof *shells * (size_t)n);
    sinew_transform *identity = malloc(sizeof *identity * (size_t)n);
    w.reach = malloc(sizeof *w.reach * (size_t)n);
    w.tracks = calloc((size_t)w.tracks_n, sizeof *w.tracks);
    w.animated = malloc(sizeof *w.animated * (size_t)w.tracks_n);
    w.subtree_at = malloc(sizeof *w.subtree_at * ((size_t)n + 1));
    w.rate_of = malloc((size_t)w.tracks_n);
    w.seg_range = malloc(6 * (size_t)w.tracks_n);
    w.lossy = malloc(sizeof *w.lossy * 4 * SINEW__SEGMENT_SAMPLES * (size_t)w.tracks_n);
    w.lossy_n = malloc(sizeof *w.lossy_n * SINEW__SEGMENT_SAMPLES * (size_t)w.tracks_n);
    w.pose = malloc(sizeof *w.pose * 2 * SINEW__SEGMENT_SAMPLES * (size_t)n);
    w.raw_model = malloc(sizeof *w.raw_model * 2 * SINEW__SEGMENT_SAMPLES * (size_t)n);
    w.lossy_local = malloc(sizeof *w.lossy_local * 2 * SINEW__SEGMENT_SAMPLES * (size_t)n);
    w.lossy_model = malloc(sizeof *w.lossy_model * 2 * SINEW__SEGMENT_SAMPLES * (size_t)n);
    w.error = malloc(sizeof *w.error * (size_t)n);
    w.limit = malloc(sizeof *w.limit * (size_t)n);
    int weights = 0, key_count = 0;
    for (int i = 0; i < clip->track_count; ++i) weights += clip->tracks[i].target == SINEW_TARGET_WEIGHTS;
    sinew_track *kept = malloc(sizeof *kept * ((size_t)weights + 1));
    float *keys = NULL, *merged[3] = {NULL, NULL, NULL};
    key_count = sinew__key_times(clip, false, &keys);
    sinew_clip *best = NULL, *scalar_clip = NULL;
    sinew_skeleton *scalar_sk = NULL;
    int *parents = malloc(sizeof *parents * (size_t)n);
    sinew_clip_error_report best_error = {0};
    size_t poses = 0; /* sampled and measured: the work done, which the keys bound */
    bool ok = shells && identity && w.reach && w.tracks && w.animated && w.subtree_at && w.rate_of && w.seg_range &&
              w.lossy && w.lossy_n && w.pose && w.raw_model && w.lossy_local && w.lossy_model && w.error && w.limit && kept &&
              keys && parents && make_subtrees(&w);
    if (!ok) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: clip \"%s\": out of memory", who, clip->name);
        goto done;
    }
    for (int j = 0; j < n; ++j) {
        shells[j] = o->joint_shell_distances ? o->joint_shell_distances[j] : shell;
        identity[j] = sinew_transform_identity();
    }
    w.shells = shells;
    w.under = clip->additive ? identity : sk->rest_pose;
    /* the skeleton and clip again at the scalar level (see work.clip) */
    for (int j = 0; j < n; ++j) parents[j] = sk->parents[j];
    sinew_options scalar = {.simd = SINEW_SIMD_SCALAR, .allocator = options ? options->allocator : (sinew_allocator){0}};
    scalar_sk = sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, sk->rest_pose}, NULL, &scalar,
                                      err);
    scalar_clip = sinew_clip_create(&(sinew_clip_desc){.name = clip->name, .joint_count = n,
                                                       .duration = clip->duration, .track_count = clip->track_count,
                                                       .tracks = clip->tracks, .additive = clip->additive},
                                    &scalar, err);
    if (!scalar_sk || !scalar_clip) {
        sinew__error_lead(err, who);
        goto done;
    }
    w.sk = scalar_sk, w.clip = scalar_clip;
    make_reach(&w);
    for (int i = 0, k = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target == SINEW_TARGET_WEIGHTS) kept[k++] = clip->tracks[i];
    for (int i = 0; i < w.tracks_n; ++i) w.tracks[i].joint = i / 3, w.tracks[i].target = i % 3;
    bool linear = true; /* every track LINEAR: sampled at its keys, interpolation gives it back */
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        w.tracks[3 * t->joint + (int)t->target].step = t->interpolation == SINEW_INTERP_STEP;
        linear = linear && (t->interpolation == SINEW_INTERP_LINEAR || t->key_count == 1);
    }
    /* the ways to resample: a LINEAR clip's evenly spaced keys at their
     * rate; otherwise the key times themselves (exact for LINEAR and STEP
     * tracks) and common frame rates, and, where none of those reaches the
     * bound (splines), faster ones; the smallest within the bound is kept,
     * else the closest */
    static const double rates[] = {30.0, 60.0, 120.0, 240.0};
    sampling ways[8];
    int way_count = 0;
    float d = clip->duration;
    /* a grid at a rate only while it holds no more samples than the keys
     * allow (sinew__grid_cap): a clip whose keys lie 1e20 s apart is
     * sampled at its key times, which hold every LINEAR and STEP key */
    double cap = fmin(sinew__grid_cap(key_count), MAX_SAMPLES);
    float key_rate = key_count > 1 && d > 0.0f ? (float)((key_count - 1) / (double)d) : 0.0f;
    if (key_count <= 1 || !(d > 0.0f)) {
        ways[way_count++] = (sampling){1, 0.0f, NULL};
    } else if (linear && key_count <= MAX_SAMPLES && key_rate >= FLT_MIN && evenly_spaced(keys, key_count, d)) {
        /* (a rate below FLT_MIN, of keys 1e38 s apart, would lose its bits
         * to subnormals: the key times hold them instead) */
        ways[way_count++] = (sampling){key_count, key_rate, NULL};
    } else {
        if (key_count <= MAX_SAMPLES) ways[way_count++] = (sampling){key_count, 0.0f, keys};
        for (int r = 0; r < 4; ++r) {
            double count = ceil((double)d * rates[r] - 1e-3) + 1.0;
            if (count <= cap) ways[way_count++] = (sampling){(int)count, (float)((count - 1.0) / (double)d), NULL};
        }
        /* a STEP track beside a spline: the key times and a rate's grid
         * together (the steps at their keys, the curves between) */
        for (int r = 1; r < 4 && way_count < 8; ++r) {
            double grid = ceil((double)d * rates[r] - 1e-3) + 1.0;
            if (grid > cap || (double)key_count + grid > MAX_SAMPLES) break;
            float *both = merged[r - 1] = malloc(sizeof *both * ((size_t)key_count + (size_t)grid));
            if (!both) {
                sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: clip \"%s\": out of memory", who, clip->name);
                goto done;
            }
            int n_both = merge_grid(keys, key_count, (int)grid, d, both);
            ways[way_count++] = (sampling){n_both, 0.0f, both};
        }
    }
    if (way_count == 0) {
        sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "%s: clip \"%s\": more than %d samples (%g s, %d key times) to hold",
                    who, clip->name, MAX_SAMPLES, (double)d, key_count);
        goto done;
    }
    for (int i = 0; i < way_count; ++i) {
        /* past 60 a second, and key times with a grid, only while the bound is passed */
        if (best && best_error.largest <= aim && (ways[i].rate > 60.5f || (ways[i].times && ways[i].times != keys)))
            break;
        sinew_clip_error_report measured = {0};
        sinew_clip *made =
            compress_with(&w, clip, ways[i], aim, bound, shell, kept, weights, options, &measured, &poses, err);
        if (!made) {
            sinew_clip_free(best);
            best = NULL;
            goto done;
        }
        bool better = !best || (measured.largest <= aim && best_error.largest > aim) ||
                      ((measured.largest <= aim) == (best_error.largest <= aim) &&
                       (measured.largest <= aim ? sinew_clip_bytes(made) < sinew_clip_bytes(best)
                                                  : measured.largest < best_error.largest));
        if (better) {
            sinew_clip_free(best);
            best = made, best_error = measured;
        } else {
            sinew_clip_free(made);
        }
    }
    if (best_error.largest > bound)
        sinew__warn(options, "%s: clip \"%s\": the largest error is %g, above the bound %g", who, clip->name,
                    (double)best_error.largest, (double)bound);
    /* sampled from here on at the level the options ask for */
    ((sinew__compressed *)(uintptr_t)sinew__clip_of(best)->compressed)->kernel =
        sinew__compressed_kernel_for(sinew__simd_level(options));
    if (report) sinew_clip_compression(best, report), report->poses_sampled = poses;
done:
    free(merged[0]), free(merged[1]), free(merged[2]), free(parents);
    sinew_clip_free(scalar_clip), sinew_skeleton_free(scalar_sk);
    free(keys), free(kept), free(shells), free(identity), free(w.reach), free(w.raw), free(w.raw_mid);
    free(w.between), free(w.tracks);
    free(w.animated), free(w.subtree), free(w.subtree_at), free(w.rate_of), free(w.seg_range), free(w.lossy);
    free(w.lossy_n), free(w.pose), free(w.raw_model), free(w.lossy_local), free(w.lossy_model), free(w.error), free(w.limit);
    return best;
}
