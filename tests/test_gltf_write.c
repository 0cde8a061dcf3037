/* SPDX-License-Identifier: MIT */
/* glTF out, round trip: every shared asset (gltf/, fbx/, collada/ under
 * the shared assets), the built-in character and the generated feature
 * files of gltf_features.c (morph targets animated LINEAR and CUBICSPLINE,
 * a sheared node matrix, 8 influences, quantized attributes, strips and
 * fans: what the sample assets lack), and archives of the built-in
 * character and of walk.fbx (an archive back out) are converted with `sinew
 * convert IN -o OUT.glb` and `-o OUT.gltf` into WORK_DIR (where the
 * gltf_write_validator test then runs the Khronos validator on them), and
 * `sinew bake` poses the source and each written file over every clip at
 * time 0, the clip's end, its key times and the midpoints between them
 * (at most 12 times a clip, spread over its keys), with --springs too
 * where the asset has spring bones. Node world matrices and mesh
 * positions must agree within 1e-6 of the model's size (the diagonal of
 * the box around the joints and the mesh at the first frame), and the
 * timelines' user track values and events must be equal, and normals
 * within 1e-5 (8-bit quantized ones within 0.02) where the source's are
 * not zero (the writer makes a zero normal (0, 0, 1), as glTF asks unit
 * normals).
 *
 * How nodes are matched: the written file holds a node per joint (in the
 * skeleton's order, parents first, which need not be the source file's
 * node order: cesium_man.gltf's differs) and then one node per mesh, and
 * the source's nodes that are not joints (Assimp's helper nodes outside
 * the skeleton, which bake does not list) are not written. So source node
 * i (bake's "index") is compared with written node asset->node_joints[i],
 * the joint the loader made of it, which the writer writes as node j,
 * and the two must have the same name; matching by name alone would pair
 * the wrong nodes where names repeat (cesium_man.gltf has unnamed ones).
 * Meshes are written in the asset's order and read back in it, so they
 * are compared in order.
 *
 * Weights: the writer makes each vertex's float weights sum to 1 within
 * what the Khronos validator allows (2e-7 a weight), where the loaders
 * keep sums within 1e-5 as the file gives them and skinning scales the
 * vertex by its sum; a vertex may so move by (1 - sum) times its distance
 * from the origin, which the comparison allows on top of 1e-6 of the size
 * (seymour.dae, skeleton.fbx; the report prints both).
 *
 * FBX sources are written in metres (convert scales the centimetres they
 * declare by 0.01), so their bakes are scaled before the comparison;
 * `--keep-units` leaves the lengths as loaded, and convert says which it
 * did and why. skeleton.fbx with another UnitScaleFactor (metres, inches,
 * an absurd one) and skeleton.dae in inches are written to the size their
 * unit gives, --unit overriding it.
 *
 * Axes: skeleton.fbx with GlobalSettings declaring Z up (UpAxis 2,
 * FrontAxis -Y) is turned to Y up: its bakes are R times the source's
 * (scaled by the unit), R turning +Z to +Y, within 1e-6 of the model's
 * size; --keep-axes, declared axes that mirror glTF's and axes that are
 * not three distinct ones leave it as loaded (the last two with a
 * warning), and skeleton.dae declaring Z_UP is turned by Assimp itself.
 * The built-in character written with options->rotation (R) bakes to R
 * times the source, clips and skin included, compressed and resampled clips
 * R times the same written unturned, and turned a half turn about X with
 * its springs simulated.
 *
 * Resampled (`convert --resample HZ`): every joint's origin stays within
 * the error bound convert reports for its clip, at 41 times and the keys,
 * and tracks that stay still are one key. Influences limited to 4
 * (options->max_influences): each vertex keeps its 4 largest weights,
 * renormalized, and the report's counts match the source's. A scale of
 * 0.01 through the library scales rest translations, positions, inverse
 * binds and colliders exactly; bad option values are refused.
 *
 * Through the library (sinew_write_gltf, then sinew_load_file): timelines
 * come back equal, a clip lasting past its last key keeps its duration,
 * a compressed clip is sampled at its rate and plays its poses, weights
 * as normalized bytes and shorts load within their step, an additive
 * clip and an unknown extension are refused with a sentence, and a name
 * a URI cannot hold as it is gets its buffer percent-encoded.
 * usage: test_gltf_write SINEW_BINARY WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include "sinew/sinew_archive.h"
#include "sinew/sinew_import.h"
#include "check.h"
#include "cli_run.h"
#include "shared_asset.h"
#include "gltf_features.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *sinew_bin, *work;

static cli_result run(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    cli_result r = cli_run(sinew_bin, work, 0, "", format, ap);
    va_end(ap);
    return r;
}

/* ---- the sources ---------------------------------------------------------- */

typedef struct source_list {
    char **paths;
    int count, cap;
} source_list;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool wanted(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return false;
    static const char *const ext[] = {".gltf", ".glb", ".fbx", ".dae", ".bvh"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; ++i)
        if (strcasecmp(dot, ext[i]) == 0) return true;
    return false;
}

/* The files under `dir`, two levels down (fbx/pab/walk.fbx). */
static void collect(source_list *l, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 2) collect(l, path, depth + 1);
        } else if (wanted(e->d_name)) {
            if (l->count == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 16;
                l->paths = realloc(l->paths, sizeof *l->paths * (size_t)l->cap);
            }
            l->paths[l->count++] = strdup(path);
        }
    }
    closedir(d);
}

/* ---- baking and comparing -------------------------------------------------------- */

static cJSON *bake(const char *file, const char *clip, const char *times, bool springs, const char *json)
{
    cli_result r = run("bake %s%s%s --clip %s --times %s%s --json '%s'", file ? "'" : "", file ? file : "",
                       file ? "'" : "", clip, times, springs ? " --springs" : "", json);
    CHECK(r.status == 0, "bake %s --clip %s: %d: %s", file ? file : "(built-in)", clip, r.status, r.err);
    cli_result_free(&r);
    size_t size;
    char *text = (char *)test_read_file(json, &size);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    remove(json);
    return doc;
}

/* The diagonal of the box around the first frame's joints and vertices. */
static double model_size(const cJSON *frame)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const cJSON *n, *m;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(frame, "nodes"))
    {
        const cJSON *w = cJSON_GetObjectItem(n, "world");
        for (int c = 0; c < 3; ++c) {
            double v = cJSON_GetArrayItem(w, 12 + c)->valuedouble;
            lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
        }
    }
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(frame, "meshes"))
    {
        const cJSON *p = cJSON_GetObjectItem(m, "positions"), *v;
        int i = 0;
        cJSON_ArrayForEach(v, p)
        {
            lo[i % 3] = fmin(lo[i % 3], v->valuedouble), hi[i % 3] = fmax(hi[i % 3], v->valuedouble);
            ++i;
        }
    }
    double d = 0.0;
    for (int c = 0; c < 3; ++c)
        if (hi[c] >= lo[c]) d += (hi[c] - lo[c]) * (hi[c] - lo[c]);
    return d > 0.0 ? sqrt(d) : 1.0;
}

typedef struct worst {
    double nodes, meshes; /* the largest differences */
    double excess;        /* the largest vertex difference past what weight sums explain */
    double normals;       /* the largest normal component difference */
    char node[160];       /* where the nodes' is */
} worst;

/* The largest |1 - sum of weights| of the asset's skinned vertices. */
static double weight_deficit(const sinew_asset *a)
{
    double most = 0.0;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_skin *skin = a->meshes[m].skin;
        for (int v = 0; skin && v < skin->vertex_count; ++v) {
            int j[SINEW_MAX_INFLUENCES];
            float w[SINEW_MAX_INFLUENCES];
            sinew_skin_vertex(skin, v, j, w);
            double sum = 0.0;
            for (int i = 0; i < skin->influence_count; ++i) sum += w[i];
            most = fmax(most, fabs(1.0 - sum));
        }
    }
    return most;
}

static double array_diff(const cJSON *a, const cJSON *b, int *length_mismatch)
{
    int n = cJSON_GetArraySize(a);
    if (n != cJSON_GetArraySize(b)) {
        *length_mismatch = 1;
        return INFINITY;
    }
    double d = 0.0;
    const cJSON *x = a ? a->child : NULL, *y = b ? b->child : NULL;
    for (; x && y; x = x->next, y = y->next) {
        if (cJSON_IsNull(x) || cJSON_IsNull(y)) return INFINITY;
        d = fmax(d, fabs(x->valuedouble - y->valuedouble));
    }
    return d;
}

/* One frame of the source against the written file's. */
static void compare_frame(const sinew_asset *a, const char *what, const cJSON *src, const cJSON *out, double deficit,
                          worst *w)
{
    const cJSON *sn = cJSON_GetObjectItem(src, "nodes"), *on = cJSON_GetObjectItem(out, "nodes");
    int count = cJSON_GetArraySize(on);
    char *used = calloc((size_t)count + 1, 1);
    const cJSON *n;
    cJSON_ArrayForEach(n, sn)
    {
        const char *name = cJSON_GetObjectItem(n, "name")->valuestring;
        int index = cJSON_GetObjectItem(n, "index")->valueint;
        int joint = a->node_joints ? (index < a->node_count ? a->node_joints[index] : -1) : index;
        const cJSON *match = NULL;
        int i = 0;
        for (const cJSON *o = on ? on->child : NULL; o; o = o->next, ++i)
            if (!used[i] && cJSON_GetObjectItem(o, "index")->valueint == joint) {
                used[i] = 1, match = o;
                break;
            }
        CHECK(match != NULL, "%s: node \"%s\" (index %d, joint %d) is not in the written file", what, name, index,
              joint);
        if (!match) continue;
        CHECK(strcmp(cJSON_GetObjectItem(match, "name")->valuestring, name) == 0,
              "%s: node %d is \"%s\", written as node %d \"%s\"", what, index, name, joint,
              cJSON_GetObjectItem(match, "name")->valuestring);
        int bad = 0;
        double d = array_diff(cJSON_GetObjectItem(n, "world"), cJSON_GetObjectItem(match, "world"), &bad);
        if (d > w->nodes) {
            w->nodes = d;
            snprintf(w->node, sizeof w->node, "\"%s\"", name);
        }
    }
    free(used);
    const cJSON *sm = cJSON_GetObjectItem(src, "meshes"), *om = cJSON_GetObjectItem(out, "meshes");
    CHECK(cJSON_GetArraySize(sm) == cJSON_GetArraySize(om), "%s: %d meshes, written %d", what,
          cJSON_GetArraySize(sm), cJSON_GetArraySize(om));
    const cJSON *ma = sm ? sm->child : NULL, *mb = om ? om->child : NULL;
    for (int m = 0; ma && mb; ma = ma->next, mb = mb->next, ++m) {
        int bad = 0;
        double d = array_diff(cJSON_GetObjectItem(ma, "positions"), cJSON_GetObjectItem(mb, "positions"), &bad);
        CHECK(!bad, "%s: mesh %d: %d position floats, written %d", what, m,
              cJSON_GetArraySize(cJSON_GetObjectItem(ma, "positions")),
              cJSON_GetArraySize(cJSON_GetObjectItem(mb, "positions")));
        if (bad) continue;
        w->meshes = fmax(w->meshes, d);
        double far = 0.0, sq = 0.0;
        int c = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, cJSON_GetObjectItem(ma, "positions"))
        {
            sq += v->valuedouble * v->valuedouble;
            if (++c % 3 == 0) far = fmax(far, sqrt(sq)), sq = 0.0;
        }
        w->excess = fmax(w->excess, d - deficit * far);
        /* normals: a zero one (a vertex of no triangle with area) is
         * written as (0, 0, 1), since glTF asks unit normals */
        const cJSON *na = cJSON_GetObjectItem(ma, "normals"), *nb = cJSON_GetObjectItem(mb, "normals");
        CHECK(cJSON_GetArraySize(na) == cJSON_GetArraySize(nb), "%s: mesh %d: normals of another length written",
              what, m);
        if (cJSON_GetArraySize(na) != cJSON_GetArraySize(nb)) continue;
        for (const cJSON *x = na ? na->child : NULL, *y = nb ? nb->child : NULL; x && y;) {
            double p[3], q[3];
            for (int i = 0; i < 3 && x && y; ++i, x = x->next, y = y->next) p[i] = x->valuedouble, q[i] = y->valuedouble;
            if (p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0) continue;
            for (int i = 0; i < 3; ++i) w->normals = fmax(w->normals, fabs(p[i] - q[i]));
        }
    }
    /* timelines: the same user track values and events */
    for (int k = 0; k < 2; ++k) {
        const char *key = k ? "events" : "tracks";
        char *x = cJSON_PrintUnformatted(cJSON_GetObjectItem(src, key));
        char *y = cJSON_PrintUnformatted(cJSON_GetObjectItem(out, key));
        CHECK((!x && !y) || (x && y && strcmp(x, y) == 0), "%s: %s differ: %s vs %s", what, key, x ? x : "none",
              y ? y : "none");
        free(x), free(y);
    }
}

/* The times a clip is baked at: 0, its end, key times of its longest
 * track and the midpoints between them, at most 12, spread over the keys. */
static void clip_times(const sinew_clip *clip, char *text, size_t size)
{
    const sinew_track *longest = NULL;
    for (int t = 0; t < clip->track_count; ++t)
        if (!longest || clip->tracks[t].key_count > longest->key_count) longest = &clip->tracks[t];
    int at = snprintf(text, size, "0,%.9g", (double)clip->duration);
    int keys = longest ? longest->key_count : 0, step = keys > 5 ? keys / 5 : 1;
    for (int k = 0; k < keys && at < (int)size - 64; k += step) {
        float t = longest->times[k];
        at += snprintf(text + at, size - (size_t)at, ",%.9g", (double)t);
        if (k + 1 < keys)
            at += snprintf(text + at, size - (size_t)at, ",%.9g", 0.5 * ((double)t + (double)longest->times[k + 1]));
    }
    /* a packed or compressed clip lists no tracks: quarters of its time */
    if (!longest)
        for (int q = 1; q < 4; ++q) at += snprintf(text + at, size - (size_t)at, ",%.9g", clip->duration * q / 4.0);
}

/* The factor convert scales a source by to reach meters: FBX files are in
 * centimeters (docs/GLTF_OUT.md "Axes and units"), the rest in meters. */
static double unit_factor(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && strcasecmp(path + n - 4, ".fbx") == 0 ? 0.01 : 1.0;
}

/* `sinew bake`'s --clip and --times for clip c of `a` (its key times,
 * clip_times's), or for no clip at time 0 where `a` has none. */
static void bake_args(const sinew_asset *a, int c, char clip[32], char times[2048])
{
    if (a->clip_count) {
        snprintf(clip, 32, "%d", c);
        clip_times(a->clips[c], times, 2048);
    } else {
        snprintf(clip, 32, "none");
        snprintf(times, 2048, "0");
    }
}

/* A baked frame scaled by `f` about the origin: node translations and
 * mesh positions (rotations stay), as the writer scales the asset. */
static void scale_frame(cJSON *frame, double f)
{
    if (f == 1.0) return;
    cJSON *n, *m, *v;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(frame, "nodes"))
    {
        cJSON *w = cJSON_GetObjectItem(n, "world");
        for (int c = 12; c < 15; ++c) {
            cJSON *x = cJSON_GetArrayItem(w, c);
            if (x) cJSON_SetNumberValue(x, x->valuedouble * f);
        }
    }
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(frame, "meshes"))
        cJSON_ArrayForEach(v, cJSON_GetObjectItem(m, "positions")) cJSON_SetNumberValue(v, v->valuedouble * f);
}

static void scale_frames(cJSON *doc, double f)
{
    cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "frames")) scale_frame(x, f);
}

/* One asset: converted both ways, each baked against the source (scaled
 * to meters, as convert writes it). */
static void round_trip(const char *path, const char *rel)
{
    sinew_asset *a = NULL;
    if (path) {
        a = test_load_shared(path);
    } else {
        sinew_error err = {0};
        a = sinew_demo_create(NULL, &err);
        CHECK(a != NULL, "built-in character: %s", err.description);
    }
    if (!a) return;
    char base[512];
    snprintf(base, sizeof base, "%s", rel);
    for (char *c = base; *c; ++c)
        if (*c == '/' || *c == ' ') *c = '_';
    /* .glb, .gltf, and .glb with --quantize (KHR_mesh_quantization) */
    static const char *const kinds[] = {"glb", "gltf", "quantized.glb"};
    /* the largest grid step of the quantized positions: a mesh's largest side / 65535 */
    double step = 0.0;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, side = 0.0;
        for (int v = 0; v < mesh->vertex_count * 3; ++v)
            lo[v % 3] = fmin(lo[v % 3], mesh->positions[v]), hi[v % 3] = fmax(hi[v % 3], mesh->positions[v]);
        for (int c = 0; c < 3; ++c) side = fmax(side, hi[c] - lo[c]);
        step = fmax(step, side / 65535.0);
    }
    double factor = unit_factor(path);
    step *= factor;
    for (int k = 0; k < 3; ++k) {
        char out[1024], json_src[1024], json_out[1024];
        snprintf(out, sizeof out, "%s/%s.%s", work, base, kinds[k]);
        snprintf(json_src, sizeof json_src, "%s/bake_src.json", work);
        snprintf(json_out, sizeof json_out, "%s/bake_out.json", work);
        cli_result r = run("convert %s%s%s -o '%s'%s", path ? "'" : "", path ? path : "", path ? "'" : "", out,
                           k == 2 ? " --quantize" : "");
        CHECK(r.status == 0, "convert %s -o %s: %d: %s", rel, out, r.status, r.err);
        if (k == 2 && step > 0.0) { /* convert reports the grid it quantized to: the largest mesh's */
            const char *at = r.err ? strstr(r.err, "grid step of ") : NULL;
            double said = at ? atof(at + strlen("grid step of ")) : -1.0;
            CHECK(fabs(said - step) <= 1e-5 * step, "convert %s --quantize: reports a grid step of %g, not %g: %s",
                  rel, said, step, r.err ? r.err : "");
        }
        cli_result_free(&r);
        worst w = {0, 0, 0, 0, ""};
        double deficit = weight_deficit(a);
        double size = 0.0;
        int clips = a->clip_count ? a->clip_count : 1, frames = 0;
        for (int c = 0; c < clips; ++c)
            for (int springs = 0; springs < 1 + (a->springs != NULL); ++springs) {
                char clip[32], times[2048];
                bake_args(a, c, clip, times);
                cJSON *src = bake(path, clip, times, springs, json_src);
                cJSON *dst = bake(out, clip, times, springs, json_out);
                CHECK(src && dst, "%s: clip %s: bake gave no JSON", rel, clip);
                if (src && dst) {
                    scale_frames(src, factor);
                    const cJSON *fs = cJSON_GetObjectItem(src, "frames"), *fo = cJSON_GetObjectItem(dst, "frames");
                    if (size == 0.0 && fs && fs->child) size = model_size(fs->child);
                    const cJSON *x = fs ? fs->child : NULL, *y = fo ? fo->child : NULL;
                    for (; x && y; x = x->next, y = y->next, ++frames) {
                        char what[600];
                        snprintf(what, sizeof what, "%s (%s): clip %s%s at %g", rel, kinds[k], clip,
                                 springs ? " with springs" : "", cJSON_GetObjectItem(x, "time")->valuedouble);
                        compare_frame(a, what, x, y, deficit, &w);
                    }
                }
                cJSON_Delete(src), cJSON_Delete(dst);
            }
        double tolerance = 1e-6 * size;
        printf("%s -> .%s: %d frames over %d clip%s; size %.4g; worst node %.3g (%.2g of size, %s), worst vertex "
               "%.3g (%.2g of size; weight sums off 1 by up to %.2g in the source, %.2g of size past that",
               rel, kinds[k], frames, a->clip_count, a->clip_count == 1 ? "" : "s", size, w.nodes, w.nodes / size,
               w.node[0] ? w.node : "-", w.meshes, w.meshes / size, deficit, fmax(w.excess, 0.0) / size);
        if (k == 2) printf("; %.2f grid steps", step > 0.0 ? w.excess / step : 0.0);
        printf("), worst normal component %.2g\n", w.normals);
        /* unit normals: floats read back as written (the weights' sums
         * barely turn them); 8-bit ones within their rounding and its
         * renormalization */
        CHECK(w.normals <= (k == 2 ? 0.02 : 1e-5), "%s (%s): a normal component moved %g", rel, kinds[k], w.normals);
        CHECK(w.nodes <= tolerance, "%s (%s): node %s moved %g, more than 1e-6 of the model's size %g", rel, kinds[k],
              w.node, w.nodes, size);
        /* quantized: a vertex lies within 0.87 of a grid step of its
         * own before skinning and morphing; 2 steps allow for joints
         * that scale and targets that add up */
        if (k == 2)
            CHECK(w.excess <= tolerance + 2.0 * step, "%s (%s): a vertex moved %g past what weight sums explain, "
                  "more than 1e-6 of the model's size %g and 2 grid steps of %g", rel, kinds[k], w.excess, size, step);
        else
            CHECK(w.excess <= tolerance, "%s (%s): a vertex moved %g past what weight sums explain, more than 1e-6 "
                  "of the model's size %g", rel, kinds[k], w.excess, size);
    }
    sinew_asset_free(a);
}

/* ---- resampled clips ---------------------------------------------------- */

/* `convert --resample HZ`: each clip's error bound as convert reports it
 * ("clip "NAME" resampled: within X metres"), then `sinew bake` of the
 * written file against the source (scaled to meters) at 41 times evenly
 * spread and the times round_trip uses: every joint's origin within the
 * bound of its clip (plus 1e-6 of the model's size for the float sums),
 * which the measure takes at the joint and 3 cm along its axes. Tracks
 * that stay still are one key read back. */
static void resample_trip(const char *path, const char *rel, float hz)
{
    sinew_asset *a = NULL;
    sinew_error err = {0};
    a = path ? test_load_shared(path) : sinew_demo_create(NULL, &err);
    if (!a) return;
    char base[512], out[1024], json_src[1024], json_out[1024];
    snprintf(base, sizeof base, "%s", rel);
    for (char *c = base; *c; ++c)
        if (*c == '/' || *c == ' ') *c = '_';
    snprintf(out, sizeof out, "%s/%s.resampled.glb", work, base);
    snprintf(json_src, sizeof json_src, "%s/bake_src.json", work);
    snprintf(json_out, sizeof json_out, "%s/bake_out.json", work);
    cli_result r = run("convert %s%s%s -o '%s' --resample %g", path ? "'" : "", path ? path : "", path ? "'" : "",
                       out, (double)hz);
    CHECK(r.status == 0, "convert %s -o %s --resample %g: %d: %s", rel, out, (double)hz, r.status, r.err);
    double factor = unit_factor(path);
    for (int c = 0; r.status == 0 && c < a->clip_count; ++c) {
        const sinew_clip *clip = a->clips[c];
        char key[300];
        snprintf(key, sizeof key, "clip \"%s\" resampled: within ", clip->name);
        const char *at = strstr(r.err, key);
        CHECK(at != NULL, "%s: convert does not report clip \"%s\"'s bound: %s", rel, clip->name, r.err);
        if (!at) continue;
        double bound = strtod(at + strlen(key), NULL);
        char clip_arg[32], times[4096];
        snprintf(clip_arg, sizeof clip_arg, "%d", c);
        clip_times(clip, times, sizeof times);
        size_t used = strlen(times);
        for (int i = 1; i < 40; ++i)
            used += (size_t)snprintf(times + used, sizeof times - used, ",%.9g", clip->duration * i / 40.0);
        cJSON *src = bake(path, clip_arg, times, false, json_src), *dst = bake(out, clip_arg, times, false, json_out);
        CHECK(src && dst, "%s: clip %d: bake gave no JSON", rel, c);
        double most = 0.0, size = 0.0, worst_time = 0.0;
        int frames = 0;
        if (src && dst) {
            scale_frames(src, factor);
            const cJSON *x = cJSON_GetObjectItem(src, "frames")->child, *y = cJSON_GetObjectItem(dst, "frames")->child;
            if (x) size = model_size(x);
            for (; x && y; x = x->next, y = y->next, ++frames) {
                const cJSON *on = cJSON_GetObjectItem(y, "nodes"), *n;
                cJSON_ArrayForEach(n, cJSON_GetObjectItem(x, "nodes"))
                {
                    int index = cJSON_GetObjectItem(n, "index")->valueint;
                    int joint = a->node_joints ? (index < a->node_count ? a->node_joints[index] : -1) : index;
                    const cJSON *match = NULL, *o;
                    cJSON_ArrayForEach(o, on) if (cJSON_GetObjectItem(o, "index")->valueint == joint) match = o;
                    CHECK(match != NULL, "%s: node %d is not in the resampled file", rel, index);
                    if (!match) continue;
                    double d2 = 0.0;
                    for (int k = 12; k < 15; ++k) {
                        double dk = cJSON_GetArrayItem(cJSON_GetObjectItem(n, "world"), k)->valuedouble -
                                    cJSON_GetArrayItem(cJSON_GetObjectItem(match, "world"), k)->valuedouble;
                        d2 += dk * dk;
                    }
                    if (sqrt(d2) > most) most = sqrt(d2), worst_time = cJSON_GetObjectItem(x, "time")->valuedouble;
                }
            }
        }
        cJSON_Delete(src), cJSON_Delete(dst);
        printf("%s --resample %g: clip \"%s\": %d frames, reported bound %.3g m, worst joint %.3g m at %.4g s (size "
               "%.4g)\n", rel, (double)hz, clip->name, frames, bound, most, worst_time, size);
        CHECK(frames > 40 && most <= bound + 1e-6 * size,
              "%s: clip \"%s\" resampled at %g: a joint moved %g m at %g s, past the reported bound %g m", rel,
              clip->name, (double)hz, most, worst_time, bound);
    }
    cli_result_free(&r);
    /* still tracks are one key; every other is LINEAR at the rate */
    sinew_asset *back = sinew_load_file(out, NULL, &err);
    CHECK(back != NULL, "%s: %s", out, err.description);
    int single = 0;
    for (int c = 0; back && c < back->clip_count; ++c)
        for (int t = 0; t < back->clips[c]->track_count; ++t) {
            const sinew_track *tr = &back->clips[c]->tracks[t];
            if (tr->target == SINEW_TARGET_WEIGHTS) continue;
            int comps = sinew_track_components(tr);
            bool still = true;
            for (int k = 1; k < tr->key_count; ++k)
                still = still && memcmp(tr->values, tr->values + k * comps, sizeof(float) * (size_t)comps) == 0;
            single += tr->key_count == 1;
            CHECK(tr->interpolation == SINEW_INTERP_LINEAR && (!still || tr->key_count == 1),
                  "%s: clip %d track %d: %d keys, interpolation %d, still %d", rel, c, t, tr->key_count,
                  (int)tr->interpolation, still);
        }
    if (back) printf("%s --resample %g: %d still tracks written as one key\n", rel, (double)hz, single);
    sinew_asset_free(back);
    sinew_asset_free(a);
}

/* The largest gap between `b`'s rest translations and mesh positions and
 * `a`'s times `f`, relative to the largest of them; -1 where `b` lacks
 * joints or meshes of `a` (the writer's node a mesh adds a joint after the
 * skeleton's). */
static double scaled_gap(const sinew_asset *a, const sinew_asset *b, double f)
{
    if (a->skeleton->joint_count > b->skeleton->joint_count || a->mesh_count != b->mesh_count) return -1.0;
    double gap = 0.0, size = 1e-30;
    for (int j = 0; j < a->skeleton->joint_count; ++j) {
        const float *p = &a->skeleton->rest_pose[j].translation.x, *q = &b->skeleton->rest_pose[j].translation.x;
        for (int k = 0; k < 3; ++k) gap = fmax(gap, fabs(p[k] * f - q[k])), size = fmax(size, fabs(p[k] * f));
    }
    for (int m = 0; m < a->mesh_count; ++m) {
        if (a->meshes[m].vertex_count != b->meshes[m].vertex_count) return -1.0;
        for (int i = 0; i < 3 * a->meshes[m].vertex_count; ++i)
            gap = fmax(gap, fabs(a->meshes[m].positions[i] * f - b->meshes[m].positions[i])),
            size = fmax(size, fabs(a->meshes[m].positions[i] * f));
    }
    return gap / size;
}

/* The pab skeleton.fbx's bytes (to patch its declared settings), or NULL
 * with a line saying `what` goes unchecked without the shared assets. */
static unsigned char *read_skeleton_fbx(size_t *size, const char *what)
{
    unsigned char *fbx = test_read_file(SINEW_ASSETS "/fbx/pab/skeleton.fbx", size);
    if (!fbx)
        printf("skip: %s/fbx/pab/skeleton.fbx is missing (the shared assets): %s unchecked\n", SINEW_ASSETS, what);
    return fbx;
}

/* The unit a file declares decides convert's scale: skeleton.fbx with its
 * UnitScaleFactor (centimetres a unit) made 100 is written in metres as
 * loaded, made 2.54 is scaled by 0.0254, made 1e9 (no plausible unit) by
 * the kind's 0.01 with a warning, and --unit overrides what it declares;
 * Collada in inches, which Assimp scales to metres as it reads it, is not
 * scaled again. glTF and the built-in character declare metres, an
 * archive nothing. */
static void declared_units(void)
{
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo && demo->meters_per_unit == 1.0f, "the built-in character is in metres");
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/units-demo.sinew", work);
    CHECK(demo && sinew_archive_save(demo, path, NULL, &err) == SINEW_OK, "%s: %s", path, err.description);
    sinew_asset *a = sinew_load_file(path, NULL, &err);
    CHECK(a && a->meters_per_unit == 0.0f, "an archive declares no unit (%g)", a ? (double)a->meters_per_unit : -1.0);
    sinew_asset_free(a), sinew_asset_free(demo);
    a = test_load_shared(SINEW_ASSETS "/gltf/cesium_man.gltf");
    CHECK(!a || a->meters_per_unit == 1.0f, "glTF is in metres (%g)", a ? (double)a->meters_per_unit : -1.0);
    sinew_asset_free(a);
    size_t size = 0;
    unsigned char *fbx = read_skeleton_fbx(&size, "declared units");
    if (!fbx) return;
    /* binary FBX's property: its name, type, label and flags as strings, then the double */
    static const char key[] = "UnitScaleFactorS\x06\0\0\0doubleS\x06\0\0\0NumberS\0\0\0\0D";
    size_t at = 0;
    while (at + sizeof key - 1 + 8 <= size && memcmp(fbx + at, key, sizeof key - 1) != 0) ++at;
    CHECK(at + sizeof key - 1 + 8 <= size, "skeleton.fbx holds its UnitScaleFactor");
    static const struct {
        const char *name, *options;
        double factor, scale;
        const char *said;
    } cases[] = {
        {"metres", "", 100.0, 1.0, NULL},
        {"inches", "", 2.54, 0.0254, "scaled by 0.0254: the file declares inches (--keep-units leaves them)"},
        {"huge", "", 1e9, 0.01, "scaled by 0.01: centimetres, taken by the file's kind: no unit declared"},
        {"given", "--unit 0.01", 100.0, 0.01, "scaled by 0.01: --unit gives centimetres (--keep-units leaves them)"},
    };
    for (size_t c = 0; at + sizeof key - 1 + 8 <= size && c < sizeof cases / sizeof *cases; ++c) {
        memcpy(fbx + at + sizeof key - 1, &cases[c].factor, 8);
        snprintf(path, sizeof path, "%s/units-%s.fbx", work, cases[c].name);
        snprintf(out, sizeof out, "%s/units-%s.glb", work, cases[c].name);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(fbx, 1, size, f) == size && fclose(f) == 0, "%s written", path);
        a = sinew_load_file(path, NULL, &err);
        float declared = cases[c].factor == 1e9 ? 0.0f : (float)(cases[c].factor * 0.01);
        CHECK(a && a->meters_per_unit == declared, "%s: %g m a unit, not %g: %s", cases[c].name,
              a ? (double)a->meters_per_unit : -1.0, (double)declared, a ? "" : err.description);
        cli_result r = run("convert '%s' -o '%s' %s", path, out, cases[c].options);
        CHECK(r.status == 0 && (cases[c].said ? strstr(r.err, cases[c].said) != NULL : !strstr(r.err, "scaled by")),
              "convert %s: %d: %s", cases[c].name, r.status, r.err);
        CHECK(cases[c].factor != 1e9 || strstr(r.err, "is not a plausible length unit"),
              "convert %s warns of its unit: %s", cases[c].name, r.err);
        cli_result_free(&r);
        sinew_asset *back = sinew_load_file(out, NULL, &err);
        double gap = a && back ? scaled_gap(a, back, cases[c].scale) : -1.0;
        CHECK(gap >= 0.0 && gap < 1e-6, "%s: written %g times as large as loaded (relative gap %g): %s",
              cases[c].name, cases[c].scale, gap, back ? "" : err.description);
        sinew_asset_free(back), sinew_asset_free(a);
    }
    free(fbx);
    /* Collada in inches: Assimp scales its root by 0.0254, so the scene is
     * in metres and convert leaves it */
    char *dae = (char *)test_read_file(SINEW_ASSETS "/collada/pab/skeleton.dae", &size);
    static const char cm[] = "<unit meter=\"0.010000\" name=\"centimeter\">", inch[] = "<unit meter=\"0.0254\" name=\"inch\">";
    char *unit = dae ? strstr(dae, cm) : NULL;
    CHECK(!dae || unit, "skeleton.dae declares centimetres");
    if (unit) {
        snprintf(path, sizeof path, "%s/units-inches.dae", work);
        snprintf(out, sizeof out, "%s/units-inches-dae.glb", work);
        FILE *f = fopen(path, "wb");
        size_t before = (size_t)(unit - dae), after = size - before - (sizeof cm - 1);
        CHECK(f && fwrite(dae, 1, before, f) == before && fputs(inch, f) >= 0 &&
                  fwrite(unit + sizeof cm - 1, 1, after, f) == after && fclose(f) == 0,
              "%s written", path);
        sinew_asset *centimetres = test_load_shared(SINEW_ASSETS "/collada/pab/skeleton.dae");
        a = sinew_load_file(path, NULL, &err);
        CHECK(a && a->meters_per_unit == 1.0f && centimetres &&
                  fabsf(a->skeleton->rest_pose[0].scale.x / centimetres->skeleton->rest_pose[0].scale.x - 2.54f) < 1e-5f,
              "Collada in inches: its root scaled 2.54 times the centimetres' one, in metres: %s",
              a ? "" : err.description);
        cli_result r = run("convert '%s' -o '%s'", path, out);
        CHECK(r.status == 0 && !strstr(r.err, "scaled by"), "convert Collada in inches: %d: %s", r.status, r.err);
        cli_result_free(&r);
        sinew_asset *back = sinew_load_file(out, NULL, &err);
        double gap = a && back ? scaled_gap(a, back, 1.0) : -1.0;
        CHECK(gap >= 0.0 && gap < 1e-6, "Collada in inches: written as loaded (relative gap %g)", gap);
        sinew_asset_free(back), sinew_asset_free(a), sinew_asset_free(centimetres);
    }
    free(dae);
}

/* ---- axes ------------------------------------------------------------- */

/* -90 degrees about X, row-major: +Z to +Y, +Y to -Z; what a file declaring
 * Z up and front -Y turns by */
static const double z_up[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0};

static void turn3(const double r[9], double *v)
{
    double x = v[0], y = v[1], z = v[2];
    for (int i = 0; i < 3; ++i) v[i] = r[i * 3] * x + r[i * 3 + 1] * y + r[i * 3 + 2] * z;
}

/* A baked frame scaled by `f` and turned by `r` about the origin: world
 * matrices R * S * W (column-major: each column turned, the translation
 * scaled first), mesh positions and normals. */
static void turn_frame(cJSON *frame, const double r[9], double f)
{
    scale_frame(frame, f);
    cJSON *n, *m;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(frame, "nodes"))
    {
        cJSON *w = cJSON_GetObjectItem(n, "world");
        for (int c = 0; c < 4; ++c) {
            double v[3];
            for (int i = 0; i < 3; ++i) v[i] = cJSON_GetArrayItem(w, c * 4 + i)->valuedouble;
            turn3(r, v);
            for (int i = 0; i < 3; ++i) cJSON_SetNumberValue(cJSON_GetArrayItem(w, c * 4 + i), v[i]);
        }
    }
    /* the arrays walked item by item: an index lookup walks the list */
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(frame, "meshes"))
        for (int k = 0; k < 2; ++k) {
            cJSON *list = cJSON_GetObjectItem(m, k ? "normals" : "positions");
            for (cJSON *x = list ? list->child : NULL; x && x->next && x->next->next; x = x->next->next->next) {
                cJSON *item[3] = {x, x->next, x->next->next};
                double v[3];
                for (int c = 0; c < 3; ++c) v[c] = item[c]->valuedouble;
                turn3(r, v);
                for (int c = 0; c < 3; ++c) cJSON_SetNumberValue(item[c], v[c]);
            }
        }
}

/* `sinew bake` of `out` against `source` (NULL: the built-in character,
 * the asset `a`) scaled by `f` and turned by `r`, over each clip's times
 * (round_trip's), with the springs simulated where `springs`: nodes and
 * vertices within 1e-6 of the model's size (vertices past what weight
 * sums explain), normals within 1e-5; with springs, node positions and
 * vertices so, and rotation entries within 1e-4 (as scaled_springs). */
static void turned_bakes(const sinew_asset *a, const char *source, const char *out, const double r[9], double f,
                         bool springs, const char *what)
{
    char json_src[1024], json_out[1024];
    snprintf(json_src, sizeof json_src, "%s/bake_src.json", work);
    snprintf(json_out, sizeof json_out, "%s/bake_out.json", work);
    worst w = {0, 0, 0, 0, ""};
    double deficit = weight_deficit(a), size = 0.0, most = 0.0;
    int frames = 0;
    for (int c = 0; c < (a->clip_count ? a->clip_count : 1); ++c) {
        char clip[32], times[2048];
        bake_args(a, c, clip, times);
        cJSON *src = bake(source, clip, times, springs, json_src), *dst = bake(out, clip, times, springs, json_out);
        CHECK(src && dst, "%s: clip %s: bake gave no JSON", what, clip);
        const cJSON *fs = src ? cJSON_GetObjectItem(src, "frames") : NULL, *fo = dst ? cJSON_GetObjectItem(dst, "frames") : NULL;
        for (cJSON *x = fs ? fs->child : NULL; x; x = x->next) {
            turn_frame(x, r, f);
            /* a written source of the built-in character holds a node for
             * its skinned mesh, which glTF skins ignoring and the writer
             * does not turn: the joints' nodes are compared */
            cJSON *nodes = cJSON_GetObjectItem(x, "nodes");
            for (int i = cJSON_GetArraySize(nodes) - 1; source && !a->node_joints && i >= 0; --i)
                if (cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, i), "index")->valueint >= a->skeleton->joint_count)
                    cJSON_DeleteItemFromArray(nodes, i);
        }
        if (size == 0.0 && fs && fs->child) size = model_size(fs->child);
        const cJSON *x = fs ? fs->child : NULL, *y = fo ? fo->child : NULL;
        for (; x && y; x = x->next, y = y->next, ++frames) {
            char at[1600];
            snprintf(at, sizeof at, "%s: clip %s at %g", what, clip, cJSON_GetObjectItem(x, "time")->valuedouble);
            if (springs) {
                /* positions only: the nodes' translations and the vertices */
                const cJSON *n = cJSON_GetObjectItem(x, "nodes")->child, *o = cJSON_GetObjectItem(y, "nodes")->child;
                for (; n && o; n = n->next, o = o->next)
                    for (int k = 0; k < 16; ++k) {
                        double d = fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(n, "world"), k)->valuedouble -
                                        cJSON_GetArrayItem(cJSON_GetObjectItem(o, "world"), k)->valuedouble);
                        if (k >= 12 && k < 15) w.nodes = fmax(w.nodes, d);
                        else most = fmax(most, d);
                    }
                int bad = 0;
                const cJSON *p = cJSON_GetObjectItem(x, "meshes")->child, *q = cJSON_GetObjectItem(y, "meshes")->child;
                for (; p && q; p = p->next, q = q->next)
                    w.excess = fmax(w.excess, array_diff(cJSON_GetObjectItem(p, "positions"),
                                                         cJSON_GetObjectItem(q, "positions"), &bad));
                CHECK(!bad, "%s: arrays of other lengths", at);
            } else {
                compare_frame(a, at, x, y, deficit, &w);
            }
        }
        cJSON_Delete(src), cJSON_Delete(dst);
    }
    printf("%s: %d frames, size %.4g; worst node %.3g (%.2g of size), worst vertex past the weight sums %.3g, worst "
           "normal component %.2g, worst rotation entry %.2g\n", what, frames, size, w.nodes, w.nodes / size,
           fmax(w.excess, 0.0), w.normals, most);
    CHECK(frames > 0 && w.nodes <= 1e-6 * size && w.excess <= 1e-6 * size && w.normals <= 1e-5 && most <= 1e-4,
          "%s: a node moved %g, a vertex %g (size %g), a normal component %g, a rotation entry %g", what, w.nodes,
          w.excess, size, w.normals, most);
}

/* The axes skeleton.fbx declares, patched: Z up (front -Y) turned to Y up
 * by convert and said so, left by --keep-axes; a mirror and a repeated
 * axis left as loaded with a warning. Collada declaring Z_UP comes out of
 * Assimp Y up already: no rotation. The built-in character through the
 * library, turned by options->rotation. */
static void declared_axes(void)
{
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo && demo->axis_rotation.w == 1.0f, "the built-in character is Y up");
    if (demo) {
        char out[1200];
        snprintf(out, sizeof out, "%s/axes-builtin.glb", work);
        sinew_gltf_write_options o = {.rotation = {-0.70710678f, 0.0f, 0.0f, 0.70710678f}};
        CHECK(sinew_write_gltf(demo, out, &o, NULL, &err) == SINEW_OK, "built-in turned: %s", err.description);
        turned_bakes(demo, NULL, out, z_up, 1.0, false, "built-in turned -90 degrees about X");
        /* the springs amplify the rounding of a quarter turn's quaternion
         * (0.70710677): in the second clip a tail lands 5e-4 m from R
         * times the source's. A half turn, which floats hold exactly,
         * shows that they turn with the scene. */
        static const double half[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
        o.rotation = (sinew_quat){1.0f, 0.0f, 0.0f, 0.0f};
        CHECK(sinew_write_gltf(demo, out, &o, NULL, &err) == SINEW_OK, "built-in turned: %s", err.description);
        turned_bakes(demo, NULL, out, half, 1.0, true, "built-in turned 180 degrees about X, springs");
        /* sampled clips turn after sampling: compressed ones, and every
         * clip resampled, against the same written unturned */
        sinew_clip *packed[8] = {NULL};
        sinew_asset p = *demo;
        for (int c = 0; c < demo->clip_count && c < 8; ++c)
            packed[c] = sinew_clip_compress(demo->clips[c], demo->skeleton, NULL, NULL, NULL, &err);
        p.clips = (const sinew_clip *const *)packed;
        for (int k = 0; k < 2; ++k) {
            char plain[1200], what[64];
            snprintf(plain, sizeof plain, "%s/axes-builtin-%s-plain.glb", work, k ? "resampled" : "compressed");
            snprintf(out, sizeof out, "%s/axes-builtin-%s.glb", work, k ? "resampled" : "compressed");
            sinew_gltf_write_options plain_o = {.resample_rate = k ? 30.0f : 0.0f}, turned_o = plain_o;
            turned_o.rotation = (sinew_quat){-0.70710678f, 0.0f, 0.0f, 0.70710678f};
            const sinew_asset *from = k ? demo : &p;
            CHECK(demo->clip_count <= 8 && (k || packed[0]) &&
                      sinew_write_gltf(from, plain, &plain_o, NULL, &err) == SINEW_OK &&
                      sinew_write_gltf(from, out, &turned_o, NULL, &err) == SINEW_OK,
                  "built-in %s turned: %s", k ? "resampled" : "compressed", err.description);
            snprintf(what, sizeof what, "built-in %s, turned -90 degrees about X", k ? "resampled" : "compressed");
            turned_bakes(demo, plain, out, z_up, 1.0, false, what);
        }
        for (int c = 0; c < 8; ++c) sinew_clip_free(packed[c]);
        o.rotation = (sinew_quat){0.0f, 0.0f, 0.0f, 2.0f};
        CHECK(sinew_write_gltf(demo, out, &o, NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
                  strstr(err.description, "is not a unit quaternion"),
              "a rotation of length 2 refused: %s", err.description);
        sinew_asset_free(demo);
    }
    size_t size = 0;
    unsigned char *fbx = read_skeleton_fbx(&size, "declared axes");
    if (!fbx) return;
    sinew_asset *y_up = sinew_load_file(SINEW_ASSETS "/fbx/pab/skeleton.fbx", NULL, &err);
    CHECK(y_up && y_up->axis_rotation.x == 0.0f && y_up->axis_rotation.y == 0.0f && y_up->axis_rotation.z == 0.0f &&
              y_up->axis_rotation.w == 1.0f,
          "skeleton.fbx declares Y up: no rotation");
    sinew_asset_free(y_up);
    /* binary FBX's int property: its name's length and name, type, label
     * and flags as strings, then the int32 */
    static const char *const names[3] = {"UpAxis", "FrontAxis", "FrontAxisSign"};
    size_t at[3];
    for (int k = 0; k < 3; ++k) {
        char key[96];
        size_t n = strlen(names[k]), len = 0;
        key[len++] = 'S';
        key[len++] = (char)n, key[len++] = 0, key[len++] = 0, key[len++] = 0;
        memcpy(key + len, names[k], n), len += n;
        static const char rest[] = "S\x03\0\0\0intS\x07\0\0\0IntegerS\0\0\0\0I";
        memcpy(key + len, rest, sizeof rest - 1), len += sizeof rest - 1;
        at[k] = 0;
        while (at[k] + len + 4 <= size && memcmp(fbx + at[k], key, len) != 0) ++at[k];
        at[k] += len;
        CHECK(at[k] + 4 <= size, "skeleton.fbx holds its %s", names[k]);
        if (at[k] + 4 > size) {
            free(fbx);
            return;
        }
    }
    static const struct {
        const char *name, *options;
        int32_t up, front, front_sign;
        bool turns;
        const char *said;
    } cases[] = {
        {"zup", "", 2, 1, -1, true, "turned from Z up to Y up: the file declares Z up (--keep-axes leaves it)"},
        {"kept", "--keep-axes", 2, 1, -1, false, "left Z up, which the file declares (--keep-axes); glTF readers take Y up"},
        {"mirror", "", 2, 1, 1, false, "mirror glTF's, which no rotation turns"},
        {"repeated", "", 2, 2, 1, false, "are not three distinct axes"},
    };
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        memcpy(fbx + at[0], &cases[c].up, 4);
        memcpy(fbx + at[1], &cases[c].front, 4);
        memcpy(fbx + at[2], &cases[c].front_sign, 4);
        char path[1200], out[1200], what[1300];
        snprintf(path, sizeof path, "%s/axes-%s.fbx", work, cases[c].name);
        snprintf(out, sizeof out, "%s/axes-%s.glb", work, cases[c].name);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(fbx, 1, size, f) == size && fclose(f) == 0, "%s written", path);
        sinew_asset *a = sinew_load_file(path, NULL, &err);
        CHECK(a != NULL, "%s: %s", path, err.description);
        if (!a) continue;
        sinew_quat q = a->axis_rotation;
        bool turned = !(q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f);
        CHECK(turned == (cases[c].up == 2 && cases[c].front_sign == -1),
              "%s: rotation (%g, %g, %g, %g)", cases[c].name, (double)q.x, (double)q.y, (double)q.z, (double)q.w);
        cli_result r = run("convert '%s' -o '%s' %s", path, out, cases[c].options);
        CHECK(r.status == 0 && strstr(r.err, cases[c].said) && (cases[c].turns || !strstr(r.err, "turned from")),
              "convert %s: %d: %s", cases[c].name, r.status, r.err);
        cli_result_free(&r);
        snprintf(what, sizeof what, "skeleton.fbx declaring axes (%s)", cases[c].name);
        turned_bakes(a, path, out, cases[c].turns ? z_up : identity, 0.01, false, what);
        sinew_asset_free(a);
    }
    free(fbx);
    /* Collada's Z_UP: Assimp turns the root node itself */
    char *dae = (char *)test_read_file(SINEW_ASSETS "/collada/pab/skeleton.dae", &size);
    static const char y[] = "<up_axis>Y_UP</up_axis>";
    char *up = dae ? strstr(dae, y) : NULL;
    CHECK(!dae || up, "skeleton.dae declares Y_UP");
    if (up) {
        memcpy(up, "<up_axis>Z_UP</up_axis>", sizeof y - 1);
        char path[1200];
        snprintf(path, sizeof path, "%s/axes-zup.dae", work);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(dae, 1, size, f) == size && fclose(f) == 0, "%s written", path);
        sinew_asset *a = sinew_load_file(path, NULL, &err), *b = test_load_shared(SINEW_ASSETS "/collada/pab/skeleton.dae");
        sinew_quat q = a ? a->axis_rotation : (sinew_quat){0, 0, 0, 0}, r0 = a ? a->skeleton->rest_pose[0].rotation : q,
                   r1 = b ? b->skeleton->rest_pose[0].rotation : q;
        CHECK(a && q.w == 1.0f && b && fabsf(r0.x - r1.x) + fabsf(r0.y - r1.y) + fabsf(r0.z - r1.z) > 0.5f,
              "Collada Z_UP: no rotation declared, the root turned by Assimp (%g %g %g %g)", (double)r0.x,
              (double)r0.y, (double)r0.z, (double)r0.w);
        sinew_asset_free(a), sinew_asset_free(b);
    }
    free(dae);
}

/* `convert` of an FBX file says it scales centimetres to metres, and
 * --keep-units leaves the lengths as loaded, saying so; the round trips
 * above check the scaled files' poses. */
static void units_check(const char *path)
{
    sinew_asset *a = test_load_shared(path);
    if (!a) return;
    char out[1024];
    snprintf(out, sizeof out, "%s/kept units.glb", work);
    cli_result r = run("convert '%s' -o '%s'", path, out);
    CHECK(r.status == 0 && strstr(r.err, ": scaled by 0.01: the file declares centimetres (--keep-units leaves them)"),
          "convert %s: %d: %s", path, r.status, r.err);
    cli_result_free(&r);
    r = run("convert '%s' -o '%s' --keep-units", path, out);
    CHECK(r.status == 0 &&
              strstr(r.err, ": left in centimetres, which the file declares (--keep-units); glTF readers take metres") &&
              !strstr(r.err, "scaled by"),
          "convert %s --keep-units: %d: %s", path, r.status, r.err);
    cli_result_free(&r);
    sinew_error err = {0};
    sinew_asset *back = sinew_load_file(out, NULL, &err);
    CHECK(back != NULL, "%s: %s", out, err.description);
    int off = 0;
    for (int j = 0; back && j < a->skeleton->joint_count; ++j)
        off += memcmp(&a->skeleton->rest_pose[j].translation, &back->skeleton->rest_pose[j].translation,
                      sizeof(sinew_vec3)) != 0;
    for (int m = 0; back && m < a->mesh_count && m < back->mesh_count; ++m)
        off += memcmp(a->meshes[m].positions, back->meshes[m].positions,
                      sizeof(float) * 3 * (size_t)a->meshes[m].vertex_count) != 0;
    CHECK(back && off == 0, "%s --keep-units: %d joints or meshes moved", path, off);
    sinew_asset_free(back);
    sinew_asset_free(a);
}

/* `convert --unit 0.01` of the built-in character: every length times
 * 0.01, springs too (their colliders, hit radii, stiffness and gravity
 * are lengths), so that baking with --springs gives the source's poses
 * scaled, within 1e-6 of the model's size. */
static void scaled_springs(void)
{
    char out[1024], json_src[1024], json_out[1024];
    snprintf(out, sizeof out, "%s/builtin.unit 0.01.glb", work);
    snprintf(json_src, sizeof json_src, "%s/bake_src.json", work);
    snprintf(json_out, sizeof json_out, "%s/bake_out.json", work);
    cli_result r = run("convert -o '%s' --unit 0.01", out);
    CHECK(r.status == 0 && strstr(r.err, "scaled by 0.01"), "convert --unit 0.01: %d: %s", r.status, r.err);
    cli_result_free(&r);
    const char *times = "0,0.1,0.25,0.5,0.75,1";
    cJSON *src = bake(NULL, "0", times, true, json_src), *dst = bake(out, "0", times, true, json_out);
    CHECK(src && dst, "built-in --unit 0.01: bake gave no JSON");
    if (src && dst) {
        scale_frames(src, 0.01);
        const cJSON *x = cJSON_GetObjectItem(src, "frames")->child, *y = cJSON_GetObjectItem(dst, "frames")->child;
        double size = x ? model_size(x) : 1.0, most = 0.0, turn = 0.0;
        int frames = 0;
        for (; x && y; x = x->next, y = y->next, ++frames) {
            int bad = 0;
            const cJSON *n = cJSON_GetObjectItem(x, "nodes")->child, *m = cJSON_GetObjectItem(y, "nodes")->child;
            /* translations against the size; the 3x3 parts (unitless) as they are */
            for (; n && m; n = n->next, m = m->next)
                for (int k = 0; k < 15; ++k) {
                    double d = fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(n, "world"), k)->valuedouble -
                                    cJSON_GetArrayItem(cJSON_GetObjectItem(m, "world"), k)->valuedouble);
                    if (k >= 12) most = fmax(most, d);
                    else turn = fmax(turn, d);
                }
            const cJSON *a = cJSON_GetObjectItem(x, "meshes")->child, *b = cJSON_GetObjectItem(y, "meshes")->child;
            for (; a && b; a = a->next, b = b->next)
                most = fmax(most, array_diff(cJSON_GetObjectItem(a, "positions"), cJSON_GetObjectItem(b, "positions"),
                                             &bad));
            CHECK(!bad, "built-in --unit 0.01: frame %d: arrays of other lengths", frames);
        }
        printf("builtin --unit 0.01 with springs: %d frames, worst position %.3g (%.2g of size %.4g), worst "
               "rotation entry %.2g\n", frames, most, most / size, size, turn);
        /* the simulation rounds otherwise at another scale: a spring joint
         * turns by some 1e-6 */
        CHECK(frames == 6 && most <= 1e-6 * size && turn <= 1e-4,
              "built-in --unit 0.01 with springs: moved %g, size %g; a rotation entry by %g", most, size, turn);
    }
    cJSON_Delete(src), cJSON_Delete(dst);
}

/* ---- through the library ------------------------------------------------ */

static sinew_asset *write_and_load(const sinew_asset *a, const char *name, const sinew_gltf_write_options *o,
                                   sinew_gltf_write_report *report)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", work, name);
    sinew_error err = {0};
    sinew_result r = sinew_write_gltf(a, path, o, report, &err);
    CHECK(r == SINEW_OK, "%s: %s", name, err.description);
    if (r != SINEW_OK) return NULL;
    sinew_asset *back = sinew_load_file(path, NULL, &err);
    CHECK(back != NULL, "%s: %s", name, err.description);
    return back;
}

/* options->max_influences 4 on a file of up to 8: each vertex keeps its 4
 * largest weights, divided by their sum (within the validator's 2e-7 a
 * weight of 1), and the report counts the vertices and the largest weight
 * dropped. */
static void influence_limit(const char *path)
{
    sinew_asset *a = test_load_shared(path);
    if (!a) return;
    sinew_gltf_write_options o = {.max_influences = 4};
    sinew_gltf_write_report rep = {0};
    sinew_asset *back = write_and_load(a, "influences 4.glb", &o, &rep);
    int limited = 0, off = 0;
    float dropped = 0.0f;
    double most = 0.0;
    for (int m = 0; back && m < a->mesh_count && m < back->mesh_count; ++m) {
        const sinew_skin *x = a->meshes[m].skin, *y = back->meshes[m].skin;
        if (!x) continue;
        CHECK(y && y->influence_count <= 4, "mesh %d: %d influences written", m, y ? y->influence_count : -1);
        if (!y) continue;
        for (int v = 0; v < x->vertex_count; ++v) {
            int jx[SINEW_MAX_INFLUENCES], jy[SINEW_MAX_INFLUENCES];
            float wx[SINEW_MAX_INFLUENCES], wy[SINEW_MAX_INFLUENCES];
            sinew_skin_vertex(x, v, jx, wx);
            sinew_skin_vertex(y, v, jy, wy);
            /* the source's weights, largest first */
            int k = 0;
            float sorted[SINEW_MAX_INFLUENCES];
            for (int i = 0; i < x->influence_count; ++i)
                if (wx[i] > 0.0f) sorted[k++] = wx[i];
            for (int i = 0; i < k; ++i)
                for (int j = i + 1; j < k; ++j)
                    if (sorted[j] > sorted[i]) {
                        float t = sorted[i];
                        sorted[i] = sorted[j], sorted[j] = t;
                    }
            float kept = 0.0f;
            for (int i = 0; i < k && i < 4; ++i) kept += sorted[i];
            if (k > 4) limited++, dropped = fmaxf(dropped, sorted[4]);
            double sum = 0.0;
            for (int i = 0; i < y->influence_count; ++i) {
                sum += wy[i];
                if (!(wy[i] > 0.0f)) continue;
                /* each kept weight is the source's over the kept sum */
                double found = -1.0;
                for (int s = 0; s < x->influence_count; ++s)
                    if (x->joints[jx[s]] == y->joints[jy[i]] && wx[s] > 0.0f) found = wx[s] / kept;
                off += found < 0.0;
                if (found >= 0.0) most = fmax(most, fabs(found - wy[i]));
            }
            CHECK(fabs(sum - 1.0) <= 8e-7, "mesh %d vertex %d: weights sum to %.9g written", m, v, sum);
        }
    }
    printf("%s --influences 4: %d vertices limited (report %d), the largest weight dropped %g (report %g), kept "
           "weights within %.2g of the source's renormalized\n", path, limited, rep.limited_vertices, (double)dropped,
           (double)rep.dropped_weight, most);
    CHECK(back && limited > 0 && rep.limited_vertices == limited && rep.dropped_weight == dropped && off == 0 &&
              most <= 1e-6,
          "%s: %d vertices past 4 influences, reported %d; dropped %g, reported %g; %d weights of joints the source "
          "does not name; kept weights off by %g",
          path, limited, rep.limited_vertices, (double)dropped, (double)rep.dropped_weight, off, most);
    sinew_asset_free(back);
    sinew_asset_free(a);
}

static void library_checks(void)
{
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "%s", err.description);
    if (!demo) return;
    const sinew_skeleton *sk = demo->skeleton;
    int n = sk->joint_count;

    /* timelines on both clips, and a clip lasting past its last key */
    float t0[] = {0.0f, 0.3f, 0.8f}, v0[] = {0.0f, 1.0f, 0.25f};
    uint8_t step0[] = {0, 1, 0};
    float t1[] = {0.0f, 1.0f}, v1[] = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f};
    sinew_user_track tracks[] = {{"contact", 1, false, 3, t0, v0, step0, 0.01f},
                                 {"look", 4, true, 2, t1, v1, NULL, 0.0f}};
    sinew_event events[] = {{"foot_l", 0.3f}, {"foot \"r\"", 0.8f}};
    sinew_timeline_desc td = {demo->clips[0]->duration, 2, tracks, 2, events};
    sinew_timeline *tl = sinew_timeline_create(&td, NULL, &err);
    CHECK(tl != NULL, "%s", err.description);
    const sinew_clip *walk = demo->clips[0];
    sinew_clip_desc cd = {"long walk", n, walk->duration + 0.5f, walk->track_count, walk->tracks, false, NULL};
    sinew_clip *longer = sinew_clip_create(&cd, NULL, &err);
    CHECK(longer != NULL, "%s", err.description);
    if (tl && longer) {
        const sinew_clip *clips[] = {walk, longer};
        const sinew_timeline *tls[] = {tl, NULL};
        sinew_asset copy = *demo;
        copy.clips = clips, copy.clip_count = 2, copy.timelines = tls;
        sinew_asset *back = write_and_load(&copy, "timeline test.gltf", NULL, NULL);
        char bin[1024];
        snprintf(bin, sizeof bin, "%s/timeline test.bin", work);
        FILE *f = fopen(bin, "rb");
        CHECK(f != NULL, "%s: the buffer beside the .gltf", bin);
        if (f) fclose(f);
        if (back) {
            CHECK(back->clip_count == 2, "%d clips", back->clip_count);
            CHECK(back->clip_count == 2 && back->clips[1]->duration == longer->duration,
                  "a clip past its keys lasts %g, written %g", (double)longer->duration,
                  back->clip_count == 2 ? (double)back->clips[1]->duration : -1.0);
            const sinew_timeline *b = back->timelines ? back->timelines[0] : NULL;
            CHECK(b && !back->timelines[1], "timelines read back: %p", (const void *)b);
            if (b) {
                CHECK(b->duration == tl->duration && b->event_count == 2 && b->track_count == 2,
                      "timeline: duration %g, %d events, %d tracks", (double)b->duration, b->event_count,
                      b->track_count);
                for (int e = 0; e < 2 && e < b->event_count; ++e)
                    CHECK(strcmp(b->events[e].name, tl->events[e].name) == 0 && b->events[e].time == tl->events[e].time,
                          "event %d: \"%s\" at %g", e, b->events[e].name, (double)b->events[e].time);
                for (int k = 0; k < 2 && k < b->track_count; ++k) {
                    const sinew_user_track *x = &tl->tracks[k], *y = &b->tracks[k];
                    bool same = strcmp(x->name, y->name) == 0 && x->components == y->components &&
                                x->quaternion == y->quaternion && x->key_count == y->key_count &&
                                x->tolerance == y->tolerance &&
                                memcmp(x->times, y->times, sizeof(float) * (size_t)x->key_count) == 0 &&
                                memcmp(x->values, y->values, sizeof(float) * (size_t)(x->key_count * x->components)) == 0;
                    for (int i = 0; same && i < x->key_count; ++i)
                        same = (x->step && x->step[i]) == (y->step && y->step[i]);
                    CHECK(same, "user track %d (\"%s\") differs read back", k, x->name);
                }
            }
            sinew_asset_free(back);
        }
    }

    /* a compressed clip: sampled at its rate into tracks that give its poses */
    sinew_compress_options co = {1.0f, 1e-4f, 0.0f, NULL};
    sinew_compress_report cr;
    sinew_clip *small = sinew_clip_compress(walk, sk, &co, NULL, &cr, &err);
    CHECK(small != NULL, "%s", err.description);
    if (small) {
        const sinew_clip *clips[] = {small};
        sinew_asset copy = *demo;
        copy.clips = clips, copy.clip_count = 1, copy.timelines = NULL;
        sinew_gltf_write_report rep = {0};
        sinew_asset *back = write_and_load(&copy, "compressed.glb", NULL, &rep);
        CHECK(rep.resampled_clips == 1, "%d clips resampled", rep.resampled_clips);
        if (back) {
            const sinew_clip *c = back->clips[0];
            CHECK(!c->compressed && c->track_count > 0 && c->duration == small->duration,
                  "resampled: %d tracks, duration %g of %g", c->track_count, (double)c->duration,
                  (double)small->duration);
            float rate = cr.sample_rate > 0.0f ? cr.sample_rate : 30.0f;
            /* the written skeleton holds the joints, then a joint for the mesh's node */
            int nb = back->skeleton->joint_count;
            sinew_transform *p = malloc(sizeof *p * (size_t)(n + nb));
            double most = 0.0;
            for (int k = 0; p && k <= 8; ++k) {
                float t = (float)k / rate; /* on the samples the tracks hold */
                if (t > small->duration) break;
                sinew_result r1 = sinew_clip_sample(small, sk, t, SINEW_SAMPLE_CLAMP, NULL, p, n, &err);
                sinew_result r2 = sinew_clip_sample(c, back->skeleton, t, SINEW_SAMPLE_CLAMP, NULL, p + n, nb, &err);
                CHECK(r1 == SINEW_OK && r2 == SINEW_OK, "%s", err.description);
                for (int j = 0; j < n; ++j) {
                    const sinew_transform *x = &p[j], *y = &p[n + j];
                    const float *a3[2] = {&x->translation.x, &x->scale.x}, *b3[2] = {&y->translation.x, &y->scale.x};
                    for (int v = 0; v < 2; ++v)
                        for (int i = 0; i < 3; ++i) most = fmax(most, fabs((double)a3[v][i] - (double)b3[v][i]));
                    /* q and -q are one rotation */
                    most = fmax(most, 1.0 - fabs((double)sinew_quat_dot(x->rotation, y->rotation)));
                }
            }
            CHECK(most <= 1e-6, "a compressed clip's poses at its samples differ by %g written", most);
            free(p);
            sinew_asset_free(back);
        }
        sinew_clip_free(small);
    }

    /* weights as normalized bytes and shorts */
    for (int q = 1; q <= 2; ++q) {
        sinew_gltf_write_options o = {.weights = q == 1 ? SINEW_GLTF_WEIGHTS_UNORM8 : SINEW_GLTF_WEIGHTS_UNORM16};
        sinew_asset *back = write_and_load(demo, q == 1 ? "unorm8.glb" : "unorm16.glb", &o, NULL);
        if (!back) continue;
        const sinew_skin *x = demo->meshes[0].skin, *y = back->meshes[0].skin;
        double most = 0.0, step = q == 1 ? 1.0 / 255.0 : 1.0 / 65535.0;
        for (int v = 0; y && v < x->vertex_count; ++v) {
            int jx[8], jy[8];
            float wx[8], wy[8];
            sinew_skin_vertex(x, v, jx, wx);
            sinew_skin_vertex(y, v, jy, wy);
            for (int i = 0; i < x->influence_count; ++i) {
                if (!(wx[i] > 0.0f)) continue;
                double found = 0.0;
                for (int k = 0; k < y->influence_count; ++k)
                    if (y->joints[jy[k]] == x->joints[jx[i]]) found += wy[k];
                most = fmax(most, fabs(found - wx[i]));
            }
        }
        CHECK(y && most <= step, "unorm%d weights off by %g (a step is %g)", q * 8, most, step);
        sinew_asset_free(back);
    }

    /* options->scale: lengths times it as written, rotations and weights
     * as they were; the loader reads the floats written back exactly */
    {
        sinew_gltf_write_options o = {.scale = 0.01f};
        sinew_asset *back = write_and_load(demo, "scaled 0.01.glb", &o, NULL);
        if (back) {
            int off = 0;
            for (int j = 0; j < n; ++j) {
                const sinew_transform *x = &sk->rest_pose[j], *y = &back->skeleton->rest_pose[j];
                off += y->translation.x != x->translation.x * 0.01f || y->translation.y != x->translation.y * 0.01f ||
                       y->translation.z != x->translation.z * 0.01f ||
                       y->rotation.x != x->rotation.x || y->rotation.y != x->rotation.y ||
                       y->rotation.z != x->rotation.z || y->rotation.w != x->rotation.w;
            }
            CHECK(off == 0, "scale 0.01: %d joints' rest poses are not the source's scaled", off);
            double most = 0.0;
            off = 0;
            for (int m = 0; m < demo->mesh_count && m < back->mesh_count; ++m) {
                const sinew_mesh *x = &demo->meshes[m], *y = &back->meshes[m];
                for (int v = 0; v < x->vertex_count * 3; ++v)
                    off += y->positions[v] != x->positions[v] * 0.01f;
                for (int j = 0; x->skin && y->skin && j < x->skin->joint_count; ++j)
                    for (int c = 12; c < 15; ++c)
                        most = fmax(most, fabs(y->skin->inverse_bind[j].m[c] - x->skin->inverse_bind[j].m[c] * 0.01));
            }
            CHECK(off == 0 && most <= 1e-7, "scale 0.01: %d positions differ, inverse binds' translations by %g", off,
                  most);
            const sinew_springs_desc *xs = demo->springs, *ys = back->springs;
            CHECK(!xs || (ys && ys->collider_count == xs->collider_count), "scale 0.01: the springs' colliders");
            for (int i = 0; xs && ys && i < xs->collider_count; ++i)
                CHECK(ys->colliders[i].radius == xs->colliders[i].radius * 0.01f &&
                          ys->colliders[i].offset.y == xs->colliders[i].offset.y * 0.01f,
                      "scale 0.01: collider %d: radius %g of %g", i, (double)ys->colliders[i].radius,
                      (double)xs->colliders[i].radius);
            sinew_asset_free(back);
        }
    }

    /* refusals */
    char path[1024];
    sinew_gltf_write_options bad[] = {{.scale = -1.0f}, {.max_influences = 9}, {.resample_rate = -30.0f},
                                      {.shell_distance = NAN}};
    snprintf(path, sizeof path, "%s/bad options.glb", work);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
        CHECK(sinew_write_gltf(demo, path, &bad[i], NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
                  strstr(err.description, "options->"),
              "bad options %zu: %s", i, err.description);
    remove(path);
    /* resampling bounded by its joint samples, refused before anything is
     * made: 1e6 a second over the walk on every joint */
    snprintf(path, sizeof path, "%s/dense.glb", work);
    CHECK(sinew_write_gltf(demo, path, &(sinew_gltf_write_options){.resample_rate = 1e6f}, NULL, &err) ==
                  SINEW_ERROR_UNSUPPORTED &&
              strstr(err.description, "joint samples"),
          "resampled at 1e6 a second: %s", err.description);
    remove(path);
    snprintf(path, sizeof path, "%s/out.obj", work);
    CHECK(sinew_write_gltf(demo, path, NULL, NULL, &err) == SINEW_ERROR_INVALID_ARGUMENT &&
              strstr(err.description, "neither in .glb nor in .gltf"),
          "an .obj path: %s", err.description);
    sinew_clip *add = sinew_clip_make_additive(walk, sk, SINEW_ADDITIVE_FIRST_FRAME, NULL, &err);
    CHECK(add != NULL, "%s", err.description);
    if (add) {
        const sinew_clip *clips[] = {add};
        sinew_asset copy = *demo;
        copy.clips = clips, copy.clip_count = 1, copy.timelines = NULL;
        snprintf(path, sizeof path, "%s/additive.glb", work);
        CHECK(sinew_write_gltf(&copy, path, NULL, NULL, &err) == SINEW_ERROR_UNSUPPORTED &&
                  strstr(err.description, "is additive"),
              "an additive clip: %s", err.description);
        remove(path);
        sinew_clip_free(add);
    }
    sinew_clip_free(longer);
    sinew_timeline_free(tl);
    sinew_asset_free(demo);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_gltf_write SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    mkdir(work, 0777);
    library_checks();
    influence_limit(SINEW_ASSETS "/fbx/pab/arnaud.fbx");
    units_check(SINEW_ASSETS "/fbx/pab/skeleton.fbx");
    declared_units();
    declared_axes();
    scaled_springs();
    /* convert: glTF's options with an archive are refused, --clips-only with glTF too */
    static const char *const refused[][2] = {
        {"-o x.sinew --resample 30", "--resample is for glTF output"},
        {"-o x.sinew --keep-units", "--keep-units is for glTF output"},
        {"-o dir/ --influences 4", "--influences is for glTF output"},
        {"-o x.glb --resample 0", "--resample: \"0\" is not a rate"},
        {"-o x.glb --influences 9", "--influences: \"9\" is not an influence count from 1 to 8"},
        {"-o x.sinew --quantize", "--quantize is for glTF output"},
        {"-o dir/ --weights unorm8", "--weights is for glTF output"},
        {"-o x.glb --clips-only", "glTF has no place for what --clips-only asks"},
        {"-o x.gltf --weights half", "is not a weight type"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; ++i) {
        cli_result r = run("convert %s", refused[i][0]);
        CHECK(r.status == 2 && strstr(r.err, refused[i][1]), "convert %s: %d: %s", refused[i][0], r.status, r.err);
        cli_result_free(&r);
    }
    round_trip(NULL, "builtin");
    /* resampled: the built-in character (LINEAR at its own keys), a
     * spline-animated glTF file, an FBX file in centimeters */
    resample_trip(NULL, "builtin", 15.0f);
    resample_trip(SINEW_ASSETS "/gltf/interpolation_test.gltf", "gltf/interpolation_test.gltf", 30.0f);
    resample_trip(SINEW_ASSETS "/gltf/cesium_man.gltf", "gltf/cesium_man.gltf", 10.0f);
    resample_trip(SINEW_ASSETS "/fbx/pab/run.fbx", "fbx/pab/run.fbx", 10.0f);
    /* the generated files, in a folder of their own (the validator reads
     * only what was written) */
    char features_dir[1024];
    snprintf(features_dir, sizeof features_dir, "%s/sources", work);
    mkdir(features_dir, 0777);
    char **features = gltf_features_write(features_dir);
    CHECK(features != NULL, "the feature files could not be written to %s", features_dir);
    for (char **f = features; f && *f; ++f) {
        char rel[1024];
        const char *slash = strrchr(*f, '/');
        snprintf(rel, sizeof rel, "generated/%s", slash ? slash + 1 : *f);
        round_trip(*f, rel);
    }
    gltf_features_free(features);
    /* an archive back out: the built-in character and walk.fbx through
     * .sinew archives, baked against the archives */
    static const char *const archived[] = {NULL, SINEW_ASSETS "/fbx/pab/walk.fbx"};
    for (int i = 0; i < 2; ++i) {
        char archive[1200];
        snprintf(archive, sizeof archive, "%s/%s.sinew", features_dir, i ? "walk.fbx" : "builtin");
        if (i) {
            FILE *f = fopen(archived[i], "rb");
            if (!f) {
                printf("skip: %s is missing (the shared assets): no archive of it\n", archived[i]);
                continue;
            }
            fclose(f);
        }
        cli_result r = run("convert %s%s%s -o '%s'", archived[i] ? "'" : "", archived[i] ? archived[i] : "",
                           archived[i] ? "'" : "", archive);
        if (r.status != 0 && strstr(r.err, "libassimp-dev")) {
            printf("skip: %s: %s", archived[i], r.err);
        } else {
            CHECK(r.status == 0, "convert -o %s: %d: %s", archive, r.status, r.err);
            round_trip(archive, i ? "archive/walk.fbx.sinew" : "archive/builtin.sinew");
        }
        cli_result_free(&r);
    }
    source_list l = {0};
    static const char *const dirs[] = {"gltf", "fbx", "collada"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; ++i) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", SINEW_ASSETS, dirs[i]);
        collect(&l, dir, 1);
    }
    if (l.count == 0) printf("skip: no shared assets under %s: the built-in character alone\n", SINEW_ASSETS);
    if (l.count) qsort(l.paths, (size_t)l.count, sizeof *l.paths, by_name);
    for (int i = 0; i < l.count; ++i) {
        round_trip(l.paths[i], l.paths[i] + strlen(SINEW_ASSETS) + 1);
        free(l.paths[i]);
    }
    free(l.paths);
    return check_finish("test_gltf_write");
}
