/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
/* Archives: what is written loads back the same, bit for bit, copied and
 * viewed where it lies, and the same asset writes the same bytes; the
 * golden archives of formats 1.0 and 2.0 still load (and with their skin's
 * blocks stored), and so do the golden packed and compressed clips, which
 * write again the bytes they were read from; XXH64 gives its published
 * values; and a catalog of corrupted archives (truncated at every section
 * boundary, each header and table field set to extremes, the checksum or
 * the version wrong, bytes changed with the checksum made right again) is
 * refused with its sentence, or loads into an asset that plays, in both
 * modes; timelines, plain and compressed, load back bit for bit and an
 * older reader skips them. All of it needs the runtime alone, so it runs
 * in the cross builds too; with the loaders (SINEW_TEST_FILES) the shared
 * assets and the generated glTF files make the same round trips. */
#include "sinew/sinew_archive.h"
#if defined(SINEW_TEST_FILES)
#include "sinew/sinew_import.h"
#endif

#include "archive/archive_internal.h"
#include "clip/compressed.h"
#include "layer/timeline.h"
#include "check.h"
#include "count_alloc.h"
#if defined(SINEW_TEST_FILES)
#include "gltf_features.h"
#endif
#include "fuzz/fuzz_play.h"
#include "read_file.h"
#include "write_memory.h"

#include <math.h>
#include <stdlib.h>

#define SAME(a, b, n) ((a) == (b) || ((a) && (b) && memcmp((a), (b), (n)) == 0))

/* Two timelines hold the same tracks and events, bit for bit (NULL alike). */
static bool same_timeline(const sinew_timeline *x, const sinew_timeline *y)
{
    if (!x || !y) return x == y;
    if (memcmp(&x->duration, &y->duration, sizeof x->duration) != 0 || x->track_count != y->track_count ||
        x->value_count != y->value_count || x->event_count != y->event_count || x->compressed != y->compressed)
        return false;
    for (int i = 0; i < x->track_count; ++i) {
        const sinew_user_track *a = &x->tracks[i], *b = &y->tracks[i];
        size_t n = (size_t)a->key_count;
        if (strcmp(a->name, b->name) != 0 || a->components != b->components || a->quaternion != b->quaternion ||
            a->key_count != b->key_count || memcmp(&a->tolerance, &b->tolerance, sizeof a->tolerance) != 0 ||
            memcmp(a->times, b->times, sizeof(float) * n) != 0 ||
            memcmp(a->values, b->values, sizeof(float) * n * (size_t)a->components) != 0 ||
            memcmp(a->step, b->step, n) != 0)
            return false;
    }
    for (int e = 0; e < x->event_count; ++e)
        if (strcmp(x->events[e].name, y->events[e].name) != 0 ||
            memcmp(&x->events[e].time, &y->events[e].time, sizeof(float)) != 0)
            return false;
    return true;
}

/* Two assets hold the same data, bit for bit. */
static bool same_asset(const sinew_asset *x, const sinew_asset *y)
{
    const sinew_skeleton *s = x->skeleton, *t = y->skeleton;
    if (strcmp(x->name, y->name) != 0 || s->joint_count != t->joint_count || x->node_count != y->node_count ||
        x->clip_count != y->clip_count || x->mesh_count != y->mesh_count ||
        (x->timelines != NULL) != (y->timelines != NULL))
        return false;
    for (int c = 0; x->timelines && c < x->clip_count; ++c)
        if (!same_timeline(x->timelines[c], y->timelines[c])) return false;
    size_t n = (size_t)s->joint_count;
    if (!SAME(s->parents, t->parents, n * sizeof *s->parents) ||
        !SAME(s->rest_pose, t->rest_pose, n * sizeof *s->rest_pose) ||
        !SAME(x->joint_sources, y->joint_sources, n * sizeof(int)) ||
        !SAME(x->node_joints, y->node_joints, (size_t)x->node_count * sizeof(int)))
        return false;
    for (size_t j = 0; j < n; ++j)
        if (strcmp(s->names[j], t->names[j]) != 0) return false;
    for (int c = 0; c < x->clip_count; ++c) {
        const sinew_clip *p = x->clips[c], *q = y->clips[c];
        if (strcmp(p->name, q->name) != 0 || p->duration != q->duration || p->track_count != q->track_count ||
            p->additive != q->additive)
            return false;
        for (int i = 0; i < p->track_count; ++i) {
            const sinew_track *a = &p->tracks[i], *b = &q->tracks[i];
            size_t floats = (size_t)a->key_count * (size_t)sinew_track_components(a) *
                            (a->interpolation == SINEW_INTERP_CUBICSPLINE ? 3 : 1);
            if (a->joint != b->joint || a->target != b->target || a->interpolation != b->interpolation ||
                a->key_count != b->key_count || !SAME(a->times, b->times, sizeof(float) * (size_t)a->key_count) ||
                !SAME(a->values, b->values, sizeof(float) * floats))
                return false;
        }
    }
    for (int m = 0; m < x->mesh_count; ++m) {
        const sinew_mesh *a = &x->meshes[m], *b = &y->meshes[m];
        size_t v = (size_t)a->vertex_count;
        if (strcmp(a->name, b->name) != 0 || a->vertex_count != b->vertex_count ||
            a->index_count != b->index_count || a->texcoord_count != b->texcoord_count || a->joint != b->joint ||
            a->source_node != b->source_node || !SAME(a->positions, b->positions, 12 * v) ||
            !SAME(a->normals, b->normals, 12 * v) || !SAME(a->tangents, b->tangents, 16 * v) ||
            !SAME(a->colors, b->colors, 16 * v) ||
            !SAME(a->indices, b->indices, sizeof(uint32_t) * (size_t)a->index_count) ||
            (a->skin != NULL) != (b->skin != NULL) || (a->morph != NULL) != (b->morph != NULL))
            return false;
        for (int set = 0; set < a->texcoord_count; ++set)
            if (!SAME(a->texcoords[set], b->texcoords[set], 8 * v)) return false;
        if (a->skin) {
            const sinew_skin *p = a->skin, *q = b->skin;
            size_t w = p->weight_type == SINEW_WEIGHT_F32 ? 4 : p->weight_type == SINEW_WEIGHT_UNORM16 ? 2 : 1;
            size_t stored = (size_t)(p->influence_count - p->last_weight_implied);
            if (p->joint_count != q->joint_count || p->influence_count != q->influence_count ||
                p->index_type != q->index_type || p->weight_type != q->weight_type ||
                !SAME(p->joints, q->joints, sizeof *p->joints * (size_t)p->joint_count) ||
                !SAME(p->inverse_bind, q->inverse_bind, sizeof *p->inverse_bind * (size_t)p->joint_count) ||
                !SAME(p->indices, q->indices, v * (size_t)p->influence_count * (p->index_type ? 2 : 1)) ||
                !SAME(p->weights, q->weights, v * stored * w))
                return false;
        }
        if (a->morph) {
            size_t k = v * (size_t)a->morph->target_count * 12;
            if (a->morph->target_count != b->morph->target_count || !SAME(a->morph->positions, b->morph->positions, k) ||
                !SAME(a->morph->normals, b->morph->normals, k) ||
                !SAME(a->morph_weights, b->morph_weights, sizeof(float) * (size_t)a->morph->target_count))
                return false;
        }
    }
    return true;
}

/* Two assets' skins hold the same SIMD blocks, bit for bit. */
static bool same_blocks(const sinew_asset *x, const sinew_asset *y)
{
    for (int m = 0; m < x->mesh_count; ++m) {
        if (!x->meshes[m].skin) continue;
        const sinew__skin_blocks *p = sinew__skin_of(x->meshes[m].skin)->blocks;
        const sinew__skin_blocks *q = sinew__skin_of(y->meshes[m].skin)->blocks;
        if (p->joint_end != q->joint_end ||
            memcmp(p->inverse_bind_lanes, q->inverse_bind_lanes,
                   sizeof(float) * 32 * (size_t)x->meshes[m].skin->joint_count) != 0)
            return false;
        for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
            const sinew__block_group *g = &p->group[k], *h = &q->group[k];
            size_t c = (size_t)g->count, n = (size_t)sinew__group_joints(k);
            if (g->count != h->count || !SAME(g->block, h->block, c * 4) || !SAME(g->joints, h->joints, c * n * 2) ||
                !SAME(g->weights, h->weights, c * n * SINEW__BLOCK * 4) || !SAME(g->pivot, h->pivot, c * SINEW__BLOCK))
                return false;
        }
    }
    return true;
}

/* Whether the view's clips' keys and meshes (and their skins' influences,
 * and with `blocks` their SIMD blocks) lie in the bytes [p, p + n), as a
 * view promises. */
static bool viewed_in(const sinew_asset *a, const unsigned char *p, size_t n, bool blocks)
{
#define INSIDE(q) ((const unsigned char *)(q) >= p && (const unsigned char *)(q) < p + n)
    for (int c = 0; c < a->clip_count; ++c)
        for (int t = 0; t < a->clips[c]->track_count; ++t)
            if (!INSIDE(a->clips[c]->tracks[t].times) || !INSIDE(a->clips[c]->tracks[t].values)) return false;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        if (mesh->vertex_count && !INSIDE(mesh->positions)) return false;
        if (mesh->index_count && !INSIDE(mesh->indices)) return false;
        if (mesh->skin && mesh->vertex_count && !INSIDE(mesh->skin->indices)) return false;
        const sinew__skin_blocks *bl = blocks && mesh->skin ? sinew__skin_of(mesh->skin)->blocks : NULL;
        for (int k = 0; bl && k <= SINEW__BLOCK_MAX_JOINTS; ++k)
            if (bl->group[k].count && !INSIDE(bl->group[k].weights)) return false;
    }
    return true;
#undef INSIDE
}

static void round_trip(const sinew_asset *a, const char *what)
{
    memory m = write_asset(a, NULL), again = write_asset(a, NULL);
    CHECK(m.size == again.size && m.size && memcmp(m.bytes, again.bytes, m.size) == 0,
          "%s: the same asset writes the same bytes", what);
    sinew_error err;
    sinew_asset *b = sinew_archive_load(m.bytes, m.size, NULL, &err);
    CHECK(b != NULL, "%s: loads back: %s", what, err.description);
    if (b) CHECK(same_asset(a, b), "%s: the asset loaded back is the one written, bit for bit", what);
#if defined(SINEW_TEST_FILES)
    /* and through sinew_load_memory, as every command reads files */
    sinew_asset *c = sinew_load_memory(m.bytes, m.size, NULL, NULL, &err);
    CHECK(c && same_asset(a, c), "%s: sinew_load_memory reads archives: %s", what, c ? "" : err.description);
#else
    sinew_asset *c = NULL;
#endif
    /* the clips alone */
    memory clips = write_asset(a, &(sinew_archive_write_options){.clips_only = true});
    sinew_asset *d = sinew_archive_load(clips.bytes, clips.size, NULL, &err);
    CHECK(d && d->mesh_count == 0 && d->clip_count == a->clip_count, "%s: clips only: %s", what,
          d ? "" : err.description);
    /* with the skins' blocks, which load as the skin would build them */
    memory prepared = write_asset(a, &(sinew_archive_write_options){.skin_blocks = true});
    sinew_asset *e = sinew_archive_load(prepared.bytes, prepared.size, NULL, &err);
    CHECK(e && same_asset(a, e) && same_blocks(a, e), "%s: prepared: the same asset, the same blocks: %s", what,
          e ? "" : err.description);
    /* viewed where they lie, plain and prepared: the same, pointing into the bytes */
    unsigned char *plain = aligned_copy(&m), *ready = aligned_copy(&prepared);
    sinew_asset *f = sinew_archive_view(plain, m.size, NULL, &err);
    CHECK(f && same_asset(a, f) && viewed_in(f, plain, m.size, false), "%s: viewed, the same asset in its bytes: %s", what,
          f ? "" : err.description);
    /* a viewed clip is planned as the copied one (equal key times found equal) */
    for (int k = 0; f && b && k < f->clip_count; ++k)
        CHECK(sinew__sampler_bytes(sinew__clip_of(f->clips[k])->sampler) ==
                  sinew__sampler_bytes(sinew__clip_of(b->clips[k])->sampler),
              "%s: clip %d viewed has the plan of the clip copied", what, k);
    sinew_asset *g = sinew_archive_view(ready, prepared.size, NULL, &err);
    CHECK(g && same_asset(a, g) && same_blocks(a, g) && viewed_in(g, ready, prepared.size, true),
          "%s: prepared and viewed, the same asset and blocks in its bytes: %s", what, g ? "" : err.description);
    sinew_asset_free(f), sinew_asset_free(g);
    aligned_free(plain), aligned_free(ready);
    printf("  %s: %zu bytes (%zu clips only, %zu prepared)\n", what, m.size, clips.size, prepared.size);
    sinew_asset_free(b), sinew_asset_free(c), sinew_asset_free(d), sinew_asset_free(e);
    free(m.bytes), free(again.bytes), free(clips.bytes), free(prepared.bytes);
}

/* The bytes the XXH3 vectors hash: byte i is ((7 i + 3)(i / 256 | 1)) mod 256. */
static unsigned char pattern(size_t i) { return (unsigned char)((i * 7 + 3) * (i >> 8 | 1)); }

static void test_xxh64(void)
{
    /* XXH3-64 of the pattern's first n bytes, as xxhsum -H3 gives them: every
     * path of the algorithm (up to 16, 128, 240 bytes, blocks of 1024) */
    static const struct {
        size_t n;
        uint64_t hash;
    } xxh3[] = {{0, 0x2d06800538d394c2u},     {1, 0x13e608bc156defedu},    {2, 0x1c9074b93943b86cu},
                {3, 0xa9088dda485b481cu},     {4, 0x6d9253b16c8b1ed3u},    {5, 0x998620e10e3a4b37u},
                {8, 0x60539db630471163u},     {9, 0xfeff668361d723a8u},    {15, 0x9ec169f4a98231c1u},
                {16, 0xb8c859b0f030b585u},    {17, 0x714a04408e79b80fu},   {31, 0xed41ac283d0674b3u},
                {32, 0x19ff4ee1d6ba1a55u},    {33, 0x3e44983ad21679c8u},   {64, 0x287eb1fa9e4be2c1u},
                {100, 0xb5937857f0d78c9fu},   {128, 0x67425a03650261bfu},  {129, 0xc664bf3311c6abc4u},
                {200, 0x746cd0025327bf5bu},   {240, 0x64556dc6b462a6cfu},  {241, 0x8beadd3a8874fe17u},
                {255, 0xb67b6637a76e6c39u},   {256, 0x3c38817f6d79c0dau},  {511, 0xe3fca5c97aa72e1bu},
                {1024, 0xdb78f5ef2bf84ce6u},  {1025, 0x0b96c08edf393d47u}, {1088, 0x46a4ac67bb068d21u},
                {2047, 0x804c3461e5d3b4d2u},  {5000, 0x4bfcec4a51dcf760u}, {100003, 0x449976bc64f3b933u}};
    unsigned char *bytes = malloc(100003);
    for (size_t i = 0; i < 100003; ++i) bytes[i] = pattern(i);
    /* at every SIMD level this CPU runs */
    for (int level = SINEW_SIMD_SCALAR; level <= (int)sinew_simd_supported(); ++level)
        for (size_t v = 0; v < sizeof xxh3 / sizeof *xxh3; ++v)
            CHECK(sinew__xxh3_at(bytes, xxh3[v].n, level) == xxh3[v].hash, "XXH3-64 of %zu bytes at level %d: %016llx",
                  xxh3[v].n, level, (unsigned long long)sinew__xxh3_at(bytes, xxh3[v].n, level));
    free(bytes);
    CHECK(sinew__xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL, "XXH64 of nothing");
    CHECK(sinew__xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5BULL, "XXH64 of \"a\"");
    CHECK(sinew__xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ULL, "XXH64 of \"abc\"");
    static const char fox[] = "The quick brown fox jumps over the lazy dog";
    CHECK(sinew__xxh64(fox, sizeof fox - 1, 0) == 0x0B242D361FDA71BCULL, "XXH64 of the fox (%016llx)",
          (unsigned long long)sinew__xxh64(fox, sizeof fox - 1, 0));
}

/* The archive written by format 1.0 (tests/archive/golden-1.0.sinew, from
 * a 3-joint glTF: a strip skinned to two joints, a clip bending the tip). */
static void test_golden(void)
{
    sinew_error err;
    sinew_asset *a = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/golden-1.0.sinew", NULL, &err);
    CHECK(a != NULL, "the 1.0 golden archive loads: %s", err.description);
    if (!a) return;
    CHECK(strcmp(a->name, "golden.gltf") == 0 && a->skeleton->joint_count == 3 &&
              strcmp(a->skeleton->names[1], "tip") == 0 && a->clip_count == 1 &&
              strcmp(a->clips[0]->name, "bend") == 0 && a->mesh_count == 1 && a->meshes[0].vertex_count == 4 &&
              a->meshes[0].skin && a->meshes[0].skin->joint_count == 2,
          "its contents");
    /* the tip at t = 0.5: 45 degrees about z */
    sinew_transform local[3];
    sinew_clip_sample(a->clips[0], a->skeleton, 0.5f, 0, NULL, local, 3, NULL);
    CHECK_NEAR(local[1].rotation.z, 0.38268343f, 1e-6f, "the clip plays");
    /* the same with its skin's blocks stored: those load, the blocks the skin builds */
    sinew_asset *b = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/golden-1.0-prepared.sinew", NULL, &err);
    CHECK(b && same_asset(a, b) && same_blocks(a, b), "the prepared 1.0 golden archive loads the same: %s",
          b ? "" : err.description);
    /* a 1.0 archive handed to a view is copied, wherever it lies */
    size_t size = 0;
    unsigned char *bytes = test_read_file(SINEW_SOURCE_DIR "/tests/archive/golden-1.0.sinew", &size);
    unsigned char *shifted = bytes ? malloc(size + 8) : NULL;
    if (shifted) memcpy(shifted + 1, bytes, size); /* malloc's boundary plus 1: off any 64-byte one */
    sinew_asset *e = shifted ? sinew_archive_view(shifted + 1, size, NULL, &err) : NULL;
    CHECK(e && same_asset(a, e), "a 1.0 archive viewed off a boundary is copied: %s", e ? "" : err.description);
    sinew_asset_free(e);
    free(shifted), free(bytes);
    /* format 2.0 (arrays aligned, viewed where they lie), plain and prepared */
    sinew_asset *c = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/golden-2.0.sinew", NULL, &err);
    CHECK(c && same_asset(a, c), "the 2.0 golden archive loads the same: %s", c ? "" : err.description);
    sinew_asset *d = sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/archive/golden-2.0-prepared.sinew", NULL, &err);
    CHECK(d && same_asset(a, d) && same_blocks(a, d), "the prepared 2.0 golden archive loads the same: %s",
          d ? "" : err.description);
    sinew_asset_free(a), sinew_asset_free(b), sinew_asset_free(c), sinew_asset_free(d);
}

static sinew_result load_copy(const memory *m, void (*mutate)(unsigned char *, size_t), sinew_error *err,
                              bool fix_sum)
{
    unsigned char *copy = malloc(m->size);
    memcpy(copy, m->bytes, m->size);
    mutate(copy, m->size);
    if (fix_sum && m->size >= 64) {
        sinew__archive_seal(copy, m->size);
    }
    sinew_asset *a = sinew_archive_load(copy, m->size, NULL, err);
    sinew_result r = a ? SINEW_OK : err->result;
    sinew_asset_free(a);
    free(copy);
    return r;
}

static void set_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void major3(unsigned char *b, size_t n) { (void)n, b[8] = 3; }
static void minor9(unsigned char *b, size_t n) { (void)n, b[10] = 9; }
static void sum_off(unsigned char *b, size_t n) { (void)n, b[24] ^= 1; }
static void magic_off(unsigned char *b, size_t n) { (void)n, b[1] = 'X'; }
static void total_big(unsigned char *b, size_t n) { (void)n, set_u64(b + 16, UINT64_MAX); }
static void table_far(unsigned char *b, size_t n) { (void)n, set_u64(b + 32, UINT64_MAX - 7); }
static void count_huge(unsigned char *b, size_t n) { (void)n, memset(b + 40, 0xff, 4); }
static void entry_offset(unsigned char *b, size_t n) { (void)n, set_u64(b + 64 + 32 + 8, UINT64_MAX - 63); }
static void entry_size(unsigned char *b, size_t n) { (void)n, set_u64(b + 64 + 32 + 16, UINT64_MAX); }
static void entry_kind(unsigned char *b, size_t n) { (void)n, b[64 + 32] = 99; }
static void entry_kind_optional(unsigned char *b, size_t n) { (void)n, b[64 + 2 * 32] = 99, b[64 + 2 * 32 + 4] = 0; }
static void no_skeleton(unsigned char *b, size_t n) { (void)n, b[64 + 32] = 1; }

/* `rounds` archives with a few bytes changed and the checksum made right:
 * each refused with a sentence, or an asset whose indices stay within its
 * vertices and which plays (fuzz_play.h: sampled, posed, skinned). */
static void mutated(const memory *m, int rounds, const char *what)
{
    sinew_error err;
    unsigned char *copy = aligned_copy(m);
    uint32_t seed = 4242;
    int loaded = 0;
    for (int round = 0; round < rounds; ++round) {
        memcpy(copy, m->bytes, m->size);
        for (int k = 0; k < 1 + round % 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = 64 + (seed >> 8) % (m->size - 64);
            seed = seed * 1664525u + 1013904223u;
            copy[at] ^= (unsigned char)(1u + (seed >> 24) % 255u);
        }
        sinew__archive_seal(copy, m->size);
        /* copied, and viewed on odd rounds */
        sinew_asset *a = round % 2 ? sinew_archive_view(copy, m->size, NULL, &err)
                                   : sinew_archive_load(copy, m->size, NULL, &err);
        if (a) {
            ++loaded;
            for (int i = 0; i < a->mesh_count; ++i) {
                const sinew_mesh *mesh = &a->meshes[i];
                for (int x = 0; x < mesh->index_count; ++x)
                    if (mesh->indices[x] >= (uint32_t)mesh->vertex_count) CHECK(false, "an index past the vertices");
                /* the prepared inputs map each block to its slot: every block once */
                sinew_skin_inputs *in = mesh->skin ? sinew_skin_inputs_create(mesh->skin, mesh->positions, 0,
                                                                              mesh->normals, 0, &err)
                                                   : NULL;
                sinew_skin_inputs_free(in);
            }
            fuzz_play(a);
        } else {
            CHECK(err.description[0] != '\0', "a refusal says why");
        }
        sinew_asset_free(a);
    }
    printf("  %d changed archives%s: %d loaded, %d refused\n", rounds, what, loaded, rounds - loaded);
    aligned_free(copy);
}

static void test_corrupted(const sinew_asset *demo)
{
    memory m = write_asset(demo, NULL);
    sinew_error err;
    /* truncated at every section boundary and inside the header */
    uint32_t count;
    memcpy(&count, m.bytes + 40, 4);
    int refused = 0, cuts = 0;
    size_t cut_at[64];
    int ncut = 0;
    cut_at[ncut++] = 0, cut_at[ncut++] = 8, cut_at[ncut++] = 63, cut_at[ncut++] = 64;
    for (uint32_t i = 0; i < count && ncut < 60; ++i) {
        uint64_t off;
        memcpy(&off, m.bytes + 64 + 32 * (size_t)i + 8, 8);
        cut_at[ncut++] = (size_t)off, cut_at[ncut++] = (size_t)off + 1;
    }
    cut_at[ncut++] = m.size - 1;
    for (int k = 0; k < ncut; ++k, ++cuts) {
        sinew_asset *a = sinew_archive_load(m.bytes, cut_at[k], NULL, &err);
        refused += a == NULL && err.description[0] != '\0';
        sinew_asset_free(a);
    }
    CHECK(refused == cuts, "every truncated archive refused with a sentence (%d of %d)", refused, cuts);
    struct {
        const char *what;
        void (*mutate)(unsigned char *, size_t);
        bool fix_sum;
        sinew_result result;
        const char *needle;
    } cases[] = {
        {"major version 3", major3, false, SINEW_ERROR_PARSE, "format version 3.2, this library reads 1.x to 2.x"},
        {"checksum", sum_off, false, SINEW_ERROR_PARSE, "the checksum does not match"},
        {"magic", magic_off, false, SINEW_ERROR_PARSE, "not a sinew archive"},
        {"total size", total_big, false, SINEW_ERROR_TRUNCATED, "bytes declared"},
        {"table offset", table_far, true, SINEW_ERROR_OUT_OF_BOUNDS, "header at byte 32"},
        {"section count", count_huge, true, SINEW_ERROR_OUT_OF_BOUNDS, "header at byte 32"},
        {"section offset", entry_offset, true, SINEW_ERROR_OUT_OF_BOUNDS, "section 1 (skeleton)"},
        {"section size", entry_size, true, SINEW_ERROR_OUT_OF_BOUNDS, "section 1 (skeleton)"},
        {"unknown required section", entry_kind, true, SINEW_ERROR_UNSUPPORTED, "kind 99"},
        {"no skeleton", no_skeleton, true, SINEW_ERROR_PARSE, "section 2 (clip) comes before the skeleton"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        CHECK(load_copy(&m, cases[c].mutate, &err, cases[c].fix_sum) == cases[c].result, "%s: %s",
              cases[c].what, err.description);
        CHECK_ERROR(err, cases[c].result, cases[c].needle);
        CHECK(strncmp(err.description, "sinew_archive_load: ", 20) == 0, "%s: named", cases[c].what);
    }
    CHECK(load_copy(&m, minor9, &err, true) == SINEW_ERROR_UNSUPPORTED, "a newer minor version is refused");
    CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "header at byte 10: format version 2.9, newer than this library's 2.2");
    /* an optional section of an unknown kind is skipped (a clip's here) */
    CHECK(load_copy(&m, entry_kind_optional, &err, true) == SINEW_OK, "an optional unknown section is skipped: %s",
          err.description);
    mutated(&m, 2000, "");
    free(m.bytes);
}

/* sinew__skin_create_stored on a skin of two blocks (vertices 0-7 on joint
 * 0 with weight 1: the unit group; 8-15 split between joints 0 and 1: group
 * 2): the blocks it builds given back load; each wrong layout is refused. */
static void test_stored_blocks(void)
{
    sinew_error err;
    int parents[2] = {-1, 0};
    const char *names[2] = {"root", "tip"};
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){2, parents, names, NULL}, NULL, NULL, &err);
    uint8_t idx[16][2];
    float w[16][2];
    for (int v = 0; v < 16; ++v)
        idx[v][0] = 0, idx[v][1] = 1, w[v][0] = v < 8 ? 1.0f : 0.5f, w[v][1] = v < 8 ? 0.0f : 0.5f;
    int joints[2] = {0, 1};
    sinew_skin_desc d = {.joint_count = 2, .joints = joints, .vertex_count = 16, .influence_count = 2,
                         .index_type = SINEW_INDEX_U8, .indices = idx, .weight_type = SINEW_WEIGHT_F32, .weights = w};
    sinew_skin *built = sk ? sinew_skin_create(sk, &d, NULL, NULL, &err) : NULL;
    CHECK(built != NULL, "the two-block skin: %s", err.description);
    if (!built) {
        sinew_skeleton_free(sk);
        return;
    }
    const sinew__skin_blocks *bl = sinew__skin_of(built)->blocks;
    CHECK(bl->group[SINEW__UNIT_GROUP].count == 1 && bl->group[2].count == 1, "one unit block, one of two joints");
    sinew__stored_blocks good;
    memset(&good, 0, sizeof good);
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        good.count[k] = bl->group[k].count;
        good.block[k] = bl->group[k].block, good.joints[k] = bl->group[k].joints;
        good.weights[k] = bl->group[k].weights, good.pivot[k] = bl->group[k].pivot;
    }
    sinew_skin *again = sinew__skin_create_stored(sk, &d, &good, false, NULL, NULL, &err);
    CHECK(again != NULL, "its own blocks load: %s", err.description);
    sinew_skin_free(again);
    const uint32_t block0 = 0;
    float half[SINEW__BLOCK] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    struct {
        const char *what;
        sinew__stored_blocks b;
        sinew_result result;
        const char *needle;
    } cases[] = {{"a block in two groups", good, SINEW_ERROR_OUT_OF_BOUNDS, "block 0 is past the 2 blocks, out of order or listed twice"},
                 {"groups short of the blocks", good, SINEW_ERROR_SIZE_MISMATCH, "the groups hold 1 blocks, not the skin's 2"},
                 {"a group's count negative", good, SINEW_ERROR_SIZE_MISMATCH, "group 3 holds -1 of the skin's 2 blocks"},
                 {"a unit row not 1", good, SINEW_ERROR_NOT_FINITE, "weight 0 is 0.5, not 1 in the unit group"}};
    cases[0].b.block[2] = &block0;
    cases[1].b.count[2] = 0;
    cases[2].b.count[3] = -1;
    cases[3].b.weights[SINEW__UNIT_GROUP] = half;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        sinew_skin *s = sinew__skin_create_stored(sk, &d, &cases[c].b, false, NULL, NULL, &err);
        CHECK(s == NULL, "%s: refused", cases[c].what);
        if (!s) CHECK_ERROR(err, cases[c].result, cases[c].needle);
        sinew_skin_free(s);
    }
    sinew_skin_free(built);
    sinew_skeleton_free(sk);
}

/* The blocks section of a prepared archive: each field the loader relies
 * on set wrong (the checksum made right), each refused with its sentence;
 * the section where no mesh comes before it; bytes changed at random. */
static void test_prepared(const sinew_asset *demo)
{
    memory m = write_asset(demo, &(sinew_archive_write_options){.skin_blocks = true});
    uint32_t count;
    memcpy(&count, m.bytes + 40, 4);
    size_t at = 0, entry = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t kind;
        memcpy(&kind, m.bytes + 64 + 32 * (size_t)i, 4);
        if (kind == SINEW__SECTION_SKIN_BLOCKS && !at) {
            uint64_t off;
            memcpy(&off, m.bytes + 64 + 32 * (size_t)i + 8, 8);
            at = (size_t)off, entry = 64 + 32 * (size_t)i;
        }
    }
    CHECK(at != 0, "a prepared archive holds a skin blocks section");
    if (!at) {
        free(m.bytes);
        return;
    }
    /* the first group of two blocks or more: where its arrays lie, each on
     * its boundary from the section's start */
#define ON(x, a) (at + ((x) - at + (a) - 1) / (a) * (a))
    size_t p = at + 4 + 4 * (SINEW__BLOCK_MAX_JOINTS + 1), block = 0, joints = 0, weights = 0, pivot = 0;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS && !block; ++k) {
        uint32_t c;
        memcpy(&c, m.bytes + at + 4 + 4 * (size_t)k, 4);
        size_t n = (size_t)(k ? k : 1);
        if (!c) continue;
        size_t b = ON(p, 16), j = ON(b + 4 * c, 16), w = ON(j + 2 * c * n, 32), v = ON(w + 4 * c * n * SINEW__BLOCK, 16);
        if (c >= 2) block = b, joints = j, weights = w, pivot = v;
        p = v + c * SINEW__BLOCK;
    }
#undef ON
    CHECK(block != 0, "a group of two blocks or more");
    struct {
        const char *what;
        size_t offset;
        uint32_t value;
        int bytes;
        sinew_result result;
        const char *needle;
    } cases[] = {
        {"block count", at, 1u << 20, 4, SINEW_ERROR_SIZE_MISMATCH, "1048576 where its"},
        {"a group's count", at + 4, 0x7fffffffu, 4, SINEW_ERROR_PARSE, "holds 2147483647 of"},
        {"a block listed twice", block + 4, 0, 4, SINEW_ERROR_OUT_OF_BOUNDS, "listed twice"},
        {"a block past the last", block, 0xffffffffu, 4, SINEW_ERROR_OUT_OF_BOUNDS, "past the"},
        {"a joint past the skin's", joints, 0xffff, 2, SINEW_ERROR_BAD_JOINT_INDEX, "joint 65535 is not one"},
        {"a weight not finite", weights, 0x7fc00000u, 4, SINEW_ERROR_NOT_FINITE, "weight 0 is nan"},
        {"a pivot past the joints", pivot, 200, 1, SINEW_ERROR_OUT_OF_BOUNDS, "pivot row 200"},
        {"a section after no mesh, required", 64 + 2 * 32, SINEW__SECTION_SKIN_BLOCKS, 4, SINEW_ERROR_PARSE,
         "section 2 (skin blocks), table entry at byte 132: flags 0x1"},
    };
    unsigned char *copy = malloc(m.size);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        memcpy(copy, m.bytes, m.size);
        memcpy(copy + cases[c].offset, &cases[c].value, (size_t)cases[c].bytes);
        sinew__archive_seal(copy, m.size);
        sinew_error err;
        sinew_asset *a = sinew_archive_load(copy, m.size, NULL, &err);
        CHECK(a == NULL, "%s: refused", cases[c].what);
        if (!a) CHECK_ERROR(err, cases[c].result, cases[c].needle);
        sinew_asset_free(a);
    }
    /* a reader that skips the section (optional, flags 0) builds the blocks itself */
    memcpy(copy, m.bytes, m.size);
    uint32_t unknown = 77;
    memcpy(copy + entry, &unknown, 4);
    sinew__archive_seal(copy, m.size);
    sinew_error err;
    sinew_asset *a = sinew_archive_load(copy, m.size, NULL, &err);
    CHECK(a && same_blocks(demo, a), "without its blocks section the skin builds the same blocks: %s",
          a ? "" : err.description);
    sinew_asset_free(a);
    free(copy);
    mutated(&m, 1000, " (prepared)");
    free(m.bytes);
}

/* Every allocation of a load refused in turn: a sentence each time, and
 * nothing left allocated. */
static void allocation_failures(const unsigned char *bytes, size_t size, bool view, const char *what)
{
    sinew_error err;
    counter c = {0};
    sinew_options o = {.allocator = {count_alloc, count_free, &c}};
    sinew_asset *(*load)(const void *, size_t, const sinew_options *, sinew_error *) =
        view ? sinew_archive_view : sinew_archive_load;
    sinew_asset *a = load(bytes, size, &o, &err);
    long needed = c.total;
    CHECK(a != NULL && needed > 0, "loads with the counting allocator: %s", err.description);
    sinew_asset_free(a);
    int refused = 0, leaks = 0;
    for (long k = 1; k <= needed; ++k) {
        c = (counter){0, 0, k};
        a = load(bytes, size, &o, &err);
        if (!a) refused += err.result == SINEW_ERROR_OUT_OF_MEMORY && err.description[0];
        sinew_asset_free(a);
        leaks += c.live != 0;
    }
    CHECK(refused == needed && leaks == 0, "%s: each of %ld allocations refused: %d said out of memory, %d leaked",
          what, needed, refused, leaks);
}

static void test_allocation_failures(const sinew_asset *demo)
{
    size_t size = 0;
    unsigned char *bytes = test_read_file(SINEW_SOURCE_DIR "/tests/archive/golden-1.0.sinew", &size);
    CHECK(bytes != NULL, "the golden archive read");
    if (bytes) allocation_failures(bytes, size, false, "the 1.0 golden archive");
    free(bytes);
    memory m = write_asset(demo, &(sinew_archive_write_options){.skin_blocks = true});
    allocation_failures(m.bytes, m.size, false, "the built-in character with its skin's blocks");
    unsigned char *aligned = aligned_copy(&m);
    allocation_failures(aligned, m.size, true, "the built-in character with its skin's blocks, viewed");
    /* a view needs its bytes on a 64-byte boundary: the archive 8 bytes past one */
    memory wider = {malloc(m.size + 8), m.size + 8};
    unsigned char *shifted = wider.bytes ? aligned_copy(&wider) : NULL;
    sinew_error err = {0};
    sinew_asset *a = NULL;
    if (shifted) {
        memcpy(shifted + 8, m.bytes, m.size);
        a = sinew_archive_view(shifted + 8, m.size, NULL, &err);
    }
    CHECK(!a, "a view of bytes off a 64-byte boundary is refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "must start on a 64-byte boundary; it starts 8 bytes past one");
    sinew_asset_free(a);
    aligned_free(shifted), free(wider.bytes);
    aligned_free(aligned);
    free(m.bytes);
}

/* What a view cannot repair (it does not write the caller's bytes) is
 * refused with a sentence where a copy repairs it: a rotation key not of
 * unit length, weights not summing to 1, a zero-weight influence past the
 * skin's joints. */
static void test_borrow_refuses(const sinew_asset *demo)
{
    const sinew_skeleton *sk = demo->skeleton;
    float times[2] = {0.0f, 1.0f}, rotations[8] = {0, 0, 0, 1, 0, 0, 0, 2};
    sinew_track track = {.joint = 0, .target = SINEW_TARGET_ROTATION, .interpolation = SINEW_INTERP_LINEAR,
                         .key_count = 2, .times = times, .values = rotations};
    sinew_clip_desc d = {.name = "long", .joint_count = sk->joint_count, .track_count = 1, .tracks = &track,
                         .skeleton = sk};
    sinew_error err;
    sinew_clip *copied = sinew__clip_create(&d, SINEW__CLIP_COPY, NULL, &err);
    CHECK(copied && copied->tracks[0].values[7] == 1.0f, "a copy normalizes the rotation: %s", err.description);
    sinew_clip *viewed = sinew__clip_create(&d, SINEW__CLIP_BORROW, NULL, &err);
    CHECK(!viewed, "a view refuses a rotation not of unit length");
    CHECK_ERROR(err, SINEW_ERROR_BAD_ROTATION, "track 0 key 1: a rotation not of unit length stays unrepaired");
    sinew_clip_free(copied), sinew_clip_free(viewed);
    uint16_t indices[2] = {0, 0};
    float weights[2] = {0.5f, 0.4f};
    int joints[1] = {0};
    sinew_skin_desc sd = {.joint_count = 1, .joints = joints, .vertex_count = 1, .influence_count = 2,
                          .index_type = SINEW_INDEX_U16, .indices = indices, .weight_type = SINEW_WEIGHT_F32,
                          .weights = weights};
    sinew_skin *fixed = sinew__skin_create_stored(sk, &sd, NULL, false, NULL, NULL, &err);
    CHECK(fixed != NULL, "a copy normalizes the weights: %s", err.description);
    sinew_skin *kept = sinew__skin_create_stored(sk, &sd, NULL, true, NULL, NULL, &err);
    CHECK(!kept, "a view refuses weights that sum to 0.9");
    CHECK_ERROR(err, SINEW_ERROR_BAD_WEIGHT, "vertex 0: its weights sum to 0.9, not 1, and stay unrepaired");
    sinew_skin_free(fixed), sinew_skin_free(kept);
    indices[1] = 7, weights[0] = 1.0f, weights[1] = 0.0f;
    fixed = sinew__skin_create_stored(sk, &sd, NULL, false, NULL, NULL, &err);
    CHECK(fixed && ((const uint16_t *)fixed->indices)[1] == 0, "a copy clears a zero-weight index past the joints");
    kept = sinew__skin_create_stored(sk, &sd, NULL, true, NULL, NULL, &err);
    CHECK(!kept, "a view refuses a zero-weight index past the joints");
    CHECK_ERROR(err, SINEW_ERROR_BAD_JOINT_INDEX, "vertex 0: influence 1 uses skin joint 7, the skin has 1 joints");
    sinew_skin_free(fixed), sinew_skin_free(kept);
}

/* The built-in character with `clip` alone, archived and loaded again. */
typedef struct reloaded {
    memory archive;
    unsigned char *aligned; /* the archive on a 64-byte boundary, which `viewed` reads */
    sinew_asset *copied, *viewed;
} reloaded;

/* Writes the built-in character with `clip` (`what`: "packed", ...) alone,
 * twice (the same bytes each time), and loads it copied and viewed: each
 * load's clip samples as `clip`, bit for bit, at 61 times, and writes the
 * bytes it was read from. Free with reloaded_free(). */
static reloaded reload_clip(const sinew_asset *demo, const sinew_clip *clip, const char *what)
{
    sinew_error err;
    sinew_asset with = *demo;
    const sinew_clip *list[1] = {clip};
    with.clips = list, with.clip_count = 1;
    reloaded r = {write_asset(&with, NULL), NULL, NULL, NULL};
    memory again = write_asset(&with, NULL);
    CHECK(r.archive.size == again.size && memcmp(r.archive.bytes, again.bytes, again.size) == 0,
          "a %s clip writes the same bytes", what);
    free(again.bytes);
    r.aligned = aligned_copy(&r.archive);
    r.copied = sinew_archive_load(r.archive.bytes, r.archive.size, NULL, &err);
    CHECK(r.copied != NULL, "a %s clip loads: %s", what, r.copied ? "" : err.description);
    r.viewed = sinew_archive_view(r.aligned, r.archive.size, NULL, &err);
    CHECK(r.viewed != NULL, "a %s clip is viewed: %s", what, r.viewed ? "" : err.description);
    if (!r.copied || !r.viewed) return r;
    int n = demo->skeleton->joint_count;
    sinew_transform *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    float worst = 0.0f;
    for (int frame = 0; x && y && frame <= 60; ++frame) {
        float t = clip->duration * (float)frame / 60.0f;
        for (int which = 0; which < 2; ++which) {
            const sinew_asset *loaded = which ? r.viewed : r.copied;
            sinew_clip_sample(clip, demo->skeleton, t, 0, NULL, x, n, NULL);
            sinew_clip_sample(loaded->clips[0], loaded->skeleton, t, 0, NULL, y, n, NULL);
            const float *a = &x[0].translation.x, *b = &y[0].translation.x;
            for (size_t i = 0; i < 10 * (size_t)n; ++i) worst = fmaxf(worst, fabsf(a[i] - b[i]));
        }
    }
    free(x), free(y);
    printf("  %s clip: %zu bytes archived; loaded, sampled within %g of the clip written\n", what, r.archive.size,
           (double)worst);
    CHECK(worst == 0.0f, "the loaded %s clip samples as the one written, bit for bit (within %g)", what,
          (double)worst);
    memory back = write_asset(r.copied, NULL), back_viewed = write_asset(r.viewed, NULL);
    CHECK(back.size == r.archive.size && memcmp(back.bytes, r.archive.bytes, back.size) == 0 &&
              back_viewed.size == r.archive.size && memcmp(back_viewed.bytes, r.archive.bytes, back.size) == 0,
          "a %s clip loaded (copied or viewed) writes the bytes it was read from", what);
    free(back.bytes), free(back_viewed.bytes);
    return r;
}

static void reloaded_free(reloaded *r)
{
    sinew_asset_free(r->copied), sinew_asset_free(r->viewed);
    aligned_free(r->aligned);
    free(r->archive.bytes);
}

/* A packed clip is written as its 16-bit keys and loads packed again,
 * copied or viewed: sampled at every frame it gives the poses of the clip
 * written, to within a rounding of its keys (a few float steps). */
static void test_packed(const sinew_asset *demo)
{
    /* the built-in clip sampled at 31 times for every joint: tracks on one
     * set of key times, as packing takes them */
    enum { KEYS = 31 };
    sinew_error err;
    int joints = demo->skeleton->joint_count;
    float times[KEYS];
    float *values = malloc(sizeof(float) * 10 * KEYS * (size_t)joints);
    sinew_track *tracks = malloc(sizeof *tracks * 3 * (size_t)joints);
    sinew_transform *pose = malloc(sizeof *pose * (size_t)joints);
    for (int k = 0; k < KEYS; ++k) {
        times[k] = demo->clips[0]->duration * (float)k / (KEYS - 1);
        sinew_clip_sample(demo->clips[0], demo->skeleton, times[k], 0, NULL, pose, joints, NULL);
        for (int j = 0; j < joints; ++j) {
            float *v = values + 10 * KEYS * (size_t)j;
            memcpy(v + 3 * k, &pose[j].translation, 12);
            memcpy(v + 3 * KEYS + 4 * k, &pose[j].rotation, 16);
            memcpy(v + 7 * KEYS + 3 * k, &pose[j].scale, 12);
        }
    }
    for (int j = 0; j < joints; ++j)
        for (int target = 0; target < 3; ++target)
            tracks[3 * j + target] = (sinew_track){
                .joint = j, .target = (sinew_track_target)target, .interpolation = SINEW_INTERP_LINEAR,
                .key_count = KEYS, .times = times,
                .values = values + 10 * KEYS * (size_t)j + (target == 0 ? 0 : target == 1 ? 3 * KEYS : 7 * KEYS)};
    sinew_clip_desc d = {.name = "resampled", .joint_count = joints, .track_count = 3 * joints,
                         .tracks = tracks, .skeleton = demo->skeleton};
    sinew_clip *baked = sinew_clip_create(&d, NULL, &err);
    free(pose);
    sinew_clip *packed = baked ? sinew_clip_pack(baked, demo->skeleton, NULL, NULL, &err) : NULL;
    sinew_clip_free(baked), free(values), free(tracks);
    CHECK(packed != NULL, "the built-in clip packs: %s", err.description);
    if (!packed) return;
    reloaded r = reload_clip(demo, packed, "packed");
    CHECK(r.copied && r.copied->clip_count == 1 && r.copied->clips[0]->packed && r.viewed &&
              r.viewed->clips[0]->packed,
          "the packed clip loads packed, copied and viewed");
    sinew_asset with = *demo;
    const sinew_clip *list[1] = {packed};
    with.clips = list, with.clip_count = 1;
    memory clips = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    mutated(&clips, 1000, " (a packed clip alone)");
    free(clips.bytes);
    reloaded_free(&r);
    sinew_clip_free(packed);
}

/* A compressed clip archived: 2.1, the same bytes each time and again
 * after a load (copied or viewed, the view reading the block where it
 * lies), sampled as the clip written; allocation failures and changed
 * bytes refused with a sentence. */
static void test_compressed(const sinew_asset *demo)
{
    sinew_error err;
    sinew_compress_report report;
    sinew_clip *z = sinew_clip_compress(demo->clips[0], demo->skeleton, NULL, NULL, &report, &err);
    CHECK(z != NULL, "the built-in clip compresses: %s", err.description);
    if (!z) return;
    reloaded re = reload_clip(demo, z, "compressed");
    const sinew_asset *viewed = re.viewed;
    CHECK(re.archive.bytes[10] == 2, "written as 2.2 (minor %d)", re.archive.bytes[10]);
    memory plain = write_asset(demo, NULL);
    CHECK(plain.bytes[10] == 2, "an archive without one too");
    free(plain.bytes);
    CHECK(re.copied && re.copied->clip_count == 1 && re.copied->clips[0]->compressed && viewed &&
              viewed->clips[0]->compressed,
          "loads compressed, copied and viewed");
    sinew_compress_report r;
    CHECK(viewed && sinew_clip_compression(viewed->clips[0], &r) && r.bytes == report.bytes &&
              r.largest == report.largest && r.animated_tracks == report.animated_tracks,
          "with its report");
    /* the view's clip reads the block in the caller's bytes */
    size_t held = viewed ? sinew_clip_bytes(viewed->clips[0]) : 0;
    CHECK(viewed && held == sinew_clip_bytes(z), "the clip counts its block's bytes (%zu)", held);
    memory m = re.archive;
    /* a 2.0 archive holds no compressed clip */
    unsigned char *older = aligned_copy(&m);
    older[10] = 0;
    sinew__archive_seal(older, m.size);
    sinew_asset *refused = sinew_archive_load(older, m.size, NULL, &err);
    CHECK(!refused, "a compressed clip in a 2.0 archive is refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "(compressed clip) in a 2.0 archive, which has none");
    sinew_asset_free(refused);
    aligned_free(older);
    sinew_asset with = *demo;
    const sinew_clip *list[1] = {z};
    with.clips = list, with.clip_count = 1;
    memory clips = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    allocation_failures(clips.bytes, clips.size, false, "a compressed clip");
    unsigned char *clips_aligned = aligned_copy(&clips);
    allocation_failures(clips_aligned, clips.size, true, "a compressed clip, viewed");
    aligned_free(clips_aligned);
    mutated(&clips, 2000, " (a compressed clip alone)");
    free(clips.bytes);
    reloaded_free(&re);
    sinew_clip_free(z);
}

/* A compressed block changed where a random byte rarely lands: refused
 * with its sentence. */
static void compressed_refuses(const sinew_clip *z, int joints, size_t size_change, size_t at, unsigned char value,
                               int32_t worst, const char *needle)
{
    size_t size;
    const unsigned char *block = sinew__clip_compressed_bytes(z, &size);
    unsigned char *copy = aligned_copy(&(memory){(unsigned char *)(uintptr_t)block, size});
    size_t n = size - size_change;
    uint32_t field = (uint32_t)n;
    memcpy(copy + 4, &field, 4);
    if (at) copy[at] = value;
    if (worst != -2) memcpy(copy + 56, &worst, 4);
    sinew_clip *clip = sinew_clip_create(&(sinew_clip_desc){.name = "hostile", .joint_count = joints}, NULL, NULL);
    const char *why = clip ? sinew__clip_compressed(clip, copy, n, true, 0) : "no clip";
    CHECK(why && strstr(why, needle), "a changed block refused with \"%s\": %s", needle, why ? why : "accepted");
    sinew_clip_free(clip);
    aligned_free(copy);
}

/* What random changes rarely reach: a block of a size not in whole words
 * (its segments would then be read past its end), a segment range past
 * its clip range (values beyond the range's floats), a worst joint out of
 * range. */
static void test_compressed_edges(const sinew_asset *demo)
{
    sinew_clip *z = sinew_clip_compress(demo->clips[0], demo->skeleton, NULL, NULL, NULL, NULL);
    CHECK(z != NULL, "the built-in walk compresses");
    if (!z) return;
    int joints = demo->skeleton->joint_count;
    compressed_refuses(z, joints, 1, 0, 0, -2, "not whole words");
    compressed_refuses(z, joints, 0, 0, 0, joints, "the worst joint is not one of the clip's");
    size_t size;
    const unsigned char *block = sinew__clip_compressed_bytes(z, &size);
    uint32_t first, animated;
    memcpy(&first, block + 76, 4);
    memcpy(&first, block + first, 4); /* segment 0's first byte */
    memcpy(&animated, block + 32, 4);
    /* track 0's low byte of component 0 at 255 with its extent at least 1 (at rate 0 the bytes hold a u16, and
     * raw rates hold zeros: the first track of the built-in walk is neither) */
    int rate = block[first] & 15;
    CHECK(rate != 0 && rate != SINEW__RAW_RATE, "track 0 of segment 0 is quantized (rate %d)", rate);
    compressed_refuses(z, joints, 0, first + (animated + 1) / 2, 255, -2, "passes the clip's");
    sinew_clip_free(z);
}

/* One golden clip archive (tests/archive/README: which program wrote it),
 * read from the file, copied and viewed: the built-in skeleton, clips of
 * the kinds `kinds` names ('p' packed, 'c' compressed, '-' neither) in
 * order, a viewed compressed clip reading its block in the file's bytes,
 * both loads sampling the same and playing, and each writing the file's
 * bytes again: what a build machine writes, this platform reads and
 * writes as it was. */
static void golden_clip_archive(const sinew_asset *demo, const char *name, const char *kinds)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/archive/%s", SINEW_SOURCE_DIR, name);
    memory file = {NULL, 0};
    file.bytes = test_read_file(path, &file.size);
    CHECK(file.bytes != NULL, "%s: read", path);
    if (!file.bytes) return;
    unsigned char *aligned = aligned_copy(&file);
    sinew_error err;
    sinew_asset *copied = sinew_archive_load(file.bytes, file.size, NULL, &err);
    CHECK(copied != NULL, "%s: loads: %s", name, copied ? "" : err.description);
    sinew_asset *viewed = aligned ? sinew_archive_view(aligned, file.size, NULL, &err) : NULL;
    CHECK(viewed != NULL, "%s: is viewed: %s", name, viewed ? "" : err.description);
    int clips = (int)strlen(kinds);
    for (int which = 0; which < 2; ++which) {
        const sinew_asset *a = which ? viewed : copied;
        const char *how = which ? "viewed" : "copied";
        if (!a) continue;
        const sinew_skeleton *s = a->skeleton, *t = demo->skeleton;
        bool same = s->joint_count == t->joint_count && a->mesh_count == 0 && a->clip_count == clips;
        for (int j = 0; same && j < s->joint_count; ++j) {
            const float *x = &s->rest_pose[j].translation.x, *y = &t->rest_pose[j].translation.x;
            same = s->parents[j] == t->parents[j] && strcmp(s->names[j], t->names[j]) == 0;
            /* the built-in rest pose comes from this platform's sinf and cosf */
            for (int f = 0; same && f < 10; ++f) same = fabsf(x[f] - y[f]) <= 1e-6f;
        }
        CHECK(same, "%s (%s): the built-in skeleton, no mesh, %d clips", name, how, clips);
        for (int c = 0; same && c < clips; ++c) {
            const sinew_clip *clip = a->clips[c];
            char kind = clip->packed ? 'p' : clip->compressed ? 'c' : '-';
            CHECK(kind == kinds[c] && sinew_asset_find_clip(demo, clip->name) != NULL,
                  "%s (%s): clip %d \"%s\" is of kind '%c', not '%c', or not a built-in clip's name", name, how, c,
                  clip->name, kind, kinds[c]);
            size_t size = 0;
            const unsigned char *block = kind == 'c' ? sinew__clip_compressed_bytes(clip, &size) : NULL;
            if (which && block)
                CHECK(block >= aligned && block + size <= aligned + file.size,
                      "%s: the viewed clip \"%s\" reads its block where it lies in the file's bytes", name,
                      clip->name);
        }
        /* written as write_goldens writes it: its clips (and their skeleton),
         * in today's format version (its minor version and checksum aside,
         * the file's bytes) */
        memory again = write_asset(a, &(sinew_archive_write_options){.clips_only = true});
        CHECK(again.size == file.size && memcmp(again.bytes, file.bytes, 10) == 0 &&
                  memcmp(again.bytes + 12, file.bytes + 12, 12) == 0 &&
                  memcmp(again.bytes + 32, file.bytes + 32, file.size - 32) == 0,
              "%s (%s): writes the file's %zu bytes again (%zu written)", name, how, file.size, again.size);
        free(again.bytes);
        fuzz_play(a);
    }
    /* copied and viewed sample the same, bit for bit */
    int n = demo->skeleton->joint_count, differ = 0;
    sinew_transform *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    for (int c = 0; copied && viewed && x && y && c < copied->clip_count && c < viewed->clip_count; ++c)
        for (int frame = 0; frame <= 90; ++frame) {
            float time = copied->clips[c]->duration * (float)frame / 90.0f;
            sinew_clip_sample(copied->clips[c], copied->skeleton, time, 0, NULL, x, n, NULL);
            sinew_clip_sample(viewed->clips[c], viewed->skeleton, time, 0, NULL, y, n, NULL);
            differ += memcmp(x, y, sizeof *x * (size_t)n) != 0;
        }
    CHECK(differ == 0, "%s: copied and viewed sample differently %d times", name, differ);
    printf("  %s: %zu bytes, %d clips (%s), loaded copied and viewed\n", name, file.size, clips, kinds);
    free(x), free(y);
    sinew_asset_free(copied), sinew_asset_free(viewed);
    aligned_free(aligned);
    free(file.bytes);
}

static void test_golden_clips(const sinew_asset *demo)
{
    golden_clip_archive(demo, "demo-packed.sinew", "p");
    golden_clip_archive(demo, "demo-compressed.sinew", "c-");
}

/* User tracks and events on a clip of `duration` s: a float track, a
 * vector whose keys are partly held, a quaternion, an exact track
 * (tolerance 0), a track of a +0 and a -0 (which a grid of 0 bits cannot
 * tell apart), and events, one at the duration, one without a name. */
static sinew_timeline *test_timeline(float duration)
{
    enum { K = 40, Q = 12 };
    float t1[K], v1[K], v3[3 * K], tq[Q], vq[4 * Q];
    uint8_t held[K];
    for (int k = 0; k < K; ++k) {
        t1[k] = duration * (float)k / (float)(K - 1);
        v1[k] = sinf(0.3f * (float)k);
        v3[3 * k] = 2.0f * cosf(0.2f * (float)k), v3[3 * k + 1] = 0.1f * (float)(k % 7), v3[3 * k + 2] = -3.5f;
        held[k] = k % 9 == 0;
    }
    for (int k = 0; k < Q; ++k) {
        float angle = 0.4f * (float)k;
        tq[k] = duration * (float)k / (float)(Q - 1);
        vq[4 * k] = 0.0f, vq[4 * k + 1] = sinf(angle / 2), vq[4 * k + 2] = 0.0f, vq[4 * k + 3] = cosf(angle / 2);
    }
    static const float t2[3] = {0.0f, 0.25f, 0.5f}, v2[6] = {1, 2, 3, 4, 5, 6}, ts[2] = {0.0f, 0.5f};
    static const float vs[2] = {0.0f, -0.0f};
    sinew_user_track tracks[] = {
        {.name = "contact", .components = 1, .key_count = K, .times = t1, .values = v1, .tolerance = 0.01f},
        {.name = "trail", .components = 3, .key_count = K, .times = t1, .values = v3, .step = held,
         .tolerance = 0.001f},
        {.name = "look", .components = 4, .quaternion = true, .key_count = Q, .times = tq, .values = vq,
         .tolerance = 0.01f},
        {.name = "exact", .components = 2, .key_count = 3, .times = t2, .values = v2},
        {.name = "signs", .components = 1, .key_count = 2, .times = ts, .values = vs, .tolerance = 0.1f},
    };
    sinew_event events[] = {{"step_r", 0.6f * duration}, {"step_l", 0.1f * duration}, {"", 0.3f * duration},
                            {"loop", duration}};
    sinew_timeline_desc d = {duration, 5, tracks, 4, events};
    sinew_error err;
    sinew_timeline *tl = sinew_timeline_create(&d, NULL, &err);
    CHECK(tl != NULL, "the test timeline: %s", err.description);
    return tl;
}

/* The timelines section of an archive: none without timelines; the
 * built-in character's first clip with a timeline (its second without),
 * plain and compressed, copied and viewed, and clips only: loaded back bit
 * for bit (a compressed timeline's decoded values as compress made them),
 * written again to the same bytes; a reader that does not know the kind
 * skips it. */
static void test_timelines(const sinew_asset *demo)
{
    sinew_error err;
    memory bare = write_asset(demo, NULL);
    sinew_asset *none = sinew_archive_load(bare.bytes, bare.size, NULL, &err);
    CHECK(none && none->timelines == NULL, "an asset without timelines loads without: %s",
          none ? "" : err.description);
    sinew_asset_free(none);
    free(bare.bytes);

    sinew_timeline *plain = test_timeline(demo->clips[0]->duration);
    sinew_timeline_report rep;
    sinew_timeline *small = plain ? sinew_timeline_compress(plain, NULL, &rep, &err) : NULL;
    CHECK(small && small->compressed, "the test timeline compressed: %s", small ? "" : err.description);
    if (!small) {
        sinew_timeline_free(plain);
        return;
    }
    const sinew_timeline *lists[2][2] = {{plain, NULL}, {small, NULL}};
    size_t sizes[2] = {0, 0};
    for (int z = 0; z < 2; ++z) {
        const char *what = z ? "compressed" : "plain";
        sinew_asset with = *demo;
        with.timelines = lists[z];
        for (int clips_only = 0; clips_only < 2; ++clips_only) {
            sinew_archive_write_options o = {.clips_only = clips_only != 0};
            memory m = write_asset(&with, &o);
            uint32_t kind = 0;
            memcpy(&kind, m.bytes + 64 + 32 * (size_t)(2 + demo->clip_count + (clips_only ? 0 : demo->mesh_count) +
                                                       (demo->springs && !clips_only)),
                   4);
            CHECK(kind == SINEW__SECTION_TIMELINES, "%s: the timelines section comes last (kind %u)", what, kind);
            unsigned char *aligned = aligned_copy(&m);
            sinew_asset *b = sinew_archive_load(m.bytes, m.size, NULL, &err);
            sinew_asset *v = sinew_archive_view(aligned, m.size, NULL, &err);
            for (int mode = 0; mode < 2; ++mode) {
                sinew_asset *got = mode ? v : b;
                CHECK(got && got->timelines && same_timeline(got->timelines[0], lists[z][0]) &&
                          got->timelines[1] == NULL,
                      "%s%s, %s: the timelines load back bit for bit: %s", what, clips_only ? ", clips only" : "",
                      mode ? "viewed" : "copied", got ? "" : err.description);
            }
            if (b && !clips_only) {
                memory again = write_asset(b, NULL);
                CHECK(again.size == m.size && memcmp(again.bytes, m.bytes, m.size) == 0,
                      "%s: loaded and written again, the same bytes", what);
                free(again.bytes);
                sinew_asset *d = sinew_archive_load(m.bytes, m.size, NULL, &err);
                CHECK(d && same_asset(b, d), "%s: the rest of the asset as without timelines", what);
                sinew_asset_free(d);
            }
            if (b && z == 1) {
                /* the +0 and -0 on a grid of 0 bits: stored as floats, so
                 * their grid reads back as floats */
                const sinew__timeline_grid *was = sinew__timeline_grids(small),
                                           *got = sinew__timeline_grids(b->timelines[0]);
                CHECK(was && got && was[4 * 4].bits == 0 && got[4 * 4].bits == 32,
                      "a grid that does not give its floats back is stored as floats (bits %d, read %d)",
                      was ? was[16].bits : -1, got ? got[16].bits : -1);
                CHECK(got && was[0].bits > 0 && was[0].bits <= 16 && got[0].bits == was[0].bits &&
                          got[0].min == was[0].min && got[0].step == was[0].step,
                      "the float track's grid reads back (%d bits)", was[0].bits);
            }
            if (!clips_only) {
                /* a reader that does not know kind 9 skips it (optional) */
                size_t entry = 64 + 32 * (size_t)(2 + demo->clip_count + demo->mesh_count + (demo->springs != NULL));
                unsigned char *copy = malloc(m.size);
                memcpy(copy, m.bytes, m.size);
                copy[entry] = 99;
                sinew__archive_seal(copy, m.size);
                sinew_asset *skipped = sinew_archive_load(copy, m.size, NULL, &err);
                CHECK(skipped && skipped->timelines == NULL && skipped->clip_count == demo->clip_count,
                      "%s: the section skipped as an unknown optional kind: %s", what,
                      skipped ? "" : err.description);
                sinew_asset_free(skipped);
                free(copy);
                size_t at;
                memcpy(&at, m.bytes + entry + 16, sizeof at);
                sizes[z] = at;
            }
            sinew_asset_free(b), sinew_asset_free(v);
            aligned_free(aligned);
            free(m.bytes);
        }
    }
    printf("  timelines: %zu bytes plain, %zu compressed (%d -> %d keys, %d -> %d bytes reported)\n", sizes[0],
           sizes[1], rep.keys_before, rep.keys_after, rep.bytes_before, rep.bytes_after);
    CHECK(sizes[1] < sizes[0], "compressed, the section is smaller: %zu, not %zu", sizes[1], sizes[0]);

    /* a timeline on the second clip only, of events alone */
    sinew_event ev[2] = {{"a", 0.0f}, {"b", 0.5f}};
    sinew_timeline *events = sinew_timeline_create(&(sinew_timeline_desc){0.0f, 0, NULL, 2, ev}, NULL, &err);
    const sinew_timeline *second[2] = {NULL, events};
    sinew_asset with = *demo;
    with.timelines = second;
    memory m = write_asset(&with, NULL);
    sinew_asset *b = sinew_archive_load(m.bytes, m.size, NULL, &err);
    CHECK(b && b->timelines && !b->timelines[0] && same_timeline(b->timelines[1], events),
          "events alone on the second clip load back: %s", b ? "" : err.description);
    sinew_asset_free(b);
    free(m.bytes);
    sinew_timeline_free(events), sinew_timeline_free(plain), sinew_timeline_free(small);

    /* the archive fuzzer's seed with timelines (and test_cli_info's) keeps loading */
    sinew_asset *seed =
        sinew_archive_load_file(SINEW_SOURCE_DIR "/tests/fuzz/regressions/archive/seed-timelines", NULL, &err);
    CHECK(seed && seed->clip_count == 2 && seed->timelines && seed->timelines[0]->compressed &&
              seed->timelines[0]->track_count == 2 && seed->timelines[0]->event_count == 5 &&
              seed->timelines[1]->track_count == 0 && seed->timelines[1]->event_count == 1,
          "the archive seed with timelines loads: %s", seed ? "" : err.description);
    sinew_asset_free(seed);
}

int main(void)
{
    test_xxh64();
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "the built-in character: %s", err.description);
    if (!demo) return check_finish("test_archive");
    round_trip(demo, "built-in character");
    test_golden();
    test_borrow_refuses(demo);
    test_packed(demo);
    test_compressed(demo);
    test_compressed_edges(demo);
    test_allocation_failures(demo);
    test_prepared(demo);
    test_stored_blocks();
    test_corrupted(demo);
    test_golden_clips(demo);
    test_timelines(demo);
    sinew_asset_free(demo);
#if defined(SINEW_TEST_FILES)
    static const char *const files[] = {"/gltf/cesium_man.gltf", "/gltf/interpolation_test.gltf",
                                        "/fbx/pab/arnaud.fbx", "/fbx/pab/walk.fbx", "/collada/seymour.dae"};
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", SINEW_ASSETS, files[f]);
        sinew_asset *a = sinew_load_file(path, NULL, &err);
        if (!a) {
            printf("skip: %s: %s\n", files[f], err.description);
            continue;
        }
        round_trip(a, files[f]);
        sinew_asset_free(a);
    }
    /* what the sample files lack: morph targets, colors, texture sets, 8 influences */
    char **features = gltf_features_write(SINEW_SCRATCH);
    CHECK(features != NULL, "the feature files written into %s", SINEW_SCRATCH);
    for (char **path = features; path && *path; ++path) {
        sinew_asset *a = sinew_load_file(*path, NULL, &err);
        if (!a) continue; /* some are for the loader's errors */
        const char *slash = strrchr(*path, '/');
        round_trip(a, slash ? slash + 1 : *path);
        sinew_asset_free(a);
    }
    gltf_features_free(features);
#else
    printf("skip: a build without the loaders: the shared assets and generated glTF files are not archived\n");
#endif
    return check_finish("test_archive");
}
