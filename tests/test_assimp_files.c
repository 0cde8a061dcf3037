/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The Assimp path on the real files of ../shared/assets/fbx and
 * ../shared/assets/collada: every file loads, every clip plays on every
 * mesh with finite results and normalized weights; the pab rig as FBX and
 * as Collada gives the same joint positions (FBX in cm, Collada converted
 * to metres by Assimp); clips from animation-only files play on the
 * skeleton of another file; FBX helper nodes do not move Hips; every FBX
 * file declares centimetres and Collada comes out in metres
 * (sinew_asset.meters_per_unit 0.01 and 1, the same through the wall and
 * in process), a BVH declares nothing; every FBX file declares Y up and
 * Collada comes out Y up (sinew_asset.axis_rotation the identity). Skips,
 * saying so, when the assets or Assimp are missing. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "shared_asset.h"
#include "mesh_corners.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The shared asset at `rel` loaded with `options` (NULL: the defaults). */
static sinew_asset *load_with(const char *rel, const sinew_load_options *options)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SINEW_ASSETS, rel);
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(path, options, &err);
    CHECK(a != NULL, "%s loads%s: %s", rel, options ? " with its options" : "", err.description);
    return a;
}

static sinew_asset *load(const char *rel) { return load_with(rel, NULL); }

/* Every clip (and the rest pose) at times before, inside and past the
 * clip: every joint and vertex finite. */
static void play_all(const sinew_asset *a, const char *name)
{
    check_streams_aligned(a, name);
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count, bad = 0, runs = 0;
    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    for (int c = -1; c < a->clip_count; ++c) {
        for (int k = -1; k <= 11; ++k) {
            const sinew_clip *clip = c >= 0 ? a->clips[c] : NULL;
            float t = clip ? clip->duration * (float)k / 10.0f : 0.0f;
            if (clip)
                sinew_clip_sample(clip, sk, t, 0, NULL, local, n, NULL);
            else
                sinew_rest_pose(sk, local, n, NULL);
            sinew_local_to_model(sk, local, NULL, model, n, NULL);
            for (int j = 0; j < n; ++j)
                for (int e = 0; e < 16; ++e) bad += !isfinite(model[j].m[e]);
            for (int m = 0; m < a->mesh_count; ++m) {
                const sinew_mesh *mesh = &a->meshes[m];
                size_t size = sinew_mesh_pose_scratch_size(mesh);
                void *scratch = size ? aligned_alloc(16, (size + 15) / 16 * 16) : NULL;
                float *pos = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
                float *nrm = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
                sinew_error err;
                ++runs;
                if (sinew_mesh_pose(mesh, model, n, NULL, (sinew_skinning)(k & 1), scratch, size, pos, nrm, NULL,
                                    &err) != SINEW_OK)
                    ++bad;
                for (int v = 0; v < mesh->vertex_count * 3; ++v) bad += !isfinite(pos[v]) || !isfinite(nrm[v]);
                free(scratch), free(pos), free(nrm);
            }
        }
    }
    CHECK(bad == 0, "%s: every clip plays with finite joints and vertices (%d bad values in %d mesh poses)", name,
          bad, runs);
    /* weights of every skinned vertex sum to 1 */
    int off = 0;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_skin *s = a->meshes[m].skin;
        for (int v = 0; s && v < s->vertex_count; ++v) {
            int j[SINEW_MAX_INFLUENCES];
            float w[SINEW_MAX_INFLUENCES], sum = 0.0f;
            sinew_skin_vertex(s, v, j, w);
            for (int i = 0; i < s->influence_count; ++i) sum += w[i];
            off += fabsf(sum - 1.0f) > 1e-5f;
        }
    }
    CHECK(off == 0, "%s: every skinned vertex's weights sum to 1 (%d do not)", name, off);
    free(local), free(model);
}

/* What the logger hears of Assimp: its notes, and partial loads. */
typedef struct heard {
    int notes, partial;
} heard;

static void count_messages(void *user, sinew_log_level level, const char *message)
{
    heard *h = user;
    h->notes += level == SINEW_LOG_INFO && strstr(message, "importer says") != NULL;
    h->partial += strstr(message, "only in part") != NULL;
}

/* Every file of a folder, recursively. */
static int each_file(const char *rel_dir)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", SINEW_ASSETS, rel_dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char rel[1024], full[2048];
        snprintf(rel, sizeof rel, "%s/%s", rel_dir, e->d_name);
        snprintf(full, sizeof full, "%s/%s", SINEW_ASSETS, rel);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            files += each_file(rel);
            continue;
        }
        sinew_asset *a = load(rel);
        /* Assimp's messages on the file are notes, in this process too */
        heard h = {0, 0};
        sinew_load_options trusted = {.base.logger = {count_messages, &h}, .assimp_in_process = true};
        sinew_asset *b = load_with(rel, &trusted);
        CHECK(b && h.notes > 0 && h.partial == 0,
              "%s in process: Assimp heard, nothing dropped (%d notes)", rel, h.notes);
        /* the unit each declares, the same across the wall and in process:
         * every shared FBX file declares centimetres, and Assimp scales
         * Collada to metres */
        float unit = strstr(rel, ".fbx") ? 0.01f : 1.0f;
        CHECK(a && b && a->meters_per_unit == unit && b->meters_per_unit == unit,
              "%s: %g m a unit (%g in process), not %g", rel, a ? (double)a->meters_per_unit : -1.0,
              b ? (double)b->meters_per_unit : -1.0, (double)unit);
        CHECK(a && b && memcmp(&a->axis_rotation, &(sinew_quat){0, 0, 0, 1}, sizeof(sinew_quat)) == 0 &&
                  memcmp(&b->axis_rotation, &(sinew_quat){0, 0, 0, 1}, sizeof(sinew_quat)) == 0,
              "%s: Y up, no rotation", rel);
        sinew_asset_free(b);
        if (a) {
            play_all(a, rel);
            printf("  %-28s %3d joints, %d clips, %d meshes, %g m a unit\n", rel, a->skeleton->joint_count,
                   a->clip_count, a->mesh_count, (double)a->meters_per_unit);
        }
        sinew_asset_free(a);
        ++files;
    }
    closedir(d);
    return files;
}

/* Joint world positions of two rigs, matched by name, at the same times:
 * the largest distance after scaling the first by `scale`. */
static double rig_gap(const sinew_asset *a, const sinew_clip *ca, const sinew_asset *b, const sinew_clip *cb,
                      double scale, int *matched)
{
    const sinew_skeleton *sa = a->skeleton, *sb = b->skeleton;
    sinew_transform *la = malloc(sizeof *la * (size_t)sa->joint_count), *lb = malloc(sizeof *lb * (size_t)sb->joint_count);
    sinew_mat4 *ma = malloc(sizeof *ma * (size_t)sa->joint_count), *mb = malloc(sizeof *mb * (size_t)sb->joint_count);
    double worst = 0.0;
    for (int k = 0; k <= 16; ++k) {
        float t = ca->duration * (float)k / 16.0f;
        sinew_clip_sample(ca, sa, t, 0, NULL, la, sa->joint_count, NULL);
        sinew_clip_sample(cb, sb, t, 0, NULL, lb, sb->joint_count, NULL);
        sinew_local_to_model(sa, la, NULL, ma, sa->joint_count, NULL);
        sinew_local_to_model(sb, lb, NULL, mb, sb->joint_count, NULL);
        *matched = 0;
        for (int j = 0; j < sa->joint_count; ++j) {
            int o = sinew_skeleton_find_joint(sb, sa->names[j]);
            if (o < 0) continue;
            ++*matched;
            double d = 0.0;
            for (int x = 0; x < 3; ++x) {
                double e = ma[j].m[12 + x] * scale - mb[o].m[12 + x];
                d += e * e;
            }
            if (sqrt(d) > worst) worst = sqrt(d);
        }
    }
    free(la), free(lb), free(ma), free(mb);
    return worst;
}

/* weld_vertices: fewer vertices, the same triangles corner for corner
 * (position, normal, texture coordinates and influences of each corner bit
 * for bit as read without it: welding merges only equal vertices), but for
 * vertex colors: Assimp 5.2.5 merges vertices that differ only there, 252
 * corners of arnaud.fbx. */
static void test_weld(const sinew_asset *plain)
{
    sinew_asset *w = load_with("fbx/pab/arnaud.fbx", &(sinew_load_options){.weld_vertices = true});
    if (!w) return;
    const sinew_mesh *a = &plain->meshes[0], *b = &w->meshes[0];
    CHECK(w->mesh_count == 1 && b->vertex_count < a->vertex_count / 3 && b->index_count == a->index_count,
          "welded: %d vertices (read as %d), %d indices (%d)", b->vertex_count, a->vertex_count, b->index_count,
          a->index_count);
    if (b->index_count == a->index_count && a->skin && b->skin) {
        int bad = corners_differ(a, b, false), recolored = corners_differ(a, b, true);
        CHECK(bad == 0, "welded arnaud: %d triangle corners differ from the file's", bad);
        printf("  arnaud.fbx welded by Assimp: %d triangle corners change vertex color\n", recolored);
    }
    sinew_asset_free(w);
}

/* order_vertices_for_skinning, alone and after welding: as many vertices,
 * the same triangles corner for corner, the vertices moved, and in the
 * order sinew_skin_vertex_order gives. */
static void test_order(const sinew_asset *plain)
{
    for (int weld = 0; weld < 2; ++weld) {
        sinew_load_options o = {.weld_vertices = weld, .order_vertices_for_skinning = true};
        sinew_load_options unordered = {.weld_vertices = weld};
        sinew_asset *x = load_with("fbx/pab/arnaud.fbx", &o);
        sinew_asset *ref = weld ? load_with("fbx/pab/arnaud.fbx", &unordered) : NULL;
        const char *how = weld ? ", welded" : "";
        const sinew_asset *base = weld ? ref : plain;
        if (x && base) {
            const sinew_mesh *a = &base->meshes[0], *b = &x->meshes[0];
            CHECK(x->mesh_count == 1 && b->vertex_count == a->vertex_count && b->index_count == a->index_count &&
                      b->skin,
                  "ordered%s: %d vertices (%d), %d indices (%d)", how, b->vertex_count,
                  a->vertex_count, b->index_count, a->index_count);
            if (b->vertex_count == a->vertex_count && b->index_count == a->index_count && b->skin) {
                int bad = corners_differ(a, b, true);
                CHECK(bad == 0, "ordered%s arnaud: %d triangle corners differ from the file's", how,
                      bad);
                CHECK(memcmp(a->positions, b->positions, sizeof(float) * 3 * (size_t)a->vertex_count) != 0,
                      "ordered%s arnaud: the vertices moved", how);
                /* sorted already: the order of an ordered mesh is the identity */
                int order_ok;
                int *order = malloc(sizeof(int) * (size_t)b->vertex_count);
                order_ok = sinew_skin_vertex_order(b->skin, order, NULL) == SINEW_OK;
                for (int v = 0; order_ok && v < b->vertex_count; ++v) order_ok = order[v] == v;
                CHECK(order_ok, "ordered%s arnaud: sinew_skin_vertex_order keeps an ordered mesh as it is",
                      how);
                free(order);
            }
        }
        sinew_asset_free(x);
        sinew_asset_free(ref);
    }
}

static void test_pab(void)
{
    sinew_asset *fs = load("fbx/pab/skeleton.fbx"), *fw = load("fbx/pab/walk.fbx");
    sinew_asset *cs = load("collada/pab/skeleton.dae"), *cw = load("collada/pab/walk.dae");
    sinew_asset *arnaud = load("fbx/pab/arnaud.fbx");
    if (!fs || !fw || !cs || !cw || !arnaud) goto done;
    sinew_error err;
    sinew_retarget_report rf, rc;
    sinew_clip *walk_f = sinew_clip_retarget(fw->clips[0], fw->skeleton, fs->skeleton, NULL, &rf, &err);
    sinew_clip *walk_c = sinew_clip_retarget(cw->clips[0], cw->skeleton, cs->skeleton, NULL, &rc, &err);
    CHECK(walk_f && walk_c, "walk retargets onto both skeletons: %s", err.description);
    if (walk_f && walk_c) {
        CHECK(rf.matched_tracks >= 150, "the FBX walk animates the rig (%d tracks matched, %d left out)", rf.matched_tracks,
              rf.dropped_tracks);
        int matched;
        double gap = rig_gap(fs, walk_f, cs, walk_c, 0.01, &matched);
        /* float precision: positions in cm through 15 levels, about 1e-6 m measured */
        CHECK(matched >= 67 && gap < 1e-5, "FBX and Collada pab walks agree: %d joints within %.3g m (bound 1e-5)",
              matched, gap);
        printf("  pab walk, FBX (cm) against Collada (m): %d joints, largest gap %.2g m over 17 times\n", matched, gap);
        /* Hips where the file puts it, not a metre off (FBX helper nodes) */
        sinew_transform *local = malloc(sizeof *local * (size_t)fs->skeleton->joint_count);
        sinew_mat4 *model = malloc(sizeof *model * (size_t)fs->skeleton->joint_count);
        sinew_clip_sample(walk_f, fs->skeleton, 0.0f, 0, NULL, local, fs->skeleton->joint_count, NULL);
        sinew_local_to_model(fs->skeleton, local, NULL, model, fs->skeleton->joint_count, NULL);
        int hips = sinew_skeleton_find_joint(fs->skeleton, "Hips");
        CHECK(hips >= 0 && fabsf(model[hips].m[13] - 101.36f) < 0.1f && fabsf(model[hips].m[12] - 3.0f) < 0.1f,
              "Hips at t = 0 stands 101.4 cm up, 3 cm right (the file's own numbers)");
        free(local), free(model);
    }
    /* the skeleton a user expects: the rig under the scene root, no cameras */
    CHECK(fs->skeleton->joint_count == 68 && sinew_skeleton_find_joint(fs->skeleton, "Camera01") < 0,
          "skeleton.fbx: 67 rig joints under the root node (%d joints)", fs->skeleton->joint_count);
    CHECK(arnaud->mesh_count == 1 && arnaud->meshes[0].vertex_count > 3000 && arnaud->meshes[0].skin,
          "arnaud: one skinned mesh");
    /* the walk from another file moves arnaud's mesh forward */
    sinew_clip *aw = sinew_clip_retarget(fw->clips[0], fw->skeleton, arnaud->skeleton, NULL, NULL, &err);
    CHECK(aw != NULL, "walk retargets onto arnaud: %s", err.description);
    if (aw) {
        const sinew_skeleton *sk = arnaud->skeleton;
        const sinew_mesh *mesh = &arnaud->meshes[0];
        sinew_transform *local = malloc(sizeof *local * (size_t)sk->joint_count);
        sinew_mat4 *model = malloc(sizeof *model * (size_t)sk->joint_count);
        size_t size = sinew_mesh_pose_scratch_size(mesh);
        void *scratch = aligned_alloc(16, (size + 15) / 16 * 16);
        float *pos = malloc(sizeof(float) * 3 * (size_t)mesh->vertex_count);
        double z[2];
        for (int f = 0; f < 2; ++f) {
            sinew_clip_sample(aw, sk, 0.5f * (float)f, 0, NULL, local, sk->joint_count, NULL);
            sinew_local_to_model(sk, local, NULL, model, sk->joint_count, NULL);
            sinew_mesh_pose(mesh, model, sk->joint_count, NULL, SINEW_SKINNING_LBS, scratch, size, pos, NULL, NULL,
                            NULL);
            z[f] = 0.0;
            for (int v = 0; v < mesh->vertex_count; ++v) z[f] += pos[v * 3 + 2] / mesh->vertex_count;
        }
        CHECK(z[1] - z[0] > 40.0 && z[1] - z[0] < 70.0, "arnaud walks about half a metre in 0.5 s (%.1f cm)",
              z[1] - z[0]);
        free(local), free(model), free(scratch), free(pos);
        sinew_clip_free(aw);
    }
    sinew_clip_free(walk_f), sinew_clip_free(walk_c);
    test_weld(arnaud);
    test_order(arnaud);
done:
    sinew_asset_free(fs), sinew_asset_free(fw), sinew_asset_free(cs), sinew_asset_free(cw), sinew_asset_free(arnaud);
}

/* BVH and OBJ, written here: a two-joint BVH with three frames at 10 fps,
 * an OBJ quad (triangulated on import). */
static void test_generated(void)
{
    const char *bvh =
        "HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
        "Yrotation\n  JOINT knee\n  {\n    OFFSET 0 -10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
        "    End Site\n    {\n      OFFSET 0 -10 0\n    }\n  }\n}\nMOTION\nFrames: 3\nFrame Time: 0.1\n"
        "0 20 0 0 0 0 0 0 0\n1 20 0 0 0 0 45 0 0\n2 20 0 0 0 0 90 0 0\n";
    const char *obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
    const char *names[2] = {"sinew_test.bvh", "sinew_test.obj"};
    const char *texts[2] = {bvh, obj};
    for (int i = 0; i < 2; ++i) {
        FILE *f = fopen(names[i], "w");
        fputs(texts[i], f);
        fclose(f);
    }
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(names[0], NULL, &err);
    CHECK(a != NULL, "BVH loads: %s", err.description);
    CHECK(!a || a->meters_per_unit == 0.0f, "BVH declares no unit (%g)", a ? (double)a->meters_per_unit : -1.0);
    if (a) {
        int knee = sinew_skeleton_find_joint(a->skeleton, "knee");
        CHECK(knee >= 0 && sinew_skeleton_find_joint(a->skeleton, "hips") >= 0, "BVH joints by name");
        CHECK(a->clip_count == 1 && fabsf(a->clips[0]->duration - 0.2f) < 1e-4f, "BVH clip of 0.2 s (%g)",
              a->clip_count ? (double)a->clips[0]->duration : -1.0);
        if (knee >= 0 && a->clip_count == 1) {
            int n = a->skeleton->joint_count;
            sinew_transform *local = malloc(sizeof *local * (size_t)n);
            sinew_clip_sample(a->clips[0], a->skeleton, 0.2f, 0, NULL, local, n, NULL);
            sinew_quat q = local[knee].rotation; /* Zrotation 90 in the last frame */
            CHECK(fabsf(fabsf(q.z) - sqrtf(0.5f)) < 1e-4f && fabsf(fabsf(q.w) - sqrtf(0.5f)) < 1e-4f,
                  "knee at the last frame: 90 degrees about z (%g %g %g %g)", (double)q.x, (double)q.y, (double)q.z,
                  (double)q.w);
            free(local);
        }
    }
    sinew_asset_free(a);
    /* OBJ is not read by default: the sentence says how to allow it */
    a = sinew_load_file(names[1], NULL, &err);
    CHECK(!a && err.result == SINEW_ERROR_UNSUPPORTED && strstr(err.description, "assimp_formats = \"obj\""),
          "OBJ refused by default, saying how to allow it: %s", err.description);
    sinew_asset_free(a);
    const sinew_load_options with_obj = {.assimp_formats = "ply, obj"};
    a = sinew_load_file(names[1], &with_obj, &err);
    CHECK(a && a->mesh_count == 1 && a->meshes[0].vertex_count == 4 && a->meshes[0].index_count == 6,
          "OBJ quad, allowed: 4 vertices, 2 triangles: %s", a ? "" : err.description);
    sinew_asset_free(a);
    const sinew_load_options trusted = {.assimp_formats = "*", .assimp_in_process = true};
    a = sinew_load_file(names[1], &trusted, &err);
    CHECK(a && a->mesh_count == 1 && a->meshes[0].vertex_count == 4, "OBJ quad, every format, in process: %s",
          a ? "" : err.description);
    sinew_asset_free(a);
    remove(names[0]), remove(names[1]);
}

int main(void)
{
    test_generated();
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/fbx", SINEW_ASSETS);
    struct stat st;
    if (stat(probe, &st) != 0) {
        printf("skip: %s is missing (the shared assets; generated BVH and OBJ checked)\n", probe);
        return check_finish("test_assimp_files") ? 1 : 77;
    }
    int files = each_file("fbx") + each_file("collada");
    CHECK(files >= 9, "every FBX and Collada file read (%d)", files);
    test_pab();
    return check_finish("test_assimp_files");
}
