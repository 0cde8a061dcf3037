/* SPDX-License-Identifier: MIT */
/* `sinew bake`: poses a file's scene at given times and writes what every
 * node and mesh primitive looks like, as JSON (docs/BAKE.md):
 *
 *   { "file": "...", "spring_dt": (with --springs) 0.0166666675,
 *     "clip": {"index": 0, "name": "...", "duration": 2.0},
 *     "frames": [ { "time": 0.5, "clip_time": 0.5,
 *        "events": (frames after the first, where the clip has a timeline)
 *                  [ {"clip": "...", "name": "...", "time": 0.3, "loop": 0} ],
 *        "tracks": (where it has user tracks) [ {"name": "...", "values": [...]} ],
 *        "nodes":  [ {"index": 0, "name": "...", "world": [16 numbers]} ],
 *        "meshes": [ {"node": 2, "mesh": 0, "primitive": 0, "skinned": true,
 *                     "positions": [...], "normals": [...]} ] } ] }
 *
 * Numbers are written with 9 significant digits, enough to give back the
 * same float32. */
#include "cli.h"
#include "layer.h"
#include "springs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bake_args {
    cli_source source;
    cli_layer_args layer;
    float *times;
    int time_count;
    bool loop;
    sinew_skinning method;
    const char *json;     /* NULL: stdout */
    int up;               /* 'y' (default) or 'z': up for root motion */
    cli_springs_args springs; /* simulate the file's spring bones */
    const char *events;   /* --events FILE: the clips' events from a sidecar */
} bake_args;

static int parse_args(int argc, char **argv, bake_args *a)
{
    cli_args p = cli_args_begin("bake", argc, argv);
    for (const char *v; cli_next(&p);) {
        if (cli_source_arg(&p, &a->source) || cli_layer_arg(&p, &a->layer) || cli_springs_arg(&p, &a->springs))
            continue;
        if (cli_flag(&p, "--loop")) {
            a->loop = true;
        } else if ((v = cli_value(&p, "--up"))) {
            if (strcmp(v, "y") != 0 && strcmp(v, "z") != 0)
                cli_bad_value(&p, "--up", v, "is not an axis: y or z");
            else
                a->up = v[0];
        } else if ((v = cli_value(&p, "--json"))) {
            a->json = v;
        } else if ((v = cli_value(&p, "--events"))) {
            a->events = v;
        } else if ((v = cli_value(&p, "--method"))) {
            if (!cli_parse_method(v, &a->method)) cli_bad_value(&p, "--method", v, "is not a method: lbs or dqs");
        } else if ((v = cli_value(&p, "--times"))) {
            if (a->times)
                cli_usage(&p, "--times given twice (one list: --times T1,T2,...)");
            else
                cli_times_arg(&p, "--times", v, &a->times, &a->time_count);
        } else {
            cli_unknown(&p);
        }
    }
    if (p.status == EXIT_OK && !a->times) cli_usage(&p, "--times T1,T2,... is required");
    cli_springs_args_check(&p, &a->springs);
    if (p.status != EXIT_OK) {
        free(a->times);
        a->times = NULL;
    }
    return p.status;
}

/* A float that reads back as the same float32; JSON has no NaN, so a
 * non-finite value is written as null. */
static void put_number(FILE *f, float x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", (double)x);
    else
        fputs("null", f);
}

static void put_floats(FILE *f, const float *x, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; ++i) {
        if (i) fputc(',', f);
        put_number(f, x[i]);
    }
    fputc(']', f);
}

typedef struct bake_buffers {
    cli_springs *springs;        /* with --springs */
    const sinew_timeline *timeline; /* the clip's user tracks and events, or NULL */
    float *values;               /* a sample of its user tracks */
    float prev_time;             /* the frame before's time */
    bool first;                  /* the first frame: no events */
    sinew_transform *local;
    sinew_mat4 *model;
    float *positions, *normals, *weights;
    void *scratch;
    size_t scratch_size;
} bake_buffers;

static bool alloc_buffers(const sinew_asset *a, bake_buffers *b)
{
    int n = a->skeleton->joint_count, nv = 1, nw = 1;
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        if (mesh->vertex_count > nv) nv = mesh->vertex_count;
        if (mesh->morph && mesh->morph->target_count > nw) nw = mesh->morph->target_count;
        size_t s = sinew_mesh_pose_scratch_size(mesh);
        if (s > b->scratch_size) b->scratch_size = s;
    }
    b->local = malloc(sizeof *b->local * (size_t)n);
    b->model = malloc(sizeof *b->model * (size_t)n);
    b->positions = malloc(sizeof(float) * 3 * (size_t)nv);
    b->normals = malloc(sizeof(float) * 3 * (size_t)nv);
    b->weights = malloc(sizeof(float) * (size_t)nw);
    b->scratch = b->scratch_size ? aligned_alloc(16, (b->scratch_size + 15) / 16 * 16) : NULL;
    return b->local && b->model && b->positions && b->normals && b->weights && (b->scratch || !b->scratch_size);
}

static void free_buffers(bake_buffers *b)
{
    cli_springs_free(b->springs);
    free(b->values);
    free(b->local), free(b->model), free(b->positions), free(b->normals), free(b->weights), free(b->scratch);
}

/* The pose at `time` (sampled or layered, IK included) into b->local and
 * its model matrices into b->model. */
static sinew_result pose_at(const sinew_asset *a, const sinew_clip *clip, cli_layer *layer, float time,
                            unsigned flags, bake_buffers *b, sinew_error *err)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    if (layer) {
        char why[200];
        const sinew_transform *pose = cli_layer_pose(layer, time, why, sizeof why);
        if (!pose) {
            snprintf(err->description, sizeof err->description, "%s", why);
            return err->result = SINEW_ERROR_INVALID_ARGUMENT;
        }
        memcpy(b->local, pose, sizeof *b->local * (size_t)n);
    }
    sinew_result r = layer ? SINEW_OK
                     : clip ? sinew_clip_sample(clip, sk, time, flags, NULL, b->local, n, err)
                            : sinew_rest_pose(sk, b->local, n, err);
    if (r == SINEW_OK) r = sinew_local_to_model(sk, b->local, NULL, b->model, n, err);
    return r;
}

/* What pose_at needs, for cli_springs_pose. */
typedef struct bake_pose {
    const sinew_asset *asset;
    const sinew_clip *clip;
    cli_layer *layer;
    unsigned flags;
    bake_buffers *b;
} bake_pose;

static sinew_result pose_for_springs(void *user, float time, sinew_transform *local, sinew_mat4 *model,
                                     sinew_error *err)
{
    bake_pose *p = user;
    (void)local, (void)model; /* they are p->b->local and p->b->model */
    return pose_at(p->asset, p->clip, p->layer, time, p->flags, p->b, err);
}

/* Where `time` lies on a timeline of `clip`'s duration: a pass and a time
 * in it (looping), or the time clamped to the clip. A time within about 16
 * float steps of an event's (k * duration + its time, written in decimal)
 * is taken as that event's, so that a frame asked at an event's time
 * crosses it whatever the rounding of the two. */
static void timeline_point(const sinew_timeline *tl, double time, bool loop, int64_t *pass, float *t)
{
    double d = tl->duration;
    if (!loop || !(d > 0.0)) {
        *pass = 0;
        *t = (float)(time < 0.0 ? 0.0 : time > d ? d : time);
    } else {
        double k = floor(time / d), in = time - k * d;
        *pass = (int64_t)k;
        double snap = 1e-6 * (fabs(time) > 1.0 ? fabs(time) : 1.0);
        for (int e = 0; e < tl->event_count; ++e) /* events are few; a frame checks each once */
            if (fabs(in - (double)tl->events[e].time) <= snap) in = tl->events[e].time;
        *t = (float)in;
        if (*t >= (float)d) *t = (float)d; /* the events' rule takes it as the next pass's start */
        if (*t < 0.0f) *t = 0.0f;
    }
}

/* The frame's "events" (crossed from `prev` to `time`) and "tracks". */
static int put_timeline(FILE *f, const sinew_clip *clip, const sinew_timeline *tl, float prev, float time, bool first,
                        bool loop, float *values)
{
    sinew_error err = {0};
    if (!first) {
        sinew_event_span span = {tl, 1.0f, loop, 0, 0, 0.0f, 0.0f};
        timeline_point(tl, prev, loop, &span.from_pass, &span.from_time);
        timeline_point(tl, time, loop, &span.to_pass, &span.to_time);
        enum { MAX_HITS = 1000000 };
        int64_t total = 0;
        if (sinew_events_crossed(&span, 1, NULL, 0, &total, &err) != SINEW_OK || total > MAX_HITS) {
            fprintf(stderr, "sinew: bake: time %g: %s\n", (double)time,
                    total > MAX_HITS ? "more than a million events crossed since the frame before" : err.description);
            return EXIT_FAILED;
        }
        sinew_event_hit *hits = malloc(sizeof *hits * (size_t)(total ? total : 1));
        if (!hits || sinew_events_crossed(&span, 1, hits, (int)total, NULL, &err) != SINEW_OK) {
            fprintf(stderr, "sinew: bake: time %g: %s\n", (double)time, hits ? err.description : "out of memory");
            free(hits);
            return EXIT_FAILED;
        }
        fputs(",\n\"events\":[", f);
        for (int64_t i = 0; i < total; ++i) {
            const sinew_event *e = &tl->events[hits[i].event];
            fputs(i ? ",{\"clip\":" : "{\"clip\":", f);
            cli_put_json_string(f, clip->name);
            fputs(",\"name\":", f);
            cli_put_json_string(f, e->name);
            fputs(",\"time\":", f);
            put_number(f, e->time);
            fprintf(f, ",\"loop\":%lld}", (long long)hits[i].pass);
        }
        fputc(']', f);
        free(hits);
    }
    if (tl->track_count) {
        unsigned flags = loop ? SINEW_SAMPLE_LOOP : SINEW_SAMPLE_CLAMP;
        if (sinew_timeline_sample(tl, time, flags, NULL, values, tl->value_count, &err) != SINEW_OK) {
            fprintf(stderr, "sinew: bake: time %g: %s\n", (double)time, err.description);
            return EXIT_FAILED;
        }
        fputs(",\n\"tracks\":[", f);
        for (int i = 0; i < tl->track_count; ++i) {
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
            cli_put_json_string(f, tl->tracks[i].name);
            fputs(",\"values\":", f);
            put_floats(f, values + sinew_timeline_track_offset(tl, i), (size_t)tl->tracks[i].components);
            fputc('}', f);
        }
        fputc(']', f);
    }
    return EXIT_OK;
}

/* One frame: pose, then nodes and meshes. */
static int bake_frame(FILE *f, const sinew_asset *a, const sinew_clip *clip, cli_layer *layer, float time, bool loop,
                      sinew_skinning method, bake_buffers *b)
{
    const sinew_skeleton *sk = a->skeleton;
    int n = sk->joint_count;
    unsigned flags = loop ? SINEW_SAMPLE_LOOP : SINEW_SAMPLE_CLAMP;
    sinew_error err = {0};
    bake_pose bp = {a, clip, layer, flags, b};
    sinew_result r = b->springs ? cli_springs_pose(b->springs, time, pose_for_springs, &bp, b->local, b->model, &err)
                                : pose_at(a, clip, layer, time, flags, b, &err);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew: bake: time %g: %s\n", (double)time, err.description);
        return EXIT_FAILED;
    }
    float clip_time = clip ? sinew_clip_time(clip, time, flags) : 0.0f;
    fputs("{\"time\":", f);
    put_number(f, time);
    fputs(",\"clip_time\":", f);
    put_number(f, clip_time);
    if (b->timeline && put_timeline(f, clip, b->timeline, b->prev_time, time, b->first, loop, b->values) != EXIT_OK)
        return EXIT_FAILED;
    fputs(",\n\"nodes\":[", f);
    /* a file's nodes, or the joints of the built-in character */
    int count = a->node_joints ? a->node_count : n;
    bool first = true;
    for (int i = 0; i < count; ++i) {
        int j = a->node_joints ? a->node_joints[i] : i;
        if (j < 0) continue; /* not a joint: see sinew_asset.node_joints */
        fprintf(f, "%s{\"index\":%d,\"name\":", first ? "\n" : ",\n", i);
        first = false;
        cli_put_json_string(f, sk->names[j]);
        fputs(",\"world\":", f);
        put_floats(f, b->model[j].m, 16);
        fputc('}', f);
    }
    fputs("],\n\"meshes\":[", f);
    for (int m = 0; m < a->mesh_count; ++m) {
        const sinew_mesh *mesh = &a->meshes[m];
        const float *weights = NULL;
        if (mesh->morph) {
            if (cli_morph_weights(mesh, clip, time, flags, b->weights, &err) != SINEW_OK) {
                fprintf(stderr, "sinew: bake: mesh %d: %s\n", m, err.description);
                return EXIT_FAILED;
            }
            weights = b->weights;
        }
        if (sinew_mesh_pose(mesh, b->model, n, weights, method, b->scratch, b->scratch_size, b->positions, b->normals,
                            NULL, &err) != SINEW_OK) {
            fprintf(stderr, "sinew: bake: mesh %d: %s\n", m, err.description);
            return EXIT_FAILED;
        }
        int node = mesh->source_node;
        fprintf(f, "%s{\"node\":%d,\"mesh\":%d,\"primitive\":%d,\"skinned\":%s,\"name\":", m ? ",\n" : "\n", node,
                mesh->source_mesh >= 0 ? mesh->source_mesh : m, mesh->source_primitive >= 0 ? mesh->source_primitive : 0,
                mesh->skin ? "true" : "false");
        cli_put_json_string(f, mesh->name);
        fputs(",\n\"positions\":", f);
        put_floats(f, b->positions, (size_t)mesh->vertex_count * 3);
        fputs(",\n\"normals\":", f);
        if (mesh->normals)
            put_floats(f, b->normals, (size_t)mesh->vertex_count * 3);
        else
            fputs("[]", f);
        fputc('}', f);
    }
    fputs("]}", f);
    return EXIT_OK;
}

int cli_bake(int argc, char **argv)
{
    bake_args args = {0};
    int status = parse_args(argc, argv, &args);
    cli_loaded l = {0};
    if (status == EXIT_OK) status = cli_load("bake", &args.source, &l);
    if (status != EXIT_OK) {
        free(args.times);
        return status;
    }
    const sinew_asset *a = l.asset;
    const sinew_clip *clip = l.clip;
    bake_buffers b = {0};
    sinew_timeline **sidecar = NULL; /* per clip, with --events */
    FILE *f = NULL;
    cli_layer *layer = NULL;
    if (cli_layer_wanted(&args.layer) &&
        !(layer = cli_layer_create("bake", &args.layer, a, &l.clips, clip, args.up == 'z'))) {
        status = EXIT_FAILED;
        goto done;
    }
    if (!alloc_buffers(a, &b)) {
        fprintf(stderr, "sinew: bake: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    if (args.springs.on && !(b.springs = cli_springs_create("bake", a, args.source.file, args.springs.dt))) {
        status = EXIT_FAILED;
        goto done;
    }
    /* the clip's timeline: the sidecar's, else the file's own (clips from
     * --anim files carry none) */
    bool own_clips = l.clips.clips == (const sinew_clip **)a->clips || !l.clips.owned;
    if (args.events && clip) {
        sidecar = calloc((size_t)l.clips.count + 1, sizeof *sidecar);
        sinew_asset view = *a;
        view.clip_count = l.clips.count, view.clips = l.clips.clips;
        view.timelines = own_clips ? a->timelines : NULL;
        sinew_error err = {0};
        if (!sidecar || sinew_load_events(args.events, &view, NULL, sidecar, &err) != SINEW_OK) {
            fprintf(stderr, "sinew: bake: --events: %s\n", sidecar ? err.description : "out of memory");
            status = EXIT_FAILED;
            goto done;
        }
        b.timeline = sidecar[l.clip_index];
    }
    if (!b.timeline && clip && own_clips && a->timelines && l.clip_index < a->clip_count)
        b.timeline = a->timelines[l.clip_index];
    if (b.timeline && !(b.values = malloc(sizeof(float) * (size_t)(b.timeline->value_count + 1)))) {
        fprintf(stderr, "sinew: bake: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    f = args.json ? fopen(args.json, "w") : stdout;
    if (!f) {
        fprintf(stderr, "sinew: bake: cannot write %s: %s\n", args.json, strerror(errno));
        status = EXIT_FAILED;
        goto done;
    }
    fputs("{\"file\":", f);
    if (args.source.file)
        cli_put_json_string(f, args.source.file);
    else
        fputs("null", f);
    fprintf(f, ",\"method\":\"%s\",\"loop\":%s,", args.method == SINEW_SKINNING_DQS ? "dqs" : "lbs",
            args.loop ? "true" : "false");
    if (b.springs) {
        fputs("\"spring_dt\":", f);
        put_number(f, cli_springs_dt(b.springs));
        fputc(',', f);
    }
    fputs("\n\"clip\":", f);
    if (clip) {
        fprintf(f, "{\"index\":%d,\"name\":", l.clip_index);
        cli_put_json_string(f, clip->name);
        fputs(",\"duration\":", f);
        put_number(f, clip->duration);
        fputc('}', f);
    } else {
        fputs("{\"index\":-1,\"name\":null,\"duration\":0}", f);
    }
    fputs(",\n\"frames\":[", f);
    for (int i = 0; i < args.time_count && status == EXIT_OK; ++i) {
        if (i) fputs(",\n", f);
        b.first = i == 0;
        b.prev_time = i ? args.times[i - 1] : 0.0f;
        status = bake_frame(f, a, clip, layer, args.times[i], args.loop, args.method, &b);
    }
    fputs("]}\n", f);
    if (fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "sinew: bake: write error on %s\n", args.json ? args.json : "stdout");
        status = EXIT_FAILED;
    }
done:
    if (f && f != stdout) fclose(f);
    free_buffers(&b);
    for (int i = 0; sidecar && i < l.clips.count; ++i) sinew_timeline_free(sidecar[i]);
    free(sidecar);
    free(args.times);
    cli_layer_free(layer);
    cli_unload(&l);
    return status;
}
