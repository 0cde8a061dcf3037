/* SPDX-License-Identifier: MIT */
/* Spring bones by their properties, on skeletons built here (a root and
 * strands of joints): bone lengths kept to 1e-6 over many steps, a still
 * chain at gravity 0 stays at its animated pose, drag takes a released
 * chain's motion away, tails end a step outside colliders by all that the
 * final length restore allows, reset puts the animated pose back, the same
 * dt sequence gives the same bytes (and a copied state steps on as its
 * source), substeps equal as many short steps, a
 * center moving with the root adds no inertia, every index and parameter is
 * validated, and each SIMD level agrees with the scalar reference. */
#include "sinew/sinew.h"
#include "check.h"

#include <stdlib.h>

enum { MAX_JOINTS = 512, MAX_CHAIN = 16 };

typedef struct rig {
    sinew_skeleton *sk;
    int n, strands, per;          /* strand s: joints 1 + s * per .. */
    sinew_transform local[MAX_JOINTS], anim[MAX_JOINTS];
    sinew_mat4 model[MAX_JOINTS];
} rig;

static sinew_vec3 pos(const sinew_mat4 *m) { return sinew_vec3_make(m->m[12], m->m[13], m->m[14]); }
static float dist(sinew_vec3 a, sinew_vec3 b) { return sinew_vec3_length(sinew_vec3_sub(a, b)); }

/* A root and `strands` strands of `per` joints, each bone `bone` long
 * along `dir`, the strands side by side along z. */
static void make_rig(rig *r, int strands, int per, float bone, sinew_vec3 dir)
{
    int parents[MAX_JOINTS];
    sinew_transform rest[MAX_JOINTS];
    r->n = 1 + strands * per, r->strands = strands, r->per = per;
    parents[0] = -1, rest[0] = sinew_transform_identity();
    for (int s = 0; s < strands; ++s)
        for (int i = 0; i < per; ++i) {
            int j = 1 + s * per + i;
            parents[j] = i == 0 ? 0 : j - 1;
            rest[j] = sinew_transform_identity();
            rest[j].translation = i == 0 ? sinew_vec3_make(0.0f, 0.0f, 0.05f * (float)s) : sinew_vec3_scale(dir, bone);
        }
    sinew_error err;
    r->sk = sinew_skeleton_create(&(sinew_skeleton_desc){r->n, parents, NULL, rest}, NULL, NULL, &err);
    CHECK(r->sk != NULL, "rig: %s", err.description);
    for (int j = 0; j < r->n; ++j) r->anim[j] = rest[j];
}

/* The animated pose with the root at `t` turned by `yaw` about y. */
static void animate(rig *r, sinew_vec3 t, float yaw)
{
    r->anim[0].translation = t;
    r->anim[0].rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), yaw);
    memcpy(r->local, r->anim, sizeof(sinew_transform) * (size_t)r->n);
    sinew_local_to_model(r->sk, r->local, NULL, r->model, r->n, NULL);
}

/* Chains along every strand, the joints' parameters from `j`. */
typedef struct chains {
    sinew_spring_joint joints[64][MAX_CHAIN];
    sinew_spring_chain chain[64];
} chains;

static sinew_springs *make_springs(const rig *r, chains *c, sinew_spring_joint j, int center, const int *groups,
                                   int group_count, const sinew_spring_collider *colliders, int collider_count,
                                   const sinew_spring_collider_group *g, sinew_simd simd, sinew_error *err)
{
    for (int s = 0; s < r->strands; ++s) {
        for (int i = 0; i < r->per; ++i) {
            c->joints[s][i] = j;
            c->joints[s][i].joint = 1 + s * r->per + i;
        }
        c->chain[s] = (sinew_spring_chain){c->joints[s], r->per, groups, group_count, center};
    }
    sinew_springs_desc desc = {colliders, collider_count, g, g ? 1 : 0, c->chain, r->strands};
    sinew_options options = {.simd = simd};
    return sinew_springs_create(r->sk, &desc, &options, err);
}

/* The largest |bone length now - rest length| over every strand. */
static float worst_length_in(const rig *r, const sinew_mat4 *model, const sinew_mat4 *rest)
{
    float worst = 0.0f;
    for (int j = 2; j < r->n; ++j) {
        int p = r->sk->parents[j];
        if (p <= 0) continue;
        float d = fabsf(dist(pos(&model[j]), pos(&model[p])) - dist(pos(&rest[j]), pos(&rest[p])));
        if (d > worst) worst = d;
    }
    return worst;
}

static float worst_length(const rig *r, const sinew_mat4 *rest) { return worst_length_in(r, r->model, rest); }

static float worst_rotation(const sinew_transform *a, const sinew_transform *b, int n)
{
    float worst = 0.0f;
    for (int j = 0; j < n; ++j) {
        float d = 1.0f - fabsf(sinew_quat_dot(a[j].rotation, b[j].rotation));
        if (d > worst) worst = d;
    }
    return worst;
}

/* ---- lengths ---------------------------------------------------------------- */

static void test_lengths(void)
{
    rig r;
    make_rig(&r, 4, 8, 0.1f, sinew_vec3_make(1, 0, 0));
    sinew_mat4 rest[MAX_JOINTS];
    sinew_local_to_model(r.sk, r.sk->rest_pose, NULL, rest, r.n, NULL);
    chains c;
    sinew_spring_joint j = sinew_spring_joint_default(0);
    j.gravity_power = 9.8f, j.stiffness = 0.5f, j.drag_force = 0.1f;
    sinew_error err;
    sinew_springs *sp = make_springs(&r, &c, j, -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_SCALAR, &err);
    sinew_spring_state *st = sinew_spring_state_create(sp, NULL, &err);
    CHECK(sp && st, "%s", err.description);
    animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
    sinew_springs_reset(sp, st, r.model, r.n, &err);
    float worst = 0.0f;
    bool moved = false;
    for (int step = 0; step < 1000; ++step) {
        float t = (float)step / 60.0f;
        animate(&r, sinew_vec3_make(0.3f * sinf(3.0f * t), 0.2f * fabsf(sinf(5.0f * t)), 0), 2.0f * sinf(t));
        CHECK(sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err) == SINEW_OK, "%s", err.description);
        float w = worst_length(&r, rest);
        if (w > worst) worst = w;
        if (worst_rotation(r.local, r.anim, r.n) > 1e-3f) moved = true;
    }
    CHECK(worst <= 1e-6f, "bone lengths drift by %g over 1000 steps", (double)worst);
    CHECK(moved, "gravity and a swaying root move the chains");
    sinew_spring_state_free(st);
    sinew_springs_free(sp);
    sinew_skeleton_free(r.sk);
}

/* ---- a still chain ------------------------------------------------------------ */

static void test_still(void)
{
    rig r;
    make_rig(&r, 2, 6, 0.1f, sinew_vec3_make(0.6f, -0.8f, 0));
    chains c;
    sinew_spring_joint j = sinew_spring_joint_default(0);
    j.stiffness = 1.0f, j.gravity_power = 0.0f;
    sinew_error err;
    sinew_springs *sp = make_springs(&r, &c, j, -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_SCALAR, &err);
    sinew_spring_state *st = sinew_spring_state_create(sp, NULL, &err);
    animate(&r, sinew_vec3_make(1, 2, 3), 0.7f);
    sinew_springs_reset(sp, st, r.model, r.n, &err);
    sinew_mat4 still[MAX_JOINTS];
    memcpy(still, r.model, sizeof still);
    float worst_rot = 0.0f, worst_pos = 0.0f;
    for (int step = 0; step < 300; ++step) {
        animate(&r, sinew_vec3_make(1, 2, 3), 0.7f);
        sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err);
        float w = worst_rotation(r.local, r.anim, r.n);
        if (w > worst_rot) worst_rot = w;
        for (int k = 0; k < r.n; ++k) {
            float d = dist(pos(&r.model[k]), pos(&still[k]));
            if (d > worst_pos) worst_pos = d;
        }
    }
    CHECK(worst_rot < 1e-6f && worst_pos < 1e-5f, "a still chain moves: rotation %g, position %g", (double)worst_rot,
          (double)worst_pos);
    /* reset restores the animated pose: a step of 0 s after it changes nothing */
    j.gravity_power = 9.8f;
    sinew_springs_free(sp);
    sinew_spring_state_free(st);
    sp = make_springs(&r, &c, j, -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_AUTO, &err);
    st = sinew_spring_state_create(sp, NULL, &err);
    for (int step = 0; step < 60; ++step) {
        animate(&r, sinew_vec3_make(0.1f * (float)step, 0, 0), 0.0f);
        sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err);
    }
    CHECK(worst_rotation(r.local, r.anim, r.n) > 1e-3f, "gravity bends the chains");
    animate(&r, sinew_vec3_make(-1, 0.5f, 0), 1.0f);
    memcpy(still, r.model, sizeof still);
    CHECK(sinew_springs_reset(sp, st, r.model, r.n, &err) == SINEW_OK, "%s", err.description);
    sinew_springs_step(sp, st, 0.0f, 1, r.local, r.model, r.n, &err);
    float worst = 0.0f;
    for (int k = 0; k < r.n; ++k) {
        float d = dist(pos(&r.model[k]), pos(&still[k]));
        if (d > worst) worst = d;
    }
    CHECK(worst < 1e-6f && worst_rotation(r.local, r.anim, r.n) < 1e-6f, "after reset: off the animated pose by %g",
          (double)worst);
    sinew_spring_state_free(st);
    sinew_springs_free(sp);
    sinew_skeleton_free(r.sk);
}

/* ---- drag ----------------------------------------------------------------- */

static void test_drag(void)
{
    rig r;
    make_rig(&r, 1, 6, 0.1f, sinew_vec3_make(1, 0, 0));
    r.anim[1].translation = sinew_vec3_make(0.2f, 0, 0); /* the first joint off the turning root */
    chains c;
    sinew_spring_joint j = sinew_spring_joint_default(0);
    j.stiffness = 0.0f, j.drag_force = 0.3f;
    sinew_error err;
    sinew_springs *sp = make_springs(&r, &c, j, -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_SCALAR, &err);
    sinew_spring_state *st = sinew_spring_state_create(sp, NULL, &err);
    animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
    sinew_springs_reset(sp, st, r.model, r.n, &err);
    /* a quarter turn in one step, then the root holds still: the chain is
     * released with the speed the turn gave it */
    int tip = r.n - 1;
    float speed[120];
    sinew_vec3 last = pos(&r.model[tip]);
    for (int step = 0; step < 120; ++step) {
        animate(&r, sinew_vec3_make(0, 0, 0), 1.5707963f);
        sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err);
        speed[step] = dist(pos(&r.model[tip]), last);
        last = pos(&r.model[tip]);
    }
    CHECK(speed[3] > 1e-3f, "the turn sets the chain moving: %g", (double)speed[3]);
    CHECK(speed[119] < 1e-3f * speed[3], "drag 0.3 stops it: speed %g after 2 s, %g at first", (double)speed[119],
          (double)speed[3]);
    float later = 0.0f;
    for (int s = 60; s < 120; ++s) later = fmaxf(later, speed[s]);
    CHECK(later < 0.05f * speed[3], "the second second moves at most %g, the first %g", (double)later, (double)speed[3]);
    sinew_spring_state_free(st);
    sinew_springs_free(sp);
    sinew_skeleton_free(r.sk);
}

/* ---- colliders -------------------------------------------------------------- */

static float segment_distance(sinew_vec3 x, sinew_vec3 a, sinew_vec3 b)
{
    sinew_vec3 ab = sinew_vec3_sub(b, a);
    float ab2 = sinew_vec3_dot(ab, ab);
    float s = ab2 > 0.0f ? sinew_vec3_dot(sinew_vec3_sub(x, a), ab) / ab2 : 0.0f;
    s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
    return dist(x, sinew_vec3_add(a, sinew_vec3_scale(ab, s)));
}

/* What the algorithm allows: the tail was pushed onto the collider's
 * surface (distance reach from the shape), then moved along the ray from
 * its joint back to the bone's length. So it lies within |t - length| of a
 * point p + t u of the surface on that ray: its depth is at most the
 * smallest such distance. */
static float allowed_depth(sinew_vec3 p, sinew_vec3 x, sinew_vec3 a, sinew_vec3 b, float reach)
{
    sinew_vec3 u = sinew_vec3_normalize(sinew_vec3_sub(x, p));
    float length = dist(x, p), best = INFINITY;
    enum { STEPS = 4000 };
    float prev = segment_distance(p, a, b) - reach;
    for (int i = 1; i <= STEPS; ++i) {
        float t1 = 3.0f * length * (float)i / STEPS, t0 = 3.0f * length * (float)(i - 1) / STEPS;
        float f = segment_distance(sinew_vec3_add(p, sinew_vec3_scale(u, t1)), a, b) - reach;
        if ((f < 0.0f) != (prev < 0.0f)) {
            for (int k = 0; k < 40; ++k) {
                float tm = 0.5f * (t0 + t1);
                float fm = segment_distance(sinew_vec3_add(p, sinew_vec3_scale(u, tm)), a, b) - reach;
                if ((fm < 0.0f) == (prev < 0.0f)) t0 = tm; else t1 = tm;
            }
            best = fminf(best, fabsf(0.5f * (t0 + t1) - length));
        }
        prev = f;
    }
    return best;
}

static void test_colliders(sinew_collider_shape shape)
{
    const char *what = shape == SINEW_COLLIDER_SPHERE ? "sphere" : "capsule";
    rig r;
    make_rig(&r, 3, 8, 0.1f, sinew_vec3_make(1, 0, 0));
    sinew_spring_collider col = {0, shape, {0.12f, -0.35f, 0.0f}, {0.12f, -0.35f, 0.1f}, 0.15f};
    int members[1] = {0}, groups[1] = {0};
    sinew_spring_collider_group g = {members, 1};
    chains c;
    sinew_spring_joint j = sinew_spring_joint_default(0);
    j.gravity_power = 9.8f, j.stiffness = 0.2f, j.hit_radius = 0.02f;
    sinew_error err;
    sinew_springs *sp = make_springs(&r, &c, j, -1, groups, 1, &col, 1, &g, SINEW_SIMD_SCALAR, &err);
    CHECK(sp != NULL, "%s: %s", what, err.description);
    sinew_spring_state *st = sinew_spring_state_create(sp, NULL, &err);
    animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
    sinew_springs_reset(sp, st, r.model, r.n, &err);
    float reach = col.radius + j.hit_radius, worst_excess = 0.0f;
    int touching = 0;
    for (int step = 0; step < 600; ++step) {
        float t = (float)step / 60.0f;
        animate(&r, sinew_vec3_make(0.1f * sinf(2.0f * t), 0, 0), 0.3f * sinf(t));
        sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err);
        sinew_vec3 a = sinew_mat4_transform_point(&r.model[0], col.offset);
        sinew_vec3 b = shape == SINEW_COLLIDER_CAPSULE ? sinew_mat4_transform_point(&r.model[0], col.tail) : a;
        for (int k = 2; k < r.n; ++k) {
            int p = r.sk->parents[k];
            if (p <= 0) continue;
            sinew_vec3 x = pos(&r.model[k]);
            float depth = reach - segment_distance(x, a, b);
            if (depth > -1e-3f) ++touching;
            if (depth <= 1e-6f) continue;
            float excess = depth - allowed_depth(pos(&r.model[p]), x, a, b, reach);
            if (excess > worst_excess) worst_excess = excess;
        }
    }
    CHECK(touching > 100, "%s: the chains rest on the collider (%d tail-steps touching)", what, touching);
    CHECK(worst_excess <= 2e-5f, "%s: a tail ends %g deeper than the length restore allows", what, (double)worst_excess);
    sinew_spring_state_free(st);
    sinew_springs_free(sp);
    sinew_skeleton_free(r.sk);
}

/* ---- determinism and substeps ---------------------------------------------- */

static void run_sequence(rig *r, sinew_springs *sp, sinew_spring_state *st, int substeps, sinew_transform *local_out,
                         sinew_mat4 *model_out)
{
    unsigned seed = 7;
    animate(r, sinew_vec3_make(0, 0, 0), 0.0f);
    sinew_springs_reset(sp, st, r->model, r->n, NULL);
    for (int step = 0; step < 200; ++step) {
        float dt = (0.5f + check_rand(&seed)) / 60.0f;
        animate(r, sinew_vec3_make(0.2f * sinf((float)step * 0.1f), 0, 0), 0.5f * sinf((float)step * 0.05f));
        if (substeps > 0) {
            sinew_springs_step(sp, st, dt, substeps, r->local, r->model, r->n, NULL);
        } else { /* -substeps steps of dt / -substeps, the animated pose given again to each */
            for (int s = 0; s < -substeps; ++s) {
                memcpy(r->local, r->anim, sizeof(sinew_transform) * (size_t)r->n);
                sinew_springs_step(sp, st, dt / (float)-substeps, 1, r->local, r->model, r->n, NULL);
            }
        }
    }
    memcpy(local_out, r->local, sizeof(sinew_transform) * (size_t)r->n);
    memcpy(model_out, r->model, sizeof(sinew_mat4) * (size_t)r->n);
}

static void test_determinism(void)
{
    rig r;
    make_rig(&r, 3, 5, 0.1f, sinew_vec3_make(1, 0, 0));
    sinew_spring_collider col = {0, SINEW_COLLIDER_SPHERE, {0.3f, -0.2f, 0.0f}, {0, 0, 0}, 0.1f};
    int members[1] = {0}, groups[1] = {0};
    sinew_spring_collider_group g = {members, 1};
    chains c;
    sinew_spring_joint j = sinew_spring_joint_default(0);
    j.gravity_power = 5.0f;
    sinew_springs *sp = make_springs(&r, &c, j, -1, groups, 1, &col, 1, &g, SINEW_SIMD_AUTO, NULL);
    sinew_spring_state *a = sinew_spring_state_create(sp, NULL, NULL), *b = sinew_spring_state_create(sp, NULL, NULL);
    static sinew_transform la[MAX_JOINTS], lb[MAX_JOINTS];
    static sinew_mat4 ma[MAX_JOINTS], mb[MAX_JOINTS];
    run_sequence(&r, sp, a, 1, la, ma);
    run_sequence(&r, sp, b, 1, lb, mb);
    CHECK(memcmp(la, lb, sizeof(sinew_transform) * (size_t)r.n) == 0 && memcmp(ma, mb, sizeof(sinew_mat4) * (size_t)r.n) == 0,
          "two states, the same dt sequence: not the same bytes");
    run_sequence(&r, sp, a, 4, la, ma);
    run_sequence(&r, sp, b, -4, lb, mb);
    CHECK(memcmp(la, lb, sizeof(sinew_transform) * (size_t)r.n) == 0 && memcmp(ma, mb, sizeof(sinew_mat4) * (size_t)r.n) == 0,
          "4 substeps differ from 4 steps of a quarter");
    /* a copy steps on as the original: b copies a midway, both take the
     * same next steps */
    run_sequence(&r, sp, a, 1, la, ma);
    CHECK(sinew_spring_state_copy(b, a, NULL) == SINEW_OK, "copy");
    for (int step = 0; step < 30; ++step) {
        sinew_transform lc[2][MAX_JOINTS];
        sinew_mat4 mc[2][MAX_JOINTS];
        sinew_spring_state *st[2] = {a, b};
        for (int k = 0; k < 2; ++k) {
            animate(&r, sinew_vec3_make(0.3f * sinf((float)step), 0.1f, 0), 0.2f * (float)step);
            sinew_springs_step(sp, st[k], 1.0f / 60.0f, 1, r.local, r.model, r.n, NULL);
            memcpy(lc[k], r.local, sizeof(sinew_transform) * (size_t)r.n);
            memcpy(mc[k], r.model, sizeof(sinew_mat4) * (size_t)r.n);
        }
        CHECK(memcmp(lc[0], lc[1], sizeof(sinew_transform) * (size_t)r.n) == 0 &&
                  memcmp(mc[0], mc[1], sizeof(sinew_mat4) * (size_t)r.n) == 0,
              "step %d after a copy: the copy and its source differ", step);
    }
    {
        rig other;
        chains oc;
        make_rig(&other, 1, 3, 0.1f, sinew_vec3_make(1, 0, 0));
        sinew_springs *osp = make_springs(&other, &oc, j, -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_AUTO, NULL);
        sinew_spring_state *ost = sinew_spring_state_create(osp, NULL, NULL);
        sinew_error err = {0};
        CHECK(sinew_spring_state_copy(ost, a, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "different"),
              "a copy between states of different springs: %s", err.description);
        CHECK(sinew_spring_state_copy(NULL, a, NULL) == SINEW_ERROR_INVALID_ARGUMENT, "a copy to NULL");
        sinew_spring_state_free(ost);
        sinew_springs_free(osp);
        sinew_skeleton_free(other.sk);
    }
    /* a large dt with substeps keeps the lengths and stays finite */
    sinew_mat4 rest[MAX_JOINTS];
    sinew_local_to_model(r.sk, r.sk->rest_pose, NULL, rest, r.n, NULL);
    animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
    sinew_springs_reset(sp, a, r.model, r.n, NULL);
    for (int step = 0; step < 20; ++step) {
        animate(&r, sinew_vec3_make((float)step, 0, 0), (float)step);
        CHECK(sinew_springs_step(sp, a, 0.25f, 16, r.local, r.model, r.n, NULL) == SINEW_OK, "substeps");
    }
    CHECK(worst_length(&r, rest) < 1e-6f, "after large steps with substeps: lengths off by %g", (double)worst_length(&r, rest));
    sinew_spring_state_free(a);
    sinew_spring_state_free(b);
    sinew_springs_free(sp);
    sinew_skeleton_free(r.sk);
}

/* ---- center ------------------------------------------------------------------ */

static void test_center(void)
{
    float moved[2];
    for (int centered = 0; centered < 2; ++centered) {
        rig r;
        make_rig(&r, 2, 6, 0.1f, sinew_vec3_make(1, 0, 0));
        chains c;
        sinew_spring_joint j = sinew_spring_joint_default(0);
        j.gravity_power = 0.0f, j.stiffness = 1.0f;
        sinew_error err;
        sinew_springs *sp = make_springs(&r, &c, j, centered ? 0 : -1, NULL, 0, NULL, 0, NULL, SINEW_SIMD_AUTO, &err);
        CHECK(sp != NULL, "%s", err.description);
        sinew_spring_state *st = sinew_spring_state_create(sp, NULL, &err);
        animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
        sinew_springs_reset(sp, st, r.model, r.n, &err);
        moved[centered] = 0.0f;
        for (int step = 0; step < 120; ++step) {
            float t = (float)step / 60.0f;
            /* the root runs, jumps and turns: the strands move with it rigidly */
            animate(&r, sinew_vec3_make(3.0f * t, fabsf(sinf(6.0f * t)), 0), 2.0f * t);
            sinew_springs_step(sp, st, 1.0f / 60.0f, 1, r.local, r.model, r.n, &err);
            moved[centered] = fmaxf(moved[centered], worst_rotation(r.local, r.anim, r.n));
        }
        sinew_spring_state_free(st);
        sinew_springs_free(sp);
        sinew_skeleton_free(r.sk);
    }
    CHECK(moved[0] > 1e-3f, "without a center the root's motion swings the strands (%g)", (double)moved[0]);
    CHECK(moved[1] < 1e-5f, "with the root as center its motion adds no inertia (%g)", (double)moved[1]);
}

/* ---- validation ------------------------------------------------------------------ */

static void expect_error(const rig *r, const sinew_springs_desc *d, sinew_result want, const char *needle)
{
    sinew_error err = {0};
    sinew_springs *sp = sinew_springs_create(r->sk, d, NULL, &err);
    CHECK(sp == NULL, "accepted, expected \"%s\"", needle);
    CHECK_ERROR(err, want, needle);
    CHECK(strncmp(err.description, "sinew_springs_create: ", 22) == 0, "the sentence names the function: %s", err.description);
    sinew_springs_free(sp);
}

static void test_validation(void)
{
    rig r;
    make_rig(&r, 2, 4, 0.1f, sinew_vec3_make(1, 0, 0));
    sinew_spring_joint js[4];
    for (int i = 0; i < 4; ++i) js[i] = sinew_spring_joint_default(1 + i);
    sinew_spring_collider col = {0, SINEW_COLLIDER_SPHERE, {0, 0, 0}, {0, 0, 0}, 0.1f};
    int members[1] = {0}, groups[1] = {0};
    sinew_spring_collider_group g = {members, 1};
    sinew_spring_chain ch = {js, 4, groups, 1, -1};
    sinew_springs_desc d = {&col, 1, &g, 1, &ch, 1};
    sinew_error err;
    sinew_springs *ok = sinew_springs_create(r.sk, &d, NULL, &err);
    CHECK(ok != NULL, "a valid description: %s", err.description);
    sinew_spring_state *st = sinew_spring_state_create(ok, NULL, &err);
    sinew_spring_state *other_st = NULL;
    animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
    CHECK(sinew_springs_step(ok, st, -1.0f, 1, r.local, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "negative dt");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "dt");
    CHECK(sinew_springs_step(ok, st, NAN, 1, r.local, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "NaN dt");
    CHECK(sinew_springs_step(ok, st, 0.1f, 65, r.local, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "65 substeps");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "substeps");
    CHECK(sinew_springs_step(ok, st, 0.1f, 1, r.local, r.model, r.n - 1, &err) == SINEW_ERROR_SIZE_MISMATCH, "count");
    CHECK(sinew_springs_step(ok, st, 0.1f, 1, NULL, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "no local");
    CHECK(sinew_springs_reset(ok, NULL, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT, "no state");
    sinew_springs *other = sinew_springs_create(r.sk, &d, NULL, &err);
    other_st = sinew_spring_state_create(other, NULL, &err);
    CHECK(sinew_springs_step(ok, other_st, 0.1f, 1, r.local, r.model, r.n, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "a state of other springs");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "other springs");
    r.model[2].m[12] = NAN;
    CHECK(sinew_springs_reset(ok, st, r.model, r.n, &err) == SINEW_ERROR_NOT_FINITE, "NaN model");
    sinew_spring_state_free(other_st);
    sinew_springs_free(other);
    sinew_spring_state_free(st);
    sinew_springs_free(ok);

    expect_error(&r, NULL, SINEW_ERROR_INVALID_ARGUMENT, "description");
    sinew_springs_desc e = d;
    e.chain_count = -1;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "negative count");
    e = d, e.chains = NULL;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "without its array");
    sinew_spring_collider bad = col;
    e = d, e.colliders = &bad;
    bad.joint = 99;
    expect_error(&r, &e, SINEW_ERROR_BAD_JOINT_INDEX, "collider 0: joint 99");
    bad = col, bad.radius = -1.0f;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "radius");
    bad = col, bad.offset.y = INFINITY;
    expect_error(&r, &e, SINEW_ERROR_NOT_FINITE, "collider 0");
    bad = col, bad.shape = (sinew_collider_shape)5;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "shape");
    int bad_member = 3;
    sinew_spring_collider_group bg = {&bad_member, 1};
    e = d, e.groups = &bg;
    expect_error(&r, &e, SINEW_ERROR_BAD_REFERENCE, "group 0: collider 3");
    sinew_spring_chain bc = ch;
    e = d, e.chains = &bc;
    bc.joint_count = 1;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "chain 0: fewer than two joints");
    int bad_group = 2;
    bc = ch, bc.collider_groups = &bad_group;
    expect_error(&r, &e, SINEW_ERROR_BAD_REFERENCE, "chain 0: a collider group index");
    bc = ch, bc.center = 50;
    expect_error(&r, &e, SINEW_ERROR_BAD_JOINT_INDEX, "center");
    bc = ch, bc.center = 2; /* below the first joint */
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "chain 0: its center is neither");
    sinew_spring_joint bj[4];
    memcpy(bj, js, sizeof bj);
    bc = ch, bc.joints = bj;
    bj[2].joint = 6; /* on the other strand */
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "chain 0, joint 2 (skeleton joint 6): it is not below");
    memcpy(bj, js, sizeof bj), bj[1].joint = 1000;
    expect_error(&r, &e, SINEW_ERROR_BAD_JOINT_INDEX, "joint 1 (skeleton joint 1000)");
    memcpy(bj, js, sizeof bj), bj[0].stiffness = -1.0f;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "stiffness is negative");
    memcpy(bj, js, sizeof bj), bj[1].drag_force = 1.5f;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "drag force");
    memcpy(bj, js, sizeof bj), bj[1].gravity_power = -1.0f;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "gravity power");
    memcpy(bj, js, sizeof bj), bj[2].hit_radius = -0.1f;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "hit radius");
    memcpy(bj, js, sizeof bj), bj[0].gravity_dir.x = NAN;
    expect_error(&r, &e, SINEW_ERROR_NOT_FINITE, "not finite");
    /* a joint in two chains */
    sinew_spring_chain two[2] = {ch, ch};
    e = d, e.chains = two, e.chain_count = 2;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "chain 1, joint 0 (skeleton joint 1): it is already simulated");
    /* the shared end joint of two chains, each the other's tail, is fine:
     * a tail is not simulated */
    two[1].joints = js + 3, two[1].joint_count = 1;
    expect_error(&r, &e, SINEW_ERROR_INVALID_ARGUMENT, "chain 1: fewer than two joints");
    sinew_skeleton_free(r.sk);
}

/* ---- SIMD against the scalar reference ---------------------------------------- */

/* The scales of the SIMD rounds that scale joints: the kernels take paths
 * whose scales are the same on every axis and leave the rest to the
 * scalar reference, from the joint where that stops. */
enum {
    SCALED_UNIFORM = 2, /* the root 1.5, each strand's fourth joint 0.8: all in the kernel */
    SCALED_MIDWAY,      /* 27 strands: the fifth joint (1, 1.3, 1) of one in the group run alone, the tail
                           (1.2, 1, 1) of one in the pair: each goes on in the reference from there */
    SCALED_NEGATIVE,    /* one strand's third joint -0.9 on every axis, a mirror: the same */
    SCALED_FIRST,       /* one strand's first joint (1, 1, 1.2): its pair in the reference from the start */
    SCALED_ROOT,        /* the root (1, 1, 1.2): every group in the reference */
    SCALED_NEARLY,      /* the root (1, 1, 1 + 2^-18), beyond rounding: the same */
    SCALED_MIRROR,      /* the root -1 on every axis, a mirror: every group in the reference */
    SIMD_ROUNDS
};

static void test_simd_level(sinew_simd level)
{
    /* 19 strands: two groups of eight side by side, three alone; 27: two
     * side by side, one group alone, three alone, and every third strand
     * without colliders (a group's lanes test different ones); then 19
     * again with the scales above */
    for (int round = 0; round < SIMD_ROUNDS; ++round) {
        int strands = round == 1 || round == SCALED_MIDWAY ? 27 : 19;
        static rig r;
        make_rig(&r, strands, 8, 0.1f, sinew_vec3_make(1, 0, 0));
        sinew_mat4 rest[MAX_JOINTS];
        sinew_local_to_model(r.sk, r.sk->rest_pose, NULL, rest, r.n, NULL);
        sinew_spring_collider cols[2] = {{0, SINEW_COLLIDER_SPHERE, {0.3f, -0.25f, 0.3f}, {0, 0, 0}, 0.12f},
                                         {0, SINEW_COLLIDER_CAPSULE, {0.5f, -0.3f, 0.0f}, {0.5f, -0.3f, 1.0f}, 0.08f}};
        int members[2] = {0, 1}, groups[1] = {0};
        sinew_spring_collider_group g = {members, 2};
        static chains c;
        sinew_spring_joint j = sinew_spring_joint_default(0);
        j.gravity_power = 6.0f, j.stiffness = 0.8f, j.drag_force = 0.2f, j.hit_radius = 0.02f;
        sinew_springs *ref = make_springs(&r, &c, j, -1, groups, 1, cols, 2, &g, SINEW_SIMD_SCALAR, NULL);
        sinew_springs *fast = make_springs(&r, &c, j, -1, groups, 1, cols, 2, &g, level, NULL);
        if (round == 1) {
            for (int k = 0; k < strands; k += 3) c.chain[k].collider_group_count = 0;
            sinew_springs_desc desc = {cols, 2, &g, 1, c.chain, strands};
            sinew_springs_free(ref), sinew_springs_free(fast);
            ref = sinew_springs_create(r.sk, &desc, &(sinew_options){.simd = SINEW_SIMD_SCALAR}, NULL);
            fast = sinew_springs_create(r.sk, &desc, &(sinew_options){.simd = level}, NULL);
        }
        if (round == SCALED_UNIFORM) {
            r.anim[0].scale = sinew_vec3_make(1.5f, 1.5f, 1.5f);
            for (int s = 0; s < strands; ++s) r.anim[1 + s * 8 + 3].scale = sinew_vec3_make(0.8f, 0.8f, 0.8f);
        }
        if (round == SCALED_MIDWAY) {
            r.anim[1 + 20 * 8 + 4].scale = sinew_vec3_make(1.0f, 1.3f, 1.0f);
            r.anim[1 + 3 * 8 + 7].scale = sinew_vec3_make(1.2f, 1.0f, 1.0f);
        }
        if (round == SCALED_NEGATIVE) r.anim[1 + 5 * 8 + 2].scale = sinew_vec3_make(-0.9f, -0.9f, -0.9f);
        if (round == SCALED_FIRST) r.anim[1 + 12 * 8].scale = sinew_vec3_make(1.0f, 1.0f, 1.2f);
        if (round == SCALED_ROOT) r.anim[0].scale = sinew_vec3_make(1.0f, 1.0f, 1.2f);
        if (round == SCALED_NEARLY) r.anim[0].scale = sinew_vec3_make(1.0f, 1.0f, 1.0f + 0x1p-18f);
        if (round == SCALED_MIRROR) r.anim[0].scale = sinew_vec3_make(-1.0f, -1.0f, -1.0f);
        sinew_spring_state *a = sinew_spring_state_create(ref, NULL, NULL), *b = sinew_spring_state_create(fast, NULL, NULL);
        static sinew_transform lb[MAX_JOINTS];
        static sinew_mat4 ma[MAX_JOINTS], mb[MAX_JOINTS];
        animate(&r, sinew_vec3_make(0, 0, 0), 0.0f);
        sinew_springs_reset(ref, a, r.model, r.n, NULL);
        sinew_springs_reset(fast, b, r.model, r.n, NULL);
        float worst = 0.0f, worst_bone = 0.0f, worst_axes = 0.0f;
        for (int step = 0; step < 300; ++step) {
            float t = (float)step / 60.0f;
            animate(&r, sinew_vec3_make(0.3f * sinf(3.0f * t), 0.2f * fabsf(sinf(4.0f * t)), 0), sinf(t));
            memcpy(lb, r.local, sizeof(sinew_transform) * (size_t)r.n);
            memcpy(mb, r.model, sizeof(sinew_mat4) * (size_t)r.n);
            sinew_springs_step(ref, a, 1.0f / 60.0f, 2, r.local, r.model, r.n, NULL);
            sinew_springs_step(fast, b, 1.0f / 60.0f, 2, lb, mb, r.n, NULL);
            memcpy(ma, r.model, sizeof(sinew_mat4) * (size_t)r.n);
            for (int k = 0; k < r.n; ++k) {
                worst = fmaxf(worst, dist(pos(&ma[k]), pos(&mb[k])));
                for (int e = 0; e < 12; ++e) worst_axes = fmaxf(worst_axes, fabsf(ma[k].m[e] - mb[k].m[e]));
            }
            if (round < SCALED_UNIFORM) worst_bone = fmaxf(worst_bone, worst_length_in(&r, mb, rest));
        }
        /* the kernel rounds otherwise than the reference (fused
         * multiply-adds, a matrix as a scale times a rotation), and 300
         * steps with collisions carry those roundings on: joints within
         * 1e-5 of the 0.7 chain length (7e-6) and 1.5 times that where the
         * root scales by 1.5, the matrices' axes within 2e-5 of their
         * length (3e-5 where that is 1.5), far below what shows and far
         * above a wrong formula (a 1% change of dt moves joints by 2e-2);
         * bones keep their lengths as the reference does, to 1e-6 */
        float scale = round == SCALED_UNIFORM ? 1.5f : 1.0f;
        CHECK(worst <= 7e-6f * scale && worst_axes <= 2e-5f * scale,
              "%s against the scalar reference, %d strands, round %d: joints apart by %g, axes by %g",
              sinew_simd_name(level), strands, round, (double)worst, (double)worst_axes);
        /* the reference runs the whole of each group whose parent, or whose
         * first joint, does not scale the same on every axis: its bits
         * exactly; the kernel's own roundings show elsewhere, which says
         * it ran */
        if (round >= SCALED_FIRST)
            CHECK(worst == 0.0f && worst_axes == 0.0f, "%s, round %d: the reference's bits (apart by %g)",
                  sinew_simd_name(level), round, (double)worst);
        else
            CHECK(worst > 0.0f, "%s, round %d: the kernel's roundings show (a reference run gives 0)",
                  sinew_simd_name(level), round);
        /* (scales change the lengths the rest pose gives) */
        if (round < SCALED_UNIFORM)
            CHECK(worst_bone <= 1e-6f, "%s, %d strands: bone lengths drift by %g", sinew_simd_name(level), strands,
                  (double)worst_bone);
        sinew_spring_state_free(a);
        sinew_spring_state_free(b);
        sinew_springs_free(ref);
        sinew_springs_free(fast);
        sinew_skeleton_free(r.sk);
    }
}

/* Each SIMD level with a spring kernel that this CPU runs (x86-64's)
 * against the scalar reference. */
static void test_simd(void)
{
    static const sinew_simd levels[] = {SINEW_SIMD_AVX2, SINEW_SIMD_AVX512};
    for (size_t i = 0; i < sizeof levels / sizeof *levels; ++i) {
        sinew_simd best = sinew_simd_supported();
        if (best == SINEW_SIMD_NEON || levels[i] > best) {
            printf("test_spring: skip: the %s spring kernel: this CPU does not run it\n", sinew_simd_name(levels[i]));
            continue;
        }
        test_simd_level(levels[i]);
    }
}

/* A skeleton of one long line of joints with a chain on every other pair:
 * each chain hangs below all those before it, so a step would update the
 * line's joints once per chain. Made in time linear in the joints, and
 * refused with a sentence once that work passes a bound of the joints;
 * a shorter line of the same shape is made. */
static void test_nested(void)
{
    enum { LONG = 20000, SHORT = 40 };
    int *parents = malloc(sizeof(int) * LONG);
    sinew_transform *rest = malloc(sizeof *rest * LONG);
    sinew_spring_joint *joints = malloc(sizeof *joints * LONG);
    sinew_spring_chain *chain = malloc(sizeof *chain * (LONG / 2));
    if (!parents || !rest || !joints || !chain) return;
    for (int j = 0; j < LONG; ++j) {
        parents[j] = j - 1, rest[j] = sinew_transform_identity();
        rest[j].translation = sinew_vec3_make(0.0f, j ? -0.01f : 0.0f, 0.0f);
        joints[j] = sinew_spring_joint_default(j);
    }
    for (int length = SHORT; length <= LONG; length = length == SHORT ? LONG : LONG + 1) {
        sinew_error err;
        sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){length, parents, NULL, rest}, NULL, NULL, &err);
        CHECK(sk != NULL, "line of %d: %s", length, err.description);
        if (!sk) break;
        int nested = length / 2 - 1;
        for (int c = 0; c < nested; ++c) chain[c] = (sinew_spring_chain){.joints = &joints[2 * c + 1], .joint_count = 2, .center = -1};
        sinew_springs *sp = sinew_springs_create(sk, &(sinew_springs_desc){.chains = chain, .chain_count = nested}, NULL, &err);
        if (length == SHORT)
            CHECK(sp != NULL, "%d nested chains on %d joints: %s", nested, length, err.description);
        else
            CHECK(sp == NULL && err.result == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "hang below one another"),
                  "%d nested chains on %d joints refused: %s", nested, length, sp ? "made" : err.description);
        sinew_springs_free(sp);
        sinew_skeleton_free(sk);
    }
    free(parents), free(rest), free(joints), free(chain);
}

int main(void)
{
    test_lengths();
    test_still();
    test_drag();
    test_colliders(SINEW_COLLIDER_SPHERE);
    test_colliders(SINEW_COLLIDER_CAPSULE);
    test_determinism();
    test_center();
    test_validation();
    test_simd();
    test_nested();
    return check_finish("test_spring");
}
