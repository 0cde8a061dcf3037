/* SPDX-License-Identifier: MIT */
/* The octahedral word of SINEW_CUDA_COMPACT (sinew_gpu.h), one definition
 * for the host codec (formats.c) and the CUDA kernels (cuda/crowd.cu), so
 * that both encode a normal to the same bits. */
#ifndef SINEW_GPU_OCTAHEDRAL_H
#define SINEW_GPU_OCTAHEDRAL_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SINEW_HOST_DEVICE __host__ __device__
#else
#define SINEW_HOST_DEVICE
#endif

/* v within -1..1 as a signed 16-bit round(v * 32767), ties to even. */
static inline SINEW_HOST_DEVICE uint32_t sinew__snorm16(float v)
{
    v = fminf(fmaxf(v, -1.0f), 1.0f) * 32767.0f;
#ifdef __CUDA_ARCH__
    int q = __float2int_rn(v);
#else
    int q = (int)lrintf(v);
#endif
    return (uint32_t)q & 0xffffu;
}

/* p = n.xy / (|x| + |y| + |z|), folded where z < 0; x in the low half.
 * A zero or non-finite vector as +z. */
static inline SINEW_HOST_DEVICE uint32_t sinew__octahedral(const float *n)
{
    float x = n[0], y = n[1], z = n[2];
    float s = fabsf(x) + fabsf(y) + fabsf(z);
    if (!(s > 0.0f) || !isfinite(s)) {
        x = y = 0.0f;
    } else {
        x = x / s, y = y / s;
        if (z < 0.0f) {
            float ax = fabsf(x), ay = fabsf(y);
            x = (1.0f - ay) * (x >= 0.0f ? 1.0f : -1.0f), y = (1.0f - ax) * (y >= 0.0f ? 1.0f : -1.0f);
        }
    }
    return sinew__snorm16(x) | sinew__snorm16(y) << 16;
}

#endif
