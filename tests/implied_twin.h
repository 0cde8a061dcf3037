/* SPDX-License-Identifier: MIT */
/* A skin's twin with the last weight of each vertex left to be implied
 * (read back through sinew_skin_vertex_stored), for tests of compact
 * streams. Include check.h first. */
#ifndef SINEW_TEST_IMPLIED_TWIN_H
#define SINEW_TEST_IMPLIED_TWIN_H

#include "sinew/sinew.h"

#include <stdlib.h>
#include <string.h>

/* Made with no repair (checked); free with sinew_skin_free(). */
static sinew_skin *implied_twin(const sinew_skeleton *sk, const sinew_skin *s)
{
    int n = s->influence_count, nv = s->vertex_count;
    size_t isize = s->index_type == SINEW_INDEX_U8 ? 1 : 2;
    size_t wsize = s->weight_type == SINEW_WEIGHT_F32 ? 4 : s->weight_type == SINEW_WEIGHT_UNORM8 ? 1 : 2;
    unsigned char *idx = malloc(isize * (size_t)n * (size_t)nv + 1), *w = malloc(wsize * (size_t)n * (size_t)nv + 1);
    int *joints = malloc(sizeof(int) * (size_t)s->joint_count);
    for (int j = 0; j < s->joint_count; ++j) joints[j] = s->joints[j];
    for (int v = 0; v < nv; ++v) {
        unsigned char vw[4 * SINEW_MAX_INFLUENCES];
        sinew_skin_vertex_stored(s, v, idx + isize * (size_t)n * (size_t)v, vw);
        memcpy(w + wsize * (size_t)(n - 1) * (size_t)v, vw, wsize * (size_t)(n - 1));
    }
    sinew_skin_desc d = {.joint_count = s->joint_count, .joints = joints, .inverse_bind = s->inverse_bind,
                         .vertex_count = nv, .influence_count = n, .index_type = s->index_type, .indices = idx,
                         .weight_type = s->weight_type, .weights = w, .last_weight_implied = true};
    sinew_error err = {0};
    sinew_skin_report rep;
    sinew_skin *t = sinew_skin_create(sk, &d, NULL, &rep, &err);
    CHECK(t != NULL && rep.normalized_vertices == 0, "implied twin: %s, %d normalized", err.description,
          rep.normalized_vertices);
    free(idx), free(w), free(joints);
    return t;
}

#endif
