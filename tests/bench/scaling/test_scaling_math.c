/* SPDX-License-Identifier: MIT */
/*
 * test_scaling_math.c - unit tests for bench/scaling/scaling_math.c: the option
 * table and its checks (repeated devices allowed, both step options
 * refused), GEMM sizing from work and from a calibration, the step plan
 * (buckets that agree with the model's count, slices that cover the
 * compute), repeated devices, P2P and NVLink facts from a run, the slowest
 * worker per step, speedup and efficiency arithmetic, the all-reduce sweep
 * and its conversion to the model's price, the likely NCCL transport and
 * the link in words, the nominal price of --link, the N = 1 baseline of a
 * repeated GPU, naming a straggler, and the judgement of a measured speedup
 * (inside, below with the P2P explanation, above, without overlap,
 * compute-only with a straggler, contention).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/scaling/scaling_math.h"
#include "cmd/cli.h"
#include "report/result.h"
#include "report/scaling.h"
#include "report/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define assert_rel(a, b, rel) \
	assert_true(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define KiB 1024ULL
#define MiB (1024ULL * KiB)

/* ---- options ---- */

static int parse(struct gb_scaling_params *p, const char *const *argv, int argc)
{
	struct gb_opt_set set = { gb_scaling_opts, p };
	size_t npos = 0;

	gb_scaling_set_defaults(p);
	return gb_cli_parse(&set, 1, argc, argv, NULL, 0, &npos) == GB_CLI_OK ? 0 : -1;
}

static void test_defaults(void **state)
{
	struct gb_scaling_params p;
	char err[256];

	(void)state;
	gb_scaling_set_defaults(&p);
	assert_int_equal(p.workload, GB_SCALING_WL_DDP);
	assert_int_equal(p.steps, 20);
	assert_int_equal(p.warmup_steps, 3);
	assert_int_equal(gb_scaling_grad_bytes(&p), 256 * MiB);
	/* PyTorch DDP's bucket_cap_mb = 25, the model's GB_DDP_BUCKET_BYTES */
	assert_int_equal(gb_scaling_bucket_bytes(&p), 25 * MiB);
	assert_rel(gb_scaling_bucket_bytes(&p), GB_DDP_BUCKET_BYTES, 0);
	assert_false(p.overlap);
	assert_int_equal(p.link, -1);
	assert_true(p.workers.all);
	assert_rel(gb_scaling_target_step_ms(&p), 100, 0);
	assert_false(gb_scaling_step_by_work(&p));
	assert_int_equal(gb_scaling_validate(&p, err, sizeof(err)), 0);
}

static void test_parse_options(void **state)
{
	static const char *const args[] = { "--workload", "ddp", "--steps", "10", "--step-tflop",
					     "2.5", "--bucket", "4M", "--overlap", "--link",
					     "pcie4-nop2p", "--devices", "0,0,1" };
	struct gb_scaling_params p;
	char err[256];

	(void)state;
	assert_int_equal(parse(&p, args, ARRAY_LEN(args)), 0);
	assert_int_equal(p.workload, GB_SCALING_WL_DDP);
	assert_int_equal(p.steps, 10);
	assert_rel(p.step_tflop, 2.5, 0);
	assert_true(gb_scaling_step_by_work(&p));
	assert_int_equal(gb_scaling_bucket_bytes(&p), 4 * MiB);
	assert_true(p.overlap);
	assert_string_equal(gb_link_model_names[p.link], "pcie4-nop2p");
	/* a repeated GPU is two workers on it, not an error */
	assert_false(p.workers.all);
	assert_int_equal(p.workers.n, 3);
	assert_int_equal(p.workers.idx[0], 0);
	assert_int_equal(p.workers.idx[1], 0);
	assert_int_equal(p.workers.idx[2], 1);
	assert_int_equal(gb_scaling_validate(&p, err, sizeof(err)), 0);
}

static void test_bad_options(void **state)
{
	static const char *const zero_grad[] = { "--grad-bytes", "0" };
	static const char *const neg_step[] = { "--step-ms", "-1" };
	static const char *const bad_wl[] = { "--workload", "resnet" };
	static const char *const bad_link[] = { "--link", "infiniband" };
	static const char *const one_step[] = { "--steps", "1" };
	struct gb_scaling_params p;

	(void)state;
	assert_int_equal(parse(&p, zero_grad, 2), -1);
	assert_int_equal(parse(&p, neg_step, 2), -1);
	assert_int_equal(parse(&p, bad_wl, 2), -1);
	assert_int_equal(parse(&p, bad_link, 2), -1);
	/* a spread needs at least two steps */
	assert_int_equal(parse(&p, one_step, 2), -1);
}

static void test_validate(void **state)
{
	static const char *const both[] = { "--step-ms", "50", "--step-tflop", "1" };
	static const char *const many[] = { "--grad-bytes", "8G", "--bucket", "1M" };
	/* each option of the ddp workload, given with gemm: ignored, so refused */
	static const char *const gemm_with[][2] = {
		{ "--grad-bytes", "8G" }, { "--bucket", "1M" }, { "--overlap", NULL },
		{ "--link", "pcie4" } };
	struct gb_scaling_params p;
	char err[256], want[64];

	(void)state;
	assert_int_equal(parse(&p, both, 4), 0);
	assert_int_equal(gb_scaling_validate(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--step-ms and --step-tflop"));
	/* 8 GiB / 1 MiB = 8192 buckets: too many collective calls per step */
	assert_int_equal(parse(&p, many, 4), 0);
	assert_int_equal(gb_scaling_validate(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "8192 buckets"));
	/* gemm reduces nothing: an option of the all-reduce is a mistake, not ignored */
	for (size_t i = 0; i < ARRAY_LEN(gemm_with); i++) {
		const char *args[] = { "--workload", "gemm", gemm_with[i][0], gemm_with[i][1] };

		assert_int_equal(parse(&p, args, gemm_with[i][1] ? 4 : 3), 0);
		assert_int_equal(gb_scaling_validate(&p, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "'%s' applies only with '--workload ddp'",
			 gemm_with[i][0]);
		assert_non_null(strstr(err, want));
	}
}

/* ---- GEMM sizing ---- */

static void test_gemm_sizing(void **state)
{
	double f8k = 2.0 * 8192 * 8192 * 8192;

	(void)state;
	assert_rel(gb_scaling_gemm_flop(8192), f8k, 0);
	/* 100 TFLOP / 1.0995 TFLOP = 90.95 -> 91 GEMMs */
	assert_int_equal(gb_scaling_gemms_for_work(100e12, 8192), 91);
	assert_int_equal(gb_scaling_gemms_for_work(10 * f8k, 8192), 10);
	/* less than one GEMM of work is still one GEMM: a step is never empty */
	assert_int_equal(gb_scaling_gemms_for_work(1e9, 8192), 1);
	assert_int_equal(gb_scaling_gemms_for_work(1e30, 256), GB_SCALING_MAX_GEMMS);
	assert_int_equal(gb_scaling_gemms_for_work(0, 8192), 0);
	assert_int_equal(gb_scaling_gemms_for_work(NAN, 8192), 0);
	assert_int_equal(gb_scaling_gemms_for_work(1e12, 0), 0);
	/* 100 ms at 1.6 ms per GEMM: 62.5 -> 63 */
	assert_int_equal(gb_scaling_gemms_for_time(0.1, 0.0016), 63);
	assert_int_equal(gb_scaling_gemms_for_time(0.1, 0.3), 1);
	assert_int_equal(gb_scaling_gemms_for_time(0.1, 0), 0);
	assert_int_equal(gb_scaling_gemms_for_time(-1, 0.001), 0);
	assert_int_equal(gb_scaling_gemms_for_time(INFINITY, 0.001), 0);
}

/* ---- the step plan ---- */

/* Every bucket is contiguous, they cover the gradients, and differ by at most one element. */
static void assert_buckets_cover(const struct gb_scaling_plan *p)
{
	uint64_t next = 0, lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < p->n_buckets; i++) {
		uint64_t first, count;

		gb_scaling_bucket(p, i, &first, &count);
		assert_int_equal(first, next);
		assert_true(count > 0);
		next += count;
		lo = count < lo ? count : lo;
		hi = count > hi ? count : hi;
	}
	assert_int_equal(next, p->grad_elems);
	if (p->n_buckets)
		assert_true(hi - lo <= 1);
	assert_int_equal(gb_scaling_bucket_max_bytes(p), hi * GB_SCALING_GRAD_ELEM_BYTES);
}

static void assert_slices_cover(const struct gb_scaling_plan *p)
{
	uint64_t next = 0;

	for (int i = 0; i < p->n_slices; i++) {
		uint64_t first, count;

		gb_scaling_slice(p, i, &first, &count);
		assert_int_equal(first, next);
		next += count;
	}
	assert_int_equal(next, p->gemms);
}

static void test_plan_default(void **state)
{
	struct gb_scaling_plan p;
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	uint64_t first, count;

	(void)state;
	assert_int_equal(gb_scaling_plan_make(256 * MiB, 25 * MiB, 63, false, &p), 0);
	/* 256 MiB / 25 MiB = 10.24 -> 11 buckets of 256/11 MiB */
	assert_int_equal(p.n_buckets, 11);
	assert_int_equal(p.grad_bytes, 256 * MiB);
	assert_int_equal(p.grad_elems, 64 * MiB);
	assert_int_equal(p.n_slices, 1);
	assert_false(p.overlap);
	assert_buckets_cover(&p);
	assert_slices_cover(&p);
	gb_scaling_slice(&p, 0, &first, &count);
	assert_int_equal(count, 63);
	/* the run and the model count the same buckets of the same size */
	gb_scaling_in_init(&in);
	in.n_gpus = 2;
	in.t_compute_s = 0.1;
	in.grad_bytes = (double)p.grad_bytes;
	in.bucket_bytes = 25.0 * MiB;
	in.link.busbw_bps = 24e9;
	assert_int_equal(gb_scaling_predict(&in, &out), 0);
	assert_int_equal(out.n_buckets, p.n_buckets);
	assert_rel(out.bucket_bytes, (double)gb_scaling_bucket_max_bytes(&p), 1e-6);
}

static void test_plan_overlap(void **state)
{
	struct gb_scaling_plan p;
	uint64_t first, count;
	int empty = 0;

	(void)state;
	assert_int_equal(gb_scaling_plan_make(256 * MiB, 25 * MiB, 63, true, &p), 0);
	assert_true(p.overlap);
	assert_int_equal(p.n_slices, 11);
	assert_slices_cover(&p);
	/* 63 GEMMs in 11 slices: 8 of 6 and 3 of 5, larger first */
	gb_scaling_slice(&p, 0, &first, &count);
	assert_int_equal(count, 6);
	gb_scaling_slice(&p, 10, &first, &count);
	assert_int_equal(count, 5);
	assert_int_equal(first, 58);
	/* fewer GEMMs than buckets: some slices are empty, the compute is still all there */
	assert_int_equal(gb_scaling_plan_make(256 * MiB, 25 * MiB, 4, true, &p), 0);
	assert_slices_cover(&p);
	for (int i = 0; i < p.n_slices; i++) {
		gb_scaling_slice(&p, i, &first, &count);
		empty += count == 0;
	}
	assert_int_equal(empty, 7);
	/* out of range asks give nothing */
	gb_scaling_slice(&p, 11, &first, &count);
	assert_int_equal(count, 0);
	gb_scaling_bucket(&p, -1, &first, &count);
	assert_int_equal(count, 0);
}

static void test_plan_edges(void **state)
{
	struct gb_scaling_plan p;

	(void)state;
	/* the gemm workload: no gradients, one slice, overlap meaningless */
	assert_int_equal(gb_scaling_plan_make(0, 25 * MiB, 10, true, &p), 0);
	assert_int_equal(p.n_buckets, 0);
	assert_int_equal(p.n_slices, 1);
	assert_false(p.overlap);
	assert_int_equal(gb_scaling_bucket_max_bytes(&p), 0);
	assert_slices_cover(&p);
	/* 5 bytes round up to two fp32 gradients */
	assert_int_equal(gb_scaling_plan_make(5, 1024, 1, false, &p), 0);
	assert_int_equal(p.grad_elems, 2);
	assert_int_equal(p.grad_bytes, 8);
	assert_int_equal(p.n_buckets, 1);
	/* an exact multiple makes no extra bucket */
	assert_int_equal(gb_scaling_plan_make(100 * MiB, 25 * MiB, 1, false, &p), 0);
	assert_int_equal(p.n_buckets, 4);
	assert_buckets_cover(&p);
	/* uneven: 10 elements in 3 buckets of 16 bytes = 4, 3, 3 */
	assert_int_equal(gb_scaling_plan_make(40, 16, 1, false, &p), 0);
	assert_int_equal(p.n_buckets, 3);
	assert_buckets_cover(&p);
	/* refused: no compute, a bucket below one element, too many buckets */
	assert_int_equal(gb_scaling_plan_make(1024, 1024, 0, false, &p), -1);
	assert_int_equal(gb_scaling_plan_make(1024, 2, 1, false, &p), -1);
	assert_int_equal(gb_scaling_plan_make(8192 * MiB, MiB, 1, false, &p), -1);
	assert_int_equal(p.n_buckets, 0);
}

/* ---- workers ---- */

static void test_devices(void **state)
{
	static const int dup[] = { 0, 0 }, mixed[] = { 0, 1, 1, 2 }, uniq[] = { 3, 1 };
	char buf[64];

	(void)state;
	assert_int_equal(gb_scaling_distinct(dup, 2), 1);
	assert_true(gb_scaling_has_repeat(dup, 2));
	assert_false(gb_scaling_has_repeat(dup, 1));
	assert_int_equal(gb_scaling_distinct(mixed, 4), 3);
	assert_false(gb_scaling_has_repeat(mixed, 2));
	assert_true(gb_scaling_has_repeat(mixed, 3));
	assert_false(gb_scaling_has_repeat(uniq, 2));
	gb_scaling_devices_str(mixed, 4, buf, sizeof(buf));
	assert_string_equal(buf, "0,1,1,2");
	gb_scaling_devices_str(dup, 2, buf, 3);
	assert_string_equal(buf, "0,");
}

static void add_pair(struct gb_run *run, int a, int b, int p2p)
{
	gb_run_add_link(run, a, b, "pcie_host_bridge")->p2p_access = p2p;
	gb_run_add_link(run, b, a, "pcie_host_bridge")->p2p_access = p2p;
}

static void test_facts_from_run(void **state)
{
	static const char *const argv[] = { "scaling" };
	static const int d01[] = { 0, 1 }, d012[] = { 0, 1, 2 }, d00[] = { 0, 0 }, d03[] = { 0, 3 };
	struct gb_run run;

	(void)state;
	gb_run_init(&run, "scaling", 1, argv);
	for (int i = 0; i < 3; i++) {
		struct gb_device_info *d = gb_run_add_device(&run);

		d->index = i;
		d->nvlink_up = i == 2 ? 12 : 18;
	}
	add_pair(&run, 0, 1, 1);
	add_pair(&run, 0, 2, 1);
	add_pair(&run, 1, 2, 0);
	assert_int_equal(gb_scaling_p2p_among(&run, d01, 2), 1);
	/* one pair without P2P is enough for the all-reduce to go through host memory */
	assert_int_equal(gb_scaling_p2p_among(&run, d012, 3), 0);
	/* one GPU has no peer; an unrecorded pair is unknown */
	assert_int_equal(gb_scaling_p2p_among(&run, d00, 2), -1);
	assert_int_equal(gb_scaling_p2p_among(&run, d03, 2), -1);
	assert_int_equal(gb_scaling_nvlinks_among(&run, d01, 2), 18);
	assert_int_equal(gb_scaling_nvlinks_among(&run, d012, 3), 12);
	assert_int_equal(gb_scaling_nvlinks_among(&run, d03, 2), -1);
	run.devices[1].nvlink_up = -1;
	assert_int_equal(gb_scaling_nvlinks_among(&run, d01, 2), -1);
	gb_run_release(&run);
}

/* The run's transport from its recorded NCCL_* environment and topology (item 19). */
static struct gb_run *pair_run(struct gb_run *run, const char *type, int p2p, const char *cpu)
{
	static const char *const argv[] = { "scaling" };

	gb_run_init(run, "scaling", 1, argv);
	for (int i = 0; i < 2; i++) {
		struct gb_device_info *d = gb_run_add_device(run);

		d->index = i;
		d->cc_major = 9;
		d->cc_minor = 0;
		d->nvlink_up = strcmp(type, "nvlink") ? 0 : 18;
		d->pcie_max_gen = i ? 4 : 5;
		d->pcie_max_width = 16;
	}
	gb_run_add_link(run, 0, 1, type)->p2p_access = p2p;
	gb_run_add_link(run, 1, 0, type)->p2p_access = p2p;
	run->host.cpu = cpu ? gb_strdup(cpu) : NULL;
	return run;
}

static void test_transport(void **state)
{
	static const int d01[] = { 0, 1 }, d00[] = { 0, 0 };
	struct gb_run run;
	char cause[160];

	(void)state;
	/* peer access, one PCIe switch: NCCL's P2P transport, nothing to say */
	pair_run(&run, "pcie_switch", 1, "Intel(R) Xeon(R) Gold 6338 (64 logical CPUs)");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	assert_string_equal(cause, "");
	/* one GPU has no peer */
	assert_null(gb_scaling_transport(&run, d00, 2, cause, sizeof(cause)));
	/* NCCL_P2P_DISABLE=1 sends it through host memory; SHM disabled too, the network */
	gb_run_add_env(&run, "NCCL_P2P_DISABLE", "1");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "SHM");
	assert_string_equal(cause, "NCCL_P2P_DISABLE=1");
	gb_run_add_env(&run, "NCCL_SHM_DISABLE", "1");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "NET");
	assert_string_equal(cause, "NCCL_P2P_DISABLE=1; NCCL_SHM_DISABLE=1");
	gb_run_release(&run);

	/* NCCL acts on exactly 1; any other value leaves P2P on */
	pair_run(&run, "pcie_switch", 1, "AMD EPYC 7763 (128 logical CPUs)");
	gb_run_add_env(&run, "NCCL_P2P_DISABLE", "0");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	gb_run_release(&run);

	/* no peer access at all */
	pair_run(&run, "pcie_host_bridge", 0, NULL);
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "SHM");
	assert_non_null(strstr(cause, "cudaDeviceCanAccessPeer says no between GPU 0 and GPU 1"));
	gb_run_release(&run);

	/* peer access through an Intel host bridge: NCCL's default level (PXB) refuses it */
	pair_run(&run, "pcie_host_bridge", 1, "Intel(R) Xeon(R) w5-3435X (32 logical CPUs)");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "SHM");
	assert_non_null(strstr(cause, "through a CPU host bridge"));
	/* unless the user allows it */
	gb_run_add_env(&run, "NCCL_P2P_LEVEL", "SYS");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	gb_run_release(&run);

	/* two GPUs on an AMD host: P2P up to SYS */
	pair_run(&run, "cross_socket", 1, "AMD EPYC 9654 (384 logical CPUs)");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	/* the user's level wins, old numbers too: 2 is PXB */
	gb_run_add_env(&run, "NCCL_P2P_LEVEL", "2");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "SHM");
	assert_non_null(strstr(cause, "NCCL_P2P_LEVEL=2"));
	gb_run_release(&run);

	/* the CPU not recorded: the host-bridge rule cannot be applied ... */
	pair_run(&run, "pcie_host_bridge", 1, NULL);
	assert_null(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)));
	gb_run_release(&run);
	/* ... but a PCIe switch is within every default */
	pair_run(&run, "pcie_switch", 1, NULL);
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	gb_run_release(&run);
	/* an AMD host with more than two GPUs: PXB (NCCL 2.28) or SYS (older), open */
	{
		static const int d012[] = { 0, 1, 2 };
		struct gb_device_info *d;

		pair_run(&run, "pcie_host_bridge", 1, "AMD EPYC 9654 (384 logical CPUs)");
		d = gb_run_add_device(&run);
		d->index = 2;
		for (int i = 0; i < 2; i++) {
			gb_run_add_link(&run, i, 2, "pcie_switch")->p2p_access = 1;
			gb_run_add_link(&run, 2, i, "pcie_switch")->p2p_access = 1;
		}
		assert_null(gb_scaling_transport(&run, d012, 3, cause, sizeof(cause)));
		assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)),
				    "P2P");
		gb_run_release(&run);
	}

	/* NVLink: P2P whatever the CPU; NCCL_P2P_LEVEL=LOC turns it off */
	pair_run(&run, "nvlink", 1, "Intel(R) Xeon(R) Platinum 8480+ (224 logical CPUs)");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "P2P");
	gb_run_add_env(&run, "NCCL_P2P_LEVEL", "LOC");
	assert_string_equal(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)), "SHM");
	assert_string_equal(cause, "NCCL_P2P_LEVEL=LOC");
	gb_run_release(&run);

	/* no topology recorded (no NVML): unknown */
	pair_run(&run, "unknown", 1, "AMD EPYC 7763 (128 logical CPUs)");
	assert_null(gb_scaling_transport(&run, d01, 2, cause, sizeof(cause)));
	gb_run_release(&run);
}

/* The link in words for the one-line statement (item 17). */
static void test_link_label(void **state)
{
	static const int d01[] = { 0, 1 }, d00[] = { 0, 0 };
	struct gb_run run;
	char b[96];

	(void)state;
	pair_run(&run, "nvlink", 1, NULL);
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, false, b, sizeof(b)),
			    "NVLink4 × 18");
	assert_null(gb_scaling_link_label(&run, d00, 2, false, b, sizeof(b)));
	gb_run_release(&run);
	/* the smaller maximum generation of the two: a Gen5 GPU beside a Gen4 one */
	pair_run(&run, "pcie_host_bridge", 1, NULL);
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, false, b, sizeof(b)),
			    "PCIe Gen4 x16");
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, true, b, sizeof(b)),
			    "PCIe Gen4 x16 without P2P");
	gb_run_release(&run);
	pair_run(&run, "cross_socket", 0, NULL);
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, true, b, sizeof(b)),
			    "PCIe Gen4 x16 across CPU sockets without P2P");
	run.devices[0].pcie_max_gen = -1;
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, false, b, sizeof(b)),
			    "PCIe x16 across CPU sockets");
	gb_run_release(&run);
	/* no topology: PCIe only when the GPUs have no NVLink up, else unknown */
	pair_run(&run, "unknown", 1, NULL);
	assert_string_equal(gb_scaling_link_label(&run, d01, 2, false, b, sizeof(b)),
			    "PCIe Gen4 x16");
	run.devices[1].nvlink_up = -1;
	assert_null(gb_scaling_link_label(&run, d01, 2, false, b, sizeof(b)));
	assert_string_equal(b, "");
	gb_run_release(&run);
}

/* --link nvlinkN on GPUs without NVLink says so (item 20). */
static void test_nominal_link_reason(void **state)
{
	const struct gb_link_model *nvl4 = gb_link_model_by_name("nvlink4");
	struct gb_ar_link link;
	char why[256];

	(void)state;
	assert_int_equal(gb_scaling_nominal_link(nvl4, 18, &link, why, sizeof(why)), 0);
	assert_rel(link.busbw_bps, 18 * 20.6e9, 1e-9);
	assert_string_equal(why, "");
	assert_int_equal(gb_scaling_nominal_link(nvl4, 0, &link, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot price --link nvlink4: these GPUs have no NVLink up"));
	assert_null(strstr(why, "unknown"));
	assert_int_equal(gb_scaling_nominal_link(nvl4, -1, &link, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the NVLink count of these GPUs is unknown"));
	/* PCIe needs no count */
	assert_int_equal(gb_scaling_nominal_link(gb_link_model_by_name("pcie4"), -1, &link, why,
						 sizeof(why)),
			 0);
	assert_int_equal(gb_scaling_nominal_link(NULL, 0, &link, why, sizeof(why)), -1);
}

/* --devices 0,0: N = 1 copies the same bytes as the contention phases (item 21). */
static void test_baseline_copies(void **state)
{
	static const int d00[] = { 0, 0 }, d001[] = { 0, 0, 1 }, d010[] = { 0, 1, 0 },
			 d01[] = { 0, 1 };

	(void)state;
	assert_true(gb_scaling_baseline_copies(d00, 2));
	assert_true(gb_scaling_baseline_copies(d001, 3));
	/* N = 2 is a real pair: the baseline stays an NCCL rank like it */
	assert_false(gb_scaling_baseline_copies(d010, 3));
	assert_false(gb_scaling_baseline_copies(d01, 2));
	assert_false(gb_scaling_baseline_copies(d00, 1));
}

/* ---- measured numbers ---- */

static void test_step_max(void **state)
{
	/* two workers, stride 4, three steps used */
	static const double per[] = { 0.10, 0.30, 0.20, 9, 0.15, 0.25, 0.20, 9 };
	double out[3];

	(void)state;
	gb_scaling_step_max(per, 2, 4, 3, out);
	assert_rel(out[0], 0.15, 0);
	assert_rel(out[1], 0.30, 0);
	assert_rel(out[2], 0.20, 0);
	gb_scaling_step_max(per, 1, 4, 3, out);
	assert_rel(out[0], 0.10, 0);
}

static void test_speedups(void **state)
{
	static const double steps[] = { 0.105, 0.110, 0.100 };
	double sp[3], eff[3], tf[3];
	double work = 63 * gb_scaling_gemm_flop(8192);

	(void)state;
	assert_int_equal(gb_scaling_speedups(2, 0.1, work, steps, 3, sp, eff, tf), 0);
	assert_rel(sp[0], 2 * 0.1 / 0.105, 1e-12);
	assert_rel(sp[2], 2.0, 1e-12);
	assert_rel(eff[1], 0.1 / 0.110, 1e-12);
	/* weak scaling: two workers each did the whole step's work */
	assert_rel(tf[0], 2 * work / 0.105 / 1e12, 1e-12);
	/* N = 1 against itself */
	assert_int_equal(gb_scaling_speedups(1, 0.1, work, steps + 2, 1, sp, NULL, NULL), 0);
	assert_rel(sp[0], 1.0, 1e-12);
	assert_int_equal(gb_scaling_speedups(0, 0.1, work, steps, 3, sp, eff, tf), -1);
	assert_int_equal(gb_scaling_speedups(2, 0, work, steps, 3, sp, eff, tf), -1);
	assert_int_equal(gb_scaling_speedups(2, 0.1, NAN, steps, 3, sp, eff, tf), -1);
	{
		static const double bad[] = { 0.1, 0 };

		assert_int_equal(gb_scaling_speedups(2, 0.1, work, bad, 2, sp, eff, tf), -1);
	}
}

/* ---- pricing the all-reduce ---- */

static void test_sweep_sizes(void **state)
{
	uint64_t s[GB_SCALING_SWEEP_MAX];
	size_t n;
	struct gb_scaling_plan p;

	(void)state;
	/* 256 MiB in 11 buckets of up to 6100806 fp32: 64K 256K 1M 4M 16M, then the bucket */
	assert_int_equal(gb_scaling_plan_make(256 * MiB, 25 * MiB, 1, false, &p), 0);
	assert_int_equal(gb_scaling_bucket_max_bytes(&p), 6100806 * 4ULL);
	n = gb_scaling_sweep_sizes(gb_scaling_bucket_max_bytes(&p), s, GB_SCALING_SWEEP_MAX);
	assert_int_equal(n, 6);
	assert_int_equal(s[0], 64 * KiB);
	assert_int_equal(s[4], 16 * MiB);
	assert_int_equal(s[5], 6100806 * 4ULL);
	/* a tiny bucket still gives a line through two points */
	n = gb_scaling_sweep_sizes(4096, s, GB_SCALING_SWEEP_MAX);
	assert_int_equal(n, 3);
	assert_int_equal(s[2], MiB);
	/* sizes are whole fp32 elements */
	n = gb_scaling_sweep_sizes(2 * MiB + 2, s, GB_SCALING_SWEEP_MAX);
	assert_int_equal(s[n - 1] % 4, 0);
	assert_true(s[n - 1] >= 2 * MiB + 2);
	/* a short output keeps the largest size last */
	n = gb_scaling_sweep_sizes(1024 * MiB, s, 3);
	assert_int_equal(n, 3);
	assert_int_equal(s[2], 1024 * MiB);
}

static void test_link_from_sweep(void **state)
{
	double bytes[6], secs[6];
	struct gb_alpha_beta fit;
	struct gb_ar_link link;

	(void)state;
	/* t = 20 us + S / 100 GB/s (algbw) */
	for (int i = 0; i < 6; i++) {
		bytes[i] = 65536.0 * pow(4, i);
		secs[i] = 20e-6 + bytes[i] / 100e9;
	}
	assert_int_equal(gb_scaling_link_from_sweep(bytes, secs, 6, 2, &fit, &link), 0);
	assert_rel(fit.alpha_s, 20e-6, 1e-6);
	assert_rel(fit.beta_bps, 100e9, 1e-6);
	/* 2 GPUs: 2 ring steps share the per-call alpha; busbw = algbw x 2(N-1)/N = algbw */
	assert_rel(link.alpha_s, 10e-6, 1e-6);
	assert_rel(link.busbw_bps, 100e9, 1e-6);
	/* 4 GPUs: 6 steps, busbw = algbw x 1.5 */
	assert_int_equal(gb_scaling_link_from_sweep(bytes, secs, 6, 4, NULL, &link), 0);
	assert_rel(link.alpha_s, 20e-6 / 6, 1e-6);
	assert_rel(link.busbw_bps, 150e9, 1e-6);
	/* one rank has no link; one size has no line */
	assert_int_equal(gb_scaling_link_from_sweep(bytes, secs, 6, 1, &fit, &link), -1);
	assert_int_equal(gb_scaling_link_from_sweep(bytes, secs, 1, 2, &fit, &link), -1);
	assert_rel(link.busbw_bps, 0, 0);
}

/* ---- the model and the judgement ---- */

static struct gb_scaling_plan ddp_plan(void)
{
	struct gb_scaling_plan p;

	assert_int_equal(gb_scaling_plan_make(256 * MiB, 25 * MiB, 63, false, &p), 0);
	return p;
}

static void test_model_in(void **state)
{
	struct gb_scaling_plan p = ddp_plan(), g;
	struct gb_ar_link link = { 5.7e-6, 25.2e9 };
	struct gb_scaling_in in;
	struct gb_scaling_out out;

	(void)state;
	gb_scaling_model_in(2, 0.1, &p, 25 * MiB, &link, &in);
	assert_int_equal(in.n_gpus, 2);
	assert_rel(in.t_compute_s, 0.1, 0);
	assert_rel(in.grad_bytes, 256.0 * MiB, 0);
	assert_rel(in.delta, GB_SCALING_DELTA_DEFAULT, 0);
	assert_rel(in.link.busbw_bps, 25.2e9, 0);
	assert_int_equal(gb_scaling_predict(&in, &out), 0);
	assert_true(out.speedup_no_overlap < out.speedup_perfect);
	/* compute only: no link, no delta, so both bounds are the ideal N */
	assert_int_equal(gb_scaling_plan_make(0, 25 * MiB, 63, false, &g), 0);
	gb_scaling_model_in(4, 0.1, &g, 25 * MiB, NULL, &in);
	assert_rel(in.delta, 0, 0);
	assert_int_equal(gb_scaling_predict(&in, &out), 0);
	assert_rel(out.speedup_no_overlap, 4, 1e-12);
	assert_rel(out.speedup_perfect, 4, 1e-12);
}

static void predict_pcie(struct gb_scaling_in *in, struct gb_scaling_out *out)
{
	struct gb_scaling_plan p = ddp_plan();
	struct gb_ar_link link;

	assert_int_equal(gb_link_nominal(gb_link_model_by_name("pcie4"), 0, &link), 0);
	gb_scaling_model_in(2, 0.1, &p, 25 * MiB, &link, in);
	assert_int_equal(gb_scaling_predict(in, out), 0);
}

static void test_judge_inside(void **state)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_facts f;
	struct gb_scaling_judgement j;
	double mid;

	(void)state;
	predict_pcie(&in, &out);
	mid = (out.speedup_no_overlap + out.speedup_perfect) / 2;
	gb_scaling_facts_init(&f);
	f.p2p_access = 1;
	gb_scaling_judge(&in, &out, mid, &f, NULL, false, &j);
	assert_int_equal(j.place, GB_PLACE_INSIDE);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	assert_int_equal(j.severity, GB_SEV_INFO);
	assert_non_null(strstr(j.message, "inside the range"));
}

/*
 * Without --overlap the run is judged against the no-overlap speedup with
 * and without delta, and never told that part of the all-reduce hid (S2).
 */
static void test_judge_no_overlap(void **state)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_facts f;
	struct gb_scaling_judgement j;
	double clean;

	(void)state;
	predict_pcie(&in, &out);
	clean = 2 * 0.1 / (0.1 + out.t_allreduce_s);
	gb_scaling_facts_init(&f);
	f.overlap = false;
	f.link = "PCIe Gen4 x16";
	gb_scaling_judge(&in, &out, clean, &f, NULL, false, &j);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	assert_non_null(strstr(j.message, "expected without overlap over PCIe Gen4 x16 (nominal "
					  "busbw 25.2 GB/s)"));
	assert_null(strstr(j.message, "hid"));
	/* between the two ends the perfect-overlap bound allows: not for this run */
	gb_scaling_judge(&in, &out, (clean + out.speedup_perfect) / 2 * 1.01, &f, NULL, false,
			 &j);
	assert_int_equal(j.place, GB_PLACE_ABOVE);
	assert_int_equal(j.status, GB_STATUS_WARNING);
}

static void test_judge_below_p2p_off(void **state)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_facts f;
	struct gb_scaling_judgement j;

	(void)state;
	predict_pcie(&in, &out);
	/* priced as PCIe with P2P, measured on GPUs without it: the example */
	gb_scaling_facts_init(&f);
	f.p2p_access = 0;
	f.link_measured = false;
	f.link_host_staged = false;
	gb_scaling_judge(&in, &out, 0.8 * out.speedup_no_overlap, &f, NULL, false, &j);
	assert_int_equal(j.place, GB_PLACE_BELOW);
	assert_int_equal(j.status, GB_STATUS_WARNING);
	assert_int_equal(j.severity, GB_SEV_WARNING);
	assert_non_null(strstr(j.message, "below the no-overlap bound"));
	assert_non_null(strstr(j.message, "P2P is off, the all-reduce goes through host memory"));
	/* priced from a measurement on these GPUs: the path is in the price, look elsewhere */
	f.link_measured = true;
	f.link_host_staged = true;
	gb_scaling_judge(&in, &out, 0.8 * out.speedup_no_overlap, &f, NULL, false, &j);
	assert_int_equal(j.status, GB_STATUS_WARNING);
	assert_null(strstr(j.message, "P2P is off"));
	/* with the cause of the host path known, the line names it */
	f.transport = "SHM";
	f.transport_cause = "NCCL_P2P_DISABLE=1";
	gb_scaling_judge(&in, &out, 0.8 * out.speedup_no_overlap, &f, NULL, false, &j);
	assert_non_null(strstr(j.message, "host memory (NCCL_P2P_DISABLE=1)"));
}

static void test_judge_above(void **state)
{
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_judgement j;

	(void)state;
	predict_pcie(&in, &out);
	gb_scaling_judge(&in, &out, out.speedup_perfect * 1.05, NULL, NULL, false, &j);
	assert_int_equal(j.place, GB_PLACE_ABOVE);
	assert_int_equal(j.status, GB_STATUS_WARNING);
	assert_non_null(strstr(j.message, "faster than the model allows: check the measurement"));
	/* within the 1 % tolerance of a bound is on it */
	gb_scaling_judge(&in, &out, out.speedup_perfect * 1.005, NULL, NULL, false, &j);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	gb_scaling_judge(&in, &out, NAN, NULL, NULL, false, &j);
	assert_int_equal(j.place, GB_PLACE_INVALID);
	assert_int_equal(j.status, GB_STATUS_WARNING);
}

static void test_judge_compute_only(void **state)
{
	struct gb_scaling_plan g;
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_judgement j;

	(void)state;
	assert_int_equal(gb_scaling_plan_make(0, 25 * MiB, 63, false, &g), 0);
	gb_scaling_model_in(2, 0.1, &g, 25 * MiB, NULL, &in);
	assert_int_equal(gb_scaling_predict(&in, &out), 0);
	gb_scaling_judge(&in, &out, 1.97, NULL, NULL, true, &j);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	assert_non_null(strstr(j.message, "1.97× measured, 1.90–2× expected (compute only)"));
	assert_non_null(strstr(j.message, "compute-bound ideal 2×"));
	gb_scaling_judge(&in, &out, 1.85, NULL, NULL, true, &j);
	assert_int_equal(j.place, GB_PLACE_BELOW);
	assert_int_equal(j.status, GB_STATUS_WARNING);
	assert_non_null(strstr(j.message, "straggler"));
	gb_scaling_judge(&in, &out, 2.1, NULL, NULL, true, &j);
	assert_int_equal(j.place, GB_PLACE_ABOVE);
	assert_non_null(strstr(j.message, "check the measurement"));
}

/* gemm: each GPU timed alone names the straggler, or clears every GPU (item 18). */
static void test_judge_straggler(void **state)
{
	static const int dev[] = { 0, 1, 2 };
	static const double alone_slow[] = { 0.100, 0.108, NAN };
	static const double alone_even[] = { 0.100, 0.1015, 0.1005 };
	static const double together[] = { 0.101, 0.112, 0.103 };
	struct gb_scaling_plan g;
	struct gb_scaling_in in;
	struct gb_scaling_out out;
	struct gb_scaling_spread sp;
	struct gb_scaling_judgement j;

	(void)state;
	assert_int_equal(gb_scaling_plan_make(0, 25 * MiB, 63, false, &g), 0);
	gb_scaling_model_in(2, 0.1, &g, 25 * MiB, NULL, &in);
	assert_int_equal(gb_scaling_predict(&in, &out), 0);

	gb_scaling_spread_init(&sp);
	assert_int_equal(sp.slow_dev, -1);
	assert_true(isnan(sp.lag_s));
	/* NaN entries (a GPU not timed) are skipped */
	gb_scaling_spread_alone(&sp, dev, alone_slow, 3);
	assert_int_equal(sp.slow_dev, 1);
	assert_int_equal(sp.fast_dev, 0);
	assert_rel(sp.slow_s, 0.108, 0);
	gb_scaling_judge(&in, &out, 1.85, NULL, &sp, true, &j);
	assert_int_equal(j.place, GB_PLACE_BELOW);
	assert_non_null(strstr(j.message, "GPU 1 is a straggler: alone it takes 108.0 ms per "
					  "step against 100.0 ms on GPU 0 (8% slower"));
	/* every GPU alone within 2 %: the loss comes from running together */
	gb_scaling_spread_alone(&sp, dev, alone_even, 3);
	gb_scaling_spread_together(&sp, dev, together, 3);
	assert_int_equal(sp.lag_dev, 1);
	assert_int_equal(sp.lead_dev, 0);
	gb_scaling_judge(&in, &out, 1.85, NULL, &sp, true, &j);
	assert_null(strstr(j.message, "is a straggler"));
	assert_non_null(strstr(j.message, "alone, every GPU is within 2% of the fastest"));
	assert_non_null(strstr(j.message, "running together"));
	assert_non_null(strstr(j.message, "together GPU 1 was slowest (112.0 ms median, GPU 0 "
					  "101.0 ms)"));
	/* inside: no straggler talk */
	gb_scaling_judge(&in, &out, 1.98, NULL, &sp, true, &j);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	assert_null(strstr(j.message, "straggler"));
}

/* ddp: the slowest compute part names the straggler, the all-reduce wait hidden */
static void test_compute_straggler(void **state)
{
	static const int dev[] = { 0, 1, 2 };
	static const double slow1[] = { 0.020, 0.025, 0.0201 };
	static const double even[] = { 0.020, 0.0203, 0.0201 };
	static const double one_known[] = { 0.020, NAN, -1 };
	char b[256];

	(void)state;
	assert_true(gb_scaling_compute_straggler(dev, slow1, 3, b, sizeof(b)));
	assert_string_equal(b, "GPU 1 computes slowest: 25.0 ms of GEMMs per step against "
			       "20.0 ms on GPU 0 (25% slower: clocks, power, heat), and every "
			       "step waits for it");
	/* within 2 %: nobody is named */
	assert_false(gb_scaling_compute_straggler(dev, even, 3, b, sizeof(b)));
	assert_string_equal(b, "");
	/* one GPU with a time: nothing to compare */
	assert_false(gb_scaling_compute_straggler(dev, one_known, 3, b, sizeof(b)));
	assert_false(gb_scaling_compute_straggler(dev, slow1, 1, b, sizeof(b)));
}

static void test_judge_contention(void **state)
{
	struct gb_scaling_judgement j;

	(void)state;
	gb_scaling_judge_contention(2, 1, "0,0", 0.98, true, true, &j);
	assert_int_equal(j.status, GB_STATUS_PASSED);
	assert_int_equal(j.severity, GB_SEV_INFO);
	assert_non_null(strstr(j.message, "contention"));
	assert_non_null(strstr(j.message, "2 workers share 1 GPU (devices 0,0)"));
	assert_non_null(strstr(j.message, "device-local copy of the same bytes, at N = 1 too"));
	/* a baseline without the copy is named as the asymmetry it is */
	gb_scaling_judge_contention(3, 2, "0,1,0", 1.9, true, false, &j);
	assert_non_null(strstr(j.message, "which N = 1 (a one-rank NCCL all-reduce) did not make"));
	gb_scaling_judge_contention(2, 1, "0,0", 0.98, false, false, &j);
	assert_null(strstr(j.message, "device-local copy"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_parse_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_gemm_sizing),
		cmocka_unit_test(test_plan_default),
		cmocka_unit_test(test_plan_overlap),
		cmocka_unit_test(test_plan_edges),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_facts_from_run),
		cmocka_unit_test(test_transport),
		cmocka_unit_test(test_link_label),
		cmocka_unit_test(test_nominal_link_reason),
		cmocka_unit_test(test_baseline_copies),
		cmocka_unit_test(test_step_max),
		cmocka_unit_test(test_speedups),
		cmocka_unit_test(test_sweep_sizes),
		cmocka_unit_test(test_link_from_sweep),
		cmocka_unit_test(test_model_in),
		cmocka_unit_test(test_judge_inside),
		cmocka_unit_test(test_judge_no_overlap),
		cmocka_unit_test(test_judge_below_p2p_off),
		cmocka_unit_test(test_judge_above),
		cmocka_unit_test(test_judge_compute_only),
		cmocka_unit_test(test_judge_straggler),
		cmocka_unit_test(test_compute_straggler),
		cmocka_unit_test(test_judge_contention),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
