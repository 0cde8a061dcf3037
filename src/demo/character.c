/* SPDX-License-Identifier: MIT */
/* The built-in demo character, made in code: a 26-joint humanoid whose body
 * is a set of tubes swept along its bones, smooth-weighted, with a walk and
 * an idle clip and a ponytail on spring bones. Deterministic, no files. */
#include "asset/asset_internal.h"

#define PI_F 3.14159265358979f
#define DEG (PI_F / 180.0f)

enum {
    ROOT, HIPS, SPINE, CHEST, NECK, HEAD,
    CLAVICLE_L, UPPERARM_L, FOREARM_L, HAND_L,
    CLAVICLE_R, UPPERARM_R, FOREARM_R, HAND_R,
    THIGH_L, SHIN_L, FOOT_L, TOE_L,
    THIGH_R, SHIN_R, FOOT_R, TOE_R,
    /* last, so that the body's joints keep their indices in old archives */
    PONY_0, PONY_1, PONY_2, PONY_3,
    JOINT_COUNT
};

static const struct {
    const char *name;
    int parent;
    float t[3];
} joint_table[JOINT_COUNT] = {
    {"root", -1, {0, 0, 0}},
    {"hips", ROOT, {0, 0.95f, 0}},
    {"spine", HIPS, {0, 0.12f, 0}},
    {"chest", SPINE, {0, 0.20f, 0}},
    {"neck", CHEST, {0, 0.22f, 0}},
    {"head", NECK, {0, 0.10f, 0}},
    {"clavicle_l", CHEST, {0.04f, 0.17f, 0}},
    {"upperarm_l", CLAVICLE_L, {0.14f, 0, 0}},
    {"forearm_l", UPPERARM_L, {0.28f, 0, 0}},
    {"hand_l", FOREARM_L, {0.25f, 0, 0}},
    {"clavicle_r", CHEST, {-0.04f, 0.17f, 0}},
    {"upperarm_r", CLAVICLE_R, {-0.14f, 0, 0}},
    {"forearm_r", UPPERARM_R, {-0.28f, 0, 0}},
    {"hand_r", FOREARM_R, {-0.25f, 0, 0}},
    {"thigh_l", HIPS, {0.09f, -0.05f, 0}},
    {"shin_l", THIGH_L, {0, -0.42f, 0}},
    {"foot_l", SHIN_L, {0, -0.42f, 0}},
    {"toe_l", FOOT_L, {0, -0.04f, 0.13f}},
    {"thigh_r", HIPS, {-0.09f, -0.05f, 0}},
    {"shin_r", THIGH_R, {0, -0.42f, 0}},
    {"foot_r", SHIN_R, {0, -0.42f, 0}},
    {"toe_r", FOOT_R, {0, -0.04f, 0.13f}},
    {"ponytail_0", HEAD, {0, 0.13f, -0.075f}},
    {"ponytail_1", PONY_0, {0, -0.08f, -0.05f}},
    {"ponytail_2", PONY_1, {0, -0.09f, -0.02f}},
    {"ponytail_3", PONY_2, {0, -0.09f, 0}},
};

/* The A-pose: arms 40 degrees below horizontal, a slight outward tilt of the
 * legs, so that rest rotations are not all the identity. */
static sinew_quat rest_rotation(int j)
{
    switch (j) {
    case UPPERARM_L: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), -40 * DEG);
    case UPPERARM_R: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 40 * DEG);
    case THIGH_L: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 2 * DEG);
    case THIGH_R: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), -2 * DEG);
    case FOOT_L: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), -2 * DEG);
    case FOOT_R: return sinew_quat_from_axis_angle(sinew_vec3_make(0, 0, 1), 2 * DEG);
    default: return sinew_quat_identity();
    }
}

static sinew_quat axis_deg(float x, float y, float z, float degrees)
{
    return sinew_quat_from_axis_angle(sinew_vec3_make(x, y, z), degrees * DEG);
}

/* ---- mesh: tubes swept along bones ------------------------------------- */

typedef struct station {
    int owner;        /* joint whose bone starts here; -1 at the last station */
    sinew_vec3 pos;   /* model space, rest pose */
    float radius;
} station;

typedef struct part {
    station st[8];
    int count;
    int segments;     /* vertices around a ring */
    float ex, ey;     /* ellipse factors of the cross-section */
} part;

typedef struct mesh_builder {
    float *pos, *nrm, *tan, *uv;
    uint8_t *idx;
    float *w;
    uint32_t *tri;
    int vertex_count, vertex_cap;
    int index_count, index_cap;
} mesh_builder;

#define RING_SPACING 0.02f
#define CAP_RINGS 4
#define INFLUENCES 4

/* Smooth weights along the part at arc length s: one bell curve per bone,
 * 1 / (1 + d^4) with d the distance from the centre of the bone's stretch in
 * half bone lengths (flat near the centre, 1/2 at the joints, a tail that
 * reaches the next bones), normalized, under 0.4% dropped, at most INFLUENCES
 * kept. */
static void ring_weights(const part *p, const float *arc, float s, int *out_idx, float *out_w)
{
    int bones[8];
    float g[8];
    int nb = 0;
    for (int i = 0; i < p->count - 1;) {
        int owner = p->st[i].owner;
        int k = i;
        while (k < p->count - 1 && p->st[k].owner == owner) ++k;
        float a = arc[i], b = arc[k], len = b - a;
        float sigma = fmaxf(0.5f * len, 0.02f);
        float d = (s - 0.5f * (a + b)) / sigma;
        bones[nb] = owner;
        g[nb] = 1.0f / (1.0f + d * d * d * d);
        ++nb;
        i = k;
    }
    for (int i = 0; i < INFLUENCES; ++i) out_idx[i] = 0, out_w[i] = 0.0f;
    /* pick the largest INFLUENCES */
    float total = 0.0f;
    for (int n = 0; n < INFLUENCES; ++n) {
        int best = -1;
        for (int i = 0; i < nb; ++i)
            if (g[i] > 0.0f && (best < 0 || g[i] > g[best])) best = i;
        if (best < 0) break;
        out_idx[n] = bones[best];
        out_w[n] = g[best];
        total += g[best];
        g[best] = -1.0f;
    }
    float kept = 0.0f;
    for (int n = 0; n < INFLUENCES; ++n) {
        if (out_w[n] < 0.004f * total) out_w[n] = 0.0f, out_idx[n] = 0;
        kept += out_w[n];
    }
    for (int n = 0; n < INFLUENCES; ++n) out_w[n] /= kept;
}

static sinew_vec3 part_point(const part *p, const float *arc, float s)
{
    if (s <= 0.0f) return p->st[0].pos;
    for (int i = 0; i < p->count - 1; ++i) {
        if (s <= arc[i + 1]) {
            float f = (s - arc[i]) / (arc[i + 1] - arc[i]);
            return sinew_vec3_lerp(p->st[i].pos, p->st[i + 1].pos, f);
        }
    }
    return p->st[p->count - 1].pos;
}

/* Radius at s and its slope dr/ds. */
static float part_radius(const part *p, const float *arc, float s, float *slope)
{
    int i = 0;
    while (i < p->count - 2 && s > arc[i + 1]) ++i;
    float len = arc[i + 1] - arc[i];
    float f = (s - arc[i]) / len;
    f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
    *slope = (p->st[i + 1].radius - p->st[i].radius) / len;
    return p->st[i].radius + (p->st[i + 1].radius - p->st[i].radius) * f;
}

static int add_vertex(mesh_builder *mb, sinew_vec3 pos, sinew_vec3 n, sinew_vec3 t, float u, float v,
                      const int *idx, const float *w)
{
    int i = mb->vertex_count++;
    mb->pos[i * 3 + 0] = pos.x, mb->pos[i * 3 + 1] = pos.y, mb->pos[i * 3 + 2] = pos.z;
    n = sinew_vec3_normalize(n);
    /* tangent: orthogonal to the normal; bitangent sign from the v direction */
    t = sinew_vec3_normalize(sinew_vec3_sub(t, sinew_vec3_scale(n, sinew_vec3_dot(n, t))));
    mb->nrm[i * 3 + 0] = n.x, mb->nrm[i * 3 + 1] = n.y, mb->nrm[i * 3 + 2] = n.z;
    mb->tan[i * 4 + 0] = t.x, mb->tan[i * 4 + 1] = t.y, mb->tan[i * 4 + 2] = t.z, mb->tan[i * 4 + 3] = 1.0f;
    mb->uv[i * 2 + 0] = u, mb->uv[i * 2 + 1] = v;
    for (int k = 0; k < INFLUENCES; ++k) {
        mb->idx[i * INFLUENCES + k] = (uint8_t)idx[k];
        mb->w[i * INFLUENCES + k] = w[k];
    }
    return i;
}

static void add_tri(mesh_builder *mb, int a, int b, int c)
{
    mb->tri[mb->index_count++] = (uint32_t)a;
    mb->tri[mb->index_count++] = (uint32_t)b;
    mb->tri[mb->index_count++] = (uint32_t)c;
}

/* One ring of `segments + 1` vertices (the seam is duplicated for texture
 * coordinates). Returns the first vertex. */
static int add_ring(mesh_builder *mb, const part *p, sinew_vec3 c, sinew_vec3 T, sinew_vec3 U, float r,
                    float tilt, float v, const int *idx, const float *w)
{
    sinew_vec3 V = sinew_vec3_cross(T, U);
    int first = mb->vertex_count;
    for (int j = 0; j <= p->segments; ++j) {
        float th = 2.0f * PI_F * (float)(j % p->segments) / (float)p->segments;
        float ct = cosf(th), st = sinf(th);
        sinew_vec3 off = sinew_vec3_add(sinew_vec3_scale(U, r * p->ex * ct), sinew_vec3_scale(V, r * p->ey * st));
        sinew_vec3 in_plane = sinew_vec3_normalize(
            sinew_vec3_add(sinew_vec3_scale(U, p->ey * ct), sinew_vec3_scale(V, p->ex * st)));
        sinew_vec3 n = sinew_vec3_add(in_plane, sinew_vec3_scale(T, tilt));
        sinew_vec3 t = sinew_vec3_add(sinew_vec3_scale(U, -p->ex * st), sinew_vec3_scale(V, p->ey * ct));
        add_vertex(mb, sinew_vec3_add(c, off), n, t, (float)j / (float)p->segments, v, idx, w);
    }
    return first;
}

static void connect_rings(mesh_builder *mb, int a, int b, int segments)
{
    for (int j = 0; j < segments; ++j) {
        add_tri(mb, a + j, a + j + 1, b + j);
        add_tri(mb, a + j + 1, b + j + 1, b + j);
    }
}

static sinew_vec3 perpendicular(sinew_vec3 T, sinew_vec3 hint)
{
    sinew_vec3 u = sinew_vec3_sub(hint, sinew_vec3_scale(T, sinew_vec3_dot(T, hint)));
    if (sinew_vec3_length(u) < 1e-3f) {
        sinew_vec3 other = fabsf(T.z) < 0.9f ? sinew_vec3_make(0, 0, 1) : sinew_vec3_make(1, 0, 0);
        u = sinew_vec3_sub(other, sinew_vec3_scale(T, sinew_vec3_dot(T, other)));
    }
    return sinew_vec3_normalize(u);
}

/* A closed tube: hemispherical caps at both ends, rings every RING_SPACING,
 * frames carried along by parallel transport. */
static void build_part(mesh_builder *mb, const part *p)
{
    float arc[8];
    arc[0] = 0.0f;
    for (int i = 1; i < p->count; ++i)
        arc[i] = arc[i - 1] + sinew_vec3_length(sinew_vec3_sub(p->st[i].pos, p->st[i - 1].pos));
    float L = arc[p->count - 1];
    int rings = (int)ceilf(L / RING_SPACING) + 1;
    float r0 = p->st[0].radius, r1 = p->st[p->count - 1].radius;
    float v_total = L + r0 + r1;

    int idx[INFLUENCES];
    float w[INFLUENCES];
    const float smooth = 0.04f; /* tangent from points this far either side */

    sinew_vec3 T0 = sinew_vec3_normalize(sinew_vec3_sub(part_point(p, arc, smooth), part_point(p, arc, 0.0f)));
    sinew_vec3 U = perpendicular(T0, sinew_vec3_make(1, 0, 0));

    /* start cap: pole, then rings from the pole towards the body */
    ring_weights(p, arc, 0.0f, idx, w);
    sinew_vec3 pole = sinew_vec3_sub(p->st[0].pos, sinew_vec3_scale(T0, r0));
    int pole_start = add_vertex(mb, pole, sinew_vec3_scale(T0, -1.0f), U, 0.5f, 0.0f, idx, w);
    int prev = -1;
    for (int k = CAP_RINGS; k >= 1; --k) {
        float alpha = (float)k / (float)(CAP_RINGS + 1) * 0.5f * PI_F;
        sinew_vec3 c = sinew_vec3_sub(p->st[0].pos, sinew_vec3_scale(T0, r0 * sinf(alpha)));
        float v = (r0 - r0 * sinf(alpha)) / v_total;
        /* sphere normal: cos(alpha) radial - sin(alpha) T, as tilt / cos */
        int ring = add_ring(mb, p, c, T0, U, r0 * cosf(alpha), -tanf(alpha), v, idx, w);
        if (prev < 0) {
            for (int j = 0; j < p->segments; ++j) add_tri(mb, pole_start, ring + j + 1, ring + j);
        } else {
            connect_rings(mb, prev, ring, p->segments);
        }
        prev = ring;
    }
    /* body */
    sinew_vec3 T = T0;
    for (int i = 0; i < rings; ++i) {
        float s = L * (float)i / (float)(rings - 1);
        sinew_vec3 c = part_point(p, arc, s);
        float sa = fmaxf(s - smooth, 0.0f), sb = fminf(s + smooth, L);
        T = sinew_vec3_normalize(sinew_vec3_sub(part_point(p, arc, sb), part_point(p, arc, sa)));
        U = perpendicular(T, U);
        float slope;
        float r = part_radius(p, arc, s, &slope);
        ring_weights(p, arc, s, idx, w);
        int ring = add_ring(mb, p, c, T, U, r, -slope, (r0 + s) / v_total, idx, w);
        connect_rings(mb, prev, ring, p->segments);
        prev = ring;
    }
    /* end cap */
    ring_weights(p, arc, L, idx, w);
    sinew_vec3 end = p->st[p->count - 1].pos;
    for (int k = 1; k <= CAP_RINGS; ++k) {
        float alpha = (float)k / (float)(CAP_RINGS + 1) * 0.5f * PI_F;
        sinew_vec3 c = sinew_vec3_add(end, sinew_vec3_scale(T, r1 * sinf(alpha)));
        float v = (r0 + L + r1 * sinf(alpha)) / v_total;
        int ring = add_ring(mb, p, c, T, U, r1 * cosf(alpha), tanf(alpha), v, idx, w);
        connect_rings(mb, prev, ring, p->segments);
        prev = ring;
    }
    int pole_end = add_vertex(mb, sinew_vec3_add(end, sinew_vec3_scale(T, r1)), T, U, 0.5f, 1.0f, idx, w);
    for (int j = 0; j < p->segments; ++j) add_tri(mb, prev + j, prev + j + 1, pole_end);
}

static int part_vertex_bound(const part *p)
{
    float L = 0.0f;
    for (int i = 1; i < p->count; ++i) L += sinew_vec3_length(sinew_vec3_sub(p->st[i].pos, p->st[i - 1].pos));
    int rings = (int)ceilf(L / RING_SPACING) + 1 + 2 * CAP_RINGS;
    return rings * (p->segments + 1) + 2;
}

static int define_parts(const sinew_mat4 *model, part *parts)
{
#define P(j) sinew_vec3_make(model[j].m[12], model[j].m[13], model[j].m[14])
#define AT(j, dx, dy, dz) sinew_vec3_add(P(j), sinew_vec3_make(dx, dy, dz))
    int n = 0;
    parts[n++] = (part){{{HIPS, AT(HIPS, 0, -0.10f, 0), 0.10f},
                         {HIPS, P(HIPS), 0.15f},
                         {SPINE, P(SPINE), 0.13f},
                         {CHEST, P(CHEST), 0.145f},
                         {CHEST, AT(CHEST, 0, 0.15f, 0), 0.16f},
                         {NECK, P(NECK), 0.055f},
                         {HEAD, AT(HEAD, 0, 0.04f, 0.01f), 0.09f},
                         {-1, AT(HEAD, 0, 0.14f, 0.01f), 0.10f}},
                        8, 24, 1.25f, 0.8f};
    for (int side = 0; side < 2; ++side) {
        int clav = side ? CLAVICLE_R : CLAVICLE_L, up = clav + 1, fore = clav + 2, hand = clav + 3;
        sinew_vec3 dir = sinew_vec3_normalize(sinew_vec3_sub(P(hand), P(fore)));
        /* the shoulder starts inside the chest, so the chest shares it */
        sinew_vec3 inward = sinew_vec3_make(side ? 0.05f : -0.05f, -0.01f, 0.0f);
        parts[n++] = (part){{{CHEST, sinew_vec3_add(P(clav), inward), 0.05f},
                             {clav, P(clav), 0.05f},
                             {up, P(up), 0.05f},
                             {fore, P(fore), 0.042f},
                             {hand, P(hand), 0.033f},
                             {-1, sinew_vec3_add(P(hand), sinew_vec3_scale(dir, 0.15f)), 0.028f}},
                            6, 14, 1.0f, 0.85f};
        int thigh = side ? THIGH_R : THIGH_L, shin = thigh + 1, foot = thigh + 2, toe = thigh + 3;
        parts[n++] = (part){{{HIPS, AT(thigh, 0, 0.06f, 0), 0.085f},
                             {thigh, P(thigh), 0.083f},
                             {shin, P(shin), 0.055f},
                             {-1, AT(foot, 0, 0.02f, 0), 0.042f}},
                            4, 18, 1.0f, 1.0f};
        parts[n++] = (part){{{foot, AT(foot, 0, -0.02f, -0.06f), 0.035f},
                             {toe, P(toe), 0.042f},
                             {-1, AT(toe, 0, -0.005f, 0.07f), 0.03f}},
                            3, 14, 1.3f, 0.7f};
    }
    /* the ponytail: its root inside the back of the head, so the head's
     * skin covers where it starts */
    parts[n++] = (part){{{PONY_0, AT(PONY_0, 0, 0.01f, 0.03f), 0.035f},
                         {PONY_0, P(PONY_0), 0.038f},
                         {PONY_1, P(PONY_1), 0.032f},
                         {PONY_2, P(PONY_2), 0.024f},
                         {-1, P(PONY_3), 0.014f}},
                        5, 12, 1.2f, 0.9f};
#undef AT
#undef P
    return n;
}

/* ---- clips ----------------------------------------------------------------- */

typedef struct track_data {
    int joint;
    sinew_track_target target;
    sinew_interpolation interp;
    int key_count;
    float times[40];
    float values[40 * 12];
} track_data;

static void put(track_data *t, int key, const float *v)
{
    int c = t->target == SINEW_TARGET_ROTATION ? 4 : 3;
    memcpy(&t->values[key * c], v, sizeof(float) * (size_t)c);
}

static void put_q(track_data *t, int key, sinew_quat q)
{
    float v[4] = {q.x, q.y, q.z, q.w};
    put(t, key, v);
}

/* Turns keys written with put() into CUBICSPLINE layout with tangents from
 * central differences (zero at both ends, so a cycle joins smoothly). */
static void make_cubic(track_data *t)
{
    int c = t->target == SINEW_TARGET_ROTATION ? 4 : 3, n = t->key_count;
    float v[40 * 4];
    memcpy(v, t->values, sizeof(float) * (size_t)(n * c));
    if (c == 4) /* neighbours on the same hemisphere */
        for (int k = 1; k < n; ++k) {
            float d = 0;
            for (int i = 0; i < 4; ++i) d += v[k * 4 + i] * v[(k - 1) * 4 + i];
            if (d < 0)
                for (int i = 0; i < 4; ++i) v[k * 4 + i] = -v[k * 4 + i];
        }
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < c; ++i) {
            float m = 0.0f;
            if (k > 0 && k < n - 1)
                m = (v[(k + 1) * c + i] - v[(k - 1) * c + i]) / (t->times[k + 1] - t->times[k - 1]);
            t->values[(k * 3 + 0) * c + i] = m;
            t->values[(k * 3 + 1) * c + i] = v[k * c + i];
            t->values[(k * 3 + 2) * c + i] = m;
        }
    }
    t->interp = SINEW_INTERP_CUBICSPLINE;
}

static sinew_clip *make_clip(const char *name, float duration, track_data *td, int count,
                             const sinew_options *options, sinew_error *err)
{
    sinew_track tracks[24];
    for (int i = 0; i < count; ++i)
        tracks[i] = (sinew_track){td[i].joint, td[i].target, td[i].interp, td[i].key_count, td[i].times,
                                  td[i].values, 0};
    sinew_clip_desc d = {.name = name, .joint_count = JOINT_COUNT,
        .duration = duration, .track_count = count, .tracks = tracks};
    return sinew_clip_create(&d, options, err);
}

#define WALK_KEYS 31

static sinew_clip *make_walk(const sinew_options *options, sinew_error *err)
{
    sinew_allocator alloc = sinew__allocator(options);
    static const int rot_joints[] = {HIPS, SPINE, CHEST, THIGH_L, THIGH_R, SHIN_L, SHIN_R,
                                     FOOT_L, FOOT_R, UPPERARM_L, UPPERARM_R, FOREARM_L, FOREARM_R};
    enum { NROT = sizeof rot_joints / sizeof rot_joints[0] };
    track_data *td = sinew__alloc(&alloc, (NROT + 2) * sizeof *td);
    if (!td) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_demo_create: out of memory");
        return NULL;
    }
    track_data *root = &td[0], *hips_t = &td[1];
    *root = (track_data){ROOT, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 2, {0.0f, 1.0f}, {0}};
    root->values[5] = 1.3f; /* forward 1.3 m per cycle */
    *hips_t = (track_data){HIPS, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, WALK_KEYS, {0}, {0}};
    for (int r = 0; r < NROT; ++r)
        td[2 + r] = (track_data){rot_joints[r], SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, WALK_KEYS, {0}, {0}};

    for (int k = 0; k < WALK_KEYS; ++k) {
        float t = (float)k / (float)(WALK_KEYS - 1);
        /* the last key repeats the first exactly, so the cycle closes */
        float ph = 2.0f * PI_F * (float)(k % (WALK_KEYS - 1)) / (float)(WALK_KEYS - 1);
        float s = sinf(ph), c = cosf(ph);
        float hips[3] = {0.02f * s, 0.95f + 0.02f * cosf(2.0f * ph), 0.0f};
        hips_t->times[k] = t;
        put(hips_t, k, hips);
        float swing = 25.0f * s;
        float knee_l = 5.0f + 45.0f * fmaxf(0.0f, c) * fmaxf(0.0f, c);
        float knee_r = 5.0f + 45.0f * fmaxf(0.0f, -c) * fmaxf(0.0f, -c);
        sinew_quat q[NROT] = {
            axis_deg(0, 1, 0, 5.0f * s),
            sinew_quat_mul(axis_deg(0, 1, 0, -3.0f * s), axis_deg(1, 0, 0, 3.0f)),
            axis_deg(0, 1, 0, -4.0f * s),
            sinew_quat_mul(axis_deg(1, 0, 0, -swing), rest_rotation(THIGH_L)),
            sinew_quat_mul(axis_deg(1, 0, 0, swing), rest_rotation(THIGH_R)),
            axis_deg(1, 0, 0, knee_l),
            axis_deg(1, 0, 0, knee_r),
            sinew_quat_mul(axis_deg(1, 0, 0, -0.7f * (-swing + knee_l)), rest_rotation(FOOT_L)),
            sinew_quat_mul(axis_deg(1, 0, 0, -0.7f * (swing + knee_r)), rest_rotation(FOOT_R)),
            sinew_quat_mul(axis_deg(1, 0, 0, 20.0f * s), rest_rotation(UPPERARM_L)),
            sinew_quat_mul(axis_deg(1, 0, 0, -20.0f * s), rest_rotation(UPPERARM_R)),
            axis_deg(0, 1, 0, -(20.0f + 15.0f * (0.5f - 0.5f * s))),
            axis_deg(0, 1, 0, 20.0f + 15.0f * (0.5f + 0.5f * s)),
        };
        for (int r = 0; r < NROT; ++r) {
            td[2 + r].times[k] = t;
            put_q(&td[2 + r], k, q[r]);
        }
    }
    sinew_clip *clip = make_clip("walk", 1.0f, td, NROT + 2, options, err);
    sinew__free(&alloc, td);
    return clip;
}

static sinew_clip *make_idle(const sinew_options *options, sinew_error *err)
{
    static const float times[4] = {0.0f, 0.8f, 1.9f, 3.0f};
    sinew_allocator alloc = sinew__allocator(options);
    track_data *td = sinew__alloc(&alloc, 6 * sizeof *td);
    if (!td) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_demo_create: out of memory");
        return NULL;
    }
    static const float hips[4][3] = {{0, 0.95f, 0}, {0.015f, 0.945f, 0}, {-0.01f, 0.948f, 0}, {0, 0.95f, 0}};
    static const float chest[4][3] = {{1, 1, 1}, {1.04f, 1.0f, 1.06f}, {1.015f, 1.0f, 1.02f}, {1, 1, 1}};
    static const float head_yaw[4] = {0, 15, -12, 0};
    static const float arm_drop[4] = {0, 4, 2, 0};
    td[0] = (track_data){HIPS, SINEW_TARGET_TRANSLATION, SINEW_INTERP_LINEAR, 4, {0}, {0}};
    td[1] = (track_data){CHEST, SINEW_TARGET_SCALE, SINEW_INTERP_LINEAR, 4, {0}, {0}};
    td[2] = (track_data){HEAD, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 4, {0}, {0}};
    td[3] = (track_data){UPPERARM_L, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 4, {0}, {0}};
    td[4] = (track_data){UPPERARM_R, SINEW_TARGET_ROTATION, SINEW_INTERP_LINEAR, 4, {0}, {0}};
    for (int k = 0; k < 4; ++k) {
        for (int i = 0; i < 5; ++i) td[i].times[k] = times[k];
        put(&td[0], k, hips[k]);
        put(&td[1], k, chest[k]);
        put_q(&td[2], k, sinew_quat_mul(axis_deg(0, 1, 0, head_yaw[k]), axis_deg(1, 0, 0, 0.3f * head_yaw[k])));
        put_q(&td[3], k, sinew_quat_mul(axis_deg(0, 0, 1, -arm_drop[k]), rest_rotation(UPPERARM_L)));
        put_q(&td[4], k, sinew_quat_mul(axis_deg(0, 0, 1, arm_drop[k]), rest_rotation(UPPERARM_R)));
    }
    for (int i = 0; i < 5; ++i) make_cubic(&td[i]);
    /* a gesture: the left hand flexes at 1.2 s and relaxes at 2.4 s, no easing */
    td[5] = (track_data){HAND_L, SINEW_TARGET_ROTATION, SINEW_INTERP_STEP, 3, {0.0f, 1.2f, 2.4f}, {0}};
    put_q(&td[5], 0, sinew_quat_identity());
    put_q(&td[5], 1, axis_deg(0, 1, 0, -25.0f));
    put_q(&td[5], 2, sinew_quat_identity());
    sinew_clip *clip = make_clip("idle", 3.0f, td, 6, options, err);
    sinew__free(&alloc, td);
    return clip;
}

/* ---- assembly --------------------------------------------------------------- */

static sinew_asset *fail_oom(sinew_asset *a, sinew_error *err)
{
    sinew_asset_free(a);
    sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_demo_create: out of memory");
    return NULL;
}

/* A function sinew_demo_create called failed: its sentence started with
 * sinew_demo_create. */
static sinew_asset *fail_in(sinew_asset *a, sinew_error *err)
{
    sinew_asset_free(a);
    sinew__error_lead(err, "sinew_demo_create");
    return NULL;
}

/* The ponytail's spring chain, hanging with gravity and kept off the
 * head and the upper back by a sphere each. */
static bool add_springs(sinew_asset *a)
{
    sinew_spring_joint *joints = sinew__asset_alloc(a, 4, sizeof *joints);
    sinew_spring_collider *colliders = sinew__asset_alloc(a, 2, sizeof *colliders);
    int *members = sinew__asset_alloc(a, 2, sizeof *members), *groups = sinew__asset_alloc(a, 1, sizeof *groups);
    sinew_spring_collider_group *group = sinew__asset_alloc(a, 1, sizeof *group);
    sinew_spring_chain *chain = sinew__asset_alloc(a, 1, sizeof *chain);
    sinew_springs_desc *desc = sinew__asset_alloc(a, 1, sizeof *desc);
    const char **names = sinew__asset_alloc(a, 1, sizeof *names);
    if (!joints || !colliders || !members || !groups || !group || !chain || !desc || !names) return false;
    for (int i = 0; i < 4; ++i) {
        joints[i] = sinew_spring_joint_default(PONY_0 + i);
        joints[i].hit_radius = 0.02f;
        joints[i].stiffness = 0.6f;
        joints[i].gravity_power = 0.6f;
        joints[i].drag_force = 0.2f;
    }
    colliders[0] = (sinew_spring_collider){HEAD, SINEW_COLLIDER_SPHERE, {0, 0.09f, 0.01f}, {0, 0, 0}, 0.1f};
    colliders[1] = (sinew_spring_collider){CHEST, SINEW_COLLIDER_SPHERE, {0, 0.1f, 0}, {0, 0, 0}, 0.12f};
    members[0] = 0, members[1] = 1, groups[0] = 0;
    *group = (sinew_spring_collider_group){members, 2};
    *chain = (sinew_spring_chain){joints, 4, groups, 1, -1};
    *desc = (sinew_springs_desc){colliders, 2, group, 1, chain, 1};
    names[0] = "ponytail";
    a->springs = desc;
    a->spring_names = names;
    return true;
}

sinew_asset *sinew_demo_create(const sinew_options *options, sinew_error *err)
{
    sinew__ok(err);
    sinew_asset *a = sinew__asset_new("sinew_demo", options);
    if (!a) return fail_oom(NULL, err);
    a->meters_per_unit = 1.0f; /* built in metres */

    int parents[JOINT_COUNT];
    const char *names[JOINT_COUNT];
    sinew_transform rest[JOINT_COUNT];
    for (int j = 0; j < JOINT_COUNT; ++j) {
        parents[j] = joint_table[j].parent;
        names[j] = joint_table[j].name;
        rest[j] = sinew_transform_identity();
        rest[j].translation = sinew_vec3_make(joint_table[j].t[0], joint_table[j].t[1], joint_table[j].t[2]);
        rest[j].rotation = rest_rotation(j);
    }
    sinew_skeleton_desc sd = {JOINT_COUNT, parents, names, rest};
    sinew_skeleton *sk = sinew_skeleton_create(&sd, NULL, options, err);
    if (!sk) return fail_in(a, err);
    a->skeleton = sk;

    sinew_clip **clips = sinew__asset_alloc(a, 2, sizeof *clips);
    if (!clips) return fail_oom(a, err);
    a->clips = (const sinew_clip *const *)clips;
    clips[0] = make_walk(options, err);
    if (!clips[0]) return fail_in(a, err);
    a->clip_count = 1;
    clips[1] = make_idle(options, err);
    if (!clips[1]) return fail_in(a, err);
    a->clip_count = 2;

    /* rest pose in model space places the tubes; it is also the bind pose */
    sinew_transform local[JOINT_COUNT];
    sinew_mat4 model[JOINT_COUNT], inverse_bind[JOINT_COUNT];
    sinew_rest_pose(sk, local, JOINT_COUNT, NULL);
    sinew_local_to_model(sk, local, NULL, model, JOINT_COUNT, NULL);
    for (int j = 0; j < JOINT_COUNT; ++j) sinew_mat4_inverse(&model[j], &inverse_bind[j]);

    part parts[16];
    int part_count = define_parts(model, parts);
    int vcap = 0;
    for (int i = 0; i < part_count; ++i) vcap += part_vertex_bound(&parts[i]);
    int icap = vcap * 6;

    mesh_builder mb = {0};
    mb.vertex_cap = vcap;
    mb.index_cap = icap;
    mb.pos = sinew__asset_alloc(a, (size_t)vcap * 3, sizeof(float));
    mb.nrm = sinew__asset_alloc(a, (size_t)vcap * 3, sizeof(float));
    mb.tan = sinew__asset_alloc(a, (size_t)vcap * 4, sizeof(float));
    mb.uv = sinew__asset_alloc(a, (size_t)vcap * 2, sizeof(float));
    mb.tri = sinew__asset_alloc(a, (size_t)icap, sizeof(uint32_t));
    sinew_allocator alloc = sinew__allocator(options);
    mb.idx = sinew__alloc(&alloc, (size_t)vcap * INFLUENCES);
    mb.w = sinew__alloc(&alloc, (size_t)vcap * INFLUENCES * sizeof(float));
    if (!mb.pos || !mb.nrm || !mb.tan || !mb.uv || !mb.tri || !mb.idx || !mb.w) {
        sinew__free(&alloc, mb.idx);
        sinew__free(&alloc, mb.w);
        return fail_oom(a, err);
    }
    for (int i = 0; i < part_count; ++i) build_part(&mb, &parts[i]);

    /* the skin's own joint list is the whole skeleton, in order */
    int skin_joints[JOINT_COUNT];
    for (int j = 0; j < JOINT_COUNT; ++j) skin_joints[j] = j;
    sinew_skin_desc kd = {JOINT_COUNT, skin_joints, NULL, inverse_bind, mb.vertex_count, INFLUENCES,
                          SINEW_INDEX_U8, mb.idx, SINEW_WEIGHT_F32, mb.w, false};
    sinew_skin *skin = sinew_skin_create(sk, &kd, options, NULL, err);
    sinew__free(&alloc, mb.idx);
    sinew__free(&alloc, mb.w);
    if (!skin) return fail_in(a, err);

    sinew_mesh *mesh = sinew__asset_alloc(a, 1, sizeof *mesh);
    const float **uv_sets = sinew__asset_alloc(a, 1, sizeof *uv_sets);
    if (!mesh || !uv_sets) {
        sinew_skin_free(skin);
        return fail_oom(a, err);
    }
    uv_sets[0] = mb.uv;
    *mesh = (sinew_mesh){.name = "body", .vertex_count = mb.vertex_count, .positions = mb.pos, .normals = mb.nrm,
                         .tangents = mb.tan, .texcoord_count = 1, .texcoords = uv_sets,
                         .index_count = mb.index_count, .indices = mb.tri, .skin = skin, .joint = -1,
                         .source_node = -1, .source_mesh = -1, .source_primitive = -1};
    a->meshes = mesh;
    a->mesh_count = 1;
    return add_springs(a) ? a : fail_oom(a, err);
}
