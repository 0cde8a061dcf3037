/* SPDX-License-Identifier: MIT */
/* A compressed clip's animated tracks with AVX2 and FMA: each track's two
 * samples decoded with 128-bit vectors (its three components at once),
 * its rotations gathered eight at a time, rebuilt and interpolated as the
 * sampling plan's kernels interpolate (rotation_avx.h). */
#include "clip/compressed.h"
#include "clip/simd/rotation_avx.h"

#include <stdalign.h>

/* Eight rotations in waiting: each one's stored components at samples a
 * and b (four floats a lane, as sinew__rebuild takes them), its dropped
 * component, and where the result goes. */
typedef struct group {
    alignas(32) float a[8][4];
    alignas(32) float b[8][4];
    alignas(32) int32_t dropped[8];
    sinew_quat *out[8];
    int count;
} group;

/* Four lanes' rows of eight (a[0..7][0..3]) as four vectors of one
 * component each, the lanes in the order 0, 2, 4, 6, 1, 3, 5, 7. */
static inline __m256 two_rows(const float (*rows)[4], int i)
{
    /* two 128-bit loads: the rows were stored so, and a 256-bit load would
     * wait for both stores to retire instead of taking their values */
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(rows[i])), _mm_load_ps(rows[i + 1]), 1);
}

static inline void to_columns(const float (*rows)[4], __m256 v[4])
{
    __m256 r01 = two_rows(rows, 0), r23 = two_rows(rows, 2), r45 = two_rows(rows, 4), r67 = two_rows(rows, 6);
    __m256 t0 = _mm256_unpacklo_ps(r01, r23), t1 = _mm256_unpackhi_ps(r01, r23);
    __m256 t2 = _mm256_unpacklo_ps(r45, r67), t3 = _mm256_unpackhi_ps(r45, r67);
    v[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    v[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    v[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    v[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* The lane order of to_columns. */
static const int lane_of[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/* Each lane's stored components made a unit rotation: the dropped one
 * rebuilt from the others (or those scaled back to unit length where they
 * pass it) and put in its place, as sinew__rebuild does; a raw lane
 * (dropped 4) as stored. */
static inline void rebuild(const __m256 v[4], __m256i dropped, __m256 q[4])
{
    __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(v[0], v[0]), _mm256_mul_ps(v[1], v[1])),
                             _mm256_mul_ps(v[2], v[2]));
    __m256 one = _mm256_set1_ps(1.0f);
    __m256 raw = _mm256_castsi256_ps(_mm256_cmpgt_epi32(dropped, _mm256_set1_epi32(3)));
    __m256 over = _mm256_andnot_ps(raw, _mm256_cmp_ps(d, one, _CMP_GT_OQ));
    __m256 w = _mm256_andnot_ps(over, _mm256_sqrt_ps(_mm256_max_ps(_mm256_sub_ps(one, d), _mm256_setzero_ps())));
    __m256 x[4] = {v[0], v[1], v[2], v[3]};
    /* components past unit length are rare (quantization at the sphere's
     * edge): scaled back only where a lane has them */
    if (_mm256_movemask_ps(over)) {
        __m256 scale = _mm256_blendv_ps(one, _mm256_div_ps(one, _mm256_sqrt_ps(d)), over);
        for (int c = 0; c < 3; ++c) x[c] = _mm256_mul_ps(v[c], scale);
    }
    for (int c = 0; c < 4; ++c) {
        __m256i at = _mm256_set1_epi32(c);
        __m256 here = _mm256_castsi256_ps(_mm256_cmpeq_epi32(dropped, at));
        __m256 after = _mm256_castsi256_ps(_mm256_cmpgt_epi32(at, dropped));
        __m256 slot = c > 0 ? _mm256_blendv_ps(x[c], x[c - 1], after) : x[0];
        q[c] = _mm256_blendv_ps(slot, w, here);
    }
}

/* The group's rotations rebuilt and interpolated at s into their places
 * (lanes past `count` hold copies of the last, computed and dropped). */
static void run_group(group *g, float s, bool nlerp)
{
    for (int i = g->count; i < 8; ++i) {
        memcpy(g->a[i], g->a[g->count - 1], sizeof g->a[i]);
        memcpy(g->b[i], g->b[g->count - 1], sizeof g->b[i]);
        g->dropped[i] = g->dropped[g->count - 1];
    }
    __m256i dropped = _mm256_permutevar8x32_epi32(_mm256_load_si256((const __m256i *)g->dropped),
                                                  _mm256_loadu_si256((const __m256i *)lane_of));
    __m256 va[4], vb[4], q[2][4], r[1][4];
    to_columns((const float(*)[4])g->a, va);
    to_columns((const float(*)[4])g->b, vb);
    rebuild(va, dropped, q[0]);
    int far = 0;
    if (s == 0.0f) {
        for (int c = 0; c < 4; ++c) r[0][c] = q[0][c];
    } else {
        rebuild(vb, dropped, q[1]);
        sinew__rotation_factors f = sinew__rotation_factors_for(_mm256_set1_ps(s), nlerp);
        far = sinew__rotations(1, (const __m256(*)[4]) & q[0], (const __m256(*)[4]) & q[1], &f, 0, r);
    }
    /* back to rows: lanes 0 and 1 in the first vector, ... */
    __m256 u0 = _mm256_unpacklo_ps(r[0][0], r[0][1]), u1 = _mm256_unpackhi_ps(r[0][0], r[0][1]);
    __m256 u2 = _mm256_unpacklo_ps(r[0][2], r[0][3]), u3 = _mm256_unpackhi_ps(r[0][2], r[0][3]);
    __m256 rows[4] = {_mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2)),
                      _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2))};
    for (int i = 0; i < g->count; ++i) {
        __m256 pair = rows[i / 2];
        _mm_storeu_ps(&g->out[i]->x, i % 2 ? _mm256_extractf128_ps(pair, 1) : _mm256_castps256_ps128(pair));
    }
    /* the reference where the series does not serve (bit k: lane lane_of[k]) */
    for (int k = 0; far && k < 8; ++k) {
        int i = lane_of[k];
        if (!(far >> k & 1) || i >= g->count) continue;
        sinew_quat qa = sinew__rebuild(g->a[i], g->dropped[i]), qb = sinew__rebuild(g->b[i], g->dropped[i]);
        *g->out[i] = nlerp ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
    }
    g->count = 0;
}

/* The map of a track's integers in a segment at bit rate index r (1 to
 * 14), three lanes: value = lo + sc q. */
static inline void segment_map(const float *range, const unsigned char *seg, int r, __m128 *lo, __m128 *sc)
{
    /* the six range bytes and the two after them (the block's tail covers
     * any read past its last field) */
    __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)seg);
    __m128 low = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(bytes));
    __m128 extent = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(bytes, 3)));
    __m128 min = _mm_loadu_ps(range), span = _mm_loadu_ps(range + 3);
    *lo = _mm_fmadd_ps(span, _mm_mul_ps(low, _mm_set1_ps(1.0f / 255.0f)), min);
    *sc = _mm_mul_ps(span, _mm_mul_ps(extent, _mm_set1_ps(sinew__step_of[r] / 255.0f)));
}

/* One sample's three components at `bit` through the map. */
static inline __m128 sample_value(const unsigned char *stream, uint64_t bit, int r, __m128 lo, __m128 sc)
{
    int b = sinew__bits_of[r];
    uint64_t w = sinew__bits_at(stream, bit), mask = (1u << b) - 1u;
    __m128i q = _mm_setr_epi32((int)(w & mask), (int)(w >> b & mask), (int)(w >> 2 * b & mask), 0);
    return _mm_fmadd_ps(sc, _mm_cvtepi32_ps(q), lo);
}

void sinew__compressed_animated_avx2(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s,
                                     bool nlerp, sinew_transform *pose)
{
    group g;
    g.count = 0;
    bool same = a.rates == b.rates;
    __m128 factor = _mm_set1_ps(s);
    const uint32_t *tracks = c->tracks + c->constant_count;
    /* a range's read of four floats from its fourth stays within the
     * block: the segment table follows the ranges */
    for (int i = 0; i < c->animated_count; ++i) {
        uint32_t code = tracks[i];
        int target = sinew__track_target(code);
        bool rotation = target == 1;
        sinew_transform *x = &pose[sinew__track_joint(code)];
        int ra = sinew__segment_rate(a.rates, i), rb = same ? ra : sinew__segment_rate(b.rates, i);
        const float *range = c->ranges + 6 * i;
        __m128 va, vb;
        int na = 3, nb = 3;
        if (same && ra != 0 && ra != SINEW__RAW_RATE) {
            __m128 lo, sc;
            segment_map(range, a.ranges + 6 * i, ra, &lo, &sc);
            va = sample_value(a.stream, a.bit, ra, lo, sc);
            vb = sample_value(b.stream, b.bit, ra, lo, sc);
        } else {
            alignas(16) float x4[4] = {0.0f, 0.0f, 0.0f, 0.0f}, y4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            na = sinew__decode_value(a.stream, a.bit, ra, rotation, range, a.ranges + 6 * i, x4);
            nb = sinew__decode_value(b.stream, b.bit, rb, rotation, range, b.ranges + 6 * i, y4);
            va = _mm_load_ps(x4), vb = _mm_load_ps(y4);
        }
        a.bit += sinew__sample_bits(ra, rotation);
        b.bit += sinew__sample_bits(rb, rotation);
        /* a step track holds sample a's value until b */
        if (sinew__track_step(code)) vb = va, nb = na;
        if (!rotation) {
            float v[4];
            _mm_storeu_ps(v, _mm_fmadd_ps(_mm_sub_ps(vb, va), factor, va));
            memcpy(target == 0 ? &x->translation.x : &x->scale.x, v, sizeof(float) * 3);
            continue;
        }
        int lane = g.count++, dropped = sinew__track_dropped(code);
        _mm_store_ps(g.a[lane], va);
        _mm_store_ps(g.b[lane], vb);
        if (na == 4 || nb == 4) {
            /* a raw sample beside a quantized one: both as rebuilt */
            sinew_quat p = sinew__rebuild(g.a[lane], na == 4 ? 4 : dropped);
            sinew_quat q = sinew__rebuild(g.b[lane], nb == 4 ? 4 : dropped);
            memcpy(g.a[lane], &p, sizeof p), memcpy(g.b[lane], &q, sizeof q);
            dropped = 4;
        }
        g.dropped[lane] = dropped;
        g.out[lane] = &x->rotation;
        if (g.count == 8) run_group(&g, s, nlerp);
    }
    if (g.count) run_group(&g, s, nlerp);
}
