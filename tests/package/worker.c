/* SPDX-License-Identifier: MIT */
/* Loads a file through Assimp's worker program (assimp_process WORKER),
 * built against an installed sinew (scripts/test-package), which moves the
 * installed tree first: the library must find the worker where it is now.
 *
 *   worker FILE WORKER   prints "ok" when the load succeeds and the
 *                        library says that WORKER ran it
 *   worker FILE -        prints "ok" when the load fails, saying where
 *                        it looked for the worker */
#include "sinew/sinew_asset.h"
#include "sinew/sinew_import.h"

#include <stdio.h>
#include <string.h>

static char said[1024];

/* The library's info lines, the one that names the child kept. */
static void keep(void *user, sinew_log_level level, const char *message)
{
    (void)user;
    printf("%s: %s\n", level == SINEW_LOG_INFO ? "info" : "warning", message);
    if (level == SINEW_LOG_INFO && strstr(message, "Assimp runs in")) snprintf(said, sizeof said, "%s", message);
}

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: worker FILE WORKER|-\n"), 2;
    sinew_load_options options = {.base = {.logger = {keep, NULL}}, .assimp_process = SINEW_ASSIMP_PROCESS_WORKER};
    sinew_error err = {0};
    sinew_asset *a = sinew_load_file(argv[1], &options, &err);
    int ok;
    if (strcmp(argv[2], "-") == 0) {
        ok = !a && strstr(err.description, "worker program is not found") && strstr(err.description, "looked in ");
        printf("%s: %s\n", ok ? "ok" : "FAILED", a ? "loaded, where no worker should be found" : err.description);
    } else {
        char expected[1100];
        snprintf(expected, sizeof expected, "in the worker %s", argv[2]);
        const char *at = strstr(said, expected);
        ok = a && at && at[strlen(expected)] == '\0';
        if (ok)
            printf("ok: %d joints, %d clip(s); %s\n", a->skeleton->joint_count, a->clip_count, said);
        else
            printf("FAILED: %s (the library said: \"%s\", not %s)\n", a ? "loaded" : err.description, said,
                   expected);
    }
    sinew_asset_free(a);
    return ok ? 0 : 1;
}
