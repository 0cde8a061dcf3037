/* SPDX-License-Identifier: MIT */
/* `sinew bench --json`: the JSON has the form docs/BENCHMARKS.md promises
 * (cpu, simd, threads, results with every required name, unit, count,
 * median/min/max with min <= median <= max, skinning entries with vertices
 * and Mvertex/s that agree with the median, the clip's bytes as loaded and
 * optimized, the second no more; the one-joint LBS row; on two threads the
 * skinning rows' speed-up over one thread), on the built-in
 * character and with two threads; no progress line when its output is a
 * file. Timings themselves are not judged here.
 * usage: test_cli_bench SINEW_BINARY WORK_DIR */
#include "sinew/sinew.h"
#include "check.h"
#include "read_file.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

static cJSON *read_json(const char *path)
{
    size_t size;
    char *text = (char *)test_read_file(path, &size);
    cJSON *json = text ? cJSON_Parse(text) : NULL;
    free(text);
    return json;
}

/* A skinning row on several threads has its one-thread median and its
 * speed-up (the median of the batch pairs' ratios, so near the ratio of the
 * medians); on one thread neither. */
static void check_scaling(const cJSON *row, const char *name, int threads)
{
    const cJSON *alone = cJSON_GetObjectItem(row, "one_thread_median_ns"), *up = cJSON_GetObjectItem(row, "speedup");
    if (threads == 1) {
        CHECK(!alone && !up, "%s on one thread has no speed-up keys", name);
        return;
    }
    double med = cJSON_GetNumberValue(cJSON_GetObjectItem(row, "median_ns"));
    double a = cJSON_GetNumberValue(alone), s = cJSON_GetNumberValue(up);
    CHECK(cJSON_IsNumber(alone) && cJSON_IsNumber(up) && a > 0 && s > 0 && s > 0.25 * a / med && s < 4 * a / med,
          "%s: speed-up %g near one thread's median over the row's (%g / %g)", name, s, a, med);
}

static void check_run(const char *bin, const char *work, int threads)
{
    char cmd[2048], path[1024];
    snprintf(path, sizeof path, "%s/bench%d.json", work, threads);
    snprintf(cmd, sizeof cmd, "'%s' bench --threads %d --json '%s' > '%s/bench.log' 2>&1", bin, threads, path, work);
    int r = system(cmd);
    CHECK(WIFEXITED(r) && WEXITSTATUS(r) == 0, "sinew bench --threads %d runs", threads);
    /* stdout and stderr to a file: no progress line (that is for a terminal) */
    char log[1024];
    size_t log_size;
    snprintf(log, sizeof log, "%s/bench.log", work);
    char *text = (char *)test_read_file(log, &log_size);
    CHECK(text && !strchr(text, '\r') && !strstr(text, "row 1 of"), "no progress line in bench.log");
    free(text);
    cJSON *json = read_json(path);
    CHECK(json != NULL, "%s is JSON", path);
    if (!json) return;
    CHECK(cJSON_IsString(cJSON_GetObjectItem(json, "cpu")), "cpu is a string");
    const cJSON *simd = cJSON_GetObjectItem(json, "simd");
    CHECK(cJSON_IsString(simd) && (strcmp(simd->valuestring, "avx512") == 0 || strcmp(simd->valuestring, "avx2") == 0 ||
                                   strcmp(simd->valuestring, "sse2") == 0 || strcmp(simd->valuestring, "scalar") == 0),
          "simd is one of the four");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(json, "threads")) == threads, "threads is %d", threads);
    static const char *const required[] = {"sample", "sample_seek", "local_to_model", "sample_local_to_model",
                                           "palette", "skin_lbs_pos_nrm", "skin_lbs_pos", "skin_dqs_pos_nrm",
                                           "blend2", "blend3", "blend2_pose", "blend3_pose", "blend2_pose_masked",
                                           "additive", "additive_pose", "ik_two_bone", "ik_two_bone_pose",
                                           "ik_then_local_to_model_from", "local_to_model_pose", "sample_optimized",
                                           "sample_local_to_model_optimized", "skin_lbs_pos_nrm_one_joint",
                                           "skin_lbs_pos_nrm_raw", "skin_lbs_pos_nrm_raw_scalar",
                                           "skin_lbs_pos_nrm_prepared", "skin_lbs_pos_nrm_raw_prepared",
                                           "skin_lbs_pos_prepared", "skin_dqs_pos_nrm_prepared",
                                           "skin_lbs_pos_nrm_frame", "skin_lbs_pos_nrm_frame_woken",
                                           "sample_local_to_model_optimized_nlerp", "sample_local_to_model_no_local",
                                           "sample_local_to_model_optimized_nlerp_no_local"};
    double bytes = cJSON_GetNumberValue(cJSON_GetObjectItem(json, "clip_bytes"));
    double optimized = cJSON_GetNumberValue(cJSON_GetObjectItem(json, "clip_bytes_optimized"));
    CHECK(bytes > 0 && optimized > 0 && optimized <= bytes, "clip bytes %g, optimized %g", bytes, optimized);
    const cJSON *results = cJSON_GetObjectItem(json, "results");
    for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i) {
        const cJSON *found = NULL, *e;
        cJSON_ArrayForEach(e, results)
        {
            const cJSON *name = cJSON_GetObjectItem(e, "name");
            if (cJSON_IsString(name) && strcmp(name->valuestring, required[i]) == 0) found = e;
        }
        CHECK(found != NULL, "result %s is there", required[i]);
        if (!found) continue;
        double med = cJSON_GetNumberValue(cJSON_GetObjectItem(found, "median_ns"));
        double lo = cJSON_GetNumberValue(cJSON_GetObjectItem(found, "min_ns"));
        double hi = cJSON_GetNumberValue(cJSON_GetObjectItem(found, "max_ns"));
        CHECK(lo > 0.0 && lo <= med && med <= hi, "%s: 0 < min %g <= median %g <= max %g", required[i], lo, med, hi);
        CHECK(cJSON_IsString(cJSON_GetObjectItem(found, "unit")) &&
                  cJSON_GetNumberValue(cJSON_GetObjectItem(found, "count")) >= 1,
              "%s has a unit and a count", required[i]);
        if (strncmp(required[i], "skin_", 5) == 0) {
            double verts = cJSON_GetNumberValue(cJSON_GetObjectItem(found, "vertices"));
            double rate = cJSON_GetNumberValue(cJSON_GetObjectItem(found, "mvertex_per_s"));
            CHECK(verts > 1000 && fabs(rate - 1e3 * verts / med) <= 0.001 * rate + 0.1,
                  "%s: %g vertices at %g Mvertex/s agree with %g ns", required[i], verts, rate, med);
            check_scaling(found, required[i], threads);
        }
    }
    cJSON_Delete(json);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_bench SINEW_BINARY WORK_DIR\n");
        return 2;
    }
    mkdir(argv[2], 0777);
    check_run(argv[1], argv[2], 1);
    check_run(argv[1], argv[2], 2);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' bench --threads 0 > /dev/null 2>&1", argv[1]);
    int r = system(cmd);
    CHECK(WIFEXITED(r) && WEXITSTATUS(r) == 2, "--threads 0 is a usage error");
    return check_finish("test_cli_bench");
}
