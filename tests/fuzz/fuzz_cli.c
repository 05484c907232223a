/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli.c - libFuzzer harness for the options parser (cmd/cli.c): argument
 * vectors (NUL- or newline-separated) against a table that uses every option
 * type, flag and kind of range. What counts as a failure is in
 * fuzz_cli_check.h (shared with tests/report/test_fuzz_regressions.c); any failure
 * aborts, which libFuzzer reports as a crash and saves. The parser's error
 * lines are captured, never printed.
 *
 * A known open bug (tests/data/fuzz-regressions/known-open.txt) does not stop
 * the search: see fz_run in fuzz_common.h.
 *
 * Seeds: tests/fuzz/corpus/cli/. Built and run by tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>

#include "fuzz_cli_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run("fuzz_cli", fzc_check_bytes, data, size);
}
