/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the formats that go to Assimp by default (FBX,
 * Collada, BVH), through the wall as sinew_load_memory runs them: Assimp
 * in a child process, its result read back as untrusted bytes. What the
 * campaign finds in Assimp ends the child; this process must survive and
 * give a sentence, and an asset that loads must play (fuzz_play.h).
 * Seeds: write_frames' small BVH, the shared FBX and Collada files, and
 * the saved regressions. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "fuzz_play.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sinew_load_options options = {.base.max_memory = (size_t)256 << 20, .assimp_timeout_ms = 3000};
    sinew_error err;
    sinew_asset *a = sinew_load_memory(data, size, NULL, &options, &err);
    if (a) {
        fuzz_play(a);
    } else if (err.description[0] == '\0') {
        /* a refusal always says why */
        fprintf(stderr, "fuzz_wall: refused without a sentence\n");
        __builtin_trap();
    }
    sinew_asset_free(a);
    return 0;
}
