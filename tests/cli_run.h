/* SPDX-License-Identifier: MIT */
/* Test helper: the built `sinew` binary run through sh, its exit status,
 * stdout and stderr kept. */
#ifndef SINEW_TEST_CLI_RUN_H
#define SINEW_TEST_CLI_RUN_H

#include "read_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

typedef struct cli_result {
    int status; /* the exit status, -1 when it did not exit */
    char *out, *err; /* never NULL */
} cli_result;

/* Runs `SINEW COMMAND ARGS` (ARGS formatted; shell words) from folder
 * `cd` (NULL: where the test runs), with stdout and stderr to files in
 * `work`, and reads them back. Free with cli_result_free(). */
static inline cli_result cli_run_at(const char *sinew, const char *work, const char *cd, const char *command,
                                    const char *format, va_list ap)
{
    char args[2048], cmd[8192], out[1024], err[1024];
    int at = snprintf(args, sizeof args, "%s", command);
    vsnprintf(args + at, sizeof args - (size_t)at, format, ap);
    snprintf(out, sizeof out, "%s/cli.out", work);
    snprintf(err, sizeof err, "%s/cli.err", work);
    snprintf(cmd, sizeof cmd, "%s%s%s'%s' %s > '%s' 2> '%s'", cd ? "cd '" : "", cd ? cd : "", cd ? "' && " : "",
             sinew, args, out, err);
    int r = system(cmd);
    cli_result res = {WIFEXITED(r) ? WEXITSTATUS(r) : -1, NULL, NULL};
    size_t size;
    res.out = (char *)test_read_file(out, &size);
    res.err = (char *)test_read_file(err, &size);
    if (!res.out) res.out = calloc(1, 1);
    if (!res.err) res.err = calloc(1, 1);
    return res;
}

/* cli_run_at() from `work` when `in_work`, else from where the test runs. */
static inline cli_result cli_run(const char *sinew, const char *work, int in_work, const char *command, const char *format,
                                 va_list ap)
{
    return cli_run_at(sinew, work, in_work ? work : NULL, command, format, ap);
}

static inline void cli_result_free(cli_result *r)
{
    free(r->out), free(r->err);
}

#endif
