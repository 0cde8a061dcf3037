/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the glTF loader's JSON path: the bytes are a .gltf
 * (inputs that are not JSON are left out: GLB is fuzz_glb's, and the rest
 * would go to Assimp, which is not sinew's to fuzz). A file that loads is
 * then played (fuzz_play.h). External files are refused (no base folder),
 * and one load may allocate at most 256 MiB.
 *
 * Built by scripts/fuzz with clang -fsanitize=fuzzer,address,undefined;
 * tests/fuzz/replay.c runs the same function over saved inputs in every
 * build. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"

#include "fuzz_play.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* what sinew_load_memory takes for JSON glTF (after a BOM and white
     * space, an object or an array); the rest would go to Assimp */
    size_t i = size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
    if (i == size || (data[i] != '{' && data[i] != '[')) return 0;
    sinew_load_options options = {.base.max_memory = (size_t)256 << 20};
    sinew_error err;
    sinew_asset *a = sinew_load_memory(data, size, NULL, &options, &err);
    if (a) fuzz_play(a);
    sinew_asset_free(a);
    return 0;
}
