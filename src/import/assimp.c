/* SPDX-License-Identifier: MIT */
/* Assimp 5.2 scenes (FBX, Collada, BVH, OBJ and the rest) to sinew assets.
 *
 * Import flags: aiProcess_Triangulate (polygons to triangles; vertices are
 * not reordered) and aiProcess_GenSmoothNormals (only where a mesh has no
 * normals). Not aiProcess_ValidateDataStructure: it refuses skeleton-only
 * files (a BVH) once no dummy mesh is made, and the conversion below checks
 * what it uses anyway. aiProcess_JoinIdenticalVertices only when
 * sinew_load_options.weld_vertices asks for it (it reorders and merges the
 * file's vertices; Assimp 5.2.5 merges vertices that differ only in vertex
 * color too, which a warning says). Properties: AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS
 * 0 (Assimp folds FBX pivots and pre-rotations into the nodes it can),
 * AI_CONFIG_IMPORT_COLLADA_USE_COLLADA_NAMES 1 (the artist's node names,
 * not the ids), AI_CONFIG_IMPORT_NO_SKELETON_MESHES 1 (no made-up meshes
 * for skeleton-only files).
 *
 * The scene is untrusted: every index Assimp hands back is checked before
 * use, and every count bounds what is allocated. Assimp's logger is heard
 * during the import: what it says is classified (dropped data, or a note)
 * for the load's verdict (sinew__heard_judge, wall_frames.c). */
#include "wall.h"

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h> /* SRWLOCK */
#else
#include <pthread.h>
#endif

#define FAIL(b, result, ...) sinew__fail((b)->err, (result), __VA_ARGS__)

typedef struct ai_builder {
    const struct aiScene *scene;
    sinew_asset *asset;
    const sinew_options *options;
    sinew_allocator alloc;
    sinew_error *err;
    int node_count;
    const struct aiNode **nodes;  /* depth-first, as Assimp orders them */
    int *parent;
    bool *helper;                 /* an FBX "$AssimpFbx$" pivot or pre-rotation node */
    bool *keep;                   /* becomes a joint */
    int *joint;                   /* node -> joint, -1 when not one */
    int *hash;                    /* open addressing over node names: node index + 1, 0 empty */
    size_t hash_size;
} ai_builder;

static void *scratch(ai_builder *b, size_t count, size_t size) { return sinew__import_alloc(&b->alloc, count, size); }

static sinew_mat4 to_mat4(const struct aiMatrix4x4 *a)
{
    /* aiMatrix4x4 is row-major (a1 a2 a3 a4 is the first row) */
    sinew_mat4 m = {{a->a1, a->b1, a->c1, a->d1, a->a2, a->b2, a->c2, a->d2, a->a3, a->b3, a->c3, a->d3, a->a4, a->b4,
                     a->c4, a->d4}};
    return m;
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The first node with that name, or -1. */
static int find_node(const ai_builder *b, const struct aiString *name)
{
    size_t mask = b->hash_size - 1;
    for (size_t i = name_hash(name->data) & mask;; i = (i + 1) & mask) {
        int n = b->hash[i] - 1;
        if (n < 0) return -1;
        if (strcmp(b->nodes[n]->mName.data, name->data) == 0) return n;
    }
}

/* ---- nodes --------------------------------------------------------------------------------- */

/* Depth-first without recursion (a deep file must not overflow the stack). */
static sinew_result flatten(ai_builder *b)
{
    const struct aiNode *root = b->scene->mRootNode;
    if (!root) return FAIL(b, SINEW_ERROR_PARSE, "the scene has no root node");
    /* count first: every node once (a node listed twice would be a cycle) */
    size_t cap = 64, top = 0, count = 0;
    const struct aiNode **stack = scratch(b, cap, sizeof *stack);
    if (!stack) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    stack[top++] = root;
    while (top) {
        const struct aiNode *n = stack[--top];
        if (++count > SINEW_MAX_JOINTS * 4u) {
            sinew__free(&b->alloc, stack);
            return FAIL(b, SINEW_ERROR_TOO_MANY_JOINTS, "nodes: more than %d nodes", SINEW_MAX_JOINTS * 4);
        }
        if (n->mNumChildren && !n->mChildren) {
            sinew__free(&b->alloc, stack);
            return FAIL(b, SINEW_ERROR_PARSE, "node \"%s\": children missing", n->mName.data);
        }
        for (unsigned c = n->mNumChildren; c-- > 0;) {
            if (!n->mChildren[c]) { /* Assimp's RAW importer leaves such holes */
                sinew__free(&b->alloc, stack);
                return FAIL(b, SINEW_ERROR_PARSE, "node \"%s\": child %u missing", n->mName.data, c);
            }
            if (top == cap) {
                const struct aiNode **bigger = scratch(b, cap * 2, sizeof *stack);
                if (!bigger) {
                    sinew__free(&b->alloc, stack);
                    return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
                }
                memcpy(bigger, stack, cap * sizeof *stack);
                sinew__free(&b->alloc, stack);
                stack = bigger, cap *= 2;
            }
            stack[top++] = n->mChildren[c];
        }
    }
    size_t n = count;
    b->node_count = (int)n;
    b->nodes = scratch(b, n, sizeof *b->nodes);
    b->parent = scratch(b, n, sizeof *b->parent);
    b->helper = scratch(b, n, sizeof *b->helper);
    b->keep = scratch(b, n, sizeof *b->keep);
    b->joint = scratch(b, n, sizeof *b->joint);
    for (b->hash_size = 16; b->hash_size < n * 2; b->hash_size *= 2) {}
    b->hash = scratch(b, b->hash_size, sizeof *b->hash);
    int *parent_stack = scratch(b, cap, sizeof *parent_stack);
    if (!b->nodes || !b->parent || !b->helper || !b->keep || !b->joint || !b->hash || !parent_stack) {
        sinew__free(&b->alloc, stack), sinew__free(&b->alloc, parent_stack);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    top = 0;
    stack[top] = root, parent_stack[top++] = -1;
    int i = 0;
    while (top) {
        --top;
        const struct aiNode *node = stack[top];
        b->nodes[i] = node;
        b->parent[i] = parent_stack[top];
        b->helper[i] = strstr(node->mName.data, "_$AssimpFbx$_") != NULL;
        b->joint[i] = -1;
        size_t mask = b->hash_size - 1, h = name_hash(node->mName.data) & mask;
        while (b->hash[h] && strcmp(b->nodes[b->hash[h] - 1]->mName.data, node->mName.data) != 0) h = (h + 1) & mask;
        if (!b->hash[h]) b->hash[h] = i + 1;
        for (unsigned c = node->mNumChildren; c-- > 0;) stack[top] = node->mChildren[c], parent_stack[top++] = i;
        ++i;
    }
    sinew__free(&b->alloc, stack), sinew__free(&b->alloc, parent_stack);
    return SINEW_OK;
}

/* Which nodes become joints: every node in the skeleton's subtree (the
 * lowest node above all bones and animated nodes whose parent's subtree
 * holds a mesh, as a user draws the line), nodes that carry a rigid mesh,
 * and every ancestor of those; never a helper (folded into the node
 * below it). */
static sinew_result choose_joints(ai_builder *b)
{
    int n = b->node_count;
    const struct aiScene *s = b->scene;
    bool *needed = b->keep; /* first the seeds, then the closure */
    bool *has_mesh = scratch(b, (size_t)n, sizeof *has_mesh);
    int *depth = scratch(b, (size_t)n, sizeof *depth);
    if (!has_mesh || !depth) {
        sinew__free(&b->alloc, has_mesh), sinew__free(&b->alloc, depth);
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    for (unsigned m = 0; m < s->mNumMeshes; ++m) {
        const struct aiMesh *mesh = s->mMeshes[m];
        for (unsigned k = 0; mesh && k < mesh->mNumBones; ++k) {
            int node = mesh->mBones[k] ? find_node(b, &mesh->mBones[k]->mName) : -1;
            if (node >= 0) needed[node] = true;
        }
    }
    for (unsigned a = 0; a < s->mNumAnimations; ++a) {
        const struct aiAnimation *anim = s->mAnimations[a];
        for (unsigned c = 0; anim && c < anim->mNumChannels; ++c) {
            int node = anim->mChannels[c] ? find_node(b, &anim->mChannels[c]->mNodeName) : -1;
            if (node >= 0) needed[node] = true;
        }
    }
    for (int i = 0; i < n; ++i) {
        depth[i] = b->parent[i] >= 0 ? depth[b->parent[i]] + 1 : 0;
        has_mesh[i] = b->nodes[i]->mNumMeshes > 0;
    }
    for (int i = n - 1; i > 0; --i) has_mesh[b->parent[i]] = has_mesh[b->parent[i]] || has_mesh[i];
    /* the lowest common ancestor of the needed nodes */
    int root = -1;
    for (int i = 0; i < n; ++i) {
        if (!needed[i]) continue;
        if (root < 0) {
            root = i;
            continue;
        }
        int x = i, y = root;
        while (depth[x] > depth[y]) x = b->parent[x];
        while (depth[y] > depth[x]) y = b->parent[y];
        while (x != y) x = b->parent[x], y = b->parent[y];
        root = x;
    }
    if (root >= 0) {
        while (b->parent[root] >= 0 && !has_mesh[b->parent[root]]) root = b->parent[root];
        /* the whole subtree: in depth-first order it is a contiguous run */
        for (int i = root; i < n && (i == root || depth[i] > depth[root]); ++i) needed[i] = true;
    }
    for (int i = 0; i < n; ++i) {
        const struct aiNode *node = b->nodes[i];
        for (unsigned k = 0; k < node->mNumMeshes; ++k) {
            unsigned m = node->mMeshes ? node->mMeshes[k] : s->mNumMeshes;
            if (m < s->mNumMeshes && s->mMeshes[m] && s->mMeshes[m]->mNumBones == 0) needed[i] = true;
        }
    }
    for (int i = n - 1; i > 0; --i)
        if (needed[i]) needed[b->parent[i]] = true;
    if (n > 0) needed[0] = true;
    for (int i = 0; i < n; ++i) b->keep[i] = b->keep[i] && !b->helper[i];
    if (n > 0 && b->helper[0]) b->keep[0] = false;
    sinew__free(&b->alloc, has_mesh), sinew__free(&b->alloc, depth);
    return SINEW_OK;
}

/* The skeleton: each kept node's local transform with the helpers right
 * above it folded in (Assimp's meaning: a node that is animated has its
 * whole local transform in its channel, which then replaces this rest). */
static sinew_result build_skeleton(ai_builder *b)
{
    int n = b->node_count, count = 0;
    for (int i = 0; i < n; ++i) count += b->keep[i];
    import_node *list = scratch(b, (size_t)count + 1, sizeof *list);
    int *slot = scratch(b, (size_t)n, sizeof *slot);
    int *joint_of = scratch(b, (size_t)count + 1, sizeof *joint_of);
    sinew_result r = SINEW_OK;
    if (!list || !slot || !joint_of) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
        goto done;
    }
    int k = 0;
    for (int i = 0; i < n; ++i) {
        slot[i] = -1;
        if (!b->keep[i]) continue;
        sinew_mat4 local = to_mat4(&b->nodes[i]->mTransformation);
        int p = b->parent[i];
        for (; p >= 0 && b->helper[p]; p = b->parent[p]) {
            sinew_mat4 h = to_mat4(&b->nodes[p]->mTransformation);
            local = sinew_mat4_mul(&h, &local);
        }
        import_node *x = &list[k];
        x->source = i;
        x->parent = p >= 0 ? slot[p] : -1;
        x->name = b->nodes[i]->mName.data;
        bool projective;
        sinew_result d = sinew__import_matrix(&local, x, &projective);
        if (d == SINEW_ERROR_NOT_FINITE) {
            r = FAIL(b, d, "node \"%s\": its transform is not finite", x->name);
            goto done;
        }
        if (d == SINEW_ERROR_SINGULAR)
            sinew__warn(b->options, "node \"%s\": its transform collapses an axis (zero scale)", x->name);
        if (projective)
            sinew__warn(b->options, "node \"%s\": a projective transform; only the affine part is kept", x->name);
        slot[i] = k++;
    }
    r = sinew__import_skeleton(b->asset, list, count, n, "nodes", b->options, b->err, joint_of);
    if (r == SINEW_OK)
        for (int i = 0; i < n; ++i) b->joint[i] = slot[i] >= 0 ? joint_of[slot[i]] : -1;
done:
    sinew__free(&b->alloc, list), sinew__free(&b->alloc, slot), sinew__free(&b->alloc, joint_of);
    return r;
}

/* The nearest joint at or above a node (its helpers and other non-joints
 * skipped), -1 when none. */
static int joint_above(const ai_builder *b, int node)
{
    while (node >= 0 && b->joint[node] < 0) node = b->parent[node];
    return node >= 0 ? b->joint[node] : -1;
}

/* A node's world matrix in the file's rest pose (helpers included). */
static sinew_mat4 rest_world(const ai_builder *b, int node)
{
    sinew_mat4 m = sinew_mat4_identity();
    for (; node >= 0; node = b->parent[node]) {
        sinew_mat4 local = to_mat4(&b->nodes[node]->mTransformation);
        m = sinew_mat4_mul(&local, &m);
    }
    return m;
}

/* ---- meshes --------------------------------------------------------------------------------- */

/* Bone weights into a skin: per vertex the 8 heaviest, unweighted
 * vertices anchored to the nearest joint above the mesh's node so that
 * they stay where the artist put them and follow that joint. */
static sinew_result read_skin(ai_builder *b, int node, const struct aiMesh *m, const char *what, sinew_mesh *out)
{
    int nv = (int)m->mNumVertices, nb = (int)m->mNumBones;
    enum { K = SINEW_MAX_INFLUENCES };
    int *skin_joints = scratch(b, (size_t)nb + 1, sizeof *skin_joints);
    sinew_mat4 *ibm = scratch(b, (size_t)nb + 1, sizeof *ibm);
    uint16_t *idx = scratch(b, (size_t)nv * K, sizeof *idx);
    float *w = scratch(b, (size_t)nv * K, sizeof *w);
    sinew_result r = SINEW_OK;
    if (!skin_joints || !ibm || !idx || !w) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %d bones", what, nb);
        goto done;
    }
    int trimmed = 0, unknown = 0, bad_ids = 0;
    for (int k = 0; k < nb; ++k) {
        const struct aiBone *bone = m->mBones[k];
        int bn = bone ? find_node(b, &bone->mName) : -1;
        skin_joints[k] = bn >= 0 ? joint_above(b, bn) : -1;
        if (skin_joints[k] < 0) {
            ++unknown;
            skin_joints[k] = 0;
            ibm[k] = sinew_mat4_identity();
            continue;
        }
        ibm[k] = to_mat4(&bone->mOffsetMatrix);
        if (bone->mNumWeights && !bone->mWeights) continue;
        for (unsigned e = 0; e < bone->mNumWeights; ++e) {
            const struct aiVertexWeight *vw = &bone->mWeights[e];
            if (vw->mVertexId >= (unsigned)nv || !(vw->mWeight > 0.0f) || !isfinite(vw->mWeight)) {
                bad_ids += vw->mVertexId >= (unsigned)nv || !isfinite(vw->mWeight);
                continue;
            }
            /* insert keeping the K heaviest, heaviest first */
            uint16_t *vi = &idx[(size_t)vw->mVertexId * K];
            float *ww = &w[(size_t)vw->mVertexId * K];
            if (ww[K - 1] > 0.0f) { /* full: the lightest of the nine goes */
                ++trimmed;
                if (vw->mWeight <= ww[K - 1]) continue;
            }
            int at = K - 1;
            while (at > 0 && (ww[at - 1] == 0.0f || ww[at - 1] < vw->mWeight)) {
                ww[at] = ww[at - 1], vi[at] = vi[at - 1];
                --at;
            }
            ww[at] = vw->mWeight, vi[at] = (uint16_t)k;
        }
    }
    if (unknown)
        sinew__warn(b->options, "%s: %d bone(s) name no node of the scene; their weights are dropped", what, unknown);
    if (bad_ids)
        sinew__warn(b->options, "%s: %d bone weight(s) name a vertex beyond the %d or are not finite; dropped", what,
                    bad_ids, nv);
    if (trimmed)
        sinew__warn(b->options, "%s: %d influence(s) beyond the %d heaviest of their vertex were dropped and the rest "
                                "renormalized", what, trimmed, K);
    /* unweighted vertices: one more skin joint, the anchor */
    int unweighted = 0;
    for (int v = 0; v < nv; ++v) unweighted += w[(size_t)v * K] == 0.0f;
    int joint_count = nb;
    if (unweighted) {
        int anchor = joint_above(b, node);
        if (anchor < 0) anchor = 0;
        const sinew_skeleton *sk = b->asset->skeleton;
        int anchor_node = b->asset->joint_sources[anchor];
        sinew_mat4 aw = rest_world(b, anchor_node), mw = rest_world(b, node), inv;
        if (sinew_mat4_inverse(&aw, &inv) != SINEW_OK) inv = sinew_mat4_identity();
        skin_joints[nb] = anchor;
        ibm[nb] = sinew_mat4_mul(&inv, &mw);
        joint_count = nb + 1;
        for (int v = 0; v < nv; ++v)
            if (w[(size_t)v * K] == 0.0f) w[(size_t)v * K] = 1.0f, idx[(size_t)v * K] = (uint16_t)nb;
        sinew__warn(b->options, "%s: %d of %d vertices have no bone weight; they follow joint \"%s\" rigidly", what,
                    unweighted, nv, sk->names[anchor]);
    }
    if (joint_count > 65535) {
        r = FAIL(b, SINEW_ERROR_UNSUPPORTED, "%s: %d bones exceed 65,535", what, joint_count);
        goto done;
    }
    sinew_skin_desc d = {joint_count, skin_joints, NULL, ibm, nv, K, SINEW_INDEX_U16, idx, SINEW_WEIGHT_F32, w, false};
    r = sinew__asset_skin(b->asset, &d, NULL, false, what, b->options, b->err, out);
done:
    sinew__free(&b->alloc, skin_joints), sinew__free(&b->alloc, ibm);
    sinew__free(&b->alloc, idx), sinew__free(&b->alloc, w);
    return r;
}

static float *vectors(ai_builder *b, const struct aiVector3D *v, int n, int components)
{
    float *out = sinew__asset_alloc(b->asset, (size_t)n, sizeof(float) * (size_t)components);
    if (!out) return NULL;
    for (int i = 0; i < n; ++i) {
        const float x[3] = {v[i].x, v[i].y, v[i].z};
        memcpy(&out[(size_t)i * (size_t)components], x, sizeof(float) * (size_t)(components < 3 ? components : 3));
    }
    return out;
}

static sinew_result read_mesh(ai_builder *b, int node, unsigned index, sinew_mesh *out)
{
    const struct aiMesh *m = b->scene->mMeshes[index];
    char what[300];
    snprintf(what, sizeof what, "meshes[%u] \"%.200s\"", index, m->mName.data);
    int nv = (int)m->mNumVertices;
    if (m->mNumVertices > 0x7fffffffu / 16 || !m->mVertices)
        return FAIL(b, SINEW_ERROR_PARSE, "%s: %u vertices", what, m->mNumVertices);
    if ((m->mNumFaces && !m->mFaces) || (m->mNumBones && !m->mBones))
        return FAIL(b, SINEW_ERROR_PARSE, "%s: faces or bones missing", what);
    *out = (sinew_mesh){.name = sinew__asset_strdup(b->asset, m->mName.data), .vertex_count = nv,
                        .joint = b->joint[node] >= 0 ? b->joint[node] : joint_above(b, node), .source_node = node,
                        .source_mesh = (int)index, .source_primitive = 0};
    out->positions = vectors(b, m->mVertices, nv, 3);
    if (m->mNormals) out->normals = vectors(b, m->mNormals, nv, 3);
    if (!out->name || !out->positions || (m->mNormals && !out->normals))
        return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    for (int i = 0; i < nv * 3; ++i)
        if (!isfinite(out->positions[i]) || (out->normals && !isfinite(out->normals[i])))
            return FAIL(b, SINEW_ERROR_NOT_FINITE, "%s: vertex %d is not finite", what, i / 3);
    if (m->mTangents && m->mBitangents && out->normals) {
        float *t = sinew__asset_alloc(b->asset, (size_t)nv, 4 * sizeof(float));
        if (!t) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        for (int v = 0; v < nv; ++v) {
            sinew_vec3 tv = {m->mTangents[v].x, m->mTangents[v].y, m->mTangents[v].z};
            sinew_vec3 bv = {m->mBitangents[v].x, m->mBitangents[v].y, m->mBitangents[v].z};
            sinew_vec3 nn = {out->normals[v * 3], out->normals[v * 3 + 1], out->normals[v * 3 + 2]};
            float sign = sinew_vec3_dot(sinew_vec3_cross(nn, tv), bv) < 0.0f ? -1.0f : 1.0f;
            t[v * 4] = tv.x, t[v * 4 + 1] = tv.y, t[v * 4 + 2] = tv.z, t[v * 4 + 3] = sign;
        }
        out->tangents = t;
    }
    int sets = 0;
    while (sets < AI_MAX_NUMBER_OF_TEXTURECOORDS && m->mTextureCoords[sets]) ++sets;
    if (sets) {
        float **uv = sinew__asset_alloc(b->asset, (size_t)sets, sizeof *uv);
        if (!uv) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        for (int k = 0; k < sets; ++k)
            if (!(uv[k] = vectors(b, m->mTextureCoords[k], nv, 2)))
                return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        out->texcoord_count = sets;
        out->texcoords = (const float *const *)uv;
    }
    if (m->mColors[0]) {
        float *c = sinew__asset_alloc(b->asset, (size_t)nv, 4 * sizeof(float));
        if (!c) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        for (int v = 0; v < nv; ++v)
            c[v * 4] = m->mColors[0][v].r, c[v * 4 + 1] = m->mColors[0][v].g, c[v * 4 + 2] = m->mColors[0][v].b,
                  c[v * 4 + 3] = m->mColors[0][v].a;
        out->colors = c;
    }
    /* triangles; points and lines are not drawn */
    int tris = 0, other = 0;
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
        if (m->mFaces[f].mNumIndices == 3 && m->mFaces[f].mIndices) ++tris;
        else ++other;
    }
    uint32_t *ix = sinew__asset_alloc(b->asset, (size_t)tris * 3 + 1, sizeof *ix);
    if (!ix) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    int t = 0;
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
        const struct aiFace *face = &m->mFaces[f];
        if (face->mNumIndices != 3 || !face->mIndices) continue;
        for (int k = 0; k < 3; ++k) {
            if (face->mIndices[k] >= (unsigned)nv)
                return FAIL(b, SINEW_ERROR_OUT_OF_BOUNDS, "%s: face %u uses vertex %u of %d", what, f,
                            face->mIndices[k], nv);
            ix[t * 3 + k] = face->mIndices[k];
        }
        ++t;
    }
    out->indices = ix;
    out->index_count = tris * 3;
    if (other) sinew__warn(b->options, "%s: %d faces are points or lines; not drawn", what, other);
    if (!out->normals) { /* GenSmoothNormals gives them; a mesh of no triangles may still lack them */
        float *nrm = sinew__asset_alloc(b->asset, (size_t)nv, 3 * sizeof(float));
        if (!nrm) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        for (int v = 0; v < nv; ++v) nrm[v * 3 + 2] = 1.0f;
        out->normals = nrm;
    }
    return m->mNumBones ? read_skin(b, node, m, what, out) : SINEW_OK;
}

static sinew_result read_meshes(ai_builder *b)
{
    const struct aiScene *s = b->scene;
    int total = 0;
    for (int i = 0; i < b->node_count; ++i) total += (int)b->nodes[i]->mNumMeshes;
    sinew_mesh *meshes = sinew__asset_alloc(b->asset, (size_t)total + 1, sizeof *meshes);
    if (!meshes) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    b->asset->meshes = meshes;
    for (int i = 0; i < b->node_count; ++i) {
        const struct aiNode *node = b->nodes[i];
        for (unsigned k = 0; k < node->mNumMeshes; ++k) {
            unsigned index = node->mMeshes ? node->mMeshes[k] : s->mNumMeshes;
            if (index >= s->mNumMeshes || !s->mMeshes[index])
                return FAIL(b, SINEW_ERROR_BAD_REFERENCE, "node \"%s\": mesh %u does not exist", node->mName.data,
                            index);
            sinew_mesh *out = &meshes[b->asset->mesh_count];
            sinew_result r = read_mesh(b, i, index, out);
            if (r != SINEW_OK) {
                sinew_skin_free((sinew_skin *)out->skin);
                out->skin = NULL;
                return r;
            }
            b->asset->mesh_count++;
        }
    }
    return SINEW_OK;
}

/* ---- animations ----------------------------------------------------------------------------- */

/* Key times in seconds, strictly increasing (later duplicates dropped and
 * counted); values as floats, x y z (w). One of vec and quat is given.
 * Returns the number of keys kept. */
static int read_keys(const struct aiVectorKey *vec, const struct aiQuatKey *quat, unsigned n, double tps,
                     float *times, float *values, int *dropped)
{
    int kept = 0;
    for (unsigned i = 0; i < n; ++i) {
        float t = (float)((vec ? vec[i].mTime : quat[i].mTime) / tps);
        if (kept && !(t > times[kept - 1])) {
            ++*dropped;
            continue;
        }
        times[kept] = t;
        if (vec) {
            float *v = &values[kept * 3];
            v[0] = vec[i].mValue.x, v[1] = vec[i].mValue.y, v[2] = vec[i].mValue.z;
        } else {
            float *q = &values[kept * 4];
            q[0] = quat[i].mValue.x, q[1] = quat[i].mValue.y, q[2] = quat[i].mValue.z, q[3] = quat[i].mValue.w;
        }
        ++kept;
    }
    return kept;
}

static sinew_result read_animation(ai_builder *b, unsigned a, sinew_clip **out)
{
    const struct aiAnimation *anim = b->scene->mAnimations[a];
    char what[300];
    snprintf(what, sizeof what, "animations[%u] \"%.200s\"", a, anim ? anim->mName.data : "");
    if (!anim) return FAIL(b, SINEW_ERROR_PARSE, "%s: missing", what);
    if (anim->mNumChannels && !anim->mChannels) return FAIL(b, SINEW_ERROR_PARSE, "%s: channels missing", what);
    /* 0 (or nonsense) means Assimp's default of 25 ticks per second */
    double tps = anim->mTicksPerSecond > 0.0 && isfinite(anim->mTicksPerSecond) ? anim->mTicksPerSecond : 25.0;
    size_t nc = anim->mNumChannels;
    sinew_track *tracks = scratch(b, nc * 3 + 1, sizeof *tracks);
    float **owned = scratch(b, nc * 6 + 1, sizeof *owned);
    int track_count = 0, owned_count = 0, missing = 0, dropped = 0;
    sinew_result r = SINEW_OK;
    if (!tracks || !owned) {
        r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        goto done;
    }
    float earliest = 0.0f;
    for (size_t c = 0; c < nc; ++c) {
        const struct aiNodeAnim *ch = anim->mChannels[c];
        int node = ch ? find_node(b, &ch->mNodeName) : -1;
        if (node < 0 || b->joint[node] < 0) {
            ++missing;
            continue;
        }
        int joint = b->joint[node];
        const unsigned counts[3] = {ch->mPositionKeys ? ch->mNumPositionKeys : 0,
                                    ch->mRotationKeys ? ch->mNumRotationKeys : 0,
                                    ch->mScalingKeys ? ch->mNumScalingKeys : 0};
        for (int target = 0; target < 3; ++target) {
            unsigned n = counts[target];
            if (!n) continue;
            int comps = target == 1 ? 4 : 3;
            float *times = scratch(b, n, sizeof *times), *values = scratch(b, n, sizeof(float) * (size_t)comps);
            owned[owned_count++] = times, owned[owned_count++] = values;
            if (!times || !values) {
                r = FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
                goto done;
            }
            int kept = read_keys(target == 0 ? ch->mPositionKeys : target == 2 ? ch->mScalingKeys : NULL,
                                 target == 1 ? ch->mRotationKeys : NULL, n, tps, times, values, &dropped);
            if (times[0] < earliest) earliest = times[0];
            tracks[track_count++] = (sinew_track){joint, (sinew_track_target)target, SINEW_INTERP_LINEAR, kept, times,
                                                  values, 0};
        }
    }
    if (missing)
        sinew__warn(b->options, "%s: %d channel(s) name no joint of the scene; ignored", what, missing);
    if (dropped)
        sinew__warn(b->options, "%s: %d key(s) at or before the previous key's time were dropped", what, dropped);
    if (earliest < 0.0f) {
        /* sinew clips start at 0: move the whole clip, said */
        for (int t = 0; t < track_count; ++t)
            for (int k = 0; k < tracks[t].key_count; ++k) ((float *)tracks[t].times)[k] -= earliest;
        sinew__warn(b->options, "%s: keys start at %g s; the clip is moved to start at 0", what, (double)earliest);
    }
    float duration = (float)(anim->mDuration / tps) - (earliest < 0.0f ? earliest : 0.0f);
    for (int t = 0; t < track_count; ++t)
        if (tracks[t].times[tracks[t].key_count - 1] > duration) duration = tracks[t].times[tracks[t].key_count - 1];
    if (!isfinite(duration) || duration < 0.0f) duration = 0.0f;
    sinew_clip_desc d = {.name = anim->mName.data, .joint_count = b->asset->skeleton->joint_count,
        .duration = duration, .track_count = track_count, .tracks = tracks, .skeleton = b->asset->skeleton};
    sinew_error e;
    *out = sinew_clip_create(&d, b->options, &e);
    if (!*out) r = FAIL(b, e.result, "%s: %s", what, sinew__error_sentence(e.description));
done:
    for (int i = 0; i < owned_count; ++i) sinew__free(&b->alloc, owned[i]);
    sinew__free(&b->alloc, owned), sinew__free(&b->alloc, tracks);
    return r;
}

static sinew_result read_animations(ai_builder *b)
{
    unsigned n = b->scene->mNumAnimations;
    if (n && !b->scene->mAnimations) return FAIL(b, SINEW_ERROR_PARSE, "animations: missing");
    sinew_clip **clips = sinew__asset_alloc(b->asset, (size_t)n + 1, sizeof *clips);
    if (!clips) return FAIL(b, SINEW_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    b->asset->clips = (const sinew_clip *const *)clips;
    for (unsigned a = 0; a < n; ++a) {
        sinew_result r = read_animation(b, a, &clips[a]);
        if (r != SINEW_OK) return r;
        b->asset->clip_count = (int)a + 1;
    }
    return SINEW_OK;
}

/* ---- the declared unit ------------------------------------------------------------------------ */

/* Metadata entry `key` of the scene, or NULL; the keys are checked as
 * untrusted (a NULL array, a length past the text). */
static const struct aiMetadataEntry *metadata(const struct aiScene *scene, const char *key)
{
    const struct aiMetadata *m = scene->mMetaData;
    if (!m || !m->mKeys || !m->mValues) return NULL;
    size_t n = strlen(key);
    for (unsigned i = 0; i < m->mNumProperties; ++i)
        if (m->mKeys[i].length == n && memcmp(m->mKeys[i].data, key, n) == 0 && m->mValues[i].mData)
            return &m->mValues[i];
    return NULL;
}

/* Whether the scene's SourceAsset_Format (the importer's name, which
 * Assimp sets for every format) starts with `name`. */
static bool read_by(const struct aiScene *scene, const char *name)
{
    const struct aiMetadataEntry *e = metadata(scene, "SourceAsset_Format");
    if (!e || e->mType != AI_AISTRING) return false;
    const struct aiString *s = e->mData;
    size_t n = strlen(name);
    return s->length >= n && s->length < MAXLEN && memcmp(s->data, name, n) == 0;
}

/* The unit of the scene's lengths in metres, as the file declares it; 0
 * where it declares none. Assimp 5.2's FBX importer keeps the file's
 * lengths and reports GlobalSettings' UnitScaleFactor (centimetres a unit,
 * a float; a double in later versions); its Collada importer scales the
 * root node by the file's <unit> (1 m where the file has none, as Collada
 * specifies), so the scene is in metres whatever it reports: a
 * UnitScaleFactor there is not applied again. Other importers declare
 * nothing sinew reads. An implausible unit is left undeclared, with a
 * warning. */
static float declared_unit(const struct aiScene *scene, const sinew_options *options)
{
    if (read_by(scene, "Collada")) return 1.0f;
    if (!read_by(scene, "Autodesk FBX")) return 0.0f;
    const struct aiMetadataEntry *e = metadata(scene, "UnitScaleFactor");
    double centimeters;
    if (e && e->mType == AI_FLOAT)
        centimeters = *(const float *)e->mData;
    else if (e && e->mType == AI_DOUBLE)
        centimeters = *(const double *)e->mData;
    else
        return 0.0f;
    double meters = centimeters * 0.01;
    if (sinew__unit_plausible(meters)) return (float)meters;
    sinew__warn(options, "the file's unit (UnitScaleFactor %g, centimetres a unit) is not a plausible length unit: "
                "its lengths are kept, their unit undeclared", centimeters);
    return 0.0f;
}

/* The rotation that turns the scene from the axes the file declares into
 * glTF's. Assimp 5.2's FBX importer reports GlobalSettings' UpAxis,
 * UpAxisSign, FrontAxis, FrontAxisSign, CoordAxis and CoordAxisSign as
 * int32 metadata and leaves the scene in them (its root node is the
 * identity whatever they say); its Collada importer turns the scene to Y
 * up on the root node itself. Axes that are not three distinct ones with
 * signs of +-1, or that mirror glTF's, are ignored with a warning: the
 * identity. */
static sinew_quat declared_axes(const struct aiScene *scene, const sinew_options *options)
{
    sinew_quat q = {0.0f, 0.0f, 0.0f, 1.0f};
    if (!read_by(scene, "Autodesk FBX")) return q;
    static const char *const keys[6] = {"UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign", "CoordAxis",
                                        "CoordAxisSign"};
    int32_t axes[6];
    for (int k = 0; k < 6; ++k) {
        const struct aiMetadataEntry *e = metadata(scene, keys[k]);
        if (!e || e->mType != AI_INT32) return q; /* not declared: as loaded */
        axes[k] = *(const int32_t *)e->mData;
    }
    sinew__axes made = sinew__axes_rotation(axes, &q);
    if (made != SINEW__AXES_ROTATION) {
        sinew__warn(options, "the file's axes (UpAxis %d sign %d, FrontAxis %d sign %d, CoordAxis %d sign %d) %s: "
                    "its coordinates are kept as they are", axes[0], axes[1], axes[2], axes[3], axes[4], axes[5],
                    made == SINEW__AXES_MIRROR ? "mirror glTF's, which no rotation turns"
                                               : "are not three distinct axes 0 to 2 with signs of +-1");
        q = (sinew_quat){0.0f, 0.0f, 0.0f, 1.0f};
    }
    return q;
}

/* ---- entry point ---------------------------------------------------------------------------- */

sinew_result sinew__assimp_convert(const struct aiScene *scene, const sinew_options *options, sinew_asset *asset,
                                   sinew_error *err);

/* The conversion alone, for a scene from anywhere (the fuzz harness feeds
 * it what Assimp makes of random bytes). */
sinew_result sinew__assimp_convert(const struct aiScene *scene, const sinew_options *options, sinew_asset *asset,
                                   sinew_error *err)
{
    ai_builder b = {0};
    b.scene = scene;
    b.asset = asset;
    b.options = options;
    b.alloc = sinew__allocator(options);
    b.err = err;
    if (scene->mNumMeshes && !scene->mMeshes) return FAIL(&b, SINEW_ERROR_PARSE, "meshes: missing");
    sinew_result r = flatten(&b);
    if (r == SINEW_OK) r = choose_joints(&b);
    if (r == SINEW_OK) r = build_skeleton(&b);
    if (r == SINEW_OK) r = read_meshes(&b);
    if (r == SINEW_OK) r = read_animations(&b);
    if (r == SINEW_OK) asset->meters_per_unit = declared_unit(scene, options);
    if (r == SINEW_OK) asset->axis_rotation = declared_axes(scene, options);
    sinew__free(&b.alloc, b.nodes), sinew__free(&b.alloc, b.parent), sinew__free(&b.alloc, b.helper);
    sinew__free(&b.alloc, b.keep), sinew__free(&b.alloc, b.joint), sinew__free(&b.alloc, b.hash);
    return r;
}

/* The one file Assimp may open: the bytes in memory, under the name it is
 * read by (whose extension picks the importer). Any other name it asks
 * for (an OBJ's material library, an external texture or buffer) is
 * refused: the import reads nothing but the file it was given. */
typedef struct memory_file {
    const char *name;
    const unsigned char *data;
    size_t size;
} memory_file;

typedef struct open_file {
    const memory_file *file;
    size_t at;
} open_file;

static size_t file_read(struct aiFile *f, char *out, size_t size, size_t count)
{
    open_file *o = (open_file *)f->UserData;
    size_t left = o->file->size - o->at;
    if (size == 0 || count == 0) return 0;
    size_t n = count < left / size ? count : left / size;
    memcpy(out, o->file->data + o->at, n * size);
    o->at += n * size;
    return n;
}

static size_t file_write(struct aiFile *f, const char *in, size_t size, size_t count)
{
    (void)f, (void)in, (void)size, (void)count;
    return 0;
}

static size_t file_tell(struct aiFile *f) { return ((open_file *)f->UserData)->at; }

static size_t file_size(struct aiFile *f) { return ((open_file *)f->UserData)->file->size; }

static enum aiReturn file_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    open_file *o = (open_file *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? o->at : o->file->size;
    if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END) return aiReturn_FAILURE;
    if (offset > o->file->size - base) return aiReturn_FAILURE;
    o->at = base + offset;
    return aiReturn_SUCCESS;
}

static void file_flush(struct aiFile *f) { (void)f; }

static struct aiFile *file_open(struct aiFileIO *io, const char *name, const char *mode)
{
    const memory_file *m = (const memory_file *)io->UserData;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    if (strchr(mode, 'w') || strchr(mode, 'a') || (strcmp(name, m->name) != 0 && strcmp(base, m->name) != 0))
        return NULL;
    struct aiFile *f = malloc(sizeof *f);
    open_file *o = malloc(sizeof *o);
    if (!f || !o) {
        free(f), free(o);
        return NULL;
    }
    *o = (open_file){m, 0};
    *f = (struct aiFile){file_read, file_write, file_tell, file_size, file_seek, file_flush, (aiUserData)o};
    return f;
}

static void file_close(struct aiFileIO *io, struct aiFile *f)
{
    (void)io;
    if (f) free(f->UserData), free(f);
}

/* ---- what Assimp's logger says ------------------------------------------------------------- */

/* Errors that do not mean lost data for sinew: objects Assimp does not
 * read by design (a Model link to an IK effector; a Model it failed to
 * read has an error of its own, the parser's), materials, cameras and
 * effects (sinew reads none), texture coordinate, color, tangent and
 * bitangent sets past Assimp's limits or past the first, and a polygon
 * triangulated as a fan. Each is heard as a note. */
static const char *const errors_not_lost[] = {
    "failed to convert source object for Model link",
    "material",
    "UV channels exceeded",
    "color sets exceeded",
    "too many texture coordinate sets",
    "too many vertex color sets",
    "tangent layer",
    "binormal layer",
    "tangent stream",
    "bitangent stream",
    "Failed to triangulate polygon",
    "effect input mapping",
    "reference format of camera",
};

/* Warnings that do mean lost data: an object replaced by another of the
 * same id, and the links of skins, blend shapes and animation whose source
 * Assimp could not read (those of nodes and curves aimed at objects it
 * does not read are notes: every file of the shared assets has them). */
static const char *const warnings_lost[] = {
    "duplicate object id",
    "Model -> Cluster link",
    "Cluster -> Skin link",
    "Skin -> Geometry link",
    "BlendShape -> Geometry link",
    "BlendShapeChannel -> BlendShape link",
    "Shape -> BlendShapeChannel link",
    "AnimationCurve->AnimationCurveNode link",
    "AnimationCurveNode->AnimationLayer link",
    "AnimationLayer->AnimationStack link",
    "failed to read AnimationStack object",
};

static bool mentions(const char *text, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (strstr(text, list[i])) return true;
    return false;
}

/* Assimp's log stream: "Error, T0: text\n" or "Warn,  T0: text\n" (info
 * and debug lines are not heard), classified into `user`'s sinew__heard. */
static void hear(const char *message, char *user)
{
    sinew__heard *h = (sinew__heard *)user;
    bool error = strncmp(message, "Error,", 6) == 0;
    if (!error && strncmp(message, "Warn,", 5) != 0) return;
    const char *text = strchr(message, ':');
    text = text ? text + 1 : message;
    while (*text == ' ') ++text;
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) --n;
    char line[SINEW__HEARD_TEXT];
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), text);
    bool lost = error ? !mentions(line, errors_not_lost, sizeof errors_not_lost / sizeof *errors_not_lost)
                      : mentions(line, warnings_lost, sizeof warnings_lost / sizeof *warnings_lost);
    sinew__heard_add(h, lost ? SINEW__HEARD_DROPPED : SINEW__HEARD_NOTE, text, n, 1);
}

/* Assimp's scene of the bytes, what its logger said meanwhile heard. */
static sinew_result import_scene(const void *data, size_t size, const char *extension, const char *file_name,
                                 const sinew_load_options *options, sinew__heard *heard,
                                 const struct aiScene **scene_out, sinew_error *err)
{
    if (size > 0xffffffffu) return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "Assimp reads files of up to 4 GiB");
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_USE_COLLADA_NAMES, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    unsigned flags = aiProcess_Triangulate | aiProcess_GenSmoothNormals;
    if (options && options->weld_vertices) flags |= aiProcess_JoinIdenticalVertices;
    /* the bytes under the file's name, ending in the format's extension so
     * that only that importer reads them (none: Assimp guesses by the
     * bytes), and no other file readable beside them */
    char name[300];
    const char *given = file_name && *file_name ? file_name : "memory";
    size_t length = strlen(given), e = extension ? strlen(extension) : 0;
    bool ends = e && length > e && given[length - e - 1] == '.';
    for (size_t i = 0; ends && i < e; ++i)
        ends = tolower((unsigned char)given[length - e + i]) == tolower((unsigned char)extension[i]);
    snprintf(name, sizeof name, "%.200s%s%s", given, ends || !e ? "" : ".", ends ? "" : extension ? extension : "");
    memory_file file = {name, data, size};
    struct aiFileIO io = {file_open, file_close, (aiUserData)&file};
    /* Assimp's importers log what they skip (an FBX object whose arrays
     * they cannot read is dropped, the import going on without it): heard
     * for the length of the import. The FBX importer logs such an error
     * only while a logger is attached. */
    struct aiLogStream stream = {hear, (char *)heard};
    aiAttachLogStream(&stream);
    const struct aiScene *scene = aiImportFileExWithProperties(name, flags, &io, props);
    aiDetachLogStream(&stream);
    aiReleasePropertyStore(props);
    if (!scene) {
        /* Assimp's sentence may quote the file's bytes: printable ASCII kept */
        const char *why = aiGetErrorString();
        char text[160];
        size_t n = 0;
        for (; why && why[n] && n < sizeof text - 1; ++n) text[n] = why[n] >= 0x20 && why[n] < 0x7f ? why[n] : '?';
        text[n] = '\0';
        return sinew__fail(err, SINEW_ERROR_PARSE, "Assimp cannot read it: %s", n ? text : "unknown format");
    }
    *scene_out = scene;
    return SINEW_OK;
}

/* The scene into `asset`, then released. */
static sinew_result convert_scene(const struct aiScene *scene, const sinew_load_options *options, sinew_asset *asset,
                                  sinew_error *err)
{
    sinew_result r = sinew__assimp_convert(scene, &options->base, asset, err);
    aiReleaseImport(scene);
    int colored = 0;
    for (int m = 0; r == SINEW_OK && options->weld_vertices && m < asset->mesh_count; ++m)
        colored += asset->meshes[m].colors != NULL;
    if (colored)
        sinew__warn(&options->base,
                    "%d mesh(es) have vertex colors, and Assimp 5.2 welds vertices that differ only in color; "
                    "load without weld_vertices to keep every vertex's color",
                    colored);
    return r;
}

sinew_result sinew__assimp_hear(const void *data, size_t size, const char *extension, const char *file_name,
                                const sinew_load_options *options, sinew_asset *asset, sinew__heard *heard,
                                sinew_error *err)
{
    const struct aiScene *scene = NULL;
    sinew_result r = import_scene(data, size, extension, file_name, options, heard, &scene, err);
    return r == SINEW_OK ? convert_scene(scene, options, asset, err) : r;
}

/* Assimp's logger is one for the process, its streams a list without a
 * lock of its own: imports in this process take turns, so that each hears
 * its own messages. */
#if defined(_WIN32)
static SRWLOCK turn = SRWLOCK_INIT;
static void take_turn(void) { AcquireSRWLockExclusive(&turn); }
static void end_turn(void) { ReleaseSRWLockExclusive(&turn); }
#else
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static void take_turn(void) { pthread_mutex_lock(&turn); }
static void end_turn(void) { pthread_mutex_unlock(&turn); }
#endif

/* The importer's name for sentences: FBX, Collada, BVH, else the extension. */
static void importer_name(const char *extension, char out[16])
{
    const char *known = !extension || !*extension ? "Assimp"
                        : strcmp(extension, "fbx") == 0 ? "FBX"
                        : strcmp(extension, "dae") == 0 ? "Collada"
                        : strcmp(extension, "bvh") == 0 ? "BVH"
                                                        : NULL;
    if (known) {
        snprintf(out, 16, "%s", known);
        return;
    }
    size_t i = 0;
    for (; extension[i] && i < 15; ++i) out[i] = (char)toupper((unsigned char)extension[i]);
    out[i] = '\0';
}

sinew_result sinew__assimp_read(const void *data, size_t size, const char *extension, const char *file_name,
                                const sinew_load_options *options, sinew_asset *asset, sinew_error *err)
{
    sinew__heard heard = {{0, 0}, {0, 0}, {{""}}};
    const struct aiScene *scene = NULL;
    take_turn();
    sinew_result r = import_scene(data, size, extension, file_name, options, &heard, &scene, err);
    end_turn();
    if (r != SINEW_OK) return r;
    /* judged before the conversion, as the wall judges before rebuilding:
     * a refused load says nothing of what it did not load */
    char importer[16];
    importer_name(extension, importer);
    r = sinew__heard_judge(&heard, importer, options, err);
    if (r != SINEW_OK) {
        aiReleaseImport(scene);
        return r;
    }
    return convert_scene(scene, options, asset, err);
}
