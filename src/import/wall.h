/* SPDX-License-Identifier: MIT */
/* The wall around Assimp: an import runs in a child process under limits,
 * and what it made crosses back as a stream of frames that the parent
 * reads as untrusted bytes. Private to libsinew_import. */
#ifndef SINEW_IMPORT_WALL_H
#define SINEW_IMPORT_WALL_H

#include "import_internal.h"

/* The stream: frames of an 8-byte tag-and-size header (u32 tag, u32
 * payload bytes, in the host's byte order: both ends are one program on one
 * machine) and the payload. Warnings come first, as the import makes them;
 * then either one ERROR frame, or one SKELETON frame, the CLIP and MESH
 * frames, and one END frame. Payload fields are u8, i32, u32 and f32 in the
 * host's order, and strings as a u32 length and the bytes (no NUL). */
enum {
    SINEW__FRAME_WARNING = 0x4e524157,  /* "WARN": the message */
    SINEW__FRAME_ERROR = 0x20525245,    /* "ERR ": i32 result, the sentence */
    SINEW__FRAME_SKELETON = 0x4e4b5353, /* "SSKN": joints, node maps */
    SINEW__FRAME_CLIP = 0x50494c43,     /* "CLIP" */
    SINEW__FRAME_MESH = 0x4853454d,     /* "MESH" */
    SINEW__FRAME_END = 0x20444e45       /* "END " */
};

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

/* The frames are written into the asset codec's growing buffer. */
typedef sinew__bytes sinew__frames;

/* Appends a warning frame. */
void sinew__frames_warning(sinew__frames *f, const char *message);
/* Appends an error frame. */
void sinew__frames_error(sinew__frames *f, sinew_result result, const char *description);
/* Appends the asset's frames, from SKELETON to END. */
void sinew__frames_asset(sinew__frames *f, const sinew_asset *asset);

/* Reads a stream into `asset` (made by the caller with the load's budgeted
 * options, which the rebuilt objects take too): warnings go to the
 * options' logger, an error frame becomes the load's error, and the asset
 * is rebuilt through the same create functions a loader uses, so that it
 * holds only what they accept, whatever the bytes. Errors name the frame
 * and the field. */
sinew_result sinew__frames_read(const unsigned char *bytes, size_t size, const sinew_load_options *options,
                                sinew_asset *asset, sinew_error *err);

#endif
