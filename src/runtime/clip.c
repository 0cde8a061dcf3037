/* Clips: creation with validation, and sampling (STEP, LINEAR, CUBICSPLINE
 * with glTF's semantics) with per-track key hints. */
#include "../internal.h"

#include <stdalign.h>
#include <stdio.h>

static const char *const target_names[] = {"translation", "rotation", "scale", "weights"};

int sinew_track_components(const sinew_track *t)
{
    switch (t->target) {
    case SINEW_TARGET_ROTATION: return 4;
    case SINEW_TARGET_WEIGHTS: return t->width;
    default: return 3;
    }
}

static size_t value_count(const sinew_track *t)
{
    size_t per_key = (size_t)sinew_track_components(t) * (t->interpolation == SINEW_INTERP_CUBICSPLINE ? 3 : 1);
    return (size_t)t->key_count * per_key;
}

/* Checks one track of a description; returns the problem with its place. */
static sinew_result check_track(const sinew_clip_desc *d, int i, sinew_error *err)
{
    const sinew_track *t = &d->tracks[i];
    if (t->joint < 0 || t->joint >= d->joint_count)
        return sinew__fail(err, SINEW_ERROR_BAD_JOINT_INDEX, "track %d: joint %d is out of range (%d joints)", i,
                           t->joint, d->joint_count);
    if ((unsigned)t->target > SINEW_TARGET_WEIGHTS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "track %d (joint %d): unknown target %d", i, t->joint,
                           (int)t->target);
    const char *what = target_names[t->target];
    if (t->target == SINEW_TARGET_WEIGHTS && (t->width < 1 || t->width > SINEW_MAX_MORPH_TARGETS))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "track %d (joint %d, weights): width %d is not in 1..%d",
                           i, t->joint, t->width, SINEW_MAX_MORPH_TARGETS);
    if ((unsigned)t->interpolation > SINEW_INTERP_CUBICSPLINE)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "track %d (joint %d, %s): unknown interpolation %d", i,
                           t->joint, what, (int)t->interpolation);
    if (t->key_count < 1 || !t->times || !t->values)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "track %d (joint %d, %s): no keys", i, t->joint, what);
    for (int k = 0; k < t->key_count; ++k) {
        float time = t->times[k];
        if (!isfinite(time))
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "track %d (joint %d, %s): key %d time is not finite", i,
                               t->joint, what, k);
        if (k == 0 && time < 0.0f)
            return sinew__fail(err, SINEW_ERROR_KEYS_NOT_INCREASING,
                               "track %d (joint %d, %s): key 0 time %g is negative", i, t->joint, what, (double)time);
        if (k > 0 && !(time > t->times[k - 1]))
            return sinew__fail(err, SINEW_ERROR_KEYS_NOT_INCREASING,
                               "track %d (joint %d, %s): key %d time %g is not after key %d time %g", i, t->joint,
                               what, k, (double)time, k - 1, (double)t->times[k - 1]);
    }
    int c = sinew_track_components(t);
    bool cubic = t->interpolation == SINEW_INTERP_CUBICSPLINE;
    size_t n = value_count(t);
    for (size_t v = 0; v < n; ++v) {
        if (!isfinite(t->values[v])) {
            size_t key = v / (size_t)(c * (cubic ? 3 : 1));
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "track %d (joint %d, %s): key %zu %s is not finite", i,
                               t->joint, what, key,
                               cubic ? (const char *[]){"in-tangent", "value", "out-tangent"}[(v / c) % 3] : "value");
        }
    }
    if (t->target == SINEW_TARGET_ROTATION) {
        for (int k = 0; k < t->key_count; ++k) {
            const float *q = &t->values[(size_t)k * (cubic ? 12 : 4) + (cubic ? 4 : 0)];
            if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f)
                return sinew__fail(err, SINEW_ERROR_BAD_ROTATION,
                                   "track %d (joint %d, rotation): key %d is the zero quaternion", i, t->joint, k);
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
    sinew__ok(err);
    if (!d) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip description is NULL");
        return NULL;
    }
    const char *name = d->name ? d->name : "";
    if (d->joint_count < 0 || d->joint_count > SINEW_MAX_JOINTS || d->track_count < 0 ||
        (d->track_count > 0 && !d->tracks)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": bad counts (%d joints, %d tracks)", name,
                    d->joint_count, d->track_count);
        return NULL;
    }
    if (d->skeleton && d->skeleton->joint_count != d->joint_count) {
        sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "clip \"%s\": %d joints, its skeleton has %d", name,
                    d->joint_count, d->skeleton->joint_count);
        return NULL;
    }
    if (!isfinite(d->duration) || d->duration < 0.0f) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": duration %g is negative or not finite", name,
                    (double)d->duration);
        return NULL;
    }
    float last_time = 0.0f;
    for (int i = 0; i < d->track_count; ++i) {
        if (check_track(d, i, err) != SINEW_OK) return NULL;
        float end = d->tracks[i].times[d->tracks[i].key_count - 1];
        if (end > last_time) last_time = end;
    }
    if (d->duration > 0.0f && d->duration < last_time) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": duration %g is shorter than the last key at %g",
                    name, (double)d->duration, (double)last_time);
        return NULL;
    }

    sinew_allocator alloc = sinew__allocator(options);
    /* Duplicate check: one bit per (joint, target). */
    size_t seen_bytes = ((size_t)d->joint_count * 4 + 7) / 8;
    unsigned char *seen = sinew__alloc(&alloc, seen_bytes);
    if (!seen) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "clip \"%s\": out of memory", name);
        return NULL;
    }
    memset(seen, 0, seen_bytes);
    for (int i = 0; i < d->track_count; ++i) {
        const sinew_track *t = &d->tracks[i];
        size_t bit = (size_t)t->joint * 4 + (size_t)t->target;
        if (seen[bit / 8] & (1u << (bit % 8))) {
            sinew__free(&alloc, seen);
            sinew__fail(err, SINEW_ERROR_DUPLICATE_TRACK, "clip \"%s\": track %d animates joint %d %s a second time",
                        name, i, t->joint, target_names[t->target]);
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
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "clip \"%s\": out of memory", name);
        return NULL;
    }
    share_times(d->tracks, d->track_count, times_of, times_of + d->track_count, cap);

    sinew__layout l = {sizeof(sinew_clip), false};
    size_t off_tracks = sinew__layout_add(&l, (size_t)d->track_count, sizeof(sinew_track), 8);
    /* Per track: its times (unless shared) then values. The same sequence of
     * layout_add calls runs again below to place the pointers. */
    for (int i = 0; i < d->track_count; ++i) {
        if (times_of[i] == i) sinew__layout_add(&l, (size_t)d->tracks[i].key_count, sizeof(float), 4);
        sinew__layout_add(&l, value_count(&d->tracks[i]), sizeof(float), 4);
    }
    size_t off_name = sinew__layout_add(&l, strlen(name) + 1, 1, 1);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total);
    if (!block) {
        sinew__free(&alloc, times_of);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "clip \"%s\": out of memory", name);
        return NULL;
    }
    sinew_clip *clip = (sinew_clip *)block;
    sinew_track *tracks = (sinew_track *)(block + off_tracks);
    sinew__layout l2 = {off_tracks + (size_t)d->track_count * sizeof(sinew_track), false};
    int renormalized = 0;
    for (int i = 0; i < d->track_count; ++i) {
        const sinew_track *src = &d->tracks[i];
        const float *times = tracks[times_of[i]].times; /* placed already where shared */
        if (times_of[i] == i) {
            float *copy = (float *)(block + sinew__layout_add(&l2, (size_t)src->key_count, sizeof(float), 4));
            memcpy(copy, src->times, sizeof(float) * (size_t)src->key_count);
            times = copy;
        }
        size_t nv = value_count(src);
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
    clip->packed = false;
    memset(clip->packed_keys_, 0, sizeof clip->packed_keys_);
    clip->allocator_ = alloc;
    clip->bytes_ = l.total;
    clip->sampler_ = sinew__sampler_create(clip, d->skeleton, &alloc, sinew__simd_level(options));
    if (!clip->sampler_) {
        sinew__free(&alloc, block);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "clip \"%s\": out of memory", name);
        return NULL;
    }
    return clip;
}

void sinew_clip_free(sinew_clip *clip)
{
    if (!clip) return;
    sinew_allocator a = clip->allocator_;
    sinew__free_aligned(&a, clip->sampler_);
    sinew__free(&a, clip);
}

/* True, with the error set, for a packed clip: `what` reads its tracks,
 * which it no longer holds. */
static bool refuse_packed(const sinew_clip *clip, const char *what, sinew_error *err)
{
    if (!clip->packed) return false;
    sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                "%s: clip \"%s\" is packed (sinew_clip_pack) and holds no tracks to read: give the clip it was "
                "packed from", what, clip->name);
    return true;
}

/* Refuses (true, `err` filled) a clip whose tracks cannot be read for a
 * skeleton of `joints` joints: a packed clip, or one animating another
 * joint count (`whose` names the skeleton in the message). */
static bool refuse_clip_for(const sinew_clip *clip, int joints, const char *who, const char *whose,
                            sinew_error *err)
{
    if (refuse_packed(clip, who, err)) return true;
    if (clip->joint_count == joints) return false;
    sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: clip \"%s\" animates %d joints, %s has %d", who, clip->name,
                clip->joint_count, whose, joints);
    return true;
}

sinew_clip *sinew_clip_pack(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_options *options,
                            sinew_pack_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !sk) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "pack: a clip and its skeleton are required");
        return NULL;
    }
    if (refuse_clip_for(clip, sk->joint_count, "pack", "the skeleton", err)) return NULL;
    sinew_allocator alloc = sinew__allocator(options);
    /* the weights tracks stay tracks; the packed keys' hint follows theirs */
    int weights = 0;
    for (int i = 0; i < clip->track_count; ++i) weights += clip->tracks[i].target == SINEW_TARGET_WEIGHTS;
    sinew__pack_result res;
    sinew__sampler *sm = sinew__sampler_pack(clip, sk, weights, &alloc, sinew__simd_level(options), &res);
    if (!sm) {
        if (res.refused_track >= 0) {
            const sinew_track *t = &clip->tracks[res.refused_track];
            char other[48] = "";
            if (res.other_track >= 0) snprintf(other, sizeof other, " than track %d's", res.other_track);
            sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                        "pack: clip \"%s\", track %d (joint %d \"%s\", %s): %s%s; packing takes LINEAR tracks on "
                        "one set of key times, or single keys", clip->name, res.refused_track, t->joint,
                        sk->names[t->joint], target_names[t->target], res.why, other);
        } else if (res.wide_joint >= 0) {
            sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                        "pack: clip \"%s\", joint %d \"%s\": its values span more than 16 bits can cover in floats",
                        clip->name, res.wide_joint, sk->names[res.wide_joint]);
        } else {
            sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "pack: clip \"%s\": out of memory", clip->name);
        }
        return NULL;
    }
    sinew_track *kept = sinew__alloc(&alloc, sizeof *kept * ((size_t)weights + 1));
    if (!kept) {
        sinew__free_aligned(&alloc, sm);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "pack: clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    for (int i = 0, w = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target == SINEW_TARGET_WEIGHTS) kept[w++] = clip->tracks[i];
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count, .duration = clip->duration,
                         .track_count = weights, .tracks = kept, .additive = clip->additive};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    sinew__free(&alloc, kept);
    if (!out) {
        sinew__free_aligned(&alloc, sm);
        return NULL;
    }
    /* the weights tracks' own plan gives way to the packed one */
    sinew__free_aligned(&alloc, out->sampler_);
    out->sampler_ = sm;
    out->packed = true;
    for (int target = 0; target < 3; ++target) out->packed_keys_[target] = res.key_counts[target];
    if (report)
        *report = (sinew_pack_report){res.varying_floats, res.errors[0], res.errors[1], res.errors[2]};
    return out;
}

int sinew_clip_cursor_size(const sinew_clip *clip) { return clip ? clip->track_count + clip->packed : 0; }

size_t sinew_clip_bytes(const sinew_clip *c)
{
    if (!c) return 0;
    return c->bytes_ + sinew__sampler_bytes(c->sampler_);
}

int sinew_clip_key_count(const sinew_clip *clip, sinew_track_target target)
{
    int n = 0;
    if (!clip) return 0;
    if (clip->packed && (unsigned)target < 3) n = clip->packed_keys_[target];
    for (int i = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target == target) n += clip->tracks[i].key_count;
    return n;
}

/* Returns k with times[k] <= t < times[k + 1], given n >= 2 and
 * times[0] <= t < times[n - 1] (any t, NaN included, gives some k in
 * [0, n - 2]). Tries the hint and the few intervals after it before a binary
 * search: forward playback is amortized O(1), a seek O(log n). */
int sinew__find_key(const float *times, int n, float t, int32_t *hint)
{
    int k = hint ? *hint : 0;
    if (k < 0 || k > n - 2) k = 0;
    if (times[k] <= t) {
        for (int step = 0; step < 4 && k <= n - 2; ++step, ++k) {
            if (t < times[k + 1]) {
                if (hint) *hint = k;
                return k;
            }
        }
    }
    int lo = 0, hi = n - 2; /* answer in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (times[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (hint) *hint = lo;
    return lo;
}

void sinew_track_sample(const sinew_track *tr, float t, unsigned flags, int32_t *hint, float *out)
{
    int c = sinew_track_components(tr);
    int n = tr->key_count;
    bool cubic = tr->interpolation == SINEW_INTERP_CUBICSPLINE;
    int stride = cubic ? 3 * c : c;  /* floats per key */
    int value_at = cubic ? c : 0;    /* the value inside a key's floats */
    const float *v = tr->values;

    int k;
    if (n == 1 || t <= tr->times[0]) {
        memcpy(out, &v[value_at], sizeof(float) * (size_t)c);
        return;
    }
    if (t >= tr->times[n - 1]) {
        memcpy(out, &v[(size_t)(n - 1) * stride + value_at], sizeof(float) * (size_t)c);
        return;
    }
    k = sinew__find_key(tr->times, n, t, hint);
    const float *a = &v[(size_t)k * stride];
    const float *b = &v[(size_t)(k + 1) * stride];
    float t0 = tr->times[k], td = tr->times[k + 1] - t0;
    if (t == t0) { /* on a key: its stored value, bit for bit, whatever the interpolation */
        memcpy(out, a + value_at, sizeof(float) * (size_t)c);
        return;
    }
    float s = (t - t0) / td;

    switch (tr->interpolation) {
    case SINEW_INTERP_STEP:
        memcpy(out, a, sizeof(float) * (size_t)c);
        return;
    case SINEW_INTERP_LINEAR:
        if (tr->target == SINEW_TARGET_ROTATION) {
            sinew_quat qa = sinew__q(a[0], a[1], a[2], a[3]), qb = sinew__q(b[0], b[1], b[2], b[3]);
            sinew_quat q = (flags & SINEW_SAMPLE_NLERP) ? sinew_quat_nlerp(qa, qb, s) : sinew_quat_slerp(qa, qb, s);
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        } else {
            for (int i = 0; i < c; ++i) out[i] = a[i] + (b[i] - a[i]) * s;
        }
        return;
    case SINEW_INTERP_CUBICSPLINE: {
        /* glTF: p(s) = (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k
         *            + (-2s^3 + 3s^2) v_k+1 + td (s^3 - s^2) a_k+1,
         * with b_k the out-tangent of key k and a_k+1 the in-tangent of k+1. */
        float s2 = s * s, s3 = s2 * s;
        float h00 = 2.0f * s3 - 3.0f * s2 + 1.0f;
        float h10 = (s3 - 2.0f * s2 + s) * td;
        float h01 = -2.0f * s3 + 3.0f * s2;
        float h11 = (s3 - s2) * td;
        const float *va = a + c, *out_tangent = a + 2 * c;
        const float *in_tangent = b, *vb = b + c;
        for (int i = 0; i < c; ++i)
            out[i] = h00 * va[i] + h10 * out_tangent[i] + h01 * vb[i] + h11 * in_tangent[i];
        if (tr->target == SINEW_TARGET_ROTATION) {
            sinew_quat q = sinew__q_normalize(sinew__q(out[0], out[1], out[2], out[3]));
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        }
        return;
    }
    }
}

/* The clip's time for `time`: wrapped into [0, duration) with
 * SINEW_SAMPLE_LOOP, clamped to [0, duration] otherwise. */
float sinew_clip_time(const sinew_clip *clip, float time, unsigned flags)
{
    float d = clip->duration;
    if (!(flags & SINEW_SAMPLE_LOOP)) return time < 0.0f ? 0.0f : (time > d ? d : time);
    if (!(d > 0.0f)) return 0.0f;
    float t = fmodf(time, d);
    if (t < 0.0f) t += d;
    return t >= d ? 0.0f : t; /* -tiny + d rounds to d */
}

/* The cursor's hints, NULL for none, or an error when it is too small. */
static sinew_result cursor_hints(const sinew_clip *clip, sinew_cursor *cursor, int32_t **hints, sinew_error *err)
{
    *hints = NULL;
    if (!cursor || !cursor->keys) return SINEW_OK;
    int size = clip->track_count + clip->packed; /* sinew_clip_cursor_size */
    if (cursor->count < size)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL, "clip \"%s\": cursor holds %d keys of the %d it takes",
                           clip->name, cursor->count, size);
    *hints = cursor->keys;
    return SINEW_OK;
}

/* The checks of sinew_clip_sample(): the cursor's hints into `hints`. */
static sinew_result check_sample(const sinew_clip *clip, const sinew_skeleton *sk, float time, sinew_cursor *cursor,
                                 const void *out, int output_count, int32_t **hints, sinew_error *err)
{
    if (!clip || !sk || !out)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip sample: clip, skeleton and output are required");
    if (!isfinite(time))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": sample time is not finite", clip->name);
    if (clip->joint_count != sk->joint_count || output_count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                           "clip \"%s\" animates %d joints, skeleton has %d, output holds %d", clip->name,
                           clip->joint_count, sk->joint_count, output_count);
    return cursor_hints(clip, cursor, hints, err);
}

sinew_result sinew_clip_sample(const sinew_clip *clip, const sinew_skeleton *sk, float time, unsigned flags,
                               sinew_cursor *cursor, sinew_transform *out, int output_count, sinew_error *err)
{
    int32_t *hints;
    sinew_result r = check_sample(clip, sk, time, cursor, out, output_count, &hints, err);
    if (r != SINEW_OK) return r;
    float t = sinew_clip_time(clip, time, flags);
    sinew__sampler_run(clip->sampler_, clip, t, flags, hints, sk, out);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_clip_sample_model(const sinew_clip *clip, const sinew_skeleton *sk, float time, unsigned flags,
                                     sinew_cursor *cursor, const sinew_mat4 *root, sinew_transform *local,
                                     sinew_mat4 *model, int count, sinew_error *err)
{
    int32_t *hints;
    sinew_result r = check_sample(clip, sk, time, cursor, model, count, &hints, err);
    if (r != SINEW_OK) return r;
    float t = sinew_clip_time(clip, time, flags);
    if (sinew__sampler_run_model(clip->sampler_, t, flags, hints, sk, root, local, model)) {
        sinew__ok(err);
        return SINEW_OK;
    }
    /* no local pose from the caller: on the stack for skeletons of up to
     * SINEW_SAMPLE_STACK_JOINTS joints (5 KB), so that the two calls run at
     * the SIMD level (the in-place path below goes in joint order: 1.5x
     * slower on pab's rig playing run.fbx) */
    alignas(64) sinew_transform stack_pose[SINEW_SAMPLE_STACK_JOINTS];
    if (!local && count <= SINEW_SAMPLE_STACK_JOINTS) local = stack_pose;
    if (local) {
        sinew__sampler_run(clip->sampler_, clip, t, flags, hints, sk, local);
        return sinew_local_to_model(sk, local, root, model, count, err);
    }
    /* larger skeletons: sampled into model's last 40 bytes per joint, each
     * transform read before its matrix is written over it */
    _Static_assert(sizeof(sinew_mat4) == 64 && sizeof(sinew_transform) == 40, "the in-place layout's sizes");
    sinew_transform *in_place = (sinew_transform *)((unsigned char *)model + 24 * (size_t)count);
    sinew__sampler_run(clip->sampler_, clip, t, flags, hints, sk, in_place);
    sinew__local_to_model_in_order(sk, in_place, root, model, count);
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_clip_sample_weights(const sinew_clip *clip, float time, unsigned flags, sinew_cursor *cursor,
                                       int joint, float *weights, int count, sinew_error *err)
{
    if (!clip || (!weights && count > 0))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "weights sample: clip and output are required");
    if (!isfinite(time))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": sample time is not finite", clip->name);
    if (joint < 0 || joint >= clip->joint_count)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "clip \"%s\": joint %d is out of range (%d joints)",
                           clip->name, joint, clip->joint_count);
    int32_t *hints;
    sinew_result r = cursor_hints(clip, cursor, &hints, err);
    if (r != SINEW_OK) return r;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *tr = &clip->tracks[i];
        if (tr->target != SINEW_TARGET_WEIGHTS || tr->joint != joint) continue;
        if (tr->width != count)
            return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH,
                               "clip \"%s\": track %d animates %d weights of joint %d, the output holds %d",
                               clip->name, i, tr->width, joint, count);
        sinew_track_sample(tr, sinew_clip_time(clip, time, flags), flags, hints ? &hints[i] : NULL, weights);
        break;
    }
    sinew__ok(err);
    return SINEW_OK;
}

/* Up to five names, comma separated, into buf. */
static void name_list(char *buf, size_t cap, const char *const *names, const int *which, int count)
{
    buf[0] = '\0';
    for (int i = 0; i < count && i < 5; ++i) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s\"%s\"", i ? ", " : "", names[which[i]]);
    }
    if (count > 5) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, ", ...");
    }
}

sinew_clip *sinew_clip_retarget(const sinew_clip *clip, const sinew_skeleton *from, const sinew_skeleton *to,
                                const sinew_options *options, sinew_retarget_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !from || !to) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "retarget: clip and both skeletons are required");
        return NULL;
    }
    if (refuse_clip_for(clip, from->joint_count, "retarget", "`from`", err)) return NULL;
    sinew_allocator alloc = sinew__allocator(options);
    sinew_track *tracks = sinew__alloc(&alloc, sizeof *tracks * ((size_t)clip->track_count + 1));
    int *dropped = sinew__alloc(&alloc, sizeof *dropped * ((size_t)clip->track_count + 1));
    int *unanimated = sinew__alloc(&alloc, sizeof *unanimated * ((size_t)to->joint_count + 1));
    if (!tracks || !dropped || !unanimated) {
        sinew__free(&alloc, tracks), sinew__free(&alloc, dropped), sinew__free(&alloc, unanimated);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "retarget \"%s\": out of memory", clip->name);
        return NULL;
    }
    int kept = 0, lost = 0, bare = 0;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        int j = sinew_skeleton_find_joint(to, from->names[t->joint]);
        if (j < 0) {
            /* one name per joint, not per track */
            bool seen = false;
            for (int k = 0; k < lost && !seen; ++k) seen = dropped[k] == t->joint;
            if (!seen) dropped[lost++] = t->joint;
            continue;
        }
        tracks[kept] = *t;
        tracks[kept++].joint = j;
    }
    for (int j = 0; j < to->joint_count; ++j)
        if (sinew_skeleton_find_joint(from, to->names[j]) < 0) unanimated[bare++] = j;
    sinew_clip_desc d = {.name = clip->name, .joint_count = to->joint_count,
        .duration = clip->duration, .track_count = kept, .tracks = tracks, .additive = clip->additive,
        .skeleton = to};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    if (out) {
        char names[512];
        if (lost) {
            name_list(names, sizeof names, from->names, dropped, lost);
            sinew__warn(options, "clip \"%s\": %d animated joint(s) are not in the skeleton, their tracks are left "
                                 "out: %s", clip->name, lost, names);
        }
        if (bare) {
            name_list(names, sizeof names, to->names, unanimated, bare);
            sinew__warn(options, "clip \"%s\": %d joint(s) of the skeleton are not in the clip's skeleton and keep "
                                 "their rest pose: %s", clip->name, bare, names);
        }
        if (report) *report = (sinew_retarget_report){kept, clip->track_count - kept, bare};
    }
    sinew__free(&alloc, tracks), sinew__free(&alloc, dropped), sinew__free(&alloc, unanimated);
    return out;
}

/* The linear map that turns a value (or a tangent) of `target` into its
 * difference over the reference value `ref`: translations subtract (tangents
 * are unchanged: the derivative of v - ref is v's), rotations take
 * conj(ref) * v, scales divide. */
static void additive_map(sinew_track_target target, const float *ref, bool tangent, float *v)
{
    switch (target) {
    case SINEW_TARGET_TRANSLATION:
        if (!tangent)
            for (int k = 0; k < 3; ++k) v[k] -= ref[k];
        break;
    case SINEW_TARGET_ROTATION: {
        sinew_quat q = sinew__q_mul(sinew__q(-ref[0], -ref[1], -ref[2], ref[3]), sinew__q(v[0], v[1], v[2], v[3]));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        break;
    }
    case SINEW_TARGET_SCALE:
        for (int k = 0; k < 3; ++k) v[k] = ref[k] != 0.0f ? v[k] / ref[k] : (tangent ? 0.0f : 1.0f);
        break;
    case SINEW_TARGET_WEIGHTS: break;
    }
}

sinew_clip *sinew_clip_make_additive(const sinew_clip *clip, const sinew_skeleton *sk,
                                     sinew_additive_reference reference, const sinew_options *options,
                                     sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !sk || (reference != SINEW_ADDITIVE_FIRST_FRAME && reference != SINEW_ADDITIVE_REST_POSE)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "additive clip: a clip, its skeleton and a known reference");
        return NULL;
    }
    if (refuse_clip_for(clip, sk->joint_count, "additive clip", "the skeleton", err)) return NULL;
    if (clip->additive) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "additive clip: \"%s\" is additive already", clip->name);
        return NULL;
    }
    sinew_allocator alloc = sinew__allocator(options);
    sinew__layout l = {0, false};
    size_t off_tracks = sinew__layout_add(&l, (size_t)clip->track_count, sizeof(sinew_track), 8);
    for (int i = 0; i < clip->track_count; ++i) sinew__layout_add(&l, value_count(&clip->tracks[i]), sizeof(float), 4);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&alloc, l.total ? l.total : 1);
    if (!block) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "additive clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    sinew_track *tracks = (sinew_track *)(block + off_tracks);
    sinew__layout l2 = {off_tracks + (size_t)clip->track_count * sizeof(sinew_track), false};
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *src = &clip->tracks[i];
        size_t nv = value_count(src);
        float *values = (float *)(block + sinew__layout_add(&l2, nv, sizeof(float), 4));
        memcpy(values, src->values, sizeof(float) * nv);
        tracks[i] = *src;
        tracks[i].values = values;
        if (src->target == SINEW_TARGET_WEIGHTS) continue;
        float ref[4];
        if (reference == SINEW_ADDITIVE_FIRST_FRAME) {
            sinew_track_sample(src, 0.0f, 0, NULL, ref);
        } else {
            const sinew_transform *r = &sk->rest_pose[src->joint];
            const float *from = src->target == SINEW_TARGET_TRANSLATION ? &r->translation.x
                                : src->target == SINEW_TARGET_ROTATION  ? &r->rotation.x
                                                                        : &r->scale.x;
            memcpy(ref, from, sizeof(float) * (size_t)sinew_track_components(src));
        }
        int width = sinew_track_components(src);
        bool cubic = src->interpolation == SINEW_INTERP_CUBICSPLINE;
        for (size_t at = 0, e = 0; at < nv; at += (size_t)width, ++e)
            additive_map(src->target, ref, cubic && e % 3 != 1, &values[at]);
    }
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count,
        .duration = clip->duration, .track_count = clip->track_count, .tracks = tracks, .additive = true,
        .skeleton = sk};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    sinew__free(&alloc, block);
    return out;
}

/* How far key value v lies from the value kept, k (a target's own measure:
 * distance, rotation angle, largest component difference), in double. */
static double deviation(sinew_track_target target, const float *v, const float *k)
{
    double d = 0.0;
    if (target == SINEW_TARGET_ROTATION) {
        /* the angle between unit quaternions a and +-b is 4 atan2(|a - b|, |a + b|) (b on a's side) */
        double a[4], b[4], la = 0.0, lb = 0.0, dot = 0.0, minus = 0.0, plus = 0.0;
        for (int c = 0; c < 4; ++c) a[c] = v[c], b[c] = k[c], la += a[c] * a[c], lb += b[c] * b[c];
        la = sqrt(la), lb = sqrt(lb);
        for (int c = 0; c < 4; ++c) a[c] /= la, b[c] /= lb, dot += a[c] * b[c];
        for (int c = 0; c < 4; ++c) {
            double bc = dot < 0.0 ? -b[c] : b[c];
            minus += (a[c] - bc) * (a[c] - bc), plus += (a[c] + bc) * (a[c] + bc);
        }
        return 4.0 * atan2(sqrt(minus), sqrt(plus));
    }
    for (int c = 0; c < 3; ++c) {
        double e = (double)v[c] - (double)k[c];
        if (target == SINEW_TARGET_TRANSLATION)
            d += e * e;
        else if (fabs(e) > d)
            d = fabs(e);
    }
    return target == SINEW_TARGET_TRANSLATION ? sqrt(d) : d;
}

sinew_clip *sinew_clip_optimize(const sinew_clip *clip, const sinew_clip_tolerance *tolerance,
                                const sinew_skeleton *skeleton, const sinew_options *options,
                                sinew_optimize_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !tolerance) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "optimize: a clip and a tolerance are required");
        return NULL;
    }
    if (refuse_packed(clip, "optimize", err)) return NULL;
    const float limit[3] = {tolerance->translation, tolerance->rotation, tolerance->scale};
    for (int target = 0; target < 3; ++target)
        if (!(limit[target] >= 0.0f)) {
            sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "optimize \"%s\": the %s tolerance %g is not >= 0",
                        clip->name, target_names[target], (double)limit[target]);
            return NULL;
        }
    sinew_allocator alloc = sinew__allocator(options);
    size_t n = (size_t)clip->track_count;
    sinew_track *tracks = sinew__alloc(&alloc, sizeof *tracks * (n + 1));
    float *kept = sinew__alloc(&alloc, sizeof *kept * 4 * (n + 1)); /* the one key of each reduced track */
    if (!tracks || !kept) {
        sinew__free(&alloc, tracks), sinew__free(&alloc, kept);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "optimize \"%s\": out of memory", clip->name);
        return NULL;
    }
    sinew_optimize_report r = {0};
    float *worst[3] = {&r.translation_error, &r.rotation_error, &r.scale_error};
    for (size_t i = 0; i < n; ++i) {
        const sinew_track *t = &clip->tracks[i];
        tracks[i] = *t;
        if (t->target == SINEW_TARGET_WEIGHTS || t->interpolation == SINEW_INTERP_CUBICSPLINE || t->key_count < 2)
            continue;
        int width = sinew_track_components(t);
        double far = 0.0;
        for (int k = 1; k < t->key_count && far <= limit[t->target]; ++k) {
            double d = deviation(t->target, t->values + (size_t)k * (size_t)width, t->values);
            if (d > far) far = d;
        }
        if (!(far <= limit[t->target])) continue;
        float *v = kept + 4 * i;
        for (int c = 0; c < width; ++c) v[c] = t->target == SINEW_TARGET_ROTATION ? t->values[c] : t->values[c] + 0.0f;
        tracks[i].key_count = 1, tracks[i].values = v;
        r.constant_tracks += 1, r.removed_keys += t->key_count - 1;
        if ((float)far > *worst[t->target]) *worst[t->target] = (float)far;
    }
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count, .duration = clip->duration,
                         .track_count = clip->track_count, .tracks = tracks, .additive = clip->additive,
                         .skeleton = skeleton};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    if (out && report) *report = r;
    sinew__free(&alloc, tracks), sinew__free(&alloc, kept);
    return out;
}
