/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* mkdir */
/* sinew convert: files in, archives (sinew_archive.h) or glTF out
 * (sinew_write_gltf: -o OUT.glb, OUT.gltf). One file a job,
 * jobs spread over a thread pool; each file's load runs Assimp behind its
 * process wall, so a file that crashes the importer fails alone. The
 * output of one input is the same bytes every time. */
#include "cli.h"
#include "sinew/sinew_archive.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct convert_settings {
    cli_source source;     /* the load options, --anim files */
    const char *out;       /* OUT.sinew, or DIR/ */
    const char *name;      /* --name: the asset's name in the archive; NULL: the file's, without folders */
    bool out_dir;          /* -o names a folder: written DIR/, or one that exists */
    bool keep_extension;   /* --keep-extension: DIR/walk.fbx.sinew, not DIR/walk.sinew */
    bool optimize, pack, clips_only, prepare;
    float compress_cm;     /* --compress: the bound in centimeters; 0 for none */
    float unit;            /* --unit: meters a unit of the input; 0: as it declares, else by its kind */
    sinew_gltf_weights weights; /* --weights: how OUT.glb or OUT.gltf stores skin weights */
    bool quantize;         /* --quantize: OUT.glb or OUT.gltf with KHR_mesh_quantization */
    bool meshopt;          /* --meshopt: OUT.glb or OUT.gltf with EXT_meshopt_compression */
    bool weights_set;      /* --weights was given */
    float resample_hz;     /* --resample: every clip sampled at this rate into OUT.glb or OUT.gltf; 0: as loaded */
    bool keep_units;       /* --keep-units: OUT.glb or OUT.gltf in the input's units, not scaled to meters */
    bool keep_axes;        /* --keep-axes: OUT.glb or OUT.gltf in the input's declared axes, not turned to Y up */
    int influences;        /* --influences: the most a vertex keeps in OUT.glb or OUT.gltf; 0: every one */
} convert_settings;

/* The name convert gives the built-in character (converted without FILE). */
static const char builtin_name[] = "the built-in character";

typedef struct job {
    const convert_settings *settings;
    const char *in;        /* the file, or builtin_name */
    bool builtin;
    char out[1024];
    int status;            /* EXIT_OK or EXIT_FAILED */
    char why[512];         /* what failed */
    long long in_bytes, out_bytes; /* the sizes of the file named and of the archive written */
    char notes[4096];      /* what glTF output changed (units, resampling, influences), one line each */
} job;

typedef struct batch {
    job *jobs;
    int count;
    atomic_int done;
    cli_progress progress;
} batch;

/* The default tolerance of --optimize: what a viewer cannot tell from the
 * clip (0.01 mm-ish in metres or centimetres alike, a thousandth of a
 * degree, a millionth of scale): sinew_clip_optimize keeps every sampled
 * value within it. */
static const sinew_clip_tolerance optimize_tolerance = {1e-5f, 2e-5f, 1e-6f};

/* Meters a unit of the file at `path`, by its kind, for a file that
 * declares none (an FBX file without a UnitScaleFactor, a BVH file, an
 * archive): FBX's centimeter (the unit FBX exporters write by default),
 * 1 for the rest (BVH and archives: as they hold it). */
static float file_unit(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && strcasecmp(dot, ".fbx") == 0 ? 0.01f : 1.0f;
}

/* Where the input's unit comes from. */
typedef enum unit_from { UNIT_GIVEN, UNIT_DECLARED, UNIT_BY_KIND } unit_from;

/* Meters a unit of the input `a` read from `path`: --unit where given,
 * else the unit the file declares (sinew_asset.meters_per_unit), else by
 * the file's kind; *from says which. */
static float input_unit(const convert_settings *s, const char *path, const sinew_asset *a, unit_from *from)
{
    if (s->unit > 0.0f) {
        *from = UNIT_GIVEN;
        return s->unit;
    }
    if (a->meters_per_unit > 0.0f) {
        *from = UNIT_DECLARED;
        return a->meters_per_unit;
    }
    *from = UNIT_BY_KIND;
    return file_unit(path);
}

/* Whether `arg`, following --compress, is its bound rather than the next
 * input: a number; or, where no such file is, something written like one
 * ("2cm", ".5x") or a word without an extension ("abc"): a bad bound then,
 * which must not become an input that asks for a folder. */
static bool is_bound(const char *arg)
{
    float v;
    if (cli_parse_float(arg, &v)) return true;
    const char *c = arg + (arg[0] == '+' || arg[0] == '-');
    bool numeric = isdigit((unsigned char)c[0]) || (c[0] == '.' && isdigit((unsigned char)c[1]));
    if (arg[0] == '-' && !numeric) return false; /* another option */
    struct stat st;
    if (stat(arg, &st) == 0) return false;
    return numeric || (!strchr(arg, '.') && !strchr(arg, '/'));
}

/* --compress, its bound in centimeters following it where one does
 * ("--compress 0.05", "--compress=0.05"; 0.01 otherwise). */
static bool compress_arg(cli_args *p, float *bound_cm)
{
    const char *a = p->argv[p->i], *text = NULL;
    if (strncmp(a, "--compress=", 11) == 0)
        text = a + 11;
    else if (strcmp(a, "--compress") != 0)
        return false;
    float v = 0.01f;
    if (!text && p->i + 1 < p->argc && is_bound(p->argv[p->i + 1])) text = p->argv[++p->i];
    if (text && !(cli_parse_float(text, &v) && v > 0.0f))
        cli_bad_value(p, "--compress", text, "is not a distance in centimeters above 0");
    *bound_cm = v;
    return true;
}

static void fail(job *j, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(j->why, sizeof j->why, format, ap);
    va_end(ap);
    j->status = EXIT_FAILED;
}

/* Where one file's messages go: they name it, and clear the batch's
 * progress line first (jobs on other threads draw it too: stderr's lock
 * keeps each line whole). */
typedef struct job_logger {
    batch *b;
    const char *file;
} job_logger;

static void job_log(void *user, sinew_log_level level, const char *message)
{
    job_logger *l = user;
    if (level == SINEW_LOG_INFO && !cli_verbose) return;
    flockfile(stderr);
    cli_progress_clear(&l->b->progress);
    cli_log(l->file, level, message);
    funlockfile(stderr);
}

static void warn(job_logger *l, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(job_logger *l, const char *format, ...)
{
    char note[700];
    va_list ap;
    va_start(ap, format);
    vsnprintf(note, sizeof note, format, ap);
    va_end(ap);
    job_log(l, SINEW_LOG_WARNING, note);
}

static long long file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* "850 bytes", "12.3 KiB", "4.5 MiB". */
static void put_size(char *text, size_t size, long long bytes)
{
    if (bytes < 10000)
        snprintf(text, size, "%lld bytes", bytes);
    else if (bytes < 10LL << 20)
        snprintf(text, size, "%.1f KiB", (double)bytes / 1024.0);
    else
        snprintf(text, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* "IN -> OUT (P%)": the sizes and what the output is of the input (OUT
 * alone without an input file). */
static void put_sizes(char *text, size_t size, long long in, long long out)
{
    char a[32], b[32];
    put_size(a, sizeof a, in), put_size(b, sizeof b, out);
    if (in < 0) {
        snprintf(text, size, "%s", b);
        return;
    }
    snprintf(text, size, "%s -> %s (%.1f%%)", a, b, in > 0 ? 100.0 * (double)out / (double)in : 0.0);
}

/* Whether `path` names a glTF file (.glb, .gltf) rather than an archive. */
static bool is_gltf(const char *path)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path, *dot = strrchr(name, '.');
    return dot && dot != name && (strcasecmp(dot, ".glb") == 0 || strcasecmp(dot, ".gltf") == 0);
}

/* What a unit of `meters` is called: "centimetres" for 0.01. */
static const char *unit_name(float meters, char *text, size_t size)
{
    static const struct { float meters; const char *name; } known[] = {
        {1.0f, "metres"}, {0.01f, "centimetres"}, {0.001f, "millimetres"}, {0.0254f, "inches"}, {0.3048f, "feet"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; ++i)
        if (meters == known[i].meters) return known[i].name;
    snprintf(text, size, "units of %g m", (double)meters);
    return text;
}

/* The input's direction that `to_gltf` (sinew_asset.axis_rotation) turns
 * onto glTF's `target` (its up or front), as "Z", "-Y"; "?" where it is
 * no axis. */
static const char *source_axis(sinew_quat to_gltf, sinew_vec3 target)
{
    static const char *const names[2][3] = {{"X", "Y", "Z"}, {"-X", "-Y", "-Z"}};
    sinew_vec3 v = sinew_quat_rotate(sinew_quat_conjugate(to_gltf), target);
    const float c[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; ++i)
        if (fabsf(fabsf(c[i]) - 1.0f) < 1e-3f) return names[c[i] < 0.0f][i];
    return "?";
}

/* Whether `q` turns nothing: the identity (either sign). */
static bool no_turn(sinew_quat q)
{
    return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && fabsf(q.w) == 1.0f;
}

/* Appends a line to the job's notes. */
static void note(job *j, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void note(job *j, const char *format, ...)
{
    size_t at = strlen(j->notes);
    va_list ap;
    va_start(ap, format);
    vsnprintf(j->notes + at, sizeof j->notes - at, format, ap);
    va_end(ap);
}

/* The asset to the job's output: glTF (sinew_write_gltf, docs/GLTF_OUT.md),
 * scaled to meters unless --keep-units and turned from the axes the file
 * declares to Y up unless --keep-axes, its notes saying what was done;
 * or an archive. `base`'s logger hears what glTF leaves out. */
static sinew_result save_out(const convert_settings *s, job *j, const sinew_asset *out,
                             const sinew_archive_write_options *o, const sinew_options *base, sinew_error *err)
{
    if (!is_gltf(j->out)) return sinew_archive_save(out, j->out, o, err);
    unit_from from;
    float unit = input_unit(s, j->in, out, &from), scale = s->keep_units ? 1.0f : unit;
    float *clip_errors = calloc((size_t)out->clip_count + 1, sizeof *clip_errors);
    if (!clip_errors) {
        err->result = SINEW_ERROR_OUT_OF_MEMORY;
        snprintf(err->description, sizeof err->description, "out of memory");
        return err->result;
    }
    /* the axes the file declares turned to glTF's, unless --keep-axes */
    bool turn = !no_turn(out->axis_rotation);
    /* the virtual vertices of the error measure lie 3 cm from each joint */
    sinew_gltf_write_options g = {.base = *base, .weights = s->weights, .quantize = s->quantize,
                                  .meshopt = s->meshopt, .resample_rate = s->resample_hz,
                                  .shell_distance = 0.03f / unit, .clip_errors = clip_errors, .scale = scale,
                                  .max_influences = s->influences,
                                  .rotation = turn && !s->keep_axes ? out->axis_rotation : (sinew_quat){0, 0, 0, 0}};
    sinew_gltf_write_report report;
    sinew_result r = sinew_write_gltf(out, j->out, &g, &report, err);
    if (r == SINEW_OK && s->resample_hz > 0.0f)
        note(j, "clips resampled at %g a second into LINEAR tracks\n", (double)s->resample_hz);
    if (r == SINEW_OK) {
        char text[64];
        const char *name = unit_name(unit, text, sizeof text), *written = s->keep_units ? name : "metres";
        if (scale != 1.0f)
            note(j, "scaled by %g: %s%s%s (--keep-units leaves them)\n", (double)scale,
                 from == UNIT_GIVEN ? "--unit gives " : from == UNIT_DECLARED ? "the file declares " : "", name,
                 from == UNIT_BY_KIND ? ", taken by the file's kind: no unit declared" : "");
        else if (unit != 1.0f)
            note(j, "left in %s, %s (--keep-units); glTF readers take metres\n", name,
                 from == UNIT_GIVEN ? "which --unit gives" : from == UNIT_DECLARED ? "which the file declares"
                                                                                   : "taken by the file's kind");
        if (turn) {
            /* the declared up and, where up is Y already, the front */
            const char *up = source_axis(out->axis_rotation, (sinew_vec3){0, 1, 0});
            const char *front = source_axis(out->axis_rotation, (sinew_vec3){0, 0, 1});
            char declared[64];
            if (strcmp(up, "Y") == 0)
                snprintf(declared, sizeof declared, "Y up, front %s", front);
            else
                snprintf(declared, sizeof declared, "%s up", up);
            if (s->keep_axes)
                note(j, "left %s, which the file declares (--keep-axes); glTF readers take Y up\n", declared);
            else
                note(j, "turned from %s to Y up: the file declares %s (--keep-axes leaves it)\n", declared, declared);
        }
        for (int c = 0; c < out->clip_count; ++c)
            if (isnan(clip_errors[c]))
                note(j, "clip \"%s\" %s: its error is not measured (the warning above says why)\n",
                     out->clips[c]->name, s->resample_hz > 0.0f ? "resampled" : "sampled");
            else if (clip_errors[c] >= 0.0f)
                note(j, "clip \"%s\" %s: within %.3g %s of its poses (measured 3 cm from each joint)\n",
                     out->clips[c]->name,
                     s->resample_hz > 0.0f ? "resampled" : "sampled from its packed or compressed form",
                     (double)clip_errors[c], written);
        if (report.quantized_meshes > 0)
            note(j, "positions quantized: each within %.3g %s of where it was (0.87 of a grid step of %.6g, the "
                 "largest mesh's)\n", 0.87 * (double)report.quantize_step, written, (double)report.quantize_step);
        if (s->influences > 0)
            note(j, "at most %d influences a vertex: %d vertices lost weights, the largest %.3g (the rest "
                 "renormalized)\n", s->influences, report.limited_vertices, (double)report.dropped_weight);
    }
    free(clip_errors);
    return r;
}

static void convert_one(void *user, int index)
{
    batch *b = user;
    job *j = &b->jobs[index];
    const convert_settings *s = j->settings;
    sinew_error err;
    job_logger log = {b, j->in}, anim_log[CLI_MAX_ANIMS];
    sinew_load_options load = s->source.load;
    cli_load_options(&load, j->in);
    load.base.logger = (sinew_logger){job_log, &log};
    const sinew_clip **clips = NULL;
    sinew_clip **owned = NULL;
    /* each clip's timeline, from the file its clip comes from; those
     * --compress made */
    const sinew_timeline **timelines = NULL;
    sinew_timeline **owned_timelines = NULL;
    int count = 0, made = 0, made_timelines = 0;
    sinew_asset *a = NULL;
    a = j->builtin ? sinew_demo_create(&load.base, &err) : sinew_load_file(j->in, &load, &err);
    if (!a) {
        fail(j, "%s", err.description);
        goto done;
    }
    /* the clips: the file's own, or those of --anim retargeted by name */
    int capacity = a->clip_count;
    sinew_asset *anims[CLI_MAX_ANIMS] = {0};
    for (int f = 0; f < s->source.anim_count; ++f) {
        sinew_load_options anim_load = load;
        anim_log[f] = (job_logger){b, s->source.anims[f]};
        anim_load.base.logger.user = &anim_log[f];
        anims[f] = sinew_load_file(s->source.anims[f], &anim_load, &err);
        if (!anims[f]) {
            fail(j, "%s", err.description);
            goto free_anims;
        }
        capacity += anims[f]->clip_count;
    }
    /* each clip may be made three times over: retargeted, optimized, then
     * packed or compressed */
    clips = calloc((size_t)capacity + 1, sizeof *clips);
    owned = calloc(3 * (size_t)capacity + 1, sizeof *owned);
    timelines = calloc((size_t)capacity + 1, sizeof *timelines);
    owned_timelines = calloc((size_t)capacity + 1, sizeof *owned_timelines);
    if (!clips || !owned || !timelines || !owned_timelines) {
        fail(j, "out of memory");
        goto free_anims;
    }
    if (s->source.anim_count == 0)
        for (int c = 0; c < a->clip_count; ++c) {
            timelines[count] = a->timelines ? a->timelines[c] : NULL;
            clips[count++] = a->clips[c];
        }
    for (int f = 0; f < s->source.anim_count; ++f)
        for (int c = 0; c < anims[f]->clip_count; ++c) {
            sinew_retarget_report rep;
            sinew_clip *moved = sinew_clip_retarget(anims[f]->clips[c], anims[f]->skeleton, a->skeleton,
                                                    &load.base, &rep, &err);
            if (!moved) {
                fail(j, "%s: %s", s->source.anims[f], err.description);
                goto free_anims;
            }
            owned[made++] = moved;
            /* a timeline plays on its clip's time, which retargeting keeps */
            timelines[count] = anims[f]->timelines ? anims[f]->timelines[c] : NULL;
            clips[count++] = moved;
        }
    /* a clip packed or compressed already (read from an archive) stays as it is */
    if (s->optimize)
        for (int c = 0; c < count; ++c) {
            if (clips[c]->packed || clips[c]->compressed) continue;
            sinew_clip *slim = sinew_clip_optimize(clips[c], &optimize_tolerance, a->skeleton, NULL, NULL, &err);
            if (!slim) {
                fail(j, "%s", err.description);
                goto free_anims;
            }
            owned[made++] = slim;
            clips[c] = slim;
        }
    /* packing takes clips whose tracks share one set of key times: another
     * stays as it is, and the logger says why */
    for (int c = 0; s->pack && c < count; ++c) {
        if (clips[c]->packed) continue;
        if (clips[c]->compressed) {
            warn(&log, "%s: clip \"%s\" stays compressed: a compressed clip holds no tracks to pack", j->in,
                 clips[c]->name);
            continue;
        }
        sinew_clip *packed = sinew_clip_pack(clips[c], a->skeleton, NULL, NULL, &err);
        if (packed) {
            owned[made++] = packed;
            clips[c] = packed;
        } else if (err.result == SINEW_ERROR_UNSUPPORTED) {
            warn(&log, "%s: stays unpacked: %s", j->in, err.description);
        } else {
            fail(j, "%s", err.description);
            goto free_anims;
        }
    }
    for (int c = 0; s->compress_cm > 0.0f && c < count; ++c) {
        if (clips[c]->compressed) continue;
        if (clips[c]->packed) {
            warn(&log, "%s: clip \"%s\" stays packed: a packed clip holds no tracks to compress", j->in,
                 clips[c]->name);
            continue;
        }
        unit_from from;
        float unit = input_unit(s, j->in, a, &from);
        sinew_compress_options o = {.meters_per_unit = unit, .error_bound = s->compress_cm * 0.01f / unit};
        sinew_compress_report report;
        sinew_clip *small = sinew_clip_compress(clips[c], a->skeleton, &o, &load.base, &report, &err);
        if (!small) {
            fail(j, "%s", err.description);
            goto free_anims;
        }
        /* a clip of few keys (a spline's) can hold less than its samples: it stays */
        if (report.bytes >= sinew_clip_bytes(clips[c])) {
            warn(&log, "%s: clip \"%s\" stays as it is: compressed it takes %zu bytes, it holds %zu", j->in,
                 clips[c]->name, report.bytes, sinew_clip_bytes(clips[c]));
            sinew_clip_free(small);
            continue;
        }
        owned[made++] = small;
        clips[c] = small;
    }
    /* --compress: the timelines' user tracks to their tolerances, -v telling
     * what each became */
    for (int c = 0; s->compress_cm > 0.0f && c < count; ++c) {
        /* events alone hold nothing to compress */
        if (!timelines[c] || timelines[c]->compressed || !timelines[c]->track_count) continue;
        sinew_timeline_report report;
        sinew_timeline *small = sinew_timeline_compress(timelines[c], &load.base, &report, &err);
        if (!small) {
            fail(j, "%s: clip \"%s\": %s", j->in, clips[c]->name, err.description);
            goto free_anims;
        }
        owned_timelines[made_timelines++] = small;
        timelines[c] = small;
        char note[300];
        snprintf(note, sizeof note, "clip \"%s\": timeline compressed: %d -> %d keys, %d -> %d bytes", clips[c]->name,
                 report.keys_before, report.keys_after, report.bytes_before, report.bytes_after);
        job_log(&log, SINEW_LOG_INFO, note);
    }
    {
        /* the asset as read, with the clips chosen and their timelines */
        sinew_asset out = *a;
        if (s->name) out.name = s->name;
        out.clips = clips;
        out.clip_count = count;
        bool any = false;
        for (int c = 0; c < count; ++c) any = any || timelines[c];
        out.timelines = any ? timelines : NULL;
        sinew_archive_write_options o = {.clips_only = s->clips_only, .skin_blocks = s->prepare};
        if (save_out(s, j, &out, &o, &load.base, &err) != SINEW_OK) fail(j, "%s", err.description);
        j->in_bytes = j->builtin ? -1 : file_bytes(j->in), j->out_bytes = file_bytes(j->out);
    }
free_anims:
    for (int f = 0; f < s->source.anim_count; ++f) sinew_asset_free(anims[f]);
done:
    for (int c = 0; c < made; ++c) sinew_clip_free(owned[c]);
    for (int c = 0; c < made_timelines; ++c) sinew_timeline_free(owned_timelines[c]);
    free(owned), free((void *)clips), free(owned_timelines), free((void *)timelines);
    sinew_asset_free(a);
    int finished = atomic_fetch_add(&b->done, 1) + 1;
    flockfile(stderr);
    if (j->status == EXIT_OK && j->notes[0]) {
        cli_progress_clear(&b->progress);
        for (char *line = j->notes, *end; *line; line = end + 1) {
            end = strchr(line, '\n');
            fprintf(stderr, "sinew: convert: %s: %.*s\n", j->in, (int)(end - line), line);
        }
    }
    if (cli_verbose && j->status == EXIT_OK) {
        char sizes[100];
        put_sizes(sizes, sizeof sizes, j->in_bytes, j->out_bytes);
        cli_progress_clear(&b->progress);
        fprintf(stderr, "sinew: convert: %s -> %s: %s\n", j->in, j->out, sizes);
    }
    if (b->count > 1) cli_progress_show(&b->progress, "convert", "%d of %d files", finished, b->count);
    funlockfile(stderr);
}

/* DIR/NAME.sinew for input `in` (its name without folders, and without its
 * extension unless `keep_extension`). */
static void out_path(const char *dir, const char *in, bool keep_extension, char *out, size_t size)
{
    const char *slash = strrchr(in, '/');
    const char *name = slash ? slash + 1 : in;
    const char *dot = strrchr(name, '.');
    int length = dot && dot != name && !keep_extension ? (int)(dot - name) : (int)strlen(name);
    size_t d = strlen(dir);
    snprintf(out, size, "%s%s%.*s.sinew", dir, d && dir[d - 1] == '/' ? "" : "/", length, name);
}

/* -o: a folder (written DIR/, or one that exists), else OUT.sinew; false
 * after a usage error. */
static bool out_arg(cli_args *p, convert_settings *s, int input_count)
{
    size_t length = strlen(s->out);
    struct stat st;
    s->out_dir = (length && s->out[length - 1] == '/') || (stat(s->out, &st) == 0 && S_ISDIR(st.st_mode));
    /* what only glTF output takes: refused rather than dropped unsaid */
    if ((s->out_dir || !is_gltf(s->out)) && (s->quantize || s->weights_set || s->meshopt || s->influences)) {
        cli_usage(p, "-o %s: %s is for glTF output (-o OUT.glb or OUT.gltf); archives store meshes as loaded", s->out,
                  s->quantize ? "--quantize" : s->meshopt ? "--meshopt" : s->influences ? "--influences" : "--weights");
        return false;
    }
    if ((s->out_dir || !is_gltf(s->out)) && (s->resample_hz > 0.0f || s->keep_units || s->keep_axes)) {
        cli_usage(p, "-o %s: %s is for glTF output (-o OUT.glb or OUT.gltf); archives store clips, lengths and axes "
                  "as loaded", s->out, s->keep_units ? "--keep-units" : s->keep_axes ? "--keep-axes" : "--resample");
        return false;
    }
    if (s->out_dir) return true;
    if (input_count > 1) {
        cli_usage(p, "-o %s: %d inputs need a folder, written DIR/", s->out, input_count);
        return false;
    }
    const char *slash = strrchr(s->out, '/'), *name = slash ? slash + 1 : s->out, *dot = strrchr(name, '.');
    if (!dot || dot == name) {
        cli_bad_value(p, "-o", s->out, "has no extension: convert writes .sinew archives (OUT.sinew, or DIR/ for a "
                      "folder) and glTF (OUT.glb, OUT.gltf)");
        return false;
    }
    if (strcasecmp(dot, ".sinew") != 0 && !is_gltf(s->out)) {
        cli_bad_value(p, "-o", s->out, "ends in %s, a format convert does not write: it writes .sinew archives "
                      "(OUT.sinew, or DIR/ for a folder) and glTF (OUT.glb, OUT.gltf)", dot);
        return false;
    }
    /* what only an archive stores */
    if (is_gltf(s->out) && (s->clips_only || s->prepare)) {
        cli_usage(p, "%s: glTF has no place for what %s asks; it is for .sinew archives", s->out,
                  s->clips_only ? "--clips-only" : "--prepare");
        return false;
    }
    return true;
}

static int by_out(const void *a, const void *b)
{
    const job *x = *(const job *const *)a, *y = *(const job *const *)b;
    int c = strcasecmp(x->out, y->out);
    return c ? c : (x < y ? -1 : x > y);
}

/* Whether two jobs write one file: a usage error naming both inputs and
 * the output (each such pair). Names are compared ignoring case, since
 * archives are made to be shipped, and file systems that ignore case
 * (Windows, macOS) would hold one where Linux holds two. */
static bool colliding(cli_args *p, job *jobs, int count)
{
    job **order = malloc(sizeof *order * ((size_t)count + 1));
    if (!order) {
        fprintf(stderr, "sinew: convert: out of memory\n");
        p->status = EXIT_FAILED;
        return true;
    }
    for (int i = 0; i < count; ++i) order[i] = &jobs[i];
    qsort(order, (size_t)count, sizeof *order, by_out);
    int pairs = 0;
    bool same_names = false; /* two inputs of one name: --keep-extension cannot part them */
    for (int i = 1; i < count; ++i)
        if (strcasecmp(order[i - 1]->out, order[i]->out) == 0) {
            const job *x = order[i - 1], *y = order[i];
            const char *xn = strrchr(x->in, '/'), *yn = strrchr(y->in, '/');
            same_names |= strcasecmp(xn ? xn + 1 : x->in, yn ? yn + 1 : y->in) == 0;
            char where[2200];
            if (strcmp(x->out, y->out) == 0)
                snprintf(where, sizeof where, "both be written to %s%s", y->out,
                         strcmp(x->in, y->in) == 0 ? " (the same input twice)" : "");
            else
                snprintf(where, sizeof where, "be written to %s and %s, one file on Windows and macOS (the names "
                         "differ only in case)", x->out, y->out);
            if (!pairs++)
                cli_usage(p, "%s and %s would %s", x->in, y->in, where);
            else
                fprintf(stderr, "sinew: convert: %s and %s would %s\n", x->in, y->in, where);
        }
    if (pairs)
        fprintf(stderr, "sinew: convert: nothing converted: give each input its own output (%s)\n",
                same_names ? "inputs of one name need their own -o, or their own runs"
                           : "--keep-extension names each output by its input's whole name: walk.fbx.sinew");
    free(order);
    return pairs > 0;
}

int cli_convert(int argc, char **argv)
{
    convert_settings s = {0};
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int input_count = 0, threads = 1;
    if (!inputs) return EXIT_FAILED;
    cli_args p = cli_args_begin("convert", argc, argv);
    for (const char *v; cli_next(&p);) {
        if ((v = cli_value(&p, "-o")) || (v = cli_value(&p, "--out"))) {
            s.out = v;
        } else if ((v = cli_value(&p, "--name"))) {
            s.name = v;
        } else if ((v = cli_value(&p, "-j")) || (v = cli_value(&p, "--jobs"))) {
            if (!cli_parse_int(v, 1, SINEW_MAX_THREADS, &threads))
                cli_bad_value(&p, "-j", v, "is not a job count from 1 to %d", SINEW_MAX_THREADS);
        } else if (cli_flag(&p, "--optimize")) {
            s.optimize = true;
        } else if (cli_flag(&p, "--keep-extension")) {
            s.keep_extension = true;
        } else if (cli_flag(&p, "--clips-only")) {
            s.clips_only = true;
        } else if (cli_flag(&p, "--prepare")) {
            s.prepare = true;
        } else if (cli_flag(&p, "--pack")) {
            s.pack = true;
        } else if (compress_arg(&p, &s.compress_cm)) {
        } else if (cli_flag(&p, "--quantize")) {
            s.quantize = true;
        } else if (cli_flag(&p, "--meshopt")) {
            s.meshopt = true;
        } else if ((v = cli_value(&p, "--weights"))) {
            s.weights_set = true;
            if (strcmp(v, "float") == 0)
                s.weights = SINEW_GLTF_WEIGHTS_FLOAT;
            else if (strcmp(v, "unorm8") == 0)
                s.weights = SINEW_GLTF_WEIGHTS_UNORM8;
            else if (strcmp(v, "unorm16") == 0)
                s.weights = SINEW_GLTF_WEIGHTS_UNORM16;
            else
                cli_bad_value(&p, "--weights", v, "is not a weight type: float, unorm8 or unorm16");
        } else if ((v = cli_value(&p, "--resample"))) {
            if (!cli_parse_float(v, &s.resample_hz) || !(s.resample_hz > 0.0f && s.resample_hz <= 1e6f))
                cli_bad_value(&p, "--resample", v, "is not a rate in samples a second above 0 (at most 1e6)");
        } else if ((v = cli_value(&p, "--influences"))) {
            if (!cli_parse_int(v, 1, 8, &s.influences))
                cli_bad_value(&p, "--influences", v, "is not an influence count from 1 to 8");
        } else if (cli_flag(&p, "--keep-units")) {
            s.keep_units = true;
        } else if (cli_flag(&p, "--keep-axes")) {
            s.keep_axes = true;
        } else if ((v = cli_value(&p, "--unit"))) {
            if (!cli_parse_float(v, &s.unit) || !(s.unit > 0.0f))
                cli_bad_value(&p, "--unit", v, "is not a length in meters above 0");
        } else if (argv[p.i][0] != '-' && s.source.file) {
            inputs[input_count++] = argv[p.i]; /* a second, third ... input */
        } else if (cli_source_arg(&p, &s.source)) {
            if (s.source.file && input_count == 0) inputs[input_count++] = s.source.file;
        } else {
            cli_unknown(&p);
        }
    }
    if (p.status == EXIT_OK && s.pack && s.compress_cm > 0.0f)
        cli_usage(&p, "--pack and --compress: a clip is packed or compressed, choose one");
    if (p.status == EXIT_OK && !s.out) cli_usage(&p, "no output: -o OUT.sinew, or -o DIR/ for several inputs");
    if (p.status != EXIT_OK) {
        free(inputs);
        return p.status;
    }
    if (s.name && input_count > 1) {
        cli_usage(&p, "--name %s: names one input's asset, and there are %d inputs", s.name, input_count);
        free(inputs);
        return EXIT_USAGE;
    }
    if (input_count == 0) input_count = 1; /* inputs[0] NULL: the built-in character */
    if (!out_arg(&p, &s, input_count)) {
        free(inputs);
        return EXIT_USAGE;
    }
    batch b = {calloc((size_t)input_count, sizeof(job)), input_count, 0, cli_progress_begin()};
    if (!b.jobs) {
        free(inputs);
        return EXIT_FAILED;
    }
    for (int i = 0; i < input_count; ++i) {
        job *j = &b.jobs[i];
        j->settings = &s, j->in = inputs[i] ? inputs[i] : builtin_name, j->builtin = !inputs[i];
        if (s.out_dir)
            out_path(s.out, inputs[i] ? inputs[i] : "sinew_demo", s.keep_extension, j->out, sizeof j->out);
        else
            snprintf(j->out, sizeof j->out, "%s", s.out);
    }
    /* two inputs one output (walk.fbx, walk.dae): refused before anything
     * is converted, so that neither is lost without a word */
    if (colliding(&p, b.jobs, input_count)) {
        free(b.jobs);
        free(inputs);
        return p.status;
    }
    if (s.out_dir && mkdir(s.out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sinew: convert: -o %s: cannot make the folder: %s\n", s.out, strerror(errno));
        free(b.jobs);
        free(inputs);
        return EXIT_FAILED;
    }
    sinew_error err;
    sinew_pool *pool = threads > 1 ? sinew_pool_create(threads, NULL, &err) : NULL;
    if (threads > 1 && !pool) fprintf(stderr, "sinew: convert: %s; converting on one thread\n", err.description);
    sinew_pool_run(pool, input_count, convert_one, &b);
    sinew_pool_free(pool);
    cli_progress_clear(&b.progress);
    int failed = 0;
    long long in = 0, out = 0;
    for (int i = 0; i < input_count; ++i)
        if (b.jobs[i].status != EXIT_OK) {
            ++failed;
            fprintf(stderr, "sinew: convert: %s\n", b.jobs[i].why);
        } else {
            in += b.jobs[i].in_bytes, out += b.jobs[i].out_bytes;
        }
    char sizes[100] = "";
    if (input_count > failed) {
        sizes[0] = ':', sizes[1] = ' ';
        put_sizes(sizes + 2, sizeof sizes - 2, in, out);
    }
    if (input_count > 1 || failed)
        fprintf(stderr, "sinew: convert: %d of %d files converted%s%s\n", input_count - failed, input_count, sizes,
                failed ? "; the ones that failed are named above" : "");
    free(b.jobs);
    free(inputs);
    return failed ? EXIT_FAILED : EXIT_OK;
}
