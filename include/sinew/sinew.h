/* SPDX-License-Identifier: MIT */
/*
 * sinew: skeletal animation and skinning. The runtime API.
 *
 * The runtime depends on libc, libm and the platform's threads only. It
 * never allocates inside a frame: objects are created once (create
 * functions allocate through an optional allocator and validate
 * everything), and every per-frame step writes into buffers the caller
 * owns. Functions hold no global state and are safe to call from several
 * threads on distinct outputs. Loading files is libsinew_import's
 * (sinew_import.h), the GPU libsinew_gpu's (sinew_gpu.h); both fill or read
 * the plain objects below.
 *
 * A frame, step by step:
 *
 *   1. sinew_clip_sample()      clip at time t -> local pose (one TRS per joint)
 *   2. sinew_local_to_model()   local pose -> model-space matrices, parents first
 *   3. sinew_skin_palette()     palette[j] = model[skin->joints[j]] * inverse_bind[j]
 *   4. sinew_skin_lbs()         linear blend skinning of positions, normals, tangents
 *      or sinew_dq_palette() + sinew_skin_dqs()   dual-quaternion skinning
 *
 *   Steps 1 and 2 in one call, when nothing changes the pose between them:
 *   sinew_clip_sample_model() (one pass for a clip made for its skeleton).
 *
 *   sinew_cursor cur = { keys, sinew_clip_cursor_size(clip) };  // keys: caller's int32 array
 *   sinew_clip_sample(clip, skeleton, t, SINEW_SAMPLE_LOOP, &cur, local, n, &err);
 *   sinew_local_to_model(skeleton, local, NULL, model, n, &err);
 *   sinew_skin_palette(skin, model, n, NULL, palette, skin->joint_count, &err);
 *   sinew_skin_lbs(&(sinew_skin_job){ .skin = skin, .palette = palette,
 *                  .palette_count = skin->joint_count,
 *                  .positions = pos, .out_positions = out_pos }, &err);
 *
 * Index, by pipeline stage:
 *
 *   Results      sinew_version sinew_result_name sinew_result_text
 *   Math         sinew_vec3_* sinew_quat_* sinew_mat4_* sinew_transform_identity
 *   Skeleton     sinew_skeleton_create sinew_skeleton_free sinew_skeleton_find_joint
 *                sinew_skeleton_depth sinew_name_hash
 *   Clips        sinew_clip_create sinew_clip_free sinew_clip_bytes sinew_clip_key_count
 *                sinew_track_components
 *   Sampling     sinew_clip_cursor_size sinew_clip_time sinew_clip_sample
 *                sinew_clip_sample_model sinew_clip_sample_weights sinew_track_sample
 *   Offline      sinew_clip_pack sinew_clip_compress sinew_clip_compression sinew_clip_optimize
 *                sinew_clip_retarget sinew_clip_measure_error
 *   (build once) sinew_clip_make_additive sinew_skin_vertex_order
 *   Poses        sinew_local_to_model sinew_local_to_model_from sinew_rest_pose
 *                sinew_pose_from_transforms sinew_pose_to_transforms (SoA poses)
 *                sinew_skeleton_pose_order sinew_clip_sample_pose sinew_pose_order_from_transforms
 *                sinew_pose_order_to_transforms sinew_local_to_model_pose
 *   Layer        sinew_blend sinew_blend_pose sinew_additive_delta sinew_additive_apply
 *                sinew_additive_apply_pose
 *                sinew_playback_start sinew_playback_advance sinew_playback_phase
 *                sinew_playback_advance_synced sinew_crossfade_start
 *                sinew_crossfade_advance sinew_crossfade_weight
 *                sinew_blend_space_1d sinew_blend_space_2d
 *   Timelines    sinew_timeline_create sinew_timeline_free sinew_timeline_find_track
 *                sinew_timeline_track_offset sinew_user_track_sample sinew_timeline_sample
 *                sinew_timeline_compress sinew_playback_span sinew_crossfade_spans
 *                sinew_events_crossed
 *                sinew_ik_two_bone sinew_ik_two_bone_pose sinew_ik_chain sinew_ik_chain_pose
 *                sinew_ik_aim sinew_ik_aim_pose sinew_root_motion
 *   Springs      sinew_spring_joint_default sinew_springs_create sinew_springs_free
 *                sinew_spring_state_create sinew_spring_state_free sinew_spring_state_copy
 *                sinew_springs_reset sinew_springs_step
 *   Morphs       sinew_morph_apply
 *   Skins        sinew_skin_create sinew_skin_free sinew_skin_vertex
 *                sinew_skin_vertex_stored sinew_skin_palette sinew_dq_palette
 *                sinew_palette_is_conformal
 *   Skinning     sinew_simd_supported sinew_simd_name sinew_skin_inputs_create
 *                sinew_skin_inputs_free sinew_skin_job_validate sinew_skin_lbs
 *                sinew_skin_dqs
 *   Threads      sinew_pool_create sinew_pool_free sinew_pool_threads sinew_pool_run
 *                sinew_pool_wake sinew_skin_lbs_parallel sinew_skin_dqs_parallel
 *
 * Conventions:
 *   - quaternions are (x, y, z, w); matrices are column-major 4x4 as in glTF
 *     and OpenGL: element (row r, column c) is m[c * 4 + r], and a point is
 *     transformed as M * (x, y, z, 1);
 *   - a transform is translation * rotation * scale (scale applied first);
 *   - joints are stored parents first: parents[j] < j, -1 for a root;
 *   - every function that can fail returns a sinew_result and, when the
 *     optional `err` is not NULL, fills it with the result and a sentence that
 *     names the place (a joint, a track, a key, a vertex). The library never
 *     prints; warnings (data that was repaired) go to the optional logger.
 *   - a create function takes its inputs, then `options` where it allocates,
 *     then `err`; it returns the new object, or NULL with `err` filled, and
 *     the object is freed by its own sinew_<object>_free (NULL is fine);
 *   - an error's sentence starts with the public function's name
 *     ("sinew_clip_create: track 3 (joint 5, rotation): ...");
 *   - zero-initialised option structs mean defaults.
 */
#ifndef SINEW_H
#define SINEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SINEW_VERSION_MAJOR 0
#define SINEW_VERSION_MINOR 1
#define SINEW_VERSION_PATCH 0
#define SINEW_VERSION_STRING "0.1.0"

/* Most joints in one skeleton: parent indices are int16 with -1 for none. */
#define SINEW_MAX_JOINTS 32767
/* Most influences (joint, weight pairs) per skinned vertex. */
#define SINEW_MAX_INFLUENCES 8
/* Most morph targets (blend shapes) per mesh, and so weights per track. */
#define SINEW_MAX_MORPH_TARGETS 1024

#if defined(_WIN32) && defined(SINEW_SHARED)
#  ifdef SINEW_BUILDING
#    define SINEW_API __declspec(dllexport)
#  else
#    define SINEW_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define SINEW_API __attribute__((visibility("default")))
#else
#  define SINEW_API
#endif

/* Returns the library's version as "MAJOR.MINOR.PATCH". */
SINEW_API const char *sinew_version(void);

/* ======================================================================== */
/* Results, errors, logging, allocation                                      */
/* ======================================================================== */

/* One list makes the enum, sinew_result_name() and sinew_result_text().
 * Each result keeps its number in every version: a new result takes the
 * next number, and none is ever renumbered or reused. */
#define SINEW_RESULT_LIST(X)                                                   \
    X(SINEW_OK, 0, "ok")                                                       \
    X(SINEW_ERROR_INVALID_ARGUMENT, 1, "invalid argument")                     \
    X(SINEW_ERROR_OUT_OF_MEMORY, 2, "out of memory")                           \
    X(SINEW_ERROR_BUFFER_TOO_SMALL, 3, "buffer too small")                     \
    X(SINEW_ERROR_SIZE_MISMATCH, 4, "sizes do not match")                      \
    X(SINEW_ERROR_TOO_MANY_JOINTS, 5, "too many joints")                       \
    X(SINEW_ERROR_BAD_PARENT, 6, "parent index out of range")                  \
    X(SINEW_ERROR_CYCLE, 7, "joint hierarchy has a cycle")                     \
    X(SINEW_ERROR_UNKNOWN_JOINT, 8, "joint name not found")                    \
    X(SINEW_ERROR_BAD_JOINT_INDEX, 9, "joint index out of range")              \
    X(SINEW_ERROR_BAD_WEIGHT, 10, "negative or NaN weight")                    \
    X(SINEW_ERROR_ZERO_WEIGHT, 11, "vertex weights sum to zero")               \
    X(SINEW_ERROR_NOT_FINITE, 12, "NaN or infinite value")                     \
    X(SINEW_ERROR_BAD_ROTATION, 13, "rotation quaternion of zero length")      \
    X(SINEW_ERROR_KEYS_NOT_INCREASING, 14, "key times not strictly increasing") \
    X(SINEW_ERROR_DUPLICATE_TRACK, 15, "two tracks animate the same joint value") \
    X(SINEW_ERROR_SHEAR, 16, "matrix has shear or projection")                 \
    X(SINEW_ERROR_SINGULAR, 17, "matrix is not invertible")                    \
    X(SINEW_ERROR_IO, 18, "file could not be read")                            \
    X(SINEW_ERROR_PARSE, 19, "malformed file")                                 \
    X(SINEW_ERROR_TRUNCATED, 20, "data shorter than declared")                 \
    X(SINEW_ERROR_OUT_OF_BOUNDS, 21, "range outside its container")            \
    X(SINEW_ERROR_BAD_REFERENCE, 22, "index refers to nothing")                \
    X(SINEW_ERROR_BAD_URI, 23, "URI refused or malformed")                     \
    X(SINEW_ERROR_UNSUPPORTED, 24, "feature not supported")                    \
    X(SINEW_ERROR_GPU, 25, "graphics driver failed")

typedef enum sinew_result {
#define SINEW__RESULT_ENUM(name, number, text) name = number,
    SINEW_RESULT_LIST(SINEW__RESULT_ENUM)
#undef SINEW__RESULT_ENUM
} sinew_result;

/* Returns the enumerator's name ("SINEW_ERROR_CYCLE"), or "SINEW_UNKNOWN"
 * for a value outside the enum. The string is static. */
SINEW_API const char *sinew_result_name(sinew_result result);

/* Returns a short lower-case description of the result ("joint hierarchy
 * has a cycle"). The string is static. */
SINEW_API const char *sinew_result_text(sinew_result result);

/* Filled by functions that fail, when the caller passes one. `description`
 * is a full sentence naming the place, e.g.
 * "track 3 (joint 5, rotation): key 7 time 0.25 is not after key 6 time 0.25". */
typedef struct sinew_error {
    sinew_result result;
    char description[256];
} sinew_error;

typedef enum sinew_log_level {
    SINEW_LOG_INFO = 0,
    SINEW_LOG_WARNING = 1
} sinew_log_level;

/* Receives the library's warnings: data that sinew accepted but repaired
 * (weights that did not sum to 1, duplicate joint names, non-unit rotation
 * keys). `message` lives only during the call. */
typedef struct sinew_logger {
    void (*log)(void *user, sinew_log_level level, const char *message);
    void *user;
} sinew_logger;

/* Allocation used by create functions; both NULL means malloc and free.
 * The object remembers its allocator so that its free function uses it. */
typedef struct sinew_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} sinew_allocator;

/* SIMD levels of the CPU kernels (sampling, local to model, palette,
 * skinning). The scalar code is the reference; the SIMD kernels agree with it
 * as each function states (within 1e-6 relative at most). */
typedef enum sinew_simd {
    SINEW_SIMD_AUTO = 0,    /* the best level this CPU runs */
    SINEW_SIMD_SCALAR = 1,  /* the scalar reference (SSE2 code on x86-64) */
    SINEW_SIMD_AVX2 = 2,    /* AVX2 (and FMA in skinning) */
    SINEW_SIMD_AVX512 = 3,  /* AVX-512 F, DQ and VL (skinning: 8 lanes, with
                               masks and embedded broadcasts; local to model:
                               a joint per 512-bit vector, AVX2's bits;
                               springs: AVX2's kernel with 32 vector
                               registers) */
    SINEW_SIMD_NEON = 4     /* Arm Advanced SIMD (AArch64): LBS's blend; local
                               to model runs NEON at every level there */
} sinew_simd;

/* Options for every create function. Zero-initialised means malloc/free,
 * no logging and the best SIMD level. Passing NULL is the same as a zeroed
 * struct. */
typedef struct sinew_options {
    sinew_allocator allocator;
    sinew_logger logger;
    /* The kernels the created object runs (skeletons: local to model;
     * clips: sampling; skins: palette and the default of their jobs): a
     * level above what the CPU runs falls back to the best below it, and a
     * level of another architecture (NEON on x86-64, AVX on AArch64) to the
     * scalar reference. */
    sinew_simd simd;
    /* Loads only (sinew_load_file and sinew_load_memory, sinew_archive_load*,
     * sinew_archive_view): the most memory one load may cause to be held at
     * once, its input file included; a file or a declared size that would
     * pass it is refused before it is allocated, with a sentence naming the
     * place and this limit. 0 means SINEW_DEFAULT_MAX_MEMORY. */
    size_t max_memory;
} sinew_options;

/* The memory limit of a load whose options leave it at 0 (512 MiB): room
 * for any game character and its clips; raise it for larger scenes. */
#define SINEW_DEFAULT_MAX_MEMORY ((size_t)512 << 20)

/* ======================================================================== */
/* Math                                                                      */
/* ======================================================================== */

typedef struct sinew_vec3 { float x, y, z; } sinew_vec3;
typedef struct sinew_quat { float x, y, z, w; } sinew_quat;
/* Column-major: element (row r, column c) is m[c * 4 + r]; m[12..14] is the
 * translation. */
typedef struct sinew_mat4 { float m[16]; } sinew_mat4;
/* translation * rotation * scale. */
typedef struct sinew_transform {
    sinew_vec3 translation;
    sinew_quat rotation;
    sinew_vec3 scale;
} sinew_transform;

/* Returns (x, y, z). */
SINEW_API sinew_vec3 sinew_vec3_make(float x, float y, float z);
/* Returns a + b. */
SINEW_API sinew_vec3 sinew_vec3_add(sinew_vec3 a, sinew_vec3 b);
/* Returns a - b. */
SINEW_API sinew_vec3 sinew_vec3_sub(sinew_vec3 a, sinew_vec3 b);
/* Returns a * s. */
SINEW_API sinew_vec3 sinew_vec3_scale(sinew_vec3 a, float s);
/* Returns the dot product of a and b. */
SINEW_API float sinew_vec3_dot(sinew_vec3 a, sinew_vec3 b);
/* Returns the cross product a x b. */
SINEW_API sinew_vec3 sinew_vec3_cross(sinew_vec3 a, sinew_vec3 b);
/* Returns the Euclidean length of a. */
SINEW_API float sinew_vec3_length(sinew_vec3 a);
/* Returns a / |a|, or (0, 0, 0) when |a| is 0. */
SINEW_API sinew_vec3 sinew_vec3_normalize(sinew_vec3 a);
/* Returns a + (b - a) * t; t = 0 returns a exactly. */
SINEW_API sinew_vec3 sinew_vec3_lerp(sinew_vec3 a, sinew_vec3 b, float t);

/* Returns the identity rotation (0, 0, 0, 1). */
SINEW_API sinew_quat sinew_quat_identity(void);
/* Returns the rotation of `radians` about `axis` (normalized here; a zero
 * axis gives the identity). */
SINEW_API sinew_quat sinew_quat_from_axis_angle(sinew_vec3 axis, float radians);
/* Returns the Hamilton product a * b: the rotation b followed by a. */
SINEW_API sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b);
/* Returns the conjugate (-x, -y, -z, w), the inverse of a unit quaternion. */
SINEW_API sinew_quat sinew_quat_conjugate(sinew_quat q);
/* Returns the 4D dot product. */
SINEW_API float sinew_quat_dot(sinew_quat a, sinew_quat b);
/* Returns q / |q|, or the identity when |q| is 0 or not finite. */
SINEW_API sinew_quat sinew_quat_normalize(sinew_quat q);
/* Returns v rotated by the unit quaternion q. */
SINEW_API sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v);
/* Shortest-path normalized linear interpolation: b is negated when
 * dot(a, b) < 0, the result is normalized. Cheaper than slerp, not
 * constant-speed. */
SINEW_API sinew_quat sinew_quat_nlerp(sinew_quat a, sinew_quat b, float t);
/* Shortest-path spherical linear interpolation of unit quaternions, constant
 * angular speed. t = 0 returns a exactly; nearly equal inputs fall back to
 * nlerp to avoid dividing by a tiny sine. */
SINEW_API sinew_quat sinew_quat_slerp(sinew_quat a, sinew_quat b, float t);
/* Returns the unit quaternion of a pure rotation matrix given as 9 floats,
 * column-major (Shepperd's method: stable for every angle). */
SINEW_API sinew_quat sinew_quat_from_mat3(const float r[9]);

/* Returns the identity transform. */
SINEW_API sinew_transform sinew_transform_identity(void);

/* Returns the identity matrix. */
SINEW_API sinew_mat4 sinew_mat4_identity(void);
/* Returns a * b (b applied first). */
SINEW_API sinew_mat4 sinew_mat4_mul(const sinew_mat4 *a, const sinew_mat4 *b);
/* Returns the transpose. */
SINEW_API sinew_mat4 sinew_mat4_transpose(const sinew_mat4 *a);
/* Returns the determinant. */
SINEW_API float sinew_mat4_determinant(const sinew_mat4 *a);
/* Writes the inverse of `a` to `out` (which may alias `a`). Returns
 * SINEW_ERROR_SINGULAR, leaving `out` untouched, when the determinant is 0 or
 * not finite. */
SINEW_API sinew_result sinew_mat4_inverse(const sinew_mat4 *a, sinew_mat4 *out);
/* Returns M * (p, 1), the perspective divide ignored (affine use). */
SINEW_API sinew_vec3 sinew_mat4_transform_point(const sinew_mat4 *m, sinew_vec3 p);
/* Returns M * (v, 0): the upper 3x3 applied to v. */
SINEW_API sinew_vec3 sinew_mat4_transform_vector(const sinew_mat4 *m, sinew_vec3 v);
/* Returns the matrix T * R * S of a transform. The rotation need not be
 * normalized: it is normalized here. */
SINEW_API sinew_mat4 sinew_mat4_from_transform(const sinew_transform *t);
/* Decomposes an affine matrix into translation, rotation and scale. A
 * negative determinant is expressed as a negative x scale. Returns SINEW_OK
 * when the matrix is exactly a TRS (within 1e-4 relative), and
 * SINEW_ERROR_SHEAR when its axes are not orthogonal or its last row is not
 * (0, 0, 0, 1); `out` then holds the closest TRS (axes orthogonalised by
 * Gram-Schmidt from x). `shear`, when not NULL, receives the largest |cosine|
 * between two axes (0 for a TRS). A singular upper 3x3 returns
 * SINEW_ERROR_SINGULAR with a zero scale on the collapsed axes. */
SINEW_API sinew_result sinew_mat4_decompose(const sinew_mat4 *m, sinew_transform *out,
                                            float *shear);
/* Splits any invertible affine matrix M (last row 0 0 0 1) into a transform
 * and a rotation such that M = TRS(outer) * R(inner), shear included: the
 * singular value decomposition A = U S V^T of the upper 3x3 gives outer =
 * (translation, U, S) and inner = V^T, both rotations proper (a mirror is a
 * negative scale on the smallest axis). A chain of two joints carries it,
 * which is how the loaders keep a sheared node matrix exact. For a TRS
 * matrix inner is the identity up to rounding. Returns SINEW_ERROR_SINGULAR
 * for a singular 3x3, SINEW_ERROR_NOT_FINITE for NaN or infinity, and
 * SINEW_ERROR_SHEAR when the last row is not (0, 0, 0, 1) (projective; the
 * split of the affine part is still written). */
SINEW_API sinew_result sinew_mat4_decompose_affine(const sinew_mat4 *m, sinew_transform *outer,
                                                   sinew_quat *inner);

/* ======================================================================== */
/* Skeleton                                                                  */
/* ======================================================================== */

/* A flat array of joints, parents first. Created by sinew_skeleton_create();
 * every field is read-only. Names are UTF-8, never NULL ("" when unnamed).
 * Only sinew_skeleton_create() (or a loader) makes one, with state behind
 * it: never copy the struct or fill one by hand. */
typedef struct sinew_skeleton {
    int joint_count;
    const int16_t *parents;          /* parents[j] < j, -1 for a root */
    const char *const *names;        /* one per joint */
    const uint32_t *name_hashes;     /* sinew_name_hash(names[j]) */
    const sinew_transform *rest_pose; /* local TRS per joint */
} sinew_skeleton;

/* What sinew_skeleton_create() reads. Joints may come in any order. */
typedef struct sinew_skeleton_desc {
    int joint_count;                  /* 1 .. SINEW_MAX_JOINTS */
    const int *parents;               /* parent of each joint in this array, -1 for a root */
    const char *const *names;         /* optional; NULL entries mean "" */
    const sinew_transform *rest_pose; /* optional; NULL means identity */
} sinew_skeleton_desc;

/* Builds a skeleton from joints in any order: the result lists every parent
 * before its children, keeping the given order where it already allows that
 * (input that is already parents-first comes out unchanged). `remap`, when not
 * NULL, must hold joint_count ints and receives for each input joint its index
 * in the result. Errors: SINEW_ERROR_TOO_MANY_JOINTS, SINEW_ERROR_BAD_PARENT
 * (out of range), SINEW_ERROR_CYCLE (a joint that is its own ancestor),
 * SINEW_ERROR_NOT_FINITE and SINEW_ERROR_BAD_ROTATION (rest pose). Duplicate
 * names are allowed and reported to the logger (unnamed joints are not
 * duplicates); rest rotations that are not
 * unit length are normalized and reported. Free with sinew_skeleton_free(). */
SINEW_API sinew_skeleton *sinew_skeleton_create(const sinew_skeleton_desc *desc, int *remap,
                                                const sinew_options *options, sinew_error *err);

/* Frees a skeleton (NULL is fine). */
SINEW_API void sinew_skeleton_free(sinew_skeleton *skeleton);

/* Returns the lowest index of a joint named `name`, or -1. O(1) on average. */
SINEW_API int sinew_skeleton_find_joint(const sinew_skeleton *skeleton, const char *name);

/* Returns the 32-bit FNV-1a hash of a NUL-terminated UTF-8 string. */
SINEW_API uint32_t sinew_name_hash(const char *name);

/* Returns the number of edges between joint and its root (0 for a root), or
 * -1 when joint is out of range. */
SINEW_API int sinew_skeleton_depth(const sinew_skeleton *skeleton, int joint);

/* ======================================================================== */
/* Clips and sampling                                                        */
/* ======================================================================== */

typedef enum sinew_interpolation {
    SINEW_INTERP_LINEAR = 0, /* lerp; rotations slerp (or nlerp, see flags) */
    SINEW_INTERP_STEP = 1,   /* the value of the last key at or before t */
    SINEW_INTERP_CUBICSPLINE = 2 /* glTF cubic Hermite spline */
} sinew_interpolation;

typedef enum sinew_track_target {
    SINEW_TARGET_TRANSLATION = 0, /* 3 components */
    SINEW_TARGET_ROTATION = 1,    /* 4 components, quaternion x y z w */
    SINEW_TARGET_SCALE = 2,       /* 3 components */
    SINEW_TARGET_WEIGHTS = 3      /* `width` components: the morph target weights of
                                     the mesh the joint carries (glTF "weights") */
} sinew_track_target;

/* One animated value of one joint. `values` holds, per key, 3 (translation,
 * scale), 4 (rotation) or `width` (weights) floats; for CUBICSPLINE, per key
 * the in-tangent, the value and the out-tangent, in that order, as glTF
 * stores them. Tangents are per second: the spline scales them by the key
 * interval. Weights interpolate per component like translations. */
typedef struct sinew_track {
    int joint;
    sinew_track_target target;
    sinew_interpolation interpolation;
    int key_count;
    const float *times;  /* key_count seconds, strictly increasing, >= 0 */
    const float *values;
    int width;           /* WEIGHTS only: weights per key, 1 .. SINEW_MAX_MORPH_TARGETS */
} sinew_track;

/* The floats one sample of a track writes: 3, 4, or its width. */
SINEW_API int sinew_track_components(const sinew_track *track);

/* Keyframe tracks for the joints of one skeleton. Created by
 * sinew_clip_create() (or the functions that make clips from clips);
 * every field is read-only. Never copy the struct or fill one by hand: the
 * library keeps its sampling plan behind it. */
typedef struct sinew_clip {
    const char *name;       /* never NULL */
    float duration;         /* seconds; sampling time runs over [0, duration] */
    int joint_count;        /* joints of the skeleton this clip animates */
    int track_count;
    const sinew_track *tracks;
    bool additive;          /* values are deltas over a reference pose (sinew_clip_make_additive) */
    bool packed;            /* made by sinew_clip_pack(): its translation, rotation and scale keys
                               are held quantized for sampling alone, and `tracks` lists its
                               weights tracks only */
    bool compressed;        /* made by sinew_clip_compress(): likewise, compressed to an error
                               bound */
} sinew_clip;

typedef struct sinew_clip_desc {
    const char *name;        /* optional */
    int joint_count;         /* skeleton size; every track's joint is below it */
    float duration;          /* 0: the last key time of all tracks */
    int track_count;
    const sinew_track *tracks;
    bool additive;           /* the tracks hold additive deltas: sampling fills
                                what they leave out with the identity, not the
                                rest pose */
    const sinew_skeleton *skeleton; /* optional: the skeleton the clip plays on
                                (read during creation only). When its
                                translation, rotation and scale tracks are
                                all LINEAR on one set of key times (what
                                exporters bake) or constant (one key, as
                                sinew_clip_optimize() leaves them), animate
                                most of it (a third of the floats of its
                                local pose at least) and the CPU runs AVX2,
                                the clip lays its keys out in this
                                skeleton's local-to-model order, so that
                                sinew_clip_sample_model() samples and builds
                                model matrices in one pass; joints that do
                                not move, nor any of their descendants, are
                                then stored once and not interpolated, and
                                the rest pose under what the tracks leave
                                out is kept in that layout too (used on a
                                skeleton whose rest pose is the same, by
                                its hash). Any skeleton of the same joint
                                count still plays it. */
} sinew_clip_desc;

/* Copies and validates tracks into a clip. Errors name the track and key:
 * SINEW_ERROR_BAD_JOINT_INDEX, SINEW_ERROR_KEYS_NOT_INCREASING (also a first
 * time below 0), SINEW_ERROR_NOT_FINITE (times, values, tangents),
 * SINEW_ERROR_BAD_ROTATION (a zero quaternion key), SINEW_ERROR_DUPLICATE_TRACK,
 * SINEW_ERROR_INVALID_ARGUMENT (no keys, a duration shorter than the last key,
 * an unknown target or interpolation), SINEW_ERROR_SIZE_MISMATCH (a
 * skeleton of another joint count). Rotation keys (values, not tangents)
 * that are not unit length are normalized and reported to the logger. A clip
 * with no tracks is allowed: it plays the rest pose. */
SINEW_API sinew_clip *sinew_clip_create(const sinew_clip_desc *desc, const sinew_options *options,
                                        sinew_error *err);

/* Frees a clip (NULL is fine). */
SINEW_API void sinew_clip_free(sinew_clip *clip);

/* Bytes the clip holds: its tracks as given (times, values, name; tracks
 * whose key times are equal share one copy of them) and the second layout
 * sinew_clip_sample() reads, which keeps the LINEAR tracks that share key
 * times side by side (a packed clip: its weights tracks and its packed
 * keys; a compressed clip: its weights tracks and its compressed block,
 * counted where a view borrows it too). */
SINEW_API size_t sinew_clip_bytes(const sinew_clip *clip);

/* What sinew_clip_pack() did. */
typedef struct sinew_pack_report {
    int packed_floats;       /* floats stored per key (16 bits each); the others are stored once */
    /* the furthest a packed key lies from the clip's (0: exact) */
    float translation_error; /* distance */
    float rotation_error;    /* radians, of the packed key normalized */
    float scale_error;       /* largest component difference */
} sinew_pack_report;

/* A runtime copy of `clip` for `skeleton`, several times smaller
 * (docs/BENCHMARKS.md gives the sizes of the sample clips): its translation,
 * rotation and scale keys laid out in the skeleton's local-to-model blocks
 * (see sinew_clip_desc.skeleton), the values that vary over the keys
 * quantized to 16 bits over each one's own range, the rest stored once as
 * floats. Each packed key lies within its range / 65,535 of the clip's per
 * component (a rotation's after normalizing); `report` (optional) says how
 * far they lie. Packing takes tracks that are LINEAR on one set of key
 * times, or constant (one key, not CUBICSPLINE): what exporters bake and
 * sinew_clip_optimize() leaves (optimize first, then pack). Weights tracks
 * are copied as they are.
 *
 * The result samples like the clip (sinew_clip_sample(),
 * sinew_clip_sample_model() in one pass on skeletons with its skeleton's
 * parents, sinew_clip_sample_weights(), the animation layer, root motion),
 * on any skeleton of its joint count, at every SIMD level: the packed keys
 * interpolated as the clip's are (on a key: the key, rotations normalized;
 * a -0 comes out +0), the AVX2 kernel within the tolerance the clip's
 * kernels keep of the reference (sinew_clip_sample's rotations: 1e-6
 * relative). It holds no translation, rotation or scale tracks, so
 * sinew_clip_retarget(), sinew_clip_make_additive(), sinew_clip_optimize()
 * and the CUDA crowd refuse it: keep the clip you packed for those. Its
 * cursor takes sinew_clip_cursor_size() entries. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL clip or skeleton, a packed clip),
 * SINEW_ERROR_SIZE_MISMATCH (joint counts), SINEW_ERROR_UNSUPPORTED (a track
 * packing cannot take, named with its joint and why; a value that spans
 * more than 16 bits can cover in floats), SINEW_ERROR_OUT_OF_MEMORY. Free
 * with sinew_clip_free(). */
SINEW_API sinew_clip *sinew_clip_pack(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                      const sinew_options *options, sinew_pack_report *report, sinew_error *err);

/* The entries a sinew_cursor for this clip holds: its track count, one
 * more for a packed clip (the hint of its packed keys). */
SINEW_API int sinew_clip_cursor_size(const sinew_clip *clip);

typedef enum sinew_sample_flags {
    SINEW_SAMPLE_CLAMP = 0, /* t is clamped to [0, duration] */
    SINEW_SAMPLE_LOOP = 1,  /* t wraps into [0, duration) */
    SINEW_SAMPLE_NLERP = 2  /* LINEAR rotations use nlerp instead of slerp */
} sinew_sample_flags;

/* Per playing clip, caller-owned: one key hint per track, so that forward
 * playback finds its keys in amortized O(1) and a random seek in O(log n).
 * `keys` must hold sinew_clip_cursor_size(clip) entries (clip->track_count,
 * one more for a packed clip); zero them (or leave any values:
 * a wrong hint costs a search, never a wrong result). A cursor may be shared
 * by no two threads. A zeroed sinew_cursor (no storage) means binary search
 * every time. */
typedef struct sinew_cursor {
    int32_t *keys;
    int count;
} sinew_cursor;

/* Samples one track at time t (not wrapped here: before the first key gives
 * the first value, after the last the last value). Writes
 * sinew_track_components(track) floats to `out`. `hint`, optional, is the cursor entry for this track. `flags` takes
 * SINEW_SAMPLE_NLERP. Rotations are unit length on return. Never fails on a
 * track that came from a clip. */
SINEW_API void sinew_track_sample(const sinew_track *track, float t, unsigned flags,
                                  int32_t *hint, float *out);

/* Samples the clip at time t into `out` (output_count local transforms, the
 * skeleton's joint count). Joints without a track, and the values a joint's
 * tracks leave out, keep the skeleton's rest pose (the identity transform
 * for an additive clip: no change); weights tracks are left to
 * sinew_clip_sample_weights(). `cursor` is optional.
 * Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, t not finite),
 * SINEW_ERROR_SIZE_MISMATCH (clip, skeleton and output joint counts differ),
 * SINEW_ERROR_BUFFER_TOO_SMALL (cursor with fewer keys than
 * sinew_clip_cursor_size()). */
SINEW_API sinew_result sinew_clip_sample(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                         float time, unsigned flags, sinew_cursor *cursor,
                                         sinew_transform *out, int output_count, sinew_error *err);

/* The most joints for which sinew_clip_sample_model() without a local pose
 * keeps one on the stack (40 bytes a joint). */
#define SINEW_SAMPLE_STACK_JOINTS 128

/* Samples the clip at time t into `local` and turns it into model-space
 * matrices: the results of sinew_clip_sample() followed by
 * sinew_local_to_model(skeleton, local, root, model, count), bit for bit.
 * For a clip made for this skeleton (sinew_clip_desc.skeleton; or one with
 * the same parents), whose keys are laid out for it, both happen in one
 * pass, without reading the local pose back (faster than the two calls:
 * docs/BENCHMARKS.md); otherwise it makes the two calls. `count`
 * is the joint count of `local` and `model`.
 * `local` may be NULL where only the model matrices are wanted: the one pass
 * then stores no local pose (faster again); otherwise the local
 * pose goes on the stack for skeletons of up to SINEW_SAMPLE_STACK_JOINTS
 * joints (the two calls' results), and for larger ones is sampled into
 * `model`'s own memory and turned into matrices in place by the reference's
 * formulas (the scalar level's results, within the SIMD levels' stated
 * tolerance of theirs). No memory is allocated either way. Errors: those of
 * the two functions. */
SINEW_API sinew_result sinew_clip_sample_model(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                               float time, unsigned flags, sinew_cursor *cursor,
                                               const sinew_mat4 *root, sinew_transform *local,
                                               sinew_mat4 *model, int count, sinew_error *err);

/* The time within the clip that the sampling functions use for `time`:
 * wrapped into [0, duration) with SINEW_SAMPLE_LOOP (0 for a clip of zero
 * duration), clamped to [0, duration] otherwise. */
SINEW_API float sinew_clip_time(const sinew_clip *clip, float time, unsigned flags);

/* Samples the morph target weights the clip gives `joint` at time t (wrapped
 * or clamped by `flags` as sinew_clip_sample() does) into `weights`
 * (`count` floats). Without a weights track on that joint `weights` is left
 * as it is: fill it with the mesh's default weights first. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, t not finite, joint out of
 * range), SINEW_ERROR_SIZE_MISMATCH (the track's width is not `count`),
 * SINEW_ERROR_BUFFER_TOO_SMALL (cursor as above). */
SINEW_API sinew_result sinew_clip_sample_weights(const sinew_clip *clip, float time, unsigned flags,
                                                 sinew_cursor *cursor, int joint, float *weights,
                                                 int count, sinew_error *err);

/* What sinew_clip_retarget() matched by name. */
typedef struct sinew_retarget_report {
    int matched_tracks;   /* tracks whose joint the target skeleton has */
    int dropped_tracks;   /* tracks of joints the target skeleton lacks (left out) */
    int unanimated_joints; /* target joints with no joint of that name in `from` (they keep their rest pose) */
} sinew_retarget_report;

/* A copy of `clip` (made for skeleton `from`) for skeleton `to`, tracks
 * matched by joint name: the way to play an animation-only file on a
 * character from another file. Values are copied as they are (local
 * transforms: the skeletons must share their joints' frames, as exports of
 * one rig do). Unnamed joints match nothing. Tracks of joints `to` lacks
 * are left out; joints of `to` that `from` lacks keep their rest pose. Both are counted in `report`
 * (optional) and told to the logger with up to five names each (an
 * unnamed joint as "joint N"). Errors:
 * SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_SIZE_MISMATCH (clip and `from`
 * differ in joint count), and those of sinew_clip_create(). */
SINEW_API sinew_clip *sinew_clip_retarget(const sinew_clip *clip, const sinew_skeleton *from,
                                          const sinew_skeleton *to, const sinew_options *options,
                                          sinew_retarget_report *report, sinew_error *err);

/* The reference an additive clip is taken against. */
typedef enum sinew_additive_reference {
    SINEW_ADDITIVE_FIRST_FRAME = 0, /* the clip's own pose at time 0 */
    SINEW_ADDITIVE_REST_POSE = 1    /* the skeleton's rest pose */
} sinew_additive_reference;

/* An additive clip made from `clip` (for `skeleton`): every key becomes its
 * difference over the reference pose, as sinew_additive_delta() computes it
 * (translation t - t_ref, rotation conj(r_ref) * r, scale s / s_ref; a zero
 * reference scale gives 1), so that sampling the additive clip at t and
 * applying it with sinew_additive_apply() at weight 1 over the reference
 * gives the clip at t. CUBICSPLINE tangents go through the same linear map
 * (unchanged for translations, conj(r_ref) * tangent for rotations,
 * tangent / s_ref for scales), so the spline stays exact. Weights tracks are
 * copied as they are. The result has `additive` set and is named like the
 * clip. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL, an additive clip, an
 * unknown reference), SINEW_ERROR_SIZE_MISMATCH (joint counts), and those of
 * sinew_clip_create(). Free with sinew_clip_free(). */
SINEW_API sinew_clip *sinew_clip_make_additive(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                               sinew_additive_reference reference,
                                               const sinew_options *options, sinew_error *err);

/* How far sinew_clip_optimize() may move a sampled value. */
typedef struct sinew_clip_tolerance {
    float translation; /* distance, in the clip's units */
    float rotation;    /* angle of the rotation between the two, radians */
    float scale;       /* difference of each component */
} sinew_clip_tolerance;

/* What sinew_clip_optimize() did. */
typedef struct sinew_optimize_report {
    int constant_tracks;     /* tracks reduced to one key */
    int removed_keys;        /* keys left out, over all tracks */
    /* the furthest a removed key lies from the value kept (0: none removed) */
    float translation_error; /* distance */
    float rotation_error;    /* radians */
    float scale_error;       /* largest component difference */
} sinew_optimize_report;

/* A copy of `clip` with its constant tracks reduced to one key: a LINEAR or
 * STEP translation, rotation or scale track whose keys all lie within
 * `tolerance` of its first key keeps that key alone (a -0 in a translation
 * or scale becoming +0). Every sampled value then lies within the tolerance
 * of the clip's own (the value kept is within it of every key, and of what
 * lies between two keys). Other tracks (CUBICSPLINE, weights, the rest) are
 * copied as they are. Exported clips often animate every joint on every
 * frame, fingers and other joints that do not move too, with rounding noise
 * (docs/BENCHMARKS.md shows how much of a sample clip is such noise):
 * the result holds less and samples faster, most of all when laid out for
 * `skeleton` (optional; as sinew_clip_desc.skeleton), where joints that stay
 * still with all their descendants are not interpolated at all. Its work
 * is one pass over the keys, whatever the time between them. `report`
 * (optional) says what was removed. Errors: SINEW_ERROR_INVALID_ARGUMENT
 * (NULL clip or tolerance, a tolerance that is negative or NaN), and those of
 * sinew_clip_create(). Free with sinew_clip_free(). */
SINEW_API sinew_clip *sinew_clip_optimize(const sinew_clip *clip, const sinew_clip_tolerance *tolerance,
                                          const sinew_skeleton *skeleton, const sinew_options *options,
                                          sinew_optimize_report *report, sinew_error *err);

/* Returns the number of keys summed over the clip's tracks whose target is
 * `target` (for a packed clip, those of the clip it was packed from). */
SINEW_API int sinew_clip_key_count(const sinew_clip *clip, sinew_track_target target);

/* How far a clip plays from another (sinew_clip_measure_error). */
typedef struct sinew_clip_error_report {
    float largest;        /* the largest distance, in the skeleton's units */
    float percentile_99;  /* 99 of 100 (joint, pose) errors are at most this (to 1/65535 of largest) */
    int worst_joint;      /* where the largest is */
    float worst_time;
    int poses;            /* poses compared */
} sinew_clip_error_report;

/* Measures how far `candidate` plays from `reference` on `skeleton`, where
 * a mesh would show it: at every key time of the reference and at `rate`
 * samples a second over the longer duration (0: 60), both clips are sampled
 * (interpolating rotations by slerp) and taken to model space, and for
 * every joint the distance between the two images of virtual vertices is
 * measured: the joint's origin and the points `shell_distance` along its
 * x, y and z axes (the skin a vertex that far from the joint would have;
 * animation compressors measure so, with 3 cm typical). The work follows
 * the reference's keys, not its duration: where the samples at `rate`
 * would number more than 16 a key time of the reference and more than
 * 4096, or more than ten million (two keys 1e20 s apart, say), the
 * quarters between each two key times (and 0 and the end of the longer
 * clip) are measured instead of them; report->poses says how many poses
 * were compared. Either clip may
 * be packed or optimized. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL, a
 * shell distance not above 0, a negative or non-finite rate),
 * SINEW_ERROR_SIZE_MISMATCH (joint counts), SINEW_ERROR_NOT_FINITE (a pose
 * or a distance past a float's range, which no error measures),
 * SINEW_ERROR_OUT_OF_MEMORY. */
SINEW_API sinew_result sinew_clip_measure_error(const sinew_clip *reference, const sinew_clip *candidate,
                                                const sinew_skeleton *skeleton, float shell_distance, float rate,
                                                sinew_clip_error_report *report, sinew_error *err);

/* How sinew_clip_compress() compresses; zero-initialised means the
 * defaults. Distances are in the skeleton's units. */
typedef struct sinew_compress_options {
    float meters_per_unit;  /* the skeleton's unit in meters, for the defaults below (0: 1, glTF's meter) */
    float error_bound;      /* the largest error allowed (0: 0.01 cm) */
    float shell_distance;   /* of the virtual vertices the error is measured on (0: 3 cm) */
    const float *joint_shell_distances; /* optional, per joint: its own shell distance (each above 0) */
} sinew_compress_options;

/* What sinew_clip_compress() made, or what a compressed clip holds
 * (sinew_clip_compression). */
typedef struct sinew_compress_report {
    size_t bytes;           /* of the compressed form: what the clip reads to sample */
    float error_bound;      /* as used, in the skeleton's units */
    float shell_distance;   /* as used (the default one where joints have their own) */
    float largest;          /* the largest error measured, as sinew_clip_measure_error() measures it */
    float percentile_99;
    int worst_joint;
    float worst_time;
    int sample_count;       /* the clip resampled at `sample_rate` a second, */
    float sample_rate;      /* or, where it is 0, at its key times */
    int segment_count;      /* of up to 16 samples */
    int default_tracks;     /* translation, rotation, scale of a joint: left at the pose under the clip */
    int constant_tracks;    /* held as one value */
    int animated_tracks;    /* held per sample */
    int bit_rates[33];      /* (animated track, segment) pairs stored at each count of bits a
                               component: 0 (one value over the segment), 3 to 16, 32 (floats) */
    size_t poses_sampled;   /* the work done: poses of the clip resampled and poses measured, over
                               every resampling and attempt (0 from sinew_clip_compression()) */
} sinew_compress_report;

/* A compressed copy of `clip` (made for `skeleton`) whose poses lie
 * within `options->error_bound` of the clip's, measured on virtual
 * vertices: each joint's origin and the points at the shell distance
 * along its axes, in model space, as sinew_clip_measure_error() measures,
 * at the clip's key times, 60 times a second and at the quarters between
 * the stored samples. The clip is resampled: a clip of LINEAR tracks keyed
 * evenly at its key rate; any other at its own key times (where STEP and
 * LINEAR tracks sample exactly) or at 30 or 60 samples a second, and,
 * while none of those reaches the bound (splines), 120 or 240 a second
 * or its key times with such a grid: the smallest result within the
 * bound is kept. A rate is tried only while its samples number at most 16
 * a key time or 4096, so the work follows the clip's keys, not its
 * duration: a clip of two keys 1e20 s apart is sampled at its two key
 * times and measured at the quarters between them, as the measure does
 * for such clips (report->poses_sampled counts the poses). Each translation, rotation and scale that stays at the
 * skeleton's rest pose (the identity for an additive clip) is left out,
 * one that stays still is held as one value, and the others are held per
 * sample: normalized over their range in the clip and again in each
 * segment of 16 samples, rotations as three components (the one largest
 * over the clip rebuilt), at the fewest bits (0, 3 to 16, or floats) per
 * track and segment that keep the error of every joint below it within
 * the bound, found by a search along the hierarchy, then measured. Where
 * the bound cannot be reached (below what floats resolve, or a spline
 * that even 240 samples a second do not follow), the closest result is
 * returned, the logger says so, and report->largest gives the error. A
 * dropped rest-pose track plays the rest pose of the skeleton the clip
 * plays on. The encoder reads the clip by the reference formulas, so the
 * same clip compresses to the same bytes at every SIMD level. `report`
 * (optional; sinew_clip_compression() gives it again later) says what was
 * made.
 *
 * The result samples like the clip (sinew_clip_sample(),
 * sinew_clip_sample_model() as the two calls, sinew_clip_sample_weights(),
 * the animation layer and root motion) at any time for the same cost: a
 * sample reads the two stored samples around it, whatever came before. Weights tracks
 * are kept as they are; its cursor needs only their entries. It holds no
 * translation, rotation or scale tracks, so sinew_clip_retarget(),
 * sinew_clip_make_additive(), sinew_clip_optimize(), sinew_clip_pack() and
 * the CUDA crowd refuse it: keep the source clip for those. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL clip or skeleton, a packed or
 * compressed clip, a bound, shell distance or unit not above 0 and
 * finite), SINEW_ERROR_SIZE_MISMATCH (joint counts),
 * SINEW_ERROR_NOT_FINITE (a pose past a float's range, as a spline's
 * tangents times keys 1e20 s apart make, or a track varying by more than
 * a float holds: such poses can be neither quantized nor measured),
 * SINEW_ERROR_UNSUPPORTED (more than 2^24 samples, or more than 2 GiB
 * compressed), SINEW_ERROR_OUT_OF_MEMORY. Free with sinew_clip_free(). */
SINEW_API sinew_clip *sinew_clip_compress(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                          const sinew_compress_options *compress, const sinew_options *options,
                                          sinew_compress_report *report, sinew_error *err);

/* Fills `report` with what a compressed clip holds (its bytes, bound,
 * measured error, samples and bit rates) and returns true; false, leaving
 * it alone, for a clip that is not compressed or NULL. */
SINEW_API bool sinew_clip_compression(const sinew_clip *clip, sinew_compress_report *report);

/* ======================================================================== */
/* Poses                                                                     */
/* ======================================================================== */

/* Turns a local pose into model-space matrices in one pass over the joints,
 * parents first: model[j] = model[parent] * TRS(local[j]), and for a root
 * root * TRS(local[j]) (`root` NULL means identity). Rotations must be unit
 * length (sampling and blending return them so). A skeleton made at the
 * AVX2 level or above sums each product with fused multiply-adds (affine
 * root): each entry within 1e-6 of the size of its terms of the scalar
 * product on the same parent matrix. Under an affine root (or none) every
 * matrix's last row is (0, 0, 0, 1) exactly at every level, for finite
 * poses. `count` must equal the skeleton's joint count. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_SIZE_MISMATCH. */
SINEW_API sinew_result sinew_local_to_model(const sinew_skeleton *skeleton,
                                            const sinew_transform *local, const sinew_mat4 *root,
                                            sinew_mat4 *model, int count, sinew_error *err);

/* Recomputes the model matrices of `from_joint` and its descendants only,
 * as sinew_local_to_model() computes them (bit for bit: the same sums,
 * fused where its kernel fuses them), leaving every other matrix in
 * `model` as it is: after IK or any change to the local pose below one
 * joint. Reads, outside the subtree, only from_joint's parent's matrix (or
 * `root` for a root joint), which must be that of the pose. Joints are
 * parents first but need not be depth-first (sinew_skeleton_create keeps
 * the input order where it can), so the subtree is found by one pass over
 * the joints after from_joint: linear in those, and in the subtree's size
 * for the products. Errors: SINEW_ERROR_INVALID_ARGUMENT,
 * SINEW_ERROR_SIZE_MISMATCH, SINEW_ERROR_BAD_JOINT_INDEX (from_joint). */
SINEW_API sinew_result sinew_local_to_model_from(const sinew_skeleton *skeleton,
                                                 const sinew_transform *local, const sinew_mat4 *root,
                                                 sinew_mat4 *model, int count, int from_joint, sinew_error *err);

/* Copies the skeleton's rest pose into `out` (count transforms). Errors as
 * sinew_local_to_model(). */
SINEW_API sinew_result sinew_rest_pose(const sinew_skeleton *skeleton, sinew_transform *out,
                                       int count, sinew_error *err);

/* ======================================================================== */
/* SoA poses                                                                 */
/* ======================================================================== */

/* A local pose in structure-of-arrays form, for kernels that work eight
 * joints at a time (sinew_blend_pose()): a float array of blocks of eight
 * joints, each block SINEW_POSE_BLOCK_FLOATS floats, ten components of
 * eight lanes: translation x, y, z, rotation x, y, z, w, scale x, y, z.
 * Joint j sits in block j / 8, lane j % 8: component c (0-9, in that
 * order) at pose[(j / 8) * SINEW_POSE_BLOCK_FLOATS + c * 8 + j % 8]. The
 * joint count is padded to a multiple of 8: SINEW_POSE_FLOATS(joint_count)
 * floats; the padding lanes hold the identity transform. Any float
 * alignment works; 32 bytes (a cache line: 64) loads fastest. The
 * transform arrays (sinew_transform per joint) stay what every other
 * function reads and writes: convert at the edges. */
#define SINEW_POSE_BLOCK_FLOATS 80
#define SINEW_POSE_FLOATS(joint_count) ((size_t)(((joint_count) + 7) / 8) * SINEW_POSE_BLOCK_FLOATS)

/* Writes `count` transforms into the SoA pose `pose`
 * (SINEW_POSE_FLOATS(count) floats), bit for bit, and the identity into
 * the padding lanes. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers,
 * count negative). */
SINEW_API sinew_result sinew_pose_from_transforms(const sinew_transform *transforms, int count, float *pose,
                                                  sinew_error *err);

/* The inverse: the first `count` joints of the SoA pose `pose` written to
 * `out` (count transforms), bit for bit. Errors as
 * sinew_pose_from_transforms(). */
SINEW_API sinew_result sinew_pose_to_transforms(const float *pose, int count, sinew_transform *out,
                                                sinew_error *err);

/* The skeleton's pose order: the lanes of a SoA pose laid out the way
 * sinew_local_to_model_pose() computes joints, blocks of eight lanes of
 * which lanes i and i + 4 go side by side, each joint after its parent
 * (joints paired by depth, the leaves last). Returns the lane count (a
 * multiple of 8, at least the joint count: a joint with no partner ready
 * fills both lanes of its pair, and the last pair fills the last block); *joints (optional)
 * gets the joint of each lane. A pose in this order takes
 * SINEW_POSE_FLOATS(lanes) floats, laid out as "SoA poses" says with lane
 * i where joint i would be; a joint listed twice holds the same transform
 * in both lanes. The order depends on the parents only (not on the SIMD
 * level). Returns 0 for NULL. */
SINEW_API int sinew_skeleton_pose_order(const sinew_skeleton *skeleton, const int16_t **joints);

/* Writes `count` transforms (the skeleton's joint count) into `pose`, a
 * SoA pose in the skeleton's pose order, bit for bit. Errors as
 * sinew_local_to_model(). */
SINEW_API sinew_result sinew_pose_order_from_transforms(const sinew_skeleton *skeleton,
                                                        const sinew_transform *transforms, int count, float *pose,
                                                        sinew_error *err);

/* sinew_clip_sample() into `pose`, a SoA pose in the skeleton's pose order
 * (`lanes`: sinew_skeleton_pose_order()'s count; SINEW_POSE_FLOATS(lanes)
 * floats), for sinew_blend_pose() and sinew_local_to_model_pose(): the
 * values of sinew_clip_sample() then sinew_pose_order_from_transforms(),
 * bit for bit. Exact and packed clips that sample in their block layout
 * (LINEAR or constant tracks on one set of key times, made for a skeleton
 * with these parents, at the AVX2 level or above) write the order
 * directly, with no transform array between; other clips are sampled into
 * transforms first: `local` (optional, joint count transforms, left with
 * unspecified contents) or, without it, the stack for skeletons of up to
 * SINEW_SAMPLE_STACK_JOINTS joints. Errors as sinew_clip_sample(), and
 * SINEW_ERROR_SIZE_MISMATCH (lanes), SINEW_ERROR_BUFFER_TOO_SMALL (a clip
 * sampled through transforms on a larger skeleton without `local`). */
SINEW_API sinew_result sinew_clip_sample_pose(const sinew_clip *clip, const sinew_skeleton *skeleton, float time,
                                              unsigned flags, sinew_cursor *cursor, sinew_transform *local,
                                              float *pose, int lanes, sinew_error *err);

/* The inverse: a SoA pose in the skeleton's pose order written to `out`
 * (count transforms), bit for bit (a joint listed twice: its last lane).
 * Errors as sinew_local_to_model(). */
SINEW_API sinew_result sinew_pose_order_to_transforms(const sinew_skeleton *skeleton, const float *pose,
                                                      sinew_transform *out, int count, sinew_error *err);

/* sinew_local_to_model() from a SoA pose in the skeleton's pose order
 * (count: the joint count): the same matrices, bit for bit, with no
 * conversion (the AVX2 kernel loads each block's ten components as they
 * lie, where sinew_local_to_model() transposes eight transforms). Errors
 * as sinew_local_to_model(). */
SINEW_API sinew_result sinew_local_to_model_pose(const sinew_skeleton *skeleton, const float *pose,
                                                 const sinew_mat4 *root, sinew_mat4 *model, int count,
                                                 sinew_error *err);

/* ======================================================================== */
/* Blending                                                                  */
/* ======================================================================== */

/* One input of sinew_blend(): a local pose with its weight and an optional
 * per-joint mask. */
typedef struct sinew_blend_layer {
    const sinew_transform *pose;  /* joint_count local transforms */
    float weight;                 /* >= 0; 0 leaves the layer out */
    const float *joint_weights;   /* per joint in [0, 1] (a mask), or NULL for all 1 */
} sinew_blend_layer;

/* N-way blend in local space. Per joint, layer i counts with w_i =
 * weight * joint_weights[j]; translations and scales are the weighted
 * means; rotations are accumulated as w_i * q_i with each q_i first put on
 * the side of the rest rotation (negated where the sign bit of their dot
 * product is set, its products rounded and summed in x, y, z, w order at
 * every SIMD level, so that a sum of products that all round to -0 is -0
 * and sends q_i to the other side), then normalized: a sign-aligned
 * nlerp, so the order of the layers does not change the result. Where a
 * joint's total weight is below `threshold`, the rest pose fills in with
 * weight threshold - total (a joint no layer drives takes its rest pose,
 * with no jump as weights fade); threshold 0 means 0.1. A joint with one
 * contributor (one layer with weight above 0, or the rest pose alone)
 * takes its transform bit for bit, at every SIMD level. Elsewhere the
 * skeleton's level decides: the scalar level divides by the total weight
 * and by the rotation's length exactly; AVX2 and above sum with fused
 * multiply-adds and normalize by a reciprocal square root estimate
 * refined by a Newton step (with masks, the total's reciprocal too):
 * translations and scales within 1e-6 of the largest contributing
 * magnitude (1 if less) of the scalar result, rotation components within
 * 1e-6 where the weighted rotations do not nearly cancel (the error grows
 * as the total weight over their sum's length, 1 when they agree).
 * Outputs may alias no input. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, a weight or mask value
 * negative or not finite, threshold negative), SINEW_ERROR_SIZE_MISMATCH
 * (count is not the joint count). */
SINEW_API sinew_result sinew_blend(const sinew_skeleton *skeleton, const sinew_blend_layer *layers,
                                   int layer_count, float threshold, sinew_transform *out, int count,
                                   sinew_error *err);

/* One input of sinew_blend_pose(): a SoA pose with its weight and an
 * optional per-joint mask. */
typedef struct sinew_pose_layer {
    const float *pose;            /* SINEW_POSE_FLOATS(joint_count) floats */
    float weight;                 /* >= 0; 0 leaves the layer out */
    const float *joint_weights;   /* joint_count floats in [0, 1] (not padded), or NULL for all 1 */
} sinew_pose_layer;

/* sinew_blend() on SoA poses (see "SoA poses"): the same sums, rules and
 * tolerances, joint for joint, with no conversion inside: SoA layers in,
 * a SoA pose out (out's padding lanes: the identity). `rest` is the
 * skeleton's rest pose in SoA form, made once
 * (sinew_pose_from_transforms(skeleton->rest_pose, ...)); it gives the
 * rotations' side and fills in below the threshold (a NaN in it picks
 * sides by its sign bit, which the levels need not share). The blend goes
 * lane by lane, so the poses may be in joint order (count: the joint
 * count) or all in the skeleton's pose order (count: its lane count,
 * `rest` from sinew_pose_order_from_transforms(), masks per lane), as
 * sinew_clip_sample_pose() writes them and sinew_local_to_model_pose()
 * reads them. Outputs may alias no input. Errors as sinew_blend(). */
SINEW_API sinew_result sinew_blend_pose(const sinew_skeleton *skeleton, const float *rest,
                                        const sinew_pose_layer *layers, int layer_count, float threshold,
                                        float *out, int count, sinew_error *err);

/* The additive difference of `pose` over `reference` (count joints): the
 * delta that sinew_additive_apply() with weight 1 turns `reference` back
 * into `pose`: translation t - t_ref, rotation conj(r_ref) * r, scale
 * s / s_ref (a zero reference scale gives scale 1 there). out may alias
 * pose. Errors: SINEW_ERROR_INVALID_ARGUMENT. */
SINEW_API sinew_result sinew_additive_delta(const sinew_transform *reference, const sinew_transform *pose,
                                            int count, sinew_transform *out, sinew_error *err);

/* Adds a delta pose onto `base` with `weight` (and an optional per-joint
 * mask, as in sinew_blend_layer): t = t_base + w * t_delta, r = r_base *
 * nlerp(identity, r_delta, w), s = s_base * lerp(1, s_delta, w). Weight 0
 * gives the base unchanged, weight 1 the delta's full effect; weights
 * above 1 exaggerate. out may alias base. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, weights negative or not
 * finite). */
SINEW_API sinew_result sinew_additive_apply(const sinew_transform *base, const sinew_transform *delta,
                                            int count, float weight, const float *joint_weights,
                                            sinew_transform *out, sinew_error *err);

/* sinew_additive_apply() on SoA poses ("SoA poses" above), lane by lane:
 * `base` and `delta` (an additive clip's sample: sinew_clip_sample_pose()
 * in the pose order, sinew_pose_from_transforms() in joint order) both in
 * joint order (count: the joint count) or both in the skeleton's
 * pose order (count: its lane count, `lane_weights` per lane, as
 * sinew_blend_pose() takes them). `out` (which may alias base, not delta)
 * gets the identity in its padding lanes. The result is
 * sinew_additive_apply()'s bit for bit at every SIMD level. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, weights negative or not
 * finite), SINEW_ERROR_SIZE_MISMATCH (count neither the joint count nor
 * the pose order's). */
SINEW_API sinew_result sinew_additive_apply_pose(const sinew_skeleton *skeleton, const float *base,
                                                 const float *delta, int count, float weight,
                                                 const float *lane_weights, float *out, sinew_error *err);

/* ======================================================================== */
/* Playback, crossfades and blend spaces                                     */
/* ======================================================================== */

/* The playing state of one clip, caller-owned: where it is and how fast it
 * goes. sinew_playback_start() fills one. */
typedef struct sinew_playback {
    const sinew_clip *clip;
    float time;   /* seconds, in [0, duration] */
    float speed;  /* 1 plays in real time, 2 twice as fast, negative backward, 0 holds */
    bool loop;    /* wrap at the ends; otherwise stop there */
} sinew_playback;

/* A playback of `clip` at time 0, speed 1, looping as `loop` says. */
SINEW_API sinew_playback sinew_playback_start(const sinew_clip *clip, bool loop);

/* Moves a playback by dt seconds of real time (dt * speed in clip time).
 * Looping, the time wraps into [0, duration); otherwise it stops at 0 or
 * the duration. Returns how many times the time wrapped: +1 for each pass
 * from the end back to the start, -1 for each pass backward from the start
 * to the end, 0 without looping: what sinew_root_motion() needs to carry
 * the motion over the wrap. A clip of zero duration stays at 0. A dt or
 * speed that is not finite leaves the playback as it is and returns 0. */
SINEW_API int sinew_playback_advance(sinew_playback *playback, float dt);

/* The normalized time (phase) of a playback: time / duration in [0, 1],
 * 0 for a clip of zero duration. */
SINEW_API float sinew_playback_phase(const sinew_playback *playback);

/* Advances `count` playbacks together keeping their phases equal, as a
 * blend of cycles of different lengths (walk, jog, run) needs: the
 * heaviest playback leads, the cycle length is the weight-averaged
 * sum of w_i duration_i / |speed_i| / sum of w_i, each playback's phase moves by
 * dt / cycle length (backward when the leader's speed is negative) and
 * every playback takes the leader's phase. `wraps`, optional, receives each
 * playback's wrap count as sinew_playback_advance() returns it. Playbacks
 * whose clip has zero duration or whose weight is 0 count for nothing in
 * the cycle length (they still follow the phase). Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, a weight negative or not
 * finite, a dt not finite, a playback without a clip). */
SINEW_API sinew_result sinew_playback_advance_synced(sinew_playback *playbacks, const float *weights, int count,
                                                     float dt, int *wraps, sinew_error *err);

/* A crossfade from one playing clip to another, caller-owned. */
typedef struct sinew_crossfade {
    sinew_playback from, to;
    float duration;  /* seconds the fade takes */
    float elapsed;   /* seconds since it started */
    bool sync;       /* phase sync: `to` starts at `from`'s phase and both advance synced */
} sinew_crossfade;

/* Starts a crossfade of `duration` seconds (0 cuts at once) from `from`
 * (playing) to `to`. With `sync`, `to`'s time is set to `from`'s phase
 * times its duration, so that cycles line up (left foot with left foot). */
SINEW_API sinew_crossfade sinew_crossfade_start(sinew_playback from, sinew_playback to, float duration, bool sync);

/* Advances both playbacks by dt (synced when the crossfade says so, each on
 * its own otherwise) and returns the weight of `to`, from 0 at the start to
 * 1 when `elapsed` reaches `duration`, along the smoothstep 3x^2 - 2x^3 (no
 * jump in speed at either end); `from` weighs 1 minus it. Feed both sampled
 * poses to sinew_blend() with those weights. `wraps`, optional, receives 2
 * wrap counts (from, to). A dt not finite leaves the crossfade as it is. */
SINEW_API float sinew_crossfade_advance(sinew_crossfade *crossfade, float dt, int wraps[2]);

/* The weight of `to` now (as sinew_crossfade_advance() returned it last). */
SINEW_API float sinew_crossfade_weight(const sinew_crossfade *crossfade);

/* ---- Timelines: user tracks and events -------------------------------- */

/* What a clip carries beside its joints' motion, for the game to read:
 * user tracks (values the animator keys: a foot's contact, a trail's
 * width, an eye's look rotation) and named events at times (a footstep, a
 * hit frame). A timeline plays on its clip's time (an asset's timelines[i]
 * on its clips[i]): sample it at the time the clip is sampled, and ask
 * which events a playback's step crossed.
 *
 *   sinew_timeline *tl = sinew_timeline_create(&desc, NULL, &err);     // once
 *   sinew_playback before = pb;                                        // each frame
 *   int wraps = sinew_playback_advance(&pb, dt);
 *   sinew_event_span span = sinew_playback_span(&before, &pb, wraps, tl, 1.0f);
 *   int64_t crossed;
 *   sinew_events_crossed(&span, 1, hits, 16, &crossed, &err);          // hits[0 .. min(crossed, 16))
 *   sinew_timeline_sample(tl, pb.time, SINEW_SAMPLE_LOOP, NULL, values, tl->value_count, &err);
 */

/* One user track: `components` floats per key (1 to 4), or a unit
 * quaternion (x, y, z, w; components 4) where `quaternion` is set. From key
 * k to key k + 1 the value is interpolated linearly (a quaternion along the
 * shorter arc, by slerp, or nlerp with SINEW_SAMPLE_NLERP), or held at key
 * k's value where step[k] is set (STEP); before the first key it is the
 * first key's value, after the last the last's. */
typedef struct sinew_user_track {
    const char *name;       /* optional ("" for none) */
    int components;         /* 1 .. 4; 4 for a quaternion */
    bool quaternion;
    int key_count;          /* at least 1 */
    const float *times;     /* key_count seconds, strictly increasing, >= 0 */
    const float *values;    /* key_count * components floats */
    const uint8_t *step;    /* optional: per key, nonzero holds it until the next key; NULL: all LINEAR */
    float tolerance;        /* what sinew_timeline_compress() may move a sampled value, per component
                               (a quaternion's: the angle of the rotation between, radians);
                               0 keeps the track exact */
} sinew_user_track;

/* A named moment of a clip. */
typedef struct sinew_event {
    const char *name;       /* never NULL in a timeline ("" for none) */
    float time;             /* seconds, in [0, duration] */
} sinew_event;

typedef struct sinew_timeline_desc {
    float duration;         /* the clip's duration, over which events repeat when it loops;
                               0: the last key or event time */
    int track_count;
    const sinew_user_track *tracks;
    int event_count;
    const sinew_event *events;
} sinew_timeline_desc;

/* User tracks and events on one clip's time, made by sinew_timeline_create()
 * (or sinew_timeline_compress(), or a load); every field is read-only. */
typedef struct sinew_timeline {
    float duration;
    int track_count;
    const sinew_user_track *tracks;  /* as sampled: a compressed timeline's keys as kept and decoded */
    int value_count;                 /* floats one sample of every track writes: the sum of components */
    int event_count;
    const sinew_event *events;       /* by time; events at one time keep the order given */
    bool compressed;                 /* made by sinew_timeline_compress() */
} sinew_timeline;

/* Copies and validates a timeline. Errors name the track, key or event:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL, bad counts, components out of 1 .. 4,
 * a quaternion track without 4, a tolerance negative or not finite, an
 * event without a name, a duration shorter than a key or an event, or not
 * finite), SINEW_ERROR_KEYS_NOT_INCREASING, SINEW_ERROR_NOT_FINITE,
 * SINEW_ERROR_BAD_ROTATION (a zero quaternion key), SINEW_ERROR_OUT_OF_MEMORY.
 * Quaternion keys not of unit length are normalized and reported to the
 * logger. Free with sinew_timeline_free(). */
SINEW_API sinew_timeline *sinew_timeline_create(const sinew_timeline_desc *desc, const sinew_options *options,
                                                sinew_error *err);

/* Frees a timeline (NULL is fine). */
SINEW_API void sinew_timeline_free(sinew_timeline *timeline);

/* The index of the first user track named `name`, or -1. */
SINEW_API int sinew_timeline_find_track(const sinew_timeline *timeline, const char *name);

/* The offset of track `index`'s values in what sinew_timeline_sample()
 * writes (the components of the tracks before it), or -1 out of range. */
SINEW_API int sinew_timeline_track_offset(const sinew_timeline *timeline, int index);

/* Samples one user track at clip time t (not wrapped here). Writes its
 * components to `out`. `hint` (optional) is a key hint as a cursor keeps
 * one. `flags` takes SINEW_SAMPLE_NLERP. Quaternions are unit length on
 * return. Never fails on a track of a timeline. */
SINEW_API void sinew_user_track_sample(const sinew_user_track *track, float t, unsigned flags, int32_t *hint,
                                       float *out);

/* Samples every user track at `time` (wrapped into [0, duration) with
 * SINEW_SAMPLE_LOOP, clamped otherwise, as clips are) into `values`, track
 * after track (value_count floats, the timeline's). `hints` (optional)
 * holds track_count key hints. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL,
 * time not finite), SINEW_ERROR_SIZE_MISMATCH (value_count). */
SINEW_API sinew_result sinew_timeline_sample(const sinew_timeline *timeline, float time, unsigned flags,
                                             int32_t *hints, float *values, int value_count, sinew_error *err);

/* What sinew_timeline_compress() did. */
typedef struct sinew_timeline_report {
    int keys_before, keys_after;  /* over every track */
    int bytes_before, bytes_after;/* the tracks' keys as floats; as an archive stores the result */
    float worst_ratio;            /* the largest error at a key or midway between keys, over its
                                     track's tolerance (at most 1) */
} sinew_timeline_report;

/* A copy of `timeline` whose user tracks keep fewer keys and store their
 * values in as few bits as their `tolerance` allows: keys that linear
 * interpolation between their neighbours gives within half the tolerance
 * are left out (LINEAR float tracks, at most 64 keys in a row), the values
 * are rounded to a grid of at most half the tolerance (at most 16 bits per
 * component; beyond that, floats), so that every sampled value lies within
 * the tolerance of the timeline's. Tracks of tolerance 0 and the events are
 * copied as they are. The values are kept decoded (sampling costs what it
 * did); an archive stores the grid's integers. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL), SINEW_ERROR_OUT_OF_MEMORY. Free with
 * sinew_timeline_free(). */
SINEW_API sinew_timeline *sinew_timeline_compress(const sinew_timeline *timeline, const sinew_options *options,
                                                  sinew_timeline_report *report, sinew_error *err);

/* One step of a timeline's time, whose events sinew_events_crossed() lists:
 * from (from_pass, from_time) to (to_pass, to_time), a pass being one
 * play-through of a looping clip, so that the step covers from
 * from_pass * duration + from_time to to_pass * duration + to_time in
 * unwrapped time. A step backward (to before from) crosses its events in
 * reverse. Without `loop` both passes are 0 and times lie in [0, duration]. */
typedef struct sinew_event_span {
    const sinew_timeline *timeline;
    float weight;          /* carried to each hit: the layer's weight in a blend or crossfade */
    bool loop;
    int64_t from_pass, to_pass;
    float from_time, to_time;
} sinew_event_span;

/* Most spans one sinew_events_crossed() call merges. */
#define SINEW_MAX_EVENT_SPANS 16

/* An event a step crossed. */
typedef struct sinew_event_hit {
    int span;              /* the span's index */
    int event;             /* the index in its timeline's events */
    int64_t pass;          /* the pass it lies in, counted as the span counts them: at
                              pass * duration + its time */
    float weight;          /* the span's */
} sinew_event_hit;

/* The span of a playback's step: `before` a copy taken before
 * sinew_playback_advance(), `after` the playback after it, `wraps` what it
 * returned (a crossfade: each of its two playbacks with its weight). Passes
 * count from 0 at `before`. */
SINEW_API sinew_event_span sinew_playback_span(const sinew_playback *before, const sinew_playback *after, int wraps,
                                               const sinew_timeline *timeline, float weight);

/* The two spans of a crossfade's step: `before` a copy taken before
 * sinew_crossfade_advance(), `after` the crossfade after it, `wraps` the
 * two wrap counts it wrote; spans[0] plays `from`'s timeline with weight 1
 * minus the fade's weight after the step, spans[1] `to`'s with that
 * weight. */
SINEW_API void sinew_crossfade_spans(const sinew_crossfade *before, const sinew_crossfade *after, const int wraps[2],
                                     const sinew_timeline *from, const sinew_timeline *to, sinew_event_span spans[2]);

/* The events the steps `spans` crossed, each once: going forward, those
 * after the start up to and including the end; going backward, those
 * before the start down to and including the end (an event exactly where a
 * step ends belongs to that step, not to the next). A looping timeline's
 * event at its duration is the moment its next pass starts. Hits come in
 * the order crossed: within a span by time, across spans by the fraction of
 * their step at which each was crossed (equal fractions by span index).
 * Writes the first min(total, capacity) hits to `hits` and their total to
 * `total` (optional), without looping over passes: a step across a million
 * loops costs what one across one does. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, more than
 * SINEW_MAX_EVENT_SPANS spans, a span without a timeline, a time not finite
 * or outside [0, duration], passes other than 0 without loop, a pass beyond
 * 2^40, capacity negative). */
SINEW_API sinew_result sinew_events_crossed(const sinew_event_span *spans, int count, sinew_event_hit *hits,
                                            int capacity, int64_t *total, sinew_error *err);

/* Weights of a 1D blend space: samples at `positions` (count values,
 * strictly increasing, e.g. walk 1.4, jog 3, run 5 m/s), parameter x. The
 * two samples around x share the weight linearly; x outside the range
 * clamps to the end sample. Writes `count` weights summing to 1. Sync the
 * clips' cycles with sinew_playback_advance_synced() and these weights.
 * Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, count < 1, x or a
 * position not finite, positions not increasing). */
SINEW_API sinew_result sinew_blend_space_1d(const float *positions, int count, float x, float *weights,
                                            sinew_error *err);

typedef enum sinew_blend_space_mode {
    SINEW_BLEND_SPACE_CARTESIAN = 0,  /* gradient bands in the plane: any layout (aim, lean) */
    SINEW_BLEND_SPACE_DIRECTIONAL = 1 /* gradient bands in polar form: velocities around the origin */
} sinew_blend_space_mode;

/* Weights of a 2D blend space by gradient band interpolation (R. S.
 * Johansen, "Automated Semi-Procedural Animation for Character
 * Locomotion", 2009), chosen over a triangulation because it needs no
 * preprocessing, handles any layout (no degenerate triangles, no cocircular
 * ties) and is continuous everywhere, outside the samples' hull too. For
 * each sample i, h_i = min over j != i of max(0, 1 - (p - p_i).(p_j - p_i)
 * / |p_j - p_i|^2), and weights are h_i / sum h. DIRECTIONAL ("freeform
 * directional") measures the vectors in polar form instead, (difference of
 * lengths / mean length, 2 * signed angle), so that directions at one
 * speed blend by angle: a sample at the origin (idle) is allowed and
 * samples should surround it. A sample point gets weight exactly 1 there
 * and the others 0. `points` holds 2 floats per sample; writes `count`
 * weights >= 0 summing to 1. Cost O(count^2). Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, count < 1, values not
 * finite, two samples at one point, an unknown mode). */
SINEW_API sinew_result sinew_blend_space_2d(const float *points, int count, float x, float y,
                                            sinew_blend_space_mode mode, float *weights, sinew_error *err);

/* ======================================================================== */
/* Inverse kinematics                                                        */
/* ======================================================================== */

/* IK jobs correct a local pose in place: each reads the model-space matrices
 * of that pose (sinew_local_to_model() of `local`), computes rotations in
 * model space, and writes them back as local-space corrections
 * (local[j].rotation = local[j].rotation * correction), so the result goes
 * through sinew_local_to_model() like any pose, or through
 * sinew_local_to_model_from() the chain's first joint, which makes only the
 * matrices the job changed. Run local-to-model again before a job whose
 * chain lies below joints an earlier job moved; chains in distinct
 * subtrees (two legs, two arms) can share one model pose.
 * Rotations are measured from the model matrices with their scale divided
 * out: uniform scale anywhere is exact, non-uniform scale inside a chain is
 * approximate. Weights in [0, 1] blend each correction from the identity
 * (nlerp); 0 leaves the pose as it was. A job checks the model matrices it
 * reads (the chain's joints'), not the rest of the skeleton's.
 * Each job's _pose form corrects a SoA pose in the skeleton's pose order
 * ("SoA poses": SINEW_POSE_FLOATS(lanes) floats) in place of `local`,
 * with the model matrices sinew_local_to_model_pose() makes from it
 * (`count` still the joint count, theirs). It reads a joint's rotation
 * where sinew_pose_order_to_transforms() does and writes every lane that
 * holds the joint. Its results are the transform form's on
 * sinew_pose_order_to_transforms() of the pose, bit for bit; its errors
 * the same. */

/* Two-bone IK (thigh, shin, foot; upper arm, forearm, hand). */
typedef struct sinew_ik_two_bone_job {
    const sinew_skeleton *skeleton;
    const sinew_mat4 *model;     /* model-space matrices of `local` */
    sinew_transform *local;      /* corrected in place (not read by the _pose form) */
    int count;                   /* the skeleton's joint count */
    int start_joint, mid_joint, end_joint; /* each an ancestor of the next */
    sinew_vec3 target;           /* where the end joint should be, model space */
    sinew_vec3 pole;             /* model-space direction the mid joint bends toward;
                                    (0, 0, 0) keeps the chain's current bend plane */
    float weight;                /* 0 .. 1 */
    float softness;              /* 0: none; s in (0, 1]: beyond (1 - s) of the chain's
                                    length the reach eases out toward full extension
                                    (no snap of the knee), never quite straight */
    /* outputs */
    sinew_quat start_correction, mid_correction; /* applied to local (weighted) */
    bool reached;                /* the end joint lands within 1e-4 of the chain's length
                                    of the target (at weight 1) */
} sinew_ik_two_bone_job;

/* Solves a two-bone chain analytically: the mid joint opens or closes
 * (law of cosines) so that the start-to-end distance is the target's
 * (clamped to what the bones span: a target out of reach leaves the chain
 * fully extended toward it, one too close folds it as far as it goes),
 * then the start joint turns the end onto the target and twists the bend
 * plane toward the pole. A straight chain with no pole bends in an
 * arbitrary, deterministic plane. No trigonometry: the angles come as half
 * angles from the law of cosines and the bones' dot and cross products, so
 * the end lands within 1e-5 of the chain's length of a reachable target
 * (at weight 1, uniform scale; `reached` allows 1e-4). Never produces NaN
 * for finite input. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, a
 * target or pole not finite, a weight or softness outside [0, 1], joints
 * that are not one chain), SINEW_ERROR_SIZE_MISMATCH (count),
 * SINEW_ERROR_BAD_JOINT_INDEX, SINEW_ERROR_NOT_FINITE (a model matrix the
 * solve reads: the start and mid joints', the end joint's translation). */
SINEW_API sinew_result sinew_ik_two_bone(sinew_ik_two_bone_job *job, sinew_error *err);

/* sinew_ik_two_bone() correcting the SoA pose `pose` (see above). */
SINEW_API sinew_result sinew_ik_two_bone_pose(sinew_ik_two_bone_job *job, float *pose, sinew_error *err);

/* Most joints in one FABRIK chain. */
#define SINEW_IK_MAX_CHAIN 64

/* FABRIK over a chain of any length (spine, tail, tentacle). */
typedef struct sinew_ik_chain_job {
    const sinew_skeleton *skeleton;
    const sinew_mat4 *model;     /* model-space matrices of `local` */
    sinew_transform *local;      /* corrected in place (not read by the _pose form) */
    int count;                   /* the skeleton's joint count */
    const int *joints;           /* root to tip, each an ancestor of the next */
    int joint_count;             /* 2 .. SINEW_IK_MAX_CHAIN */
    sinew_vec3 target;           /* where the tip should be, model space */
    float weight;                /* 0 .. 1 */
    float tolerance;             /* stop when the tip is this close; 0 means 1e-4 of the chain's length */
    int max_iterations;          /* 0 means 32 */
    /* outputs */
    int iterations;              /* forward-backward passes run */
    float distance;              /* tip to target after solving (at weight 1) */
    bool reached;                /* distance <= tolerance */
} sinew_ik_chain_job;

/* FABRIK (A. Aristidou and J. Lasenby, 2011): moves the chain's joint
 * positions backward from the target and forward from the fixed root until
 * the tip is within `tolerance` or `max_iterations` passes ran; a target
 * out of reach straightens the chain toward it at once. The new positions
 * become rotations from the root down, each joint turning its bone by the
 * shortest arc (no twist added). Errors as sinew_ik_two_bone(), and
 * SINEW_ERROR_INVALID_ARGUMENT for a chain of 1 or more than
 * SINEW_IK_MAX_CHAIN joints. */
SINEW_API sinew_result sinew_ik_chain(sinew_ik_chain_job *job, sinew_error *err);

/* sinew_ik_chain() correcting the SoA pose `pose` (see above). */
SINEW_API sinew_result sinew_ik_chain_pose(sinew_ik_chain_job *job, float *pose, sinew_error *err);

/* Aim (look-at): turns one joint so that its forward axis points at a
 * target and its up axis leans toward a pole. */
typedef struct sinew_ik_aim_job {
    const sinew_skeleton *skeleton;
    const sinew_mat4 *model;     /* model-space matrices of `local` */
    sinew_transform *local;      /* corrected in place (not read by the _pose form) */
    int count;                   /* the skeleton's joint count */
    int joint;
    sinew_vec3 target;           /* model-space point to look at */
    sinew_vec3 forward;          /* the joint's aiming axis, in its own space (unit) */
    sinew_vec3 up;               /* the joint's up axis, in its own space, not along forward */
    sinew_vec3 pole;             /* model-space direction up should lean toward;
                                    (0, 0, 0): no twist beyond the shortest arc */
    float weight;                /* 0 .. 1 */
    /* outputs */
    sinew_quat correction;       /* applied to local (weighted) */
} sinew_ik_aim_job;

/* Solves an aim: the shortest arc from the joint's current forward to the
 * direction of the target, then a twist about that direction bringing up
 * into the plane of forward and pole. A target at the joint's own position
 * leaves it as it is. Errors as sinew_ik_two_bone(), and
 * SINEW_ERROR_INVALID_ARGUMENT for a zero forward or an up along forward. */
SINEW_API sinew_result sinew_ik_aim(sinew_ik_aim_job *job, sinew_error *err);

/* sinew_ik_aim() correcting the SoA pose `pose` (see above). */
SINEW_API sinew_result sinew_ik_aim_pose(sinew_ik_aim_job *job, float *pose, sinew_error *err);

/* ======================================================================== */
/* Root motion                                                               */
/* ======================================================================== */

/* The motion of a clip's root joint over one update, for moving a character
 * (its controller, its capsule) by what the animation does. The motion frame
 * F(t) of the joint at time t is its position projected onto the ground
 * plane (the plane through its parent's origin across `up`) and its heading
 * (the twist about `up` of the turn from its rest rotation to its rotation
 * at t, so the rest pose has heading 0 whatever the joint's axes); the delta
 * of a step is the frame at the end seen from the frame at the start. */
typedef struct sinew_root_motion_job {
    const sinew_clip *clip;
    const sinew_skeleton *skeleton;
    int joint;               /* the joint that carries the motion (hips, or a root bone) */
    sinew_vec3 up;           /* up in that joint's parent space; (0, 0, 0) means +Y */
    float from, to;          /* clip times before and after the step */
    int wraps;               /* wraps between them, as sinew_playback_advance() returns */
    sinew_transform *local;  /* with in_place: the pose at `to`, whose joint's motion
                                frame is taken out */
    int count;               /* joints in `local` */
    bool in_place;
    /* outputs */
    sinew_vec3 translation;  /* ground-plane delta, in the heading frame at `from` */
    float yaw;               /* heading delta, radians about up (not wrapped: a turn of
                                more than half a circle per step adds up) */
} sinew_root_motion_job;

/* Computes a step's root motion. Across a wrap it adds the motion to the
 * clip's end, the whole clip's displacement for each further loop, and the
 * motion from the start, so that nothing jumps when the clip loops and the
 * deltas of one loop add up to the clip's displacement. With in_place, the
 * joint's transform in `local` (any pose: sampled, blended) becomes
 * F^-1 * local[joint] for its own motion frame F: it stays over the origin
 * with its rest heading, keeping its height, pitch and roll. A character
 * transform C moved by each delta (C = C * delta) then shows the clip's
 * motion exactly. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers,
 * times or up not finite), SINEW_ERROR_SIZE_MISMATCH (clip and skeleton, or
 * `count` with in_place), SINEW_ERROR_BAD_JOINT_INDEX. */
SINEW_API sinew_result sinew_root_motion(sinew_root_motion_job *job, sinew_error *err);

/* ======================================================================== */
/* Spring bones                                                              */
/* ======================================================================== */

/* Secondary motion of hair, tails and coats by the VRMC_springBone 1.0
 * specification's algorithm: a chain of joints whose tails follow Verlet
 * integration (inertia less drag, stiffness pulling back toward the animated
 * direction, gravity), each bone's length kept as it is in the rest pose,
 * tails pushed out of sphere and capsule colliders by the joint's hit
 * radius, each joint then turned from its animated direction onto its
 * simulated one. In a frame the step runs after sampling, blending and IK
 * (on their local pose and its model matrices) and before the palette:
 *
 *   sinew_springs *springs = sinew_springs_create(skeleton, &desc, NULL, &err);  // once
 *   sinew_spring_state *state = sinew_spring_state_create(springs, NULL, &err);   // per character
 *   sinew_springs_reset(springs, state, model, n, &err);          // at the first pose
 *   ... each frame: sample, blend, IK, sinew_local_to_model(), then
 *   sinew_springs_step(springs, state, dt, 1, local, model, n, &err);
 *   sinew_skin_palette(skin, model, n, ...);
 *
 * Positions are in model space (the space of the matrices passed in): the
 * rest pose's bone lengths, gravity and collider radii are taken in it, so
 * a root matrix given to sinew_local_to_model() should not scale. */

/* A collider's shape. */
typedef enum sinew_collider_shape {
    SINEW_COLLIDER_SPHERE = 0,  /* center `offset`, radius */
    SINEW_COLLIDER_CAPSULE = 1  /* the segment from `offset` to `tail`, radius */
} sinew_collider_shape;

/* A collider carried by a joint; offset and tail are in the joint's space
 * (its model matrix applied to them). */
typedef struct sinew_spring_collider {
    int joint;
    sinew_collider_shape shape;
    sinew_vec3 offset;
    sinew_vec3 tail;       /* capsules only */
    float radius;          /* >= 0 */
} sinew_spring_collider;

/* A named set of colliders that chains refer to (VRM's colliderGroups). */
typedef struct sinew_spring_collider_group {
    const int *colliders;  /* indices into sinew_springs_desc.colliders */
    int collider_count;
} sinew_spring_collider_group;

/* One joint of a chain and the parameters of its bone (the bone from it to
 * the next joint of the chain). sinew_spring_joint_default() gives the
 * specification's defaults. */
typedef struct sinew_spring_joint {
    int joint;
    float hit_radius;      /* >= 0: the radius of the bone's tail against colliders */
    float stiffness;       /* >= 0: pull toward the animated direction, per second */
    float gravity_power;   /* >= 0: model-space units per second */
    sinew_vec3 gravity_dir; /* normalized here; (0, 0, 0) means no gravity */
    float drag_force;      /* 0 .. 1: the share of the tail's velocity lost per step */
} sinew_spring_joint;

/* A chain: joints root to leaf, each a descendant of the one before (a
 * child, or further down: the joints between follow their bone). Each
 * joint and the next make a bone whose parameters are the first one's; the
 * last joint is the chain's tail: it is not turned and its parameters are
 * not used. */
typedef struct sinew_spring_chain {
    const sinew_spring_joint *joints;
    int joint_count;               /* >= 2 */
    const int *collider_groups;    /* indices into sinew_springs_desc.groups */
    int collider_group_count;
    int center;                    /* -1, or the first joint or an ancestor of it: the
                                      tails' positions are kept in its space, so its
                                      own motion adds no inertia */
} sinew_spring_chain;

/* What sinew_springs_create() reads: plain arrays and indices into the
 * skeleton, as a loader fills them (VRMC_springBone's colliders,
 * colliderGroups and springs). */
typedef struct sinew_springs_desc {
    const sinew_spring_collider *colliders;
    int collider_count;
    const sinew_spring_collider_group *groups;
    int group_count;
    const sinew_spring_chain *chains;
    int chain_count;
} sinew_springs_desc;

/* Spring bones made for one skeleton: read-only once made, shared by every
 * character of that skeleton. Opaque. */
typedef struct sinew_springs sinew_springs;

/* A character's simulation: each bone's current and previous tail. Made for
 * one sinew_springs; opaque. */
typedef struct sinew_spring_state sinew_spring_state;

/* Returns the specification's defaults for `joint`: hit radius 0,
 * stiffness 1, gravity power 0, gravity direction (0, -1, 0), drag 0.5. */
SINEW_API sinew_spring_joint sinew_spring_joint_default(int joint);

/* Makes spring bones from `desc` (copied: the caller's arrays may go).
 * Each bone's length and axis (the next joint's position in the joint's
 * space) come from the skeleton's rest pose. A chain hanging from another
 * chain's joints runs after it and sees it moved. options->simd picks the
 * kernel: AVX2 steps eight chains of the same length at once where no
 * joints lie between a chain's joints, no center is set and the chain hangs
 * below no other chain; the others, and every chain at other levels, run
 * the scalar reference, whose bits the kernel keeps (the same formulas in
 * the same order, no fused multiply-add).
 * Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, negative counts, a
 * chain of fewer than two joints, a joint not below the one before it, a
 * joint in two chains, a bone of zero length, a parameter out of its range,
 * a center that is not the first joint or above it, an unknown collider
 * shape), SINEW_ERROR_BAD_JOINT_INDEX,
 * SINEW_ERROR_BAD_REFERENCE (a collider or group index out of range),
 * SINEW_ERROR_NOT_FINITE, SINEW_ERROR_OUT_OF_MEMORY. Free with
 * sinew_springs_free(). */
SINEW_API sinew_springs *sinew_springs_create(const sinew_skeleton *skeleton, const sinew_springs_desc *desc,
                                              const sinew_options *options, sinew_error *err);

/* Frees spring bones (NULL is fine); free their states first or after,
 * either way, but do not use a state after its springs are freed. */
SINEW_API void sinew_springs_free(sinew_springs *springs);

/* Makes a character's state for `springs`, all its memory at once (the step
 * allocates nothing). It starts at the rest pose; sinew_springs_reset()
 * puts it at a pose. Errors: SINEW_ERROR_INVALID_ARGUMENT,
 * SINEW_ERROR_OUT_OF_MEMORY. Free with sinew_spring_state_free(). */
SINEW_API sinew_spring_state *sinew_spring_state_create(const sinew_springs *springs, const sinew_options *options,
                                                        sinew_error *err);

/* Frees a state (NULL is fine). */
SINEW_API void sinew_spring_state_free(sinew_spring_state *state);

/* Makes `dst` the same as `src` (tails, their velocities and the step's
 * animated pose), so that stepping either from here gives the same bytes:
 * to branch a simulation, or to look ahead without losing the state.
 * Allocates nothing. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL, or states
 * of different springs). */
SINEW_API sinew_result sinew_spring_state_copy(sinew_spring_state *dst, const sinew_spring_state *src,
                                               sinew_error *err);

/* Puts every tail where the pose's model matrices (`count`, the skeleton's
 * joint count) have it, with no velocity: the next step starts at rest in
 * that pose. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, a state
 * of other springs), SINEW_ERROR_SIZE_MISMATCH, SINEW_ERROR_NOT_FINITE (a
 * matrix the springs read). */
SINEW_API sinew_result sinew_springs_reset(const sinew_springs *springs, sinew_spring_state *state,
                                           const sinew_mat4 *model, int count, sinew_error *err);

/* Advances the simulation by `dt` seconds in `substeps` equal steps (1 ..
 * 64; 0 means 1), each the specification's update of every chain root to
 * leaf. Reads the animated pose (`local`, and `model`, its model matrices
 * from sinew_local_to_model()), writes the chain joints' corrected
 * rotations into `local` and the model matrices of the chain joints and of
 * every joint below them into `model`. Colliders are placed from `model` as
 * it is at the start of each substep. The same sequence of dt from the same
 * state gives the same bytes. Allocates nothing. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL pointers, a state of other springs,
 * dt negative or not finite, substeps out of range),
 * SINEW_ERROR_SIZE_MISMATCH (count is not the skeleton's joint count). */
SINEW_API sinew_result sinew_springs_step(const sinew_springs *springs, sinew_spring_state *state, float dt,
                                          int substeps, sinew_transform *local, sinew_mat4 *model, int count,
                                          sinew_error *err);

/* ======================================================================== */
/* Morph targets                                                             */
/* ======================================================================== */

/* The morph targets (blend shapes) of one vertex set: per target, a delta
 * for each vertex, target-major (target t, vertex v at element
 * (t * vertex_count + v) * 3). A stream is NULL when no target moves that
 * attribute; a target that leaves it out holds zeros. Read-only. */
typedef struct sinew_morph {
    int vertex_count;
    int target_count;         /* 1 .. SINEW_MAX_MORPH_TARGETS */
    const float *positions;   /* 3 floats per vertex per target, or NULL */
    const float *normals;     /* 3 per vertex per target, or NULL */
    const float *tangents;    /* 3 per vertex per target (xyz; w is not morphed), or NULL */
} sinew_morph;

/* Applies morph targets: out = base + sum over targets of weights[t] *
 * delta[t], for positions and normals (3 floats per vertex) and tangents (4,
 * w copied), each output optional (NULL skips it, and its base may then be
 * NULL too). Outputs may alias their bases. Normals and tangents are not
 * renormalized here: skinning renormalizes them. Targets with a zero weight
 * cost nothing. Errors: SINEW_ERROR_INVALID_ARGUMENT (NULL morph, weights
 * or a base whose output is asked), SINEW_ERROR_SIZE_MISMATCH (weight_count
 * is not the target count). */
SINEW_API sinew_result sinew_morph_apply(const sinew_morph *morph, const float *weights, int weight_count,
                                         const float *base_positions, const float *base_normals,
                                         const float *base_tangents, float *positions, float *normals,
                                         float *tangents, sinew_error *err);

/* ======================================================================== */
/* Skins                                                                     */
/* ======================================================================== */

typedef enum sinew_index_type {
    SINEW_INDEX_U8 = 0,
    SINEW_INDEX_U16 = 1
} sinew_index_type;

typedef enum sinew_weight_type {
    SINEW_WEIGHT_F32 = 0,
    SINEW_WEIGHT_UNORM8 = 1,  /* weight = value / 255 */
    SINEW_WEIGHT_UNORM16 = 2  /* weight = value / 65535 */
} sinew_weight_type;

/* The skin of one vertex set: which skeleton joints its palette uses, their
 * inverse bind matrices, and each vertex's influences. Influences are stored
 * vertex-major: vertex v's influence i is element v * influence_count + i of
 * `indices` and, without an implied last weight, of `weights`; indices point
 * into `joints` (the skin's own joint list), not into the skeleton. A zero
 * weight means no influence. Weights of each vertex sum to 1 (exactly 255 or
 * 65535 for unorm). With `last_weight_implied`, `weights` holds
 * influence_count - 1 per vertex (element v * (influence_count - 1) + i) and
 * the last influence weighs 1 minus their sum (255 or 65535 minus it), as
 * the compact streams of engines store it. Read the influences with
 * sinew_skin_vertex() or sinew_skin_vertex_stored(). Read-only; made only
 * by sinew_skin_create() (or a loader), which keeps the SIMD blocks behind
 * it: never copy the struct or fill one by hand. */
typedef struct sinew_skin {
    int joint_count;                 /* palette size */
    const int16_t *joints;           /* skeleton joint of each skin joint */
    const sinew_mat4 *inverse_bind;  /* one per skin joint */
    int vertex_count;
    int influence_count;             /* 1 .. SINEW_MAX_INFLUENCES per vertex */
    sinew_index_type index_type;
    const void *indices;
    sinew_weight_type weight_type;
    const void *weights;
    bool last_weight_implied;        /* `weights` leaves out each vertex's last */
} sinew_skin;

typedef struct sinew_skin_desc {
    int joint_count;
    const int *joints;                /* skeleton joint indices, or NULL ... */
    const char *const *joint_names;   /* ... to match by name instead */
    const sinew_mat4 *inverse_bind;   /* optional; NULL means identity */
    int vertex_count;
    int influence_count;
    sinew_index_type index_type;      /* U8 needs joint_count <= 256 */
    const void *indices;
    sinew_weight_type weight_type;
    const void *weights;              /* may be NULL when influence_count is 1 and ... */
    bool last_weight_implied;         /* ... the last weight is implied: see sinew_skin */
} sinew_skin_desc;

/* What sinew_skin_create() repaired. */
typedef struct sinew_skin_report {
    int normalized_vertices; /* vertices whose weight sum was not 1 */
    int worst_vertex;        /* the one furthest from 1, -1 if none */
    float worst_sum;         /* its weight sum before normalizing */
    int cleared_indices;     /* zero-weight influences whose out-of-range index was set to 0 */
} sinew_skin_report;

/* Copies, validates and normalizes a skin for `skeleton`. The caller's arrays
 * are never modified. Errors name the vertex or joint:
 * SINEW_ERROR_UNKNOWN_JOINT (a name not in the skeleton),
 * SINEW_ERROR_BAD_JOINT_INDEX (a skin joint outside the skeleton, or a vertex
 * influence with a non-zero weight whose index is not below joint_count),
 * SINEW_ERROR_BAD_WEIGHT (negative or NaN), SINEW_ERROR_ZERO_WEIGHT (a vertex
 * whose weights are all 0), SINEW_ERROR_NOT_FINITE (an inverse bind matrix),
 * SINEW_ERROR_INVALID_ARGUMENT (counts, types). Weight sums off 1 by more
 * than 1e-5 (float) or off 255/65535 (unorm) are normalized, counted in
 * `report` (optional) and reported to the logger; sums within the tolerance
 * are kept bit for bit. With an implied last weight only given weights
 * summing past 1 (255, 65535) can be off: they are scaled to sum to 1 and
 * the last weight becomes 0, reported the same way. The skin keeps the
 * given stream layout (compact streams stay compact). Free with
 * sinew_skin_free(). */
SINEW_API sinew_skin *sinew_skin_create(const sinew_skeleton *skeleton, const sinew_skin_desc *desc,
                                        const sinew_options *options, sinew_skin_report *report,
                                        sinew_error *err);

/* Frees a skin (NULL is fine). */
SINEW_API void sinew_skin_free(sinew_skin *skin);

/* Reads vertex v's influences as skin joint indices and float weights
 * (influence_count entries each; zero weights included). Returns the number
 * of influences with a non-zero weight. v must be below vertex_count. */
SINEW_API int sinew_skin_vertex(const sinew_skin *skin, int v, int *joints, float *weights);

/* Writes vertex v's influence_count joint indices and weights as the skin
 * stores them (index_type and weight_type elements), an implied last weight
 * written out: the full per-vertex layout that vertex buffers for GPU
 * skinning take. v must be below vertex_count. */
SINEW_API void sinew_skin_vertex_stored(const sinew_skin *skin, int v, void *indices, void *weights);

/* An order of the skin's vertices for the SIMD skinning kernels: order[i]
 * is the vertex to put at position i (a permutation of 0 .. vertex_count -
 * 1), so that the kernels' blocks of 8 consecutive vertices blend fewer
 * joints. Vertices are sorted by the set of joints with a non-zero weight
 * (ascending joint indices, compared element by element; ties keep their
 * order); each set's vertices then fill whole blocks first, sets in that
 * order, and the rest follow, each block begun with the first of them left
 * and filled with the vertex, among the next 64 left, whose joints add the
 * fewest to the block's (the earliest among equals). An ordered skin's
 * order is the identity. Fewer joints a block means less work a vertex for
 * the SIMD kernels (docs/BENCHMARKS.md gives the joints a block and the
 * speed of the sample meshes, ordered and not).
 * Applying it is the caller's choice: every vertex stream, the morph
 * targets and the skin move with it, and triangle indices map through its
 * inverse; sinew_load_options.order_vertices_for_skinning does all of that
 * for loaded meshes. The GPU's vertex cache is not considered. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (NULL skin or order),
 * SINEW_ERROR_OUT_OF_MEMORY (scratch of 20 bytes per vertex and one per
 * skin joint, from the skin's allocator). */
SINEW_API sinew_result sinew_skin_vertex_order(const sinew_skin *skin, int *order, sinew_error *err);

/* Computes the skinning palette: palette[j] = left * model[skin->joints[j]]
 * * inverse_bind[j] for each skin joint. `left` (NULL means identity) is for
 * formats that want the mesh node's inverse world matrix. Without `left`,
 * on a skin made at the AVX2 level or above, the products use fused
 * multiply-adds: each entry within 1e-6 of the size of its terms (sum of
 * |model_ik| |inverse_bind_kj|) of the scalar product, where inverse bind
 * elements that are subnormal or below 2^-64 of their matrix's largest
 * element (float noise such as 1e-23 for 0) count as zeros. Errors:
 * SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_BUFFER_TOO_SMALL (model_count not
 * above every skin joint, or palette_count below skin->joint_count). */
SINEW_API sinew_result sinew_skin_palette(const sinew_skin *skin, const sinew_mat4 *model,
                                          int model_count, const sinew_mat4 *left,
                                          sinew_mat4 *palette, int palette_count, sinew_error *err);

/* ======================================================================== */
/* CPU skinning                                                              */
/* ======================================================================== */

/* The best SIMD level this CPU and operating system run: from CPUID and
 * XGETBV on x86-64 built with GCC or Clang, SINEW_SIMD_NEON on AArch64,
 * SINEW_SIMD_SCALAR elsewhere. The first call asks the CPU (CPUID, a trap
 * in some virtual machines); the answer is kept for the next ones. */
SINEW_API sinew_simd sinew_simd_supported(void);

/* "auto", "scalar", "avx2", "avx512" or "neon" ("unknown" for other
 * values). */
SINEW_API const char *sinew_simd_name(sinew_simd level);

/* How normals follow a blended matrix M. */
typedef enum sinew_normal_mode {
    /* Decided once per call from the palette: the cheap path when every
     * palette matrix is a rotation times a uniform scale, the inverse
     * transpose otherwise. */
    SINEW_NORMALS_AUTO = 0,
    /* n' = M n, renormalized: the usual engine path. Exact where one
     * rotation-and-uniform-scale matrix acts; where different rotations
     * blend, M is no rotation and n' leans off the inverse transpose by a
     * few degrees at strongly bent joints. Wrong under non-uniform
     * scale. */
    SINEW_NORMALS_FAST = 1,
    /* n' = inverse transpose of M applied to n (through the cofactor
     * matrix), renormalized: exact under non-uniform scale and shear. */
    SINEW_NORMALS_INVERSE_TRANSPOSE = 2
} sinew_normal_mode;

/* A dual quaternion rigid transform with the stretch that dual quaternions
 * cannot carry. A palette matrix M (upper 3x3 A, translation t) becomes the
 * rotation R closest to A's axes (Gram-Schmidt from x, made proper) and
 * stretch S = R^T A (3x3, column-major), so that M p = R (S p) + t exactly.
 * DQS blends S linearly and the rigid parts as dual quaternions (the
 * two-phase method of Kavan et al. 2008, "Geometric Skinning with Approximate
 * Dual Quaternion Blending", section 4). */
typedef struct sinew_dq_transform {
    sinew_quat real;
    sinew_quat dual;
    float stretch[9];
} sinew_dq_transform;

/* Converts `count` palette matrices to dual quaternion transforms. Returns
 * SINEW_ERROR_SINGULAR (naming the joint) for a matrix whose 3x3 part is
 * singular (that joint's output is then the identity),
 * SINEW_ERROR_INVALID_ARGUMENT for NULL pointers. */
SINEW_API sinew_result sinew_dq_palette(const sinew_mat4 *palette, int count,
                                        sinew_dq_transform *out, sinew_error *err);

/* A skinned mesh's bind-pose positions and normals copied into the layout
 * its skin's SIMD kernels read: x, y and z of 8 consecutive vertices as
 * three vectors, the blocks in the order the kernels visit them, so that no
 * input is transposed or fetched from far away. Named by
 * sinew_skin_job.inputs instead of job.positions and job.normals, they
 * spare the kernels the transposes (docs/BENCHMARKS.md gives the speed-up).
 * The outputs are bit for bit those from the streams. For a mesh whose bind
 * pose does not change from call to call (morph targets applied on the CPU
 * change it: skin those from their streams); it holds a second copy of the
 * streams, 12 bytes a vertex each. Read-only once made: any number of jobs
 * and threads may share it; jobs may use it while its skin lives. */
typedef struct sinew_skin_inputs sinew_skin_inputs;

/* Copies the skin's vertex_count positions and normals (3 floats each,
 * strides in bytes, 0 meaning tightly packed; either may be NULL, not both)
 * into a sinew_skin_inputs for `skin`, with the skin's allocator. Returns
 * NULL and fills `err` (invalid arguments, out of memory). */
SINEW_API sinew_skin_inputs *sinew_skin_inputs_create(const sinew_skin *skin, const float *positions,
                                                      size_t positions_stride, const float *normals,
                                                      size_t normals_stride, sinew_error *err);

/* Frees inputs made by sinew_skin_inputs_create (NULL is fine). */
SINEW_API void sinew_skin_inputs_free(sinew_skin_inputs *inputs);

/* One skinning call over a vertex range. Inputs and outputs are caller-owned
 * float streams: positions and normals 3 floats per vertex, tangents 4 (w,
 * the handedness, is copied). A stride is in bytes, 0 meaning tightly packed.
 * An input left NULL is not skinned; an output may alias its input (same
 * stride). Vertex v reads element v of each stream, for v in
 * [first_vertex, first_vertex + vertex_count); vertex_count 0 means up to
 * the skin's vertex_count. Threads split a mesh by disjoint ranges. Packed
 * streams starting on 64-byte boundaries run fastest: the SIMD kernels read
 * and write 8 vertices, 96 bytes, at a time, and a stream only 16-byte
 * aligned splits more of those accesses across cache lines. */
typedef struct sinew_skin_job {
    const sinew_skin *skin;
    const sinew_mat4 *palette;             /* LBS: from sinew_skin_palette() */
    const sinew_dq_transform *dq_palette;  /* DQS: from sinew_dq_palette() */
    int palette_count;                     /* at least skin->joint_count */
    int first_vertex;
    int vertex_count;
    sinew_normal_mode normal_mode;
    /* Leaves skinned normals and tangents at the length their transform
     * gives instead of renormalizing them: for a renderer that normalizes
     * them anyway (a vertex or fragment shader after interpolation), as
     * ozz-animation's SkinningJob leaves them. The direction is the same as
     * when renormalized. The lengths: LBS |M n| (SINEW_NORMALS_FAST) or
     * |cofactor(M) n| = |det M| |M^-T n| (inverse transpose), tangents
     * |M t|; DQS |n| where normals are only rotated (SINEW_NORMALS_FAST, or
     * AUTO with every stretch uniform), |cofactor(S) n| otherwise, tangents
     * |S t|. It saves a reciprocal square root a vector. */
    bool skip_renormalize;
    /* Prepared positions and normals (sinew_skin_inputs_create) for this
     * skin, read instead of the streams below: `positions` and `normals`
     * stay NULL then. Each stream the inputs hold is skinned where its
     * output is given. */
    const sinew_skin_inputs *inputs;
    const float *positions;  size_t positions_stride;
    const float *normals;    size_t normals_stride;
    const float *tangents;   size_t tangents_stride;
    float *out_positions;    size_t out_positions_stride;
    float *out_normals;      size_t out_normals_stride;
    float *out_tangents;     size_t out_tangents_stride;
    /* The kernel: SINEW_SIMD_AUTO (0) is the best the CPU runs; a level
     * above what it runs falls back to the best below it. */
    sinew_simd simd;
} sinew_skin_job;

/* Checks a job without running it: the skin, the palette (`palette` for
 * LBS, `dq_palette` for DQS: `dqs` selects), its count, the vertex range,
 * strides, and that every input has an output. Returns the first problem. */
SINEW_API sinew_result sinew_skin_job_validate(const sinew_skin_job *job, bool dqs,
                                               sinew_error *err);

/* Linear blend skinning: M = sum of w_i * palette[i]; positions M (p, 1),
 * normals per job->normal_mode, tangents M (t, 0), both renormalized unless
 * job->skip_renormalize. Validates first. job->simd picks the kernel: the
 * SIMD ones blend 8 vertices at a time from the skin's joint blocks and
 * agree with the scalar reference to
 * 1e-6 of the size of the terms summed (each position component within
 * 1e-6 * sum of w_i (|A_i| |p| + |t_i|); unit normals and tangents within
 * 1e-6 where the blend does not nearly cancel in their direction). A NaN
 * in the palette gives NaN outputs, never a crash; under SIMD it may also
 * reach the other vertices of an 8-vertex block it touches. */
SINEW_API sinew_result sinew_skin_lbs(const sinew_skin_job *job, sinew_error *err);

/* Dual quaternion skinning. Per vertex: each influence's dual quaternion is
 * negated when its real part points away from the first influence's
 * (antipodality), the weighted sum is normalized by its real part's length,
 * and the blended stretch S = sum of w_i S_i is applied before it:
 * p' = DQ(S p), normals DQ-rotated cofactor(S) n, tangents DQ-rotated S t,
 * both renormalized unless job->skip_renormalize. With no stretch anywhere
 * in the palette (rigid joints) S is skipped.
 * Validates first. job->simd picks the kernel, as for sinew_skin_lbs: the
 * SIMD ones blend 8 vertices at a time from the skin's joint blocks (the
 * sign of each joint per vertex against its first influence's, exactly as
 * the reference decides it) and agree with the scalar reference within the
 * same tolerances; a NaN in the dual quaternion palette may reach the other
 * vertices of an 8-vertex block it touches. */
SINEW_API sinew_result sinew_skin_dqs(const sinew_skin_job *job, sinew_error *err);

/* ---- threads -------------------------------------------------------------- */

/* Most threads a pool runs. */
#define SINEW_MAX_THREADS 256

/* A pool of worker threads (pthreads) for work split by characters or by
 * vertex ranges. The library keeps no state of its own: every call is
 * re-entrant, so any threads (a pool of the caller's engine included) may
 * run sinew's jobs on disjoint outputs; this pool is for callers without
 * one. One sinew_pool_run at a time per pool. */
typedef struct sinew_pool sinew_pool;

/* One task of a run: index is 0 .. count - 1. */
typedef void (*sinew_task_fn)(void *user, int index);

/* Starts threads - 1 workers (the thread calling sinew_pool_run is the
 * last). Errors: SINEW_ERROR_INVALID_ARGUMENT (threads outside 1 ..
 * SINEW_MAX_THREADS), SINEW_ERROR_OUT_OF_MEMORY (memory, or a thread the
 * system would not start). */
SINEW_API sinew_pool *sinew_pool_create(int threads, const sinew_options *options, sinew_error *err);

/* Stops the workers and frees the pool (NULL is fine). */
SINEW_API void sinew_pool_free(sinew_pool *pool);

/* Threads a run uses, the caller included (1 for NULL). */
SINEW_API int sinew_pool_threads(const sinew_pool *pool);

/* Runs fn(user, i) for i in 0 .. count - 1 on the workers and the calling
 * thread, each index once; returns when all are done. Of n threads, thread
 * t (the workers first, the caller last) takes the indices from
 * count * t / n up to count * (t + 1) / n first, in order, the same share
 * in every run, so that a run that gives each index the same data as the
 * last finds it in the caches of the thread that touched it; a thread done
 * with its share takes what is left of the others'. The run ends when its
 * tasks are done: a worker asleep when it starts does not hold it up (the
 * others take its share). A NULL pool runs them in order on the calling
 * thread.
 * After a run the workers spin for a short while (about 20,000 pause
 * instructions) before they sleep, so that the next frame's run starts at
 * once; a sleeping worker is slow to wake (longer on a virtual machine),
 * and waking it costs the caller a system call. On Linux a worker that finds itself on the CPU the run was
 * started from moves off it (its affinity briefly without that CPU): some
 * kernels put a woken thread on its waker's CPU, so that the two take
 * turns there while another CPU idles. */
SINEW_API void sinew_pool_run(sinew_pool *pool, int count, sinew_task_fn fn, void *user);

/* Wakes the pool's sleeping workers without giving them work, so that a run
 * started within their spinning time (about 20,000 pause instructions)
 * finds every thread working from its
 * start: an engine calls it early in a frame, some time before the frame's
 * skinning, to take the wake-up (and its system call) off that run. With
 * `wait`, returns once every worker is awake (yielding the CPU meanwhile);
 * without, at once. It counts as a run: not while another sinew_pool_run
 * of the pool is in progress. A NULL or one-thread pool: nothing to do. */
SINEW_API void sinew_pool_wake(sinew_pool *pool, bool wait);

/* sinew_skin_lbs and sinew_skin_dqs over the pool's threads: the job's
 * range split into one share a thread (cut on 8-vertex blocks; fewer
 * threads where a share would have under 1024 vertices), each share in
 * pieces of halving size (a half, a quarter, ... down to 1024 vertices), so
 * that each thread skins the same vertices in every call, still in its
 * caches from the last frame, and a thread done early takes the small
 * pieces left at the end of another's. Same results and errors as the
 * one-thread calls; validates first. */
SINEW_API sinew_result sinew_skin_lbs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err);
/* The same for dual quaternion skinning. */
SINEW_API sinew_result sinew_skin_dqs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err);

/* Returns true when every matrix's 3x3 part is a rotation times a uniform
 * scale (columns orthogonal and of equal length within `tolerance`,
 * relative; false where a column's squared length is infinite or NaN).
 * This is the test SINEW_NORMALS_AUTO makes, once per skinning call. */
SINEW_API bool sinew_palette_is_conformal(const sinew_mat4 *palette, int count, float tolerance);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_H */
