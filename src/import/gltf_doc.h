/* SPDX-License-Identifier: MIT */
/* The glTF document layer: JSON, the GLB container, buffers, buffer views
 * and accessors, every bound checked. Errors name the JSON path
 * ("accessors[3]: count 500 exceeds bufferViews[2] (byteLength 1200)").
 * Internal to the importer. */
#ifndef SINEW_GLTF_DOC_H
#define SINEW_GLTF_DOC_H

#include "sinew/sinew_import.h"
#include "import_internal.h"

#include <cjson/cJSON.h>

typedef struct gltf_buffer {
    const uint8_t *data;
    size_t size;   /* the declared byteLength; the data holds at least this */
    void *owned;   /* freed with the document, or NULL */
} gltf_buffer;

typedef struct gltf_view {
    /* For a view carrying EXT_meshopt_compression, decoded when the
     * document opens: buffer_count + the view's index, a buffer of its own
     * holding the decoded bytes (offset 0), so that every reader of
     * buffers[buffer].data + offset gets them; the file's fallback buffer
     * may hold no data. */
    int buffer;
    size_t offset, length, stride; /* stride 0: tightly packed */
} gltf_view;

typedef struct gltf_accessor {
    int view;          /* -1: all zeros (then sparse may fill it) */
    size_t offset;
    int component_type; /* 5120 .. 5126 */
    bool normalized;
    int count;
    int components;    /* 1, 2, 3, 4, 9 or 16 */
    bool matrix;       /* MAT2..4: columns padded to 4 bytes */
    size_t element;    /* bytes of one element, padding included */
    /* sparse */
    int sparse_count;
    int sparse_index_view, sparse_index_type;
    size_t sparse_index_offset;
    int sparse_value_view;
    size_t sparse_value_offset;
} gltf_accessor;

typedef struct gltf_doc {
    cJSON *root;
    const sinew_load_options *options;
    sinew_allocator alloc;
    sinew_error *err;
    char *base_dir;          /* folder of the .gltf, for relative URIs ("" = none) */
    const uint8_t *glb_bin;  /* the GLB BIN chunk, or NULL */
    size_t glb_bin_size;
    void *file_data;         /* the file as read, owned */
    gltf_buffer *buffers;
    int buffer_count;        /* the file's; the decoded views' buffers follow (buffer_slots in all) */
    int buffer_slots;
    gltf_view *views;
    int view_count;
    gltf_accessor *accessors;
    int accessor_count;
    bool quantization;       /* KHR_mesh_quantization is declared: its attribute types are allowed */
    bool meshopt;            /* EXT_meshopt_compression is declared: views carrying it are decoded */
    sinew_gltf_work work;    /* every step onto a JSON item is counted here */
} gltf_doc;

/* Parses a .gltf or .glb held in memory (the document keeps no pointer to
 * `data` unless `owned` is true, in which case it frees it). Returns
 * SINEW_OK or an error in doc->err. `base_dir` may be NULL. */
sinew_result gltf_doc_open(gltf_doc *doc, const void *data, size_t size, bool owned, const char *base_dir,
                           const sinew_load_options *options, sinew_error *err);

/* Releases everything the document holds. */
void gltf_doc_close(gltf_doc *doc);

/* An upper bound of the memory cJSON takes to parse `n` bytes of JSON at
 * `s`, found in one pass; *values gets the most values it can hold. */
size_t gltf_json_tree_bound(const char *s, size_t n, size_t *values);

/* ---- JSON helpers: each fails with the path in its message ---------------- */

/* cJSON holds arrays and objects as linked lists: finding an element or a
 * member walks them. The reader walks each list once (GLTF_EACH) or looks
 * elements up through a table built once (gltf_table), never by position
 * inside a loop, and counts every step in doc->work.visited. */

/* Visits every element of `list` (an array or object; NULL: none). */
#define GLTF_EACH(doc, e, list) \
    for ((e) = (list) ? (list)->child : NULL; (e) && (++(doc)->work.visited, 1); (e) = (e)->next)

/* The member `key` of `obj` (the first, as cJSON finds it), or NULL. */
const cJSON *gltf_member(gltf_doc *doc, const cJSON *obj, const char *key);

/* The `count` elements of `list` in a table (count + 1 entries, freed with
 * sinew__free on doc->alloc), or NULL after failing with `path`. */
const cJSON **gltf_table(gltf_doc *doc, const cJSON *list, int count, const char *path);

/* The array `key` of `obj` (NULL and *count 0 when absent). Fails when it
 * is there but not an array. */
sinew_result gltf_array(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, const cJSON **out,
                        int *count);

/* An integer member in [lo, hi]; `def` when absent (or fails when `required`). */
sinew_result gltf_int(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, bool required, long def,
                      long lo, long hi, long *out);

/* `n` numbers of an array member (all finite), or `def` when absent. */
sinew_result gltf_floats(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, int n,
                         const float *def, float *out);

/* A string member, or NULL when absent; fails when not a string. */
sinew_result gltf_string(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, const char **out);

/* An index member that must name an element of the top-level array `what`
 * (count `limit`); -1 when absent and not required. */
sinew_result gltf_ref(gltf_doc *doc, const cJSON *obj, const char *key, const char *path, bool required,
                      const char *what, int limit, int *out);

/* The same for a value already found (`v`, the member `key` of `path`). */
sinew_result gltf_ref_value(gltf_doc *doc, const cJSON *v, const char *key, const char *path, const char *what,
                            int limit, int *out);

/* The `length` bytes of bufferViews[view] (buffers[buffer].data + offset;
 * for a view carrying EXT_meshopt_compression, its decoded bytes). */
const uint8_t *gltf_view_data(const gltf_doc *doc, int view);

/* ---- accessors ------------------------------------------------------------ */

/* Reads accessor `index` as floats (normalized integers mapped to [0, 1] or
 * [-1, 1] as the specification says, other integers converted), `count *
 * components` values into `out`. `components` must match the accessor's
 * type; `what` names the use for messages ("meshes[0].primitives[1]
 * .attributes.POSITION"). */
sinew_result gltf_read_floats(gltf_doc *doc, int index, int components, const char *what, float *out);

/* Reads an accessor of unsigned integer components (indices, JOINTS_n) as
 * uint32. Float and signed types are refused. */
sinew_result gltf_read_uints(gltf_doc *doc, int index, int components, const char *what, uint32_t *out);

/* Checks that accessor `index` has a component type the specification
 * allows for its use: `allowed` lists them (5120 .. 5126; normalized
 * integers as the type + 100000, so 105121 is UNSIGNED_BYTE normalized),
 * `quantized` the ones KHR_mesh_quantization adds when the file declares
 * it. Fails naming `what`, the accessor and its type. */
sinew_result gltf_check_type(gltf_doc *doc, int index, const char *what, const int *allowed, const int *quantized);
#define GLTF_NORM(type) ((type) + 100000)

/* The bytes accessor `index` takes as floats: count * components * 4. */
size_t gltf_float_bytes(const gltf_doc *doc, int index);

/* ---- shared by the importer ------------------------------------------------ */

/* The node index a JSON array element holds, or -1 when it is not an
 * integer in [0, node_count). */
int gltf_node_index(const cJSON *element, int node_count);

#endif
