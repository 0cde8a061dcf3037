/* SPDX-License-Identifier: MIT */
/* sinew__assimp_load: which files go to Assimp (a format sinew knows by
 * its bytes, or one the caller allows by name), and where Assimp runs.
 *
 * Assimp's parsers crash, abort, loop and allocate without bound on
 * malformed files, so by default an import runs in a child process (fork)
 * under limits on its address space, its CPU time and its wall time, with
 * no core file; the child converts the scene to sinew's own data and sends
 * it back as frames (wall.h), which this process reads as untrusted bytes.
 * A crash, a signal, a limit or a timeout in the child becomes an error
 * naming the importer and what happened. Where there is no fork (Windows),
 * and where the caller trusts its files (sinew_load_options.assimp_in_process),
 * Assimp runs in this process. */
#if defined(__unix__) || defined(__APPLE__)
#define _GNU_SOURCE /* F_SETPIPE_SZ on Linux; POSIX elsewhere */
#define SINEW__WALL 1
#endif

#include "wall.h"

#include <assimp/cimport.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#if SINEW__WALL
#include <dlfcn.h> /* dladdr: where this library was loaded from */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <spawn.h>
#include <sys/mman.h> /* memfd_create */
#include <sys/resource.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

/* The sanitizers reserve terabytes of address space: a limit on it would
 * stop them, so sanitized builds run the child without one. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SINEW__UNLIMITED_ADDRESS_SPACE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SINEW__UNLIMITED_ADDRESS_SPACE 1
#endif
#endif

/* ---- which files go to Assimp ---------------------------------------------- */

/* A format sinew recognizes by its bytes: its Assimp extension and name. */
typedef struct format {
    char extension[16];
    char name[24];
} format;

static bool contains(const uint8_t *d, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= size; ++i)
        if (d[i] == (uint8_t)needle[0] && memcmp(d + i, needle, n) == 0) return true;
    return false;
}

/* FBX (binary or ASCII), Collada or BVH, by the bytes alone. */
static bool known_format(const uint8_t *d, size_t size, format *out)
{
    /* an XML prolog, comments or a DOCTYPE may come before Collada's root,
     * and a long comment before ASCII FBX's header: the first 64 KiB */
    size_t head = size < 65536 ? size : 65536;
    size_t i = 0;
    while (i < head && isspace(d[i])) ++i;
    if (size >= 18 && memcmp(d, "Kaydara FBX Binary", 18) == 0) {
        *out = (format){"fbx", "FBX"};
    } else if (contains(d, head, "FBXHeaderExtension") || (head - i >= 5 && memcmp(d + i, "; FBX", 5) == 0)) {
        *out = (format){"fbx", "FBX"};
    } else if (contains(d, head, "<COLLADA")) {
        *out = (format){"dae", "Collada"};
    } else if (head - i >= 9 && memcmp(d + i, "HIERARCHY", 9) == 0) {
        *out = (format){"bvh", "BVH"};
    } else {
        return false;
    }
    return true;
}

/* Whether the first n bytes of a equal b's, letters in either case. */
static bool same_letters(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
    return true;
}

/* Whether `extension` (lower case) is in the caller's list ("obj,ply",
 * "*" for every format Assimp reads). */
static bool allowed(const char *list, const char *extension)
{
    if (!list || !*extension) return false;
    size_t n = strlen(extension);
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ' || *p == '.') ++p;
        const char *end = p;
        while (*end && *end != ',' && *end != ' ') ++end;
        if ((end - p == 1 && *p == '*') || ((size_t)(end - p) == n && same_letters(p, extension, n)))
            return true;
        p = end;
    }
    return false;
}

/* The extension of a path, lower case, "" without one. */
static void extension_of(const char *path, char out[16])
{
    out[0] = '\0';
    const char *slash = path ? strrchr(path, '/') : NULL, *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || (slash && dot < slash) || strlen(dot + 1) >= 16) return;
    size_t i = 0;
    for (const char *p = dot + 1; *p; ++p) {
        if (!isalnum((unsigned char)*p)) { /* no extension Assimp knows: none */
            out[0] = '\0';
            return;
        }
        out[i++] = (char)tolower((unsigned char)*p);
    }
    out[i] = '\0';
}

/* The format to hand Assimp, or an error saying how to allow it. */
static sinew_result choose_format(const uint8_t *d, size_t size, const char *path, const char *allow, format *out,
                                  sinew_error *err)
{
    if (known_format(d, size, out)) return SINEW_OK;
    char extension[16];
    extension_of(path, extension);
    if (*extension && allowed(allow, extension) && !aiIsExtensionSupported(extension))
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED, "not glTF, FBX, Collada or BVH by its content, and Assimp "
                           "reads no .%.15s files", extension);
    if (allowed(allow, extension) || allowed(allow, "*")) {
        /* Assimp picks the importer by this extension (none: by the bytes) */
        memcpy(out->extension, extension, sizeof extension);
        snprintf(out->name, sizeof out->name, "%s", *extension ? extension : "Assimp");
        for (char *c = out->name; *c; ++c) *c = (char)toupper((unsigned char)*c);
        return SINEW_OK;
    }
    if (*extension)
        return sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                           "not glTF, FBX, Collada or BVH by its content, the formats read by default; Assimp may "
                           "read .%s files: allow them with sinew_load_options.assimp_formats = \"%s\" (sinew: "
                           "--formats %s)",
                           extension, extension, extension);
    return sinew__fail(err, SINEW_ERROR_UNSUPPORTED,
                       "not glTF, FBX, Collada or BVH by its content, the formats read by default; to let Assimp "
                       "guess, allow every format with sinew_load_options.assimp_formats = \"*\" (sinew: "
                       "--formats '*')");
}

/* ---- Assimp in a child process ---------------------------------------------- */

#if SINEW__WALL

/* Defaults: more than ten seconds would be a hang for any file a character
 * pipeline loads; a day is the longest a caller may ask for. Room for
 * Assimp's code and stacks beside the load's budget. */
enum { DEFAULT_TIMEOUT_MS = 10000, LONGEST_TIMEOUT_MS = 86400000, ROOM = 256 << 20 };

/* Bytes of this process's memory: its address space (field 0, its size,
 * not what is resident) or what is resident (field 1); 0 where the system
 * does not say. */
static size_t memory_now(int field)
{
#if defined(__linux__)
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages[2] = {0, 0};
    if (f) {
        if (fscanf(f, "%lu %lu", &pages[0], &pages[1]) != 2) pages[0] = pages[1] = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && pages[field] < SIZE_MAX / (size_t)page ? pages[field] * (size_t)page : 0;
#else
    (void)field;
    return 0;
#endif
}

/* The child's logger: each warning becomes a frame. */
static void log_to_frames(void *user, sinew_log_level level, const char *message)
{
    (void)level;
    sinew__frames_warning(user, message);
}

static void write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w, n -= (size_t)w;
    }
}

void sinew__wall_child(int fd, const void *data, size_t size, const char *extension, const char *file_name,
                       const sinew_load_options *options, size_t budget, unsigned cpu_seconds)
{
#if defined(__linux__)
    /* ends with the process that forked it */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    /* no signal blocked, no handler of the program that forked it: a crash
     * or a limit ends the child by its signal (not through a crash
     * reporter, a sanitizer or a fuzzer), an interrupt as by default */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGXCPU, SIGPIPE,
                                SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
    sigset_t none_blocked;
    sigemptyset(&none_blocked);
    sigprocmask(SIG_SETMASK, &none_blocked, NULL);
    /* standard streams to /dev/null (Assimp's own messages must not mix
     * into the caller's output), the pipe as fd 3, nothing else open */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO), dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO && null != fd) close(null);
    }
    if (fd != 3) {
        dup2(fd, 3);
        fd = 3;
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (close_range(4, ~0U, 0) != 0)
#endif
        for (int other = 4; other < 1024; ++other) close(other);
    struct rlimit none = {0, 0}, cpu = {cpu_seconds, cpu_seconds + 1};
    setrlimit(RLIMIT_CORE, &none);
    setrlimit(RLIMIT_CPU, &cpu);
#if !defined(SINEW__UNLIMITED_ADDRESS_SPACE)
    /* what the process holds already (the caller's own memory), then the
     * budget and room for the importer's code */
    size_t now = memory_now(0), limit = SIZE_MAX / 2;
    if (budget < SIZE_MAX / 4 && now < SIZE_MAX / 4) limit = now + budget + ROOM;
    struct rlimit as = {limit, limit};
    setrlimit(RLIMIT_AS, &as);
#else
    (void)budget;
#endif
    sinew__frames frames = {0};
    sinew__frames_begin(&frames);
    sinew_load_options o = *options;
    o.base.allocator = (sinew_allocator){0};
    /* the child's objects are only written out: no SIMD layouts for them */
    o.base.simd = SINEW_SIMD_SCALAR;
    o.base.logger = (sinew_logger){log_to_frames, &frames};
    o.base.max_memory = 0;
    sinew_error e = {SINEW_OK, ""};
    /* what Assimp says is sent, and judged by the parent */
    sinew__heard heard = {{0, 0}, {0, 0}, {{""}}};
    sinew_asset *a = sinew__asset_new("", &o.base);
    sinew_result r = a ? sinew__assimp_hear(data, size, extension, file_name, &o, a, &heard, &e)
                       : sinew__fail(&e, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    sinew__frames_heard(&frames, &heard);
    if (r == SINEW_OK)
        sinew__frames_asset(&frames, a);
    else
        sinew__frames_error(&frames, r, e.description);
    sinew__frames_seal(&frames);
    if (frames.failed) {
        /* out of room for the frames: say so in a stream that needs none */
        static const char message[] = "the converted scene does not fit the importer's memory limit";
        enum { TEXT = sizeof message - 1, ERROR_FRAME = 8 + 8 + TEXT };
        unsigned char small[16 + ERROR_FRAME];
        uint32_t size_head[2] = {SINEW__FRAME_SIZE, 8}, head[2] = {SINEW__FRAME_ERROR, 8 + TEXT},
                 result = SINEW_ERROR_OUT_OF_MEMORY, length = TEXT;
        uint64_t rest = ERROR_FRAME;
        memcpy(small, size_head, 8), memcpy(small + 8, &rest, 8);
        memcpy(small + 16, head, 8), memcpy(small + 24, &result, 4), memcpy(small + 28, &length, 4);
        memcpy(small + 32, message, TEXT);
        write_all(fd, small, sizeof small);
    } else {
        write_all(fd, frames.bytes, frames.size);
    }
    _exit(0);
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU";
    case SIGSYS: return "SIGSYS";
    default: return NULL;
    }
}

/* How the child ended: its wait status, or none where it was reaped
 * elsewhere (a program that ignores SIGCHLD). */
typedef struct ending {
    bool seen;
    int status;
} ending;

/* The child's ending if it has ended (without waiting), else seen false. */
static ending ended(pid_t pid, bool *gone)
{
    ending e = {false, 0};
    for (;;) {
        pid_t w = waitpid(pid, &e.status, WNOHANG);
        if (w == pid) {
            e.seen = *gone = true;
            return e;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) *gone = true; /* ECHILD: reaped by someone else */
        return e;
    }
}

#if !defined(PATH_MAX)
#define PATH_MAX 4096
#endif

/* The worker program's place, relative to the library's folder and to a
 * program's (its install's libexecdir from its libdir and its bindir). */
#if !defined(SINEW_IMPORT_WORKER_FROM_LIBDIR)
#define SINEW_IMPORT_WORKER_FROM_LIBDIR "../libexec/sinew/sinew-import-worker"
#endif
#if !defined(SINEW_IMPORT_WORKER_FROM_BINDIR)
#define SINEW_IMPORT_WORKER_FROM_BINDIR "../libexec/sinew/sinew-import-worker"
#endif

/* The folder of `file` (a path with a slash), its links resolved, joined
 * with `relative`, whose leading "../" steps are taken here, so that the
 * result names no "..": false where it does not fit or the folder is not
 * there. */
static bool beside(const char *file, const char *relative, char *out, size_t size)
{
    const char *slash = strrchr(file, '/');
    if (!slash || (size_t)(slash - file) >= PATH_MAX) return false;
    char folder[PATH_MAX], real[PATH_MAX];
    memcpy(folder, file, (size_t)(slash - file));
    folder[slash - file] = '\0';
    if (!realpath(slash == file ? "/" : folder, real)) return false;
    size_t n = strlen(real);
    while (strncmp(relative, "../", 3) == 0) {
        while (n > 0 && real[n - 1] != '/') --n;
        if (n > 0) --n; /* the slash; the root stays "" */
        relative += 3;
    }
    real[n] = '\0';
    return (size_t)snprintf(out, size, "%s/%s", real, relative) < size;
}

/* The running program's file, or false where the system does not say. */
static bool program_file(char *out, size_t size)
{
#if defined(__linux__)
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) return false;
    out[n] = '\0';
    return true;
#else
    (void)out, (void)size;
    return false;
#endif
}

/* Whether two paths name one file. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether `path` names a file that may be run (a folder passes access()
 * and fails only at the spawn). */
static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Whether `path` (a place to look) names a program to run; else it is
 * added to the list of places tried, unless there already. */
static bool runnable(const char *path, char *looked, size_t looked_size)
{
    if (executable_file(path)) return true;
    size_t used = strlen(looked), n = strlen(path);
    for (const char *p = strstr(looked, path); p; p = strstr(p + 1, path))
        if ((p == looked || p[-1] == ' ') && (p[n] == '\0' || p[n] == ',')) return false;
    snprintf(looked + used, looked_size - used, "%s%s", used ? ", " : "", path);
    return false;
}

/* Finds the worker program: the environment variable SINEW_IMPORT_WORKER
 * alone where it is set; else beside the shared libsinew_import this code
 * was loaded from (its libdir's way to libexecdir), beside the program (a
 * program installed in bindir that links the static library), and where
 * the build was configured to install it, the first that can be run.
 * Fills `path` (PATH_MAX bytes) and returns true, or returns false with
 * the places tried in `looked`. */
static bool find_worker(char *path, char *looked, size_t looked_size)
{
    looked[0] = '\0';
    const char *from_environment = getenv("SINEW_IMPORT_WORKER");
    if (from_environment && *from_environment) {
        snprintf(looked, looked_size, "SINEW_IMPORT_WORKER=%s", from_environment);
        return executable_file(from_environment) &&
               (size_t)snprintf(path, PATH_MAX, "%s", from_environment) < PATH_MAX;
    }
    char program[PATH_MAX];
    bool have_program = program_file(program, sizeof program);
    /* an object of this library; in a program that links the static
     * library dladdr names the program (argv[0] on glibc), tried next */
    static const char here = 0;
    Dl_info info;
    if (dladdr(&here, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
        !(have_program && same_file(info.dli_fname, program)) &&
        beside(info.dli_fname, SINEW_IMPORT_WORKER_FROM_LIBDIR, path, PATH_MAX) &&
        runnable(path, looked, looked_size))
        return true;
    if (have_program && beside(program, SINEW_IMPORT_WORKER_FROM_BINDIR, path, PATH_MAX) &&
        runnable(path, looked, looked_size))
        return true;
#if defined(SINEW_IMPORT_WORKER)
    if ((size_t)snprintf(path, PATH_MAX, "%s", SINEW_IMPORT_WORKER) < PATH_MAX && runnable(path, looked, looked_size))
        return true;
#endif
    if (!looked[0]) snprintf(looked, looked_size, "nowhere: this build has none");
    return false;
}


/* Where this process holds that much, a fork costs more than starting the
 * worker program (docs/BENCHMARKS.md). */
enum { WORKER_ABOVE = 256 << 20 };

/* Starts the worker program on the file's bytes (copied into a file of its
 * own, as fd 4), its frames down `pipe_end` (as fd 3); the pid, or -1 with
 * errno. */
static pid_t spawn_worker(const char *path, int pipe_end, const void *data, size_t size, const format *f,
                          const char *file_name, const sinew_load_options *options, size_t budget,
                          unsigned cpu_seconds)
{
    int input = -1;
#if defined(__linux__) && defined(MFD_CLOEXEC)
    input = memfd_create("sinew-import-input", MFD_CLOEXEC);
#endif
    if (input < 0) {
        char name[] = "/tmp/sinew-import-XXXXXX";
        input = mkstemp(name);
        if (input >= 0) unlink(name), fcntl(input, F_SETFD, FD_CLOEXEC);
    }
    if (input < 0) return -1;
    for (size_t put = 0; put < size;) {
        ssize_t n = write(input, (const unsigned char *)data + put, size - put);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            close(input);
            errno = e ? e : EIO;
            return -1;
        }
        put += (size_t)n;
    }
    char budget_text[32], cpu_text[16], version[32];
    snprintf(budget_text, sizeof budget_text, "%zu", budget);
    snprintf(cpu_text, sizeof cpu_text, "%u", cpu_seconds);
    snprintf(version, sizeof version, "%d.%d.%d", SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH);
    char *argv[] = {(char *)path, version, (char *)f->extension, (char *)(file_name ? file_name : ""),
                    options->weld_vertices ? "1" : "0", budget_text, cpu_text, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    /* the pipe as fd 3 and the bytes as fd 4 (dup2 clears close-on-exec),
     * where the caller's own descriptors 3 and 4 would be */
    posix_spawn_file_actions_adddup2(&actions, pipe_end, 3);
    posix_spawn_file_actions_adddup2(&actions, input, 4);
    /* nothing blocked: a crash or a limit ends it by its signal */
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    extern char **environ;
    pid_t pid = -1;
    int e = posix_spawn(&pid, path, &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(input);
    if (e != 0) {
        errno = e;
        return -1;
    }
    return pid;
}

/* The load's limit, shared so that the child and this process together
 * stay within it: first the file's bytes, as this process holds them (a
 * fork shares them; the worker's input is a copy of its own, so twice),
 * then what they leave, half to the child (Assimp's scene, the converted
 * asset, its frames: bounded by its address space, this share plus ROOM
 * for code and stacks) and half to this process (the frames received,
 * at most that share, and the asset rebuilt from them). 0 where the bytes
 * leave nothing. */
static double mib(size_t bytes) { return (double)bytes / 1048576.0; }

static size_t share_of(size_t limit, size_t size, size_t copies)
{
    if (size > limit / copies) return 0;
    return (limit - size * copies) / 2;
}

static sinew_result walled(const void *data, size_t size, const format *f, const char *file_name,
                           const sinew_load_options *options, sinew_asset *asset, sinew_error *err)
{
    sinew_allocator alloc = sinew__allocator(&options->base);
    unsigned long long timeout_ms = options->assimp_timeout_ms ? options->assimp_timeout_ms : DEFAULT_TIMEOUT_MS;
    if (timeout_ms > LONGEST_TIMEOUT_MS) timeout_ms = LONGEST_TIMEOUT_MS;
    unsigned cpu_seconds = (unsigned)((timeout_ms + 999) / 1000);
    double timeout = (double)timeout_ms / 1000.0;
    /* the load's limit, shared (see share_of) */
    size_t limit = options->base.max_memory ? options->base.max_memory : SINEW_DEFAULT_MAX_MEMORY;
    /* a fork, or the worker program (chosen, or for a process that holds
     * much, where its copy of the bytes costs little of the limit) */
    bool large = options->assimp_process == SINEW_ASSIMP_PROCESS_AUTO && memory_now(1) >= WORKER_ABOVE &&
                 size <= limit / 4;
    bool want_worker = options->assimp_process == SINEW_ASSIMP_PROCESS_WORKER || large;
    size_t budget = share_of(limit, size, want_worker ? 2 : 1);
    /* Assimp's importers read the file into a copy of their own (the FBX
     * importer, then its tokens): a share smaller than the bytes would be
     * spent in vain, seconds for a large file */
    if (budget < size)
        return sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "its %.1f MiB%s leave the %s importer %.1f MiB of the "
                           "load's limit of %.1f MiB, less than the copy it reads them into "
                           "(sinew_options.max_memory; sinew: --max-memory)", mib(size),
                           want_worker ? ", held twice (here and as the worker's input)," : "", f->name, mib(budget),
                           mib(limit));
    int fds[2];
#if defined(__linux__)
    int made = pipe2(fds, O_CLOEXEC);
#else
    int made = pipe(fds);
    if (made == 0) fcntl(fds[0], F_SETFD, FD_CLOEXEC), fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#endif
    if (made != 0)
        return sinew__fail(err, SINEW_ERROR_IO, "cannot make a pipe for the %s importer: %s", f->name,
                           strerror(errno));
    char worker_place[PATH_MAX], looked[512];
    const char *worker = NULL;
    if (want_worker && find_worker(worker_place, looked, sizeof looked)) worker = worker_place;
    if (options->assimp_process == SINEW_ASSIMP_PROCESS_WORKER && !worker) {
        close(fds[0]), close(fds[1]);
        return sinew__fail(err, SINEW_ERROR_IO, "the %s importer's worker program is not found (the environment "
                           "variable SINEW_IMPORT_WORKER names its place); looked in %s", f->name, looked);
    }
    const char *what = file_name && *file_name ? file_name : f->name;
    if (worker)
        sinew__inform(&options->base, "%s: Assimp runs in the worker %s", what, worker);
    else if (large)
        sinew__inform(&options->base,
                      "%s: Assimp runs in a forked child: the worker program, for a process this large, is not "
                      "found (looked in %s)",
                      what, looked);
    else
        sinew__inform(&options->base, "%s: Assimp runs in a forked child", what);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = worker ? spawn_worker(worker, fds[1], data, size, f, file_name, options, budget, cpu_seconds)
                       : fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]), close(fds[1]);
        return sinew__fail(err, SINEW_ERROR_IO, "cannot start the %s importer's process%s: %s", f->name,
                           worker ? " (the worker program)" : "", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        sinew__wall_child(fds[1], data, size, f->extension, file_name, options, budget, cpu_seconds);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
#if defined(F_SETPIPE_SZ)
    fcntl(fds[0], F_SETPIPE_SZ, 1 << 20); /* fewer turns between the two processes */
#endif
    /* everything the child sends, within the time and the budget; in
     * slices, so that a child that has ended is noticed even where another
     * process holds the pipe's other end. The stream's SIZE frame comes
     * first: the buffer for the rest is that size, checked against this
     * process's share of the limit and taken from the load's budget before
     * the rest is read. */
    unsigned char head[16], *bytes = NULL;
    size_t got = 0, total = sizeof head;
    bool over_budget = false, too_long = false, timed_out = false, read_failed = false, gone = false, eof = false;
    ending end = {false, 0};
    while (!eof) {
        double left = timeout - seconds_since(&start);
        if (left <= 0.0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int slice = left > 0.05 ? 50 : (int)(left * 1000.0) + 1;
        int ready = poll(&p, 1, slice);
        if (ready < 0 && errno != EINTR) {
            read_failed = true;
            break;
        }
        if (ready <= 0) {
            if (!gone) end = ended(pid, &gone);
            if (!gone) continue;
        }
        /* read what is there (all of it once the child is gone) */
        for (;;) {
            unsigned char spare;
            unsigned char *into = got == total ? &spare : bytes ? bytes + got : head + got;
            ssize_t n = read(fds[0], into, got == total ? 1 : total - got);
            if (n > 0 && got == total) {
                too_long = true;
                break;
            }
            if (n > 0) {
                got += (size_t)n;
                if (!bytes && got == sizeof head) {
                    uint64_t declared = 0;
                    if (!sinew__frames_declared(head, &declared)) {
                        read_failed = true; /* said below, from the head */
                        break;
                    }
                    if (declared > budget || !(bytes = sinew__alloc(&alloc, sizeof head + (size_t)declared))) {
                        over_budget = true;
                        break;
                    }
                    memcpy(bytes, head, sizeof head);
                    total = sizeof head + (size_t)declared;
                }
                continue;
            }
            if (n == 0) eof = true;
            else if (errno == EINTR) continue;
            else if (errno != EAGAIN) read_failed = true;
            break;
        }
        if (over_budget || too_long || read_failed || (gone && !eof)) break;
    }
    close(fds[0]);
    bool killed = false;
    if (!gone && (timed_out || over_budget || too_long || read_failed)) {
        kill(pid, SIGKILL);
        killed = true;
    }
    /* the child has closed its pipe or been killed: it ends at once */
    while (!gone) {
        end = ended(pid, &gone);
        if (gone) break;
        if (!killed && seconds_since(&start) > timeout + 1.0) {
            kill(pid, SIGKILL);
            killed = timed_out = true;
        }
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    double took = seconds_since(&start);
    int status = end.status;
    sinew_result r;
    if (timed_out) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer did not finish within %.1f s (stopped; "
                        "sinew_load_options.assimp_timeout_ms sets the limit)", f->name, timeout);
    } else if (over_budget) {
        uint64_t declared = 0;
        sinew__frames_declared(head, &declared);
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "the %s importer's output (%.1f MiB) exceeds its share of "
                        "the load's memory limit (%.1f MiB of %.1f MiB)", f->name, (double)declared / 1048576.0,
                        mib(budget), mib(limit));
    } else if (too_long) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer's output runs past the size it declares", f->name);
    } else if (read_failed && got == sizeof head && !bytes) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer's output does not start with its size", f->name);
    } else if (read_failed) {
        r = sinew__fail(err, SINEW_ERROR_IO, "reading the %s importer's output failed", f->name);
    } else if (!end.seen) {
        r = sinew__fail(err, SINEW_ERROR_IO, "the %s importer's process ended unseen (is SIGCHLD ignored?)",
                        f->name);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = signal_name(sig);
        char number[24];
        if (!name) snprintf(number, sizeof number, "signal %d", sig), name = number;
        if (sig == SIGXCPU)
            r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer used up its %u s of CPU time (SIGXCPU) after "
                            "%.1f s", f->name, cpu_seconds, took);
        else
            r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer crashed (%s%s) after %.1f s", f->name, name,
                            sig == SIGABRT ? ": an assertion, an uncaught exception or its memory limit"
                            : sig == SIGKILL ? ": killed from outside, or by the system short of memory" : "",
                            took);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer exited with status %d after %.1f s", f->name,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1, took);
    } else if (got < total) {
        r = sinew__fail(err, SINEW_ERROR_TRUNCATED, "the %s importer's output ends after %zu of its %zu bytes",
                        f->name, got, total);
    } else {
        r = sinew__frames_read(bytes, got, f->name, options, asset, err);
    }
    sinew__free(&alloc, bytes);
    return r;
}

#endif

sinew_result sinew__assimp_load(const void *data, size_t size, const char *path, const sinew_load_options *options,
                                sinew_asset *asset, sinew_error *err)
{
    format f;
    sinew_result r = choose_format(data, size, path, options->assimp_formats, &f, err);
    if (r != SINEW_OK) return r;
    const char *slash = path ? strrchr(path, '/') : NULL, *file_name = slash ? slash + 1 : path;
#if SINEW__WALL
    if (!options->assimp_in_process) return walled(data, size, &f, file_name, options, asset, err);
#endif
    return sinew__assimp_read(data, size, f.extension, file_name, options, asset, err);
}
