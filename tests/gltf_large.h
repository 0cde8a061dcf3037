/* SPDX-License-Identifier: MIT */
/* The large glTF files an attacker would write, built in memory for
 * test_gltf_bounded (the reader's work counters) and bench_load
 * --gltf-large (its cost per megabyte): 100,000 extensionsRequired
 * entries, a chain of 32,000 nodes, 32,000 siblings, 32,000 scene roots,
 * 30,000 animation channels (with their own samplers, then sharing one
 * sampler of 100,000 members), a mesh drawn by 32,000 nodes, a primitive
 * of 100,000 attributes drawn by 1,000 nodes. */
#ifndef SINEW_TEST_GLTF_LARGE_H
#define SINEW_TEST_GLTF_LARGE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A growing text. */
typedef struct gltf_text {
    char *s;
    size_t len, cap;
} gltf_text;

static void gltf_put(gltf_text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) abort();
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) abort();
        t->s = s, t->cap = cap;
    }
}

/* One triangle's positions (three floats each), then two key times and
 * two translations, as a data URI. */
static const char *const gltf_large_buffer =
    "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAgD8=\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
    "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]";

enum { GLTF_LARGE_CASES = 8 };

/* Case `which` (0 .. GLTF_LARGE_CASES - 1) as JSON text (malloc'ed; aborts
 * when out of memory), its name in *name. */
static char *gltf_large_case(int which, const char **name)
{
    gltf_text t = {0};
    gltf_put(&t, "{\"asset\":{\"version\":\"2.0\"},");
    switch (which) {
    case 0:
        *name = "100,000 extensionsRequired entries";
        gltf_put(&t, "\"extensionsRequired\":[");
        for (int i = 0; i < 100000; ++i) gltf_put(&t, "%s\"KHR_materials_x%d\"", i ? "," : "", i);
        gltf_put(&t, "],\"nodes\":[{}]");
        break;
    case 1:
        *name = "a chain of 32,000 nodes";
        gltf_put(&t, "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
        for (int i = 0; i < 32000; ++i) gltf_put(&t, i < 31999 ? "{\"children\":[%d]}," : "{}", i + 1);
        gltf_put(&t, "]");
        break;
    case 2:
        *name = "32,000 sibling nodes";
        gltf_put(&t, "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"children\":[");
        for (int i = 1; i < 32000; ++i) gltf_put(&t, "%s%d", i > 1 ? "," : "", i);
        gltf_put(&t, "]}");
        for (int i = 1; i < 32000; ++i) gltf_put(&t, ",{}");
        gltf_put(&t, "]");
        break;
    case 3:
        *name = "32,000 scene roots";
        gltf_put(&t, "\"scenes\":[{\"nodes\":[");
        for (int i = 0; i < 32000; ++i) gltf_put(&t, "%s%d", i ? "," : "", i);
        gltf_put(&t, "]}],\"nodes\":[");
        for (int i = 0; i < 32000; ++i) gltf_put(&t, "%s{}", i ? "," : "");
        gltf_put(&t, "]");
        break;
    case 4:
        *name = "30,000 animation channels";
        gltf_put(&t, "%s,\"nodes\":[", gltf_large_buffer);
        for (int i = 0; i < 30000; ++i) gltf_put(&t, "%s{}", i ? "," : "");
        gltf_put(&t, "],\"animations\":[{\"channels\":[");
        for (int i = 0; i < 30000; ++i)
            gltf_put(&t, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"translation\"}}", i ? "," : "", i, i);
        gltf_put(&t, "],\"samplers\":[");
        for (int i = 0; i < 30000; ++i) gltf_put(&t, "%s{\"input\":1,\"output\":2}", i ? "," : "");
        gltf_put(&t, "]}]");
        break;
    case 5:
        *name = "30,000 channels sharing one sampler of 100,000 members";
        gltf_put(&t, "%s,\"nodes\":[", gltf_large_buffer);
        for (int i = 0; i < 30000; ++i) gltf_put(&t, "%s{}", i ? "," : "");
        gltf_put(&t, "],\"animations\":[{\"channels\":[");
        for (int i = 0; i < 30000; ++i)
            gltf_put(&t, "%s{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}}", i ? "," : "", i);
        gltf_put(&t, "],\"samplers\":[{");
        for (int i = 0; i < 100000; ++i) gltf_put(&t, "\"x%d\":0,", i);
        gltf_put(&t, "\"input\":1,\"output\":2}]}]");
        break;
    case 6:
        *name = "a mesh drawn by 32,000 nodes";
        gltf_put(&t, "%s,\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[", gltf_large_buffer);
        for (int i = 0; i < 32000; ++i) gltf_put(&t, "%s{\"mesh\":0}", i ? "," : "");
        gltf_put(&t, "]");
        break;
    default:
        *name = "100,000 attributes drawn by 1,000 nodes";
        gltf_put(&t, "%s,\"meshes\":[{\"primitives\":[{\"attributes\":{", gltf_large_buffer);
        for (int i = 0; i < 100000; ++i) gltf_put(&t, "\"_X%d\":0,", i);
        gltf_put(&t, "\"POSITION\":0}}]}],\"nodes\":[");
        for (int i = 0; i < 1000; ++i) gltf_put(&t, "%s{\"mesh\":0}", i ? "," : "");
        gltf_put(&t, "]");
        break;
    }
    gltf_put(&t, "}");
    return t.s;
}

#endif
