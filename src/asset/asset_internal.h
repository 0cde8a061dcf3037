/* Building an asset: an arena for its arrays, and ownership of the objects
 * it holds. Used by the demo character and the loaders. */
#ifndef SINEW_ASSET_INTERNAL_H
#define SINEW_ASSET_INTERNAL_H

#include "sinew/sinew_asset.h"
#include "layer/layer_internal.h"
#include "skin/skin_internal.h"

/* A new empty asset (name copied), or NULL when out of memory. */
/* An asset as the loaders and the built-in character make it: the public
 * struct first, then its allocator and the blocks it owns. */
typedef struct sinew__asset {
    sinew_asset base;
    sinew_allocator allocator;
    void *blocks; /* allocations freed with the asset (a list) */
} sinew__asset;

/* The library's view of an asset it made. */
static inline sinew__asset *sinew__asset_of(const sinew_asset *asset) { return (sinew__asset *)(uintptr_t)asset; }

SINEW__SHARED sinew_asset *sinew__asset_new(const char *name, const sinew_options *options);

/* Zeroed memory that lives as long as the asset, or NULL (count * size
 * overflow included). */
SINEW__SHARED void *sinew__asset_alloc(sinew_asset *asset, size_t count, size_t size);

/* A copy of `s` owned by the asset, or NULL. */
SINEW__SHARED char *sinew__asset_strdup(sinew_asset *asset, const char *s);

/* Makes `alloc` the allocator that frees the asset and every object it
 * owns (a loader that allocated through a wrapper hands back the real one;
 * the wrapper must have passed allocations through unchanged). */
SINEW__SHARED void sinew__asset_set_allocator(sinew_asset *asset, sinew_allocator alloc);

#endif
