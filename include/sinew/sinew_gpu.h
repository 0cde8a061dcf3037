/* SPDX-License-Identifier: MIT */
/*
 * sinew on the GPU: the skinning vertex shader (GLSL) and a small OpenGL
 * helper to upload a skinned mesh and its palette. Part of libsinew_gpu,
 * which links libsinew; the GL helper needs libepoxy (apt-get install
 * libepoxy-dev) when the library is built, and fails with
 * SINEW_ERROR_UNSUPPORTED naming it otherwise. The shader text and the
 * packing functions need no GL at all.
 *
 * The shader is shaders/sinew_skin.vert (installed to share/sinew/shaders)
 * and the string sinew_glsl_skin_vert below; its header comment is its
 * manual: options, attribute locations, palette layout. One frame:
 *
 *   // once
 *   sinew_gl_program_desc pd = { .vertex = { .method = SINEW_SKINNING_LBS },
 *                                .fragment = my_fragment_source };
 *   unsigned program = sinew_gl_program_create(&pd, &err);   // 0: see err
 *   sinew_gl_mesh gm;
 *   sinew_gl_mesh_upload(&(sinew_gl_mesh_desc){ .vertex_count = mesh->vertex_count,
 *       .positions = mesh->positions, .normals = mesh->normals, .skin = mesh->skin,
 *       .index_count = mesh->index_count, .indices = mesh->indices }, &gm, &err);
 *   unsigned palette_buffer = sinew_gl_palette_create(mesh->skin->joint_count, &err);
 *   // per frame: the palette on the CPU (sinew.h), then
 *   sinew_gl_palette_write(palette_buffer, 0, SINEW_SKINNING_LBS, palette, joint_count, &err);
 *   glUseProgram(program);  // and set sinew_view_projection
 *   glBindBufferBase(GL_UNIFORM_BUFFER, SINEW_GL_PALETTE_BINDING, palette_buffer);
 *   sinew_gl_mesh_draw(&gm, 1);
 *
 * With the SSBO palette (sinew_glsl_options.ssbo) one buffer holds a
 * palette per instance: write instance i's at slot i * joint_count, set the
 * uniform sinew_joint_count, bind with GL_SHADER_STORAGE_BUFFER, and draw
 * instance_count instances.
 *
 * Index, by pipeline stage:
 *
 *   GLSL         sinew_glsl_compose sinew_gpu_dq_pack (and sinew_glsl_skin_vert,
 *                sinew_glsl_vat_vert)
 *   OpenGL       sinew_gl_context_create sinew_gl_context_free sinew_gl_program_create
 *                sinew_gl_mesh_upload sinew_gl_mesh_update sinew_gl_mesh_draw
 *                sinew_gl_mesh_free sinew_gl_palette_create sinew_gl_palette_write
 *   CUDA crowds  sinew_cuda_available sinew_cuda_crowd_create sinew_cuda_crowd_free
 *                sinew_cuda_character_add sinew_cuda_frame sinew_cuda_output
 *                sinew_cuda_output_compact sinew_cuda_instance_offset sinew_cuda_download
 *                sinew_cuda_download_palette sinew_cuda_poison sinew_cuda_last_timing
 *   Formats      sinew_half_to_float sinew_float_to_half sinew_octahedral_encode
 *                sinew_octahedral_decode
 *
 * The GL functions use the context current on the calling thread. They
 * leave the vertex array, GL_ARRAY_BUFFER and GL_COPY_WRITE_BUFFER bindings
 * at 0 (sinew_gl_mesh_draw() leaves its vertex array bound) and report GL
 * errors as SINEW_ERROR_GPU naming the call.
 */
#ifndef SINEW_GPU_H
#define SINEW_GPU_H

#include "sinew_asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* GLSL                                                                      */
/* ======================================================================== */

/* The text of shaders/sinew_skin.vert, NUL-terminated, without a #version
 * line. */
SINEW_API extern const char sinew_glsl_skin_vert[];

/* The text of shaders/sinew_vat.vert, NUL-terminated, without a #version
 * line: vertex animation textures as `sinew vat` writes them (docs/VAT.md)
 * played back, two frames mixed, a time offset per instance. Its header
 * comment is its manual: textures, uniforms, the offset's location (7). */
SINEW_API extern const char sinew_glsl_vat_vert[];

/* Joints the uniform-block palette holds (16 KiB, the smallest
 * GL_MAX_UNIFORM_BLOCK_SIZE a driver may have). */
#define SINEW_GLSL_UBO_JOINTS 256

/* Floats per joint slot in a palette buffer, for both methods. */
#define SINEW_GPU_SLOT_FLOATS 16

/* Which variant of the shader to build. Zero-initialized: LBS, uniform-block
 * palette, 4 influences, exact normals, with main(), the lowest #version
 * that works. */
typedef struct sinew_glsl_options {
    sinew_skinning method;
    bool ssbo;           /* palette in a shader storage block (GLSL 4.30) */
    int influences;      /* per vertex: up to 4 (0 too) gives 4, 5..8 gives 8 */
    bool fast_normals;   /* LBS normals by M itself (SINEW_NORMALS_FAST) */
    bool no_main;        /* declarations and sinew_skin() only */
    const char *version; /* the #version line's text ("450 core"); NULL: "330 core",
                            "430 core" with ssbo */
    bool vat;            /* the vertex animation texture player (sinew_glsl_vat_vert)
                            instead of skinning: method, ssbo, influences and
                            fast_normals unused; no_main and version taken */
    bool vat_float;      /* with vat: float32 textures (`sinew vat --float`), not 16-bit */
} sinew_glsl_options;

/* Writes the complete shader text for `options` (NULL: the defaults): the
 * #version line, the options as #defines, then sinew_glsl_skin_vert (or
 * sinew_glsl_vat_vert with options->vat), into
 * `out` (`capacity` bytes, always NUL-terminated when capacity > 0, cut
 * short when too small). Returns the length of the whole text without the
 * NUL, as snprintf does: call with capacity 0 to size the buffer. */
SINEW_API size_t sinew_glsl_compose(const sinew_glsl_options *options, char *out, size_t capacity);

/* Writes `count` dual quaternion transforms in the shader's DQS palette
 * layout, SINEW_GPU_SLOT_FLOATS floats each: real (x, y, z, w), dual, then
 * the stretch's upper triangle s00 s01 s02 s11 s12 s22 and two zeros. The
 * stretch sinew_dq_palette() computes is upper triangular (R comes from the
 * axes by Gram-Schmidt); the entries below its diagonal are rounding noise
 * and are not written. */
SINEW_API void sinew_gpu_dq_pack(const sinew_dq_transform *dq, int count, float *out);

/* ======================================================================== */
/* OpenGL helper                                                             */
/* ======================================================================== */

/* The binding point of the palette block (uniform or shader storage) in
 * programs from sinew_gl_program_create(). */
#define SINEW_GL_PALETTE_BINDING 0

/* An OpenGL context with no window. */
typedef struct sinew_gl_context sinew_gl_context;

/* Creates an OpenGL core context without a window through EGL (Mesa's
 * surfaceless platform first, then the first EGL device, then the default
 * display), the highest of 4.5, 4.3 and 3.3 the driver gives, and makes it
 * current on this thread. With no window there is no default framebuffer:
 * a 1x1 framebuffer object is created and bound, so that draws (transform
 * feedback too) have a complete one; bind your own to render pictures.
 * Errors: SINEW_ERROR_UNSUPPORTED (built without GL), SINEW_ERROR_GPU
 * (no display, config or context: the description names the step).
 * Free with sinew_gl_context_free(). */
SINEW_API sinew_gl_context *sinew_gl_context_create(sinew_error *err);

/* Releases the context (NULL is fine); nothing is current afterwards. The
 * EGL display stays initialized: it is shared by everything in the process
 * that uses EGL. */
SINEW_API void sinew_gl_context_free(sinew_gl_context *context);

/* A program: the skinning vertex shader and the caller's other stages. */
typedef struct sinew_gl_program_desc {
    sinew_glsl_options vertex;
    const char *vertex_main;          /* appended to the vertex text (with vertex.no_main), or NULL */
    const char *vertex_source;        /* a complete vertex shader of the caller's instead (no
                                         skinning: vertex and vertex_main unused), or NULL */
    const char *fragment;             /* a complete fragment shader, or NULL for none */
    const char *const *feedback;      /* transform feedback outputs, one buffer each */
    int feedback_count;               /* (GL_SEPARATE_ATTRIBS), 0 for none */
} sinew_gl_program_desc;

/* Compiles and links a program and binds its palette block to
 * SINEW_GL_PALETTE_BINDING. Returns the GL program name, or 0 on failure
 * with `err` filled: SINEW_ERROR_UNSUPPORTED (built without GL),
 * SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_OUT_OF_MEMORY, SINEW_ERROR_GPU
 * with the driver's log (the stage and line). Delete with
 * glDeleteProgram(). */
SINEW_API unsigned sinew_gl_program_create(const sinew_gl_program_desc *desc, sinew_error *err);

/* A mesh on the GPU: one buffer per stream, a vertex array with the
 * shader's attribute locations. */
typedef struct sinew_gl_mesh {
    unsigned vertex_array;
    unsigned positions, normals, tangents; /* buffers (0: stream absent) */
    unsigned joints, weights;              /* influences, 4 or 8 per vertex */
    unsigned indices;                      /* 0: drawn as a vertex list */
    int vertex_count;
    int index_count;
    int influences;   /* 4 or 8: the shader variant (sinew_glsl_options.influences) it needs */
} sinew_gl_mesh;

typedef struct sinew_gl_mesh_desc {
    int vertex_count;
    const float *positions;   /* 3 per vertex, required */
    const float *normals;     /* 3 per vertex, or NULL */
    const float *tangents;    /* 4 per vertex, or NULL */
    const sinew_skin *skin;   /* NULL: rigid, every vertex on palette slot 0 with weight 1 */
    int index_count;
    const uint32_t *indices;  /* triangle list, or NULL */
    bool dynamic;             /* streams rewritten often (sinew_gl_mesh_update) */
    int influences;           /* 8: padded for the 8-influence shader even when 4 would
                                 do (one program for every mesh); 0: 4 or 8, the fewest
                                 the skin needs */
} sinew_gl_mesh_desc;

/* Uploads a mesh. Influences keep the skin's types (u8 or u16 indices;
 * float, unorm8 or unorm16 weights), padded with zero weights to 4 or 8 per
 * vertex (mesh->influences says which). A stream left NULL gets no buffer; the shader's outputs that
 * depend on it are then meaningless. Allocates a temporary copy of the
 * influences. Errors: SINEW_ERROR_UNSUPPORTED, SINEW_ERROR_INVALID_ARGUMENT
 * (counts, an index out of range of vertex_count, influences other than
 * 0, 4 or 8, or 4 for a skin of more), SINEW_ERROR_OUT_OF_MEMORY,
 * SINEW_ERROR_GPU. On failure nothing is left allocated. */
SINEW_API sinew_result sinew_gl_mesh_upload(const sinew_gl_mesh_desc *desc, sinew_gl_mesh *mesh,
                                            sinew_error *err);

/* Rewrites the vertex streams of an uploaded mesh (after CPU morph targets,
 * say): each non-NULL one, vertex_count vertices, into the buffer it was
 * uploaded to. Errors: SINEW_ERROR_INVALID_ARGUMENT (a stream the mesh was
 * uploaded without), SINEW_ERROR_GPU. */
SINEW_API sinew_result sinew_gl_mesh_update(const sinew_gl_mesh *mesh, const float *positions,
                                            const float *normals, const float *tangents, sinew_error *err);

/* Draws `instances` instances of the mesh as triangles (a point list
 * under GL_RASTERIZER_DISCARD is the caller's glDrawArrays). Leaves its
 * vertex array bound. */
SINEW_API void sinew_gl_mesh_draw(const sinew_gl_mesh *mesh, int instances);

/* Deletes the mesh's buffers and vertex array and zeroes it (NULL fine). */
SINEW_API void sinew_gl_mesh_free(sinew_gl_mesh *mesh);

/* Creates a palette buffer of `slots` joint slots (SINEW_GPU_SLOT_FLOATS
 * floats each), zeroed; at least SINEW_GLSL_UBO_JOINTS slots, since GL
 * wants a bound uniform block covered whole. Returns the GL buffer name, or
 * 0 on failure with `err` filled: SINEW_ERROR_UNSUPPORTED,
 * SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_GPU (out of GPU memory among
 * them). Delete with glDeleteBuffers(). */
SINEW_API unsigned sinew_gl_palette_create(int slots, sinew_error *err);

/* Writes `count` palette matrices (from sinew_skin_palette()) into `buffer`
 * from slot `first` on, as the shader's `method` reads them: the matrices as
 * they are for LBS; for DQS converted by sinew_dq_palette() and
 * sinew_gpu_dq_pack(), a few joints at a time on the stack (nothing is
 * allocated). A singular matrix is written as the identity and reported
 * (SINEW_ERROR_SINGULAR, the rest still written). Other errors:
 * SINEW_ERROR_UNSUPPORTED, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ERROR_GPU
 * (the slots exceed the buffer among them). */
SINEW_API sinew_result sinew_gl_palette_write(unsigned buffer, int first, sinew_skinning method,
                                              const sinew_mat4 *palette, int count, sinew_error *err);


/* ======================================================================== */
/* CUDA crowds                                                               */
/* ======================================================================== */

/* Many characters posed and skinned on an NVIDIA GPU in one call a frame.
 * Built when CMake is given -DSINEW_CUDA=ON (sm_90 code and PTX that later
 * GPUs compile); otherwise every function fails with
 * SINEW_ERROR_UNSUPPORTED naming the option. One frame:
 *
 *   sinew_cuda_crowd *crowd = sinew_cuda_crowd_create(0, &err);   // device 0; NULL: see err
 *   int hero;
 *   sinew_cuda_character_add(crowd, &(sinew_cuda_character_desc){
 *       .skeleton = a->skeleton, .clips = a->clips, .clip_count = a->clip_count,
 *       .mesh = &a->meshes[0] }, &hero, &err);            // uploaded once
 *   // per frame: each instance's character, two clips, times and weight
 *   sinew_cuda_frame(crowd, instances, n, &(sinew_cuda_frame_desc){
 *       .method = SINEW_SKINNING_LBS, .normals = true }, &err);
 *   sinew_cuda_output(crowd, &positions, &normals);        // device pointers
 *
 * Per instance the GPU does what the CPU reference does: samples both clips
 * (sinew_clip_sample: STEP, LINEAR with slerp or nlerp, CUBICSPLINE), blends
 * them (sinew_blend with weights 1 - weight and weight), local to model,
 * the palette (model * inverse bind), and LBS (normals through the cofactor
 * matrix, SINEW_NORMALS_INVERSE_TRANSPOSE, or by M with .fast_normals) or
 * DQS of the mesh's positions and normals. WEIGHTS tracks (morph targets)
 * are not played on the GPU. Instance i's vertices start at vertex
 * sinew_cuda_instance_offset(crowd, i) of the output buffers (3 floats a
 * vertex, or the compact formats below); each instance's range starts at a
 * multiple of 4 vertices (16-byte aligned), so up to 3 vertices of padding
 * (unspecified values) may follow it.
 *
 * Errors name the failing CUDA call and its message (SINEW_ERROR_GPU); a
 * machine with no usable GPU or driver fails sinew_cuda_crowd_create. A
 * crowd is used from one thread at a time. */
typedef struct sinew_cuda_crowd sinew_cuda_crowd;

/* Whether a CUDA device can be used: false with the reason in `err` (built
 * without CUDA, no driver, no device). */
SINEW_API bool sinew_cuda_available(sinew_error *err);

/* Creates a crowd on CUDA device `device`. Returns NULL on failure with
 * `err` filled: SINEW_ERROR_UNSUPPORTED (built without CUDA),
 * SINEW_ERROR_GPU (no driver or device, or a CUDA call failed: the
 * description names it), SINEW_ERROR_OUT_OF_MEMORY. Free with
 * sinew_cuda_crowd_free(). */
SINEW_API sinew_cuda_crowd *sinew_cuda_crowd_create(int device, sinew_error *err);

/* Frees the crowd and its device memory (NULL is fine). */
SINEW_API void sinew_cuda_crowd_free(sinew_cuda_crowd *crowd);

/* A character: a skeleton, the clips instances play (each animating that
 * skeleton), one skinned mesh (its skin's joints index the skeleton). */
typedef struct sinew_cuda_character_desc {
    const sinew_skeleton *skeleton;
    const sinew_clip *const *clips;
    int clip_count;
    const sinew_mesh *mesh;
} sinew_cuda_character_desc;

/* Uploads a character (copied; the desc's objects may be freed after) and
 * returns its index in *id (0, 1, ... in order). Errors:
 * SINEW_ERROR_INVALID_ARGUMENT (no skin, a clip for another skeleton, a
 * packed or compressed clip, more than 1024 joints), SINEW_ERROR_GPU. */
SINEW_API sinew_result sinew_cuda_character_add(sinew_cuda_crowd *crowd, const sinew_cuda_character_desc *desc,
                                                int *id, sinew_error *err);

/* One instance's state this frame: it plays clips[0] at times[0] and
 * clips[1] at times[1] (seconds; -1 for no second clip), blended with
 * clips[1] weighing `weight` (0..1). */
typedef struct sinew_cuda_instance {
    int character;
    int clips[2];
    float times[2];
    float weight;
} sinew_cuda_instance;

/* How a frame writes its outputs.
 *
 * SINEW_CUDA_FLOAT: positions and normals as 3 floats a vertex (12 bytes
 * each): sinew_cuda_output().
 *
 * SINEW_CUDA_COMPACT: 12 bytes a vertex in all, half the traffic, for
 * renderers that read them so (sinew_cuda_output_compact()):
 *   positions: 4 IEEE binary16 halves a vertex (x, y, z, 1), rounded to
 *     nearest even: 11 significant bits, so an error up to 2^-11 of each
 *     coordinate's size (1 mm at 2 m), and coordinates beyond 65504 become
 *     infinite: for characters measured in units that keep them smaller;
 *   normals: one 32-bit word a vertex, the octahedral map of the unit
 *     normal (Cigolle et al. 2014: p = n.xy / (|x| + |y| + |z|), folded as
 *     ((1 - |p.y|) sign p.x, (1 - |p.x|) sign p.y) where z < 0), each of
 *     p.x, p.y as a signed 16-bit round(p * 32767), x in the low half:
 *     each component within 7e-5 (sinew_octahedral_decode()). */
typedef enum sinew_cuda_format {
    SINEW_CUDA_FLOAT = 0,
    SINEW_CUDA_COMPACT = 1
} sinew_cuda_format;

typedef struct sinew_cuda_frame_desc {
    sinew_skinning method;    /* LBS or DQS */
    bool normals;             /* skin the normals too (the mesh must have them) */
    bool fast_normals;        /* LBS normals by M itself (SINEW_NORMALS_FAST) */
    unsigned sample_flags;    /* SINEW_SAMPLE_LOOP, SINEW_SAMPLE_NLERP */
    sinew_cuda_format format; /* of the outputs: SINEW_CUDA_FLOAT (0) or SINEW_CUDA_COMPACT */
} sinew_cuda_frame_desc;

/* Poses and skins `count` instances (host array, copied) into the crowd's
 * output buffers, grown as needed. Waits for the GPU before returning.
 * Errors: SINEW_ERROR_INVALID_ARGUMENT naming the instance (unknown
 * character or clip, times or weight not finite, weight outside 0..1),
 * SINEW_ERROR_GPU. */
SINEW_API sinew_result sinew_cuda_frame(sinew_cuda_crowd *crowd, const sinew_cuda_instance *instances, int count,
                                        const sinew_cuda_frame_desc *desc, sinew_error *err);

/* The device pointers of the last frame's outputs in SINEW_CUDA_FLOAT: 3
 * floats per vertex (normals NULL when the frame skinned none; both NULL
 * when it wrote another format). Valid until the next frame. */
SINEW_API void sinew_cuda_output(const sinew_cuda_crowd *crowd, const float **positions, const float **normals);

/* The device pointers of the last frame's outputs in SINEW_CUDA_COMPACT: 4
 * halves (positions) and one octahedral word (normals) per vertex (normals
 * NULL when the frame skinned none; both NULL when it wrote floats). */
SINEW_API void sinew_cuda_output_compact(const sinew_cuda_crowd *crowd, const uint16_t **positions,
                                         const uint32_t **normals);

/* The first output vertex of instance i of the last frame. */
SINEW_API size_t sinew_cuda_instance_offset(const sinew_cuda_crowd *crowd, int instance);

/* Copies instance i's skinned positions and normals (either may be NULL)
 * of the last frame to the host, 3 floats per vertex of its mesh (a compact
 * frame's outputs decoded: sinew_half_to_float, sinew_octahedral_decode). */
SINEW_API sinew_result sinew_cuda_download(const sinew_cuda_crowd *crowd, int instance, float *positions,
                                           float *normals, sinew_error *err);

/* Instance i's skinning palette of the last frame (the character's skin
 * joint count of 3x4 matrices, 12 floats each, column-major), to the host:
 * for checks against sinew_skin_palette(). */
SINEW_API sinew_result sinew_cuda_download_palette(const sinew_cuda_crowd *crowd, int instance, float *out,
                                                   sinew_error *err);

/* Sets every byte of the output buffers (and the palettes) to `byte`, so
 * that a check can prove the next frame wrote every element (0xff: NaN). */
SINEW_API sinew_result sinew_cuda_poison(sinew_cuda_crowd *crowd, int byte, sinew_error *err);

/* Times of a frame's parts on the GPU, milliseconds (CUDA events): the
 * upload of the instance states, pose (sampling, blending, local to model,
 * palette), skinning, and the whole frame from upload to end of skinning. */
typedef struct sinew_cuda_timing {
    float upload_ms, pose_ms, skin_ms, frame_ms;
} sinew_cuda_timing;

/* The last frame's sinew_cuda_timing (zeros before the first frame, for an
 * empty one, or without CUDA). */
SINEW_API sinew_cuda_timing sinew_cuda_last_timing(const sinew_cuda_crowd *crowd);

/* The compact output formats on the host (no GPU needed). */

/* An IEEE 754 binary16 value as a float (exact: every half is a float). */
SINEW_API float sinew_half_to_float(uint16_t h);

/* A float as the nearest binary16 (ties to even; beyond 65504 infinite,
 * NaN stays NaN): what the CUDA path's compact positions hold. */
SINEW_API uint16_t sinew_float_to_half(float f);

/* Unit vector n as the octahedral word of SINEW_CUDA_COMPACT (a zero or
 * non-finite vector as +z). */
SINEW_API uint32_t sinew_octahedral_encode(const float n[3]);

/* The unit vector of an octahedral word, normalized, into n[3]. */
SINEW_API void sinew_octahedral_decode(uint32_t word, float n[3]);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_GPU_H */
