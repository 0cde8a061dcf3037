/* SPDX-License-Identifier: MIT */
/* Skins: bind pose round trip, inverse binds, weight validation and
 * normalization, joint mapping, the palette, job validation. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* Skins the demo mesh in a pose; returns the largest distance from the
 * bind-pose positions. */
static float displacement(const sinew_asset *a, const sinew_skin *skin, const sinew_transform *local, bool dqs)
{
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *m = &a->meshes[0];
    sinew_mat4 model[64], palette[64];
    sinew_dq_transform dq[64];
    float *out = malloc(sizeof(float) * 3 * (size_t)m->vertex_count);
    if (!out) return INFINITY;
    sinew_local_to_model(sk, local, NULL, model, sk->joint_count, NULL);
    sinew_skin_palette(skin, model, sk->joint_count, NULL, palette, 64, NULL);
    sinew_dq_palette(palette, skin->joint_count, dq, NULL);
    sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq, .palette_count = skin->joint_count,
                          .positions = m->positions, .out_positions = out};
    sinew_error err;
    sinew_result r = dqs ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err);
    CHECK(r == SINEW_OK, "skinning: %s", err.description);
    float worst = 0.0f;
    for (int i = 0; i < m->vertex_count * 3; ++i) worst = fmaxf(worst, fabsf(out[i] - m->positions[i]));
    free(out);
    return worst;
}

static void test_bind_pose(void)
{
    sinew_asset *a = sinew_demo_create(NULL, NULL);
    CHECK(a != NULL, "demo");
    if (!a) return;
    const sinew_skeleton *sk = a->skeleton;
    sinew_transform rest[64];
    sinew_rest_pose(sk, rest, sk->joint_count, NULL);
    const sinew_skin *skin = a->meshes[0].skin;
    float lbs = displacement(a, skin, rest, false), dqs = displacement(a, skin, rest, true);
    printf("rest pose with inverse binds: LBS moves the mesh by %.3g m, DQS by %.3g m\n", (double)lbs, (double)dqs);
    CHECK(lbs <= 1e-6f, "rest pose with correct inverse binds leaves the mesh in place (LBS moved %g m)", (double)lbs);
    CHECK(dqs <= 1e-6f, "rest pose with correct inverse binds leaves the mesh in place (DQS moved %g m)", (double)dqs);

    /* the same skin without inverse binds (identity) moves the mesh */
    sinew_skin_desc d = {skin->joint_count, NULL, (const char *const *)sk->names, NULL, skin->vertex_count,
                         skin->influence_count, skin->index_type, skin->indices, skin->weight_type, skin->weights,
                         skin->last_weight_implied};
    sinew_skin *no_ibm = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    CHECK(no_ibm != NULL, "skin without inverse binds");
    if (no_ibm) {
        float moved = displacement(a, no_ibm, rest, false);
        printf("rest pose without inverse binds: LBS moves the mesh by %.3g m\n", (double)moved);
        CHECK(moved > 0.5f, "leaving out the inverse binds moves the mesh (by %g m)", (double)moved);
    }
    sinew_skin_free(no_ibm);
    sinew_asset_free(a);
}

static sinew_skeleton *two_joints(void)
{
    const char *names[] = {"a", "b"};
    int parents[] = {-1, 0};
    sinew_skeleton_desc d = {2, parents, names, NULL};
    return sinew_skeleton_create(&d, NULL, NULL, NULL);
}

static void test_normalization(void)
{
    sinew_skeleton *sk = two_joints();
    if (!sk) return;
    int joints[] = {0, 1};
    check_log log = {0};
    sinew_options opt = {.logger = {check_log_fn, &log}};
    sinew_skin_report rep;
    sinew_error err;

    /* float: (0.5, 0.3) -> (0.625, 0.375); (1/3 each, summing to 1 within
     * float rounding) kept as given; (0.2, 0.2) is the worst */
    uint8_t idx[] = {0, 1, 0, 1, 1, 0};
    float third = 1.0f / 3.0f;
    float w[] = {0.5f, 0.3f, third, 1.0f - third, 0.2f, 0.2f};
    sinew_skin_desc d = {2, joints, NULL, NULL, 3, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *s = sinew_skin_create(sk, &d, &opt, &rep, &err);
    CHECK(s != NULL, "created: %s", err.description);
    if (s) {
        const float *sw = s->weights;
        CHECK_NEAR(sw[0], 0.625f, 1e-7f, "normalized weight 0");
        CHECK_NEAR(sw[1], 0.375f, 1e-7f, "normalized weight 1");
        CHECK(sw[2] == w[2] && sw[3] == w[3], "weights summing to 1 are kept bit for bit");
        CHECK_NEAR(sw[4], 0.5f, 1e-7f, "normalized weight 4");
        CHECK(rep.normalized_vertices == 2 && rep.worst_vertex == 2, "report: %d normalized, worst %d",
              rep.normalized_vertices, rep.worst_vertex);
        CHECK_NEAR(rep.worst_sum, 0.4f, 1e-6f, "report: worst sum");
        CHECK(strstr(log.last, "2 of 3 vertices had float weights not summing to 1") != NULL &&
                  strstr(log.last, "vertex 2") != NULL,
              "normalization reported: %s", log.last);
        CHECK(w[0] == 0.5f, "the caller's weights are not modified");
    }
    sinew_skin_free(s);

    /* unorm8: (100, 100) sums to 200: rescaled to sum exactly 255 */
    uint8_t w8[] = {100, 100, 200, 55};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_UNORM8, w8, false};
    s = sinew_skin_create(sk, &d, &opt, &rep, &err);
    CHECK(s != NULL, "unorm8 created: %s", err.description);
    if (s) {
        const uint8_t *sw = s->weights;
        CHECK(sw[0] + sw[1] == 255, "unorm8 sum is exactly 255 (%d + %d)", sw[0], sw[1]);
        CHECK(abs(sw[0] - sw[1]) <= 1, "unorm8 halves stay halves");
        CHECK(sw[2] == 200 && sw[3] == 55, "an exact unorm8 vertex is kept");
        CHECK(rep.normalized_vertices == 1, "one unorm8 vertex normalized");
    }
    sinew_skin_free(s);
    uint16_t w16[] = {30000, 30000};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 1, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_UNORM16, w16, false};
    s = sinew_skin_create(sk, &d, NULL, &rep, &err);
    CHECK(s != NULL, "unorm16 created");
    if (s) {
        const uint16_t *sw = s->weights;
        CHECK(sw[0] + sw[1] == 65535, "unorm16 sum is exactly 65535");
        int jj[2];
        float ww[2];
        CHECK(sinew_skin_vertex(s, 0, jj, ww) == 2, "two influences");
        CHECK_NEAR(ww[0] + ww[1], 1.0f, 1e-6f, "decoded unorm16 weights sum to 1");
    }
    sinew_skin_free(s);
    sinew_skeleton_free(sk);
}

/* Compact streams: the last weight of each vertex implied. */
static void test_implied_last_weight(void)
{
    sinew_skeleton *sk = two_joints();
    if (!sk) return;
    int joints[] = {0, 1};
    check_log log = {0};
    sinew_options opt = {.logger = {check_log_fn, &log}};
    sinew_skin_report rep;
    sinew_error err;
    int jj[3];
    float ww[3];

    /* unorm8, three influences, two stored: (100, 50) leaves 105; (200,
     * 100) reaches past 255: scaled to (170, 85), the last 0, reported */
    uint8_t idx[] = {0, 1, 1, 1, 0, 1};
    uint8_t w8[] = {100, 50, 200, 100};
    sinew_skin_desc d = {2, joints, NULL, NULL, 2, 3, SINEW_INDEX_U8, idx, SINEW_WEIGHT_UNORM8, w8, true};
    sinew_skin *s = sinew_skin_create(sk, &d, &opt, &rep, &err);
    CHECK(s != NULL, "implied unorm8: %s", err.description);
    if (s) {
        const uint8_t *sw = s->weights;
        CHECK(s->last_weight_implied && sw[0] == 100 && sw[1] == 50, "the compact stream is kept as given");
        CHECK(sw[2] + sw[3] == 255 && abs(sw[2] - 2 * sw[3]) <= 1, "past 255: scaled to (%d, %d)", sw[2], sw[3]);
        CHECK(rep.normalized_vertices == 1 && rep.worst_vertex == 1, "report: %d normalized, worst %d",
              rep.normalized_vertices, rep.worst_vertex);
        CHECK(strstr(log.last, "1 of 2 vertices") != NULL, "repair reported: %s", log.last);
        CHECK(sinew_skin_vertex(s, 0, jj, ww) == 3, "three influences");
        CHECK_NEAR(ww[2], 105.0f / 255.0f, 1e-7f, "implied weight");
        CHECK(jj[2] == 1, "the implied influence's joint");
        CHECK(sinew_skin_vertex(s, 1, jj, ww) == 2 && ww[2] == 0.0f, "nothing left for the implied weight");
        uint8_t si[3], sw3[3];
        sinew_skin_vertex_stored(s, 0, si, sw3);
        CHECK(si[0] == 0 && si[1] == 1 && si[2] == 1 && sw3[0] == 100 && sw3[1] == 50 && sw3[2] == 105,
              "stored layout written out: (%d, %d, %d)", sw3[0], sw3[1], sw3[2]);
    }
    sinew_skin_free(s);

    /* unorm16 and float */
    uint16_t w16[] = {65535, 0};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_UNORM16, w16, true};
    s = sinew_skin_create(sk, &d, NULL, &rep, &err);
    CHECK(s != NULL && rep.normalized_vertices == 0, "implied unorm16: %s", err.description);
    if (s) {
        CHECK(sinew_skin_vertex(s, 0, jj, ww) == 1 && ww[0] == 1.0f && ww[1] == 0.0f, "all given: implied 0");
        CHECK(sinew_skin_vertex(s, 1, jj, ww) == 1 && ww[1] == 1.0f, "none given: implied 1");
    }
    sinew_skin_free(s);
    float wf[] = {0.25f, 1.5f};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, wf, true};
    s = sinew_skin_create(sk, &d, NULL, &rep, &err);
    CHECK(s != NULL, "implied float: %s", err.description);
    if (s) {
        sinew_skin_vertex(s, 0, jj, ww);
        CHECK(ww[0] == 0.25f && ww[1] == 0.75f, "implied float weight (%g, %g)", (double)ww[0], (double)ww[1]);
        sinew_skin_vertex(s, 1, jj, ww);
        CHECK(ww[0] == 1.0f && ww[1] == 0.0f && rep.normalized_vertices == 1 && rep.worst_sum == 1.5f,
              "float past 1: (%g, %g), worst sum %g", (double)ww[0], (double)ww[1], (double)rep.worst_sum);
    }
    sinew_skin_free(s);

    /* one influence, nothing stored: no weights needed */
    d = (sinew_skin_desc){2, joints, NULL, NULL, 3, 1, SINEW_INDEX_U8, idx, SINEW_WEIGHT_UNORM8, NULL, true};
    s = sinew_skin_create(sk, &d, NULL, NULL, &err);
    CHECK(s != NULL, "one implied influence: %s", err.description);
    if (s) CHECK(sinew_skin_vertex(s, 2, jj, ww) == 1 && ww[0] == 1.0f && jj[0] == 1, "weight 1 on its joint");
    sinew_skin_free(s);
    d.last_weight_implied = false;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "weights required when none is implied");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "weights are required");
    CHECK(strncmp(err.description, "sinew_skin_create: ", 19) == 0, "the caller named: %s", err.description);

    /* bad given weights are still refused, by vertex */
    float bad[] = {0.5f, -0.25f};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, bad, true};
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "negative given weight");
    CHECK_ERROR(err, SINEW_ERROR_BAD_WEIGHT, "vertex 1");
    /* an implied influence with weight 0 may name any joint; one that weighs must be in range */
    uint8_t far_idx[] = {0, 7, 0, 7};
    float wz[] = {1.0f, 0.5f};
    d = (sinew_skin_desc){2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U8, far_idx, SINEW_WEIGHT_F32, wz, true};
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "implied influence on a joint out of range");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "vertex 1: influence 1");
    sinew_skeleton_free(sk);
}

static void test_errors(void)
{
    sinew_skeleton *sk = two_joints();
    if (!sk) return;
    int joints[] = {0, 1};
    sinew_error err;
    uint16_t idx[] = {0, 1, 0, 5};
    float w[] = {0.5f, 0.5f, 0.5f, 0.5f};
    sinew_skin_desc d = {2, joints, NULL, NULL, 2, 2, SINEW_INDEX_U16, idx, SINEW_WEIGHT_F32, w, false};
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "index out of range refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "vertex 1: influence 1 uses skin joint 5, the skin has 2 joints");
    /* the same index with weight 0 is harmless: set to 0 and reported */
    w[3] = 0.0f;
    w[2] = 1.0f;
    sinew_skin_report rep;
    sinew_skin *s = sinew_skin_create(sk, &d, NULL, &rep, &err);
    CHECK(s != NULL, "zero-weight out-of-range index accepted: %s", err.description);
    if (s) CHECK(((const uint16_t *)s->indices)[3] == 0 && rep.cleared_indices == 1, "cleared and counted");
    sinew_skin_free(s);
    w[2] = NAN;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "NaN weight refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_WEIGHT, "vertex 1: influence 0 weight is NaN");
    w[2] = -0.25f;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "negative weight refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_WEIGHT, "vertex 1: influence 0 weight -0.25 is negative");
    w[2] = 0.0f;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "all-zero weights refused");
    CHECK_ERROR(err, SINEW_ERROR_ZERO_WEIGHT, "vertex 1: all 2 weights are 0");
    w[2] = 1.0f;

    int bad_joints[] = {0, 9};
    d.joints = bad_joints;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "skin joint outside the skeleton refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "skin joint 1: skeleton joint 9");
    const char *names[] = {"b", "zz"};
    d.joints = NULL;
    d.joint_names = names;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "unknown joint name refused");
    CHECK_ERROR(err, SINEW_ERROR_UNKNOWN_JOINT, "skin joint 1: no joint named \"zz\"");
    names[1] = "a";
    s = sinew_skin_create(sk, &d, NULL, NULL, &err);
    CHECK(s && s->joints[0] == 1 && s->joints[1] == 0, "joints matched by name");
    sinew_skin_free(s);
    d.joint_names = NULL;
    d.joints = joints;

    sinew_mat4 ibm[2] = {sinew_mat4_identity(), sinew_mat4_identity()};
    ibm[1].m[13] = INFINITY;
    d.inverse_bind = ibm;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "infinite inverse bind refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "skin joint 1: inverse bind");
    d.inverse_bind = NULL;
    d.influence_count = 9;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "9 influences refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "influence_count 9");
    d.influence_count = 2;
    d.weights = NULL;
    CHECK(sinew_skin_create(sk, &d, NULL, NULL, &err) == NULL, "missing weights refused");
    sinew_skeleton_free(sk);
}

static void test_eight_influences(void)
{
    /* 8 influences per vertex, u16 indices, all used */
    int parents[10];
    for (int i = 0; i < 10; ++i) parents[i] = i - 1;
    sinew_skeleton_desc sd = {10, parents, NULL, NULL};
    sinew_skeleton *sk = sinew_skeleton_create(&sd, NULL, NULL, NULL);
    int joints[10];
    for (int i = 0; i < 10; ++i) joints[i] = i;
    uint16_t idx[8];
    float w[8];
    for (int i = 0; i < 8; ++i) idx[i] = (uint16_t)(i + 2), w[i] = 0.125f;
    sinew_skin_desc d = {10, joints, NULL, NULL, 1, 8, SINEW_INDEX_U16, idx, SINEW_WEIGHT_F32, w, false};
    sinew_skin *s = sinew_skin_create(sk, &d, NULL, NULL, NULL);
    CHECK(s != NULL, "8 influences");
    if (s && sk) {
        sinew_mat4 palette[10];
        for (int i = 0; i < 10; ++i) {
            palette[i] = sinew_mat4_identity();
            palette[i].m[12] = (float)i; /* joint i translates by i in x */
        }
        float p[3] = {0, 0, 0}, out[3];
        sinew_skin_job job = {.skin = s, .palette = palette, .palette_count = 10, .positions = p,
                              .out_positions = out};
        CHECK(sinew_skin_lbs(&job, NULL) == SINEW_OK, "lbs");
        CHECK_NEAR(out[0], (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9) / 8.0f, 1e-5f, "all 8 influences count");
    }
    sinew_skin_free(s);
    sinew_skeleton_free(sk);
}

/* sinew_skin_vertex_order: vertices by the set of weighted joints (a joint
 * listed twice counts once, zero weights not at all, the order of an
 * influence list does not matter): each set's whole blocks of 8 first, sets
 * ascending, then the rest, each block begun with the first left in that
 * order and filled with the vertex adding the fewest joints to it (the
 * earliest among equals); NULL arguments refused. */
static void test_vertex_order(void)
{
    int parents[8];
    for (int i = 0; i < 8; ++i) parents[i] = i - 1;
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){8, parents, NULL, NULL}, NULL, NULL, NULL);
    int joints[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    /* 3 influences per vertex; expected sets in comments */
    enum { V = 16 };
    uint8_t idx[V * 3] = {5, 2, 0, /* {2, 5} */
                          3, 0, 0, /* {3} */
                          2, 5, 7, /* {2, 5}: the 7 has weight 0 */
                          1, 1, 6, /* {1, 6}: 1 twice */
                          4, 0, 0, /* {0, 4} */
                          3, 3, 3, /* {3} */
                          2, 5, 0 /* {2, 5} */};
    float w[V * 3] = {0.5f, 0.5f, 0, 1, 0, 0, 0.3f, 0.7f, 0, 0.25f, 0.25f, 0.5f, 0.6f, 0.4f, 0,
                      0.2f, 0.3f, 0.5f, 0.9f, 0.1f, 0};
    for (int v = 7; v < V; ++v) idx[3 * v] = 7, w[3 * v] = 1; /* vertices 7 to 15: {7} */
    sinew_skin *s = sinew_skin_create(
        sk, &(sinew_skin_desc){8, joints, NULL, NULL, V, 3, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false}, NULL, NULL,
        NULL);
    CHECK(s != NULL, "vertex order: the skin is made");
    if (s) {
        /* sorted: {0,4} 4, {1,6} 3, {2,5} 0 2 6, {3} 1 5, {7} 7-15; {7}'s first 8 make a whole block; the
         * rest's block begins with 4, then takes 1 and 5 (one joint more, then none), 15 (one more), and 3,
         * 0, 2, 6 (two more each, then none) */
        int order[V], want[V] = {7, 8, 9, 10, 11, 12, 13, 14, 4, 1, 5, 15, 3, 0, 2, 6};
        sinew_error err = {0};
        CHECK(sinew_skin_vertex_order(s, order, &err) == SINEW_OK, "vertex order: %s", err.description);
        bool same = true;
        char got[128] = "";
        for (int i = 0; i < V; ++i) {
            same &= order[i] == want[i];
            snprintf(got + strlen(got), sizeof got - strlen(got), " %d", order[i]);
        }
        CHECK(same, "vertex order: whole blocks of a set first, then the rest by fewest joints added (got%s)", got);
        /* the skin in that order keeps it: its order is the identity */
        uint8_t idx2[V * 3];
        float w2[V * 3];
        for (int i = 0; i < V; ++i)
            for (int k = 0; k < 3; ++k) idx2[3 * i + k] = idx[3 * order[i] + k], w2[3 * i + k] = w[3 * order[i] + k];
        sinew_skin *ordered = sinew_skin_create(
            sk, &(sinew_skin_desc){8, joints, NULL, NULL, V, 3, SINEW_INDEX_U8, idx2, SINEW_WEIGHT_F32, w2, false},
            NULL, NULL, NULL);
        bool identity = ordered && sinew_skin_vertex_order(ordered, order, &err) == SINEW_OK;
        for (int i = 0; identity && i < V; ++i) identity = order[i] == i;
        CHECK(identity, "vertex order: an ordered skin's order is the identity");
        sinew_skin_free(ordered);
        CHECK(sinew_skin_vertex_order(s, NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "order"),
              "vertex order: NULL order refused (%s)", err.description);
    }
    sinew_error err = {0};
    int order[1];
    CHECK(sinew_skin_vertex_order(NULL, order, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "skin"),
          "vertex order: NULL skin refused (%s)", err.description);
    sinew_skin_free(s);
    sinew_skeleton_free(sk);
}

static void test_palette_and_jobs(void)
{
    sinew_skeleton *sk = two_joints();
    if (!sk) return;
    int joints[] = {1, 0};
    uint8_t idx[] = {0, 1};
    float w[] = {1.0f, 0.0f};
    sinew_transform t = sinew_transform_identity();
    t.translation = sinew_vec3_make(1, 2, 3);
    t.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 0.5f);
    sinew_mat4 ibm[2] = {sinew_mat4_from_transform(&t), sinew_mat4_identity()};
    sinew_skin_desc d = {2, joints, NULL, ibm, 1, 2, SINEW_INDEX_U8, idx, SINEW_WEIGHT_F32, w, false};
    sinew_error err;
    sinew_skin *s = sinew_skin_create(sk, &d, NULL, NULL, &err);
    CHECK(s != NULL, "created");
    if (!s) return;
    sinew_mat4 model[2], palette[2], left;
    t.translation = sinew_vec3_make(-4, 0, 1);
    model[0] = sinew_mat4_identity();
    model[1] = sinew_mat4_from_transform(&t);
    t.translation = sinew_vec3_make(0, 7, 0);
    t.scale = sinew_vec3_make(2, 2, 2);
    left = sinew_mat4_from_transform(&t);
    CHECK(sinew_skin_palette(s, model, 2, &left, palette, 2, &err) == SINEW_OK, "palette");
    sinew_mat4 e1 = sinew_mat4_mul(&model[1], &ibm[0]);
    sinew_mat4 expect = sinew_mat4_mul(&left, &e1);
    float diff = 0.0f;
    for (int i = 0; i < 16; ++i) diff = fmaxf(diff, fabsf(expect.m[i] - palette[0].m[i]));
    CHECK(diff < 1e-5f, "palette[0] = left * model[joints[0]] * inverse_bind[0] (off by %g)", (double)diff);
    CHECK(sinew_skin_palette(s, model, 1, NULL, palette, 2, &err) == SINEW_ERROR_BUFFER_TOO_SMALL,
          "model too short for the skin's joints");
    CHECK_ERROR(err, SINEW_ERROR_BUFFER_TOO_SMALL, "skin joint 0 uses skeleton joint 1");
    CHECK(strncmp(err.description, "sinew_skin_palette: ", 20) == 0, "the caller named: %s", err.description);
    CHECK(sinew_skin_palette(s, model, 2, NULL, palette, 1, &err) == SINEW_ERROR_BUFFER_TOO_SMALL, "palette short");

    float p[6] = {0}, o[6];
    sinew_skin_job ok = {.skin = s, .palette = palette, .palette_count = 2, .positions = p, .out_positions = o};
    CHECK(sinew_skin_job_validate(&ok, false, &err) == SINEW_OK, "valid job: %s", err.description);
    sinew_skin_job j = ok;
    j.palette_count = 1;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_BUFFER_TOO_SMALL, "short palette refused");
    CHECK(strncmp(err.description, "sinew_skin_lbs: ", 16) == 0, "the caller named: %s", err.description);
    CHECK(sinew_skin_job_validate(&j, false, &err) == SINEW_ERROR_BUFFER_TOO_SMALL &&
              strncmp(err.description, "sinew_skin_job_validate: palette_count 1", 40) == 0,
          "validated directly, the sentence starts with sinew_skin_job_validate: %s", err.description);
    j = ok;
    j.first_vertex = 1;
    j.vertex_count = 1;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_INVALID_ARGUMENT, "range past the end refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "outside the skin's 1 vertices");
    j = ok;
    j.positions_stride = 8;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_INVALID_ARGUMENT, "stride too small refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "positions stride is below 12");
    j = ok;
    j.out_positions_stride = 14;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_INVALID_ARGUMENT, "unaligned stride refused");
    j = ok;
    j.out_normals = o;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_INVALID_ARGUMENT, "output without input refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "normals has an output but no input");
    CHECK(sinew_skin_dqs(&ok, &err) == SINEW_ERROR_INVALID_ARGUMENT, "DQS without a dq palette refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "dq_palette is required");
    CHECK(strncmp(err.description, "sinew_skin_dqs: ", 16) == 0, "the caller named: %s", err.description);
    j = ok;
    j.normal_mode = (sinew_normal_mode)7;
    CHECK(sinew_skin_lbs(&j, &err) == SINEW_ERROR_INVALID_ARGUMENT, "unknown normal mode refused");
    CHECK(sinew_skin_lbs(NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT, "NULL job refused");
    sinew_skin_free(s);
    sinew_skeleton_free(sk);
}

/* Morph targets: base plus weighted deltas, zero weights free, in place. */
static void test_morph(void)
{
    float base[6] = {0, 0, 0, 1, 1, 1}, nrm[6] = {0, 0, 1, 0, 1, 0}, tan[8] = {1, 0, 0, -1, 0, 0, 1, 1};
    float dpos[12] = {1, 0, 0, 0, 2, 0, /* target 0 */ 0, 0, 4, 1, 1, 1};
    float dtan[12] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    sinew_morph m = {2, 2, dpos, NULL, dtan};
    float w[2] = {0.5f, 0.25f}, pos[6], n[6], t[8];
    sinew_error err;
    CHECK(sinew_morph_apply(&m, w, 2, base, nrm, tan, pos, n, t, &err) == SINEW_OK, "%s", err.description);
    CHECK(pos[0] == 0.5f && pos[2] == 1.0f && pos[3] == 1.25f && pos[4] == 2.25f, "positions: base + sum w d");
    CHECK(memcmp(n, nrm, sizeof n) == 0, "no normal deltas: normals copied");
    CHECK(t[1] == 0.5f && t[3] == -1.0f && t[4] == 0.25f && t[7] == 1.0f, "tangent xyz morphed, w kept");
    float inplace[6];
    memcpy(inplace, base, sizeof inplace);
    CHECK(sinew_morph_apply(&m, w, 2, inplace, NULL, NULL, inplace, NULL, NULL, &err) == SINEW_OK &&
              memcmp(inplace, pos, sizeof pos) == 0, "in place gives the same");
    CHECK(sinew_morph_apply(&m, w, 3, base, NULL, NULL, pos, NULL, NULL, &err) == SINEW_ERROR_SIZE_MISMATCH,
          "3 weights for 2 targets");
    CHECK_ERROR(err, SINEW_ERROR_SIZE_MISMATCH, "3 weights for 2 targets");
    CHECK(sinew_morph_apply(&m, w, 2, NULL, NULL, NULL, pos, NULL, NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "an output without its base");
}

int main(void)
{
    test_morph();
    test_bind_pose();
    test_normalization();
    test_implied_last_weight();
    test_errors();
    test_eight_influences();
    test_palette_and_jobs();
    test_vertex_order();
    return check_finish("test_skin");
}
