/* SPDX-License-Identifier: MIT */
/*
 * test_stress_thresholds_math.c - unit tests for `gpubench stress`'s
 * thresholds (defaults and JSON overrides, bench/stress/stress_verdict_math.c) and
 * the duration and percent option values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stress/stress_math.h"
#include "cmd/cli.h"
#include "report/result.h"

#include <cjson/cJSON.h>
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ======================================================================= */
/* thresholds and option values                                            */

static void test_thresholds(void **state)
{
	struct gb_stress_thresholds th;
	char err[256];

	(void)state;
	gb_stress_thresholds_default(&th);
	assert_true(th.temp_limit_c == 85);
	assert_true(th.tflops_drop_max == 0.10);
	assert_true(th.peer_slow_max == 0.10);
	assert_int_equal(th.throttle_mask, GB_CLK_HW_SLOWDOWN | GB_CLK_SW_THERMAL |
						   GB_CLK_HW_THERMAL | GB_CLK_HW_POWER_BRAKE);
	assert_int_equal(gb_stress_thresholds_parse(
				 "{\"temp_limit_c\": 83, \"ecc_sbe_warn\": 10, "
				 "\"throttle_mask\": [\"hw_slowdown\", \"hw_thermal\"]}",
				 &th, err, sizeof(err)),
			 0);
	assert_true(th.temp_limit_c == 83);
	assert_int_equal(th.ecc_sbe_warn, 10);
	assert_int_equal(th.throttle_mask, GB_CLK_HW_SLOWDOWN | GB_CLK_HW_THERMAL);
	assert_int_equal(gb_stress_thresholds_parse("{\"temp_limt_c\": 83}", &th, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "unknown threshold 'temp_limt_c'");
	assert_int_equal(gb_stress_thresholds_parse("{\"temp_limit_c\": \"hot\"}", &th, err,
						    sizeof(err)),
			 -1);
	assert_string_equal(err, "'temp_limit_c' must be a number");
	assert_int_equal(gb_stress_thresholds_parse("{\"ecc_dbe_max\": 1.5}", &th, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "a whole number"));
	assert_int_equal(gb_stress_thresholds_parse("{\"throttle_mask\": [\"hot\"]}", &th, err,
						    sizeof(err)),
			 -1);
	assert_string_equal(err, "unknown clock-event reason 'hot' in 'throttle_mask'");
	assert_int_equal(gb_stress_thresholds_parse("[1]", &th, err, sizeof(err)), -1);
	assert_int_equal(gb_stress_thresholds_parse("not json", &th, err, sizeof(err)), -1);
	assert_int_equal(gb_stress_thresholds_parse("{\"throttle_mask\": 8}", &th, err, sizeof(err)),
			 0);
	assert_int_equal(th.throttle_mask, 8);
}

static void test_duration_percent(void **state)
{
	double v;

	(void)state;
	assert_int_equal(gb_parse_duration("10m", &v), 0);
	assert_true(v == 600);
	assert_int_equal(gb_parse_duration("1s", &v), 0);
	assert_true(v == 1);
	assert_int_equal(gb_parse_duration("500ms", &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(gb_parse_duration("1.5h", &v), 0);
	assert_true(v == 5400);
	assert_int_equal(gb_parse_duration("10", &v), -1); /* a unit is required */
	assert_int_equal(gb_parse_duration("ten", &v), -1);
	assert_int_equal(gb_parse_percent("90%", &v), 0);
	assert_true(fabs(v - 0.9) < 1e-12);
	assert_int_equal(gb_parse_percent("150%", &v), 0); /* the range is the option's */
	assert_true(fabs(v - 1.5) < 1e-12);
	assert_int_equal(gb_parse_percent("90", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_duration_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
