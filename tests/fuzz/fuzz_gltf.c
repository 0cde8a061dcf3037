/* libFuzzer harness for the glTF loader: the bytes are a .gltf or a .glb
 * (told apart by content, as sinew_load_memory does). A file that loads is
 * then played: every clip sampled at a few times, every mesh posed, so that
 * the loader's output is proven usable, not only accepted. External files
 * are refused (no base folder), and one load may allocate at most 256 MiB.
 *
 * Built by scripts/fuzz with clang -fsanitize=fuzzer,address,undefined;
 * tests/fuzz/replay.c runs the same function over saved inputs in every
 * build. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void play(const sinew_asset *a)
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
                void *scratch = scratch_size ? aligned_alloc(16, (scratch_size + 15) / 16 * 16) : NULL;
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
                free(scratch), free(pos), free(nrm), free(w);
            }
        }
    }
done:
    free(local), free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_load_options options = {.max_memory = (size_t)256 << 20};
    sinew_error err;
    sinew_asset *a = sinew_load_memory(data, size, NULL, &options, &err);
    if (a) play(a);
    sinew_asset_free(a);
    return 0;
}
