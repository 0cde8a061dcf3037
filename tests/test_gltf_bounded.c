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
#include "gltf_large.h"
#include "import/import_internal.h"

#include <stdlib.h>

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
    for (int c = 0; c < GLTF_LARGE_CASES; ++c) {
        const char *name;
        char *json = gltf_large_case(c, &name);
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
    gltf_text m = {0};
    gltf_put(&m, "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
            "\"accessors\":[{\"componentType\":5126,\"count\":1000000,\"type\":\"VEC3\",\"min\":[0,0,0],"
            "\"max\":[0,0,0]}],\"nodes\":[");
    for (int i = 0; i < 40; ++i) gltf_put(&m, "%s{\"mesh\":0}", i ? "," : "");
    gltf_put(&m, "]}");
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
    gltf_text z = {0};
    gltf_put(&z, "{\"asset\":{\"version\":\"2.0\"},\"extras\":[0");
    for (int i = 0; i < 500000; ++i) gltf_put(&z, ",0");
    gltf_put(&z, "]}");
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
