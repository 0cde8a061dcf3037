/* SPDX-License-Identifier: MIT */
/* The local-to-model kernels of local_to_model_avx2.c compiled for AVX-512
 * F and DQ (run only where sinew_simd_supported() says so): the same loads,
 * each block's joints multiplied a joint per 512-bit vector
 * (sinew__model_block_512), with the same bits. */
#define SINEW__L2M_KERNEL(name) sinew__##name##_avx512
#define SINEW__L2M_BLOCK sinew__model_block_512
#include "local_to_model_avx2.c"
