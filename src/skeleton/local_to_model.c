/* SPDX-License-Identifier: MIT */
/* Local pose to model space, one pass over parents-first joints. */
#include "skeleton/skeleton_internal.h"

static sinew_result check_pose_args(const sinew_skeleton *sk, const void *a, const void *b, int count,
                                    const char *what, sinew_error *err)
{
    if (!sk || !a || !b) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL argument", what);
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: buffer holds %d joints, skeleton has %d", what, count,
                           sk->joint_count);
    return SINEW_OK;
}

#if defined(__SSE2__)
/* The affine case in SSE registers: each joint's TRS matrix (the sums of
 * sinew__mat4_from_trs) times its parent's columns (the sums of
 * sinew__mat4_mul_affine, in the same order), so the result is the scalar
 * one bit for bit. */
static void local_to_model_sse(const int16_t *parents, const sinew_transform *local, const sinew_mat4 *root,
                               sinew_mat4 *model, int count)
{
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)), w1 = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
    __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0; /* the last joint's columns */
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 trs; /* stays in registers: only its entries are read */
        sinew__mat4_from_trs(&trs, x->translation, x->rotation, x->scale);
        const float *m = trs.m;
        /* the parent's columns: a joint that follows its parent takes them
         * from registers, so the chain down a limb does not wait on stores;
         * a root without a root matrix uses the identity */
        int p = parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        __m128 p0 = c0, p1 = c1, p2 = c2, p3 = c3;
        if (!parent) {
            p0 = _mm_set_ps(0.0f, 0.0f, 0.0f, 1.0f), p1 = _mm_set_ps(0.0f, 0.0f, 1.0f, 0.0f);
            p2 = _mm_set_ps(0.0f, 1.0f, 0.0f, 0.0f), p3 = w1;
        } else if (p < 0 || p != j - 1) { /* joint 0 (p == j - 1 == -1) too */
            p0 = _mm_loadu_ps(parent->m), p1 = _mm_loadu_ps(parent->m + 4);
            p2 = _mm_loadu_ps(parent->m + 8), p3 = _mm_loadu_ps(parent->m + 12);
        }
#define SINEW__COLUMN(a, b, c) \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(a)), _mm_mul_ps(p1, _mm_set1_ps(b))), _mm_mul_ps(p2, _mm_set1_ps(c)))
        c0 = _mm_and_ps(SINEW__COLUMN(m[0], m[1], m[2]), xyz);
        c1 = _mm_and_ps(SINEW__COLUMN(m[4], m[5], m[6]), xyz);
        c2 = _mm_and_ps(SINEW__COLUMN(m[8], m[9], m[10]), xyz);
        c3 = _mm_or_ps(_mm_and_ps(_mm_add_ps(SINEW__COLUMN(m[12], m[13], m[14]), p3), xyz), w1);
#undef SINEW__COLUMN
        float *o = model[j].m;
        _mm_storeu_ps(o, c0), _mm_storeu_ps(o + 4, c1), _mm_storeu_ps(o + 8, c2), _mm_storeu_ps(o + 12, c3);
    }
}
#elif defined(__aarch64__)
#include <arm_neon.h>
/* The affine case in NEON registers, as local_to_model_sse does it: the
 * same products and sums in the same order (no fused multiply-adds), so
 * the result is the scalar one bit for bit. */
static void local_to_model_neon(const int16_t *parents, const sinew_transform *local, const sinew_mat4 *root,
                                sinew_mat4 *model, int count)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float32x4_t c0 = vdupq_n_f32(0.0f), c1 = c0, c2 = c0, c3 = c0; /* the last joint's columns */
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 trs;
        sinew__mat4_from_trs(&trs, x->translation, x->rotation, x->scale);
        const float *m = trs.m;
        int p = parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        float32x4_t p0 = c0, p1 = c1, p2 = c2, p3 = c3;
        if (!parent || p < 0 || p != j - 1) {
            const float *q = parent ? parent->m : identity;
            p0 = vld1q_f32(q), p1 = vld1q_f32(q + 4), p2 = vld1q_f32(q + 8), p3 = vld1q_f32(q + 12);
        }
#define SINEW__COLUMN(a, b, c) \
    vaddq_f32(vaddq_f32(vmulq_n_f32(p0, a), vmulq_n_f32(p1, b)), vmulq_n_f32(p2, c))
        c0 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[0], m[1], m[2]), 3);
        c1 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[4], m[5], m[6]), 3);
        c2 = vsetq_lane_f32(0.0f, SINEW__COLUMN(m[8], m[9], m[10]), 3);
        c3 = vsetq_lane_f32(1.0f, vaddq_f32(SINEW__COLUMN(m[12], m[13], m[14]), p3), 3);
#undef SINEW__COLUMN
        float *o = model[j].m;
        vst1q_f32(o, c0), vst1q_f32(o + 4, c1), vst1q_f32(o + 8, c2), vst1q_f32(o + 12, c3);
    }
}
#endif

/* Joint model matrix: parent * m, or m for a root without `root`; the
 * affine product where every matrix has (0, 0, 0, 1) for its last row. */
static inline void joint_model(const sinew_mat4 *parent, const sinew_mat4 *m, bool affine, sinew_mat4 *out)
{
    if (!parent)
        *out = *m;
    else if (affine)
        sinew__mat4_mul_affine(out, parent, m);
    else
        sinew__mat4_mul(out, parent, m);
}

void sinew__local_to_model_in_order(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                    sinew_mat4 *model, int count)
{
    /* Every TRS matrix is affine; so is the whole pose unless the root
     * matrix is projective, which the general product then carries down. */
    bool affine = sinew__affine_root(root);
#if defined(__SSE2__)
    if (affine) {
        local_to_model_sse(sk->parents, local, root, model, count);
        return;
    }
#elif defined(__aarch64__)
    if (affine) {
        local_to_model_neon(sk->parents, local, root, model, count);
        return;
    }
#endif
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 m;
        sinew__mat4_from_trs(&m, x->translation, x->rotation, x->scale);
        int p = sk->parents[j];
        joint_model(p >= 0 ? &model[p] : root, &m, affine, &model[j]);
    }
}

sinew_result sinew_local_to_model(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                  sinew_mat4 *model, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, local, model, count, "sinew_local_to_model", err);
    if (r != SINEW_OK) return r;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    if (s->local_to_model && sinew__affine_root(root))
        s->local_to_model(s->schedule, s->schedule_length, sk->parents, local, root, model);
    else
        sinew__local_to_model_in_order(sk, local, root, model, count);
    sinew__ok(err);
    return SINEW_OK;
}

int sinew_skeleton_pose_order(const sinew_skeleton *sk, const int16_t **joints)
{
    if (!sk) return 0;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    if (joints) *joints = s->schedule;
    return s->schedule_length;
}

/* Float c of lane i of a SoA pose ("SoA poses" in sinew.h). */
static inline size_t pose_at(int i, int c) { return (size_t)(i / 8) * SINEW_POSE_BLOCK_FLOATS + (size_t)(8 * c + i % 8); }

sinew_result sinew_pose_order_from_transforms(const sinew_skeleton *sk, const sinew_transform *transforms, int count,
                                              float *pose, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, transforms, pose, count, "sinew_pose_order_from_transforms", err);
    if (r != SINEW_OK) return r;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    for (int i = 0; i < s->schedule_length; ++i) {
        const sinew_transform *x = &transforms[s->schedule[i]];
        const float f[10] = {x->translation.x, x->translation.y, x->translation.z, x->rotation.x, x->rotation.y,
                             x->rotation.z,    x->rotation.w,    x->scale.x,       x->scale.y,    x->scale.z};
        for (int c = 0; c < 10; ++c) pose[pose_at(i, c)] = f[c];
    }
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_pose_order_to_transforms(const sinew_skeleton *sk, const float *pose, sinew_transform *out,
                                            int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, pose, out, count, "sinew_pose_order_to_transforms", err);
    if (r != SINEW_OK) return r;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    for (int i = 0; i < s->schedule_length; ++i) {
        float f[10];
        for (int c = 0; c < 10; ++c) f[c] = pose[pose_at(i, c)];
        out[s->schedule[i]] = (sinew_transform){{f[0], f[1], f[2]}, {f[3], f[4], f[5], f[6]}, {f[7], f[8], f[9]}};
    }
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_local_to_model_pose(const sinew_skeleton *sk, const float *pose, const sinew_mat4 *root,
                                       sinew_mat4 *model, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, pose, model, count, "sinew_local_to_model_pose", err);
    if (r != SINEW_OK) return r;
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    bool affine = sinew__affine_root(root);
    if (s->local_to_model_pose && affine) {
        s->local_to_model_pose(s->schedule, s->schedule_length, sk->parents, pose, root, model);
    } else {
        /* lane after lane, each joint after its parent (a repeated joint
         * computed again, the same), by the reference's formulas: the bits
         * of sinew__local_to_model_in_order */
        for (int i = 0; i < s->schedule_length; ++i) {
            float f[10];
            for (int c = 0; c < 10; ++c) f[c] = pose[pose_at(i, c)];
            sinew_mat4 m;
            sinew__mat4_from_trs(&m, sinew__v3(f[0], f[1], f[2]), (sinew_quat){f[3], f[4], f[5], f[6]},
                                 sinew__v3(f[7], f[8], f[9]));
            int j = s->schedule[i], p = sk->parents[j];
            joint_model(p >= 0 ? &model[p] : root, &m, affine, &model[j]);
        }
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* The subtree of sinew_local_to_model_from, computed a batch of joints at
 * a time by the skeleton's kernel, or joint after joint by the reference's
 * formulas where it has none: either way each matrix comes from the same
 * sums as sinew_local_to_model's. */
enum { FROM_BATCH = 64 }; /* joints, and kernel schedule entries */
enum { FROM_FEW = 16 };   /* batches of at most this many joints go one joint at a time */

#if defined(SINEW_X86_SIMD)
#include <immintrin.h>
/* Joints one after another as the AVX2 kernel computes each in its lane
 * (pose_block_avx.h): the TRS entries by sinew__mat4_from_trs's sums, then
 * the parent's columns times them by fused multiply-adds in the kernel's
 * order, so its result bit for bit; a joint that follows its parent takes
 * the parent's columns from registers. For a few joints: a leg below the
 * hip is five in a row, each waiting on the last, which would fill two of
 * the kernel's blocks with pairs of one joint. Called only where the
 * skeleton runs that kernel, so the CPU has FMA. */
__attribute__((target("fma"))) static void joints_fma(const int16_t *parents, const int16_t *joints, int count,
                                                      const sinew_transform *local, const sinew_mat4 *root,
                                                      sinew_mat4 *model)
{
    static const sinew_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const sinew_mat4 *top = root ? root : &identity;
    const __m128 zero = _mm_setzero_ps();
    __m128 c0 = zero, c1 = zero, c2 = zero, c3 = zero; /* the last joint's columns */
    int last = -1;
    for (int i = 0; i < count; ++i) {
        int j = joints[i], p = parents[j];
        const sinew_transform *x = &local[j];
        sinew_mat4 trs;
        sinew__mat4_from_trs(&trs, x->translation, x->rotation, x->scale);
        const float *m = trs.m;
        __m128 p0 = c0, p1 = c1, p2 = c2, p3 = c3;
        if (p < 0 || p != last) {
            const float *q = (p >= 0 ? &model[p] : top)->m;
            p0 = _mm_loadu_ps(q), p1 = _mm_loadu_ps(q + 4), p2 = _mm_loadu_ps(q + 8), p3 = _mm_loadu_ps(q + 12);
        }
#define SINEW__COLUMN(a, b, c, start) \
    _mm_fmadd_ps(p2, _mm_set1_ps(c), _mm_fmadd_ps(p1, _mm_set1_ps(b), _mm_fmadd_ps(p0, _mm_set1_ps(a), start)))
        c0 = SINEW__COLUMN(m[0], m[1], m[2], zero);
        c1 = SINEW__COLUMN(m[4], m[5], m[6], zero);
        c2 = SINEW__COLUMN(m[8], m[9], m[10], zero);
        c3 = SINEW__COLUMN(m[12], m[13], m[14], p3);
#undef SINEW__COLUMN
        float *o = model[j].m;
        _mm_storeu_ps(o, c0), _mm_storeu_ps(o + 4, c1), _mm_storeu_ps(o + 8, c2), _mm_storeu_ps(o + 12, c3);
        last = j;
    }
}
#endif

typedef struct from_batch {
    const sinew__skeleton *s;
    const sinew_transform *local;
    const sinew_mat4 *root;
    sinew_mat4 *model;
    bool kernel;      /* the skeleton's kernel (an affine root) */
    bool affine;
    int count;
    int16_t joints[FROM_BATCH]; /* parents first */
} from_batch;

static void run_batch(from_batch *b)
{
    const int16_t *parents = b->s->base.parents;
    if (!b->kernel) {
        for (int i = 0; i < b->count; ++i) {
            int j = b->joints[i], p = parents[j];
            const sinew_transform *x = &b->local[j];
            sinew_mat4 m;
            sinew__mat4_from_trs(&m, x->translation, x->rotation, x->scale);
            const sinew_mat4 *parent = p >= 0 ? &b->model[p] : b->root;
            if (!parent)
                b->model[j] = m;
            else if (b->affine)
                sinew__mat4_mul_affine(&b->model[j], parent, &m);
            else
                sinew__mat4_mul(&b->model[j], parent, &m);
        }
        b->count = 0;
        return;
    }
#if defined(SINEW_X86_SIMD)
    if (b->count <= FROM_FEW) {
        joints_fma(parents, b->joints, b->count, b->local, b->root, b->model);
        b->count = 0;
        return;
    }
#endif
    /* The kernel's schedule (sinew__make_schedule): blocks of four pairs,
     * a0 a1 a2 a3 c0 c1 c2 c3, each pair computed side by side after the
     * pairs before it. Two joints in a row pair up unless the second is the
     * first's child; a joint left alone pairs with itself (computed twice,
     * the same), and so does the last pair to fill the last block. */
    int16_t schedule[FROM_BATCH * 2];
    int pairs = 0;
    for (int i = 0; i < b->count; ++pairs) {
        int a = b->joints[i], c = a;
        if (i + 1 < b->count && parents[b->joints[i + 1]] != a) c = b->joints[i + 1], ++i;
        ++i;
        schedule[8 * (pairs / 4) + pairs % 4] = (int16_t)a, schedule[8 * (pairs / 4) + 4 + pairs % 4] = (int16_t)c;
    }
    for (int last = pairs - 1; pairs % 4; ++pairs)
        schedule[8 * (pairs / 4) + pairs % 4] = schedule[8 * (last / 4) + last % 4],
        schedule[8 * (pairs / 4) + 4 + pairs % 4] = schedule[8 * (last / 4) + 4 + last % 4];
    b->s->local_to_model(schedule, 2 * pairs, parents, b->local, b->root, b->model);
    b->count = 0;
}

sinew_result sinew_local_to_model_from(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                       sinew_mat4 *model, int count, int from_joint, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, local, model, count, "sinew_local_to_model_from", err);
    if (r != SINEW_OK) return r;
    if (from_joint < 0 || from_joint >= count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX, "sinew_local_to_model_from: joint %d is not in the "
                           "skeleton's %d", from_joint, count);
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    bool affine = sinew__affine_root(root);
    from_batch b = {.s = s, .local = local, .root = root, .model = model, .kernel = s->local_to_model && affine,
                    .affine = affine};
    /* The subtree: joints after from_joint (parents first) whose parent is
     * in it, marked in a bit per joint from from_joint on. The skeleton
     * keeps its input order, which need not be depth-first, so a subtree
     * may be split by other joints and the scan runs to the last joint. */
    uint64_t in[(SINEW_MAX_JOINTS + 63) / 64];
    const int16_t *parents = sk->parents;
    int span = count - from_joint;
    memset(in, 0, sizeof(uint64_t) * (size_t)((span + 63) / 64));
    in[0] = 1;
    b.joints[b.count++] = (int16_t)from_joint;
    for (int k = 1; k < span; ++k) {
        int p = parents[from_joint + k] - from_joint;
        if (p < 0 || !(in[p >> 6] >> (p & 63) & 1)) continue;
        in[k >> 6] |= (uint64_t)1 << (k & 63);
        if (b.count == FROM_BATCH) run_batch(&b);
        b.joints[b.count++] = (int16_t)(from_joint + k);
    }
    run_batch(&b);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_rest_pose(const sinew_skeleton *sk, sinew_transform *out, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, sk ? sk->rest_pose : NULL, out, count, "sinew_rest_pose", err);
    if (r != SINEW_OK) return r;
    memcpy(out, sk->rest_pose, sizeof(sinew_transform) * (size_t)count);
    sinew__ok(err);
    return SINEW_OK;
}
