/* SPDX-License-Identifier: MIT */
/* sinew_clip_retarget: a clip's tracks moved onto another skeleton's joints
 * by name. */
#include "offline/offline_internal.h"

#include <stdio.h>

/* Up to five names, comma separated, into buf; an unnamed joint as
 * "joint N". */
static void name_list(char *buf, size_t cap, const char *const *names, const int *which, int count)
{
    buf[0] = '\0';
    for (int i = 0; i < count && i < 5; ++i) {
        size_t used = strlen(buf);
        if (names[which[i]][0])
            snprintf(buf + used, cap - used, "%s\"%s\"", i ? ", " : "", names[which[i]]);
        else
            snprintf(buf + used, cap - used, "%sjoint %d", i ? ", " : "", which[i]);
    }
    if (count > 5) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, ", ...");
    }
}

sinew_clip *sinew_clip_retarget(const sinew_clip *clip, const sinew_skeleton *from, const sinew_skeleton *to,
                                const sinew_options *options, sinew_retarget_report *report, sinew_error *err)
{
    sinew__ok(err);
    if (!clip || !from || !to) {
        sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "sinew_clip_retarget: clip and both skeletons are required");
        return NULL;
    }
    if (sinew__refuse_clip_for(clip, from->joint_count, "sinew_clip_retarget", "`from`", err)) return NULL;
    sinew_allocator alloc = sinew__allocator(options);
    sinew_track *tracks = sinew__alloc(&alloc, sizeof *tracks * ((size_t)clip->track_count + 1));
    int *dropped = sinew__alloc(&alloc, sizeof *dropped * ((size_t)clip->track_count + 1));
    int *unanimated = sinew__alloc(&alloc, sizeof *unanimated * ((size_t)to->joint_count + 1));
    if (!tracks || !dropped || !unanimated) {
        sinew__free(&alloc, tracks), sinew__free(&alloc, dropped), sinew__free(&alloc, unanimated);
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_clip_retarget: clip \"%s\": out of memory", clip->name);
        return NULL;
    }
    int kept = 0, lost = 0, bare = 0;
    for (int i = 0; i < clip->track_count; ++i) {
        const sinew_track *t = &clip->tracks[i];
        /* a name matches a name: unnamed joints match nothing */
        const char *name = from->names[t->joint];
        int j = name[0] ? sinew_skeleton_find_joint(to, name) : -1;
        if (j < 0) {
            /* one name per joint, not per track */
            bool seen = false;
            for (int k = 0; k < lost && !seen; ++k) seen = dropped[k] == t->joint;
            if (!seen) dropped[lost++] = t->joint;
            continue;
        }
        tracks[kept] = *t;
        tracks[kept++].joint = j;
    }
    for (int j = 0; j < to->joint_count; ++j)
        if (!to->names[j][0] || sinew_skeleton_find_joint(from, to->names[j]) < 0) unanimated[bare++] = j;
    sinew_clip_desc d = {.name = clip->name, .joint_count = to->joint_count,
        .duration = clip->duration, .track_count = kept, .tracks = tracks, .additive = clip->additive,
        .skeleton = to};
    sinew_clip *out = sinew_clip_create(&d, options, err);
    if (!out) sinew__error_lead(err, "sinew_clip_retarget");
    if (out) {
        char names[512];
        if (lost) {
            name_list(names, sizeof names, from->names, dropped, lost);
            sinew__warn(options, "clip \"%s\": %d animated joint(s) are not in the skeleton, their tracks are left "
                                 "out: %s", clip->name, lost, names);
        }
        if (bare) {
            name_list(names, sizeof names, to->names, unanimated, bare);
            sinew__warn(options, "clip \"%s\": %d joint(s) of the skeleton are not in the clip's skeleton and keep "
                                 "their rest pose: %s", clip->name, bare, names);
        }
        if (report) *report = (sinew_retarget_report){kept, clip->track_count - kept, bare};
    }
    sinew__free(&alloc, tracks), sinew__free(&alloc, dropped), sinew__free(&alloc, unanimated);
    return out;
}

