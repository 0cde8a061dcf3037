/* The wall's stream (wall.h): the child writes an asset as frames, the
 * parent reads them as untrusted bytes. Every count is checked against the
 * bytes that follow before anything is allocated for it, every index
 * against what it indexes; skeletons, clips and skins are rebuilt through
 * their create functions, which check the rest. */
#include "wall.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A transform is written and read as its ten floats */
_Static_assert(sizeof(sinew_transform) == 10 * sizeof(float), "sinew_transform is ten packed floats");

/* ---- writing (the child) ------------------------------------------------ */

static void put(sinew__frames *f, const void *data, size_t n)
{
    if (f->failed || n == 0) return;
    if (n > f->capacity - f->size) {
        size_t cap = f->capacity ? f->capacity : 4096;
        while (cap - f->size < n) {
            if (cap > SIZE_MAX / 2) {
                f->failed = true;
                return;
            }
            cap *= 2;
        }
        unsigned char *bigger = realloc(f->bytes, cap);
        if (!bigger) {
            f->failed = true;
            return;
        }
        f->bytes = bigger, f->capacity = cap;
    }
    memcpy(f->bytes + f->size, data, n);
    f->size += n;
}

static void put_u32(sinew__frames *f, uint32_t v) { put(f, &v, sizeof v); }
static void put_i32(sinew__frames *f, int32_t v) { put(f, &v, sizeof v); }
static void put_u8(sinew__frames *f, bool v)
{
    unsigned char b = v;
    put(f, &b, 1);
}
static void put_floats(sinew__frames *f, const float *v, size_t n) { put(f, v, n * sizeof *v); }
static void put_string(sinew__frames *f, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(f, (uint32_t)n);
    put(f, s, n);
}

/* A frame's header, its size filled in by end_frame. */
static size_t begin_frame(sinew__frames *f, uint32_t tag)
{
    size_t at = f->size;
    put_u32(f, tag);
    put_u32(f, 0);
    return at;
}

static void end_frame(sinew__frames *f, size_t at)
{
    if (f->failed) return;
    size_t payload = f->size - at - 8;
    if (payload > UINT32_MAX) {
        f->failed = true;
        return;
    }
    uint32_t n = (uint32_t)payload;
    memcpy(f->bytes + at + 4, &n, sizeof n);
}

void sinew__frames_warning(sinew__frames *f, const char *message)
{
    size_t at = begin_frame(f, SINEW__FRAME_WARNING);
    put_string(f, message);
    end_frame(f, at);
}

void sinew__frames_error(sinew__frames *f, sinew_result result, const char *description)
{
    size_t at = begin_frame(f, SINEW__FRAME_ERROR);
    put_i32(f, (int32_t)result);
    put_string(f, description);
    end_frame(f, at);
}

static void put_skeleton(sinew__frames *f, const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
    size_t at = begin_frame(f, SINEW__FRAME_SKELETON);
    put_i32(f, sk->joint_count);
    for (int j = 0; j < sk->joint_count; ++j) {
        put_i32(f, sk->parents[j]);
        put_floats(f, &sk->rest_pose[j].translation.x, sizeof(sinew_transform) / sizeof(float));
        put_string(f, sk->names[j]);
    }
    put_u8(f, a->joint_sources != NULL);
    if (a->joint_sources)
        for (int j = 0; j < sk->joint_count; ++j) put_i32(f, a->joint_sources[j]);
    put_i32(f, a->node_count);
    put_u8(f, a->node_joints != NULL);
    if (a->node_joints)
        for (int i = 0; i < a->node_count; ++i) put_i32(f, a->node_joints[i]);
    end_frame(f, at);
}

static void put_clip(sinew__frames *f, const sinew_clip *c)
{
    size_t at = begin_frame(f, SINEW__FRAME_CLIP);
    put_string(f, c->name);
    put_floats(f, &c->duration, 1);
    put_u8(f, c->additive);
    put_i32(f, c->track_count);
    for (int i = 0; i < c->track_count; ++i) {
        const sinew_track *t = &c->tracks[i];
        put_i32(f, t->joint);
        put_i32(f, (int32_t)t->target);
        put_i32(f, (int32_t)t->interpolation);
        put_i32(f, t->key_count);
        put_i32(f, t->width);
        put_floats(f, t->times, (size_t)t->key_count);
        put_floats(f, t->values, sinew__track_floats(t));
    }
    end_frame(f, at);
}

enum { HAS_NORMALS = 1, HAS_TANGENTS = 2, HAS_COLORS = 4, HAS_SKIN = 8, HAS_MORPH = 16, HAS_MORPH_WEIGHTS = 32 };
enum { MORPH_POSITIONS = 1, MORPH_NORMALS = 2, MORPH_TANGENTS = 4 };

static void put_mesh(sinew__frames *f, const sinew_mesh *m)
{
    size_t at = begin_frame(f, SINEW__FRAME_MESH);
    size_t v = (size_t)m->vertex_count;
    put_string(f, m->name);
    put_i32(f, m->vertex_count);
    uint32_t flags = (m->normals ? HAS_NORMALS : 0) | (m->tangents ? HAS_TANGENTS : 0) | (m->colors ? HAS_COLORS : 0) |
                     (m->skin ? HAS_SKIN : 0) | (m->morph ? HAS_MORPH : 0) |
                     (m->morph && m->morph_weights ? HAS_MORPH_WEIGHTS : 0);
    put_u32(f, flags);
    put_floats(f, m->positions, 3 * v);
    if (m->normals) put_floats(f, m->normals, 3 * v);
    if (m->tangents) put_floats(f, m->tangents, 4 * v);
    put_i32(f, m->texcoord_count);
    for (int t = 0; t < m->texcoord_count; ++t) put_floats(f, m->texcoords[t], 2 * v);
    if (m->colors) put_floats(f, m->colors, 4 * v);
    put_i32(f, m->index_count);
    put(f, m->indices, sizeof *m->indices * (size_t)m->index_count);
    put_i32(f, m->joint);
    put_i32(f, m->source_node);
    put_i32(f, m->source_mesh);
    put_i32(f, m->source_primitive);
    if (m->skin) {
        const sinew_skin *s = m->skin;
        put_i32(f, s->joint_count);
        for (int j = 0; j < s->joint_count; ++j) put_i32(f, s->joints[j]);
        put_floats(f, s->inverse_bind[0].m, 16 * (size_t)s->joint_count);
        put_i32(f, s->influence_count);
        put_i32(f, (int32_t)s->index_type);
        put_i32(f, (int32_t)s->weight_type);
        put_u8(f, s->last_weight_implied);
        size_t index_bytes = (size_t)s->vertex_count * (size_t)s->influence_count *
                             (s->index_type == SINEW_INDEX_U8 ? 1 : 2);
        int weights_per_vertex = s->influence_count - (s->last_weight_implied ? 1 : 0);
        size_t weight_size = s->weight_type == SINEW_WEIGHT_F32 ? 4 : s->weight_type == SINEW_WEIGHT_UNORM16 ? 2 : 1;
        size_t weight_bytes = s->weights ? (size_t)s->vertex_count * (size_t)weights_per_vertex * weight_size : 0;
        put_u32(f, (uint32_t)index_bytes);
        put(f, s->indices, index_bytes);
        put_u32(f, (uint32_t)weight_bytes);
        put(f, s->weights, weight_bytes);
    }
    if (m->morph) {
        const sinew_morph *mo = m->morph;
        size_t n = v * (size_t)mo->target_count;
        put_i32(f, mo->target_count);
        put_u32(f, (mo->positions ? MORPH_POSITIONS : 0) | (mo->normals ? MORPH_NORMALS : 0) |
                       (mo->tangents ? MORPH_TANGENTS : 0));
        if (mo->positions) put_floats(f, mo->positions, 3 * n);
        if (mo->normals) put_floats(f, mo->normals, 3 * n);
        if (mo->tangents) put_floats(f, mo->tangents, 3 * n);
        if (m->morph_weights) put_floats(f, m->morph_weights, (size_t)mo->target_count);
    }
    end_frame(f, at);
}

void sinew__frames_asset(sinew__frames *f, const sinew_asset *a)
{
    put_skeleton(f, a);
    for (int c = 0; c < a->clip_count; ++c) put_clip(f, a->clips[c]);
    for (int m = 0; m < a->mesh_count; ++m) put_mesh(f, &a->meshes[m]);
    size_t at = begin_frame(f, SINEW__FRAME_END);
    end_frame(f, at);
}

/* ---- reading (the parent) ------------------------------------------------ */

/* A frame's payload being read: every take checks that the bytes are
 * there; the first shortfall or bad value leaves `bad` set and the error
 * filled, and everything after reads zeros. */
typedef struct reader {
    const unsigned char *p;
    size_t left;
    bool bad;
    sinew_error *err;
    const char *what; /* the frame: "mesh 3" */
    sinew_allocator scratch;
    sinew_asset *asset;
} reader;

static bool refuse(reader *r, sinew_result result, const char *fmt, ...) SINEW__PRINTF(3, 4);

/* Marks the frame bad with "the importer's output: <frame>: <sentence>"
 * (the first problem only). Returns false. */
static bool refuse(reader *r, sinew_result result, const char *fmt, ...)
{
    if (!r->bad) {
        char sentence[192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sentence, sizeof sentence, fmt, ap);
        va_end(ap);
        sinew__fail(r->err, result, "the importer's output: %s: %s", r->what, sentence);
    }
    r->bad = true;
    return false;
}

static bool take(reader *r, void *out, size_t n)
{
    if (r->bad || n > r->left) {
        refuse(r, SINEW_ERROR_TRUNCATED, "the frame ends early");
        if (out) memset(out, 0, n);
        return false;
    }
    if (out) memcpy(out, r->p, n);
    r->p += n, r->left -= n;
    return true;
}

static int32_t get_i32(reader *r)
{
    int32_t v;
    take(r, &v, sizeof v);
    return v;
}

static uint32_t get_u32(reader *r)
{
    uint32_t v;
    take(r, &v, sizeof v);
    return v;
}

static bool get_u8(reader *r)
{
    unsigned char b;
    take(r, &b, 1);
    if (b > 1) refuse(r, SINEW_ERROR_PARSE, "a flag is %u, not 0 or 1", b);
    return b == 1;
}

/* A count in lo .. hi whose `each` bytes apiece are all still there. */
static int get_count(reader *r, const char *name, int lo, int hi, size_t each)
{
    int32_t n = get_i32(r);
    if (r->bad) return 0;
    if (n < lo || n > hi) return refuse(r, SINEW_ERROR_PARSE, "%s %d is out of range", name, (int)n);
    if (each && (size_t)n > r->left / each)
        return refuse(r, SINEW_ERROR_TRUNCATED, "%s %d needs more bytes than the frame holds", name, (int)n);
    return n;
}

/* n elements of `each` bytes into memory of the asset, or NULL. */
static void *get_array(reader *r, size_t n, size_t each)
{
    if (r->bad) return NULL;
    if (each && n > r->left / each) {
        refuse(r, SINEW_ERROR_TRUNCATED, "the frame ends early");
        return NULL;
    }
    void *out = sinew__asset_alloc(r->asset, n ? n : 1, each ? each : 1);
    if (!out) {
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    take(r, out, n * each);
    return out;
}

/* n floats into the asset, every one finite (as the loaders hold them), or
 * NULL; `what` names them in the error. */
static float *get_finite(reader *r, size_t n, const char *what)
{
    float *v = get_array(r, n, sizeof(float));
    if (v && !sinew__finite_n(v, n)) {
        refuse(r, SINEW_ERROR_NOT_FINITE, "its %s hold a NaN or an infinity", what);
        return NULL;
    }
    return v;
}

/* A string into the asset, NUL-terminated; one holding a NUL is refused. */
static const char *get_string(reader *r)
{
    uint32_t n = get_u32(r);
    if (r->bad) return NULL;
    if (n > r->left) {
        refuse(r, SINEW_ERROR_TRUNCATED, "a name of %u bytes ends early", n);
        return NULL;
    }
    char *s = sinew__asset_alloc(r->asset, (size_t)n + 1, 1);
    if (!s) {
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    take(r, s, n);
    s[n] = '\0';
    if (strlen(s) != n) {
        refuse(r, SINEW_ERROR_PARSE, "a name holds a NUL byte");
        return NULL;
    }
    return s;
}

/* Where a create function refused what the frame holds. */
static void refused_by(reader *r, const sinew_error *e)
{
    refuse(r, e->result, "%s", sinew__error_sentence(e->description));
}

static void read_skeleton(reader *r, const sinew_options *options)
{
    sinew_asset *a = r->asset;
    /* each joint: parent, rest pose and a name's length at least */
    int n = get_count(r, "the joint count", 1, SINEW_MAX_JOINTS, 4 + sizeof(sinew_transform) + 4);
    if (r->bad) return;
    int *parents = sinew__alloc(&r->scratch, sizeof *parents * (size_t)n);
    sinew_transform *rest = sinew__alloc(&r->scratch, sizeof *rest * (size_t)n);
    const char **names = sinew__alloc(&r->scratch, sizeof *names * (size_t)n);
    if (!parents || !rest || !names) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int j = 0; j < n && !r->bad; ++j) {
        parents[j] = get_i32(r);
        take(r, &rest[j], sizeof rest[j]);
        names[j] = get_string(r);
        /* parents first, as the child's skeleton is: a joint index then
         * means the same joint on both sides */
        if (!r->bad && (parents[j] < -1 || parents[j] >= j))
            refuse(r, SINEW_ERROR_BAD_PARENT, "joint %d has parent %d, not an earlier joint", j, parents[j]);
    }
    int32_t *sources = NULL, *node_joints = NULL;
    if (get_u8(r)) sources = get_array(r, (size_t)n, sizeof *sources);
    int nodes = get_count(r, "the node count", 0, INT32_MAX, 0);
    if (get_u8(r)) node_joints = get_array(r, (size_t)nodes, sizeof *node_joints);
    /* a file's nodes come with their map to the joints, as every loader gives it */
    if (!r->bad && nodes > 0 && !node_joints) refuse(r, SINEW_ERROR_PARSE, "%d nodes without their joints", nodes);
    for (int j = 0; sources && !r->bad && j < n; ++j)
        if (sources[j] < -1 || sources[j] >= nodes)
            refuse(r, SINEW_ERROR_BAD_REFERENCE, "joint %d comes from node %d, not one of the file's %d", j,
                   sources[j], nodes);
    for (int i = 0; node_joints && !r->bad && i < nodes; ++i)
        if (node_joints[i] < -1 || node_joints[i] >= n)
            refuse(r, SINEW_ERROR_BAD_JOINT_INDEX, "node %d maps to joint %d, not one of the %d", i, node_joints[i],
                   n);
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the skeleton", r->left);
    if (!r->bad) {
        sinew_skeleton_desc d = {n, parents, names, rest};
        sinew_error e;
        sinew_skeleton *sk = sinew_skeleton_create(&d, NULL, options, &e);
        if (!sk) {
            refused_by(r, &e);
        } else {
            a->skeleton = sk;
            a->joint_sources = sources;
            a->node_count = nodes;
            a->node_joints = node_joints;
        }
    }
    sinew__free(&r->scratch, parents), sinew__free(&r->scratch, rest), sinew__free(&r->scratch, (void *)names);
}

static sinew_clip *read_clip(reader *r, const sinew_options *options)
{
    const char *name = get_string(r);
    float duration;
    take(r, &duration, sizeof duration);
    bool additive = get_u8(r);
    /* each track: five fields and one key at least */
    int n = get_count(r, "the track count", 0, INT32_MAX / 4, 5 * 4 + 4);
    if (r->bad) return NULL;
    /* each track's keys and values in a scratch block; the clip copies them */
    sinew_track *tracks = sinew__alloc(&r->scratch, sizeof *tracks * ((size_t)n + 1));
    float **blocks = sinew__alloc(&r->scratch, sizeof *blocks * ((size_t)n + 1));
    int held = 0;
    sinew_clip *clip = NULL;
    if (!tracks || !blocks) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < n && !r->bad; ++i) {
        sinew_track *t = &tracks[i];
        t->joint = get_i32(r);
        int32_t target = get_i32(r), interp = get_i32(r);
        t->key_count = get_count(r, "a key count", 1, INT32_MAX, 4);
        t->width = get_i32(r);
        if (r->bad) break;
        if (target < 0 || target > SINEW_TARGET_WEIGHTS || interp < 0 || interp > SINEW_INTERP_CUBICSPLINE ||
            (target == SINEW_TARGET_WEIGHTS && (t->width < 1 || t->width > SINEW_MAX_MORPH_TARGETS))) {
            refuse(r, SINEW_ERROR_PARSE, "track %d: target %d, interpolation %d or width %d out of range", i,
                   (int)target, (int)interp, t->width);
            break;
        }
        t->target = (sinew_track_target)target, t->interpolation = (sinew_interpolation)interp;
        size_t floats = sinew__track_floats(t);
        if (floats > r->left / 4 || (size_t)t->key_count > r->left / 4 - floats) {
            refuse(r, SINEW_ERROR_TRUNCATED, "track %d's %d keys need more bytes than the frame holds", i,
                   t->key_count);
            break;
        }
        float *block = sinew__alloc(&r->scratch, sizeof(float) * ((size_t)t->key_count + floats));
        if (!block) {
            refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        blocks[held++] = block;
        take(r, block, sizeof(float) * (size_t)t->key_count);
        take(r, block + t->key_count, sizeof(float) * floats);
        t->times = block, t->values = block + t->key_count;
    }
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the clip", r->left);
    if (!r->bad) {
        sinew_clip_desc d = {.name = name, .joint_count = r->asset->skeleton->joint_count, .duration = duration,
                             .track_count = n, .tracks = tracks, .additive = additive,
                             .skeleton = r->asset->skeleton};
        sinew_error e;
        clip = sinew_clip_create(&d, options, &e);
        if (!clip) refused_by(r, &e);
    }
    for (int i = 0; i < held; ++i) sinew__free(&r->scratch, blocks[i]);
    sinew__free(&r->scratch, blocks), sinew__free(&r->scratch, tracks);
    return clip;
}

static void read_skin(reader *r, sinew_mesh *m, const sinew_options *options)
{
    size_t nv = (size_t)m->vertex_count;
    sinew_skin_desc d = {0};
    d.joint_count = get_count(r, "the skin's joint count", 1, SINEW_MAX_JOINTS, 4 + sizeof(sinew_mat4));
    d.joints = get_array(r, (size_t)d.joint_count, sizeof(int));
    d.inverse_bind = get_array(r, (size_t)d.joint_count, sizeof(sinew_mat4));
    d.vertex_count = m->vertex_count;
    d.influence_count = get_count(r, "the influence count", 1, SINEW_MAX_INFLUENCES, 0);
    int32_t index_type = get_i32(r), weight_type = get_i32(r);
    d.last_weight_implied = get_u8(r);
    if (r->bad) return;
    if (index_type < 0 || index_type > SINEW_INDEX_U16 || weight_type < 0 || weight_type > SINEW_WEIGHT_UNORM16) {
        refuse(r, SINEW_ERROR_PARSE, "the skin's index type %d or weight type %d is out of range", (int)index_type,
               (int)weight_type);
        return;
    }
    d.index_type = (sinew_index_type)index_type, d.weight_type = (sinew_weight_type)weight_type;
    size_t want_indices = nv * (size_t)d.influence_count * (d.index_type == SINEW_INDEX_U8 ? 1 : 2);
    uint32_t index_bytes = get_u32(r);
    if (!r->bad && index_bytes != want_indices)
        refuse(r, SINEW_ERROR_SIZE_MISMATCH, "the skin's joint indices: %u bytes where %zu are due", index_bytes,
               want_indices);
    d.indices = get_array(r, index_bytes, 1);
    size_t weight_size = d.weight_type == SINEW_WEIGHT_F32 ? 4 : d.weight_type == SINEW_WEIGHT_UNORM16 ? 2 : 1;
    size_t want_weights = nv * (size_t)(d.influence_count - d.last_weight_implied) * weight_size;
    uint32_t weight_bytes = get_u32(r);
    /* none at all where the skin needs none (one influence, or the one
     * stored weight implied): sinew_skin_create says which */
    if (!r->bad && weight_bytes != want_weights && weight_bytes != 0)
        refuse(r, SINEW_ERROR_SIZE_MISMATCH, "the skin's weights: %u bytes where %zu are due", weight_bytes,
               want_weights);
    d.weights = weight_bytes ? get_array(r, weight_bytes, 1) : NULL;
    if (r->bad) return;
    sinew_error e;
    if (sinew__import_skin(r->asset, &d, "its skin", options, &e, m) != SINEW_OK) refused_by(r, &e);
}

static void read_morph(reader *r, sinew_mesh *m, bool weights)
{
    size_t nv = (size_t)m->vertex_count;
    int targets = get_count(r, "the morph target count", 1, SINEW_MAX_MORPH_TARGETS, 0);
    uint32_t which = get_u32(r);
    if (r->bad) return;
    sinew_morph *mo = sinew__asset_alloc(r->asset, 1, sizeof *mo);
    if (!mo) {
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return;
    }
    /* vertex_count is below INT32_MAX / 16 and targets at most 1024 */
    size_t n = nv * (size_t)targets;
    mo->vertex_count = m->vertex_count, mo->target_count = targets;
    if (!weights) {
        refuse(r, SINEW_ERROR_PARSE, "its %d morph targets come without default weights", targets);
        return;
    }
    if (which & MORPH_POSITIONS) mo->positions = get_finite(r, 3 * n, "morph position deltas");
    if (which & MORPH_NORMALS) mo->normals = get_finite(r, 3 * n, "morph normal deltas");
    if (which & MORPH_TANGENTS) mo->tangents = get_finite(r, 3 * n, "morph tangent deltas");
    m->morph_weights = get_finite(r, (size_t)targets, "default morph weights");
    if (!r->bad) m->morph = mo;
}

static void read_mesh(reader *r, sinew_mesh *m, const sinew_options *options)
{
    int joints = r->asset->skeleton->joint_count;
    m->name = get_string(r);
    /* a vertex holds 3 floats at least */
    int v = get_count(r, "the vertex count", 0, INT32_MAX / 16, 12);
    uint32_t flags = get_u32(r);
    if (r->bad) return;
    size_t nv = (size_t)v;
    m->vertex_count = v;
    m->joint = m->source_node = m->source_mesh = m->source_primitive = -1;
    if ((flags & HAS_TANGENTS) && !(flags & HAS_NORMALS)) {
        refuse(r, SINEW_ERROR_PARSE, "tangents without normals");
        return;
    }
    m->positions = get_finite(r, 3 * nv, "positions");
    if (flags & HAS_NORMALS) m->normals = get_finite(r, 3 * nv, "normals");
    if (flags & HAS_TANGENTS) m->tangents = get_finite(r, 4 * nv, "tangents");
    int sets = get_count(r, "the texture coordinate set count", 0, 64, 8 * nv);
    if (sets) {
        const float **list = sinew__asset_alloc(r->asset, (size_t)sets, sizeof *list);
        if (!list) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        for (int t = 0; t < sets && !r->bad; ++t) list[t] = get_finite(r, 2 * nv, "texture coordinates");
        m->texcoords = list, m->texcoord_count = r->bad ? 0 : sets;
    }
    if (flags & HAS_COLORS) m->colors = get_finite(r, 4 * nv, "colors");
    int indices = get_count(r, "the index count", 0, INT32_MAX, 4);
    uint32_t *list = get_array(r, (size_t)indices, sizeof(uint32_t));
    if (!r->bad && indices % 3) refuse(r, SINEW_ERROR_PARSE, "%d indices are not whole triangles", indices);
    for (int i = 0; !r->bad && i < indices; ++i)
        if (list[i] >= (uint32_t)v)
            refuse(r, SINEW_ERROR_OUT_OF_BOUNDS, "index %d is %u, past the last vertex, %d", i, list[i], v - 1);
    if (!r->bad) m->indices = list, m->index_count = indices;
    int32_t joint = get_i32(r), node = get_i32(r);
    m->source_mesh = get_i32(r), m->source_primitive = get_i32(r);
    if (!r->bad && (joint < -1 || joint >= joints))
        refuse(r, SINEW_ERROR_BAD_JOINT_INDEX, "its joint %d is not one of the %d", (int)joint, joints);
    if (!r->bad && (node < -1 || node >= r->asset->node_count))
        refuse(r, SINEW_ERROR_BAD_REFERENCE, "its node %d is not one of the file's %d", (int)node,
               r->asset->node_count);
    if (r->bad) return;
    m->joint = joint, m->source_node = node;
    if (flags & HAS_SKIN) read_skin(r, m, options);
    if ((flags & HAS_MORPH) && !r->bad) read_morph(r, m, (flags & HAS_MORPH_WEIGHTS) != 0);
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the mesh", r->left);
}

/* The most warnings of one import passed on to the caller's logger. */
enum { MAX_WARNINGS = 200 };

/* Forwards a child's warning to the caller's logger. */
static void forward_warning(reader *r, const sinew_options *options)
{
    uint32_t n = get_u32(r);
    if (r->bad || n > r->left) return;
    char message[1024];
    size_t keep = n < sizeof message - 1 ? n : sizeof message - 1;
    memcpy(message, r->p, keep);
    message[keep] = '\0';
    for (size_t i = 0; i < keep; ++i)
        if ((unsigned char)message[i] < 0x20 || message[i] == 0x7f) message[i] = '?';
    sinew__warn(options, "%s", message);
}

/* The child's error, as the load's. */
static sinew_result child_error(reader *r)
{
    int32_t result = get_i32(r);
    uint32_t n = get_u32(r);
    if (r->bad || n > r->left || result <= SINEW_OK || result > SINEW_ERROR_GPU)
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "the importer failed, and its report is malformed");
    char text[sizeof r->err->description];
    size_t keep = n < sizeof text - 1 ? n : sizeof text - 1;
    memcpy(text, r->p, keep);
    text[keep] = '\0';
    for (size_t i = 0; i < keep; ++i)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) text[i] = '?';
    return sinew__fail(r->err, (sinew_result)result, "%s", text);
}

sinew_result sinew__frames_read(const unsigned char *bytes, size_t size, const sinew_load_options *options,
                                sinew_asset *asset, sinew_error *err)
{
    static const sinew_load_options defaults;
    if (!options) options = &defaults;
    sinew_error local;
    if (!err) err = &local;
    const sinew_options *base = &options->base;
    sinew_allocator scratch = sinew__allocator(base);
    /* first the frames' headers: warnings forwarded, an error taken, the
     * rest counted and their order checked */
    int clips = 0, meshes = 0, skeletons = 0, ends = 0, warnings = 0;
    for (size_t at = 0; at < size;) {
        uint32_t head[2];
        if (ends)
            return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: a frame at byte %zu follows the end",
                               at);
        if (size - at < sizeof head)
            return sinew__fail(err, SINEW_ERROR_TRUNCATED,
                               "the importer's output: a frame header at byte %zu ends early", at);
        memcpy(head, bytes + at, sizeof head);
        if (head[1] > size - at - sizeof head)
            return sinew__fail(err, SINEW_ERROR_TRUNCATED,
                               "the importer's output: the frame at byte %zu declares %u bytes, past the end", at,
                               head[1]);
        reader r = {bytes + at + sizeof head, head[1], false, err, "a warning", scratch, asset};
        switch (head[0]) {
        case SINEW__FRAME_WARNING:
            /* a flood of them is cut short, and counted */
            if (++warnings <= MAX_WARNINGS) forward_warning(&r, base);
            break;
        case SINEW__FRAME_ERROR: return child_error(&r);
        case SINEW__FRAME_SKELETON: ++skeletons; break;
        case SINEW__FRAME_CLIP:
        case SINEW__FRAME_MESH:
            if (skeletons != 1)
                return sinew__fail(err, SINEW_ERROR_PARSE,
                                   "the importer's output: a clip or mesh at byte %zu %s", at,
                                   skeletons ? "follows a second skeleton" : "comes before the skeleton");
            clips += head[0] == SINEW__FRAME_CLIP, meshes += head[0] == SINEW__FRAME_MESH;
            break;
        case SINEW__FRAME_END: ++ends; break;
        default:
            return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: unknown frame 0x%08x at byte %zu",
                               head[0], at);
        }
        at += sizeof head + head[1];
    }
    if (warnings > MAX_WARNINGS) sinew__warn(base, "%d more warnings of the importer not shown", warnings - MAX_WARNINGS);
    if (skeletons != 1 || !ends)
        return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: %s",
                           !ends             ? "it ends before its last frame"
                           : skeletons == 0 ? "it holds no skeleton"
                                            : "it holds more than one skeleton");
    sinew_clip **clip_list = clips ? sinew__asset_alloc(asset, (size_t)clips, sizeof *clip_list) : NULL;
    sinew_mesh *mesh_list = meshes ? sinew__asset_alloc(asset, (size_t)meshes, sizeof *mesh_list) : NULL;
    if ((clips && !clip_list) || (meshes && !mesh_list))
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "the importer's output: out of memory");
    asset->clips = (const sinew_clip *const *)clip_list;
    asset->meshes = mesh_list;
    char what[32];
    for (size_t at = 0; at < size;) {
        uint32_t head[2];
        memcpy(head, bytes + at, sizeof head);
        reader r = {bytes + at + sizeof head, head[1], false, err, what, scratch, asset};
        at += sizeof head + head[1];
        if (head[0] == SINEW__FRAME_SKELETON) {
            snprintf(what, sizeof what, "the skeleton");
            read_skeleton(&r, base);
        } else if (head[0] == SINEW__FRAME_CLIP) {
            snprintf(what, sizeof what, "clip %d", asset->clip_count);
            sinew_clip *c = read_clip(&r, base);
            if (c) clip_list[asset->clip_count++] = c;
        } else if (head[0] == SINEW__FRAME_MESH) {
            snprintf(what, sizeof what, "mesh %d", asset->mesh_count);
            /* counted before it is read into: sinew_asset_free then frees its skin */
            read_mesh(&r, &mesh_list[asset->mesh_count++], base);
        }
        if (r.bad) return err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE;
    }
    return SINEW_OK;
}
