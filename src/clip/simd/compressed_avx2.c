/* SPDX-License-Identifier: MIT */
/* A compressed clip's animated tracks with AVX2 and FMA, eight tracks a
 * vector lane each: their bit rates, bit offsets in a sample and segment
 * ranges read side by side from the segment (a running sum of the rates,
 * byte shuffles, a transpose of the clip ranges), each track's bits of a
 * sample read with one 64-bit load and its three components shifted out
 * of them together, then two groups' rotations rebuilt and interpolated
 * side by side as the sampling plan's kernels interpolate
 * (rotation_avx.h). A track kept raw (32-bit floats) in both samples'
 * segments has its floats read into its lane, a rotation's four taken as
 * stored; one raw in only one of them (segments apart, rare) is sampled
 * after the others, one track at a time, its rotations gathered eight at
 * a time. */
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

/* Track i, kept raw in a's segment or b's, its first bits at a.bit and
 * b.bit, by the reference formulas (sinew__decode_value): a translation or
 * scale interpolated at s into its place, a rotation put in g (run when
 * full). */
static void raw_track(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, int i, float s, bool nlerp,
                      group *g, sinew_transform *pose)
{
    uint32_t code = c->tracks[c->constant_count + i];
    int target = sinew__track_target(code);
    bool rotation = target == 1;
    sinew_transform *x = &pose[sinew__track_joint(code)];
    int ra = sinew__segment_rate(a.rates, i), rb = sinew__segment_rate(b.rates, i);
    const float *range = c->ranges + 6 * i;
    alignas(16) float x4[4] = {0.0f, 0.0f, 0.0f, 0.0f}, y4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int na = sinew__decode_value(a.stream, a.bit, ra, rotation, range, a.ranges + 6 * i, x4);
    int nb = sinew__decode_value(b.stream, b.bit, rb, rotation, range, b.ranges + 6 * i, y4);
    if (!rotation) {
        /* a step track holds sample a's value until b */
        __m128 va = _mm_load_ps(x4), vb = sinew__track_step(code) ? va : _mm_load_ps(y4);
        float v[4];
        _mm_storeu_ps(v, _mm_fmadd_ps(_mm_sub_ps(vb, va), _mm_set1_ps(s), va));
        memcpy(target == 0 ? &x->translation.x : &x->scale.x, v, sizeof(float) * 3);
        return;
    }
    /* both samples as rotations (a raw one as stored, a quantized one
     * rebuilt), interpolated as they are (dropped 4) */
    int lane = g->count++, dropped = sinew__track_dropped(code);
    sinew_quat p = sinew__rotation_from_stored(x4, na, dropped);
    sinew_quat q = sinew__track_step(code) ? p : sinew__rotation_from_stored(y4, nb, dropped);
    memcpy(g->a[lane], &p, sizeof p), memcpy(g->b[lane], &q, sizeof q);
    g->dropped[lane] = 4;
    g->out[lane] = &x->rotation;
    if (g->count == 8) run_group(g, s, nlerp);
}

/* Eight tracks' layout in one segment: each one's first bit in a sample
 * (from the group's first), the shifts of its components in the 64 bits
 * read there and the mask of their bits, and the affine map of its
 * integers, value = lo + sc q, per component. A raw track's lane takes
 * rate 0 here (its floats are read apart) and has its bit in `raw`. */
typedef struct side {
    __m256i mask;
    alignas(32) int32_t offset[8];
    __m256i shift_lo[3], shift_hi[3];
    __m256 lo[3], sc[3];
    uint32_t total; /* the eight tracks' bits in a sample */
    int raw;
} side;

/* Lanes' exclusive running sum, and the sum of all eight in *total. */
static inline __m256i running_sum(__m256i x, uint32_t *total)
{
    __m256i s = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
    s = _mm256_add_epi32(s, _mm256_slli_si256(s, 8));
    __m256i low_end = _mm256_permutevar8x32_epi32(s, _mm256_set1_epi32(3));
    s = _mm256_add_epi32(s, _mm256_blend_epi32(_mm256_setzero_si256(), low_end, 0xf0));
    *total = (uint32_t)_mm256_extract_epi32(s, 7);
    return _mm256_sub_epi32(s, x);
}

/* The byte masks of byte_columns: dword j of a 128-bit lane takes byte
 * k (j even) or 6 + k (j odd) of the lane's two tracks, the first pair's
 * in dwords 0 and 1, the second's in 2 and 3 (0x80: zero). */
#define SINEW__PICK(k) (char)(k), (char)0x80, (char)0x80, (char)0x80
#define SINEW__NONE (char)0x80, (char)0x80, (char)0x80, (char)0x80
#define SINEW__FIRST(k) SINEW__PICK(k), SINEW__PICK(6 + (k)), SINEW__NONE, SINEW__NONE
#define SINEW__SECOND(k) SINEW__NONE, SINEW__NONE, SINEW__PICK(k), SINEW__PICK(6 + (k))

/* Eight tracks' six bytes each (at p, 6 apart: a segment's ranges) as six
 * vectors of one byte a lane. */
static inline void byte_columns(const unsigned char *p, __m256i col[6])
{
    static const char first[6][16] = {{SINEW__FIRST(0)}, {SINEW__FIRST(1)}, {SINEW__FIRST(2)},
                                      {SINEW__FIRST(3)}, {SINEW__FIRST(4)}, {SINEW__FIRST(5)}};
    static const char second[6][16] = {{SINEW__SECOND(0)}, {SINEW__SECOND(1)}, {SINEW__SECOND(2)},
                                       {SINEW__SECOND(3)}, {SINEW__SECOND(4)}, {SINEW__SECOND(5)}};
    /* tracks 0, 1 and 4, 5; 2, 3 and 6, 7 (the last load reads 4 bytes
     * past the 48, which the block's tail covers) */
    __m256i y0 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p)),
                                         _mm_loadu_si128((const __m128i *)(const void *)(p + 24)), 1);
    __m256i y1 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(p + 12))),
                                         _mm_loadu_si128((const __m128i *)(const void *)(p + 36)), 1);
    for (int k = 0; k < 6; ++k) {
        __m256i m0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)first[k]));
        __m256i m1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)second[k]));
        col[k] = _mm256_or_si256(_mm256_shuffle_epi8(y0, m0), _mm256_shuffle_epi8(y1, m1));
    }
}

/* Eight tracks' clip ranges (at r, 6 floats apart) as min[3], ext[3], one
 * component of the eight a vector. */
static inline void range_columns(const float *r, __m256 min[3], __m256 ext[3])
{
    __m256 row[4], pair[4];
    for (int t = 0; t < 4; ++t) {
        row[t] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(r + 6 * t)), _mm_loadu_ps(r + 6 * (t + 4)), 1);
        /* two floats on a 4-byte boundary: a 64-bit load that may be unaligned */
        __m128 h0 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i_u *)(const void *)(r + 6 * t + 4)));
        __m128 h1 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i_u *)(const void *)(r + 6 * (t + 4) + 4)));
        pair[t] = _mm256_insertf128_ps(_mm256_castps128_ps256(h0), h1, 1);
    }
    __m256 t0 = _mm256_unpacklo_ps(row[0], row[1]), t1 = _mm256_unpackhi_ps(row[0], row[1]);
    __m256 t2 = _mm256_unpacklo_ps(row[2], row[3]), t3 = _mm256_unpackhi_ps(row[2], row[3]);
    min[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    min[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    min[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    ext[0] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 p0 = _mm256_unpacklo_ps(pair[0], pair[1]), p1 = _mm256_unpacklo_ps(pair[2], pair[3]);
    ext[1] = _mm256_shuffle_ps(p0, p1, _MM_SHUFFLE(1, 0, 1, 0));
    ext[2] = _mm256_shuffle_ps(p0, p1, _MM_SHUFFLE(3, 2, 3, 2));
}

/* Tracks i to i + 7's layout in the segment of `at` (lanes past `valid`,
 * a mask, take no bits), from their clip ranges (min, ext) and their
 * segment ranges (at `bytes`: the segment's, or a copy); false where one
 * of them is raw. */
static inline void side_of(sinew__sample_at at, int i, __m256i valid, __m256i rotation, const unsigned char *bytes,
                           const __m256 min[3], const __m256 ext[3], side *out)
{
    uint32_t nibbles;
    memcpy(&nibbles, at.rates + i / 2, 4);
    __m256i r = _mm256_and_si256(_mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)nibbles),
                                                                    _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
                                                  _mm256_set1_epi32(15)),
                                 valid);
    /* a raw track's sample (96 bits, 128 for a rotation) is read apart:
     * here its lane takes rate 0 */
    __m256i raw = _mm256_cmpeq_epi32(r, _mm256_set1_epi32(SINEW__RAW_RATE));
    out->raw = _mm256_movemask_ps(_mm256_castsi256_ps(raw));
    r = _mm256_andnot_si256(raw, r);
    /* bit rate index r holds r + 2 bits a component, 0 none */
    __m256i zero_rate = _mm256_cmpeq_epi32(r, _mm256_setzero_si256());
    __m256i b = _mm256_andnot_si256(zero_rate, _mm256_add_epi32(r, _mm256_set1_epi32(2)));
    __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), b), _mm256_set1_epi32(1));
    __m256i three = _mm256_add_epi32(b, _mm256_add_epi32(b, b));
    __m256i raw_bits = _mm256_blendv_epi8(_mm256_set1_epi32(96), _mm256_set1_epi32(128), rotation);
    three = _mm256_blendv_epi8(three, raw_bits, raw);
    _mm256_store_si256((__m256i *)out->offset, running_sum(three, &out->total));
    /* the shifts of each component in a track's 64 bits, tracks 0, 1, 4, 5
     * and 2, 3, 6, 7 as 64-bit lanes (values() reads them so) */
    __m256i bq = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    __m256i b_lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(bq)), b_hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(bq, 1));
    out->shift_lo[0] = _mm256_setzero_si256(), out->shift_hi[0] = _mm256_setzero_si256();
    for (int k = 1; k < 3; ++k)
        out->shift_lo[k] = _mm256_add_epi64(out->shift_lo[k - 1], b_lo), out->shift_hi[k] = _mm256_add_epi64(out->shift_hi[k - 1], b_hi);
    out->mask = mask;
    __m256i col[6];
    byte_columns(bytes, col);
    /* a step over the segment's range, in 255ths of the clip's: index r's
     * entry of sinew__step_of / 255 from two tables of eight */
    const __m256 by255_lo = _mm256_setr_ps(sinew__step_of[0] / 255, sinew__step_of[1] / 255, sinew__step_of[2] / 255,
                                           sinew__step_of[3] / 255, sinew__step_of[4] / 255, sinew__step_of[5] / 255,
                                           sinew__step_of[6] / 255, sinew__step_of[7] / 255);
    const __m256 by255_hi = _mm256_setr_ps(sinew__step_of[8] / 255, sinew__step_of[9] / 255, sinew__step_of[10] / 255,
                                           sinew__step_of[11] / 255, sinew__step_of[12] / 255, sinew__step_of[13] / 255,
                                           sinew__step_of[14] / 255, sinew__step_of[15] / 255);
    __m256 step = _mm256_blendv_ps(_mm256_permutevar8x32_ps(by255_lo, r), _mm256_permutevar8x32_ps(by255_hi, r),
                                   _mm256_castsi256_ps(_mm256_slli_epi32(r, 28)));
    __m256 constant = _mm256_castsi256_ps(_mm256_and_si256(zero_rate, valid));
    bool held = _mm256_movemask_ps(constant) != 0;
    for (int k = 0; k < 3; ++k) {
        __m256 from = _mm256_mul_ps(_mm256_cvtepi32_ps(col[k]), _mm256_set1_ps(1.0f / 255.0f));
        /* a track of 0 bits holds one value, in 65535ths: bytes 2k, 2k + 1 */
        if (held) {
            __m256i value = _mm256_or_si256(col[2 * k], _mm256_slli_epi32(col[2 * k + 1], 8));
            from = _mm256_blendv_ps(from, _mm256_mul_ps(_mm256_cvtepi32_ps(value), _mm256_set1_ps(1.0f / 65535.0f)),
                                    constant);
        }
        out->lo[k] = _mm256_fmadd_ps(ext[k], from, min[k]);
        out->sc[k] = _mm256_mul_ps(ext[k], _mm256_mul_ps(_mm256_cvtepi32_ps(col[3 + k]), step));
    }
}

/* The eight tracks' values in the sample whose bits begin at `at.bit`:
 * each track's 64 bits from its first read at once, its three components
 * shifted out of them side by side (tracks 0, 1, 4, 5 in one vector, 2,
 * 3, 6, 7 in the other: the low halves of their lanes, interleaved, are
 * the tracks in order). */
static inline void values(const side *m, sinew__sample_at at, __m256 v[3])
{
    uint32_t base = (uint32_t)at.bit;
    uint64_t w[8];
    for (int t = 0; t < 8; ++t) w[t] = sinew__bits_at(at.stream, base + (uint32_t)m->offset[t]);
    __m256i lo = _mm256_setr_epi64x((long long)w[0], (long long)w[1], (long long)w[4], (long long)w[5]);
    __m256i hi = _mm256_setr_epi64x((long long)w[2], (long long)w[3], (long long)w[6], (long long)w[7]);
    for (int k = 0; k < 3; ++k) {
        __m256 ql = _mm256_castsi256_ps(_mm256_srlv_epi64(lo, m->shift_lo[k]));
        __m256 qh = _mm256_castsi256_ps(_mm256_srlv_epi64(hi, m->shift_hi[k]));
        __m256i q = _mm256_and_si256(_mm256_castps_si256(_mm256_shuffle_ps(ql, qh, _MM_SHUFFLE(2, 0, 2, 0))), m->mask);
        v[k] = _mm256_fmadd_ps(m->sc[k], _mm256_cvtepi32_ps(q), m->lo[k]);
    }
}

/* Eight tracks' values at samples a and b (b's as a's for a step track,
 * and where s is 0), one component of the eight a vector, and their codes.
 * The lanes in `raw` (a track kept raw in one of a's and b's segments, not
 * the other) hold values of no use: they are sampled one track at a time
 * after the others, from their first bits, at_a.bit + offset_a[lane] and
 * at_b.bit + offset_b[lane]. */
typedef struct decoded {
    __m256 a[3], b[3];
    __m256 a_w, b_w; /* raw rotations' fourth components, set only where `stored` has lanes (0 in the others) */
    __m256i codes;
    int n, first, raw;
    int stored; /* lanes of rotations raw in both samples: as stored, four components */
    sinew__sample_at at_a, at_b;
    alignas(32) int32_t offset_a[8], offset_b[8];
} decoded;

/* The floats of the raw tracks `lanes` (four for those in `rotations`,
 * else three) in the sample at `at`, each from its first bit at.bit +
 * offset[lane], into those lanes of v[0 .. 2] and (the fourth) *w. */
static void raw_values(sinew__sample_at at, const int32_t offset[8], int lanes, int rotations, __m256 v[3],
                       __m256 *w)
{
    alignas(32) float f[4][8];
    for (int k = 0; k < 3; ++k) _mm256_store_ps(f[k], v[k]);
    _mm256_store_ps(f[3], *w);
    for (int t = 0; t < 8; ++t) {
        if (!(lanes >> t & 1)) continue;
        int n = rotations >> t & 1 ? 4 : 3;
        for (int k = 0; k < n; ++k) {
            uint32_t u = (uint32_t)sinew__bits_at(at.stream, at.bit + (uint32_t)offset[t] + 32u * (uint32_t)k);
            memcpy(&f[k][t], &u, 4);
        }
    }
    for (int k = 0; k < 3; ++k) v[k] = _mm256_load_ps(f[k]);
    *w = _mm256_load_ps(f[3]);
}

/* Tracks i to i + 7 (`n` of them) decoded side by side into d. */
static inline void decode(const sinew__compressed *c, sinew__sample_at *a, sinew__sample_at *b, bool moving, int i,
                          int n, decoded *d)
{
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
    __m256 min[3], ext[3];
    bool two = moving && a->rates != b->rates;
    const unsigned char *bytes_a = a->ranges + 6 * i, *bytes_b = b->ranges + 6 * i;
    const float *range = c->ranges + 6 * i;
    /* a last group of fewer than eight reads copies, the lanes past it zero */
    alignas(32) float range_copy[56];
    unsigned char copy_a[64], copy_b[64];
    if (n < 8) {
        memset(range_copy, 0, sizeof range_copy), memset(copy_a, 0, sizeof copy_a), memset(copy_b, 0, sizeof copy_b);
        memcpy(range_copy, range, sizeof(float) * 6 * (size_t)n);
        memcpy(copy_a, bytes_a, 6 * (size_t)n);
        if (two) memcpy(copy_b, bytes_b, 6 * (size_t)n);
        range = range_copy, bytes_a = copy_a, bytes_b = copy_b;
    }
    range_columns(range, min, ext);
    d->codes = _mm256_maskload_epi32((const int *)(c->tracks + c->constant_count + i), valid);
    d->n = n, d->first = i;
    __m256i rotation = _mm256_cmpeq_epi32(_mm256_and_si256(d->codes, _mm256_set1_epi32(3)), _mm256_set1_epi32(1));
    side ma, mb;
    side_of(*a, i, valid, rotation, bytes_a, min, ext, &ma);
    if (two) side_of(*b, i, valid, rotation, bytes_b, min, ext, &mb);
    const side *pb = two ? &mb : &ma;
    /* raw in both samples: read here; raw beside quantized (segments
     * apart): one track at a time after the others */
    int both = moving ? ma.raw & pb->raw : ma.raw;
    d->raw = (ma.raw | (moving ? pb->raw : 0)) & ~both;
    d->stored = both & _mm256_movemask_ps(_mm256_castsi256_ps(rotation));
    if (d->raw) {
        d->at_a = *a, d->at_b = *b;
        memcpy(d->offset_a, ma.offset, sizeof d->offset_a), memcpy(d->offset_b, pb->offset, sizeof d->offset_b);
    }
    values(&ma, *a, d->a);
    d->a_w = d->b_w = _mm256_setzero_ps();
    if (both) raw_values(*a, ma.offset, both, d->stored, d->a, &d->a_w);
    if (moving) {
        values(pb, *b, d->b);
        if (both) raw_values(*b, pb->offset, both, d->stored, d->b, &d->b_w);
        /* a step track holds sample a's value until b */
        __m256 step = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(d->codes, _mm256_set1_epi32(16)),
                                                             _mm256_set1_epi32(16)));
        for (int k = 0; k < 3; ++k) d->b[k] = _mm256_blendv_ps(d->b[k], d->a[k], step);
        if (d->stored) d->b_w = _mm256_blendv_ps(d->b_w, d->a_w, step);
    } else {
        for (int k = 0; k < 3; ++k) d->b[k] = d->a[k];
        d->b_w = d->a_w;
    }
    a->bit += ma.total, b->bit += pb->total;
}

/* The raw lanes of `groups` decoded groups, one track at a time, over
 * what finish wrote there. */
static void raw_lanes(const sinew__compressed *c, int groups, const decoded *d, float s, bool nlerp,
                      sinew_transform *pose)
{
    group g;
    g.count = 0;
    for (int k = 0; k < groups; ++k)
        for (int lane = 0; lane < d[k].n; ++lane) {
            if (!(d[k].raw >> lane & 1)) continue;
            sinew__sample_at a = d[k].at_a, b = d[k].at_b;
            a.bit += (uint32_t)d[k].offset_a[lane], b.bit += (uint32_t)d[k].offset_b[lane];
            raw_track(c, a, b, d[k].first + lane, s, nlerp, &g, pose);
        }
    if (g.count) run_group(&g, s, nlerp);
}

/* Eight tracks' stored rotation components (lanes outside `rotation`
 * taken as 0) completed to unit rotations with the dropped component
 * last: rebuilt >= 0 from the others, or those scaled back to unit length
 * where they pass it, as sinew__rebuild does. */
static inline void complete(const __m256 v[3], __m256 rotation, __m256 q[4])
{
    __m256 x[3] = {_mm256_and_ps(v[0], rotation), _mm256_and_ps(v[1], rotation), _mm256_and_ps(v[2], rotation)};
    __m256 d = _mm256_fmadd_ps(x[2], x[2], _mm256_fmadd_ps(x[1], x[1], _mm256_mul_ps(x[0], x[0])));
    __m256 one = _mm256_set1_ps(1.0f), over = _mm256_cmp_ps(d, one, _CMP_GT_OQ);
    q[3] = _mm256_andnot_ps(over, _mm256_sqrt_ps(_mm256_max_ps(_mm256_sub_ps(one, d), _mm256_setzero_ps())));
    for (int c = 0; c < 3; ++c) q[c] = x[c];
    if (_mm256_movemask_ps(over)) {
        __m256 scale = _mm256_blendv_ps(one, _mm256_div_ps(one, _mm256_sqrt_ps(d)), over);
        for (int c = 0; c < 3; ++c) q[c] = _mm256_mul_ps(x[c], scale);
    }
}

/* Rotations with the dropped component last back in their order. */
static inline void unpermute(const __m256 q[4], __m256i dropped, __m256 out[4])
{
    for (int c = 0; c < 4; ++c) {
        __m256i at = _mm256_set1_epi32(c);
        __m256 here = _mm256_castsi256_ps(_mm256_cmpeq_epi32(dropped, at));
        __m256 after = _mm256_castsi256_ps(_mm256_cmpgt_epi32(at, dropped));
        __m256 slot = c > 0 ? _mm256_blendv_ps(q[c], q[c - 1], after) : q[0];
        out[c] = c < 3 ? _mm256_blendv_ps(slot, q[3], here) : _mm256_blendv_ps(q[2], q[3], here);
    }
}

/* `groups` (1 or 2) decoded groups into their places: rotations rebuilt
 * and interpolated as run_group does (the groups' steps alternating),
 * translations and scales lerped, at s. */
static inline void finish(int groups, const decoded *d, float s, bool nlerp, sinew_transform *pose)
{
    /* both samples of a track drop the same component: they are
     * interpolated with it last, as stored, and put in its place once */
    __m256 rotation[2], qa[2][4], qb[2][4], r[2][4];
    __m256i dropped[2];
    for (int g = 0; g < groups; ++g) {
        __m256i target = _mm256_and_si256(d[g].codes, _mm256_set1_epi32(3));
        rotation[g] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(target, _mm256_set1_epi32(1)));
        dropped[g] = _mm256_and_si256(_mm256_srli_epi32(d[g].codes, 2), _mm256_set1_epi32(3));
        /* the other lanes complete the identity, out of the rotations' checks */
        complete(d[g].a, rotation[g], qa[g]);
        if (s != 0.0f) complete(d[g].b, rotation[g], qb[g]);
        if (d[g].stored) {
            /* raw rotations as stored, in their order (the last one "dropped") */
            __m256i lanes = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(d[g].stored),
                                                               _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
                                             _mm256_set1_epi32(1));
            __m256 stored = _mm256_castsi256_ps(_mm256_cmpeq_epi32(lanes, _mm256_set1_epi32(1)));
            dropped[g] = _mm256_blendv_epi8(dropped[g], _mm256_set1_epi32(3), _mm256_castps_si256(stored));
            for (int c = 0; c < 4; ++c) {
                qa[g][c] = _mm256_blendv_ps(qa[g][c], c < 3 ? d[g].a[c] : d[g].a_w, stored);
                if (s != 0.0f) qb[g][c] = _mm256_blendv_ps(qb[g][c], c < 3 ? d[g].b[c] : d[g].b_w, stored);
            }
        }
    }
    int far = 0;
    if (s == 0.0f) {
        for (int g = 0; g < groups; ++g) unpermute(qa[g], dropped[g], r[g]);
    } else {
        __m256 m[2][4];
        sinew__rotation_factors f = sinew__rotation_factors_for(_mm256_set1_ps(s), nlerp);
        far = groups == 2 ? sinew__rotations(2, (const __m256(*)[4])qa, (const __m256(*)[4])qb, &f, 0, m)
                          : sinew__rotations(1, (const __m256(*)[4])qa, (const __m256(*)[4])qb, &f, 0, m);
        for (int g = 0; g < groups; ++g) unpermute(m[g], dropped[g], r[g]);
    }
    __m256 factor = _mm256_set1_ps(s);
    for (int g = 0; g < groups; ++g) {
        __m256 out[4];
        for (int k = 0; k < 3; ++k)
            out[k] = _mm256_blendv_ps(_mm256_fmadd_ps(_mm256_sub_ps(d[g].b[k], d[g].a[k]), factor, d[g].a[k]), r[g][k],
                                      rotation[g]);
        out[3] = r[g][3];
        /* to rows: lanes k and k + 4 in rows[k] */
        __m256 u0 = _mm256_unpacklo_ps(out[0], out[1]), u1 = _mm256_unpackhi_ps(out[0], out[1]);
        __m256 u2 = _mm256_unpacklo_ps(out[2], out[3]), u3 = _mm256_unpackhi_ps(out[2], out[3]);
        __m256 rows[4] = {_mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2)),
                          _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2))};
        alignas(32) int32_t code[8];
        _mm256_store_si256((__m256i *)code, d[g].codes);
        for (int k = 0; k < d[g].n; ++k) {
            __m128 row = k < 4 ? _mm256_castps256_ps128(rows[k]) : _mm256_extractf128_ps(rows[k - 4], 1);
            sinew_transform *t = &pose[sinew__track_joint((uint32_t)code[k])];
            int what = sinew__track_target((uint32_t)code[k]);
            if (what == 1) {
                _mm_storeu_ps(&t->rotation.x, row);
            } else {
                float *to = what == 0 ? &t->translation.x : &t->scale.x;
                _mm_storel_pi((__m64 *)(void *)to, row);
                _mm_store_ss(to + 2, _mm_movehl_ps(row, row));
            }
        }
        /* the reference where the series does not serve */
        int here = far >> (8 * g) & _mm256_movemask_ps(rotation[g]);
        if (here) {
            alignas(32) float ka[4][8], kb[4][8];
            for (int k = 0; k < 3; ++k) _mm256_store_ps(ka[k], d[g].a[k]), _mm256_store_ps(kb[k], d[g].b[k]);
            _mm256_store_ps(ka[3], d[g].a_w), _mm256_store_ps(kb[3], d[g].b_w);
            for (int k = 0; k < d[g].n; ++k) {
                if (!(here >> k & 1)) continue;
                float p[4] = {ka[0][k], ka[1][k], ka[2][k], ka[3][k]}, q[4] = {kb[0][k], kb[1][k], kb[2][k], kb[3][k]};
                int dr = d[g].stored >> k & 1 ? 4 : sinew__track_dropped((uint32_t)code[k]);
                sinew_quat p1 = sinew__rebuild(p, dr), q1 = sinew__rebuild(q, dr);
                pose[sinew__track_joint((uint32_t)code[k])].rotation =
                    nlerp ? sinew_quat_nlerp(p1, q1, s) : sinew_quat_slerp(p1, q1, s);
            }
        }
    }
}

void sinew__compressed_animated_avx2(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s,
                                     bool nlerp, sinew_transform *pose)
{
    /* sixteen tracks at a time, decoded, then their rotations side by
     * side; tracks raw beside quantized one at a time after the others */
    bool moving = s != 0.0f;
    for (int i = 0; i < c->animated_count;) {
        decoded d[2];
        int groups = 0;
        for (; groups < 2 && i < c->animated_count; ++groups) {
            int n = c->animated_count - i < 8 ? c->animated_count - i : 8;
            decode(c, &a, &b, moving, i, n, &d[groups]);
            i += n;
        }
        finish(groups, d, s, nlerp, pose);
        if (d[0].raw || (groups == 2 && d[1].raw)) raw_lanes(c, groups, d, s, nlerp, pose);
    }
}
