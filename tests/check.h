/* SPDX-License-Identifier: MIT */
/* A minimal test harness: CHECK records a failure with its place and goes
 * on; check_finish() prints "N passed, N failed" and gives the exit code. */
#ifndef SINEW_TEST_CHECK_H
#define SINEW_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed_, check_failed_;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (cond) {                                                                     \
            ++check_passed_;                                                            \
        } else {                                                                        \
            ++check_failed_;                                                            \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
    } while (0)

/* |a - b| <= tol, NaN failing */
#define CHECK_NEAR(a, b, tol, what)                                                          \
    CHECK(fabs((double)(a) - (double)(b)) <= (double)(tol), "%s: %.9g vs %.9g (tolerance %g)", \
          what, (double)(a), (double)(b), (double)(tol))

/* the error has this result and its description contains `needle` */
#define CHECK_ERROR(err, expected, needle)                                                          \
    CHECK((err).result == (expected) && strstr((err).description, (needle)) != NULL,               \
          "expected %s with \"%s\", got %s: \"%s\"", sinew_result_name(expected), (needle),         \
          sinew_result_name((err).result), (err).description)

static inline int check_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}

/* Collects logger messages so tests can assert what was reported. */
typedef struct check_log {
    int count;
    char last[512];
    char all[4096];
} check_log;

static inline void check_log_fn(void *user, sinew_log_level level, const char *message)
{
    (void)level;
    check_log *l = (check_log *)user;
    l->count++;
    snprintf(l->last, sizeof l->last, "%s", message);
    size_t used = strlen(l->all);
    snprintf(l->all + used, sizeof l->all - used, "%s\n", message);
}

/* Deterministic pseudo-random numbers in [0, 1). */
static inline float check_rand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

#endif
