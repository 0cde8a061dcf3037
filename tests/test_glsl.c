/* SPDX-License-Identifier: MIT */
/* The GPU text and layout, no GL needed: sinew_glsl_compose() builds every
 * variant's text (and sizes it as snprintf does), the embedded string is
 * shaders/sinew_skin.vert as it is now (and the texture player's
 * shaders/sinew_vat.vert), and sinew_gpu_dq_pack() drops
 * nothing but rounding noise: the stretch of real palettes (the built-in
 * character's idle clip scales its chest non-uniformly) is upper
 * triangular. */
#include "sinew/sinew.h"
#include "sinew/sinew_gpu.h"
#include "check.h"
#include "read_file.h"

#include <stdlib.h>

static void check_compose(void)
{
    size_t n = sinew_glsl_compose(NULL, NULL, 0);
    char *text = malloc(n + 1);
    CHECK(sinew_glsl_compose(NULL, text, n + 1) == n && strlen(text) == n, "the size query is exact");
    CHECK(strncmp(text, "#version 330 core\n", 18) == 0, "defaults: GLSL 3.30: %.20s", text);
    CHECK(strcmp(text + n - strlen(sinew_glsl_skin_vert), sinew_glsl_skin_vert) == 0, "the shader follows");
    CHECK(!strstr(text, "#define SINEW_DQS"), "defaults: LBS");
    char small[12];
    CHECK(sinew_glsl_compose(NULL, small, sizeof small) == n && strlen(small) == sizeof small - 1,
          "cut short, NUL-terminated, the full length returned");
    free(text);

    sinew_glsl_options o = {.method = SINEW_SKINNING_DQS, .ssbo = true, .influences = 5, .no_main = true};
    n = sinew_glsl_compose(&o, NULL, 0);
    text = malloc(n + 1);
    sinew_glsl_compose(&o, text, n + 1);
    CHECK(strncmp(text, "#version 430 core\n", 18) == 0, "the SSBO palette needs GLSL 4.30");
    CHECK(strstr(text, "#define SINEW_DQS 1\n") && strstr(text, "#define SINEW_PALETTE_SSBO 1\n") &&
              strstr(text, "#define SINEW_INFLUENCES 8\n") && strstr(text, "#define SINEW_NO_MAIN 1\n"),
          "every option is defined:\n%s", text);
    free(text);
    o = (sinew_glsl_options){.version = "450 core", .influences = 4, .fast_normals = true};
    n = sinew_glsl_compose(&o, NULL, 0);
    text = malloc(n + 1);
    sinew_glsl_compose(&o, text, n + 1);
    CHECK(strncmp(text, "#version 450 core\n", 18) == 0 && !strstr(text, "#define SINEW_INFLUENCES 8") &&
              strstr(text, "#define SINEW_FAST_NORMALS 1\n"),
          "the given version, 4 influences, fast normals");
    free(text);
    /* the texture player: its own text, the skinning options left out */
    o = (sinew_glsl_options){.vat = true, .vat_float = true, .ssbo = true, .method = SINEW_SKINNING_DQS};
    n = sinew_glsl_compose(&o, NULL, 0);
    text = malloc(n + 1);
    CHECK(sinew_glsl_compose(&o, text, n + 1) == n && strlen(text) == n, "VAT: the size query is exact");
    CHECK(strncmp(text, "#version 330 core\n", 18) == 0 && strstr(text, "#define SINEW_VAT_FLOAT 1\n") &&
              !strstr(text, "#define SINEW_DQS") && !strstr(text, "#define SINEW_PALETTE_SSBO"),
          "VAT: GLSL 3.30, float textures, no skinning options:\n%.200s", text);
    CHECK(strcmp(text + n - strlen(sinew_glsl_vat_vert), sinew_glsl_vat_vert) == 0, "VAT: the player follows");
    free(text);
}

static void check_embedded(void)
{
    static const char *const files[2] = {SINEW_SOURCE_DIR "/shaders/sinew_skin.vert",
                                         SINEW_SOURCE_DIR "/shaders/sinew_vat.vert"};
    const char *strings[2] = {sinew_glsl_skin_vert, sinew_glsl_vat_vert};
    for (int i = 0; i < 2; ++i) {
        size_t size = 0;
        unsigned char *file = test_read_file(files[i], &size);
        CHECK(file != NULL, "%s is readable", files[i]);
        if (file) CHECK(strcmp((const char *)file, strings[i]) == 0, "the string is %s", files[i]);
        free(file);
    }
}

static void check_dq_pack(void)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_demo_create(NULL, &err);
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *m = &a->meshes[0];
    int n = sk->joint_count, jc = m->skin->joint_count;
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *pal = malloc(sizeof *pal * (size_t)jc);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)jc);
    float *packed = malloc(sizeof(float) * SINEW_GPU_SLOT_FLOATS * (size_t)jc);
    const sinew_clip *idle = sinew_asset_find_clip(a, "idle");
    double worst_lower = 0.0, worst_off_diagonal = 0.0;
    for (int k = 0; k < 12; ++k) {
        sinew_clip_sample(idle, sk, idle->duration * (float)k / 12.0f, 0, NULL, local, n, &err);
        sinew_local_to_model(sk, local, NULL, model, n, &err);
        sinew_skin_palette(m->skin, model, n, NULL, pal, jc, &err);
        sinew_dq_palette(pal, jc, dq, &err);
        sinew_gpu_dq_pack(dq, jc, packed);
        for (int j = 0; j < jc; ++j) {
            const float *s = dq[j].stretch, *p = &packed[j * SINEW_GPU_SLOT_FLOATS];
            double scale = fabs(s[0]) + fabs(s[4]) + fabs(s[8]);
            worst_lower = fmax(worst_lower, (fabs(s[1]) + fabs(s[2]) + fabs(s[5])) / scale);
            worst_off_diagonal = fmax(worst_off_diagonal, (fabs(s[3]) + fabs(s[6]) + fabs(s[7])) / scale);
            const float want[16] = {dq[j].real.x, dq[j].real.y, dq[j].real.z, dq[j].real.w, dq[j].dual.x,
                                    dq[j].dual.y, dq[j].dual.z, dq[j].dual.w, s[0], s[3], s[6], s[4], s[7], s[8],
                                    0, 0};
            CHECK(memcmp(p, want, sizeof want) == 0, "joint %d packed in the documented order", j);
        }
    }
    printf("stretch below the diagonal: %.2g, above: %.2g (relative)\n", worst_lower, worst_off_diagonal);
    CHECK(worst_lower <= 1e-6, "the stretch is upper triangular: %.3g below the diagonal", worst_lower);
    CHECK(worst_off_diagonal > 1e-4, "the test sees a stretch that is not diagonal (%.3g)", worst_off_diagonal);
    free(local), free(model), free(pal), free(dq), free(packed);
    sinew_asset_free(a);
}

/* The compact formats of the CUDA crowd path, on the host. */
static void check_compact_formats(void)
{
    int round_trip_bad = 0;
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        float f = sinew_half_to_float((uint16_t)h);
        uint16_t back = sinew_float_to_half(f);
        bool nan = ((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff);
        round_trip_bad += nan ? !(isnan(f) && (back & 0x7fff) == 0x7e00 && (back & 0x8000) == (h & 0x8000))
                              : back != h;
    }
    CHECK(round_trip_bad == 0, "every half survives half -> float -> half (%d do not)", round_trip_bad);
    static const struct {
        float f;
        uint16_t h;
    } cases[] = {{1.0f, 0x3c00}, {-2.0f, 0xc000}, {65504.0f, 0x7bff}, {65519.0f, 0x7bff}, {65520.0f, 0x7c00},
                 {1e9f, 0x7c00}, {0x1p-24f, 0x0001}, {0x1p-25f, 0x0000}, {0x1.000002p-25f, 0x0001},
                 {0x3p-25f, 0x0002}, {1.0f + 0x1p-11f, 0x3c00}, {1.0f + 0x3p-11f, 0x3c02}, {0x1p-14f, 0x0400},
                 {0x1.ffcp-15f, 0x0400}, {-0.0f, 0x8000}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
        CHECK(sinew_float_to_half(cases[i].f) == cases[i].h, "half of %a: %#x, want %#x", (double)cases[i].f,
              sinew_float_to_half(cases[i].f), cases[i].h);
    /* nearest, ties to even, over random floats of every size a half holds */
    uint32_t seed = 99u;
    int not_nearest = 0;
    for (int i = 0; i < 200000; ++i) {
        seed = seed * 1664525u + 1013904223u;
        float f = ldexpf((float)(seed >> 8) / 16777216.0f + 0.5f, (int)(seed % 43u) - 27) * ((seed & 1u) ? -1 : 1);
        uint16_t h = sinew_float_to_half(f);
        double err = fabs((double)sinew_half_to_float(h) - f);
        for (int d = -1; d <= 1; d += 2) {
            uint16_t g = (uint16_t)(h + d);
            if (((g >> 10) & 0x1f) == 0x1f || (g & 0x7fff) == 0x7fff || ((h & 0x7fff) == 0 && d < 0)) continue;
            double eg = fabs((double)sinew_half_to_float(g) - f);
            not_nearest += eg < err || (eg == err && (h & 1));
        }
    }
    CHECK(not_nearest == 0, "float -> half rounds to the nearest, ties to even (%d not)", not_nearest);

    /* octahedral words: every direction within the documented 7e-5 (the
     * rounding of p, 1.5e-5 a component, through the normalization: at most
     * sqrt(3) times its 3.7e-5) */
    double worst = 0.0;
    for (int i = 0; i < 200000; ++i) {
        float n[3], d[3];
        double len2 = 0.0;
        do {
            len2 = 0.0;
            for (int x = 0; x < 3; ++x) {
                seed = seed * 1664525u + 1013904223u;
                n[x] = (float)(seed >> 8) / 8388608.0f - 1.0f;
                len2 += (double)n[x] * n[x];
            }
        } while (len2 > 1.0 || len2 < 1e-6);
        if (i < 6) n[0] = n[1] = n[2] = 0.0f, n[i / 2] = i % 2 ? -1.0f : 1.0f, len2 = 1.0; /* the axes */
        for (int x = 0; x < 3; ++x) n[x] = (float)(n[x] / sqrt(len2));
        sinew_octahedral_decode(sinew_octahedral_encode(n), d);
        double e = 0.0;
        for (int x = 0; x < 3; ++x) e = fmax(e, fabs((double)d[x] - n[x]));
        worst = fmax(worst, e);
        if (i < 6) CHECK(e == 0.0, "axis %d exactly: %g %g %g", i, (double)d[0], (double)d[1], (double)d[2]);
    }
    printf("octahedral words: worst component error %.2e\n", worst);
    CHECK(worst <= 7e-5, "octahedral words within 7e-5: %.3g", worst);
    float zero[3] = {0, 0, 0}, up[3];
    sinew_octahedral_decode(sinew_octahedral_encode(zero), up);
    CHECK(up[0] == 0.0f && up[1] == 0.0f && up[2] == 1.0f, "a zero vector as +z");
}

int main(void)
{
    check_compact_formats();
    check_compose();
    check_embedded();
    check_dq_pack();
    return check_finish("test_glsl");
}
