/* SPDX-License-Identifier: MIT */
/* The CUDA crowd path against the CPU reference: random instance states
 * (characters, clips, times before, inside and past the clips, weights 0,
 * 1 and between, a missing second clip) for the built-in character,
 * cesium_man.gltf and arnaud.fbx playing walk.fbx and run.fbx, with LBS
 * (exact and fast normals) and DQS, looping, clamped and nlerp sampling.
 * Before every frame the outputs and palettes are poisoned with 0xff bytes
 * (NaN), so every element compared is proven written. Compact outputs
 * (half positions, octahedral normals) are checked twice, after poisons of
 * 0x7f and 0xff: an unwritten normal word decodes near -z after the first
 * and near +z after the second, so no normal passes both unwritten.
 *
 * Tolerance, 1e-5 relative: each palette entry within 1e-5 of the size of
 * the products summed to make it (sum over i of the largest entry of model
 * column i times |inverse bind(i, col)|: a model entry that is 0 on one side
 * may be 1e-9 of its column on the other, and a translation that is the
 * difference of two large ones keeps their rounding); positions within 1e-5 of the vertex's
 * distance from the origin plus the mesh's radius (an absolute error of
 * 1e-5 of the character's size); unit normals within 1e-5. Compact
 * outputs add their format's rounding: 2^-11 of each position coordinate,
 * 7e-5 of each normal component.
 *
 * Without a usable GPU (no driver, no device: any CUDA error at start) the
 * test prints why and reports skipped (77). Usage: test_cuda [ASSETS_DIR]. */
#include "sinew/sinew.h"
#include "sinew/sinew_gpu.h"
#include "sinew/sinew_import.h"

#include "check.h"

#include <stdlib.h>

#define TOL 1e-5
#define MAX_CHARACTERS 4

typedef struct character {
    sinew_asset *asset;
    const sinew_mesh *mesh;
    int clip_count;
    const sinew_clip *clips[8];
    sinew_clip *owned[8];
    double radius;
} character;

static uint32_t rng = 2024u;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}
static int irand(int n) { return (int)(frand(0.0f, 1.0f) * (float)n) % n; }

static bool setup(character *c, sinew_asset *a, const char *const *anims, const char *assets)
{
    memset(c, 0, sizeof *c);
    c->asset = a;
    for (int i = 0; i < a->mesh_count; ++i)
        if (a->meshes[i].skin && (!c->mesh || a->meshes[i].vertex_count > c->mesh->vertex_count)) c->mesh = &a->meshes[i];
    if (!c->mesh) return false;
    for (int i = 0; i < a->clip_count && c->clip_count < 8; ++i) c->clips[c->clip_count++] = a->clips[i];
    for (int f = 0; anims && anims[f]; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", assets, anims[f]);
        sinew_error err = {0};
        sinew_asset *anim = sinew_load_file(path, NULL, &err);
        CHECK(anim != NULL, "%s: %s", path, err.description);
        if (!anim) continue;
        sinew_clip *r = sinew_clip_retarget(anim->clips[0], anim->skeleton, a->skeleton, NULL, NULL, &err);
        CHECK(r != NULL, "%s retargets: %s", path, err.description);
        if (r) c->owned[c->clip_count] = r, c->clips[c->clip_count++] = r;
        sinew_asset_free(anim);
    }
    for (int v = 0; v < c->mesh->vertex_count; ++v) {
        const float *p = c->mesh->positions + 3 * v;
        double d = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        if (d > c->radius) c->radius = d;
    }
    return c->clip_count > 0;
}

static void release(character *c)
{
    for (int i = 0; i < 8; ++i) sinew_clip_free(c->owned[i]);
    sinew_asset_free(c->asset);
}

typedef struct worst {
    double palette, pos, nrm;
    long long compared;
} worst;

/* Instance `i`'s outputs against the CPU reference. */
static void compare_instance(const sinew_cuda_crowd *crowd, int i, const sinew_cuda_instance *in, const character *c,
                             const sinew_cuda_frame_desc *fd, worst *w, const char *what)
{
    const sinew_skeleton *sk = c->asset->skeleton;
    const sinew_skin *skin = c->mesh->skin;
    int nj = sk->joint_count, nk = skin->joint_count, nv = c->mesh->vertex_count;
    sinew_transform *a = malloc(sizeof *a * (size_t)nj), *b = malloc(sizeof *b * (size_t)nj),
                    *local = malloc(sizeof *local * (size_t)nj);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)nj), *pal = malloc(sizeof *pal * (size_t)nk);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)nk);
    float *gpal = malloc(sizeof(float) * 12 * (size_t)nk);
    float *cpos = malloc(sizeof(float) * 3 * (size_t)nv), *cnrm = malloc(sizeof(float) * 3 * (size_t)nv);
    float *gpos = malloc(sizeof(float) * 3 * (size_t)nv), *gnrm = malloc(sizeof(float) * 3 * (size_t)nv);
    bool compact = fd->format == SINEW_CUDA_COMPACT;
    sinew_error err = {0};
    sinew_clip_sample(c->clips[in->clips[0]], sk, in->times[0], fd->sample_flags, NULL, a, nj, NULL);
    sinew_blend_layer layers[2] = {{a, 1.0f - (in->clips[1] >= 0 ? in->weight : 0.0f), NULL}, {b, 0.0f, NULL}};
    int layer_count = 1;
    if (in->clips[1] >= 0) {
        sinew_clip_sample(c->clips[in->clips[1]], sk, in->times[1], fd->sample_flags, NULL, b, nj, NULL);
        layers[1].weight = in->weight;
        layer_count = 2;
    }
    sinew_blend(sk, layers, layer_count, 0.0f, local, nj, NULL);
    sinew_local_to_model(sk, local, NULL, model, nj, NULL);
    sinew_skin_palette(skin, model, nj, NULL, pal, nk, NULL);
    sinew_skin_job job = {.skin = skin, .palette = pal, .dq_palette = dq, .palette_count = nk,
                          .positions = c->mesh->positions, .out_positions = cpos, .simd = SINEW_SIMD_SCALAR};
    if (fd->normals) job.normals = c->mesh->normals, job.out_normals = cnrm;
    if (fd->method == SINEW_SKINNING_DQS) {
        sinew_dq_palette(pal, nk, dq, NULL);
        sinew_skin_dqs(&job, NULL);
    } else {
        job.normal_mode = fd->fast_normals ? SINEW_NORMALS_FAST : SINEW_NORMALS_INVERSE_TRANSPOSE;
        sinew_skin_lbs(&job, NULL);
    }
    CHECK(sinew_cuda_download_palette(crowd, i, gpal, &err) == SINEW_OK, "palette download: %s", err.description);
    CHECK(sinew_cuda_download(crowd, i, gpos, fd->normals ? gnrm : NULL, &err) == SINEW_OK, "download: %s",
          err.description);
    int bad = 0;
    for (int k = 0; k < nk; ++k) {
        const float *mm = model[skin->joints[k]].m, *ib = skin->inverse_bind[k].m;
        for (int col = 0; col < 4; ++col)
            for (int row = 0; row < 3; ++row) {
                double size = 0.0; /* each model column's largest entry: its rounding scale */
                for (int x = 0; x < 4; ++x) {
                    double big = fmax(fabs(mm[4 * x]), fmax(fabs(mm[4 * x + 1]), fabs(mm[4 * x + 2])));
                    size += big * fabs(ib[4 * col + x]);
                }
                double d = fabs((double)gpal[12 * k + 3 * col + row] - pal[k].m[4 * col + row]) / fmax(size, 1e-30);
                if (!(d <= w->palette)) w->palette = isnan(d) ? INFINITY : fmax(w->palette, d);
                if (!(d <= TOL) && !bad)
                    fprintf(stderr, "  palette %d (%d, %d): GPU %.9g, CPU %.9g, size %.3g\n", k, row, col,
                            (double)gpal[12 * k + 3 * col + row], (double)pal[k].m[4 * col + row], size);
                bad += !(d <= TOL);
            }
    }
    for (int v = 0; v < nv; ++v) {
        const float *cp = cpos + 3 * v, *gp = gpos + 3 * v;
        double size = sqrt((double)cp[0] * cp[0] + (double)cp[1] * cp[1] + (double)cp[2] * cp[2]) + c->radius;
        for (int x = 0; x < 3; ++x) {
            /* compact: less the half's rounding (2^-11 of the value, 2^-25 under 2^-14) */
            double rounding = compact ? ldexp(fabs((double)cp[x]) * (1.0 + 2 * TOL), -11) + ldexp(1.0, -25) : 0.0;
            double d = fmax(0.0, fabs((double)gp[x] - cp[x]) - rounding) / size;
            if (!(d <= w->pos)) w->pos = isnan(d) ? INFINITY : fmax(w->pos, d);
            bad += !(d <= TOL);
            if (fd->normals) {
                double dn = fmax(0.0, fabs((double)gnrm[3 * v + x] - cnrm[3 * v + x]) - (compact ? 7e-5 : 0.0));
                if (!(dn <= w->nrm)) w->nrm = isnan(dn) ? INFINITY : fmax(w->nrm, dn);
                bad += !(dn <= TOL);
            }
        }
    }
    w->compared += (long long)nv;
    CHECK(bad == 0, "%s: instance %d (character %d, clips %d %d at %g %g, weight %g): %d values off", what, i,
          in->character, in->clips[0], in->clips[1], (double)in->times[0], (double)in->times[1], (double)in->weight,
          bad);
    free(a), free(b), free(local), free(model), free(pal), free(dq), free(gpal);
    free(cpos), free(cnrm), free(gpos), free(gnrm);
}

static void test_errors(sinew_cuda_crowd *crowd, int characters)
{
    sinew_error err = {0};
    sinew_cuda_frame_desc fd = {.method = SINEW_SKINNING_LBS};
    sinew_cuda_instance bad = {characters, {0, -1}, {0, 0}, 0};
    CHECK(sinew_cuda_frame(crowd, &bad, 1, &fd, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "instance 0") != NULL,
          "unknown character refused: %s", err.description);
    sinew_cuda_instance nan_time = {0, {0, -1}, {NAN, 0}, 0};
    CHECK(sinew_cuda_frame(crowd, &nan_time, 1, &fd, &err) == SINEW_ERROR_INVALID_ARGUMENT, "NaN time refused");
    sinew_cuda_instance clip = {0, {0, 99}, {0, 0}, 0.5f};
    CHECK(sinew_cuda_frame(crowd, &clip, 1, &fd, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "clips") != NULL,
          "unknown clip refused: %s", err.description);
    sinew_cuda_instance weight = {0, {0, 0}, {0, 0}, 1.5f};
    CHECK(sinew_cuda_frame(crowd, &weight, 1, &fd, &err) == SINEW_ERROR_INVALID_ARGUMENT, "weight 1.5 refused");
    sinew_cuda_instance fine = {0, {0, -1}, {0, 0}, 0};
    fd.format = (sinew_cuda_format)7;
    CHECK(sinew_cuda_frame(crowd, &fine, 1, &fd, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "format") != NULL,
          "an unknown output format refused: %s", err.description);
    /* each format's outputs through its own call only */
    const float *fp = NULL, *fn = NULL;
    const uint16_t *hp = NULL;
    const uint32_t *hn = NULL;
    fd = (sinew_cuda_frame_desc){.method = SINEW_SKINNING_LBS, .normals = true, .format = SINEW_CUDA_COMPACT};
    CHECK(sinew_cuda_frame(crowd, &fine, 1, &fd, &err) == SINEW_OK, "compact frame: %s", err.description);
    sinew_cuda_output(crowd, &fp, &fn);
    sinew_cuda_output_compact(crowd, &hp, &hn);
    CHECK(!fp && !fn && hp && hn, "a compact frame: compact pointers only");
    fd.format = SINEW_CUDA_FLOAT, fd.normals = false;
    CHECK(sinew_cuda_frame(crowd, &fine, 1, &fd, &err) == SINEW_OK, "float frame: %s", err.description);
    sinew_cuda_output(crowd, &fp, &fn);
    sinew_cuda_output_compact(crowd, &hp, &hn);
    CHECK(fp && !fn && !hp && !hn, "a float frame without normals: float positions only");
}

int main(int argc, char **argv)
{
    const char *assets = argc > 1 ? argv[1] : SINEW_ASSETS;
    sinew_error err = {0};
    if (!sinew_cuda_available(&err)) {
        printf("skip: no usable CUDA GPU: %s\n", err.description);
        return 77;
    }
    sinew_cuda_crowd *crowd = sinew_cuda_crowd_create(0, &err);
    CHECK(crowd != NULL && err.result == SINEW_OK, "crowd: %s", err.description);
    if (!crowd) return check_finish("test_cuda");

    character chars[MAX_CHARACTERS];
    int n_chars = 0;
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    if (demo && setup(&chars[n_chars], demo, NULL, assets)) ++n_chars;
    char path[1024];
    snprintf(path, sizeof path, "%s/gltf/cesium_man.gltf", assets);
    sinew_asset *cesium = sinew_load_file(path, NULL, &err);
    if (!cesium) printf("skip: %s: %s\n", path, err.description);
    if (cesium && setup(&chars[n_chars], cesium, NULL, assets)) ++n_chars;
    snprintf(path, sizeof path, "%s/fbx/pab/arnaud.fbx", assets);
    sinew_asset *arnaud = sinew_load_file(path, NULL, &err);
    if (!arnaud) printf("skip: %s: %s\n", path, err.description);
    static const char *const pab_anims[] = {"fbx/pab/walk.fbx", "fbx/pab/run.fbx", NULL};
    if (arnaud && setup(&chars[n_chars], arnaud, pab_anims, assets)) ++n_chars;

    for (int k = 0; k < n_chars; ++k) {
        int id = -1;
        sinew_cuda_character_desc d = {chars[k].asset->skeleton, chars[k].clips, chars[k].clip_count, chars[k].mesh};
        CHECK(sinew_cuda_character_add(crowd, &d, &id, &err) == SINEW_OK && id == k, "character %d: %s", k,
              err.description);
        printf("character %d: %d joints, %d clips, %d vertices, %d influences\n", k,
               chars[k].asset->skeleton->joint_count, chars[k].clip_count, chars[k].mesh->vertex_count,
               chars[k].mesh->skin->influence_count);
    }
    test_errors(crowd, n_chars);
    /* a compressed clip holds no tracks to upload: refused, naming why */
    if (demo) {
        sinew_clip *z = sinew_clip_compress(demo->clips[0], demo->skeleton, NULL, NULL, NULL, &err);
        const sinew_clip *list[1] = {z};
        sinew_cuda_character_desc d = {demo->skeleton, list, 1, chars[0].mesh};
        int id = -1;
        CHECK(z && sinew_cuda_character_add(crowd, &d, &id, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
                  strstr(err.description, "compressed (sinew_clip_compress)") != NULL,
              "a compressed clip refused: %s", err.description);
        sinew_clip_free(z);
    }

    enum { INSTANCES = 96 };
    sinew_cuda_instance inst[INSTANCES];
    static const struct {
        sinew_skinning method;
        bool fast;
        unsigned flags;
        sinew_cuda_format format;
        const char *name;
    } runs[] = {{SINEW_SKINNING_LBS, false, SINEW_SAMPLE_LOOP, SINEW_CUDA_FLOAT, "LBS, exact normals, loop"},
                {SINEW_SKINNING_LBS, true, SINEW_SAMPLE_CLAMP, SINEW_CUDA_FLOAT, "LBS, fast normals, clamp"},
                {SINEW_SKINNING_LBS, false, SINEW_SAMPLE_LOOP | SINEW_SAMPLE_NLERP, SINEW_CUDA_FLOAT, "LBS, nlerp"},
                {SINEW_SKINNING_DQS, false, SINEW_SAMPLE_LOOP, SINEW_CUDA_FLOAT, "DQS, loop"},
                {SINEW_SKINNING_DQS, false, SINEW_SAMPLE_CLAMP, SINEW_CUDA_FLOAT, "DQS, clamp"},
                {SINEW_SKINNING_LBS, false, SINEW_SAMPLE_LOOP, SINEW_CUDA_COMPACT, "LBS, compact"},
                {SINEW_SKINNING_DQS, false, SINEW_SAMPLE_LOOP, SINEW_CUDA_COMPACT, "DQS, compact"}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
        for (int i = 0; i < INSTANCES; ++i) {
            int k = irand(n_chars);
            const character *c = &chars[k];
            float d0, d1;
            inst[i].character = k;
            inst[i].clips[0] = irand(c->clip_count);
            inst[i].clips[1] = i % 5 == 0 ? -1 : irand(c->clip_count);
            d0 = c->clips[inst[i].clips[0]]->duration;
            d1 = inst[i].clips[1] >= 0 ? c->clips[inst[i].clips[1]]->duration : 1.0f;
            inst[i].times[0] = frand(-0.5f * d0, 2.5f * d0);
            inst[i].times[1] = frand(-0.5f * d1, 2.5f * d1);
            inst[i].weight = i % 7 == 0 ? 0.0f : i % 7 == 1 ? 1.0f : frand(0.0f, 1.0f);
        }
        sinew_cuda_frame_desc fd = {.method = runs[r].method, .normals = true, .fast_normals = runs[r].fast,
                                    .sample_flags = runs[r].flags, .format = runs[r].format};
        static const int poisons[2] = {0x7f, 0xff};
        worst w = {0, 0, 0, 0};
        for (int pass = fd.format == SINEW_CUDA_COMPACT ? 0 : 1; pass < 2; ++pass) {
            CHECK(sinew_cuda_poison(crowd, poisons[pass], &err) == SINEW_OK, "poison: %s", err.description);
            CHECK(sinew_cuda_frame(crowd, inst, INSTANCES, &fd, &err) == SINEW_OK, "%s: frame: %s", runs[r].name,
                  err.description);
            /* a second frame over the same buffers, poisoned again: nothing stale counts */
            CHECK(sinew_cuda_poison(crowd, poisons[pass], &err) == SINEW_OK, "poison: %s", err.description);
            CHECK(sinew_cuda_frame(crowd, inst, INSTANCES, &fd, &err) == SINEW_OK, "%s: frame: %s", runs[r].name,
                  err.description);
            for (int i = 0; i < INSTANCES; ++i)
                compare_instance(crowd, i, &inst[i], &chars[inst[i].character], &fd, &w, runs[r].name);
        }
        printf("%-26s %lld vertices compared; worst: palette %.2e, positions %.2e, normals %.2e%s\n", runs[r].name,
               w.compared, w.palette, w.pos, w.nrm, fd.format == SINEW_CUDA_COMPACT ? " (past the format's rounding)" : "");
    }
    sinew_cuda_crowd_free(crowd);
    for (int k = 0; k < n_chars; ++k) release(&chars[k]);
    return check_finish("test_cuda");
}
