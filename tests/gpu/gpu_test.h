/* SPDX-License-Identifier: MIT */
/*
 * gpu_test.h - shared set-up for gpu-labelled tests.
 *
 * gb_test_require_gpu() returns when a GPU is visible. Without one it exits
 * 77 (ctest: skipped), unless GPUBENCH_REQUIRE_GPU=1, when no GPU is a
 * failure (exit 1) so a GPU machine cannot silently skip its GPU tests.
 */
#ifndef GPUBENCH_TESTS_GPU_TEST_H
#define GPUBENCH_TESTS_GPU_TEST_H

#include <stdbool.h>

/* returns the number of visible GPUs (>= 1) or exits as described above */
int gb_test_require_gpu(void);

/*
 * Whether this test runs on the simulated GPU (tests/sim: the sim_gpu_
 * variants), whose CPU computes every GEMM: a test whose point is a size
 * the CPU cannot compute in minutes skips itself there, saying so (cmocka's
 * skip(), never a pass), and runs in full on a real GPU.
 */
bool gb_test_on_simulator(void);

/*
 * A benchmark's arguments for this GPU: args[0..n) copied to out, and on
 * the simulated GPU the option `opt` with `value` appended (say "--iters",
 * "2": a fixed, small number of launches per sample instead of as many as
 * a duration of simulated time holds, each of which the CPU computes).
 * out holds n + 2; returns how many it holds.
 */
int gb_test_sim_args(const char *const *args, int n, const char **out, const char *opt,
		     const char *value);

#endif
