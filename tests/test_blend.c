/* SPDX-License-Identifier: MIT */
/* Blending and additive poses, by their properties on the built-in
 * character's clips: weight 1 and 0 reproduce a clip bit for bit, 0.5/0.5
 * lands halfway, the order of layers does not matter, masks keep joints
 * out, a total weight near 0 fades to the rest pose, an additive delta of
 * the reference itself changes nothing and a pose's own delta on its
 * reference gives it back. And the SIMD blends (eight joints a step, on
 * transforms and on SoA poses) agree with the scalar loop within sinew.h's
 * tolerances, one-contributor joints bit for bit, on random poses made to
 * reach every case of a lane. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"
#include "pose_check.h"

#include <stdlib.h>

enum { MAX_JOINTS = 64 };


/* A small deterministic generator: uniform in [lo, hi). */
static float rnd(unsigned *state, float lo, float hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

static void random_transform(unsigned *state, sinew_transform *t)
{
    t->translation = (sinew_vec3){rnd(state, -2, 2), rnd(state, -2, 2), rnd(state, -2, 2)};
    sinew_quat q = {rnd(state, -1, 1), rnd(state, -1, 1), rnd(state, -1, 1), rnd(state, -1, 1)};
    float len = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    t->rotation = (sinew_quat){q.x / len, q.y / len, q.z / len, q.w / len};
    t->scale = (sinew_vec3){rnd(state, 0.5f, 2), rnd(state, 0.5f, 2), rnd(state, 0.5f, 2)};
}

/* The floats of a transform, in a SoA block's order. */
static void floats_of(const sinew_transform *t, float f[10])
{
    memcpy(f, &t->translation, 3 * sizeof(float));
    memcpy(f + 3, &t->rotation, 4 * sizeof(float));
    memcpy(f + 7, &t->scale, 3 * sizeof(float));
}

/* Worst errors of a SIMD blend against the scalar one: translation and
 * scale relative to the largest contributing magnitude (1 if less),
 * rotation components absolute; and how many one-contributor joints were
 * not bit for bit. */
typedef struct errors {
    double move, turn;
    int single_off, singles, joints;
} errors;

/* Joint j of `got` against `want` (sinew_blend's rules for the layers). */
static void compare_joint(const sinew_blend_layer *layers, int layer_count, float threshold, const sinew_transform *rest,
                          const sinew_transform *want, const sinew_transform *got, int j, errors *e)
{
    float total = 0.0f, big[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, f[10], g[10], h[10];
    int contributors = 0;
    if (threshold == 0.0f) threshold = 0.1f;
    for (int i = 0; i <= layer_count; ++i) {
        float w = i < layer_count ? layers[i].weight * (layers[i].joint_weights ? layers[i].joint_weights[j] : 1.0f)
                                  : threshold - total;
        if (!(w > 0.0f)) continue;
        total += w, ++contributors;
        floats_of(i < layer_count ? &layers[i].pose[j] : &rest[j], f);
        for (int c = 0; c < 10; ++c) big[c] = fmaxf(big[c], fabsf(f[c]));
    }
    ++e->joints;
    if (contributors == 1) {
        ++e->singles;
        e->single_off += memcmp(want, got, sizeof *want) != 0;
        return;
    }
    floats_of(want, g), floats_of(got, h);
    for (int c = 0; c < 10; ++c) {
        double d = fabs((double)g[c] - (double)h[c]);
        if (c >= 3 && c < 7) e->turn = fmax(e->turn, d);
        else e->move = fmax(e->move, d / big[c]);
    }
}

/* sinew_blend and sinew_blend_pose on a skeleton made at the best SIMD
 * level against the same skeleton made at the scalar level, for joint
 * counts below, at and off multiples of the kernels' 8: random rest poses
 * and one to six layers (rotations on either side of the rest's; the
 * kernels unroll up to four), masks of zeros,
 * ones and fractions (joints with one contributor, joints the rest pose
 * fills in), weights of 0, thresholds 0 (0.1), 0.5 and 3 (the rest pose
 * in every joint), weights near 1e-18 and 1e18, a -0 coordinate,
 * rotations whose dot product with the rest's is -0 (the other side), one
 * of them with a first product that underflows to -0, NaNs
 * in layers that do not count for their joint (the scalar loop skips
 * them; the lanes must too). The SoA blend at the scalar level is
 * sinew_blend's scalar result bit for bit; the SIMD ones within sinew.h's
 * tolerances, one-contributor joints bit for bit; SoA conversions bit for
 * bit, padding lanes the identity; the SIMD blend of the same poses in the
 * skeleton's pose order (masks per lane) within the same tolerances. */
static void check_simd_blend(void)
{
    enum { MAX = 61, LAYERS = 6, FLOATS = SINEW_POSE_FLOATS(MAX), LANES = 2 * MAX + 8 };
    bool simd_runs = sinew_simd_supported() >= SINEW_SIMD_AVX2;
    if (!simd_runs) printf("test_blend: SIMD blend not checked: this CPU runs no AVX2\n");
    static const int counts[] = {5, 8, 16, 23, 61};
    unsigned state = 12345u;
    int cases = 0, soa_differ = 0, round_trip_differ = 0, pad_differ = 0;
    errors aos = {0}, soa = {0}, ordered = {0};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ++ci) {
        int n = counts[ci], parents[MAX];
        static sinew_transform rest[MAX], poses[LAYERS][MAX], want[MAX], got[MAX], back[MAX];
        static float masks[LAYERS][MAX], soa_rest[FLOATS], soa_poses[LAYERS][FLOATS], soa_want[FLOATS],
            soa_got[FLOATS];
        for (int j = 0; j < n; ++j) parents[j] = j - 1, random_transform(&state, &rest[j]);
        rest[3 % n].rotation = (sinew_quat){0, 0, 0, 1}; /* with the layers' joint 3 below: a dot product of -0 */
        /* with the layers' joint 4 below: a first product that underflows
         * to -0 and three of -0, a sum of -0 */
        rest[4 % n].rotation = (sinew_quat){1e-20f, 1, 0, 0};
        sinew_skeleton_desc d = {n, parents, NULL, rest};
        sinew_error err;
        sinew_skeleton *scalar = sinew_skeleton_create(&d, NULL, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, &err);
        sinew_skeleton *simd = sinew_skeleton_create(&d, NULL, NULL, &err);
        CHECK(scalar && simd, "skeletons of %d joints: %s", n, err.description);
        if (!scalar || !simd) goto next;
        sinew_pose_from_transforms(rest, n, soa_rest, &err);
        /* the same blends in the skeleton's pose order (a chain: each joint
         * in both lanes of its pair), masks per lane */
        const int16_t *lane_joint;
        int lanes = sinew_skeleton_pose_order(simd, &lane_joint);
        static float order_rest[SINEW_POSE_FLOATS(LANES)], order_poses[LAYERS][SINEW_POSE_FLOATS(LANES)],
            order_got[SINEW_POSE_FLOATS(LANES)], lane_masks[LAYERS][LANES];
        CHECK(lanes <= LANES, "%d joints: %d lanes", n, lanes);
        if (lanes > LANES) goto next;
        sinew_pose_order_from_transforms(simd, rest, n, order_rest, &err);
        for (int round = 0; round < 54; ++round) {
            sinew_blend_layer layers[LAYERS];
            sinew_pose_layer pose_layers[LAYERS];
            /* 1 to 6 layers (the kernels unroll up to four), each count
             * without masks, with masks, and masked and unmasked layers
             * mixed (round % 3) */
            int layer_count = 1 + round / 3 % LAYERS;
            /* weights far from 1 (with a threshold to match): sums whose
             * reciprocals leave the range of the kernels' estimates */
            float scale = round % 7 == 3 ? 1e-18f : round % 7 == 5 ? 1e18f : 1.0f;
            for (int i = 0; i < layer_count; ++i) {
                for (int j = 0; j < n; ++j) {
                    random_transform(&state, &poses[i][j]);
                    float pick = rnd(&state, 0, 1);
                    masks[i][j] = pick < 0.3f ? 0.0f : pick < 0.6f ? 1.0f : rnd(&state, 0, 1);
                    if (masks[i][j] == 0.0f && pick < 0.05f) poses[i][j].scale.y = NAN;
                }
                poses[i][0].translation.x = -0.0f;
                if (i % 2) poses[i][3 % n].rotation = (sinew_quat){-0.6f, -0.8f, -0.0f, -0.0f};
                if (i % 2) poses[i][4 % n].rotation = (sinew_quat){-1e-30f, -0.0f, -0.6f, -0.8f};
                float pick = rnd(&state, 0, 1);
                layers[i] = (sinew_blend_layer){poses[i], pick < 0.15f ? 0.0f : scale * rnd(&state, 0, 1.5f),
                                                round % 3 == 0 || (round % 3 == 2 && i % 2) ? NULL : masks[i]};
                if (!layers[i].joint_weights) /* NaNs only where a mask keeps them out */
                    for (int j = 0; j < n; ++j)
                        if (isnan(poses[i][j].scale.y)) poses[i][j].scale.y = 1.0f;
                if (layers[i].weight == 0.0f && rnd(&state, 0, 1) < 0.5f) poses[i][1].rotation.x = NAN;
                sinew_pose_from_transforms(poses[i], n, soa_poses[i], &err);
                sinew_pose_to_transforms(soa_poses[i], n, back, &err);
                round_trip_differ += memcmp(back, poses[i], sizeof(sinew_transform) * (size_t)n) != 0;
                pose_layers[i] = (sinew_pose_layer){soa_poses[i], layers[i].weight, layers[i].joint_weights};
            }
            float threshold = round % 5 == 0 ? 3.0f : round % 5 == 1 ? 0.5f : 0.0f;
            if (scale < 1.0f) threshold *= 1e-19f;
            CHECK(sinew_blend(scalar, layers, layer_count, threshold, want, n, &err) == SINEW_OK, "scalar blend: %s",
                  err.description);
            CHECK(sinew_blend_pose(scalar, soa_rest, pose_layers, layer_count, threshold, soa_want, n, &err) ==
                      SINEW_OK,
                  "scalar SoA blend: %s", err.description);
            sinew_pose_to_transforms(soa_want, n, back, &err);
            soa_differ += memcmp(back, want, sizeof(sinew_transform) * (size_t)n) != 0;
            for (int j = n; j & 7; ++j)
                for (int c = 0; c < 10; ++c)
                    pad_differ += soa_want[(j / 8) * SINEW_POSE_BLOCK_FLOATS + c * 8 + j % 8] != (c >= 6 ? 1.0f : 0.0f);
            ++cases;
            if (!simd_runs) continue;
            CHECK(sinew_blend(simd, layers, layer_count, threshold, got, n, &err) == SINEW_OK, "SIMD blend: %s",
                  err.description);
            for (int j = 0; j < n; ++j) compare_joint(layers, layer_count, threshold, rest, &want[j], &got[j], j, &aos);
            CHECK(sinew_blend_pose(simd, soa_rest, pose_layers, layer_count, threshold, soa_got, n, &err) == SINEW_OK,
                  "SIMD SoA blend: %s", err.description);
            sinew_pose_to_transforms(soa_got, n, back, &err);
            for (int j = 0; j < n; ++j) compare_joint(layers, layer_count, threshold, rest, &want[j], &back[j], j, &soa);
            sinew_pose_layer order_layers[LAYERS];
            for (int i = 0; i < layer_count; ++i) {
                sinew_pose_order_from_transforms(simd, poses[i], n, order_poses[i], &err);
                for (int l = 0; l < lanes; ++l) lane_masks[i][l] = masks[i][lane_joint[l]];
                order_layers[i] = (sinew_pose_layer){order_poses[i], layers[i].weight,
                                                     layers[i].joint_weights ? lane_masks[i] : NULL};
            }
            CHECK(sinew_blend_pose(simd, order_rest, order_layers, layer_count, threshold, order_got, lanes, &err) ==
                      SINEW_OK,
                  "SIMD SoA blend in pose order: %s", err.description);
            sinew_pose_order_to_transforms(simd, order_got, back, n, &err);
            for (int j = 0; j < n; ++j)
                compare_joint(layers, layer_count, threshold, rest, &want[j], &back[j], j, &ordered);
            for (int j = n; j & 7; ++j)
                for (int c = 0; c < 10; ++c)
                    pad_differ += soa_got[(j / 8) * SINEW_POSE_BLOCK_FLOATS + c * 8 + j % 8] != (c >= 6 ? 1.0f : 0.0f);
        }
    next:
        sinew_skeleton_free(scalar), sinew_skeleton_free(simd);
    }
    CHECK(round_trip_differ == 0, "SoA round trips not bit for bit: %d", round_trip_differ);
    CHECK(soa_differ == 0, "the scalar SoA blend differs from the scalar blend in %d of %d cases", soa_differ, cases);
    CHECK(pad_differ == 0, "%d padding floats are not the identity's", pad_differ);
    if (!simd_runs) return;
    const errors *e[3] = {&aos, &soa, &ordered};
    for (int k = 0; k < 3; ++k) {
        const char *what = k == 2 ? "sinew_blend_pose in pose order" : k ? "sinew_blend_pose" : "sinew_blend";
        CHECK(e[k]->move <= 1e-6 && e[k]->turn <= 1e-6,
              "%s at %s: translation/scale %.3g of the largest magnitude, rotation %.3g from the scalar blend", what,
              sinew_simd_name(sinew_simd_supported()), e[k]->move, e[k]->turn);
        CHECK(e[k]->single_off == 0, "%s: %d of %d one-contributor joints not bit for bit", what, e[k]->single_off,
              e[k]->singles);
        printf("test_blend: %s at %s: %d joints within %.2g (translation, scale: of the largest magnitude) and %.2g "
               "(rotation) of the scalar blend; %d one-contributor joints bit for bit\n",
               what, sinew_simd_name(sinew_simd_supported()), e[k]->joints, e[k]->move, e[k]->turn, e[k]->singles);
    }
}

/* Rotations whose dot product with the rest rotation is 0 but for
 * rounding: every level must put them on the side sinew.h names (the sign
 * bit of the dot product summed in x, y, z, w order). Each joint's first
 * layer is made perpendicular to its rest rotation (in double, then
 * rounded), its second is random, both at weight 1. The SIMD blends, on
 * transforms and on SoA poses, without masks and with masks of ones (the
 * masked kernels), must agree with the scalar one, which a rotation on
 * the other side breaks by far more than rounding. Some of those dot
 * products must change sign when summed in another order (x + y and z + w
 * first), so that a kernel that sums otherwise fails here. */
static void check_near_tie_sides(void)
{
    enum { N = 16, ROUNDS = 64 };
    if (sinew_simd_supported() < SINEW_SIMD_AVX2) {
        printf("test_blend: near-tie sides not compared across levels: this CPU runs no AVX2\n");
        return;
    }
    unsigned state = 777u;
    int parents[N], cases = 0, order_decides = 0;
    sinew_transform rest[N], a[N], b[N], want[N], got[N];
    static float soa_rest[SINEW_POSE_FLOATS(N)], soa_a[SINEW_POSE_FLOATS(N)], soa_b[SINEW_POSE_FLOATS(N)],
        soa_got[SINEW_POSE_FLOATS(N)], ones[N];
    for (int j = 0; j < N; ++j) ones[j] = 1.0f;
    double worst = 0.0;
    sinew_error err;
    for (int round = 0; round < ROUNDS; ++round) {
        for (int j = 0; j < N; ++j) {
            parents[j] = j - 1;
            random_transform(&state, &rest[j]), random_transform(&state, &a[j]), random_transform(&state, &b[j]);
            const sinew_quat r = rest[j].rotation;
            sinew_quat *q = &a[j].rotation;
            double d = (double)q->x * r.x + (double)q->y * r.y + (double)q->z * r.z + (double)q->w * r.w;
            double v[4] = {q->x - d * r.x, q->y - d * r.y, q->z - d * r.z, q->w - d * r.w};
            double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            *q = (sinew_quat){(float)(v[0] / len), (float)(v[1] / len), (float)(v[2] / len), (float)(v[3] / len)};
            float x = q->x * r.x, y = q->y * r.y, z = q->z * r.z, w = q->w * r.w;
            order_decides += signbit(((x + y) + z) + w) != signbit((x + y) + (z + w));
            ++cases;
        }
        sinew_skeleton_desc desc = {N, parents, NULL, rest};
        sinew_skeleton *scalar = sinew_skeleton_create(&desc, NULL, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, &err);
        sinew_skeleton *simd = sinew_skeleton_create(&desc, NULL, NULL, &err);
        CHECK(scalar && simd, "near-tie skeletons: %s", err.description);
        if (!scalar || !simd) {
            sinew_skeleton_free(scalar), sinew_skeleton_free(simd);
            return;
        }
        sinew_blend_layer layers[2] = {{a, 1.0f, NULL}, {b, 1.0f, NULL}};
        CHECK(sinew_blend(scalar, layers, 2, 0.0f, want, N, &err) == SINEW_OK, "scalar blend: %s", err.description);
        sinew_pose_from_transforms(rest, N, soa_rest, &err);
        sinew_pose_from_transforms(a, N, soa_a, &err), sinew_pose_from_transforms(b, N, soa_b, &err);
        /* without masks and with masks of ones (the masked kernels) */
        for (int masked = 0; masked < 2; ++masked) {
            const float *mask = masked ? ones : NULL;
            sinew_blend_layer simd_layers[2] = {{a, 1.0f, mask}, {b, 1.0f, mask}};
            CHECK(sinew_blend(simd, simd_layers, 2, 0.0f, got, N, &err) == SINEW_OK, "SIMD blend: %s",
                  err.description);
            for (int j = 0; j < N; ++j) worst = fmax(worst, quat_angle(want[j].rotation, got[j].rotation));
            sinew_pose_layer pose_layers[2] = {{soa_a, 1.0f, mask}, {soa_b, 1.0f, mask}};
            CHECK(sinew_blend_pose(simd, soa_rest, pose_layers, 2, 0.0f, soa_got, N, &err) == SINEW_OK,
                  "SIMD SoA blend: %s", err.description);
            sinew_pose_to_transforms(soa_got, N, got, &err);
            for (int j = 0; j < N; ++j) worst = fmax(worst, quat_angle(want[j].rotation, got[j].rotation));
        }
        sinew_skeleton_free(scalar), sinew_skeleton_free(simd);
    }
    CHECK(order_decides > 0, "near-tie sides: none of %d dot products changes sign with the order of its sum", cases);
    CHECK(worst <= 1e-4, "near-tie sides: a SIMD blend %.3g rad from the scalar one (a rotation on the other side)",
          worst);
    printf("test_blend: near-tie sides: %d dot products near 0 (%d whose sign the order of the sum decides), SIMD "
           "blends within %.2g rad of the scalar one\n",
           cases, order_decides, worst);
}

/* sinew_additive_apply_pose against sinew_additive_apply, bit for bit, on
 * skeletons made at the scalar level (the reference, joint by joint, for
 * both forms' kernels) and at the best one, in joint order
 * and in the pose order (masks per lane), for joint counts below, at and
 * off multiples of 8: random bases and deltas, delta rotations with w
 * below 0, -0 and 0, a zero delta rotation (its nlerp has no length at
 * weight 1: the identity), delta translations near the float range
 * (infinite sums), weights 0, fractions, 1 and above, masks with zeros. */
static void check_additive_pose(void)
{
    enum { MAX = 61, LANES = 2 * MAX + 8 };
    static const int counts[] = {5, 8, 16, 23, 61};
    static const float weights[] = {0.0f, 0.37f, 1.0f, 2.5f};
    unsigned state = 777u;
    int cases = 0, differ = 0;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ++ci) {
        int n = counts[ci], parents[MAX];
        static sinew_transform rest[MAX], base[MAX], delta[MAX], want[MAX];
        static float mask[MAX], lane_mask[LANES], soa_base[SINEW_POSE_FLOATS(LANES)],
            soa_delta[SINEW_POSE_FLOATS(LANES)], soa_want[SINEW_POSE_FLOATS(LANES)], soa_got[SINEW_POSE_FLOATS(LANES)];
        for (int j = 0; j < n; ++j) parents[j] = j - 1, random_transform(&state, &rest[j]);
        sinew_skeleton_desc d = {n, parents, NULL, rest};
        sinew_error err;
        sinew_skeleton *sks[2] = {sinew_skeleton_create(&d, NULL, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, &err),
                                  sinew_skeleton_create(&d, NULL, NULL, &err)};
        CHECK(sks[0] && sks[1], "skeletons of %d joints: %s", n, err.description);
        for (int round = 0; sks[0] && sks[1] && round < 16; ++round) {
            for (int j = 0; j < n; ++j) {
                random_transform(&state, &base[j]), random_transform(&state, &delta[j]);
                mask[j] = j % 5 == 1 ? 0.0f : rnd(&state, 0, 1.5f);
            }
            delta[1 % n].rotation.w = -0.0f;
            delta[2 % n].rotation = (sinew_quat){0, 0, 0, 0};
            delta[3 % n].rotation.w = 0.0f;
            if (round % 4 == 3) delta[4 % n].translation.x = 3e38f, base[4 % n].translation.x = 3e38f;
            float weight = weights[round % 4];
            const float *m = round % 2 ? mask : NULL;
            sinew_additive_apply(base, delta, n, weight, m, want, &err);
            for (int k = 0; k < 2; ++k) {
                const sinew_skeleton *sk = sks[k];
                /* joint order */
                sinew_pose_from_transforms(base, n, soa_base, &err);
                sinew_pose_from_transforms(delta, n, soa_delta, &err);
                sinew_pose_from_transforms(want, n, soa_want, &err);
                CHECK(sinew_additive_apply_pose(sk, soa_base, soa_delta, n, weight, m, soa_got, &err) == SINEW_OK,
                      "additive SoA: %s", err.description);
                differ += memcmp(soa_got, soa_want, sizeof(float) * SINEW_POSE_FLOATS(n)) != 0;
                /* in place */
                CHECK(sinew_additive_apply_pose(sk, soa_base, soa_delta, n, weight, m, soa_base, &err) == SINEW_OK,
                      "additive SoA in place: %s", err.description);
                differ += memcmp(soa_base, soa_want, sizeof(float) * SINEW_POSE_FLOATS(n)) != 0;
                /* pose order, masks per lane */
                const int16_t *lane_joint;
                int lanes = sinew_skeleton_pose_order(sk, &lane_joint);
                CHECK(lanes <= LANES, "%d joints: %d lanes", n, lanes);
                if (lanes > LANES) continue;
                for (int l = 0; l < lanes; ++l) lane_mask[l] = mask[lane_joint[l]];
                sinew_pose_order_from_transforms(sk, base, n, soa_base, &err);
                sinew_pose_order_from_transforms(sk, delta, n, soa_delta, &err);
                sinew_pose_order_from_transforms(sk, want, n, soa_want, &err);
                CHECK(sinew_additive_apply_pose(sk, soa_base, soa_delta, lanes, weight, m ? lane_mask : NULL, soa_got,
                                                &err) == SINEW_OK,
                      "additive SoA in pose order: %s", err.description);
                differ += memcmp(soa_got, soa_want, sizeof(float) * SINEW_POSE_FLOATS(lanes)) != 0;
                cases += 3;
            }
        }
        /* errors, each with its sentence, the caller named */
        if (sks[0]) {
            const sinew_skeleton *sk = sks[0];
            struct {
                const float *base;
                int count;
                float weight;
                const float *mask;
                sinew_result want;
            } bad[] = {{NULL, n, 1.0f, NULL, SINEW_ERROR_INVALID_ARGUMENT},
                       {soa_base, n + 1, 1.0f, NULL, SINEW_ERROR_SIZE_MISMATCH},
                       {soa_base, n, -1.0f, NULL, SINEW_ERROR_INVALID_ARGUMENT},
                       {soa_base, n, INFINITY, NULL, SINEW_ERROR_INVALID_ARGUMENT},
                       {soa_base, n, 1.0f, lane_mask, SINEW_ERROR_INVALID_ARGUMENT}};
            lane_mask[n - 1] = NAN;
            CHECK(sinew_additive_apply_pose(NULL, soa_base, soa_delta, n, 1.0f, NULL, soa_got, &err) ==
                          SINEW_ERROR_INVALID_ARGUMENT &&
                      sinew_additive_apply_pose(sk, soa_base, NULL, n, 1.0f, NULL, soa_got, &err) ==
                          SINEW_ERROR_INVALID_ARGUMENT &&
                      sinew_additive_apply_pose(sk, soa_base, soa_delta, n, 1.0f, NULL, NULL, &err) ==
                          SINEW_ERROR_INVALID_ARGUMENT,
                  "additive SoA: no skeleton, delta or output refused");
            for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
                sinew_result r = sinew_additive_apply_pose(sk, bad[i].base, soa_delta, bad[i].count, bad[i].weight,
                                                           bad[i].mask, soa_got, &err);
                CHECK(r == bad[i].want && strncmp(err.description, "sinew_additive_apply_pose: ", 27) == 0,
                      "additive SoA error case %zu: %s (%s)", i, sinew_result_name(r), err.description);
            }
        }
        sinew_skeleton_free(sks[0]), sinew_skeleton_free(sks[1]);
    }
    CHECK(differ == 0, "sinew_additive_apply_pose differs from sinew_additive_apply in %d of %d cases", differ, cases);
    printf("test_blend: sinew_additive_apply_pose at scalar and %s: %d cases bit for bit\n",
           sinew_simd_name(sinew_simd_supported()), cases);
}

int main(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk"), *idle = sinew_asset_find_clip(a, "idle");
    sinew_transform pa[MAX_JOINTS], pb[MAX_JOINTS], pc[MAX_JOINTS], out[MAX_JOINTS], out2[MAX_JOINTS],
        rest[MAX_JOINTS], delta[MAX_JOINTS];
    sinew_rest_pose(sk, rest, n, &err);

    for (int k = 0; k < 10; ++k) {
        float t = 0.097f * (float)k;
        sinew_clip_sample(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, pa, n, &err);
        sinew_clip_sample(idle, sk, 3.0f * t, SINEW_SAMPLE_LOOP, NULL, pb, n, &err);
        sinew_clip_sample(walk, sk, t + 0.5f, SINEW_SAMPLE_LOOP, NULL, pc, n, &err);

        /* 1 / 0 gives the first clip bit for bit */
        sinew_blend_layer two[2] = {{pa, 1.0f, NULL}, {pb, 0.0f, NULL}};
        CHECK(sinew_blend(sk, two, 2, 0.0f, out, n, &err) == SINEW_OK, "blend: %s", err.description);
        CHECK(memcmp(out, pa, sizeof(sinew_transform) * (size_t)n) == 0, "t %g: weights 1/0 give the clip", (double)t);

        /* 0.5 / 0.5 lands halfway */
        two[0].weight = two[1].weight = 0.5f;
        sinew_blend(sk, two, 2, 0.0f, out, n, &err);
        double worst_t = 0.0, worst_r = 0.0;
        for (int j = 0; j < n; ++j) {
            sinew_vec3 mid = sinew_vec3_lerp(pa[j].translation, pb[j].translation, 0.5f);
            worst_t = fmax(worst_t, sinew_vec3_length(sinew_vec3_sub(out[j].translation, mid)));
            worst_r = fmax(worst_r, fabs(quat_angle(out[j].rotation, pa[j].rotation) -
                                         quat_angle(out[j].rotation, pb[j].rotation)));
        }
        CHECK(worst_t <= 1e-6 && worst_r <= 1e-5, "t %g: halfway (translation %.3g, rotation %.3g rad)", (double)t,
              worst_t, worst_r);

        /* the order of the layers does not change the result */
        sinew_blend_layer three[3] = {{pa, 0.2f, NULL}, {pb, 0.7f, NULL}, {pc, 0.45f, NULL}};
        sinew_blend_layer swapped[3] = {three[2], three[0], three[1]};
        sinew_blend(sk, three, 3, 0.0f, out, n, &err);
        sinew_blend(sk, swapped, 3, 0.0f, out2, n, &err);
        CHECK(pose_diff(out, out2, n) <= 1e-6, "t %g: order does not matter (%.3g)", (double)t, pose_diff(out, out2, n));

        /* a mask keeps the second layer off the legs */
        float mask[MAX_JOINTS];
        for (int j = 0; j < n; ++j) mask[j] = strstr(sk->names[j], "thigh") || strstr(sk->names[j], "shin") ? 0.0f : 1.0f;
        sinew_blend_layer masked[2] = {{pa, 1.0f, NULL}, {pb, 1.0f, mask}};
        sinew_blend(sk, masked, 2, 0.0f, out, n, &err);
        int kept = 0, moved = 0;
        for (int j = 0; j < n; ++j) {
            bool same = memcmp(&out[j], &pa[j], sizeof out[j]) == 0;
            if (mask[j] == 0.0f) kept += same;
            else moved += !same;
        }
        CHECK(kept == 4 && moved > 0, "t %g: masked joints keep the first layer (%d of 4), others blend (%d)",
              (double)t, kept, moved);

        /* additive: the reference's own delta changes nothing; a pose's delta gives it back */
        sinew_additive_delta(pa, pa, n, delta, &err);
        sinew_additive_apply(pb, delta, n, 1.0f, NULL, out, &err);
        CHECK(pose_diff(out, pb, n) <= 1e-6, "t %g: the reference's own additive changes nothing (%.3g)", (double)t,
              pose_diff(out, pb, n));
        sinew_additive_delta(rest, pb, n, delta, &err);
        sinew_additive_apply(rest, delta, n, 1.0f, NULL, out, &err);
        CHECK(pose_diff(out, pb, n) <= 2e-6, "t %g: delta over rest, applied to rest, gives the pose (%.3g)",
              (double)t, pose_diff(out, pb, n));
        sinew_additive_apply(pa, delta, n, 0.0f, NULL, out, &err);
        CHECK(pose_diff(out, pa, n) <= 1e-7, "t %g: weight 0 leaves the base", (double)t);
        sinew_additive_apply(pa, delta, n, 1.0f, mask, out, &err);
        for (int j = 0; j < n; ++j)
            if (mask[j] == 0.0f) CHECK(pose_diff(&out[j], &pa[j], 1) <= 1e-7, "a masked joint keeps the base");
    }

    /* no weight at all: the rest pose; a little weight: on the way to it */
    sinew_clip_sample(walk, sk, 0.3f, 0, NULL, pa, n, &err);
    sinew_blend_layer none = {pa, 0.0f, NULL};
    sinew_blend(sk, &none, 1, 0.0f, out, n, &err);
    CHECK(memcmp(out, rest, sizeof(sinew_transform) * (size_t)n) == 0, "weight 0 everywhere gives the rest pose");
    none.weight = 0.05f;
    sinew_blend(sk, &none, 1, 0.1f, out, n, &err);
    double to_rest = pose_diff(out, rest, n), to_pose = pose_diff(out, pa, n);
    CHECK(to_rest > 0.0 && to_pose > 0.0, "below the threshold the rest pose fills in (%.3g, %.3g)", to_rest, to_pose);

    /* errors */
    sinew_blend_layer bad = {pa, -1.0f, NULL};
    CHECK(sinew_blend(sk, &bad, 1, 0.0f, out, n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "a negative weight");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "layer 0");
    CHECK(strncmp(err.description, "sinew_blend: ", 13) == 0, "the caller named: %s", err.description);
    bad.weight = NAN;
    CHECK(sinew_blend(sk, &bad, 1, 0.0f, out, n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "a NaN weight");
    CHECK(sinew_blend(sk, &none, 1, 0.0f, out, n - 1, &err) == SINEW_ERROR_SIZE_MISMATCH, "a short output");
    CHECK(sinew_additive_apply(pa, delta, n, INFINITY, NULL, out, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "an infinite additive weight");

    /* the SoA blend's errors: each found, with its sentence, the caller named */
    float *soa = malloc(sizeof(float) * SINEW_POSE_FLOATS(n) * 2), *soa_out = soa + SINEW_POSE_FLOATS(n);
    if (soa) {
        sinew_pose_from_transforms(rest, n, soa, NULL);
        float nan_mask[256];
        for (int j = 0; j < n && j < 256; ++j) nan_mask[j] = j == n / 2 ? NAN : 1.0f;
        const struct {
            sinew_pose_layer layer;
            const float *rest;
            float threshold;
            int count;
            sinew_result want;
            const char *says;
        } cases[] = {
            {{soa, 0.5f, NULL}, NULL, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "rest pose"},
            {{NULL, 0.5f, NULL}, soa, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "layer 0"},
            {{soa, -1.0f, NULL}, soa, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "layer 0"},
            {{soa, NAN, NULL}, soa, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "layer 0"},
            {{soa, INFINITY, NULL}, soa, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "layer 0"},
            {{soa, 0.5f, nan_mask}, soa, 0.0f, n, SINEW_ERROR_INVALID_ARGUMENT, "mask weight"},
            {{soa, 0.5f, NULL}, soa, NAN, n, SINEW_ERROR_INVALID_ARGUMENT, "a skeleton, layers and an output"},
            {{soa, 0.5f, NULL}, soa, INFINITY, n, SINEW_ERROR_INVALID_ARGUMENT, "a skeleton, layers and an output"},
            {{soa, 0.5f, NULL}, soa, 0.0f, n - 1, SINEW_ERROR_SIZE_MISMATCH, "lanes"},
        };
        CHECK(n <= 256, "the mask case's %d joints fit its 256", n);
        for (size_t i = 0; n <= 256 && i < sizeof cases / sizeof *cases; ++i) {
            sinew_result r = sinew_blend_pose(sk, cases[i].rest, &cases[i].layer, 1, cases[i].threshold, soa_out,
                                              cases[i].count, &err);
            CHECK(r == cases[i].want && strstr(err.description, cases[i].says) &&
                      strncmp(err.description, "sinew_blend_pose: ", 18) == 0,
                  "SoA blend error case %zu: %d, %s", i, (int)r, err.description);
        }
        sinew_pose_layer fine = {soa, 0.5f, NULL};
        CHECK(sinew_blend_pose(sk, soa, &fine, 1, 0.0f, soa_out, n, &err) == SINEW_OK, "SoA blend: %s", err.description);
        free(soa);
    }

    sinew_asset_free(a);
    check_simd_blend();
    check_near_tie_sides();
    check_additive_pose();
    return check_finish("test_blend");
}
