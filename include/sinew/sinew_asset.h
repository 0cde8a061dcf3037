/* SPDX-License-Identifier: MIT */
/*
 * sinew assets: a skeleton with its clips and meshes, as loaders and the
 * built-in demo character produce them. Part of the core library (libc,
 * libm and the platform's threads). Every field is read-only;
 * sinew_asset_free() releases it all (spring bones' descriptions included:
 * they live in the asset's own memory).
 *
 *   sinew_error err = {0};
 *   sinew_asset *a = sinew_demo_create(NULL, &err);
 *   if (!a) { fprintf(stderr, "%s\n", err.description); return 1; }
 *   const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
 *   ... sample walk on a->skeleton, skin a->meshes[0] (see sinew.h) ...
 *   sinew_asset_free(a);
 *
 * Index, by pipeline stage:
 *
 *   Assets       sinew_demo_create sinew_asset_find_clip sinew_asset_free
 *   Posing       sinew_mesh_pose_scratch_size sinew_mesh_pose
 *   One call     sinew_instance_create sinew_instance_update sinew_instance_model
 *   a frame      sinew_instance_positions sinew_instance_normals sinew_instance_free
 */
#ifndef SINEW_ASSET_H
#define SINEW_ASSET_H

#include "sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One triangle mesh with separate attribute streams, each starting on a
 * 64-byte boundary (a cache line: the skinning kernels read them fastest). */
typedef struct sinew_mesh {
    const char *name;         /* never NULL */
    int vertex_count;
    const float *positions;   /* 3 floats per vertex, bind pose, model space */
    const float *normals;     /* 3 per vertex, or NULL */
    const float *tangents;    /* 4 per vertex (w = bitangent sign), or NULL */
    int texcoord_count;              /* texture coordinate sets */
    const float *const *texcoords;   /* texcoords[n]: set n (glTF TEXCOORD_n), 2 floats per vertex */
    const float *colors;      /* linear RGBA, 4 per vertex (glTF COLOR_0), or NULL */
    int index_count;          /* a multiple of 3 */
    const uint32_t *indices;  /* triangle list, counter-clockwise front faces */
    const sinew_skin *skin;   /* NULL for a rigid mesh */
    const sinew_morph *morph; /* morph targets, or NULL */
    const float *morph_weights; /* morph->target_count default weights, or NULL without targets */
    int joint;                /* the joint carrying it (a rigid mesh moves with it, its weights
                                 tracks animate the morph targets), -1 for none */
    int source_node;          /* the file's node that draws it, -1 if none */
    int source_mesh;          /* the file's mesh and primitive it came from, -1 if none */
    int source_primitive;
} sinew_mesh;

typedef struct sinew_asset {
    const char *name;                 /* never NULL */
    const sinew_skeleton *skeleton;   /* never NULL */
    const int *joint_sources;         /* per joint: the file's node index (-1 for none), or NULL
                                         (built-in) */
    int node_count;                   /* nodes of the file (0 for the built-in character) */
    const int *node_joints;           /* per node: the joint whose model matrix is its world matrix,
                                         -1 for a node that is not a joint (Assimp's helper nodes,
                                         cameras and other nodes outside the skeleton) */
    int clip_count;
    const sinew_clip *const *clips;   /* each animates `skeleton` */
    int mesh_count;
    const sinew_mesh *meshes;
    /* Spring bones (a glTF file's VRMC_springBone, an archive's springs
     * section), as plain data ready for sinew_springs_create(skeleton,
     * springs, ...): joints are skeleton joints, every array is the asset's
     * own and read-only; NULL when there are none. The loaders check that
     * sinew_springs_create() accepts it. Chains are in the file's order
     * (springs without a bone are left out, with a warning). */
    const sinew_springs_desc *springs;
    const char *const *spring_names;  /* per chain: its name ("" for none); NULL without springs */
    /* Per clip: its user tracks and events (a glTF animation's extras, an
     * archive's timelines section; docs/ANIMATION.md), timelines[i] on
     * clips[i]'s time, NULL where a clip has none; the array is NULL where
     * no clip has one. */
    const sinew_timeline *const *timelines;
    /* The length unit of the asset's coordinates, in metres, as the source
     * file declares it; 0: not declared. glTF: 1 (metres by the
     * specification); FBX: its GlobalSettings UnitScaleFactor (centimetres
     * per unit: 0.01 for centimetres, 1 for metres, 0.0254 for inches);
     * Collada: 1 (Assimp scales the file's <unit> to metres as it reads
     * it); the built-in character: 1. BVH, the other Assimp formats and
     * archives (whose format holds no unit): 0. Loaders refuse a unit that
     * is not finite, not above 0 or out of 1e-5 to 1e5 m, leaving 0 with a
     * warning. */
    float meters_per_unit;
    /* The rotation that turns the asset's coordinates from the axes its
     * file declares into glTF's (+Y up, +Z front, +X the coord axis), a
     * unit quaternion; sinew convert passes it to the glTF writer
     * (sinew_gltf_write_options.rotation). FBX: from GlobalSettings' UpAxis,
     * FrontAxis and CoordAxis and their signs, which Assimp reports and
     * does not apply (the rows of its matrix are the coord, up and front
     * directions, so a Z-up file with FrontAxis -Y turns -90 degrees about
     * X). Identity for glTF (Y up by the specification), the built-in
     * character, Collada (Assimp turns it to Y up as it reads it), BVH,
     * archives (whose format holds no axes) and the other formats, and for
     * FBX axes that are not three distinct axes with signs of +-1 or that
     * mirror glTF's (no rotation turns them), each with a warning. */
    sinew_quat axis_rotation;
} sinew_asset;

/* Frees the asset and everything it holds: skeleton, clips, meshes and their
 * skins (NULL is fine). */
SINEW_API void sinew_asset_free(sinew_asset *asset);

/* Returns the first clip named `name`, or NULL. */
SINEW_API const sinew_clip *sinew_asset_find_clip(const sinew_asset *asset, const char *name);

/* How a skinned mesh blends its palette. */
typedef enum sinew_skinning {
    SINEW_SKINNING_LBS = 0, /* linear blend skinning */
    SINEW_SKINNING_DQS = 1  /* dual quaternion skinning */
} sinew_skinning;

/* Bytes of scratch memory sinew_mesh_pose() needs for `mesh` (its palette;
 * 0 for a rigid mesh). */
SINEW_API size_t sinew_mesh_pose_scratch_size(const sinew_mesh *mesh);

/* Poses one mesh of an asset in the asset's model space: morph targets
 * first (`morph_weights`, morph->target_count floats, NULL for the mesh's
 * defaults), then for a skinned mesh the skin's palette from `model`
 * (model_count model-space matrices of the asset's skeleton) blended by
 * `method`, normals by the inverse transpose of the blended matrix (exact
 * under non-uniform scale and shear, where blending per-joint normal
 * matrices, as the glTF sample viewer does, is not; the skin jobs offer the
 * cheaper SINEW_NORMALS_FAST); for a rigid mesh its joint's model matrix
 * (normals by its inverse transpose; a mesh with joint -1 stays as it is). Outputs:
 * positions and normals 3 floats per vertex, tangents 4, each optional.
 * Normals and tangents come out unit length. `scratch` is caller-owned,
 * at least sinew_mesh_pose_scratch_size() bytes, aligned to 16; nothing is
 * allocated. Errors: SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_BUFFER_TOO_SMALL
 * (scratch or model_count), SINEW_ERROR_SINGULAR (DQS on a singular palette
 * matrix). */
SINEW_API sinew_result sinew_mesh_pose(const sinew_mesh *mesh, const sinew_mat4 *model, int model_count,
                                       const float *morph_weights, sinew_skinning method, void *scratch,
                                       size_t scratch_size, float *positions, float *normals,
                                       float *tangents, sinew_error *err);

/* ---- one call a frame ------------------------------------------------------ */

/* A character playing one clip, with every buffer a frame needs made once:
 * sinew_instance_update(inst, t) samples the clip at t into model space
 * (sinew_clip_sample_model), its morph weights tracks, and poses each mesh
 * (sinew_mesh_pose) into the instance's own position and normal streams,
 * without allocating. The common case in one call; engines that blend,
 * layer or spread the work over threads use those steps themselves. */
typedef struct sinew_instance sinew_instance;

/* How an instance plays; zero-initialised means LBS, looping. */
typedef struct sinew_instance_options {
    sinew_skinning method;
    bool no_loop; /* clamp the time to the clip instead of wrapping it */
} sinew_instance_options;

/* Makes an instance of `asset` playing `clip` (one of the asset's clips,
 * or any clip of its skeleton's joint count; NULL: the rest pose).
 * `settings` may be NULL. The asset and the clip must outlive the
 * instance. Returns NULL with `err` filled: SINEW_ERROR_INVALID_ARGUMENT
 * (no asset, an additive clip, an unknown method),
 * SINEW_ERROR_SIZE_MISMATCH (a clip of another joint count),
 * SINEW_ERROR_OUT_OF_MEMORY. Free with sinew_instance_free(). */
SINEW_API sinew_instance *sinew_instance_create(const sinew_asset *asset, const sinew_clip *clip,
                                                const sinew_instance_options *settings,
                                                const sinew_options *options, sinew_error *err);

/* Frees an instance (NULL is fine). */
SINEW_API void sinew_instance_free(sinew_instance *inst);

/* Poses the instance at clip time `time` (seconds; wrapped, or clamped
 * with no_loop): the skeleton's model matrices, then every mesh's skinned
 * (or carried) positions and normals, read with the accessors below.
 * Errors: those of the steps it makes (a time that is not finite among
 * them), the sentence starting with this function's name. */
SINEW_API sinew_result sinew_instance_update(sinew_instance *inst, float time, sinew_error *err);

/* The skeleton's model-space matrices of the last update (joint_count of
 * them), or NULL for a NULL instance. */
SINEW_API const sinew_mat4 *sinew_instance_model(const sinew_instance *inst);

/* Mesh `mesh`'s posed positions (3 floats a vertex, in the asset's model
 * space) of the last update, or NULL for a mesh out of range. */
SINEW_API const float *sinew_instance_positions(const sinew_instance *inst, int mesh);

/* Mesh `mesh`'s posed unit normals, or NULL (a mesh without normals, out
 * of range). */
SINEW_API const float *sinew_instance_normals(const sinew_instance *inst, int mesh);

/* Builds the built-in demo character in code, with no files: "sinew_demo", a
 * 26-joint humanoid in an A-pose (Y up, facing +Z, metres), one skinned mesh
 * of 6,023 vertices with smooth weights of up to 4 influences (u8 joint
 * indices, float weights), normals, tangents and texture coordinates, two
 * clips: "walk" (1 s cycle, LINEAR keys at 30 fps, moving forward 1.3 m per
 * cycle on the root joint) and "idle" (3 s, CUBICSPLINE keys at irregular
 * times with non-uniform chest scale for breathing, and one STEP track), and
 * a ponytail on spring bones: joints 22 to 25 ("ponytail_0" below the head
 * to "ponytail_3", after the body's 22 so that their indices stay), skinned
 * into the mesh, one chain "ponytail" in asset->springs (stiffness 0.6,
 * drag 0.2, gravity 0.6 down, hit radius 0.02) kept off two spheres, on
 * the head and on the chest. No clip animates the ponytail: the springs do.
 * Deterministic: every call builds the same data. Errors only for
 * allocation failure. */
SINEW_API sinew_asset *sinew_demo_create(const sinew_options *options, sinew_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_ASSET_H */
