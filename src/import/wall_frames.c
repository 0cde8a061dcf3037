/* SPDX-License-Identifier: MIT */
/* The wall's stream (wall.h): the child writes an asset as frames, the
 * parent reads them as untrusted bytes. The frames' payloads are the asset
 * codec's (src/asset/codec.c), which checks everything it decodes. */
#include "wall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- writing (the child) ------------------------------------------------ */

/* A frame's header, its size filled in by end_frame. */
static size_t begin_frame(sinew__bytes *f, uint32_t tag)
{
    size_t at = f->size;
    sinew__bytes_u32(f, tag);
    sinew__bytes_u32(f, 0);
    f->origin = f->size;
    return at;
}

static void end_frame(sinew__bytes *f, size_t at)
{
    if (f->failed) return;
    size_t payload = f->size - at - 8;
    if (payload > UINT32_MAX) {
        f->failed = true;
        return;
    }
    uint32_t n = (uint32_t)payload;
    memcpy(f->bytes + at + 4, &n, sizeof n);
}

void sinew__frames_begin(sinew__bytes *f)
{
    size_t at = begin_frame(f, SINEW__FRAME_SIZE);
    uint64_t zero = 0;
    sinew__bytes_put(f, &zero, sizeof zero);
    end_frame(f, at);
}

void sinew__frames_seal(sinew__bytes *f)
{
    if (f->failed || f->size < 16) return;
    uint64_t rest = f->size - 16;
    memcpy(f->bytes + 8, &rest, sizeof rest);
}

bool sinew__frames_declared(const unsigned char head[16], uint64_t *bytes)
{
    uint32_t tag[2];
    memcpy(tag, head, sizeof tag);
    if (tag[0] != SINEW__FRAME_SIZE || tag[1] != 8) return false;
    memcpy(bytes, head + 8, sizeof *bytes);
    return true;
}

void sinew__frames_warning(sinew__bytes *f, const char *message)
{
    size_t at = begin_frame(f, SINEW__FRAME_WARNING);
    uint32_t n = (uint32_t)strlen(message);
    sinew__bytes_u32(f, n);
    sinew__bytes_put(f, message, n);
    end_frame(f, at);
}

void sinew__frames_heard(sinew__bytes *f, const sinew__heard *h)
{
    for (int kind = 0; kind < 2; ++kind) {
        for (int k = 0; k < h->kept[kind] && k < SINEW__HEARD_KEPT; ++k) {
            /* the last message kept stands for those not kept too */
            uint32_t times = k + 1 == h->kept[kind] ? h->count[kind] - (uint32_t)k : 1;
            size_t at = begin_frame(f, SINEW__FRAME_ASSIMP);
            const char *text = h->text[kind][k];
            uint32_t n = (uint32_t)strlen(text);
            sinew__bytes_u32(f, (uint32_t)kind);
            sinew__bytes_u32(f, times);
            sinew__bytes_u32(f, n);
            sinew__bytes_put(f, text, n);
            end_frame(f, at);
        }
    }
}

void sinew__frames_error(sinew__bytes *f, sinew_result result, const char *description)
{
    size_t at = begin_frame(f, SINEW__FRAME_ERROR);
    uint32_t n = (uint32_t)strlen(description);
    sinew__bytes_u32(f, (uint32_t)result);
    sinew__bytes_u32(f, n);
    sinew__bytes_put(f, description, n);
    end_frame(f, at);
}

void sinew__frames_asset(sinew__bytes *f, const sinew_asset *a)
{
    size_t at = begin_frame(f, SINEW__FRAME_SKELETON);
    sinew__encode_skeleton(f, a);
    end_frame(f, at);
    for (int c = 0; c < a->clip_count; ++c) {
        at = begin_frame(f, SINEW__FRAME_CLIP);
        sinew__encode_clip(f, a->clips[c]);
        end_frame(f, at);
    }
    for (int m = 0; m < a->mesh_count; ++m) {
        at = begin_frame(f, SINEW__FRAME_MESH);
        sinew__encode_mesh(f, &a->meshes[m]);
        end_frame(f, at);
    }
    if (a->meters_per_unit != 0.0f) {
        at = begin_frame(f, SINEW__FRAME_UNIT);
        sinew__bytes_put(f, &a->meters_per_unit, sizeof a->meters_per_unit);
        end_frame(f, at);
    }
    int32_t axes[6];
    if (sinew__rotation_axes(a->axis_rotation, axes)) {
        at = begin_frame(f, SINEW__FRAME_AXES);
        sinew__bytes_put(f, axes, sizeof axes);
        end_frame(f, at);
    }
    at = begin_frame(f, SINEW__FRAME_END);
    end_frame(f, at);
}

bool sinew__unit_plausible(double meters)
{
    /* NaN fails both comparisons */
    return meters >= 1e-5 && meters <= 1e5;
}

sinew__axes sinew__axes_rotation(const int32_t axes[6], sinew_quat *rotation)
{
    /* rows: coord, up, front; the declaration lists up, front, coord */
    static const int order[3] = {4, 0, 2};
    double m[3][3] = {{0}};
    bool used[3] = {false, false, false};
    for (int r = 0; r < 3; ++r) {
        int32_t axis = axes[order[r]], sign = axes[order[r] + 1];
        if (axis < 0 || axis > 2 || (sign != 1 && sign != -1) || used[axis]) return SINEW__AXES_MALFORMED;
        used[axis] = true;
        m[r][axis] = sign;
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (det < 0.0) return SINEW__AXES_MIRROR;
    /* the quaternion of a rotation matrix, from its largest diagonal term */
    double x, y, z, w, tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        w = 0.25 * s, x = (m[2][1] - m[1][2]) / s, y = (m[0][2] - m[2][0]) / s, z = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2.0;
        w = (m[2][1] - m[1][2]) / s, x = 0.25 * s, y = (m[0][1] + m[1][0]) / s, z = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2.0;
        w = (m[0][2] - m[2][0]) / s, x = (m[0][1] + m[1][0]) / s, y = 0.25 * s, z = (m[1][2] + m[2][1]) / s;
    } else {
        double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2.0;
        w = (m[1][0] - m[0][1]) / s, x = (m[0][2] + m[2][0]) / s, y = (m[1][2] + m[2][1]) / s, z = 0.25 * s;
    }
    double sign = w < 0.0 ? -1.0 : 1.0; /* one of the two: w >= 0 */
    *rotation = (sinew_quat){(float)(x * sign), (float)(y * sign), (float)(z * sign), (float)(w * sign)};
    return SINEW__AXES_ROTATION;
}

bool sinew__rotation_axes(sinew_quat q, int32_t axes[6])
{
    double m[9];
    sinew__rotation_rows(q, m);
    static const int slot[3] = {4, 0, 2}; /* rows: coord, up, front */
    bool identity = true;
    for (int r = 0; r < 3; ++r) {
        int found = -1;
        for (int c = 0; c < 3; ++c) {
            double v = m[3 * r + c];
            if (fabs(v) < 1e-3) continue;
            /* NaN fails too */
            if (!(fabs(fabs(v) - 1.0) < 1e-3) || found >= 0) return false;
            found = c;
            axes[slot[r]] = c, axes[slot[r] + 1] = v > 0.0 ? 1 : -1;
        }
        if (found < 0) return false;
        identity = identity && found == r && axes[slot[r] + 1] == 1;
    }
    sinew_quat back;
    return !identity && sinew__axes_rotation(axes, &back) == SINEW__AXES_ROTATION;
}

/* The payloads as the encoders write them, read by copying. */
static const sinew__codec LAYOUT = {2, false};

/* The most warnings of one import passed on to the caller's logger. */
enum { MAX_WARNINGS = 200 };

/* A frame's text as a C string (cut to fit, control bytes shown as '?'). */
static void frame_text(const unsigned char *p, size_t n, char *out, size_t cap)
{
    size_t keep = n < cap - 1 ? n : cap - 1;
    memcpy(out, p, keep);
    out[keep] = '\0';
    for (size_t i = 0; i < keep; ++i)
        if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f) out[i] = '?';
}

void sinew__heard_add(sinew__heard *h, int kind, const char *text, size_t n, uint32_t times)
{
    if (kind != SINEW__HEARD_DROPPED && kind != SINEW__HEARD_NOTE) return;
    h->count[kind] = times > UINT32_MAX - h->count[kind] ? UINT32_MAX : h->count[kind] + times;
    if (h->kept[kind] < SINEW__HEARD_KEPT) frame_text((const unsigned char *)text, n, h->text[kind][h->kept[kind]++],
                                                      SINEW__HEARD_TEXT);
}

/* The first `most` messages of a kind, quoted, each cut to `each` bytes:
 * "a"; "b" (and 3 more). */
static void quote(const sinew__heard *h, int kind, int most, int each, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    int shown = h->kept[kind] < most ? h->kept[kind] : most;
    for (int k = 0; k < shown && used < cap; ++k) {
        int n = snprintf(out + used, cap - used, "%s\"%.*s\"", k ? "; " : "", each, h->text[kind][k]);
        if (n < 0) break;
        used += (size_t)n;
    }
    if (h->count[kind] > (uint32_t)shown && used < cap)
        snprintf(out + used, cap - used, " (and %u more)", h->count[kind] - (uint32_t)shown);
}

sinew_result sinew__heard_judge(const sinew__heard *h, const char *importer, const sinew_load_options *options,
                                sinew_error *err)
{
    const sinew_options *base = &options->base;
    if (!importer) importer = "Assimp";
    for (int k = 0; k < h->kept[SINEW__HEARD_NOTE]; ++k)
        sinew__inform(base, "Assimp's %s importer says: %s", importer, h->text[SINEW__HEARD_NOTE][k]);
    if (h->count[SINEW__HEARD_NOTE] > (uint32_t)h->kept[SINEW__HEARD_NOTE])
        sinew__inform(base, "Assimp's %s importer says %u more such things", importer,
             h->count[SINEW__HEARD_NOTE] - (uint32_t)h->kept[SINEW__HEARD_NOTE]);
    if (!h->count[SINEW__HEARD_DROPPED]) return SINEW_OK;
    char said[1024];
    if (options->accept_partial) {
        quote(h, SINEW__HEARD_DROPPED, SINEW__HEARD_KEPT, 200, said, sizeof said);
        sinew__warn(base, "the %s importer read the file only in part, and what it read is loaded (accept_partial): "
                    "Assimp dropped what it reports: %s", importer, said);
        return SINEW_OK;
    }
    /* the sentence keeps its advice whatever Assimp's text: the first
     * message alone is quoted, cut to fit */
    quote(h, SINEW__HEARD_DROPPED, 1, 110, said, sizeof said);
    return sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer read it only in part: Assimp: %s; accept_partial "
                       "(--accept-partial) loads the rest", importer, said);
}

/* Forwards a child's warning (u32 length, the text) to the caller's logger. */
static void forward_warning(const unsigned char *p, size_t left, const sinew_options *options)
{
    uint32_t n;
    if (left < sizeof n) return;
    memcpy(&n, p, sizeof n);
    if (n > left - sizeof n) return;
    char message[1024];
    frame_text(p + sizeof n, n, message, sizeof message);
    sinew__warn(options, "%s", message);
}

/* Forwards the warnings of the frames from `from` to `to` (their headers
 * checked already); a flood of them is cut short, and counted. */
static void forward_warnings(const unsigned char *bytes, size_t from, size_t to, const sinew_options *options)
{
    int warnings = 0;
    for (size_t at = from; at < to;) {
        uint32_t head[2];
        memcpy(head, bytes + at, sizeof head);
        if (head[0] == SINEW__FRAME_WARNING && ++warnings <= MAX_WARNINGS)
            forward_warning(bytes + at + sizeof head, head[1], options);
        at += sizeof head + head[1];
    }
    if (warnings > MAX_WARNINGS) sinew__warn(options, "%d more warnings of the importer not shown", warnings - MAX_WARNINGS);
}

/* The child's error (i32 result, u32 length, the sentence), as the load's. */
static sinew_result child_error(const unsigned char *p, size_t left, sinew_error *err)
{
    int32_t result;
    uint32_t n;
    if (left < 8) return sinew__fail(err, SINEW_ERROR_PARSE, "the importer failed, and its report is malformed");
    memcpy(&result, p, 4), memcpy(&n, p + 4, 4);
    if (n > left - 8 || result <= SINEW_OK || result > SINEW_ERROR_GPU)
        return sinew__fail(err, SINEW_ERROR_PARSE, "the importer failed, and its report is malformed");
    char text[sizeof err->description];
    frame_text(p + 8, n, text, sizeof text);
    return sinew__fail(err, (sinew_result)result, "%s", text);
}

/* A child's ASSIMP frame (u32 kind, u32 count, u32 length, the text) into
 * `heard`: false where it is malformed or one too many of its kind. */
static bool take_heard(const unsigned char *p, size_t left, sinew__heard *heard)
{
    uint32_t v[3];
    if (left < sizeof v) return false;
    memcpy(v, p, sizeof v);
    if (v[0] > SINEW__HEARD_NOTE || v[1] == 0 || v[2] != left - sizeof v || v[2] >= SINEW__HEARD_TEXT ||
        heard->kept[v[0]] == SINEW__HEARD_KEPT)
        return false;
    sinew__heard_add(heard, (int)v[0], (const char *)p + sizeof v, v[2], v[1]);
    return true;
}

sinew_result sinew__frames_read(const unsigned char *bytes, size_t size, const char *importer,
                                const sinew_load_options *options, sinew_asset *asset, sinew_error *err)
{
    static const sinew_load_options defaults;
    if (!options) options = &defaults;
    sinew_error local;
    if (!err) err = &local;
    sinew__ok(err);
    const sinew_options *base = &options->base;
    /* first the frames' headers: warnings forwarded, an error taken, the
     * rest counted and their order checked */
    int clips = 0, meshes = 0, skeletons = 0, ends = 0, units = 0, axes = 0;
    sinew__heard heard = {{0, 0}, {0, 0}, {{""}}};
    size_t start = 0;
    if (size >= 8 && memcmp(bytes, &(uint32_t){SINEW__FRAME_SIZE}, 4) == 0) {
        uint64_t declared;
        if (size < 16 || !sinew__frames_declared(bytes, &declared))
            return sinew__fail(err, SINEW_ERROR_TRUNCATED, "the importer's output: its SIZE frame is malformed");
        if (declared != size - 16)
            return sinew__fail(err, SINEW_ERROR_TRUNCATED, "the importer's output: %zu bytes follow its SIZE frame, "
                               "which declares %llu", size - 16, (unsigned long long)declared);
        start = 16;
    }
    for (size_t at = start; at < size;) {
        uint32_t head[2];
        if (ends)
            return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: a frame at byte %zu follows the end",
                               at);
        if (size - at < sizeof head)
            return sinew__fail(err, SINEW_ERROR_TRUNCATED,
                               "the importer's output: a frame header at byte %zu ends early", at);
        memcpy(head, bytes + at, sizeof head);
        if (head[1] > size - at - sizeof head)
            return sinew__fail(err, SINEW_ERROR_TRUNCATED,
                               "the importer's output: the frame at byte %zu declares %u bytes, past the end", at,
                               head[1]);
        const unsigned char *payload = bytes + at + sizeof head;
        switch (head[0]) {
        case SINEW__FRAME_WARNING: break; /* forwarded below, unless the load is refused */
        case SINEW__FRAME_ASSIMP:
            if (skeletons || !take_heard(payload, head[1], &heard))
                return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: the Assimp message at byte %zu "
                                   "%s", at, skeletons ? "follows the skeleton" : "is malformed or one too many");
            break;
        case SINEW__FRAME_ERROR:
            forward_warnings(bytes, start, at, base);
            return child_error(payload, head[1], err);
        case SINEW__FRAME_SKELETON: ++skeletons; break;
        case SINEW__FRAME_CLIP:
        case SINEW__FRAME_MESH:
            if (skeletons != 1)
                return sinew__fail(err, SINEW_ERROR_PARSE,
                                   "the importer's output: a clip or mesh at byte %zu %s", at,
                                   skeletons ? "follows a second skeleton" : "comes before the skeleton");
            clips += head[0] == SINEW__FRAME_CLIP, meshes += head[0] == SINEW__FRAME_MESH;
            break;
        case SINEW__FRAME_UNIT:
            if (skeletons != 1 || units || head[1] != sizeof(float))
                return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: the unit at byte %zu %s", at,
                                   skeletons == 0 ? "comes before the skeleton"
                                   : skeletons > 1 ? "follows a second skeleton"
                                   : units         ? "is a second one"
                                                   : "is not 4 bytes");
            ++units;
            break;
        case SINEW__FRAME_AXES:
            if (skeletons != 1 || axes || head[1] != 6 * sizeof(int32_t))
                return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: the axes at byte %zu %s", at,
                                   skeletons == 0 ? "come before the skeleton"
                                   : skeletons > 1 ? "follow a second skeleton"
                                   : axes          ? "are a second declaration"
                                                   : "are not 24 bytes");
            ++axes;
            break;
        case SINEW__FRAME_END: ++ends; break;
        default:
            return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: unknown frame 0x%08x at byte %zu",
                               head[0], at);
        }
        at += sizeof head + head[1];
    }
    if (skeletons != 1 || !ends)
        return sinew__fail(err, SINEW_ERROR_PARSE, "the importer's output: %s",
                           !ends             ? "it ends before its last frame"
                           : skeletons == 0 ? "it holds no skeleton"
                                            : "it holds more than one skeleton");
    /* a load Assimp completed only in part is refused before it is rebuilt */
    sinew_result judged = sinew__heard_judge(&heard, importer, options, err);
    if (judged != SINEW_OK) return judged;
    forward_warnings(bytes, start, size, base);
    sinew_clip **clip_list = clips ? sinew__asset_alloc(asset, (size_t)clips, sizeof *clip_list) : NULL;
    sinew_mesh *mesh_list = meshes ? sinew__asset_alloc(asset, (size_t)meshes, sizeof *mesh_list) : NULL;
    if ((clips && !clip_list) || (meshes && !mesh_list))
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "the importer's output: out of memory");
    asset->clips = (const sinew_clip *const *)clip_list;
    asset->meshes = mesh_list;
    char where[64];
    for (size_t at = start; at < size;) {
        uint32_t head[2];
        memcpy(head, bytes + at, sizeof head);
        const unsigned char *payload = bytes + at + sizeof head;
        at += sizeof head + head[1];
        sinew_result r = SINEW_OK;
        if (head[0] == SINEW__FRAME_SKELETON) {
            r = sinew__decode_skeleton(payload, head[1], LAYOUT, "the importer's output: the skeleton", base, asset, err);
        } else if (head[0] == SINEW__FRAME_CLIP) {
            snprintf(where, sizeof where, "the importer's output: clip %d", asset->clip_count);
            sinew_clip *c = sinew__decode_clip(payload, head[1], LAYOUT, where, base, asset, err);
            if (c)
                clip_list[asset->clip_count++] = c;
            else
                r = err->result != SINEW_OK ? err->result : SINEW_ERROR_PARSE;
        } else if (head[0] == SINEW__FRAME_MESH) {
            snprintf(where, sizeof where, "the importer's output: mesh %d", asset->mesh_count);
            /* counted before it is read into: sinew_asset_free then frees its skin */
            r = sinew__decode_mesh(payload, head[1], NULL, 0, LAYOUT, where, base, asset, &mesh_list[asset->mesh_count++], err);
        } else if (head[0] == SINEW__FRAME_UNIT) {
            float meters;
            memcpy(&meters, payload, sizeof meters);
            /* a unit the child could not have read from a file: the
             * asset's lengths are kept, their unit left undeclared */
            if (sinew__unit_plausible(meters))
                asset->meters_per_unit = meters;
            else
                sinew__warn(base, "the importer's output: its unit (%g m) is not a plausible length unit: ignored",
                            (double)meters);
        } else if (head[0] == SINEW__FRAME_AXES) {
            int32_t declared[6];
            memcpy(declared, payload, sizeof declared);
            sinew_quat q;
            sinew__axes made = sinew__axes_rotation(declared, &q);
            /* axes the child could not have accepted: the asset is taken
             * as it is, in glTF's axes */
            if (made == SINEW__AXES_ROTATION)
                asset->axis_rotation = q;
            else
                sinew__warn(base, "the importer's output: its axes (up %d %d, front %d %d, coord %d %d) %s: ignored",
                            declared[0], declared[1], declared[2], declared[3], declared[4], declared[5],
                            made == SINEW__AXES_MIRROR ? "mirror glTF's"
                                                       : "are not three distinct axes 0 to 2 with signs of +-1");
        }
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}
