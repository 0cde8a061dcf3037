/* SPDX-License-Identifier: MIT */
/* The LBS and DQS kernels for AVX2 and FMA (compiled with -mavx2 -mfma; run
 * only where sinew_simd_supported() says so). */
#define SINEW__LBS_NAME sinew__skin_lbs_avx2
#define SINEW__DQS_NAME sinew__skin_dqs_avx2
#include "skin_kernels.h"
