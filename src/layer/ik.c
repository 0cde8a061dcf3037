/* SPDX-License-Identifier: MIT */
/* Inverse kinematics: two-bone (analytic), FABRIK chains and aim. Each
 * solves in model space and hands back local-space corrections. */
#include "layer/layer_internal.h"

/* ---- helpers -------------------------------------------------------------- */

static sinew_vec3 position_of(const sinew_mat4 *m) { return sinew__v3(m->m[12], m->m[13], m->m[14]); }


static sinew_quat conjugate(sinew_quat q) { return sinew__q(-q.x, -q.y, -q.z, q.w); }

static sinew_quat axis_angle(sinew_vec3 unit_axis, float radians)
{
    float s = sinf(0.5f * radians);
    return sinew__q(unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, cosf(0.5f * radians));
}

/* Some unit vector perpendicular to v (v not zero). */
static sinew_vec3 any_perpendicular(sinew_vec3 v)
{
    sinew_vec3 other = fabsf(v.x) < 0.6f ? sinew__v3(1, 0, 0) : sinew__v3(0, 1, 0);
    return sinew__v3_normalize(sinew__v3_cross(v, other));
}

/* The shortest-arc rotation turning direction a onto direction b (both any
 * length; the identity when either is zero). */
static sinew_quat from_to(sinew_vec3 a, sinew_vec3 b)
{
    a = sinew__v3_normalize(a), b = sinew__v3_normalize(b);
    float d = sinew__v3_dot(a, b);
    if (sinew__v3_dot(a, a) == 0.0f || sinew__v3_dot(b, b) == 0.0f) return sinew__q(0, 0, 0, 1);
    if (d < -0.999999f) return axis_angle(any_perpendicular(a), 3.14159265358979f);
    sinew_vec3 c = sinew__v3_cross(a, b);
    return sinew__q_normalize(sinew__q(c.x, c.y, c.z, 1.0f + d));
}

/* The signed angle about unit `axis` from a to b, both projected across it. */
static float angle_about(sinew_vec3 axis, sinew_vec3 a, sinew_vec3 b)
{
    a = sinew__v3_sub(a, sinew__v3_scale(axis, sinew__v3_dot(axis, a)));
    b = sinew__v3_sub(b, sinew__v3_scale(axis, sinew__v3_dot(axis, b)));
    return atan2f(sinew__v3_dot(axis, sinew__v3_cross(a, b)), sinew__v3_dot(a, b));
}

/* Unsigned angle between two vectors, robust near 0 and pi. */
static float angle_between(sinew_vec3 a, sinew_vec3 b)
{
    return atan2f(sqrtf(sinew__v3_dot(sinew__v3_cross(a, b), sinew__v3_cross(a, b))), sinew__v3_dot(a, b));
}

/* nlerp from the identity to q by w, on the identity's side. */
static sinew_quat weighted(sinew_quat q, float w)
{
    if (q.w < 0.0f) q = sinew__q(-q.x, -q.y, -q.z, -q.w);
    if (w >= 1.0f) return q;
    return sinew__q_normalize(sinew__q(w * q.x, w * q.y, w * q.z, 1.0f - w + w * q.w));
}

/* Turns the model-space rotation `g` (applied to joint j and everything it
 * carries) into j's local correction, weights it and applies it. */
static sinew_quat correct(sinew_transform *local, int j, const sinew_mat4 *model, sinew_quat g, float weight)
{
    sinew_quat r = sinew__model_rotation(&model[j]);
    sinew_quat c = weighted(sinew__q_normalize(sinew__q_mul(conjugate(r), sinew__q_mul(g, r))), weight);
    local[j].rotation = sinew__q_normalize(sinew__q_mul(local[j].rotation, c));
    return c;
}

static bool finite3(sinew_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static bool is_ancestor(const sinew_skeleton *sk, int ancestor, int j)
{
    for (j = sk->parents[j]; j >= 0; j = sk->parents[j])
        if (j == ancestor) return true;
    return false;
}

/* What every IK job checks: pointers, sizes, the weight. */
static sinew_result check_common(const char *what, const sinew_skeleton *sk, const sinew_mat4 *model,
                                 const sinew_transform *local, int count, float weight, sinew_error *err)
{
    if (!sk || !model || !local)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: a skeleton, model matrices and a local pose", what);
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: %d transforms for %d joints", what, count,
                           sk->joint_count);
    if (!(weight >= 0.0f && weight <= 1.0f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: weight %g is not in [0, 1]", what, (double)weight);
    return SINEW_OK;
}

static sinew_result check_joint(const char *what, const sinew_skeleton *sk, const sinew_mat4 *model, int j,
                                sinew_error *err)
{
    if (j < 0 || j >= sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX, "%s: joint %d is not in the skeleton's %d", what, j,
                           sk->joint_count);
    for (int k = 0; k < 16; ++k)
        if (!isfinite(model[j].m[k]))
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: joint %d (\"%s\")'s model matrix is not finite",
                               what, j, sk->names[j]);
    return SINEW_OK;
}

/* ---- two-bone --------------------------------------------------------------- */

sinew_result sinew_ik_two_bone(sinew_ik_two_bone_job *job, sinew_error *err)
{
    static const char what[] = "sinew_ik_two_bone";
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: job is NULL", what);
    sinew_result r = check_common(what, job->skeleton, job->model, job->local, job->count, job->weight, err);
    if (r != SINEW_OK) return r;
    const sinew_skeleton *sk = job->skeleton;
    const int js = job->start_joint, jm = job->mid_joint, je = job->end_joint;
    if ((r = check_joint(what, sk, job->model, js, err)) != SINEW_OK ||
        (r = check_joint(what, sk, job->model, jm, err)) != SINEW_OK ||
        (r = check_joint(what, sk, job->model, je, err)) != SINEW_OK)
        return r;
    if (!is_ancestor(sk, js, jm) || !is_ancestor(sk, jm, je))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: joints %d (\"%s\"), %d (\"%s\"), %d (\"%s\") are not one chain, each above the next",
                           what, js, sk->names[js], jm, sk->names[jm], je, sk->names[je]);
    if (!finite3(job->target) || !finite3(job->pole))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: target or pole is not finite", what);
    if (!(job->softness >= 0.0f && job->softness <= 1.0f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: softness %g is not in [0, 1]", what,
                           (double)job->softness);

    sinew_vec3 a = position_of(&job->model[js]), b = position_of(&job->model[jm]), c = position_of(&job->model[je]);
    sinew_vec3 t = job->target;
    sinew_vec3 ab = sinew__v3_sub(b, a), bc = sinew__v3_sub(c, b), at = sinew__v3_sub(t, a);
    float lab = sqrtf(sinew__v3_dot(ab, ab)), lbc = sqrtf(sinew__v3_dot(bc, bc));
    float reach = lab + lbc, fold = fabsf(lab - lbc);
    float dist = sqrtf(sinew__v3_dot(at, at));

    /* the distance the end will be at: softened, then within what the bones span */
    float want = dist;
    if (job->softness > 0.0f) {
        float soft = job->softness * reach, start = reach - soft;
        if (want > start) want = start + soft * (1.0f - expf(-(want - start) / soft));
    }
    want = want > reach ? reach : (want < fold ? fold : want);

    /* 1. the mid joint turns about the bend plane's normal to open or close the chain */
    sinew_vec3 ba = sinew__v3_sub(a, b);
    float inner_now = angle_between(ba, bc);
    float cosine = lab > 0.0f && lbc > 0.0f ? (lab * lab + lbc * lbc - want * want) / (2.0f * lab * lbc) : 1.0f;
    float inner_want = acosf(cosine > 1.0f ? 1.0f : (cosine < -1.0f ? -1.0f : cosine));
    sinew_vec3 hinge = sinew__v3_normalize(sinew__v3_cross(bc, ba));
    if (sinew__v3_dot(hinge, hinge) < 0.5f || inner_now > 3.14159f) {
        /* straight (or folded) chain: bend toward the pole, else anywhere */
        sinew_vec3 ac = sinew__v3_sub(c, a);
        hinge = sinew__v3_normalize(sinew__v3_cross(job->pole, ac));
        if (sinew__v3_dot(hinge, hinge) < 0.5f) hinge = any_perpendicular(sinew__v3_dot(ac, ac) > 0.0f ? ac : ab);
    }
    sinew_quat g_mid = axis_angle(hinge, inner_now - inner_want);
    sinew_vec3 c1 = sinew__v3_add(b, sinew__q_rotate(g_mid, bc));

    /* 2. the start joint turns the end onto the target's direction */
    sinew_quat g_start = from_to(sinew__v3_sub(c1, a), dist > 0.0f ? at : sinew__v3_sub(c1, a));

    /* 3. and twists about that direction to bring the mid joint toward the pole */
    sinew_vec3 axis = sinew__v3_normalize(dist > 0.0f ? at : sinew__v3_sub(c1, a));
    if (sinew__v3_dot(job->pole, job->pole) > 0.0f && sinew__v3_dot(axis, axis) > 0.0f) {
        sinew_vec3 mid_dir = sinew__q_rotate(g_start, ab);
        sinew_vec3 off = sinew__v3_sub(mid_dir, sinew__v3_scale(axis, sinew__v3_dot(axis, mid_dir)));
        sinew_vec3 pole = sinew__v3_sub(job->pole, sinew__v3_scale(axis, sinew__v3_dot(axis, job->pole)));
        if (sinew__v3_dot(off, off) > 1e-12f * lab * lab && sinew__v3_dot(pole, pole) > 0.0f)
            g_start = sinew__q_normalize(sinew__q_mul(axis_angle(axis, angle_about(axis, off, pole)), g_start));
    }

    float w = job->weight;
    job->mid_correction = correct(job->local, jm, job->model, g_mid, w);
    job->start_correction = correct(job->local, js, job->model, g_start, w);
    sinew_vec3 end = sinew__v3_add(a, sinew__q_rotate(g_start, sinew__v3_sub(c1, a)));
    sinew_vec3 miss = sinew__v3_sub(end, t);
    job->reached = sqrtf(sinew__v3_dot(miss, miss)) <= 1e-4f * (reach > 0.0f ? reach : 1.0f);
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- FABRIK ------------------------------------------------------------------ */

sinew_result sinew_ik_chain(sinew_ik_chain_job *job, sinew_error *err)
{
    static const char what[] = "sinew_ik_chain";
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: job is NULL", what);
    sinew_result r = check_common(what, job->skeleton, job->model, job->local, job->count, job->weight, err);
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
    sinew_quat moved = sinew__q(0, 0, 0, 1);
    for (int i = 0; i + 1 < n; ++i) {
        sinew_vec3 bone = sinew__q_rotate(moved, sinew__v3_sub(p0[i + 1], p0[i]));
        sinew_quat turn = from_to(bone, sinew__v3_sub(p[i + 1], p[i]));
        sinew_quat after = sinew__q_normalize(sinew__q_mul(turn, moved));
        /* joint i's own part of the motion, in model space: moved^-1 * after,
         * seen in the frame its ancestors have already turned */
        sinew_quat own = sinew__q_normalize(sinew__q_mul(conjugate(moved), after));
        correct(job->local, job->joints[i], job->model, own, job->weight);
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

sinew_result sinew_ik_aim(sinew_ik_aim_job *job, sinew_error *err)
{
    static const char what[] = "sinew_ik_aim";
    if (!job) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: job is NULL", what);
    sinew_result r = check_common(what, job->skeleton, job->model, job->local, job->count, job->weight, err);
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
                g = sinew__q_normalize(sinew__q_mul(axis_angle(axis, angle_about(axis, up_now, pole)), g));
        }
    }
    job->correction = correct(job->local, job->joint, job->model, g, job->weight);
    sinew__ok(err);
    return SINEW_OK;
}
