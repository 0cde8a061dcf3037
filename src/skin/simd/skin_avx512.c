/* SPDX-License-Identifier: MIT */
/* The LBS and DQS kernels for AVX-512 F, DQ and VL (compiled with those
 * flags; run only where sinew_simd_supported() says so). */
#define SINEW__LBS_NAME sinew__skin_lbs_avx512
#define SINEW__DQS_NAME sinew__skin_dqs_avx512
#include "skin_kernels.h"
