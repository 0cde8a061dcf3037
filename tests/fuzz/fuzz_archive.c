/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
/* libFuzzer harness for the archive loader in both modes
 * (sinew_archive_load copies, sinew_archive_view reads in place): the
 * bytes as they come, and, where they start with an archive's header,
 * again with their checksum made right, so that mutations reach the table
 * and the sections' decoders instead of stopping at the checksum; that
 * copy lies on a 64-byte boundary and is also viewed. An archive that
 * loads must play (fuzz_play.h), within a memory limit of 64 MiB. Seeds:
 * archives written by write_frames (the built-in character, plain, clips
 * only, with its skin's blocks, and its clips compressed) and the golden
 * archives. */
#include "sinew/sinew.h"
#include "sinew/sinew_archive.h"

#include "archive/archive_internal.h"
#include "fuzz_play.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A load's memory limit well under the harness's RSS limit: an input
 * whose declared sizes would take more is refused before it allocates,
 * and one let through stays under it. */
static const sinew_options limited = {.max_memory = (size_t)64 << 20};

static void load(const uint8_t *data, size_t size, bool view)
{
    sinew_error err;
    sinew_asset *a = view ? sinew_archive_view(data, size, &limited, &err)
                          : sinew_archive_load(data, size, &limited, &err);
    if (a) fuzz_play(a);
    sinew_asset_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load(data, size, false);
    if (size < 64 || !sinew_archive_is(data, size)) return 0;
    /* exactly `size` bytes from the boundary, so that a read past them is seen */
    void *raw = NULL;
    if (posix_memalign(&raw, 64, size) != 0) return 0;
    uint8_t *fixed = raw;
    memcpy(fixed, data, size);
    uint64_t total = size;
    memcpy(fixed + 16, &total, 8);
    sinew__archive_seal(fixed, size);
    load(fixed, size, false);
    load(fixed, size, true);
    free(raw);
    return 0;
}
