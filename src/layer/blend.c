/* SPDX-License-Identifier: MIT */
/* Blending in local space: N-way weighted blends with masks, additive
 * deltas and their application. */
#include "layer/blend_internal.h"

#include <float.h>

static bool valid_weight(float w) { return isfinite(w) && w >= 0.0f; }

/* The threshold a blend runs with: 0 means 0.1 (sinew.h). */
static float blend_threshold(float threshold) { return threshold == 0.0f ? 0.1f : threshold; }

/* The first joint whose mask weight is not valid_weight, or -1: one pass
 * without branches (vectorized: masks are checked on every call), then a
 * search for the joint to name only where one is bad. */
static int bad_mask_weight(const float *mask, int count)
{
    int ok = 1;
    for (int j = 0; j < count; ++j) ok &= (mask[j] >= 0.0f) & (mask[j] <= FLT_MAX);
    for (int j = 0; !ok && j < count; ++j)
        if (!valid_weight(mask[j])) return j;
    return -1;
}

/* Whether rotation q goes to the other side of the rest rotation r: the
 * sign bit of their dot product, sinew__q_dot's products summed in x, y,
 * z, w order as the SIMD kernels sum them (a dot product near 0 picks a
 * side, and every level must pick the same one). */
static bool other_side(sinew_quat q, sinew_quat r) { return signbit(sinew__q_dot(q, r)); }

/* The scalar reference for one joint, for both blends: layers either
 * sinew_blend_layer (transform arrays) or sinew_pose_layer (SoA poses),
 * `rest` its rest transform. */
static SINEW__ALWAYS_INLINE sinew_transform blend_joint(const sinew_blend_layer *layers,
                                                       const sinew_pose_layer *pose_layers, int layer_count,
                                                       const sinew_transform *rest, float threshold, int j)
{
    float total = 0.0f;
    int contributors = 0;
    sinew_transform only = *rest, p;
    sinew_vec3 t = {0, 0, 0}, s = {0, 0, 0};
    sinew_quat q = {0, 0, 0, 0};
    for (int i = 0; i <= layer_count; ++i) {
        float w;
        if (i < layer_count) {
            float weight = layers ? layers[i].weight : pose_layers[i].weight;
            const float *mask = layers ? layers[i].joint_weights : pose_layers[i].joint_weights;
            w = weight * (mask ? mask[j] : 1.0f);
            if (!(w > 0.0f)) continue;
            p = layers ? layers[i].pose[j] : sinew__pose_joint(pose_layers[i].pose, j);
        } else { /* the rest pose fills in below the threshold */
            w = threshold - total;
            if (!(w > 0.0f)) continue;
            p = *rest;
        }
        total += w;
        ++contributors;
        only = p;
        t.x += w * p.translation.x, t.y += w * p.translation.y, t.z += w * p.translation.z;
        s.x += w * p.scale.x, s.y += w * p.scale.y, s.z += w * p.scale.z;
        float wq = other_side(p.rotation, rest->rotation) ? -w : w;
        q.x += wq * p.rotation.x, q.y += wq * p.rotation.y, q.z += wq * p.rotation.z, q.w += wq * p.rotation.w;
    }
    if (contributors == 1) return only; /* one pose: itself, bit for bit */
    float inv = 1.0f / total;
    return (sinew_transform){sinew__v3(t.x * inv, t.y * inv, t.z * inv), sinew__q_normalize(q),
                             sinew__v3(s.x * inv, s.y * inv, s.z * inv)};
}

/* The checks both blends share, but the layers'; `name` the caller. */
/* `lanes`: the pose order's lane count where a SoA pose may be in it, else
 * 0 (count must then be the joint count). */
static sinew_result check_blend(const char *name, const sinew_skeleton *sk, bool layers, int layer_count,
                                float threshold, const void *out, int count, int lanes, sinew_error *err)
{
    if (!sk || !out || layer_count < 0 || (layer_count > 0 && !layers) || !(threshold >= 0.0f) ||
        !isfinite(threshold))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: a skeleton, layers and an output", name);
    if (count != sk->joint_count && count != lanes)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                           lanes ? "%s: %d lanes for %d joints (or %d lanes in the pose order)"
                                 : "%s: %d transforms for %d joints",
                           name, count, sk->joint_count, lanes);
    return SINEW_OK;
}

/* Layer i's checks. */
static sinew_result check_layer(const char *name, int i, bool pose, float weight, const float *mask, int count,
                                sinew_error *err)
{
    if (!pose || !valid_weight(weight))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: layer %d: a pose and a weight >= 0", name, i);
    int j = mask ? bad_mask_weight(mask, count) : -1;
    if (j >= 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: layer %d: joint %d's mask weight %g", name, i, j,
                           (double)mask[j]);
    return SINEW_OK;
}

sinew_result sinew_blend(const sinew_skeleton *sk, const sinew_blend_layer *layers, int layer_count, float threshold,
                         sinew_transform *out, int count, sinew_error *err)
{
    sinew_result r = check_blend("sinew_blend", sk, layers != NULL, layer_count, threshold, out, count, 0, err);
    for (int i = 0; r == SINEW_OK && i < layer_count; ++i)
        r = check_layer("sinew_blend", i, layers[i].pose != NULL, layers[i].weight, layers[i].joint_weights, count,
                        err);
    if (r != SINEW_OK) return r;
    threshold = blend_threshold(threshold);
    int done = 0;
    sinew__blend_kernel kernel = sinew__blend_kernel_for(sinew__skeleton_of(sk)->simd);
    if (kernel) /* the loop below, vectorized; it may leave a tail of joints */
        done = kernel(sk->rest_pose, layers, layer_count, threshold, out, count);
    for (int j = done; j < count; ++j)
        out[j] = blend_joint(layers, NULL, layer_count, &sk->rest_pose[j], threshold, j);
    sinew__ok(err);
    return SINEW_OK;
}

/* sinew_blend_pose's checks, each with its sentence. */
static sinew_result blend_pose_checks(const sinew_skeleton *sk, const float *rest, const sinew_pose_layer *layers,
                                      int layer_count, float threshold, const float *out, int count, sinew_error *err)
{
    sinew_result r = check_blend("sinew_blend_pose", sk, layers != NULL, layer_count, threshold, out, count,
                                 sinew_skeleton_pose_order(sk, NULL), err);
    if (r == SINEW_OK && !rest)
        r = sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_blend_pose: the rest pose in SoA form");
    for (int i = 0; r == SINEW_OK && i < layer_count; ++i)
        r = check_layer("sinew_blend_pose", i, layers[i].pose != NULL, layers[i].weight, layers[i].joint_weights,
                        count, err);
    return r;
}

/* sinew_blend_pose for every call the quick test does not send straight
 * to a kernel: the checks, then the kernel or the scalar reference. Out
 * of line, so that the common call's frame stays small. */
static SINEW__NOINLINE sinew_result blend_pose_in_full(const sinew_skeleton *sk, const float *rest,
                                                       const sinew_pose_layer *layers, int layer_count,
                                                       float threshold, float *out, int count, sinew_error *err)
{
    sinew_result r = blend_pose_checks(sk, rest, layers, layer_count, threshold, out, count, err);
    if (r != SINEW_OK) return r;
    threshold = blend_threshold(threshold);
    sinew__blend_pose_kernel kernel = sinew__blend_pose_kernel_for(sinew__skeleton_of(sk)->simd);
    if (kernel) {
        kernel(rest, layers, layer_count, threshold, out, count);
    } else {
        for (int j = 0; j < count; ++j) {
            sinew_transform rj = sinew__pose_joint(rest, j);
            sinew_transform o = blend_joint(NULL, layers, layer_count, &rj, threshold, j);
            sinew__pose_set_joint(out, j, &o);
        }
        sinew__pose_pad(out, count);
    }
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_blend_pose(const sinew_skeleton *sk, const float *rest, const sinew_pose_layer *layers,
                              int layer_count, float threshold, float *out, int count, sinew_error *err)
{
    /* the common call (arguments given, layers without masks, a kernel at
     * the skeleton's level) passes one quick test and goes to the kernel */
    bool quick = sk && rest && out && layers && layer_count > 0 && threshold >= 0.0f && threshold < INFINITY &&
                 (count == sk->joint_count || count == sinew__skeleton_of(sk)->schedule_length);
    for (int i = 0; quick && i < layer_count; ++i)
        quick = layers[i].pose && !layers[i].joint_weights && layers[i].weight >= 0.0f && layers[i].weight < INFINITY;
    sinew__blend_pose_kernel kernel = quick ? sinew__blend_pose_kernel_for(sinew__skeleton_of(sk)->simd) : NULL;
    if (!kernel) return blend_pose_in_full(sk, rest, layers, layer_count, threshold, out, count, err);
    kernel(rest, layers, layer_count, blend_threshold(threshold), out, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_additive_delta(const sinew_transform *reference, const sinew_transform *pose, int count,
                                  sinew_transform *out, sinew_error *err)
{
    if (!reference || !pose || !out || count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_additive_delta: a reference, a pose and an output");
    for (int j = 0; j < count; ++j) {
        const sinew_transform *r = &reference[j], *p = &pose[j];
        sinew_quat rc = sinew__q(-r->rotation.x, -r->rotation.y, -r->rotation.z, r->rotation.w);
        sinew_transform d;
        d.translation = sinew__v3_sub(p->translation, r->translation);
        d.rotation = sinew__q_normalize(sinew__q_mul(rc, p->rotation));
        d.scale = sinew__v3(r->scale.x != 0.0f ? p->scale.x / r->scale.x : 1.0f,
                            r->scale.y != 0.0f ? p->scale.y / r->scale.y : 1.0f,
                            r->scale.z != 0.0f ? p->scale.z / r->scale.z : 1.0f);
        out[j] = d;
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* One joint of sinew_additive_apply: the scalar reference, which the SoA
 * kernels follow operation for operation. */
static sinew_transform additive_joint(const sinew_transform *b, const sinew_transform *d, float w)
{
    /* nlerp from identity, on the identity's side */
    sinew_quat dq = d->rotation.w < 0.0f ? sinew__q(-d->rotation.x, -d->rotation.y, -d->rotation.z, -d->rotation.w)
                                         : d->rotation;
    sinew_quat part = sinew__q_normalize(sinew__q(w * dq.x, w * dq.y, w * dq.z, 1.0f - w + w * dq.w));
    sinew_transform o;
    o.translation = sinew__v3(b->translation.x + w * d->translation.x, b->translation.y + w * d->translation.y,
                              b->translation.z + w * d->translation.z);
    o.rotation = sinew__q_normalize(sinew__q_mul(b->rotation, part));
    o.scale = sinew__v3(b->scale.x * (1.0f + w * (d->scale.x - 1.0f)), b->scale.y * (1.0f + w * (d->scale.y - 1.0f)),
                        b->scale.z * (1.0f + w * (d->scale.z - 1.0f)));
    return o;
}

/* The weight and the mask's weights: finite and not negative. */
static sinew_result check_additive_weights(const char *name, float weight, const float *mask, int count,
                                           sinew_error *err)
{
    if (!valid_weight(weight))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: weight %g is not a finite value >= 0", name,
                           (double)weight);
    int j = mask ? bad_mask_weight(mask, count) : -1;
    if (j >= 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: mask weight %d, %g, is not a finite value >= 0",
                           name, j, (double)mask[j]);
    return SINEW_OK;
}

sinew_result sinew_additive_apply(const sinew_transform *base, const sinew_transform *delta, int count, float weight,
                                  const float *joint_weights, sinew_transform *out, sinew_error *err)
{
    if (!base || !delta || !out || count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_additive_apply: a base, a delta, an output");
    sinew_result r = check_additive_weights("sinew_additive_apply", weight, joint_weights, count, err);
    if (r != SINEW_OK) return r;
    /* the kernel gives the reference's bits, so the best level the CPU
     * runs serves, with no object to have chosen it */
    sinew__additive_kernel kernel = sinew__additive_kernel_for(sinew__simd_level(NULL));
    int done = kernel ? kernel(base, delta, count, weight, joint_weights, out) : 0;
    for (int j = done; j < count; ++j)
        out[j] = additive_joint(&base[j], &delta[j], weight * (joint_weights ? joint_weights[j] : 1.0f));
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_additive_apply_pose(const sinew_skeleton *sk, const float *base, const float *delta, int count,
                                       float weight, const float *lane_weights, float *out, sinew_error *err)
{
    static const char what[] = "sinew_additive_apply_pose";
    if (!sk || !base || !delta || !out)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: a skeleton, a base, a delta, an output", what);
    int lanes = sinew_skeleton_pose_order(sk, NULL);
    if (count != sk->joint_count && count != lanes)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: %d lanes for %d joints (or %d lanes in the pose order)",
                           what, count, sk->joint_count, lanes);
    sinew_result r = check_additive_weights(what, weight, lane_weights, count, err);
    if (r != SINEW_OK) return r;
    sinew__additive_pose_kernel kernel = sinew__additive_pose_kernel_for(sinew__skeleton_of(sk)->simd);
    if (kernel) {
        kernel(base, delta, count, weight, lane_weights, out);
    } else {
        for (int j = 0; j < count; ++j) {
            sinew_transform b = sinew__pose_joint(base, j), d = sinew__pose_joint(delta, j);
            sinew_transform o = additive_joint(&b, &d, weight * (lane_weights ? lane_weights[j] : 1.0f));
            sinew__pose_set_joint(out, j, &o);
        }
    }
    sinew__pose_pad(out, count);
    sinew__ok(err);
    return SINEW_OK;
}
