/* SPDX-License-Identifier: MIT */
/* Spring bones eight chains at a time, two groups side by side (run only
 * where sinew_simd_supported() says so): the chains of a group have the
 * same bone count, so joint e of every lane is computed side by side, each
 * value one 256-bit vector of its eight lanes (structure of arrays). A
 * joint waits on the one before it through a long run of dependent steps
 * (square roots and divisions among them), so every value here is a pair
 * of vectors, one per group, and each operation is issued for both in
 * turn: two independent runs of work for the core to overlap.
 *
 * What a lane reads (its transforms, bone, tails, and colliders where the
 * group's chains do not share them) is gathered from the caller's arrays a
 * lane at a time and what it writes scattered back, and the lanes' next
 * transforms and matrices are prefetched a joint ahead: each lane is its
 * own stream through memory, more streams than the hardware prefetchers
 * follow. In between, every lane runs spring.c's step_path formulas, its
 * matrices as one scale times a rotation (the kernel leaves a path to
 * spring.c where a scale differs between axes or mirrors), with fused
 * multiply-adds where a product meets a sum (fewer instructions; the
 * build otherwise turns contraction off), exact
 * division and square root but for a bone's length and a rotation's
 * normalization (an approximate reciprocal square root and a Newton step),
 * and branches become selects of both sides. So a lane's result is the
 * scalar reference's to rounding, not to the bit: tests/test_spring.c's
 * test_simd bounds the difference. */
#include "layer/layer_internal.h"
#include "math/math_internal.h"

#include "math/simd/transpose_avx.h"
#include "skeleton/simd/pose_block_avx.h"

#include <immintrin.h>
#include <float.h>  /* FLT_MIN */
#include <math.h>   /* fabsf, sqrtf, NAN */
#include <stddef.h> /* offsetof */

/* The groups side by side: half k of a value is group k's eight lanes
 * (two named vectors, not an array, which the compiler keeps in registers). */
enum { H = 2, L = 8 };
typedef struct V { __m256 a, b; } V;
typedef struct v3 { V x, y, z; } v3;
typedef struct q4 { V x, y, z, w; } q4;

/* half k of v */
static inline __m256 *half(V *v, int k) { return k ? &v->b : &v->a; }
static inline __m256 part(V v, int k) { return k ? v.b : v.a; }

#define BINARY(name, f)                                                                                                \
    static inline V name(V x, V y) { return (V){f(x.a, y.a), f(x.b, y.b)}; }
BINARY(add, _mm256_add_ps)
BINARY(sub, _mm256_sub_ps)
BINARY(mul, _mm256_mul_ps)
BINARY(dvd, _mm256_div_ps)
BINARY(vmin, _mm256_min_ps)
BINARY(vmax, _mm256_max_ps)
BINARY(vand, _mm256_and_ps)
BINARY(vor, _mm256_or_ps)
/* a * b + c, a * b - c, c - a * b, each rounded once */
static inline V fmadd(V a, V b, V c) { return (V){_mm256_fmadd_ps(a.a, b.a, c.a), _mm256_fmadd_ps(a.b, b.b, c.b)}; }
static inline V fmsub(V a, V b, V c) { return (V){_mm256_fmsub_ps(a.a, b.a, c.a), _mm256_fmsub_ps(a.b, b.b, c.b)}; }
static inline V fnmadd(V a, V b, V c) { return (V){_mm256_fnmadd_ps(a.a, b.a, c.a), _mm256_fnmadd_ps(a.b, b.b, c.b)}; }
static inline V splat(float f) { return (V){_mm256_set1_ps(f), _mm256_set1_ps(f)}; }
static inline V root(V x) { return (V){_mm256_sqrt_ps(x.a), _mm256_sqrt_ps(x.b)}; }
static inline V neg(V x) { return (V){_mm256_xor_ps(x.a, _mm256_set1_ps(-0.0f)), _mm256_xor_ps(x.b, _mm256_set1_ps(-0.0f))}; }
static inline V vabs(V x)
{
    return (V){_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x.a), _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x.b)};
}
static inline V select(V m, V yes, V no) { return (V){_mm256_blendv_ps(no.a, yes.a, m.a), _mm256_blendv_ps(no.b, yes.b, m.b)}; }
static inline V lt(V x, V y) { return (V){_mm256_cmp_ps(x.a, y.a, _CMP_LT_OQ), _mm256_cmp_ps(x.b, y.b, _CMP_LT_OQ)}; }
static inline V gt(V x, V y) { return (V){_mm256_cmp_ps(x.a, y.a, _CMP_GT_OQ), _mm256_cmp_ps(x.b, y.b, _CMP_GT_OQ)}; }
/* x != y or either is NaN */
static inline V neq(V x, V y) { return (V){_mm256_cmp_ps(x.a, y.a, _CMP_NEQ_UQ), _mm256_cmp_ps(x.b, y.b, _CMP_NEQ_UQ)}; }
/* whether a mask is set in any lane of any group */
static inline bool any(V m) { return _mm256_movemask_ps(_mm256_or_ps(m.a, m.b)) != 0; }

static inline v3 add3(v3 a, v3 b) { return (v3){add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; }
static inline v3 sub3(v3 a, v3 b) { return (v3){sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
static inline v3 scale3(v3 a, V s) { return (v3){mul(a.x, s), mul(a.y, s), mul(a.z, s)}; }
/* c + a * s */
static inline v3 madd3(v3 a, V s, v3 c) { return (v3){fmadd(a.x, s, c.x), fmadd(a.y, s, c.y), fmadd(a.z, s, c.z)}; }
static inline V dot3(v3 a, v3 b) { return fmadd(a.z, b.z, fmadd(a.y, b.y, mul(a.x, b.x))); }
static inline v3 cross3(v3 a, v3 b)
{
    return (v3){fmsub(a.y, b.z, mul(a.z, b.y)), fmsub(a.z, b.x, mul(a.x, b.z)), fmsub(a.x, b.y, mul(a.y, b.x))};
}
static inline v3 select3(V m, v3 a, v3 b) { return (v3){select(m, a.x, b.x), select(m, a.y, b.y), select(m, a.z, b.z)}; }

/* sinew__q_mul */
static inline q4 qmul(q4 a, q4 b)
{
    return (q4){fnmadd(a.z, b.y, fmadd(a.y, b.z, fmadd(a.x, b.w, mul(a.w, b.x)))),
                fmadd(a.z, b.x, fmadd(a.y, b.w, fnmadd(a.x, b.z, mul(a.w, b.y)))),
                fmadd(a.z, b.w, fnmadd(a.y, b.x, fmadd(a.x, b.y, mul(a.w, b.z)))),
                fnmadd(a.z, b.z, fnmadd(a.y, b.y, fnmadd(a.x, b.x, mul(a.w, b.w))))};
}

/* 1 / sqrt(x) for x > 0 finite: the approximate reciprocal square root and
 * one Newton step, within a few units in the last place; it leaves the
 * divider, which the exact square root and division share, to the
 * colliders' pushes. A subnormal x (a length below 1e-19) is taken as the
 * smallest normal float, which the approximation reads as zero. */
static inline V rsqrt(V x)
{
    V r;
    for (int k = 0; k < H; ++k) {
        __m256 v = _mm256_max_ps(part(x, k), _mm256_set1_ps(FLT_MIN)), y = _mm256_rsqrt_ps(v);
        /* y (3 - v y^2) / 2 */
        *half(&r, k) = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                                     _mm256_fnmadd_ps(_mm256_mul_ps(v, y), y, _mm256_set1_ps(3.0f)));
    }
    return r;
}

/* sinew__q_normalize: the identity where the length is 0 or not finite */
static inline q4 qnormalize(q4 q)
{
    V len2 = fmadd(q.w, q.w, fmadd(q.z, q.z, fmadd(q.y, q.y, mul(q.x, q.x))));
    V ok = vand(gt(len2, splat(0.0f)), lt(len2, splat(INFINITY)));
    V inv = rsqrt(len2);
    return (q4){select(ok, mul(q.x, inv), splat(0.0f)), select(ok, mul(q.y, inv), splat(0.0f)),
                select(ok, mul(q.z, inv), splat(0.0f)), select(ok, mul(q.w, inv), splat(1.0f))};
}

/* sinew__q_rotate */
static inline v3 qrotate(q4 q, v3 v)
{
    v3 u = {q.x, q.y, q.z};
    v3 t = scale3(cross3(u, v), splat(2.0f));
    return add3(madd3(t, q.w, v), cross3(u, t));
}

/* sinew__v3_normalize: zero for a zero vector */
static inline v3 normalize3(v3 a)
{
    V len2 = dot3(a, a);
    V ok = gt(len2, splat(0.0f));
    v3 r = scale3(a, dvd(splat(1.0f), root(len2)));
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
    return madd3(d, mul(length, rsqrt(len2)), p);
}

/* spring.c's from_to: not normalized, |b| = length */
static inline q4 from_to(v3 a, v3 b, V length)
{
    V d = dot3(a, b);
    V opposite = lt(d, mul(splat(-0.999999f), length));
    v3 c = cross3(a, b);
    q4 q = {c.x, c.y, c.z, add(length, d)};
    if (any(opposite)) {
        V small_x = lt(vabs(a.x), splat(0.6f));
        v3 other = {select(small_x, splat(1.0f), splat(0.0f)), select(small_x, splat(0.0f), splat(1.0f)), splat(0.0f)};
        v3 perp = normalize3(cross3(a, other));
        q.x = select(opposite, perp.x, q.x), q.y = select(opposite, perp.y, q.y);
        q.z = select(opposite, perp.z, q.z), q.w = select(opposite, splat(0.0f), q.w);
    }
    return q;
}

/* A model matrix's 12 varying entries, column c row r at c * 3 + r. */
typedef struct m34 { V m[12]; } m34;

/* The matrix of rotation q scaled by s (the same on every axis) at t:
 * sinew__mat4_from_trs's products with the scale taken into the doubled
 * components, so s R(q) to rounding. */
static inline __attribute__((always_inline)) m34 from_qs(q4 q, V s, v3 t)
{
    V s2 = add(s, s);
    V x2 = mul(q.x, s2), y2 = mul(q.y, s2), z2 = mul(q.z, s2);
    V xx = mul(q.x, x2), xy = mul(q.x, y2), xz = mul(q.x, z2);
    V yy = mul(q.y, y2), yz = mul(q.y, z2), zz = mul(q.z, z2);
    V wx = mul(q.w, x2), wy = mul(q.w, y2), wz = mul(q.w, z2);
    m34 r;
    r.m[0] = sub(s, add(yy, zz)), r.m[1] = add(xy, wz), r.m[2] = sub(xz, wy);
    r.m[3] = sub(xy, wz), r.m[4] = sub(s, add(xx, zz)), r.m[5] = add(yz, wx);
    r.m[6] = add(xz, wy), r.m[7] = sub(yz, wx), r.m[8] = sub(s, add(xx, yy));
    r.m[9] = t.x, r.m[10] = t.y, r.m[11] = t.z;
    return r;
}

/* Float f of a collider, half k from cw[k] (sinew__springs_run.colliders'
 * form). */
static inline V field(const float *const cw[H], int f)
{
    return (V){_mm256_loadu_ps(cw[0] + f * L), _mm256_loadu_ps(cw[1] + f * L)};
}

/* spring.c's collide, half k of the collider from cw[k]; where no lane is
 * inside, x as it is. A sphere (`sphere`: tail - center and its inverse
 * square length zero in both halves) has its center for the nearest point,
 * which the segment's formulas give exactly for a finite x (and for one
 * that is not, no lane inside either way). The push (two square roots and
 * divisions in a row) is computed for a group only where one of its lanes
 * is inside: the other group's run of work goes on without waiting on it. */
static inline __attribute__((always_inline)) v3 collide(const float *const cw[H], bool sphere, V hit, v3 p, v3 x, V length,
                                                        v3 fallback)
{
    v3 q = {field(cw, 0), field(cw, 1), field(cw, 2)};
    if (!sphere) {
        v3 ab = {field(cw, 3), field(cw, 4), field(cw, 5)};
        V s = mul(dot3(sub3(x, q), ab), field(cw, 7));
        /* the scalar clamp, NaN kept: max and min return their second
         * operand where one is NaN */
        s = vmin(splat(1.0f), vmax(splat(0.0f), s));
        q = madd3(ab, s, q);
    }
    v3 d = sub3(x, q);
    V reach = add(field(cw, 6), hit), d2 = dot3(d, d);
    V inside = lt(d2, mul(reach, reach));
    for (int k = 0; k < H; ++k) {
        __m256 in = part(inside, k);
        if (!_mm256_movemask_ps(in)) continue;
        __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
        __m256 dx = part(d.x, k), dy = part(d.y, k), dz = part(d.z, k), dd = part(d2, k);
        __m256 fx = part(fallback.x, k), fy = part(fallback.y, k), fz = part(fallback.z, k);
        __m256 some = _mm256_cmp_ps(dd, zero, _CMP_GT_OQ);
        dx = _mm256_blendv_ps(fx, dx, some), dy = _mm256_blendv_ps(fy, dy, some), dz = _mm256_blendv_ps(fz, dz, some);
        dd = _mm256_blendv_ps(one, dd, some);
        __m256 f = _mm256_div_ps(part(reach, k), _mm256_sqrt_ps(dd));
        __m256 px = part(p.x, k), py = part(p.y, k), pz = part(p.z, k);
        /* at_length(p, q + d f, length, fallback) */
        __m256 ex = _mm256_sub_ps(_mm256_fmadd_ps(dx, f, part(q.x, k)), px);
        __m256 ey = _mm256_sub_ps(_mm256_fmadd_ps(dy, f, part(q.y, k)), py);
        __m256 ez = _mm256_sub_ps(_mm256_fmadd_ps(dz, f, part(q.z, k)), pz);
        __m256 e2 = _mm256_fmadd_ps(ez, ez, _mm256_fmadd_ps(ey, ey, _mm256_mul_ps(ex, ex)));
        __m256 ok = _mm256_cmp_ps(e2, zero, _CMP_GT_OQ);
        ex = _mm256_blendv_ps(fx, ex, ok), ey = _mm256_blendv_ps(fy, ey, ok), ez = _mm256_blendv_ps(fz, ez, ok);
        e2 = _mm256_blendv_ps(one, e2, ok);
        __m256 g = _mm256_div_ps(part(length, k), _mm256_sqrt_ps(e2));
        *half(&x.x, k) = _mm256_blendv_ps(part(x.x, k), _mm256_fmadd_ps(ex, g, px), in);
        *half(&x.y, k) = _mm256_blendv_ps(part(x.y, k), _mm256_fmadd_ps(ey, g, py), in);
        *half(&x.z, k) = _mm256_blendv_ps(part(x.z, k), _mm256_fmadd_ps(ez, g, pz), in);
    }
    return x;
}

/* Eight floats at v[k] + at, half k from group k's block. */
static inline V lanes(float *const v[H], size_t at) { return (V){_mm256_loadu_ps(v[0] + at), _mm256_loadu_ps(v[1] + at)}; }
static inline void put(float *const v[H], size_t at, V x) { _mm256_storeu_ps(v[0] + at, x.a), _mm256_storeu_ps(v[1] + at, x.b); }

/* How many joints ahead the loop asks for its lanes' memory: two joints'
 * work covers the memory's latency where one does not quite (three ask
 * too early, the lines evicted by the other lanes' before use). */
enum { PREFETCH = 2 };

/* Colliders whose lanes' floats a call finds once; more are found per
 * joint. */
enum { CACHED_COLLIDERS = 8 };

/* Collider i of the lanes of the group from chain c (the far one past a
 * lane's count), in sinew__springs_run.colliders' form: where the group's
 * eight chains share their lists that collider's own floats, else the
 * lanes' gathered into `into`. */
static inline const float *collider(const sinew__springs_run *run, const sinew__spring_chain *c, int i, float into[8 * L])
{
    enum { WIDE = SINEW__SPRING_COLLIDER_FLOATS * L };
    if (c->lanes_share & SINEW__SHARE_COLLIDERS) {
        int index = i < c->collider_count ? run->chain_colliders[c->collider_start + i] : run->collider_count;
        return &run->colliders[index * WIDE];
    }
    int index[L];
    for (int l = 0; l < L; ++l)
        index[l] = i < c[l].collider_count ? run->chain_colliders[c[l].collider_start + i] : run->collider_count;
    __m256i at = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)index), _mm256_set1_epi32(WIDE));
    for (int f = 0; f < 8; ++f) _mm256_storeu_ps(into + f * L, _mm256_i32gather_ps(run->colliders + f * L, at, 4));
    return into;
}

/* Whether a collider in that form is a sphere in all its lanes. */
static inline bool is_sphere(const float *cw)
{
    __m256 zero = _mm256_setzero_ps();
    __m256 some = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(cw + 3 * L), zero, _CMP_NEQ_UQ),
                                            _mm256_cmp_ps(_mm256_loadu_ps(cw + 4 * L), zero, _CMP_NEQ_UQ)),
                               _mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(cw + 5 * L), zero, _CMP_NEQ_UQ),
                                            _mm256_cmp_ps(_mm256_loadu_ps(cw + 7 * L), zero, _CMP_NEQ_UQ)));
    return _mm256_movemask_ps(some) == 0;
}

/* The one scale s of a model matrix whose rotation part is s R(q), q its
 * rotation (sinew__model_rotation): its columns' lengths within 2^-20 of
 * each other's and every element within 2^-20 s of s R(q) (the roundings
 * of a long chain of rotations, far below a scale meant to differ); NaN
 * where there is none: a scale that differs between axes, a skew, a
 * mirror, a length that is not finite. */
static float uniform_scale(const sinew_mat4 *m, sinew_quat q)
{
    sinew_mat4 r;
    sinew__mat4_from_trs(&r, (sinew_vec3){0, 0, 0}, q, (sinew_vec3){1, 1, 1});
    float length[3];
    for (int c = 0; c < 3; ++c) {
        const float *col = &m->m[c * 4];
        length[c] = sqrtf(col[0] * col[0] + col[1] * col[1] + col[2] * col[2]);
    }
    float lo = fminf(length[0], fminf(length[1], length[2])), hi = fmaxf(length[0], fmaxf(length[1], length[2]));
    float s = (length[0] + length[1] + length[2]) / 3.0f, tolerance = 0x1p-20f * s;
    if (!(hi - lo <= tolerance && s < INFINITY)) return NAN;
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            if (!(fabsf(m->m[c * 4 + row] - s * r.m[c * 4 + row]) <= tolerance)) return NAN;
    return s;
}

/* The rotation and uniform scale of parent joint pj (the identity and 1
 * for none): the last one asked is kept, as chains of many groups hang
 * from one joint, whose matrix does not change during a step. */
static sinew__spring_parent *parent_frame(const sinew__springs_run *run, int pj)
{
    sinew__spring_parent *c = run->parent;
    if (c->joint != pj) {
        c->joint = pj;
        c->rotation = pj >= 0 ? sinew__model_rotation(&run->model[pj]) : (sinew_quat){0, 0, 0, 1};
        c->scale = pj >= 0 ? uniform_scale(&run->model[pj], c->rotation) : 1.0f;
    }
    return c;
}

/* What the walk down a group's path carries from a joint to its child:
 * the joint's rotation (its parent's sinew__model_rotation times the
 * path's local rotations, scale left out, as spring.c's step_path keeps
 * it), its position, and the one scale of its matrix, which is then
 * `scale` times the rotation's matrix: a uniform scale commutes with the
 * rotations, so that form holds down a path of such scales, and a joint's
 * matrix and position cost a rotation, not a matrix product. */
typedef struct frame {
    q4 rotation;
    v3 at;
    V scale;
} frame;

/* The frame of parent joint pj in frame's order: rotation x y z w,
 * position x y z, scale. */
static void parent_fields(const sinew__springs_run *run, int pj, float out[8])
{
    const sinew__spring_parent *pf = parent_frame(run, pj);
    const float *at = pj >= 0 ? &run->model[pj].m[12] : (const float[3]){0, 0, 0};
    out[0] = pf->rotation.x, out[1] = pf->rotation.y, out[2] = pf->rotation.z, out[3] = pf->rotation.w;
    out[4] = at[0], out[5] = at[1], out[6] = at[2], out[7] = pf->scale;
}

/* Group k's parents' frames into half k of f, a scale NaN where a parent
 * has none. */
static void load_parents(const sinew__springs_run *run, const sinew__spring_chain *ch, int k, frame *f)
{
    __m256 v[8];
    if (ch[0].lanes_share & SINEW__SHARE_PARENT) {
        /* chains of a group mostly hang from one joint: its frame once */
        float one[8];
        parent_fields(run, run->parents[run->path[ch[0].path_start]], one);
        for (int i = 0; i < 8; ++i) v[i] = _mm256_set1_ps(one[i]);
    } else {
        float lane[L][8], field[8][L];
        for (int l = 0; l < L; ++l) parent_fields(run, run->parents[run->path[ch[l].path_start]], lane[l]);
        for (int i = 0; i < 8; ++i) {
            for (int l = 0; l < L; ++l) field[i][l] = lane[l][i];
            v[i] = _mm256_loadu_ps(field[i]);
        }
    }
    *half(&f->rotation.x, k) = v[0], *half(&f->rotation.y, k) = v[1];
    *half(&f->rotation.z, k) = v[2], *half(&f->rotation.w, k) = v[3];
    *half(&f->at.x, k) = v[4], *half(&f->at.y, k) = v[5], *half(&f->at.z, k) = v[6];
    *half(&f->scale, k) = v[7];
}

/* Four vectors (lanes 0 .. 7) stored as four consecutive floats at each
 * rows[l]. */
static inline void store4(__m256 a, __m256 b, __m256 c, __m256 d, float *const rows[L])
{
    __m256 r[4];
    sinew__transpose_halves(a, b, c, d, r);
    for (int k = 0; k < 4; ++k) {
        _mm_storeu_ps(rows[k], _mm256_castps256_ps128(r[k]));
        _mm_storeu_ps(rows[k + 4], _mm256_extractf128_ps(r[k], 1));
    }
}

/* Half k of a matrix written to out[0 .. 7], two 256-bit stores each: the
 * 4 x 4 transposes of two columns give lane l's in the low halves and lane
 * l + 4's in the high ones, one cross-half permute joins a lane's two
 * columns. */
static inline void store_matrices(const m34 *m, int k, float *const out[L])
{
    __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    for (int pair = 0; pair < 2; ++pair) {
        __m256 a[4], b[4];
        int c0 = pair * 2, c1 = c0 + 1;
        sinew__transpose_halves(part(m->m[c0 * 3], k), part(m->m[c0 * 3 + 1], k), part(m->m[c0 * 3 + 2], k), zero, a);
        sinew__transpose_halves(part(m->m[c1 * 3], k), part(m->m[c1 * 3 + 1], k), part(m->m[c1 * 3 + 2], k), c1 == 3 ? one : zero, b);
        for (int l = 0; l < 4; ++l) {
            _mm256_storeu_ps(out[l] + c0 * 4, _mm256_permute2f128_ps(a[l], b[l], 0x20));
            _mm256_storeu_ps(out[l + 4] + c0 * 4, _mm256_permute2f128_ps(a[l], b[l], 0x31));
        }
    }
}

/* Lane l's transform and matrix at position e of a group's path, from its
 * lane_path entries. */
static inline float *local_row(char *local, const int *joint, int e, int l) { return (float *)(local + joint[e * 2 * L + l]); }
static inline float *model_row(char *model, const int *joint, int e, int l) { return (float *)(model + joint[e * 2 * L + L + l]); }

/* spring_avx512.c compiles this file again under another name */
#ifndef SINEW__SPRINGS_KERNEL
#define SINEW__SPRINGS_KERNEL sinew__springs_avx2
#endif

int SINEW__SPRINGS_KERNEL(const sinew__springs_run *run, int first, int second, sinew_quat above[2 * L])
{
    /* in locals: stores of vectors may alias anything, so the run's fields
     * would otherwise be read again after each */
    char *const local = (char *)run->local, *const model = (char *)run->model;
    const sinew__spring_chain *ch[H] = {&run->chains[first], &run->chains[second]};
    int max_colliders = 0;
    frame f;
    const int *joint[H];
    float *pa[H], *t[H], *a[H];
    for (int k = 0; k < H; ++k) {
        if (ch[k][0].lanes_share & SINEW__SHARE_COLLIDERS) {
            if (ch[k][0].collider_count > max_colliders) max_colliders = ch[k][0].collider_count;
        } else {
            for (int l = 0; l < L; ++l)
                if (ch[k][l].collider_count > max_colliders) max_colliders = ch[k][l].collider_count;
        }
        load_parents(run, ch[k], k, &f);
        size_t block = (size_t)(ch[k][0].first_bone >> 3);
        joint[k] = run->lane_path + 2 * ch[k][0].path_start;
        pa[k] = (float *)run->params + block * 8 * SINEW__SPRING_PARAMS;
        t[k] = run->tails + block * 48, a[k] = run->anim + block * 32;
    }
    int bone_count = ch[0][0].bone_count;
    /* the joints of the two groups after these, if they run here too */
    const int *next_joint[H], *const *later = NULL;
    int after = (first > second ? first : second) + L;
    if (after + H * L <= run->group_chains) {
        later = next_joint;
        for (int k = 0; k < H; ++k) {
            const sinew__spring_chain *c = &run->chains[after + k * L];
            next_joint[k] = run->lane_path + 2 * c->path_start;
            if (c->bone_count < PREFETCH) later = NULL;
        }
    }
    const float *cached[CACHED_COLLIDERS][H];
    float gathered[CACHED_COLLIDERS][H][8 * L];
    unsigned spheres = 0;
    for (int i = 0; i < max_colliders && i < CACHED_COLLIDERS; ++i) {
        bool sphere = true;
        for (int k = 0; k < H; ++k) {
            cached[i][k] = collider(run, ch[k], i, gathered[i][k]);
            sphere = sphere && is_sphere(cached[i][k]);
        }
        spheres |= (unsigned)sphere << i;
    }
    V dt = splat(run->dt);
    q4 wp = f.rotation;
    v3 pp = f.at;
    V ps = f.scale;
    /* a parent without one scale (NaN) leaves the whole path to spring.c */
    int e = 0;
    if (_mm256_movemask_ps(_mm256_cmp_ps(ps.a, ps.b, _CMP_UNORD_Q))) return 0;
    for (; e <= bone_count; ++e) {
        /* the lanes' transforms and matrices PREFETCH joints on, past the
         * tail the next call's first ones: each lane is its own stream
         * through memory, more of them than the hardware's prefetchers
         * follow */
        int ahead = e + PREFETCH;
        const int *const *at = joint;
        if (ahead > bone_count) at = later, ahead -= bone_count + 1;
        if (at)
            for (int k = 0; k < H; ++k)
                for (int l = 0; l < L; ++l) {
                    _mm_prefetch((const char *)local_row(local, at[k], ahead, l), _MM_HINT_T0);
                    _mm_prefetch((const char *)model_row(model, at[k], ahead, l), _MM_HINT_T0);
                }
        V tv[10];
        for (int k = 0; k < H; ++k) {
            const float *rows[L];
            for (int l = 0; l < L; ++l) rows[l] = local_row(local, joint[k], e, l);
            __m256 v[10];
            sinew__load_rows(rows, v);
            for (int i = 0; i < 10; ++i) *half(&tv[i], k) = v[i];
        }
        v3 tr = {tv[0], tv[1], tv[2]}, sc = {tv[7], tv[8], tv[9]};
        q4 rot = {tv[3], tv[4], tv[5], tv[6]};
        /* a scale that differs between axes, a negative one (a mirror, as
         * a parent's is) or a NaN in some lane: the path goes on in
         * spring.c from here */
        if (any(vor(vor(neq(sc.x, sc.y), neq(sc.y, sc.z)), lt(sc.x, splat(0.0f))))) break;
        /* spring.c: the joint's position, the translation column of
         * parent * TRS (the parent's scale times its rotation of the
         * translation, plus its position), which is also the model
         * matrix's */
        v3 p = madd3(qrotate(wp, tr), ps, pp);
        if (e < bone_count) {
            size_t b = (size_t)e;
            /* the first substep's animated rotation is local's; it is kept
             * for the others, where there are others */
            if (run->first) {
                if (run->keep)
                    put(a, b * 32, rot.x), put(a, b * 32 + 8, rot.y), put(a, b * 32 + 16, rot.z), put(a, b * 32 + 24, rot.w);
            } else {
                rot = (q4){lanes(a, b * 32), lanes(a, b * 32 + 8), lanes(a, b * 32 + 16), lanes(a, b * 32 + 24)};
            }
            q4 w = qmul(wp, rot);
            size_t tb = b * 48, pb = b * 8 * SINEW__SPRING_PARAMS;
            v3 cur = {lanes(t, tb), lanes(t, tb + 8), lanes(t, tb + 16)};
            v3 prev = {lanes(t, tb + 24), lanes(t, tb + 32), lanes(t, tb + 40)};
            V stiffness = lanes(pa, pb), drag = lanes(pa, pb + 8), hit = lanes(pa, pb + 16), length = lanes(pa, pb + 24);
            v3 gravity = {lanes(pa, pb + 32), lanes(pa, pb + 40), lanes(pa, pb + 48)};
            v3 axis = {lanes(pa, pb + 56), lanes(pa, pb + 64), lanes(pa, pb + 72)};
            v3 dir = qrotate(w, axis);
            v3 next = madd3(sub3(cur, prev), sub(splat(1.0f), drag), cur);
            next = madd3(dir, mul(dt, stiffness), next);
            next = madd3(gravity, dt, next);
            next = at_length(p, next, length, dir);
            for (int i = 0; i < max_colliders; ++i) {
                if (i < CACHED_COLLIDERS) {
                    next = collide(cached[i], spheres >> i & 1, hit, p, next, length, dir);
                    continue;
                }
                float more[H][8 * L];
                const float *cw[H];
                for (int k = 0; k < H; ++k) cw[k] = collider(run, ch[k], i, more[k]);
                next = collide(cw, false, hit, p, next, length, dir);
            }
            put(t, tb + 24, cur.x), put(t, tb + 32, cur.y), put(t, tb + 40, cur.z);
            put(t, tb, next.x), put(t, tb + 8, next.y), put(t, tb + 16, next.z);
            v3 to = qrotate((q4){neg(w.x), neg(w.y), neg(w.z), w.w}, sub3(next, p));
            rot = qnormalize(qmul(rot, from_to(axis, to, length)));
            for (int k = 0; k < H; ++k) {
                float *qrows[L];
                for (int l = 0; l < L; ++l)
                    qrows[l] = (float *)((char *)local_row(local, joint[k], e, l) + offsetof(sinew_transform, rotation));
                store4(part(rot.x, k), part(rot.y, k), part(rot.z, k), part(rot.w, k), qrows);
            }
        }
        wp = qmul(wp, rot), pp = p, ps = mul(ps, sc.x);
        m34 m = from_qs(wp, ps, p);
        for (int k = 0; k < H; ++k) {
            float *out[L];
            for (int l = 0; l < L; ++l) out[l] = model_row(model, joint[k], e, l);
            store_matrices(&m, k, out);
        }
    }
    if (e <= bone_count)
        for (int k = 0; k < H; ++k) {
            float q[4][L];
            _mm256_storeu_ps(q[0], part(wp.x, k)), _mm256_storeu_ps(q[1], part(wp.y, k));
            _mm256_storeu_ps(q[2], part(wp.z, k)), _mm256_storeu_ps(q[3], part(wp.w, k));
            for (int l = 0; l < L; ++l) above[k * L + l] = (sinew_quat){q[0][l], q[1][l], q[2][l], q[3][l]};
        }
    return e;
}
