/* SPDX-License-Identifier: MIT */
/* The animation layer by its properties: additive clips (the reference's own
 * additive changes nothing, an additive over its reference gives the clip
 * back, masks hold), playback and synced cycles, crossfades, 1D and 2D blend
 * spaces, two-bone IK (reachable targets reached within 1e-4, unreachable
 * ones at full extension, no NaN), FABRIK convergence, aim, and root motion
 * (one loop's deltas add up to the clip's displacement, no jump at the
 * wrap). On the built-in character, and on the pab rig from ../shared when
 * it is there and the loaders are built. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"
#include "pose_check.h"
#if defined(SINEW_TEST_FILES)
#include "sinew/sinew_import.h"
#include "shared_asset.h"
#endif

#include <stddef.h>
#include <stdlib.h>

enum { MAX_JOINTS = 128 };


static sinew_vec3 pos(const sinew_mat4 *m) { return sinew_vec3_make(m->m[12], m->m[13], m->m[14]); }
static float dist(sinew_vec3 a, sinew_vec3 b) { return sinew_vec3_length(sinew_vec3_sub(a, b)); }
static bool finite_pose(const sinew_transform *p, int n)
{
    for (int j = 0; j < n; ++j) {
        const float *f = &p[j].translation.x;
        for (int k = 0; k < 10; ++k)
            if (!isfinite(f[k])) return false;
    }
    return true;
}

/* ---- additive clips ------------------------------------------------------ */

static void test_additive_clips(const sinew_skeleton *sk, const sinew_clip *walk, const sinew_clip *idle)
{
    int n = sk->joint_count;
    sinew_error err = {0};
    sinew_transform ref[MAX_JOINTS], delta[MAX_JOINTS], base[MAX_JOINTS], out[MAX_JOINTS], want[MAX_JOINTS],
        rest[MAX_JOINTS];
    sinew_rest_pose(sk, rest, n, &err);
    sinew_clip *add = sinew_clip_make_additive(walk, sk, SINEW_ADDITIVE_FIRST_FRAME, NULL, &err);
    CHECK(add && add->additive && add->track_count == walk->track_count, "additive walk: %s", err.description);
    if (!add) return;
    sinew_clip_sample(walk, sk, 0.0f, 0, NULL, ref, n, &err);

    /* the reference's own additive is the identity and changes nothing */
    sinew_clip_sample(add, sk, 0.0f, 0, NULL, delta, n, &err);
    sinew_clip_sample(idle, sk, 1.3f, 0, NULL, base, n, &err);
    CHECK(sinew_additive_apply(base, delta, n, 1.0f, NULL, out, &err) == SINEW_OK, "%s", err.description);
    CHECK(pose_diff(out, base, n) < 2e-6, "first frame's additive moves the base by %g", pose_diff(out, base, n));

    /* additive at t over the reference gives the clip at t */
    double worst = 0.0;
    for (int k = 0; k < 23; ++k) {
        float t = 0.0437f * (float)k;
        sinew_clip_sample(add, sk, t, SINEW_SAMPLE_LOOP, NULL, delta, n, &err);
        sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, want, n, &err);
        sinew_additive_apply(ref, delta, n, 1.0f, NULL, out, &err);
        worst = fmax(worst, pose_diff(out, want, n));
    }
    CHECK(worst < 1e-5, "walk rebuilt from its additive: off by %g", worst);

    /* a mask keeps masked joints on the base */
    float mask[MAX_JOINTS];
    for (int j = 0; j < n; ++j) mask[j] = (j % 3 == 0) ? 0.0f : 1.0f;
    sinew_clip_sample(add, sk, 0.4f, 0, NULL, delta, n, &err);
    sinew_additive_apply(base, delta, n, 1.0f, mask, out, &err);
    bool masked_kept = true, moved = false;
    for (int j = 0; j < n; ++j) {
        if (mask[j] == 0.0f) masked_kept &= pose_diff(&out[j], &base[j], 1) < 1e-6;
        else moved |= pose_diff(&out[j], &base[j], 1) > 1e-3;
    }
    CHECK(masked_kept && moved, "mask: masked joints kept %d, others moved %d", masked_kept, moved);
    sinew_clip_free(add);

    /* rest reference, CUBICSPLINE and STEP tracks (idle): exact through tangents */
    add = sinew_clip_make_additive(idle, sk, SINEW_ADDITIVE_REST_POSE, NULL, &err);
    CHECK(add != NULL, "additive idle: %s", err.description);
    if (add) {
        worst = 0.0;
        for (int k = 0; k < 31; ++k) {
            float t = 0.0991f * (float)k;
            sinew_clip_sample(add, sk, t, 0, NULL, delta, n, &err);
            sinew_clip_sample(idle, sk, t, 0, NULL, want, n, &err);
            sinew_additive_apply(rest, delta, n, 1.0f, NULL, out, &err);
            worst = fmax(worst, pose_diff(out, want, n));
        }
        CHECK(worst < 1e-5, "idle rebuilt from its rest-pose additive: off by %g", worst);
        sinew_clip *again = sinew_clip_make_additive(add, sk, SINEW_ADDITIVE_REST_POSE, NULL, &err);
        CHECK(!again, "an additive of an additive is refused");
        CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "additive already");
        sinew_clip_free(add);
    }
    CHECK(!sinew_clip_make_additive(walk, sk, (sinew_additive_reference)7, NULL, &err), "unknown reference");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "reference");
}

/* ---- playback, sync, crossfade ------------------------------------------- */

static void test_playback(const sinew_clip *walk, const sinew_clip *idle)
{
    sinew_playback p = sinew_playback_start(walk, true); /* 1 s */
    p.time = 0.9f;
    CHECK(sinew_playback_advance(&p, 0.25f) == 1, "one wrap");
    CHECK_NEAR(p.time, 0.15f, 1e-6, "time after the wrap");
    CHECK(sinew_playback_advance(&p, 2.5f) == 2, "two wraps, time %g", (double)p.time);
    CHECK_NEAR(p.time, 0.65f, 1e-5, "time after two wraps");
    p.speed = -1.0f;
    p.time = 0.1f;
    CHECK(sinew_playback_advance(&p, 0.25f) == -1, "a backward wrap");
    CHECK_NEAR(p.time, 0.85f, 1e-6, "time after the backward wrap");
    p = sinew_playback_start(walk, false);
    CHECK(sinew_playback_advance(&p, 5.0f) == 0 && p.time == walk->duration, "clamped at the end: %g",
          (double)p.time);
    CHECK(sinew_playback_advance(&p, NAN) == 0 && p.time == walk->duration, "NaN dt changes nothing");

    /* synced: walk 1 s and idle 3 s at 0.5 / 0.5 cycle in 2 s, phases equal */
    sinew_playback two[2] = {sinew_playback_start(walk, true), sinew_playback_start(idle, true)};
    float w[2] = {0.5f, 0.5f};
    int wraps[2];
    sinew_error err = {0};
    CHECK(sinew_playback_advance_synced(two, w, 2, 0.5f, wraps, &err) == SINEW_OK, "%s", err.description);
    CHECK_NEAR(sinew_playback_phase(&two[0]), 0.25, 1e-6, "phase after a quarter of the 2 s cycle");
    CHECK_NEAR(sinew_playback_phase(&two[1]), 0.25, 1e-6, "idle follows the phase");
    unsigned seed = 7;
    int total_wraps = 0;
    float worst = 0.0f;
    for (int s = 0; s < 200; ++s) {
        w[0] = check_rand(&seed), w[1] = 1.0f - w[0];
        sinew_playback_advance_synced(two, w, 2, 0.05f * check_rand(&seed), wraps, &err);
        worst = fmaxf(worst, fabsf(sinew_playback_phase(&two[0]) - sinew_playback_phase(&two[1])));
        CHECK(wraps[0] == wraps[1], "synced playbacks wrap together");
        total_wraps += wraps[0];
    }
    CHECK(worst < 1e-6f && total_wraps > 0, "synced phases differ by %g (%d wraps)", (double)worst, total_wraps);
    w[0] = -1.0f;
    CHECK(sinew_playback_advance_synced(two, w, 2, 0.1f, NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "negative weight refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "weight");

    /* crossfade: 0 to 1 along a smoothstep, synced phases */
    sinew_playback from = sinew_playback_start(walk, true);
    from.time = 0.3f;
    sinew_crossfade cf = sinew_crossfade_start(from, sinew_playback_start(idle, true), 0.5f, true);
    CHECK_NEAR(sinew_playback_phase(&cf.to), 0.3, 1e-6, "synced crossfade starts in phase");
    CHECK(sinew_crossfade_weight(&cf) == 0.0f, "weight 0 at the start");
    float last = 0.0f;
    bool monotone = true, in_phase = true;
    for (int s = 0; s < 30; ++s) {
        float wt = sinew_crossfade_advance(&cf, 0.025f, NULL);
        monotone &= wt >= last;
        last = wt;
        in_phase &= fabsf(sinew_playback_phase(&cf.from) - sinew_playback_phase(&cf.to)) < 1e-6f;
        if (s == 9) CHECK_NEAR(wt, 0.5, 1e-5, "halfway through the fade");
    }
    CHECK(monotone && in_phase && last == 1.0f, "crossfade monotone %d, in phase %d, ends at %g", monotone, in_phase,
          (double)last);
    cf = sinew_crossfade_start(from, sinew_playback_start(idle, true), 0.0f, false);
    CHECK(sinew_crossfade_weight(&cf) == 1.0f && cf.to.time == 0.0f, "a zero-length fade cuts, unsynced keeps time");
}

/* ---- blend spaces ----------------------------------------------------------- */

static double weights_sum(const float *w, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += w[i];
    return s;
}

static void test_blend_spaces(void)
{
    sinew_error err = {0};
    const float speeds[3] = {1.4f, 3.0f, 5.0f};
    float w[16];
    for (int i = 0; i < 3; ++i) {
        sinew_blend_space_1d(speeds, 3, speeds[i], w, &err);
        CHECK(w[i] == 1.0f && weights_sum(w, 3) == 1.0, "1D: sample %d is one-hot", i);
    }
    sinew_blend_space_1d(speeds, 3, 4.0f, w, &err);
    CHECK(w[0] == 0.0f && fabsf(w[1] - 0.5f) < 1e-6f && fabsf(w[2] - 0.5f) < 1e-6f, "1D: halfway jog/run");
    sinew_blend_space_1d(speeds, 3, 9.0f, w, &err);
    CHECK(w[2] == 1.0f, "1D: clamps above");
    const float bad[2] = {1.0f, 1.0f};
    CHECK(sinew_blend_space_1d(bad, 2, 1.0f, w, &err) == SINEW_ERROR_INVALID_ARGUMENT, "1D: equal positions");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "position 1");

    /* idle at the centre, walk in 8 directions, run forward */
    const float pts[] = {0, 0,  0, 1,  0.7071f, 0.7071f,  1, 0,  0.7071f, -0.7071f,  0, -1,
                         -0.7071f, -0.7071f,  -1, 0,  -0.7071f, 0.7071f,  0, 3};
    const int np = 10;
    for (int mode = 0; mode < 2; ++mode) {
        for (int i = 0; i < np; ++i) {
            sinew_blend_space_2d(pts, np, pts[2 * i], pts[2 * i + 1], (sinew_blend_space_mode)mode, w, &err);
            bool hot = true;
            for (int k = 0; k < np; ++k) hot &= w[k] == (k == i ? 1.0f : 0.0f);
            CHECK(hot, "2D mode %d: sample %d gets all the weight", mode, i);
        }
        unsigned seed = 11 + (unsigned)mode;
        bool ok = true;
        float jump = 0.0f;
        for (int s = 0; s < 500; ++s) {
            float x = 8.0f * check_rand(&seed) - 4.0f, y = 8.0f * check_rand(&seed) - 4.0f;
            float w2[16];
            sinew_blend_space_2d(pts, np, x, y, (sinew_blend_space_mode)mode, w, &err);
            sinew_blend_space_2d(pts, np, x + 1e-3f, y - 1e-3f, (sinew_blend_space_mode)mode, w2, &err);
            ok &= fabs(weights_sum(w, np) - 1.0) < 1e-5;
            for (int k = 0; k < np; ++k) {
                ok &= w[k] >= 0.0f;
                jump = fmaxf(jump, fabsf(w[k] - w2[k]));
            }
        }
        CHECK(ok, "2D mode %d: weights >= 0 summing to 1", mode);
        CHECK(jump < 0.02f, "2D mode %d: continuous (a 1.4e-3 step changes a weight by %g)", mode, (double)jump);
    }
    /* directional: between forward and left at walking speed, by angle */
    sinew_blend_space_2d(pts, np, sinf(0.3926991f), cosf(0.3926991f), SINEW_BLEND_SPACE_DIRECTIONAL, w, &err);
    CHECK(fabsf(w[1] - w[2]) < 1e-4f && w[1] + w[2] > 0.99f, "22.5 deg: forward %g, forward-right %g, sum %g",
          (double)w[1], (double)w[2], (double)(w[1] + w[2]));
    sinew_blend_space_2d(pts, np, 0.0f, 0.5f, SINEW_BLEND_SPACE_DIRECTIONAL, w, &err);
    CHECK(fabsf(w[0] - 0.5f) < 1e-5f && fabsf(w[1] - 0.5f) < 1e-5f, "half speed forward: idle %g, walk %g",
          (double)w[0], (double)w[1]);
    const float dup[4] = {1, 2, 1, 2};
    CHECK(sinew_blend_space_2d(dup, 2, 0, 0, SINEW_BLEND_SPACE_CARTESIAN, w, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "duplicate points refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "points 0 and 1");
}

/* ---- IK ---------------------------------------------------------------------- */

/* An IK job's _pose form: `run` copies the job to `outputs`, gives the
 * copy `count` and runs it on `pose`. */
typedef sinew_result (*soa_run)(const void *job, void *outputs, float *pose, int count, sinew_error *err);

static sinew_result run_two_bone(const void *job, void *outputs, float *pose, int count, sinew_error *err)
{
    sinew_ik_two_bone_job *j = outputs;
    *j = *(const sinew_ik_two_bone_job *)job;
    j->count = count;
    return sinew_ik_two_bone_pose(j, pose, err);
}

static sinew_result run_chain(const void *job, void *outputs, float *pose, int count, sinew_error *err)
{
    sinew_ik_chain_job *j = outputs;
    *j = *(const sinew_ik_chain_job *)job;
    j->count = count;
    return sinew_ik_chain_pose(j, pose, err);
}

static sinew_result run_aim(const void *job, void *outputs, float *pose, int count, sinew_error *err)
{
    sinew_ik_aim_job *j = outputs;
    *j = *(const sinew_ik_aim_job *)job;
    j->count = count;
    return sinew_ik_aim_pose(j, pose, err);
}

/* The job that corrected `before` into `after` (transform arrays), run on
 * a SoA copy of `before` in the skeleton's pose order: it comes out as the
 * SoA copy of `after`, bit for bit, every lane that holds a joint
 * included, and the job's outputs (its bytes from `outputs_from` to
 * `outputs_to`) are the same. No pose, and a count other than the joint count, are
 * refused. */
static void check_soa_ik(const char *what, const sinew_skeleton *sk, const sinew_transform *before,
                         const sinew_transform *after, const void *job, size_t outputs_from, size_t outputs_to,
                         soa_run run)
{
    enum { FLOATS = SINEW_POSE_FLOATS(2 * MAX_JOINTS + 8) };
    static float soa[FLOATS], want[FLOATS];
    unsigned char copy[512];
    int n = sk->joint_count, lanes = sinew_skeleton_pose_order(sk, NULL);
    sinew_error err = {0};
    CHECK(SINEW_POSE_FLOATS(lanes) <= FLOATS && outputs_to <= sizeof copy, "%s: %d lanes", what, lanes);
    if (SINEW_POSE_FLOATS(lanes) > FLOATS || outputs_to > sizeof copy) return;
    sinew_pose_order_from_transforms(sk, before, n, soa, &err);
    sinew_pose_order_from_transforms(sk, after, n, want, &err);
    CHECK(run(job, copy, soa, n, &err) == SINEW_OK, "%s on a SoA pose: %s", what, err.description);
    CHECK(memcmp(soa, want, sizeof(float) * SINEW_POSE_FLOATS(lanes)) == 0,
          "%s on a SoA pose: not the transforms' bits in every lane", what);
    CHECK(memcmp(copy + outputs_from, (const unsigned char *)job + outputs_from, outputs_to - outputs_from) == 0,
          "%s on a SoA pose: outputs differ from the transform form's", what);
    CHECK(run(job, copy, soa, lanes + 1, &err) == SINEW_ERROR_SIZE_MISMATCH, "%s: a count of %d refused", what,
          lanes + 1);
    CHECK(run(job, copy, NULL, n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "%s: no pose at all refused", what);
}

/* How far a two-bone job's corrections are from unit, or from what it
 * applied (local = the local before times the correction, the sign
 * included); corrections with w below 0 (off the identity's side) are
 * counted in `wrong_side`. */
static float correction_error(const sinew_ik_two_bone_job *job, const sinew_transform *before,
                              const sinew_transform *local, int *wrong_side)
{
    const sinew_quat *corr[2] = {&job->start_correction, &job->mid_correction};
    const int joint[2] = {job->start_joint, job->mid_joint};
    float worst = 0.0f;
    for (int i = 0; i < 2; ++i) {
        sinew_quat want = sinew_quat_normalize(sinew_quat_mul(before[joint[i]].rotation, *corr[i]));
        sinew_quat got = local[joint[i]].rotation;
        float dot = want.x * got.x + want.y * got.y + want.z * got.z + want.w * got.w;
        float len = sqrtf(sinew_quat_dot(*corr[i], *corr[i]));
        worst = fmaxf(worst, fmaxf(1.0f - dot, fabsf(len - 1.0f)));
        *wrong_side += corr[i]->w < 0.0f;
    }
    return worst;
}

/* Two-bone IK on one chain of a rig at many targets. `scale` is the rig's
 * unit (1 for metres, 100 for centimetres). */
static void test_two_bone(const char *rig, const sinew_skeleton *sk, const sinew_transform *pose, int s, int m, int e)
{
    int n = sk->joint_count;
    sinew_error err = {0};
    sinew_transform local[MAX_JOINTS];
    sinew_mat4 model[MAX_JOINTS], after[MAX_JOINTS];
    memcpy(local, pose, sizeof *local * (size_t)n);
    sinew_local_to_model(sk, local, NULL, model, n, &err);
    sinew_vec3 a = pos(&model[s]), b = pos(&model[m]), c = pos(&model[e]);
    float lab = dist(a, b), lbc = dist(b, c), reach = lab + lbc, fold = fabsf(lab - lbc);
    float tol = 1e-4f * fmaxf(1.0f, reach);
    unsigned seed = 3;
    float worst_reach = 0.0f, worst_extension = 0.0f, worst_pole = 1.0f;
    float worst_correction = 0.0f;
    int reached = 0, nan = 0, wrong_side = 0;
    for (int k = 0; k < 200; ++k) {
        sinew_vec3 dir = sinew_vec3_normalize(sinew_vec3_make(check_rand(&seed) - 0.5f, check_rand(&seed) - 0.5f,
                                                             check_rand(&seed) - 0.5f));
        bool out_of_reach = k % 4 == 3;
        float d = out_of_reach ? reach * (1.05f + 2.0f * check_rand(&seed))
                               : fold + 0.02f * reach + (reach - fold - 0.04f * reach) * check_rand(&seed);
        sinew_vec3 target = sinew_vec3_add(a, sinew_vec3_scale(dir, d));
        /* every other target with no pole: the start joint's turn is then
         * applied without being normalized first (see ik.c) */
        bool poled = k % 2 == 0;
        sinew_vec3 pole = poled ? sinew_vec3_normalize(sinew_vec3_cross(dir, sinew_vec3_make(0.3f, 1.0f, 0.2f)))
                                : sinew_vec3_make(0.0f, 0.0f, 0.0f);
        memcpy(local, pose, sizeof *local * (size_t)n);
        sinew_ik_two_bone_job job = {.skeleton = sk, .model = model, .local = local, .count = n, .start_joint = s,
                                     .mid_joint = m, .end_joint = e, .target = target, .pole = pole, .weight = 1.0f};
        if (sinew_ik_two_bone(&job, &err) != SINEW_OK) {
            CHECK(false, "%s: %s", rig, err.description);
            return;
        }
        nan += !finite_pose(local, n);
        if (k < 8)
            check_soa_ik(rig, sk, pose, local, &job, offsetof(sinew_ik_two_bone_job, start_correction),
                         offsetof(sinew_ik_two_bone_job, reached) + sizeof job.reached, run_two_bone);
        worst_correction = fmaxf(worst_correction, correction_error(&job, pose, local, &wrong_side));
        sinew_local_to_model(sk, local, NULL, after, n, &err);
        sinew_vec3 end = pos(&after[e]), knee = pos(&after[m]);
        if (!out_of_reach) {
            worst_reach = fmaxf(worst_reach, dist(end, target));
            reached += job.reached;
        } else {
            /* fully extended, pointing at the target */
            float off = fabsf(dist(end, a) - reach) + dist(sinew_vec3_normalize(sinew_vec3_sub(end, a)), dir) * reach;
            worst_extension = fmaxf(worst_extension, off);
            reached += !job.reached;
        }
        if (poled && !out_of_reach && d < 0.9f * reach) {
            /* the knee bends toward the pole */
            sinew_vec3 ak = sinew_vec3_sub(knee, a);
            sinew_vec3 side = sinew_vec3_sub(ak, sinew_vec3_scale(dir, sinew_vec3_dot(ak, dir)));
            worst_pole = fminf(worst_pole, sinew_vec3_dot(sinew_vec3_normalize(side), pole));
        }
    }
    CHECK(nan == 0, "%s: %d poses with NaN", rig, nan);
    CHECK(worst_correction <= 1e-6f && wrong_side == 0,
          "%s: corrections off unit or off what was applied by %g; %d with w < 0", rig, (double)worst_correction,
          wrong_side);
    CHECK(worst_reach <= tol, "%s: reachable targets missed by up to %g (tolerance %g)", rig, (double)worst_reach,
          (double)tol);
    /* the header's promise: within 1e-5 of the chain's length */
    CHECK(worst_reach <= 1e-5f * reach, "%s: reachable targets missed by up to %g of the chain's length", rig,
          (double)(worst_reach / reach));
    CHECK(worst_extension <= tol, "%s: unreachable targets: off full extension by %g", rig, (double)worst_extension);
    CHECK(reached == 200, "%s: `reached` right for %d of 200", rig, reached);
    CHECK(worst_pole > 0.99f, "%s: knee toward the pole, worst cosine %g", rig, (double)worst_pole);

    /* half weight: each correction is weighted from the identity, unit, and
     * applied as returned; the SoA form agrees */
    {
        memcpy(local, pose, sizeof *local * (size_t)n);
        sinew_vec3 target = sinew_vec3_add(a, sinew_vec3_scale(sinew_vec3_normalize(sinew_vec3_make(0.3f, -1.0f, 0.2f)),
                                                              0.7f * reach));
        sinew_ik_two_bone_job half = {.skeleton = sk, .model = model, .local = local, .count = n, .start_joint = s,
                                      .mid_joint = m, .end_joint = e, .target = target, .weight = 0.5f};
        CHECK(sinew_ik_two_bone(&half, &err) == SINEW_OK, "%s: half weight: %s", rig, err.description);
        int half_wrong_side = 0;
        float off = correction_error(&half, pose, local, &half_wrong_side);
        CHECK(off <= 1e-6f && half_wrong_side == 0, "%s: half weight: corrections off by %g, %d with w < 0", rig,
              (double)off, half_wrong_side);
        check_soa_ik(rig, sk, pose, local, &half, offsetof(sinew_ik_two_bone_job, start_correction),
                     offsetof(sinew_ik_two_bone_job, reached) + sizeof half.reached, run_two_bone);
    }

    /* weight 0 changes nothing; softness keeps a target at full reach short of straight */
    memcpy(local, pose, sizeof *local * (size_t)n);
    sinew_vec3 far = sinew_vec3_add(a, sinew_vec3_make(0.0f, -reach, 0.0f));
    sinew_ik_two_bone_job job = {.skeleton = sk, .model = model, .local = local, .count = n, .start_joint = s,
                                 .mid_joint = m, .end_joint = e, .target = far, .weight = 0.0f};
    sinew_ik_two_bone(&job, &err);
    CHECK(memcmp(local, pose, sizeof *local * (size_t)n) == 0, "%s: weight 0 leaves the pose", rig);
    job.weight = 1.0f, job.softness = 0.2f;
    sinew_ik_two_bone(&job, &err);
    sinew_local_to_model(sk, local, NULL, after, n, &err);
    /* easing starts at 0.8 of the reach: 0.8 + 0.2 (1 - e^-1) of it at full reach */
    float span = dist(pos(&after[e]), a), eased = reach * (0.8f + 0.2f * (1.0f - expf(-1.0f)));
    CHECK(fabsf(span - eased) < 1e-4f * reach && !job.reached, "%s: softened reach %g of %g (want %g)", rig,
          (double)span, (double)reach, (double)eased);

    /* straight chain, target straight ahead: no NaN */
    memcpy(local, pose, sizeof *local * (size_t)n);
    job.softness = 0.0f;
    job.target = sinew_vec3_add(a, sinew_vec3_scale(sinew_vec3_normalize(sinew_vec3_sub(c, a)), 3.0f * reach));
    sinew_ik_two_bone(&job, &err);
    job.model = after;
    sinew_local_to_model(sk, local, NULL, after, n, &err);
    job.target = a; /* now fold it onto its own root */
    sinew_ik_two_bone(&job, &err);
    CHECK(finite_pose(local, n), "%s: straight then folded stays finite", rig);

    job.mid_joint = e, job.end_joint = m;
    CHECK(sinew_ik_two_bone(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT, "%s: joints out of order refused", rig);
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "not one chain");
    CHECK(strncmp(err.description, "sinew_ik_two_bone: ", 19) == 0, "the caller named: %s", err.description);
    job.mid_joint = m, job.end_joint = e, job.weight = 1.5f;
    CHECK(sinew_ik_two_bone(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT, "%s: weight 1.5 refused", rig);
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "weight 1.5");

    /* only the matrices the solve reads are checked: the start and mid
     * joints', the end joint's translation */
    job.weight = 1.0f, job.model = after;
    sinew_local_to_model(sk, local, NULL, after, n, &err);
    for (int j = 0; j < n; ++j)
        if (j != s && j != m && j != e) after[j].m[0] = NAN;
    after[e].m[0] = NAN;
    CHECK(sinew_ik_two_bone(&job, &err) == SINEW_OK, "%s: NaN outside what the solve reads: %s", rig,
          err.description);
    after[e].m[13] = INFINITY;
    CHECK(sinew_ik_two_bone(&job, &err) == SINEW_ERROR_NOT_FINITE, "%s: the end's translation checked", rig);
    after[e].m[13] = 0.0f, after[m].m[6] = NAN;
    CHECK(sinew_ik_two_bone(&job, &err) == SINEW_ERROR_NOT_FINITE, "%s: the mid joint's matrix checked", rig);
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "model matrix is not finite");
}

/* A skeleton of four joints in a line, root first, posed `rest`, and the
 * pose's model matrices. */
static sinew_skeleton *chain_of_four(const sinew_transform rest[4], sinew_mat4 model[4])
{
    static const int parents[4] = {-1, 0, 1, 2};
    sinew_error err = {0};
    sinew_skeleton_desc desc = {4, parents, NULL, rest};
    sinew_skeleton *sk = sinew_skeleton_create(&desc, NULL, NULL, &err);
    CHECK(sk != NULL, "a chain of four joints: %s", err.description);
    if (sk) sinew_local_to_model(sk, rest, NULL, model, 4, &err);
    return sk;
}

/* A leg in centimetres: the hip at (10, 90, 5) turned by `hip` radians, a
 * thigh of 40 and a shin of 28 hanging along the hip's -y, the knee bent
 * by `knee` radians (0 and 0: a straight leg along -y). */
static void leg_of_four(sinew_transform rest[4], float hip, float knee)
{
    for (int j = 0; j < 4; ++j) rest[j] = sinew_transform_identity();
    rest[1].translation = sinew_vec3_make(10.0f, 90.0f, 5.0f);
    rest[1].rotation = sinew_quat_from_axis_angle(sinew_vec3_normalize(sinew_vec3_make(0.3f, 0.2f, 1.0f)), hip);
    rest[2].translation = sinew_vec3_make(0.0f, -40.0f, 0.0f);
    rest[2].rotation = sinew_quat_from_axis_angle(sinew_vec3_normalize(sinew_vec3_make(1.0f, 0.1f, 0.4f)), knee);
    rest[3].translation = sinew_vec3_make(0.0f, -28.0f, 0.0f);
}

/* How far the end of a chain of four (joints 1, 2, 3 the two-bone chain)
 * lands from `target` after sinew_ik_two_bone at weight 1 on `rest`, whose
 * model matrices are `model`; infinity for a pose that is not finite. */
static float two_bone_miss(const sinew_skeleton *sk, const sinew_transform rest[4], const sinew_mat4 model[4],
                           sinew_vec3 target, sinew_vec3 pole)
{
    sinew_error err = {0};
    sinew_transform local[4];
    sinew_mat4 after[4];
    memcpy(local, rest, sizeof local);
    sinew_ik_two_bone_job job = {.skeleton = sk, .model = model, .local = local, .count = 4, .start_joint = 1,
                                 .mid_joint = 2, .end_joint = 3, .target = target, .pole = pole, .weight = 1.0f};
    if (sinew_ik_two_bone(&job, &err) != SINEW_OK) {
        CHECK(false, "two-bone chain of four: %s", err.description);
        return INFINITY;
    }
    sinew_local_to_model(sk, local, NULL, after, 4, &err);
    float miss = dist(pos(&after[3]), target);
    return isfinite(miss) ? miss : INFINITY;
}

/* Two-bone chains where the solve's products are least certain, and
 * every reachable target is still met within 1e-5 of the chain's length:
 * chains all but straight (knee bent by 3e-6 to 3e-2 radians) folded
 * toward targets near their root and stretched toward far ones, where the
 * bend's axis comes from the bones' cross product; and targets nearly
 * behind the start joint at the end's own distance (no bend; 0 to 4e-2
 * radians off the opposite of the end's direction), where the start
 * joint's turn comes from the cross product of nearly opposite directions
 * and where |a||b| + a.b would cancel. */
static void test_two_bone_ill_conditioned(void)
{
    const float bends[] = {3e-6f, 5e-6f, 1e-5f, 3e-5f, 1e-4f, 1e-3f, 3e-2f}, reaches[] = {1.02f, 1.5f, 3.0f, 5.5f};
    const float tips[] = {0.0f, 1e-4f, 1e-3f, 1e-2f, 4e-2f};
    const float reach = 68.0f; /* bones of 40 and 28: the fold is 12 */
    float worst = 0.0f, worst_behind = 0.0f;
    for (int b = 0; b < 7; ++b) {
        sinew_transform rest[4];
        sinew_mat4 model[4];
        leg_of_four(rest, 2.0f, bends[b]);
        sinew_skeleton *sk = chain_of_four(rest, model);
        if (!sk) return;
        sinew_vec3 a = pos(&model[1]);
        for (int t = 0; t < 4 * 6; ++t) { /* from just beyond the fold to near the reach */
            sinew_vec3 dir = sinew_vec3_normalize(sinew_vec3_make((float)(t % 3) - 1.0f, 0.5f - (float)(t % 2),
                                                                (float)(t % 5) * 0.3f - 0.6f));
            sinew_vec3 target = sinew_vec3_add(a, sinew_vec3_scale(dir, 12.0f * reaches[t / 6]));
            for (int poled = 0; poled < 2; ++poled)
                worst = fmaxf(worst, two_bone_miss(sk, rest, model, target, sinew_vec3_make(0, 0, (float)poled)));
        }
        /* nearly behind: the end's direction reversed and tipped */
        sinew_vec3 ac = sinew_vec3_sub(pos(&model[3]), a);
        for (int t = 0; t < 5 * 3; ++t) {
            sinew_vec3 axis = sinew_vec3_normalize(sinew_vec3_make((float)(t % 3) - 0.7f, 1.0f, 0.3f * (float)t));
            sinew_vec3 target = sinew_vec3_sub(a, sinew_quat_rotate(sinew_quat_from_axis_angle(axis, tips[t / 3]), ac));
            for (int poled = 0; poled < 2; ++poled)
                worst_behind =
                    fmaxf(worst_behind, two_bone_miss(sk, rest, model, target, sinew_vec3_make(0, 0, (float)poled)));
        }
        sinew_skeleton_free(sk);
    }
    /* a straight chain along -y and a target exactly behind it: half a turn */
    {
        sinew_transform rest[4];
        sinew_mat4 model[4];
        leg_of_four(rest, 0.0f, 0.0f);
        sinew_skeleton *sk = chain_of_four(rest, model);
        if (!sk) return;
        sinew_vec3 target = sinew_vec3_make(10.0f, 90.0f + 68.0f, 5.0f);
        worst_behind = fmaxf(worst_behind, two_bone_miss(sk, rest, model, target, sinew_vec3_make(0, 0, 0)));
        sinew_skeleton_free(sk);
    }
    CHECK(worst <= 1e-5f * reach, "nearly straight chains: targets missed by up to %g of the chain's length",
          (double)(worst / reach));
    CHECK(worst_behind <= 1e-5f * reach, "targets nearly behind: missed by up to %g of the chain's length",
          (double)(worst_behind / reach));
}

/* Random chains (each joint turned at random, bones 0.2 to 2.2 long, a
 * third of them all but straight and a third all but folded), with and
 * without a pole, toward
 * targets from near full reach down to just beyond the fold: every one met
 * within 1e-5 of the chain's length, as sinew.h says. */
static void test_two_bone_random(void)
{
    unsigned seed = 7;
    float worst = 0.0f;
    for (int trial = 0; trial < 1000; ++trial) {
        sinew_transform rest[4];
        for (int j = 0; j < 4; ++j) {
            rest[j] = sinew_transform_identity();
            sinew_vec3 axis = sinew_vec3_normalize(sinew_vec3_make(check_rand(&seed) - 0.5f, check_rand(&seed) - 0.5f,
                                                                  check_rand(&seed) - 0.5f));
            rest[j].rotation = sinew_quat_from_axis_angle(axis, 3.0f * check_rand(&seed));
            if (j > 0) rest[j].translation = sinew_vec3_make(0.0f, 0.2f + 2.0f * check_rand(&seed), 0.0f);
        }
        if (trial % 3 < 2) { /* the knee within 1e-4 radians of straight, or of folded */
            float bend = 1e-4f * check_rand(&seed);
            rest[2].rotation =
                sinew_quat_from_axis_angle(sinew_vec3_make(1.0f, 0.0f, 0.0f), trial % 3 ? 3.14159265f - bend : bend);
        }
        sinew_mat4 model[4];
        sinew_skeleton *sk = chain_of_four(rest, model);
        if (!sk) return;
        sinew_vec3 a = pos(&model[1]), b = pos(&model[2]), c = pos(&model[3]);
        float lab = dist(a, b), lbc = dist(b, c), reach = lab + lbc, fold = fabsf(lab - lbc);
        for (int k = 1; k <= 7; ++k) {
            /* 1 - 10^-k of the reach, or 1 + 10^-(k-4) of a fold that is there */
            bool near_fold = k > 4 && fold > 0.1f;
            float off = powf(10.0f, -(float)(near_fold ? k - 4 : k));
            float d = near_fold ? fold * (1.0f + off) : reach * (1.0f - off);
            sinew_vec3 dir = sinew_vec3_normalize(sinew_vec3_make(check_rand(&seed) - 0.5f, check_rand(&seed) - 0.5f,
                                                                 check_rand(&seed) - 0.5f));
            sinew_vec3 target = sinew_vec3_add(a, sinew_vec3_scale(dir, d));
            float miss = two_bone_miss(sk, rest, model, target, sinew_vec3_make(0.0f, 0.0f, (float)(trial & 1)));
            worst = fmaxf(worst, miss / reach);
        }
        sinew_skeleton_free(sk);
    }
    CHECK(worst <= 1e-5f, "random chains: targets missed by up to %g of the chain's length", (double)worst);
}

/* FABRIK on a straight chain of 8 unit bones along +x. */
static void test_fabrik(void)
{
    enum { N = 8 };
    int parents[N];
    sinew_transform rest[N];
    for (int j = 0; j < N; ++j) {
        parents[j] = j - 1;
        rest[j] = sinew_transform_identity();
        rest[j].translation = sinew_vec3_make(j ? 1.0f : 0.0f, 0, 0);
    }
    sinew_error err = {0};
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){N, parents, NULL, rest}, NULL, NULL, &err);
    int chain[N];
    for (int j = 0; j < N; ++j) chain[j] = j;
    sinew_transform local[N];
    sinew_mat4 model[N], after[N];
    unsigned seed = 5;
    int converged = 0, lengths_kept = 0, roots_kept = 0, straight = 0, iterations = 0;
    for (int k = 0; k < 100; ++k) {
        /* bend the chain first so that it does not start straight */
        for (int j = 0; j < N; ++j) {
            local[j] = rest[j];
            local[j].rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0.2f, 0.3f, 1.0f), 0.2f);
        }
        sinew_local_to_model(sk, local, NULL, model, N, &err);
        bool far = k % 5 == 4;
        float r = far ? 7.0f + 5.0f * check_rand(&seed) : 0.5f + 5.5f * check_rand(&seed);
        sinew_vec3 target = sinew_vec3_scale(
            sinew_vec3_normalize(sinew_vec3_make(check_rand(&seed) - 0.5f, check_rand(&seed) - 0.5f,
                                                 check_rand(&seed) - 0.5f)), r);
        sinew_ik_chain_job job = {.skeleton = sk, .model = model, .local = local, .count = N, .joints = chain,
                                  .joint_count = N, .target = target, .weight = 1.0f, .tolerance = 1e-4f,
                                  .max_iterations = 200};
        if (sinew_ik_chain(&job, &err) != SINEW_OK) {
            CHECK(false, "FABRIK: %s", err.description);
            break;
        }
        if (k < 10) {
            sinew_transform before[N];
            for (int j = 0; j < N; ++j) {
                before[j] = rest[j];
                before[j].rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0.2f, 0.3f, 1.0f), 0.2f);
            }
            check_soa_ik("FABRIK", sk, before, local, &job, offsetof(sinew_ik_chain_job, iterations),
                         offsetof(sinew_ik_chain_job, reached) + sizeof job.reached, run_chain);
        }
        sinew_local_to_model(sk, local, NULL, after, N, &err);
        bool lengths = true;
        for (int j = 1; j < N; ++j) lengths &= fabsf(dist(pos(&after[j]), pos(&after[j - 1])) - 1.0f) < 1e-4f;
        lengths_kept += lengths;
        roots_kept += dist(pos(&after[0]), pos(&model[0])) < 1e-6f;
        float miss = dist(pos(&after[N - 1]), target);
        if (far) {
            straight += fabsf(dist(pos(&after[N - 1]), pos(&after[0])) - 7.0f) < 1e-4f &&
                        fabsf(miss - (r - 7.0f)) < 1e-4f && !job.reached;
        } else {
            converged += job.reached && miss < 2e-4f;
            iterations = iterations > job.iterations ? iterations : job.iterations;
        }
    }
    CHECK(converged == 80, "FABRIK: %d of 80 reachable targets reached (most passes %d)", converged, iterations);
    CHECK(straight == 20, "FABRIK: %d of 20 unreachable targets give a straight chain toward them", straight);
    CHECK(lengths_kept == 100 && roots_kept == 100, "FABRIK: bone lengths kept %d, root kept %d", lengths_kept,
          roots_kept);
    int bad[2] = {3, 2};
    sinew_ik_chain_job job = {.skeleton = sk, .model = model, .local = local, .count = N, .joints = bad,
                              .joint_count = 2, .weight = 1.0f};
    CHECK(sinew_ik_chain(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT, "FABRIK: reversed chain refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "is not above");
    sinew_skeleton_free(sk);
}

static void test_aim(const sinew_skeleton *sk, const sinew_transform *pose, int head)
{
    int n = sk->joint_count;
    sinew_error err = {0};
    sinew_transform local[MAX_JOINTS];
    sinew_mat4 model[MAX_JOINTS], after[MAX_JOINTS];
    sinew_local_to_model(sk, pose, NULL, model, n, &err);
    unsigned seed = 9;
    float worst = 0.0f, worst_up = 1.0f;
    for (int k = 0; k < 100; ++k) {
        memcpy(local, pose, sizeof *local * (size_t)n);
        sinew_vec3 target = sinew_vec3_add(pos(&model[head]),
                                           sinew_vec3_make(4.0f * check_rand(&seed) - 2.0f,
                                                           2.0f * check_rand(&seed) - 1.0f,
                                                           4.0f * check_rand(&seed) - 2.0f));
        sinew_ik_aim_job job = {.skeleton = sk, .model = model, .local = local, .count = n, .joint = head,
                                .target = target, .forward = {0, 0, 1}, .up = {0, 1, 0}, .pole = {0, 1, 0},
                                .weight = 1.0f};
        if (sinew_ik_aim(&job, &err) != SINEW_OK) {
            CHECK(false, "aim: %s", err.description);
            return;
        }
        if (k < 8)
            check_soa_ik("aim", sk, pose, local, &job, offsetof(sinew_ik_aim_job, correction),
                         offsetof(sinew_ik_aim_job, correction) + sizeof job.correction, run_aim);
        sinew_local_to_model(sk, local, NULL, after, n, &err);
        sinew_vec3 f = sinew_vec3_normalize(sinew_mat4_transform_vector(&after[head], sinew_vec3_make(0, 0, 1)));
        sinew_vec3 u = sinew_vec3_normalize(sinew_mat4_transform_vector(&after[head], sinew_vec3_make(0, 1, 0)));
        sinew_vec3 want = sinew_vec3_normalize(sinew_vec3_sub(target, pos(&after[head])));
        worst = fmaxf(worst, dist(f, want));
        /* up lies in the plane of forward and the pole, on the pole's side */
        sinew_vec3 pole_side = sinew_vec3_normalize(
            sinew_vec3_sub(sinew_vec3_make(0, 1, 0), sinew_vec3_scale(want, want.y)));
        worst_up = fminf(worst_up, sinew_vec3_dot(u, pole_side));
    }
    CHECK(worst < 1e-5f, "aim: forward off the target direction by %g", (double)worst);
    CHECK(worst_up > 0.9999f, "aim: up toward the pole, worst cosine %g", (double)worst_up);
    sinew_ik_aim_job job = {.skeleton = sk, .model = model, .local = local, .count = n, .joint = head,
                            .forward = {0, 1, 0}, .up = {0, 2, 0}, .weight = 1.0f};
    CHECK(sinew_ik_aim(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT, "aim: up along forward refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "up lies along it");
}

/* ---- root motion --------------------------------------------------------------- */

typedef struct motion_sum {
    sinew_vec3 t;
    float yaw;
} motion_sum;

/* C = C * delta, in the ground plane across +Y. */
static void accumulate(motion_sum *c, const sinew_root_motion_job *job)
{
    sinew_quat r = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), c->yaw);
    c->t = sinew_vec3_add(c->t, sinew_quat_rotate(r, job->translation));
    c->yaw += job->yaw;
}

static void test_root_motion(const sinew_skeleton *sk, const sinew_clip *walk)
{
    sinew_error err = {0};
    /* the built-in walk moves its root 1.3 m along +Z per 1 s cycle */
    unsigned seed = 21;
    for (int dir = 0; dir < 2; ++dir) {
        sinew_playback p = sinew_playback_start(walk, true);
        p.time = 0.37f;
        p.speed = dir ? -1.0f : 1.0f;
        motion_sum c = {{0, 0, 0}, 0.0f};
        float elapsed = 0.0f, worst_speed = 0.0f;
        int wrapped = 0;
        while (elapsed < 1.0f) {
            float dt = fminf(0.01f + 0.03f * check_rand(&seed), 1.0f - elapsed);
            float from = p.time;
            int wraps = sinew_playback_advance(&p, dt);
            wrapped += wraps != 0;
            sinew_root_motion_job job = {.clip = walk, .skeleton = sk, .joint = 0, .from = from, .to = p.time,
                                         .wraps = wraps};
            CHECK(sinew_root_motion(&job, &err) == SINEW_OK, "%s", err.description);
            accumulate(&c, &job);
            /* no jump: every step moves at the clip's speed, the wrap's too */
            worst_speed = fmaxf(worst_speed, fabsf(sinew_vec3_length(job.translation) / dt - 1.3f));
            elapsed += dt;
        }
        CHECK(wrapped == 1, "one wrap in a loop (%d)", wrapped);
        CHECK(fabsf(c.t.z - (dir ? -1.3f : 1.3f)) < 1e-4f && fabsf(c.t.x) < 1e-5f && fabsf(c.yaw) < 1e-6f,
              "one loop %s adds up to the displacement: (%g, %g, %g) yaw %g", dir ? "backward" : "forward",
              (double)c.t.x, (double)c.t.y, (double)c.t.z, (double)c.yaw);
        CHECK(worst_speed < 1e-3f, "speed off 1.3 m/s by up to %g across the loop", (double)worst_speed);
    }
    /* many loops in one step */
    sinew_root_motion_job job = {.clip = walk, .skeleton = sk, .joint = 0, .from = 0.25f, .to = 0.25f, .wraps = 10};
    sinew_root_motion(&job, &err);
    CHECK_NEAR(job.translation.z, 13.0, 1e-3, "ten loops in one step");

    /* in place: the root over the origin, its height kept */
    sinew_transform local[MAX_JOINTS];
    int n = sk->joint_count;
    sinew_clip_sample(walk, sk, 0.6f, 0, NULL, local, n, &err);
    sinew_transform hips = local[1];
    job = (sinew_root_motion_job){.clip = walk, .skeleton = sk, .joint = 0, .from = 0.5f, .to = 0.6f,
                                  .local = local, .count = n, .in_place = true};
    sinew_root_motion(&job, &err);
    CHECK(fabsf(local[0].translation.x) < 1e-6f && fabsf(local[0].translation.z) < 1e-6f &&
              local[0].translation.y == 0.0f && memcmp(&local[1], &hips, sizeof hips) == 0,
          "in place: root at (%g, %g, %g)", (double)local[0].translation.x, (double)local[0].translation.y,
          (double)local[0].translation.z);
    job.joint = 99;
    CHECK(sinew_root_motion(&job, &err) == SINEW_ERROR_BAD_JOINT_INDEX, "joint out of range refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "joint 99");
    CHECK(strncmp(err.description, "sinew_root_motion: ", 19) == 0, "the caller named: %s", err.description);

    /* a turning clip: a quarter turn and 1 m forward per 2 s cycle */
    int parents[2] = {-1, 0};
    sinew_skeleton *turner = sinew_skeleton_create(&(sinew_skeleton_desc){2, parents, NULL, NULL}, NULL, NULL, &err);
    const float times[2] = {0.0f, 2.0f};
    sinew_quat q1 = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 1.5707963f);
    const float rot[8] = {0, 0, 0, 1, q1.x, q1.y, q1.z, q1.w};
    const float tr[6] = {0, 0, 0, 0.3f, 0.9f, 1.0f};
    sinew_track tracks[2] = {{0, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 2, times, rot, 0},
                             {0, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 2, times, tr, 0}};
    sinew_clip *turn = sinew_clip_create(&(sinew_clip_desc){.name = "turn", .joint_count = 2, .track_count = 2,
                                                            .tracks = tracks}, NULL, &err);
    sinew_playback p = sinew_playback_start(turn, true);
    motion_sum c = {{0, 0, 0}, 0.0f};
    for (int s = 0; s < 400; ++s) { /* four loops */
        float from = p.time;
        int wraps = sinew_playback_advance(&p, 0.02f);
        job = (sinew_root_motion_job){.clip = turn, .skeleton = turner, .joint = 0, .from = from, .to = p.time,
                                      .wraps = wraps};
        sinew_root_motion(&job, &err);
        accumulate(&c, &job);
    }
    /* four quarter turns bring it round to where it started */
    CHECK(fabsf(c.yaw - 6.2831853f) < 1e-4f && sinew_vec3_length(c.t) < 1e-4f,
          "four turning loops: yaw %g, back at (%g, %g, %g)", (double)c.yaw, (double)c.t.x, (double)c.t.y,
          (double)c.t.z);
    sinew_clip_free(turn);
    sinew_skeleton_free(turner);
}

/* ---- the pab rig ------------------------------------------------------------------- */

#if defined(SINEW_TEST_FILES)
static void test_pab(void)
{
    sinew_asset *a = test_load_shared(SINEW_ASSETS "/fbx/pab/walk.fbx");
    if (!a) return;
    sinew_error err = {0};
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    sinew_transform pose[MAX_JOINTS];
    CHECK(n <= MAX_JOINTS && a->clip_count == 1, "pab walk: %d joints, %d clips", n, a->clip_count);
    if (n <= MAX_JOINTS && a->clip_count == 1) {
        sinew_clip_sample(a->clips[0], sk, 0.4f, 0, NULL, pose, n, &err);
        int up = sinew_skeleton_find_joint(sk, "LeftUpLeg"), leg = sinew_skeleton_find_joint(sk, "LeftLeg"),
            foot = sinew_skeleton_find_joint(sk, "LeftFoot");
        test_two_bone("pab left leg", sk, pose, up, leg, foot);
        int arm = sinew_skeleton_find_joint(sk, "RightArm"), fore = sinew_skeleton_find_joint(sk, "RightForeArm"),
            hand = sinew_skeleton_find_joint(sk, "RightHand");
        test_two_bone("pab right arm", sk, pose, arm, fore, hand);

        /* root motion of the walk on Hips: one loop adds up to its displacement */
        const sinew_clip *walk = a->clips[0];
        int hips = sinew_skeleton_find_joint(sk, "Hips");
        sinew_root_motion_job whole = {.clip = walk, .skeleton = sk, .joint = hips, .from = 0.0f, .to = 0.0f,
                                       .wraps = 1};
        sinew_root_motion(&whole, &err);
        sinew_playback p = sinew_playback_start(walk, true);
        motion_sum c = {{0, 0, 0}, 0.0f};
        for (int s = 0; s < 97; ++s) {
            float from = p.time;
            int wraps = sinew_playback_advance(&p, walk->duration / 97.0f);
            sinew_root_motion_job job = {.clip = walk, .skeleton = sk, .joint = hips, .from = from, .to = p.time,
                                         .wraps = wraps};
            sinew_root_motion(&job, &err);
            accumulate(&c, &job);
        }
        float moved = sinew_vec3_length(whole.translation);
        CHECK(moved > 50.0f && dist(c.t, whole.translation) < 1e-4f * moved && fabsf(c.yaw - whole.yaw) < 1e-4f,
              "pab walk: steps add to (%g, %g, %g) yaw %g, the clip moves (%g, %g, %g) yaw %g", (double)c.t.x,
              (double)c.t.y, (double)c.t.z, (double)c.yaw, (double)whole.translation.x, (double)whole.translation.y,
              (double)whole.translation.z, (double)whole.yaw);
    }
    sinew_asset_free(a);
}
#else
static void test_pab(void)
{
    printf("skip: a build without the loaders: the pab rig (FBX) is not read\n");
}
#endif

int main(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) {
        fprintf(stderr, "demo: %s\n", err.description);
        return 1;
    }
    const sinew_skeleton *sk = a->skeleton;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk"), *idle = sinew_asset_find_clip(a, "idle");
    sinew_transform pose[MAX_JOINTS];
    sinew_clip_sample(walk, sk, 0.3f, 0, NULL, pose, sk->joint_count, &err);

    test_additive_clips(sk, walk, idle);
    test_playback(walk, idle);
    test_blend_spaces();
    test_two_bone("built-in left leg", sk, pose, sinew_skeleton_find_joint(sk, "thigh_l"),
                  sinew_skeleton_find_joint(sk, "shin_l"), sinew_skeleton_find_joint(sk, "foot_l"));
    test_two_bone("built-in right arm", sk, pose, sinew_skeleton_find_joint(sk, "upperarm_r"),
                  sinew_skeleton_find_joint(sk, "forearm_r"), sinew_skeleton_find_joint(sk, "hand_r"));
    test_two_bone_ill_conditioned();
    test_two_bone_random();
    /* the chain skipping a joint (clavicle to hand over upper arm and forearm) */
    test_fabrik();
    test_aim(sk, pose, sinew_skeleton_find_joint(sk, "head"));
    test_root_motion(sk, walk);
    test_pab();
    sinew_asset_free(a);
    return check_finish("test_layer");
}
