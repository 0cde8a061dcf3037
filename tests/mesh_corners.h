/* SPDX-License-Identifier: MIT */
/* Two loads of one mesh compared triangle corner by corner: what a load
 * option that merges or reorders vertices (weld_vertices,
 * order_vertices_for_skinning) must keep. */
#ifndef MESH_CORNERS_H
#define MESH_CORNERS_H

#include "sinew/sinew_asset.h"

#include <stdbool.h>
#include <string.h>

/* Whether n floats of stream `s` at vertex va of a and vb of b are equal bit
 * for bit (both streams absent counts as equal). */
static bool corner_floats_equal(const float *sa, const float *sb, int n, uint32_t va, uint32_t vb)
{
    if (!sa || !sb) return !sa && !sb;
    return memcmp(sa + (size_t)n * va, sb + (size_t)n * vb, sizeof(float) * (size_t)n) == 0;
}

/* The number of corners (entries of the index lists, which must have the
 * same length) whose vertices differ: position, normal, tangent, texture
 * coordinates, colors (unless `colors` is false) and every morph target's
 * deltas bit for bit, and the influences as a set of (skeleton joint,
 * weight) with weight > 0. */
static int corners_differ(const sinew_mesh *a, const sinew_mesh *b, bool colors)
{
    int bad = 0;
    for (int i = 0; i < a->index_count && i < b->index_count; ++i) {
        uint32_t va = a->indices[i], vb = b->indices[i];
        bool same = corner_floats_equal(a->positions, b->positions, 3, va, vb) &&
                    corner_floats_equal(a->normals, b->normals, 3, va, vb) &&
                    corner_floats_equal(a->tangents, b->tangents, 4, va, vb) &&
                    (!colors || corner_floats_equal(a->colors, b->colors, 4, va, vb)) && a->texcoord_count == b->texcoord_count &&
                    !a->morph == !b->morph && !a->skin == !b->skin;
        for (int t = 0; same && t < a->texcoord_count; ++t)
            same = corner_floats_equal(a->texcoords[t], b->texcoords[t], 2, va, vb);
        if (same && a->morph) {
            const sinew_morph *ma = a->morph, *mb = b->morph;
            same = ma->target_count == mb->target_count;
            for (int t = 0; same && t < ma->target_count; ++t) {
                size_t ta = (size_t)t * (size_t)ma->vertex_count * 3, tb = (size_t)t * (size_t)mb->vertex_count * 3;
                same = corner_floats_equal(ma->positions ? ma->positions + ta : NULL,
                                           mb->positions ? mb->positions + tb : NULL, 3, va, vb) &&
                       corner_floats_equal(ma->normals ? ma->normals + ta : NULL,
                                           mb->normals ? mb->normals + tb : NULL, 3, va, vb) &&
                       corner_floats_equal(ma->tangents ? ma->tangents + ta : NULL,
                                           mb->tangents ? mb->tangents + tb : NULL, 3, va, vb);
            }
        }
        if (same && a->skin) {
            int ja[SINEW_MAX_INFLUENCES], jb[SINEW_MAX_INFLUENCES];
            float wa[SINEW_MAX_INFLUENCES], wb[SINEW_MAX_INFLUENCES];
            sinew_skin_vertex(a->skin, (int)va, ja, wa);
            sinew_skin_vertex(b->skin, (int)vb, jb, wb);
            for (int x = 0; x < a->skin->influence_count; ++x) {
                if (wa[x] <= 0.0f) continue;
                bool found = false;
                for (int y = 0; y < b->skin->influence_count; ++y)
                    found |= b->skin->joints[jb[y]] == a->skin->joints[ja[x]] && wb[y] == wa[x];
                same &= found;
            }
        }
        bad += !same;
    }
    return bad;
}

#endif
