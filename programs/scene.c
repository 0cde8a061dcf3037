/* SPDX-License-Identifier: MIT */
/* A character drawn with OpenGL: the library's skinning shader with a lit
 * fragment stage and a weight heat map, a floor grid, the skeleton. */
#include "scene.h"

#include "cli.h"

#include "sinew/sinew_gpu.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shaders of the tool's own ------------------------------------------- */

/* After the library's text (SINEW_NO_MAIN): skin, turn upright, shade. */
static const char mesh_vertex_main[] =
    "uniform mat4 view_projection;\n"
    "uniform mat4 upright;\n"
    "uniform int highlight; // palette joint of the heat map; -1: none; -2: this mesh has none\n"
    "out vec3 v_world;\n"
    "out vec3 v_normal;\n"
    "out float v_weight;\n"
    "void main() {\n"
    "    sinew_vertex v = sinew_skin();\n"
    "    vec4 w = upright * vec4(v.position, 1.0);\n"
    "    v_world = w.xyz;\n"
    "    v_normal = mat3(upright) * v.normal;\n"
    "    v_weight = highlight >= 0 ? sinew_weight_of(uint(highlight)) : highlight == -1 ? -1.0 : 0.0;\n"
    "    gl_Position = view_projection * w;\n"
    "}\n";

static const char mesh_fragment[] =
    "#version 330 core\n"
    "in vec3 v_world;\n"
    "in vec3 v_normal;\n"
    "in float v_weight;\n"
    "uniform vec3 eye;\n"
    "out vec4 color;\n"
    "vec3 heat(float t) { // blue, cyan, green, yellow, red\n"
    "    t = clamp(t, 0.0, 1.0);\n"
    "    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)), 0.0, 1.0);\n"
    "}\n"
    "void main() {\n"
    "    vec3 n = normalize(v_normal);\n"
    "    if (!gl_FrontFacing) n = -n;\n"
    "    vec3 base = v_weight < 0.0 ? vec3(0.62, 0.60, 0.56) : heat(v_weight);\n"
    "    vec3 key = normalize(vec3(0.45, 0.8, 0.55)), fill = normalize(vec3(-0.6, 0.25, -0.5));\n"
    "    float diffuse = 0.8 * max(dot(n, key), 0.0) + 0.3 * max(dot(n, fill), 0.0);\n"
    "    float sky = 0.5 + 0.5 * n.y;\n"
    "    vec3 c = base * (0.18 + 0.22 * sky + diffuse);\n"
    "    vec3 h = normalize(key + normalize(eye - v_world));\n"
    "    c += 0.12 * pow(max(dot(n, h), 0.0), 40.0);\n"
    "    color = vec4(pow(c, vec3(1.0 / 2.2)), 1.0);\n"
    "}\n";

static const char plain_vertex[] =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "uniform mat4 view_projection;\n"
    "out vec3 v_world;\n"
    "void main() {\n"
    "    v_world = position;\n"
    "    gl_Position = view_projection * vec4(position, 1.0);\n"
    "    gl_PointSize = 6.0;\n"
    "}\n";

/* Grid lines every `spacing`, fading out towards `radius` from `center`. */
static const char floor_fragment[] =
    "#version 330 core\n"
    "in vec3 v_world;\n"
    "uniform float spacing;\n"
    "uniform vec3 center;\n"
    "uniform float radius;\n"
    "uniform vec3 background;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    vec2 cell = v_world.xz / spacing;\n"
    "    vec2 d = abs(fract(cell - 0.5) - 0.5) / fwidth(cell);\n"
    "    float line = 1.0 - min(min(d.x, d.y), 1.0);\n"
    "    vec3 c = mix(vec3(0.25, 0.26, 0.29), vec3(0.55, 0.57, 0.61), line);\n"
    "    float fade = 1.0 - smoothstep(0.4 * radius, radius, length(v_world.xz - center.xz));\n"
    "    color = vec4(mix(background, c, fade), 1.0);\n"
    "}\n";

static const char line_fragment[] =
    "#version 330 core\n"
    "uniform vec3 tint;\n"
    "out vec4 color;\n"
    "void main() { color = vec4(tint, 1.0); }\n";

#define SCENE_PI 3.14159265f

static const float background[3] = {0.16f, 0.17f, 0.19f};

/* ---- the scene ------------------------------------------------------------ */

typedef struct scene_mesh {
    const sinew_mesh *mesh;
    sinew_gl_mesh gl;
    unsigned palette[2];  /* per method */
    int palette_count;    /* skin joints, 1 for a rigid mesh */
    float *morphed;       /* positions, normals, tangents after morph targets, or NULL */
    float *weights;       /* morph weights */
    float *posed;         /* CPU-posed positions, for the bounds */
} scene_mesh;

struct scene {
    const sinew_asset *asset;
    sinew_mat4 upright;
    bool ssbo;
    scene_mesh *meshes;
    int mesh_count;
    unsigned mesh_program[2], floor_program, line_program;
    unsigned floor_vao, floor_vbo, line_vao, line_vbo;
    int joint_count;
    sinew_transform *local;
    sinew_mat4 *model, *bind_model, *palette;
    bool *bound;          /* joints some skin binds */
    bool *shown;          /* joints drawn in the skeleton */
    float *lines;         /* 2 points per bone */
    void *scratch;
    size_t scratch_size;
};

static bool fail(char *why, int size, const char *what, const sinew_error *err)
{
    snprintf(why, (size_t)size, "%s%s%s", what, err ? ": " : "", err ? err->description : "");
    return false;
}

static void *zalloc(size_t count, size_t size) { return calloc(count ? count : 1, size); }

/* The bind pose: a joint some skin binds where its inverse bind matrix
 * puts it; the others follow their parents with their rest transforms. */
static void compute_bind_pose(scene *s)
{
    const sinew_skeleton *sk = s->asset->skeleton;
    for (int i = 0; i < s->asset->mesh_count; ++i) {
        const sinew_skin *skin = s->asset->meshes[i].skin;
        for (int k = 0; skin && k < skin->joint_count; ++k) {
            int j = skin->joints[k];
            if (s->bound[j]) continue;
            if (sinew_mat4_inverse(&skin->inverse_bind[k], &s->bind_model[j]) == SINEW_OK) s->bound[j] = true;
        }
    }
    for (int j = 0; j < sk->joint_count; ++j) {
        if (s->bound[j]) continue;
        sinew_mat4 local = sinew_mat4_from_transform(&sk->rest_pose[j]);
        int p = sk->parents[j];
        s->bind_model[j] = p >= 0 ? sinew_mat4_mul(&s->bind_model[p], &local) : local;
    }
}

/* The joints that matter: those skins bind, or without skins the tree
 * under the top joint that the clips animate most (ties: the biggest): the
 * rig, not the cameras, lights or control rigs a file keeps beside it;
 * then the joints between two of them (helpers inside a chain). */
static void mark_rig(const sinew_asset *a, const bool *bound, bool *shown)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    bool any = false;
    for (int j = 0; j < n; ++j) {
        shown[j] = bound[j];
        any = any || bound[j];
    }
    if (!any) {
        int *size = zalloc((size_t)n * 2, sizeof *size), *animated = size + n;
        if (!size) {
            for (int j = 0; j < n; ++j) shown[j] = true;
            return;
        }
        for (int c = 0; c < a->clip_count; ++c)
            for (int t = 0; t < a->clips[c]->track_count; ++t) {
                const sinew_track *tr = &a->clips[c]->tracks[t];
                if (tr->joint < n && tr->target != SINEW_TARGET_WEIGHTS) animated[tr->joint] = 1;
            }
        for (int j = n - 1; j >= 0; --j) { /* children come after their parents */
            size[j] += 1;
            if (sk->parents[j] >= 0) size[sk->parents[j]] += size[j], animated[sk->parents[j]] += animated[j];
        }
        int top = 0, rig;
        for (int j = 0; j < n; ++j)
            if (sk->parents[j] < 0 && size[j] > size[top]) top = j;
        rig = top;
        for (int j = 0; j < n; ++j)
            if (sk->parents[j] == top &&
                (rig == top || animated[j] > animated[rig] || (animated[j] == animated[rig] && size[j] > size[rig])))
                rig = j;
        for (int j = 0; j < n; ++j) /* parents come first: a joint is in the rig when its parent is */
            shown[j] = j == rig || (sk->parents[j] >= 0 && shown[sk->parents[j]]);
        free(size);
        return;
    }
    for (int j = 0; j < n; ++j) {
        if (!shown[j]) continue;
        int p = sk->parents[j];
        while (p >= 0 && !shown[p]) p = sk->parents[p];
        for (int b = sk->parents[j]; p >= 0 && b != p; b = sk->parents[b]) shown[b] = true;
    }
}

static bool create_programs(scene *s, char *why, int size)
{
    sinew_error err = {0};
    for (int m = 0; m < 2; ++m) {
        sinew_gl_program_desc pd = {.vertex = {.method = (sinew_skinning)m, .ssbo = s->ssbo, .influences = 8,
                                               .no_main = true},
                                    .vertex_main = mesh_vertex_main, .fragment = mesh_fragment};
        if (!(s->mesh_program[m] = sinew_gl_program_create(&pd, &err)))
            return fail(why, size, "mesh shader", &err);
    }
    /* the floor and the bones: no skinning, the library's helper still compiles them */
    const char *fragments[2] = {floor_fragment, line_fragment};
    unsigned *programs[2] = {&s->floor_program, &s->line_program};
    for (int i = 0; i < 2; ++i) {
        sinew_gl_program_desc pd = {.vertex_source = plain_vertex, .fragment = fragments[i]};
        if (!(*programs[i] = sinew_gl_program_create(&pd, &err)))
            return fail(why, size, i ? "bone shader" : "floor shader", &err);
    }
    return true;
}

static void create_line_buffers(unsigned *vao, unsigned *vbo)
{
    glGenVertexArrays(1, vao);
    glBindVertexArray(*vao);
    glGenBuffers(1, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

static bool upload_mesh(scene *s, scene_mesh *sm, const sinew_mesh *m, char *why, int size)
{
    sinew_error err = {0};
    sm->mesh = m;
    sm->palette_count = m->skin ? m->skin->joint_count : 1;
    size_t vc = (size_t)m->vertex_count;
    if (m->morph) {
        sm->morphed = zalloc(vc * 10, sizeof(float));
        sm->weights = zalloc((size_t)m->morph->target_count, sizeof(float));
        if (!sm->morphed || !sm->weights) return fail(why, size, "out of memory", NULL);
    }
    sm->posed = zalloc(vc * 3, sizeof(float));
    if (!sm->posed) return fail(why, size, "out of memory", NULL);
    sinew_gl_mesh_desc d = {.vertex_count = m->vertex_count, .positions = m->positions, .normals = m->normals,
                            .tangents = m->tangents, .skin = m->skin, .index_count = m->index_count,
                            .indices = m->indices, .dynamic = m->morph != NULL, .influences = 8};
    if (sinew_gl_mesh_upload(&d, &sm->gl, &err) != SINEW_OK) return fail(why, size, m->name, &err);
    for (int k = 0; k < 2; ++k)
        if (!(sm->palette[k] = sinew_gl_palette_create(sm->palette_count, &err)))
            return fail(why, size, m->name, &err);
    size_t need = sinew_mesh_pose_scratch_size(m);
    if (need > s->scratch_size) {
        free(s->scratch);
        s->scratch = aligned_alloc(16, (need + 15) / 16 * 16);
        s->scratch_size = s->scratch ? need : 0;
        if (!s->scratch) return fail(why, size, "out of memory", NULL);
    }
    return true;
}

scene *scene_create(const sinew_asset *a, bool z_up, char *why, int size)
{
    scene *s = zalloc(1, sizeof *s);
    if (!s) {
        fail(why, size, "out of memory", NULL);
        return NULL;
    }
    s->asset = a;
    s->upright = sinew_mat4_identity();
    if (z_up) { /* (x, y, z) -> (x, z, -y) */
        float *m = s->upright.m;
        m[5] = 0, m[6] = -1, m[9] = 1, m[10] = 0;
    }
    int n = s->joint_count = a->skeleton->joint_count;
    s->local = zalloc((size_t)n, sizeof *s->local);
    s->model = zalloc((size_t)n, sizeof *s->model);
    s->bind_model = zalloc((size_t)n, sizeof *s->bind_model);
    s->bound = zalloc((size_t)n, sizeof *s->bound);
    s->shown = zalloc((size_t)n, sizeof *s->shown);
    s->lines = zalloc((size_t)n * 6, sizeof *s->lines);
    int most = 1;
    for (int i = 0; i < a->mesh_count; ++i)
        if (a->meshes[i].skin && a->meshes[i].skin->joint_count > most) most = a->meshes[i].skin->joint_count;
    s->palette = zalloc((size_t)most, sizeof *s->palette);
    s->meshes = zalloc((size_t)a->mesh_count, sizeof *s->meshes);
    if (!s->local || !s->model || !s->bind_model || !s->bound || !s->shown || !s->lines || !s->palette ||
        !s->meshes) {
        fail(why, size, "out of memory", NULL);
        scene_free(s);
        return NULL;
    }
    s->ssbo = most > SINEW_GLSL_UBO_JOINTS;
    if (s->ssbo && epoxy_gl_version() < 43) {
        snprintf(why, (size_t)size, "a skin of %d joints needs OpenGL 4.3, the driver gives %d.%d", most,
                 epoxy_gl_version() / 10, epoxy_gl_version() % 10);
        scene_free(s);
        return NULL;
    }
    compute_bind_pose(s);
    mark_rig(a, s->bound, s->shown);
    bool ok = create_programs(s, why, size);
    for (int i = 0; ok && i < a->mesh_count; ++i) {
        ok = upload_mesh(s, &s->meshes[i], &a->meshes[i], why, size);
        s->mesh_count = i + 1;
    }
    if (!ok) {
        scene_free(s);
        return NULL;
    }
    create_line_buffers(&s->floor_vao, &s->floor_vbo);
    create_line_buffers(&s->line_vao, &s->line_vbo);
    return s;
}

void scene_free(scene *s)
{
    if (!s) return;
    for (int i = 0; i < s->mesh_count; ++i) {
        scene_mesh *sm = &s->meshes[i];
        sinew_gl_mesh_free(&sm->gl);
        for (int k = 0; k < 2; ++k)
            if (sm->palette[k]) glDeleteBuffers(1, &sm->palette[k]);
        free(sm->morphed), free(sm->weights), free(sm->posed);
    }
    for (int m = 0; m < 2; ++m)
        if (s->mesh_program[m]) glDeleteProgram(s->mesh_program[m]);
    if (s->floor_program) glDeleteProgram(s->floor_program);
    if (s->line_program) glDeleteProgram(s->line_program);
    unsigned buffers[2] = {s->floor_vbo, s->line_vbo}, arrays[2] = {s->floor_vao, s->line_vao};
    for (int i = 0; i < 2; ++i) {
        if (buffers[i]) glDeleteBuffers(1, &buffers[i]);
        if (arrays[i]) glDeleteVertexArrays(1, &arrays[i]);
    }
    free(s->meshes), free(s->local), free(s->model), free(s->bind_model), free(s->bound), free(s->shown);
    free(s->lines), free(s->palette), free(s->scratch);
    free(s);
}

/* Morph targets on the CPU (the shader does not morph): the weights the
 * clip gives the mesh's joint, else the mesh's defaults. */
static bool morph(scene_mesh *sm, const sinew_clip *clip, float time, unsigned flags, char *why, int size)
{
    const sinew_mesh *m = sm->mesh;
    int count = m->morph->target_count;
    sinew_error err = {0};
    if (cli_morph_weights(m, clip, time, flags, sm->weights, &err) != SINEW_OK) return fail(why, size, m->name, &err);
    size_t vc = (size_t)m->vertex_count;
    float *p = sm->morphed, *n = m->normals ? p + vc * 3 : NULL, *t = m->tangents ? p + vc * 6 : NULL;
    if (sinew_morph_apply(m->morph, sm->weights, count, m->positions, m->normals, m->tangents, p, n, t, &err) !=
            SINEW_OK ||
        sinew_gl_mesh_update(&sm->gl, p, n, t, &err) != SINEW_OK)
        return fail(why, size, m->name, &err);
    return true;
}

bool scene_pose(scene *s, scene_pose_kind kind, const sinew_clip *clip, float time, bool loop,
                const sinew_transform *local, char *why, int size)
{
    const sinew_skeleton *sk = s->asset->skeleton;
    int n = s->joint_count;
    unsigned flags = loop ? SINEW_SAMPLE_LOOP : 0;
    sinew_error err = {0};
    if (kind != SCENE_POSE_ANIMATED) clip = NULL;
    if (kind == SCENE_POSE_BIND) {
        memcpy(s->model, s->bind_model, sizeof *s->model * (size_t)n);
    } else {
        sinew_result r = SINEW_OK;
        if (local)
            memcpy(s->local, local, sizeof *s->local * (size_t)n);
        else if (clip)
            r = sinew_clip_sample(clip, sk, time, flags, NULL, s->local, n, &err);
        else
            r = sinew_rest_pose(sk, s->local, n, &err);
        if (r != SINEW_OK || sinew_local_to_model(sk, s->local, NULL, s->model, n, &err) != SINEW_OK)
            return fail(why, size, "pose", &err);
    }
    for (int i = 0; i < s->mesh_count; ++i) {
        scene_mesh *sm = &s->meshes[i];
        const sinew_mesh *m = sm->mesh;
        if (m->morph && !morph(sm, clip, time, flags, why, size)) return false;
        if (m->skin) {
            if (sinew_skin_palette(m->skin, s->model, n, NULL, s->palette, sm->palette_count, &err) != SINEW_OK)
                return fail(why, size, m->name, &err);
        } else {
            s->palette[0] = m->joint >= 0 ? s->model[m->joint] : sinew_mat4_identity();
        }
        for (int k = 0; k < 2; ++k) {
            sinew_result r = sinew_gl_palette_write(sm->palette[k], 0, (sinew_skinning)k, s->palette,
                                                    sm->palette_count, &err);
            if (r != SINEW_OK && r != SINEW_ERROR_SINGULAR) return fail(why, size, m->name, &err);
        }
        if (sinew_mesh_pose(m, s->model, n, m->morph ? sm->weights : NULL, SINEW_SKINNING_LBS, s->scratch,
                            s->scratch_size, sm->posed, NULL, NULL, &err) != SINEW_OK)
            return fail(why, size, m->name, &err);
    }
    return true;
}

static void grow(const sinew_mat4 *upright, const float *p, float lo[3], float hi[3])
{
    sinew_vec3 q = sinew_mat4_transform_point(upright, sinew_vec3_make(p[0], p[1], p[2]));
    const float v[3] = {q.x, q.y, q.z};
    for (int k = 0; k < 3; ++k)
        if (isfinite(v[k])) lo[k] = fminf(lo[k], v[k]), hi[k] = fmaxf(hi[k], v[k]);
}

void scene_bounds(const scene *s, float lo[3], float hi[3])
{
    for (int i = 0; i < s->mesh_count; ++i)
        for (int v = 0; v < s->meshes[i].mesh->vertex_count; ++v) grow(&s->upright, &s->meshes[i].posed[v * 3], lo, hi);
    if (s->mesh_count == 0)
        for (int j = 0; j < s->joint_count; ++j)
            if (s->shown[j]) grow(&s->upright, &s->model[j].m[12], lo, hi);
}

/* ---- drawing ---------------------------------------------------------------- */

static sinew_mat4 perspective(float fovy, float aspect, float znear, float zfar)
{
    float f = 1.0f / tanf(fovy * 0.5f);
    sinew_mat4 m = {{0}};
    m.m[0] = f / aspect;
    m.m[5] = f;
    m.m[10] = (zfar + znear) / (znear - zfar);
    m.m[11] = -1.0f;
    m.m[14] = 2.0f * zfar * znear / (znear - zfar);
    return m;
}

static sinew_mat4 look_at(sinew_vec3 eye, sinew_vec3 target)
{
    sinew_vec3 f = sinew_vec3_normalize(sinew_vec3_sub(target, eye));
    sinew_vec3 r = sinew_vec3_normalize(sinew_vec3_cross(f, sinew_vec3_make(0, 1, 0)));
    sinew_vec3 u = sinew_vec3_cross(r, f);
    sinew_mat4 m = sinew_mat4_identity();
    m.m[0] = r.x, m.m[4] = r.y, m.m[8] = r.z;
    m.m[1] = u.x, m.m[5] = u.y, m.m[9] = u.z;
    m.m[2] = -f.x, m.m[6] = -f.y, m.m[10] = -f.z;
    m.m[12] = -sinew_vec3_dot(r, eye), m.m[13] = -sinew_vec3_dot(u, eye), m.m[14] = sinew_vec3_dot(f, eye);
    return m;
}

/* Draws the bones (parent to child) and the joints on top of everything. */
static void draw_skeleton(scene *s, const sinew_mat4 *vp)
{
    const sinew_skeleton *sk = s->asset->skeleton;
    int count = 0;
    for (int j = 0; j < s->joint_count; ++j) {
        int p = sk->parents[j];
        if (!s->shown[j] || p < 0 || !s->shown[p]) continue;
        sinew_vec3 a = sinew_mat4_transform_point(&s->upright, sinew_vec3_make(s->model[p].m[12], s->model[p].m[13],
                                                                                 s->model[p].m[14]));
        sinew_vec3 b = sinew_mat4_transform_point(&s->upright, sinew_vec3_make(s->model[j].m[12], s->model[j].m[13],
                                                                                 s->model[j].m[14]));
        float *l = &s->lines[count * 6];
        l[0] = a.x, l[1] = a.y, l[2] = a.z, l[3] = b.x, l[4] = b.y, l[5] = b.z;
        ++count;
    }
    if (count == 0) return;
    glDisable(GL_DEPTH_TEST);
    glUseProgram(s->line_program);
    glUniformMatrix4fv(glGetUniformLocation(s->line_program, "view_projection"), 1, GL_FALSE, vp->m);
    glBindVertexArray(s->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, s->line_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 6 * (size_t)count), s->lines, GL_STREAM_DRAW);
    glUniform3f(glGetUniformLocation(s->line_program, "tint"), 1.0f, 0.78f, 0.2f);
    glDrawArrays(GL_LINES, 0, count * 2);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUniform3f(glGetUniformLocation(s->line_program, "tint"), 1.0f, 0.35f, 0.2f);
    glDrawArrays(GL_POINTS, 0, count * 2);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glEnable(GL_DEPTH_TEST);
}

static void draw_floor(scene *s, const sinew_mat4 *vp, const float center[3], float radius, float height, float y)
{
    float r = radius * 3.0f;
    const float quad[18] = {center[0] - r, y, center[2] - r, center[0] + r, y, center[2] - r,
                            center[0] + r, y, center[2] + r, center[0] - r, y, center[2] - r,
                            center[0] + r, y, center[2] + r, center[0] - r, y, center[2] + r};
    float spacing = powf(10.0f, floorf(log10f(fmaxf(height, 1e-6f)))) * 0.5f;
    GLuint p = s->floor_program;
    glUseProgram(p);
    glUniformMatrix4fv(glGetUniformLocation(p, "view_projection"), 1, GL_FALSE, vp->m);
    glUniform1f(glGetUniformLocation(p, "spacing"), spacing);
    glUniform3fv(glGetUniformLocation(p, "center"), 1, center);
    glUniform1f(glGetUniformLocation(p, "radius"), r);
    glUniform3fv(glGetUniformLocation(p, "background"), 1, background);
    glBindVertexArray(s->floor_vao);
    glBindBuffer(GL_ARRAY_BUFFER, s->floor_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* The palette joint of `mesh` for skeleton joint j: -1 none wanted, -2 the
 * mesh has no weight on it. */
static int highlight_of(const sinew_mesh *m, int j)
{
    if (j < 0) return -1;
    if (!m->skin) return m->joint == j ? 0 : -2;
    for (int k = 0; k < m->skin->joint_count; ++k)
        if (m->skin->joints[k] == j) return k;
    return -2;
}

/* The camera's view-projection matrix for a width x height viewport, its
 * eye, the centre and radius of its box. */
typedef struct view {
    sinew_mat4 vp;
    sinew_vec3 eye;
    float center[3], radius;
} view;

static view make_view(const scene_camera *c, int width, int height)
{
    view w;
    float radius = 0.0f;
    for (int k = 0; k < 3; ++k) {
        w.center[k] = 0.5f * (c->lo[k] + c->hi[k]);
        float e = 0.5f * (c->hi[k] - c->lo[k]);
        radius += e * e;
    }
    radius = w.radius = fmaxf(sqrtf(radius), 1e-4f);
    const float *center = w.center;
    float aspect = (float)width / (float)(height > 0 ? height : 1);
    float fovy = 30.0f * SCENE_PI / 180.0f;
    float ty = tanf(fovy * 0.5f), tx = ty * aspect;
    float az = c->azimuth * SCENE_PI / 180.0f, el = c->elevation * SCENE_PI / 180.0f;
    sinew_vec3 target = sinew_vec3_make(center[0], center[1], center[2]);
    sinew_vec3 back = sinew_vec3_make(cosf(el) * sinf(az), sinf(el), cosf(el) * cosf(az)); /* target to eye */
    sinew_vec3 right = sinew_vec3_normalize(sinew_vec3_cross(sinew_vec3_make(0, 1, 0), back));
    sinew_vec3 up = sinew_vec3_cross(back, right);
    /* back far enough that every corner of the box is inside the view */
    float distance = 0.0f;
    for (int k = 0; k < 8; ++k) {
        sinew_vec3 p = sinew_vec3_make((k & 1 ? c->hi[0] : c->lo[0]) - center[0],
                                       (k & 2 ? c->hi[1] : c->lo[1]) - center[1],
                                       (k & 4 ? c->hi[2] : c->lo[2]) - center[2]);
        float depth = sinew_vec3_dot(p, back);
        distance = fmaxf(distance, depth + fabsf(sinew_vec3_dot(p, right)) / tx);
        distance = fmaxf(distance, depth + fabsf(sinew_vec3_dot(p, up)) / ty);
    }
    distance = fmaxf(distance * 1.1f, radius * 0.1f) / (c->zoom > 0.0f ? c->zoom : 1.0f);
    sinew_vec3 eye = w.eye = sinew_vec3_add(target, sinew_vec3_scale(back, distance));
    sinew_mat4 proj = perspective(fovy, aspect, fmaxf(distance - 4.0f * radius, distance * 0.02f),
                                  distance + 4.0f * radius);
    sinew_mat4 view_matrix = look_at(eye, target);
    w.vp = sinew_mat4_mul(&proj, &view_matrix);
    return w;
}


void scene_draw(scene *s, const scene_camera *c, int width, int height, const scene_draw_options *o)
{
    view w = make_view(c, width, height);
    const sinew_mat4 vp = w.vp;
    const sinew_vec3 eye = w.eye;
    glViewport(0, 0, width, height);
    glClearColor(background[0], background[1], background[2], 1.0f);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    if (o->floor) draw_floor(s, &vp, w.center, w.radius, c->hi[1] - c->lo[1], c->lo[1]);

    GLuint p = s->mesh_program[o->method];
    glUseProgram(p);
    glUniformMatrix4fv(glGetUniformLocation(p, "view_projection"), 1, GL_FALSE, vp.m);
    glUniformMatrix4fv(glGetUniformLocation(p, "upright"), 1, GL_FALSE, s->upright.m);
    glUniform3f(glGetUniformLocation(p, "eye"), eye.x, eye.y, eye.z);
    GLint highlight = glGetUniformLocation(p, "highlight"), joints = glGetUniformLocation(p, "sinew_joint_count");
    for (int i = 0; i < s->mesh_count; ++i) {
        scene_mesh *sm = &s->meshes[i];
        glUniform1i(highlight, highlight_of(sm->mesh, o->weights_joint));
        if (joints >= 0) glUniform1i(joints, sm->palette_count);
        glBindBufferBase(s->ssbo ? GL_SHADER_STORAGE_BUFFER : GL_UNIFORM_BUFFER, SINEW_GL_PALETTE_BINDING,
                         sm->palette[o->method]);
        sinew_gl_mesh_draw(&sm->gl, 1);
    }
    glBindVertexArray(0);
    if (o->skeleton) draw_skeleton(s, &vp);
    glBindVertexArray(0);
}

int scene_pick_joint(const scene *s, const scene_camera *c, int width, int height, double x, double y)
{
    view w = make_view(c, width, height);
    int best = -1;
    double best_d2 = 20.0 * 20.0;
    for (int j = 0; j < s->joint_count; ++j) {
        if (!s->shown[j]) continue;
        const float *t = &s->model[j].m[12];
        sinew_vec3 p = sinew_mat4_transform_point(&s->upright, sinew_vec3_make(t[0], t[1], t[2]));
        const float *m = w.vp.m;
        float cx = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], cy = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13];
        float cw = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
        if (!(cw > 0.0f)) continue;
        double sx = (cx / cw * 0.5 + 0.5) * width, sy = (0.5 - cy / cw * 0.5) * height;
        double d2 = (sx - x) * (sx - x) + (sy - y) * (sy - y);
        if (d2 < best_d2) best_d2 = d2, best = j;
    }
    return best;
}

/* ---- helpers for the commands ---------------------------------------------- */

int scene_find_joint(const sinew_asset *a, const char *spec)
{
    int j = sinew_skeleton_find_joint(a->skeleton, spec);
    if (j >= 0) return j;
    char *end;
    long i = strtol(spec, &end, 10);
    return *spec && !*end && i >= 0 && i < a->skeleton->joint_count ? (int)i : -1;
}

bool scene_guess_z_up(const sinew_asset *a, const char *path)
{
    if (!path) return false;
    const char *dot = strrchr(path, '.');
    if (dot && (strcmp(dot, ".gltf") == 0 || strcmp(dot, ".glb") == 0 || strcmp(dot, ".GLTF") == 0 ||
                strcmp(dot, ".GLB") == 0))
        return false;
    /* the rest pose as drawn: meshes posed, else the joints */
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    sinew_mat4 identity = sinew_mat4_identity();
    sinew_transform *local = zalloc((size_t)n, sizeof *local);
    sinew_mat4 *model = zalloc((size_t)n, sizeof *model);
    if (local && model && sinew_rest_pose(sk, local, n, NULL) == SINEW_OK &&
        sinew_local_to_model(sk, local, NULL, model, n, NULL) == SINEW_OK) {
        for (int i = 0; i < a->mesh_count; ++i) {
            const sinew_mesh *m = &a->meshes[i];
            size_t need = sinew_mesh_pose_scratch_size(m);
            void *scratch = need ? aligned_alloc(16, (need + 15) / 16 * 16) : NULL;
            float *p = zalloc((size_t)m->vertex_count * 3, sizeof *p);
            if (p && (scratch || !need) &&
                sinew_mesh_pose(m, model, n, NULL, SINEW_SKINNING_LBS, scratch, need, p, NULL, NULL, NULL) == SINEW_OK)
                for (int v = 0; v < m->vertex_count; ++v) grow(&identity, &p[v * 3], lo, hi);
            free(p);
            free(scratch);
        }
        bool *bound = zalloc((size_t)n, sizeof *bound), *rig = zalloc((size_t)n, sizeof *rig);
        if (a->mesh_count == 0 && bound && rig) {
            mark_rig(a, bound, rig);
            for (int j = 0; j < n; ++j)
                if (rig[j]) grow(&identity, &model[j].m[12], lo, hi);
        }
        free(bound);
        free(rig);
    }
    free(local);
    free(model);
    return hi[2] - lo[2] > 1.5f * (hi[1] - lo[1]);
}
