/* SPDX-License-Identifier: MIT */
/* CUDA crowds (sinew_gpu.h): many instances of uploaded characters sampled,
 * blended, posed and skinned in two kernels a frame.
 *
 * pose_kernel: one warp per instance. Its lanes sample both clips for the
 * instance's joints (32 at a time), blend them and build each joint's local
 * 3x4 matrix in shared memory; then local to model level by level (the
 * joints sorted by depth: a level's joints only read their parents', which
 * the level before finished), in place; then the palette (model * inverse
 * bind) and, for DQS, its dual quaternions, to global memory.
 *
 * skin_kernel: a block per work item (a character and up to SKIN_BATCH of
 * its instances, laid out on the host each frame) and range of its
 * vertices. The instances' palettes are copied into shared memory; then a
 * thread per vertex reads the vertex's position, normal and influences once
 * and skins it for every instance of the item, so a crowd sharing a mesh
 * moves little more than its outputs: floats (staged per warp into 16-byte
 * stores) or the compact halves and octahedral words.
 *
 * The math mirrors the CPU reference (src/clip/sample.c, src/layer/blend.c,
 * src/skeleton/local_to_model.c, src/skin/lbs.c and dqs.c) operation for
 * operation; nvcc contracts some
 * multiply-adds, so results agree to rounding (tests/test_cuda.c: 1e-5
 * relative), not bit for bit. */
#include "sinew/sinew_gpu.h"

#include "../gpu_internal.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* from libsinew (src/base/base_internal.h) */
extern "C" sinew_result sinew__fail(sinew_error *err, sinew_result code, const char *fmt, ...);

static void ok(sinew_error *err)
{
    if (err) err->result = SINEW_OK, err->description[0] = '\0';
}

namespace {

enum {
    MAX_JOINTS = 1024,
    WARPS_PER_BLOCK = 4,
    DQ_FLOATS = 20,
    SKIN_THREADS = 256,
    SKIN_WARPS = SKIN_THREADS / 32,
    SKIN_BATCH = 8,          /* instances an item (a block) skins at most */
    STAGE_FLOATS = 192,      /* a warp's staging of 32 positions and 32 normals */
    PALETTE_BUDGET = 32768,  /* bytes of shared memory for an item's palettes */
};

/* A track, read as two 16-byte loads. The key a time falls in is guessed
 * as if the keys were evenly spaced, guess(t) = (t - start) * rate clamped
 * to 0 .. keys - 2 and truncated, and searched for only within `window`
 * of the guess: a guess falls short of the key by at most `window & 0xffff`
 * and overshoots it by at most `window >> 16` (0xffffffff: the whole
 * track), bounds the host works out from the key times with the same float
 * operations (key_window()). A baked clip's evenly spaced keys have window
 * 0: no search at all. */
struct __align__(16) dev_track {
    int interp;       /* sinew_interpolation */
    int keys;         /* 0: no track, the rest pose (or identity) stands */
    int times;        /* offset in the pool */
    int values;       /* offset in the pool */
    float start, end; /* the first and last key times */
    float rate;       /* (keys - 1) / (end - start), 0 for one key */
    unsigned window;
};

__host__ __device__ inline int key_guess(float t, float start, float rate, int keys)
{
    return (int)fmaxf(0.0f, fminf((t - start) * rate, (float)(keys - 2)));
}

struct dev_clip {
    float duration;
    int additive;
    int tracks; /* offset of 3 * joint_count dev_tracks: translations, rotations, scales, each by joint */
};

/* One character on the device: every pointer is device memory. */
struct dev_character {
    int joints, skin_joints, vertices, influences, index_type, weight_type, levels, clip_count;
    const short *parents;
    const float *rest;       /* 10 per joint: t, q, s */
    const short *order;      /* joints by depth */
    const int *level_start;  /* levels + 1 */
    const dev_clip *clips;
    const dev_track *tracks;
    const float *pool;
    const short *skin_joint;
    const float *inverse_bind; /* 16 per skin joint */
    const float *positions, *normals;
    const void *indices, *weights;
};

struct skin_item {
    int character, first, count; /* instances sorted[first .. first + count) */
};

struct frame_params {
    const dev_character *chars;
    const sinew_cuda_instance *inst;
    const long long *vertex_offset; /* per instance */
    const int *palette_offset;      /* per instance, in palette slots */
    float *palette;                 /* 12 floats a slot */
    float *dq;                      /* DQ_FLOATS a slot */
    int count;
    unsigned flags;
    int dqs, normals, fast_normals;
    const skin_item *items;
    const int *sorted;
    int blocks_per_item;
    int chunk; /* vertices a skin block covers, a multiple of 32 */
    int joint_stride; /* shared floats per warp / 12: the most joints of a character */
    float *out_pos, *out_nrm;
};

/* ---- sampling ---------------------------------------------------------------- */

__device__ float clip_time(float d, float time, unsigned flags)
{
    if (!(flags & SINEW_SAMPLE_LOOP)) return time < 0.0f ? 0.0f : (time > d ? d : time);
    if (!(d > 0.0f)) return 0.0f;
    float t = fmodf(time, d);
    if (t < 0.0f) t += d;
    return t >= d ? 0.0f : t;
}

__device__ __forceinline__ void q_normalize(float *q)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int i = 0; i < 4; ++i) q[i] *= inv;
}

__device__ __forceinline__ void nlerp(const float *a, const float *b, float t, float *out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float ta = 1.0f - t, tb = t * (d < 0.0f ? -1.0f : 1.0f);
    for (int i = 0; i < 4; ++i) out[i] = a[i] * ta + b[i] * tb;
    q_normalize(out);
}

__device__ __forceinline__ void slerp(const float *a, const float *b_in, float t, float *out)
{
    float b[4] = {b_in[0], b_in[1], b_in[2], b_in[3]};
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0.0f) {
        d = -d;
        for (int i = 0; i < 4; ++i) b[i] = -b[i];
    }
    if (t == 0.0f) {
        for (int i = 0; i < 4; ++i) out[i] = a[i];
        return;
    }
    if (d > 0.9995f) {
        nlerp(a, b, t, out);
        return;
    }
    float theta = acosf(d);
    float inv_sin = 1.0f / sinf(theta);
    float wa = sinf((1.0f - t) * theta) * inv_sin, wb = sinf(t * theta) * inv_sin;
    for (int i = 0; i < 4; ++i) out[i] = a[i] * wa + b[i] * wb;
}

/* The first c components of a key value. */
template <int c> __device__ __forceinline__ void put(float4 v, float *out)
{
    out[0] = v.x, out[1] = v.y, out[2] = v.z;
    if (c == 4) out[3] = v.w;
}

/* sinew_track_sample for a translation, rotation or scale track (c = 3 or
 * 4 components). On the device every key value (and CUBICSPLINE tangent)
 * is a float4, the fourth of a vector unused: one 16-byte load each. */
template <int c, bool rotation>
__device__ __forceinline__ void sample_track(const dev_track &tr, const float *pool, float t, unsigned flags, float *out)
{
    const float *times = pool + tr.times;
    const float4 *v = (const float4 *)(pool + tr.values);
    const int n = tr.keys;
    const bool cubic = tr.interp == SINEW_INTERP_CUBICSPLINE;
    const int stride = cubic ? 3 : 1, value_at = cubic ? 1 : 0;
    if (n == 1 || t <= tr.start) {
        put<c>(__ldg(v + value_at), out);
        return;
    }
    if (t >= tr.end) {
        put<c>(__ldg(v + (size_t)(n - 1) * stride + value_at), out);
        return;
    }
    /* the last key at or before t (the CPU's binary search finds the same):
     * guessed, then searched for within the track's window of the guess */
    int lo = key_guess(t, tr.start, tr.rate, n);
    if (tr.window) {
        int hi = n - 2;
        if (tr.window != 0xffffffffu) {
            hi = min(lo + (int)(tr.window & 0xffffu), n - 2);
            lo = max(lo - (int)(tr.window >> 16), 0);
        } else {
            lo = 0;
        }
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (__ldg(times + mid) <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
    }
    const float t0 = __ldg(times + lo), td = __ldg(times + lo + 1) - t0;
    const float4 *ka = v + (size_t)lo * stride, *kb = ka + stride;
    float a[4], b[4];
    if (t == t0) {
        put<c>(__ldg(ka + value_at), out);
        return;
    }
    float s = (t - t0) / td;
    if (tr.interp == SINEW_INTERP_STEP) {
        put<c>(__ldg(ka), out);
    } else if (tr.interp == SINEW_INTERP_LINEAR) {
        put<c>(__ldg(ka), a), put<c>(__ldg(kb), b);
        if (rotation) {
            if (flags & SINEW_SAMPLE_NLERP)
                nlerp(a, b, s, out);
            else
                slerp(a, b, s, out);
        } else {
            for (int i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * s;
        }
    } else {
        float a_out[4], b_in[4];
        put<c>(__ldg(ka + 1), a), put<c>(__ldg(ka + 2), a_out), put<c>(__ldg(kb), b_in), put<c>(__ldg(kb + 1), b);
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f, h10 = (s3 - 2.0f * s2 + s) * td;
        float h01 = -2.0f * s3 + 3.0f * s2, h11 = (s3 - s2) * td;
        for (int i = 0; i < c; ++i) out[i] = h00 * a[i] + h10 * a_out[i] + h01 * b[i] + h11 * b_in[i];
        if (rotation) q_normalize(out);
    }
}

/* Joint j of clip k at clip time t: t, q, s (10 floats). */
__device__ __forceinline__ void sample_joint(const dev_character &ch, int k, int j, float t, unsigned flags, float *trs)
{
    const dev_clip &clip = ch.clips[k];
    if (clip.additive) {
        const float none[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
        for (int i = 0; i < 10; ++i) trs[i] = none[i];
    } else {
        for (int i = 0; i < 10; ++i) trs[i] = ch.rest[10 * j + i];
    }
    /* the tracks by kind, then joint: side by side across the warp's lanes */
    dev_track tr[3];
    for (int x = 0; x < 3; ++x) {
        const int4 *q = (const int4 *)(ch.tracks + clip.tracks + x * ch.joints + j);
        int4 h = __ldg(q), g = __ldg(q + 1);
        tr[x] = dev_track{h.x, h.y, h.z, h.w, __int_as_float(g.x), __int_as_float(g.y), __int_as_float(g.z),
                          (unsigned)g.w};
    }
    if (tr[0].keys) sample_track<3, false>(tr[0], ch.pool, t, flags, trs);
    if (tr[1].keys) sample_track<4, true>(tr[1], ch.pool, t, flags, trs + 3);
    if (tr[2].keys) sample_track<3, false>(tr[2], ch.pool, t, flags, trs + 7);
}

/* sinew_blend of two layers (weights wa, wb) with the default threshold:
 * the rest pose tops up a total under it. */
__device__ __forceinline__ void blend2(const float *a, float wa, const float *b, float wb, const float *rest,
                                      float *out)
{
    const float threshold = 0.1f;
    float total = 0.0f, acc[10] = {0};
    int contributors = 0, only = 2;
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        const float *p = i == 0 ? a : i == 1 ? b : rest;
        float w = i == 0 ? wa : i == 1 ? wb : threshold - total;
        if (!(w > 0.0f)) continue;
        total += w;
        ++contributors;
        only = i;
        for (int x = 0; x < 3; ++x) acc[x] += w * p[x], acc[7 + x] += w * p[7 + x];
        /* blend.c's side test exactly, its products and sums kept apart
         * (a dot product near 0 picks a side) */
        float dot = __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(p[3], rest[3]), __fmul_rn(p[4], rest[4])),
                                        __fmul_rn(p[5], rest[5])),
                              __fmul_rn(p[6], rest[6]));
        float wq = signbit(dot) ? -w : w;
        for (int x = 0; x < 4; ++x) acc[3 + x] += wq * p[3 + x];
    }
    if (contributors == 1) {
        for (int i = 0; i < 10; ++i) out[i] = only == 0 ? a[i] : only == 1 ? b[i] : rest[i];
        return;
    }
    float inv = 1.0f / total;
    for (int x = 0; x < 3; ++x) out[x] = acc[x] * inv, out[7 + x] = acc[7 + x] * inv;
    for (int x = 0; x < 4; ++x) out[3 + x] = acc[3 + x];
    q_normalize(out + 3);
}

/* sinew__mat4_from_trs as a 3x4 (columns x, y, z, translation). */
__device__ __forceinline__ void trs_matrix(const float *trs, float *m)
{
    float qx = trs[3], qy = trs[4], qz = trs[5], qw = trs[6];
    float x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
    float xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2;
    float wx = qw * x2, wy = qw * y2, wz = qw * z2;
    float sx = trs[7], sy = trs[8], sz = trs[9];
    m[0] = (1.0f - (yy + zz)) * sx, m[1] = (xy + wz) * sx, m[2] = (xz - wy) * sx;
    m[3] = (xy - wz) * sy, m[4] = (1.0f - (xx + zz)) * sy, m[5] = (yz + wx) * sy;
    m[6] = (xz + wy) * sz, m[7] = (yz - wx) * sz, m[8] = (1.0f - (xx + yy)) * sz;
    m[9] = trs[0], m[10] = trs[1], m[11] = trs[2];
}

/* a * b for 3x4 affine matrices (the last rows 0 0 0 1); out may be b. */
__device__ __forceinline__ void mul_affine(const float *a, const float *b, float *out)
{
    float r[12];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 3; ++row) {
            float v = a[row] * b[3 * c] + a[3 + row] * b[3 * c + 1] + a[6 + row] * b[3 * c + 2];
            r[3 * c + row] = c == 3 ? v + a[9 + row] : v;
        }
    for (int i = 0; i < 12; ++i) out[i] = r[i];
}

/* The dual quaternion of palette matrix m (sinew_dq_palette): real, dual,
 * stretch (9, column-major), into d[0..16]. */
__device__ void dq_from_matrix(const float *m, float *d)
{
    float c0[3] = {m[0], m[1], m[2]}, c1[3] = {m[3], m[4], m[5]}, c2[3] = {m[6], m[7], m[8]};
    float x[3], y[3], z[3];
    float l = c0[0] * c0[0] + c0[1] * c0[1] + c0[2] * c0[2];
    float inv = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
    for (int i = 0; i < 3; ++i) x[i] = l > 0.0f ? c0[i] * inv : 0.0f;
    float xc1 = x[0] * c1[0] + x[1] * c1[1] + x[2] * c1[2];
    for (int i = 0; i < 3; ++i) y[i] = c1[i] - x[i] * xc1;
    l = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
    inv = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
    for (int i = 0; i < 3; ++i) y[i] = l > 0.0f ? y[i] * inv : 0.0f;
    z[0] = x[1] * y[2] - x[2] * y[1], z[1] = x[2] * y[0] - x[0] * y[2], z[2] = x[0] * y[1] - x[1] * y[0];
    float zc2 = z[0] * c2[0] + z[1] * c2[1] + z[2] * c2[2];
    float xx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2], yy = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
    if (xx == 0.0f || yy == 0.0f || !isfinite(zc2) || zc2 == 0.0f) {
        const float id[17] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        for (int i = 0; i < 17; ++i) d[i] = id[i];
        return;
    }
    const float *cols[3] = {c0, c1, c2};
    for (int c = 0; c < 3; ++c) {
        d[8 + 3 * c + 0] = x[0] * cols[c][0] + x[1] * cols[c][1] + x[2] * cols[c][2];
        d[8 + 3 * c + 1] = y[0] * cols[c][0] + y[1] * cols[c][1] + y[2] * cols[c][2];
        d[8 + 3 * c + 2] = z[0] * cols[c][0] + z[1] * cols[c][1] + z[2] * cols[c][2];
    }
    /* sinew_quat_from_mat3 of the rotation (columns x, y, z) */
    float m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1], m22 = z[2];
    float trace = m00 + m11 + m22, q[4];
    if (trace > 0.0f) {
        float s = sqrtf(trace + 1.0f) * 2.0f;
        q[0] = (m21 - m12) / s, q[1] = (m02 - m20) / s, q[2] = (m10 - m01) / s, q[3] = 0.25f * s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
        q[0] = 0.25f * s, q[1] = (m01 + m10) / s, q[2] = (m02 + m20) / s, q[3] = (m21 - m12) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
        q[0] = (m01 + m10) / s, q[1] = 0.25f * s, q[2] = (m12 + m21) / s, q[3] = (m02 - m20) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
        q[0] = (m02 + m20) / s, q[1] = (m12 + m21) / s, q[2] = 0.25f * s, q[3] = (m10 - m01) / s;
    }
    q_normalize(q);
    for (int i = 0; i < 4; ++i) d[i] = q[i];
    /* dual = 1/2 (t, 0) * real */
    float tx = m[9], ty = m[10], tz = m[11];
    d[4] = 0.5f * (tx * q[3] + ty * q[2] - tz * q[1]);
    d[5] = 0.5f * (-tx * q[2] + ty * q[3] + tz * q[0]);
    d[6] = 0.5f * (tx * q[1] - ty * q[0] + tz * q[3]);
    d[7] = 0.5f * (-tx * q[0] - ty * q[1] - tz * q[2]);
}

__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, 8) pose_kernel(frame_params p)
{
    extern __shared__ float shared[];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int i = blockIdx.x * WARPS_PER_BLOCK + warp;
    if (i >= p.count) return;
    const sinew_cuda_instance in = p.inst[i];
    const dev_character &ch = p.chars[in.character];
    float *m = shared + (size_t)warp * p.joint_stride * 12;
    int k0 = in.clips[0], k1 = in.clips[1];
    float w = k1 >= 0 ? in.weight : 0.0f;
    float t0 = clip_time(ch.clips[k0].duration, in.times[0], p.flags);
    float t1 = k1 >= 0 ? clip_time(ch.clips[k1].duration, in.times[1], p.flags) : 0.0f;
    for (int j = lane; j < ch.joints; j += 32) {
        float a[10], b[10], local[10];
        sample_joint(ch, k0, j, t0, p.flags, a);
        if (k1 >= 0) sample_joint(ch, k1, j, t1, p.flags, b);
        blend2(a, 1.0f - w, b, w, ch.rest + 10 * j, local);
        trs_matrix(local, m + 12 * j);
    }
    __syncwarp();
    for (int level = 1; level < ch.levels; ++level) {
        for (int x = ch.level_start[level] + lane; x < ch.level_start[level + 1]; x += 32) {
            int j = ch.order[x];
            mul_affine(m + 12 * ch.parents[j], m + 12 * j, m + 12 * j);
        }
        __syncwarp();
    }
    /* the palette, 32 joints at a time through the warp's staging area, so
     * that it leaves as whole 16-byte stores side by side */
    float4 *pal = (float4 *)(p.palette + (size_t)p.palette_offset[i] * 12);
    float4 *dq = (float4 *)(p.dq + (size_t)p.palette_offset[i] * DQ_FLOATS);
    float *stage = shared + (size_t)WARPS_PER_BLOCK * p.joint_stride * 12 + warp * 32 * DQ_FLOATS;
    for (int base = 0; base < ch.skin_joints; base += 32) {
        const int k = base + lane, count = min(32, ch.skin_joints - base);
        float r[12];
        if (k < ch.skin_joints) {
            const float *a = m + 12 * ch.skin_joint[k];
            const float4 *ib = (const float4 *)(ch.inverse_bind + 16 * k);
            for (int c = 0; c < 4; ++c) {
                float4 b = __ldg(ib + c);
                for (int row = 0; row < 3; ++row)
                    r[3 * c + row] = a[row] * b.x + a[3 + row] * b.y + a[6 + row] * b.z + a[9 + row] * b.w;
            }
            for (int x = 0; x < 12; ++x) stage[12 * lane + x] = r[x];
        }
        __syncwarp();
        for (int e = lane; e < 3 * count; e += 32) pal[3 * base + e] = ((const float4 *)stage)[e];
        __syncwarp();
        if (p.dqs) {
            if (k < ch.skin_joints) {
                float d[DQ_FLOATS] = {0};
                dq_from_matrix(r, d);
                for (int x = 0; x < DQ_FLOATS; ++x) stage[DQ_FLOATS * lane + x] = d[x];
            }
            __syncwarp();
            for (int e = lane; e < (DQ_FLOATS / 4) * count; e += 32)
                dq[(DQ_FLOATS / 4) * base + e] = ((const float4 *)stage)[e];
            __syncwarp();
        }
    }
}

/* ---- skinning ---------------------------------------------------------------- */

/* Vertex v's influences: indices and weights as floats (the CPU's
 * conversions). On the device every vertex has 4 or 8 (the skin's count
 * rounded up), its nonzero weights first: see compact_influences(). */
__device__ __forceinline__ void fetch(const dev_character &ch, int v, int *idx, float *w)
{
    const int n = ch.influences;
    const size_t base = (size_t)v * n; /* a multiple of 4 entries: aligned vector loads */
#pragma unroll
    for (int x = 0; x < SINEW_MAX_INFLUENCES; x += 4) {
        if (x >= n) break;
        if (ch.index_type == SINEW_INDEX_U8) {
            unsigned u = __ldg((const unsigned *)((const unsigned char *)ch.indices + base + x));
            idx[x] = u & 0xff, idx[x + 1] = (u >> 8) & 0xff, idx[x + 2] = (u >> 16) & 0xff, idx[x + 3] = u >> 24;
        } else {
            uint2 u = __ldg((const uint2 *)((const unsigned short *)ch.indices + base + x));
            idx[x] = u.x & 0xffff, idx[x + 1] = u.x >> 16, idx[x + 2] = u.y & 0xffff, idx[x + 3] = u.y >> 16;
        }
        if (ch.weight_type == SINEW_WEIGHT_F32) {
            float4 f = __ldg((const float4 *)((const float *)ch.weights + base + x));
            w[x] = f.x, w[x + 1] = f.y, w[x + 2] = f.z, w[x + 3] = f.w;
        } else if (ch.weight_type == SINEW_WEIGHT_UNORM16) {
            uint2 u = __ldg((const uint2 *)((const unsigned short *)ch.weights + base + x));
            const unsigned q[4] = {u.x & 0xffff, u.x >> 16, u.y & 0xffff, u.y >> 16};
            for (int y = 0; y < 4; ++y) w[x + y] = (float)q[y] * (1.0f / 65535.0f);
        } else {
            unsigned u = __ldg((const unsigned *)((const unsigned char *)ch.weights + base + x));
            for (int y = 0; y < 4; ++y) w[x + y] = (float)((u >> (8 * y)) & 0xff) * (1.0f / 255.0f);
        }
    }
}

/* Whether any lane of the warp has a nonzero weight in slot x: the
 * influences are compacted, so past the first slot where none has, no lane
 * has one further on. Every lane of the warp calls it (the branch on it is
 * uniform: no divergence). */
__device__ __forceinline__ bool slot_used(int x, int n, const float *w)
{
    return __any_sync(0xffffffffu, x < n && w[x] != 0.0f);
}

__device__ __forceinline__ void store_normal(float *o, float x, float y, float z)
{
    float len2 = x * x + y * y + z * z;
    float inv = len2 > 0.0f ? rsqrtf(len2) : 0.0f; /* 2 ulp: far inside the 1e-5 */
    o[0] = x * inv, o[1] = y * inv, o[2] = z * inv;
}

/* cofactor(a) n, negated where det(a) < 0 (sinew__mat3_transform_normal). */
__device__ void transform_normal(const float *a, const float *n, float *r)
{
    float c[9];
    c[0] = a[4] * a[8] - a[5] * a[7], c[1] = a[5] * a[6] - a[3] * a[8], c[2] = a[3] * a[7] - a[4] * a[6];
    c[3] = a[7] * a[2] - a[8] * a[1], c[4] = a[8] * a[0] - a[6] * a[2], c[5] = a[6] * a[1] - a[7] * a[0];
    c[6] = a[1] * a[5] - a[2] * a[4], c[7] = a[2] * a[3] - a[0] * a[5], c[8] = a[0] * a[4] - a[1] * a[3];
    float det = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    float sign = det < 0.0f ? -1.0f : 1.0f;
    for (int row = 0; row < 3; ++row) r[row] = sign * (c[row] * n[0] + c[3 + row] * n[1] + c[6 + row] * n[2]);
}

/* LBS of one vertex by a palette of 3 float4 a joint (sinew_skin_lbs): the
 * first slot always (a zero weight there adds nothing, its index is a real
 * joint's), the others while a lane of the warp uses them. */
__device__ __forceinline__ void skin_lbs(const float4 *pal, int n, const int *idx, const float *w, const float *pos,
                                         const float *nrm, bool normals, bool fast, float *po, float *no)
{
    float m[12];
#pragma unroll
    for (int x = 0; x < SINEW_MAX_INFLUENCES; ++x) {
        if (x > 0 && !slot_used(x, n, w)) break;
        const float4 *q = pal + 3 * idx[x];
        float4 q0 = q[0], q1 = q[1], q2 = q[2];
        const float e[12] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, q2.x, q2.y, q2.z, q2.w};
        for (int y = 0; y < 12; ++y) m[y] = x == 0 ? w[x] * e[y] : m[y] + w[x] * e[y];
    }
    for (int row = 0; row < 3; ++row)
        po[row] = m[row] * pos[0] + m[3 + row] * pos[1] + m[6 + row] * pos[2] + m[9 + row];
    if (normals) {
        float r[3];
        if (fast)
            for (int row = 0; row < 3; ++row) r[row] = m[row] * nrm[0] + m[3 + row] * nrm[1] + m[6 + row] * nrm[2];
        else
            transform_normal(m, nrm, r);
        store_normal(no, r[0], r[1], r[2]);
    }
}

/* DQS of one vertex by a palette of DQ_FLOATS / 4 float4 a joint: real,
 * dual, stretch (sinew_skin_dqs). */
__device__ __forceinline__ void skin_dqs(const float4 *pal, int n, const int *idx, const float *w, const float *pos,
                                         const float *nrm, bool normals, float *po, float *no)
{
    /* the first slot's real part picks the hemisphere (compacted: the first
     * nonzero weight's, as the CPU picks) */
    const float4 first = pal[(DQ_FLOATS / 4) * idx[0]];
    float br[4] = {0}, bd[4] = {0}, S[9] = {0};
#pragma unroll
    for (int x = 0; x < SINEW_MAX_INFLUENCES; ++x) {
        if (x > 0 && !slot_used(x, n, w)) break;
        const float4 *q = pal + (DQ_FLOATS / 4) * idx[x];
        float4 q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3], q4 = q[4];
        const float d[17] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, q2.x,
                             q2.y, q2.z, q2.w, q3.x, q3.y, q3.z, q3.w, q4.x};
        float dot = first.x * d[0] + first.y * d[1] + first.z * d[2] + first.w * d[3];
        float wi = dot < 0.0f ? -w[x] : w[x];
        for (int y = 0; y < 4; ++y) br[y] += wi * d[y], bd[y] += wi * d[4 + y];
        for (int y = 0; y < 9; ++y) S[y] += w[x] * d[8 + y];
    }
    float len2 = br[0] * br[0] + br[1] * br[1] + br[2] * br[2] + br[3] * br[3];
    float inv = len2 > 0.0f ? rsqrtf(len2) : 0.0f;
    float r[4], d[4];
    for (int y = 0; y < 4; ++y) r[y] = br[y] * inv, d[y] = bd[y] * inv;
    /* translation = 2 (d.xyz r.w - r.xyz d.w + r.xyz x d.xyz) */
    float t[3] = {2.0f * (d[0] * r[3] - r[0] * d[3] + (r[1] * d[2] - r[2] * d[1])),
                  2.0f * (d[1] * r[3] - r[1] * d[3] + (r[2] * d[0] - r[0] * d[2])),
                  2.0f * (d[2] * r[3] - r[2] * d[3] + (r[0] * d[1] - r[1] * d[0]))};
    float q[3];
    for (int row = 0; row < 3; ++row) q[row] = S[row] * pos[0] + S[3 + row] * pos[1] + S[6 + row] * pos[2];
    /* v + 2 w (u x v) + u x (2 u x v) */
    float u[3] = {r[0], r[1], r[2]};
    float c[3] = {2.0f * (u[1] * q[2] - u[2] * q[1]), 2.0f * (u[2] * q[0] - u[0] * q[2]),
                  2.0f * (u[0] * q[1] - u[1] * q[0])};
    for (int row = 0; row < 3; ++row) {
        int a1 = (row + 1) % 3, a2 = (row + 2) % 3;
        po[row] = q[row] + c[row] * r[3] + (u[a1] * c[a2] - u[a2] * c[a1]) + t[row];
    }
    if (normals) {
        float nv[3];
        transform_normal(S, nrm, nv);
        float c2[3] = {2.0f * (u[1] * nv[2] - u[2] * nv[1]), 2.0f * (u[2] * nv[0] - u[0] * nv[2]),
                       2.0f * (u[0] * nv[1] - u[1] * nv[0])};
        float o[3];
        for (int row = 0; row < 3; ++row) {
            int a1 = (row + 1) % 3, a2 = (row + 2) % 3;
            o[row] = nv[row] + c2[row] * r[3] + (u[a1] * c2[a2] - u[a2] * c2[a1]);
        }
        store_normal(no, o[0], o[1], o[2]);
    }
}

/* One block: a work item's instances (one character, up to SKIN_BATCH of
 * its instances) over p.chunk of its vertices. The instances' palettes are
 * copied to shared memory first (an influence then reads shared memory,
 * not a gather from L1), then each warp takes 32 vertices at a time: their
 * inputs are read once and skinned for every instance. Float outputs go
 * through the warp's staging area so that 32 vertices leave as 24 aligned
 * 16-byte stores (a warp barrier, no block barrier); compact ones are 8 and
 * 4 bytes a vertex, stored as they are. */
template <bool DQS, bool COMPACT>
__global__ void __launch_bounds__(SKIN_THREADS) skin_kernel(frame_params p)
{
    extern __shared__ float4 smem[];
    __shared__ size_t first_vertex[SKIN_BATCH]; /* each instance's first output vertex */
    constexpr int SLOT4 = DQS ? DQ_FLOATS / 4 : 3;
    const skin_item it = p.items[blockIdx.x / p.blocks_per_item];
    const dev_character &ch = p.chars[it.character];
    const int v0 = (int)(blockIdx.x % p.blocks_per_item) * p.chunk;
    if (v0 >= ch.vertices) return; /* the whole block: a smaller character than the frame's largest */
    const int v1 = min(v0 + p.chunk, ch.vertices);
    const int per = ch.skin_joints * SLOT4;
    float4 *pals = smem + SKIN_WARPS * STAGE_FLOATS / 4;
    for (int b = 0; b < it.count; ++b) {
        const int i = p.sorted[it.first + b];
        const float4 *src = DQS ? (const float4 *)(p.dq + (size_t)p.palette_offset[i] * DQ_FLOATS)
                                : (const float4 *)(p.palette + (size_t)p.palette_offset[i] * 12);
        for (int e = threadIdx.x; e < per; e += SKIN_THREADS) pals[b * per + e] = src[e];
        if (threadIdx.x == 0) first_vertex[b] = (size_t)p.vertex_offset[i];
    }
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *stage = (float *)smem + warp * STAGE_FLOATS;
    for (int vb = v0 + warp * 32; vb < v1; vb += SKIN_THREADS) {
        const int v = vb + lane;
        const bool live = v < v1;
        /* lanes past the end skin a vertex of no weight (joint 0): every lane
         * takes part in the warp votes of slot_used() */
        int idx[SINEW_MAX_INFLUENCES] = {0};
        float w[SINEW_MAX_INFLUENCES] = {0};
        float pos[3] = {0, 0, 0}, nrm[3] = {0, 0, 0};
        const int n = ch.influences;
        if (live) {
            fetch(ch, v, idx, w);
            for (int x = 0; x < 3; ++x) pos[x] = __ldg(ch.positions + 3 * (size_t)v + x);
            if (p.normals)
                for (int x = 0; x < 3; ++x) nrm[x] = __ldg(ch.normals + 3 * (size_t)v + x);
        }
        for (int b = 0; b < it.count; ++b) {
            float po[3], no[3] = {0, 0, 0};
            if (DQS)
                skin_dqs(pals + b * per, n, idx, w, pos, nrm, p.normals, po, no);
            else
                skin_lbs(pals + b * per, n, idx, w, pos, nrm, p.normals, p.fast_normals, po, no);
            const size_t o = first_vertex[b] + (size_t)vb; /* the output vertex of this warp's first */
            if (COMPACT) {
                if (live) {
                    uint2 h;
                    h.x = (unsigned)__half_as_ushort(__float2half_rn(po[0])) |
                          (unsigned)__half_as_ushort(__float2half_rn(po[1])) << 16;
                    h.y = (unsigned)__half_as_ushort(__float2half_rn(po[2])) | 0x3c00u << 16; /* w = 1 */
                    ((uint2 *)p.out_pos)[o + lane] = h;
                    if (p.normals) ((unsigned *)p.out_nrm)[o + lane] = sinew__octahedral(no);
                }
            } else {
                for (int x = 0; x < 3; ++x) stage[3 * lane + x] = po[x], stage[96 + 3 * lane + x] = no[x];
                __syncwarp();
                /* whole float4s: the last run rounds up to 4 vertices, into the instance's padding */
                const int floats = 3 * ((min(32, v1 - vb) + 3) & ~3);
                if (4 * lane < floats) {
                    ((float4 *)(p.out_pos + 3 * o))[lane] = ((const float4 *)stage)[lane];
                    if (p.normals) ((float4 *)(p.out_nrm + 3 * o))[lane] = ((const float4 *)(stage + 96))[lane];
                }
                __syncwarp();
            }
        }
    }
}

} // namespace

/* ---- the host side ------------------------------------------------------------ */

struct host_character {
    dev_character dev; /* its counts are read on the host too; its pointers are device memory */
    void *memory;      /* one device allocation holding every array */
};

struct sinew_cuda_crowd {
    int device;
    host_character *chars;
    int char_count, char_capacity;
    dev_character *dev_chars; /* device copy of the dev parts */
    int dev_chars_capacity;
    /* per frame, grown as needed */
    void *frame_mem;   /* instances, offsets, items, sorted (device) */
    size_t frame_bytes;
    void *host_mem;    /* pinned staging of the same layout */
    float *palette, *dq;
    size_t palette_slots;
    float *out_pos, *out_nrm;
    size_t out_vertices;
    long long *vertex_offset_host; /* per instance of the last frame */
    int *palette_offset_host, *character_host;
    int offsets_count, offsets_capacity;
    int sms;                       /* the device's multiprocessors */
    int pose_shared, skin_shared;  /* the most dynamic shared memory a block of each kernel may ask for */
    bool last_normals;
    sinew_cuda_format last_format;
    cudaEvent_t ev[4];
    sinew_cuda_timing timing;
};

/* A failed CUDA call as an error: `who` (the public function) and the call. */
static sinew_result cuda_fail(sinew_error *err, cudaError_t e, const char *who, const char *call)
{
    return sinew__fail(err, SINEW_ERROR_GPU, "%s: CUDA: %s: %s (%s)", who, call, cudaGetErrorString(e),
                       cudaGetErrorName(e));
}

/* Returns from the calling function with its error when a CUDA call fails;
 * the function names itself in `who`. */
#define CU(call)                                                      \
    do {                                                              \
        cudaError_t e_ = (call);                                      \
        if (e_ != cudaSuccess) return cuda_fail(err, e_, who, #call); \
    } while (0)

extern "C" SINEW_API bool sinew_cuda_available(sinew_error *err)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cuda_fail(err, e, "sinew_cuda_available", "cudaGetDeviceCount");
        return false;
    }
    if (n == 0) {
        sinew__fail(err, SINEW_ERROR_GPU, "sinew_cuda_available: CUDA: no device");
        return false;
    }
    ok(err);
    return true;
}

/* Lets `kernel` take all the shared memory a block may have, its static
 * part aside; *most (lowered to) the dynamic part it may then ask for. */
template <typename Kernel> static cudaError_t allow_shared(Kernel kernel, int optin, int *most)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, kernel);
    if (e != cudaSuccess) return e;
    int dynamic = optin - (int)a.sharedSizeBytes;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic);
    if (e == cudaSuccess && dynamic < *most) *most = dynamic;
    return e;
}

static sinew_result crowd_create(int device, sinew_cuda_crowd **out, sinew_error *err)
{
    static const char who[] = "sinew_cuda_crowd_create";
    *out = NULL;
    sinew_error why = {SINEW_OK, ""};
    if (!sinew_cuda_available(&why)) /* its reason, under this function's name */
        return sinew__fail(err, why.result, "%s: %s", who, why.description + strlen("sinew_cuda_available: "));
    CU(cudaSetDevice(device));
    sinew_cuda_crowd *c = (sinew_cuda_crowd *)calloc(1, sizeof *c);
    if (!c) return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_crowd_create: out of memory");
    c->device = device;
    /* every kernel may take the device's most shared memory a block (each launch asks for what it needs) */
    int optin = 0;
    cudaError_t e = cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    c->pose_shared = optin;
    if (e == cudaSuccess) e = allow_shared(pose_kernel, optin, &c->pose_shared);
    c->skin_shared = optin;
    if (e == cudaSuccess) e = allow_shared(skin_kernel<false, false>, optin, &c->skin_shared);
    if (e == cudaSuccess) e = allow_shared(skin_kernel<false, true>, optin, &c->skin_shared);
    if (e == cudaSuccess) e = allow_shared(skin_kernel<true, false>, optin, &c->skin_shared);
    if (e == cudaSuccess) e = allow_shared(skin_kernel<true, true>, optin, &c->skin_shared);
    if (e != cudaSuccess) {
        sinew_cuda_crowd_free(c);
        return cuda_fail(err, e, who, "cudaDeviceGetAttribute/cudaFuncSetAttribute");
    }
    for (int i = 0; i < 4; ++i) {
        cudaError_t e = cudaEventCreate(&c->ev[i]);
        if (e != cudaSuccess) {
            sinew_cuda_crowd_free(c);
            return cuda_fail(err, e, who, "cudaEventCreate");
        }
    }
    *out = c;
    ok(err);
    return SINEW_OK;
}

extern "C" SINEW_API sinew_cuda_crowd *sinew_cuda_crowd_create(int device, sinew_error *err)
{
    sinew_cuda_crowd *crowd;
    crowd_create(device, &crowd, err);
    return crowd;
}

extern "C" SINEW_API void sinew_cuda_crowd_free(sinew_cuda_crowd *c)
{
    if (!c) return;
    for (int i = 0; i < c->char_count; ++i) cudaFree(c->chars[i].memory);
    free(c->chars);
    cudaFree(c->dev_chars);
    cudaFree(c->frame_mem);
    cudaFreeHost(c->host_mem);
    cudaFree(c->palette), cudaFree(c->dq), cudaFree(c->out_pos), cudaFree(c->out_nrm);
    free(c->vertex_offset_host), free(c->palette_offset_host), free(c->character_host);
    for (int i = 0; i < 4; ++i)
        if (c->ev[i]) cudaEventDestroy(c->ev[i]);
    free(c);
}

/* A host buffer that mirrors one device allocation: arrays appended with
 * alignment, then copied up in one cudaMemcpy. */
struct packer {
    unsigned char *data;
    size_t size, capacity;
    bool failed;
};

static size_t pack(packer *p, const void *src, size_t bytes)
{
    size_t at = (p->size + 15) & ~(size_t)15;
    if (at + bytes > p->capacity) {
        size_t cap = p->capacity ? p->capacity : 4096;
        while (cap < at + bytes) cap *= 2;
        unsigned char *d = (unsigned char *)realloc(p->data, cap);
        if (!d) {
            p->failed = true;
            return 0;
        }
        p->data = d, p->capacity = cap;
    }
    if (src) memcpy(p->data + at, src, bytes);
    else memset(p->data + at, 0, bytes);
    p->size = at + bytes;
    return at;
}

/* dev_track.window for key times `times`: for each key interval
 * [times[i], times[i + 1]) the guesses of its times lie between
 * key_guess(times[i]) and the guess of the float just under times[i + 1]
 * (the guess never decreases as t grows), so those bound how far short of
 * i a guess falls and how far past it it goes. Over 65535 either way: the
 * whole track. */
static unsigned key_window(const float *times, int n, float start, float rate)
{
    int shortfall = 0, overshoot = 0;
    for (int i = 0; i + 1 < n; ++i) {
        if (!(times[i] < times[i + 1])) continue; /* no time falls in it */
        int g0 = key_guess(times[i], start, rate, n);
        int g1 = key_guess(nextafterf(times[i + 1], -INFINITY), start, rate, n);
        shortfall = i - g0 > shortfall ? i - g0 : shortfall;
        overshoot = g1 - i > overshoot ? g1 - i : overshoot;
    }
    if (shortfall > 0xffff || overshoot > 0xffff) return 0xffffffffu;
    return (unsigned)shortfall | (unsigned)overshoot << 16;
}

/* The skin's influences (isize and wsize bytes an index and a weight) as
 * the GPU reads them: 4 or 8 a vertex (the skin's
 * count rounded up: whole vector loads), each vertex's nonzero weights first
 * in their order, then weight 0 on the first one's joint (a real joint, so
 * that a zero weight adds nothing). The sums are the CPU's, which skips zero
 * weights; the user's skin is not changed. Both arrays are malloc'd. */
static bool compact_influences(const sinew_skin *skin, size_t isize, size_t wsize, int slots, void **indices,
                               void **weights)
{
    size_t nv = (size_t)skin->vertex_count, n = (size_t)skin->influence_count;
    unsigned char *ix = (unsigned char *)malloc(isize * (size_t)slots * (nv ? nv : 1));
    unsigned char *wx = (unsigned char *)calloc((size_t)slots * (nv ? nv : 1), wsize);
    *indices = ix, *weights = wx;
    if (!ix || !wx) return false;
    for (size_t v = 0; v < nv; ++v) {
        unsigned char si[2 * SINEW_MAX_INFLUENCES], sw[4 * SINEW_MAX_INFLUENCES];
        sinew_skin_vertex_stored(skin, (int)v, si, sw);
        size_t at = 0, first = 0;
        for (size_t x = 0; x < n; ++x) {
            const unsigned char *w = sw + wsize * x;
            bool zero;
            if (wsize == 4) {
                float f;
                memcpy(&f, w, sizeof f);
                zero = f == 0.0f;
            } else {
                zero = w[0] == 0 && (wsize == 1 || w[1] == 0);
            }
            if (zero) continue;
            if (at == 0) first = x;
            memcpy(ix + isize * (v * slots + at), si + isize * x, isize);
            memcpy(wx + wsize * (v * slots + at), w, wsize);
            ++at;
        }
        for (; at < (size_t)slots; ++at) /* weight 0 (calloc) on the first joint */
            memcpy(ix + isize * (v * slots + at), si + isize * first, isize);
    }
    return true;
}

extern "C" SINEW_API sinew_result sinew_cuda_character_add(sinew_cuda_crowd *c, const sinew_cuda_character_desc *d,
                                                           int *id, sinew_error *err)
{
    static const char who[] = "sinew_cuda_character_add";
    if (!c || !d || !d->skeleton || !d->mesh || !d->mesh->skin || (d->clip_count > 0 && !d->clips) ||
        d->clip_count < 1)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_cuda_character_add: a crowd, a skeleton, at least one clip and a skinned mesh");
    const sinew_skeleton *sk = d->skeleton;
    const sinew_mesh *mesh = d->mesh;
    const sinew_skin *skin = mesh->skin;
    int nj = sk->joint_count;
    if (nj > MAX_JOINTS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_character_add: %d joints, the GPU path takes %d",
                           nj, MAX_JOINTS);
    for (int k = 0; k < d->clip_count; ++k)
        if (!d->clips[k] || d->clips[k]->joint_count != nj)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_character_add: clip %d does not animate this skeleton of %d joints", k, nj);
    for (int k = 0; k < d->clip_count; ++k)
        if (d->clips[k]->packed || d->clips[k]->compressed)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_character_add: clip %d (\"%s\") is %s and holds no tracks to upload: give the "
                               "clip it was made from", k, d->clips[k]->name,
                               d->clips[k]->packed ? "packed (sinew_clip_pack)" : "compressed (sinew_clip_compress)");
    for (int k = 0; k < skin->joint_count; ++k)
        if (skin->joints[k] >= nj)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_character_add: skin joint %d uses joint %d, the skeleton has %d", k, skin->joints[k],
                               nj);

    /* depth order */
    short *order = (short *)malloc(sizeof(short) * (size_t)nj);
    int *depth = (int *)malloc(sizeof(int) * (size_t)nj);
    int *level_start = (int *)calloc((size_t)nj + 2, sizeof(int));
    float *rest = (float *)malloc(sizeof(float) * 10 * (size_t)nj);
    dev_track *tracks = (dev_track *)calloc((size_t)d->clip_count * 3 * (size_t)nj, sizeof(dev_track));
    dev_clip *clips = (dev_clip *)calloc((size_t)d->clip_count, sizeof(dev_clip));
    packer pool = {0}, mem = {0};
    void *slot_indices = NULL, *slot_weights = NULL;
    sinew_result r = SINEW_OK;
    if (!order || !depth || !level_start || !rest || !tracks || !clips) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_character_add: out of memory");
        goto done;
    }
    {
        int levels = 0;
        for (int j = 0; j < nj; ++j) {
            depth[j] = sk->parents[j] < 0 ? 0 : depth[sk->parents[j]] + 1;
            if (depth[j] + 1 > levels) levels = depth[j] + 1;
            level_start[depth[j] + 1]++;
            const sinew_transform *t = &sk->rest_pose[j];
            float v[10] = {t->translation.x, t->translation.y, t->translation.z, t->rotation.x, t->rotation.y,
                           t->rotation.z, t->rotation.w, t->scale.x, t->scale.y, t->scale.z};
            memcpy(rest + 10 * j, v, sizeof v);
        }
        for (int l = 0; l < levels; ++l) level_start[l + 1] += level_start[l];
        int *fill = (int *)malloc(sizeof(int) * (size_t)levels);
        if (!fill) {
            r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_character_add: out of memory");
            goto done;
        }
        memcpy(fill, level_start, sizeof(int) * (size_t)levels);
        for (int j = 0; j < nj; ++j) order[fill[depth[j]]++] = (short)j;
        free(fill);

        /* clips: the last translation, rotation and scale track of each joint, as the CPU applies them in order */
        for (int k = 0; k < d->clip_count; ++k) {
            const sinew_clip *clip = d->clips[k];
            clips[k].duration = clip->duration;
            clips[k].additive = clip->additive;
            clips[k].tracks = k * 3 * nj;
            for (int x = 0; x < clip->track_count; ++x) {
                const sinew_track *tr = &clip->tracks[x];
                if (tr->target == SINEW_TARGET_WEIGHTS) continue;
                int slot = tr->target == SINEW_TARGET_TRANSLATION ? 0 : tr->target == SINEW_TARGET_ROTATION ? 1 : 2;
                int comps = slot == 1 ? 4 : 3;
                size_t vectors = (size_t)tr->key_count * (tr->interpolation == SINEW_INTERP_CUBICSPLINE ? 3 : 1);
                dev_track *dt = &tracks[k * 3 * nj + slot * nj + tr->joint];
                dt->interp = tr->interpolation;
                dt->keys = tr->key_count;
                dt->times = (int)(pack(&pool, tr->times, sizeof(float) * (size_t)tr->key_count) / sizeof(float));
                /* every value a float4 (sample_track) */
                size_t at = pack(&pool, NULL, sizeof(float) * 4 * vectors);
                if (!pool.failed)
                    for (size_t e = 0; e < vectors; ++e)
                        memcpy(pool.data + at + sizeof(float) * 4 * e, tr->values + comps * e, sizeof(float) * comps);
                dt->values = (int)(at / sizeof(float));
                if (tr->key_count > 0) {
                    dt->start = tr->times[0], dt->end = tr->times[tr->key_count - 1];
                    double span = (double)dt->end - dt->start;
                    dt->rate = tr->key_count > 1 && span > 0.0 ? (float)((tr->key_count - 1) / span) : 0.0f;
                    dt->window = key_window(tr->times, tr->key_count, dt->start, dt->rate);
                }
            }
        }
        if (pool.size > (size_t)INT32_MAX) {
            r = sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_character_add: clips over 2 GB");
            goto done;
        }

        int nk = skin->joint_count, nv = skin->vertex_count;
        size_t isize = skin->index_type == SINEW_INDEX_U8 ? 1 : 2;
        size_t wsize = skin->weight_type == SINEW_WEIGHT_F32 ? 4 : skin->weight_type == SINEW_WEIGHT_UNORM8 ? 1 : 2;
        int slots = skin->influence_count <= 4 ? 4 : 8;
        static_assert(SINEW_MAX_INFLUENCES == 8, "influence slots: 4 or 8");
        size_t entries = (size_t)nv * (size_t)slots;
        if (!compact_influences(skin, isize, wsize, slots, &slot_indices, &slot_weights)) {
            r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_character_add: out of memory");
            goto done;
        }
        size_t o_par = pack(&mem, sk->parents, sizeof(short) * (size_t)nj);
        size_t o_rest = pack(&mem, rest, sizeof(float) * 10 * (size_t)nj);
        size_t o_order = pack(&mem, order, sizeof(short) * (size_t)nj);
        size_t o_levels = pack(&mem, level_start, sizeof(int) * ((size_t)levels + 1));
        size_t o_clips = pack(&mem, clips, sizeof(dev_clip) * (size_t)d->clip_count);
        size_t o_tracks = pack(&mem, tracks, sizeof(dev_track) * (size_t)d->clip_count * 3 * (size_t)nj);
        size_t o_pool = pack(&mem, pool.data, pool.size);
        size_t o_sj = pack(&mem, skin->joints, sizeof(short) * (size_t)nk);
        size_t o_ib = pack(&mem, skin->inverse_bind, sizeof(sinew_mat4) * (size_t)nk);
        size_t o_pos = pack(&mem, mesh->positions, sizeof(float) * 3 * (size_t)nv);
        size_t o_nrm = mesh->normals ? pack(&mem, mesh->normals, sizeof(float) * 3 * (size_t)nv) : 0;
        size_t o_idx = pack(&mem, slot_indices, isize * entries);
        size_t o_w = pack(&mem, slot_weights, wsize * entries);
        if (pool.failed || mem.failed) {
            r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_character_add: out of memory");
            goto done;
        }
        if (c->char_count == c->char_capacity) {
            int cap = c->char_capacity ? 2 * c->char_capacity : 8;
            host_character *hc = (host_character *)realloc(c->chars, sizeof *hc * (size_t)cap);
            if (!hc) {
                r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_character_add: out of memory");
                goto done;
            }
            c->chars = hc, c->char_capacity = cap;
        }
        unsigned char *dm = NULL;
        cudaError_t e = cudaMalloc(&dm, mem.size);
        if (e == cudaSuccess) e = cudaMemcpy(dm, mem.data, mem.size, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            cudaFree(dm);
            r = cuda_fail(err, e, who, "cudaMalloc/cudaMemcpy of a character");
            goto done;
        }
        host_character *h = &c->chars[c->char_count];
        memset(h, 0, sizeof *h);
        h->memory = dm;
        dev_character *dc = &h->dev;
        dc->joints = nj, dc->skin_joints = nk, dc->vertices = nv, dc->influences = slots;
        dc->index_type = skin->index_type, dc->weight_type = skin->weight_type, dc->levels = levels;
        dc->clip_count = d->clip_count;
        dc->parents = (const short *)(dm + o_par);
        dc->rest = (const float *)(dm + o_rest);
        dc->order = (const short *)(dm + o_order);
        dc->level_start = (const int *)(dm + o_levels);
        dc->clips = (const dev_clip *)(dm + o_clips);
        dc->tracks = (const dev_track *)(dm + o_tracks);
        dc->pool = (const float *)(dm + o_pool);
        dc->skin_joint = (const short *)(dm + o_sj);
        dc->inverse_bind = (const float *)(dm + o_ib);
        dc->positions = (const float *)(dm + o_pos);
        dc->normals = mesh->normals ? (const float *)(dm + o_nrm) : NULL;
        dc->indices = dm + o_idx;
        dc->weights = dm + o_w;
        c->char_count++;
        /* the device table of characters */
        if (c->char_count > c->dev_chars_capacity) {
            cudaFree(c->dev_chars);
            c->dev_chars = NULL;
            c->dev_chars_capacity = c->char_capacity;
            e = cudaMalloc(&c->dev_chars, sizeof(dev_character) * (size_t)c->dev_chars_capacity);
            if (e != cudaSuccess) {
                c->dev_chars_capacity = 0;
                c->char_count--;
                cudaFree(dm);
                r = cuda_fail(err, e, who, "cudaMalloc of the character table");
                goto done;
            }
            for (int x = 0; x < c->char_count && e == cudaSuccess; ++x)
                e = cudaMemcpy(c->dev_chars + x, &c->chars[x].dev, sizeof(dev_character), cudaMemcpyHostToDevice);
        } else {
            e = cudaMemcpy(c->dev_chars + c->char_count - 1, dc, sizeof *dc, cudaMemcpyHostToDevice);
        }
        if (e != cudaSuccess) {
            r = cuda_fail(err, e, who, "cudaMemcpy of the character table");
            goto done;
        }
        if (id) *id = c->char_count - 1;
        ok(err);
    }
done:
    free(order), free(depth), free(level_start), free(rest), free(tracks), free(clips);
    free(pool.data), free(mem.data), free(slot_indices), free(slot_weights);
    return r;
}

extern "C" SINEW_API sinew_result sinew_cuda_frame(sinew_cuda_crowd *c, const sinew_cuda_instance *inst, int count,
                                                   const sinew_cuda_frame_desc *desc, sinew_error *err)
{
    static const char who[] = "sinew_cuda_frame";
    if (!c || !desc || count < 0 || (count > 0 && !inst))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: a crowd, a desc and instances");
    if (desc->method != SINEW_SKINNING_LBS && desc->method != SINEW_SKINNING_DQS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: unknown method %d", (int)desc->method);
    if (desc->format != SINEW_CUDA_FLOAT && desc->format != SINEW_CUDA_COMPACT)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: unknown output format %d",
                           (int)desc->format);
    const bool dqs = desc->method == SINEW_SKINNING_DQS;
    /* check every instance, lay out offsets and items */
    size_t slots = 0, vertices = 0;
    int max_vertices = 0;
    for (int i = 0; i < count; ++i) {
        const sinew_cuda_instance *s = &inst[i];
        if (s->character < 0 || s->character >= c->char_count)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: instance %d: no character %d", i,
                               s->character);
        const host_character *h = &c->chars[s->character];
        if (s->clips[0] < 0 || s->clips[0] >= h->dev.clip_count || s->clips[1] < -1 || s->clips[1] >= h->dev.clip_count)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_frame: instance %d: clips %d, %d (character %d has %d)", i, s->clips[0],
                               s->clips[1], s->character, h->dev.clip_count);
        if (!isfinite(s->times[0]) || !isfinite(s->times[1]) || !(s->weight >= 0.0f && s->weight <= 1.0f))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_frame: instance %d: times must be finite and the weight within 0..1", i);
        if (desc->normals && !h->dev.normals)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_cuda_frame: instance %d: character %d's mesh has no normals", i, s->character);
        slots += (size_t)h->dev.skin_joints;
        vertices += (size_t)((h->dev.vertices + 3) & ~3);
        if (h->dev.vertices > max_vertices) max_vertices = h->dev.vertices;
    }
    if (slots > (size_t)INT32_MAX)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: %zu palette matrices, over 2^31", slots);
    /* a skin block holds its instances' palettes in shared memory: as many
     * instances (up to SKIN_BATCH) as PALETTE_BUDGET bytes take, at least one */
    int most_skin_joints = 1, widest = 0;
    for (int k = 0; k < c->char_count; ++k)
        if (c->chars[k].dev.skin_joints > most_skin_joints) most_skin_joints = c->chars[k].dev.skin_joints, widest = k;
    size_t slot_bytes = sizeof(float) * (dqs ? DQ_FLOATS : 12), palette_bytes = slot_bytes * (size_t)most_skin_joints;
    int batch = (int)(PALETTE_BUDGET / palette_bytes);
    batch = batch < 1 ? 1 : batch > SKIN_BATCH ? SKIN_BATCH : batch;
    size_t skin_shared = sizeof(float) * SKIN_WARPS * STAGE_FLOATS + palette_bytes * (size_t)batch;
    if (skin_shared > (size_t)c->skin_shared)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_cuda_frame: character %d's %d skin joints need %zu bytes of shared memory for %s, the "
                           "device gives a block %d",
                           widest, most_skin_joints, skin_shared, dqs ? "DQS" : "LBS", c->skin_shared);
    /* staging layout: instances, vertex offsets, palette offsets, sorted, items */
    size_t n = (size_t)count;
    size_t items_max = n + (size_t)c->char_count;
    size_t o_inst = 0, o_voff = (o_inst + sizeof(sinew_cuda_instance) * n + 15) & ~(size_t)15;
    size_t o_poff = (o_voff + sizeof(long long) * n + 15) & ~(size_t)15;
    size_t o_sorted = (o_poff + sizeof(int) * n + 15) & ~(size_t)15;
    size_t o_items = (o_sorted + sizeof(int) * n + 15) & ~(size_t)15;
    size_t total = o_items + sizeof(skin_item) * items_max + 16;
    if (total > c->frame_bytes) { /* both buffers anew; frame_bytes stays 0 until both are there */
        cudaFree(c->frame_mem), cudaFreeHost(c->host_mem);
        c->frame_mem = c->host_mem = NULL;
        c->frame_bytes = 0;
        CU(cudaMalloc(&c->frame_mem, total * 2));
        CU(cudaMallocHost(&c->host_mem, total * 2));
        c->frame_bytes = total * 2;
    }
    unsigned char *hm = (unsigned char *)c->host_mem;
    memcpy(hm + o_inst, inst, sizeof(sinew_cuda_instance) * n);
    long long *voff = (long long *)(hm + o_voff);
    int *poff = (int *)(hm + o_poff), *sorted = (int *)(hm + o_sorted);
    skin_item *items = (skin_item *)(hm + o_items);
    /* counting sort by character */
    int *start = (int *)calloc((size_t)c->char_count + 1, sizeof(int));
    if (!start) return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_frame: out of memory");
    long long v_at = 0;
    int p_at = 0;
    for (int i = 0; i < count; ++i) {
        const host_character *h = &c->chars[inst[i].character];
        voff[i] = v_at, poff[i] = p_at;
        v_at += (h->dev.vertices + 3) & ~3, p_at += h->dev.skin_joints; /* 16-byte aligned outputs */
        start[inst[i].character + 1]++;
    }
    for (int k = 0; k < c->char_count; ++k) start[k + 1] += start[k];
    int n_items = 0;
    for (int k = 0; k < c->char_count; ++k) {
        for (int f = start[k]; f < start[k + 1]; f += batch)
            items[n_items++] = skin_item{k, f, start[k + 1] - f < batch ? start[k + 1] - f : batch};
    }
    for (int i = 0; i < count; ++i) sorted[start[inst[i].character]++] = i;
    free(start);
    /* keep the offsets for sinew_cuda_instance_offset */
    c->offsets_count = 0;
    if (count > c->offsets_capacity) {
        free(c->vertex_offset_host), free(c->palette_offset_host), free(c->character_host);
        c->vertex_offset_host = (long long *)malloc(sizeof(long long) * n);
        c->palette_offset_host = (int *)malloc(sizeof(int) * n);
        c->character_host = (int *)malloc(sizeof(int) * n);
        c->offsets_capacity = count;
        if (!c->vertex_offset_host || !c->palette_offset_host || !c->character_host) {
            c->offsets_capacity = 0;
            return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_frame: out of memory");
        }
    }
    for (int i = 0; i < count; ++i)
        c->vertex_offset_host[i] = voff[i], c->palette_offset_host[i] = poff[i], c->character_host[i] = inst[i].character;
    /* outputs */
    if (slots > c->palette_slots) {
        cudaFree(c->palette), cudaFree(c->dq);
        c->palette = c->dq = NULL;
        c->palette_slots = 0;
        CU(cudaMalloc(&c->palette, sizeof(float) * 12 * slots));
        CU(cudaMalloc(&c->dq, sizeof(float) * DQ_FLOATS * slots));
        c->palette_slots = slots;
    }
    if (vertices > c->out_vertices) {
        cudaFree(c->out_pos), cudaFree(c->out_nrm);
        c->out_pos = c->out_nrm = NULL;
        c->out_vertices = 0;
        CU(cudaMalloc(&c->out_pos, sizeof(float) * 3 * vertices));
        CU(cudaMalloc(&c->out_nrm, sizeof(float) * 3 * vertices));
        c->out_vertices = vertices;
    }
    c->offsets_count = count;
    c->last_normals = desc->normals;
    c->last_format = desc->format;
    c->timing = sinew_cuda_timing{0, 0, 0, 0};
    if (count == 0) {
        ok(err);
        return SINEW_OK;
    }
    unsigned char *dm = (unsigned char *)c->frame_mem;
    CU(cudaEventRecord(c->ev[0]));
    CU(cudaMemcpyAsync(dm, hm, o_items + sizeof(skin_item) * (size_t)n_items, cudaMemcpyHostToDevice));
    CU(cudaEventRecord(c->ev[1]));
    frame_params p;
    p.chars = c->dev_chars;
    p.inst = (const sinew_cuda_instance *)(dm + o_inst);
    p.vertex_offset = (const long long *)(dm + o_voff);
    p.palette_offset = (const int *)(dm + o_poff);
    p.palette = c->palette, p.dq = c->dq;
    p.count = count;
    p.flags = desc->sample_flags;
    p.dqs = dqs, p.normals = desc->normals, p.fast_normals = desc->fast_normals;
    p.items = (const skin_item *)(dm + o_items);
    p.sorted = (const int *)(dm + o_sorted);
    /* vertices a skin block covers: a warp's worth per thread group at least,
     * more while the frame still has blocks enough to fill the GPU 32 times
     * over (fewer palette copies to shared memory) */
    p.chunk = SKIN_THREADS;
    while (p.chunk < max_vertices &&
           (long long)n_items * ((max_vertices + 2 * p.chunk - 1) / (2 * p.chunk)) >= 32LL * c->sms)
        p.chunk *= 2;
    p.blocks_per_item = (max_vertices + p.chunk - 1) / p.chunk;
    p.out_pos = c->out_pos, p.out_nrm = c->out_nrm;
    p.joint_stride = 0;
    for (int k = 0; k < c->char_count; ++k)
        if (c->chars[k].dev.joints > p.joint_stride) p.joint_stride = c->chars[k].dev.joints;
    size_t shared = sizeof(float) * (12 * (size_t)p.joint_stride + 32 * DQ_FLOATS) * WARPS_PER_BLOCK;
    if (shared > (size_t)c->pose_shared)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_cuda_frame: %d joints need %zu bytes of shared memory to pose, the device gives a block %d",
                           p.joint_stride, shared, c->pose_shared);
    pose_kernel<<<(count + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK, 32 * WARPS_PER_BLOCK, shared>>>(p);
    CU(cudaGetLastError());
    CU(cudaEventRecord(c->ev[2]));
    long long blocks = (long long)n_items * p.blocks_per_item;
    if (blocks > 0x7fffffffLL) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_frame: too many blocks");
    if (blocks > 0) {
        bool compact = desc->format == SINEW_CUDA_COMPACT;
        void (*kernel)(frame_params) = dqs ? (compact ? skin_kernel<true, true> : skin_kernel<true, false>)
                                           : (compact ? skin_kernel<false, true> : skin_kernel<false, false>);
        kernel<<<(unsigned)blocks, SKIN_THREADS, skin_shared>>>(p);
    }
    CU(cudaGetLastError());
    CU(cudaEventRecord(c->ev[3]));
    CU(cudaEventSynchronize(c->ev[3]));
    CU(cudaEventElapsedTime(&c->timing.upload_ms, c->ev[0], c->ev[1]));
    CU(cudaEventElapsedTime(&c->timing.pose_ms, c->ev[1], c->ev[2]));
    CU(cudaEventElapsedTime(&c->timing.skin_ms, c->ev[2], c->ev[3]));
    CU(cudaEventElapsedTime(&c->timing.frame_ms, c->ev[0], c->ev[3]));
    ok(err);
    return SINEW_OK;
}

extern "C" SINEW_API void sinew_cuda_output(const sinew_cuda_crowd *c, const float **positions, const float **normals)
{
    bool floats = c && c->last_format == SINEW_CUDA_FLOAT;
    if (positions) *positions = floats ? c->out_pos : NULL;
    if (normals) *normals = floats && c->last_normals ? c->out_nrm : NULL;
}

extern "C" SINEW_API void sinew_cuda_output_compact(const sinew_cuda_crowd *c, const uint16_t **positions,
                                                    const uint32_t **normals)
{
    bool compact = c && c->last_format == SINEW_CUDA_COMPACT;
    if (positions) *positions = compact ? (const uint16_t *)c->out_pos : NULL;
    if (normals) *normals = compact && c->last_normals ? (const uint32_t *)c->out_nrm : NULL;
}

extern "C" SINEW_API size_t sinew_cuda_instance_offset(const sinew_cuda_crowd *c, int instance)
{
    if (!c || instance < 0 || instance >= c->offsets_count) return 0;
    return (size_t)c->vertex_offset_host[instance];
}

extern "C" SINEW_API sinew_result sinew_cuda_download(const sinew_cuda_crowd *c, int instance, float *positions,
                                                      float *normals, sinew_error *err)
{
    static const char who[] = "sinew_cuda_download";
    if (!c || instance < 0 || instance >= c->offsets_count)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_download: no instance %d in the last frame",
                           instance);
    if (normals && !c->last_normals)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_download: the last frame skinned no normals");
    size_t first = (size_t)c->vertex_offset_host[instance];
    size_t nv = (size_t)c->chars[c->character_host[instance]].dev.vertices;
    if (c->last_format == SINEW_CUDA_FLOAT) {
        if (positions)
            CU(cudaMemcpy(positions, c->out_pos + 3 * first, sizeof(float) * 3 * nv, cudaMemcpyDeviceToHost));
        if (normals) CU(cudaMemcpy(normals, c->out_nrm + 3 * first, sizeof(float) * 3 * nv, cudaMemcpyDeviceToHost));
        ok(err);
        return SINEW_OK;
    }
    /* compact: the words, decoded on the host */
    uint16_t *halves = positions ? (uint16_t *)malloc(sizeof(uint16_t) * 4 * nv) : NULL;
    uint32_t *words = normals ? (uint32_t *)malloc(sizeof(uint32_t) * nv) : NULL;
    if ((positions && !halves) || (normals && !words)) {
        free(halves), free(words);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_cuda_download: out of memory");
    }
    cudaError_t e = cudaSuccess;
    if (positions)
        e = cudaMemcpy(halves, (const uint16_t *)c->out_pos + 4 * first, sizeof(uint16_t) * 4 * nv,
                       cudaMemcpyDeviceToHost);
    if (normals && e == cudaSuccess)
        e = cudaMemcpy(words, (const uint32_t *)c->out_nrm + first, sizeof(uint32_t) * nv, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) {
        for (size_t v = 0; positions && v < nv; ++v)
            for (int x = 0; x < 3; ++x) positions[3 * v + x] = sinew_half_to_float(halves[4 * v + x]);
        for (size_t v = 0; normals && v < nv; ++v) sinew_octahedral_decode(words[v], normals + 3 * v);
    }
    free(halves), free(words);
    if (e != cudaSuccess) return cuda_fail(err, e, who, "cudaMemcpy of compact outputs");
    ok(err);
    return SINEW_OK;
}

extern "C" SINEW_API sinew_result sinew_cuda_download_palette(const sinew_cuda_crowd *c, int instance, float *out,
                                                              sinew_error *err)
{
    static const char who[] = "sinew_cuda_download_palette";
    if (!c || !out || instance < 0 || instance >= c->offsets_count)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_download_palette: no instance %d in the last frame",
                           instance);
    size_t first = (size_t)c->palette_offset_host[instance] * 12;
    size_t bytes = sizeof(float) * 12 * (size_t)c->chars[c->character_host[instance]].dev.skin_joints;
    CU(cudaMemcpy(out, c->palette + first, bytes, cudaMemcpyDeviceToHost));
    ok(err);
    return SINEW_OK;
}

extern "C" SINEW_API sinew_result sinew_cuda_poison(sinew_cuda_crowd *c, int byte, sinew_error *err)
{
    static const char who[] = "sinew_cuda_poison";
    if (!c) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_cuda_poison: a crowd");
    if (c->out_pos) CU(cudaMemset(c->out_pos, byte, sizeof(float) * 3 * c->out_vertices));
    if (c->out_nrm) CU(cudaMemset(c->out_nrm, byte, sizeof(float) * 3 * c->out_vertices));
    if (c->palette) CU(cudaMemset(c->palette, byte, sizeof(float) * 12 * c->palette_slots));
    if (c->dq) CU(cudaMemset(c->dq, byte, sizeof(float) * DQ_FLOATS * c->palette_slots));
    CU(cudaDeviceSynchronize());
    ok(err);
    return SINEW_OK;
}

extern "C" SINEW_API sinew_cuda_timing sinew_cuda_last_timing(const sinew_cuda_crowd *c)
{
    return c ? c->timing : sinew_cuda_timing{0, 0, 0, 0};
}
