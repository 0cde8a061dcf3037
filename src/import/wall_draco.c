/* SPDX-License-Identifier: MIT */
/* sinew__draco_walled: Draco's decoder in a child process under limits.
 *
 * Fuzzing Draco (tests/fuzz/fuzz_draco.c) found streams of a few hundred
 * bytes, with counts that agree with the accessors, on which Debian's
 * libdraco spends seconds of CPU and hundreds of megabytes (a prediction
 * scheme's own count, read from the stream, sizes a vector and a loop):
 * what it allocates is not bounded by anything the reader can check
 * before it runs. So, as with Assimp (wall.c), the decode runs in a fork
 * of the caller with an address space of what the caller holds plus what
 * is left of the load's limit (plus room for code and stacks), CPU and wall
 * time of assimp_timeout_ms, no core file and default signal actions; the
 * child writes the decoded arrays, whose sizes the parent computed from the
 * accessors, down a pipe, and the parent reads exactly those bytes. A
 * crash, a limit or a timeout becomes the load's error. Where there is no
 * fork (Windows), and where the caller trusts its files
 * (assimp_in_process), Draco runs in the calling process. */
#if defined(__unix__) || defined(__APPLE__)
#define _GNU_SOURCE
#define SINEW__DRACO_WALL 1
#endif

#include "draco.h"
#include "import_internal.h" /* sinew_load_options */

#include <stdio.h>
#include <string.h>

#if SINEW__DRACO_WALL
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#endif

/* The sanitizers reserve terabytes of address space: no limit on it there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SINEW__UNLIMITED_ADDRESS_SPACE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SINEW__UNLIMITED_ADDRESS_SPACE 1
#endif
#endif

enum { DEFAULT_TIMEOUT_MS = 10000, ROOM = 128 << 20, WHY = 240 };

#if SINEW__DRACO_WALL
#if !defined(SINEW__UNLIMITED_ADDRESS_SPACE)
/* The process's address space now (statm's first field), 0 where unknown. */
static size_t address_space_now(void)
{
#if defined(__linux__)
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1) pages = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && pages < SIZE_MAX / (size_t)page ? pages * (size_t)page : 0;
#else
    return 0;
#endif
}
#endif

static void write_all(int fd, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(3);
        b += w, n -= (size_t)w;
    }
}

static void child(int fd, const void *data, size_t size, int point_count, int index_count, uint32_t *indices,
                  sinew__draco_stream *streams, int stream_count, size_t budget, unsigned cpu_seconds)
{
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU, SIGPIPE, SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
    sigset_t none_blocked;
    sigemptyset(&none_blocked);
    sigprocmask(SIG_SETMASK, &none_blocked, NULL);
    struct rlimit none = {0, 0}, cpu = {cpu_seconds, cpu_seconds + 1};
    setrlimit(RLIMIT_CORE, &none);
    setrlimit(RLIMIT_CPU, &cpu);
#if !defined(SINEW__UNLIMITED_ADDRESS_SPACE)
    size_t now = address_space_now(), limit = SIZE_MAX / 2;
    if (budget < SIZE_MAX / 4 && now < SIZE_MAX / 4) limit = now + budget + ROOM;
    struct rlimit as = {limit, limit};
    setrlimit(RLIMIT_AS, &as);
#else
    (void)budget;
#endif
    char why[WHY] = {0};
    int32_t r = sinew__draco_decode(data, size, point_count, index_count, indices, streams, stream_count, why,
                                    sizeof why);
    write_all(fd, &r, sizeof r);
    write_all(fd, why, sizeof why);
    if (r == SINEW_OK) {
        write_all(fd, indices, sizeof *indices * (size_t)index_count);
        for (int s = 0; s < stream_count; ++s)
            write_all(fd, streams[s].floats ? (void *)streams[s].floats : (void *)streams[s].uints,
                      4 * (size_t)point_count * (size_t)streams[s].components);
    }
    _exit(0);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Reads n bytes into p before the deadline; 0, or -1 at the end of the
 * stream, -2 past the deadline. */
static int read_exact(int fd, void *p, size_t n, const struct timespec *t0, double limit)
{
    unsigned char *b = p;
    while (n) {
        double left = limit - seconds_since(t0);
        if (left <= 0) return -2;
        struct pollfd pfd = {fd, POLLIN, 0};
        int k = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) return -2;
        ssize_t got = read(fd, b, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        b += got, n -= (size_t)got;
    }
    return 0;
}
#endif

sinew_result sinew__draco_walled(const void *data, size_t size, int point_count, int index_count, uint32_t *indices,
                                 sinew__draco_stream *streams, int stream_count,
                                 const sinew_load_options *options, size_t budget, char *why, size_t why_size)
{
    unsigned ms = options && options->assimp_timeout_ms ? options->assimp_timeout_ms : DEFAULT_TIMEOUT_MS;
#if SINEW__DRACO_WALL
    if (!(options && options->assimp_in_process)) {
        int fds[2];
        if (pipe(fds) != 0) {
            snprintf(why, why_size, "no pipe for Draco's child process (%s)", strerror(errno));
            return SINEW_ERROR_IO;
        }
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]), close(fds[1]);
            snprintf(why, why_size, "cannot start Draco's child process (%s)", strerror(errno));
            return SINEW_ERROR_IO;
        }
        if (pid == 0) {
            close(fds[0]);
            child(fds[1], data, size, point_count, index_count, indices, streams, stream_count, budget,
                  (ms + 999) / 1000);
        }
        close(fds[1]);
        double limit = ms / 1000.0;
        int32_t r = -1;
        char said[WHY];
        int got = read_exact(fds[0], &r, sizeof r, &t0, limit);
        if (got == 0) got = read_exact(fds[0], said, sizeof said, &t0, limit);
        if (got == 0 && r == SINEW_OK) {
            got = read_exact(fds[0], indices, sizeof *indices * (size_t)index_count, &t0, limit);
            for (int s = 0; got == 0 && s < stream_count; ++s)
                got = read_exact(fds[0], streams[s].floats ? (void *)streams[s].floats : (void *)streams[s].uints,
                                 4 * (size_t)point_count * (size_t)streams[s].components, &t0, limit);
        }
        close(fds[0]);
        if (got == -2) kill(pid, SIGKILL);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        double took = seconds_since(&t0);
        if (got == -2) {
            snprintf(why, why_size, "Draco did not finish within %.1f s (stopped; sinew_load_options.assimp_timeout_ms)",
                     limit);
            return SINEW_ERROR_IO;
        }
        if (got == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
                snprintf(why, why_size, "Draco ran past its CPU time of %.1f s", limit);
            else if (WIFSIGNALED(status))
                snprintf(why, why_size, "Draco's decoder crashed (signal %d) after %.1f s", WTERMSIG(status), took);
            else
                snprintf(why, why_size, "Draco's child process ended without its result after %.1f s", took);
            return SINEW_ERROR_PARSE;
        }
        said[WHY - 1] = 0;
        if (r != SINEW_OK) snprintf(why, why_size, "%s", said);
        if (r == SINEW_ERROR_OUT_OF_MEMORY)
            snprintf(why, why_size, "Draco ran out of the load's memory limit (sinew_options.max_memory)");
        return (sinew_result)r;
    }
#else
    (void)budget;
#endif
    (void)ms;
    return sinew__draco_decode(data, size, point_count, index_count, indices, streams, stream_count, why, why_size);
}
