/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stress_thresholds.c - libFuzzer harness for the `gpubench stress
 * --thresholds` parser (gb_stress_thresholds_parse in
 * bench/stress/stress_verdict_math.c). What counts as a failure is in
 * fuzz_stress_thresholds_check.h (shared with tests/report/test_fuzz_regressions.c);
 * any failure aborts, which libFuzzer reports as a crash and saves.
 *
 * A known open bug (tests/data/fuzz-regressions/known-open.txt) does not stop
 * the search: see fz_run in fuzz_common.h.
 *
 * Seeds: tests/fuzz/corpus/stress_thresholds/. Built and run by
 * tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>

#include "fuzz_stress_thresholds_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run("fuzz_stress_thresholds", fzs_check_bytes, data, size);
}
