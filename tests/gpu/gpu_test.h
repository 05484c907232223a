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

/* returns the number of visible GPUs (>= 1) or exits as described above */
int gb_test_require_gpu(void);

#endif
