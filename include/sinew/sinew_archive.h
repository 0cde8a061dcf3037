/* SPDX-License-Identifier: MIT */
/*
 * sinew archives: an asset converted once, offline, into one relocatable
 * blob the runtime loads without a parser (docs/ARCHIVE.md gives the format
 * byte by byte). Part of the core library: writing and loading need
 * nothing but libsinew.
 *
 *   // offline (a tool, `sinew convert`)
 *   sinew_asset *a = sinew_load_file("hero.fbx", NULL, &err);
 *   sinew_archive_save(a, "hero.sinew", NULL, &err);
 *
 *   // in the game
 *   sinew_asset *hero = sinew_archive_load_file("hero.sinew", NULL, &err);
 *   ... play it like any asset (sinew.h, sinew_asset.h) ...
 *   sinew_asset_free(hero);
 *
 * Index, by pipeline stage:
 *
 *   Offline      sinew_archive_write sinew_archive_save
 *   Runtime      sinew_archive_is sinew_archive_load sinew_archive_view
 *                sinew_archive_load_file
 *
 * Loading checks every byte before use: the header, the checksum of the
 * payload, each section's place and size, every count against the bytes
 * that hold it; the skeleton, clips and skins are then rebuilt through
 * their create functions, which check the rest (parents before children,
 * joint indices below the joint count, key times increasing, finite
 * values). Whatever the bytes, a load either fails with a sentence naming
 * the section and the offset, or gives an asset the runtime can play.
 */
#ifndef SINEW_ARCHIVE_H
#define SINEW_ARCHIVE_H

#include "sinew_asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this library writes (2.2: its checksum covers the
 * header too); it reads every minor version up to this one of this major
 * one and of the majors before it (2.0, 2.1, 1.0; sections it does not
 * know are skipped unless marked required), and refuses a newer minor or
 * major version. */
#define SINEW_ARCHIVE_MAJOR 2
#define SINEW_ARCHIVE_MINOR 2

/* What goes into an archive. Zero-initialised: the whole asset, its skins
 * without their blocks. */
typedef struct sinew_archive_write_options {
    bool clips_only; /* the clips (and the skeleton they animate), for an asset already loaded */
    bool no_meshes;  /* the skeleton and clips without the meshes */
    bool skin_blocks; /* with each skin, its SIMD blocks as sinew_skin_create() builds them
                         (the influences regrouped by eight vertices), so that loading copies
                         and checks them instead of building them: a larger file, a faster
                         load (`sinew convert --prepare`) */
} sinew_archive_write_options;

/* Receives the archive's bytes in order; returns false to stop the write
 * (it then fails with SINEW_ERROR_IO). */
typedef bool (*sinew_archive_writer)(void *user, const void *bytes, size_t size);

/* Writes `asset` as an archive through `writer`. The same asset gives the
 * same bytes. `options` may be NULL. A packed clip (sinew_clip_pack) is
 * written as its 16-bit keys and loads packed again, its keys within a
 * rounding of the ones written. Errors: SINEW_ERROR_INVALID_ARGUMENT,
 * SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_IO (the writer stopped). */
SINEW_API sinew_result sinew_archive_write(const sinew_asset *asset, const sinew_archive_write_options *options,
                                           sinew_archive_writer writer, void *user, sinew_error *err);

/* Writes `asset` as an archive into the file at `path` (replaced), as
 * sinew_archive_write() does. Errors: those, and SINEW_ERROR_IO naming the
 * system's reason. */
SINEW_API sinew_result sinew_archive_save(const sinew_asset *asset, const char *path,
                                          const sinew_archive_write_options *options, sinew_error *err);

/* Loads an archive held in memory (`data` is not kept: everything is
 * copied into the asset). `options` may be NULL: the allocator, the logger
 * and the SIMD level of the objects made. Returns the asset, or NULL with
 * `err` filled: SINEW_ERROR_PARSE (not an archive, a newer major version,
 * a section malformed), SINEW_ERROR_TRUNCATED, SINEW_ERROR_OUT_OF_BOUNDS,
 * SINEW_ERROR_UNSUPPORTED (a big-endian host), and the errors of the create
 * functions, each naming the section and its offset. Free with
 * sinew_asset_free(). */
SINEW_API sinew_asset *sinew_archive_load(const void *data, size_t size, const sinew_options *options,
                                          sinew_error *err);

/* Loads an archive where it lies: the asset's vertex streams (each on a
 * 64-byte boundary, as a copy's), indices, morph targets, skin influences
 * and inverse bind matrices, the SIMD blocks of a prepared archive and the
 * clips' keys point into `data`, which must start on a 64-byte boundary
 * (SINEW_ERROR_INVALID_ARGUMENT otherwise) and stay alive and unchanged
 * until sinew_asset_free(); the skeleton, the track lists, the sampling
 * plans and the small objects are allocated. Every byte is checked first,
 * as sinew_archive_load() checks it; what a copy would repair, a view
 * refuses, since it does not write: weights not summing to 1
 * (SINEW_ERROR_BAD_WEIGHT), a zero-weight influence past the skin's joints
 * (SINEW_ERROR_BAD_JOINT_INDEX), a rotation key not of unit length
 * (SINEW_ERROR_BAD_ROTATION); archives sinew_archive_write made hold none.
 * A 1.x archive, whose arrays are packed, is copied (from any address),
 * with a note to the logger. Errors: those of sinew_archive_load(). */
SINEW_API sinew_asset *sinew_archive_view(const void *data, size_t size, const sinew_options *options,
                                          sinew_error *err);

/* Loads the archive file at `path` (a regular file only): its bytes are
 * read into memory the asset holds and viewed there as
 * sinew_archive_view() does, freed with the asset (sinew_load_file, which
 * every command uses, copies archives instead, and repairs what a copy
 * repairs). Read rather than
 * mapped: a mapped file that another process shortens or rewrites after
 * the check would fault or change under the runtime. */
SINEW_API sinew_asset *sinew_archive_load_file(const char *path, const sinew_options *options, sinew_error *err);

/* Whether `data` starts with an archive's magic number (8 bytes). */
SINEW_API bool sinew_archive_is(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_ARCHIVE_H */
