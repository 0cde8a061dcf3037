/* SPDX-License-Identifier: MIT */
/* The base room's interface to every other room: results and errors,
 * warnings, allocation, the SIMD level of an object, hashing. Not installed. */
#ifndef SINEW_BASE_INTERNAL_H
#define SINEW_BASE_INTERNAL_H

#include "sinew/sinew.h"

#include <string.h>

#if defined(__MINGW32__)
/* MinGW's C99 printf (__USE_MINGW_ANSI_STDIO), not the Windows one */
#define SINEW__PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define SINEW__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SINEW__PRINTF(fmt, args)
#endif

/* A loop over a whole array that the compiler vectorizes: built also for
 * AVX2, the version the CPU runs chosen when the program loads, where the
 * toolchain can (GCC and Clang on x86-64 ELF systems: an ifunc); built once
 * elsewhere. Only for plain loops whose result is the same either way. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define SINEW__SANITIZED 1 /* the resolvers would run before the sanitizer's runtime */
#endif
#endif
#if defined(SINEW_X86_SIMD) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(SINEW__SANITIZED)
#define SINEW__VECTOR_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define SINEW__VECTOR_LOOP
#endif

/* Internal functions the other sinew libraries (libsinew_import,
 * libsinew_gpu) call: exported from the shared libsinew, named sinew__ and
 * declared in no public header. On Windows a DLL exports only what is
 * marked so; the mark on a declaration that another DLL defines is
 * ignored, so one mark serves the library that defines and those that
 * call. */
#if defined(_WIN32) && defined(SINEW_SHARED)
#define SINEW__SHARED __declspec(dllexport)
#elif defined(__GNUC__) && !defined(_WIN32)
#define SINEW__SHARED __attribute__((visibility("default")))
#else
#define SINEW__SHARED
#endif

/* A function the compiler is to inline wherever it is called: a hot body
 * shared by two entry points, where a call costs more than the copy. */
#if defined(__GNUC__) || defined(__clang__)
#define SINEW__ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define SINEW__ALWAYS_INLINE __forceinline
#else
#define SINEW__ALWAYS_INLINE inline
#endif

/* A function kept out of its callers: a cold path whose inlined body would
 * cost a hot caller a larger frame and the registers it saves. */
#if defined(__GNUC__) || defined(__clang__)
#define SINEW__NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define SINEW__NOINLINE __declspec(noinline)
#else
#define SINEW__NOINLINE
#endif

/* ---- errors and warnings ------------------------------------------------ */

/* Fills `err` (when not NULL) and returns `result`. */
SINEW__SHARED sinew_result sinew__fail(sinew_error *err, sinew_result result, const char *fmt, ...)
    SINEW__PRINTF(3, 4);

/* Sends a formatted warning to the options' logger, if any. */
SINEW__SHARED void sinew__warn(const sinew_options *options, const char *fmt, ...) SINEW__PRINTF(2, 3);

/* Sends a formatted line to the options' logger at info level, if any. */
SINEW__SHARED void sinew__inform(const sinew_options *options, const char *fmt, ...) SINEW__PRINTF(2, 3);

/* An error sentence past its leading public function's name ("sinew_clip_create:
 * clip ..." gives "clip ..."); the whole sentence where it has none. For a
 * caller that puts another function's sentence inside its own. */
static inline const char *sinew__error_sentence(const char *description)
{
    const char *p = description;
    if (strncmp(p, "sinew_", 6) != 0) return description;
    for (p += 6; (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'; ++p) continue;
    return p[0] == ':' && p[1] == ' ' ? p + 2 : description;
}

/* After a public function called by the public function `who` failed (a
 * result other than SINEW_OK in `err`): the sentence starts with `who`
 * instead of the callee's name. */
void sinew__error_lead(sinew_error *err, const char *who);

/* Clears `err` to SINEW_OK. */
static inline void sinew__ok(sinew_error *err)
{
    if (err) {
        err->result = SINEW_OK;
        err->description[0] = '\0';
    }
}

/* ---- allocation ---------------------------------------------------------- */

SINEW__SHARED sinew_allocator sinew__allocator(const sinew_options *options);
SINEW__SHARED void *sinew__alloc(const sinew_allocator *a, size_t size);
SINEW__SHARED void sinew__free(const sinew_allocator *a, void *ptr);
/* `size` bytes starting on a cache line (SINEW__ALIGN bytes), whatever the
 * allocator's own alignment: for arrays the kernels read in vectors, so
 * that their speed does not depend on where the allocator put them. Free
 * with sinew__free_aligned. */
enum { SINEW__ALIGN = 64 };
SINEW__SHARED void *sinew__alloc_aligned(const sinew_allocator *a, size_t size);
SINEW__SHARED void sinew__free_aligned(const sinew_allocator *a, void *ptr);

/* Lays out several arrays in one allocation: call sinew__layout_add for each
 * (returns its offset), then allocate `total` bytes. */
typedef struct sinew__layout {
    size_t total;
    bool overflow;
} sinew__layout;
size_t sinew__layout_add(sinew__layout *l, size_t count, size_t elem_size, size_t align);

/* ---- SIMD levels ---------------------------------------------------------- */

/* The level `want` asks for (a sinew_simd; AUTO: the best) capped by `cap`. */
static inline int sinew__simd_cap(int want, int cap) { return want <= SINEW_SIMD_AUTO || want > cap ? cap : want; }

/* The SIMD level an object made with these options runs (a sinew_simd):
 * options->simd capped by sinew_simd_supported(). */
int sinew__simd_level(const sinew_options *options);
/* ---- hashing -------------------------------------------------------------- */

/* A 64-bit hash of `size` bytes (a skeleton's rest_hash and
 * parents_hash): a clip made for a skeleton keeps a copy of its rest pose
 * in its block layout, and uses the copy when the skeleton it plays on has
 * the same rest hash; its schedule serves skeletons of the same parents
 * hash. */
uint64_t sinew__hash_bytes(const void *data, size_t size);

/* ---- files (file.c) ----------------------------------------------------- */

/* Reads at most `limit` bytes of a regular file (the file's full size goes
 * to *size, so a caller can tell a short file), refusing anything else (a
 * directory, a named pipe, a device: opened without waiting) and a file
 * larger than `max_size` before reading it. NULL with `err` filled: the
 * reason alone, without the path ("No such file or directory", "a
 * directory, not a file"): SINEW_ERROR_IO, or SINEW_ERROR_OUT_OF_MEMORY
 * for a file too large or no memory to read it into. */
SINEW__SHARED uint8_t *sinew__read_file(const char *path, const sinew_allocator *alloc, size_t limit, size_t max_size,
                          size_t *size, sinew_error *err);

/* Whether `file` resolves (symbolic links followed) to a place inside the
 * folder `dir` ("" for the working folder); true where either cannot be
 * resolved (the read that follows then fails on its own) and where the
 * platform has no realpath. */
SINEW__SHARED bool sinew__path_inside(const char *dir, const char *file);

#endif /* SINEW_BASE_INTERNAL_H */
