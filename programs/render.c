/* SPDX-License-Identifier: MIT */
/* `sinew render`: pictures of a character without a window (OpenGL through
 * EGL): a contact sheet of frames across a clip, or one PNG per frame. The
 * meshes are skinned on the GPU by the library's shader; the camera frames
 * every rendered pose at once, so motion shows as motion. */
#include "cli.h"

#ifdef SINEW_CLI_RENDER

#include "image.h"
#include "layer.h"
#include "scene.h"
#include "springs.h"
#include "sinew/sinew_gpu.h"

#include <epoxy/gl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct render_args {
    cli_source source;
    cli_layer_args layer;
    const char *out, *weights;
    float *times;
    int time_count;
    int frames;                    /* 0: the default */
    int width, height;
    sinew_skinning methods[2];     /* side by side */
    int method_count;
    scene_pose_kind pose;
    bool loop, skeleton, no_floor;
    int up;                        /* 0 guess, 'y' or 'z' */
    float azimuth, elevation;
    cli_springs_args springs;
} render_args;

/* Whether `path` names a folder: it ends in '/' or is one. */
static bool is_directory_path(const char *path)
{
    size_t n = strlen(path);
    struct stat st;
    return (n > 0 && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

static int parse_args(int argc, char **argv, render_args *a)
{
    a->width = a->height = 320;
    a->method_count = 1;
    a->elevation = 12.0f;
    a->azimuth = 30.0f;
    cli_args p = cli_args_begin("render", argc, argv);
    for (const char *v; cli_next(&p);) {
        if (cli_source_arg(&p, &a->source) || cli_layer_arg(&p, &a->layer) || cli_springs_arg(&p, &a->springs))
            continue;
        if (cli_flag(&p, "--loop")) {
            a->loop = true;
        } else if (cli_flag(&p, "--skeleton")) {
            a->skeleton = true;
        } else if (cli_flag(&p, "--no-floor")) {
            a->no_floor = true;
        } else if ((v = cli_value(&p, "--out"))) {
            a->out = v;
            /* PNG only: never PNG bytes under another name */
            const char *slash = strrchr(v, '/'), *dot = strrchr(v, '.');
            if (dot && slash && dot < slash) dot = NULL;
            if (is_directory_path(v))
                ;
            else if (!dot || dot == (slash ? slash + 1 : v))
                cli_bad_value(&p, "--out", v, "has no extension: render writes PNG (SHEET.png, or DIR/ for "
                                              "one PNG per frame)");
            else if (strcmp(dot, ".png") != 0 && strcmp(dot, ".PNG") != 0)
                cli_bad_value(&p, "--out", v, "ends in %s, a format render does not write: it writes PNG "
                                              "(SHEET.png, or DIR/ for one PNG per frame)", dot);
        } else if ((v = cli_value(&p, "--weights"))) {
            a->weights = v;
        } else if ((v = cli_value(&p, "--frames"))) {
            if (!cli_parse_int(v, 1, 1000, &a->frames)) cli_bad_value(&p, "--frames", v, "is not 1 to 1000");
        } else if ((v = cli_value(&p, "--times"))) {
            if (a->times)
                cli_usage(&p, "--times given twice (one list: --times T1,T2,...)");
            else if (cli_times_arg(&p, "--times", v, &a->times, &a->time_count) && a->time_count > 1000)
                cli_usage(&p, "--times: %d times, more than 1000", a->time_count);
        } else if ((v = cli_value(&p, "--size"))) {
            if (!cli_parse_size(v, 16, 4096, &a->width, &a->height))
                cli_bad_value(&p, "--size", v, "is not WxH with each 16 to 4096");
        } else if ((v = cli_value(&p, "--method"))) {
            if (!cli_parse_method(v, &a->methods[0])) cli_bad_value(&p, "--method", v, "is not a method: lbs or dqs");
            a->method_count = 1;
        } else if ((v = cli_value(&p, "--compare"))) {
            char first[8] = "", second[8] = "";
            const char *comma = strchr(v, ',');
            bool ok = comma && comma - v < (long)sizeof first && strlen(comma + 1) < sizeof second;
            if (ok) {
                memcpy(first, v, (size_t)(comma - v));
                strcpy(second, comma + 1);
                ok = cli_parse_method(first, &a->methods[0]) && cli_parse_method(second, &a->methods[1]);
            }
            if (!ok) cli_bad_value(&p, "--compare", v, "is not two methods: lbs,dqs");
            a->method_count = 2;
        } else if ((v = cli_value(&p, "--pose"))) {
            if (strcmp(v, "bind") == 0)
                a->pose = SCENE_POSE_BIND;
            else if (strcmp(v, "rest") == 0)
                a->pose = SCENE_POSE_REST;
            else if (strcmp(v, "animated") == 0)
                a->pose = SCENE_POSE_ANIMATED;
            else
                cli_bad_value(&p, "--pose", v, "is not a pose: animated, bind or rest");
        } else if ((v = cli_value(&p, "--up"))) {
            if (strcmp(v, "y") != 0 && strcmp(v, "z") != 0)
                cli_bad_value(&p, "--up", v, "is not an axis: y or z");
            else
                a->up = v[0];
        } else if ((v = cli_value(&p, "--azimuth"))) {
            if (!cli_parse_float(v, &a->azimuth)) cli_bad_value(&p, "--azimuth", v, "is not degrees (a number)");
        } else if ((v = cli_value(&p, "--elevation"))) {
            if (!cli_parse_float(v, &a->elevation) || fabsf(a->elevation) > 89.0f)
                cli_bad_value(&p, "--elevation", v, "is not degrees from -89 to 89");
        } else {
            cli_unknown(&p);
        }
    }
    if (p.status == EXIT_OK && a->times && a->frames) cli_usage(&p, "--frames and --times exclude each other");
    cli_springs_args_check(&p, &a->springs);
    if (p.status != EXIT_OK) {
        free(a->times);
        a->times = NULL;
        return p.status;
    }
    if (!a->out) a->out = "sinew-render.png";
    return EXIT_OK;
}

/* One frame of the sheet: what is posed and from where. */
typedef struct frame {
    float time;     /* clip time, animated poses */
    float azimuth;  /* degrees */
} frame;

/* Frames across `length` seconds (the clip's cycle, or what the layer
 * shows), the given times, or for a still pose (bind, rest, no clip) a
 * turntable of N views. */
static frame *plan_frames(const render_args *a, float length, bool still, int *count)
{
    int n = a->times ? a->time_count : a->frames ? a->frames : still ? 4 : 8;
    frame *f = calloc((size_t)n, sizeof *f);
    if (!f) return NULL;
    for (int i = 0; i < n; ++i) {
        f[i].azimuth = a->azimuth;
        if (a->times)
            f[i].time = a->times[i];
        else if (still)
            f[i].azimuth = a->azimuth + 360.0f * (float)i / (float)n;
        else
            f[i].time = length * (float)i / (float)n;
    }
    *count = n;
    return f;
}

/* A multisampled framebuffer and a plain one to resolve it into. */
typedef struct target {
    GLuint msaa_fbo, msaa_color, msaa_depth, fbo, color;
    int width, height;
} target;

static bool target_create(target *t, int width, int height)
{
    t->width = width, t->height = height;
    GLint samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &samples);
    if (samples > 4) samples = 4;
    glGenRenderbuffers(1, &t->msaa_color);
    glBindRenderbuffer(GL_RENDERBUFFER, t->msaa_color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glGenRenderbuffers(1, &t->msaa_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, t->msaa_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
    glGenFramebuffers(1, &t->msaa_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->msaa_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->msaa_color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, t->msaa_depth);
    bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glGenRenderbuffers(1, &t->color);
    glBindRenderbuffer(GL_RENDERBUFFER, t->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->color);
    ok = ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, t->msaa_fbo);
    return ok && glGetError() == GL_NO_ERROR;
}

static void target_free(target *t)
{
    GLuint fbos[2] = {t->msaa_fbo, t->fbo}, rbs[3] = {t->msaa_color, t->msaa_depth, t->color};
    glDeleteFramebuffers(2, fbos);
    glDeleteRenderbuffers(3, rbs);
}

/* Resolves the samples and reads the picture, top row first. */
static void target_read(const target *t, cli_image *out)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->msaa_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
    glBlitFramebuffer(0, 0, t->width, t->height, 0, 0, t->width, t->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, t->width, t->height, GL_RGBA, GL_UNSIGNED_BYTE, out->rgba);
    cli_image_flip_rows(out);
    glBindFramebuffer(GL_FRAMEBUFFER, t->msaa_fbo);
}

static const uint8_t white[3] = {240, 240, 240}, gold[3] = {255, 200, 60}, sheet_color[3] = {24, 25, 28};

typedef struct render_job {
    const render_args *args;
    const sinew_asset *asset;
    const sinew_clip *clip;
    int clip_index;
    const char *file;
    int weights_joint;
    scene *scene;
    cli_layer *layer;              /* NULL: the clip as it is */
    cli_progress progress;         /* frames drawn, on a terminal */
    frame *frames;
    int frame_count;
    scene_camera camera;
    cli_springs *springs;          /* --springs: the pose as bake simulates it */
    sinew_transform *local;        /* the springs' pose */
    sinew_mat4 *model;
} render_job;

/* The label of frame i: its clip time, or the pose and the view. */
static void frame_label(const render_job *j, int i, char *text, size_t size)
{
    const render_args *a = j->args;
    if (a->pose == SCENE_POSE_BIND || a->pose == SCENE_POSE_REST || !j->clip)
        snprintf(text, size, "%s %.0f", a->pose == SCENE_POSE_BIND ? "bind" : "rest",
                 (double)fmodf(j->frames[i].azimuth, 360.0f));
    else if (j->layer)
        snprintf(text, size, "%.3f s", (double)j->frames[i].time);
    else
        snprintf(text, size, "%.3f s", (double)sinew_clip_time(j->clip, j->frames[i].time,
                                                               a->loop ? SINEW_SAMPLE_LOOP : 0));
}

/* The animated pose at `time` as bake takes it (for the springs). */
static sinew_result animated_pose(void *user, float time, sinew_transform *local, sinew_mat4 *model, sinew_error *err)
{
    render_job *j = user;
    const sinew_skeleton *sk = j->asset->skeleton;
    int n = sk->joint_count;
    sinew_result r = SINEW_OK;
    if (j->layer) {
        char why[200];
        const sinew_transform *pose = cli_layer_pose(j->layer, time, why, sizeof why);
        if (!pose) {
            snprintf(err->description, sizeof err->description, "%s", why);
            return err->result = SINEW_ERROR_INVALID_ARGUMENT;
        }
        memcpy(local, pose, sizeof *local * (size_t)n);
    } else {
        r = j->clip ? sinew_clip_sample(j->clip, sk, time, j->args->loop ? SINEW_SAMPLE_LOOP : 0, NULL, local, n, err)
                    : sinew_rest_pose(sk, local, n, err);
    }
    if (r == SINEW_OK) r = sinew_local_to_model(sk, local, NULL, model, n, err);
    return r;
}

/* Poses frame i: the clip at its time, or the layer's pose then, with the
 * springs simulated up to it where asked. */
static bool pose_frame(render_job *j, int i, char *why, int size)
{
    const render_args *a = j->args;
    const sinew_transform *local = NULL;
    if (j->springs && a->pose == SCENE_POSE_ANIMATED) {
        sinew_error err = {0};
        if (cli_springs_pose(j->springs, j->frames[i].time, animated_pose, j, j->local, j->model, &err) != SINEW_OK) {
            snprintf(why, (size_t)size, "time %g: %s", (double)j->frames[i].time, err.description);
            return false;
        }
        local = j->local;
    } else if (j->layer && a->pose == SCENE_POSE_ANIMATED) {
        if (!(local = cli_layer_pose(j->layer, j->frames[i].time, why, size))) return false;
    }
    return scene_pose(j->scene, a->pose, j->clip, j->frames[i].time, a->loop, local, why, size);
}

/* Poses every frame once to frame them all with one camera. */
static bool fit_camera(render_job *j)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    char why[300];
    for (int i = 0; i < j->frame_count; ++i) {
        if (!pose_frame(j, i, why, sizeof why)) {
            fprintf(stderr, "sinew: render: %s\n", why);
            return false;
        }
        scene_bounds(j->scene, lo, hi);
    }
    if (!(lo[0] <= hi[0])) {
        fprintf(stderr, "sinew: render: nothing to draw (no finite vertex or joint)\n");
        return false;
    }
    memcpy(j->camera.lo, lo, sizeof lo);
    memcpy(j->camera.hi, hi, sizeof hi);
    j->camera.elevation = j->args->elevation;
    j->camera.zoom = 1.0f;
    return true;
}

/* The larger text scale (2, else 1) at which `text` fits in `width`
 * pixels: a small frame keeps its labels whole. */
static int label_scale(const char *text, int width) { return cli_image_text_width(text, 2) <= width ? 2 : 1; }

/* Frame i in each method, side by side, labelled, into `cell`. */
static bool render_cell(render_job *j, target *t, int i, cli_image *cell, cli_image *shot)
{
    const render_args *a = j->args;
    char why[300], text[96];
    if (!pose_frame(j, i, why, sizeof why)) {
        cli_progress_clear(&j->progress);
        fprintf(stderr, "sinew: render: %s\n", why);
        return false;
    }
    for (int m = 0; m < a->method_count; ++m) {
        scene_draw_options o = {.method = (sinew_skinning)a->methods[m],
                                .skeleton = a->skeleton || j->asset->mesh_count == 0,
                                .weights_joint = j->weights_joint, .floor = !a->no_floor};
        j->camera.azimuth = j->frames[i].azimuth;
        scene_draw(j->scene, &j->camera, t->width, t->height, &o);
        target_read(t, shot);
        int x = m * t->width;
        cli_image_blit(cell, shot, x, 0);
        if (a->method_count > 1 || a->methods[m] != SINEW_SKINNING_LBS) {
            const char *name = a->methods[m] == SINEW_SKINNING_DQS ? "DQS" : "LBS";
            int scale = label_scale(name, t->width / 3);
            cli_image_text(cell, x + t->width - cli_image_text_width(name, scale) - 6, 8, scale, gold, name);
        }
    }
    int room = t->width - 16;
    frame_label(j, i, text, sizeof text);
    int scale = label_scale(text, room);
    cli_image_text(cell, 8, 8, scale, white, text);
    if (j->layer) {
        int below = 8 + 11 * scale;
        cli_layer_state(j->layer, text, sizeof text);
        if (*text) cli_image_text(cell, 8, below, label_scale(text, room), gold, text);
    }
    if (j->weights_joint >= 0) {
        const char *name = j->asset->skeleton->names[j->weights_joint];
        if (*name)
            snprintf(text, sizeof text, "weights %s", name);
        else
            snprintf(text, sizeof text, "weights joint %d", j->weights_joint);
        scale = label_scale(text, room);
        cli_image_text(cell, 8, t->height - 11 * scale, scale, gold, text);
    }
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        cli_progress_clear(&j->progress);
        fprintf(stderr, "sinew: render: OpenGL error 0x%04x while drawing frame %d\n", e, i);
        return false;
    }
    return true;
}

/* The sheet's title: the file and what it shows, at double size on one
 * line where it fits in `width` pixels, else at single size on as many
 * lines as it needs (broken at spaces where it can be), never cut. */
typedef struct sheet_title {
    int scale, count;
    char lines[8][400];
} sheet_title;

static void make_title(const render_job *j, int width, sheet_title *t)
{
    const render_args *a = j->args;
    const char *base = j->file ? strrchr(j->file, '/') : NULL;
    char clip_name[80], layer_text[200] = "", text[400];
    if (j->clip && *j->clip->name)
        snprintf(clip_name, sizeof clip_name, "clip %d: %s", j->clip_index, j->clip->name);
    else
        snprintf(clip_name, sizeof clip_name, "clip %d", j->clip_index);
    if (j->layer && a->pose == SCENE_POSE_ANIMATED) cli_layer_describe(j->layer, layer_text, sizeof layer_text);
    snprintf(text, sizeof text, "%s   %s", base ? base + 1 : j->file ? j->file : j->asset->name,
             a->pose == SCENE_POSE_BIND   ? "bind pose"
             : a->pose == SCENE_POSE_REST ? "rest pose"
             : j->layer                   ? layer_text
             : j->clip                    ? clip_name
                                          : "no clip: rest pose");
    t->count = 0;
    if (cli_image_text_width(text, 2) <= width) {
        t->scale = 2, t->count = 1;
        snprintf(t->lines[0], sizeof t->lines[0], "%s", text);
        return;
    }
    t->scale = 1;
    int per_line = width / cli_image_text_width("M", 1);
    if (per_line < 8) per_line = 8;
    if (per_line >= (int)sizeof t->lines[0]) per_line = (int)sizeof t->lines[0] - 1;
    const char *p = text;
    while (*p && t->count < 8) {
        while (*p == ' ') ++p;
        int take = (int)strlen(p);
        if (take > per_line) {
            take = per_line;
            while (take > per_line / 2 && p[take] != ' ') --take; /* break at a space */
            if (p[take] != ' ') take = per_line;
        }
        snprintf(t->lines[t->count++], sizeof t->lines[0], "%.*s", take, p);
        p += take;
    }
}

static int render_all(render_job *j, target *t)
{
    const render_args *a = j->args;
    int cell_w = t->width * a->method_count, cell_h = t->height, n = j->frame_count;
    bool per_frame = is_directory_path(a->out);
    cli_image cell = cli_image_new(cell_w, cell_h, sheet_color), shot = cli_image_new(t->width, t->height, sheet_color);
    /* the grid closest to a 16:10 sheet, few empty cells */
    int cols = 1;
    double best = INFINITY;
    for (int c = 1; c <= n; ++c) {
        int r = (n + c - 1) / c;
        double cost = fabs(log((double)c * cell_w / ((double)r * cell_h) / 1.6)) + 0.5 * (r * c - n);
        if (cost < best) best = cost, cols = c;
    }
    int rows = (n + cols - 1) / cols, gap = 4, sheet_w = cols * cell_w + (cols + 1) * gap;
    sheet_title title;
    make_title(j, sheet_w - 2 * gap - 4, &title);
    int header = title.count <= 1 ? 30 : 8 + 10 * title.count + 4;
    cli_image sheet = {0, 0, NULL};
    if (!per_frame)
        sheet = cli_image_new(sheet_w, header + rows * cell_h + (rows + 1) * gap,
                              sheet_color);
    int status = EXIT_OK;
    char why[400], path[4096];
    if (per_frame && mkdir(a->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew: render: cannot make the folder %s: %s\n", a->out, strerror(errno));
        status = EXIT_FAILED;
    }
    if (status == EXIT_OK && (!cell.rgba || !shot.rgba || (!per_frame && !sheet.rgba))) {
        fprintf(stderr, "sinew: render: out of memory for the pictures\n");
        status = EXIT_FAILED;
    }
    j->progress = cli_progress_begin();
    for (int i = 0; i < n && status == EXIT_OK; ++i) {
        cli_progress_show(&j->progress, "render", "frame %d of %d", i + 1, n);
        if (!render_cell(j, t, i, &cell, &shot)) {
            status = EXIT_FAILED;
            break;
        }
        if (per_frame) {
            size_t len = strlen(a->out);
            snprintf(path, sizeof path, "%s%sframe_%03d.png", a->out, len && a->out[len - 1] == '/' ? "" : "/", i);
            if (!cli_image_write_png(&cell, path, why, sizeof why)) {
                cli_progress_clear(&j->progress);
                fprintf(stderr, "sinew: render: %s\n", why);
                status = EXIT_FAILED;
            }
        } else {
            cli_image_blit(&sheet, &cell, gap + (i % cols) * (cell_w + gap), header + gap + (i / cols) * (cell_h + gap));
        }
    }
    cli_progress_clear(&j->progress);
    if (status == EXIT_OK && !per_frame) {
        for (int k = 0; k < title.count; ++k)
            cli_image_text(&sheet, gap + 4, title.scale == 2 ? 9 : 8 + 10 * k, title.scale, white, title.lines[k]);
        if (!cli_image_write_png(&sheet, a->out, why, sizeof why)) {
            fprintf(stderr, "sinew: render: %s\n", why);
            status = EXIT_FAILED;
        }
    }
    if (status == EXIT_OK)
        printf("sinew: render: %d frame%s of %dx%d%s to %s\n", n, n == 1 ? "" : "s", t->width, t->height,
               a->method_count > 1 ? " in two methods" : "", a->out);
    cli_image_free(&cell), cli_image_free(&shot), cli_image_free(&sheet);
    return status;
}

int cli_render(int argc, char **argv)
{
    render_args args = {0};
    int status = parse_args(argc, argv, &args);
    cli_loaded l = {0};
    if (status == EXIT_OK) status = cli_load("render", &args.source, &l);
    if (status != EXIT_OK) {
        free(args.times);
        return status;
    }
    render_job j = {.args = &args, .asset = l.asset, .clip = l.clip, .clip_index = l.clip_index,
                    .file = args.source.file, .weights_joint = -1};
    sinew_gl_context *ctx = NULL;
    target t = {0};
    if (args.weights && (j.weights_joint = scene_find_joint(l.asset, args.weights)) < 0) {
        fprintf(stderr, "sinew: render: no joint named \"%s\" (sinew info lists them)\n", args.weights);
        status = EXIT_FAILED;
        goto done;
    }
    bool z_up = args.up ? args.up == 'z' : scene_guess_z_up(l.asset, args.source.file);
    if (cli_layer_wanted(&args.layer)) {
        if (!(j.layer = cli_layer_create("render", &args.layer, l.asset, &l.clips, l.clip, z_up))) {
            status = EXIT_FAILED;
            goto done;
        }
    }
    if (args.springs.on) {
        int n = l.asset->skeleton->joint_count;
        j.local = malloc(sizeof *j.local * (size_t)n);
        j.model = malloc(sizeof *j.model * (size_t)n);
        if (!j.local || !j.model) {
            fprintf(stderr, "sinew: render: out of memory\n");
            status = EXIT_FAILED;
            goto done;
        }
        if (!(j.springs = cli_springs_create("render", l.asset, args.source.file, args.springs.dt))) {
            status = EXIT_FAILED;
            goto done;
        }
    }
    bool still = args.pose != SCENE_POSE_ANIMATED || (!j.clip && !j.layer);
    float length = j.layer ? cli_layer_length(j.layer) : j.clip ? j.clip->duration : 0.0f;
    j.frames = plan_frames(&args, length, still, &j.frame_count);
    sinew_error err = {0};
    if (!j.frames || !(ctx = sinew_gl_context_create(&err))) {
        fprintf(stderr, "sinew: render: %s\n", j.frames ? err.description : "out of memory");
        status = EXIT_FAILED;
        goto done;
    }
    char why[300];
    if (!(j.scene = scene_create(l.asset, z_up, why, sizeof why))) {
        fprintf(stderr, "sinew: render: %s\n", why);
        status = EXIT_FAILED;
        goto done;
    }
    if (!target_create(&t, args.width, args.height)) {
        fprintf(stderr, "sinew: render: no %dx%d framebuffer from the driver\n", args.width, args.height);
        status = EXIT_FAILED;
        goto done;
    }
    status = fit_camera(&j) ? render_all(&j, &t) : EXIT_FAILED;
done:
    if (ctx) {
        target_free(&t);
        scene_free(j.scene);
        sinew_gl_context_free(ctx);
    }
    free(j.frames);
    free(args.times);
    cli_springs_free(j.springs);
    free(j.local), free(j.model);
    cli_layer_free(j.layer);
    cli_unload(&l);
    return status;
}

#else /* built without OpenGL or libpng */

#include <stdio.h>

int cli_render(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "sinew: render: this sinew was built without OpenGL or libpng "
                    "(apt-get install libepoxy-dev libpng-dev libegl-mesa0 libgl1-mesa-dri, then rebuild)\n");
    return EXIT_FAILED;
}

#endif
