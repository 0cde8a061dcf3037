/* SPDX-License-Identifier: MIT */
/* Playback state, synced cycles, crossfades and blend-space weights: the
 * timing side of the animation layer. Poses are made by sampling and
 * sinew_blend(). */
#include "layer/layer_internal.h"

sinew_playback sinew_playback_start(const sinew_clip *clip, bool loop)
{
    sinew_playback p = {clip, 0.0f, 1.0f, loop};
    return p;
}

static float duration_of(const sinew_playback *p) { return p->clip ? p->clip->duration : 0.0f; }

/* Puts clip time `t` (any value) into the playback, wrapping or clamping,
 * and returns the wraps. */
static int settle(sinew_playback *p, double t)
{
    double d = duration_of(p);
    if (!(d > 0.0)) {
        p->time = 0.0f;
        return 0;
    }
    if (!p->loop) {
        p->time = (float)(t < 0.0 ? 0.0 : (t > d ? d : t));
        return 0;
    }
    double turns = floor(t / d);
    double r = t - turns * d;
    if (r >= d) r -= d, turns += 1.0; /* rounding at the top end */
    if (r < 0.0) r = 0.0;
    float time = (float)r;
    if (time >= (float)d) time = 0.0f, turns += 1.0; /* r just under d rounds up in float */
    p->time = time;
    if (turns > 1e9) return 1000000000;
    if (turns < -1e9) return -1000000000;
    return (int)turns;
}

int sinew_playback_advance(sinew_playback *p, float dt)
{
    if (!p || !isfinite(dt) || !isfinite(p->speed)) return 0;
    return settle(p, (double)p->time + (double)dt * (double)p->speed);
}

float sinew_playback_phase(const sinew_playback *p)
{
    float d = p ? duration_of(p) : 0.0f;
    if (!(d > 0.0f)) return 0.0f;
    float ph = p->time / d;
    return ph < 0.0f ? 0.0f : (ph > 1.0f ? 1.0f : ph);
}

sinew_result sinew_playback_advance_synced(sinew_playback *ps, const float *weights, int count, float dt, int *wraps,
                                           sinew_error *err)
{
    if (!ps || !weights || count < 1 || !isfinite(dt))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_playback_advance_synced: playbacks, weights and a finite dt");
    int leader = -1;
    double cycle = 0.0, total = 0.0;
    for (int i = 0; i < count; ++i) {
        if (!ps[i].clip || !isfinite(ps[i].speed))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_playback_advance_synced: playback %d: a clip and a finite speed", i);
        if (!(isfinite(weights[i]) && weights[i] >= 0.0f))
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                               "sinew_playback_advance_synced: playback %d: weight %g", i, (double)weights[i]);
        double d = duration_of(&ps[i]);
        if (!(weights[i] > 0.0f) || !(d > 0.0)) continue;
        if (leader < 0 || weights[i] > weights[leader]) leader = i;
        if (ps[i].speed != 0.0f) {
            cycle += (double)weights[i] * d / fabs((double)ps[i].speed);
            total += (double)weights[i];
        }
    }
    /* phase in turns: the leader's, moved by dt over the blended cycle */
    double phase = 0.0;
    if (leader >= 0) {
        phase = (double)sinew_playback_phase(&ps[leader]);
        if (total > 0.0) phase += (double)dt / (cycle / total) * (ps[leader].speed < 0.0f ? -1.0 : 1.0);
    }
    for (int i = 0; i < count; ++i) {
        double d = duration_of(&ps[i]);
        int w = leader >= 0 ? settle(&ps[i], phase * d) : 0;
        if (wraps) wraps[i] = w;
    }
    sinew__ok(err);
    return SINEW_OK;
}

sinew_crossfade sinew_crossfade_start(sinew_playback from, sinew_playback to, float duration, bool sync)
{
    sinew_crossfade c = {from, to, isfinite(duration) && duration > 0.0f ? duration : 0.0f, 0.0f, sync};
    if (sync) settle(&c.to, (double)sinew_playback_phase(&from) * (double)duration_of(&to));
    return c;
}

float sinew_crossfade_weight(const sinew_crossfade *c)
{
    if (!c) return 0.0f;
    if (!(c->duration > 0.0f) || c->elapsed >= c->duration) return 1.0f;
    float x = c->elapsed / c->duration;
    if (!(x > 0.0f)) return 0.0f;
    return x * x * (3.0f - 2.0f * x);
}

float sinew_crossfade_advance(sinew_crossfade *c, float dt, int wraps[2])
{
    int w[2] = {0, 0};
    if (c && isfinite(dt)) {
        float to_weight = sinew_crossfade_weight(c);
        float weights[2] = {1.0f - to_weight, to_weight};
        sinew_playback both[2] = {c->from, c->to};
        if (c->sync && c->from.clip && c->to.clip &&
            sinew_playback_advance_synced(both, weights, 2, dt, w, NULL) == SINEW_OK) {
            c->from = both[0], c->to = both[1];
        } else {
            w[0] = sinew_playback_advance(&c->from, dt);
            w[1] = sinew_playback_advance(&c->to, dt);
        }
        c->elapsed = fminf(c->elapsed + fabsf(dt), c->duration > 0.0f ? c->duration : 0.0f);
    }
    if (wraps) wraps[0] = w[0], wraps[1] = w[1];
    return sinew_crossfade_weight(c);
}

