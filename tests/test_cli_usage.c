/* SPDX-License-Identifier: MIT */
/* The command line as a tools programmer meets it, through the built
 * binary: `sinew --help` is a short overview, the commands one line each;
 * `sinew help COMMAND` and `sinew COMMAND --help` print that command's
 * options one a line, each one the command takes; -v and --formats before
 * a command; a .gltf file that is not glTF is said to be so; every usage
 * error names the command and the bad argument and exits 2; --times refuses what is not a finite
 * number >= 0 (an empty entry, NaN, infinity, a negative time) and keeps the documented clamp
 * past the clip's end; --clip with no such clip lists those there are (the
 * first 20); render writes PNG under a .png name only; an --anim file
 * that matches no joint fails naming both files, and the warning about
 * unmatched joints names unnamed ones by index; progress shows on a
 * terminal only. The files it plays are glTF written here.
 * usage: test_cli_usage SINEW_BINARY WORK_DIR */
#define _XOPEN_SOURCE 600
#include "sinew/sinew.h"
#include "check.h"
#include "cli_run.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sinew_bin, *work;

typedef cli_result result;

/* Runs `sinew ARGS` (formatted; run by sh in WORK_DIR) with stdout and
 * stderr to files, and reads them back. */
static result run(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    result res = cli_run(sinew_bin, work, 1, "", format, ap);
    va_end(ap);
    return res;
}

static void result_free(result *r) { cli_result_free(r); }

static bool has(const char *text, const char *needle)
{
    return strstr(text, needle) != NULL;
}

/* A usage error: exit 2, `line` on stderr as a whole line, nothing on stdout. */
static void check_usage_error(const char *args, const char *line)
{
    result r = run("%s", args);
    char whole[1024];
    snprintf(whole, sizeof whole, "%s\n", line);
    bool at_start = strncmp(r.err, whole, strlen(whole)) == 0;
    CHECK(r.status == 2, "sinew %s: exit %d, not 2 (stderr: %s)", args, r.status, r.err);
    CHECK(at_start, "sinew %s: stderr starts with the line \"%s\", not: %s", args, line, r.err);
    CHECK(r.out[0] == '\0', "sinew %s: nothing on stdout, not: %.200s", args, r.out);
    result_free(&r);
}

/* Whether `sinew COMMAND` was built (render and view need GL). */
static bool built(const char *command)
{
    result r = run("%s --frobnicate", command);
    bool yes = !has(r.err, "built without");
    result_free(&r);
    return yes;
}

/* ---- files ---- */

/* A glTF file of `count` joints (names[i], NULL for none) and `clips`
 * animations named clip_00, clip_01, ...; each moves the joints flagged
 * in `animated` over 1 s. */
static void write_gltf(const char *name, const char *const *names, int count, int clips, const bool *animated)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "write %s", path);
    if (!f) return;
    fprintf(f, "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [");
    for (int j = 0; j < count; ++j) fprintf(f, "%s%d", j ? ", " : "", j);
    fprintf(f, "]}],\n\"nodes\": [");
    for (int j = 0; j < count; ++j) {
        if (names[j])
            fprintf(f, "%s{\"name\": \"%s\"}", j ? ", " : "", names[j]);
        else
            fprintf(f, "%s{}", j ? ", " : "");
    }
    fprintf(f, "],\n\"buffers\": [{\"uri\": \"keys.bin\", \"byteLength\": 32}],\n"
               "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 8}, {\"buffer\": 0, \"byteOffset\": 8, "
               "\"byteLength\": 24}],\n"
               "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", "
               "\"min\": [0], \"max\": [1]}, {\"bufferView\": 1, \"componentType\": 5126, \"count\": 2, "
               "\"type\": \"VEC3\"}],\n\"animations\": [");
    for (int c = 0; c < clips; ++c) {
        fprintf(f, "%s\n{\"name\": \"clip_%02d\", \"samplers\": [{\"input\": 0, \"output\": 1}], \"channels\": [",
                c ? "," : "", c);
        bool first = true;
        for (int j = 0; j < count; ++j) {
            if (!animated[j]) continue;
            fprintf(f, "%s{\"sampler\": 0, \"target\": {\"node\": %d, \"path\": \"translation\"}}",
                    first ? "" : ", ", j);
            first = false;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    fclose(f);
}

static void write_files(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/keys.bin", work);
    FILE *f = fopen(path, "wb");
    const float keys[8] = {0, 1, 0, 0, 0, 0, 1, 0}; /* times 0 and 1; (0,0,0) to (0,1,0) */
    CHECK(f && fwrite(keys, sizeof keys, 1, f) == 1, "write %s", path);
    if (f) fclose(f);
    /* the character: bone and arm */
    static const char *const character[] = {"bone", "arm"};
    write_gltf("character.gltf", character, 2, 1, (const bool[]){true, false});
    /* a file of 25 clips on a joint the character lacks */
    static const char *const other[] = {"other"};
    write_gltf("other.gltf", other, 1, 25, (const bool[]){true});
    /* a clip on bone and on a joint without a name */
    static const char *const partly[] = {"bone", NULL};
    write_gltf("partly.gltf", partly, 2, 1, (const bool[]){true, true});
}

/* ---- a terminal ---- */

/* Runs `sinew ARGS` from WORK_DIR with stderr on a pseudo-terminal. */
static char *run_on_terminal(const char *args)
{
    return cli_run_on_terminal(sinew_bin, work, args);
}

/* A progress line on a terminal: each one starts with \r, and the last is
 * wiped (\r, spaces, \r) so that nothing is left of it. */
static void check_progress(const char *args, const char *first, const char *last)
{
    char *text = run_on_terminal(args);
    if (!text) {
        printf("skip: no pseudo-terminal for sinew %s\n", args);
        return;
    }
    CHECK(has(text, first) && has(text, last), "sinew %s on a terminal shows \"%s\" to \"%s\": %.300s", args,
          first, last, text);
    size_t n = strlen(text);
    bool wiped = n >= 2 && text[n - 1] == '\r';
    for (size_t i = n >= 2 ? n - 2 : 0; wiped && text[i] != '\r'; --i) {
        wiped = text[i] == ' ' && i > 0;
    }
    CHECK(wiped, "sinew %s: the progress line is wiped at the end: ...%s", args, n > 80 ? text + n - 80 : text);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_usage SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    mkdir(work, 0777);
    write_files();
    static const char *const commands[] = {"demo", "info", "bake", "bench", "render", "view", "convert"};
    enum { COMMANDS = sizeof commands / sizeof commands[0] };
    bool render = built("render"), view = built("view");

    /* help: an overview of a screen or less, the commands one line each */
    result all = run("--help");
    int all_lines = 0;
    for (const char *c = all.out; *c; ++c) all_lines += *c == '\n';
    CHECK(all.status == 0 && has(all.out, "exit status:") && has(all.out, "usage: sinew "), "sinew --help");
    CHECK(all_lines <= 40, "sinew --help is an overview of at most 40 lines, not %d", all_lines);
    /* each command's own, three ways, on stdout: its options one a line */
    for (int c = 0; c < COMMANDS; ++c) {
        char line[64];
        snprintf(line, sizeof line, "\n  %-9s ", commands[c]);
        CHECK(has(all.out, line), "sinew --help lists %s on a line of its own", commands[c]);
        result a = run("help %s", commands[c]), b = run("%s --help", commands[c]), h = run("%s -h", commands[c]);
        char start[64];
        snprintf(start, sizeof start, "usage: sinew %s", commands[c]);
        CHECK(a.status == 0 && strncmp(a.out, start, strlen(start)) == 0, "sinew help %s starts \"%s\": %.80s",
              commands[c], start, a.out);
        CHECK(b.status == 0 && h.status == 0 && strcmp(a.out, b.out) == 0 && strcmp(a.out, h.out) == 0,
              "sinew %s --help and -h print what sinew help %s does", commands[c], commands[c]);
        CHECK(a.err[0] == '\0', "sinew help %s: nothing on stderr", commands[c]);
        CHECK(!has(all.out, "\n  --times") && !has(all.out, "--quiet"), "the overview lists no command's options");
        /* every option listed ("  --name ...") is one the command takes */
        int options = 0;
        bool runs = (strcmp(commands[c], "render") != 0 || render) && (strcmp(commands[c], "view") != 0 || view);
        for (const char *at = strstr(a.out, "\n  -"); at; at = strstr(at + 1, "\n  -")) {
            char option[64];
            const char *name = at + 3;
            if (name[0] == '-' && name[1] != '-' && name[2] == ',') name += 4; /* "-o, --out" */
            size_t len = strcspn(name, " [\n");
            snprintf(option, sizeof option, "%.*s", (int)(len < 60 ? len : 60), name);
            ++options;
            if (!runs || strcmp(option, "--help") == 0) continue;
            /* the option then an unknown one: parsing stops at whichever is
             * wrong, before anything runs */
            result o = run("%s %s --frobnicate", commands[c], option);
            char unknown[96];
            snprintf(unknown, sizeof unknown, "unknown option %s\n", option);
            CHECK(o.status == 2 && !has(o.err, unknown), "sinew %s takes %s, which its help lists: %d: %s",
                  commands[c], option, o.status, o.err);
            result_free(&o);
        }
        CHECK(strcmp(commands[c], "demo") == 0 || (options > 0 && has(a.out, "\noptions:\n")),
              "sinew help %s lists its options, one a line (%d)", commands[c], options);
        result_free(&a), result_free(&b), result_free(&h);
    }
    result_free(&all);
    result full = run("help"), again = run("--help");
    CHECK(full.status == 0 && strcmp(full.out, again.out) == 0, "sinew help is sinew --help");
    result_free(&full), result_free(&again);
    full = run("help --help");
    again = run("help help");
    CHECK(full.status == 0 && strncmp(full.out, "usage: sinew help [COMMAND]", 27) == 0 && full.err[0] == '\0' &&
              strcmp(full.out, again.out) == 0,
          "sinew help --help tells help's usage: %d: %s%s", full.status, full.out, full.err);
    result_free(&full), result_free(&again);
    check_usage_error("help nope", "sinew: help: unknown command \"nope\"");

    /* usage errors name the command and the argument */
    for (int c = 0; c < COMMANDS; ++c) {
        if ((strcmp(commands[c], "render") == 0 && !render) || (strcmp(commands[c], "view") == 0 && !view)) continue;
        char args[128], line[128];
        snprintf(args, sizeof args, "%s --frobnicate", commands[c]);
        snprintf(line, sizeof line, "sinew: %s: unknown option --frobnicate", commands[c]);
        check_usage_error(args, line);
    }
    check_usage_error("demo extra", "sinew: demo: unexpected argument \"extra\"");
    check_usage_error("info character.gltf other.gltf",
                      "sinew: info: unexpected argument \"other.gltf\" (FILE is character.gltf; one FILE only)");
    check_usage_error("info --anim other.gltf", "sinew: info: unknown option --anim");
    check_usage_error("info --quiet --json", "sinew: info: --quiet and --json exclude each other");
    check_usage_error("info --scene x", "sinew: info: --scene: \"x\" is not a scene index (0, 1, ...)");
    check_usage_error("bake", "sinew: bake: --times T1,T2,... is required");
    check_usage_error("bake --times", "sinew: bake: --times needs a value");
    check_usage_error("bake --times 0 --clip", "sinew: bake: --clip needs a value");
    check_usage_error("bake --times 0 --loop=yes", "sinew: bake: --loop takes no value (\"--loop=yes\")");
    check_usage_error("bake --times 0 --up x", "sinew: bake: --up: \"x\" is not an axis: y or z");
    check_usage_error("bake --times 0 --method lbx", "sinew: bake: --method: \"lbx\" is not a method: lbs or dqs");
    check_usage_error("bench --threads 0", "sinew: bench: --threads: \"0\" is not a thread count from 1 to 256");
    check_usage_error("bench --copies=x", "sinew: bench: --copies: \"x\" is not a count from 1 to 1000");

    /* options before the command: -v for any command, the loading ones for
     * commands that read files */
    check_usage_error("--formats obj demo", "sinew: demo: --formats: demo reads no files");
    result quiet_demo = run("-v demo");
    CHECK(quiet_demo.status == 0, "sinew -v demo: -v is taken by every command: %d: %s", quiet_demo.status,
          quiet_demo.err);
    result_free(&quiet_demo);
    check_usage_error("--formats obj", "sinew: no command after the options; see sinew --help");
    result early = run("-v --formats obj info --quiet");
    CHECK(early.status == 0 && has(early.out, "built-in character: 26 joints"), "sinew -v --formats obj info: %s",
          early.err);
    result_free(&early);

    /* a file named glTF that is not: said so, not handed to Assimp */
    char junk[1024];
    snprintf(junk, sizeof junk, "%s/junk.gltf", work);
    FILE *jf = fopen(junk, "w");
    CHECK(jf && fputs("not json", jf) >= 0, "write %s", junk);
    if (jf) fclose(jf);
    result bad = run("info junk.gltf");
    CHECK(bad.status == 1 && has(bad.err, "sinew: info: sinew_load_file: junk.gltf: not glTF: a .gltf file holds JSON") &&
              has(bad.err, "starts with bytes 6e 6f 74 20") && !has(bad.err, "Assimp") && !has(bad.err, "--formats"),
          "info junk.gltf: not glTF, said so: %d: %s", bad.status, bad.err);
    result_free(&bad);
    bad = run("bake --anim junk.gltf --times 0");
    CHECK(bad.status == 1 && has(bad.err, "sinew: bake: sinew_load_file: junk.gltf: not glTF"), "--anim junk.gltf: %s", bad.err);
    result_free(&bad);

    /* --times: finite numbers, no empty entry */
    check_usage_error("bake --times 0,nan", "sinew: bake: --times: \"nan\" is not a finite number");
    check_usage_error("bake --times inf", "sinew: bake: --times: \"inf\" is not a finite number");
    check_usage_error("bake --times=-1e999", "sinew: bake: --times: \"-1e999\" is not a finite number");
    check_usage_error("bake --times 0,,1", "sinew: bake: --times: \"0,,1\": entry 2 is empty");
    check_usage_error("bake --times 0.5,", "sinew: bake: --times: \"0.5,\": entry 2 is empty");
    check_usage_error("bake --times 1,2s", "sinew: bake: --times: \"2s\" is not a number");
    check_usage_error("bake --times 0,-1", "sinew: bake: --times: \"-1\" is negative");
    check_usage_error("bake --loop --times=-0.5", "sinew: bake: --times: \"-0.5\" is negative");
    if (render) {
        check_usage_error("render --times nan", "sinew: render: --times: \"nan\" is not a finite number");
        check_usage_error("render --times 0,,1", "sinew: render: --times: \"0,,1\": entry 2 is empty");
        check_usage_error("render --times -2", "sinew: render: --times: \"-2\" is negative");
    }
    /* past the clip's end: clamped, as docs/BAKE.md says (clip_time), no note */
    result late = run("bake --clip walk --times 0.5,7");
    cJSON *json = cJSON_Parse(late.out);
    const cJSON *frames = cJSON_GetObjectItem(json, "frames");
    CHECK(late.status == 0 && cJSON_GetArraySize(frames) == 2, "bake --times 0.5,7 runs (%d): %s", late.status,
          late.err);
    double clip_time = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(frames, 1), "clip_time"));
    CHECK(clip_time == 1.0, "time 7 of the 1 s walk samples its end: clip_time %g", clip_time);
    CHECK(late.err[0] == '\0', "no note on stderr for a time past the end: %s", late.err);
    cJSON_Delete(json);
    result_free(&late);

    /* --clip: no such clip lists those there are, the first 20 */
    result r = run("bake --clip nope --times 0");
    CHECK(r.status == 1 && has(r.err, "sinew: bake: no clip \"nope\" in the built-in character; its clips: "
                                      "\"walk\", \"idle\"\n"),
          "bake --clip nope: exit %d: %s", r.status, r.err);
    result_free(&r);
    r = run("bench --clip 5");
    CHECK(r.status == 1 && has(r.err, "sinew: bench: no clip 5 in the built-in character (2 clips); its clips: "
                                      "\"walk\", \"idle\"\n"),
          "bench --clip 5: exit %d: %s", r.status, r.err);
    result_free(&r);
    r = run("bake other.gltf --clip walk --times 0");
    CHECK(r.status == 1 && has(r.err, "sinew: bake: no clip \"walk\" in other.gltf; its clips: \"clip_00\", ") &&
              has(r.err, "\"clip_19\", ...\n") && !has(r.err, "clip_20"),
          "25 clips: the first 20 listed, then ...: %s", r.err);
    result_free(&r);
    r = run("bake --times 0 --blend walk,nope");
    CHECK(r.status == 1 && has(r.err, "no clip \"nope\" in the built-in character; its clips: \"walk\", \"idle\""),
          "--blend walk,nope: exit %d: %s", r.status, r.err);
    result_free(&r);
    r = run("bake character.gltf --anim partly.gltf --anim partly.gltf --clip 3 --times 0");
    CHECK(r.status == 1 && has(r.err, "no clip 3 in partly.gltf, partly.gltf (2 clips); their clips: \"clip_00\", "
                                      "\"clip_00\"\n"),
          "clips of two --anim files: %s", r.err);
    result_free(&r);

    /* --anim: a file whose clips match no joint fails naming both */
    r = run("bake character.gltf --anim other.gltf --times 0");
    CHECK(r.status == 1 && has(r.err, "sinew: bake: the clips of other.gltf animate no joint of character.gltf"),
          "--anim with no joint in common: exit %d: %s", r.status, r.err);
    result_free(&r);
    r = run("bake --anim other.gltf --times 0");
    CHECK(r.status == 1 && has(r.err, "the clips of other.gltf animate no joint of the built-in character"),
          "--anim on the built-in character: exit %d: %s", r.status, r.err);
    result_free(&r);
    /* ... one that matches some: warnings by name, unnamed joints by index */
    r = run("bake character.gltf --anim partly.gltf --times 0.5");
    CHECK(r.status == 0, "--anim partly.gltf runs: %s", r.err);
    CHECK(has(r.err, "1 animated joint(s) are not in character.gltf, their tracks are left out: joint 1\n"),
          "the unnamed joint by index: %s", r.err);
    CHECK(has(r.err, "1 joint(s) of character.gltf are not in its skeleton and keep their rest pose: \"arm\"\n"),
          "the character's joint by name: %s", r.err);
    CHECK(!has(r.err, "\"\""), "no empty name in the warnings: %s", r.err);
    json = cJSON_Parse(r.out);
    const cJSON *node = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(json, "frames"), 0), "nodes"), 0);
    double y = cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(node, "world"), 13));
    CHECK(fabs(y - 0.5) < 1e-6, "bone moved by the retargeted clip: y %g", y);
    cJSON_Delete(json);
    result_free(&r);

    /* render: PNG bytes under a .png name, or one PNG per frame in DIR/ */
    if (render) {
        check_usage_error("render --out sheet.jpg",
                          "sinew: render: --out: \"sheet.jpg\" ends in .jpg, a format render does not write: it "
                          "writes PNG (SHEET.png, or DIR/ for one PNG per frame)");
        check_usage_error("render --out=sheet",
                          "sinew: render: --out: \"sheet\" has no extension: render writes PNG (SHEET.png, or DIR/ "
                          "for one PNG per frame)");
        char path[1024];
        snprintf(path, sizeof path, "%s/sheet.jpg", work);
        CHECK(access(path, F_OK) != 0, "no sheet.jpg written");
    }
    if (view)
        check_usage_error("view --screenshot shot.webp",
                          "sinew: view: --screenshot: \"shot.webp\" does not end in .png: view writes PNG");

    /* progress: on a terminal only */
    if (render) {
        r = run("render --frames 3 --size 32x32 --out progress.png");
        if (r.status == 0) {
            CHECK(!has(r.err, "\r") && !has(r.err, "frame 1 of 3"), "no progress when stderr is a file: %s", r.err);
            check_progress("render --frames 3 --size 32x32 --out progress.png", "\rsinew: render: frame 1 of 3",
                           "\rsinew: render: frame 3 of 3");
        } else {
            printf("skip: render does not run here: %s", r.err);
        }
        result_free(&r);
    }
    check_progress("bench", "\rsinew: bench: row 1 of ", "\rsinew: bench: row ");
    return check_finish("test_cli_usage");
}
