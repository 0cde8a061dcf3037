/* SPDX-License-Identifier: MIT */
/* The skinning shader on a real OpenGL driver (Mesa's llvmpipe through EGL
 * in CI): every variant (LBS and DQS, uniform-block and instanced
 * storage-block palettes, 4 and 8 influences, exact and fast normals) runs
 * through transform feedback and is compared with the CPU reference
 * (sinew_skin_lbs, sinew_skin_dqs) on the built-in character, cesium_man
 * and the other skinned sample files: positions within 1e-5 of the model's
 * size, normals and tangents within 1e-5. Skips, saying why, when the build
 * has no GL or no driver gives a context. */
#include "sinew/sinew.h"
#include "sinew/sinew_gpu.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "implied_twin.h"

#include <epoxy/gl.h>
#include <stdlib.h>

#define POSITION_TOLERANCE 1e-5 /* relative to the model's size */
#define DIRECTION_TOLERANCE 1e-5

enum { INSTANCES = 3 };

typedef struct frames {
    int joint_count;
    sinew_mat4 *palettes; /* INSTANCES palettes of joint_count */
} frames;

/* The palettes of a skinned mesh at three times of `clip` (the rest pose
 * three times without one). */
static frames pose(const sinew_asset *a, const sinew_clip *clip, const sinew_mesh *m)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count, jc = m->skin->joint_count;
    frames f = {jc, malloc(sizeof(sinew_mat4) * (size_t)jc * INSTANCES)};
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    for (int i = 0; i < INSTANCES; ++i) {
        sinew_error err = {0};
        if (clip)
            sinew_clip_sample(clip, sk, clip->duration * (0.15f + 0.3f * (float)i), 0, NULL, local, n, &err);
        else
            sinew_rest_pose(sk, local, n, &err);
        sinew_local_to_model(sk, local, NULL, model, n, &err);
        sinew_skin_palette(m->skin, model, n, NULL, &f.palettes[i * jc], jc, &err);
        CHECK(err.result == SINEW_OK, "pose: %s", err.description);
    }
    free(local);
    free(model);
    return f;
}

/* Tangents for meshes without them: any unit vector across the normal,
 * handedness alternating, so that w is seen to pass through. */
static float *made_tangents(const sinew_mesh *m)
{
    float *t = malloc(sizeof(float) * 4 * (size_t)m->vertex_count);
    for (int v = 0; v < m->vertex_count; ++v) {
        const float *n = m->normals ? &m->normals[v * 3] : (const float[3]){0, 1, 0};
        sinew_vec3 a = fabsf(n[1]) < 0.9f ? sinew_vec3_make(0, 1, 0) : sinew_vec3_make(1, 0, 0);
        sinew_vec3 c = sinew_vec3_normalize(sinew_vec3_cross(a, sinew_vec3_make(n[0], n[1], n[2])));
        t[v * 4] = c.x, t[v * 4 + 1] = c.y, t[v * 4 + 2] = c.z, t[v * 4 + 3] = v % 2 ? -1.0f : 1.0f;
    }
    return t;
}

typedef struct variant {
    sinew_skinning method;
    bool ssbo, fast_normals;
    int influences;
} variant;

static const char *const feedback[3] = {"sinew_skinned_position", "sinew_skinned_normal", "sinew_skinned_tangent"};

/* Runs one variant over every instance through transform feedback into
 * out[0..2] (positions, normals, tangents; instance after instance). */
static bool run_gpu(const variant *v, const sinew_mesh *m, const float *tangents, const frames *f, float *out[3])
{
    sinew_error err = {0};
    sinew_gl_program_desc pd = {.vertex = {.method = v->method, .ssbo = v->ssbo, .influences = v->influences,
                                           .fast_normals = v->fast_normals},
                                .feedback = feedback, .feedback_count = 3};
    unsigned program = 0, palette = 0;
    sinew_gl_mesh gm = {0};
    bool ok = true;
    if (!(program = sinew_gl_program_create(&pd, &err)) ||
        sinew_gl_mesh_upload(&(sinew_gl_mesh_desc){.vertex_count = m->vertex_count, .positions = m->positions,
                                                   .normals = m->normals, .tangents = tangents, .skin = m->skin,
                                                   .influences = v->influences},
                             &gm, &err) != SINEW_OK ||
        !(palette = sinew_gl_palette_create(f->joint_count * INSTANCES, &err)) ||
        (v->ssbo && sinew_gl_palette_write(palette, 0, v->method, f->palettes, f->joint_count * INSTANCES,
                                           &err) != SINEW_OK)) {
        CHECK(false, "GL set-up: %s", err.description);
        ok = false;
    }
    size_t vc = (size_t)m->vertex_count;
    const size_t floats[3] = {3, 3, 4};
    GLuint tf[3] = {0};
    if (ok) {
        glUseProgram(program);
        glGenBuffers(3, tf);
        for (int s = 0; s < 3; ++s) {
            glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf[s]);
            glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)(vc * floats[s] * sizeof(float) * INSTANCES),
                         NULL, GL_STATIC_READ);
        }
        glEnable(GL_RASTERIZER_DISCARD);
        glBindVertexArray(gm.vertex_array);
        if (v->ssbo) {
            /* one draw of INSTANCES instances, each with its own palette */
            glUniform1i(glGetUniformLocation(program, "sinew_joint_count"), f->joint_count);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SINEW_GL_PALETTE_BINDING, palette);
            for (int s = 0; s < 3; ++s) glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, (GLuint)s, tf[s]);
            glBeginTransformFeedback(GL_POINTS);
            glDrawArraysInstanced(GL_POINTS, 0, m->vertex_count, INSTANCES);
            glEndTransformFeedback();
        } else {
            /* one draw per instance, its palette written between draws */
            glBindBufferBase(GL_UNIFORM_BUFFER, SINEW_GL_PALETTE_BINDING, palette);
            for (int i = 0; i < INSTANCES; ++i) {
                if (sinew_gl_palette_write(palette, 0, v->method, &f->palettes[i * f->joint_count], f->joint_count,
                                           &err) != SINEW_OK)
                    CHECK(false, "palette write: %s", err.description);
                for (int s = 0; s < 3; ++s)
                    glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, (GLuint)s, tf[s],
                                      (GLintptr)(vc * floats[s] * sizeof(float) * (size_t)i),
                                      (GLsizeiptr)(vc * floats[s] * sizeof(float)));
                glBeginTransformFeedback(GL_POINTS);
                glDrawArrays(GL_POINTS, 0, m->vertex_count);
                glEndTransformFeedback();
            }
        }
        glDisable(GL_RASTERIZER_DISCARD);
        for (int s = 0; s < 3; ++s) {
            glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf[s]);
            glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0,
                               (GLsizeiptr)(vc * floats[s] * sizeof(float) * INSTANCES), out[s]);
        }
        GLenum e = glGetError();
        CHECK(e == GL_NO_ERROR, "GL error 0x%04x", e);
        ok = e == GL_NO_ERROR;
    }
    glDeleteBuffers(3, tf);
    glDeleteBuffers(1, &palette);
    sinew_gl_mesh_free(&gm);
    glDeleteProgram(program);
    return ok;
}

/* The CPU reference for the same variant into out[0..2]. */
static void run_cpu(const variant *v, const sinew_mesh *m, const float *tangents, const frames *f, float *out[3])
{
    size_t vc = (size_t)m->vertex_count;
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)f->joint_count);
    for (int i = 0; i < INSTANCES; ++i) {
        const sinew_mat4 *pal = &f->palettes[i * f->joint_count];
        sinew_error err = {0};
        sinew_skin_job job = {.skin = m->skin, .palette = pal, .palette_count = f->joint_count,
                              .normal_mode = v->fast_normals ? SINEW_NORMALS_FAST : SINEW_NORMALS_INVERSE_TRANSPOSE,
                              .positions = m->positions, .normals = m->normals, .tangents = tangents,
                              .out_positions = out[0] + vc * 3 * (size_t)i,
                              .out_normals = m->normals ? out[1] + vc * 3 * (size_t)i : NULL,
                              .out_tangents = out[2] + vc * 4 * (size_t)i};
        if (v->method == SINEW_SKINNING_DQS) {
            sinew_dq_palette(pal, f->joint_count, dq, &err);
            job.palette = NULL;
            job.dq_palette = dq;
            sinew_skin_dqs(&job, &err);
        } else {
            sinew_skin_lbs(&job, &err);
        }
        CHECK(err.result == SINEW_OK, "CPU reference: %s", err.description);
    }
    free(dq);
}

static double max_diff(const float *a, const float *b, size_t n, size_t stride, size_t width)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < width; ++k) {
            double d = fabs((double)a[i * stride + k] - (double)b[i * stride + k]);
            if (!(d <= worst)) worst = d; /* NaN wins */
        }
    return worst;
}

static double model_size(const float *p, size_t n)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], p[i * 3 + k]), hi[k] = fmaxf(hi[k], p[i * 3 + k]);
    return sqrt((double)(hi[0] - lo[0]) * (hi[0] - lo[0]) + (double)(hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (double)(hi[2] - lo[2]) * (hi[2] - lo[2]));
}

static void check_mesh(const char *name, const sinew_asset *a, const sinew_clip *clip, const sinew_mesh *m)
{
    frames f = pose(a, clip, m);
    float *tangents = m->tangents ? NULL : made_tangents(m);
    const float *tan = m->tangents ? m->tangents : tangents;
    size_t vc = (size_t)m->vertex_count, total = vc * INSTANCES;
    float *gpu[3], *cpu[3];
    const size_t floats[3] = {3, 3, 4};
    for (int s = 0; s < 3; ++s) {
        gpu[s] = malloc(sizeof(float) * floats[s] * total);
        cpu[s] = malloc(sizeof(float) * floats[s] * total);
    }
    for (int method = 0; method < 2; ++method)
        for (int ssbo = 0; ssbo < 2; ++ssbo)
            for (int wide = 0; wide < 2; ++wide)
                for (int fast = 0; fast < 1 + (method == 0); ++fast) {
                    variant v = {(sinew_skinning)method, ssbo, fast, wide ? 8 : 4};
                    if (v.influences < m->skin->influence_count) continue;
                    if (!ssbo && f.joint_count > SINEW_GLSL_UBO_JOINTS) continue;
                    char what[160];
                    snprintf(what, sizeof what, "%s mesh \"%s\" %s %s %d influences%s", name, m->name,
                             method ? "DQS" : "LBS", ssbo ? "SSBO x3" : "UBO", v.influences,
                             fast ? " fast normals" : "");
                    if (!run_gpu(&v, m, tan, &f, gpu)) continue;
                    run_cpu(&v, m, tan, &f, cpu);
                    double size = model_size(cpu[0], total);
                    double ep = max_diff(gpu[0], cpu[0], total, 3, 3) / size;
                    double en = m->normals ? max_diff(gpu[1], cpu[1], total, 3, 3) : 0.0;
                    double et = max_diff(gpu[2], cpu[2], total, 4, 4);
                    printf("%-70s positions %.2e of %.3g, normals %.2e, tangents %.2e\n", what, ep, size, en, et);
                    CHECK(ep <= POSITION_TOLERANCE, "%s: positions off by %.3g of the model's size", what, ep);
                    CHECK(en <= DIRECTION_TOLERANCE, "%s: normals off by %.3g", what, en);
                    CHECK(et <= DIRECTION_TOLERANCE, "%s: tangents off by %.3g", what, et);
                }
    for (int s = 0; s < 3; ++s) free(gpu[s]), free(cpu[s]);
    free(tangents);
    free(f.palettes);
}

/* Every skinned mesh of `a` played by `clip` (NULL: its first clip). */
static void check_asset(const char *name, sinew_asset *a, const sinew_clip *clip)
{
    int skinned = 0;
    if (!clip && a->clip_count > 0) clip = a->clips[0];
    CHECK(clip != NULL, "%s: a clip to play", name);
    for (int i = 0; i < a->mesh_count; ++i)
        if (a->meshes[i].skin) {
            check_mesh(name, a, clip, &a->meshes[i]);
            ++skinned;
        }
    CHECK(skinned > 0, "%s has a skinned mesh", name);
    sinew_asset_free(a);
}

/* The helper's argument checks, which need a context but no drawing. */
static void check_errors(const sinew_asset *demo)
{
    sinew_error err = {0};
    const sinew_mesh *m = &demo->meshes[0];
    sinew_gl_mesh gm;
    uint32_t bad[3] = {0, 1, (uint32_t)m->vertex_count};
    CHECK(sinew_gl_mesh_upload(&(sinew_gl_mesh_desc){.vertex_count = m->vertex_count, .positions = m->positions,
                                                     .index_count = 3, .indices = bad},
                               &gm, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "an index past the vertices");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "index 2 is");
    unsigned buffer = sinew_gl_palette_create(4, &err);
    CHECK(buffer != 0 && err.result == SINEW_OK, "palette: %s", err.description);
    sinew_mat4 pal[5];
    for (int i = 0; i < 5; ++i) pal[i] = sinew_mat4_identity();
    CHECK(sinew_gl_palette_write(buffer, 254, SINEW_SKINNING_LBS, pal, 4, &err) == SINEW_ERROR_INVALID_ARGUMENT,
          "writing past the buffer");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "slots 254 to 257 exceed the buffer's 256");
    memset(pal[2].m, 0, sizeof pal[2].m);
    CHECK(sinew_gl_palette_write(buffer, 0, SINEW_SKINNING_DQS, pal, 4, &err) == SINEW_ERROR_SINGULAR,
          "a singular matrix for DQS");
    CHECK_ERROR(err, SINEW_ERROR_SINGULAR, "matrix 2 is singular");
    glDeleteBuffers(1, &buffer);
    unsigned program = sinew_gl_program_create(
        &(sinew_gl_program_desc){.vertex = {.no_main = true}, .vertex_main = "void main() { gl_Position = oops; }"},
        &err);
    CHECK(program == 0, "a vertex shader that does not compile gives no program");
    CHECK_ERROR(err, SINEW_ERROR_GPU, "sinew_gl_program_create: the vertex shader does not compile");
}

int main(void)
{
    sinew_error err = {0};
    sinew_gl_context *ctx = sinew_gl_context_create(&err);
    if (!ctx) {
        printf("skip: no OpenGL context: %s\n", err.description);
        return 77;
    }
    printf("OpenGL %s on %s\n", (const char *)glGetString(GL_VERSION), (const char *)glGetString(GL_RENDERER));
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    check_errors(demo);
    /* a compact stream: the built-in skin with its last weights implied */
    sinew_skin *twin = implied_twin(demo->skeleton, demo->meshes[0].skin);
    if (twin) {
        sinew_mesh compact = demo->meshes[0];
        compact.skin = twin;
        check_mesh("built-in, last weight implied", demo, demo->clips[0], &compact);
    }
    sinew_skin_free(twin);
    check_asset("built-in", demo, NULL);

    /* a character and, for one without clips, the file its animation is in */
    static const char *const files[][2] = {{"gltf/cesium_man.gltf", NULL},
                                           {"gltf/rigged_simple.gltf", NULL},
                                           {"fbx/pab/arnaud.fbx", "fbx/pab/walk.fbx"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        sinew_asset *loaded[2] = {NULL, NULL};
        for (int k = 0; k < 2 && files[i][k]; ++k) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", SINEW_ASSETS, files[i][k]);
            loaded[k] = sinew_load_file(path, NULL, &err);
            if (!loaded[k]) break;
        }
        if (!loaded[0] || (files[i][1] && !loaded[1])) {
            if (err.result == SINEW_ERROR_IO || err.result == SINEW_ERROR_UNSUPPORTED)
                printf("skip: %s: %s\n", files[i][0], err.description);
            else
                CHECK(false, "%s: %s", files[i][0], err.description);
            sinew_asset_free(loaded[0]);
            continue;
        }
        sinew_clip *clip = NULL;
        if (loaded[1]) {
            CHECK(loaded[1]->clip_count > 0, "%s has a clip", files[i][1]);
            if (loaded[1]->clip_count > 0)
                clip = sinew_clip_retarget(loaded[1]->clips[0], loaded[1]->skeleton, loaded[0]->skeleton, NULL, NULL,
                                           &err);
            CHECK(clip != NULL, "%s on %s: %s", files[i][1], files[i][0], err.description);
            sinew_asset_free(loaded[1]);
        }
        check_asset(files[i][0], loaded[0], clip);
        sinew_clip_free(clip);
    }
    sinew_gl_context_free(ctx);
    return check_finish("test_gl");
}
