/* Results, error reporting, logging and allocation shared by the library. */
#include "../internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *sinew_version(void) { return SINEW_VERSION_STRING; }

const char *sinew_result_name(sinew_result result)
{
    static const char *const names[] = {
#define SINEW__RESULT_NAME(name, text) #name,
        SINEW_RESULT_LIST(SINEW__RESULT_NAME)
#undef SINEW__RESULT_NAME
    };
    if ((unsigned)result >= SINEW_RESULT_COUNT) return "SINEW_UNKNOWN";
    return names[result];
}

const char *sinew_result_text(sinew_result result)
{
    static const char *const texts[] = {
#define SINEW__RESULT_TEXT(name, text) text,
        SINEW_RESULT_LIST(SINEW__RESULT_TEXT)
#undef SINEW__RESULT_TEXT
    };
    if ((unsigned)result >= SINEW_RESULT_COUNT) return "unknown result";
    return texts[result];
}

sinew_result sinew__fail(sinew_error *err, sinew_result result, const char *fmt, ...)
{
    if (err) {
        err->result = result;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->description, sizeof err->description, fmt, ap);
        va_end(ap);
    }
    return result;
}

void sinew__warn(const sinew_options *options, const char *fmt, ...)
{
    if (!options || !options->logger.log) return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    options->logger.log(options->logger.user, SINEW_LOG_WARNING, message);
}

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
