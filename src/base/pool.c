/* SPDX-License-Identifier: MIT */
/* A small pool of worker threads. Each sinew_pool_run gives every thread
 * its own share of the task indices, the same share in every run (thread t
 * of n: the t-th of n contiguous parts), so that a thread meets the data it
 * touched in the last run still in its own caches; a thread done with its
 * share takes what is left of the others'. A run ends when its tasks are
 * done, not when every worker has come: a worker still asleep when a run
 * starts (waking a thread takes longer than a frame's skinning job may)
 * leaves its share to the others instead of holding the run.
 * A worker that finds itself on the CPU its run was started from moves off
 * it (sinew__leave_cpu). The pool is the only state; the library keeps none of
 * its own. */
#include "base/thread.h"

#include <stdalign.h>
#include <stdatomic.h>

/* A thread's share of the current run: indices next .. end - 1 still to
 * take. On a cache line of its own, since the others read it only at the
 * end of their shares. */
typedef struct thread_share {
    alignas(64) atomic_int next;
    int end;
    sinew_pool *pool;
    atomic_llong seen; /* a worker's: the last run it entered (its own loop and sinew_pool_wake read it) */
} thread_share;

struct sinew_pool {
    int workers; /* threads besides the caller */
    sinew__thread *threads;
    thread_share *shares; /* workers + 1, on cache lines: the workers', then the caller's */
    sinew__mutex lock;
    sinew__cond start, done;
    /* the current run (fn, user, the shares), published by `generation`:
     * even once published, odd while the caller rewrites it */
    sinew_task_fn fn;
    void *user;
    atomic_llong generation;
    atomic_int active;  /* workers reading the run (taking tasks) */
    atomic_int pending; /* tasks of the run not yet done */
    atomic_bool quit;
    atomic_int caller_cpu; /* the CPU the current run was published from, -1 unknown */
    sinew_allocator allocator;
};

/* How long a thread waits spinning before it sleeps (a sleeping thread
 * can take longer to wake than a frame's skinning job). */
enum { SPIN = 20000 };

/* Takes the tasks of the thread's own share, then of the others' until
 * none is left; the one that finishes the run's last task wakes the caller
 * if it sleeps. */
static void drain(sinew_pool *p, int self)
{
    int n = p->workers + 1;
    for (int k = 0; k < n; ++k) {
        thread_share *s = &p->shares[(self + k) % n];
        while (atomic_load_explicit(&s->next, memory_order_relaxed) < s->end) {
            int i = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
            if (i >= s->end) break;
            p->fn(p->user, i);
            if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1 && self != p->workers) {
                sinew__mutex_lock(&p->lock);
                sinew__cond_signal(&p->done);
                sinew__mutex_unlock(&p->lock);
            }
        }
    }
}

/* A run the worker has not taken part in yet: published, newer than `seen`. */
static bool new_run(long long generation, long long seen) { return generation != seen && generation % 2 == 0; }

static void worker_main(void *arg)
{
    thread_share *mine = arg;
    sinew_pool *p = mine->pool;
    for (;;) {
        long long seen = atomic_load_explicit(&mine->seen, memory_order_relaxed); /* only this thread writes it */
        long long g = atomic_load_explicit(&p->generation, memory_order_acquire);
        for (int i = 0; i < SPIN && !new_run(g, seen) && !atomic_load(&p->quit); ++i) {
            sinew__relax();
            g = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (!new_run(g, seen)) {
            sinew__mutex_lock(&p->lock);
            while (!atomic_load(&p->quit) && !new_run(g = atomic_load(&p->generation), seen))
                sinew__cond_wait(&p->start, &p->lock);
            sinew__mutex_unlock(&p->lock);
        }
        if (atomic_load(&p->quit)) return;
        /* before entering: a worker moving holds no run up (see
         * sinew__leave_cpu: some kernels wake a thread onto its waker's CPU) */
        sinew__leave_cpu(atomic_load_explicit(&p->caller_cpu, memory_order_relaxed));
        /* entering the run: the caller rewrites it only once no worker is
         * in it, and a worker enters only a run still published (both
         * sequentially consistent, so one of the two sees the other) */
        atomic_fetch_add(&p->active, 1);
        if (atomic_load(&p->generation) == g) {
            drain(p, (int)(mine - p->shares));
            atomic_store_explicit(&mine->seen, g, memory_order_release);
        }
        atomic_fetch_sub_explicit(&p->active, 1, memory_order_release);
    }
}

sinew_pool *sinew_pool_create(int threads, const sinew_options *options, sinew_error *err)
{
    sinew__ok(err);
    if (threads < 1 || threads > SINEW_MAX_THREADS) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_pool_create: %d threads is outside 1..%d", threads,
                    SINEW_MAX_THREADS);
        return NULL;
    }
    sinew_allocator alloc = sinew__allocator(options);
    sinew_pool *p = sinew__alloc(&alloc, sizeof *p);
    sinew__thread *t = threads > 1 ? sinew__alloc(&alloc, sizeof *t * (size_t)(threads - 1)) : NULL;
    thread_share *shares = sinew__alloc_aligned(&alloc, sizeof *shares * (size_t)threads);
    if (!p || (threads > 1 && !t) || !shares) {
        sinew__free(&alloc, p);
        sinew__free(&alloc, t);
        sinew__free_aligned(&alloc, shares);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_pool_create: out of memory");
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->threads = t;
    p->shares = shares;
    p->allocator = alloc;
    for (int i = 0; i < threads; ++i) {
        atomic_init(&shares[i].next, 0);
        atomic_init(&shares[i].seen, 0);
        shares[i].end = 0, shares[i].pool = p;
    }
    atomic_init(&p->generation, 0);
    atomic_init(&p->active, 0);
    atomic_init(&p->pending, 0);
    atomic_init(&p->quit, false);
    atomic_init(&p->caller_cpu, -1);
    sinew__mutex_init(&p->lock);
    sinew__cond_init(&p->start);
    sinew__cond_init(&p->done);
    for (int i = 0; i < threads - 1; ++i) {
        if (!sinew__thread_start(&p->threads[i], worker_main, &shares[i])) {
            sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_pool_create: cannot start thread %d of %d", i + 2,
                        threads);
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
    sinew__mutex_lock(&p->lock);
    atomic_store(&p->quit, true);
    sinew__cond_broadcast(&p->start);
    sinew__mutex_unlock(&p->lock);
    for (int i = 0; i < p->workers; ++i) sinew__thread_join(&p->threads[i]);
    sinew__mutex_destroy(&p->lock);
    sinew__cond_destroy(&p->start);
    sinew__cond_destroy(&p->done);
    sinew_allocator a = p->allocator;
    sinew__free(&a, p->threads);
    sinew__free_aligned(&a, p->shares);
    sinew__free(&a, p);
}

int sinew_pool_threads(const sinew_pool *p) { return p ? p->workers + 1 : 1; }

/* Publishes a run of `count` tasks (the shares laid out) and wakes the
 * sleeping workers; returns its generation. */
static long long publish(sinew_pool *p, int count, sinew_task_fn fn, void *user)
{
    int n = p->workers + 1;
    /* withdraw the last run, then wait for any worker still reading it (one
     * that woke after it ended and found nothing left) */
    long long g = atomic_load_explicit(&p->generation, memory_order_relaxed);
    atomic_store(&p->generation, g + 1);
    while (atomic_load(&p->active) > 0) sinew__relax();
    p->fn = fn, p->user = user;
    atomic_store_explicit(&p->caller_cpu, sinew__current_cpu(), memory_order_relaxed);
    for (int t = 0; t < n; ++t) {
        atomic_store_explicit(&p->shares[t].next, (int)((long long)count * t / n), memory_order_relaxed);
        p->shares[t].end = (int)((long long)count * (t + 1) / n);
    }
    atomic_store_explicit(&p->pending, count, memory_order_relaxed);
    atomic_store_explicit(&p->generation, g + 2, memory_order_release);
    sinew__mutex_lock(&p->lock);
    sinew__cond_broadcast(&p->start);
    sinew__mutex_unlock(&p->lock);
    return g + 2;
}

void sinew_pool_run(sinew_pool *p, int count, sinew_task_fn fn, void *user)
{
    if (count <= 0 || !fn) return;
    if (!p || p->workers == 0 || count == 1) {
        for (int i = 0; i < count; ++i) fn(user, i);
        return;
    }
    publish(p, count, fn, user);
    drain(p, p->workers);
    /* the tasks the workers took, done */
    for (int i = 0; i < SPIN && atomic_load_explicit(&p->pending, memory_order_acquire) > 0; ++i) sinew__relax();
    if (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) {
        sinew__mutex_lock(&p->lock);
        while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) sinew__cond_wait(&p->done, &p->lock);
        sinew__mutex_unlock(&p->lock);
    }
}

/* A run of no tasks: each worker enters it (and so is awake), then spins
 * for the next as after any run. */
void sinew_pool_wake(sinew_pool *p, bool wait)
{
    if (!p || p->workers == 0) return;
    long long g = publish(p, 0, NULL, NULL);
    if (!wait) return;
    /* yielding, not spinning: a worker woken onto this CPU runs (and moves
     * off it) at once instead of when the scheduler next preempts the
     * caller */
    for (int t = 0; t < p->workers; ++t)
        while (atomic_load_explicit(&p->shares[t].seen, memory_order_acquire) != g) sinew__yield();
}

