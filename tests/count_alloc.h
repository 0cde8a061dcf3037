/* SPDX-License-Identifier: MIT */
/* Test helper: an allocator for sinew_options that counts what it hands
 * out and refuses one allocation on request, for sweeps that fail each
 * allocation in turn. */
#ifndef SINEW_TEST_COUNT_ALLOC_H
#define SINEW_TEST_COUNT_ALLOC_H

#include <stdlib.h>

typedef struct counter {
    long live, total, fail_at; /* fail_at: the 1-based allocation to refuse, 0 none */
} counter;

static void *count_alloc(void *user, size_t size)
{
    counter *c = user;
    if (++c->total == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->live++;
    return p;
}

static void count_free(void *user, void *ptr)
{
    counter *c = user;
    if (ptr) c->live--;
    free(ptr);
}

#endif
