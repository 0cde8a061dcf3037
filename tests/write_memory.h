/* SPDX-License-Identifier: MIT */
/* Test helper: a sinew_archive_writer that gathers the archive in memory.
 * Include after check.h and sinew_archive.h. */
#ifndef SINEW_TEST_WRITE_MEMORY_H
#define SINEW_TEST_WRITE_MEMORY_H

#include <stdlib.h>
#include <string.h>

typedef struct memory {
    unsigned char *bytes;
    size_t size;
} memory;

/* sinew_archive_writer: appends to the memory at `user` (false out of memory). */
static inline bool to_memory(void *user, const void *bytes, size_t size)
{
    memory *m = user;
    unsigned char *grown = realloc(m->bytes, m->size + size);
    if (!grown) return false;
    memcpy(grown + m->size, bytes, size);
    m->bytes = grown, m->size += size;
    return true;
}

/* The archive of `a` written with `o` (a failed CHECK and what was written
 * when writing fails); free its bytes. */
static inline memory write_asset(const sinew_asset *a, const sinew_archive_write_options *o)
{
    memory m = {0};
    sinew_error err;
    CHECK(sinew_archive_write(a, o, to_memory, &m, &err) == SINEW_OK, "write: %s", err.description);
    return m;
}

#if defined(_WIN32) || (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L)
/* A copy of m's bytes on a 64-byte boundary, as a view needs them, ending
 * where they end (so that AddressSanitizer sees a read past them); free
 * with aligned_free. For a file that asks for POSIX (posix_memalign) before
 * its first include, or on Windows. */
static inline unsigned char *aligned_copy(const memory *m)
{
    void *p = NULL;
#if defined(_WIN32)
    p = _aligned_malloc(m->size ? m->size : 1, 64);
#else
    if (posix_memalign(&p, 64, m->size ? m->size : 1) != 0) p = NULL;
#endif
    if (p) memcpy(p, m->bytes, m->size);
    return p;
}

static inline void aligned_free(unsigned char *p)
{
#if defined(_WIN32)
    _aligned_free(p);
#else
    free(p);
#endif
}
#endif

#endif
