/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report_load.c - libFuzzer harness for the report loader
 * (gb_report_from_json in report/load.c) and, through the round trip, the
 * JSON writer (report/json.c) and the text summary (report/text.c).
 *
 * Input: bytes meant to be a JSON report. Seeds: every tests/data/<name>.json and
 * tests/fuzz/corpus/report_load/. What counts as a failure is in
 * fuzz_report_check.h (shared with tests/report/test_fuzz_regressions.c); any
 * failure aborts, which libFuzzer reports as a crash and saves.
 *
 * A known open bug (tests/data/fuzz-regressions/known-open.txt) does not stop
 * the search: see fz_run in fuzz_common.h.
 *
 * Built and run by tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>

#include "fuzz_report_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run("fuzz_report_load", fzr_check_bytes, data, size);
}
