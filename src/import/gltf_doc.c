/* SPDX-License-Identifier: MIT */
/* The glTF document layer: GLB container, JSON, buffers (GLB BIN, data:
 * URIs, external files), buffer views and accessors, each bound checked
 * before anything is read through it. */
#include "gltf_doc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SINEW_HAVE_MESHOPT
#include <meshoptimizer.h>
#endif

#define FAIL(doc, result, ...) sinew__fail((doc)->err, (result), __VA_ARGS__)

/* ---- JSON helpers --------------------------------------------------------- */

const cJSON *gltf_member(gltf_doc *doc, const cJSON *obj, const char *key)
{
    if (!cJSON_IsObject(obj)) return NULL;
    const cJSON *m;
    GLTF_EACH(doc, m, obj)
    {
        if (m->string && strcmp(m->string, key) == 0) return m;
    }
    return NULL;
}

static void *doc_alloc(gltf_doc *doc, size_t count, size_t size);

const cJSON **gltf_table(gltf_doc *doc, const cJSON *list, int count, const char *path)
{
    const cJSON **t = doc_alloc(doc, (size_t)count + 1, sizeof *t);
    if (!t) {
        FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        return NULL;
    }
    int i = 0;
    const cJSON *e;
    GLTF_EACH(doc, e, list)
    {
        if (i == count) break;
        t[i++] = e;
    }
    return t;
}

/* Elements of an array, counted in one walk. */
static int array_size(gltf_doc *doc, const cJSON *a)
{
    int n = 0;
    const cJSON *e;
    GLTF_EACH(doc, e, a)
    {
        if (n == INT_MAX) break;
        ++n;
    }
    return n;
}

sinew_result gltf_array(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, const cJSON **out,
                        int *count)
{
    const cJSON *a = obj ? gltf_member(doc, obj, key) : NULL;
    *out = NULL;
    *count = 0;
    if (!a) return SINEW_OK;
    if (!cJSON_IsArray(a)) return FAIL(doc, SINEW_ERROR_PARSE, "%s%s%s: not an array", path, *path ? "." : "", key);
    *out = a;
    *count = array_size(doc, a);
    return SINEW_OK;
}

static sinew_result int_value(gltf_doc *doc, const cJSON *v, const char *key, const char *path, long lo, long hi,
                              long *out)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(d == floor(d)) || d < (double)lo || d > (double)hi)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.%s: expected an integer in [%ld, %ld]", path, key, lo, hi);
    *out = (long)d;
    return SINEW_OK;
}

sinew_result gltf_int(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, bool required, long def,
                      long lo, long hi, long *out)
{
    *out = def;
    const cJSON *v = gltf_member(doc, obj, key);
    if (!v) {
        if (required) return FAIL(doc, SINEW_ERROR_PARSE, "%s.%s: required but missing", path, key);
        return SINEW_OK;
    }
    return int_value(doc, v, key, path, lo, hi, out);
}

sinew_result gltf_floats(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, int n,
                         const float *def, float *out)
{
    const cJSON *a = gltf_member(doc, obj, key);
    if (!a) {
        memcpy(out, def, sizeof(float) * (size_t)n);
        return SINEW_OK;
    }
    if (!cJSON_IsArray(a) || array_size(doc, a) != n)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.%s: expected an array of %d numbers", path, key, n);
    int i = 0;
    const cJSON *e;
    GLTF_EACH(doc, e, a)
    {
        double d = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        if (!isfinite(d) || !isfinite((float)d))
            return FAIL(doc, SINEW_ERROR_NOT_FINITE, "%s.%s[%d]: not a finite number", path, key, i);
        out[i++] = (float)d;
    }
    return SINEW_OK;
}

sinew_result gltf_string(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, const char **out)
{
    const cJSON *v = gltf_member(doc, obj, key);
    *out = NULL;
    if (!v) return SINEW_OK;
    if (!cJSON_IsString(v)) return FAIL(doc, SINEW_ERROR_PARSE, "%s.%s: not a string", path, key);
    *out = v->valuestring;
    return SINEW_OK;
}

sinew_result gltf_ref_value(gltf_doc *doc, const cJSON *v, const char *key, const char *path, const char *what,
                            int limit, int *out)
{
    long i = -1;
    *out = -1;
    sinew_result r = int_value(doc, v, key, path, 0, 0x7fffffff, &i);
    if (r != SINEW_OK) return r;
    if (i >= limit)
        return FAIL(doc, SINEW_ERROR_BAD_REFERENCE, "%s.%s: %ld is not an index of %s (%d element%s)", path, key, i,
                    what, limit, limit == 1 ? "" : "s");
    *out = (int)i;
    return SINEW_OK;
}

sinew_result gltf_ref(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, bool required,
                      const char *what, int limit, int *out)
{
    *out = -1;
    const cJSON *v = gltf_member(doc, obj, key);
    if (!v) return required ? FAIL(doc, SINEW_ERROR_PARSE, "%s.%s: required but missing", path, key) : SINEW_OK;
    return gltf_ref_value(doc, v, key, path, what, limit, out);
}

static void *doc_alloc(gltf_doc *doc, size_t count, size_t size) { return sinew__import_alloc(&doc->alloc, count, size); }

int gltf_node_index(const cJSON *element, int node_count)
{
    double d = cJSON_IsNumber(element) ? element->valuedouble : -1.0;
    return d >= 0 && d < node_count && d == floor(d) ? (int)d : -1;
}

/* ---- URIs and files --------------------------------------------------------- */

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes base64 text (padding optional; the URL-safe '-' and '_' too);
 * returns false on a bad character or a dangling single sextet. `out`
 * holds at least len * 3 / 4 + 3. Four characters at a time through a
 * table: data URIs can be large. */
static bool base64_decode(const char *s, size_t len, uint8_t *out, size_t *out_len)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t value[256];
    memset(value, 0xff, sizeof value);
    for (int k = 0; k < 64; ++k) value[(unsigned char)alphabet[k]] = (uint8_t)k;
    value['-'] = 62, value['_'] = 63;
    while (len > 0 && s[len - 1] == '=') --len;
    const unsigned char *u = (const unsigned char *)s;
    size_t n = 0, i = 0;
    for (; i + 4 <= len; i += 4) {
        uint32_t a = value[u[i]], b = value[u[i + 1]], c = value[u[i + 2]], d = value[u[i + 3]];
        if ((a | b | c | d) & 0x80) return false;
        uint32_t v = a << 18 | b << 12 | c << 6 | d;
        out[n] = (uint8_t)(v >> 16), out[n + 1] = (uint8_t)(v >> 8), out[n + 2] = (uint8_t)v;
        n += 3;
    }
    uint32_t acc = 0;
    int bits = 0;
    for (; i < len; ++i) {
        uint32_t v = value[u[i]];
        if (v & 0x80) return false;
        acc = (acc << 6) | v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    if (bits >= 6) return false;
    *out_len = n;
    return true;
}


/* Percent-decodes a relative URI and checks that it stays inside the base
 * folder (unless allowed). Writes the joined path into `out`. */
static sinew_result resolve_uri(gltf_doc *doc, const char *uri, const char *path, char *out, size_t out_size)
{
    size_t len = strlen(uri);
    char *decoded = doc_alloc(doc, len + 1, 1);
    if (!decoded) return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    size_t n = 0;
    for (size_t i = 0; i < len; ++i) {
        if (uri[i] == '%') {
            int hi = i + 2 < len ? hex_value((unsigned char)uri[i + 1]) : -1;
            int lo = hi >= 0 ? hex_value((unsigned char)uri[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                sinew__free(&doc->alloc, decoded);
                return FAIL(doc, SINEW_ERROR_BAD_URI, "%s: bad percent escape at character %zu", path, i);
            }
            decoded[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            decoded[n++] = uri[i];
        }
    }
    decoded[n] = '\0';
    sinew_result r = SINEW_OK;
    bool absolute = decoded[0] == '/' || decoded[0] == '\\' ||
                    (((decoded[0] | 32) >= 'a' && (decoded[0] | 32) <= 'z') && decoded[1] == ':');
    /* climbing: track the depth over '/'-separated components */
    int depth = 0;
    bool climbs = false;
    for (const char *c = decoded; *c;) {
        const char *e = c;
        while (*e && *e != '/' && *e != '\\') ++e;
        size_t clen = (size_t)(e - c);
        if (clen == 2 && c[0] == '.' && c[1] == '.') {
            if (--depth < 0) climbs = true;
        } else if (clen > 0 && !(clen == 1 && c[0] == '.')) {
            ++depth;
        }
        c = *e ? e + 1 : e;
    }
    if ((absolute || climbs) && !doc->options->allow_outside_paths) {
        r = FAIL(doc, SINEW_ERROR_BAD_URI, "%s: \"%s\" %s; refused (sinew_load_options.allow_outside_paths)", path,
                 decoded, absolute ? "is an absolute path" : "leaves the file's folder");
    } else if (!doc->base_dir && !absolute) {
        r = FAIL(doc, SINEW_ERROR_BAD_URI, "%s: external file \"%s\" but no base folder was given", path, decoded);
    } else {
        int w = absolute || !doc->base_dir[0] ? snprintf(out, out_size, "%s", decoded)
                                              : snprintf(out, out_size, "%s/%s", doc->base_dir, decoded);
        if (w < 0 || (size_t)w >= out_size) {
            r = FAIL(doc, SINEW_ERROR_BAD_URI, "%s: path too long", path);
        } else if (!absolute && !doc->options->allow_outside_paths && !sinew__path_inside(doc->base_dir, out)) {
            /* the name stays inside; a symbolic link on the way leads out */
            r = FAIL(doc, SINEW_ERROR_BAD_URI, "%s: \"%s\" leads out of the file's folder through a symbolic "
                     "link; refused (sinew_load_options.allow_outside_paths)", path, decoded);
        }
    }
    sinew__free(&doc->alloc, decoded);
    return r;
}

static sinew_result load_buffer(gltf_doc *doc, int i, const cJSON *b)
{
    char path[64];
    snprintf(path, sizeof path, "buffers[%d]", i);
    gltf_buffer *buf = &doc->buffers[i];
    long byte_length;
    const char *uri;
    sinew_result r;
    if (!cJSON_IsObject(b)) return FAIL(doc, SINEW_ERROR_PARSE, "%s: not an object", path);
    if ((r = gltf_int(doc, b, "byteLength", path, true, 0, 1, LONG_MAX, &byte_length)) != SINEW_OK ||
        (r = gltf_string(doc, b, "uri", path, &uri)) != SINEW_OK)
        return r;
    buf->size = (size_t)byte_length;
    if (!uri && doc->meshopt && (i != 0 || !doc->glb_bin)) {
        /* EXT_meshopt_compression's placeholder: the uncompressed bytes
         * exist only as the compressed views decode them, so nothing is
         * read or allocated; load_view refuses a plain view on it */
        return SINEW_OK;
    }
    if (!uri) {
        if (i != 0 || !doc->glb_bin)
            return FAIL(doc, SINEW_ERROR_BAD_URI, "%s: no uri, and %s", path,
                        i != 0 ? "only buffers[0] may use the GLB BIN chunk" : "the file has no GLB BIN chunk");
        if (doc->glb_bin_size < buf->size)
            return FAIL(doc, SINEW_ERROR_TRUNCATED, "%s: byteLength %zu exceeds the GLB BIN chunk (%zu bytes)", path,
                        buf->size, doc->glb_bin_size);
        buf->data = doc->glb_bin;
        return SINEW_OK;
    }
    if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        if (!comma) return FAIL(doc, SINEW_ERROR_BAD_URI, "%s.uri: data URI without a comma", path);
        size_t header = (size_t)(comma - uri);
        if (header < 7 || strncmp(comma - 7, ";base64", 7) != 0)
            return FAIL(doc, SINEW_ERROR_BAD_URI, "%s.uri: data URI is not base64", path);
        size_t text = strlen(comma + 1);
        uint8_t *data = doc_alloc(doc, text / 4 * 3 + 3, 1);
        if (!data) return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        size_t n = 0;
        buf->owned = data;
        if (!base64_decode(comma + 1, text, data, &n))
            return FAIL(doc, SINEW_ERROR_BAD_URI, "%s.uri: data URI has invalid base64", path);
        if (n < buf->size)
            return FAIL(doc, SINEW_ERROR_TRUNCATED, "%s: byteLength %zu exceeds the %zu bytes of its data URI", path,
                        buf->size, n);
        buf->data = data;
        return SINEW_OK;
    }
    for (const char *c = uri; *c && *c != '/'; ++c)
        if (*c == ':' && c - uri > 1) /* a scheme such as http: (one letter is a drive) */
            return FAIL(doc, SINEW_ERROR_BAD_URI, "%s.uri: \"%.40s\": only data: URIs and relative files are read",
                        path, uri);
    char file[4096];
    if ((r = resolve_uri(doc, uri, path, file, sizeof file)) != SINEW_OK) return r;
    size_t file_size = 0;
    sinew_error why;
    /* no larger than it says; one larger than the load's budget fails to allocate */
    uint8_t *data = sinew__read_file(file, &doc->alloc, buf->size, SIZE_MAX, &file_size, &why);
    if (!data) return FAIL(doc, why.result, "%s: cannot read \"%s\": %s", path, file, why.description);
    buf->owned = data;
    if (file_size < buf->size)
        return FAIL(doc, SINEW_ERROR_TRUNCATED, "%s: byteLength %zu exceeds \"%s\" (%zu bytes)", path, buf->size, file,
                    file_size);
    buf->data = data;
    return SINEW_OK;
}

/* ---- views and accessors ------------------------------------------------------ */

/* EXT_meshopt_compression on bufferViews[i] (`ext`, its object): every
 * field checked against the specification and the source buffer, the
 * decoded size (count * byteStride, which must be the view's byteLength)
 * allocated through the load's allocator, so charged against its limit,
 * and only then the decoder run. */
static sinew_result decode_meshopt_view(gltf_doc *doc, int i, gltf_view *view, long parent_stride, const cJSON *ext)
{
    char path[96];
    snprintf(path, sizeof path, "bufferViews[%d].extensions.EXT_meshopt_compression", i);
    if (!cJSON_IsObject(ext)) return FAIL(doc, SINEW_ERROR_PARSE, "%s: not an object", path);
#ifndef SINEW_HAVE_MESHOPT
    (void)parent_stride;
    /* a reader without the extension takes the uncompressed fallback */
    if (doc->buffers[view->buffer].data) return SINEW_OK;
    return FAIL(doc, SINEW_ERROR_UNSUPPORTED, "%s: sinew was built without libmeshoptimizer-dev and buffers[%d] holds "
                "no uncompressed fallback", path, view->buffer);
#else
    int source;
    long offset, length, stride, count;
    const char *mode_name, *filter_name;
    sinew_result r;
    if ((r = gltf_ref(doc, ext, "buffer", path, true, "buffers", doc->buffer_count, &source)) != SINEW_OK ||
        (r = gltf_int(doc, ext, "byteOffset", path, false, 0, 0, LONG_MAX, &offset)) != SINEW_OK ||
        (r = gltf_int(doc, ext, "byteLength", path, true, 0, 1, LONG_MAX, &length)) != SINEW_OK ||
        (r = gltf_int(doc, ext, "byteStride", path, true, 0, 1, 256, &stride)) != SINEW_OK ||
        (r = gltf_int(doc, ext, "count", path, true, 0, 1, 0x7fffffff, &count)) != SINEW_OK ||
        (r = gltf_string(doc, ext, "mode", path, &mode_name)) != SINEW_OK ||
        (r = gltf_string(doc, ext, "filter", path, &filter_name)) != SINEW_OK)
        return r;
    enum { ATTRIBUTES, TRIANGLES, INDICES } mode;
    if (!mode_name) return FAIL(doc, SINEW_ERROR_PARSE, "%s.mode: required but missing", path);
    if (strcmp(mode_name, "ATTRIBUTES") == 0) mode = ATTRIBUTES;
    else if (strcmp(mode_name, "TRIANGLES") == 0) mode = TRIANGLES;
    else if (strcmp(mode_name, "INDICES") == 0) mode = INDICES;
    else return FAIL(doc, SINEW_ERROR_PARSE, "%s.mode: \"%.40s\" is not ATTRIBUTES, TRIANGLES or INDICES", path, mode_name);
    enum { NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL } filter = NONE;
    if (!filter_name || strcmp(filter_name, "NONE") == 0) filter = NONE;
    else if (strcmp(filter_name, "OCTAHEDRAL") == 0) filter = OCTAHEDRAL;
    else if (strcmp(filter_name, "QUATERNION") == 0) filter = QUATERNION;
    else if (strcmp(filter_name, "EXPONENTIAL") == 0) filter = EXPONENTIAL;
    else return FAIL(doc, SINEW_ERROR_PARSE, "%s.filter: \"%.40s\" is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL",
                     path, filter_name);
    /* the specification's rules; the decoders assert the same */
    if (mode == ATTRIBUTES && stride % 4)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteStride: %ld is not a multiple of 4 (mode ATTRIBUTES)", path, stride);
    if (mode != ATTRIBUTES && stride != 2 && stride != 4)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteStride: %ld is not 2 or 4 (mode %s)", path, stride, mode_name);
    if (mode == TRIANGLES && count % 3)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.count: %ld is not a multiple of 3 (mode TRIANGLES)", path, count);
    if (mode != ATTRIBUTES && filter != NONE)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.filter: %s needs mode ATTRIBUTES, not %s", path, filter_name, mode_name);
    if ((filter == OCTAHEDRAL && stride != 4 && stride != 8) || (filter == QUATERNION && stride != 8) ||
        (filter == EXPONENTIAL && stride % 4))
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteStride: %ld does not suit filter %s (OCTAHEDRAL: 4 or 8, "
                    "QUATERNION: 8, EXPONENTIAL: a multiple of 4)", path, stride, filter_name);
    if (parent_stride && parent_stride != stride)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteStride: %ld differs from bufferViews[%d].byteStride %ld", path,
                    stride, i, parent_stride);
    if ((size_t)count > SIZE_MAX / (size_t)stride || (size_t)count * (size_t)stride != view->length)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s: count %ld * byteStride %ld is not bufferViews[%d].byteLength %zu", path,
                    count, stride, i, view->length);
    const gltf_buffer *src = &doc->buffers[source];
    if (!src->data)
        return FAIL(doc, SINEW_ERROR_BAD_REFERENCE, "%s.buffer: buffers[%d] is a placeholder without data", path, source);
    if ((size_t)offset > src->size || (size_t)length > src->size - (size_t)offset)
        return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "%s: byteOffset %ld + byteLength %ld exceeds buffers[%d] (byteLength "
                    "%zu)", path, offset, length, source, src->size);
    /* the least each bitstream takes for `count` elements (a header byte,
     * and per mode: 2 header bits per 16 bytes and a 32-byte tail; a byte
     * per triangle and 16; a byte per index and 4): shorter data cannot
     * decode, and a few bytes never ask for a large allocation */
    size_t n = (size_t)count, least = mode == ATTRIBUTES ? 1 + n * (size_t)stride / 64 + (stride > 32 ? (size_t)stride : 32)
                                    : mode == TRIANGLES ? 1 + n / 3 + 16 : 1 + n + 4;
    if ((size_t)length < least)
        return FAIL(doc, SINEW_ERROR_TRUNCATED, "%s.byteLength: %ld bytes cannot hold %ld %s elements of %ld bytes (at "
                    "least %zu)", path, length, count, mode_name, stride, least);
    uint8_t *out = doc_alloc(doc, view->length, 1);
    if (!out)
        return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "%s: decoding %zu bytes exceeds the load's limit of %zu MiB "
                    "(sinew_options.max_memory)", path, view->length, sinew__import_limit(&doc->alloc) >> 20);
    /* the view becomes the whole of a buffer of its own (gltf_doc.h) */
    gltf_buffer *own = &doc->buffers[doc->buffer_count + i];
    own->data = own->owned = out;
    own->size = view->length;
    view->buffer = doc->buffer_count + i;
    view->offset = 0;
    const unsigned char *bytes = src->data + offset;
    int rc = mode == ATTRIBUTES ? meshopt_decodeVertexBuffer(out, n, (size_t)stride, bytes, (size_t)length)
             : mode == TRIANGLES ? meshopt_decodeIndexBuffer(out, n, (size_t)stride, bytes, (size_t)length)
                                 : meshopt_decodeIndexSequence(out, n, (size_t)stride, bytes, (size_t)length);
    if (rc != 0)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s: the %s data does not decode (%s returned %d)", path, mode_name,
                    mode == ATTRIBUTES ? "meshopt_decodeVertexBuffer"
                    : mode == TRIANGLES ? "meshopt_decodeIndexBuffer" : "meshopt_decodeIndexSequence", rc);
    if (filter == OCTAHEDRAL) meshopt_decodeFilterOct(out, n, (size_t)stride);
    else if (filter == QUATERNION) meshopt_decodeFilterQuat(out, n, (size_t)stride);
    else if (filter == EXPONENTIAL) meshopt_decodeFilterExp(out, n, (size_t)stride);
    return SINEW_OK;
#endif
}

static sinew_result load_view(gltf_doc *doc, int i, const cJSON *v)
{
    char path[64];
    snprintf(path, sizeof path, "bufferViews[%d]", i);
    if (!cJSON_IsObject(v)) return FAIL(doc, SINEW_ERROR_PARSE, "%s: not an object", path);
    gltf_view *view = &doc->views[i];
    long offset, length, stride;
    sinew_result r;
    if ((r = gltf_ref(doc, v, "buffer", path, true, "buffers", doc->buffer_count, &view->buffer)) != SINEW_OK ||
        (r = gltf_int(doc, v, "byteOffset", path, false, 0, 0, LONG_MAX, &offset)) != SINEW_OK ||
        (r = gltf_int(doc, v, "byteLength", path, true, 0, 1, LONG_MAX, &length)) != SINEW_OK ||
        (r = gltf_int(doc, v, "byteStride", path, false, 0, 4, 252, &stride)) != SINEW_OK)
        return r;
    if (stride % 4) return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteStride: %ld is not a multiple of 4", path, stride);
    size_t size = doc->buffers[view->buffer].size;
    if ((size_t)offset > size || (size_t)length > size - (size_t)offset)
        return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "%s: byteOffset %ld + byteLength %ld exceeds buffers[%d] (byteLength %zu)",
                    path, offset, length, view->buffer, size);
    view->offset = (size_t)offset;
    view->length = (size_t)length;
    view->stride = (size_t)stride;
    const cJSON *exts = doc->meshopt ? gltf_member(doc, v, "extensions") : NULL;
    const cJSON *ext = exts ? gltf_member(doc, exts, "EXT_meshopt_compression") : NULL;
    if (ext) return decode_meshopt_view(doc, i, view, stride, ext);
    if (!doc->buffers[view->buffer].data)
        return FAIL(doc, SINEW_ERROR_BAD_URI, "%s: buffers[%d] has no uri (an EXT_meshopt_compression placeholder) "
                    "and this view is not compressed", path, view->buffer);
    return SINEW_OK;
}

static int component_size(int type)
{
    switch (type) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static int type_components(const char *type)
{
    static const struct { const char *name; int n; } types[] = {
        {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(type, types[i].name) == 0) return types[i].n;
    return 0;
}

static size_t column_count(int components) { return components == 4 ? 2 : components == 9 ? 3 : 4; }

/* Bytes of one element. Matrix columns start on 4-byte boundaries, which
 * pads MAT2 and MAT3 of 1-byte and MAT3 of 2-byte components. */
static size_t element_size(const gltf_accessor *a)
{
    size_t cs = (size_t)component_size(a->component_type);
    if (!a->matrix) return cs * (size_t)a->components;
    size_t cols = column_count(a->components), rows = (size_t)a->components / cols;
    return cols * ((rows * cs + 3) / 4 * 4);
}

/* offset + (count - 1) * stride + element <= length, without overflow */
static bool fits(size_t offset, size_t count, size_t stride, size_t element, size_t length)
{
    if (offset > length || element > length - offset) return false;
    if (count <= 1) return true;
    size_t room = length - offset - element;
    return stride == 0 || count - 1 <= room / stride;
}

static sinew_result load_accessor(gltf_doc *doc, int i, const cJSON *a)
{
    char path[64];
    snprintf(path, sizeof path, "accessors[%d]", i);
    if (!cJSON_IsObject(a)) return FAIL(doc, SINEW_ERROR_PARSE, "%s: not an object", path);
    gltf_accessor *acc = &doc->accessors[i];
    long offset, ctype, count;
    const char *type;
    sinew_result r;
    if ((r = gltf_ref(doc, a, "bufferView", path, false, "bufferViews", doc->view_count, &acc->view)) != SINEW_OK ||
        (r = gltf_int(doc, a, "byteOffset", path, false, 0, 0, LONG_MAX, &offset)) != SINEW_OK ||
        (r = gltf_int(doc, a, "componentType", path, true, 0, 5120, 5126, &ctype)) != SINEW_OK ||
        (r = gltf_int(doc, a, "count", path, true, 0, 1, 0x7fffffff, &count)) != SINEW_OK ||
        (r = gltf_string(doc, a, "type", path, &type)) != SINEW_OK)
        return r;
    if (!component_size((int)ctype))
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.componentType: %ld is not a glTF component type", path, ctype);
    if (!type || !type_components(type))
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.type: missing or not SCALAR, VEC2..4 or MAT2..4", path);
    const cJSON *norm = gltf_member(doc, a, "normalized");
    if (norm && !cJSON_IsBool(norm)) return FAIL(doc, SINEW_ERROR_PARSE, "%s.normalized: not a boolean", path);
    acc->normalized = norm && cJSON_IsTrue(norm);
    if (acc->normalized && (ctype == 5125 || ctype == 5126))
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.normalized: not allowed for componentType %ld", path, ctype);
    acc->offset = (size_t)offset;
    acc->component_type = (int)ctype;
    acc->count = (int)count;
    acc->components = type_components(type);
    acc->matrix = type[0] == 'M';
    size_t elem = acc->element = element_size(acc);
    if (acc->view >= 0) {
        const gltf_view *v = &doc->views[acc->view];
        size_t stride = v->stride ? v->stride : elem, cs = (size_t)component_size(acc->component_type);
        /* the specification's alignment: a reader may load components
         * straight from the buffer, so they must lie on their own size */
        if (acc->offset % cs)
            return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteOffset: %zu is not a multiple of the component size (%zu bytes "
                        "for componentType %d)", path, acc->offset, cs, acc->component_type);
        if ((v->offset + acc->offset) % cs)
            return FAIL(doc, SINEW_ERROR_PARSE, "%s: bufferViews[%d].byteOffset %zu + byteOffset %zu is not a multiple "
                        "of the component size (%zu bytes for componentType %d)", path, acc->view, v->offset,
                        acc->offset, cs, acc->component_type);
        if (v->stride % cs)
            return FAIL(doc, SINEW_ERROR_PARSE, "%s: bufferViews[%d].byteStride %zu is not a multiple of the component "
                        "size (%zu bytes for componentType %d)", path, acc->view, v->stride, cs, acc->component_type);
        if (v->stride && v->stride < elem)
            return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "%s: bufferViews[%d].byteStride %zu is below the %zu-byte element",
                        path, acc->view, v->stride, elem);
        if (!fits(acc->offset, (size_t)acc->count, stride, elem, v->length))
            return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS,
                        "%s: count %d at byteOffset %zu exceeds bufferViews[%d] (byteLength %zu, stride %zu)", path,
                        acc->count, acc->offset, acc->view, v->length, stride);
    } else if (acc->offset) {
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.byteOffset: given without a bufferView", path);
    }

    const cJSON *sp = gltf_member(doc, a, "sparse");
    if (!sp) return SINEW_OK;
    char spath[96];
    snprintf(spath, sizeof spath, "%s.sparse", path);
    long scount, ioff, voff, itype;
    if (!cJSON_IsObject(sp)) return FAIL(doc, SINEW_ERROR_PARSE, "%s: not an object", spath);
    if ((r = gltf_int(doc, sp, "count", spath, true, 0, 1, acc->count, &scount)) != SINEW_OK) return r;
    const cJSON *ind = gltf_member(doc, sp, "indices");
    const cJSON *val = gltf_member(doc, sp, "values");
    char ipath[112], vpath[112];
    snprintf(ipath, sizeof ipath, "%s.indices", spath);
    snprintf(vpath, sizeof vpath, "%s.values", spath);
    if (!cJSON_IsObject(ind) || !cJSON_IsObject(val))
        return FAIL(doc, SINEW_ERROR_PARSE, "%s: indices and values objects are required", spath);
    if ((r = gltf_ref(doc, ind, "bufferView", ipath, true, "bufferViews", doc->view_count, &acc->sparse_index_view)) !=
            SINEW_OK ||
        (r = gltf_int(doc, ind, "byteOffset", ipath, false, 0, 0, LONG_MAX, &ioff)) != SINEW_OK ||
        (r = gltf_int(doc, ind, "componentType", ipath, true, 0, 5121, 5125, &itype)) != SINEW_OK ||
        (r = gltf_ref(doc, val, "bufferView", vpath, true, "bufferViews", doc->view_count, &acc->sparse_value_view)) !=
            SINEW_OK ||
        (r = gltf_int(doc, val, "byteOffset", vpath, false, 0, 0, LONG_MAX, &voff)) != SINEW_OK)
        return r;
    if (itype != 5121 && itype != 5123 && itype != 5125)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s.componentType: %ld is not an unsigned integer type", ipath, itype);
    acc->sparse_count = (int)scount;
    acc->sparse_index_type = (int)itype;
    acc->sparse_index_offset = (size_t)ioff;
    acc->sparse_value_offset = (size_t)voff;
    size_t isize = (size_t)component_size((int)itype);
    if (!fits(acc->sparse_index_offset, (size_t)scount, isize, isize, doc->views[acc->sparse_index_view].length))
        return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "%s: %ld indices exceed bufferViews[%d] (byteLength %zu)", ipath,
                    scount, acc->sparse_index_view, doc->views[acc->sparse_index_view].length);
    if (!fits(acc->sparse_value_offset, (size_t)scount, elem, elem, doc->views[acc->sparse_value_view].length))
        return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "%s: %ld values exceed bufferViews[%d] (byteLength %zu)", vpath,
                    scount, acc->sparse_value_view, doc->views[acc->sparse_value_view].length);
    return SINEW_OK;
}

static const uint8_t *view_bytes(const gltf_doc *doc, int view)
{
    const gltf_view *v = &doc->views[view];
    return doc->buffers[v->buffer].data + v->offset;
}

const uint8_t *gltf_view_data(const gltf_doc *doc, int view) { return view_bytes(doc, view); }

static double component_value(const uint8_t *p, int type, bool normalized)
{
    switch (type) {
    case 5120: { int8_t x; memcpy(&x, p, 1); return normalized ? fmax(x / 127.0, -1.0) : x; }
    case 5121: { uint8_t x = *p; return normalized ? x / 255.0 : x; }
    case 5122: { int16_t x; memcpy(&x, p, 2); return normalized ? fmax(x / 32767.0, -1.0) : x; }
    case 5123: { uint16_t x; memcpy(&x, p, 2); return normalized ? x / 65535.0 : x; }
    case 5125: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { float x; memcpy(&x, p, 4); return x; }
    }
}

/* Decodes one element at `base` into `out` as doubles, column by column. */
static void decode_element(const gltf_accessor *a, const uint8_t *base, double *out)
{
    size_t cs = (size_t)component_size(a->component_type);
    size_t cols = a->matrix ? column_count(a->components) : 1;
    size_t rows = (size_t)a->components / cols;
    size_t col_bytes = a->matrix ? (rows * cs + 3) / 4 * 4 : rows * cs;
    for (size_t c = 0; c < cols; ++c)
        for (size_t r = 0; r < rows; ++r)
            out[c * rows + r] = component_value(base + c * col_bytes + r * cs, a->component_type, a->normalized);
}

/* Visits every element (sparse substitutions applied after the base
 * values), calling `put`. Bounds were checked when the accessor loaded. */
typedef sinew_result (*put_fn)(gltf_doc *doc, const char *what, int element, const double *v, int n, void *out);

static sinew_result check_components(gltf_doc *doc, int index, int components, const char *what)
{
    if (index < 0 || index >= doc->accessor_count)
        return FAIL(doc, SINEW_ERROR_BAD_REFERENCE, "%s: accessor %d does not exist", what, index);
    const gltf_accessor *a = &doc->accessors[index];
    if (a->components != components)
        return FAIL(doc, SINEW_ERROR_PARSE, "%s: accessors[%d] has %d components, %d expected", what, index,
                    a->components, components);
    return SINEW_OK;
}

/* The dense elements (zeros without a view). */
static sinew_result visit_dense(gltf_doc *doc, int index, const char *what, put_fn put, void *out)
{
    const gltf_accessor *a = &doc->accessors[index];
    double v[16] = {0};
    sinew_result r;
    const uint8_t *base = a->view >= 0 ? view_bytes(doc, a->view) + a->offset : NULL;
    size_t stride = a->view >= 0 && doc->views[a->view].stride ? doc->views[a->view].stride : a->element;
    for (int e = 0; e < a->count; ++e) {
        if (base) decode_element(a, base + (size_t)e * stride, v);
        if ((r = put(doc, what, e, v, a->components, out)) != SINEW_OK) return r;
    }
    return SINEW_OK;
}

/* The sparse substitutions, after the dense values. */
static sinew_result visit_sparse(gltf_doc *doc, int index, const char *what, put_fn put, void *out)
{
    const gltf_accessor *a = &doc->accessors[index];
    if (!a->sparse_count) return SINEW_OK;
    const uint8_t *ib = view_bytes(doc, a->sparse_index_view) + a->sparse_index_offset;
    const uint8_t *vb = view_bytes(doc, a->sparse_value_view) + a->sparse_value_offset;
    size_t isize = (size_t)component_size(a->sparse_index_type);
    double prev = -1.0, v[16];
    sinew_result r;
    for (int s = 0; s < a->sparse_count; ++s) {
        double idx = component_value(ib + (size_t)s * isize, a->sparse_index_type, false);
        if (idx <= prev || idx >= a->count)
            return FAIL(doc, SINEW_ERROR_OUT_OF_BOUNDS, "accessors[%d].sparse.indices[%d]: %.0f is %s", index, s, idx,
                        idx >= a->count ? "out of range" : "not after the previous index");
        prev = idx;
        decode_element(a, vb + (size_t)s * a->element, v);
        if ((r = put(doc, what, (int)idx, v, a->components, out)) != SINEW_OK) return r;
    }
    return SINEW_OK;
}

static sinew_result put_float(gltf_doc *doc, const char *what, int element, const double *v, int n, void *out)
{
    float *o = (float *)out + (size_t)element * (size_t)n;
    for (int i = 0; i < n; ++i) {
        o[i] = (float)v[i];
        if (!isfinite(o[i]))
            return FAIL(doc, SINEW_ERROR_NOT_FINITE, "%s: element %d component %d is not finite", what, element, i);
    }
    return SINEW_OK;
}

static sinew_result put_uint(gltf_doc *doc, const char *what, int element, const double *v, int n, void *out)
{
    (void)doc, (void)what;
    uint32_t *o = (uint32_t *)out + (size_t)element * (size_t)n;
    for (int i = 0; i < n; ++i) o[i] = (uint32_t)v[i];
    return SINEW_OK;
}

static const char *type_name(int type)
{
    switch (type) {
    case 5120: return "BYTE";
    case 5121: return "UNSIGNED_BYTE";
    case 5122: return "SHORT";
    case 5123: return "UNSIGNED_SHORT";
    case 5125: return "UNSIGNED_INT";
    default: return "FLOAT";
    }
}

static bool type_listed(const int *list, int code)
{
    for (; list && *list; ++list)
        if (*list == code) return true;
    return false;
}

sinew_result gltf_check_type(gltf_doc *doc, int index, const char *what, const int *allowed, const int *quantized)
{
    const gltf_accessor *a = &doc->accessors[index];
    int code = a->normalized ? GLTF_NORM(a->component_type) : a->component_type;
    if (type_listed(allowed, code) || (doc->quantization && type_listed(quantized, code))) return SINEW_OK;
    char list[160];
    size_t at = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (const int *t = pass ? (doc->quantization ? quantized : NULL) : allowed; t && *t; ++t) {
            int c = *t > 100000 ? *t - 100000 : *t;
            int w = snprintf(list + at, sizeof list - at, "%s%s%s", at ? ", " : "", type_name(c),
                             *t > 100000 ? " normalized" : "");
            if (w > 0 && (size_t)w < sizeof list - at) at += (size_t)w;
        }
    bool only_quantized = !doc->quantization && type_listed(quantized, code);
    return FAIL(doc, SINEW_ERROR_PARSE, "%s: accessors[%d] has componentType %d (%s%s), which %s; allowed: %s", what,
                index, a->component_type, type_name(a->component_type), a->normalized ? " normalized" : "",
                only_quantized ? "needs KHR_mesh_quantization in extensionsUsed" : "the specification does not allow here",
                list);
}

size_t gltf_float_bytes(const gltf_doc *doc, int index)
{
    const gltf_accessor *a = &doc->accessors[index];
    return (size_t)a->count * (size_t)a->components * sizeof(float);
}

sinew_result gltf_read_floats(gltf_doc *doc, int index, int components, const char *what, float *out)
{
    sinew_result r = check_components(doc, index, components, what);
    if (r != SINEW_OK) return r;
    const gltf_accessor *a = &doc->accessors[index];
    if (a->view >= 0 && a->component_type == 5126) {
        /* floats: copied as they are (no matrix padding at 4 bytes), then checked */
        const uint8_t *base = view_bytes(doc, a->view) + a->offset;
        size_t stride = doc->views[a->view].stride ? doc->views[a->view].stride : a->element;
        size_t row = sizeof(float) * (size_t)components;
        for (int e = 0; e < a->count; ++e) memcpy(out + (size_t)e * (size_t)components, base + (size_t)e * stride, row);
        size_t n = (size_t)a->count * (size_t)components;
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(out[i]))
                return FAIL(doc, SINEW_ERROR_NOT_FINITE, "%s: element %zu component %zu is not finite", what,
                            i / (size_t)components, i % (size_t)components);
    } else if ((r = visit_dense(doc, index, what, put_float, out)) != SINEW_OK) {
        return r;
    }
    return visit_sparse(doc, index, what, put_float, out);
}

sinew_result gltf_read_uints(gltf_doc *doc, int index, int components, const char *what, uint32_t *out)
{
    if (index >= 0 && index < doc->accessor_count) {
        const gltf_accessor *a = &doc->accessors[index];
        if (a->normalized || (a->component_type != 5121 && a->component_type != 5123 && a->component_type != 5125))
            return FAIL(doc, SINEW_ERROR_PARSE, "%s: accessors[%d] must hold unsigned integers, not componentType %d%s",
                        what, index, a->component_type, a->normalized ? " normalized" : "");
    }
    sinew_result r = check_components(doc, index, components, what);
    if (r == SINEW_OK) r = visit_dense(doc, index, what, put_uint, out);
    if (r == SINEW_OK) r = visit_sparse(doc, index, what, put_uint, out);
    return r;
}

/* ---- the document ----------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Splits a GLB into its JSON and BIN chunks. */
static sinew_result open_glb(gltf_doc *doc, const uint8_t *d, size_t size, const char **json, size_t *json_size)
{
    if (size < 20)
        return FAIL(doc, SINEW_ERROR_TRUNCATED, "GLB: %zu bytes, too short for a header and a chunk", size);
    uint32_t version = le32(d + 4), length = le32(d + 8);
    if (version != 2) return FAIL(doc, SINEW_ERROR_PARSE, "GLB: version %u, only 2 is read", version);
    if (length > size) return FAIL(doc, SINEW_ERROR_TRUNCATED, "GLB: header length %u exceeds the %zu bytes given", length, size);
    if (length < 20) return FAIL(doc, SINEW_ERROR_PARSE, "GLB: header length %u is too short", length);
    size_t pos = 12;
    int chunk = 0;
    while (pos < length) {
        if (length - pos < 8)
            return FAIL(doc, SINEW_ERROR_TRUNCATED, "GLB: chunk %d header at byte %zu runs past the length %u", chunk,
                        pos, length);
        uint32_t clen = le32(d + pos), ctype = le32(d + pos + 4);
        if (clen > length - pos - 8)
            return FAIL(doc, SINEW_ERROR_TRUNCATED, "GLB: chunk %d length %u at byte %zu runs past the length %u", chunk,
                        clen, pos, length);
        const uint8_t *body = d + pos + 8;
        if (chunk == 0) {
            if (ctype != 0x4E4F534Au) return FAIL(doc, SINEW_ERROR_PARSE, "GLB: the first chunk is not JSON");
            *json = (const char *)body;
            *json_size = clen;
        } else if (ctype == 0x004E4942u && !doc->glb_bin) {
            doc->glb_bin = body;
            doc->glb_bin_size = clen;
        } /* other chunk types are skipped, as the specification asks */
        pos += 8 + (size_t)clen;
        ++chunk;
    }
    return SINEW_OK;
}

/* Allocates one element per entry of the top-level array `key` and loads
 * each with `load` (zeroed first; the count is set before loading so that a
 * failure part-way still frees what was loaded). */
static sinew_result load_all(gltf_doc *doc, const char *key, size_t size, void **out, int *count,
                             sinew_result (*load)(gltf_doc *, int, const cJSON *))
{
    const cJSON *list;
    int n;
    sinew_result r = gltf_array(doc, doc->root, key, "", &list, &n);
    if (r != SINEW_OK) return r;
    *out = doc_alloc(doc, (size_t)n + 1, size);
    if (!*out) return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", key);
    *count = n;
    int i = 0;
    const cJSON *e;
    GLTF_EACH(doc, e, list)
    {
        if ((r = load(doc, i++, e)) != SINEW_OK) return r;
    }
    return SINEW_OK;
}

/* gltf_doc.h: an item (64 bytes, 80 with malloc's header and rounding)
 * per value, and per string (member names included) its raw length, its
 * terminator and up to 31 bytes of header and rounding. Values are at most
 * one per comma, one per bracket, plus the root. Up to 40 bytes per byte of
 * JSON ("[0,0,...]"), about the size of the text for base64 buffers. */
size_t gltf_json_tree_bound(const char *s, size_t n, size_t *values)
{
    size_t commas = 0, opens = 0, strings = 0, string_bytes = 0;
    for (size_t i = 0; i < n; ++i) {
        char c = s[i];
        if (c == '"') {
            size_t start = ++i;
            while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
            ++strings;
            string_bytes += (i < n ? i : n) - start;
        } else if (c == ',') {
            ++commas;
        } else if (c == '[' || c == '{') {
            ++opens;
        }
    }
    *values = 1 + commas + opens;
    size_t item = (sizeof(cJSON) + 8 + 15) / 16 * 16;
    return *values * item + strings * 32 + string_bytes;
}

static bool required_extension_supported(const char *name)
{
    return strcmp(name, "KHR_mesh_quantization") == 0 || strncmp(name, "KHR_materials_", 14) == 0 ||
           strcmp(name, "KHR_texture_transform") == 0 || strcmp(name, "KHR_lights_punctual") == 0 ||
           strcmp(name, "VRMC_springBone") == 0 || strcmp(name, "VRMC_vrm") == 0
#ifdef SINEW_HAVE_DRACO
           || strcmp(name, "KHR_draco_mesh_compression") == 0 /* gltf.c decodes it (draco.cc) */
#endif
#ifdef SINEW_HAVE_MESHOPT
           || strcmp(name, "EXT_meshopt_compression") == 0
#endif
        ;
}

sinew_result gltf_doc_open(gltf_doc *doc, const void *data, size_t size, bool owned, const char *base_dir,
                           const sinew_load_options *options, sinew_error *err)
{
    static const sinew_load_options defaults;
    memset(doc, 0, sizeof *doc);
    doc->options = options ? options : &defaults;
    doc->alloc = sinew__allocator(&doc->options->base);
    doc->err = err;
    if (owned) doc->file_data = (void *)data;
    if (base_dir) {
        doc->base_dir = doc_alloc(doc, strlen(base_dir) + 1, 1);
        if (!doc->base_dir) return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        memcpy(doc->base_dir, base_dir, strlen(base_dir) + 1);
    }
    const uint8_t *d = data;
    const char *json = (const char *)data;
    size_t json_size = size;
    sinew_result r;
    if (!data) return FAIL(doc, SINEW_ERROR_INVALID_ARGUMENT, "no data");
    if (size >= 4 && memcmp(d, "glTF", 4) == 0 && (r = open_glb(doc, d, size, &json, &json_size)) != SINEW_OK) return r;

    /* the tree cJSON builds lives on its own heap, out of the load's
     * allocator: its size, bounded before parsing, counts against the
     * load's limit (as does the file read for the load) */
    size_t tree = gltf_json_tree_bound(json, json_size, &doc->work.json_values);
    doc->work.json_bytes = json_size;
    doc->work.tree_bytes = tree;
    size_t limit = sinew__import_limit(&doc->alloc);
    if (owned && !sinew__import_charge(&doc->alloc, size))
        return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "the file's %zu bytes exceed the load's limit of %zu MiB "
                    "(sinew_options.max_memory)", size, limit >> 20);
    if (!sinew__import_charge(&doc->alloc, tree))
        return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "the JSON's %zu bytes (%zu values) parse into up to %.1f MiB, over "
                    "the load's limit of %zu MiB (sinew_options.max_memory)", json_size,
                    doc->work.json_values, (double)tree / (1 << 20), limit >> 20);
    const char *end = NULL;
    doc->root = cJSON_ParseWithLengthOpts(json, json_size, &end, false);
    if (!doc->root) {
        size_t at = end && end >= json && end <= json + json_size ? (size_t)(end - json) : 0;
        return FAIL(doc, SINEW_ERROR_PARSE, "JSON syntax error near byte %zu", at);
    }
    if (!cJSON_IsObject(doc->root)) return FAIL(doc, SINEW_ERROR_PARSE, "the JSON root is not an object");
    const cJSON *asset = gltf_member(doc, doc->root, "asset");
    const char *version = NULL;
    if (!cJSON_IsObject(asset)) return FAIL(doc, SINEW_ERROR_PARSE, "asset: required object missing");
    if ((r = gltf_string(doc, asset, "version", "asset", &version)) != SINEW_OK) return r;
    if (!version || strncmp(version, "2.", 2) != 0)
        return FAIL(doc, SINEW_ERROR_PARSE, "asset.version: \"%s\" is not 2.x", version ? version : "(missing)");

    const cJSON *list, *e;
    int n, i = 0;
    if ((r = gltf_array(doc, doc->root, "extensionsRequired", "", &list, &n)) != SINEW_OK) return r;
    GLTF_EACH(doc, e, list)
    {
#ifndef SINEW_HAVE_MESHOPT
        if (cJSON_IsString(e) && strcmp(e->valuestring, "EXT_meshopt_compression") == 0)
            return FAIL(doc, SINEW_ERROR_UNSUPPORTED, "extensionsRequired[%d]: \"EXT_meshopt_compression\" needs a "
                        "sinew built with libmeshoptimizer-dev", i);
#endif
#ifndef SINEW_HAVE_DRACO
        if (cJSON_IsString(e) && strcmp(e->valuestring, "KHR_draco_mesh_compression") == 0)
            return FAIL(doc, SINEW_ERROR_UNSUPPORTED, "extensionsRequired[%d]: \"KHR_draco_mesh_compression\": sinew "
                        "was built without Draco (apt-get install libdraco-dev, then rebuild)", i);
#endif
        if (!cJSON_IsString(e) || !required_extension_supported(e->valuestring))
            return FAIL(doc, SINEW_ERROR_UNSUPPORTED, "extensionsRequired[%d]: \"%s\" is not supported", i,
                        cJSON_IsString(e) ? e->valuestring : "?");
        if (strcmp(e->valuestring, "KHR_mesh_quantization") == 0) doc->quantization = true;
        if (strcmp(e->valuestring, "EXT_meshopt_compression") == 0) doc->meshopt = true;
        /* a VRM 1.0 file is glTF with VRMC_vrm required: what animates it
         * (skins, clips, springs) is plain glTF and VRMC_springBone, what
         * VRMC_vrm adds describes the avatar to an application */
        if (strcmp(e->valuestring, "VRMC_vrm") == 0)
            sinew__warn(&doc->options->base, "extensionsRequired[%d]: VRMC_vrm: the humanoid, meta and expressions "
                        "are left unread; skins, clips and springs are read", i);
        ++i;
    }
    if ((r = gltf_array(doc, doc->root, "extensionsUsed", "", &list, &n)) != SINEW_OK) return r;
    GLTF_EACH(doc, e, list)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "KHR_mesh_quantization") == 0) doc->quantization = true;
        if (cJSON_IsString(e) && strcmp(e->valuestring, "EXT_meshopt_compression") == 0) doc->meshopt = true;
    }

    /* in dependency order: views check against buffers, accessors against views */
    if ((r = load_all(doc, "buffers", sizeof *doc->buffers, (void **)&doc->buffers, &doc->buffer_count,
                      load_buffer)) != SINEW_OK)
        return r;
    doc->buffer_slots = doc->buffer_count;
    if (doc->meshopt) {
        /* a slot per view after the file's buffers, for the decoded ones */
        if ((r = gltf_array(doc, doc->root, "bufferViews", "", &list, &n)) != SINEW_OK) return r;
        gltf_buffer *more = doc_alloc(doc, (size_t)doc->buffer_count + (size_t)n + 1, sizeof *more);
        if (!more) return FAIL(doc, SINEW_ERROR_OUT_OF_MEMORY, "bufferViews: out of memory");
        memcpy(more, doc->buffers, sizeof *more * (size_t)doc->buffer_count);
        sinew__free(&doc->alloc, doc->buffers);
        doc->buffers = more;
        doc->buffer_slots = doc->buffer_count + n;
    }
    if ((r = load_all(doc, "bufferViews", sizeof *doc->views, (void **)&doc->views, &doc->view_count, load_view)) !=
            SINEW_OK ||
        (r = load_all(doc, "accessors", sizeof *doc->accessors, (void **)&doc->accessors, &doc->accessor_count,
                      load_accessor)) != SINEW_OK)
        return r;
    return SINEW_OK;
}

void gltf_doc_close(gltf_doc *doc)
{
    if (doc->root) cJSON_Delete(doc->root);
    int slots = doc->buffer_slots > doc->buffer_count ? doc->buffer_slots : doc->buffer_count;
    for (int i = 0; i < slots; ++i) sinew__free(&doc->alloc, doc->buffers[i].owned);
    sinew__free(&doc->alloc, doc->buffers);
    sinew__free(&doc->alloc, doc->views);
    sinew__free(&doc->alloc, doc->accessors);
    sinew__free(&doc->alloc, doc->base_dir);
    sinew__free(&doc->alloc, doc->file_data);
    memset(doc, 0, sizeof *doc);
}
