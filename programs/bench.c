/* SPDX-License-Identifier: MIT */
/* `sinew bench`: the runtime's kernels on one character, timed the way
 * docs/BENCHMARKS.md reports them: per call for one character, median (and
 * min, max) over batches after a warm-up, as a table and as JSON:
 *
 *   { "cpu": "...", "simd": "avx512", "threads": 1,
 *     "results": [ {"name": "sample_local_to_model", "unit": "joint", "count": 67,
 *                   "median_ns": 0.0, "min_ns": 0.0, "max_ns": 0.0}, ... ] }
 *
 * Skinning entries add "vertices" and "mvertex_per_s"; "clip_bytes" is the
 * memory of the runtime clip. With --threads N the skinning kernels run
 * over a sinew_pool of N threads (sinew_skin_lbs_parallel: a share of the
 * vertices a thread; the library holds no state, so ranges need no locking),
 * their batches alternating with one-thread batches of the same job, whose
 * median ("one_thread_median_ns") and the median of the pairs' ratios
 * ("speedup") the rows add.
 * blend2 and blend3 blend two or three sampled poses with sinew_blend
 * (transform arrays in and out); blend2_pose and blend3_pose blend the
 * same poses with sinew_blend_pose, SoA poses in and out, and skip what
 * sinew_blend does at its edges: the layers and the rest pose are
 * converted from the sampled transforms once, outside the timed calls (as
 * ozz's BlendingJob reads the SoA poses its sampler wrote), and the output
 * is not converted back. blend2_pose_masked is blend2_pose with the second
 * layer masked per joint (weight 0 on every third joint, 1 on the others:
 * joints of one contributor and of two). additive adds the second of those
 * poses' delta over the rest pose (sinew_additive_delta, once) onto the
 * first at weight 0.7 (sinew_additive_apply); additive_pose does the same
 * on the SoA poses (sinew_additive_apply_pose). local_to_model_pose is sinew_local_to_model_pose
 * on the first of those poses in the skeleton's pose order (SoA in, model
 * matrices out: ozz's LocalToModelJob's work); it skips the conversion from
 * transforms (sinew_pose_order_from_transforms, once, outside the timed
 * calls), as ozz's job reads the SoA pose its sampler or blend wrote.
 * sample_pose samples as sample does into a SoA pose in the skeleton's
 * pose order (sinew_clip_sample_pose: what ozz's SamplingJob writes).
 * frame_blend2 is a whole frame of two clips: the clip sampled at two
 * times (each with its cursor), the two poses blended (weights 0.5, 0.3)
 * and turned into model matrices, with transform arrays
 * (sinew_clip_sample, sinew_blend, sinew_local_to_model);
 * frame_blend2_pose the same in SoA poses in the pose order, with no
 * conversion anywhere (sinew_clip_sample_pose, sinew_blend_pose,
 * sinew_local_to_model_pose): ozz's two SamplingJobs, BlendingJob and
 * LocalToModelJob.
 * --weld loads FILE with its identical vertices merged (ozz's arnaud mesh
 * is welded); --copies K skins K copies of the mesh end to end as one. The
 * rows ending in _optimized sample the clip after sinew_clip_optimize with
 * the tolerances of OPTIMIZE_TOLERANCE ("clip_bytes_optimized": its
 * memory); those with _packed the optimized clip after sinew_clip_pack
 * ("clip_bytes_packed"); those with _compressed the clip after
 * sinew_clip_compress at the bound of --bound on virtual vertices at the
 * distance of --shell ("clip_bytes_compressed": the compressed form's
 * bytes; sample_seek_compressed seeks as sample_seek does: its sampling
 * costs the same wherever it lands). skin_lbs_pos_nrm_one_joint skins the mesh with
 * every vertex bound to its skin's first joint, weight 1: the LBS kernel
 * without its blend.
 * skin_lbs_pos_nrm_raw leaves the normals unnormalized
 * (sinew_skin_job.skip_renormalize), the work ozz's SkinningJob does; the
 * rows ending in _prepared read the mesh from sinew_skin_inputs; those
 * ending in _no_local call sinew_clip_sample_model without a local pose;
 * skin_lbs_pos_nrm_frame makes each call 2 ms after the last, as an
 * engine's frames do (its median is of 15 single calls): the pool's workers
 * have gone to sleep and must be woken, and the caches have cooled;
 * skin_lbs_pos_nrm_frame_woken wakes them (sinew_pool_wake, waiting) after
 * the pause and before the call, as an engine that wakes them early in its
 * frame: the caches cooled alone. The archive rows load the character from
 * the archive sinew_archive_write makes of it (format 2.0, checked whole):
 * archive_load copies it (sinew_archive_load), archive_view views it where
 * it lies (sinew_archive_view), archive_view_prepared views the archive
 * with the skins' SIMD blocks stored; their unit is the archive's byte
 * ("archive_bytes", "archive_bytes_prepared"). The springs rows do not use
 * the character: they step the spring bones of a crowd made here, 10,000
 * chains of 8 joints (five rigs of 2,000 strands) over a sphere and a
 * capsule, one step of 1/60 s per call while the roots sway; springs at
 * the asked level (AVX2: eight chains at a time), springs_scalar with the
 * scalar reference; the unit is the simulated joint. ik_two_bone solves
 * the left leg (thigh, shin, foot; without a foot by a known name, the
 * deepest joint and the two above it: the unit is the chain joint, 3)
 * toward a target a little closer to the hip than the foot, writing the
 * local pose (the first of the sampled poses when the row starts), the
 * model matrices left as they were before the row (each call solves the
 * same chain again); ik_two_bone_pose does the same on a
 * SoA pose in the skeleton's pose order; ik_then_local_to_model_from follows
 * each solve with sinew_local_to_model_from the thigh, making the leg's
 * matrices anew, as ozz's two-bone IK sample does after its job. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "../bench/bench.h"
#include "sinew/sinew_archive.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCHES = 15, SEEKS = 1024 };
/* translation in the character's units, rotation in radians, scale: far
 * below what shows (the pab rig is in centimetres: 10 micrometres) */
static const sinew_clip_tolerance OPTIMIZE_TOLERANCE = {1e-3f, 1e-5f, 1e-5f};

typedef struct bench_args {
    cli_source source;
    int threads;
    sinew_simd simd;
    const char *json;
    int copies;
    float shell; /* the virtual vertices' distance the clips' errors are measured at */
    float bound; /* the compressed clip's error bound (0: a 300th of the shell, 0.01 cm at 3 cm) */
} bench_args;

/* An archive written into memory. */
typedef struct grown {
    unsigned char *bytes;
    size_t size;
} grown;

static bool grow(void *user, const void *bytes, size_t size)
{
    grown *g = user;
    unsigned char *bigger = realloc(g->bytes, g->size + size);
    if (!bigger) return false;
    memcpy(bigger + g->size, bytes, size);
    g->bytes = bigger, g->size += size;
    return true;
}

/* ---- a bigger mesh ------------------------------------------------------------ */

/* `bytes` on a cache line, as an engine places its pose arrays and vertex
 * buffers (the kernels' 32-byte accesses then never straddle two lines,
 * and the figures do not depend on where malloc happened to put them);
 * free() frees it. */
static void *cache_aligned(size_t bytes)
{
    bytes = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* `copies` of `m` end to end as one skinned mesh (for the multi-threaded
 * figures on meshes over 50,000 vertices): its streams and its skin made
 * anew, the same joints, inverse bind matrices and influences. Returns false
 * (and prints why) when out of memory; free with free_copies(). */
static bool make_copies(const sinew_skeleton *sk, const sinew_mesh *m, int copies, sinew_mesh *out)
{
    const sinew_skin *s = m->skin;
    size_t nv = (size_t)m->vertex_count, all = nv * (size_t)copies, per = (size_t)s->influence_count;
    size_t wper = per - (s->last_weight_implied ? 1 : 0);
    size_t isize = s->index_type == SINEW_INDEX_U8 ? 1 : 2;
    size_t wsize = s->weight_type == SINEW_WEIGHT_F32 ? 4 : s->weight_type == SINEW_WEIGHT_UNORM8 ? 1 : 2;
    *out = *m;
    float *pos = cache_aligned(sizeof(float) * 3 * all), *nrm = m->normals ? cache_aligned(sizeof(float) * 3 * all) : NULL;
    unsigned char *idx = malloc(isize * per * all), *w = malloc(wsize * wper * all + 1);
    int *joints = malloc(sizeof(int) * (size_t)s->joint_count);
    bool ok = pos && idx && w && joints && (nrm || !m->normals);
    if (ok) {
        for (int c = 0; c < copies; ++c) {
            memcpy(pos + 3 * nv * (size_t)c, m->positions, sizeof(float) * 3 * nv);
            if (nrm) memcpy(nrm + 3 * nv * (size_t)c, m->normals, sizeof(float) * 3 * nv);
            memcpy(idx + isize * per * nv * (size_t)c, s->indices, isize * per * nv);
            memcpy(w + wsize * wper * nv * (size_t)c, s->weights, wsize * wper * nv);
        }
        for (int j = 0; j < s->joint_count; ++j) joints[j] = s->joints[j];
        sinew_skin_desc d = {.joint_count = s->joint_count, .joints = joints, .inverse_bind = s->inverse_bind,
                             .vertex_count = (int)all, .influence_count = s->influence_count,
                             .index_type = s->index_type, .indices = idx, .weight_type = s->weight_type,
                             .weights = w, .last_weight_implied = s->last_weight_implied};
        sinew_error err = {0};
        out->skin = sinew_skin_create(sk, &d, NULL, NULL, &err);
        if (!out->skin) fprintf(stderr, "sinew: bench: --copies: %s\n", err.description);
        ok = out->skin != NULL;
    } else {
        fprintf(stderr, "sinew: bench: --copies: out of memory\n");
    }
    free(idx), free(w), free(joints);
    out->positions = pos, out->normals = nrm, out->vertex_count = (int)all;
    if (!ok) free(pos), free(nrm), out->positions = out->normals = NULL;
    return ok;
}

static void free_copies(sinew_mesh *m)
{
    sinew_skin_free((sinew_skin *)m->skin);
    free((void *)m->positions), free((void *)m->normals);
}

/* The mesh's vertices all bound to its skin's first joint with weight 1 (its
 * inverse bind matrix), so that the LBS kernel's time without the blend
 * shows: what transforming, normalizing and the streams cost alone. NULL
 * (and prints why) on failure. */
static sinew_skin *one_joint_skin(const sinew_skeleton *sk, const sinew_mesh *m)
{
    const sinew_skin *s = m->skin;
    uint8_t *indices = calloc((size_t)m->vertex_count + 1, 1);
    int joint = s->joints[0];
    sinew_skin_desc d = {.joint_count = 1, .joints = &joint, .inverse_bind = s->inverse_bind,
                         .vertex_count = m->vertex_count, .influence_count = 1, .index_type = SINEW_INDEX_U8,
                         .indices = indices, .weight_type = SINEW_WEIGHT_F32, .last_weight_implied = true};
    sinew_error err = {0};
    sinew_skin *one = indices ? sinew_skin_create(sk, &d, NULL, NULL, &err) : NULL;
    if (!one) fprintf(stderr, "sinew: bench: one-joint skin: %s\n", indices ? err.description : "out of memory");
    free(indices);
    return one;
}

/* ---- the kernels ------------------------------------------------------------ */

/* What a row runs. */
typedef enum operation {
    OP_SAMPLE, OP_SEEK, OP_L2M, OP_SAMPLE_MODEL, /* sinew_clip_sample_model */
    OP_SAMPLE_THEN_L2M, /* sinew_clip_sample then sinew_local_to_model: what sinew_clip_sample_model saves */
    OP_PALETTE, OP_LBS_PN, OP_LBS_P, OP_DQS_PN, OP_BLEND2, OP_BLEND3, OP_IK,
    OP_BLEND2_POSE, OP_BLEND3_POSE, /* sinew_blend_pose: SoA poses converted outside the timed calls */
    OP_BLEND2_POSE_MASKED,          /* the same, the second layer masked per joint */
    OP_ADDITIVE, OP_ADDITIVE_POSE, /* sinew_additive_apply; sinew_additive_apply_pose on SoA poses */
    OP_IK_FROM, /* two-bone IK, then sinew_local_to_model_from its start joint */
    OP_L2M_POSE, /* sinew_local_to_model_pose: a SoA pose in the skeleton's order, converted outside the timed calls */
    OP_ARCHIVE_LOAD, OP_ARCHIVE_VIEW, /* the character from its archive, copied or viewed where it lies */
    OP_SPRINGS, /* one step of a crowd's spring bones (its own rig, not the character's) */
    OP_SAMPLE_POSE, /* sinew_clip_sample_pose: the skeleton's pose order */
    OP_FRAME2 /* two samples, a blend and local to model: transform arrays, or (POSE) SoA poses in pose order */
} operation;

enum {
    SCALAR = 1,    /* the scalar reference beside the level asked for, for the ratio (sampling: a skeleton and
                      clip made at the scalar level) */
    NLERP = 2,     /* rotations by nlerp (SINEW_SAMPLE_NLERP), as ozz samples */
    OPTIMIZED = 4, /* the clip after sinew_clip_optimize */
    ONE_JOINT = 8, /* the mesh bound to one joint with weight 1: the skinning kernel without its blend */
    RAW = 16,      /* normals not renormalized (skip_renormalize), as ozz's skinning leaves them */
    PREPARED = 32, /* positions and normals from sinew_skin_inputs instead of the mesh's streams */
    NO_LOCAL = 64, /* sinew_clip_sample_model writes the model matrices only */
    PACKED = 128,  /* the optimized clip after sinew_clip_pack */
    FRAME = 256,   /* each call FRAME_GAP_NS after the last, as an engine's frames: the pool's workers asleep */
    WOKEN = 512,   /* a FRAME row whose workers are woken (sinew_pool_wake) after the pause, before the call */
    COMPRESSED = 1024, /* the clip after sinew_clip_compress */
    POSE = 2048 /* SoA poses in the skeleton's pose order */
};

/* The pause before each call of a FRAME row: longer than the pool's workers
 * spin (about 20,000 pause instructions), shorter than a 60 Hz frame. */
enum { FRAME_GAP_NS = 2000000 };

typedef struct kernel {
    const char *name;
    operation op;
    unsigned is; /* SCALAR, NLERP, OPTIMIZED, ONE_JOINT, RAW, PREPARED, NO_LOCAL, PACKED, FRAME, WOKEN */
} kernel;

/* The rows, in the order printed. */
static const kernel kernels[] = {
    {"sample", OP_SAMPLE, 0}, {"sample_seek", OP_SEEK, 0}, {"local_to_model", OP_L2M, 0},
    {"local_to_model_pose", OP_L2M_POSE, 0}, {"sample_local_to_model", OP_SAMPLE_MODEL, 0}, {"palette", OP_PALETTE, 0}, {"skin_lbs_pos_nrm", OP_LBS_PN, 0},
    {"skin_lbs_pos", OP_LBS_P, 0}, {"skin_dqs_pos_nrm", OP_DQS_PN, 0}, {"blend2", OP_BLEND2, 0},
    {"blend3", OP_BLEND3, 0}, {"blend2_pose", OP_BLEND2_POSE, 0}, {"blend3_pose", OP_BLEND3_POSE, 0},
    {"blend2_pose_masked", OP_BLEND2_POSE_MASKED, 0},
    {"additive", OP_ADDITIVE, 0}, {"additive_pose", OP_ADDITIVE_POSE, 0},
    {"ik_two_bone", OP_IK, 0}, {"ik_two_bone_pose", OP_IK, POSE},
    {"ik_then_local_to_model_from", OP_IK_FROM, 0}, {"sample_pose", OP_SAMPLE_POSE, 0},
    {"frame_blend2", OP_FRAME2, 0}, {"frame_blend2_pose", OP_FRAME2, POSE}, {"skin_lbs_pos_nrm_scalar", OP_LBS_PN, SCALAR},
    {"skin_lbs_pos_scalar", OP_LBS_P, SCALAR}, {"skin_dqs_pos_nrm_scalar", OP_DQS_PN, SCALAR},
    {"sample_nlerp", OP_SAMPLE, NLERP}, {"sample_local_to_model_nlerp", OP_SAMPLE_MODEL, NLERP},
    {"sample_scalar", OP_SAMPLE, SCALAR}, {"local_to_model_scalar", OP_L2M, SCALAR},
    {"sample_local_to_model_scalar", OP_SAMPLE_MODEL, SCALAR}, {"sample_then_local_to_model", OP_SAMPLE_THEN_L2M, 0},
    {"sample_optimized", OP_SAMPLE, OPTIMIZED}, {"sample_local_to_model_optimized", OP_SAMPLE_MODEL, OPTIMIZED},
    {"sample_local_to_model_optimized_nlerp", OP_SAMPLE_MODEL, OPTIMIZED | NLERP},
    {"sample_local_to_model_no_local", OP_SAMPLE_MODEL, NO_LOCAL},
    {"sample_local_to_model_optimized_nlerp_no_local", OP_SAMPLE_MODEL, OPTIMIZED | NLERP | NO_LOCAL},
    {"sample_packed", OP_SAMPLE, PACKED}, {"sample_local_to_model_packed", OP_SAMPLE_MODEL, PACKED},
    {"sample_local_to_model_packed_nlerp_no_local", OP_SAMPLE_MODEL, PACKED | NLERP | NO_LOCAL},
    {"sample_compressed", OP_SAMPLE, COMPRESSED}, {"sample_seek_compressed", OP_SEEK, COMPRESSED},
    {"sample_compressed_nlerp", OP_SAMPLE, COMPRESSED | NLERP},
    {"sample_local_to_model_compressed", OP_SAMPLE_MODEL, COMPRESSED},
    {"skin_lbs_pos_nrm_one_joint", OP_LBS_PN, ONE_JOINT}, {"skin_lbs_pos_nrm_raw", OP_LBS_PN, RAW},
    {"skin_lbs_pos_nrm_raw_scalar", OP_LBS_PN, RAW | SCALAR}, {"skin_lbs_pos_nrm_prepared", OP_LBS_PN, PREPARED},
    {"skin_lbs_pos_nrm_raw_prepared", OP_LBS_PN, RAW | PREPARED}, {"skin_lbs_pos_prepared", OP_LBS_P, PREPARED},
    {"skin_dqs_pos_nrm_prepared", OP_DQS_PN, PREPARED}, {"skin_lbs_pos_nrm_frame", OP_LBS_PN, FRAME},
    {"skin_lbs_pos_nrm_frame_woken", OP_LBS_PN, FRAME | WOKEN}, {"archive_load", OP_ARCHIVE_LOAD, 0},
    {"archive_view", OP_ARCHIVE_VIEW, 0}, {"archive_view_prepared", OP_ARCHIVE_VIEW, PREPARED},
    {"springs", OP_SPRINGS, 0}, {"springs_scalar", OP_SPRINGS, SCALAR}};
enum { KERNEL_COUNT = sizeof kernels / sizeof kernels[0] };

static bool skinning(operation op) { return op == OP_LBS_PN || op == OP_LBS_P || op == OP_DQS_PN; }

typedef struct bench {
    const sinew_skeleton *sk; /* made again at the level asked for */
    const sinew_clip *clip;
    sinew_skeleton *level_sk, *scalar_sk;
    sinew_clip *level_clip, *scalar_clip, *optimized_clip, *packed_clip, *compressed_clip;
    const sinew_mesh *mesh;   /* the skinned mesh with the most vertices, or NULL */
    sinew_skin *one_joint;    /* its vertices all on its skin's first joint (the ONE_JOINT rows) */
    sinew_skin_inputs *inputs; /* its positions and normals prepared (the PREPARED rows) */
    int n;
    sinew_cursor cursor, cursor2; /* cursor2: the frame rows' second sample */
    float *frame_poses; /* the frame rows' two sampled SoA poses, their blend, the rest pose: pose order */
    int lanes;          /* the skeleton's pose order */
    float time, seeks[SEEKS];
    int seek;
    sinew_transform *local, *poses;  /* poses: three for the blends */
    float *pose_layers, *pose_rest, *pose_out; /* the SoA blends' three poses, rest pose, output */
    float *mask;                               /* blend2_pose_masked's second layer's, a float per joint */
    sinew_transform *delta;   /* the additive rows' delta: the second pose over the rest pose */
    float *pose_delta;        /* the same, SoA */
    float *pose_ik;           /* ik_two_bone_pose's local pose: SoA in the pose order */
    float *pose_order;        /* the first blend pose in the skeleton's pose order (local_to_model_pose) */
    sinew_mat4 *model, *palette;
    sinew_dq_transform *dq;
    float *out_pos, *out_nrm;
    int ik[3];                /* start, mid, end; -1 without a chain */
    sinew_vec3 ik_target;
    sinew_pool *pool;
    sinew_simd simd;          /* the level the skinning kernels run */
    const unsigned char *archive[2]; /* the character's archive, plain and prepared, on cache lines */
    size_t archive_size[2];
    /* the springs rows: SPRING_CROWD characters of one rig, each a root and
     * SPRING_CHAINS strands of SPRING_PER joints with a sphere and a capsule
     * on the root; springs[0] at the asked level, springs[1] scalar */
    sinew_skeleton *spring_sk;
    sinew_springs *springs[2];
    sinew_spring_state *spring_state[2][5];
    sinew_transform *spring_local;
    sinew_mat4 *spring_model;
    float spring_time;
} bench;

enum { SPRING_CROWD = 5, SPRING_CHAINS = 2000, SPRING_PER = 8, SPRING_RIG = 1 + SPRING_CHAINS * SPRING_PER };

/* The springs rows' crowd: 10,000 chains of 8 joints (a skeleton holds at
 * most SINEW_MAX_JOINTS joints, so five characters of 2,000), hanging
 * across two colliders, at rest in their rest pose. False with `err`
 * filled when something cannot be made. */
static bool make_spring_crowd(bench *b, sinew_simd level, sinew_error *err)
{
    int *parents = malloc(sizeof *parents * SPRING_RIG);
    sinew_transform *rest = malloc(sizeof *rest * SPRING_RIG);
    sinew_spring_joint *joints = malloc(sizeof *joints * SPRING_CHAINS * SPRING_PER);
    sinew_spring_chain *chains = malloc(sizeof *chains * SPRING_CHAINS);
    b->spring_local = malloc(sizeof *b->spring_local * SPRING_RIG * SPRING_CROWD);
    b->spring_model = malloc(sizeof *b->spring_model * SPRING_RIG * SPRING_CROWD);
    bool ok = parents && rest && joints && chains && b->spring_local && b->spring_model;
    if (!ok) *err = (sinew_error){SINEW_ERROR_OUT_OF_MEMORY, "out of memory"};
    for (int j = 0; ok && j < SPRING_RIG; ++j) {
        int i = (j - 1) % SPRING_PER, s = (j - 1) / SPRING_PER;
        parents[j] = j == 0 ? -1 : i == 0 ? 0 : j - 1;
        rest[j] = sinew_transform_identity();
        if (j > 0)
            rest[j].translation = i == 0 ? sinew_vec3_make(0.01f * (float)(s % 50), 1.5f, 0.01f * (float)(s / 50))
                                         : sinew_vec3_make(0.05f, -0.02f, 0.0f);
        if (j > 0) {
            sinew_spring_joint *sj = &joints[j - 1];
            *sj = sinew_spring_joint_default(j);
            sj->gravity_power = 9.8f, sj->hit_radius = 0.01f, sj->stiffness = 0.5f;
        }
    }
    sinew_spring_collider colliders[2] = {{0, SINEW_COLLIDER_SPHERE, {0.2f, 1.3f, 0.2f}, {0, 0, 0}, 0.15f},
                                          {0, SINEW_COLLIDER_CAPSULE, {0.0f, 1.2f, -0.1f}, {0.5f, 1.2f, -0.1f}, 0.1f}};
    int members[2] = {0, 1}, group = 0;
    sinew_spring_collider_group groups[1] = {{members, 2}};
    for (int c = 0; ok && c < SPRING_CHAINS; ++c)
        chains[c] = (sinew_spring_chain){joints + c * SPRING_PER, SPRING_PER, &group, 1, -1};
    if (ok) b->spring_sk = sinew_skeleton_create(&(sinew_skeleton_desc){SPRING_RIG, parents, NULL, rest}, NULL, NULL, err);
    ok = ok && b->spring_sk;
    sinew_springs_desc desc = {colliders, 2, groups, 1, chains, SPRING_CHAINS};
    for (int v = 0; ok && v < 2; ++v) {
        sinew_options options = {.simd = v ? SINEW_SIMD_SCALAR : level};
        ok = (b->springs[v] = sinew_springs_create(b->spring_sk, &desc, &options, err)) != NULL;
        for (int c = 0; ok && c < SPRING_CROWD; ++c)
            ok = (b->spring_state[v][c] = sinew_spring_state_create(b->springs[v], NULL, err)) != NULL;
    }
    for (int c = 0; ok && c < SPRING_CROWD; ++c) {
        memcpy(b->spring_local + c * SPRING_RIG, rest, sizeof *rest * SPRING_RIG);
        sinew_local_to_model(b->spring_sk, rest, NULL, b->spring_model + c * SPRING_RIG, SPRING_RIG, NULL);
    }
    free(parents), free(rest), free(joints), free(chains);
    return ok;
}

static void free_spring_crowd(bench *b)
{
    for (int v = 0; v < 2; ++v) {
        for (int c = 0; c < SPRING_CROWD; ++c) sinew_spring_state_free(b->spring_state[v][c]);
        sinew_springs_free(b->springs[v]);
    }
    sinew_skeleton_free(b->spring_sk);
    free(b->spring_local), free(b->spring_model);
}

/* The mesh through a skinning kernel, over the pool's threads. */
static void skin(bench *b, const kernel *k)
{
    const sinew_mesh *m = b->mesh;
    sinew_skin_job job = {.skin = m->skin, .palette = b->palette, .dq_palette = b->dq,
                          .palette_count = m->skin->joint_count, .positions = m->positions,
                          .out_positions = b->out_pos, .simd = b->simd};
    if (k->is & SCALAR) job.simd = SINEW_SIMD_SCALAR;
    if (k->is & ONE_JOINT) job.skin = b->one_joint; /* its one joint is the skin's first: palette[0] */
    job.skip_renormalize = (k->is & RAW) != 0;
    if (k->op != OP_LBS_P && m->normals) job.normals = m->normals, job.out_normals = b->out_nrm;
    if (k->is & PREPARED) job.inputs = b->inputs, job.positions = job.normals = NULL;
    if (k->op == OP_DQS_PN)
        sinew_skin_dqs_parallel(&job, b->pool, NULL);
    else
        sinew_skin_lbs_parallel(&job, b->pool, NULL);
}

/* A copy of the skeleton and the clip made with options.simd = level. */
static bool remake(const sinew_skeleton *sk, const sinew_clip *clip, sinew_simd level, sinew_skeleton **out_sk,
                   sinew_clip **out_clip, sinew_error *err)
{
    int n = sk->joint_count;
    int *parents = malloc(sizeof *parents * ((size_t)n + 1));
    if (!parents) {
        *err = (sinew_error){SINEW_ERROR_OUT_OF_MEMORY, "out of memory"};
        return false;
    }
    for (int j = 0; j < n; ++j) parents[j] = sk->parents[j];
    sinew_options options = {.simd = level};
    *out_sk = sinew_skeleton_create(&(sinew_skeleton_desc){n, parents, sk->names, sk->rest_pose}, NULL, &options, err);
    free(parents);
    if (!*out_sk) return false;
    *out_clip = sinew_clip_create(&(sinew_clip_desc){.name = clip->name, .duration = clip->duration,
                                                     .joint_count = clip->joint_count,
                                                     .track_count = clip->track_count, .tracks = clip->tracks,
                                                     .additive = clip->additive, .skeleton = *out_sk},
                                  &options, err);
    return *out_clip != NULL;
}

static void run_kernel(bench *b, const kernel *k)
{
    bool scalar = (k->is & SCALAR) != 0;
    const sinew_skeleton *sk = scalar ? b->scalar_sk : b->sk;
    const sinew_clip *clip = scalar              ? b->scalar_clip
                             : k->is & PACKED    ? b->packed_clip
                             : k->is & COMPRESSED ? b->compressed_clip
                             : k->is & OPTIMIZED ? b->optimized_clip
                                                 : b->clip;
    int n = b->n;
    switch (k->op) {
    case OP_SAMPLE:
    case OP_SAMPLE_MODEL:
    case OP_SAMPLE_THEN_L2M: {
        unsigned flags = SINEW_SAMPLE_LOOP | (k->is & NLERP ? SINEW_SAMPLE_NLERP : 0);
        b->time += 1.0f / 60.0f;
        if (b->time >= clip->duration) b->time -= clip->duration;
        if (k->op == OP_SAMPLE_MODEL)
            sinew_clip_sample_model(clip, sk, b->time, flags, &b->cursor, NULL, k->is & NO_LOCAL ? NULL : b->local,
                                    b->model, n, NULL);
        else
            sinew_clip_sample(clip, sk, b->time, flags, &b->cursor, b->local, n, NULL);
        if (k->op == OP_SAMPLE_THEN_L2M) sinew_local_to_model(sk, b->local, NULL, b->model, n, NULL);
        break;
    }
    case OP_SEEK:
        b->seek = (b->seek + 1) % SEEKS;
        sinew_clip_sample(clip, sk, b->seeks[b->seek] * clip->duration, SINEW_SAMPLE_LOOP, &b->cursor, b->local, n,
                          NULL);
        break;
    case OP_L2M: sinew_local_to_model(sk, b->local, NULL, b->model, n, NULL); break;
    case OP_L2M_POSE: sinew_local_to_model_pose(sk, b->pose_order, NULL, b->model, n, NULL); break;
    case OP_SAMPLE_POSE:
    case OP_FRAME2: {
        b->time += 1.0f / 60.0f;
        if (b->time >= clip->duration) b->time -= clip->duration;
        float other = b->time + 0.37f * clip->duration;
        size_t floats = SINEW_POSE_FLOATS(b->lanes);
        float *a = b->frame_poses, *c = a + floats, *out = c + floats, *rest = out + floats;
        if (k->op == OP_SAMPLE_POSE) {
            sinew_clip_sample_pose(clip, sk, b->time, SINEW_SAMPLE_LOOP, &b->cursor, NULL, a, b->lanes, NULL);
        } else if (k->is & POSE) {
            sinew_clip_sample_pose(clip, sk, b->time, SINEW_SAMPLE_LOOP, &b->cursor, NULL, a, b->lanes, NULL);
            sinew_clip_sample_pose(clip, sk, other, SINEW_SAMPLE_LOOP, &b->cursor2, NULL, c, b->lanes, NULL);
            sinew_pose_layer layers[2] = {{a, 0.5f, NULL}, {c, 0.3f, NULL}};
            sinew_blend_pose(sk, rest, layers, 2, 0.0f, out, b->lanes, NULL);
            sinew_local_to_model_pose(sk, out, NULL, b->model, n, NULL);
        } else {
            sinew_clip_sample(clip, sk, b->time, SINEW_SAMPLE_LOOP, &b->cursor, b->poses, n, NULL);
            sinew_clip_sample(clip, sk, other, SINEW_SAMPLE_LOOP, &b->cursor2, b->poses + n, n, NULL);
            sinew_blend_layer layers[2] = {{b->poses, 0.5f, NULL}, {b->poses + n, 0.3f, NULL}};
            sinew_blend(sk, layers, 2, 0.0f, b->local, n, NULL);
            sinew_local_to_model(sk, b->local, NULL, b->model, n, NULL);
        }
        break;
    }
    case OP_PALETTE:
        sinew_skin_palette(b->mesh->skin, b->model, n, NULL, b->palette, b->mesh->skin->joint_count, NULL);
        break;
    case OP_LBS_PN:
    case OP_LBS_P:
    case OP_DQS_PN: skin(b, k); break;
    case OP_BLEND2:
    case OP_BLEND3: {
        sinew_blend_layer layers[3] = {{b->poses, 0.5f, NULL}, {b->poses + n, 0.3f, NULL}, {b->poses + 2 * n, 0.2f, NULL}};
        sinew_blend(sk, layers, k->op == OP_BLEND2 ? 2 : 3, 0.0f, b->local, n, NULL);
        break;
    }
    case OP_BLEND2_POSE:
    case OP_BLEND3_POSE: {
        size_t floats = SINEW_POSE_FLOATS(n);
        sinew_pose_layer layers[3] = {{b->pose_layers, 0.5f, NULL}, {b->pose_layers + floats, 0.3f, NULL},
                                      {b->pose_layers + 2 * floats, 0.2f, NULL}};
        sinew_blend_pose(sk, b->pose_rest, layers, k->op == OP_BLEND2_POSE ? 2 : 3, 0.0f, b->pose_out, n, NULL);
        break;
    }
    case OP_BLEND2_POSE_MASKED: {
        sinew_pose_layer layers[2] = {{b->pose_layers, 0.5f, NULL},
                                      {b->pose_layers + SINEW_POSE_FLOATS(n), 0.3f, b->mask}};
        sinew_blend_pose(sk, b->pose_rest, layers, 2, 0.0f, b->pose_out, n, NULL);
        break;
    }
    case OP_ADDITIVE: sinew_additive_apply(b->poses, b->delta, n, 0.7f, NULL, b->local, NULL); break;
    case OP_ADDITIVE_POSE:
        sinew_additive_apply_pose(sk, b->pose_layers, b->pose_delta, n, 0.7f, NULL, b->pose_out, NULL);
        break;
    case OP_ARCHIVE_LOAD:
    case OP_ARCHIVE_VIEW: {
        int which = (k->is & PREPARED) != 0;
        sinew_options options = {.simd = b->simd};
        sinew_asset *a = k->op == OP_ARCHIVE_VIEW
                             ? sinew_archive_view(b->archive[which], b->archive_size[which], &options, NULL)
                             : sinew_archive_load(b->archive[which], b->archive_size[which], &options, NULL);
        sinew_asset_free(a);
        break;
    }
    case OP_SPRINGS: {
        /* the roots sway, as characters walking; the strands follow */
        b->spring_time += 1.0f / 60.0f;
        int v = (k->is & SCALAR) != 0;
        for (int c = 0; c < SPRING_CROWD; ++c) {
            sinew_mat4 *model = b->spring_model + c * SPRING_RIG;
            model[0].m[12] = 0.2f * sinf(3.0f * b->spring_time + (float)c);
            sinew_springs_step(b->springs[v], b->spring_state[v][c], 1.0f / 60.0f, 1, b->spring_local + c * SPRING_RIG,
                               model, SPRING_RIG, NULL);
        }
        break;
    }
    case OP_IK:
    case OP_IK_FROM: {
        sinew_ik_two_bone_job job = {.skeleton = sk, .model = b->model, .local = b->local, .count = n,
                                     .start_joint = b->ik[0], .mid_joint = b->ik[1], .end_joint = b->ik[2],
                                     .target = b->ik_target, .weight = 1.0f};
        if (k->is & POSE) sinew_ik_two_bone_pose(&job, b->pose_ik, NULL);
        else sinew_ik_two_bone(&job, NULL);
        if (k->op == OP_IK_FROM) sinew_local_to_model_from(sk, b->local, NULL, b->model, n, b->ik[0], NULL);
        break;
    }
    }
}

typedef struct result {
    double median, min, max; /* ns per call */
    /* threaded skinning rows: the one-thread median (ns per call) and the
     * median of the batch pairs' speed-ups over one thread */
    double one_thread, speedup;
} result;

/* ns per call over `calls` calls of k; a FRAME row's batch (one call)
 * after a pause of FRAME_GAP_NS (and a WOKEN row's wake), not timed. */
static double batch(bench *b, const kernel *k, int calls)
{
    if (k->is & FRAME) nanosleep(&(struct timespec){0, FRAME_GAP_NS}, NULL);
    if (k->is & WOKEN) sinew_pool_wake(b->pool, true);
    double t0 = bench_now();
    for (int i = 0; i < calls; ++i) run_kernel(b, k);
    return 1e9 * (bench_now() - t0) / calls;
}

/* The warm-up: calls per batch, enough to last about 2 ms (a FRAME row:
 * one call, after one call of warm-up). */
static int calibrate(bench *b, const kernel *k)
{
    if (k->is & FRAME) {
        run_kernel(b, k);
        return 1;
    }
    int calls = 1;
    while (batch(b, k, calls) * calls < 2e6 && calls < (1 << 24)) calls *= 2;
    return calls;
}

/* Warm-up, then BATCHES batches. A skinning row run on several threads
 * alternates its batches with batches of the same calls on one thread (the
 * job without the pool), so that its speed-up is a ratio from one run, each
 * pair of batches taken under the same conditions of the machine: the
 * median of the pairs' ratios. Each of those batches follows the pool's
 * workers woken (they sleep during the one-thread batch, and a call does
 * not wait for them: on a machine slow to wake them, a batch would start
 * on one thread) and one call untimed, so
 * that its data are in their caches, as back-to-back batches find them. */
static result measure(bench *b, const kernel *k)
{
    double per_call[BATCHES], alone[BATCHES], ratio[BATCHES];
    sinew_pool *pool = b->pool;
    bool pair = skinning(k->op) && sinew_pool_threads(pool) > 1;
    int calls = calibrate(b, k), alone_calls = 0;
    if (pair) {
        b->pool = NULL;
        alone_calls = calibrate(b, k);
        b->pool = pool;
    }
    bool warm = pair && !(k->is & FRAME); /* a FRAME row's workers are meant to be asleep */
    for (int r = 0; r < BATCHES; ++r) {
        if (warm) sinew_pool_wake(b->pool, true), run_kernel(b, k);
        per_call[r] = batch(b, k, calls);
        if (!pair) continue;
        b->pool = NULL;
        if (warm) run_kernel(b, k);
        alone[r] = batch(b, k, alone_calls);
        b->pool = pool;
        ratio[r] = alone[r] / per_call[r];
    }
    result out = {0};
    if (pair) out.one_thread = bench_median(alone, BATCHES), out.speedup = bench_median(ratio, BATCHES);
    qsort(per_call, BATCHES, sizeof *per_call, bench_compare);
    out.median = per_call[BATCHES / 2], out.min = per_call[0], out.max = per_call[BATCHES - 1];
    return out;
}

/* A two-bone chain for the IK kernel: a left foot by its usual names, else
 * the deepest joint with a parent and a grandparent. */
static void find_chain(const sinew_skeleton *sk, int chain[3])
{
    static const char *const feet[] = {"LeftFoot", "foot_l", "mixamorig:LeftFoot", "Foot_L", "l_foot"};
    int end = -1;
    for (size_t i = 0; i < sizeof feet / sizeof feet[0] && end < 0; ++i) end = sinew_skeleton_find_joint(sk, feet[i]);
    int *depth = end < 0 ? cli_joint_depths(sk) : NULL;
    if (depth)
        for (int j = 0; j < sk->joint_count; ++j)
            if (end < 0 || depth[j] > depth[end]) end = j;
    free(depth);
    chain[2] = end;
    chain[1] = end >= 0 ? sk->parents[end] : -1;
    chain[0] = chain[1] >= 0 ? sk->parents[chain[1]] : -1;
    if (chain[0] < 0) chain[0] = chain[1] = chain[2] = -1;
}

static void cpu_name(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon) break;
        colon += 1 + (colon[1] == ' ');
        snprintf(out, size, "%s", colon);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    a->threads = 1;
    a->copies = 1;
    cli_args p = cli_args_begin("bench", argc, argv);
    for (const char *v; cli_next(&p);) {
        if (cli_source_arg(&p, &a->source)) continue;
        if ((v = cli_value(&p, "--threads"))) {
            if (!cli_parse_int(v, 1, SINEW_MAX_THREADS, &a->threads))
                cli_bad_value(&p, "--threads", v, "is not a thread count from 1 to %d", SINEW_MAX_THREADS);
        } else if ((v = cli_value(&p, "--simd"))) {
            int level = SINEW_SIMD_AUTO;
            while (level <= SINEW_SIMD_NEON && strcmp(v, sinew_simd_name((sinew_simd)level)) != 0) ++level;
            if (level > SINEW_SIMD_NEON)
                cli_bad_value(&p, "--simd", v, "is not a level: auto, scalar, avx2 or avx512");
            a->simd = (sinew_simd)level;
        } else if ((v = cli_value(&p, "--json"))) {
            a->json = v;
        } else if ((v = cli_value(&p, "--shell"))) {
            if (!cli_parse_float(v, &a->shell) || !(a->shell > 0.0f))
                cli_bad_value(&p, "--shell", v, "is not a distance above 0");
        } else if ((v = cli_value(&p, "--bound"))) {
            if (!cli_parse_float(v, &a->bound) || !(a->bound > 0.0f))
                cli_bad_value(&p, "--bound", v, "is not a distance above 0");
        } else if ((v = cli_value(&p, "--copies"))) {
            if (!cli_parse_int(v, 1, 1000, &a->copies))
                cli_bad_value(&p, "--copies", v, "is not a count from 1 to 1000");
        } else {
            cli_unknown(&p);
        }
    }
    return p.status;
}

int cli_bench(int argc, char **argv)
{
    bench_args args = {.shell = 0.03f};
    int status = parse_args(argc, argv, &args);
    cli_loaded l = {0};
    if (status == EXIT_OK) status = cli_load("bench", &args.source, &l);
    if (status != EXIT_OK) return status;
    bench b = {.sk = l.asset->skeleton, .clip = l.clip, .n = l.asset->skeleton->joint_count};
    for (int i = 0; i < l.asset->mesh_count; ++i) {
        const sinew_mesh *m = &l.asset->meshes[i];
        if (m->skin && (!b.mesh || m->vertex_count > b.mesh->vertex_count)) b.mesh = m;
    }
    sinew_mesh copies = {0};
    if (b.mesh && args.copies > 1) {
        if (!make_copies(b.sk, b.mesh, args.copies, &copies)) {
            cli_unload(&l);
            return EXIT_FAILED;
        }
        b.mesh = &copies;
    }
    int n = b.n, nv = b.mesh ? b.mesh->vertex_count : 0, np = b.mesh ? b.mesh->skin->joint_count : 0;
    int tracks = b.clip ? b.clip->track_count : 0;
    b.cursor = (sinew_cursor){calloc((size_t)tracks + 1, sizeof(int32_t)), tracks};
    b.cursor2 = (sinew_cursor){calloc((size_t)tracks + 1, sizeof(int32_t)), tracks};
    b.lanes = sinew_skeleton_pose_order(b.sk, NULL);
    b.frame_poses = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(b.lanes) * 4);
    b.local = cache_aligned(sizeof *b.local * (size_t)n);
    b.poses = cache_aligned(sizeof *b.poses * (size_t)n * 3);
    b.pose_layers = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(n) * 3);
    b.pose_rest = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(n));
    b.mask = cache_aligned(sizeof(float) * (size_t)n);
    b.delta = cache_aligned(sizeof *b.delta * (size_t)n);
    b.pose_delta = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(n));
    b.pose_out = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(n));
    b.pose_order = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(sinew_skeleton_pose_order(b.sk, NULL)));
    b.pose_ik = cache_aligned(sizeof(float) * SINEW_POSE_FLOATS(b.lanes));
    b.model = cache_aligned(sizeof *b.model * (size_t)n);
    b.palette = cache_aligned(sizeof *b.palette * ((size_t)np + 1));
    b.dq = cache_aligned(sizeof *b.dq * ((size_t)np + 1));
    b.out_pos = cache_aligned(sizeof(float) * 3 * ((size_t)nv + 1));
    b.out_nrm = cache_aligned(sizeof(float) * 3 * ((size_t)nv + 1));
    FILE *f = NULL;
    if (!b.clip) {
        fprintf(stderr, "sinew: bench: the character has no clip to play (--anim CLIPFILE gives one)\n");
        status = EXIT_FAILED;
        goto done;
    }
    if (!b.cursor.keys || !b.cursor2.keys || !b.frame_poses || !b.local || !b.poses || !b.pose_layers || !b.mask ||
        !b.pose_rest || !b.delta || !b.pose_delta || !b.pose_out || !b.pose_order || !b.pose_ik || !b.model ||
        !b.palette || !b.dq || !b.out_pos || !b.out_nrm) {
        fprintf(stderr, "sinew: bench: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    sinew_error err = {0};
    b.pool = sinew_pool_create(args.threads, NULL, &err);
    if (!b.pool) {
        fprintf(stderr, "sinew: bench: %s\n", err.description);
        status = EXIT_FAILED;
        goto done;
    }
    /* the skeleton and clip made again at the level asked for, and at the
     * scalar level for the reference rows */
    sinew_simd cpu_level = sinew_simd_supported();
    b.simd = args.simd == SINEW_SIMD_AUTO || args.simd > cpu_level ? cpu_level : args.simd;
    if (!remake(b.sk, b.clip, b.simd, &b.level_sk, &b.level_clip, &err) ||
        !remake(b.sk, b.clip, SINEW_SIMD_SCALAR, &b.scalar_sk, &b.scalar_clip, &err)) {
        fprintf(stderr, "sinew: bench: %s\n", err.description);
        status = EXIT_FAILED;
        goto done;
    }
    b.sk = b.level_sk, b.clip = b.level_clip;
    if (!make_spring_crowd(&b, b.simd, &err))
        fprintf(stderr, "sinew: bench: the springs rows are left out: %s\n", err.description);
    b.optimized_clip = sinew_clip_optimize(b.clip, &OPTIMIZE_TOLERANCE, b.sk, &(sinew_options){.simd = b.simd}, NULL,
                                           &err);
    if (!b.optimized_clip) {
        fprintf(stderr, "sinew: bench: %s\n", err.description);
        status = EXIT_FAILED;
        goto done;
    }
    /* packing takes clips whose tracks share one set of key times: the rows
     * of a clip it does not take are left out, saying why */
    sinew_pack_report pack_report = {0};
    b.packed_clip = sinew_clip_pack(b.optimized_clip, b.sk, &(sinew_options){.simd = b.simd}, &pack_report, &err);
    if (!b.packed_clip) fprintf(stderr, "sinew: bench: the _packed rows are left out: %s\n", err.description);
    sinew_compress_report compress_report = {0};
    sinew_compress_options compress = {.error_bound = args.bound > 0.0f ? args.bound : args.shell / 300.0f,
                                       .shell_distance = args.shell};
    b.compressed_clip = sinew_clip_compress(b.clip, b.sk, &compress, &(sinew_options){.simd = b.simd},
                                            &compress_report, &err);
    if (!b.compressed_clip) fprintf(stderr, "sinew: bench: the _compressed rows are left out: %s\n", err.description);
    unsigned seed = 12345;
    for (int i = 0; i < SEEKS; ++i) {
        seed = seed * 1664525u + 1013904223u;
        b.seeks[i] = (float)(seed >> 8) / 16777216.0f; /* of the clip's duration */
    }
    for (int p = 0; p < 3; ++p)
        sinew_clip_sample(b.clip, b.sk, b.clip->duration * (0.2f + 0.3f * (float)p), SINEW_SAMPLE_LOOP, NULL,
                          b.poses + p * n, n, NULL);
    for (int p = 0; p < 3; ++p)
        sinew_pose_from_transforms(b.poses + p * n, n, b.pose_layers + (size_t)p * SINEW_POSE_FLOATS(n), NULL);
    sinew_pose_from_transforms(b.sk->rest_pose, n, b.pose_rest, NULL);
    for (int j = 0; j < n; ++j) b.mask[j] = j % 3 ? 1.0f : 0.0f;
    sinew_additive_delta(b.sk->rest_pose, b.poses + n, n, b.delta, NULL);
    sinew_pose_from_transforms(b.delta, n, b.pose_delta, NULL);
    sinew_pose_order_from_transforms(b.sk, b.poses, n, b.pose_order, NULL);
    sinew_pose_order_from_transforms(b.sk, b.sk->rest_pose, n, b.frame_poses + 3 * SINEW_POSE_FLOATS(b.lanes), NULL);
    sinew_clip_sample(b.clip, b.sk, 0.0f, SINEW_SAMPLE_LOOP, NULL, b.local, n, NULL);
    sinew_local_to_model(b.sk, b.local, NULL, b.model, n, NULL);
    if (b.mesh) {
        sinew_skin_palette(b.mesh->skin, b.model, n, NULL, b.palette, np, NULL);
        sinew_dq_palette(b.palette, np, b.dq, NULL);
        if (!(b.one_joint = one_joint_skin(b.sk, b.mesh))) {
            status = EXIT_FAILED;
            goto done;
        }
        if (!(b.inputs = sinew_skin_inputs_create(b.mesh->skin, b.mesh->positions, 0, b.mesh->normals, 0, &err))) {
            fprintf(stderr, "sinew: bench: %s\n", err.description);
            status = EXIT_FAILED;
            goto done;
        }
    }
    /* the character's archives, plain and with its skins' blocks */
    unsigned char *archive_raw[2] = {NULL, NULL};
    for (int w = 0; w < 2; ++w) {
        grown g = {0};
        const sinew_archive_write_options write = {.skin_blocks = w == 1};
        if (sinew_archive_write(l.asset, &write, grow, &g, &err) != SINEW_OK ||
            !(archive_raw[w] = malloc(g.size + 64))) {
            free(g.bytes);
            fprintf(stderr, "sinew: bench: the archive: %s\n", err.result ? err.description : "out of memory");
            status = EXIT_FAILED;
            goto done;
        }
        unsigned char *at = archive_raw[w] + (64 - (uintptr_t)archive_raw[w] % 64) % 64;
        memcpy(at, g.bytes, g.size);
        free(g.bytes);
        b.archive[w] = at, b.archive_size[w] = g.size;
    }
    find_chain(b.sk, b.ik);
    if (b.ik[2] >= 0) {
        const float *m = b.model[b.ik[2]].m, *s = b.model[b.ik[0]].m;
        /* a target a little closer to the hip than the foot: reachable, bent */
        b.ik_target = sinew_vec3_make(s[12] + 0.8f * (m[12] - s[12]), s[13] + 0.8f * (m[13] - s[13]),
                                      s[14] + 0.8f * (m[14] - s[14]) + 0.05f * fabsf(m[13] - s[13]));
    }

    char cpu[256];
    cpu_name(cpu, sizeof cpu);
    f = args.json ? fopen(args.json, "w") : NULL;
    if (args.json && !f) {
        fprintf(stderr, "sinew: bench: cannot write %s: %s\n", args.json, strerror(errno));
        status = EXIT_FAILED;
        goto done;
    }
    printf("sinew bench: %s, clip \"%s\" (%.2f s, %d tracks), %d joints", args.source.file ? args.source.file
           : "built-in character", b.clip->name, (double)b.clip->duration, tracks, n);
    if (b.mesh) printf(", mesh \"%s\"%s (%d vertices, %d palette joints)", b.mesh->name,
                       args.copies > 1 ? " copied end to end" : "", nv, np);
    printf(", clip %zu bytes (optimized: %zu; tolerances %g units, %g rad, %g)", sinew_clip_bytes(b.clip),
           sinew_clip_bytes(b.optimized_clip), (double)OPTIMIZE_TOLERANCE.translation,
           (double)OPTIMIZE_TOLERANCE.rotation, (double)OPTIMIZE_TOLERANCE.scale);
    if (b.packed_clip)
        printf(", packed from the optimized clip: %zu bytes (keys within %g units, %g rad, %g)",
               sinew_clip_bytes(b.packed_clip), (double)pack_report.translation_error,
               (double)pack_report.rotation_error, (double)pack_report.scale_error);
    printf(", archive %zu bytes (prepared: %zu)", b.archive_size[0], b.archive_size[1]);
    /* how far the optimized and packed clips play from the clip, where a mesh shows it */
    sinew_clip_error_report optimized_error = {0}, packed_error = {0};
    sinew_clip_measure_error(b.clip, b.optimized_clip, b.sk, args.shell, 0, &optimized_error, NULL);
    if (b.packed_clip) sinew_clip_measure_error(b.clip, b.packed_clip, b.sk, args.shell, 0, &packed_error, NULL);
    printf(";\n  measured %g units from each joint: optimized within %g (99%%: %g)", (double)args.shell,
           (double)optimized_error.largest, (double)optimized_error.percentile_99);
    if (b.packed_clip)
        printf(", packed within %g (99%%: %g)", (double)packed_error.largest, (double)packed_error.percentile_99);
    if (b.compressed_clip)
        printf(";\n  compressed to %g: %zu bytes, within %g (99%%: %g), %d samples, %d animated and %d constant "
               "tracks", (double)compress_report.error_bound, compress_report.bytes, (double)compress_report.largest,
               (double)compress_report.percentile_99, compress_report.sample_count, compress_report.animated_tracks,
               compress_report.constant_tracks);
    if (args.simd > cpu_level)
        fprintf(stderr, "sinew: bench: this CPU does not run %s, using %s\n", sinew_simd_name(args.simd),
                sinew_simd_name(b.simd));
    printf("\n  cpu %s, simd %s, %d thread%s; per call for one character, median of %d batches\n", cpu,
           sinew_simd_name(b.simd), args.threads, args.threads == 1 ? "" : "s", BATCHES);
    printf("  %-46s %8s %6s %12s %12s %12s %14s\n", "kernel", "unit", "count", "median ns", "min ns", "max ns",
           "ns per unit");
    if (f) {
        fputs("{\"cpu\": ", f);
        cli_put_json_string(f, cpu);
        fprintf(f, ", \"simd\": \"%s\", \"threads\": %d, \"clip_bytes\": %zu, \"clip_bytes_optimized\": %zu",
                sinew_simd_name(b.simd), args.threads, sinew_clip_bytes(b.clip), sinew_clip_bytes(b.optimized_clip));
        if (b.packed_clip) fprintf(f, ", \"clip_bytes_packed\": %zu", sinew_clip_bytes(b.packed_clip));
        fprintf(f, ", \"shell_distance\": %g, \"clip_error_optimized\": %g", (double)args.shell,
                (double)optimized_error.largest);
        if (b.packed_clip) fprintf(f, ", \"clip_error_packed\": %g", (double)packed_error.largest);
        if (b.compressed_clip)
            fprintf(f, ", \"clip_bytes_compressed\": %zu, \"clip_error_compressed\": %g, \"compress_bound\": %g",
                    compress_report.bytes, (double)compress_report.largest, (double)compress_report.error_bound);
        fprintf(f, ", \"archive_bytes\": %zu, \"archive_bytes_prepared\": %zu", b.archive_size[0],
                b.archive_size[1]);
        fputs(",\n \"results\": [", f);
    }
    bool first = true;
    fflush(stdout);
    cli_progress progress = cli_progress_begin();
    for (int i = 0; i < KERNEL_COUNT; ++i) {
        const kernel *k = &kernels[i];
        bool skin = skinning(k->op);
        if ((k->is & SCALAR) && b.simd == SINEW_SIMD_SCALAR) continue;
        if ((skin || k->op == OP_PALETTE) && !b.mesh) continue;
        bool ik = k->op == OP_IK || k->op == OP_IK_FROM;
        if (ik && b.ik[2] < 0) continue;
        if (k->op == OP_SPRINGS && !b.spring_state[1][SPRING_CROWD - 1]) continue;
        if ((k->is & PACKED) && !b.packed_clip) continue;
        if ((k->is & COMPRESSED) && !b.compressed_clip) continue;
        if (ik) { /* from the first sampled pose: rows before (blends, additive) write b.local */
            memcpy(b.local, b.poses, sizeof *b.local * (size_t)n);
            sinew_local_to_model(b.sk, b.local, NULL, b.model, n, NULL);
        }
        if (ik && (k->is & POSE)) sinew_pose_order_from_transforms(b.sk, b.local, n, b.pose_ik, NULL);
        cli_progress_show(&progress, "bench", "row %d of %d: %s", i + 1, KERNEL_COUNT, k->name);
        result r = measure(&b, k);
        cli_progress_clear(&progress); /* before the row, where stdout is the same terminal */
        bool archive = k->op == OP_ARCHIVE_LOAD || k->op == OP_ARCHIVE_VIEW;
        const char *unit = skin ? "vertex" : archive ? "byte" : "joint";
        int count = skin      ? nv
                    : archive ? (int)b.archive_size[(k->is & PREPARED) != 0]
                    : k->op == OP_PALETTE ? np
                    : ik                  ? 3
                    : k->op == OP_SPRINGS ? SPRING_CROWD * SPRING_CHAINS * SPRING_PER
                                          : n;
        printf("  %-46s %8s %6d %12.1f %12.1f %12.1f %14.2f", k->name, unit, count, r.median, r.min, r.max,
               r.median / count);
        if (skin) printf("  %.0f Mvertex/s", 1e3 * nv / r.median);
        if (archive) printf("  %.1f GB/s", count / r.median);
        if (r.speedup > 0) printf(", %.2fx one thread (%.0f)", r.speedup, 1e3 * nv / r.one_thread);
        printf("\n");
        fflush(stdout);
        if (f) {
            fprintf(f, "%s\n  {\"name\": \"%s\", \"unit\": \"%s\", \"count\": %d, \"median_ns\": %.1f, "
                       "\"min_ns\": %.1f, \"max_ns\": %.1f",
                    first ? "" : ",", k->name, unit, count, r.median, r.min, r.max);
            if (skin) fprintf(f, ", \"vertices\": %d, \"mvertex_per_s\": %.1f", nv, 1e3 * nv / r.median);
            if (r.speedup > 0)
                fprintf(f, ", \"one_thread_median_ns\": %.1f, \"speedup\": %.3f", r.one_thread, r.speedup);
            fputc('}', f);
        }
        first = false;
    }
    if (f) {
        fputs("\n]}\n", f);
        if (fflush(f) != 0 || ferror(f)) {
            fprintf(stderr, "sinew: bench: write error on %s\n", args.json);
            status = EXIT_FAILED;
        }
    }
done:
    if (f) fclose(f);
    sinew_pool_free(b.pool);
    free_spring_crowd(&b);
    sinew_skeleton_free(b.level_sk), sinew_skeleton_free(b.scalar_sk);
    sinew_clip_free(b.level_clip), sinew_clip_free(b.scalar_clip), sinew_clip_free(b.optimized_clip);
    sinew_clip_free(b.packed_clip), sinew_clip_free(b.compressed_clip);
    free(b.cursor.keys), free(b.cursor2.keys), free(b.frame_poses), free(b.local), free(b.poses);
    free(b.pose_layers), free(b.pose_rest), free(b.mask), free(b.delta), free(b.pose_delta), free(b.pose_out);
    free(b.pose_order);
    free(b.pose_ik), free(b.model), free(b.palette), free(b.dq);
    free(b.out_pos), free(b.out_nrm);
    sinew_skin_free(b.one_joint);
    sinew_skin_inputs_free(b.inputs);
    if (copies.skin) free_copies(&copies);
    free(archive_raw[0]), free(archive_raw[1]);
    cli_unload(&l);
    return status;
}
