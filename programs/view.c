/* SPDX-License-Identifier: MIT */
/* `sinew view`: a window on a character (GLFW): play, pause and scrub its
 * clips or the animation layer (render's options: blends, a crossfade, an
 * additive, IK, springs), switch LBS and DQS, show the skeleton, a joint's
 * weights, the bind and rest poses, with what plays written over the
 * picture. --frames, --keys and --screenshot run it unattended (the test
 * under Xvfb does). */
#include "cli.h"

#ifdef SINEW_CLI_VIEW

#include "font.h"
#include "image.h"
#include "layer.h"
#include "scene.h"
#include "springs.h"
#include "sinew/sinew_gpu.h"

#include <epoxy/gl.h> /* before GLFW, which then includes no GL header of its own */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char key_help[] =
    "keys: space play/pause, left/right step 1/30 s, home start, c next clip (shift: previous),\n"
    "      +/- speed, m LBS/DQS, k skeleton, w weight heat map, j next joint (shift: previous),\n"
    "      click a joint to pick it, b animated/bind/rest pose, f floor, s screenshot, q quit,\n"
    "      r restart the springs (--springs);\n"
    "      drag to orbit, scroll to zoom\n";

typedef struct view_state {
    const sinew_asset *asset;
    const cli_clips *clips;
    const char *file;
    scene *scene;
    int clip;             /* -1: none */
    float time, speed;
    bool playing, skeleton, floor, heat;
    int joint;            /* heat map joint */
    sinew_skinning method;
    scene_pose_kind pose;
    scene_camera camera;
    bool refit;           /* the camera's box is stale */
    bool quit;
    const char *screenshot_path;
    bool screenshot;      /* take one after this frame */
    bool dragging;
    double drag_x, drag_y;
    cli_springs *springs; /* --springs: stepped as the clip's time goes on */
    sinew_transform *local; /* their pose at spring_time */
    sinew_mat4 *model;
    float spring_time;
    int spring_clip;
    bool spring_live;     /* false: start over at the next frame's pose */
    cli_layer *layer;     /* the layer options: what plays instead of the clip */
    const cli_layer_args *layer_args;
    bool z_up;
    bool relayer;         /* the clip changed: make the layer again on it */
    bool overlay;         /* the text over the picture */
    double fps;
} view_state;

static const sinew_clip *current_clip(const view_state *v) { return v->clip >= 0 ? v->clips->clips[v->clip] : NULL; }

/* The layer's time at the view's `time`: it loops over what the layer shows
 * (a synced cycle, a crossfade with as much before it), as a clip loops. */
static float layer_time(const view_state *v, float time)
{
    float length = cli_layer_length(v->layer);
    return length > 0.0f ? fmodf(time, length) : 0.0f;
}

/* One key, from the window or from --keys. */
static void press(view_state *v, int key, bool shift)
{
    int joints = v->asset->skeleton->joint_count;
    switch (key) {
    case GLFW_KEY_SPACE: v->playing = !v->playing; break;
    case GLFW_KEY_RIGHT: v->time += 1.0f / 30.0f, v->playing = false; break;
    case GLFW_KEY_LEFT: v->time = fmaxf(0.0f, v->time - 1.0f / 30.0f), v->playing = false; break;
    case GLFW_KEY_HOME: v->time = 0.0f; break;
    case GLFW_KEY_C:
        if (v->clips->count > 0) {
            v->clip = (v->clip + (shift ? v->clips->count - 1 : 1)) % v->clips->count;
            v->time = 0.0f;
            v->refit = true;
            v->relayer = v->layer != NULL;
        }
        break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: v->speed = fminf(v->speed * 2.0f, 16.0f); break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: v->speed = fmaxf(v->speed * 0.5f, 1.0f / 16.0f); break;
    case GLFW_KEY_M: v->method = v->method == SINEW_SKINNING_LBS ? SINEW_SKINNING_DQS : SINEW_SKINNING_LBS; break;
    case GLFW_KEY_K: v->skeleton = !v->skeleton; break;
    case GLFW_KEY_W: v->heat = !v->heat; break;
    case GLFW_KEY_J:
        v->joint = (v->joint + (shift ? joints - 1 : 1)) % joints;
        v->heat = true;
        break;
    case GLFW_KEY_B:
        v->pose = (scene_pose_kind)((v->pose + 1) % 3);
        v->refit = true;
        break;
    case GLFW_KEY_F: v->floor = !v->floor; break;
    case GLFW_KEY_S: v->screenshot = true; break;
    case GLFW_KEY_R: v->spring_live = false; break;
    case GLFW_KEY_O: v->overlay = !v->overlay; break;
    case GLFW_KEY_Q:
    case GLFW_KEY_ESCAPE: v->quit = true; break;
    default: break;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    if (action == GLFW_PRESS || action == GLFW_REPEAT) press(glfwGetWindowUserPointer(w), key, mods & GLFW_MOD_SHIFT);
}

static void on_char(GLFWwindow *w, unsigned int codepoint)
{
    /* '+' is shift+'=' on many layouts: take it as typed */
    if (codepoint == '+') press(glfwGetWindowUserPointer(w), GLFW_KEY_EQUAL, false);
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    view_state *v = glfwGetWindowUserPointer(w);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    double x, y;
    glfwGetCursorPos(w, &x, &y);
    if (action == GLFW_PRESS) {
        v->dragging = true;
        v->drag_x = x, v->drag_y = y;
    } else if (action == GLFW_RELEASE) {
        v->dragging = false;
        int wx, wy;
        glfwGetWindowSize(w, &wx, &wy);
        if (fabs(x - v->drag_x) < 3 && fabs(y - v->drag_y) < 3) { /* a click, not a drag: pick */
            int j = scene_pick_joint(v->scene, &v->camera, wx, wy, x, y);
            if (j >= 0) v->joint = j, v->heat = true;
        }
    }
}

static void on_move(GLFWwindow *w, double x, double y)
{
    view_state *v = glfwGetWindowUserPointer(w);
    if (!v->dragging) return;
    v->camera.azimuth -= (float)(x - v->drag_x) * 0.4f;
    v->camera.elevation = fminf(85.0f, fmaxf(-85.0f, v->camera.elevation + (float)(y - v->drag_y) * 0.4f));
    v->drag_x = x, v->drag_y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    view_state *v = glfwGetWindowUserPointer(w);
    v->camera.zoom = fminf(20.0f, fmaxf(0.1f, v->camera.zoom * powf(1.1f, (float)dy)));
}

/* The layer's pose at the view's `time` (held by the layer until its next
 * pose), or NULL when no layer plays the animated pose; `failed` says the
 * layer could not pose, with the reason in `why`. */
static const sinew_transform *layer_pose(view_state *v, float time, char *why, int size, bool *failed)
{
    *failed = false;
    if (!v->layer || v->pose != SCENE_POSE_ANIMATED) return NULL;
    const sinew_transform *local = cli_layer_pose(v->layer, layer_time(v, time), why, size);
    *failed = local == NULL;
    return local;
}

/* The camera's box: the poses of the current clip or of the layer (16
 * across it, root motion carried included), or the still pose. */
static bool refit(view_state *v, char *why, int size)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const sinew_clip *clip = current_clip(v);
    float length = v->layer ? cli_layer_length(v->layer) : clip ? clip->duration : 0.0f;
    int samples = (clip || v->layer) && v->pose == SCENE_POSE_ANIMATED ? 16 : 1;
    for (int i = 0; i < samples; ++i) {
        float t = length * (float)i / (float)samples;
        bool failed;
        const sinew_transform *local = layer_pose(v, t, why, size, &failed);
        if (failed || !scene_pose(v->scene, v->pose, clip, t, true, local, why, size)) return false;
        scene_bounds(v->scene, lo, hi);
    }
    if (lo[0] <= hi[0]) memcpy(v->camera.lo, lo, sizeof lo), memcpy(v->camera.hi, hi, sizeof hi);
    v->refit = false;
    return true;
}

/* The layer's pose at `time`, else the clip's (looped), else the rest
 * pose, into v->local and v->model. */
static sinew_result animated_pose(view_state *v, const sinew_clip *clip, float time, sinew_error *err)
{
    const sinew_skeleton *sk = v->asset->skeleton;
    int n = sk->joint_count;
    sinew_result r = SINEW_OK;
    if (v->layer) {
        char why[200];
        const sinew_transform *pose = cli_layer_pose(v->layer, layer_time(v, time), why, sizeof why);
        if (!pose) {
            snprintf(err->description, sizeof err->description, "%s", why);
            return err->result = SINEW_ERROR_INVALID_ARGUMENT;
        }
        memcpy(v->local, pose, sizeof *v->local * (size_t)n);
    } else {
        r = clip ? sinew_clip_sample(clip, sk, time, SINEW_SAMPLE_LOOP, NULL, v->local, n, err)
                 : sinew_rest_pose(sk, v->local, n, err);
    }
    if (r == SINEW_OK) r = sinew_local_to_model(sk, v->local, NULL, v->model, n, err);
    return r;
}

/* The animated pose with the springs: they step at their fixed step as
 * the clip's time goes on (as bake simulates them, the frame showing the
 * last step taken), and start over at the current pose when time goes
 * back, the clip changes or r is pressed. */
static bool pose_with_springs(view_state *v, const sinew_clip *clip, char *why, int size)
{
    sinew_error err = {0};
    double S = cli_springs_dt(v->springs);
    sinew_result r = SINEW_OK;
    if (!v->spring_live || v->spring_clip != v->clip || v->time < v->spring_time) {
        r = animated_pose(v, clip, v->time, &err);
        if (r == SINEW_OK) r = cli_springs_reset(v->springs, v->model, &err);
        v->spring_time = v->time, v->spring_clip = v->clip, v->spring_live = r == SINEW_OK;
    }
    for (int k = 0; r == SINEW_OK && (double)v->spring_time + S <= (double)v->time + 1e-4 * S; ++k) {
        if (k == 256) { /* a long jump: catch up at the current pose, not step by step */
            v->spring_time = v->time;
            break;
        }
        v->spring_time = (float)((double)v->spring_time + S);
        r = animated_pose(v, clip, v->spring_time, &err);
        if (r == SINEW_OK) r = cli_springs_step(v->springs, v->local, v->model, &err);
    }
    if (r != SINEW_OK) {
        v->spring_live = false;
        snprintf(why, (size_t)size, "--springs: %s", err.description);
        return false;
    }
    return scene_pose(v->scene, v->pose, clip, v->time, true, v->local, why, size);
}

static void update_title(GLFWwindow *w, const view_state *v)
{
    const sinew_clip *clip = current_clip(v);
    const char *base = v->file ? strrchr(v->file, '/') : NULL;
    char clip_text[160] = "no clip", heat[160] = "";
    if (v->layer)
        snprintf(clip_text, sizeof clip_text, "layer %.2f/%.2f s x%g%s", (double)layer_time(v, v->time),
                 (double)cli_layer_length(v->layer), (double)v->speed, v->playing ? "" : " paused");
    else if (clip)
        snprintf(clip_text, sizeof clip_text, "clip %d \"%s\" %.2f/%.2f s x%g%s", v->clip, clip->name,
                 (double)sinew_clip_time(clip, v->time, SINEW_SAMPLE_LOOP), (double)clip->duration, (double)v->speed,
                 v->playing ? "" : " paused");
    if (v->heat) snprintf(heat, sizeof heat, " | weights of %s", v->asset->skeleton->names[v->joint]);
    char title[512];
    snprintf(title, sizeof title, "sinew view: %s | %s | %s | %s%s", base ? base + 1 : v->file ? v->file : "built-in",
             v->pose == SCENE_POSE_BIND ? "bind pose" : v->pose == SCENE_POSE_REST ? "rest pose" : clip_text,
             v->method == SINEW_SKINNING_DQS ? "DQS" : "LBS", v->skeleton ? "skeleton" : "mesh", heat);
    glfwSetWindowTitle(w, title);
}

/* ---- the overlay: text drawn by GL in the window --------------------------- */

/* The font in a texture, 16 cells of FONT_ADVANCE x FONT_LINE texels a row
 * for the characters 32 to 126 and one cell of solid ink (for the box
 * behind the text); each character a quad that reads its cell with
 * texelFetch, whole texels to whole pixels, so the text stays sharp at
 * any whole scale. */
enum { ATLAS_COLUMNS = 16, ATLAS_CELLS = 96, ATLAS_SOLID = 95, OVERLAY_FLOATS = 8 /* x y u v r g b a */ };

typedef struct overlay {
    GLuint program, vao, vbo, texture;
    float *vertices;
    int count, capacity; /* vertices */
} overlay;

static const char overlay_vertex[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 position; /* pixels from the top left */\n"
    "layout(location = 1) in vec2 texel;\n"
    "layout(location = 2) in vec4 tint;\n"
    "uniform vec2 viewport;\n"
    "out vec2 v_texel;\n"
    "out vec4 v_tint;\n"
    "void main() {\n"
    "    v_texel = texel;\n"
    "    v_tint = tint;\n"
    "    gl_Position = vec4(position.x / viewport.x * 2.0 - 1.0, 1.0 - position.y / viewport.y * 2.0, 0.0, 1.0);\n"
    "}\n";

static const char overlay_fragment[] =
    "#version 330 core\n"
    "uniform sampler2D glyphs;\n"
    "in vec2 v_texel;\n"
    "in vec4 v_tint;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    if (texelFetch(glyphs, ivec2(v_texel), 0).r < 0.5) discard;\n"
    "    color = v_tint;\n"
    "}\n";

/* The overlay's text colors: light blue and amber, colors the scene never
 * has (the test finds the text by them). */
static const float text_color[4] = {150 / 255.0f, 225 / 255.0f, 1.0f, 1.0f};
static const float state_color[4] = {1.0f, 220 / 255.0f, 120 / 255.0f, 1.0f};
static const float box_color[4] = {0.0f, 0.0f, 0.0f, 0.6f};

static void overlay_free(overlay *o)
{
    if (o->program) glDeleteProgram(o->program);
    if (o->vbo) glDeleteBuffers(1, &o->vbo);
    if (o->vao) glDeleteVertexArrays(1, &o->vao);
    if (o->texture) glDeleteTextures(1, &o->texture);
    free(o->vertices);
    *o = (overlay){0};
}

static bool overlay_create(overlay *o, char *why, int size)
{
    *o = (overlay){0};
    sinew_error err = {0};
    sinew_gl_program_desc pd = {.vertex_source = overlay_vertex, .fragment = overlay_fragment};
    if (!(o->program = sinew_gl_program_create(&pd, &err))) {
        snprintf(why, (size_t)size, "text shader: %s", err.description);
        return false;
    }
    enum { W = ATLAS_COLUMNS * FONT_ADVANCE, H = ATLAS_CELLS / ATLAS_COLUMNS * FONT_LINE };
    unsigned char atlas[W * H];
    for (int cell = 0; cell < ATLAS_CELLS; ++cell) {
        int x0 = cell % ATLAS_COLUMNS * FONT_ADVANCE, y0 = cell / ATLAS_COLUMNS * FONT_LINE;
        for (int y = 0; y < FONT_LINE; ++y)
            for (int x = 0; x < FONT_ADVANCE; ++x)
                atlas[(y0 + y) * W + x0 + x] = cell == ATLAS_SOLID || font_ink((char)(32 + cell), x, y) ? 255 : 0;
    }
    glGenTextures(1, &o->texture);
    glBindTexture(GL_TEXTURE_2D, o->texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, W, H, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
    /* one level: a mipmapped filter would leave the texture incomplete */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenVertexArrays(1, &o->vao);
    glBindVertexArray(o->vao);
    glGenBuffers(1, &o->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    GLsizei stride = OVERLAY_FLOATS * sizeof(float);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (void *)0);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, (void *)(2 * sizeof(float)));
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, stride, (void *)(4 * sizeof(float)));
    for (GLuint i = 0; i < 3; ++i) glEnableVertexAttribArray(i);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (glGetError() != GL_NO_ERROR) {
        snprintf(why, (size_t)size, "the text overlay: OpenGL error while making its font texture");
        overlay_free(o);
        return false;
    }
    return true;
}

/* A quad of pixels (x0, y0)-(x1, y1) showing texels (u0, v0)-(u1, v1). */
static void overlay_quad(overlay *o, float x0, float y0, float x1, float y1, float u0, float v0, float u1, float v1,
                         const float rgba[4])
{
    if (o->count + 6 > o->capacity) {
        int capacity = o->capacity ? o->capacity * 2 : 6 * 256;
        float *grown = realloc(o->vertices, sizeof *grown * OVERLAY_FLOATS * (size_t)capacity);
        if (!grown) return; /* out of memory: less text, not a failure */
        o->vertices = grown, o->capacity = capacity;
    }
    const float corners[6][4] = {{x0, y0, u0, v0}, {x1, y0, u1, v0}, {x1, y1, u1, v1},
                                 {x0, y0, u0, v0}, {x1, y1, u1, v1}, {x0, y1, u0, v1}};
    for (int k = 0; k < 6; ++k) {
        float *f = &o->vertices[(size_t)(o->count++) * OVERLAY_FLOATS];
        memcpy(f, corners[k], 4 * sizeof(float));
        memcpy(f + 4, rgba, 4 * sizeof(float));
    }
}

/* One line of text, its top-left corner at pixel (x, y). */
static void overlay_line(overlay *o, int x, int y, int scale, const float rgba[4], const char *text)
{
    for (int i = 0; text[i]; ++i) {
        int cell = (unsigned char)text[i] >= 32 && (unsigned char)text[i] < 127 ? text[i] - 32 : '?' - 32;
        float u = (float)(cell % ATLAS_COLUMNS * FONT_ADVANCE), v = (float)(cell / ATLAS_COLUMNS * FONT_LINE);
        float px = (float)(x + i * FONT_ADVANCE * scale);
        if (text[i] != ' ')
            overlay_quad(o, px, (float)y, px + (float)(FONT_ADVANCE * scale), (float)(y + FONT_LINE * scale), u, v,
                         u + FONT_ADVANCE, v + FONT_LINE, rgba);
    }
}

enum { OVERLAY_LINES = 16, OVERLAY_CHARS = 160 };

typedef struct overlay_text {
    char lines[OVERLAY_LINES][OVERLAY_CHARS];
    const float *colors[OVERLAY_LINES];
    int count;
} overlay_text;

/* Adds `text` as lines of at most `per_line` characters, broken at spaces
 * where it can be; a long line is wrapped, never cut. */
static void add_text(overlay_text *t, int per_line, const float rgba[4], const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (per_line >= OVERLAY_CHARS) per_line = OVERLAY_CHARS - 1;
    if (per_line < 8) per_line = 8;
    bool first = true;
    for (const char *p = text; *p && t->count < OVERLAY_LINES; first = false) {
        if (!first) /* continued lines: indented, without their leading spaces */
            while (*p == ' ') ++p;
        int room = first ? per_line : per_line - 2, take = (int)strlen(p);
        if (take > room) {
            take = room;
            while (take > room / 2 && p[take] != ' ') --take;
            if (p[take] != ' ') take = room;
        }
        snprintf(t->lines[t->count], OVERLAY_CHARS, "%s%.*s", first ? "" : "  ", take, p);
        t->colors[t->count++] = rgba;
        p += take;
    }
}

/* What the window shows, a line each: the file, the clip or the layer and
 * its time, the layer's account and state, the springs, the drawing and
 * the frame rate. */
static void overlay_compose(const view_state *v, int per_line, overlay_text *t)
{
    const sinew_clip *clip = current_clip(v);
    const char *base = v->file ? strrchr(v->file, '/') : NULL;
    char text[400];
    t->count = 0;
    add_text(t, per_line, text_color, "%s", base ? base + 1 : v->file ? v->file : "built-in character");
    const char *paused = v->playing ? "" : ", paused";
    if (v->pose != SCENE_POSE_ANIMATED) {
        add_text(t, per_line, text_color, "%s", v->pose == SCENE_POSE_BIND ? "bind pose" : "rest pose");
    } else if (v->layer) {
        add_text(t, per_line, text_color, "layer %.2f / %.2f s x%g%s", (double)layer_time(v, v->time),
                 (double)cli_layer_length(v->layer), (double)v->speed, paused);
        cli_layer_describe(v->layer, text, sizeof text);
        add_text(t, per_line, text_color, "  %s", text);
        cli_layer_state(v->layer, text, sizeof text);
        if (*text) add_text(t, per_line, state_color, "  now: %s", text);
        cli_layer_ik_state(v->layer, text, sizeof text);
        if (*text) add_text(t, per_line, state_color, "  IK at %s", text);
    } else if (clip) {
        add_text(t, per_line, text_color, "clip %d %s %.2f / %.2f s x%g%s", v->clip, *clip->name ? clip->name : "",
                 (double)sinew_clip_time(clip, v->time, SINEW_SAMPLE_LOOP), (double)clip->duration, (double)v->speed,
                 paused);
    } else {
        add_text(t, per_line, text_color, "no clip: rest pose");
    }
    if (v->layer && !v->layer_args->blend && clip && v->pose == SCENE_POSE_ANIMATED) /* a blend names its own */
        add_text(t, per_line, text_color, "clip %d %s (c: the next)", v->clip, clip->name);
    if (v->springs)
        add_text(t, per_line, v->spring_live ? state_color : text_color, "springs on, step %.4f s%s",
                 (double)cli_springs_dt(v->springs), v->spring_live ? "" : " (at rest)");
    else
        add_text(t, per_line, text_color, "springs off");
    char heat[160] = "";
    if (v->heat) snprintf(heat, sizeof heat, ", weights of %s", v->asset->skeleton->names[v->joint]);
    add_text(t, per_line, text_color, "%s, %s%s, %.0f fps; o hides this",
             v->method == SINEW_SKINNING_DQS ? "DQS" : "LBS", v->skeleton ? "skeleton" : "mesh", heat, v->fps);
}

/* Draws the text over the picture in the top-left corner, on a dark box
 * so that it reads on any background. */
static void overlay_draw(overlay *o, const view_state *v, int width, int height)
{
    int scale = 1 + width / 1200, margin = 6 * scale, pad = 3 * scale; /* 2 from 1200 pixels wide, 3 from 2400 */
    int per_line = (width - 2 * margin - 2 * pad) / (FONT_ADVANCE * scale);
    overlay_text t;
    overlay_compose(v, per_line, &t);
    int longest = 0;
    for (int i = 0; i < t.count; ++i)
        if ((int)strlen(t.lines[i]) > longest) longest = (int)strlen(t.lines[i]);
    o->count = 0;
    /* one box for the block first: boxes drawn over earlier lines would
     * darken them */
    float solid_u = (float)(ATLAS_SOLID % ATLAS_COLUMNS * FONT_ADVANCE) + 0.5f,
          solid_v = (float)(ATLAS_SOLID / ATLAS_COLUMNS * FONT_LINE) + 0.5f;
    overlay_quad(o, (float)(margin - pad), (float)(margin - pad),
                 (float)(margin + longest * FONT_ADVANCE * scale - scale + pad),
                 (float)(margin + t.count * FONT_LINE * scale - 2 * scale + pad), solid_u, solid_v, solid_u, solid_v,
                 box_color);
    for (int i = 0; i < t.count; ++i)
        overlay_line(o, margin, margin + i * FONT_LINE * scale, scale, t.colors[i], t.lines[i]);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(o->program);
    glUniform2f(glGetUniformLocation(o->program, "viewport"), (float)width, (float)height);
    glUniform1i(glGetUniformLocation(o->program, "glyphs"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, o->texture);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * OVERLAY_FLOATS * (size_t)o->count), o->vertices,
                 GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, o->count);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}

static bool save_screenshot(const view_state *v, int width, int height)
{
    cli_image im = {width, height, malloc((size_t)width * (size_t)height * 4)};
    char why[300];
    if (!im.rgba) {
        fprintf(stderr, "sinew: view: out of memory for a screenshot\n");
        return false;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, im.rgba);
    cli_image_flip_rows(&im);
    const char *path = v->screenshot_path ? v->screenshot_path : "sinew-view.png";
    bool ok = cli_image_write_png(&im, path, why, sizeof why);
    if (ok)
        printf("sinew: view: screenshot %dx%d to %s\n", width, height, path);
    else
        fprintf(stderr, "sinew: view: %s\n", why);
    cli_image_free(&im);
    return ok;
}

/* --keys "m k j space right": names of keys pressed before the first frame. */
static bool parse_keys(const char *text, int *keys, bool *shifts, int cap, int *count)
{
    static const struct { const char *name; int key; } names[] = {
        {"space", GLFW_KEY_SPACE}, {"left", GLFW_KEY_LEFT}, {"right", GLFW_KEY_RIGHT}, {"home", GLFW_KEY_HOME},
        {"plus", GLFW_KEY_EQUAL}, {"minus", GLFW_KEY_MINUS}};
    *count = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == ',') ++p;
        if (!*p) break;
        size_t n = strcspn(p, " ,");
        bool shift = n == 1 && p[0] >= 'A' && p[0] <= 'Z';
        int key = -1;
        if (n == 1 && ((p[0] >= 'a' && p[0] <= 'z') || shift)) key = GLFW_KEY_A + ((p[0] | 0x20) - 'a');
        for (size_t i = 0; key < 0 && i < sizeof names / sizeof names[0]; ++i)
            if (strlen(names[i].name) == n && strncmp(p, names[i].name, n) == 0) key = names[i].key;
        if (key < 0 || *count == cap) return false;
        shifts[*count] = shift;
        keys[(*count)++] = key;
        p += n;
    }
    return true;
}

int cli_view(int argc, char **argv)
{
    cli_source source = {0};
    const char *keys_text = NULL, *weights = NULL, *screenshot = NULL;
    int frames = 0, up = 0, width = 960, height = 720;
    sinew_skinning method = SINEW_SKINNING_LBS;
    bool skeleton = false;
    cli_springs_args springs = {0};
    cli_layer_args layer = {0};
    cli_args p = cli_args_begin("view", argc, argv);
    for (const char *v; cli_next(&p);) {
        if (cli_source_arg(&p, &source) || cli_layer_arg(&p, &layer) || cli_springs_arg(&p, &springs)) continue;
        if (cli_flag(&p, "--skeleton")) {
            skeleton = true;
        } else if ((v = cli_value(&p, "--keys"))) {
            keys_text = v;
        } else if ((v = cli_value(&p, "--weights"))) {
            weights = v;
        } else if ((v = cli_value(&p, "--screenshot"))) {
            screenshot = v;
            const char *slash = strrchr(v, '/'), *dot = strrchr(v, '.');
            if (!dot || (slash && dot < slash) || (strcmp(dot, ".png") != 0 && strcmp(dot, ".PNG") != 0))
                cli_bad_value(&p, "--screenshot", v, "does not end in .png: view writes PNG");
        } else if ((v = cli_value(&p, "--method"))) {
            if (!cli_parse_method(v, &method)) cli_bad_value(&p, "--method", v, "is not a method: lbs or dqs");
        } else if ((v = cli_value(&p, "--frames"))) {
            if (!cli_parse_int(v, 1, 100000, &frames)) cli_bad_value(&p, "--frames", v, "is not 1 to 100000");
        } else if ((v = cli_value(&p, "--size"))) {
            if (!cli_parse_size(v, 64, 8192, &width, &height))
                cli_bad_value(&p, "--size", v, "is not WxH with each 64 to 8192");
        } else if ((v = cli_value(&p, "--up"))) {
            if (strcmp(v, "y") != 0 && strcmp(v, "z") != 0)
                cli_bad_value(&p, "--up", v, "is not an axis: y or z");
            else
                up = v[0];
        } else {
            cli_unknown(&p);
        }
    }
    cli_springs_args_check(&p, &springs);
    if (p.status != EXIT_OK) return p.status;
    int keys[64], key_count = 0;
    bool shifts[64];
    if (keys_text && !parse_keys(keys_text, keys, shifts, 64, &key_count))
        return cli_bad_value(&p, "--keys", keys_text,
                             "is not up to 64 key names (a letter, space, left, right, home, plus, minus)");

    cli_loaded l;
    if (cli_load("view", &source, &l) != EXIT_OK) return EXIT_FAILED;
    const sinew_asset *a = l.asset;
    view_state v = {.asset = a, .clips = &l.clips, .clip = l.clip_index, .file = source.file, .speed = 1.0f,
                    .playing = true, .floor = true, .skeleton = skeleton || a->mesh_count == 0, .method = method,
                    .refit = true, .screenshot_path = screenshot, .layer_args = &layer, .overlay = true,
                    .camera = {.azimuth = 30.0f, .elevation = 12.0f, .zoom = 1.0f}};
    int status = EXIT_OK;
    if (weights && (v.joint = scene_find_joint(a, weights)) < 0) {
        fprintf(stderr, "sinew: view: no joint named \"%s\" (sinew info lists them)\n", weights);
        status = EXIT_FAILED;
    }
    v.heat = weights != NULL;
    v.z_up = up ? up == 'z' : scene_guess_z_up(a, source.file);
    if (status == EXIT_OK && cli_layer_wanted(&layer) &&
        !(v.layer = cli_layer_create("view", &layer, a, &l.clips, l.clip, v.z_up)))
        status = EXIT_FAILED;
    if (status == EXIT_OK && springs.on) {
        int n = a->skeleton->joint_count;
        v.local = malloc(sizeof *v.local * (size_t)n);
        v.model = malloc(sizeof *v.model * (size_t)n);
        if (!v.local || !v.model) {
            fprintf(stderr, "sinew: view: out of memory\n");
            status = EXIT_FAILED;
        } else if (!(v.springs = cli_springs_create("view", a, source.file, springs.dt))) {
            status = EXIT_FAILED;
        }
    }
    GLFWwindow *window = NULL;
    if (status == EXIT_OK && !glfwInit()) {
        const char *desc = NULL;
        glfwGetError(&desc);
        fprintf(stderr, "sinew: view: no window system (%s); run it on a desktop, or under xvfb-run for a "
                        "virtual display\n", desc ? desc : "glfwInit failed");
        status = EXIT_FAILED;
    }
    bool glfw = status == EXIT_OK;
    if (status == EXIT_OK) {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_SAMPLES, 4);
        if (!(window = glfwCreateWindow(width, height, "sinew view", NULL, NULL))) {
            const char *desc = NULL;
            glfwGetError(&desc);
            fprintf(stderr, "sinew: view: no OpenGL 3.3 window: %s\n", desc ? desc : "unknown reason");
            status = EXIT_FAILED;
        }
    }
    char why[300];
    if (status == EXIT_OK) {
        glfwMakeContextCurrent(window);
        glfwSwapInterval(frames ? 0 : 1);
        if (!(v.scene = scene_create(a, v.z_up, why, sizeof why))) {
            fprintf(stderr, "sinew: view: %s\n", why);
            status = EXIT_FAILED;
        }
    }
    overlay caption = {0};
    if (status == EXIT_OK && !overlay_create(&caption, why, sizeof why)) {
        fprintf(stderr, "sinew: view: %s\n", why);
        status = EXIT_FAILED;
    }
    if (status == EXIT_OK) {
        glfwSetWindowUserPointer(window, &v);
        glfwSetKeyCallback(window, on_key);
        glfwSetCharCallback(window, on_char);
        glfwSetMouseButtonCallback(window, on_button);
        glfwSetCursorPosCallback(window, on_move);
        glfwSetScrollCallback(window, on_scroll);
        if (!frames) fputs(key_help, stdout);
        for (int i = 0; i < key_count; ++i) press(&v, keys[i], shifts[i]);
    }
    double last = glfwGetTime(), fps_since = last;
    int fps_frames = 0;
    for (int frame = 0; status == EXIT_OK && !v.quit && !glfwWindowShouldClose(window); ++frame) {
        if (frames && frame == frames) break;
        double now = glfwGetTime();
        /* unattended runs step 1/30 s a frame, so that they repeat */
        float dt = frames ? 1.0f / 30.0f : (float)(now - last);
        last = now;
        /* the rate over the last half second or so; a first guess sooner */
        if (++fps_frames, now - fps_since >= 0.5 || (v.fps == 0.0 && now - fps_since >= 0.05)) {
            v.fps = fps_frames / (now - fps_since);
            fps_since = now, fps_frames = 0;
        }
        if (v.relayer) { /* c: the layer again on the new clip; kept as it was where that fails */
            cli_layer *again = cli_layer_create("view", v.layer_args, a, &l.clips, current_clip(&v), v.z_up);
            if (again) cli_layer_free(v.layer), v.layer = again;
            v.relayer = false;
        }
        const sinew_clip *clip = current_clip(&v);
        float length = v.layer ? cli_layer_length(v.layer) : clip ? clip->duration : 0.0f;
        if (v.playing && (clip || v.layer) && v.pose == SCENE_POSE_ANIMATED) v.time += dt * v.speed;
        if (v.time > 1e4f * fmaxf(length, 1e-3f)) v.time = 0.0f;
        bool ok = !v.refit || refit(&v, why, sizeof why), sprung = v.springs && v.pose == SCENE_POSE_ANIMATED;
        if (ok && sprung) {
            ok = pose_with_springs(&v, clip, why, sizeof why);
        } else if (ok) { /* after refit: the layer holds the pose it gave last */
            bool failed;
            const sinew_transform *local = layer_pose(&v, v.time, why, sizeof why, &failed);
            ok = !failed && scene_pose(v.scene, v.pose, clip, v.time, true, local, why, sizeof why);
        }
        if (!ok) {
            fprintf(stderr, "sinew: view: %s\n", why);
            status = EXIT_FAILED;
            break;
        }
        int fw, fh;
        glfwGetFramebufferSize(window, &fw, &fh);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        scene_draw_options o = {.method = v.method, .skeleton = v.skeleton, .weights_joint = v.heat ? v.joint : -1,
                                .floor = v.floor};
        scene_draw(v.scene, &v.camera, fw, fh, &o);
        if (v.overlay) overlay_draw(&caption, &v, fw, fh);
        GLenum e = glGetError();
        if (e != GL_NO_ERROR) {
            fprintf(stderr, "sinew: view: OpenGL error 0x%04x while drawing\n", e);
            status = EXIT_FAILED;
            break;
        }
        update_title(window, &v);
        bool last_frame = frames && frame == frames - 1;
        if (v.screenshot || (last_frame && screenshot)) {
            if (!save_screenshot(&v, fw, fh)) status = EXIT_FAILED;
            v.screenshot = false;
        }
        glfwSwapBuffers(window);
        glfwPollEvents();
    }
    if (status == EXIT_OK && frames) printf("sinew: view: drew %d frames\n", frames);
    overlay_free(&caption);
    scene_free(v.scene);
    cli_springs_free(v.springs);
    cli_layer_free(v.layer);
    free(v.local), free(v.model);
    if (window) glfwDestroyWindow(window);
    if (glfw) glfwTerminate();
    cli_unload(&l);
    return status;
}

#else /* built without GLFW, OpenGL or libpng */

#include <stdio.h>

int cli_view(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "sinew: view: this sinew was built without GLFW, OpenGL or libpng "
                    "(apt-get install libglfw3-dev libepoxy-dev libpng-dev, then rebuild)\n");
    return EXIT_FAILED;
}

#endif
