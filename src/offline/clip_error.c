/* SPDX-License-Identifier: MIT */
/* sinew_clip_measure_error: how far one clip plays from another, measured
 * where a mesh would show it: on virtual vertices around each joint in
 * model space. */
#include "offline/offline_internal.h"

#include <stdlib.h>

enum {
    DEFAULT_RATE = 60,   /* samples a second between the key times */
    BUCKETS = 1 << 16,   /* of the histogram the 99th percentile is read from */
    MAX_GRID = 10000000  /* samples at the rate: beyond any clip's need */
};

static sinew_result measure(const sinew_clip *reference, const sinew_clip *candidate,
                            const sinew_skeleton *skeleton, const float *shells, float shell_distance, float rate,
                            const float *extra, size_t extra_count, sinew_clip_error_report *report, const char *who,
                            sinew_error *err);

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int sinew__key_times(const sinew_clip *clip, bool weights, float **out)
{
    size_t n = 0;
    for (int i = 0; i < clip->track_count; ++i)
        if (weights || clip->tracks[i].target != SINEW_TARGET_WEIGHTS) n += (size_t)clip->tracks[i].key_count;
    const float *packed_times = NULL;
    int packed_keys = 0;
    size_t stride;
    sinew__packed_track none;
    if (clip->packed) sinew__packed_tracks(clip, &packed_times, &packed_keys, &stride, &none, 0);
    n += (size_t)packed_keys;
    float *t = malloc(sizeof *t * (n + 1));
    if (!t) return -1;
    size_t at = 0;
    for (int i = 0; i < clip->track_count; ++i)
        if (weights || clip->tracks[i].target != SINEW_TARGET_WEIGHTS)
            for (int k = 0; k < clip->tracks[i].key_count; ++k) t[at++] = clip->tracks[i].times[k];
    for (int k = 0; k < packed_keys; ++k) t[at++] = packed_times[k];
    qsort(t, at, sizeof *t, compare_floats);
    size_t kept = 0;
    for (size_t i = 0; i < at; ++i)
        if (kept == 0 || t[i] != t[kept - 1]) t[kept++] = t[i];
    *out = t;
    return (int)(kept < INT32_MAX ? kept : INT32_MAX);
}

/* The largest distance between the two matrices' images of the joint's
 * origin and of the points `d` along its three axes. */
static float joint_error(const sinew_mat4 *a, const sinew_mat4 *b, float d)
{
    double worst = 0.0;
    for (int p = 0; p < 4; ++p) {
        double sum = 0.0;
        for (int r = 0; r < 3; ++r) {
            /* column p - 1 scaled by d, plus the translation column */
            double x = (double)a->m[12 + r] - (double)b->m[12 + r];
            if (p > 0) x += (double)d * ((double)a->m[4 * (p - 1) + r] - (double)b->m[4 * (p - 1) + r]);
            sum += x * x;
        }
        if (sum > worst) worst = sum;
    }
    return (float)sqrt(worst);
}

sinew_result sinew_clip_measure_error(const sinew_clip *reference, const sinew_clip *candidate,
                                      const sinew_skeleton *skeleton, float shell_distance, float rate,
                                      sinew_clip_error_report *report, sinew_error *err)
{
    return measure(reference, candidate, skeleton, NULL, shell_distance, rate, NULL, 0, report,
                   "sinew_clip_measure_error", err);
}

sinew_result sinew__measure_error(const sinew_clip *reference, const sinew_clip *candidate,
                                  const sinew_skeleton *skeleton, const float *shells, float rate, const float *extra,
                                  size_t extra_count, sinew_clip_error_report *report, const char *who,
                                  sinew_error *err)
{
    return measure(reference, candidate, skeleton, shells, 1.0f, rate, extra, extra_count, report, who, err);
}

/* Where a grid at `rate` over `span` seconds would take more samples than
 * the reference's `key_count` key times allow (sinew__grid_cap), the times
 * that stand for it: the quarters between each two key times, 0 before
 * the first and the span's end after the last (where the other clip may
 * still move), into a malloc'd array; its count, or -1 out of memory. 0
 * and NULL where the grid is taken. */
static int times_between_keys(const float *keys, int key_count, double span, float rate, float **out)
{
    *out = NULL;
    double grid = floor(span * (double)rate) + 1.0;
    if (grid <= sinew__grid_cap(key_count) && grid <= MAX_GRID) return 0;
    float *t = malloc(sizeof *t * (3 * (size_t)key_count + 2));
    if (!t) return -1;
    int n = 0;
    if (key_count == 0 || keys[0] > 0.0f) t[n++] = 0.0f;
    for (int k = 0; k + 1 < key_count; ++k)
        for (int q = 1; q <= 3; ++q) t[n++] = keys[k] + (keys[k + 1] - keys[k]) * 0.25f * (float)q;
    if (key_count == 0 || span > (double)keys[key_count - 1]) t[n++] = (float)span;
    *out = t;
    return n;
}

/* The first joint whose model transform is not finite in `model`, or -1. */
static int not_finite_joint(const sinew_mat4 *model, int n)
{
    for (int j = 0; j < n; ++j)
        if (!sinew__finite_n(model[j].m, 16)) return j;
    return -1;
}

static sinew_result measure(const sinew_clip *reference, const sinew_clip *candidate,
                            const sinew_skeleton *skeleton, const float *shells, float shell_distance, float rate,
                            const float *extra, size_t extra_count, sinew_clip_error_report *report, const char *who,
                            sinew_error *err)
{
    sinew__ok(err);
    if (!reference || !candidate || !skeleton || !report)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: two clips, a skeleton and a report are required",
                           who);
    if (!(shell_distance > 0.0f) || !isfinite(shell_distance) || !(rate >= 0.0f) || !isfinite(rate))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: the shell distance %g must be above 0 and the rate %g not negative, both finite",
                           who, (double)shell_distance, (double)rate);
    int n = skeleton->joint_count;
    if (reference->joint_count != n || candidate->joint_count != n)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: the clips animate %d and %d joints, the skeleton has %d",
                           who, reference->joint_count, candidate->joint_count, n);
    if (rate == 0.0f) rate = DEFAULT_RATE;
    float *keys = NULL, *between = NULL;
    int key_count = sinew__key_times(reference, true, &keys);
    /* the key times, and between them samples at `rate` over the duration
     * (a sampling time past the last key plays as the last key), or, where
     * those would outnumber the keys, the quarters between the keys */
    double span = reference->duration > candidate->duration ? reference->duration : candidate->duration;
    int between_count = key_count < 0 ? -1 : times_between_keys(keys, key_count, span, rate, &between);
    size_t steps = between ? 0 : (size_t)(floor(span * (double)rate) + 1.0);
    sinew_transform *local = malloc(sizeof *local * 2 * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * 2 * (size_t)n);
    uint32_t *histogram = malloc(sizeof *histogram * BUCKETS);
    if (key_count < 0 || between_count < 0 || !local || !model || !histogram) {
        free(keys), free(between), free(local), free(model), free(histogram);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: clip \"%s\": out of memory", who, reference->name);
    }
    memset(histogram, 0, sizeof *histogram * BUCKETS);
    sinew_clip_error_report r = {0.0f, 0.0f, -1, 0.0f, 0};
    sinew_result result = SINEW_OK;
    /* two passes: the largest error, then each one's bucket below it */
    for (int pass = 0; pass < 2 && result == SINEW_OK; ++pass) {
        size_t poses = (size_t)key_count + steps + (size_t)between_count + extra_count;
        for (size_t i = 0; i < poses && result == SINEW_OK; ++i) {
            /* past the keys: the uniform times or those between the keys, then the extra ones */
            size_t u = i - (size_t)key_count, v = u - steps - (size_t)between_count;
            float t = i < (size_t)key_count                   ? keys[i]
                      : u < steps                             ? (float)((double)u / (double)rate)
                      : u - steps < (size_t)between_count     ? between[u - steps]
                                                              : extra[v];
            sinew_clip_sample(reference, skeleton, t, 0, NULL, local, n, NULL);
            sinew_clip_sample(candidate, skeleton, t, 0, NULL, local + n, n, NULL);
            sinew_local_to_model(skeleton, local, NULL, model, n, NULL);
            sinew_local_to_model(skeleton, local + n, NULL, model + n, n, NULL);
            /* poses past a float's range (a spline's tangents times keys 1e20 s
             * apart, say) hold no distance to measure */
            int bad = pass == 0 ? not_finite_joint(model, 2 * n) : -1;
            if (bad >= 0) {
                result = sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                                     "%s: clip \"%s\": joint %d's pose at %g s is not finite in model space "
                                     "(values past a float's range), so no error can be measured",
                                     who, bad < n ? reference->name : candidate->name, bad % n, (double)t);
                break;
            }
            for (int j = 0; j < n; ++j) {
                float e = joint_error(&model[j], &model[n + j], shells ? shells[j] : shell_distance);
                if (!isfinite(e)) {
                    result = sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                                         "%s: clip \"%s\": joint %d at %g s lies further from clip \"%s\" than a "
                                         "float holds, so no error can be measured",
                                         who, candidate->name, j, (double)t, reference->name);
                    break;
                }
                if (pass == 0) {
                    if (e > r.largest || r.worst_joint < 0) r.largest = e, r.worst_joint = j, r.worst_time = t;
                    continue;
                }
                size_t b = r.largest > 0.0f ? (size_t)((double)e / (double)r.largest * (BUCKETS - 1)) : 0;
                histogram[b < BUCKETS ? b : BUCKETS - 1]++;
            }
        }
        r.poses = (int)(poses < INT32_MAX ? poses : INT32_MAX);
    }
    if (result != SINEW_OK) {
        free(keys), free(between), free(local), free(model), free(histogram);
        return result;
    }
    /* the 99th percentile: the upper edge of the bucket that reaches it */
    uint64_t total = (uint64_t)r.poses * (uint64_t)n, seen = 0, want = (total * 99 + 99) / 100;
    for (size_t b = 0; b < BUCKETS; ++b) {
        seen += histogram[b];
        if (seen >= want) {
            r.percentile_99 = (float)((double)r.largest * (double)(b + 1) / (BUCKETS - 1));
            if (r.percentile_99 > r.largest) r.percentile_99 = r.largest;
            break;
        }
    }
    *report = r;
    free(keys), free(between), free(local), free(model), free(histogram);
    return SINEW_OK;
}
