/* SPDX-License-Identifier: MIT */
/* Skeleton creation: parents-first sorting, validation errors, names; local
 * to model's schedule (with and without late joints) on random forests. */
#include "sinew/sinew.h"
#include "check.h"
#include "skeleton/skeleton_internal.h" /* sinew__make_schedule */

#include <stdlib.h>

static void test_child_before_parent_is_sorted(void)
{
    /* input: 0 hand(parent 2), 1 root, 2 arm(parent 3), 3 spine(parent 1), 4 leg(parent 1) */
    const char *names[] = {"hand", "root", "arm", "spine", "leg"};
    int parents[] = {2, -1, 3, 1, 1};
    sinew_transform rest[5];
    for (int i = 0; i < 5; ++i) {
        rest[i] = sinew_transform_identity();
        rest[i].translation.x = (float)i; /* tags the joint */
    }
    int remap[5];
    sinew_error err;
    sinew_skeleton_desc d = {5, parents, names, rest};
    sinew_skeleton *sk = sinew_skeleton_create(&d, remap, NULL, &err);
    CHECK(sk != NULL, "created: %s", err.description);
    if (!sk) return;
    for (int j = 0; j < 5; ++j) CHECK(sk->parents[j] < j, "joint %d's parent %d comes first", j, sk->parents[j]);
    for (int i = 0; i < 5; ++i) {
        int j = remap[i];
        CHECK(strcmp(sk->names[j], names[i]) == 0, "remap carries name %s", names[i]);
        CHECK(sk->rest_pose[j].translation.x == (float)i, "remap carries the rest pose of %s", names[i]);
        int p = parents[i] < 0 ? -1 : remap[parents[i]];
        CHECK(sk->parents[j] == p, "parent of %s preserved", names[i]);
    }
    /* stable: root, spine, arm, hand (pulled up behind their ancestors), leg */
    const char *expect[] = {"root", "spine", "arm", "hand", "leg"};
    for (int j = 0; j < 5; ++j) CHECK(strcmp(sk->names[j], expect[j]) == 0, "order %d is %s", j, expect[j]);
    CHECK(sinew_skeleton_depth(sk, 3) == 3, "hand depth 3");
    CHECK(sinew_skeleton_depth(sk, 99) == -1, "depth out of range");
    sinew_skeleton_free(sk);
}

static void test_sorted_input_unchanged(void)
{
    int parents[] = {-1, 0, 1, 0, 3, -1, 5};
    int remap[7];
    sinew_skeleton_desc d = {7, parents, NULL, NULL};
    sinew_skeleton *sk = sinew_skeleton_create(&d, remap, NULL, NULL);
    CHECK(sk != NULL, "created");
    if (!sk) return;
    for (int j = 0; j < 7; ++j) {
        CHECK(remap[j] == j, "parents-first input keeps its order");
        CHECK(sk->parents[j] == parents[j], "parent kept");
        CHECK(sk->names[j] && sk->names[j][0] == '\0', "unnamed joints get \"\"");
        CHECK(sk->rest_pose[j].rotation.w == 1.0f && sk->rest_pose[j].scale.y == 1.0f, "identity rest pose");
    }
    sinew_skeleton_free(sk);
}

static void test_errors(void)
{
    sinew_error err;
    const char *names[] = {"a", "b", "c", "d"};
    int cycle[] = {-1, 2, 3, 1};
    sinew_skeleton_desc d = {4, cycle, names, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "cycle refused");
    CHECK_ERROR(err, SINEW_ERROR_CYCLE, "cycle");
    CHECK(strncmp(err.description, "sinew_skeleton_create: ", 23) == 0, "the caller named: %s", err.description);

    int self[] = {-1, 1};
    d = (sinew_skeleton_desc){2, self, names, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "self parent refused");
    CHECK_ERROR(err, SINEW_ERROR_CYCLE, "joint 1 (\"b\")");

    int bad[] = {-1, 0, 7};
    d = (sinew_skeleton_desc){3, bad, names, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "bad parent refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_PARENT, "joint 2 (\"c\"): parent 7");
    int neg[] = {-1, -2};
    d = (sinew_skeleton_desc){2, neg, names, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "parent -2 refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_PARENT, "parent -2");

    d = (sinew_skeleton_desc){SINEW_MAX_JOINTS + 1, bad, NULL, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "too many joints refused");
    CHECK_ERROR(err, SINEW_ERROR_TOO_MANY_JOINTS, "32768");

    sinew_transform rest[2] = {sinew_transform_identity(), sinew_transform_identity()};
    int two[] = {-1, 0};
    rest[1].translation.y = NAN;
    d = (sinew_skeleton_desc){2, two, names, rest};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "NaN rest pose refused");
    CHECK_ERROR(err, SINEW_ERROR_NOT_FINITE, "joint 1 (\"b\")");
    rest[1] = sinew_transform_identity();
    rest[1].rotation = (sinew_quat){0, 0, 0, 0};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "zero rotation refused");
    CHECK_ERROR(err, SINEW_ERROR_BAD_ROTATION, "joint 1");

    d = (sinew_skeleton_desc){2, NULL, names, NULL};
    CHECK(sinew_skeleton_create(&d, NULL, NULL, &err) == NULL, "missing parents refused");
    CHECK_ERROR(err, SINEW_ERROR_INVALID_ARGUMENT, "parents");
    CHECK(sinew_skeleton_create(NULL, NULL, NULL, &err) == NULL, "NULL desc refused");
}

static void test_names_and_repairs(void)
{
    check_log log = {0};
    sinew_options opt = {.logger = {check_log_fn, &log}};
    const char *names[] = {"root", "arm", "arm", "h\xc3\xa4nd", NULL};
    int parents[] = {-1, 0, 0, 1, 3};
    sinew_transform rest[5];
    for (int i = 0; i < 5; ++i) rest[i] = sinew_transform_identity();
    rest[3].rotation = (sinew_quat){0, 0, 0, 2}; /* not unit */
    sinew_skeleton_desc d = {5, parents, names, rest};
    sinew_error err;
    sinew_skeleton *sk = sinew_skeleton_create(&d, NULL, &opt, &err);
    CHECK(sk != NULL, "duplicates are allowed: %s", err.description);
    if (!sk) return;
    CHECK(strstr(log.all, "joints 1 and 2 share the name \"arm\"") != NULL, "duplicate reported: %s", log.all);
    CHECK(strstr(log.all, "1 rest rotation(s) were not unit length") != NULL, "renormalization reported");
    CHECK(sk->rest_pose[3].rotation.w == 1.0f, "rest rotation normalized");
    CHECK(sinew_skeleton_find_joint(sk, "arm") == 1, "lookup finds the first duplicate");
    CHECK(sinew_skeleton_find_joint(sk, "h\xc3\xa4nd") == 3, "UTF-8 name lookup");
    CHECK(sinew_skeleton_find_joint(sk, "") == 4, "the unnamed joint is \"\"");
    CHECK(sinew_skeleton_find_joint(sk, "nope") == -1, "unknown name");
    CHECK(sk->name_hashes[0] == sinew_name_hash("root"), "hash stored");
    sinew_skeleton_free(sk);
}

static void test_large_and_deep(void)
{
    /* the most joints allowed, as one chain listed children first: sorting
     * and lookup stay linear and iterative (no recursion to overflow) */
    int n = SINEW_MAX_JOINTS;
    int *parents = malloc(sizeof(int) * (size_t)n);
    char (*buf)[12] = malloc(12 * (size_t)n);
    const char **names = malloc(sizeof(char *) * (size_t)n);
    if (!parents || !buf || !names) return;
    for (int i = 0; i < n; ++i) {
        parents[i] = i == n - 1 ? -1 : i + 1;
        snprintf(buf[i], 12, "j%d", i);
        names[i] = buf[i];
    }
    sinew_skeleton_desc d = {n, parents, names, NULL};
    sinew_error err;
    sinew_skeleton *sk = sinew_skeleton_create(&d, NULL, NULL, &err);
    CHECK(sk != NULL, "deep chain created: %s", err.description);
    if (sk) {
        bool ok = true;
        for (int j = 0; j < n; ++j) ok = ok && sk->parents[j] == j - 1;
        CHECK(ok, "reversed chain sorted parents first");
        CHECK(strcmp(sk->names[0], "j32766") == 0, "root first");
        CHECK(sinew_skeleton_find_joint(sk, "j0") == n - 1, "lookup in a large skeleton");
        sinew_skeleton_free(sk);
    }
    free(parents), free(buf), free(names);
}

/* sinew__make_schedule on random forests (parents first, as skeletons hold
 * them), with no late joints and with random subtrees marked late: whole
 * blocks of four pairs within the capacity, every joint there, each
 * joint's parent in an earlier pair, and no joint that is not late after a
 * block made of late joints only (they fill the last blocks). */
static void test_schedule(void)
{
    enum { MAX = 70 };
    int16_t parents[MAX], out[2 * MAX + 8];
    int queue[2 * MAX], links[2 * MAX];
    uint8_t late[MAX];
    unsigned seed = 7;
    int bad = 0, cases = 0, late_blocks = 0;
    for (int round = 0; round < 400; ++round) {
        seed = seed * 1664525u + 1013904223u;
        int n = 1 + (int)(seed >> 8) % MAX;
        for (int j = 0; j < n; ++j) {
            seed = seed * 1664525u + 1013904223u;
            parents[j] = (int16_t)(j == 0 || (seed >> 8) % 9 == 0 ? -1 : (int)(seed >> 12) % j);
            late[j] = 0;
        }
        if (round % 2) /* a few subtrees late: a joint is late where its parent is or by chance */
            for (int j = 0; j < n; ++j) {
                seed = seed * 1664525u + 1013904223u;
                late[j] = (parents[j] >= 0 && late[parents[j]]) || (seed >> 8) % 5 == 0;
            }
        int length = sinew__make_schedule(parents, n, round % 2 ? late : NULL, queue, links, out);
        int at_pair[MAX];
        for (int j = 0; j < n; ++j) at_pair[j] = -1;
        bool ok = length % 8 == 0 && (size_t)length <= sinew__schedule_capacity(n), all_late_seen = false;
        for (int e = 0; ok && e < length; ++e) {
            int j = out[e], pair = e / 8 * 4 + e % 4;
            ok = j >= 0 && j < n;
            if (ok && at_pair[j] < 0) at_pair[j] = pair;
        }
        for (int j = 0; ok && j < n; ++j)
            ok = at_pair[j] >= 0 && (parents[j] < 0 || at_pair[parents[j]] < at_pair[j]);
        for (int b = 0; ok && b < length / 8; ++b) {
            bool block_late = true;
            for (int e = 8 * b; e < 8 * b + 8; ++e) block_late = block_late && late[out[e]];
            if (round % 2 == 0) continue;
            ok = block_late || !all_late_seen;
            all_late_seen = all_late_seen || block_late;
            late_blocks += block_late;
        }
        bad += !ok;
        ++cases;
    }
    CHECK(bad == 0, "schedule: %d of %d random forests broke a rule", bad, cases);
    CHECK(late_blocks > 0, "schedule: no block of late joints in %d forests", cases);
}

/* Local to model at the scalar level (SSE2 on x86-64, NEON on AArch64, plain
 * C elsewhere) is the reference's formulas bit for bit: sinew__mat4_from_trs
 * of each joint times its parent's (or the root's) matrix by
 * sinew__mat4_mul_affine. */
static void test_local_to_model_reference(void)
{
    enum { N = 200 };
    int parents[N];
    uint32_t seed = 99;
    sinew_transform *local = malloc(sizeof *local * N);
    sinew_mat4 *got = malloc(sizeof *got * N), *want = malloc(sizeof *want * N);
    for (int j = 0; j < N; ++j) {
        seed = seed * 1664525u + 1013904223u;
        parents[j] = j == 0 ? -1 : (int)(seed % (uint32_t)j);
        float r[7];
        for (int k = 0; k < 7; ++k) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        sinew_quat q = sinew_quat_normalize((sinew_quat){r[0], r[1], r[2], r[3] + 1.5f});
        local[j] = (sinew_transform){{r[4], r[5], r[6]}, q, {1.0f + 0.5f * r[0], 1.0f, 1.0f - 0.25f * r[1]}};
    }
    sinew_skeleton *sk = sinew_skeleton_create(&(sinew_skeleton_desc){N, parents, NULL, NULL}, NULL,
                                               &(sinew_options){.simd = SINEW_SIMD_SCALAR}, NULL);
    CHECK(sk != NULL, "a skeleton of %d joints", N);
    if (sk) {
        sinew_mat4 root = sinew_mat4_identity();
        root.m[12] = 0.25f, root.m[13] = -2.0f, root.m[0] = 0.5f;
        CHECK(sinew_local_to_model(sk, local, &root, got, N, NULL) == SINEW_OK, "local to model");
        for (int j = 0; j < N; ++j) {
            sinew_mat4 m;
            const sinew_transform *x = &local[j];
            sinew__mat4_from_trs(&m, x->translation, x->rotation, x->scale);
            int p = sk->parents[j];
            sinew__mat4_mul_affine(&want[j], p >= 0 ? &want[p] : &root, &m);
        }
        CHECK(memcmp(got, want, sizeof *got * N) == 0, "local to model is the reference's formulas bit for bit");
    }
    sinew_skeleton_free(sk);
    free(local), free(got), free(want);
}

/* sinew_local_to_model_from gives the subtree what sinew_local_to_model
 * gives it, bit for bit, at the scalar level and the best the CPU runs,
 * under no root, an affine root and a projective one, on random forests
 * (parents first, not depth-first, so subtrees are split by other joints),
 * and reads nothing outside the subtree but its top's parent. */
static void test_local_to_model_from(void)
{
    enum { N = 150 };
    int parents[N];
    uint32_t seed = 5;
    sinew_transform *a = malloc(sizeof *a * N), *mixed = malloc(sizeof *mixed * N);
    sinew_mat4 *full_a = malloc(sizeof *full_a * N), *want = malloc(sizeof *want * N), *got = malloc(sizeof *got * N);
    bool *in = malloc(sizeof *in * N);
    for (int j = 0; j < N; ++j) {
        seed = seed * 1664525u + 1013904223u;
        parents[j] = j == 0 || (seed >> 8) % 23 == 0 ? -1 : (int)(seed % (uint32_t)j);
        for (int pose = 0; pose < 2; ++pose) {
            float r[7];
            for (int k = 0; k < 7; ++k) {
                seed = seed * 1664525u + 1013904223u;
                r[k] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
            }
            sinew_quat q = sinew_quat_normalize((sinew_quat){r[0], r[1], r[2], r[3] + 1.5f});
            sinew_transform x = {{r[4], r[5], r[6]}, q, {1.0f + 0.5f * r[0], 1.0f, 1.0f - 0.25f * r[1]}};
            if (pose == 0) a[j] = x;
            else mixed[j] = x; /* pose b, until the subtree is chosen */
        }
    }
    sinew_transform *b = malloc(sizeof *b * N);
    memcpy(b, mixed, sizeof *b * N);
    sinew_mat4 affine = sinew_mat4_identity(), projective = sinew_mat4_identity();
    affine.m[12] = 0.25f, affine.m[13] = -2.0f, affine.m[0] = 0.5f;
    projective.m[3] = 0.125f, projective.m[12] = 1.0f;
    const sinew_mat4 *roots[3] = {NULL, &affine, &projective};
    int bad = 0, reads = 0, cases = 0, split = 0;
    for (int level = 0; level < 2; ++level) {
        sinew_skeleton *sk = sinew_skeleton_create(
            &(sinew_skeleton_desc){N, parents, NULL, NULL}, NULL,
            &(sinew_options){.simd = level == 0 ? SINEW_SIMD_SCALAR : SINEW_SIMD_AUTO}, NULL);
        CHECK(sk != NULL, "a skeleton of %d joints", N);
        if (!sk) continue;
        for (int r = 0; r < 3; ++r)
            for (int from = 0; from < N; from += 1 + from / 16) {
                int last = from;
                for (int j = 0; j < N; ++j) {
                    in[j] = j == from || (j > from && sk->parents[j] >= 0 && in[sk->parents[j]]);
                    if (in[j]) last = j;
                }
                for (int j = from; j <= last; ++j) split += !in[j] && j < last;
                /* a's pose with b's transforms in the subtree */
                for (int j = 0; j < N; ++j) mixed[j] = in[j] ? b[j] : a[j];
                sinew_local_to_model(sk, a, roots[r], full_a, N, NULL);
                sinew_local_to_model(sk, mixed, roots[r], want, N, NULL);
                memcpy(got, full_a, sizeof *got * N);
                sinew_result res = sinew_local_to_model_from(sk, mixed, roots[r], got, N, from, NULL);
                bad += res != SINEW_OK || memcmp(got, want, sizeof *got * N) != 0;
                /* outside the subtree only the top's parent is read: the
                 * others are NaN, and stay as they were */
                for (int j = 0; j < N; ++j)
                    if (!in[j] && j != sk->parents[from])
                        for (int k = 0; k < 16; ++k) got[j].m[k] = NAN;
                sinew_local_to_model_from(sk, mixed, roots[r], got, N, from, NULL);
                for (int j = 0; j < N; ++j) {
                    if (in[j] || j == sk->parents[from]) reads += memcmp(&got[j], &want[j], sizeof *got) != 0;
                    else reads += !isnan(got[j].m[0]) || !isnan(got[j].m[15]);
                }
                ++cases;
            }
        sinew_error err = {0};
        CHECK(sinew_local_to_model_from(sk, a, NULL, got, N, N, &err) == SINEW_ERROR_BAD_JOINT_INDEX &&
                  strstr(err.description, "sinew_local_to_model_from: joint 150") != NULL,
              "joint N refused: %s", err.description);
        CHECK(sinew_local_to_model_from(sk, a, NULL, got, N, -1, NULL) == SINEW_ERROR_BAD_JOINT_INDEX,
              "joint -1 refused");
        CHECK(sinew_local_to_model_from(sk, a, NULL, got, N - 1, 0, NULL) == SINEW_ERROR_SIZE_MISMATCH,
              "count refused");
        CHECK(sinew_local_to_model_from(sk, NULL, NULL, got, N, 0, NULL) == SINEW_ERROR_INVALID_ARGUMENT,
              "NULL refused");
        sinew_skeleton_free(sk);
    }
    CHECK(bad == 0, "local to model from a joint: %d of %d cases differ from the full pass", bad, cases);
    CHECK(reads == 0, "local to model from a joint: %d matrices read or written outside the subtree", reads);
    CHECK(split > 0, "local to model from a joint: no subtree split by other joints");
    free(a), free(b), free(mixed), free(full_a), free(want), free(got), free(in);
}

/* sinew_local_to_model_pose on a pose in the skeleton's pose order gives
 * sinew_local_to_model's matrices bit for bit, at the scalar level and the
 * best the CPU runs, under no root, an affine root and a projective one, on
 * random forests and a chain (every lane pair a joint twice); the pose
 * order lists every joint, parents first, and the conversions round-trip
 * bit for bit. */
static void test_local_to_model_pose(void)
{
    enum { N = 150 };
    int parents[N], chain[N];
    uint32_t seed = 11;
    sinew_transform *local = malloc(sizeof *local * N), *back = malloc(sizeof *back * N);
    sinew_mat4 *want = malloc(sizeof *want * N), *got = malloc(sizeof *got * N);
    float *pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(2 * N));
    for (int j = 0; j < N; ++j) {
        seed = seed * 1664525u + 1013904223u;
        parents[j] = j == 0 || (seed >> 8) % 23 == 0 ? -1 : (int)(seed % (uint32_t)j);
        chain[j] = j - 1;
        float r[7];
        for (int k = 0; k < 7; ++k) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        sinew_quat q = sinew_quat_normalize((sinew_quat){r[0], r[1], r[2], r[3] + 1.5f});
        local[j] = (sinew_transform){{r[4], r[5], r[6]}, q, {1.0f + 0.5f * r[0], 1.0f, 1.0f - 0.25f * r[1]}};
    }
    sinew_mat4 affine = sinew_mat4_identity(), projective = sinew_mat4_identity();
    affine.m[12] = 0.25f, affine.m[13] = -2.0f, affine.m[0] = 0.5f;
    projective.m[3] = 0.125f, projective.m[12] = 1.0f;
    const sinew_mat4 *roots[3] = {NULL, &affine, &projective};
    int bad = 0, cases = 0;
    for (int tree = 0; tree < 2; ++tree)
        for (int level = 0; level < 2; ++level) {
            sinew_skeleton *sk = sinew_skeleton_create(
                &(sinew_skeleton_desc){N, tree ? chain : parents, NULL, NULL}, NULL,
                &(sinew_options){.simd = level == 0 ? SINEW_SIMD_SCALAR : SINEW_SIMD_AUTO}, NULL);
            CHECK(sk != NULL, "a skeleton of %d joints", N);
            if (!sk) continue;
            const int16_t *order = NULL;
            int lanes = sinew_skeleton_pose_order(sk, &order);
            bool seen[N] = {false}, ok = lanes % 8 == 0 && lanes >= N && lanes <= 2 * N + 8 && order;
            for (int pair = 0; ok && pair < lanes / 2; ++pair) { /* lanes i and i + 4 of a block */
                int lane[2] = {pair / 4 * 8 + pair % 4, pair / 4 * 8 + pair % 4 + 4};
                for (int k = 0; ok && k < 2; ++k) {
                    int j = order[lane[k]];
                    ok = j >= 0 && j < N && (sk->parents[j] < 0 || seen[sk->parents[j]]);
                }
                for (int k = 0; ok && k < 2; ++k) seen[order[lane[k]]] = true;
            }
            for (int j = 0; ok && j < N; ++j) ok = seen[j];
            CHECK(ok, "pose order of %d lanes: every joint, each after its parent's pair", lanes);
            CHECK(tree == 0 || lanes == (2 * N + 7) / 8 * 8, "a chain's pose order holds each joint twice: %d lanes",
                  lanes);
            CHECK(sinew_pose_order_from_transforms(sk, local, N, pose, NULL) == SINEW_OK, "to the pose order");
            memset(back, 0xff, sizeof *back * N);
            CHECK(sinew_pose_order_to_transforms(sk, pose, back, N, NULL) == SINEW_OK &&
                      memcmp(back, local, sizeof *back * N) == 0,
                  "the pose order's conversions round-trip bit for bit");
            for (int r = 0; r < 3; ++r) {
                sinew_local_to_model(sk, local, roots[r], want, N, NULL);
                memset(got, 0xff, sizeof *got * N);
                sinew_result res = sinew_local_to_model_pose(sk, pose, roots[r], got, N, NULL);
                bad += res != SINEW_OK || memcmp(got, want, sizeof *got * N) != 0;
                ++cases;
            }
            sinew_error err = {0};
            CHECK(sinew_local_to_model_pose(sk, pose, NULL, got, N - 1, &err) == SINEW_ERROR_SIZE_MISMATCH &&
                      strstr(err.description, "sinew_local_to_model_pose") != NULL,
                  "count refused: %s", err.description);
            CHECK(sinew_local_to_model_pose(sk, NULL, NULL, got, N, NULL) == SINEW_ERROR_INVALID_ARGUMENT,
                  "NULL refused");
            CHECK(sinew_pose_order_from_transforms(sk, local, N + 1, pose, NULL) == SINEW_ERROR_SIZE_MISMATCH,
                  "conversion count refused");
            sinew_skeleton_free(sk);
        }
    CHECK(sinew_skeleton_pose_order(NULL, NULL) == 0, "no skeleton, no lanes");
    CHECK(bad == 0, "local to model from the pose order: %d of %d cases differ from sinew_local_to_model", bad,
          cases);
    free(local), free(back), free(want), free(got), free(pose);
}

/* The AVX-512 level's local to model (its own kernels) gives the AVX2
 * level's matrices bit for bit, from transforms, from the pose order and
 * from a joint down, under no root and an affine one whose zeros are -0, on
 * a random forest with scales from 0.5 to 1.5; skipped, saying so, where
 * the CPU runs no AVX-512. */
static void test_local_to_model_levels(void)
{
    if (sinew_simd_supported() != SINEW_SIMD_AVX512) {
        printf("skip: the AVX-512 local to model (this CPU runs %s)\n", sinew_simd_name(sinew_simd_supported()));
        return;
    }
    enum { N = 211 };
    int parents[N];
    uint32_t seed = 23;
    sinew_transform *local = malloc(sizeof *local * N);
    sinew_mat4 *got[2][3];
    float *pose = malloc(sizeof(float) * SINEW_POSE_FLOATS(2 * N));
    for (int j = 0; j < N; ++j) {
        seed = seed * 1664525u + 1013904223u;
        parents[j] = j == 0 || (seed >> 8) % 17 == 0 ? -1 : (int)(seed % (uint32_t)j);
        float r[10];
        for (int k = 0; k < 10; ++k) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        sinew_quat q = sinew_quat_normalize((sinew_quat){r[0], r[1], r[2], r[3]});
        local[j] = (sinew_transform){
            {4 * r[4], r[5], r[6]}, q, {1.0f + 0.5f * r[7], 1.0f + 0.5f * r[8], 1.0f + 0.5f * r[9]}};
    }
    sinew_mat4 affine = sinew_mat4_identity();
    affine.m[12] = 0.25f, affine.m[13] = -2.0f, affine.m[0] = 0.5f;
    affine.m[3] = affine.m[7] = affine.m[11] = -0.0f;
    const sinew_mat4 *roots[2] = {NULL, &affine};
    int bad = 0, cases = 0;
    sinew_skeleton *sk[2];
    for (int l = 0; l < 2; ++l) {
        sk[l] = sinew_skeleton_create(&(sinew_skeleton_desc){N, parents, NULL, NULL}, NULL,
                                      &(sinew_options){.simd = l ? SINEW_SIMD_AVX512 : SINEW_SIMD_AVX2}, NULL);
        CHECK(sk[l] != NULL, "a skeleton of %d joints at %s", N, l ? "avx512" : "avx2");
        for (int form = 0; form < 3; ++form) got[l][form] = malloc(sizeof(sinew_mat4) * N);
    }
    if (sk[0] && sk[1]) {
        CHECK(sinew__skeleton_of(sk[1])->local_to_model != sinew__skeleton_of(sk[0])->local_to_model &&
                  sinew__skeleton_of(sk[1])->local_to_model_pose != sinew__skeleton_of(sk[0])->local_to_model_pose,
              "the AVX-512 level runs kernels of its own");
        CHECK(sinew_pose_order_from_transforms(sk[0], local, N, pose, NULL) == SINEW_OK, "to the pose order");
        for (int r = 0; r < 2; ++r) {
            for (int l = 0; l < 2; ++l) {
                for (int form = 0; form < 3; ++form) memset(got[l][form], 0xff, sizeof(sinew_mat4) * N);
                /* from the first root down (joints in batches, run by the
                 * level's kernel), over the AVX2 level's full pass, so that
                 * only the subtree's matrices can differ */
                sinew_local_to_model(sk[0], local, roots[r], got[l][2], N, NULL);
                CHECK(sinew_local_to_model(sk[l], local, roots[r], got[l][0], N, NULL) == SINEW_OK &&
                          sinew_local_to_model_pose(sk[l], pose, roots[r], got[l][1], N, NULL) == SINEW_OK &&
                          sinew_local_to_model_from(sk[l], local, roots[r], got[l][2], N, 0, NULL) == SINEW_OK,
                      "local to model at level %d", l);
            }
            for (int form = 0; form < 3; ++form, ++cases)
                bad += memcmp(got[0][form], got[1][form], sizeof(sinew_mat4) * N) != 0;
        }
    }
    CHECK(bad == 0, "local to model: %d of %d cases at avx512 differ from avx2", bad, cases);
    for (int l = 0; l < 2; ++l) {
        sinew_skeleton_free(sk[l]);
        for (int form = 0; form < 3; ++form) free(got[l][form]);
    }
    free(local), free(pose);
}

int main(void)
{
    test_child_before_parent_is_sorted();
    test_sorted_input_unchanged();
    test_errors();
    test_names_and_repairs();
    test_large_and_deep();
    test_schedule();
    test_local_to_model_reference();
    test_local_to_model_from();
    test_local_to_model_pose();
    test_local_to_model_levels();
    return check_finish("test_skeleton");
}
