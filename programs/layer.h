/* SPDX-License-Identifier: MIT */
/* The animation layer as the sinew tool shows it: blends of clips with
 * synced cycles, a crossfade, an additive clip on top, root motion carried
 * by the character (or taken out), and two-bone IK targets; posed at any
 * time by replaying the playback state from 0 in small steps. */
#ifndef SINEW_CLI_LAYER_H
#define SINEW_CLI_LAYER_H

#include "cli.h"

enum { CLI_LAYER_MAX_IK = 4 };

/* What the options ask for (texts are parsed when the clips are known). */
typedef struct cli_layer_args {
    const char *blend;     /* --blend CLIP[=W],CLIP[=W],... */
    const char *crossfade; /* --crossfade CLIP[,START[,SECONDS]] */
    const char *additive;  /* --additive CLIP[=W] */
    const char *ik[CLI_LAYER_MAX_IK]; /* --ik JOINT | JOINT=X,Y,Z | JOINT+=DX,DY,DZ */
    int ik_count;
    bool sync;             /* --sync: blended cycles keep one phase */
    bool in_place;         /* --in-place: root motion taken out, not carried */
} cli_layer_args;

/* Takes the argument when it is one of the layer's options (with its
 * value): true when taken, also when its value was bad (a usage error). */
bool cli_layer_arg(cli_args *p, cli_layer_args *args);

/* Whether any layer option was given. */
bool cli_layer_wanted(const cli_layer_args *args);

typedef struct cli_layer cli_layer;

/* Resolves the options against the loaded source: clip names (or
 * indices) among `clips`, joint names in the asset's skeleton. `main` is
 * the clip --clip picked (the crossfade's start, the additive's base).
 * `z_up` says which way is up for root motion. Prints why and returns NULL
 * on failure. */
cli_layer *cli_layer_create(const char *command, const cli_layer_args *args, const sinew_asset *asset,
                            const cli_clips *clips, const sinew_clip *main, bool z_up);
void cli_layer_free(cli_layer *layer);

/* The length of time worth showing: the synced cycle of a blend, the
 * crossfade with as much again before it, else the main clip's duration. */
float cli_layer_length(const cli_layer *layer);

/* The local pose at `time` seconds from the start (skeleton joint count
 * transforms, held by the layer until the next call), or NULL with the
 * reason in `why`. */
const sinew_transform *cli_layer_pose(cli_layer *layer, float time, char *why, int why_size);

/* A short account of the layer ("walk 0.5 + run 0.5, synced; IK LeftFoot")
 * and of its state at the last posed time ("idle 0.42"). */
void cli_layer_describe(const cli_layer *layer, char *text, int size);
void cli_layer_state(const cli_layer *layer, char *text, int size);

/* Where the IK targets were at the last posed time, in model space
 * ("hand_l (0.31, 1.52, 0.02)"); empty without IK. */
void cli_layer_ik_state(const cli_layer *layer, char *text, int size);

#endif
