/* SPDX-License-Identifier: MIT */
/* The independent glTF evaluator of gltf_reference.h. */
#define _POSIX_C_SOURCE 200809L
#include "gltf_reference.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_buffer {
    unsigned char *data;
    size_t size;
} ref_buffer;

struct ref_doc {
    cJSON *json;
    ref_buffer *buffers;
    int buffer_count;
    unsigned char *glb_bin;
    size_t glb_bin_size;
    int node_count;
    int *parent;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "reference: out of memory\n");
        exit(2);
    }
    return p;
}

static const cJSON *get(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }
static const cJSON *at(const cJSON *arr, int i) { return cJSON_GetArrayItem(arr, i); }
static int count_of(const cJSON *arr) { return arr ? cJSON_GetArraySize(arr) : 0; }
static int int_of(const cJSON *obj, const char *key, int def)
{
    const cJSON *v = get(obj, key);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : def;
}

/* RFC 4648 base64 (the data: URI payload). */
static unsigned char *base64(const char *s, size_t *size)
{
    size_t n = strlen(s);
    unsigned char *out = xcalloc(n / 4 * 3 + 3, 1);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; ++i) {
        const char *table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *p = strchr(table, s[i]);
        if (!p || !s[i]) continue;
        acc = (acc << 6) | (unsigned)(p - table);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *size = o;
    return out;
}

static bool load_buffers(ref_doc *d, const char *dir)
{
    const cJSON *buffers = get(d->json, "buffers");
    d->buffer_count = count_of(buffers);
    d->buffers = xcalloc((size_t)d->buffer_count, sizeof *d->buffers);
    for (int i = 0; i < d->buffer_count; ++i) {
        const cJSON *uri = get(at(buffers, i), "uri");
        ref_buffer *b = &d->buffers[i];
        if (!cJSON_IsString(uri)) {
            b->data = xcalloc(d->glb_bin_size, 1);
            memcpy(b->data, d->glb_bin, d->glb_bin_size);
            b->size = d->glb_bin_size;
        } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
            const char *comma = strchr(uri->valuestring, ',');
            b->data = base64(comma ? comma + 1 : "", &b->size);
        } else {
            /* a relative path, percent-decoded */
            const char *u = uri->valuestring;
            char *path = xcalloc(strlen(dir) + strlen(u) + 2, 1);
            size_t o = (size_t)sprintf(path, "%s%s", dir, *dir ? "/" : "");
            for (size_t k = 0; u[k]; ++k) {
                unsigned hex;
                if (u[k] == '%' && sscanf(u + k + 1, "%2x", &hex) == 1) {
                    path[o++] = (char)hex;
                    k += 2;
                } else {
                    path[o++] = u[k];
                }
            }
            b->data = test_read_file(path, &b->size);
            if (!b->data) {
                fprintf(stderr, "reference: cannot read %s\n", path);
                free(path);
                return false;
            }
            free(path);
        }
    }
    return true;
}

ref_doc *ref_open(const char *path)
{
    size_t size;
    unsigned char *data = test_read_file(path, &size);
    if (!data) {
        fprintf(stderr, "reference: cannot read %s\n", path);
        return NULL;
    }
    ref_doc *d = xcalloc(1, sizeof *d);
    if (size >= 12 && memcmp(data, "glTF", 4) == 0) {
        /* GLB: 12-byte header, then chunks of (length, type, data) */
        size_t at_ = 12;
        while (at_ + 8 <= size) {
            uint32_t len, type;
            memcpy(&len, data + at_, 4);
            memcpy(&type, data + at_ + 4, 4);
            if (type == 0x4E4F534Au) d->json = cJSON_ParseWithLength((const char *)data + at_ + 8, len);
            if (type == 0x004E4942u) {
                d->glb_bin = data + at_ + 8;
                d->glb_bin_size = len;
            }
            at_ += 8 + len;
        }
    } else {
        d->json = cJSON_ParseWithLength((const char *)data, size);
    }
    char *dir = strdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    bool ok = d->json && load_buffers(d, dir);
    free(dir);
    free(data); /* the GLB chunk was copied into its buffer */
    d->glb_bin = NULL;
    if (!ok) {
        fprintf(stderr, "reference: %s is not readable glTF\n", path);
        ref_close(d);
        return NULL;
    }
    const cJSON *nodes = get(d->json, "nodes");
    d->node_count = count_of(nodes);
    d->parent = xcalloc((size_t)d->node_count, sizeof *d->parent);
    for (int i = 0; i < d->node_count; ++i) d->parent[i] = -1;
    for (int i = 0; i < d->node_count; ++i) {
        const cJSON *children = get(at(nodes, i), "children");
        for (int c = 0; c < count_of(children); ++c) d->parent[(int)at(children, c)->valuedouble] = i;
    }
    return d;
}

void ref_close(ref_doc *d)
{
    if (!d) return;
    for (int i = 0; i < d->buffer_count; ++i) free(d->buffers[i].data);
    free(d->buffers);
    free(d->parent);
    cJSON_Delete(d->json);
    free(d);
}

/* ---- accessors (specification 3.6) ----------------------------------------- */

static int components_of(const char *type)
{
    static const struct {
        const char *name;
        int n;
    } t[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
        if (strcmp(type, t[i].name) == 0) return t[i].n;
    return 0;
}

static int component_bytes(int type) { return type == 5120 || type == 5121 ? 1 : type == 5122 || type == 5123 ? 2 : 4; }

static double component(const unsigned char *p, int type, bool normalized)
{
    switch (type) {
    case 5120: { int8_t v; memcpy(&v, p, 1); return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: return normalized ? *p / 255.0 : *p;
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? v / 65535.0 : v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

/* Byte offset of component c within an element: matrix columns start on
 * 4-byte boundaries (specification 3.6.2.4). */
static size_t component_offset(const char *type, int ctype, int c)
{
    int size = component_bytes(ctype);
    int rows = strcmp(type, "MAT2") == 0 ? 2 : strcmp(type, "MAT3") == 0 ? 3 : strcmp(type, "MAT4") == 0 ? 4 : 0;
    if (!rows) return (size_t)c * (size_t)size;
    size_t column = ((size_t)rows * (size_t)size + 3) / 4 * 4;
    return (size_t)(c / rows) * column + (size_t)(c % rows) * (size_t)size;
}

static size_t element_bytes(const char *type, int ctype)
{
    int n = components_of(type);
    return component_offset(type, ctype, n - 1) + (size_t)component_bytes(ctype);
}

/* Reads one view's elements into out (n components each). */
static void read_view(const ref_doc *d, int view, size_t offset, int count, const char *type, int ctype, bool norm,
                      double *out)
{
    const cJSON *v = at(get(d->json, "bufferViews"), view);
    const ref_buffer *b = &d->buffers[int_of(v, "buffer", 0)];
    size_t start = (size_t)int_of(v, "byteOffset", 0) + offset;
    size_t stride = (size_t)int_of(v, "byteStride", 0);
    if (!stride) stride = element_bytes(type, ctype);
    int n = components_of(type);
    for (int e = 0; e < count; ++e)
        for (int c = 0; c < n; ++c) {
            size_t at_ = start + (size_t)e * stride + component_offset(type, ctype, c);
            if (at_ + (size_t)component_bytes(ctype) > b->size) {
                fprintf(stderr, "reference: accessor read outside its buffer\n");
                exit(2);
            }
            out[(size_t)e * (size_t)n + (size_t)c] = component(b->data + at_, ctype, norm);
        }
}

/* Accessor i as doubles; *count elements of *n components. */
static double *read_accessor(const ref_doc *d, int i, int *count, int *n)
{
    const cJSON *a = at(get(d->json, "accessors"), i);
    const char *type = get(a, "type")->valuestring;
    int ctype = int_of(a, "componentType", 5126);
    bool norm = cJSON_IsTrue(get(a, "normalized"));
    *count = int_of(a, "count", 0);
    *n = components_of(type);
    double *out = xcalloc((size_t)*count * (size_t)*n, sizeof *out);
    if (get(a, "bufferView"))
        read_view(d, int_of(a, "bufferView", 0), (size_t)int_of(a, "byteOffset", 0), *count, type, ctype, norm, out);
    const cJSON *sp = get(a, "sparse");
    if (sp) {
        int sc = int_of(sp, "count", 0);
        const cJSON *ind = get(sp, "indices"), *val = get(sp, "values");
        double *idx = xcalloc((size_t)sc, sizeof *idx), *vals = xcalloc((size_t)sc * (size_t)*n, sizeof *vals);
        read_view(d, int_of(ind, "bufferView", 0), (size_t)int_of(ind, "byteOffset", 0), sc, "SCALAR",
                  int_of(ind, "componentType", 5125), false, idx);
        read_view(d, int_of(val, "bufferView", 0), (size_t)int_of(val, "byteOffset", 0), sc, type, ctype, norm, vals);
        for (int k = 0; k < sc; ++k)
            memcpy(&out[(size_t)idx[k] * (size_t)*n], &vals[(size_t)k * (size_t)*n], sizeof(double) * (size_t)*n);
        free(idx);
        free(vals);
    }
    return out;
}

/* ---- math, column-major 4x4 ------------------------------------------------------------ */

static void mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

static void mat_trs(const double t[3], const double q[4], const double s[3], double m[16])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double l = sqrt(x * x + y * y + z * z + w * w);
    x /= l, y /= l, z /= l, w /= l;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                   2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    memset(m, 0, sizeof(double) * 16);
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row) m[c * 4 + row] = r[c * 3 + row] * s[c];
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
}

/* The inverse transpose of the upper 3x3 (row r, column c at [c * 3 + r]). */
static void normal_matrix(const double m[16], double out[9])
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    /* inverse transpose = cofactor matrix / det */
    double cof[9] = {e * i - f * h, -(b * i - c * h), b * f - c * e, -(d * i - f * g), a * i - c * g,
                     -(a * f - c * d), d * h - e * g, -(a * h - b * g), a * e - b * d};
    for (int k = 0; k < 9; ++k) out[k] = cof[k] / det;
}

static void transform(const double m[16], const double p[3], double w, double out[3])
{
    for (int r = 0; r < 3; ++r) out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r] * w;
}

static void normalize3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0) v[0] /= l, v[1] /= l, v[2] /= l;
}

/* ---- animation sampling (specification 3.11 and appendix C) -------------------------------- */

typedef struct node_state {
    double t[3], r[4], s[3];
    double matrix[16];
    bool has_matrix;
    int weight_count;
    double *weights;
} node_state;

static void slerp(const double a[4], const double b0[4], double u, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) { /* the shortest path */
        dot = -dot;
        for (int k = 0; k < 4; ++k) b[k] = -b[k];
    }
    double wa, wb;
    if (dot > 1.0 - 1e-12) {
        wa = 1 - u, wb = u;
    } else {
        double angle = acos(dot);
        wa = sin((1 - u) * angle) / sin(angle);
        wb = sin(u * angle) / sin(angle);
    }
    for (int k = 0; k < 4; ++k) out[k] = wa * a[k] + wb * b[k];
    double l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (int k = 0; k < 4; ++k) out[k] /= l;
}

/* Samples a sampler of n-component values at time t into out; rotations
 * slerp (LINEAR) and are normalized (CUBICSPLINE). */
static void sample(const ref_doc *d, const cJSON *sampler, int n, bool rotation, double t, double *out)
{
    int keys, one, vals_count, vn;
    (void)vn;
    double *times = read_accessor(d, int_of(sampler, "input", 0), &keys, &one);
    double *vals = read_accessor(d, int_of(sampler, "output", 0), &vals_count, &vn);
    const cJSON *interp = get(sampler, "interpolation");
    const char *mode = cJSON_IsString(interp) ? interp->valuestring : "LINEAR";
    bool cubic = strcmp(mode, "CUBICSPLINE") == 0;
    /* value k of the output: (in-tangent, value, out-tangent) triplets for cubic */
#define VALUE(k, part) (&vals[((size_t)(k) * (cubic ? 3 : 1) + (size_t)(part)) * (size_t)n])
    int mid = cubic ? 1 : 0;
    if (t <= times[0] || keys == 1) {
        memcpy(out, VALUE(0, mid), sizeof(double) * (size_t)n);
    } else if (t >= times[keys - 1]) {
        memcpy(out, VALUE(keys - 1, mid), sizeof(double) * (size_t)n);
    } else {
        int k = 0;
        while (!(times[k] <= t && t < times[k + 1])) ++k;
        double td = times[k + 1] - times[k], u = (t - times[k]) / td;
        if (strcmp(mode, "STEP") == 0) {
            memcpy(out, VALUE(k, 0), sizeof(double) * (size_t)n);
        } else if (cubic) {
            double u2 = u * u, u3 = u2 * u;
            for (int c = 0; c < n; ++c)
                out[c] = (2 * u3 - 3 * u2 + 1) * VALUE(k, 1)[c] + td * (u3 - 2 * u2 + u) * VALUE(k, 2)[c] +
                         (-2 * u3 + 3 * u2) * VALUE(k + 1, 1)[c] + td * (u3 - u2) * VALUE(k + 1, 0)[c];
            if (rotation) {
                double l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
                for (int c = 0; c < 4; ++c) out[c] /= l;
            }
        } else if (rotation) {
            slerp(VALUE(k, 0), VALUE(k + 1, 0), u, out);
        } else {
            for (int c = 0; c < n; ++c) out[c] = (1 - u) * VALUE(k, 0)[c] + u * VALUE(k + 1, 0)[c];
        }
    }
#undef VALUE
    free(times);
    free(vals);
}

int ref_animation_count(const ref_doc *d) { return count_of(get(d->json, "animations")); }

double ref_animation_duration(const ref_doc *d, int a)
{
    const cJSON *anim = at(get(d->json, "animations"), a);
    const cJSON *channels = get(anim, "channels"), *samplers = get(anim, "samplers");
    double end = 0;
    for (int c = 0; c < count_of(channels); ++c) {
        const cJSON *ch = at(channels, c);
        if (!get(get(ch, "target"), "node")) continue;
        int keys, one;
        double *times = read_accessor(d, int_of(at(samplers, int_of(ch, "sampler", 0)), "input", 0), &keys, &one);
        if (keys && times[keys - 1] > end) end = times[keys - 1];
        free(times);
    }
    return end;
}

/* ---- posing ------------------------------------------------------------------------------------ */

static int morph_count(const ref_doc *d, int mesh)
{
    const cJSON *m = at(get(d->json, "meshes"), mesh);
    return count_of(get(at(get(m, "primitives"), 0), "targets"));
}

static void node_states(const ref_doc *d, node_state *st)
{
    const cJSON *nodes = get(d->json, "nodes");
    for (int i = 0; i < d->node_count; ++i) {
        const cJSON *n = at(nodes, i);
        node_state *s = &st[i];
        double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
        for (int k = 0; k < 3; ++k) {
            if (get(n, "translation")) t[k] = at(get(n, "translation"), k)->valuedouble;
            if (get(n, "scale")) sc[k] = at(get(n, "scale"), k)->valuedouble;
        }
        for (int k = 0; k < 4; ++k)
            if (get(n, "rotation")) r[k] = at(get(n, "rotation"), k)->valuedouble;
        memcpy(s->t, t, sizeof t), memcpy(s->r, r, sizeof r), memcpy(s->s, sc, sizeof sc);
        s->has_matrix = get(n, "matrix") != NULL;
        for (int k = 0; k < 16 && s->has_matrix; ++k) s->matrix[k] = at(get(n, "matrix"), k)->valuedouble;
        /* morph weights: the node's, else its mesh's, else zeros */
        int mesh = int_of(n, "mesh", -1);
        s->weight_count = mesh >= 0 ? morph_count(d, mesh) : 0;
        s->weights = xcalloc((size_t)s->weight_count, sizeof(double));
        const cJSON *w = get(n, "weights");
        if (!w && mesh >= 0) w = get(at(get(d->json, "meshes"), mesh), "weights");
        for (int k = 0; k < s->weight_count && w; ++k) s->weights[k] = at(w, k)->valuedouble;
    }
}

static void animate(const ref_doc *d, int a, double time, bool loop, node_state *st)
{
    double dur = ref_animation_duration(d, a);
    double t = time;
    if (loop)
        t = dur > 0 ? t - floor(t / dur) * dur : 0;
    else
        t = t < 0 ? 0 : t > dur ? dur : t;
    const cJSON *anim = at(get(d->json, "animations"), a);
    const cJSON *channels = get(anim, "channels"), *samplers = get(anim, "samplers");
    for (int c = 0; c < count_of(channels); ++c) {
        const cJSON *ch = at(channels, c), *target = get(ch, "target");
        if (!get(target, "node")) continue;
        node_state *s = &st[int_of(target, "node", 0)];
        const char *path = get(target, "path")->valuestring;
        const cJSON *sampler = at(samplers, int_of(ch, "sampler", 0));
        if (strcmp(path, "translation") == 0)
            sample(d, sampler, 3, false, t, s->t);
        else if (strcmp(path, "rotation") == 0)
            sample(d, sampler, 4, true, t, s->r);
        else if (strcmp(path, "scale") == 0)
            sample(d, sampler, 3, false, t, s->s);
        else if (strcmp(path, "weights") == 0)
            sample(d, sampler, s->weight_count, false, t, s->weights);
        if (strcmp(path, "weights") != 0) s->has_matrix = false;
    }
}

/* world = parent's world * local, following parents (no recursion needed:
 * each node's chain is walked up). */
static void world_of(const ref_doc *d, const node_state *st, int i, double out[16])
{
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int n = i; n >= 0; n = d->parent[n]) {
        double local[16];
        if (st[n].has_matrix)
            memcpy(local, st[n].matrix, sizeof local);
        else
            mat_trs(st[n].t, st[n].r, st[n].s, local);
        mat_mul(local, m, m);
    }
    memcpy(out, m, sizeof m);
}

static void pose_primitive(const ref_doc *d, const node_state *st, double (*world)[16], int node, int mesh, int p,
                           ref_primitive *out)
{
    const cJSON *n = at(get(d->json, "nodes"), node);
    const cJSON *prim = at(get(at(get(d->json, "meshes"), mesh), "primitives"), p);
    const cJSON *attrs = get(prim, "attributes");
    int count, c;
    double *pos = read_accessor(d, int_of(attrs, "POSITION", 0), &count, &c);
    double *nrm = get(attrs, "NORMAL") ? read_accessor(d, int_of(attrs, "NORMAL", 0), &count, &c) : NULL;
    /* morph targets (3.7.2.2): base + sum of weight * delta */
    const cJSON *targets = get(prim, "targets");
    for (int t = 0; t < count_of(targets); ++t) {
        double w = st[node].weights[t];
        const char *names[2] = {"POSITION", "NORMAL"};
        double *streams[2] = {pos, nrm};
        for (int k = 0; k < 2; ++k) {
            if (!streams[k] || !get(at(targets, t), names[k])) continue;
            int dc, dn;
            double *delta = read_accessor(d, int_of(at(targets, t), names[k], 0), &dc, &dn);
            for (int v = 0; v < count * 3; ++v) streams[k][v] += w * delta[v];
            free(delta);
        }
    }
    out->node = node, out->mesh = mesh, out->primitive = p;
    out->vertex_count = count;
    out->has_normals = nrm != NULL;
    out->positions = xcalloc((size_t)count * 3, sizeof(double));
    out->normals = nrm ? xcalloc((size_t)count * 3, sizeof(double)) : NULL;
    int skin = int_of(n, "skin", -1);
    out->skinned = skin >= 0 && get(attrs, "JOINTS_0");
    /* the skinned matrix per vertex (3.8.3); the mesh node's transform is not used */
    double (*joint_matrix)[16] = NULL;
    double *ibm = NULL;
    int sets = 0;
    double **joints = NULL, **weights = NULL;
    if (out->skinned) {
        const cJSON *sk = at(get(d->json, "skins"), skin), *list = get(sk, "joints");
        int jc = count_of(list);
        joint_matrix = xcalloc((size_t)jc, sizeof *joint_matrix);
        int ic = 0, in = 16;
        if (get(sk, "inverseBindMatrices")) ibm = read_accessor(d, int_of(sk, "inverseBindMatrices", 0), &ic, &in);
        for (int j = 0; j < jc; ++j) {
            double id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            mat_mul(world[(int)at(list, j)->valuedouble], ibm ? &ibm[j * 16] : id, joint_matrix[j]);
        }
        char name[32];
        for (;; ++sets) {
            snprintf(name, sizeof name, "JOINTS_%d", sets);
            if (!get(attrs, name)) break;
        }
        joints = xcalloc((size_t)sets, sizeof *joints);
        weights = xcalloc((size_t)sets, sizeof *weights);
        for (int s = 0; s < sets; ++s) {
            int jcount, jn;
            snprintf(name, sizeof name, "JOINTS_%d", s);
            joints[s] = read_accessor(d, int_of(attrs, name, 0), &jcount, &jn);
            snprintf(name, sizeof name, "WEIGHTS_%d", s);
            weights[s] = read_accessor(d, int_of(attrs, name, 0), &jcount, &jn);
        }
    }
    for (int v = 0; v < count; ++v) {
        double m[16];
        if (out->skinned) {
            double sum = 0;
            memset(m, 0, sizeof m);
            for (int s = 0; s < sets; ++s)
                for (int k = 0; k < 4; ++k) sum += weights[s][v * 4 + k];
            for (int s = 0; s < sets; ++s)
                for (int k = 0; k < 4; ++k) {
                    double w = weights[s][v * 4 + k] / sum;
                    if (w == 0) continue;
                    const double *jm = joint_matrix[(int)joints[s][v * 4 + k]];
                    for (int e = 0; e < 16; ++e) m[e] += w * jm[e];
                }
        } else {
            memcpy(m, world[node], sizeof m);
        }
        transform(m, &pos[v * 3], 1, &out->positions[v * 3]);
        if (nrm) {
            double nm[9], *o = &out->normals[v * 3];
            normal_matrix(m, nm);
            const double *x = &nrm[v * 3];
            for (int r = 0; r < 3; ++r) o[r] = nm[r] * x[0] + nm[3 + r] * x[1] + nm[6 + r] * x[2];
            normalize3(o);
        }
    }
    for (int s = 0; s < sets; ++s) free(joints[s]), free(weights[s]);
    free(joints), free(weights), free(joint_matrix), free(ibm), free(pos), free(nrm);
}

ref_frame *ref_pose(const ref_doc *d, int a, double time, bool loop)
{
    node_state *st = xcalloc((size_t)d->node_count, sizeof *st);
    node_states(d, st);
    if (a >= 0) animate(d, a, time, loop, st);
    ref_frame *f = xcalloc(1, sizeof *f);
    f->node_count = d->node_count;
    f->world = xcalloc((size_t)d->node_count, sizeof *f->world);
    for (int i = 0; i < d->node_count; ++i) world_of(d, st, i, f->world[i]);
    /* the default scene's nodes: "scene", else scene 0, else every node */
    const cJSON *scenes = get(d->json, "scenes");
    bool *in_scene = xcalloc((size_t)d->node_count, sizeof *in_scene);
    if (count_of(scenes) == 0) {
        for (int i = 0; i < d->node_count; ++i) in_scene[i] = true;
    } else {
        const cJSON *roots = get(at(scenes, int_of(d->json, "scene", 0)), "nodes");
        for (int i = 0; i < d->node_count; ++i) {
            int root = i;
            while (d->parent[root] >= 0) root = d->parent[root];
            for (int k = 0; k < count_of(roots); ++k) in_scene[i] = in_scene[i] || (int)at(roots, k)->valuedouble == root;
        }
    }
    const cJSON *nodes = get(d->json, "nodes");
    for (int i = 0; i < d->node_count; ++i) {
        int mesh = int_of(at(nodes, i), "mesh", -1);
        if (!in_scene[i] || mesh < 0) continue;
        int pc = count_of(get(at(get(d->json, "meshes"), mesh), "primitives"));
        f->primitives = realloc(f->primitives, sizeof *f->primitives * (size_t)(f->primitive_count + pc));
        if (!f->primitives) exit(2);
        for (int p = 0; p < pc; ++p) pose_primitive(d, st, f->world, i, mesh, p, &f->primitives[f->primitive_count++]);
    }
    free(in_scene);
    for (int i = 0; i < d->node_count; ++i) free(st[i].weights);
    free(st);
    return f;
}

void ref_frame_free(ref_frame *f)
{
    if (!f) return;
    for (int p = 0; p < f->primitive_count; ++p) free(f->primitives[p].positions), free(f->primitives[p].normals);
    free(f->primitives);
    free(f->world);
    free(f);
}
