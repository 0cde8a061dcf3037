/* SPDX-License-Identifier: MIT */
/* Timelines: user tracks sampled on a clip's time, events crossed by a
 * step of it, and the compression of user tracks to their tolerance. */
#include "layer/timeline.h"

#include "clip/clip_internal.h"
#include "math/math_internal.h"

#include <math.h>

/* Most passes a span may cover: pass * event count stays far inside int64,
 * and pass * duration inside a double's exact integers. */
#define MAX_PASSES ((int64_t)1 << 40)
/* Most keys one kept segment may stand for when compressing: the check of
 * a segment reads its keys, so this keeps compression linear. */
enum { MAX_SKIPPED = 64 };

typedef struct sinew__timeline {
    sinew_timeline base;
    sinew_allocator allocator;
    int *offsets;         /* per track: where its values start in a sample of all */
    /* The events as a looping timeline meets them: an event at the duration
     * is the next pass's start, so it comes first, at 0, one pass later. */
    int *loop_order;      /* event indices */
    float *loop_times;
    int loop_shifted;     /* how many of them lie at the duration (the first ones) */
    float *event_times;   /* the events' times in their order (sorted) */
    sinew__timeline_grid *grids; /* compressed: track_count * 4; NULL otherwise */
} sinew__timeline;

static sinew__timeline *timeline_of(const sinew_timeline *t) { return (sinew__timeline *)(uintptr_t)t; }

const sinew__timeline_grid *sinew__timeline_grids(const sinew_timeline *timeline)
{
    return timeline_of(timeline)->grids;
}

/* ---- creation ------------------------------------------------------------ */

static sinew_result check_track(const sinew_user_track *t, int i, float *last, sinew_error *err)
{
    const char *who = "sinew_timeline_create";
    if (t->components < 1 || t->components > 4 || (t->quaternion && t->components != 4))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: user track %d: %d components (1 .. 4, 4 for a quaternion)",
                           who, i, t->components);
    if (t->key_count < 1 || !t->times || !t->values)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: user track %d: %d keys, times %s, values %s", who, i,
                           t->key_count, t->times ? "given" : "NULL", t->values ? "given" : "NULL");
    if (!(t->tolerance >= 0.0f) || !isfinite(t->tolerance))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: user track %d: tolerance %g is negative or not finite",
                           who, i, (double)t->tolerance);
    for (int k = 0; k < t->key_count; ++k) {
        float time = t->times[k];
        if (!isfinite(time))
            return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: user track %d key %d: time is not finite", who, i, k);
        if (time < 0.0f || (k > 0 && !(time > t->times[k - 1])))
            return sinew__fail(err, SINEW_ERROR_KEYS_NOT_INCREASING,
                               "%s: user track %d key %d: time %g is negative or not after the key before", who, i, k,
                               (double)time);
        const float *v = &t->values[(size_t)k * (size_t)t->components];
        for (int c = 0; c < t->components; ++c)
            if (!isfinite(v[c]))
                return sinew__fail(err, SINEW_ERROR_NOT_FINITE, "%s: user track %d key %d: value %d is not finite", who,
                                   i, k, c);
        if (t->quaternion && v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f && v[3] == 0.0f)
            return sinew__fail(err, SINEW_ERROR_BAD_ROTATION, "%s: user track %d key %d: a zero quaternion", who, i, k);
    }
    if (t->times[t->key_count - 1] > *last) *last = t->times[t->key_count - 1];
    return SINEW_OK;
}

/* Sorts event indices by time, equal times in the given order (a merge
 * sort: O(n log n) whatever the order given). */
static void sort_events(const sinew_event *events, int *order, int *tmp, int n)
{
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi) tmp[o++] = events[order[b]].time < events[order[a]].time ? order[b++] : order[a++];
            while (a < mid) tmp[o++] = order[a++];
            while (b < hi) tmp[o++] = order[b++];
        }
        memcpy(order, tmp, sizeof(int) * (size_t)n);
    }
}

sinew_timeline *sinew__timeline_make(const sinew_timeline_desc *d, const sinew__timeline_grid *grids,
                                     const sinew_options *options, sinew_error *err)
{
    const char *who = "sinew_timeline_create";
    sinew__ok(err);
    if (!d) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: description is NULL", who);
        return NULL;
    }
    if (d->track_count < 0 || d->event_count < 0 || (d->track_count > 0 && !d->tracks) ||
        (d->event_count > 0 && !d->events)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: bad counts (%d user tracks, %d events)", who, d->track_count,
                    d->event_count);
        return NULL;
    }
    if (!isfinite(d->duration) || d->duration < 0.0f) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: duration %g is negative or not finite", who, (double)d->duration);
        return NULL;
    }
    float last = 0.0f;
    size_t floats = 0, keys = 0, names = 0;
    for (int i = 0; i < d->track_count; ++i) {
        if (check_track(&d->tracks[i], i, &last, err) != SINEW_OK) return NULL;
        keys += (size_t)d->tracks[i].key_count;
        floats += (size_t)d->tracks[i].key_count * (size_t)(d->tracks[i].components + 1);
        names += strlen(d->tracks[i].name ? d->tracks[i].name : "") + 1;
    }
    for (int e = 0; e < d->event_count; ++e) {
        const sinew_event *ev = &d->events[e];
        if (!ev->name) {
            sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: event %d has no name", who, e);
            return NULL;
        }
        if (!isfinite(ev->time) || ev->time < 0.0f) {
            sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: event %d (\"%s\"): time %g is negative or not finite", who, e,
                        ev->name, (double)ev->time);
            return NULL;
        }
        if (ev->time > last) last = ev->time;
        names += strlen(ev->name) + 1;
    }
    if (d->duration > 0.0f && d->duration < last) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: duration %g is shorter than a key or event at %g", who,
                    (double)d->duration, (double)last);
        return NULL;
    }
    int tn = d->track_count, en = d->event_count;
    sinew__layout l = {sizeof(sinew__timeline), false};
    size_t o_tracks = sinew__layout_add(&l, (size_t)tn, sizeof(sinew_user_track), 8);
    size_t o_offsets = sinew__layout_add(&l, (size_t)tn, sizeof(int), 4);
    size_t o_events = sinew__layout_add(&l, (size_t)en, sizeof(sinew_event), 8);
    size_t o_order = sinew__layout_add(&l, (size_t)en * 2, sizeof(int), 4); /* loop order, then sort scratch */
    size_t o_ltimes = sinew__layout_add(&l, (size_t)en * 2, sizeof(float), 4); /* loop times, event times */
    size_t o_grids = sinew__layout_add(&l, grids ? (size_t)tn * 4 : 0, sizeof(sinew__timeline_grid), 4);
    size_t o_floats = sinew__layout_add(&l, floats, sizeof(float), 4);
    size_t o_steps = sinew__layout_add(&l, keys, 1, 1);
    size_t o_names = sinew__layout_add(&l, names, 1, 1);
    sinew_allocator a = sinew__allocator(options);
    unsigned char *block = l.overflow ? NULL : sinew__alloc(&a, l.total);
    if (!block) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
        return NULL;
    }
    sinew__timeline *made = (sinew__timeline *)block;
    memset(made, 0, sizeof *made);
    made->allocator = a;
    sinew_user_track *tracks = (sinew_user_track *)(block + o_tracks);
    made->offsets = (int *)(block + o_offsets);
    sinew_event *events = (sinew_event *)(block + o_events);
    made->loop_order = (int *)(block + o_order);
    made->loop_times = (float *)(block + o_ltimes);
    made->event_times = made->loop_times + en;
    made->grids = grids ? (sinew__timeline_grid *)(block + o_grids) : NULL;
    if (grids) memcpy(made->grids, grids, sizeof *grids * (size_t)tn * 4);
    float *fl = (float *)(block + o_floats);
    uint8_t *steps = block + o_steps;
    char *name = (char *)(block + o_names);
    int renormalized = 0, value_count = 0;
    for (int i = 0; i < tn; ++i) {
        const sinew_user_track *src = &d->tracks[i];
        size_t n = (size_t)src->key_count, c = (size_t)src->components;
        tracks[i] = *src;
        size_t len = strlen(src->name ? src->name : "") + 1;
        memcpy(name, src->name ? src->name : "", len);
        tracks[i].name = name, name += len;
        memcpy(fl, src->times, sizeof(float) * n);
        tracks[i].times = fl, fl += n;
        float *values = fl;
        memcpy(values, src->values, sizeof(float) * n * c);
        tracks[i].values = values, fl += n * c;
        for (size_t k = 0; k < n; ++k) steps[k] = src->step && src->step[k] ? 1 : 0;
        tracks[i].step = steps, steps += n;
        for (size_t k = 0; src->quaternion && k < n; ++k) {
            float *q = &values[k * 4];
            sinew_quat v = sinew__q(q[0], q[1], q[2], q[3]);
            if (fabsf(sinew__q_dot(v, v) - 1.0f) > 1e-5f) {
                v = sinew__q_normalize(v);
                q[0] = v.x, q[1] = v.y, q[2] = v.z, q[3] = v.w;
                ++renormalized;
            }
        }
        made->offsets[i] = value_count;
        value_count += src->components;
    }
    int *order = made->loop_order, *scratch = made->loop_order + en;
    sort_events(d->events, order, scratch, en);
    for (int e = 0; e < en; ++e) {
        const sinew_event *src = &d->events[order[e]];
        size_t len = strlen(src->name) + 1;
        memcpy(name, src->name, len);
        events[e] = (sinew_event){name, src->time};
        made->event_times[e] = src->time;
        name += len;
    }
    float duration = d->duration > 0.0f ? d->duration : last;
    /* the loop order: events at the duration first (at 0), then the rest */
    int at_end = 0;
    while (at_end < en && events[en - 1 - at_end].time >= duration) ++at_end;
    for (int e = 0; e < en; ++e) {
        int src = e < at_end ? en - at_end + e : e - at_end;
        order[e] = src;
        made->loop_times[e] = e < at_end ? 0.0f : events[src].time;
    }
    made->loop_shifted = at_end;
    if (renormalized)
        sinew__warn(options, "sinew_timeline_create: %d quaternion key(s) were not unit length and were normalized",
                    renormalized);
    sinew_timeline *t = &made->base;
    t->duration = duration;
    t->track_count = tn;
    t->tracks = tracks;
    t->value_count = value_count;
    t->event_count = en;
    t->events = events;
    t->compressed = grids != NULL;
    return t;
}

sinew_timeline *sinew_timeline_create(const sinew_timeline_desc *desc, const sinew_options *options, sinew_error *err)
{
    return sinew__timeline_make(desc, NULL, options, err);
}

void sinew_timeline_free(sinew_timeline *timeline)
{
    if (!timeline) return;
    sinew_allocator a = timeline_of(timeline)->allocator;
    sinew__free(&a, timeline);
}

void sinew__timeline_set_allocator(sinew_timeline *timeline, sinew_allocator alloc)
{
    timeline_of(timeline)->allocator = alloc;
}

int sinew_timeline_find_track(const sinew_timeline *timeline, const char *name)
{
    if (!timeline || !name) return -1;
    for (int i = 0; i < timeline->track_count; ++i)
        if (strcmp(timeline->tracks[i].name, name) == 0) return i;
    return -1;
}

int sinew_timeline_track_offset(const sinew_timeline *timeline, int index)
{
    if (!timeline || index < 0 || index >= timeline->track_count) return -1;
    return timeline_of(timeline)->offsets[index];
}

/* ---- sampling ------------------------------------------------------------ */

void sinew_user_track_sample(const sinew_user_track *tr, float t, unsigned flags, int32_t *hint, float *out)
{
    int c = tr->components, n = tr->key_count;
    const float *v = tr->values;
    if (n == 1 || !(t > tr->times[0])) {
        memcpy(out, v, sizeof(float) * (size_t)c);
    } else if (t >= tr->times[n - 1]) {
        memcpy(out, &v[(size_t)(n - 1) * (size_t)c], sizeof(float) * (size_t)c);
    } else {
        int k = sinew__find_key(tr->times, n, t, hint);
        const float *a = &v[(size_t)k * (size_t)c], *b = a + c;
        float t0 = tr->times[k];
        if (t == t0 || (tr->step && tr->step[k])) {
            memcpy(out, a, sizeof(float) * (size_t)c); /* on a key, or held: the key bit for bit */
            return;
        }
        sinew__lerp_key(a, b, c, tr->quaternion, (t - t0) / (tr->times[k + 1] - t0), flags, out);
        return;
    }
    if (tr->quaternion) { /* keys are unit to rounding: as the slerp's results are */
        sinew_quat q = sinew__q_normalize(sinew__q(out[0], out[1], out[2], out[3]));
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    }
}

/* The time a timeline samples for `time`: as sinew_clip_time() does. */
static float timeline_time(const sinew_timeline *tl, float time, unsigned flags)
{
    float d = tl->duration;
    if (!(flags & SINEW_SAMPLE_LOOP)) return time < 0.0f ? 0.0f : (time > d ? d : time);
    if (!(d > 0.0f)) return 0.0f;
    float t = fmodf(time, d);
    if (t < 0.0f) t += d;
    return t >= d ? 0.0f : t;
}

sinew_result sinew_timeline_sample(const sinew_timeline *timeline, float time, unsigned flags, int32_t *hints,
                                   float *values, int value_count, sinew_error *err)
{
    if (!timeline || (!values && value_count > 0))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_timeline_sample: NULL timeline or values");
    if (!isfinite(time))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_timeline_sample: time %g is not finite", (double)time);
    if (value_count != timeline->value_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "sinew_timeline_sample: %d values for the %d of its user tracks",
                           value_count, timeline->value_count);
    float t = timeline_time(timeline, time, flags);
    const int *offsets = timeline_of(timeline)->offsets;
    for (int i = 0; i < timeline->track_count; ++i)
        sinew_user_track_sample(&timeline->tracks[i], t, flags, hints ? &hints[i] : NULL, values + offsets[i]);
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- events ---------------------------------------------------------------- */

sinew_event_span sinew_playback_span(const sinew_playback *before, const sinew_playback *after, int wraps,
                                     const sinew_timeline *timeline, float weight)
{
    sinew_event_span s = {timeline, weight, false, 0, 0, 0.0f, 0.0f};
    if (!before || !after) return s;
    s.loop = after->loop;
    s.from_time = before->time, s.to_time = after->time;
    s.to_pass = s.loop ? wraps : 0;
    return s;
}

void sinew_crossfade_spans(const sinew_crossfade *before, const sinew_crossfade *after, const int wraps[2],
                           const sinew_timeline *from, const sinew_timeline *to, sinew_event_span spans[2])
{
    float w = after ? sinew_crossfade_weight(after) : 0.0f;
    spans[0] = sinew_playback_span(before ? &before->from : NULL, after ? &after->from : NULL, wraps ? wraps[0] : 0,
                                   from, 1.0f - w);
    spans[1] = sinew_playback_span(before ? &before->to : NULL, after ? &after->to : NULL, wraps ? wraps[1] : 0, to, w);
}

/* A point of a timeline's time: a pass and a time in it. Looping, a time at
 * the duration is the next pass's 0. */
typedef struct point {
    int64_t pass;
    float time;
} point;

static int compare(point a, point b)
{
    if (a.pass != b.pass) return a.pass < b.pass ? -1 : 1;
    return a.time < b.time ? -1 : a.time > b.time ? 1 : 0;
}

/* One span's walk over its events in the order crossed. */
typedef struct walk {
    const sinew_timeline *tl;
    const int *order;   /* event indices in the order they lie */
    const float *times; /* their times in that order */
    int n;
    bool forward, loop;
    point from, to, at; /* at.pass: the next hit's pass (its time: times[index]) */
    int index;          /* into order */
    int shifted;        /* looping: the first `shifted` in order lie at the duration */
    double span_length; /* unwrapped length of the step (> 0) */
    bool done;
} walk;

/* The first index i with times[i] > t (forward) or times[i] >= t. */
static int bound(const float *times, int n, float t, bool strictly_after)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strictly_after ? times[mid] <= t : times[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void walk_check(walk *w)
{
    if (w->done) return;
    point here = {w->at.pass, w->times[w->index]};
    int c = compare(here, w->to);
    w->done = w->forward ? c > 0 : c < 0;
}

static void walk_start(walk *w)
{
    w->done = w->n == 0 || compare(w->from, w->to) == 0;
    if (w->done) return;
    w->at.pass = w->from.pass;
    if (w->forward) {
        w->index = bound(w->times, w->n, w->from.time, true);
        if (w->index == w->n) {
            if (!w->loop) {
                w->done = true;
                return;
            }
            w->index = 0, ++w->at.pass;
        }
    } else {
        w->index = bound(w->times, w->n, w->from.time, false) - 1;
        if (w->index < 0) {
            if (!w->loop) {
                w->done = true;
                return;
            }
            w->index = w->n - 1, --w->at.pass;
        }
    }
    walk_check(w);
}

static void walk_next(walk *w)
{
    if (w->forward) {
        if (++w->index == w->n) {
            if (!w->loop) {
                w->done = true;
                return;
            }
            w->index = 0, ++w->at.pass;
        }
    } else {
        if (--w->index < 0) {
            if (!w->loop) {
                w->done = true;
                return;
            }
            w->index = w->n - 1, --w->at.pass;
        }
    }
    walk_check(w);
}

/* The fraction of its step at which the walk's next hit lies. */
static double walk_fraction(const walk *w)
{
    double d = w->tl->duration;
    double x = (double)w->at.pass * d + (double)w->times[w->index];
    double a = (double)w->from.pass * d + (double)w->from.time;
    return fabs(x - a) / w->span_length;
}

/* Events lying at or before p (forward) or strictly before p. */
static int64_t count_to(const walk *w, point p, bool inclusive)
{
    return p.pass * (int64_t)w->n + bound(w->times, w->n, p.time, inclusive);
}

static sinew_result walk_init(walk *w, const sinew_event_span *s, int i, sinew_error *err)
{
    const char *who = "sinew_events_crossed";
    const sinew_timeline *tl = s->timeline;
    if (!tl) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: span %d has no timeline", who, i);
    float d = tl->duration;
    if (!isfinite(s->from_time) || !isfinite(s->to_time) || s->from_time < 0.0f || s->to_time < 0.0f ||
        s->from_time > d || s->to_time > d)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: span %d: times %g and %g (0 .. %g)", who, i,
                           (double)s->from_time, (double)s->to_time, (double)d);
    if (!s->loop && (s->from_pass != 0 || s->to_pass != 0))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: span %d: passes %lld and %lld without loop", who, i,
                           (long long)s->from_pass, (long long)s->to_pass);
    if (s->from_pass > MAX_PASSES || s->from_pass < -MAX_PASSES || s->to_pass > MAX_PASSES || s->to_pass < -MAX_PASSES)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: span %d: passes beyond 2^40", who, i);
    sinew__timeline *made = timeline_of(tl);
    *w = (walk){0};
    w->tl = tl;
    w->n = tl->event_count;
    w->loop = s->loop;
    if (s->loop) {
        w->order = made->loop_order, w->times = made->loop_times, w->shifted = made->loop_shifted;
    } else {
        w->order = NULL, w->times = made->event_times; /* the events' own order */
    }
    w->from = (point){s->from_pass, s->from_time}, w->to = (point){s->to_pass, s->to_time};
    /* looping, a time at the duration is the next pass's start */
    if (s->loop && d > 0.0f && w->from.time >= d) w->from = (point){w->from.pass + 1, 0.0f};
    if (s->loop && d > 0.0f && w->to.time >= d) w->to = (point){w->to.pass + 1, 0.0f};
    w->forward = compare(w->to, w->from) > 0;
    double dd = d;
    w->span_length = fabs(((double)w->to.pass - (double)w->from.pass) * dd + ((double)w->to.time - (double)w->from.time));
    if (!(w->span_length > 0.0)) w->span_length = 1.0;
    return SINEW_OK;
}

sinew_result sinew_events_crossed(const sinew_event_span *spans, int count, sinew_event_hit *hits, int capacity,
                                  int64_t *total, sinew_error *err)
{
    const char *who = "sinew_events_crossed";
    if (total) *total = 0;
    if ((!spans && count > 0) || count < 0 || capacity < 0 || (!hits && capacity > 0))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL spans or hits, or a negative count", who);
    if (count > SINEW_MAX_EVENT_SPANS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %d spans, more than %d", who, count,
                           SINEW_MAX_EVENT_SPANS);
    walk w[SINEW_MAX_EVENT_SPANS];
    int64_t sum = 0;
    for (int i = 0; i < count; ++i) {
        sinew_result r = walk_init(&w[i], &spans[i], i, err);
        if (r != SINEW_OK) return r;
        walk_start(&w[i]);
        if (w[i].n == 0 || compare(w[i].from, w[i].to) == 0) continue;
        sum += w[i].forward ? count_to(&w[i], w[i].to, true) - count_to(&w[i], w[i].from, true)
                            : count_to(&w[i], w[i].from, false) - count_to(&w[i], w[i].to, false);
    }
    /* the first `capacity` hits of all walks, merged by fraction */
    int written = 0;
    while (written < capacity) {
        int best = -1;
        double best_f = 0.0;
        for (int i = 0; i < count; ++i) {
            if (w[i].done) continue;
            double f = walk_fraction(&w[i]);
            if (best < 0 || f < best_f) best = i, best_f = f;
        }
        if (best < 0) break;
        walk *b = &w[best];
        int e = b->order ? b->order[b->index] : b->index;
        /* an event at the duration met at the next pass's start */
        int64_t pass = b->at.pass - (b->loop && b->index < b->shifted ? 1 : 0);
        hits[written++] = (sinew_event_hit){best, e, pass, spans[best].weight};
        walk_next(b);
    }
    if (total) *total = sum;
    sinew__ok(err);
    return SINEW_OK;
}

/* ---- compression ------------------------------------------------------------ */

/* The angle of the rotation between two unit quaternions, radians: from
 * conj(a) * b by atan2, which keeps small angles (an acos of the dot
 * product cannot tell apart angles below about 7e-4 in floats). */
static float angle_between(const float *a, const float *b)
{
    float x = a[3] * b[0] - a[0] * b[3] - a[1] * b[2] + a[2] * b[1];
    float y = a[3] * b[1] + a[0] * b[2] - a[1] * b[3] - a[2] * b[0];
    float z = a[3] * b[2] - a[0] * b[1] + a[1] * b[0] - a[2] * b[3];
    float w = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return 2.0f * atan2f(sqrtf(x * x + y * y + z * z), fabsf(w));
}

/* How far `got` lies from `want` over the track's tolerance: per component
 * (floats), or by angle (quaternions). */
static float error_ratio(const sinew_user_track *t, const float *want, const float *got)
{
    float e = 0.0f;
    if (t->quaternion) {
        e = angle_between(want, got);
    } else {
        for (int c = 0; c < t->components; ++c) {
            float d = fabsf(want[c] - got[c]);
            if (d > e) e = d;
        }
    }
    return t->tolerance > 0.0f ? e / t->tolerance : (e > 0.0f ? INFINITY : 0.0f);
}

/* Whether keys a + 1 .. b - 1 of `t` may go: the segment a .. b samples
 * within `allowed` (of the tolerance) of the track at each of them and,
 * for quaternions, midway between each two. */
static bool segment_holds(const sinew_user_track *t, int a, int b, float allowed)
{
    int c = t->components;
    const float *va = &t->values[(size_t)a * (size_t)c], *vb = &t->values[(size_t)b * (size_t)c];
    sinew_user_track seg = {0};
    float times[2] = {t->times[a], t->times[b]}, values[8];
    memcpy(values, va, sizeof(float) * (size_t)c);
    memcpy(values + c, vb, sizeof(float) * (size_t)c);
    seg.components = c, seg.quaternion = t->quaternion, seg.key_count = 2, seg.times = times, seg.values = values;
    seg.tolerance = t->tolerance;
    for (int j = a; j < b; ++j) {
        if (t->step[j]) return false; /* a held key is not a line */
        float got[4], want[4];
        if (j > a) {
            sinew_user_track_sample(&seg, t->times[j], 0, NULL, got);
            if (error_ratio(t, &t->values[(size_t)j * (size_t)c], got) > allowed) return false;
        }
        if (t->quaternion) {
            float mid = t->times[j] + 0.5f * (t->times[j + 1] - t->times[j]);
            sinew_user_track_sample(&seg, mid, 0, NULL, got);
            sinew_user_track_sample(t, mid, 0, NULL, want);
            if (error_ratio(t, want, got) > allowed) return false;
        }
    }
    return true;
}

/* Marks the keys of `t` to keep; returns how many. A run of held keys of
 * one value (within half the tolerance) keeps its first. */
static int choose_keys(const sinew_user_track *t, float allowed, uint8_t *keep)
{
    int n = t->key_count, c = t->components, kept = 0;
    for (int k = 0; k < n; ++k) keep[k] = 0;
    int a = 0;
    keep[0] = 1, kept = 1;
    while (a < n - 1) {
        int b = a + 1;
        if (t->step[a]) {
            /* held: later held keys of the same value go */
            while (b < n - 1 && t->step[b] && b - a <= MAX_SKIPPED &&
                   error_ratio(t, &t->values[(size_t)a * (size_t)c], &t->values[(size_t)b * (size_t)c]) <= allowed)
                ++b;
        } else {
            while (b + 1 < n && b + 1 - a <= MAX_SKIPPED && segment_holds(t, a, b + 1, allowed)) ++b;
        }
        keep[b] = 1, ++kept;
        a = b;
    }
    return kept;
}

/* The grid of one component's values (every `stride`-th of `v`, n of
 * them) fine enough for `allowed` absolute error: its decoded values are
 * written back to v. */
static sinew__timeline_grid make_grid(float *v, int n, int stride, float allowed)
{
    float lo = v[0], hi = v[0];
    for (int k = 1; k < n; ++k) {
        float x = v[(size_t)k * (size_t)stride];
        lo = x < lo ? x : lo, hi = x > hi ? x : hi;
    }
    sinew__timeline_grid g = {lo, 0.0f, 32};
    if (hi == lo) {
        g.bits = 0;
        return g;
    }
    if (!(allowed > 0.0f)) return g;
    for (int bits = 1; bits <= 16; ++bits) {
        float levels = (float)((1u << bits) - 1u);
        float step = (hi - lo) / levels;
        if (!(step * 0.5f <= allowed)) continue;
        /* the decoded values must lie within allowed after rounding too */
        bool ok = true;
        for (int k = 0; k < n && ok; ++k) {
            float x = v[(size_t)k * (size_t)stride];
            float q = floorf((x - lo) / step + 0.5f);
            q = q < 0.0f ? 0.0f : q > levels ? levels : q;
            ok = fabsf(lo + q * step - x) <= allowed;
        }
        if (!ok) continue;
        for (int k = 0; k < n; ++k) {
            float *x = &v[(size_t)k * (size_t)stride];
            float q = floorf((*x - lo) / step + 0.5f);
            q = q < 0.0f ? 0.0f : q > levels ? levels : q;
            *x = lo + q * step;
        }
        return (sinew__timeline_grid){lo, step, bits};
    }
    return g;
}

sinew_timeline *sinew_timeline_compress(const sinew_timeline *tl, const sinew_options *options,
                                        sinew_timeline_report *report, sinew_error *err)
{
    const char *who = "sinew_timeline_compress";
    if (report) *report = (sinew_timeline_report){0};
    if (!tl) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL timeline", who);
        return NULL;
    }
    int tn = tl->track_count;
    size_t keys = 0, floats = 0;
    for (int i = 0; i < tn; ++i) {
        keys += (size_t)tl->tracks[i].key_count;
        floats += (size_t)tl->tracks[i].key_count * (size_t)(tl->tracks[i].components + 1);
    }
    sinew__layout l = {0, false};
    size_t o_tracks = sinew__layout_add(&l, (size_t)tn, sizeof(sinew_user_track), 8);
    size_t o_grids = sinew__layout_add(&l, (size_t)tn * 4, sizeof(sinew__timeline_grid), 4);
    size_t o_floats = sinew__layout_add(&l, floats, sizeof(float), 4);
    size_t o_keep = sinew__layout_add(&l, keys * 2, 1, 1); /* keep flags, then steps */
    sinew_allocator a = sinew__allocator(options);
    unsigned char *scratch = l.overflow ? NULL : sinew__alloc(&a, l.total ? l.total : 1);
    if (!scratch) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
        return NULL;
    }
    sinew_user_track *tracks = (sinew_user_track *)(scratch + o_tracks);
    sinew__timeline_grid *grids = (sinew__timeline_grid *)(scratch + o_grids);
    float *fl = (float *)(scratch + o_floats);
    uint8_t *keep = scratch + o_keep, *steps = keep + keys;
    sinew_timeline_report rep = {0};
    for (int i = 0; i < tn; ++i) {
        const sinew_user_track *t = &tl->tracks[i];
        int c = t->components, n = t->key_count;
        tracks[i] = *t;
        for (int g = 0; g < 4; ++g) grids[i * 4 + g] = (sinew__timeline_grid){0.0f, 0.0f, 32};
        rep.keys_before += n;
        rep.bytes_before += n * (c + 1) * 4;
        int kept = n;
        if (t->tolerance > 0.0f && n > 2) {
            /* floats: half the tolerance to leaving keys out, half to the
             * grid; quaternions keep their floats and take it all */
            kept = choose_keys(t, t->quaternion ? 1.0f : 0.5f, keep);
        } else {
            for (int k = 0; k < n; ++k) keep[k] = 1;
        }
        float *times = fl, *values = fl + kept;
        for (int k = 0, o = 0; k < n; ++k) {
            if (!keep[k]) continue;
            times[o] = t->times[k];
            memcpy(&values[(size_t)o * (size_t)c], &t->values[(size_t)k * (size_t)c], sizeof(float) * (size_t)c);
            steps[o] = t->step[k];
            ++o;
        }
        if (t->tolerance > 0.0f && !t->quaternion)
            for (int g = 0; g < c; ++g) grids[i * 4 + g] = make_grid(values + g, kept, c, 0.5f * t->tolerance);
        tracks[i].key_count = kept, tracks[i].times = times, tracks[i].values = values, tracks[i].step = steps;
        fl += (size_t)kept * (size_t)(c + 1), keep += n, steps += kept;
        rep.keys_after += kept;
        rep.bytes_after += kept * 4;
        for (int g = 0; g < c; ++g) {
            int bits = grids[i * 4 + g].bits;
            rep.bytes_after += (kept * bits + 7) / 8 + (bits == 32 ? 0 : 8);
        }
    }
    sinew_timeline_desc desc = {tl->duration, tn, tracks, tl->event_count, tl->events};
    sinew_timeline *out = sinew__timeline_make(&desc, grids, options, err);
    sinew__free(&a, scratch);
    if (!out) return NULL;
    /* measured, not assumed: at every key of the original and midway */
    for (int i = 0; i < tn; ++i) {
        const sinew_user_track *t = &tl->tracks[i], *u = &out->tracks[i];
        for (int k = 0; k < t->key_count; ++k) {
            float want[4], got[4];
            for (int half = 0; half < 2; ++half) {
                if (half && k + 1 >= t->key_count) break;
                float at = half ? t->times[k] + 0.5f * (t->times[k + 1] - t->times[k]) : t->times[k];
                sinew_user_track_sample(t, at, 0, NULL, want);
                sinew_user_track_sample(u, at, 0, NULL, got);
                float r = error_ratio(t, want, got);
                if (r > rep.worst_ratio) rep.worst_ratio = r;
            }
        }
    }
    if (report) *report = rep;
    return out;
}
