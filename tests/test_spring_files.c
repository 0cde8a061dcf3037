/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Spring bones in files: a generated glTF with VRMC_springBone (two
 * springs, sphere and capsule colliders, a center) read back field by
 * field, each class of bad input refused with its place, and a VRM 1.0
 * file (VRMC_vrm required) loaded with the warning that says what is left
 * unread; the springs through an archive and back (copied and viewed),
 * and an archive's springs section refused where its bytes are wrong; given
 * the sinew tool and a folder, `sinew info` (text and JSON) listing the
 * chains and colliders, `sinew convert` keeping them and `sinew bake
 * --springs` moving them. */
#include "sinew/sinew.h"
#include "sinew/sinew_import.h"
#include "archive/archive_internal.h"
#include "import/import_internal.h"
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

/* hips carries the head and the coat; the hair hangs from the head; the
 * coat's spring skips coat1, whose bone follows coat0's */
static const char *base_json =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"VRMC_springBone\"],"
    "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"name\":\"hips\",\"children\":[1,5],\"translation\":[0,1,0]},"
    "{\"name\":\"head\",\"children\":[2],\"translation\":[0,0.6,0]},"
    "{\"name\":\"hair0\",\"children\":[3],\"translation\":[0,0,-0.1]},"
    "{\"name\":\"hair1\",\"children\":[4],\"translation\":[0,-0.15,0]},"
    "{\"name\":\"hair2\",\"translation\":[0,-0.15,0]},"
    "{\"name\":\"coat0\",\"children\":[6],\"translation\":[0,-0.1,-0.15]},"
    "{\"name\":\"coat1\",\"children\":[7],\"translation\":[0,-0.2,0]},"
    "{\"name\":\"coat2\",\"translation\":[0,-0.2,0]}],"
    "\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\","
    "\"colliders\":[{\"node\":1,\"shape\":{\"sphere\":{\"offset\":[0,0.1,0],\"radius\":0.12}}},"
    "{\"node\":0,\"shape\":{\"capsule\":{\"offset\":[0,0,0.05],\"radius\":0.1,\"tail\":[0,-0.5,0]}}}],"
    "\"colliderGroups\":[{\"name\":\"head\",\"colliders\":[0]},{\"colliders\":[0,1]}],"
    "\"springs\":[{\"name\":\"hair\",\"center\":1,\"colliderGroups\":[0],\"joints\":["
    "{\"node\":2,\"hitRadius\":0.02,\"stiffness\":0.8,\"gravityPower\":0.3,\"gravityDir\":[0,0,-1],\"dragForce\":0.4},"
    "{\"node\":3,\"hitRadius\":0.03},{\"node\":4}]},"
    "{\"name\":\"coat\",\"colliderGroups\":[0,1],\"joints\":[{\"node\":5,\"stiffness\":2},{\"node\":7}]}]}}}";

/* The base file with `from` replaced by `to` (its first occurrence). */
static char *variant(const char *from, const char *to)
{
    size_t cap = strlen(base_json) + (to ? strlen(to) : 0) + 1;
    char *out = malloc(cap);
    const char *hit = from ? strstr(base_json, from) : NULL;
    if (from && !hit) {
        fprintf(stderr, "test bug: \"%s\" not in the base file\n", from);
        exit(2);
    }
    if (!hit) snprintf(out, cap, "%s", base_json);
    else snprintf(out, cap, "%.*s%s%s", (int)(hit - base_json), base_json, to, hit + strlen(from));
    return out;
}

static sinew_asset *load(const char *json, check_log *log, sinew_error *err)
{
    sinew_load_options o = {0};
    if (log) o.base.logger = (sinew_logger){check_log_fn, log};
    return sinew_load_memory(json, strlen(json), NULL, &o, err);
}

static bool vec_eq(sinew_vec3 a, float x, float y, float z) { return a.x == x && a.y == y && a.z == z; }

/* The base file's springs as written, in the asset's joints. */
static void check_base_springs(const sinew_asset *a, const char *what)
{
    const sinew_springs_desc *d = a->springs;
    CHECK(d != NULL, "%s: no springs", what);
    if (!d) return;
    const int *nj = a->node_joints;
    CHECK(d->collider_count == 2 && d->group_count == 2 && d->chain_count == 2, "%s: counts %d %d %d", what,
          d->collider_count, d->group_count, d->chain_count);
    if (d->collider_count != 2 || d->group_count != 2 || d->chain_count != 2) return;
    const sinew_spring_collider *c = d->colliders;
    CHECK(c[0].joint == nj[1] && c[0].shape == SINEW_COLLIDER_SPHERE && vec_eq(c[0].offset, 0, 0.1f, 0) &&
              c[0].radius == 0.12f,
          "%s: collider 0", what);
    CHECK(c[1].joint == nj[0] && c[1].shape == SINEW_COLLIDER_CAPSULE && vec_eq(c[1].offset, 0, 0, 0.05f) &&
              vec_eq(c[1].tail, 0, -0.5f, 0) && c[1].radius == 0.1f,
          "%s: collider 1", what);
    CHECK(d->groups[0].collider_count == 1 && d->groups[0].colliders[0] == 0, "%s: group 0", what);
    CHECK(d->groups[1].collider_count == 2 && d->groups[1].colliders[0] == 0 && d->groups[1].colliders[1] == 1,
          "%s: group 1", what);
    const sinew_spring_chain *hair = &d->chains[0], *coat = &d->chains[1];
    CHECK(a->spring_names && strcmp(a->spring_names[0], "hair") == 0 && strcmp(a->spring_names[1], "coat") == 0,
          "%s: names", what);
    CHECK(hair->joint_count == 3 && hair->center == nj[1] && hair->collider_group_count == 1 &&
              hair->collider_groups[0] == 0,
          "%s: hair", what);
    if (hair->joint_count == 3) {
        const sinew_spring_joint *j = hair->joints;
        CHECK(j[0].joint == nj[2] && j[0].hit_radius == 0.02f && j[0].stiffness == 0.8f && j[0].gravity_power == 0.3f &&
                  vec_eq(j[0].gravity_dir, 0, 0, -1) && j[0].drag_force == 0.4f,
              "%s: hair joint 0", what);
        /* the schema's defaults where the file says nothing */
        CHECK(j[1].joint == nj[3] && j[1].hit_radius == 0.03f && j[1].stiffness == 1.0f && j[1].gravity_power == 0.0f &&
                  vec_eq(j[1].gravity_dir, 0, -1, 0) && j[1].drag_force == 0.5f,
              "%s: hair joint 1", what);
        CHECK(j[2].joint == nj[4] && j[2].hit_radius == 0.0f, "%s: hair joint 2", what);
    }
    CHECK(coat->joint_count == 2 && coat->center == -1 && coat->collider_group_count == 2 &&
              coat->collider_groups[0] == 0 && coat->collider_groups[1] == 1,
          "%s: coat", what);
    if (coat->joint_count == 2)
        CHECK(coat->joints[0].joint == nj[5] && coat->joints[0].stiffness == 2.0f && coat->joints[1].joint == nj[7],
              "%s: coat joints", what);
    sinew_error err = {0};
    sinew_springs *s = sinew_springs_create(a->skeleton, d, NULL, &err);
    CHECK(s != NULL, "%s: sinew_springs_create: %s", what, err.description);
    sinew_springs_free(s);
}

static void test_read_back(void)
{
    sinew_error err = {0};
    check_log log = {0};
    sinew_asset *a = load(base_json, &log, &err);
    CHECK(a != NULL, "load: %s", err.description);
    if (!a) return;
    check_base_springs(a, "base");
    CHECK(log.count == 0, "warnings: %s", log.all);
    sinew_asset_free(a);

    /* a file without the extension has no springs */
    char *plain = variant(",\"extensions\":{\"VRMC_springBone\"", ",\"extras\":{\"VRMC_springBone\"");
    a = load(plain, NULL, &err);
    CHECK(a && !a->springs && !a->spring_names, "no extension: %s", a ? "springs" : err.description);
    sinew_asset_free(a);
    free(plain);

    /* a spring of one joint makes no bone: left out with a warning */
    char *one = variant("{\"node\":5,\"stiffness\":2},{\"node\":7}", "{\"node\":5}");
    memset(&log, 0, sizeof log);
    a = load(one, &log, &err);
    CHECK(a && a->springs && a->springs->chain_count == 1, "one joint: %s", a ? "count" : err.description);
    CHECK(strstr(log.all, "extensions.VRMC_springBone.springs[1]: 1 joint, no bone") != NULL, "one joint: %s",
          log.all);
    sinew_asset_free(a);
    free(one);
}

typedef struct bad_case {
    const char *from, *to;
    sinew_result result;
    const char *place;
} bad_case;

static void test_refused(void)
{
    static const bad_case cases[] = {
        {"\"specVersion\":\"1.0\"", "\"specVersion\":\"0.0\"", SINEW_ERROR_UNSUPPORTED,
         "extensions.VRMC_springBone.specVersion"},
        {"\"specVersion\":\"1.0\",", "", SINEW_ERROR_PARSE, "extensions.VRMC_springBone.specVersion: required"},
        {"\"colliders\":[{\"node\":1,", "\"colliders\":[{\"node\":8,", SINEW_ERROR_BAD_REFERENCE,
         "extensions.VRMC_springBone.colliders[0].node: 8 is not an index of nodes"},
        {"{\"sphere\":{\"offset\":[0,0.1,0],\"radius\":0.12}}", "{\"sphere\":{\"offset\":[0,0.1,0],\"radius\":-1}}",
         SINEW_ERROR_PARSE, "extensions.VRMC_springBone.colliders[0].shape.sphere.radius: -1 is negative"},
        {"\"offset\":[0,0.1,0]", "\"offset\":[0,1e39,0]", SINEW_ERROR_NOT_FINITE,
         "extensions.VRMC_springBone.colliders[0].shape.sphere.offset[1]"},
        {"\"tail\":[0,-0.5,0]", "\"tail\":[0,-0.5]", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.colliders[1].shape.capsule.tail: expected an array of 3"},
        {"{\"capsule\":", "{\"sphere\":{},\"capsule\":", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.colliders[1].shape: needs one of sphere and capsule, has both"},
        {"\"shape\":{\"sphere\":{\"offset\":[0,0.1,0],\"radius\":0.12}}", "\"shape\":{}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.colliders[0].shape: needs one of sphere and capsule, has neither"},
        {"\"colliders\":[0,1]", "\"colliders\":[0,2]", SINEW_ERROR_BAD_REFERENCE,
         "extensions.VRMC_springBone.colliderGroups[1].colliders[1]: 2 is not an index"},
        {"{\"colliders\":[0,1]}", "{}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.colliderGroups[1].colliders: required"},
        {"\"colliderGroups\":[0,1]", "\"colliderGroups\":[0,2]", SINEW_ERROR_BAD_REFERENCE,
         "extensions.VRMC_springBone.springs[1].colliderGroups[1]: 2 is not an index"},
        {"{\"node\":3,\"hitRadius\":0.03}", "{\"node\":3,\"hitRadius\":-0.03}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[1].hitRadius: -0.03 is negative"},
        {"\"stiffness\":0.8", "\"stiffness\":-1", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[0].stiffness"},
        {"\"gravityPower\":0.3", "\"gravityPower\":-0.3", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[0].gravityPower"},
        {"\"dragForce\":0.4", "\"dragForce\":1.5", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[0].dragForce: 1.5 is outside [0, 1]"},
        {"\"gravityDir\":[0,0,-1]", "\"gravityDir\":[0,\"down\",-1]", SINEW_ERROR_NOT_FINITE,
         "extensions.VRMC_springBone.springs[0].joints[0].gravityDir[1]"},
        {"{\"node\":4}", "{\"node\":40}", SINEW_ERROR_BAD_REFERENCE,
         "extensions.VRMC_springBone.springs[0].joints[2].node: 40 is not an index of nodes"},
        {"{\"node\":4}", "{\"hitRadius\":0}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[2].node: required"},
        /* not down the tree: a sibling's branch, then the joint before */
        {"{\"node\":4}", "{\"node\":6}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[2].node: nodes[6] is not below joints[1]'s nodes[3]"},
        {"{\"node\":4}", "{\"node\":3}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].joints[2].node: nodes[3] is not below"},
        {"{\"node\":5,\"stiffness\":2}", "{\"node\":3}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[1].joints[0].node: nodes[3] is already a joint of "
         "extensions.VRMC_springBone.springs[0]"},
        {"\"center\":1", "\"center\":5", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0].center: nodes[5] is neither"},
        {"\"center\":1", "\"center\":9", SINEW_ERROR_BAD_REFERENCE, "extensions.VRMC_springBone.springs[0].center"},
        {"\"joints\":[{\"node\":5", "\"joints\":7,\"x\":[{\"node\":5", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[1].joints: not an array"},
        {"{\"VRMC_springBone\":{", "{\"VRMC_springBone\":7,\"x\":{", SINEW_ERROR_PARSE, "extensions.VRMC_springBone: not an object"},
        /* a bone of zero length: the runtime's rule, placed */
        {"{\"name\":\"hair2\",\"translation\":[0,-0.15,0]}", "{\"name\":\"hair2\"}", SINEW_ERROR_PARSE,
         "extensions.VRMC_springBone.springs[0]: chain 0, joint 1: its bone has zero length"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const bad_case *c = &cases[i];
        char *json = variant(c->from, c->to);
        sinew_error err = {0};
        sinew_asset *a = load(json, NULL, &err);
        CHECK(a == NULL, "case %zu (%s): loaded", i, c->place);
        CHECK_ERROR(err, c->result, c->place);
        sinew_asset_free(a);
        free(json);
    }
}

/* A VRM 1.0 file: VRMC_vrm required, its humanoid and meta there. */
static void test_vrm(void)
{
    char *json = variant("\"extensionsUsed\":[\"VRMC_springBone\"]",
                         "\"extensionsUsed\":[\"VRMC_vrm\",\"VRMC_springBone\"],\"extensionsRequired\":[\"VRMC_vrm\"]");
    char *vrm = malloc(strlen(json) + 256);
    const char *at = strstr(json, "\"extensions\":{");
    at += strlen("\"extensions\":{");
    sprintf(vrm, "%.*s\"VRMC_vrm\":{\"specVersion\":\"1.0\",\"meta\":{\"name\":\"x\"},\"humanoid\":{\"humanBones\":"
                 "{\"hips\":{\"node\":0},\"head\":{\"node\":1}}},\"expressions\":{}},%s",
            (int)(at - json), json, at);
    check_log log = {0};
    sinew_error err = {0};
    sinew_asset *a = load(vrm, &log, &err);
    CHECK(a != NULL, "vrm: %s", err.description);
    if (a) check_base_springs(a, "vrm");
    CHECK(strstr(log.all, "VRMC_vrm: the humanoid, meta and expressions are left unread") != NULL, "vrm warning: %s",
          log.all);
    sinew_asset_free(a);
    free(vrm);
    free(json);
}

/* A growing text. */
typedef struct growing {
    char *s;
    size_t len, cap;
} growing;

static void put(growing *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        while (t->len + (size_t)n + 1 > t->cap) t->cap = t->cap ? t->cap * 2 : 1 << 16;
        t->s = realloc(t->s, t->cap);
        if (!t->s) abort();
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The reader's work stays linear in a large file an attacker would write:
 * a chain of 32,000 nodes, 16,000 springs of two joints down it, each
 * centered on the root and naming a group of 20,000 colliders. */
static void test_linear(void)
{
    enum { NODES = 32000, COLLIDERS = 20000 };
    growing t = {0};
    put(&t, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int i = 0; i < NODES; ++i)
        put(&t, i + 1 < NODES ? "{\"children\":[%d],\"translation\":[0,-0.1,0]}," : "{\"translation\":[0,-0.1,0]}", i + 1);
    put(&t, "],\"extensions\":{\"VRMC_springBone\":{\"specVersion\":\"1.0\",\"colliders\":[");
    for (int i = 0; i < COLLIDERS; ++i) put(&t, "%s{\"node\":0,\"shape\":{\"sphere\":{\"radius\":0.1}}}", i ? "," : "");
    put(&t, "],\"colliderGroups\":[{\"colliders\":[");
    for (int i = 0; i < COLLIDERS; ++i) put(&t, "%s%d", i ? "," : "", i);
    put(&t, "]}],\"springs\":[");
    for (int i = 0; i < NODES / 2; ++i)
        put(&t, "%s{\"center\":0,\"colliderGroups\":[0],\"joints\":[{\"node\":%d},{\"node\":%d}]}", i ? "," : "",
            2 * i, 2 * i + 1);
    put(&t, "]}}}");
    sinew_gltf_work work = {0};
    sinew_error err = {0};
    sinew_asset *a = sinew__gltf_load_counted(t.s, t.len, NULL, &work, &err);
    CHECK(a && a->springs && a->springs->chain_count == NODES / 2, "large: %s", err.description);
    CHECK(work.visited <= 8 * work.json_values, "large: %zu items visited for %zu present, over 8 per item",
          work.visited, work.json_values);
    sinew_asset_free(a);
    free(t.s);
}

typedef struct memory {
    unsigned char *bytes;
    size_t size;
} memory;

static bool to_memory(void *user, const void *bytes, size_t size)
{
    memory *m = user;
    m->bytes = malloc(size);
    if (!m->bytes) return false;
    memcpy(m->bytes, bytes, size);
    m->size = size;
    return true;
}

/* The springs section's place in an archive written by this library, or 0. */
static size_t springs_section(const memory *m, uint32_t *entry)
{
    uint32_t count;
    memcpy(&count, m->bytes + 40, 4);
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t kind;
        uint64_t offset;
        memcpy(&kind, m->bytes + 64 + 32 * i, 4);
        memcpy(&offset, m->bytes + 64 + 32 * i + 8, 8);
        if (kind == 8) {
            *entry = 64 + 32 * i;
            return (size_t)offset;
        }
    }
    return 0;
}

static void test_archive(void)
{
    sinew_error err = {0};
    sinew_asset *a = load(base_json, NULL, &err);
    CHECK(a != NULL, "load: %s", err.description);
    if (!a) return;
    memory m = {0};
    CHECK(sinew_archive_write(a, NULL, to_memory, &m, &err) == SINEW_OK, "write: %s", err.description);
    sinew_asset *copy = sinew_archive_load(m.bytes, m.size, NULL, &err);
    CHECK(copy != NULL, "archive load: %s", err.description);
    if (copy) check_base_springs(copy, "archive copy");
    sinew_asset_free(copy);
    unsigned char *aligned = aligned_alloc(64, (m.size + 63) / 64 * 64);
    memcpy(aligned, m.bytes, m.size);
    sinew_asset *view = sinew_archive_view(aligned, m.size, NULL, &err);
    CHECK(view != NULL, "archive view: %s", err.description);
    if (view) check_base_springs(view, "archive view");
    sinew_asset_free(view);
    free(aligned);

    /* the same asset, the same bytes; a clips-only archive has no springs */
    memory again = {0}, clips = {0};
    sinew_archive_write(a, NULL, to_memory, &again, &err);
    CHECK(again.size == m.size && memcmp(again.bytes, m.bytes, m.size) == 0, "archive bytes differ between writes");
    sinew_archive_write_options only = {.clips_only = true};
    sinew_archive_write(a, &only, to_memory, &clips, &err);
    uint32_t entry = 0;
    CHECK(springs_section(&clips, &entry) == 0, "a clips-only archive holds springs");
    free(again.bytes);
    free(clips.bytes);

    /* changed bytes, the checksum made right: refused, the place named */
    size_t at = springs_section(&m, &entry);
    CHECK(at > 0, "no springs section");
    typedef struct change {
        size_t offset;
        uint32_t value;
        sinew_result result;
        const char *message;
    } change;
    float negative = -1.0f, nan_value = NAN;
    uint32_t neg_bits, nan_bits;
    memcpy(&neg_bits, &negative, 4);
    memcpy(&nan_bits, &nan_value, 4);
    const change changes[] = {
        /* the first chain's first joint (its name "hair" read, its center,
         * its one group), then that joint's hit radius */
        {at + 128, 99, SINEW_ERROR_BAD_JOINT_INDEX, "(springs) at byte"},
        {at + 128, 99, SINEW_ERROR_BAD_JOINT_INDEX, "chain 0, joint 0: 99 is not in the skeleton"},
        {at + 128, 5, SINEW_ERROR_PARSE, "chain 0, joint 1: 3 is not below the joint before it"},
        {at + 132, neg_bits, SINEW_ERROR_PARSE, "chain 0, joint 0: a parameter out of its range"},
        {at + 132, nan_bits, SINEW_ERROR_NOT_FINITE, "chain 0, joint 0: a NaN or an infinity"},
        {at + 112, 6, SINEW_ERROR_PARSE, "chain 0: its center 6 is neither"},
        {at + 120, 2, SINEW_ERROR_BAD_REFERENCE, "chain 0: collider group 2 is out of range"},
        {at + 0, 1000, SINEW_ERROR_TRUNCATED, "the collider count 1000 needs more bytes"},
        {at + 4, 9, SINEW_ERROR_BAD_JOINT_INDEX, "collider 0: joint 9 is not in the skeleton"},
        {at + 8, 2, SINEW_ERROR_PARSE, "collider 0: shape 2 is unknown"},
        {at + 96, 2, SINEW_ERROR_BAD_REFERENCE, "collider group 1: collider 2 is out of range"},
        {at + 100, 3, SINEW_ERROR_TRUNCATED, "the chain count 3 needs more bytes"},
        {at + 116, 1000, SINEW_ERROR_TRUNCATED, "a chain's collider group count 1000"},
        {entry + 4, 1, SINEW_ERROR_PARSE, "flags 0x1, where the format gives this kind 0x0"},
    };
    for (size_t i = 0; at && i < sizeof changes / sizeof changes[0]; ++i) {
        unsigned char *bad = malloc(m.size);
        memcpy(bad, m.bytes, m.size);
        memcpy(bad + changes[i].offset, &changes[i].value, 4);
        sinew__archive_seal(bad, m.size);
        sinew_asset *b = sinew_archive_load(bad, m.size, NULL, &err);
        CHECK(b == NULL, "change %zu: loaded", i);
        CHECK_ERROR(err, changes[i].result, changes[i].message);
        sinew_asset_free(b);
        free(bad);
    }
    /* in a 2.1 archive, which has no springs */
    unsigned char *old = malloc(m.size);
    memcpy(old, m.bytes, m.size);
    old[10] = 1;
    sinew__archive_seal(old, m.size);
    sinew_asset *b = sinew_archive_load(old, m.size, NULL, &err);
    CHECK(b == NULL, "springs in a 2.1 archive: loaded");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "(springs) in a 2.1 archive, which has none");
    sinew_asset_free(b);
    free(old);
    free(m.bytes);
    sinew_asset_free(a);
}

/* Runs `command` and returns its stdout (malloc'd, NUL-terminated). */
static char *run(const char *command)
{
    FILE *f = popen(command, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    for (size_t got; (got = fread(out + n, 1, cap - 1 - n, f)) > 0;) {
        n += got;
        if (n + 1 == cap) out = realloc(out, cap *= 2);
    }
    out[n] = 0;
    int status = pclose(f);
    CHECK(status == 0, "%s: exit status %d", command, status);
    return out;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The world matrix bake wrote for node `name` in its first frame with
 * the frame's time, as text ("" when missing). */
static void world_of(const char *json, const char *name, char *out, size_t size)
{
    char key[96];
    snprintf(key, sizeof key, "\"name\":\"%s\",\"world\":[", name);
    const char *at = json ? strstr(json, key) : NULL, *end = at ? strchr(at, ']') : NULL;
    if (!at || !end) {
        out[0] = 0;
        return;
    }
    snprintf(out, size, "%.*s", (int)(end - at), at);
}

static char *bake(const char *tool, const char *file, const char *options)
{
    char command[1200];
    snprintf(command, sizeof command, "'%s' bake '%s' %s", tool, file, options);
    return run(command);
}

/* sinew bake --springs: time 0 is the animated pose; later the hair, which
 * has gravity, swings, the coat (no gravity, a still root) stays; a frame
 * does not depend on the others asked with it; the step's size counts. */
static void test_bake(const char *tool, const char *file)
{
    char *plain0 = bake(tool, file, "--times 0"), *springs0 = bake(tool, file, "--springs --times 0");
    const char *f0 = plain0 ? strstr(plain0, "\"frames\"") : NULL, *f1 = springs0 ? strstr(springs0, "\"frames\"") : NULL;
    CHECK(f0 && f1 && strcmp(f0, f1) == 0, "bake --springs at 0 differs from the animated pose");
    CHECK(springs0 && strstr(springs0, "\"spring_dt\":0.0166666675"), "bake --springs: no spring_dt");
    char *plain = bake(tool, file, "--times 0.5"), *sprung = bake(tool, file, "--springs --times 0.5");
    char *both = bake(tool, file, "--springs --times 0.5,0.25");
    char *coarse = bake(tool, file, "--springs --spring-dt 0.125 --times 0.5");
    char a[400], b[400], c[400], d[400];
    world_of(plain, "hair2", a, sizeof a);
    world_of(sprung, "hair2", b, sizeof b);
    CHECK(a[0] && b[0] && strcmp(a, b) != 0, "the hair does not swing: %s / %s", a, b);
    world_of(both, "hair2", c, sizeof c);
    CHECK(strcmp(b, c) == 0, "a frame depends on the others: %s / %s", b, c);
    world_of(coarse, "hair2", d, sizeof d);
    CHECK(d[0] && strcmp(b, d) != 0, "--spring-dt changes nothing: %s", d);
    world_of(plain, "coat2", a, sizeof a);
    world_of(sprung, "coat2", b, sizeof b);
    CHECK(a[0] && strcmp(a, b) == 0, "the coat moved without gravity: %s / %s", a, b);
    free(plain0), free(springs0), free(plain), free(sprung), free(both), free(coarse);
}

/* sinew info lists the chains (joints by name, parameters' ranges) and the
 * colliders, in text and JSON. */
static void test_info(const char *tool, const char *dir)
{
    char file[512], command[1200];
    snprintf(file, sizeof file, "%s/springs.gltf", dir);
    write_file(file, base_json);
    snprintf(command, sizeof command, "'%s' info '%s'", tool, file);
    char *text = run(command);
    static const char *const lines[] = {
        "springs: 2 chains, 2 colliders in 2 groups",
        "chain 0 \"hair\": 3 joints: hair0 > hair1 > hair2",
        "stiffness 0.8..1, drag_force 0.4..0.5, gravity_power 0..0.3, hit_radius 0.02..0.03; center head; "
        "collider groups 0\n",
        "chain 1 \"coat\": 2 joints: coat0 > coat2",
        "collider 0: sphere on head, offset (0, 0.1, 0), radius 0.12",
        "collider 1: capsule on hips, offset (0, 0, 0.05), tail (0, -0.5, 0), radius 0.1",
        "collider group 1: 0 1",
    };
    for (size_t i = 0; text && i < sizeof lines / sizeof lines[0]; ++i)
        CHECK(strstr(text, lines[i]) != NULL, "info: \"%s\" not in:\n%s", lines[i], text);
    free(text);
    snprintf(command, sizeof command, "'%s' info --json '%s'", tool, file);
    char *json = run(command);
    static const char *const parts[] = {
        "\"springs\": {\"chains\": [",
        "{\"index\": 0, \"name\": \"hair\", \"joints\": [{\"joint\": 2, \"name\": \"hair0\", \"hit_radius\": "
        "0.0199999996, \"stiffness\": 0.800000012, \"gravity_power\": 0.300000012, \"gravity_dir\": [0,0,-1], "
        "\"drag_force\": 0.400000006}",
        "\"ranges\": {\"stiffness\": [0.800000012,1], \"drag_force\": [0.400000006,0.5]",
        "\"center\": 1, \"collider_groups\": [0]}",
        "{\"index\": 1, \"shape\": \"capsule\", \"joint\": 0, \"joint_name\": \"hips\", \"offset\": [0,0,0.0500000007], "
        "\"tail\": [0,-0.5,0], \"radius\": 0.100000001}",
        "\"collider_groups\": [{\"index\": 0, \"colliders\": [0]}, {\"index\": 1, \"colliders\": [0, 1]}]}}",
    };
    for (size_t i = 0; json && i < sizeof parts / sizeof parts[0]; ++i)
        CHECK(strstr(json, parts[i]) != NULL, "info --json: \"%s\" not in:\n%.3000s", parts[i], json);
    free(json);
    /* sinew convert keeps them */
    char out[600];
    snprintf(out, sizeof out, "%s/springs.sinew", dir);
    snprintf(command, sizeof command, "'%s' convert '%s' -o '%s'", tool, file, out);
    free(run(command));
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(out, NULL, &err);
    CHECK(a != NULL, "converted: %s", err.description);
    if (a) check_base_springs(a, "converted");
    sinew_asset_free(a);
    test_bake(tool, file);
}

int main(int argc, char **argv)
{
    test_read_back();
    test_refused();
    test_vrm();
    test_archive();
    test_linear();
    if (argc == 3) {
        mkdir(argv[2], 0755);
        test_info(argv[1], argv[2]);
    }
    return check_finish("test_spring_files");
}
