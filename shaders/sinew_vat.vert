// SPDX-License-Identifier: MIT
// sinew_vat.vert: vertex animation textures (docs/VAT.md), as `sinew vat`
// writes them, played on the GPU: each vertex between two baked frames, a
// time offset per instance, so that a crowd of one draw walks out of step.
// GLSL 3.30 core and later.
//
// This file has no #version line: put one first, then the options as
// #defines, then this text (sinew_glsl_compose() with
// sinew_glsl_options.vat does that).
//
// Options:
//   SINEW_VAT_FLOAT   the textures hold the .bin files (--float): positions
//                     as they are, normals as unit x, y, z (GL_RGB32F); by
//                     default the PNGs' 16-bit samples (GL_RGB16, normalized)
//   SINEW_NO_MAIN     only the inputs, uniforms and sinew_vat_vertex(), for a
//                     shader with its own main() (its own instance transforms)
//
// Inputs:
//   gl_VertexID                   the vertex: draw arrays 0..V-1, or index
//                                 the mesh's triangles with its own indices
//   location 7: sinew_vat_time_offset  seconds added to sinew_vat_time, per
//                                 instance (glVertexAttribDivisor(7, 1)); a
//                                 constant attribute (glVertexAttrib1f) for all
//
// Textures (texelFetch only: no filtering, no mipmaps, level 0):
//   sinew_vat_positions   vertex v of frame f at texel
//                         (v mod width, f * rows_per_frame + v / width)
//   sinew_vat_normals     the same texel: octahedral x, y in R, G (0..1 for
//                         -1..1), or with SINEW_VAT_FLOAT the unit normal
//
// Uniforms: the JSON's fields. sinew_vat_time counts seconds from its
// "start". Frames repeat: after the last comes the first again, one frame
// apart (the bake leaves out the frame at the clip's end, which is the
// first); with sinew_vat_clamp the time stops at the first and last frames.
//
// Without SINEW_NO_MAIN, main() writes sinew_vat_position and
// sinew_vat_normal (for transform feedback or a fragment shader) and
// gl_Position = sinew_view_projection * position.

layout(location = 7) in float sinew_vat_time_offset;

uniform sampler2D sinew_vat_positions;
uniform sampler2D sinew_vat_normals;
uniform vec3 sinew_vat_bounds_min;
uniform vec3 sinew_vat_bounds_max;
uniform int sinew_vat_width;
uniform int sinew_vat_rows_per_frame;
uniform int sinew_vat_frames;
uniform float sinew_vat_fps;
uniform float sinew_vat_time;
uniform bool sinew_vat_clamp;

struct sinew_vat_sample {
    vec3 position;
    vec3 normal; // unit length
};

ivec2 sinew_vat_texel(int vertex, int frame)
{
    return ivec2(vertex % sinew_vat_width, frame * sinew_vat_rows_per_frame + vertex / sinew_vat_width);
}

vec3 sinew_vat_position_at(int vertex, int frame)
{
    vec3 t = texelFetch(sinew_vat_positions, sinew_vat_texel(vertex, frame), 0).xyz;
#ifdef SINEW_VAT_FLOAT
    return t;
#else
    return sinew_vat_bounds_min + t * (sinew_vat_bounds_max - sinew_vat_bounds_min);
#endif
}

// The octahedral map's inverse (the folded lower half unfolded), not yet
// unit length.
vec3 sinew_vat_octahedral_decode(vec2 p)
{
    vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
    if (n.z < 0.0) {
        vec2 s = vec2(p.x >= 0.0 ? 1.0 : -1.0, p.y >= 0.0 ? 1.0 : -1.0);
        n.xy = (1.0 - abs(p.yx)) * s;
    }
    return n;
}

vec3 sinew_vat_normal_at(int vertex, int frame)
{
    vec3 t = texelFetch(sinew_vat_normals, sinew_vat_texel(vertex, frame), 0).xyz;
#ifdef SINEW_VAT_FLOAT
    return t;
#else
    return normalize(sinew_vat_octahedral_decode(t.xy * 2.0 - 1.0));
#endif
}

// Vertex `vertex` at `time` seconds from the start: the two frames about it
// mixed linearly (normals mixed, then made unit length).
sinew_vat_sample sinew_vat_vertex(int vertex, float time)
{
    int frames = sinew_vat_frames;
    float u = time * sinew_vat_fps;
    if (sinew_vat_clamp)
        u = clamp(u, 0.0, float(frames - 1));
    else
        u = u - float(frames) * floor(u / float(frames));
    int f0 = clamp(int(floor(u)), 0, frames - 1);
    float a = clamp(u - float(f0), 0.0, 1.0);
    int f1 = f0 + 1 < frames ? f0 + 1 : (sinew_vat_clamp ? f0 : 0);
    vec3 p0 = sinew_vat_position_at(vertex, f0), p1 = sinew_vat_position_at(vertex, f1);
    vec3 n0 = sinew_vat_normal_at(vertex, f0), n1 = sinew_vat_normal_at(vertex, f1);
    sinew_vat_sample s;
    s.position = p0 + a * (p1 - p0);
    vec3 n = n0 + a * (n1 - n0);
    s.normal = length(n) > 0.0 ? normalize(n) : n0;
    return s;
}

#ifndef SINEW_NO_MAIN
uniform mat4 sinew_view_projection;
out vec3 sinew_vat_position;
out vec3 sinew_vat_normal;

void main()
{
    sinew_vat_sample s = sinew_vat_vertex(gl_VertexID, sinew_vat_time + sinew_vat_time_offset);
    sinew_vat_position = s.position;
    sinew_vat_normal = s.normal;
    gl_Position = sinew_view_projection * vec4(s.position, 1.0);
}
#endif
