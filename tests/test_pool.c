/* SPDX-License-Identifier: MIT */
/* The thread pool: every index of a run once, runs after runs (some after
 * pauses that let the workers sleep, some after sinew_pool_wake), a NULL
 * pool, bad thread counts; parallel skinning bit for bit the one-thread
 * result, ranges that cut blocks included, on the demo mesh and on one big
 * enough for each thread's share to be cut in pieces. */
#define _GNU_SOURCE /* sched_getcpu, pthread_getaffinity_np, nanosleep */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"

#include "check.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#include <sched.h>
#endif

/* A pause of 2 ms: long enough for the pool's workers to fall asleep. */
static void pause_2ms(void)
{
#if defined(_WIN32)
    Sleep(2);
#else
    nanosleep(&(struct timespec){0, 2000000}, NULL);
#endif
}

typedef struct counts {
    atomic_int hits[5000];
} counts;

static void hit(void *user, int i)
{
    counts *c = user;
    atomic_fetch_add(&c->hits[i], 1);
}

static void test_runs(int threads)
{
    sinew_error err = {0};
    sinew_pool *pool = sinew_pool_create(threads, NULL, &err);
    CHECK(pool != NULL, "pool of %d: %s", threads, err.description);
    if (!pool) return;
    CHECK(sinew_pool_threads(pool) == threads, "threads %d", sinew_pool_threads(pool));
    counts *c = calloc(1, sizeof *c);
    static const int sizes[] = {0, 1, 2, 3, 17, 5000};
    for (int round = 0; round < 50; ++round)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            /* now and then a pause long enough for the workers to sleep, so
             * that runs start while they wake, and a run can end (by the
             * others' work) before a late worker has come */
            if (round % 10 == 9) pause_2ms();
            /* and now and then the workers woken first: a run of no tasks,
             * waited for (it returns only once each worker has entered it)
             * or not (the next run then replaces it while workers wake) */
            if (round % 5 == 4) sinew_pool_wake(pool, round % 10 == 9);
            for (int i = 0; i < 5000; ++i) atomic_store(&c->hits[i], 0);
            sinew_pool_run(pool, sizes[s], hit, c);
            int bad = 0;
            for (int i = 0; i < 5000; ++i) bad += atomic_load(&c->hits[i]) != (i < sizes[s] ? 1 : 0);
            if (bad) CHECK(bad == 0, "%d threads, run of %d: %d indices not run exactly once", threads, sizes[s], bad);
        }
    ++check_passed_;
    free(c);
    sinew_pool_free(pool);
}

#if defined(__linux__)
/* What each task of a run saw: its thread's CPU affinity, whether it ran on
 * a worker, and on which CPU. */
typedef struct affinity_run {
    pthread_t caller;
    cpu_set_t mask[64];
    bool worker[64];
    int cpu[64];
} affinity_run;

static void note_affinity(void *user, int i)
{
    affinity_run *r = user;
    pthread_getaffinity_np(pthread_self(), sizeof r->mask[i], &r->mask[i]);
    r->worker[i] = !pthread_equal(pthread_self(), r->caller);
    r->cpu[i] = sched_getcpu();
    for (volatile int spin = 0; spin < 20000; ++spin) {
    }
}

/* A worker woken onto the CPU its run was started from moves off it by
 * changing its affinity for a moment (pool.c, leave_cpu): every worker's
 * affinity is still the process's when its tasks run, over runs started
 * while the workers spin, sleep or have just been woken. */
static void test_affinity(void)
{
    cpu_set_t mine;
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) == 0, "the test thread's affinity");
    sinew_pool *pool = sinew_pool_create(3, NULL, NULL);
    affinity_run *r = calloc(1, sizeof *r);
    CHECK(pool && r, "a pool of 3 threads");
    if (!pool || !r) {
        free(r);
        sinew_pool_free(pool);
        return;
    }
    r->caller = pthread_self();
    int changed = 0, worker_tasks = 0, on_caller_cpu = 0;
    for (int round = 0; round < 60; ++round) {
        if (round % 3 != 0) pause_2ms();
        if (round % 3 == 2) sinew_pool_wake(pool, true);
        int cpu = sched_getcpu();
        sinew_pool_run(pool, 64, note_affinity, r);
        for (int i = 0; i < 64; ++i) {
            if (!r->worker[i]) continue;
            ++worker_tasks;
            changed += !CPU_EQUAL(&r->mask[i], &mine);
            on_caller_cpu += r->cpu[i] == cpu;
        }
    }
    CHECK(changed == 0, "%d of %d worker tasks ran with an affinity other than the process's", changed, worker_tasks);
    /* where the tasks ran is the scheduler's to say: printed, not checked */
    printf("test_pool: %d worker tasks, %d on the CPU their run was started from\n", worker_tasks, on_caller_cpu);
    free(r);
    sinew_pool_free(pool);
}
#else
static void test_affinity(void) { printf("test_pool: skip: affinity is checked on Linux only\n"); }
#endif

static void test_skinning(void)
{
    sinew_asset *a = sinew_demo_create(NULL, NULL);
    const sinew_mesh *m = &a->meshes[0];
    const sinew_skin *s = m->skin;
    int nj = a->skeleton->joint_count, nv = m->vertex_count;
    sinew_mat4 *model = malloc(sizeof *model * (size_t)nj), *pal = malloc(sizeof *pal * (size_t)s->joint_count);
    sinew_transform *local = malloc(sizeof *local * (size_t)nj);
    sinew_clip_sample(a->clips[0], a->skeleton, 0.4f, SINEW_SAMPLE_LOOP, NULL, local, nj, NULL);
    sinew_local_to_model(a->skeleton, local, NULL, model, nj, NULL);
    sinew_skin_palette(s, model, nj, NULL, pal, s->joint_count, NULL);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)s->joint_count);
    sinew_dq_palette(pal, s->joint_count, dq, NULL);
    float *one = malloc(sizeof(float) * 6 * (size_t)nv), *many = malloc(sizeof(float) * 6 * (size_t)nv);
    sinew_pool *pool = sinew_pool_create(3, NULL, NULL);
    sinew_skin_inputs *inputs = sinew_skin_inputs_create(s, m->positions, 0, m->normals, 0, NULL);
    CHECK(inputs != NULL, "skin inputs");
    for (int dqs = 0; dqs < 2; ++dqs)
        for (int r = 0; r < 3 && inputs; ++r) {
            int first = r == 0 ? 0 : r == 1 ? 5 : 1;
            int count = r == 0 ? 0 : r == 1 ? nv - 5 : nv - 3;
            for (int i = 0; i < 6 * nv; ++i) one[i] = many[i] = -7.0f;
            sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dq, .palette_count = s->joint_count,
                                  .first_vertex = first, .vertex_count = count, .positions = m->positions,
                                  .out_positions = one, .normals = m->normals, .out_normals = one + 3 * nv};
            sinew_error err = {0};
            CHECK((dqs ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err)) == SINEW_OK, "%s", err.description);
            job.out_positions = many, job.out_normals = many + 3 * nv;
            CHECK((dqs ? sinew_skin_dqs_parallel(&job, pool, &err) : sinew_skin_lbs_parallel(&job, pool, &err)) ==
                      SINEW_OK,
                  "%s", err.description);
            CHECK(memcmp(one, many, sizeof(float) * 6 * (size_t)nv) == 0,
                  "%s [%d, +%d): parallel differs from one thread", dqs ? "dqs" : "lbs", first, count);
            /* the prepared inputs, shared by the threads */
            for (int i = 0; i < 6 * nv; ++i) many[i] = -7.0f;
            job.positions = job.normals = NULL, job.inputs = inputs;
            CHECK((dqs ? sinew_skin_dqs_parallel(&job, pool, &err) : sinew_skin_lbs_parallel(&job, pool, &err)) ==
                      SINEW_OK,
                  "%s", err.description);
            CHECK(memcmp(one, many, sizeof(float) * 6 * (size_t)nv) == 0,
                  "%s [%d, +%d): parallel from prepared inputs differs from one thread", dqs ? "dqs" : "lbs", first,
                  count);
        }
    /* a palette stretched along one axis: the automatic normal mode, which the
     * parallel call decides once for all its ranges, takes the inverse
     * transpose, as the one-thread call does, and not M itself */
    for (int j = 0; j < s->joint_count; ++j)
        for (int r = 0; r < 3; ++r) pal[j].m[r] *= 1.5f;
    float *fast = malloc(sizeof(float) * 3 * (size_t)nv);
    sinew_skin_job job = {.skin = s, .palette = pal, .palette_count = s->joint_count, .positions = m->positions,
                          .out_positions = one, .normals = m->normals, .out_normals = one + 3 * nv};
    CHECK(sinew_skin_lbs_parallel(&job, pool, NULL) == SINEW_OK, "stretched palette, parallel");
    job.out_positions = many, job.out_normals = many + 3 * nv, job.normal_mode = SINEW_NORMALS_INVERSE_TRANSPOSE;
    CHECK(sinew_skin_lbs(&job, NULL) == SINEW_OK, "stretched palette, inverse transpose");
    CHECK(memcmp(one, many, sizeof(float) * 6 * (size_t)nv) == 0,
          "stretched palette: the parallel automatic mode differs from the inverse transpose");
    job.out_normals = fast, job.normal_mode = SINEW_NORMALS_FAST;
    CHECK(sinew_skin_lbs(&job, NULL) == SINEW_OK, "stretched palette, fast normals");
    CHECK(memcmp(one + 3 * nv, fast, sizeof(float) * 3 * (size_t)nv) != 0,
          "stretched palette: fast normals equal the inverse transpose's, so the check above proves nothing");
    free(fast);
    sinew_skin_inputs_free(inputs);
    /* errors come back as from the one-thread call */
    sinew_error err = {0};
    sinew_skin_job bad = {.skin = s, .palette = pal, .palette_count = 1};
    CHECK(sinew_skin_lbs_parallel(&bad, pool, &err) == SINEW_ERROR_BUFFER_TOO_SMALL, "%s", err.description);
    CHECK(strncmp(err.description, "sinew_skin_lbs_parallel: ", 25) == 0, "the caller named: %s", err.description);
    sinew_pool_free(pool);
    free(one), free(many), free(model), free(pal), free(local), free(dq);
    sinew_asset_free(a);
}

/* A mesh big enough for every share to be cut in pieces (60,013 random
 * vertices, four influences each, on the demo skeleton): parallel LBS and
 * DQS bit for bit the one-thread call on pools of 2, 3 and 7 threads, over
 * the whole mesh, ranges that start and end inside blocks, and one too small
 * to split. */
static void test_large_skinning(void)
{
    enum { NV = 60013, NI = 4 };
    sinew_asset *a = sinew_demo_create(NULL, NULL);
    const sinew_skeleton *sk = a->skeleton;
    int nj = sk->joint_count;
    uint16_t *idx = malloc(sizeof *idx * NV * NI);
    float *w = malloc(sizeof *w * NV * NI), *pos = malloc(sizeof *pos * 3 * NV), *nrm = malloc(sizeof *nrm * 3 * NV);
    float *one = malloc(sizeof *one * 6 * NV), *many = malloc(sizeof *many * 6 * NV);
    unsigned seed = 99;
    for (int i = 0; i < NV * NI; ++i) {
        seed = seed * 1664525u + 1013904223u;
        idx[i] = (uint16_t)((seed >> 8) % (unsigned)nj);
        w[i] = (float)((seed >> 16) & 255) + 1.0f;
    }
    for (int i = 0; i < 3 * NV; ++i) {
        seed = seed * 1664525u + 1013904223u;
        pos[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
        nrm[i] = (float)((seed >> 4) & 1023) / 1024.0f - 0.5f;
    }
    sinew_skin_desc d = {.joint_count = nj, .joints = NULL, .vertex_count = NV, .influence_count = NI,
                         .index_type = SINEW_INDEX_U16, .indices = idx, .weight_type = SINEW_WEIGHT_F32, .weights = w};
    int *joints = malloc(sizeof *joints * (size_t)nj);
    for (int j = 0; j < nj; ++j) joints[j] = j;
    d.joints = joints;
    sinew_skin_report report;
    sinew_error err = {0};
    sinew_skin *s = sinew_skin_create(sk, &d, NULL, &report, &err);
    CHECK(s != NULL, "large skin: %s", err.description);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)nj), *pal = malloc(sizeof *pal * (size_t)nj);
    sinew_transform *local = malloc(sizeof *local * (size_t)nj);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)nj);
    sinew_clip_sample(a->clips[0], sk, 0.7f, SINEW_SAMPLE_LOOP, NULL, local, nj, NULL);
    sinew_local_to_model(sk, local, NULL, model, nj, NULL);
    if (s) sinew_skin_palette(s, model, nj, NULL, pal, nj, NULL);
    sinew_dq_palette(pal, nj, dq, NULL);
    static const int threads[] = {2, 3, 7};
    static const int ranges[][2] = {{0, NV}, {5, NV - 13}, {1, 50000}, {3, 2000}};
    for (size_t t = 0; t < sizeof threads / sizeof *threads && s; ++t) {
        sinew_pool *pool = sinew_pool_create(threads[t], NULL, NULL);
        for (int dqs = 0; dqs < 2; ++dqs)
            for (size_t r = 0; r < sizeof ranges / sizeof *ranges; ++r) {
                for (int i = 0; i < 6 * NV; ++i) one[i] = many[i] = -7.0f;
                sinew_skin_job job = {.skin = s, .palette = pal, .dq_palette = dq, .palette_count = nj,
                                      .first_vertex = ranges[r][0], .vertex_count = ranges[r][1],
                                      .positions = pos, .out_positions = one, .normals = nrm,
                                      .out_normals = one + 3 * NV};
                CHECK((dqs ? sinew_skin_dqs(&job, &err) : sinew_skin_lbs(&job, &err)) == SINEW_OK, "%s",
                      err.description);
                job.out_positions = many, job.out_normals = many + 3 * NV;
                CHECK((dqs ? sinew_skin_dqs_parallel(&job, pool, &err) : sinew_skin_lbs_parallel(&job, pool, &err)) ==
                          SINEW_OK,
                      "%s", err.description);
                CHECK(memcmp(one, many, sizeof(float) * 6 * NV) == 0,
                      "%d threads, %s [%d, +%d) of %d vertices: parallel differs from one thread", threads[t],
                      dqs ? "dqs" : "lbs", ranges[r][0], ranges[r][1], NV);
            }
        sinew_pool_free(pool);
    }
    sinew_skin_free(s);
    free(idx), free(w), free(pos), free(nrm), free(one), free(many), free(joints), free(model), free(pal);
    free(local), free(dq);
    sinew_asset_free(a);
}

int main(void)
{
    test_runs(1);
    test_runs(2);
    test_runs(7);
    sinew_pool_run(NULL, 3, hit, &(counts){0}); /* a NULL pool runs in order */
    sinew_pool_wake(NULL, true);                  /* and has no workers to wake */
    sinew_error err = {0};
    CHECK(sinew_pool_create(0, NULL, &err) == NULL && err.result == SINEW_ERROR_INVALID_ARGUMENT, "0 threads: %s",
          err.description);
    CHECK(strncmp(err.description, "sinew_pool_create: ", 19) == 0, "the caller named: %s", err.description);
    CHECK(sinew_pool_create(SINEW_MAX_THREADS + 1, NULL, &err) == NULL, "too many threads");
    sinew_pool_free(NULL);
    test_affinity();
    test_skinning();
    test_large_skinning();
    return check_finish("test_pool");
}
