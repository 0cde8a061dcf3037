/* SPDX-License-Identifier: MIT */
/* XXH3's blocks with 256-bit vectors (run only where the CPU runs AVX2):
 * four lanes a vector, the same sums as the portable loop, bit for bit. */
#include "archive/archive_internal.h"

#include <immintrin.h>

void sinew__xxh3_stripes_avx2(uint64_t acc[8], const unsigned char *p, size_t blocks, size_t stripes,
                              const unsigned char *secret)
{
    __m256i a[2] = {_mm256_loadu_si256((const __m256i *)(const void *)acc),
                    _mm256_loadu_si256((const __m256i *)(const void *)(acc + 4))};
    const __m256i prime = _mm256_set1_epi64x(SINEW__XXH3_SCRAMBLE_PRIME);
    for (size_t b = 0; b <= blocks; ++b) {
        /* the full blocks' stripes, then the last block's first ones */
        size_t count = b < blocks ? SINEW__XXH3_BLOCK_STRIPES : stripes;
        for (size_t s = 0; s < count; ++s)
            for (int j = 0; j < 2; ++j) {
                __m256i value = _mm256_loadu_si256((const __m256i *)(const void *)(p + 64 * s + 32 * j));
                __m256i mixed = _mm256_xor_si256(
                    value, _mm256_loadu_si256((const __m256i *)(const void *)(secret + 8 * s + 32 * j)));
                /* each 64-bit lane: its low half times its high half; and
                 * lane i takes lane i ^ 1's value */
                __m256i product = _mm256_mul_epu32(mixed, _mm256_shuffle_epi32(mixed, _MM_SHUFFLE(2, 3, 0, 1)));
                __m256i swapped = _mm256_shuffle_epi32(value, _MM_SHUFFLE(1, 0, 3, 2));
                a[j] = _mm256_add_epi64(a[j], _mm256_add_epi64(product, swapped));
            }
        if (b == blocks) break;
        p += 64 * SINEW__XXH3_BLOCK_STRIPES;
        /* the scramble: a ^= a >> 47, ^= the secret's last 64 bytes, *= the
         * prime, its 64-bit product made of two 32-bit ones */
        for (int j = 0; j < 2; ++j) {
            __m256i x = _mm256_xor_si256(a[j], _mm256_srli_epi64(a[j], 47));
            x = _mm256_xor_si256(x, _mm256_loadu_si256((const __m256i *)(const void *)(secret + 128 + 32 * j)));
            __m256i lo = _mm256_mul_epu32(x, prime), hi = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), prime);
            a[j] = _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
        }
    }
    _mm256_storeu_si256((__m256i *)(void *)acc, a[0]);
    _mm256_storeu_si256((__m256i *)(void *)(acc + 4), a[1]);
}
