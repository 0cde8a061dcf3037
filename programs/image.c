/* SPDX-License-Identifier: MIT */
/* RGBA images, labels, PNG files. */
#include "image.h"
#include "font.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cli_image cli_image_new(int width, int height, const uint8_t rgb[3])
{
    cli_image im = {width, height, NULL};
    if (width <= 0 || height <= 0) return im;
    im.rgba = malloc((size_t)width * (size_t)height * 4);
    if (!im.rgba) return im;
    for (size_t i = 0; i < (size_t)width * (size_t)height; ++i) {
        im.rgba[i * 4] = rgb[0], im.rgba[i * 4 + 1] = rgb[1], im.rgba[i * 4 + 2] = rgb[2];
        im.rgba[i * 4 + 3] = 255;
    }
    return im;
}

void cli_image_free(cli_image *image)
{
    free(image->rgba);
    image->rgba = NULL;
}

void cli_image_flip_rows(cli_image *im)
{
    size_t row = (size_t)im->width * 4;
    for (int y = 0; y < im->height / 2; ++y) {
        uint8_t *a = im->rgba + (size_t)y * row, *b = im->rgba + (size_t)(im->height - 1 - y) * row;
        for (size_t k = 0; k < row; ++k) {
            uint8_t t = a[k];
            a[k] = b[k], b[k] = t;
        }
    }
}

void cli_image_blit(cli_image *dst, const cli_image *src, int x, int y)
{
    for (int row = 0; row < src->height; ++row) {
        int dy = y + row;
        if (dy < 0 || dy >= dst->height) continue;
        int x0 = x < 0 ? -x : 0, x1 = x + src->width > dst->width ? dst->width - x : src->width;
        if (x1 <= x0) continue;
        memcpy(&dst->rgba[((size_t)dy * (size_t)dst->width + (size_t)(x + x0)) * 4],
               &src->rgba[((size_t)row * (size_t)src->width + (size_t)x0) * 4], (size_t)(x1 - x0) * 4);
    }
}

int cli_image_text_width(const char *text, int scale) { return (int)strlen(text) * FONT_ADVANCE * scale; }

static void blend_pixel(cli_image *im, int x, int y, const uint8_t rgb[3], int alpha)
{
    if (x < 0 || y < 0 || x >= im->width || y >= im->height) return;
    uint8_t *p = &im->rgba[((size_t)y * (size_t)im->width + (size_t)x) * 4];
    for (int k = 0; k < 3; ++k) p[k] = (uint8_t)((p[k] * (255 - alpha) + rgb[k] * alpha) / 255);
}

void cli_image_text(cli_image *im, int x, int y, int scale, const uint8_t rgb[3], const char *text)
{
    static const uint8_t shade[3] = {0, 0, 0};
    int w = cli_image_text_width(text, scale), pad = scale * 2;
    for (int yy = y - pad; yy < y + FONT_HEIGHT * scale + pad; ++yy)
        for (int xx = x - pad; xx < x + w + pad - scale; ++xx) blend_pixel(im, xx, yy, shade, 140);
    for (size_t i = 0; text[i]; ++i)
        for (int r = 0; r < FONT_HEIGHT; ++r)
            for (int c = 0; c < FONT_WIDTH; ++c)
                if (font_ink(text[i], c, r))
                    for (int sy = 0; sy < scale; ++sy)
                        for (int sx = 0; sx < scale; ++sx)
                            blend_pixel(im, x + ((int)i * FONT_ADVANCE + c) * scale + sx, y + r * scale + sy, rgb, 255);
}

/* ---- PNG ------------------------------------------------------------------ */

bool cli_image_write_png(const cli_image *im, const char *path, char *why, int why_size)
{
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)im->width;
    png.height = (png_uint_32)im->height;
    png.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&png, path, 0, im->rgba, im->width * 4, NULL)) {
        snprintf(why, (size_t)why_size, "%s: %s", path, png.message);
        png_image_free(&png);
        return false;
    }
    return true;
}

cli_image cli_image_read_png(const char *path, char *why, int why_size)
{
    cli_image im = {0, 0, NULL};
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path)) {
        snprintf(why, (size_t)why_size, "%s: %s", path, png.message);
        return im;
    }
    png.format = PNG_FORMAT_RGBA;
    im.width = (int)png.width;
    im.height = (int)png.height;
    im.rgba = malloc(PNG_IMAGE_SIZE(png));
    if (!im.rgba || !png_image_finish_read(&png, NULL, im.rgba, 0, NULL)) {
        snprintf(why, (size_t)why_size, "%s: %s", path, im.rgba ? png.message : "out of memory");
        png_image_free(&png);
        free(im.rgba);
        im.rgba = NULL;
    }
    return im;
}
