/* SPDX-License-Identifier: MIT */
/* Generated glTF files that hold what the sample assets lack: morph targets
 * (sparse and dense, default weights on the node and the mesh, animated
 * LINEAR and CUBICSPLINE weights), a node matrix with shear that is also a
 * joint, a non-joint node inside the joint hierarchy, 8 influences in two
 * JOINTS/WEIGHTS sets (unorm8 and float), one skin on two nodes sharing a
 * mesh, a skinned node with its own transform (ignored), quantized and
 * interleaved attributes (KHR_mesh_quantization), TEXCOORD_0/1 and COLOR_0,
 * ubyte/ushort/uint indices, a triangle strip and a fan, a channel whose
 * first key is after 0, a non-default second scene, and the three
 * containers: data: URI, external file with a percent-encoded name, GLB. */
#ifndef GLTF_FEATURES_H
#define GLTF_FEATURES_H

#include <stddef.h>
#include <stdint.h>

/* Base64 text of n bytes (RFC 4648, padded), malloc'ed. */
char *gltf_base64(const uint8_t *data, size_t n);

/* Writes the files into `dir` and returns their paths (NULL-terminated,
 * free with gltf_features_free), or NULL when writing fails. */
char **gltf_features_write(const char *dir);
void gltf_features_free(char **paths);

#endif
