/* SPDX-License-Identifier: MIT */
/* sinew_skin_vertex_order: an order of a skin's vertices that fills each
 * SIMD block with vertices of the same joints. */
#include "offline/offline_internal.h"

#include <stdlib.h>

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
    if (!skin || !order)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_vertex_order: NULL %s",
                           skin ? "order" : "skin");
    int n = skin->vertex_count;
    vertex_key *keys = sinew__alloc(&sinew__skin_of(skin)->allocator, sizeof *keys * ((size_t)n + 1));
    uint8_t *in_block = sinew__alloc(&sinew__skin_of(skin)->allocator, (size_t)skin->joint_count + 1);
    if (!keys || !in_block) {
        sinew__free(&sinew__skin_of(skin)->allocator, keys), sinew__free(&sinew__skin_of(skin)->allocator, in_block);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_skin_vertex_order: out of memory for %d vertices", n);
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
    sinew__free(&sinew__skin_of(skin)->allocator, keys), sinew__free(&sinew__skin_of(skin)->allocator, in_block);
    return SINEW_OK;
}

