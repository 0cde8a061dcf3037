/* SPDX-License-Identifier: MIT */
/* Inverse kinematics: two-bone (analytic), FABRIK chains and aim. Each
 * solves in model space and hands back local-space corrections. */
#include "layer/blend_internal.h"

/* ---- helpers -------------------------------------------------------------- */

static sinew_vec3 position_of(const sinew_mat4 *m) { return sinew__v3(m->m[12], m->m[13], m->m[14]); }

static sinew_quat conjugate(sinew_quat q) { return sinew__q(-q.x, -q.y, -q.z, q.w); }

/* Some unit vector perpendicular to v (v not zero). */
static sinew_vec3 any_perpendicular(sinew_vec3 v)
{
    sinew_vec3 other = fabsf(v.x) < 0.6f ? sinew__v3(1, 0, 0) : sinew__v3(0, 1, 0);
    return sinew__v3_normalize(sinew__v3_cross(v, other));
}

/* a x b, taken with b's part across a (a.b and a.a given): the same in
 * exact arithmetic, and across a to within the rounding where a and b
 * nearly line up, where a direct cross product is off their normal by the
 * rounding over the sine of their angle. */
static inline sinew_vec3 cross_across(sinew_vec3 a, sinew_vec3 b, float a_dot_b, float a_dot_a)
{
    return sinew__v3_cross(a, sinew__v3_sub(b, sinew__v3_scale(a, a_dot_b / a_dot_a)));
}

/* from_to_unnormalized for directions more than a quarter turn apart (d =
 * a.b < 0, c = a x b), where ab + d cancels: it is |c|^2 / (ab - d) there,
 * which neither cancels nor leans on `ab` being the lengths' product to
 * the last bit; where they are nearly opposite, the cross product is taken
 * across a (cross_across). Only directions opposite to within 1e-12
 * radians take half a turn about some perpendicular (unit), as does a
 * cross product that is not a number (a.a underflowed). Out of line, so
 * that the common case stays small where it is inlined. */
static SINEW__NOINLINE sinew_quat from_to_far(sinew_vec3 a, sinew_vec3 b, float ab, float d, sinew_vec3 c)
{
    float c2 = sinew__v3_dot(c, c);
    if (c2 < 0.0025f * ab * ab) {
        c = cross_across(a, b, d, sinew__v3_dot(a, a));
        c2 = sinew__v3_dot(c, c);
        if (!(c2 > 1e-24f * ab * ab)) {
            sinew_vec3 p = any_perpendicular(a);
            return sinew__q(p.x, p.y, p.z, 0.0f);
        }
    }
    return sinew__q(c.x, c.y, c.z, c2 / (ab - d));
}

/* The shortest-arc rotation turning direction a onto direction b, given
 * the product of their lengths `ab` (> 0), not normalized: the half-way
 * quaternion (|a||b| + a.b, a x b), of length sqrt(2 ab (ab + a.b)), so
 * that neither direction need be normalized; from_to_far past a quarter
 * turn. Inlined into both forms of the two-bone solve: a call there would
 * sit on the solve's chain of dependent operations. */
static SINEW__ALWAYS_INLINE sinew_quat from_to_unnormalized(sinew_vec3 a, sinew_vec3 b, float ab)
{
    float d = sinew__v3_dot(a, b);
    sinew_vec3 c = sinew__v3_cross(a, b);
    if (d >= 0.0f) return sinew__q(c.x, c.y, c.z, ab + d);
    return from_to_far(a, b, ab, d, c);
}

/* from_to_unnormalized, normalized. */
static sinew_quat from_to_lengths(sinew_vec3 a, sinew_vec3 b, float ab)
{
    return sinew__q_normalize(from_to_unnormalized(a, b, ab));
}

/* from_to_lengths for directions of any length (the identity when either
 * is zero). */
static sinew_quat from_to(sinew_vec3 a, sinew_vec3 b)
{
    float aa = sinew__v3_dot(a, a), bb = sinew__v3_dot(b, b);
    if (aa == 0.0f || bb == 0.0f) return sinew__q(0, 0, 0, 1);
    return from_to_lengths(a, b, sqrtf(aa * bb));
}

/* The rotation about unit `axis` that turns a onto b, both projected across
 * it, as a quaternion: with cos and sin of the angle in proportion to
 * (x, y) = (a.b, axis.(a x b)), the half angle's cos and sin are in
 * proportion to (r + x, y) (r = |(x, y)|), or to (|y|, +-(r - x)) where x
 * is negative, so that neither sum cancels; no trigonometry. */
static sinew_quat twist_about(sinew_vec3 axis, sinew_vec3 a, sinew_vec3 b)
{
    a = sinew__v3_sub(a, sinew__v3_scale(axis, sinew__v3_dot(axis, a)));
    b = sinew__v3_sub(b, sinew__v3_scale(axis, sinew__v3_dot(axis, b)));
    float x = sinew__v3_dot(a, b), y = sinew__v3_dot(axis, sinew__v3_cross(a, b));
    float r = sqrtf(x * x + y * y);
    float hc = r + x, hs = y;
    if (x < 0.0f) hc = fabsf(y), hs = copysignf(r - x, y);
    float len2 = hc * hc + hs * hs;
    if (!(len2 > 0.0f)) return sinew__q(0, 0, 0, 1);
    float inv = 1.0f / sqrtf(len2);
    hs *= inv;
    return sinew__q(axis.x * hs, axis.y * hs, axis.z * hs, hc * inv);
}

/* q to unit length. The product of unit quaternions is within a few
 * roundings of it, where one Newton step for 1 / sqrt(|q|^2),
 * 1.5 - 0.5 |q|^2, is as close as the square root and the division, and
 * does not wait on them; anything else is normalized in full. */
static inline sinew_quat renormalize(sinew_quat q)
{
    float len2 = sinew__q_dot(q, q), e = len2 - 1.0f;
    if (!(fabsf(e) < 1e-4f)) return sinew__q_normalize(q);
    float k = 1.0f - 0.5f * e;
    return sinew__q(q.x * k, q.y * k, q.z * k, q.w * k);
}

/* nlerp from the identity to q by w, on the identity's side. */
static sinew_quat weighted(sinew_quat q, float w)
{
    if (q.w < 0.0f) q = sinew__q(-q.x, -q.y, -q.z, -q.w);
    if (w >= 1.0f) return q;
    return sinew__q_normalize(sinew__q(w * q.x, w * q.y, w * q.z, 1.0f - w + w * q.w));
}

/* The rotation of a model matrix as the reciprocals of its columns' lengths
 * (0 for a column of none) and whether the frame is mirrored (negative
 * determinant): what turns a model-space axis into the joint's own frame,
 * as sinew__model_rotation reads the matrix (unit columns, a mirrored
 * frame's z flipped). Computed apart from the solve, so that it overlaps. */
typedef struct frame_scale {
    float inv[3];
    bool mirrored;
} frame_scale;

static inline frame_scale frame_scale_of(const sinew_mat4 *model)
{
    const float *m = model->m;
    sinew_vec3 x = sinew__v3(m[0], m[1], m[2]), y = sinew__v3(m[4], m[5], m[6]), z = sinew__v3(m[8], m[9], m[10]);
    float l[3] = {sinew__v3_dot(x, x), sinew__v3_dot(y, y), sinew__v3_dot(z, z)};
    frame_scale f;
#if defined(__SSE2__)
    /* the three square roots and divisions side by side */
    __m128 len2 = _mm_set_ps(1.0f, l[2], l[1], l[0]);
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    inv = _mm_and_ps(inv, _mm_cmpgt_ps(len2, _mm_setzero_ps()));
    float out[4];
    _mm_storeu_ps(out, inv);
    for (int k = 0; k < 3; ++k) f.inv[k] = out[k];
#else
    for (int k = 0; k < 3; ++k) f.inv[k] = l[k] > 0.0f ? 1.0f / sqrtf(l[k]) : 0.0f;
#endif
    f.mirrored = sinew__v3_dot(sinew__v3_cross(x, y), z) < 0.0f;
    return f;
}

/* The local pose a job corrects: a transform array, or a SoA pose in the
 * skeleton's pose order (sinew.h, "SoA poses"), where every lane holding a
 * joint is written (they lie in one block of eight). */
typedef struct locals {
    sinew_transform *local; /* or NULL, and: */
    float *pose;
    const sinew__skeleton *order; /* the pose's skeleton */
} locals;

static locals locals_of(const sinew_skeleton *sk, sinew_transform *local, float *pose)
{
    return (locals){local, pose, sinew__skeleton_of(sk)};
}

/* Joint j's local rotation (in a SoA pose, from the lane
 * sinew_pose_order_to_transforms reads), for a correction that put_back()
 * writes back. */
static inline sinew_quat rotation_of(const locals *l, int j)
{
    if (l->local) return l->local[j].rotation;
    int i = l->order->last_lane[j];
    const float *p = l->pose;
    return sinew__q(p[sinew__pose_at(i, 3)], p[sinew__pose_at(i, 4)], p[sinew__pose_at(i, 5)], p[sinew__pose_at(i, 6)]);
}

/* Every lane of joint j's block that holds it: the schedule comes in
 * whole blocks of eight. */
static void write_lanes(const locals *l, int j, sinew_quat q)
{
    int first = l->order->last_lane[j] & ~7;
    for (int i = first; i < first + 8; ++i) {
        if (l->order->schedule[i] != j) continue;
        float *p = l->pose;
        p[sinew__pose_at(i, 3)] = q.x, p[sinew__pose_at(i, 4)] = q.y, p[sinew__pose_at(i, 5)] = q.z,
        p[sinew__pose_at(i, 6)] = q.w;
    }
}

static inline void put_back(const locals *l, int j, sinew_quat q)
{
    if (l->local) l->local[j].rotation = q;
    else write_lanes(l, j, q);
}

/* Turns the model-space rotation `g` (unit; applied to joint j and
 * everything it carries) into j's local correction, weights it and applies
 * it. The correction is r^-1 g r for j's model rotation r: the same angle
 * about g's axis seen in j's frame, r^T g.xyz, whose entries are g's axis
 * along j's unit columns, so no quaternion of r is made. It is unit where
 * the columns are orthogonal (non-uniform scale above j skews them; the
 * normalization of the product absorbs that). */
static inline sinew_quat correct_in(sinew_quat *rotation, int j, const sinew_mat4 *model, frame_scale f,
                                    sinew_quat g, float weight)
{
    const float *m = model[j].m;
    float vx = (m[0] * g.x + m[1] * g.y + m[2] * g.z) * f.inv[0];
    float vy = (m[4] * g.x + m[5] * g.y + m[6] * g.z) * f.inv[1];
    float vz = (m[8] * g.x + m[9] * g.y + m[10] * g.z) * f.inv[2];
    sinew_quat c = weighted(sinew__q(vx, vy, f.mirrored ? -vz : vz, g.w), weight);
    if (weight > 0.0f) *rotation = renormalize(sinew__q_mul(*rotation, c));
    return c;
}

/* correct_in at weight 1 for a g of any length L well inside the floats'
 * range: the correction comes out L times too long, and the product with
 * the local rotation is normalized in full, which takes L out. Where g is
 * normalized first, a square root and a division sit between the solve
 * and the product, on the chain of dependent operations that sets the
 * call's time; here they sit beside it, for the correction returned. */
static inline sinew_quat correct_whole(sinew_quat *rotation, int j, const sinew_mat4 *model, frame_scale f,
                                       sinew_quat g)
{
    const float *m = model[j].m;
    float vx = (m[0] * g.x + m[1] * g.y + m[2] * g.z) * f.inv[0];
    float vy = (m[4] * g.x + m[5] * g.y + m[6] * g.z) * f.inv[1];
    float vz = (m[8] * g.x + m[9] * g.y + m[10] * g.z) * f.inv[2];
    sinew_quat c = sinew__q(vx, vy, f.mirrored ? -vz : vz, g.w);
    if (c.w < 0.0f) c = sinew__q(-c.x, -c.y, -c.z, -c.w); /* on the identity's side, as weighted() puts it */
    *rotation = sinew__q_normalize(sinew__q_mul(*rotation, c));
    return sinew__q_normalize(c);
}

static sinew_quat correct(const locals *local, int j, const sinew_mat4 *model, sinew_quat g, float weight)
{
    sinew_quat rotation = rotation_of(local, j);
    sinew_quat c = correct_in(&rotation, j, model, frame_scale_of(&model[j]), g, weight);
    put_back(local, j, rotation);
    return c;
}

static bool finite3(sinew_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Whether the solve's inputs in the model matrices are all finite: the
 * start and mid joints' matrices and the end joint's translation. x * 0 is
 * +-0 for finite x and NaN otherwise, and sums keep a NaN: one test for the
 * 35 floats, and the joint only looked for once one is not. */
static bool chain_finite(const sinew_mat4 *start, const sinew_mat4 *mid, const sinew_mat4 *end)
{
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    __m128 acc = _mm_mul_ps(_mm_loadu_ps(end->m + 12), zero);
    acc = _mm_and_ps(acc, _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1))); /* its w: not read */
    for (int k = 0; k < 16; k += 4) {
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(start->m + k), zero));
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(mid->m + k), zero));
    }
    return _mm_movemask_ps(_mm_cmpunord_ps(acc, acc)) == 0;
#else
    return sinew__finite_n(start->m, 16) && sinew__finite_n(mid->m, 16) && sinew__finite_n(end->m + 12, 3);
#endif
}

static bool is_ancestor(const sinew_skeleton *sk, int ancestor, int j)
{
    for (j = sk->parents[j]; j >= 0; j = sk->parents[j])
        if (j == ancestor) return true;
    return false;
}

/* What every IK job checks: pointers, sizes, the weight. */
static sinew_result check_common(const char *what, const sinew_skeleton *sk, const sinew_mat4 *model,
                                 const sinew_transform *local, const float *pose, int count, float weight,
                                 sinew_error *err)
{
    if (!sk || !model || !local == !pose)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: a skeleton, model matrices and one local pose (transforms or SoA)", what);
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: %d %s for %d joints", what, count,
                           local ? "transforms" : "joints' model matrices", sk->joint_count);
    if (!(weight >= 0.0f && weight <= 1.0f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: weight %g is not in [0, 1]", what, (double)weight);
    return SINEW_OK;
}

static sinew_result check_index(const char *what, const sinew_skeleton *sk, int j, sinew_error *err)
{
    if (j < 0 || j >= sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX, "%s: joint %d is not in the skeleton's %d", what, j,
                           sk->joint_count);
    return SINEW_OK;
}

static sinew_result not_finite(const char *what, const sinew_skeleton *sk, int j, sinew_error *err)
{
    return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: joint %d (\"%s\")'s model matrix is not finite", what, j,
                       sk->names[j]);
}

static sinew_result check_joint(const char *what, const sinew_skeleton *sk, const sinew_mat4 *model, int j,
                                sinew_error *err)
{
    sinew_result r = check_index(what, sk, j, err);
    if (r != SINEW_OK) return r;
    return sinew__finite_n(model[j].m, 16) ? SINEW_OK : not_finite(what, sk, j, err);
}

/* ---- two-bone --------------------------------------------------------------- */

/* The two-bone job's checks, for `local` or `pose`. */
static SINEW__ALWAYS_INLINE sinew_result two_bone_checks(const sinew_ik_two_bone_job *job,
                                                         const sinew_transform *local, const float *pose,
                                                         const char *what, sinew_error *err)
{
    sinew_result r = check_common(what, job->skeleton, job->model, local, pose, job->count, job->weight, err);
    if (r != SINEW_OK) return r;
    const sinew_skeleton *sk = job->skeleton;
    const int js = job->start_joint, jm = job->mid_joint, je = job->end_joint;
    if ((r = check_index(what, sk, js, err)) != SINEW_OK || (r = check_index(what, sk, jm, err)) != SINEW_OK ||
        (r = check_index(what, sk, je, err)) != SINEW_OK)
        return r;
    if ((sk->parents[jm] != js && !is_ancestor(sk, js, jm)) || (sk->parents[je] != jm && !is_ancestor(sk, jm, je)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: joints %d (\"%s\"), %d (\"%s\"), %d (\"%s\") are not one chain, each above the next",
                           what, js, sk->names[js], jm, sk->names[jm], je, sk->names[je]);
    /* what the solve reads: the three positions and the start and mid
     * joints' rotation columns (the rest of their matrices, the w row, is
     * checked with them, as cheap) */
    const sinew_mat4 *ms = &job->model[js], *mm = &job->model[jm], *me = &job->model[je];
    if (!chain_finite(ms, mm, me))
        return not_finite(what, sk, !sinew__finite_n(ms->m, 16) ? js : !sinew__finite_n(mm->m, 16) ? jm : je, err);
    if (!finite3(job->target) || !finite3(job->pole))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: target or pole is not finite", what);
    if (!(job->softness >= 0.0f && job->softness <= 1.0f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: softness %g is not in [0, 1]", what,
                           (double)job->softness);
    return SINEW_OK;
}

/* The two-bone solve of a checked job, correcting job->local. The pose
 * form runs it on copies of the chain's three joints. Inlined into both
 * callers: as a function of its own, the transform array's call is
 * slower. */
static SINEW__ALWAYS_INLINE void two_bone_solve(sinew_ik_two_bone_job *job)
{
    const int js = job->start_joint, jm = job->mid_joint, je = job->end_joint;
    const sinew_mat4 *ms = &job->model[js], *mm = &job->model[jm], *me = &job->model[je];
    frame_scale fs = frame_scale_of(ms), fm = frame_scale_of(mm);
    sinew_vec3 a = position_of(ms), b = position_of(mm), c = position_of(me);
    sinew_vec3 t = job->target, pole = job->pole;
    sinew_vec3 ab = sinew__v3_sub(b, a), bc = sinew__v3_sub(c, b), at = sinew__v3_sub(t, a);
    float ab2 = sinew__v3_dot(ab, ab), lab = sqrtf(ab2), lbc = sqrtf(sinew__v3_dot(bc, bc));
    float reach = lab + lbc, fold = fabsf(lab - lbc);
    float dist = sqrtf(sinew__v3_dot(at, at));

    /* the distance the end will be at: softened, then within what the bones span */
    float want = dist;
    if (job->softness > 0.0f) {
        float soft = job->softness * reach, start = reach - soft;
        if (want > start) want = start + soft * (1.0f - expf(-(want - start) / soft));
    }
    want = want > reach ? reach : (want < fold ? fold : want);

    /* 1. the mid joint turns about the bend plane's normal by the inner
     * angle now (alpha, between b->a and b->c) less the one wanted (beta),
     * as half angles: alpha's from the bones' dot and cross products (each
     * exact where the other cancels), beta's from the law of cosines
     * factored, 1 + cos beta = (reach - want)(reach + want) / (2 lab lbc)
     * and 1 - cos beta = (want - fold)(want + fold) / (2 lab lbc), exact
     * near straight and near folded alike */
    float p = lab * lbc, d = -sinew__v3_dot(ab, bc);
    sinew_vec3 n = sinew__v3_cross(ab, bc); /* bc x ba */
    float s = sqrtf(sinew__v3_dot(n, n));
    if (s < 0.05f * p) {
        /* the bones nearly in line: taken again across ab, which keeps it
         * across both (d is -ab.bc) */
        n = cross_across(ab, bc, -d, ab2);
        s = sqrtf(sinew__v3_dot(n, n));
    }
    float ca = d >= 0.0f ? p + d : s, sa = d >= 0.0f ? s : p - d; /* alpha/2, in proportion */
    /* their squares' sum, with s^2 + d^2 = p^2: known before s */
    float la = 2.0f * p * (p + fabsf(d));
    /* beta/2, squared, times 4 lab lbc (their sum): the scale comes from
     * the bones alone, so that only the square roots wait on the target */
    float u = (reach - want) * (reach + want), v = (want - fold) * (want + fold);
    float cb = 1.0f, sb = 0.0f;
    if (la > 0.0f) { /* then p > 0 */
        float ia = 1.0f / sqrtf(la), ib = 0.5f / sqrtf(p);
        ca *= ia, sa *= ia;
        cb = sqrtf(u) * ib, sb = sqrtf(v) * ib;
    } else {
        ca = 1.0f, sa = 0.0f; /* a bone of no length: nothing to bend */
    }
    sinew_vec3 hinge;
    if (s > 0.0f && !(d < 0.0f && s < 2.6536e-6f * -d)) {
        hinge = sinew__v3_scale(n, 1.0f / s);
    } else {
        /* straight (or folded) chain: bend toward the pole, else anywhere */
        sinew_vec3 ac = sinew__v3_sub(c, a);
        hinge = sinew__v3_normalize(sinew__v3_cross(pole, ac));
        if (sinew__v3_dot(hinge, hinge) < 0.5f) hinge = any_perpendicular(sinew__v3_dot(ac, ac) > 0.0f ? ac : ab);
    }
    float half_cos = ca * cb + sa * sb, half_sin = sa * cb - ca * sb;
    sinew_quat g_mid = sinew__q(hinge.x * half_sin, hinge.y * half_sin, hinge.z * half_sin, half_cos);
    /* start to end, after: bc turned by g_mid's angle phi about the hinge
     * (Rodrigues), bc' = par + perp cos phi + (hinge x bc) sin phi, for par
     * and perp its parts along and across the hinge. They wait only on the
     * bones, so the target's chain runs through phi's sine and cosine, one
     * product and two sums, where rotating bc by g_mid runs through two
     * cross products */
    sinew_vec3 par = sinew__v3_scale(hinge, sinew__v3_dot(hinge, bc)), across = sinew__v3_cross(hinge, bc);
    sinew_vec3 perp = sinew__v3_sub(bc, par), base = sinew__v3_add(ab, par);
    float cos_phi = half_cos * half_cos - half_sin * half_sin, sin_phi = 2.0f * half_cos * half_sin;
    sinew_vec3 ac1 =
        sinew__v3_add(base, sinew__v3_add(sinew__v3_scale(perp, cos_phi), sinew__v3_scale(across, sin_phi)));

    /* 2. the start joint turns the end onto the target's direction; the
     * end is `want` from the start now */
    sinew_quat g_start =
        want > 0.0f && dist > 0.0f ? from_to_unnormalized(ac1, at, want * dist) : sinew__q(0, 0, 0, 1);

    /* 3. and twists about that direction to bring the mid joint toward the pole */
    sinew_vec3 axis = sinew__v3(0, 0, 0);
    if (sinew__v3_dot(pole, pole) > 0.0f)
        axis = dist > 0.0f ? sinew__v3_scale(at, 1.0f / dist) : sinew__v3_normalize(ac1);
    if (sinew__v3_dot(axis, axis) > 0.0f) {
        g_start = sinew__q_normalize(g_start);
        sinew_vec3 mid_dir = sinew__q_rotate(g_start, ab);
        sinew_vec3 off = sinew__v3_sub(mid_dir, sinew__v3_scale(axis, sinew__v3_dot(axis, mid_dir)));
        sinew_vec3 pole_off = sinew__v3_sub(pole, sinew__v3_scale(axis, sinew__v3_dot(axis, pole)));
        if (sinew__v3_dot(off, off) > 1e-12f * lab * lab && sinew__v3_dot(pole_off, pole_off) > 0.0f)
            g_start = sinew__q_normalize(sinew__q_mul(twist_about(axis, off, pole_off), g_start));
    }

    float w = job->weight;
    job->mid_correction = correct_in(&job->local[jm].rotation, jm, job->model, fm, g_mid, w);
    float g2 = sinew__q_dot(g_start, g_start); /* g_start not normalized: see correct_whole */
    if (w >= 1.0f && g2 > 1e-30f && g2 < 1e30f)
        job->start_correction = correct_whole(&job->local[js].rotation, js, job->model, fs, g_start);
    else
        job->start_correction =
            correct_in(&job->local[js].rotation, js, job->model, fs, sinew__q_normalize(g_start), w);
    /* the end lands `want` from the start on the ray to the target (the
     * twist turns about that ray) */
    job->reached = fabsf(want - dist) <= 1e-4f * (reach > 0.0f ? reach : 1.0f);
}

/* ---- FABRIK ------------------------------------------------------------------ */

/* sinew_ik_chain and sinew_ik_chain_pose: the job correcting `local_in` or `pose`. */
static sinew_result chain(sinew_ik_chain_job *job, sinew_transform *local_in, float *pose, const char *what,
                          sinew_error *err)
{
    sinew_result r = check_common(what, job->skeleton, job->model, local_in, pose, job->count, job->weight, err);
    if (r != SINEW_OK) return r;
    const sinew_skeleton *sk = job->skeleton;
    const int n = job->joint_count;
    if (!job->joints || n < 2 || n > SINEW_IK_MAX_CHAIN)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %d joints (2 to %d)", what, n, SINEW_IK_MAX_CHAIN);
    for (int i = 0; i < n; ++i) {
        if ((r = check_joint(what, sk, job->model, job->joints[i], err)) != SINEW_OK) return r;
        if (i > 0 && !is_ancestor(sk, job->joints[i - 1], job->joints[i]))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: joint %d (\"%s\") is not above joint %d (\"%s\")",
                               what, job->joints[i - 1], sk->names[job->joints[i - 1]], job->joints[i],
                               sk->names[job->joints[i]]);
    }
    if (!finite3(job->target) || !(job->tolerance >= 0.0f) || !isfinite(job->tolerance) || job->max_iterations < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: target, tolerance >= 0, max_iterations >= 0", what);

    sinew_vec3 p0[SINEW_IK_MAX_CHAIN], p[SINEW_IK_MAX_CHAIN];
    float len[SINEW_IK_MAX_CHAIN];
    float total = 0.0f;
    for (int i = 0; i < n; ++i) p0[i] = p[i] = position_of(&job->model[job->joints[i]]);
    for (int i = 0; i + 1 < n; ++i) {
        sinew_vec3 d = sinew__v3_sub(p0[i + 1], p0[i]);
        len[i] = sqrtf(sinew__v3_dot(d, d));
        total += len[i];
    }
    const sinew_vec3 t = job->target, root = p0[0];
    float tol = job->tolerance > 0.0f ? job->tolerance : 1e-4f * (total > 0.0f ? total : 1.0f);
    int cap = job->max_iterations > 0 ? job->max_iterations : 32;
    int iterations = 0;
    sinew_vec3 rt = sinew__v3_sub(t, root);
    if (sqrtf(sinew__v3_dot(rt, rt)) >= total) {
        /* out of reach: a straight line toward the target */
        sinew_vec3 dir = sinew__v3_normalize(rt);
        for (int i = 0; i + 1 < n; ++i) p[i + 1] = sinew__v3_add(p[i], sinew__v3_scale(dir, len[i]));
    } else {
        for (; iterations < cap; ++iterations) {
            sinew_vec3 miss = sinew__v3_sub(p[n - 1], t);
            if (sqrtf(sinew__v3_dot(miss, miss)) <= tol) break;
            p[n - 1] = t; /* backward: from the tip */
            for (int i = n - 2; i >= 0; --i) {
                sinew_vec3 d = sinew__v3_normalize(sinew__v3_sub(p[i], p[i + 1]));
                if (sinew__v3_dot(d, d) == 0.0f) d = sinew__v3_normalize(sinew__v3_sub(p0[i], p0[i + 1]));
                p[i] = sinew__v3_add(p[i + 1], sinew__v3_scale(d, len[i]));
            }
            p[0] = root; /* forward: from the root */
            for (int i = 0; i + 1 < n; ++i) {
                sinew_vec3 d = sinew__v3_normalize(sinew__v3_sub(p[i + 1], p[i]));
                if (sinew__v3_dot(d, d) == 0.0f) d = sinew__v3_normalize(sinew__v3_sub(p0[i + 1], p0[i]));
                p[i + 1] = sinew__v3_add(p[i], sinew__v3_scale(d, len[i]));
            }
        }
    }

    /* positions to rotations, root first: `moved` is the model-space
     * rotation already applied to joint i by the joints above it */
    const locals local = locals_of(sk, local_in, pose);
    sinew_quat moved = sinew__q(0, 0, 0, 1);
    for (int i = 0; i + 1 < n; ++i) {
        sinew_vec3 bone = sinew__q_rotate(moved, sinew__v3_sub(p0[i + 1], p0[i]));
        sinew_quat turn = from_to(bone, sinew__v3_sub(p[i + 1], p[i]));
        sinew_quat after = sinew__q_normalize(sinew__q_mul(turn, moved));
        /* joint i's own part of the motion, in model space: moved^-1 * after,
         * seen in the frame its ancestors have already turned */
        sinew_quat own = sinew__q_normalize(sinew__q_mul(conjugate(moved), after));
        correct(&local, job->joints[i], job->model, own, job->weight);
        moved = after;
    }
    sinew_vec3 miss = sinew__v3_sub(p[n - 1], t);
    job->iterations = iterations;
    job->distance = sqrtf(sinew__v3_dot(miss, miss));
    job->reached = job->distance <= tol;
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- aim --------------------------------------------------------------------- */

/* sinew_ik_aim and sinew_ik_aim_pose: the job correcting `local_in` or `pose`. */
static sinew_result aim(sinew_ik_aim_job *job, sinew_transform *local_in, float *pose, const char *what,
                        sinew_error *err)
{
    sinew_result r = check_common(what, job->skeleton, job->model, local_in, pose, job->count, job->weight, err);
    if (r != SINEW_OK) return r;
    if ((r = check_joint(what, job->skeleton, job->model, job->joint, err)) != SINEW_OK) return r;
    if (!finite3(job->target) || !finite3(job->forward) || !finite3(job->up) || !finite3(job->pole))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: target, axes and pole must be finite", what);
    sinew_vec3 fwd = sinew__v3_normalize(job->forward), up = sinew__v3_normalize(job->up);
    sinew_vec3 side = sinew__v3_cross(fwd, up);
    if (sinew__v3_dot(fwd, fwd) == 0.0f || sinew__v3_dot(side, side) < 1e-8f)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: forward is zero or up lies along it", what);

    const sinew_mat4 *m = &job->model[job->joint];
    sinew_quat rot = sinew__model_rotation(m);
    sinew_vec3 to = sinew__v3_sub(job->target, position_of(m));
    sinew_quat g = sinew__q(0, 0, 0, 1);
    if (sinew__v3_dot(to, to) > 0.0f) {
        sinew_vec3 f_now = sinew__q_rotate(rot, fwd);
        g = from_to(f_now, to);
        if (sinew__v3_dot(job->pole, job->pole) > 0.0f) {
            sinew_vec3 axis = sinew__v3_normalize(to);
            sinew_vec3 up_now = sinew__q_rotate(g, sinew__q_rotate(rot, up));
            sinew_vec3 pole = sinew__v3_sub(job->pole, sinew__v3_scale(axis, sinew__v3_dot(axis, job->pole)));
            if (sinew__v3_dot(pole, pole) > 0.0f)
                g = sinew__q_normalize(sinew__q_mul(twist_about(axis, up_now, pole), g));
        }
    }
    const locals local = locals_of(job->skeleton, local_in, pose);
    job->correction = correct(&local, job->joint, job->model, g, job->weight);
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- the public jobs ------------------------------------------------------------ */

sinew_result sinew_ik_two_bone(sinew_ik_two_bone_job *job, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_two_bone: job is NULL");
    sinew_result r = two_bone_checks(job, job->local, NULL, "sinew_ik_two_bone", err);
    if (r != SINEW_OK) return r;
    two_bone_solve(job);
    sinew__ok(err);
    return SINEW_OK;
}

/* The pose form solves the job on copies of the chain's three joints (their
 * model matrices and local rotations: all the solve reads), as joints 0, 1
 * and 2, and puts the two corrected rotations back in the pose. */
sinew_result sinew_ik_two_bone_pose(sinew_ik_two_bone_job *job, float *pose, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_two_bone_pose: job is NULL");
    sinew_result r = two_bone_checks(job, NULL, pose, "sinew_ik_two_bone_pose", err);
    if (r != SINEW_OK) return r;
    const locals local = locals_of(job->skeleton, NULL, pose);
    const int joints[3] = {job->start_joint, job->mid_joint, job->end_joint};
    sinew_mat4 model[3];
    sinew_transform chain[3];
    for (int i = 0; i < 3; ++i) {
        model[i] = job->model[joints[i]];
        chain[i] = sinew_transform_identity();
        chain[i].rotation = rotation_of(&local, joints[i]);
    }
    sinew_ik_two_bone_job three = *job;
    three.model = model, three.local = chain, three.start_joint = 0, three.mid_joint = 1, three.end_joint = 2;
    two_bone_solve(&three);
    put_back(&local, joints[0], chain[0].rotation), put_back(&local, joints[1], chain[1].rotation);
    job->start_correction = three.start_correction, job->mid_correction = three.mid_correction;
    job->reached = three.reached;
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_ik_chain(sinew_ik_chain_job *job, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_chain: job is NULL");
    return chain(job, job->local, NULL, "sinew_ik_chain", err);
}

sinew_result sinew_ik_chain_pose(sinew_ik_chain_job *job, float *pose, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_chain_pose: job is NULL");
    return chain(job, NULL, pose, "sinew_ik_chain_pose", err);
}

sinew_result sinew_ik_aim(sinew_ik_aim_job *job, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_aim: job is NULL");
    return aim(job, job->local, NULL, "sinew_ik_aim", err);
}

sinew_result sinew_ik_aim_pose(sinew_ik_aim_job *job, float *pose, sinew_error *err)
{
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_ik_aim_pose: job is NULL");
    return aim(job, NULL, pose, "sinew_ik_aim_pose", err);
}
