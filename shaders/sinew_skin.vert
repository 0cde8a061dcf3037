// SPDX-License-Identifier: MIT
// sinew_skin.vert: skinning on the GPU, the same math as sinew_skin_lbs()
// and sinew_skin_dqs() (include/sinew/sinew.h). GLSL 3.30 core and later;
// 4.30 with SINEW_PALETTE_SSBO.
//
// This file has no #version line: put one first, then the options as
// #defines, then this text (sinew_glsl_compose() in sinew_gpu.h does that).
//
// Options:
//   SINEW_DQS            dual quaternion skinning (default: linear blend skinning)
//   SINEW_PALETTE_SSBO   the palette in a shader storage block: any joint count,
//                        one palette per instance, joint j of instance i at slot
//                        i * sinew_joint_count + j (default: a uniform block of up
//                        to SINEW_UBO_JOINTS = 256 joints, 16 KiB, the portable limit)
//   SINEW_INFLUENCES 8   up to 8 influences per vertex (default 4)
//   SINEW_FAST_NORMALS   LBS normals by the blended matrix itself, not its inverse
//                        transpose (sinew's SINEW_NORMALS_FAST; wrong under
//                        non-uniform scale)
//   SINEW_NO_MAIN        only the inputs, the palette and the functions, for a
//                        shader with its own main()
//
// Vertex inputs (attribute locations):
//   0 position, 1 normal, 2 tangent (w: handedness, kept),
//   3 joint indices 0-3 (uvec4, into the skin's palette), 4 weights 0-3,
//   5 joint indices 4-7, 6 weights 4-7 (with SINEW_INFLUENCES 8).
//   Weights sum to 1; unused influences have weight 0.
//
// Palette: 4 vec4 per joint slot, named block "SinewPalette".
//   LBS: the columns of palette[j] = model[joint] * inverse_bind[j].
//   DQS: real quaternion (x, y, z, w), dual quaternion, then the stretch S
//        (upper triangular, column-major entries s00 s01 s02 s11 | s12 s22 0 0),
//        as sinew_gpu_dq_pack() writes them.
//
// Without SINEW_NO_MAIN, main() writes the skinned vertex to the outputs
// sinew_skinned_position, sinew_skinned_normal, sinew_skinned_tangent (for
// transform feedback or a fragment shader) and gl_Position =
// sinew_view_projection * position.

#ifndef SINEW_INFLUENCES
#define SINEW_INFLUENCES 4
#endif
#define SINEW_UBO_JOINTS 256

layout(location = 0) in vec3 sinew_position;
layout(location = 1) in vec3 sinew_normal;
layout(location = 2) in vec4 sinew_tangent;
layout(location = 3) in uvec4 sinew_joints0;
layout(location = 4) in vec4 sinew_weights0;
#if SINEW_INFLUENCES > 4
layout(location = 5) in uvec4 sinew_joints1;
layout(location = 6) in vec4 sinew_weights1;
#endif

#ifdef SINEW_PALETTE_SSBO
layout(std430) readonly buffer SinewPalette { vec4 sinew_palette[]; };
uniform int sinew_joint_count; // joint slots per instance
int sinew_slot(uint joint) { return (gl_InstanceID * sinew_joint_count + int(joint)) * 4; }
#else
layout(std140) uniform SinewPalette { vec4 sinew_palette[SINEW_UBO_JOINTS * 4]; };
int sinew_slot(uint joint) { return int(joint) * 4; }
#endif

struct sinew_vertex {
    vec3 position;
    vec3 normal;  // unit length
    vec4 tangent; // xyz unit length, w the input's handedness
};

// Influence i of this vertex: its palette joint and weight.
uint sinew_influence_joint(int i)
{
#if SINEW_INFLUENCES > 4
    if (i >= 4) return sinew_joints1[i - 4];
#endif
    return sinew_joints0[i];
}

float sinew_influence_weight(int i)
{
#if SINEW_INFLUENCES > 4
    if (i >= 4) return sinew_weights1[i - 4];
#endif
    return sinew_weights0[i];
}

// The weight this vertex gives palette joint `joint` (0 if none): for
// weight heat maps.
float sinew_weight_of(uint joint)
{
    float w = 0.0;
    for (int i = 0; i < SINEW_INFLUENCES; ++i)
        if (sinew_influence_joint(i) == joint) w += sinew_influence_weight(i);
    return w;
}

// The inverse transpose of a 3x3 matrix applied to a normal, up to a positive
// scale: the cofactor matrix, negated when the determinant is negative.
vec3 sinew_transform_normal(mat3 m, vec3 n)
{
    mat3 cof = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    vec3 r = cof * n;
    return dot(m[0], cof[0]) < 0.0 ? -r : r;
}

#ifndef SINEW_DQS

sinew_vertex sinew_skin()
{
    mat4 m = mat4(0.0);
    for (int i = 0; i < SINEW_INFLUENCES; ++i) {
        float w = sinew_influence_weight(i);
        if (w == 0.0) continue;
        int b = sinew_slot(sinew_influence_joint(i));
        m += w * mat4(sinew_palette[b], sinew_palette[b + 1], sinew_palette[b + 2], sinew_palette[b + 3]);
    }
    mat3 a = mat3(m);
    sinew_vertex v;
    v.position = a * sinew_position + m[3].xyz;
#ifdef SINEW_FAST_NORMALS
    v.normal = normalize(a * sinew_normal);
#else
    v.normal = normalize(sinew_transform_normal(a, sinew_normal));
#endif
    v.tangent = vec4(normalize(a * sinew_tangent.xyz), sinew_tangent.w);
    return v;
}

#else

vec3 sinew_quat_rotate(vec4 q, vec3 v)
{
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

sinew_vertex sinew_skin()
{
    vec4 real = vec4(0.0), dual = vec4(0.0), first = vec4(0.0);
    mat3 s = mat3(0.0);
    bool have_first = false;
    for (int i = 0; i < SINEW_INFLUENCES; ++i) {
        float w = sinew_influence_weight(i);
        if (w == 0.0) continue;
        int b = sinew_slot(sinew_influence_joint(i));
        vec4 r = sinew_palette[b], d = sinew_palette[b + 1];
        vec4 s0 = sinew_palette[b + 2], s1 = sinew_palette[b + 3];
        if (!have_first) {
            first = r;
            have_first = true;
        }
        // antipodality: every rotation on the first influence's side
        float wr = dot(first, r) < 0.0 ? -w : w;
        real += wr * r;
        dual += wr * d;
        s += w * mat3(s0.x, 0.0, 0.0, s0.y, s0.w, 0.0, s0.z, s1.x, s1.y);
    }
    float len = length(real);
    float inv = len > 0.0 ? 1.0 / len : 0.0;
    real *= inv;
    dual *= inv;
    vec3 t = 2.0 * (dual.xyz * real.w - real.xyz * dual.w + cross(real.xyz, dual.xyz));
    sinew_vertex v;
    v.position = sinew_quat_rotate(real, s * sinew_position) + t;
    v.normal = normalize(sinew_quat_rotate(real, sinew_transform_normal(s, sinew_normal)));
    v.tangent = vec4(normalize(sinew_quat_rotate(real, s * sinew_tangent.xyz)), sinew_tangent.w);
    return v;
}

#endif

#ifndef SINEW_NO_MAIN
uniform mat4 sinew_view_projection;
out vec3 sinew_skinned_position;
out vec3 sinew_skinned_normal;
out vec4 sinew_skinned_tangent;

void main()
{
    sinew_vertex v = sinew_skin();
    sinew_skinned_position = v.position;
    sinew_skinned_normal = v.normal;
    sinew_skinned_tangent = v.tangent;
    gl_Position = sinew_view_projection * vec4(v.position, 1.0);
}
#endif
