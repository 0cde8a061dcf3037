/* SPDX-License-Identifier: MIT */
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
    void *held;   /* bytes the asset views, from sinew__alloc_aligned, freed last; or NULL */
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

/* A skin for a mesh of the asset, its repairs told to the logger in the
 * file's words (`what` names the mesh): the mesh's skin, or an error
 * prefixed with `what`. `stored`: the SIMD blocks a file holds, or NULL
 * (see sinew__skin_create_stored). */
SINEW__SHARED sinew_result sinew__asset_skin(sinew_asset *asset, const sinew_skin_desc *desc,
                                             const sinew__stored_blocks *stored, bool borrow, const char *what,
                                             const sinew_options *options, sinew_error *err, sinew_mesh *mesh);

/* ---- the asset codec (codec.c) ---------------------------------------------- */

/* A growing byte buffer payloads are encoded into. */
typedef struct sinew__bytes {
    unsigned char *bytes; /* malloc'd: free() it */
    size_t size, capacity;
    size_t origin; /* where the payload being written starts: its arrays align from there */
    bool failed;   /* out of memory: the bytes are incomplete */
} sinew__bytes;

SINEW__SHARED void sinew__bytes_put(sinew__bytes *b, const void *data, size_t n);
SINEW__SHARED void sinew__bytes_u32(sinew__bytes *b, uint32_t v);

/* How a payload is laid out and read. Layout 1 (archives 1.0) packs every
 * field; layout 2 (what the encoders write) starts each array on a
 * boundary of SINEW__ARRAY_ALIGN bytes from the payload's start (the skin
 * blocks' weight rows on SINEW__ROW_ALIGN), zeros between, so that a
 * payload on a 64-byte boundary in memory can be used where it lies. A
 * view (layout 2 only, the payload so aligned; mesh vertex streams and
 * morph deltas on SINEW__STREAM_ALIGN, a cache line, as the loaders give
 * them) leaves the mesh streams,
 * the skins' influences and their blocks in the payload, which must then
 * outlive the asset and never change. */
enum { SINEW__ARRAY_ALIGN = 16, SINEW__ROW_ALIGN = 32, SINEW__STREAM_ALIGN = 64 };
typedef struct sinew__codec {
    int layout; /* 1 or 2 */
    bool view;
} sinew__codec;

/* The payloads: the skeleton with the asset's node maps, a clip (its
 * tracks: a packed clip has none to write, see sinew__encode_clip's
 * caller), a mesh with its skin and morph targets. */
SINEW__SHARED void sinew__encode_skeleton(sinew__bytes *b, const sinew_asset *asset);
SINEW__SHARED void sinew__encode_clip(sinew__bytes *b, const sinew_clip *clip);
SINEW__SHARED void sinew__encode_mesh(sinew__bytes *b, const sinew_mesh *mesh);
/* A packed clip (sinew_clip_pack): its translation, rotation and scale
 * keys as the plan quantized them, then its clip payload (name, duration,
 * weights tracks); decoded into a clip packed again. */
SINEW__SHARED void sinew__encode_packed_clip(sinew__bytes *b, const sinew_clip *clip);
/* A compressed clip (sinew_clip_compress): its block as it is, then its
 * clip payload (name, duration, weights tracks); decoded into a clip that
 * reads the block where it lies in a view. */
SINEW__SHARED void sinew__encode_compressed_clip(sinew__bytes *b, const sinew_clip *clip);
/* Checks `desc` against `sk` as sinew_springs_create() does, in time and
 * memory linear in the two, its scratch through `scratch`. Errors
 * start with `where`, then name the chain and joint ("chain 2, joint 3:
 * 7 is not below the joint before it"). */
SINEW__SHARED sinew_result sinew__springs_check(const sinew_skeleton *sk, const sinew_springs_desc *desc,
                                                const sinew_allocator *scratch, const char *where, sinew_error *err);

/* The asset's spring bones (asset->springs, not NULL) with their chains'
 * names; decoded into asset->springs, checked against the skeleton as
 * sinew_springs_create() checks them. */
SINEW__SHARED void sinew__encode_springs(sinew__bytes *b, const sinew_asset *asset);
SINEW__SHARED sinew_result sinew__decode_springs(const unsigned char *p, size_t n, sinew__codec codec,
                                                 const char *where, const sinew_options *options,
                                                 sinew_asset *asset, sinew_error *err);
/* The asset's timelines (asset->timelines, not NULL, one a clip or NULL)
 * by clip index, a compressed one's values as the integers of its grids
 * where they give the floats back bit for bit (docs/ARCHIVE.md, kind 9);
 * decoded into asset->timelines, after the asset's clips (its clip count
 * final), each made as sinew_timeline_create() makes one. */
SINEW__SHARED void sinew__encode_timelines(sinew__bytes *b, const sinew_asset *asset);
SINEW__SHARED sinew_result sinew__decode_timelines(const unsigned char *p, size_t n, sinew__codec codec,
                                                   const char *where, const sinew_options *options,
                                                   sinew_asset *asset, sinew_error *err);
/* A skin's SIMD blocks as sinew__skin_create_stored() takes them back. */
void sinew__encode_skin_blocks(sinew__bytes *b, const sinew_skin *skin);

/* Decode one payload of n bytes into `asset` (its skeleton and node maps;
 * a new clip for it, or NULL; `mesh`), made through the create functions
 * with `options`. Errors start with `where`, the payload's place ("the
 * importer's output: mesh 3", "hero.sinew: section 4 (mesh) at byte 8192"),
 * then name the field. A clip and a mesh need the asset's skeleton. */
SINEW__SHARED sinew_result sinew__decode_skeleton(const unsigned char *p, size_t n, sinew__codec codec,
                                                  const char *where, const sinew_options *options,
                                                  sinew_asset *asset, sinew_error *err);
SINEW__SHARED sinew_clip *sinew__decode_clip(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                             const sinew_options *options, sinew_asset *asset, sinew_error *err);
SINEW__SHARED sinew_clip *sinew__decode_packed_clip(const unsigned char *p, size_t n, sinew__codec codec,
                                                    const char *where, const sinew_options *options,
                                                    sinew_asset *asset, sinew_error *err);
SINEW__SHARED sinew_clip *sinew__decode_compressed_clip(const unsigned char *p, size_t n, sinew__codec codec,
                                                        const char *where, const sinew_options *options,
                                                        sinew_asset *asset, sinew_error *err);
/* A mesh's payload may come with its skin's blocks (`blocks`, `blocks_n`
 * bytes from sinew__encode_skin_blocks; NULL without): the skin then takes
 * them instead of building its own. */
/* What a payload's decode may hold at its peak, in bytes, at most: its
 * copies (none of what a view leaves where it lies), the objects made, the
 * plans built (a clip's; a packed clip's from its stored keys) and the
 * skin blocks built where `blocks` (blocks_n bytes) are not stored, found
 * from the payload's declared counts and sizes without allocating, for
 * the skeleton `sk` (NULL for the skeleton's own payload). An archive
 * checks its running sum against the load's memory limit before it
 * decodes each section. */
enum {
    SINEW__PAYLOAD_SKELETON,
    SINEW__PAYLOAD_CLIP,
    SINEW__PAYLOAD_PACKED_CLIP,
    SINEW__PAYLOAD_COMPRESSED_CLIP,
    SINEW__PAYLOAD_MESH,
    SINEW__PAYLOAD_SPRINGS,
    SINEW__PAYLOAD_TIMELINES
};
SINEW__SHARED size_t sinew__decode_peak(int what, const unsigned char *p, size_t n, const unsigned char *blocks,
                                        size_t blocks_n, sinew__codec codec, const sinew_skeleton *sk);

SINEW__SHARED sinew_result sinew__decode_mesh(const unsigned char *p, size_t n, const unsigned char *blocks,
                                              size_t blocks_n, sinew__codec codec, const char *where,
                                              const sinew_options *options, sinew_asset *asset, sinew_mesh *mesh,
                                              sinew_error *err);

#endif
