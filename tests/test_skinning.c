/* SPDX-License-Identifier: MIT */
/* Skinning: normals under non-uniform scale, the candy wrapper, DQS with
 * scale and antipodal quaternions, ranges, strides, aliasing, NaN. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"

#include <stdlib.h>

static sinew_skeleton *flat_skeleton(int n)
{
    int parents[16];
    for (int i = 0; i < n; ++i) parents[i] = -1;
    sinew_skeleton_desc d = {n, parents, NULL, NULL};
    return sinew_skeleton_create(&d, NULL, NULL, NULL);
}

static sinew_mat4 trs(float tx, float ty, float tz, sinew_vec3 axis, float angle, float sx, float sy, float sz)
{
    sinew_transform t = {{tx, ty, tz}, sinew_quat_from_axis_angle(axis, angle), {sx, sy, sz}};
    return sinew_mat4_from_transform(&t);
}

/* Triangles with unshared vertices and flat normals; every vertex has the
 * same two influences (0.3, 0.7), so the blended matrix is one linear map and
 * skinned normals must be exactly perpendicular to skinned edges. */
static void test_normals_non_uniform_scale(void)
{
    enum { TRIS = 64, V = TRIS * 3 };
    static float pos[V * 3], nrm[V * 3], out_p[V * 3], out_n[V * 3];
    static uint8_t idx[V * 2];
    static float w[V * 2];
    unsigned s = 9;
    for (int t = 0; t < TRIS; ++t) {
        sinew_vec3 p[3];
        for (int k = 0; k < 3; ++k) {
            p[k] = sinew_vec3_make(check_rand(&s) * 2 - 1, check_rand(&s) * 2 - 1, check_rand(&s) * 2 - 1);
            memcpy(&pos[(t * 3 + k) * 3], &p[k], sizeof p[k]);
        }
        sinew_vec3 n = sinew_vec3_normalize(sinew_vec3_cross(sinew_vec3_sub(p[1], p[0]), sinew_vec3_sub(p[2], p[0])));
        for (int k = 0; k < 3; ++k) memcpy(&nrm[(t * 3 + k) * 3], &n, sizeof n);
    }
    for (int v = 0; v < V; ++v) idx[v * 2] = 0, idx[v * 2 + 1] = 1, w[v * 2] = 0.3f, w[v * 2 + 1] = 0.7f;
    sinew_skeleton *sk = flat_skeleton(2);
    int joints[] = {0, 1};
    sinew_skin_desc d = {2, joints, NULL, NULL, V, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *skin = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    CHECK(skin != NULL, "skin");
    if (!skin) return;
    sinew_mat4 palette[2] = {trs(0.5f, 0, 0, sinew_vec3_make(0, 0, 1), 0.4f, 1.0f, 3.0f, 0.5f),
                             trs(0, 1, 0, sinew_vec3_make(1, 1, 0), 1.1f, 2.0f, 0.7f, 1.4f)};
    sinew_dq_transform dq[2];
    CHECK(sinew_dq_palette(palette, 2, dq, NULL) == SINEW_OK, "dq palette");
    CHECK(!sinew_palette_is_conformal(palette, 2, 1e-4f), "non-uniform scale detected");

    const char *names[] = {"LBS auto", "LBS fast", "DQS auto", "DQS fast"};
    for (int mode = 0; mode < 4; ++mode) {
        sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq, .palette_count = 2,
                              .normal_mode = (mode & 1) ? SINEW_NORMALS_FAST : SINEW_NORMALS_AUTO,
                              .positions = pos, .normals = nrm, .out_positions = out_p, .out_normals = out_n};
        CHECK((mode < 2 ? sinew_skin_lbs(&job, NULL) : sinew_skin_dqs(&job, NULL)) == SINEW_OK, "skin %s",
              names[mode]);
        float worst = 0.0f, min_len = 2.0f, max_len = 0.0f;
        for (int t = 0; t < TRIS; ++t) {
            const float *a = &out_p[t * 9], *b = a + 3, *c = a + 6;
            sinew_vec3 e1 = sinew_vec3_normalize(sinew_vec3_make(b[0] - a[0], b[1] - a[1], b[2] - a[2]));
            sinew_vec3 e2 = sinew_vec3_normalize(sinew_vec3_make(c[0] - a[0], c[1] - a[1], c[2] - a[2]));
            sinew_vec3 face = sinew_vec3_normalize(sinew_vec3_cross(e1, e2));
            for (int k = 0; k < 3; ++k) {
                sinew_vec3 n;
                memcpy(&n, &out_n[(t * 3 + k) * 3], sizeof n);
                worst = fmaxf(worst, fmaxf(fabsf(sinew_vec3_dot(n, e1)), fabsf(sinew_vec3_dot(n, e2))));
                CHECK(sinew_vec3_dot(n, face) > 0.0f, "%s: normal keeps its side", names[mode]);
                min_len = fminf(min_len, sinew_vec3_length(n)), max_len = fmaxf(max_len, sinew_vec3_length(n));
            }
        }
        printf("%s: largest |cos(normal, skinned edge)| = %.3g\n", names[mode], (double)worst);
        if (mode & 1)
            CHECK(worst > 0.05f, "%s: the cheap path is wrong here (|cos| %g), so the test can see the pitfall",
                  names[mode], (double)worst);
        else
            CHECK(worst < 2e-5f, "%s: normals stay perpendicular to the skinned surface (|cos| %g)", names[mode],
                  (double)worst);
        CHECK(min_len > 0.99999f && max_len < 1.00001f, "%s: unit normals", names[mode]);
    }
    sinew_skin_free(skin);
    sinew_skeleton_free(sk);
}

/* A cylinder along x from 0 to 2, joint 0 at the origin, joint 1 at x = 1,
 * weights ramping from joint 0 to joint 1 between x = 0.5 and 1.5. Joint 1
 * twists about x; the ring at x = 1 (weights 0.5 / 0.5) is measured. */
static float twisted_radius(float twist, bool dqs)
{
    enum { RINGS = 21, SEG = 16, V = RINGS * SEG };
    static float pos[V * 3], out[V * 3], w[V * 2];
    static uint8_t idx[V * 2];
    const float radius = 0.5f;
    for (int r = 0; r < RINGS; ++r) {
        float x = 2.0f * (float)r / (float)(RINGS - 1);
        float w1 = fminf(fmaxf(x - 0.5f, 0.0f), 1.0f);
        for (int k = 0; k < SEG; ++k) {
            int v = r * SEG + k;
            float th = 6.2831853f * (float)k / (float)SEG;
            pos[v * 3] = x, pos[v * 3 + 1] = radius * cosf(th), pos[v * 3 + 2] = radius * sinf(th);
            idx[v * 2] = 0, idx[v * 2 + 1] = 1, w[v * 2] = 1.0f - w1, w[v * 2 + 1] = w1;
        }
    }
    sinew_skeleton *sk = flat_skeleton(2);
    int joints[] = {0, 1};
    sinew_skin_desc d = {2, joints, NULL, NULL, V, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *skin = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    if (!skin) return NAN;
    /* palette[1] = T(1,0,0) R_x(twist) T(-1,0,0): the twist about joint 1 */
    sinew_mat4 to = trs(1, 0, 0, sinew_vec3_make(1, 0, 0), twist, 1, 1, 1);
    sinew_mat4 back = trs(-1, 0, 0, sinew_vec3_make(1, 0, 0), 0, 1, 1, 1);
    sinew_mat4 palette[2] = {sinew_mat4_identity(), sinew_mat4_mul(&to, &back)};
    sinew_dq_transform dq[2];
    sinew_dq_palette(palette, 2, dq, NULL);
    sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq, .palette_count = 2,
                          .positions = pos, .out_positions = out};
    if (dqs)
        sinew_skin_dqs(&job, NULL);
    else
        sinew_skin_lbs(&job, NULL);
    float mean = 0.0f;
    int mid = RINGS / 2;
    for (int k = 0; k < SEG; ++k) {
        const float *p = &out[(mid * SEG + k) * 3];
        CHECK_NEAR(p[0], 1.0f, 1e-5f, "the middle ring stays at x = 1");
        mean += sqrtf(p[1] * p[1] + p[2] * p[2]) / (float)SEG;
    }
    sinew_skin_free(skin);
    sinew_skeleton_free(sk);
    return mean / radius;
}

static void test_candy_wrapper(void)
{
    const float pi = 3.14159265f;
    float lbs180 = twisted_radius(pi, false), dqs180 = twisted_radius(pi, true);
    float lbs90 = twisted_radius(0.5f * pi, false), dqs90 = twisted_radius(0.5f * pi, true);
    printf("candy wrapper: radius ratio at the joint, 180 degree twist: LBS %.4f, DQS %.4f; 90 degrees: LBS %.4f, "
           "DQS %.4f\n",
           (double)lbs180, (double)dqs180, (double)lbs90, (double)dqs90);
    CHECK(lbs180 < 1e-3f, "LBS collapses the cross-section under a 180 degree twist (ratio %g)", (double)lbs180);
    CHECK_NEAR(dqs180, 1.0f, 1e-4f, "DQS keeps the cross-section under a 180 degree twist");
    /* LBS at half weights: |p + R p| / 2 = r cos(twist / 2) */
    CHECK_NEAR(lbs90, cosf(0.25f * pi), 1e-4f, "LBS ratio at 90 degrees is cos(45 degrees)");
    CHECK_NEAR(dqs90, 1.0f, 1e-4f, "DQS keeps the cross-section at 90 degrees");
}

/* One influence: DQS reproduces the palette matrix exactly, whatever it
 * holds: rotation, non-uniform scale, shear, a mirror. */
static void test_dqs_single_influence(void)
{
    sinew_skeleton *sk = flat_skeleton(1);
    int joints[] = {0};
    uint8_t idx[4] = {0, 0, 0, 0};
    float w[4] = {1, 1, 1, 1};
    sinew_skin_desc d = {1, joints, NULL, NULL, 4, 1, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *skin = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    if (!skin) return;
    float pos[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.3f, -0.7f, 2.0f};
    float nrm[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.6f, 0.0f, 0.8f};
    sinew_mat4 cases[4];
    cases[0] = trs(1, 2, 3, sinew_vec3_make(1, 2, 0.5f), 2.5f, 1, 1, 1);
    cases[1] = trs(-1, 0, 3, sinew_vec3_make(0, 1, 0), 0.8f, 0.5f, 2.0f, 3.0f);
    cases[2] = cases[1];
    cases[2].m[4] += 0.7f; /* shear */
    cases[3] = trs(0, 1, 0, sinew_vec3_make(1, 0, 1), 1.0f, -1.5f, 1.0f, 1.0f); /* mirror */
    for (int c = 0; c < 4; ++c) {
        sinew_dq_transform dq;
        float a[12], b[12], na[12], nb[12];
        CHECK(sinew_dq_palette(&cases[c], 1, &dq, NULL) == SINEW_OK, "dq of case %d", c);
        sinew_skin_job job = {.skin = skin, .palette = &cases[c], .dq_palette = &dq, .palette_count = 1,
                              .normal_mode = SINEW_NORMALS_INVERSE_TRANSPOSE,
                              .positions = pos, .normals = nrm, .out_positions = a, .out_normals = na};
        sinew_skin_lbs(&job, NULL);
        job.out_positions = b, job.out_normals = nb;
        sinew_skin_dqs(&job, NULL);
        float dp = 0.0f, dn = 0.0f;
        for (int i = 0; i < 12; ++i) dp = fmaxf(dp, fabsf(a[i] - b[i])), dn = fmaxf(dn, fabsf(na[i] - nb[i]));
        CHECK(dp < 1e-5f, "case %d: DQS with one influence equals the matrix (off by %g)", c, (double)dp);
        CHECK(dn < 1e-5f, "case %d: DQS normals equal the inverse transpose (off by %g)", c, (double)dn);
    }
    sinew_skin_free(skin);
    sinew_skeleton_free(sk);
}

/* Two influences holding q and -q (the same rotation): without the sign
 * alignment the blend would cancel. */
static void test_antipodal(void)
{
    sinew_skeleton *sk = flat_skeleton(2);
    int joints[] = {0, 1};
    uint8_t idx[2] = {0, 1};
    float w[2] = {0.5f, 0.5f};
    sinew_skin_desc d = {2, joints, NULL, NULL, 1, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *skin = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    if (!skin) return;
    sinew_mat4 m = trs(0.5f, -1, 2, sinew_vec3_make(0.2f, 1, 0.3f), 2.0f, 1, 1, 1);
    sinew_dq_transform dq[2];
    sinew_dq_palette(&m, 1, &dq[0], NULL);
    dq[1] = dq[0];
    dq[1].real = (sinew_quat){-dq[0].real.x, -dq[0].real.y, -dq[0].real.z, -dq[0].real.w};
    dq[1].dual = (sinew_quat){-dq[0].dual.x, -dq[0].dual.y, -dq[0].dual.z, -dq[0].dual.w};
    float p[3] = {1, 2, 3}, out[3];
    sinew_skin_job job = {.skin = skin, .dq_palette = dq, .palette_count = 2, .positions = p, .out_positions = out};
    CHECK(sinew_skin_dqs(&job, NULL) == SINEW_OK, "dqs");
    sinew_vec3 e = sinew_mat4_transform_point(&m, sinew_vec3_make(1, 2, 3));
    CHECK(fabsf(out[0] - e.x) < 1e-5f && fabsf(out[1] - e.y) < 1e-5f && fabsf(out[2] - e.z) < 1e-5f,
          "q and -q blend to q: (%g %g %g) vs (%g %g %g)", (double)out[0], (double)out[1], (double)out[2],
          (double)e.x, (double)e.y, (double)e.z);
    sinew_skin_free(skin);
    sinew_skeleton_free(sk);
}

/* The demo character in a walk pose: ranges, strides, aliasing, uniform
 * scale decisions and NaN poses. */
static void test_streams(void)
{
    sinew_asset *a = sinew_demo_create(NULL, NULL);
    if (!a) return;
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *m = &a->meshes[0];
    const sinew_skin *skin = m->skin;
    int n = m->vertex_count, nj = sk->joint_count;
    sinew_transform local[64];
    sinew_mat4 model[64], palette[64];
    sinew_dq_transform dq[64];
    sinew_clip_sample(sinew_asset_find_clip(a, "walk"), sk, 0.3f, 0, NULL, local, nj, NULL);
    sinew_local_to_model(sk, local, NULL, model, nj, NULL);
    sinew_skin_palette(skin, model, nj, NULL, palette, 64, NULL);
    sinew_dq_palette(palette, skin->joint_count, dq, NULL);
    CHECK(sinew_palette_is_conformal(palette, skin->joint_count, 1e-4f), "walk palette has no non-uniform scale");

    size_t fl = sizeof(float);
    float *ref_p = malloc(fl * 3 * (size_t)n), *ref_n = malloc(fl * 3 * (size_t)n), *ref_t = malloc(fl * 4 * (size_t)n);
    float *inter = malloc(fl * 10 * (size_t)n), *outi = malloc(fl * 12 * (size_t)n);
    float *it_n = malloc(fl * 3 * (size_t)n);
    if (!ref_p || !ref_n || !ref_t || !inter || !outi || !it_n) return;
    for (int dqs = 0; dqs < 2; ++dqs) {
        sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq, .palette_count = skin->joint_count,
                              .positions = m->positions, .normals = m->normals, .tangents = m->tangents,
                              .out_positions = ref_p, .out_normals = ref_n, .out_tangents = ref_t};
        sinew_result (*run)(const sinew_skin_job *, sinew_error *) = dqs ? sinew_skin_dqs : sinew_skin_lbs;
        CHECK(run(&job, NULL) == SINEW_OK, "whole mesh");
        bool unit = true, w_kept = true;
        for (int v = 0; v < n; ++v) {
            float ln = sqrtf(ref_n[v * 3] * ref_n[v * 3] + ref_n[v * 3 + 1] * ref_n[v * 3 + 1] +
                             ref_n[v * 3 + 2] * ref_n[v * 3 + 2]);
            unit = unit && fabsf(ln - 1.0f) < 1e-5f;
            w_kept = w_kept && ref_t[v * 4 + 3] == m->tangents[v * 4 + 3];
        }
        CHECK(unit, "dqs=%d: unit normals", dqs);
        CHECK(w_kept, "dqs=%d: tangent w kept", dqs);

        /* interleaved input (pos, nrm, tan = 10 floats), interleaved output
         * with padding (12 floats), in three ranges */
        for (int v = 0; v < n; ++v) {
            memcpy(&inter[v * 10], &m->positions[v * 3], 3 * fl);
            memcpy(&inter[v * 10 + 3], &m->normals[v * 3], 3 * fl);
            memcpy(&inter[v * 10 + 6], &m->tangents[v * 4], 4 * fl);
        }
        int cuts[4] = {0, n / 3, n / 3 + 1, n};
        for (int r = 0; r < 3; ++r) {
            sinew_skin_job part = {.skin = skin, .palette = palette, .dq_palette = dq,
                                   .palette_count = skin->joint_count, .first_vertex = cuts[r],
                                   .vertex_count = cuts[r + 1] - cuts[r],
                                   .positions = inter, .positions_stride = 40,
                                   .normals = inter + 3, .normals_stride = 40,
                                   .tangents = inter + 6, .tangents_stride = 40,
                                   .out_positions = outi, .out_positions_stride = 48,
                                   .out_normals = outi + 4, .out_normals_stride = 48,
                                   .out_tangents = outi + 8, .out_tangents_stride = 48};
            CHECK(run(&part, NULL) == SINEW_OK, "range %d", r);
        }
        bool same = true;
        for (int v = 0; v < n; ++v)
            same = same && memcmp(&outi[v * 12], &ref_p[v * 3], 3 * fl) == 0 &&
                   memcmp(&outi[v * 12 + 4], &ref_n[v * 3], 3 * fl) == 0 &&
                   memcmp(&outi[v * 12 + 8], &ref_t[v * 4], 4 * fl) == 0;
        CHECK(same, "dqs=%d: strided ranges equal one packed call bit for bit", dqs);

        /* in place: outputs alias inputs */
        sinew_skin_job inplace = {.skin = skin, .palette = palette, .dq_palette = dq,
                                  .palette_count = skin->joint_count, .positions = inter, .positions_stride = 40,
                                  .normals = inter + 3, .normals_stride = 40, .out_positions = inter,
                                  .out_positions_stride = 40, .out_normals = inter + 3, .out_normals_stride = 40};
        CHECK(run(&inplace, NULL) == SINEW_OK, "in place");
        same = true;
        for (int v = 0; v < n; ++v)
            same = same && memcmp(&inter[v * 10], &ref_p[v * 3], 3 * fl) == 0 &&
                   memcmp(&inter[v * 10 + 3], &ref_n[v * 3], 3 * fl) == 0;
        CHECK(same, "dqs=%d: in-place skinning equals out-of-place", dqs);

        /* Under conformal palettes the cheap normals equal the inverse
         * transpose where one matrix acts. Where rotations blend, M = R diag(c,
         * c, 1) (c = cos of half the angle between them) is no similarity, and
         * the two differ: report by how much. */
        sinew_skin_job it = job;
        it.normal_mode = SINEW_NORMALS_INVERSE_TRANSPOSE;
        it.out_normals = it_n;
        run(&it, NULL);
        float single = 0.0f, blended = 0.0f;
        for (int v = 0; v < n; ++v) {
            int jj[4];
            float ww[4];
            /* 2 asin(|a - b| / 2): accurate near 0, where acos(dot) is not */
            float dx = it_n[v * 3] - ref_n[v * 3], dy = it_n[v * 3 + 1] - ref_n[v * 3 + 1];
            float dz = it_n[v * 3 + 2] - ref_n[v * 3 + 2];
            float angle = 2.0f * asinf(fminf(0.5f * sqrtf(dx * dx + dy * dy + dz * dz), 1.0f)) * 57.29578f;
            if (sinew_skin_vertex(skin, v, jj, ww) == 1)
                single = fmaxf(single, angle);
            else
                blended = fmaxf(blended, angle);
        }
        printf("%s walk pose: cheap normals deviate from the inverse transpose by up to %.3g degrees at one "
               "influence, %.3g degrees where joints blend\n",
               dqs ? "DQS" : "LBS", (double)single, (double)blended);
        CHECK(single < 1e-3f, "dqs=%d: cheap and exact normals agree at single-influence vertices (%g degrees)", dqs,
              (double)single);
        if (dqs)
            CHECK(blended < 1e-3f, "DQS blends rigid transforms: no deviation (%g degrees)", (double)blended);
        else
            CHECK(blended < 10.0f, "LBS cheap normals stay within 10 degrees at blends (%g)", (double)blended);
    }

    /* a NaN in the pose: no crash, NaN only where that joint has weight */
    local[8].rotation.x = NAN; /* forearm_l */
    sinew_local_to_model(sk, local, NULL, model, nj, NULL);
    sinew_skin_palette(skin, model, nj, NULL, palette, 64, NULL);
    CHECK(sinew_dq_palette(palette, skin->joint_count, dq, NULL) == SINEW_ERROR_SINGULAR,
          "dq palette reports the NaN matrices");
    for (int dqs = 0; dqs < 2; ++dqs) {
        sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq, .palette_count = skin->joint_count,
                              .positions = m->positions, .normals = m->normals, .out_positions = ref_p,
                              .out_normals = ref_n};
        CHECK((dqs ? sinew_skin_dqs(&job, NULL) : sinew_skin_lbs(&job, NULL)) == SINEW_OK, "NaN pose skins");
        int finite = 0;
        for (int v = 0; v < n; ++v) finite += isfinite(ref_p[v * 3]);
        CHECK(finite > n / 2, "dqs=%d: vertices away from the NaN joint stay finite (%d of %d)", dqs, finite, n);
    }
    free(ref_p), free(ref_n), free(ref_t), free(inter), free(outi), free(it_n);
    sinew_asset_free(a);
}

/* sinew_palette_is_conformal takes four matrices at a time (SSE2) and the
 * rest one by one: the answer for a palette is the AND of the answers for
 * its matrices one at a time (a palette of one takes the one-by-one path),
 * whichever matrix holds the defect: a scale off by more or less than the
 * tolerance, a shear, a NaN, an infinity; and clear cases come out right. */
static void test_conformal_check(void)
{
    enum { N = 13, TRIALS = 400 };
    unsigned seed = 5;
    int checked = 0, mismatched = 0, wrong = 0;
    for (int trial = 0; trial < TRIALS; ++trial) {
        sinew_mat4 p[N];
        for (int j = 0; j < N; ++j) {
            float s = 0.5f + 2.0f * check_rand(&seed);
            sinew_vec3 axis = sinew_vec3_make(check_rand(&seed) - 0.5f, check_rand(&seed) - 0.5f, 0.3f);
            p[j] = trs(check_rand(&seed), 2, 3, axis, 6.0f * check_rand(&seed), s, s, s);
        }
        int k = trial % N, kind = trial / N % 6;
        float e = 1e-4f * (0.5f + check_rand(&seed)); /* around the tolerance */
        switch (kind) {
        case 0: break;                                                      /* conformal */
        case 1: for (int r = 0; r < 3; ++r) p[k].m[4 + r] *= 1.0f + e; break; /* column 1 longer */
        case 2: for (int r = 0; r < 3; ++r) p[k].m[8 + r] *= 2.0f; break;     /* clearly not */
        case 3: p[k].m[4] += e * 3.0f * p[k].m[0]; break;                    /* a shear near the tolerance */
        case 4: p[k].m[9] = NAN; break;
        case 5: p[k].m[2] = INFINITY; break;
        }
        bool each = true;
        for (int j = 0; j < N; ++j) each &= sinew_palette_is_conformal(&p[j], 1, 1e-4f);
        bool all = sinew_palette_is_conformal(p, N, 1e-4f);
        ++checked;
        mismatched += all != each;
        wrong += (kind == 0 && !all) || ((kind == 2 || kind >= 4) && all); /* 1 and 3: near the tolerance */
    }
    CHECK(mismatched == 0, "conformal check: four at a time agrees with one at a time in %d of %d palettes",
          checked - mismatched, checked);
    CHECK(wrong == 0, "conformal check: %d clear cases (conformal, twice as long, NaN, infinite) wrong", wrong);
}

int main(void)
{
    test_normals_non_uniform_scale();
    test_candy_wrapper();
    test_dqs_single_influence();
    test_antipodal();
    test_streams();
    test_conformal_check();
    return check_finish("test_skinning");
}
