/* The build room's private helpers: the offline operations that make
 * runtime data from clips and skins. Not installed. */
#ifndef SINEW_BUILD_INTERNAL_H
#define SINEW_BUILD_INTERNAL_H

#include "clip/clip_internal.h"
#include "skin/skin_internal.h"

/* True, with the error set, for a packed clip: `who` (the public function
 * refusing it) reads its tracks, which a packed clip no longer holds. */
static inline bool sinew__refuse_packed(const sinew_clip *clip, const char *who, sinew_error *err)
{
    if (!clip->packed) return false;
    sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT,
                "%s: clip \"%s\" is packed (sinew_clip_pack) and holds no tracks to read: give the clip it was "
                "packed from", who, clip->name);
    return true;
}

/* Refuses (true, `err` filled) a clip whose tracks cannot be read for a
 * skeleton of `joints` joints: a packed clip, or one animating another
 * joint count (`whose` names the skeleton in the message). */
static inline bool sinew__refuse_clip_for(const sinew_clip *clip, int joints, const char *who, const char *whose,
                                          sinew_error *err)
{
    if (sinew__refuse_packed(clip, who, err)) return true;
    if (clip->joint_count == joints) return false;
    sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: clip \"%s\" animates %d joints, %s has %d", who, clip->name,
                clip->joint_count, whose, joints);
    return true;
}

#endif /* SINEW_BUILD_INTERNAL_H */
