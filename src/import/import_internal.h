/* SPDX-License-Identifier: MIT */
/* Shared by the loaders and the glTF writer: a file's node hierarchy into
 * a sinew skeleton, memory limits, the rotation of declared axes. */
#ifndef SINEW_IMPORT_INTERNAL_H
#define SINEW_IMPORT_INTERNAL_H

#include "asset/asset_internal.h"
#include "sinew/sinew_import.h"

/* The rotation matrix of a unit quaternion, row-major, in doubles: the
 * declared axes' rotations are signed permutations, whose entries the
 * callers then read (or round) to exact 0 and +-1. */
static inline void sinew__rotation_rows(sinew_quat q, double m[9])
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - z * w), m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w), m[4] = 1 - 2 * (x * x + z * z), m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w), m[7] = 2 * (y * z + x * w), m[8] = 1 - 2 * (x * x + y * y);
}

/* Zeroed memory for count * size bytes, or NULL (overflow included). */
void *sinew__import_alloc(const sinew_allocator *alloc, size_t count, size_t size);

/* The load's memory limit, for memory a loader spends outside the load's
 * allocator (a parser's own heap, the file read before the load) and for
 * sizes a file declares, checked before anything is allocated for them.
 * `alloc` is the allocator a loader was given: the load's budget, or any
 * other allocator (then the limit is SIZE_MAX and every charge fits).
 * sinew__import_charge counts `bytes` as spent and returns true, or
 * returns false, counting nothing, when they do not fit in what is left. */
bool sinew__import_charge(const sinew_allocator *alloc, size_t bytes);
size_t sinew__import_left(const sinew_allocator *alloc);
size_t sinew__import_limit(const sinew_allocator *alloc);

/* The work one glTF load did, counted so that tests can check it stays
 * linear in the input without timing it. */
typedef struct sinew_gltf_work {
    size_t json_bytes;   /* the JSON text */
    size_t json_values;  /* values in it, as the pre-parse scan counts them (an upper bound) */
    size_t tree_bytes;   /* the parsed tree's memory as counted against the load's limit */
    size_t visited;      /* JSON items the reader stepped onto: members searched, elements walked */
    size_t planned;      /* bytes the declared sizes ask for, checked before allocating */
} sinew_gltf_work;

/* sinew_load_memory for a glTF or GLB held in memory, with the reader's
 * work counted into *work (tests). */
sinew_asset *sinew__gltf_load_counted(const void *data, size_t size, const sinew_load_options *options,
                                      sinew_gltf_work *work, sinew_error *err);

/* One node of a file, as a joint to be. */
typedef struct import_node {
    int source;           /* the file's node index */
    int parent;           /* index into the same array, -1 for a root; any order */
    const char *name;
    sinew_transform rest;
    bool split;           /* the local transform is TRS(rest) * R(inner): a sheared matrix */
    sinew_quat inner;
} import_node;

/* A node's local matrix as its rest transform: a TRS when it is one, else
 * split (sinew_mat4_decompose_affine). Returns SINEW_ERROR_SINGULAR or
 * SINEW_ERROR_NOT_FINITE for matrices no joint can hold; *projective is
 * set when a last row other than (0, 0, 0, 1) was dropped. */
sinew_result sinew__import_matrix(const sinew_mat4 *m, import_node *node, bool *projective);

/* Builds asset->skeleton from `count` nodes (a split node becomes two
 * joints: "<name>#shear" outside, "<name>" inside, with a warning), and
 * fills asset->joint_sources, asset->node_joints (source_count entries,
 * -1 for file nodes that are not in `nodes`) and node_joint[i], the joint
 * that carries node i's world matrix. Errors come from the skeleton
 * builder, prefixed with `what` ("nodes"). */
sinew_result sinew__import_skeleton(sinew_asset *asset, const import_node *nodes, int count, int source_count,
                                    const char *what, const sinew_options *options, sinew_error *err,
                                    int *node_joint);

/* sinew_load_options.order_vertices_for_skinning: each skinned mesh of the
 * loaded asset in sinew_skin_vertex_order's order, every stream, morph
 * target and the skin moved with it and the triangles' indices mapped.
 * Scratch and the new skins come from `options`' allocator. */
sinew_result sinew__import_order_vertices(sinew_asset *asset, const sinew_options *options, sinew_error *err);

/* The loaders behind sinew_load_file/memory. They fill `asset` (made by
 * the caller, freed by it on failure) through `options`, whose allocator
 * counts against the load's memory limit. */
sinew_result sinew__gltf_load(const void *data, size_t size, bool owned, const char *base_dir,
                              const sinew_load_options *options, sinew_asset *asset, sinew_gltf_work *work,
                              sinew_error *err);

/* Everything that is not glTF (wall.c): a format read by default (FBX,
 * Collada, BVH, known by the bytes) or one the options allow (by `path`'s
 * extension; NULL for bytes in memory), read by Assimp in a child process
 * unless the options say to trust the file. Without Assimp in the build:
 * SINEW_ERROR_UNSUPPORTED naming the package that adds it. */
sinew_result sinew__assimp_load(const void *data, size_t size, const char *path, const sinew_load_options *options,
                                sinew_asset *asset, sinew_error *err);

/* Assimp in this process (assimp.c): the bytes read by the importer of
 * `extension` ("" lets Assimp guess from the bytes), the scene converted
 * into `asset`; `file_name` (the path's last part, or NULL) names what
 * Assimp names after the file. */
sinew_result sinew__assimp_read(const void *data, size_t size, const char *extension, const char *file_name,
                                const sinew_load_options *options, sinew_asset *asset, sinew_error *err);

/* A timeline from the JSON object `obj` ({"tracks": [...], "events":
 * [...]}, docs/ANIMATION.md) over `duration` (a glTF animation's
 * extras.sinew; timeline_json.c). Counts each JSON step in *visited;
 * errors name `path`. */
struct cJSON;
sinew_result sinew__timeline_from_json(const struct cJSON *obj, const char *path, float duration, size_t *visited,
                                       const sinew_options *options, sinew_timeline **out, sinew_error *err);

#endif
