/* SPDX-License-Identifier: MIT */
/* XXH3-64, the 64-bit XXH3 (Yann Collet's published algorithm), written
 * from its specification with seed 0 and the default secret: inputs up to
 * 16 bytes, 17 to 128, 129 to 240, and longer ones in blocks of 16 stripes
 * of 64 bytes, eight accumulators each taking a 32 x 32 -> 64-bit product
 * a lane (which the compiler can run several to a vector). Bytes and the
 * secret are read as little-endian words. */
#include "archive/archive_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { SECRET_BYTES = 192, STRIPE = 64, STRIPES_PER_BLOCK = (SECRET_BYTES - 64) / 8, BLOCK = STRIPE * STRIPES_PER_BLOCK };
_Static_assert(STRIPES_PER_BLOCK == SINEW__XXH3_BLOCK_STRIPES, "the SIMD kernels' block");

/* The specification's default secret. */
static const unsigned char secret[SECRET_BYTES] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4, 0x6d,
    0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0,
    0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0,
    0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b,
    0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac,
    0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51,
    0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34,
    0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb, 0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49,
    0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8,
    0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b,
    0x40, 0x7e,
};

static const uint64_t P32_1 = SINEW__XXH3_SCRAMBLE_PRIME, P32_2 = 0x85EBCA77u, P32_3 = 0xC2B2AE3Du;
static const uint64_t P64_1 = 0x9E3779B185EBCA87u, P64_2 = 0xC2B2AE3D27D4EB4Fu, P64_3 = 0x165667B19E3779F9u,
                      P64_4 = 0x85EBCA77C2B2AE63u, P64_5 = 0x27D4EB2F165667C5u;
static const uint64_t MX1 = 0x165667919E3779F9u, MX2 = 0x9FB21C651E98DF25u;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BIG_ENDIAN_HOST 1
#endif

/* n little-endian 64-bit words */
static void read_words(uint64_t *out, const unsigned char *p, int n)
{
    memcpy(out, p, sizeof *out * (size_t)n);
#if defined(BIG_ENDIAN_HOST)
    for (int i = 0; i < n; ++i) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = (v << 8) | p[8 * i + b];
        out[i] = v;
    }
#endif
}

static uint64_t read64(const unsigned char *p)
{
    uint64_t v;
    read_words(&v, p, 1);
    return v;
}

static uint32_t read32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint32_t swap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static uint64_t swap64(uint64_t x) { return (uint64_t)swap32((uint32_t)x) << 32 | swap32((uint32_t)(x >> 32)); }

/* The 128-bit product of a and b, its halves xor-ed together. */
static uint64_t fold(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128; /* GCC and Clang's, outside ISO C */
    u128 p = (u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll, hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

static uint64_t avalanche(uint64_t x)
{
    x ^= x >> 37;
    x *= MX1;
    return x ^ (x >> 32);
}

static uint64_t avalanche64(uint64_t x)
{
    x ^= x >> 33;
    x *= P64_2;
    x ^= x >> 29;
    x *= P64_3;
    return x ^ (x >> 32);
}

static uint64_t up_to_16(const unsigned char *p, size_t n)
{
    if (n > 8) {
        uint64_t lo = (read64(secret + 24) ^ read64(secret + 32)) ^ read64(p);
        uint64_t hi = (read64(secret + 40) ^ read64(secret + 48)) ^ read64(p + n - 8);
        return avalanche(n + swap64(lo) + hi + fold(lo, hi));
    }
    if (n >= 4) {
        uint64_t combined = (uint64_t)read32(p + n - 4) | (uint64_t)read32(p) << 32;
        uint64_t v = (read64(secret + 8) ^ read64(secret + 16)) ^ combined;
        v ^= rotl64(v, 49) ^ rotl64(v, 24);
        v *= MX2;
        v ^= (v >> 35) + n;
        v *= MX2;
        return v ^ (v >> 28);
    }
    if (n > 0) {
        uint32_t combined = (uint32_t)p[n - 1] | (uint32_t)n << 8 | (uint32_t)p[0] << 16 | (uint32_t)p[n >> 1] << 24;
        return avalanche64((uint64_t)(read32(secret) ^ read32(secret + 4)) ^ combined);
    }
    return avalanche64(read64(secret + 56) ^ read64(secret + 64));
}

static uint64_t mix16(const unsigned char *p, size_t at)
{
    return fold(read64(p) ^ read64(secret + at), read64(p + 8) ^ read64(secret + at + 8));
}

static uint64_t up_to_240(const unsigned char *p, size_t n)
{
    uint64_t acc = n * P64_1;
    if (n <= 128) {
        for (long i = (long)((n - 1) >> 5); i >= 0; --i) {
            acc += mix16(p + 16 * (size_t)i, 32 * (size_t)i);
            acc += mix16(p + n - 16 * (size_t)i - 16, 32 * (size_t)i + 16);
        }
        return avalanche(acc);
    }
    for (size_t i = 0; i < 8; ++i) acc += mix16(p + 16 * i, 16 * i);
    acc = avalanche(acc);
    for (size_t i = 8; i < n / 16; ++i) acc += mix16(p + 16 * i, 16 * (i - 8) + 3);
    acc += mix16(p + n - 16, 119);
    return avalanche(acc);
}

/* Lane i takes its product and lane i ^ 1's value: written as two
 * passes over whole arrays, so that the compiler runs them as vectors. */
static inline void accumulate(uint64_t acc[8], const unsigned char *stripe, const unsigned char *key)
{
    uint64_t value[8], mixed[8];
    read_words(value, stripe, 8);
    read_words(mixed, key, 8);
    for (int i = 0; i < 8; ++i) mixed[i] = (value[i] ^ mixed[i]);
    for (int i = 0; i < 8; ++i) acc[i] += (mixed[i] & 0xffffffffu) * (mixed[i] >> 32) + value[i ^ 1];
}

/* After each block: the accumulators scrambled with the secret's last 64
 * bytes. */
static void scramble(uint64_t acc[8])
{
    for (int i = 0; i < 8; ++i) {
        acc[i] ^= acc[i] >> 47;
        acc[i] ^= read64(secret + SECRET_BYTES - 64 + 8 * i);
        acc[i] *= P32_1;
    }
}

/* `blocks` full blocks from p, each accumulated and scrambled, then
 * `stripes` stripes of the next. */
typedef void (*blocks_fn)(uint64_t acc[8], const unsigned char *p, size_t blocks, size_t stripes,
                          const unsigned char *key);

#if defined(__SSE2__) && !defined(BIG_ENDIAN_HOST)
/* With SSE2 (part of every x86-64 CPU): two lanes a vector, the 32 x 32 ->
 * 64-bit products by pmuludq. */
static void blocks_sse2(uint64_t acc[8], const unsigned char *p, size_t blocks, size_t stripes,
                        const unsigned char *key)
{
    __m128i a[4];
    for (int j = 0; j < 4; ++j) a[j] = _mm_loadu_si128((const __m128i *)(const void *)(acc + 2 * j));
    for (size_t b = 0; b <= blocks; ++b) {
        size_t count = b < blocks ? STRIPES_PER_BLOCK : stripes;
        for (size_t s = 0; s < count; ++s)
            for (int j = 0; j < 4; ++j) {
                __m128i value = _mm_loadu_si128((const __m128i *)(const void *)(p + STRIPE * s + 16 * j));
                __m128i mixed =
                    _mm_xor_si128(value, _mm_loadu_si128((const __m128i *)(const void *)(key + 8 * s + 16 * j)));
                __m128i product = _mm_mul_epu32(mixed, _mm_shuffle_epi32(mixed, _MM_SHUFFLE(2, 3, 0, 1)));
                __m128i swapped = _mm_shuffle_epi32(value, _MM_SHUFFLE(1, 0, 3, 2));
                a[j] = _mm_add_epi64(a[j], _mm_add_epi64(product, swapped));
            }
        if (b == blocks) break;
        p += BLOCK;
        for (int j = 0; j < 4; ++j) _mm_storeu_si128((__m128i *)(void *)(acc + 2 * j), a[j]);
        scramble(acc);
        for (int j = 0; j < 4; ++j) a[j] = _mm_loadu_si128((const __m128i *)(const void *)(acc + 2 * j));
    }
    for (int j = 0; j < 4; ++j) _mm_storeu_si128((__m128i *)(void *)(acc + 2 * j), a[j]);
}
#else
static void blocks_portable(uint64_t acc[8], const unsigned char *p, size_t blocks, size_t stripes,
                            const unsigned char *key)
{
    for (size_t b = 0; b <= blocks; ++b, p += BLOCK) {
        size_t count = b < blocks ? STRIPES_PER_BLOCK : stripes;
        for (size_t s = 0; s < count; ++s) accumulate(acc, p + STRIPE * s, key + 8 * s);
        if (b < blocks) scramble(acc);
    }
}
#endif

/* The blocks' loop of a SIMD level (a sinew_simd): AVX2 where it is built
 * and asked for, else SSE2 (the x86-64 baseline, which the scalar level
 * means there), else the portable loop (the arm64 build's tests run it). */
static blocks_fn blocks_for(int level)
{
#if defined(SINEW_X86_SIMD) && !defined(BIG_ENDIAN_HOST)
    if (level == SINEW_SIMD_AVX2 || level == SINEW_SIMD_AVX512) return sinew__xxh3_stripes_avx2;
#endif
    (void)level;
#if defined(__SSE2__) && !defined(BIG_ENDIAN_HOST)
    return blocks_sse2;
#else
    return blocks_portable;
#endif
}

static uint64_t longer(const unsigned char *p, size_t n, blocks_fn run)
{
    uint64_t acc[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
    size_t blocks = (n - 1) / BLOCK, last = n - blocks * BLOCK;
    run(acc, p, blocks, (last - 1) / STRIPE, secret);
    accumulate(acc, p + n - STRIPE, secret + SECRET_BYTES - 71);
    uint64_t result = n * P64_1;
    for (int i = 0; i < 4; ++i)
        result += fold(acc[2 * i] ^ read64(secret + 11 + 16 * i), acc[2 * i + 1] ^ read64(secret + 19 + 16 * i));
    return avalanche(result);
}

uint64_t sinew__xxh3_at(const void *data, size_t n, int level)
{
    const unsigned char *p = data;
    if (n <= 16) return up_to_16(p, n);
    if (n <= 240) return up_to_240(p, n);
    return longer(p, n, blocks_for(level));
}

uint64_t sinew__xxh3(const void *data, size_t n) { return sinew__xxh3_at(data, n, (int)sinew_simd_supported()); }
