// SPDX-License-Identifier: MIT
// KHR_draco_mesh_compression through Debian's libdraco (draco.h says what
// the C side asks). Everything Draco hands back is checked against what
// the primitive's accessors declare before a value is copied out, and no
// C++ exception crosses back into C.
//
// Memory: Draco allocates on the C++ heap, out of the load's allocator.
// Most of its allocations follow the counts its header declares (faces,
// points, vertices of the corner table), so the header is read here first
// and a header whose counts are not the accessors' is refused before Draco
// runs; the caller has already checked the accessors' sizes, with Draco's
// working memory (sinew__draco_working_bytes), against what is left of the
// load's limit. What a stream's own counts ask for past that (a prediction
// scheme's) is bounded by the child's address space (wall_draco.c).
//
// Safety: the reader calls this through sinew__draco_walled
// (wall_draco.c), in a child process under the load's memory limit and a
// timeout: fuzzing (tests/fuzz/fuzz_draco.c) found no crash, but found
// streams on which Draco allocates hundreds of MiB past anything the
// header declares, which only a limit on the process can bound.
#include "draco.h"

#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace {

sinew_result say(sinew_result r, char *why, size_t why_size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    std::vsnprintf(why, why_size, format, args);
    va_end(args);
    return r;
}

// A little-endian base-128 number of up to 32 bits, as Draco writes its
// counts (DecodeVarint).
bool varint(const uint8_t *d, size_t size, size_t *at, uint32_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (*at >= size) return false;
        uint8_t b = d[(*at)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (v > 0xffffffffu) return false;
            *out = (uint32_t)v;
            return true;
        }
    }
    return false;
}

// The Draco header and the connectivity counts after it (bitstream 2.2, the
// version the extension names): "DRACO", major, minor, geometry type
// (1: triangular mesh), method (0: sequential, 1: edgebreaker), flags
// (u16; 0x8000: metadata follows). Sequential: varint faces, varint
// points. Edgebreaker: u8 traversal type, varint vertices, varint faces,
// u8 attribute data, varint symbols, varint split symbols.
sinew_result check_header(const uint8_t *d, size_t size, int point_count, int index_count, char *why,
                          size_t why_size)
{
    if (size < 11 || std::memcmp(d, "DRACO", 5) != 0)
        return say(SINEW_ERROR_PARSE, why, why_size, "the %zu bytes do not start with a Draco header", size);
    if (d[5] != 2 || d[6] != 2)
        return say(SINEW_ERROR_UNSUPPORTED, why, why_size,
                   "Draco bitstream %u.%u; sinew reads 2.2, the version KHR_draco_mesh_compression names", d[5], d[6]);
    if (d[7] != 1)
        return say(SINEW_ERROR_PARSE, why, why_size, "the Draco data is not a triangle mesh (geometry type %u)", d[7]);
    unsigned flags = (unsigned)d[9] | (unsigned)d[10] << 8;
    if (flags & 0x8000)
        return say(SINEW_ERROR_UNSUPPORTED, why, why_size, "the Draco data carries Draco metadata, which glTF does not use");
    size_t at = 11;
    uint32_t faces = 0, points = 0, vertices = 0, symbols = 0, splits = 0;
    if (d[8] == 0) {
        if (!varint(d, size, &at, &faces) || !varint(d, size, &at, &points))
            return say(SINEW_ERROR_PARSE, why, why_size, "the Draco header ends before its counts");
        if (points != (uint32_t)point_count)
            return say(SINEW_ERROR_PARSE, why, why_size,
                       "the Draco header declares %u points, the accessors %d vertices", points, point_count);
    } else if (d[8] == 1) {
        if (at + 1 > size || (++at, !varint(d, size, &at, &vertices)) || !varint(d, size, &at, &faces) ||
            at + 1 > size || (++at, !varint(d, size, &at, &symbols)) || !varint(d, size, &at, &splits))
            return say(SINEW_ERROR_PARSE, why, why_size, "the Draco header ends before its counts");
        // every vertex of the corner table is a corner's, and a split
        // symbol is a face's: both bounded by the faces, so what Draco
        // sets aside for them is too
        if ((uint64_t)vertices > 3ull * faces || splits > faces || symbols > faces)
            return say(SINEW_ERROR_PARSE, why, why_size,
                       "the Draco header declares %u vertices and %u split symbols for %u faces", vertices, splits,
                       faces);
    } else {
        return say(SINEW_ERROR_UNSUPPORTED, why, why_size, "Draco encoding method %u is not sequential or edgebreaker",
                   d[8]);
    }
    if ((uint64_t)faces * 3 != (uint64_t)index_count)
        return say(SINEW_ERROR_PARSE, why, why_size, "the Draco header declares %u triangles, the indices accessor %d (%d indices)",
                   faces, index_count / 3, index_count);
    return SINEW_OK;
}

// The glTF componentType of a Draco data type, 0 for none.
int gltf_type(draco::DataType t)
{
    switch (t) {
    case draco::DT_INT8: return 5120;
    case draco::DT_UINT8: return 5121;
    case draco::DT_INT16: return 5122;
    case draco::DT_UINT16: return 5123;
    case draco::DT_UINT32: return 5125;
    case draco::DT_FLOAT32: return 5126;
    default: return 0;
    }
}

// One component of type `type` at `p` as a float, normalized integers as
// the glTF specification maps them.
float to_float(const uint8_t *p, int type, bool normalized)
{
    switch (type) {
    case 5120: { int8_t v; std::memcpy(&v, p, 1); return normalized ? std::fmax(v / 127.0f, -1.0f) : (float)v; }
    case 5121: return normalized ? p[0] / 255.0f : (float)p[0];
    case 5122: { int16_t v; std::memcpy(&v, p, 2); return normalized ? std::fmax(v / 32767.0f, -1.0f) : (float)v; }
    case 5123: { uint16_t v; std::memcpy(&v, p, 2); return normalized ? v / 65535.0f : (float)v; }
    case 5125: { uint32_t v; std::memcpy(&v, p, 4); return (float)v; }
    default: { float v; std::memcpy(&v, p, 4); return v; }
    }
}

uint32_t to_uint(const uint8_t *p, int type)
{
    switch (type) {
    case 5121: return p[0];
    case 5123: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    default: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    }
}

sinew_result decode(const uint8_t *data, size_t size, int point_count, int index_count, uint32_t *indices,
                    sinew__draco_stream *streams, int stream_count, char *why, size_t why_size)
{
    sinew_result r = check_header(data, size, point_count, index_count, why, why_size);
    if (r != SINEW_OK) return r;
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char *>(data), size);
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok())
        return say(SINEW_ERROR_PARSE, why, why_size, "Draco cannot decode it: %s", decoded.status().error_msg());
    std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
    if (!mesh) return say(SINEW_ERROR_PARSE, why, why_size, "Draco decoded no mesh");
    if (mesh->num_points() != (uint32_t)point_count)
        return say(SINEW_ERROR_PARSE, why, why_size, "Draco decoded %u points, the accessors declare %d vertices",
                   mesh->num_points(), point_count);
    if ((uint64_t)mesh->num_faces() * 3 != (uint64_t)index_count)
        return say(SINEW_ERROR_PARSE, why, why_size, "Draco decoded %u triangles, the indices accessor declares %d indices",
                   mesh->num_faces(), index_count);
    for (draco::FaceIndex f(0); f < mesh->num_faces(); ++f) {
        const draco::Mesh::Face &face = mesh->face(f);
        for (int j = 0; j < 3; ++j) {
            uint32_t v = face[j].value();
            if (v >= (uint32_t)point_count)
                return say(SINEW_ERROR_PARSE, why, why_size, "Draco triangle %u uses point %u of %d", f.value(), v,
                           point_count);
            indices[(size_t)f.value() * 3 + (size_t)j] = v;
        }
    }
    for (int s = 0; s < stream_count; ++s) {
        sinew__draco_stream *st = &streams[s];
        if (st->id < 0) return say(SINEW_ERROR_PARSE, why, why_size, "%s: attribute id %d", st->name, st->id);
        const draco::PointAttribute *att = mesh->GetAttributeByUniqueId((uint32_t)st->id);
        if (!att)
            return say(SINEW_ERROR_PARSE, why, why_size, "%s: the Draco data has no attribute of id %d", st->name,
                       st->id);
        int type = gltf_type(att->data_type());
        if (att->num_components() != st->components)
            return say(SINEW_ERROR_PARSE, why, why_size, "%s: Draco attribute %d has %d components, the accessor %d",
                       st->name, st->id, (int)att->num_components(), st->components);
        if (type != st->component_type)
            return say(SINEW_ERROR_PARSE, why, why_size,
                       "%s: Draco attribute %d holds componentType %d (Draco type %d), the accessor declares %d",
                       st->name, st->id, type, (int)att->data_type(), st->component_type);
        size_t one = (size_t)draco::DataTypeLength(att->data_type());
        if (att->byte_stride() != (int64_t)(one * (size_t)st->components))
            return say(SINEW_ERROR_PARSE, why, why_size, "%s: Draco attribute %d has a stride of %lld bytes", st->name,
                       st->id, (long long)att->byte_stride());
        if (st->uints && (type == 5120 || type == 5122 || type == 5126))
            return say(SINEW_ERROR_PARSE, why, why_size, "%s: Draco attribute %d is not of an unsigned integer type",
                       st->name, st->id);
        for (uint32_t p = 0; p < (uint32_t)point_count; ++p) {
            draco::AttributeValueIndex v = att->mapped_index(draco::PointIndex(p));
            if (v.value() >= att->size())
                return say(SINEW_ERROR_PARSE, why, why_size, "%s: point %u maps to value %u of %zu", st->name, p,
                           v.value(), (size_t)att->size());
            const uint8_t *at = att->GetAddress(v);
            for (int c = 0; c < st->components; ++c) {
                size_t k = (size_t)p * (size_t)st->components + (size_t)c;
                if (st->uints)
                    st->uints[k] = to_uint(at + one * (size_t)c, type);
                else
                    st->floats[k] = to_float(at + one * (size_t)c, type, st->normalized);
            }
        }
    }
    return SINEW_OK;
}

} // namespace

extern "C" double sinew__draco_working_bytes(double points, double faces, int streams, int values)
{
    // per face: the mesh's triangles (12), the corner table's opposite and
    // vertex maps (24), the decoder's processed-corner lists (8) and one
    // more corner table for each attribute with seams (24); per point:
    // each value as decoded, as integers before dequantization and in the
    // output attribute (12 per component), the point-to-value maps (4 per
    // stream) and the corner table's vertex arrays (16); times 2 for the
    // vectors' growth
    return 2.0 * (faces * (44.0 + 24.0 * streams) + points * (16.0 + 12.0 * values + 4.0 * streams)) + 65536.0;
}

extern "C" sinew_result sinew__draco_decode(const void *data, size_t size, int point_count, int index_count,
                                            uint32_t *indices, sinew__draco_stream *streams, int stream_count,
                                            char *why, size_t why_size)
{
    try {
        return decode(static_cast<const uint8_t *>(data), size, point_count, index_count, indices, streams,
                      stream_count, why, why_size);
    } catch (const std::bad_alloc &) {
        return say(SINEW_ERROR_OUT_OF_MEMORY, why, why_size, "Draco ran out of memory");
    } catch (const std::exception &e) {
        return say(SINEW_ERROR_PARSE, why, why_size, "Draco failed: %s", e.what());
    } catch (...) {
        return say(SINEW_ERROR_PARSE, why, why_size, "Draco failed");
    }
}
