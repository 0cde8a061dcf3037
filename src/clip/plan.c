/* SPDX-License-Identifier: MIT */
/* The exact form of a clip: its sampling plan, a second layout of its
 * LINEAR translation, rotation and scale tracks made for sampling many
 * tracks at once, and the form's table (the other tracks through the
 * reference sampler, track.c). The packed form (packed.c) quantizes this
 * file's block layout.
 *
 * Tracks whose key times are equal share a timeline (exporters bake every
 * track of a clip at one rate, and glTF files share input accessors), so one
 * key search and one interpolation factor serve them all. Per timeline, key
 * k's values of all its tracks form one frame (plan.h): where
 * the tracks fill most of a stretch of the pose, the frame is an image of
 * that stretch (a track's values sit where the pose holds them), so that the
 * vector lerp runs over whole 256-bit runs of the pose, a mask keeping what
 * no track writes; elsewhere each track's values are packed. STEP and
 * CUBICSPLINE tracks stay with the reference sampler (sinew_track_sample),
 * except where the block layout (plan.h) takes a one-key STEP
 * track as a constant.
 *
 * The AVX2 kernel (plan_avx2.c) runs where the CPU has it; elsewhere each
 * track goes through the reference's own formulas (bit for bit the
 * reference). Agreement of the AVX2 kernel with the reference
 * (tests/test_sampler.c checks it): vectors bit for bit (the same
 * a + (b - a) s); on a key, before the first or after the last, every value
 * is the stored key bit for bit; rotations within 1e-6 relative: lanes on
 * nlerp (SINEW_SAMPLE_NLERP, or keys closer than the reference's nlerp
 * threshold) compute the reference's weighted sum (fused multiply-adds,
 * normalized through a reciprocal square root estimate and one Newton
 * step); slerp lanes use the series
 * sin(t a) / sin(a) = t sum_i b_i(t) (x - 1)^i with x = cos(a), b_0 = 1,
 * b_i = b_(i-1) (t^2 - i^2) / (i (2i + 1)) (D. Eberly, "A fast and accurate
 * algorithm for computing SLERP", 2011), four terms, under 5e-8 in exact
 * arithmetic for x >= 0.9, then normalized like the nlerp lanes; lanes with
 * keys further apart than that take the reference slerp. */
#include "clip/plan.h"

static bool fast_track(const sinew_track *t)
{
    return t->interpolation == SINEW_INTERP_LINEAR && t->target != SINEW_TARGET_WEIGHTS;
}

/* Whether two of a clip's tracks have the same key times: the same array,
 * as sinew_clip_create() gives equal key times one copy. */
static bool same_times(const sinew_track *a, const sinew_track *b) { return a->times == b->times; }

/* The float offset of a track's value inside a sinew_transform array. */
static uint32_t out_offset(const sinew_track *t)
{
    return (uint32_t)((size_t)t->joint * (sizeof(sinew_transform) / sizeof(float))) + sinew__target_float(t->target);
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* A timeline while the plan is made: the pose floats its tracks span and
 * fill, and where its arrays go in the plan's allocation. */
typedef struct building {
    uint32_t lowest, end, floats;
    size_t frames, vec_src, vec_dst, mask;
} building;

/* The first of the clip's translation, rotation and scale tracks that the
 * block layout cannot take, with the reason in *why (and in *other the
 * track whose key times it does not share); -1 where it takes them all:
 * LINEAR on one set of key times, or a single key (not CUBICSPLINE, whose
 * value is not the first float). Packing takes what the layout takes. */
int sinew__layout_refusal(const sinew_clip *clip, const char **why, int *other)
{
    int first = -1;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        *why = t->interpolation == SINEW_INTERP_CUBICSPLINE ? "CUBICSPLINE interpolation"
               : t->key_count > 1 && t->interpolation == SINEW_INTERP_STEP ? "STEP interpolation"
               : t->key_count > 1 && first >= 0 && !same_times(t, &clip->tracks[first]) ? "other key times"
                                                                                         : NULL;
        if (*why) {
            *other = first;
            return i;
        }
        if (t->key_count > 1 && first < 0) first = i;
    }
    return -1;
}

/* Whether a one-key translation or scale holds a -0, which the float
 * layout's lerp between equal values turns into +0 where the reference
 * keeps the key as stored (a packed layout gives +0 by its own rule). */
static bool negative_zero_constant(const sinew_track *t)
{
    if (t->target == SINEW_TARGET_ROTATION || t->key_count != 1) return false;
    for (int c = 0; c < 3; ++c)
        if (t->values[c] == 0.0f && signbit(t->values[c])) return true;
    return false;
}

/* The block layout serves a clip made for `sk` whose translation, rotation
 * and scale tracks (one with more than one key at least) are all LINEAR on
 * the same key times or constant (layout_refusal; no constant translation
 * or scale with a -0), and fill at least a third
 * of the layout's floats (so that it holds at most three times the clip's
 * values: a few tracks on a large skeleton stay with the timelines; a fully
 * animated chain of joints, which the schedule pairs with themselves, fills
 * half), at the AVX2 level: its kernel's. Weights tracks do not matter
 * here. */
static bool blocks_fit(const sinew_clip *clip, const sinew_skeleton *sk, int simd)
{
    const char *why;
    int other;
    if (!sk || sk->joint_count != clip->joint_count || !sinew__plan_kernels_for(simd) ||
        sinew__layout_refusal(clip, &why, &other) >= 0)
        return false;
    bool animated = false;
    size_t filled = 0;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        if (negative_zero_constant(t)) return false;
        filled += (size_t)sinew_track_components(t);
        animated = animated || t->key_count > 1;
    }
    return animated && 3 * filled >= (size_t)sinew__skeleton_of(sk)->schedule_length * 10;
}

/* The pose additive clips start from (per joint), and the block layout's
 * frames where no track writes. */
const sinew_transform sinew__identity_transform = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};

/* Whether a track's values are the same on every key, bit for bit. */
static bool track_constant(const sinew_track *t)
{
    size_t width = (size_t)sinew_track_components(t);
    for (int k = 1; k < t->key_count; ++k)
        if (memcmp(t->values + (size_t)k * width, t->values, sizeof(float) * width) != 0) return false;
    return true;
}

/* late[j] = 1 where joint j and all its descendants are constant joints
 * (each of their tracks' values the same on every key; the floats no track
 * writes come from the pose sampling starts from), from their tracks
 * (track_of, as blocks_create gives it). */
static void mark_late(const sinew_clip *clip, const int16_t *parents, int n, const int *track_of, uint8_t *late)
{
    for (int j = 0; j < n; ++j) late[j] = 1;
    for (int j = n - 1; j >= 0; --j) { /* children come after their parents */
        for (int target = 0; target < 3; ++target) {
            int ti = track_of[3 * j + target];
            if (ti >= 0 && !track_constant(&clip->tracks[ti])) late[j] = 0;
        }
        if (!late[j] && parents[j] >= 0) late[parents[j]] = 0;
    }
}

/* The blocks of a schedule (count of them) before the run at its end whose
 * joints are all late. */
static int animated_blocks(const int16_t *schedule, int count, const uint8_t *late)
{
    for (; count > 0; --count)
        for (int e = 8 * (count - 1); e < 8 * count; ++e)
            if (!late[schedule[e]]) return count;
    return 0;
}

/* Whether block b of a schedule has some float no track writes: a joint
 * without a translation, rotation or scale track (track_of, as
 * blocks_create gives it). */
static bool block_partial(const int16_t *schedule, int b, const int *track_of)
{
    for (int e = 8 * b; e < 8 * b + 8; ++e)
        for (int target = 0; target < 3; ++target)
            if (track_of[3 * schedule[e] + target] < 0) return true;
    return false;
}

/* The pose parts (plan.h) that carry the blocks of `schedule` (length
 * entries) into the skeleton's pose order `pose` (pose_length entries;
 * both list every one of the n joints): counted when `first` is NULL, else
 * written, each layout block's together, in pose block order. `at` (n
 * ints) is scratch. Returns the part count. */
static int make_pose_parts(const int16_t *schedule, int length, const int16_t *pose, int pose_length, int n, int *at,
                           int32_t *first, sinew__pose_part *parts)
{
    for (int j = 0; j < n; ++j) at[j] = -1;
    for (int e = length - 1; e >= 0; --e) at[schedule[e]] = e; /* a joint's first lane */
    int blocks = length / 8, total = 0;
    if (first)
        for (int b = 0; b <= blocks; ++b) first[b] = 0;
    /* twice where writing: the parts counted per layout block, then each
     * written at its block's next place (first[b] runs to block b's end,
     * and is moved back after) */
    for (int pass = first ? 0 : 1; pass < 2; ++pass) {
        for (int o = 0; o < pose_length / 8; ++o) {
            int from[8], count = 0;
            for (int i = 0; i < 8; ++i) {
                int b = at[pose[8 * o + i]] / 8, k = 0;
                while (k < count && from[k] != b) ++k;
                if (k == count) from[count++] = b;
            }
            if (!first) {
                total += count;
                continue;
            }
            for (int k = 0; k < count; ++k) {
                if (pass == 0) {
                    ++first[from[k] + 1];
                    continue;
                }
                sinew__pose_part *part = &parts[first[from[k]]++];
                part->to = o, part->whole = 1, part->same = 1;
                for (int i = 0; i < 8; ++i) {
                    int e = at[pose[8 * o + i]];
                    bool here = e / 8 == from[k];
                    part->lane[i] = here ? e % 8 : 0, part->mask[i] = here ? -1 : 0;
                    part->whole &= here, part->same &= here && e % 8 == i;
                }
            }
        }
        if (first && pass == 0)
            for (int b = 0; b < blocks; ++b) first[b + 1] += first[b];
    }
    if (!first) return total;
    for (int b = blocks; b > 0; --b) first[b] = first[b - 1];
    first[0] = 0;
    return first[blocks];
}

/* The plan in the block layout (plan.h) in one allocation: the
 * sampler, the layout, the schedule, the frames, the constant blocks, the
 * mask, and for the partial blocks their slots, settled flags and the pose
 * under them (for an additive clip the identity, always read
 * from there, so the layout keeps no identity pose). */
sinew__sampler *sinew__blocks_create(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_allocator *alloc,
                                     int simd)
{
    int n = clip->joint_count, hint = -1;
    /* each joint's translation, rotation and scale track (-1: none), by
     * target (the first three sinew_track_target values); then for the
     * schedule: its queue and links, its entries, the late joints */
    size_t capacity = sinew__schedule_capacity(n);
    sinew__layout scratch_lay = {0, false};
    size_t off_track_of = sinew__layout_add(&scratch_lay, 3 * (size_t)n + 1, sizeof(int), 8);
    size_t off_queue = sinew__layout_add(&scratch_lay, 2 * (size_t)n + 1, sizeof(int), 8);
    size_t off_links = sinew__layout_add(&scratch_lay, 2 * (size_t)n + 1, sizeof(int), 8);
    size_t off_order = sinew__layout_add(&scratch_lay, capacity + 1, sizeof(int16_t), 8);
    size_t off_late = sinew__layout_add(&scratch_lay, (size_t)n + 1, 1, 8);
    unsigned char *scratch = scratch_lay.overflow ? NULL : sinew__alloc(alloc, scratch_lay.total);
    if (!scratch) return NULL;
    int *track_of = (int *)(scratch + off_track_of), *queue = (int *)(scratch + off_queue);
    int *links = (int *)(scratch + off_links);
    int16_t *order = (int16_t *)(scratch + off_order);
    uint8_t *late = scratch + off_late;
    for (size_t i = 0; i < 3 * (size_t)n; ++i) track_of[i] = -1;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        if (t->target == SINEW_TARGET_WEIGHTS) continue;
        if (hint < 0 && t->key_count > 1) hint = i;
        track_of[3 * t->joint + (int)t->target] = i;
    }
    mark_late(clip, sk->parents, n, track_of, late);
    int length = sinew__make_schedule(sk->parents, n, late, queue, links, order);
    int count = length / 8, animated = animated_blocks(order, count, late);
    /* without a track of more than one key (a packed still pose) one key at 0 */
    static const float time_zero = 0.0f;
    const float *times = hint >= 0 ? clip->tracks[hint].times : &time_zero;
    size_t keys = hint >= 0 ? (size_t)clip->tracks[hint].key_count : 1;
    sinew__layout lay = {sizeof(sinew__sampler), false};
    size_t off_blocks = sinew__layout_add(&lay, 1, sizeof(sinew__blocks), 8);
    size_t off_schedule = sinew__layout_add(&lay, (size_t)length, sizeof(int16_t), 2);
    size_t off_frames =
        sinew__layout_add(&lay, keys * (size_t)animated * SINEW__BLOCK_FLOATS, sizeof(float), SINEW__ALIGN);
    int partial_count = 0;
    for (int b = 0; b < count; ++b) partial_count += block_partial(order, b, track_of);
    const sinew__skeleton *skel = sinew__skeleton_of(sk);
    int part_count = make_pose_parts(order, length, skel->schedule, skel->schedule_length, n, queue, NULL, NULL);
    sinew__block_tables_at tables_at = sinew__lay_out_tables(&lay, count, animated, partial_count, part_count);
    unsigned char *block = lay.overflow ? NULL : sinew__alloc_aligned(alloc, lay.total);
    if (!block) {
        sinew__free(alloc, scratch);
        return NULL;
    }
    memset(block, 0, lay.total);
    sinew__sampler *sm = (sinew__sampler *)block;
    sinew__blocks *p = (sinew__blocks *)(block + off_blocks);
    int16_t *schedule = (int16_t *)(block + off_schedule);
    float *frames = (float *)(block + off_frames);
    sinew__block_tables tables = sinew__tables_in(block, &tables_at);
    float *constants = tables.constants, *under = tables.under;
    int8_t *mask = tables.mask;
    memcpy(schedule, order, sizeof(int16_t) * (size_t)length);
    const float *none = &sinew__identity_transform.translation.x;
    size_t frame = (size_t)animated * SINEW__BLOCK_FLOATS;
    for (int e = 0; e < length; ++e) {
        /* float f of entry e, key k: at + 8 f + k step */
        size_t b = (size_t)e / 8, lane = (size_t)e % 8;
        bool varies = b < (size_t)animated;
        float *at = (varies ? frames + b * SINEW__BLOCK_FLOATS
                            : constants + (b - (size_t)animated) * SINEW__BLOCK_FLOATS) + lane;
        size_t stored_keys = varies ? keys : 1, step = varies ? frame : 0;
        for (size_t k = 0; k < stored_keys; ++k)
            for (size_t f = 0; f < 10; ++f) at[k * step + 8 * f] = none[f];
        for (int target = 0; target < 3; ++target) {
            int ti = track_of[3 * schedule[e] + target];
            if (ti < 0) continue;
            const sinew_track *t = &clip->tracks[ti];
            size_t first = sinew__target_float(target), width = (size_t)sinew_track_components(t);
            for (size_t k = 0; k < stored_keys; ++k) {
                const float *v = t->values + (t->key_count > 1 ? k * width : 0);
                for (size_t c = 0; c < width; ++c) at[k * step + 8 * (first + c)] = v[c];
            }
            for (size_t c = 0; c < width; ++c) mask[b * SINEW__BLOCK_FLOATS + lane + 8 * (first + c)] = -1;
        }
    }
    /* the partial blocks: the pose under them from sk (the identity for an
     * additive clip) in the blocks' layout, and the constant ones' unwritten
     * floats given those values too */
    const sinew_transform *base = clip->additive ? NULL : sk->rest_pose;
    for (int b = 0, slot = 0; b < count; ++b) {
        tables.under_slot[b] = -1;
        if (!block_partial(schedule, b, track_of)) continue;
        tables.under_slot[b] = slot;
        float *u = under + (size_t)slot++ * SINEW__BLOCK_FLOATS;
        bool constant = b >= animated, exact = true;
        for (int lane = 0; lane < 8; ++lane) {
            const float *x = &(base ? &base[schedule[8 * b + lane]] : &sinew__identity_transform)->translation.x;
            for (int f = 0; f < 10; ++f) {
                size_t at = (size_t)(8 * f + lane);
                u[at] = x[f];
                if (!constant || mask[(size_t)b * SINEW__BLOCK_FLOATS + at]) continue;
                constants[(size_t)(b - animated) * SINEW__BLOCK_FLOATS + at] = x[f];
                /* between keys the constant blocks' translations and scales
                 * are given plus 0, which turns -0 into +0 */
                if ((f < 3 || f >= 7) && x[f] == 0.0f && signbit(x[f])) exact = false;
            }
        }
        tables.settled[b] = constant && exact;
    }
    make_pose_parts(schedule, length, skel->schedule, skel->schedule_length, n, queue, tables.pose_first,
                    tables.pose_parts);
    *p = (sinew__blocks){.times = times, .key_count = (int)keys, .hint_track = hint,
                         .length = length, .schedule = schedule, .joint_count = n,
                         .parents_hash = skel->parents_hash, .animated = animated, .frames = frames,
                         .under_hash = skel->rest_hash, .pose_lanes = skel->schedule_length};
    sinew__use_tables(p, &tables);
    *sm = (sinew__sampler){.blocks = p, .pose_floats = n * (int)(sizeof(sinew_transform) / sizeof(float)),
                           .additive = clip->additive, .kernels = sinew__plan_kernels_for(simd),
                           .bytes = lay.total};
    sinew__free(alloc, scratch);
    return sm;
}

sinew__sampler *sinew__sampler_create(const sinew_clip *clip, const sinew_skeleton *skeleton,
                                      const sinew_allocator *alloc, int simd)
{
    if (blocks_fit(clip, skeleton, simd)) return sinew__blocks_create(clip, skeleton, alloc, simd);
    int n = clip->track_count;
    /* timeline of each track (-1: reference sampler), found by comparing times
     * with each timeline's first track (its hint track) */
    int *line = sinew__alloc(alloc, sizeof(int) * ((size_t)n + 1));
    sinew__timeline *tl = sinew__alloc(alloc, sizeof(sinew__timeline) * ((size_t)n + 1));
    building *bd = sinew__alloc(alloc, sizeof(building) * ((size_t)n + 1));
    sinew__sampler *s = NULL;
    if (!line || !tl || !bd) goto done;
    int lines = 0, others = 0;
    for (int i = 0; i < n; ++i) {
        const sinew_track *t = &clip->tracks[i];
        line[i] = -1;
        if (!fast_track(t)) {
            ++others;
            continue;
        }
        int l = 0;
        while (l < lines && !same_times(t, &clip->tracks[tl[l].hint_track])) ++l;
        if (l == lines) {
            tl[lines] = (sinew__timeline){.times = t->times, .key_count = t->key_count, .hint_track = i};
            bd[lines++] = (building){.lowest = UINT32_MAX};
        }
        line[i] = l;
        uint32_t at = out_offset(t), width = (uint32_t)sinew_track_components(t);
        if (t->target == SINEW_TARGET_ROTATION)
            ++tl[l].rot_count;
        else
            ++tl[l].vec_count;
        if (at < bd[l].lowest) bd[l].lowest = at;
        if (at + width > bd[l].end) bd[l].end = at + width;
        bd[l].floats += width;
    }

    /* each timeline's frame: an image where the tracks fill at least half
     * of their stretch */
    for (int l = 0; l < lines; ++l) {
        sinew__timeline *x = &tl[l];
        const building *p = &bd[l];
        uint32_t stretch = p->end - p->lowest;
        x->image = stretch >= 8 && stretch <= 2 * p->floats;
        x->image_at = x->image ? p->lowest : 0;
        x->image_floats = x->image ? stretch : 0;
        x->frame_floats = (int)round_up(x->image ? stretch : 4 * ((size_t)x->vec_count + (size_t)x->rot_count), 8);
    }
    /* the image with the longest stretch goes first and writes all of it */
    int primary = -1;
    for (int l = 0; l < lines; ++l)
        if (tl[l].image && (primary < 0 || tl[l].image_floats > tl[primary].image_floats)) primary = l;
    if (primary > 0) {
        sinew__timeline x = tl[0];
        building b = bd[0];
        tl[0] = tl[primary], bd[0] = bd[primary], tl[primary] = x, bd[primary] = b;
        for (int i = 0; i < n; ++i) line[i] = line[i] == 0 ? primary : line[i] == primary ? 0 : line[i];
    }
    /* the rotation list, timeline after timeline in that order */
    int rotation_count = 0;
    for (int l = 0; l < lines; rotation_count += tl[l++].rot_count) tl[l].rot_first = rotation_count;

    /* one allocation: the sampler, its timelines, the other tracks, the
     * rotation list, then per timeline its frames and offsets */
    sinew__layout lay = {sizeof(sinew__sampler), false};
    size_t off_lines = sinew__layout_add(&lay, (size_t)lines, sizeof(sinew__timeline), 8);
    size_t off_others = sinew__layout_add(&lay, (size_t)others, sizeof(int), 4);
    int identity_count = clip->additive ? clip->joint_count : 0;
    size_t off_identity = sinew__layout_add(&lay, (size_t)identity_count, sizeof(sinew_transform), 8);
    size_t rotations_listed = round_up((size_t)rotation_count, SINEW__ROTATION_LANES);
    size_t off_rot_src = sinew__layout_add(&lay, rotations_listed, sizeof(uint32_t), 4);
    size_t off_rot_dst = sinew__layout_add(&lay, rotations_listed, sizeof(uint32_t), 4);
    size_t off_rot_line = sinew__layout_add(&lay, rotations_listed, sizeof(int32_t), 4);
    for (int l = 0; l < lines; ++l) {
        const sinew__timeline *x = &tl[l];
        building *p = &bd[l];
        p->frames = sinew__layout_add(&lay, (size_t)x->key_count * (size_t)x->frame_floats, sizeof(float), 32);
        p->vec_src = sinew__layout_add(&lay, (size_t)x->vec_count, sizeof(uint32_t), 4);
        p->vec_dst = sinew__layout_add(&lay, (size_t)x->vec_count, sizeof(uint32_t), 4);
        p->mask = sinew__layout_add(&lay, x->image_floats, sizeof(int8_t), 1);
    }
    /* on a cache line: the frames are read as aligned 32-byte vectors, and
     * their speed must not depend on where malloc put them */
    unsigned char *block = lay.overflow ? NULL : sinew__alloc_aligned(alloc, lay.total);
    if (!block) goto done;
    memset(block, 0, lay.total);
    s = (sinew__sampler *)block;
    sinew__timeline *lines_out = (sinew__timeline *)(block + off_lines);
    int *other = (int *)(block + off_others);
    uint32_t *rot_src = (uint32_t *)(block + off_rot_src), *rot_dst = (uint32_t *)(block + off_rot_dst);
    int32_t *rot_line = (int32_t *)(block + off_rot_line);
    for (int l = 0; l < lines; ++l) {
        sinew__timeline *x = &tl[l];
        const building *p = &bd[l];
        float *frames = (float *)(block + p->frames);
        uint32_t *vec_src = (uint32_t *)(block + p->vec_src), *vec_dst = (uint32_t *)(block + p->vec_dst);
        int8_t *mask = (int8_t *)(block + p->mask);
        int nv = 0, nr = 0;
        for (int i = 0; i < n; ++i) {
            if (line[i] != l) continue;
            const sinew_track *t = &clip->tracks[i];
            bool rotation = t->target == SINEW_TARGET_ROTATION;
            uint32_t dst = out_offset(t), width = (uint32_t)sinew_track_components(t);
            uint32_t src = x->image ? dst - x->image_at : 4 * (uint32_t)(rotation ? x->vec_count + nr : nv);
            /* three or four floats a key: copied in place, not by a call each */
            for (size_t k = 0; k < (size_t)x->key_count; ++k) {
                float *to = &frames[k * (size_t)x->frame_floats + src];
                const float *from = &t->values[k * width];
                to[0] = from[0], to[1] = from[1], to[2] = from[2];
                if (width == 4) to[3] = from[3];
            }
            if (rotation) {
                int e = x->rot_first + nr++;
                rot_src[e] = src, rot_dst[e] = dst, rot_line[e] = l;
            } else {
                vec_src[nv] = src, vec_dst[nv++] = dst;
            }
            if (x->image) memset(&mask[src], -1, width);
        }
        x->frames = frames, x->vec_src = vec_src, x->vec_dst = vec_dst, x->image_mask = mask;
        lines_out[l] = *x;
    }
    for (size_t e = (size_t)rotation_count; e < rotations_listed; ++e) /* none when rotation_count is 0 */
        rot_src[e] = rot_src[e - 1], rot_dst[e] = rot_dst[e - 1], rot_line[e] = rot_line[e - 1];
    int no = 0;
    for (int i = 0; i < n; ++i)
        if (line[i] < 0) other[no++] = i;
    sinew_transform *identity = (sinew_transform *)(block + off_identity);
    for (int j = 0; j < identity_count; ++j) identity[j] = sinew__identity_transform;
    *s = (sinew__sampler){.timeline_count = lines, .timelines = lines_out,
                          .rotations = {rotation_count, (int)rotations_listed, rot_src, rot_dst, rot_line},
                          .pose_floats = clip->joint_count * (int)(sizeof(sinew_transform) / sizeof(float)),
                          .primary = primary >= 0, .additive = clip->additive, .identity = identity,
                          .other_count = others,
                          .other_tracks = other, .kernels = sinew__plan_kernels_for(simd),
                          .bytes = lay.total};
done:
    sinew__free(alloc, line), sinew__free(alloc, tl), sinew__free(alloc, bd);
    return s;
}

size_t sinew__sampler_bytes(const sinew__sampler *s) { return s ? s->bytes : 0; }

int sinew__sampler_constant_blocks(const sinew__sampler *s)
{
    return s && s->blocks ? s->blocks->length / 8 - s->blocks->animated : 0;
}

/* Timeline x's vector tracks on one key: their stored values. */
static void copy_vectors(const sinew__timeline *x, const float *a, float *out)
{
    for (int i = 0; i < x->vec_count; ++i) memcpy(out + x->vec_dst[i], a + x->vec_src[i], sizeof(float) * 3);
}

/* Timeline x's vector tracks between keys a and b at factor s with the
 * reference's formula. */
static void lerp_vectors(const sinew__timeline *x, const float *a, const float *b, float s, float *out)
{
    for (int i = 0; i < x->vec_count; ++i) {
        const float *va = a + x->vec_src[i], *vb = b + x->vec_src[i];
        float *o = out + x->vec_dst[i];
        for (int c = 0; c < 3; ++c) o[c] = va[c] + (vb[c] - va[c]) * s;
    }
}

/* Timeline x's rotation tracks (in `list`) between its keys k with the
 * reference's formulas (on a key as stored). */
static void rotations_reference(const sinew__timeline *x, const sinew__rotation_list *list, const sinew__keys *k,
                                bool nlerp, float *out)
{
    for (int e = x->rot_first; e < x->rot_first + x->rot_count; ++e) {
        if (k->s == 0.0f)
            memcpy(out + list->dst[e], k->a + list->src[e], sizeof(float) * 4);
        else
            sinew__rotation_reference(k->a + list->src[e], k->b + list->src[e], k->s, nlerp, out + list->dst[e]);
    }
}

/* The exact block layout at time t into `local` and, with `model`, on to
 * model space (sinew__blocks_run_avx2), the floats no track writes from
 * sk's rest pose (the layout's copy where that pose hashes as the copy's;
 * an additive clip's copy is of the identity, so it is always used). */
static void blocks_run(const sinew__sampler *sm, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                       const sinew_mat4 *root, sinew_transform *local, float *pose, sinew_mat4 *model)
{
    const sinew__blocks *p = sm->blocks;
    /* an exact block layout exists only where its kernel runs (blocks_fit) */
    int ka;
    float s = sinew__locate(p->times, p->key_count, t, hints ? &hints[p->hint_track] : NULL, &ka);
    size_t frame = (size_t)p->animated * SINEW__BLOCK_FLOATS;
    const float *a = p->frames + (size_t)ka * frame;
    bool copied = sm->additive || sinew__skeleton_of(sk)->rest_hash == p->under_hash;
    sm->kernels->blocks_run(p, a, s != 0.0f ? a + frame : a, s, (flags & SINEW_SAMPLE_NLERP) != 0,
                           sm->additive ? NULL : sk->rest_pose, copied, sk->parents, root, local, pose, model);
}

bool sinew__sampler_run_model(const sinew__sampler *sm, float t, unsigned flags, int32_t *hints,
                              const sinew_skeleton *sk, const sinew_mat4 *root, sinew_transform *local,
                              sinew_mat4 *model)
{
    if (!sinew__blocks_one_pass(sm, sk, root) || sm->blocks->packed) return false;
    blocks_run(sm, t, flags, hints, sk, root, local, NULL, model);
    return true;
}

bool sinew__sampler_run_pose(const sinew__sampler *sm, float t, unsigned flags, int32_t *hints,
                             const sinew_skeleton *sk, float *pose)
{
    if (!sinew__blocks_pose_order(sm, sk) || sm->blocks->packed) return false;
    blocks_run(sm, t, flags, hints, sk, NULL, NULL, pose, NULL);
    return true;
}

/* The exact form's sample_pose: its block layout, or its timelines and
 * then the tracks they leave to the reference sampler. */
static void exact_pose(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                       sinew_transform *pose)
{
    const sinew__sampler *sm = sinew__clip_of(clip)->sampler;
    if (sm->blocks) {
        blocks_run(sm, t, flags, hints, sk, NULL, pose, NULL, NULL);
        return;
    }
    float *out = (float *)pose;
    /* the pose under the tracks: sk's rest pose, the identity for an additive clip */
    const float *under = &(sm->additive ? sm->identity : sk->rest_pose)->translation.x;
    bool nlerp = (flags & SINEW_SAMPLE_NLERP) != 0;
    /* the pose outside the primary image's stretch from `under`; the
     * primary timeline fills its stretch (the AVX2 kernel blends `under`
     * with its values, the other paths copy it first) */
    uint32_t at = sm->primary ? sm->timelines[0].image_at : 0, len = sm->primary ? sm->timelines[0].image_floats : 0;
    memcpy(out, under, sizeof(float) * at);
    memcpy(out + at + len, under + at + len, sizeof(float) * ((size_t)sm->pose_floats - at - len));
    const sinew__plan_kernels *kernels = sm->kernels;
    /* timelines in chunks: each one's keys found and its vector tracks
     * written, then the chunk's rotations (sixteen at a time across
     * timelines with the AVX2 kernel) */
    enum { CHUNK = 32 };
    sinew__keys keys[CHUNK];
    for (int l0 = 0; l0 < sm->timeline_count; l0 += CHUNK) {
        int l1 = sm->timeline_count - l0 < CHUNK ? sm->timeline_count : l0 + CHUNK;
        for (int l = l0; l < l1; ++l) {
            const sinew__timeline *x = &sm->timelines[l];
            bool fills = l == 0 && sm->primary;
            int ka;
            float s = sinew__locate(x->times, x->key_count, t, hints ? &hints[x->hint_track] : NULL, &ka);
            const float *a = x->frames + (size_t)ka * (size_t)x->frame_floats, *b = s != 0.0f ? a + x->frame_floats : a;
            keys[l - l0] = (sinew__keys){a, b, s};
            if (kernels && s != 0.0f) {
                kernels->timeline_vectors(x, a, b, s, fills ? under : out, out);
                continue;
            }
            if (fills) memcpy(out + at, under + at, sizeof(float) * len);
            if (s == 0.0f)
                copy_vectors(x, a, out);
            else
                lerp_vectors(x, a, b, s, out);
            if (!kernels) rotations_reference(x, &sm->rotations, &keys[l - l0], nlerp, out);
        }
        const sinew__timeline *last = &sm->timelines[l1 - 1];
        if (kernels)
            kernels->rotations(&sm->rotations, sm->timelines[l0].rot_first, last->rot_first + last->rot_count, keys,
                                  l0, nlerp, out);
    }
    for (int i = 0; i < sm->other_count; ++i) {
        const sinew_track *tr = &clip->tracks[sm->other_tracks[i]];
        if (tr->target == SINEW_TARGET_WEIGHTS) continue;
        float v[4];
        sinew_track_sample(tr, t, flags, hints ? &hints[sm->other_tracks[i]] : NULL, v);
        memcpy(out + out_offset(tr), v, sizeof(float) * (size_t)sinew_track_components(tr));
    }
}

static bool exact_model(const sinew_clip *clip, float t, unsigned flags, int32_t *hints, const sinew_skeleton *sk,
                        const sinew_mat4 *root, sinew_transform *local, sinew_mat4 *model)
{
    return sinew__sampler_run_model(sinew__clip_of(clip)->sampler, t, flags, hints, sk, root, local, model);
}

/* The exact form's sample_joint: the joint's tracks by the reference
 * sampler, over its transform in the pose under the clip. */
static void exact_joint(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                        sinew_transform *out)
{
    *out = clip->additive ? sinew__identity_transform : sk->rest_pose[joint];
    float *x = &out->translation.x;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *tr = &clip->tracks[i];
        if (tr->joint != joint || tr->target == SINEW_TARGET_WEIGHTS) continue;
        float v[4];
        sinew_track_sample(tr, t, flags, NULL, v);
        memcpy(x + sinew__target_float(tr->target), v, sizeof(float) * (size_t)sinew_track_components(tr));
    }
}

static bool exact_pose_order(const sinew_clip *clip, float t, unsigned flags, int32_t *hints,
                             const sinew_skeleton *sk, float *pose)
{
    return sinew__sampler_run_pose(sinew__clip_of(clip)->sampler, t, flags, hints, sk, pose);
}

static size_t exact_bytes(const sinew_clip *clip) { return sinew__sampler_bytes(sinew__clip_of(clip)->sampler); }

/* The exact form stands for nothing beside the clip's tracks. */
static void exact_describe(const sinew_clip *clip, sinew__clip_facts *facts) { (void)clip, (void)facts; }

const sinew__clip_form sinew__form_exact = {exact_pose, exact_model, exact_pose_order, exact_joint, exact_bytes,
                                           exact_describe};
