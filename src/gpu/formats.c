/* SPDX-License-Identifier: MIT */
/* The compact output formats of the CUDA crowd path (sinew_gpu.h), on the
 * host: binary16 halves and octahedral unit vectors (the encoding shared
 * with the CUDA kernels: octahedral.h). */
#include "sinew/sinew_gpu.h"

#include "gpu_internal.h"

#include <math.h>
#include <string.h>

float sinew_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact */
        float f = ldexpf((float)m, -24);
        return sign ? -f : f;
    }
    uint32_t bits = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t sinew_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* 65520 and over round to infinity */
    if (a < 0x38800000u) {                                  /* under 2^-14: a subnormal half, units of 2^-24 */
        if (a <= 0x33000000u) return sign;                  /* 2^-25 and under: zero (2^-25 ties to even) */
        uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
        return (uint16_t)(sign | r);
    }
    uint32_t r = (a - 0x38000000u) >> 13, rem = a & 0x1fffu; /* exponent rebiased from 127 to 15 */
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    return (uint16_t)(sign | r);
}

uint32_t sinew_octahedral_encode(const float n[3]) { return sinew__octahedral(n); }

static float sign_of(float v) { return v >= 0.0f ? 1.0f : -1.0f; }

void sinew_octahedral_decode(uint32_t word, float n[3])
{
    float x = (float)(int16_t)(uint16_t)(word & 0xffffu) / 32767.0f;
    float y = (float)(int16_t)(uint16_t)(word >> 16) / 32767.0f;
    x = x < -1.0f ? -1.0f : x, y = y < -1.0f ? -1.0f : y;
    float z = 1.0f - fabsf(x) - fabsf(y);
    if (z < 0.0f) {
        float ax = fabsf(x), ay = fabsf(y);
        x = (1.0f - ay) * sign_of(x), y = (1.0f - ax) * sign_of(y);
    }
    float inv = 1.0f / sqrtf(x * x + y * y + z * z);
    n[0] = x * inv, n[1] = y * inv, n[2] = z * inv;
}
