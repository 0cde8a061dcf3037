/* Local pose to model space, one pass over parents-first joints. */
#include "../internal.h"

static sinew_result check_pose_args(const sinew_skeleton *sk, const void *a, const void *b, int count,
                                    const char *what, sinew_error *err)
{
    if (!sk || !a || !b) return sinew__fail(err, SINEW_ERROR_INVALID_ARGUMENT, "%s: NULL argument", what);
    if (count != sk->joint_count)
        return sinew__fail(err, SINEW_ERROR_SIZE_MISMATCH, "%s: buffer holds %d joints, skeleton has %d", what, count,
                           sk->joint_count);
    return SINEW_OK;
}

sinew_result sinew_local_to_model(const sinew_skeleton *sk, const sinew_transform *local, const sinew_mat4 *root,
                                  sinew_mat4 *model, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, local, model, count, "local_to_model", err);
    if (r != SINEW_OK) return r;
    /* Every TRS matrix is affine; so is the whole pose unless the root
     * matrix is projective, which the general product then carries down. */
    bool affine = !root || (root->m[3] == 0.0f && root->m[7] == 0.0f && root->m[11] == 0.0f && root->m[15] == 1.0f);
    for (int j = 0; j < count; ++j) {
        const sinew_transform *x = &local[j];
        sinew_mat4 m;
        sinew__mat4_from_trs(&m, x->translation, x->rotation, x->scale);
        int p = sk->parents[j];
        const sinew_mat4 *parent = p >= 0 ? &model[p] : root;
        if (!parent)
            model[j] = m;
        else if (affine)
            sinew__mat4_mul_affine(&model[j], parent, &m);
        else
            sinew__mat4_mul(&model[j], parent, &m);
    }
    sinew__ok(err);
    return SINEW_OK;
}

sinew_result sinew_rest_pose(const sinew_skeleton *sk, sinew_transform *out, int count, sinew_error *err)
{
    sinew_result r = check_pose_args(sk, sk ? sk->rest_pose : NULL, out, count, "rest_pose", err);
    if (r != SINEW_OK) return r;
    memcpy(out, sk->rest_pose, sizeof(sinew_transform) * (size_t)count);
    sinew__ok(err);
    return SINEW_OK;
}
