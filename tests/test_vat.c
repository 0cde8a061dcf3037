/* SPDX-License-Identifier: MIT */
/* `sinew vat` against `sinew bake`, read back from docs/VAT.md alone: the
 * PNGs decoded here with libpng (no code of the tool's), positions within
 * one 16-bit step of each axis's extent of bake's at the same frames,
 * normals within one octahedral step, the float32 files equal to bake's
 * numbers; the reported interpolation error equal to the one measured from
 * bakes at the midpoint times. On the built-in character (plain and
 * --in-place) and on arnaud.fbx playing walk.fbx (skipped, saying why,
 * without the shared assets or Assimp).
 * usage: test_vat SINEW_BINARY WORK_DIR */
#include "sinew/sinew.h"
#include "check.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <png.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *sinew_bin, *work;

/* Runs the tool with `args` (shell words), stdout and stderr into
 * WORK/run.log; the exit status. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s/run.log' 2>&1", sinew_bin, args, work);
    int r = system(cmd);
    return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

static char *read_text(const char *path)
{
    size_t size;
    return (char *)test_read_file(path, &size);
}

static cJSON *read_json(const char *path)
{
    char *text = read_text(path);
    cJSON *json = text ? cJSON_Parse(text) : NULL;
    free(text);
    return json;
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* A 16-bit RGB PNG as samples (3 a pixel, rows top to bottom, host
 * order); NULL when it is not one. */
typedef struct png16 {
    int width, height;
    uint16_t *samples;
} png16;

static png16 read_png16(const char *path)
{
    png16 im = {0, 0, NULL};
    FILE *f = fopen(path, "rb");
    if (!f) return im;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(f);
        free(im.samples);
        im.samples = NULL;
        return im;
    }
    png_init_io(png, f);
    /* no transforms: the file's own bytes, most significant first */
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    int depth = png_get_bit_depth(png, info), type = png_get_color_type(png, info);
    if (depth == 16 && type == PNG_COLOR_TYPE_RGB) {
        im.width = (int)png_get_image_width(png, info);
        im.height = (int)png_get_image_height(png, info);
        im.samples = malloc(sizeof(uint16_t) * 3 * (size_t)im.width * (size_t)im.height);
        png_bytepp rows = png_get_rows(png, info);
        for (int y = 0; y < im.height && im.samples; ++y)
            for (int k = 0; k < im.width * 3; ++k)
                im.samples[((size_t)y * (size_t)im.width) * 3 + (size_t)k] =
                    (uint16_t)(rows[y][k * 2] << 8 | rows[y][k * 2 + 1]);
    } else {
        fprintf(stderr, "%s: bit depth %d, color type %d (want 16-bit RGB)\n", path, depth, type);
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return im;
}

/* A little-endian float32 file; NULL when missing. */
static float *read_floats(const char *path, size_t *count)
{
    size_t size;
    unsigned char *bytes = test_read_file(path, &size);
    if (!bytes) return NULL;
    *count = size / 4;
    float *x = malloc(sizeof(float) * (*count + 1));
    for (size_t i = 0; i < *count; ++i) {
        uint32_t u = (uint32_t)bytes[i * 4] | (uint32_t)bytes[i * 4 + 1] << 8 | (uint32_t)bytes[i * 4 + 2] << 16 |
                     (uint32_t)bytes[i * 4 + 3] << 24;
        memcpy(&x[i], &u, 4);
    }
    free(bytes);
    return x;
}

/* The octahedral map as docs/VAT.md gives it, and its inverse. */
static void oct_encode(const double n[3], double p[2])
{
    double s = fabs(n[0]) + fabs(n[1]) + fabs(n[2]);
    double x = n[0] / s, y = n[1] / s;
    if (n[2] < 0.0) {
        double fx = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0), fy = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
        x = fx, y = fy;
    }
    p[0] = x, p[1] = y;
}

static void oct_decode(const double p[2], double n[3])
{
    n[0] = p[0], n[1] = p[1], n[2] = 1.0 - fabs(p[0]) - fabs(p[1]);
    if (n[2] < 0.0) {
        n[0] = (1.0 - fabs(p[1])) * (p[0] >= 0.0 ? 1.0 : -1.0);
        n[1] = (1.0 - fabs(p[0])) * (p[1] >= 0.0 ? 1.0 : -1.0);
    }
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k) n[k] /= l;
}

/* Mesh `mesh` of bake frame `frame`: its positions or normals array. */
static const cJSON *baked(const cJSON *bake, int frame, int mesh, const char *what)
{
    const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(bake, "frames"), frame);
    return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "meshes"), mesh), what);
}

/* A frame's time as docs/VAT.md gives it: start + f / fps, in float32. */
static float frame_time(float start, float fps, double f)
{
    return start + (float)f / fps;
}

/* `sinew vat SOURCE VAT_ONLY -o WORK/NAME` against `sinew bake SOURCE` at the frames
 * `picks` (every frame for NULL; -1 ends the list); with `midpoints`, the
 * interpolation error measured from bakes halfway between every frame. */
static void check_case(const char *name, const char *source, const char *vat_only, const int *picks, bool midpoints)
{
    char args[2048], path[1024];
    snprintf(args, sizeof args, "vat %s %s -o '%s/%s'", source, vat_only, work, name);
    int status = run(args);
    snprintf(path, sizeof path, "%s/run.log", work);
    char *log = read_text(path);
    CHECK(status == 0, "%s: sinew %s: exit %d: %s", name, args, status, log ? log : "");
    CHECK(log && strstr(log, "interpolation error: "), "%s: the interpolation error is reported: %s", name,
          log ? log : "");
    free(log);
    if (status != 0) return;
    snprintf(path, sizeof path, "%s/%s.json", work, name);
    cJSON *vat = read_json(path);
    CHECK(vat != NULL, "%s is JSON", path);
    if (!vat) return;
    const cJSON *format = cJSON_GetObjectItem(vat, "format");
    CHECK(cJSON_IsString(format) && strcmp(format->valuestring, "sinew-vat-1") == 0, "%s: format", name);
    int mesh = (int)number(vat, "mesh"), vc = (int)number(vat, "vertices"), frames = (int)number(vat, "frames");
    int width = (int)number(vat, "width"), rows = (int)number(vat, "rows_per_frame");
    float fps = (float)number(vat, "fps"), start = (float)number(vat, "start");
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(vat, "bounds_min"), k));
        hi[k] = cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(vat, "bounds_max"), k));
    }
    CHECK(vc > 0 && frames > 0 && width > 0 && width <= 8192 && rows > 0 && (long)width * rows >= vc &&
              (long)width * (rows - 1) < vc && fps > 0 && hi[0] >= lo[0] && hi[1] >= lo[1] && hi[2] >= lo[2],
          "%s: the JSON's fields: %d vertices, %d frames, %dx%d a frame", name, vc, frames, width, rows);
    printf("%s: mesh %d, %d vertices, %d frames at %g per second, %dx%d a frame\n", name, mesh, vc, frames,
           (double)fps, width, rows);

    /* the textures, from the names the JSON gives (beside it) */
    const cJSON *pname = cJSON_GetObjectItem(vat, "positions"), *nname = cJSON_GetObjectItem(vat, "normals");
    snprintf(path, sizeof path, "%s/%s", work, cJSON_IsString(pname) ? pname->valuestring : "?");
    png16 pos = read_png16(path);
    CHECK(pos.samples && pos.width == width && pos.height == frames * rows, "%s: 16-bit RGB, %dx%d", path, width,
          frames * rows);
    png16 nrm = {0, 0, NULL};
    if (cJSON_IsString(nname)) {
        snprintf(path, sizeof path, "%s/%s", work, nname->valuestring);
        nrm = read_png16(path);
        CHECK(nrm.samples && nrm.width == width && nrm.height == frames * rows, "%s: 16-bit RGB, %dx%d", path, width,
              frames * rows);
    }

    /* bake at the chosen frames' times (and at the midpoints) */
    int list[4096], count = 0;
    for (int i = 0; picks ? picks[i] >= 0 : i < frames; ++i)
        if (count < 4096) list[count++] = picks ? (picks[i] < frames ? picks[i] : frames - 1) : i;
    char *times = malloc((size_t)(count + frames) * 24 + 16);
    int at = 0;
    for (int i = 0; i < count; ++i)
        at += sprintf(times + at, "%s%.9g", i ? "," : "", (double)frame_time(start, fps, list[i]));
    int mids = midpoints ? frames - 1 : 0; /* the step back from the last frame to the first is apart */
    for (int i = 0; i < mids; ++i) at += sprintf(times + at, ",%.9g", (double)frame_time(start, fps, i + 0.5));
    snprintf(path, sizeof path, "%s/%s.bake.json", work, name);
    char *bake_args = malloc(strlen(times) + 2048);
    sprintf(bake_args, "bake %s --times %s --json '%s'", source, times, path);
    status = run(bake_args);
    CHECK(status == 0, "%s: sinew bake: exit %d", name, status);
    cJSON *bake = status == 0 ? read_json(path) : NULL;
    CHECK(bake != NULL, "%s is JSON", path);

    double worst_pos = 0.0, worst_oct = 0.0, worst_dir = 0.0;
    long blue = 0; /* B samples that are not zero */
    double step[3];
    for (int k = 0; k < 3; ++k) step[k] = (hi[k] - lo[k]) / 65535.0;
    for (int i = 0; i < count && bake && pos.samples; ++i) {
        int f = list[i];
        const cJSON *bp = baked(bake, i, mesh, "positions"), *bn = baked(bake, i, mesh, "normals");
        CHECK(cJSON_GetArraySize(bp) == vc * 3, "%s: bake frame %d has the mesh's %d vertices", name, f, vc);
        if (cJSON_GetArraySize(bp) != vc * 3) break;
        const cJSON *x = bp->child, *y = bn ? bn->child : NULL;
        for (int v = 0; v < vc; ++v) {
            size_t texel = ((size_t)f * (size_t)rows + (size_t)(v / width)) * (size_t)width + (size_t)(v % width);
            for (int k = 0; k < 3; ++k, x = x->next) {
                /* value / 65535 * (max - min) + min */
                double decoded = pos.samples[texel * 3 + k] / 65535.0 * (hi[k] - lo[k]) + lo[k];
                /* in steps; float32 rounding of the bounds and the values as slack */
                double d = fabs(decoded - x->valuedouble) / (step[k] > 0.0 ? step[k] : 1.0);
                double slack = 4e-7 * fmax(fabs(lo[k]), fabs(hi[k])) / (step[k] > 0.0 ? step[k] : 1.0);
                if (!(d - slack <= worst_pos)) worst_pos = d - slack;
            }
            if (nrm.samples && y) {
                double n[3], p[2], q[2], dn[3];
                for (int k = 0; k < 3; ++k, y = y->next) n[k] = y->valuedouble;
                oct_encode(n, p);
                /* R and G: [-1, 1] over 0..65535 */
                q[0] = nrm.samples[texel * 3] / 65535.0 * 2.0 - 1.0;
                q[1] = nrm.samples[texel * 3 + 1] / 65535.0 * 2.0 - 1.0;
                blue += nrm.samples[texel * 3 + 2] != 0;
                double step_oct = 2.0 / 65535.0;
                worst_oct = fmax(worst_oct, fmax(fabs(p[0] - q[0]), fabs(p[1] - q[1])) / step_oct);
                oct_decode(q, dn);
                double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                for (int k = 0; k < 3; ++k) worst_dir = fmax(worst_dir, fabs(dn[k] - n[k] / l));
            }
        }
    }
    printf("%s: %d frames against bake: positions within %.3f of a step, octahedral normals within %.3f of a step "
           "(unit normals within %.2e)\n",
           name, count, worst_pos, worst_oct, worst_dir);
    CHECK(worst_pos <= 1.0, "%s: positions within one 16-bit step per axis: %.3f steps", name, worst_pos);
    if (nrm.samples) {
        CHECK(blue == 0, "%s: the normals' B is zero (%ld texels are not)", name, blue);
        CHECK(worst_oct <= 1.0, "%s: normals within one octahedral step: %.3f steps", name, worst_oct);
        /* one step of 2/65535 in the map moves a unit normal by at most
         * about twice that */
        CHECK(worst_dir <= 2.0 * 2.0 / 65535.0 * 2.0, "%s: decoded unit normals within %.2e", name, worst_dir);
    }

    /* the error the tool reports: mixing frames f and f + 1 against skinning
     * at the time halfway between, the worst over the vertices */
    if (midpoints && bake && frames > 1 && !picks) {
        double worst = 0.0;
        for (int i = 0; i < mids; ++i) {
            const cJSON *a = baked(bake, i, mesh, "positions")->child, *b = baked(bake, i + 1, mesh, "positions")->child;
            const cJSON *m = baked(bake, count + i, mesh, "positions")->child;
            for (int v = 0; v < vc; ++v) {
                double d2 = 0.0;
                for (int k = 0; k < 3; ++k, a = a->next, b = b->next, m = m->next) {
                    double d = 0.5 * (a->valuedouble + b->valuedouble) - m->valuedouble;
                    d2 += d * d;
                }
                worst = fmax(worst, sqrt(d2));
            }
        }
        double reported = number(vat, "interpolation_error");
        printf("%s: interpolation error reported %.6g, measured from bakes at the midpoints %.6g\n", name, reported,
               worst);
        CHECK(fabs(reported - worst) <= 1e-6 * fmax(1.0, worst) + 1e-7, "%s: interpolation error %.9g vs %.9g", name,
              reported, worst);
        CHECK(number(vat, "loop_error") >= 0.0, "%s: the loop's error is reported", name);
    }

    free(pos.samples), free(nrm.samples);
    free(times), free(bake_args);
    cJSON_Delete(bake);
    cJSON_Delete(vat);
}

/* --float: the same layout as float32, every value bake's own. */
static void check_float(void)
{
    char args[1024], path[1024];
    snprintf(args, sizeof args, "vat --float --fps 10 -o '%s/raw'", work);
    CHECK(run(args) == 0, "sinew %s", args);
    snprintf(path, sizeof path, "%s/raw.json", work);
    cJSON *vat = read_json(path);
    CHECK(vat != NULL, "%s is JSON", path);
    if (!vat) return;
    const cJSON *enc = cJSON_GetObjectItem(vat, "encoding"), *pname = cJSON_GetObjectItem(vat, "positions"),
                *nname = cJSON_GetObjectItem(vat, "normals");
    CHECK(cJSON_IsString(enc) && strcmp(enc->valuestring, "float32") == 0, "--float: encoding float32");
    CHECK(cJSON_IsString(pname) && strcmp(pname->valuestring, "raw.positions.bin") == 0 && cJSON_IsString(nname) &&
              strcmp(nname->valuestring, "raw.normals.bin") == 0,
          "--float: .bin files named");
    int vc = (int)number(vat, "vertices"), frames = (int)number(vat, "frames"), width = (int)number(vat, "width"),
        rows = (int)number(vat, "rows_per_frame");
    float fps = (float)number(vat, "fps"), start = (float)number(vat, "start");
    size_t np = 0, nn = 0;
    snprintf(path, sizeof path, "%s/raw.positions.bin", work);
    float *p = read_floats(path, &np);
    snprintf(path, sizeof path, "%s/raw.normals.bin", work);
    float *n = read_floats(path, &nn);
    size_t want = (size_t)width * (size_t)rows * (size_t)frames * 3;
    CHECK(p && n && np == want && nn == want, "--float: %zu floats each (%zu, %zu)", want, np, nn);
    char times[4096];
    int at = 0;
    for (int f = 0; f < frames && at < 4000; ++f)
        at += snprintf(times + at, sizeof times - (size_t)at, "%s%.9g", f ? "," : "", (double)frame_time(start, fps, f));
    snprintf(path, sizeof path, "%s/raw.bake.json", work);
    char bake_args[8192];
    snprintf(bake_args, sizeof bake_args, "bake --times %s --json '%s'", times, path);
    CHECK(run(bake_args) == 0, "sinew bake for --float");
    cJSON *bake = read_json(path);
    double worst = 0.0;
    for (int f = 0; f < frames && bake && p && n && np == want; ++f) {
        const cJSON *x = baked(bake, f, 0, "positions")->child, *y = baked(bake, f, 0, "normals")->child;
        for (int v = 0; v < vc; ++v) {
            size_t texel = ((size_t)f * (size_t)rows + (size_t)(v / width)) * (size_t)width + (size_t)(v % width);
            for (int k = 0; k < 3; ++k, x = x->next, y = y->next) {
                worst = fmax(worst, fabs((double)p[texel * 3 + k] - (double)(float)x->valuedouble));
                worst = fmax(worst, fabs((double)n[texel * 3 + k] - (double)(float)y->valuedouble));
            }
        }
    }
    printf("--float: %d frames, positions and normals off bake's by %g\n", frames, worst);
    CHECK(bake && worst == 0.0, "--float: bake's floats exactly, off by %g", worst);
    free(p), free(n);
    cJSON_Delete(bake);
    cJSON_Delete(vat);
}

/* Refusals, each a sentence naming the place. */
static void check_errors(void)
{
    char args[1024], path[1024];
    snprintf(path, sizeof path, "%s/run.log", work);
    CHECK(run("vat") == 2, "no -o: a usage error");
    snprintf(args, sizeof args, "vat --mesh 7 -o '%s/x'", work);
    CHECK(run(args) == 1, "--mesh past the meshes fails");
    char *log = read_text(path);
    CHECK(log && strstr(log, "sinew: vat: the built-in character: --mesh 7: it has 1 mesh (0 to 0)"), "says why: %s",
          log ? log : "");
    free(log);
    snprintf(args, sizeof args, "vat --fps 20000 -o '%s/x'", work);
    CHECK(run(args) == 1, "a texture too tall fails");
    log = read_text(path);
    CHECK(log && strstr(log, "20000 frames, past 16384"), "says why: %s", log ? log : "");
    free(log);
    CHECK(run("vat --fps 0 -o x") == 2, "--fps 0: a usage error");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_vat SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    sinew_bin = argv[1];
    work = argv[2];
    mkdir(work, 0777);
    check_case("builtin", "", "", NULL, true);
    static const int some[] = {0, 1, 7, 15, 29, -1};
    check_case("builtin_in_place", "--in-place", "--fps 24", some, false);
    /* the springs (the ponytail), stepped on from frame to frame in vat
     * and replayed for each time in bake; at 24 frames per second half the
     * frames fall between two steps of 1/60 s */
    check_case("builtin_springs", "--springs", "", NULL, true);
    check_case("builtin_springs_24", "--springs --in-place", "--fps 24", some, false);
    check_float();
    check_errors();

    char arnaud[1024], walk[1024];
    snprintf(arnaud, sizeof arnaud, "%s/fbx/pab/arnaud.fbx", SINEW_ASSETS);
    snprintf(walk, sizeof walk, "%s/fbx/pab/walk.fbx", SINEW_ASSETS);
    struct stat st;
    if (stat(arnaud, &st) != 0 || stat(walk, &st) != 0) {
        printf("skip: arnaud with walk: %s or %s is missing (the shared assets)\n", arnaud, walk);
    } else {
        char source[2300];
        snprintf(source, sizeof source, "'%s' --anim '%s'", arnaud, walk);
        char args[2600];
        snprintf(args, sizeof args, "info '%s' --quiet", arnaud);
        char path[1024];
        snprintf(path, sizeof path, "%s/run.log", work);
        int status = run(args);
        char *log = read_text(path);
        if (status != 0 && log && strstr(log, "libassimp")) {
            printf("skip: arnaud with walk: this sinew reads no FBX (built without Assimp)\n");
        } else {
            static const int frames[] = {0, 1, 10, 19, 20, 33, 39, -1};
            check_case("arnaud_walk", source, "", frames, false);
        }
        free(log);
    }
    return check_finish("test_vat");
}
