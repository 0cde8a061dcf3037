/* The archive room's private declarations. Not installed. */
#ifndef SINEW_ARCHIVE_INTERNAL_H
#define SINEW_ARCHIVE_INTERNAL_H

#include "asset/asset_internal.h"
#include "sinew/sinew_archive.h"

#include <errno.h>

/* The section kinds of format 1.x (docs/ARCHIVE.md). */
enum {
    SINEW__SECTION_ASSET = 1,
    SINEW__SECTION_SKELETON = 2,
    SINEW__SECTION_CLIP = 3,
    SINEW__SECTION_MESH = 4,
    SINEW__SECTION_SKIN_BLOCKS = 5 /* optional: the SIMD blocks of the skin of the mesh section before it */
};

/* XXH64 (Y. Collet's xxHash, 64-bit) of n bytes with `seed`: the archive's
 * checksum, several GB/s in plain C. */
uint64_t sinew__xxh64(const void *data, size_t n, uint64_t seed);

/* Reads an archive of `size` bytes into `asset` (made by the caller with
 * `options`, whose allocator, logger and SIMD level the objects take);
 * `name` starts each error ("sinew_archive_load", "sinew_load_file:
 * hero.sinew"). `view`: the asset keeps pointing into `bytes` (on a 64-byte
 * boundary) where format 2 allows it. */
SINEW__SHARED sinew_result sinew__archive_read(const unsigned char *bytes, size_t size, const char *name, bool view,
                                               const sinew_options *options, sinew_asset *asset, sinew_error *err);

#endif
