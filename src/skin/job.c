/* SPDX-License-Identifier: MIT */
/* Skinning jobs: their checks, their streams resolved once per call, and
 * the prepared inputs (streams copied into the kernels' block order). */
#include "skin/skin_internal.h"

/* A stream's stride in bytes: 0 (packed), or at least `elem` and a
 * multiple of 4. `who` starts the message. */
static sinew_result check_stride(const char *who, const char *name, size_t stride, size_t elem, sinew_error *err)
{
    if (stride && stride < elem)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s stride is below %zu bytes", who, name, elem);
    if (stride % sizeof(float))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s stride is not a multiple of 4 bytes", who,
                           name);
    return SINEW_OK;
}

/* A stream's element: 3 floats (positions, normals), 4 (tangents). */
#define VEC3_BYTES (3 * sizeof(float))
#define VEC4_BYTES (4 * sizeof(float))

/* A job's stride: 0 means tightly packed elements of `element` bytes. */
static size_t stride_of(size_t given, size_t element) { return given ? given : element; }

static sinew_result check_stream(const void *in, size_t in_stride, const void *out, size_t out_stride, size_t elem,
                                 const char *name, const char *who, sinew_error *err)
{
    if (!in && !out) return SINEW_OK;
    if (!in || !out)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s has %s but no %s", who, name,
                           in ? "an input" : "an output", in ? "output" : "input");
    sinew_result r = check_stride(who, name, in_stride, elem, err);
    return r != SINEW_OK ? r : check_stride(who, name, out_stride, elem, err);
}

/* One stream of `in` (3 floats a vertex, `stride` bytes apart) in the
 * prepared layout, the blocks at their slots. */
static void prepare_stream(const sinew_skin *s, const uint32_t *slot, const float *in, size_t stride, float *out)
{
    stride = stride_of(stride, VEC3_BYTES);
    int blocks = (s->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    for (int b = 0; b < blocks; ++b) {
        float *o = out + (size_t)slot[b] * SINEW__PREPARED_FLOATS;
        for (int lane = 0; lane < SINEW__BLOCK; ++lane) {
            int v = b * SINEW__BLOCK + lane;
            const float *p = v < s->vertex_count ? sinew__in(in, stride, v) : NULL;
            for (int c = 0; c < 3; ++c) o[c * SINEW__BLOCK + lane] = p ? p[c] : 0.0f;
        }
    }
}

sinew_skin_inputs *sinew_skin_inputs_create(const sinew_skin *skin, const float *positions, size_t positions_stride,
                                            const float *normals, size_t normals_stride, sinew_error *err)
{
    sinew__ok(err);
    if (!skin || (!positions && !normals)) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_skin_inputs_create: %s",
                    skin ? "no positions and no normals given" : "NULL skin");
        return NULL;
    }
    if (check_stride("sinew_skin_inputs_create", "positions", positions_stride, 12, err) != SINEW_OK ||
        check_stride("sinew_skin_inputs_create", "normals", normals_stride, 12, err) != SINEW_OK)
        return NULL;
    size_t blocks = ((size_t)skin->vertex_count + SINEW__BLOCK - 1) / SINEW__BLOCK;
    sinew__layout l = {sizeof(sinew_skin_inputs), false};
    size_t off_slot = sinew__layout_add(&l, blocks, sizeof(uint32_t), 8);
    size_t off_pos = sinew__layout_add(&l, positions ? blocks * SINEW__PREPARED_FLOATS : 0, sizeof(float), 32);
    size_t off_nrm = sinew__layout_add(&l, normals ? blocks * SINEW__PREPARED_FLOATS : 0, sizeof(float), 32);
    unsigned char *base = l.overflow ? NULL : sinew__alloc_aligned(&sinew__skin_of(skin)->allocator, l.total);
    if (!base) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_skin_inputs_create: out of memory for %d vertices",
                    skin->vertex_count);
        return NULL;
    }
    sinew_skin_inputs *in = (sinew_skin_inputs *)base;
    memset(in, 0, sizeof *in);
    in->skin = skin;
    in->allocator = sinew__skin_of(skin)->allocator;
    in->slot = (uint32_t *)(base + off_slot);
    uint32_t next = 0;
    for (int k = 0; k <= SINEW__BLOCK_MAX_JOINTS; ++k) {
        const sinew__block_group *g = &sinew__skin_of(skin)->blocks->group[k];
        in->group_first[k] = next;
        for (int i = 0; i < g->count; ++i) in->slot[g->block[i]] = next++;
    }
    if (positions) prepare_stream(skin, in->slot, positions, positions_stride, in->positions = (float *)(base + off_pos));
    if (normals) prepare_stream(skin, in->slot, normals, normals_stride, in->normals = (float *)(base + off_nrm));
    return in;
}

void sinew_skin_inputs_free(sinew_skin_inputs *inputs)
{
    if (inputs) sinew__free_aligned(&inputs->allocator, inputs);
}

/* Where a job's positions (or normals) come from: with prepared inputs,
 * their copy where the job gives that stream's output (NULL otherwise);
 * without, the job's stream. */
static const float *job_source(const sinew_skin_job *job, bool normals)
{
    const sinew_skin_inputs *in = job->inputs;
    if (!in) return normals ? job->normals : job->positions;
    if (normals) return job->out_normals ? in->normals : NULL;
    return job->out_positions ? in->positions : NULL;
}

sinew_result sinew__skin_job_check(const sinew_skin_job *job, bool dqs, const char *who, sinew_error *err)
{
    if (!job || !job->skin) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: job and skin are required", who);
    const sinew_skin *s = job->skin;
    const sinew_skin_inputs *in = job->inputs;
    if (in && in->skin != s)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: its inputs were prepared for another skin", who);
    if (in && (job->positions || job->normals))
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: %s given beside prepared inputs (leave them NULL: the inputs hold them)", who,
                           job->positions ? "positions" : "normals");
    if (dqs ? !job->dq_palette : !job->palette)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: %s is required", who,
                           dqs ? "dq_palette" : "palette");
    if (job->palette_count < s->joint_count)
        return sinew__fail(err, SINEW_ERROR_BUFFER_TOO_SMALL, "%s: palette_count %d is below the skin's %d joints", who,
                           job->palette_count, s->joint_count);
    if (job->first_vertex < 0 || job->vertex_count < 0 || job->first_vertex > s->vertex_count ||
        job->vertex_count > s->vertex_count - job->first_vertex)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                           "%s: vertices [%d, +%d) are outside the skin's %d vertices", who, job->first_vertex,
                           job->vertex_count, s->vertex_count);
    if ((unsigned)job->simd > SINEW_SIMD_NEON)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown simd level %d", who, (int)job->simd);
    if ((unsigned)job->normal_mode > SINEW_NORMALS_INVERSE_TRANSPOSE)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: unknown normal_mode %d", who, (int)job->normal_mode);
    sinew_result r;
    const float *positions = job_source(job, false), *normals = job_source(job, true);
    if ((r = check_stream(positions, job->positions_stride, job->out_positions, job->out_positions_stride, VEC3_BYTES,
                          "positions", who, err)) != SINEW_OK ||
        (r = check_stream(normals, job->normals_stride, job->out_normals, job->out_normals_stride, VEC3_BYTES, "normals", who,
                          err)) != SINEW_OK ||
        (r = check_stream(job->tangents, job->tangents_stride, job->out_tangents, job->out_tangents_stride, VEC4_BYTES,
                          "tangents", who, err)) != SINEW_OK)
        return r;
    sinew__ok(err);
    return SINEW_OK;
}

sinew__job_streams sinew__job_resolve(const sinew_skin_job *job)
{
    sinew__job_streams r;
    r.begin = job->first_vertex;
    r.end = job->vertex_count ? job->first_vertex + job->vertex_count : job->skin->vertex_count;
    r.position_stride = stride_of(job->positions_stride, VEC3_BYTES);
    r.normal_stride = stride_of(job->normals_stride, VEC3_BYTES);
    r.tangent_stride = stride_of(job->tangents_stride, VEC4_BYTES);
    r.out_position_stride = stride_of(job->out_positions_stride, VEC3_BYTES);
    r.out_normal_stride = stride_of(job->out_normals_stride, VEC3_BYTES);
    r.out_tangent_stride = stride_of(job->out_tangents_stride, VEC4_BYTES);
    const sinew_skin_inputs *in = job->inputs;
    const float *positions = job_source(job, false), *normals = job_source(job, true);
    r.prepared_positions = in ? positions : NULL;
    r.prepared_normals = in ? normals : NULL;
    r.slot = in ? in->slot : NULL;
    r.group_first = in ? in->group_first : NULL;
    r.positions = positions != NULL;
    r.normals = normals != NULL;
    return r;
}

sinew_result sinew_skin_job_validate(const sinew_skin_job *job, bool dqs, sinew_error *err)
{
    return sinew__skin_job_check(job, dqs, "sinew_skin_job_validate", err);
}
