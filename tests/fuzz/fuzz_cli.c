/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli.c - libFuzzer harness for the options parser (cmd/cli.c): argument
 * vectors (NUL- or newline-separated) against a table that uses every option
 * type, flag and kind of range. What counts as a failure is in
 * fuzz_cli_check.h (shared with tests/test_fuzz_regressions.c); any failure
 * aborts, which libFuzzer reports as a crash and saves. The parser's error
 * lines are captured, never printed.
 *
 * A failure whose id is in GPUBENCH_FUZZ_TOLERATE (comma-separated; set by
 * build-and-run.sh from tests/data/fuzz-regressions/known-open.txt) is a
 * known open bug: it is not reported again, so fuzzing goes on past it.
 *
 * Seeds: tests/fuzz/corpus/cli/. Built and run by tests/fuzz/build-and-run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_cli_check.h"

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
	why = fzc_check_bytes(data, size);
	if (why && !fz_listed(fz_last.id, tolerate)) {
		fprintf(stderr, "fuzz_cli: [%s] %s\n", fz_last.id, why);
		abort();
	}
	return 0;
}
