/* SPDX-License-Identifier: MIT */
/* GPU skinning with sinew's GLSL, no window: an OpenGL context through EGL
 * (Mesa's llvmpipe will do, no GPU needed), the built-in character mid-stride
 * skinned by the shipped vertex shader into an offscreen framebuffer, the
 * pixels read back and written as a PNG with libpng.
 * usage: example_gpu_skin [OUT.png]   (default gpu_skin.png beside this program) */
#include "sinew/sinew_gpu.h"

#include <epoxy/gl.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIDTH = 320, HEIGHT = 480 };

/* The fragment stage is the caller's: it reads the shader's skinned normal. */
static const char fragment[] =
    "#version 330 core\n"
    "in vec3 sinew_skinned_normal;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    vec3 n = normalize(sinew_skinned_normal);\n"
    "    float light = 0.25 + 0.75 * max(dot(n, normalize(vec3(0.4, 0.7, 0.6))), 0.0);\n"
    "    color = vec4(light * vec3(0.95, 0.75, 0.55), 1.0);\n"
    "}\n";

static int fail(const char *why)
{
    fprintf(stderr, "%s\n", why);
    return 1;
}

int main(int argc, char **argv)
{
    char beside[4096]; /* the build folder, not the folder it runs from */
    const char *slash = strrchr(argv[0], '/');
    snprintf(beside, sizeof beside, "%.*sgpu_skin.png", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    const char *out = argc > 1 ? argv[1] : beside;
    sinew_error err = {0};
    sinew_gl_context *gl = sinew_gl_context_create(&err); /* made current on this thread */
    if (!gl) { /* the tests skip (77) where no OpenGL context can be made */
        printf("skip: no OpenGL context: %s\n", err.description);
        return 77;
    }
    sinew_asset *a = sinew_demo_create(NULL, &err);
    if (!a) return fail(err.description);
    const sinew_mesh *mesh = &a->meshes[0];
    const int n = a->skeleton->joint_count, joints = mesh->skin->joint_count;

    /* Once: the mesh with its influences (4 or 8 a vertex, the fewest its skin
     * needs), a program for that many (the skinning shader, LBS, and our
     * fragment stage), a palette buffer. */
    sinew_gl_mesh gm = {0};
    if (sinew_gl_mesh_upload(&(sinew_gl_mesh_desc){.vertex_count = mesh->vertex_count, .positions = mesh->positions,
                                                   .normals = mesh->normals, .skin = mesh->skin,
                                                   .index_count = mesh->index_count, .indices = mesh->indices},
                             &gm, &err) != SINEW_OK)
        return fail(err.description);
    sinew_gl_program_desc pd = {.vertex = {.method = SINEW_SKINNING_LBS, .influences = gm.influences},
                                .fragment = fragment};
    unsigned program = sinew_gl_program_create(&pd, &err);
    if (!program) return fail(err.description);
    unsigned palette_buffer = sinew_gl_palette_create(joints, &err);

    /* Per frame, on the CPU: the walk at 0.25 s into model space, the palette. */
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *palette = malloc(sizeof *palette * (size_t)joints);
    if (!palette_buffer || !model || !palette ||
        sinew_clip_sample_model(sinew_asset_find_clip(a, "walk"), a->skeleton, 0.25f, SINEW_SAMPLE_LOOP, NULL, NULL,
                                NULL, model, n, &err) ||
        sinew_skin_palette(mesh->skin, model, n, NULL, palette, joints, &err) ||
        sinew_gl_palette_write(palette_buffer, 0, SINEW_SKINNING_LBS, palette, joints, &err))
        return fail(err.description);

    /* An offscreen framebuffer: color and depth renderbuffers. */
    GLuint fbo, rb[2];
    glGenRenderbuffers(2, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, WIDTH, HEIGHT);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, WIDTH, HEIGHT);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) return fail("framebuffer incomplete");

    /* The camera: the character turned 30 degrees about Y around its root
     * joint (the walk moves it forward), seen in an orthographic box (x -1..1
     * m, y 0.9 m +- 1.5 as the picture's aspect asks, z -2..2 m, nearer as z
     * grows). */
    sinew_transform turn = sinew_transform_identity();
    turn.rotation = sinew_quat_from_axis_angle(sinew_vec3_make(0.0f, 1.0f, 0.0f), 0.52f);
    sinew_vec3 root = sinew_vec3_make(model[0].m[12], 0.0f, model[0].m[14]);
    turn.translation = sinew_vec3_scale(sinew_quat_rotate(turn.rotation, root), -1.0f);
    sinew_mat4 view = sinew_mat4_from_transform(&turn), ortho = sinew_mat4_identity();
    ortho.m[0] = 1.0f, ortho.m[5] = 1.0f * WIDTH / HEIGHT, ortho.m[13] = -0.9f * ortho.m[5], ortho.m[10] = -0.5f;
    sinew_mat4 view_projection = sinew_mat4_mul(&ortho, &view);

    /* Draw: the shader skins every vertex with the palette bound at SINEW_GL_PALETTE_BINDING. */
    glViewport(0, 0, WIDTH, HEIGHT);
    glClearColor(0.1f, 0.1f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glUseProgram(program);
    glUniformMatrix4fv(glGetUniformLocation(program, "sinew_view_projection"), 1, GL_FALSE, view_projection.m);
    glBindBufferBase(GL_UNIFORM_BUFFER, SINEW_GL_PALETTE_BINDING, palette_buffer);
    sinew_gl_mesh_draw(&gm, 1);

    /* Read the pixels back (GL's rows go bottom up) and count the character's. */
    unsigned char *rgba = malloc(4 * WIDTH * HEIGHT);
    if (!rgba) return 1;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (glGetError() != GL_NO_ERROR) return fail("an OpenGL error while drawing");
    long covered = 0;
    for (long i = 0; i < (long)WIDTH * HEIGHT; ++i) covered += rgba[4 * i] > 40; /* the background's red is 25 */
    png_image png = {.version = PNG_IMAGE_VERSION, .width = WIDTH, .height = HEIGHT, .format = PNG_FORMAT_RGBA};
    if (!png_image_write_to_file(&png, out, 0, rgba, -4 * WIDTH, NULL) /* bottom row first */)
        return fail(png.message);
    printf("wrote %s: %dx%d, the character covers %.1f%% of it (%s)\n", out, WIDTH, HEIGHT,
           100.0 * covered / (WIDTH * HEIGHT), (const char *)glGetString(GL_RENDERER));

    glDeleteFramebuffers(1, &fbo), glDeleteRenderbuffers(2, rb), glDeleteBuffers(1, &palette_buffer);
    glDeleteProgram(program), sinew_gl_mesh_free(&gm), sinew_gl_context_free(gl);
    free(rgba), free(model), free(palette), sinew_asset_free(a);
    /* a blank picture (or one all character) means something went wrong */
    return covered > WIDTH * HEIGHT / 50 && covered < WIDTH * HEIGHT / 2 ? 0 : 1;
}
