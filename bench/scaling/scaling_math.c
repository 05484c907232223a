/* SPDX-License-Identifier: MIT */
/*
 * scaling_math.c - options, step plan, GEMM sizing, speedup arithmetic,
 * all-reduce pricing and the judgement of `gpubench scaling` (CPU only, no
 * printing; see scaling_math.h). tests/bench/scaling/test_scaling_math.c checks it.
 */
#include "bench/scaling/scaling_math.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/theory.h"

/* ---- options ---- */

const char *const gb_scaling_workload_names[] = { "gemm", "ddp", NULL };

#define P(f) offsetof(struct gb_scaling_params, f)
#define GiB (1024.0 * 1024 * 1024)

const struct gb_opt gb_scaling_opts[] = {
	{ GB_OPT_ENUM, 0, "workload", P(workload), "NAME",
	  "gemm (compute only) or ddp (compute, then an all-reduce of the gradients; default)", 0,
	  0, gb_scaling_workload_names, 0 },
	{ GB_OPT_COUNT, 0, "steps", P(steps), "N", "measured steps per worker count (default 20)",
	  2, 100000, NULL, 0 },
	{ GB_OPT_COUNT, 0, "warmup-steps", P(warmup_steps), "N",
	  "untimed steps before them (default 3)", 0, 10000, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "step-ms", P(step_ms), "MS",
	  "compute per step as one GPU's time, calibrated on the first GPU (default 100)", 0.001,
	  60000, NULL, 0 },
	{ GB_OPT_DOUBLE, 0, "step-tflop", P(step_tflop), "TFLOP",
	  "compute per step as work instead of time (square GEMMs: 2n^3 FLOP each)", 1e-6, 1e6,
	  NULL, 0 },
	{ GB_OPT_SIZE, 0, "grad-bytes", P(grad_bytes), "SIZE",
	  "gradients all-reduced per step, fp32 (ddp; default 256M)", 4, 64 * GiB, NULL, 0 },
	{ GB_OPT_SIZE, 0, "bucket", P(bucket_bytes), "SIZE",
	  "bucket cap: the all-reduce goes in ceil(grad/bucket) calls (ddp; default 25M, PyTorch "
	  "DDP's)",
	  1024, 64 * GiB, NULL, 0 },
	{ GB_OPT_BOOL, 0, "overlap", P(overlap), NULL,
	  "start bucket i's all-reduce after compute slice i, as DDP overlaps backward (ddp)", 0, 0,
	  NULL, 0 },
	{ GB_OPT_ENUM, 0, "link", P(link), "NAME",
	  "price the all-reduce by this nominal link instead of measuring it (ddp; "
	  "docs/scaling.md)",
	  0, 0, gb_link_model_names, 0 },
	{ GB_OPT_COUNT, 0, "gemm-size", P(gemm_size), "N",
	  "side of the square GEMMs (default 8192 for bf16, 4096 for the fp32 fallback)", 256,
	  32768, NULL, 0 },
	/*
	 * Shadows the common --devices (this table is searched first) to allow a
	 * repeated GPU: "0,0" runs two workers on GPU 0. Hidden so --help lists
	 * --devices once; the usage line shows the repeat.
	 */
	{ GB_OPT_DEVICES, 'd', "devices", P(workers), "LIST",
	  "GPUs, one worker each; a repeat (0,0) runs two workers on one GPU", 0, 0, NULL,
	  GB_OPTF_ALLOW_DUP | GB_OPTF_HIDDEN },
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

#undef P

void gb_scaling_set_defaults(void *params)
{
	struct gb_scaling_params *p = params;

	memset(p, 0, sizeof(*p));
	p->workload = GB_SCALING_WL_DDP;
	p->steps = 20;
	p->warmup_steps = 3;
	p->link = -1;
	p->workers.all = true;
}

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

uint64_t gb_scaling_grad_bytes(const struct gb_scaling_params *p)
{
	return p->grad_bytes ? p->grad_bytes : 256ULL << 20;
}

uint64_t gb_scaling_bucket_bytes(const struct gb_scaling_params *p)
{
	return p->bucket_bytes ? p->bucket_bytes : 25ULL << 20;
}

/* The first option of the ddp workload given, NULL when none: gemm has no all-reduce. */
static const char *ddp_option_given(const struct gb_scaling_params *p)
{
	if (p->grad_bytes)
		return "--grad-bytes";
	if (p->bucket_bytes)
		return "--bucket";
	if (p->overlap)
		return "--overlap";
	return p->link >= 0 ? "--link" : NULL;
}

int gb_scaling_validate(const void *params, char *err, size_t errlen)
{
	const struct gb_scaling_params *p = params;
	const char *ddp_only = ddp_option_given(p);
	uint64_t k;

	if (p->workload != GB_SCALING_WL_DDP && ddp_only) {
		snprintf(err, errlen,
			 "'%s' applies only with '--workload ddp': the gemm workload has no "
			 "all-reduce",
			 ddp_only);
		return -1;
	}
	if (p->step_ms > 0 && p->step_tflop > 0) {
		snprintf(err, errlen,
			 "--step-ms and --step-tflop both size the compute of a step; give one");
		return -1;
	}
	if (gb_scaling_bucket_bytes(p) < GB_SCALING_GRAD_ELEM_BYTES) {
		snprintf(err, errlen, "--bucket must hold one fp32 gradient (4 B)");
		return -1;
	}
	if (p->workload != GB_SCALING_WL_DDP)
		return 0;
	k = div_ceil(div_ceil(gb_scaling_grad_bytes(p), GB_SCALING_GRAD_ELEM_BYTES) *
			     GB_SCALING_GRAD_ELEM_BYTES,
		     gb_scaling_bucket_bytes(p));
	if (k > GB_SCALING_MAX_BUCKETS) {
		snprintf(err, errlen,
			 "--grad-bytes / --bucket gives %llu buckets per step; at most %d (raise "
			 "--bucket)",
			 (unsigned long long)k, GB_SCALING_MAX_BUCKETS);
		return -1;
	}
	return 0;
}

double gb_scaling_target_step_ms(const struct gb_scaling_params *p)
{
	return p->step_ms > 0 ? p->step_ms : GB_SCALING_DEFAULT_STEP_MS;
}

bool gb_scaling_step_by_work(const struct gb_scaling_params *p)
{
	return p->step_tflop > 0;
}

/* ---- GEMM sizing ---- */

double gb_scaling_gemm_flop(uint64_t n)
{
	double d = (double)n;

	return 2.0 * d * d * d;
}

static uint64_t clamp_gemms(double count)
{
	if (!isfinite(count) || !(count > 0))
		return 0;
	count = floor(count + 0.5);
	if (count < 1)
		return 1;
	return count > GB_SCALING_MAX_GEMMS ? GB_SCALING_MAX_GEMMS : (uint64_t)count;
}

uint64_t gb_scaling_gemms_for_work(double flop, uint64_t n)
{
	if (!n || !isfinite(flop) || !(flop > 0))
		return 0;
	return clamp_gemms(flop / gb_scaling_gemm_flop(n));
}

uint64_t gb_scaling_gemms_for_time(double step_s, double t_gemm_s)
{
	if (!isfinite(step_s) || !(step_s > 0) || !isfinite(t_gemm_s) || !(t_gemm_s > 0))
		return 0;
	return clamp_gemms(step_s / t_gemm_s);
}

/* ---- the step plan ---- */

int gb_scaling_plan_make(uint64_t grad_bytes, uint64_t bucket_cap, uint64_t gemms, bool overlap,
			 struct gb_scaling_plan *out)
{
	uint64_t k;

	memset(out, 0, sizeof(*out));
	if (!gemms || bucket_cap < GB_SCALING_GRAD_ELEM_BYTES)
		return -1;
	out->grad_elems = div_ceil(grad_bytes, GB_SCALING_GRAD_ELEM_BYTES);
	out->grad_bytes = out->grad_elems * GB_SCALING_GRAD_ELEM_BYTES;
	/* counted in bytes exactly as report/scaling.c counts k, so model and run agree */
	k = out->grad_bytes ? div_ceil(out->grad_bytes, bucket_cap) : 0;
	if (k > GB_SCALING_MAX_BUCKETS) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->n_buckets = (int)k;
	out->gemms = gemms;
	out->overlap = overlap && k > 0;
	out->n_slices = out->overlap ? (int)k : 1;
	return 0;
}

/* Part i of `total` split into `parts` as equally as whole units allow (larger parts first). */
static void split_even(uint64_t total, uint64_t parts, uint64_t i, uint64_t *first,
		       uint64_t *count)
{
	uint64_t base = total / parts, extra = total % parts;

	*count = base + (i < extra);
	*first = i * base + (i < extra ? i : extra);
}

void gb_scaling_bucket(const struct gb_scaling_plan *p, int i, uint64_t *first, uint64_t *count)
{
	*first = *count = 0;
	if (i < 0 || i >= p->n_buckets)
		return;
	split_even(p->grad_elems, (uint64_t)p->n_buckets, (uint64_t)i, first, count);
}

uint64_t gb_scaling_bucket_max_bytes(const struct gb_scaling_plan *p)
{
	uint64_t first, count;

	gb_scaling_bucket(p, 0, &first, &count);
	return count * GB_SCALING_GRAD_ELEM_BYTES;
}

void gb_scaling_slice(const struct gb_scaling_plan *p, int i, uint64_t *first, uint64_t *count)
{
	*first = *count = 0;
	if (i < 0 || i >= p->n_slices)
		return;
	split_even(p->gemms, (uint64_t)p->n_slices, (uint64_t)i, first, count);
}

/* ---- workers ---- */

static bool seen_before(const int *dev, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (dev[j] == dev[i])
			return true;
	return false;
}

size_t gb_scaling_distinct(const int *dev, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += !seen_before(dev, i);
	return d;
}

bool gb_scaling_has_repeat(const int *dev, size_t n)
{
	return gb_scaling_distinct(dev, n) < n;
}

void gb_scaling_devices_str(const int *dev, size_t n, char *buf, size_t len)
{
	size_t pos = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && pos < len; i++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%d", i ? "," : "", dev[i]);
}

/* cudaDeviceCanAccessPeer a -> b as recorded, -1 if not */
static int p2p_of(const struct gb_run *run, int a, int b)
{
	const struct gb_link *l = gb_run_find_link(run, a, b);

	return l ? l->p2p_access : -1;
}

int gb_scaling_p2p_among(const struct gb_run *run, const int *dev, size_t n)
{
	bool unknown = false;

	if (!run || gb_scaling_distinct(dev, n) < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			int v;

			if (dev[i] == dev[j])
				continue;
			v = p2p_of(run, dev[i], dev[j]);
			if (v == 0)
				return 0;
			unknown |= v < 0;
		}
	}
	return unknown ? -1 : 1;
}

int gb_scaling_nvlinks_among(const struct gb_run *run, const int *dev, size_t n)
{
	int least = -1;

	if (!run || !n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int links = -1;

		for (size_t d = 0; d < run->n_devices; d++)
			if (run->devices[d].index == dev[i])
				links = run->devices[d].nvlink_up;
		if (links < 0)
			return -1;
		least = least < 0 || links < least ? links : least;
	}
	return least;
}

/* ---- the path and the link, in words ---- */

/* NCCL's PCIe path levels, in its order (graph/topo.h); only the order matters here. */
enum path_level { LV_LOC = 0, LV_NVL, LV_NVB, LV_C2C, LV_PIX, LV_PXB, LV_P2C, LV_PXN, LV_PHB,
		  LV_SYS, LV_UNKNOWN };

static const char *const level_names[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
					   "P2C", "PXN", "PHB", "SYS" };

static const char *env_of(const struct gb_run *run, const char *key)
{
	for (size_t i = 0; i < run->n_env; i++)
		if (run->env[i].key && !strcmp(run->env[i].key, key))
			return run->env[i].value;
	return NULL;
}

/* NCCL reads these with strtol and acts on exactly 1 (graph/paths.cc ncclGetLevel, shm.cc). */
static bool env_is_one(const struct gb_run *run, const char *key)
{
	const char *v = env_of(run, key);

	return v && *v && strtol(v, NULL, 0) == 1;
}

/* NCCL_P2P_DISABLE=1 or NCCL_P2P_LEVEL (a name, or the old numbers 0-5); LV_UNKNOWN if unset. */
static int user_p2p_level(const struct gb_run *run, const char **key)
{
	static const int old_levels[] = { LV_LOC, LV_PIX, LV_PXB, LV_PHB, LV_SYS, LV_SYS };
	const char *v;

	*key = "NCCL_P2P_DISABLE";
	if (env_is_one(run, *key))
		return LV_LOC;
	*key = "NCCL_P2P_LEVEL";
	v = env_of(run, *key);
	if (!v || !*v)
		return LV_UNKNOWN;
	for (int i = 0; i <= LV_SYS; i++)
		if (!strcmp(v, level_names[i]))
			return i;
	if (*v >= '0' && *v <= '9') {
		long old = strtol(v, NULL, 0);

		return old_levels[old > 5 ? 5 : old];
	}
	return LV_UNKNOWN;
}

/*
 * The NCCL path level of a recorded link type: the nearest and the farthest
 * it may be (NVML's "single" and "multiple" PCIe switches are both
 * "pcie_switch" here, PIX or PXB). false when the type says nothing.
 */
static bool type_levels(const char *type, int *near, int *far)
{
	static const struct {
		const char *type;
		int near, far;
	} map[] = {
		{ "nvlink", LV_NVL, LV_NVL },	       { "same_board", LV_PIX, LV_PIX },
		{ "pcie_switch", LV_PIX, LV_PXB },     { "pcie_host_bridge", LV_PHB, LV_PHB },
		{ "cross_socket", LV_SYS, LV_SYS },
	};

	for (size_t i = 0; type && i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(type, map[i].type)) {
			*near = map[i].near;
			*far = map[i].far;
			return true;
		}
	}
	return false;
}

/*
 * NCCL's default P2P level as a range [*lo, *hi] (graph/paths.cc
 * ncclTopoCheckP2p, NCCL 2.28): PXB, so not through a CPU host bridge,
 * except SYS between two GPUs on an AMD x86 CPU. Older NCCL used SYS except
 * on Intel and ARM CPUs (PXB), so where the CPU or the release leaves it
 * open the range is PXB..SYS.
 */
static void default_p2p_level(const struct gb_run *run, size_t gpus, int *lo, int *hi)
{
	const char *cpu = run->host.cpu;

	*lo = LV_PXB;
	*hi = LV_SYS;
	if (cpu && strstr(cpu, "AMD") && gpus <= 2)
		*lo = LV_SYS;
	else if (cpu && !strstr(cpu, "AMD"))
		*hi = LV_PXB;
}

enum pair_path { PP_UNKNOWN = 0, PP_P2P, PP_HOST };

/* One pair a -> b: P2P, host memory (cause written), or unknown. */
static enum pair_path pair_path(const struct gb_run *run, int a, int b, size_t gpus, char *cause,
				size_t len)
{
	const struct gb_link *l = gb_run_find_link(run, a, b);
	const char *key = NULL;
	int user = user_p2p_level(run, &key), lo, hi, near = LV_UNKNOWN, far = LV_UNKNOWN;
	bool typed = l && type_levels(l->type, &near, &far);

	if (l && l->p2p_access == 0) {
		snprintf(cause, len, "cudaDeviceCanAccessPeer says no between GPU %d and GPU %d",
			 a, b);
		return PP_HOST;
	}
	if (user == LV_LOC) {
		snprintf(cause, len, "%s=%s", key, env_of(run, key));
		return PP_HOST;
	}
	if (!l || l->p2p_access < 0 || !typed)
		return PP_UNKNOWN;
	if (user != LV_UNKNOWN)
		lo = hi = user;
	else
		default_p2p_level(run, gpus, &lo, &hi);
	if (near > hi) {
		if (user != LV_UNKNOWN)
			snprintf(cause, len, "%s=%s keeps NCCL off P2P between GPU %d and GPU %d",
				 key, env_of(run, key), a, b);
		else
			snprintf(cause, len,
				 "NCCL does not use P2P %s by default (NCCL_P2P_LEVEL=SYS allows "
				 "it)",
				 near == LV_SYS ? "across CPU sockets"
						: "through a CPU host bridge");
		return PP_HOST;
	}
	return far <= lo ? PP_P2P : PP_UNKNOWN;
}

const char *gb_scaling_transport(const struct gb_run *run, const int *dev, size_t n, char *cause,
				 size_t len)
{
	size_t gpus = gb_scaling_distinct(dev, n);
	bool unknown = false;

	if (len)
		cause[0] = '\0';
	if (!run || gpus < 2)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			enum pair_path pp;

			if (dev[i] == dev[j])
				continue;
			pp = pair_path(run, dev[i], dev[j], gpus, cause, len);
			if (pp == PP_HOST) {
				if (!env_is_one(run, "NCCL_SHM_DISABLE"))
					return "SHM";
				if (len && strlen(cause) + 1 < len)
					snprintf(cause + strlen(cause), len - strlen(cause),
						 "%sNCCL_SHM_DISABLE=1", cause[0] ? "; " : "");
				return "NET";
			}
			unknown |= pp == PP_UNKNOWN;
		}
	}
	return unknown ? NULL : "P2P";
}

/* The smallest maximum PCIe generation (or width) among dev[0..n); -1 if any is unknown. */
static int least_pcie(const struct gb_run *run, const int *dev, size_t n, bool width)
{
	int least = -1;

	for (size_t i = 0; i < n; i++) {
		const struct gb_device_info *d = gb_run_find_device(run, dev[i]);
		int v = !d ? -1 : width ? d->pcie_max_width : d->pcie_max_gen;

		if (v <= 0)
			return -1;
		least = least < 0 || v < least ? v : least;
	}
	return least;
}

static int nvlink_gen_among(const struct gb_run *run, const int *dev, size_t n)
{
	int gen = -1;

	for (size_t i = 0; i < n; i++) {
		const struct gb_device_info *d = gb_run_find_device(run, dev[i]);
		int g = -1;

		if (d)
			g = d->nvlink_gen > 0 ? d->nvlink_gen
					      : gb_nvlink_gen_for_cc(d->cc_major, d->cc_minor);
		if (g <= 0)
			return -1;
		gen = gen < 0 || g < gen ? g : gen;
	}
	return gen;
}

const char *gb_scaling_link_label(const struct gb_run *run, const int *dev, size_t n,
				  bool host_path, char *buf, size_t len)
{
	bool all_nvlink = true, any_pcie = false, sockets = false;
	int gen, width, links;
	size_t pos;

	if (!len)
		return NULL;
	buf[0] = '\0';
	if (!run || gb_scaling_distinct(dev, n) < 2)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			const struct gb_link *l;
			int near = LV_UNKNOWN, far = LV_UNKNOWN;

			if (dev[i] == dev[j])
				continue;
			l = gb_run_find_link(run, dev[i], dev[j]);
			if (!l || !type_levels(l->type, &near, &far)) {
				all_nvlink = false;
				continue;
			}
			all_nvlink &= near == LV_NVL;
			any_pcie |= near != LV_NVL;
			sockets |= near == LV_SYS;
		}
	}
	if (all_nvlink) {
		gen = nvlink_gen_among(run, dev, n);
		links = gb_scaling_nvlinks_among(run, dev, n);
		pos = (size_t)snprintf(buf, len, "NVLink");
		if (gen > 0 && pos < len)
			pos += (size_t)snprintf(buf + pos, len - pos, "%d", gen);
		if (links > 0 && pos < len)
			snprintf(buf + pos, len - pos, " × %d", links);
		return buf;
	}
	if (!any_pcie && gb_scaling_nvlinks_among(run, dev, n) != 0)
		return NULL; /* no topology, and NVLink not ruled out */
	gen = least_pcie(run, dev, n, false);
	width = least_pcie(run, dev, n, true);
	pos = (size_t)snprintf(buf, len, "PCIe");
	if (gen > 0 && pos < len)
		pos += (size_t)snprintf(buf + pos, len - pos, " Gen%d", gen);
	if (width > 0 && pos < len)
		pos += (size_t)snprintf(buf + pos, len - pos, " x%d", width);
	if (sockets && pos < len)
		pos += (size_t)snprintf(buf + pos, len - pos, " across CPU sockets");
	if (host_path && pos < len)
		snprintf(buf + pos, len - pos, " without P2P");
	return buf;
}

int gb_scaling_nominal_link(const struct gb_link_model *m, int nvlinks, struct gb_ar_link *out,
			    char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	if (!m) {
		snprintf(why, len, "internal: no link model");
		return -1;
	}
	if (!gb_link_nominal(m, nvlinks, out))
		return 0;
	if (m->nvlink_gen > 0 && nvlinks == 0)
		snprintf(why, len,
			 "cannot price --link %s: these GPUs have no NVLink up (give a PCIe link, "
			 "e.g. --link pcie4, or leave out --link to measure the all-reduce)",
			 m->name);
	else if (m->nvlink_gen > 0)
		snprintf(why, len,
			 "cannot price --link %s: the NVLink count of these GPUs is unknown",
			 m->name);
	else
		snprintf(why, len, "cannot price --link %s", m->name);
	return -1;
}

bool gb_scaling_baseline_copies(const int *dev, size_t n)
{
	return n >= 2 && dev[0] == dev[1];
}

/* ---- measured numbers ---- */

void gb_scaling_step_max(const double *per_worker, size_t n_workers, size_t stride, size_t count,
			 double *out)
{
	for (size_t s = 0; s < count; s++) {
		double worst = per_worker[s];

		for (size_t w = 1; w < n_workers; w++)
			worst = fmax(worst, per_worker[w * stride + s]);
		out[s] = worst;
	}
}

static bool finite_pos(double v)
{
	return isfinite(v) && v > 0;
}

int gb_scaling_speedups(int n, double t1_s, double work_flop, const double *step_s, size_t count,
			double *speedup, double *efficiency, double *tflops)
{
	if (n < 1 || !finite_pos(t1_s) || !finite_pos(work_flop))
		return -1;
	for (size_t s = 0; s < count; s++)
		if (!finite_pos(step_s[s]))
			return -1;
	for (size_t s = 0; s < count; s++) {
		/* weak scaling: N workers finish N steps' work in one step time */
		double sp = n * t1_s / step_s[s];

		if (speedup)
			speedup[s] = sp;
		if (efficiency)
			efficiency[s] = sp / n;
		if (tflops)
			tflops[s] = n * work_flop / step_s[s] / 1e12;
	}
	return 0;
}

/* ---- pricing the all-reduce ---- */

size_t gb_scaling_sweep_sizes(uint64_t bucket_max_bytes, uint64_t *out, size_t max)
{
	uint64_t hi = bucket_max_bytes < (1u << 20) ? (1u << 20) : bucket_max_bytes;
	size_t n = 0;

	hi = div_ceil(hi, GB_SCALING_GRAD_ELEM_BYTES) * GB_SCALING_GRAD_ELEM_BYTES;
	for (uint64_t s = GB_SCALING_SWEEP_MIN_BYTES; s < hi && n + 1 < max; s *= 4)
		out[n++] = s;
	if (n < max)
		out[n++] = hi;
	return n;
}

int gb_scaling_link_from_sweep(const double *bytes, const double *seconds, size_t n, int nranks,
			       struct gb_alpha_beta *fit, struct gb_ar_link *link)
{
	struct gb_alpha_beta f;

	memset(link, 0, sizeof(*link));
	if (fit)
		memset(fit, 0, sizeof(*fit));
	if (gb_fit_alpha_beta(&f, bytes, seconds, n))
		return -1;
	if (fit)
		*fit = f;
	return gb_ar_link_from_fit(&f, nranks, link);
}

/* ---- the model's inputs and the judgement ---- */

void gb_scaling_model_in(int n, double t1_s, const struct gb_scaling_plan *plan,
			 uint64_t bucket_cap, const struct gb_ar_link *link,
			 struct gb_scaling_in *in)
{
	gb_scaling_in_init(in);
	in->n_gpus = n;
	in->t_compute_s = t1_s;
	in->grad_bytes = (double)plan->grad_bytes;
	in->bucket_bytes = (double)bucket_cap;
	if (link)
		in->link = *link;
	/* delta prices NCCL beside compute; a compute-only step runs nothing beside it */
	if (!plan->grad_bytes)
		in->delta = 0;
}

void gb_scaling_spread_init(struct gb_scaling_spread *sp)
{
	sp->slow_dev = sp->fast_dev = sp->lag_dev = sp->lead_dev = -1;
	sp->slow_s = sp->fast_s = sp->lag_s = sp->lead_s = NAN;
}

/* The slowest and fastest finite positive entries of step_s. */
static void extremes(const int *dev, const double *step_s, size_t n, int *slow_dev,
		     double *slow_s, int *fast_dev, double *fast_s)
{
	*slow_dev = *fast_dev = -1;
	*slow_s = *fast_s = NAN;
	for (size_t i = 0; i < n; i++) {
		if (!finite_pos(step_s[i]))
			continue;
		if (*slow_dev < 0 || step_s[i] > *slow_s) {
			*slow_dev = dev[i];
			*slow_s = step_s[i];
		}
		if (*fast_dev < 0 || step_s[i] < *fast_s) {
			*fast_dev = dev[i];
			*fast_s = step_s[i];
		}
	}
}

void gb_scaling_spread_alone(struct gb_scaling_spread *sp, const int *dev, const double *step_s,
			     size_t n)
{
	extremes(dev, step_s, n, &sp->slow_dev, &sp->slow_s, &sp->fast_dev, &sp->fast_s);
}

void gb_scaling_spread_together(struct gb_scaling_spread *sp, const int *dev,
				const double *step_s, size_t n)
{
	extremes(dev, step_s, n, &sp->lag_dev, &sp->lag_s, &sp->lead_dev, &sp->lead_s);
}

bool gb_scaling_compute_straggler(const int *dev, const double *compute_s, size_t n, char *b,
				  size_t len)
{
	int slow_dev, fast_dev;
	double slow_s, fast_s;

	if (len)
		b[0] = '\0';
	extremes(dev, compute_s, n, &slow_dev, &slow_s, &fast_dev, &fast_s);
	if (slow_dev < 0 || slow_dev == fast_dev ||
	    !(slow_s > fast_s * (1 + GB_SCALING_STRAGGLER_TOL)))
		return false;
	snprintf(b, len,
		 "GPU %d computes slowest: %.1f ms of GEMMs per step against %.1f ms on GPU %d "
		 "(%.0f%% slower: clocks, power, heat), and every step waits for it",
		 slow_dev, slow_s * 1e3, fast_s * 1e3, fast_dev, (slow_s / fast_s - 1) * 100);
	return true;
}

/* Why a compute-only speedup is low, from how fast each GPU is alone and together. */
static void compute_cause(const struct gb_scaling_spread *sp, char *b, size_t n)
{
	bool alone = sp && sp->slow_dev >= 0 && sp->fast_dev >= 0 && sp->slow_dev != sp->fast_dev;
	size_t pos;

	if (alone && sp->slow_s > sp->fast_s * (1 + GB_SCALING_STRAGGLER_TOL)) {
		snprintf(b, n,
			 "GPU %d is a straggler: alone it takes %.1f ms per step against %.1f ms "
			 "on GPU %d (%.0f%% slower: clocks, power, heat)",
			 sp->slow_dev, sp->slow_s * 1e3, sp->fast_s * 1e3, sp->fast_dev,
			 (sp->slow_s / sp->fast_s - 1) * 100);
		return;
	}
	if (!alone) {
		pos = (size_t)snprintf(b, n, "the GPUs do not communicate, so look at a straggler "
					     "GPU (clocks, power, heat) or the host (launch "
					     "contention between the worker threads)");
	} else {
		pos = (size_t)snprintf(b, n,
				       "alone, every GPU is within %.0f%% of the fastest (GPU %d "
				       "%.1f ms, GPU %d %.1f ms per step), so the loss comes from "
				       "running together: shared power or cooling, or host launch "
				       "contention between the worker threads",
				       GB_SCALING_STRAGGLER_TOL * 100, sp->slow_dev,
				       sp->slow_s * 1e3, sp->fast_dev, sp->fast_s * 1e3);
	}
	if (sp && sp->lag_dev >= 0 && sp->lead_dev >= 0 && sp->lag_dev != sp->lead_dev &&
	    pos < n)
		snprintf(b + pos, n - pos, "; together GPU %d was slowest (%.1f ms median, GPU %d "
					   "%.1f ms)",
			 sp->lag_dev, sp->lag_s * 1e3, sp->lead_dev, sp->lead_s * 1e3);
}

static void judge_compute(int n, double measured, const struct gb_scaling_spread *sp,
			  struct gb_scaling_judgement *j)
{
	double floor_x = GB_SCALING_COMPUTE_EFF_MIN * n;
	char cause[448];

	if (measured > n * (1 + GB_SCALING_PLACE_TOL)) {
		j->place = GB_PLACE_ABOVE;
		snprintf(j->message, sizeof(j->message),
			 "%.2f× measured, %.2f–%d× expected (compute only): above the "
			 "compute-bound ideal %d×, faster than the model allows: check the "
			 "measurement (the 1-GPU baseline, the same work per GPU, the timing)",
			 measured, floor_x, n, n);
	} else if (measured < floor_x) {
		j->place = GB_PLACE_BELOW;
		compute_cause(sp, cause, sizeof(cause));
		snprintf(j->message, sizeof(j->message),
			 "%.2f× measured, %.2f–%d× expected (compute only): below %.0f%% of the "
			 "compute-bound ideal %d×: %s",
			 measured, floor_x, n, GB_SCALING_COMPUTE_EFF_MIN * 100, n, cause);
	} else {
		j->place = GB_PLACE_INSIDE;
		snprintf(j->message, sizeof(j->message),
			 "%.2f× measured, %.2f–%d× expected (compute only): %.0f%% of the "
			 "compute-bound ideal %d×, independent compute scales as expected",
			 measured, floor_x, n, 100 * measured / n, n);
	}
}

void gb_scaling_judge(const struct gb_scaling_in *in, const struct gb_scaling_out *out,
		      double measured, const struct gb_scaling_facts *facts,
		      const struct gb_scaling_spread *spread, bool compute_only,
		      struct gb_scaling_judgement *j)
{
	memset(j, 0, sizeof(*j));
	if (!isfinite(measured) || !(measured > 0)) {
		j->place = GB_PLACE_INVALID;
		snprintf(j->message, sizeof(j->message), "no valid measured speedup to place");
	} else if (compute_only) {
		judge_compute(in->n_gpus, measured, spread, j);
	} else {
		j->place = gb_scaling_place(in, out, measured, facts, GB_SCALING_PLACE_TOL,
					    j->message, sizeof(j->message));
	}
	j->status = j->place == GB_PLACE_INSIDE ? GB_STATUS_PASSED : GB_STATUS_WARNING;
	j->severity = j->place == GB_PLACE_INSIDE ? GB_SEV_INFO : GB_SEV_WARNING;
}

void gb_scaling_judge_contention(int workers, int gpus, const char *devices, double measured,
				 bool with_copy, bool baseline_copy,
				 struct gb_scaling_judgement *j)
{
	const char *copy = "";

	if (with_copy && baseline_copy)
		copy = "; NCCL cannot put two ranks on one GPU, so the all-reduce is a "
		       "device-local copy of the same bytes, at N = 1 too";
	else if (with_copy)
		copy = "; NCCL cannot put two ranks on one GPU, so the all-reduce is a "
		       "device-local copy of the same bytes, which N = 1 (a one-rank NCCL "
		       "all-reduce) did not make: the contention includes that memory traffic";
	memset(j, 0, sizeof(*j));
	j->status = GB_STATUS_PASSED;
	j->severity = GB_SEV_INFO;
	j->place = GB_PLACE_INVALID; /* no model applies to workers sharing a GPU */
	snprintf(j->message, sizeof(j->message),
		 "contention, not scaling: %d workers share %d GPU%s (devices %s) and reach "
		 "%.2f× of one worker, against at most %d× for the GPUs they share%s",
		 workers, gpus, gpus == 1 ? "" : "s", devices, measured, gpus, copy);
}
