/* SPDX-License-Identifier: MIT */
/* sinew asset to glTF 2.0 (.glb, or .gltf with a .bin beside it): joints
 * become nodes with their rest TRS, every mesh a node of its own carrying
 * one primitive (and its skin), clips animations, spring bones
 * VRMC_springBone, timelines an animation's extras.sinew (docs/GLTF_OUT.md).
 * The JSON is written by hand rather than through cJSON so that every float
 * is printed with the 9 significant digits that give back the same float32,
 * and the bytes written depend on the asset alone. */
#include "base/base_internal.h"
#include "import_internal.h"
#include "sinew/sinew_import.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SINEW_HAVE_MESHOPT
#include <meshoptimizer.h>
#endif

enum {
    GL_I8 = 5120,
    GL_BYTE_U8 = 5121,
    GL_I16 = 5122,
    GL_U16 = 5123,
    GL_U32 = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963
};

/* ---- growing byte buffers ------------------------------------------------ */

typedef struct gw_buf {
    unsigned char *data;
    size_t size, cap;
} gw_buf;

typedef struct writer {
    sinew_allocator alloc;
    const sinew_options *options;
    sinew_error *err;
    bool failed;           /* out of memory somewhere: reported once at the end */
    gw_buf bin;            /* the binary buffer */
    gw_buf views, accessors; /* the bufferViews' and accessors' JSON elements */
    int view_count, accessor_count;
    int stride;            /* byteStride of the next view, 0 for none */
    bool meshopt;          /* EXT_meshopt_compression for vertex and index views */
    size_t fallback;       /* bytes of the fallback buffer (buffers[1]) so far */
    float scale;           /* every length is multiplied by it as written (options->scale) */
    bool turn;             /* options->rotation is not the identity: the asset is turned as written */
    sinew_quat rotation;   /* options->rotation, normalized */
    float turn_m[9];       /* its matrix, row-major, entries within 1e-6 of 0 or +-1 made exact */
    const int16_t *parents; /* the skeleton's: the roots' keys turn */
    int joint_count;
    sinew_gltf_write_report report;
} writer;

/* `count` floats times the writer's scale, in memory the caller frees;
 * NULL (the writer failed) when out of memory. */
static float *scaled_copy(writer *w, const float *src, size_t count)
{
    float *f = sinew__alloc(&w->alloc, sizeof *f * count + 1);
    if (!f) {
        w->failed = true;
        return NULL;
    }
    for (size_t i = 0; i < count; ++i) f[i] = src[i] * w->scale;
    return f;
}

static sinew_vec3 scaled(const writer *w, sinew_vec3 v)
{
    return (sinew_vec3){v.x * w->scale, v.y * w->scale, v.z * w->scale};
}

/* The rotation's matrix. Its entries are rounded from the quaternion's
 * products; an axis swap's are 0 and +-1 exactly, so that it moves no
 * coordinate by a rounding. */
static void rotation_matrix(writer *w)
{
    double m[9];
    sinew__rotation_rows(w->rotation, m);
    for (int i = 0; i < 9; ++i) {
        double v = m[i];
        if (fabs(v) < 1e-6) v = 0.0;
        else if (fabs(fabs(v) - 1.0) < 1e-6) v = v > 0.0 ? 1.0 : -1.0;
        w->turn_m[i] = (float)v;
    }
}

static sinew_vec3 turned(const writer *w, sinew_vec3 v)
{
    const float *m = w->turn_m;
    return (sinew_vec3){m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                        m[6] * v.x + m[7] * v.y + m[8] * v.z};
}

/* `count` vectors `stride` floats apart turned in place (a tangent's sign,
 * its 4th float, stays). */
static void turn_all(const writer *w, float *v, size_t count, int stride)
{
    for (size_t i = 0; v && i < count; ++i) {
        float *p = v + i * (size_t)stride;
        sinew_vec3 t = turned(w, (sinew_vec3){p[0], p[1], p[2]});
        p[0] = t.x, p[1] = t.y, p[2] = t.z;
    }
}

/* A copy of `count` vectors `stride` floats apart, turned; NULL (the
 * writer failed) when out of memory. */
static float *turned_copy(writer *w, const float *src, size_t count, int stride)
{
    float *f = sinew__alloc(&w->alloc, sizeof *f * count * (size_t)stride + 1);
    if (!f) {
        w->failed = true;
        return NULL;
    }
    memcpy(f, src, sizeof *f * count * (size_t)stride);
    turn_all(w, f, count, stride);
    return f;
}

/* Whether `mesh` is in the scene's space, where the rotation turns it:
 * skinned (glTF skins it in the scene's space) or following no joint. */
static bool mesh_turns(const writer *w, const sinew_mesh *mesh)
{
    return w->turn && (mesh->skin || mesh->joint < 0 || mesh->joint >= w->joint_count);
}

/* KHR_mesh_quantization: a mesh's positions as unsigned shorts on a grid
 * of `scale` from `offset`, the same for every axis so that normals keep
 * their directions; the mesh's node (or, skinned, its inverse binds)
 * carries the dequantization. */
typedef struct quant {
    bool on;
    float offset[3];
    float scale;
} quant;

static bool buf_reserve(writer *w, gw_buf *b, size_t more)
{
    if (w->failed) return false;
    if (b->size + more <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->size + more) {
        if (cap > SIZE_MAX / 2) {
            w->failed = true;
            return false;
        }
        cap *= 2;
    }
    unsigned char *p = sinew__alloc(&w->alloc, cap);
    if (!p) {
        w->failed = true;
        return false;
    }
    if (b->size) memcpy(p, b->data, b->size);
    sinew__free(&w->alloc, b->data);
    b->data = p, b->cap = cap;
    return true;
}

static void buf_put(writer *w, gw_buf *b, const void *data, size_t size)
{
    if (!size || !buf_reserve(w, b, size)) return;
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

static void buf_text(writer *w, gw_buf *b, const char *text) { buf_put(w, b, text, strlen(text)); }

static void buf_printf(writer *w, gw_buf *b, const char *fmt, ...) SINEW__PRINTF(3, 4);
static void buf_printf(writer *w, gw_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        buf_put(w, b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(w, b, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
}

static void buf_pad(writer *w, gw_buf *b, size_t align, unsigned char byte)
{
    while (b->size % align) buf_put(w, b, &byte, 1);
}

static void buf_free(writer *w, gw_buf *b)
{
    sinew__free(&w->alloc, b->data);
    *b = (gw_buf){0};
}

/* A float that reads back as the same float32 (every value written is
 * finite: assets are validated when made). */
static void put_float(writer *w, gw_buf *b, float x)
{
    if (x == 0.0f) x = 0.0f; /* -0 and 0 alike */
    buf_printf(w, b, "%.9g", (double)x);
}

static void put_floats(writer *w, gw_buf *b, const float *x, int n)
{
    buf_text(w, b, "[");
    for (int i = 0; i < n; ++i) {
        if (i) buf_text(w, b, ",");
        put_float(w, b, x[i]);
    }
    buf_text(w, b, "]");
}

/* A JSON string: quotes, backslashes and control characters escaped, and
 * bytes that are not UTF-8 replaced by U+FFFD, so that any name an asset
 * holds (an FBX file's bytes) makes valid JSON. */
static void put_string(writer *w, gw_buf *b, const char *s)
{
    buf_text(w, b, "\"");
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        bool ok = len > 0 && !(len == 2 && c < 0xc2) && !(c > 0xf4);
        for (int i = 1; ok && i < len; ++i) ok = (p[i] & 0xc0) == 0x80;
        if (ok && len == 3) {
            unsigned cp = ((c & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
            ok = cp >= 0x800 && !(cp >= 0xd800 && cp <= 0xdfff);
        }
        if (ok && len == 4) {
            unsigned cp = ((c & 0x07u) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) | (p[3] & 0x3fu);
            ok = cp >= 0x10000 && cp <= 0x10ffff;
        }
        if (!ok) {
            buf_text(w, b, "\xef\xbf\xbd");
            ++p;
        } else if (c == '"' || c == '\\') {
            buf_printf(w, b, "\\%c", (char)c);
            ++p;
        } else if (c < 0x20) {
            buf_printf(w, b, "\\u%04x", c);
            ++p;
        } else {
            buf_put(w, b, p, (size_t)len);
            p += len;
        }
    }
    buf_text(w, b, "\"");
}

/* ---- buffer views and accessors ----------------------------------------- */

#ifdef SINEW_HAVE_MESHOPT
/* EXT_meshopt_compression: `bytes` of elements of `element` bytes encoded
 * into the binary buffer (ATTRIBUTES for vertex data; TRIANGLES, or INDICES
 * for indices that are not triangles) and a view whose own range lies in
 * the fallback buffer, as the extension describes. Returns -1 where the
 * data does not suit the codec (the caller writes it plain). */
static int add_meshopt_view(writer *w, const void *data, size_t bytes, int target, size_t element)
{
    size_t count = bytes / element, bound;
    bool vertex = target == GL_ARRAY_BUFFER;
    if (vertex ? element % 4 || element > 256 : element != 2 && element != 4) return -1;
    uint32_t *ix = NULL, top = 0;
    if (vertex) {
        bound = meshopt_encodeVertexBufferBound(count, element);
    } else {
        ix = sinew__alloc(&w->alloc, count * sizeof *ix + 1);
        if (!ix) {
            w->failed = true;
            return 0;
        }
        for (size_t i = 0; i < count; ++i) {
            if (element == 2) {
                uint16_t v;
                memcpy(&v, (const uint8_t *)data + 2 * i, 2);
                ix[i] = v;
            } else {
                memcpy(&ix[i], (const uint8_t *)data + 4 * i, 4);
            }
            top = ix[i] > top ? ix[i] : top;
        }
        bound = count % 3 ? meshopt_encodeIndexSequenceBound(count, (size_t)top + 1)
                          : meshopt_encodeIndexBufferBound(count, (size_t)top + 1);
    }
    buf_pad(w, &w->bin, 4, 0);
    size_t offset = w->bin.size, n = 0;
    if (buf_reserve(w, &w->bin, bound)) {
        unsigned char *out = w->bin.data + offset;
        /* the extension's bitstreams: vertex codec 0, index codec 1 (the
         * library's own default for indices was 0 until 0.19) */
        if (!vertex) meshopt_encodeIndexVersion(1);
        n = vertex ? meshopt_encodeVertexBuffer(out, bound, data, count, element)
            : count % 3 ? meshopt_encodeIndexSequence(out, bound, ix, count)
                        : meshopt_encodeIndexBuffer(out, bound, ix, count);
    }
    sinew__free(&w->alloc, ix);
    if (w->failed) return 0;
    if (n == 0) return -1;
    w->bin.size += n;
    w->fallback = (w->fallback + 3) / 4 * 4;
    buf_printf(w, &w->views, "%s{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu", w->view_count ? "," : "",
               w->fallback, bytes);
    if (w->stride) buf_printf(w, &w->views, ",\"byteStride\":%d", w->stride);
    buf_printf(w, &w->views, ",\"target\":%d,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
               "\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":%zu,\"mode\":\"%s\",\"count\":%zu}}}",
               target, offset, n, element, vertex ? "ATTRIBUTES" : count % 3 ? "INDICES" : "TRIANGLES", count);
    w->fallback += bytes;
    w->report.meshopt_views++;
    w->report.meshopt_bytes += bytes;
    return w->view_count++;
}
#endif

/* Appends `bytes` to the binary buffer on a 4-byte boundary (the largest
 * component is 4 bytes, and vertex attributes must start on 4) and makes a
 * bufferView of them; target 0 for none. Vertex and index data (elements
 * of `element` bytes) go through EXT_meshopt_compression when asked. */
static int add_view(writer *w, const void *data, size_t bytes, int target, size_t element)
{
#ifdef SINEW_HAVE_MESHOPT
    if (w->meshopt && target && bytes) {
        int v = add_meshopt_view(w, data, bytes, target, element);
        if (v >= 0) return v;
    }
#else
    (void)element;
#endif
    buf_pad(w, &w->bin, 4, 0);
    size_t offset = w->bin.size;
    buf_put(w, &w->bin, data, bytes);
    buf_printf(w, &w->views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", w->view_count ? "," : "",
               offset, bytes);
    if (w->stride) buf_printf(w, &w->views, ",\"byteStride\":%d", w->stride);
    if (target) buf_printf(w, &w->views, ",\"target\":%d", target);
    buf_text(w, &w->views, "}");
    return w->view_count++;
}

static const char *type_name(int components)
{
    static const char *const names[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    return components == 16 ? "MAT4" : names[components];
}

/* The JSON of an accessor over `view`: its type, count and, where given,
 * min and max; returns its index. */
static int put_accessor(writer *w, int view, int count, int components, int component_type, bool normalized,
                        const float *min, const float *max)
{
    buf_printf(w, &w->accessors, "%s{\"bufferView\":%d,\"componentType\":%d,%s\"count\":%d,\"type\":\"%s\"",
               w->accessor_count ? "," : "", view, component_type, normalized ? "\"normalized\":true," : "", count,
               type_name(components));
    if (min && max) {
        buf_text(w, &w->accessors, ",\"min\":");
        put_floats(w, &w->accessors, min, components);
        buf_text(w, &w->accessors, ",\"max\":");
        put_floats(w, &w->accessors, max, components);
    }
    buf_text(w, &w->accessors, "}");
    return w->accessor_count++;
}

/* An accessor of `count` elements of `components` components over a view
 * of its own; min and max written where given. */
static int add_accessor(writer *w, const void *data, int count, int components, int component_type,
                        size_t component_bytes, bool normalized, int target, const float *min, const float *max)
{
    int view = add_view(w, data, (size_t)count * (size_t)components * component_bytes, target,
                        (size_t)components * component_bytes);
    return put_accessor(w, view, count, components, component_type, normalized, min, max);
}

/* An accessor over a view of `stride` bytes a vertex: for elements of
 * fewer bytes than a multiple of 4 (3 bytes, 3 shorts), which vertex
 * attributes must pad. */
static int add_strided_accessor(writer *w, const void *data, int count, int components, int component_type,
                                bool normalized, int stride, const float *min, const float *max)
{
    w->stride = stride;
    int view = add_view(w, data, (size_t)count * (size_t)stride, GL_ARRAY_BUFFER, (size_t)stride);
    w->stride = 0;
    return put_accessor(w, view, count, components, component_type, normalized, min, max);
}

/* A float accessor, with its bounds when `bounds` is set (POSITION and
 * animation inputs must have them). */
static int add_floats(writer *w, const float *data, int count, int components, int target, bool bounds)
{
    float min[16], max[16];
    if (bounds) {
        for (int c = 0; c < components; ++c) min[c] = INFINITY, max[c] = -INFINITY;
        for (int i = 0; i < count; ++i)
            for (int c = 0; c < components; ++c) {
                float v = data[(size_t)i * (size_t)components + (size_t)c];
                if (v < min[c]) min[c] = v;
                if (v > max[c]) max[c] = v;
            }
    }
    return add_accessor(w, data, count, components, GL_FLOAT, 4, false, target, bounds ? min : NULL,
                        bounds ? max : NULL);
}

/* ---- meshes --------------------------------------------------------------- */

/* Unit vectors as the specification asks of NORMAL and TANGENT: a vector
 * off unit length by more than 1e-4 is normalized, a zero one set to
 * (0, 0, 1), and a tangent's w to its sign (each counted in the report).
 * Returns the data to write: `src` itself where nothing changed. */
static const float *unit_vectors(writer *w, const float *src, int count, int stride, float **copy)
{
    *copy = NULL;
    int bad = 0;
    for (int i = 0; i < count; ++i) {
        const float *v = src + (size_t)i * (size_t)stride;
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        bad += fabsf(len - 1.0f) > 1e-4f || (stride == 4 && v[3] != 1.0f && v[3] != -1.0f);
    }
    if (!bad) return src;
    float *out = sinew__alloc(&w->alloc, sizeof(float) * (size_t)count * (size_t)stride);
    if (!out) {
        w->failed = true;
        return src;
    }
    memcpy(out, src, sizeof(float) * (size_t)count * (size_t)stride);
    for (int i = 0; i < count; ++i) {
        float *v = out + (size_t)i * (size_t)stride;
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        bool fixed = false;
        if (!(len > 1e-20f)) {
            v[0] = 0.0f, v[1] = 0.0f, v[2] = 1.0f;
            fixed = true;
        } else if (fabsf(len - 1.0f) > 1e-4f) {
            v[0] /= len, v[1] /= len, v[2] /= len;
            fixed = true;
        }
        if (stride == 4 && v[3] != 1.0f && v[3] != -1.0f) {
            v[3] = v[3] < 0.0f ? -1.0f : 1.0f;
            fixed = true;
        }
        w->report.repaired_vectors += fixed;
    }
    *copy = out;
    return out;
}

/* Weights rounded to `scale` (255 or 65535) summing to it exactly: each
 * rounded down, then the units left given to the largest remainders. */
static void quantize_weights(const float *wt, int n, unsigned scale, unsigned *q)
{
    float rem[8];
    unsigned sum = 0;
    for (int i = 0; i < n; ++i) {
        float x = wt[i] * (float)scale;
        q[i] = (unsigned)floorf(x);
        rem[i] = x - (float)q[i];
        sum += q[i];
    }
    while (sum < scale) {
        int best = 0;
        for (int i = 1; i < n; ++i)
            if (rem[i] > rem[best]) best = i;
        q[best]++, rem[best] = -1.0f, ++sum;
    }
    while (sum > scale) { /* only through rounding of sums already off */
        int best = 0;
        for (int i = 1; i < n; ++i)
            if (q[i] > q[best]) best = i;
        q[best]--, --sum;
    }
}

/* A vertex's weights summed as the Khronos validator sums them: in
 * float32, component by component across the sets. */
static float stored_sum(const float *w, int slots)
{
    float sum = 0.0f;
    for (int c = 0; c < 4; ++c)
        for (int set = 0; set < slots / 4; ++set)
            if (w[set * 4 + c] != 0.0f) sum += w[set * 4 + c];
    return sum;
}

/* Float weights whose stored sum lies within 2e-7 a weight of 1, which the
 * specification's validator asks (the loaders keep sums within 1e-5 bit
 * for bit): divided by their sum, then the largest given what the others
 * leave. Returns whether any changed. */
static bool normalize_weights(float *w, int slots)
{
    int k = 0, big = 0;
    for (int i = 0; i < slots; ++i) {
        k += w[i] != 0.0f;
        if (w[i] > w[big]) big = i;
    }
    float sum = stored_sum(w, slots);
    if (!k || fabsf(sum - 1.0f) <= 1e-7f * (float)k) return false;
    for (int i = 0; i < slots; ++i) w[i] /= sum;
    for (int round = 0; round < 4; ++round) {
        sum = stored_sum(w, slots);
        if (fabsf(sum - 1.0f) <= 1e-7f * (float)k) break;
        w[big] += 1.0f - sum;
    }
    return true;
}

/* JOINTS_n and WEIGHTS_n of a skinned mesh: influences padded to 4 or 8,
 * the same joint listed twice merged into one (the specification asks
 * that a vertex name a joint once), unused slots joint 0 weight 0. Joint
 * indices as unsigned bytes where the skin has at most 256 joints, else
 * unsigned shorts; weights as floats or normalized integers. Writes the
 * attributes' JSON to `attr`. */
static void write_skin_attributes(writer *w, const sinew_mesh *mesh, const sinew_gltf_write_options *o, gw_buf *attr)
{
    const sinew_skin *skin = mesh->skin;
    int limit = o && o->max_influences > 0 ? o->max_influences : 8;
    int n = mesh->vertex_count, slots = skin->influence_count > 4 && limit > 4 ? 8 : 4;
    bool u8 = skin->joint_count <= 256;
    size_t jsize = u8 ? 1 : 2;
    sinew_gltf_weights wt = o ? o->weights : SINEW_GLTF_WEIGHTS_FLOAT;
    size_t wsize = wt == SINEW_GLTF_WEIGHTS_UNORM8 ? 1 : wt == SINEW_GLTF_WEIGHTS_UNORM16 ? 2 : 4;
    unsigned char *joints = sinew__alloc(&w->alloc, (size_t)n * (size_t)slots * jsize + 1);
    unsigned char *weights = sinew__alloc(&w->alloc, (size_t)n * (size_t)slots * wsize + 1);
    if (!joints || !weights) {
        w->failed = true;
        sinew__free(&w->alloc, joints), sinew__free(&w->alloc, weights);
        return;
    }
    memset(joints, 0, (size_t)n * (size_t)slots * jsize);
    memset(weights, 0, (size_t)n * (size_t)slots * wsize);
    for (int v = 0; v < n; ++v) {
        int ij[SINEW_MAX_INFLUENCES], oj[8] = {0};
        float iw[SINEW_MAX_INFLUENCES], ow[8] = {0};
        sinew_skin_vertex(skin, v, ij, iw);
        int k = 0;
        for (int i = 0; i < skin->influence_count; ++i) {
            if (!(iw[i] > 0.0f)) continue;
            int at = -1;
            for (int m = 0; m < k; ++m)
                if (oj[m] == ij[i]) at = m;
            if (at >= 0) {
                ow[at] += iw[i];
                w->report.merged_influences++;
            } else if (k < 8) {
                oj[k] = ij[i], ow[k++] = iw[i];
            }
        }
        if (k > limit) {
            /* the `limit` heaviest first (ties: the earlier slot), the rest
             * dropped and the kept ones divided by their sum */
            for (int i = 0; i < limit; ++i) {
                int best = i;
                for (int m = i + 1; m < k; ++m)
                    if (ow[m] > ow[best]) best = m;
                int tj = oj[i];
                float tw = ow[i];
                oj[i] = oj[best], ow[i] = ow[best], oj[best] = tj, ow[best] = tw;
            }
            float kept = 0.0f;
            for (int i = 0; i < k; ++i) {
                if (i < limit) {
                    kept += ow[i];
                } else {
                    if (ow[i] > w->report.dropped_weight) w->report.dropped_weight = ow[i];
                    oj[i] = 0, ow[i] = 0.0f;
                }
            }
            for (int i = 0; i < limit && kept > 0.0f; ++i) ow[i] /= kept;
            k = limit;
            w->report.limited_vertices++;
        }
        unsigned q[8] = {0};
        if (wsize != 4 && k) quantize_weights(ow, k, wsize == 1 ? 255u : 65535u, q);
        if (wsize == 4) w->report.normalized_vertices += normalize_weights(ow, slots);
        for (int i = 0; i < slots; ++i) {
            size_t e = (size_t)v * (size_t)slots + (size_t)i;
            if (u8) {
                joints[e] = (unsigned char)oj[i];
            } else {
                uint16_t j16 = (uint16_t)oj[i];
                memcpy(joints + e * 2, &j16, 2);
            }
            if (wsize == 4) {
                memcpy(weights + e * 4, &ow[i], 4);
            } else if (wsize == 2) {
                uint16_t w16 = (uint16_t)q[i];
                memcpy(weights + e * 2, &w16, 2);
            } else {
                weights[e] = (unsigned char)q[i];
            }
        }
    }
    int wtype = wsize == 4 ? GL_FLOAT : wsize == 2 ? GL_U16 : GL_BYTE_U8;
    for (int set = 0; set < slots / 4; ++set) {
        /* each set its own view: interleaving is not needed and views of
         * one attribute read simplest */
        unsigned char *js = sinew__alloc(&w->alloc, (size_t)n * 4 * jsize + 1);
        unsigned char *ws = sinew__alloc(&w->alloc, (size_t)n * 4 * wsize + 1);
        if (!js || !ws) {
            w->failed = true;
            sinew__free(&w->alloc, js), sinew__free(&w->alloc, ws);
            break;
        }
        for (int v = 0; v < n; ++v) {
            memcpy(js + (size_t)v * 4 * jsize, joints + ((size_t)v * (size_t)slots + (size_t)set * 4) * jsize, 4 * jsize);
            memcpy(ws + (size_t)v * 4 * wsize, weights + ((size_t)v * (size_t)slots + (size_t)set * 4) * wsize,
                   4 * wsize);
        }
        int ja = add_accessor(w, js, n, 4, u8 ? GL_BYTE_U8 : GL_U16, jsize, false, GL_ARRAY_BUFFER, NULL, NULL);
        int wa = add_accessor(w, ws, n, 4, wtype, wsize, wsize != 4, GL_ARRAY_BUFFER, NULL, NULL);
        buf_printf(w, attr, ",\"JOINTS_%d\":%d,\"WEIGHTS_%d\":%d", set, ja, set, wa);
        sinew__free(&w->alloc, js), sinew__free(&w->alloc, ws);
    }
    sinew__free(&w->alloc, joints), sinew__free(&w->alloc, weights);
}

/* The quantization grid of a mesh's positions: its box's corner and its
 * largest side over 65,535. */
static quant mesh_quant(writer *w, const sinew_mesh *mesh)
{
    quant q = {true, {INFINITY, INFINITY, INFINITY}, 1.0f};
    float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    /* the positions as written: scaled, and turned where the mesh turns */
    float *p = scaled_copy(w, mesh->positions, (size_t)mesh->vertex_count * 3);
    if (!p) return q;
    if (mesh_turns(w, mesh)) turn_all(w, p, (size_t)mesh->vertex_count, 3);
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int c = 0; c < 3; ++c) {
            float x = p[v * 3 + c];
            q.offset[c] = fminf(q.offset[c], x), hi[c] = fmaxf(hi[c], x);
        }
    sinew__free(&w->alloc, p);
    float extent = fmaxf(hi[0] - q.offset[0], fmaxf(hi[1] - q.offset[1], hi[2] - q.offset[2]));
    if (extent > 0.0f) q.scale = extent / 65535.0f;
    return q;
}

/* Unit vectors (3 or 4 floats each, the 4th a sign) as normalized signed
 * bytes, 4 a vertex (a 3-vector's padded: vertex attributes start on 4
 * bytes). */
static int add_snorm8(writer *w, const float *v, int count, int components)
{
    int8_t *q = sinew__alloc(&w->alloc, (size_t)count * 4 + 1);
    if (!q) {
        w->failed = true;
        return 0;
    }
    for (int i = 0; i < count; ++i)
        for (int c = 0; c < 4; ++c)
            q[i * 4 + c] = c < components ? (int8_t)lrintf(fmaxf(-1.0f, fminf(1.0f, v[i * components + c])) * 127.0f)
                                          : 0;
    int a = components == 3 ? add_strided_accessor(w, q, count, 3, GL_I8, true, 4, NULL, NULL)
                            : add_accessor(w, q, count, 4, GL_I8, 1, true, GL_ARRAY_BUFFER, NULL, NULL);
    sinew__free(&w->alloc, q);
    return a;
}

/* Values in [0, 1] as normalized unsigned shorts; -1 where one lies
 * outside (the caller writes floats). */
static int add_unorm16(writer *w, const float *v, int count, int components)
{
    size_t n = (size_t)count * (size_t)components;
    for (size_t i = 0; i < n; ++i)
        if (!(v[i] >= 0.0f && v[i] <= 1.0f)) return -1;
    uint16_t *q = sinew__alloc(&w->alloc, n * 2 + 1);
    if (!q) {
        w->failed = true;
        return 0;
    }
    for (size_t i = 0; i < n; ++i) q[i] = (uint16_t)lrintf(v[i] * 65535.0f);
    int a = add_accessor(w, q, count, components, GL_U16, 2, true, GL_ARRAY_BUFFER, NULL, NULL);
    sinew__free(&w->alloc, q);
    return a;
}

/* Positions (or, `delta`, morph position deltas) on the mesh's grid:
 * unsigned shorts, deltas signed shorts where they fit, else floats in the
 * grid's units. */
static int add_quantized_positions(writer *w, const float *p, int count, const quant *q, bool delta)
{
    size_t n = (size_t)count * 3;
    float *f = sinew__alloc(&w->alloc, n * sizeof *f + 1);
    if (!f) {
        w->failed = true;
        return 0;
    }
    bool fits = true;
    for (size_t i = 0; i < n; ++i) {
        f[i] = rintf((p[i] - (delta ? 0.0f : q->offset[i % 3])) / q->scale);
        if (delta && !(fabsf(f[i]) <= 32767.0f)) fits = false;
        if (!delta) f[i] = fmaxf(0.0f, fminf(65535.0f, f[i]));
    }
    int a;
    if (delta && !fits) {
        for (size_t i = 0; i < n; ++i) f[i] = p[i] / q->scale;
        a = add_floats(w, f, count, 3, GL_ARRAY_BUFFER, true);
    } else {
        /* 4 shorts a vertex, the 4th 0: a vertex attribute starts on 4 bytes */
        uint16_t *u = sinew__alloc(&w->alloc, (size_t)count * 8 + 1);
        if (!u) {
            w->failed = true;
            sinew__free(&w->alloc, f);
            return 0;
        }
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = 0; i < n; ++i) {
            size_t at = i / 3 * 4 + i % 3;
            if (delta) {
                int16_t s16 = (int16_t)f[i];
                memcpy(&u[at], &s16, 2);
            } else {
                u[at] = (uint16_t)f[i];
            }
            if (i % 3 == 2) u[at + 1] = 0;
            lo[i % 3] = fminf(lo[i % 3], f[i]), hi[i % 3] = fmaxf(hi[i % 3], f[i]);
        }
        a = add_strided_accessor(w, u, count, 3, delta ? GL_I16 : GL_U16, false, 8, lo, hi);
        sinew__free(&w->alloc, u);
    }
    sinew__free(&w->alloc, f);
    return a;
}

/* One sinew mesh as a glTF mesh of one primitive, appended to `meshes`;
 * its skin, if any, to `skins`. */
static void write_mesh(writer *w, const sinew_mesh *mesh, const sinew_gltf_write_options *o, const quant *q,
                       gw_buf *meshes, gw_buf *skins, int index, int skin_index)
{
    int n = mesh->vertex_count;
    gw_buf attr = {0};
    float *copy;
    bool qz = q->on, turn = mesh_turns(w, mesh);
    float *pos = scaled_copy(w, mesh->positions, (size_t)n * 3);
    if (!pos) return;
    if (turn) turn_all(w, pos, (size_t)n, 3);
    buf_printf(w, &attr, "\"POSITION\":%d", qz ? add_quantized_positions(w, pos, n, q, false)
                                                : add_floats(w, pos, n, 3, GL_ARRAY_BUFFER, true));
    sinew__free(&w->alloc, pos);
    if (mesh->normals) {
        float *t = turn ? turned_copy(w, mesh->normals, (size_t)n, 3) : NULL;
        if (turn && !t) return;
        const float *nv = unit_vectors(w, t ? t : mesh->normals, n, 3, &copy);
        buf_printf(w, &attr, ",\"NORMAL\":%d", qz ? add_snorm8(w, nv, n, 3) : add_floats(w, nv, n, 3, GL_ARRAY_BUFFER, false));
        sinew__free(&w->alloc, copy), sinew__free(&w->alloc, t);
    }
    if (mesh->tangents && mesh->normals) {
        float *t = turn ? turned_copy(w, mesh->tangents, (size_t)n, 4) : NULL;
        if (turn && !t) return;
        const float *tv = unit_vectors(w, t ? t : mesh->tangents, n, 4, &copy);
        buf_printf(w, &attr, ",\"TANGENT\":%d", qz ? add_snorm8(w, tv, n, 4) : add_floats(w, tv, n, 4, GL_ARRAY_BUFFER, false));
        sinew__free(&w->alloc, copy), sinew__free(&w->alloc, t);
    }
    for (int t = 0; t < mesh->texcoord_count; ++t) {
        int a = qz ? add_unorm16(w, mesh->texcoords[t], n, 2) : -1;
        if (a < 0) a = add_floats(w, mesh->texcoords[t], n, 2, GL_ARRAY_BUFFER, false);
        buf_printf(w, &attr, ",\"TEXCOORD_%d\":%d", t, a);
    }
    if (mesh->colors) {
        int a = qz ? add_unorm16(w, mesh->colors, n, 4) : -1;
        if (a < 0) a = add_floats(w, mesh->colors, n, 4, GL_ARRAY_BUFFER, false);
        buf_printf(w, &attr, ",\"COLOR_0\":%d", a);
    }
    if (mesh->skin) write_skin_attributes(w, mesh, o, &attr);
    buf_put(w, &attr, "", 1);
    buf_printf(w, meshes, "%s{\"name\":", index ? "," : "");
    put_string(w, meshes, mesh->name);
    buf_printf(w, meshes, ",\"primitives\":[{\"attributes\":{%s}", attr.data ? (const char *)attr.data : "");
    buf_free(w, &attr);
    if (mesh->index_count > 0) {
        /* the smallest type that holds every index; 65535 is the
         * primitive restart value of unsigned shorts, which glTF forbids */
        if (n <= 65535) {
            uint16_t *ix = sinew__alloc(&w->alloc, sizeof *ix * (size_t)mesh->index_count);
            if (ix) {
                for (int i = 0; i < mesh->index_count; ++i) ix[i] = (uint16_t)mesh->indices[i];
                buf_printf(w, meshes, ",\"indices\":%d",
                           add_accessor(w, ix, mesh->index_count, 1, GL_U16, 2, false, GL_ELEMENT_ARRAY_BUFFER, NULL,
                                        NULL));
                sinew__free(&w->alloc, ix);
            } else {
                w->failed = true;
            }
        } else {
            buf_printf(w, meshes, ",\"indices\":%d",
                       add_accessor(w, mesh->indices, mesh->index_count, 1, GL_U32, 4, false, GL_ELEMENT_ARRAY_BUFFER,
                                    NULL, NULL));
        }
    } else {
        buf_text(w, meshes, ",\"mode\":0"); /* no triangles: the vertices as points */
    }
    const sinew_morph *morph = mesh->morph;
    if (morph) {
        buf_text(w, meshes, ",\"targets\":[");
        size_t stride = (size_t)n * 3;
        for (int t = 0; t < morph->target_count; ++t) {
            buf_text(w, meshes, t ? ",{" : "{");
            const char *sep = "";
            if (morph->positions) {
                float *d = scaled_copy(w, morph->positions + (size_t)t * stride, stride);
                if (d && turn) turn_all(w, d, (size_t)n, 3);
                if (d)
                    buf_printf(w, meshes, "\"POSITION\":%d", qz ? add_quantized_positions(w, d, n, q, true)
                                                               : add_floats(w, d, n, 3, GL_ARRAY_BUFFER, true));
                sinew__free(&w->alloc, d);
                sep = ",";
            }
            if (morph->normals && mesh->normals) {
                const float *src = morph->normals + (size_t)t * stride;
                float *d = turn ? turned_copy(w, src, (size_t)n, 3) : NULL;
                buf_printf(w, meshes, "%s\"NORMAL\":%d", sep, add_floats(w, d ? d : src, n, 3, GL_ARRAY_BUFFER, false));
                sinew__free(&w->alloc, d);
                sep = ",";
            }
            if (morph->tangents && mesh->tangents && mesh->normals) {
                const float *src = morph->tangents + (size_t)t * stride;
                float *d = turn ? turned_copy(w, src, (size_t)n, 3) : NULL;
                buf_printf(w, meshes, "%s\"TANGENT\":%d", sep, add_floats(w, d ? d : src, n, 3, GL_ARRAY_BUFFER, false));
                sinew__free(&w->alloc, d);
            }
            buf_text(w, meshes, "}");
        }
        buf_text(w, meshes, "]");
    }
    buf_text(w, meshes, "}]");
    if (morph && mesh->morph_weights) {
        buf_text(w, meshes, ",\"weights\":");
        put_floats(w, meshes, mesh->morph_weights, morph->target_count);
    }
    buf_text(w, meshes, "}");
    if (mesh->skin) {
        const sinew_skin *skin = mesh->skin;
        /* the specification asks for affine inverse binds: the last row is
         * set to 0 0 0 1 (the loaders give affine ones; this only clears
         * rounding) */
        sinew_mat4 *ibm = sinew__alloc(&w->alloc, sizeof *ibm * (size_t)skin->joint_count);
        if (!ibm) {
            w->failed = true;
            return;
        }
        /* quantized positions: the dequantization follows each inverse
         * bind, since glTF ignores a skinned mesh node's transform */
        sinew_mat4 dq = sinew_mat4_identity();
        dq.m[0] = dq.m[5] = dq.m[10] = q->scale;
        dq.m[12] = q->offset[0], dq.m[13] = q->offset[1], dq.m[14] = q->offset[2];
        /* the vertices turned by R: IBM * R^-1 takes them back before the
         * bind, so that skinning gives R times the source (column-major:
         * R^-1's column c is R's row c) */
        sinew_mat4 back = sinew_mat4_identity();
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c) back.m[c * 4 + i] = w->turn_m[c * 3 + i];
        for (int j = 0; j < skin->joint_count; ++j) {
            /* the asset scaled by s about the origin: S * IBM * S^-1, the
             * same linear part and s times the translation */
            sinew_mat4 b = skin->inverse_bind[j];
            b.m[12] *= w->scale, b.m[13] *= w->scale, b.m[14] *= w->scale;
            if (turn) b = sinew_mat4_mul(&b, &back);
            ibm[j] = qz ? sinew_mat4_mul(&b, &dq) : b;
            ibm[j].m[3] = ibm[j].m[7] = ibm[j].m[11] = 0.0f, ibm[j].m[15] = 1.0f;
        }
        int a = add_accessor(w, ibm, skin->joint_count, 16, GL_FLOAT, 4, false, 0, NULL, NULL);
        sinew__free(&w->alloc, ibm);
        buf_printf(w, skins, "%s{\"inverseBindMatrices\":%d,\"joints\":[", skin_index ? "," : "", a);
        for (int j = 0; j < skin->joint_count; ++j) buf_printf(w, skins, "%s%d", j ? "," : "", skin->joints[j]);
        buf_text(w, skins, "]}");
    }
}

/* ---- animations ----------------------------------------------------------- */

/* The key times written for one clip, so that tracks of equal times share
 * one input accessor. */
typedef struct time_key {
    const float *times;
    int count;
    int accessor;
} time_key;

typedef struct anim_state {
    gw_buf samplers, channels;
    int sampler_count, channel_count;
    time_key *inputs;
    int input_count;
    /* per joint, the paths written (bit 0 translation, 1 rotation, 2 scale) */
    unsigned char *paths;
    float last_key;
} anim_state;

static int input_accessor(writer *w, anim_state *s, const float *times, int count)
{
    for (int i = 0; i < s->input_count; ++i)
        if (s->inputs[i].count == count &&
            (s->inputs[i].times == times || memcmp(s->inputs[i].times, times, sizeof *times * (size_t)count) == 0))
            return s->inputs[i].accessor;
    int a = add_floats(w, times, count, 1, 0, true);
    s->inputs[s->input_count++] = (time_key){times, count, a};
    return a;
}

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};
static const char *const interp_names[] = {"LINEAR", "STEP", "CUBICSPLINE"};

/* A sampler of `track`'s keys and a channel for each node it drives. */
static void write_track(writer *w, anim_state *s, const sinew_track *t, const int *nodes, int node_count)
{
    int comps = t->target == SINEW_TARGET_WEIGHTS ? t->width : t->target == SINEW_TARGET_ROTATION ? 4 : 3;
    int per_key = t->interpolation == SINEW_INTERP_CUBICSPLINE ? 3 : 1;
    int input = input_accessor(w, s, t->times, t->key_count);
    /* translations (and a spline's tangents, linear in them) scale; a
     * root's translations and rotations (tangents too) turn */
    size_t values_count = (size_t)t->key_count * (size_t)per_key;
    bool turn = w->turn && t->target != SINEW_TARGET_WEIGHTS && t->target != SINEW_TARGET_SCALE && t->joint >= 0 &&
                t->joint < w->joint_count && w->parents[t->joint] < 0;
    float *moved = t->target == SINEW_TARGET_TRANSLATION && (w->scale != 1.0f || turn)
                       ? scaled_copy(w, t->values, values_count * 3)
                       : NULL;
    if (moved && turn) turn_all(w, moved, values_count, 3);
    if (turn && t->target == SINEW_TARGET_ROTATION) {
        moved = sinew__alloc(&w->alloc, sizeof *moved * values_count * 4 + 1);
        if (!moved) {
            w->failed = true;
            return;
        }
        for (size_t i = 0; i < values_count; ++i) {
            const float *v = t->values + i * 4;
            sinew_quat q = sinew_quat_mul(w->rotation, (sinew_quat){v[0], v[1], v[2], v[3]});
            moved[i * 4] = q.x, moved[i * 4 + 1] = q.y, moved[i * 4 + 2] = q.z, moved[i * 4 + 3] = q.w;
        }
    }
    const float *values = moved ? moved : t->values;
    int output = t->target == SINEW_TARGET_WEIGHTS
                     ? add_floats(w, values, t->key_count * per_key * comps, 1, 0, false)
                     : add_floats(w, values, t->key_count * per_key, comps, 0, false);
    sinew__free(&w->alloc, moved);
    buf_printf(w, &s->samplers, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"%s\"}",
               s->sampler_count ? "," : "", input, output, interp_names[t->interpolation]);
    for (int i = 0; i < node_count; ++i) {
        buf_printf(w, &s->channels, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}",
                   s->channel_count ? "," : "", s->sampler_count, nodes[i], path_names[t->target]);
        s->channel_count++;
    }
    s->sampler_count++;
    if (t->key_count && t->times[t->key_count - 1] > s->last_key) s->last_key = t->times[t->key_count - 1];
    if (t->target != SINEW_TARGET_WEIGHTS) s->paths[t->joint] |= (unsigned char)(1u << t->target);
}

/* A packed or compressed clip holds no translation, rotation or scale
 * tracks, and options->resample_rate asks every clip resampled: it is
 * sampled at `rate` (and at its duration) into LINEAR tracks, one for each
 * value of a joint that leaves its rest pose (one key where it stays
 * still). The tracks made are measured against the clip by
 * sinew_clip_measure_error(), in the written units, into `error`. */
static sinew_result resample_clip(writer *w, const sinew_asset *a, const sinew_clip *clip, float rate,
                                  float shell, anim_state *s, float *error)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    double d = clip->duration;
    long long steps = (long long)ceil(d * rate - 1e-6);
    if (steps < 0) steps = 0;
    /* the poses and values held until the clip is measured take 80 bytes
     * a joint a sample: at most 2^22 joint samples (320 MiB) */
    if ((double)(steps + 1) * (double)n > (double)(1 << 22))
        return sinew__fail(w->err, SINEW_ERROR_UNSUPPORTED,
                           "sinew_write_gltf: clip \"%s\": %.0f samples at %g a second of %d joints, more than %d "
                           "joint samples to write", clip->name, d * rate, (double)rate, n, 1 << 22);
    int count = (int)steps + 1;
    float *times = sinew__alloc(&w->alloc, sizeof *times * (size_t)count);
    sinew_transform *poses = sinew__alloc(&w->alloc, sizeof *poses * (size_t)count * (size_t)n);
    /* every track's values (at most 3 a joint), kept until the clip made
     * of them is measured */
    float *values = sinew__alloc(&w->alloc, sizeof *values * 10 * (size_t)count * (size_t)n);
    sinew_track *tracks = sinew__alloc(&w->alloc, sizeof *tracks * 3 * (size_t)n);
    if (!times || !poses || !values || !tracks) {
        sinew__free(&w->alloc, times), sinew__free(&w->alloc, poses), sinew__free(&w->alloc, values);
        sinew__free(&w->alloc, tracks);
        return sinew__fail(w->err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_write_gltf: clip \"%s\": out of memory",
                           clip->name);
    }
    int k = 0;
    for (long long i = 0; i < steps; ++i) {
        float t = (float)((double)i / rate);
        if (t < clip->duration && (k == 0 || t > times[k - 1])) times[k++] = t;
    }
    if (k == 0 || clip->duration > times[k - 1]) times[k++] = clip->duration;
    count = k;
    sinew_result r = SINEW_OK;
    for (int i = 0; i < count && r == SINEW_OK; ++i)
        r = sinew_clip_sample(clip, sk, times[i], SINEW_SAMPLE_CLAMP, NULL, poses + (size_t)i * (size_t)n, n, w->err);
    int made = 0;
    float *next = values;
    for (int j = 0; j < n && r == SINEW_OK; ++j)
        for (int target = 0; target < 3; ++target) {
            int comps = target == 1 ? 4 : 3;
            bool rest = true, still = true;
            for (int i = 0; i < count; ++i) {
                const sinew_transform *p = &poses[(size_t)i * (size_t)n + (size_t)j];
                const float *v = target == 0 ? &p->translation.x : target == 1 ? &p->rotation.x : &p->scale.x;
                const sinew_transform *q = &sk->rest_pose[j];
                const float *rv = target == 0 ? &q->translation.x : target == 1 ? &q->rotation.x : &q->scale.x;
                memcpy(next + (size_t)i * (size_t)comps, v, sizeof(float) * (size_t)comps);
                rest = rest && memcmp(v, rv, sizeof(float) * (size_t)comps) == 0;
                still = still && memcmp(v, next, sizeof(float) * (size_t)comps) == 0;
            }
            if (rest) continue;
            int keys = still ? 1 : count;
            tracks[made] = (sinew_track){j, (sinew_track_target)target, SINEW_INTERP_LINEAR, keys, times, next, 0};
            write_track(w, s, &tracks[made], &j, 1);
            next += (size_t)keys * (size_t)comps;
            made++;
        }
    if (r == SINEW_OK && error) {
        /* the tracks as a clip, measured against the one they were sampled from */
        sinew_clip_desc desc = {.name = clip->name, .joint_count = n, .duration = clip->duration,
                                .track_count = made, .tracks = tracks};
        sinew_error me = {0};
        sinew_clip *back = sinew_clip_create(&desc, w->options, &me);
        sinew_clip_error_report e;
        float measure_rate = fmaxf(60.0f, 2.0f * rate);
        if (back && sinew_clip_measure_error(clip, back, sk, shell, measure_rate, &e, &me) == SINEW_OK) {
            *error = e.largest * w->scale;
            if (*error > w->report.resample_error) w->report.resample_error = *error;
        } else {
            /* the tracks are written all the same: only the figure is missing */
            *error = NAN;
            w->report.resample_error = NAN;
            sinew__warn(w->options, "sinew_write_gltf: clip \"%s\": the resampling error is not measured: %s",
                        clip->name, me.description);
        }
        sinew_clip_free(back);
    }
    /* the input accessors copy the times into the buffer: the pointer is
     * not kept past this clip's time list, which the next clip restarts */
    s->input_count = 0;
    sinew__free(&w->alloc, times), sinew__free(&w->alloc, poses), sinew__free(&w->alloc, values);
    sinew__free(&w->alloc, tracks);
    w->report.resampled_clips++;
    return r;
}

/* A clip's timeline as extras.sinew (docs/ANIMATION.md "Timelines"). */
static void write_timeline(writer *w, gw_buf *b, const sinew_timeline *tl)
{
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    buf_text(w, b, ",\"extras\":{\"sinew\":{\"events\":[");
    for (int e = 0; e < tl->event_count; ++e) {
        buf_text(w, b, e ? ",{\"name\":" : "{\"name\":");
        put_string(w, b, tl->events[e].name);
        buf_text(w, b, ",\"time\":");
        put_float(w, b, tl->events[e].time);
        buf_text(w, b, "}");
    }
    buf_text(w, b, "],\"tracks\":[");
    for (int i = 0; i < tl->track_count; ++i) {
        const sinew_user_track *t = &tl->tracks[i];
        buf_text(w, b, i ? ",{\"name\":" : "{\"name\":");
        put_string(w, b, t->name);
        buf_printf(w, b, ",\"type\":\"%s\",\"times\":", t->quaternion ? "QUATERNION" : types[t->components]);
        put_floats(w, b, t->times, t->key_count);
        buf_text(w, b, ",\"values\":");
        put_floats(w, b, t->values, t->key_count * t->components);
        bool any_step = false;
        for (int k = 0; t->step && k < t->key_count; ++k) any_step = any_step || t->step[k];
        if (any_step) {
            buf_text(w, b, ",\"step\":[");
            for (int k = 0; k < t->key_count; ++k) buf_printf(w, b, "%s%d", k ? "," : "", t->step[k] ? 1 : 0);
            buf_text(w, b, "]");
        }
        if (t->tolerance > 0.0f) {
            buf_text(w, b, ",\"tolerance\":");
            put_float(w, b, t->tolerance);
        }
        buf_text(w, b, "}");
    }
    buf_text(w, b, "]}}");
}

/* Every clip as an animation. `mesh_node` is the node of each mesh. */
static sinew_result write_animations(writer *w, const sinew_asset *a, const sinew_gltf_write_options *o,
                                     const int *mesh_node, gw_buf *out)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    int *nodes = sinew__alloc(&w->alloc, sizeof *nodes * ((size_t)a->mesh_count + 1));
    anim_state s = {0};
    s.paths = sinew__alloc(&w->alloc, (size_t)n);
    sinew_result r = SINEW_OK;
    if (!nodes || !s.paths) {
        r = sinew__fail(w->err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_write_gltf: out of memory");
        goto done;
    }
    for (int c = 0; c < a->clip_count && r == SINEW_OK; ++c) {
        const sinew_clip *clip = a->clips[c];
        if (clip->additive) {
            r = sinew__fail(w->err, SINEW_ERROR_UNSUPPORTED,
                            "sinew_write_gltf: clip \"%s\" is additive, which glTF cannot say (its values are deltas "
                            "over a reference pose); write the clip it was made from",
                            clip->name);
            break;
        }
        s.samplers.size = s.channels.size = 0;
        s.sampler_count = s.channel_count = s.input_count = 0;
        s.last_key = 0.0f;
        memset(s.paths, 0, (size_t)n);
        sinew__free(&w->alloc, s.inputs);
        s.inputs = sinew__alloc(&w->alloc, sizeof *s.inputs * ((size_t)clip->track_count + 4));
        if (!s.inputs) {
            r = sinew__fail(w->err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_write_gltf: out of memory");
            break;
        }
        bool resample = clip->packed || clip->compressed || (o && o->resample_rate > 0.0f);
        if (o && o->clip_errors) o->clip_errors[c] = -1.0f;
        if (resample) {
            float rate = o && o->resample_rate > 0.0f ? o->resample_rate
                         : o && o->sample_rate > 0.0f ? o->sample_rate
                                                      : 0.0f;
            sinew_compress_report cr;
            if (!(rate > 0.0f) && sinew_clip_compression(clip, &cr) && cr.sample_rate > 0.0f) rate = cr.sample_rate;
            if (!(rate > 0.0f)) rate = 30.0f;
            float shell = o && o->shell_distance > 0.0f ? o->shell_distance : 0.03f / w->scale, error = 0.0f;
            if ((r = resample_clip(w, a, clip, rate, shell, &s, &error)) != SINEW_OK) break;
            if (o && o->clip_errors) o->clip_errors[c] = error;
        }
        /* resampled clips keep their weights tracks as tracks */
        for (int t = 0; t < clip->track_count; ++t) {
            const sinew_track *tr = &clip->tracks[t];
            if (resample && tr->target != SINEW_TARGET_WEIGHTS) continue;
            if (tr->target == SINEW_TARGET_WEIGHTS) {
                int count = 0;
                for (int m = 0; m < a->mesh_count; ++m)
                    if (a->meshes[m].joint == tr->joint && a->meshes[m].morph &&
                        a->meshes[m].morph->target_count == tr->width)
                        nodes[count++] = mesh_node[m];
                if (!count) {
                    w->report.dropped_tracks++;
                    sinew__warn(w->options, "sinew_write_gltf: clip \"%s\": track %d animates the morph weights of "
                                "joint %d, which carries no mesh of %d targets: left out", clip->name, t, tr->joint,
                                tr->width);
                    continue;
                }
                write_track(w, &s, tr, nodes, count);
            } else {
                write_track(w, &s, tr, &tr->joint, 1);
            }
        }
        /* glTF's duration is the last key: a clip that lasts past its keys
         * (or has none) gains one constant channel, its rest value from 0
         * to the duration, on a value no track animates */
        if (s.channel_count == 0 || clip->duration > s.last_key) {
            int j = -1, target = 0;
            for (int k = 0; k < n && j < 0; ++k)
                for (int p = 0; p < 3 && j < 0; ++p)
                    if (!(s.paths[k] & (1u << p))) j = k, target = p;
            if (j >= 0) {
                const sinew_transform *q = &sk->rest_pose[j];
                const float *rv = target == 0 ? &q->translation.x : target == 1 ? &q->rotation.x : &q->scale.x;
                int comps = target == 1 ? 4 : 3;
                float times[2] = {0.0f, clip->duration}, values[8];
                memcpy(values, rv, sizeof(float) * (size_t)comps);
                memcpy(values + comps, rv, sizeof(float) * (size_t)comps);
                int keys = clip->duration > 0.0f ? 2 : 1;
                sinew_track t = {j, (sinew_track_target)target, SINEW_INTERP_LINEAR, keys, times, values, 0};
                write_track(w, &s, &t, &j, 1);
                s.input_count = 0; /* `times` lives on this stack only */
            } else {
                sinew__warn(w->options, "sinew_write_gltf: clip \"%s\" lasts %g s, past its last key at %g s: every "
                            "value of every joint is animated, so no channel is left to hold the duration",
                            clip->name, (double)clip->duration, (double)s.last_key);
            }
        }
        buf_printf(w, out, "%s{\"name\":", w->report.animations ? "," : "");
        put_string(w, out, clip->name);
        buf_put(w, &s.channels, "", 1);
        buf_put(w, &s.samplers, "", 1);
        if (w->failed) break;
        buf_printf(w, out, ",\"channels\":[%s],\"samplers\":[%s]", (const char *)s.channels.data,
                   (const char *)s.samplers.data);
        if (a->timelines && a->timelines[c]) write_timeline(w, out, a->timelines[c]);
        buf_text(w, out, "}");
        w->report.animations++;
    }
done:
    buf_free(w, &s.samplers), buf_free(w, &s.channels);
    sinew__free(&w->alloc, s.inputs), sinew__free(&w->alloc, s.paths), sinew__free(&w->alloc, nodes);
    return r;
}

/* ---- spring bones ----------------------------------------------------------- */

static void put_vec3(writer *w, gw_buf *b, sinew_vec3 v)
{
    float f[3] = {v.x, v.y, v.z};
    put_floats(w, b, f, 3);
}

static void write_springs(writer *w, const sinew_asset *a, gw_buf *b)
{
    const sinew_springs_desc *d = a->springs;
    buf_text(w, b, "\"VRMC_springBone\":{\"specVersion\":\"1.0\",\"colliders\":[");
    for (int i = 0; i < d->collider_count; ++i) {
        const sinew_spring_collider *c = &d->colliders[i];
        bool capsule = c->shape == SINEW_COLLIDER_CAPSULE;
        buf_printf(w, b, "%s{\"node\":%d,\"shape\":{\"%s\":{\"offset\":", i ? "," : "", c->joint,
                   capsule ? "capsule" : "sphere");
        put_vec3(w, b, scaled(w, c->offset));
        buf_text(w, b, ",\"radius\":");
        put_float(w, b, c->radius * w->scale);
        if (capsule) {
            buf_text(w, b, ",\"tail\":");
            put_vec3(w, b, scaled(w, c->tail));
        }
        buf_text(w, b, "}}}");
    }
    buf_text(w, b, "],\"colliderGroups\":[");
    for (int g = 0; g < d->group_count; ++g) {
        buf_printf(w, b, "%s{\"name\":\"group %d\",\"colliders\":[", g ? "," : "", g);
        for (int i = 0; i < d->groups[g].collider_count; ++i)
            buf_printf(w, b, "%s%d", i ? "," : "", d->groups[g].colliders[i]);
        buf_text(w, b, "]}");
    }
    buf_text(w, b, "],\"springs\":[");
    for (int s = 0; s < d->chain_count; ++s) {
        const sinew_spring_chain *ch = &d->chains[s];
        buf_text(w, b, s ? ",{\"name\":" : "{\"name\":");
        put_string(w, b, a->spring_names ? a->spring_names[s] : "");
        buf_text(w, b, ",\"joints\":[");
        for (int j = 0; j < ch->joint_count; ++j) {
            const sinew_spring_joint *sj = &ch->joints[j];
            buf_printf(w, b, "%s{\"node\":%d,\"hitRadius\":", j ? "," : "", sj->joint);
            put_float(w, b, sj->hit_radius * w->scale);
            /* stiffness and gravity move a tail so many lengths a second */
            buf_text(w, b, ",\"stiffness\":");
            put_float(w, b, sj->stiffness * w->scale);
            buf_text(w, b, ",\"gravityPower\":");
            put_float(w, b, sj->gravity_power * w->scale);
            buf_text(w, b, ",\"gravityDir\":");
            /* a direction in the scene's space: turned with it */
            put_vec3(w, b, w->turn ? turned(w, sj->gravity_dir) : sj->gravity_dir);
            buf_text(w, b, ",\"dragForce\":");
            put_float(w, b, sj->drag_force);
            buf_text(w, b, "}");
        }
        buf_text(w, b, "]");
        if (ch->collider_group_count) {
            buf_text(w, b, ",\"colliderGroups\":[");
            for (int g = 0; g < ch->collider_group_count; ++g)
                buf_printf(w, b, "%s%d", g ? "," : "", ch->collider_groups[g]);
            buf_text(w, b, "]");
        }
        if (ch->center >= 0) buf_printf(w, b, ",\"center\":%d", ch->center);
        buf_text(w, b, "}");
    }
    buf_text(w, b, "]}");
}

/* ---- the document ----------------------------------------------------------- */

static void put_transform(writer *w, gw_buf *b, const sinew_transform *t)
{
    if (t->translation.x != 0.0f || t->translation.y != 0.0f || t->translation.z != 0.0f) {
        buf_text(w, b, ",\"translation\":");
        put_vec3(w, b, t->translation);
    }
    if (t->rotation.x != 0.0f || t->rotation.y != 0.0f || t->rotation.z != 0.0f || t->rotation.w != 1.0f) {
        float q[4] = {t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w};
        buf_text(w, b, ",\"rotation\":");
        put_floats(w, b, q, 4);
    }
    if (t->scale.x != 1.0f || t->scale.y != 1.0f || t->scale.z != 1.0f) {
        buf_text(w, b, ",\"scale\":");
        put_vec3(w, b, t->scale);
    }
}

/* Whether an earlier mesh's node is named `name` (as mesh_node_name
 * names it when it needs no suffix). */
static bool earlier_mesh_named(const sinew_asset *a, int m, const char *name)
{
    for (int k = 0; k < m; ++k) {
        const char *other = a->meshes[k].name[0] ? a->meshes[k].name : "mesh";
        if (strcmp(other, name) == 0) return true;
    }
    return false;
}

/* Mesh m's node's name: the mesh's ("mesh" for none), or, where a joint
 * or an earlier mesh's node has that name (Assimp names a mesh after the
 * node that draws it), "NAME#mesh<m>", as the reader names a sheared
 * node's split "NAME#shear", so that the written file's node names stay
 * as unique as the asset's joints' and a lookup by name finds the joint. */
static void mesh_node_name(writer *w, const sinew_asset *a, int m, gw_buf *b)
{
    const char *name = a->meshes[m].name[0] ? a->meshes[m].name : "mesh";
    if (sinew_skeleton_find_joint(a->skeleton, name) < 0 && !earlier_mesh_named(a, m, name)) {
        put_string(w, b, name);
        return;
    }
    size_t n = strlen(name);
    char *unique = sinew__alloc(&w->alloc, n + 32);
    if (!unique) {
        w->failed = true;
        return;
    }
    snprintf(unique, n + 32, "%s#mesh%d", name, m);
    put_string(w, b, unique);
    sinew__free(&w->alloc, unique);
}

/* The buffer's URI for a .gltf at `path`: its file name with .bin for
 * .gltf, percent-encoded where a URI needs it. */
static void bin_name(const char *path, char *name, size_t size)
{
    const char *slash = strrchr(path, '/');
#ifdef _WIN32
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash)) slash = back;
#endif
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    snprintf(name, size, "%.*s.bin", (int)(dot ? dot - base : (long)strlen(base)), base);
}

static void put_uri(writer *w, gw_buf *b, const char *name)
{
    buf_text(w, b, "\"");
    for (const unsigned char *p = (const unsigned char *)name; *p; ++p) {
        unsigned c = *p;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                     c == '.' || c == '_' || c == '~';
        if (plain)
            buf_put(w, b, p, 1);
        else
            buf_printf(w, b, "%%%02X", c);
    }
    buf_text(w, b, "\"");
}

static sinew_result write_file(const char *path, const void *a, size_t an, const void *b, size_t bn, sinew_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return sinew__fail(err, SINEW_ERROR_IO, "sinew_write_gltf: %s: cannot be created", path);
    bool ok = fwrite(a, 1, an, f) == an && (!bn || fwrite(b, 1, bn, f) == bn);
    ok = (fclose(f) == 0) && ok;
    if (!ok) return sinew__fail(err, SINEW_ERROR_IO, "sinew_write_gltf: %s: writing failed (disk full?)", path);
    return SINEW_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return false;
    for (size_t i = 0; i < m; ++i) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

sinew_result sinew_write_gltf(const sinew_asset *asset, const char *path, const sinew_gltf_write_options *options,
                              sinew_gltf_write_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!asset || !asset->skeleton || !path)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_write_gltf: %s is NULL",
                           !asset ? "asset" : !path ? "path" : "asset->skeleton");
    bool glb = ends_with(path, ".glb");
    if (!glb && !ends_with(path, ".gltf"))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: %s: the name ends neither in .glb nor in .gltf, which say what to write",
                           path);
    if (options && (options->weights < SINEW_GLTF_WEIGHTS_FLOAT || options->weights > SINEW_GLTF_WEIGHTS_UNORM16))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_write_gltf: options->weights %d is unknown",
                           (int)options->weights);
    if (options && !(options->sample_rate >= 0.0f && options->sample_rate <= 1e6f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->sample_rate %g is not from 0 to 1e6", (double)options->sample_rate);
#ifndef SINEW_HAVE_MESHOPT
    if (options && options->meshopt)
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_write_gltf: options->meshopt: EXT_meshopt_compression "
                           "needs a sinew built with libmeshoptimizer-dev");
#endif
    if (options && !(options->resample_rate >= 0.0f && options->resample_rate <= 1e6f))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->resample_rate %g is not from 0 to 1e6",
                           (double)options->resample_rate);
    if (options && !(options->shell_distance >= 0.0f && isfinite(options->shell_distance)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->shell_distance %g is not a distance of 0 or more",
                           (double)options->shell_distance);
    if (options && !(options->scale >= 0.0f && isfinite(options->scale)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->scale %g is not a factor above 0 (0: 1)", (double)options->scale);
    if (options && (options->max_influences < 0 || options->max_influences > 8))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->max_influences %d is not from 1 to 8 (0: every one)",
                           options->max_influences);
    sinew_quat turn = options ? options->rotation : (sinew_quat){0, 0, 0, 0};
    double turn_len = sqrt((double)turn.x * turn.x + (double)turn.y * turn.y + (double)turn.z * turn.z +
                           (double)turn.w * turn.w);
    if (turn_len != 0.0 && !(fabs(turn_len - 1.0) <= 1e-3))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_write_gltf: options->rotation (%g, %g, %g, %g) is not a unit quaternion (all 0: none)",
                           (double)turn.x, (double)turn.y, (double)turn.z, (double)turn.w);
    static const sinew_options none = {0};
    writer w = {.options = options ? &options->base : &none, .err = err, .meshopt = options && options->meshopt,
                .scale = options && options->scale > 0.0f ? options->scale : 1.0f};
    w.alloc = sinew__allocator(w.options);
    const sinew_skeleton *sk = asset->skeleton;
    w.parents = sk->parents, w.joint_count = sk->joint_count;
    if (turn_len != 0.0) {
        w.rotation = (sinew_quat){(float)(turn.x / turn_len), (float)(turn.y / turn_len), (float)(turn.z / turn_len),
                                  (float)(turn.w / turn_len)};
        rotation_matrix(&w);
        static const float identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        w.turn = memcmp(w.turn_m, identity, sizeof identity) != 0;
    }
    int n = sk->joint_count, nodes_total = n + asset->mesh_count;
    gw_buf json = {0}, meshes = {0}, skins = {0}, anims = {0};
    int *mesh_node = sinew__alloc(&w.alloc, sizeof *mesh_node * ((size_t)asset->mesh_count + 1));
    quant *quants = sinew__alloc(&w.alloc, sizeof *quants * ((size_t)asset->mesh_count + 1));
    sinew_result r = SINEW_OK;
    if (!mesh_node || !quants) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_write_gltf: out of memory");
        goto done;
    }
    for (int m = 0; m < asset->mesh_count; ++m) {
        const sinew_mesh *mesh = &asset->meshes[m];
        if (mesh->vertex_count < 1) {
            r = sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_write_gltf: meshes[%d] (\"%s\") has no vertices, "
                            "which a glTF accessor cannot hold", m, mesh->name);
            goto done;
        }
        mesh_node[m] = n + m;
        quants[m] = options && options->quantize ? mesh_quant(&w, mesh) : (quant){false, {0, 0, 0}, 1.0f};
        w.report.quantized_meshes += quants[m].on;
        if (quants[m].on && quants[m].scale > w.report.quantize_step) w.report.quantize_step = quants[m].scale;
    }

    /* meshes and skins first: their accessors come before the clips' */
    int skin_count = 0;
    for (int m = 0; m < asset->mesh_count; ++m) {
        write_mesh(&w, &asset->meshes[m], options, &quants[m], &meshes, &skins, m, skin_count);
        skin_count += asset->meshes[m].skin != NULL;
    }
    if ((r = write_animations(&w, asset, options, mesh_node, &anims)) != SINEW_OK) goto done;

    buf_text(&w, &json, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
    char generator[64];
    snprintf(generator, sizeof generator, "sinew %s", sinew_version());
    put_string(&w, &json, generator);
    buf_text(&w, &json, "}");
    bool quantized = w.report.quantized_meshes > 0;
    /* the fallback buffer has no data, so a reader must decode: required */
    bool meshopt = w.report.meshopt_views > 0;
    if (asset->springs || quantized || meshopt)
        buf_printf(&w, &json, ",\"extensionsUsed\":[%s%s%s%s%s]", quantized ? "\"KHR_mesh_quantization\"" : "",
                   quantized && meshopt ? "," : "", meshopt ? "\"EXT_meshopt_compression\"" : "",
                   (quantized || meshopt) && asset->springs ? "," : "", asset->springs ? "\"VRMC_springBone\"" : "");
    if (quantized || meshopt)
        buf_printf(&w, &json, ",\"extensionsRequired\":[%s%s%s]", quantized ? "\"KHR_mesh_quantization\"" : "",
                   quantized && meshopt ? "," : "", meshopt ? "\"EXT_meshopt_compression\"" : "");
    buf_text(&w, &json, ",\"scene\":0,\"scenes\":[{\"name\":");
    put_string(&w, &json, asset->name);
    buf_text(&w, &json, ",\"nodes\":[");
    /* the roots: the skeleton's, and the nodes of skinned meshes (glTF
     * ignores a skinned mesh node's transform; at the root no validator
     * warns of one) and of meshes that follow no joint */
    int roots = 0;
    for (int j = 0; j < n; ++j)
        if (sk->parents[j] < 0) buf_printf(&w, &json, "%s%d", roots++ ? "," : "", j);
    for (int m = 0; m < asset->mesh_count; ++m)
        if (asset->meshes[m].skin || asset->meshes[m].joint < 0 || asset->meshes[m].joint >= n)
            buf_printf(&w, &json, "%s%d", roots++ ? "," : "", mesh_node[m]);
    buf_text(&w, &json, "]}],\"nodes\":[");
    for (int j = 0; j < n; ++j) {
        buf_text(&w, &json, j ? ",{\"name\":" : "{\"name\":");
        put_string(&w, &json, sk->names[j]);
        int children = 0;
        for (int c = j + 1; c < n; ++c)
            if (sk->parents[c] == j) buf_printf(&w, &json, "%s%d", children++ ? "," : ",\"children\":[", c);
        for (int m = 0; m < asset->mesh_count; ++m)
            if (!asset->meshes[m].skin && asset->meshes[m].joint == j)
                buf_printf(&w, &json, "%s%d", children++ ? "," : ",\"children\":[", mesh_node[m]);
        if (children) buf_text(&w, &json, "]");
        sinew_transform rest = sk->rest_pose[j];
        rest.translation = scaled(&w, rest.translation);
        if (w.turn && sk->parents[j] < 0) {
            /* a root: its place and turn in the scene's space, turned */
            rest.translation = turned(&w, rest.translation);
            rest.rotation = sinew_quat_mul(w.rotation, rest.rotation);
        }
        put_transform(&w, &json, &rest);
        buf_text(&w, &json, "}");
    }
    for (int m = 0, s = 0; m < asset->mesh_count; ++m) {
        buf_text(&w, &json, ",{\"name\":");
        mesh_node_name(&w, asset, m, &json);
        buf_printf(&w, &json, ",\"mesh\":%d", m);
        if (asset->meshes[m].skin) buf_printf(&w, &json, ",\"skin\":%d", s++);
        if (quants[m].on && !asset->meshes[m].skin) {
            /* the dequantization of a rigid mesh's positions */
            const quant *q = &quants[m];
            sinew_transform t = {{q->offset[0], q->offset[1], q->offset[2]}, {0, 0, 0, 1}, {q->scale, q->scale, q->scale}};
            put_transform(&w, &json, &t);
        }
        buf_text(&w, &json, "}");
    }
    buf_text(&w, &json, "]");
    buf_put(&w, &meshes, "", 1), buf_put(&w, &skins, "", 1), buf_put(&w, &anims, "", 1);
    buf_put(&w, &w.accessors, "", 1), buf_put(&w, &w.views, "", 1);
    if (w.failed) goto done;
    if (asset->mesh_count) buf_printf(&w, &json, ",\"meshes\":[%s]", (const char *)meshes.data);
    if (skin_count) buf_printf(&w, &json, ",\"skins\":[%s]", (const char *)skins.data);
    if (w.report.animations) buf_printf(&w, &json, ",\"animations\":[%s]", (const char *)anims.data);
    if (w.accessor_count) buf_printf(&w, &json, ",\"accessors\":[%s]", (const char *)w.accessors.data);
    if (w.view_count) buf_printf(&w, &json, ",\"bufferViews\":[%s]", (const char *)w.views.data);
    buf_pad(&w, &w.bin, 4, 0);
    char bin[1024];
    bin_name(path, bin, sizeof bin);
    if (w.bin.size) {
        buf_printf(&w, &json, ",\"buffers\":[{\"byteLength\":%zu", w.bin.size);
        if (!glb) {
            buf_text(&w, &json, ",\"uri\":");
            put_uri(&w, &json, bin);
        }
        buf_text(&w, &json, "}");
        /* EXT_meshopt_compression's fallback: the compressed views' own
         * ranges, no data (the specification's placeholder, index 1 and
         * up so as not to be taken for the GLB's binary chunk) */
        if (w.fallback)
            buf_printf(&w, &json, ",{\"byteLength\":%zu,\"extensions\":{\"EXT_meshopt_compression\":"
                       "{\"fallback\":true}}}", (w.fallback + 3) / 4 * 4);
        buf_text(&w, &json, "]");
    }
    if (asset->springs) {
        buf_text(&w, &json, ",\"extensions\":{");
        write_springs(&w, asset, &json);
        buf_text(&w, &json, "}");
    }
    buf_text(&w, &json, "}");
    if (w.failed) goto done;
    w.report.nodes = nodes_total;
    w.report.meshes = asset->mesh_count;
    w.report.skins = skin_count;
    w.report.accessors = w.accessor_count;
    w.report.json_bytes = json.size;
    w.report.bin_bytes = w.bin.size;

    if (glb) {
        buf_pad(&w, &json, 4, ' ');
        size_t total = 12 + 8 + json.size + (w.bin.size ? 8 + w.bin.size : 0);
        if (total > 0xffffffffu) {
            r = sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_write_gltf: %s: %zu bytes, more than a .glb holds "
                            "(4 GiB); write .gltf", path, total);
            goto done;
        }
        gw_buf head = {0};
        uint32_t words[5] = {0x46546C67u, 2u, (uint32_t)total, (uint32_t)json.size, 0x4E4F534Au};
        buf_put(&w, &head, words, sizeof words);
        buf_put(&w, &head, json.data, json.size);
        if (w.bin.size) {
            uint32_t chunk[2] = {(uint32_t)w.bin.size, 0x004E4942u};
            buf_put(&w, &head, chunk, sizeof chunk);
        }
        if (!w.failed) r = write_file(path, head.data, head.size, w.bin.data, w.bin.size, err);
        buf_free(&w, &head);
    } else {
        r = write_file(path, json.data, json.size, NULL, 0, err);
        if (r == SINEW_OK && w.bin.size) {
            char bin_path[2048];
            const char *slash = strrchr(path, '/');
#ifdef _WIN32
            const char *back = strrchr(path, '\\');
            if (back && (!slash || back > slash)) slash = back;
#endif
            snprintf(bin_path, sizeof bin_path, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, bin);
            r = write_file(bin_path, w.bin.data, w.bin.size, NULL, 0, err);
        }
    }
done:
    if (w.failed && r == SINEW_OK) r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_write_gltf: out of memory");
    if (r == SINEW_OK && report) *report = w.report;
    buf_free(&w, &json), buf_free(&w, &meshes), buf_free(&w, &skins), buf_free(&w, &anims);
    buf_free(&w, &w.bin), buf_free(&w, &w.views), buf_free(&w, &w.accessors);
    sinew__free(&w.alloc, mesh_node);
    sinew__free(&w.alloc, quants);
    return r;
}
