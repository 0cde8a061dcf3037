/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Runs a libFuzzer harness over saved inputs without libFuzzer, so that
 * every build (gcc included, sanitizers when asked) replays the seed and
 * regression corpora: replay FILE_OR_DIR... Prints how many inputs ran. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../read_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    size_t size;
    unsigned char *data = test_read_file(path, &size);
    if (!data) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

static int run(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s is missing\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return run_file(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        int r = run(child);
        if (r < 0) {
            closedir(d);
            return r;
        }
        count += r;
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; ++i) {
        int r = run(argv[i]);
        if (r < 0) return 1;
        total += r;
    }
    printf("replay: %d inputs ran without a crash\n", total);
    return 0;
}
