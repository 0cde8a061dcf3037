/* SPDX-License-Identifier: MIT */
/* What every loader builds the same way: joints from a file's nodes, skins. */
#include "import_internal.h"
#include "skin/skin_internal.h" /* a skin's stored layout */

#include <stdio.h>

sinew_result sinew__import_matrix(const sinew_mat4 *m, import_node *node, bool *projective)
{
    *projective = false;
    node->split = false;
    for (int i = 0; i < 16; ++i)
        if (!isfinite(m->m[i])) return SINEW_ERROR_NOT_FINITE;
    sinew_result d = sinew_mat4_decompose(m, &node->rest, NULL);
    if (d == SINEW_ERROR_SINGULAR) return d;
    if (d == SINEW_OK) return SINEW_OK;
    d = sinew_mat4_decompose_affine(m, &node->rest, &node->inner);
    if (d == SINEW_ERROR_SINGULAR || d == SINEW_ERROR_NOT_FINITE) return d;
    *projective = d == SINEW_ERROR_SHEAR;
    /* a projective last row on an otherwise clean TRS needs no split */
    sinew_quat q = node->inner;
    node->split = !(fabsf(q.w) > 1.0f - 1e-7f);
    return SINEW_OK;
}

sinew_result sinew__import_skeleton(sinew_asset *asset, const import_node *nodes, int count, int source_count,
                                    const char *what, const sinew_options *options, sinew_error *err, int *node_joint)
{
    sinew_allocator alloc = sinew__allocator(options);
    int splits = 0;
    for (int i = 0; i < count; ++i) splits += nodes[i].split;
    int joints = count + splits;
    sinew_result r = SINEW_OK;
    if (joints > SINEW_MAX_JOINTS)
        return sinew__fail(err, SINEW_ERROR_TOO_MANY_JOINTS, "%s: %d joints exceed the limit of %d", what, joints,
                           SINEW_MAX_JOINTS);
    size_t n = (size_t)joints + 1;
    int *parents = sinew__alloc(&alloc, n * sizeof *parents);
    sinew_transform *rest = sinew__alloc(&alloc, n * sizeof *rest);
    const char **names = sinew__alloc(&alloc, n * sizeof *names);
    int *inner_of = sinew__alloc(&alloc, n * sizeof *inner_of);
    int *remap = sinew__alloc(&alloc, n * sizeof *remap);
    char *outer_names = NULL;
    size_t outer_bytes = 0;
    for (int i = 0; i < count; ++i)
        if (nodes[i].split) outer_bytes += strlen(nodes[i].name) + 8;
    if (outer_bytes) outer_names = sinew__alloc(&alloc, outer_bytes);
    int *sources = sinew__asset_alloc(asset, n, sizeof *sources);
    int *node_joints = sinew__asset_alloc(asset, (size_t)source_count + 1, sizeof *node_joints);
    if (!parents || !rest || !names || !inner_of || !remap || (outer_bytes && !outer_names) || !sources ||
        !node_joints) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        goto done;
    }
    int extra = count;
    char *name_at = outer_names;
    for (int i = 0; i < count; ++i) {
        rest[i] = nodes[i].rest;
        names[i] = nodes[i].name;
        inner_of[i] = i;
        if (!nodes[i].split) continue;
        int e = extra++;
        inner_of[i] = e;
        parents[e] = i;
        rest[e] = (sinew_transform){{0, 0, 0}, nodes[i].inner, {1, 1, 1}};
        /* the node's name goes to the joint that carries its world matrix */
        names[e] = nodes[i].name;
        sprintf(name_at, "%s#shear", nodes[i].name);
        names[i] = name_at;
        name_at += strlen(name_at) + 1;
        sinew__warn(options, "%s[%d] \"%s\": its matrix has shear, kept exactly as two joints (\"%s\" and \"%s\")",
                    what, nodes[i].source, nodes[i].name, names[i], names[e]);
    }
    for (int i = 0; i < count; ++i) parents[i] = nodes[i].parent >= 0 ? inner_of[nodes[i].parent] : -1;
    sinew_skeleton_desc d = {joints, parents, names, rest};
    sinew_error e;
    sinew_skeleton *sk = sinew_skeleton_create(&d, remap, options, &e);
    if (!sk) {
        r = sinew__fail(err, e.result, "%s: %s", what, sinew__error_sentence(e.description));
        goto done;
    }
    asset->skeleton = sk;
    for (int k = 0; k < source_count; ++k) node_joints[k] = -1;
    for (int k = 0; k < joints; ++k) sources[remap[k]] = nodes[k < count ? k : parents[k]].source;
    for (int i = 0; i < count; ++i) {
        node_joint[i] = remap[inner_of[i]];
        node_joints[nodes[i].source] = node_joint[i];
    }
    asset->joint_sources = sources;
    asset->node_joints = node_joints;
    asset->node_count = source_count;
done:
    sinew__free(&alloc, parents);
    sinew__free(&alloc, rest);
    sinew__free(&alloc, names);
    sinew__free(&alloc, inner_of);
    sinew__free(&alloc, remap);
    sinew__free(&alloc, outer_names);
    return r;
}

/* ---- vertices in skinning order ------------------------------------------- */

/* to[i] = from[order[i]] for n elements of `size` bytes. */
static void gather(void *to, const void *from, size_t size, const int *order, int n)
{
    for (int i = 0; i < n; ++i)
        memcpy((unsigned char *)to + (size_t)i * size, (const unsigned char *)from + (size_t)order[i] * size, size);
}

/* data[i] = old data[order[i]] for n elements of `size` bytes, through
 * `scratch` (n * size bytes). */
static void permute(void *data, size_t size, const int *order, int n, unsigned char *scratch)
{
    if (!data) return;
    gather(scratch, data, size, order, n);
    memcpy(data, scratch, (size_t)n * size);
}

/* The skin with its vertices in `order`: the stored indices and weights
 * permuted and made into a new skin (nothing to repair: they were checked
 * when first made). */
static sinew_skin *reordered_skin(const sinew_asset *asset, const sinew_skin *s, const int *order,
                                  const sinew_options *options, sinew_error *err)
{
    sinew_allocator alloc = sinew__allocator(options);
    int n = s->vertex_count, k = sinew__skin_stored_weights(s);
    size_t irow = (size_t)s->influence_count * sinew__index_bytes(s->index_type);
    size_t wrow = (size_t)k * sinew__weight_bytes(s->weight_type);
    unsigned char *idx = sinew__import_alloc(&alloc, (size_t)n + 1, irow);
    unsigned char *w = sinew__import_alloc(&alloc, (size_t)n * wrow + 1, 1); /* wrow is 0 without weights */
    int *joints = sinew__import_alloc(&alloc, (size_t)s->joint_count + 1, sizeof *joints);
    sinew_skin *out = NULL;
    if (!idx || !w || !joints) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    } else {
        gather(idx, s->indices, irow, order, n);
        if (wrow) gather(w, s->weights, wrow, order, n);
        for (int j = 0; j < s->joint_count; ++j) joints[j] = s->joints[j];
        sinew_skin_desc d = {.joint_count = s->joint_count, .joints = joints, .inverse_bind = s->inverse_bind,
                             .vertex_count = n, .influence_count = s->influence_count, .index_type = s->index_type,
                             .indices = idx, .weight_type = s->weight_type, .weights = k ? w : NULL,
                             .last_weight_implied = s->last_weight_implied};
        out = sinew_skin_create(asset->skeleton, &d, options, NULL, err);
    }
    sinew__free(&alloc, idx);
    sinew__free(&alloc, w);
    sinew__free(&alloc, joints);
    return out;
}

sinew_result sinew__import_order_vertices(sinew_asset *asset, const sinew_options *options, sinew_error *err)
{
    sinew_allocator alloc = sinew__allocator(options);
    for (int m = 0; m < asset->mesh_count; ++m) {
        sinew_mesh *mesh = (sinew_mesh *)&asset->meshes[m];
        int n = mesh->vertex_count;
        if (!mesh->skin || n < 2) continue;
        int *order = sinew__import_alloc(&alloc, (size_t)n, sizeof *order);
        int *place = sinew__import_alloc(&alloc, (size_t)n, sizeof *place);
        unsigned char *scratch = sinew__import_alloc(&alloc, (size_t)n, 4 * sizeof(float));
        sinew_result r = order && place && scratch ? sinew_skin_vertex_order(mesh->skin, order, err)
                                                   : sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        sinew_skin *skin = r == SINEW_OK ? reordered_skin(asset, mesh->skin, order, options, err) : NULL;
        if (r == SINEW_OK && !skin) r = err ? err->result : SINEW_ERROR_OUT_OF_MEMORY;
        if (r == SINEW_OK) {
            permute((void *)mesh->positions, 3 * sizeof(float), order, n, scratch);
            permute((void *)mesh->normals, 3 * sizeof(float), order, n, scratch);
            permute((void *)mesh->tangents, 4 * sizeof(float), order, n, scratch);
            for (int t = 0; t < mesh->texcoord_count; ++t)
                permute((void *)mesh->texcoords[t], 2 * sizeof(float), order, n, scratch);
            permute((void *)mesh->colors, 4 * sizeof(float), order, n, scratch);
            const sinew_morph *mo = mesh->morph;
            for (int t = 0; mo && t < mo->target_count; ++t) {
                size_t at = (size_t)t * (size_t)n * 3;
                permute(mo->positions ? (void *)(mo->positions + at) : NULL, 3 * sizeof(float), order, n, scratch);
                permute(mo->normals ? (void *)(mo->normals + at) : NULL, 3 * sizeof(float), order, n, scratch);
                permute(mo->tangents ? (void *)(mo->tangents + at) : NULL, 3 * sizeof(float), order, n, scratch);
            }
            for (int i = 0; i < n; ++i) place[order[i]] = i;
            uint32_t *indices = (uint32_t *)mesh->indices;
            for (int i = 0; i < mesh->index_count; ++i) indices[i] = (uint32_t)place[indices[i]];
            sinew_skin_free((sinew_skin *)mesh->skin);
            mesh->skin = skin;
        } else if (err) {
            char what[sizeof err->description];
            snprintf(what, sizeof what, "%s", sinew__error_sentence(err->description));
            sinew__fail(err, r, "meshes[%d] \"%s\": ordering its vertices: %s", m, mesh->name, what);
        }
        sinew__free(&alloc, order);
        sinew__free(&alloc, place);
        sinew__free(&alloc, scratch);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}
