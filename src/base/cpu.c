/* SPDX-License-Identifier: MIT */
/* Which SIMD level this CPU and its operating system run, from CPUID and
 * XGETBV (the OS must save the wider registers across context switches).
 * Where the x86 kernels are not built (SINEW_X86_SIMD, set by the build for
 * x86-64 with GCC or Clang), the scalar level is all there is. */
#include "base/base_internal.h"

#if defined(SINEW_X86_SIMD)
#include <cpuid.h>
#include <stdatomic.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static sinew_simd probe(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return SINEW_SIMD_SCALAR;
    bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
    if (!(fma && osxsave && avx)) return SINEW_SIMD_SCALAR;
    uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return SINEW_SIMD_SCALAR; /* XMM and YMM state */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return SINEW_SIMD_SCALAR;
    bool avx2 = b & (1u << 5);
    bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 31)); /* F, DQ, VL */
    if (!avx2) return SINEW_SIMD_SCALAR;
    if (avx512 && (xcr0 & 0xe0) == 0xe0) return SINEW_SIMD_AVX512; /* opmask and ZMM state */
    return SINEW_SIMD_AVX2;
}

/* CPUID is slow (a trap in a virtual machine) and every object's creation
 * asks: the answer is kept. Threads that race both store the same value. */
sinew_simd sinew_simd_supported(void)
{
    static _Atomic int known = -1;
    int level = atomic_load_explicit(&known, memory_order_relaxed);
    if (level < 0) {
        level = (int)probe();
        atomic_store_explicit(&known, level, memory_order_relaxed);
    }
    return (sinew_simd)level;
}
#elif defined(__aarch64__)
/* Advanced SIMD is part of every AArch64 CPU */
sinew_simd sinew_simd_supported(void) { return SINEW_SIMD_NEON; }
#else
sinew_simd sinew_simd_supported(void) { return SINEW_SIMD_SCALAR; }
#endif

int sinew__simd_level(const sinew_options *options)
{
    int want = options ? (int)options->simd : SINEW_SIMD_AUTO;
    /* a level of the other architecture: none of this CPU's kernels */
#if defined(__aarch64__)
    if (want == SINEW_SIMD_AVX2 || want == SINEW_SIMD_AVX512) return SINEW_SIMD_SCALAR;
#else
    if (want == SINEW_SIMD_NEON) return SINEW_SIMD_SCALAR;
#endif
    return sinew__simd_cap(want, (int)sinew_simd_supported());
}

const char *sinew_simd_name(sinew_simd level)
{
    switch (level) {
    case SINEW_SIMD_AUTO: return "auto";
    case SINEW_SIMD_SCALAR: return "scalar";
    case SINEW_SIMD_AVX2: return "avx2";
    case SINEW_SIMD_AVX512: return "avx512";
    case SINEW_SIMD_NEON: return "neon";
    }
    return "unknown";
}
