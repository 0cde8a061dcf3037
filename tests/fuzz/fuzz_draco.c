/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for KHR_draco_mesh_compression's decoder
 * (src/import/draco.cc, Debian's libdraco behind it), fed directly and not
 * walled so that every mutation reaches Draco rather than breaking a
 * glTF's JSON or base64 first, and what Draco does is seen (fuzz_gltf
 * reads the Draco seed through the whole reader, and the wall). It found
 * no crash in 33 million runs, and streams on which Draco takes seconds
 * and hundreds of MiB (reported as timeouts: tests/draco/amplify is one),
 * which is why the reader runs Draco walled (src/import/wall_draco.c):
 * scripts/fuzz runs it only by name. The input is what the reader would
 * pass, then the bytes:
 *
 *   u32 points, u32 indices (little-endian; what the accessors declare)
 *   u8 streams (at most 8), then per stream: u8 id, u8 components (1..4),
 *   u8 type (0..5: BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT,
 *   FLOAT), u8 flags (1: normalized, 2: as unsigned integers)
 *   the Draco data
 *
 * Declared counts are kept under 2^18 points, as the load's limit keeps
 * them in the reader. tests/fuzz/regressions/draco holds the Draco data of
 * the Draco seed's primitives with their accessors' declarations.
 *
 * Built by scripts/fuzz with clang -fsanitize=fuzzer,address,undefined;
 * tests/fuzz/replay.c runs the same function over saved inputs in every
 * build. */
#include "import/draco.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int types[6] = {5120, 5121, 5122, 5123, 5125, 5126};
    if (size < 9) return 0;
    uint32_t points = u32(data), indices = u32(data + 4);
    int count = data[8];
    size_t at = 9 + (size_t)count * 4;
    if (points > (1u << 18) || indices > 3u * (1u << 18) || count > 8 || size < at) return 0;
    sinew__draco_stream streams[8];
    void *buffers[8] = {0};
    uint32_t *idx = malloc(((size_t)indices + 1) * sizeof *idx);
    int made = 0;
    for (int s = 0; s < count; ++s) {
        const uint8_t *d = data + 9 + (size_t)s * 4;
        int components = d[1] % 4 + 1;
        bool uints = d[3] & 2;
        buffers[s] = malloc(((size_t)points * (size_t)components + 1) * 4);
        streams[s] = (sinew__draco_stream){"attribute", d[0], components, types[d[2] % 6], (d[3] & 1) != 0,
                                           uints ? NULL : buffers[s], uints ? buffers[s] : NULL};
        made += buffers[s] != NULL;
    }
    if (idx && made == count) {
        char why[256];
        sinew__draco_decode(data + at, size - at, (int)points, (int)indices, idx, streams, count, why, sizeof why);
    }
    for (int s = 0; s < count; ++s) free(buffers[s]);
    free(idx);
    return 0;
}
