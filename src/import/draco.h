/* SPDX-License-Identifier: MIT */
/* KHR_draco_mesh_compression: a primitive's compressed bytes decoded by
 * Google's Draco (libdraco, C++) into arrays the glTF reader sized from the
 * primitive's accessors. A C interface to src/import/draco.cc, built only
 * where CMake found libdraco-dev (SINEW_HAVE_DRACO). Private to
 * libsinew_import. */
#ifndef SINEW_IMPORT_DRACO_H
#define SINEW_IMPORT_DRACO_H

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One attribute the extension maps: the accessor's declaration, and where
 * its values go (point_count * components of them). */
typedef struct sinew__draco_stream {
    const char *name;   /* "POSITION", "JOINTS_0": for messages */
    int id;             /* the attribute's unique id in the Draco data (the extension's number) */
    int components;     /* the accessor's: 1 to 4 */
    int component_type; /* the accessor's: 5120 .. 5126 */
    bool normalized;    /* the accessor's: integers mapped to [0, 1] or [-1, 1] */
    float *floats;      /* the values as floats, or */
    uint32_t *uints;    /* as unsigned integers (JOINTS_n; unsigned types only) */
} sinew__draco_stream;

/* Bytes Draco's decoder may take for a mesh of `points` points, `faces`
 * triangles and `streams` attributes of `values` components in all: an
 * estimate from what its decoder keeps per corner, vertex and value (the
 * corner table, the attributes' own corner tables and value maps, the
 * decoded values in their type and as integers before dequantization),
 * with room to spare. The caller checks it against what is left of the
 * load's limit before it calls sinew__draco_decode. */
double sinew__draco_working_bytes(double points, double faces, int streams, int values);

/* Decodes `size` bytes of Draco data holding a triangle mesh of
 * `point_count` points and `index_count` / 3 triangles, as the primitive's
 * accessors declare; writes the triangles' indices (index_count of them)
 * into `indices` and each stream's values. Before Draco runs, the counts
 * its header declares are read and must be those (so that what Draco
 * allocates is bounded by what the accessors declare, which the caller has
 * checked against the load's limit); after, the decoded point and face
 * counts and each attribute's component count and type must match the
 * accessors. Fails with a sentence in `why` (the caller prefixes the
 * place) and SINEW_ERROR_PARSE, SINEW_ERROR_UNSUPPORTED or
 * SINEW_ERROR_OUT_OF_MEMORY; no C++ exception leaves it. */
sinew_result sinew__draco_decode(const void *data, size_t size, int point_count, int index_count, uint32_t *indices,
                                 sinew__draco_stream *streams, int stream_count, char *why, size_t why_size);

/* sinew__draco_decode in a child process (src/import/wall_draco.c: why,
 * and the limits): its address space what the caller holds plus `budget`
 * (what is left of the load's limit) and room for code, CPU and wall time
 * options->assimp_timeout_ms (0: 10 s); a crash, a limit or a timeout
 * fails with a sentence in `why`. In the calling process where there is no
 * fork or options->assimp_in_process is set. */
struct sinew_load_options;
sinew_result sinew__draco_walled(const void *data, size_t size, int point_count, int index_count, uint32_t *indices,
                                 sinew__draco_stream *streams, int stream_count,
                                 const struct sinew_load_options *options, size_t budget, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
