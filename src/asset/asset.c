/* SPDX-License-Identifier: MIT */
/* The asset container: arena-owned arrays plus the objects it frees. */
#include "asset_internal.h"

#include "layer/timeline.h"

typedef struct block {
    struct block *next;
    /* payload follows at SINEW__ALIGN bytes, on a cache line: the vertex
     * streams the skinning kernels read in 32-byte vectors then never
     * straddle two lines */
} block;

sinew_asset *sinew__asset_new(const char *name, const sinew_options *options)
{
    sinew_allocator alloc = sinew__allocator(options);
    sinew__asset *made = sinew__alloc(&alloc, sizeof *made);
    if (!made) return NULL;
    memset(made, 0, sizeof *made);
    made->allocator = alloc;
    sinew_asset *a = &made->base;
    /* the axes loaders find no declaration of are glTF's */
    a->axis_rotation = (sinew_quat){0.0f, 0.0f, 0.0f, 1.0f};
    a->name = sinew__asset_strdup(a, name ? name : "");
    if (!a->name) {
        sinew__free(&alloc, a);
        return NULL;
    }
    return a;
}

void *sinew__asset_alloc(sinew_asset *a, size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - SINEW__ALIGN) / size) return NULL;
    size_t bytes = count * size;
    block *b = sinew__alloc_aligned(&sinew__asset_of(a)->allocator, SINEW__ALIGN + bytes);
    if (!b) return NULL;
    b->next = sinew__asset_of(a)->blocks;
    sinew__asset_of(a)->blocks = b;
    unsigned char *payload = (unsigned char *)b + SINEW__ALIGN;
    memset(payload, 0, bytes);
    return payload;
}

char *sinew__asset_strdup(sinew_asset *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = sinew__asset_alloc(a, n, 1);
    if (copy) memcpy(copy, s, n);
    return copy;
}

void sinew_asset_free(sinew_asset *a)
{
    if (!a) return;
    for (int i = 0; i < a->mesh_count; ++i) sinew_skin_free((sinew_skin *)a->meshes[i].skin);
    for (int i = 0; i < a->clip_count; ++i) sinew_clip_free((sinew_clip *)a->clips[i]);
    for (int i = 0; a->timelines && i < a->clip_count; ++i) sinew_timeline_free((sinew_timeline *)a->timelines[i]);
    sinew_skeleton_free((sinew_skeleton *)a->skeleton);
    sinew_allocator alloc = sinew__asset_of(a)->allocator;
    for (block *b = sinew__asset_of(a)->blocks; b;) {
        block *next = b->next;
        sinew__free_aligned(&alloc, b);
        b = next;
    }
    sinew__free_aligned(&alloc, sinew__asset_of(a)->held);
    sinew__free(&alloc, a);
}

void sinew__asset_set_allocator(sinew_asset *a, sinew_allocator alloc)
{
    sinew__asset_of(a)->allocator = alloc;
    if (a->skeleton) sinew__skeleton_of(a->skeleton)->allocator = alloc;
    for (int i = 0; i < a->clip_count; ++i) sinew__clip_of(a->clips[i])->allocator = alloc;
    for (int i = 0; a->timelines && i < a->clip_count; ++i)
        if (a->timelines[i]) sinew__timeline_set_allocator((sinew_timeline *)a->timelines[i], alloc);
    for (int i = 0; i < a->mesh_count; ++i)
        if (a->meshes[i].skin) sinew__skin_of(a->meshes[i].skin)->allocator = alloc;
}

const sinew_clip *sinew_asset_find_clip(const sinew_asset *a, const char *name)
{
    if (!a || !name) return NULL;
    for (int i = 0; i < a->clip_count; ++i)
        if (strcmp(a->clips[i]->name, name) == 0) return a->clips[i];
    return NULL;
}

size_t sinew_mesh_pose_scratch_size(const sinew_mesh *mesh)
{
    if (!mesh || !mesh->skin) return 0;
    return (size_t)mesh->skin->joint_count * (sizeof(sinew_mat4) + sizeof(sinew_dq_transform));
}

/* A rigid mesh: every stream by one matrix, normals by its inverse
 * transpose. In place is fine. */
static void pose_rigid(const sinew_mesh *m, const sinew_mat4 *x, const float *pos, const float *nrm, const float *tan,
                       float *out_pos, float *out_nrm, float *out_tan)
{
    float a[9] = {x->m[0], x->m[1], x->m[2], x->m[4], x->m[5], x->m[6], x->m[8], x->m[9], x->m[10]};
    for (int v = 0; v < m->vertex_count; ++v) {
        if (out_pos) {
            const float *p = &pos[v * 3];
            sinew_vec3 q = sinew__mat3_apply(a, sinew__v3(p[0], p[1], p[2]));
            out_pos[v * 3] = q.x + x->m[12], out_pos[v * 3 + 1] = q.y + x->m[13], out_pos[v * 3 + 2] = q.z + x->m[14];
        }
        if (out_nrm) {
            const float *p = &nrm[v * 3];
            sinew_vec3 q = sinew__v3_normalize(sinew__mat3_transform_normal(a, sinew__v3(p[0], p[1], p[2])));
            out_nrm[v * 3] = q.x, out_nrm[v * 3 + 1] = q.y, out_nrm[v * 3 + 2] = q.z;
        }
        if (out_tan) {
            const float *p = &tan[v * 4];
            float w = p[3];
            sinew_vec3 q = sinew__v3_normalize(sinew__mat3_apply(a, sinew__v3(p[0], p[1], p[2])));
            out_tan[v * 4] = q.x, out_tan[v * 4 + 1] = q.y, out_tan[v * 4 + 2] = q.z, out_tan[v * 4 + 3] = w;
        }
    }
}

/* `r` from a function sinew_mesh_pose calls, its error sentence started
 * with sinew_mesh_pose. */
static sinew_result lead(sinew_error *err, sinew_result r)
{
    if (r != SINEW_OK) sinew__error_lead(err, "sinew_mesh_pose");
    return r;
}

sinew_result sinew_mesh_pose(const sinew_mesh *m, const sinew_mat4 *model, int model_count, const float *morph_weights,
                             sinew_skinning method, void *scratch, size_t scratch_size, float *positions,
                             float *normals, float *tangents, sinew_error *err)
{
    if (!m || (!model && model_count > 0) || (unsigned)method > SINEW_SKINNING_DQS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_mesh_pose: a mesh, model matrices and a method");
    if (scratch_size < sinew_mesh_pose_scratch_size(m) || (scratch_size && !scratch))
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                           "sinew_mesh_pose: mesh \"%s\": scratch of %zu bytes, %zu needed", m->name, scratch_size,
                           sinew_mesh_pose_scratch_size(m));
    if (m->joint >= model_count && !m->skin)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                           "sinew_mesh_pose: mesh \"%s\": joint %d, %d model matrices", m->name, m->joint, model_count);
    /* streams the mesh lacks are not written */
    if (!m->normals) normals = NULL;
    if (!m->tangents) tangents = NULL;
    const float *pos = m->positions, *nrm = m->normals, *tan = m->tangents;
    sinew_result r;
    if (m->morph) {
        const float *w = morph_weights ? morph_weights : m->morph_weights;
        r = sinew_morph_apply(m->morph, w, m->morph->target_count, pos, nrm, tan, positions, normals, tangents, err);
        if (r != SINEW_OK) return lead(err, r);
        pos = positions, nrm = normals, tan = tangents;
    }
    if (!m->skin) {
        if (m->joint >= 0) {
            pose_rigid(m, &model[m->joint], pos, nrm, tan, positions, normals, tangents);
        } else {
            if (positions && positions != pos) memcpy(positions, pos, sizeof(float) * 3 * (size_t)m->vertex_count);
            if (normals && normals != nrm) memcpy(normals, nrm, sizeof(float) * 3 * (size_t)m->vertex_count);
            if (tangents && tangents != tan) memcpy(tangents, tan, sizeof(float) * 4 * (size_t)m->vertex_count);
        }
        sinew__ok(err);
        return SINEW_OK;
    }
    const sinew_skin *skin = m->skin;
    sinew_mat4 *palette = scratch;
    if ((r = sinew_skin_palette(skin, model, model_count, NULL, palette, skin->joint_count, err)) != SINEW_OK)
        return lead(err, r);
    sinew_skin_job job = {.skin = skin, .palette = palette, .palette_count = skin->joint_count,
                          .normal_mode = SINEW_NORMALS_INVERSE_TRANSPOSE,
                          .positions = positions ? pos : NULL, .normals = normals ? nrm : NULL,
                          .tangents = tangents ? tan : NULL, .out_positions = positions, .out_normals = normals,
                          .out_tangents = tangents};
    if (method == SINEW_SKINNING_LBS) return lead(err, sinew_skin_lbs(&job, err));
    sinew_dq_transform *dq = (sinew_dq_transform *)(palette + skin->joint_count);
    if ((r = sinew_dq_palette(palette, skin->joint_count, dq, err)) != SINEW_OK) return lead(err, r);
    job.palette = NULL;
    job.dq_palette = dq;
    return lead(err, sinew_skin_dqs(&job, err));
}

sinew_result sinew__asset_skin(sinew_asset *asset, const sinew_skin_desc *desc, const sinew__stored_blocks *stored,
                                bool borrow, const char *what, const sinew_options *options, sinew_error *err,
                                sinew_mesh *mesh)
{
    sinew_options quiet = options ? *options : (sinew_options){0};
    quiet.logger.log = NULL;
    sinew_skin_report rep;
    sinew_error e;
    sinew_skin *skin = sinew__skin_create_stored(asset->skeleton, desc, stored, borrow, &quiet, &rep, &e);
    if (!skin) return sinew__fail(err, e.result, "%s: %s", what, sinew__error_sentence(e.description));
    if (rep.normalized_vertices)
        sinew__warn(options, "%s: %d of %d vertices had weights not summing to 1 and were normalized (worst: "
                             "vertex %d, sum %g)", what, rep.normalized_vertices, desc->vertex_count, rep.worst_vertex,
                    (double)rep.worst_sum);
    mesh->skin = skin;
    return SINEW_OK;
}
