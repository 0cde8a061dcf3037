/* SPDX-License-Identifier: MIT */
/* Allocation through the caller's allocator, cache-line aligned blocks,
 * and one-allocation layouts. */
#include "base/base_internal.h"

#include <stdint.h>
#include <stdlib.h>

static void *default_alloc(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void default_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

sinew_allocator sinew__allocator(const sinew_options *options)
{
    sinew_allocator a = {default_alloc, default_free, NULL};
    if (options && options->allocator.alloc && options->allocator.free) a = options->allocator;
    return a;
}

void *sinew__alloc(const sinew_allocator *a, size_t size)
{
    if (size == 0) size = 1;
    return a->alloc(a->user, size);
}

void sinew__free(const sinew_allocator *a, void *ptr)
{
    if (ptr) a->free(a->user, ptr);
}

/* The allocation itself is kept in the pointer-sized slot just before the
 * aligned block. */
void *sinew__alloc_aligned(const sinew_allocator *a, size_t size)
{
    size_t extra = SINEW__ALIGN + sizeof(void *);
    if (size > SIZE_MAX - extra) return NULL;
    unsigned char *raw = sinew__alloc(a, size + extra);
    if (!raw) return NULL;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + SINEW__ALIGN - 1) / SINEW__ALIGN * SINEW__ALIGN;
    unsigned char *p = raw + (at - (uintptr_t)raw);
    memcpy(p - sizeof(void *), &raw, sizeof raw);
    return p;
}

void sinew__free_aligned(const sinew_allocator *a, void *ptr)
{
    if (!ptr) return;
    void *raw;
    memcpy(&raw, (unsigned char *)ptr - sizeof(void *), sizeof raw);
    sinew__free(a, raw);
}

size_t sinew__layout_add(sinew__layout *l, size_t count, size_t elem_size, size_t align)
{
    size_t offset = (l->total + align - 1) / align * align;
    if (offset < l->total || (elem_size && count > (SIZE_MAX - offset) / elem_size)) {
        l->overflow = true;
        return 0;
    }
    l->total = offset + count * elem_size;
    return offset;
}
