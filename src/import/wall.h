/* SPDX-License-Identifier: MIT */
/* The wall around Assimp: an import runs in a child process under limits,
 * and what it made crosses back as a stream of frames that the parent
 * reads as untrusted bytes. Private to libsinew_import. */
#ifndef SINEW_IMPORT_WALL_H
#define SINEW_IMPORT_WALL_H

#include "import_internal.h"

/* The stream: frames of an 8-byte tag-and-size header (u32 tag, u32
 * payload bytes, in the host's byte order: both ends are one program on one
 * machine) and the payload. A SIZE frame comes first: the bytes of the
 * frames after it, so that the reader sets aside exactly that much, checked
 * against the load's budget, before it reads them. Warnings and Assimp's
 * messages come next, as the import makes them; then either one ERROR
 * frame, or one SKELETON frame, the CLIP and MESH frames, at most one UNIT
 * frame (where the file declares its unit), at most one AXES frame (where
 * its declared axes are not glTF's), and one END frame. Payload fields are u8, i32, u32, u64 and f32 in the host's order,
 * and strings as a u32 length and the bytes (no NUL). */
enum {
    SINEW__FRAME_SIZE = 0x455a4953,     /* "SIZE": u64 bytes of the frames that follow */
    SINEW__FRAME_WARNING = 0x4e524157,  /* "WARN": the message */
    SINEW__FRAME_ASSIMP = 0x504d5341,   /* "ASMP": u32 kind, u32 count, Assimp's message (sinew__heard) */
    SINEW__FRAME_ERROR = 0x20525245,    /* "ERR ": i32 result, the sentence */
    SINEW__FRAME_SKELETON = 0x4e4b5353, /* "SSKN": joints, node maps */
    SINEW__FRAME_CLIP = 0x50494c43,     /* "CLIP" */
    SINEW__FRAME_MESH = 0x4853454d,     /* "MESH" */
    SINEW__FRAME_UNIT = 0x54494e55,     /* "UNIT": f32 metres a unit (sinew_asset.meters_per_unit) */
    /* "AXES": i32 up axis, up sign, front axis, front sign, coord axis,
     * coord sign (FBX's GlobalSettings: axes 0 to 2, signs +-1), whose
     * rotation is sinew_asset.axis_rotation */
    SINEW__FRAME_AXES = 0x53455841,
    SINEW__FRAME_END = 0x20444e45       /* "END " */
};

/* What Assimp's logger said during one import, in two kinds: messages that
 * mean the importer dropped part of the file (a skin cluster whose array
 * it could not read, an object replaced by a duplicate) and the others
 * (notes: objects Assimp does not read by design, materials, repairs).
 * The first SINEW__HEARD_KEPT messages of each kind are kept, each cut to
 * SINEW__HEARD_TEXT bytes; all are counted. */
enum { SINEW__HEARD_DROPPED = 0, SINEW__HEARD_NOTE = 1 };
enum { SINEW__HEARD_KEPT = 4, SINEW__HEARD_TEXT = 256 };
typedef struct sinew__heard {
    uint32_t count[2];
    int kept[2];
    char text[2][SINEW__HEARD_KEPT][SINEW__HEARD_TEXT];
} sinew__heard;

/* Counts `times` messages of `kind`, keeping the first (n bytes of text,
 * cut to fit, control bytes shown as '?') while there is room. */
void sinew__heard_add(sinew__heard *h, int kind, const char *text, size_t n, uint32_t times);

/* The load's verdict on what Assimp said (`importer` names it: "FBX"):
 * notes go to the options' logger at info level; dropped data fails the
 * load with SINEW_ERROR_PARSE quoting Assimp, unless the options accept a
 * partial load (sinew_load_options.accept_partial), which a warning then
 * says. */
sinew_result sinew__heard_judge(const sinew__heard *h, const char *importer, const sinew_load_options *options,
                                sinew_error *err);

/* Assimp in this process with its logger heard (assimp.c): the import of
 * sinew__assimp_read, and what Assimp said during it into `heard`, not
 * judged. Assimp's logger is one for the process: the caller makes sure no
 * other import runs in this process meanwhile (a child of the wall runs
 * one import; sinew__assimp_read takes a lock). */
sinew_result sinew__assimp_hear(const void *data, size_t size, const char *extension, const char *file_name,
                                const sinew_load_options *options, sinew_asset *asset, sinew__heard *heard,
                                sinew_error *err);

/* The child's side of the wall, in a fork of the caller or in the worker
 * program (src/import/worker_main.c): limits on the process (its address
 * space what it holds plus `budget` and room for the importer, its CPU
 * time, no core file, default signal actions, standard streams to
 * /dev/null, `fd` renumbered 3 and every other descriptor closed), then
 * the import of the file's bytes by Assimp (`extension` picks the
 * importer), then its frames down `fd`. Never returns; exits without
 * running exit handlers or flushing stdio buffers, which a fork shares
 * with its parent. */
void sinew__wall_child(int fd, const void *data, size_t size, const char *extension, const char *file_name,
                       const sinew_load_options *options, size_t budget, unsigned cpu_seconds);

/* Whether `meters` is a length unit a file can declare: finite, and from
 * 1e-5 m (10 micrometres) to 1e5 m (100 km); anything else is taken for
 * a broken or hostile value. */
bool sinew__unit_plausible(double meters);

/* What sinew__axes_rotation() makes of six declared axes. */
typedef enum sinew__axes {
    SINEW__AXES_ROTATION, /* a rotation: *rotation set */
    SINEW__AXES_MALFORMED, /* an axis not 0 to 2, a sign not +-1, or two the same axis */
    SINEW__AXES_MIRROR    /* a mirror of glTF's axes (determinant -1), which no rotation turns */
} sinew__axes;

/* The rotation that turns coordinates in the declared axes (up axis, up
 * sign, front axis, front sign, coord axis, coord sign, as FBX's
 * GlobalSettings hold them) into glTF's: the matrix whose rows are the
 * coord, up and front directions, as a unit quaternion, exact for these
 * signed permutations. */
sinew__axes sinew__axes_rotation(const int32_t axes[6], sinew_quat *rotation);

/* The declared axes whose rotation `rotation` is, from its matrix's rows;
 * false where it is the identity or not such a rotation (no AXES frame is
 * sent then). */
bool sinew__rotation_axes(sinew_quat rotation, int32_t axes[6]);

/* The frames are written into the asset codec's growing buffer. */
typedef sinew__bytes sinew__frames;

/* Begins a stream with its SIZE frame; sinew__frames_seal fills it in once
 * the last frame is written. */
void sinew__frames_begin(sinew__frames *f);
void sinew__frames_seal(sinew__frames *f);
/* Appends a warning frame. */
void sinew__frames_warning(sinew__frames *f, const char *message);
/* Appends an ASSIMP frame for each message kept, the last of each kind
 * carrying the count of those not kept. */
void sinew__frames_heard(sinew__frames *f, const sinew__heard *heard);
/* Appends an error frame. */
void sinew__frames_error(sinew__frames *f, sinew_result result, const char *description);
/* Appends the asset's frames, from SKELETON to END (a UNIT frame where
 * asset->meters_per_unit is not 0, an AXES frame where
 * asset->axis_rotation is not the identity). */
void sinew__frames_asset(sinew__frames *f, const sinew_asset *asset);

/* The bytes a stream's SIZE frame (its first 16 bytes) declares for the
 * frames after it, or false where the 16 bytes are not a SIZE frame. */
bool sinew__frames_declared(const unsigned char head[16], uint64_t *bytes);

/* Reads a stream into `asset` (made by the caller with the load's budgeted
 * options, which the rebuilt objects take too): warnings go to the
 * options' logger, an error frame becomes the load's error, Assimp's
 * messages are judged (sinew__heard_judge, naming `importer`; NULL:
 * "Assimp"), and the asset is rebuilt through the same create functions a
 * loader uses, so that it holds only what they accept, whatever the bytes.
 * A SIZE frame, where the stream starts with one, must declare the rest
 * exactly. A UNIT frame sets asset->meters_per_unit; a malformed one (not
 * 4 bytes, a second one, one before the skeleton) refuses the load, an
 * implausible value (sinew__unit_plausible) is ignored with a warning, the
 * unit left 0 (not declared) so that the caller falls back on its own
 * rule. An AXES frame sets asset->axis_rotation, refused where malformed
 * as the unit is (not 24 bytes), ignored with a warning where its axes
 * are not three distinct axes with signs of +-1 or mirror glTF's (the
 * rotation left the identity). Errors name the frame and the field. The work is one pass over
 * the frames' headers and one over their payloads. */
sinew_result sinew__frames_read(const unsigned char *bytes, size_t size, const char *importer,
                                const sinew_load_options *options, sinew_asset *asset, sinew_error *err);

#endif
