/* SPDX-License-Identifier: MIT */
/* The built-in character: what the issue promises of it, a sound mesh, and
 * clips that loop. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "shared_asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_promises(const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
    CHECK(sk->joint_count >= 15, "at least 15 joints (%d)", sk->joint_count);
    CHECK(a->mesh_count == 1, "one mesh");
    CHECK(a->clip_count >= 2, "at least two clips");
    CHECK(sinew_asset_find_clip(a, "walk") && sinew_asset_find_clip(a, "idle"), "walk and idle");
    CHECK(sinew_asset_find_clip(a, "run") == NULL, "no run clip");
    const sinew_mesh *m = &a->meshes[0];
    CHECK(m->vertex_count >= 2000, "at least 2,000 vertices (%d)", m->vertex_count);
    const sinew_skin *s = m->skin;
    CHECK(s && s->influence_count == 4, "4 influence slots");
    if (!s) return;
    int histogram[5] = {0};
    for (int v = 0; v < s->vertex_count; ++v) {
        int j[4];
        float w[4];
        histogram[sinew_skin_vertex(s, v, j, w)]++;
    }
    CHECK(histogram[0] == 0, "every vertex is weighted");
    CHECK(histogram[1] && histogram[2] && histogram[3] && histogram[4],
          "smooth weights use 1 to 4 influences (%d %d %d %d)", histogram[1], histogram[2], histogram[3],
          histogram[4]);
    /* the clips exercise every interpolation and every target */
    int interp[3] = {0}, target[3] = {0};
    for (int c = 0; c < a->clip_count; ++c)
        for (int t = 0; t < a->clips[c]->track_count; ++t) {
            interp[a->clips[c]->tracks[t].interpolation]++;
            target[a->clips[c]->tracks[t].target]++;
        }
    CHECK(interp[0] && interp[1] && interp[2], "LINEAR, STEP and CUBICSPLINE tracks");
    CHECK(target[0] && target[1] && target[2], "translation, rotation and scale tracks");
}

/* Every edge is shared by exactly two triangles in opposite directions (a
 * closed, consistently wound surface, seams aside: seam vertices are
 * duplicated for texture coordinates, so edges are matched by position), and
 * face normals agree with vertex normals. */
static void test_mesh(const sinew_asset *a)
{
    const sinew_mesh *m = &a->meshes[0];
    CHECK(m->index_count % 3 == 0, "triangle list");
    bool in_range = true;
    for (int i = 0; i < m->index_count; ++i) in_range = in_range && m->indices[i] < (uint32_t)m->vertex_count;
    CHECK(in_range, "indices in range");
    if (!in_range) return;
    int agree = 0, tris = m->index_count / 3;
    for (int t = 0; t < tris; ++t) {
        const uint32_t *ix = &m->indices[t * 3];
        const float *p0 = &m->positions[ix[0] * 3], *p1 = &m->positions[ix[1] * 3], *p2 = &m->positions[ix[2] * 3];
        sinew_vec3 e1 = sinew_vec3_make(p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]);
        sinew_vec3 e2 = sinew_vec3_make(p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]);
        sinew_vec3 f = sinew_vec3_cross(e1, e2);
        sinew_vec3 n = {0, 0, 0};
        for (int k = 0; k < 3; ++k)
            n = sinew_vec3_add(n, sinew_vec3_make(m->normals[ix[k] * 3], m->normals[ix[k] * 3 + 1],
                                                  m->normals[ix[k] * 3 + 2]));
        agree += sinew_vec3_dot(f, n) > 0.0f;
    }
    CHECK(agree == tris, "counter-clockwise faces agree with vertex normals (%d of %d)", agree, tris);
    bool unit = true, tangent_ok = true;
    for (int v = 0; v < m->vertex_count; ++v) {
        sinew_vec3 n = sinew_vec3_make(m->normals[v * 3], m->normals[v * 3 + 1], m->normals[v * 3 + 2]);
        sinew_vec3 t = sinew_vec3_make(m->tangents[v * 4], m->tangents[v * 4 + 1], m->tangents[v * 4 + 2]);
        unit = unit && fabsf(sinew_vec3_length(n) - 1.0f) < 1e-5f;
        tangent_ok = tangent_ok && fabsf(sinew_vec3_length(t) - 1.0f) < 1e-5f && fabsf(sinew_vec3_dot(n, t)) < 1e-5f &&
                     fabsf(m->tangents[v * 4 + 3]) == 1.0f;
    }
    CHECK(unit, "unit normals");
    CHECK(tangent_ok, "unit tangents perpendicular to normals, w = +-1");
}

static void test_clips_loop(const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    sinew_transform *first = malloc(sizeof *first * (size_t)n), *last = malloc(sizeof *last * (size_t)n);
    if (!first || !last) return;
    for (int c = 0; c < a->clip_count; ++c) {
        const sinew_clip *clip = a->clips[c];
        sinew_clip_sample(clip, sk, 0.0f, 0, NULL, first, n, NULL);
        sinew_clip_sample(clip, sk, clip->duration, 0, NULL, last, n, NULL);
        float worst = 0.0f;
        for (int j = 1; j < n; ++j) { /* the root moves forward by design */
            worst = fmaxf(worst, sinew_vec3_length(sinew_vec3_sub(first[j].translation, last[j].translation)));
            worst = fmaxf(worst, 1.0f - fabsf(sinew_quat_dot(first[j].rotation, last[j].rotation)));
            worst = fmaxf(worst, sinew_vec3_length(sinew_vec3_sub(first[j].scale, last[j].scale)));
        }
        CHECK(worst < 1e-6f, "clip %s ends where it starts (off by %g), so it loops", clip->name, (double)worst);
    }
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
    sinew_clip_sample(walk, sk, walk->duration, 0, NULL, last, n, NULL);
    CHECK_NEAR(last[0].translation.z, 1.3f, 1e-6f, "walk moves the root 1.3 m forward per cycle");
    free(first), free(last);
}

/* One call a frame gives what the steps give, bit for bit. */
static void test_instance(const sinew_asset *a)
{
    sinew_error err;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
    sinew_instance *inst = sinew_instance_create(a, walk, NULL, NULL, &err);
    CHECK(inst != NULL, "instance: %s", err.description);
    if (!inst) return;
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *mesh = &a->meshes[0];
    int n = sk->joint_count, v = mesh->vertex_count;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    float *pos = malloc(sizeof(float) * 3 * (size_t)v), *nrm = malloc(sizeof(float) * 3 * (size_t)v);
    size_t size = sinew_mesh_pose_scratch_size(mesh);
    void *scratch = malloc(size);
    bool same = true;
    for (int f = 0; f < 40 && same; ++f) {
        float t = 0.07f * (float)f; /* past the 1 s cycle: wrapped */
        CHECK(sinew_instance_update(inst, t, &err) == SINEW_OK, "update at %g: %s", (double)t, err.description);
        sinew_clip_sample_model(walk, sk, t, SINEW_SAMPLE_LOOP, NULL, NULL, NULL, model, n, NULL);
        sinew_mesh_pose(mesh, model, n, NULL, SINEW_SKINNING_LBS, scratch, size, pos, nrm, NULL, NULL);
        same = memcmp(model, sinew_instance_model(inst), sizeof *model * (size_t)n) == 0 &&
               memcmp(pos, sinew_instance_positions(inst, 0), sizeof(float) * 3 * (size_t)v) == 0 &&
               memcmp(nrm, sinew_instance_normals(inst, 0), sizeof(float) * 3 * (size_t)v) == 0;
    }
    CHECK(same, "an instance's frame is the steps' frame, bit for bit");
    CHECK(sinew_instance_positions(inst, 1) == NULL && sinew_instance_positions(inst, -1) == NULL,
          "no mesh out of range");
    CHECK(sinew_instance_update(inst, NAN, &err) != SINEW_OK &&
              strncmp(err.description, "sinew_instance_update: ", 23) == 0,
          "a time that is not finite: %s", err.description);
    sinew_instance_free(inst);
    /* no clip: the rest pose */
    inst = sinew_instance_create(a, NULL, &(sinew_instance_options){.method = SINEW_SKINNING_DQS}, NULL, &err);
    CHECK(inst && sinew_instance_update(inst, 0.5f, &err) == SINEW_OK, "rest pose instance: %s", err.description);
    if (inst) {
        sinew_local_to_model(sk, sk->rest_pose, NULL, model, n, NULL);
        CHECK(memcmp(model, sinew_instance_model(inst), sizeof *model * (size_t)n) == 0, "the rest pose");
    }
    sinew_instance_free(inst);
    CHECK(!sinew_instance_create(NULL, NULL, NULL, NULL, &err) && err.result == SINEW_ERROR_INVALID_ARGUMENT,
          "no asset refused");
    free(model), free(pos), free(nrm), free(scratch);
}

/* The ponytail: joints 22 to 25 after the body's (whose indices stay),
 * one chain with two colliders that
 * sinew_springs_create accepts, and, stepped with gravity through the walk,
 * its tip leaves where the walk alone puts it. */
static void test_ponytail(const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    CHECK(n == 26 && strcmp(sk->names[5], "head") == 0 && strcmp(sk->names[21], "toe_r") == 0 &&
              strcmp(sk->names[22], "ponytail_0") == 0 && sk->parents[22] == 5 &&
              strcmp(sk->names[25], "ponytail_3") == 0,
          "26 joints, the ponytail's last, below the head");
    const sinew_springs_desc *d = a->springs;
    CHECK(d && d->chain_count == 1 && d->collider_count == 2 && d->chains[0].joint_count == 4 &&
              d->chains[0].joints[0].joint == 22 && a->spring_names && strcmp(a->spring_names[0], "ponytail") == 0,
          "one chain \"ponytail\" of 4 joints, two colliders");
    if (!d || n != 26) return;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *moved = malloc(sizeof *moved * (size_t)n);
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_error err = {0};
    sinew_springs *springs = sinew_springs_create(sk, d, NULL, &err);
    sinew_spring_state *state = springs ? sinew_spring_state_create(springs, NULL, &err) : NULL;
    CHECK(springs && state, "the springs are made: %s", err.description);
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk");
    if (springs && state && walk && model && moved && local) {
        sinew_clip_sample(walk, sk, 0.0f, SINEW_SAMPLE_LOOP, NULL, local, n, NULL);
        sinew_local_to_model(sk, local, NULL, model, n, NULL);
        sinew_springs_reset(springs, state, model, n, NULL);
        double most = 0.0;
        for (int k = 1; k <= 60; ++k) {
            sinew_clip_sample(walk, sk, (float)k / 60.0f, SINEW_SAMPLE_LOOP, NULL, local, n, NULL);
            sinew_local_to_model(sk, local, NULL, model, n, NULL);
            memcpy(moved, model, sizeof *model * (size_t)n);
            CHECK(sinew_springs_step(springs, state, 1.0f / 60.0f, 1, local, moved, n, &err) == SINEW_OK, "step: %s",
                  err.description);
            double dx = moved[25].m[12] - model[25].m[12], dy = moved[25].m[13] - model[25].m[13],
                   dz = moved[25].m[14] - model[25].m[14];
            double dist = sqrt(dx * dx + dy * dy + dz * dz);
            if (dist > most) most = dist;
        }
        CHECK(most > 0.01, "the ponytail's tip swings in the walk: at most %.4f m from the walk's", most);
    }
    sinew_spring_state_free(state), sinew_springs_free(springs);
    free(model), free(moved), free(local);
}

int main(void)
{
    sinew_asset *a = sinew_demo_create(NULL, NULL);
    sinew_asset *b = sinew_demo_create(NULL, NULL);
    CHECK(a && b, "demo character builds");
    if (!a || !b) return check_finish("test_demo");
    test_promises(a);
    check_streams_aligned(a, "built-in character");
    test_mesh(a);
    test_clips_loop(a);
    test_instance(a);
    test_ponytail(a);
    /* a call sinew_mesh_pose makes fails: the sentence names sinew_mesh_pose */
    sinew_error err;
    size_t size = sinew_mesh_pose_scratch_size(&a->meshes[0]);
    void *scratch = malloc(size);
    sinew_mat4 one = sinew_mat4_identity();
    CHECK(sinew_mesh_pose(&a->meshes[0], &one, 1, NULL, SINEW_SKINNING_LBS, scratch, size, NULL, NULL, NULL, &err) ==
                  SINEW_ERROR_BUFFER_TOO_SMALL &&
              strncmp(err.description, "sinew_mesh_pose: skin joint 1 uses skeleton joint 1", 51) == 0,
          "one model matrix for the skin's joints: %s", err.description);
    free(scratch);
    const sinew_mesh *ma = &a->meshes[0], *mb = &b->meshes[0];
    CHECK(ma->vertex_count == mb->vertex_count &&
              memcmp(ma->positions, mb->positions, sizeof(float) * 3 * (size_t)ma->vertex_count) == 0 &&
              memcmp(ma->skin->weights, mb->skin->weights, sizeof(float) * 4 * (size_t)ma->vertex_count) == 0,
          "deterministic: two builds are identical");
    sinew_asset_free(a);
    sinew_asset_free(b);
    return check_finish("test_demo");
}
