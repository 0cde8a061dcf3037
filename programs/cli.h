/* Shared by the commands of the sinew tool: exit codes, the logger, loading. */
#ifndef SINEW_CLI_H
#define SINEW_CLI_H

#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"

#include <stdio.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Loads FILE (.gltf/.glb) or, for NULL, the built-in character, with `load`
 * (NULL: the defaults; its `base` is replaced by the CLI's, whose logger
 * prints warnings to stderr); prints the reason and returns NULL on
 * failure. */
sinew_asset *cli_load_asset(const char *path, const sinew_load_options *load);

/* The clips a command plays: the asset's own, or with `anim_paths` those of
 * other files (walk.fbx, run.fbx, ...) retargeted onto the asset's skeleton
 * by joint name (mismatches told on stderr), in the order given. Free with
 * cli_clips_free(). */
typedef struct cli_clips {
    int count;
    const sinew_clip **clips;
    sinew_clip **owned; /* the retargeted ones */
} cli_clips;
int cli_clips_load(const sinew_asset *asset, const char *const *anim_paths, int anim_count, cli_clips *out);
void cli_clips_free(cli_clips *clips);

/* The clip `spec` names among `clips`: an index, a name, or "none" (-1);
 * NULL means the first (or none when there are none). Prints the reason,
 * prefixed with the command, and returns EXIT_FAILED when there is no such
 * clip. */
int cli_find_clip(const char *command, const cli_clips *clips, const char *spec, int *index);

/* The value of option `name` at argv[*i] (advancing *i), or NULL when
 * argv[*i] is another argument; *missing is set when the value is (none
 * follows, or the next argument is an option, "--..."). */
const char *cli_option(int argc, char **argv, int *i, const char *name, bool *missing);

/* Prints "sinew: COMMAND: MESSAGE[: ARG]" and returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *message, const char *arg);

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

/* Most --anim files one command takes. */
enum { CLI_MAX_ANIMS = 16 };

/* What a command plays: FILE (NULL: the built-in character), --anim FILE
 * (repeatable), --clip C, and how FILE is loaded: --scene N
 * (sinew_load_options.scene, N + 1), --weld (.weld_vertices),
 * --order-vertices (.order_vertices_for_skinning). */
typedef struct cli_source {
    const char *file, *clip;
    const char *anims[CLI_MAX_ANIMS];
    int anim_count;
    sinew_load_options load;
} cli_source;

/* Takes argv[*i] (advancing *i past a value) when it is FILE or one of the
 * source's options: returns 1 taken, 0 not, or EXIT_USAGE negated after
 * printing why (a bad --scene, a second FILE, a missing value, too many
 * --anim). */
int cli_source_arg(const char *command, int argc, char **argv, int *i, cli_source *source);

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

/* Parses "T1,T2,..." (finite numbers) into a malloc'ed array; false when
 * the text is not that (or out of memory). */
bool cli_parse_times(const char *text, float **times, int *count);

/* The morph weights a mesh shows at `time`: its defaults, overridden by the
 * clip's weights track on the mesh's joint when there is one (`weights`:
 * mesh->morph->target_count floats). */
sinew_result cli_morph_weights(const sinew_mesh *mesh, const sinew_clip *clip, float time, unsigned flags,
                               float *weights, sinew_error *err);

/* `sinew bake`: see programs/bake.c. */
int cli_bake(int argc, char **argv);

/* `sinew bench`: see programs/bench.c. */
int cli_bench(int argc, char **argv);

/* `sinew render` and `sinew view`: see programs/render.c and view.c. */
int cli_render(int argc, char **argv);
int cli_view(int argc, char **argv);

#endif
