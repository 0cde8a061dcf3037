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

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#if SINEW__WALL
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
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
    size_t head = size < 4096 ? size : 4096;
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
    for (const char *p = dot + 1; *p; ++p) out[i++] = (char)tolower((unsigned char)*p);
    out[i] = '\0';
}

/* The format to hand Assimp, or an error saying how to allow it. */
static sinew_result choose_format(const uint8_t *d, size_t size, const char *path, const char *allow, format *out,
                                  sinew_error *err)
{
    if (known_format(d, size, out)) return SINEW_OK;
    char extension[16];
    extension_of(path, extension);
    if (allowed(allow, extension) || (allowed(allow, "*") && !path)) {
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

/* Defaults: a minute of CPU time would be a hang for any file a character
 * pipeline loads in a few seconds. */
enum { DEFAULT_TIMEOUT_MS = 10000, BASE_ADDRESS_SPACE = 512 << 20 };

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

/* The child: limits, then the import, then its frames down the pipe. Never
 * returns; exits without running the parent's exit handlers or flushing
 * the parent's stdio buffers, which it shares. */
static void child(int fd, const void *data, size_t size, const format *f, const char *file_name,
                  const sinew_load_options *options, size_t address_space, unsigned cpu_seconds)
{
    /* a crash ends the child by its signal, not through the handlers of
     * the program that forked it (a crash reporter, a sanitizer, a fuzzer) */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGXCPU, SIGPIPE};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
    /* Assimp's own messages must not mix into the parent's output */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
    struct rlimit none = {0, 0}, cpu = {cpu_seconds, cpu_seconds + 1};
    setrlimit(RLIMIT_CORE, &none);
    setrlimit(RLIMIT_CPU, &cpu);
#if !defined(SINEW__UNLIMITED_ADDRESS_SPACE)
    struct rlimit as = {address_space, address_space};
    setrlimit(RLIMIT_AS, &as);
#else
    (void)address_space;
#endif
    sinew__frames frames = {0};
    sinew_load_options o = *options;
    o.base.allocator = (sinew_allocator){0};
    /* the child's objects are only written out: no SIMD layouts for them */
    o.base.simd = SINEW_SIMD_SCALAR;
    o.base.logger = (sinew_logger){log_to_frames, &frames};
    o.max_memory = 0;
    sinew_error e = {SINEW_OK, ""};
    sinew_asset *a = sinew__asset_new("", &o.base);
    sinew_result r = a ? sinew__assimp_read(data, size, f->extension, file_name, &o, a, &e)
                       : sinew__fail(&e, SINEW_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == SINEW_OK)
        sinew__frames_asset(&frames, a);
    else
        sinew__frames_error(&frames, r, e.description);
    if (frames.failed) {
        /* out of room for the frames: say so in a frame that needs none */
        static const char message[] = "the converted scene does not fit the importer's memory limit";
        unsigned char small[8 + 8 + sizeof message];
        uint32_t head[2] = {SINEW__FRAME_ERROR, 8 + sizeof message - 1}, result = SINEW_ERROR_OUT_OF_MEMORY,
                 length = sizeof message - 1;
        memcpy(small, head, 8), memcpy(small + 8, &result, 4), memcpy(small + 12, &length, 4);
        memcpy(small + 16, message, sizeof message - 1);
        write_all(fd, small, 16 + sizeof message - 1);
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

/* Waits for the child to end; kills it first when it outlives `deadline`
 * seconds after `start`. */
static int reap(pid_t pid, const struct timespec *start, double deadline, bool *killed)
{
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) return status;
        if (w < 0 && errno != EINTR) return 0;
        if (!*killed && seconds_since(start) > deadline) {
            kill(pid, SIGKILL);
            *killed = true;
        }
        struct timespec nap = {0, 50000}; /* the child is exiting: its pipe is closed */
        nanosleep(&nap, NULL);
    }
}

static sinew_result walled(const void *data, size_t size, const format *f, const char *file_name,
                           const sinew_load_options *options, sinew_asset *asset, sinew_error *err)
{
    sinew_allocator alloc = sinew__allocator(&options->base);
    unsigned timeout_ms = options->assimp_timeout_ms ? options->assimp_timeout_ms : DEFAULT_TIMEOUT_MS;
    unsigned cpu_seconds = (timeout_ms + 999) / 1000;
    /* the load's own budget, and room for the program and Assimp's code */
    size_t budget = options->max_memory ? options->max_memory
                                        : (size > (SIZE_MAX / 4) / 16 ? SIZE_MAX / 4 : 16 * size);
    size_t address_space = budget > SIZE_MAX / 2 - BASE_ADDRESS_SPACE ? SIZE_MAX / 2 : BASE_ADDRESS_SPACE + budget;
    int fds[2];
    if (pipe(fds) != 0)
        return sinew__fail(err, SINEW_ERROR_IO, "cannot make a pipe for the %s importer: %s", f->name,
                           strerror(errno));
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]), close(fds[1]);
        return sinew__fail(err, SINEW_ERROR_IO, "cannot start the %s importer's process: %s", f->name, strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], data, size, f, file_name, options, address_space, cpu_seconds);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
#if defined(F_SETPIPE_SZ)
    fcntl(fds[0], F_SETPIPE_SZ, 1 << 20); /* fewer turns between the two processes */
#endif
    /* read everything the child sends, within the time and the budget */
    unsigned char *bytes = NULL;
    size_t got = 0, capacity = 0;
    bool killed = false, over_budget = false, timed_out = false, read_failed = false;
    for (;;) {
        double left = (double)timeout_ms / 1000.0 - seconds_since(&start);
        if (left <= 0.0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int ready = poll(&p, 1, (int)(left * 1000.0) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        if (got == capacity) {
            size_t bigger = capacity ? capacity * 2 : 65536;
            unsigned char *grown = sinew__alloc(&alloc, bigger);
            if (!grown) {
                over_budget = true;
                break;
            }
            if (got) memcpy(grown, bytes, got);
            sinew__free(&alloc, bytes);
            bytes = grown, capacity = bigger;
        }
        ssize_t n = read(fds[0], bytes + got, capacity - got);
        if (n > 0) {
            got += (size_t)n;
        } else if (n == 0) {
            break;
        } else if (errno != EINTR && errno != EAGAIN) {
            read_failed = true;
            break;
        }
    }
    close(fds[0]);
    if (timed_out || over_budget || read_failed) {
        kill(pid, SIGKILL);
        killed = true;
    }
    int status = reap(pid, &start, (double)timeout_ms / 1000.0 + 1.0, &killed);
    double took = seconds_since(&start);
    sinew_result r;
    if (timed_out || (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && !over_budget && !read_failed)) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer did not finish within %.1f s (stopped; "
                        "sinew_load_options.assimp_timeout_ms sets the limit)", f->name, timeout_ms / 1000.0);
    } else if (over_budget) {
        r = sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "the %s importer's output exceeds the load's memory limit",
                        f->name);
    } else if (read_failed) {
        r = sinew__fail(err, SINEW_ERROR_IO, "reading the %s importer's output failed", f->name);
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
                            sig == SIGABRT ? ": an assertion, an uncaught exception or its memory limit" : "", took);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        r = sinew__fail(err, SINEW_ERROR_PARSE, "the %s importer exited with status %d after %.1f s", f->name,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1, took);
    } else {
        r = sinew__frames_read(bytes, got, options, asset, err);
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
