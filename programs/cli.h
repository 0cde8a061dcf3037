/* SPDX-License-Identifier: MIT */
/* Shared by the commands of the sinew tool: exit codes, the logger, loading. */
#ifndef SINEW_CLI_H
#define SINEW_CLI_H

#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Loads FILE (any format sinew reads) or, for NULL, the built-in
 * character, with `load` (NULL: the defaults; its `base` is replaced by the
 * CLI's, whose logger prints warnings to stderr); prints the reason
 * (prefixed with the command) and returns NULL on failure. */
sinew_asset *cli_load_asset(const char *command, const char *path, const sinew_load_options *load);

/* Each joint's depth (roots 0), in one pass over the parents-first
 * skeleton; NULL out of memory. Free with free(). */
int *cli_joint_depths(const sinew_skeleton *sk);

/* Most --anim files one command takes. */
enum { CLI_MAX_ANIMS = 16 };

/* The clips a command plays: the asset's own (`file`: its path, NULL for
 * the built-in character), or with `anim_paths` those of other files
 * (walk.fbx, run.fbx, ...) retargeted onto the asset's skeleton by joint
 * name, in the order given. Joints without a name match none. Mismatches
 * are told on stderr, by name (unnamed joints as "joint N"); a file whose
 * clips match no joint at all fails, naming both files. Free with
 * cli_clips_free(). */
typedef struct cli_clips {
    int count;
    const sinew_clip **clips;
    sinew_clip **owned; /* the retargeted ones */
    sinew_asset *held[CLI_MAX_ANIMS]; /* CLIPFILEs whose clips play as they are */
    char from[256];     /* where they come from, for messages: "walk.fbx, run.fbx" */
} cli_clips;
int cli_clips_load(const char *command, const char *file, const sinew_asset *asset, const char *const *anim_paths,
                   int anim_count, cli_clips *out);
void cli_clips_free(cli_clips *clips);

/* The clip `spec` names among `clips`: an index, a name, or "none" (-1);
 * NULL means the first (or none when there are none). When there is no
 * such clip, prints why (prefixed with the command), naming where the clips
 * come from and listing the first 20 of them, and returns EXIT_FAILED. */
int cli_find_clip(const char *command, const cli_clips *clips, const char *spec, int *index);

/* One command's arguments, taken in order the same way by every command:
 * an option's value is the next argument (unless that is another option,
 * "--...") or follows '=' ("--times=0,1"); every usage error names the
 * command and the argument, and sets `status` to EXIT_USAGE, after which
 * cli_next() returns NULL. A command's loop:
 *
 *     cli_args p = cli_args_begin("bake", argc, argv);
 *     for (const char *v; cli_next(&p);) {
 *         if (cli_source_arg(&p, &source)) continue;
 *         if (cli_flag(&p, "--loop")) loop = true;
 *         else if ((v = cli_value(&p, "--up"))) ...;
 *         else cli_unknown(&p);
 *     }
 *     if (p.status != EXIT_OK) return p.status;
 */
typedef struct cli_args {
    const char *command;
    int argc;
    char **argv;
    int i;      /* the argument being looked at */
    int status; /* EXIT_OK, or EXIT_USAGE once a usage error was printed */
} cli_args;

cli_args cli_args_begin(const char *command, int argc, char **argv);

/* The next argument, or NULL at the end or after a usage error. */
const char *cli_next(cli_args *p);

/* Whether the argument is option `name` without a value ("--loop"); a
 * value given to it ("--loop=1") is a usage error. */
bool cli_flag(cli_args *p, const char *name);

/* The value of option `name` when the argument is that option (advancing
 * past it), else NULL; NULL too, after a usage error, when the value is
 * missing. */
const char *cli_value(cli_args *p, const char *name);

/* An argument no option took: "unknown option --x" or "unexpected argument
 * "x"", a usage error; nothing when one was already printed. */
void cli_unknown(cli_args *p);

/* A usage error: prints "sinew: COMMAND: " and the message; returns
 * EXIT_USAGE. */
int cli_usage(cli_args *p, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A bad option value: prints "sinew: COMMAND: OPTION: "VALUE" WHY" (WHY
 * formatted); returns EXIT_USAGE. */
int cli_bad_value(cli_args *p, const char *option, const char *value, const char *why, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Prints one command's help (`sinew help COMMAND`), or everything's for
 * NULL, from the one text `sinew --help` prints; false for an unknown
 * command (nothing printed). */
bool cli_print_help(FILE *f, const char *command);

/* An integer in [lo, hi] (the whole text); false otherwise. */
bool cli_parse_int(const char *text, long lo, long hi, int *out);

/* Writes `s` as a JSON string (quoted, escaped). */
void cli_put_json_string(FILE *f, const char *s);

/* A finite number (the whole text); false otherwise. */
bool cli_parse_float(const char *text, float *out);

/* "lbs" or "dqs"; false otherwise. */
bool cli_parse_method(const char *text, sinew_skinning *method);

/* "WxH" with each in [lo, hi]; false otherwise. */
bool cli_parse_size(const char *text, int lo, int hi, int *width, int *height);

/* What a command plays: FILE (NULL: the built-in character), --anim FILE
 * (repeatable), --clip C, and how FILE is loaded: --scene N
 * (sinew_load_options.scene, N + 1), --weld (.weld_vertices),
 * --order-vertices (.order_vertices_for_skinning), --formats LIST,
 * --accept-partial and --max-memory MIB (every file's). With
 * `file_only` set (by the command, before parsing), --anim and --clip are
 * not taken. */
typedef struct cli_source {
    const char *file, *clip;
    const char *anims[CLI_MAX_ANIMS];
    int anim_count;
    sinew_load_options load;
    bool file_only;
} cli_source;

/* Takes the argument when it is FILE or one of the source's options (with
 * its value): true when taken, also when its value was bad (a usage error
 * then, as for a second FILE or too many --anim). */
bool cli_source_arg(cli_args *p, cli_source *source);

/* The source loaded: the asset, its clips (retargeted from --anim), the
 * clip --clip picks (NULL for none). */
typedef struct cli_loaded {
    sinew_asset *asset;
    cli_clips clips;
    int clip_index;          /* -1: none */
    const sinew_clip *clip;
} cli_loaded;

/* Loads a source, printing why on failure (then returns EXIT_FAILED with
 * nothing held). Release with cli_unload(). */
int cli_load(const char *command, const cli_source *source, cli_loaded *out);
void cli_unload(cli_loaded *loaded);

/* Parses "X1,X2,..." (finite numbers, no entry empty) into a malloc'ed
 * array; false with the reason in `why` ("\"nan\" is not a finite number",
 * naming the entry), or out of memory. */
bool cli_parse_numbers(const char *text, float **out, int *count, char *why, int why_size);

/* The value of --times (`option`): cli_parse_numbers(), none negative;
 * false after a usage error naming the option and the entry. */
bool cli_times_arg(cli_args *p, const char *option, const char *text, float **times, int *count);

/* A progress line on stderr for long work ("sinew: render: frame 3 of 8"),
 * drawn only when stderr is a terminal, each overwriting the last (\r);
 * cli_progress_clear() wipes it (before other output, and at the end). */
typedef struct cli_progress {
    bool on;   /* stderr is a terminal */
    int shown; /* characters on the line now */
} cli_progress;
cli_progress cli_progress_begin(void);
void cli_progress_show(cli_progress *p, const char *command, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void cli_progress_clear(cli_progress *p);

/* The morph weights a mesh shows at `time`: its defaults, overridden by the
 * clip's weights track on the mesh's joint when there is one (`weights`:
 * mesh->morph->target_count floats). */
sinew_result cli_morph_weights(const sinew_mesh *mesh, const sinew_clip *clip, float time, unsigned flags,
                               float *weights, sinew_error *err);

/* The CLI's load options into `load` for the file at `path`: its logger
 * (cli_log() naming `path`), and the --formats, --accept-partial and
 * --max-memory given. */
void cli_load_options(sinew_load_options *load, const char *path);

/* -v, --verbose: the library's info-level messages are printed too (which
 * process ran the Assimp import), and convert tells each file's sizes. */
extern bool cli_verbose;

/* The command running ("info"), for messages. */
extern const char *cli_command_name;

/* One message of the library's logger on stderr: a warning as "sinew:
 * warning: FILE: ...", an info-level one only under -v, as "sinew:
 * COMMAND: FILE: ..." (FILE left out where the message names it already,
 * or NULL). */
void cli_log(const char *file, sinew_log_level level, const char *message);

/* `sinew convert`: see programs/convert.c. */
int cli_convert(int argc, char **argv);

/* `sinew bake`: see programs/bake.c. */
int cli_bake(int argc, char **argv);

/* `sinew vat`: see programs/vat.c. */
int cli_vat(int argc, char **argv);

/* `sinew bench`: see programs/bench.c. */
int cli_bench(int argc, char **argv);

/* `sinew render` and `sinew view`: see programs/render.c and view.c. */
int cli_render(int argc, char **argv);
int cli_view(int argc, char **argv);

#endif
