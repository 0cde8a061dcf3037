/* SPDX-License-Identifier: MIT */
/* What the archive reads and writes of a timeline beyond its public fields
 * (timeline.c). Not installed. */
#ifndef SINEW_LAYER_TIMELINE_H
#define SINEW_LAYER_TIMELINE_H

#include "base/base_internal.h"

/* One component of a compressed user track: its values are min + q * step
 * for whole q in 0 .. 2^bits - 1 (bits 1 .. 16; 0: all equal to min), or
 * floats as they are (bits 32). An archive stores the q. */
typedef struct sinew__timeline_grid {
    float min, step;
    int bits;
} sinew__timeline_grid;

/* A compressed timeline's grids, 4 per track (components past a track's
 * own unused); NULL for a timeline that is not compressed. */
SINEW__SHARED const sinew__timeline_grid *sinew__timeline_grids(const sinew_timeline *timeline);

/* sinew_timeline_create(), and with `grids` (4 per track) a compressed
 * timeline whose values lie on them (as an archive reads one back). */
SINEW__SHARED sinew_timeline *sinew__timeline_make(const sinew_timeline_desc *desc, const sinew__timeline_grid *grids,
                                                   const sinew_options *options, sinew_error *err);

/* Makes `alloc` the allocator sinew_timeline_free() uses (an asset handing
 * its objects the allocator that frees it). */
SINEW__SHARED void sinew__timeline_set_allocator(sinew_timeline *timeline, sinew_allocator alloc);

#endif /* SINEW_LAYER_TIMELINE_H */
