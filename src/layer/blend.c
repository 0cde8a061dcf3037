/* SPDX-License-Identifier: MIT */
/* Blending in local space: N-way weighted blends with masks, additive
 * deltas and their application. */
#include "layer/layer_internal.h"

static bool valid_weight(float w) { return isfinite(w) && w >= 0.0f; }

sinew_result sinew_blend(const sinew_skeleton *sk, const sinew_blend_layer *layers, int layer_count, float threshold,
                         sinew_transform *out, int count, sinew_error *err)
{
    if (!sk || !out || layer_count < 0 || (layer_count > 0 && !layers) || !(threshold >= 0.0f) ||
        !isfinite(threshold))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_blend: a skeleton, layers and an output");
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "sinew_blend: %d transforms for %d joints", count,
                           sk->joint_count);
    for (int i = 0; i < layer_count; ++i) {
        if (!layers[i].pose || !valid_weight(layers[i].weight))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_blend: layer %d: a pose and a weight >= 0", i);
        for (int j = 0; layers[i].joint_weights && j < count; ++j)
            if (!valid_weight(layers[i].joint_weights[j]))
                return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                                   "sinew_blend: layer %d: joint %d's mask weight %g", i, j,
                                   (double)layers[i].joint_weights[j]);
    }
    if (threshold == 0.0f) threshold = 0.1f;
    int done = 0;
    sinew__blend_kernel kernel = sinew__blend_kernel_for(sinew__skeleton_of(sk)->simd);
    if (kernel) /* the loop below, vectorized; it may leave a tail of joints */
        done = kernel(sk->rest_pose, layers, layer_count, threshold, out, count);
    for (int j = done; j < count; ++j) {
        const sinew_transform *rest = &sk->rest_pose[j];
        float total = 0.0f;
        int contributors = 0;
        const sinew_transform *only = NULL;
        sinew_vec3 t = {0, 0, 0}, s = {0, 0, 0};
        sinew_quat q = {0, 0, 0, 0};
        for (int i = 0; i <= layer_count; ++i) {
            const sinew_transform *p;
            float w;
            if (i < layer_count) {
                w = layers[i].weight * (layers[i].joint_weights ? layers[i].joint_weights[j] : 1.0f);
                p = &layers[i].pose[j];
            } else { /* the rest pose fills in below the threshold */
                w = threshold - total;
                p = rest;
            }
            if (!(w > 0.0f)) continue;
            total += w;
            ++contributors;
            only = p;
            t.x += w * p->translation.x, t.y += w * p->translation.y, t.z += w * p->translation.z;
            s.x += w * p->scale.x, s.y += w * p->scale.y, s.z += w * p->scale.z;
            float wq = sinew__q_dot(p->rotation, rest->rotation) < 0.0f ? -w : w;
            q.x += wq * p->rotation.x, q.y += wq * p->rotation.y, q.z += wq * p->rotation.z, q.w += wq * p->rotation.w;
        }
        if (contributors == 1) { /* one pose: itself, bit for bit */
            out[j] = *only;
            continue;
        }
        float inv = 1.0f / total;
        out[j].translation = sinew__v3(t.x * inv, t.y * inv, t.z * inv);
        out[j].scale = sinew__v3(s.x * inv, s.y * inv, s.z * inv);
        out[j].rotation = sinew__q_normalize(q);
    }
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

sinew_result sinew_additive_apply(const sinew_transform *base, const sinew_transform *delta, int count, float weight,
                                  const float *joint_weights, sinew_transform *out, sinew_error *err)
{
    if (!base || !delta || !out || count < 0 || !valid_weight(weight))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_additive_apply: a base, a delta, a weight >= 0");
    for (int j = 0; joint_weights && j < count; ++j)
        if (!valid_weight(joint_weights[j]))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_additive_apply: joint %d's mask weight %g", j,
                               (double)joint_weights[j]);
    for (int j = 0; j < count; ++j) {
        float w = weight * (joint_weights ? joint_weights[j] : 1.0f);
        const sinew_transform *b = &base[j], *d = &delta[j];
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
        out[j] = o;
    }
    sinew__ok(err);
    return SINEW_OK;
}
