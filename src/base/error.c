/* SPDX-License-Identifier: MIT */
/* The version, result names, error sentences and warnings. */
#include "base/base_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *sinew_version(void) { return SINEW_VERSION_STRING; }

const char *sinew_result_name(sinew_result result)
{
    switch (result) {
#define SINEW__RESULT_NAME(name, number, text) \
    case name: return #name;
        SINEW_RESULT_LIST(SINEW__RESULT_NAME)
#undef SINEW__RESULT_NAME
    }
    return "SINEW_UNKNOWN";
}

const char *sinew_result_text(sinew_result result)
{
    switch (result) {
#define SINEW__RESULT_TEXT(name, number, text) \
    case name: return text;
        SINEW_RESULT_LIST(SINEW__RESULT_TEXT)
#undef SINEW__RESULT_TEXT
    }
    return "unknown result";
}

sinew_result sinew__fail(sinew_error *err, sinew_result result, const char *fmt, ...)
{
    if (err) {
        err->result = result;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->description, sizeof err->description, fmt, ap);
        va_end(ap);
    }
    return result;
}

void sinew__error_lead(sinew_error *err, const char *who)
{
    if (!err || err->result == SINEW_OK) return;
    char sentence[sizeof err->description];
    snprintf(sentence, sizeof sentence, "%s", sinew__error_sentence(err->description));
    sinew__fail(err, err->result, "%s: %s", who, sentence);
}

static void log_at(const sinew_options *options, sinew_log_level level, const char *fmt, va_list ap)
{
    if (!options || !options->logger.log) return;
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    options->logger.log(options->logger.user, level, message);
}

void sinew__warn(const sinew_options *options, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_at(options, SINEW_LOG_WARNING, fmt, ap);
    va_end(ap);
}

void sinew__inform(const sinew_options *options, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_at(options, SINEW_LOG_INFO, fmt, ap);
    va_end(ap);
}

