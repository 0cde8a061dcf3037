/* The clip's sampling plan: a second layout of its LINEAR translation,
 * rotation and scale tracks made for sampling many tracks at once.
 *
 * Tracks whose key times are equal share a timeline (exporters bake every
 * track of a clip at one rate, and glTF files share input accessors), so one
 * key search and one interpolation factor serve them all. Per timeline:
 *   - vector tracks (translation, scale): key k's values of all of them in
 *     one run of floats, [key][track][xyz], so that the lerp runs over a flat
 *     array with a single factor;
 *   - rotation tracks in blocks of four, [key][block][xyzw][lane], so that
 *     four slerps run side by side in SSE registers.
 * STEP and CUBICSPLINE tracks stay with the reference sampler
 * (sinew_track_sample), as does everything on a build without SSE2.
 *
 * Agreement with the reference (tests/test_clip.c checks it): vectors bit
 * for bit (the same a + (b - a) s); on a key, before the first or after the
 * last, every value is the stored key bit for bit; rotations within 1e-6
 * relative: nlerp lanes (SINEW_SAMPLE_NLERP, or keys closer than the
 * reference's nlerp threshold) compute the reference's sums; slerp lanes use
 * the series sin(t a) / sin(a) = t sum_i b_i(t) (x - 1)^i with x = cos(a),
 * b_0 = 1, b_i = b_(i-1) (t^2 - i^2) / (i (2i + 1)) (D. Eberly, "A fast and
 * accurate algorithm for computing SLERP", 2011), four terms, under 5e-8 in
 * exact arithmetic for x >= 0.9; lanes with keys further apart than that take
 * the reference slerp. */
#include "../internal.h"

#include <stdint.h>

enum { LANES = 4 };

typedef struct timeline {
    const float *times;
    int key_count;
    int hint_track;     /* the track whose cursor entry holds this timeline's hint */
    int vec_count;      /* translation and scale tracks */
    int rot_count, rot_blocks;
    const float *vec;   /* [key][vec_count][3], then one spare float */
    const float *rot;   /* [key][rot_blocks][4][LANES], padded lanes hold (0, 0, 0, 1) */
    const uint32_t *vec_out, *rot_out; /* per track: its first float in the output pose */
} timeline;

struct sinew__sampler {
    int timeline_count;
    const timeline *timelines;
    int other_count;
    const int *other_tracks; /* tracks the reference sampler takes */
    size_t bytes;
};

static bool fast_track(const sinew_track *t)
{
#if defined(__SSE2__)
    return t->interpolation == SINEW_INTERP_LINEAR && t->target != SINEW_TARGET_WEIGHTS;
#else
    (void)t;
    return false;
#endif
}

static bool same_times(const sinew_track *a, const sinew_track *b)
{
    return a->key_count == b->key_count && memcmp(a->times, b->times, sizeof(float) * (size_t)a->key_count) == 0;
}

/* The float offset of a track's value inside a sinew_transform array. */
static uint32_t out_offset(const sinew_track *t)
{
    size_t at = (size_t)t->joint * (sizeof(sinew_transform) / sizeof(float));
    switch (t->target) {
    case SINEW_TARGET_ROTATION: return (uint32_t)(at + offsetof(sinew_transform, rotation) / sizeof(float));
    case SINEW_TARGET_SCALE: return (uint32_t)(at + offsetof(sinew_transform, scale) / sizeof(float));
    default: return (uint32_t)(at + offsetof(sinew_transform, translation) / sizeof(float));
    }
}

sinew__sampler *sinew__sampler_create(const sinew_clip *clip, const sinew_allocator *alloc)
{
    int n = clip->track_count;
    /* timeline of each track (-1: reference sampler), found by comparing times
     * with each timeline's first track */
    int *line = sinew__alloc(alloc, sizeof(int) * ((size_t)n + 1));
    int *first = sinew__alloc(alloc, sizeof(int) * ((size_t)n + 1));
    if (!line || !first) {
        sinew__free(alloc, line), sinew__free(alloc, first);
        return NULL;
    }
    int lines = 0, others = 0;
    for (int i = 0; i < n; ++i) {
        const sinew_track *t = &clip->tracks[i];
        line[i] = -1;
        if (!fast_track(t)) {
            ++others;
            continue;
        }
        int l = 0;
        while (l < lines && !same_times(t, &clip->tracks[first[l]])) ++l;
        if (l == lines) first[lines++] = i;
        line[i] = l;
    }

    /* one allocation: the sampler, its timelines, the other tracks, then per
     * timeline its values and output offsets (the same sequence twice: sizes,
     * then places) */
    sinew__layout lay = {sizeof(sinew__sampler), false};
    size_t off_lines = sinew__layout_add(&lay, (size_t)lines, sizeof(timeline), 8);
    size_t off_others = sinew__layout_add(&lay, (size_t)others, sizeof(int), 4);
    timeline *tl = sinew__alloc(alloc, sizeof(timeline) * ((size_t)lines + 1));
    if (!tl) {
        sinew__free(alloc, line), sinew__free(alloc, first);
        return NULL;
    }
    for (int l = 0; l < lines; ++l) {
        tl[l] = (timeline){.times = clip->tracks[first[l]].times, .key_count = clip->tracks[first[l]].key_count,
                           .hint_track = first[l]};
    }
    for (int i = 0; i < n; ++i) {
        if (line[i] < 0) continue;
        if (clip->tracks[i].target == SINEW_TARGET_ROTATION)
            ++tl[line[i]].rot_count;
        else
            ++tl[line[i]].vec_count;
    }
    size_t *off_values = sinew__alloc(alloc, sizeof(size_t) * 4 * ((size_t)lines + 1));
    if (!off_values) {
        sinew__free(alloc, line), sinew__free(alloc, first), sinew__free(alloc, tl);
        return NULL;
    }
    for (int l = 0; l < lines; ++l) {
        timeline *x = &tl[l];
        x->rot_blocks = (x->rot_count + LANES - 1) / LANES;
        size_t keys = (size_t)x->key_count;
        off_values[4 * l + 0] = sinew__layout_add(&lay, keys * (size_t)x->vec_count * 3 + 1, sizeof(float), 16);
        off_values[4 * l + 1] = sinew__layout_add(&lay, keys * (size_t)x->rot_blocks * 4 * LANES, sizeof(float), 16);
        off_values[4 * l + 2] = sinew__layout_add(&lay, (size_t)x->vec_count, sizeof(uint32_t), 4);
        off_values[4 * l + 3] = sinew__layout_add(&lay, (size_t)x->rot_count, sizeof(uint32_t), 4);
    }
    unsigned char *block = lay.overflow ? NULL : sinew__alloc(alloc, lay.total);
    if (!block) {
        sinew__free(alloc, line), sinew__free(alloc, first), sinew__free(alloc, tl), sinew__free(alloc, off_values);
        return NULL;
    }
    sinew__sampler *s = (sinew__sampler *)block;
    timeline *lines_out = (timeline *)(block + off_lines);
    int *other = (int *)(block + off_others);
    for (int l = 0; l < lines; ++l) {
        timeline *x = &tl[l];
        float *vec = (float *)(block + off_values[4 * l + 0]);
        float *rot = (float *)(block + off_values[4 * l + 1]);
        uint32_t *vec_out = (uint32_t *)(block + off_values[4 * l + 2]);
        uint32_t *rot_out = (uint32_t *)(block + off_values[4 * l + 3]);
        size_t per_key_rot = (size_t)x->rot_blocks * 4 * LANES;
        for (size_t k = 0; k < (size_t)x->key_count; ++k) /* padded lanes: the identity */
            for (size_t e = 0; e < per_key_rot; ++e) rot[k * per_key_rot + e] = (e / LANES) % 4 == 3 ? 1.0f : 0.0f;
        int nv = 0, nr = 0;
        for (int i = 0; i < n; ++i) {
            if (line[i] != l) continue;
            const sinew_track *t = &clip->tracks[i];
            if (t->target == SINEW_TARGET_ROTATION) {
                int b = nr / LANES, lane = nr % LANES;
                for (size_t k = 0; k < (size_t)x->key_count; ++k)
                    for (int c = 0; c < 4; ++c)
                        rot[k * per_key_rot + ((size_t)b * 4 + (size_t)c) * LANES + (size_t)lane] = t->values[k * 4 + (size_t)c];
                rot_out[nr++] = out_offset(t);
            } else {
                for (size_t k = 0; k < (size_t)x->key_count; ++k)
                    memcpy(&vec[(k * (size_t)x->vec_count + (size_t)nv) * 3], &t->values[k * 3], sizeof(float) * 3);
                vec_out[nv++] = out_offset(t);
            }
        }
        x->vec = vec, x->rot = rot, x->vec_out = vec_out, x->rot_out = rot_out;
        lines_out[l] = *x;
    }
    int no = 0;
    for (int i = 0; i < n; ++i)
        if (line[i] < 0) other[no++] = i;
    *s = (sinew__sampler){lines, lines_out, others, other, lay.total};
    sinew__free(alloc, line), sinew__free(alloc, first), sinew__free(alloc, tl), sinew__free(alloc, off_values);
    return s;
}

size_t sinew__sampler_bytes(const sinew__sampler *s) { return s ? s->bytes : 0; }

/* Keys ka, kb and the factor s between them for time t, the reference's
 * choices: one key (s = 0) before the first, after the last, on a key. */
static float locate(const timeline *x, float t, int32_t *hint, int *ka)
{
    int n = x->key_count;
    if (n == 1 || t <= x->times[0]) {
        *ka = 0;
        return 0.0f;
    }
    if (t >= x->times[n - 1]) {
        *ka = n - 1;
        return 0.0f;
    }
    int k = sinew__find_key(x->times, n, t, hint);
    *ka = k;
    float t0 = x->times[k];
    return t == t0 ? 0.0f : (t - t0) / (x->times[k + 1] - t0);
}

#if defined(__SSE2__)
/* sin(t a) / sin(a) for x = cos(a), the series above in Horner form. */
static inline __m128 slerp_weight(__m128 t, __m128 u /* x - 1 */)
{
    static const float c[5] = {0.0f, 1.0f / 3.0f, 1.0f / 10.0f, 1.0f / 21.0f, 1.0f / 36.0f};
    __m128 t2 = _mm_mul_ps(t, t), r = _mm_set1_ps(1.0f);
    for (int i = 4; i >= 1; --i) {
        __m128 b = _mm_mul_ps(_mm_sub_ps(t2, _mm_set1_ps((float)(i * i))), _mm_set1_ps(c[i]));
        r = _mm_add_ps(_mm_set1_ps(1.0f), _mm_mul_ps(_mm_mul_ps(u, b), r));
    }
    return _mm_mul_ps(t, r);
}

/* a * wa + b * wb, per component */
#define SINEW__MIX(a, wa, b, wb) _mm_add_ps(_mm_mul_ps(a, wa), _mm_mul_ps(b, wb))

/* Four rotation tracks between keys a and b at factor s, written to out. */
static void rotation_block(const float *a, const float *b, float s, bool nlerp, const uint32_t *dest, int lanes,
                           float *out)
{
    __m128 ax = _mm_load_ps(a), ay = _mm_load_ps(a + 4), az = _mm_load_ps(a + 8), aw = _mm_load_ps(a + 12);
    __m128 bx = _mm_load_ps(b), by = _mm_load_ps(b + 4), bz = _mm_load_ps(b + 8), bw = _mm_load_ps(b + 12);
    __m128 d = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz)),
                          _mm_mul_ps(aw, bw));
    __m128 sign = _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), _mm_set1_ps(-0.0f));
    bx = _mm_xor_ps(bx, sign), by = _mm_xor_ps(by, sign), bz = _mm_xor_ps(bz, sign), bw = _mm_xor_ps(bw, sign);
    d = _mm_xor_ps(d, sign);
    __m128 ta = _mm_set1_ps(1.0f - s), tb = _mm_set1_ps(s);
    /* lanes on nlerp: all with SINEW_SAMPLE_NLERP, else those the reference
     * slerp hands to nlerp; lanes whose keys are too far apart for the
     * series take the reference slerp */
    int use_n = nlerp ? 0xf : _mm_movemask_ps(_mm_cmpgt_ps(d, _mm_set1_ps(0.9995f)));
    int far = nlerp ? 0 : _mm_movemask_ps(_mm_cmplt_ps(d, _mm_set1_ps(0.9f)));
    __m128 x = _mm_setzero_ps(), y = x, z = x, w = x;
    if (use_n != 0xf) {
        __m128 u = _mm_sub_ps(d, _mm_set1_ps(1.0f));
        __m128 wa = slerp_weight(ta, u), wb = slerp_weight(tb, u);
        x = SINEW__MIX(ax, wa, bx, wb), y = SINEW__MIX(ay, wa, by, wb);
        z = SINEW__MIX(az, wa, bz, wb), w = SINEW__MIX(aw, wa, bw, wb);
    }
    if (use_n) { /* the reference's sums, normalized by 1 / sqrt */
        __m128 nx = SINEW__MIX(ax, ta, bx, tb), ny = SINEW__MIX(ay, ta, by, tb);
        __m128 nz = SINEW__MIX(az, ta, bz, tb), nw = SINEW__MIX(aw, ta, bw, tb);
        __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, nx), _mm_mul_ps(ny, ny)), _mm_mul_ps(nz, nz)),
                                 _mm_mul_ps(nw, nw));
        __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
        /* a degenerate sum: the reference gives the identity */
        __m128 sane = _mm_and_ps(_mm_cmpgt_ps(len2, _mm_setzero_ps()), _mm_cmplt_ps(len2, _mm_set1_ps(INFINITY)));
        far |= use_n & ~_mm_movemask_ps(sane);
        static const int32_t lane_bits[16][4] = {
            {0, 0, 0, 0}, {-1, 0, 0, 0}, {0, -1, 0, 0}, {-1, -1, 0, 0}, {0, 0, -1, 0}, {-1, 0, -1, 0},
            {0, -1, -1, 0}, {-1, -1, -1, 0}, {0, 0, 0, -1}, {-1, 0, 0, -1}, {0, -1, 0, -1}, {-1, -1, 0, -1},
            {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};
        __m128 m = _mm_loadu_ps((const float *)lane_bits[use_n]);
#define SINEW__PICK(n, q) _mm_or_ps(_mm_and_ps(m, _mm_mul_ps(n, inv)), _mm_andnot_ps(m, q))
        x = SINEW__PICK(nx, x), y = SINEW__PICK(ny, y), z = SINEW__PICK(nz, z), w = SINEW__PICK(nw, w);
#undef SINEW__PICK
    }
    _MM_TRANSPOSE4_PS(x, y, z, w);
    __m128 q[4] = {x, y, z, w};
    for (int lane = 0; lane < lanes; ++lane) {
        if (far & (1 << lane)) {
            sinew_quat qa = sinew__q(a[lane], a[4 + lane], a[8 + lane], a[12 + lane]);
            sinew_quat qb = sinew__q(b[lane], b[4 + lane], b[8 + lane], b[12 + lane]);
            sinew_quat r = nlerp ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
            memcpy(out + dest[lane], &r, sizeof r);
        } else {
            _mm_storeu_ps(out + dest[lane], q[lane]);
        }
    }
}
#undef SINEW__MIX
#endif

void sinew__sampler_run(const sinew__sampler *sm, const sinew_clip *clip, float t, unsigned flags, int32_t *hints,
                        sinew_transform *pose)
{
    float *out = (float *)pose;
    for (int l = 0; l < sm->timeline_count; ++l) {
        const timeline *x = &sm->timelines[l];
        int ka;
        float s = locate(x, t, hints ? &hints[x->hint_track] : NULL, &ka);
        const float *va = x->vec + (size_t)ka * (size_t)x->vec_count * 3;
        const float *ra = x->rot + (size_t)ka * (size_t)x->rot_blocks * 4 * LANES;
        if (s == 0.0f) { /* one key: its stored values */
            for (int i = 0; i < x->vec_count; ++i) memcpy(out + x->vec_out[i], va + 3 * i, sizeof(float) * 3);
            for (int i = 0; i < x->rot_count; ++i)
                for (int c = 0; c < 4; ++c) out[x->rot_out[i] + (uint32_t)c] = ra[(i / LANES * 4 + c) * LANES + i % LANES];
            continue;
        }
#if defined(__SSE2__)
        const float *vb = va + (size_t)x->vec_count * 3;
        const float *rb = ra + (size_t)x->rot_blocks * 4 * LANES;
        __m128 s4 = _mm_set1_ps(s);
        for (int i = 0; i < x->vec_count; ++i) { /* lane 3 reads the next float (the array has one spare) */
            __m128 fa = _mm_loadu_ps(va + 3 * i), fb = _mm_loadu_ps(vb + 3 * i);
            __m128 r = _mm_add_ps(fa, _mm_mul_ps(_mm_sub_ps(fb, fa), s4));
            float *o = out + x->vec_out[i];
            _mm_storel_pi((__m64 *)o, r);
            _mm_store_ss(o + 2, _mm_movehl_ps(r, r));
        }
        bool nlerp = (flags & SINEW_SAMPLE_NLERP) != 0;
        for (int blk = 0; blk < x->rot_blocks; ++blk) {
            int lanes = x->rot_count - blk * LANES < LANES ? x->rot_count - blk * LANES : LANES;
            rotation_block(ra + blk * 4 * LANES, rb + blk * 4 * LANES, s, nlerp, x->rot_out + blk * LANES, lanes, out);
        }
#else
        (void)flags, (void)clip;
#endif
    }
    for (int i = 0; i < sm->other_count; ++i) {
        const sinew_track *tr = &clip->tracks[sm->other_tracks[i]];
        if (tr->target == SINEW_TARGET_WEIGHTS) continue;
        float v[4];
        sinew_track_sample(tr, t, flags, hints ? &hints[sm->other_tracks[i]] : NULL, v);
        memcpy(out + out_offset(tr), v, sizeof(float) * (size_t)sinew_track_components(tr));
    }
}
