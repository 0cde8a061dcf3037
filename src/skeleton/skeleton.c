/* SPDX-License-Identifier: MIT */
/* Skeleton creation: validation, a stable parents-first order, name lookup. */
#include "skeleton/skeleton_internal.h"

#include <stdio.h>

uint32_t sinew_name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; ++p) {
        h ^= *p;
        h *= 16777619u;
    }
    return h;
}

uint64_t sinew__hash_bytes(const void *data, size_t size)
{
    /* FNV-1a over the 64-bit words in four interleaved lanes (independent
     * multiplies, so that they overlap), the last words padded with zeros;
     * then the lanes and the size combined and a final mix, so that every
     * bit of every word reaches every bit of the hash. An in-memory hash:
     * never stored. */
    const unsigned char *p = data;
    uint64_t h[4] = {14695981039346656037u, 14695981039346656037u ^ 1, 14695981039346656037u ^ 2,
                     14695981039346656037u ^ 3};
    size_t at = 0;
    for (; size - at >= 32; at += 32)
        for (int lane = 0; lane < 4; ++lane) {
            uint64_t word;
            memcpy(&word, p + at + 8 * (size_t)lane, sizeof word);
            h[lane] = (h[lane] ^ word) * 1099511628211u;
        }
    for (int lane = 0; at < size; at += 8, lane = (lane + 1) % 4) {
        uint64_t word = 0;
        memcpy(&word, p + at, size - at < 8 ? size - at : 8);
        h[lane] = (h[lane] ^ word) * 1099511628211u;
    }
    uint64_t x = ((h[0] ^ (h[1] * 0x9e3779b97f4a7c15u)) * 1099511628211u ^ h[2]) * 1099511628211u ^ h[3] ^ size;
    x ^= x >> 33, x *= 0xff51afd7ed558ccdu, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53u, x ^= x >> 33;
    return x;
}

static const char *desc_name(const sinew_skeleton_desc *d, int j)
{
    return d->names && d->names[j] ? d->names[j] : "";
}

/* Checks parents and returns, in `order`, a parents-first order that keeps the
 * input order wherever it already allows: a joint is emitted at its own place
 * unless its parent comes later, in which case it waits for its parent.
 * `mark` is scratch of joint_count ints. */
static sinew_result sort_parents_first(const sinew_skeleton_desc *d, int *order, int *mark,
                                       sinew_error *err)
{
    int n = d->joint_count;
    for (int j = 0; j < n; ++j) {
        int p = d->parents[j];
        if (p < -1 || p >= n)
            return sinew__fail(err, SINEW_ERROR_BAD_PARENT,
                               "sinew_skeleton_create: joint %d (\"%s\"): parent %d is out of range (%d joints)", j,
                               desc_name(d, j), p, n);
    }
    /* Cycle check: walk up from each joint; meeting a joint of the current walk
     * (mark == walk id) is a cycle. Each joint is walked once overall. */
    for (int j = 0; j < n; ++j) mark[j] = -1;
    for (int j = 0; j < n; ++j) {
        int k = j;
        while (k >= 0 && mark[k] == -1) {
            mark[k] = j;
            k = d->parents[k];
        }
        if (k >= 0 && mark[k] == j)
            return sinew__fail(err, SINEW_ERROR_CYCLE,
                               "sinew_skeleton_create: joint %d (\"%s\") is its own ancestor: "
                               "the hierarchy has a cycle", k, desc_name(d, k));
    }
    /* Emit: for each joint not yet emitted, emit its not-yet-emitted ancestors
     * top-down, then the joint. mark: 1 = emitted. */
    for (int j = 0; j < n; ++j) mark[j] = 0;
    int count = 0;
    for (int j = 0; j < n; ++j) {
        if (mark[j]) continue;
        /* The chain goes into the free tail of `order`, the joint last and its
         * topmost unemitted ancestor first, then moves to the front. The write
         * position never passes the read position. */
        int top = n;
        for (int k = j; k >= 0 && !mark[k]; k = d->parents[k]) order[--top] = k;
        for (int i = top; i < n; ++i) {
            int k = order[i];
            mark[k] = 1;
            order[count++] = k;
        }
    }
    return SINEW_OK;
}

size_t sinew__schedule_capacity(int n) { return ((size_t)n + 3) / 4 * 8; }

/* The two queues of sinew__make_schedule: joints ready to schedule, and the
 * late ones held back until the first runs dry. */
typedef struct schedule_queues {
    int *ready, *held;
    int ready_head, ready_tail, held_head, held_tail;
} schedule_queues;

static void enqueue(schedule_queues *q, const uint8_t *late, int joint)
{
    if (late && late[joint])
        q->held[q->held_tail++] = joint;
    else
        q->ready[q->ready_tail++] = joint;
}

/* The next joint (ready ones first), or `otherwise` when both are empty. */
static int dequeue(schedule_queues *q, int otherwise)
{
    if (q->ready_head < q->ready_tail) return q->ready[q->ready_head++];
    if (q->held_head < q->held_tail) return q->held[q->held_head++];
    return otherwise;
}

int sinew__make_schedule(const int16_t *parents, int n, const uint8_t *late, int *queue, int *links, int16_t *out)
{
    int *first_child = links, *next_sibling = links + n, pairs = 0, a = 0, c = 0;
    schedule_queues q = {.ready = queue, .held = queue + n};
    for (int j = 0; j < n; ++j) first_child[j] = -1;
    for (int j = n - 1; j >= 0; --j) /* children in index order */
        if (parents[j] >= 0) next_sibling[j] = first_child[parents[j]], first_child[parents[j]] = j;
    for (int j = 0; j < n; ++j)
        if (parents[j] < 0) enqueue(&q, late, j);
    for (int next; (next = dequeue(&q, -1)) >= 0 || pairs % 4; ++pairs) {
        if (next >= 0) { /* else the block is filled with the last pair */
            a = next, c = dequeue(&q, a);
            for (int k = first_child[a]; k >= 0; k = next_sibling[k]) enqueue(&q, late, k);
            for (int k = c != a ? first_child[c] : -1; k >= 0; k = next_sibling[k]) enqueue(&q, late, k);
        }
        out[pairs / 4 * 8 + pairs % 4] = (int16_t)a, out[pairs / 4 * 8 + 4 + pairs % 4] = (int16_t)c;
    }
    return pairs * 2;
}

sinew_skeleton *sinew_skeleton_create(const sinew_skeleton_desc *d, int *remap,
                                      const sinew_options *options, sinew_error *err)
{
    sinew__ok(err);
    if (!d) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skeleton_create: skeleton description is NULL");
        return NULL;
    }
    int n = d->joint_count;
    if (n < 0) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skeleton_create: joint_count %d is negative", n);
        return NULL;
    }
    if (n > SINEW_MAX_JOINTS) {
        sinew__fail(err, SINEW_ERROR_TOO_MANY_JOINTS, "sinew_skeleton_create: joint_count %d exceeds the limit of %d",
                    n, SINEW_MAX_JOINTS);
        return NULL;
    }
    if (n > 0 && !d->parents) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skeleton_create: parents is NULL for %d joints", n);
        return NULL;
    }
    if (d->rest_pose) {
        for (int j = 0; j < n; ++j) {
            const sinew_transform *t = &d->rest_pose[j];
            if (!sinew__finite_n(&t->translation.x, 3) || !sinew__finite_n(&t->rotation.x, 4) ||
                !sinew__finite_n(&t->scale.x, 3)) {
                sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                            "sinew_skeleton_create: joint %d (\"%s\"): rest pose has a NaN or infinite value", j,
                            desc_name(d, j));
                return NULL;
            }
            if (sinew__q_dot(t->rotation, t->rotation) == 0.0f) {
                sinew__fail(err, SINEW_ERROR_BAD_ROTATION,
                            "sinew_skeleton_create: joint %d (\"%s\"): rest rotation is (0, 0, 0, 0)", j,
                            desc_name(d, j));
                return NULL;
            }
        }
    }

    sinew_allocator alloc = sinew__allocator(options);
    /* the order, the new indices, the schedule's two queues and its links,
     * and the leaves */
    int *scratch = sinew__alloc(&alloc, sizeof(int) * (7 * (size_t)n + 1));
    if (!scratch) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_skeleton_create: out of memory for %d joints", n);
        return NULL;
    }
    int *order = scratch, *mark = scratch + n;
    if (sort_parents_first(d, order, mark, err) != SINEW_OK) {
        sinew__free(&alloc, scratch);
        return NULL;
    }
    int *new_index = mark; /* reuse: new_index[input joint] */
    for (int i = 0; i < n; ++i) new_index[order[i]] = i;

    uint32_t cap = 16;
    while (cap < (uint32_t)n * 2u) cap <<= 1;
    size_t string_bytes = 0;
    for (int j = 0; j < n; ++j) string_bytes += strlen(desc_name(d, j)) + 1;

    sinew__layout l = {sizeof(sinew__skeleton), false};
    size_t off_parents = sinew__layout_add(&l, (size_t)n, sizeof(int16_t), 8);
    size_t off_names = sinew__layout_add(&l, (size_t)n, sizeof(char *), 8);
    size_t off_hashes = sinew__layout_add(&l, (size_t)n, sizeof(uint32_t), 8);
    size_t off_rest = sinew__layout_add(&l, (size_t)n, sizeof(sinew_transform), 8);
    size_t off_lookup = sinew__layout_add(&l, cap, sizeof(int32_t), 8);
    int simd = sinew__simd_level(options);
    size_t off_schedule = sinew__layout_add(&l, sinew__schedule_capacity(n), sizeof(int16_t), 8);
    size_t off_last_lane = sinew__layout_add(&l, (size_t)n, sizeof(int32_t), 8);
    size_t off_strings = sinew__layout_add(&l, string_bytes, 1, 8);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total);
    if (!block) {
        sinew__free(&alloc, scratch);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_skeleton_create: out of memory for %d joints", n);
        return NULL;
    }

    sinew__skeleton *made = (sinew__skeleton *)block;
    sinew_skeleton *sk = &made->base;
    int16_t *parents = (int16_t *)(block + off_parents);
    const char **names = (const char **)(block + off_names);
    uint32_t *hashes = (uint32_t *)(block + off_hashes);
    sinew_transform *rest = (sinew_transform *)(block + off_rest);
    int32_t *lookup = (int32_t *)(block + off_lookup);
    int16_t *schedule = (int16_t *)(block + off_schedule);
    int32_t *last_lane = (int32_t *)(block + off_last_lane);
    char *strings = (char *)(block + off_strings);

    int renormalized = 0;
    for (int i = 0; i < n; ++i) {
        int src = order[i];
        int p = d->parents[src];
        parents[i] = (int16_t)(p < 0 ? -1 : new_index[p]);
        const char *name = desc_name(d, src);
        size_t len = strlen(name) + 1;
        memcpy(strings, name, len);
        names[i] = strings;
        strings += len;
        hashes[i] = sinew_name_hash(names[i]);
        rest[i] = d->rest_pose ? d->rest_pose[src] : sinew_transform_identity();
        float len2 = sinew__q_dot(rest[i].rotation, rest[i].rotation);
        if (fabsf(len2 - 1.0f) > 1e-5f) {
            rest[i].rotation = sinew__q_normalize(rest[i].rotation);
            ++renormalized;
        }
    }
    /* The leaves wait for the rest: a clip leaves the joints it does not
     * animate for last in its own schedule (its blocks stored once), and
     * those are mostly leaves (end sites, the tips of fingers), so that its
     * blocks then lie as the skeleton's pose order has them and sampling
     * into that order copies them whole. */
    uint8_t *leaf = (uint8_t *)(scratch + 6 * (size_t)n);
    for (int j = 0; j < n; ++j) leaf[j] = 1;
    for (int j = 0; j < n; ++j)
        if (parents[j] >= 0) leaf[parents[j]] = 0;
    int schedule_length =
        sinew__make_schedule(parents, n, leaf, scratch + 2 * (size_t)n, scratch + 4 * (size_t)n, schedule);
    for (int i = 0; i < schedule_length; ++i) last_lane[schedule[i]] = i;

    if (renormalized)
        sinew__warn(options, "skeleton: %d rest rotation(s) were not unit length and were normalized",
                    renormalized);

    for (uint32_t i = 0; i < cap; ++i) lookup[i] = -1;
    int duplicates = 0;
    for (int j = 0; j < n; ++j) {
        uint32_t slot = hashes[j] & (cap - 1);
        bool duplicate = false;
        while (lookup[slot] >= 0) {
            int other = lookup[slot];
            if (hashes[other] == hashes[j] && strcmp(names[other], names[j]) == 0) {
                duplicate = true;
                if (!names[j][0]) break; /* unnamed joints are not duplicates of each other */
                if (duplicates++ < 8)
                    sinew__warn(options, "skeleton: joints %d and %d share the name \"%s\"; lookup finds %d",
                                other, j, names[j], other);
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
        if (!duplicate) lookup[slot] = j;
    }
    if (duplicates > 8) sinew__warn(options, "skeleton: %d duplicate joint names in all", duplicates);

    sk->joint_count = n;
    sk->parents = parents;
    sk->names = names;
    sk->name_hashes = hashes;
    sk->rest_pose = rest;
    made->lookup = lookup;
    made->lookup_mask = cap - 1;
    made->schedule = schedule;
    made->schedule_length = schedule_length;
    made->last_lane = last_lane;
    made->simd = simd;
    made->local_to_model = sinew__local_to_model_kernel_for(simd);
    made->local_to_model_pose = sinew__local_to_model_pose_kernel_for(simd);
    made->rest_hash = sinew__hash_bytes(rest, sizeof *rest * (size_t)n);
    made->parents_hash = sinew__hash_bytes(parents, sizeof *parents * (size_t)n);
    made->allocator = alloc;
    if (remap)
        for (int j = 0; j < n; ++j) remap[j] = new_index[j];
    sinew__free(&alloc, scratch);
    return sk;
}

void sinew_skeleton_free(sinew_skeleton *sk)
{
    if (!sk) return;
    sinew_allocator a = sinew__skeleton_of(sk)->allocator;
    sinew__free(&a, sk);
}

int sinew_skeleton_find_joint(const sinew_skeleton *sk, const char *name)
{
    if (!sk || !name || sk->joint_count == 0) return -1;
    uint32_t h = sinew_name_hash(name);
    const sinew__skeleton *s = sinew__skeleton_of(sk);
    for (uint32_t slot = h & s->lookup_mask;; slot = (slot + 1) & s->lookup_mask) {
        int j = s->lookup[slot];
        if (j < 0) return -1;
        if (sk->name_hashes[j] == h && strcmp(sk->names[j], name) == 0) return j;
    }
}

int sinew_skeleton_depth(const sinew_skeleton *sk, int joint)
{
    int depth = 0;
    if (!sk || joint < 0 || joint >= sk->joint_count) return -1;
    for (int p = sk->parents[joint]; p >= 0; p = sk->parents[p]) ++depth;
    return depth;
}
