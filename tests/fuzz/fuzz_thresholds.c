/* SPDX-License-Identifier: MIT */
/*
 * fuzz_thresholds.c - libFuzzer harness for the --thresholds file loader
 * (gb_thresholds_from_json in report/thresholds.c) and for applying the rules
 * it accepts to a run (gb_thresholds_apply), then the report round trip.
 *
 * Input: bytes meant to be a thresholds file. Seeds:
 * tests/fuzz/corpus/thresholds/ and tests/data files named *thresholds*.
 * What counts as a failure is in fuzz_thresholds_check.h (shared with
 * tests/test_fuzz_regressions.c); any failure aborts, which libFuzzer reports
 * as a crash and saves.
 *
 * A failure whose id is in GPUBENCH_FUZZ_TOLERATE (comma-separated; set by
 * build-and-run.sh from tests/data/fuzz-regressions/known-open.txt) is a
 * known open bug: it is not reported again, so fuzzing goes on past it.
 *
 * Built and run by tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_thresholds_check.h"

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
	why = fzt_check_bytes(data, size);
	if (why && !fz_listed(fz_last.id, tolerate)) {
		fprintf(stderr, "fuzz_thresholds: [%s] %s\n", fz_last.id, why);
		abort();
	}
	return 0;
}
