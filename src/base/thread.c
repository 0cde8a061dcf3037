/* SPDX-License-Identifier: MIT */
/* The platform layer under the thread pool (thread.h): POSIX threads, or
 * Win32's. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getcpu, pthread_{get,set}affinity_np */
#endif
#include "base/thread.h"

#if defined(_WIN32)

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "an SRWLOCK is one pointer");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "a CONDITION_VARIABLE is one pointer");

static DWORD WINAPI trampoline(LPVOID arg)
{
    sinew__thread *t = arg;
    t->fn(t->arg);
    return 0;
}

bool sinew__thread_start(sinew__thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn, t->arg = arg;
    t->handle = CreateThread(NULL, 0, trampoline, t, 0, NULL);
    return t->handle != NULL;
}

void sinew__thread_join(sinew__thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}

void sinew__mutex_init(sinew__mutex *m) { InitializeSRWLock((PSRWLOCK)&m->lock); }
void sinew__mutex_destroy(sinew__mutex *m) { (void)m; }
void sinew__mutex_lock(sinew__mutex *m) { AcquireSRWLockExclusive((PSRWLOCK)&m->lock); }
void sinew__mutex_unlock(sinew__mutex *m) { ReleaseSRWLockExclusive((PSRWLOCK)&m->lock); }

void sinew__cond_init(sinew__cond *c) { InitializeConditionVariable((PCONDITION_VARIABLE)&c->cond); }
void sinew__cond_destroy(sinew__cond *c) { (void)c; }
void sinew__cond_wait(sinew__cond *c, sinew__mutex *m)
{
    SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->cond, (PSRWLOCK)&m->lock, INFINITE, 0);
}
void sinew__cond_signal(sinew__cond *c) { WakeConditionVariable((PCONDITION_VARIABLE)&c->cond); }
void sinew__cond_broadcast(sinew__cond *c) { WakeAllConditionVariable((PCONDITION_VARIABLE)&c->cond); }

void sinew__yield(void) { SwitchToThread(); }

int sinew__current_cpu(void) { return (int)GetCurrentProcessorNumber(); }

void sinew__leave_cpu(int cpu) { (void)cpu; }

#else

#include <sched.h>

static void *trampoline(void *arg)
{
    sinew__thread *t = arg;
    t->fn(t->arg);
    return NULL;
}

bool sinew__thread_start(sinew__thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn, t->arg = arg;
    return pthread_create(&t->t, NULL, trampoline, t) == 0;
}

void sinew__thread_join(sinew__thread *t) { pthread_join(t->t, NULL); }

void sinew__mutex_init(sinew__mutex *m) { pthread_mutex_init(&m->m, NULL); }
void sinew__mutex_destroy(sinew__mutex *m) { pthread_mutex_destroy(&m->m); }
void sinew__mutex_lock(sinew__mutex *m) { pthread_mutex_lock(&m->m); }
void sinew__mutex_unlock(sinew__mutex *m) { pthread_mutex_unlock(&m->m); }

void sinew__cond_init(sinew__cond *c) { pthread_cond_init(&c->c, NULL); }
void sinew__cond_destroy(sinew__cond *c) { pthread_cond_destroy(&c->c); }
void sinew__cond_wait(sinew__cond *c, sinew__mutex *m) { pthread_cond_wait(&c->c, &m->m); }
void sinew__cond_signal(sinew__cond *c) { pthread_cond_signal(&c->c); }
void sinew__cond_broadcast(sinew__cond *c) { pthread_cond_broadcast(&c->c); }

void sinew__yield(void) { sched_yield(); }

int sinew__current_cpu(void)
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

void sinew__leave_cpu(int cpu)
{
#if defined(__linux__)
    int here = sinew__current_cpu();
    if (here < 0 || here != cpu || here >= CPU_SETSIZE) return;
    cpu_set_t was, off;
    if (pthread_getaffinity_np(pthread_self(), sizeof was, &was) != 0 || CPU_COUNT(&was) < 2) return;
    off = was;
    CPU_CLR(here, &off);
    if (pthread_setaffinity_np(pthread_self(), sizeof off, &off) == 0)
        pthread_setaffinity_np(pthread_self(), sizeof was, &was);
#else
    (void)cpu;
#endif
}

#endif
