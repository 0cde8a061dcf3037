/* SPDX-License-Identifier: MIT */
/* The layer room's private declarations: its SIMD kernels. Not installed. */
#ifndef SINEW_LAYER_INTERNAL_H
#define SINEW_LAYER_INTERNAL_H

#include "clip/clip_internal.h"

/* A blend kernel: sinew_blend's loop over the joints, its arguments
 * checked; returns the joints it did (the scalar loop does the rest). */
typedef int (*sinew__blend_kernel)(const sinew_transform *rest_pose, const sinew_blend_layer *layers,
                                   int layer_count, float threshold, sinew_transform *out, int count);

/* The blend kernel of a SIMD level (a sinew_simd), or NULL where the scalar
 * loop runs (layer/simd/dispatch.c: the only place that knows which kernels
 * were built). */
sinew__blend_kernel sinew__blend_kernel_for(int level);

/* sinew_blend's loop over the joints with AVX (src/layer/simd/blend_avx2.c;
 * only where the CPU runs AVX2), its arguments checked: the scalar loop's
 * result bit for bit. Returns the joints it did: all of them, or none for
 * fewer than eight. */
int sinew__blend_avx2(const sinew_transform *rest_pose, const sinew_blend_layer *layers, int layer_count,
                      float threshold, sinew_transform *out, int count);

#endif /* SINEW_LAYER_INTERNAL_H */
