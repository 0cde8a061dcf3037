/* SPDX-License-Identifier: MIT */
/* The glTF reader's work and memory stay in proportion to its input: the
 * large files an attacker would write (100,000 extensionsRequired entries,
 * a chain of 32,000 nodes, 32,000 siblings and scene roots, 30,000
 * animation channels, a mesh drawn by 32,000 nodes, a primitive with
 * 100,000 attributes drawn by a thousand nodes) are built in memory and
 * loaded, as .gltf and as GLB, and the reader's own counters are checked:
 * the JSON items it steps onto stay within a small multiple of the items
 * present (no clocks). Declared sizes are checked against the load's
 * limit before anything is allocated for them: a 20,000,000-vertex
 * accessor without a bufferView is refused having allocated almost
 * nothing, as is JSON whose tree would not fit. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "check.h"
#include "import/import_internal.h"

#include <stdarg.h>
#include <stdlib.h>

/* ---- a growing text ---------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
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
static const char *buffer_json =
    "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAgD8=\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
    "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]";

enum { CASES = 8 };

/* The large cases, as JSON text. */
static char *build(int which, const char **name)
{
    text t = {0};
    put(&t, "{\"asset\":{\"version\":\"2.0\"},");
    switch (which) {
    case 0:
        *name = "100,000 extensionsRequired entries";
        put(&t, "\"extensionsRequired\":[");
        for (int i = 0; i < 100000; ++i) put(&t, "%s\"KHR_materials_x%d\"", i ? "," : "", i);
        put(&t, "],\"nodes\":[{}]");
        break;
    case 1:
        *name = "a chain of 32,000 nodes";
        put(&t, "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
        for (int i = 0; i < 32000; ++i) put(&t, i < 31999 ? "{\"children\":[%d]}," : "{}", i + 1);
        put(&t, "]");
        break;
    case 2:
        *name = "32,000 sibling nodes";
        put(&t, "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"children\":[");
        for (int i = 1; i < 32000; ++i) put(&t, "%s%d", i > 1 ? "," : "", i);
        put(&t, "]}");
        for (int i = 1; i < 32000; ++i) put(&t, ",{}");
        put(&t, "]");
        break;
    case 3:
        *name = "32,000 scene roots";
        put(&t, "\"scenes\":[{\"nodes\":[");
        for (int i = 0; i < 32000; ++i) put(&t, "%s%d", i ? "," : "", i);
        put(&t, "]}],\"nodes\":[");
        for (int i = 0; i < 32000; ++i) put(&t, "%s{}", i ? "," : "");
        put(&t, "]");
        break;
    case 4:
        *name = "30,000 animation channels";
        put(&t, "%s,\"nodes\":[", buffer_json);
        for (int i = 0; i < 30000; ++i) put(&t, "%s{}", i ? "," : "");
        put(&t, "],\"animations\":[{\"channels\":[");
        for (int i = 0; i < 30000; ++i)
            put(&t, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"translation\"}}", i ? "," : "", i, i);
        put(&t, "],\"samplers\":[");
        for (int i = 0; i < 30000; ++i) put(&t, "%s{\"input\":1,\"output\":2}", i ? "," : "");
        put(&t, "]}]");
        break;
    case 5:
        *name = "30,000 channels sharing one sampler of 100,000 members";
        put(&t, "%s,\"nodes\":[", buffer_json);
        for (int i = 0; i < 30000; ++i) put(&t, "%s{}", i ? "," : "");
        put(&t, "],\"animations\":[{\"channels\":[");
        for (int i = 0; i < 30000; ++i)
            put(&t, "%s{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}}", i ? "," : "", i);
        put(&t, "],\"samplers\":[{");
        for (int i = 0; i < 100000; ++i) put(&t, "\"x%d\":0,", i);
        put(&t, "\"input\":1,\"output\":2}]}]");
        break;
    case 6:
        *name = "a mesh drawn by 32,000 nodes";
        put(&t, "%s,\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[", buffer_json);
        for (int i = 0; i < 32000; ++i) put(&t, "%s{\"mesh\":0}", i ? "," : "");
        put(&t, "]");
        break;
    default:
        *name = "100,000 attributes drawn by 1,000 nodes";
        put(&t, "%s,\"meshes\":[{\"primitives\":[{\"attributes\":{", buffer_json);
        for (int i = 0; i < 100000; ++i) put(&t, "\"_X%d\":0,", i);
        put(&t, "\"POSITION\":0}}]}],\"nodes\":[");
        for (int i = 0; i < 1000; ++i) put(&t, "%s{\"mesh\":0}", i ? "," : "");
        put(&t, "]");
        break;
    }
    put(&t, "}");
    return t.s;
}

/* The JSON as a GLB (one JSON chunk, no BIN). */
static unsigned char *as_glb(const char *json, size_t *size)
{
    size_t len = strlen(json), pad = (len + 3) / 4 * 4;
    *size = 20 + pad;
    unsigned char *g = malloc(*size);
    if (!g) return NULL;
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)*size, (uint32_t)pad, 0x4E4F534Au};
    memcpy(g, head, sizeof head);
    memcpy(g + 20, json, len);
    memset(g + 20 + len, ' ', pad - len);
    return g;
}

static void test_large_cases(void)
{
    for (int c = 0; c < CASES; ++c) {
        const char *name;
        char *json = build(c, &name);
        for (int glb = 0; glb < 2; ++glb) {
            size_t size = strlen(json);
            unsigned char *bytes = glb ? as_glb(json, &size) : (unsigned char *)json;
            sinew_gltf_work work = {0};
            sinew_error err = {0};
            sinew_asset *a = bytes ? sinew__gltf_load_counted(bytes, size, NULL, &work, &err) : NULL;
            CHECK(a != NULL, "%s%s loads: %s", name, glb ? " (GLB)" : "", err.description);
            double per_item = (double)work.visited / (double)work.json_values;
            printf("%-56s %s %8zu bytes, %7zu values, %9zu visited (%.2f per value), tree %.1f bytes per byte\n",
                   name, glb ? "glb " : "gltf", work.json_bytes, work.json_values, work.visited, per_item,
                   (double)work.tree_bytes / (double)work.json_bytes);
            /* every member looked up by name walks its object once per
             * name; a handful of names per object, each element once */
            CHECK(work.visited <= 8 * work.json_values, "%s: %zu items visited for %zu present, over 8 per item", name,
                  work.visited, work.json_values);
            CHECK(work.json_values >= 30000, "%s: the case is as large as it says (%zu values)", name, work.json_values);
            CHECK(work.tree_bytes <= 40 * work.json_bytes + 4096, "%s: the tree is bounded at %zu bytes", name,
                  work.tree_bytes);
            if (c == 4 && a) CHECK(a->clip_count == 1 && a->clips[0]->track_count == 30000, "30,000 tracks");
            if (c == 6 && a) CHECK(a->mesh_count == 32000, "one mesh per drawing node: %d", a ? a->mesh_count : 0);
            sinew_asset_free(a);
            if (glb) free(bytes);
        }
        free(json);
    }
}

/* Bytes the caller's allocator handed out. */
typedef struct tally {
    size_t total;
} tally;

static void *tally_alloc(void *user, size_t size)
{
    ((tally *)user)->total += size;
    return malloc(size);
}

static void tally_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

/* Sizes declared without bytes behind them are refused before they are
 * allocated, with the accessor and the limit named. */
static void test_declared_sizes(void)
{
    /* 20,000,000 vertices of zeros: 229 MiB of positions, as many of
     * normals, and the triangles: over the default 512 MiB */
    const char *big = "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                      "\"nodes\":[{\"mesh\":0}],\"accessors\":[{\"componentType\":5126,\"count\":20000000,"
                      "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]}]}";
    tally t = {0};
    sinew_load_options o = {.base.allocator = {tally_alloc, tally_free, &t}};
    sinew_gltf_work work = {0};
    sinew_error err = {0};
    sinew_asset *a = sinew__gltf_load_counted(big, strlen(big), &o, &work, &err);
    CHECK(a == NULL, "20,000,000 view-less vertices refused under the default limit");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY,
                "meshes[0].primitives[0]: accessors[0] declares 20000000 vertices (no bufferView)");
    CHECK(strstr(err.description, "limit of 512 MiB"), "the limit is named: %s", err.description);
    CHECK(t.total < (1 << 20), "refused having allocated %zu bytes", t.total);
    CHECK(work.planned > (size_t)512 << 20, "the plan saw %zu bytes", work.planned);
    sinew_asset_free(a);

    /* the same mesh drawn by 40 nodes, 1,000,000 vertices each: one copy
     * per node, refused as a whole */
    text m = {0};
    put(&m, "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
            "\"accessors\":[{\"componentType\":5126,\"count\":1000000,\"type\":\"VEC3\",\"min\":[0,0,0],"
            "\"max\":[0,0,0]}],\"nodes\":[");
    for (int i = 0; i < 40; ++i) put(&m, "%s{\"mesh\":0}", i ? "," : "");
    put(&m, "]}");
    t.total = 0;
    a = sinew__gltf_load_counted(m.s, m.len, &o, &work, &err);
    CHECK(a == NULL, "a 31 MiB mesh drawn by 40 nodes refused under a 1 GiB limit");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "the scene's meshes need 1.2 GiB");
    CHECK(t.total < (1 << 20), "refused having allocated %zu bytes", t.total);
    sinew_asset_free(a);
    o.base.max_memory = (size_t)2 << 30;
    a = sinew__gltf_load_counted(m.s, m.len, &o, &work, &err);
    CHECK(a && a->mesh_count == 40, "2 GiB are enough for it: %s", err.description);
    sinew_asset_free(a);
    free(m.s);

    /* animation keys declared without bytes: refused before reading */
    const char *keys = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"accessors\":["
                       "{\"componentType\":5126,\"count\":100000000,\"type\":\"SCALAR\"},"
                       "{\"componentType\":5126,\"count\":100000000,\"type\":\"VEC3\"}],"
                       "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}],"
                       "\"samplers\":[{\"input\":0,\"output\":1}]}]}";
    o.base.max_memory = 0;
    t.total = 0;
    a = sinew__gltf_load_counted(keys, strlen(keys), &o, &work, &err);
    CHECK(a == NULL, "100,000,000 keys refused");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY,
                "animations[0].samplers[0]: accessors[0] and [1] declare 100000000 keys, 100000000 values");
    CHECK(t.total < (1 << 20), "refused having allocated %zu bytes", t.total);
    sinew_asset_free(a);

    /* JSON whose tree would not fit: counted before cJSON allocates it */
    text z = {0};
    put(&z, "{\"asset\":{\"version\":\"2.0\"},\"extras\":[0");
    for (int i = 0; i < 500000; ++i) put(&z, ",0");
    put(&z, "]}");
    o.base.max_memory = 16 << 20;
    a = sinew__gltf_load_counted(z.s, z.len, &o, &work, &err);
    CHECK(a == NULL, "a 1 MB JSON of 500,000 numbers refused under 16 MiB");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "values) parse into up to");
    CHECK(work.tree_bytes > (size_t)16 << 20 && work.visited == 0, "refused before parsing: %zu bytes, %zu visited",
          work.tree_bytes, work.visited);
    o.base.max_memory = 64 << 20;
    a = sinew__gltf_load_counted(z.s, z.len, &o, &work, &err);
    CHECK(a != NULL, "64 MiB are enough for it: %s", err.description);
    sinew_asset_free(a);
    free(z.s);
}

int main(void)
{
    test_large_cases();
    test_declared_sizes();
    return check_finish("test_gltf_bounded");
}
