/* SPDX-License-Identifier: MIT */
/* The clip room's interface to the rooms above it (layer, offline, asset)
 * and between its files: a clip's private state, the table of functions
 * each form of a clip (exact plan, packed, compressed) fills, and what each
 * file offers. Within the room calls go one way, down this list (no file
 * calls one above it; tests/check_rooms.sh checks it):
 *   sample.c     sampling: checks, then one call through the clip's form
 *   clip.c       creation, the form set, queries (through the form's
 *                bytes and describe; no sampler)
 *   packed.c     the packed form (the exact form's block layout, quantized)
 *   compressed.c the compressed form (its weights tracks keep an exact plan)
 *   plan.c       the exact form: the sampling plan of a clip's tracks
 *   simd/        the forms' kernels: dispatch.c over the AVX2 ones, each
 *                object choosing its level once, when made
 *   track.c      one track: key search, the reference sampler
 * Not installed. */
#ifndef SINEW_CLIP_INTERNAL_H
#define SINEW_CLIP_INTERNAL_H

#include "skeleton/skeleton_internal.h"

/* Each sinew_track_target's name in messages. */
extern const char *const sinew__target_names[4];

/* The floats a track's `values` holds: its components per key (three times
 * that for CUBICSPLINE: in-tangent, value, out-tangent) times its keys. */
static inline size_t sinew__track_floats(const sinew_track *t)
{
    size_t per_key = (size_t)sinew_track_components(t) * (t->interpolation == SINEW_INTERP_CUBICSPLINE ? 3 : 1);
    return (size_t)t->key_count * per_key;
}

/* Returns k with times[k] <= t < times[k + 1], given n >= 2 and
 * times[0] <= t < times[n - 1]; `hint` (optional) is tried first and
 * updated (track.c). */
int sinew__find_key(const float *times, int n, float t, int32_t *hint);

/* The value s of the way from key a to key b (c floats each): linear, or
 * for a rotation (c = 4) shortest-path slerp, nlerp with
 * SINEW_SAMPLE_NLERP in `flags` (track.c). */
void sinew__lerp_key(const float *a, const float *b, int c, bool rotation, float s, unsigned flags, float *out);

typedef struct sinew__sampler sinew__sampler;
typedef struct sinew__compressed sinew__compressed;

/* What a form tells of itself beyond its bytes (its describe). */
typedef struct sinew__clip_facts {
    /* the translation, rotation and scale keys it stands for beside the
     * clip's tracks (a packed clip's keys before packing) */
    int keys[3];
    /* a compressed clip's block and its size (NULL, 0 otherwise) */
    const unsigned char *block;
    size_t block_size;
    /* whether `report` holds a compressed clip's figures */
    bool compressed;
    sinew_compress_report report;
} sinew__clip_facts;

/* A form of a clip: the exact plan of its tracks (plan.c), packed keys
 * (packed.c) or a compressed block (compressed.c), each the one file that
 * samples its layout (with its kernels, simd/). sample.c consults the table once a call; the kernels a
 * form runs were chosen when it was made. Times are clip times (wrapped
 * already), flags sinew_sample_flags, `hints` the cursor's keys or NULL. */
typedef struct sinew__clip_form {
    /* The pose at t into `pose` (sk's joint count of them): the clip's
     * tracks over what they leave out, sk's rest pose (the identity for an
     * additive clip). */
    void (*sample_pose)(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                        sinew_transform *pose);
    /* As sample_pose into `local` (optional) and on into model space as
     * sinew_local_to_model(sk, local, root, model) computes it, where the
     * form does both in one pass (sinew__sampler_run_model); returns
     * false, having written nothing, otherwise. */
    bool (*sample_model)(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                         const sinew_mat4 *root, sinew_transform *local, sinew_mat4 *model);
    /* As sample_pose, into `pose`, a SoA pose in sk's pose order
     * (sinew_skeleton_pose_order), bit for bit, where the form writes that
     * order itself (sinew__sampler_run_pose); returns false, having
     * written nothing, otherwise (NULL: never). */
    bool (*sample_pose_order)(const sinew_clip *clip, float t, unsigned flags, int32_t *hints,
                              const sinew_skeleton *sk, float *pose);
    /* Joint `joint`'s local transform at t by the reference's formulas
     * (sample_pose's, to its kernels' agreement with them). */
    void (*sample_joint)(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                         sinew_transform *out);
    /* The bytes the form holds beside the clip's own allocation. */
    size_t (*bytes)(const sinew_clip *clip);
    /* The form's facts for the clip's queries (sinew_clip_key_count,
     * sinew_clip_compression, the archive writer). */
    void (*describe)(const sinew_clip *clip, sinew__clip_facts *facts);
} sinew__clip_form;

/* The forms (plan.c, packed.c, compressed.c). */
extern const sinew__clip_form sinew__form_exact, sinew__form_packed, sinew__form_compressed;

/* A clip as sinew_clip_create (or a build operation) makes it: the public
 * struct first, then what only the library reads, so that the public
 * struct's layout does not change with it. */
typedef struct sinew__clip {
    sinew_clip base;
    sinew_allocator allocator;
    size_t bytes;                 /* of the clip's allocation: the tracks (equal key times stored once) */
    const sinew__clip_form *form; /* how the clip is sampled and measured (sinew__clip_set_form) */
    /* the exact form's plan (a compressed clip's: of its weights tracks,
     * which sinew_clip_sample_weights samples as tracks) or the packed one */
    sinew__sampler *sampler;
    /* a compressed clip's reading of its block (compressed.h), in
     * `compressed_block` with its bytes (or beside them where they are
     * borrowed); NULL otherwise */
    const sinew__compressed *compressed;
    void *compressed_block;
} sinew__clip;

/* The library's view of a clip it made (written only while it is made). */
static inline sinew__clip *sinew__clip_of(const sinew_clip *clip) { return (sinew__clip *)(uintptr_t)clip; }

/* Gives `clip` its form, whose state (its plan, or its compressed reading)
 * is in place: the table sampling goes through and the public flags
 * (packed, compressed) that name it. The one place a clip's form is set:
 * sinew__clip_create, sinew__clip_compressed and sinew_clip_pack call it. */
SINEW__SHARED void sinew__clip_set_form(sinew_clip *clip, const sinew__clip_form *form);

/* How sinew__clip_create keeps a description's keys. */
enum {
    SINEW__CLIP_COPY = 0,   /* copied (sinew_clip_create), rotations not of unit length normalized */
    /* kept where they lie (alive, unchanged and 4-byte aligned for the
     * clip's life); a rotation not of unit length refused, as it cannot be
     * repaired there */
    SINEW__CLIP_BORROW = 1,
    /* kept where they lie as given, unchecked beyond sinew_clip_create's
     * checks and without a sampling plan (not to be sampled): a clip
     * sinew_clip_pack reads once, freed before its keys (a packed clip
     * read back from its keys) */
    SINEW__CLIP_TO_PACK = 2
};

/* sinew_clip_create() keeping the keys as `how` says, in the exact form
 * (clip.c). */
SINEW__SHARED sinew_clip *sinew__clip_create(const sinew_clip_desc *desc, int how, const sinew_options *options,
                                             sinew_error *err);

/* Makes `clip` (made by sinew__clip_create with its weights tracks alone)
 * a compressed clip of the `size` bytes at `bytes` (compressed.h), checked
 * first, then copied into the clip's memory or, with `borrow`, used where
 * they lie (4-byte aligned, alive and unchanged for the clip's life),
 * sampled at SIMD level `simd` (clip.c). Returns NULL, or what is wrong as
 * a phrase ("out of memory" included). */
SINEW__SHARED const char *sinew__clip_compressed(sinew_clip *clip, const unsigned char *bytes, size_t size,
                                                 bool borrow, int simd);

/* A compressed clip's block and its size (NULL for another clip; clip.c). */
SINEW__SHARED const unsigned char *sinew__clip_compressed_bytes(const sinew_clip *clip, size_t *size);

/* Joint `joint`'s local transform of `clip` at clip time t (wrapped
 * already) through its form (sample.c). */
void sinew__clip_sample_joint(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                              sinew_transform *out);

/* The exact form (plan.c) ------------------------------------------------ */

/* A clip's sampling plan: its LINEAR tracks laid out per shared timeline
 * for sampling many at once, or, for a clip made for `skeleton`
 * (optional) whose tracks allow it, in that skeleton's blocks (plan.h).
 * NULL when out of memory; lives in the clip's allocation scheme and is
 * freed with sinew__free_aligned. `simd`: the sinew_simd level its kernel
 * runs. */
sinew__sampler *sinew__sampler_create(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                      const sinew_allocator *alloc, int simd);

/* Bytes a plan (exact or packed) holds (0 for NULL). */
size_t sinew__sampler_bytes(const sinew__sampler *sampler);

/* The blocks of the plan's block layout stored once, not per key (its
 * constant blocks; 0 without the block layout or for NULL). */
int sinew__sampler_constant_blocks(const sinew__sampler *sampler);

/* The exact form's sample_model on its plan: as sampling into `local`,
 * and on into model space as sinew_local_to_model(sk, local, root, model)
 * computes it, when the plan can do both in one pass: it is in the block
 * layout of a skeleton with sk's parents, both run at the AVX2 level or
 * above and `root` is affine (or NULL). Returns false, having written
 * nothing, otherwise. */
bool sinew__sampler_run_model(const sinew__sampler *sampler, float t, unsigned flags, int32_t *hints,
                              const sinew_skeleton *sk, const sinew_mat4 *root, sinew_transform *local,
                              sinew_mat4 *model);

/* The exact form's sample_pose_order on its plan: the pose at t written
 * straight into `pose`, a SoA pose in sk's pose order, where the plan is
 * in the block layout of a skeleton with sk's parents and runs at the AVX2
 * level or above (the values sample_pose gives, bit for bit). Returns
 * false, having written nothing, otherwise. */
bool sinew__sampler_run_pose(const sinew__sampler *sampler, float t, unsigned flags, int32_t *hints,
                             const sinew_skeleton *sk, float *pose);

/* The packed form (packed.c) --------------------------------------------- */

/* What sinew__sampler_pack() found. */
typedef struct sinew__pack_result {
    int refused_track; /* the first track a packed layout cannot take (-1: none) */
    const char *why;   /* why it cannot */
    int other_track;   /* for "other key times": the track whose key times the layout took (-1: none) */
    int wide_joint;    /* a joint whose values span too much for 16 bits (-1: none) */
    float errors[3];   /* translation distance, rotation angle, scale component: furthest a packed key lies from the clip's */
    int varying_floats; /* floats stored per key */
    int key_counts[3]; /* of the clip's translation, rotation and scale tracks */
} sinew__pack_result;

/* The plan of sinew_clip_pack(): the clip's translation, rotation and
 * scale tracks in sk's block layout, its animated blocks' values quantized
 * (plan.h), sampled at any SIMD level and read through no
 * track (its key hint at cursor entry `hint_slot`), holding
 * res->key_counts for the packed form's describe. NULL when the layout
 * cannot take the clip (res->refused_track, res->wide_joint) or out of
 * memory (neither). */
sinew__sampler *sinew__sampler_pack(const sinew_clip *clip, const sinew_skeleton *sk, int hint_slot,
                                    const sinew_allocator *alloc, int simd, sinew__pack_result *res);

/* One float of a packed track as its plan holds it: at key k,
 * offset + q[k * stride] step where q is not NULL (step a power of two or
 * 0), else `value` at every key. */
typedef struct sinew__packed_float {
    float value, offset, step;
    const uint16_t *q;
} sinew__packed_float;

/* A translation, rotation or scale track of a packed clip: its floats. */
typedef struct sinew__packed_track {
    int joint;
    sinew_track_target target;
    sinew__packed_float f[4]; /* 3, or 4 for a rotation */
} sinew__packed_track;

/* A packed clip's key times, its q stride, and its translation, rotation
 * and scale tracks as they are stored, joint by joint: writes at most
 * `capacity` of them to `out` and returns how many there are (0 for a
 * clip that is not packed). */
SINEW__SHARED int sinew__packed_tracks(const sinew_clip *clip, const float **times, int *key_count, size_t *stride,
                                       sinew__packed_track *out, int capacity);

/* One float of a packed track as an archive stores it (docs/ARCHIVE.md,
 * section 6): offset + q[k] step at key k where q is not NULL, q[k] the
 * little-endian u16 at bytes q + 2k (on any boundary), else `value` at
 * every key. */
typedef struct sinew__stored_float {
    float value, offset, step;
    const unsigned char *q;
} sinew__stored_float;

/* A translation, rotation or scale track of a packed clip as stored: its
 * floats (3, or 4 for a rotation). */
typedef struct sinew__stored_track {
    int joint;
    sinew_track_target target;
    sinew__stored_float f[4];
} sinew__stored_track;

/* The plan sinew__sampler_pack() makes, with `hint_slot`, of the clip the
 * n stored tracks stand for (joints of sk, at most one track per joint and
 * target, LINEAR on the key_count `times`, a track none of whose floats
 * varies holding one key; `additive` as the clip), made from the stored
 * keys directly: the same plan, bit for bit, without the clip's floats or
 * the exact layout's frames, in time and memory linear in the stored
 * bytes (its exact layout's tables and two keys beside). The caller has
 * checked the keys as sinew_clip_create checks a clip's (times increasing,
 * values finite). res->errors are left 0. NULL when a float's values span
 * too much for 16 bits (res->wide_joint) or out of memory. */
SINEW__SHARED sinew__sampler *sinew__sampler_pack_stored(const sinew__stored_track *tracks, int n, const float *times,
                                                         int key_count, bool additive, const sinew_skeleton *sk,
                                                         int hint_slot, const sinew_allocator *alloc, int simd,
                                                         sinew__pack_result *res);

#endif /* SINEW_CLIP_INTERNAL_H */
