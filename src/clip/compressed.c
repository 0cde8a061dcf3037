/* SPDX-License-Identifier: MIT */
/* The compressed form of a clip: the checks that make any bytes safe to
 * sample, sampling where the bytes lie (the animated tracks through the
 * kernel chosen when the clip was made or loaded), and what the block
 * tells of itself (the format: compressed.h). */
#include "clip/compressed.h"

#define X4(k) (float)(k) / 255.0f, (float)(k + 1) / 255.0f, (float)(k + 2) / 255.0f, (float)(k + 3) / 255.0f
#define X16(k) X4(k), X4(k + 4), X4(k + 8), X4(k + 12)
#define X64(k) X16(k), X16(k + 16), X16(k + 32), X16(k + 48)
const float sinew__in_255ths[256] = {X64(0), X64(64), X64(128), X64(192)};
#undef X4
#undef X16
#undef X64

static uint32_t u32_at(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static float f32_at(const unsigned char *p)
{
    float v;
    memcpy(&v, p, 4);
    return v;
}

/* Whether [at, at + count * elem) lies in [floor, limit) on a 4-byte boundary. */
static bool array_fits(uint32_t at, uint64_t count, uint64_t elem, uint64_t floor, uint64_t limit)
{
    return at % 4 == 0 && at >= floor && at <= limit && count <= (limit - at) / elem;
}

/* A track's place in the lists' order: its joint, then its target. */
static uint32_t key_of(uint32_t code) { return (code >> 5) * 4 + (code & 3); }

/* A rotation component's range may reach a little past [-1, 1]: quantized
 * values beyond unit length are scaled back when w is rebuilt. */
static bool rotation_range(const float *r)
{
    for (int c = 0; c < 3; ++c)
        if (!(r[c] >= -1.01f && r[c] + r[3 + c] <= 1.01f && r[3 + c] >= 0.0f)) return false;
    return true;
}

const char *sinew__compressed_open(const unsigned char *p, size_t size, int joint_count, int simd,
                                   sinew__compressed *out)
{
    if (size < SINEW__COMPRESSED_HEADER + SINEW__COMPRESSED_TAIL || size % 4 || size > UINT32_MAX ||
        ((uintptr_t)p & 3) != 0)
        return "the block is shorter than its header, not whole words, or not on a 4-byte boundary";
    if (memcmp(p, "SNWC", 4) != 0 || u32_at(p + 8) != 1) return "the block's magic or version is not SNWC 1";
    if (u32_at(p + 4) != size) return "the block's size is not the bytes given";
    sinew__compressed c = {.bytes = p, .size = size, .kernel = sinew__compressed_kernel_for(simd)};
    uint32_t joints = u32_at(p + 12), samples = u32_at(p + 16), segments = u32_at(p + 24);
    uint32_t constant = u32_at(p + 28), animated = u32_at(p + 32), defaults = u32_at(p + 36);
    if ((int64_t)joints != joint_count) return "the block's joint count is not the clip's";
    if (samples < 1 || samples > (uint32_t)INT32_MAX) return "the sample count is 0 or too large";
    c.rate = f32_at(p + 20);
    uint32_t at_times = u32_at(p + 80);
    if (!isfinite(c.rate) || c.rate < 0.0f || (samples > 1 && at_times == 0) != (c.rate > 0.0f))
        return "the sample rate is negative, not finite, or not the one way the sample times are given";
    for (int i = 84; i < 96; ++i)
        if (p[i]) return "the header's reserved bytes are not zero";
    if (segments != (samples + SINEW__SEGMENT_SAMPLES - 1) / SINEW__SEGMENT_SAMPLES)
        return "the segment count does not match the sample count";
    if ((uint64_t)constant + animated + defaults != 3u * (uint64_t)joints)
        return "the default, constant and animated tracks do not add up to three a joint";
    static const int figures[] = {40, 44, 48, 52, 60};
    for (int i = 0; i < 5; ++i)
        if (!isfinite(f32_at(p + figures[i]))) return "a stored error figure is not finite";
    c.joint_count = (int)joints, c.sample_count = (int)samples, c.segment_count = (int)segments;
    c.constant_count = (int)constant, c.animated_count = (int)animated, c.default_count = (int)defaults;
    c.bound = f32_at(p + 40), c.shell = f32_at(p + 44), c.largest = f32_at(p + 48);
    c.percentile_99 = f32_at(p + 52), c.worst_time = f32_at(p + 60);
    memcpy(&c.worst_joint, p + 56, 4);
    if (c.worst_joint < -1 || c.worst_joint >= (int)joints) return "the worst joint is not one of the clip's";
    uint64_t limit = size - SINEW__COMPRESSED_TAIL;
    uint32_t at_tracks = u32_at(p + 64), at_constants = u32_at(p + 68), at_ranges = u32_at(p + 72),
             at_segments = u32_at(p + 76);
    uint64_t times_end = SINEW__COMPRESSED_HEADER;
    if (at_times) {
        if (!array_fits(at_times, samples, 4, SINEW__COMPRESSED_HEADER, limit))
            return "the sample times lie outside the block";
        c.times = (const float *)(const void *)(p + at_times);
        if (!(c.times[0] >= 0.0f) || !sinew__finite_n(c.times, samples)) return "a sample time is negative or not finite";
        for (uint32_t k = 1; k < samples; ++k)
            if (!(c.times[k] > c.times[k - 1])) return "the sample times are not strictly increasing";
        times_end = at_times + 4u * (uint64_t)samples;
    }
    if (!array_fits(at_tracks, (uint64_t)constant + animated, 4, times_end, limit))
        return "the track list lies outside the block";
    c.tracks = (const uint32_t *)(const void *)(p + at_tracks);
    /* each list strictly increasing, so no (joint, target) twice in one */
    uint32_t floats = 0;
    for (uint32_t i = 0; i < constant + animated; ++i) {
        uint32_t t = c.tracks[i];
        if ((uint32_t)sinew__track_joint(t) >= joints || sinew__track_target(t) > 2)
            return "a track's joint or target is out of range";
        if (sinew__track_dropped(t) != 0 && (i < constant || sinew__track_target(t) != 1))
            return "a track that is not an animated rotation drops a component";
        if (sinew__track_step(t) && i < constant) return "a constant track steps";
        if (i != 0 && i != constant && key_of(t) <= key_of(c.tracks[i - 1]))
            return "a track list is not strictly increasing";
        if (i < constant) floats += sinew__track_target(t) == 1 ? 4 : 3;
    }
    /* and none in both */
    for (uint32_t i = 0, j = constant; i < constant && j < constant + animated;) {
        if (key_of(c.tracks[i]) == key_of(c.tracks[j])) return "a track is both constant and animated";
        if (key_of(c.tracks[i]) < key_of(c.tracks[j]))
            ++i;
        else
            ++j;
    }
    uint64_t tracks_end = at_tracks + 4u * ((uint64_t)constant + animated);
    if (!array_fits(at_constants, floats, 4, tracks_end, limit)) return "the constants lie outside the block";
    c.constants = (const float *)(const void *)(p + at_constants);
    if (!sinew__finite_n(c.constants, floats)) return "a constant value is not finite";
    if (!array_fits(at_ranges, (uint64_t)animated * 6u, 4, at_constants + 4u * (uint64_t)floats, limit))
        return "the clip ranges lie outside the block";
    c.ranges = (const float *)(const void *)(p + at_ranges);
    if (!sinew__finite_n(c.ranges, (size_t)animated * 6u)) return "a clip range is not finite";
    for (uint32_t i = 0; i < animated; ++i) {
        const float *r = c.ranges + 6u * i;
        for (int k = 0; k < 3; ++k)
            if (!(r[3 + k] >= 0.0f) || !isfinite(r[k] + r[3 + k])) return "a clip range is negative or too wide";
        if (sinew__track_target(c.tracks[constant + i]) == 1 && !rotation_range(r)) return "a rotation's range exceeds [-1, 1]";
    }
    for (uint32_t i = 0, v = 0; i < constant; ++i) {
        if (sinew__track_target(c.tracks[i]) == 1) {
            const float *q = c.constants + v;
            float d = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            if (!(fabsf(d - 1.0f) <= 1e-3f)) return "a constant rotation is not of unit length";
        }
        v += sinew__track_target(c.tracks[i]) == 1 ? 4 : 3;
    }
    uint64_t ranges_end = at_ranges + 24u * (uint64_t)animated;
    if (!array_fits(at_segments, 2u * (uint64_t)segments, 4, ranges_end, limit))
        return "the segment table lies outside the block";
    c.segments = (const uint32_t *)(const void *)(p + at_segments);
    /* each segment's bytes as its bit rates make them, one after another,
     * the last ending where the tail begins */
    uint64_t expected = at_segments + 8u * (uint64_t)segments;
    uint64_t header_bytes = (animated + 1u) / 2u + 6u * (uint64_t)animated;
    for (uint32_t s = 0; s < segments; ++s) {
        if (c.segments[2 * s] != expected || expected > limit || header_bytes > limit - expected)
            return "a segment lies out of place";
        const unsigned char *seg = p + expected;
        uint64_t bits = 0;
        bool raw = false;
        for (uint32_t i = 0; i < animated; ++i) {
            int r = sinew__segment_rate(seg, (int)i);
            bits += sinew__sample_bits(r, sinew__track_target(c.tracks[constant + i]) == 1);
            const unsigned char *range = seg + (animated + 1u) / 2u + 6u * i;
            raw = raw || r == SINEW__RAW_RATE;
            if (r == SINEW__RAW_RATE && memcmp(range, "\0\0\0\0\0\0", 6) != 0) return "a raw track's range is not 0";
            /* a segment's range lies within the clip's: its values do too */
            for (int k = 0; r != 0 && r != SINEW__RAW_RATE && k < 3; ++k)
                if (range[k] + range[3 + k] > 255) return "a segment's range passes the clip's";
        }
        if (c.segments[2 * s + 1] != bits) return "a segment's bits a sample are not its tracks'";
        uint64_t n = s + 1 < segments ? SINEW__SEGMENT_SAMPLES : samples - (uint64_t)s * SINEW__SEGMENT_SAMPLES;
        uint64_t bytes = header_bytes + (bits * n + 7u) / 8u;
        if (bytes > limit - expected) return "a segment's samples run past the block";
        /* raw floats must be finite, and a raw rotation of unit length */
        const unsigned char *stream = seg + header_bytes;
        uint64_t at = 0;
        for (uint64_t k = 0; raw && k < n; ++k)
            for (uint32_t i = 0; i < animated; ++i) {
                int r = sinew__segment_rate(seg, (int)i);
                bool rotation = sinew__track_target(c.tracks[constant + i]) == 1;
                if (r == SINEW__RAW_RATE) {
                    float v[4];
                    int m = sinew__decode_value(stream, at, r, rotation, NULL, NULL, v);
                    if (!sinew__finite_n(v, (size_t)m)) return "a raw value is not finite";
                    if (rotation && !(fabsf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3] - 1.0f) <= 1e-3f))
                        return "a raw rotation is not of unit length";
                }
                at += sinew__sample_bits(r, rotation);
            }
        expected += bytes;
        if (expected % 4) expected += 4 - expected % 4;
    }
    if (expected != limit) return "the segments do not end where the tail begins";
    for (uint64_t i = limit; i < size; ++i)
        if (p[i]) return "the tail is not zero";
    *out = c;
    return NULL;
}

/* The two samples around t and the factor between them. */
static int locate_sample(const sinew__compressed *c, float t, float *s)
{
    int last = c->sample_count - 1;
    if (c->times) {
        const float *times = c->times;
        if (!(t > times[0]) || last == 0) {
            *s = 0.0f;
            return 0;
        }
        if (t >= times[last]) {
            *s = 0.0f;
            return last;
        }
        /* a binary search: a seek costs what a step does */
        int k = sinew__find_key(times, c->sample_count, t, NULL);
        *s = t == times[k] ? 0.0f : (t - times[k]) / (times[k + 1] - times[k]);
        return k;
    }
    float x = t * c->rate;
    if (!(x > 0.0f)) {
        *s = 0.0f;
        return 0;
    }
    if (x >= (float)last) {
        *s = 0.0f;
        return last;
    }
    int k = (int)x;
    if (k >= last) k = last - 1;
    *s = x - (float)k;
    return k;
}

static void write_value(sinew_transform *x, int target, const float *v)
{
    if (target == 0)
        x->translation = sinew__v3(v[0], v[1], v[2]);
    else if (target == 2)
        x->scale = sinew__v3(v[0], v[1], v[2]);
    else
        x->rotation = sinew__q(v[0], v[1], v[2], v[3]);
}

/* The place a track of `joint` writes: its joint's transform in `pose`,
 * or, where only joint `only` is wanted (not -1), pose[0] for that joint
 * and NULL for the others. */
static sinew_transform *place(sinew_transform *pose, int joint, int only)
{
    return only < 0 ? &pose[joint] : joint == only ? pose : NULL;
}

/* The clip's constant tracks into their places. */
static void constants(const sinew__compressed *c, int only, sinew_transform *pose)
{
    const float *v = c->constants;
    for (int i = 0; i < c->constant_count; ++i) {
        int target = sinew__track_target(c->tracks[i]);
        sinew_transform *x = place(pose, sinew__track_joint(c->tracks[i]), only);
        if (x) write_value(x, target, v);
        v += target == 1 ? 4 : 3;
    }
}

/* The clip's animated tracks between samples a and b at factor s into
 * their places, by the reference formulas (as
 * sinew__compressed_animated_avx2). */
static void animated(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s, bool nlerp,
                     int only, sinew_transform *pose)
{
    const uint32_t *tracks = c->tracks + c->constant_count;
    for (int i = 0; i < c->animated_count; ++i) {
        uint32_t code = tracks[i];
        int target = sinew__track_target(code);
        bool rotation = target == 1;
        sinew_transform *x = place(pose, sinew__track_joint(code), only);
        int ra = sinew__segment_rate(a.rates, i), rb = sinew__segment_rate(b.rates, i);
        float va[4] = {0.0f, 0.0f, 0.0f, 0.0f}, vb[4];
        int na = x ? sinew__decode_value(a.stream, a.bit, ra, rotation, c->ranges + 6 * i, a.ranges + 6 * i, va) : 0;
        int nb = x ? sinew__decode_value(b.stream, b.bit, rb, rotation, c->ranges + 6 * i, b.ranges + 6 * i, vb) : 0;
        a.bit += sinew__sample_bits(ra, rotation);
        b.bit += sinew__sample_bits(rb, rotation);
        if (!x) continue;
        /* a step track holds sample a's value until b */
        float t = sinew__track_step(code) ? 0.0f : s;
        if (rotation) {
            int dropped = sinew__track_dropped(code);
            sinew_quat qa = sinew__rotation_from_stored(va, na, dropped);
            x->rotation = t == 0.0f ? qa
                          : nlerp   ? sinew_quat_nlerp(qa, sinew__rotation_from_stored(vb, nb, dropped), t)
                                    : sinew_quat_slerp(qa, sinew__rotation_from_stored(vb, nb, dropped), t);
        } else {
            for (int k = 0; k < 3; ++k) va[k] += (vb[k] - va[k]) * t;
            write_value(x, target, va);
        }
    }
}

static void animated_reference(const sinew__compressed *c, sinew__sample_at a, sinew__sample_at b, float s,
                               bool nlerp, sinew_transform *pose)
{
    animated(c, a, b, s, nlerp, -1, pose);
}

/* Samples a and b around clip time t (on a sample, b is a and s 0). */
static void samples_around(const sinew__compressed *c, float t, sinew__sample_at *a, sinew__sample_at *b, float *s)
{
    int ka = locate_sample(c, t, s);
    *a = sinew__sample_place(c, ka), *b = sinew__sample_place(c, *s != 0.0f ? ka + 1 : ka);
}

/* The compressed form's sample_pose: the pose under the clip (sk's rest
 * pose, or the identity for an additive clip), its constant tracks, then
 * its animated tracks interpolated between the two samples around t
 * (rotations by slerp, or nlerp with SINEW_SAMPLE_NLERP). */
static void compressed_pose(const sinew_clip *clip, float t, unsigned flags, int32_t *hints,
                            const sinew_skeleton *sk, sinew_transform *pose)
{
    (void)hints; /* samples are found by rate or a binary search, without the cursor */
    const sinew__compressed *c = sinew__clip_of(clip)->compressed;
    const sinew_transform *under = clip->additive ? NULL : sk->rest_pose;
    if (under)
        memcpy(pose, under, sizeof *pose * (size_t)c->joint_count);
    else
        for (int j = 0; j < c->joint_count; ++j) pose[j] = sinew_transform_identity();
    constants(c, -1, pose);
    if (c->animated_count == 0) return;
    sinew__sample_at a, b;
    float s;
    samples_around(c, t, &a, &b, &s);
    (c->kernel ? c->kernel : animated_reference)(c, a, b, s, (flags & SINEW_SAMPLE_NLERP) != 0, pose);
}

/* The compressed form's sample_joint: as sample_pose, for one joint. */
static void compressed_joint(const sinew_clip *clip, float t, unsigned flags, const sinew_skeleton *sk, int joint,
                             sinew_transform *out)
{
    const sinew__compressed *c = sinew__clip_of(clip)->compressed;
    *out = clip->additive ? sinew_transform_identity() : sk->rest_pose[joint];
    constants(c, joint, out);
    sinew__sample_at a, b;
    float s;
    samples_around(c, t, &a, &b, &s);
    animated(c, a, b, s, (flags & SINEW_SAMPLE_NLERP) != 0, joint, out);
}

/* The block, and the plan of the clip's weights tracks. */
static size_t compressed_bytes(const sinew_clip *clip)
{
    return sinew__sampler_bytes(sinew__clip_of(clip)->sampler) + sinew__clip_of(clip)->compressed->size;
}

/* The block and its figures (sinew_clip_compression's report). */
static void compressed_describe(const sinew_clip *clip, sinew__clip_facts *facts)
{
    const sinew__compressed *c = sinew__clip_of(clip)->compressed;
    sinew_compress_report r = {.bytes = c->size, .error_bound = c->bound, .shell_distance = c->shell,
                               .largest = c->largest, .percentile_99 = c->percentile_99,
                               .worst_joint = c->worst_joint, .worst_time = c->worst_time,
                               .sample_count = c->sample_count, .sample_rate = c->rate,
                               .segment_count = c->segment_count, .default_tracks = c->default_count,
                               .constant_tracks = c->constant_count, .animated_tracks = c->animated_count};
    for (int s = 0; s < c->segment_count; ++s)
        for (int i = 0; i < c->animated_count; ++i)
            r.bit_rates[sinew__bits_of[sinew__segment_rate(c->bytes + c->segments[2 * s], i)]]++;
    facts->block = c->bytes, facts->block_size = c->size;
    facts->compressed = true, facts->report = r;
}

/* No one pass into model space: sample_model NULL. */
const sinew__clip_form sinew__form_compressed = {compressed_pose, NULL, NULL, compressed_joint, compressed_bytes,
                                                 compressed_describe};
