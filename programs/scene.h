/* SPDX-License-Identifier: MIT */
/* The picture of a character the render and view commands draw with
 * OpenGL: its meshes skinned by the library's shader, a floor grid, the
 * skeleton, a weight heat map. Needs a current OpenGL 3.3 core context
 * (4.3 for a skin of more than 256 joints). */
#ifndef SINEW_CLI_SCENE_H
#define SINEW_CLI_SCENE_H

#include "sinew/sinew_asset.h"

typedef enum scene_pose_kind {
    SCENE_POSE_ANIMATED = 0, /* the clip at a time */
    SCENE_POSE_BIND = 1,     /* as the skins were bound: every mesh as authored */
    SCENE_POSE_REST = 2      /* the skeleton's rest pose */
} scene_pose_kind;

typedef struct scene scene;

/* Uploads the asset's meshes; `z_up` turns a Z-up asset upright. Returns
 * NULL with the reason in `why`. */
scene *scene_create(const sinew_asset *asset, bool z_up, char *why, int why_size);
void scene_free(scene *s);

/* Poses every mesh (morph targets on the CPU, palettes for both methods on
 * the GPU) and the skeleton: for SCENE_POSE_ANIMATED, `local` (a local
 * pose made by the caller, e.g. the animation layer) when not NULL, else
 * `clip` at `time` (`loop` wraps it; a NULL clip gives the rest pose); the
 * clip's weights tracks drive the morph targets either way. Returns false
 * with the reason in `why`. */
bool scene_pose(scene *s, scene_pose_kind kind, const sinew_clip *clip, float time, bool loop,
                const sinew_transform *local, char *why, int why_size);

/* Grows lo/hi (upright frame) by the posed meshes, or when there are none
 * by the joints of the rig (those the clips animate, not a file's cameras
 * and lights). */
void scene_bounds(const scene *s, float lo[3], float hi[3]);

/* The camera: looking at the centre of lo/hi from `azimuth` degrees around
 * the up axis (0: the character's front, +Z) and `elevation` degrees above,
 * far enough back that the box fits; `zoom` > 1 comes closer. */
typedef struct scene_camera {
    float lo[3], hi[3];
    float azimuth, elevation, zoom;
} scene_camera;

typedef struct scene_draw_options {
    sinew_skinning method;
    bool skeleton;      /* the bones on top */
    int weights_joint;  /* skeleton joint whose weights color the meshes, -1 for none */
    bool floor;
} scene_draw_options;

/* Draws into the bound framebuffer's width x height viewport. */
void scene_draw(scene *s, const scene_camera *camera, int width, int height, const scene_draw_options *o);

/* The drawn joint nearest to window point (x, y) (pixels from the top
 * left) within 20 pixels, or -1. */
int scene_pick_joint(const scene *s, const scene_camera *camera, int width, int height, double x, double y);

/* The skeleton joint of the asset named `spec`, or with that index; -1. */
int scene_find_joint(const sinew_asset *asset, const char *spec);

/* Whether the asset looks Z-up: not glTF (Y-up by definition), and taller
 * along Z than along Y in its rest pose. */
bool scene_guess_z_up(const sinew_asset *asset, const char *path);

#endif
