/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report_load.c - libFuzzer harness for the report loader
 * (gb_report_from_json in report/load.c) and, through the round trip, the
 * JSON writer (report/json.c) and the text summary (report/text.c).
 *
 * Input: bytes meant to be a JSON report. Seeds: every tests/data/<name>.json and
 * tests/fuzz/corpus/report_load/. What counts as a failure is in
 * fuzz_report_check.h (shared with tests/test_fuzz_regressions.c); any
 * failure aborts, which libFuzzer reports as a crash and saves.
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

#include "fuzz_report_check.h"

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
	why = fzr_check_bytes(data, size);
	if (why && !fz_listed(fz_last.id, tolerate)) {
		fprintf(stderr, "fuzz_report_load: [%s] %s\n", fz_last.id, why);
		abort();
	}
	return 0;
}
