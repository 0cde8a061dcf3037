/* SPDX-License-Identifier: MIT */
/* Skins: creation (validation, weight normalization, the SIMD blocks) and
 * reading a vertex's influences. The palette, jobs and kernels have files
 * of their own. */
#include "skin/skin_internal.h"

#include <float.h>
#include <math.h> /* fpclassify, copysignf, fabsf, fmaxf */

static const char *const weight_type_names[] = {"float", "unorm8", "unorm16"};

static sinew_result check_desc(const sinew_skeleton *sk, const sinew_skin_desc *d, sinew_error *err)
{
    if (!sk || !d)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_skin_create: skeleton and description are required");
    if (d->joint_count < 1 || d->joint_count > SINEW_MAX_JOINTS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: joint_count %d is outside 1..%d",
                           d->joint_count, SINEW_MAX_JOINTS);
    if (!d->joints && !d->joint_names)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_skin_create: neither joints nor joint_names is given");
    if (d->vertex_count < 0)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: vertex_count %d is negative",
                           d->vertex_count);
    if (d->influence_count < 1 || d->influence_count > SINEW_MAX_INFLUENCES)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: influence_count %d is outside 1..%d",
                           d->influence_count, SINEW_MAX_INFLUENCES);
    if ((unsigned)d->index_type > SINEW_INDEX_U16 || (unsigned)d->weight_type > SINEW_WEIGHT_UNORM16)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: unknown index or weight type");
    if (d->index_type == SINEW_INDEX_U8 && d->joint_count > 256)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: u8 indices cannot address %d joints",
                           d->joint_count);
    if (d->index_type == SINEW_INDEX_U16 && d->joint_count > 65536)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_create: u16 indices cannot address %d joints",
                           d->joint_count);
    bool no_weights = d->influence_count == 1 && d->last_weight_implied;
    if (d->vertex_count > 0 && (!d->indices || (!d->weights && !no_weights)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_skin_create: indices and weights are required for %d vertices", d->vertex_count);
    if (d->inverse_bind) {
        for (int j = 0; j < d->joint_count; ++j)
            if (!sinew__finite_n(d->inverse_bind[j].m, 16))
                return sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                                   "sinew_skin_create: skin joint %d: inverse bind matrix has a NaN or infinite value",
                                   j);
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

/* Whether the influences need neither a repair nor a sentence: every
 * index below the joint count, every weight stored, finite and not
 * negative, each vertex's weights summing to 1 within the exact pass's
 * tolerance (1e-5 there; summed in float here, whose error over 8 weights
 * stays far below the 1e-6 margin). Simple loops over the arrays that the
 * compiler vectorizes; where this says no, the exact pass decides. */
SINEW__VECTOR_LOOP static bool plainly_valid(const sinew_skin *s)
{
    size_t n = (size_t)s->influence_count, count = (size_t)s->vertex_count * n;
    if ((size_t)sinew__skin_stored_weights(s) != n) return false; /* an implied weight: the exact pass */
    unsigned largest = 0;
    if (s->index_type == SINEW_INDEX_U8) {
        const uint8_t *p = s->indices;
        for (size_t i = 0; i < count; ++i) largest = p[i] > largest ? p[i] : largest;
    } else {
        const uint16_t *p = s->indices;
        for (size_t i = 0; i < count; ++i) largest = p[i] > largest ? p[i] : largest;
    }
    if (largest >= (unsigned)s->joint_count) return false;
    if (s->weight_type == SINEW_WEIGHT_F32) {
        const float *w = s->weights;
        uint32_t bad = 0;
        for (size_t i = 0; i < count; ++i) {
            uint32_t bits;
            memcpy(&bits, &w[i], sizeof bits);
            /* a NaN or an infinity, or a negative number other than -0 */
            bad |= ((bits & 0x7f800000u) == 0x7f800000u) | (bits > 0x80000000u);
        }
        if (bad) return false;
        /* eight influences (the most, what importers give): the sums in a
         * tree, so that vertices overlap; any order's error fits the margin */
        uint32_t off = 0;
        if (n == 8) {
            for (size_t v = 0; v < count; v += 8) {
                const float *x = w + v;
                float sum = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
                off |= !(fabsf(sum - 1.0f) <= 9e-6f);
            }
        } else {
            for (size_t v = 0; v < count; v += n) {
                float sum = 0.0f;
                for (size_t i = 0; i < n; ++i) sum += w[v + i];
                off |= !(fabsf(sum - 1.0f) <= 9e-6f);
            }
        }
        if (off) return false;
    } else {
        uint32_t full = s->weight_type == SINEW_WEIGHT_UNORM8 ? 255u : 65535u;
        for (size_t v = 0; v < count; v += n) {
            uint32_t sum = 0;
            for (size_t i = 0; i < n; ++i)
                sum += s->weight_type == SINEW_WEIGHT_UNORM8 ? ((const uint8_t *)s->weights)[v + i]
                                                             : ((const uint16_t *)s->weights)[v + i];
            if (sum != full) return false;
        }
    }
    return true;
}

/* Validates and normalizes the copied influences in place: the stored
 * weights, so that with an implied last weight it is the one that gives. */
static sinew_result check_influences(sinew_skin *s, bool repair, sinew_skin_report *rep, sinew_error *err)
{
    if (plainly_valid(s)) return SINEW_OK;
    int n = s->influence_count, k = sinew__skin_stored_weights(s);
    for (int v = 0; v < s->vertex_count; ++v) {
        size_t base = (size_t)v * (size_t)n, wbase = (size_t)v * (size_t)k;
        uint32_t iw[SINEW_MAX_INFLUENCES];
        float fw[SINEW_MAX_INFLUENCES] = {0}; /* all set by the fetch; zeroed for the compiler */
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
                    return sinew__fail(err, SINEW_ERROR_BAD_WEIGHT,
                                       "sinew_skin_create: vertex %d: influence %d weight is %s", v, i,
                                       isnan(w) ? "NaN" : "infinite");
                if (w < 0.0f)
                    return sinew__fail(err, SINEW_ERROR_BAD_WEIGHT,
                                       "sinew_skin_create: vertex %d: influence %d weight %g is negative", v, i,
                                       (double)w);
            } else {
                iw[i] = s->weight_type == SINEW_WEIGHT_UNORM8 ? ((const uint8_t *)s->weights)[wbase + i]
                                                              : ((const uint16_t *)s->weights)[wbase + i];
                isum += iw[i];
            }
            if (idx[i] >= s->joint_count) {
                if (w > 0.0f || !repair)
                    return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                                       "sinew_skin_create: vertex %d: influence %d uses skin joint %d, "
                                       "the skin has %d joints", v, i, idx[i], s->joint_count);
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
            return sinew__fail(err, SINEW_ERROR_ZERO_WEIGHT, "sinew_skin_create: vertex %d: all %d weights are 0", v,
                               n);

        bool off = s->weight_type == SINEW_WEIGHT_F32 ? fabs(sum - 1.0) > 1e-5
                   : k < n ? isum > (s->weight_type == SINEW_WEIGHT_UNORM8 ? 255u : 65535u)
                           : isum != (s->weight_type == SINEW_WEIGHT_UNORM8 ? 255u : 65535u);
        if (off && !repair)
            return sinew__fail(err, SINEW_ERROR_BAD_WEIGHT,
                               "sinew_skin_create: vertex %d: its weights sum to %g, not 1, and stay unrepaired "
                               "where they lie", v, sum);
        if (s->weight_type == SINEW_WEIGHT_F32) {
            if (off) { /* an implied weight is 0 here: the stored ones make the sum */
                float *w = (float *)s->weights + wbase;
                for (int i = 0; i < k; ++i) w[i] = (float)(w[i] / sum);
            }
        } else {
            uint32_t full = s->weight_type == SINEW_WEIGHT_UNORM8 ? 255u : 65535u;
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

/* x, or a zero of its sign where x is subnormal or below 2^-64 of `most`
 * (its matrix's largest element): float noise such as 1e-23 where an
 * exporter meant 0. A product of such an element and a model matrix's
 * element is subnormal as soon as the latter is small, and a subnormal
 * result or operand makes a multiplication take a microcode assist on
 * many x86 cores: hundreds of cycles, where a whole palette matrix takes a
 * few. The terms dropped are below 2^-40 of the rounding of the matrix's
 * largest ones. */
static float significant_or_zero(float x, float most)
{
    return fpclassify(x) == FP_SUBNORMAL || fabsf(x) < most * 0x1p-64f ? copysignf(0.0f, x) : x;
}

/* The blocks' single aligned allocation for `per_group` blocks of each
 * group, its arrays still to fill, the inverse bind lanes and joint_end
 * made. */
static sinew__skin_blocks *blocks_alloc(const sinew_skin *s, const int *per_group, const sinew_allocator *alloc)
{
    sinew__layout l = {sizeof(sinew__skin_blocks), false};
    size_t off[SINEW__BLOCK_MAX_JOINTS + 1][4];
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        size_t c = (size_t)per_group[k], n = (size_t)sinew__group_joints(k);
        off[k][0] = sinew__layout_add(&l, c, sizeof(uint32_t), 8);
        off[k][1] = sinew__layout_add(&l, c * n, sizeof(uint16_t), 8);
        /* the weight rows are loaded as aligned vectors */
        off[k][2] = sinew__layout_add(&l, c * n * SINEW__BLOCK, sizeof(float), 32);
        off[k][3] = sinew__layout_add(&l, c * SINEW__BLOCK, sizeof(uint8_t), 8);
    }
    size_t off_lanes = sinew__layout_add(&l, (size_t)s->joint_count * SINEW__PALETTE_LANE_FLOATS, sizeof(float), 32);
    unsigned char *base = l.overflow ? NULL : sinew__alloc_aligned(alloc, l.total);
    if (!base) return NULL;
    sinew__skin_blocks *bl = (sinew__skin_blocks *)base;
    memset(bl, 0, sizeof *bl);
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        bl->group[k].count = per_group[k];
        bl->group[k].block = (const uint32_t *)(base + off[k][0]);
        bl->group[k].joints = (const uint16_t *)(base + off[k][1]);
        bl->group[k].weights = (const float *)(base + off[k][2]);
        bl->group[k].pivot = (const uint8_t *)(base + off[k][3]);
    }
    float *lanes = (float *)(base + off_lanes);
    bl->inverse_bind_lanes = lanes;
    bl->inverse_bind_affine = true;
    for (int j = 0; j < s->joint_count; ++j) {
        const float *m = s->inverse_bind[j].m;
        float *to = lanes + (size_t)j * SINEW__PALETTE_LANE_FLOATS, most = 0.0f;
        for (int i = 0; i < 16; ++i) most = fmaxf(most, fabsf(m[i]));
        for (int i = 0; i < 4; ++i)
            for (int lane = 0; lane < 8; ++lane) to[8 * i + lane] = significant_or_zero(m[4 * (lane / 4) + i], most);
        for (int i = 8; i < 16; ++i) to[24 + i] = significant_or_zero(m[i], most);
        if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f) bl->inverse_bind_affine = false;
        if (s->joints[j] >= bl->joint_end) bl->joint_end = s->joints[j] + 1;
    }
    return bl;
}

/* A group's arrays, writable while the blocks are made. */
#define GROUP_ARRAY(g, field, type) ((type *)(uintptr_t)(g)->field)

/* Regroups the (validated) influences by block for the SIMD kernels. */
static sinew__skin_blocks *build_blocks(const sinew_skin *s, const sinew_allocator *alloc)
{
    int count = (s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    int per_group[SINEW__BLOCK_MAX_JOINTS + 1] = {0};
    uint16_t scratch[SINEW__BLOCK_MAX_JOINTS];
    float rows[SINEW__BLOCK_MAX_JOINTS * SINEW__BLOCK];
    for (int b = 0; b < count; ++b) per_group[block_group(block_joints(s, b, scratch, rows, NULL), rows)]++;
    sinew__skin_blocks *bl = blocks_alloc(s, per_group, alloc);
    if (!bl) return NULL;
    int filled[SINEW__BLOCK_MAX_JOINTS + 1] = {0};
    for (int b = 0; b < count; ++b) {
        uint8_t pivot[SINEW__BLOCK];
        int n = block_joints(s, b, scratch, rows, pivot), k = block_group(n, rows);
        const sinew__block_group *g = &bl->group[k];
        size_t i = (size_t)filled[k]++;
        memcpy(GROUP_ARRAY(g, pivot, uint8_t) + i * SINEW__BLOCK, pivot, SINEW__BLOCK);
        memcpy(GROUP_ARRAY(g, joints, uint16_t) + i * (size_t)n, scratch, sizeof(uint16_t) * (size_t)n);
        memcpy(GROUP_ARRAY(g, weights, float) + i * (size_t)n * SINEW__BLOCK, rows,
               sizeof(float) * (size_t)n * SINEW__BLOCK);
        GROUP_ARRAY(g, block, uint32_t)[i] = (uint32_t)b;
    }
    return bl;
}

/* Checks blocks given to sinew__skin_create_stored against the skin: what
 * the kernels rely on to stay within their arrays (every block listed
 * once, ascending in its group; joints below the skin's joint count; rows
 * below the block's joint count) and what they read as values (finite
 * weights, a unit group's rows all 1). */
/* Whether group k's joints, weights and pivots are plainly what the
 * kernels need (the block list is checked entry by entry): loops over
 * each array that the compiler vectorizes; where this says no, the entry
 * by entry pass finds the first fault and says it. */
SINEW__VECTOR_LOOP static bool group_plainly_valid(const sinew__block_group *g, int k, int joint_count)
{
    size_t c = (size_t)g->count, n = (size_t)sinew__group_joints(k);
    unsigned largest = 0;
    for (size_t i = 0; i < c * n; ++i) largest = g->joints[i] > largest ? g->joints[i] : largest;
    uint32_t bad = largest >= (unsigned)joint_count;
    for (size_t i = 0; i < c * n * SINEW__BLOCK; ++i) {
        uint32_t bits;
        memcpy(&bits, &g->weights[i], sizeof bits);
        bad |= k == SINEW__UNIT_GROUP ? bits != 0x3f800000u : (bits & 0x7f800000u) == 0x7f800000u;
    }
    unsigned pivot = 0;
    for (size_t i = 0; i < c * SINEW__BLOCK; ++i) pivot = g->pivot[i] > pivot ? g->pivot[i] : pivot;
    return !bad && pivot < n;
}

static sinew_result check_stored(const sinew_skin *s, const sinew__skin_blocks *bl, uint8_t *seen, sinew_error *err)
{
    static const char who[] = "sinew_skin_create: the stored SIMD blocks";
    uint32_t count = (uint32_t)((s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK);
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        const sinew__block_group *g = &bl->group[k];
        int n = sinew__group_joints(k);
        /* the block list entry by entry; the rest too where the fast pass
         * found something, to say what and where */
        bool plain = group_plainly_valid(g, k, s->joint_count);
        for (int i = 0; i < g->count; ++i) {
            uint32_t b = g->block[i];
            if (b >= count || (i > 0 && b <= g->block[i - 1]) || seen[b])
                return sinew__fail(err, SINEW_ERROR_OUT_OF_BOUNDS,
                                   "%s: group %d entry %d: block %u is past the %u blocks, out of order or listed "
                                   "twice", who, k, i, b, count);
            seen[b] = 1;
            if (plain) continue;
            for (int j = 0; j < n; ++j)
                if (g->joints[(size_t)i * (size_t)n + (size_t)j] >= s->joint_count)
                    return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                                       "%s: block %u: joint %u is not one of the skin's %d", who, b,
                                       (unsigned)g->joints[(size_t)i * (size_t)n + (size_t)j], s->joint_count);
            const float *rows = g->weights + (size_t)i * (size_t)n * SINEW__BLOCK;
            for (int x = 0; x < n * SINEW__BLOCK; ++x)
                if (!isfinite(rows[x]) || (k == SINEW__UNIT_GROUP && rows[x] != 1.0f))
                    return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: block %u: weight %d is %g%s", who, b, x,
                                       (double)rows[x], k == SINEW__UNIT_GROUP ? ", not 1 in the unit group" : "");
            for (int v = 0; v < SINEW__BLOCK; ++v)
                if (g->pivot[(size_t)i * SINEW__BLOCK + (size_t)v] >= n)
                    return sinew__fail(err, SINEW_ERROR_OUT_OF_BOUNDS, "%s: block %u: vertex %d's pivot row %d is "
                                       "past its %d joints", who, b, v, g->pivot[(size_t)i * SINEW__BLOCK + (size_t)v],
                                       n);
        }
    }
    return SINEW_OK;
}

/* The blocks copied from `stored` and checked (NULL with `err` filled). */
static sinew__skin_blocks *adopt_blocks(const sinew_skin *s, const sinew__stored_blocks *stored, bool borrow,
                                        const sinew_allocator *alloc, sinew_error *err)
{
    static const char who[] = "sinew_skin_create: the stored SIMD blocks";
    int per_group[SINEW__BLOCK_MAX_JOINTS + 1] = {0};
    int64_t total = 0, count = (s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        if (stored->count[k] < 0 || stored->count[k] > count) {
            sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: group %d holds %d of the skin's %lld blocks", who, k,
                        stored->count[k], (long long)count);
            return NULL;
        }
        per_group[k] = stored->count[k];
        total += per_group[k];
    }
    if (total != count) {
        sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: the groups hold %lld blocks, not the skin's %lld", who,
                    (long long)total, (long long)count);
        return NULL;
    }
    /* the largest group's weight rows, in bytes, fit in a size_t on every host */
    if ((uint64_t)count > SIZE_MAX / (SINEW__BLOCK_MAX_JOINTS * SINEW__BLOCK * sizeof(float))) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: %lld blocks are too many for this host", who,
                    (long long)count);
        return NULL;
    }
    /* borrowed where every group's arrays are aligned as the kernels load them */
    for (int k = 0; borrow && k <= SINEW__BLOCK_MAX_JOINTS; ++k)
        borrow = !per_group[k] || ((uintptr_t)stored->block[k] % 4 == 0 && (uintptr_t)stored->joints[k] % 2 == 0 &&
                                   (uintptr_t)stored->weights[k] % 32 == 0);
    static const int none[SINEW__BLOCK_MAX_JOINTS + 1];
    sinew__skin_blocks *bl = blocks_alloc(s, borrow ? none : per_group, alloc);
    uint8_t *seen = bl ? sinew__alloc(alloc, (size_t)count + 1) : NULL;
    if (!seen) {
        sinew__free_aligned(alloc, bl);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory for %lld blocks", who, (long long)count);
        return NULL;
    }
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        sinew__block_group *g = &bl->group[k];
        if (borrow) {
            if (!per_group[k]) continue; /* an empty group keeps its (empty) arrays */
            g->count = per_group[k];
            g->block = stored->block[k], g->joints = stored->joints[k];
            g->weights = stored->weights[k], g->pivot = stored->pivot[k];
            continue;
        }
        size_t c = (size_t)g->count, n = (size_t)sinew__group_joints(k);
        if (!c) continue;
        memcpy(GROUP_ARRAY(g, block, uint32_t), stored->block[k], c * sizeof(uint32_t));
        memcpy(GROUP_ARRAY(g, joints, uint16_t), stored->joints[k], c * n * sizeof(uint16_t));
        memcpy(GROUP_ARRAY(g, weights, float), stored->weights[k], c * n * SINEW__BLOCK * sizeof(float));
        memcpy(GROUP_ARRAY(g, pivot, uint8_t), stored->pivot[k], c * SINEW__BLOCK);
    }
    memset(seen, 0, (size_t)count + 1);
    sinew_result r = check_stored(s, bl, seen, err);
    sinew__free(alloc, seen);
    if (r != SINEW_OK) {
        sinew__free_aligned(alloc, bl);
        return NULL;
    }
    return bl;
}

sinew_skin *sinew_skin_create(const sinew_skeleton *sk, const sinew_skin_desc *d, const sinew_options *options,
                              sinew_skin_report *report, sinew_error *err)
{
    return sinew__skin_create_stored(sk, d, NULL, false, options, report, err);
}

sinew_skin *sinew__skin_create_stored(const sinew_skeleton *sk, const sinew_skin_desc *d,
                                      const sinew__stored_blocks *stored, bool borrow, const sinew_options *options,
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
    sinew__layout l = {sizeof(sinew__skin), false};
    size_t off_joints = sinew__layout_add(&l, (size_t)d->joint_count, sizeof(int16_t), 8);
    /* a borrowing skin keeps the caller's influences (and matrices, given) */
    bool keep_ibm = borrow && d->inverse_bind;
    size_t off_ibm = sinew__layout_add(&l, keep_ibm ? 0 : (size_t)d->joint_count, sizeof(sinew_mat4), 16);
    size_t off_idx = sinew__layout_add(&l, borrow ? 0 : entries, index_size, 8);
    size_t off_w = sinew__layout_add(&l, borrow ? 0 : weight_entries, weight_size, 8);
    sinew_allocator alloc = sinew__allocator(options);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total);
    if (!block) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_skin_create: out of memory for %d vertices",
                    d->vertex_count);
        return NULL;
    }
    sinew__skin *made = (sinew__skin *)block;
    sinew_skin *s = &made->base;
    int16_t *joints = (int16_t *)(block + off_joints);
    sinew_mat4 *ibm = (sinew_mat4 *)(block + off_ibm);
    for (int j = 0; j < d->joint_count; ++j) {
        int k;
        if (d->joints) {
            k = d->joints[j];
            if (k < 0 || k >= sk->joint_count) {
                sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                            "sinew_skin_create: skin joint %d: skeleton joint %d is out of range (%d joints)", j, k,
                            sk->joint_count);
                goto fail;
            }
        } else {
            const char *name = d->joint_names[j] ? d->joint_names[j] : "";
            k = sinew_skeleton_find_joint(sk, name);
            if (k < 0) {
                sinew__fail(err, SINEW_ERROR_UNKNOWN_JOINT,
                            "sinew_skin_create: skin joint %d: no joint named \"%s\" in the skeleton", j, name);
                goto fail;
            }
        }
        joints[j] = (int16_t)k;
        if (!keep_ibm) ibm[j] = d->inverse_bind ? d->inverse_bind[j] : sinew_mat4_identity();
    }
    if (!borrow && entries) memcpy(block + off_idx, d->indices, entries * index_size);
    if (!borrow && weight_entries) memcpy(block + off_w, d->weights, weight_entries * weight_size);
    s->joint_count = d->joint_count;
    s->joints = joints;
    s->inverse_bind = keep_ibm ? d->inverse_bind : ibm;
    s->vertex_count = d->vertex_count;
    s->influence_count = d->influence_count;
    s->index_type = d->index_type;
    s->indices = borrow ? d->indices : block + off_idx;
    s->weight_type = d->weight_type;
    s->weights = borrow ? d->weights : block + off_w;
    s->last_weight_implied = d->last_weight_implied;
    made->allocator = alloc;

    if (check_influences(s, !borrow, &rep, err) != SINEW_OK) goto fail;
    made->simd = sinew__simd_level(options);
    if (stored) {
        made->blocks = adopt_blocks(s, stored, borrow, &alloc, err);
        if (!made->blocks) goto fail;
    } else {
        made->blocks = build_blocks(s, &alloc);
    }
    if (!made->blocks) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY,
                    "sinew_skin_create: out of memory for the SIMD blocks of %d vertices", d->vertex_count);
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
    sinew_allocator a = sinew__skin_of(skin)->allocator;
    sinew__free_aligned(&a, sinew__skin_of(skin)->blocks);
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

int sinew_skin_vertex(const sinew_skin *skin, int v, int *joints, float *weights)
{
    int n = sinew__skin_fetch(skin, v, joints, weights);
    int nonzero = 0;
    for (int i = 0; i < n; ++i) nonzero += weights[i] > 0.0f;
    return nonzero;
}

