/* SPDX-License-Identifier: MIT */
/* Linear blend and dual quaternion skinning, 8 vertices per step: the
 * kernels that skin_avx2.c and skin_avx512.c compile for their instruction
 * sets (SINEW__LBS_NAME and SINEW__DQS_NAME name the functions). The
 * AVX-512 build is the same code given 32 vector registers, embedded
 * broadcasts and rsqrt14.
 *
 * LBS:
 * Per block of 8 vertices (see sinew__skin_blocks): the blended matrix M is
 * 12 vectors (its 3x4 part, one lane per vertex), each block joint adding
 * its palette matrix times its weight row; positions, normals and tangents
 * are read as x, y, z vectors, transformed, and written back. A job of
 * positions alone skips M: each joint's matrix transforms the positions
 * and the results are summed by weight (see skin_point); with normals
 * transformed by M itself (SINEW_NORMALS_FAST), M is blended a column at a
 * time, each column used as soon as it is made (skin_point_normal). A block
 * partly outside the job's range, or a stream that is not tightly packed,
 * goes through a small buffer, so nothing outside the range is read or
 * written. Prepared inputs (sinew_skin_inputs) are already x, y, z vectors,
 * stored in the order the blocks are visited. */
#include "skin/skin_internal.h"

#include <float.h>
#include <immintrin.h>

/* Everything here inlined whatever the unit's size: GCC's growth limits
 * otherwise leave some helpers as calls once both kernels share the unit,
 * and a call inside the vertex loop costs more than the loop's work. */
#define SIMD_INLINE static inline __attribute__((always_inline))

typedef struct v3x8 {
    __m256 x, y, z;
} v3x8;

#if defined(__AVX512F__)
/* x, y, z of 8 packed xyz triples: the 24 floats in a 512-bit and a 256-bit
 * register, each vector picked from both by one two-source permute (its
 * indices are the floats' places). Five instructions where the AVX2 way
 * below takes fourteen. Loading the 512 bits from a cache line boundary
 * instead (the 256 first where the block starts halfway into a line) is
 * slower: the indices then depend on the address. */
SIMD_INLINE v3x8 load3_packed(const float *p)
{
    __m512 lo = _mm512_loadu_ps(p), hi = _mm512_castps256_ps512(_mm256_loadu_ps(p + 16));
    v3x8 r;
    r.x = _mm512_castps512_ps256(
        _mm512_permutex2var_ps(lo, _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 0, 0, 0, 0, 0, 0, 0, 0), hi));
    r.y = _mm512_castps512_ps256(
        _mm512_permutex2var_ps(lo, _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 0, 0, 0, 0, 0, 0, 0, 0), hi));
    r.z = _mm512_castps512_ps256(
        _mm512_permutex2var_ps(lo, _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 0, 0, 0, 0, 0, 0, 0, 0), hi));
    return r;
}

/* The inverse: x and y in one 512-bit register (y the high half), z in
 * another, floats 0-15 and 16-23 of the triples each one permute. */
SIMD_INLINE void store3_packed(float *p, v3x8 v)
{
    __m512 xy = _mm512_insertf32x8(_mm512_castps256_ps512(v.x), v.y, 1), z = _mm512_castps256_ps512(v.z);
    __m512 lo = _mm512_permutex2var_ps(xy, _mm512_setr_epi32(0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19, 4, 12, 20, 5),
                                       z);
    __m512 hi = _mm512_permutex2var_ps(xy, _mm512_setr_epi32(13, 21, 6, 14, 22, 7, 15, 23, 0, 0, 0, 0, 0, 0, 0, 0), z);
    _mm512_storeu_ps(p, lo);
    _mm256_storeu_ps(p + 16, _mm512_castps512_ps256(hi));
}
#else
/* x, y, z of 8 packed xyz triples. Four vertices per 128-bit half (0-3 low,
 * 4-7 high), so in-lane shuffles do the work: three 256-bit loads regrouped
 * into halves by two blends and a lane permute, then five shuffles (128-bit
 * loads inserted into the high halves cost an FP operation each, and the
 * whole-vector permutes share the FMA pipes). */
SIMD_INLINE v3x8 load3_packed(const float *p)
{
    /* a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 y3 z3 x4 y4 z4 x5,
     * c = y5 z5 x6 y6 z6 x7 y7 z7; regrouped: m03 = x0 y0 z0 x1,
     * m14 = y1 z1 x2 y2, m25 = z2 x3 y3 z3 (and the same for 4-7 high) */
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
    __m256 m03 = _mm256_blend_ps(a, b, 0xf0);
    __m256 m14 = _mm256_permute2f128_ps(a, c, 0x21);
    __m256 m25 = _mm256_blend_ps(b, c, 0xf0);
    __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
    __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
    v3x8 r;
    r.x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    r.y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    r.z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
    return r;
}

/* The inverse: six in-lane shuffles, then the halves regrouped into three
 * 256-bit stores (half as many stores as 128-bit ones, which cost more
 * here than the lane permutes). */
SIMD_INLINE void store3_packed(float *p, v3x8 v)
{
    __m256 x = v.x, y = v.y, z = v.z;
    __m256 xy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
    __m256 yz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
    __m256 zx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
    __m256 m03 = _mm256_shuffle_ps(xy, zx, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 y0 z0 x1 */
    __m256 m14 = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0)); /* y1 z1 x2 y2 */
    __m256 m25 = _mm256_shuffle_ps(zx, yz, _MM_SHUFFLE(3, 1, 3, 1)); /* z2 x3 y3 z3 */
    _mm256_storeu_ps(p, _mm256_permute2f128_ps(m03, m14, 0x20));      /* x0 .. y2 */
    _mm256_storeu_ps(p + 8, _mm256_blend_ps(m25, m03, 0xf0));        /* z2 .. x5 */
    _mm256_storeu_ps(p + 16, _mm256_permute2f128_ps(m14, m25, 0x31)); /* y5 .. z7 */
}
#endif

/* The 8 vertices from `first` of a strided stream, lanes [lo, hi) read,
 * the others 0; `w` (when not NULL) receives each lane's fourth float. */
static __attribute__((noinline)) v3x8 load3_lanes(const float *base, size_t stride, int first, int lo, int hi, float *w)
{
    float buf[3][SINEW__BLOCK] = {{0}};
    for (int i = lo; i < hi; ++i) {
        const float *p = sinew__in(base, stride, first + i);
        buf[0][i] = p[0], buf[1][i] = p[1], buf[2][i] = p[2];
        if (w) w[i] = p[3];
    }
    v3x8 r = {_mm256_loadu_ps(buf[0]), _mm256_loadu_ps(buf[1]), _mm256_loadu_ps(buf[2])};
    return r;
}

static __attribute__((noinline)) void store3_lanes(float *base, size_t stride, int first, int lo, int hi, v3x8 v, const float *w)
{
    float buf[3][SINEW__BLOCK];
    _mm256_storeu_ps(buf[0], v.x);
    _mm256_storeu_ps(buf[1], v.y);
    _mm256_storeu_ps(buf[2], v.z);
    for (int i = lo; i < hi; ++i) {
        float *p = sinew__out(base, stride, first + i);
        p[0] = buf[0][i], p[1] = buf[1][i], p[2] = buf[2][i];
        if (w) p[3] = w[i];
    }
}

/* M = sum over the block's joints of weight row * palette matrix (k: the
 * block's group, see SINEW__UNIT_GROUP); m[0..8] the 3x3 part column by
 * column, m[9..11] the translation. */
SIMD_INLINE void blend(int k, const uint16_t *joints, const float *weights,
                            const sinew_mat4 *palette, __m256 m[12])
{
    static const int element[12] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};
    const float *p = palette[joints[0]].m;
    if (k == SINEW__UNIT_GROUP) { /* weights of 1: the matrix itself */
        for (int e = 0; e < 12; ++e) m[e] = _mm256_set1_ps(p[element[e]]);
        return;
    }
    __m256 w = _mm256_load_ps(weights);
    for (int e = 0; e < 12; ++e) m[e] = _mm256_mul_ps(_mm256_set1_ps(p[element[e]]), w);
    for (int j = 1; j < k; ++j) { /* group k > 0: k joints */
        p = palette[joints[j]].m;
        w = _mm256_load_ps(weights + j * SINEW__BLOCK);
        for (int e = 0; e < 12; ++e) m[e] = _mm256_fmadd_ps(_mm256_set1_ps(p[element[e]]), w, m[e]);
    }
}

/* M (p, 1): the translation first, then the columns in order (the order
 * skin_point_normal sums them in). */
SIMD_INLINE v3x8 transform_point(const __m256 *a, v3x8 p)
{
    v3x8 r;
    r.x = _mm256_fmadd_ps(a[6], p.z, _mm256_fmadd_ps(a[3], p.y, _mm256_fmadd_ps(a[0], p.x, a[9])));
    r.y = _mm256_fmadd_ps(a[7], p.z, _mm256_fmadd_ps(a[4], p.y, _mm256_fmadd_ps(a[1], p.x, a[10])));
    r.z = _mm256_fmadd_ps(a[8], p.z, _mm256_fmadd_ps(a[5], p.y, _mm256_fmadd_ps(a[2], p.x, a[11])));
    return r;
}

/* Column c (0-2, 3 the translation) of M, as blend makes it. */
SIMD_INLINE void blend_column(int k, const uint16_t *joints, const float *weights, const sinew_mat4 *palette, int c,
                              __m256 col[3])
{
    const float *p = palette[joints[0]].m + 4 * c;
    if (k == SINEW__UNIT_GROUP) {
        for (int r = 0; r < 3; ++r) col[r] = _mm256_set1_ps(p[r]);
        return;
    }
    __m256 w = _mm256_load_ps(weights);
    for (int r = 0; r < 3; ++r) col[r] = _mm256_mul_ps(_mm256_set1_ps(p[r]), w);
    for (int j = 1; j < k; ++j) {
        p = palette[joints[j]].m + 4 * c;
        w = _mm256_load_ps(weights + j * SINEW__BLOCK);
        for (int r = 0; r < 3; ++r) col[r] = _mm256_fmadd_ps(_mm256_set1_ps(p[r]), w, col[r]);
    }
}

/* transform_point(M, p) and apply3(M, n) bit for bit, M blended a column at
 * a time and each column used at once: 12 live vectors fewer than
 * blending M whole, which with the inputs and sums leaves AVX2's 16
 * registers short and spills. */
SIMD_INLINE void skin_point_normal(int k, const uint16_t *joints, const float *weights, const sinew_mat4 *palette,
                                   v3x8 p, v3x8 n, v3x8 *out_p, v3x8 *out_n)
{
    __m256 col[3];
    blend_column(k, joints, weights, palette, 3, col);
    v3x8 rp = {col[0], col[1], col[2]}, rn;
    blend_column(k, joints, weights, palette, 0, col);
    rp.x = _mm256_fmadd_ps(col[0], p.x, rp.x), rp.y = _mm256_fmadd_ps(col[1], p.x, rp.y);
    rp.z = _mm256_fmadd_ps(col[2], p.x, rp.z);
    rn.x = _mm256_mul_ps(col[0], n.x), rn.y = _mm256_mul_ps(col[1], n.x), rn.z = _mm256_mul_ps(col[2], n.x);
    blend_column(k, joints, weights, palette, 1, col);
    rp.x = _mm256_fmadd_ps(col[0], p.y, rp.x), rp.y = _mm256_fmadd_ps(col[1], p.y, rp.y);
    rp.z = _mm256_fmadd_ps(col[2], p.y, rp.z);
    rn.x = _mm256_fmadd_ps(col[0], n.y, rn.x), rn.y = _mm256_fmadd_ps(col[1], n.y, rn.y);
    rn.z = _mm256_fmadd_ps(col[2], n.y, rn.z);
    blend_column(k, joints, weights, palette, 2, col);
    rp.x = _mm256_fmadd_ps(col[0], p.z, rp.x), rp.y = _mm256_fmadd_ps(col[1], p.z, rp.y);
    rp.z = _mm256_fmadd_ps(col[2], p.z, rp.z);
    rn.x = _mm256_fmadd_ps(col[0], n.z, rn.x), rn.y = _mm256_fmadd_ps(col[1], n.z, rn.y);
    rn.z = _mm256_fmadd_ps(col[2], n.z, rn.z);
    *out_p = rp, *out_n = rn;
}

/* The skinned positions of a block without its blended matrix: the sum
 * over the block's joints of the weight row times the joint's palette
 * matrix applied to p, 12 multiplies or FMAs a joint where blending first
 * takes 12 a joint and the transform 9 more (k: the block's group, see
 * SINEW__UNIT_GROUP). */
SIMD_INLINE v3x8 skin_point(int k, const uint16_t *joints, const float *weights, const sinew_mat4 *palette, v3x8 p)
{
    static const int element[12] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};
    __m256 a[12];
    const float *q = palette[joints[0]].m;
    for (int e = 0; e < 12; ++e) a[e] = _mm256_set1_ps(q[element[e]]);
    v3x8 r = transform_point(a, p);
    if (k == SINEW__UNIT_GROUP) return r;
    __m256 w = _mm256_load_ps(weights);
    r.x = _mm256_mul_ps(r.x, w), r.y = _mm256_mul_ps(r.y, w), r.z = _mm256_mul_ps(r.z, w);
    for (int j = 1; j < k; ++j) {
        q = palette[joints[j]].m;
        for (int e = 0; e < 12; ++e) a[e] = _mm256_set1_ps(q[element[e]]);
        v3x8 t = transform_point(a, p);
        w = _mm256_load_ps(weights + j * SINEW__BLOCK);
        r.x = _mm256_fmadd_ps(t.x, w, r.x), r.y = _mm256_fmadd_ps(t.y, w, r.y), r.z = _mm256_fmadd_ps(t.z, w, r.z);
    }
    return r;
}

/* a[0..8] (column-major 3x3) times v. */
SIMD_INLINE v3x8 apply3(const __m256 *a, v3x8 v)
{
    v3x8 r;
    r.x = _mm256_fmadd_ps(a[6], v.z, _mm256_fmadd_ps(a[3], v.y, _mm256_mul_ps(a[0], v.x)));
    r.y = _mm256_fmadd_ps(a[7], v.z, _mm256_fmadd_ps(a[4], v.y, _mm256_mul_ps(a[1], v.x)));
    r.z = _mm256_fmadd_ps(a[8], v.z, _mm256_fmadd_ps(a[5], v.y, _mm256_mul_ps(a[2], v.x)));
    return r;
}

SIMD_INLINE __m256 cross_component(__m256 a1, __m256 b2, __m256 a2, __m256 b1)
{
    return _mm256_fmsub_ps(a1, b2, _mm256_mul_ps(a2, b1));
}

/* a x b, a given by its components (the same in every lane or not). */
SIMD_INLINE v3x8 cross3(__m256 ax, __m256 ay, __m256 az, v3x8 b)
{
    v3x8 r = {cross_component(ay, b.z, az, b.y), cross_component(az, b.x, ax, b.z),
              cross_component(ax, b.y, ay, b.x)};
    return r;
}

/* cofactor(A) n, negated where det(A) < 0: the direction of A^-T n, as the
 * scalar sinew__mat3_transform_normal. */
SIMD_INLINE v3x8 transform_normal(const __m256 *a, v3x8 n)
{
    __m256 c[9];
    /* column 0 = a1 x a2, column 1 = a2 x a0, column 2 = a0 x a1 (a_i the columns) */
    for (int i = 0; i < 3; ++i) {
        const __m256 *u = a + 3 * ((i + 1) % 3), *v = a + 3 * ((i + 2) % 3);
        v3x8 col = cross3(u[0], u[1], u[2], (v3x8){v[0], v[1], v[2]});
        c[3 * i + 0] = col.x, c[3 * i + 1] = col.y, c[3 * i + 2] = col.z;
    }
    v3x8 r = apply3(c, n);
    __m256 det = _mm256_fmadd_ps(a[2], c[2], _mm256_fmadd_ps(a[1], c[1], _mm256_mul_ps(a[0], c[0])));
    __m256 sign = _mm256_and_ps(_mm256_cmp_ps(det, _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_set1_ps(-0.0f));
    r.x = _mm256_xor_ps(r.x, sign), r.y = _mm256_xor_ps(r.y, sign), r.z = _mm256_xor_ps(r.z, sign);
    return r;
}

/* 1 / sqrt(len2), and 0 where len2 is 0 or NaN: a reciprocal square root
 * estimate and one Newton step, relative error under 3e-7. AVX-512's rsqrt14
 * keeps its 14 bits on subnormals, and its step is written so that nothing
 * overflows there (len2 r r as (len2 r) r, near 1); AVX2's rsqrt flushes
 * subnormals to an infinite estimate, so lengths below FLT_MIN take the exact
 * division instead. */
SIMD_INLINE __m256 rsqrt_or_zero(__m256 len2)
{
    __m256 positive = _mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_GT_OQ);
#if defined(__AVX512VL__)
    __m256 r = _mm256_rsqrt14_ps(len2);
    __m256 e = _mm256_fnmadd_ps(_mm256_mul_ps(len2, r), r, _mm256_set1_ps(1.0f)); /* 1 - len2 r^2 */
    r = _mm256_fmadd_ps(e, _mm256_mul_ps(r, _mm256_set1_ps(0.5f)), r);
#else
    __m256 r = _mm256_rsqrt_ps(len2);
    __m256 half_len2 = _mm256_mul_ps(len2, _mm256_set1_ps(0.5f));
    r = _mm256_mul_ps(r, _mm256_fnmadd_ps(half_len2, _mm256_mul_ps(r, r), _mm256_set1_ps(1.5f)));
    __m256 tiny = _mm256_and_ps(positive, _mm256_cmp_ps(len2, _mm256_set1_ps(FLT_MIN), _CMP_LT_OQ));
    if (_mm256_movemask_ps(tiny)) /* subnormal: the estimate overflows */
        r = _mm256_blendv_ps(r, _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2)), tiny);
#endif
    return _mm256_and_ps(r, positive);
}

/* v / |v|, and 0 where |v|^2 is 0 or NaN, as the scalar sinew__v3_normalize. */
SIMD_INLINE v3x8 normalize3(v3x8 v)
{
    __m256 len2 = _mm256_fmadd_ps(v.z, v.z, _mm256_fmadd_ps(v.y, v.y, _mm256_mul_ps(v.x, v.x)));
    __m256 r = rsqrt_or_zero(len2);
    v3x8 o = {_mm256_mul_ps(v.x, r), _mm256_mul_ps(v.y, r), _mm256_mul_ps(v.z, r)};
    return o;
}

/* A skinned normal or tangent as stored: renormalized, or as it is when the
 * job skips that. */
SIMD_INLINE v3x8 finish_direction(v3x8 v, bool renormalize)
{
    return renormalize ? normalize3(v) : v;
}

/* x, y, z of a block's 8 vertices from a stream, vector loads when the
 * block is whole and the stream packed. */
SIMD_INLINE v3x8 load_block(const float *base, size_t stride, int first, int lo, int hi)
{
    if (lo == 0 && hi == SINEW__BLOCK && stride == 12) return load3_packed(base + (size_t)first * 3);
    return load3_lanes(base, stride, first, lo, hi, NULL);
}

SIMD_INLINE void store_block(float *base, size_t stride, int first, int lo, int hi, v3x8 v)
{
    if (lo == 0 && hi == SINEW__BLOCK && stride == 12)
        store3_packed(base + (size_t)first * 3, v);
    else
        store3_lanes(base, stride, first, lo, hi, v, NULL);
}

/* A prepared block (sinew_skin_inputs): its x, y and z vectors as stored. */
SIMD_INLINE v3x8 load3_prepared(const float *p)
{
    v3x8 r = {_mm256_load_ps(p), _mm256_load_ps(p + SINEW__BLOCK), _mm256_load_ps(p + 2 * SINEW__BLOCK)};
    return r;
}

/* A block's positions or normals: the prepared copy at `slot` when the job
 * has one, else from the stream. */
SIMD_INLINE v3x8 load_input(const float *prepared, size_t slot, const float *stream, size_t stride, int first,
                            int lo, int hi)
{
    if (prepared) return load3_prepared(prepared + slot * SINEW__PREPARED_FLOATS);
    return load_block(stream, stride, first, lo, hi);
}

/* The slot of group k's first block in the job's prepared inputs (0
 * without: unused). */
SIMD_INLINE size_t group_slot(const sinew__job_streams *st, int k)
{
    return st->group_first ? st->group_first[k] : 0;
}

/* Block `block`'s first vertex and the lanes [*lo, *hi) of it in the range. */
SIMD_INLINE int block_lanes(const sinew__job_streams *st, uint32_t block, int *lo, int *hi)
{
    int first = (int)block * SINEW__BLOCK;
    *lo = st->begin > first ? st->begin - first : 0;
    *hi = st->end - first < SINEW__BLOCK ? st->end - first : SINEW__BLOCK;
    return first;
}

/* One block, any part of it in the range, any strides. */
SIMD_INLINE void lbs_block(const sinew_skin_job *job, const sinew__job_streams *st, int k, bool fast_normals,
                           bool renormalize, uint32_t block, size_t slot, const uint16_t *joints,
                           const float *weights)
{
    int lo, hi, first = block_lanes(st, block, &lo, &hi);
    if (st->positions && !st->normals && !job->tangents) { /* as lbs_whole's positions-only loop */
        store_block(job->out_positions, st->out_position_stride, first, lo, hi,
                    skin_point(k, joints, weights, job->palette,
                               load_input(st->prepared_positions, slot, job->positions, st->position_stride, first,
                                          lo, hi)));
        return;
    }
    __m256 m[12];
    blend(k, joints, weights, job->palette, m);
    if (st->positions)
        store_block(job->out_positions, st->out_position_stride, first, lo, hi,
                    transform_point(m, load_input(st->prepared_positions, slot, job->positions, st->position_stride,
                                                  first, lo, hi)));
    if (st->normals) {
        v3x8 nv = load_input(st->prepared_normals, slot, job->normals, st->normal_stride, first, lo, hi);
        store_block(job->out_normals, st->out_normal_stride, first, lo, hi,
                    finish_direction(fast_normals ? apply3(m, nv) : transform_normal(m, nv), renormalize));
    }
    if (job->tangents) {
        float w[SINEW__BLOCK];
        v3x8 t = finish_direction(apply3(m, load3_lanes(job->tangents, st->tangent_stride, first, lo, hi, w)),
                                  renormalize);
        store3_lanes(job->out_tangents, st->out_tangent_stride, first, lo, hi, t, w);
    }
}

/* A hint to fetch a packed block's 96 bytes: two cache lines, all of them
 * where the stream is 32-byte aligned. */
SIMD_INLINE void prefetch_block(const float *p)
{
    _mm_prefetch((const char *)p, _MM_HINT_T0);
    _mm_prefetch((const char *)(p + 16), _MM_HINT_T0);
}

/* Whole blocks, positions and normals packed, no tangents: the common
 * case, software pipelined: each block's normals are normalized and stored
 * after the next block is blended, so that the core has independent work
 * while each block's long chain (blend, transform, normalize) runs (faster
 * than two blocks interleaved side by side: docs/BENCHMARKS.md). */
SIMD_INLINE void lbs_whole(const sinew_skin_job *job, const sinew__job_streams *st, int k, bool fast_normals,
                           bool renormalize, bool prepared, const uint32_t *block, size_t slot,
                           const uint16_t *joints, const float *weights, size_t count)
{
    if (!st->normals) { /* positions only (packed: no tangents) */
        size_t n = (size_t)sinew__group_joints(k);
        const float *pp = prepared ? st->prepared_positions + slot * SINEW__PREPARED_FLOATS : NULL;
        for (size_t i = 0; i < count; ++i) {
            size_t f = (size_t)block[i] * SINEW__BLOCK * 3;
            if (!prepared && i + 4 < count) prefetch_block(job->positions + (size_t)block[i + 4] * SINEW__BLOCK * 3);
            store3_packed(job->out_positions + f,
                          skin_point(k, joints + i * n, weights + i * n * SINEW__BLOCK, job->palette,
                                     prepared ? load3_prepared(pp + i * SINEW__PREPARED_FLOATS)
                                              : load3_packed(job->positions + f)));
        }
        return;
    }
    if (fast_normals && st->positions) { /* positions and normals by M: a column at a time */
        size_t n = (size_t)sinew__group_joints(k);
        const float *pp = prepared ? st->prepared_positions + slot * SINEW__PREPARED_FLOATS : NULL;
        const float *pn = prepared ? st->prepared_normals + slot * SINEW__PREPARED_FLOATS : NULL;
        v3x8 pending = {0};
        float *pending_out = NULL;
        for (size_t i = 0; i < count; ++i) {
            size_t f = (size_t)block[i] * SINEW__BLOCK * 3;
            if (!prepared && i + 4 < count) {
                size_t ahead = (size_t)block[i + 4] * SINEW__BLOCK * 3;
                prefetch_block(job->positions + ahead);
                prefetch_block(job->normals + ahead);
            }
            v3x8 op, on;
            skin_point_normal(k, joints + i * n, weights + i * n * SINEW__BLOCK, job->palette,
                              prepared ? load3_prepared(pp + i * SINEW__PREPARED_FLOATS)
                                       : load3_packed(job->positions + f),
                              prepared ? load3_prepared(pn + i * SINEW__PREPARED_FLOATS) : load3_packed(job->normals + f),
                              &op, &on);
            store3_packed(job->out_positions + f, op);
            if (!renormalize) {
                store3_packed(job->out_normals + f, on);
                continue;
            }
            if (pending_out) store3_packed(pending_out, normalize3(pending));
            pending = on, pending_out = job->out_normals + f;
        }
        if (pending_out) store3_packed(pending_out, normalize3(pending));
        return;
    }
    v3x8 pending = {0};
    float *pending_out = NULL;
    size_t n = (size_t)sinew__group_joints(k);
    /* prepared inputs lie in this loop's order (and a job has them for
     * every stream it skins, or for none) */
    const float *pp = prepared && st->positions ? st->prepared_positions + slot * SINEW__PREPARED_FLOATS : NULL;
    const float *pn = prepared && st->normals ? st->prepared_normals + slot * SINEW__PREPARED_FLOATS : NULL;
    for (size_t i = 0; i < count; ++i) {
        __m256 m[12];
        blend(k, joints + i * n, weights + i * n * SINEW__BLOCK, job->palette, m);
        size_t f = (size_t)block[i] * SINEW__BLOCK * 3;
        if (!prepared && i + 4 < count) { /* the blocks of a group lie apart in the streams */
            size_t ahead = (size_t)block[i + 4] * SINEW__BLOCK * 3;
            if (job->positions) prefetch_block(job->positions + ahead);
            if (job->normals) prefetch_block(job->normals + ahead);
        }
        /* conditions on the pointers the loop reads anyway: st's flags
         * would be loaded again for every block (the vector stores may
         * alias them) */
        if (prepared ? pp != NULL : job->positions != NULL)
            store3_packed(job->out_positions + f,
                          transform_point(m, prepared ? load3_prepared(pp + i * SINEW__PREPARED_FLOATS)
                                                      : load3_packed(job->positions + f)));
        if (prepared ? pn != NULL : job->normals != NULL) {
            v3x8 nv = prepared ? load3_prepared(pn + i * SINEW__PREPARED_FLOATS) : load3_packed(job->normals + f);
            nv = fast_normals ? apply3(m, nv) : transform_normal(m, nv);
            if (pending_out) store3_packed(pending_out, finish_direction(pending, renormalize));
            pending = nv, pending_out = job->out_normals + f;
        }
    }
    if (pending_out) store3_packed(pending_out, finish_direction(pending, renormalize));
}

/* Whether any block of group g meets the job's range: the groups a small
 * range (a thread's share, a few blocks) does not touch are skipped before
 * their function is called. */
SIMD_INLINE bool group_meets(const sinew__block_group *g, const sinew__job_streams *st)
{
    return g->count && g->block[0] <= (uint32_t)((st->end - 1) / SINEW__BLOCK) &&
           g->block[g->count - 1] >= (uint32_t)(st->begin / SINEW__BLOCK);
}

/* The blocks of group k that meet the job's range. */
SIMD_INLINE void lbs_group(const sinew_skin_job *job, const sinew__job_streams *st, int k, bool fast_normals,
                           bool renormalize)
{
    const sinew__block_group *g = &sinew__skin_of(job->skin)->blocks->group[k];
    size_t lo, end, n = (size_t)sinew__group_joints(k), row = n * SINEW__BLOCK, slot = group_slot(st, k);
    sinew__group_span(g, st, &lo, &end);
    /* whole blocks (all but the range's first and last) pipelined when packed */
    const size_t tight = 3 * sizeof(float); /* three floats a vertex, nothing between */
    bool packed = !job->tangents &&
                  (!st->positions || ((st->prepared_positions || st->position_stride == tight) &&
                                      st->out_position_stride == tight)) &&
                  (!st->normals ||
                   ((st->prepared_normals || st->normal_stride == tight) && st->out_normal_stride == tight));
    size_t i = lo;
    if (packed) {
        uint32_t whole_first = (uint32_t)((st->begin + SINEW__BLOCK - 1) / SINEW__BLOCK);
        uint32_t whole_end = (uint32_t)(st->end / SINEW__BLOCK); /* blocks below it end in range */
        for (; i < end && g->block[i] < whole_first; ++i)
            lbs_block(job, st, k, fast_normals, renormalize, g->block[i], slot + i, g->joints + i * n,
                      g->weights + i * row);
        size_t whole = sinew__group_lower_bound(g, i, end, whole_end);
        /* two copies of the loop: with prepared inputs, or with streams */
        if (job->inputs)
            lbs_whole(job, st, k, fast_normals, renormalize, true, g->block + i, slot + i, g->joints + i * n,
                      g->weights + i * row, whole - i);
        else
            lbs_whole(job, st, k, fast_normals, renormalize, false, g->block + i, slot + i, g->joints + i * n,
                      g->weights + i * row, whole - i);
        i = whole;
    }
    for (; i < end; ++i)
        lbs_block(job, st, k, fast_normals, renormalize, g->block[i], slot + i, g->joints + i * n,
                  g->weights + i * row);
}

/* Each group up to 4 joints, normal mode and renormalization has its own
 * function: one loop, unrolled for its count, whose registers the compiler
 * allocates alone (with all groups inlined into one function, GCC spills
 * registers across them). DQS gains nothing from the split and stays one
 * function (docs/BENCHMARKS.md). */
#define LBS_GROUP_FUNCTION(name, k, fast, renormalize)                                                      \
    static __attribute__((noinline)) void name(const sinew_skin_job *job, const sinew__job_streams *st) \
    {                                                                                                   \
        lbs_group(job, st, k, fast, renormalize);                                                       \
    }
#define LBS_GROUP_FUNCTIONS(suffix, fast, renormalize)                                    \
    LBS_GROUP_FUNCTION(lbs_unit_##suffix, SINEW__UNIT_GROUP, fast, renormalize)           \
    LBS_GROUP_FUNCTION(lbs_group1_##suffix, 1, fast, renormalize)                         \
    LBS_GROUP_FUNCTION(lbs_group2_##suffix, 2, fast, renormalize)                         \
    LBS_GROUP_FUNCTION(lbs_group3_##suffix, 3, fast, renormalize)                         \
    LBS_GROUP_FUNCTION(lbs_group4_##suffix, 4, fast, renormalize)
LBS_GROUP_FUNCTIONS(fast, true, true)
LBS_GROUP_FUNCTIONS(exact, false, true)
LBS_GROUP_FUNCTIONS(fast_raw, true, false)
LBS_GROUP_FUNCTIONS(exact_raw, false, false)

static __attribute__((noinline)) void lbs_group_any(const sinew_skin_job *job, const sinew__job_streams *st, int k,
                                                    bool fast_normals, bool renormalize)
{
    lbs_group(job, st, k, fast_normals, renormalize);
}

void SINEW__LBS_NAME(const sinew_skin_job *job, const sinew__job_streams *st, sinew_normal_mode mode)
{
    typedef void (*group_fn)(const sinew_skin_job *, const sinew__job_streams *);
#define LBS_GROUP_ROW(suffix) {lbs_unit_##suffix, lbs_group1_##suffix, lbs_group2_##suffix, lbs_group3_##suffix, \
                               lbs_group4_##suffix}
    /* [renormalized][fast normals][joint count] */
    static const group_fn functions[2][2][5] = {{LBS_GROUP_ROW(exact_raw), LBS_GROUP_ROW(fast_raw)},
                                                {LBS_GROUP_ROW(exact), LBS_GROUP_ROW(fast)}};
#undef LBS_GROUP_ROW
    if (st->end <= st->begin) return;
    bool fast_normals = mode == SINEW_NORMALS_FAST || !st->normals;
    /* renormalization only changes normals and tangents */
    bool renormalize = !job->skip_renormalize || (!st->normals && !job->tangents);
    const sinew__skin_blocks *bl = sinew__skin_of(job->skin)->blocks;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        if (!group_meets(&bl->group[k], st)) continue;
        if (k <= 4)
            functions[renormalize][fast_normals][k](job, st);
        else
            lbs_group_any(job, st, k, fast_normals, renormalize);
    }
}

/* ---- dual quaternion skinning ------------------------------------------ */

/* The blend of a block's n joints, the scalar sinew_skin_dqs's per vertex:
 * each joint's weight negated in the lanes where its rotation points away
 * from the vertex's pivot joint's (the first it lists), then the real and
 * dual parts summed, and the stretch (unsigned weights) unless rigid. */
typedef struct dq8 {
    __m256 real[4], dual[4], stretch[9];
} dq8;

SIMD_INLINE void dqs_blend(int n, const uint16_t *joints, const float *weights,
                            const uint8_t *pivot, const sinew_dq_transform *pal,
                            bool rigid, dq8 *b)
{
    /* the pivot's rotation in each lane */
    __m256 pr[4];
    const sinew_dq_transform *d = &pal[joints[0]];
    pr[0] = _mm256_set1_ps(d->real.x), pr[1] = _mm256_set1_ps(d->real.y);
    pr[2] = _mm256_set1_ps(d->real.z), pr[3] = _mm256_set1_ps(d->real.w);
    if (n > 1) {
        __m256i lane_pivot = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)pivot));
        for (int k = 1; k < n; ++k) {
            __m256 here = _mm256_castsi256_ps(_mm256_cmpeq_epi32(lane_pivot, _mm256_set1_epi32(k)));
            const sinew_quat *q = &pal[joints[k]].real;
            pr[0] = _mm256_blendv_ps(pr[0], _mm256_set1_ps(q->x), here);
            pr[1] = _mm256_blendv_ps(pr[1], _mm256_set1_ps(q->y), here);
            pr[2] = _mm256_blendv_ps(pr[2], _mm256_set1_ps(q->z), here);
            pr[3] = _mm256_blendv_ps(pr[3], _mm256_set1_ps(q->w), here);
        }
    }
    for (int k = 0; k < n; ++k) {
        d = &pal[joints[k]];
        const float *q = &d->real.x, *e = &d->dual.x;
        __m256 w = _mm256_load_ps(weights + (size_t)k * SINEW__BLOCK);
        /* the dot product in the scalar's order, separate multiplies and
         * adds: the same sign bit for bit */
        __m256 dot = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(pr[0], _mm256_set1_ps(q[0])),
                                        _mm256_mul_ps(pr[1], _mm256_set1_ps(q[1]))),
                          _mm256_mul_ps(pr[2], _mm256_set1_ps(q[2]))),
            _mm256_mul_ps(pr[3], _mm256_set1_ps(q[3])));
        __m256 ws = _mm256_xor_ps(w, _mm256_and_ps(_mm256_cmp_ps(dot, _mm256_setzero_ps(), _CMP_LT_OQ),
                                                   _mm256_set1_ps(-0.0f)));
        for (int i = 0; i < 4; ++i) {
            if (k == 0) {
                b->real[i] = _mm256_mul_ps(ws, _mm256_set1_ps(q[i]));
                b->dual[i] = _mm256_mul_ps(ws, _mm256_set1_ps(e[i]));
            } else {
                b->real[i] = _mm256_fmadd_ps(ws, _mm256_set1_ps(q[i]), b->real[i]);
                b->dual[i] = _mm256_fmadd_ps(ws, _mm256_set1_ps(e[i]), b->dual[i]);
            }
        }
        if (!rigid)
            for (int i = 0; i < 9; ++i)
                b->stretch[i] = k == 0 ? _mm256_mul_ps(w, _mm256_set1_ps(d->stretch[i]))
                                       : _mm256_fmadd_ps(w, _mm256_set1_ps(d->stretch[i]), b->stretch[i]);
    }
}

/* v + 2 w (u x v) + 2 u x (u x v), u = q.xyz, as sinew__q_rotate. */
SIMD_INLINE v3x8 rotate3(const __m256 *q, v3x8 v)
{
    v3x8 t = cross3(q[0], q[1], q[2], v);
    __m256 two = _mm256_set1_ps(2.0f);
    t.x = _mm256_mul_ps(t.x, two), t.y = _mm256_mul_ps(t.y, two), t.z = _mm256_mul_ps(t.z, two);
    v3x8 c = cross3(q[0], q[1], q[2], t), r;
    r.x = _mm256_add_ps(_mm256_fmadd_ps(t.x, q[3], v.x), c.x);
    r.y = _mm256_add_ps(_mm256_fmadd_ps(t.y, q[3], v.y), c.y);
    r.z = _mm256_add_ps(_mm256_fmadd_ps(t.z, q[3], v.z), c.z);
    return r;
}

/* One block, any part of it in the range, any strides. */
SIMD_INLINE void dqs_block(const sinew_skin_job *job, const sinew__job_streams *st,
                            int n, bool rigid, bool uniform, uint32_t block, size_t slot,
                            const uint16_t *joints, const float *weights,
                            const uint8_t *pivot)
{
    int lo, hi, first = block_lanes(st, block, &lo, &hi);
    bool renormalize = !job->skip_renormalize;
    dq8 b;
    dqs_blend(n, joints, weights, pivot, job->dq_palette, rigid, &b);
    /* normalized by the real part's length */
    __m256 len2 = _mm256_fmadd_ps(b.real[3], b.real[3],
                                  _mm256_fmadd_ps(b.real[2], b.real[2],
                                                  _mm256_fmadd_ps(b.real[1], b.real[1],
                                                                  _mm256_mul_ps(b.real[0], b.real[0]))));
    __m256 inv = rsqrt_or_zero(len2), r[4], d[4];
    for (int i = 0; i < 4; ++i) r[i] = _mm256_mul_ps(b.real[i], inv), d[i] = _mm256_mul_ps(b.dual[i], inv);
    if (st->positions) {
        /* translation = 2 (d.xyz r.w - r.xyz d.w + r.xyz x d.xyz) */
        v3x8 dv = {d[0], d[1], d[2]}, c = cross3(r[0], r[1], r[2], dv), t;
        __m256 two = _mm256_set1_ps(2.0f);
        t.x = _mm256_mul_ps(_mm256_add_ps(_mm256_fnmadd_ps(r[0], d[3], _mm256_mul_ps(d[0], r[3])), c.x), two);
        t.y = _mm256_mul_ps(_mm256_add_ps(_mm256_fnmadd_ps(r[1], d[3], _mm256_mul_ps(d[1], r[3])), c.y), two);
        t.z = _mm256_mul_ps(_mm256_add_ps(_mm256_fnmadd_ps(r[2], d[3], _mm256_mul_ps(d[2], r[3])), c.z), two);
        v3x8 p = load_input(st->prepared_positions, slot, job->positions, st->position_stride, first, lo, hi);
        if (!rigid) p = apply3(b.stretch, p);
        p = rotate3(r, p);
        p.x = _mm256_add_ps(p.x, t.x), p.y = _mm256_add_ps(p.y, t.y), p.z = _mm256_add_ps(p.z, t.z);
        store_block(job->out_positions, st->out_position_stride, first, lo, hi, p);
    }
    if (st->normals) {
        v3x8 nv = load_input(st->prepared_normals, slot, job->normals, st->normal_stride, first, lo, hi);
        if (!rigid && !uniform) nv = transform_normal(b.stretch, nv);
        store_block(job->out_normals, st->out_normal_stride, first, lo, hi,
                    finish_direction(rotate3(r, nv), renormalize));
    }
    if (job->tangents) {
        float w[SINEW__BLOCK];
        v3x8 tv = load3_lanes(job->tangents, st->tangent_stride, first, lo, hi, w);
        if (!rigid) tv = apply3(b.stretch, tv);
        store3_lanes(job->out_tangents, st->out_tangent_stride, first, lo, hi,
                     finish_direction(rotate3(r, tv), renormalize), w);
    }
}

/* The blocks of group k that meet the job's range, n joints each (the unit
 * group's as one-joint blocks). */
SIMD_INLINE void dqs_group(const sinew_skin_job *job, const sinew__job_streams *st,
                            int k, int n, bool rigid, bool uniform)
{
    const sinew__block_group *g = &sinew__skin_of(job->skin)->blocks->group[k];
    size_t lo, end, row = (size_t)n * SINEW__BLOCK, slot = group_slot(st, k);
    sinew__group_span(g, st, &lo, &end);
    for (size_t i = lo; i < end; ++i)
        dqs_block(job, st, n, rigid, uniform, g->block[i], slot + i, g->joints + i * n, g->weights + i * row,
                  g->pivot + i * SINEW__BLOCK);
}

SIMD_INLINE void dqs_all(const sinew_skin_job *job, const sinew__job_streams *st,
                            bool rigid, bool uniform)
{
    const sinew__skin_blocks *bl = sinew__skin_of(job->skin)->blocks;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        if (!group_meets(&bl->group[k], st)) continue;
        switch (k) {
        case SINEW__UNIT_GROUP:
        case 1: dqs_group(job, st, k, 1, rigid, uniform); break;
        case 2: dqs_group(job, st, k, 2, rigid, uniform); break;
        case 3: dqs_group(job, st, k, 3, rigid, uniform); break;
        case 4: dqs_group(job, st, k, 4, rigid, uniform); break;
        default: dqs_group(job, st, k, k, rigid, uniform); break;
        }
    }
}

void SINEW__DQS_NAME(const sinew_skin_job *job, const sinew__job_streams *st, bool rigid, bool uniform)
{
    if (st->end <= st->begin) return;
    if (rigid)
        dqs_all(job, st, true, true);
    else if (uniform)
        dqs_all(job, st, false, true);
    else
        dqs_all(job, st, false, false);
}
