/* Shared by the skin sources: reading a vertex's influences and addressing
 * strided streams. */
#ifndef SINEW_SKIN_INTERNAL_H
#define SINEW_SKIN_INTERNAL_H

#include "../internal.h"

/* Decodes vertex v's influences; returns the influence count (zero weights
 * included: callers skip them). */
static inline int sinew__skin_fetch(const sinew_skin *s, int v, int *idx, float *w)
{
    int n = s->influence_count;
    size_t base = (size_t)v * (size_t)n;
    if (s->index_type == SINEW_INDEX_U8) {
        const uint8_t *p = (const uint8_t *)s->indices + base;
        for (int i = 0; i < n; ++i) idx[i] = p[i];
    } else {
        const uint16_t *p = (const uint16_t *)s->indices + base;
        for (int i = 0; i < n; ++i) idx[i] = p[i];
    }
    switch (s->weight_type) {
    case SINEW_WEIGHT_F32: {
        const float *p = (const float *)s->weights + base;
        for (int i = 0; i < n; ++i) w[i] = p[i];
        break;
    }
    case SINEW_WEIGHT_UNORM8: {
        const uint8_t *p = (const uint8_t *)s->weights + base;
        for (int i = 0; i < n; ++i) w[i] = (float)p[i] * (1.0f / 255.0f);
        break;
    }
    default: {
        const uint16_t *p = (const uint16_t *)s->weights + base;
        for (int i = 0; i < n; ++i) w[i] = (float)p[i] * (1.0f / 65535.0f);
        break;
    }
    }
    return n;
}

static inline const float *sinew__in(const float *base, size_t stride, int v)
{
    return (const float *)((const char *)base + (size_t)v * stride);
}

static inline float *sinew__out(float *base, size_t stride, int v)
{
    return (float *)((char *)base + (size_t)v * stride);
}

/* The range [*begin, *end) of a validated job, strides with 0 resolved. */
typedef struct sinew__job_streams {
    int begin, end;
    size_t ps, ns, ts, ops, ons, ots;
} sinew__job_streams;

sinew__job_streams sinew__job_resolve(const sinew_skin_job *job);

#endif
