/* SPDX-License-Identifier: MIT */
/* Comparing poses in tests: the angle between rotations and the largest
 * difference between two local poses. */
#ifndef SINEW_TEST_POSE_CHECK_H
#define SINEW_TEST_POSE_CHECK_H

#include "sinew/sinew.h"

#include <math.h>

/* The angle between two rotations, accurate near 0 (acos of the dot is
 * not: float noise of 1e-7 there reads as 1e-3 rad). */
static inline double quat_angle(sinew_quat a, sinew_quat b)
{
    double w = (double)a.w * b.w + (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
    double x = (double)a.w * b.x - (double)a.x * b.w - (double)a.y * b.z + (double)a.z * b.y;
    double y = (double)a.w * b.y + (double)a.x * b.z - (double)a.y * b.w - (double)a.z * b.x;
    double z = (double)a.w * b.z - (double)a.x * b.y + (double)a.y * b.x - (double)a.z * b.w;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

/* The largest translation or scale distance and rotation angle between two
 * poses of n joints. */
static inline double pose_diff(const sinew_transform *a, const sinew_transform *b, int n)
{
    double worst = 0.0;
    for (int j = 0; j < n; ++j) {
        worst = fmax(worst, sinew_vec3_length(sinew_vec3_sub(a[j].translation, b[j].translation)));
        worst = fmax(worst, sinew_vec3_length(sinew_vec3_sub(a[j].scale, b[j].scale)));
        worst = fmax(worst, quat_angle(a[j].rotation, b[j].rotation));
    }
    return worst;
}

/* The largest differences between two poses of n joints, by kind, raised
 * into worst[]: [0] translation distance, [1] rotation angle, [2] scale
 * component (the measures of sinew_clip_tolerance). */
static inline void pose_diff_parts(const sinew_transform *a, const sinew_transform *b, int n, double worst[3])
{
    for (int j = 0; j < n; ++j) {
        worst[0] = fmax(worst[0], sinew_vec3_length(sinew_vec3_sub(a[j].translation, b[j].translation)));
        worst[1] = fmax(worst[1], quat_angle(a[j].rotation, b[j].rotation));
        sinew_vec3 ds = sinew_vec3_sub(a[j].scale, b[j].scale);
        worst[2] = fmax(worst[2], fmax(fabs((double)ds.x), fmax(fabs((double)ds.y), fabs((double)ds.z))));
    }
}

#endif
