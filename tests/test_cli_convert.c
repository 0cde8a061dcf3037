/* SPDX-License-Identifier: MIT */
/* `sinew convert` through the built binary, as a build machine runs it:
 * the same file converted by absolute and by relative path, from two
 * folders, gives the same bytes, the asset named by the file's name
 * without folders (or by --name); outputs that would overwrite each other
 * in a folder are refused before anything is converted, or kept apart by
 * --keep-extension; -o takes .sinew, .glb, .gltf or a folder only; --compress takes a
 * number or leaves the next argument an input; warnings in a batch name
 * their file; -v tells each file's sizes; keys 1e20 s apart compress by
 * their keys. The files are glTF written here.
 * usage: test_cli_convert SINEW_BINARY WORK_DIR */
#define _XOPEN_SOURCE 600
#include "sinew/sinew.h"
#include "check.h"
#include "cli_run.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sinew_bin, *work;

typedef cli_result result;

/* Runs `sinew ARGS` (formatted) from folder `cd`. */
static result run_at(const char *cd, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    result res = cli_run_at(sinew_bin, work, cd, "", format, ap);
    va_end(ap);
    return res;
}

/* Runs `sinew ARGS` (formatted) from WORK_DIR. */
static result run(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    result res = cli_run_at(sinew_bin, work, work, "", format, ap);
    va_end(ap);
    return res;
}

static bool has(const char *text, const char *needle)
{
    return strstr(text, needle) != NULL;
}

static bool exists(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    return access(path, F_OK) == 0;
}

/* The bytes of WORK_DIR/name, or NULL. */
static unsigned char *bytes(const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    return test_read_file(path, size);
}

/* Whether two files of WORK_DIR hold the same bytes. */
static bool same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = bytes(a, &na), *y = bytes(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x), free(y);
    return same;
}

/* The asset's name in archive `name` (sinew info --json), or "?". */
static void asset_name(const char *name, char *out, size_t size)
{
    result r = run("info %s --json", name);
    cJSON *json = cJSON_Parse(r.out);
    const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(json, "asset"));
    snprintf(out, size, "%s", n ? n : "?");
    cJSON_Delete(json);
    cli_result_free(&r);
}

/* ---- files ---- */

static void write_text(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0, "write %s", path);
    if (f) fclose(f);
}

/* A glTF file of two joints ("bone", "arm") and one clip ("wave") moving
 * the bone over 1 s, its keys in keys.bin beside it. */
static void write_gltf(const char *name)
{
    write_text(name,
               "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],\n"
               "\"nodes\": [{\"name\": \"bone\", \"children\": [1]}, {\"name\": \"arm\"}],\n"
               "\"buffers\": [{\"uri\": \"keys.bin\", \"byteLength\": 32}],\n"
               "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 8}, {\"buffer\": 0, \"byteOffset\": 8, "
               "\"byteLength\": 24}],\n"
               "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", "
               "\"min\": [0], \"max\": [1]}, {\"bufferView\": 1, \"componentType\": 5126, \"count\": 2, "
               "\"type\": \"VEC3\"}],\n"
               "\"animations\": [{\"name\": \"wave\", \"samplers\": [{\"input\": 0, \"output\": 1}], "
               "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}]}]}\n");
}

static void write_keys(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "wb");
    const float keys[8] = {0, 1, 0, 0, 0, 0, 1, 0}; /* times 0 and 1; (0,0,0) to (0,1,0) */
    CHECK(f && fwrite(keys, sizeof keys, 1, f) == 1, "write %s", path);
    if (f) fclose(f);
}

static void write_files(void)
{
    char path[1024];
    static const char *const dirs[] = {"art", "art/hero", "other", "existing"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s", work, dirs[i]);
        mkdir(path, 0777);
    }
    write_keys("art/hero/keys.bin");
    write_gltf("art/hero/walk.gltf");
    write_gltf("art/hero/anim.gltf");
    write_keys("other/keys.bin");
    write_gltf("other/walk.gltf");
    write_gltf("other/walk.glb"); /* glTF's JSON: the reader goes by content */
    write_gltf("other/Walk.gltf"); /* one file with walk.gltf where names ignore case */
}

/* ---- determinism ---- */

/* One file by absolute path from one folder, by relative path from
 * another: the same bytes, the asset named "walk.gltf". The same with
 * --anim files reached by different paths. */
static void check_deterministic(void)
{
    result a = run_at("/", "convert '%s/art/hero/walk.gltf' -o '%s/abs.sinew'", work, work);
    result b = run_at(work, "convert art/hero/walk.gltf -o rel.sinew");
    result c = run_at(work, "convert ./art/../art/hero//walk.gltf -o dots.sinew");
    CHECK(a.status == 0 && b.status == 0 && c.status == 0, "the three conversions run (%d %d %d): %s%s%s", a.status,
          b.status, c.status, a.err, b.err, c.err);
    CHECK(same_bytes("abs.sinew", "rel.sinew") && same_bytes("abs.sinew", "dots.sinew"),
          "walk.gltf by absolute and by relative paths: the same bytes");
    cli_result_free(&a), cli_result_free(&b), cli_result_free(&c);
    char name[256];
    asset_name("abs.sinew", name, sizeof name);
    CHECK(strcmp(name, "walk.gltf") == 0, "the asset is named by the file's name without folders: \"%s\"", name);
    size_t size = 0;
    unsigned char *x = bytes("abs.sinew", &size);
    bool leaked = false;
    for (size_t i = 0; x && i + 4 <= size; ++i) leaked = leaked || memcmp(x + i, "art/", 4) == 0;
    CHECK(x && !leaked, "no folder of the input in the archive's bytes");
    free(x);

    /* --anim: the clips of a file reached two ways */
    a = run_at("/", "convert '%s/art/hero/walk.gltf' --anim '%s/art/hero/anim.gltf' -o '%s/anim-abs.sinew'", work,
               work, work);
    b = run_at(work, "convert art/hero/walk.gltf --anim art/hero/anim.gltf -o anim-rel.sinew");
    CHECK(a.status == 0 && b.status == 0 && same_bytes("anim-abs.sinew", "anim-rel.sinew"),
          "--anim by absolute and by relative path: the same bytes (%d %d): %s%s", a.status, b.status, a.err, b.err);
    cli_result_free(&a), cli_result_free(&b);

    /* --name: the name given, and a usage error for several inputs */
    a = run("convert art/hero/walk.gltf --name hero -o named.sinew");
    CHECK(a.status == 0, "convert --name: %s", a.err);
    cli_result_free(&a);
    asset_name("named.sinew", name, sizeof name);
    CHECK(strcmp(name, "hero") == 0, "--name hero names the asset: \"%s\"", name);
    a = run("convert art/hero/walk.gltf other/walk.gltf --name hero -o named/");
    CHECK(a.status == 2 && has(a.err, "sinew: convert: --name hero: names one input's asset, and there are 2 inputs"),
          "--name with two inputs: %d: %s", a.status, a.err);
    CHECK(!exists("named"), "nothing made for a usage error");
    cli_result_free(&a);
}

/* ---- outputs ---- */

/* A usage error (exit 2) whose stderr has `text`, nothing converted. */
static void check_refused(const char *args, const char *text)
{
    result r = run("convert %s", args);
    CHECK(r.status == 2 && has(r.err, text), "convert %s: exit 2 with \"%s\", not %d: %s", args, text, r.status,
          r.err);
    CHECK(!has(r.err, "converted\n") || has(r.err, "nothing converted"), "convert %s: nothing converted: %s", args,
          r.err);
    cli_result_free(&r);
}

/* Outputs that would overwrite each other, -o's extension, a folder
 * without its slash. */
static void check_outputs(void)
{
    check_refused("art/hero/walk.gltf other/walk.glb -o out/",
                  "sinew: convert: art/hero/walk.gltf and other/walk.glb would both be written to out/walk.sinew\n");
    CHECK(!exists("out"), "nothing written (not even the folder) when two inputs collide");
    check_refused("art/hero/walk.gltf art/hero/walk.gltf -o out/", "(the same input twice)");
    check_refused("art/hero/walk.gltf other/Walk.gltf -o out/",
                  "art/hero/walk.gltf and other/Walk.gltf would be written to out/walk.sinew and out/Walk.sinew, "
                  "one file on Windows and macOS (the names differ only in case)");
    check_refused("art/hero/walk.gltf other/walk.gltf -o out/ --keep-extension",
                  "art/hero/walk.gltf and other/walk.gltf would both be written to out/walk.gltf.sinew");
    result r = run("convert art/hero/walk.gltf other/walk.glb -o kept/ --keep-extension");
    CHECK(r.status == 0 && exists("kept/walk.gltf.sinew") && exists("kept/walk.glb.sinew") &&
              has(r.err, "2 of 2 files converted"),
          "--keep-extension names each output by its input's whole name: %d: %s", r.status, r.err);
    cli_result_free(&r);

    /* -o: .sinew or a folder */
    check_refused("art/hero/walk.gltf -o out.obj",
                  "sinew: convert: -o: \"out.obj\" ends in .obj, a format convert does not write: it writes .sinew "
                  "archives (OUT.sinew, or DIR/ for a folder) and glTF (OUT.glb, OUT.gltf)\n");
    CHECK(!exists("out.obj"), "no out.obj written");
    check_refused("art/hero/walk.gltf -o noext", "sinew: convert: -o: \"noext\" has no extension");
    check_refused("art/hero/walk.gltf other/walk.glb -o two.sinew", "-o two.sinew: 2 inputs need a folder");
    /* a folder that exists is a folder, written with its slash or not */
    r = run("convert art/hero/walk.gltf -o existing");
    CHECK(r.status == 0 && exists("existing/walk.sinew"), "-o existing (a folder): existing/walk.sinew: %d: %s",
          r.status, r.err);
    cli_result_free(&r);
}

/* --compress takes a number after it, or leaves an input an input. */
static void check_compress_value(void)
{
    check_refused("art/hero/walk.gltf -o c.sinew --compress 2cm",
                  "sinew: convert: --compress: \"2cm\" is not a distance in centimeters above 0\n");
    check_refused("art/hero/walk.gltf -o c.sinew --compress abc",
                  "sinew: convert: --compress: \"abc\" is not a distance in centimeters above 0\n");
    check_refused("art/hero/walk.gltf -o c.sinew --compress=.5x", "--compress: \".5x\" is not a distance");
    check_refused("art/hero/walk.gltf -o c.sinew --compress -1", "--compress: \"-1\" is not a distance");
    result r = run("convert art/hero/walk.gltf --compress art/hero/anim.gltf -o zdir/");
    CHECK(r.status == 0 && exists("zdir/walk.sinew") && exists("zdir/anim.sinew"),
          "an input after --compress is an input: %d: %s", r.status, r.err);
    cli_result_free(&r);
    r = run("convert art/hero/walk.gltf --compress 0.5 -o half.sinew");
    CHECK(r.status == 0 && exists("half.sinew"), "--compress 0.5: %d: %s", r.status, r.err);
    cli_result_free(&r);
}

/* ---- messages ---- */

/* Whether `at` in `text` starts a line: after a newline, or after a
 * progress line wiped ("\r", spaces, "\r"). */
static bool starts_line(const char *text, const char *at)
{
    if (at == text || at[-1] == '\n') return true;
    if (at[-1] != '\r') return false;
    const char *c = at - 2;
    while (c >= text && *c == ' ') --c;
    return c >= text && c < at - 2 && *c == '\r';
}

/* Whether `needle` is in `text` at the start of a line. */
static bool has_line(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    return at && starts_line(text, at);
}

/* Warnings in a batch name their file and start their own line, on a
 * terminal too (between progress lines); --pack says why a compressed clip
 * stays as it is; -v tells each file's sizes, a batch's summary its
 * totals; the built-in character converts without FILE. */
static void check_messages(void)
{
    result r = run("convert -o builtin.sinew --compress");
    CHECK(r.status == 0 && has(r.err, "sinew: warning: the built-in character: clip \"idle\" stays as it is"),
          "the built-in character, compressed: %d: %s", r.status, r.err);
    cli_result_free(&r);
    char name[256];
    asset_name("builtin.sinew", name, sizeof name);
    CHECK(strcmp(name, "sinew_demo") == 0, "convert without FILE: the built-in character (\"%s\")", name);

    /* a library warning that names no file gets the file's name */
    write_text("dup.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], "
                           "\"nodes\": [{\"name\": \"bone\", \"children\": [1]}, {\"name\": \"bone\"}]}\n");
    r = run("convert art/hero/walk.gltf dup.gltf builtin.sinew -o batch/ --pack -j 2");
    CHECK(r.status == 0 && has_line(r.err, "sinew: warning: dup.gltf: skeleton: joints 0 and 1 share the name") &&
              has(r.err, "sinew: warning: builtin.sinew: clip \"walk\" stays compressed: a compressed clip holds no "
                         "tracks to pack\n"),
          "warnings in a batch name their file; --pack on a compressed clip says so: %d: %s", r.status, r.err);
    CHECK(has(r.err, "sinew: convert: 3 of 3 files converted: ") && has(r.err, "%)\n"),
          "the batch's summary has its sizes: %s", r.err);
    CHECK(!has(r.err, "batch/walk.sinew"), "no line per file without -v: %s", r.err);
    cli_result_free(&r);

    /* on a terminal: the warning after the first file's progress line */
    char *text = cli_run_on_terminal(sinew_bin, work, "convert art/hero/walk.gltf builtin.sinew -o tty/ --pack");
    if (!text) {
        printf("skip: no pseudo-terminal for convert's progress line\n");
    } else {
        const char *warning = strstr(text, "sinew: warning: builtin.sinew: clip \"walk\" stays compressed");
        CHECK(has(text, "\rsinew: convert: 1 of 2 files") && warning && starts_line(text, warning),
              "on a terminal the warning starts its own line, the progress line wiped first: %s", text);
        free(text);
    }

    /* -v: one line a file, with its sizes; nothing without it */
    r = run("convert art/hero/walk.gltf -o quiet.sinew");
    CHECK(r.status == 0 && r.err[0] == '\0' && r.out[0] == '\0', "convert is quiet on success: %s", r.err);
    cli_result_free(&r);
    r = run("convert art/hero/walk.gltf -o loud.sinew -v");
    size_t in = 0, out = 0;
    unsigned char *x = bytes("art/hero/walk.gltf", &in), *y = bytes("loud.sinew", &out);
    free(x), free(y);
    char line[256];
    snprintf(line, sizeof line, "sinew: convert: art/hero/walk.gltf -> loud.sinew: %zu bytes -> %zu bytes (%.1f%%)\n",
             in, out, 100.0 * (double)out / (double)in);
    CHECK(r.status == 0 && strcmp(r.err, line) == 0, "convert -v: \"%s\", not \"%s\"", line, r.err);
    cli_result_free(&r);
    r = run("-v convert art/hero/walk.gltf -o loud2.sinew");
    CHECK(r.status == 0 && strcmp(r.err, line) != 0 && has(r.err, "art/hero/walk.gltf -> loud2.sinew: "),
          "sinew -v convert: the same as convert -v: %s", r.err);
    cli_result_free(&r);
}

/* A glTF file `name` of the two joints whose clip "wave" moves the bone
 * between keys at 0 and `last` s, its keys in `bin` beside it: LINEAR, or
 * a CUBICSPLINE with tangents `tangent` when that is above 0. */
static void write_far_gltf(const char *name, const char *bin, float last, float tangent)
{
    bool spline = tangent > 0.0f;
    int values = spline ? 6 : 2, size = 8 + 12 * values;
    char text[2048];
    snprintf(text, sizeof text,
             "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],\n"
             "\"nodes\": [{\"name\": \"bone\", \"children\": [1]}, {\"name\": \"arm\"}],\n"
             "\"buffers\": [{\"uri\": \"%s\", \"byteLength\": %d}],\n"
             "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 8}, {\"buffer\": 0, \"byteOffset\": 8, "
             "\"byteLength\": %d}],\n"
             "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", "
             "\"min\": [0], \"max\": [%.9g]}, {\"bufferView\": 1, \"componentType\": 5126, \"count\": %d, "
             "\"type\": \"VEC3\"}],\n"
             "\"animations\": [{\"name\": \"wave\", \"samplers\": [{\"input\": 0, \"output\": 1%s}], "
             "\"channels\": [{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}]}]}\n",
             bin, size, size - 8, (double)last, values, spline ? ", \"interpolation\": \"CUBICSPLINE\"" : "");
    write_text(name, text);
    float keys[20] = {0.0f, last};
    if (spline) {
        /* each key: in-tangent, value, out-tangent */
        const float v[18] = {tangent, 0, 0, 0, 0, 0, tangent, 0, 0, tangent, 0, 0, 0, 1, 0, tangent, 0, 0};
        memcpy(keys + 2, v, sizeof v);
    } else {
        keys[6] = 1.0f; /* (0,0,0) to (0,1,0) */
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, bin);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(keys, 4, (size_t)size / 4, f) == (size_t)size / 4, "write %s", path);
    if (f) fclose(f);
}

/* --compress of clips whose keys lie 1e20 or 3e38 s apart: sampled and
 * measured by their keys, so converted as fast as without --compress; a
 * spline whose tangents over such a time pass a float's range refused
 * with the library's sentence. */
static void check_far_keys(void)
{
    write_far_gltf("far20.gltf", "far20.bin", 1e20f, 0.0f);
    write_far_gltf("far38.gltf", "far38.bin", 3e38f, 0.0f);
    write_far_gltf("smooth.gltf", "smooth.bin", 1e20f, 1e-3f);
    write_far_gltf("wild.gltf", "wild.bin", 1e20f, 1e30f);
    result r = run("convert far20.gltf far38.gltf smooth.gltf -o far/ --compress");
    CHECK(r.status == 0 && exists("far/far20.sinew") && exists("far/far38.sinew") && exists("far/smooth.sinew"),
          "keys 1e20 and 3e38 s apart compress: %d: %s", r.status, r.err);
    cli_result_free(&r);
    r = run("convert wild.gltf -o wild.sinew --compress");
    CHECK(r.status != 0 && has(r.err, "sinew_clip_compress: clip \"wave\": joint 0's pose at ") &&
              has(r.err, "is not finite"),
          "a spline past a float's range refused with a sentence: %d: %s", r.status, r.err);
    cli_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_convert SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    /* a fresh folder: the checks look for files not written */
    char clean[1200];
    snprintf(clean, sizeof clean, "rm -rf '%s'", work);
    CHECK(system(clean) == 0, "%s", clean);
    mkdir(work, 0777);
    write_files();
    check_deterministic();
    check_outputs();
    check_compress_value();
    check_messages();
    check_far_keys();
    return check_finish("test_cli_convert");
}
