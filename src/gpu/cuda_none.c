/* SPDX-License-Identifier: MIT */
/* The CUDA crowd API (sinew_gpu.h) in a build without -DSINEW_CUDA=ON:
 * every call says so. */
#include "sinew/sinew_gpu.h"

#include "math/math_internal.h"

static sinew_result no_cuda(sinew_error *err, const char *who)
{
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "%s: sinew was built without CUDA (cmake -DSINEW_CUDA=ON)",
                       who);
}

bool sinew_cuda_available(sinew_error *err)
{
    no_cuda(err, "sinew_cuda_available");
    return false;
}

sinew_cuda_crowd *sinew_cuda_crowd_create(int device, sinew_error *err)
{
    (void)device;
    no_cuda(err, "sinew_cuda_crowd_create");
    return NULL;
}

void sinew_cuda_crowd_free(sinew_cuda_crowd *crowd) { (void)crowd; }

sinew_result sinew_cuda_character_add(sinew_cuda_crowd *crowd, const sinew_cuda_character_desc *desc, int *id,
                                      sinew_error *err)
{
    (void)crowd, (void)desc, (void)id;
    return no_cuda(err, "sinew_cuda_character_add");
}

sinew_result sinew_cuda_frame(sinew_cuda_crowd *crowd, const sinew_cuda_instance *instances, int count,
                              const sinew_cuda_frame_desc *desc, sinew_error *err)
{
    (void)crowd, (void)instances, (void)count, (void)desc;
    return no_cuda(err, "sinew_cuda_frame");
}

void sinew_cuda_output(const sinew_cuda_crowd *crowd, const float **positions, const float **normals)
{
    (void)crowd;
    if (positions) *positions = NULL;
    if (normals) *normals = NULL;
}

void sinew_cuda_output_compact(const sinew_cuda_crowd *crowd, const uint16_t **positions, const uint32_t **normals)
{
    (void)crowd;
    if (positions) *positions = NULL;
    if (normals) *normals = NULL;
}

size_t sinew_cuda_instance_offset(const sinew_cuda_crowd *crowd, int instance)
{
    (void)crowd, (void)instance;
    return 0;
}

sinew_result sinew_cuda_download(const sinew_cuda_crowd *crowd, int instance, float *positions, float *normals,
                                 sinew_error *err)
{
    (void)crowd, (void)instance, (void)positions, (void)normals;
    return no_cuda(err, "sinew_cuda_download");
}

sinew_result sinew_cuda_download_palette(const sinew_cuda_crowd *crowd, int instance, float *out, sinew_error *err)
{
    (void)crowd, (void)instance, (void)out;
    return no_cuda(err, "sinew_cuda_download_palette");
}

sinew_result sinew_cuda_poison(sinew_cuda_crowd *crowd, int byte, sinew_error *err)
{
    (void)crowd, (void)byte;
    return no_cuda(err, "sinew_cuda_poison");
}

sinew_cuda_timing sinew_cuda_last_timing(const sinew_cuda_crowd *crowd)
{
    (void)crowd;
    sinew_cuda_timing t = {0, 0, 0, 0};
    return t;
}
