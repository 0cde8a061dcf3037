/* SPDX-License-Identifier: MIT */
/* The OpenGL helper: a context without a window (EGL), programs with the
 * skinning shader, meshes and palettes in buffers. GL entry points come from
 * libepoxy; built without it, every function says what to install. */
#include "sinew/sinew_gpu.h"
#include "math/math_internal.h"
#include "skin/skin_internal.h"

#include <limits.h>
#include <stdlib.h>

#define NO_GL_MESSAGE "sinew was built without OpenGL (apt-get install libepoxy-dev, then rebuild)"

#ifdef SINEW_HAVE_GL

#include <epoxy/egl.h>
#include <epoxy/gl.h>

_Static_assert(sizeof(sinew_mat4) == SINEW_GPU_SLOT_FLOATS * sizeof(float), "a palette matrix fills one slot");

enum { SLOT_BYTES = SINEW_GPU_SLOT_FLOATS * sizeof(float) };

/* Reports the first pending GL error (and clears the rest) as `what`. */
static sinew_result gl_check(sinew_error *err, const char *what)
{
    GLenum first = glGetError();
    if (first == GL_NO_ERROR) return SINEW_OK;
    for (int i = 0; i < 64 && glGetError() != GL_NO_ERROR; ++i) {
    }
    const char *name = first == GL_OUT_OF_MEMORY ? "GL_OUT_OF_MEMORY"
                       : first == GL_INVALID_VALUE ? "GL_INVALID_VALUE"
                       : first == GL_INVALID_OPERATION ? "GL_INVALID_OPERATION"
                       : first == GL_INVALID_ENUM ? "GL_INVALID_ENUM"
                                                  : "GL error";
    return sinew__fail(err, SINEW_ERROR_GPU, "%s: %s (0x%04x)", what, name, first);
}

/* Errors raised before this call are not this call's. */
static void gl_clear_errors(void)
{
    for (int i = 0; i < 64 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

/* ---- context ------------------------------------------------------------- */

struct sinew_gl_context {
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface;
    GLuint framebuffer, renderbuffer;
};

/* Displays are never terminated here: an EGL display is one per process,
 * shared with whatever else in it uses EGL, whose contexts eglTerminate()
 * would end. */

/* The displays to try, best first: Mesa's surfaceless platform (no window
 * system, no device files needed), the first EGL device (NVIDIA's driver
 * without X), the default display. */
static int candidate_displays(EGLDisplay *out, int cap)
{
    int n = 0;
    if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless") && n < cap) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (d != EGL_NO_DISPLAY) out[n++] = d;
    }
    if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_device_enumeration") &&
        epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_platform_device") && n < cap) {
        EGLDeviceEXT devices[1];
        EGLint count = 0;
        if (eglQueryDevicesEXT(1, devices, &count) && count > 0) {
            EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[0], NULL);
            if (d != EGL_NO_DISPLAY) out[n++] = d;
        }
    }
    if (n < cap) {
        EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        if (d != EGL_NO_DISPLAY) out[n++] = d;
    }
    return n;
}

static bool choose_config(EGLDisplay d, EGLConfig *config)
{
    /* pbuffer-capable first; some surfaceless drivers list configs with no
     * surface type at all */
    const EGLint surface_types[2] = {EGL_PBUFFER_BIT, 0};
    for (int i = 0; i < 2; ++i) {
        const EGLint attributes[] = {EGL_SURFACE_TYPE, surface_types[i], EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_NONE};
        EGLint count = 0;
        if (eglChooseConfig(d, attributes, config, 1, &count) && count > 0) return true;
    }
    return false;
}

static EGLContext create_context(EGLDisplay d, EGLConfig config)
{
    static const int versions[][2] = {{4, 5}, {4, 3}, {3, 3}};
    for (int i = 0; i < 3; ++i) {
        const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, versions[i][0], EGL_CONTEXT_MINOR_VERSION,
                                     versions[i][1], EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                     EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, attributes);
        if (c != EGL_NO_CONTEXT) return c;
    }
    return EGL_NO_CONTEXT;
}

sinew_gl_context *sinew_gl_context_create(sinew_error *err)
{
    sinew_gl_context *c = calloc(1, sizeof *c);
    if (!c) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_gl_context_create: out of memory");
        return NULL;
    }
    EGLDisplay displays[3];
    int display_count = candidate_displays(displays, 3);
    const char *step = "no EGL display";
    for (int i = 0; i < display_count && !c->context; ++i) {
        EGLDisplay d = displays[i];
        EGLint major, minor;
        if (!eglInitialize(d, &major, &minor)) {
            step = "no EGL display could be initialized";
            continue;
        }
        EGLConfig config;
        if (!eglBindAPI(EGL_OPENGL_API) || !choose_config(d, &config)) {
            step = "no EGL config for desktop OpenGL";
            continue;
        }
        EGLContext context = create_context(d, config);
        if (context == EGL_NO_CONTEXT) {
            step = "no OpenGL 3.3 core context";
            continue;
        }
        EGLSurface surface = EGL_NO_SURFACE;
        if (!epoxy_has_egl_extension(d, "EGL_KHR_surfaceless_context")) {
            const EGLint pbuffer[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
            surface = eglCreatePbufferSurface(d, config, pbuffer);
        }
        if (!eglMakeCurrent(d, surface, surface, context)) {
            step = "the OpenGL context could not be made current";
            if (surface != EGL_NO_SURFACE) eglDestroySurface(d, surface);
            eglDestroyContext(d, context);
            continue;
        }
        c->display = d;
        c->context = context;
        c->surface = surface;
    }
    if (!c->context) {
        sinew__fail(err, SINEW_ERROR_GPU,
                    "sinew_gl_context_create: %s (for Mesa's software driver: apt-get install libegl-mesa0 libgl1-mesa-dri)",
                    step);
        free(c);
        return NULL;
    }
    gl_clear_errors();
    glGenRenderbuffers(1, &c->renderbuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, c->renderbuffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
    glGenFramebuffers(1, &c->framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, c->framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, c->renderbuffer);
    if (gl_check(err, "sinew_gl_context_create: the 1x1 framebuffer") != SINEW_OK) {
        sinew_gl_context_free(c);
        return NULL;
    }
    sinew__ok(err);
    return c;
}

void sinew_gl_context_free(sinew_gl_context *c)
{
    if (!c) return;
    if (c->framebuffer) glDeleteFramebuffers(1, &c->framebuffer);
    if (c->renderbuffer) glDeleteRenderbuffers(1, &c->renderbuffer);
    eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (c->surface != EGL_NO_SURFACE) eglDestroySurface(c->display, c->surface);
    eglDestroyContext(c->display, c->context);
    free(c);
}

/* ---- programs ------------------------------------------------------------ */

/* Compiles one stage from `count` strings; the driver's log on failure. */
static GLuint compile(GLenum stage, const char *const *sources, int count, sinew_error *err)
{
    const char *name = stage == GL_VERTEX_SHADER ? "sinew_gl_program_create: the vertex shader"
                                                 : "sinew_gl_program_create: the fragment shader";
    GLuint s = glCreateShader(stage);
    if (!s) {
        gl_check(err, name);
        return 0;
    }
    glShaderSource(s, count, sources, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[200] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        sinew__fail(err, SINEW_ERROR_GPU, "%s does not compile: %s", name, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static sinew_result program_create(const sinew_gl_program_desc *desc, unsigned *program, sinew_error *err)
{
    if (!desc || desc->feedback_count < 0 || (desc->feedback_count > 0 && !desc->feedback))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_gl_program_create: a description is required, with names for its feedback count");
    *program = 0;
    gl_clear_errors();
    char *text = NULL;
    GLuint vs;
    if (desc->vertex_source) {
        vs = compile(GL_VERTEX_SHADER, &desc->vertex_source, 1, err);
    } else {
        size_t length = sinew_glsl_compose(&desc->vertex, NULL, 0);
        if (!(text = malloc(length + 1)))
            return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_gl_program_create: out of memory");
        sinew_glsl_compose(&desc->vertex, text, length + 1);
        const char *vertex_sources[2] = {text, desc->vertex_main ? desc->vertex_main : ""};
        vs = compile(GL_VERTEX_SHADER, vertex_sources, 2, err);
        free(text);
    }
    if (!vs) return err ? err->result : SINEW_ERROR_GPU;
    GLuint fs = 0;
    if (desc->fragment && !(fs = compile(GL_FRAGMENT_SHADER, &desc->fragment, 1, err))) {
        glDeleteShader(vs);
        return err ? err->result : SINEW_ERROR_GPU;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    if (fs) glAttachShader(p, fs);
    if (desc->feedback_count > 0)
        glTransformFeedbackVaryings(p, desc->feedback_count, desc->feedback, GL_SEPARATE_ATTRIBS);
    glLinkProgram(p);
    glDeleteShader(vs);
    if (fs) glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[200] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        glDeleteProgram(p);
        return sinew__fail(err, SINEW_ERROR_GPU, "sinew_gl_program_create: the program does not link: %s", log);
    }
    if (desc->vertex.ssbo) {
        GLuint block = glGetProgramResourceIndex(p, GL_SHADER_STORAGE_BLOCK, "SinewPalette");
        if (block != GL_INVALID_INDEX) glShaderStorageBlockBinding(p, block, SINEW_GL_PALETTE_BINDING);
    } else {
        GLuint block = glGetUniformBlockIndex(p, "SinewPalette");
        if (block != GL_INVALID_INDEX) glUniformBlockBinding(p, block, SINEW_GL_PALETTE_BINDING);
    }
    sinew_result r = gl_check(err, "sinew_gl_program_create: binding the palette block");
    if (r != SINEW_OK) {
        glDeleteProgram(p);
        return r;
    }
    *program = p;
    sinew__ok(err);
    return SINEW_OK;
}

unsigned sinew_gl_program_create(const sinew_gl_program_desc *desc, sinew_error *err)
{
    unsigned program = 0;
    program_create(desc, &program, err);
    return program;
}

/* ---- meshes -------------------------------------------------------------- */

static GLenum weight_gl_type(sinew_weight_type t)
{
    return t == SINEW_WEIGHT_F32 ? GL_FLOAT : t == SINEW_WEIGHT_UNORM8 ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT;
}

static GLuint buffer_with(GLenum target, size_t size, const void *data, GLenum usage)
{
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)size, data, usage);
    return b;
}

static void float_attribute(GLuint location, GLuint buffer, int components)
{
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(location);
}

/* The influences padded to `width` per vertex, as the skin stores them, an
 * implied last weight written out (a rigid mesh: slot 0 with unorm8 weight
 * 255). */
static sinew_result pad_influences(const sinew_gl_mesh_desc *d, int width, void **joints, void **weights,
                                   size_t *joints_size, size_t *weights_size, sinew_error *err)
{
    const sinew_skin *s = d->skin;
    size_t isz = s ? sinew__index_bytes(s->index_type) : 1, wsz = s ? sinew__weight_bytes(s->weight_type) : 1;
    size_t n = (size_t)d->vertex_count;
    *joints_size = n * (size_t)width * isz;
    *weights_size = n * (size_t)width * wsz;
    *joints = calloc(1, *joints_size);
    *weights = calloc(1, *weights_size);
    if (!*joints || !*weights) {
        free(*joints), free(*weights);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_gl_mesh_upload: out of memory for %d vertices",
                           d->vertex_count);
    }
    if (!s) {
        for (size_t v = 0; v < n; ++v) ((uint8_t *)*weights)[v * (size_t)width] = 255;
        return SINEW_OK;
    }
    for (size_t v = 0; v < n; ++v)
        sinew_skin_vertex_stored(s, (int)v, (char *)*joints + v * (size_t)width * isz,
                                 (char *)*weights + v * (size_t)width * wsz);
    return SINEW_OK;
}

sinew_result sinew_gl_mesh_upload(const sinew_gl_mesh_desc *d, sinew_gl_mesh *mesh, sinew_error *err)
{
    if (!d || !mesh || !d->positions || d->vertex_count <= 0 || d->index_count < 0 || d->index_count % 3 ||
        (d->index_count > 0 && !d->indices))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_gl_mesh_upload: positions, a vertex count above 0 and whole triangles are required");
    if (d->skin && d->skin->vertex_count != d->vertex_count)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_mesh_upload: the skin has %d vertices, the mesh %d",
                           d->skin->vertex_count, d->vertex_count);
    if ((size_t)d->vertex_count > (size_t)INT_MAX / (16 * sizeof(float)))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_mesh_upload: %d vertices are too many", d->vertex_count);
    for (int i = 0; i < d->index_count; ++i)
        if (d->indices[i] >= (uint32_t)d->vertex_count)
            return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_mesh_upload: index %d is %u, past vertex %d", i,
                               d->indices[i], d->vertex_count - 1);
    int needed = d->skin && d->skin->influence_count > 4 ? 8 : 4;
    if ((d->influences != 0 && d->influences != 4 && d->influences != 8) || (d->influences == 4 && needed == 8))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_mesh_upload: %d influences for a skin of %d",
                           d->influences, d->skin ? d->skin->influence_count : 1);
    int width = d->influences ? d->influences : needed;
    void *joints, *weights;
    size_t joints_size, weights_size;
    sinew_result r = pad_influences(d, width, &joints, &weights, &joints_size, &weights_size, err);
    if (r != SINEW_OK) return r;

    gl_clear_errors();
    sinew_gl_mesh m = {.vertex_count = d->vertex_count, .index_count = d->indices ? d->index_count : 0,
                       .influences = width};
    size_t n = (size_t)d->vertex_count;
    GLenum usage = d->dynamic ? GL_DYNAMIC_DRAW : GL_STATIC_DRAW;
    glGenVertexArrays(1, &m.vertex_array);
    glBindVertexArray(m.vertex_array);
    m.positions = buffer_with(GL_ARRAY_BUFFER, n * 3 * sizeof(float), d->positions, usage);
    float_attribute(0, m.positions, 3);
    if (d->normals) {
        m.normals = buffer_with(GL_ARRAY_BUFFER, n * 3 * sizeof(float), d->normals, usage);
        float_attribute(1, m.normals, 3);
    }
    if (d->tangents) {
        m.tangents = buffer_with(GL_ARRAY_BUFFER, n * 4 * sizeof(float), d->tangents, usage);
        float_attribute(2, m.tangents, 4);
    }
    const sinew_skin *s = d->skin;
    size_t isz = s ? sinew__index_bytes(s->index_type) : 1, wsz = s ? sinew__weight_bytes(s->weight_type) : 1;
    GLenum itype = isz == 1 ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT;
    GLenum wtype = s ? weight_gl_type(s->weight_type) : GL_UNSIGNED_BYTE;
    m.joints = buffer_with(GL_ARRAY_BUFFER, joints_size, joints, GL_STATIC_DRAW);
    m.weights = buffer_with(GL_ARRAY_BUFFER, weights_size, weights, GL_STATIC_DRAW);
    free(joints), free(weights);
    for (int half = 0; half < width / 4; ++half) {
        glBindBuffer(GL_ARRAY_BUFFER, m.joints);
        glVertexAttribIPointer(3 + 2 * half, 4, itype, (GLsizei)(width * isz), (const void *)(half * 4 * isz));
        glEnableVertexAttribArray(3 + 2 * half);
        glBindBuffer(GL_ARRAY_BUFFER, m.weights);
        glVertexAttribPointer(4 + 2 * half, 4, wtype, wtype != GL_FLOAT, (GLsizei)(width * wsz),
                              (const void *)(half * 4 * wsz));
        glEnableVertexAttribArray(4 + 2 * half);
    }
    if (m.index_count)
        m.indices = buffer_with(GL_ELEMENT_ARRAY_BUFFER, (size_t)m.index_count * sizeof(uint32_t), d->indices,
                                GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if ((r = gl_check(err, "sinew_gl_mesh_upload: upload")) != SINEW_OK) {
        sinew_gl_mesh_free(&m);
        return r;
    }
    *mesh = m;
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_gl_mesh_update(const sinew_gl_mesh *m, const float *positions, const float *normals,
                                  const float *tangents, sinew_error *err)
{
    if (!m || (positions && !m->positions) || (normals && !m->normals) || (tangents && !m->tangents))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_mesh_update: a stream the mesh was uploaded without");
    gl_clear_errors();
    const float *data[3] = {positions, normals, tangents};
    const unsigned buffers[3] = {m->positions, m->normals, m->tangents};
    const size_t floats[3] = {3, 3, 4};
    for (int i = 0; i < 3; ++i) {
        if (!data[i]) continue;
        glBindBuffer(GL_ARRAY_BUFFER, buffers[i]);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)m->vertex_count * floats[i] * sizeof(float)),
                        data[i]);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    sinew_result r = gl_check(err, "sinew_gl_mesh_update");
    if (r == SINEW_OK) sinew__ok(err);
    return r;
}

void sinew_gl_mesh_draw(const sinew_gl_mesh *m, int instances)
{
    if (!m || !m->vertex_array || instances <= 0) return;
    glBindVertexArray(m->vertex_array);
    if (m->index_count)
        glDrawElementsInstanced(GL_TRIANGLES, m->index_count, GL_UNSIGNED_INT, NULL, instances);
    else
        glDrawArraysInstanced(GL_TRIANGLES, 0, m->vertex_count, instances);
}

void sinew_gl_mesh_free(sinew_gl_mesh *m)
{
    if (!m) return;
    GLuint buffers[6] = {m->positions, m->normals, m->tangents, m->joints, m->weights, m->indices};
    for (int i = 0; i < 6; ++i)
        if (buffers[i]) glDeleteBuffers(1, &buffers[i]);
    if (m->vertex_array) glDeleteVertexArrays(1, &m->vertex_array);
    memset(m, 0, sizeof *m);
}

/* ---- palettes ------------------------------------------------------------ */

static sinew_result palette_create(int slots, unsigned *buffer, sinew_error *err)
{
    if (slots <= 0 || slots > INT_MAX / SLOT_BYTES)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_palette_create: %d slots", slots);
    /* a bound uniform block must be covered whole */
    if (slots < SINEW_GLSL_UBO_JOINTS) slots = SINEW_GLSL_UBO_JOINTS;
    gl_clear_errors();
    GLuint b = buffer_with(GL_COPY_WRITE_BUFFER, (size_t)slots * SLOT_BYTES, NULL, GL_DYNAMIC_DRAW);
    static const float zeros[64 * SINEW_GPU_SLOT_FLOATS];
    for (int s = 0; s < slots; s += 64) {
        int n = slots - s < 64 ? slots - s : 64;
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)s * SLOT_BYTES, (GLsizeiptr)n * SLOT_BYTES, zeros);
    }
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    sinew_result r = gl_check(err, "sinew_gl_palette_create: buffer");
    if (r != SINEW_OK) {
        glDeleteBuffers(1, &b);
        return r;
    }
    *buffer = b;
    sinew__ok(err);
    return SINEW_OK;
}

unsigned sinew_gl_palette_create(int slots, sinew_error *err)
{
    unsigned buffer = 0;
    palette_create(slots, &buffer, err);
    return buffer;
}

sinew_result sinew_gl_palette_write(unsigned buffer, int first, sinew_skinning method, const sinew_mat4 *palette,
                                    int count, sinew_error *err)
{
    if (!buffer || first < 0 || count < 0 || (count > 0 && !palette) || (unsigned)method > SINEW_SKINNING_DQS)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_gl_palette_write: a buffer, a palette and a method");
    gl_clear_errors();
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    GLint64 size = 0;
    glGetBufferParameteri64v(GL_COPY_WRITE_BUFFER, GL_BUFFER_SIZE, &size);
    if ((int64_t)(first + (int64_t)count) * SLOT_BYTES > size) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "sinew_gl_palette_write: slots %d to %d exceed the buffer's %lld", first,
                           first + count - 1, (long long)(size / SLOT_BYTES));
    }
    sinew_result result = SINEW_OK;
    if (method == SINEW_SKINNING_LBS) {
        glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)first * SLOT_BYTES, (GLsizeiptr)count * SLOT_BYTES, palette);
    } else {
        enum { CHUNK = 32 };
        float packed[CHUNK * SINEW_GPU_SLOT_FLOATS];
        for (int j0 = 0; j0 < count; j0 += CHUNK) {
            int n = count - j0 < CHUNK ? count - j0 : CHUNK;
            for (int j = 0; j < n; ++j) {
                sinew_dq_transform dq;
                if (sinew_dq_palette(&palette[j0 + j], 1, &dq, NULL) != SINEW_OK && result == SINEW_OK)
                    result = sinew__fail(err, SINEW_ERROR_SINGULAR,
                                         "sinew_gl_palette_write: matrix %d is singular or not finite", j0 + j);
                sinew_gpu_dq_pack(&dq, 1, &packed[j * SINEW_GPU_SLOT_FLOATS]);
            }
            glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)(first + j0) * SLOT_BYTES, (GLsizeiptr)n * SLOT_BYTES,
                            packed);
        }
    }
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    sinew_result r = gl_check(err, "sinew_gl_palette_write");
    if (r != SINEW_OK) return r;
    if (result == SINEW_OK) sinew__ok(err);
    return result;
}

#else /* no GL */

sinew_gl_context *sinew_gl_context_create(sinew_error *err)
{
    sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_context_create: " NO_GL_MESSAGE);
    return NULL;
}

void sinew_gl_context_free(sinew_gl_context *context) { (void)context; }

unsigned sinew_gl_program_create(const sinew_gl_program_desc *desc, sinew_error *err)
{
    (void)desc;
    sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_program_create: " NO_GL_MESSAGE);
    return 0;
}

sinew_result sinew_gl_mesh_upload(const sinew_gl_mesh_desc *desc, sinew_gl_mesh *mesh, sinew_error *err)
{
    (void)desc, (void)mesh;
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_mesh_upload: " NO_GL_MESSAGE);
}

sinew_result sinew_gl_mesh_update(const sinew_gl_mesh *mesh, const float *positions, const float *normals,
                                  const float *tangents, sinew_error *err)
{
    (void)mesh, (void)positions, (void)normals, (void)tangents;
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_mesh_update: " NO_GL_MESSAGE);
}

void sinew_gl_mesh_draw(const sinew_gl_mesh *mesh, int instances) { (void)mesh, (void)instances; }

void sinew_gl_mesh_free(sinew_gl_mesh *mesh) { (void)mesh; }

unsigned sinew_gl_palette_create(int slots, sinew_error *err)
{
    (void)slots;
    sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_palette_create: " NO_GL_MESSAGE);
    return 0;
}

sinew_result sinew_gl_palette_write(unsigned buffer, int first, sinew_skinning method, const sinew_mat4 *palette,
                                    int count, sinew_error *err)
{
    (void)buffer, (void)first, (void)method, (void)palette, (void)count;
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "sinew_gl_palette_write: " NO_GL_MESSAGE);
}

#endif
