/* SPDX-License-Identifier: MIT */
/* The tools' fixed-step spring simulation (springs.h). */
#include "springs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Most spring steps one frame may take (about 46 hours at 1/60 s). */
#define CLI_MAX_SPRING_STEPS 10000000.0

struct cli_springs {
    sinew_springs *springs;
    sinew_spring_state *state; /* `done` steps, each on the pose of its grid time */
    sinew_spring_state *spare; /* the state after a frame whose last step is off the grid */
    double dt;
    long done;                 /* -1: the state is not on the grid's path */
    int n;
};

bool cli_springs_arg(cli_args *p, cli_springs_args *a)
{
    const char *v;
    if (cli_flag(p, "--springs")) {
        a->on = true;
    } else if ((v = cli_value(p, "--spring-dt"))) {
        if (!cli_parse_float(v, &a->dt) || !(a->dt > 0.0f) || a->dt > 1.0f) {
            a->dt = 0.0f;
            cli_bad_value(p, "--spring-dt", v, "is not a step in seconds in (0, 1]");
        }
    } else {
        return false;
    }
    return true;
}

void cli_springs_args_check(cli_args *p, const cli_springs_args *a)
{
    if (p->status == EXIT_OK && a->dt > 0.0f && !a->on) cli_usage(p, "--spring-dt needs --springs");
}

cli_springs *cli_springs_create(const char *command, const sinew_asset *asset, const char *file, float dt)
{
    if (!asset->springs) {
        fprintf(stderr, "sinew: %s: --springs: %s has no spring bones (VRMC_springBone)\n", command,
                file ? file : "the built-in character");
        return NULL;
    }
    cli_springs *s = calloc(1, sizeof *s);
    sinew_error err = {0};
    if (!s) {
        fprintf(stderr, "sinew: %s: out of memory\n", command);
        return NULL;
    }
    s->dt = dt > 0.0f ? dt : 1.0f / 60.0f;
    s->done = -1;
    s->n = asset->skeleton->joint_count;
    if (!(s->springs = sinew_springs_create(asset->skeleton, asset->springs, NULL, &err)) ||
        !(s->state = sinew_spring_state_create(s->springs, NULL, &err)) ||
        !(s->spare = sinew_spring_state_create(s->springs, NULL, &err))) {
        fprintf(stderr, "sinew: %s: --springs: %s\n", command, err.description);
        cli_springs_free(s);
        return NULL;
    }
    return s;
}

void cli_springs_free(cli_springs *s)
{
    if (!s) return;
    sinew_spring_state_free(s->state), sinew_spring_state_free(s->spare), sinew_springs_free(s->springs);
    free(s);
}

float cli_springs_dt(const cli_springs *s) { return (float)s->dt; }

/* Steps `state` from `from` steps to `to` (exclusive of the last step of a
 * frame), each on the pose of its grid time. */
static sinew_result run_steps(cli_springs *s, sinew_spring_state *state, long from, long to, cli_springs_pose_fn pose,
                             void *user, sinew_transform *local, sinew_mat4 *model, sinew_error *err)
{
    sinew_result r = SINEW_OK;
    for (long k = from + 1; k <= to && r == SINEW_OK; ++k) {
        r = pose(user, (float)((double)k * s->dt), local, model, err);
        if (r == SINEW_OK) r = sinew_springs_step(s->springs, state, (float)s->dt, 1, local, model, s->n, err);
    }
    return r;
}

sinew_result cli_springs_pose(cli_springs *s, float time, cli_springs_pose_fn pose, void *user, sinew_transform *local,
                              sinew_mat4 *model, sinew_error *err)
{
    double S = s->dt, steps = floor((double)time / S + 1e-4);
    if (!(steps <= CLI_MAX_SPRING_STEPS)) {
        snprintf(err->description, sizeof err->description,
                 "--springs: %.0f steps of %g s to reach it, more than %.0f", steps, S, CLI_MAX_SPRING_STEPS);
        return err->result = SINEW_ERROR_INVALID_ARGUMENT;
    }
    long count = steps > 0 ? (long)steps : 0;
    sinew_result r;
    if (count == 0) {
        r = pose(user, time, local, model, err);
        if (r == SINEW_OK) r = sinew_springs_reset(s->springs, s->state, model, s->n, err);
        s->done = r == SINEW_OK && time == 0.0f ? 0 : -1;
        return r;
    }
    /* the state must hold fewer steps than this frame's: else start over */
    if (s->done < 0 || s->done >= count) {
        r = pose(user, 0.0f, local, model, err);
        if (r == SINEW_OK) r = sinew_springs_reset(s->springs, s->state, model, s->n, err);
        if (r != SINEW_OK) return r;
        s->done = 0;
    }
    r = run_steps(s, s->state, s->done, count - 1, pose, user, local, model, err);
    if (r != SINEW_OK) {
        s->done = -1;
        return r;
    }
    s->done = count - 1;
    /* the last step on the pose of `time`: where that is the grid time
     * (within the 1e-4 steps the count allows), the state goes on from it */
    if (fabs((double)time - (double)count * S) <= 1e-4 * S) {
        r = pose(user, time, local, model, err);
        if (r == SINEW_OK) r = sinew_springs_step(s->springs, s->state, (float)S, 1, local, model, s->n, err);
        s->done = r == SINEW_OK ? count : -1;
        return r;
    }
    /* off the grid: the last step, on the pose of `time`, goes to a copy */
    r = sinew_spring_state_copy(s->spare, s->state, err);
    if (r == SINEW_OK) r = pose(user, time, local, model, err);
    if (r == SINEW_OK) r = sinew_springs_step(s->springs, s->spare, (float)S, 1, local, model, s->n, err);
    return r;
}

sinew_result cli_springs_reset(cli_springs *s, const sinew_mat4 *model, sinew_error *err)
{
    s->done = -1;
    return sinew_springs_reset(s->springs, s->state, model, s->n, err);
}

sinew_result cli_springs_step(cli_springs *s, sinew_transform *local, sinew_mat4 *model, sinew_error *err)
{
    s->done = -1;
    return sinew_springs_step(s->springs, s->state, (float)s->dt, 1, local, model, s->n, err);
}
