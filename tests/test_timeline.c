/* SPDX-License-Identifier: MIT */
/* Timelines: user tracks sample as stated (linear, held, quaternions by
 * slerp, wrapped like clips), descriptions are validated, events are
 * crossed exactly once per crossing (random speeds, directions and step
 * sizes, steps across many loops, against an enumeration of every event
 * instance in unwrapped time), spans merge in the order crossed, and
 * compression keeps every sampled value within the track's tolerance. */
#include "sinew/sinew.h"
#include "check.h"

#include <stdlib.h>

/* ---- sampling ---------------------------------------------------------------- */

static void test_sampling(void)
{
    float t1[3] = {0.0f, 1.0f, 2.0f}, v1[6] = {0, 10, 1, 20, 3, 0};
    uint8_t step1[3] = {0, 1, 0};
    float tq[2] = {0.0f, 1.0f}, vq[8] = {0, 0, 0, 1, 0, 0.70710678f, 0, 0.70710678f};
    sinew_user_track tracks[2] = {{"pair", 2, false, 3, t1, v1, step1, 0.0f}, {"look", 4, true, 2, tq, vq, NULL, 0.0f}};
    sinew_event ev[1] = {{"mid", 1.0f}};
    sinew_error err;
    sinew_timeline *tl = sinew_timeline_create(&(sinew_timeline_desc){0.0f, 2, tracks, 1, ev}, NULL, &err);
    CHECK(tl != NULL, "create: %s", err.description);
    if (!tl) return;
    CHECK(tl->duration == 2.0f && tl->value_count == 6, "duration %g, value count %d", (double)tl->duration, tl->value_count);
    CHECK(sinew_timeline_find_track(tl, "look") == 1 && sinew_timeline_find_track(tl, "none") == -1, "find");
    CHECK(sinew_timeline_track_offset(tl, 1) == 2 && sinew_timeline_track_offset(tl, 2) == -1, "offsets");
    float out[6];
    CHECK(sinew_timeline_sample(tl, 0.5f, 0, NULL, out, 6, &err) == SINEW_OK, "sample: %s", err.description);
    CHECK_NEAR(out[0], 0.5f, 1e-6f, "linear x");
    CHECK_NEAR(out[1], 15.0f, 1e-5f, "linear y");
    /* slerp halfway from identity to 90 degrees about y: 45 degrees */
    CHECK_NEAR(out[3], sinf(0.3926991f), 1e-6f, "slerp y");
    CHECK_NEAR(out[5], cosf(0.3926991f), 1e-6f, "slerp w");
    sinew_timeline_sample(tl, 1.5f, 0, NULL, out, 6, NULL);
    CHECK(out[0] == 1.0f && out[1] == 20.0f, "held key: %g %g", (double)out[0], (double)out[1]);
    sinew_timeline_sample(tl, 5.0f, 0, NULL, out, 6, NULL);
    CHECK(out[0] == 3.0f && out[1] == 0.0f, "clamped past the end: %g", (double)out[0]);
    sinew_timeline_sample(tl, 4.5f, SINEW_SAMPLE_LOOP, NULL, out, 6, NULL);
    CHECK_NEAR(out[0], 0.5f, 1e-6f, "looped 4.5 is 0.5");
    int32_t hints[2] = {77, -3};
    float with[6];
    sinew_timeline_sample(tl, 1.25f, 0, hints, with, 6, NULL);
    sinew_timeline_sample(tl, 1.25f, 0, NULL, out, 6, NULL);
    CHECK(memcmp(with, out, sizeof out) == 0, "a wrong hint changes the result");
    CHECK(sinew_timeline_sample(tl, 0.0f, 0, NULL, out, 5, &err) == SINEW_ERROR_SIZE_MISMATCH, "value count");
    CHECK(sinew_timeline_sample(tl, NAN, 0, NULL, out, 6, &err) == SINEW_ERROR_INVALID_ARGUMENT, "NaN time");
    sinew_timeline_free(tl);
}

static void expect_refused(const sinew_timeline_desc *d, sinew_result want, const char *needle)
{
    sinew_error err = {0};
    sinew_timeline *tl = sinew_timeline_create(d, NULL, &err);
    CHECK(!tl, "created where \"%s\" was expected", needle);
    CHECK_ERROR(err, want, needle);
    sinew_timeline_free(tl);
}

static void test_validation(void)
{
    float t[2] = {0.0f, 1.0f}, back[2] = {1.0f, 0.5f}, v[8] = {0, 0, 0, 1, 0, 0, 0, 1}, bad[2] = {0.0f, NAN};
    float zero[8] = {0};
    sinew_user_track tr = {"a", 1, false, 2, t, v, NULL, 0.0f};
    sinew_event ev = {"e", 0.5f};
    sinew_timeline_desc d = {0.0f, 1, &tr, 1, &ev};
    sinew_user_track x = tr;
    x.components = 5;
    d.tracks = &x;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "user track 0: 5 components");
    x = tr, x.components = 3, x.quaternion = true;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "4 for a quaternion");
    x = tr, x.times = back;
    expect_refused(&d, SINEW_ERROR_KEYS_NOT_INCREASING, "user track 0 key 1");
    x = tr, x.values = bad;
    expect_refused(&d, SINEW_ERROR_NOT_FINITE, "user track 0 key 1: value 0");
    x = tr, x.components = 4, x.quaternion = true, x.values = zero;
    expect_refused(&d, SINEW_ERROR_BAD_ROTATION, "a zero quaternion");
    x = tr, x.tolerance = -1.0f;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "tolerance -1");
    x = tr, x.key_count = 0;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "0 keys");
    d.tracks = &tr;
    sinew_event e2 = {NULL, 0.2f};
    d.events = &e2;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "event 0 has no name");
    e2 = (sinew_event){"late", 3.0f};
    d.duration = 2.0f;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "shorter than a key or event at 3");
    e2.time = -1.0f;
    d.duration = 0.0f;
    expect_refused(&d, SINEW_ERROR_INVALID_ARGUMENT, "event 0 (\"late\"): time -1");
    expect_refused(NULL, SINEW_ERROR_INVALID_ARGUMENT, "NULL");
}

/* ---- events ---------------------------------------------------------------- */

typedef struct instance {
    int event;
    double at; /* unwrapped time */
} instance;

/* Every instance of the timeline's events in the step from a to b
 * (unwrapped), (a, b] forward, [b, a) backward, by enumeration. */
static int enumerate(const sinew_timeline *tl, bool loop, double a, double b, instance *out, int cap)
{
    int n = 0;
    double lo = a < b ? a : b, hi = a < b ? b : a;
    double d = tl->duration;
    long k0 = loop ? (long)floor(lo / d) - 1 : 0, k1 = loop ? (long)floor(hi / d) + 1 : 0;
    for (long k = k0; k <= k1; ++k)
        for (int e = 0; e < tl->event_count; ++e) {
            double x = (double)k * d + (double)tl->events[e].time;
            bool in = a < b ? (x > a && x <= b) : (x >= b && x < a);
            if (in && n < cap) out[n++] = (instance){e, x};
        }
    return n;
}

static int by_instance(const void *pa, const void *pb)
{
    const instance *a = pa, *b = pb;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return a->event - b->event;
}

static void test_events_property(void)
{
    unsigned seed = 12345;
    for (int round = 0; round < 40; ++round) {
        /* events at 0, at the duration, at equal times, anywhere */
        float d = 0.5f + 2.0f * check_rand(&seed);
        int n = 1 + (int)(6.0f * check_rand(&seed));
        sinew_event ev[8];
        for (int e = 0; e < n; ++e) {
            float u = check_rand(&seed);
            float time = u < 0.15f ? 0.0f : u < 0.3f ? d : u < 0.4f && e > 0 ? ev[e - 1].time : d * check_rand(&seed);
            ev[e] = (sinew_event){"e", time};
        }
        sinew_error err;
        sinew_timeline *tl = sinew_timeline_create(&(sinew_timeline_desc){d, 0, NULL, n, ev}, NULL, &err);
        CHECK(tl != NULL, "create: %s", err.description);
        if (!tl) continue;
        for (int e = 1; e < n; ++e) CHECK(tl->events[e - 1].time <= tl->events[e].time, "events not sorted");
        bool loop = round % 4 != 3;
        sinew_clip fake = {.name = "fake", .duration = d};
        sinew_playback pb = sinew_playback_start(&fake, loop);
        double unwrapped = 0.0;
        int64_t passes = 0;
        for (int step = 0; step < 300; ++step) {
            float u = check_rand(&seed);
            pb.speed = u < 0.1f ? 0.0f : (check_rand(&seed) < 0.3f ? -1.0f : 1.0f) * (0.2f + 3.0f * check_rand(&seed));
            float dt = check_rand(&seed) < 0.05f ? 10.0f * d * check_rand(&seed) : 0.05f * check_rand(&seed);
            sinew_playback before = pb;
            int wraps = sinew_playback_advance(&pb, dt);
            sinew_event_span span = sinew_playback_span(&before, &pb, wraps, tl, 0.5f);
            sinew_event_hit hits[512];
            int64_t total = -1;
            CHECK(sinew_events_crossed(&span, 1, hits, 512, &total, &err) == SINEW_OK, "crossed: %s", err.description);
            double a = unwrapped, b = (double)(passes + wraps) * d + (double)pb.time;
            instance want[512], got[512];
            int nw = enumerate(tl, loop, a, b, want, 512);
            CHECK(total == nw, "round %d step %d: %lld hits, %d expected (from %.9g to %.9g)", round, step,
                  (long long)total, nw, a, b);
            int ng = total < 512 ? (int)total : 512;
            for (int i = 0; i < ng; ++i) {
                got[i] = (instance){hits[i].event, (double)(passes + hits[i].pass) * d + (double)tl->events[hits[i].event].time};
                CHECK(hits[i].weight == 0.5f && hits[i].span == 0, "weight or span");
                if (i > 0)
                    CHECK(a < b ? got[i].at >= got[i - 1].at : got[i].at <= got[i - 1].at,
                          "round %d step %d: hit %d not in the order crossed", round, step, i);
            }
            if (ng == nw) {
                qsort(want, (size_t)nw, sizeof *want, by_instance);
                qsort(got, (size_t)ng, sizeof *got, by_instance);
                bool same = true;
                for (int i = 0; i < nw; ++i) same = same && want[i].event == got[i].event && want[i].at == got[i].at;
                CHECK(same, "round %d step %d: hits are not the instances crossed", round, step);
            }
            passes += wraps;
            unwrapped = b;
        }
        sinew_timeline_free(tl);
    }
}

static void test_events_edges(void)
{
    sinew_event ev[3] = {{"end", 1.0f}, {"start", 0.0f}, {"mid", 0.5f}};
    sinew_timeline *tl = sinew_timeline_create(&(sinew_timeline_desc){1.0f, 0, NULL, 3, ev}, NULL, NULL);
    CHECK(tl && strcmp(tl->events[0].name, "start") == 0 && strcmp(tl->events[2].name, "end") == 0, "sorted by time");
    sinew_event_hit hits[8];
    int64_t total;
    /* a million loops forward: counted, not walked; the first hits in order */
    sinew_event_span big = {tl, 1.0f, true, 0, 1000000, 0.25f, 0.25f};
    CHECK(sinew_events_crossed(&big, 1, hits, 4, &total, NULL) == SINEW_OK && total == 3000000, "a million loops: %lld",
          (long long)total);
    CHECK(strcmp(tl->events[hits[0].event].name, "mid") == 0 && hits[0].pass == 0, "first: mid of pass 0");
    CHECK(strcmp(tl->events[hits[1].event].name, "end") == 0 && hits[1].pass == 0, "second: end of pass 0");
    CHECK(strcmp(tl->events[hits[2].event].name, "start") == 0 && hits[2].pass == 1, "third: start of pass 1");
    /* not looping: the end is reached and belongs to the step that lands on it */
    sinew_event_span to_end = {tl, 1.0f, false, 0, 0, 0.5f, 1.0f};
    sinew_events_crossed(&to_end, 1, hits, 8, &total, NULL);
    CHECK(total == 1 && strcmp(tl->events[hits[0].event].name, "end") == 0, "to the end: %lld", (long long)total);
    sinew_event_span back = {tl, 1.0f, false, 0, 0, 0.5f, 0.0f};
    sinew_events_crossed(&back, 1, hits, 8, &total, NULL);
    CHECK(total == 1 && strcmp(tl->events[hits[0].event].name, "start") == 0, "back to the start: %lld", (long long)total);
    /* two spans, one twice as fast: merged by the fraction of the step */
    sinew_event_span two[2] = {{tl, 0.25f, true, 0, 0, 0.0f, 0.6f}, {tl, 0.75f, true, 0, 0, 0.0f, 0.3f}};
    sinew_events_crossed(two, 2, hits, 8, &total, NULL);
    CHECK(total == 1 && hits[0].span == 0 && hits[0].weight == 0.25f, "two spans: %lld", (long long)total);
    two[1].to_time = 0.9f; /* mid at 0.5/0.9 of its step, before span 0's at 0.5/0.6 */
    sinew_events_crossed(two, 2, hits, 8, &total, NULL);
    CHECK(total == 2 && hits[0].span == 1 && hits[1].span == 0, "merge order: %d %d", hits[0].span, hits[1].span);
    sinew_error err;
    sinew_event_span wrong = {tl, 1.0f, false, 0, 2, 0.0f, 0.0f};
    CHECK(sinew_events_crossed(&wrong, 1, hits, 8, &total, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "without loop"),
          "passes without loop: %s", err.description);
    wrong = (sinew_event_span){tl, 1.0f, true, 0, 0, 0.0f, 1.5f};
    CHECK(sinew_events_crossed(&wrong, 1, hits, 8, &total, &err) == SINEW_ERROR_INVALID_ARGUMENT, "time past the duration");
    wrong = (sinew_event_span){tl, 1.0f, true, 0, (int64_t)1 << 41, 0.0f, 0.0f};
    CHECK(sinew_events_crossed(&wrong, 1, hits, 8, &total, &err) == SINEW_ERROR_INVALID_ARGUMENT, "passes past 2^40");
    sinew_timeline_free(tl);
}

/* A crossfade's two playbacks: every event of both crossed once, each
 * with its side's weight, the weights summing to 1. */
static void test_crossfade_events(void)
{
    sinew_event walk_ev[2] = {{"step_l", 0.25f}, {"step_r", 0.75f}}, run_ev[1] = {{"stride", 0.3f}};
    sinew_timeline *walk = sinew_timeline_create(&(sinew_timeline_desc){1.0f, 0, NULL, 2, walk_ev}, NULL, NULL);
    sinew_timeline *run = sinew_timeline_create(&(sinew_timeline_desc){0.6f, 0, NULL, 1, run_ev}, NULL, NULL);
    sinew_clip walk_clip = {.name = "walk", .duration = 1.0f}, run_clip = {.name = "run", .duration = 0.6f};
    sinew_crossfade cf = sinew_crossfade_start(sinew_playback_start(&walk_clip, true), sinew_playback_start(&run_clip, true),
                                               1.0f, false);
    int counts[2] = {0, 0};
    double unwrapped[2] = {0, 0};
    for (int step = 0; step < 120; ++step) {
        sinew_crossfade before = cf;
        int wraps[2];
        sinew_crossfade_advance(&cf, 1.0f / 60.0f, wraps);
        sinew_event_span spans[2];
        sinew_crossfade_spans(&before, &cf, wraps, walk, run, spans);
        CHECK(spans[0].weight + spans[1].weight == 1.0f && spans[1].weight == sinew_crossfade_weight(&cf), "weights");
        sinew_event_hit hits[8];
        int64_t total;
        CHECK(sinew_events_crossed(spans, 2, hits, 8, &total, NULL) == SINEW_OK, "crossed");
        for (int i = 0; i < total && i < 8; ++i) {
            ++counts[hits[i].span];
            CHECK(hits[i].weight == spans[hits[i].span].weight, "a hit's weight is its side's");
        }
        unwrapped[0] += 1.0 / 60.0, unwrapped[1] += 1.0 / 60.0;
    }
    /* 2 s: the walk crosses 0.25, 0.75, 1.25, 1.75; the run 0.3 .. 1.8 by 0.6 */
    CHECK(counts[0] == 4 && counts[1] == 3, "walk %d events (4), run %d (3)", counts[0], counts[1]);
    sinew_timeline_free(walk);
    sinew_timeline_free(run);
}

/* ---- compression --------------------------------------------------------------- */

static void test_compress(void)
{
    enum { N = 600 };
    static float times[N], wave[N * 3], quat[N * 4], steps_v[N];
    static uint8_t held[N];
    for (int k = 0; k < N; ++k) {
        float t = (float)k / 60.0f;
        times[k] = t;
        wave[k * 3] = sinf(t * 2.0f), wave[k * 3 + 1] = 0.5f * t, wave[k * 3 + 2] = 3.0f;
        sinew_quat q = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.7f * sinf(t));
        quat[k * 4] = q.x, quat[k * 4 + 1] = q.y, quat[k * 4 + 2] = q.z, quat[k * 4 + 3] = q.w;
        steps_v[k] = (float)((k / 40) % 3), held[k] = 1;
    }
    sinew_user_track tr[4] = {{"wave", 3, false, N, times, wave, NULL, 1e-3f},
                              {"look", 4, true, N, times, quat, NULL, 1e-3f},
                              {"state", 1, false, N, times, steps_v, held, 1e-3f},
                              {"exact", 3, false, N, times, wave, NULL, 0.0f}};
    sinew_error err;
    sinew_timeline *tl = sinew_timeline_create(&(sinew_timeline_desc){0.0f, 4, tr, 0, NULL}, NULL, &err);
    sinew_timeline_report rep;
    sinew_timeline *c = tl ? sinew_timeline_compress(tl, NULL, &rep, &err) : NULL;
    CHECK(c != NULL, "compress: %s", err.description);
    if (!c) {
        sinew_timeline_free(tl);
        return;
    }
    CHECK(c->compressed && !tl->compressed, "compressed flag");
    CHECK(rep.worst_ratio <= 1.0f, "worst error %g of the tolerance", (double)rep.worst_ratio);
    CHECK(rep.keys_after < rep.keys_before && rep.bytes_after * 2 < rep.bytes_before, "keys %d -> %d, bytes %d -> %d",
          rep.keys_before, rep.keys_after, rep.bytes_before, rep.bytes_after);
    CHECK(c->tracks[3].key_count == N && memcmp(c->tracks[3].values, wave, sizeof(float) * N * 3) == 0,
          "a track of tolerance 0 stays exact");
    CHECK(c->tracks[2].key_count <= 20, "held runs of one value: %d keys", c->tracks[2].key_count);
    unsigned seed = 99;
    float worst[4] = {0};
    for (int s = 0; s < 5000; ++s) {
        float t = 10.0f * check_rand(&seed);
        float a[11], b[11];
        CHECK(sinew_timeline_sample(tl, t, 0, NULL, a, 11, NULL) == SINEW_OK &&
                  sinew_timeline_sample(c, t, 0, NULL, b, 11, NULL) == SINEW_OK,
              "sample at %g", (double)t);
        for (int i = 0; i < 3; ++i) worst[0] = fmaxf(worst[0], fabsf(a[i] - b[i]));
        /* the angle of conj(a) * b, in doubles */
        double qa[4] = {a[3], a[4], a[5], a[6]}, qb[4] = {b[3], b[4], b[5], b[6]};
        double x = qa[3] * qb[0] - qa[0] * qb[3] - qa[1] * qb[2] + qa[2] * qb[1];
        double y = qa[3] * qb[1] + qa[0] * qb[2] - qa[1] * qb[3] - qa[2] * qb[0];
        double z = qa[3] * qb[2] - qa[0] * qb[1] + qa[1] * qb[0] - qa[2] * qb[3];
        double w = qa[3] * qb[3] + qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2];
        worst[1] = fmaxf(worst[1], (float)(2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w))));
        worst[2] = fmaxf(worst[2], fabsf(a[7] - b[7]));
        for (int i = 8; i < 11; ++i) worst[3] = fmaxf(worst[3], fabsf(a[i] - b[i]));
    }
    CHECK(worst[0] <= 1e-3f * 1.0001f, "floats within their tolerance: %g", (double)worst[0]);
    CHECK(worst[1] <= 1e-3f * 1.01f, "quaternion within its tolerance: %g rad", (double)worst[1]);
    CHECK(worst[2] <= 1e-3f, "held values within their tolerance: %g", (double)worst[2]);
    CHECK(worst[3] == 0.0f, "exact track moved by %g", (double)worst[3]);
    sinew_timeline_free(c);
    sinew_timeline_free(tl);
}

int main(void)
{
    test_sampling();
    test_validation();
    test_events_property();
    test_events_edges();
    test_crossfade_events();
    test_compress();
    return check_finish("test_timeline");
}
