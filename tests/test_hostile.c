/* SPDX-License-Identifier: MIT */
/* Files and bytes an attacker would hand the loaders: things that are not
 * files, files too large for the load's budget, symbolic links out of a
 * glTF's folder, formats not read by default, the limits of the process
 * that runs Assimp, and the stream that process sends back, truncated and
 * corrupted at every place, with a unit and axes no file declares. Each
 * must fail with its sentence (an implausible unit, axes that are not
 * three distinct ones or that mirror glTF's: ignored with a warning), the
 * process surviving. (tests/stress_hostile.c runs whole mutated files through the
 * command-line tool, timed.) */
#define _XOPEN_SOURCE 700 /* mkfifo, symlink, mkdtemp */
#include "sinew/sinew_import.h"

#include "check.h"
#include "import/wall.h"
#include "read_file.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static const char *in_dir(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) fputs(text, f), fclose(f);
}

/* The load fails with `result` and a sentence holding `needle`. */
static void check_refused(const char *path, const sinew_load_options *o, sinew_result result, const char *needle)
{
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(path, o, &err);
    CHECK(!a, "%s: refused", path);
    CHECK_ERROR(err, result, needle);
    CHECK(strncmp(err.description, "sinew_load_file: ", 17) == 0, "%s: the sentence names the function: %s", path,
          err.description);
    sinew_asset_free(a);
}

static uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What a load allocates through the caller's allocator: now, at most and
 * in all. */
typedef struct counted {
    size_t now, peak, total;
} counted;

static void *count_alloc(void *user, size_t size)
{
    counted *c = user;
    size_t *p = malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    c->now += size, c->total += size;
    if (c->now > c->peak) c->peak = c->now;
    return (unsigned char *)p + 16;
}

static void count_free(void *user, void *ptr)
{
    if (!ptr) return;
    counted *c = user;
    size_t *p = (size_t *)(void *)((unsigned char *)ptr - 16);
    c->now -= p[0];
    free(p);
}

/* The messages a load sends its logger, one after another. */
typedef struct heard_log {
    char text[4096];
    int warnings;
} heard_log;

static void keep_message(void *user, sinew_log_level level, const char *message)
{
    heard_log *h = user;
    size_t used = strlen(h->text);
    snprintf(h->text + used, sizeof h->text - used, "%s%s\n", level == SINEW_LOG_WARNING ? "warning: " : "",
             message);
    h->warnings += level == SINEW_LOG_WARNING;
}

static void test_not_files(void)
{
    mkdir(in_dir("folder"), 0700);
    check_refused(in_dir("folder"), NULL, SINEW_ERROR_IO, "a directory, not a file");
    /* a named pipe with no writer: a blocking open would wait forever */
    CHECK(mkfifo(in_dir("pipe.gltf"), 0600) == 0, "mkfifo");
    check_refused(in_dir("pipe.gltf"), NULL, SINEW_ERROR_IO, "a named pipe, not a file");
    check_refused("/dev/null", NULL, SINEW_ERROR_IO, "a character device, not a file");
    check_refused(in_dir("missing.fbx"), NULL, SINEW_ERROR_IO, "cannot read: No such file or directory");
    /* larger than the budget: refused by its size, before it is read */
    FILE *f = fopen(in_dir("big.fbx"), "wb");
    if (f) {
        fputs("Kaydara FBX Binary  ", f);
        fseek(f, 100000, SEEK_SET);
        fputc(0, f);
        fclose(f);
    }
    sinew_load_options small = {.base.max_memory = 50000};
    check_refused(in_dir("big.fbx"), &small, SINEW_ERROR_OUT_OF_MEMORY, "more than the load's limit of");
    /* one byte over the default limit, sparse: refused by its size, nothing
     * of it read (what the load allocates is counted) */
    f = fopen(in_dir("over.fbx"), "wb");
    if (f) {
        fputs("Kaydara FBX Binary  ", f);
        fseek(f, (long)SINEW_DEFAULT_MAX_MEMORY, SEEK_SET);
        fputc(0, f);
        fclose(f);
    }
    counted use = {0, 0, 0};
    sinew_load_options watched = {.base.allocator = {count_alloc, count_free, &use}};
    check_refused(in_dir("over.fbx"), &watched, SINEW_ERROR_OUT_OF_MEMORY, "more than the load's limit of");
    CHECK(use.total < 65536 && use.now == 0, "a file over the limit is refused before it is read (%zu bytes "
          "allocated, %zu held after)", use.total, use.now);
    remove(in_dir("over.fbx"));
    /* a buffer URI that is a pipe */
    write_text(in_dir("with_pipe.gltf"), "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"pipe.gltf\","
                                         "\"byteLength\":4}]}");
    check_refused(in_dir("with_pipe.gltf"), NULL, SINEW_ERROR_IO, "buffers[0]: cannot read");
}

static void test_symlink_out(void)
{
    char outside[300];
    snprintf(outside, sizeof outside, "%s.outside.bin", dir);
    write_text(outside, "0123456789abcdef");
    mkdir(in_dir("model"), 0700);
    CHECK(symlink(outside, in_dir("model/link.bin")) == 0, "symlink");
    const char *gltf = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"link.bin\",\"byteLength\":16}]}";
    write_text(in_dir("model/scene.gltf"), gltf);
    check_refused(in_dir("model/scene.gltf"), NULL, SINEW_ERROR_BAD_URI, "leads out of the file's folder");
    sinew_load_options trusting = {.allow_outside_paths = true};
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(in_dir("model/scene.gltf"), &trusting, &err);
    CHECK(a != NULL, "allow_outside_paths lets the link be followed: %s", err.description);
    sinew_asset_free(a);
    remove(in_dir("model/link.bin")), remove(in_dir("model/scene.gltf")), rmdir(in_dir("model"));
    remove(outside);
}

#ifdef SINEW_HAVE_ASSIMP
static void test_formats(void)
{
    write_text(in_dir("cube.x"), "xof 0303txt 0032\nFrame Root {\n}\n");
    check_refused(in_dir("cube.x"), NULL, SINEW_ERROR_UNSUPPORTED, "assimp_formats = \"x\" (sinew: --formats x)");
    write_text(in_dir("quad.ply"), "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                   "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                                   "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
    check_refused(in_dir("quad.ply"), NULL, SINEW_ERROR_UNSUPPORTED, ".ply files");
    sinew_load_options ply = {.assimp_formats = "PLY"};
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(in_dir("quad.ply"), &ply, &err);
    CHECK(a && a->mesh_count == 1 && a->meshes[0].vertex_count == 3, "PLY allowed by name: %s", err.description);
    sinew_asset_free(a);
    /* bytes in memory of no known format: Assimp is not asked */
    static const char unknown[] = "solid x\nfacet normal 0 0 1\n";
    a = sinew_load_memory(unknown, sizeof unknown - 1, NULL, NULL, &err);
    CHECK(!a, "unknown bytes refused");
    CHECK_ERROR(err, SINEW_ERROR_UNSUPPORTED, "assimp_formats = \"*\"");
    sinew_asset_free(a);
}

/* The child's limits: time, and the budget for what it sends back. */
static void test_limits(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fbx/pab/walk.fbx", SINEW_ASSETS);
    size_t size = 0;
    unsigned char *bytes = test_read_file(path, &size);
    if (!bytes) {
        printf("skip: %s is missing (the shared assets): the child's limits unchecked\n", path);
        return;
    }
    sinew_error err = {0};
    sinew_load_options hurried = {.assimp_timeout_ms = 1};
    sinew_asset *a = sinew_load_memory(bytes, size, NULL, &hurried, &err);
    CHECK(!a, "a 1 ms limit stops the import");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "the FBX importer did not finish within 0.0 s");
    sinew_asset_free(a);
    /* no room for the scene the child sends back */
    sinew_load_options tight = {.base.max_memory = 100000};
    a = sinew_load_memory(bytes, size, NULL, &tight, &err);
    CHECK(!a && err.result == SINEW_ERROR_OUT_OF_MEMORY, "the output over the budget: %s", err.description);
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "its 0.9 MiB leave the FBX importer 0.0 MiB of the load's limit of 0.1 MiB");
    sinew_asset_free(a);
    /* and by default the same file loads, walled or not, to the same asset */
    sinew_load_options trusted = {.assimp_in_process = true};
    sinew_asset *walled = sinew_load_memory(bytes, size, NULL, NULL, &err);
    sinew_asset *direct = sinew_load_memory(bytes, size, NULL, &trusted, &err);
    CHECK(walled && direct, "walk.fbx loads walled and in process: %s", err.description);
    if (walled && direct) {
        const sinew_skeleton *x = walled->skeleton, *y = direct->skeleton;
        bool same = x->joint_count == y->joint_count && walled->clip_count == direct->clip_count &&
                    memcmp(x->parents, y->parents, sizeof *x->parents * (size_t)x->joint_count) == 0 &&
                    memcmp(x->rest_pose, y->rest_pose, sizeof *x->rest_pose * (size_t)x->joint_count) == 0;
        for (int j = 0; same && j < x->joint_count; ++j) same = strcmp(x->names[j], y->names[j]) == 0;
        for (int c = 0; same && c < walled->clip_count; ++c) {
            const sinew_clip *p = walled->clips[c], *q = direct->clips[c];
            same = p->track_count == q->track_count && p->duration == q->duration && strcmp(p->name, q->name) == 0;
            for (int t = 0; same && t < p->track_count; ++t)
                same = p->tracks[t].key_count == q->tracks[t].key_count &&
                       memcmp(p->tracks[t].times, q->tracks[t].times, sizeof(float) * (size_t)p->tracks[t].key_count) ==
                           0;
        }
        CHECK(same, "the walled asset is the one read in process");
    }
    sinew_asset_free(walled), sinew_asset_free(direct);
    free(bytes);
}

/* arnaud.fbx with its first plain array of skin cluster indexes declaring
 * 2^30 entries more than it holds: the count times 4 wraps to the bytes
 * there are, so Assimp's tokenizer takes it, and its parser then fails on
 * that cluster alone, drops it and goes on, saying so only to its logger.
 * The load is refused naming Assimp's error, or loaded with a warning under
 * accept_partial: walled, in this process and through the worker alike. */
static void test_partial(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fbx/pab/arnaud.fbx", SINEW_ASSETS);
    size_t size = 0;
    unsigned char *bytes = test_read_file(path, &size);
    if (!bytes) {
        printf("skip: %s is missing (the shared assets): partial imports unchecked\n", path);
        return;
    }
    /* each way loads the file as it is, Assimp's notes at info level only */
    static const char *const how[] = {"walled", "in process", "through the worker"};
    sinew_load_options ways[3] = {{.assimp_process = SINEW_ASSIMP_PROCESS_FORK}, {.assimp_in_process = true},
                                  {.assimp_process = SINEW_ASSIMP_PROCESS_WORKER}};
    int way_count = getenv("SINEW_IMPORT_WORKER") ? 3 : 2;
    sinew_error err = {0};
    for (int w = 0; w < way_count; ++w) {
        heard_log log = {"", 0};
        sinew_load_options o = ways[w];
        o.base.logger = (sinew_logger){keep_message, &log};
        sinew_asset *a = sinew_load_memory(bytes, size, NULL, &o, &err);
        CHECK(a && log.warnings == 0 && strstr(log.text, "Assimp's FBX importer says: FBX-DOM"),
              "arnaud.fbx %s: loads, Assimp's notes at info level: %s%s", how[w], a ? "" : err.description,
              log.text);
        sinew_asset_free(a);
    }
    /* a node "Indexes" (its name's length, 7, first) whose first property
     * is an int array ('i'): u32 count, u32 encoding (0: plain), u32 bytes */
    static const char key[] = "\x07Indexesi";
    unsigned char *count = NULL;
    for (size_t i = 0; !count && i + sizeof key - 1 + 12 <= size; ++i) {
        unsigned char *p = bytes + i + sizeof key - 1;
        if (memcmp(bytes + i, key, sizeof key - 1) == 0 && get_le32(p + 4) == 0 &&
            get_le32(p + 8) == get_le32(p) * 4)
            count = p;
    }
    CHECK(count != NULL, "arnaud.fbx holds a plain array of cluster indexes");
    if (!count) {
        free(bytes);
        return;
    }
    count[3] = (unsigned char)(count[3] + 0x40);
    for (int w = 0; w < way_count; ++w) {
        heard_log log = {"", 0};
        sinew_load_options o = ways[w];
        o.base.logger = (sinew_logger){keep_message, &log};
        sinew_asset *a = sinew_load_memory(bytes, size, NULL, &o, &err);
        CHECK(!a, "a cluster dropped by Assimp %s: refused", how[w]);
        CHECK_ERROR(err, SINEW_ERROR_PARSE, "the FBX importer read it only in part: Assimp: \"FBX-Parser");
        CHECK(strstr(err.description, "Invalid read size (binary)") && strstr(err.description, "--accept-partial"),
              "%s: the sentence quotes Assimp and says what loads it: %s", how[w], err.description);
        CHECK(log.warnings == 0, "%s: refused without the warnings of what was not loaded: %s", how[w], log.text);
        sinew_asset_free(a);
        log = (heard_log){"", 0};
        o.accept_partial = true;
        a = sinew_load_memory(bytes, size, NULL, &o, &err);
        CHECK(a != NULL, "%s: accept_partial loads what Assimp read: %s", how[w], err.description);
        CHECK(strstr(log.text, "warning: the FBX importer read the file only in part") &&
                  strstr(log.text, "Invalid read size") && strstr(log.text, "Cluster -> Skin link"),
              "%s: a warning says what Assimp dropped: %s", how[w], log.text);
        sinew_asset_free(a);
    }
    free(bytes);
}

/* sinew_load_memory of 48 MiB (an FBX header, then zeros) under a limit
 * raised to 160 MiB: the bytes count against the limit as they are held,
 * what is left is shared between the child (56 MiB, room for Assimp's
 * copy) and this process, which makes no copy of them. Through the worker,
 * whose input is a second copy, the child's share (32 MiB) would not hold
 * Assimp's copy: refused before it starts. */
static void test_large_buffer(void)
{
    enum { SIZE = 48 << 20 };
    unsigned char *bytes = calloc(SIZE, 1);
    if (!bytes) return;
    memcpy(bytes, "Kaydara FBX Binary  \0\x1a\0\xe8\x1c\0\0", 27); /* version 7400 */
    counted use = {0, 0, 0};
    sinew_load_options o = {.base.max_memory = (size_t)160 << 20, .base.allocator = {count_alloc, count_free, &use},
                            .assimp_process = SINEW_ASSIMP_PROCESS_FORK};
    sinew_error err = {0};
    sinew_asset *a = sinew_load_memory(bytes, SIZE, NULL, &o, &err);
    CHECK(!a, "48 MiB of zeros refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "Assimp cannot read it: FBX-Parser");
    CHECK(use.peak < SIZE / 16 && use.now == 0, "no copy of the bytes in this process (%zu bytes at most, %zu "
          "held after)", use.peak, use.now);
    sinew_asset_free(a);
    if (getenv("SINEW_IMPORT_WORKER")) {
        o.assimp_process = SINEW_ASSIMP_PROCESS_WORKER;
        use = (counted){0, 0, 0};
        a = sinew_load_memory(bytes, SIZE, NULL, &o, &err);
        CHECK(!a, "48 MiB twice under 160 MiB, for the worker: refused");
        CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "held twice (here and as the worker's input), leave the FBX "
                    "importer 32.0 MiB of the load's limit of 160.0 MiB, less than the copy");
        CHECK(use.peak < 65536, "refused before the worker starts (%zu bytes allocated)", use.peak);
        sinew_asset_free(a);
    }
    /* more than a third of the limit: refused at once, even by a fork */
    o.assimp_process = SINEW_ASSIMP_PROCESS_FORK;
    o.base.max_memory = (size_t)140 << 20;
    a = sinew_load_memory(bytes, SIZE, NULL, &o, &err);
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "its 48.0 MiB leave the FBX importer 46.0 MiB of the load's limit");
    sinew_asset_free(a);
    free(bytes);
}

/* A BVH nested 100,000 joints deep overflows the stack of Assimp's reader:
 * the child dies, not this process. */
static void test_deep_bvh(void)
{
    enum { DEPTH = 100000 };
    FILE *f = fopen(in_dir("deep.bvh"), "wb");
    if (!f) return;
    fputs("HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n", f);
    for (int i = 0; i < DEPTH; ++i) fputs("JOINT j\n{\nOFFSET 0 1 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n", f);
    fputs("End Site\n{\nOFFSET 0 1 0\n}\n", f);
    for (int i = 0; i <= DEPTH; ++i) fputs("}\n", f);
    fputs("MOTION\nFrames: 1\nFrame Time: 0.033\n0 0 0\n", f);
    fclose(f);
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(in_dir("deep.bvh"), NULL, &err);
    CHECK(!a && err.result != SINEW_OK, "a BVH 100,000 deep fails");
    printf("  deep BVH: %s\n", err.description);
    CHECK(strstr(err.description, "BVH importer") || strstr(err.description, "Assimp cannot read it") ||
              strstr(err.description, "joints"),
          "the sentence says what happened: %s", err.description);
    sinew_asset_free(a);
}

/* The worker program (sinew-import-worker, started where the caller is too
 * large to fork cheaply): the same assets as a fork gives, and the same
 * sentences for a crash, a timeout and a budget. */
static void test_worker(void)
{
    if (!getenv("SINEW_IMPORT_WORKER")) {
        printf("skip: SINEW_IMPORT_WORKER is not set (ctest sets it): the worker program unchecked\n");
        return;
    }
    static const char *const files[] = {"/fbx/pab/arnaud.fbx", "/fbx/pab/walk.fbx", "/collada/seymour.dae"};
    const sinew_load_options fork_it = {.assimp_process = SINEW_ASSIMP_PROCESS_FORK},
                             worker = {.assimp_process = SINEW_ASSIMP_PROCESS_WORKER},
                             welded = {.assimp_process = SINEW_ASSIMP_PROCESS_WORKER, .weld_vertices = true};
    sinew_error err = {0};
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", SINEW_ASSETS, files[i]);
        sinew_asset *a = sinew_load_file(path, &fork_it, &err);
        if (!a) {
            printf("skip: %s: %s\n", files[i], err.description);
            continue;
        }
        sinew_asset *b = sinew_load_file(path, &worker, &err);
        CHECK(b != NULL, "%s through the worker program: %s", files[i], err.description);
        bool same = b && a->skeleton->joint_count == b->skeleton->joint_count && a->clip_count == b->clip_count &&
                    a->mesh_count == b->mesh_count;
        for (int m = 0; same && m < a->mesh_count; ++m)
            same = a->meshes[m].vertex_count == b->meshes[m].vertex_count &&
                   memcmp(a->meshes[m].positions, b->meshes[m].positions,
                          sizeof(float) * 3 * (size_t)a->meshes[m].vertex_count) == 0;
        for (int c = 0; same && c < a->clip_count; ++c)
            same = a->clips[c]->track_count == b->clips[c]->track_count &&
                   a->clips[c]->duration == b->clips[c]->duration;
        CHECK(same, "%s: the worker's asset is the fork's", files[i]);
        /* the load's options reach it: welded, fewer vertices */
        sinew_asset *w = a->mesh_count ? sinew_load_file(path, &welded, &err) : NULL;
        if (a->mesh_count)
            CHECK(w && w->meshes[0].vertex_count < a->meshes[0].vertex_count, "%s: welded by the worker: %s",
                  files[i], w ? "" : err.description);
        sinew_asset_free(a), sinew_asset_free(b), sinew_asset_free(w);
    }
    /* what goes wrong in it is said as for a fork */
    sinew_asset *a = sinew_load_file(in_dir("deep.bvh"), &worker, &err);
    CHECK(!a && strstr(err.description, "the BVH importer crashed (SIGSEGV)"), "the worker's crash: %s",
          err.description);
    sinew_asset_free(a);
    char path[512];
    snprintf(path, sizeof path, "%s/fbx/pab/walk.fbx", SINEW_ASSETS);
    if (access(path, R_OK) != 0) {
        printf("skip: %s is missing (the shared assets): the worker's timeout and budget unchecked\n", path);
        return;
    }
    const sinew_load_options hurried = {.assimp_process = SINEW_ASSIMP_PROCESS_WORKER, .assimp_timeout_ms = 1};
    a = sinew_load_file(path, &hurried, &err);
    CHECK(!a && strstr(err.description, "did not finish within"), "the worker's timeout: %s", err.description);
    sinew_asset_free(a);
    /* arnaud's 0.5 MB file held twice, the worker's share of the rest
     * (1 MB) read, its 2 MB of frames over this process's share */
    const sinew_load_options tight = {.assimp_process = SINEW_ASSIMP_PROCESS_WORKER, .base.max_memory = 3000000};
    snprintf(path, sizeof path, "%s/fbx/pab/arnaud.fbx", SINEW_ASSETS);
    a = sinew_load_file(path, &tight, &err);
    CHECK(!a, "the worker's frames over the share: refused");
    CHECK_ERROR(err, SINEW_ERROR_OUT_OF_MEMORY, "the FBX importer's output (1.9 MiB) exceeds its share of the "
                "load's memory limit (0.9 MiB of 2.9 MiB)");
    sinew_asset_free(a);
}
#endif

/* The stream the child sends, as a compromised child might send it. */
static void test_frames(void)
{
    sinew_error err = {0};
    sinew_asset *demo = sinew_demo_create(NULL, &err);
    CHECK(demo != NULL, "the built-in character: %s", err.description);
    if (!demo) return;
    sinew__frames f = {0};
    sinew__frames_warning(&f, "a repair\nacross lines");
    sinew__frames_asset(&f, demo);
    CHECK(!f.failed && f.size > 1000, "frames written (%zu bytes)", f.size);
    /* whole: the same asset back */
    sinew_asset *back = sinew__asset_new("", NULL);
    sinew_result r = sinew__frames_read(f.bytes, f.size, NULL, NULL, back, &err);
    CHECK(r == SINEW_OK, "frames read back: %s", err.description);
    if (r == SINEW_OK) {
        bool same = back->skeleton->joint_count == demo->skeleton->joint_count &&
                    back->clip_count == demo->clip_count && back->mesh_count == demo->mesh_count;
        for (int m = 0; same && m < demo->mesh_count; ++m) {
            const sinew_mesh *p = &demo->meshes[m], *q = &back->meshes[m];
            same = p->vertex_count == q->vertex_count && p->index_count == q->index_count &&
                   memcmp(p->positions, q->positions, sizeof(float) * 3 * (size_t)p->vertex_count) == 0 &&
                   memcmp(p->indices, q->indices, sizeof(uint32_t) * (size_t)p->index_count) == 0 &&
                   (p->skin != NULL) == (q->skin != NULL) &&
                   (!p->skin || memcmp(p->skin->weights, q->skin->weights,
                                       sizeof(float) * (size_t)p->vertex_count * 4) == 0);
        }
        for (int c = 0; same && c < demo->clip_count; ++c)
            same = demo->clips[c]->track_count == back->clips[c]->track_count &&
                   strcmp(demo->clips[c]->name, back->clips[c]->name) == 0;
        CHECK(same, "the asset read back is the one written");
        CHECK(back->meters_per_unit == 1.0f, "the unit read back (%g m)", (double)back->meters_per_unit);
    }
    sinew_asset_free(back);
    /* cut short anywhere: refused, never read past the end */
    int refused = 0, cuts = 0;
    for (size_t cut = 0; cut < f.size; cut += cut < 4096 ? 1 : 997, ++cuts) {
        sinew_asset *a = sinew__asset_new("", NULL);
        refused += sinew__frames_read(f.bytes, cut, NULL, NULL, a, &err) != SINEW_OK;
        sinew_asset_free(a);
    }
    CHECK(refused == cuts, "every truncated stream refused (%d of %d)", refused, cuts);
    /* bytes changed anywhere: refused, or an asset its create functions accept */
    unsigned char *copy = malloc(f.size);
    uint32_t seed = 12345;
    int loaded = 0, failed = 0;
    for (int round = 0; copy && round < 3000; ++round) {
        memcpy(copy, f.bytes, f.size);
        for (int k = 0; k < 1 + round % 4; ++k) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % f.size;
            seed = seed * 1664525u + 1013904223u;
            copy[at] = (unsigned char)(round % 3 == 0 ? 0xff : round % 3 == 1 ? 0x7f : seed >> 24);
        }
        sinew_asset *a = sinew__asset_new("", NULL);
        if (sinew__frames_read(copy, f.size, NULL, NULL, a, &err) == SINEW_OK) {
            ++loaded;
            /* what loads is whole: every index within its mesh */
            for (int m = 0; m < a->mesh_count; ++m)
                for (int i = 0; i < a->meshes[m].index_count; ++i)
                    if (a->meshes[m].indices[i] >= (uint32_t)a->meshes[m].vertex_count) ++failed;
        }
        sinew_asset_free(a);
    }
    CHECK(failed == 0, "no loaded stream holds an index past its vertices");
    printf("  3000 corrupted streams: %d loaded, %d refused\n", loaded, 3000 - loaded);
    free(copy);
    free(f.bytes);
    sinew_asset_free(demo);
}

/* Whether the frames hold one of kind `kind`. */
static bool has_frame(const sinew__frames *f, uint32_t kind)
{
    bool found = false;
    for (size_t at = 0; at + 8 <= f->size; at += 8 + get_le32(f->bytes + at + 4))
        found = found || get_le32(f->bytes + at) == kind;
    return found;
}

/* A frame of kind `kind` (`size` bytes of `payload`, which holds 4 more)
 * put into `none` (an asset's frames without one) where it does not
 * belong, each refused with its reason: 4 bytes too long (why[0]), twice
 * (why[1]), before the SKELETON frame (why[2]). */
static void check_misplaced_frames(const sinew__frames *none, uint32_t kind, const void *payload, uint32_t size,
                                   const char *what, const char *const why[3])
{
    size_t first = 8 + get_le32(none->bytes + 4); /* the SKELETON frame; the END frame follows */
    for (int b = 0; b < 3; ++b) {
        sinew__frames h = {0};
        uint32_t head[2] = {kind, b == 0 ? size + 4 : size};
        if (b != 2) sinew__bytes_put(&h, none->bytes, first);
        for (int k = 0; k < (b == 1 ? 2 : 1); ++k) {
            sinew__bytes_put(&h, head, sizeof head);
            sinew__bytes_put(&h, payload, head[1]);
        }
        if (b == 2) sinew__bytes_put(&h, none->bytes, first);
        sinew__bytes_put(&h, none->bytes + first, none->size - first);
        sinew_asset *back = sinew__asset_new("", NULL);
        sinew_error err = {0};
        CHECK(!h.failed && sinew__frames_read(h.bytes, h.size, "FBX", NULL, back, &err) == SINEW_ERROR_PARSE,
              "%s that %s refused", what, why[b]);
        CHECK_ERROR(err, SINEW_ERROR_PARSE, why[b]);
        sinew_asset_free(back);
        free(h.bytes);
    }
}

/* The UNIT frame: a plausible unit read back; a unit no file declares
 * (not finite, not above 0, absurd) ignored with a warning, the unit left
 * 0; a malformed frame (the wrong size, a second one, one before the
 * skeleton) refused. */
static void test_frames_unit(const sinew_skeleton *sk, const int *node_joints)
{
    sinew_asset fake = {.name = "", .skeleton = sk, .node_count = 2, .node_joints = node_joints};
    const float units[] = {0.01f, 0.0254f, 100.0f, NAN, INFINITY, -0.01f, 1e-9f, 1e9f};
    for (size_t u = 0; u < sizeof units / sizeof *units; ++u) {
        fake.meters_per_unit = units[u];
        sinew__frames f = {0};
        sinew__frames_asset(&f, &fake);
        heard_log log = {"", 0};
        sinew_load_options o = {.base.logger = {keep_message, &log}};
        sinew_asset *back = sinew__asset_new("", NULL);
        sinew_error err = {0};
        CHECK(!f.failed && sinew__frames_read(f.bytes, f.size, "FBX", &o, back, &err) == SINEW_OK,
              "a unit of %g: the stream loads: %s", (double)units[u], err.description);
        bool plausible = u < 3;
        CHECK(back->meters_per_unit == (plausible ? units[u] : 0.0f) &&
                  (plausible ? log.warnings == 0 : strstr(log.text, "is not a plausible length unit: ignored") != NULL),
              "a unit of %g: read as %g, warned: %s", (double)units[u], (double)back->meters_per_unit, log.text);
        sinew_asset_free(back);
        free(f.bytes);
    }
    /* none written for an undeclared unit */
    fake.meters_per_unit = 0.0f;
    sinew__frames none = {0};
    sinew__frames_asset(&none, &fake);
    CHECK(!none.failed && !has_frame(&none, SINEW__FRAME_UNIT), "no UNIT frame for an undeclared unit");
    /* malformed: 8 bytes, two frames, before the skeleton */
    static const char *const why[] = {"is not 4 bytes", "is a second one", "comes before the skeleton"};
    const float unit[2] = {0.01f, 0.01f};
    check_misplaced_frames(&none, SINEW__FRAME_UNIT, unit, 4, "a unit", why);
    free(none.bytes);
}

/* The AXES frame: declared axes read back as their rotation; axes out of
 * 0 to 2, signs not +-1, a repeated axis or a mirror ignored with a
 * warning, the rotation left the identity; a malformed frame (the wrong
 * size, a second one, one before the skeleton) refused; the identity and
 * a rotation that is no axis swap sent as no frame. */
static void test_frames_axes(const sinew_skeleton *sk, const int *node_joints)
{
    sinew_asset fake = {.name = "", .skeleton = sk, .node_count = 2, .node_joints = node_joints};
    sinew__frames none = {0};
    fake.axis_rotation = (sinew_quat){0, 0, 0, 1};
    sinew__frames_asset(&none, &fake);
    size_t first = 8 + get_le32(none.bytes + 4); /* the SKELETON frame; the END frame follows */
    static const struct {
        int32_t axes[6];
        const char *warned; /* NULL: a rotation */
    } cases[] = {
        {{2, 1, 1, -1, 0, 1}, NULL},                    /* Z up, front -Y */
        {{1, 1, 2, -1, 0, -1}, NULL},                   /* Y up, turned a half turn */
        {{2, 1, 1, 1, 0, 1}, "mirror glTF's"},          /* Z up, front +Y */
        {{2, 1, 2, 1, 0, 1}, "are not three distinct"}, /* two Z */
        {{3, 1, 1, -1, 0, 1}, "are not three distinct"},
        {{-1, 1, 1, -1, 0, 1}, "are not three distinct"},
        {{2, 0, 1, -1, 0, 1}, "are not three distinct"},
        {{2, 1, 1, -2, 0, 1}, "are not three distinct"},
        {{INT32_MIN, INT32_MAX, 1, -1, 0, 1}, "are not three distinct"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        sinew__frames h = {0};
        uint32_t head[2] = {SINEW__FRAME_AXES, 24};
        sinew__bytes_put(&h, none.bytes, first);
        sinew__bytes_put(&h, head, sizeof head);
        sinew__bytes_put(&h, cases[c].axes, 24);
        sinew__bytes_put(&h, none.bytes + first, none.size - first);
        heard_log log = {"", 0};
        sinew_load_options o = {.base.logger = {keep_message, &log}};
        sinew_asset *back = sinew__asset_new("", NULL);
        sinew_error err = {0};
        CHECK(!h.failed && sinew__frames_read(h.bytes, h.size, "FBX", &o, back, &err) == SINEW_OK,
              "axes %zu: the stream loads: %s", c, err.description);
        sinew_quat q = back->axis_rotation, expected = {0, 0, 0, 1};
        if (!cases[c].warned) CHECK(sinew__axes_rotation(cases[c].axes, &expected) == SINEW__AXES_ROTATION, "axes %zu", c);
        CHECK(q.x == expected.x && q.y == expected.y && q.z == expected.z && q.w == expected.w &&
                  (cases[c].warned ? strstr(log.text, cases[c].warned) != NULL : log.warnings == 0),
              "axes %zu: read as (%g %g %g %g), warned: %s", c, (double)q.x, (double)q.y, (double)q.z, (double)q.w,
              log.text);
        /* a rotation goes back into the same frame */
        if (!cases[c].warned) {
            int32_t again[6];
            CHECK(sinew__rotation_axes(q, again) && memcmp(again, cases[c].axes, sizeof again) == 0,
                  "axes %zu: its rotation gives the axes back", c);
        }
        sinew_asset_free(back);
        free(h.bytes);
    }
    /* Z up through the writer and back */
    int32_t z_up[6] = {2, 1, 1, -1, 0, 1};
    CHECK(sinew__axes_rotation(z_up, &fake.axis_rotation) == SINEW__AXES_ROTATION, "Z up is a rotation");
    CHECK(fabsf(fake.axis_rotation.x + 0.70710678f) < 1e-6f && fake.axis_rotation.y == 0.0f &&
              fake.axis_rotation.z == 0.0f && fabsf(fake.axis_rotation.w - 0.70710678f) < 1e-6f,
          "Z up, front -Y: -90 degrees about X (%g %g %g %g)", (double)fake.axis_rotation.x,
          (double)fake.axis_rotation.y, (double)fake.axis_rotation.z, (double)fake.axis_rotation.w);
    sinew__frames f = {0};
    sinew__frames_asset(&f, &fake);
    sinew_asset *back = sinew__asset_new("", NULL);
    sinew_error err = {0};
    CHECK(!f.failed && sinew__frames_read(f.bytes, f.size, "FBX", NULL, back, &err) == SINEW_OK &&
              memcmp(&back->axis_rotation, &fake.axis_rotation, sizeof fake.axis_rotation) == 0,
          "Z up written and read back: %s", err.description);
    sinew_asset_free(back);
    free(f.bytes);
    /* no frame for the identity, nor for a turn that is no axis swap */
    const sinew_quat quiet[2] = {{0, 0, 0, 1}, {0.0f, 0.38268343f, 0.0f, 0.92387953f}};
    for (int k = 0; k < 2; ++k) {
        fake.axis_rotation = quiet[k];
        sinew__frames g = {0};
        sinew__frames_asset(&g, &fake);
        CHECK(!g.failed && !has_frame(&g, SINEW__FRAME_AXES), "no AXES frame for rotation %d", k);
        free(g.bytes);
    }
    /* malformed: 28 bytes, two frames, before the skeleton */
    static const char *const why[] = {"are not 24 bytes", "are a second declaration", "come before the skeleton"};
    const int32_t axes[7] = {2, 1, 1, -1, 0, 1, 0};
    check_misplaced_frames(&none, SINEW__FRAME_AXES, axes, 24, "axes", why);
    free(none.bytes);
}

/* Streams a compromised child could write that the loaders never make:
 * each refused by name. */
static void test_frames_checks(void)
{
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){2, (const int[]){-1, 0}, NULL, NULL}, NULL,
                                               NULL, NULL);
    CHECK(sk != NULL, "a skeleton");
    if (!sk) return;
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, NAN}, deltas[9] = {0};
    uint32_t indices[3] = {0, 1, 2};
    int node_joints[2] = {0, 1};
    sinew_morph morph = {3, 1, deltas, NULL, NULL};
    struct {
        const char *what;
        sinew_result result;
        const char *needle;
    } cases[] = {{"a NaN position", SINEW_ERROR_NOT_FINITE, "positions hold a NaN"},
                 {"morph targets without weights", SINEW_ERROR_PARSE, "without default weights"},
                 {"nodes without their map", SINEW_ERROR_PARSE, "2 nodes without their joints"}};
    for (int c = 0; c < 3; ++c) {
        sinew_mesh mesh = {.name = "m", .vertex_count = 3, .positions = positions, .index_count = 3,
                           .indices = indices, .joint = 0, .source_node = -1, .source_mesh = -1,
                           .source_primitive = -1};
        if (c != 0) positions[8] = 0.0f;
        if (c == 1) mesh.morph = &morph;
        sinew_asset fake = {.name = "", .skeleton = sk, .node_count = 2, .node_joints = c == 2 ? NULL : node_joints,
                            .mesh_count = 1, .meshes = &mesh};
        sinew__frames f = {0};
        sinew__frames_asset(&f, &fake);
        sinew_asset *back = sinew__asset_new("", NULL);
        sinew_error err = {0};
        CHECK(sinew__frames_read(f.bytes, f.size, NULL, NULL, back, &err) != SINEW_OK, "%s refused", cases[c].what);
        CHECK_ERROR(err, cases[c].result, cases[c].needle);
        sinew_asset_free(back);
        free(f.bytes);
    }
    /* Assimp's messages, judged as the wall judges them */
    {
        sinew__heard heard = {{0, 0}, {0, 0}, {{""}}};
        static const char dropped[] = "FBX-Parser (TOK_KEY, offset 0x10) Invalid read size (binary)",
                          note[] = "FBX-DOM: unsupported, newer format version";
        sinew__heard_add(&heard, SINEW__HEARD_DROPPED, dropped, sizeof dropped - 1, 2);
        sinew__heard_add(&heard, SINEW__HEARD_NOTE, note, sizeof note - 1, 1);
        sinew_asset fake = {.name = "", .skeleton = sk, .node_count = 2, .node_joints = node_joints};
        sinew__frames g = {0};
        sinew__frames_begin(&g);
        sinew__frames_heard(&g, &heard);
        sinew__frames_asset(&g, &fake);
        sinew__frames_seal(&g);
        sinew_asset *back = sinew__asset_new("", NULL);
        sinew_error err = {0};
        CHECK(sinew__frames_read(g.bytes, g.size, "FBX", NULL, back, &err) == SINEW_ERROR_PARSE,
              "dropped data refused");
        CHECK_ERROR(err, SINEW_ERROR_PARSE, "the FBX importer read it only in part: Assimp: \"FBX-Parser (TOK_KEY, "
                    "offset 0x10) Invalid read size (binary)\" (and 1 more); accept_partial");
        sinew_asset_free(back);
        heard_log log = {"", 0};
        sinew_load_options partial = {.base.logger = {keep_message, &log}, .accept_partial = true};
        back = sinew__asset_new("", NULL);
        CHECK(sinew__frames_read(g.bytes, g.size, "FBX", &partial, back, &err) == SINEW_OK,
              "accept_partial: read: %s", err.description);
        CHECK(strstr(log.text, "Assimp's FBX importer says: FBX-DOM: unsupported") &&
                  strstr(log.text, "warning: the FBX importer read the file only in part") && log.warnings == 1,
              "accept_partial: the note at info level, the drop as a warning: %s", log.text);
        sinew_asset_free(back);
        /* the SIZE frame must declare the rest exactly */
        g.bytes[8] ^= 1;
        back = sinew__asset_new("", NULL);
        CHECK(sinew__frames_read(g.bytes, g.size, "FBX", &partial, back, &err) == SINEW_ERROR_TRUNCATED,
              "a SIZE frame that lies refused");
        CHECK_ERROR(err, SINEW_ERROR_TRUNCATED, "follow its SIZE frame, which declares");
        sinew_asset_free(back);
        free(g.bytes);
        /* ASSIMP frames: an unknown kind, a count of 0, a length past the
         * payload, a text too long, one too many of a kind, one after the
         * skeleton */
        struct {
            uint32_t kind, count, length, text_bytes, frames;
            bool after;
        } bad[] = {{2, 1, 4, 4, 1, false}, {0, 0, 4, 4, 1, false}, {0, 1, 5, 4, 1, false},
                   {1, 1, 300, 300, 1, false}, {1, 1, 4, 4, 5, false}, {1, 1, 4, 4, 1, true}};
        for (size_t b = 0; b < sizeof bad / sizeof *bad; ++b) {
            sinew__frames skeleton = {0}, h = {0};
            sinew__frames_asset(&skeleton, &fake);
            /* the SKELETON frame, then the END frame */
            size_t first = 8 + get_le32(skeleton.bytes + 4);
            if (bad[b].after) sinew__bytes_put(&h, skeleton.bytes, first);
            static const char text[300] = "text";
            for (uint32_t k = 0; k < bad[b].frames; ++k) {
                uint32_t words[5] = {SINEW__FRAME_ASSIMP, 12 + bad[b].text_bytes, bad[b].kind, bad[b].count,
                                     bad[b].length};
                sinew__bytes_put(&h, words, sizeof words);
                sinew__bytes_put(&h, text, bad[b].text_bytes);
            }
            size_t from = bad[b].after ? first : 0;
            sinew__bytes_put(&h, skeleton.bytes + from, skeleton.size - from);
            back = sinew__asset_new("", NULL);
            CHECK(!h.failed && sinew__frames_read(h.bytes, h.size, "FBX", NULL, back, &err) == SINEW_ERROR_PARSE,
                  "bad Assimp message %zu refused", b);
            CHECK_ERROR(err, SINEW_ERROR_PARSE, bad[b].after ? "follows the skeleton" : "is malformed or one too many");
            sinew_asset_free(back);
            free(h.bytes), free(skeleton.bytes);
        }
    }
    test_frames_unit(sk, node_joints);
    test_frames_axes(sk, node_joints);
    /* a stream of nothing but its end */
    sinew__frames f = {0};
    sinew__frames_error(&f, SINEW_OK, "");
    f.size = 0;
    uint32_t end[2] = {SINEW__FRAME_END, 0};
    sinew_asset *back = sinew__asset_new("", NULL);
    sinew_error err = {0};
    CHECK(sinew__frames_read((const unsigned char *)end, sizeof end, NULL, NULL, back, &err) == SINEW_ERROR_PARSE,
          "an end alone refused");
    CHECK_ERROR(err, SINEW_ERROR_PARSE, "it holds no skeleton");
    sinew_asset_free(back);
    free(f.bytes);
    sinew_skeleton_free(sk);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/sinew-hostile-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("skip: no temporary folder\n");
        return 77;
    }
    test_not_files();
    test_symlink_out();
    test_frames();
    test_frames_checks();
#ifdef SINEW_HAVE_ASSIMP
    test_formats();
    test_limits();
    test_deep_bvh();
    test_worker();
    test_partial();
    test_large_buffer();
#else
    printf("skip: built without Assimp: the formats and the child's limits unchecked\n");
#endif
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) printf("note: %s was not removed\n", dir);
    return check_finish("test_hostile");
}
