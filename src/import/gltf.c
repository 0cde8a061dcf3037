/* SPDX-License-Identifier: MIT */
/* glTF 2.0 scene to sinew asset: every node becomes a joint (parents first,
 * the node index kept), skins become per-primitive sinew_skin, primitives
 * become meshes, animations become clips. */
#include "gltf_doc.h"
#include "import_internal.h"
#ifdef SINEW_HAVE_DRACO
#include "draco.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(b, result, ...) sinew__fail((b)->doc->err, (result), __VA_ARGS__)

typedef struct gltf_skin {
    int joint_count;
    int *joints;          /* skeleton joints */
    sinew_mat4 *inverse_bind;
} gltf_skin;

/* A primitive's references, read from its JSON once however many nodes
 * draw its mesh: the attributes object is walked once, not searched per
 * name and per drawing node. */
typedef struct prim_info {
    const cJSON *json;
    int position, normal, tangent, color, indices; /* accessors, -1 when absent */
    long mode;
    int texcoord_count, sets;     /* TEXCOORD_0.., JOINTS_n/WEIGHTS_n pairs */
    int *refs;                    /* texcoords, then joints, then weights accessors */
    int target_count;
    int *targets;                 /* per target: POSITION, NORMAL, TANGENT accessors (-1: none) */
    bool skip;                    /* no POSITION: ignored, as the specification says */
    const cJSON *draco;           /* extensions.KHR_draco_mesh_compression, or NULL */
} prim_info;

/* A primitive's attributes and indices as Draco decoded them, in scratch
 * memory: the accessors they replace (KHR_draco_mesh_compression: their
 * bufferViews are ignored) are read from here. */
typedef struct draco_values {
    int acc;
    float *floats;
    uint32_t *uints;
} draco_values;

typedef struct mesh_info {
    const cJSON *json;
    bool indexed;                 /* prims filled (at the first node that draws it) */
    int prim_count;
    prim_info *prims;
    const char *name;
    const cJSON *weights;         /* the mesh's default morph weights, or NULL */
    int first_targets;            /* primitives[0]'s target count, -1 until asked */
} mesh_info;

typedef struct builder {
    gltf_doc *doc;
    sinew_asset *asset;
    const sinew_options *options;   /* the caller's: allocator and logger */
    sinew_allocator alloc;
    int node_count;
    const cJSON **node_json;        /* nodes[i], a table built once */
    int *node_parent;               /* node -> parent node, -1 for a root */
    int *node_mesh, *node_skin;     /* -1 when absent */
    const cJSON **node_weights;     /* the node's morph weights, or NULL */
    int *node_joint;                /* node -> skeleton joint */
    bool *in_scene;
    int skin_count;
    gltf_skin *skins;
    int mesh_count;
    mesh_info *meshes;
    draco_values *draco;            /* the primitive being read's decoded accessors, or NULL */
    int draco_count;
} builder;

static void *scratch(builder *b, size_t count, size_t size) { return sinew__import_alloc(&b->alloc, count, size); }

/* The component types the specification allows per use (GLTF_NORM marks
 * normalized integers); the *_Q lists are what KHR_mesh_quantization adds. */
static const int T_FLOAT[] = {5126, 0};
static const int T_POSITION_Q[] = {5120, GLTF_NORM(5120), 5121, GLTF_NORM(5121),
                                   5122, GLTF_NORM(5122), 5123, GLTF_NORM(5123), 0};
static const int T_NORMAL_Q[] = {GLTF_NORM(5120), GLTF_NORM(5122), 0}; /* NORMAL and TANGENT */
static const int T_UNORM[] = {5126, GLTF_NORM(5121), GLTF_NORM(5123), 0}; /* TEXCOORD, COLOR, WEIGHTS */
static const int T_TEXCOORD_Q[] = {5120, GLTF_NORM(5120), 5121, 5122, GLTF_NORM(5122), 5123, 0};
static const int T_JOINTS[] = {5121, 5123, 0};
static const int T_MORPH_POSITION_Q[] = {5120, GLTF_NORM(5120), 5122, GLTF_NORM(5122), 0};
static const int T_ROTATION[] = {5126, GLTF_NORM(5120), GLTF_NORM(5121), GLTF_NORM(5122), GLTF_NORM(5123), 0};

/* The element `k` of `list`, by one counted walk (for a single look-up). */
static const cJSON *nth(builder *b, const cJSON *list, int k)
{
    const cJSON *e;
    int i = 0;
    GLTF_EACH(b->doc, e, list)
    {
        if (i++ == k) return e;
    }
    return NULL;
}

/* ---- nodes -> skeleton ------------------------------------------------------ */

/* nodes[i] into list[i] (`list` is the whole array: children get their
 * parent here). */
static sinew_result read_node(builder *b, int i, const cJSON *node, import_node *list, int skins_declared)
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
    const cJSON *children, *e;
    int n, c = 0;
    if ((r = gltf_array(b->doc, node, "children", path, &children, &n)) != SINEW_OK) return r;
    GLTF_EACH(b->doc, e, children)
    {
        int child = gltf_node_index(e, b->node_count);
        if (child < 0)
            return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.children[%d]: not an index of nodes (%d nodes)", path, c,
                        b->node_count);
        if (list[child].parent >= 0)
            return FAIL(b, SINEW_ERROR_PARSE, "nodes[%d] has two parents: nodes[%d] and nodes[%d]", child,
                        list[child].parent, i);
        if (child == i) return FAIL(b, SINEW_ERROR_CYCLE, "%s.children[%d]: a node is its own child", path, c);
        list[child].parent = i;
        ++c;
    }
    if ((r = gltf_ref(b->doc, node, "mesh", path, false, "meshes", b->mesh_count, &b->node_mesh[i])) != SINEW_OK ||
        (r = gltf_ref(b->doc, node, "skin", path, false, "skins", skins_declared, &b->node_skin[i])) != SINEW_OK)
        return r;
    b->node_weights[i] = gltf_member(b->doc, node, "weights");
    const cJSON *matrix = gltf_member(b->doc, node, "matrix");
    static const char *const trs[3] = {"translation", "rotation", "scale"};
    for (int k = 0; matrix && k < 3; ++k)
        if (gltf_member(b->doc, node, trs[k]))
            return FAIL(b, SINEW_ERROR_PARSE, "%s: has both matrix and %s; the specification allows a matrix or "
                        "translation, rotation and scale, never both", path, trs[k]);
    static const float t0[3] = {0, 0, 0}, r0[4] = {0, 0, 0, 1}, s0[3] = {1, 1, 1};
    float t[3], q[4], s[3];
    if ((r = gltf_floats(b->doc, node, "translation", path, 3, t0, t)) != SINEW_OK ||
        (r = gltf_floats(b->doc, node, "rotation", path, 4, r0, q)) != SINEW_OK ||
        (r = gltf_floats(b->doc, node, "scale", path, 3, s0, s)) != SINEW_OK)
        return r;
    out->rest = (sinew_transform){{t[0], t[1], t[2]}, {q[0], q[1], q[2], q[3]}, {s[0], s[1], s[2]}};
    if (matrix) {
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
    const cJSON *nodes, *list_json;
    int n, skins_declared;
    sinew_result r = gltf_array(b->doc, b->doc->root, "nodes", "", &nodes, &n);
    if (r != SINEW_OK) return r;
    if (n > SINEW_MAX_JOINTS)
        return FAIL(b, SINEW_ERROR_TOO_MANY_JOINTS, "nodes: %d nodes exceed the limit of %d joints", n, SINEW_MAX_JOINTS);
    if ((r = gltf_array(b->doc, b->doc->root, "meshes", "", &list_json, &b->mesh_count)) != SINEW_OK ||
        (r = gltf_array(b->doc, b->doc->root, "skins", "", &list_json, &skins_declared)) != SINEW_OK)
        return r;
    b->node_count = n;
    import_node *list = scratch(b, (size_t)n + 1, sizeof *list);
    b->node_joint = scratch(b, (size_t)n + 1, sizeof *b->node_joint);
    b->node_parent = scratch(b, (size_t)n + 1, sizeof *b->node_parent);
    b->node_mesh = scratch(b, (size_t)n + 1, sizeof *b->node_mesh);
    b->node_skin = scratch(b, (size_t)n + 1, sizeof *b->node_skin);
    b->node_weights = scratch(b, (size_t)n + 1, sizeof *b->node_weights);
    b->node_json = scratch(b, (size_t)n + 1, sizeof *b->node_json);
    if (!list || !b->node_joint || !b->node_parent || !b->node_mesh || !b->node_skin || !b->node_weights ||
        !b->node_json) {
        sinew__free(&b->alloc, list);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    for (int i = 0; i < n; ++i) list[i].parent = -1;
    const cJSON *node;
    int i = 0;
    GLTF_EACH(b->doc, node, nodes)
    {
        b->node_json[i] = node;
        if ((r = read_node(b, i, node, list, skins_declared)) != SINEW_OK) break;
        ++i;
    }
    for (int k = 0; k < n; ++k) b->node_parent[k] = list[k].parent;
    if (r == SINEW_OK)
        r = sinew__import_skeleton(b->asset, list, n, n, "nodes", b->options, b->doc->err, b->node_joint);
    sinew__free(&b->alloc, list);
    return r;
}

/* Marks the nodes of the default scene (scene 0 when none is named; every
 * node when there are no scenes). Iterative: no recursion on deep trees.
 * A scene lists root nodes, each once (the specification's hierarchy is
 * disjoint trees whose roots the scenes name). */
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
    const cJSON *roots, *e;
    int count, k = 0;
    const cJSON *sc = nth(b, scenes, scene);
    if (!cJSON_IsObject(sc)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    if ((r = gltf_array(b->doc, sc, "nodes", path, &roots, &count)) != SINEW_OK) return r;
    const sinew_skeleton *sk = b->asset->skeleton;
    bool *root_joint = scratch(b, (size_t)sk->joint_count + 1, sizeof *root_joint);
    if (!root_joint) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "scenes: out of memory");
    GLTF_EACH(b->doc, e, roots)
    {
        int node = gltf_node_index(e, b->node_count);
        if (node < 0)
            r = FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.nodes[%d]: not an index of nodes", path, k);
        else if (b->node_parent[node] >= 0)
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.nodes[%d]: nodes[%d] is a child of nodes[%d]; a scene lists root "
                     "nodes only", path, k, node, b->node_parent[node]);
        else if (root_joint[b->node_joint[node]])
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.nodes[%d]: nodes[%d] is listed twice", path, k, node);
        if (r != SINEW_OK) {
            sinew__free(&b->alloc, root_joint);
            return r;
        }
        root_joint[b->node_joint[node]] = true;
        ++k;
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
    const cJSON *skins, *skin;
    int n, s = 0;
    sinew_result r = gltf_array(b->doc, b->doc->root, "skins", "", &skins, &n);
    if (r != SINEW_OK) return r;
    b->skins = scratch(b, (size_t)n + 1, sizeof *b->skins);
    if (!b->skins) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    b->skin_count = n;
    GLTF_EACH(b->doc, skin, skins)
    {
        char path[48];
        snprintf(path, sizeof path, "skins[%d]", s);
        const cJSON *joints, *e;
        int count, ibm, k = 0;
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
        GLTF_EACH(b->doc, e, joints)
        {
            int node = gltf_node_index(e, b->node_count);
            if (node < 0) return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.joints[%d]: not an index of nodes", path, k);
            gs->joints[k] = b->node_joint[node];
            gs->inverse_bind[k] = sinew_mat4_identity();
            ++k;
        }
        if (ibm >= 0) {
            char what[80];
            snprintf(what, sizeof what, "%s.inverseBindMatrices", path);
            if (b->doc->accessors[ibm].count < count)
                return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] holds %d matrices for %d joints", what, ibm,
                            b->doc->accessors[ibm].count, count);
            if ((r = gltf_check_type(b->doc, ibm, what, T_FLOAT, NULL)) != SINEW_OK) return r;
            float *m = scratch(b, (size_t)b->doc->accessors[ibm].count, sizeof(float) * 16);
            if (!m) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
            r = gltf_read_floats(b->doc, ibm, 16, what, m);
            if (r == SINEW_OK) memcpy(gs->inverse_bind, m, sizeof(sinew_mat4) * (size_t)count);
            sinew__free(&b->alloc, m);
            if (r != SINEW_OK) return r;
        }
        ++s;
    }
    return SINEW_OK;
}

/* ---- meshes ------------------------------------------------------------------------- */

/* The set number of "<prefix>n" (n decimal, no leading zero), or -1. */
static int set_number(const char *key, const char *prefix)
{
    size_t len = strlen(prefix);
    if (strncmp(key, prefix, len) != 0) return -1;
    const char *d = key + len;
    if (!*d || (d[0] == '0' && d[1]) || strlen(d) > 4) return -1;
    int n = 0;
    for (; *d; ++d) {
        if (*d < '0' || *d > '9') return -1;
        n = n * 10 + (*d - '0');
    }
    return n;
}

/* The primitive's references into `pi`: its attributes object walked once
 * (the first of two equal names counts, as a search would find it), its
 * indices, mode and morph targets. */
static sinew_result index_primitive(builder *b, const char *path, const cJSON *prim, prim_info *pi)
{
    gltf_doc *doc = b->doc;
    pi->json = prim;
    if (!cJSON_IsObject(prim)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *attrs = gltf_member(doc, prim, "attributes");
    if (!cJSON_IsObject(attrs)) return FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: required object missing", path);
    char apath[112];
    snprintf(apath, sizeof apath, "%s.attributes", path);
    enum { ABSENT = -2, SETS = 65 };
    int tex[SETS], jnt[SETS], wgt[SETS];
    for (int k = 0; k < SETS; ++k) tex[k] = jnt[k] = wgt[k] = ABSENT;
    pi->position = pi->normal = pi->tangent = pi->color = ABSENT;
    const cJSON *m;
    sinew_result r;
    GLTF_EACH(doc, m, attrs)
    {
        const char *k = m->string;
        int *slot = NULL, n;
        if (strcmp(k, "POSITION") == 0) slot = &pi->position;
        else if (strcmp(k, "NORMAL") == 0) slot = &pi->normal;
        else if (strcmp(k, "TANGENT") == 0) slot = &pi->tangent;
        else if (strcmp(k, "COLOR_0") == 0) slot = &pi->color;
        else if ((n = set_number(k, "TEXCOORD_")) >= 0) slot = n < SETS ? &tex[n] : NULL;
        else if ((n = set_number(k, "JOINTS_")) >= 0) slot = n < SETS ? &jnt[n] : NULL;
        else if ((n = set_number(k, "WEIGHTS_")) >= 0) slot = n < SETS ? &wgt[n] : NULL;
        if (!slot || *slot != ABSENT) continue;
        if ((r = gltf_ref_value(doc, m, k, apath, "accessors", doc->accessor_count, slot)) != SINEW_OK) return r;
    }
    if (pi->position == ABSENT) {
        /* the specification: "When positions are not specified, client
         * implementations SHOULD skip primitive's rendering" */
        sinew__warn(b->options, "%s: no POSITION; the primitive is skipped", apath);
        pi->skip = true;
        return SINEW_OK;
    }
    if (pi->normal == ABSENT) pi->normal = -1;
    if (pi->tangent == ABSENT) pi->tangent = -1;
    if (pi->color == ABSENT) pi->color = -1;
    int t = 0, s = 0;
    while (t < SETS && tex[t] != ABSENT) ++t;
    if (t == SETS) return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: more than 64 TEXCOORD sets", apath);
    for (;; ++s) {
        bool j = s < SETS && jnt[s] != ABSENT, w = s < SETS && wgt[s] != ABSENT;
        if (j != w)
            return FAIL(b, SINEW_ERROR_PARSE, "%s: %s_%d without %s_%d", apath, j ? "JOINTS" : "WEIGHTS", s,
                        j ? "WEIGHTS" : "JOINTS", s);
        if (!j) break;
        if (s >= 64) return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: more than 64 JOINTS sets", apath);
    }
    pi->texcoord_count = t, pi->sets = s;
    pi->refs = scratch(b, (size_t)(t + 2 * s) + 1, sizeof *pi->refs);
    if (!pi->refs) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(pi->refs, tex, sizeof(int) * (size_t)t);
    memcpy(pi->refs + t, jnt, sizeof(int) * (size_t)s);
    memcpy(pi->refs + t + s, wgt, sizeof(int) * (size_t)s);
    if ((r = gltf_int(doc, prim, "mode", path, false, 4, 0, 6, &pi->mode)) != SINEW_OK ||
        (r = gltf_ref(doc, prim, "indices", path, false, "accessors", doc->accessor_count, &pi->indices)) != SINEW_OK)
        return r;
#ifdef SINEW_HAVE_DRACO
    /* without Draco the extension is left unread: a file that needs it
     * lists it in extensionsRequired, which gltf_doc_open refuses naming
     * libdraco-dev; one that does not has uncompressed accessors too */
    pi->draco = gltf_member(doc, gltf_member(doc, prim, "extensions"), "KHR_draco_mesh_compression");
#endif
    const cJSON *targets, *tj;
    int count, k = 0;
    if ((r = gltf_array(doc, prim, "targets", path, &targets, &count)) != SINEW_OK || count == 0) return r;
    char tpath[112];
    snprintf(tpath, sizeof tpath, "%s.targets", path);
    if (count > SINEW_MAX_MORPH_TARGETS)
        return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: %d targets exceed the limit of %d", tpath, count,
                    SINEW_MAX_MORPH_TARGETS);
    pi->targets = scratch(b, (size_t)count * 3, sizeof *pi->targets);
    if (!pi->targets) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", tpath);
    pi->target_count = count;
    GLTF_EACH(doc, tj, targets)
    {
        if (!cJSON_IsObject(tj)) return FAIL(b, SINEW_ERROR_PARSE, "%s: a target is not an object", tpath);
        char one[128];
        snprintf(one, sizeof one, "%s[%d]", tpath, k);
        static const char *const names[3] = {"POSITION", "NORMAL", "TANGENT"};
        for (int q = 0; q < 3; ++q)
            if ((r = gltf_ref(doc, tj, names[q], one, false, "accessors", doc->accessor_count,
                              &pi->targets[k * 3 + q])) != SINEW_OK)
                return r;
        ++k;
    }
    return SINEW_OK;
}

/* The mesh's primitives, indexed at the first node that draws it. */
static sinew_result index_mesh(builder *b, int m)
{
    mesh_info *mi = &b->meshes[m];
    if (mi->indexed) return SINEW_OK;
    char mpath[48];
    snprintf(mpath, sizeof mpath, "meshes[%d]", m);
    const cJSON *prims, *e;
    int pc, p = 0;
    sinew_result r;
    if (!cJSON_IsObject(mi->json)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", mpath);
    if ((r = gltf_array(b->doc, mi->json, "primitives", mpath, &prims, &pc)) != SINEW_OK ||
        (r = gltf_string(b->doc, mi->json, "name", mpath, &mi->name)) != SINEW_OK)
        return r;
    mi->weights = gltf_member(b->doc, mi->json, "weights");
    mi->prims = scratch(b, (size_t)pc + 1, sizeof *mi->prims);
    if (!mi->prims) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", mpath);
    mi->prim_count = pc;
    GLTF_EACH(b->doc, e, prims)
    {
        char path[96];
        snprintf(path, sizeof path, "%s.primitives[%d]", mpath, p);
        if ((r = index_primitive(b, path, e, &mi->prims[p])) != SINEW_OK) return r;
        ++p;
    }
    mi->indexed = true;
    return SINEW_OK;
}

/* The morph target count of a mesh (its first primitive's), 0 for none;
 * found once per mesh. */
static int morph_target_count(builder *b, int m)
{
    mesh_info *mi = &b->meshes[m];
    if (mi->first_targets < 0) {
        const cJSON *prims = gltf_member(b->doc, mi->json, "primitives");
        const cJSON *targets = gltf_member(b->doc, cJSON_IsArray(prims) ? prims->child : NULL, "targets");
        int n = 0;
        const cJSON *e;
        if (cJSON_IsArray(targets)) GLTF_EACH(b->doc, e, targets) ++n;
        mi->first_targets = n;
    }
    return mi->first_targets;
}

/* Accessor `acc` as floats (gltf_read_floats), from the values Draco
 * decoded where the primitive being read has them. */
static sinew_result prim_floats(builder *b, int acc, int components, const char *what, float *out)
{
    for (int i = 0; i < b->draco_count; ++i)
        if (b->draco[i].acc == acc && b->draco[i].floats) {
            if (b->doc->accessors[acc].components != components)
                return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] has %d components, %d expected", what, acc,
                            b->doc->accessors[acc].components, components);
            memcpy(out, b->draco[i].floats, sizeof(float) * (size_t)b->doc->accessors[acc].count * (size_t)components);
            return SINEW_OK;
        }
    return gltf_read_floats(b->doc, acc, components, what, out);
}

/* The same for unsigned integers (gltf_read_uints). */
static sinew_result prim_uints(builder *b, int acc, int components, const char *what, uint32_t *out)
{
    for (int i = 0; i < b->draco_count; ++i)
        if (b->draco[i].acc == acc && b->draco[i].uints) {
            if (b->doc->accessors[acc].components != components)
                return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] has %d components, %d expected", what, acc,
                            b->doc->accessors[acc].components, components);
            memcpy(out, b->draco[i].uints, sizeof(uint32_t) * (size_t)b->doc->accessors[acc].count * (size_t)components);
            return SINEW_OK;
        }
    return gltf_read_uints(b->doc, acc, components, what, out);
}

/* Reads accessor `acc` (-1: absent, then NULL and SINEW_OK) as attribute
 * `name` of a primitive into asset memory, after checking its component
 * type against the specification's table. */
static sinew_result read_attribute(builder *b, int acc, const char *name, const char *path, int components,
                                   int vertex_count, const int *allowed, const int *quantized, float **out)
{
    *out = NULL;
    if (acc < 0) return SINEW_OK;
    char what[160];
    snprintf(what, sizeof what, "%s.%s", path, name);
    sinew_result r;
    if (b->doc->accessors[acc].count != vertex_count)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] count %d differs from POSITION's %d", what, acc,
                    b->doc->accessors[acc].count, vertex_count);
    if ((r = gltf_check_type(b->doc, acc, what, allowed, quantized)) != SINEW_OK) return r;
    float *data = sinew__asset_alloc(b->asset, (size_t)vertex_count * (size_t)components, sizeof(float));
    if (!data) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    if ((r = prim_floats(b, acc, components, what, data)) != SINEW_OK) return r;
    *out = data;
    return SINEW_OK;
}

/* Triangle list from indices (or 0..n-1) and the primitive's mode. */
static sinew_result read_triangles(builder *b, const prim_info *pi, const char *path, int vertex_count,
                                   sinew_mesh *mesh)
{
    int acc = pi->indices;
    long mode = pi->mode;
    sinew_result r = SINEW_OK;
    int n = acc >= 0 ? b->doc->accessors[acc].count : vertex_count;
    uint32_t *idx = scratch(b, (size_t)n + 1, sizeof *idx);
    if (!idx) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    char what[128];
    snprintf(what, sizeof what, "%s.indices", path);
    if (acc >= 0) {
        if ((r = prim_uints(b, acc, 1, what, idx)) != SINEW_OK) goto done;
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
static sinew_result read_skin(builder *b, const prim_info *pi, const char *path, int vertex_count, int skin_index,
                              sinew_mesh *mesh)
{
    int sets = pi->sets;
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
        ja = pi->refs[pi->texcoord_count + s], wa = pi->refs[pi->texcoord_count + sets + s];
        if (b->doc->accessors[ja].count != vertex_count || b->doc->accessors[wa].count != vertex_count) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: %s or %s count differs from POSITION's %d", path, jn, wn,
                     vertex_count);
        } else {
            snprintf(what, sizeof what, "%s.attributes.%s", path, jn);
            r = gltf_check_type(b->doc, ja, what, T_JOINTS, NULL);
            if (r == SINEW_OK) r = prim_uints(b, ja, 4, what, jset);
            snprintf(what, sizeof what, "%s.attributes.%s", path, wn);
            if (r == SINEW_OK) r = gltf_check_type(b->doc, wa, what, T_UNORM, NULL);
            if (r == SINEW_OK) r = prim_floats(b, wa, 4, what, wset);
            /* the specification: weights must not be negative, in used and
             * unused slots alike; no repair is implied (which joint gave
             * its weight away is not known) */
            for (size_t i = 0; r == SINEW_OK && i < (size_t)vertex_count * 4; ++i)
                if (wset[i] < 0.0f)
                    r = FAIL(b, SINEW_ERROR_BAD_WEIGHT, "%s: accessors[%d] vertex %zu weight %zu is %g; weights must "
                             "not be negative", what, wa, i / 4, i % 4, (double)wset[i]);
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
static sinew_result read_texcoords(builder *b, const prim_info *pi, const char *apath, int n, sinew_mesh *mesh)
{
    int sets = pi->texcoord_count;
    if (!sets) return SINEW_OK;
    float **uv = sinew__asset_alloc(b->asset, (size_t)sets, sizeof *uv);
    if (!uv) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", apath);
    for (int k = 0; k < sets; ++k) {
        char name[32];
        snprintf(name, sizeof name, "TEXCOORD_%d", k);
        sinew_result r = read_attribute(b, pi->refs[k], name, apath, 2, n, T_UNORM, T_TEXCOORD_Q, &uv[k]);
        if (r != SINEW_OK) return r;
    }
    mesh->texcoord_count = sets;
    mesh->texcoords = (const float *const *)uv;
    return SINEW_OK;
}

/* COLOR_0, RGB or RGBA, as RGBA (alpha 1 for RGB). */
static sinew_result read_colors(builder *b, const prim_info *pi, const char *apath, int n, sinew_mesh *mesh)
{
    int acc = pi->color;
    sinew_result r;
    if (acc < 0) return SINEW_OK;
    int c = b->doc->accessors[acc].components;
    if (c != 3 && c != 4) return FAIL(b, SINEW_ERROR_PARSE, "%s.COLOR_0: accessors[%d] is not VEC3 or VEC4", apath, acc);
    float *rgba;
    if ((r = read_attribute(b, acc, "COLOR_0", apath, c, n, T_UNORM, NULL, &rgba)) != SINEW_OK) return r;
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

/* One delta stream (0 POSITION, 1 NORMAL, 2 TANGENT) of every target
 * (NULL when no target has it). */
static sinew_result read_morph_stream(builder *b, const prim_info *pi, int stream, const char *path, int n,
                                      const float **out)
{
    static const char *const names[3] = {"POSITION", "NORMAL", "TANGENT"};
    static const int *const quantized[3] = {T_MORPH_POSITION_Q, T_NORMAL_Q, T_NORMAL_Q};
    int count = pi->target_count;
    *out = NULL;
    bool any = false;
    for (int k = 0; k < count; ++k) any = any || pi->targets[k * 3 + stream] >= 0;
    if (!any) return SINEW_OK;
    float *all = sinew__asset_alloc(b->asset, (size_t)count * (size_t)n, 3 * sizeof(float));
    if (!all)
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d targets of %s", path, count, names[stream]);
    for (int k = 0; k < count; ++k) {
        int acc = pi->targets[k * 3 + stream];
        if (acc < 0) continue;
        char what[160];
        snprintf(what, sizeof what, "%s[%d].%s", path, k, names[stream]);
        sinew_result r;
        if (b->doc->accessors[acc].count != n)
            return FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] count %d differs from POSITION's %d", what, acc,
                        b->doc->accessors[acc].count, n);
        if ((r = gltf_check_type(b->doc, acc, what, T_FLOAT, quantized[stream])) != SINEW_OK ||
            (r = gltf_read_floats(b->doc, acc, 3, what, &all[(size_t)k * (size_t)n * 3])) != SINEW_OK)
            return r;
    }
    *out = all;
    return SINEW_OK;
}

/* Morph targets and their default weights: the node's "weights", else the
 * mesh's, else zeros. */
static sinew_result read_morph(builder *b, const prim_info *pi, int node_index, int mesh_index, const char *path,
                               sinew_mesh *mesh)
{
    int count = pi->target_count;
    if (count == 0) return SINEW_OK;
    sinew_result r;
    char tpath[112];
    snprintf(tpath, sizeof tpath, "%s.targets", path);
    int first = morph_target_count(b, mesh_index);
    if (first != count)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: %d targets, meshes[%d].primitives[0] has %d (they must agree)", tpath,
                    count, mesh_index, first);
    sinew_morph *m = sinew__asset_alloc(b->asset, 1, sizeof *m);
    float *w = sinew__asset_alloc(b->asset, (size_t)count, sizeof *w);
    if (!m || !w) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", tpath);
    m->vertex_count = mesh->vertex_count;
    m->target_count = count;
    if ((r = read_morph_stream(b, pi, 0, tpath, mesh->vertex_count, &m->positions)) != SINEW_OK ||
        (r = read_morph_stream(b, pi, 1, tpath, mesh->vertex_count, &m->normals)) != SINEW_OK ||
        (r = read_morph_stream(b, pi, 2, tpath, mesh->vertex_count, &m->tangents)) != SINEW_OK)
        return r;
    char hpath[48];
    const cJSON *weights = b->node_weights[node_index];
    if (weights)
        snprintf(hpath, sizeof hpath, "nodes[%d]", node_index);
    else
        snprintf(hpath, sizeof hpath, "meshes[%d]", mesh_index), weights = b->meshes[mesh_index].weights;
    if (weights) {
        int wc = 0, k = 0;
        const cJSON *e;
        if (!cJSON_IsArray(weights)) return FAIL(b, SINEW_ERROR_PARSE, "%s.weights: not an array", hpath);
        GLTF_EACH(b->doc, e, weights) ++wc;
        if (wc != count)
            return FAIL(b, SINEW_ERROR_PARSE, "%s.weights: %d weights for the %d morph targets of %s", hpath, wc, count,
                        path);
        GLTF_EACH(b->doc, e, weights)
        {
            double d = cJSON_IsNumber(e) ? e->valuedouble : NAN;
            if (!isfinite(d) || !isfinite((float)d))
                return FAIL(b, SINEW_ERROR_NOT_FINITE, "%s.weights[%d]: not a finite number", hpath, k);
            w[k++] = (float)d;
        }
    }
    mesh->morph = m;
    mesh->morph_weights = w;
    return SINEW_OK;
}

static const char *mib_text(double bytes, char *out, size_t size)
{
    if (bytes >= 1024.0 * 1024 * 1024)
        snprintf(out, size, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else
        snprintf(out, size, "%.1f MiB", bytes / (1024.0 * 1024));
    return out;
}

#ifdef SINEW_HAVE_DRACO
/* The accessor of the primitive's attribute `k`, -1 where sinew does not
 * read it; *uints for JOINTS_n; *fixed for the names a primitive has at
 * most once (POSITION, NORMAL, TANGENT, COLOR_0). */
static int draco_slot(const prim_info *pi, const char *k, bool *uints, bool *fixed)
{
    int n, t = pi->texcoord_count, s = pi->sets;
    *uints = false, *fixed = true;
    if (strcmp(k, "POSITION") == 0) return pi->position;
    if (strcmp(k, "NORMAL") == 0) return pi->normal;
    if (strcmp(k, "TANGENT") == 0) return pi->tangent;
    if (strcmp(k, "COLOR_0") == 0) return pi->color;
    *fixed = false;
    if ((n = set_number(k, "TEXCOORD_")) >= 0) return n < t ? pi->refs[n] : -1;
    if ((n = set_number(k, "JOINTS_")) >= 0) return *uints = true, n < s ? pi->refs[t + n] : -1;
    if ((n = set_number(k, "WEIGHTS_")) >= 0) return n < s ? pi->refs[t + s + n] : -1;
    return -1;
}

static void free_draco(builder *b)
{
    for (int i = 0; i < b->draco_count; ++i) {
        sinew__free(&b->alloc, b->draco[i].floats);
        sinew__free(&b->alloc, b->draco[i].uints);
    }
    sinew__free(&b->alloc, b->draco);
    b->draco = NULL, b->draco_count = 0;
}

/* KHR_draco_mesh_compression: the primitive's attributes that the
 * extension maps, and its indices, decoded into b->draco, where the
 * readers find them instead of the accessors' bufferViews. The accessors
 * declare what Draco must give (point count, triangles, each attribute's
 * type and components); their sizes, and Draco's working memory for them,
 * are checked against what is left of the load's limit before it runs. */
static sinew_result read_draco(builder *b, const prim_info *pi, const char *path)
{
    gltf_doc *doc = b->doc;
    char xpath[160];
    snprintf(xpath, sizeof xpath, "%s.extensions.KHR_draco_mesh_compression", path);
    sinew_result r;
    if (!cJSON_IsObject(pi->draco)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", xpath);
    if (pi->mode != 4)
        return FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: mode %ld; sinew reads Draco meshes as triangle lists (mode 4)",
                    xpath, pi->mode);
    if (pi->indices < 0)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: the primitive has no indices accessor, and Draco's triangles are indexed",
                    xpath);
    const gltf_accessor *ia = &doc->accessors[pi->indices];
    if (ia->components != 1 || (ia->component_type != 5121 && ia->component_type != 5123 && ia->component_type != 5125))
        return FAIL(b, SINEW_ERROR_PARSE, "%s.indices: accessors[%d] is not SCALAR of an unsigned integer type", path,
                    pi->indices);
    int view;
    const cJSON *attrs, *m;
    if ((r = gltf_ref(doc, pi->draco, "bufferView", xpath, true, "bufferViews", doc->view_count, &view)) != SINEW_OK)
        return r;
    attrs = gltf_member(doc, pi->draco, "attributes");
    if (!cJSON_IsObject(attrs)) return FAIL(b, SINEW_ERROR_PARSE, "%s.attributes: required object missing", xpath);
    int members = 0, s = 0, values = 0;
    GLTF_EACH(doc, m, attrs) ++members;
    int n = doc->accessors[pi->position].count, k = ia->count;
    sinew__draco_stream *streams = scratch(b, (size_t)members + 1, sizeof *streams);
    b->draco = scratch(b, (size_t)members + 2, sizeof *b->draco);
    if (!streams || !b->draco) {
        sinew__free(&b->alloc, streams);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", xpath);
    }
    GLTF_EACH(doc, m, attrs)
    {
        bool uints, fixed;
        int acc = draco_slot(pi, m->string, &uints, &fixed);
        char what[200];
        snprintf(what, sizeof what, "%s.attributes.%s", xpath, m->string);
        if (acc < 0 && fixed) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: not among the primitive's attributes", what);
            goto done;
        }
        if (acc < 0) continue; /* an attribute sinew does not read */
        double id = cJSON_IsNumber(m) ? m->valuedouble : -1.0;
        if (!(id >= 0.0 && id <= 2147483647.0 && id == (double)(int)id)) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: not an attribute id (an integer from 0)", what);
            goto done;
        }
        const gltf_accessor *a = &doc->accessors[acc];
        if (a->count != n) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] count %d differs from POSITION's %d", what, acc, a->count,
                     n);
            goto done;
        }
        if (a->matrix || a->components > 4) {
            r = FAIL(b, SINEW_ERROR_PARSE, "%s: accessors[%d] is not SCALAR or VEC2 to VEC4", what, acc);
            goto done;
        }
        draco_values *v = &b->draco[b->draco_count];
        if (uints)
            v->uints = scratch(b, (size_t)n * (size_t)a->components + 1, sizeof(uint32_t));
        else
            v->floats = scratch(b, (size_t)n * (size_t)a->components + 1, sizeof(float));
        if (!v->uints && !v->floats) {
            r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d values", what, n);
            goto done;
        }
        v->acc = acc;
        b->draco_count++;
        streams[s++] = (sinew__draco_stream){m->string, (int)id, a->components, a->component_type, a->normalized,
                                             v->floats, v->uints};
        values += a->components;
    }
    draco_values *iv = &b->draco[b->draco_count];
    iv->uints = scratch(b, (size_t)k + 1, sizeof(uint32_t));
    if (!iv->uints) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d indices", xpath, k);
        goto done;
    }
    iv->acc = pi->indices;
    b->draco_count++;
    /* Draco allocates on its own heap, in proportion to the counts its
     * header declares, which sinew__draco_decode makes sure are these:
     * refused here when they do not fit what is left of the load's limit.
     * Some streams make it allocate past that anyway: it runs walled, its
     * address space bounded by what is left (wall_draco.c) */
    double working = sinew__draco_working_bytes(n, k / 3, s, values);
    size_t left = sinew__import_left(&b->alloc);
    if (working > (double)left) {
        char t[32];
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: decoding %d points and %d triangles takes Draco about %s, over what is "
                 "left of the load's limit of %zu MiB (sinew_options.max_memory)", xpath, n, k / 3,
                 mib_text(working, t, sizeof t), sinew__import_limit(&b->alloc) >> 20);
        goto done;
    }
    const gltf_view *gv = &doc->views[view];
    char why[240];
    r = sinew__draco_walled(doc->buffers[gv->buffer].data + gv->offset, gv->length, n, k, iv->uints, streams, s,
                            doc->options, left, why, sizeof why);
    if (r != SINEW_OK) r = FAIL(b, r, "%s (bufferViews[%d]): %s", xpath, view, why);
done:
    sinew__free(&b->alloc, streams);
    return r;
}
#endif

static sinew_result read_primitive_data(builder *b, int node_index, int mesh_index, int p, int skin_index,
                                        sinew_mesh *mesh);

static sinew_result read_primitive(builder *b, int node_index, int mesh_index, int p, int skin_index, sinew_mesh *mesh)
{
#ifdef SINEW_HAVE_DRACO
    const prim_info *pi = &b->meshes[mesh_index].prims[p];
    if (pi->draco) {
        char path[96];
        snprintf(path, sizeof path, "meshes[%d].primitives[%d]", mesh_index, p);
        sinew_result r = read_draco(b, pi, path);
        if (r == SINEW_OK) r = read_primitive_data(b, node_index, mesh_index, p, skin_index, mesh);
        free_draco(b);
        return r;
    }
#endif
    return read_primitive_data(b, node_index, mesh_index, p, skin_index, mesh);
}

static sinew_result read_primitive_data(builder *b, int node_index, int mesh_index, int p, int skin_index,
                                        sinew_mesh *mesh)
{
    const prim_info *pi = &b->meshes[mesh_index].prims[p];
    char path[96];
    snprintf(path, sizeof path, "meshes[%d].primitives[%d]", mesh_index, p);
    sinew_result r;
    int n = b->doc->accessors[pi->position].count;
    char apath[112];
    snprintf(apath, sizeof apath, "%s.attributes", path);
    float *positions, *normals, *tangents;
    if ((r = read_attribute(b, pi->position, "POSITION", apath, 3, n, T_FLOAT, T_POSITION_Q, &positions)) != SINEW_OK ||
        (r = read_attribute(b, pi->normal, "NORMAL", apath, 3, n, T_FLOAT, T_NORMAL_Q, &normals)) != SINEW_OK ||
        (r = read_attribute(b, pi->tangent, "TANGENT", apath, 4, n, T_FLOAT, T_NORMAL_Q, &tangents)) != SINEW_OK)
        return r;
    *mesh = (sinew_mesh){.name = "", .vertex_count = n, .positions = positions, .normals = normals,
                         .tangents = tangents, .joint = b->node_joint[node_index], .source_node = node_index,
                         .source_mesh = mesh_index, .source_primitive = p};
    if ((r = read_texcoords(b, pi, apath, n, mesh)) != SINEW_OK || (r = read_colors(b, pi, apath, n, mesh)) != SINEW_OK ||
        (r = read_triangles(b, pi, path, n, mesh)) != SINEW_OK)
        return r;
    if (pi->mode < 4)
        sinew__warn(b->options, "%s: mode %ld (points or lines) has no triangles; vertices are kept", path, pi->mode);
    if (!normals) {
        mesh->normals = compute_normals(b, mesh);
        mesh->tangents = NULL; /* the specification: tangents are ignored without normals */
        if (!mesh->normals) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    if ((r = read_morph(b, pi, node_index, mesh_index, path, mesh)) != SINEW_OK) return r;
    return read_skin(b, pi, path, n, skin_index, mesh);
}

/* Bytes the reader allocates for one drawing of a primitive, from the
 * declared counts alone: the streams as floats (normals whether read or
 * computed), the indices and their triangles, the skin's sets and slots,
 * the morph deltas. A lower bound of what the load takes for it. */
static double primitive_bytes(const builder *b, const prim_info *pi, bool skinned)
{
    const gltf_accessor *acc = b->doc->accessors;
    if (pi->skip) return 0.0;
    double n = acc[pi->position].count, f = sizeof(float);
    double bytes = n * f * (3 + 3 + (pi->tangent >= 0 ? 4 : 0) + 2.0 * pi->texcoord_count + (pi->color >= 0 ? 4 : 0));
    double k = pi->indices >= 0 ? acc[pi->indices].count : n;
    bytes += k * 4 + k * 4; /* the indices read, the triangles made of them */
    /* Draco's decoded copy of the streams and indices, read from */
    if (pi->draco) bytes += n * f * (3 + 3 + 4 + 2.0 * pi->texcoord_count + 4 + 8.0 * pi->sets) + k * 4;
    if (skinned && pi->sets) {
        int slots = pi->sets * 4 > SINEW_MAX_INFLUENCES ? SINEW_MAX_INFLUENCES : pi->sets * 4;
        bytes += n * pi->sets * 4 * 8 + n * 4 * 8 + n * slots * 6;
    }
    for (int s = 0; s < 3; ++s) {
        bool any = false;
        for (int t = 0; t < pi->target_count; ++t) any = any || pi->targets[t * 3 + s] >= 0;
        if (any) bytes += (double)pi->target_count * n * 3 * f;
    }
    return bytes;
}

/* What the scene's meshes need, from the declared sizes, against what is
 * left of the load's limit, before anything is allocated for them: a mesh
 * drawn by many nodes counts once per node. Indexes the drawn meshes. */
static sinew_result plan_meshes(builder *b)
{
    double total = 0.0, worst = -1.0;
    int worst_node = -1, worst_mesh = -1, worst_prim = -1;
    sinew_result r;
    for (int i = 0; i < b->node_count; ++i) {
        int m = b->node_mesh[i];
        if (!b->in_scene[i] || m < 0) continue;
        if ((r = index_mesh(b, m)) != SINEW_OK) return r;
        const mesh_info *mi = &b->meshes[m];
        for (int p = 0; p < mi->prim_count; ++p) {
            double bytes = primitive_bytes(b, &mi->prims[p], b->node_skin[i] >= 0);
            total += bytes;
            if (bytes > worst) worst = bytes, worst_node = i, worst_mesh = m, worst_prim = p;
        }
    }
    b->doc->work.planned += total < (double)SIZE_MAX ? (size_t)total : SIZE_MAX;
    size_t left = sinew__import_left(&b->alloc), limit = sinew__import_limit(&b->alloc);
    if (total <= (double)left) return SINEW_OK;
    const prim_info *pi = &b->meshes[worst_mesh].prims[worst_prim];
    const gltf_accessor *pos = &b->doc->accessors[pi->position];
    char t[32], w[32];
    return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY,
                "meshes[%d].primitives[%d]: accessors[%d] declares %d vertices%s: the scene's meshes need %s (this one "
                "%s, drawn by nodes[%d]), over the load's limit of %zu MiB (sinew_options.max_memory)",
                worst_mesh, worst_prim, pi->position, pos->count, pos->view < 0 ? " (no bufferView)" : "",
                mib_text(total, t, sizeof t), mib_text(worst, w, sizeof w), worst_node, limit >> 20);
}

static sinew_result read_meshes(builder *b)
{
    const cJSON *meshes, *e;
    int mesh_count, m = 0;
    sinew_result r;
    if ((r = gltf_array(b->doc, b->doc->root, "meshes", "", &meshes, &mesh_count)) != SINEW_OK) return r;
    b->meshes = scratch(b, (size_t)mesh_count + 1, sizeof *b->meshes);
    if (!b->meshes) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    GLTF_EACH(b->doc, e, meshes)
    {
        if (m == b->mesh_count) break;
        b->meshes[m].json = e;
        b->meshes[m++].first_targets = -1;
    }
    if ((r = plan_meshes(b)) != SINEW_OK) return r;
    int total = 0;
    for (int i = 0; i < b->node_count; ++i)
        if (b->in_scene[i] && b->node_mesh[i] >= 0) total += b->meshes[b->node_mesh[i]].prim_count;
    /* (skipped primitives, without POSITION, leave their slots unused) */
    sinew_mesh *out = sinew__asset_alloc(b->asset, (size_t)total + 1, sizeof *out);
    if (!out) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    b->asset->meshes = out;
    b->asset->mesh_count = 0;
    for (int i = 0; i < b->node_count; ++i) {
        int mi = b->node_mesh[i];
        if (!b->in_scene[i] || mi < 0) continue;
        const mesh_info *info = &b->meshes[mi];
        for (int p = 0; p < info->prim_count; ++p) {
            if (info->prims[p].skip) continue;
            sinew_mesh *dst = &out[b->asset->mesh_count];
            if ((r = read_primitive(b, i, mi, p, b->node_skin[i], dst)) != SINEW_OK) {
                sinew_skin_free((sinew_skin *)dst->skin);
                dst->skin = NULL;
                return r;
            }
            b->asset->mesh_count++; /* the asset owns it (and its skin) from here */
            const char *copy = info->name ? sinew__asset_strdup(b->asset, info->name) : "";
            if (!copy) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "meshes[%d]: out of memory", mi);
            dst->name = copy;
        }
    }
    return SINEW_OK;
}

/* ---- animations -> clips ------------------------------------------------------------------ */

typedef struct sampler_info {
    int input, output;
    sinew_interpolation mode;
    const char *interp;
} sampler_info;

typedef struct channel_info {
    int sampler, node;
    sinew_track_target kind;
} channel_info;

/* The animation's samplers, each read once however many channels use it. */
static sinew_result read_samplers(builder *b, const char *path, const cJSON *samplers, sampler_info *out)
{
    const cJSON *s;
    int k = 0;
    sinew_result r;
    GLTF_EACH(b->doc, s, samplers)
    {
        char spath[80];
        snprintf(spath, sizeof spath, "%s.samplers[%d]", path, k);
        sampler_info *si = &out[k++];
        if (!cJSON_IsObject(s)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", spath);
        if ((r = gltf_ref(b->doc, s, "input", spath, true, "accessors", b->doc->accessor_count, &si->input)) != SINEW_OK ||
            (r = gltf_ref(b->doc, s, "output", spath, true, "accessors", b->doc->accessor_count, &si->output)) !=
                SINEW_OK ||
            (r = gltf_string(b->doc, s, "interpolation", spath, &si->interp)) != SINEW_OK)
            return r;
        if (!si->interp || strcmp(si->interp, "LINEAR") == 0)
            si->mode = SINEW_INTERP_LINEAR;
        else if (strcmp(si->interp, "STEP") == 0)
            si->mode = SINEW_INTERP_STEP;
        else if (strcmp(si->interp, "CUBICSPLINE") == 0)
            si->mode = SINEW_INTERP_CUBICSPLINE;
        else
            return FAIL(b, SINEW_ERROR_PARSE, "%s.interpolation: \"%s\" is not LINEAR, STEP or CUBICSPLINE", spath,
                        si->interp);
    }
    return SINEW_OK;
}

/* The channels' targets; node -1 for a channel without one (for
 * extensions, ignored as the specification says). */
static sinew_result read_channels(builder *b, const char *path, const cJSON *channels, int ns, channel_info *out)
{
    const cJSON *ch;
    int c = 0;
    sinew_result r;
    GLTF_EACH(b->doc, ch, channels)
    {
        char cpath[80];
        snprintf(cpath, sizeof cpath, "%s.channels[%d]", path, c);
        channel_info *ci = &out[c++];
        const cJSON *target = gltf_member(b->doc, ch, "target");
        if (!cJSON_IsObject(target)) return FAIL(b, SINEW_ERROR_PARSE, "%s: target object missing", cpath);
        char tpath[96];
        snprintf(tpath, sizeof tpath, "%s.target", cpath);
        const char *tp;
        if ((r = gltf_ref(b->doc, ch, "sampler", cpath, true, "samplers of this animation", ns, &ci->sampler)) !=
                SINEW_OK ||
            (r = gltf_ref(b->doc, target, "node", tpath, false, "nodes", b->node_count, &ci->node)) != SINEW_OK ||
            (r = gltf_string(b->doc, target, "path", tpath, &tp)) != SINEW_OK)
            return r;
        if (ci->node < 0) continue;
        if (tp && strcmp(tp, "translation") == 0)
            ci->kind = SINEW_TARGET_TRANSLATION;
        else if (tp && strcmp(tp, "rotation") == 0)
            ci->kind = SINEW_TARGET_ROTATION;
        else if (tp && strcmp(tp, "scale") == 0)
            ci->kind = SINEW_TARGET_SCALE;
        else if (tp && strcmp(tp, "weights") == 0)
            ci->kind = SINEW_TARGET_WEIGHTS;
        else
            return FAIL(b, SINEW_ERROR_PARSE, "%s.path: \"%s\" is not translation, rotation, scale or weights", tpath,
                        tp ? tp : "(missing)");
    }
    return SINEW_OK;
}

/* What the animation's channels need (their keys and values as floats,
 * read and then kept in the clip), against what is left of the load's
 * limit, before reading any. */
static sinew_result plan_animation(builder *b, const char *path, const channel_info *ch, int nc,
                                   const sampler_info *samplers)
{
    double total = 0.0, worst = -1.0;
    int worst_sampler = -1;
    for (int c = 0; c < nc; ++c) {
        if (ch[c].node < 0) continue;
        const sampler_info *si = &samplers[ch[c].sampler];
        double bytes = 2.0 * ((double)gltf_float_bytes(b->doc, si->input) + (double)gltf_float_bytes(b->doc, si->output));
        total += bytes;
        if (bytes > worst) worst = bytes, worst_sampler = ch[c].sampler;
    }
    b->doc->work.planned += total < (double)SIZE_MAX ? (size_t)total : SIZE_MAX;
    size_t left = sinew__import_left(&b->alloc);
    if (total <= (double)left) return SINEW_OK;
    const sampler_info *si = &samplers[worst_sampler];
    char t[32], w[32];
    return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY,
                "%s.samplers[%d]: accessors[%d] and [%d] declare %d keys, %d values: %s needs %s (this sampler %s), "
                "over the load's limit of %zu MiB (sinew_options.max_memory)",
                path, worst_sampler, si->input, si->output, b->doc->accessors[si->input].count,
                b->doc->accessors[si->output].count, path, mib_text(total, t, sizeof t), mib_text(worst, w, sizeof w),
                sinew__import_limit(&b->alloc) >> 20);
}

static sinew_result read_animation(builder *b, int a, const cJSON *anim, sinew_clip **out, sinew_timeline **timeline)
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
    sampler_info *sinfo = scratch(b, (size_t)ns + 1, sizeof *sinfo);
    channel_info *cinfo = scratch(b, (size_t)nc + 1, sizeof *cinfo);
    int track_count = 0, owned_count = 0;
    if (!tracks || !owned || !sinfo || !cinfo) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    if ((r = read_samplers(b, path, samplers, sinfo)) != SINEW_OK ||
        (r = read_channels(b, path, channels, ns, cinfo)) != SINEW_OK ||
        (r = plan_animation(b, path, cinfo, nc, sinfo)) != SINEW_OK)
        goto done;
    for (int c = 0; c < nc; ++c) {
        char cpath[80];
        snprintf(cpath, sizeof cpath, "%s.channels[%d]", path, c);
        int node = cinfo[c].node;
        if (node < 0) continue;
        sinew_track_target kind = cinfo[c].kind;
        int sampler = cinfo[c].sampler;
        const sampler_info *si = &sinfo[sampler];
        char spath[80];
        snprintf(spath, sizeof spath, "%s.samplers[%d]", path, sampler);
        int in = si->input, outp = si->output;
        sinew_interpolation mode = si->mode;
        const char *interp = si->interp;
        int keys = b->doc->accessors[in].count, comps = kind == SINEW_TARGET_ROTATION ? 4 : 3;
        if (kind == SINEW_TARGET_WEIGHTS) {
            int mesh = b->node_mesh[node];
            comps = mesh >= 0 ? morph_target_count(b, mesh) : 0;
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
        char what[112];
        snprintf(what, sizeof what, "%s.input", spath);
        /* the specification: key times are floats; translation and scale
         * values floats, rotations and weights floats or normalized integers */
        if ((r = gltf_check_type(b->doc, in, what, T_FLOAT, NULL)) != SINEW_OK) goto done;
        snprintf(what, sizeof what, "%s.output", spath);
        bool any_type = kind == SINEW_TARGET_ROTATION || kind == SINEW_TARGET_WEIGHTS;
        if ((r = gltf_check_type(b->doc, outp, what, any_type ? T_ROTATION : T_FLOAT, NULL)) != SINEW_OK) goto done;
        float *times = scratch(b, (size_t)keys, sizeof *times);
        float *values = scratch(b, (size_t)expect * (size_t)comps, sizeof *values);
        owned[owned_count++] = times;
        owned[owned_count++] = values;
        if (!times || !values) {
            r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", spath);
            goto done;
        }
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
    /* user tracks and events: extras.sinew (docs/ANIMATION.md) */
    const cJSON *extras = *out ? gltf_member(b->doc, anim, "extras") : NULL;
    const cJSON *own = cJSON_IsObject(extras) ? gltf_member(b->doc, extras, "sinew") : NULL;
    if (own) {
        char epath[80];
        snprintf(epath, sizeof epath, "%s.extras.sinew", path);
        sinew_error e = {0};
        if (sinew__timeline_from_json(own, epath, (*out)->duration, &b->doc->work.visited, b->options, timeline, &e) !=
            SINEW_OK)
            r = FAIL(b, e.result, "%s", e.description);
    }
done:
    for (int i = 0; i < owned_count; ++i) sinew__free(&b->alloc, owned[i]);
    sinew__free(&b->alloc, owned);
    sinew__free(&b->alloc, tracks);
    sinew__free(&b->alloc, sinfo);
    sinew__free(&b->alloc, cinfo);
    return r;
}

static sinew_result read_animations(builder *b)
{
    const cJSON *anims, *anim;
    int n, a = 0;
    sinew_result r = gltf_array(b->doc, b->doc->root, "animations", "", &anims, &n);
    if (r != SINEW_OK) return r;
    sinew_clip **clips = sinew__asset_alloc(b->asset, (size_t)n + 1, sizeof *clips);
    sinew_timeline **timelines = sinew__asset_alloc(b->asset, (size_t)n + 1, sizeof *timelines);
    if (!clips || !timelines) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    b->asset->clips = (const sinew_clip *const *)clips;
    /* the asset frees what is made: timelines listed before a failure too */
    b->asset->timelines = (const sinew_timeline *const *)timelines;
    bool any = false;
    GLTF_EACH(b->doc, anim, anims)
    {
        r = read_animation(b, a, anim, &clips[a], &timelines[a]);
        if (clips[a]) b->asset->clip_count = a + 1;
        if (r != SINEW_OK) return r;
        any = any || timelines[a];
        ++a;
    }
    if (!any) b->asset->timelines = NULL;
    return SINEW_OK;
}

/* ---- entry point ------------------------------------------------------------------------- */

/* ---- VRMC_springBone 1.0 ------------------------------------------------------ */

#define SPRING_PATH "extensions.VRMC_springBone"

/* A number member in [lo, hi]; `def` when absent. */
static sinew_result spring_number(builder *b, const cJSON *obj, const char *key, const char *path, float def, float lo,
                                  float hi, float *out)
{
    *out = def;
    const cJSON *v = gltf_member(b->doc, obj, key);
    if (!v) return SINEW_OK;
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(d) || !isfinite((float)d))
        return FAIL(b, SINEW_ERROR_NOT_FINITE, "%s.%s: not a finite number", path, key);
    if (d < lo || d > hi) {
        if (hi == INFINITY) return FAIL(b, SINEW_ERROR_PARSE, "%s.%s: %g is negative", path, key, d);
        return FAIL(b, SINEW_ERROR_PARSE, "%s.%s: %g is outside [%g, %g]", path, key, d, (double)lo, (double)hi);
    }
    *out = (float)d;
    return SINEW_OK;
}

/* An array member of indices into `what` (`limit` elements), into memory
 * the asset owns; `required` refuses it missing. */
static sinew_result spring_refs(builder *b, const cJSON *obj, const char *key, const char *path, bool required,
                                const char *what, int limit, int **out, int *count)
{
    const cJSON *list, *e;
    sinew_result r = gltf_array(b->doc, obj, key, path, &list, count);
    if (r != SINEW_OK) return r;
    if (!list && required) return FAIL(b, SINEW_ERROR_PARSE, "%s.%s: required but missing", path, key);
    *out = sinew__asset_alloc(b->asset, (size_t)*count + 1, sizeof **out);
    if (!*out) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s.%s: out of memory", path, key);
    int i = 0;
    GLTF_EACH(b->doc, e, list)
    {
        double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
        if (!(d >= 0 && d <= 0x7fffffff && d == floor(d)))
            return FAIL(b, SINEW_ERROR_PARSE, "%s.%s[%d]: not an index (an integer >= 0)", path, key, i);
        if (d >= limit)
            return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "%s.%s[%d]: %.0f is not an index of %s (%d element%s)", path,
                        key, i, d, what, limit, limit == 1 ? "" : "s");
        (*out)[i] = (int)d;
        ++i;
    }
    return SINEW_OK;
}

static sinew_result read_collider(builder *b, int i, const cJSON *c, sinew_spring_collider *out)
{
    char path[96];
    snprintf(path, sizeof path, SPRING_PATH ".colliders[%d]", i);
    if (!cJSON_IsObject(c)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    int node;
    sinew_result r = gltf_ref(b->doc, c, "node", path, true, "nodes", b->node_count, &node);
    if (r != SINEW_OK) return r;
    out->joint = b->node_joint[node];
    const cJSON *shape = gltf_member(b->doc, c, "shape");
    if (!cJSON_IsObject(shape)) return FAIL(b, SINEW_ERROR_PARSE, "%s.shape: required object missing", path);
    const cJSON *sphere = gltf_member(b->doc, shape, "sphere"), *capsule = gltf_member(b->doc, shape, "capsule");
    if (!sphere == !capsule)
        return FAIL(b, SINEW_ERROR_PARSE, "%s.shape: needs one of sphere and capsule, has %s", path,
                    sphere ? "both" : "neither");
    const cJSON *s = sphere ? sphere : capsule;
    char spath[112];
    snprintf(spath, sizeof spath, "%s.shape.%s", path, sphere ? "sphere" : "capsule");
    if (!cJSON_IsObject(s)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", spath);
    static const float zero[3] = {0, 0, 0};
    float offset[3], tail[3];
    out->shape = sphere ? SINEW_COLLIDER_SPHERE : SINEW_COLLIDER_CAPSULE;
    if ((r = gltf_floats(b->doc, s, "offset", spath, 3, zero, offset)) != SINEW_OK ||
        (r = spring_number(b, s, "radius", spath, 0.0f, 0.0f, INFINITY, &out->radius)) != SINEW_OK)
        return r;
    if (capsule && (r = gltf_floats(b->doc, s, "tail", spath, 3, zero, tail)) != SINEW_OK) return r;
    out->offset = (sinew_vec3){offset[0], offset[1], offset[2]};
    out->tail = capsule ? (sinew_vec3){tail[0], tail[1], tail[2]} : out->offset;
    return SINEW_OK;
}

static sinew_result read_collider_group(builder *b, int i, const cJSON *g, int colliders,
                                        sinew_spring_collider_group *out)
{
    char path[96];
    snprintf(path, sizeof path, SPRING_PATH ".colliderGroups[%d]", i);
    if (!cJSON_IsObject(g)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    const char *name;
    sinew_result r = gltf_string(b->doc, g, "name", path, &name);
    if (r != SINEW_OK) return r;
    int *list;
    if ((r = spring_refs(b, g, "colliders", path, true, SPRING_PATH ".colliders", colliders, &list,
                         &out->collider_count)) != SINEW_OK)
        return r;
    out->colliders = list;
    return SINEW_OK;
}

/* Where each joint lies in a depth-first order of the skeleton and how
 * many joints its subtree holds, so that "a is an ancestor of b" is one
 * comparison: first[a] < first[b] < first[a] + size[a]. Parents come
 * first, so one pass back sums the sizes and one pass forward places
 * each joint after its earlier siblings' subtrees. */
static void subtree_ranges(const sinew_skeleton *sk, int *first, int *size, int *next)
{
    int n = sk->joint_count, roots = 0;
    for (int j = 0; j < n; ++j) size[j] = 1;
    for (int j = n - 1; j > 0; --j)
        if (sk->parents[j] >= 0) size[sk->parents[j]] += size[j];
    for (int j = 0; j < n; ++j) {
        int p = sk->parents[j];
        if (p < 0) first[j] = roots, roots += size[j];
        else first[j] = next[p], next[p] += size[j];
        next[j] = first[j] + 1;
    }
}

static bool is_ancestor(const int *first, const int *size, int a, int d)
{
    return first[a] < first[d] && first[d] < first[a] + size[a];
}

typedef struct spring_scratch {
    const int *first, *size;
    int *owner; /* per joint: 1 + the spring that holds it, 0 for none */
} spring_scratch;

static sinew_result read_spring(builder *b, int i, const cJSON *s, int groups, const spring_scratch *sc,
                                sinew_spring_chain *out, const char **name)
{
    char path[96];
    snprintf(path, sizeof path, SPRING_PATH ".springs[%d]", i);
    if (!cJSON_IsObject(s)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", path);
    sinew_result r = gltf_string(b->doc, s, "name", path, name);
    if (r != SINEW_OK) return r;
    const cJSON *joints, *e;
    int n;
    if ((r = gltf_array(b->doc, s, "joints", path, &joints, &n)) != SINEW_OK) return r;
    if (!joints) return FAIL(b, SINEW_ERROR_PARSE, "%s.joints: required but missing", path);
    sinew_spring_joint *js = sinew__asset_alloc(b->asset, (size_t)n + 1, sizeof *js);
    if (!js) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s.joints: out of memory", path);
    int k = 0, prev_node = -1;
    GLTF_EACH(b->doc, e, joints)
    {
        char jpath[128];
        snprintf(jpath, sizeof jpath, "%s.joints[%d]", path, k);
        if (!cJSON_IsObject(e)) return FAIL(b, SINEW_ERROR_PARSE, "%s: not an object", jpath);
        int node;
        if ((r = gltf_ref(b->doc, e, "node", jpath, true, "nodes", b->node_count, &node)) != SINEW_OK) return r;
        sinew_spring_joint *j = &js[k];
        *j = sinew_spring_joint_default(b->node_joint[node]);
        float dir[3];
        static const float down[3] = {0, -1, 0};
        if ((r = spring_number(b, e, "hitRadius", jpath, 0.0f, 0.0f, INFINITY, &j->hit_radius)) != SINEW_OK ||
            (r = spring_number(b, e, "stiffness", jpath, 1.0f, 0.0f, INFINITY, &j->stiffness)) != SINEW_OK ||
            (r = spring_number(b, e, "gravityPower", jpath, 0.0f, 0.0f, INFINITY, &j->gravity_power)) != SINEW_OK ||
            (r = spring_number(b, e, "dragForce", jpath, 0.5f, 0.0f, 1.0f, &j->drag_force)) != SINEW_OK ||
            (r = gltf_floats(b->doc, e, "gravityDir", jpath, 3, down, dir)) != SINEW_OK)
            return r;
        j->gravity_dir = (sinew_vec3){dir[0], dir[1], dir[2]};
        int owner = sc->owner[j->joint];
        if (owner)
            return FAIL(b, SINEW_ERROR_PARSE, "%s.node: nodes[%d] is already a joint of " SPRING_PATH ".springs[%d]",
                        jpath, node, owner - 1);
        if (k > 0 && !is_ancestor(sc->first, sc->size, js[k - 1].joint, j->joint))
            return FAIL(b, SINEW_ERROR_PARSE, "%s.node: nodes[%d] is not below joints[%d]'s nodes[%d]; a spring's "
                        "joints form a chain down the node tree", jpath, node, k - 1, prev_node);
        prev_node = node;
        ++k;
    }
    /* owners are set once the whole spring passes, so a joint repeated in
     * one spring is refused as not below itself */
    for (int m = 0; m < n; ++m) sc->owner[js[m].joint] = i + 1;
    int *list;
    if ((r = spring_refs(b, s, "colliderGroups", path, false, SPRING_PATH ".colliderGroups", groups, &list,
                         &out->collider_group_count)) != SINEW_OK)
        return r;
    out->collider_groups = list;
    int center;
    if ((r = gltf_ref(b->doc, s, "center", path, false, "nodes", b->node_count, &center)) != SINEW_OK) return r;
    out->center = center < 0 ? -1 : b->node_joint[center];
    if (center >= 0 && n > 0 && out->center != js[0].joint && !is_ancestor(sc->first, sc->size, out->center, js[0].joint))
        return FAIL(b, SINEW_ERROR_PARSE, "%s.center: nodes[%d] is neither joints[0]'s node nor above it", path,
                    center);
    out->joints = js;
    out->joint_count = n;
    return SINEW_OK;
}

/* The root's extensions.VRMC_springBone into asset->springs: colliders on
 * nodes, groups of them, and chains of joints, every index and number
 * checked and named, then the whole checked as sinew_springs_create()
 * checks it (bones of zero length), in linear time, so that what an asset
 * holds is always accepted. */
static sinew_result read_springs(builder *b)
{
    const cJSON *ext = gltf_member(b->doc, b->doc->root, "extensions");
    if (!ext) return SINEW_OK;
    if (!cJSON_IsObject(ext)) return FAIL(b, SINEW_ERROR_PARSE, "extensions: not an object");
    const cJSON *sb = gltf_member(b->doc, ext, "VRMC_springBone");
    if (!sb) return SINEW_OK;
    if (!cJSON_IsObject(sb)) return FAIL(b, SINEW_ERROR_PARSE, SPRING_PATH ": not an object");
    const char *version;
    sinew_result r = gltf_string(b->doc, sb, "specVersion", SPRING_PATH, &version);
    if (r != SINEW_OK) return r;
    if (!version) return FAIL(b, SINEW_ERROR_PARSE, SPRING_PATH ".specVersion: required but missing");
    if (strcmp(version, "1.0") != 0)
        return FAIL(b, SINEW_ERROR_UNSUPPORTED, SPRING_PATH ".specVersion: \"%s\" is not 1.0", version);

    const cJSON *colliders, *groups, *springs, *e;
    int nc, ng, ns;
    if ((r = gltf_array(b->doc, sb, "colliders", SPRING_PATH, &colliders, &nc)) != SINEW_OK ||
        (r = gltf_array(b->doc, sb, "colliderGroups", SPRING_PATH, &groups, &ng)) != SINEW_OK ||
        (r = gltf_array(b->doc, sb, "springs", SPRING_PATH, &springs, &ns)) != SINEW_OK)
        return r;
    sinew_springs_desc *desc = sinew__asset_alloc(b->asset, 1, sizeof *desc);
    sinew_spring_collider *cs = sinew__asset_alloc(b->asset, (size_t)nc + 1, sizeof *cs);
    sinew_spring_collider_group *gs = sinew__asset_alloc(b->asset, (size_t)ng + 1, sizeof *gs);
    sinew_spring_chain *chains = sinew__asset_alloc(b->asset, (size_t)ns + 1, sizeof *chains);
    const char **names = sinew__asset_alloc(b->asset, (size_t)ns + 1, sizeof *names);
    int n = b->asset->skeleton->joint_count;
    int *first = scratch(b, (size_t)n * 4 + 1, sizeof *first);
    int *chain_spring = scratch(b, (size_t)ns + 1, sizeof *chain_spring);
    if (!desc || !cs || !gs || !chains || !names || !first || !chain_spring) {
        sinew__free(&b->alloc, first);
        sinew__free(&b->alloc, chain_spring);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, SPRING_PATH ": out of memory");
    }
    spring_scratch sc = {first, first + n, first + 3 * n};
    subtree_ranges(b->asset->skeleton, first, first + n, first + 2 * n);
    int i = 0, kept = 0;
    GLTF_EACH(b->doc, e, colliders)
    {
        if ((r = read_collider(b, i, e, &cs[i])) != SINEW_OK) goto done;
        ++i;
    }
    i = 0;
    GLTF_EACH(b->doc, e, groups)
    {
        if ((r = read_collider_group(b, i, e, nc, &gs[i])) != SINEW_OK) goto done;
        ++i;
    }
    i = 0;
    GLTF_EACH(b->doc, e, springs)
    {
        const char *name = NULL;
        if ((r = read_spring(b, i, e, ng, &sc, &chains[kept], &name)) != SINEW_OK) goto done;
        names[kept] = sinew__asset_strdup(b->asset, name ? name : "");
        if (!names[kept]) {
            r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, SPRING_PATH ".springs[%d]: out of memory", i);
            goto done;
        }
        /* a spring needs two joints to make a bone; with fewer it moves
         * nothing, and is left out rather than refused */
        if (chains[kept].joint_count < 2)
            sinew__warn(b->options, SPRING_PATH ".springs[%d]: %d joint%s, no bone to move; left out", i,
                        chains[kept].joint_count, chains[kept].joint_count == 1 ? "" : "s");
        else
            chain_spring[kept++] = i;
        ++i;
    }
    *desc = (sinew_springs_desc){cs, nc, gs, ng, chains, kept};
    sinew_error e2 = {0};
    if (sinew__springs_check(b->asset->skeleton, desc, &b->alloc, SPRING_PATH, &e2) != SINEW_OK) {
        /* the check names its chain: say which spring that is */
        const char *msg = e2.description, *at = strstr(msg, "chain ");
        int chain = -1;
        if (at) sscanf(at, "chain %d", &chain);
        if (chain >= 0 && chain < kept)
            r = FAIL(b, e2.result, SPRING_PATH ".springs[%d]: %s", chain_spring[chain], msg + strlen(SPRING_PATH ": "));
        else
            r = FAIL(b, e2.result, "%s", msg);
        goto done;
    }
    b->asset->springs = desc;
    b->asset->spring_names = names;
done:
    sinew__free(&b->alloc, first);
    sinew__free(&b->alloc, chain_spring);
    return r;
}

sinew_result sinew__gltf_load(const void *data, size_t size, bool owned, const char *base_dir,
                              const sinew_load_options *options, sinew_asset *asset, sinew_gltf_work *work,
                              sinew_error *err)
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
    if (r == SINEW_OK) r = read_springs(&b);
    /* glTF's lengths are metres by its specification */
    if (r == SINEW_OK) asset->meters_per_unit = 1.0f;
    if (work) *work = doc.work;
    for (int s = 0; s < b.skin_count; ++s) {
        sinew__free(&b.alloc, b.skins[s].joints);
        sinew__free(&b.alloc, b.skins[s].inverse_bind);
    }
    for (int m = 0; b.meshes && m < b.mesh_count; ++m) {
        for (int p = 0; p < b.meshes[m].prim_count; ++p) {
            sinew__free(&b.alloc, b.meshes[m].prims[p].refs);
            sinew__free(&b.alloc, b.meshes[m].prims[p].targets);
        }
        sinew__free(&b.alloc, b.meshes[m].prims);
    }
    sinew__free(&b.alloc, b.meshes);
    sinew__free(&b.alloc, b.skins);
    sinew__free(&b.alloc, b.node_joint);
    sinew__free(&b.alloc, b.node_parent);
    sinew__free(&b.alloc, b.node_mesh);
    sinew__free(&b.alloc, b.node_skin);
    sinew__free(&b.alloc, b.node_weights);
    sinew__free(&b.alloc, b.node_json);
    sinew__free(&b.alloc, b.in_scene);
    gltf_doc_close(&doc);
    return r;
}
