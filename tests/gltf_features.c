/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The generated feature files of gltf_features.h, built with cJSON. */
#include "gltf_features.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    uint8_t *bin;
    size_t size, cap;
    cJSON *root, *views, *accessors;
} gen;

static void put(gen *g, const void *data, size_t n)
{
    while (g->size + n + 4 > g->cap) {
        g->cap = g->cap ? g->cap * 2 : 4096;
        g->bin = realloc(g->bin, g->cap);
        if (!g->bin) exit(2);
    }
    memcpy(g->bin + g->size, data, n);
    g->size += n;
    while (g->size % 4) g->bin[g->size++] = 0; /* views start 4-aligned */
}

static int add_view(gen *g, const void *data, size_t n, int stride)
{
    cJSON *v = cJSON_CreateObject();
    cJSON_AddNumberToObject(v, "buffer", 0);
    cJSON_AddNumberToObject(v, "byteOffset", (double)g->size);
    cJSON_AddNumberToObject(v, "byteLength", (double)n);
    if (stride) cJSON_AddNumberToObject(v, "byteStride", stride);
    put(g, data, n);
    cJSON_AddItemToArray(g->views, v);
    return cJSON_GetArraySize(g->views) - 1;
}

static int add_accessor(gen *g, int view, size_t offset, int ctype, int count, const char *type, bool normalized)
{
    cJSON *a = cJSON_CreateObject();
    if (view >= 0) cJSON_AddNumberToObject(a, "bufferView", view);
    if (offset) cJSON_AddNumberToObject(a, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(a, "componentType", ctype);
    cJSON_AddNumberToObject(a, "count", count);
    cJSON_AddStringToObject(a, "type", type);
    if (normalized) cJSON_AddBoolToObject(a, "normalized", 1);
    cJSON_AddItemToArray(g->accessors, a);
    return cJSON_GetArraySize(g->accessors) - 1;
}

/* A tightly packed accessor over its own view. */
static int packed(gen *g, const void *data, size_t bytes, int ctype, int count, const char *type, bool normalized)
{
    return add_accessor(g, add_view(g, data, bytes, 0), 0, ctype, count, type, normalized);
}

static int floats(gen *g, const float *data, int count, const char *type, int per)
{
    return packed(g, data, sizeof(float) * (size_t)count * (size_t)per, 5126, count, type, false);
}

static cJSON *numbers(const double *x, int n)
{
    return cJSON_CreateDoubleArray(x, n);
}

static cJSON *ints(const int *x, int n) { return cJSON_CreateIntArray(x, n); }

static cJSON *node(cJSON *nodes, const char *name)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "name", name);
    cJSON_AddItemToArray(nodes, n);
    return n;
}

static void channel(cJSON *anim, int node_index, const char *path, int input, int output, const char *interp)
{
    cJSON *samplers = cJSON_GetObjectItem(anim, "samplers"), *channels = cJSON_GetObjectItem(anim, "channels");
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "input", input);
    cJSON_AddNumberToObject(s, "output", output);
    cJSON_AddStringToObject(s, "interpolation", interp);
    cJSON_AddItemToArray(samplers, s);
    cJSON *c = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "sampler", cJSON_GetArraySize(samplers) - 1);
    cJSON_AddNumberToObject(t, "node", node_index);
    cJSON_AddStringToObject(t, "path", path);
    cJSON_AddItemToObject(c, "target", t);
    cJSON_AddItemToArray(channels, c);
}

static cJSON *animation(cJSON *anims, const char *name)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "name", name);
    cJSON_AddItemToObject(a, "samplers", cJSON_CreateArray());
    cJSON_AddItemToObject(a, "channels", cJSON_CreateArray());
    cJSON_AddItemToArray(anims, a);
    return a;
}

/* A grid of w x h vertices in the xy plane, normal +z, as a triangle list. */
enum { GW = 6, GH = 9, GV = GW * GH, GT = (GW - 1) * (GH - 1) * 2 };

static void grid(float *pos, uint32_t *idx, float height)
{
    for (int y = 0; y < GH; ++y)
        for (int x = 0; x < GW; ++x) {
            float *p = &pos[(y * GW + x) * 3];
            p[0] = (float)x / (GW - 1) - 0.5f, p[1] = height * (float)y / (GH - 1), p[2] = 0.05f * (float)(x % 2);
        }
    int t = 0;
    for (int y = 0; y + 1 < GH; ++y)
        for (int x = 0; x + 1 < GW; ++x) {
            uint32_t a = (uint32_t)(y * GW + x), b = a + 1, c = a + GW, d = c + 1;
            idx[t++] = a, idx[t++] = b, idx[t++] = d, idx[t++] = a, idx[t++] = d, idx[t++] = c;
        }
}

/* Builds the document; returns the JSON root (buffer uri left out). */
static cJSON *build(gen *g)
{
    g->root = cJSON_CreateObject();
    cJSON *asset = cJSON_CreateObject();
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddItemToObject(g->root, "asset", asset);
    cJSON *ext = cJSON_CreateArray();
    cJSON_AddItemToArray(ext, cJSON_CreateString("KHR_mesh_quantization"));
    cJSON_AddItemToObject(g->root, "extensionsUsed", cJSON_Duplicate(ext, 1));
    cJSON_AddItemToObject(g->root, "extensionsRequired", ext);
    g->views = cJSON_AddArrayToObject(g->root, "bufferViews");
    g->accessors = cJSON_AddArrayToObject(g->root, "accessors");
    cJSON *nodes = cJSON_AddArrayToObject(g->root, "nodes");
    cJSON *meshes = cJSON_AddArrayToObject(g->root, "meshes");

    /* ---- nodes ---- */
    cJSON *n0 = node(nodes, "root");                /* 0 */
    cJSON *n1 = node(nodes, "sheared");             /* 1: matrix with shear, also a joint */
    cJSON *n2 = node(nodes, "rigid");               /* 2: rigid mesh, animated rotation */
    cJSON *n3 = node(nodes, "joint_a");             /* 3 */
    cJSON *n4 = node(nodes, "joint_b");             /* 4 */
    cJSON *n5 = node(nodes, "skinned");             /* 5: own transform, ignored */
    cJSON *n6 = node(nodes, "helper");              /* 6: not a joint, between joints */
    cJSON *n7 = node(nodes, "morph");               /* 7: morph targets, node weights */
    cJSON *n8 = node(nodes, "instance");            /* 8: the skinned mesh again, same skin */
    cJSON *n9 = node(nodes, "other_scene");         /* 9: only in scene 0 */
    cJSON *n10 = node(nodes, "joint_c");            /* 10 */
    cJSON *n11 = node(nodes, "morph_mesh_weights"); /* 11: morph defaults from the mesh */
    cJSON_AddItemToObject(n0, "children", ints((int[]){1, 5, 7, 8, 11}, 5));
    cJSON_AddItemToObject(n0, "translation", numbers((double[]){0.1, 0, -0.2}, 3));
    double shear[16] = {1, 0, 0, 0, 0.4, 1.1, 0, 0, 0, 0.2, 0.9, 0, 0, 1, 0, 1};
    cJSON_AddItemToObject(n1, "matrix", numbers(shear, 16));
    cJSON_AddItemToObject(n1, "children", ints((int[]){2, 3}, 2));
    cJSON_AddItemToObject(n2, "translation", numbers((double[]){0.8, 0, 0}, 3));
    cJSON_AddNumberToObject(n2, "mesh", 0);
    cJSON_AddItemToObject(n3, "translation", numbers((double[]){0, 0.5, 0}, 3));
    cJSON_AddItemToObject(n3, "children", ints((int[]){6}, 1));
    cJSON_AddItemToObject(n6, "translation", numbers((double[]){0, 0.25, 0.1}, 3));
    cJSON_AddItemToObject(n6, "rotation", numbers((double[]){0, 0, 0.0998334166, 0.995004165}, 4));
    cJSON_AddItemToObject(n6, "children", ints((int[]){4}, 1));
    cJSON_AddItemToObject(n4, "translation", numbers((double[]){0, 0.25, 0}, 3));
    cJSON_AddItemToObject(n4, "children", ints((int[]){10}, 1));
    cJSON_AddItemToObject(n10, "translation", numbers((double[]){0, 0.3, 0}, 3));
    cJSON_AddItemToObject(n10, "scale", numbers((double[]){1, 1.5, 1}, 3));
    cJSON_AddItemToObject(n5, "translation", numbers((double[]){5, 5, 5}, 3));
    cJSON_AddNumberToObject(n5, "mesh", 1);
    cJSON_AddNumberToObject(n5, "skin", 0);
    cJSON_AddItemToObject(n8, "rotation", numbers((double[]){0, 0.7071067811865476, 0, 0.7071067811865476}, 4));
    cJSON_AddNumberToObject(n8, "mesh", 1);
    cJSON_AddNumberToObject(n8, "skin", 0);
    cJSON_AddItemToObject(n7, "translation", numbers((double[]){-1, 0, 0}, 3));
    cJSON_AddNumberToObject(n7, "mesh", 2);
    cJSON_AddItemToObject(n7, "weights", numbers((double[]){0.3, 0.1}, 2));
    cJSON_AddItemToObject(n11, "translation", numbers((double[]){-2, 0, 0}, 3));
    cJSON_AddItemToObject(n11, "scale", numbers((double[]){-1, 1, 1}, 3)); /* a mirror */
    cJSON_AddNumberToObject(n11, "mesh", 2);
    cJSON_AddNumberToObject(n9, "mesh", 0);

    cJSON *scenes = cJSON_AddArrayToObject(g->root, "scenes");
    cJSON *s0 = cJSON_CreateObject(), *s1 = cJSON_CreateObject();
    cJSON_AddItemToObject(s0, "nodes", ints((int[]){9}, 1));
    cJSON_AddItemToObject(s1, "nodes", ints((int[]){0}, 1));
    cJSON_AddItemToArray(scenes, s0);
    cJSON_AddItemToArray(scenes, s1);
    cJSON_AddNumberToObject(g->root, "scene", 1);

    /* ---- mesh 0: rigid, three primitives (ushort list, ubyte strip, uint fan) ---- */
    float box[8 * 3] = {0, 0, 0, 0.3f, 0, 0, 0.3f, 0.3f, 0, 0, 0.3f, 0, 0, 0, 0.3f, 0.3f, 0, 0.3f, 0.3f, 0.3f, 0.3f, 0, 0.3f, 0.3f};
    float box_n[8 * 3];
    for (int v = 0; v < 8; ++v) {
        float *p = &box[v * 3], l = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) + 1e-3f;
        box_n[v * 3] = (p[0] + 0.01f) / l, box_n[v * 3 + 1] = (p[1] + 0.02f) / l, box_n[v * 3 + 2] = (p[2] + 0.03f) / l;
    }
    float uv0[16], uv1[16];
    for (int k = 0; k < 16; ++k) uv0[k] = (float)k / 16.0f, uv1[k] = 1.0f - (float)k / 32.0f;
    uint8_t color[8 * 3];
    for (int k = 0; k < 24; ++k) color[k] = (uint8_t)(k * 10);
    uint16_t list[12] = {0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6};
    uint8_t strip[6] = {0, 1, 3, 2, 7, 6};
    uint32_t fan[5] = {4, 5, 6, 7, 3};
    int box_pos = floats(g, box, 8, "VEC3", 3), box_nrm = floats(g, box_n, 8, "VEC3", 3);
    cJSON *m0 = cJSON_CreateObject(), *prims0 = cJSON_AddArrayToObject(m0, "primitives");
    cJSON_AddStringToObject(m0, "name", "box");
    for (int p = 0; p < 3; ++p) {
        cJSON *prim = cJSON_CreateObject(), *attrs = cJSON_AddObjectToObject(prim, "attributes");
        cJSON_AddNumberToObject(attrs, "POSITION", box_pos);
        if (p != 1) cJSON_AddNumberToObject(attrs, "NORMAL", box_nrm); /* the strip computes its normals */
        if (p == 0) {
            cJSON_AddNumberToObject(attrs, "TEXCOORD_0", floats(g, uv0, 8, "VEC2", 2));
            cJSON_AddNumberToObject(attrs, "TEXCOORD_1", floats(g, uv1, 8, "VEC2", 2));
            cJSON_AddNumberToObject(attrs, "COLOR_0", packed(g, color, sizeof color, 5121, 8, "VEC3", true));
            cJSON_AddNumberToObject(prim, "indices", packed(g, list, sizeof list, 5123, 12, "SCALAR", false));
        } else if (p == 1) {
            cJSON_AddNumberToObject(prim, "indices", packed(g, strip, sizeof strip, 5121, 6, "SCALAR", false));
            cJSON_AddNumberToObject(prim, "mode", 5);
        } else {
            cJSON_AddNumberToObject(prim, "indices", packed(g, fan, sizeof fan, 5125, 5, "SCALAR", false));
            cJSON_AddNumberToObject(prim, "mode", 6);
        }
        cJSON_AddItemToArray(prims0, prim);
    }
    cJSON_AddItemToArray(meshes, m0);

    /* ---- mesh 1: skinned grid, quantized interleaved position + normal, 8 influences ---- */
    float gpos[GV * 3];
    uint32_t gidx[GT * 3];
    grid(gpos, gidx, 1.2f);
    uint8_t inter[GV * 12]; /* int16 x3 + pad, int8 x3 + pad: stride 12 */
    memset(inter, 0, sizeof inter);
    for (int v = 0; v < GV; ++v) {
        int16_t q[3];
        int8_t nq[3] = {(int8_t)(10 * (v % 3) - 10), 20, 120};
        for (int k = 0; k < 3; ++k) q[k] = (int16_t)lrintf(gpos[v * 3 + k] / 1.5f * 32767.0f);
        memcpy(&inter[v * 12], q, 6);
        memcpy(&inter[v * 12 + 8], nq, 3);
    }
    int iv = add_view(g, inter, sizeof inter, 12);
    int qpos = add_accessor(g, iv, 0, 5122, GV, "VEC3", true);
    int qnrm = add_accessor(g, iv, 8, 5120, GV, "VEC3", true);
    uint8_t j0[GV * 4], w0[GV * 4];
    uint16_t j1[GV * 4];
    float w1[GV * 4];
    for (int v = 0; v < GV; ++v) {
        float y = gpos[v * 3 + 1] / 1.2f; /* 0 .. 1 along the grid */
        for (int k = 0; k < 4; ++k) {
            j0[v * 4 + k] = (uint8_t)k;
            j1[v * 4 + k] = (uint16_t)(4 + k);
        }
        /* unorm8 set: 204 of 255 in all, leaning with y; float set: 0.2 */
        int a = (int)lrintf(120.0f * (1.0f - y)), b = (int)lrintf(60.0f * y);
        w0[v * 4] = (uint8_t)a, w0[v * 4 + 1] = (uint8_t)b, w0[v * 4 + 2] = (uint8_t)(12 + v % 5);
        w0[v * 4 + 3] = (uint8_t)(204 - a - b - (12 + v % 5));
        w1[v * 4] = 0.05f, w1[v * 4 + 1] = 0.05f + 0.01f * (float)(v % 3), w1[v * 4 + 2] = 0.05f;
        w1[v * 4 + 3] = 0.2f - w1[v * 4] - w1[v * 4 + 1] - w1[v * 4 + 2];
    }
    cJSON *m1 = cJSON_CreateObject(), *prims1 = cJSON_AddArrayToObject(m1, "primitives");
    cJSON_AddStringToObject(m1, "name", "skinned_grid");
    cJSON *p1 = cJSON_CreateObject(), *a1 = cJSON_AddObjectToObject(p1, "attributes");
    cJSON_AddNumberToObject(a1, "POSITION", qpos);
    cJSON_AddNumberToObject(a1, "NORMAL", qnrm);
    cJSON_AddNumberToObject(a1, "JOINTS_0", packed(g, j0, sizeof j0, 5121, GV, "VEC4", false));
    cJSON_AddNumberToObject(a1, "WEIGHTS_0", packed(g, w0, sizeof w0, 5121, GV, "VEC4", true));
    cJSON_AddNumberToObject(a1, "JOINTS_1", packed(g, j1, sizeof j1, 5123, GV, "VEC4", false));
    cJSON_AddNumberToObject(a1, "WEIGHTS_1", floats(g, w1, GV, "VEC4", 4));
    cJSON_AddNumberToObject(p1, "indices", packed(g, gidx, sizeof gidx, 5125, GT * 3, "SCALAR", false));
    cJSON_AddItemToArray(prims1, p1);
    cJSON_AddItemToArray(meshes, m1);

    /* skin: 8 joints, among them the sheared node and a mesh node */
    int joints[8] = {3, 6, 4, 10, 1, 0, 2, 7};
    float ibm[8 * 16];
    for (int j = 0; j < 8; ++j) {
        float *m = &ibm[j * 16];
        memset(m, 0, sizeof(float) * 16);
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        m[12] = 0.05f * (float)j, m[13] = -0.3f * (float)(j % 4), m[14] = 0.02f;
        if (j == 3) m[0] = 0.8f, m[5] = 1.0f / 1.5f; /* scale in a bind matrix */
    }
    cJSON *skins = cJSON_AddArrayToObject(g->root, "skins");
    cJSON *sk = cJSON_CreateObject();
    cJSON_AddItemToObject(sk, "joints", ints(joints, 8));
    cJSON_AddNumberToObject(sk, "inverseBindMatrices", floats(g, ibm, 8, "MAT4", 16));
    cJSON_AddNumberToObject(sk, "skeleton", 0);
    cJSON_AddItemToArray(skins, sk);

    /* ---- mesh 2: morph targets (target 0 sparse without a bufferView) ---- */
    float mpos[GV * 3], mnrm[GV * 3], d1[GV * 3], dn0[GV * 3];
    uint32_t midx[GT * 3];
    grid(mpos, midx, 0.8f);
    for (int v = 0; v < GV; ++v) {
        mnrm[v * 3] = 0, mnrm[v * 3 + 1] = 0, mnrm[v * 3 + 2] = 1;
        d1[v * 3] = 0.1f * mpos[v * 3 + 1], d1[v * 3 + 1] = 0, d1[v * 3 + 2] = 0.2f * mpos[v * 3];
        dn0[v * 3] = 0.3f * mpos[v * 3], dn0[v * 3 + 1] = 0.1f, dn0[v * 3 + 2] = 0;
    }
    uint16_t sidx[6] = {1, 7, 8, 20, 33, 50};
    float sval[18];
    for (int k = 0; k < 18; ++k) sval[k] = 0.05f * (float)(k % 5) - 0.1f;
    int target0 = add_accessor(g, -1, 0, 5126, GV, "VEC3", false);
    cJSON *sparse = cJSON_CreateObject(), *si = cJSON_CreateObject(), *sv = cJSON_CreateObject();
    cJSON_AddNumberToObject(sparse, "count", 6);
    cJSON_AddNumberToObject(si, "bufferView", add_view(g, sidx, sizeof sidx, 0));
    cJSON_AddNumberToObject(si, "componentType", 5123);
    cJSON_AddNumberToObject(sv, "bufferView", add_view(g, sval, sizeof sval, 0));
    cJSON_AddItemToObject(sparse, "indices", si);
    cJSON_AddItemToObject(sparse, "values", sv);
    cJSON_AddItemToObject(cJSON_GetArrayItem(g->accessors, target0), "sparse", sparse);
    cJSON *m2 = cJSON_CreateObject(), *prims2 = cJSON_AddArrayToObject(m2, "primitives");
    cJSON_AddStringToObject(m2, "name", "morph_grid");
    cJSON_AddItemToObject(m2, "weights", numbers((double[]){0.5, 0.5}, 2));
    cJSON *p2 = cJSON_CreateObject(), *a2 = cJSON_AddObjectToObject(p2, "attributes");
    cJSON_AddNumberToObject(a2, "POSITION", floats(g, mpos, GV, "VEC3", 3));
    cJSON_AddNumberToObject(a2, "NORMAL", floats(g, mnrm, GV, "VEC3", 3));
    cJSON_AddNumberToObject(p2, "indices", packed(g, midx, sizeof midx, 5125, GT * 3, "SCALAR", false));
    cJSON *targets = cJSON_AddArrayToObject(p2, "targets"), *t0 = cJSON_CreateObject(), *t1 = cJSON_CreateObject();
    cJSON_AddNumberToObject(t0, "POSITION", target0);
    cJSON_AddNumberToObject(t0, "NORMAL", floats(g, dn0, GV, "VEC3", 3));
    cJSON_AddNumberToObject(t1, "POSITION", floats(g, d1, GV, "VEC3", 3));
    cJSON_AddItemToArray(targets, t0);
    cJSON_AddItemToArray(targets, t1);
    cJSON_AddItemToArray(prims2, p2);
    cJSON_AddItemToArray(meshes, m2);

    /* ---- animations ---- */
    cJSON *anims = cJSON_AddArrayToObject(g->root, "animations");
    float t3[3] = {0, 0.5f, 1.25f}, late[2] = {0.2f, 1.0f};
    int in3 = floats(g, t3, 3, "SCALAR", 1), in_late = floats(g, late, 2, "SCALAR", 1);
    float rot_lin[12] = {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f, 0.5f, 0.5f, 0.5f, 0.5f};
    float rot_cub[36] = {0, 0, 0, 0, 0, 0, 0, 1, 0.2f, 0, 0, 0,       /* in, value, out per key */
                         0.1f, 0.3f, 0, 0, 0.258819f, 0, 0, 0.9659258f, 0, 0.1f, 0.2f, 0,
                         0, 0, 0, 0, -0.3f, 0.2f, 0.1f, 0.927362f, 0, 0, 0, 0};
    float scale_step[9] = {1, 1, 1, 1.5f, 0.7f, 1, 0.9f, 1.2f, 2};
    float weights_lin[6] = {0, 0, 1, 0.5f, 0.2f, 1};
    float move[6] = {0.1f, 0, -0.2f, 0.4f, 0.3f, -0.2f};
    cJSON *a0 = animation(anims, "move");
    channel(a0, 2, "rotation", in3, floats(g, rot_lin, 3, "VEC4", 4), "LINEAR");
    channel(a0, 3, "rotation", in3, floats(g, rot_cub, 9, "VEC4", 4), "CUBICSPLINE");
    channel(a0, 4, "scale", in3, floats(g, scale_step, 3, "VEC3", 3), "STEP");
    channel(a0, 7, "weights", in3, floats(g, weights_lin, 6, "SCALAR", 1), "LINEAR");
    channel(a0, 0, "translation", in_late, floats(g, move, 2, "VEC3", 3), "LINEAR");
    float weights_cub[18] = {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 2, 0, -1, 1, 0, 0, 0, 0};
    float helper_t[6] = {0, 0.25f, 0.1f, 0.2f, 0.35f, 0};
    cJSON *anim1 = animation(anims, "morph_cubic");
    channel(anim1, 11, "weights", in3, floats(g, weights_cub, 18, "SCALAR", 1), "CUBICSPLINE");
    channel(anim1, 6, "translation", in_late, floats(g, helper_t, 2, "VEC3", 3), "STEP");
    return g->root;
}

char *gltf_base64(const uint8_t *d, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(n / 3 * 4 + 8), *o = out;
    if (!out) exit(2);
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        *o++ = a[v >> 18], *o++ = a[(v >> 12) & 63], *o++ = a[(v >> 6) & 63], *o++ = a[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0);
        *o++ = a[v >> 18], *o++ = a[(v >> 12) & 63];
        *o++ = i + 1 < n ? a[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static bool write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Sets buffers[0] = {byteLength, uri (or none)} and prints the JSON. */
static char *with_buffer(cJSON *root, size_t size, const char *uri)
{
    cJSON_DeleteItemFromObject(root, "buffers");
    cJSON *buffers = cJSON_AddArrayToObject(root, "buffers"), *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "byteLength", (double)size);
    if (uri) cJSON_AddStringToObject(b, "uri", uri);
    cJSON_AddItemToArray(buffers, b);
    return cJSON_PrintUnformatted(root);
}

char **gltf_features_write(const char *dir)
{
    gen g = {0};
    cJSON *root = build(&g);
    char **paths = calloc(4, sizeof *paths);
    size_t len = strlen(dir) + 64;
    for (int i = 0; i < 3; ++i) paths[i] = malloc(len);
    snprintf(paths[0], len, "%s/features_data_uri.gltf", dir);
    snprintf(paths[1], len, "%s/features_external.gltf", dir);
    snprintf(paths[2], len, "%s/features.glb", dir);
    bool ok = true;
    /* 1: a data: URI */
    char *b64 = gltf_base64(g.bin, g.size);
    char *uri = malloc(strlen(b64) + 64);
    sprintf(uri, "data:application/octet-stream;base64,%s", b64);
    char *text = with_buffer(root, g.size, uri);
    ok = ok && write_file(paths[0], text, strlen(text));
    free(text), free(uri), free(b64);
    /* 2: an external file whose name needs percent-encoding */
    char bin_path[1024];
    snprintf(bin_path, sizeof bin_path, "%s/features data.bin", dir);
    ok = ok && write_file(bin_path, g.bin, g.size);
    text = with_buffer(root, g.size, "features%20data.bin");
    ok = ok && write_file(paths[1], text, strlen(text));
    free(text);
    /* 3: GLB: header, JSON chunk padded with spaces, BIN chunk padded with zeros */
    text = with_buffer(root, g.size, NULL);
    uint32_t jlen = (uint32_t)((strlen(text) + 3) / 4 * 4), blen = (uint32_t)((g.size + 3) / 4 * 4);
    uint32_t total = 12 + 8 + jlen + 8 + blen;
    uint8_t *glb = calloc(total, 1);
    uint32_t head[3] = {0x46546C67u, 2, total}, jh[2] = {jlen, 0x4E4F534Au}, bh[2] = {blen, 0x004E4942u};
    memcpy(glb, head, 12);
    memcpy(glb + 12, jh, 8);
    memset(glb + 20, ' ', jlen);
    memcpy(glb + 20, text, strlen(text));
    memcpy(glb + 20 + jlen, bh, 8);
    memcpy(glb + 28 + jlen, g.bin, g.size);
    ok = ok && write_file(paths[2], glb, total);
    free(glb), free(text);
    cJSON_Delete(root);
    free(g.bin);
    if (!ok) {
        gltf_features_free(paths);
        return NULL;
    }
    return paths;
}

void gltf_features_free(char **paths)
{
    if (!paths) return;
    for (int i = 0; paths[i]; ++i) free(paths[i]);
    free(paths);
}
