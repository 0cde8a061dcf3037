/* SPDX-License-Identifier: MIT */
/* The skinning shader's variants and the GPU palette layout: no GL here. */
#include "sinew/sinew_gpu.h"

#include <stdio.h>
#include <string.h>

size_t sinew_glsl_compose(const sinew_glsl_options *options, char *out, size_t capacity)
{
    static const sinew_glsl_options defaults = {0};
    const sinew_glsl_options *o = options ? options : &defaults;
    const char *version = o->version ? o->version : o->ssbo ? "430 core" : "330 core";
    int n = snprintf(out, capacity, "#version %s\n%s%s%s%s%s#line 1\n", version,
                     o->method == SINEW_SKINNING_DQS ? "#define SINEW_DQS 1\n" : "",
                     o->ssbo ? "#define SINEW_PALETTE_SSBO 1\n" : "",
                     o->influences > 4 ? "#define SINEW_INFLUENCES 8\n" : "",
                     o->fast_normals ? "#define SINEW_FAST_NORMALS 1\n" : "",
                     o->no_main ? "#define SINEW_NO_MAIN 1\n" : "");
    if (n < 0) return 0;
    size_t head = (size_t)n, body = strlen(sinew_glsl_skin_vert);
    if (head < capacity) {
        size_t room = capacity - head - 1;
        size_t copy = body < room ? body : room;
        memcpy(out + head, sinew_glsl_skin_vert, copy);
        out[head + copy] = '\0';
    }
    return head + body;
}

void sinew_gpu_dq_pack(const sinew_dq_transform *dq, int count, float *out)
{
    for (int j = 0; j < count; ++j, out += SINEW_GPU_SLOT_FLOATS) {
        const sinew_dq_transform *d = &dq[j];
        const float *s = d->stretch; /* column-major: s[c * 3 + r] */
        float slot[SINEW_GPU_SLOT_FLOATS] = {d->real.x, d->real.y, d->real.z, d->real.w,
                                             d->dual.x, d->dual.y, d->dual.z, d->dual.w,
                                             s[0], s[3], s[6], s[4], s[7], s[8], 0.0f, 0.0f};
        memcpy(out, slot, sizeof slot);
    }
}
