/* SPDX-License-Identifier: MIT */
/* The sampling plan's kernels with 256-bit vectors and FMA (run only where
 * sinew_simd_supported() says so), for the timelines and for the block
 * layout: vectors as the reference's a + (b - a) s, a separate multiply and
 * add, rotations with fused ones. See plan.c and plan.h for
 * the layouts and the agreement with the reference. */
#include "clip/plan.h"

#include "skeleton/simd/pose_block_avx.h"
#include "rotation_avx.h"

#include <stdalign.h>

/* Eight bytes of a mask (-1 or 0) as eight lanes of all ones or zeros. */
static inline __m256 mask_lanes(const int8_t *mask)
{
    int64_t bytes;
    memcpy(&bytes, mask, sizeof bytes);
    return _mm256_castsi256_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128((long long)bytes)));
}

void sinew__timeline_vectors_avx2(const sinew__timeline *x, const float *a, const float *b, float s,
                                  const float *under, float *out)
{
    __m256 s8 = _mm256_set1_ps(s);
    if (x->image) {
        /* whole runs of eight pose floats, what no track writes taken from
         * `under` (a rotation's floats too: the rotations overwrite them);
         * the last run moved back to end with the stretch (its overlap
         * written twice, the same) */
        float *o = out + x->image_at;
        const float *u = under + x->image_at;
        uint32_t n = x->image_floats;
        for (uint32_t f = 0; f < n; f += 8) {
            uint32_t g = f + 8 <= n ? f : n - 8;
            __m256 fa = _mm256_loadu_ps(a + g), fb = _mm256_loadu_ps(b + g);
            __m256 v = _mm256_add_ps(fa, _mm256_mul_ps(_mm256_sub_ps(fb, fa), s8));
            uint64_t written;
            memcpy(&written, x->image_mask + g, sizeof written);
            /* the blend only where some float of the run is not written;
             * the runs of fully animated joints, the common case, on the
             * straight path (without the hint GCC lays it out with three
             * taken branches a run) */
            if (__builtin_expect(written != UINT64_MAX, 0))
                v = _mm256_blendv_ps(_mm256_loadu_ps(u + g), v, mask_lanes(x->image_mask + g));
            _mm256_storeu_ps(o + g, v);
        }
        return;
    }
    __m128 s4 = _mm256_castps256_ps128(s8);
    for (int i = 0; i < x->vec_count; ++i) { /* packed: four floats a track */
        __m128 fa = _mm_load_ps(a + x->vec_src[i]), fb = _mm_load_ps(b + x->vec_src[i]);
        __m128 v = _mm_add_ps(fa, _mm_mul_ps(_mm_sub_ps(fb, fa), s4));
        float *o = out + x->vec_dst[i];
        _mm_storel_pi((__m64 *)o, v);
        _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
    }
}

/* Sixteen rotation lanes as two groups of eight (one group alone leaves
 * the CPU waiting: each step waits on the last). Lane k's keys are at
 * a[k * step] + src[k] and b[k * step] + src[k], its factor s[k * step], its
 * sample written to out + dst[k]: step 0, one timeline's keys and factor
 * for all (f[0]), not on a key; step 1, each lane its own (group g's
 * factors f[g]), lanes on a key given it as stored. */
static inline __attribute__((always_inline)) void rotation_lanes(const float *const *a, const float *const *b,
                                                                 const float *s, int step, const uint32_t *src,
                                                                 const uint32_t *dst,
                                                                 const sinew__rotation_factors *f, float *out)
{
    enum { G = 2 };
    __m256 qa[G][4], qb[G][4], q[G][4], r[G][4], on_key[G];
    int stored = 0; /* lanes on a key */
    for (int g = 0; g < G; ++g) {
        __m256 rows[2][4];
        for (int k = 0; k < 4; ++k) {
            int lo = 8 * g + k, hi = lo + 4;
            rows[0][k] = sinew__halves(a[lo * step] + src[lo], a[hi * step] + src[hi]);
            rows[1][k] = sinew__halves(b[lo * step] + src[lo], b[hi * step] + src[hi]);
        }
        sinew__transpose_halves(rows[0][0], rows[0][1], rows[0][2], rows[0][3], qa[g]);
        sinew__transpose_halves(rows[1][0], rows[1][1], rows[1][2], rows[1][3], qb[g]);
        if (step) {
            on_key[g] = _mm256_cmp_ps(_mm256_load_ps(s + 8 * g), _mm256_setzero_ps(), _CMP_EQ_OQ);
            stored |= _mm256_movemask_ps(on_key[g]) << (8 * g);
        }
    }
    /* lanes for the reference */
    int far = sinew__rotations(G, (const __m256(*)[4])qa, (const __m256(*)[4])qb, f, step, q) & ~stored;
    for (int g = 0; g < G; ++g) {
        if (stored)
            for (int c = 0; c < 4; ++c) q[g][c] = _mm256_blendv_ps(q[g][c], qa[g][c], on_key[g]);
        sinew__transpose_halves(q[g][0], q[g][1], q[g][2], q[g][3], r[g]);
        for (int k = 0; k < 4; ++k) {
            _mm_storeu_ps(out + dst[8 * g + k], _mm256_castps256_ps128(r[g][k]));
            _mm_storeu_ps(out + dst[8 * g + k + 4], _mm256_extractf128_ps(r[g][k], 1));
        }
    }
    for (int k = 0; far; ++k, far >>= 1)
        if (far & 1)
            sinew__rotation_reference(a[k * step] + src[k], b[k * step] + src[k], s[k * step], f[0].nlerp,
                                      out + dst[k]);
}

void sinew__rotations_avx2(const sinew__rotation_list *list, int first, int end,
                           const sinew__keys *keys, int line0, bool nlerp, float *out)
{
    /* Sixteen entries at a time whatever their timelines (past `end` the
     * last entry again: computed and stored twice, the same), so that a
     * clip of many timelines with a rotation or two each takes no more
     * lanes than one of a single timeline: at their timeline's keys and
     * factor where all sixteen share them, else each lane at its own. */
    enum { LANES = SINEW__ROTATION_LANES };
    sinew__rotation_factors f[2];
    for (int i = first; i < end; i += LANES) {
        int l = list->line[i];
        const sinew__keys *k = &keys[l - line0];
        /* the list is listed to a multiple of LANES, its last entry
         * repeated; past `end` lie other timelines' entries, or that */
        if (i + LANES <= list->listed && list->line[i + LANES - 1] == l) { /* one timeline's */
            const uint32_t *src = list->src + i, *dst = list->dst + i;
            if (k->s == 0.0f) { /* on a key: as stored */
                for (int lane = 0; lane < LANES; ++lane) memcpy(out + dst[lane], k->a + src[lane], sizeof(float) * 4);
                continue;
            }
            f[0] = sinew__rotation_factors_for(_mm256_set1_ps(k->s), nlerp);
            rotation_lanes(&k->a, &k->b, &k->s, 0, src, dst, f, out);
            continue;
        }
        const float *pa[LANES], *pb[LANES];
        uint32_t src[LANES], dst[LANES];
        alignas(32) float s[LANES];
        for (int lane = 0; lane < LANES; ++lane) {
            int e = i + lane < end ? i + lane : end - 1;
            const sinew__keys *ke = &keys[list->line[e] - line0];
            pa[lane] = ke->a, pb[lane] = ke->b, s[lane] = ke->s, src[lane] = list->src[e], dst[lane] = list->dst[e];
        }
        for (int g = 0; g < 2; ++g) f[g] = sinew__rotation_factors_for(_mm256_load_ps(s + 8 * g), nlerp);
        rotation_lanes(pa, pb, s, 1, src, dst, f, out);
    }
}

/* Lane i's rotation in frame block f, as four floats. */
static void lane_rotation(const float *f, int i, float q[4])
{
    for (int c = 0; c < 4; ++c) q[c] = f[8 * (3 + c) + i];
}

/* Lane i of the four rotation vectors q replaced by r (a lane the
 * reference computes). */
static void put_rotation_lane(__m256 q[4], int i, const float r[4])
{
    alignas(32) float column[8];
    for (int c = 0; c < 4; ++c) {
        _mm256_store_ps(column, q[c]);
        column[i] = r[c];
        q[c] = _mm256_load_ps(column);
    }
}

/* A block's values as stored at a (float f of sinew_transform in v[f]). */
static inline void stored_block(const float *a, __m256 v[10])
{
    for (int c = 0; c < 10; ++c) v[c] = _mm256_load_ps(a + 8 * c);
}

/* One block between frames a and b at factor s into v (float f of
 * sinew_transform in v[f]). */
static inline void sample_block(const float *a, const float *b, float s, const sinew__rotation_factors *f,
                                __m256 v[10])
{
    if (s == 0.0f) { /* on a key: its values as stored (a + (a - a) 0 would turn -0 into +0) */
        stored_block(a, v);
        return;
    }
    __m256 s8 = _mm256_set1_ps(s), qa[1][4], qb[1][4], q[1][4];
    for (int c = 0; c < 10; ++c) {
        __m256 va = _mm256_load_ps(a + 8 * c), vb = _mm256_load_ps(b + 8 * c);
        if (c >= 3 && c < 7)
            qa[0][c - 3] = va, qb[0][c - 3] = vb;
        else
            v[c] = _mm256_add_ps(va, _mm256_mul_ps(_mm256_sub_ps(vb, va), s8));
    }
    int far = sinew__rotations(1, (const __m256(*)[4])qa, (const __m256(*)[4])qb, f, 0, q);
    for (int c = 0; c < 4; ++c) v[3 + c] = q[0][c];
    for (int i = 0; far; ++i, far >>= 1) {
        if (!(far & 1)) continue;
        float ra[4], rb[4], r[4];
        lane_rotation(a, i, ra), lane_rotation(b, i, rb);
        sinew__rotation_reference(ra, rb, s, f->nlerp, r);
        put_rotation_lane(v + 3, i, r);
    }
}

/* A constant block's values into v: as stored on a key (s == 0), else its
 * translations and scales plus 0, what the lerp between equal values gives
 * (a -0 becomes +0); its rotations as stored, within a unit in the last
 * place of the reference's interpolation between equal keys. */
static inline void constant_values(const float *c, float s, __m256 v[10])
{
    stored_block(c, v);
    if (s == 0.0f) return;
    __m256 zero = _mm256_setzero_ps();
    for (int f = 0; f < 3; ++f) v[f] = _mm256_add_ps(v[f], zero), v[7 + f] = _mm256_add_ps(v[7 + f], zero);
}

/* Block `block`'s values v into the SoA pose `pose` in the skeleton's pose
 * order: each part's lanes permuted into place and blended over what the
 * pose block holds (other parts give its other lanes). */
static inline void pose_store(const sinew__blocks *p, int block, const __m256 v[10], float *pose)
{
    for (int i = p->pose_first[block]; i < p->pose_first[block + 1]; ++i) {
        const sinew__pose_part *part = &p->pose_parts[i];
        __m256i lane = _mm256_loadu_si256((const __m256i *)part->lane);
        __m256 mask = _mm256_loadu_ps((const float *)part->mask);
        float *o = pose + (size_t)part->to * SINEW__BLOCK_FLOATS;
        if (part->same) {
            for (int c = 0; c < 10; ++c) _mm256_storeu_ps(o + 8 * c, v[c]);
            continue;
        }
        if (part->whole) {
            for (int c = 0; c < 10; ++c) _mm256_storeu_ps(o + 8 * c, _mm256_permutevar8x32_ps(v[c], lane));
            continue;
        }
        for (int c = 0; c < 10; ++c)
            _mm256_storeu_ps(o + 8 * c, _mm256_blendv_ps(_mm256_loadu_ps(o + 8 * c),
                                                         _mm256_permutevar8x32_ps(v[c], lane), mask));
    }
}

/* Block `block`, sampled into v, finished: the floats no track writes
 * from `under` (the layout's copy where `copied`), then written to `local`,
 * to `pose` and on to model space. */
static inline __attribute__((always_inline)) void finish_block(const sinew__blocks *p, int block, __m256 v[10], const sinew_transform *under,
                                bool copied, const int16_t *parents, const sinew_mat4 *top, sinew_transform *local,
                                float *pose, sinew_mat4 *model)
{
    const int16_t *joint = p->schedule + 8 * block;
    int32_t slot = p->under_slot[block];
    if (slot >= 0 && !(copied && p->settled[block])) {
        __m256 u[10];
        if (copied)
            stored_block(p->under + (size_t)slot * SINEW__BLOCK_FLOATS, u);
        else
            sinew__load_block(under, joint, u);
        for (int c = 0; c < 10; ++c)
            v[c] = _mm256_blendv_ps(u[c], v[c],
                                    mask_lanes(p->mask + (size_t)block * SINEW__BLOCK_FLOATS + 8 * c));
    }
    if (local) sinew__store_block(v, joint, local);
    if (pose) pose_store(p, block, v, pose);
    if (model) sinew__model_block(v, joint, parents, top, model);
}

/* Eight packed values: offset + q step, as sinew__packed_lane() gives
 * them (the step's product is exact, so the fused multiply-add rounds as
 * the separate multiply and add). */
static inline __m256 unpack8(const uint16_t *q, __m256 step, __m256 offset)
{
    __m256 n = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_load_si128((const __m128i *)q)));
    return _mm256_fmadd_ps(n, step, offset);
}

/* Block `block` (animated) of a packed layout between keys ka and kb at
 * factor s into v, unpacked into registers: vectors x + (y - x) s (on a key
 * too: a packed key holds no -0), rotations interpolated (on a key at 0,
 * which normalizes them: unpacked, they are unit length only to their
 * rounding). Lanes whose keys lie far apart go through the reference's
 * formulas on the unpacked keys, normalized as the reference sampler of
 * packed layouts does. The loop is sample_block's with each value unpacked
 * where it is used: sharing one helper (both keys' ten vectors unpacked
 * first, or handed over one float at a time through a struct) spills
 * registers. */
static inline __attribute__((always_inline)) void sample_packed_block(const sinew__blocks *p, int block, size_t ka,
                                                                      size_t kb, float s,
                                                                      const sinew__rotation_factors *f, __m256 v[10])
{
    const sinew__packed_keys *q = p->packed;
    const float *fixed = q->fixed + (size_t)block * SINEW__BLOCK_FLOATS;
    size_t at = (size_t)q->first[block];
    unsigned varying = q->varying[block];
    const uint16_t *key_a = q->keys + ka * (size_t)q->stored * 8, *key_b = q->keys + kb * (size_t)q->stored * 8;
    __m256 s8 = _mm256_set1_ps(s), qa[1][4], qb[1][4], r[1][4];
    for (int c = 0; c < 10; ++c) {
        __m256 va, vb;
        if (varying >> c & 1) {
            __m256 step = _mm256_load_ps(q->step + 8 * at), offset = _mm256_load_ps(q->offset + 8 * at);
            va = unpack8(key_a + 8 * at, step, offset), vb = unpack8(key_b + 8 * at, step, offset);
            ++at;
        } else {
            va = vb = _mm256_load_ps(fixed + 8 * c);
        }
        if (c >= 3 && c < 7)
            qa[0][c - 3] = va, qb[0][c - 3] = vb;
        else
            v[c] = _mm256_add_ps(va, _mm256_mul_ps(_mm256_sub_ps(vb, va), s8));
    }
    int far = sinew__rotations(1, (const __m256(*)[4])qa, (const __m256(*)[4])qb, f, 0, r);
    for (int c = 0; c < 4; ++c) v[3 + c] = r[0][c];
    for (int i = 0; far; ++i, far >>= 1) {
        if (!(far & 1)) continue;
        float ra[10], rb[10], x[4];
        sinew__packed_lane(p, 8 * block + i, ka, ra), sinew__packed_lane(p, 8 * block + i, kb, rb);
        sinew__rotation_reference(ra + 3, rb + 3, s, f->nlerp, x);
        sinew_quat n = sinew__q_normalize(sinew__q(x[0], x[1], x[2], x[3]));
        memcpy(x, &n, sizeof x);
        put_rotation_lane(v + 3, i, x);
    }
}

/* The kernel, for the float frames a and b or (`packed`, a constant where
 * it is inlined) the packed keys ka and kb, each block unpacked into
 * registers as it is sampled. */
static inline __attribute__((always_inline)) void run_blocks(const sinew__blocks *p, const float *a, const float *b,
                                                             size_t ka, size_t kb, float s, bool nlerp,
                                                             const sinew_transform *under, bool copied,
                                                             const int16_t *parents, const sinew_mat4 *root,
                                                             sinew_transform *local, float *pose, sinew_mat4 *model,
                                                             bool packed)
{
    /* Blocks go in chunks: first each block's values (the blocks are
     * independent, so the processor overlaps one's chain of dependent
     * rotation steps with the next), then each is finished (its model
     * matrices wait on its parents', a chain down the skeleton). Finishing
     * each block as it is sampled, or sampling two blocks with their steps
     * alternated, is slower (docs/BENCHMARKS.md). */
    enum { CHUNK = 8 };
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    sinew__rotation_factors f = sinew__rotation_factors_for(_mm256_set1_ps(s), nlerp);
    int count = p->length / 8;
    __m256 v[CHUNK][10];
    for (int c0 = 0; c0 < count; c0 += CHUNK) {
        int chunk = count - c0 < CHUNK ? count - c0 : CHUNK;
        for (int g = 0; g < chunk; ++g) {
            int block = c0 + g;
            if (block < p->animated) {
                if (packed)
                    sample_packed_block(p, block, ka, kb, s, &f, v[g]);
                else
                    sample_block(a + (size_t)block * SINEW__BLOCK_FLOATS, b + (size_t)block * SINEW__BLOCK_FLOATS,
                                 s, &f, v[g]);
            } else {
                constant_values(p->constants + (size_t)(block - p->animated) * SINEW__BLOCK_FLOATS, s, v[g]);
            }
        }
        for (int g = 0; g < chunk; ++g) finish_block(p, c0 + g, v[g], under, copied, parents, top, local, pose, model);
    }
}

void sinew__blocks_run_avx2(const sinew__blocks *p, const float *a, const float *b, float s, bool nlerp,
                            const sinew_transform *under, bool copied, const int16_t *parents,
                            const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model)
{
    run_blocks(p, a, b, 0, 0, s, nlerp, under, copied, parents, root, local, pose, model, false);
}

void sinew__packed_run_avx2(const sinew__blocks *p, size_t ka, size_t kb, float s, bool nlerp,
                            const sinew_transform *under, bool copied, const int16_t *parents,
                            const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model)
{
    run_blocks(p, NULL, NULL, ka, kb, s, nlerp, under, copied, parents, root, local, pose, model, true);
}
