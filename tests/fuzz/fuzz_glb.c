/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the glTF loader's binary path: the bytes are a
 * .glb whose first four bytes are taken as the magic "glTF" whatever they
 * are, so every input reaches the GLB reader (header and chunk lengths,
 * chunk types, the JSON chunk, the BIN chunk as buffer 0). A file that
 * loads is then played (fuzz_play.h); one load may allocate at most
 * 256 MiB. Seeds: the generated features.glb and the saved regressions. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "fuzz_play.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    uint8_t *glb = malloc(size);
    if (!glb) return 0;
    memcpy(glb, data, size);
    memcpy(glb, "glTF", 4);
    sinew_load_options options = {.base.max_memory = (size_t)256 << 20};
    sinew_error err;
    sinew_asset *a = sinew_load_memory(glb, size, NULL, &options, &err);
    if (a) fuzz_play(a);
    sinew_asset_free(a);
    free(glb);
    return 0;
}
