/* SPDX-License-Identifier: MIT */
/* Vectors, quaternions, matrices: products, inverse, TRS round trips,
 * decomposition with shear, slerp and nlerp. */
#include "sinew/sinew.h"
#include "check.h"

static float mat_max_diff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    float d = 0.0f;
    for (int i = 0; i < 16; ++i) d = fmaxf(d, fabsf(a->m[i] - b->m[i]));
    return d;
}

static sinew_quat random_quat(unsigned *s)
{
    sinew_vec3 axis = sinew_vec3_make(check_rand(s) - 0.5f, check_rand(s) - 0.5f, check_rand(s) - 0.5f);
    return sinew_quat_from_axis_angle(axis, (check_rand(s) * 2.0f - 1.0f) * 3.14159f);
}

static float quat_angle(sinew_quat a, sinew_quat b)
{
    float d = fabsf(sinew_quat_dot(a, b));
    return 2.0f * acosf(fminf(d, 1.0f));
}

static void test_quat_basics(void)
{
    unsigned s = 1;
    for (int i = 0; i < 200; ++i) {
        sinew_quat a = random_quat(&s), b = random_quat(&s);
        sinew_vec3 v = sinew_vec3_make(check_rand(&s), check_rand(&s), check_rand(&s));
        /* (a*b) v == a (b v) */
        sinew_vec3 r1 = sinew_quat_rotate(sinew_quat_mul(a, b), v);
        sinew_vec3 r2 = sinew_quat_rotate(a, sinew_quat_rotate(b, v));
        CHECK_NEAR(sinew_vec3_length(sinew_vec3_sub(r1, r2)), 0.0f, 1e-5f, "quat product composes rotations");
        /* rotation by q equals its matrix */
        sinew_transform t = sinew_transform_identity();
        t.rotation = a;
        sinew_mat4 m = sinew_mat4_from_transform(&t);
        sinew_vec3 r3 = sinew_mat4_transform_vector(&m, v);
        CHECK_NEAR(sinew_vec3_length(sinew_vec3_sub(sinew_quat_rotate(a, v), r3)), 0.0f, 1e-5f,
                   "quat rotate matches matrix");
        /* matrix back to quaternion: the same rotation (q or -q) */
        float r[9] = {m.m[0], m.m[1], m.m[2], m.m[4], m.m[5], m.m[6], m.m[8], m.m[9], m.m[10]};
        CHECK_NEAR(fabsf(sinew_quat_dot(sinew_quat_from_mat3(r), a)), 1.0f, 1e-5f, "from_mat3 round trip");
    }
    /* 180 degree rotations, where the trace branch is not taken */
    sinew_vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i) {
        sinew_quat q = sinew_quat_from_axis_angle(axes[i], 3.14159265f);
        sinew_transform t = sinew_transform_identity();
        t.rotation = q;
        sinew_mat4 m = sinew_mat4_from_transform(&t);
        float r[9] = {m.m[0], m.m[1], m.m[2], m.m[4], m.m[5], m.m[6], m.m[8], m.m[9], m.m[10]};
        CHECK_NEAR(fabsf(sinew_quat_dot(sinew_quat_from_mat3(r), q)), 1.0f, 1e-5f, "from_mat3 at 180 degrees");
    }
    sinew_quat z = {0, 0, 0, 0};
    sinew_quat n = sinew_quat_normalize(z);
    CHECK(n.w == 1.0f && n.x == 0.0f, "normalizing a zero quaternion gives the identity");
    sinew_quat big = {0, 0, 3, 4};
    n = sinew_quat_normalize(big);
    CHECK_NEAR(n.z, 0.6f, 1e-7f, "normalize z");
    CHECK_NEAR(n.w, 0.8f, 1e-7f, "normalize w");
}

static void test_slerp(void)
{
    sinew_vec3 up = {0, 1, 0};
    sinew_quat a = sinew_quat_from_axis_angle(up, 0.3f);
    /* nearly -a: the same rotation as a rotation by 0.31 rad, stored on the
     * far hemisphere. The short arc turns by 0.01 rad in all. */
    sinew_quat b = sinew_quat_from_axis_angle(up, 0.31f);
    sinew_quat nb = {-b.x, -b.y, -b.z, -b.w};
    for (int i = 0; i <= 10; ++i) {
        float t = (float)i / 10.0f;
        sinew_quat s1 = sinew_quat_slerp(a, nb, t), s2 = sinew_quat_nlerp(a, nb, t);
        float expect = 0.3f + 0.01f * t;
        sinew_quat e = sinew_quat_from_axis_angle(up, expect);
        CHECK(quat_angle(s1, e) < 1e-3f, "slerp to nearly -q takes the short arc at t=%g (off by %g rad)", (double)t,
              (double)quat_angle(s1, e));
        CHECK(quat_angle(s2, e) < 1e-3f, "nlerp to nearly -q takes the short arc at t=%g", (double)t);
    }
    /* exact at t = 0, b's rotation at t = 1 */
    sinew_quat c = sinew_quat_from_axis_angle(sinew_vec3_make(1, 2, 3), 2.0f);
    sinew_quat s0 = sinew_quat_slerp(a, c, 0.0f);
    CHECK(memcmp(&s0, &a, sizeof a) == 0, "slerp at t=0 returns a exactly");
    CHECK(quat_angle(sinew_quat_slerp(a, c, 1.0f), c) < 1e-3f, "slerp at t=1 reaches b");
    /* constant angular speed: angle from a grows linearly with t */
    float total = quat_angle(a, c);
    for (int i = 1; i < 10; ++i) {
        float t = (float)i / 10.0f;
        CHECK_NEAR(quat_angle(a, sinew_quat_slerp(a, c, t)), total * t, 1e-4f, "slerp has constant speed");
    }
    /* nlerp does not: the midpoint is right, a quarter is not */
    CHECK_NEAR(quat_angle(a, sinew_quat_nlerp(a, c, 0.5f)), total * 0.5f, 1e-4f, "nlerp midpoint");
    CHECK(fabsf(quat_angle(a, sinew_quat_nlerp(a, c, 0.25f)) - total * 0.25f) > 1e-3f,
          "nlerp is not constant-speed over a wide angle");
}

static void test_matrices(void)
{
    unsigned s = 7;
    for (int i = 0; i < 200; ++i) {
        sinew_transform t = {{check_rand(&s) * 4 - 2, check_rand(&s) * 4 - 2, check_rand(&s) * 4 - 2},
                             random_quat(&s),
                             {0.2f + check_rand(&s) * 2, 0.2f + check_rand(&s) * 2, 0.2f + check_rand(&s) * 2}};
        sinew_mat4 m = sinew_mat4_from_transform(&t), inv, prod, id = sinew_mat4_identity();
        CHECK(sinew_mat4_inverse(&m, &inv) == SINEW_OK, "TRS matrix is invertible");
        prod = sinew_mat4_mul(&m, &inv);
        CHECK(mat_max_diff(&prod, &id) < 1e-5f, "M * inverse(M) = I (off by %g)", (double)mat_max_diff(&prod, &id));
        prod = sinew_mat4_mul(&inv, &m);
        CHECK(mat_max_diff(&prod, &id) < 1e-5f, "inverse(M) * M = I");
        /* decomposition round trip */
        sinew_transform d;
        float shear = -1.0f;
        CHECK(sinew_mat4_decompose(&m, &d, &shear) == SINEW_OK, "TRS decomposes without shear");
        CHECK(shear < 1e-4f, "TRS shear measure is ~0 (%g)", (double)shear);
        sinew_mat4 back = sinew_mat4_from_transform(&d);
        CHECK(mat_max_diff(&back, &m) < 1e-5f, "decompose then recompose gives the matrix");
        CHECK_NEAR(d.scale.x, t.scale.x, 1e-5f, "scale x");
        CHECK_NEAR(d.scale.z, t.scale.z, 1e-5f, "scale z");
        /* determinant of TRS = product of scales */
        CHECK_NEAR(sinew_mat4_determinant(&m), t.scale.x * t.scale.y * t.scale.z, 1e-4f, "determinant");
    }
    /* a general (projective) matrix inverts too */
    sinew_mat4 g = {{2, 1, 0, 0.5f, 0, 3, 1, 0, 1, 0, 4, 0.25f, 1, 2, 3, 1}}, gi, gp, id = sinew_mat4_identity();
    CHECK(sinew_mat4_inverse(&g, &gi) == SINEW_OK, "general matrix invertible");
    gp = sinew_mat4_mul(&g, &gi);
    CHECK(mat_max_diff(&gp, &id) < 1e-5f, "general inverse");
    /* singular */
    sinew_mat4 z = {{1, 2, 3, 0, 2, 4, 6, 0, 0, 0, 1, 0, 0, 0, 0, 1}}, untouched = id;
    CHECK(sinew_mat4_inverse(&z, &untouched) == SINEW_ERROR_SINGULAR, "singular matrix is reported");
    CHECK(mat_max_diff(&untouched, &id) == 0.0f, "output untouched on failure");
    /* mirror: negative determinant comes back as negative x scale */
    sinew_transform mirror = sinew_transform_identity();
    mirror.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.7f);
    mirror.scale = sinew_vec3_make(1, 1, -2);
    sinew_mat4 mm = sinew_mat4_from_transform(&mirror), mb;
    sinew_transform md;
    CHECK(sinew_mat4_decompose(&mm, &md, NULL) == SINEW_OK, "mirror decomposes");
    CHECK(md.scale.x < 0.0f, "mirror gives negative x scale");
    mb = sinew_mat4_from_transform(&md);
    CHECK(mat_max_diff(&mb, &mm) < 1e-5f, "mirror round trip");
    /* shear is reported, with its measure */
    sinew_mat4 sh = sinew_mat4_identity();
    sh.m[4] = 0.5f; /* x += 0.5 y */
    float shear = 0.0f;
    CHECK(sinew_mat4_decompose(&sh, &md, &shear) == SINEW_ERROR_SHEAR, "shear is reported");
    CHECK_NEAR(shear, 0.5f / sqrtf(1.25f), 1e-5f, "shear measure is the cosine between axes");
    /* projective last row is reported */
    sinew_mat4 pr = sinew_mat4_identity();
    pr.m[3] = 0.1f;
    CHECK(sinew_mat4_decompose(&pr, &md, NULL) == SINEW_ERROR_SHEAR, "projective row is reported");
    /* collapsed axis */
    sinew_mat4 flat = sinew_mat4_identity();
    flat.m[10] = 0.0f;
    CHECK(sinew_mat4_decompose(&flat, &md, NULL) == SINEW_ERROR_SINGULAR, "zero scale is reported");
    /* transpose and transform helpers */
    sinew_mat4 tt = sinew_mat4_transpose(&g);
    CHECK(tt.m[1] == g.m[4] && tt.m[3] == g.m[12], "transpose");
    sinew_mat4 tr = sinew_mat4_identity();
    tr.m[12] = 5.0f;
    sinew_vec3 p = sinew_mat4_transform_point(&tr, sinew_vec3_make(1, 1, 1));
    sinew_vec3 v = sinew_mat4_transform_vector(&tr, sinew_vec3_make(1, 1, 1));
    CHECK(p.x == 6.0f && v.x == 1.0f, "points translate, vectors do not");
}

static void test_vectors(void)
{
    sinew_vec3 a = sinew_vec3_make(1, 2, 3), b = sinew_vec3_make(-2, 0.5f, 4);
    sinew_vec3 c = sinew_vec3_cross(a, b);
    CHECK_NEAR(sinew_vec3_dot(c, a), 0.0f, 1e-6f, "cross is perpendicular to a");
    CHECK_NEAR(sinew_vec3_dot(c, b), 0.0f, 1e-6f, "cross is perpendicular to b");
    CHECK_NEAR(sinew_vec3_length(sinew_vec3_normalize(b)), 1.0f, 1e-6f, "normalize");
    sinew_vec3 zero = sinew_vec3_normalize(sinew_vec3_make(0, 0, 0));
    CHECK(zero.x == 0.0f && zero.y == 0.0f && zero.z == 0.0f, "normalizing zero gives zero");
    sinew_vec3 l = sinew_vec3_lerp(a, b, 0.0f);
    CHECK(memcmp(&l, &a, sizeof a) == 0, "lerp at 0 is exact");
    l = sinew_vec3_lerp(a, b, 0.5f);
    CHECK_NEAR(l.x, -0.5f, 1e-7f, "lerp midpoint");
    sinew_vec3 d = sinew_vec3_sub(sinew_vec3_add(a, b), b);
    CHECK(d.x == a.x && d.y == a.y && d.z == a.z, "add and sub");
    CHECK(sinew_vec3_scale(a, 2.0f).z == 6.0f, "scale");
}

/* Any invertible affine matrix, sheared and mirrored ones included, comes
 * back from TRS(outer) * R(inner). */
static void test_decompose_affine(void)
{
    unsigned seed = 7;
    double worst = 0.0;
    for (int i = 0; i < 500; ++i) {
        sinew_mat4 m = sinew_mat4_identity();
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) m.m[c * 4 + r] = 4.0f * check_rand(&seed) - 2.0f;
        if (i % 3 == 0) /* a mirror */
            for (int r = 0; r < 3; ++r) m.m[r] = -m.m[r];
        if (fabsf(sinew_mat4_determinant(&m)) < 0.05f) continue;
        sinew_transform outer;
        sinew_quat inner;
        if (sinew_mat4_decompose_affine(&m, &outer, &inner) != SINEW_OK) {
            CHECK(false, "matrix %d decomposes", i);
            continue;
        }
        sinew_transform rot = {{0, 0, 0}, inner, {1, 1, 1}};
        sinew_mat4 a = sinew_mat4_from_transform(&outer), b = sinew_mat4_from_transform(&rot);
        sinew_mat4 back = sinew_mat4_mul(&a, &b);
        for (int k = 0; k < 16; ++k) worst = fmax(worst, fabs((double)back.m[k] - (double)m.m[k]));
    }
    CHECK(worst < 2e-5, "affine split rebuilds 500 random matrices (worst %.3g)", worst);
    sinew_mat4 flat = sinew_mat4_identity(), nan = sinew_mat4_identity(), proj = sinew_mat4_identity();
    flat.m[5] = 0.0f;
    nan.m[4] = NAN;
    proj.m[3] = 0.5f;
    sinew_transform o;
    sinew_quat q;
    CHECK(sinew_mat4_decompose_affine(&flat, &o, &q) == SINEW_ERROR_SINGULAR, "singular");
    CHECK(sinew_mat4_decompose_affine(&nan, &o, &q) == SINEW_ERROR_NOT_FINITE, "NaN");
    CHECK(sinew_mat4_decompose_affine(&proj, &o, &q) == SINEW_ERROR_SHEAR, "projective last row");
}

int main(void)
{
    test_decompose_affine();
    test_vectors();
    test_quat_basics();
    test_slerp();
    test_matrices();
    CHECK(strcmp(sinew_result_name(SINEW_ERROR_CYCLE), "SINEW_ERROR_CYCLE") == 0, "result names");
    CHECK(strcmp(sinew_result_name((sinew_result)999), "SINEW_UNKNOWN") == 0, "unknown result name");
    /* results keep their numbers across versions: a few pinned, and the
     * list dense from 0 with a name and a text for each */
    CHECK(SINEW_OK == 0 && SINEW_ERROR_CYCLE == 7 && SINEW_ERROR_PARSE == 19 && SINEW_ERROR_GPU == 25,
          "pinned result numbers");
    int results = 0;
#define COUNT_RESULT(name, number, text) CHECK((int)name == results++, "%s is %d", #name, (int)name);
    SINEW_RESULT_LIST(COUNT_RESULT)
#undef COUNT_RESULT
    for (int r = 0; r < results; ++r)
        CHECK(strcmp(sinew_result_name((sinew_result)r), "SINEW_UNKNOWN") != 0 &&
                  strcmp(sinew_result_text((sinew_result)r), "unknown result") != 0,
              "result %d has a name and a text", r);
    CHECK(strcmp(sinew_version(), SINEW_VERSION_STRING) == 0, "version");
    return check_finish("test_math");
}
