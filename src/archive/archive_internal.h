/* SPDX-License-Identifier: MIT */
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
    SINEW__SECTION_SKIN_BLOCKS = 5, /* optional: the SIMD blocks of the skin of the mesh section before it */
    SINEW__SECTION_PACKED_CLIP = 6, /* a clip as sinew_clip_pack made it */
    SINEW__SECTION_COMPRESSED_CLIP = 7, /* a clip as sinew_clip_compress made it (2.1) */
    SINEW__SECTION_SPRINGS = 8, /* optional: the asset's spring bones (2.2) */
    SINEW__SECTION_TIMELINES = 9 /* optional: the clips' user tracks and events (2.2), after every clip */
};

/* XXH64 (Y. Collet's xxHash, 64-bit) of n bytes with `seed`: the checksum
 * of 1.x archives. */
uint64_t sinew__xxh64(const void *data, size_t n, uint64_t seed);

/* XXH3-64 (the same author's XXH3, 64-bit, seed 0, default secret) of n
 * bytes: the checksum of 2.x archives, which the compiler can vectorize. */
uint64_t sinew__xxh3(const void *data, size_t n);
/* The same, its stripes run at SIMD level `level` (a sinew_simd; the CPU
 * must run it): the same result at every level. */
uint64_t sinew__xxh3_at(const void *data, size_t n, int level);
/* XXH3's long inputs: 16 stripes of 64 bytes a block, the accumulators
 * scrambled with this prime after each. */
#define SINEW__XXH3_BLOCK_STRIPES 16
#define SINEW__XXH3_SCRAMBLE_PRIME 0x9E3779B1u
#if defined(SINEW_X86_SIMD)
/* `blocks` full blocks from p (each accumulated and scrambled), then
 * `stripes` stripes of the next, with the 192-byte `secret`. */
void sinew__xxh3_stripes_avx2(uint64_t acc[8], const unsigned char *p, size_t blocks, size_t stripes,
                              const unsigned char *secret);
#endif

/* The checksum of an archive of `size` bytes (64 at least) as its header's
 * version defines it: 1.0 XXH64 and 2.0, 2.1 XXH3-64 of bytes 64 to the
 * end; from 2.2 on XXH3-64 of the header (its checksum field taken as
 * zero) followed by that XXH3-64 of bytes 64 to the end, so that a changed
 * header byte fails the check too. */
SINEW__SHARED uint64_t sinew__archive_checksum(const unsigned char *bytes, size_t size);

/* Writes that checksum into the header (byte 24): for tests and fuzzers
 * that change an archive's bytes and keep it otherwise valid. */
SINEW__SHARED void sinew__archive_seal(unsigned char *bytes, size_t size);

/* Reads an archive of `size` bytes into `asset` (made by the caller with
 * `options`, whose allocator, logger and SIMD level the objects take);
 * `name` starts each error ("sinew_archive_load", "sinew_load_file:
 * hero.sinew"). `view`: the asset keeps pointing into `bytes` (on a 64-byte
 * boundary) where format 2 allows it. */
SINEW__SHARED sinew_result sinew__archive_read(const unsigned char *bytes, size_t size, const char *name, bool view,
                                               const sinew_options *options, sinew_asset *asset, sinew_error *err);

#endif
