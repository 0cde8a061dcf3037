/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
/* Archives read strictly and within their memory limit, from the built-in
 * character: every header and table field the format defines is checked
 * (the zero bytes 48-63, the minor version, each entry's reserved field and
 * a known kind's flags); from 2.2 on the checksum covers the header, and
 * the archives of 2.0 and 2.1 (tests/archive) still load; a load whose
 * sections' declared sizes need more memory than sinew_options.max_memory
 * is refused before it allocates, naming the section and the limit, and a
 * load that is let through stays within that limit; a large packed clip
 * loads with the plan sinew_clip_pack makes, bit for bit; the timelines
 * section refuses each field out of range and every cut, naming the place.
 * The runtime alone, no timing. */
#include "sinew/sinew_archive.h"

#include "archive/archive_internal.h"
#include "baked_clip.h"
#include "check.h"
#include "read_file.h"
#include "write_memory.h"

#include <math.h>
#include <stdlib.h>

static void set_u16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void set_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void set_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

/* A copy of m changed by `change` at byte `at` (value `v`, `width` bytes),
 * its checksum made right where `seal`, loaded by copying: the result and
 * err. */
static sinew_result load_changed(const memory *m, size_t at, uint64_t v, int width, bool seal, sinew_error *err)
{
    unsigned char *copy = malloc(m->size);
    memcpy(copy, m->bytes, m->size);
    if (width == 1) copy[at] = (unsigned char)v;
    if (width == 2) set_u16(copy + at, (uint16_t)v);
    if (width == 4) set_u32(copy + at, (uint32_t)v);
    if (width == 8) set_u64(copy + at, v);
    if (seal) sinew__archive_seal(copy, m->size);
    sinew_asset *a = sinew_archive_load(copy, m->size, NULL, err);
    sinew_result r = a ? SINEW_OK : err->result;
    sinew_asset_free(a);
    free(copy);
    return r;
}

/* The table entry of the first section of `kind` (its byte), or 0. */
static size_t entry_of(const memory *m, uint32_t kind)
{
    uint32_t count;
    memcpy(&count, m->bytes + 40, 4);
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t k;
        memcpy(&k, m->bytes + 64 + 32 * (size_t)i, 4);
        if (k == kind) return 64 + 32 * (size_t)i;
    }
    return 0;
}

/* The fields the format defines, each set to what it does not allow (the
 * checksum made right), refused with a sentence that names the place; and
 * the versions this library reads. */
static void test_fields(const sinew_asset *demo)
{
    sinew_error err;
    memory m = write_asset(demo, &(sinew_archive_write_options){.skin_blocks = true});
    uint16_t major, minor;
    memcpy(&major, m.bytes + 8, 2), memcpy(&minor, m.bytes + 10, 2);
    CHECK(major == 2 && minor == 2 && SINEW_ARCHIVE_MINOR == 2, "the writer writes 2.2, not %u.%u", major, minor);
    CHECK(load_changed(&m, 0, 0, 0, false, &err) == SINEW_OK, "the archive loads: %s", err.description);
    for (size_t at = 48; at < 64; at += 5) {
        CHECK(load_changed(&m, at, 0x40, 1, true, &err) == SINEW_ERROR_PARSE, "header byte %zu set: refused", at);
        char needle[64];
        snprintf(needle, sizeof needle, "header at byte %zu: 0x40 where the format has zeros", at);
        CHECK_ERROR(err, SINEW_ERROR_PARSE, needle);
    }
    static const uint16_t minors[] = {3, 9, 0xffff};
    for (size_t i = 0; i < sizeof minors / sizeof *minors; ++i) {
        CHECK(load_changed(&m, 10, minors[i], 2, true, &err) == SINEW_ERROR_UNSUPPORTED, "minor %u refused",
              minors[i]);
        char needle[80];
        snprintf(needle, sizeof needle, "header at byte 10: format version 2.%u, newer than this library's 2.2",
                 minors[i]);
        CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, needle);
    }
    /* each entry's reserved field, and the flags of each kind it holds */
    size_t skeleton = entry_of(&m, 2), mesh = entry_of(&m, 4), blocks = entry_of(&m, 5);
    CHECK(skeleton && mesh && blocks, "the prepared archive holds a skeleton, a mesh and its skin's blocks");
    CHECK(load_changed(&m, skeleton + 24, 1, 8, true, &err) == SINEW_ERROR_PARSE, "a reserved field refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "section 1 (skeleton), table entry at byte 120: reserved field 0x1, not zero");
    CHECK(load_changed(&m, mesh + 28, 0x80, 1, true, &err) == SINEW_ERROR_PARSE, "a reserved field refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "reserved field 0x8000000000, not zero");
    CHECK(load_changed(&m, 64 + 4, 3, 4, true, &err) == SINEW_ERROR_PARSE, "the asset's flags refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "section 0 (asset), table entry at byte 68: flags 0x3, where the format "
                "gives this kind 0x1");
    CHECK(load_changed(&m, mesh + 4, 0, 4, true, &err) == SINEW_ERROR_PARSE, "a mesh not required refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "(mesh), table entry at byte");
    CHECK(load_changed(&m, blocks + 4, 1, 4, true, &err) == SINEW_ERROR_PARSE, "skin blocks required refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "(skin blocks), table entry at byte");
    CHECK(strncmp(err.description, "sinew_archive_load: ", 20) == 0, "named: %s", err.description);
    /* skin blocks, optional as the format has them, after no mesh: refused */
    size_t clip = entry_of(&m, 3);
    CHECK(clip && load_changed(&m, clip, 5, 8, true, &err) == SINEW_ERROR_PARSE, "skin blocks after a clip");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "(skin blocks) does not follow a mesh section");
    /* an unknown kind is not a known kind: optional, it is skipped whatever its flags' other bits */
    CHECK(load_changed(&m, blocks, 99, 4, true, &err) == SINEW_OK, "an optional unknown section skipped: %s",
          err.description);
    free(m.bytes);

    /* 1.0, 2.0 and 2.1 archives still load, their header outside their
     * checksum; a 1.x minor version past 0 is refused */
    static const char *const goldens[] = {"golden-1.0.sinew",  "golden-1.0-prepared.sinew", "golden-2.0.sinew",
                                          "golden-2.0-prepared.sinew", "demo-packed.sinew", "demo-compressed.sinew",
                                          "golden-2.2.sinew",  "golden-2.2-prepared.sinew"};
    for (size_t g = 0; g < sizeof goldens / sizeof *goldens; ++g) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/archive/%s", SINEW_SOURCE_DIR, goldens[g]);
        memory file = {NULL, 0};
        file.bytes = test_read_file(path, &file.size);
        CHECK(file.bytes != NULL, "%s: read", path);
        if (!file.bytes) continue;
        memcpy(&major, file.bytes + 8, 2), memcpy(&minor, file.bytes + 10, 2);
        CHECK(load_changed(&file, 0, 0, 0, false, &err) == SINEW_OK, "%s (%u.%u) loads: %s", goldens[g], major,
              minor, err.description);
        sinew_asset *a = sinew_archive_load_file(path, NULL, &err);
        CHECK(a != NULL, "%s loads from its file: %s", goldens[g], a ? "" : err.description);
        sinew_asset_free(a);
        if (major == 1) {
            CHECK(load_changed(&file, 10, 1, 2, true, &err) == SINEW_ERROR_UNSUPPORTED, "1.1 refused");
            CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "format version 1.1, newer than this library's 1.0");
        }
        free(file.bytes);
    }
}

/* From 2.2 on the checksum covers the header: a header byte changed is
 * refused though the payload's hash is right, and an archive passed off
 * as 2.1 (whose checksum covered its payload alone) too. */
static void test_header_checksum(const sinew_asset *demo)
{
    sinew_error err;
    /* without its springs: a 2.1 archive has no springs section, and the
     * same bytes must pass for one below */
    sinew_asset plain = *demo;
    plain.springs = NULL, plain.spring_names = NULL;
    memory m = write_asset(&plain, NULL);
    uint64_t stored, payload = sinew__xxh3(m.bytes + 64, m.size - 64);
    memcpy(&stored, m.bytes + 24, 8);
    CHECK(stored == sinew__archive_checksum(m.bytes, m.size) && stored != payload,
          "the stored checksum is the header's and the payload's, not the payload's alone");
    /* each header byte but the checksum's changes it */
    unsigned char *copy = malloc(m.size);
    int changed = 0;
    for (size_t at = 0; at < 64; ++at) {
        if (at >= 24 && at < 32) continue;
        memcpy(copy, m.bytes, m.size);
        copy[at] ^= 0x10;
        changed += sinew__archive_checksum(copy, m.size) != stored;
    }
    CHECK(changed == 56, "each of the 56 header bytes outside the checksum is hashed (%d are)", changed);
    /* the section count one less, sealed as 2.1 sealed: refused */
    memcpy(copy, m.bytes, m.size);
    uint32_t count;
    memcpy(&count, copy + 40, 4);
    set_u32(copy + 40, count - 1);
    set_u64(copy + 24, payload);
    sinew_asset *a = sinew_archive_load(copy, m.size, NULL, &err);
    CHECK(a == NULL, "a header changed under a payload-only checksum is refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "header at byte 24: the checksum does not match");
    sinew_asset_free(a);
    /* the version lowered to 2.1, whose checksum leaves out the header: refused */
    CHECK(load_changed(&m, 10, 1, 2, false, &err) == SINEW_ERROR_PARSE, "2.2 passed off as 2.1 refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "the checksum does not match");
    /* and as 2.1 with its payload checksum: loads, as 2.1 archives do */
    memcpy(copy, m.bytes, m.size);
    set_u16(copy + 10, 1);
    set_u64(copy + 24, payload);
    a = sinew_archive_load(copy, m.size, NULL, &err);
    CHECK(a != NULL, "the same archive sealed as 2.1 loads: %s", a ? "" : err.description);
    sinew_asset_free(a);
    free(copy);
    free(m.bytes);
}

/* An allocator that keeps the bytes it holds and their peak. */
typedef struct peak_counter {
    size_t live, peak, total;
} peak_counter;

static void *peak_alloc(void *user, size_t size)
{
    peak_counter *c = user;
    unsigned char *p = malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    c->live += size, c->total += size;
    if (c->live > c->peak) c->peak = c->live;
    return p + 16;
}

static void peak_free(void *user, void *ptr)
{
    if (!ptr) return;
    peak_counter *c = user;
    unsigned char *p = (unsigned char *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    c->live -= size;
    free(p);
}

/* A clip of the built-in walk sampled at `keys` keys, 30 a second, looping,
 * every joint's translation, rotation and scale on them (as exporters
 * bake), packed. */
static sinew_clip *long_packed_walk(const sinew_asset *demo, int keys, sinew_clip **plain)
{
    sinew_error err = {0};
    *plain = baked_clip(demo->clips[0], demo->skeleton, keys, "long walk", &err);
    CHECK(*plain != NULL, "the long walk: %s", err.description);
    sinew_clip *packed = *plain ? sinew_clip_pack(*plain, demo->skeleton, NULL, NULL, &err) : NULL;
    CHECK(packed != NULL, "the long walk packs: %s", err.description);
    return packed;
}

/* Two packed clips hold the same plan: the same key times, and each
 * track's floats stored alike (the same offsets, steps and 16-bit keys). */
static bool same_packed(const sinew_clip *x, const sinew_clip *y)
{
    const float *tx, *ty;
    int kx, ky;
    size_t sx, sy;
    sinew__packed_track none;
    int nx = sinew__packed_tracks(x, &tx, &kx, &sx, &none, 0), ny = sinew__packed_tracks(y, &ty, &ky, &sy, &none, 0);
    if (nx != ny || kx != ky || sx != sy || nx == 0 || memcmp(tx, ty, sizeof(float) * (size_t)kx) != 0) return false;
    sinew__packed_track *a = malloc(sizeof *a * (size_t)nx), *b = malloc(sizeof *b * (size_t)nx);
    sinew__packed_tracks(x, &tx, &kx, &sx, a, nx), sinew__packed_tracks(y, &ty, &ky, &sy, b, ny);
    bool same = true;
    for (int i = 0; same && i < nx; ++i) {
        same = a[i].joint == b[i].joint && a[i].target == b[i].target;
        for (int c = 0; same && c < (a[i].target == SINEW_TARGET_ROTATION ? 4 : 3); ++c) {
            const sinew__packed_float *p = &a[i].f[c], *q = &b[i].f[c];
            same = !p->q == !q->q && memcmp(&p->value, &q->value, 4) == 0 &&
                   memcmp(&p->offset, &q->offset, 4) == 0 && memcmp(&p->step, &q->step, 4) == 0;
            for (int k = 0; same && p->q && k < kx; ++k) same = p->q[(size_t)k * sx] == q->q[(size_t)k * sy];
        }
    }
    free(a), free(b);
    return same;
}

/* A large packed clip (a walk of 20,000 keys, megabytes of 16-bit keys)
 * loads, copied and viewed, with the plan sinew_clip_pack made: the same
 * stored keys and the same samples, bit for bit; and within the memory
 * limit its declared sizes give, which the load's peak stays under. */
static void test_large_packed(const sinew_asset *demo)
{
    enum { KEYS = 20000 };
    sinew_error err;
    sinew_clip *plain = NULL, *packed = long_packed_walk(demo, KEYS, &plain);
    if (!packed) {
        sinew_clip_free(plain);
        return;
    }
    sinew_asset with = *demo;
    const sinew_clip *list[1] = {packed};
    with.clips = list, with.clip_count = 1;
    memory m = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    unsigned char *aligned = aligned_copy(&m);
    int n = demo->skeleton->joint_count;
    sinew_transform *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)n);
    for (int view = 0; view < 2; ++view) {
        sinew_asset *a = view ? sinew_archive_view(aligned, m.size, NULL, &err)
                              : sinew_archive_load(m.bytes, m.size, NULL, &err);
        CHECK(a != NULL && a->clip_count == 1 && a->clips[0]->packed, "the large packed archive (%zu bytes) %s: %s",
              m.size, view ? "is viewed" : "loads", a ? "" : err.description);
        if (!a) continue;
        const sinew_clip *loaded = a->clips[0];
        CHECK(same_packed(packed, loaded), "the loaded plan is the one sinew_clip_pack made (%s)",
              view ? "viewed" : "copied");
        CHECK(sinew_clip_bytes(packed) == sinew_clip_bytes(loaded), "its bytes: %zu, sinew_clip_pack's %zu",
              sinew_clip_bytes(loaded), sinew_clip_bytes(packed));
        int differ = 0;
        for (int f = 0; f <= 997; ++f) {
            float t = packed->duration * (float)f / 997.0f;
            sinew_clip_sample(packed, demo->skeleton, t, 0, NULL, x, n, NULL);
            sinew_clip_sample(loaded, a->skeleton, t, 0, NULL, y, n, NULL);
            differ += memcmp(x, y, sizeof *x * (size_t)n) != 0;
        }
        CHECK(differ == 0, "the loaded clip samples as the packed one, bit for bit (%d of 998 times differ)", differ);
        memory again = write_asset(a, &(sinew_archive_write_options){.clips_only = true});
        CHECK(again.size == m.size && memcmp(again.bytes, m.bytes, m.size) == 0, "it writes the same bytes again");
        free(again.bytes);
        sinew_asset_free(a);
    }
    printf("  a packed walk of %d keys: %zu bytes, loaded copied and viewed with sinew_clip_pack's plan\n", KEYS,
           m.size);
    free(x), free(y);
    aligned_free(aligned);
    free(m.bytes);
    sinew_clip_free(packed), sinew_clip_free(plain);
}

/* The smallest limit (sinew_options.max_memory) under which `m` loads, the
 * peak its load then holds at most (through a counting allocator), and
 * the sentence of the refusal just under it. */
static size_t smallest_limit(const memory *m, const unsigned char *aligned, bool view, size_t *peak, sinew_error *no)
{
    size_t lo = 1, hi = (size_t)1 << 36; /* refused at lo, loads at hi */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        peak_counter c = {0, 0, 0};
        sinew_options o = {.max_memory = mid, .allocator = {peak_alloc, peak_free, &c}};
        sinew_error err;
        sinew_asset *a = view ? sinew_archive_view(aligned, m->size, &o, &err)
                              : sinew_archive_load(m->bytes, m->size, &o, &err);
        if (a) {
            hi = mid;
            sinew_asset_free(a);
        } else {
            lo = mid;
            *no = err;
            /* refused before a section takes more: what it held stays within the limit */
            CHECK(c.peak <= mid, "a load refused under a limit of %zu held %zu bytes first", mid, c.peak);
        }
    }
    peak_counter c = {0, 0, 0};
    sinew_options o = {.max_memory = hi, .allocator = {peak_alloc, peak_free, &c}};
    sinew_error err;
    sinew_asset *a = view ? sinew_archive_view(aligned, m->size, &o, &err)
                          : sinew_archive_load(m->bytes, m->size, &o, &err);
    sinew_asset_free(a);
    *peak = c.peak;
    return hi;
}

/* The budget from the declared sizes: an archive loads under a limit, or
 * is refused before allocating, naming the section and the limit; where it
 * loads its peak stays within it (the built-in character plain and
 * prepared, a large plain and a large packed clip, copied and viewed). */
static void test_budget(const sinew_asset *demo)
{
    sinew_error err;
    sinew_clip *plain = NULL, *packed = long_packed_walk(demo, 20000, &plain);
    if (!packed) {
        sinew_clip_free(plain);
        return;
    }
    sinew_asset with = *demo;
    const sinew_clip *packed_list[1] = {packed}, *plain_list[1] = {plain};
    struct {
        const char *what;
        memory m;
    } cases[4];
    cases[0].what = "the built-in character", cases[0].m = write_asset(demo, NULL);
    cases[1].what = "the built-in character, prepared";
    cases[1].m = write_asset(demo, &(sinew_archive_write_options){.skin_blocks = true});
    with.clips = plain_list, with.clip_count = 1;
    cases[2].what = "a walk of 20,000 keys", cases[2].m = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    with.clips = packed_list;
    cases[3].what = "the walk packed", cases[3].m = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    for (int i = 0; i < 4; ++i) {
        unsigned char *aligned = aligned_copy(&cases[i].m);
        for (int view = 0; view < 2; ++view) {
            size_t peak = 0;
            sinew_error no = {0};
            size_t limit = smallest_limit(&cases[i].m, aligned, view, &peak, &no);
            printf("  %s (%zu bytes, %s): loads under a limit of %.2f MiB, its peak %.2f MiB\n", cases[i].what,
                   cases[i].m.size, view ? "viewed" : "copied", limit / 1048576.0, peak / 1048576.0);
            CHECK(peak > 0 && peak <= limit, "%s: the peak %zu within the limit it loads under, %zu",
                  cases[i].what, peak, limit);
            /* a bound, not a multiple: within a few times the peak */
            CHECK(limit <= 8 * peak + (1 << 20), "%s: a limit of %zu for a peak of %zu", cases[i].what, limit,
                  peak);
            CHECK_ERROR(no, SINEW_ERROR_OUT_OF_MEMORY, "(sinew_options.max_memory)");
            CHECK(strstr(no.description, ": section ") && strstr(no.description, "more than the load's limit of"),
                  "the refusal names the section and the limit: %s", no.description);
        }
        aligned_free(aligned);
    }
    /* the packed clip's section named, and the default limit too */
    sinew_options o = {.max_memory = cases[3].m.size + 4096};
    sinew_asset *a = sinew_archive_load(cases[3].m.bytes, cases[3].m.size, &o, &err);
    CHECK(a == NULL, "the packed walk refused under a limit of its size");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "section 2 (packed clip) at byte");
    sinew_asset_free(a);
    for (int i = 0; i < 4; ++i) free(cases[i].m.bytes);
    sinew_clip_free(packed), sinew_clip_free(plain);

    /* a chain of joints each with a translation, rotation and scale of one
     * key, its last joint's translation of many: the block layout of every
     * joint at every key would take gigabytes for a few megabytes of
     * archive; refused from its counts before it is built */
    enum { JOINTS = 4000, KEYS = 100000 };
    int *parents = malloc(sizeof(int) * JOINTS);
    sinew_transform *rest = malloc(sizeof *rest * JOINTS);
    const char **names = malloc(sizeof *names * JOINTS);
    char (*text)[16] = malloc(16 * (size_t)JOINTS);
    for (int j = 0; j < JOINTS; ++j) {
        parents[j] = j - 1, rest[j] = (sinew_transform){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        snprintf(text[j], 16, "j%d", j), names[j] = text[j];
    }
    sinew_skeleton_desc sd = {JOINTS, parents, names, rest};
    sinew_skeleton *sk = sinew_skeleton_create(&sd, NULL, NULL, &err);
    float *times = malloc(sizeof(float) * KEYS), *values = malloc(sizeof(float) * 3 * KEYS);
    for (int k = 0; k < KEYS; ++k)
        times[k] = (float)k, values[3 * k] = (float)k, values[3 * k + 1] = 0.0f, values[3 * k + 2] = 0.0f;
    sinew_track *tracks = malloc(sizeof *tracks * 3 * JOINTS);
    static const float identity[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    for (int j = 0; j < JOINTS; ++j)
        for (int target = 0; target < 3; ++target) {
            bool keyed = j == JOINTS - 1 && target == 0;
            tracks[3 * j + target] = (sinew_track){
                .joint = j, .target = (sinew_track_target)target, .interpolation = SINEW_INTERP_LINEAR,
                .key_count = keyed ? KEYS : 1, .times = times,
                .values = keyed ? values : identity + (target == 0 ? 0 : target == 1 ? 3 : 7)};
        }
    sinew_clip_desc cd = {.name = "deep", .joint_count = JOINTS, .track_count = 3 * JOINTS, .tracks = tracks};
    sinew_clip *deep = sk ? sinew_clip_create(&cd, NULL, &err) : NULL;
    CHECK(deep != NULL, "the deep clip: %s", err.description);
    const sinew_clip *deep_list[1] = {deep};
    sinew_asset deep_asset = {.name = "deep", .skeleton = sk, .clip_count = 1, .clips = deep_list};
    memory dm = deep ? write_asset(&deep_asset, NULL) : (memory){NULL, 0};
    peak_counter c = {0, 0, 0};
    sinew_options counted = {.allocator = {peak_alloc, peak_free, &c}};
    a = dm.bytes ? sinew_archive_load(dm.bytes, dm.size, &counted, &err) : NULL;
    printf("  one track of %d keys on a chain of %d joints: %zu bytes: %s\n", KEYS, JOINTS, dm.size,
           a ? "loaded" : err.description);
    CHECK(a == NULL, "refused under the default limit");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "section 2 (clip) at byte");
    CHECK(c.peak < (size_t)4 << 20, "refused having held %zu bytes (the skeleton's)", c.peak);
    sinew_asset_free(a);
    free(dm.bytes);
    sinew_clip_free(deep), sinew_skeleton_free(sk);
    free(parents), free(rest), free(names), free(text), free(times), free(values), free(tracks);
}

/* The timelines section of the built-in character's clips with one small
 * compressed timeline on its first clip: every field set to what the
 * format does not allow (the checksum made right), and the section cut
 * short at every byte, refused with a sentence naming the section and the
 * place; a large one loads within the memory limit its declared sizes
 * give. */
static void test_timelines(const sinew_asset *demo)
{
    sinew_error err;
    static const float times[4] = {0.0f, 0.1f, 0.2f, 0.3f}, values[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    sinew_user_track track = {.name = "t", .components = 1, .key_count = 4, .times = times, .values = values,
                              .tolerance = 0.01f};
    sinew_event event = {"e", 0.1f};
    sinew_timeline *plain = sinew_timeline_create(&(sinew_timeline_desc){0.0f, 1, &track, 1, &event}, NULL, &err);
    sinew_timeline *small = plain ? sinew_timeline_compress(plain, NULL, NULL, &err) : NULL;
    CHECK(small != NULL, "the small timeline: %s", err.description);
    if (!small) {
        sinew_timeline_free(plain);
        return;
    }
    const sinew_timeline *list[2] = {small, NULL};
    sinew_asset with = *demo;
    with.timelines = list;
    memory m = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
    size_t entry = entry_of(&m, SINEW__SECTION_TIMELINES);
    uint64_t at = 0, size = 0;
    if (entry) memcpy(&at, m.bytes + entry + 8, 8), memcpy(&size, m.bytes + entry + 16, 8);
    /* clip 0, duration, compressed, one track "t" of 1 component and 4
     * keys, no held keys, a grid of 7 bits, then one event "e" */
    CHECK(entry && size == 75 && m.bytes[at + 12] == 1 && m.bytes[at + 49] == 7,
          "the timelines section as laid out: %llu bytes, bits %u", (unsigned long long)size,
          entry ? m.bytes[at + 49] : 0);
    if (!entry || size != 75) goto done;
    CHECK(load_changed(&m, 0, 0, 0, false, &err) == SINEW_OK, "it loads: %s", err.description);
    static const struct {
        size_t at;
        uint64_t value;
        int width;
        sinew_result result;
        const char *says;
    } cases[] = {
        {0, 3, 4, SINEW_ERROR_PARSE, ": the timeline count 3 is out of range"},
        {0, 0, 4, SINEW_ERROR_PARSE, "the timeline count 0 is out of range"},
        {4, 5, 4, SINEW_ERROR_PARSE, "timeline 0 is of clip 5: not after clip -1, or not below the 2 clips"},
        {12, 2, 1, SINEW_ERROR_PARSE, "clip 0's timeline: a flag is 2, not 0 or 1"},
        {13, 0x7fffffff, 4, SINEW_ERROR_TRUNCATED,
         "clip 0's timeline: the user track count 2147483647 needs more bytes than the frame holds"},
        {17, 1000, 4, SINEW_ERROR_TRUNCATED, "clip 0's timeline: a name of 1000 bytes ends early"},
        {21, 0, 1, SINEW_ERROR_PARSE, "clip 0's timeline: a name holds a NUL byte"},
        {22, 5, 1, SINEW_ERROR_PARSE, "clip 0's timeline: user track 0: 5 components (1 .. 4)"},
        {23, 1, 1, SINEW_ERROR_INVALID_ARGUMENT, "clip 0's timeline: user track 0: 1 components (1 .. 4, 4 for a "
                                                 "quaternion)"},
        {28, 1000000, 4, SINEW_ERROR_TRUNCATED,
         "clip 0's timeline: user track 0's key count 1000000 needs more bytes than the frame holds"},
        {28, 0, 4, SINEW_ERROR_PARSE, "user track 0's key count 0 is out of range"},
        {36, 0x7fc00000, 4, SINEW_ERROR_NOT_FINITE, "clip 0's timeline: user track 0 key 1: time is not finite"},
        {36, 0, 4, SINEW_ERROR_KEYS_NOT_INCREASING, "user track 0 key 1: time 0 is negative or not after"},
        {48, 1, 1, SINEW_ERROR_TRUNCATED, ": clip 0's timeline: the event count"},
        {49, 17, 1, SINEW_ERROR_PARSE, "clip 0's timeline: user track 0, component 0: 17 bits (0 .. 16, or 32 for "
                                      "floats)"},
        {49, 255, 1, SINEW_ERROR_PARSE, "user track 0, component 0: 255 bits"},
        {50, 0x7fc00000, 4, SINEW_ERROR_NOT_FINITE, "user track 0, component 0: grid minimum nan and step"},
        {54, 0, 4, SINEW_ERROR_PARSE, "user track 0, component 0: grid minimum 0 and step 0 (finite, the step "
                                      "above 0)"},
        /* q of 7 bits lies below 2^7 by its width: the largest, 127, past a float's range */
        {54, 0x7e967699 /* 1e38 */, 4, SINEW_ERROR_NOT_FINITE, "user track 0, component 0, key 1: 0 + 127 x 1e+38 "
                                                              "is not finite"},
        {61, 0xff, 1, SINEW_ERROR_PARSE, "user track 0: the bits past its grid integers are not zero"},
        {62, 0, 4, SINEW_ERROR_PARSE, ": 9 bytes follow the timelines"},
        {62, 2, 4, SINEW_ERROR_TRUNCATED, "clip 0's timeline: the event count 2 needs more bytes"},
        {71, 0xff800000, 4, SINEW_ERROR_INVALID_ARGUMENT, "event 0 (\"e\"): time -inf is negative or not finite"},
        {8, 0x3d4ccccd /* 0.05 */, 4, SINEW_ERROR_INVALID_ARGUMENT, "duration 0.05 is shorter than a key or event"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        sinew_result r = load_changed(&m, (size_t)at + cases[i].at, cases[i].value, cases[i].width, true, &err);
        CHECK(r == cases[i].result, "timelines byte %zu set to 0x%llx: %s, not %s (%s)", cases[i].at,
              (unsigned long long)cases[i].value, sinew_result_name(r), sinew_result_name(cases[i].result),
              err.description);
        CHECK_ERROR(err, cases[i].result, cases[i].says);
    }
    /* held keys' flags past the last key */
    {
        unsigned char *copy = malloc(m.size);
        memcpy(copy, m.bytes, m.size);
        copy[at + 48] = 1, copy[at + 49] = 0xf0; /* the flags' byte where the bits were: keys 4 .. 7 held */
        sinew__archive_seal(copy, m.size);
        sinew_asset *a = sinew_archive_load(copy, m.size, NULL, &err);
        CHECK(a == NULL, "held flags past the last key refused");
        CHECK_ERROR(err, SINEW_ERROR_PARSE, "user track 0: the bits past its step flags are not zero");
        sinew_asset_free(a);
        free(copy);
    }
    /* the kind's flags, its place, and a 2.1 archive */
    CHECK(load_changed(&m, entry + 4, 1, 4, true, &err) == SINEW_ERROR_PARSE, "timelines required refused");
    char needle[120];
    snprintf(needle, sizeof needle, "(timelines), table entry at byte %zu: flags 0x1, where the format gives this "
             "kind 0x0", entry + 4);
    CHECK_ERROR(err, SINEW_ERROR_PARSE, needle);
    CHECK(load_changed(&m, 10, 1, 2, true, &err) == SINEW_ERROR_PARSE, "timelines in 2.1 refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "section 4 (timelines) in a 2.1 archive, which has none");
    CHECK(load_changed(&m, entry - 32, SINEW__SECTION_TIMELINES, 4, true, &err) == SINEW_ERROR_PARSE,
          "a clip after the timelines refused");
    /* cut short at every byte: the size in the table, the archive as it is */
    int refused = 0;
    snprintf(needle, sizeof needle, "section 4 (timelines) at byte %llu: ", (unsigned long long)at);
    for (uint64_t cut = 0; cut < size; ++cut) {
        sinew_result r = load_changed(&m, entry + 16, cut, 8, true, &err);
        refused += r != SINEW_OK && strstr(err.description, needle) != NULL;
    }
    CHECK(refused == (int)size, "the section cut short at each of its %llu bytes refused naming it: %d",
          (unsigned long long)size, refused);

    /* a large one: within the limit its declared sizes give, a few times its peak */
    enum { KEYS = 30000 };
    float *t = malloc(sizeof(float) * KEYS), *v = malloc(sizeof(float) * 4 * KEYS);
    for (int k = 0; k < KEYS; ++k) {
        t[k] = (float)k * 0.01f;
        for (int c = 0; c < 4; ++c) v[4 * k + c] = (float)((k * (c + 3)) % 11);
    }
    sinew_user_track big[4];
    for (int i = 0; i < 4; ++i)
        big[i] = (sinew_user_track){.name = "big", .components = 4 - i, .key_count = KEYS, .times = t, .values = v,
                                    .tolerance = 0.5f};
    sinew_timeline *large = sinew_timeline_create(&(sinew_timeline_desc){0.0f, 4, big, 0, NULL}, NULL, &err);
    sinew_timeline *packed = large ? sinew_timeline_compress(large, NULL, NULL, &err) : NULL;
    CHECK(packed != NULL, "the large timeline: %s", err.description);
    for (int z = 0; packed && z < 2; ++z) {
        list[0] = z ? packed : large;
        memory lm = write_asset(&with, &(sinew_archive_write_options){.clips_only = true});
        unsigned char *aligned = aligned_copy(&lm);
        for (int view = 0; view < 2; ++view) {
            size_t peak = 0;
            sinew_error no = {0};
            size_t limit = smallest_limit(&lm, aligned, view, &peak, &no);
            printf("  timelines of %d keys%s (%zu bytes, %s): loads under a limit of %.2f MiB, its peak %.2f MiB\n",
                   4 * KEYS, z ? ", compressed" : "", lm.size, view ? "viewed" : "copied", limit / 1048576.0,
                   peak / 1048576.0);
            CHECK(peak > 0 && peak <= limit && limit <= 8 * peak + (1 << 20),
                  "timelines: the peak %zu within the limit it loads under, %zu, and that a bound", peak, limit);
            CHECK_ERROR(no, SINEW_ERROR_OUT_OF_MEMORY, "(timelines) at byte");
        }
        aligned_free(aligned);
        free(lm.bytes);
    }
    sinew_timeline_free(large), sinew_timeline_free(packed);
    free(t), free(v);
done:
    free(m.bytes);
    sinew_timeline_free(plain), sinew_timeline_free(small);
}

int main(void)
{
    sinew_error err;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "the built-in character: %s", err.description);
    if (!demo) return check_finish("test_archive_strict");
    test_fields(demo);
    test_header_checksum(demo);
    test_large_packed(demo);
    test_budget(demo);
    test_timelines(demo);
    sinew_asset_free(demo);
    return check_finish("test_archive_strict");
}
