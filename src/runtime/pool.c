/* A small pool of worker threads: each sinew_pool_run hands out task
 * indices from an atomic counter to the workers and the calling thread, and
 * returns when all are done. The pool is the only state; the library keeps
 * none of its own. */
#include "skin_internal.h"

#include <pthread.h>
#include <stdatomic.h>

struct sinew_pool {
    int workers; /* threads besides the caller */
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    /* the current run, published by `generation` */
    sinew_task_fn fn;
    void *user;
    int count;
    atomic_int next;
    atomic_long generation;
    atomic_int busy; /* workers still in the current run */
    atomic_bool quit;
    sinew_allocator allocator;
};

/* How long a thread waits spinning before it sleeps (a sleeping thread
 * takes tens of microseconds to wake, longer than a frame's skinning job). */
enum { SPIN = 20000 };

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Takes tasks until none is left. */
static void drain(sinew_pool *p, sinew_task_fn fn, void *user, int count)
{
    for (;;) {
        int i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= count) return;
        fn(user, i);
    }
}

static void *worker_main(void *arg)
{
    sinew_pool *p = arg;
    long seen = 0;
    for (;;) {
        long g = seen;
        for (int i = 0; i < SPIN && g == seen && !atomic_load(&p->quit); ++i) {
            relax();
            g = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->lock);
            while (!atomic_load(&p->quit) && atomic_load(&p->generation) == seen) pthread_cond_wait(&p->start, &p->lock);
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load(&p->quit)) return NULL;
        seen = atomic_load_explicit(&p->generation, memory_order_acquire);
        drain(p, p->fn, p->user, p->count);
        if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
}

sinew_pool *sinew_pool_create(int threads, const sinew_options *options, sinew_error *err)
{
    sinew__ok(err);
    if (threads < 1 || threads > SINEW_MAX_THREADS) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "pool: %d threads is outside 1..%d", threads,
                    SINEW_MAX_THREADS);
        return NULL;
    }
    sinew_allocator alloc = sinew__allocator(options);
    sinew_pool *p = sinew__alloc(&alloc, sizeof *p);
    pthread_t *t = threads > 1 ? sinew__alloc(&alloc, sizeof *t * (size_t)(threads - 1)) : NULL;
    if (!p || (threads > 1 && !t)) {
        sinew__free(&alloc, p);
        sinew__free(&alloc, t);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "pool: out of memory");
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->threads = t;
    p->allocator = alloc;
    atomic_init(&p->next, 0);
    atomic_init(&p->generation, 0);
    atomic_init(&p->busy, 0);
    atomic_init(&p->quit, false);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < threads - 1; ++i) {
        if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) {
            sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "pool: cannot start thread %d of %d", i + 2, threads);
            sinew_pool_free(p);
            return NULL;
        }
        p->workers = i + 1;
    }
    return p;
}

void sinew_pool_free(sinew_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->quit, true);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->workers; ++i) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    sinew_allocator a = p->allocator;
    sinew__free(&a, p->threads);
    sinew__free(&a, p);
}

int sinew_pool_threads(const sinew_pool *p) { return p ? p->workers + 1 : 1; }

void sinew_pool_run(sinew_pool *p, int count, sinew_task_fn fn, void *user)
{
    if (count <= 0 || !fn) return;
    if (!p || p->workers == 0 || count == 1) {
        for (int i = 0; i < count; ++i) fn(user, i);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn, p->user = user, p->count = count;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->busy, p->workers, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    drain(p, fn, user, count);
    for (int i = 0; i < SPIN && atomic_load_explicit(&p->busy, memory_order_acquire) > 0; ++i) relax();
    if (atomic_load_explicit(&p->busy, memory_order_acquire) > 0) {
        pthread_mutex_lock(&p->lock);
        while (atomic_load_explicit(&p->busy, memory_order_acquire) > 0) pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
}

/* ---- skinning over vertex ranges ------------------------------------------ */

typedef struct range_task {
    const sinew_skin_job *job;
    int first, count, per_task;
    bool dqs;
} range_task;

static void skin_range(void *user, int index)
{
    const range_task *t = user;
    sinew_skin_job job = *t->job;
    job.first_vertex = t->first + index * t->per_task;
    int left = t->first + t->count - job.first_vertex;
    job.vertex_count = left < t->per_task ? left : t->per_task;
    if (t->dqs)
        sinew_skin_dqs(&job, NULL);
    else
        sinew_skin_lbs(&job, NULL);
}

/* Splits the job into ranges of whole 8-vertex blocks, a few per thread so
 * that uneven blocks even out. */
static sinew_result skin_parallel(const sinew_skin_job *job, sinew_pool *pool, bool dqs, sinew_error *err)
{
    sinew_result r = sinew_skin_job_validate(job, dqs, err);
    if (r != SINEW_OK) return r;
    sinew__job_streams st = sinew__job_resolve(job);
    int count = st.end - st.begin, threads = sinew_pool_threads(pool);
    int tasks = threads == 1 ? 1 : 4 * threads;
    int per_task = (count + tasks - 1) / tasks;
    per_task = (per_task + SINEW__BLOCK - 1) / SINEW__BLOCK * SINEW__BLOCK;
    if (per_task < 1024) per_task = 1024; /* below that the hand-over costs more than it saves */
    /* LBS's automatic normal mode decided once for all ranges, not by each */
    sinew_skin_job decided = *job;
    if (!dqs) decided.normal_mode = sinew__lbs_normal_mode(job, &st);
    range_task t = {&decided, st.begin, count, per_task, dqs};
    sinew_pool_run(pool, (count + per_task - 1) / per_task, skin_range, &t);
    return SINEW_OK;
}

sinew_result sinew_skin_lbs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err)
{
    return skin_parallel(job, pool, false, err);
}

sinew_result sinew_skin_dqs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err)
{
    return skin_parallel(job, pool, true, err);
}
