/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sinew's conversion of what Assimp returns
 * (src/import/assimp.c, sinew__assimp_convert), treated as untrusted: the
 * bytes are read as a recipe for an aiScene (node tree with nodes listed
 * under two parents and cycles, names that repeat or carry Assimp's helper
 * suffix, matrices with NaN, infinity, shear and zero scale, meshes whose
 * faces, bones and node references point anywhere, weights of any value,
 * animations with keys in any order and times of any value), which is
 * converted and, when that succeeds, played (fuzz_play.h).
 *
 * What the recipe keeps trusted is what a C caller cannot check: every
 * count matches the array behind its pointer and names end in a NUL.
 * Fuzzing Assimp's own parsers is Assimp's business (it is not built with
 * the sanitizers here); this is the boundary sinew owns. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

#include "fuzz_play.h"

#include <assimp/scene.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* internal to libsinew_import */
sinew_asset *sinew__asset_new(const char *name, const sinew_options *options);
sinew_result sinew__assimp_convert(const struct aiScene *scene, const sinew_options *options, sinew_asset *asset,
                                   sinew_error *err);

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned byte(reader *r)
{
    if (!r->n) return 0;
    --r->n;
    return *r->p++;
}

/* 0 .. max */
static unsigned upto(reader *r, unsigned max) { return max ? byte(r) % (max + 1) : 0; }

/* A float: often a tame value, sometimes any bit pattern (NaN, infinity,
 * denormals, huge). */
static float value(reader *r, float tame)
{
    unsigned kind = byte(r);
    if (kind < 160) return tame + ((float)byte(r) - 128.0f) / 64.0f;
    if (kind < 200) return tame;
    uint32_t bits = byte(r) | byte(r) << 8 | byte(r) << 16 | (uint32_t)byte(r) << 24;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void name(reader *r, struct aiString *s, unsigned nodes)
{
    unsigned kind = byte(r);
    static const char *const helpers[] = {"_$AssimpFbx$_Translation", "_$AssimpFbx$_Rotation",
                                          "_$AssimpFbx$_PreRotation", "_$AssimpFbx$_Scaling"};
    if (kind < 200)
        snprintf(s->data, sizeof s->data, "n%u", nodes ? upto(r, nodes + 1) : 0);
    else if (kind < 230)
        snprintf(s->data, sizeof s->data, "n%u%s", upto(r, nodes), helpers[byte(r) % 4]);
    else
        s->data[0] = '\0';
    s->length = (uint32_t)strlen(s->data);
}

static void matrix(reader *r, struct aiMatrix4x4 *m)
{
    float *f = &m->a1;
    for (int i = 0; i < 16; ++i) f[i] = i % 5 == 0 ? 1.0f : 0.0f;
    unsigned kind = byte(r);
    if (kind < 100) { /* a translation */
        m->a4 = value(r, 0.0f), m->b4 = value(r, 1.0f), m->c4 = value(r, 0.0f);
    } else if (kind < 240) { /* any entries */
        for (int i = 0; i < 16; ++i) f[i] = value(r, f[i]);
    }
}

typedef struct scene_memory {
    void *blocks[4096];
    int count;
} scene_memory;

static void *get(scene_memory *m, size_t count, size_t size)
{
    if (m->count == (int)(sizeof m->blocks / sizeof m->blocks[0])) return NULL;
    void *p = calloc(count ? count : 1, size);
    if (p) m->blocks[m->count++] = p;
    return p;
}

/* Builds the scene; NULL when the recipe asks for more blocks than kept. */
static struct aiScene *build(reader *r, scene_memory *mem)
{
    struct aiScene *s = get(mem, 1, sizeof *s);
    if (!s) return NULL;
    unsigned nodes = 1 + upto(r, 40);
    struct aiNode *node = get(mem, nodes, sizeof *node);
    unsigned *parent = get(mem, nodes, sizeof *parent), *extra = get(mem, nodes, sizeof *extra);
    unsigned *kids = get(mem, nodes, sizeof *kids);
    if (!node || !parent || !extra || !kids) return NULL;
    for (unsigned i = 0; i < nodes; ++i) {
        name(r, &node[i].mName, nodes);
        matrix(r, &node[i].mTransformation);
        parent[i] = i ? upto(r, i - 1) : 0;
        /* now and then a second parent anywhere, the root included (a cycle) */
        extra[i] = byte(r) > 245 ? upto(r, nodes - 1) + 1 : 0;
        if (i) ++kids[parent[i]];
        if (extra[i]) ++kids[extra[i] - 1];
    }
    for (unsigned i = 0; i < nodes; ++i) {
        node[i].mChildren = get(mem, kids[i], sizeof *node[i].mChildren);
        if (!node[i].mChildren) return NULL;
    }
    for (unsigned i = 0; i < nodes; ++i) {
        if (i) {
            struct aiNode *p = &node[parent[i]];
            p->mChildren[p->mNumChildren++] = &node[i];
            node[i].mParent = p;
        }
        if (extra[i]) {
            struct aiNode *p = &node[extra[i] - 1];
            p->mChildren[p->mNumChildren++] = &node[i];
        }
    }
    s->mRootNode = &node[0];

    s->mNumMeshes = upto(r, 3);
    s->mMeshes = get(mem, s->mNumMeshes, sizeof *s->mMeshes);
    if (!s->mMeshes) return NULL;
    for (unsigned m = 0; m < s->mNumMeshes; ++m) {
        struct aiMesh *mesh = get(mem, 1, sizeof *mesh);
        if (!mesh) return NULL;
        s->mMeshes[m] = mesh;
        snprintf(mesh->mName.data, sizeof mesh->mName.data, "mesh%u", m);
        mesh->mName.length = (uint32_t)strlen(mesh->mName.data);
        mesh->mNumVertices = upto(r, 48);
        mesh->mVertices = get(mem, mesh->mNumVertices, sizeof *mesh->mVertices);
        if (!mesh->mVertices) return NULL;
        if (byte(r) < 200) {
            mesh->mNormals = get(mem, mesh->mNumVertices, sizeof *mesh->mNormals);
            if (!mesh->mNormals) return NULL;
        }
        for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
            mesh->mVertices[v] = (struct aiVector3D){value(r, (float)v), value(r, 0.0f), value(r, 0.5f)};
            if (mesh->mNormals) mesh->mNormals[v] = (struct aiVector3D){value(r, 0.0f), value(r, 1.0f), value(r, 0.0f)};
        }
        mesh->mNumFaces = upto(r, 24);
        mesh->mFaces = get(mem, mesh->mNumFaces, sizeof *mesh->mFaces);
        if (!mesh->mFaces) return NULL;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            struct aiFace *face = &mesh->mFaces[f];
            face->mNumIndices = byte(r) < 220 ? 3 : upto(r, 5);
            face->mIndices = get(mem, face->mNumIndices, sizeof *face->mIndices);
            if (!face->mIndices) return NULL;
            for (unsigned k = 0; k < face->mNumIndices; ++k) /* now and then past the vertices */
                face->mIndices[k] = byte(r) < 240 ? upto(r, mesh->mNumVertices ? mesh->mNumVertices - 1 : 0) : byte(r) * 997u;
        }
        mesh->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
        mesh->mNumBones = upto(r, 6);
        mesh->mBones = get(mem, mesh->mNumBones, sizeof *mesh->mBones);
        if (!mesh->mBones) return NULL;
        for (unsigned b = 0; b < mesh->mNumBones; ++b) {
            struct aiBone *bone = get(mem, 1, sizeof *bone);
            if (!bone) return NULL;
            mesh->mBones[b] = bone;
            name(r, &bone->mName, nodes);
            matrix(r, &bone->mOffsetMatrix);
            bone->mNumWeights = upto(r, 32);
            bone->mWeights = get(mem, bone->mNumWeights, sizeof *bone->mWeights);
            if (!bone->mWeights) return NULL;
            for (unsigned w = 0; w < bone->mNumWeights; ++w) {
                bone->mWeights[w].mVertexId = byte(r) < 240 ? upto(r, mesh->mNumVertices) : byte(r) * 65537u;
                bone->mWeights[w].mWeight = value(r, 0.5f);
            }
        }
    }
    for (unsigned i = 0; i < nodes; ++i) { /* mesh references, some dangling */
        node[i].mNumMeshes = byte(r) < 200 ? 0 : upto(r, 2);
        node[i].mMeshes = get(mem, node[i].mNumMeshes, sizeof *node[i].mMeshes);
        if (!node[i].mMeshes) return NULL;
        for (unsigned k = 0; k < node[i].mNumMeshes; ++k) node[i].mMeshes[k] = upto(r, s->mNumMeshes + 1);
    }

    s->mNumAnimations = upto(r, 2);
    s->mAnimations = get(mem, s->mNumAnimations, sizeof *s->mAnimations);
    if (!s->mAnimations) return NULL;
    for (unsigned a = 0; a < s->mNumAnimations; ++a) {
        struct aiAnimation *anim = get(mem, 1, sizeof *anim);
        if (!anim) return NULL;
        s->mAnimations[a] = anim;
        snprintf(anim->mName.data, sizeof anim->mName.data, "clip%u", a);
        anim->mName.length = (uint32_t)strlen(anim->mName.data);
        anim->mDuration = value(r, 30.0f);
        anim->mTicksPerSecond = byte(r) < 50 ? 0.0 : value(r, 30.0f);
        anim->mNumChannels = upto(r, 6);
        anim->mChannels = get(mem, anim->mNumChannels, sizeof *anim->mChannels);
        if (!anim->mChannels) return NULL;
        for (unsigned c = 0; c < anim->mNumChannels; ++c) {
            struct aiNodeAnim *ch = get(mem, 1, sizeof *ch);
            if (!ch) return NULL;
            anim->mChannels[c] = ch;
            name(r, &ch->mNodeName, nodes);
            ch->mNumPositionKeys = upto(r, 6), ch->mNumRotationKeys = upto(r, 6), ch->mNumScalingKeys = upto(r, 6);
            ch->mPositionKeys = get(mem, ch->mNumPositionKeys, sizeof *ch->mPositionKeys);
            ch->mRotationKeys = get(mem, ch->mNumRotationKeys, sizeof *ch->mRotationKeys);
            ch->mScalingKeys = get(mem, ch->mNumScalingKeys, sizeof *ch->mScalingKeys);
            if (!ch->mPositionKeys || !ch->mRotationKeys || !ch->mScalingKeys) return NULL;
            for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) {
                ch->mPositionKeys[k].mTime = value(r, (float)k);
                ch->mPositionKeys[k].mValue = (struct aiVector3D){value(r, 0.0f), value(r, 0.0f), value(r, 0.0f)};
            }
            for (unsigned k = 0; k < ch->mNumRotationKeys; ++k) {
                ch->mRotationKeys[k].mTime = value(r, (float)k);
                ch->mRotationKeys[k].mValue = (struct aiQuaternion){value(r, 1.0f), value(r, 0.0f), value(r, 0.0f),
                                                                    value(r, 0.0f)};
            }
            for (unsigned k = 0; k < ch->mNumScalingKeys; ++k) {
                ch->mScalingKeys[k].mTime = value(r, (float)k);
                ch->mScalingKeys[k].mValue = (struct aiVector3D){value(r, 1.0f), value(r, 1.0f), value(r, 1.0f)};
            }
        }
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    scene_memory *mem = calloc(1, sizeof *mem);
    if (!mem) return 0;
    const struct aiScene *scene = build(&r, mem);
    if (scene) {
        sinew_options options = {0};
        sinew_error err;
        sinew_asset *asset = sinew__asset_new("fuzz", &options);
        if (asset && sinew__assimp_convert(scene, &options, asset, &err) == SINEW_OK) fuzz_play(asset);
        sinew_asset_free(asset);
    }
    for (int i = 0; i < mem->count; ++i) free(mem->blocks[i]);
    free(mem);
    return 0;
}
