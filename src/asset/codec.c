/* SPDX-License-Identifier: MIT */
/* The asset codec: a skeleton (with the asset's node maps), a clip or a
 * mesh as a payload of plain fields (u8, i32, u32, f32 in little-endian
 * order; strings as a u32 length and the bytes), and back. The payloads
 * cross from the Assimp child to its parent (src/import/wall.h) and fill
 * archive sections (src/archive). Decoding reads untrusted bytes: every
 * count is checked against the bytes that follow before anything is
 * allocated for it, every index against what it indexes, and skeletons,
 * clips and skins are rebuilt through their create functions, which check
 * the rest. */
#include "asset_internal.h"

#include "layer/timeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A transform is written and read as its ten floats */
_Static_assert(sizeof(sinew_transform) == 10 * sizeof(float), "sinew_transform is ten packed floats");

/* ---- encoding ------------------------------------------------------------------ */

void sinew__bytes_put(sinew__bytes *f, const void *data, size_t n)
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

void sinew__bytes_u32(sinew__bytes *f, uint32_t v) { sinew__bytes_put(f, &v, sizeof v); }
static void put_i32(sinew__bytes *f, int32_t v) { sinew__bytes_put(f, &v, sizeof v); }
static void put_u8(sinew__bytes *f, bool v)
{
    unsigned char b = v;
    sinew__bytes_put(f, &b, 1);
}
static void put_floats(sinew__bytes *f, const float *v, size_t n) { sinew__bytes_put(f, v, n * sizeof *v); }

/* Zeros up to the next boundary of `align` bytes from the payload's start. */
static void pad(sinew__bytes *f, size_t align)
{
    static const unsigned char zeros[64];
    size_t off = (f->size - f->origin) % align;
    if (off) sinew__bytes_put(f, zeros, align - off);
}

/* An array of layout 2: on a boundary, then its bytes. */
static void put_array(sinew__bytes *f, const void *data, size_t bytes, size_t align)
{
    pad(f, align);
    sinew__bytes_put(f, data, bytes);
}
static void put_stream(sinew__bytes *f, const float *v, size_t n)
{
    put_array(f, v, n * sizeof *v, SINEW__ARRAY_ALIGN);
}

/* A vertex stream or morph deltas: on a cache line, as the loaders give them. */
static void put_vertices(sinew__bytes *f, const float *v, size_t n)
{
    put_array(f, v, n * sizeof *v, SINEW__STREAM_ALIGN);
}
static void put_string(sinew__bytes *f, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    sinew__bytes_u32(f, (uint32_t)n);
    sinew__bytes_put(f, s, n);
}

void sinew__encode_skeleton(sinew__bytes *f, const sinew_asset *a)
{
    const sinew_skeleton *sk = a->skeleton;
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
}

void sinew__encode_clip(sinew__bytes *f, const sinew_clip *c)
{
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
        put_stream(f, t->times, (size_t)t->key_count);
        put_stream(f, t->values, sinew__track_floats(t));
    }
}

void sinew__encode_packed_clip(sinew__bytes *f, const sinew_clip *c)
{
    const float *times = NULL;
    int keys = 0;
    size_t stride = 0;
    sinew__packed_track none;
    int n = sinew__packed_tracks(c, &times, &keys, &stride, &none, 0);
    sinew__packed_track *tracks = malloc(sizeof *tracks * ((size_t)n + 1));
    if (!tracks) {
        f->failed = true;
        return;
    }
    sinew__packed_tracks(c, &times, &keys, &stride, tracks, n);
    put_i32(f, keys);
    put_stream(f, times, (size_t)keys);
    put_i32(f, n);
    for (int i = 0; i < n; ++i) {
        const sinew__packed_track *t = &tracks[i];
        put_i32(f, t->joint);
        put_i32(f, (int32_t)t->target);
        for (int k = 0; k < (t->target == SINEW_TARGET_ROTATION ? 4 : 3); ++k) {
            const sinew__packed_float *x = &t->f[k];
            /* a lane of step 0 holds its offset at every key: written as
             * that value, sign of zero included, which packing gives back */
            bool varies = x->q && x->step != 0.0f;
            put_u8(f, varies);
            if (!varies) {
                put_floats(f, x->q ? &x->offset : &x->value, 1);
                continue;
            }
            put_floats(f, &x->offset, 1);
            put_floats(f, &x->step, 1);
            for (int key = 0; key < keys; ++key) sinew__bytes_put(f, &x->q[(size_t)key * stride], sizeof(uint16_t));
        }
    }
    free(tracks);
    /* then the clip itself: its name, duration and weights tracks */
    sinew__encode_clip(f, c);
}

void sinew__encode_compressed_clip(sinew__bytes *f, const sinew_clip *c)
{
    size_t size;
    const unsigned char *block = sinew__clip_compressed_bytes(c, &size);
    sinew__bytes_u32(f, (uint32_t)size);
    put_array(f, block, size, SINEW__STREAM_ALIGN);
    /* then the clip itself: its name, duration and weights tracks */
    sinew__encode_clip(f, c);
}

enum { HAS_NORMALS = 1, HAS_TANGENTS = 2, HAS_COLORS = 4, HAS_SKIN = 8, HAS_MORPH = 16, HAS_MORPH_WEIGHTS = 32 };
enum { MORPH_POSITIONS = 1, MORPH_NORMALS = 2, MORPH_TANGENTS = 4 };

void sinew__encode_mesh(sinew__bytes *f, const sinew_mesh *m)
{
    size_t v = (size_t)m->vertex_count;
    put_string(f, m->name);
    put_i32(f, m->vertex_count);
    uint32_t flags = (m->normals ? HAS_NORMALS : 0) | (m->tangents ? HAS_TANGENTS : 0) | (m->colors ? HAS_COLORS : 0) |
                     (m->skin ? HAS_SKIN : 0) | (m->morph ? HAS_MORPH : 0) |
                     (m->morph && m->morph_weights ? HAS_MORPH_WEIGHTS : 0);
    sinew__bytes_u32(f, flags);
    put_vertices(f, m->positions, 3 * v);
    if (m->normals) put_vertices(f, m->normals, 3 * v);
    if (m->tangents) put_vertices(f, m->tangents, 4 * v);
    put_i32(f, m->texcoord_count);
    for (int t = 0; t < m->texcoord_count; ++t) put_vertices(f, m->texcoords[t], 2 * v);
    if (m->colors) put_vertices(f, m->colors, 4 * v);
    put_i32(f, m->index_count);
    put_array(f, m->indices, sizeof *m->indices * (size_t)m->index_count, SINEW__ARRAY_ALIGN);
    put_i32(f, m->joint);
    put_i32(f, m->source_node);
    put_i32(f, m->source_mesh);
    put_i32(f, m->source_primitive);
    if (m->skin) {
        const sinew_skin *s = m->skin;
        put_i32(f, s->joint_count);
        for (int j = 0; j < s->joint_count; ++j) put_i32(f, s->joints[j]);
        put_stream(f, s->inverse_bind[0].m, 16 * (size_t)s->joint_count);
        put_i32(f, s->influence_count);
        put_i32(f, (int32_t)s->index_type);
        put_i32(f, (int32_t)s->weight_type);
        put_u8(f, s->last_weight_implied);
        size_t index_bytes = (size_t)s->vertex_count * (size_t)s->influence_count * sinew__index_bytes(s->index_type);
        size_t weight_bytes = s->weights ? (size_t)s->vertex_count * (size_t)sinew__skin_stored_weights(s) *
                                               sinew__weight_bytes(s->weight_type)
                                         : 0;
        sinew__bytes_u32(f, (uint32_t)index_bytes);
        put_array(f, s->indices, index_bytes, SINEW__ARRAY_ALIGN);
        sinew__bytes_u32(f, (uint32_t)weight_bytes);
        put_array(f, s->weights, weight_bytes, SINEW__ARRAY_ALIGN);
    }
    if (m->morph) {
        const sinew_morph *mo = m->morph;
        size_t n = v * (size_t)mo->target_count;
        put_i32(f, mo->target_count);
        sinew__bytes_u32(f, (mo->positions ? MORPH_POSITIONS : 0) | (mo->normals ? MORPH_NORMALS : 0) |
                       (mo->tangents ? MORPH_TANGENTS : 0));
        if (mo->positions) put_vertices(f, mo->positions, 3 * n);
        if (mo->normals) put_vertices(f, mo->normals, 3 * n);
        if (mo->tangents) put_vertices(f, mo->tangents, 3 * n);
        if (m->morph_weights) put_stream(f, m->morph_weights, (size_t)mo->target_count);
    }
}

/* The blocks: the block count, each group's count, then each group's
 * arrays (block indices, joints, weight rows, pivots), each on its
 * boundary. */
void sinew__encode_springs(sinew__bytes *f, const sinew_asset *a)
{
    const sinew_springs_desc *d = a->springs;
    put_i32(f, d->collider_count);
    for (int i = 0; i < d->collider_count; ++i) {
        const sinew_spring_collider *c = &d->colliders[i];
        put_i32(f, c->joint);
        put_i32(f, (int32_t)c->shape);
        put_floats(f, (const float[]){c->offset.x, c->offset.y, c->offset.z, c->tail.x, c->tail.y, c->tail.z,
                                      c->radius}, 7);
    }
    put_i32(f, d->group_count);
    for (int g = 0; g < d->group_count; ++g) {
        put_i32(f, d->groups[g].collider_count);
        for (int k = 0; k < d->groups[g].collider_count; ++k) put_i32(f, d->groups[g].colliders[k]);
    }
    put_i32(f, d->chain_count);
    for (int c = 0; c < d->chain_count; ++c) {
        const sinew_spring_chain *ch = &d->chains[c];
        put_string(f, a->spring_names ? a->spring_names[c] : "");
        put_i32(f, ch->center);
        put_i32(f, ch->collider_group_count);
        for (int g = 0; g < ch->collider_group_count; ++g) put_i32(f, ch->collider_groups[g]);
        put_i32(f, ch->joint_count);
        for (int i = 0; i < ch->joint_count; ++i) {
            const sinew_spring_joint *j = &ch->joints[i];
            put_i32(f, j->joint);
            put_floats(f, (const float[]){j->hit_radius, j->stiffness, j->gravity_power, j->gravity_dir.x,
                                          j->gravity_dir.y, j->gravity_dir.z, j->drag_force}, 7);
        }
    }
}

/* ---- timelines ------------------------------------------------------------------ */

/* A compressed component's value at grid integer q, as
 * sinew_timeline_compress() computes it (bits 0: every value is the
 * minimum itself, which the compressor leaves as it is). */
static float grid_value(const sinew__timeline_grid *g, uint32_t q)
{
    return g->bits == 0 ? g->min : g->min + (float)q * g->step;
}

/* Whether component `c` of track `t` lies on grid `g`: each value's q
 * (rounded as the compressor rounds) into `q`, and every one decoding
 * back to the value bit for bit; else the component is stored as floats
 * (a -0 beside a +0 on a grid of 0 bits, a grid a compiler's rounding
 * moved). */
static bool on_grid(const sinew_user_track *t, int c, const sinew__timeline_grid *g, uint32_t *q)
{
    if (g->bits < 0 || g->bits > 16 || !isfinite(g->min) || !isfinite(g->step) || (g->bits > 0 && !(g->step > 0.0f)))
        return false;
    float levels = (float)((1u << g->bits) - 1u);
    for (int k = 0; k < t->key_count; ++k) {
        float x = t->values[(size_t)k * (size_t)t->components + (size_t)c], f = 0.0f;
        if (g->bits > 0) {
            f = floorf((x - g->min) / g->step + 0.5f);
            f = f < 0.0f ? 0.0f : f > levels ? levels : f;
        }
        q[k] = (uint32_t)f;
        float back = grid_value(g, q[k]);
        if (memcmp(&back, &x, sizeof x) != 0) return false;
    }
    return true;
}

/* n integers of `bits` bits each, least significant bit first, bit i of
 * the run in byte i / 8 at bit i % 8; the last byte's unused bits zero. */
static void put_bits(sinew__bytes *f, const uint32_t *q, int n, int bits)
{
    unsigned char byte = 0;
    int used = 0;
    for (int k = 0; k < n; ++k)
        for (int b = 0; b < bits; ++b) {
            byte |= (unsigned char)(((q[k] >> b) & 1u) << used);
            if (++used == 8) sinew__bytes_put(f, &byte, 1), byte = 0, used = 0;
        }
    if (used) sinew__bytes_put(f, &byte, 1);
}

static void put_timeline_track(sinew__bytes *f, const sinew_user_track *t, const sinew__timeline_grid *grids,
                               uint32_t *q)
{
    put_string(f, t->name);
    unsigned char shape[2] = {(unsigned char)t->components, t->quaternion};
    sinew__bytes_put(f, shape, 2);
    put_floats(f, &t->tolerance, 1);
    put_i32(f, t->key_count);
    put_floats(f, t->times, (size_t)t->key_count);
    bool steps = false;
    for (int k = 0; k < t->key_count; ++k) steps = steps || t->step[k];
    put_u8(f, steps);
    if (steps) {
        for (int k = 0; k < t->key_count; ++k) q[k] = t->step[k] ? 1u : 0u;
        put_bits(f, q, t->key_count, 1);
    }
    for (int c = 0; c < t->components; ++c) {
        const sinew__timeline_grid *g = grids ? &grids[c] : NULL;
        bool packed = g && g->bits != 32 && on_grid(t, c, g, q);
        if (grids) {
            unsigned char bits = (unsigned char)(packed ? g->bits : 32);
            sinew__bytes_put(f, &bits, 1);
        }
        if (packed) {
            put_floats(f, &g->min, 1);
            put_floats(f, &g->step, 1);
            put_bits(f, q, t->key_count, g->bits);
        } else {
            for (int k = 0; k < t->key_count; ++k)
                put_floats(f, &t->values[(size_t)k * (size_t)t->components + (size_t)c], 1);
        }
    }
}

void sinew__encode_timelines(sinew__bytes *f, const sinew_asset *a)
{
    int present = 0, most = 1;
    for (int c = 0; c < a->clip_count; ++c) {
        const sinew_timeline *tl = a->timelines[c];
        if (!tl) continue;
        ++present;
        for (int i = 0; i < tl->track_count; ++i)
            if (tl->tracks[i].key_count > most) most = tl->tracks[i].key_count;
    }
    /* each component's integers while they are checked, then written */
    uint32_t *q = malloc(sizeof *q * (size_t)most);
    if (!q) {
        f->failed = true;
        return;
    }
    put_i32(f, present);
    for (int c = 0; c < a->clip_count; ++c) {
        const sinew_timeline *tl = a->timelines[c];
        if (!tl) continue;
        const sinew__timeline_grid *grids = tl->compressed ? sinew__timeline_grids(tl) : NULL;
        put_i32(f, c);
        put_floats(f, &tl->duration, 1);
        put_u8(f, grids != NULL);
        put_i32(f, tl->track_count);
        for (int i = 0; i < tl->track_count; ++i)
            put_timeline_track(f, &tl->tracks[i], grids ? grids + (size_t)i * 4 : NULL, q);
        put_i32(f, tl->event_count);
        for (int e = 0; e < tl->event_count; ++e) {
            put_string(f, tl->events[e].name);
            put_floats(f, &tl->events[e].time, 1);
        }
    }
    free(q);
}

void sinew__encode_skin_blocks(sinew__bytes *f, const sinew_skin *skin)
{
    const sinew__skin_blocks *bl = sinew__skin_of(skin)->blocks;
    sinew__bytes_u32(f, (uint32_t)((skin->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK));
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) sinew__bytes_u32(f, (uint32_t)bl->group[k].count);
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        const sinew__block_group *g = &bl->group[k];
        size_t c = (size_t)g->count, n = (size_t)sinew__group_joints(k);
        if (!c) continue;
        put_array(f, g->block, c * sizeof(uint32_t), SINEW__ARRAY_ALIGN);
        put_array(f, g->joints, c * n * sizeof(uint16_t), SINEW__ARRAY_ALIGN);
        put_array(f, g->weights, c * n * SINEW__BLOCK * sizeof(float), SINEW__ROW_ALIGN);
        put_array(f, g->pivot, c * SINEW__BLOCK, SINEW__ARRAY_ALIGN);
    }
}

/* ---- decoding --------------------------------------------------------------- */

/* A frame's payload being read: every take checks that the bytes are
 * there; the first shortfall or bad value leaves `bad` set and the error
 * filled, and everything after reads zeros. */
typedef struct reader {
    const unsigned char *p;
    size_t left;
    bool bad;
    sinew_error *err;
    const char *what; /* where the payload is: "the importer's output: mesh 3" */
    sinew_allocator scratch;
    sinew_asset *asset;
    const unsigned char *start; /* the payload's first byte: arrays align from it */
    sinew__codec codec;
} reader;

static bool refuse(reader *r, sinew_result result, const char *fmt, ...) SINEW__PRINTF(3, 4);

/* Marks the payload bad with "<where>: <sentence>" (the first problem
 * only). Returns false. */
static bool refuse(reader *r, sinew_result result, const char *fmt, ...)
{
    if (!r->bad) {
        char sentence[192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sentence, sizeof sentence, fmt, ap);
        va_end(ap);
        sinew__fail(r->err, result, "%s: %s", r->what, sentence);
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

/* The next n bytes where they lie (no copy), or NULL. */
static const unsigned char *skip(reader *r, size_t n)
{
    const unsigned char *at = r->p;
    return take(r, NULL, n) ? at : NULL;
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

/* Past the zeros before an array of layout 2, to its boundary. */
static void align_to(reader *r, size_t align)
{
    if (r->codec.layout < 2 || r->bad) return;
    size_t off = (size_t)(r->p - r->start) % align;
    if (off) skip(r, align - off);
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

/* An array of layout 2 (n elements of `each` bytes on its boundary):
 * where it lies in a view, else copied into the asset; NULL where it is
 * not all there. */
static const void *get_stream(reader *r, size_t n, size_t each, size_t align)
{
    align_to(r, align);
    if (!r->codec.view) return get_array(r, n, each);
    if (r->bad) return NULL;
    if (each && n > r->left / each) {
        refuse(r, SINEW_ERROR_TRUNCATED, "the frame ends early");
        return NULL;
    }
    return skip(r, n * each);
}

/* n floats of an array, every one finite (as the loaders hold them), or
 * NULL; `what` names them in the error. */
static const float *get_finite(reader *r, size_t n, size_t align, const char *what)
{
    const float *v = get_stream(r, n, sizeof(float), align);
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
    /* the names in one scratch block (the skeleton copies them): no more
     * bytes than the payload's, and a NUL each */
    size_t text_used = 0, text_room = r->left + (size_t)n;
    char *text = sinew__alloc(&r->scratch, text_room);
    if (!parents || !rest || !names || !text) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int j = 0; j < n && !r->bad; ++j) {
        parents[j] = get_i32(r);
        take(r, &rest[j], sizeof rest[j]);
        uint32_t length = get_u32(r);
        if (r->bad) break;
        if (length > r->left) {
            refuse(r, SINEW_ERROR_TRUNCATED, "a name of %u bytes ends early", length);
            break;
        }
        char *name = text + text_used;
        take(r, name, length);
        name[length] = '\0';
        text_used += (size_t)length + 1;
        if (strlen(name) != length) {
            refuse(r, SINEW_ERROR_PARSE, "a name holds a NUL byte");
            break;
        }
        names[j] = name;
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
    sinew__free(&r->scratch, text);
}

/* A packed clip section's keys as read (read_packed_clip), pointing into
 * the payload (the key times into scratch where copying). */
typedef struct packed_keys {
    const sinew__stored_track *tracks;
    int count;
    const float *times;
    int key_count;
    float last_time; /* of the keys the tracks hold: the clip lasts as long at least */
} packed_keys;

/* A clip payload; with `packed` (a packed clip section's keys read
 * already) its tracks are weights tracks, and the clip made takes the
 * packed keys' plan, built from them as sinew_clip_pack builds it. */
static sinew_clip *read_clip(reader *r, const sinew_options *options, const packed_keys *packed)
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
        if (packed && target != SINEW_TARGET_WEIGHTS) {
            refuse(r, SINEW_ERROR_PARSE, "track %d: a packed clip's tracks beside its packed keys are weights "
                   "tracks", i);
            break;
        }
        t->target = (sinew_track_target)target, t->interpolation = (sinew_interpolation)interp;
        size_t floats = sinew__track_floats(t);
        if (floats > r->left / 4 || (size_t)t->key_count > r->left / 4 - floats) {
            refuse(r, SINEW_ERROR_TRUNCATED, "track %d's %d keys need more bytes than the frame holds", i,
                   t->key_count);
            break;
        }
        if (r->codec.view) { /* where they lie */
            t->times = get_stream(r, (size_t)t->key_count, sizeof(float), SINEW__ARRAY_ALIGN);
            t->values = get_stream(r, floats, sizeof(float), SINEW__ARRAY_ALIGN);
            continue;
        }
        /* keys on a float's boundary are read where they lie by the clip,
         * which copies them: no copy of its own between */
        align_to(r, SINEW__ARRAY_ALIGN);
        if ((uintptr_t)r->p % 4 == 0) {
            t->times = (const float *)(const void *)skip(r, 4 * (size_t)t->key_count);
            align_to(r, SINEW__ARRAY_ALIGN);
            t->values = (const float *)(const void *)skip(r, 4 * floats);
            continue;
        }
        float *block = sinew__alloc(&r->scratch, sizeof(float) * ((size_t)t->key_count + floats));
        if (!block) {
            refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        blocks[held++] = block;
        align_to(r, SINEW__ARRAY_ALIGN);
        take(r, block, sizeof(float) * (size_t)t->key_count);
        align_to(r, SINEW__ARRAY_ALIGN);
        take(r, block + t->key_count, sizeof(float) * floats);
        t->times = block, t->values = block + t->key_count;
    }
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the clip", r->left);
    if (!r->bad && packed && duration > 0.0f && duration < packed->last_time)
        refuse(r, SINEW_ERROR_INVALID_ARGUMENT, "the duration %g is shorter than the packed keys' last, at %g",
               (double)duration, (double)packed->last_time);
    if (!r->bad) {
        /* a clip of duration 0 lasts to its last key: the packed ones' too */
        if (packed && duration == 0.0f && packed->last_time > 0.0f) {
            duration = packed->last_time;
            for (int i = 0; i < n; ++i)
                if (isfinite(tracks[i].times[tracks[i].key_count - 1]))
                    duration = fmaxf(duration, tracks[i].times[tracks[i].key_count - 1]);
        }
        sinew_clip_desc d = {.name = name, .joint_count = r->asset->skeleton->joint_count, .duration = duration,
                             .track_count = n, .tracks = tracks, .additive = additive,
                             .skeleton = packed ? NULL : r->asset->skeleton};
        sinew_error e;
        clip = sinew__clip_create(&d, r->codec.view ? SINEW__CLIP_BORROW : SINEW__CLIP_COPY, options, &e);
        if (!clip) refused_by(r, &e);
    }
    if (clip && packed) {
        /* the packed keys' plan in place of the weights tracks' own, as
         * sinew_clip_pack gives it (their hint after the weights tracks') */
        sinew__clip *c = sinew__clip_of(clip);
        sinew__pack_result res;
        sinew__sampler *sm = sinew__sampler_pack_stored(packed->tracks, packed->count, packed->times,
                                                        packed->key_count, additive, r->asset->skeleton, n,
                                                        &c->allocator, sinew__simd_level(options), &res);
        if (!sm) {
            if (res.wide_joint >= 0)
                refuse(r, SINEW_ERROR_UNSUPPORTED, "joint %d: its packed values span more than 16 bits can cover "
                       "in floats", res.wide_joint);
            else
                refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
            sinew_clip_free(clip);
            clip = NULL;
        } else {
            sinew__free_aligned(&c->allocator, c->sampler);
            c->sampler = sm;
            sinew__clip_set_form(clip, &sinew__form_packed);
        }
    }
    for (int i = 0; i < held; ++i) sinew__free(&r->scratch, blocks[i]);
    sinew__free(&r->scratch, blocks), sinew__free(&r->scratch, tracks);
    return clip;
}

/* The key times of a packed clip's tracks as sinew_clip_create checks a
 * track's (all of them where a track holds every key, else the first):
 * finite, from 0 on, increasing. */
static void check_packed_times(reader *r, const float *times, int keys)
{
    for (int k = 0; k < keys && !r->bad; ++k) {
        if (!isfinite(times[k]) || (k == 0 && times[k] < 0.0f))
            refuse(r, SINEW_ERROR_NOT_FINITE, "packed key %d: time %g is negative or not finite", k,
                   (double)times[k]);
        else if (k > 0 && !(times[k] > times[k - 1]))
            refuse(r, SINEW_ERROR_KEYS_NOT_INCREASING, "packed key %d: time %g is not after key %d's, %g", k,
                   (double)times[k], k - 1, (double)times[k - 1]);
    }
}

/* A packed clip section: its keys read where they lie (the key times
 * copied into scratch where copying) and checked, then the clip payload
 * that follows, whose clip takes the plan made from them. Neither the
 * clip's floats nor its exact layout are made: the work and the memory
 * are linear in the section's bytes. */
static sinew_clip *read_packed_clip(reader *r, const sinew_options *options)
{
    int joints = r->asset->skeleton->joint_count;
    int keys = get_count(r, "the key count", 1, INT32_MAX, 4);
    /* the key times where they lie in a view, else in scratch (the plan copies them) */
    align_to(r, SINEW__ARRAY_ALIGN);
    float *copy = r->codec.view || r->bad ? NULL : sinew__alloc(&r->scratch, sizeof(float) * (size_t)keys);
    const float *times = r->codec.view ? (const float *)skip(r, sizeof(float) * (size_t)keys) : copy;
    if (copy) take(r, copy, sizeof(float) * (size_t)keys);
    /* each track: joint, target and three floats of five bytes at least */
    int n = get_count(r, "the packed track count", 0, 3 * joints, 8 + 3 * 5);
    if (r->bad) {
        sinew__free(&r->scratch, copy);
        return NULL;
    }
    sinew__stored_track *tracks = sinew__alloc(&r->scratch, sizeof *tracks * ((size_t)n + 1));
    size_t seen_bytes = (3 * (size_t)joints + 7) / 8;
    unsigned char *seen = sinew__alloc(&r->scratch, seen_bytes);
    if (!tracks || !times || !seen) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    if (seen) memset(seen, 0, seen_bytes);
    bool keyed = false;
    for (int i = 0; i < n && !r->bad; ++i) {
        sinew__stored_track *t = &tracks[i];
        int32_t joint = get_i32(r), target = get_i32(r);
        if (!r->bad && (joint < 0 || joint >= joints || target < 0 || target > SINEW_TARGET_SCALE)) {
            refuse(r, SINEW_ERROR_PARSE, "packed track %d: joint %d or target %d out of range", i, (int)joint,
                   (int)target);
            break;
        }
        if (r->bad) break;
        size_t bit = 3 * (size_t)joint + (size_t)target;
        if (seen[bit / 8] >> (bit % 8) & 1) {
            refuse(r, SINEW_ERROR_DUPLICATE_TRACK, "packed track %d animates joint %d %s a second time", i,
                   (int)joint, sinew__target_names[target]);
            break;
        }
        seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
        int width = target == SINEW_TARGET_ROTATION ? 4 : 3;
        *t = (sinew__stored_track){.joint = joint, .target = (sinew_track_target)target};
        /* each float constant, or its keys' q (2 bytes a key) with the
         * offset and the step (a power of two) they scale */
        for (int c = 0; c < width && !r->bad; ++c) {
            sinew__stored_float *x = &t->f[c];
            if (!get_u8(r)) {
                take(r, &x->value, sizeof x->value);
                if (!r->bad && !isfinite(x->value))
                    refuse(r, SINEW_ERROR_NOT_FINITE, "packed track %d, float %d: %g is not finite", i, c,
                           (double)x->value);
                continue;
            }
            take(r, &x->offset, sizeof x->offset), take(r, &x->step, sizeof x->step);
            int e;
            if (!r->bad && (!isfinite(x->offset) || !(x->step > 0.0f) || !isfinite(x->step) ||
                            frexpf(x->step, &e) != 0.5f)) {
                refuse(r, SINEW_ERROR_PARSE, "packed track %d, float %d: offset %g or step %g: not finite, or "
                       "the step not a power of two", i, c, (double)x->offset, (double)x->step);
                break;
            }
            x->q = skip(r, 2 * (size_t)keys);
            keyed = true;
        }
        if (r->bad) break;
        /* the keys' values as sinew_clip_create checks them: finite (each
         * lies between the offset and offset + 65535 step, the sum rounded
         * once), no rotation the zero quaternion (looked for key by key
         * only where every float of it can be 0) */
        bool zero_possible = width == 4;
        for (int c = 0; c < width && !r->bad; ++c) {
            const sinew__stored_float *x = &t->f[c];
            float top = x->q ? x->offset + 65535.0f * x->step : x->value;
            if (x->q && !isfinite(top))
                refuse(r, SINEW_ERROR_NOT_FINITE, "packed track %d, float %d: offset %g and step %g reach past "
                       "the floats", i, c, (double)x->offset, (double)x->step);
            zero_possible = zero_possible && (x->q ? x->offset <= 0.0f && top >= 0.0f : x->value == 0.0f);
        }
        for (int k = 0; zero_possible && k < (keyed ? keys : 1) && !r->bad; ++k) {
            bool zero = true;
            for (int c = 0; c < 4 && zero; ++c) {
                const sinew__stored_float *x = &t->f[c];
                uint16_t q = 0;
                if (x->q) memcpy(&q, x->q + 2 * (size_t)k, sizeof q);
                zero = (x->q ? x->offset + (float)q * x->step : x->value) == 0.0f;
            }
            if (zero) refuse(r, SINEW_ERROR_BAD_ROTATION, "packed track %d: key %d is the zero quaternion", i, k);
        }
    }
    /* the times the tracks use: all of them where one holds every key */
    if (!r->bad && n > 0) check_packed_times(r, times, keyed ? keys : 1);
    sinew_clip *clip = NULL;
    if (!r->bad) {
        packed_keys pk = {tracks, n, times, keys, n > 0 ? times[keyed ? keys - 1 : 0] : 0.0f};
        clip = read_clip(r, options, &pk);
    }
    sinew__free(&r->scratch, tracks), sinew__free(&r->scratch, seen), sinew__free(&r->scratch, copy);
    return clip;
}

/* The blocks payload (sinew__encode_skin_blocks) of a skin of `vertices`
 * vertices into `out`, pointing into the payload. */
static void read_blocks(reader *r, int vertices, sinew__stored_blocks *out)
{
    uint32_t count = get_u32(r);
    if (!r->bad && count != (uint32_t)((vertices + SINEW__BLOCK - 1) / SINEW__BLOCK))
        refuse(r, SINEW_ERROR_SIZE_MISMATCH, "the skin's blocks: %u where its %d vertices make %d", count, vertices,
               (vertices + SINEW__BLOCK - 1) / SINEW__BLOCK);
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        uint32_t c = get_u32(r);
        if (!r->bad && c > count) refuse(r, SINEW_ERROR_PARSE, "the skin's group %d holds %u of %u blocks", k, c, count);
        out->count[k] = r->bad ? 0 : (int)c;
    }
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS && !r->bad; ++k) {
        size_t c = (size_t)out->count[k], n = (size_t)sinew__group_joints(k);
        if (!c) continue;
        /* a block of n joints takes 4 + 2n + 32n + 8 bytes (less 2 of padding):
         * c bounded by the bytes left, no product below overflows */
        if (c > r->left / (10 + 34 * n)) {
            refuse(r, SINEW_ERROR_TRUNCATED, "the skin's group %d: %zu blocks need more bytes than the frame holds",
                   k, c);
            break;
        }
        align_to(r, SINEW__ARRAY_ALIGN);
        out->block[k] = skip(r, c * sizeof(uint32_t));
        align_to(r, SINEW__ARRAY_ALIGN);
        out->joints[k] = skip(r, c * n * sizeof(uint16_t));
        if (r->codec.layout < 2 && c * n % 2) skip(r, 2);
        align_to(r, SINEW__ROW_ALIGN);
        out->weights[k] = skip(r, c * n * SINEW__BLOCK * sizeof(float));
        align_to(r, SINEW__ARRAY_ALIGN);
        out->pivot[k] = skip(r, c * SINEW__BLOCK);
    }
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the skin's blocks", r->left);
}

static void read_skin(reader *r, sinew_mesh *m, const sinew__stored_blocks *stored, const sinew_options *options)
{
    size_t nv = (size_t)m->vertex_count;
    sinew_skin_desc d = {0};
    d.joint_count = get_count(r, "the skin's joint count", 1, SINEW_MAX_JOINTS, 4 + sizeof(sinew_mat4));
    d.joints = get_array(r, (size_t)d.joint_count, sizeof(int));
    d.inverse_bind = get_stream(r, (size_t)d.joint_count, sizeof(sinew_mat4), SINEW__ARRAY_ALIGN);
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
    size_t want_indices = nv * (size_t)d.influence_count * sinew__index_bytes(d.index_type);
    uint32_t index_bytes = get_u32(r);
    if (!r->bad && index_bytes != want_indices)
        refuse(r, SINEW_ERROR_SIZE_MISMATCH, "the skin's joint indices: %u bytes where %zu are due", index_bytes,
               want_indices);
    d.indices = get_stream(r, index_bytes, 1, SINEW__ARRAY_ALIGN);
    size_t want_weights = nv * (size_t)sinew__stored_weights(d.influence_count, d.last_weight_implied) *
                          sinew__weight_bytes(d.weight_type);
    uint32_t weight_bytes = get_u32(r);
    /* none at all where the skin needs none (one influence, or the one
     * stored weight implied): sinew_skin_create says which */
    if (!r->bad && weight_bytes != want_weights && weight_bytes != 0)
        refuse(r, SINEW_ERROR_SIZE_MISMATCH, "the skin's weights: %u bytes where %zu are due", weight_bytes,
               want_weights);
    if (weight_bytes) d.weights = get_stream(r, weight_bytes, 1, SINEW__ARRAY_ALIGN);
    if (r->bad) return;
    sinew_error e;
    if (sinew__asset_skin(r->asset, &d, stored, r->codec.view, "its skin", options, &e, m) != SINEW_OK)
        refused_by(r, &e);
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
    if (which & MORPH_POSITIONS) mo->positions = get_finite(r, 3 * n, SINEW__STREAM_ALIGN, "morph position deltas");
    if (which & MORPH_NORMALS) mo->normals = get_finite(r, 3 * n, SINEW__STREAM_ALIGN, "morph normal deltas");
    if (which & MORPH_TANGENTS) mo->tangents = get_finite(r, 3 * n, SINEW__STREAM_ALIGN, "morph tangent deltas");
    m->morph_weights = get_finite(r, (size_t)targets, SINEW__ARRAY_ALIGN, "default morph weights");
    if (!r->bad) m->morph = mo;
}

/* `blocks`: a reader over the skin's blocks, or NULL. */
static void read_mesh(reader *r, sinew_mesh *m, reader *blocks, const sinew_options *options)
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
    m->positions = get_finite(r, 3 * nv, SINEW__STREAM_ALIGN, "positions");
    if (flags & HAS_NORMALS) m->normals = get_finite(r, 3 * nv, SINEW__STREAM_ALIGN, "normals");
    if (flags & HAS_TANGENTS) m->tangents = get_finite(r, 4 * nv, SINEW__STREAM_ALIGN, "tangents");
    int sets = get_count(r, "the texture coordinate set count", 0, 64, 8 * nv);
    if (sets) {
        const float **list = sinew__asset_alloc(r->asset, (size_t)sets, sizeof *list);
        if (!list) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        for (int t = 0; t < sets && !r->bad; ++t) list[t] = get_finite(r, 2 * nv, SINEW__STREAM_ALIGN, "texture coordinates");
        m->texcoords = list, m->texcoord_count = r->bad ? 0 : sets;
    }
    if (flags & HAS_COLORS) m->colors = get_finite(r, 4 * nv, SINEW__STREAM_ALIGN, "colors");
    int indices = get_count(r, "the index count", 0, INT32_MAX, 4);
    const uint32_t *list = get_stream(r, (size_t)indices, sizeof(uint32_t), SINEW__ARRAY_ALIGN);
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
    sinew__stored_blocks stored;
    if (blocks) {
        if (!(flags & HAS_SKIN)) {
            refuse(r, SINEW_ERROR_PARSE, "SIMD blocks come with a mesh without a skin");
            return;
        }
        memset(&stored, 0, sizeof stored);
        read_blocks(blocks, v, &stored);
        if (blocks->bad) {
            r->bad = true;
            return;
        }
    }
    if (flags & HAS_SKIN) read_skin(r, m, blocks ? &stored : NULL, options);
    if ((flags & HAS_MORPH) && !r->bad) read_morph(r, m, (flags & HAS_MORPH_WEIGHTS) != 0);
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the mesh", r->left);
}


/* ---- the decoders' entry points ------------------------------------------------ */

sinew_result sinew__decode_skeleton(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                    const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    read_skeleton(&r, options);
    return r.bad ? (err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE) : SINEW_OK;
}

sinew_clip *sinew__decode_clip(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                               const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    return read_clip(&r, options, NULL);
}

sinew_clip *sinew__decode_packed_clip(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                      const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    return read_packed_clip(&r, options);
}

/* A compressed clip section: its block (where it lies in a view, else
 * copied by the clip), then the clip payload of its weights tracks. */
static sinew_clip *read_compressed_clip(reader *r, const sinew_options *options)
{
    int32_t size = get_count(r, "the compressed block's size", 1, INT32_MAX, 1);
    align_to(r, SINEW__STREAM_ALIGN);
    const unsigned char *block = r->bad ? NULL : skip(r, (size_t)size);
    if (!block) return NULL;
    sinew_clip *clip = read_clip(r, options, NULL);
    for (int i = 0; clip && i < clip->track_count; ++i)
        if (clip->tracks[i].target != SINEW_TARGET_WEIGHTS) {
            refuse(r, SINEW_ERROR_PARSE, "track %d: a compressed clip's tracks are weights tracks", i);
            sinew_clip_free(clip);
            return NULL;
        }
    const char *why = clip ? sinew__clip_compressed(clip, block, (size_t)size, r->codec.view,
                                                    sinew__simd_level(options))
                           : NULL;
    if (why) {
        refuse(r, strcmp(why, "out of memory") == 0 ? SINEW_ERROR_OUT_OF_MEMORY : SINEW_ERROR_PARSE,
               "the compressed block: %s", why);
        sinew_clip_free(clip);
        return NULL;
    }
    return clip;
}

sinew_clip *sinew__decode_compressed_clip(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                          const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    return read_compressed_clip(&r, options);
}

sinew_result sinew__decode_mesh(const unsigned char *p, size_t n, const unsigned char *blocks, size_t blocks_n,
                                sinew__codec codec, const char *where, const sinew_options *options,
                                sinew_asset *asset, sinew_mesh *mesh, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    reader b = {blocks, blocks_n, false, err, where, r.scratch, asset, blocks, codec};
    read_mesh(&r, mesh, blocks ? &b : NULL, options);
    return r.bad ? (err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE) : SINEW_OK;
}

/* ---- spring bones --------------------------------------------------------------- */

/* Checks a springs description against its skeleton as
 * sinew_springs_create() would, in time and memory linear in the two (the
 * create function itself may take more for chains nested deep): is-below
 * is one comparison against each joint's range in a depth-first order, and
 * bone lengths come from the rest pose's model positions made once. */
sinew_result sinew__springs_check(const sinew_skeleton *sk, const sinew_springs_desc *d,
                                  const sinew_allocator *scratch, const char *where, sinew_error *err)
{
    reader rd = {NULL, 0, false, err, where, *scratch, NULL, NULL, {2, false}}, *r = &rd;
    int n = sk->joint_count;
    int *first = sinew__alloc(&r->scratch, sizeof(int) * 4 * (size_t)n);
    sinew_mat4 *model = sinew__alloc(&r->scratch, sizeof *model * (size_t)n);
    if (!first || !model) {
        sinew__free(&r->scratch, first);
        sinew__free(&r->scratch, model);
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return err->result;
    }
    int *size = first + n, *next = first + 2 * n, *owner = first + 3 * n, roots = 0;
    for (int j = 0; j < n; ++j) size[j] = 1, owner[j] = -1;
    for (int j = n - 1; j > 0; --j)
        if (sk->parents[j] >= 0) size[sk->parents[j]] += size[j];
    for (int j = 0; j < n; ++j) {
        int p = sk->parents[j];
        sinew_mat4 local = sinew_mat4_from_transform(&sk->rest_pose[j]);
        model[j] = p < 0 ? local : sinew_mat4_mul(&model[p], &local);
        if (p < 0) first[j] = roots, roots += size[j];
        else first[j] = next[p], next[p] += size[j];
        next[j] = first[j] + 1;
    }
#define BELOW(a, d) (first[a] < first[d] && first[d] < first[a] + size[a])
    for (int i = 0; i < d->collider_count && !r->bad; ++i) {
        const sinew_spring_collider *c = &d->colliders[i];
        float v[7] = {c->offset.x, c->offset.y, c->offset.z, c->tail.x, c->tail.y, c->tail.z, c->radius};
        if (c->joint < 0 || c->joint >= n) refuse(r, SINEW_ERROR_BAD_JOINT_INDEX, "collider %d: joint %d is not in the skeleton", i, c->joint);
        else if (c->shape != SINEW_COLLIDER_SPHERE && c->shape != SINEW_COLLIDER_CAPSULE) refuse(r, SINEW_ERROR_PARSE, "collider %d: shape %d is unknown", i, (int)c->shape);
        else if (!sinew__finite_n(v, 7)) refuse(r, SINEW_ERROR_NOT_FINITE, "collider %d: a NaN or an infinity", i);
        else if (c->radius < 0) refuse(r, SINEW_ERROR_PARSE, "collider %d: a negative radius", i);
    }
    for (int g = 0; g < d->group_count && !r->bad; ++g)
        for (int k = 0; k < d->groups[g].collider_count; ++k)
            if (d->groups[g].colliders[k] < 0 || d->groups[g].colliders[k] >= d->collider_count) {
                refuse(r, SINEW_ERROR_BAD_REFERENCE, "collider group %d: collider %d is out of range", g, d->groups[g].colliders[k]);
                break;
            }
    for (int c = 0; c < d->chain_count && !r->bad; ++c) {
        const sinew_spring_chain *ch = &d->chains[c];
        for (int g = 0; g < ch->collider_group_count && !r->bad; ++g)
            if (ch->collider_groups[g] < 0 || ch->collider_groups[g] >= d->group_count)
                refuse(r, SINEW_ERROR_BAD_REFERENCE, "chain %d: collider group %d is out of range", c, ch->collider_groups[g]);
        for (int i = 0; i < ch->joint_count && !r->bad; ++i) {
            const sinew_spring_joint *jt = &ch->joints[i];
            int j = jt->joint;
            float v[7] = {jt->hit_radius, jt->stiffness, jt->gravity_power, jt->gravity_dir.x, jt->gravity_dir.y,
                          jt->gravity_dir.z, jt->drag_force};
            if (j < 0 || j >= n) refuse(r, SINEW_ERROR_BAD_JOINT_INDEX, "chain %d, joint %d: %d is not in the skeleton", c, i, j);
            else if (!sinew__finite_n(v, 7)) refuse(r, SINEW_ERROR_NOT_FINITE, "chain %d, joint %d: a NaN or an infinity", c, i);
            else if (v[0] < 0 || v[1] < 0 || v[2] < 0 || !(v[6] >= 0 && v[6] <= 1))
                refuse(r, SINEW_ERROR_PARSE, "chain %d, joint %d: a parameter out of its range", c, i);
            else if (i > 0 && !BELOW(ch->joints[i - 1].joint, j))
                refuse(r, SINEW_ERROR_PARSE, "chain %d, joint %d: %d is not below the joint before it", c, i, j);
            else if (i + 1 < ch->joint_count && owner[j] >= 0)
                refuse(r, SINEW_ERROR_PARSE, "chain %d, joint %d: %d is already a joint of chain %d", c, i, j, owner[j]);
            if (r->bad || i == 0) continue;
            int h = ch->joints[i - 1].joint;
            owner[h] = c;
            sinew_vec3 a = {model[h].m[12], model[h].m[13], model[h].m[14]}, b = {model[j].m[12], model[j].m[13], model[j].m[14]};
            float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
            if (!(dx * dx + dy * dy + dz * dz > 0.0f))
                refuse(r, SINEW_ERROR_PARSE, "chain %d, joint %d: its bone has zero length in the rest pose", c, i - 1);
        }
        if (!r->bad && ch->center != -1 &&
            (ch->center < 0 || ch->center >= n || (ch->center != ch->joints[0].joint && !BELOW(ch->center, ch->joints[0].joint))))
            refuse(r, SINEW_ERROR_PARSE, "chain %d: its center %d is neither its first joint nor above it", c, ch->center);
    }
#undef BELOW
    sinew__free(&r->scratch, first);
    sinew__free(&r->scratch, model);
    return r->bad ? err->result : SINEW_OK;
}

/* The springs section into asset->springs (its arrays the asset's, in
 * pools sized from the section's bytes so that many small groups cost no
 * allocation each), then checked against the skeleton. */
static void read_springs(reader *r)
{
    sinew_asset *a = r->asset;
    const sinew_skeleton *sk = a->skeleton;
    size_t n = r->left;
    sinew_springs_desc *d = sinew__asset_alloc(a, 1, sizeof *d);
    int *ints = sinew__asset_alloc(a, n / 4 + 1, sizeof *ints);
    sinew_spring_joint *joints = sinew__asset_alloc(a, n / 32 + 1, sizeof *joints);
    if (!d || !ints || !joints) {
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return;
    }
    size_t used_ints = 0, used_joints = 0;
    int nc = get_count(r, "the collider count", 0, INT32_MAX, 36);
    sinew_spring_collider *cs = r->bad ? NULL : sinew__asset_alloc(a, (size_t)nc + 1, sizeof *cs);
    if (!r->bad && !cs) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < nc && !r->bad; ++i) {
        float v[7];
        cs[i].joint = get_i32(r);
        cs[i].shape = (sinew_collider_shape)get_i32(r);
        take(r, v, sizeof v);
        cs[i].offset = (sinew_vec3){v[0], v[1], v[2]};
        cs[i].tail = (sinew_vec3){v[3], v[4], v[5]};
        cs[i].radius = v[6];
    }
    int ng = get_count(r, "the collider group count", 0, INT32_MAX, 4);
    sinew_spring_collider_group *gs = r->bad ? NULL : sinew__asset_alloc(a, (size_t)ng + 1, sizeof *gs);
    if (!r->bad && !gs) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int g = 0; g < ng && !r->bad; ++g) {
        int k = get_count(r, "a collider group's collider count", 0, INT32_MAX, 4);
        gs[g].colliders = ints + used_ints, gs[g].collider_count = k;
        for (int i = 0; i < k && !r->bad; ++i) ints[used_ints++] = get_i32(r);
    }
    /* a chain: a name's length, center, group count, joint count and two joints */
    int nh = get_count(r, "the chain count", 0, INT32_MAX, 16 + 64);
    sinew_spring_chain *chains = r->bad ? NULL : sinew__asset_alloc(a, (size_t)nh + 1, sizeof *chains);
    const char **names = r->bad ? NULL : sinew__asset_alloc(a, (size_t)nh + 1, sizeof *names);
    if (!r->bad && (!chains || !names)) refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int c = 0; c < nh && !r->bad; ++c) {
        sinew_spring_chain *ch = &chains[c];
        names[c] = get_string(r);
        ch->center = get_i32(r);
        int g = get_count(r, "a chain's collider group count", 0, INT32_MAX, 4);
        ch->collider_groups = ints + used_ints, ch->collider_group_count = g;
        for (int i = 0; i < g && !r->bad; ++i) ints[used_ints++] = get_i32(r);
        int k = get_count(r, "a chain's joint count", 2, SINEW_MAX_JOINTS, 32);
        sinew_spring_joint *js = joints + used_joints;
        ch->joints = js, ch->joint_count = k;
        for (int i = 0; i < k && !r->bad; ++i) {
            float v[7];
            js[i].joint = get_i32(r);
            take(r, v, sizeof v);
            js[i].hit_radius = v[0], js[i].stiffness = v[1], js[i].gravity_power = v[2];
            js[i].gravity_dir = (sinew_vec3){v[3], v[4], v[5]};
            js[i].drag_force = v[6];
        }
        used_joints += (size_t)k;
    }
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the springs", r->left);
    if (r->bad) return;
    *d = (sinew_springs_desc){cs, nc, gs, ng, chains, nh};
    if (sinew__springs_check(sk, d, &r->scratch, r->what, r->err) != SINEW_OK) {
        r->bad = true;
        return;
    }
    a->springs = d;
    a->spring_names = names;
}

sinew_result sinew__decode_springs(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                   const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    if (asset->springs) refuse(&r, SINEW_ERROR_PARSE, "a second springs section");
    else read_springs(&r);
    return r.bad ? (err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE) : SINEW_OK;
}

/* ---- timelines ------------------------------------------------------------------ */

/* What one timeline of the section needs, counted by a first read that
 * checks it without allocating; and where a second read puts it. */
typedef struct tl_need {
    size_t tracks, floats, keys, events, names;
} tl_need;
typedef struct tl_fill {
    sinew_user_track *tracks;
    sinew__timeline_grid *grids;
    float *floats;
    uint8_t *steps;
    sinew_event *events;
    char *names;
} tl_fill;

static float get_f32(reader *r)
{
    float v;
    take(r, &v, sizeof v);
    return v;
}

static unsigned get_byte(reader *r)
{
    unsigned char b;
    take(r, &b, 1);
    return b;
}

/* Bit `at` of a run written by put_bits. */
static unsigned bit_at(const unsigned char *b, size_t at) { return (b[at / 8] >> (at % 8)) & 1u; }

/* `n` bytes of a bit run of `used` bits, whose last byte's unused bits
 * must be zero; NULL where refused. */
static const unsigned char *get_bits(reader *r, size_t used, int track, const char *what)
{
    size_t n = (used + 7) / 8;
    if (n > r->left) {
        refuse(r, SINEW_ERROR_TRUNCATED, "user track %d: its %s end early", track, what);
        return NULL;
    }
    const unsigned char *b = skip(r, n);
    if (b && used % 8 && b[n - 1] >> (used % 8)) {
        refuse(r, SINEW_ERROR_PARSE, "user track %d: the bits past its %s are not zero", track, what);
        return NULL;
    }
    return b;
}

/* A name: NUL-terminated into *names where filling, else skipped. */
static const char *timeline_name(reader *r, tl_need *need, char **names)
{
    uint32_t n = get_u32(r);
    if (r->bad) return "";
    if (n > r->left) {
        refuse(r, SINEW_ERROR_TRUNCATED, "a name of %u bytes ends early", n);
        return "";
    }
    const unsigned char *p = skip(r, n);
    if (n && memchr(p, 0, n)) {
        refuse(r, SINEW_ERROR_PARSE, "a name holds a NUL byte");
        return "";
    }
    need->names += (size_t)n + 1;
    if (!names) return "";
    char *s = *names;
    if (n) memcpy(s, p, n);
    s[n] = '\0';
    *names += (size_t)n + 1;
    return s;
}

static void timeline_track(reader *r, int i, bool compressed, tl_need *need, tl_fill *o)
{
    sinew_user_track t = {0};
    t.name = timeline_name(r, need, o ? &o->names : NULL);
    unsigned components = get_byte(r);
    if (!r->bad && (components < 1 || components > 4)) {
        refuse(r, SINEW_ERROR_PARSE, "user track %d: %u components (1 .. 4)", i, components);
        return;
    }
    t.components = (int)components;
    t.quaternion = get_u8(r);
    t.tolerance = get_f32(r);
    char what[64];
    snprintf(what, sizeof what, "user track %d's key count", i);
    t.key_count = get_count(r, what, 1, INT32_MAX, 4);
    if (r->bad) return;
    size_t n = (size_t)t.key_count, c = components;
    float *times = o ? o->floats : NULL, *values = o ? o->floats + n : NULL;
    take(r, times, 4 * n);
    bool held = get_u8(r);
    const unsigned char *steps = held ? get_bits(r, n, i, "step flags") : NULL;
    if (r->bad) return;
    for (size_t k = 0; o && k < n; ++k) o->steps[k] = steps ? (uint8_t)bit_at(steps, k) : 0;
    for (size_t ci = 0; ci < c && !r->bad; ++ci) {
        sinew__timeline_grid g = {0.0f, 0.0f, 32};
        if (compressed) g.bits = (int)get_byte(r);
        if (r->bad) return;
        if (g.bits == 32) {
            if (n > r->left / 4) {
                refuse(r, SINEW_ERROR_TRUNCATED, "user track %d, component %zu: its floats end early", i, ci);
                return;
            }
            for (size_t k = 0; k < n; ++k) {
                float v = get_f32(r);
                if (values) values[k * c + ci] = v;
            }
        } else if (g.bits > 16) {
            refuse(r, SINEW_ERROR_PARSE, "user track %d, component %zu: %d bits (0 .. 16, or 32 for floats)", i, ci,
                   g.bits);
            return;
        } else {
            g.min = get_f32(r), g.step = get_f32(r);
            if (r->bad) return;
            if (!isfinite(g.min) || !isfinite(g.step) || (g.bits > 0 && !(g.step > 0.0f))) {
                refuse(r, isfinite(g.min) && isfinite(g.step) ? SINEW_ERROR_PARSE : SINEW_ERROR_NOT_FINITE,
                       "user track %d, component %zu: grid minimum %g and step %g (finite, the step above 0)", i,
                       ci, (double)g.min, (double)g.step);
                return;
            }
            /* q has `bits` bits: within 0 .. 2^bits - 1 by its width */
            const unsigned char *b = get_bits(r, n * (size_t)g.bits, i, "grid integers");
            if (!b) return;
            for (size_t k = 0; k < n; ++k) {
                uint32_t q = 0;
                for (int j = 0; j < g.bits; ++j) q |= bit_at(b, k * (size_t)g.bits + (size_t)j) << j;
                float v = grid_value(&g, q);
                if (!isfinite(v)) {
                    refuse(r, SINEW_ERROR_NOT_FINITE, "user track %d, component %zu, key %zu: %g + %u x %g is not "
                           "finite", i, ci, k, (double)g.min, q, (double)g.step);
                    return;
                }
                if (values) values[k * c + ci] = v;
            }
        }
        if (o) o->grids[(size_t)i * 4 + ci] = g;
    }
    need->floats += n * (c + 1), need->keys += n;
    if (!o) return;
    for (size_t ci = c; ci < 4; ++ci) o->grids[(size_t)i * 4 + ci] = (sinew__timeline_grid){0.0f, 0.0f, 32};
    t.times = times, t.values = values, t.step = o->steps;
    o->tracks[i] = t;
    o->floats += n * (c + 1), o->steps += n;
}

/* One timeline's fields after its clip index: checked and counted (o
 * NULL), or read into o's arrays. */
static void timeline_body(reader *r, sinew_timeline_desc *d, bool *compressed, tl_need *need, tl_fill *o)
{
    d->duration = get_f32(r);
    *compressed = get_u8(r);
    /* a track: a name's length, its shape, tolerance, key count, one
     * time, the steps flag and one component's bits at least */
    d->track_count = get_count(r, "the user track count", 0, INT32_MAX, 4 + 2 + 4 + 4 + 4 + 1 + 1);
    need->tracks = (size_t)d->track_count;
    for (int i = 0; i < d->track_count && !r->bad; ++i) timeline_track(r, i, *compressed, need, o);
    d->event_count = get_count(r, "the event count", 0, INT32_MAX, 8);
    need->events = (size_t)d->event_count;
    for (int e = 0; e < d->event_count && !r->bad; ++e) {
        const char *name = timeline_name(r, need, o ? &o->names : NULL);
        float time = get_f32(r);
        if (o) o->events[e] = (sinew_event){name, time};
    }
}

/* The timelines section into asset->timelines: each timeline read twice
 * (checked and measured, then into one scratch block of that size), then
 * made by sinew__timeline_make, which checks the rest as
 * sinew_timeline_create does. */
static void read_timelines(reader *r, const sinew_options *options)
{
    sinew_asset *a = r->asset;
    int clips = a->clip_count;
    /* a timeline: its clip, duration, flag and two counts */
    int count = get_count(r, "the timeline count", 1, clips, 4 + 4 + 1 + 4 + 4);
    if (r->bad) return;
    const sinew_timeline **list = sinew__asset_alloc(a, (size_t)clips, sizeof *list);
    if (!list) {
        refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
        return;
    }
    a->timelines = list; /* sinew_asset_free frees what it holds */
    const char *outer = r->what;
    char where[400];
    int last = -1;
    for (int t = 0; t < count && !r->bad; ++t) {
        int32_t clip = get_i32(r);
        if (r->bad) break;
        if (clip <= last || clip >= clips) {
            refuse(r, SINEW_ERROR_PARSE, "timeline %d is of clip %d: not after clip %d, or not below the %d clips",
                   t, (int)clip, last, clips);
            break;
        }
        last = clip;
        snprintf(where, sizeof where, "%.300s: clip %d's timeline", outer, (int)clip);
        r->what = where;
        reader first = *r;
        sinew_timeline_desc d = {0};
        bool compressed = false;
        tl_need need = {0};
        timeline_body(&first, &d, &compressed, &need, NULL);
        if (first.bad) {
            r->bad = true;
            break;
        }
        sinew__layout l = {0, false};
        size_t o_tracks = sinew__layout_add(&l, need.tracks, sizeof(sinew_user_track), 8);
        size_t o_grids = sinew__layout_add(&l, need.tracks * 4, sizeof(sinew__timeline_grid), 4);
        size_t o_events = sinew__layout_add(&l, need.events, sizeof(sinew_event), 8);
        size_t o_floats = sinew__layout_add(&l, need.floats, sizeof(float), 4);
        size_t o_steps = sinew__layout_add(&l, need.keys, 1, 1);
        size_t o_names = sinew__layout_add(&l, need.names + 1, 1, 1);
        unsigned char *block = l.overflow ? NULL : sinew__alloc(&r->scratch, l.total);
        if (!block) {
            refuse(r, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        tl_fill o = {(sinew_user_track *)(block + o_tracks), (sinew__timeline_grid *)(block + o_grids),
                     (float *)(block + o_floats), block + o_steps, (sinew_event *)(block + o_events),
                     (char *)(block + o_names)};
        tl_need again = {0};
        timeline_body(r, &d, &compressed, &again, &o);
        d.tracks = (sinew_user_track *)(block + o_tracks);
        d.events = (sinew_event *)(block + o_events);
        sinew_error e;
        sinew_timeline *made = r->bad ? NULL
                                      : sinew__timeline_make(&d, compressed ? (sinew__timeline_grid *)(block + o_grids)
                                                                            : NULL, options, &e);
        sinew__free(&r->scratch, block);
        if (!made) {
            if (!r->bad) refused_by(r, &e);
            break;
        }
        list[clip] = made;
    }
    r->what = outer;
    if (!r->bad && r->left) refuse(r, SINEW_ERROR_PARSE, "%zu bytes follow the timelines", r->left);
}

sinew_result sinew__decode_timelines(const unsigned char *p, size_t n, sinew__codec codec, const char *where,
                                     const sinew_options *options, sinew_asset *asset, sinew_error *err)
{
    reader r = {p, n, false, err, where, sinew__allocator(options), asset, p, codec};
    if (asset->timelines) refuse(&r, SINEW_ERROR_PARSE, "a second timelines section");
    else read_timelines(&r, options);
    return r.bad ? (err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE) : SINEW_OK;
}

/* ---- the memory a decode takes ------------------------------------------------- */

/* Payloads are walked for their counts without allocating; a payload the
 * walk cannot read is refused by its decoder, which reads it the same way,
 * so its bound matters not (the section's size stands for it). */
static reader walker(const unsigned char *p, size_t n, sinew__codec codec, sinew_error *quiet)
{
    return (reader){p, n, false, quiet, "", {0}, NULL, p, codec};
}

static void skip_string(reader *r) { skip(r, get_u32(r)); }

/* A clip payload's plan and track lists (its keys' copy aside) on a
 * skeleton whose schedule has `length` entries: per timeline track its
 * frames (an image at most twice its floats, or four floats a track,
 * rounded to eight a frame: 16 floats a key at most) and its entries; or,
 * where the tracks fill a third of the schedule's floats (plan.c's
 * blocks_fit), the block layout, at most the longest track's keys of every
 * block of the schedule, and per block its tables (constants, masks, the
 * pose under it: 725 bytes) and its pose parts (at most eight of 72
 * bytes). */
static size_t clip_walk_peak(reader *r, size_t length)
{
    skip_string(r);
    skip(r, 4 + 1);
    int32_t n = get_i32(r);
    size_t line_keys = 0, line_tracks = 0, most = 0, filled = 0, blocks = length / 8 + 1;
    for (int32_t i = 0; i < n && !r->bad; ++i) {
        get_i32(r);
        int32_t target = get_i32(r), interp = get_i32(r), keys = get_i32(r), width = get_i32(r);
        if (keys < 1 || target < 0 || target > SINEW_TARGET_WEIGHTS || width < 0 || width > SINEW_MAX_MORPH_TARGETS)
            break;
        size_t per = (size_t)(target == SINEW_TARGET_WEIGHTS ? width : target == SINEW_TARGET_ROTATION ? 4 : 3) *
                     (interp == SINEW_INTERP_CUBICSPLINE ? 3 : 1);
        /* keys the payload does not hold end the walk (and the decode) */
        if ((size_t)keys > r->left / 4 || per > r->left / 4 / (size_t)keys) break;
        if (target != SINEW_TARGET_WEIGHTS) filled += target == SINEW_TARGET_ROTATION ? 4 : 3;
        if (interp == SINEW_INTERP_LINEAR && target != SINEW_TARGET_WEIGHTS) {
            line_keys += (size_t)keys, ++line_tracks;
            if ((size_t)keys > most) most = (size_t)keys;
        }
        align_to(r, SINEW__ARRAY_ALIGN);
        skip(r, 4 * (size_t)keys);
        align_to(r, SINEW__ARRAY_ALIGN);
        skip(r, 4 * per * (size_t)keys);
    }
    size_t timelines = 64 * line_keys + 256 * line_tracks;
    size_t layout = most > 1 && 3 * filled >= 10 * length ? most * blocks * 320 + blocks * 1344 : 0;
    return (timelines > layout ? timelines : layout) + 64 * blocks + 64 * (n > 0 ? (size_t)n : 0);
}

/* The timelines section's timelines as made and the scratch each is read
 * into (counted for all, though one lives at a time), from their declared
 * counts: the walk is the decoder's first reading. */
static size_t timelines_walk_peak(reader *r)
{
    int32_t count = get_i32(r);
    size_t sum = 0;
    for (int32_t t = 0; t < count && !r->bad; ++t) {
        get_i32(r);
        sinew_timeline_desc d = {0};
        bool compressed = false;
        tl_need need = {0};
        timeline_body(r, &d, &compressed, &need, NULL);
        /* a timeline's struct and its arrays' padding; per track its
         * struct, grids and offset, twice; per event its struct, twice,
         * and its loop order and times; its keys, steps and names twice */
        sum += 512 + need.tracks * (2 * sizeof(sinew_user_track) + 8 * sizeof(sinew__timeline_grid) + 4) +
               need.events * (2 * sizeof(sinew_event) + 16) + 2 * (4 * need.floats + need.keys + need.names);
    }
    /* a section the walk cannot read is refused where the walk stopped */
    return sum + r->left;
}

size_t sinew__decode_peak(int what, const unsigned char *p, size_t n, const unsigned char *blocks, size_t blocks_n,
                          sinew__codec codec, const sinew_skeleton *sk)
{
    sinew_error quiet;
    reader r = walker(p, n, codec, &quiet);
    size_t length = sk ? (size_t)sinew__skeleton_of(sk)->schedule_length : sinew__schedule_capacity(SINEW_MAX_JOINTS);
    size_t copied = codec.view ? 0 : n, plan_blocks = length / 8 + 1;
    size_t small = 65536; /* the objects' own structs and small tables */
    switch (what) {
    case SINEW__PAYLOAD_SKELETON: return 16 * n + small;
    case SINEW__PAYLOAD_CLIP:
        /* the keys into scratch and into the clip, and its plan */
        return 2 * copied + clip_walk_peak(&r, length) + small;
    case SINEW__PAYLOAD_PACKED_CLIP: {
        /* the plan: 8 lanes of 16-bit keys a vector that varies, at most
         * one for each float stored per key and ten for each block of the
         * schedule; its tables and pose parts and the exact layout's of two
         * keys per block (under 3.3 KB a block); each track's shape in
         * scratch; the times copied; then the
         * weights tracks as a clip's */
        int32_t keys = get_i32(&r);
        if (r.bad || keys < 1 || (size_t)keys > r.left / 4) return 16 * n + plan_blocks * 4096 + small;
        align_to(&r, SINEW__ARRAY_ALIGN);
        skip(&r, 4 * (size_t)keys);
        int32_t tracks = get_i32(&r);
        size_t varying = 0;
        for (int32_t i = 0; i < tracks && !r.bad; ++i) {
            int32_t target = (skip(&r, 4), get_i32(&r));
            for (int c = 0; c < (target == SINEW_TARGET_ROTATION ? 4 : 3) && !r.bad; ++c) {
                unsigned char stored = 0;
                take(&r, &stored, 1);
                if (stored) ++varying;
                skip(&r, stored ? 8 + 2 * (size_t)keys : 4);
            }
        }
        if (r.bad) return 16 * n + plan_blocks * 4096 + small;
        size_t vectors = varying < 10 * plan_blocks ? varying : 10 * plan_blocks;
        size_t rest = r.left, plan = (size_t)keys * 16 * vectors + 8 * (size_t)keys;
        return plan + plan_blocks * 4096 + 96 * (size_t)tracks + (codec.view ? 0 : 4 * (size_t)keys) +
               2 * (codec.view ? 0 : rest) + clip_walk_peak(&r, length) + small;
    }
    case SINEW__PAYLOAD_SPRINGS:
        /* pools of at most the section's ints and joints, the chains'
         * structs, the colliders' and groups' (each at most four times the
         * bytes it is read from), and the check's ranges and rest-pose
         * matrices per joint of the skeleton */
        return 10 * n + (sk ? 80 * (size_t)sk->joint_count : 0) + small;
    case SINEW__PAYLOAD_TIMELINES: return timelines_walk_peak(&r) + small;
    case SINEW__PAYLOAD_COMPRESSED_CLIP:
        /* the block copied (a view reads it where it lies), the weights
         * tracks as a clip's */
        return copied + 2 * copied + small;
    default: break;
    }
    /* a mesh: its arrays copied (the skin's too), and the skin's SIMD
     * blocks: copied where stored, else built, a block of eight vertices
     * acted on by at most min(64, 8 influences, skin joints) joints taking
     * 12 + 34 bytes a joint */
    size_t peak = copied + (codec.view ? 0 : blocks_n) + small;
    skip_string(&r);
    int32_t v = get_i32(&r);
    uint32_t flags = get_u32(&r);
    if (r.bad || v < 0 || !(flags & 8)) return peak;
    size_t nv = (size_t)v;
    for (size_t s = 0, each[3] = {3, 3, 4}; s < 3 && !r.bad; ++s) {
        if (s == 1 && !(flags & 1)) continue;
        if (s == 2 && !(flags & 2)) continue;
        if (nv > r.left / 4 / each[s]) return peak;
        align_to(&r, SINEW__STREAM_ALIGN);
        skip(&r, 4 * each[s] * nv);
    }
    int32_t sets = get_i32(&r);
    for (int32_t t = 0; t < sets && t <= 64 && !r.bad; ++t) {
        if (nv > r.left / 8) return peak;
        align_to(&r, SINEW__STREAM_ALIGN);
        skip(&r, 8 * nv);
    }
    if (flags & 4) {
        if (nv > r.left / 16) return peak;
        align_to(&r, SINEW__STREAM_ALIGN);
        skip(&r, 16 * nv);
    }
    int32_t indices = get_i32(&r);
    if (indices < 0 || (size_t)indices > r.left / 4) return peak;
    align_to(&r, SINEW__ARRAY_ALIGN);
    skip(&r, 4 * (size_t)indices);
    skip(&r, 16);
    int32_t skin_joints = get_i32(&r);
    if (r.bad || skin_joints < 1 || skin_joints > SINEW_MAX_JOINTS || (size_t)skin_joints > r.left / 68) return peak;
    skip(&r, 4 * (size_t)skin_joints);
    align_to(&r, SINEW__ARRAY_ALIGN);
    skip(&r, 64 * (size_t)skin_joints);
    int32_t influences = get_i32(&r);
    if (r.bad || influences < 1 || influences > SINEW_MAX_INFLUENCES) return peak;
    size_t per_block = 8 * (size_t)influences;
    if (per_block > SINEW__BLOCK_MAX_JOINTS) per_block = SINEW__BLOCK_MAX_JOINTS;
    if (per_block > (size_t)skin_joints) per_block = (size_t)skin_joints;
    /* the blocks' inverse bind lanes, 128 bytes a skin joint, and the
     * blocks themselves unless stored */
    peak += 128 * (size_t)skin_joints;
    if (!blocks) peak += (nv + 7) / 8 * (12 + 34 * per_block);
    return peak;
}
