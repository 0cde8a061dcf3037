/* SPDX-License-Identifier: MIT */
/* RGBA images for the pictures the tool writes: copying, labels in a small
 * built-in bitmap font, PNG files through libpng. */
#ifndef SINEW_CLI_IMAGE_H
#define SINEW_CLI_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_image {
    int width, height;
    uint8_t *rgba; /* rows top to bottom, 4 bytes per pixel */
} cli_image;

/* A width x height image filled with `rgb` (opaque); rgba NULL when out of
 * memory. Free with cli_image_free(). */
cli_image cli_image_new(int width, int height, const uint8_t rgb[3]);
void cli_image_free(cli_image *image);

/* Turns the image upside down in place (OpenGL reads pixels bottom row
 * first). */
void cli_image_flip_rows(cli_image *image);

/* Copies `src` into `dst` with its top-left corner at (x, y), clipped. */
void cli_image_blit(cli_image *dst, const cli_image *src, int x, int y);

/* Writes `text` with its top-left corner at (x, y), each font pixel
 * `scale` x `scale`, on a darkened box so that it reads on any background.
 * The font is font.h's (printable ASCII; anything else as '?'). */
void cli_image_text(cli_image *image, int x, int y, int scale, const uint8_t rgb[3], const char *text);

/* The width in pixels cli_image_text() gives `text`. */
int cli_image_text_width(const char *text, int scale);

/* Writes the image as an 8-bit RGBA PNG. Returns false with the reason in
 * `why` (why_size bytes). */
bool cli_image_write_png(const cli_image *image, const char *path, char *why, int why_size);

/* Reads an 8-bit RGBA PNG (any PNG, converted); rgba NULL on failure with
 * the reason in `why`. */
cli_image cli_image_read_png(const char *path, char *why, int why_size);

#endif
