/* SPDX-License-Identifier: MIT */
/* The skinning and vertex animation texture shaders' variants and the GPU palette layout: no GL here. */
#include "sinew/sinew_gpu.h"

#include <stdio.h>
#include <string.h>

/* `body` after the `head` characters snprintf wrote (or would have): cut
 * short to fit, NUL-terminated; the whole length returned. */
static size_t append(char *out, size_t capacity, size_t head, const char *body)
{
    size_t length = strlen(body);
    if (head < capacity) {
        size_t room = capacity - head - 1;
        size_t copy = length < room ? length : room;
        memcpy(out + head, body, copy);
        out[head + copy] = '\0';
    }
    return head + length;
}

size_t sinew_glsl_compose(const sinew_glsl_options *options, char *out, size_t capacity)
{
    static const sinew_glsl_options defaults = {0};
    const sinew_glsl_options *o = options ? options : &defaults;
    const char *version = o->version ? o->version : o->ssbo && !o->vat ? "430 core" : "330 core";
    if (o->vat) {
        /* the skinning options mean nothing to the texture player */
        const char *text = sinew_glsl_vat_vert;
        int n = snprintf(out, capacity, "#version %s\n%s%s#line 1\n", version,
                         o->vat_float ? "#define SINEW_VAT_FLOAT 1\n" : "", o->no_main ? "#define SINEW_NO_MAIN 1\n" : "");
        if (n < 0) return 0;
        return append(out, capacity, (size_t)n, text);
    }
    int n = snprintf(out, capacity, "#version %s\n%s%s%s%s%s#line 1\n", version,
                     o->method == SINEW_SKINNING_DQS ? "#define SINEW_DQS 1\n" : "",
                     o->ssbo ? "#define SINEW_PALETTE_SSBO 1\n" : "",
                     o->influences > 4 ? "#define SINEW_INFLUENCES 8\n" : "",
                     o->fast_normals ? "#define SINEW_FAST_NORMALS 1\n" : "",
                     o->no_main ? "#define SINEW_NO_MAIN 1\n" : "");
    if (n < 0) return 0;
    return append(out, capacity, (size_t)n, sinew_glsl_skin_vert);
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
