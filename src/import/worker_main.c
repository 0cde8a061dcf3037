/* sinew-import-worker: the wall's child as a program of its own, for a
 * caller too large to fork cheaply (a fork shares its memory copy-on-write
 * and its page tables are copied; a spawned program starts small whatever
 * the caller holds). Started by libsinew_import (wall.c), never by hand:
 *
 *   sinew-import-worker EXTENSION FILE_NAME WELD BUDGET CPU_SECONDS
 *   fd 3: the pipe its frames go down; fd 4: the file's bytes
 *
 * It reads the bytes, then runs what a fork of the caller runs
 * (sinew__wall_child): the limits, the import, the frames. */
#define _XOPEN_SOURCE 700 /* pread */
#include "import/wall.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "sinew-import-worker: started by libsinew_import, not by hand\n");
        return 2;
    }
    struct stat st;
    if (fstat(4, &st) != 0 || st.st_size < 0) return 3;
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *data = malloc(size ? size : 1);
    if (!data) return 3;
    while (got < size) {
        ssize_t n = pread(4, data + got, size - got, (off_t)got);
        if (n <= 0) return 3;
        got += (size_t)n;
    }
    close(4);
    sinew_load_options options = {.weld_vertices = argv[3][0] == '1'};
    size_t budget = (size_t)strtoull(argv[4], NULL, 10);
    unsigned cpu_seconds = (unsigned)strtoul(argv[5], NULL, 10);
    sinew__wall_child(3, data, size, argv[1], argv[2], &options, budget, cpu_seconds);
}
