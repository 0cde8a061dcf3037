/* SPDX-License-Identifier: MIT */
/* A catalog of hostile files, made here from the shared assets and from
 * generated BVH and Collada text: truncated, bit-flipped and over-counted
 * FBX, Collada and BVH, nesting 100,000 deep, counts of two billion, a
 * named pipe, a directory and a sparse 4 GiB file; archives (the golden
 * ones, and those `sinew convert --prepare` makes of the shared assets)
 * truncated, bit-flipped, and changed with the checksum made right again,
 * so that the bytes reach the section validators. Each goes through
 * `sinew info` and `sinew bake`, each run timed and measured: it must end
 * by itself (no signal) with status 0 (a mutant that still reads) or 1
 * with a sentence on stderr, within 20 s and, outside the sanitizers, under
 * 1 GiB of resident memory (the Assimp child included).
 * usage: stress_hostile SINEW_BINARY WORK_FOLDER ASSETS_FOLDER GOLDEN_FOLDER */
#define _XOPEN_SOURCE 700 /* mkfifo, wait4 through the BSD name below */
#define _DEFAULT_SOURCE
#include "sinew/sinew.h"

#include "check.h"
#include "archive/archive_internal.h"
#include "read_file.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static const char *sinew_bin, *work;
static int files, runs, refused, read_ok;
static double slowest;
static long largest_kb;

static void save(const char *name, const unsigned char *bytes, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(bytes, 1, size, f);
    fclose(f);
    ++files;
}

/* Runs `sinew ARGS... FILE`: its status, time and peak memory checked. */
static void run(const char *name, const char *const *args, int nargs)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", work, name);
    int err_pipe[2];
    if (pipe(err_pipe) != 0) return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO), dup2(err_pipe[1], STDERR_FILENO);
        close(err_pipe[0]);
        const char *argv[8] = {sinew_bin};
        int n = 1;
        for (int i = 0; i < nargs; ++i) argv[n++] = args[i];
        argv[n++] = path;
        argv[n] = NULL;
        /* a run that outlives the limit is killed here, and fails below */
        alarm(40);
        execv(sinew_bin, (char *const *)argv);
        _exit(127);
    }
    close(err_pipe[1]);
    char message[1024] = "";
    size_t got = 0;
    for (;;) {
        ssize_t n = read(err_pipe[0], message + got, sizeof message - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
        if (got == sizeof message - 1) {
            char sink[4096];
            while (read(err_pipe[0], sink, sizeof sink) > 0) {}
            break;
        }
    }
    message[got] = '\0';
    close(err_pipe[0]);
    int status = 0;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ++runs;
    if (seconds > slowest) slowest = seconds;
    if (ru.ru_maxrss > largest_kb) largest_kb = ru.ru_maxrss;
    if (getenv("STRESS_VERBOSE")) printf("  %s %s: %d, %.2f s, %ld KiB: %s", args[0], name, status, seconds,
                                         ru.ru_maxrss, message[0] ? message : "(read)\n");
    CHECK(WIFEXITED(status), "%s %s: ended by signal %d", args[0], name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CHECK(code == 0 || code == 1, "%s %s: status %d: %s", args[0], name, code, message);
    if (code == 1) {
        ++refused;
        CHECK(strncmp(message, "sinew: ", 7) == 0 && strlen(message) > 20, "%s %s: a sentence on stderr: \"%s\"",
              args[0], name, message);
    } else if (code == 0) {
        ++read_ok;
    }
    CHECK(seconds < 20.0, "%s %s: %.1f s", args[0], name, seconds);
#ifndef SANITIZED
    CHECK(ru.ru_maxrss < 1024L * 1024L, "%s %s: %ld KiB resident", args[0], name, ru.ru_maxrss);
#endif
}

static void run_both(const char *name)
{
    static const char *const info[] = {"info"}, *const bake[] = {"bake", "--times", "0,0.5"};
    run(name, info, 1);
    run(name, bake, 3);
}

/* Each binary FBX array property's element count set to `count`: a walk
 * over the node records (FBX 7.5's 64-bit offsets, 7.4's 32-bit ones). */
static void fbx_counts(unsigned char *d, size_t size, uint32_t count, int *patched)
{
    if (size < 27 || memcmp(d, "Kaydara FBX Binary", 18) != 0) return;
    uint32_t version;
    memcpy(&version, d + 23, 4);
    size_t wide = version >= 7500 ? 8 : 4, at = 27;
    size_t stack[64], depth = 0, ends = size;
    while (at + 3 * wide + 1 <= ends && depth < 64) {
        uint64_t end = 0, props = 0;
        memcpy(&end, d + at, wide), memcpy(&props, d + at + wide, wide);
        size_t name_len = d[at + 3 * wide];
        if (end == 0) { /* a null record closes the list */
            at += 3 * wide + 1;
            if (!depth) break;
            at = stack[--depth];
            continue;
        }
        if (end > size || end <= at) return;
        size_t p = at + 3 * wide + 1 + name_len;
        for (uint64_t k = 0; k < props && p < end; ++k) {
            char type = (char)d[p++];
            switch (type) {
            case 'Y': p += 2; break;
            case 'C': p += 1; break;
            case 'I': case 'F': p += 4; break;
            case 'D': case 'L': p += 8; break;
            case 'S': case 'R': {
                uint32_t n;
                memcpy(&n, d + p, 4);
                p += 4 + n;
                break;
            }
            case 'f': case 'd': case 'l': case 'i': case 'b': {
                uint32_t compressed;
                memcpy(&compressed, d + p + 8, 4);
                memcpy(d + p, &count, 4);
                ++*patched;
                p += 12 + compressed;
                break;
            }
            default: p = end;
            }
        }
        /* nested records follow the properties, up to `end` */
        if (p < end) {
            stack[depth++] = (size_t)end;
            at = p;
        } else {
            at = (size_t)end;
        }
    }
}

static void mutants(const char *stem, const char *ext, const unsigned char *d, size_t size)
{
    char name[128];
    unsigned char *copy = malloc(size + 1);
    if (!copy) return;
    /* truncated: the first 20 bytes, and at each sixteenth */
    snprintf(name, sizeof name, "%s-cut20.%s", stem, ext);
    save(name, d, size < 20 ? size : 20);
    for (int k = 1; k < 16; k += 2) {
        snprintf(name, sizeof name, "%s-cut%02d.%s", stem, k, ext);
        save(name, d, size * (size_t)k / 16);
    }
    /* bit-flipped: a few bytes, then many */
    uint32_t seed = 7;
    for (int k = 0; k < 4; ++k) {
        memcpy(copy, d, size);
        for (int i = 0; i < (k < 2 ? 8 : 200); ++i) {
            seed = seed * 1664525u + 1013904223u;
            copy[32 + (seed >> 4) % (size - 32)] ^= (unsigned char)(1u << (seed >> 28 & 7));
        }
        snprintf(name, sizeof name, "%s-flip%d.%s", stem, k, ext);
        save(name, copy, size);
    }
    free(copy);
}

/* An archive's mutants: those above (the checksum catches the flips), and
 * 24 with a few bytes past the header changed and the checksum made right,
 * which the section validators must refuse or load as valid data. */
static void archive_mutants(const char *stem, const unsigned char *d, size_t size)
{
    if (size <= 64) return;
    mutants(stem, "sinew", d, size);
    unsigned char *copy = malloc(size);
    if (!copy) return;
    uint32_t seed = 99;
    for (int k = 0; k < 24; ++k) {
        memcpy(copy, d, size);
        for (int i = 0; i < 1 + k % 4; ++i) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = 64 + (seed >> 6) % (size - 64);
            seed = seed * 1664525u + 1013904223u;
            copy[at] ^= (unsigned char)(1u + (seed >> 24) % 255u);
        }
        sinew__archive_seal(copy, size);
        char name[128];
        snprintf(name, sizeof name, "%s-sealed%02d.sinew", stem, k);
        save(name, copy, size);
    }
    free(copy);
}

/* Text with every count="N" (Collada) or the numbers after a keyword (BVH)
 * replaced by two billion. */
static void over_count(const char *stem, const char *ext, const char *text, const char *key)
{
    size_t n = strlen(text), cap = n * 2 + 64, out = 0;
    char *big = malloc(cap);
    if (!big) return;
    size_t klen = strlen(key);
    for (size_t i = 0; i < n && out < cap - 32;) {
        if (strncmp(text + i, key, klen) == 0) {
            memcpy(big + out, key, klen), out += klen, i += klen;
            while (i < n && (text[i] == ' ' || text[i] == '"')) big[out++] = text[i++];
            while (i < n && text[i] >= '0' && text[i] <= '9') ++i;
            out += (size_t)sprintf(big + out, "2000000000");
        } else {
            big[out++] = text[i++];
        }
    }
    char name[128];
    snprintf(name, sizeof name, "%s-overcount.%s", stem, ext);
    save(name, (const unsigned char *)big, out);
    free(big);
}

static const char small_bvh[] =
    "HIERARCHY\nROOT hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
    "Yrotation\n\tJOINT knee\n\t{\n\t\tOFFSET 0 -1 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd Site\n"
    "\t\t{\n\t\t\tOFFSET 0 -1 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 3\nFrame Time: 0.1\n0 1 0 0 0 0 0 0 0\n"
    "0 1 0 0 0 0 45 0 0\n0 1 0 0 0 0 90 0 0\n";

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: stress_hostile SINEW_BINARY WORK_FOLDER ASSETS_FOLDER GOLDEN_FOLDER\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    mkdir(work, 0700);
    char path[512];
    /* generated: BVH always */
    mutants("bvh", "bvh", (const unsigned char *)small_bvh, sizeof small_bvh - 1);
    over_count("bvh-frames", "bvh", small_bvh, "Frames:");
    over_count("bvh-channels", "bvh", small_bvh, "CHANNELS");
    {
        enum { DEPTH = 100000 };
        snprintf(path, sizeof path, "%s/deep.bvh", work);
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs("HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n", f);
            for (int i = 0; i < DEPTH; ++i) fputs("JOINT j\n{\nOFFSET 0 1 0\nCHANNELS 1 Xrotation\n", f);
            fputs("End Site\n{\nOFFSET 0 1 0\n}\n", f);
            for (int i = 0; i <= DEPTH; ++i) fputs("}\n", f);
            fputs("MOTION\nFrames: 1\nFrame Time: 0.033\n0 0 0\n", f);
            fclose(f);
            ++files;
        }
        snprintf(path, sizeof path, "%s/deep.dae", work);
        f = fopen(path, "wb");
        if (f) {
            fputs("<?xml version=\"1.0\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
                  "version=\"1.4.1\"><library_visual_scenes><visual_scene id=\"s\">", f);
            for (int i = 0; i < DEPTH; ++i) fprintf(f, "<node id=\"n%d\" name=\"n%d\" type=\"JOINT\">", i, i);
            for (int i = 0; i < DEPTH; ++i) fputs("</node>", f);
            fputs("</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#s\"/></scene>"
                  "</COLLADA>\n", f);
            fclose(f);
            ++files;
        }
    }
    /* not files, and a file too large for the default budget */
    snprintf(path, sizeof path, "%s/pipe.fbx", work);
    if (mkfifo(path, 0600) == 0) ++files;
    snprintf(path, sizeof path, "%s/folder.dae", work);
    if (mkdir(path, 0700) == 0) ++files;
    snprintf(path, sizeof path, "%s/sparse.glb", work);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        CHECK(ftruncate(fd, (off_t)4 << 30) == 0, "a sparse 4 GiB file");
        close(fd);
        ++files;
    }
    /* the golden archives (plain, and with the skin's blocks), always */
    static const char *const goldens[][2] = {{"golden-1.0.sinew", "golden"}, {"golden-1.0-prepared.sinew", "prepared"}};
    for (size_t g = 0; g < sizeof goldens / sizeof *goldens; ++g) {
        size_t size = 0;
        snprintf(path, sizeof path, "%s/%s", argv[4], goldens[g][0]);
        unsigned char *golden = test_read_file(path, &size);
        CHECK(golden != NULL, "the golden archive %s", path);
        if (golden) archive_mutants(goldens[g][1], golden, size);
        free(golden);
    }
    /* from the shared assets, when they are there */
    const char *sources[][3] = {{"fbx/pab/walk.fbx", "walk", "fbx"}, {"fbx/pab/arnaud.fbx", "arnaud", "fbx"},
                                {"collada/seymour.dae", "seymour", "dae"}};
    int shared = 0;
    for (size_t s = 0; s < sizeof sources / sizeof *sources; ++s) {
        snprintf(path, sizeof path, "%s/%s", argv[3], sources[s][0]);
        size_t size = 0;
        unsigned char *d = test_read_file(path, &size);
        if (!d) continue;
        ++shared;
        /* the archive `sinew convert --prepare` makes of it (skins' blocks
         * included), converted outside the catalog folder */
        char out[512], command[1600];
        snprintf(out, sizeof out, "%s.%s.sinew", work, sources[s][1]);
        snprintf(command, sizeof command, "'%s' convert '%s' --prepare -o '%s' > /dev/null", sinew_bin, path, out);
        CHECK(system(command) == 0, "sinew convert %s", sources[s][0]);
        size_t archive_size = 0;
        unsigned char *archive = test_read_file(out, &archive_size);
        if (archive) archive_mutants(sources[s][1], archive, archive_size);
        free(archive);
        remove(out);
        mutants(sources[s][1], sources[s][2], d, size);
        if (strcmp(sources[s][2], "fbx") == 0) {
            int patched = 0;
            fbx_counts(d, size, 0x7fffffffu, &patched);
            CHECK(patched > 0, "%s: array counts found to over-count", sources[s][0]);
            char name[64];
            snprintf(name, sizeof name, "%s-overcount.fbx", sources[s][1]);
            save(name, d, size);
        } else {
            over_count(sources[s][1], "dae", (const char *)d, "count=");
        }
        free(d);
    }
    if (!shared) printf("skip: %s holds none of the shared assets: generated files only\n", argv[3]);
    /* every file of the catalog through both commands */
    char list[512];
    snprintf(list, sizeof list, "ls '%s'", work);
    FILE *ls = popen(list, "r");
    char name[256];
    while (ls && fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = '\0';
        run_both(name);
    }
    if (ls) pclose(ls);
    printf("stress_hostile: %d files, %d runs: %d refused with a sentence, %d read; slowest %.2f s, "
           "largest %ld MiB resident\n", files, runs, refused, read_ok, slowest, largest_kb / 1024);
    CHECK(runs == 2 * files, "every file run (%d of %d)", runs, 2 * files);
    snprintf(list, sizeof list, "rm -rf '%s'", work);
    if (system(list) != 0) printf("note: %s was not removed\n", work);
    return check_finish("stress_hostile");
}
