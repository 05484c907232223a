/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_copy_lanes.c - kernels/copy.cu's pattern check, run as written
 * on the executor, sees a flipped bit in any of a 16-byte word's four 32-bit
 * lanes: one bit flipped in lane x of one word, y of another, z and w of two
 * more must count four bad words, and each lane alone one. A check that
 * compared fewer lanes (the mutation copy-verify-ignores-w of
 * scripts/mutants.txt) would miss a quarter of all corruption.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/copy_hd.h"
#include "kernels/kernels.h"
#include "tests/kexec/kexec_test.h"

/* 16-byte words: ragged against the block; sm_count 1 makes the grid go round */
#define WORDS 1000
#define SEED 0x1a9eULL

static unsigned long long count_bad(const uint4 *buf)
{
	unsigned long long zero = 0, v, *bad = kx_upload(&zero, sizeof zero);

	assert_int_equal(gb_launch_pattern_verify(buf, WORDS * 16, SEED, bad, 1, 0), cudaSuccess);
	kx_download(&v, bad, sizeof v);
	kx_free(bad);
	return v;
}

/* flip bit `bit` of lane `lane` (0 x, 1 y, 2 z, 3 w) of word `word`, on the device */
static void flip(uint4 *buf, unsigned word, unsigned lane, unsigned bit)
{
	uint32_t v;
	char *at = (char *)buf + (size_t)word * 16 + lane * 4;

	kx_download(&v, at, sizeof v);
	v ^= 1u << bit;
	assert_int_equal(cudaMemcpy(at, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
}

static void test_every_lane_is_checked(void **state)
{
	static const unsigned words[4] = { 3, 258, 511, 999 }, bits[4] = { 0, 13, 22, 31 };
	uint4 *buf = kx_alloc(WORDS * 16);

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_pattern_fill(buf, WORDS * 16, SEED, 1, 0), cudaSuccess);
	assert_int_equal(count_bad(buf), 0);
	for (unsigned lane = 0; lane < 4; lane++) {
		flip(buf, words[lane], lane, bits[lane]);
		assert_int_equal(count_bad(buf), 1);
		flip(buf, words[lane], lane, bits[lane]);
		assert_int_equal(count_bad(buf), 0);
	}
	for (unsigned lane = 0; lane < 4; lane++)
		flip(buf, words[lane], lane, bits[lane]);
	assert_int_equal(count_bad(buf), 4);
	kx_assert_clean();
	kx_free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_lane_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
