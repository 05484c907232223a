/* SPDX-License-Identifier: MIT */
/*
 * fuzz_thresholds.c - libFuzzer harness for the --thresholds file loader
 * (gb_thresholds_from_json in report/thresholds.c) and for applying the rules
 * it accepts to a run (gb_thresholds_apply), then the report round trip.
 *
 * Input: bytes meant to be a thresholds file. Seeds:
 * tests/fuzz/corpus/thresholds/ and tests/data files named *thresholds*.
 * What counts as a failure is in fuzz_thresholds_check.h (shared with
 * tests/report/test_fuzz_regressions.c); any failure aborts, which libFuzzer reports
 * as a crash and saves.
 *
 * A known open bug (tests/data/fuzz-regressions/known-open.txt) does not stop
 * the search: see fz_run in fuzz_common.h.
 *
 * Built and run by tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>

#include "fuzz_thresholds_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run("fuzz_thresholds", fzt_check_bytes, data, size);
}
