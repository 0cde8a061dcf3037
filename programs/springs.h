/* SPDX-License-Identifier: MIT */
/* Spring bones as the sinew tools simulate them (`--springs [--spring-dt
 * S]`), one definition for bake, render, view and vat so that each skins
 * what the others do: a fixed step S (default 1/60 s) from the clip's start;
 * the state at time t is the state after n = floor(t / S + 1e-4) steps (time
 * k*S gives k steps despite decimal rounding), reset at the pose of time 0,
 * step k run on the pose of time k*S and the last on the pose of t itself;
 * with no step (time 0) the pose is the animated one. */
#ifndef SINEW_CLI_SPRINGS_H
#define SINEW_CLI_SPRINGS_H

#include "cli.h"

/* What `--springs [--spring-dt S]` asked for. */
typedef struct cli_springs_args {
    bool on;  /* --springs */
    float dt; /* --spring-dt S in (0, 1]; 0: not given */
} cli_springs_args;

/* Takes --springs or --spring-dt (with its value): true when taken, also
 * when its value was bad (a usage error). */
bool cli_springs_arg(cli_args *p, cli_springs_args *a);

/* After the arguments: --spring-dt without --springs is a usage error. */
void cli_springs_args_check(cli_args *p, const cli_springs_args *a);

typedef struct cli_springs cli_springs;

/* The animated pose at `time`: its local transforms and model matrices
 * (the skeleton's joint count of each). */
typedef sinew_result (*cli_springs_pose_fn)(void *user, float time, sinew_transform *local, sinew_mat4 *model,
                                            sinew_error *err);

/* The asset's springs at step `dt` (0: 1/60 s). Prints why, naming
 * `command` and `file` (NULL: the built-in character), and returns NULL
 * when the asset has none or they cannot be made. */
cli_springs *cli_springs_create(const char *command, const sinew_asset *asset, const char *file, float dt);
void cli_springs_free(cli_springs *s);
float cli_springs_dt(const cli_springs *s);

/* The pose at `time` with the springs as defined above, into `local` and
 * `model`. Times that only grow step on from the last call (a frame whose
 * time falls between two steps replays a second state from the start, since
 * a state cannot be copied); a time earlier than the last starts over. */
sinew_result cli_springs_pose(cli_springs *s, float time, cli_springs_pose_fn pose, void *user, sinew_transform *local,
                              sinew_mat4 *model, sinew_error *err);

/* For a real-time viewer: puts the springs at rest in the pose `model`, and
 * advances them one fixed step on the pose `local` / `model` (corrected in
 * place). */
sinew_result cli_springs_reset(cli_springs *s, const sinew_mat4 *model, sinew_error *err);
sinew_result cli_springs_step(cli_springs *s, sinew_transform *local, sinew_mat4 *model, sinew_error *err);

#endif
