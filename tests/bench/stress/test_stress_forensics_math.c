/* SPDX-License-Identifier: MIT */
/*
 * test_stress_forensics_math.c - unit tests for the forensics of
 * `gpubench stress` (bench/stress/stress_forensics_math.c): flipped bits, a
 * finding's text and JSON, and memtest findings.
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
/* forensics                                                               */

static void test_flipped_bits(void **state)
{
	int pos[8];

	(void)state;
	assert_int_equal(gb_stress_flipped_bits(0, pos, 8), 0);
	assert_int_equal(gb_stress_flipped_bits(0x8000000000000001ULL, pos, 8), 2);
	assert_int_equal(pos[0], 0);
	assert_int_equal(pos[1], 63);
	/* more bits than room: counted, not written */
	assert_int_equal(gb_stress_flipped_bits(0xFF, pos, 2), 8);
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 31), "sign");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 30), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 23), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 22), "mantissa");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 52), "exponent");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 51), "mantissa");
	assert_string_equal(gb_stress_bit_field(GB_DT_F64, 63), "sign");
	assert_string_equal(gb_stress_bit_field(GB_DT_I32, 5), "bit");
	assert_string_equal(gb_stress_bit_field(GB_DT_F32, 40), "none");
}

static void forensic_element(struct gb_stress_forensic *f)
{
	gb_stress_forensic_init(f);
	f->device = 1;
	f->t_s = 12.5;
	f->layer = "repeat";
	f->batch = 7;
	f->slot = 3;
	f->row = 10;
	f->col = 20;
	f->type = GB_DT_F32;
	f->have_bits = true;
	f->expected_bits = 0x41f00000; /* 30 */
	f->got_bits = 0x49f00000;      /* bit 27 flipped */
	f->expected = 30;
	f->got = 1966080;
}

static void test_forensic_format(void **state)
{
	struct gb_stress_forensic f;
	char line[512];

	(void)state;
	forensic_element(&f);
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 1 at 12.5 s, repeat, batch 7 slot 3 (row 10, col 20): "
				  "expected 0x41f00000 (30) got 0x49f00000 (1966080), "
				  "flipped bit 27 (exponent)");
	/* with telemetry and two flipped bits, highest first */
	f.got_bits = 0x49f00001;
	f.have_tel = true;
	f.tel.temp_c = 71;
	f.tel.power_w = 650;
	f.tel.sm_mhz = 1755;
	f.tel.have_reasons = true;
	f.tel.clock_event_reasons = GB_CLK_SW_POWER_CAP;
	f.injected = true;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_non_null(strstr(line, "repeat (injected on purpose)"));
	assert_non_null(strstr(line, "flipped bits 27 (exponent), 0 (mantissa)"));
	assert_non_null(strstr(line, "; 71 C, 650 W, 1755 MHz, sw_power_cap"));

	/* an ABFT checksum without an element */
	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 3;
	f.layer = "abft";
	f.batch = 2;
	f.slot = 5;
	f.col = 17;
	f.sum_observed = 130.5;
	f.sum_expected = 120.25;
	f.sum_bound = 0.9;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 3.0 s, abft, batch 2 slot 5 column 17 checksum: "
				  "sum 130.5 expected 120.25 (bound 0.9)");

	/* a memtest word */
	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 1;
	f.layer = "memtest";
	f.offset = 0x1000;
	f.type = GB_DT_I32;
	f.have_bits = true;
	f.expected_bits = 0x55555555;
	f.got_bits = 0x55555554;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 1.0 s, memtest, offset 0x1000: expected 0x55555555 got "
				  "0x55555554, flipped bit 0 (bit)");
	/* a tiny buffer is still terminated */
	gb_stress_forensic_format(&f, line, 8);
	assert_int_equal(strlen(line), 7);
}

static void test_forensic_json(void **state)
{
	struct gb_stress_forensic f;
	cJSON *o, *bits;

	(void)state;
	forensic_element(&f);
	o = gb_stress_forensic_json(&f);
	assert_non_null(o);
	assert_int_equal(cJSON_GetObjectItem(o, "device")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(o, "layer")->valuestring, "repeat");
	assert_int_equal(cJSON_GetObjectItem(o, "row")->valueint, 10);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "offset")));
	assert_string_equal(cJSON_GetObjectItem(o, "expected_bits")->valuestring, "0x41f00000");
	assert_string_equal(cJSON_GetObjectItem(o, "got_bits")->valuestring, "0x49f00000");
	bits = cJSON_GetObjectItem(o, "flipped_bits");
	assert_int_equal(cJSON_GetArraySize(bits), 1);
	assert_int_equal(cJSON_GetArrayItem(bits, 0)->valueint, 27);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "flipped_fields"), 0)->valuestring,
			    "exponent");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "sum_observed")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "telemetry")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "injected")));
	assert_non_null(strstr(cJSON_GetObjectItem(o, "message")->valuestring, "flipped bit 27"));
	cJSON_Delete(o);
}

/* A memtest record names its address, pattern and pass. */
static void test_memtest_forensics(void **state)
{
	struct gb_stress_forensic f;
	char line[512], name[64];
	cJSON *o;

	(void)state;
	assert_string_equal(gb_memtest_pattern_name(GB_MT_WALK1, 3, false, name, sizeof(name)),
			    "walking ones (bit 3)");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_WALK0, 35, false, name, sizeof(name)),
			    "walking zeros (bit 3)");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_SOLID, 0x55555555u, true, name,
						     sizeof(name)),
			    "moving inversions 0x55555555 then 0xaaaaaaaa");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_SOLID, 0x0F0F0F0Fu, false, name,
						     sizeof(name)),
			    "moving inversions 0x0f0f0f0f");
	assert_string_equal(gb_memtest_pattern_name(GB_MT_RANDOM, 0, false, name, sizeof(name)),
			    "random");

	gb_stress_forensic_init(&f);
	f.device = 0;
	f.t_s = 1;
	f.layer = "memtest";
	f.offset = 0x1000;
	f.address = 0x7f2a00001000ULL;
	f.pass = 2;
	snprintf(f.pattern, sizeof(f.pattern), "walking ones (bit 3)");
	f.type = GB_DT_I32;
	f.have_bits = true;
	f.expected_bits = 0x8;
	f.got_bits = 0x0;
	gb_stress_forensic_format(&f, line, sizeof(line));
	assert_string_equal(line, "gpu 0 at 1.0 s, memtest, offset 0x1000 (address 0x7f2a00001000), "
				  "walking ones (bit 3), pass 2: expected 0x00000008 got 0x00000000, "
				  "flipped bit 3 (bit)");
	o = gb_stress_forensic_json(&f);
	assert_string_equal(cJSON_GetObjectItem(o, "address")->valuestring, "0x7f2a00001000");
	assert_string_equal(cJSON_GetObjectItem(o, "pattern")->valuestring, "walking ones (bit 3)");
	assert_int_equal(cJSON_GetObjectItem(o, "pass")->valueint, 2);
	assert_int_equal(cJSON_GetObjectItem(o, "offset")->valueint, 0x1000);
	cJSON_Delete(o);
	/* a GEMM record has none of them */
	forensic_element(&f);
	o = gb_stress_forensic_json(&f);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "address")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "pattern")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "pass")));
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flipped_bits),
		cmocka_unit_test(test_forensic_format),
		cmocka_unit_test(test_forensic_json),
		cmocka_unit_test(test_memtest_forensics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
