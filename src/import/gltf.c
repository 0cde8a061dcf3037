/* SPDX-License-Identifier: MIT */
/* glTF 2.0 scene to sinew asset: every node becomes a joint (parents first,
 * the node index kept), skins become per-primitive sinew_skin, primitives
 * become meshes, animations become clips. */
#include "gltf_doc.h"
#include "import_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(b, result, ...) sinew__fail((b)->doc->err, (result), __VA_ARGS__)

typedef struct gltf_skin {
    int joint_count;
    int *joints;          /* skeleton joints */
    sinew_mat4 *inverse_bind;
} gltf_skin;

typedef struct builder {
    gltf_doc *doc;
    sinew_asset *asset;
    const sinew_options *options;   /* the caller's: allocator and logger */
    sinew_allocator alloc;
    int node_count;
    int *node_joint;                /* node -> skeleton joint */
    bool *in_scene;
    int skin_count;
    gltf_skin *skins;
} builder;

static void *scratch(builder *b, size_t count, size_t size) { return sinew__import_alloc(&b->alloc, count, size); }

/* ---- nodes -> skeleton ------------------------------------------------------ */

/* nodes[i] into list[i] (`list` is the whole array: children get their
 * parent here). */
static sinew_result read_node(builder *b, int i, const cJSON *node, import_node *list)
{
    import_node *out = &list[i];
    char path[48];
    snprintf(path, sizeof path, "nodes[%d]", i);
    if (!cJSON_IsObject(node)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    sinew_result r;
    const char *name;
    if ((r = gltf_string(b->doc, node, "name", path, &name)) != SINEW_OK) return r;
    out->source = i;
    out->name = name ? name : "";
    const cJSON *children;
    int n;
    if ((r = gltf_array(b->doc, node, "children", path, &children, &n)) != SINEW_OK) return r;
    for (int c = 0; c < n; ++c) {
        int child = gltf_node_index(cJSON_GetArrayItem(children, c), b->node_count);
        if (child < 0)
            return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.children[%d]: not an index of nodes (%d nodes)", path, c,
                        b->node_count);
        if (list[child].parent >= 0)
            return FAIL(b, SINEW_ERROR_PARSE, "nodes[%d] has two parents: nodes[%d] and nodes[%d]", child,
                        list[child].parent, i);
        if (child == i) return FAIL(b, SINEW_ERROR_CYCLE, "%s.children[%d]: a node is its own child", path, c);
        list[child].parent = i;
    }
    static const float t0[3] = {0, 0, 0}, r0[4] = {0, 0, 0, 1}, s0[3] = {1, 1, 1};
    float t[3], q[4], s[3];
    if ((r = gltf_floats(b->doc, node, "translation", path, 3, t0, t)) != SINEW_OK ||
        (r = gltf_floats(b->doc, node, "rotation", path, 4, r0, q)) != SINEW_OK ||
        (r = gltf_floats(b->doc, node, "scale", path, 3, s0, s)) != SINEW_OK)
        return r;
    out->rest = (sinew_transform){{t[0], t[1], t[2]}, {q[0], q[1], q[2], q[3]}, {s[0], s[1], s[2]}};
    if (cJSON_GetObjectItemCaseSensitive(node, "matrix")) {
        sinew_mat4 mat = sinew_mat4_identity();
        if ((r = gltf_floats(b->doc, node, "matrix", path, 16, mat.m, mat.m)) != SINEW_OK) return r;
        bool projective;
        if (sinew__import_matrix(&mat, out, &projective) != SINEW_OK)
            return FAIL(b, SINEW_ERROR_SINGULAR, "%s.matrix: singular (a zero scale axis)", path);
        if (projective)
            sinew__warn(b->options, "%s.matrix: the last row is not (0, 0, 0, 1); only the affine part is kept", path);
    } else if (sinew__q_dot(out->rest.rotation, out->rest.rotation) == 0.0f) {
        return FAIL(b, SINEW_ERROR_BAD_ROTATION, "%s.rotation: the zero quaternion", path);
    }
    return SINEW_OK;
}

/* Every node becomes a joint (a sheared one two). */
static sinew_result read_nodes(builder *b)
{
    const cJSON *nodes;
    int n;
    sinew_result r = gltf_array(b->doc, b->doc->root, "nodes", "", &nodes, &n);
    if (r != SINEW_OK) return r;
    if (n > SINEW_MAX_JOINTS)
        return FAIL(b, SINEW_ERROR_TOO_MANY_JOINTS, "nodes: %d nodes exceed the limit of %d joints", n, SINEW_MAX_JOINTS);
    b->node_count = n;
    import_node *list = scratch(b, (size_t)n + 1, sizeof *list);
    b->node_joint = scratch(b, (size_t)n + 1, sizeof *b->node_joint);
    if (!list || !b->node_joint) {
        sinew__free(&b->alloc, list);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    for (int i = 0; i < n; ++i) list[i].parent = -1;
    const cJSON *node;
    int i = 0;
    cJSON_ArrayForEach(node, nodes)
    {
        if ((r = read_node(b, i, node, list)) != SINEW_OK) break;
        ++i;
    }
    if (r == SINEW_OK)
        r = sinew__import_skeleton(b->asset, list, n, n, "nodes", b->options, b->doc->err, b->node_joint);
    sinew__free(&b->alloc, list);
    return r;
}

/* Marks the nodes of the default scene (scene 0 when none is named; every
 * node when there are no scenes). Iterative: no recursion on deep trees. */
static sinew_result mark_scene(builder *b)
{
    b->in_scene = scratch(b, (size_t)b->node_count + 1, sizeof *b->in_scene);
    if (!b->in_scene) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "scenes: out of memory");
    const cJSON *scenes;
    int n, scene;
    sinew_result r;
    if ((r = gltf_array(b->doc, b->doc->root, "scenes", "", &scenes, &n)) != SINEW_OK ||
        (r = gltf_ref(b->doc, b->doc->root, "scene", "", false, "scenes", n, &scene)) != SINEW_OK)
        return r;
    if (n == 0) {
        for (int i = 0; i < b->node_count; ++i) b->in_scene[i] = true;
        return SINEW_OK;
    }
    if (scene < 0) scene = 0;
    int chosen = b->doc->options->scene;
    if (chosen > 0) {
        if (chosen > n)
            return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "scenes: scene %d was asked for, the file has %d", chosen - 1, n);
        scene = chosen - 1;
    }
    char path[48];
    snprintf(path, sizeof path, "scenes[%d]", scene);
    const cJSON *roots;
    int count;
    const cJSON *sc = cJSON_GetArrayItem(scenes, scene);
    if (!cJSON_IsObject(sc)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    if ((r = gltf_array(b->doc, sc, "nodes", path, &roots, &count)) != SINEW_OK) return r;
    const sinew_skeleton *sk = b->asset->skeleton;
    bool *root_joint = scratch(b, (size_t)sk->joint_count + 1, sizeof *root_joint);
    if (!root_joint) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "scenes: out of memory");
    for (int k = 0; k < count; ++k) {
        int node = gltf_node_index(cJSON_GetArrayItem(roots, k), b->node_count);
        if (node < 0) {
            sinew__free(&b->alloc, root_joint);
            return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.nodes[%d]: not an index of nodes", path, k);
        }
        root_joint[b->node_joint[node]] = true;
    }
    /* parents first: a joint is in the scene if it is a listed root or its
     * parent is in the scene */
    bool *joint_in = root_joint;
    for (int j = 0; j < sk->joint_count; ++j)
        joint_in[j] = joint_in[j] || (sk->parents[j] >= 0 && joint_in[sk->parents[j]]);
    for (int i = 0; i < b->node_count; ++i) b->in_scene[i] = joint_in[b->node_joint[i]];
    sinew__free(&b->alloc, root_joint);
    return SINEW_OK;
}

/* ---- skins ------------------------------------------------------------------------ */

static sinew_result read_skins(builder *b)
{
    const cJSON *skins;
    int n;
    sinew_result r = gltf_array(b->doc, b->doc->root, "skins", "", &skins, &n);
    if (r != SINEW_OK) return r;
    b->skins = scratch(b, (size_t)n + 1, sizeof *b->skins);
    if (!b->skins) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    b->skin_count = n;
    for (int s = 0; s < n; ++s) {
        char path[48];
        snprintf(path, sizeof path, "skins[%d]", s);
        const cJSON *skin = cJSON_GetArrayItem(skins, s), *joints;
        int count, ibm;
        if (!cJSON_IsObject(skin)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
        int hint; /* "skeleton": checked, not needed (every node is a joint) */
        if ((r = gltf_array(b->doc, skin, "joints", path, &joints, &count)) != SINEW_OK ||
            (r = gltf_ref(b->doc, skin, "inverseBindMatrices", path, false, "accessors", b->doc->accessor_count,
                          &ibm)) != SINEW_OK ||
            (r = gltf_ref(b->doc, skin, "skeleton", path, false, "nodes", b->node_count, &hint)) != SINEW_OK)
            return r;
        if (count < 1) return FAIL(b, SINEW_ERROR_PARSE, "%s.joints: required, at least one", path);
        gltf_skin *gs = &b->skins[s];
        gs->joint_count = count;
        gs->joints = scratch(b, (size_t)count, sizeof *gs->joints);
        gs->inverse_bind = scratch(b, (size_t)count, sizeof *gs->inverse_bind);
        if (!gs->joints || !gs->inverse_bind) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (int k = 0; k < count; ++k) {
            int node = gltf_node_index(cJSON_GetArrayItem(joints, k), b->node_count);
            if (node < 0) return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.joints[%d]: not an index of nodes", path, k);
            gs->joints[k] = b->node_joint[node];
            gs->inverse_bind[k] = sinew_mat4_identity();
        }
        if (ibm >= 0) {
            char what[80];
            snprintf(what, sizeof what, "%s.inverseBindMatrices", path);
            if (b->doc->accessors[ibm].count < count)
                return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] holds %d matrices for %d joints", what, ibm,
                            b->doc->accessors[ibm].count, count);
            float *m = scratch(b, (size_t)b->doc->accessors[ibm].count, sizeof(float) * 16);
            if (!m) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            r = gltf_read_floats(b->doc, ibm, 16, what, m);
            if (r == SINEW_OK) memcpy(gs->inverse_bind, m, sizeof(sinew_mat4) * (size_t)count);
            sinew__free(&b->alloc, m);
            if (r != SINEW_OK) return r;
        }
    }
    return SINEW_OK;
}

/* ---- meshes ------------------------------------------------------------------------- */

/* Reads attribute `name` of a primitive into asset memory, or NULL with
 * SINEW_OK when absent. */
static sinew_result read_attribute(builder *b, const cJSON *attrs, const char *name, const char *path, int components,
                                   int vertex_count, float **out)
{
    *out = NULL;
    int acc;
    sinew_result r = gltf_ref(b->doc, attrs, name, path, false, "accessors", b->doc->accessor_count, &acc);
    if (r != SINEW_OK || acc < 0) return r;
    char what[160];
    snprintf(what, sizeof what, "%s.%s", path, name);
    if (b->doc->accessors[acc].count != vertex_count)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] count %d differs from POSITION's %d", what, acc,
                    b->doc->accessors[acc].count, vertex_count);
    float *data = sinew__asset_alloc(b->asset, (size_t)vertex_count * (size_t)components, sizeof(float));
    if (!data) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    if ((r = gltf_read_floats(b->doc, acc, components, what, data)) != SINEW_OK) return r;
    *out = data;
    return SINEW_OK;
}

/* Triangle list from indices (or 0..n-1) and the primitive's mode. */
static sinew_result read_triangles(builder *b, const cJSON *prim, const char *path, int vertex_count, long mode,
                                   sinew_mesh *mesh)
{
    int acc;
    sinew_result r = gltf_ref(b->doc, prim, "indices", path, false, "accessors", b->doc->accessor_count, &acc);
    if (r != SINEW_OK) return r;
    int n = acc >= 0 ? b->doc->accessors[acc].count : vertex_count;
    uint32_t *idx = scratch(b, (size_t)n + 1, sizeof *idx);
    if (!idx) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    char what[128];
    snprintf(what, sizeof what, "%s.indices", path);
    if (acc >= 0) {
        if ((r = gltf_read_uints(b->doc, acc, 1, what, idx)) != SINEW_OK) goto done;
        for (int i = 0; i < n; ++i)
            if (idx[i] >= (uint32_t)vertex_count) {
                r = FAIL(b, SINEW_ERROR_OUT_OF_BOUNDS, "%s: index %u at position %d exceeds the %d vertices", what,
                         idx[i], i, vertex_count);
                goto done;
            }
    } else {
        for (int i = 0; i < n; ++i) idx[i] = (uint32_t)i;
    }
    int tris = mode == 4 ? n / 3 : (mode == 5 || mode == 6) && n >= 3 ? n - 2 : 0;
    uint32_t *out = sinew__asset_alloc(b->asset, (size_t)tris * 3 + 1, sizeof *out);
    if (!out) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    for (int t = 0; t < tris; ++t) {
        uint32_t *o = &out[t * 3];
        if (mode == 4) {
            o[0] = idx[t * 3], o[1] = idx[t * 3 + 1], o[2] = idx[t * 3 + 2];
        } else if (mode == 5) { /* strip: every other triangle flips to keep the winding */
            o[0] = idx[t + (t & 1)], o[1] = idx[t + 1 - (t & 1)], o[2] = idx[t + 2];
        } else { /* fan */
            o[0] = idx[0], o[1] = idx[t + 1], o[2] = idx[t + 2];
        }
    }
    if (mode == 4 && n % 3)
        sinew__warn(b->options, "%s: %d indices are not a multiple of 3; the last %d are ignored", what, n, n % 3);
    mesh->indices = out;
    mesh->index_count = tris * 3;
done:
    sinew__free(&b->alloc, idx);
    return r;
}

/* Missing normals: each vertex gets the area-weighted sum of the normals of
 * its triangles, normalized. For unshared vertices this is the flat normal
 * the specification asks for; shared vertices get the smooth average (a
 * vertex cannot hold two flat normals without changing the vertex order). */
static float *compute_normals(builder *b, const sinew_mesh *m)
{
    float *n = sinew__asset_alloc(b->asset, (size_t)m->vertex_count * 3, sizeof(float));
    if (!n) return NULL;
    for (int t = 0; t < m->index_count; t += 3) {
        const uint32_t *ix = &m->indices[t];
        const float *p0 = &m->positions[ix[0] * 3], *p1 = &m->positions[ix[1] * 3], *p2 = &m->positions[ix[2] * 3];
        sinew_vec3 f = sinew__v3_cross(sinew__v3(p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]),
                                       sinew__v3(p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]));
        for (int k = 0; k < 3; ++k) n[ix[k] * 3] += f.x, n[ix[k] * 3 + 1] += f.y, n[ix[k] * 3 + 2] += f.z;
    }
    for (int v = 0; v < m->vertex_count; ++v) {
        sinew_vec3 u = sinew__v3_normalize(sinew__v3(n[v * 3], n[v * 3 + 1], n[v * 3 + 2]));
        n[v * 3] = u.x, n[v * 3 + 1] = u.y, n[v * 3 + 2] = u.z;
    }
    return n;
}

/* JOINTS_n / WEIGHTS_n sets into one sinew_skin: every set is read; a
 * vertex with more than 8 non-zero weights keeps its 8 heaviest (reported). */
static sinew_result read_skin(builder *b, const cJSON *attrs, const char *path, int vertex_count, int skin_index,
                              sinew_mesh *mesh)
{
    int sets = 0;
    for (;; ++sets) {
        char jn[32], wn[32];
        snprintf(jn, sizeof jn, "JOINTS_%d", sets);
        snprintf(wn, sizeof wn, "WEIGHTS_%d", sets);
        bool j = cJSON_GetObjectItemCaseSensitive(attrs, jn) != NULL, w = cJSON_GetObjectItemCaseSensitive(attrs, wn) != NULL;
        if (j != w) return FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: %s without %s", path, j ? jn : wn, j ? wn : jn);
        if (!j) break;
        if (sets >= 64) return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s.attributes: more than 64 JOINTS sets", path);
    }
    if (sets == 0) {
        if (skin_index >= 0)
            sinew__warn(b->options, "%s: the node has a skin but the primitive has no JOINTS_0; drawn rigid", path);
        return SINEW_OK;
    }
    if (skin_index < 0) {
        sinew__warn(b->options, "%s: JOINTS_0 without a skin on the node; drawn rigid", path);
        return SINEW_OK;
    }
    size_t total = (size_t)vertex_count * 4 * (size_t)sets;
    uint32_t *joints = scratch(b, total, sizeof *joints);
    float *weights = scratch(b, total, sizeof *weights);
    int slots = sets * 4 > SINEW_MAX_INFLUENCES ? SINEW_MAX_INFLUENCES : sets * 4;
    uint16_t *idx = scratch(b, (size_t)vertex_count * (size_t)slots, sizeof *idx);
    float *w = scratch(b, (size_t)vertex_count * (size_t)slots, sizeof *w);
    sinew_result r = SINEW_OK;
    if (!joints || !weights || !idx || !w) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d influence sets", path, sets);
        goto done;
    }
    for (int s = 0; s < sets; ++s) {
        char jn[32], wn[32];
        snprintf(jn, sizeof jn, "JOINTS_%d", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%d", s);
        int ja, wa;
        char what[160];
        uint32_t *jset = scratch(b, (size_t)vertex_count * 4, sizeof *jset);
        float *wset = scratch(b, (size_t)vertex_count * 4, sizeof *wset);
        if (!jset || !wset) {
            sinew__free(&b->alloc, jset), sinew__free(&b->alloc, wset);
            r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
            goto done;
        }
        if ((r = gltf_ref(b->doc, attrs, jn, path, true, "accessors", b->doc->accessor_count, &ja)) == SINEW_OK &&
            (r = gltf_ref(b->doc, attrs, wn, path, true, "accessors", b->doc->accessor_count, &wa)) == SINEW_OK) {
            if (b->doc->accessors[ja].count != vertex_count || b->doc->accessors[wa].count != vertex_count) {
                r = FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: %s or %s count differs from POSITION's %d", path, jn, wn,
                         vertex_count);
            } else {
                snprintf(what, sizeof what, "%s.attributes.%s", path, jn);
                r = gltf_read_uints(b->doc, ja, 4, what, jset);
                snprintf(what, sizeof what, "%s.attributes.%s", path, wn);
                if (r == SINEW_OK) r = gltf_read_floats(b->doc, wa, 4, what, wset);
            }
        }
        for (int v = 0; r == SINEW_OK && v < vertex_count; ++v) {
            memcpy(&joints[((size_t)v * (size_t)sets + (size_t)s) * 4], &jset[(size_t)v * 4], 4 * sizeof *jset);
            memcpy(&weights[((size_t)v * (size_t)sets + (size_t)s) * 4], &wset[(size_t)v * 4], 4 * sizeof *wset);
        }
        sinew__free(&b->alloc, jset), sinew__free(&b->alloc, wset);
        if (r != SINEW_OK) goto done;
    }
    const gltf_skin *gs = &b->skins[skin_index];
    int trimmed = 0;
    for (int v = 0; v < vertex_count; ++v) {
        uint32_t *vj = &joints[(size_t)v * (size_t)sets * 4];
        float *vw = &weights[(size_t)v * (size_t)sets * 4];
        int n = sets * 4, nonzero = 0;
        for (int i = 0; i < n; ++i) {
            nonzero += vw[i] > 0.0f;
            /* an index beyond the skin's joints: named here, with the glTF path */
            if (vw[i] > 0.0f && vj[i] >= (uint32_t)gs->joint_count) {
                r = FAIL(b, SINEW_ERROR_BAD_JOINT_INDEX,
                         "%s.attributes.JOINTS_%d: vertex %d uses joint %u, skins[%d] has %d joints", path, i / 4, v,
                         vj[i], skin_index, gs->joint_count);
                goto done;
            }
        }
        if (nonzero > SINEW_MAX_INFLUENCES) ++trimmed;
        /* the heaviest `slots` weights, in the order given */
        for (int k = 0; k < slots; ++k) {
            int best = -1;
            for (int i = 0; i < n; ++i)
                if (vw[i] >= 0.0f && (best < 0 || vw[i] > vw[best])) best = i;
            if (best < 0) break;
            idx[(size_t)v * (size_t)slots + (size_t)k] = vw[best] > 0.0f ? (uint16_t)vj[best] : 0;
            w[(size_t)v * (size_t)slots + (size_t)k] = vw[best];
            vw[best] = -1.0f;
        }
    }
    if (trimmed)
        sinew__warn(b->options, "%s: %d vertices have more than %d weights; the %d heaviest are kept and renormalized",
                    path, trimmed, SINEW_MAX_INFLUENCES, SINEW_MAX_INFLUENCES);
    sinew_skin_desc d = {gs->joint_count, gs->joints, NULL, gs->inverse_bind, vertex_count, slots,
                         SINEW_INDEX_U16, idx, SINEW_WEIGHT_F32, w, false};
    r = sinew__asset_skin(b->asset, &d, NULL, false, path, b->options, b->doc->err, mesh);
done:
    sinew__free(&b->alloc, joints), sinew__free(&b->alloc, weights);
    sinew__free(&b->alloc, idx), sinew__free(&b->alloc, w);
    return r;
}

/* TEXCOORD_0, TEXCOORD_1, ... up to the first set that is missing. */
static sinew_result read_texcoords(builder *b, const cJSON *attrs, const char *apath, int n, sinew_mesh *mesh)
{
    int sets = 0;
    char name[32];
    for (;; ++sets) {
        snprintf(name, sizeof name, "TEXCOORD_%d", sets);
        if (!cJSON_GetObjectItemCaseSensitive(attrs, name)) break;
        if (sets == 64) return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: more than 64 TEXCOORD sets", apath);
    }
    if (!sets) return SINEW_OK;
    float **uv = sinew__asset_alloc(b->asset, (size_t)sets, sizeof *uv);
    if (!uv) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", apath);
    for (int k = 0; k < sets; ++k) {
        snprintf(name, sizeof name, "TEXCOORD_%d", k);
        sinew_result r = read_attribute(b, attrs, name, apath, 2, n, &uv[k]);
        if (r != SINEW_OK) return r;
    }
    mesh->texcoord_count = sets;
    mesh->texcoords = (const float *const *)uv;
    return SINEW_OK;
}

/* COLOR_0, RGB or RGBA, as RGBA (alpha 1 for RGB). */
static sinew_result read_colors(builder *b, const cJSON *attrs, const char *apath, int n, sinew_mesh *mesh)
{
    int acc;
    sinew_result r = gltf_ref(b->doc, attrs, "COLOR_0", apath, false, "accessors", b->doc->accessor_count, &acc);
    if (r != SINEW_OK || acc < 0) return r;
    int c = b->doc->accessors[acc].components;
    if (c != 3 && c != 4) return FAIL(b, SINEW_ERROR_PARSE, "%s.COLOR_0: accessors[%d] is not VEC3 or VEC4", apath, acc);
    float *rgba;
    if ((r = read_attribute(b, attrs, "COLOR_0", apath, c, n, &rgba)) != SINEW_OK) return r;
    if (c == 3) {
        float *x = sinew__asset_alloc(b->asset, (size_t)n * 4, sizeof *x);
        if (!x) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s.COLOR_0: out of memory", apath);
        for (int v = 0; v < n; ++v)
            x[v * 4] = rgba[v * 3], x[v * 4 + 1] = rgba[v * 3 + 1], x[v * 4 + 2] = rgba[v * 3 + 2], x[v * 4 + 3] = 1;
        rgba = x;
    }
    mesh->colors = rgba;
    return SINEW_OK;
}

/* The morph target count of a mesh (its first primitive's), 0 for none. */
static int morph_target_count(const cJSON *mesh_json)
{
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh_json, "primitives");
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(prims, 0), "targets");
    return cJSON_IsArray(targets) ? cJSON_GetArraySize(targets) : 0;
}

/* One delta stream of every target (NULL when no target has it). */
static sinew_result read_morph_stream(builder *b, const cJSON *targets, int count, const char *name, const char *path,
                                      int n, const float **out)
{
    *out = NULL;
    bool any = false;
    const cJSON *t;
    cJSON_ArrayForEach(t, targets) any = any || cJSON_GetObjectItemCaseSensitive(t, name);
    if (!any) return SINEW_OK;
    float *all = sinew__asset_alloc(b->asset, (size_t)count * (size_t)n, 3 * sizeof(float));
    if (!all) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d targets of %s", path, count, name);
    int k = 0;
    cJSON_ArrayForEach(t, targets)
    {
        char tpath[128];
        snprintf(tpath, sizeof tpath, "%s[%d]", path, k);
        int acc;
        sinew_result r = gltf_ref(b->doc, t, name, tpath, false, "accessors", b->doc->accessor_count, &acc);
        if (r != SINEW_OK) return r;
        if (acc >= 0) {
            char what[160];
            snprintf(what, sizeof what, "%s.%s", tpath, name);
            if (b->doc->accessors[acc].count != n)
                return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] count %d differs from POSITION's %d", what, acc,
                            b->doc->accessors[acc].count, n);
            if ((r = gltf_read_floats(b->doc, acc, 3, what, &all[(size_t)k * (size_t)n * 3])) != SINEW_OK) return r;
        }
        ++k;
    }
    *out = all;
    return SINEW_OK;
}

/* Morph targets and their default weights: the node's "weights", else the
 * mesh's, else zeros. */
static sinew_result read_morph(builder *b, const cJSON *prim, const cJSON *node, int node_index, const cJSON *mesh_json,
                               int mesh_index, const char *path, sinew_mesh *mesh)
{
    const cJSON *targets;
    int count;
    sinew_result r = gltf_array(b->doc, prim, "targets", path, &targets, &count);
    if (r != SINEW_OK || count == 0) return r;
    char tpath[112];
    snprintf(tpath, sizeof tpath, "%s.targets", path);
    if (count > SINEW_MAX_MORPH_TARGETS)
        return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: %d targets exceed the limit of %d", tpath, count,
                    SINEW_MAX_MORPH_TARGETS);
    const cJSON *t;
    cJSON_ArrayForEach(t, targets) if (!cJSON_IsObject(t)) return FAIL(b, SINEW_ERROR_PARSE, "%s: a target is not an object", tpath);
    int first = morph_target_count(mesh_json);
    if (first != count)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: %d targets, meshes[%d].primitives[0] has %d (they must agree)", tpath,
                    count, mesh_index, first);
    sinew_morph *m = sinew__asset_alloc(b->asset, 1, sizeof *m);
    float *w = sinew__asset_alloc(b->asset, (size_t)count, sizeof *w);
    if (!m || !w) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", tpath);
    m->vertex_count = mesh->vertex_count;
    m->target_count = count;
    if ((r = read_morph_stream(b, targets, count, "POSITION", tpath, mesh->vertex_count, &m->positions)) != SINEW_OK ||
        (r = read_morph_stream(b, targets, count, "NORMAL", tpath, mesh->vertex_count, &m->normals)) != SINEW_OK ||
        (r = read_morph_stream(b, targets, count, "TANGENT", tpath, mesh->vertex_count, &m->tangents)) != SINEW_OK)
        return r;
    char npath[48], mpath[48];
    snprintf(npath, sizeof npath, "nodes[%d]", node_index);
    snprintf(mpath, sizeof mpath, "meshes[%d]", mesh_index);
    const cJSON *holder = cJSON_GetObjectItemCaseSensitive(node, "weights") ? node : mesh_json;
    const char *hpath = holder == node ? npath : mpath;
    const cJSON *weights;
    int wc;
    if ((r = gltf_array(b->doc, holder, "weights", hpath, &weights, &wc)) != SINEW_OK) return r;
    if (weights && wc != count)
        return FAIL(b, SINEW_ERROR_PARSE, "%s.weights: %d weights for the %d morph targets of %s", hpath, wc, count,
                    path);
    if (weights && (r = gltf_floats(b->doc, holder, "weights", hpath, count, NULL, w)) != SINEW_OK) return r;
    mesh->morph = m;
    mesh->morph_weights = w;
    return SINEW_OK;
}

static sinew_result read_primitive(builder *b, int node_index, const cJSON *node, int mesh_index, const cJSON *mesh_json,
                                   int p, const cJSON *prim, int skin_index, sinew_mesh *mesh)
{
    char path[96];
    snprintf(path, sizeof path, "meshes[%d].primitives[%d]", mesh_index, p);
    if (!cJSON_IsObject(prim)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    if (!cJSON_IsObject(attrs)) return FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: required object missing", path);
    long mode;
    int pos;
    sinew_result r;
    if ((r = gltf_int(b->doc, prim, "mode", path, false, 4, 0, 6, &mode)) != SINEW_OK ||
        (r = gltf_ref(b->doc, attrs, "POSITION", path, true, "accessors", b->doc->accessor_count, &pos)) != SINEW_OK)
        return r;
    int n = b->doc->accessors[pos].count;
    char apath[112];
    snprintf(apath, sizeof apath, "%s.attributes", path);
    float *positions, *normals, *tangents;
    if ((r = read_attribute(b, attrs, "POSITION", apath, 3, n, &positions)) != SINEW_OK ||
        (r = read_attribute(b, attrs, "NORMAL", apath, 3, n, &normals)) != SINEW_OK ||
        (r = read_attribute(b, attrs, "TANGENT", apath, 4, n, &tangents)) != SINEW_OK)
        return r;
    *mesh = (sinew_mesh){.name = "", .vertex_count = n, .positions = positions, .normals = normals,
                         .tangents = tangents, .joint = b->node_joint[node_index], .source_node = node_index, .source_mesh = mesh_index,
                         .source_primitive = p};
    if ((r = read_texcoords(b, attrs, apath, n, mesh)) != SINEW_OK || (r = read_colors(b, attrs, apath, n, mesh)) != SINEW_OK ||
        (r = read_triangles(b, prim, path, n, mode, mesh)) != SINEW_OK)
        return r;
    if (mode < 4)
        sinew__warn(b->options, "%s: mode %ld (points or lines) has no triangles; vertices are kept", path, mode);
    if (!normals) {
        mesh->normals = compute_normals(b, mesh);
        mesh->tangents = NULL; /* the specification: tangents are ignored without normals */
        if (!mesh->normals) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    if ((r = read_morph(b, prim, node, node_index, mesh_json, mesh_index, path, mesh)) != SINEW_OK) return r;
    return read_skin(b, attrs, path, n, skin_index, mesh);
}

static sinew_result read_meshes(builder *b)
{
    const cJSON *nodes, *meshes;
    int node_count, mesh_count;
    sinew_result r;
    if ((r = gltf_array(b->doc, b->doc->root, "nodes", "", &nodes, &node_count)) != SINEW_OK ||
        (r = gltf_array(b->doc, b->doc->root, "meshes", "", &meshes, &mesh_count)) != SINEW_OK)
        return r;
    /* count primitives of the scene's mesh nodes, then fill */
    int total = 0;
    for (int pass = 0; pass < 2; ++pass) {
        sinew_mesh *out = NULL;
        if (pass == 1) {
            out = sinew__asset_alloc(b->asset, (size_t)total + 1, sizeof *out);
            if (!out) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
            b->asset->meshes = out;
            b->asset->mesh_count = 0;
        }
        for (int i = 0; i < node_count; ++i) {
            if (!b->in_scene[i]) continue;
            const cJSON *node = cJSON_GetArrayItem(nodes, i);
            char path[48];
            snprintf(path, sizeof path, "nodes[%d]", i);
            int m, skin;
            if ((r = gltf_ref(b->doc, node, "mesh", path, false, "meshes", mesh_count, &m)) != SINEW_OK ||
                (r = gltf_ref(b->doc, node, "skin", path, false, "skins", b->skin_count, &skin)) != SINEW_OK)
                return r;
            if (m < 0) continue;
            const cJSON *mesh = cJSON_GetArrayItem(meshes, m), *prims;
            char mpath[48];
            snprintf(mpath, sizeof mpath, "meshes[%d]", m);
            int pc;
            if (!cJSON_IsObject(mesh)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", mpath);
            if ((r = gltf_array(b->doc, mesh, "primitives", mpath, &prims, &pc)) != SINEW_OK) return r;
            if (pass == 0) {
                total += pc;
                continue;
            }
            const char *name;
            if ((r = gltf_string(b->doc, mesh, "name", mpath, &name)) != SINEW_OK) return r;
            for (int p = 0; p < pc; ++p) {
                sinew_mesh *dst = &out[b->asset->mesh_count];
                if ((r = read_primitive(b, i, node, m, mesh, p, cJSON_GetArrayItem(prims, p), skin, dst)) != SINEW_OK) {
                    sinew_skin_free((sinew_skin *)dst->skin);
                    dst->skin = NULL;
                    return r;
                }
                b->asset->mesh_count++; /* the asset owns it (and its skin) from here */
                const char *copy = name ? sinew__asset_strdup(b->asset, name) : "";
                if (!copy) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", mpath);
                dst->name = copy;
            }
        }
    }
    return SINEW_OK;
}

/* ---- animations -> clips ------------------------------------------------------------------ */

static sinew_result read_animation(builder *b, int a, const cJSON *anim, sinew_clip **out)
{
    char path[48];
    snprintf(path, sizeof path, "animations[%d]", a);
    if (!cJSON_IsObject(anim)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *channels, *samplers;
    int nc, ns;
    const char *name;
    sinew_result r;
    if ((r = gltf_array(b->doc, anim, "channels", path, &channels, &nc)) != SINEW_OK ||
        (r = gltf_array(b->doc, anim, "samplers", path, &samplers, &ns)) != SINEW_OK ||
        (r = gltf_string(b->doc, anim, "name", path, &name)) != SINEW_OK)
        return r;
    sinew_track *tracks = scratch(b, (size_t)nc + 1, sizeof *tracks);
    float **owned = scratch(b, (size_t)nc * 2 + 1, sizeof *owned);
    int track_count = 0, owned_count = 0;
    if (!tracks || !owned) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    for (int c = 0; c < nc; ++c) {
        char cpath[80];
        snprintf(cpath, sizeof cpath, "%s.channels[%d]", path, c);
        const cJSON *ch = cJSON_GetArrayItem(channels, c);
        const cJSON *target = cJSON_IsObject(ch) ? cJSON_GetObjectItemCaseSensitive(ch, "target") : NULL;
        if (!cJSON_IsObject(target)) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: target object missing", cpath);
            goto done;
        }
        char tpath[96];
        snprintf(tpath, sizeof tpath, "%s.target", cpath);
        int sampler, node;
        const char *tp;
        if ((r = gltf_ref(b->doc, ch, "sampler", cpath, true, "samplers of this animation", ns, &sampler)) != SINEW_OK ||
            (r = gltf_ref(b->doc, target, "node", tpath, false, "nodes", b->node_count, &node)) != SINEW_OK ||
            (r = gltf_string(b->doc, target, "path", tpath, &tp)) != SINEW_OK)
            goto done;
        if (node < 0) continue; /* no node: for extensions, ignored as the specification says */
        sinew_track_target kind;
        if (tp && strcmp(tp, "translation") == 0)
            kind = SINEW_TARGET_TRANSLATION;
        else if (tp && strcmp(tp, "rotation") == 0)
            kind = SINEW_TARGET_ROTATION;
        else if (tp && strcmp(tp, "scale") == 0)
            kind = SINEW_TARGET_SCALE;
        else if (tp && strcmp(tp, "weights") == 0)
            kind = SINEW_TARGET_WEIGHTS;
        else {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.path: \"%s\" is not translation, rotation, scale or weights", tpath,
                     tp ? tp : "(missing)");
            goto done;
        }
        char spath[80];
        snprintf(spath, sizeof spath, "%s.samplers[%d]", path, sampler);
        const cJSON *s = cJSON_GetArrayItem(samplers, sampler);
        int in, outp;
        const char *interp;
        if (!cJSON_IsObject(s)) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", spath);
            goto done;
        }
        if ((r = gltf_ref(b->doc, s, "input", spath, true, "accessors", b->doc->accessor_count, &in)) != SINEW_OK ||
            (r = gltf_ref(b->doc, s, "output", spath, true, "accessors", b->doc->accessor_count, &outp)) != SINEW_OK ||
            (r = gltf_string(b->doc, s, "interpolation", spath, &interp)) != SINEW_OK)
            goto done;
        sinew_interpolation mode;
        if (!interp || strcmp(interp, "LINEAR") == 0)
            mode = SINEW_INTERP_LINEAR;
        else if (strcmp(interp, "STEP") == 0)
            mode = SINEW_INTERP_STEP;
        else if (strcmp(interp, "CUBICSPLINE") == 0)
            mode = SINEW_INTERP_CUBICSPLINE;
        else {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.interpolation: \"%s\" is not LINEAR, STEP or CUBICSPLINE", spath, interp);
            goto done;
        }
        int keys = b->doc->accessors[in].count, comps = kind == SINEW_TARGET_ROTATION ? 4 : 3;
        if (kind == SINEW_TARGET_WEIGHTS) {
            const cJSON *node_json = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b->doc->root, "nodes"), node);
            const cJSON *mesh_ref = cJSON_GetObjectItemCaseSensitive(node_json, "mesh");
            const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(b->doc->root, "meshes");
            comps = cJSON_IsNumber(mesh_ref) ? morph_target_count(cJSON_GetArrayItem(meshes, mesh_ref->valueint)) : 0;
            if (comps < 1 || comps > SINEW_MAX_MORPH_TARGETS) {
                r = FAIL(b, SINEW_ERROR_PARSE, "%s: animates the weights of nodes[%d], which has no mesh with morph "
                         "targets", cpath, node);
                goto done;
            }
        }
        int expect = mode == SINEW_INTERP_CUBICSPLINE ? 3 * keys : keys;
        /* weights: one scalar per target per key */
        int read_comps = kind == SINEW_TARGET_WEIGHTS ? 1 : comps;
        long expect_elems = (long)expect * (kind == SINEW_TARGET_WEIGHTS ? comps : 1);
        if (b->doc->accessors[outp].count != expect_elems) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.output: count %d, expected %ld for %d keys (%s%s)", spath,
                     b->doc->accessors[outp].count, expect_elems, keys, interp ? interp : "LINEAR",
                     kind == SINEW_TARGET_WEIGHTS ? ", one weight per morph target" : "");
            goto done;
        }
        int joint = b->node_joint[node];
        const sinew_skeleton *sk = b->asset->skeleton;
        if (kind != SINEW_TARGET_WEIGHTS && sk->parents[joint] >= 0 &&
            b->asset->joint_sources[sk->parents[joint]] == node) {
            /* a sheared matrix (two joints): the specification forbids animating it */
            joint = sk->parents[joint];
            sinew__warn(b->options, "%s: nodes[%d] has a matrix, which an animated node must not have; the channel "
                                    "replaces part of it and the shear stays", cpath, node);
        }
        float *times = scratch(b, (size_t)keys, sizeof *times);
        float *values = scratch(b, (size_t)expect * (size_t)comps, sizeof *values);
        owned[owned_count++] = times;
        owned[owned_count++] = values;
        if (!times || !values) {
            r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", spath);
            goto done;
        }
        char what[112];
        snprintf(what, sizeof what, "%s.input", spath);
        if ((r = gltf_read_floats(b->doc, in, 1, what, times)) != SINEW_OK) goto done;
        for (int k = 0; k < keys; ++k)
            if ((k == 0 && times[0] < 0.0f) || (k > 0 && !(times[k] > times[k - 1]))) {
                r = FAIL(b, SINEW_ERROR_KEYS_NOT_INCREASING, "%s: key %d time %g is %s", what, k, (double)times[k],
                         k == 0 ? "negative" : "not after the previous key");
                goto done;
            }
        snprintf(what, sizeof what, "%s.output", spath);
        if ((r = gltf_read_floats(b->doc, outp, read_comps, what, values)) != SINEW_OK) goto done;
        tracks[track_count++] = (sinew_track){joint, kind, mode, keys, times, values,
                                              kind == SINEW_TARGET_WEIGHTS ? comps : 0};
    }
    sinew_clip_desc d = {.name = name ? name : "", .joint_count = b->asset->skeleton->joint_count,
        .duration = 0.0f, .track_count = track_count, .tracks = tracks, .skeleton = b->asset->skeleton};
    sinew_error err;
    *out = sinew_clip_create(&d, b->options, &err);
    if (!*out) r = FAIL(b, err.result, "%s: %s", path, sinew__error_sentence(err.description));
done:
    for (int i = 0; i < owned_count; ++i) sinew__free(&b->alloc, owned[i]);
    sinew__free(&b->alloc, owned);
    sinew__free(&b->alloc, tracks);
    return r;
}

static sinew_result read_animations(builder *b)
{
    const cJSON *anims;
    int n;
    sinew_result r = gltf_array(b->doc, b->doc->root, "animations", "", &anims, &n);
    if (r != SINEW_OK) return r;
    sinew_clip **clips = sinew__asset_alloc(b->asset, (size_t)n + 1, sizeof *clips);
    if (!clips) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    b->asset->clips = (const sinew_clip *const *)clips;
    for (int a = 0; a < n; ++a) {
        if ((r = read_animation(b, a, cJSON_GetArrayItem(anims, a), &clips[a])) != SINEW_OK) return r;
        b->asset->clip_count = a + 1;
    }
    return SINEW_OK;
}

/* ---- entry point ------------------------------------------------------------------------- */

sinew_result sinew__gltf_load(const void *data, size_t size, bool owned, const char *base_dir,
                              const sinew_load_options *options, sinew_asset *asset, sinew_error *err)
{
    gltf_doc doc;
    builder b = {0};
    b.doc = &doc;
    b.options = &options->base;
    b.alloc = sinew__allocator(&options->base);
    b.asset = asset;
    sinew_result r = gltf_doc_open(&doc, data, size, owned, base_dir, options, err);
    if (r == SINEW_OK) r = read_nodes(&b);
    if (r == SINEW_OK) r = mark_scene(&b);
    if (r == SINEW_OK) r = read_skins(&b);
    if (r == SINEW_OK) r = read_meshes(&b);
    if (r == SINEW_OK) r = read_animations(&b);
    for (int s = 0; s < b.skin_count; ++s) {
        sinew__free(&b.alloc, b.skins[s].joints);
        sinew__free(&b.alloc, b.skins[s].inverse_bind);
    }
    sinew__free(&b.alloc, b.skins);
    sinew__free(&b.alloc, b.node_joint);
    sinew__free(&b.alloc, b.in_scene);
    gltf_doc_close(&doc);
    return r;
}
