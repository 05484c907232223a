/* SPDX-License-Identifier: MIT */
/*
 * test_kexec_simple.c - kernels/copy.cu, fill.cu, verify.cu, stress.cu and
 * nccl_check.cu run as written on the executor, on sizes that are not a
 * multiple of the block (ragged tails) and grids smaller than the data
 * (grid-stride loops that go round), against the CPU arithmetic of the
 * *_hd.h and bench/ *_math.h headers, with memcheck and racecheck watching.
 * Each verify kernel is also shown a planted error, which it must count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nccl/nccl_math.h"
#include "bench/stress/stress_math.h"
#include "kernels/copy_hd.h"
#include "kernels/fill_hash.h"
#include "kernels/kernels.h"
#include "kernels/stress_hd.h"
#include "tests/kexec/kexec_test.h"

/* 16-byte words: 3 blocks of 256 and a tail; sm_count 1 caps the grid below the data */
#define WORDS 1000
#define SEED 0x5eedULL

static unsigned long long read_u64(const unsigned long long *dev)
{
	unsigned long long v;

	kx_download(&v, dev, sizeof v);
	return v;
}

static unsigned long long *zeroed_counter(void)
{
	unsigned long long zero = 0;

	return kx_upload(&zero, sizeof zero);
}

/* ---- copy.cu ---- */

static void test_copy_pattern_fill_verify(void **state)
{
	uint4 *buf = kx_alloc(WORDS * 16), host[WORDS];
	unsigned long long *bad = zeroed_counter();
	const unsigned word = 777;

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_pattern_fill(buf, WORDS * 16, SEED, 1, 0), cudaSuccess);
	kx_download(host, buf, sizeof host);
	for (unsigned i = 0; i < WORDS; i++) {
		uint4 e = gb_copy_pattern_word(SEED, i);

		assert_memory_equal(&host[i], &e, sizeof e);
	}
	assert_int_equal(gb_launch_pattern_verify(buf, WORDS * 16, SEED, bad, 1, 0), cudaSuccess);
	assert_int_equal(read_u64(bad), 0);
	host[word].y ^= 1u << 7;
	assert_int_equal(cudaMemcpy((char *)buf + word * 16, &host[word], 16, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(gb_launch_pattern_verify(buf, WORDS * 16, SEED, bad, 1, 0), cudaSuccess);
	assert_int_equal(read_u64(bad), 1);
	kx_assert_clean();
	kx_free(buf);
	kx_free(bad);
}

static void test_copy_sm_copy_and_bidir(void **state)
{
	uint4 *src0 = kx_alloc(WORDS * 16), *src1 = kx_alloc(WORDS * 16);
	uint4 *dst0 = kx_alloc(WORDS * 16), *dst1 = kx_alloc(WORDS * 16);
	static uint4 a[WORDS], b[WORDS];

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_pattern_fill(src0, WORDS * 16, 1, 1, 0), cudaSuccess);
	assert_int_equal(gb_launch_pattern_fill(src1, WORDS * 16, 2, 1, 0), cudaSuccess);
	assert_int_equal(gb_launch_sm_copy(dst0, src0, WORDS * 16, 1, 0), cudaSuccess);
	kx_download(a, src0, sizeof a);
	kx_download(b, dst0, sizeof b);
	assert_memory_equal(a, b, sizeof a);
	assert_int_equal(cudaMemset(dst0, 0, WORDS * 16), cudaSuccess);
	assert_int_equal(gb_launch_sm_copy_bidir(dst0, src0, dst1, src1, WORDS * 16, 1, 0),
			 cudaSuccess);
	kx_download(b, dst0, sizeof b);
	assert_memory_equal(a, b, sizeof a);
	kx_download(a, src1, sizeof a);
	kx_download(b, dst1, sizeof b);
	assert_memory_equal(a, b, sizeof a);
	/* sizes that are not whole 16-byte words are refused */
	assert_int_equal(gb_launch_sm_copy(dst0, src0, 24, 1, 0), cudaErrorInvalidValue);
	kx_assert_clean();
	kx_free(src0);
	kx_free(src1);
	kx_free(dst0);
	kx_free(dst1);
}

static void test_copy_stream_ops(void **state)
{
	const size_t n = 2 * 601;
	double *x = kx_alloc(n * 8), *y = kx_alloc(n * 8), *d = kx_alloc(n * 8);
	double *got = malloc(n * 8);
	unsigned long long *bad = zeroed_counter();
	const double q = 3.0;

	(void)state;
	assert_non_null(got);
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_pattern_fill_double(x, n, 10, 1, 0), cudaSuccess);
	assert_int_equal(gb_launch_pattern_fill_double(y, n, 20, 1, 0), cudaSuccess);
	for (int op = GB_STREAM_COPY; op <= GB_STREAM_TRIAD; op++) {
		assert_int_equal(gb_launch_stream(op, d, x, y, q, n, 1, 0), cudaSuccess);
		kx_download(got, d, n * 8);
		for (size_t i = 0; i < n; i++) {
			double e = gb_stream_value(op, gb_copy_pattern_double(10, i),
						   gb_copy_pattern_double(20, i), q);

			assert_memory_equal(&got[i], &e, sizeof e);
		}
		assert_int_equal(cudaMemset(bad, 0, 8), cudaSuccess);
		assert_int_equal(gb_launch_stream_verify(op, d, 10, 20, q, n, bad, 1, 0),
				 cudaSuccess);
		assert_int_equal(read_u64(bad), 0);
	}
	kx_assert_clean();
	kx_free(x);
	kx_free(y);
	kx_free(d);
	kx_free(bad);
	free(got);
}

static void test_copy_chase_and_spin(void **state)
{
	const size_t stride = 128, nodes = 300;
	char *buf = kx_alloc(stride * nodes);
	unsigned long long *sink = kx_alloc(8);
	int *flags = kx_alloc(2 * sizeof(int));
	const int go[2] = { 1, 0 }, stop[2] = { 0, 0 };
	int out[2];

	(void)state;
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_chase_init(buf, stride * nodes, stride, 0), cudaSuccess);
	/* 2 nodes short of twice round: the chase ends at node nodes - 2 */
	assert_int_equal(gb_launch_chase(buf, 2 * nodes - 2, sink, 0), cudaSuccess);
	assert_int_equal(read_u64(sink), (unsigned long long)(uintptr_t)(buf + (nodes - 2) * stride));
	/* released before it starts: returns at once; never released: gives up after 1 ms */
	assert_int_equal(cudaMemcpy(flags, go, sizeof go, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(gb_launch_spin_wait(flags, flags + 1, 1000000, 0), cudaSuccess);
	kx_download(out, flags, sizeof out);
	assert_int_equal(out[1], 0);
	assert_int_equal(cudaMemcpy(flags, stop, sizeof stop, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(gb_launch_spin_wait(flags, flags + 1, 1000000, 0), cudaSuccess);
	kx_download(out, flags, sizeof out);
	assert_int_equal(out[1], 1);
	kx_assert_clean();
	kx_free(buf);
	kx_free(sink);
	kx_free(flags);
}

/* ---- fill.cu ---- */

static void test_fill_random_and_poison(void **state)
{
	const size_t n = 1000;
	void *buf = kx_alloc(n * 8);
	unsigned char *host = malloc(n * 8);

	(void)state;
	assert_non_null(host);
	gb_kx_reset_findings();
	assert_int_equal(gb_launch_fill_random(buf, GB_DT_F64, n, SEED, 5, 0), cudaSuccess);
	kx_download(host, buf, n * 8);
	for (size_t i = 0; i < n; i++)
		assert_true(((double *)host)[i] == gb_fill_uniform_pm1(gb_fill_hash_at(SEED, 5 + i)));
	assert_int_equal(gb_launch_fill_random(buf, GB_DT_F32, n, SEED, 0, 0), cudaSuccess);
	kx_download(host, buf, n * 4);
	for (size_t i = 0; i < n; i++)
		assert_true(((float *)host)[i] ==
			    (float)gb_fill_uniform_pm1(gb_fill_hash_at(SEED, i)));
	assert_int_equal(gb_launch_fill_random(buf, GB_DT_F16, n, SEED, 0, 0), cudaSuccess);
	kx_download(host, buf, n * 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(((uint16_t *)host)[i],
				 kx_f16_from_float((float)gb_fill_uniform_pm1(gb_fill_hash_at(SEED, i))));
	assert_int_equal(gb_launch_fill_random(buf, GB_DT_BF16, n, SEED, 0, 0), cudaSuccess);
	kx_download(host, buf, n * 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(((uint16_t *)host)[i],
				 kx_bf16_from_float((float)gb_fill_uniform_pm1(gb_fill_hash_at(SEED, i))));
	assert_int_equal(gb_launch_fill_random(buf, GB_DT_I8, n, SEED, 0, 0), cudaSuccess);
	kx_download(host, buf, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(((int8_t *)host)[i], gb_fill_small_int(gb_fill_hash_at(SEED, i)));
	assert_int_equal(gb_launch_fill_poison(buf, GB_DT_F32, n - 1, 0), cudaSuccess);
	kx_download(host, buf, n * 4);
	for (size_t i = 0; i < n - 1; i++)
		assert_int_equal(((uint32_t *)host)[i], 0x7FC0DEADu);
	/* the element past n - 1 is untouched: still the fill above */
	assert_int_not_equal(((uint32_t *)host)[n - 1], 0x7FC0DEADu);
	kx_assert_clean();
	kx_free(buf);
	free(host);
}

/* ---- verify.cu ---- */

static void test_verify_reference_and_compare(void **state)
{
	const uint64_t m = 9, n = 7, k = 45;
	const size_t samples = 20;
	float a[45 * 9], b[45 * 7], d[9 * 7];
	uint32_t rc[2 * 20];
	double ref[20], scale[20], got[20];
	uint64_t s = 3;
	struct gb_verify_counters zero = { 0, 0, 0, 0, 0 }, c;

	(void)state;
	for (size_t i = 0; i < k * m; i++)
		a[i] = kx_rand_pm1(&s);
	for (size_t i = 0; i < k * n; i++)
		b[i] = kx_rand_pm1(&s);
	for (size_t i = 0; i < samples; i++) {
		rc[2 * i] = (uint32_t)(kx_rand(&s) % m);
		rc[2 * i + 1] = (uint32_t)(kx_rand(&s) % n);
	}
	void *da = kx_upload(a, sizeof a), *db = kx_upload(b, sizeof b);
	uint32_t *drc = kx_upload(rc, sizeof rc);
	double *dref = kx_alloc(sizeof ref), *dscale = kx_alloc(sizeof scale);
	double *dgot = kx_alloc(sizeof got);
	struct gb_verify_counters *dc = kx_upload(&zero, sizeof zero);

	gb_kx_reset_findings();
	assert_int_equal(gb_launch_gemm_reference(da, db, GB_DT_F32, k, drc, samples, dref, dscale, 0),
			 cudaSuccess);
	kx_download(ref, dref, sizeof ref);
	kx_download(scale, dscale, sizeof scale);
	for (size_t i = 0; i < samples; i++) {
		double e = 0, mag = 0;

		for (uint64_t l = 0; l < k; l++) {
			double p = (double)a[l + rc[2 * i] * k] * b[l + rc[2 * i + 1] * k];

			e += p;
			mag += fabs(p);
		}
		assert_true(fabs(ref[i] - e) <= 1e-13 * mag);
		assert_true(fabs(scale[i] - mag / sqrt((double)k)) <= 1e-13 * mag);
	}
	/* D = the reference rounded to FP32, but for one wrong sample and one NaN */
	for (size_t j = 0; j < n; j++)
		for (size_t i = 0; i < m; i++) {
			double e = 0;

			for (uint64_t l = 0; l < k; l++)
				e += (double)a[l + i * k] * b[l + j * k];
			d[i + j * m] = (float)e;
		}
	d[rc[2 * 3] + rc[2 * 3 + 1] * m] += 1.0f;
	void *dd = kx_upload(d, sizeof d);

	assert_int_equal(gb_launch_gemm_compare(dd, GB_DT_F32, m, drc, samples, dref, dscale, 1e-5,
						dgot, dc, 0),
			 cudaSuccess);
	kx_download(&c, dc, sizeof c);
	assert_int_equal(c.checked, samples);
	assert_true(c.mismatches >= 1);
	assert_int_equal(c.nans, 0);
	kx_assert_clean();
	kx_free(da);
	kx_free(db);
	kx_free(drc);
	kx_free(dref);
	kx_free(dscale);
	kx_free(dgot);
	kx_free(dc);
	kx_free(dd);
}

/* ---- stress.cu ---- */

static void test_stress_fill_verify_sums(void **state)
{
	const uint64_t m = 300, n = 37;   /* 2 x 2 blocks, both ragged */
	const size_t count = m * n;
	float *c = malloc(count * 4);
	double col[37], row[300], col_bound[37], row_bound[300];
	struct gb_stress_verify *v = calloc(1, sizeof *v);

	(void)state;
	assert_non_null(c);
	assert_non_null(v);
	float *dc = kx_alloc(count * 4), *dref = kx_alloc(count * 4);
	double *dcol = kx_alloc(sizeof col), *drow = kx_alloc(sizeof row);
	struct gb_stress_verify *dv = kx_upload(v, sizeof *v);

	gb_kx_reset_findings();
	assert_int_equal(gb_launch_stress_fill(dc, GB_DT_F32, count, 9, 24, 0, 0), cudaSuccess);
	kx_download(c, dc, count * 4);
	for (size_t i = 0; i < count; i++)
		assert_true(c[i] == (float)gb_stress_value(9, i, 24, 0));
	assert_int_equal(cudaMemcpy(dref, dc, count * 4, cudaMemcpyDeviceToDevice), cudaSuccess);
	assert_int_equal(cudaMemset(dcol, 0, sizeof col), cudaSuccess);
	assert_int_equal(cudaMemset(drow, 0, sizeof row), cudaSuccess);
	assert_int_equal(gb_launch_stress_verify(dc, dref, GB_DT_F32, m, n, 4, dcol, drow, dv, 0),
			 cudaSuccess);
	kx_download(v, dv, sizeof *v);
	assert_int_equal(v->repeat_diffs, 0);
	assert_int_equal(v->nonfinite, 0);
	kx_download(col, dcol, sizeof col);
	kx_download(row, drow, sizeof row);
	for (uint64_t j = 0; j < n; j++) {
		double e = 0;

		for (uint64_t i = 0; i < m; i++)
			e += c[i + j * m];
		assert_true(fabs(col[j] - e) <= 1e-9);
		col_bound[j] = 1e-9;
	}
	for (uint64_t i = 0; i < m; i++) {
		double e = 0;

		for (uint64_t j = 0; j < n; j++)
			e += c[i + j * m];
		assert_true(fabs(row[i] - e) <= 1e-9);
		row_bound[i] = 1e-9;
	}
	/* the sums against themselves pass; one column moved past its bound fails */
	double *dcol_exp = kx_upload(col, sizeof col), *drow_exp = kx_upload(row, sizeof row);
	double *dcb = kx_upload(col_bound, sizeof col_bound), *drb = kx_upload(row_bound, sizeof row_bound);

	col[5] += 1.0;
	double *dcol_bad = kx_upload(col, sizeof col);

	assert_int_equal(gb_launch_stress_check_sums(dcol_bad, drow, dcol_exp, dcb, drow_exp, drb, m,
						     n, 4, dv, 0),
			 cudaSuccess);
	kx_download(v, dv, sizeof *v);
	assert_int_equal(v->sum_mismatches, 1);
	assert_int_equal(v->n_sum, 1);
	assert_int_equal(v->sum[0].index, 5);
	assert_false(v->sum[0].is_row);
	/* a flipped element: one repeat difference, recorded where it is */
	unsigned long long *bits = kx_alloc(16);

	assert_int_equal(gb_launch_stress_flip(dc, GB_DT_F32, 1234, bits, 0), cudaSuccess);
	assert_int_equal(gb_launch_stress_verify(dc, dref, GB_DT_F32, m, n, 4, NULL, NULL, dv, 0),
			 cudaSuccess);
	kx_download(v, dv, sizeof *v);
	assert_int_equal(v->repeat_diffs, 1);
	assert_int_equal(v->elem[0].row, 1234 % m);
	assert_int_equal(v->elem[0].col, 1234 / m);
	kx_assert_clean();
	kx_free(dc);
	kx_free(dref);
	kx_free(dcol);
	kx_free(drow);
	kx_free(dv);
	kx_free(dcol_exp);
	kx_free(drow_exp);
	kx_free(dcb);
	kx_free(drb);
	kx_free(dcol_bad);
	kx_free(bits);
	free(c);
	free(v);
}

static void test_stress_digest_and_memtest(void **state)
{
	const size_t n = 999;
	uint32_t *p = kx_alloc(n * 4), host[999];
	unsigned long long *digest = zeroed_counter(), e = 0;
	struct gb_memtest_report *r = calloc(1, sizeof *r);

	(void)state;
	assert_non_null(r);
	struct gb_memtest_report *dr = kx_upload(r, sizeof *r);

	gb_kx_reset_findings();
	assert_int_equal(gb_launch_memtest_write(p, n, 0, 0x1234, 77, 0), cudaSuccess);
	kx_download(host, p, sizeof host);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(host[i], gb_memtest_word(0, 0x1234, 77, i));
		e ^= gb_stress_digest_word(host[i], i);
	}
	assert_int_equal(gb_launch_stress_digest(p, n, digest, 0), cudaSuccess);
	assert_int_equal(read_u64(digest), e);
	host[500] ^= 1;
	assert_int_equal(cudaMemcpy(p + 500, &host[500], 4, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(gb_launch_memtest_verify(p, n, 0, 0x1234, 77, 1, dr, 0), cudaSuccess);
	kx_download(r, dr, sizeof *r);
	assert_int_equal(r->failures, 1);
	assert_int_equal(r->rec[0].word, 500);
	kx_download(host, p, sizeof host);
	assert_int_equal(host[7], ~gb_memtest_word(0, 0x1234, 77, 7));
	kx_assert_clean();
	kx_free(p);
	kx_free(digest);
	kx_free(dr);
	free(r);
}

/* ---- nccl_check.cu ---- */

static void check_nccl_dtype(int dtype, size_t elem)
{
	const uint64_t count = 1001;
	struct gb_nccl_expect e = { GB_NCCL_ALLREDUCE, GB_NCCL_SUM, dtype, 1, 0, 0, count, 42 };
	unsigned char *buf = kx_alloc(count * elem), one[8];
	unsigned long long *wrong = zeroed_counter();
	assert_int_equal(gb_launch_nccl_fill(buf, count, dtype, GB_NCCL_SUM, 42, 0, 0, 0),
			 cudaSuccess);
	assert_int_equal(gb_launch_nccl_verify(buf, count, 0, &e, wrong, 0), cudaSuccess);
	assert_int_equal(read_u64(wrong), 0);
	kx_download(one, buf + 600 * elem, elem);
	one[elem - 1] ^= 0x40;
	assert_int_equal(cudaMemcpy(buf + 600 * elem, one, elem, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(gb_launch_nccl_verify(buf, count, 0, &e, wrong, 0), cudaSuccess);
	assert_int_equal(read_u64(wrong), 1);
	kx_free(buf);
	kx_free(wrong);
}

static void test_nccl_fill_verify(void **state)
{
	(void)state;
	gb_kx_reset_findings();
	check_nccl_dtype(GB_NCCL_FLOAT, 4);
	check_nccl_dtype(GB_NCCL_INT32, 4);
	check_nccl_dtype(GB_NCCL_HALF, 2);
	check_nccl_dtype(GB_NCCL_BFLOAT16, 2);
	check_nccl_dtype(GB_NCCL_UINT64, 8);
	kx_assert_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_pattern_fill_verify),
		cmocka_unit_test(test_copy_sm_copy_and_bidir),
		cmocka_unit_test(test_copy_stream_ops),
		cmocka_unit_test(test_copy_chase_and_spin),
		cmocka_unit_test(test_fill_random_and_poison),
		cmocka_unit_test(test_verify_reference_and_compare),
		cmocka_unit_test(test_stress_fill_verify_sums),
		cmocka_unit_test(test_stress_digest_and_memtest),
		cmocka_unit_test(test_nccl_fill_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
