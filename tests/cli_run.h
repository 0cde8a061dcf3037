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

#if defined(_XOPEN_SOURCE) && _XOPEN_SOURCE >= 600
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* Runs `SINEW ARGS` from folder `cd` with stderr on a pseudo-terminal
 * (stdout to /dev/null) and returns what it wrote there (malloc'ed); NULL
 * without a pseudo-terminal. For tests that define _XOPEN_SOURCE 600. */
static inline char *cli_run_on_terminal(const char *sinew, const char *cd, const char *args)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        if (master >= 0) close(master);
        return NULL;
    }
    const char *slave = ptsname(master);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' %s > /dev/null", cd, sinew, args);
    pid_t pid = slave ? fork() : -1;
    if (pid == 0) {
        setsid();
        int fd = open(slave, O_RDWR);
        if (fd < 0) _exit(127);
        dup2(fd, STDERR_FILENO);
        close(fd);
        close(master);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (pid < 0) {
        close(master);
        return NULL;
    }
    size_t size = 0, cap = 4096;
    char *text = (char *)malloc(cap);
    for (;;) {
        if (size + 1024 > cap) text = (char *)realloc(text, cap *= 2);
        ssize_t n = read(master, text + size, 1024);
        if (n > 0)
            size += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break; /* EIO: the child and its terminal are gone */
    }
    text[size] = '\0';
    close(master);
    int status;
    waitpid(pid, &status, 0);
    return text;
}
#endif

#endif
