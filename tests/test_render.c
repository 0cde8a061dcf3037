/* SPDX-License-Identifier: MIT */
/* `sinew render` through a real GL driver (Mesa's llvmpipe in CI), checked
 * on the pictures it writes: every frame shows a character (not blank, not
 * black), uncropped, the right way up and not mirrored (a heat map on the
 * head must be at the top, one on the left hand on the screen's right when
 * the character faces the camera), LBS and DQS side by side, one file per
 * frame, the sample characters. Skips, saying why, when no GL context can
 * be had. With XVFB_RUN it checks `sinew view` instead: a window under
 * Xvfb, keys pressed, frames drawn, a screenshot taken and checked the same
 * way, the animation layer played and its text drawn over the picture.
 * Usage: test_render SINEW_BINARY WORK_DIR [XVFB_RUN] */
#define _POSIX_C_SOURCE 200809L
#include "sinew/sinew.h"
#include "../programs/image.h"
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sinew_bin, *work;

/* Runs `sinew render ARGS`; returns its exit status. */
static int render(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' render %s > '%s/render.log' 2>&1", sinew_bin, args, work);
    int r = system(cmd);
    return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

static cli_image load(const char *name)
{
    char path[1024], why[300];
    snprintf(path, sizeof path, "%s/%s", work, name);
    cli_image im = cli_image_read_png(path, why, sizeof why);
    CHECK(im.rgba != NULL, "%s", why);
    return im;
}

static const uint8_t *px(const cli_image *im, int x, int y) { return &im->rgba[((size_t)y * (size_t)im->width + (size_t)x) * 4]; }

/* A pixel of the character: light grey surface (not the dark background,
 * the grid, or a label). */
static bool is_body(const uint8_t *p) { return p[0] > 120 && abs(p[0] - p[1]) < 20 && abs(p[1] - p[2]) < 24; }

/* A pixel of the heat map's hot end: red (not the orange of the joints). */
static bool is_hot(const uint8_t *p) { return p[0] > 120 && p[1] < 50 && p[2] < 50; }

/* A pixel of the heat map's cold end: blue. */
static bool is_cold(const uint8_t *p) { return p[2] > 100 && p[0] < 60; }

typedef struct region {
    int count, x0, y0, x1, y1;
    double cx, cy;
} region;

/* Pixels of the w x h cell at (x, y) that `pred` accepts: count, box, centroid. */
static region find(const cli_image *im, int x, int y, int w, int h, bool (*pred)(const uint8_t *))
{
    region r = {0, w, h, -1, -1, 0, 0};
    for (int yy = 0; yy < h; ++yy)
        for (int xx = 0; xx < w; ++xx)
            if (pred(px(im, x + xx, y + yy))) {
                ++r.count;
                r.cx += xx, r.cy += yy;
                if (xx < r.x0) r.x0 = xx;
                if (yy < r.y0) r.y0 = yy;
                if (xx > r.x1) r.x1 = xx;
                if (yy > r.y1) r.y1 = yy;
            }
    if (r.count) r.cx /= r.count, r.cy /= r.count;
    return r;
}

/* The demo's contact sheet: 8 frames of 160x160 in a 4 x 2 grid (cells at
 * 4 + i * 164, below a 30-pixel header); `more` adds options (the springs). */
static void check_sheet(const char *more, const char *name)
{
    char args[512];
    snprintf(args, sizeof args, "--frames 8 --size 160x160 --no-floor %s --out %s", more, name);
    CHECK(render(args) == 0, "sinew render %s runs", args);
    cli_image im = load(name);
    if (!im.rgba) return;
    CHECK(im.width == 4 * 160 + 5 * 4 && im.height == 30 + 2 * 160 + 3 * 4, "a 4 x 2 sheet: %dx%d", im.width,
          im.height);
    double mean = 0;
    for (size_t i = 0; i < (size_t)im.width * (size_t)im.height; ++i) mean += im.rgba[i * 4 + 1];
    mean /= (double)im.width * im.height;
    CHECK(mean > 10.0, "not black: mean green %.1f", mean);
    for (int i = 0; i < 8 && im.width == 660; ++i) {
        int x = 4 + (i % 4) * 164, y = 34 + (i / 4) * 164;
        region body = find(&im, x, y, 160, 160, is_body);
        CHECK(body.count > 160 * 160 / 40, "frame %d shows the character (%d pixels)", i, body.count);
        CHECK(body.x0 > 0 && body.y0 > 0 && body.x1 < 159 && body.y1 < 159,
              "frame %d is not cropped: box %d,%d to %d,%d", i, body.x0, body.y0, body.x1, body.y1);
        CHECK(body.y1 - body.y0 > 80, "frame %d: the character fills the frame's height (%d pixels)", i,
              body.y1 - body.y0);
    }
    cli_image_free(&im);
}

/* --springs: the ponytail, with gravity, hangs and swings away from where
 * the walk alone leaves it (seen from behind and aside, where it shows),
 * and the character is still drawn whole. */
static void check_springs(void)
{
    const char *view = "--times 0.125,0.5 --size 160x160 --no-floor --azimuth 110";
    char args[512];
    snprintf(args, sizeof args, "%s --out plain.png", view);
    CHECK(render(args) == 0, "sinew render %s runs", args);
    snprintf(args, sizeof args, "%s --springs --out sprung.png", view);
    CHECK(render(args) == 0, "sinew render %s runs", args);
    snprintf(args, sizeof args, "%s --springs --spring-dt 0.02 --out sprung2.png", view);
    CHECK(render(args) == 0, "sinew render %s runs", args);
    CHECK(render("--spring-dt 0.02 --out x.png") == 2, "--spring-dt without --springs is a usage error");
    cli_image a = load("plain.png"), b = load("sprung.png"), c = load("sprung2.png");
    if (a.rgba && b.rgba && c.rgba && a.width == b.width && a.height == b.height && a.width == c.width &&
        a.height == c.height) {
        long differ = 0, differ_dt = 0;
        for (size_t i = 0; i < (size_t)a.width * (size_t)a.height * 4; ++i) {
            differ += a.rgba[i] != b.rgba[i];
            differ_dt += b.rgba[i] != c.rgba[i];
        }
        CHECK(differ > 100, "--springs changes nothing drawn (%ld samples differ)", differ);
        CHECK(differ_dt > 0, "--spring-dt changes nothing drawn");
        /* the sheet is 2 x 1 cells; each shows the whole character */
        for (int i = 0; i < 2; ++i) {
            region body = find(&b, 4 + i * 164, 34, 160, 160, is_body);
            CHECK(body.count > 160 * 160 / 40 && body.x0 > 0 && body.y0 > 0 && body.x1 < 159 && body.y1 < 159,
                  "--springs frame %d shows the character whole (%d pixels)", i, body.count);
        }
    } else {
        CHECK(false, "the --springs pictures: %dx%d, %dx%d", a.width, a.height, b.width, b.height);
    }
    cli_image_free(&a), cli_image_free(&b), cli_image_free(&c);
}

/* Orientation from the front, in the bind pose: the head's weights at the
 * top of the body; the left hand's on the right of the screen. */
static void check_orientation(void)
{
    const char *joints[2] = {"head", "hand_l"};
    for (int k = 0; k < 2; ++k) {
        char args[256];
        snprintf(args, sizeof args, "--pose bind --frames 1 --azimuth 0 --elevation 0 --no-floor --size 200x200 "
                 "--weights %s --out orient.png", joints[k]);
        CHECK(render(args) == 0, "render --weights %s", joints[k]);
        cli_image im = load("orient.png");
        if (!im.rgba) continue;
        region hot = find(&im, 4, 34, 200, 200, is_hot), cold = find(&im, 4, 34, 200, 200, is_cold);
        CHECK(hot.count > 20 && cold.count > 2000, "%s: a heat map (%d hot, %d cold pixels)", joints[k], hot.count,
              cold.count);
        double mid_x = 0.5 * (cold.x0 + cold.x1), top = cold.y0 + 0.25 * (cold.y1 - cold.y0);
        if (k == 0)
            CHECK(hot.cy < top, "the head is at the top: hot at y %.0f, body %d to %d", hot.cy, cold.y0, cold.y1);
        else
            CHECK(hot.cx > mid_x + 0.25 * (cold.x1 - cold.x0),
                  "the left hand is on the screen's right: hot at x %.0f, body %d to %d", hot.cx, cold.x0, cold.x1);
        cli_image_free(&im);
    }
}

/* LBS and DQS side by side: both halves of the cell show the character,
 * bent differently at the joints. */
static void check_compare(void)
{
    CHECK(render("--compare lbs,dqs --times 0.3 --size 128x160 --no-floor --out compare.png") == 0,
          "render --compare lbs,dqs");
    cli_image im = load("compare.png");
    if (!im.rgba) return;
    CHECK(im.width == 2 * 128 + 2 * 4, "one cell of two methods: width %d", im.width);
    region body[2] = {{0}};
    for (int m = 0; m < 2 && im.width == 264; ++m) {
        body[m] = find(&im, 4 + m * 128, 34, 128, 160, is_body);
        CHECK(body[m].count > 300, "%s: the character (%d pixels)", m ? "DQS" : "LBS", body[m].count);
    }
    CHECK(body[0].count != body[1].count || body[0].cx != body[1].cx, "LBS and DQS differ somewhere");
    cli_image_free(&im);
}

/* The bones' colors: gold lines, orange-red joints. */
static bool is_bone(const uint8_t *p) { return p[0] > 200 && p[1] > 60 && p[1] < 215 && p[2] < 90; }

/* --skeleton draws the bones over the mesh; without it there are none. */
static void check_skeleton(void)
{
    int counts[2];
    for (int k = 0; k < 2; ++k) {
        CHECK(render(k ? "--times 0.2 --size 160x160 --no-floor --skeleton --out bones.png"
                       : "--times 0.2 --size 160x160 --no-floor --out bones.png") == 0,
              "render %s", k ? "--skeleton" : "without --skeleton");
        cli_image im = load("bones.png");
        counts[k] = im.rgba ? find(&im, 4, 34, 160, 160, is_bone).count : -1;
        cli_image_free(&im);
    }
    CHECK(counts[0] == 0 && counts[1] > 100, "bones only with --skeleton: %d without, %d with", counts[0],
          counts[1]);
}

/* --out DIR/: one labelled PNG per frame, of the given size. */
static void check_frames_folder(void)
{
    CHECK(render("--times 0,0.5,2.25 --loop --size 96x128 --skeleton --out frames/") == 0, "render --out frames/");
    for (int i = 0; i < 3; ++i) {
        char name[64];
        snprintf(name, sizeof name, "frames/frame_%03d.png", i);
        cli_image im = load(name);
        CHECK(im.width == 96 && im.height == 128, "%s is 96x128: %dx%d", name, im.width, im.height);
        cli_image_free(&im);
    }
}

static void check_errors(void)
{
    CHECK(render("--weights no_such_joint --out x.png") == 1, "an unknown joint fails");
    CHECK(render("--size 10x10") == 2, "a bad size is a usage error");
    CHECK(render("--frames 2 --times 1") == 2, "--frames and --times together");
    CHECK(render("--compare lbs") == 2, "--compare wants two");
    CHECK(render("/nonexistent.gltf") == 1, "a missing file fails");
}

/* The sample characters render with the character in every frame. */
static void check_assets(void)
{
    static const char *const files[] = {"gltf/cesium_man.gltf", "fbx/pab/arnaud.fbx", "collada/seymour.dae"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        char path[1024], args[1400];
        snprintf(path, sizeof path, "%s/%s", SINEW_ASSETS, files[i]);
        struct stat st;
        if (stat(path, &st) != 0) {
            printf("skip: %s is missing (the shared assets)\n", path);
            continue;
        }
        if (!SINEW_HAVE_ASSIMP && !strstr(files[i], "gltf")) {
            printf("skip: %s: the build reads no FBX or Collada (no Assimp)\n", files[i]);
            continue;
        }
        snprintf(args, sizeof args, "'%s' --frames 4 --size 128x128 --no-floor --out asset.png", path);
        CHECK(render(args) == 0, "render %s", files[i]);
        cli_image im = load("asset.png");
        for (int k = 0; k < 4 && im.rgba && im.width == 2 * 128 + 3 * 4; ++k) {
            int header = im.height - 2 * 128 - 3 * 4; /* a long title takes more than 30 */
            region body = find(&im, 4 + (k % 2) * 132, header + 4 + (k / 2) * 132, 128, 128, is_body);
            CHECK(body.count > 300 && body.y1 - body.y0 > 60, "%s frame %d shows the character (%d pixels, %d high)",
                  files[i], k, body.count, body.y1 - body.y0);
        }
        CHECK(im.width == 2 * 128 + 3 * 4, "%s: a 2 x 2 sheet (%d wide)", files[i], im.width);
        cli_image_free(&im);
    }
}

/* The animation layer: a crossfade and a synced blend show the character in
 * every frame (on the built-in character and on the pab character with
 * clips from three files); bad layer options fail with exit status 1.
 * test_cli_layer checks the numbers. */
static void check_layer(void)
{
    CHECK(render("--clip walk --crossfade idle,0.4,0.4 --frames 4 --size 128x128 --no-floor --out fade.png") == 0,
          "render --crossfade");
    cli_image im = load("fade.png");
    int header = im.rgba ? im.height - 2 * 128 - 3 * 4 : 0;
    CHECK(header >= 30, "the sheet has a header (%d pixels)", header);
    for (int k = 0; k < 4 && im.rgba && im.width == 2 * 128 + 3 * 4; ++k) {
        region body = find(&im, 4 + (k % 2) * 132, header + 4 + (k / 2) * 132, 128, 128, is_body);
        CHECK(body.count > 300, "crossfade frame %d shows the character (%d pixels)", k, body.count);
    }
    /* the title is longer than the sheet is wide: wrapped, not cut at the edge */
    int edge_ink = 0;
    for (int y = 0; y < header && im.rgba; ++y)
        for (int x = im.width - 4; x < im.width; ++x) edge_ink += px(&im, x, y)[0] > 200;
    CHECK(header > 30 && edge_ink == 0, "the long title wraps onto %d header pixels, %d ink pixels at the edge",
          header, edge_ink);
    cli_image_free(&im);

    char args[1400];
    CHECK(render("--blend walk,nope --out x.png") == 1, "--blend with an unknown clip fails");
    CHECK(render("--ik no_such_joint --out x.png") == 1, "--ik with an unknown joint fails");
    CHECK(render("--ik root --out x.png") == 1, "--ik on a joint without a two-bone chain fails");
    CHECK(render("--blend walk --crossfade idle --out x.png") == 1, "--blend and --crossfade together fail");
    CHECK(render("--blend walk=-1 --out x.png") == 1, "a negative blend weight fails");

    /* the pab clips from three files on the pab character, blended in sync */
    char pab[256];
    snprintf(pab, sizeof pab, "%s/fbx/pab", SINEW_ASSETS);
    struct stat st;
    if (stat(pab, &st) != 0 || !SINEW_HAVE_ASSIMP) {
        printf("skip: %s: %s\n", pab, SINEW_HAVE_ASSIMP ? "missing (the shared assets)" : "no Assimp in the build");
        return;
    }
    snprintf(args, sizeof args, "'%s/arnaud.fbx' --anim '%s/walk.fbx' --anim '%s/jog.fbx' --anim '%s/run.fbx' "
             "--blend walk=0.3,jog=0.4,run=0.3 --sync --ik LeftFoot+=0,15,0 --frames 4 --size 128x128 --no-floor "
             "--out pab_blend.png", pab, pab, pab, pab);
    CHECK(render(args) == 0, "render the pab blend");
    im = load("pab_blend.png");
    header = im.rgba ? im.height - 2 * 128 - 3 * 4 : 0;
    for (int k = 0; k < 4 && im.rgba && im.width == 2 * 128 + 3 * 4; ++k) {
        region body = find(&im, 4 + (k % 2) * 132, header + 4 + (k / 2) * 132, 128, 128, is_body);
        CHECK(body.count > 100, "pab blend frame %d shows the character (%d pixels)", k, body.count);
    }
    CHECK(im.width == 2 * 128 + 3 * 4, "pab blend: a 2 x 2 sheet (%d wide)", im.width);
    cli_image_free(&im);
}

/* Runs `sinew view ARGS` under xvfb-run; returns its exit status. Under
 * AddressSanitizer leak checking is off for it: Mesa's GLX driver leaks
 * 240 bytes when GLFW closes the X display, after unloading itself, so no
 * suppression can name it (the scene code it shares with render is
 * leak-checked by test_render, through EGL). */
static int view(const char *xvfb_run, const char *args)
{
    char cmd[2048];
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS='%s%sdetect_leaks=0' '%s' -a -s '-screen 0 1024x768x24' '%s' view %s > '%s/view.log' 2>&1",
             asan ? asan : "", asan && *asan ? ":" : "", xvfb_run, sinew_bin, args, work);
    int r = system(cmd);
    return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* The overlay's text colors (programs/view.c): light blue, and amber for
 * the layer's state and live springs; colors the scene never has. */
static bool near(const uint8_t *p, int r, int g, int b)
{
    return abs(p[0] - r) <= 6 && abs(p[1] - g) <= 6 && abs(p[2] - b) <= 6;
}
static bool is_text(const uint8_t *p) { return near(p, 150, 225, 255); }
static bool is_state_text(const uint8_t *p) { return near(p, 255, 220, 120); }

/* `sinew view` with the animation layer on the built-in character (a
 * crossfade with IK, a synced blend with an additive; springs on both):
 * it plays, and writes what plays over the picture in the top-left corner,
 * which o takes away. The text is found by its colors, not by a golden
 * picture. */
static void check_view_layer(const char *xvfb_run)
{
    static const struct {
        const char *args, *shot;
        bool overlay, state;
    } runs[] = {
        {"--crossfade idle,0.4,0.6 --ik hand_l --springs", "view_fade.png", true, true},
        {"--crossfade idle,0.4,0.6 --ik hand_l --springs --keys o", "view_fade_plain.png", false, false},
        {"--blend walk=0.5,idle=0.5 --sync --additive idle=0.5 --springs --spring-dt 0.02", "view_blend.png", true,
         true},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; ++k) {
        char args[512];
        snprintf(args, sizeof args, "%s --frames 20 --size 480x360 --screenshot %s", runs[k].args, runs[k].shot);
        int r = view(xvfb_run, args);
        CHECK(r == 0, "sinew view %s (exit %d, see view.log)", runs[k].args, r);
        cli_image im = load(runs[k].shot);
        if (!im.rgba) continue;
        int w = im.width, h = im.height;
        region corner = find(&im, 0, 0, w * 3 / 4, h / 3, is_text), all = find(&im, 0, 0, w, h, is_text);
        region state = find(&im, 0, 0, w * 3 / 4, h / 3, is_state_text);
        region body = find(&im, 0, 0, w, h, is_body);
        CHECK(body.count > 1500, "%s: the character shows (%d pixels)", runs[k].shot, body.count);
        if (runs[k].overlay) {
            CHECK(corner.count > 300 && corner.x0 < 20 && corner.y0 < 20,
                  "%s: text in the top-left corner (%d pixels from %d,%d)", runs[k].shot, corner.count, corner.x0,
                  corner.y0);
            CHECK(all.count == corner.count, "%s: text nowhere else (%d of %d pixels outside the corner)", runs[k].shot,
                  all.count - corner.count, all.count);
        } else {
            CHECK(all.count == 0, "%s: o hides the text (%d text pixels)", runs[k].shot, all.count);
        }
        CHECK(runs[k].state ? state.count > 50 : state.count == 0,
              "%s: the layer's state and the springs %s (%d pixels)", runs[k].shot,
              runs[k].state ? "show" : "do not show", state.count);
        cli_image_free(&im);
    }
    /* the layer poses what is drawn: the left hand raised by IK changes
     * the picture of the same frame */
    CHECK(view(xvfb_run, "--keys o --frames 20 --size 240x240 --screenshot view_walk.png") == 0 &&
              view(xvfb_run, "--ik hand_l+=0,0.6,0 --keys o --frames 20 --size 240x240 --screenshot view_ik.png") == 0,
          "sinew view with and without --ik (see view.log)");
    cli_image walk = load("view_walk.png"), ik = load("view_ik.png");
    if (walk.rgba && ik.rgba && walk.width == ik.width && walk.height == ik.height) {
        int differ = 0;
        for (int y = 0; y < walk.height; ++y)
            for (int x = 0; x < walk.width; ++x) differ += is_body(px(&walk, x, y)) != is_body(px(&ik, x, y));
        CHECK(differ > 200, "--ik moves the hand in the window (%d pixels differ)", differ);
    }
    cli_image_free(&walk), cli_image_free(&ik);
    CHECK(view(xvfb_run, "--clip none --crossfade idle --frames 1") == 1,
          "the layer without a clip to play fails before a window opens");
    CHECK(view(xvfb_run, "--blend") == 2, "--blend without its value is a usage error");
}

/* The window: skeleton on (k), the heat map stepped to the head (j x 5),
 * DQS (m), paused (space) and stepped (right), no floor (f); then the bind
 * pose (b) on the next clip (c). Each screenshot shows the character, the
 * right way up. */
static int check_view(const char *xvfb_run)
{
    if (access(xvfb_run, X_OK) != 0) {
        printf("skip: %s is missing (apt-get install xvfb xauth)\n", xvfb_run);
        return 77;
    }
    int r = view(xvfb_run, "--frames 20 --size 320x240 --keys 'k j j j j j m space right f' --screenshot view.png");
    CHECK(r == 0, "sinew view runs under Xvfb (exit %d, see view.log)", r);
    cli_image im = load("view.png");
    CHECK(im.width == 320 && im.height == 240, "the screenshot is the window: %dx%d", im.width, im.height);
    if (im.rgba) {
        region hot = find(&im, 0, 0, im.width, im.height, is_hot);
        region cold = find(&im, 0, 0, im.width, im.height, is_cold);
        region bones = find(&im, 0, 0, im.width, im.height, is_bone);
        CHECK(cold.count > 1000 && hot.count > 20, "the heat map shows (%d cold, %d hot pixels)", cold.count,
              hot.count);
        CHECK(hot.cy < cold.y0 + 0.25 * (cold.y1 - cold.y0), "the head's weights at the top: y %.0f in %d to %d",
              hot.cy, cold.y0, cold.y1);
        CHECK(bones.count > 50, "the skeleton shows (%d pixels)", bones.count);
    }
    cli_image_free(&im);
    r = view(xvfb_run, "--frames 5 --size 256x256 --keys 'c b f' --screenshot view_bind.png");
    CHECK(r == 0, "sinew view with the bind pose (exit %d)", r);
    im = load("view_bind.png");
    if (im.rgba) {
        region body = find(&im, 0, 0, im.width, im.height, is_body);
        CHECK(body.count > 1500 && body.x0 > 0 && body.x1 < 255, "the bind pose shows, uncropped (%d pixels)",
              body.count);
    }
    cli_image_free(&im);
    r = view(xvfb_run, "--springs --frames 20 --size 256x256 --keys 'right r f' --screenshot view_springs.png");
    CHECK(r == 0, "sinew view --springs (exit %d)", r);
    im = load("view_springs.png");
    if (im.rgba) {
        region body = find(&im, 0, 0, im.width, im.height, is_body);
        CHECK(body.count > 1500 && body.x0 > 0 && body.x1 < 255, "--springs: the character shows (%d pixels)",
              body.count);
    }
    cli_image_free(&im);
    check_view_layer(xvfb_run);
    CHECK(view(xvfb_run, "--keys 'bogus'") == 2, "an unknown key name is a usage error");
    return check_finish("test_view");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: test_render SINEW_BINARY WORK_DIR [XVFB_RUN]\n");
        return 2;
    }
    sinew_bin = argv[1], work = argv[2];
    if (chdir(work) != 0) return 2;
    if (argc == 4) return check_view(argv[3]);
    if (render("--frames 1 --size 32x32 --out probe.png") != 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/render.log", work);
        FILE *f = fopen(path, "r");
        char line[400] = "";
        if (f && fgets(line, sizeof line, f)) line[strcspn(line, "\n")] = 0;
        if (f) fclose(f);
        if (strstr(line, "sinew_gl_context_create")) {
            printf("skip: no OpenGL context: %s\n", line);
            return 77;
        }
        CHECK(false, "sinew render fails: %s", line);
        return check_finish("test_render");
    }
    check_sheet("", "sheet.png");
    check_sheet("--springs", "sheet_springs.png");
    check_springs();
    check_orientation();
    check_compare();
    check_skeleton();
    check_frames_folder();
    check_errors();
    check_assets();
    check_layer();
    return check_finish("test_render");
}
