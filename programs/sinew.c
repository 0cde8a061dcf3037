/* SPDX-License-Identifier: MIT */
/* The sinew command-line tool: a client of the public API only. */
#define _POSIX_C_SOURCE 200112L
#include "cli.h"
#include "layer.h"
#include "sinew/sinew_archive.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ---- help --------------------------------------------------------------- */

/* `sinew --help` is an overview: the commands one line each and the
 * options every command shares. `sinew help COMMAND` (and `sinew COMMAND
 * --help`) is that command's usage, what it does in a few lines, and its
 * options one a line, as gltfpack and zstd print theirs. */

typedef struct help_option {
    const char *name; /* "-o, --out OUT" */
    const char *text; /* one line */
} help_option;

static const help_option info_options[] = {
    {"--quiet", "one line: joints, clips, meshes, vertices"},
    {"--json", "JSON: joints and rest transforms, clips, meshes and their skins' influences, springs"},
    {NULL, NULL},
};

static const help_option bake_options[] = {
    {"--times T1,T2,...", "the times in seconds (required; past the clip's end: its end)"},
    {"--anim CLIPFILE", "play CLIPFILE's clips, retargeted by joint name (repeatable)"},
    {"--clip INDEX|NAME|none", "the clip played (default: the first)"},
    {"--loop", "times past the clip's end wrap around"},
    {"--method lbs|dqs", "linear (default) or dual-quaternion skinning"},
    {"--json OUT", "write the JSON to OUT (default: stdout)"},
    {"--up y|z", "the up axis root motion turns about (default y)"},
    {"--springs", "simulate the file's spring bones from the clip's start (after the layer)"},
    {"--spring-dt S", "their fixed step in seconds (default 1/60): time t is floor(t/S) steps"},
    {"--events FILE", "the clips' events from FILE ({\"clips\": {\"NAME\": [{\"name\", \"time\"}]}})"},
    {NULL, NULL},
};

static const help_option layer_options[] = {
    {"--blend CLIP[=W],...", "play clips together by weight"},
    {"--sync", "blended clips keep their cycles in phase"},
    {"--crossfade CLIP[,START[,S]]", "fade from --clip to CLIP at START s (half the clip) over S s (0.5)"},
    {"--additive CLIP[=W]", "add CLIP's difference from its first frame"},
    {"--ik JOINT[=X,Y,Z|+=DX,DY,DZ]", "two-bone IK: pin JOINT where it is at 0 s, or move it (repeatable)"},
    {"--in-place", "take root motion out (default: the character carries it)"},
    {NULL, NULL},
};

static const help_option bench_options[] = {
    {"--anim CLIPFILE", "time CLIPFILE's clips, retargeted by joint name (repeatable)"},
    {"--clip INDEX|NAME", "the clip timed (default: the first)"},
    {"--threads N", "skin over N threads (default 1)"},
    {"--simd auto|scalar|avx2|avx512", "the kernels' SIMD level (default auto: the best this CPU runs)"},
    {"--json OUT", "write the figures to OUT as JSON too"},
    {"--copies K", "skin K copies of the mesh end to end as one"},
    {"--shell D", "measure clip errors D units from each joint (default 0.03)"},
    {"--bound B", "compress the clip to within B there (default D / 300)"},
    {NULL, NULL},
};

static const help_option render_options[] = {
    {"--out SHEET.png|DIR/", "a contact sheet, or one PNG a frame in DIR/ (default sinew-render.png)"},
    {"--anim CLIPFILE", "play CLIPFILE's clips, retargeted by joint name (repeatable)"},
    {"--clip INDEX|NAME|none", "the clip played (default: the first)"},
    {"--frames N", "N frames across the clip (default 8)"},
    {"--times T1,T2,...", "frames at these times in seconds instead"},
    {"--loop", "times past the clip's end wrap around"},
    {"--size WxH", "one frame's size (default 320x320)"},
    {"--method lbs|dqs", "linear (default) or dual-quaternion skinning"},
    {"--compare lbs,dqs", "each frame skinned both ways, side by side"},
    {"--weights JOINT", "color each vertex by JOINT's weight"},
    {"--pose animated|bind|rest", "the pose drawn (bind and rest: a turntable)"},
    {"--skeleton", "draw the joints and bones over the mesh"},
    {"--no-floor", "no floor grid"},
    {"--azimuth DEG", "the camera's angle about the up axis"},
    {"--elevation DEG", "the camera's angle above the floor (-89 to 89)"},
    {"--up y|z", "the file's up axis (default y)"},
    {"--springs", "simulate the spring bones from the clip's start, as bake does"},
    {"--spring-dt S", "their fixed step in seconds (default 1/60)"},
    {NULL, NULL},
};

static const help_option view_options[] = {
    {"--anim CLIPFILE", "play CLIPFILE's clips, retargeted by joint name"},
    {"--clip INDEX|NAME|none", "the clip played first (default: the first)"},
    {"--method lbs|dqs", "linear (default) or dual-quaternion skinning"},
    {"--weights JOINT", "color each vertex by JOINT's weight"},
    {"--skeleton", "draw the joints and bones over the mesh"},
    {"--size WxH", "the window's size"},
    {"--up y|z", "the file's up axis (default y)"},
    {"--frames N", "draw N frames (1/30 s each), then exit"},
    {"--keys 'K1 K2 ...'", "press these keys first"},
    {"--screenshot OUT.png", "save the last frame"},
    {"--springs", "simulate the spring bones as the clip or the layer plays (r restarts them)"},
    {"--spring-dt S", "their fixed step in seconds (default 1/60)"},
    {NULL, NULL},
};

static const help_option convert_options[] = {
    {"-o, --out OUT.sinew|DIR", "the archive; a folder (DIR/, or one that exists) for several"},
    {"-o, --out OUT.glb|OUT.gltf", "glTF 2.0 instead: one .glb, or .gltf with a .bin (docs/GLTF_OUT.md)"},
    {"--weights TYPE", "glTF skin weights: float (default), unorm8 or unorm16"},
    {"--quantize", "glTF meshes in KHR_mesh_quantization's small types (16-bit positions)"},
    {"--meshopt", "glTF vertex and index data compressed with EXT_meshopt_compression (lossless)"},
    {"--resample HZ", "glTF clips sampled HZ times a second into LINEAR tracks; prints each one's error"},
    {"--influences N", "glTF skins keep each vertex's N largest weights (three.js skins 4)"},
    {"--keep-units", "glTF in the file's units (default: scaled to meters, --unit's factor)"},
    {"--keep-axes", "glTF in the file's declared axes (default: an FBX file's turned to Y up)"},
    {"-j, --jobs N", "convert N files at a time (default 1)"},
    {"--keep-extension", "in a folder, name outputs walk.fbx.sinew (default walk.sinew)"},
    {"--name NAME", "the asset's name in the archive (default: FILE's name, no folders)"},
    {"--anim CLIPFILE", "take the clips of CLIPFILE, retargeted by joint name (repeatable)"},
    {"--optimize", "reduce constant tracks to one key (within 1e-5)"},
    {"--pack", "store keys in 16 bits (sinew_clip_pack; a clip it cannot take stays)"},
    {"--compress [BOUND]", "no vertex 3 cm from a joint moves more than BOUND cm (0.01)"},
    {"--unit M", "meters a unit of the file (default: the unit it declares, else FBX 0.01, else 1); glTF output "
                 "is scaled by it"},
    {"--clips-only", "the skeleton and clips, no meshes"},
    {"--prepare", "store each skin's SIMD blocks too (larger file, faster load)"},
    {NULL, NULL},
};

static const help_option vat_options[] = {
    {"-o, --out OUT", "write OUT.json and OUT.positions.png, OUT.normals.png (required)"},
    {"--anim CLIPFILE", "play CLIPFILE's clips, retargeted by joint name (repeatable)"},
    {"--clip INDEX|NAME|none", "the clip baked (default: the first)"},
    {"--fps F", "frames per second, rounded to tile the clip exactly (default 30)"},
    {"--mesh N", "the mesh baked (default: the first skinned one)"},
    {"--float", "float32 .bin files instead of 16-bit PNGs"},
    {"--method lbs|dqs", "linear (default) or dual-quaternion skinning"},
    {"--up y|z", "the up axis root motion turns about (default y)"},
    {"--springs", "simulate the spring bones from the clip's start, as bake does"},
    {"--spring-dt S", "their fixed step in seconds (default 1/60)"},
    {NULL, NULL},
};

/* What every command that reads files takes. */
static const help_option file_options[] = {
    {"--scene N", "glTF: the meshes of scenes[N] (default: the file's default scene)"},
    {"--weld", "merge identical vertices (Assimp formats)"},
    {"--order-vertices", "sort each skinned mesh's vertices by their joints (faster CPU skinning)"},
    {"--formats LIST", "other formats Assimp may read, by extension (obj,ply; '*': all)"},
    {"--accept-partial", "load what Assimp read of a file it read only in part, with a warning"},
    {"--max-memory MIB", "the most memory one load may use (default 512)"},
    {"-v, --verbose", "print what loading does too (which process ran Assimp)"},
    {NULL, NULL},
};

static const char help_file[] =
    "FILE is any file sinew reads, told apart by its content: glTF (JSON or binary), a\n"
    ".sinew archive, or FBX, Collada and BVH through Assimp in a process of its own;\n"
    "without FILE, the built-in character.\n";

static const char help_exit[] =
    "exit status: 0 success, 1 failed (the reason is on stderr), 2 usage error\n";

static int cmd_info(int argc, char **argv);
static int cmd_demo(int argc, char **argv);

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;          /* one line, for the overview */
    const char *usage;            /* after "usage: sinew " */
    const char *about;            /* what it does, a few lines */
    const help_option *options;   /* its own, or NULL */
    bool reads_files, layer;      /* takes file_options; layer_options */
} cli_command;

static const cli_command commands[] = {
    {"demo", cmd_demo, "play the built-in character through the CPU pipeline, timed", "demo",
     "Play the built-in character through the whole CPU pipeline (sampling, local to\n"
     "model, palette, LBS and DQS skinning) and the animation layer; print what it did\n"
     "and how long each stage took at the SIMD level this CPU runs.\n",
     NULL, false, false},
    {"info", cmd_info, "print a file's skeleton, clips and meshes (text, one line or JSON)", "info [FILE] [options]",
     "Print FILE's skeleton tree, clips (keys, or how they are packed or compressed) and\n"
     "meshes (attributes, bounds, the skin's influences per vertex).\n",
     info_options, true, false},
    {"bake", cli_bake, "write poses and skinned vertices at given times as JSON",
     "bake [FILE] --times T1,T2,... [options]",
     "Write, per time, every node's world matrix and the world-space positions and\n"
     "normals of every mesh primitive, as JSON (docs/BAKE.md).\n",
     bake_options, true, true},
    {"vat", cli_vat, "bake a mesh's animation into vertex animation textures for crowds",
     "vat [FILE] -o OUT [options]",
     "Skin one mesh as bake does at evenly spaced frames across the clip and write them\n"
     "as textures (docs/VAT.md) that shaders/sinew_vat.vert plays: OUT.json, positions\n"
     "and octahedral normals as 16-bit PNGs; print the error of mixing two frames.\n",
     vat_options, true, true},
    {"bench", cli_bench, "time the runtime's kernels on one character", "bench [FILE] [options]",
     "Time sampling, local to model, palette, LBS and DQS skinning, blends and two-bone\n"
     "IK on one character, per call, the median of 15 batches (docs/BENCHMARKS.md).\n",
     bench_options, true, false},
    {"render", cli_render, "draw a file skinned on the GPU into PNG, without a window", "render [FILE] [options]",
     "Draw FILE skinned on the GPU, without a window: a contact sheet of frames across\n"
     "the clip (or the blend, the crossfade), or one PNG a frame.\n",
     render_options, true, true},
    {"view", cli_view, "a window on a file: play, scrub, LBS/DQS, weight maps", "view [FILE] [options]",
     "A window on FILE playing its clip, or the animation layer as render draws it:\n"
     "space play/pause, left/right step, c clip, +/- speed, m LBS/DQS, k skeleton,\n"
     "w and j (or a click on a joint) weight map, b animated/bind/rest, f floor,\n"
     "r restart the springs, o the text over the picture (file, clip or layer and\n"
     "its state, springs, fps), s screenshot, q quit; drag to orbit, scroll to zoom.\n",
     view_options, true, true},
    {"convert", cli_convert, "convert files into .sinew archives for a game, or into glTF",
     "convert [FILE...] -o OUT.sinew|OUT.glb|OUT.gltf|DIR/ [options]",
     "Convert files into archives (docs/ARCHIVE.md) that every command and\n"
     "sinew_archive_load read without a parser; without FILE, the built-in character.\n"
     "The same FILE gives the same bytes wherever it lies. A file that fails (even one\n"
     "that crashes the importer) fails alone: the others are written, each failure is\n"
     "named, and the exit status is 1. -v tells each file's sizes.\n",
     convert_options, true, false},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static const cli_command *find_command(const char *name)
{
    for (int c = 0; c < COMMAND_COUNT; ++c)
        if (strcmp(commands[c].name, name) == 0) return &commands[c];
    return NULL;
}

/* "title:" then one option a line, the texts in one column. */
static void print_options(FILE *f, const char *title, const help_option *o)
{
    int width = 0;
    for (const help_option *x = o; x->name; ++x)
        if ((int)strlen(x->name) > width) width = (int)strlen(x->name);
    fprintf(f, "\n%s:\n", title);
    for (; o->name; ++o) fprintf(f, "  %-*s  %s\n", width, o->name, o->text);
}

static void print_overview(FILE *f)
{
    fputs("usage: sinew [-v] [--formats LIST] [--accept-partial] [--max-memory MIB] COMMAND [ARGS...]\n"
          "\n"
          "Skeletal animation and skinning: sample clips, pose skeletons, skin meshes.\n"
          "\n"
          "commands:\n", f);
    for (int c = 0; c < COMMAND_COUNT; ++c) fprintf(f, "  %-9s %s\n", commands[c].name, commands[c].summary);
    fprintf(f, "  %-9s %s\n", "help", "print this, or a command's options: sinew help COMMAND");
    static const help_option common[] = {
        {"-h, --help", "print help and exit (after a command: that command's)"},
        {"--version", "print the version and exit"},
        {"-v, --verbose", "print what loading does too (which process ran Assimp)"},
        {"--formats LIST", "other formats Assimp may read, by extension (obj,ply; '*': all)"},
        {"--accept-partial", "load what Assimp read of a file it read only in part, with a warning"},
        {"--max-memory MIB", "the most memory one load may use (default 512)"},
        {NULL, NULL},
    };
    print_options(f, "options", common);
    fprintf(f, "\n%sAn option's value is the next argument or follows '=' (--times=0,0.5); progress\n"
               "is shown on stderr when it is a terminal.\n\n%s", help_file, help_exit);
}

bool cli_print_help(FILE *f, const char *name)
{
    if (!name) {
        print_overview(f);
        return true;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        fprintf(f, "usage: sinew help [COMMAND]\n\nPrint the overview of the commands, or COMMAND's usage and "
                   "options (as sinew\nCOMMAND --help does).\n\n%s", help_exit);
        return true;
    }
    const cli_command *c = find_command(name);
    if (!c) return false;
    fprintf(f, "usage: sinew %s\n\n%s", c->usage, c->about);
    if (c->options) print_options(f, "options", c->options);
    if (c->layer) print_options(f, "animation layer options", layer_options);
    if (c->reads_files) {
        print_options(f, "file options", file_options);
        fprintf(f, "\n%s", help_file);
    }
    fprintf(f, "\n%s", help_exit);
    return true;
}

/* ---- arguments ---------------------------------------------------------- */

cli_args cli_args_begin(const char *command, int argc, char **argv)
{
    return (cli_args){command, argc, argv, -1, EXIT_OK};
}

const char *cli_next(cli_args *p)
{
    if (p->status != EXIT_OK || p->i + 1 >= p->argc) return NULL;
    return p->argv[++p->i];
}

int cli_usage(cli_args *p, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "sinew: %s: ", p->command);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    return p->status = EXIT_USAGE;
}

int cli_bad_value(cli_args *p, const char *option, const char *value, const char *why, ...)
{
    va_list ap;
    va_start(ap, why);
    fprintf(stderr, "sinew: %s: %s: \"%s\" ", p->command, option, value);
    vfprintf(stderr, why, ap);
    fputc('\n', stderr);
    va_end(ap);
    return p->status = EXIT_USAGE;
}

/* Whether `arg` is option `name`, or `name=...` (then *value is what follows). */
static bool is_option(const char *arg, const char *name, const char **value)
{
    size_t n = strlen(name);
    *value = NULL;
    if (strncmp(arg, name, n) != 0) return false;
    if (arg[n] == '=') *value = arg + n + 1;
    /* a short option's value may follow it directly, as in make and zstd: -j4 */
    if (n == 2 && name[1] != '-' && arg[n] && arg[n] != '=') *value = arg + n;
    return arg[n] == '\0' || *value;
}

bool cli_flag(cli_args *p, const char *name)
{
    const char *value;
    if (p->status != EXIT_OK || !is_option(p->argv[p->i], name, &value)) return false;
    if (value) {
        cli_usage(p, "%s takes no value (\"%s\")", name, p->argv[p->i]);
        return false;
    }
    return true;
}

const char *cli_value(cli_args *p, const char *name)
{
    const char *value;
    if (p->status != EXIT_OK || !is_option(p->argv[p->i], name, &value)) return NULL;
    if (value) return value;
    /* the next argument, unless there is none or it is another option */
    if (p->i + 1 >= p->argc || strncmp(p->argv[p->i + 1], "--", 2) == 0) {
        cli_usage(p, "%s needs a value", name);
        return NULL;
    }
    return p->argv[++p->i];
}

void cli_unknown(cli_args *p)
{
    if (p->status != EXIT_OK) return;
    const char *arg = p->argv[p->i];
    if (arg[0] == '-' && arg[1])
        cli_usage(p, "unknown option %s", arg);
    else
        cli_usage(p, "unexpected argument \"%s\"", arg);
    fprintf(stderr, "sinew: see sinew help %s\n", p->command);
}

/* ---- progress ----------------------------------------------------------- */

cli_progress cli_progress_begin(void)
{
    return (cli_progress){isatty(STDERR_FILENO) != 0, 0};
}

void cli_progress_show(cli_progress *p, const char *command, const char *format, ...)
{
    if (!p->on) return;
    char text[160];
    int n = snprintf(text, sizeof text, "sinew: %s: ", command);
    va_list ap;
    va_start(ap, format);
    if (n >= 0 && n < (int)sizeof text) vsnprintf(text + n, sizeof text - (size_t)n, format, ap);
    va_end(ap);
    int len = (int)strlen(text);
    /* over the last line, padded where it was longer */
    fprintf(stderr, "\r%s%*s", text, p->shown > len ? p->shown - len : 0, "");
    if (p->shown > len) fprintf(stderr, "\r%s", text);
    fflush(stderr);
    p->shown = len;
}

void cli_progress_clear(cli_progress *p)
{
    if (!p->on || !p->shown) return;
    fprintf(stderr, "\r%*s\r", p->shown, "");
    fflush(stderr);
    p->shown = 0;
}

/* ---- loading ------------------------------------------------------------ */

bool cli_verbose;
const char *cli_command_name = "sinew";

/* Whether `message` names `file` already: it holds the path as given, or
 * starts with the file's name ("walk.fbx: Assimp runs in ..."). */
static bool names_file(const char *message, const char *file)
{
    if (strstr(message, file)) return true;
    const char *slash = strrchr(file, '/'), *name = slash ? slash + 1 : file;
    size_t n = strlen(name);
    return strncmp(message, name, n) == 0 && message[n] == ':';
}

void cli_log(const char *file, sinew_log_level level, const char *message)
{
    if (level == SINEW_LOG_INFO && !cli_verbose) return;
    bool named = !file || names_file(message, file);
    fprintf(stderr, "sinew: %s: %s%s%s\n", level == SINEW_LOG_WARNING ? "warning" : cli_command_name,
            named ? "" : file, named ? "" : ": ", message);
}

/* The library's logger: `user` is the file loaded (NULL: none). */
static void log_to_stderr(void *user, sinew_log_level level, const char *message)
{
    cli_log(user, level, message);
}

static const sinew_options cli_options = {.logger = {log_to_stderr, NULL}};

/* --formats LIST: formats Assimp may read besides FBX, Collada and BVH, for
 * every file the command loads (FILE and each --anim). */
static const char *cli_formats;
/* --accept-partial and --max-memory MIB, for every file too (0: the
 * library's default limit) */
static bool cli_accept_partial;
static size_t cli_max_memory;

/* The value of --max-memory: whole MiB, 1 to 1048576 (1 TiB). */
static bool parse_mib(const char *text, size_t *bytes)
{
    int mib;
    if (!cli_parse_int(text, 1, 1048576, &mib)) return false;
    *bytes = (size_t)mib << 20;
    return true;
}

void cli_load_options(sinew_load_options *load, const char *path)
{
    load->base = cli_options;
    load->base.logger.user = (void *)path;
    load->base.max_memory = cli_max_memory;
    load->assimp_formats = cli_formats;
    load->accept_partial = load->accept_partial || cli_accept_partial;
}

sinew_asset *cli_load_asset(const char *command, const char *path, const sinew_load_options *load)
{
    sinew_error err = {0};
    if (path) {
        sinew_load_options lo = load ? *load : (sinew_load_options){0};
        cli_load_options(&lo, path);
        sinew_asset *a = sinew_load_file(path, &lo, &err);
        if (!a) fprintf(stderr, "sinew: %s: %s\n", command, err.description);
        return a;
    }
    sinew_asset *a = sinew_demo_create(&cli_options, &err);
    if (!a) fprintf(stderr, "sinew: %s: built-in character: %s\n", command, err.description);
    return a;
}

/* A joint for messages: "name", or for a joint without one "joint N". */
static void put_joint(char *buf, size_t size, const sinew_skeleton *sk, int j)
{
    if (sk->names[j][0])
        snprintf(buf, size, "\"%s\"", sk->names[j]);
    else
        snprintf(buf, size, "joint %d", j);
}

/* Up to `max` joints of `which` for messages, then ", ..." when there are
 * more. */
static void joint_list(char *buf, size_t size, const sinew_skeleton *sk, const int *which, int count, int max)
{
    buf[0] = '\0';
    for (int i = 0; i < count && i < max; ++i) {
        char one[160];
        put_joint(one, sizeof one, sk, which[i]);
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? ", " : "", one);
    }
    size_t used = strlen(buf);
    if (count > max) snprintf(buf + used, size - used, ", ...");
}

/* Whether joint j of `from` has a joint of the same name in `to` (a joint
 * without a name has none). */
static bool named_in(const sinew_skeleton *from, int j, const sinew_skeleton *to)
{
    return from->names[j][0] && sinew_skeleton_find_joint(to, from->names[j]) >= 0;
}

/* Whether two skeletons have the same joints: count, names and parents. */
static bool same_joints(const sinew_skeleton *a, const sinew_skeleton *b)
{
    if (a->joint_count != b->joint_count) return false;
    for (int j = 0; j < a->joint_count; ++j)
        if (a->parents[j] != b->parents[j] || strcmp(a->names[j], b->names[j]) != 0) return false;
    return true;
}

/* A clip of CLIPFILE (`path`, skeleton `from`) on FILE's skeleton `to`:
 * sinew_clip_retarget() after leaving out the tracks of joints without a
 * name (which would match FILE's first unnamed joint), its mismatches told
 * here by name or index. NULL after printing why. */
static sinew_clip *retarget(const char *command, const char *file, const char *path, const sinew_clip *clip,
                            const sinew_skeleton *from, const sinew_skeleton *to)
{
    int n = clip->track_count;
    sinew_track *tracks = malloc(sizeof *tracks * ((size_t)n + 1));
    int *lost = malloc(sizeof *lost * ((size_t)from->joint_count + 1));
    int *bare = malloc(sizeof *bare * ((size_t)to->joint_count + 1));
    bool *animated = calloc((size_t)from->joint_count + 1, sizeof *animated);
    sinew_clip *kept = NULL, *out = NULL;
    sinew_error err = {0};
    if (!tracks || !lost || !bare || !animated) {
        fprintf(stderr, "sinew: %s: %s: out of memory\n", command, path);
        goto done;
    }
    int count = 0, lost_count = 0, bare_count = 0;
    for (int i = 0; i < n; ++i) {
        int j = clip->tracks[i].joint;
        if (named_in(from, j, to))
            tracks[count++] = clip->tracks[i];
        else if (!animated[j])
            lost[lost_count++] = j;
        animated[j] = true;
    }
    for (int j = 0; j < to->joint_count; ++j)
        if (!named_in(to, j, from)) bare[bare_count++] = j;
    const sinew_clip *source = clip;
    if (count < n) {
        /* the clip without the tracks no joint of FILE takes */
        sinew_clip_desc d = {.name = clip->name, .joint_count = clip->joint_count, .duration = clip->duration,
                             .track_count = count, .tracks = tracks, .additive = clip->additive};
        if (!(kept = sinew_clip_create(&d, NULL, &err))) {
            fprintf(stderr, "sinew: %s: %s: %s\n", command, path, err.description);
            goto done;
        }
        source = kept;
    }
    /* quiet: the mismatches are told below, unnamed joints by index */
    if (!(out = sinew_clip_retarget(source, from, to, NULL, NULL, &err))) {
        fprintf(stderr, "sinew: %s: %s: %s\n", command, path, err.description);
        goto done;
    }
    char names[1024];
    const char *base = file ? file : "the built-in character";
    if (lost_count) {
        joint_list(names, sizeof names, from, lost, lost_count, 8);
        fprintf(stderr, "sinew: warning: %s: clip \"%s\": %d animated joint(s) are not in %s, their tracks are "
                        "left out: %s\n", path, clip->name, lost_count, base, names);
    }
    if (bare_count && count) {
        joint_list(names, sizeof names, to, bare, bare_count, 8);
        fprintf(stderr, "sinew: warning: %s: clip \"%s\": %d joint(s) of %s are not in its skeleton and keep "
                        "their rest pose: %s\n", path, clip->name, bare_count, base, names);
    }
done:
    sinew_clip_free(kept);
    free(tracks), free(lost), free(bare), free(animated);
    return out;
}

int cli_clips_load(const char *command, const char *file, const sinew_asset *asset, const char *const *anim_paths,
                   int anim_count, cli_clips *out)
{
    *out = (cli_clips){0};
    if (anim_count == 0) {
        snprintf(out->from, sizeof out->from, "%s", file ? file : "the built-in character");
        out->count = asset->clip_count;
        out->clips = malloc(sizeof *out->clips * ((size_t)asset->clip_count + 1));
        if (!out->clips) return EXIT_FAILED;
        for (int i = 0; i < asset->clip_count; ++i) out->clips[i] = asset->clips[i];
        return EXIT_OK;
    }
    for (int f = 0; f < anim_count; ++f) {
        size_t used = strlen(out->from);
        snprintf(out->from + used, sizeof out->from - used, "%s%s", f ? ", " : "", anim_paths[f]);
    }
    int status = EXIT_OK;
    for (int f = 0; f < anim_count && status == EXIT_OK; ++f) {
        sinew_asset *anim = cli_load_asset(command, anim_paths[f], NULL);
        if (!anim) {
            status = EXIT_FAILED;
            break;
        }
        size_t room = (size_t)out->count + (size_t)anim->clip_count + 1;
        const sinew_clip **clips = realloc(out->clips, sizeof *clips * room);
        if (clips) out->clips = clips;
        sinew_clip **owned = clips ? realloc(out->owned, sizeof *owned * room) : NULL;
        if (owned) out->owned = owned;
        if (!clips || !owned) {
            fprintf(stderr, "sinew: %s: out of memory\n", command);
            status = EXIT_FAILED;
        }
        /* the file's clips must move some joint of FILE: else they would
         * play the rest pose, by mistake (another character's file) */
        int tracks = 0, matched = 0;
        for (int i = 0; i < anim->clip_count && status == EXIT_OK; ++i)
            for (int t = 0; t < anim->clips[i]->track_count; ++t, ++tracks)
                matched += named_in(anim->skeleton, anim->clips[i]->tracks[t].joint, asset->skeleton);
        if (status == EXIT_OK && tracks > 0 && matched == 0) {
            fprintf(stderr, "sinew: %s: the clips of %s animate no joint of %s: no joint name is in both (see "
                            "sinew info on each)\n", command, anim_paths[f], file ? file : "the built-in character");
            status = EXIT_FAILED;
        }
        bool kept = false;
        for (int i = 0; i < anim->clip_count && status == EXIT_OK; ++i) {
            /* a packed or compressed clip holds no tracks to retarget: it
             * plays as it is on a skeleton of the same joints */
            const sinew_clip *clip = anim->clips[i];
            if ((clip->packed || clip->compressed) && same_joints(anim->skeleton, asset->skeleton)) {
                kept = true;
                out->owned[out->count] = NULL;
                out->clips[out->count++] = clip;
                continue;
            }
            sinew_clip *c = retarget(command, file, anim_paths[f], clip, anim->skeleton, asset->skeleton);
            if (!c) {
                status = EXIT_FAILED;
                break;
            }
            out->owned[out->count] = c;
            out->clips[out->count++] = c;
        }
        if (status == EXIT_OK && anim->clip_count == 0)
            fprintf(stderr, "sinew: warning: %s has no animations\n", anim_paths[f]);
        if (kept)
            out->held[f] = anim;
        else
            sinew_asset_free(anim);
    }
    if (status != EXIT_OK) cli_clips_free(out);
    return status;
}

void cli_clips_free(cli_clips *c)
{
    for (int i = 0; c->owned && i < c->count; ++i) sinew_clip_free(c->owned[i]);
    for (int f = 0; f < CLI_MAX_ANIMS; ++f) sinew_asset_free(c->held[f]);
    free(c->owned);
    free(c->clips);
    *c = (cli_clips){0};
}

/* "; its clips: "walk", "run", clip 2, ..." (the first 20) or "; it has no
 * clips" on stderr, ending the line. */
static void list_clips(const cli_clips *clips)
{
    bool several = strchr(clips->from, ',') != NULL;
    if (clips->count == 0) {
        fprintf(stderr, "; %s no clips\n", several ? "they have" : "it has");
        return;
    }
    fprintf(stderr, "; %s clips:", several ? "their" : "its");
    for (int c = 0; c < clips->count && c < 20; ++c) {
        if (clips->clips[c]->name[0])
            fprintf(stderr, "%s \"%s\"", c ? "," : "", clips->clips[c]->name);
        else
            fprintf(stderr, "%s clip %d", c ? "," : "", c);
    }
    fprintf(stderr, "%s\n", clips->count > 20 ? ", ..." : "");
}

int cli_find_clip(const char *command, const cli_clips *clips, const char *spec, int *index)
{
    *index = -1;
    if (!spec) {
        *index = clips->count > 0 ? 0 : -1;
        return EXIT_OK;
    }
    if (strcmp(spec, "none") == 0) return EXIT_OK;
    char *end;
    errno = 0;
    long i = strtol(spec, &end, 10);
    if (*spec && !*end) {
        if (!errno && i >= 0 && i < clips->count) {
            *index = (int)i;
            return EXIT_OK;
        }
        fprintf(stderr, "sinew: %s: no clip %s in %s (%d clip%s)", command, spec, clips->from, clips->count,
                clips->count == 1 ? "" : "s");
    } else {
        for (int c = 0; c < clips->count; ++c)
            if (strcmp(clips->clips[c]->name, spec) == 0) {
                *index = c;
                return EXIT_OK;
            }
        fprintf(stderr, "sinew: %s: no clip \"%s\" in %s", command, spec, clips->from);
    }
    list_clips(clips);
    return EXIT_FAILED;
}

sinew_result cli_morph_weights(const sinew_mesh *mesh, const sinew_clip *clip, float time, unsigned flags,
                               float *weights, sinew_error *err)
{
    int count = mesh->morph->target_count;
    memcpy(weights, mesh->morph_weights, sizeof(float) * (size_t)count);
    if (!clip || mesh->joint < 0) return SINEW_OK;
    return sinew_clip_sample_weights(clip, time, flags, NULL, mesh->joint, weights, count, err);
}

bool cli_parse_int(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (!*text || *end || errno || x < lo || x > hi) return false;
    *out = (int)x;
    return true;
}

void cli_put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

bool cli_parse_float(const char *text, float *out)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (!*text || *end || errno || !isfinite(x)) return false;
    *out = (float)x;
    return true;
}

bool cli_parse_method(const char *text, sinew_skinning *method)
{
    if (strcmp(text, "lbs") == 0)
        *method = SINEW_SKINNING_LBS;
    else if (strcmp(text, "dqs") == 0)
        *method = SINEW_SKINNING_DQS;
    else
        return false;
    return true;
}

bool cli_parse_size(const char *text, int lo, int hi, int *width, int *height)
{
    int w, h, used = 0;
    if (sscanf(text, "%dx%d%n", &w, &h, &used) != 2 || text[used] || w < lo || h < lo || w > hi || h > hi)
        return false;
    *width = w, *height = h;
    return true;
}

bool cli_source_arg(cli_args *p, cli_source *s)
{
    const char *arg = p->argv[p->i], *v;
    if (!s->file_only && (v = cli_value(p, "--anim"))) {
        if (s->anim_count == CLI_MAX_ANIMS)
            cli_bad_value(p, "--anim", v, "is one too many (at most %d files)", CLI_MAX_ANIMS);
        else
            s->anims[s->anim_count++] = v;
    } else if (!s->file_only && (v = cli_value(p, "--clip"))) {
        s->clip = v;
    } else if ((v = cli_value(p, "--scene"))) {
        int k;
        if (!cli_parse_int(v, 0, 1000000, &k))
            cli_bad_value(p, "--scene", v, "is not a scene index (0, 1, ...)");
        else
            s->load.scene = k + 1;
    } else if ((v = cli_value(p, "--formats"))) {
        cli_formats = v;
    } else if ((v = cli_value(p, "--max-memory"))) {
        if (!parse_mib(v, &cli_max_memory)) cli_bad_value(p, "--max-memory", v, "is not a size in MiB (1 to 1048576)");
    } else if (cli_flag(p, "--accept-partial")) {
        cli_accept_partial = true;
    } else if (cli_flag(p, "-v") || cli_flag(p, "--verbose")) {
        cli_verbose = true;
    } else if (cli_flag(p, "--weld")) {
        s->load.weld_vertices = true;
    } else if (cli_flag(p, "--order-vertices")) {
        s->load.order_vertices_for_skinning = true;
    } else if (p->status != EXIT_OK) { /* a value missing above */
        return true;
    } else if (arg[0] == '-' && arg[1]) {
        return false;
    } else if (!s->file) {
        s->file = arg;
    } else {
        cli_usage(p, "unexpected argument \"%s\" (FILE is %s; one FILE only)", arg, s->file);
    }
    return true;
}

int cli_load(const char *command, const cli_source *source, cli_loaded *out)
{
    *out = (cli_loaded){.clip_index = -1};
    if (!(out->asset = cli_load_asset(command, source->file, &source->load))) return EXIT_FAILED;
    if (cli_clips_load(command, source->file, out->asset, source->anims, source->anim_count, &out->clips) != EXIT_OK ||
        cli_find_clip(command, &out->clips, source->clip, &out->clip_index) != EXIT_OK) {
        cli_unload(out);
        return EXIT_FAILED;
    }
    out->clip = out->clip_index >= 0 ? out->clips.clips[out->clip_index] : NULL;
    return EXIT_OK;
}

void cli_unload(cli_loaded *l)
{
    cli_clips_free(&l->clips);
    sinew_asset_free(l->asset);
    *l = (cli_loaded){.clip_index = -1};
}

bool cli_parse_numbers(const char *text, float **out, int *count, char *why, int why_size)
{
    size_t cap = 1;
    for (const char *c = text; *c; ++c) cap += *c == ',';
    float *x = malloc(sizeof *x * cap);
    if (!x) {
        snprintf(why, (size_t)why_size, "out of memory");
        return false;
    }
    int n = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (len == 0)
            snprintf(why, (size_t)why_size, "\"%s\": entry %d is empty", text, n + 1);
        else if (end != p + len)
            snprintf(why, (size_t)why_size, "\"%.*s\" is not a number", (int)len, p);
        else if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
            snprintf(why, (size_t)why_size, "\"%.*s\" is not a finite number", (int)len, p);
        else {
            x[n++] = (float)v;
            if (!p[len]) break;
            p += len + 1;
            continue;
        }
        free(x);
        return false;
    }
    *out = x;
    *count = n;
    return true;
}

bool cli_times_arg(cli_args *p, const char *option, const char *text, float **times, int *count)
{
    char why[300];
    if (!cli_parse_numbers(text, times, count, why, sizeof why)) {
        cli_usage(p, "%s: %s", option, why);
        return false;
    }
    const char *entry = text;
    for (int i = 0; i < *count; ++i) {
        size_t len = strcspn(entry, ",");
        if ((*times)[i] < 0.0f) {
            cli_usage(p, "%s: \"%.*s\" is negative", option, (int)len, entry);
            free(*times);
            *times = NULL;
            return false;
        }
        entry += len + 1;
    }
    return true;
}

/* ---- info --------------------------------------------------------------- */

static const char *interp_name(sinew_interpolation i)
{
    return i == SINEW_INTERP_STEP ? "STEP" : i == SINEW_INTERP_LINEAR ? "LINEAR" : "CUBICSPLINE";
}

int *cli_joint_depths(const sinew_skeleton *sk)
{
    int *depth = malloc(sizeof *depth * ((size_t)sk->joint_count + 1));
    if (!depth) return NULL;
    for (int j = 0; j < sk->joint_count; ++j) depth[j] = sk->parents[j] < 0 ? 0 : depth[sk->parents[j]] + 1;
    return depth;
}

/* The skeleton's roots and depth, from `depth` (cli_joint_depths). */
static void skeleton_shape(const sinew_skeleton *sk, const int *depth, int *roots, int *max_depth)
{
    *roots = 0, *max_depth = 0;
    for (int j = 0; j < sk->joint_count; ++j) {
        if (depth[j] > *max_depth) *max_depth = depth[j];
        *roots += sk->parents[j] < 0;
    }
}

/* Indentation shown for a joint's depth: beyond this, the depth is written
 * as a number, so that a deep chain prints in lines of bounded length. */
enum { SHOWN_DEPTH = 32 };

static void print_skeleton(const sinew_skeleton *sk)
{
    int roots, max_depth;
    int *depth = cli_joint_depths(sk);
    if (!depth) {
        fprintf(stderr, "sinew: info: out of memory\n");
        return;
    }
    skeleton_shape(sk, depth, &roots, &max_depth);
    printf("skeleton: %d joints, %d root%s, depth %d\n", sk->joint_count, roots, roots == 1 ? "" : "s", max_depth);
    for (int j = 0; j < sk->joint_count; ++j) {
        const sinew_transform *r = &sk->rest_pose[j];
        int shown = depth[j] < SHOWN_DEPTH ? depth[j] : SHOWN_DEPTH;
        printf("  %3d %*s", j, 2 * shown, "");
        if (depth[j] > SHOWN_DEPTH) printf("[depth %d] ", depth[j]);
        printf("%s", sk->names[j][0] ? sk->names[j] : "(unnamed)");
        printf("  t=(%.3g, %.3g, %.3g)", (double)r->translation.x, (double)r->translation.y,
               (double)r->translation.z);
        if (r->rotation.w < 0.999999f)
            printf(" r=(%.3g, %.3g, %.3g, %.3g)", (double)r->rotation.x, (double)r->rotation.y,
                   (double)r->rotation.z, (double)r->rotation.w);
        if (r->scale.x != 1.0f || r->scale.y != 1.0f || r->scale.z != 1.0f)
            printf(" s=(%.3g, %.3g, %.3g)", (double)r->scale.x, (double)r->scale.y, (double)r->scale.z);
        printf("\n");
    }
    free(depth);
}

/* Tracks by interpolation, and the joints with at least one track. */
static int clip_shape(const sinew_clip *c, int by_interp[3])
{
    int animated = 0;
    by_interp[0] = by_interp[1] = by_interp[2] = 0;
    for (int i = 0; i < c->track_count; ++i) by_interp[c->tracks[i].interpolation]++;
    for (int j = 0; j < c->joint_count; ++j) {
        for (int i = 0; i < c->track_count; ++i) {
            if (c->tracks[i].joint == j) {
                ++animated;
                break;
            }
        }
    }
    return animated;
}

static void print_clip(int index, const sinew_clip *c)
{
    int by_interp[3];
    int animated = clip_shape(c, by_interp);
    sinew_compress_report z;
    if (c->packed) /* its tracks list its weights tracks only: the packed keys are counted from the clip's */
        printf("  %d \"%s\": %.3f s, packed (16-bit keys) from keys: %d translation, %d rotation, %d scale", index,
               c->name, (double)c->duration, sinew_clip_key_count(c, SINEW_TARGET_TRANSLATION),
               sinew_clip_key_count(c, SINEW_TARGET_ROTATION), sinew_clip_key_count(c, SINEW_TARGET_SCALE));
    else if (sinew_clip_compression(c, &z))
        printf("  %d \"%s\": %.3f s, compressed: %d samples (%s), %d animated and %d constant tracks; error %g "
               "(99%% within %g), bound %g at %g", index, c->name, (double)c->duration, z.sample_count,
               z.sample_rate > 0.0f ? "evenly spaced" : "at the key times", z.animated_tracks, z.constant_tracks,
               (double)z.largest, (double)z.percentile_99, (double)z.error_bound, (double)z.shell_distance);
    else
        printf("  %d \"%s\": %.3f s, %d tracks on %d joints; keys: %d translation, %d rotation, %d scale", index,
               c->name, (double)c->duration, c->track_count, animated,
               sinew_clip_key_count(c, SINEW_TARGET_TRANSLATION), sinew_clip_key_count(c, SINEW_TARGET_ROTATION),
               sinew_clip_key_count(c, SINEW_TARGET_SCALE));
    int weight_keys = sinew_clip_key_count(c, SINEW_TARGET_WEIGHTS);
    printf(weight_keys ? ", %d morph weights\n" : "\n", weight_keys);
    printf("      %zu bytes in memory", sinew_clip_bytes(c));
    if (c->compressed) printf(" (%zu compressed)", z.bytes);
    if (!c->packed && !c->compressed) {
        printf("; interpolation:");
        for (int i = 0; i < 3; ++i)
            if (by_interp[i]) printf(" %d %s", by_interp[i], interp_name((sinew_interpolation)i));
    }
    printf("\n");
}

/* A clip's timeline under its line: its user tracks (a line each, the
 * first 16) and its events (their count, the first names). */
enum { INFO_TRACKS = 16, INFO_EVENTS = 4 };
static void print_timeline(const sinew_timeline *tl)
{
    if (!tl) return;
    printf("      timeline: %d user track%s, %d event%s%s\n", tl->track_count, tl->track_count == 1 ? "" : "s",
           tl->event_count, tl->event_count == 1 ? "" : "s", tl->compressed ? ", compressed" : "");
    for (int i = 0; i < tl->track_count && i < INFO_TRACKS; ++i) {
        const sinew_user_track *t = &tl->tracks[i];
        if (t->quaternion)
            printf("        \"%s\": quaternion, %d key%s\n", t->name, t->key_count, t->key_count == 1 ? "" : "s");
        else
            printf("        \"%s\": %d component%s, %d key%s\n", t->name, t->components, t->components == 1 ? "" : "s",
                   t->key_count, t->key_count == 1 ? "" : "s");
    }
    if (tl->track_count > INFO_TRACKS) printf("        and %d more user tracks\n", tl->track_count - INFO_TRACKS);
    if (!tl->event_count) return;
    printf("        events:");
    for (int e = 0; e < tl->event_count && e < INFO_EVENTS; ++e)
        printf("%s \"%s\" at %.3f s", e ? "," : "", tl->events[e].name, (double)tl->events[e].time);
    printf(tl->event_count > INFO_EVENTS ? ", and %d more\n" : "\n", tl->event_count - INFO_EVENTS);
}

/* The mesh's bounds; false without vertices. */
static bool mesh_bounds(const sinew_mesh *m, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int v = 0; v < m->vertex_count; ++v)
        for (int k = 0; k < 3; ++k) {
            float x = m->positions[v * 3 + k];
            lo[k] = fminf(lo[k], x), hi[k] = fmaxf(hi[k], x);
        }
    return m->vertex_count > 0;
}

/* histogram[n]: the vertices with n influences; returns their total. */
static long influence_histogram(const sinew_skin *s, int histogram[SINEW_MAX_INFLUENCES + 1])
{
    long total = 0;
    for (int n = 0; n <= SINEW_MAX_INFLUENCES; ++n) histogram[n] = 0;
    for (int v = 0; v < s->vertex_count; ++v) {
        int idx[SINEW_MAX_INFLUENCES];
        float w[SINEW_MAX_INFLUENCES];
        int n = sinew_skin_vertex(s, v, idx, w);
        histogram[n]++;
        total += n;
    }
    return total;
}

static const char *const weight_type_names[] = {"float", "unorm8", "unorm16"};

static void print_mesh(int index, const sinew_mesh *m, const sinew_skeleton *sk)
{
    printf("  %d \"%s\": %d vertices, %d triangles; attributes: position%s%s", index, m->name, m->vertex_count,
           m->index_count / 3, m->normals ? ", normal" : "", m->tangents ? ", tangent" : "");
    if (m->texcoord_count) printf(", %d texcoord set%s", m->texcoord_count, m->texcoord_count > 1 ? "s" : "");
    printf("%s", m->colors ? ", color" : "");
    if (m->morph) printf(", %d morph targets", m->morph->target_count);
    printf("\n");
    float lo[3], hi[3];
    if (mesh_bounds(m, lo, hi))
        printf("      bounds: (%.3f, %.3f, %.3f) to (%.3f, %.3f, %.3f)\n", (double)lo[0], (double)lo[1],
               (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
    const sinew_skin *s = m->skin;
    if (!s) {
        printf("      rigid, carried by joint %d%s%s\n", m->joint, m->joint >= 0 ? " " : "",
               m->joint >= 0 ? sk->names[m->joint] : "");
        return;
    }
    int histogram[SINEW_MAX_INFLUENCES + 1];
    long total = influence_histogram(s, histogram);
    printf("      skin: %d joints, %d influence slots per vertex (%s indices, %s weights%s)\n", s->joint_count,
           s->influence_count, s->index_type == SINEW_INDEX_U8 ? "u8" : "u16", weight_type_names[s->weight_type],
           s->last_weight_implied ? ", the last implied" : "");
    printf("      influences per vertex: average %.2f;", s->vertex_count ? (double)total / s->vertex_count : 0.0);
    for (int n = 1; n <= SINEW_MAX_INFLUENCES; ++n)
        if (histogram[n]) printf(" %d: %d", n, histogram[n]);
    printf("\n");
}

/* --quiet: "FILE: 22 joints, 3 clips, 1 mesh, 1234 vertices". */
static void print_summary(const char *file, const sinew_asset *a)
{
    long vertices = 0;
    for (int i = 0; i < a->mesh_count; ++i) vertices += a->meshes[i].vertex_count;
    printf("%s: %d joint%s, %d clip%s, %d mesh%s, %ld vert%s\n", file ? file : "built-in character",
           a->skeleton->joint_count, a->skeleton->joint_count == 1 ? "" : "s", a->clip_count,
           a->clip_count == 1 ? "" : "s", a->mesh_count, a->mesh_count == 1 ? "" : "es", vertices,
           vertices == 1 ? "ex" : "ices");
}

/* ---- info --json ---- */

/* A float that reads back as the same float32; null when not finite. */
static void json_number(float x)
{
    if (isfinite(x))
        printf("%.9g", (double)x);
    else
        fputs("null", stdout);
}

static void json_floats(const float *x, int n)
{
    putchar('[');
    for (int i = 0; i < n; ++i) {
        if (i) putchar(',');
        json_number(x[i]);
    }
    putchar(']');
}

static void json_skeleton(const sinew_skeleton *sk)
{
    int roots = 0, depth = 0;
    int *depths = cli_joint_depths(sk);
    if (depths) skeleton_shape(sk, depths, &roots, &depth);
    free(depths);
    printf("\"skeleton\": {\"joint_count\": %d, \"roots\": %d, \"depth\": %d, \"joints\": [", sk->joint_count, roots,
           depth);
    for (int j = 0; j < sk->joint_count; ++j) {
        const sinew_transform *r = &sk->rest_pose[j];
        printf("%s\n  {\"index\": %d, \"name\": ", j ? "," : "", j);
        cli_put_json_string(stdout, sk->names[j]);
        printf(", \"parent\": %d, \"translation\": ", sk->parents[j]);
        json_floats((const float[]){r->translation.x, r->translation.y, r->translation.z}, 3);
        fputs(", \"rotation\": ", stdout);
        json_floats((const float[]){r->rotation.x, r->rotation.y, r->rotation.z, r->rotation.w}, 4);
        fputs(", \"scale\": ", stdout);
        json_floats((const float[]){r->scale.x, r->scale.y, r->scale.z}, 3);
        putchar('}');
    }
    fputs("]}", stdout);
}

/* A count, or null where the clip does not know it. */
static void json_count(const char *key, bool known, int n)
{
    if (known)
        printf("\"%s\": %d", key, n);
    else
        printf("\"%s\": null", key);
}

/* A clip's timeline: null, or its user tracks and events. */
static void json_timeline(const sinew_timeline *tl)
{
    if (!tl) {
        fputs("null", stdout);
        return;
    }
    printf("{\"compressed\": %s, \"user_tracks\": [", tl->compressed ? "true" : "false");
    for (int i = 0; i < tl->track_count; ++i) {
        const sinew_user_track *t = &tl->tracks[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
        cli_put_json_string(stdout, t->name);
        printf(", \"components\": %d, \"quaternion\": %s, \"keys\": %d}", t->components,
               t->quaternion ? "true" : "false", t->key_count);
    }
    fputs("], \"events\": [", stdout);
    for (int e = 0; e < tl->event_count; ++e) {
        fputs(e ? ", {\"name\": " : "{\"name\": ", stdout);
        cli_put_json_string(stdout, tl->events[e].name);
        fputs(", \"time\": ", stdout);
        json_number(tl->events[e].time);
        putchar('}');
    }
    fputs("]}", stdout);
}

static void json_clip(int index, const sinew_clip *c, const sinew_timeline *tl)
{
    int by_interp[3];
    int animated = clip_shape(c, by_interp);
    /* a packed or compressed clip holds no tracks of its joints: it tells
     * what the text tells (a packed clip the keys it came from, every clip
     * its weights keys), the rest is null */
    bool tracks = !c->packed && !c->compressed, keys = !c->compressed;
    printf("\n  {\"index\": %d, \"name\": ", index);
    cli_put_json_string(stdout, c->name);
    fputs(", \"duration\": ", stdout);
    json_number(c->duration);
    fputs(", ", stdout);
    json_count("tracks", tracks, c->track_count);
    fputs(", ", stdout);
    json_count("animated_joints", tracks, animated);
    printf(", \"additive\": %s, \"keys\": {", c->additive ? "true" : "false");
    json_count("translation", keys, sinew_clip_key_count(c, SINEW_TARGET_TRANSLATION));
    fputs(", ", stdout);
    json_count("rotation", keys, sinew_clip_key_count(c, SINEW_TARGET_ROTATION));
    fputs(", ", stdout);
    json_count("scale", keys, sinew_clip_key_count(c, SINEW_TARGET_SCALE));
    printf(", \"weights\": %d}, \"interpolation\": ", sinew_clip_key_count(c, SINEW_TARGET_WEIGHTS));
    if (tracks)
        printf("{\"step\": %d, \"linear\": %d, \"cubicspline\": %d}", by_interp[SINEW_INTERP_STEP],
               by_interp[SINEW_INTERP_LINEAR], by_interp[SINEW_INTERP_CUBICSPLINE]);
    else
        fputs("null", stdout);
    printf(", \"bytes\": %zu, \"packed\": %s", sinew_clip_bytes(c), c->packed ? "true" : "false");
    sinew_compress_report z;
    if (sinew_clip_compression(c, &z)) {
        printf(", \"compressed\": {\"bytes\": %zu, \"samples\": %d, \"rate\": ", z.bytes, z.sample_count);
        json_number(z.sample_rate);
        printf(", \"animated_tracks\": %d, \"constant_tracks\": %d, \"error_bound\": ", z.animated_tracks,
               z.constant_tracks);
        json_number(z.error_bound);
        fputs(", \"shell_distance\": ", stdout);
        json_number(z.shell_distance);
        fputs(", \"largest_error\": ", stdout);
        json_number(z.largest);
        fputs(", \"percentile_99\": ", stdout);
        json_number(z.percentile_99);
        fputs("}", stdout);
    } else {
        fputs(", \"compressed\": null", stdout);
    }
    fputs(", \"timeline\": ", stdout);
    json_timeline(tl);
    putchar('}');
}

static void json_mesh(int index, const sinew_mesh *m)
{
    printf("\n  {\"index\": %d, \"name\": ", index);
    cli_put_json_string(stdout, m->name);
    printf(", \"vertices\": %d, \"triangles\": %d, \"attributes\": [\"position\"%s%s", m->vertex_count,
           m->index_count / 3, m->normals ? ", \"normal\"" : "", m->tangents ? ", \"tangent\"" : "");
    for (int t = 0; t < m->texcoord_count; ++t) printf(", \"texcoord_%d\"", t);
    printf("%s], \"morph_targets\": %d, \"bounds\": ", m->colors ? ", \"color\"" : "",
           m->morph ? m->morph->target_count : 0);
    float lo[3], hi[3];
    if (mesh_bounds(m, lo, hi)) {
        fputs("{\"min\": ", stdout);
        json_floats(lo, 3);
        fputs(", \"max\": ", stdout);
        json_floats(hi, 3);
        putchar('}');
    } else {
        fputs("null", stdout);
    }
    printf(", \"joint\": %d, \"skin\": ", m->skin ? -1 : m->joint);
    const sinew_skin *s = m->skin;
    if (!s) {
        fputs("null}", stdout);
        return;
    }
    int histogram[SINEW_MAX_INFLUENCES + 1];
    long total = influence_histogram(s, histogram);
    printf("{\"joints\": %d, \"influence_slots\": %d, \"index_type\": \"%s\", \"weight_type\": \"%s\", "
           "\"last_weight_implied\": %s, \"influences\": {\"average\": ",
           s->joint_count, s->influence_count, s->index_type == SINEW_INDEX_U8 ? "u8" : "u16",
           weight_type_names[s->weight_type], s->last_weight_implied ? "true" : "false");
    json_number(s->vertex_count ? (float)((double)total / s->vertex_count) : 0.0f);
    fputs(", \"histogram\": [", stdout);
    for (int n = 0; n <= SINEW_MAX_INFLUENCES; ++n) printf("%s%d", n ? ", " : "", histogram[n]);
    fputs("]}}}", stdout);
}

/* ---- spring bones (info and info --json) ---- */

static const char *joint_name(const sinew_skeleton *sk, int j)
{
    return j >= 0 && j < sk->joint_count ? sk->names[j] : "?";
}

/* A chain's parameters over its bones (every joint but the last, whose
 * own the runtime does not use): the least and most of each. */
typedef struct spring_ranges {
    float lo[4], hi[4]; /* stiffness, drag force, gravity power, hit radius */
} spring_ranges;

static spring_ranges chain_ranges(const sinew_spring_chain *ch)
{
    spring_ranges r;
    for (int k = 0; k < 4; ++k) r.lo[k] = INFINITY, r.hi[k] = -INFINITY;
    for (int i = 0; i + 1 < ch->joint_count; ++i) {
        const sinew_spring_joint *j = &ch->joints[i];
        float v[4] = {j->stiffness, j->drag_force, j->gravity_power, j->hit_radius};
        for (int k = 0; k < 4; ++k) r.lo[k] = fminf(r.lo[k], v[k]), r.hi[k] = fmaxf(r.hi[k], v[k]);
    }
    return r;
}

static const char *const range_names[4] = {"stiffness", "drag_force", "gravity_power", "hit_radius"};

/* Chains with their joints by name (the first 12 of a long one), their
 * parameters' ranges, then the colliders. */
static void print_springs(const sinew_asset *a)
{
    const sinew_springs_desc *d = a->springs;
    if (!d) return;
    const sinew_skeleton *sk = a->skeleton;
    printf("springs: %d chain%s, %d collider%s in %d group%s\n", d->chain_count, d->chain_count == 1 ? "" : "s",
           d->collider_count, d->collider_count == 1 ? "" : "s", d->group_count, d->group_count == 1 ? "" : "s");
    for (int c = 0; c < d->chain_count; ++c) {
        const sinew_spring_chain *ch = &d->chains[c];
        printf("  chain %d \"%s\": %d joints:", c, a->spring_names ? a->spring_names[c] : "", ch->joint_count);
        int shown = ch->joint_count < 12 ? ch->joint_count : 12;
        for (int i = 0; i < shown; ++i) printf("%s%s", i ? " > " : " ", joint_name(sk, ch->joints[i].joint));
        if (shown < ch->joint_count) printf(" > ... (%d more)", ch->joint_count - shown);
        putchar('\n');
        spring_ranges r = chain_ranges(ch);
        fputs("    ", stdout);
        for (int k = 0; k < 4; ++k) {
            if (r.lo[k] == r.hi[k])
                printf("%s%s %g", k ? ", " : "", range_names[k], (double)r.lo[k]);
            else
                printf("%s%s %g..%g", k ? ", " : "", range_names[k], (double)r.lo[k], (double)r.hi[k]);
        }
        if (ch->center >= 0) printf("; center %s", joint_name(sk, ch->center));
        if (ch->collider_group_count) {
            fputs("; collider groups", stdout);
            for (int g = 0; g < ch->collider_group_count; ++g) printf("%s %d", g ? "," : "", ch->collider_groups[g]);
        }
        putchar('\n');
    }
    for (int i = 0; i < d->collider_count; ++i) {
        const sinew_spring_collider *c = &d->colliders[i];
        bool capsule = c->shape == SINEW_COLLIDER_CAPSULE;
        printf("  collider %d: %s on %s, offset (%g, %g, %g)", i, capsule ? "capsule" : "sphere",
               joint_name(sk, c->joint), (double)c->offset.x, (double)c->offset.y, (double)c->offset.z);
        if (capsule) printf(", tail (%g, %g, %g)", (double)c->tail.x, (double)c->tail.y, (double)c->tail.z);
        printf(", radius %g\n", (double)c->radius);
    }
    for (int g = 0; g < d->group_count; ++g) {
        printf("  collider group %d:", g);
        for (int k = 0; k < d->groups[g].collider_count; ++k) printf(" %d", d->groups[g].colliders[k]);
        putchar('\n');
    }
}

static void json_vec3(sinew_vec3 v) { json_floats((const float[]){v.x, v.y, v.z}, 3); }

static void json_springs(const sinew_asset *a)
{
    const sinew_springs_desc *d = a->springs;
    if (!d) {
        fputs("null", stdout);
        return;
    }
    const sinew_skeleton *sk = a->skeleton;
    fputs("{\"chains\": [", stdout);
    for (int c = 0; c < d->chain_count; ++c) {
        const sinew_spring_chain *ch = &d->chains[c];
        printf("%s\n  {\"index\": %d, \"name\": ", c ? "," : "", c);
        cli_put_json_string(stdout, a->spring_names ? a->spring_names[c] : "");
        fputs(", \"joints\": [", stdout);
        for (int i = 0; i < ch->joint_count; ++i) {
            const sinew_spring_joint *j = &ch->joints[i];
            printf("%s{\"joint\": %d, \"name\": ", i ? ", " : "", j->joint);
            cli_put_json_string(stdout, joint_name(sk, j->joint));
            fputs(", \"hit_radius\": ", stdout);
            json_number(j->hit_radius);
            fputs(", \"stiffness\": ", stdout);
            json_number(j->stiffness);
            fputs(", \"gravity_power\": ", stdout);
            json_number(j->gravity_power);
            fputs(", \"gravity_dir\": ", stdout);
            json_vec3(j->gravity_dir);
            fputs(", \"drag_force\": ", stdout);
            json_number(j->drag_force);
            putchar('}');
        }
        fputs("], \"ranges\": {", stdout);
        spring_ranges r = chain_ranges(ch);
        for (int k = 0; k < 4; ++k) {
            printf("%s\"%s\": ", k ? ", " : "", range_names[k]);
            json_floats((const float[]){r.lo[k], r.hi[k]}, 2);
        }
        fputs("}, \"center\": ", stdout);
        if (ch->center >= 0)
            printf("%d", ch->center);
        else
            fputs("null", stdout);
        fputs(", \"collider_groups\": [", stdout);
        for (int g = 0; g < ch->collider_group_count; ++g) printf("%s%d", g ? ", " : "", ch->collider_groups[g]);
        fputs("]}", stdout);
    }
    fputs("],\n \"colliders\": [", stdout);
    for (int i = 0; i < d->collider_count; ++i) {
        const sinew_spring_collider *c = &d->colliders[i];
        bool capsule = c->shape == SINEW_COLLIDER_CAPSULE;
        printf("%s\n  {\"index\": %d, \"shape\": \"%s\", \"joint\": %d, \"joint_name\": ", i ? "," : "", i,
               capsule ? "capsule" : "sphere", c->joint);
        cli_put_json_string(stdout, joint_name(sk, c->joint));
        fputs(", \"offset\": ", stdout);
        json_vec3(c->offset);
        if (capsule) {
            fputs(", \"tail\": ", stdout);
            json_vec3(c->tail);
        }
        fputs(", \"radius\": ", stdout);
        json_number(c->radius);
        putchar('}');
    }
    fputs("],\n \"collider_groups\": [", stdout);
    for (int g = 0; g < d->group_count; ++g) {
        printf("%s{\"index\": %d, \"colliders\": [", g ? ", " : "", g);
        for (int k = 0; k < d->groups[g].collider_count; ++k) printf("%s%d", k ? ", " : "", d->groups[g].colliders[k]);
        fputs("]}", stdout);
    }
    fputs("]}", stdout);
}

/* The skeleton, clips and meshes as one JSON object on stdout:
 *
 *   { "file": "walk.fbx" (null: built-in), "asset": "...",
 *     "skeleton": {"joint_count": 22, "roots": 1, "depth": 7, "joints": [
 *        {"index": 0, "name": "root", "parent": -1, "translation": [x,y,z],
 *         "rotation": [x,y,z,w], "scale": [x,y,z]} ]},
 *     "clips": [ {"index": 0, "name": "walk", "duration": 1.0, "tracks": 66,
 *        "animated_joints": 22, "additive": false,
 *        "keys": {"translation": 0, "rotation": 0, "scale": 0, "weights": 0},
 *        "interpolation": {"step": 0, "linear": 66, "cubicspline": 0},
 *        "bytes": (sinew_clip_bytes), "packed": (sinew_clip_pack made it),
 *        "compressed": null | {"bytes", "samples", "rate", "animated_tracks",
 *           "constant_tracks", "error_bound", "shell_distance", "largest_error",
 *           "percentile_99"},
 *        "timeline": null | {"compressed": false, "user_tracks": [ {"name": "contact",
 *           "components": 1, "quaternion": false, "keys": 40} ],
 *           "events": [ {"name": "step_l", "time": 0.1} ]}} ],
 *        (a packed clip: tracks, animated_joints and interpolation null, its
 *        keys those it was packed from; a compressed one: its translation,
 *        rotation and scale keys null too, as the text leaves them out)
 *     "meshes": [ {"index": 0, "name": "...", "vertices": 0, "triangles": 0,
 *        "attributes": ["position", "normal", "tangent", "texcoord_0", "color"],
 *        "morph_targets": 0, "bounds": {"min": [...], "max": [...]} (null: no vertices),
 *        "joint": (a rigid mesh's joint, else -1),
 *        "skin": null | {"joints": 22, "influence_slots": 4, "index_type": "u8",
 *           "weight_type": "float", "last_weight_implied": false,
 *           "influences": {"average": 2.5, "histogram": [vertices with 0, 1, ... 8 influences]}}} ],
 *     "springs": null | {
 *        "chains": [ {"index": 0, "name": "hair", "joints": [ {"joint": 5, "name": "hair0",
 *           "hit_radius", "stiffness", "gravity_power", "gravity_dir": [x,y,z], "drag_force"} ],
 *           "ranges": {"stiffness": [min, max], "drag_force", "gravity_power", "hit_radius"}
 *              (over the chain's bones: every joint but the last),
 *           "center": (a joint) | null, "collider_groups": [0]} ],
 *        "colliders": [ {"index": 0, "shape": "sphere" | "capsule", "joint": 2, "joint_name": "head",
 *           "offset": [x,y,z], "tail": [x,y,z] (capsules), "radius": 0.1} ],
 *        "collider_groups": [ {"index": 0, "colliders": [0, 1]} ]} }
 */
static void print_json(const char *file, const sinew_asset *a)
{
    fputs("{\"file\": ", stdout);
    if (file)
        cli_put_json_string(stdout, file);
    else
        fputs("null", stdout);
    fputs(", \"asset\": ", stdout);
    cli_put_json_string(stdout, a->name);
    fputs(",\n", stdout);
    json_skeleton(a->skeleton);
    fputs(",\n\"clips\": [", stdout);
    for (int i = 0; i < a->clip_count; ++i) {
        if (i) putchar(',');
        json_clip(i, a->clips[i], a->timelines ? a->timelines[i] : NULL);
    }
    fputs("],\n\"meshes\": [", stdout);
    for (int i = 0; i < a->mesh_count; ++i) {
        if (i) putchar(',');
        json_mesh(i, &a->meshes[i]);
    }
    fputs("],\n\"springs\": ", stdout);
    json_springs(a);
    fputs("}\n", stdout);
}

static int cmd_info(int argc, char **argv)
{
    cli_source source = {.file_only = true};
    bool quiet = false, json = false;
    cli_args p = cli_args_begin("info", argc, argv);
    while (cli_next(&p)) {
        if (cli_source_arg(&p, &source)) continue;
        if (cli_flag(&p, "--quiet"))
            quiet = true;
        else if (cli_flag(&p, "--json"))
            json = true;
        else
            cli_unknown(&p);
    }
    if (p.status != EXIT_OK) return p.status;
    if (quiet && json) return cli_usage(&p, "--quiet and --json exclude each other");
    sinew_asset *a = cli_load_asset("info", source.file, &source.load);
    if (!a) return EXIT_FAILED;
    if (quiet) {
        print_summary(source.file, a);
    } else if (json) {
        print_json(source.file, a);
    } else {
        printf("asset \"%s\"\n", a->name);
        print_skeleton(a->skeleton);
        printf("clips: %d\n", a->clip_count);
        for (int i = 0; i < a->clip_count; ++i) {
            print_clip(i, a->clips[i]);
            print_timeline(a->timelines ? a->timelines[i] : NULL);
        }
        printf("meshes: %d\n", a->mesh_count);
        for (int i = 0; i < a->mesh_count; ++i) print_mesh(i, &a->meshes[i], a->skeleton);
        print_springs(a);
    }
    sinew_asset_free(a);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sinew: info: write error on stdout\n");
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* ---- demo --------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { STAGE_SAMPLE, STAGE_MODEL, STAGE_PALETTE, STAGE_LBS, STAGE_DQS, STAGE_COUNT };
static const char *const stage_names[STAGE_COUNT] = {
    "sample", "local_to_model", "palette", "skin LBS (pos+nrm+tan)", "skin DQS (pos+nrm+tan)"};

static int fail_with(const char *what, const sinew_error *err)
{
    fprintf(stderr, "sinew: demo: %s: %s\n", what, err->description);
    return EXIT_FAILED;
}

/* The animation layer on the built-in character: a synced blend, a
 * crossfade, root motion over a loop, foot IK; each with what it measured. */
static int demo_layer(const sinew_asset *a, sinew_transform *local, sinew_mat4 *model)
{
    const sinew_skeleton *sk = a->skeleton;
    const sinew_clip *walk = sinew_asset_find_clip(a, "walk"), *idle = sinew_asset_find_clip(a, "idle");
    int n = sk->joint_count;
    sinew_error err = {0};
    if (!walk || !idle) return fail_with("layer", &(sinew_error){SINEW_ERROR_INVALID_ARGUMENT, "no walk or idle"});
    printf("  animation layer:\n");

    /* walk (1 s) and idle (3 s) blended half and half, cycles synced */
    sinew_playback two[2] = {sinew_playback_start(walk, true), sinew_playback_start(idle, true)};
    const float half[2] = {0.5f, 0.5f};
    float apart = 0.0f;
    for (int f = 0; f < 240; ++f) {
        if (sinew_playback_advance_synced(two, half, 2, 1.0f / 60.0f, NULL, &err) != SINEW_OK)
            return fail_with("sync", &err);
        apart = fmaxf(apart, fabsf(sinew_playback_phase(&two[0]) - sinew_playback_phase(&two[1])));
    }
    printf("      blend walk 0.5 + idle 0.5, synced: one %.2f s cycle, phases apart by at most %.1g over 4 s\n",
           0.5 * (double)(walk->duration + idle->duration), (double)apart);

    /* crossfade walk -> idle: the weight at a few moments */
    sinew_crossfade fade = sinew_crossfade_start(sinew_playback_start(walk, true), sinew_playback_start(idle, true),
                                                 0.5f, true);
    printf("      crossfade walk -> idle over 0.50 s, synced; weight of idle:");
    for (int f = 0; f <= 5; ++f) printf(" %.2f", (double)(f ? sinew_crossfade_advance(&fade, 0.1f, NULL)
                                                            : sinew_crossfade_weight(&fade)));
    printf("\n");

    /* root motion of the walk over one loop, in 60 Hz steps */
    sinew_playback p = sinew_playback_start(walk, true);
    sinew_vec3 travel = {0, 0, 0};
    float fastest = 0.0f, slowest = INFINITY;
    for (int f = 0; f < 60; ++f) {
        float from = p.time;
        int wraps = sinew_playback_advance(&p, 1.0f / 60.0f);
        sinew_root_motion_job job = {.clip = walk, .skeleton = sk, .joint = 0, .from = from, .to = p.time,
                                     .wraps = wraps};
        if (sinew_root_motion(&job, &err) != SINEW_OK) return fail_with("root motion", &err);
        travel = sinew_vec3_add(travel, job.translation); /* the walk does not turn */
        float speed = 60.0f * sinew_vec3_length(job.translation);
        fastest = fmaxf(fastest, speed), slowest = fminf(slowest, speed);
    }
    printf("      root motion of walk over one loop: %.3f m forward, %.3f to %.3f m/s per step (the wrap's too)\n",
           (double)travel.z, (double)slowest, (double)fastest);

    /* the left foot lifted 25 cm and 10 cm forward at mid-stride */
    int foot = sinew_skeleton_find_joint(sk, "foot_l");
    if (sinew_clip_sample(walk, sk, 0.5f, SINEW_SAMPLE_LOOP, NULL, local, n, &err) != SINEW_OK ||
        sinew_local_to_model(sk, local, NULL, model, n, &err) != SINEW_OK)
        return fail_with("IK pose", &err);
    sinew_vec3 target = sinew_vec3_make(model[foot].m[12], model[foot].m[13] + 0.25f, model[foot].m[14] + 0.1f);
    sinew_ik_two_bone_job ik = {.skeleton = sk, .model = model, .local = local, .count = n,
                                .start_joint = sk->parents[sk->parents[foot]], .mid_joint = sk->parents[foot],
                                .end_joint = foot, .target = target, .weight = 1.0f};
    if (sinew_ik_two_bone(&ik, &err) != SINEW_OK || sinew_local_to_model(sk, local, NULL, model, n, &err) != SINEW_OK)
        return fail_with("IK", &err);
    sinew_vec3 reached = sinew_vec3_make(model[foot].m[12], model[foot].m[13], model[foot].m[14]);
    printf("      two-bone IK lifts foot_l 25 cm at mid-stride: it lands %.2g m from the target\n",
           (double)sinew_vec3_length(sinew_vec3_sub(reached, target)));
    return EXIT_OK;
}

static int cmd_demo(int argc, char **argv)
{
    cli_args p = cli_args_begin("demo", argc, argv);
    while (cli_next(&p)) cli_unknown(&p);
    if (p.status != EXIT_OK) return p.status;
    sinew_asset *a = cli_load_asset("demo", NULL, NULL);
    if (!a) return EXIT_FAILED;
    const sinew_skeleton *sk = a->skeleton;
    const sinew_mesh *mesh = &a->meshes[0];
    const sinew_skin *skin = mesh->skin;
    int n = sk->joint_count, nv = mesh->vertex_count;

    printf("sinew %s demo: built-in character \"%s\"\n", sinew_version(), a->name);
    printf("  %d joints, mesh \"%s\" with %d vertices and %d triangles, %d clips\n", n, mesh->name, nv,
           mesh->index_count / 3, a->clip_count);

    sinew_transform *local = malloc(sizeof *local * (size_t)n);
    sinew_mat4 *model = malloc(sizeof *model * (size_t)n);
    sinew_mat4 *palette = malloc(sizeof *palette * (size_t)skin->joint_count);
    sinew_dq_transform *dq = malloc(sizeof *dq * (size_t)skin->joint_count);
    float *lbs_pos = malloc(sizeof(float) * 3 * (size_t)nv), *lbs_nrm = malloc(sizeof(float) * 3 * (size_t)nv);
    float *lbs_tan = malloc(sizeof(float) * 4 * (size_t)nv);
    float *dqs_pos = malloc(sizeof(float) * 3 * (size_t)nv), *dqs_nrm = malloc(sizeof(float) * 3 * (size_t)nv);
    float *dqs_tan = malloc(sizeof(float) * 4 * (size_t)nv);
    int32_t *keys = calloc(64, sizeof *keys);
    int status = EXIT_OK;
    if (!local || !model || !palette || !dq || !lbs_pos || !lbs_nrm || !lbs_tan || !dqs_pos || !dqs_nrm || !dqs_tan ||
        !keys) {
        fprintf(stderr, "sinew: demo: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }

    const int fps = 60;
    double stage_time[STAGE_COUNT] = {0};
    long frames_total = 0;
    for (int c = 0; c < a->clip_count && status == EXIT_OK; ++c) {
        const sinew_clip *clip = a->clips[c];
        if (clip->track_count > 64) continue;
        memset(keys, 0, sizeof *keys * 64);
        sinew_cursor cursor = {keys, 64};
        /* two full cycles of each clip, played forward with wrap-around */
        int frames = (int)ceilf(2.0f * clip->duration * (float)fps);
        float lo_y = INFINITY, hi_y = -INFINITY, max_gap = 0.0f, root_travel = 0.0f;
        sinew_vec3 root_start = {0, 0, 0};
        for (int f = 0; f < frames; ++f) {
            float t = (float)f / (float)fps;
            sinew_error err = {0};
            double t0 = now_seconds();
            if (sinew_clip_sample(clip, sk, t, SINEW_SAMPLE_LOOP, &cursor, local, n, &err) != SINEW_OK) {
                status = fail_with("sample", &err);
                break;
            }
            double t1 = now_seconds();
            sinew_local_to_model(sk, local, NULL, model, n, &err);
            double t2 = now_seconds();
            sinew_skin_palette(skin, model, n, NULL, palette, skin->joint_count, &err);
            double t3 = now_seconds();
            sinew_skin_job job = {.skin = skin, .palette = palette, .dq_palette = dq,
                                  .palette_count = skin->joint_count,
                                  .positions = mesh->positions, .normals = mesh->normals,
                                  .tangents = mesh->tangents, .out_positions = lbs_pos,
                                  .out_normals = lbs_nrm, .out_tangents = lbs_tan};
            if (sinew_skin_lbs(&job, &err) != SINEW_OK) {
                status = fail_with("LBS", &err);
                break;
            }
            double t4 = now_seconds();
            job.out_positions = dqs_pos, job.out_normals = dqs_nrm, job.out_tangents = dqs_tan;
            if (sinew_dq_palette(palette, skin->joint_count, dq, &err) != SINEW_OK ||
                sinew_skin_dqs(&job, &err) != SINEW_OK) {
                status = fail_with("DQS", &err);
                break;
            }
            double t5 = now_seconds();
            stage_time[STAGE_SAMPLE] += t1 - t0;
            stage_time[STAGE_MODEL] += t2 - t1;
            stage_time[STAGE_PALETTE] += t3 - t2;
            stage_time[STAGE_LBS] += t4 - t3;
            stage_time[STAGE_DQS] += t5 - t4;
            ++frames_total;

            sinew_vec3 root = sinew_vec3_make(model[0].m[12], model[0].m[13], model[0].m[14]);
            if (f == 0) root_start = root;
            root_travel = fmaxf(root_travel, sinew_vec3_length(sinew_vec3_sub(root, root_start)));
            for (int v = 0; v < nv; ++v) {
                float y = lbs_pos[v * 3 + 1];
                lo_y = fminf(lo_y, y), hi_y = fmaxf(hi_y, y);
                for (int k = 0; k < 3; ++k) max_gap = fmaxf(max_gap, fabsf(lbs_pos[v * 3 + k] - dqs_pos[v * 3 + k]));
            }
        }
        if (status != EXIT_OK) break;
        printf("  clip \"%s\" (%.2f s, %d tracks): %d frames at %d Hz over two cycles\n", clip->name,
               (double)clip->duration, clip->track_count, frames, fps);
        printf("      mesh height %.3f to %.3f m; root travels up to %.3f m before the loop wraps;\n"
               "      LBS and DQS positions differ by at most %.1f mm\n",
               (double)lo_y, (double)hi_y, (double)root_travel, 1000.0 * (double)max_gap);
    }
    if (status == EXIT_OK) status = demo_layer(a, local, model);
    if (status == EXIT_OK) {
        /* the character's objects and the skinning jobs ask for no level:
         * they run the best this CPU runs, as a game that asks for none */
        printf("  time per stage over %ld frames (one thread; SIMD level %s, the best this CPU runs, each stage "
               "with its best kernel up to it; sinew bench --simd compares):\n",
               frames_total, sinew_simd_name(sinew_simd_supported()));
        printf("      %-26s %12s %14s\n", "stage", "total ms", "per frame us");
        double total = 0.0;
        for (int s = 0; s < STAGE_COUNT; ++s) {
            printf("      %-26s %12.3f %14.2f\n", stage_names[s], 1e3 * stage_time[s],
                   1e6 * stage_time[s] / (double)frames_total);
            total += stage_time[s];
        }
        printf("      %-26s %12.3f %14.2f\n", "all", 1e3 * total, 1e6 * total / (double)frames_total);
    }
done:
    free(local), free(model), free(palette), free(dq);
    free(lbs_pos), free(lbs_nrm), free(lbs_tan), free(dqs_pos), free(dqs_nrm), free(dqs_tan), free(keys);
    sinew_asset_free(a);
    return status;
}

/* -h or --help among a command's arguments. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; ++i)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_print_help(stderr, NULL);
        return EXIT_USAGE;
    }
    /* options before the command: -v for any command (one that loads
     * nothing has nothing more to say), and --formats, --accept-partial and
     * --max-memory for those that read files (sinew -v info walk.fbx reads
     * as sinew info walk.fbx -v) */
    int first = 1;
    const char *formats_before = NULL, *load_option = NULL;
    for (; first < argc; ++first) {
        const char *a = argv[first];
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
            cli_verbose = true;
        else if (strncmp(a, "--formats=", 10) == 0)
            formats_before = a + 10, load_option = a;
        else if (strcmp(a, "--formats") == 0 && first + 1 < argc)
            formats_before = argv[++first], load_option = a;
        else if (strcmp(a, "--accept-partial") == 0)
            cli_accept_partial = true, load_option = a;
        else if (strncmp(a, "--max-memory", 12) == 0 && (a[12] == '=' || (!a[12] && first + 1 < argc))) {
            load_option = a;
            const char *v = a[12] ? a + 13 : argv[++first];
            if (!parse_mib(v, &cli_max_memory)) {
                fprintf(stderr, "sinew: --max-memory %s is not a size in MiB (1 to 1048576)\n", v);
                return EXIT_USAGE;
            }
        } else
            break;
    }
    if (first > 1) {
        argv += first - 1, argc -= first - 1;
        if (argc < 2) {
            fprintf(stderr, "sinew: no command after the options; see sinew --help\n");
            return EXIT_USAGE;
        }
    }
    cli_formats = formats_before;
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        cli_args p = cli_args_begin("help", argc - 2, argv + 2);
        if (argc > 3) return cli_usage(&p, "unexpected argument \"%s\" (one COMMAND at most)", argv[3]);
        if (!cli_print_help(stdout, argc > 2 ? argv[2] : NULL)) {
            cli_usage(&p, "unknown command \"%s\"", argv[2]);
            fputs("sinew: the commands:", stderr);
            for (int c = 0; c < COMMAND_COUNT; ++c) fprintf(stderr, " %s", commands[c].name);
            fputc('\n', stderr);
            return EXIT_USAGE;
        }
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("sinew %s\n", sinew_version());
        return EXIT_OK;
    }
    const cli_command *c = find_command(cmd);
    if (!c) {
        fprintf(stderr, "sinew: unknown command \"%s\"; see sinew --help\n", cmd);
        return EXIT_USAGE;
    }
    if (wants_help(argc - 2, argv + 2)) {
        cli_print_help(stdout, c->name);
        return EXIT_OK;
    }
    if (load_option && !c->reads_files) {
        fprintf(stderr, "sinew: %s: %s: %s reads no files\n", c->name, load_option, c->name);
        return EXIT_USAGE;
    }
    cli_command_name = c->name;
    return c->run(argc - 2, argv + 2);
}
