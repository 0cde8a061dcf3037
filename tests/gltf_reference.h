/* SPDX-License-Identifier: MIT */
/* An independent glTF 2.0 evaluator for the conformance test, written from
 * the specification's text (sections 3.6 accessors, 3.5 nodes, 3.7 meshes
 * and morph targets, 3.8 skins, 3.11 animations and appendix C), in double
 * precision and sharing no code with src/import: it trusts its input (test
 * files are valid) and favours plainness over speed.
 *
 * Where the specification leaves a choice, the reference takes the one
 * sinew documents: weights of a vertex are divided by their sum, normals of
 * skinned and rigid primitives follow the inverse transpose of the blended
 * (or world) matrix and are normalized. */
#ifndef GLTF_REFERENCE_H
#define GLTF_REFERENCE_H

#include <stdbool.h>

typedef struct ref_doc ref_doc;

/* One primitive of one node of the default scene, posed. */
typedef struct ref_primitive {
    int node, mesh, primitive;
    bool skinned, has_normals;
    int vertex_count;
    double *positions; /* 3 per vertex, world space */
    double *normals;   /* 3 per vertex, unit, or NULL */
} ref_primitive;

typedef struct ref_frame {
    int node_count;
    double (*world)[16]; /* per node, column-major */
    int primitive_count;
    ref_primitive *primitives;
} ref_frame;

/* Reads a .gltf or .glb; NULL (with a message on stderr) when it can't. */
ref_doc *ref_open(const char *path);
void ref_close(ref_doc *doc);

/* Number of animations, and the duration of animation `a` (the last key
 * time over its channels that target a node). */
int ref_animation_count(const ref_doc *doc);
double ref_animation_duration(const ref_doc *doc, int a);

/* Poses the default scene at `time` of animation `a` (-1: no animation),
 * the time clamped to [0, duration] or, with `loop`, wrapped. */
ref_frame *ref_pose(const ref_doc *doc, int a, double time, bool loop);
void ref_frame_free(ref_frame *f);

#endif
