/* Blending and additive poses, by their properties on the built-in
 * character's clips: weight 1 and 0 reproduce a clip bit for bit, 0.5/0.5
 * lands halfway, the order of layers does not matter, masks keep joints
 * out, a total weight near 0 fades to the rest pose, an additive delta of
 * the reference itself changes nothing and a pose's own delta on its
 * reference gives it back. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"
#include "pose_check.h"

#include <stdlib.h>

enum { MAX_JOINTS = 64 };


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
    bad.weight = NAN;
    CHECK(sinew_blend(sk, &bad, 1, 0.0f, out, n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "a NaN weight");
    CHECK(sinew_blend(sk, &none, 1, 0.0f, out, n - 1, &err) == SINEW_ERROR_SIZE_MISMATCH, "a short output");
    CHECK(sinew_additive_apply(pa, delta, n, INFINITY, NULL, out, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "an infinite additive weight");

    sinew_asset_free(a);
    return check_finish("test_blend");
}
