/* SPDX-License-Identifier: MIT */
/* sinew_clip_pack: a clip's translation, rotation and scale keys quantized
 * to 16 bits in its skeleton's block layout (the layout itself and its
 * sampling are the clip room's plan). */
#include "offline/offline_internal.h"

#include <stdio.h>

sinew_clip *sinew_clip_pack(const sinew_clip *clip, const sinew_skeleton *sk, const sinew_options *options,
                            sinew_pack_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !sk) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_pack: a clip and its skeleton are required");
        return NULL;
    }
    if (sinew__refuse_clip_for(clip, sk->joint_count, "sinew_clip_pack", "the skeleton", err)) return NULL;
    sinew_allocator alloc = sinew__allocator(options);
    /* the weights tracks stay tracks; the packed keys' hint follows theirs */
    int weights = 0;
    for (int i = 0; i < clip->track_count; ++i) weights += clip->tracks[i].target == SINEW_TARGET_WEIGHTS;
    sinew__pack_result res;
    sinew__sampler *sm = sinew__sampler_pack(clip, sk, weights, &alloc, sinew__simd_level(options), &res);
    if (!sm) {
        if (res.refused_track >= 0) {
            const sinew_track *t = &clip->tracks[res.refused_track];
            char other[48] = "";
            if (res.other_track >= 0) snprintf(other, sizeof other, " than track %d's", res.other_track);
            sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                        "sinew_clip_pack: clip \"%s\", track %d (joint %d \"%s\", %s): %s%s; packing takes LINEAR "
                        "tracks on one set of key times, or single keys", clip->name, res.refused_track, t->joint,
                        sk->names[t->joint], sinew__target_names[t->target], res.why, other);
        } else if (res.wide_joint >= 0) {
            sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                        "sinew_clip_pack: clip \"%s\", joint %d \"%s\": its values span more than 16 bits can "
                        "cover in floats", clip->name, res.wide_joint, sk->names[res.wide_joint]);
        } else {
            sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_pack: clip \"%s\": out of memory", clip->name);
        }
        return NULL;
    }
    sinew_track *kept = sinew__alloc(&alloc, sizeof *kept * ((size_t)weights + 1));
    if (!kept) {
        sinew__free_aligned(&alloc, sm);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_pack: clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    for (int i = 0, w = 0; i < clip->track_count; ++i)
        if (clip->tracks[i].target == SINEW_TARGET_WEIGHTS) kept[w++] = clip->tracks[i];
    sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count, .duration = clip->duration,
                         .track_count = weights, .tracks = kept, .additive = clip->additive};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    sinew__free(&alloc, kept);
    if (!out) {
        sinew__error_lead(err, "sinew_clip_pack");
        sinew__free_aligned(&alloc, sm);
        return NULL;
    }
    /* the weights tracks' own plan gives way to the packed one */
    sinew__free_aligned(&alloc, sinew__clip_of(out)->sampler);
    sinew__clip_of(out)->sampler = sm;
    sinew__clip_set_form(out, &sinew__form_packed);
    if (report)
        *report = (sinew_pack_report){res.varying_floats, res.errors[0], res.errors[1], res.errors[2]};
    return out;
}

