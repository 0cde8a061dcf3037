/* SPDX-License-Identifier: MIT */
/* EXT_meshopt_compression read: a small file gltfpack wrote (-cc -vpf:
 * ATTRIBUTES with the OCTAHEDRAL, QUATERNION and EXPONENTIAL filters,
 * TRIANGLES; the fuzzers' seed) loads, and each field of a compressed
 * view, broken one at a time, fails naming its place before anything is
 * decoded. Without libmeshoptimizer-dev the file is refused naming it. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "check.h"

#include <stdlib.h>

#define SEED SINEW_SOURCE_DIR "/tests/fuzz/regressions/gltf/seed-17a209b0bd5df8b57c516a39d955684f2dd8e75a"

static char *read_text(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *size = fread(s, 1, (size_t)n, f);
    s[*size] = '\0';
    fclose(f);
    return s;
}

/* The seed with the first occurrence of `from` replaced by `to`. */
static char *edited(const char *text, const char *from, const char *to, size_t *size)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL, "the seed holds %s", from);
    if (!at) return NULL;
    size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
    char *s = malloc(head + strlen(to) + tail + 1);
    memcpy(s, text, head);
    memcpy(s + head, to, strlen(to));
    memcpy(s + head + strlen(to), at + strlen(from), tail + 1);
    *size = strlen(s);
    return s;
}

static void expect_error(const char *text, const char *from, const char *to, sinew_result result, const char *needle)
{
    size_t size;
    char *s = edited(text, from, to, &size);
    if (!s) return;
    sinew_error err = {0};
    sinew_asset *a = sinew_load_memory(s, size, "meshopt.gltf", NULL, &err);
    CHECK(a == NULL, "%s -> %s loads", from, to);
    CHECK_ERROR(err, result, needle);
    sinew_asset_free(a);
    free(s);
}

int main(void)
{
    size_t size;
    char *text = read_text(SEED, &size);
    CHECK(text != NULL, "%s", SEED);
    if (!text) return check_finish("test_gltf_meshopt");
    sinew_error err = {0};
    sinew_asset *a = sinew_load_memory(text, size, "meshopt.gltf", NULL, &err);
#ifndef SINEW_HAVE_MESHOPT
    CHECK(a == NULL, "loads without meshoptimizer");
    CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "libmeshoptimizer-dev");
#else
    CHECK(a != NULL, "%s", err.description);
    if (a) {
        CHECK(a->mesh_count == 1 && a->meshes[0].vertex_count == 160, "%d meshes", a->mesh_count);
        CHECK(a->clip_count == 1, "%d clips", a->clip_count);
        /* OCTAHEDRAL normals decode to unit length, to what 8-bit components hold */
        const sinew_mesh *m = &a->meshes[0];
        float worst = 0;
        for (int v = 0; m->normals && v < m->vertex_count; ++v) {
            const float *n = &m->normals[3 * v];
            float e = fabsf(sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1);
            worst = e > worst ? e : worst;
        }
        CHECK(m->normals && worst < 1e-2f, "normals off unit length by %g", worst);
    }
    sinew_asset_free(a);

    const char *first = "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":160";
    expect_error(text, "\"mode\":\"ATTRIBUTES\"", "\"mode\":\"POINTS\"", SINEW_ERROR_PARSE, "bufferViews[0].extensions.EXT_meshopt_compression.mode");
    expect_error(text, first, "\"byteStride\":6,\"mode\":\"ATTRIBUTES\",\"count\":160", SINEW_ERROR_PARSE, "not a multiple of 4");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":161", SINEW_ERROR_PARSE, "is not bufferViews[0].byteLength 640");
    expect_error(text, first, "\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"count\":80", SINEW_ERROR_PARSE, "differs from bufferViews[0].byteStride 4");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"INDICES\",\"filter\":\"OCTAHEDRAL\",\"count\":160", SINEW_ERROR_PARSE, "needs mode ATTRIBUTES");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"filter\":\"QUATERNION\",\"count\":160", SINEW_ERROR_PARSE, "does not suit filter QUATERNION");
    expect_error(text, first, "\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"filter\":\"ZIP\",\"count\":160", SINEW_ERROR_PARSE, ".filter: \"ZIP\"");
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":0,\"byteLength\":7", SINEW_ERROR_TRUNCATED, "cannot hold 160 ATTRIBUTES elements");
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":2270,\"byteLength\":77", SINEW_ERROR_OUT_OF_BOUNDS, "exceeds buffers[0]");
    expect_error(text, "\"EXT_meshopt_compression\":{\"buffer\":0", "\"EXT_meshopt_compression\":{\"buffer\":1", SINEW_ERROR_BAD_REFERENCE, "placeholder without data");
    /* a stream that ends early: the decoder's return code, with the place */
    expect_error(text, "\"byteOffset\":0,\"byteLength\":77", "\"byteOffset\":1,\"byteLength\":77", SINEW_ERROR_PARSE, "does not decode (meshopt_decodeVertexBuffer returned");
    /* a view that reads the placeholder without decoding */
    expect_error(text, ",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":0,\"byteLength\":77,\"byteStride\":4,\"mode\":\"ATTRIBUTES\",\"count\":160}}", "", SINEW_ERROR_BAD_URI, "bufferViews[0]: buffers[1] has no uri");

    /* the decoded bytes count against the load's limit before decoding:
     * some limit passes the JSON and stops at a view */
    bool stopped = false;
    for (size_t limit = 4 << 10; limit < (4 << 20) && !stopped; limit += 256) {
        sinew_load_options small = {.base.max_memory = limit};
        a = sinew_load_memory(text, size, "meshopt.gltf", &small, &err);
        stopped = !a && err.result == SINEW_ERROR_OUT_OF_MEMORY &&
                  strstr(err.description, ".extensions.EXT_meshopt_compression: decoding") != NULL;
        sinew_asset_free(a);
        if (a) break;
    }
    CHECK(stopped, "no limit stops the load at a compressed view");
#endif
    free(text);
    return check_finish("test_gltf_meshopt");
}
