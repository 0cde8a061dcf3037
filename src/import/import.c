/* SPDX-License-Identifier: MIT */
/* sinew_load_file and sinew_load_memory: the format by content (glTF to
 * sinew's own reader, everything else to Assimp), one memory budget per
 * load, errors prefixed with the function's name and the file. */
#include "import_internal.h"
#include "archive/archive_internal.h"

#include <ctype.h>
#include <stdio.h>

/* "file: message". A long path gives way to its last component so that the
 * message, which names the place in the file, is not cut off. */
static void prefix_error(sinew_error *err, const char *prefix)
{
    if (!err || !prefix || !*prefix) return;
    if (strlen(prefix) > 96) {
        const char *slash = strrchr(prefix, '/');
        if (slash) prefix = slash + 1;
    }
    size_t cap = sizeof err->description, plen = strlen(prefix) + 2;
    if (plen >= cap / 2) return;
    size_t dlen = 0;
    while (dlen < cap - 1 && err->description[dlen]) ++dlen;
    if (plen + dlen > cap - 1) dlen = cap - 1 - plen;
    memmove(err->description + plen, err->description, dlen);
    memcpy(err->description, prefix, plen - 2);
    err->description[plen - 2] = ':';
    err->description[plen - 1] = ' ';
    err->description[plen + dlen] = '\0';
}

/* Every allocation of one load passes through here and counts against
 * the load's limit; the pointers are the real allocator's own. */
typedef struct budget {
    sinew_allocator real;
    size_t used, limit;
    bool exceeded;
} budget;

static void *budget_alloc(void *user, size_t size)
{
    budget *b = user;
    if (size > b->limit - b->used) {
        b->exceeded = true;
        return NULL;
    }
    void *p = sinew__alloc(&b->real, size);
    if (p) b->used += size;
    return p;
}

static void budget_free(void *user, void *ptr)
{
    budget *b = user;
    sinew__free(&b->real, ptr);
}

bool sinew__import_charge(const sinew_allocator *alloc, size_t bytes)
{
    if (!alloc || alloc->alloc != budget_alloc) return true;
    budget *b = alloc->user;
    if (bytes > b->limit - b->used) return false;
    b->used += bytes;
    return true;
}

size_t sinew__import_left(const sinew_allocator *alloc)
{
    if (!alloc || alloc->alloc != budget_alloc) return SIZE_MAX;
    const budget *b = alloc->user;
    return b->limit - b->used;
}

size_t sinew__import_limit(const sinew_allocator *alloc)
{
    return alloc && alloc->alloc == budget_alloc ? ((const budget *)alloc->user)->limit : SIZE_MAX;
}

void *sinew__import_alloc(const sinew_allocator *alloc, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    void *p = sinew__alloc(alloc, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

/* glTF: a GLB header, or JSON (an object or, to be told it is not one, an
 * array; after white space or a BOM). */
static bool is_gltf(const uint8_t *d, size_t size)
{
    if (size >= 4 && memcmp(d, "glTF", 4) == 0) return true;
    size_t i = size >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF ? 3 : 0;
    while (i < size && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n')) ++i;
    return i < size && (d[i] == '{' || d[i] == '[');
}

/* The asset's name for a file at `path`: its name without folders, so that
 * what is made of it (an archive) holds the same bytes wherever the file
 * lies and however it was reached; errors still name the path as given. */
static const char *file_name(const char *path)
{
    const char *name = path;
    for (const char *c = path; *c; ++c)
#ifdef _WIN32
        if (*c == '/' || *c == '\\' || *c == ':') name = c + 1;
#else
        if (*c == '/') name = c + 1;
#endif
    return name;
}

/* A file named .gltf or .glb that is neither JSON nor binary glTF is a
 * broken glTF file, not one for Assimp to guess at: says so, with its
 * first bytes. False for other names. */
static bool gltf_named_but_not(const uint8_t *d, size_t size, const char *path, sinew_error *err)
{
    const char *name = path ? file_name(path) : "", *dot = strrchr(name, '.');
    if (!dot) return false;
    char ext[6] = {0};
    for (int i = 0; i < 5 && dot[i]; ++i) ext[i] = (char)tolower((unsigned char)dot[i]);
    if (strcmp(ext, ".gltf") != 0 && strcmp(ext, ".glb") != 0) return false;
    char start[48];
    int k = 0;
    for (size_t c = 0; c < size && c < 12; ++c)
        k += snprintf(start + k, sizeof start - (size_t)k, "%s%02x", c ? " " : "", d[c]);
    sinew__fail(err, SINEW_ERROR_PARSE, "not glTF: a %s file %s, and this one starts with bytes %s%s", ext,
                ext[3] == 'b' ? "starts with \"glTF\" (binary glTF) or holds JSON"
                              : "holds JSON (or is binary glTF, starting with \"glTF\")",
                start, size > 12 ? " ..." : "");
    return true;
}

static sinew_asset *load(const void *data, size_t size, bool owned, const char *path, const char *base_dir,
                         const char *name, const char *who, const sinew_load_options *caller, sinew_gltf_work *work,
                         sinew_error *err)
{
    static const sinew_load_options defaults;
    if (!caller) caller = &defaults;
    sinew_error local;
    if (!err) err = &local;
    sinew__ok(err);
    size_t limit = caller->base.max_memory ? caller->base.max_memory : SINEW_DEFAULT_MAX_MEMORY;
    budget bud = {sinew__allocator(&caller->base), 0, limit, false};
    sinew_load_options counted = *caller;
    counted.base.allocator = (sinew_allocator){budget_alloc, budget_free, &bud};
    sinew_result r;
    sinew_asset *asset = sinew__asset_new(file_name(name), &counted.base);
    if (!asset) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    } else if (!data) {
        r = sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "no data");
    } else if (size == 0) { /* Assimp asserts on an empty buffer */
        r = sinew__fail(err, SINEW_ERROR_TRUNCATED, "the file is empty");
    } else if (sinew_archive_is(data, size)) {
        /* the archive's own sentences name the section: the file's name and
         * the function's are added below, as for any load */
        r = sinew__archive_read(data, size, "archive", false, &counted.base, asset, err);
    } else if (is_gltf(data, size)) {
        r = sinew__gltf_load(data, size, owned, base_dir, &counted, asset, work, err);
        owned = false; /* the document freed it */
    } else if (gltf_named_but_not(data, size, path, err)) {
        r = err->result;
    } else {
        r = sinew__assimp_load(data, size, path, &counted, asset, err);
    }
    if (r == SINEW_OK && caller->order_vertices_for_skinning)
        r = sinew__import_order_vertices(asset, &counted.base, err);
    if (owned) sinew__free(&bud.real, (void *)data);
    if (r != SINEW_OK) {
        sinew_asset_free(asset);
        if (bud.exceeded && r == SINEW_ERROR_OUT_OF_MEMORY) {
            size_t used = strlen(err->description);
            snprintf(err->description + used, sizeof err->description - used,
                     " (the load's limit of %zu MiB is reached: see sinew_options.max_memory)", limit >> 20);
        }
        prefix_error(err, name);
        prefix_error(err, who);
        return NULL;
    }
    sinew__asset_set_allocator(asset, bud.real);
    return asset;
}

sinew_asset *sinew_load_memory(const void *data, size_t size, const char *base_dir, const sinew_load_options *options,
                               sinew_error *err)
{
    return load(data, size, false, NULL, base_dir, "", "sinew_load_memory", options, NULL, err);
}

sinew_asset *sinew__gltf_load_counted(const void *data, size_t size, const sinew_load_options *options,
                                      sinew_gltf_work *work, sinew_error *err)
{
    return load(data, size, false, NULL, NULL, "", "sinew_load_memory", options, work, err);
}

sinew_asset *sinew_load_file(const char *path, const sinew_load_options *options, sinew_error *err)
{
    if (!path) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_load_file: no path");
        return NULL;
    }
    static const sinew_load_options defaults;
    sinew_allocator alloc = sinew__allocator(options ? &options->base : &defaults.base);
    /* the file must fit the load's limit */
    size_t max_size = options && options->base.max_memory ? options->base.max_memory : SINEW_DEFAULT_MAX_MEMORY;
    size_t size = 0;
    uint8_t *data = sinew__read_file(path, &alloc, SIZE_MAX, max_size, &size, err);
    if (!data) {
        prefix_error(err, "cannot read");
        prefix_error(err, path);
        prefix_error(err, "sinew_load_file");
        return NULL;
    }
    /* the folder of the file resolves its relative URIs */
    size_t len = strlen(path);
    char *dir = sinew__alloc(&alloc, len + 2);
    if (!dir) {
        sinew__free(&alloc, data);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_load_file: %s: out of memory", path);
        return NULL;
    }
    memcpy(dir, path, len + 1);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    sinew_asset *a = load(data, size, true, path, dir, path, "sinew_load_file", options, NULL, err);
    sinew__free(&alloc, dir);
    return a;
}

#ifndef SINEW_HAVE_ASSIMP
sinew_result sinew__assimp_load(const void *data, size_t size, const char *path, const sinew_load_options *options,
                                sinew_asset *asset, sinew_error *err)
{
    (void)data, (void)size, (void)path, (void)options, (void)asset;
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                       "not glTF; FBX, Collada, BVH, OBJ and the other formats need Assimp: "
                       "apt-get install libassimp-dev and rebuild sinew");
}
#endif
