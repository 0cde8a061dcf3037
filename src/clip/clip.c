/* SPDX-License-Identifier: MIT */
/* Clips: creation with validation (every key checked once, so that sampling
 * trusts them), the tracks' storage, the form a clip takes, and queries,
 * which ask the clip's form (its bytes and describe) and call no sampler.
 * Sampling is in sample.c, each form in its own file. */
#include "clip/compressed.h"

#include <stdio.h>

const char *const sinew__target_names[4] = {"translation", "rotation", "scale", "weights"};

/* Checks one track of a description; returns the problem with its place. */
static sinew_result check_track(const sinew_clip_desc *d, int i, sinew_error *err)
{
    const sinew_track *t = &d->tracks[i];
    if (t->joint < 0 || t->joint >= d->joint_count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX,
                           "sinew_clip_create: track %d: joint %d is out of range (%d joints)", i, t->joint,
                           d->joint_count);
    if ((unsigned)t->target > SINEW_TARGET_WEIGHTS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_create: track %d (joint %d): unknown target %d", i, t->joint, (int)t->target);
    const char *what = sinew__target_names[t->target];
    if (t->target == SINEW_TARGET_WEIGHTS && (t->width < 1 || t->width > SINEW_MAX_MORPH_TARGETS))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_create: track %d (joint %d, weights): width %d is not in 1..%d", i, t->joint,
                           t->width, SINEW_MAX_MORPH_TARGETS);
    if ((unsigned)t->interpolation > SINEW_INTERP_CUBICSPLINE)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_clip_create: track %d (joint %d, %s): unknown interpolation %d", i, t->joint, what,
                           (int)t->interpolation);
    if (t->key_count < 1 || !t->times || !t->values)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_create: track %d (joint %d, %s): no keys", i,
                           t->joint, what);
    for (int k = 0; k < t->key_count; ++k) {
        float time = t->times[k];
        if (!isfinite(time))
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                               "sinew_clip_create: track %d (joint %d, %s): key %d time is not finite", i, t->joint,
                               what, k);
        if (k == 0 && time < 0.0f)
            return sinew__fail(err, SINEW_ERROR_KEYS_NOT_INCREASING,
                               "sinew_clip_create: track %d (joint %d, %s): key 0 time %g is negative", i, t->joint,
                               what, (double)time);
        if (k > 0 && !(time > t->times[k - 1]))
            return sinew__fail(err, SINEW_ERROR_KEYS_NOT_INCREASING,
                               "sinew_clip_create: track %d (joint %d, %s): key %d time %g is not after key %d time %g",
                               i, t->joint, what, k, (double)time, k - 1, (double)t->times[k - 1]);
    }
    int c = sinew_track_components(t);
    bool cubic = t->interpolation == SINEW_INTERP_CUBICSPLINE;
    size_t n = sinew__track_floats(t);
    for (size_t v = 0; v < n; ++v) {
        if (!isfinite(t->values[v])) {
            size_t key = v / (size_t)(c * (cubic ? 3 : 1));
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE,
                               "sinew_clip_create: track %d (joint %d, %s): key %zu %s is not finite", i, t->joint,
                               what, key,
                               cubic ? (const char *[]){"in-tangent", "value", "out-tangent"}[(v / c) % 3] : "value");
        }
    }
    if (t->target == SINEW_TARGET_ROTATION) {
        for (int k = 0; k < t->key_count; ++k) {
            const float *q = &t->values[(size_t)k * (cubic ? 12 : 4) + (cubic ? 4 : 0)];
            if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f)
                return sinew__fail(err, SINEW_ERROR_BAD_ROTATION,
                                   "sinew_clip_create: track %d (joint %d, rotation): key %d is the zero quaternion", i,
                                   t->joint, k);
        }
    }
    return SINEW_OK;
}

/* times_of[i]: the first of the n tracks whose key times are track i's
 * (itself where none before), found through an open-addressing table of
 * `cap` slots (a power of two above n; -1 empty) by a hash of the times. */
static void share_times(const sinew_track *tracks, int n, int *times_of, int *table, size_t cap)
{
    for (size_t slot = 0; slot < cap; ++slot) table[slot] = -1;
    for (int i = 0; i < n; ++i) {
        const sinew_track *t = &tracks[i];
        size_t bytes = sizeof(float) * (size_t)t->key_count;
        size_t slot = (size_t)sinew__hash_bytes(t->times, bytes) & (cap - 1);
        times_of[i] = i;
        for (; table[slot] >= 0; slot = (slot + 1) & (cap - 1)) {
            const sinew_track *u = &tracks[table[slot]];
            if (u->key_count == t->key_count && memcmp(u->times, t->times, bytes) == 0) {
                times_of[i] = table[slot];
                break;
            }
        }
        if (times_of[i] == i) table[slot] = i;
    }
}

sinew_clip *sinew_clip_create(const sinew_clip_desc *d, const sinew_options *options, sinew_error *err)
{
    return sinew__clip_create(d, SINEW__CLIP_COPY, options, err);
}

sinew_clip *sinew__clip_create(const sinew_clip_desc *d, int how, const sinew_options *options, sinew_error *err)
{
    bool borrow = how != SINEW__CLIP_COPY;
    sinew__ok(err);
    if (!d) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_create: clip description is NULL");
        return NULL;
    }
    const char *name = d->name ? d->name : "";
    if (d->joint_count < 0 || d->joint_count > SINEW_MAX_JOINTS || d->track_count < 0 ||
        (d->track_count > 0 && !d->tracks)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                    "sinew_clip_create: clip \"%s\": bad counts (%d joints, %d tracks)", name, d->joint_count,
                    d->track_count);
        return NULL;
    }
    if (d->skeleton && d->skeleton->joint_count != d->joint_count) {
        sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "sinew_clip_create: clip \"%s\": %d joints, its skeleton has %d",
                    name, d->joint_count, d->skeleton->joint_count);
        return NULL;
    }
    if (!isfinite(d->duration) || d->duration < 0.0f) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                    "sinew_clip_create: clip \"%s\": duration %g is negative or not finite", name, (double)d->duration);
        return NULL;
    }
    float last_time = 0.0f;
    for (int i = 0; i < d->track_count; ++i) {
        if (check_track(d, i, err) != SINEW_OK) return NULL;
        float end = d->tracks[i].times[d->tracks[i].key_count - 1];
        if (end > last_time) last_time = end;
    }
    if (d->duration > 0.0f && d->duration < last_time) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                    "sinew_clip_create: clip \"%s\": duration %g is shorter than the last key at %g", name,
                    (double)d->duration, (double)last_time);
        return NULL;
    }

    sinew_allocator alloc = sinew__allocator(options);
    /* Duplicate check: one bit per (joint, target). */
    size_t seen_bytes = ((size_t)d->joint_count * 4 + 7) / 8;
    unsigned char *seen = sinew__alloc(&alloc, seen_bytes);
    if (!seen) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_create: clip \"%s\": out of memory", name);
        return NULL;
    }
    memset(seen, 0, seen_bytes);
    for (int i = 0; i < d->track_count; ++i) {
        const sinew_track *t = &d->tracks[i];
        size_t bit = (size_t)t->joint * 4 + (size_t)t->target;
        if (seen[bit / 8] & (1u << (bit % 8))) {
            sinew__free(&alloc, seen);
            sinew__fail(err, SINEW_ERROR_DUPLICATE_TRACK,
                        "sinew_clip_create: clip \"%s\": track %d animates joint %d %s a second time", name, i,
                        t->joint, sinew__target_names[t->target]);
            return NULL;
        }
        seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
    }
    sinew__free(&alloc, seen);

    /* Tracks whose key times are equal (exporters bake every track at one
     * rate) share one copy of them: times_of[i], the first such track. */
    size_t cap = 2;
    while (cap < 2 * (size_t)d->track_count) cap *= 2;
    int *times_of = sinew__alloc(&alloc, sizeof(int) * ((size_t)d->track_count + cap));
    if (!times_of) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_create: clip \"%s\": out of memory", name);
        return NULL;
    }
    share_times(d->tracks, d->track_count, times_of, times_of + d->track_count, cap);

    sinew__layout l = {sizeof(sinew__clip), false};
    size_t off_tracks = sinew__layout_add(&l, (size_t)d->track_count, sizeof(sinew_track), 8);
    /* Per track: its times (unless shared) then values. The same sequence of
     * layout_add calls runs again below to place the pointers. */
    for (int i = 0; i < d->track_count && !borrow; ++i) {
        if (times_of[i] == i) sinew__layout_add(&l, (size_t)d->tracks[i].key_count, sizeof(float), 4);
        sinew__layout_add(&l, sinew__track_floats(&d->tracks[i]), sizeof(float), 4);
    }
    size_t off_name = sinew__layout_add(&l, strlen(name) + 1, 1, 1);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total);
    if (!block) {
        sinew__free(&alloc, times_of);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_create: clip \"%s\": out of memory", name);
        return NULL;
    }
    sinew__clip *made = (sinew__clip *)block;
    sinew_clip *clip = &made->base;
    sinew_track *tracks = (sinew_track *)(block + off_tracks);
    sinew__layout l2 = {off_tracks + (size_t)d->track_count * sizeof(sinew_track), false};
    int renormalized = 0;
    for (int i = 0; i < d->track_count; ++i) {
        const sinew_track *src = &d->tracks[i];
        const float *times = tracks[times_of[i]].times; /* placed already where shared */
        if (borrow) {
            /* the keys stay where they lie: rotations must be unit already */
            bool cubic = src->interpolation == SINEW_INTERP_CUBICSPLINE;
            for (int k = 0; how == SINEW__CLIP_BORROW && src->target == SINEW_TARGET_ROTATION && k < src->key_count;
                 ++k) {
                const float *q = &src->values[(size_t)k * (cubic ? 12 : 4) + (cubic ? 4 : 0)];
                sinew_quat v = sinew__q(q[0], q[1], q[2], q[3]);
                if (fabsf(sinew__q_dot(v, v) - 1.0f) > 1e-5f) {
                    sinew__free(&alloc, times_of);
                    sinew__free(&alloc, block);
                    sinew__fail(err, SINEW_ERROR_BAD_ROTATION, "sinew_clip_create: clip \"%s\": track %d key "
                                "%d: a rotation not of unit length stays unrepaired where it lies", name, i, k);
                    return NULL;
                }
            }
            tracks[i] = *src;
            if (src->target != SINEW_TARGET_WEIGHTS) tracks[i].width = 0;
            /* equal key times as one array, as the plan recognizes them */
            tracks[i].times = d->tracks[times_of[i]].times;
            continue;
        }
        if (times_of[i] == i) {
            float *copy = (float *)(block + sinew__layout_add(&l2, (size_t)src->key_count, sizeof(float), 4));
            memcpy(copy, src->times, sizeof(float) * (size_t)src->key_count);
            times = copy;
        }
        size_t nv = sinew__track_floats(src);
        float *values = (float *)(block + sinew__layout_add(&l2, nv, sizeof(float), 4));
        memcpy(values, src->values, sizeof(float) * nv);
        if (src->target == SINEW_TARGET_ROTATION) {
            bool cubic = src->interpolation == SINEW_INTERP_CUBICSPLINE;
            for (int k = 0; k < src->key_count; ++k) {
                float *q = &values[(size_t)k * (cubic ? 12 : 4) + (cubic ? 4 : 0)];
                sinew_quat v = sinew__q(q[0], q[1], q[2], q[3]);
                if (fabsf(sinew__q_dot(v, v) - 1.0f) > 1e-5f) {
                    v = sinew__q_normalize(v);
                    q[0] = v.x, q[1] = v.y, q[2] = v.z, q[3] = v.w;
                    ++renormalized;
                }
            }
        }
        tracks[i] = *src;
        if (src->target != SINEW_TARGET_WEIGHTS) tracks[i].width = 0;
        tracks[i].times = times;
        tracks[i].values = values;
    }
    sinew__free(&alloc, times_of);
    char *name_copy = (char *)(block + off_name);
    memcpy(name_copy, name, strlen(name) + 1);
    if (renormalized)
        sinew__warn(options, "clip \"%s\": %d rotation key(s) were not unit length and were normalized", name,
                    renormalized);

    clip->name = name_copy;
    clip->duration = d->duration > 0.0f ? d->duration : last_time;
    clip->joint_count = d->joint_count;
    clip->track_count = d->track_count;
    clip->tracks = tracks;
    clip->additive = d->additive;
    made->compressed = NULL;
    made->compressed_block = NULL;
    made->allocator = alloc;
    made->bytes = l.total;
    made->sampler = how == SINEW__CLIP_TO_PACK ? NULL
                                               : sinew__sampler_create(clip, d->skeleton, &alloc, sinew__simd_level(options));
    if (!made->sampler && how != SINEW__CLIP_TO_PACK) {
        sinew__free(&alloc, block);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_create: clip \"%s\": out of memory", name);
        return NULL;
    }
    sinew__clip_set_form(clip, &sinew__form_exact);
    return clip;
}

void sinew__clip_set_form(sinew_clip *clip, const sinew__clip_form *form)
{
    sinew__clip_of(clip)->form = form;
    clip->packed = form == &sinew__form_packed;
    clip->compressed = form == &sinew__form_compressed;
}

void sinew_clip_free(sinew_clip *clip)
{
    if (!clip) return;
    sinew_allocator a = sinew__clip_of(clip)->allocator;
    sinew__free_aligned(&a, sinew__clip_of(clip)->sampler);
    sinew__free_aligned(&a, sinew__clip_of(clip)->compressed_block);
    sinew__free(&a, clip);
}

/* The bytes before a compressed block's copy that hold its reading (the
 * copy then starts on a cache line too). */
enum { READING = 128 };

const char *sinew__clip_compressed(sinew_clip *clip, const unsigned char *bytes, size_t size, bool borrow, int simd)
{
    sinew__clip *made = sinew__clip_of(clip);
    sinew__compressed c;
    if (!borrow) {
        /* checked where it will lie: a copy's alignment is the block's own */
        made->compressed_block = sinew__alloc_aligned(&made->allocator, READING + size);
        if (!made->compressed_block) return "out of memory";
        memcpy((unsigned char *)made->compressed_block + READING, bytes, size);
        bytes = (const unsigned char *)made->compressed_block + READING;
    } else {
        made->compressed_block = sinew__alloc_aligned(&made->allocator, READING);
        if (!made->compressed_block) return "out of memory";
    }
    const char *why = sinew__compressed_open(bytes, size, clip->joint_count, simd, &c);
    if (why) {
        sinew__free_aligned(&made->allocator, made->compressed_block);
        made->compressed_block = NULL;
        return why;
    }
    _Static_assert(sizeof c <= READING, "the compressed form's reading fits before its bytes");
    memcpy(made->compressed_block, &c, sizeof c);
    made->compressed = made->compressed_block;
    sinew__clip_set_form(clip, &sinew__form_compressed);
    return NULL;
}

/* What the clip's form tells of itself. */
static sinew__clip_facts facts_of(const sinew_clip *clip)
{
    sinew__clip_facts f = {{0, 0, 0}, NULL, 0, false, {0}};
    sinew__clip_of(clip)->form->describe(clip, &f);
    return f;
}

const unsigned char *sinew__clip_compressed_bytes(const sinew_clip *clip, size_t *size)
{
    sinew__clip_facts f = clip ? facts_of(clip) : (sinew__clip_facts){0};
    *size = f.block_size;
    return f.block;
}

bool sinew_clip_compression(const sinew_clip *clip, sinew_compress_report *report)
{
    if (!clip || !report) return false;
    sinew__clip_facts f = facts_of(clip);
    if (f.compressed) *report = f.report;
    return f.compressed;
}

size_t sinew_clip_bytes(const sinew_clip *c)
{
    return c ? sinew__clip_of(c)->bytes + sinew__clip_of(c)->form->bytes(c) : 0;
}

int sinew_clip_key_count(const sinew_clip *clip, sinew_track_target target)
{
    int n = 0;
    if (!clip) return 0;
    if ((unsigned)target < 3) n = facts_of(clip).keys[target];
    for (int i = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target == target) n += clip->tracks[i].key_count;
    return n;
}
