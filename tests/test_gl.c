/* SPDX-License-Identifier: MIT */
/* The skinning shader on a real OpenGL driver (Mesa's llvmpipe through EGL
 * in CI): every variant (LBS and DQS, uniform-block and instanced
 * storage-block palettes, 4 and 8 influences, exact and fast normals) runs
 * through transform feedback and is compared with the CPU reference
 * (sinew_skin_lbs, sinew_skin_dqs) on the built-in character, cesium_man
 * and the other skinned sample files: positions within 1e-5 of the model's
 * size, normals and tangents within 1e-5. The vertex animation texture
 * player (16-bit and float32 textures) gives, at any time, the two frames
 * about it mixed: at a frame, between two, across the loop. Skips, saying
 * why, when the build has no GL or no driver gives a context. */
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

/* ---- vertex animation textures (shaders/sinew_vat.vert) ------------------ */

enum { VAT_FRAMES = 5, VAT_INSTANCES = 5 };

/* The octahedral map of docs/VAT.md and its inverse (unit length). */
static void vat_oct_encode(const float n[3], double p[2])
{
    double s = fabs((double)n[0]) + fabs((double)n[1]) + fabs((double)n[2]), x = n[0] / s, y = n[1] / s;
    if (n[2] < 0.0f) {
        double fx = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0), fy = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
        x = fx, y = fy;
    }
    p[0] = x, p[1] = y;
}

static void vat_oct_decode(double px, double py, double n[3])
{
    n[0] = px, n[1] = py, n[2] = 1.0 - fabs(px) - fabs(py);
    if (n[2] < 0.0) {
        n[0] = (1.0 - fabs(py)) * (px >= 0.0 ? 1.0 : -1.0);
        n[1] = (1.0 - fabs(px)) * (py >= 0.0 ? 1.0 : -1.0);
    }
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k) n[k] /= l;
}

static uint16_t vat_quantize(double x, double lo, double hi)
{
    return hi > lo ? (uint16_t)fmin(65535.0, fmax(0.0, floor((x - lo) / (hi - lo) * 65535.0 + 0.5))) : 0;
}

static GLuint vat_texture(GLenum unit, bool raw, int width, int height, const void *texels)
{
    GLuint t;
    glActiveTexture(unit);
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, raw ? GL_RGB32F : GL_RGB16, width, height, 0, GL_RGB,
                 raw ? GL_FLOAT : GL_UNSIGNED_SHORT, texels);
    return t;
}

/* The built-in character's walk baked at VAT_FRAMES frames into textures
 * laid out as docs/VAT.md says (two rows a frame, to exercise the layout),
 * 16-bit or float32; the shader played by several instances, each at its
 * own time offset, through transform feedback: at a frame, between two, at
 * the midpoint, and across the loop from the last frame to the first, each
 * equal to the two frames decoded and mixed on the CPU. */
static void check_vat(const sinew_asset *demo, bool raw)
{
    const sinew_mesh *m = &demo->meshes[0];
    const sinew_clip *clip = demo->clips[0];
    const sinew_skeleton *sk = demo->skeleton;
    int vc = m->vertex_count, n = sk->joint_count, rows = 2, width = (vc + rows - 1) / rows;
    int height = VAT_FRAMES * rows;
    float fps = (float)VAT_FRAMES / clip->duration;
    size_t fv = (size_t)vc * 3, texels = (size_t)width * (size_t)height;
    float *p = malloc(sizeof(float) * fv * VAT_FRAMES), *nr = malloc(sizeof(float) * fv * VAT_FRAMES);
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    sinew_mat4 *palette = malloc(sizeof *palette * (size_t)m->skin->joint_count);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int f = 0; f < VAT_FRAMES; ++f) {
        sinew_error err = {0};
        sinew_clip_sample(clip, sk, (float)f / fps, SINEW_SAMPLE_LOOP, NULL, local, n, &err);
        sinew_local_to_model(sk, local, NULL, model, n, &err);
        sinew_skin_palette(m->skin, model, n, NULL, palette, m->skin->joint_count, &err);
        sinew_skin_job job = {.skin = m->skin, .palette = palette, .palette_count = m->skin->joint_count,
                              .positions = m->positions, .normals = m->normals,
                              .out_positions = &p[fv * (size_t)f], .out_normals = &nr[fv * (size_t)f]};
        sinew_skin_lbs(&job, &err);
        CHECK(err.result == SINEW_OK, "VAT frames: %s", err.description);
        for (size_t i = 0; i < fv; ++i)
            lo[i % 3] = fminf(lo[i % 3], p[fv * (size_t)f + i]), hi[i % 3] = fmaxf(hi[i % 3], p[fv * (size_t)f + i]);
    }
    /* the textures, and what the shader should read back from them */
    uint16_t *qp = calloc(texels * 3, sizeof *qp), *qn = calloc(texels * 3, sizeof *qn);
    float *fp = calloc(texels * 3, sizeof *fp), *fn = calloc(texels * 3, sizeof *fn);
    double *dp = malloc(sizeof(double) * fv * VAT_FRAMES), *dn = malloc(sizeof(double) * fv * VAT_FRAMES);
    for (int f = 0; f < VAT_FRAMES; ++f)
        for (int v = 0; v < vc; ++v) {
            size_t t = ((size_t)f * (size_t)rows + (size_t)(v / width)) * (size_t)width + (size_t)(v % width);
            size_t i = fv * (size_t)f + (size_t)v * 3;
            double o[2];
            vat_oct_encode(&nr[i], o);
            for (int k = 0; k < 3; ++k) {
                qp[t * 3 + k] = vat_quantize(p[i + k], lo[k], hi[k]);
                fp[t * 3 + k] = p[i + k], fn[t * 3 + k] = nr[i + k];
                dp[i + k] = raw ? p[i + k] : qp[t * 3 + k] / 65535.0 * ((double)hi[k] - lo[k]) + lo[k];
            }
            qn[t * 3] = vat_quantize(o[0], -1.0, 1.0), qn[t * 3 + 1] = vat_quantize(o[1], -1.0, 1.0);
            if (raw)
                for (int k = 0; k < 3; ++k) dn[i + k] = nr[i + k];
            else
                vat_oct_decode(qn[t * 3] / 65535.0 * 2.0 - 1.0, qn[t * 3 + 1] / 65535.0 * 2.0 - 1.0, &dn[i]);
        }

    static const char *const outputs[2] = {"sinew_vat_position", "sinew_vat_normal"};
    sinew_error err = {0};
    unsigned program = sinew_gl_program_create(
        &(sinew_gl_program_desc){.vertex = {.vat = true, .vat_float = raw}, .feedback = outputs, .feedback_count = 2},
        &err);
    CHECK(program != 0, "VAT program: %s", err.description);
    /* frame coordinates u = (time + offset) * fps of each instance: on frame
     * 3, a quarter past 1, halfway 1-2, across the loop (4 to 0, a period
     * later), and before the start (wrapping back to 4-0) */
    const double u[VAT_INSTANCES] = {3.0, 1.25, 1.5, 4.5 + VAT_FRAMES, -0.25};
    const float time = 0.5f / fps;
    float offsets[VAT_INSTANCES];
    for (int i = 0; i < VAT_INSTANCES; ++i) offsets[i] = (float)(u[i] / (double)fps) - time;
    GLuint tex[2] = {vat_texture(GL_TEXTURE0, raw, width, height, raw ? (void *)fp : (void *)qp),
                     vat_texture(GL_TEXTURE1, raw, width, height, raw ? (void *)fn : (void *)qn)};
    GLuint vao, offset_buffer, tf[2];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &offset_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, offset_buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof offsets, offsets, GL_STATIC_DRAW);
    glEnableVertexAttribArray(7);
    glVertexAttribPointer(7, 1, GL_FLOAT, GL_FALSE, 0, NULL);
    glVertexAttribDivisor(7, 1);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glGenBuffers(2, tf);
    size_t out_bytes = sizeof(float) * fv * VAT_INSTANCES;
    for (int s = 0; s < 2; ++s) {
        glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf[s]);
        glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)out_bytes, NULL, GL_STATIC_READ);
        glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, (GLuint)s, tf[s]);
    }
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "sinew_vat_positions"), 0);
    glUniform1i(glGetUniformLocation(program, "sinew_vat_normals"), 1);
    glUniform3fv(glGetUniformLocation(program, "sinew_vat_bounds_min"), 1, lo);
    glUniform3fv(glGetUniformLocation(program, "sinew_vat_bounds_max"), 1, hi);
    glUniform1i(glGetUniformLocation(program, "sinew_vat_width"), width);
    glUniform1i(glGetUniformLocation(program, "sinew_vat_rows_per_frame"), rows);
    glUniform1i(glGetUniformLocation(program, "sinew_vat_frames"), VAT_FRAMES);
    glUniform1f(glGetUniformLocation(program, "sinew_vat_fps"), fps);
    glUniform1f(glGetUniformLocation(program, "sinew_vat_time"), time);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArraysInstanced(GL_POINTS, 0, vc, VAT_INSTANCES);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    float *gp = malloc(out_bytes), *gn = malloc(out_bytes);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf[0]);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)out_bytes, gp);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf[1]);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)out_bytes, gn);
    GLenum e = glGetError();
    CHECK(e == GL_NO_ERROR, "VAT: GL error 0x%04x", e);

    double size = 0.0;
    for (int k = 0; k < 3; ++k) size += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
    size = sqrt(size);
    for (int i = 0; i < VAT_INSTANCES && program; ++i) {
        double w = u[i] - VAT_FRAMES * floor(u[i] / VAT_FRAMES);
        int f0 = (int)floor(w), f1 = (f0 + 1) % VAT_FRAMES;
        double a = w - f0, ep = 0.0, en = 0.0;
        for (int v = 0; v < vc; ++v) {
            const double *p0 = &dp[fv * (size_t)f0 + (size_t)v * 3], *p1 = &dp[fv * (size_t)f1 + (size_t)v * 3];
            const double *n0 = &dn[fv * (size_t)f0 + (size_t)v * 3], *n1 = &dn[fv * (size_t)f1 + (size_t)v * 3];
            double want_n[3], l = 0.0;
            for (int k = 0; k < 3; ++k) want_n[k] = n0[k] + a * (n1[k] - n0[k]), l += want_n[k] * want_n[k];
            for (int k = 0; k < 3; ++k) {
                size_t o = fv * (size_t)i + (size_t)v * 3 + (size_t)k;
                double d = fabs((double)gp[o] - (p0[k] + a * (p1[k] - p0[k])));
                if (!(d <= ep)) ep = d;
                d = fabs((double)gn[o] - want_n[k] / sqrt(l));
                if (!(d <= en)) en = d;
            }
        }
        char what[120];
        snprintf(what, sizeof what, "VAT %s, instance %d: frames %d and %d mixed %.2f", raw ? "float32" : "16-bit", i,
                 f0, f1, a);
        printf("%-70s positions %.2e of %.3g, normals %.2e\n", what, ep / size, size, en);
        CHECK(ep / size <= POSITION_TOLERANCE, "%s: positions off by %.3g of the model's size", what, ep / size);
        CHECK(en <= DIRECTION_TOLERANCE, "%s: normals off by %.3g", what, en);
    }
    glDeleteBuffers(2, tf);
    glDeleteBuffers(1, &offset_buffer);
    glDeleteVertexArrays(1, &vao);
    glDeleteTextures(2, tex);
    glActiveTexture(GL_TEXTURE0);
    glDeleteProgram(program);
    free(gp), free(gn), free(qp), free(qn), free(fp), free(fn), free(dp), free(dn);
    free(p), free(nr), free(local), free(model), free(palette);
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
    check_vat(demo, false);
    check_vat(demo, true);
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
