/* SPDX-License-Identifier: MIT */
/* Test helper: a whole file in memory. */
#ifndef SINEW_TEST_READ_FILE_H
#define SINEW_TEST_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (NUL-terminated, so text can be parsed as it is) and
 * their count, or NULL when it cannot be read. free() the result. */
static inline unsigned char *test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    unsigned char *data = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    if (data) data[got] = 0;
    *size = got;
    return data;
}

#endif
