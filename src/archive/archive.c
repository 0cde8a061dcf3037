/* SPDX-License-Identifier: MIT */
/* The .sinew archive (docs/ARCHIVE.md): a header, a table of sections, and
 * the sections, each an asset codec payload (src/asset/codec.c) on a
 * 64-byte boundary. Writing is deterministic; loading checks the header,
 * the checksum and the table, then decodes each section through the
 * codec, which checks what it reads and rebuilds the objects through their
 * create functions. */
#include "archive/archive_internal.h"

#include <stdio.h>
#include <stdlib.h>

enum {
    HEADER_BYTES = 64,
    ENTRY_BYTES = 32,
    SECTION_ALIGN = 64,
    REQUIRED = 1, /* a section flag: a reader that does not know the kind must refuse the archive */
    CLIPS_ONLY = 1 /* an asset section flag */
};

static const unsigned char magic[8] = {0x89, 'S', 'I', 'N', 'E', 'W', '\r', '\n'};

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case SINEW__SECTION_ASSET: return "asset";
    case SINEW__SECTION_SKELETON: return "skeleton";
    case SINEW__SECTION_CLIP: return "clip";
    case SINEW__SECTION_MESH: return "mesh";
    case SINEW__SECTION_SKIN_BLOCKS: return "skin blocks";
    case SINEW__SECTION_PACKED_CLIP: return "packed clip";
    case SINEW__SECTION_COMPRESSED_CLIP: return "compressed clip";
    case SINEW__SECTION_SPRINGS: return "springs";
    case SINEW__SECTION_TIMELINES: return "timelines";
    default: return "unknown";
    }
}

static bool little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

static void put_u16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void put_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }
static uint16_t get_u16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The first minor version of major 2 whose checksum covers the header. */
enum { HEADER_HASHED_MINOR = 2 };

uint64_t sinew__archive_checksum(const unsigned char *bytes, size_t size)
{
    unsigned major = get_u16(bytes + 8), minor = get_u16(bytes + 10);
    if (major == 1) return sinew__xxh64(bytes + HEADER_BYTES, size - HEADER_BYTES, 0);
    uint64_t payload = sinew__xxh3(bytes + HEADER_BYTES, size - HEADER_BYTES);
    if (major == 2 && minor < HEADER_HASHED_MINOR) return payload;
    /* the header, its checksum field zero, then the payload's hash: a
     * 72-byte input, so that the payload is read once and nothing is
     * copied but the header */
    unsigned char tail[HEADER_BYTES + 8];
    memcpy(tail, bytes, HEADER_BYTES);
    memset(tail + 24, 0, 8);
    put_u64(tail + HEADER_BYTES, payload);
    return sinew__xxh3(tail, sizeof tail);
}

void sinew__archive_seal(unsigned char *bytes, size_t size)
{
    put_u64(bytes + 24, sinew__archive_checksum(bytes, size));
}

/* The kinds a reader may skip: written without REQUIRED. */
static bool optional_kind(uint32_t kind)
{
    return kind == SINEW__SECTION_SKIN_BLOCKS || kind == SINEW__SECTION_SPRINGS || kind == SINEW__SECTION_TIMELINES;
}

bool sinew_archive_is(const void *data, size_t size)
{
    return data && size >= sizeof magic && memcmp(data, magic, sizeof magic) == 0;
}

/* ---- writing ------------------------------------------------------------------ */

typedef struct section {
    uint32_t kind;
    sinew__bytes payload;
} section;

sinew_result sinew_archive_write(const sinew_asset *asset, const sinew_archive_write_options *options,
                                 sinew_archive_writer writer, void *user, sinew_error *err)
{
    static const char who[] = "sinew_archive_write";
    if (!asset || !asset->skeleton || !writer)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: an asset and a writer are required", who);
    if (!little_endian())
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "%s: archives are little-endian; this host is not", who);
    static const sinew_archive_write_options defaults;
    if (!options) options = &defaults;
    bool meshes = !options->clips_only && !options->no_meshes;
    int prepared = 0;
    for (int m = 0; meshes && options->skin_blocks && m < asset->mesh_count; ++m)
        prepared += asset->meshes[m].skin != NULL;
    /* spring bones belong to the character, which a clips-only archive leaves out */
    bool springs = asset->springs && !options->clips_only;
    /* timelines belong to the clips: a clips-only archive keeps them */
    bool timelines = false;
    for (int c = 0; asset->timelines && c < asset->clip_count; ++c) timelines = timelines || asset->timelines[c];
    int count = 2 + asset->clip_count + (meshes ? asset->mesh_count : 0) + prepared + springs + timelines;
    section *sections = calloc((size_t)count, sizeof *sections);
    if (!sections) return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
    sections[0].kind = SINEW__SECTION_ASSET;
    sinew__bytes *b = &sections[0].payload;
    uint32_t name_length = (uint32_t)strlen(asset->name);
    sinew__bytes_u32(b, name_length);
    sinew__bytes_put(b, asset->name, name_length);
    sinew__bytes_u32(b, options->clips_only ? CLIPS_ONLY : 0);
    sections[1].kind = SINEW__SECTION_SKELETON;
    sinew__encode_skeleton(&sections[1].payload, asset);
    int n = 2;
    for (int c = 0; c < asset->clip_count; ++c, ++n) {
        const sinew_clip *clip = asset->clips[c];
        if (clip->packed) {
            sections[n].kind = SINEW__SECTION_PACKED_CLIP;
            sinew__encode_packed_clip(&sections[n].payload, clip);
        } else if (clip->compressed) {
            sections[n].kind = SINEW__SECTION_COMPRESSED_CLIP;
            sinew__encode_compressed_clip(&sections[n].payload, clip);
        } else {
            sections[n].kind = SINEW__SECTION_CLIP;
            sinew__encode_clip(&sections[n].payload, clip);
        }
    }
    for (int m = 0; meshes && m < asset->mesh_count; ++m, ++n) {
        sections[n].kind = SINEW__SECTION_MESH;
        sinew__encode_mesh(&sections[n].payload, &asset->meshes[m]);
        if (options->skin_blocks && asset->meshes[m].skin) {
            ++n;
            sections[n].kind = SINEW__SECTION_SKIN_BLOCKS;
            sinew__encode_skin_blocks(&sections[n].payload, asset->meshes[m].skin);
        }
    }
    if (springs) {
        sections[n].kind = SINEW__SECTION_SPRINGS;
        sinew__encode_springs(&sections[n].payload, asset);
        ++n;
    }
    if (timelines) {
        sections[n].kind = SINEW__SECTION_TIMELINES;
        sinew__encode_timelines(&sections[n].payload, asset);
        ++n;
    }
    /* the layout: header, table, then each section on a 64-byte boundary */
    size_t at = HEADER_BYTES + (size_t)count * ENTRY_BYTES;
    bool failed = false;
    for (int i = 0; i < count; ++i) {
        failed = failed || sections[i].payload.failed || sections[i].payload.size > SIZE_MAX / 4;
        at = (at + SECTION_ALIGN - 1) / SECTION_ALIGN * SECTION_ALIGN + sections[i].payload.size;
    }
    size_t total = at;
    unsigned char *bytes = failed ? NULL : calloc(1, total);
    sinew_result r = SINEW_OK;
    if (!bytes) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
    } else {
        memcpy(bytes, magic, sizeof magic);
        put_u16(bytes + 8, SINEW_ARCHIVE_MAJOR);
        put_u16(bytes + 10, SINEW_ARCHIVE_MINOR);
        put_u32(bytes + 12, HEADER_BYTES);
        put_u64(bytes + 16, total);
        put_u64(bytes + 32, HEADER_BYTES);
        put_u32(bytes + 40, (uint32_t)count);
        at = HEADER_BYTES + (size_t)count * ENTRY_BYTES;
        for (int i = 0; i < count; ++i) {
            at = (at + SECTION_ALIGN - 1) / SECTION_ALIGN * SECTION_ALIGN;
            unsigned char *e = bytes + HEADER_BYTES + (size_t)i * ENTRY_BYTES;
            put_u32(e, sections[i].kind);
            /* the blocks are a shortcut: a reader without them builds its
             * own; a reader without springs poses the character unmoved by
             * them, one without timelines plays the clips without them */
            put_u32(e + 4, optional_kind(sections[i].kind) ? 0 : REQUIRED);
            put_u64(e + 8, at);
            put_u64(e + 16, sections[i].payload.size);
            if (sections[i].payload.size) memcpy(bytes + at, sections[i].payload.bytes, sections[i].payload.size);
            at += sections[i].payload.size;
        }
        sinew__archive_seal(bytes, total);
        if (!writer(user, bytes, total)) r = sinew__fail(err, SINEW_ERROR_IO, "%s: the writer stopped", who);
    }
    for (int i = 0; i < count; ++i) free(sections[i].payload.bytes);
    free(sections);
    free(bytes);
    if (r == SINEW_OK) sinew__ok(err);
    return r;
}

static bool write_to_file(void *user, const void *bytes, size_t size)
{
    return fwrite(bytes, 1, size, user) == size;
}

sinew_result sinew_archive_save(const sinew_asset *asset, const char *path,
                                 const sinew_archive_write_options *options, sinew_error *err)
{
    if (!path) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_archive_save: a path is required");
    FILE *f = fopen(path, "wb");
    if (!f) return sinew__fail(err, SINEW_ERROR_IO, "sinew_archive_save: %s: %s", path, strerror(errno));
    sinew_result r = sinew_archive_write(asset, options, write_to_file, f, err);
    if (fclose(f) != 0 && r == SINEW_OK)
        r = sinew__fail(err, SINEW_ERROR_IO, "sinew_archive_save: %s: %s", path, strerror(errno));
    if (r != SINEW_OK) {
        remove(path);
        sinew__error_lead(err, "sinew_archive_save");
    }
    return r;
}

/* ---- loading ------------------------------------------------------------------ */

sinew_result sinew__archive_read(const unsigned char *bytes, size_t size, const char *name, bool view,
                                 const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    if (!sinew_archive_is(bytes, size))
        return sinew__fail(err, SINEW_ERROR_PARSE, "%s: not a sinew archive (no magic number)", name);
    if (size < HEADER_BYTES)
        return sinew__fail(err, SINEW_ERROR_TRUNCATED, "%s: %zu bytes, shorter than the header", name, size);
    if (!little_endian())
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "%s: archives are little-endian; this host is not", name);
    unsigned major = get_u16(bytes + 8), minor = get_u16(bytes + 10);
    if (major < 1 || major > SINEW_ARCHIVE_MAJOR)
        return sinew__fail(err, SINEW_ERROR_PARSE, "%s: format version %u.%u, this library reads 1.x to %d.x", name,
                           major, minor, SINEW_ARCHIVE_MAJOR);
    /* a minor version adds what an older reader would misread (a checksum
     * over more bytes, kinds it would skip): refused, as the major */
    unsigned newest_minor = major == SINEW_ARCHIVE_MAJOR ? SINEW_ARCHIVE_MINOR : 0;
    if (minor > newest_minor)
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                           "%s: header at byte 10: format version %u.%u, newer than this library's %u.%u", name,
                           major, minor, major, newest_minor);
    /* 1.x packs its arrays: it is read by copying */
    sinew__codec codec = {major == 1 ? 1 : 2, view && major >= 2};
    if (view && major == 1)
        sinew__warn(options, "%s: format %u.%u is copied, not viewed where it lies: convert it again to view it",
                    name, major, minor);
    /* a view's arrays sit on their boundaries only where the archive does */
    if (codec.view && (uintptr_t)bytes % SECTION_ALIGN)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: the data must start on a %d-byte boundary; it "
                           "starts %u bytes past one", name, SECTION_ALIGN,
                           (unsigned)((uintptr_t)bytes % SECTION_ALIGN));
    uint64_t header = get_u32(bytes + 12), total = get_u64(bytes + 16), table = get_u64(bytes + 32);
    uint32_t count = get_u32(bytes + 40), flags = get_u32(bytes + 44);
    if (header != HEADER_BYTES || flags != 0)
        return sinew__fail(err, SINEW_ERROR_PARSE, "%s: header at byte 12: size %llu or flags 0x%x unknown", name,
                           (unsigned long long)header, flags);
    for (int at = 48; at < HEADER_BYTES; ++at)
        if (bytes[at])
            return sinew__fail(err, SINEW_ERROR_PARSE, "%s: header at byte %d: 0x%02x where the format has zeros",
                               name, at, bytes[at]);
    if (total != size)
        return sinew__fail(err, total > size ? SINEW_ERROR_TRUNCATED : SINEW_ERROR_PARSE,
                           "%s: header at byte 16: %llu bytes declared, %zu given", name,
                           (unsigned long long)total, size);
    if (sinew__archive_checksum(bytes, size) != get_u64(bytes + 24))
        return sinew__fail(err, SINEW_ERROR_PARSE, "%s: header at byte 24: the checksum does not match the payload",
                           name);
    if (table < HEADER_BYTES || table % 8 || table > size || count > (size - table) / ENTRY_BYTES)
        return sinew__fail(err, SINEW_ERROR_OUT_OF_BOUNDS,
                           "%s: header at byte 32: a table of %u sections at byte %llu is outside the archive", name,
                           count, (unsigned long long)table);
    /* the table: sections in order, apart, within the archive */
    uint64_t end = table + (uint64_t)count * ENTRY_BYTES;
    int clips = 0, meshes = 0, assets = 0, skeletons = 0, springs = 0, timelines = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const unsigned char *e = bytes + table + (size_t)i * ENTRY_BYTES;
        uint32_t kind = get_u32(e), sflags = get_u32(e + 4);
        uint64_t offset = get_u64(e + 8), length = get_u64(e + 16);
        if (offset % SECTION_ALIGN || offset < end || offset > size || length > size - offset)
            return sinew__fail(err, SINEW_ERROR_OUT_OF_BOUNDS,
                               "%s: section %u (%s) at byte %llu, %llu bytes: not on a 64-byte boundary after the "
                               "last, or past the end", name, i, kind_name(kind), (unsigned long long)offset,
                               (unsigned long long)length);
        end = offset + length;
        uint64_t reserved = get_u64(e + 24);
        if (reserved)
            return sinew__fail(err, SINEW_ERROR_PARSE,
                               "%s: section %u (%s), table entry at byte %llu: reserved field 0x%llx, not zero", name,
                               i, kind_name(kind), (unsigned long long)(table + (uint64_t)i * ENTRY_BYTES + 24),
                               (unsigned long long)reserved);
        /* a known kind's flags are the ones the format gives it: REQUIRED,
         * but for the skin blocks, springs and timelines, which a reader
         * may do without */
        uint32_t due = optional_kind(kind) ? 0 : REQUIRED;
        if (kind >= SINEW__SECTION_ASSET && kind <= SINEW__SECTION_TIMELINES && sflags != due)
            return sinew__fail(err, SINEW_ERROR_PARSE,
                               "%s: section %u (%s), table entry at byte %llu: flags 0x%x, where the format gives "
                               "this kind 0x%x", name, i, kind_name(kind),
                               (unsigned long long)(table + (uint64_t)i * ENTRY_BYTES + 4), sflags, due);
        switch (kind) {
        case SINEW__SECTION_ASSET: ++assets; break;
        case SINEW__SECTION_SKELETON: ++skeletons; break;
        case SINEW__SECTION_PACKED_CLIP:
            if (major == 1)
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) in a %u.%u archive, which has none",
                                   name, i, kind_name(kind), major, minor);
            ++clips;
            break;
        case SINEW__SECTION_COMPRESSED_CLIP:
            if (major == 1 || (major == 2 && minor < 1))
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) in a %u.%u archive, which has none",
                                   name, i, kind_name(kind), major, minor);
            ++clips;
            break;
        case SINEW__SECTION_CLIP: ++clips; break;
        case SINEW__SECTION_TIMELINES:
            if (major == 1 || (major == 2 && minor < 2))
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) in a %u.%u archive, which has none",
                                   name, i, kind_name(kind), major, minor);
            if (++timelines > 1)
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s): a second timelines section", name,
                                   i, kind_name(kind));
            break;
        case SINEW__SECTION_SPRINGS:
            if (major == 1 || (major == 2 && minor < 2))
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) in a %u.%u archive, which has none",
                                   name, i, kind_name(kind), major, minor);
            if (++springs > 1)
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s): a second springs section", name, i,
                                   kind_name(kind));
            break;
        case SINEW__SECTION_MESH: ++meshes; break;
        case SINEW__SECTION_SKIN_BLOCKS:
            if (i == 0 || get_u32(e - ENTRY_BYTES) != SINEW__SECTION_MESH)
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) does not follow a mesh section", name,
                                   i, kind_name(kind));
            break;
        default:
            if (sflags & REQUIRED)
                return sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                                   "%s: section %u at byte %llu is of kind %u, which this library does not read",
                                   name, i, (unsigned long long)offset, kind);
        }
        bool clip = kind == SINEW__SECTION_CLIP || kind == SINEW__SECTION_PACKED_CLIP ||
                    kind == SINEW__SECTION_COMPRESSED_CLIP;
        if ((clip || kind == SINEW__SECTION_MESH || kind == SINEW__SECTION_SPRINGS ||
             kind == SINEW__SECTION_TIMELINES) &&
            skeletons != 1)
            return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) comes before the skeleton", name, i,
                               kind_name(kind));
        /* the timelines index the clips: all of them are read before it */
        if (clip && timelines)
            return sinew__fail(err, SINEW_ERROR_PARSE, "%s: section %u (%s) comes after the timelines section", name,
                               i, kind_name(kind));
    }
    if (assets != 1 || skeletons != 1)
        return sinew__fail(err, SINEW_ERROR_PARSE, "%s: %d asset and %d skeleton sections, not one each", name,
                           assets, skeletons);
    /* the memory the load takes at its peak, from each section's declared
     * counts and size, against the load's limit before the section
     * allocates (the archive's own bytes count where the asset holds them) */
    size_t limit = options && options->max_memory ? options->max_memory : SINEW_DEFAULT_MAX_MEMORY;
    size_t peak = sinew__asset_of(asset)->held == bytes ? size : 0;
    /* the lists below, and the timelines' */
    peak += (size_t)count * (2 * sizeof(sinew_clip *) + sizeof(sinew_mesh));
    sinew_clip **clip_list = clips ? sinew__asset_alloc(asset, (size_t)clips, sizeof *clip_list) : NULL;
    sinew_mesh *mesh_list = meshes ? sinew__asset_alloc(asset, (size_t)meshes, sizeof *mesh_list) : NULL;
    if ((clips && !clip_list) || (meshes && !mesh_list))
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    asset->clips = (const sinew_clip *const *)clip_list;
    asset->meshes = mesh_list;
    char where[320];
    for (uint32_t i = 0; i < count; ++i) {
        const unsigned char *e = bytes + table + (size_t)i * ENTRY_BYTES;
        uint32_t kind = get_u32(e);
        uint64_t offset = get_u64(e + 8), length = get_u64(e + 16);
        const unsigned char *p = bytes + offset;
        snprintf(where, sizeof where, "%.200s: section %u (%s) at byte %llu", name, i, kind_name(kind),
                 (unsigned long long)offset);
        int what = kind == SINEW__SECTION_SKELETON         ? SINEW__PAYLOAD_SKELETON
                   : kind == SINEW__SECTION_CLIP            ? SINEW__PAYLOAD_CLIP
                   : kind == SINEW__SECTION_PACKED_CLIP     ? SINEW__PAYLOAD_PACKED_CLIP
                   : kind == SINEW__SECTION_COMPRESSED_CLIP ? SINEW__PAYLOAD_COMPRESSED_CLIP
                   : kind == SINEW__SECTION_MESH            ? SINEW__PAYLOAD_MESH
                   : kind == SINEW__SECTION_SPRINGS         ? SINEW__PAYLOAD_SPRINGS
                   : kind == SINEW__SECTION_TIMELINES       ? SINEW__PAYLOAD_TIMELINES
                                                            : -1;
        /* the asset's name is its size; skin blocks come with their mesh */
        size_t need = kind == SINEW__SECTION_ASSET ? (size_t)length : 0;
        if (what >= 0) {
            bool stored = kind == SINEW__SECTION_MESH && i + 1 < count &&
                          get_u32(e + ENTRY_BYTES) == SINEW__SECTION_SKIN_BLOCKS;
            need = sinew__decode_peak(what, p, (size_t)length, stored ? bytes : NULL,
                                      stored ? (size_t)get_u64(e + ENTRY_BYTES + 16) : 0, codec, asset->skeleton);
        }
        peak = need > SIZE_MAX - peak ? SIZE_MAX : peak + need;
        if (peak > limit)
            return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY,
                               "%s: loading the archive up to it may take %.1f MiB, more than the load's limit of "
                               "%.1f MiB (sinew_options.max_memory)", where, (double)peak / 1048576.0,
                               (double)limit / 1048576.0);
        sinew_result r = SINEW_OK;
        if (kind == SINEW__SECTION_ASSET) {
            uint32_t n = length >= 4 ? get_u32(p) : UINT32_MAX;
            if (n > length - 4 || length - 4 - n != 4 || memchr(p + 4, 0, n))
                return sinew__fail(err, SINEW_ERROR_PARSE, "%s: the asset's name and flags are malformed", where);
            char *asset_name = sinew__asset_alloc(asset, (size_t)n + 1, 1);
            if (!asset_name) return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
            memcpy(asset_name, p + 4, n);
            asset->name = asset_name;
        } else if (kind == SINEW__SECTION_SKELETON) {
            r = sinew__decode_skeleton(p, (size_t)length, codec, where, options, asset, err);
        } else if (kind == SINEW__SECTION_CLIP || kind == SINEW__SECTION_PACKED_CLIP ||
                   kind == SINEW__SECTION_COMPRESSED_CLIP) {
            sinew_clip *c =
                kind == SINEW__SECTION_CLIP ? sinew__decode_clip(p, (size_t)length, codec, where, options, asset, err)
                : kind == SINEW__SECTION_PACKED_CLIP
                    ? sinew__decode_packed_clip(p, (size_t)length, codec, where, options, asset, err)
                    : sinew__decode_compressed_clip(p, (size_t)length, codec, where, options, asset, err);
            if (c)
                clip_list[asset->clip_count++] = c;
            else
                r = err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE;
        } else if (kind == SINEW__SECTION_MESH) {
            /* with its skin's blocks when the next section holds them */
            const unsigned char *blocks = NULL;
            uint64_t blocks_length = 0;
            if (i + 1 < count && get_u32(e + ENTRY_BYTES) == SINEW__SECTION_SKIN_BLOCKS) {
                uint64_t at = get_u64(e + ENTRY_BYTES + 8);
                blocks = bytes + at, blocks_length = get_u64(e + ENTRY_BYTES + 16);
                snprintf(where, sizeof where, "%.200s: section %u (mesh) at byte %llu, its skin's blocks at byte %llu",
                         name, i, (unsigned long long)offset, (unsigned long long)at);
            }
            /* counted before it is read into: sinew_asset_free then frees its skin */
            r = sinew__decode_mesh(p, (size_t)length, blocks, (size_t)blocks_length, codec, where, options, asset,
                                   &mesh_list[asset->mesh_count++], err);
        } else if (kind == SINEW__SECTION_SPRINGS) {
            r = sinew__decode_springs(p, (size_t)length, codec, where, options, asset, err);
        } else if (kind == SINEW__SECTION_TIMELINES) {
            r = sinew__decode_timelines(p, (size_t)length, codec, where, options, asset, err);
        }
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

/* sinew_archive_load and sinew_archive_view: `who` names the function. */
static sinew_asset *load(const void *data, size_t size, bool view, const char *who, const sinew_options *options,
                         sinew_error *err)
{
    sinew_error local;
    if (!err) err = &local;
    sinew__ok(err);
    if (!data) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: no data", who);
        return NULL;
    }
    sinew_asset *asset = sinew__asset_new("", options);
    if (!asset) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
        return NULL;
    }
    if (sinew__archive_read(data, size, who, view, options, asset, err) != SINEW_OK) {
        sinew_asset_free(asset);
        return NULL;
    }
    return asset;
}

sinew_asset *sinew_archive_load(const void *data, size_t size, const sinew_options *options, sinew_error *err)
{
    return load(data, size, false, "sinew_archive_load", options, err);
}

sinew_asset *sinew_archive_view(const void *data, size_t size, const sinew_options *options, sinew_error *err)
{
    return load(data, size, true, "sinew_archive_view", options, err);
}

/* The file's bytes on a cache line, through the caller's allocator. */
static void *alloc_aligned(void *user, size_t size) { return sinew__alloc_aligned(user, size); }
static void free_aligned(void *user, void *ptr) { sinew__free_aligned(user, ptr); }

sinew_asset *sinew_archive_load_file(const char *path, const sinew_options *options, sinew_error *err)
{
    sinew_error local;
    if (!err) err = &local;
    sinew__ok(err);
    if (!path) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_archive_load_file: no path");
        return NULL;
    }
    sinew_allocator alloc = sinew__allocator(options), aligned = {alloc_aligned, free_aligned, &alloc};
    size_t size = 0;
    sinew_error why;
    size_t limit = options && options->max_memory ? options->max_memory : SINEW_DEFAULT_MAX_MEMORY;
    uint8_t *data = sinew__read_file(path, &aligned, SIZE_MAX, limit, &size, &why);
    if (!data) {
        sinew__fail(err, why.result, "sinew_archive_load_file: %s: cannot read: %s", path, why.description);
        return NULL;
    }
    sinew_asset *asset = sinew__asset_new("", options);
    char name[300];
    snprintf(name, sizeof name, "sinew_archive_load_file: %.250s", path);
    if (!asset) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
        sinew__free_aligned(&alloc, data);
        return NULL;
    }
    /* the asset views the bytes it holds (a 1.x archive is copied: its
     * bytes go once read) */
    bool copied = size >= HEADER_BYTES && get_u16(data + 8) == 1;
    if (!copied) sinew__asset_of(asset)->held = data;
    if (sinew__archive_read(data, size, name, true, options, asset, err) != SINEW_OK) {
        sinew_asset_free(asset);
        asset = NULL;
    }
    if (copied) sinew__free_aligned(&alloc, data);
    return asset;
}
