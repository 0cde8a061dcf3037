/* SPDX-License-Identifier: MIT */
/* Skinning over a thread pool: a job cut into vertex ranges, each thread
 * given the same vertices in every frame. */
#include "skin/skin_internal.h"

/* The fewest vertices a range is given: below that the hand-over costs more
 * than it saves. */
enum { MIN_RANGE = 1024, MAX_PIECES = 8 };

/* How a job is split: share t of `shares` is the t-th of equal parts of
 * the job's vertices (cut on the skin's 8-vertex blocks), given to the pool
 * as `pieces` consecutive tasks, the pool's thread t taking them first in
 * every run, so that each thread skins the same vertices from one frame to
 * the next (still in its caches). The pieces halve: the first is half the
 * share, the next a quarter, and so on down to MIN_RANGE, the last what is
 * left; a thread done with its share early takes the small pieces left at
 * the end of another's, so that a thread slower than the others (a core
 * another program or machine shares) costs the run at most a small piece.
 * Some pieces are empty where a share is small. */
typedef struct range_task {
    const sinew_skin_job *job;
    int first, count, shares, pieces;
    bool dqs;
} range_task;

/* Where share `share`'s vertices begin: a multiple of the block size
 * (counted from vertex 0) within the job's range. */
static int share_begin(const range_task *t, int share)
{
    if (share == 0) return t->first;
    if (share == t->shares) return t->first + t->count;
    long long at = t->first + (long long)t->count * share / t->shares;
    at = (at + SINEW__BLOCK - 1) / SINEW__BLOCK * SINEW__BLOCK;
    return (int)(at < t->first + t->count ? at : t->first + t->count);
}

/* The vertices of the next piece of a share with `left` to go: half of them
 * (whole blocks, at least MIN_RANGE), or all where halving would leave less
 * than MIN_RANGE. */
static int piece_size(int left)
{
    if (left < 2 * MIN_RANGE) return left;
    return (left / 2 + SINEW__BLOCK - 1) / SINEW__BLOCK * SINEW__BLOCK;
}

static void skin_range(void *user, int index)
{
    const range_task *t = user;
    int share = index / t->pieces, piece = index % t->pieces;
    int begin = share_begin(t, share), end = share_begin(t, share + 1);
    for (int p = 0; p < piece; ++p) begin += piece_size(end - begin);
    int size = piece == t->pieces - 1 ? end - begin : piece_size(end - begin);
    if (size <= 0) return;
    sinew_skin_job job = *t->job;
    job.first_vertex = begin, job.vertex_count = size;
    if (t->dqs)
        sinew_skin_dqs(&job, NULL);
    else
        sinew_skin_lbs(&job, NULL);
}

static sinew_result skin_parallel(const sinew_skin_job *job, sinew_pool *pool, bool dqs, sinew_error *err)
{
    const char *who = dqs ? "sinew_skin_dqs_parallel" : "sinew_skin_lbs_parallel";
    sinew_result r = sinew__skin_job_check(job, dqs, who, err);
    if (r != SINEW_OK) return r;
    sinew__job_streams st = sinew__job_resolve(job);
    int count = st.end - st.begin, threads = sinew_pool_threads(pool);
    /* LBS's automatic normal mode decided once for all ranges, not by each */
    sinew_skin_job decided = *job;
    if (!dqs) decided.normal_mode = sinew__lbs_normal_mode(job, &st);
    range_task t = {&decided, st.begin, count, count / MIN_RANGE < threads ? count / MIN_RANGE : threads, 1, dqs};
    if (t.shares < 2) {
        t.shares = 1;
        skin_range(&t, 0);
        return SINEW_OK;
    }
    for (int left = count / t.shares; left >= 2 * MIN_RANGE && t.pieces < MAX_PIECES; left -= piece_size(left))
        ++t.pieces;
    sinew_pool_run(pool, t.shares * t.pieces, skin_range, &t);
    return SINEW_OK;
}

sinew_result sinew_skin_lbs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err)
{
    return skin_parallel(job, pool, false, err);
}

sinew_result sinew_skin_dqs_parallel(const sinew_skin_job *job, sinew_pool *pool, sinew_error *err)
{
    return skin_parallel(job, pool, true, err);
}
