/* SPDX-License-Identifier: MIT */
/* How far a computed matrix product is from the reference one, measured
 * against the size of its terms: what the SIMD kernels that sum products
 * with fused multiply-adds (palette, local to model) are held to. */
#ifndef SINEW_TEST_PRODUCT_ERROR_H
#define SINEW_TEST_PRODUCT_ERROR_H

#include "sinew/sinew.h"

#include <math.h>

/* The largest |got - a b| over its entries, each divided by the size of
 * its terms, sum over k of |a_rk| |b_kc| (1 where that is 0); infinity
 * where an entry is NaN. */
static inline double product_error(const sinew_mat4 *a, const sinew_mat4 *b, const sinew_mat4 *got)
{
    sinew_mat4 want = sinew_mat4_mul(a, b);
    double worst = 0.0;
    for (int e = 0; e < 16; ++e) {
        int row = e % 4, col = e / 4;
        double size = 0.0;
        for (int k = 0; k < 4; ++k) size += fabs((double)a->m[4 * k + row] * b->m[4 * col + k]);
        double d = fabs((double)want.m[e] - got->m[e]) / (size > 0.0 ? size : 1.0);
        if (!(d <= worst)) worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}

#endif
