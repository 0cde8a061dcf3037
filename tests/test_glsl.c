/* The GPU text and layout, no GL needed: sinew_glsl_compose() builds every
 * variant's text (and sizes it as snprintf does), the embedded string is
 * shaders/sinew_skin.vert as it is now, and sinew_gpu_dq_pack() drops
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
}

static void check_embedded(void)
{
    size_t size = 0;
    unsigned char *file = test_read_file(SINEW_SOURCE_DIR "/shaders/sinew_skin.vert", &size);
    CHECK(file != NULL, "shaders/sinew_skin.vert is readable");
    if (file) CHECK(strcmp((const char *)file, sinew_glsl_skin_vert) == 0, "the string is the file");
    free(file);
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

int main(void)
{
    check_compose();
    check_embedded();
    check_dq_pack();
    return check_finish("test_glsl");
}
