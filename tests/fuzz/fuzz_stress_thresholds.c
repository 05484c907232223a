/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stress_thresholds.c - libFuzzer harness for the `gpubench stress
 * --thresholds` parser (gb_stress_thresholds_parse in
 * bench/stress_verdict_math.c). What counts as a failure is in
 * fuzz_stress_thresholds_check.h (shared with tests/test_fuzz_regressions.c);
 * any failure aborts, which libFuzzer reports as a crash and saves.
 *
 * A failure whose id is in GPUBENCH_FUZZ_TOLERATE (comma-separated; set by
 * build-and-run.sh from tests/data/fuzz-regressions/known-open.txt) is a
 * known open bug: it is not reported again, so fuzzing goes on past it.
 *
 * Seeds: tests/fuzz/corpus/stress_thresholds/. Built and run by
 * tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_stress_thresholds_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *tolerate;
	const char *why;

	if (!tolerate) {
		tolerate = getenv("GPUBENCH_FUZZ_TOLERATE");
		if (!tolerate)
			tolerate = "";
	}
	why = fzs_check_bytes(data, size);
	if (why && !fz_listed(fz_last.id, tolerate)) {
		fprintf(stderr, "fuzz_stress_thresholds: [%s] %s\n", fz_last.id, why);
		abort();
	}
	return 0;
}
