/* SPDX-License-Identifier: MIT */
/* `sinew vat`: what `sinew bake` skins, one mesh at evenly spaced frames
 * across the clip (or the blend, the crossfade), written as vertex
 * animation textures for crowds: OUT.json, OUT.positions.png and
 * OUT.normals.png (16-bit RGB), or float32 .bin files with --float. The
 * layout, the encodings and every choice are in docs/VAT.md, which other
 * tools read; shaders/sinew_vat.vert plays them. */
#include "cli.h"

#ifdef SINEW_CLI_RENDER

#include "layer.h"
#include "springs.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The widest texture row (docs/VAT.md), and the tallest texture: 16384 is
 * what every desktop GPU of GL 4 takes (GL_MAX_TEXTURE_SIZE), so a texture
 * no taller plays anywhere a crowd is drawn. */
enum { VAT_MAX_WIDTH = 8192, VAT_MAX_HEIGHT = 16384 };

typedef struct vat_args {
    cli_source source;
    cli_layer_args layer;
    const char *out;
    float fps;
    int mesh; /* -1: the first skinned mesh, else the first */
    bool raw; /* --float */
    sinew_skinning method;
    int up;
    cli_springs_args springs;
} vat_args;

static int parse_args(int argc, char **argv, vat_args *a)
{
    cli_args p = cli_args_begin("vat", argc, argv);
    for (const char *v; cli_next(&p);) {
        if (cli_source_arg(&p, &a->source) || cli_layer_arg(&p, &a->layer) || cli_springs_arg(&p, &a->springs))
            continue;
        if (cli_flag(&p, "--float")) {
            a->raw = true;
        } else if ((v = cli_value(&p, "--fps"))) {
            if (!cli_parse_float(v, &a->fps) || !(a->fps > 0.0f) || a->fps > 100000.0f)
                cli_bad_value(&p, "--fps", v, "is not a rate in frames per second (above 0, at most 100000)");
        } else if ((v = cli_value(&p, "--mesh"))) {
            if (!cli_parse_int(v, 0, 1000000, &a->mesh)) cli_bad_value(&p, "--mesh", v, "is not a mesh index");
        } else if ((v = cli_value(&p, "--method"))) {
            if (!cli_parse_method(v, &a->method)) cli_bad_value(&p, "--method", v, "is not a method: lbs or dqs");
        } else if ((v = cli_value(&p, "--up"))) {
            if (strcmp(v, "y") != 0 && strcmp(v, "z") != 0)
                cli_bad_value(&p, "--up", v, "is not an axis: y or z");
            else
                a->up = v[0];
        } else if ((v = cli_value(&p, "-o")) || (v = cli_value(&p, "--out"))) {
            a->out = v;
        } else {
            cli_unknown(&p);
        }
    }
    if (p.status == EXIT_OK && !a->out) cli_usage(&p, "-o OUT is required (OUT.json and its textures are written)");
    cli_springs_args_check(&p, &a->springs);
    return p.status;
}

/* What posing one mesh needs, as bake does it. */
typedef struct vat_pose {
    const sinew_asset *asset;
    const sinew_clip *clip;
    const sinew_mesh *mesh;
    cli_layer *layer;
    cli_springs *springs; /* --springs */
    sinew_skinning method;
    sinew_transform *local;
    sinew_mat4 *model;
    float *weights;
    void *scratch;
    size_t scratch_size;
} vat_pose;

/* The animated pose at `time` into s->local and s->model, as bake takes it:
 * the layer's pose or the clip's. */
static sinew_result animated_pose(void *user, float time, sinew_transform *local, sinew_mat4 *model, sinew_error *err)
{
    vat_pose *s = user;
    const sinew_skeleton *sk = s->asset->skeleton;
    int n = sk->joint_count;
    sinew_result r = SINEW_OK;
    if (s->layer) {
        char why[200];
        const sinew_transform *pose = cli_layer_pose(s->layer, time, why, sizeof why);
        if (!pose) {
            snprintf(err->description, sizeof err->description, "%s", why);
            return err->result = SINEW_ERROR_INVALID_ARGUMENT;
        }
        memcpy(local, pose, sizeof *local * (size_t)n);
    } else {
        r = s->clip ? sinew_clip_sample(s->clip, sk, time, SINEW_SAMPLE_LOOP, NULL, local, n, err)
                    : sinew_rest_pose(sk, local, n, err);
    }
    if (r == SINEW_OK) r = sinew_local_to_model(sk, local, NULL, model, n, err);
    return r;
}

/* The mesh at `time` into positions and normals (3 floats a vertex each),
 * the same steps as `sinew bake`: the layer's pose or the clip's (with the
 * springs simulated up to it where asked), its morph weights,
 * sinew_mesh_pose. Times stay inside the clip (the last frame is one before
 * its end), so wrapping and clamping agree with bake. */
static bool pose_at(vat_pose *s, float time, float *positions, float *normals)
{
    int n = s->asset->skeleton->joint_count;
    sinew_error err = {0};
    sinew_result r = s->springs ? cli_springs_pose(s->springs, time, animated_pose, s, s->local, s->model, &err)
                                : animated_pose(s, time, s->local, s->model, &err);
    const float *weights = NULL;
    if (r == SINEW_OK && s->mesh->morph) {
        r = cli_morph_weights(s->mesh, s->clip, time, SINEW_SAMPLE_LOOP, s->weights, &err);
        weights = s->weights;
    }
    if (r == SINEW_OK)
        r = sinew_mesh_pose(s->mesh, s->model, n, weights, s->method, s->scratch, s->scratch_size, positions, normals,
                            NULL, &err);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew: vat: time %g: %s\n", (double)time, err.description);
        return false;
    }
    return true;
}

/* The octahedral map of a unit normal (docs/VAT.md), each coordinate in
 * [-1, 1]: the upper half projected, the lower half folded over the
 * diagonals. */
static void octahedral(const float n[3], double p[2])
{
    double x = n[0], y = n[1], z = n[2], sum = fabs(x) + fabs(y) + fabs(z);
    if (!(sum > 0.0)) {
        p[0] = p[1] = 0.0; /* no direction: straight up */
        return;
    }
    double px = x / sum, py = y / sum;
    if (z < 0.0) {
        double fx = (1.0 - fabs(py)) * (px >= 0.0 ? 1.0 : -1.0), fy = (1.0 - fabs(px)) * (py >= 0.0 ? 1.0 : -1.0);
        px = fx, py = fy;
    }
    p[0] = px, p[1] = py;
}

/* value in [lo, hi] to 0..65535, rounded to nearest; a zero extent gives 0
 * (decoded, lo exactly). */
static uint16_t quantize(double value, double lo, double hi)
{
    if (!(hi > lo)) return 0;
    double q = floor((value - lo) / (hi - lo) * 65535.0 + 0.5);
    return (uint16_t)(q < 0.0 ? 0.0 : q > 65535.0 ? 65535.0 : q);
}

typedef struct png_failure {
    jmp_buf jump;
    char why[200];
} png_failure;

static void png_error_fn(png_structp png, png_const_charp message)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->why, sizeof f->why, "%s", message);
    longjmp(f->jump, 1);
}

static void png_warning_fn(png_structp png, png_const_charp message)
{
    (void)png, (void)message;
}

/* A 16-bit RGB PNG of `width` x `height` from samples (3 a pixel, rows top
 * to bottom), most significant byte first as PNG stores them. */
static bool write_png16(const char *path, const uint16_t *samples, int width, int height, char *why, int why_size)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, (size_t)why_size, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    png_failure failure = {.why = ""};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, png_error_fn, png_warning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *row = malloc((size_t)width * 6);
    if (!png || !info || !row) {
        snprintf(why, (size_t)why_size, "%s: out of memory", path);
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(f);
        return false;
    }
    if (setjmp(failure.jump)) {
        snprintf(why, (size_t)why_size, "%s: libpng: %s", path, failure.why);
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(f);
        return false;
    }
    png_init_io(png, f);
    /* zlib's default level: most of the best level's saving on these
     * smooth samples, at a fraction of its time */
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y) {
        const uint16_t *s = &samples[(size_t)y * (size_t)width * 3];
        for (size_t k = 0; k < (size_t)width * 3; ++k) row[k * 2] = (unsigned char)(s[k] >> 8), row[k * 2 + 1] = (unsigned char)s[k];
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(f) != 0) {
        snprintf(why, (size_t)why_size, "write error on %s", path);
        return false;
    }
    return true;
}

/* float32 samples, little-endian whatever the machine's order. */
static bool write_floats(const char *path, const float *x, size_t count, char *why, int why_size)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, (size_t)why_size, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    unsigned char buffer[4096];
    size_t at = 0;
    bool ok = true;
    for (size_t i = 0; i < count && ok; ++i) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        for (int b = 0; b < 4; ++b) buffer[at++] = (unsigned char)(u >> (8 * b));
        if (at == sizeof buffer || i + 1 == count) {
            ok = fwrite(buffer, 1, at, f) == at;
            at = 0;
        }
    }
    if (fclose(f) != 0) ok = false;
    if (!ok) snprintf(why, (size_t)why_size, "write error on %s", path);
    return ok;
}

static void put_number(FILE *f, double x)
{
    fprintf(f, "%.9g", x);
}

static void put_vec3(FILE *f, const float v[3])
{
    fprintf(f, "[%.9g, %.9g, %.9g]", (double)v[0], (double)v[1], (double)v[2]);
}

/* The file name without its folders: the JSON names its textures relative
 * to its own folder. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
#ifdef _WIN32
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash)) slash = back;
#endif
    return slash ? slash + 1 : path;
}

int cli_vat(int argc, char **argv)
{
    vat_args args = {.fps = 30.0f, .mesh = -1, .up = 'y'};
    int status = parse_args(argc, argv, &args);
    cli_loaded l = {0};
    if (status == EXIT_OK) status = cli_load("vat", &args.source, &l);
    if (status != EXIT_OK) return status;
    const sinew_asset *a = l.asset;
    const char *file = args.source.file ? args.source.file : "the built-in character";
    vat_pose s = {.asset = a, .clip = l.clip, .method = args.method};
    float *frames_p = NULL, *frames_n = NULL, *mid_p = NULL, *mid_n = NULL;
    uint16_t *image = NULL;
    float *raw = NULL;
    char *stem = NULL, *path = NULL;
    FILE *json = NULL;

    /* the mesh: the one asked for, else the first skinned one (a crowd is
     * made of characters), else the first */
    int m = args.mesh;
    if (m >= a->mesh_count) {
        fprintf(stderr, "sinew: vat: %s: --mesh %d: it has %d mesh%s (0 to %d)\n", file, m, a->mesh_count,
                a->mesh_count == 1 ? "" : "es", a->mesh_count - 1);
        status = EXIT_FAILED;
        goto done;
    }
    if (m < 0) {
        for (int i = 0; i < a->mesh_count && m < 0; ++i)
            if (a->meshes[i].skin) m = i;
        if (m < 0) m = 0;
    }
    if (a->mesh_count == 0 || a->meshes[m].vertex_count == 0) {
        fprintf(stderr, "sinew: vat: %s: %s\n", file, a->mesh_count ? "the mesh has no vertices" : "no mesh to bake");
        status = EXIT_FAILED;
        goto done;
    }
    const sinew_mesh *mesh = s.mesh = &a->meshes[m];
    if (cli_layer_wanted(&args.layer) &&
        !(s.layer = cli_layer_create("vat", &args.layer, a, &l.clips, l.clip, args.up == 'z'))) {
        status = EXIT_FAILED;
        goto done;
    }
    if (args.springs.on && !(s.springs = cli_springs_create("vat", a, args.source.file, args.springs.dt))) {
        status = EXIT_FAILED;
        goto done;
    }

    /* frames: the clip's length cut into whole frames at about --fps, the
     * rate then adjusted so that they tile it exactly; the frame at the end
     * is left out, since a crowd's loop comes back to the first */
    float length = s.layer ? cli_layer_length(s.layer) : l.clip ? l.clip->duration : 0.0f;
    int frames = 1;
    float fps = args.fps;
    if (length > 0.0f && isfinite(length)) {
        double f = floor((double)length * (double)args.fps + 0.5);
        if (f > VAT_MAX_HEIGHT) {
            fprintf(stderr, "sinew: vat: %s: %.3f s at %g frames per second is %.0f frames, past %d (the tallest "
                            "texture GPUs are sure to take); lower --fps\n",
                    file, (double)length, (double)args.fps, f, VAT_MAX_HEIGHT);
            status = EXIT_FAILED;
            goto done;
        }
        frames = f < 1.0 ? 1 : (int)f;
        fps = (float)((double)frames / (double)length);
    }
    int vc = mesh->vertex_count;
    int rows = (vc + VAT_MAX_WIDTH - 1) / VAT_MAX_WIDTH;
    int width = (vc + rows - 1) / rows;
    if ((long)frames * rows > VAT_MAX_HEIGHT) {
        fprintf(stderr, "sinew: vat: %s: mesh %d: %d frames of %d row%s each make %ld rows, past %d (the tallest "
                        "texture GPUs are sure to take); lower --fps\n",
                file, m, frames, rows, rows == 1 ? "" : "s", (long)frames * rows, VAT_MAX_HEIGHT);
        status = EXIT_FAILED;
        goto done;
    }
    int height = frames * rows;

    int n = a->skeleton->joint_count;
    s.scratch_size = sinew_mesh_pose_scratch_size(mesh);
    s.local = malloc(sizeof *s.local * (size_t)n);
    s.model = malloc(sizeof *s.model * (size_t)n);
    s.weights = malloc(sizeof(float) * (size_t)(mesh->morph ? mesh->morph->target_count : 1));
    s.scratch = s.scratch_size ? aligned_alloc(16, (s.scratch_size + 15) / 16 * 16) : NULL;
    size_t frame_floats = (size_t)vc * 3;
    frames_p = malloc(sizeof(float) * frame_floats * (size_t)frames);
    frames_n = calloc(frame_floats * (size_t)frames, sizeof(float));
    mid_p = malloc(sizeof(float) * frame_floats);
    mid_n = malloc(sizeof(float) * frame_floats);
    size_t texels = (size_t)width * (size_t)height;
    if (args.raw)
        raw = calloc(texels * 3, sizeof(float));
    else
        image = calloc(texels * 3, sizeof(uint16_t));
    if (!s.local || !s.model || !s.weights || (s.scratch_size && !s.scratch) || !frames_p || !frames_n || !mid_p ||
        !mid_n || (!raw && !image)) {
        fprintf(stderr, "sinew: vat: %s: out of memory for %d frames of %d vertices\n", file, frames, vc);
        status = EXIT_FAILED;
        goto done;
    }

    /* every frame skinned, and the bounds over all of them */
    const float start = 0.0f;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    cli_progress progress = cli_progress_begin();
    for (int f = 0; f < frames; ++f) {
        cli_progress_show(&progress, "vat", "frame %d of %d", f + 1, frames);
        float *p = &frames_p[frame_floats * (size_t)f], *nr = &frames_n[frame_floats * (size_t)f];
        if (!pose_at(&s, start + (float)f / fps, p, nr)) {
            status = EXIT_FAILED;
            goto done;
        }
        for (size_t i = 0; i < frame_floats; ++i) {
            if (!isfinite(p[i])) {
                cli_progress_clear(&progress);
                fprintf(stderr, "sinew: vat: %s: mesh %d, frame %d: vertex %zu's position is not finite\n", file, m,
                        f, i / 3);
                status = EXIT_FAILED;
                goto done;
            }
            lo[i % 3] = fminf(lo[i % 3], p[i]), hi[i % 3] = fmaxf(hi[i % 3], p[i]);
        }
    }

    /* what playing the frames back costs: halfway between each frame and
     * the next, skinned against the two mixed; the step from the last frame
     * back to the first apart, since a clip that carries its root far
     * (a walk not --in-place) jumps there and a crowd wants to know */
    double worst = 0.0, wrap = 0.0;
    float worst_time = 0.0f;
    int worst_vertex = 0;
    for (int f = 0; f < frames && frames > 1; ++f) {
        cli_progress_show(&progress, "vat", "midpoint %d of %d", f + 1, frames);
        float t = start + ((float)f + 0.5f) / fps;
        if (!pose_at(&s, t, mid_p, mid_n)) {
            status = EXIT_FAILED;
            goto done;
        }
        const float *p0 = &frames_p[frame_floats * (size_t)f], *p1 = &frames_p[frame_floats * (size_t)((f + 1) % frames)];
        for (int v = 0; v < vc; ++v) {
            double d2 = 0.0;
            for (int k = 0; k < 3; ++k) {
                double mix = 0.5 * ((double)p0[v * 3 + k] + (double)p1[v * 3 + k]), d = mix - (double)mid_p[v * 3 + k];
                d2 += d * d;
            }
            double d = sqrt(d2);
            if (f + 1 == frames)
                wrap = fmax(wrap, d);
            else if (d > worst)
                worst = d, worst_time = t, worst_vertex = v;
        }
    }
    cli_progress_clear(&progress);

    /* the textures: vertex v of frame f at (v mod width, f * rows + v / width) */
    bool normals = mesh->normals != NULL;
    char why[400];
    size_t out_length = strlen(args.out);
    if (out_length > 5 && strcmp(args.out + out_length - 5, ".json") == 0) out_length -= 5;
    stem = malloc(out_length + 1);
    path = malloc(out_length + 32);
    if (!stem || !path) {
        fprintf(stderr, "sinew: vat: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    memcpy(stem, args.out, out_length);
    stem[out_length] = '\0';
    const char *ext = args.raw ? "bin" : "png";
    for (int which = 0; which < 1 + normals; ++which) {
        const float *src = which ? frames_n : frames_p;
        for (int f = 0; f < frames; ++f)
            for (int v = 0; v < vc; ++v) {
                size_t texel = ((size_t)f * (size_t)rows + (size_t)(v / width)) * (size_t)width + (size_t)(v % width);
                const float *x = &src[frame_floats * (size_t)f + (size_t)v * 3];
                if (raw) {
                    memcpy(&raw[texel * 3], x, sizeof(float) * 3);
                } else if (!which) {
                    for (int k = 0; k < 3; ++k) image[texel * 3 + k] = quantize(x[k], lo[k], hi[k]);
                } else {
                    double o[2];
                    octahedral(x, o);
                    image[texel * 3] = quantize(o[0], -1.0, 1.0);
                    image[texel * 3 + 1] = quantize(o[1], -1.0, 1.0);
                    image[texel * 3 + 2] = 0;
                }
            }
        snprintf(path, out_length + 32, "%s.%s.%s", stem, which ? "normals" : "positions", ext);
        bool ok = raw ? write_floats(path, raw, texels * 3, why, sizeof why)
                      : write_png16(path, image, width, height, why, sizeof why);
        if (!ok) {
            fprintf(stderr, "sinew: vat: %s\n", why);
            status = EXIT_FAILED;
            goto done;
        }
    }

    snprintf(path, out_length + 32, "%s.json", stem);
    json = fopen(path, "w");
    if (!json) {
        fprintf(stderr, "sinew: vat: cannot write %s: %s\n", path, strerror(errno));
        status = EXIT_FAILED;
        goto done;
    }
    const char *name = base_name(stem);
    fprintf(json, "{\"format\": \"sinew-vat-1\", \"mesh\": %d, \"vertices\": %d, \"frames\": %d, \"fps\": ", m, vc,
            frames);
    put_number(json, fps);
    fputs(", \"start\": ", json);
    put_number(json, start);
    fprintf(json, ", \"width\": %d, \"rows_per_frame\": %d, \"bounds_min\": ", width, rows);
    put_vec3(json, lo);
    fputs(", \"bounds_max\": ", json);
    put_vec3(json, hi);
    fprintf(json, ", \"encoding\": \"%s\", \"positions\": ", raw ? "float32" : "png16");
    snprintf(why, sizeof why, "%s.positions.%s", name, ext);
    cli_put_json_string(json, why);
    fputs(", \"normals\": ", json);
    if (normals) {
        snprintf(why, sizeof why, "%s.normals.%s", name, ext);
        cli_put_json_string(json, why);
    } else {
        fputs("null", json);
    }
    fputs(", \"mesh_name\": ", json);
    cli_put_json_string(json, mesh->name ? mesh->name : "");
    fputs(", \"clip\": ", json);
    if (l.clip)
        cli_put_json_string(json, l.clip->name ? l.clip->name : "");
    else
        fputs("null", json);
    fputs(", \"duration\": ", json);
    put_number(json, (double)frames / (double)fps);
    fprintf(json, ", \"method\": \"%s\", \"interpolation_error\": ", args.method == SINEW_SKINNING_DQS ? "dqs" : "lbs");
    put_number(json, worst);
    fputs(", \"interpolation_error_time\": ", json);
    put_number(json, worst_time);
    fprintf(json, ", \"interpolation_error_vertex\": %d, \"loop_error\": ", worst_vertex);
    put_number(json, wrap);
    if (s.springs) {
        fputs(", \"spring_dt\": ", json);
        put_number(json, cli_springs_dt(s.springs));
    }
    fputs("}\n", json);
    if (fflush(json) != 0 || ferror(json)) {
        fprintf(stderr, "sinew: vat: write error on %s\n", path);
        status = EXIT_FAILED;
        goto done;
    }

    printf("%s.json: mesh %d \"%s\", %d vertices, %d frames at %.6g per second (%.4g s), %dx%d texels%s\n", stem, m,
           mesh->name ? mesh->name : "", vc, frames, (double)fps, (double)frames / (double)fps, width, height,
           raw ? ", float32" : "");
    printf("bounds [%.6g, %.6g, %.6g] to [%.6g, %.6g, %.6g]; a 16-bit step is [%.3g, %.3g, %.3g]\n", (double)lo[0],
           (double)lo[1], (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2], (double)(hi[0] - lo[0]) / 65535.0,
           (double)(hi[1] - lo[1]) / 65535.0, (double)(hi[2] - lo[2]) / 65535.0);
    if (frames > 2)
        printf("interpolation error: %.6g at %.6g s (vertex %d), two frames mixed against skinning halfway between\n",
               worst, (double)worst_time, worst_vertex);
    else
        printf("interpolation error: 0 (%d frame%s)\n", frames, frames == 1 ? "" : "s");
    if (frames > 1)
        printf("loop error: %.6g, the last frame and the first mixed against skinning halfway between%s\n", wrap,
               wrap > 10.0 * worst && !args.layer.in_place ? " (the root moves: --in-place for a crowd that loops)"
                                                            : "");
done:
    if (json) fclose(json);
    free(stem), free(path);
    free(frames_p), free(frames_n), free(mid_p), free(mid_n), free(image), free(raw);
    free(s.local), free(s.model), free(s.weights), free(s.scratch);
    cli_layer_free(s.layer);
    cli_springs_free(s.springs);
    cli_unload(&l);
    return status;
}

#else /* built without libpng */

#include <stdio.h>

int cli_vat(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "sinew: vat: this sinew was built without libpng (apt-get install libpng-dev, then rebuild)\n");
    return EXIT_FAILED;
}

#endif
