/* SPDX-License-Identifier: MIT */
/* The spring kernel of spring_avx2.c, the same source compiled for
 * AVX-512 machines (-mavx512f -mavx512vl; run only where
 * sinew_simd_supported() says so): still 256-bit vectors, but 32 vector
 * registers where AVX2 has 16. Two groups side by side hold more values
 * than 16 registers (a joint's rotation and position alone take 14), so
 * the AVX2 build spends about a quarter of its instructions storing and
 * reloading them; here most of them stay in registers. The arithmetic is the same
 * intrinsics in the same order, so the lanes agree with the AVX2 kernel's
 * and with the scalar reference to the same tolerances. */
#define SINEW__SPRINGS_KERNEL sinew__springs_avx512
#include "spring_avx2.c"
