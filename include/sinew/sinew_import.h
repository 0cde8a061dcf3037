/* SPDX-License-Identifier: MIT */
/*
 * sinew file loaders. glTF 2.0 (.gltf with data: URIs or external files, and
 * .glb) is read by sinew itself, on cJSON; FBX, Collada, BVH, OBJ and the
 * other formats Assimp 5.2 reads go through Assimp when the build has it
 * (docs/FORMATS.md says what becomes of them). Part of libsinew_import, which
 * links libsinew and cJSON; the runtime (sinew.h) never depends on it.
 *
 *   sinew_error err = {0};
 *   sinew_asset *a = sinew_load_file("hero.glb", NULL, &err);
 *   if (!a) { fprintf(stderr, "%s\n", err.description); return 1; }
 *   ...
 *   sinew_asset_free(a);
 *
 * Index: sinew_load_file sinew_load_memory (and sinew_load_options), sinew_load_events,
 * sinew_write_gltf (and sinew_gltf_write_options).
 *
 * What a glTF file becomes:
 * - every node is a joint (parents first; asset->joint_sources and
 *   asset->node_joints map between the two); a node matrix with shear
 *   becomes two joints, "<name>#shear" (translation, rotation, scale) and
 *   "<name>" (a rotation) whose product is the matrix exactly (a warning
 *   says so);
 * - every primitive of every node of the chosen scene is a sinew_mesh
 *   (a mesh drawn by two nodes gives two); strips and fans become triangle
 *   lists; missing normals are computed as the area-weighted average of
 *   the normals of the vertex's triangles (flat where vertices are not
 *   shared, as the specification asks), and tangents are then dropped;
 * - skins: every JOINTS_n/WEIGHTS_n set is read; a vertex with more than
 *   8 non-zero weights keeps its 8 heaviest; weights that do not sum to 1
 *   are divided by their sum; both are reported to the logger with counts;
 * - morph targets keep their deltas; default weights come from the node,
 *   else the mesh, else zeros; "weights" channels become weights tracks;
 * - animations become clips (duration: the last key over their channels).
 * - VRMC_springBone 1.0 becomes asset->springs (chains, colliders, groups,
 *   validated as the rest); a VRM 1.0 file (.vrm: glTF with VRMC_vrm
 *   required) loads as glTF, its humanoid, meta and expressions unread.
 *
 * Errors name the function, the file and the place of the problem, e.g.
 * "sinew_load_file: hero.gltf: accessors[3]: count 500 exceeds bufferViews[2]
 * (byteLength 1200)", "sinew_load_file: walk.fbx: the FBX importer crashed
 * (SIGSEGV) after 0.3 s". Only regular files are read (a directory, a named
 * pipe or a device is refused without waiting on it), and a file larger
 * than the load's memory limit is refused before it is read.
 * Nothing a file declares is allocated before it is checked against the
 * bytes that hold it. Some things a file may declare cost memory without
 * bytes behind them (an accessor with no bufferView is all zeros; one mesh
 * may be drawn by a thousand nodes), so every byte a load allocates counts
 * against a limit (sinew_options.max_memory); past it the load fails
 * with SINEW_ERROR_OUT_OF_MEMORY and says so. For glTF the limit covers
 * the file read, the JSON parser's tree (bounded from the text before it
 * is parsed) and what the declared counts ask for (every drawing of every
 * primitive, every animation's keys), all checked before allocating: a
 * file that would not fit is refused at once, naming the accessor or the
 * sampler and the limit. The reader's work is linear in the file.
 * EXT_meshopt_compression's bufferViews (a build with libmeshoptimizer-dev)
 * are decoded when the document opens, each field checked against the
 * specification and its buffer and the decoded bytes counted against the
 * limit first; without the library a file requiring it is refused naming
 * the package, one merely using it is read from its fallback buffer.
 *
 * glTF is read strictly: what the specification says a file MUST (NOT) do
 * is refused, naming the place: negative skin weights (used slots or not);
 * an attribute, index, key or value component type the specification's
 * tables do not allow (KHR_mesh_quantization's types when the file lists
 * it in extensionsUsed); an accessor offset (or view plus accessor offset,
 * or stride) not a multiple of its component size; a scene root that is
 * another node's child, or listed twice; a node with both a matrix and
 * translation, rotation or scale.
 */
#ifndef SINEW_IMPORT_H
#define SINEW_IMPORT_H

#include "sinew_asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a walled Assimp import runs (sinew_load_options.assimp_process). */
typedef enum sinew_assimp_process {
    /* a fork, or the worker program where this process holds 256 MiB or
     * more (its fork would cost in proportion) and the program is there */
    SINEW_ASSIMP_PROCESS_AUTO = 0,
    SINEW_ASSIMP_PROCESS_FORK = 1,   /* a fork of this process */
    SINEW_ASSIMP_PROCESS_WORKER = 2  /* the worker program; a load fails with a sentence where it is not found */
} sinew_assimp_process;

typedef struct sinew_load_options {
    sinew_options base;        /* allocator and logger for the asset */
    /* External buffer URIs that are absolute, climb out of the file's
     * folder ("../x.bin") or lead out of it through a symbolic link are
     * refused unless this is set. */
    bool allow_outside_paths;
    /* The scene whose meshes load (the skeleton always holds every node):
     * 0 means the file's default (its "scene", else scenes[0], else every
     * node when there are no scenes); k > 0 means scenes[k - 1]. */
    int scene;
    /* Formats read through Assimp (FBX, Collada, ...): merge the vertices
     * that are equal in every attribute (position, normal, texture
     * coordinates, colors, bone weights) into one and index them (Assimp's
     * JoinIdenticalVertices; Assimp otherwise gives each triangle corner a
     * vertex of its own: arnaud.fbx has 20,010 vertices as read, 3,748
     * welded). Nothing is approximated, but the vertex order and count
     * differ from the file's; and Assimp 5.2.5 also merges vertices that
     * differ only in vertex color (arnaud.fbx: 252 triangle corners change
     * color), which a warning says when a welded mesh has colors. glTF
     * meshes are read as their accessors index them, already shared. */
    bool weld_vertices;
    /* Each skinned mesh's vertices in the order sinew_skin_vertex_order
     * gives (grouped by the joints they follow, for faster CPU skinning):
     * every vertex stream, morph target and the skin are permuted alike and
     * the triangles' indices mapped, so the mesh draws and deforms the same
     * (tests/test_assimp_files.c checks it corner by corner). The vertex
     * order differs from the file's; after weld_vertices when both are set. */
    bool order_vertices_for_skinning;
    /* Formats Assimp reads besides the ones read by default (FBX, Collada
     * and BVH, which sinew knows by their bytes), by extension: "obj,ply",
     * or "*" for every one. A file of another format is refused with a
     * sentence naming its extension. Each format let in is more of
     * Assimp's parsers facing the file. */
    const char *assimp_formats;
    /* Assimp runs in a child process (on POSIX systems; Windows has no
     * fork, and there it runs in this process), under limits: its address
     * space what this process holds plus its share of the load's limit
     * (sinew_options.max_memory: what the file's bytes leave of it, once
     * for a fork, twice for the worker program, which gets a copy; half of
     * the rest to the child, half to this process for what the child sends
     * back, so that the two together stay within the limit) plus 256 MiB
     * for the importer's code and stacks, its CPU time
     * and wall time assimp_timeout_ms (0: 10 s; at most a day), no core
     * file, and it reads no file but the one given. Whatever the file does to
     * Assimp (a crash, an abort, an endless loop, runaway allocation) ends
     * the child, not the caller, and the load fails with a sentence naming
     * the importer and what happened; the child's result crosses back as
     * data this process checks before use. It is a wall against crashes
     * and runaway imports, not a sandbox against code running in the
     * child. The child costs a fork and a copy of the converted scene; a
     * fork shares this process's memory copy-on-write, so a process that
     * holds gigabytes pays in proportion, at the fork and again as it
     * writes its memory while the child lives (assimp_process below
     * starts a worker program instead). Set this for files you trust, to
     * run Assimp in this process. */
    bool assimp_in_process;
    unsigned assimp_timeout_ms;
    /* What the child is: a fork of this process, or a worker program
     * (sinew-import-worker), which starts small whatever this process
     * holds and runs the same import under the same limits. The worker is
     * looked for where the environment variable SINEW_IMPORT_WORKER says
     * (only there, when it is set); else in libexec/sinew beside the folder of the loaded
     * libsinew_import (or, linked statically, of this program: its bin
     * folder), then where the build was configured to install it, so an
     * installed tree may move; the logger says at info level which child
     * ran. See sinew_assimp_process. */
    sinew_assimp_process assimp_process;
    /* Assimp goes on past parts of a file it cannot read (an FBX skin
     * cluster whose arrays are corrupt is dropped, its vertices left with
     * weights that no longer sum to 1) and says so only to its logger. The
     * load listens: by default a file Assimp read only in part fails with
     * SINEW_ERROR_PARSE quoting Assimp ("the FBX importer read it only in
     * part: Assimp: ..."); set this to load what Assimp did read, with a
     * warning to the logger that quotes what it dropped. What Assimp says
     * that drops nothing sinew reads (objects it skips by design,
     * materials, its repairs) goes to the logger at info level either way. */
    bool accept_partial;
} sinew_load_options;

/* Loads a file: .gltf or .glb (told apart by content, not by name; relative
 * buffer URIs are resolved against the file's folder, percent-decoded), or
 * any format Assimp reads (SINEW_ERROR_UNSUPPORTED naming libassimp-dev
 * when the build has no Assimp). A file named .gltf or .glb that holds
 * neither JSON nor binary glTF fails with SINEW_ERROR_PARSE, "not glTF",
 * and its first bytes; it is not handed to Assimp. The asset's name is the
 * file's name without its folders, so that what is made of it is the same
 * however the file was reached; errors name the path as given. Returns
 * the asset, or NULL with `err` filled. Free with sinew_asset_free(). */
SINEW_API sinew_asset *sinew_load_file(const char *path, const sinew_load_options *options, sinew_error *err);

/* Loads a file held in memory (`data` is not kept), as sinew_load_file()
 * does. `base_dir` resolves relative URIs of a .gltf; NULL refuses every
 * external file. Assimp finds the format from the bytes alone. */
SINEW_API sinew_asset *sinew_load_memory(const void *data, size_t size, const char *base_dir,
                                         const sinew_load_options *options, sinew_error *err);

/* Reads an events sidecar file, the JSON form other tools write beside a
 * file whose clips carry no events (docs/ANIMATION.md):
 *
 *   {"clips": {"CLIP NAME": [{"name": "foot_l", "time": 0.3}, ...], ...}}
 *
 * and makes, for each clip of `asset` it names, a timeline over the clip's
 * duration holding those events (in place of the clip's own events, which
 * the logger hears of) and the clip's own user tracks (asset->timelines).
 * `timelines` receives asset->clip_count pointers, NULL for clips the file
 * does not name; free each with sinew_timeline_free(). The file and the
 * tree its JSON parses into are bounded by options->max_memory before
 * they are read. Errors name the file and the place: SINEW_ERROR_IO,
 * SINEW_ERROR_PARSE (JSON syntax, a clip the asset lacks or named twice,
 * an event without a name, a time negative or past the clip's end),
 * SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_INVALID_ARGUMENT. */
SINEW_API sinew_result sinew_load_events(const char *path, const sinew_asset *asset, const sinew_options *options,
                                         sinew_timeline **timelines, sinew_error *err);

/* ---- glTF out ------------------------------------------------------------- */

/* How sinew_write_gltf() stores skin weights (WEIGHTS_n). */
typedef enum sinew_gltf_weights {
    SINEW_GLTF_WEIGHTS_FLOAT = 0,   /* floats: the weights as the asset holds them */
    SINEW_GLTF_WEIGHTS_UNORM8 = 1,  /* normalized unsigned bytes, each vertex's summing to 255 exactly */
    SINEW_GLTF_WEIGHTS_UNORM16 = 2  /* normalized unsigned shorts, summing to 65535 exactly */
} sinew_gltf_weights;

/* Options of sinew_write_gltf(); zero-initialised means float weights,
 * clips as loaded (packed or compressed ones sampled at their
 * compression's rate, else 30 a second), lengths as the asset holds them
 * and every influence. */
typedef struct sinew_gltf_write_options {
    sinew_options base;          /* allocator, and the logger that hears what was left out */
    sinew_gltf_weights weights;
    /* Packed and compressed clips hold no tracks: they are sampled this
     * many times a second (and at their duration) into LINEAR tracks. 0:
     * a compressed clip's own sample rate, else 30. */
    float sample_rate;
    /* KHR_mesh_quantization (then listed as required): positions as
     * unsigned shorts on a grid of the mesh's largest side / 65,535, the
     * mesh's node (a skinned mesh: its inverse binds) scaling them back;
     * morph position deltas as shorts on the same grid where they fit;
     * normals and tangents as normalized bytes; texture coordinates and
     * colours within [0, 1] as normalized unsigned shorts. A vertex moves
     * by at most 0.87 of a grid step, before skinning. */
    bool quantize;
    /* EXT_meshopt_compression (then listed as required): vertex and index
     * bufferViews stored compressed by meshoptimizer (lossless), their
     * uncompressed layout in a second buffer without data, the
     * extension's fallback. Fails with SINEW_ERROR_UNSUPPORTED in a sinew
     * built without libmeshoptimizer-dev. */
    bool meshopt;
    /* Above 0: every clip, exact ones too, is sampled this many times a
     * second (and at its duration) into LINEAR tracks, rotations as
     * sinew_clip_sample() gives them (in place of sample_rate for packed
     * and compressed clips); a translation, rotation or scale that stays
     * at the rest pose gets no track, one that stays still one key.
     * Weights tracks keep their keys. Each resampled clip is measured
     * against the clip it was sampled from by sinew_clip_measure_error()
     * (at its key times and at least 60 times a second, on virtual
     * vertices shell_distance from each joint): report->resample_error,
     * clip_errors. 0: clips with their keys and interpolation as loaded. */
    float resample_rate;
    /* Of the virtual vertices the resampling error is measured on, in the
     * asset's units (0: 3 cm, taking the written units as meters: 0.03 /
     * scale). */
    float shell_distance;
    /* Optional, asset->clip_count floats: receives each clip's measured
     * resampling error in the written units (packed and compressed clips
     * are resampled too), -1 for a clip written with its own keys, NaN
     * where it could not be measured (a pose past a float's range; the
     * logger says why, and the clip is written all the same). */
    float *clip_errors;
    /* Every length is multiplied by this as it is written (0: 1): joints'
     * rest translations, translation keys (a spline's tangents too), mesh
     * positions, morph position deltas, inverse binds' translations,
     * spring colliders' offsets, tails and radii, spring joints' hit
     * radii, stiffness and gravity (lengths a second): the asset scaled
     * about its origin, so that a file in centimeters comes out in
     * meters (0.01), as glTF asks. Rotations, scales and weights stay. */
    float scale;
    /* 1 to 8: each vertex keeps its this many largest weights (three.js
     * skins with 4), renormalized to sum to 1 (report->limited_vertices,
     * dropped_weight); 0: every influence, up to 8. */
    int max_influences;
    /* Turns the asset about its origin as it is written, a unit quaternion
     * (all 0: none, the identity; one off unit length by more than 1e-3 is
     * refused, else normalized): root joints' rest translations and
     * rotations and their translation and rotation keys (a spline's
     * tangents too; packed, compressed and resampled clips after
     * sampling), the vertices, normals, tangents and morph deltas of
     * skinned meshes and of meshes that follow no joint, skinned meshes'
     * inverse binds (IBM * R^-1, so that skinning gives R times the
     * source), and spring joints' gravity directions. Joints below a root,
     * meshes under a joint and spring colliders are in their node's
     * space and stay. No wrapper node is added. sinew convert passes
     * sinew_asset.axis_rotation, turning a file's declared axes into
     * glTF's Y up. */
    sinew_quat rotation;
} sinew_gltf_write_options;

/* What sinew_write_gltf() wrote. */
typedef struct sinew_gltf_write_report {
    int nodes, meshes, skins, animations, accessors;
    size_t json_bytes, bin_bytes;  /* the JSON text and the binary buffer */
    int resampled_clips;           /* packed or compressed clips sampled into tracks */
    int dropped_tracks;            /* weights tracks of a joint carrying no mesh of their width (logged) */
    int repaired_vectors;          /* normals and tangents made unit length (or a zero one (0, 0, 1)),
                                      tangent w set to its sign, as the specification asks */
    int merged_influences;         /* a vertex's influences naming one joint twice, merged into one */
    int quantized_meshes;          /* meshes written with KHR_mesh_quantization */
    float quantize_step;           /* the largest of their position grids' steps, in the written units:
                                      a vertex lies within 0.87 of it (half a step on each axis) of where
                                      it was, before skinning and morphing */
    int normalized_vertices;       /* float weights whose sum was off 1 by more than the Khronos validator
                                      allows (2e-7 a weight; the loaders keep sums within 1e-5),
                                      divided by it */
    int meshopt_views;             /* bufferViews written with EXT_meshopt_compression */
    size_t meshopt_bytes;          /* the bytes they hold uncompressed (the fallback buffer's length) */
    float resample_error;          /* the largest error of a resampled clip (options->resample_rate, and
                                      packed or compressed clips) in the written units, as measured by
                                      sinew_clip_measure_error(); NaN where one was not measured */
    int limited_vertices;          /* vertices that lost weights to options->max_influences */
    float dropped_weight;          /* the largest weight one of them lost */
} sinew_gltf_write_report;

/* Writes `asset` (loaded from any format, an archive, or the built-in
 * character) as glTF 2.0: binary .glb, or .gltf with a .bin of the same
 * name beside it, by the extension of `path` (any other is refused).
 * docs/GLTF_OUT.md tells it all; in short:
 * - joint j is nodes[j], with its name and rest translation, rotation and
 *   scale (defaults left out); the skeleton's roots make scenes[0];
 * - mesh m is meshes[m], one primitive (POSITION with min and max, NORMAL,
 *   TANGENT, TEXCOORD_n, COLOR_0, indices as unsigned shorts where the mesh
 *   has at most 65,535 vertices, else unsigned ints; morph targets and
 *   their default weights; options->quantize: KHR_mesh_quantization's
 *   types; options->meshopt: vertex and index views compressed with
 *   EXT_meshopt_compression), drawn by node joint_count + m (named after the mesh, or
 *   "NAME#meshM" where a joint or an earlier mesh's node has that name):
 *   a child of the joint carrying a rigid mesh, a root for a skinned mesh
 *   (glTF ignores its transform) or one that follows no joint. A skinned
 *   mesh's skin lists its joints' nodes and inverse binds; JOINTS_0 (and
 *   JOINTS_1 past 4 influences; options->max_influences keeps each
 *   vertex's largest) as unsigned bytes where the skin has at
 *   most 256 joints, else unsigned shorts; WEIGHTS_n as options->weights
 *   says, each vertex's summing to 1 as the Khronos validator checks;
 * - clip c is animations[c], its tracks' keys and interpolation as they
 *   are (a weights track drives the nodes of the meshes its joint
 *   carries); a clip lasting past its last key gains a constant channel
 *   to keep its duration; packed and compressed clips are sampled (see
 *   sample_rate), every clip with options->resample_rate, and each
 *   sampled clip's error measured; additive clips are refused;
 * - asset->springs as VRMC_springBone 1.0, asset->timelines as each
 *   animation's extras.sinew (docs/ANIMATION.md).
 * Positions are written in the asset's own frame, its lengths multiplied
 * by options->scale (an asset records neither its up axis nor its unit:
 * the caller says how to reach meters).
 * The same asset gives the same bytes. Memory comes from
 * options->base.allocator; the file is written in place (a write that
 * fails may leave part of it). `report` (optional) says what was written
 * and repaired. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL, an extension other than .glb or
 * .gltf, an option out of range), SINEW_ERROR_UNSUPPORTED (an additive
 * clip, a mesh of no vertices, a .glb past 4 GiB, options->meshopt in a
 * build without libmeshoptimizer-dev), SINEW_ERROR_IO,
 * SINEW_ERROR_OUT_OF_MEMORY. */
SINEW_API sinew_result sinew_write_gltf(const sinew_asset *asset, const char *path,
                                        const sinew_gltf_write_options *options, sinew_gltf_write_report *report,
                                        sinew_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_IMPORT_H */
