/* SPDX-License-Identifier: MIT */
/* Spring bones by the VRMC_springBone 1.0 specification's update: Verlet
 * tails, the rest pose's bone lengths restored after every move, sphere and
 * capsule colliders, an optional center space, joints turned root to leaf.
 * The scalar code here is the reference; the AVX2 kernel runs the same
 * formulas for eight chains at once. */
#include "layer/layer_internal.h"

#include <stdlib.h> /* qsort */

enum { MAX_SUBSTEPS = 64, LANES = 8 };

struct sinew_springs {
    const sinew_skeleton *skeleton;
    int joint_count;
    sinew__spring_bone *bones;
    int bone_count;
    sinew__spring_chain *chains;     /* in the order they run */
    int chain_count;
    int *path;                       /* joints; path_bone beside */
    int *path_bone;
    int *lane_path;                  /* the groups' paths lane by lane, as byte offsets (sinew__springs_run.lane_path) */
    int *below;
    int *chain_colliders;
    sinew_spring_collider *colliders;
    int collider_count;
    float *rest_tails;               /* per bone, the rest pose's tail (in its center's space) */
    float *params;                   /* the bones' fields in blocks (sinew__spring_at) */
    int blocks;                      /* of eight bones */
    int group_count;                 /* the first group_count * LANES chains run LANES at a time */
    sinew__springs_kernel kernel;
    sinew_allocator allocator;
};

struct sinew_spring_state {
    const sinew_springs *springs;
    float *tails;          /* per bone in blocks: current tail, previous tail (6 fields) */
    float *anim;           /* per bone in blocks: the animated local rotation of the step (4) */
    float *colliders;      /* per collider, and one that never collides */
    float *wide;           /* the same for the kernel (sinew__springs_run.colliders) */
    sinew_allocator allocator;
};

sinew_spring_joint sinew_spring_joint_default(int joint)
{
    sinew_spring_joint j = {joint, 0.0f, 1.0f, 0.0f, {0.0f, -1.0f, 0.0f}, 0.5f};
    return j;
}

/* ---- helpers ------------------------------------------------------------- */

static sinew_vec3 position_of(const sinew_mat4 *m) { return sinew__v3(m->m[12], m->m[13], m->m[14]); }

sinew_quat sinew__model_rotation(const sinew_mat4 *m)
{
    float r[9];
    for (int c = 0; c < 3; ++c) {
        sinew_vec3 col = sinew__v3_normalize(sinew__v3(m->m[c * 4], m->m[c * 4 + 1], m->m[c * 4 + 2]));
        r[c * 3] = col.x, r[c * 3 + 1] = col.y, r[c * 3 + 2] = col.z;
    }
    /* a mirrored frame (negative determinant) has no rotation: flip one axis */
    sinew_vec3 x = sinew__v3(r[0], r[1], r[2]), y = sinew__v3(r[3], r[4], r[5]), z = sinew__v3(r[6], r[7], r[8]);
    if (sinew__v3_dot(sinew__v3_cross(x, y), z) < 0.0f) r[6] = -r[6], r[7] = -r[7], r[8] = -r[8];
    return sinew_quat_from_mat3(r);
}

static float length_of(sinew_vec3 v) { return sqrtf(sinew__v3_dot(v, v)); }

static bool finite3(sinew_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The skeleton in depth-first order, so that every question about who is
 * below whom costs O(1) and a joint's subtree is one run of `order`:
 * joint j is at order[at[j]], and its subtree at order[at[j] .. at[j] +
 * size[j] - 1]. Made in O(joints) from the parents (parents first). */
typedef struct tree {
    int *order, *at, *size;
} tree;

/* `work` holds 2 * joints + 1 ints of scratch. */
static void tree_make(const sinew_skeleton *sk, tree *t, int *work)
{
    int n = sk->joint_count;
    int *first_child = work, *next = work + n + 1; /* children as linked lists, in index order */
    for (int j = 0; j < n; ++j) first_child[j] = -1, t->size[j] = 1;
    for (int j = n - 1; j >= 0; --j) {
        int p = sk->parents[j];
        next[j] = p >= 0 ? first_child[p] : -1;
        if (p >= 0) first_child[p] = j;
    }
    for (int j = n - 1; j >= 0; --j)
        if (sk->parents[j] >= 0) t->size[sk->parents[j]] += t->size[j];
    /* preorder: a root's run starts after the runs before it, a child's
     * after its parent and its earlier siblings */
    int placed = 0;
    for (int j = 0; j < n; ++j) {
        int p = sk->parents[j];
        if (p < 0) t->at[j] = placed, placed += t->size[j];
    }
    for (int j = 0; j < n; ++j) {
        int at = t->at[j] + 1;
        for (int c = first_child[j]; c >= 0; c = next[c]) t->at[c] = at, at += t->size[c];
    }
    for (int j = 0; j < n; ++j) t->order[t->at[j]] = j;
}

/* Whether joint j is strictly below `ancestor`. */
static bool is_below(const tree *t, int ancestor, int j)
{
    return t->at[j] > t->at[ancestor] && t->at[j] < t->at[ancestor] + t->size[ancestor];
}

static int chain_by_first(const void *a, const void *b)
{
    const int *x = a, *y = b; /* (first joint, chain index) pairs */
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* A rotation, not normalized, turning unit a toward b, whose length is
 * `length` (> 0): (a x b, length + a . b) is the shortest arc scaled by
 * 2 length cos(half the angle), so the caller's one normalization of its
 * product serves both. Where b is opposite to a, a half turn about some
 * perpendicular. */
static sinew_quat from_to(sinew_vec3 a, sinew_vec3 b, float length)
{
    float d = sinew__v3_dot(a, b);
    if (d < -0.999999f * length) {
        sinew_vec3 other = fabsf(a.x) < 0.6f ? sinew__v3(1, 0, 0) : sinew__v3(0, 1, 0);
        sinew_vec3 p = sinew__v3_normalize(sinew__v3_cross(a, other));
        return sinew__q(p.x, p.y, p.z, 0.0f);
    }
    sinew_vec3 c = sinew__v3_cross(a, b);
    return sinew__q(c.x, c.y, c.z, length + d);
}

/* p + the direction of (x - p) at length `length`; the direction `fallback`
 * where x is at p. */
static sinew_vec3 at_length(sinew_vec3 p, sinew_vec3 x, float length, sinew_vec3 fallback)
{
    sinew_vec3 d = sinew__v3_sub(x, p);
    float len2 = sinew__v3_dot(d, d);
    if (!(len2 > 0.0f)) d = fallback, len2 = 1.0f;
    return sinew__v3_add(p, sinew__v3_scale(d, length / sqrtf(len2)));
}

/* ---- create -------------------------------------------------------------- */

#define FAIL(result, ...) (sinew__fail(err, result, "sinew_springs_create: " __VA_ARGS__), NULL)

static const char *check_joint(const sinew_spring_joint *j)
{
    if (!isfinite(j->hit_radius) || !isfinite(j->stiffness) || !isfinite(j->gravity_power) ||
        !finite3(j->gravity_dir) || !isfinite(j->drag_force))
        return "a parameter is not finite";
    if (j->hit_radius < 0.0f) return "hit radius is negative";
    if (j->stiffness < 0.0f) return "stiffness is negative";
    if (j->gravity_power < 0.0f) return "gravity power is negative";
    if (j->drag_force < 0.0f || j->drag_force > 1.0f) return "drag force is not in [0, 1]";
    return NULL;
}

sinew_springs *sinew_springs_create(const sinew_skeleton *sk, const sinew_springs_desc *desc,
                                    const sinew_options *options, sinew_error *err)
{
    if (!sk || !desc) return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "a skeleton and a description");
    int n = sk->joint_count;
    if (desc->collider_count < 0 || desc->group_count < 0 || desc->chain_count < 0)
        return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "negative count");
    if ((desc->collider_count && !desc->colliders) || (desc->group_count && !desc->groups) ||
        (desc->chain_count && !desc->chains))
        return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "a count without its array");
    for (int c = 0; c < desc->collider_count; ++c) {
        const sinew_spring_collider *k = &desc->colliders[c];
        if (k->joint < 0 || k->joint >= n)
            return FAIL(SINEW_ERROR_BAD_JOINT_INDEX, "collider %d: joint %d is not in the skeleton's %d", c, k->joint, n);
        if (k->shape != SINEW_COLLIDER_SPHERE && k->shape != SINEW_COLLIDER_CAPSULE)
            return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "collider %d: unknown shape %d", c, (int)k->shape);
        if (!finite3(k->offset) || !finite3(k->tail) || !isfinite(k->radius))
            return FAIL(SINEW_ERROR_NOT_FINITE, "collider %d: offset, tail or radius is not finite", c);
        if (k->radius < 0.0f) return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "collider %d: radius %g is negative", c, (double)k->radius);
    }
    size_t group_entries = 0;
    for (int g = 0; g < desc->group_count; ++g) {
        const sinew_spring_collider_group *grp = &desc->groups[g];
        if (grp->collider_count < 0 || (grp->collider_count && !grp->colliders))
            return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "group %d: a negative count or no array", g);
        for (int i = 0; i < grp->collider_count; ++i)
            if (grp->colliders[i] < 0 || grp->colliders[i] >= desc->collider_count)
                return FAIL(SINEW_ERROR_BAD_REFERENCE, "group %d: collider %d (entry %d) is not one of the %d colliders",
                            g, grp->colliders[i], i, desc->collider_count);
        group_entries += (size_t)grp->collider_count;
    }
    /* the rest pose's model matrices measure bones and axes */
    sinew_allocator a = sinew__allocator(options);
    size_t pairs = 2 * (size_t)desc->chain_count;
    sinew_mat4 *rest = sinew__alloc(&a, sizeof *rest * (size_t)n + ((size_t)n * 8 + 1 + pairs) * sizeof(int));
    if (!rest) return FAIL(SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    int *owner = (int *)(rest + n), *mark = owner + n, *ancestor_marked = mark + n;
    tree t = {ancestor_marked + n, ancestor_marked + 2 * n, ancestor_marked + 3 * n};
    int *by_first = ancestor_marked + 4 * n; /* chain_count pairs; then 2n + 1 of tree scratch */
    tree_make(sk, &t, by_first + pairs);
    sinew_local_to_model(sk, sk->rest_pose, NULL, rest, n, NULL);
    for (int j = 0; j < n; ++j) owner[j] = -1, mark[j] = 0;

    size_t bones = 0, path = 0, below = 0, chain_colliders = 0;
    const char *why = NULL;
    sinew_result res = SINEW_OK;
    int bad_chain = -1, bad_joint = -1;
    for (int c = 0; c < desc->chain_count && !why; ++c) {
        const sinew_spring_chain *ch = &desc->chains[c];
        bad_chain = c;
        if (ch->joint_count < 2 || !ch->joints) { why = "fewer than two joints", res = SINEW_ERROR_INVALID_ARGUMENT; break; }
        if (ch->collider_group_count < 0 || (ch->collider_group_count && !ch->collider_groups)) {
            why = "a negative group count or no array", res = SINEW_ERROR_INVALID_ARGUMENT;
            break;
        }
        if (ch->center < -1 || ch->center >= n) { why = "its center is not a joint", res = SINEW_ERROR_BAD_JOINT_INDEX; break; }
        if (ch->center >= 0 && ch->joint_count >= 1 && ch->joints[0].joint >= 0 && ch->joints[0].joint < n &&
            ch->center != ch->joints[0].joint && !is_below(&t, ch->center, ch->joints[0].joint)) {
            why = "its center is neither its first joint nor an ancestor of it", res = SINEW_ERROR_INVALID_ARGUMENT;
            break;
        }
        for (int g = 0; g < ch->collider_group_count; ++g) {
            int gi = ch->collider_groups[g];
            if (gi < 0 || gi >= desc->group_count) { why = "a collider group index is out of range", res = SINEW_ERROR_BAD_REFERENCE; break; }
            chain_colliders += (size_t)desc->groups[gi].collider_count;
        }
        if (why) break;
        for (int i = 0; i < ch->joint_count && !why; ++i)
            if (ch->joints[i].joint < 0 || ch->joints[i].joint >= n)
                bad_joint = i, why = "its joint is not in the skeleton", res = SINEW_ERROR_BAD_JOINT_INDEX;
        if (why) break;
        for (int i = 0; i < ch->joint_count; ++i) {
            const sinew_spring_joint *jt = &ch->joints[i];
            bad_joint = i;
            int j = jt->joint;
            if ((why = check_joint(jt))) { res = strstr(why, "finite") ? SINEW_ERROR_NOT_FINITE : SINEW_ERROR_INVALID_ARGUMENT; break; }
            if (i > 0 && !is_below(&t, ch->joints[i - 1].joint, j)) { why = "it is not below the joint before it", res = SINEW_ERROR_INVALID_ARGUMENT; break; }
            if (i + 1 < ch->joint_count) {
                if (owner[j] >= 0) { why = "it is already simulated by another chain", res = SINEW_ERROR_INVALID_ARGUMENT; break; }
                owner[j] = c;
                float len = length_of(sinew__v3_sub(position_of(&rest[ch->joints[i + 1].joint]), position_of(&rest[j])));
                if (!(len > 0.0f)) { why = "its bone has zero length in the rest pose", res = SINEW_ERROR_INVALID_ARGUMENT; break; }
            }
        }
        if (why) break;
        bad_joint = -1;
        bones += (size_t)ch->joint_count - 1;
        int first = ch->joints[0].joint, last = ch->joints[ch->joint_count - 1].joint;
        for (int j = last; j != first; j = sk->parents[j]) ++path;
        ++path;
        /* below: joints under the first that are not on the path */
        below += (size_t)t.size[first] - 1;
    }

    if (why) {
        sinew__free(&a, rest);
        if (bad_joint >= 0)
            return FAIL(res, "chain %d, joint %d (skeleton joint %d): %s", bad_chain, bad_joint,
                        desc->chains[bad_chain].joints[bad_joint].joint, why);
        return FAIL(res, "chain %d: %s", bad_chain, why);
    }
    /* each step updates the joints below a chain once for every chain above
     * them: nested chains multiply that work, so it is bounded by the joints */
    if (below > 16 * (size_t)n + 4096) {
        sinew__free(&a, rest);
        return FAIL(SINEW_ERROR_INVALID_ARGUMENT, "the chains hang below one another so deeply that a step would "
                    "update %zu joints, more than 16 times the skeleton's %d", below, n);
    }

    sinew__layout l = {0};
    size_t o_sp = sinew__layout_add(&l, 1, sizeof(sinew_springs), 16);
    size_t o_bones = sinew__layout_add(&l, bones, sizeof(sinew__spring_bone), 16);
    size_t o_chains = sinew__layout_add(&l, (size_t)desc->chain_count, sizeof(sinew__spring_chain), 16);
    size_t o_path = sinew__layout_add(&l, path, sizeof(int), 16);
    size_t o_path_bone = sinew__layout_add(&l, path, sizeof(int), 16);
    size_t o_lane_path = sinew__layout_add(&l, 2 * path, sizeof(int), 16);
    size_t o_below = sinew__layout_add(&l, below, sizeof(int), 16);
    size_t o_cc = sinew__layout_add(&l, chain_colliders, sizeof(int), 16);
    size_t o_col = sinew__layout_add(&l, (size_t)desc->collider_count, sizeof(sinew_spring_collider), 16);
    size_t o_seq = sinew__layout_add(&l, (size_t)desc->chain_count, sizeof(int), 16);
    size_t o_order = sinew__layout_add(&l, (size_t)desc->chain_count, sizeof(int), 16);
    size_t o_rest = sinew__layout_add(&l, bones * 3, sizeof(float), 16);
    size_t blocks = (bones + 7) / 8;
    size_t o_params = sinew__layout_add(&l, blocks * 8 * SINEW__SPRING_PARAMS, sizeof(float), 32);
    char *mem = l.overflow ? NULL : sinew__alloc(&a, l.total);
    if (!mem) {
        sinew__free(&a, rest);
        return FAIL(SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    memset(mem, 0, l.total);
    sinew_springs *sp = (sinew_springs *)(mem + o_sp);
    sp->allocator = a;
    sp->skeleton = sk;
    sp->joint_count = n;
    sp->bones = (sinew__spring_bone *)(mem + o_bones);
    sp->chains = (sinew__spring_chain *)(mem + o_chains);
    sp->path = (int *)(mem + o_path);
    sp->path_bone = (int *)(mem + o_path_bone);
    sp->lane_path = (int *)(mem + o_lane_path);
    sp->below = (int *)(mem + o_below);
    sp->chain_colliders = (int *)(mem + o_cc);
    sp->colliders = (sinew_spring_collider *)(mem + o_col);
    sp->rest_tails = (float *)(mem + o_rest);
    sp->params = (float *)(mem + o_params);
    sp->blocks = (int)blocks;
    int *order = (int *)(mem + o_order);
    sp->collider_count = desc->collider_count;
    if (desc->collider_count) memcpy(sp->colliders, desc->colliders, sizeof *sp->colliders * (size_t)desc->collider_count);
    sp->kernel = sinew__springs_kernel_for(sinew__simd_level(options));

    /* chains in the order of their first joints (stable), so a chain below
     * another runs after it */
    for (int c = 0; c < desc->chain_count; ++c) by_first[2 * c] = desc->chains[c].joints[0].joint, by_first[2 * c + 1] = c;
    if (desc->chain_count) qsort(by_first, (size_t)desc->chain_count, 2 * sizeof(int), chain_by_first);
    for (int c = 0; c < desc->chain_count; ++c) order[c] = by_first[2 * c + 1];
    /* path joints, marked to find the chains that hang below another */
    for (int c = 0; c < desc->chain_count; ++c) {
        const sinew_spring_chain *ch = &desc->chains[c];
        for (int j = ch->joints[ch->joint_count - 1].joint; j != ch->joints[0].joint; j = sk->parents[j]) mark[j] = 1;
        mark[ch->joints[0].joint] = 1;
    }
    /* fill in run order: first the groups (LANES chains of one bone count,
     * simple and hanging below no chain), then the rest */
    sinew__spring_chain *made = sp->chains;
    int made_count = 0;
    size_t nb = 0, np = 0, nbelow = 0, ncc = 0, group_base = 0, group_path = 0;
    int *kind = owner; /* per input chain: bone count if groupable, else 0 */
    for (int c = 0; c < desc->chain_count; ++c) kind[c] = 0;
    for (int j = 0; j < n; ++j) { /* parents first: whether a joint above j is on a path */
        int p = sk->parents[j];
        ancestor_marked[j] = p >= 0 && (mark[p] || ancestor_marked[p]);
    }
    for (int c = 0; c < desc->chain_count; ++c) {
        const sinew_spring_chain *ch = &desc->chains[c];
        bool simple = ch->center < 0 && !ancestor_marked[ch->joints[0].joint];
        for (int i = 1; i < ch->joint_count && simple; ++i)
            if (sk->parents[ch->joints[i].joint] != ch->joints[i - 1].joint) simple = false;
        if (simple) kind[c] = ch->joint_count - 1;
    }
    int *seq = (int *)(mem + o_seq); /* run order, input chain indices */
    int seq_count = 0;
    {
        /* the order does not depend on the SIMD level: the scalar reference
         * runs the same order */
        /* the chains of one bone count, in run order, cut into runs of
         * LANES from the front: a bucket a count (counting sort into the
         * tree's scratch, which is free again) */
        int *bucket_start = by_first, *bucket = by_first + n + 2, *nth = mark; /* n + 2, chains, chains */
        for (int k = 0; k <= n + 1; ++k) bucket_start[k] = 0;
        for (int oi = 0; oi < desc->chain_count; ++oi)
            if (kind[order[oi]] > 0) ++bucket_start[kind[order[oi]] + 1];
        for (int k = 1; k <= n + 1; ++k) bucket_start[k] += bucket_start[k - 1];
        for (int oi = 0; oi < desc->chain_count; ++oi) {
            int c = order[oi], k = kind[c];
            if (k <= 0) continue;
            int place = bucket_start[k]++;
            bucket[place] = c, nth[c] = place;
        }
        for (int k = n + 1; k > 0; --k) bucket_start[k] = bucket_start[k - 1];
        bucket_start[0] = 0;
        for (int oi = 0; oi < desc->chain_count; ++oi) {
            int c = order[oi], k = kind[c];
            if (k <= 0) continue;
            int p = nth[c] - bucket_start[k], in_bucket = bucket_start[k + 1] - bucket_start[k];
            if (p % LANES != 0 || p + LANES > in_bucket) continue;
            for (int f = 0; f < LANES; ++f) {
                int same = bucket[nth[c] + f];
                seq[seq_count++] = same, kind[same] = -1;
            }
            ++sp->group_count;
        }
    }
    for (int oi = 0; oi < desc->chain_count; ++oi)
        if (kind[order[oi]] >= 0) seq[seq_count++] = order[oi];

    for (int s = 0; s < seq_count; ++s) {
        const sinew_spring_chain *ch = &desc->chains[seq[s]];
        sinew__spring_chain *out = &made[made_count++];
        /* a group's chains interleave their bones: bone e of its eight
         * chains is one block */
        bool grouped = s < sp->group_count * LANES;
        int lane = s % LANES;
        if (grouped && lane == 0) group_base = nb, group_path = np;
        out->first_bone = grouped ? (int)group_base + lane : (int)nb;
        out->bone_count = ch->joint_count - 1;
        out->bone_stride = grouped ? LANES : 1;
        out->center = ch->center;
        int first = ch->joints[0].joint, last = ch->joints[ch->joint_count - 1].joint;
        out->path_start = (int)np;
        int count = 0;
        for (int j = last; j != first; j = sk->parents[j]) ++count;
        ++count;
        out->path_count = count;
        int k = count;
        for (int j = last;; j = sk->parents[j]) {
            sp->path[np + (size_t)--k] = j;
            sp->path_bone[np + (size_t)k] = -1;
            if (j == first) break;
        }
        /* a group's chains have one path length: position p of lane `lane`
         * at 2 p LANES + lane from twice the group's first path entry, the
         * joint's transform's byte offset, and its matrix's LANES on */
        if (grouped)
            for (int p = 0; p < count; ++p) {
                int *at = &sp->lane_path[2 * (group_path + (size_t)p * LANES) + (size_t)lane];
                at[0] = sp->path[np + (size_t)p] * (int)sizeof(sinew_transform);
                at[LANES] = sp->path[np + (size_t)p] * (int)sizeof(sinew_mat4);
            }
        int path_at = 0;
        for (int i = 0; i + 1 < ch->joint_count; ++i) {
            const sinew_spring_joint *jt = &ch->joints[i];
            size_t bi = (size_t)out->first_bone + (size_t)i * (size_t)out->bone_stride;
            sinew__spring_bone *b = &sp->bones[bi];
            int j = jt->joint, tj = ch->joints[i + 1].joint;
            /* the chain's joints lie along its path in order: one walk */
            while (path_at < count && sp->path[np + (size_t)path_at] != j) ++path_at;
            if (path_at < count) sp->path_bone[np + (size_t)path_at] = (int)bi;
            b->joint = j, b->tail = tj;
            b->stiffness = jt->stiffness, b->drag = jt->drag_force;
            /* the pair's head carries the parameters, the tail's own are
             * not used (the last joint's none) */
            b->hit_radius = jt->hit_radius;
            b->gravity = sinew__v3_scale(sinew__v3_normalize(jt->gravity_dir), jt->gravity_power);
            sinew_vec3 d = sinew__v3_sub(position_of(&rest[tj]), position_of(&rest[j]));
            b->length = length_of(d);
            sinew_mat4 inv;
            sinew_vec3 local_tail = sinew_mat4_inverse(&rest[j], &inv) == SINEW_OK
                                        ? sinew_mat4_transform_point(&inv, position_of(&rest[tj]))
                                        : d;
            b->axis = sinew__v3_normalize(local_tail);
            if (sinew__v3_dot(b->axis, b->axis) == 0.0f) b->axis = sinew__v3(0, 1, 0);
            sinew_vec3 rt = position_of(&rest[tj]);
            if (ch->center >= 0 && sinew_mat4_inverse(&rest[ch->center], &inv) == SINEW_OK)
                rt = sinew_mat4_transform_point(&inv, rt);
            float *rtf = &sp->rest_tails[bi * 3];
            rtf[0] = rt.x, rtf[1] = rt.y, rtf[2] = rt.z;
            const float fields[SINEW__SPRING_PARAMS] = {b->stiffness, b->drag, b->hit_radius, b->length,
                                                        b->gravity.x, b->gravity.y, b->gravity.z,
                                                        b->axis.x, b->axis.y, b->axis.z};
            for (int f = 0; f < SINEW__SPRING_PARAMS; ++f) sp->params[sinew__spring_at((int)bi, f, SINEW__SPRING_PARAMS)] = fields[f];
        }
        if (!grouped) nb += (size_t)out->bone_count;
        else if (lane == LANES - 1) nb = group_base + (size_t)LANES * (size_t)out->bone_count;
        np += (size_t)count;
        out->below_start = (int)nbelow;
        /* the joints of the first's subtree (one run of the depth-first
         * order, parents before children) that are not on the path */
        int *on_path = ancestor_marked, stamp = s + 2; /* 0 and 1 are the values it held */
        for (int p = 0; p < count; ++p) on_path[sp->path[out->path_start + p]] = stamp;
        for (int q = t.at[first] + 1; q < t.at[first] + t.size[first]; ++q)
            if (on_path[t.order[q]] != stamp) sp->below[nbelow++] = t.order[q];
        out->below_count = (int)nbelow - out->below_start;
        out->collider_start = (int)ncc;
        for (int g = 0; g < ch->collider_group_count; ++g) {
            const sinew_spring_collider_group *grp = &desc->groups[ch->collider_groups[g]];
            for (int i = 0; i < grp->collider_count; ++i) sp->chain_colliders[ncc++] = grp->colliders[i];
        }
        out->collider_count = (int)ncc - out->collider_start;
        out->lanes_share = 0;
        if (grouped && lane == LANES - 1) {
            /* what the group's eight chains share, on its first */
            sinew__spring_chain *g0 = out - (LANES - 1);
            int parent = sk->parents[sp->path[g0->path_start]];
            bool same_parent = true, same_colliders = true;
            for (int f = 1; f < LANES; ++f) {
                const sinew__spring_chain *o = g0 + f;
                same_parent = same_parent && sk->parents[sp->path[o->path_start]] == parent;
                same_colliders = same_colliders && o->collider_count == g0->collider_count;
                for (int i = 0; same_colliders && i < g0->collider_count; ++i)
                    same_colliders = sp->chain_colliders[o->collider_start + i] == sp->chain_colliders[g0->collider_start + i];
            }
            g0->lanes_share = (same_parent ? SINEW__SHARE_PARENT : 0) | (same_colliders ? SINEW__SHARE_COLLIDERS : 0);
        }
    }
    sp->chain_count = made_count;
    sp->bone_count = (int)nb;
    sinew__free(&a, rest);
    sinew__ok(err);
    return sp;
}

void sinew_springs_free(sinew_springs *springs)
{
    if (!springs) return;
    sinew_allocator a = springs->allocator;
    sinew__free(&a, springs);
}

/* ---- state --------------------------------------------------------------- */

sinew_spring_state *sinew_spring_state_create(const sinew_springs *sp, const sinew_options *options, sinew_error *err)
{
    if (!sp) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_spring_state_create: no springs");
        return NULL;
    }
    sinew_allocator a = sinew__allocator(options);
    sinew__layout l = {0};
    size_t o_st = sinew__layout_add(&l, 1, sizeof(sinew_spring_state), 16);
    size_t o_tails = sinew__layout_add(&l, (size_t)sp->blocks * 8 * 6, sizeof(float), 32);
    size_t o_anim = sinew__layout_add(&l, (size_t)sp->blocks * 8 * 4, sizeof(float), 32);
    size_t o_col = sinew__layout_add(&l, ((size_t)sp->collider_count + 1) * SINEW__SPRING_COLLIDER_FLOATS, sizeof(float), 16);
    size_t o_wide = sinew__layout_add(&l, sp->kernel ? ((size_t)sp->collider_count + 1) * SINEW__SPRING_COLLIDER_FLOATS * 8 : 0,
                                      sizeof(float), 32);
    char *mem = l.overflow ? NULL : sinew__alloc(&a, l.total);
    if (!mem) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_spring_state_create: out of memory");
        return NULL;
    }
    memset(mem, 0, l.total);
    sinew_spring_state *st = (sinew_spring_state *)(mem + o_st);
    st->allocator = a;
    st->springs = sp;
    st->tails = (float *)(mem + o_tails);
    st->anim = (float *)(mem + o_anim);
    st->colliders = (float *)(mem + o_col);
    st->wide = (float *)(mem + o_wide);
    /* still, in the rest pose */
    for (int b = 0; b < sp->bone_count; ++b)
        for (int k = 0; k < 6; ++k) st->tails[sinew__spring_at(b, k, 6)] = sp->rest_tails[b * 3 + k % 3];
    sinew__ok(err);
    return st;
}

void sinew_spring_state_free(sinew_spring_state *state)
{
    if (!state) return;
    sinew_allocator a = state->allocator;
    sinew__free(&a, state);
}

sinew_result sinew_spring_state_copy(sinew_spring_state *dst, const sinew_spring_state *src, sinew_error *err)
{
    if (!dst || !src) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_spring_state_copy: two states");
    if (dst->springs != src->springs)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_spring_state_copy: the states were made for different springs");
    const sinew_springs *sp = src->springs;
    if (dst != src) {
        memcpy(dst->tails, src->tails, sizeof(float) * (size_t)sp->blocks * 8 * 6);
        memcpy(dst->anim, src->anim, sizeof(float) * (size_t)sp->blocks * 8 * 4);
        memcpy(dst->colliders, src->colliders, sizeof(float) * ((size_t)sp->collider_count + 1) * SINEW__SPRING_COLLIDER_FLOATS);
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- reset and step -------------------------------------------------------- */

static sinew_result check_args(const char *who, const sinew_springs *sp, const sinew_spring_state *st,
                               const sinew_mat4 *model, int count, sinew_error *err)
{
    if (!sp || !st || !model)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: springs, a state and model matrices", who);
    if (st->springs != sp)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: the state was made for other springs", who);
    if (count != sp->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: %d model matrices for %d joints", who, count,
                           sp->joint_count);
    return SINEW_OK;
}

static bool center_space(const sinew_mat4 *model, int center, sinew_mat4 *c, sinew_mat4 *inv)
{
    if (center < 0) return false;
    *c = model[center];
    if (sinew_mat4_inverse(c, inv) != SINEW_OK) *inv = *c = sinew_mat4_identity();
    return true;
}

sinew_result sinew_springs_reset(const sinew_springs *sp, sinew_spring_state *st, const sinew_mat4 *model, int count,
                                 sinew_error *err)
{
    sinew_result r = check_args("sinew_springs_reset", sp, st, model, count, err);
    if (r != SINEW_OK) return r;
    for (int c = 0; c < sp->chain_count; ++c) {
        const sinew__spring_chain *ch = &sp->chains[c];
        sinew_mat4 cm, inv;
        bool centered = center_space(model, ch->center, &cm, &inv);
        for (int e = 0; e < ch->bone_count; ++e) {
            int b = ch->first_bone + e * ch->bone_stride;
            sinew_vec3 t = position_of(&model[sp->bones[b].tail]);
            if (!finite3(t))
                return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "sinew_springs_reset: joint %d's model matrix is not finite",
                                   sp->bones[b].tail);
            if (centered) t = sinew_mat4_transform_point(&inv, t);
            float v[3] = {t.x, t.y, t.z};
            for (int k = 0; k < 6; ++k) st->tails[sinew__spring_at(b, k, 6)] = v[k % 3];
        }
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* The colliders in model space, from `model` as it is now. */
static void place_colliders(const sinew_springs *sp, sinew_spring_state *st, const sinew_mat4 *model)
{
    for (int i = 0; i < sp->collider_count; ++i) {
        const sinew_spring_collider *k = &sp->colliders[i];
        sinew_vec3 c = sinew_mat4_transform_point(&model[k->joint], k->offset);
        sinew_vec3 t = k->shape == SINEW_COLLIDER_CAPSULE ? sinew_mat4_transform_point(&model[k->joint], k->tail) : c;
        float *w = &st->colliders[i * SINEW__SPRING_COLLIDER_FLOATS];
        sinew_vec3 ab = sinew__v3_sub(t, c);
        float ab2 = sinew__v3_dot(ab, ab);
        /* 1 / |ab|^2, 0 for a sphere: the segment's parameter by a product */
        w[0] = c.x, w[1] = c.y, w[2] = c.z, w[3] = t.x, w[4] = t.y, w[5] = t.z, w[6] = k->radius;
        w[7] = ab2 > 0.0f ? 1.0f / ab2 : 0.0f;
    }
    float *none = &st->colliders[sp->collider_count * SINEW__SPRING_COLLIDER_FLOATS];
    /* far off (its squared distance still a finite float), radius 0 */
    for (int k = 0; k < SINEW__SPRING_COLLIDER_FLOATS; ++k) none[k] = k < 6 ? 1e18f : 0.0f;
    if (!sp->kernel) return;
    /* the kernel's form: tail - center for the tail (the scalar collide's
     * subtraction), each float eight times */
    for (int i = 0; i <= sp->collider_count; ++i) {
        const float *w = &st->colliders[i * SINEW__SPRING_COLLIDER_FLOATS];
        float *out = &st->wide[i * SINEW__SPRING_COLLIDER_FLOATS * 8];
        for (int f = 0; f < SINEW__SPRING_COLLIDER_FLOATS; ++f) {
            float v = f >= 3 && f < 6 ? w[f] - w[f - 3] : w[f];
            for (int l = 0; l < 8; ++l) out[f * 8 + l] = v;
        }
    }
}

/* Pushes x out of a collider (world floats w: center, tail, radius,
 * 1 / |tail - center|^2) to r + hit from its nearest point, then back to
 * the bone's length from p. */
static sinew_vec3 collide(const float *w, float hit, sinew_vec3 p, sinew_vec3 x, float length, sinew_vec3 fallback)
{
    sinew_vec3 a = sinew__v3(w[0], w[1], w[2]), ab = sinew__v3_sub(sinew__v3(w[3], w[4], w[5]), a);
    float s = sinew__v3_dot(sinew__v3_sub(x, a), ab) * w[7];
    s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
    sinew_vec3 q = sinew__v3_add(a, sinew__v3_scale(ab, s));
    sinew_vec3 d = sinew__v3_sub(x, q);
    float reach = w[6] + hit, d2 = sinew__v3_dot(d, d);
    if (!(d2 < reach * reach)) return x;
    /* a tail exactly at the nearest point leaves along the bone */
    if (!(d2 > 0.0f)) d = fallback, d2 = 1.0f;
    x = sinew__v3_add(q, sinew__v3_scale(d, reach / sqrtf(d2)));
    return at_length(p, x, length, fallback);
}

/* One chain, one substep, from position `from` of its path on: the scalar
 * reference. `parent` is the matrix of the joint above that position and
 * `wp` its rotation, scale left out: sinew__model_rotation of the path's
 * parent joint, then times each local rotation down the path. */
static void step_path(const sinew_springs *sp, sinew_spring_state *st, const sinew__spring_chain *ch, float dt,
                      bool first, bool keep_anim, sinew_transform *local, sinew_mat4 *model, int from,
                      sinew_mat4 parent, sinew_quat wp)
{
    sinew_mat4 cm, inv;
    bool centered = center_space(model, ch->center, &cm, &inv);
    for (int e = from; e < ch->path_count; ++e) {
        int k = sp->path[ch->path_start + e], b = sp->path_bone[ch->path_start + e];
        sinew_transform *t = &local[k];
        /* the first substep's animated rotation is local's; it is kept for
         * the others, where there are others */
        float *a = st->anim;
        sinew_quat rot = b >= 0 && !first ? sinew__q(a[sinew__spring_at(b, 0, 4)], a[sinew__spring_at(b, 1, 4)],
                                                     a[sinew__spring_at(b, 2, 4)], a[sinew__spring_at(b, 3, 4)])
                                          : t->rotation;
        if (b >= 0 && first && keep_anim)
            a[sinew__spring_at(b, 0, 4)] = rot.x, a[sinew__spring_at(b, 1, 4)] = rot.y,
            a[sinew__spring_at(b, 2, 4)] = rot.z, a[sinew__spring_at(b, 3, 4)] = rot.w;
        sinew_mat4 m, lm;
        /* products of unit rotations: unit to rounding, which the one
         * normalization of each corrected rotation keeps from growing */
        sinew_quat w = sinew__q_mul(wp, rot);
        if (b >= 0) {
            const sinew__spring_bone *bone = &sp->bones[b];
            float s[6];
            for (int f = 0; f < 6; ++f) s[f] = st->tails[sinew__spring_at(b, f, 6)];
            sinew_vec3 cur = sinew__v3(s[0], s[1], s[2]), prev = sinew__v3(s[3], s[4], s[5]);
            if (centered) cur = sinew_mat4_transform_point(&cm, cur), prev = sinew_mat4_transform_point(&cm, prev);
            /* the joint's position does not depend on its rotation: the
             * translation column of parent * TRS, as the product sums it */
            sinew_vec3 tr = t->translation;
            sinew_vec3 p = sinew__v3(parent.m[0] * tr.x + parent.m[4] * tr.y + parent.m[8] * tr.z,
                                     parent.m[1] * tr.x + parent.m[5] * tr.y + parent.m[9] * tr.z,
                                     parent.m[2] * tr.x + parent.m[6] * tr.y + parent.m[10] * tr.z);
            p = sinew__v3(p.x + parent.m[12], p.y + parent.m[13], p.z + parent.m[14]);
            sinew_vec3 dir = sinew__q_rotate(w, bone->axis); /* the animated direction */
            sinew_vec3 next = sinew__v3_add(cur, sinew__v3_scale(sinew__v3_sub(cur, prev), 1.0f - bone->drag));
            next = sinew__v3_add(next, sinew__v3_scale(dir, dt * bone->stiffness));
            next = sinew__v3_add(next, sinew__v3_scale(bone->gravity, dt));
            next = at_length(p, next, bone->length, dir);
            for (int i = 0; i < ch->collider_count; ++i) {
                const float *cw = &st->colliders[sp->chain_colliders[ch->collider_start + i] * SINEW__SPRING_COLLIDER_FLOATS];
                next = collide(cw, bone->hit_radius, p, next, bone->length, dir);
            }
            sinew_vec3 keep = centered ? sinew_mat4_transform_point(&inv, next) : next;
            const float out[6] = {keep.x, keep.y, keep.z, s[0], s[1], s[2]};
            for (int f = 0; f < 6; ++f) st->tails[sinew__spring_at(b, f, 6)] = out[f];
            /* turn the joint from its animated direction onto the tail */
            sinew_vec3 to = sinew__q_rotate(sinew__q(-w.x, -w.y, -w.z, w.w), sinew__v3_sub(next, p));
            rot = sinew__q_normalize(sinew__q_mul(rot, from_to(bone->axis, to, bone->length)));
            t->rotation = rot;
            sinew__mat4_from_trs(&lm, t->translation, rot, t->scale);
            sinew__mat4_mul_affine(&m, &parent, &lm);
            w = sinew__q_mul(wp, rot);
        } else {
            sinew__mat4_from_trs(&lm, t->translation, rot, t->scale);
            sinew__mat4_mul_affine(&m, &parent, &lm);
        }
        model[k] = m;
        parent = m;
        wp = w;
    }
}

/* One chain's step, from the joint above its path: its matrix, and the
 * rotation of that (sinew__model_rotation) that the path's local rotations
 * turn on from. */
static void step_chain(const sinew_springs *sp, sinew_spring_state *st, const sinew__spring_chain *ch, float dt,
                       bool first, bool keep_anim, sinew_transform *local, sinew_mat4 *model)
{
    int pj = sp->skeleton->parents[sp->path[ch->path_start]];
    sinew_mat4 parent = pj >= 0 ? model[pj] : sinew_mat4_identity();
    sinew_quat wp = pj >= 0 ? sinew__model_rotation(&model[pj]) : sinew__q(0, 0, 0, 1);
    step_path(sp, st, ch, dt, first, keep_anim, local, model, 0, parent, wp);
}

/* The joints below a chain's path, from their (corrected) parents. */
static void update_below(const sinew_springs *sp, const sinew__spring_chain *ch, const sinew_transform *local,
                         sinew_mat4 *model)
{
    const int16_t *parents = sp->skeleton->parents;
    for (int i = 0; i < ch->below_count; ++i) {
        int k = sp->below[ch->below_start + i];
        sinew_mat4 lm;
        sinew__mat4_from_trs(&lm, local[k].translation, local[k].rotation, local[k].scale);
        sinew__mat4_mul_affine(&model[k], &model[parents[k]], &lm);
    }
}

sinew_result sinew_springs_step(const sinew_springs *sp, sinew_spring_state *st, float dt, int substeps,
                                sinew_transform *local, sinew_mat4 *model, int count, sinew_error *err)
{
    sinew_result r = check_args("sinew_springs_step", sp, st, model, count, err);
    if (r != SINEW_OK) return r;
    if (!local) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_springs_step: no local pose");
    if (!(dt >= 0.0f) || !isfinite(dt))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_springs_step: dt %g is negative or not finite", (double)dt);
    if (substeps == 0) substeps = 1;
    if (substeps < 1 || substeps > MAX_SUBSTEPS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_springs_step: %d substeps (1 .. %d)", substeps,
                           MAX_SUBSTEPS);
    float h = dt / (float)substeps;
    /* the parents' matrices do not change during the step (not a chain's
     * joints, nor below one) */
    sinew__spring_parent parent = {-2, {0, 0, 0, 1}, 1.0f};
    sinew__springs_run run = {sp->skeleton->parents, sp->chains, sp->group_count * LANES, sp->chain_colliders, sp->collider_count, sp->params,
                              st->anim, st->tails, st->wide, sp->path, sp->lane_path, local, model, &parent,
                              h, true, substeps > 1};
    for (int s = 0; s < substeps; ++s) {
        run.first = s == 0;
        place_colliders(sp, st, model);
        int c = 0;
        if (sp->kernel) {
            /* groups two at a time where two in a row have one bone count
             * (the kernel runs them side by side); no group moves another's
             * joints, so the order is the scalar loop's in effect */
            for (int g = 0; g < sp->group_count;) {
                int pair = g + 1 < sp->group_count && sp->chains[c].bone_count == sp->chains[c + LANES].bone_count;
                sinew_quat above[2 * LANES];
                int stop = sp->kernel(&run, c, pair ? c + LANES : c, above);
                int n = (1 + pair) * LANES;
                for (int i = 0; i < n; ++i) {
                    const sinew__spring_chain *ch = &sp->chains[c + i];
                    /* where the kernel stops (a scale that differs between
                     * axes or mirrors, here or in the parent's matrix),
                     * the path goes on here from the joint above */
                    if (stop == 0)
                        step_chain(sp, st, ch, h, run.first, run.keep, local, model);
                    else if (stop < ch->path_count)
                        step_path(sp, st, ch, h, run.first, run.keep, local, model, stop,
                                  model[sp->path[ch->path_start + stop - 1]], above[i]);
                    update_below(sp, ch, local, model);
                }
                g += 1 + pair, c += n;
            }
        }
        for (; c < sp->chain_count; ++c) {
            step_chain(sp, st, &sp->chains[c], h, run.first, run.keep, local, model);
            update_below(sp, &sp->chains[c], local, model);
        }
    }
    sinew__ok(err);
    return SINEW_OK;
}
