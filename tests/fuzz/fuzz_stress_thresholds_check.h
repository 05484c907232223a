/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stress_thresholds_check.h - what "the stress thresholds parser
 * behaved" means, shared by fuzz_stress_thresholds.c and
 * tests/report/test_fuzz_regressions.c. The parser is gb_stress_thresholds_parse
 * (bench/stress/stress_verdict_math.c), which reads `gpubench stress --thresholds`.
 *
 * For one input (the file's text; the parser stops at a NUL as a file read
 * into a string would):
 *   - it either succeeds, or fails with one non-empty line in err (no control
 *     characters: `stress` prints it as it is);
 *   - after success every number is finite and nothing negative where the
 *     defaults are non-negative.
 * Each check returns NULL when all is well, else what broke (fuzz_common.h).
 */
#ifndef GPUBENCH_TESTS_FUZZ_STRESS_THRESHOLDS_CHECK_H
#define GPUBENCH_TESTS_FUZZ_STRESS_THRESHOLDS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stress/stress_math.h"
#include "fuzz_common.h"

FZ_STATIC const char *fzs_check_bytes(const uint8_t *data, size_t size)
{
	struct gb_stress_thresholds th;
	char err[1024] = "";
	const char *why = NULL;
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	gb_stress_thresholds_default(&th);
	if (gb_stress_thresholds_parse(text, &th, err, sizeof(err))) {
		why = fz_check_err_line(err, "stress-thresholds");
	} else {
		const double d[] = { th.temp_limit_c,   th.throttle_share_max,
				     th.power_cap_share_warn, th.tflops_drop_max,
				     th.peer_slow_max,  th.abft_tau };

		for (size_t i = 0; !why && i < sizeof(d) / sizeof(d[0]); i++)
			if (!isfinite(d[i]) || d[i] < 0)
				why = fz_fail("stress-thresholds-value", "field %zu is %g", i,
					      d[i]);
		if (!why && (th.ecc_dbe_max < 0 || th.ecc_sbe_warn < 0 || th.pcie_replay_warn < 0 ||
			     th.nvlink_crc_warn < 0 || th.nvlink_recovery_warn < 0))
			why = fz_fail("stress-thresholds-value", "a count is negative");
	}
	free(text);
	return why;
}

#endif
