/* Shared by the commands of the sinew tool: exit codes, the logger, loading. */
#ifndef SINEW_CLI_H
#define SINEW_CLI_H

#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Loads FILE (.gltf/.glb) or, for NULL, the built-in character; prints the
 * reason and returns NULL on failure. Warnings go to stderr. `scene` as
 * sinew_load_options.scene (0: the file's default). */
sinew_asset *cli_load_asset(const char *path, int scene);

/* The clips a command plays: the asset's own, or with `anim_path` those of
 * another file retargeted onto the asset's skeleton by joint name
 * (mismatches told on stderr). Free with cli_clips_free(). */
typedef struct cli_clips {
    int count;
    const sinew_clip **clips;
    sinew_clip **owned; /* the retargeted ones */
} cli_clips;
int cli_clips_load(const sinew_asset *asset, const char *anim_path, cli_clips *out);
void cli_clips_free(cli_clips *clips);

/* The clip `spec` names among `clips`: an index, a name, or "none" (-1);
 * NULL means the first (or none when there are none). Prints the reason,
 * prefixed with the command, and returns EXIT_FAILED when there is no such
 * clip. */
int cli_find_clip(const char *command, const cli_clips *clips, const char *spec, int *index);

/* The value of option `name` at argv[*i] (advancing *i), or NULL when
 * argv[*i] is another argument; *missing is set when the value is. */
const char *cli_option(int argc, char **argv, int *i, const char *name, bool *missing);

/* Parses "T1,T2,..." (finite numbers) into a malloc'ed array; false when
 * the text is not that (or out of memory). */
bool cli_parse_times(const char *text, float **times, int *count);

/* `sinew bake`: see programs/bake.c. */
int cli_bake(int argc, char **argv);

/* `sinew render` and `sinew view`: see programs/render.c and view.c. */
int cli_render(int argc, char **argv);
int cli_view(int argc, char **argv);

#endif
