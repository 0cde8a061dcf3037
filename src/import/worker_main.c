/* SPDX-License-Identifier: MIT */
/* sinew-import-worker: the wall's child as a program of its own, for a
 * caller too large to fork cheaply (a fork shares its memory copy-on-write
 * and its page tables are copied; a spawned program starts small whatever
 * the caller holds). Started by libsinew_import (wall.c), never by hand:
 *
 *   sinew-import-worker VERSION EXTENSION FILE_NAME WELD BUDGET CPU_SECONDS
 *   fd 3: the pipe its frames go down; fd 4: the file's bytes
 *
 * It maps the bytes, then runs what a fork of the caller runs
 * (sinew__wall_child): the limits, the import, the frames. A worker of
 * another version than the caller's library (an older one left installed)
 * answers with an error frame instead: the frames are not a stable format. */
#define _XOPEN_SOURCE 700
#include "import/wall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "sinew-import-worker: started by libsinew_import, not by hand\n");
        return 2;
    }
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH);
    if (strcmp(argv[1], version) != 0) {
        sinew__frames f = {0};
        char sentence[160];
        snprintf(sentence, sizeof sentence, "the worker program is sinew %s, the library %.32s: install them together",
                 version, argv[1]);
        sinew__frames_begin(&f);
        sinew__frames_error(&f, SINEW_ERROR_UNSUPPORTED, sentence);
        sinew__frames_seal(&f);
        if (f.failed || write(3, f.bytes, f.size) != (ssize_t)f.size) return 3;
        return 0;
    }
    ++argv; /* the rest as a fork of the caller is given them */
    /* the bytes where they lie, not copied: their file is already one copy
     * beside the caller's, and the load's limit counts both */
    struct stat st;
    if (fstat(4, &st) != 0 || st.st_size <= 0) return 3;
    size_t size = (size_t)st.st_size;
    void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, 4, 0);
    if (data == MAP_FAILED) return 3;
    close(4);
    sinew_load_options options = {.weld_vertices = argv[3][0] == '1'};
    size_t budget = (size_t)strtoull(argv[4], NULL, 10);
    unsigned cpu_seconds = (unsigned)strtoul(argv[5], NULL, 10);
    sinew__wall_child(3, data, size, argv[1], argv[2], &options, budget, cpu_seconds);
}
