/* SPDX-License-Identifier: MIT */
/* The animation layer for the sinew tool: see layer.h. Everything here is
 * the public API put together the way a game would: playbacks advanced per
 * step, root motion carried by a character transform, poses sampled, taken
 * in place, blended, an additive on top, IK last. */
#include "layer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ENTRIES = 8, IK_PIN = 0, IK_ABSOLUTE = 1, IK_OFFSET = 2 };

static const float STEP = 1.0f / 120.0f;

typedef struct entry {
    const sinew_clip *clip;
    float weight;     /* as given (blend); a crossfade's are 1 and 0 */
    sinew_playback play;
} entry;

typedef struct ik_target {
    int joint, mid, start;
    int kind;
    sinew_vec3 value;
    sinew_vec3 last;  /* the target at the last posed time, model space */
    bool posed;
} ik_target;

struct cli_layer {
    const sinew_skeleton *sk;
    int n;
    entry entries[MAX_ENTRIES];
    int entry_count;
    bool sync, in_place, crossfade;
    float fade_start, fade_seconds;
    float fade_weight;     /* the crossfade's weight of its target at the last posed time */
    sinew_clip *additive;  /* made from the clip --additive names */
    const char *additive_name;
    float additive_weight;
    ik_target ik[CLI_LAYER_MAX_IK];
    int ik_count;
    int motion_joint;      /* -1: no root motion */
    sinew_vec3 up;         /* in the motion joint's parent space */
    sinew_transform *poses, *pose; /* per clip; the result */
    sinew_mat4 *model;
};

bool cli_layer_arg(cli_args *p, cli_layer_args *a)
{
    const char *v;
    if (cli_flag(p, "--sync")) {
        a->sync = true;
    } else if (cli_flag(p, "--in-place")) {
        a->in_place = true;
    } else if ((v = cli_value(p, "--blend"))) {
        a->blend = v;
    } else if ((v = cli_value(p, "--crossfade"))) {
        a->crossfade = v;
    } else if ((v = cli_value(p, "--additive"))) {
        a->additive = v;
    } else if ((v = cli_value(p, "--ik"))) {
        if (a->ik_count == CLI_LAYER_MAX_IK)
            cli_bad_value(p, "--ik", v, "is one too many (at most %d targets)", CLI_LAYER_MAX_IK);
        else
            a->ik[a->ik_count++] = v;
    } else {
        return p->status != EXIT_OK; /* a value missing above */
    }
    return true;
}

bool cli_layer_wanted(const cli_layer_args *a)
{
    return a->blend || a->crossfade || a->additive || a->ik_count || a->sync || a->in_place;
}

/* "A,B,C" into up to `max` parts of `buf` (modified); the part count. */
static int split(char *buf, char sep, char **parts, int max)
{
    int n = 0;
    for (char *p = buf; n < max;) {
        parts[n++] = p;
        char *c = strchr(p, sep);
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* "CLIP[=W]": the clip (printing why not) and the weight (default 1). */
static const sinew_clip *clip_and_weight(const char *command, const cli_clips *clips, char *item, float *weight)
{
    char *eq = strchr(item, '=');
    *weight = 1.0f;
    if (eq) {
        *eq = '\0';
        if (!cli_parse_float(eq + 1, weight) || *weight < 0.0f) {
            fprintf(stderr, "sinew: %s: the weight of \"%s\" is not a number >= 0: %s\n", command, item, eq + 1);
            return NULL;
        }
    }
    int index;
    if (cli_find_clip(command, clips, item, &index) != EXIT_OK) return NULL;
    if (index < 0) {
        fprintf(stderr, "sinew: %s: a clip is needed here, not \"%s\"\n", command, item);
        return NULL;
    }
    return clips->clips[index];
}

static bool parse_vec3(const char *text, sinew_vec3 *out)
{
    float *v;
    int count;
    char why[300];
    if (!cli_parse_numbers(text, &v, &count, why, sizeof why)) return false;
    if (count == 3) *out = sinew_vec3_make(v[0], v[1], v[2]);
    free(v);
    return count == 3;
}

static bool parse_ik(const char *command, const sinew_skeleton *sk, const char *spec, ik_target *t)
{
    char name[256];
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
    t->kind = IK_PIN;
    if (eq) {
        t->kind = len > 0 && spec[len - 1] == '+' ? IK_OFFSET : IK_ABSOLUTE;
        if (t->kind == IK_OFFSET) --len;
        if (!parse_vec3(eq + 1, &t->value)) {
            fprintf(stderr, "sinew: %s: --ik %s: the target is X,Y,Z (model space) or +=DX,DY,DZ\n", command, spec);
            return false;
        }
    }
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, spec, len);
    name[len] = '\0';
    t->joint = sinew_skeleton_find_joint(sk, name);
    if (t->joint < 0) {
        fprintf(stderr, "sinew: %s: --ik: no joint named \"%s\" (sinew info lists them)\n", command, name);
        return false;
    }
    t->mid = sk->parents[t->joint];
    t->start = t->mid >= 0 ? sk->parents[t->mid] : -1;
    if (t->start < 0) {
        fprintf(stderr, "sinew: %s: --ik %s: the joint needs a parent and a grandparent (a two-bone chain)\n",
                command, name);
        return false;
    }
    return true;
}

/* The joint that carries the clips' travel: of the joints a clip
 * translates, the one with the most joints below it (the shallowest on a
 * tie): the root bone or the hips, never a camera beside the rig. */
static int find_motion_joint(const sinew_skeleton *sk, const entry *entries, int count)
{
    int n = sk->joint_count, best = -1, best_size = 0;
    int *size = calloc((size_t)n, sizeof *size);
    if (!size) return -1;
    for (int j = n - 1; j >= 0; --j) {
        size[j] += 1;
        if (sk->parents[j] >= 0) size[sk->parents[j]] += size[j];
    }
    for (int e = 0; e < count; ++e)
        for (int i = 0; i < entries[e].clip->track_count; ++i) {
            const sinew_track *t = &entries[e].clip->tracks[i];
            if (t->target != SINEW_TARGET_TRANSLATION) continue;
            if (size[t->joint] > best_size || (size[t->joint] == best_size && t->joint < best))
                best = t->joint, best_size = size[t->joint];
        }
    free(size);
    return best;
}

void cli_layer_free(cli_layer *l)
{
    if (!l) return;
    sinew_clip_free(l->additive);
    free(l->poses);
    free(l->pose);
    free(l->model);
    free(l);
}

static bool pose_at(cli_layer *l, float time, bool with_ik, sinew_transform *local, char *why, int size);

cli_layer *cli_layer_create(const char *command, const cli_layer_args *a, const sinew_asset *asset,
                            const cli_clips *clips, const sinew_clip *main, bool z_up)
{
    const sinew_skeleton *sk = asset->skeleton;
    cli_layer *l = calloc(1, sizeof *l);
    if (!l) goto oom;
    l->sk = sk, l->n = sk->joint_count;
    l->sync = a->sync, l->in_place = a->in_place;
    char buf[1024], *parts[MAX_ENTRIES + 1];
    if (a->blend && a->crossfade) {
        fprintf(stderr, "sinew: %s: --blend and --crossfade exclude each other\n", command);
        goto fail;
    }
    if (a->blend) {
        if (strlen(a->blend) >= sizeof buf) goto bad_blend;
        strcpy(buf, a->blend);
        int count = split(buf, ',', parts, MAX_ENTRIES + 1);
        if (count > MAX_ENTRIES) {
            fprintf(stderr, "sinew: %s: --blend takes at most %d clips\n", command, MAX_ENTRIES);
            goto fail;
        }
        float total = 0.0f;
        for (int i = 0; i < count; ++i) {
            entry *e = &l->entries[l->entry_count++];
            if (!(e->clip = clip_and_weight(command, clips, parts[i], &e->weight))) goto fail;
            total += e->weight;
        }
        if (!(total > 0.0f)) goto bad_blend;
    } else {
        if (!main) {
            fprintf(stderr, "sinew: %s: the layer options need a clip to play\n", command);
            goto fail;
        }
        l->entries[l->entry_count++] = (entry){main, 1.0f, {0}};
    }
    if (a->crossfade) {
        if (strlen(a->crossfade) >= sizeof buf) goto bad_fade;
        strcpy(buf, a->crossfade);
        int count = split(buf, ',', parts, 4);
        float unused;
        entry *e = &l->entries[l->entry_count++];
        if (count > 3 || strchr(parts[0], '=')) goto bad_fade;
        if (!(e->clip = clip_and_weight(command, clips, parts[0], &unused))) goto fail;
        e->weight = 0.0f;
        l->crossfade = true;
        l->fade_start = 0.5f * main->duration;
        l->fade_seconds = 0.5f;
        if ((count > 1 && (!cli_parse_float(parts[1], &l->fade_start) || l->fade_start < 0.0f)) ||
            (count > 2 && (!cli_parse_float(parts[2], &l->fade_seconds) || l->fade_seconds < 0.0f)))
            goto bad_fade;
    }
    if (a->additive) {
        if (strlen(a->additive) >= sizeof buf) goto fail;
        strcpy(buf, a->additive);
        const sinew_clip *c = clip_and_weight(command, clips, buf, &l->additive_weight);
        if (!c) goto fail;
        sinew_error err = {0};
        if (!(l->additive = sinew_clip_make_additive(c, sk, SINEW_ADDITIVE_FIRST_FRAME, NULL, &err))) {
            fprintf(stderr, "sinew: %s: --additive: %s\n", command, err.description);
            goto fail;
        }
        l->additive_name = l->additive->name;
    }
    for (int i = 0; i < a->ik_count; ++i)
        if (!parse_ik(command, sk, a->ik[i], &l->ik[l->ik_count++])) goto fail;

    l->poses = malloc(sizeof *l->poses * (size_t)l->n * MAX_ENTRIES);
    l->pose = malloc(sizeof *l->pose * (size_t)l->n);
    l->model = malloc(sizeof *l->model * (size_t)l->n);
    if (!l->poses || !l->pose || !l->model) goto oom;

    /* root motion: the travel joint, and up in its parent's space (rest pose) */
    l->motion_joint = find_motion_joint(sk, l->entries, l->entry_count);
    l->up = sinew_vec3_make(0.0f, z_up ? 0.0f : 1.0f, z_up ? 1.0f : 0.0f);
    if (l->motion_joint >= 0 && sk->parents[l->motion_joint] >= 0) {
        sinew_rest_pose(sk, l->pose, l->n, NULL);
        sinew_local_to_model(sk, l->pose, NULL, l->model, l->n, NULL);
        sinew_mat4 inv;
        if (sinew_mat4_inverse(&l->model[sk->parents[l->motion_joint]], &inv) == SINEW_OK)
            l->up = sinew_vec3_normalize(sinew_mat4_transform_vector(&inv, l->up));
    }

    /* pinned IK targets: where the joint is at time 0 */
    char why[300];
    bool pins = false;
    for (int i = 0; i < l->ik_count; ++i) pins |= l->ik[i].kind == IK_PIN;
    if (pins) {
        if (!pose_at(l, 0.0f, false, l->pose, why, sizeof why) ||
            sinew_local_to_model(sk, l->pose, NULL, l->model, l->n, NULL) != SINEW_OK) {
            fprintf(stderr, "sinew: %s: %s\n", command, why);
            goto fail;
        }
        for (int i = 0; i < l->ik_count; ++i)
            if (l->ik[i].kind == IK_PIN) {
                const float *m = l->model[l->ik[i].joint].m;
                l->ik[i].value = sinew_vec3_make(m[12], m[13], m[14]);
            }
    }
    return l;
bad_blend:
    fprintf(stderr, "sinew: %s: --blend wants CLIP[=W],CLIP[=W],... with weights >= 0, not all 0\n", command);
    goto fail;
bad_fade:
    fprintf(stderr, "sinew: %s: --crossfade wants CLIP[,START[,SECONDS]] (seconds >= 0)\n", command);
    goto fail;
oom:
    fprintf(stderr, "sinew: %s: out of memory\n", command);
fail:
    cli_layer_free(l);
    return NULL;
}

float cli_layer_length(const cli_layer *l)
{
    if (l->crossfade) return 2.0f * l->fade_start + l->fade_seconds;
    float cycle = 0.0f, total = 0.0f;
    for (int i = 0; i < l->entry_count; ++i) cycle += l->entries[i].weight * l->entries[i].clip->duration;
    for (int i = 0; i < l->entry_count; ++i) total += l->entries[i].weight;
    if (l->sync && total > 0.0f) return cycle / total;
    float longest = 0.0f;
    for (int i = 0; i < l->entry_count; ++i)
        if (l->entries[i].weight > 0.0f) longest = fmaxf(longest, l->entries[i].clip->duration);
    return longest;
}

/* C = C * delta, translation then yaw about up. */
typedef struct motion {
    sinew_vec3 t;
    float yaw;
} motion;

static void carry(motion *c, sinew_vec3 up, sinew_vec3 dt, float dyaw)
{
    c->t = sinew_vec3_add(c->t, sinew_quat_rotate(sinew_quat_from_axis_angle(up, c->yaw), dt));
    c->yaw += dyaw;
}

/* Replays the playbacks from 0 to `time`, carrying root motion, then poses. */
static bool pose_at(cli_layer *l, float time, bool with_ik, sinew_transform *local, char *why, int size)
{
    const sinew_skeleton *sk = l->sk;
    sinew_error err = {0};
    int n = l->n, count = l->entry_count;
    for (int i = 0; i < count; ++i) l->entries[i].play = sinew_playback_start(l->entries[i].clip, true);
    float weights[MAX_ENTRIES];
    for (int i = 0; i < count; ++i) weights[i] = l->entries[i].weight;
    if (l->crossfade) weights[0] = 1.0f, weights[1] = 0.0f;
    sinew_crossfade fade = {0};
    bool fading = false;
    motion c = {{0, 0, 0}, 0.0f};
    for (float t = 0.0f; t < time;) {
        float dt = fminf(STEP, time - t);
        if (l->crossfade && !fading && t < l->fade_start) dt = fminf(dt, l->fade_start - t);
        sinew_playback before[MAX_ENTRIES];
        int wraps[MAX_ENTRIES] = {0};
        for (int i = 0; i < count; ++i) before[i] = l->entries[i].play;
        if (l->crossfade) {
            if (!fading && t >= l->fade_start) {
                fade = sinew_crossfade_start(l->entries[0].play, l->entries[1].play, l->fade_seconds, l->sync);
                fading = true;
                before[1] = fade.to;
            }
            if (fading) {
                float w = sinew_crossfade_advance(&fade, dt, wraps);
                l->entries[0].play = fade.from, l->entries[1].play = fade.to;
                weights[0] = 1.0f - w, weights[1] = w;
            } else {
                wraps[0] = sinew_playback_advance(&l->entries[0].play, dt);
            }
        } else if (l->sync) {
            sinew_playback play[MAX_ENTRIES];
            for (int i = 0; i < count; ++i) play[i] = l->entries[i].play;
            if (sinew_playback_advance_synced(play, weights, count, dt, wraps, &err) != SINEW_OK) break;
            for (int i = 0; i < count; ++i) l->entries[i].play = play[i];
        } else {
            for (int i = 0; i < count; ++i) wraps[i] = sinew_playback_advance(&l->entries[i].play, dt);
        }
        /* the step's root motion: the weighted mean of each clip's */
        if (l->motion_joint >= 0 && !l->in_place) {
            float total = 0.0f, yaw = 0.0f;
            sinew_vec3 move = {0, 0, 0};
            for (int i = 0; i < count; ++i) {
                if (!(weights[i] > 0.0f)) continue;
                sinew_root_motion_job job = {.clip = l->entries[i].clip, .skeleton = sk, .joint = l->motion_joint,
                                             .up = l->up, .from = before[i].time,
                                             .to = l->entries[i].play.time, .wraps = wraps[i]};
                if (sinew_root_motion(&job, &err) != SINEW_OK) break;
                move = sinew_vec3_add(move, sinew_vec3_scale(job.translation, weights[i]));
                yaw += weights[i] * job.yaw;
                total += weights[i];
            }
            if (total > 0.0f) carry(&c, l->up, sinew_vec3_scale(move, 1.0f / total), yaw / total);
        }
        t += dt;
    }
    if (err.result != SINEW_OK) {
        snprintf(why, (size_t)size, "layer: %s", err.description);
        return false;
    }
    if (l->crossfade) l->fade_weight = weights[1];

    /* sample, take each in place, blend */
    sinew_blend_layer layers[MAX_ENTRIES];
    int used = 0;
    for (int i = 0; i < count; ++i) {
        if (!(weights[i] > 0.0f)) continue;
        sinew_transform *p = &l->poses[(size_t)used * (size_t)n];
        if (sinew_clip_sample(l->entries[i].clip, sk, l->entries[i].play.time, SINEW_SAMPLE_LOOP, NULL, p, n, &err) !=
            SINEW_OK)
            break;
        if (l->motion_joint >= 0) {
            sinew_root_motion_job job = {.clip = l->entries[i].clip, .skeleton = sk, .joint = l->motion_joint,
                                         .up = l->up, .local = p, .count = n, .in_place = true};
            if (sinew_root_motion(&job, &err) != SINEW_OK) break;
        }
        layers[used++] = (sinew_blend_layer){p, weights[i], NULL};
    }
    if (err.result == SINEW_OK) sinew_blend(sk, layers, used, 0.0f, local, n, &err);
    if (err.result == SINEW_OK && l->additive) {
        sinew_transform *delta = l->poses;
        if (sinew_clip_sample(l->additive, sk, time, SINEW_SAMPLE_LOOP, NULL, delta, n, &err) == SINEW_OK)
            sinew_additive_apply(local, delta, n, l->additive_weight, NULL, local, &err);
    }
    if (err.result != SINEW_OK) {
        snprintf(why, (size_t)size, "layer: %s", err.description);
        return false;
    }
    /* the character carries the root motion */
    if (l->motion_joint >= 0) {
        sinew_transform *x = &local[l->motion_joint];
        sinew_quat turn = sinew_quat_from_axis_angle(l->up, c.yaw);
        x->translation = sinew_vec3_add(c.t, sinew_quat_rotate(turn, x->translation));
        x->rotation = sinew_quat_normalize(sinew_quat_mul(turn, x->rotation));
    }
    if (!with_ik || l->ik_count == 0) return true;

    /* IK last: the legs and arms are distinct chains, one model pose serves all */
    if (sinew_local_to_model(sk, local, NULL, l->model, n, &err) != SINEW_OK) {
        snprintf(why, (size_t)size, "layer: %s", err.description);
        return false;
    }
    for (int i = 0; i < l->ik_count; ++i) {
        ik_target *k = &l->ik[i];
        sinew_vec3 target = k->value;
        if (k->kind == IK_OFFSET) {
            const float *m = l->model[k->joint].m;
            target = sinew_vec3_add(sinew_vec3_make(m[12], m[13], m[14]), k->value);
        }
        k->last = target, k->posed = true;
        sinew_ik_two_bone_job job = {.skeleton = sk, .model = l->model, .local = local, .count = n,
                                     .start_joint = k->start, .mid_joint = k->mid, .end_joint = k->joint,
                                     .target = target, .weight = 1.0f};
        if (sinew_ik_two_bone(&job, &err) != SINEW_OK) {
            snprintf(why, (size_t)size, "layer: %s", err.description);
            return false;
        }
    }
    return true;
}

const sinew_transform *cli_layer_pose(cli_layer *l, float time, char *why, int size)
{
    if (!isfinite(time) || time < 0.0f || time > 3600.0f) {
        snprintf(why, (size_t)size, "layer: time %g is not in [0, 3600] s", (double)time);
        return NULL;
    }
    return pose_at(l, time, true, l->pose, why, size) ? l->pose : NULL;
}

void cli_layer_describe(const cli_layer *l, char *text, int size)
{
    int used = 0;
    text[0] = '\0';
#define PUT(...) used += snprintf(text + used, used < size ? (size_t)(size - used) : 0, __VA_ARGS__)
    if (l->crossfade) {
        PUT("%s -> %s at %.2f s over %.2f s", l->entries[0].clip->name, l->entries[1].clip->name,
            (double)l->fade_start, (double)l->fade_seconds);
    } else {
        for (int i = 0; i < l->entry_count; ++i)
            PUT("%s%s %.2f", i ? " + " : "", l->entries[i].clip->name, (double)l->entries[i].weight);
    }
    if (l->sync) PUT(", synced");
    if (l->additive) PUT(" + additive %s %.2f", l->additive_name, (double)l->additive_weight);
    for (int i = 0; i < l->ik_count; ++i) PUT("%s%s", i ? ", " : "; IK ", l->sk->names[l->ik[i].joint]);
    if (l->in_place) PUT("; in place");
#undef PUT
}

void cli_layer_state(const cli_layer *l, char *text, int size)
{
    text[0] = '\0';
    if (l->crossfade && size > 0) snprintf(text, (size_t)size, "%s %.2f", l->entries[1].clip->name,
                                           (double)l->fade_weight);
}

void cli_layer_ik_state(const cli_layer *l, char *text, int size)
{
    int used = 0;
    text[0] = '\0';
    for (int i = 0; i < l->ik_count; ++i) {
        const ik_target *k = &l->ik[i];
        if (!k->posed) continue;
        used += snprintf(text + used, used < size ? (size_t)(size - used) : 0, "%s%s (%.2f, %.2f, %.2f)",
                         used ? ", " : "", l->sk->names[k->joint], (double)k->last.x, (double)k->last.y,
                         (double)k->last.z);
    }
}
