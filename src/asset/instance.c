/* SPDX-License-Identifier: MIT */
/* sinew_instance: one character playing one clip, every buffer of a frame
 * made once, so that a frame is one call (sampling into model space, morph
 * weights, then each mesh posed by sinew_mesh_pose). A convenience over the
 * real API for the common case; engines that blend, layer or thread use
 * the steps themselves. */
#include "asset_internal.h"

struct sinew_instance {
    const sinew_asset *asset;
    const sinew_clip *clip;
    sinew_instance_options settings;
    sinew_allocator allocator;
    sinew_cursor cursor;
    sinew_mat4 *model;
    float **positions, **normals, **weights;
    void *scratch;
    size_t scratch_size;
};

void sinew_instance_free(sinew_instance *inst)
{
    if (!inst) return;
    sinew_allocator a = inst->allocator;
    const sinew_asset *asset = inst->asset;
    for (int m = 0; m < asset->mesh_count; ++m) {
        if (inst->positions) sinew__free_aligned(&a, inst->positions[m]);
        if (inst->normals) sinew__free_aligned(&a, inst->normals[m]);
        if (inst->weights) sinew__free(&a, inst->weights[m]);
    }
    sinew__free(&a, inst->positions), sinew__free(&a, inst->normals), sinew__free(&a, inst->weights);
    sinew__free_aligned(&a, inst->model), sinew__free_aligned(&a, inst->scratch);
    sinew__free(&a, inst->cursor.keys);
    sinew__free(&a, inst);
}

/* Zeroed memory or NULL (count * size overflow included). */
static void *zeroed(const sinew_allocator *a, size_t count, size_t size, bool aligned)
{
    if (size && count > SIZE_MAX / size) return NULL;
    size_t n = count * size;
    if (n == 0) n = 1;
    void *p = aligned ? sinew__alloc_aligned(a, n) : sinew__alloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}

sinew_instance *sinew_instance_create(const sinew_asset *asset, const sinew_clip *clip,
                                      const sinew_instance_options *settings, const sinew_options *options,
                                      sinew_error *err)
{
    if (!asset || !asset->skeleton) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_instance_create: an asset is required");
        return NULL;
    }
    if (clip && clip->joint_count != asset->skeleton->joint_count) {
        sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "sinew_instance_create: clip \"%s\" animates %d joints, the "
                    "asset's skeleton has %d", clip->name, clip->joint_count, asset->skeleton->joint_count);
        return NULL;
    }
    if (clip && clip->additive) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_instance_create: clip \"%s\" is additive: it holds "
                    "differences to add to a pose (sinew_additive_apply), not a pose to play", clip->name);
        return NULL;
    }
    if (settings && (unsigned)settings->method > SINEW_SKINNING_DQS) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_instance_create: unknown skinning method %d",
                    (int)settings->method);
        return NULL;
    }
    sinew_allocator a = sinew__allocator(options);
    sinew_instance *inst = zeroed(&a, 1, sizeof *inst, false);
    if (!inst) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_instance_create: out of memory");
        return NULL;
    }
    inst->asset = asset, inst->clip = clip, inst->allocator = a;
    if (settings) inst->settings = *settings;
    int joints = asset->skeleton->joint_count, meshes = asset->mesh_count;
    bool ok = true;
    if (clip) {
        int n = sinew_clip_cursor_size(clip);
        inst->cursor.keys = zeroed(&a, (size_t)n, sizeof(int32_t), false);
        inst->cursor.count = n;
        ok = inst->cursor.keys != NULL;
    }
    inst->model = zeroed(&a, (size_t)joints, sizeof(sinew_mat4), true);
    inst->positions = zeroed(&a, (size_t)meshes, sizeof(float *), false);
    inst->normals = zeroed(&a, (size_t)meshes, sizeof(float *), false);
    inst->weights = zeroed(&a, (size_t)meshes, sizeof(float *), false);
    ok = ok && inst->model && inst->positions && inst->normals && inst->weights;
    for (int m = 0; ok && m < meshes; ++m) {
        const sinew_mesh *mesh = &asset->meshes[m];
        size_t v = (size_t)mesh->vertex_count;
        size_t need = sinew_mesh_pose_scratch_size(mesh);
        if (need > inst->scratch_size) inst->scratch_size = need;
        inst->positions[m] = zeroed(&a, 3 * v, sizeof(float), true);
        ok = inst->positions[m] != NULL;
        if (ok && mesh->normals) ok = (inst->normals[m] = zeroed(&a, 3 * v, sizeof(float), true)) != NULL;
        if (ok && mesh->morph) {
            int t = mesh->morph->target_count;
            ok = (inst->weights[m] = zeroed(&a, (size_t)t, sizeof(float), false)) != NULL;
            if (ok && mesh->morph_weights) memcpy(inst->weights[m], mesh->morph_weights, sizeof(float) * (size_t)t);
        }
    }
    if (ok && inst->scratch_size) ok = (inst->scratch = zeroed(&a, inst->scratch_size, 1, true)) != NULL;
    if (!ok) {
        sinew_instance_free(inst);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_instance_create: out of memory");
        return NULL;
    }
    sinew__ok(err);
    return inst;
}

sinew_result sinew_instance_update(sinew_instance *inst, float time, sinew_error *err)
{
    static const char who[] = "sinew_instance_update";
    if (!inst) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: an instance is required", who);
    const sinew_asset *a = inst->asset;
    const sinew_skeleton *sk = a->skeleton;
    unsigned flags = inst->settings.no_loop ? 0u : SINEW_SAMPLE_LOOP;
    sinew_result r;
    if (inst->clip)
        r = sinew_clip_sample_model(inst->clip, sk, time, flags, &inst->cursor, NULL, NULL, inst->model,
                                    sk->joint_count, err);
    else
        r = sinew_local_to_model(sk, sk->rest_pose, NULL, inst->model, sk->joint_count, err);
    if (r != SINEW_OK) {
        sinew__error_lead(err, who);
        return r;
    }
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        if (mesh->morph && inst->clip && mesh->joint >= 0) {
            r = sinew_clip_sample_weights(inst->clip, time, flags, &inst->cursor, mesh->joint, inst->weights[m],
                                          mesh->morph->target_count, err);
            if (r != SINEW_OK) {
                sinew__error_lead(err, who);
                return r;
            }
        }
        r = sinew_mesh_pose(mesh, inst->model, sk->joint_count, inst->weights[m], inst->settings.method,
                            inst->scratch, inst->scratch_size, inst->positions[m], inst->normals[m], NULL, err);
        if (r != SINEW_OK) {
            sinew__error_lead(err, who);
            return r;
        }
    }
    sinew__ok(err);
    return SINEW_OK;
}

const sinew_mat4 *sinew_instance_model(const sinew_instance *inst) { return inst ? inst->model : NULL; }

const float *sinew_instance_positions(const sinew_instance *inst, int mesh)
{
    return inst && mesh >= 0 && mesh < inst->asset->mesh_count ? inst->positions[mesh] : NULL;
}

const float *sinew_instance_normals(const sinew_instance *inst, int mesh)
{
    return inst && mesh >= 0 && mesh < inst->asset->mesh_count ? inst->normals[mesh] : NULL;
}
