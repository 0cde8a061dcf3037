/* SPDX-License-Identifier: MIT */
/* What every fuzz harness does with an asset that loaded: every clip
 * sampled at a few times (and the rest pose), posed to model space, every
 * mesh skinned by LBS and DQS with its morph weights, so that a loader's
 * output is proven usable, not only accepted. */
#ifndef SINEW_FUZZ_PLAY_H
#define SINEW_FUZZ_PLAY_H

#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

#include <stdlib.h>

/* 16-byte aligned scratch: C11's aligned_alloc, which the Windows C runtime
 * lacks (it has _aligned_malloc, freed by _aligned_free). */
static void *fuzz_play_scratch(size_t size)
{
    size = (size + 15) / 16 * 16;
#if defined(_WIN32)
    return _aligned_malloc(size, 16);
#else
    return aligned_alloc(16, size);
#endif
}

static void fuzz_play_scratch_free(void *p)
{
#if defined(_WIN32)
    _aligned_free(p);
#else
    free(p);
#endif
}

static void fuzz_play(const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    if (!local || !model) goto done;
    for (int c = -1; c < a->clip_count; ++c) {
        static const float times[3] = {-1.0f, 0.37f, 1e9f};
        for (int k = 0; k < 3; ++k) {
            sinew_result r = c < 0 ? sinew_rest_pose(sk, local, n, NULL)
                                   : sinew_clip_sample(a->clips[c], sk, times[k], 0, NULL, local, n, NULL);
            if (r != SINEW_OK || sinew_local_to_model(sk, local, NULL, model, n, NULL) != SINEW_OK) continue;
            for (int m = 0; m < a->mesh_count; ++m) {
                const sinew_mesh *mesh = &a->meshes[m];
                size_t scratch_size = sinew_mesh_pose_scratch_size(mesh);
                void *scratch = scratch_size ? fuzz_play_scratch(scratch_size) : NULL;
                float *pos = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count + 4);
                float *nrm = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count + 4);
                float *w = mesh->morph ? malloc(sizeof(float) * (size_t)mesh->morph->target_count) : NULL;
                if ((scratch || !scratch_size) && pos && nrm && (w || !mesh->morph)) {
                    if (w) {
                        for (int t = 0; t < mesh->morph->target_count; ++t) w[t] = mesh->morph_weights[t];
                        if (c >= 0 && mesh->joint >= 0)
                            sinew_clip_sample_weights(a->clips[c], times[k], 0, NULL, mesh->joint, w,
                                                      mesh->morph->target_count, NULL);
                    }
                    sinew_mesh_pose(mesh, model, n, w, (sinew_skinning)(k & 1), scratch, scratch_size, pos, nrm, NULL,
                                    NULL);
                }
                fuzz_play_scratch_free(scratch), free(pos), free(nrm), free(w);
            }
        }
    }
done:
    free(local), free(model);
}

#endif
