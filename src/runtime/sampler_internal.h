/* The clip's sampling plan (src/runtime/sampler.c), shared with its AVX2
 * kernel (src/runtime/sampler_avx2.c). Not installed. */
#ifndef SINEW_SAMPLER_INTERNAL_H
#define SINEW_SAMPLER_INTERNAL_H

#include "../internal.h"

#include <stdint.h>

/* Rotation tracks are listed to a multiple of this (the widest kernel's
 * lanes), the last one repeated: a lane computes and stores it again. */
enum { SINEW__ROTATION_LANES = 16 };

/* The LINEAR translation, rotation and scale tracks that share key times.
 * Key k's values of all of them form one frame of frame_floats floats,
 * either
 *   - an image: frame float f is pose float image_at + f (a stretch of the
 *     sinew_transform array its tracks mostly fill); or
 *   - packed: each track's values at a multiple of 4 floats, vector tracks
 *     first. */
typedef struct sinew__timeline {
    const float *times;
    int key_count;
    int hint_track; /* the track whose cursor entry holds this timeline's hint */
    int frame_floats; /* a multiple of 8; frames are 32-byte aligned */
    const float *frames; /* [key][frame_floats] */
    int vec_count, rot_count;
    const uint32_t *vec_src, *vec_dst; /* per vector track: its first float in a frame, in the pose */
    const uint32_t *rot_src, *rot_dst; /* per rotation track, listed to a multiple of SINEW__ROTATION_LANES */
    bool image;
    uint32_t image_at, image_floats; /* at least 8 floats */
    /* per image float: -1 where a track writes it (a rotation's floats take
     * the vector lerp's value first, then the rotation's), else 0 */
    const int8_t *image_mask;
} sinew__timeline;

/* One rotation track between keys a and b at factor s, as the reference
 * sampler (sinew_track_sample) computes it. */
static inline void sinew__rotation_reference(const float *a, const float *b, float s, bool nlerp, float *out)
{
    sinew_quat qa = sinew__q(a[0], a[1], a[2], a[3]), qb = sinew__q(b[0], b[1], b[2], b[3]);
    sinew_quat q = nlerp ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
    memcpy(out, &q, sizeof q);
}

/* Writes timeline x's tracks between frames a and b at factor 0 < s < 1
 * into the pose floats `out` with 256-bit vectors (run only where the CPU
 * runs AVX2): vectors bit for bit a + (b - a) s, rotations within 1e-6 of the
 * reference (see sampler.c). An image's floats that no track writes come
 * from `under` (the pose floats, `out` itself or the pose it starts from). */
void sinew__timeline_lerp_avx2(const sinew__timeline *x, const float *a, const float *b, float s, bool nlerp,
                               const float *under, float *out);

#endif
