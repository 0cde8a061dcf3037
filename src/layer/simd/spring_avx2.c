/* SPDX-License-Identifier: MIT */
/* Spring bones eight chains at a time (run only where sinew_simd_supported()
 * says so): the chains of a group have the same bone count, so joint e of
 * every lane is computed side by side, each value one 256-bit vector of its
 * eight lanes (structure of arrays). What a lane reads (its transforms,
 * bone, tails, colliders) is gathered from the caller's arrays a lane at a
 * time and what it writes scattered back; in between, every lane runs
 * spring.c's step_chain formulas in the same order with separate
 * multiplies and adds (the build turns off contraction into fused
 * multiply-adds), exact division and square root, and branches become
 * selects of both sides. So a lane's result is the scalar reference's, to
 * the rounding of the one step they do not share: the parent's rotation,
 * which both take from the same function. */
#include "layer/layer_internal.h"

#include "math/simd/transpose_avx.h"
#include "skeleton/simd/pose_block_avx.h"

#include <immintrin.h>

typedef __m256 V;
typedef struct v3 { V x, y, z; } v3;
typedef struct q4 { V x, y, z, w; } q4;

static inline V splat(float f) { return _mm256_set1_ps(f); }
static inline V select(V mask, V yes, V no) { return _mm256_blendv_ps(no, yes, mask); }
static inline V lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline V gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }

static inline v3 add3(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline v3 sub3(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline v3 scale3(v3 a, V s) { return (v3){a.x * s, a.y * s, a.z * s}; }
static inline V dot3(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 cross3(v3 a, v3 b) { return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static inline v3 select3(V m, v3 a, v3 b) { return (v3){select(m, a.x, b.x), select(m, a.y, b.y), select(m, a.z, b.z)}; }

static inline q4 qmul(q4 a, q4 b)
{
    return (q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

/* sinew__q_normalize: the identity where the length is 0 or not finite */
static inline q4 qnormalize(q4 q)
{
    V len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    V ok = _mm256_and_ps(gt(len2, splat(0.0f)), lt(len2, splat(INFINITY)));
    V inv = splat(1.0f) / _mm256_sqrt_ps(len2);
    return (q4){select(ok, q.x * inv, splat(0.0f)), select(ok, q.y * inv, splat(0.0f)),
                select(ok, q.z * inv, splat(0.0f)), select(ok, q.w * inv, splat(1.0f))};
}

/* sinew__q_rotate */
static inline v3 qrotate(q4 q, v3 v)
{
    v3 u = {q.x, q.y, q.z};
    v3 t = scale3(cross3(u, v), splat(2.0f));
    return add3(add3(v, scale3(t, q.w)), cross3(u, t));
}

/* sinew__v3_normalize: zero for a zero vector */
static inline v3 normalize3(v3 a)
{
    V len2 = dot3(a, a);
    V ok = gt(len2, splat(0.0f));
    v3 r = scale3(a, splat(1.0f) / _mm256_sqrt_ps(len2));
    return select3(ok, r, (v3){splat(0.0f), splat(0.0f), splat(0.0f)});
}

/* spring.c's at_length */
static inline v3 at_length(v3 p, v3 x, V length, v3 fallback)
{
    v3 d = sub3(x, p);
    V len2 = dot3(d, d);
    V ok = gt(len2, splat(0.0f));
    d = select3(ok, d, fallback);
    len2 = select(ok, len2, splat(1.0f));
    return add3(p, scale3(d, length / _mm256_sqrt_ps(len2)));
}

/* spring.c's from_to: not normalized, |b| = length */
static inline q4 from_to(v3 a, v3 b, V length)
{
    V d = dot3(a, b);
    V opposite = lt(d, splat(-0.999999f) * length);
    V small_x = lt(_mm256_andnot_ps(splat(-0.0f), a.x), splat(0.6f));
    v3 other = {select(small_x, splat(1.0f), splat(0.0f)), select(small_x, splat(0.0f), splat(1.0f)), splat(0.0f)};
    v3 c = cross3(a, b);
    q4 q = {c.x, c.y, c.z, length + d};
    if (_mm256_movemask_ps(opposite)) {
        v3 perp = normalize3(cross3(a, other));
        q.x = select(opposite, perp.x, q.x), q.y = select(opposite, perp.y, q.y);
        q.z = select(opposite, perp.z, q.z), q.w = select(opposite, splat(0.0f), q.w);
    }
    return q;
}

/* A model matrix's 12 varying entries, column c row r at c * 3 + r. */
typedef struct m34 { V m[12]; } m34;

/* sinew__mat4_from_trs */
static inline __attribute__((always_inline)) m34 from_trs(v3 t, q4 q, v3 s)
{
    V x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    V xx = q.x * x2, xy = q.x * y2, xz = q.x * z2;
    V yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    V wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    V one = splat(1.0f);
    m34 r;
    r.m[0] = (one - (yy + zz)) * s.x, r.m[1] = (xy + wz) * s.x, r.m[2] = (xz - wy) * s.x;
    r.m[3] = (xy - wz) * s.y, r.m[4] = (one - (xx + zz)) * s.y, r.m[5] = (yz + wx) * s.y;
    r.m[6] = (xz + wy) * s.z, r.m[7] = (yz - wx) * s.z, r.m[8] = (one - (xx + yy)) * s.z;
    r.m[9] = t.x, r.m[10] = t.y, r.m[11] = t.z;
    return r;
}

/* sinew__mat4_mul_affine, into r (not a or b) */
static inline void mul_affine(m34 *r, const m34 *a, const m34 *b)
{
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 3; ++row)
            r->m[c * 3 + row] = a->m[row] * b->m[c * 3] + a->m[3 + row] * b->m[c * 3 + 1] + a->m[6 + row] * b->m[c * 3 + 2];
    for (int row = 0; row < 3; ++row) r->m[9 + row] = r->m[9 + row] + a->m[9 + row];
}

/* spring.c's collide; where no lane is inside, x as it is */
static inline v3 collide(const V w[8], V hit, v3 p, v3 x, V length, v3 fallback)
{
    v3 a = {w[0], w[1], w[2]};
    v3 ab = sub3((v3){w[3], w[4], w[5]}, a);
    V s = dot3(sub3(x, a), ab) * w[7];
    s = select(lt(s, splat(0.0f)), splat(0.0f), select(gt(s, splat(1.0f)), splat(1.0f), s));
    v3 q = add3(a, scale3(ab, s));
    v3 d = sub3(x, q);
    V reach = w[6] + hit, d2 = dot3(d, d);
    V inside = lt(d2, reach * reach);
    if (!_mm256_movemask_ps(inside)) return x;
    V some = gt(d2, splat(0.0f));
    d = select3(some, d, fallback);
    d2 = select(some, d2, splat(1.0f));
    v3 pushed = at_length(p, add3(q, scale3(d, reach / _mm256_sqrt_ps(d2))), length, fallback);
    return select3(inside, pushed, x);
}

static inline V lanes(const float *v) { return _mm256_loadu_ps(v); }

/* Colliders kept in vectors for a whole group; more are loaded per joint. */
enum { CACHED_COLLIDERS = 8 };

/* Collider i of each lane of a group (the far one past a lane's count):
 * eight vectors, broadcast where the eight lanes share it. */
static inline void load_collider(const sinew__springs_run *run, const sinew__spring_chain *const ch[8], int i, V w[8])
{
    int index[8];
    bool same = true;
    for (int l = 0; l < 8; ++l) {
        index[l] = i < ch[l]->collider_count ? run->chain_colliders[ch[l]->collider_start + i] : run->collider_count;
        same = same && index[l] == index[0];
    }
    if (same) {
        const float *src = &run->colliders[index[0] * SINEW__SPRING_COLLIDER_FLOATS];
        for (int f = 0; f < 8; ++f) w[f] = _mm256_broadcast_ss(src + f);
        return;
    }
    __m256i at = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)index), _mm256_set1_epi32(SINEW__SPRING_COLLIDER_FLOATS));
    for (int f = 0; f < 8; ++f)
        w[f] = _mm256_i32gather_ps(run->colliders + f, at, 4);
}

/* Four vectors (lanes 0 .. 7) stored as four consecutive floats at each
 * rows[l]. */
static inline void store4(V a, V b, V c, V d, float *const rows[8])
{
    V r[4];
    sinew__transpose_halves(a, b, c, d, r);
    for (int k = 0; k < 4; ++k) {
        _mm_storeu_ps(rows[k], _mm256_castps256_ps128(r[k]));
        _mm_storeu_ps(rows[k + 4], _mm256_extractf128_ps(r[k], 1));
    }
}

/* Eight lanes' matrices written to out[0 .. 7], two 256-bit stores each:
 * the 4 x 4 transposes of two columns give lane k's in the low halves and
 * lane k + 4's in the high ones, one cross-half permute joins a lane's two
 * columns. */
static inline void store_matrices(const m34 *m, float *const out[8])
{
    V zero = splat(0.0f), one = splat(1.0f);
    for (int pair = 0; pair < 2; ++pair) {
        V a[4], b[4];
        int c0 = pair * 2, c1 = c0 + 1;
        sinew__transpose_halves(m->m[c0 * 3], m->m[c0 * 3 + 1], m->m[c0 * 3 + 2], zero, a);
        sinew__transpose_halves(m->m[c1 * 3], m->m[c1 * 3 + 1], m->m[c1 * 3 + 2], c1 == 3 ? one : zero, b);
        for (int k = 0; k < 4; ++k) {
            _mm256_storeu_ps(out[k] + c0 * 4, _mm256_permute2f128_ps(a[k], b[k], 0x20));
            _mm256_storeu_ps(out[k + 4] + c0 * 4, _mm256_permute2f128_ps(a[k], b[k], 0x31));
        }
    }
}

void sinew__springs_avx2(const sinew__springs_run *run, int first)
{
    enum { L = 8 };
    const sinew__spring_chain *ch[L];
    int max_colliders = 0;
    float tmp[16][L];
    int last_parent = -1;
    sinew_quat wq = {0, 0, 0, 1};
    for (int l = 0; l < L; ++l) {
        ch[l] = &run->chains[first + l];
        if (ch[l]->collider_count > max_colliders) max_colliders = ch[l]->collider_count;
        int pj = run->parents[run->path[ch[l]->path_start]];
        sinew_mat4 pm = pj >= 0 ? run->model[pj] : sinew_mat4_identity();
        /* chains of a group mostly hang from one joint: its rotation once */
        if (l == 0 || pj != last_parent) wq = pj >= 0 ? sinew__model_rotation(&pm) : (sinew_quat){0, 0, 0, 1};
        last_parent = pj;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) tmp[c * 3 + r][l] = pm.m[c * 4 + r];
        tmp[12][l] = wq.x, tmp[13][l] = wq.y, tmp[14][l] = wq.z, tmp[15][l] = wq.w;
    }
    int bone_count = ch[0]->bone_count, base = ch[0]->first_bone;
    /* the parent's matrix and the joint's, in turn */
    m34 buffers[2], *parent = &buffers[0], *m = &buffers[1];
    for (int i = 0; i < 12; ++i) parent->m[i] = lanes(tmp[i]);
    q4 wp = {lanes(tmp[12]), lanes(tmp[13]), lanes(tmp[14]), lanes(tmp[15])};
    V cached[CACHED_COLLIDERS][8];
    for (int i = 0; i < max_colliders && i < CACHED_COLLIDERS; ++i) load_collider(run, ch, i, cached[i]);
    V dt = splat(run->dt);
    for (int e = 0; e <= bone_count; ++e) {
        float *rows[L];
        for (int l = 0; l < L; ++l) rows[l] = &run->local[run->path[ch[l]->path_start + e]].translation.x;
        V tv[10];
        sinew__load_rows((const float *const *)rows, tv);
        v3 tr = {tv[0], tv[1], tv[2]}, sc = {tv[7], tv[8], tv[9]};
        q4 rot = {tv[3], tv[4], tv[5], tv[6]};
        q4 w;
        if (e < bone_count) {
            int block = (base + e * L) >> 3;
            float *a = run->anim + (size_t)block * 32;
            /* the first substep's animated rotation is local's; it is kept
             * for the others */
            if (run->first) {
                _mm256_storeu_ps(a, rot.x), _mm256_storeu_ps(a + 8, rot.y);
                _mm256_storeu_ps(a + 16, rot.z), _mm256_storeu_ps(a + 24, rot.w);
            } else {
                rot = (q4){lanes(a), lanes(a + 8), lanes(a + 16), lanes(a + 24)};
            }
            w = qmul(wp, rot);
            float *t = run->tails + (size_t)block * 48;
            const float *pa = run->params + (size_t)block * 8 * SINEW__SPRING_PARAMS;
            v3 cur = {lanes(t), lanes(t + 8), lanes(t + 16)};
            v3 prev = {lanes(t + 24), lanes(t + 32), lanes(t + 40)};
            V stiffness = lanes(pa), drag = lanes(pa + 8), hit = lanes(pa + 16), length = lanes(pa + 24);
            v3 gravity = {lanes(pa + 32), lanes(pa + 40), lanes(pa + 48)};
            v3 axis = {lanes(pa + 56), lanes(pa + 64), lanes(pa + 72)};
            /* spring.c: the joint's position, the translation column of
             * parent * TRS */
            v3 p = {parent->m[0] * tr.x + parent->m[3] * tr.y + parent->m[6] * tr.z,
                    parent->m[1] * tr.x + parent->m[4] * tr.y + parent->m[7] * tr.z,
                    parent->m[2] * tr.x + parent->m[5] * tr.y + parent->m[8] * tr.z};
            p = (v3){p.x + parent->m[9], p.y + parent->m[10], p.z + parent->m[11]};
            v3 dir = qrotate(w, axis);
            v3 next = add3(cur, scale3(sub3(cur, prev), splat(1.0f) - drag));
            next = add3(next, scale3(dir, dt * stiffness));
            next = add3(next, scale3(gravity, dt));
            next = at_length(p, next, length, dir);
            for (int i = 0; i < max_colliders; ++i) {
                V loaded[8];
                const V *cw = cached[i < CACHED_COLLIDERS ? i : 0];
                if (i >= CACHED_COLLIDERS) load_collider(run, ch, i, loaded), cw = loaded;
                next = collide(cw, hit, p, next, length, dir);
            }
            v3 to = qrotate((q4){-w.x, -w.y, -w.z, w.w}, sub3(next, p));
            rot = qnormalize(qmul(rot, from_to(axis, to, length)));
            m34 lm = from_trs(tr, rot, sc);
            mul_affine(m, parent, &lm);
            w = qmul(wp, rot);
            _mm256_storeu_ps(t + 24, cur.x), _mm256_storeu_ps(t + 32, cur.y), _mm256_storeu_ps(t + 40, cur.z);
            _mm256_storeu_ps(t, next.x), _mm256_storeu_ps(t + 8, next.y), _mm256_storeu_ps(t + 16, next.z);
            float *qrows[L];
            for (int l = 0; l < L; ++l) qrows[l] = rows[l] + 3;
            store4(rot.x, rot.y, rot.z, rot.w, qrows);
        } else {
            m34 lm = from_trs(tr, rot, sc);
            mul_affine(m, parent, &lm);
            w = qmul(wp, rot);
        }
        float *out[L];
        for (int l = 0; l < L; ++l) out[l] = run->model[run->path[ch[l]->path_start + e]].m;
        store_matrices(m, out);
        m34 *swap = parent;
        parent = m, m = swap;
        wp = w;
    }
}
