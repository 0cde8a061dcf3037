/* The sampling plan's kernels with 256-bit vectors and FMA (run only where
 * sinew_simd_supported() says so), for the timelines and for the block
 * layout: vectors as the reference's a + (b - a) s, a separate multiply and
 * add, rotations with fused ones. See sampler.c and sampler_internal.h for
 * the layouts and the agreement with the reference. */
#include "sampler_internal.h"

#include "pose_block_avx.h"
#include "rotation_avx.h"

#include <stdalign.h>

/* The four floats at src[i] and at src[i + 4] of frame f, in the low and
 * high halves. */
static inline __m256 pair(const float *f, const uint32_t *src, int i) { return sinew__halves(f + src[i], f + src[i + 4]); }

/* Eight bytes of a mask (-1 or 0) as eight lanes of all ones or zeros. */
static inline __m256 mask_lanes(const int8_t *mask)
{
    int64_t bytes;
    memcpy(&bytes, mask, sizeof bytes);
    return _mm256_castsi256_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128((long long)bytes)));
}

/* Sixteen rotation tracks (src, dst) between frames a and b at the
 * factors f, as two groups of eight. */
static void rotations(const float *a, const float *b, const uint32_t *src, const uint32_t *dst, float s,
                      const sinew__rotation_factors *f, float *out)
{
    enum { G = 2 };
    __m256 qa[G][4], qb[G][4], q[G][4], r[G][4];
    for (int g = 0; g < G; ++g) {
        const uint32_t *at = src + 8 * g;
        sinew__transpose_halves(pair(a, at, 0), pair(a, at, 1), pair(a, at, 2), pair(a, at, 3), qa[g]);
        sinew__transpose_halves(pair(b, at, 0), pair(b, at, 1), pair(b, at, 2), pair(b, at, 3), qb[g]);
    }
    int far = sinew__rotations(G, (const __m256(*)[4])qa, (const __m256(*)[4])qb, f, q); /* lanes for the reference */
    for (int g = 0; g < G; ++g) {
        sinew__transpose_halves(q[g][0], q[g][1], q[g][2], q[g][3], r[g]);
        for (int k = 0; k < 4; ++k) {
            _mm_storeu_ps(out + dst[8 * g + k], _mm256_castps256_ps128(r[g][k]));
            _mm_storeu_ps(out + dst[8 * g + k + 4], _mm256_extractf128_ps(r[g][k], 1));
        }
    }
    for (int lane = 0; far; ++lane, far >>= 1)
        if (far & 1) sinew__rotation_reference(a + src[lane], b + src[lane], s, f->nlerp, out + dst[lane]);
}

void sinew__timeline_lerp_avx2(const sinew__timeline *x, const float *a, const float *b, float s, bool nlerp,
                               const float *under, float *out)
{
    __m256 s8 = _mm256_set1_ps(s);
    if (x->image) {
        /* whole runs of eight pose floats, what no track writes taken from
         * `under` (a rotation's floats too: the rotations below overwrite
         * them); the last run moved back to end with the stretch (its
         * overlap written twice, the same) */
        float *o = out + x->image_at;
        const float *u = under + x->image_at;
        uint32_t n = x->image_floats;
        for (uint32_t f = 0; f < n; f += 8) {
            uint32_t g = f + 8 <= n ? f : n - 8;
            __m256 fa = _mm256_loadu_ps(a + g), fb = _mm256_loadu_ps(b + g);
            __m256 v = _mm256_add_ps(fa, _mm256_mul_ps(_mm256_sub_ps(fb, fa), s8));
            uint64_t written;
            memcpy(&written, x->image_mask + g, sizeof written);
            if (written == UINT64_MAX) { /* every float of the run (a fully animated joint's) */
                _mm256_storeu_ps(o + g, v);
                continue;
            }
            _mm256_storeu_ps(o + g, _mm256_blendv_ps(_mm256_loadu_ps(u + g), v, mask_lanes(x->image_mask + g)));
        }
    } else {
        __m128 s4 = _mm256_castps256_ps128(s8);
        for (int i = 0; i < x->vec_count; ++i) { /* packed: four floats a track */
            __m128 fa = _mm_load_ps(a + x->vec_src[i]), fb = _mm_load_ps(b + x->vec_src[i]);
            __m128 v = _mm_add_ps(fa, _mm_mul_ps(_mm_sub_ps(fb, fa), s4));
            float *o = out + x->vec_dst[i];
            _mm_storel_pi((__m64 *)o, v);
            _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
        }
    }
    sinew__rotation_factors f = sinew__rotation_factors_for(s, nlerp);
    for (int i = 0; i < x->rot_count; i += SINEW__ROTATION_LANES)
        rotations(a, b, x->rot_src + i, x->rot_dst + i, s, &f, out);
}

/* Lane i's rotation in frame block f, as four floats. */
static void lane_rotation(const float *f, int i, float q[4])
{
    for (int c = 0; c < 4; ++c) q[c] = f[8 * (3 + c) + i];
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
    int far = sinew__rotations(1, (const __m256(*)[4])qa, (const __m256(*)[4])qb, f, q);
    for (int c = 0; c < 4; ++c) v[3 + c] = q[0][c];
    for (int i = 0; far; ++i, far >>= 1) {
        if (!(far & 1)) continue;
        float ra[4], rb[4], r[4];
        alignas(32) float column[8];
        lane_rotation(a, i, ra), lane_rotation(b, i, rb);
        sinew__rotation_reference(ra, rb, s, f->nlerp, r);
        for (int c = 0; c < 4; ++c) {
            _mm256_store_ps(column, v[3 + c]);
            column[i] = r[c];
            v[3 + c] = _mm256_load_ps(column);
        }
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

/* Block `block`, sampled into v, finished: the floats no track writes
 * from `under` (the layout's copy where `copied`), then written to `local`
 * and on to model space. */
static inline void finish_block(const sinew__blocks *p, int block, __m256 v[10], const sinew_transform *under,
                                bool copied, const int16_t *parents, const sinew_mat4 *top, sinew_transform *local,
                                sinew_mat4 *model)
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
    if (model) sinew__model_block(v, joint, parents, top, model);
}

void sinew__blocks_run_avx2(const sinew__blocks *p, const float *a, const float *b, float s, bool nlerp,
                            const sinew_transform *under, bool copied, const int16_t *parents,
                            const sinew_mat4 *root, sinew_transform *local, sinew_mat4 *model)
{
    /* Blocks go in chunks: first each block's values (the blocks are
     * independent, so the processor overlaps one's chain of dependent
     * rotation steps with the next), then each is finished (its model
     * matrices wait on its parents', a chain down the skeleton). Finishing
     * each block as it is sampled measured 20% slower, sampling two blocks
     * with their steps alternated 5%. */
    enum { CHUNK = 8 };
    const sinew_mat4 *top = root ? root : &sinew__identity_mat4;
    sinew__rotation_factors f = sinew__rotation_factors_for(s, nlerp);
    int count = p->length / 8;
    __m256 v[CHUNK][10];
    for (int c0 = 0; c0 < count; c0 += CHUNK) {
        int chunk = count - c0 < CHUNK ? count - c0 : CHUNK;
        for (int g = 0; g < chunk; ++g) {
            int block = c0 + g;
            if (block < p->animated)
                sample_block(a + (size_t)block * SINEW__BLOCK_FLOATS, b + (size_t)block * SINEW__BLOCK_FLOATS, s,
                             &f, v[g]);
            else
                constant_values(p->constants + (size_t)(block - p->animated) * SINEW__BLOCK_FLOATS, s, v[g]);
        }
        for (int g = 0; g < chunk; ++g) finish_block(p, c0 + g, v[g], under, copied, parents, top, local, model);
    }
}
