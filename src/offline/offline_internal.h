/* SPDX-License-Identifier: MIT */
/* The offline room's private helpers: the offline operations that make
 * runtime data from clips and skins. Not installed. */
#ifndef SINEW_OFFLINE_INTERNAL_H
#define SINEW_OFFLINE_INTERNAL_H

#include "clip/clip_internal.h"
#include "skin/skin_internal.h"

/* True, with the error set, for a packed or compressed clip: `who` (the public function
 * refusing it) reads its tracks, which a packed clip no longer holds. */
static inline bool sinew__refuse_packed(const sinew_clip *clip, const char *who, sinew_error *err)
{
    if (!clip->packed && !clip->compressed) return false;
    const char *how = clip->packed ? "packed" : "compressed";
    sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                "%s: clip \"%s\" is %s (sinew_clip_%s) and holds no tracks to read: give the clip it was "
                "%s from", who, clip->name, how, clip->packed ? "pack" : "compress", how);
    return true;
}

/* Refuses (true, `err` filled) a clip whose tracks cannot be read for a
 * skeleton of `joints` joints: a packed clip, or one animating another
 * joint count (`whose` names the skeleton in the message). */
static inline bool sinew__refuse_clip_for(const sinew_clip *clip, int joints, const char *who, const char *whose,
                                          sinew_error *err)
{
    if (sinew__refuse_packed(clip, who, err)) return true;
    if (clip->joint_count == joints) return false;
    sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: clip \"%s\" animates %d joints, %s has %d", who, clip->name,
                clip->joint_count, whose, joints);
    return true;
}

/* Offline work follows a clip's keys, not its duration: a grid of samples
 * at a rate over the duration is taken only while it holds at most
 * SINEW__GRID_PER_KEY samples a distinct key time, or SINEW__GRID_FLOOR
 * (what a short clip of a few spline keys needs, 17 s at 240 a second);
 * past that, the key times and points between them stand for it, so that
 * two keys 1e20 s apart cost what two keys 1 s apart do. */
enum { SINEW__GRID_PER_KEY = 16, SINEW__GRID_FLOOR = 4096 };

/* The most samples a grid over a clip of `key_times` distinct key times
 * may take (see SINEW__GRID_PER_KEY). */
static inline double sinew__grid_cap(int key_times)
{
    double cap = (double)SINEW__GRID_PER_KEY * (double)key_times;
    return cap > SINEW__GRID_FLOOR ? cap : SINEW__GRID_FLOOR;
}

/* The clip's key times (its packed keys' too; with `weights`, its weights
 * tracks' too), sorted, each once: into a malloc'd array; the count, or -1
 * out of memory. */
int sinew__key_times(const sinew_clip *clip, bool weights, float **out);

/* sinew_clip_measure_error() with each joint's own shell distance, at
 * `extra_count` times more (`extra`); its errors start with `who`. */
sinew_result sinew__measure_error(const sinew_clip *reference, const sinew_clip *candidate,
                                  const sinew_skeleton *skeleton, const float *shells, float rate, const float *extra,
                                  size_t extra_count, sinew_clip_error_report *report, const char *who,
                                  sinew_error *err);

#endif /* SINEW_OFFLINE_INTERNAL_H */
