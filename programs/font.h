/* SPDX-License-Identifier: MIT */
/* A 5x7 bitmap font of printable ASCII (upper and lower case), drawn for
 * the sinew tool, for text that a GL window draws itself: no font file, no
 * font library. Each glyph sits in a 6x9 cell (a column and two rows of
 * space) so that lines and letters stay apart at any whole scale. */
#ifndef SINEW_CLI_FONT_H
#define SINEW_CLI_FONT_H

#include <stdbool.h>

enum {
    FONT_WIDTH = 5,   /* ink columns of a glyph */
    FONT_HEIGHT = 7,  /* ink rows (descenders included) */
    FONT_ADVANCE = 6, /* from one character to the next */
    FONT_LINE = 9,    /* from one line to the next */
};

/* Whether font pixel (x, y) of `c` is ink, x from the left, y from the
 * top. Characters outside printable ASCII are drawn as '?'. */
bool font_ink(char c, int x, int y);

#endif
