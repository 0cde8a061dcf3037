/* SPDX-License-Identifier: MIT */
/* The compressed clip form (sinew_clip_compress): one relocatable block of
 * bytes that sampling reads where it lies, its checks, and the formulas
 * shared by the encoder (src/offline/clip_compress.c) and the compressed
 * form (src/clip/compressed.c, its kernel src/clip/simd/compressed_avx2.c),
 * so that what the encoder measures is what the form plays. Not installed.
 *
 * The clip is resampled, at `rate` samples a second (sample k at time
 * k / rate, the last at the duration) or at the times of a table (the
 * clip's key times, where they are not evenly spaced: sampling the
 * tracks there and interpolating between gives the clip's own values),
 * and its samples cut into segments of SINEW__SEGMENT_SAMPLES. Each (joint, target) of translation, rotation
 * and scale is
 *   - default: left out; sampling gives the pose under the clip (the rest
 *     pose of the skeleton it plays on, the identity for an additive clip);
 *   - constant: one value, stored as floats (3; 4 for a rotation);
 *   - animated: three floats a sample (a rotation's three components other
 *     than the one the track drops, which is kept >= 0 and rebuilt from
 *     them: the one largest in magnitude over the clip, so that it stays far
 *     from 0 where rebuilding loses precision), each component normalized over the clip's
 *     range of it (min, extent as floats), and again, per segment, over the
 *     segment's part of that range (8-bit min and extent, in 255ths), then
 *     quantized at the segment's bit rate for that track.
 *
 * A bit rate is a 4-bit index into sinew__bits_of: 0 bits (the track holds
 * one value over the segment: its 6 range bytes are 3 u16, the value in
 * 65535ths of the clip range), 3 to 16 bits a component, or 32 (raw: the
 * sample's floats as they are, 4 for a rotation; its range bytes are 0).
 *
 * Layout (little-endian, offsets from the block's start, arrays on 4-byte
 * boundaries, the block on a 16-byte one):
 *   header (SINEW__COMPRESSED_HEADER bytes, fields below)
 *   f32[samples]              the sample times, where a table gives them:
 *                             from 0 up, strictly increasing
 *   u32[constant + animated]  tracks, joint * 32 + step * 16 + dropped * 4
 *                             + target (0 translation, 1 rotation, 2 scale;
 *                             dropped: the component an animated rotation
 *                             rebuilds, else 0; step: an animated track that
 *                             holds each sample's value until the next, as a
 *                             STEP track does, else 0), constant ones first,
 *                             each list strictly increasing in joint * 4 +
 *                             target
 *   f32[...]                  the constant values, 3 or 4 a track
 *   f32[animated][6]          each animated track's min[3] and extent[3]
 *   u32[segments][2]          each segment's first byte, and the bits of
 *                             each of its samples
 *   segments: u8[ceil(animated / 2)] bit rates (track i in nibble i % 2 of
 *             byte i / 2, low first), u8[animated][6] ranges, then the
 *             samples one after another, each the animated tracks' bits in
 *             order, a bit stream read from the lowest bit of each byte up
 *   8 zero bytes, so that any field is read with one 64-bit load */
#ifndef SINEW_CLIP_COMPRESSED_H
#define SINEW_CLIP_COMPRESSED_H

#include "clip/clip_internal.h"

#include <stdint.h>

enum {
    SINEW__SEGMENT_SAMPLES = 16,
    SINEW__COMPRESSED_HEADER = 96,
    SINEW__COMPRESSED_TAIL = 8,
    SINEW__RAW_RATE = 15 /* the bit rate index of raw floats */
};

/* Bits a component at each bit rate index. */
static const uint8_t sinew__bits_of[16] = {0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 32};

/* 1 / (2^bits - 1) at each bit rate index (0 where none is used): a
 * quantized integer's step over its segment's range. */
static const float sinew__step_of[16] = {
    0.0f, 1.0f / 7, 1.0f / 15, 1.0f / 31, 1.0f / 63, 1.0f / 127, 1.0f / 255, 1.0f / 511, 1.0f / 1023,
    1.0f / 2047, 1.0f / 4095, 1.0f / 8191, 1.0f / 16383, 1.0f / 32767, 1.0f / 65535, 0.0f};

/* Bits one sample of a track takes at bit rate index r. */
static inline uint32_t sinew__sample_bits(int r, bool rotation)
{
    return r == SINEW__RAW_RATE ? (rotation ? 128u : 96u) : 3u * sinew__bits_of[r];
}

/* The header's fields, as the block holds them:
 *   0 u32 magic "SNWC", 4 u32 bytes (the block's size), 8 u32 version 1,
 *   12 u32 joint count, 16 u32 sample count (at least 1), 20 f32 rate
 *   (samples a second; 0 with one sample or a table), 24 u32 segment count,
 *   28 u32 constant tracks, 32 u32 animated tracks, 36 u32 default tracks,
 *   40 f32 error bound, 44 f32 shell distance, 48 f32 largest error,
 *   52 f32 99th percentile, 56 i32 worst joint, 60 f32 worst time,
 *   64 u32 offset of the track list, 68 of the constants, 72 of the
 *   ranges, 76 of the segment table, 80 of the sample times (0: none),
 *   84 u8[12] zero. */
typedef struct sinew__compressed sinew__compressed;
typedef struct sinew__sample_at sinew__sample_at;

struct sinew__compressed {
    const unsigned char *bytes;
    size_t size;
    int joint_count, sample_count, segment_count;
    int constant_count, animated_count, default_count;
    float rate;
    const float *times;        /* the sample times, or NULL: k / rate */
    float bound, shell, largest, percentile_99, worst_time;
    int worst_joint;
    const uint32_t *tracks;    /* constant then animated */
    const float *constants;
    const float *ranges;       /* [animated][6] */
    const uint32_t *segments;  /* [segment][2]: its first byte, its bits a sample */
    /* the kernel its animated tracks are sampled by (NULL: the reference
     * formulas), of the sinew_simd level it was made or loaded for */
    void (*kernel)(const sinew__compressed *c, struct sinew__sample_at a, struct sinew__sample_at b, float s,
                   bool nlerp, sinew_transform *pose);
};

/* Reads and checks a compressed block of `size` bytes at `bytes` (4-byte
 * aligned, alive while `out` is used) for a clip of `joint_count` joints,
 * sampled at SIMD level `simd`:
 * every offset, count and size within the block and consistent, tracks in
 * range and in order, every float finite, each segment's range within its
 * clip range (so every value a sample decodes to lies in a finite range),
 * rotation ranges within what a unit quaternion spans, the segments' sizes
 * as their bit rates make them. Returns NULL, or the first problem as a
 * phrase. */
const char *sinew__compressed_open(const unsigned char *bytes, size_t size, int joint_count, int simd,
                                   sinew__compressed *out);

/* A track's joint, target, dropped component and step flag. */
static inline int sinew__track_joint(uint32_t code) { return (int)(code >> 5); }
static inline int sinew__track_target(uint32_t code) { return (int)(code & 3); }
static inline int sinew__track_dropped(uint32_t code) { return (int)(code >> 2 & 3); }
static inline bool sinew__track_step(uint32_t code) { return (code >> 4 & 1) != 0; }
static inline uint32_t sinew__track_code(int joint, int target, int dropped, bool step)
{
    return (uint32_t)joint << 5 | (uint32_t)step << 4 | (uint32_t)dropped << 2 | (uint32_t)target;
}

/* A segment's bit rate index of animated track i. */
static inline int sinew__segment_rate(const unsigned char *segment, int i)
{
    return segment[i >> 1] >> ((i & 1) * 4) & 15;
}

/* 64 bits of the stream from bit `at` on: the lowest ones are bits at,
 * at + 1, ... */
static inline uint64_t sinew__bits_at(const unsigned char *stream, uint64_t at)
{
    uint64_t w;
    memcpy(&w, stream + (at >> 3), 8);
    return w >> (at & 7);
}

/* Each byte's value in 255ths: a segment range's bounds. */
extern const float sinew__in_255ths[256];

/* The affine map of a track's integers in one segment at bit rate index
 * r (not raw): value = lo + sc q per component, from its clip range
 * (min[3], extent[3]) and its 6 segment range bytes. */
static inline void sinew__segment_map(const float *range, const unsigned char *seg, int r, float lo[3], float sc[3])
{
    if (r == 0) {
        for (int c = 0; c < 3; ++c) {
            lo[c] = range[c] + range[3 + c] * ((float)(seg[2 * c] | seg[2 * c + 1] << 8) * (1.0f / 65535.0f));
            sc[c] = 0.0f;
        }
        return;
    }
    float inverse = sinew__step_of[r];
    for (int c = 0; c < 3; ++c) {
        lo[c] = range[c] + range[3 + c] * sinew__in_255ths[seg[c]];
        sc[c] = range[3 + c] * sinew__in_255ths[seg[3 + c]] * inverse;
    }
}

/* A track's three integers of one sample at bit rate index r (1 to 14),
 * from `bits` (the stream from the sample's first bit). */
static inline void sinew__sample_integers(uint64_t bits, int r, float q[3])
{
    int b = sinew__bits_of[r];
    uint64_t mask = (1u << b) - 1u;
    for (int c = 0; c < 3; ++c) q[c] = (float)(bits >> (b * c) & mask);
}

/* Track i's value in one sample (`at`: its first bit in the segment's
 * stream) at bit rate index r, from its clip range (min[3], extent[3]) and
 * segment range bytes (6): 3 floats, or 4 for a raw rotation (a rotation
 * otherwise gets its three stored components; sinew__rotation_from_stored
 * rebuilds the fourth). Returns the floats written. */
static inline int sinew__decode_value(const unsigned char *stream, uint64_t at, int r, bool rotation,
                                      const float *range, const unsigned char *seg, float *out)
{
    if (r == SINEW__RAW_RATE) {
        int n = rotation ? 4 : 3;
        for (int c = 0; c < n; ++c) {
            uint32_t u = (uint32_t)sinew__bits_at(stream, at + 32u * (uint32_t)c);
            memcpy(&out[c], &u, 4);
        }
        return n;
    }
    float lo[3], sc[3], q[3] = {0.0f, 0.0f, 0.0f};
    sinew__segment_map(range, seg, r, lo, sc);
    if (r != 0) sinew__sample_integers(sinew__bits_at(stream, at), r, q);
    for (int c = 0; c < 3; ++c) out[c] = lo[c] + sc[c] * q[c];
    return 3;
}

/* A rotation from its stored components v (three, in order, the others
 * than `dropped`; or, with `dropped` 4, all four as stored): the dropped
 * one rebuilt >= 0 from the others, or the three scaled back to unit
 * length where quantization took them past it. */
static inline sinew_quat sinew__rebuild(const float v[4], int dropped)
{
    if (dropped > 3) return sinew__q(v[0], v[1], v[2], v[3]);
    float d = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2], x[3] = {v[0], v[1], v[2]}, w = 0.0f, r[4];
    if (d > 1.0f) {
        float s = 1.0f / sqrtf(d);
        for (int c = 0; c < 3; ++c) x[c] *= s;
    } else {
        w = sqrtf(1.0f - d);
    }
    for (int c = 0, i = 0; c < 4; ++c) r[c] = c == dropped ? w : x[i++];
    return sinew__q(r[0], r[1], r[2], r[3]);
}

/* A rotation from its stored components as sinew__rebuild rebuilds it
 * (`n` 4: raw, as stored). */
static inline sinew_quat sinew__rotation_from_stored(const float *v, int n, int dropped)
{
    return sinew__rebuild(v, n == 4 ? 4 : dropped);
}

/* Where sample k's bits begin: its segment's rates and ranges, its
 * stream, and its first bit there. */
typedef struct sinew__sample_at {
    const unsigned char *rates, *ranges, *stream;
    uint64_t bit;
} sinew__sample_at;

static inline sinew__sample_at sinew__sample_place(const sinew__compressed *c, int k)
{
    int s = k / SINEW__SEGMENT_SAMPLES, a = c->animated_count;
    const unsigned char *seg = c->bytes + c->segments[2 * s];
    return (sinew__sample_at){seg, seg + (a + 1) / 2, seg + (a + 1) / 2 + 6 * a,
                              (uint64_t)c->segments[2 * s + 1] * (uint64_t)(k % SINEW__SEGMENT_SAMPLES)};
}

/* Writes the clip's animated tracks between samples a and b (b == a on a
 * sample, where s is 0) at factor s into `pose`, rotations by slerp (nlerp
 * with `nlerp`), with 128- and 256-bit vectors (run only where the CPU
 * runs AVX2 and FMA): eight tracks at a time, decoded side by side, within
 * 1e-6 of the reference formulas (sinew__decode_value, sinew__rebuild,
 * then sinew_quat_slerp or sinew_quat_nlerp), as the clip kernels are. */
void sinew__compressed_animated_avx2(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s,
                                     bool nlerp, sinew_transform *pose);

/* The kernel of a SIMD level for a clip's animated tracks, or NULL where
 * the reference formulas run (clip/simd/dispatch.c). */
typedef void (*sinew__animated_kernel)(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s,
                                       bool nlerp, sinew_transform *pose);
sinew__animated_kernel sinew__compressed_kernel_for(int level);

#endif /* SINEW_CLIP_COMPRESSED_H */
