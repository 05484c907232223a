/* SPDX-License-Identifier: MIT */
/*
 * stress_test_util.h - a fixture two of the stress unit tests share
 * (test_stress_verify_math.c records it, test_stress_verdict_math.c puts it
 * in a verdict's message): one corrupted FP32 element, explained. Header
 * only, static: each test is its own executable linking gpubench_core.
 */
#ifndef GPUBENCH_TESTS_STRESS_TEST_UTIL_H
#define GPUBENCH_TESTS_STRESS_TEST_UTIL_H

#include <stdint.h>

#include "bench/stress/stress_math.h"

static void corrupt_example(struct gb_stress_corrupt *e, uint32_t row)
{
	gb_stress_corrupt_init(e);
	e->batch = 4;
	e->t_s = 1.5;
	e->row = row;
	e->col = 128;
	e->type = GB_DT_F32;
	e->read = true;
	e->got_bits = 0x7f707d00;
	e->got = gb_stress_bits_value(GB_DT_F32, e->got_bits);
	e->expected = 0.9394073486328125;
	gb_stress_explain(GB_DT_F32, e->got_bits, e->expected, 0.01, &e->diff);
}

#endif
