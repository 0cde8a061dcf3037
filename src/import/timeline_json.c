/* SPDX-License-Identifier: MIT */
/* Timelines from JSON: a glTF animation's extras.sinew object (user tracks
 * and events) and the tool's events sidecar file (docs/ANIMATION.md gives
 * both forms). Every list is walked once; every step is counted. */
#define _POSIX_C_SOURCE 200809L
#include "import/gltf_doc.h"
#include "import/import_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a reading needs: where it is (for messages), its step count and
 * its allocator. */
typedef struct json_reader {
    size_t *visited;
    sinew_allocator alloc;
    sinew_error *err;
} json_reader;

#define EACH(r, e, list) for ((e) = (list) ? (list)->child : NULL; (e) && (++*(r)->visited, 1); (e) = (e)->next)

static const cJSON *member(json_reader *r, const cJSON *obj, const char *key)
{
    const cJSON *e;
    EACH(r, e, obj)
    if (e->string && strcmp(e->string, key) == 0) return e;
    return NULL;
}

static int count_of(json_reader *r, const cJSON *list)
{
    int n = 0;
    const cJSON *e;
    EACH(r, e, list)++ n;
    return n;
}

/* The numbers of array `list` into out (n of them, all finite). */
static sinew_result numbers(json_reader *r, const cJSON *list, const char *path, const char *key, int n, float *out)
{
    int i = 0;
    const cJSON *e;
    EACH(r, e, list)
    {
        if (i == n) /* more than `out` holds: counted, not stored */
            return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.%s: %d numbers, expected %d", path, key,
                               count_of(r, list), n);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > 3.4e38)
            return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.%s[%d]: not a finite number", path, key, i);
        out[i++] = (float)e->valuedouble;
    }
    return i == n ? SINEW_OK
                  : sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.%s: %d numbers, expected %d", path, key, i, n);
}

static const char *const type_names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "QUATERNION"};

static sinew_result read_track(json_reader *r, const cJSON *t, const char *path, sinew_user_track *out, void **owned)
{
    if (!cJSON_IsObject(t)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *name = member(r, t, "name"), *type = member(r, t, "type"), *times = member(r, t, "times");
    const cJSON *values = member(r, t, "values"), *interp = member(r, t, "interpolation"), *step = member(r, t, "step");
    const cJSON *tol = member(r, t, "tolerance");
    if (name && !cJSON_IsString(name)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.name: not a string", path);
    if (!cJSON_IsString(type)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.type: a string is required", path);
    int kind = -1;
    for (int k = 0; k < 5; ++k)
        if (strcmp(type->valuestring, type_names[k]) == 0) kind = k;
    if (kind < 0)
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.type: \"%.40s\" is not SCALAR, VEC2, VEC3, VEC4 or QUATERNION",
                           path, type->valuestring);
    int c = kind == 4 ? 4 : kind + 1;
    if (!cJSON_IsArray(times) || !cJSON_IsArray(values))
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s: \"times\" and \"values\" arrays are required", path);
    int n = count_of(r, times);
    if (n < 1) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.times: no keys", path);
    bool all_step = false;
    if (interp) {
        if (!cJSON_IsString(interp) || (strcmp(interp->valuestring, "LINEAR") != 0 && strcmp(interp->valuestring, "STEP") != 0))
            return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.interpolation: not \"LINEAR\" or \"STEP\"", path);
        all_step = strcmp(interp->valuestring, "STEP") == 0;
    }
    if (step && !cJSON_IsArray(step)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.step: not an array", path);
    if (step && interp)
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s: \"step\" and \"interpolation\" both given (one or the other)", path);
    float tolerance = 0.0f;
    if (tol && (!cJSON_IsNumber(tol) || !(tol->valuedouble >= 0.0) || !isfinite(tol->valuedouble)))
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.tolerance: not a number >= 0", path);
    if (tol) tolerance = (float)tol->valuedouble;
    float *buf = sinew__alloc(&r->alloc, sizeof(float) * (size_t)n * (size_t)(c + 1) + (size_t)n);
    if (!buf) return sinew__fail(r->err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    *owned = buf;
    float *tv = buf, *vv = buf + n;
    uint8_t *sv = (uint8_t *)(vv + (size_t)n * (size_t)c);
    sinew_result res;
    if ((res = numbers(r, times, path, "times", n, tv)) != SINEW_OK) return res;
    if ((res = numbers(r, values, path, "values", n * c, vv)) != SINEW_OK) return res;
    for (int k = 0; k < n; ++k) sv[k] = all_step;
    if (step) {
        int k = 0;
        const cJSON *e;
        EACH(r, e, step)
        {
            if (k >= n || !(cJSON_IsBool(e) || (cJSON_IsNumber(e) && (e->valuedouble == 0.0 || e->valuedouble == 1.0))))
                return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.step[%d]: %s", path, k,
                                   k >= n ? "more entries than keys" : "not 0, 1, true or false");
            sv[k++] = cJSON_IsTrue(e) || (cJSON_IsNumber(e) && e->valuedouble == 1.0);
        }
        if (k != n) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.step: %d entries for %d keys", path, k, n);
    }
    *out = (sinew_user_track){name ? name->valuestring : "", c, kind == 4, n, tv, vv, sv, tolerance};
    return SINEW_OK;
}

static sinew_result read_event(json_reader *r, const cJSON *e, const char *path, sinew_event *out)
{
    if (!cJSON_IsObject(e)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *name = member(r, e, "name"), *time = member(r, e, "time");
    if (!cJSON_IsString(name)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.name: a string is required", path);
    if (!cJSON_IsNumber(time) || !isfinite(time->valuedouble) || time->valuedouble < 0.0 || time->valuedouble > 3.4e38)
        return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.time: a number >= 0 is required", path);
    *out = (sinew_event){name->valuestring, (float)time->valuedouble};
    return SINEW_OK;
}

/* Events of `list` (an array) into a new array (*out, owned by the
 * caller), checked to lie within `duration`. */
static sinew_result read_events(json_reader *r, const cJSON *list, const char *path, float duration, sinew_event **out,
                                int *count)
{
    *out = NULL, *count = 0;
    if (!cJSON_IsArray(list)) return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s: not an array", path);
    int n = count_of(r, list);
    sinew_event *ev = sinew__alloc(&r->alloc, sizeof *ev * ((size_t)n + 1));
    if (!ev) return sinew__fail(r->err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    *out = ev;
    int i = 0;
    const cJSON *e;
    EACH(r, e, list)
    {
        char at[200];
        snprintf(at, sizeof at, "%s[%d]", path, i);
        sinew_result res = read_event(r, e, at, &ev[i]);
        if (res != SINEW_OK) return res;
        if (ev[i].time > duration)
            return sinew__fail(r->err, SINEW_ERROR_PARSE, "%s.time: %g is past the clip's end at %g s", at,
                               (double)ev[i].time, (double)duration);
        ++i;
    }
    *count = n;
    return SINEW_OK;
}

sinew_result sinew__timeline_from_json(const cJSON *obj, const char *path, float duration, size_t *visited,
                                       const sinew_options *options, sinew_timeline **out, sinew_error *err)
{
    *out = NULL;
    json_reader r = {visited, sinew__allocator(options), err};
    if (!cJSON_IsObject(obj)) return sinew__fail(err, SINEW_ERROR_PARSE, "%s: not an object", path);
    const cJSON *tracks = member(&r, obj, "tracks"), *events = member(&r, obj, "events");
    if (tracks && !cJSON_IsArray(tracks)) return sinew__fail(err, SINEW_ERROR_PARSE, "%s.tracks: not an array", path);
    int tn = tracks ? count_of(&r, tracks) : 0;
    sinew_user_track *tr = sinew__alloc(&r.alloc, sizeof *tr * ((size_t)tn + 1));
    void **owned = sinew__alloc(&r.alloc, sizeof *owned * ((size_t)tn + 1));
    sinew_event *ev = NULL;
    int en = 0, i = 0;
    sinew_result res = tr && owned ? SINEW_OK : sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (owned) memset(owned, 0, sizeof *owned * ((size_t)tn + 1));
    const cJSON *t;
    if (res == SINEW_OK) {
        EACH(&r, t, tracks)
        {
            char at[200];
            snprintf(at, sizeof at, "%s.tracks[%d]", path, i);
            if ((res = read_track(&r, t, at, &tr[i], &owned[i])) != SINEW_OK) break;
            if (tr[i].times[tr[i].key_count - 1] > duration) {
                res = sinew__fail(err, SINEW_ERROR_PARSE, "%s.times: the last key at %g is past the clip's end at %g s", at,
                                  (double)tr[i].times[tr[i].key_count - 1], (double)duration);
                break;
            }
            ++i;
        }
    }
    if (res == SINEW_OK && events) {
        char at[200];
        snprintf(at, sizeof at, "%s.events", path);
        res = read_events(&r, events, at, duration, &ev, &en);
    }
    if (res == SINEW_OK) {
        sinew_error e = {0};
        *out = sinew_timeline_create(&(sinew_timeline_desc){duration, tn, tr, en, ev}, options, &e);
        if (!*out) res = sinew__fail(err, e.result, "%s: %s", path, sinew__error_sentence(e.description));
    }
    for (int k = 0; owned && k < tn; ++k) sinew__free(&r.alloc, owned[k]);
    sinew__free(&r.alloc, owned);
    sinew__free(&r.alloc, tr);
    sinew__free(&r.alloc, ev);
    return res;
}

/* ---- the events sidecar ------------------------------------------------------ */

/* The file's bytes (NUL-terminated), at most `limit` of them. */
static char *read_text(const char *path, size_t limit, size_t *size, sinew_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sinew__fail(err, SINEW_ERROR_IO, "sinew_load_events: %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        sinew__fail(err, SINEW_ERROR_IO, "sinew_load_events: %s: cannot tell its size", path);
    } else if ((size_t)n > limit) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_load_events: %s: %ld bytes, over the load's limit of %zu MiB",
                    path, n, limit >> 20);
    } else if (!(text = malloc((size_t)n + 1))) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "sinew_load_events: %s: out of memory", path);
    } else if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        sinew__fail(err, SINEW_ERROR_IO, "sinew_load_events: %s: read error", path);
        free(text);
        text = NULL;
    } else {
        text[n] = '\0';
        *size = (size_t)n;
    }
    fclose(f);
    return text;
}

sinew_result sinew_load_events(const char *path, const sinew_asset *asset, const sinew_options *options,
                               sinew_timeline **timelines, sinew_error *err)
{
    const char *who = "sinew_load_events";
    if (!path || !asset || !timelines)
        return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL path, asset or timelines", who);
    for (int c = 0; c < asset->clip_count; ++c) timelines[c] = NULL;
    size_t limit = options && options->max_memory ? options->max_memory : SINEW_DEFAULT_MAX_MEMORY, size = 0;
    char *text = read_text(path, limit, &size, err);
    if (!text) return err ? err->result : SINEW_ERROR_IO;
    size_t values = 0, visited = 0;
    size_t tree = gltf_json_tree_bound(text, size, &values);
    if (tree > limit - size) {
        free(text);
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: %s: the JSON parses into up to %.1f MiB, over the "
                           "load's limit of %zu MiB", who, path, (double)tree / (1 << 20), limit >> 20);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, &end, false);
    size_t at = end && end >= text && end <= text + size ? (size_t)(end - text) : 0;
    free(text);
    json_reader r = {&visited, sinew__allocator(options), err};
    sinew_result res = SINEW_OK;
    const cJSON *clips = root ? member(&r, root, "clips") : NULL;
    if (!root)
        res = sinew__fail(err, SINEW_ERROR_PARSE, "%s: %s: JSON syntax error near byte %zu", who, path, at);
    else if (!cJSON_IsObject(clips))
        res = sinew__fail(err, SINEW_ERROR_PARSE, "%s: %s: a \"clips\" object is required", who, path);
    /* clips by name through one sorted table, not a search per entry */
    int cn = asset->clip_count;
    int *order = res == SINEW_OK ? sinew__alloc(&r.alloc, sizeof(int) * ((size_t)cn + 1)) : NULL;
    if (res == SINEW_OK && !order) res = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
    if (res == SINEW_OK) {
        for (int c = 0; c < cn; ++c) order[c] = c;
        /* insertion into a sorted run would be quadratic: sort by merge */
        int *tmp = sinew__alloc(&r.alloc, sizeof(int) * ((size_t)cn + 1));
        if (!tmp) res = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
        for (int w = 1; tmp && w < cn; w *= 2) {
            for (int lo = 0; lo < cn; lo += 2 * w) {
                int mid = lo + w < cn ? lo + w : cn, hi = lo + 2 * w < cn ? lo + 2 * w : cn, a = lo, b = mid, o = lo;
                while (a < mid && b < hi)
                    tmp[o++] = strcmp(asset->clips[order[b]]->name, asset->clips[order[a]]->name) < 0 ? order[b++]
                                                                                                      : order[a++];
                while (a < mid) tmp[o++] = order[a++];
                while (b < hi) tmp[o++] = order[b++];
            }
            memcpy(order, tmp, sizeof(int) * (size_t)cn);
        }
        sinew__free(&r.alloc, tmp);
    }
    const cJSON *entry;
    if (res == SINEW_OK) {
        EACH(&r, entry, clips)
        {
            int lo = 0, hi = cn;
            while (lo < hi) {
                int mid = lo + (hi - lo) / 2;
                if (strcmp(asset->clips[order[mid]]->name, entry->string) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            char place[240];
            snprintf(place, sizeof place, "%s: %s: clips[\"%.60s\"]", who, path, entry->string);
            if (lo == cn || strcmp(asset->clips[order[lo]]->name, entry->string) != 0) {
                res = sinew__fail(err, SINEW_ERROR_PARSE, "%s: the asset has no clip of that name", place);
                break;
            }
            int c = order[lo];
            if (timelines[c]) {
                res = sinew__fail(err, SINEW_ERROR_PARSE, "%s: the clip is named twice", place);
                break;
            }
            const sinew_clip *clip = asset->clips[c];
            sinew_event *ev = NULL;
            int en = 0;
            if ((res = read_events(&r, entry, place, clip->duration, &ev, &en)) != SINEW_OK) {
                sinew__free(&r.alloc, ev);
                break;
            }
            /* the file's own user tracks stay; its events give way to these */
            const sinew_timeline *own = asset->timelines ? asset->timelines[c] : NULL;
            if (own && own->event_count)
                sinew__warn(options, "%s: %s: clip \"%s\": its %d event(s) in the file give way to the %d given here", who,
                            path, clip->name, own->event_count, en);
            sinew_timeline_desc d = {clip->duration, own ? own->track_count : 0, own ? own->tracks : NULL, en, ev};
            sinew_error e = {0};
            timelines[c] = sinew_timeline_create(&d, options, &e);
            sinew__free(&r.alloc, ev);
            if (!timelines[c]) {
                res = sinew__fail(err, e.result, "%s: %s", place, sinew__error_sentence(e.description));
                break;
            }
        }
    }
    sinew__free(&r.alloc, order);
    cJSON_Delete(root);
    if (res != SINEW_OK)
        for (int c = 0; c < asset->clip_count; ++c) {
            sinew_timeline_free(timelines[c]);
            timelines[c] = NULL;
        }
    else
        sinew__ok(err);
    return res;
}
