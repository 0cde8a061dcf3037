/* SPDX-License-Identifier: MIT */
/* Reading a whole file safely: regular files only, opened without waiting
 * (a named pipe never blocks the caller), refused by size before it is
 * read; and where a path resolves to, for the folder checks of loaders. */
#if defined(__unix__) || defined(__APPLE__)
#define _XOPEN_SOURCE 700 /* open, fstat, realpath */
#define SINEW__POSIX_FILES 1
#endif

#include "base/base_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#if SINEW__POSIX_FILES
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#if SINEW__POSIX_FILES

/* What a file that is not a regular one is, in a word. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

uint8_t *sinew__read_file(const char *path, const sinew_allocator *alloc, size_t limit, size_t max_size,
                          size_t *size, sinew_error *err)
{
    /* non-blocking: opening a named pipe must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        sinew__fail(err, SINEW_ERROR_IO, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        sinew__fail(err, SINEW_ERROR_IO, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        sinew__fail(err, SINEW_ERROR_IO, "%s, not a file", file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)max_size) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY,
                    "%.1f MiB, more than the load's limit of %.1f MiB (sinew_options.max_memory)",
                    (double)st.st_size / 1048576.0, (double)max_size / 1048576.0);
        close(fd);
        return NULL;
    }
    *size = (size_t)st.st_size;
    size_t want = *size < limit ? *size : limit;
    uint8_t *data = sinew__alloc(alloc, want ? want : 1);
    if (!data) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY, "out of memory for its %zu bytes", want);
        close(fd);
        return NULL;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t n = read(fd, data + got, want - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n < 0)
                sinew__fail(err, SINEW_ERROR_IO, "%s", strerror(errno));
            else
                sinew__fail(err, SINEW_ERROR_IO, "it shrank to %zu bytes while being read", got);
            sinew__free(alloc, data);
            close(fd);
            return NULL;
        }
        got += (size_t)n;
    }
    close(fd);
    return data;
}

bool sinew__path_inside(const char *dir, const char *file)
{
    char *real_dir = realpath(dir && *dir ? dir : ".", NULL), *real_file = realpath(file, NULL);
    bool inside = true;
    if (real_dir && real_file) {
        size_t n = strlen(real_dir);
        /* the folder itself counts as inside: reading it then says it is one */
        inside = strncmp(real_file, real_dir, n) == 0 &&
                 (real_file[n] == '/' || real_file[n] == '\0' || (n == 1 && real_dir[0] == '/'));
    }
    free(real_dir), free(real_file);
    return inside;
}

#else

uint8_t *sinew__read_file(const char *path, const sinew_allocator *alloc, size_t limit, size_t max_size,
                          size_t *size, sinew_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sinew__fail(err, SINEW_ERROR_IO, "%s", strerror(errno));
        return NULL;
    }
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        sinew__fail(err, SINEW_ERROR_IO, "not a file whose size can be read");
        fclose(f);
        return NULL;
    }
    if ((unsigned long)end > max_size) {
        sinew__fail(err, SINEW_ERROR_OUT_OF_MEMORY,
                    "%.1f MiB, more than the load's limit of %.1f MiB (sinew_options.max_memory)",
                    (double)end / 1048576.0, (double)max_size / 1048576.0);
        fclose(f);
        return NULL;
    }
    *size = (size_t)end;
    size_t want = *size < limit ? *size : limit;
    uint8_t *data = sinew__alloc(alloc, want ? want : 1);
    if (!data || (want && fread(data, 1, want, f) != want)) {
        sinew__fail(err, data ? SINEW_ERROR_IO : SINEW_ERROR_OUT_OF_MEMORY, data ? "cannot read it whole" :
                    "out of memory for its %zu bytes", want);
        sinew__free(alloc, data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return data;
}

bool sinew__path_inside(const char *dir, const char *file)
{
    (void)dir, (void)file;
    return true;
}

#endif
