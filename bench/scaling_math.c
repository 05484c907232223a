/* SPDX-License-Identifier: MIT */
/*
 * scaling_math.c - options, step plan, GEMM sizing, speedup arithmetic,
 * all-reduce pricing and the judgement of `gpubench scaling` (CPU only, no
 * printing; see scaling_math.h). tests/test_scaling_math.c checks it.
 */
#include "scaling_math.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
	  "bucket cap: the all-reduce goes in ceil(grad/bucket) calls (default 25M, PyTorch DDP's)",
	  1024, 64 * GiB, NULL, 0 },
	{ GB_OPT_BOOL, 0, "overlap", P(overlap), NULL,
	  "start bucket i's all-reduce after compute slice i, as DDP overlaps backward (ddp)", 0, 0,
	  NULL, 0 },
	{ GB_OPT_ENUM, 0, "link", P(link), "NAME",
	  "price the all-reduce by this nominal link instead of measuring it (docs/scaling.md)", 0,
	  0, gb_link_model_names, 0 },
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
	p->grad_bytes = 256ULL << 20;
	p->bucket_bytes = 25ULL << 20;
	p->link = -1;
	p->workers.all = true;
}

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

int gb_scaling_validate(const void *params, char *err, size_t errlen)
{
	const struct gb_scaling_params *p = params;
	uint64_t k;

	if (p->step_ms > 0 && p->step_tflop > 0) {
		snprintf(err, errlen,
			 "--step-ms and --step-tflop both size the compute of a step; give one");
		return -1;
	}
	if (p->bucket_bytes < GB_SCALING_GRAD_ELEM_BYTES) {
		snprintf(err, errlen, "--bucket must hold one fp32 gradient (4 B)");
		return -1;
	}
	if (p->workload != GB_SCALING_WL_DDP)
		return 0;
	k = div_ceil(div_ceil(p->grad_bytes, GB_SCALING_GRAD_ELEM_BYTES) *
			     GB_SCALING_GRAD_ELEM_BYTES,
		     p->bucket_bytes);
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

static void judge_compute(int n, double measured, struct gb_scaling_judgement *j)
{
	double floor_x = GB_SCALING_COMPUTE_EFF_MIN * n;

	if (measured > n * (1 + GB_SCALING_PLACE_TOL)) {
		j->place = GB_PLACE_ABOVE;
		snprintf(j->message, sizeof(j->message),
			 "%.2f× is above the compute-bound ideal %d×, faster than the model "
			 "allows: check the measurement (the 1-GPU baseline, the same work per "
			 "GPU, the timing)",
			 measured, n);
	} else if (measured < floor_x) {
		j->place = GB_PLACE_BELOW;
		snprintf(j->message, sizeof(j->message),
			 "%.2f× is below %.0f%% of the compute-bound ideal %d×: the GPUs do not "
			 "communicate, so look at a straggler GPU (clocks, power, heat) or the "
			 "host (launch contention between the worker threads)",
			 measured, GB_SCALING_COMPUTE_EFF_MIN * 100, n);
	} else {
		j->place = GB_PLACE_INSIDE;
		snprintf(j->message, sizeof(j->message),
			 "%.2f× of the compute-bound ideal %d× (%.0f%% efficiency): independent "
			 "compute scales as expected",
			 measured, n, 100 * measured / n);
	}
}

void gb_scaling_judge(const struct gb_scaling_in *in, const struct gb_scaling_out *out,
		      double measured, const struct gb_scaling_facts *facts, bool compute_only,
		      struct gb_scaling_judgement *j)
{
	memset(j, 0, sizeof(*j));
	if (!isfinite(measured) || !(measured > 0)) {
		j->place = GB_PLACE_INVALID;
		snprintf(j->message, sizeof(j->message), "no valid measured speedup to place");
	} else if (compute_only) {
		judge_compute(in->n_gpus, measured, j);
	} else {
		j->place = gb_scaling_place(in, out, measured, facts, GB_SCALING_PLACE_TOL,
					    j->message, sizeof(j->message));
	}
	j->status = j->place == GB_PLACE_INSIDE ? GB_STATUS_PASSED : GB_STATUS_WARNING;
	j->severity = j->place == GB_PLACE_INSIDE ? GB_SEV_INFO : GB_SEV_WARNING;
}

void gb_scaling_judge_contention(int workers, int gpus, const char *devices, double measured,
				 bool with_copy, struct gb_scaling_judgement *j)
{
	memset(j, 0, sizeof(*j));
	j->status = GB_STATUS_PASSED;
	j->severity = GB_SEV_INFO;
	j->place = GB_PLACE_INVALID; /* no model applies to workers sharing a GPU */
	snprintf(j->message, sizeof(j->message),
		 "contention, not scaling: %d workers share %d GPU%s (devices %s) and reach "
		 "%.2f× of one worker, against at most %d× for the GPUs they share%s",
		 workers, gpus, gpus == 1 ? "" : "s", devices, measured, gpus,
		 with_copy ? "; NCCL cannot put two ranks on one GPU, so the all-reduce is a "
			     "device-local copy of the same bytes"
			   : "");
}
