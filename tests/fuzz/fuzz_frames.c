/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the stream the Assimp child sends back
 * (src/import/wall_frames.c, sinew__frames_read): this process must
 * survive whatever bytes a compromised child sends, and an asset it
 * accepts must play (fuzz_play.h). One read may allocate at most 256 MiB.
 * Seeds: write_frames (the built-in character's stream) and the saved
 * regressions. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "fuzz_play.h"
#include "import/wall.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a stream whose Assimp messages say data was dropped is rebuilt too */
    sinew_load_options options = {.base.max_memory = (size_t)256 << 20, .accept_partial = true};
    sinew_asset *a = sinew__asset_new("", &options.base);
    if (!a) return 0;
    sinew_error err;
    if (sinew__frames_read(data, size, "FBX", &options, a, &err) == SINEW_OK) fuzz_play(a);
    sinew_asset_free(a);
    return 0;
}
