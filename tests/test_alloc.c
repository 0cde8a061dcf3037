/* Allocation: every create function allocates through the caller's
 * allocator and frees what it allocated; each allocation failing in turn
 * gives SINEW_ERROR_OUT_OF_MEMORY, never a crash or a leak. */
#include "sinew/sinew.h"
#include "sinew/sinew_asset.h"
#include "check.h"

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

int main(void)
{
    counter c = {0, 0, 0};
    sinew_options opt = {{count_alloc, count_free, &c}, {0}};
    sinew_error err;
    sinew_asset *a = sinew_demo_create(&opt, &err);
    CHECK(a != NULL, "demo with a counting allocator: %s", err.description);
    CHECK(c.total > 5, "allocations go through the caller's allocator (%ld)", c.total);
    sinew_asset_free(a);
    CHECK(c.live == 0, "everything allocated is freed (%ld left)", c.live);

    long allocations = c.total;
    int failures_reported = 0;
    for (long k = 1; k <= allocations; ++k) {
        counter f = {0, 0, k};
        sinew_options fo = {{count_alloc, count_free, &f}, {0}};
        sinew_asset *x = sinew_demo_create(&fo, &err);
        if (!x && err.result == SINEW_ERROR_OUT_OF_MEMORY) ++failures_reported;
        CHECK(x == NULL, "allocation %ld of %ld failing makes creation fail", k, allocations);
        sinew_asset_free(x);
        CHECK(f.live == 0, "allocation %ld failing leaks nothing (%ld left)", k, f.live);
    }
    CHECK(failures_reported == allocations, "each failure is reported as out of memory (%d of %ld)",
          failures_reported, allocations);
    return check_finish("test_alloc");
}
