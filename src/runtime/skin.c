/* Skins: creation (validation, normalization), the palette, job checks. */
#include "skin_internal.h"

#include <float.h>

static const char *const weight_type_names[] = {"float", "unorm8", "unorm16"};

static sinew_result check_desc(const sinew_skeleton *sk, const sinew_skin_desc *d, sinew_error *err)
{
    if (!sk || !d) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: skeleton and description are required");
    if (d->joint_count < 1 || d->joint_count > SINEW_MAX_JOINTS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: joint_count %d is outside 1..%d", d->joint_count,
                           SINEW_MAX_JOINTS);
    if (!d->joints && !d->joint_names)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: neither joints nor joint_names is given");
    if (d->vertex_count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: vertex_count %d is negative", d->vertex_count);
    if (d->influence_count < 1 || d->influence_count > SINEW_MAX_INFLUENCES)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: influence_count %d is outside 1..%d",
                           d->influence_count, SINEW_MAX_INFLUENCES);
    if ((unsigned)d->index_type > SINEW_INDEX_U16 || (unsigned)d->weight_type > SINEW_WEIGHT_UNORM16)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: unknown index or weight type");
    if (d->index_type == SINEW_INDEX_U8 && d->joint_count > 256)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: u8 indices cannot address %d joints",
                           d->joint_count);
    if (d->index_type == SINEW_INDEX_U16 && d->joint_count > 65536)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: u16 indices cannot address %d joints",
                           d->joint_count);
    bool no_weights = d->influence_count == 1 && d->last_weight_implied;
    if (d->vertex_count > 0 && (!d->indices || (!d->weights && !no_weights)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin: indices and weights are required for %d vertices",
                           d->vertex_count);
    if (d->inverse_bind) {
        for (int j = 0; j < d->joint_count; ++j)
            if (!sinew__finite_n(d->inverse_bind[j].m, 16))
                return sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                                   "skin joint %d: inverse bind matrix has a NaN or infinite value", j);
    }
    return SINEW_OK;
}

/* Rescales unorm weights to sum exactly to `full`: round each, then give the
 * rounding remainder to the largest. */
static void normalize_unorm(uint32_t *w, int n, uint32_t sum, uint32_t full)
{
    uint32_t total = 0;
    int largest = 0;
    for (int i = 0; i < n; ++i) {
        w[i] = (uint32_t)(((uint64_t)w[i] * full + sum / 2) / sum);
        total += w[i];
        if (w[i] > w[largest]) largest = i;
    }
    w[largest] = w[largest] + full - total; /* |full - total| <= n / 2 */
}

/* Validates and normalizes the copied influences in place: the stored
 * weights, so that with an implied last weight it is the one that gives. */
static sinew_result check_influences(sinew_skin *s, sinew_skin_report *rep, sinew_error *err)
{
    int n = s->influence_count, k = sinew__skin_stored_weights(s);
    for (int v = 0; v < s->vertex_count; ++v) {
        size_t base = (size_t)v * (size_t)n, wbase = (size_t)v * (size_t)k;
        uint32_t iw[SINEW_MAX_INFLUENCES];
        float fw[SINEW_MAX_INFLUENCES];
        int idx[SINEW_MAX_INFLUENCES];
        sinew__skin_fetch(s, v, idx, fw);
        double sum = 0.0;
        uint32_t isum = 0; /* of the stored unorm weights */
        for (int i = 0; i < n; ++i) {
            float w = fw[i];
            if (i >= k) {
                /* implied: never negative, and not stored */
            } else if (s->weight_type == SINEW_WEIGHT_F32) {
                if (!isfinite(w))
                    return sinew__fail(err, SINEW_ERROR_BAD_WEIGHT, "vertex %d: influence %d weight is %s", v, i,
                                       isnan(w) ? "NaN" : "infinite");
                if (w < 0.0f)
                    return sinew__fail(err, SINEW_ERROR_BAD_WEIGHT, "vertex %d: influence %d weight %g is negative",
                                       v, i, (double)w);
            } else {
                iw[i] = s->weight_type == SINEW_WEIGHT_UNORM8 ? ((const uint8_t *)s->weights)[wbase + i]
                                                              : ((const uint16_t *)s->weights)[wbase + i];
                isum += iw[i];
            }
            if (idx[i] >= s->joint_count) {
                if (w > 0.0f)
                    return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                                       "vertex %d: influence %d uses skin joint %d, the skin has %d joints", v, i,
                                       idx[i], s->joint_count);
                /* Zero weight: harmless, but later passes may read the palette
                 * at this index, so it must be in range. */
                if (s->index_type == SINEW_INDEX_U8)
                    ((uint8_t *)s->indices)[base + i] = 0;
                else
                    ((uint16_t *)s->indices)[base + i] = 0;
                rep->cleared_indices++;
            }
            sum += w;
        }
        if (sum == 0.0)
            return sinew__fail(err, SINEW_ERROR_ZERO_WEIGHT, "vertex %d: all %d weights are 0", v, n);

        bool off;
        if (s->weight_type == SINEW_WEIGHT_F32) {
            off = fabs(sum - 1.0) > 1e-5;
            if (off) { /* an implied weight is 0 here: the stored ones make the sum */
                float *w = (float *)s->weights + wbase;
                for (int i = 0; i < k; ++i) w[i] = (float)(w[i] / sum);
            }
        } else {
            uint32_t full = s->weight_type == SINEW_WEIGHT_UNORM8 ? 255u : 65535u;
            off = k < n ? isum > full : isum != full;
            if (off) {
                normalize_unorm(iw, k, isum, full);
                for (int i = 0; i < k; ++i) {
                    if (s->weight_type == SINEW_WEIGHT_UNORM8)
                        ((uint8_t *)s->weights)[wbase + i] = (uint8_t)iw[i];
                    else
                        ((uint16_t *)s->weights)[wbase + i] = (uint16_t)iw[i];
                }
            }
        }
        if (off) {
            if (rep->worst_vertex < 0 || fabs(sum - 1.0) > fabs((double)rep->worst_sum - 1.0)) {
                rep->worst_vertex = v;
                rep->worst_sum = (float)sum;
            }
            rep->normalized_vertices++;
        }
    }
    return SINEW_OK;
}

/* The distinct joints of block b's nonzero influences, in order of first
 * use, with each one's weight row and each vertex's pivot row (see
 * sinew__block_group) when `weights` is not NULL. */
static int block_joints(const sinew_skin *s, int b, uint16_t *joints, float *weights, uint8_t *pivot)
{
    int n = 0, first = b * SINEW__BLOCK;
    int count = s->vertex_count - first < SINEW__BLOCK ? s->vertex_count - first : SINEW__BLOCK;
    if (pivot) memset(pivot, 0, SINEW__BLOCK);
    for (int i = 0; i < count; ++i) {
        int idx[SINEW_MAX_INFLUENCES];
        float w[SINEW_MAX_INFLUENCES];
        int k = sinew__skin_fetch(s, first + i, idx, w);
        bool first_weighted = true;
        for (int j = 0; j < k; ++j) {
            if (w[j] == 0.0f) continue;
            int at = 0;
            while (at < n && joints[at] != idx[j]) ++at;
            if (at == n) {
                joints[n++] = (uint16_t)idx[j];
                if (weights) memset(weights + at * SINEW__BLOCK, 0, SINEW__BLOCK * sizeof(float));
            }
            if (weights) weights[at * SINEW__BLOCK + i] += w[j];
            if (pivot && first_weighted) pivot[i] = (uint8_t)at;
            first_weighted = false;
        }
    }
    return n;
}

/* The group of a block of n joints with weight rows `rows`: n, or
 * SINEW__UNIT_GROUP for one joint weighing exactly 1 in every lane. */
static int block_group(int n, const float *rows)
{
    if (n != 1) return n;
    for (int i = 0; i < SINEW__BLOCK; ++i)
        if (rows[i] != 1.0f) return n;
    return SINEW__UNIT_GROUP;
}

/* Regroups the (validated) influences by block for the SIMD kernels. */
static sinew__skin_blocks *build_blocks(const sinew_skin *s, const sinew_allocator *alloc)
{
    int count = (s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    int per_group[SINEW__BLOCK_MAX_JOINTS + 1] = {0};
    uint16_t scratch[SINEW__BLOCK_MAX_JOINTS];
    float rows[SINEW__BLOCK_MAX_JOINTS * SINEW__BLOCK];
    for (int b = 0; b < count; ++b) per_group[block_group(block_joints(s, b, scratch, rows, NULL), rows)]++;
    sinew__layout l = {sizeof(sinew__skin_blocks), false};
    size_t off[SINEW__BLOCK_MAX_JOINTS + 1][4];
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        size_t c = (size_t)per_group[k], n = (size_t)sinew__group_joints(k);
        off[k][0] = sinew__layout_add(&l, c, sizeof(uint32_t), 8);
        off[k][1] = sinew__layout_add(&l, c * n, sizeof(uint16_t), 8);
        off[k][2] = sinew__layout_add(&l, c * n * SINEW__BLOCK, sizeof(float), 32);
        off[k][3] = sinew__layout_add(&l, c * SINEW__BLOCK, sizeof(uint8_t), 8);
    }
    size_t off_lanes = sinew__layout_add(&l, (size_t)s->joint_count * 32, sizeof(float), 32);
    /* the weight rows are loaded as aligned vectors */
    unsigned char *base = l.overflow ? NULL : sinew__alloc_aligned(alloc, l.total);
    if (!base) return NULL;
    sinew__skin_blocks *bl = (sinew__skin_blocks *)base;
    memset(bl, 0, sizeof *bl);
    for (int b = 0; b < count; ++b) {
        uint8_t pivot[SINEW__BLOCK];
        int n = block_joints(s, b, scratch, rows, pivot), k = block_group(n, rows);
        sinew__block_group *g = &bl->group[k];
        size_t at = (size_t)g->count * (size_t)n;
        memcpy((uint8_t *)(base + off[k][3]) + (size_t)g->count * SINEW__BLOCK, pivot, SINEW__BLOCK);
        memcpy((uint16_t *)(base + off[k][1]) + at, scratch, sizeof(uint16_t) * (size_t)n);
        memcpy((float *)(base + off[k][2]) + at * SINEW__BLOCK, rows, sizeof(float) * (size_t)n * SINEW__BLOCK);
        ((uint32_t *)(base + off[k][0]))[g->count++] = (uint32_t)b;
    }
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        bl->group[k].block = (const uint32_t *)(base + off[k][0]);
        bl->group[k].joints = (const uint16_t *)(base + off[k][1]);
        bl->group[k].weights = (const float *)(base + off[k][2]);
        bl->group[k].pivot = (const uint8_t *)(base + off[k][3]);
    }
    float *lanes = (float *)(base + off_lanes);
    for (int j = 0; j < s->joint_count; ++j)
        for (int i = 0; i < 4; ++i)
            for (int lane = 0; lane < 8; ++lane) lanes[32 * j + 8 * i + lane] = s->inverse_bind[j].m[4 * (lane / 4) + i];
    bl->inverse_bind_lanes = lanes;
    for (int j = 0; j < s->joint_count; ++j)
        if (s->joints[j] >= bl->joint_end) bl->joint_end = s->joints[j] + 1;
    return bl;
}

sinew_skin *sinew_skin_create(const sinew_skeleton *sk, const sinew_skin_desc *d, const sinew_options *options,
                              sinew_skin_report *report, sinew_error *err)
{
    sinew__ok(err);
    sinew_skin_report rep = {0, -1, 1.0f, 0};
    if (report) *report = rep;
    if (check_desc(sk, d, err) != SINEW_OK) return NULL;

    size_t entries = (size_t)d->vertex_count * (size_t)d->influence_count;
    size_t weight_entries =
        (size_t)d->vertex_count * (size_t)sinew__stored_weights(d->influence_count, d->last_weight_implied);
    size_t index_size = sinew__index_bytes(d->index_type), weight_size = sinew__weight_bytes(d->weight_type);
    sinew__layout l = {sizeof(sinew_skin), false};
    size_t off_joints = sinew__layout_add(&l, (size_t)d->joint_count, sizeof(int16_t), 8);
    size_t off_ibm = sinew__layout_add(&l, (size_t)d->joint_count, sizeof(sinew_mat4), 16);
    size_t off_idx = sinew__layout_add(&l, entries, index_size, 8);
    size_t off_w = sinew__layout_add(&l, weight_entries, weight_size, 8);
    sinew_allocator alloc = sinew__allocator(options);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total);
    if (!block) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "skin: out of memory for %d vertices", d->vertex_count);
        return NULL;
    }
    sinew_skin *s = (sinew_skin *)block;
    int16_t *joints = (int16_t *)(block + off_joints);
    sinew_mat4 *ibm = (sinew_mat4 *)(block + off_ibm);
    for (int j = 0; j < d->joint_count; ++j) {
        int k;
        if (d->joints) {
            k = d->joints[j];
            if (k < 0 || k >= sk->joint_count) {
                sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                            "skin joint %d: skeleton joint %d is out of range (%d joints)", j, k, sk->joint_count);
                goto fail;
            }
        } else {
            const char *name = d->joint_names[j] ? d->joint_names[j] : "";
            k = sinew_skeleton_find_joint(sk, name);
            if (k < 0) {
                sinew__fail(err, SINEW_ERROR_UNKNOWN_JOINT, "skin joint %d: no joint named \"%s\" in the skeleton", j,
                            name);
                goto fail;
            }
        }
        joints[j] = (int16_t)k;
        ibm[j] = d->inverse_bind ? d->inverse_bind[j] : sinew_mat4_identity();
    }
    if (entries) memcpy(block + off_idx, d->indices, entries * index_size);
    if (weight_entries) memcpy(block + off_w, d->weights, weight_entries * weight_size);
    s->joint_count = d->joint_count;
    s->joints = joints;
    s->inverse_bind = ibm;
    s->vertex_count = d->vertex_count;
    s->influence_count = d->influence_count;
    s->index_type = d->index_type;
    s->indices = block + off_idx;
    s->weight_type = d->weight_type;
    s->weights = block + off_w;
    s->last_weight_implied = d->last_weight_implied;
    s->allocator_ = alloc;

    if (check_influences(s, &rep, err) != SINEW_OK) goto fail;
    s->simd_ = sinew__simd_level(options);
    s->blocks_ = build_blocks(s, &alloc);
    if (!s->blocks_) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "skin: out of memory for the SIMD blocks of %d vertices",
                    d->vertex_count);
        goto fail;
    }
    if (rep.normalized_vertices)
        sinew__warn(options,
                    "skin: %d of %d vertices had %s weights not summing to 1 and were normalized (worst: vertex %d, "
                    "sum %g)",
                    rep.normalized_vertices, s->vertex_count, weight_type_names[s->weight_type], rep.worst_vertex,
                    (double)rep.worst_sum);
    if (rep.cleared_indices)
        sinew__warn(options, "skin: %d zero-weight influences had out-of-range joint indices, set to 0",
                    rep.cleared_indices);
    if (report) *report = rep;
    return s;
fail:
    sinew__free(&alloc, block);
    return NULL;
}

void sinew_skin_free(sinew_skin *skin)
{
    if (!skin) return;
    sinew_allocator a = skin->allocator_;
    sinew__free_aligned(&a, skin->blocks_);
    sinew__free(&a, skin);
}

void sinew_skin_vertex_stored(const sinew_skin *skin, int v, void *indices, void *weights)
{
    int n = skin->influence_count, k = sinew__skin_stored_weights(skin);
    size_t isize = sinew__index_bytes(skin->index_type), wsize = sinew__weight_bytes(skin->weight_type);
    memcpy(indices, (const char *)skin->indices + (size_t)v * (size_t)n * isize, (size_t)n * isize);
    memcpy(weights, (const char *)skin->weights + (size_t)v * (size_t)k * wsize, (size_t)k * wsize);
    if (k == n) return;
    double rest = sinew__skin_implied_weight(skin, v);
    char *last = (char *)weights + (size_t)k * wsize;
    if (skin->weight_type == SINEW_WEIGHT_F32) {
        float f = (float)rest;
        memcpy(last, &f, sizeof f);
    } else if (skin->weight_type == SINEW_WEIGHT_UNORM8) {
        *(uint8_t *)last = (uint8_t)rest;
    } else {
        uint16_t u = (uint16_t)rest;
        memcpy(last, &u, sizeof u);
    }
}

/* A vertex's sort key for sinew_skin_vertex_order: its weighted joints in
 * ascending order, UINT16_MAX past the last. */
typedef struct vertex_key {
    uint16_t joints[SINEW_MAX_INFLUENCES];
    int vertex;
} vertex_key;

static int compare_vertex_keys(const void *pa, const void *pb)
{
    const vertex_key *a = pa, *b = pb;
    for (int i = 0; i < SINEW_MAX_INFLUENCES; ++i)
        if (a->joints[i] != b->joints[i]) return a->joints[i] < b->joints[i] ? -1 : 1;
    return (a->vertex > b->vertex) - (a->vertex < b->vertex);
}

static bool same_joints(const vertex_key *a, const vertex_key *b)
{
    return memcmp(a->joints, b->joints, sizeof a->joints) == 0;
}

/* How many of key k's joints are not marked in `in_block`. */
static int joints_added(const vertex_key *k, const uint8_t *in_block)
{
    int added = 0;
    for (int i = 0; i < SINEW_MAX_INFLUENCES && k->joints[i] != UINT16_MAX; ++i) added += !in_block[k->joints[i]];
    return added;
}

/* Marks key k's joints in `in_block` with `mark`. */
static void mark_joints(const vertex_key *k, uint8_t *in_block, uint8_t mark)
{
    for (int i = 0; i < SINEW_MAX_INFLUENCES && k->joints[i] != UINT16_MAX; ++i) in_block[k->joints[i]] = mark;
}

/* How far ahead a block of the rest looks for its vertices: arnaud.fbx
 * welded blends 2.19 joints a block with 64, 2.17 with 512. */
enum { PLACE_WINDOW = 64 };

/* The sorted keys into `order`: each set of joints's vertices in whole
 * blocks of 8 first (blocks that blend that set alone), then the rest,
 * each block begun with the first of them in sorted order and filled from
 * the next PLACE_WINDOW with the vertex that adds the fewest joints to it
 * (the earliest among equals: vertices of one set keep their order, so an
 * ordered skin is placed as it is). `in_block` (a byte per skin joint, all
 * 0) marks the block's joints. */
static void place_vertices(vertex_key *keys, int n, uint8_t *in_block, int *order)
{
    int placed = 0, rest = 0;
    for (int i = 0; i < n;) {
        int end = i + 1;
        while (end < n && same_joints(&keys[end], &keys[i])) ++end;
        int whole = (end - i) / SINEW__BLOCK * SINEW__BLOCK;
        for (int k = i; k < i + whole; ++k) order[placed++] = keys[k].vertex;
        for (int k = i + whole; k < end; ++k) keys[rest++] = keys[k]; /* rest <= k: towards the front */
        i = end;
    }
    int next = 0; /* keys[next .. rest) not placed yet, in sorted order */
    while (next < rest) {
        int first = next;
        for (int lane = 0; lane < SINEW__BLOCK && next < rest; ++lane) {
            int best = next, fewest = SINEW_MAX_INFLUENCES + 1;
            for (int k = next; lane > 0 && k < rest && k < next + PLACE_WINDOW && fewest > 0; ++k) {
                int added = joints_added(&keys[k], in_block);
                if (added < fewest) fewest = added, best = k;
            }
            vertex_key chosen = keys[best];
            memmove(keys + next + 1, keys + next, sizeof *keys * (size_t)(best - next));
            keys[next++] = chosen;
            mark_joints(&chosen, in_block, 1);
            order[placed++] = chosen.vertex;
        }
        for (int k = first; k < next; ++k) mark_joints(&keys[k], in_block, 0);
    }
}

sinew_result sinew_skin_vertex_order(const sinew_skin *skin, int *order, sinew_error *err)
{
    sinew__ok(err);
    if (!skin || !order) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin vertex order: NULL %s",
                                            skin ? "order" : "skin");
    int n = skin->vertex_count;
    vertex_key *keys = sinew__alloc(&skin->allocator_, sizeof *keys * ((size_t)n + 1));
    uint8_t *in_block = sinew__alloc(&skin->allocator_, (size_t)skin->joint_count + 1);
    if (!keys || !in_block) {
        sinew__free(&skin->allocator_, keys), sinew__free(&skin->allocator_, in_block);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "skin vertex order: out of memory for %d vertices", n);
    }
    memset(in_block, 0, (size_t)skin->joint_count + 1);
    for (int v = 0; v < n; ++v) {
        int idx[SINEW_MAX_INFLUENCES], count = 0;
        float w[SINEW_MAX_INFLUENCES];
        vertex_key *k = &keys[v];
        int m = sinew__skin_fetch(skin, v, idx, w);
        for (int i = 0; i < m; ++i) {
            if (w[i] == 0.0f) continue;
            uint16_t j = (uint16_t)idx[i];
            int at = count;
            while (at > 0 && k->joints[at - 1] > j) --at;
            if (at > 0 && k->joints[at - 1] == j) continue; /* listed twice */
            memmove(k->joints + at + 1, k->joints + at, sizeof(uint16_t) * (size_t)(count - at));
            k->joints[at] = j;
            ++count;
        }
        for (int i = count; i < SINEW_MAX_INFLUENCES; ++i) k->joints[i] = UINT16_MAX;
        k->vertex = v;
    }
    qsort(keys, (size_t)n, sizeof *keys, compare_vertex_keys);
    place_vertices(keys, n, in_block, order);
    sinew__free(&skin->allocator_, keys), sinew__free(&skin->allocator_, in_block);
    return SINEW_OK;
}

int sinew_skin_vertex(const sinew_skin *skin, int v, int *joints, float *weights)
{
    int n = sinew__skin_fetch(skin, v, joints, weights);
    int nonzero = 0;
    for (int i = 0; i < n; ++i) nonzero += weights[i] > 0.0f;
    return nonzero;
}

sinew_result sinew_skin_palette(const sinew_skin *skin, const sinew_mat4 *model, int model_count,
                                const sinew_mat4 *left, sinew_mat4 *palette, int palette_count, sinew_error *err)
{
    if (!skin || !model || !palette)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin_palette: skin, model and palette are required");
    if (palette_count < skin->joint_count)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL, "skin_palette: palette holds %d matrices, skin has %d joints",
                           palette_count, skin->joint_count);
    for (int j = 0; skin->blocks_->joint_end > model_count && j < skin->joint_count; ++j)
        if (skin->joints[j] >= model_count)
            return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL,
                               "skin_palette: skin joint %d uses skeleton joint %d, model holds %d", j, skin->joints[j],
                               model_count);
#if defined(SINEW_X86_SIMD)
    if (!left && skin->simd_ >= SINEW_SIMD_AVX2) {
        sinew__skin_palette_avx2(skin, model, palette);
        sinew__ok(err);
        return SINEW_OK;
    }
#endif
    for (int j = 0; j < skin->joint_count; ++j) {
        sinew__mat4_mul(&palette[j], &model[skin->joints[j]], &skin->inverse_bind[j]);
        if (left) sinew__mat4_mul(&palette[j], left, &palette[j]);
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* Whether one matrix's 3x3 part is a rotation times a uniform scale, as
 * sinew_palette_is_conformal() tests it (not where a squared column length
 * is infinite or NaN). */
static bool matrix_is_conformal(const float *m, float tolerance)
{
    sinew_vec3 c[3] = {sinew__v3(m[0], m[1], m[2]), sinew__v3(m[4], m[5], m[6]), sinew__v3(m[8], m[9], m[10])};
    float l2[3] = {sinew__v3_dot(c[0], c[0]), sinew__v3_dot(c[1], c[1]), sinew__v3_dot(c[2], c[2])};
    float big = fmaxf(fmaxf(l2[0], l2[1]), l2[2]);
    float tol = 2.0f * tolerance * big; /* on squared lengths: (1 + e)^2 ~ 1 + 2e */
    return big <= FLT_MAX && fabsf(l2[0] - l2[1]) <= tol && fabsf(l2[0] - l2[2]) <= tol &&
           fabsf(sinew__v3_dot(c[0], c[1])) <= tolerance * big && fabsf(sinew__v3_dot(c[0], c[2])) <= tolerance * big &&
           fabsf(sinew__v3_dot(c[1], c[2])) <= tolerance * big;
}

#if defined(__SSE2__)
/* Four matrices' column c as x, y and z vectors (lane i: matrix i). */
static inline void column_lanes(const sinew_mat4 *m, int c, __m128 xyz[3])
{
    __m128 m0 = _mm_loadu_ps(m[0].m + 4 * c), m1 = _mm_loadu_ps(m[1].m + 4 * c);
    __m128 m2 = _mm_loadu_ps(m[2].m + 4 * c), m3 = _mm_loadu_ps(m[3].m + 4 * c);
    __m128 lo01 = _mm_unpacklo_ps(m0, m1), lo23 = _mm_unpacklo_ps(m2, m3); /* x0 x1 y0 y1, x2 x3 y2 y3 */
    __m128 hi01 = _mm_unpackhi_ps(m0, m1), hi23 = _mm_unpackhi_ps(m2, m3); /* z0 z1 w0 w1, z2 z3 w2 w3 */
    xyz[0] = _mm_movelh_ps(lo01, lo23), xyz[1] = _mm_movehl_ps(lo23, lo01), xyz[2] = _mm_movelh_ps(hi01, hi23);
}

/* a . b in each lane, in the scalar's order: (x x + y y) + z z. */
static inline __m128 dot_lanes(const __m128 a[3], const __m128 b[3])
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])), _mm_mul_ps(a[2], b[2]));
}

/* matrix_is_conformal for four matrices at once, the same operations in
 * each lane (so the same answer: where any length is NaN, the tests on
 * differences fail whichever maximum is taken, fmaxf's or maxps's). */
static bool four_are_conformal(const sinew_mat4 *m, float tolerance)
{
    __m128 c[3][3];
    for (int i = 0; i < 3; ++i) column_lanes(m, i, c[i]);
    __m128 l0 = dot_lanes(c[0], c[0]), l1 = dot_lanes(c[1], c[1]), l2 = dot_lanes(c[2], c[2]);
    __m128 big = _mm_max_ps(_mm_max_ps(l0, l1), l2), abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 tol = _mm_mul_ps(_mm_set1_ps(2.0f * tolerance), big), tol_dot = _mm_mul_ps(_mm_set1_ps(tolerance), big);
    __m128 ok = _mm_and_ps(_mm_cmple_ps(_mm_and_ps(_mm_sub_ps(l0, l1), abs_mask), tol),
                           _mm_cmple_ps(_mm_and_ps(_mm_sub_ps(l0, l2), abs_mask), tol));
    ok = _mm_and_ps(ok, _mm_cmple_ps(big, _mm_set1_ps(FLT_MAX)));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[0], c[1]), abs_mask), tol_dot));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[0], c[2]), abs_mask), tol_dot));
    ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(dot_lanes(c[1], c[2]), abs_mask), tol_dot));
    return _mm_movemask_ps(ok) == 0xf;
}
#endif

bool sinew_palette_is_conformal(const sinew_mat4 *palette, int count, float tolerance)
{
    int j = 0;
#if defined(__SSE2__)
    /* four at a time: 490 -> 100 ns for arnaud.fbx's 53 matrices */
    for (; j + 4 <= count; j += 4)
        if (!four_are_conformal(palette + j, tolerance)) return false;
#endif
    for (; j < count; ++j)
        if (!matrix_is_conformal(palette[j].m, tolerance)) return false;
    return true;
}

/* A stream's stride in bytes: 0 (packed), or at least `elem` and a
 * multiple of 4. `who` starts the message. */
static sinew_result check_stride(const char *who, const char *name, size_t stride, size_t elem, sinew_error *err)
{
    if (stride && stride < elem)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s stride is below %zu bytes", who, name, elem);
    if (stride % sizeof(float))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s stride is not a multiple of 4 bytes", who,
                           name);
    return SINEW_OK;
}

static sinew_result check_stream(const void *in, size_t in_stride, const void *out, size_t out_stride, size_t elem,
                                 const char *name, sinew_error *err)
{
    if (!in && !out) return SINEW_OK;
    if (!in || !out)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: %s has %s but no %s", name,
                           in ? "an input" : "an output", in ? "output" : "input");
    sinew_result r = check_stride("skin job", name, in_stride, elem, err);
    return r != SINEW_OK ? r : check_stride("skin job", name, out_stride, elem, err);
}

/* One stream of `in` (3 floats a vertex, `stride` bytes apart) in the
 * prepared layout, the blocks at their slots. */
static void prepare_stream(const sinew_skin *s, const uint32_t *slot, const float *in, size_t stride, float *out)
{
    stride = stride ? stride : 3 * sizeof(float);
    int blocks = (s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    for (int b = 0; b < blocks; ++b) {
        float *o = out + (size_t)slot[b] * SINEW__PREPARED_FLOATS;
        for (int lane = 0; lane < SINEW__BLOCK; ++lane) {
            int v = b * SINEW__BLOCK + lane;
            const float *p = v < s->vertex_count ? sinew__in(in, stride, v) : NULL;
            for (int c = 0; c < 3; ++c) o[c * SINEW__BLOCK + lane] = p ? p[c] : 0.0f;
        }
    }
}

sinew_skin_inputs *sinew_skin_inputs_create(const sinew_skin *skin, const float *positions, size_t positions_stride,
                                            const float *normals, size_t normals_stride, sinew_error *err)
{
    sinew__ok(err);
    if (!skin || (!positions && !normals)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin inputs: %s", skin ? "no positions and no normals given"
                                                                               : "NULL skin");
        return NULL;
    }
    if (check_stride("skin inputs", "positions", positions_stride, 12, err) != SINEW_OK ||
        check_stride("skin inputs", "normals", normals_stride, 12, err) != SINEW_OK)
        return NULL;
    size_t blocks = ((size_t)skin->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    sinew__layout l = {sizeof(sinew_skin_inputs), false};
    size_t off_slot = sinew__layout_add(&l, blocks, sizeof(uint32_t), 8);
    size_t off_pos = sinew__layout_add(&l, positions ? blocks * SINEW__PREPARED_FLOATS : 0, sizeof(float), 32);
    size_t off_nrm = sinew__layout_add(&l, normals ? blocks * SINEW__PREPARED_FLOATS : 0, sizeof(float), 32);
    unsigned char *base = l.overflow ? NULL : sinew__alloc_aligned(&skin->allocator_, l.total);
    if (!base) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "skin inputs: out of memory for %d vertices", skin->vertex_count);
        return NULL;
    }
    sinew_skin_inputs *in = (sinew_skin_inputs *)base;
    memset(in, 0, sizeof *in);
    in->skin = skin;
    in->allocator = skin->allocator_;
    in->slot = (uint32_t *)(base + off_slot);
    uint32_t next = 0;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        const sinew__block_group *g = &skin->blocks_->group[k];
        in->group_first[k] = next;
        for (int i = 0; i < g->count; ++i) in->slot[g->block[i]] = next++;
    }
    if (positions) prepare_stream(skin, in->slot, positions, positions_stride, in->positions = (float *)(base + off_pos));
    if (normals) prepare_stream(skin, in->slot, normals, normals_stride, in->normals = (float *)(base + off_nrm));
    return in;
}

void sinew_skin_inputs_free(sinew_skin_inputs *inputs)
{
    if (inputs) sinew__free_aligned(&inputs->allocator, inputs);
}

/* Where a job's positions (or normals) come from: with prepared inputs,
 * their copy where the job gives that stream's output (NULL otherwise);
 * without, the job's stream. */
static const float *job_source(const sinew_skin_job *job, bool normals)
{
    const sinew_skin_inputs *in = job->inputs;
    if (!in) return normals ? job->normals : job->positions;
    if (normals) return job->out_normals ? in->normals : NULL;
    return job->out_positions ? in->positions : NULL;
}

sinew_result sinew_skin_job_validate(const sinew_skin_job *job, bool dqs, sinew_error *err)
{
    if (!job || !job->skin) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: job and skin are required");
    const sinew_skin *s = job->skin;
    const sinew_skin_inputs *in = job->inputs;
    if (in && in->skin != s)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: its inputs were prepared for another skin");
    if (in && (job->positions || job->normals))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "skin job: %s given beside prepared inputs (leave them NULL: the inputs hold them)",
                           job->positions ? "positions" : "normals");
    if (dqs ? !job->dq_palette : !job->palette)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: %s is required",
                           dqs ? "dq_palette" : "palette");
    if (job->palette_count < s->joint_count)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL, "skin job: palette_count %d is below the skin's %d joints",
                           job->palette_count, s->joint_count);
    if (job->first_vertex < 0 || job->vertex_count < 0 || job->first_vertex > s->vertex_count ||
        job->vertex_count > s->vertex_count - job->first_vertex)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "skin job: vertices [%d, +%d) are outside the skin's %d vertices", job->first_vertex,
                           job->vertex_count, s->vertex_count);
    if ((unsigned)job->simd > SINEW_SIMD_AVX512)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: unknown simd level %d", (int)job->simd);
    if ((unsigned)job->normal_mode > SINEW_NORMALS_INVERSE_TRANSPOSE)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "skin job: unknown normal_mode %d", (int)job->normal_mode);
    sinew_result r;
    const float *positions = job_source(job, false), *normals = job_source(job, true);
    if ((r = check_stream(positions, job->positions_stride, job->out_positions, job->out_positions_stride, 12,
                          "positions", err)) != SINEW_OK ||
        (r = check_stream(normals, job->normals_stride, job->out_normals, job->out_normals_stride, 12, "normals",
                          err)) != SINEW_OK ||
        (r = check_stream(job->tangents, job->tangents_stride, job->out_tangents, job->out_tangents_stride, 16,
                          "tangents", err)) != SINEW_OK)
        return r;
    sinew__ok(err);
    return SINEW_OK;
}

sinew__job_streams sinew__job_resolve(const sinew_skin_job *job)
{
    sinew__job_streams r;
    r.begin = job->first_vertex;
    r.end = job->vertex_count ? job->first_vertex + job->vertex_count : job->skin->vertex_count;
    r.ps = job->positions_stride ? job->positions_stride : 12;
    r.ns = job->normals_stride ? job->normals_stride : 12;
    r.ts = job->tangents_stride ? job->tangents_stride : 16;
    r.ops = job->out_positions_stride ? job->out_positions_stride : 12;
    r.ons = job->out_normals_stride ? job->out_normals_stride : 12;
    r.ots = job->out_tangents_stride ? job->out_tangents_stride : 16;
    const sinew_skin_inputs *in = job->inputs;
    const float *positions = job_source(job, false), *normals = job_source(job, true);
    r.prepared_positions = in ? positions : NULL;
    r.prepared_normals = in ? normals : NULL;
    r.slot = in ? in->slot : NULL;
    r.group_first = in ? in->group_first : NULL;
    r.positions = positions != NULL;
    r.normals = normals != NULL;
    return r;
}
