/* SPDX-License-Identifier: MIT */
/* The platform layer under the thread pool: threads, a mutex and a
 * condition variable, yielding, and where a thread runs. POSIX threads, or
 * Win32's (SRW locks and condition variables); the types hold the
 * platform's own objects, so the pool embeds them without including
 * windows.h. Private to the base room. */
#ifndef SINEW_BASE_THREAD_H
#define SINEW_BASE_THREAD_H

#include "base/base_internal.h"

#if defined(_WIN32)
typedef struct sinew__mutex { void *lock; } sinew__mutex;  /* an SRWLOCK */
typedef struct sinew__cond { void *cond; } sinew__cond;    /* a CONDITION_VARIABLE */
typedef struct sinew__thread {
    void *handle;
    void (*fn)(void *);
    void *arg;
} sinew__thread;
#else
#include <pthread.h>
typedef struct sinew__mutex { pthread_mutex_t m; } sinew__mutex;
typedef struct sinew__cond { pthread_cond_t c; } sinew__cond;
typedef struct sinew__thread {
    pthread_t t;
    void (*fn)(void *);
    void *arg;
} sinew__thread;
#endif

/* Starts fn(arg) on a new thread; `t` stays where it is until joined.
 * Returns false when the system refuses. */
bool sinew__thread_start(sinew__thread *t, void (*fn)(void *), void *arg);
/* Waits for the thread to return. */
void sinew__thread_join(sinew__thread *t);

void sinew__mutex_init(sinew__mutex *m);
void sinew__mutex_destroy(sinew__mutex *m);
void sinew__mutex_lock(sinew__mutex *m);
void sinew__mutex_unlock(sinew__mutex *m);

void sinew__cond_init(sinew__cond *c);
void sinew__cond_destroy(sinew__cond *c);
/* Releases the locked `m`, sleeps until signalled (or spuriously), locks
 * `m` again. */
void sinew__cond_wait(sinew__cond *c, sinew__mutex *m);
void sinew__cond_signal(sinew__cond *c);
void sinew__cond_broadcast(sinew__cond *c);

/* Gives the CPU to another thread that is ready. */
void sinew__yield(void);

/* A pause in a spin-wait loop: the instruction that tells the CPU so
 * (x86 PAUSE, Arm YIELD), else nothing. */
static inline void sinew__relax(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ __volatile__("yield");
#endif
}

/* The CPU the calling thread runs on, -1 where the platform does not say. */
int sinew__current_cpu(void);

/* Where the calling thread runs on CPU `cpu`, moves it off that CPU. Some
 * kernels place a thread they wake on the CPU of the thread that woke it,
 * so as to keep other virtual CPUs idle (guest kernels tuned to pack
 * virtual CPUs do): a pool worker woken by a run's caller then shares the
 * caller's CPU, one of the two waiting for the other while another CPU
 * idles, so that a run is slower than on one thread (docs/BENCHMARKS.md).
 * The move: the thread's affinity without that CPU, then as it was (the
 * kernel moves a thread at once off a CPU its affinity leaves out, and not
 * back when it is allowed again). Nothing happens where the thread is
 * elsewhere, the CPU is unknown, the thread may run on one CPU only, or
 * the platform is not Linux. */
void sinew__leave_cpu(int cpu);

#endif
