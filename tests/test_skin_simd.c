/* SPDX-License-Identifier: MIT */
/* The SIMD skinning kernels against the scalar reference: every level this
 * CPU runs, on random skins of every index and weight type (vertex counts
 * that are not multiples of 8, repeated joints, zero weights between
 * others), random palettes with non-uniform scale, every normal mode,
 * tangents, strided and aliased streams, ranges that cut blocks, and on the
 * built-in character, cesium_man.gltf and the pab arnaud.fbx when the
 * shared assets are there.
 *
 * Tolerance: each output component within 1e-6 of the size of what was
 * summed to make it, S = sum of w_i (|A_i| |p| + |t_i|) for positions (A_i,
 * t_i the palette matrix's 3x3 part and translation, |A| its largest
 * absolute entry times 3), and 1e-6 for unit normals and tangents. Nothing
 * outside the job's range is written. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#if defined(SINEW_TEST_FILES)
#include "sinew/sinew_import.h"
#endif

#include "check.h"
#if defined(SINEW_TEST_FILES)
#include "shared_asset.h"
#endif
#include "implied_twin.h"
#include "product_error.h"
#include "skin/skin_internal.h" /* the block groups: which ones a skin fills */

#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#define TOL 1e-6
#define SENTINEL 12345.5f

static uint32_t rng = 12345u;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}
static int irand(int n) { return (int)(frand(0.0f, 1.0f) * (float)n) % n; }

/* A random rotation times a scale (uniform or not) plus a translation. */
static sinew_mat4 random_matrix(bool uniform)
{
    sinew_quat q = {frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(-1, 1)};
    float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q.x /= l, q.y /= l, q.z /= l, q.w /= l;
    float s = frand(0.5f, 2.0f);
    sinew_transform t = {{frand(-10, 10), frand(-10, 10), frand(-10, 10)}, q,
                         {s, uniform ? s : frand(0.5f, 2.0f), uniform ? s : frand(0.5f, 2.0f)}};
    return sinew_mat4_from_transform(&t);
}

typedef struct mesh {
    int vertices;
    float *pos, *nrm, *tan;  /* 3, 3, 4 floats per vertex */
} mesh;

/* Worst error of `got` against `want` over one job's outputs, each
 * position component measured against its S, normals and tangents
 * absolutely; and whether everything outside [first, first + count) kept
 * the sentinel. */
typedef struct compare {
    double pos, nrm, tan;
    bool outside_untouched;
    bool differs; /* some output not bit for bit the scalar one: a SIMD kernel ran */
} compare;

static double position_scale(const sinew_skin *s, const sinew_mat4 *pal, const float *p, int v)
{
    int j[SINEW_MAX_INFLUENCES];
    float w[SINEW_MAX_INFLUENCES];
    sinew_skin_vertex(s, v, j, w);
    double plen = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]), sum = 0.0;
    for (int i = 0; i < s->influence_count; ++i) {
        if (w[i] == 0.0f) continue;
        const float *m = pal[j[i]].m;
        double big = 0.0;
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) big = fmax(big, fabs(m[c * 4 + r]));
        sum += w[i] * (3.0 * big * plen + sqrt((double)m[12] * m[12] + (double)m[13] * m[13] + (double)m[14] * m[14]));
    }
    return sum > 1e-30 ? sum : 1.0;
}

/* The normal of vertex v through the blended 3x3 (its cofactor matrix when
 * `cofactor`, negated where the determinant is negative), unnormalized, in
 * double; *terms receives the size of the blend's terms (squared for the
 * cofactor: products of two entries). */
static void blended_normal(const sinew_skin *s, const sinew_mat4 *pal, const float *n, int v, bool cofactor,
                           double r[3], double *terms)
{
    int j[SINEW_MAX_INFLUENCES];
    float w[SINEW_MAX_INFLUENCES];
    sinew_skin_vertex(s, v, j, w);
    double m[9] = {0};
    *terms = 0.0;
    for (int i = 0; i < s->influence_count; ++i) {
        if (w[i] == 0.0f) continue;
        double big = 0.0;
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
                m[c * 3 + k] += w[i] * pal[j[i]].m[c * 4 + k];
                big = fmax(big, fabs(pal[j[i]].m[c * 4 + k]));
            }
        *terms += w[i] * 3.0 * big;
    }
    double a[9];
    if (cofactor) { /* columns c1 x c2, c2 x c0, c0 x c1 */
        for (int k = 0; k < 3; ++k) {
            const double *u = m + 3 * ((k + 1) % 3), *t = m + 3 * ((k + 2) % 3);
            a[3 * k + 0] = u[1] * t[2] - u[2] * t[1];
            a[3 * k + 1] = u[2] * t[0] - u[0] * t[2];
            a[3 * k + 2] = u[0] * t[1] - u[1] * t[0];
        }
        *terms *= *terms;
        double det = m[0] * a[0] + m[1] * a[1] + m[2] * a[2];
        if (det < 0.0) /* as the kernels: |det M| M^-T n, the side of n kept */
            for (int k = 0; k < 9; ++k) a[k] = -a[k];
    } else {
        memcpy(a, m, sizeof a);
    }
    for (int k = 0; k < 3; ++k) r[k] = a[k] * n[0] + a[3 + k] * n[1] + a[6 + k] * n[2];
}

/* The worst error a normal may show: 1e-6 of the blended matrix's terms
 * over the length of the unnormalized normal (when the blend nearly
 * cancels in the normal's direction, the direction itself is uncertain
 * to that much). Left unnormalized (`raw`, the job's skip_renormalize),
 * 1e-6 of the terms. */
static double normal_scale(const sinew_skin *s, const sinew_mat4 *pal, const float *n, int v, bool cofactor, bool raw)
{
    double r[3], terms;
    blended_normal(s, pal, n, v, cofactor, r, &terms);
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double nlen = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
    if (raw) return fmax(terms * nlen, 1e-30);
    return len > 0.0 ? fmax(1.0, terms * nlen / len) : 1.0;
}

static sinew_result run(const sinew_skin_job *base, sinew_simd level, float *out_pos, float *out_nrm, float *out_tan)
{
    sinew_skin_job job = *base;
    job.simd = level;
    if (job.positions) job.out_positions = out_pos;
    if (job.normals) job.out_normals = out_nrm;
    if (job.tangents) job.out_tangents = out_tan;
    sinew_error err = {0};
    sinew_result r = job.dq_palette ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err);
    CHECK(r == SINEW_OK, "skin_%s %s: %s", job.dq_palette ? "dqs" : "lbs", sinew_simd_name(level), err.description);
    return r;
}

/* Runs `job` (DQS when it has a dq_palette, measured against the matrix
 * palette it came from) scalar and at `level` into sentinel-filled
 * buffers, the streams tightly packed (strided jobs read their inputs
 * through `job`). */
static compare compare_levels(const sinew_skin_job *job, sinew_simd level, bool extra_nan)
{
    int n = job->skin->vertex_count;
    size_t ps = job->out_positions_stride ? job->out_positions_stride / 4 : 3;
    size_t ns = job->out_normals_stride ? job->out_normals_stride / 4 : 3;
    size_t ts = job->out_tangents_stride ? job->out_tangents_stride / 4 : 4;
    float *buf[2][3];
    for (int k = 0; k < 2; ++k) {
        buf[k][0] = malloc(sizeof(float) * ps * (size_t)(n + 1));
        buf[k][1] = malloc(sizeof(float) * ns * (size_t)(n + 1));
        buf[k][2] = malloc(sizeof(float) * ts * (size_t)(n + 1));
        for (size_t i = 0; i < ps * (size_t)(n + 1); ++i) buf[k][0][i] = SENTINEL;
        for (size_t i = 0; i < ns * (size_t)(n + 1); ++i) buf[k][1][i] = SENTINEL;
        for (size_t i = 0; i < ts * (size_t)(n + 1); ++i) buf[k][2][i] = SENTINEL;
    }
    run(job, SINEW_SIMD_SCALAR, buf[0][0], buf[0][1], buf[0][2]);
    run(job, level, buf[1][0], buf[1][1], buf[1][2]);
    compare c = {0, 0, 0, true, false};
    int first = job->first_vertex, end = job->vertex_count ? first + job->vertex_count : n;
    for (int v = 0; v < n; ++v) {
        bool inside = v >= first && v < end;
        for (int k = 0; k < 3; ++k) {
            bool present = k == 0 ? job->positions != NULL : k == 1 ? job->normals != NULL : job->tangents != NULL;
            if (!present) continue;
            size_t stride = k == 0 ? ps : k == 1 ? ns : ts;
            int comps = k == 2 ? 4 : 3;
            const float *a = buf[0][k] + (size_t)v * stride, *b = buf[1][k] + (size_t)v * stride;
            if (!inside) {
                for (size_t i = 0; i < stride; ++i)
                    if (b[i] != SENTINEL) c.outside_untouched = false;
                continue;
            }
            for (size_t i = (size_t)comps; i < stride; ++i) /* padding between strided elements */
                if (b[i] != SENTINEL) c.outside_untouched = false;
            double scale = 1.0;
            if (k == 0)
                scale = position_scale(job->skin, job->palette,
                                       (const float *)((const char *)job->positions +
                                                       (size_t)v * (job->positions_stride ? job->positions_stride : 12)),
                                       v);
            if (extra_nan && k > 0 && job->positions) {
                const float *q = buf[1][0] + (size_t)v * ps;
                if (isnan(q[0]) || isnan(q[1]) || isnan(q[2])) continue;
            }
            if (k == 2)
                scale = normal_scale(job->skin, job->palette,
                                     (const float *)((const char *)job->tangents +
                                                     (size_t)v * (job->tangents_stride ? job->tangents_stride : 16)),
                                     v, false, job->skip_renormalize);
            if (k == 1) {
                bool cofactor = job->normal_mode == SINEW_NORMALS_INVERSE_TRANSPOSE ||
                                (job->normal_mode == SINEW_NORMALS_AUTO &&
                                 !sinew_palette_is_conformal(job->palette, job->skin->joint_count, 1e-4f));
                scale = normal_scale(job->skin, job->palette,
                                     (const float *)((const char *)job->normals +
                                                     (size_t)v * (job->normals_stride ? job->normals_stride : 12)),
                                     v, cofactor, job->skip_renormalize);
            }
            for (int i = 0; i < comps; ++i) {
                if (a[i] != b[i] && !isnan(a[i])) c.differs = true;
                double e = (a[i] == b[i]) ? 0.0 : fabs((double)a[i] - (double)b[i]) / scale;
                if (isnan(a[i]) != isnan(b[i])) e = INFINITY;
                if (isnan(a[i]) && isnan(b[i])) e = 0.0;
                if (extra_nan && isnan(b[i])) e = 0.0;
                double *worst = k == 0 ? &c.pos : k == 1 ? &c.nrm : &c.tan;
                if (!(e <= *worst)) *worst = e;
            }
        }
    }
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i) free(buf[k][i]);
    return c;
}

/* The job's positions and normals prepared (sinew_skin_inputs): bit for
 * bit what the job writes from its streams, at the scalar level and at
 * `level`, with both streams and with each alone (the other's output left
 * NULL). Outputs tightly packed, sentinel-filled (range cut blocks keep
 * them). */
static void check_prepared(const sinew_skin_job *job, sinew_simd level, const char *what)
{
    sinew_error err = {0};
    sinew_skin_inputs *in = sinew_skin_inputs_create(job->skin, job->positions, job->positions_stride, job->normals,
                                                     job->normals_stride, &err);
    CHECK(in != NULL, "%s: skin inputs: %s", what, err.description);
    if (!in) return;
    size_t n = (size_t)job->skin->vertex_count;
    float *out[2][3];
    for (int k = 0; k < 2; ++k) {
        out[k][0] = malloc(12 * (n + 1)), out[k][1] = malloc(12 * (n + 1)), out[k][2] = malloc(16 * (n + 1));
    }
    sinew_simd levels[2] = {SINEW_SIMD_SCALAR, level};
    for (int li = 0; li < 2; ++li)
        for (int streams = 1; streams <= 3; ++streams) { /* bit 0 positions, bit 1 normals */
            if (((streams & 1) && !job->positions) || ((streams & 2) && !job->normals)) continue;
            for (int k = 0; k < 2; ++k) {
                for (size_t i = 0; i < 3 * (n + 1); ++i) out[k][0][i] = out[k][1][i] = SENTINEL;
                for (size_t i = 0; i < 4 * (n + 1); ++i) out[k][2][i] = SENTINEL;
                sinew_skin_job j = *job;
                j.simd = levels[li];
                j.out_positions_stride = j.out_normals_stride = j.out_tangents_stride = 0;
                j.out_positions = streams & 1 ? out[k][0] : NULL;
                j.out_normals = streams & 2 ? out[k][1] : NULL;
                j.out_tangents = j.tangents ? out[k][2] : NULL;
                if (!(streams & 1)) j.positions = NULL;
                if (!(streams & 2)) j.normals = NULL;
                if (k == 1) j.inputs = in, j.positions = j.normals = NULL;
                sinew_result r = j.dq_palette ? sinew_skin_dqs(&j, &err) : sinew_skin_lbs(&j, &err);
                CHECK(r == SINEW_OK, "%s, prepared %d: %s", what, k, err.description);
            }
            CHECK(memcmp(out[0][0], out[1][0], 12 * (n + 1)) == 0 && memcmp(out[0][1], out[1][1], 12 * (n + 1)) == 0 &&
                      memcmp(out[0][2], out[1][2], 16 * (n + 1)) == 0,
                  "%s at %s, streams %d: prepared inputs differ from the streams", what,
                  sinew_simd_name(levels[li]), streams);
        }
    for (int k = 0; k < 2; ++k) free(out[k][0]), free(out[k][1]), free(out[k][2]);
    sinew_skin_inputs_free(in);
}

static void check_compare(compare c, const char *what, sinew_simd level)
{
    CHECK(c.pos <= TOL && c.nrm <= TOL && c.tan <= TOL, "%s at %s: worst position %.3g, normal %.3g, tangent %.3g",
          what, sinew_simd_name(level), c.pos, c.nrm, c.tan);
    CHECK(c.outside_untouched, "%s at %s: wrote outside the range", what, sinew_simd_name(level));
}

/* ---- random skins --------------------------------------------------------- */

static sinew_skin *random_skin(const sinew_skeleton *sk, int vertices, int influences, sinew_index_type it,
                               sinew_weight_type wt, int joints)
{
    size_t entries = (size_t)vertices * (size_t)influences;
    void *idx = malloc(entries * 2 + 1), *w = malloc(entries * 4 + 1);
    int *skin_joints = malloc(sizeof(int) * (size_t)joints);
    for (int j = 0; j < joints; ++j) skin_joints[j] = j % sk->joint_count;
    for (int v = 0; v < vertices; ++v) {
        /* local: most vertices pick among a few joints near each other, as meshes do */
        int base = (v / 5) % joints;
        for (int i = 0; i < influences; ++i) {
            size_t e = (size_t)v * (size_t)influences + (size_t)i;
            int j = irand(4) == 0 ? irand(joints) : (base + irand(3)) % joints;
            if (i > 0 && irand(5) == 0) j = it == SINEW_INDEX_U8 ? ((uint8_t *)idx)[e - 1] : ((uint16_t *)idx)[e - 1];
            float x = i == 0 || irand(3) ? frand(0.0f, 1.0f) : 0.0f; /* zero weights between others */
            if (it == SINEW_INDEX_U8)
                ((uint8_t *)idx)[e] = (uint8_t)j;
            else
                ((uint16_t *)idx)[e] = (uint16_t)j;
            if (wt == SINEW_WEIGHT_F32)
                ((float *)w)[e] = x;
            else if (wt == SINEW_WEIGHT_UNORM8)
                ((uint8_t *)w)[e] = (uint8_t)(x * 255.0f);
            else
                ((uint16_t *)w)[e] = (uint16_t)(x * 65535.0f);
        }
        size_t e0 = (size_t)v * (size_t)influences; /* never all zero */
        if (wt == SINEW_WEIGHT_F32)
            ((float *)w)[e0] += 0.01f;
        else if (wt == SINEW_WEIGHT_UNORM8)
            ((uint8_t *)w)[e0] = (uint8_t)(((uint8_t *)w)[e0] | 1);
        else
            ((uint16_t *)w)[e0] = (uint16_t)(((uint16_t *)w)[e0] | 1);
    }
    sinew_skin_desc d = {.joint_count = joints, .joints = skin_joints, .vertex_count = vertices,
                         .influence_count = influences, .index_type = it, .indices = idx, .weight_type = wt,
                         .weights = w};
    sinew_error err = {0};
    sinew_skin *s = sinew_skin_create(sk, &d, NULL, NULL, &err);
    CHECK(s != NULL, "random skin: %s", err.description);
    free(idx), free(w), free(skin_joints);
    return s;
}

/* The implied twin decodes to the same weights (unorm: exactly; float:
 * within rounding) and skins at `level` as the scalar reference does. */
static void check_implied_twin(const sinew_skeleton *sk, const sinew_skin *s, const mesh *m, const sinew_mat4 *pal,
                               sinew_simd level)
{
    sinew_skin *t = implied_twin(sk, s);
    if (!t) return;
    double worst = 0.0;
    bool same_joints = true;
    for (int v = 0; v < s->vertex_count; ++v) {
        int ja[SINEW_MAX_INFLUENCES], jb[SINEW_MAX_INFLUENCES];
        float wa[SINEW_MAX_INFLUENCES], wb[SINEW_MAX_INFLUENCES];
        sinew_skin_vertex(s, v, ja, wa);
        sinew_skin_vertex(t, v, jb, wb);
        for (int i = 0; i < s->influence_count; ++i) {
            same_joints &= ja[i] == jb[i];
            worst = fmax(worst, fabs((double)wa[i] - (double)wb[i]));
        }
    }
    double allowed = s->weight_type == SINEW_WEIGHT_F32 ? 1e-5 : 0.0; /* float sums are kept within 1e-5 of 1 */
    CHECK(same_joints && worst <= allowed, "implied twin (weight type %d): joints %s, worst weight difference %.3g",
          (int)s->weight_type, same_joints ? "equal" : "differ", worst);
    sinew_skin_job job = {.skin = t, .palette = pal, .palette_count = t->joint_count, .positions = m->pos,
                          .normals = m->nrm};
    check_compare(compare_levels(&job, level, false), "implied last weight", level);
    sinew_skin_free(t);
}

static mesh random_mesh(int vertices)
{
    mesh m = {vertices, malloc(sizeof(float) * 3 * (size_t)(vertices + 1)),
              malloc(sizeof(float) * 3 * (size_t)(vertices + 1)), malloc(sizeof(float) * 4 * (size_t)(vertices + 1))};
    for (int v = 0; v < vertices; ++v) {
        for (int c = 0; c < 3; ++c) m.pos[v * 3 + c] = frand(-5, 5), m.nrm[v * 3 + c] = frand(-1, 1);
        for (int c = 0; c < 3; ++c) m.tan[v * 4 + c] = frand(-1, 1);
        m.tan[v * 4 + 3] = irand(2) ? 1.0f : -1.0f;
    }
    if (vertices > 3) m.nrm[3 * 3 + 0] = m.nrm[3 * 3 + 1] = m.nrm[3 * 3 + 2] = 0.0f; /* a zero normal stays 0 */
    return m;
}

static void free_mesh(mesh *m) { free(m->pos), free(m->nrm), free(m->tan); }

/* A random skin with float weights, a rigid random palette for its joints
 * and a random mesh: what the special-case tests below start from. */
enum { FIXTURE_JOINTS = 30 };
typedef struct fixture {
    sinew_skin *skin;
    sinew_mat4 pal[FIXTURE_JOINTS];
    mesh m;
} fixture;

static bool make_fixture(fixture *f, const sinew_skeleton *sk, int vertices, int influences, sinew_index_type it,
                         int joints)
{
    f->skin = random_skin(sk, vertices, influences, it, SINEW_WEIGHT_F32, joints);
    if (!f->skin) return false;
    for (int j = 0; j < joints; ++j) f->pal[j] = random_matrix(true);
    f->m = random_mesh(vertices);
    return true;
}

static void free_fixture(fixture *f)
{
    free_mesh(&f->m);
    sinew_skin_free(f->skin);
}

/* The palette the skin computed (fused multiply-adds under AVX2) against
 * the reference product model[joint] * inverse_bind, entry by entry within
 * 1e-6 of the size of its terms (product_error). */
static void check_palette(const sinew_skin *s, const sinew_mat4 *model, const sinew_mat4 *pal, const char *what)
{
    double worst = 0.0;
    int at = -1;
    for (int j = 0; j < s->joint_count; ++j) {
        double e = product_error(&model[s->joints[j]], &s->inverse_bind[j], &pal[j]);
        if (!(e <= worst)) worst = e, at = j;
    }
    CHECK(worst <= TOL, "%s: palette %d is %.3g of its terms' size off model * inverse bind", what, at, worst);
}

/* Palettes of random model matrices (non-uniform scales, translations up to
 * 10) for a random skin. */
static void test_random_palette(const sinew_skeleton *sk, const sinew_skin *s)
{
    sinew_mat4 *model = malloc(sizeof(sinew_mat4) * (size_t)sk->joint_count);
    sinew_mat4 *pal = malloc(sizeof(sinew_mat4) * (size_t)s->joint_count);
    if (!model || !pal) {
        CHECK(false, "out of memory");
    } else {
        for (int j = 0; j < sk->joint_count; ++j) model[j] = random_matrix(false);
        sinew_error err = {0};
        CHECK(sinew_skin_palette(s, model, sk->joint_count, NULL, pal, s->joint_count, &err) == SINEW_OK, "palette: %s",
              err.description);
        check_palette(s, model, pal, "random skin");
    }
    free(model), free(pal);
}

/* Inverse bind matrices with float noise: subnormal elements of both
 * signs, normal ones below 2^-64 of the matrix's largest element, and
 * ones just above that, affine and not. The SIMD palette takes the first
 * two kinds as zeros (which keeps a multiplication off the slow path that
 * many x86 cores take for subnormal results) and nothing else: each
 * palette is held to the product with those elements zeroed, within 1e-6
 * of its terms' size, so an entry whose only terms come from elements just
 * above the threshold must come out as the reference's; and to the
 * unchanged product within 2^-62 of the model's and the matrix's largest
 * elements' product. */
static void test_noisy_inverse_bind(const sinew_skeleton *sk)
{
    enum { JOINTS = 3 };
    for (int affine = 0; affine < 2; ++affine) {
        sinew_mat4 ibm[JOINTS], flushed[JOINTS], model[JOINTS], pal[JOINTS];
        float most[JOINTS];
        int joints[JOINTS];
        for (int j = 0; j < JOINTS; ++j) {
            joints[j] = j % sk->joint_count;
            ibm[j] = random_matrix(j % 2 == 0);
            model[j] = random_matrix(false);
        }
        for (int j = 0; j < JOINTS; ++j) {
            if (affine) ibm[j].m[3] = ibm[j].m[7] = ibm[j].m[11] = 0.0f, ibm[j].m[15] = 1.0f;
            else ibm[j].m[3] = 0.25f;
            most[j] = 0.0f;
            for (int e = 0; e < 16; ++e) most[j] = fmaxf(most[j], fabsf(ibm[j].m[e]));
        }
        /* joint 0: column 0 just above the threshold only, column 1 below
         * it; the others a few elements of each kind */
        const float sub = FLT_MIN / 8.0f;
        float above = most[0] * 0x1p-60f, below = most[0] * 0x1p-70f;
        for (int r = 0; r < 4; ++r) ibm[0].m[r] = r % 2 ? -above : above, ibm[0].m[4 + r] = r % 2 ? below : -below;
        ibm[1].m[9] = sub, ibm[1].m[14] = -most[1] * 0x1p-66f, ibm[1].m[1] = most[1] * 0x1p-62f;
        ibm[2].m[2] = -sub, ibm[2].m[12] = most[2] * 0x1p-65f;
        if (!affine) ibm[2].m[7] = -sub;
        for (int j = 0; j < JOINTS; ++j) {
            flushed[j] = ibm[j];
            for (int e = 0; e < 16; ++e) {
                float x = ibm[j].m[e];
                if (fpclassify(x) == FP_SUBNORMAL || fabsf(x) < most[j] * 0x1p-64f) flushed[j].m[e] = 0.0f;
            }
        }
        uint8_t idx = 0;
        float w = 1.0f;
        sinew_skin_desc d = {.joint_count = JOINTS, .joints = joints, .inverse_bind = ibm, .vertex_count = 1,
                             .influence_count = 1, .index_type = SINEW_INDEX_U8, .indices = &idx,
                             .weight_type = SINEW_WEIGHT_F32, .weights = &w};
        sinew_error err = {0};
        sinew_skin *s = sinew_skin_create(sk, &d, NULL, NULL, &err);
        CHECK(s != NULL, "noisy inverse bind: %s", err.description);
        if (!s) continue;
        CHECK(sinew_skin_palette(s, model, JOINTS, NULL, pal, JOINTS, &err) == SINEW_OK, "palette: %s",
              err.description);
        for (int j = 0; j < JOINTS; ++j) {
            double e = product_error(&model[j], &flushed[j], &pal[j]);
            CHECK(e <= TOL, "noisy inverse bind (%s): palette %d is %.3g of its terms' size off",
                  affine ? "affine" : "not affine", j, e);
            sinew_mat4 want = sinew_mat4_mul(&model[j], &ibm[j]);
            float model_most = 0.0f;
            for (int k = 0; k < 16; ++k) model_most = fmaxf(model_most, fabsf(model[j].m[k]));
            for (int k = 0; k < 16; ++k) {
                double off = fabs((double)want.m[k] - pal[j].m[k]), size = 0.0;
                for (int i = 0; i < 4; ++i) size += fabs((double)model[j].m[4 * i + k % 4] * ibm[j].m[4 * (k / 4) + i]);
                CHECK(off <= TOL * size + 0x1p-62 * model_most * most[j],
                      "noisy inverse bind: palette %d entry %d off by %.3g", j, k, off);
            }
        }
        sinew_skin_free(s);
    }
}

static void test_random(const sinew_skeleton *sk, sinew_simd level)
{
    static const int sizes[] = {1, 7, 8, 9, 37, 1000};
    static const sinew_index_type its[] = {SINEW_INDEX_U8, SINEW_INDEX_U16};
    static const sinew_weight_type wts[] = {SINEW_WEIGHT_F32, SINEW_WEIGHT_UNORM8, SINEW_WEIGHT_UNORM16};
    int rigid_runs = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si)
        for (int influences = 1; influences <= SINEW_MAX_INFLUENCES; influences += 3)
            for (int ii = 0; ii < 2; ++ii)
                for (int wi = 0; wi < 3; ++wi) {
                    int vertices = sizes[si], joints = ii == 0 ? 40 : 300;
                    sinew_skin *s = random_skin(sk, vertices, influences, its[ii], wts[wi], joints);
                    if (!s) continue;
                    mesh m = random_mesh(vertices);
                    test_random_palette(sk, s);
                    sinew_mat4 *pal = malloc(sizeof(sinew_mat4) * (size_t)joints);
                    bool uniform = (si + (size_t)wi) % 2 == 0;
                    for (int j = 0; j < joints; ++j) pal[j] = random_matrix(uniform);
                    char what[128];
                    for (int mode = SINEW_NORMALS_AUTO; mode <= SINEW_NORMALS_INVERSE_TRANSPOSE; ++mode)
                        for (int raw = 0; raw < 2; ++raw) {
                            sinew_skin_job job = {.skin = s, .palette = pal, .palette_count = joints,
                                                  .normal_mode = (sinew_normal_mode)mode, .skip_renormalize = raw,
                                                  .positions = m.pos, .normals = m.nrm,
                                                  .tangents = mode == 2 ? m.tan : NULL};
                            snprintf(what, sizeof what,
                                     "%d vertices, %d influences, index %d, weight %d, normals %d%s", vertices,
                                     influences, ii, wi, mode, raw ? ", not renormalized" : "");
                            check_compare(compare_levels(&job, level, false), what, level);
                            if (mode == SINEW_NORMALS_AUTO || vertices >= 37) check_prepared(&job, level, what);
                        }
                    /* ranges that cut blocks, positions only */
                    for (int r = 0; r < 4 && vertices > 2; ++r) {
                        sinew_skin_job job = {.skin = s, .palette = pal, .palette_count = joints, .positions = m.pos,
                                              .normals = r % 2 ? m.nrm : NULL};
                        job.first_vertex = irand(vertices - 1);
                        job.vertex_count = 1 + irand(vertices - job.first_vertex);
                        snprintf(what, sizeof what, "%d vertices, range [%d, +%d)", vertices, job.first_vertex,
                                 job.vertex_count);
                        check_compare(compare_levels(&job, level, false), what, level);
                        check_prepared(&job, level, what);
                    }
                    check_implied_twin(sk, s, &m, pal, level);
                    /* DQS: the same palettes, and a rigid one (rotations and
                     * translations only, no stretch) */
                    sinew_dq_transform *dq = malloc(sizeof(sinew_dq_transform) * (size_t)joints);
                    bool rigid = (si + (size_t)ii) % 3 == 0;
                    if (rigid) {
                        ++rigid_runs;
                        for (int j = 0; j < joints; ++j) {
                            sinew_mat4 a = random_matrix(true);
                            float len = sqrtf(a.m[0] * a.m[0] + a.m[1] * a.m[1] + a.m[2] * a.m[2]);
                            for (int c = 0; c < 3; ++c)
                                for (int r = 0; r < 3; ++r) a.m[4 * c + r] /= len;
                            pal[j] = a;
                        }
                    }
                    sinew_dq_palette(pal, joints, dq, NULL);
                    for (int mode = SINEW_NORMALS_AUTO; mode <= SINEW_NORMALS_INVERSE_TRANSPOSE; ++mode)
                        for (int raw = 0; raw < 2; ++raw) {
                            sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dq,
                                                  .palette_count = joints, .normal_mode = (sinew_normal_mode)mode,
                                                  .skip_renormalize = raw, .positions = m.pos, .normals = m.nrm,
                                                  .tangents = mode == 2 ? m.tan : NULL};
                            snprintf(what, sizeof what,
                                     "DQS%s, %d vertices, %d influences, index %d, weight %d, normals %d%s",
                                     rigid ? " rigid" : "", vertices, influences, ii, wi, mode,
                                     raw ? ", not renormalized" : "");
                            check_compare(compare_levels(&job, level, false), what, level);
                            if (mode == SINEW_NORMALS_AUTO || vertices >= 37) check_prepared(&job, level, what);
                        }
                    if (vertices > 2) {
                        sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dq, .palette_count = joints,
                                              .positions = m.pos, .normals = m.nrm};
                        job.first_vertex = irand(vertices - 1);
                        job.vertex_count = 1 + irand(vertices - job.first_vertex);
                        snprintf(what, sizeof what, "DQS, %d vertices, range [%d, +%d)", vertices, job.first_vertex,
                                 job.vertex_count);
                        check_compare(compare_levels(&job, level, false), what, level);
                        check_prepared(&job, level, what);
                    }
                    free(dq);
                    free(pal);
                    free_mesh(&m);
                    sinew_skin_free(s);
                }
    CHECK(rigid_runs > 0, "rigid DQS palettes were tried");
}

/* skip_renormalize at the scalar level, what the SIMD kernels are measured
 * against: LBS normals are M n (cofactor(M) n under the inverse transpose)
 * and tangents M t, against the same in double, within 1e-6 of the terms;
 * LBS and DQS directions are the renormalized job's; and the lengths are
 * not all 1 (the palette scales). */
static void test_not_renormalized(const sinew_skeleton *sk)
{
    enum { V = 37, J = 40 };
    sinew_skin *s = random_skin(sk, V, 3, SINEW_INDEX_U8, SINEW_WEIGHT_F32, J);
    CHECK(s != NULL, "not renormalized: random skin");
    if (!s) return;
    mesh m = random_mesh(V);
    sinew_mat4 pal[J];
    sinew_dq_transform dq[J];
    for (int j = 0; j < J; ++j) pal[j] = random_matrix(false);
    sinew_dq_palette(pal, J, dq, NULL);
    float *unit = malloc(sizeof(float) * 3 * V), *raw = malloc(sizeof(float) * 3 * V);
    float *unit_t = malloc(sizeof(float) * 4 * V), *raw_t = malloc(sizeof(float) * 4 * V);
    for (int dqs = 0; dqs < 2; ++dqs)
        for (int mode = SINEW_NORMALS_FAST; mode <= SINEW_NORMALS_INVERSE_TRANSPOSE; ++mode) {
            sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dqs ? dq : NULL, .palette_count = J,
                                  .normal_mode = (sinew_normal_mode)mode, .simd = SINEW_SIMD_SCALAR,
                                  .normals = m.nrm, .out_normals = unit, .tangents = m.tan, .out_tangents = unit_t};
            sinew_error err = {0};
            sinew_result r1 = dqs ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err);
            job.skip_renormalize = true, job.out_normals = raw, job.out_tangents = raw_t;
            sinew_result r2 = dqs ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err);
            CHECK(r1 == SINEW_OK && r2 == SINEW_OK, "not renormalized: %s", err.description);
            double worst_value = 0.0, worst_direction = 0.0, longest = 0.0, shortest = INFINITY;
            for (int v = 0; v < V; ++v)
                for (int k = 0; k < 2; ++k) { /* normal, tangent */
                    const float *in = k ? m.tan + 4 * v : m.nrm + 3 * v;
                    const float *a = k ? unit_t + 4 * v : unit + 3 * v, *b = k ? raw_t + 4 * v : raw + 3 * v;
                    bool cofactor = k == 0 && mode == SINEW_NORMALS_INVERSE_TRANSPOSE;
                    double want[3], terms, nlen = sqrt((double)in[0] * in[0] + (double)in[1] * in[1] + (double)in[2] * in[2]);
                    blended_normal(s, pal, in, v, cofactor, want, &terms);
                    double len = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
                    if (nlen == 0.0) continue;
                    longest = fmax(longest, len), shortest = fmin(shortest, len);
                    double direction_scale = normal_scale(s, pal, in, v, cofactor, false);
                    for (int c = 0; c < 3; ++c) {
                        if (!dqs) worst_value = fmax(worst_value, fabs(b[c] - want[c]) / (terms * nlen));
                        worst_direction = fmax(worst_direction, fabs(a[c] - b[c] / len) / direction_scale);
                    }
                }
            CHECK(worst_value <= TOL && worst_direction <= TOL,
                  "not renormalized, %s, normals %d: worst value %.3g, direction %.3g", dqs ? "DQS" : "LBS", mode,
                  worst_value, worst_direction);
            CHECK(longest > 1.1 && shortest < 0.9, "not renormalized, %s, normals %d: lengths %.3g to %.3g, want "
                  "some far from 1", dqs ? "DQS" : "LBS", mode, shortest, longest);
        }
    free(unit), free(raw), free(unit_t), free(raw_t);
    free_mesh(&m);
    sinew_skin_free(s);
}

/* sinew_skin_inputs' refusals, each naming the problem: no skin, no
 * streams, a short stride, out of memory (the skin's allocator refusing);
 * jobs with another skin's inputs, streams beside inputs, and an output
 * whose stream the inputs lack. */
static void *refusing_alloc(void *user, size_t size)
{
    return *(bool *)user ? NULL : malloc(size);
}
static void refusing_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

static void test_inputs_refusals(const sinew_skeleton *sk)
{
    bool refuse = false;
    sinew_options opt = {.allocator = {refusing_alloc, refusing_free, &refuse}};
    float w[16];
    for (int v = 0; v < 16; ++v) w[v] = 1.0f;
    sinew_skin_desc d = {.joint_count = 2, .joints = (const int[]){0, 1}, .vertex_count = 16, .influence_count = 1,
                         .index_type = SINEW_INDEX_U8, .indices = (const uint8_t[16]){0}, .weight_type = SINEW_WEIGHT_F32,
                         .weights = w};
    sinew_error err = {0};
    sinew_skin *s = sinew_skin_create(sk, &d, &opt, NULL, &err), *other = sinew_skin_create(sk, &d, NULL, NULL, &err);
    CHECK(s && other, "inputs refusals: skins: %s", err.description);
    if (!s || !other) return;
    mesh m = random_mesh(16);
    CHECK(!sinew_skin_inputs_create(NULL, m.pos, 0, m.nrm, 0, &err) && err.result == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "skin"),
          "inputs without a skin: %s", err.description);
    CHECK(!sinew_skin_inputs_create(s, NULL, 0, NULL, 0, &err) && strstr(err.description, "no positions"),
          "inputs without streams: %s", err.description);
    CHECK(!sinew_skin_inputs_create(s, m.pos, 8, NULL, 0, &err) && strstr(err.description, "positions stride"),
          "inputs with an 8-byte stride: %s", err.description);
    CHECK(!sinew_skin_inputs_create(s, m.pos, 0, m.nrm, 14, &err) && strstr(err.description, "normals stride"),
          "inputs with a 14-byte stride: %s", err.description);
    refuse = true;
    CHECK(!sinew_skin_inputs_create(s, m.pos, 0, m.nrm, 0, &err) && err.result == SINEW_ERROR_OUT_OF_MEMORY,
          "inputs out of memory: %s", err.description);
    refuse = false;
    sinew_skin_inputs *positions_only = sinew_skin_inputs_create(s, m.pos, 0, NULL, 0, &err);
    CHECK(positions_only != NULL, "positions-only inputs: %s", err.description);
    sinew_mat4 pal[2] = {sinew_mat4_identity(), sinew_mat4_identity()};
    float out[48], out_n[48];
    sinew_skin_job job = {.skin = other, .palette = pal, .palette_count = 2, .inputs = positions_only,
                          .out_positions = out};
    CHECK(sinew_skin_lbs(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "another skin"),
          "another skin's inputs: %s", err.description);
    job.skin = s, job.positions = m.pos;
    CHECK(sinew_skin_lbs(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "beside"),
          "positions beside inputs: %s", err.description);
    job.positions = NULL, job.out_normals = out_n;
    CHECK(sinew_skin_lbs(&job, &err) == SINEW_ERROR_INVALID_ARGUMENT && strstr(err.description, "normals"),
          "normals output without prepared normals: %s", err.description);
    job.out_normals = NULL;
    CHECK(sinew_skin_lbs(&job, &err) == SINEW_OK, "positions from positions-only inputs: %s", err.description);
    bool same = true;
    for (int i = 0; i < 48; ++i) same = same && out[i] == m.pos[i];
    CHECK(same, "identity palette: the prepared positions come back as given");
    sinew_skin_free(s), sinew_skin_free(other);
    sinew_skin_inputs_free(positions_only); /* after its skin: it keeps the allocator */
    sinew_skin_inputs_free(NULL);
    free_mesh(&m);
}

/* Blocks bound to one joint: eight vertices of weight exactly 1 (the
 * kernels take the palette matrix without multiplying), eight whose one
 * weight is 1 - 8e-6 (kept as given, under the 1e-5 that is normalized:
 * taking the matrix alone would be off by 8e-6, past the tolerance), and a
 * last block of four. LBS and DQS against the scalar reference. */
static void test_one_joint_blocks(const sinew_skeleton *sk, sinew_simd level)
{
    enum { V = 20, J = 6 };
    int joints[J];
    uint8_t idx[V];
    float w[V];
    for (int j = 0; j < J; ++j) joints[j] = j % sk->joint_count;
    for (int v = 0; v < V; ++v) idx[v] = (uint8_t)(3 + v / 8), w[v] = 1.0f;
    w[9] = 1.0f - 8e-6f;
    sinew_error err = {0};
    sinew_skin *s = sinew_skin_create(sk,
                                      &(sinew_skin_desc){.joint_count = J, .joints = joints, .vertex_count = V,
                                                         .influence_count = 1, .index_type = SINEW_INDEX_U8,
                                                         .indices = idx, .weight_type = SINEW_WEIGHT_F32,
                                                         .weights = w},
                                      NULL, NULL, &err);
    CHECK(s != NULL, "one-joint skin: %s", err.description);
    if (!s) return;
    CHECK(sinew__skin_of(s)->blocks->group[SINEW__UNIT_GROUP].count == 1 && sinew__skin_of(s)->blocks->group[1].count == 2,
          "one-joint skin: %d unit block(s), %d one-joint block(s); want 1 and 2",
          sinew__skin_of(s)->blocks->group[SINEW__UNIT_GROUP].count, sinew__skin_of(s)->blocks->group[1].count);
    mesh m = random_mesh(V);
    sinew_mat4 pal[J];
    sinew_dq_transform dq[J];
    for (int j = 0; j < J; ++j) pal[j] = random_matrix(true);
    for (int j = 0; j < J; ++j) pal[j].m[12] *= 1000.0f; /* translations that dwarf the rest */
    sinew_dq_palette(pal, J, dq, NULL);
    for (int dqs = 0; dqs < 2; ++dqs)
        for (int raw = 0; raw < 2; ++raw) {
            sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dqs ? dq : NULL, .palette_count = J,
                                  .skip_renormalize = raw, .positions = m.pos, .normals = m.nrm};
            char what[64];
            snprintf(what, sizeof what, "one-joint blocks%s%s", dqs ? ", DQS" : "", raw ? ", not renormalized" : "");
            check_compare(compare_levels(&job, level, false), what, level);
            check_prepared(&job, level, what);
        }
    free_mesh(&m);
    sinew_skin_free(s);
}

/* Interleaved streams (position, normal, tangent in one 48-byte vertex),
 * output strided too; then outputs aliasing their inputs. */
static void test_strides_and_alias(const sinew_skeleton *sk, sinew_simd level)
{
    int vertices = 203, joints = FIXTURE_JOINTS;
    fixture f;
    if (!make_fixture(&f, sk, vertices, 4, SINEW_INDEX_U16, joints)) return;
    const sinew_skin *s = f.skin;
    const sinew_mat4 *pal = f.pal;
    const mesh m = f.m;
    float *inter = malloc(sizeof(float) * 12 * (size_t)vertices);
    for (int v = 0; v < vertices; ++v) {
        memcpy(inter + v * 12, m.pos + v * 3, 12);
        memcpy(inter + v * 12 + 3, m.nrm + v * 3, 12);
        memcpy(inter + v * 12 + 6, m.tan + v * 4, 16);
    }
    sinew_skin_job job = {.skin = s, .palette = pal, .palette_count = joints, .positions = inter,
                          .positions_stride = 48, .normals = inter + 3, .normals_stride = 48,
                          .tangents = inter + 6, .tangents_stride = 48, .out_positions_stride = 20,
                          .out_normals_stride = 16, .out_tangents_stride = 24};
    check_compare(compare_levels(&job, level, false), "interleaved streams", level);
    check_prepared(&job, level, "interleaved streams");

    /* in place (the outputs are the inputs): bit for bit what the same
     * level writes elsewhere */
    float *a = malloc(sizeof(float) * 3 * (size_t)vertices), *b = malloc(sizeof(float) * 3 * (size_t)vertices);
    float *an = malloc(sizeof(float) * 3 * (size_t)vertices), *bn = malloc(sizeof(float) * 3 * (size_t)vertices);
    memcpy(b, m.pos, 12 * (size_t)vertices), memcpy(bn, m.nrm, 12 * (size_t)vertices);
    sinew_skin_job apart = {.skin = s, .palette = pal, .palette_count = joints, .positions = m.pos,
                            .out_positions = a, .normals = m.nrm, .out_normals = an, .simd = level};
    sinew_skin_lbs(&apart, NULL);
    sinew_skin_job in_place = apart;
    in_place.positions = in_place.out_positions = b, in_place.normals = in_place.out_normals = bn;
    sinew_skin_lbs(&in_place, NULL);
    CHECK(memcmp(a, b, 12 * (size_t)vertices) == 0 && memcmp(an, bn, 12 * (size_t)vertices) == 0,
          "in place at %s differs from the same level writing elsewhere", sinew_simd_name(level));
    free(a), free(b), free(an), free(bn), free(inter);
    free_fixture(&f);
}

/* NaN in the palette: NaN out, no crash. Every vertex the scalar code
 * makes NaN is NaN here too; a vertex sharing its 8-vertex block with one
 * the NaN joint acts on may be NaN as well (0 * NaN in its weight row). */
static void test_nan(const sinew_skeleton *sk, sinew_simd level)
{
    int joints = 4;
    fixture f;
    if (!make_fixture(&f, sk, 16, 2, SINEW_INDEX_U8, joints)) return;
    f.pal[2].m[5] = NAN;
    check_compare(compare_levels(&(sinew_skin_job){.skin = f.skin, .palette = f.pal, .palette_count = joints,
                                                    .normal_mode = SINEW_NORMALS_FAST, .positions = f.m.pos,
                                                    .normals = f.m.nrm},
                                 level, true),
                  "NaN palette", level);
    free_fixture(&f);
}

/* Normals so short that their squared length is subnormal (below FLT_MIN,
 * where a reciprocal square root estimate can overflow): every kernel still
 * gives unit normals along the scalar ones, to 1e-5 plus what a subnormal
 * squared length loses (its spacing, FLT_TRUE_MIN, over its size). */
static void test_tiny_normals(const sinew_skeleton *sk, sinew_simd level)
{
    int vertices = 64, joints = 8;
    fixture f;
    if (!make_fixture(&f, sk, vertices, 3, SINEW_INDEX_U8, joints)) return;
    const sinew_skin *s = f.skin;
    const sinew_mat4 *pal = f.pal;
    const mesh m = f.m;
    sinew_dq_transform dq[8];
    sinew_dq_palette(pal, joints, dq, NULL);
    for (int v = 0; v < vertices; ++v) { /* |n| = 3e-20, |n|^2 about 1e-39 */
        float *n = m.nrm + 3 * v, len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3 && len > 0.0f; ++c) n[c] = n[c] / len * 3e-20f;
    }
    float *want = malloc(sizeof(float) * 3 * (size_t)vertices), *got = malloc(sizeof(float) * 3 * (size_t)vertices);
    for (int method = 0; method < 3; ++method) {
        sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = method == 2 ? dq : NULL,
                              .palette_count = joints, .normals = m.nrm,
                              .normal_mode = method == 0 ? SINEW_NORMALS_FAST : SINEW_NORMALS_INVERSE_TRANSPOSE};
        run(&job, SINEW_SIMD_SCALAR, NULL, want, NULL);
        run(&job, level, NULL, got, NULL);
        double worst = 0.0;
        int nonzero = 0;
        for (int v = 0; v < vertices; ++v) {
            const float *a = want + 3 * v, *b = got + 3 * v;
            double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
            if (la == 0.0) continue; /* the zero normal */
            ++nonzero;
            double lb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
            double e = fabs(lb - 1.0), r[3], terms;
            for (int c = 0; c < 3; ++c) e = fmax(e, fabs((double)a[c] - (double)b[c]));
            blended_normal(s, pal, m.nrm + 3 * v, v, method == 1, r, &terms);
            double len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            e /= 1e-5 + 4.0 * FLT_TRUE_MIN / len2; /* 1 at the bound */
            if (!(e <= worst)) worst = e;
        }
        CHECK(nonzero > vertices / 2 && worst <= 1.0, "tiny normals, %s at %s: worst %.3g of the bound, %d normals",
              method == 0 ? "LBS fast" : method == 1 ? "LBS inverse transpose" : "DQS", sinew_simd_name(level), worst,
              nonzero);
    }
    free(want), free(got);
    free_fixture(&f);
}

/* Influence i of vertex v: its skin joint and whether its weight is above 0. */
static int influence_joint(const sinew_skin *s, int v, int i)
{
    size_t at = (size_t)v * (size_t)s->influence_count + (size_t)i;
    return s->index_type == SINEW_INDEX_U8 ? ((const uint8_t *)s->indices)[at] : ((const uint16_t *)s->indices)[at];
}
static bool influence_weighs(const sinew_skin *s, int v, int i)
{
    size_t at = (size_t)v * (size_t)s->influence_count + (size_t)i;
    switch (s->weight_type) {
    case SINEW_WEIGHT_F32: return ((const float *)s->weights)[at] > 0.0f;
    case SINEW_WEIGHT_UNORM8: return ((const uint8_t *)s->weights)[at] > 0;
    default: return ((const uint16_t *)s->weights)[at] > 0;
    }
}

/* A pose with NaN, infinity and huge values through the whole chain (local
 * to model, palettes, LBS at every level, DQS, sinew_mesh_pose both ways):
 * every call returns, nothing crashes or trips the sanitizers, and at the
 * scalar level vertices on healthy joints only stay finite. */
static void test_nan_pose(void)
{
    sinew_error err;
    sinew_asset *a = sinew_demo_create(NULL, &err);
    CHECK(a != NULL, "demo: %s", err.description);
    if (!a) return;
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *me = &a->meshes[0];
    const sinew_skin *skin = me->skin;
    int n = sk->joint_count, nv = me->vertex_count, np = skin->joint_count;
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n), *pal = malloc(sizeof *pal * (size_t)np);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)np);
    float *pos = malloc(sizeof(float) * 3 * (size_t)nv), *nrm = malloc(sizeof(float) * 3 * (size_t)nv);
    size_t scratch_size = sinew_mesh_pose_scratch_size(me);
    void *scratch = malloc(scratch_size); /* 16-byte aligned by every 64-bit malloc, as it must be */
    bool *bad = calloc((size_t)np, sizeof *bad);
    if (!local || !model || !pal || !dq || !pos || !nrm || !scratch || !bad) goto done;
    int broken = n - 1; /* a leaf: its NaN reaches only its own vertices */
    static const float poisons[3] = {NAN, INFINITY, 3e38f};
    for (int p = 0; p < 3; ++p) {
        sinew_clip_sample(a->clips[0], sk, 0.3f, 0, NULL, local, n, NULL);
        local[broken].rotation.y = poisons[p];
        local[broken].translation.x = poisons[p];
        local[broken].scale.z = poisons[p];
        CHECK(sinew_local_to_model(sk, local, NULL, model, n, &err) == SINEW_OK, "local to model: %s",
              err.description);
        CHECK(sinew_skin_palette(skin, model, n, NULL, pal, np, &err) == SINEW_OK, "palette: %s", err.description);
        sinew_dq_palette(pal, np, dq, NULL); /* may refuse a singular matrix: never crash */
        for (int j = 0; j < np; ++j) bad[j] = skin->joints[j] == broken;
        for (int level = SINEW_SIMD_SCALAR; level <= (int)sinew_simd_supported(); ++level) {
            sinew_skin_job job = {.skin = skin, .palette = pal, .dq_palette = dq, .palette_count = np,
                                  .positions = me->positions, .normals = me->normals, .out_positions = pos,
                                  .out_normals = nrm, .simd = (sinew_simd)level};
            CHECK(sinew_skin_lbs(&job, &err) == SINEW_OK, "LBS with a poisoned pose: %s", err.description);
            if (level == SINEW_SIMD_SCALAR) {
                int spoiled = 0;
                for (int v = 0; v < nv; ++v) {
                    bool touches = false;
                    for (int i = 0; i < skin->influence_count; ++i) {
                        touches |= influence_weighs(skin, v, i) && bad[influence_joint(skin, v, i)];
                    }
                    if (!touches && !(isfinite(pos[3 * v]) && isfinite(pos[3 * v + 1]) && isfinite(pos[3 * v + 2])))
                        ++spoiled;
                }
                CHECK(spoiled == 0, "poison %g: %d vertices away from the broken joint are not finite",
                      (double)poisons[p], spoiled);
            }
        }
        sinew_skin_dqs(&(sinew_skin_job){.skin = skin, .dq_palette = dq, .palette_count = np,
                                         .positions = me->positions, .normals = me->normals,
                                         .out_positions = pos, .out_normals = nrm}, NULL);
        for (int method = 0; method < 2; ++method)
            sinew_mesh_pose(me, model, n, NULL, (sinew_skinning)method, scratch, scratch_size, pos, nrm, NULL, NULL);
    }
done:
    free(local), free(model), free(pal), free(dq), free(pos), free(nrm), free(scratch), free(bad);
    sinew_asset_free(a);
}

/* ---- real characters -------------------------------------------------------- */

static void test_asset(const sinew_asset *a, const char *name, sinew_simd level)
{
    const sinew_skeleton *sk = a->skeleton;
    int nj = sk->joint_count;
    sinew_transform *local = malloc(sizeof(sinew_transform) * (size_t)nj);
    sinew_mat4 *model = malloc(sizeof(sinew_mat4) * (size_t)nj);
    for (int t = 0; t < 3; ++t) {
        if (a->clip_count > 0) {
            const sinew_clip *clip = a->clips[0];
            sinew_clip_sample(clip, sk, clip->duration * (float)t / 3.0f, SINEW_SAMPLE_CLAMP, NULL, local, nj, NULL);
        } else {
            memcpy(local, sk->rest_pose, sizeof(sinew_transform) * (size_t)nj);
        }
        sinew_local_to_model(sk, local, NULL, model, nj, NULL);
        for (int i = 0; i < a->mesh_count; ++i) {
            const sinew_mesh *mesh_ = &a->meshes[i];
            if (!mesh_->skin) continue;
            const sinew_skin *s = mesh_->skin;
            sinew_mat4 *pal = malloc(sizeof(sinew_mat4) * (size_t)s->joint_count);
            sinew_skin_palette(s, model, nj, NULL, pal, s->joint_count, NULL);
            char where[96];
            snprintf(where, sizeof where, "%s frame %d", name, t);
            check_palette(s, model, pal, where);
            for (int mode = SINEW_NORMALS_FAST; mode <= SINEW_NORMALS_INVERSE_TRANSPOSE; ++mode)
                for (int raw = 0; raw < 2; ++raw) {
                    sinew_skin_job job = {.skin = s, .palette = pal, .palette_count = s->joint_count,
                                          .normal_mode = (sinew_normal_mode)mode, .skip_renormalize = raw,
                                          .positions = mesh_->positions, .normals = mesh_->normals};
                    char what[160];
                    snprintf(what, sizeof what, "%s mesh %d, frame %d, normals %d%s", name, i, t, mode,
                             raw ? ", not renormalized" : "");
                    compare c = compare_levels(&job, level, false);
                    check_compare(c, what, level);
                    CHECK(c.differs || mesh_->vertex_count < 64, "%s at %s: bit for bit the scalar result: no SIMD ran?",
                          what, sinew_simd_name(level));
                    if (t == 1) check_prepared(&job, level, what);
                }
            free(pal);
        }
    }
    free(local), free(model);
}

#if defined(SINEW_TEST_FILES)
static void test_file(const char *path, sinew_simd level)
{
    sinew_asset *a = test_load_shared(path);
    if (!a) return;
    test_asset(a, path, level);
    sinew_asset_free(a);
}
#endif

int main(void)
{
    test_nan_pose();
    {
        sinew_asset *demo = sinew_demo_create(NULL, NULL);
        test_not_renormalized(demo->skeleton);
        test_noisy_inverse_bind(demo->skeleton);
        test_inputs_refusals(demo->skeleton);
        sinew_asset_free(demo);
    }
    sinew_simd best = sinew_simd_supported();
    printf("test_skin_simd: this CPU runs %s\n", sinew_simd_name(best));
    CHECK(strcmp(sinew_simd_name(SINEW_SIMD_AVX2), "avx2") == 0, "names");
    /* an unknown level is refused */
    {
        sinew_error err = {0};
        sinew_skin_job job = {.simd = (sinew_simd)9};
        sinew_asset *demo = sinew_demo_create(NULL, NULL);
        job.skin = demo->meshes[0].skin;
        job.palette = (const sinew_mat4 *)demo->meshes; /* not read: validation fails first */
        job.palette_count = job.skin->joint_count;
        CHECK(sinew_skin_job_validate(&job, false, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
                  strstr(err.description, "simd") != NULL,
              "unknown simd level: %s", err.description);
        sinew_asset_free(demo);
    }
    int ran = 0;
    /* the levels whose kernels this architecture has */
#if defined(__aarch64__)
    static const sinew_simd levels[] = {SINEW_SIMD_NEON};
#else
    static const sinew_simd levels[] = {SINEW_SIMD_AVX2, SINEW_SIMD_AVX512};
#endif
    for (size_t li = 0; li < sizeof levels / sizeof *levels; ++li) {
        int level = (int)levels[li];
        if (level > (int)best) {
            printf("skip: %s kernels: this CPU does not run them\n", sinew_simd_name((sinew_simd)level));
            continue;
        }
        ++ran;
        sinew_asset *demo = sinew_demo_create(NULL, NULL);
        test_random(demo->skeleton, (sinew_simd)level);
        test_strides_and_alias(demo->skeleton, (sinew_simd)level);
        test_one_joint_blocks(demo->skeleton, (sinew_simd)level);
        test_nan(demo->skeleton, (sinew_simd)level);
        test_tiny_normals(demo->skeleton, (sinew_simd)level);
        test_asset(demo, "built-in character", (sinew_simd)level);
        sinew_asset_free(demo);
#if defined(SINEW_TEST_FILES)
        test_file(SINEW_ASSETS "/gltf/cesium_man.gltf", (sinew_simd)level);
        test_file(SINEW_ASSETS "/fbx/pab/arnaud.fbx", (sinew_simd)level);
#else
        printf("skip: files not skinned: a build without the loaders\n");
#endif
    }
    if (!ran) printf("skip: no SIMD level to compare on this CPU (scalar only)\n");
    return check_finish("test_skin_simd");
}
