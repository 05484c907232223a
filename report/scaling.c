/* SPDX-License-Identifier: MIT */
/*
 * scaling.c - the data-parallel scaling model: nominal link prices, the
 * no-overlap and perfect-overlap bounds, placing a measured speedup in that
 * range with an explanation, and the price arithmetic (CPU only, no printing).
 *
 * docs/scaling.md derives the formulas and gives every constant's source;
 * tests/report/test_scaling.c checks them against hand-computed cases.
 */
#include "report/scaling.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report/theory.h"

/* ---- nominal links ---- */

/* Same order as gb_link_model_names[]: the cmd/ enum option indexes both. */
static const struct gb_link_model link_models[] = {
	{ "pcie3", "PCIe Gen3 x16", 3, 0, true, false },
	{ "pcie4", "PCIe Gen4 x16", 4, 0, true, false },
	{ "pcie5", "PCIe Gen5 x16", 5, 0, true, false },
	{ "pcie6", "PCIe Gen6 x16", 6, 0, true, false },
	{ "pcie4-nop2p", "PCIe Gen4 x16 without P2P", 4, 0, false, true },
	{ "pcie5-nop2p", "PCIe Gen5 x16 without P2P", 5, 0, false, true },
	{ "nvlink2", "NVLink2", 0, 2, true, false },
	{ "nvlink3", "NVLink3", 0, 3, true, false },
	{ "nvlink4", "NVLink4", 0, 4, true, false },
	{ "nvlink5", "NVLink5", 0, 5, true, false },
};

#define N_LINK_MODELS (sizeof(link_models) / sizeof(link_models[0]))

const char *const gb_link_model_names[] = {
	"pcie3", "pcie4", "pcie5", "pcie6", "pcie4-nop2p", "pcie5-nop2p",
	"nvlink2", "nvlink3", "nvlink4", "nvlink5", NULL,
};

_Static_assert(sizeof(gb_link_model_names) / sizeof(gb_link_model_names[0]) ==
		       N_LINK_MODELS + 1,
	       "gb_link_model_names must list every link model, then NULL");

const struct gb_link_model *gb_link_models(size_t *n)
{
	if (n)
		*n = N_LINK_MODELS;
	return link_models;
}

const struct gb_link_model *gb_link_model_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < N_LINK_MODELS; i++)
		if (!strcmp(link_models[i].name, name))
			return &link_models[i];
	return NULL;
}

double gb_nvlink_nccl_link_bps(int gen)
{
	/* NCCL src/graph/topo.h: SM60 18, SM70 20, SM80 20, SM90 20.6, SM100 40.1 GB/s. */
	static const double link_gbps[] = { 0, 18, 20, 20, 20.6, 40.1 };

	if (gen < 1 || gen >= (int)(sizeof(link_gbps) / sizeof(link_gbps[0])))
		return 0;
	return link_gbps[gen] * 1e9;
}

static int pcie_nominal(const struct gb_link_model *m, struct gb_ar_link *out)
{
	double bps = gb_pcie_bandwidth_bps(m->pcie_gen, 16) * GB_PCIE_P2P_EFFICIENCY;

	if (!m->p2p)
		bps *= GB_PCIE_HOST_STAGED_FACTOR;
	/* NCCL prices the SHM path with PCI latencies too (tuning.cc: non-NVLink is PCI). */
	out->alpha_s = GB_NCCL_HOP_LATENCY_PCIE_S;
	out->busbw_bps = bps;
	return bps > 0 ? 0 : -1;
}

static int nvlink_nominal(const struct gb_link_model *m, int links, struct gb_ar_link *out)
{
	if (links < 1)
		return -1;
	out->alpha_s = GB_NCCL_HOP_LATENCY_NVLINK_S;
	out->busbw_bps = links * gb_nvlink_nccl_link_bps(m->nvlink_gen);
	return out->busbw_bps > 0 ? 0 : -1;
}

int gb_link_nominal(const struct gb_link_model *m, int nvlink_links, struct gb_ar_link *out)
{
	if (!m || !out)
		return -1;
	memset(out, 0, sizeof(*out));
	if (m->nvlink_gen > 0)
		return nvlink_nominal(m, nvlink_links, out);
	return pcie_nominal(m, out);
}

int gb_ar_link_from_fit(const struct gb_alpha_beta *fit, int nranks, struct gb_ar_link *out)
{
	double steps;

	if (!fit || !out || nranks < 2 || !isfinite(fit->beta_bps) || !(fit->beta_bps > 0) ||
	    !isfinite(fit->alpha_s) || fit->alpha_s < 0)
		return -1;
	/* The fitted alpha is per call; a ring all-reduce call takes 2(N-1) steps. */
	steps = 2.0 * (nranks - 1);
	out->alpha_s = fit->alpha_s / steps;
	out->busbw_bps = fit->beta_bps * steps / nranks;
	return 0;
}

/* ---- the model ---- */

void gb_scaling_in_init(struct gb_scaling_in *in)
{
	memset(in, 0, sizeof(*in));
	in->n_gpus = 1;
	in->bucket_bytes = GB_DDP_BUCKET_BYTES;
	in->delta = GB_SCALING_DELTA_DEFAULT;
}

static bool finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

static bool scaling_in_valid(const struct gb_scaling_in *in)
{
	bool comm = in->n_gpus > 1 && in->grad_bytes > 0;

	if (in->n_gpus < 1 || !isfinite(in->t_compute_s) || !(in->t_compute_s > 0))
		return false;
	if (!finite_nonneg(in->grad_bytes) || !finite_nonneg(in->delta) ||
	    !finite_nonneg(in->link.alpha_s))
		return false;
	if (!isfinite(in->bucket_bytes) || !(in->bucket_bytes > 0))
		return false;
	/* Bandwidth matters only when something crosses the link. */
	return !comm || (isfinite(in->link.busbw_bps) && in->link.busbw_bps > 0);
}

/* Ring all-reduce of `bytes` split in k buckets: 2(N-1) alpha k + 2(N-1)/N bytes / B_bus. */
static double allreduce_s(const struct gb_scaling_in *in, double bytes, int k)
{
	int n = in->n_gpus;

	if (n < 2 || k < 1 || !(bytes > 0))
		return 0;
	return 2.0 * (n - 1) * in->link.alpha_s * k +
	       2.0 * (n - 1) / n * bytes / in->link.busbw_bps;
}

/* N = 1 runs no NCCL, so there is no interference to pay for. */
static double effective_delta(const struct gb_scaling_in *in)
{
	return in->n_gpus > 1 ? in->delta : 0;
}

/* N / (1 + delta + exposed / T_c) */
static double speedup_for(const struct gb_scaling_in *in, double delta, double exposed_s)
{
	return in->n_gpus / (1 + delta + exposed_s / in->t_compute_s);
}

static void fill_buckets(const struct gb_scaling_in *in, struct gb_scaling_out *out)
{
	double k;

	if (!(in->grad_bytes > 0))
		return;
	k = ceil(in->grad_bytes / in->bucket_bytes);
	/* A bucket count beyond int range is not a real configuration; cap it. */
	out->n_buckets = k > 1e9 ? 1000000000 : (int)k;
	out->bucket_bytes = in->grad_bytes / out->n_buckets;
}

int gb_scaling_predict(const struct gb_scaling_in *in, struct gb_scaling_out *out)
{
	double t_ar, t_last;

	if (!out)
		return -1;
	memset(out, 0, sizeof(*out));
	if (!in || !scaling_in_valid(in))
		return -1;
	fill_buckets(in, out);
	t_ar = allreduce_s(in, in->grad_bytes, out->n_buckets);
	t_last = allreduce_s(in, out->bucket_bytes, 1);
	out->t_allreduce_s = t_ar;
	out->t_last_bucket_s = t_last;
	out->t_exposed_no_overlap_s = t_ar;
	/* The last bucket starts only when backward ends, and compute hides at most T_c. */
	out->t_exposed_perfect_s = fmax(t_last, t_ar - in->t_compute_s);
	out->speedup_ideal = in->n_gpus;
	/* delta is a loss: it lowers the lower bound only, never what is possible */
	out->speedup_no_overlap = speedup_for(in, effective_delta(in), out->t_exposed_no_overlap_s);
	out->speedup_no_overlap_max = speedup_for(in, 0, out->t_exposed_no_overlap_s);
	out->speedup_perfect = speedup_for(in, 0, out->t_exposed_perfect_s);
	out->efficiency_no_overlap = out->speedup_no_overlap / in->n_gpus;
	out->efficiency_perfect = out->speedup_perfect / in->n_gpus;
	return 0;
}

double gb_scaling_speedup_at_overlap(const struct gb_scaling_in *in,
				     const struct gb_scaling_out *out, double f)
{
	if (!in || !out || !isfinite(f) || f < 0 || f > 1)
		return NAN;
	return speedup_for(in, effective_delta(in),
			   fmax((1 - f) * out->t_allreduce_s, out->t_exposed_perfect_s));
}

double gb_scaling_implied_overlap(const struct gb_scaling_in *in,
				  const struct gb_scaling_out *out, double measured)
{
	double exposed;

	if (!in || !out || !isfinite(measured) || !(measured > 0) ||
	    !(out->t_allreduce_s > out->t_exposed_perfect_s))
		return NAN;
	/* Invert speedup = N / (1 + exposed / T_c): delta = 0 gives the least overlap. */
	exposed = in->t_compute_s * (in->n_gpus / measured - 1);
	return fmin(1, fmax(0, 1 - exposed / out->t_allreduce_s));
}

/* ---- placing a measurement ---- */

const char *gb_scaling_place_name(enum gb_scaling_place p)
{
	switch (p) {
	case GB_PLACE_BELOW:
		return "below";
	case GB_PLACE_INSIDE:
		return "inside";
	case GB_PLACE_ABOVE:
		return "above";
	case GB_PLACE_INVALID:
		break;
	}
	return "invalid";
}

void gb_scaling_facts_init(struct gb_scaling_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->overlap = true;
	f->p2p_access = -1;
}

void gb_scaling_expected(const struct gb_scaling_out *out, const struct gb_scaling_facts *facts,
			 double *lo, double *hi)
{
	*lo = out->speedup_no_overlap;
	/* an all-reduce after compute hides nothing: at best delta is 0 */
	*hi = facts && !facts->overlap ? out->speedup_no_overlap_max : out->speedup_perfect;
}

static bool goes_through_host(const struct gb_scaling_facts *f)
{
	return f->p2p_access == 0 ||
	       (f->transport &&
		(!strcasecmp(f->transport, "SHM") || !strcasecmp(f->transport, "NET")));
}

/* Why a speedup falls below even the no-overlap bound, from what is known. */
static void below_cause(const struct gb_scaling_facts *f, char *b, size_t n)
{
	if (goes_through_host(f) && !f->link_host_staged) {
		snprintf(b, n,
			 "P2P is off%s%s, the all-reduce goes through host memory (the model "
			 "assumed a direct path)",
			 f->transport_cause ? ": " : "",
			 f->transport_cause ? f->transport_cause : "");
		return;
	}
	if (goes_through_host(f) && f->transport_cause && f->link_measured) {
		snprintf(b, n,
			 "the all-reduce goes through host memory (%s), priced so from nccl on "
			 "these GPUs, yet the step is slower: a straggler GPU, contention for PCIe "
			 "or host memory, or overhead above the assumed delta",
			 f->transport_cause);
		return;
	}
	if (goes_through_host(f)) {
		snprintf(b, n, "the all-reduce goes through host memory, as modelled, yet is "
			       "slower: a straggler GPU, contention, or a host path slower than "
			       "assumed");
		return;
	}
	if (f->link_measured) {
		snprintf(b, n, "the all-reduce was priced from nccl on these GPUs, so look "
			       "elsewhere: a straggler GPU (clocks, power, heat), contention for "
			       "PCIe or host memory, or overhead above the assumed delta");
		return;
	}
	snprintf(b, n, "P2P may be off (all-reduce through host memory), a straggler, or "
		       "contention; measure the link with 'gpubench nccl'");
}

/* "1.86× measured, 1.81–1.92× expected without overlap over LINK (busbw ...)" */
static int statement(const struct gb_scaling_in *in, const struct gb_scaling_facts *f,
		     double measured, double lo, double hi, char *b, size_t n)
{
	char price[96] = "";

	if (in->n_gpus > 1 && in->grad_bytes > 0)
		snprintf(price, sizeof(price), " (%sbusbw %.3g GB/s%s)",
			 f->link_measured ? "" : "nominal ", in->link.busbw_bps / 1e9,
			 f->link_measured ? ", measured on these GPUs" : "");
	return snprintf(b, n, "%.2f× measured, %.2f–%.2f× expected%s%s%s%s", measured, lo, hi,
			f->overlap ? "" : " without overlap", f->link ? " over " : "",
			f->link ? f->link : "", price);
}

static void verdict_inside(const struct gb_scaling_in *in, const struct gb_scaling_out *out,
			   const struct gb_scaling_facts *f, double measured, char *b, size_t n)
{
	double hidden;

	if (!f->overlap) {
		snprintf(b, n, "as expected for an all-reduce that starts after compute");
		return;
	}
	hidden = gb_scaling_implied_overlap(in, out, measured);
	if (isnan(hidden))
		snprintf(b, n, "inside the range");
	else if (hidden * 100 >= 0.5)
		snprintf(b, n, "inside the range: at least %.0f%% of the all-reduce hid behind "
			       "compute",
			 hidden * 100);
	else
		snprintf(b, n, "inside the range, at its no-overlap end: little or none of the "
			       "all-reduce hid behind compute");
}

enum gb_scaling_place gb_scaling_place(const struct gb_scaling_in *in,
				       const struct gb_scaling_out *out, double measured,
				       const struct gb_scaling_facts *facts, double tol, char *why,
				       size_t len)
{
	struct gb_scaling_facts none;
	enum gb_scaling_place where;
	char dummy[1], verdict[384];
	double lo, hi;
	int head;

	if (!why || len == 0) {
		why = dummy;
		len = sizeof(dummy);
	}
	why[0] = '\0';
	if (!facts) {
		gb_scaling_facts_init(&none);
		facts = &none;
	}
	if (!in || !out || !isfinite(measured) || !(measured > 0) || !isfinite(tol) || tol < 0) {
		snprintf(why, len, "no valid measured speedup to place");
		return GB_PLACE_INVALID;
	}
	gb_scaling_expected(out, facts, &lo, &hi);
	if (measured < lo * (1 - tol)) {
		char cause[320];

		where = GB_PLACE_BELOW;
		below_cause(facts, cause, sizeof(cause));
		snprintf(verdict, sizeof(verdict), "below the no-overlap bound: %s", cause);
	} else if (measured > hi * (1 + tol)) {
		where = GB_PLACE_ABOVE;
		snprintf(verdict, sizeof(verdict), "%s, faster than the model allows: check the "
			 "measurement (the 1-GPU baseline, the same per-GPU batch, the timing)%s",
			 facts->overlap ? "above the perfect-overlap bound"
					: "above what an all-reduce after compute allows",
			 facts->overlap ? "" : " and the price of the all-reduce");
	} else {
		where = GB_PLACE_INSIDE;
		verdict_inside(in, out, facts, measured, verdict, sizeof(verdict));
	}
	head = statement(in, facts, measured, lo, hi, why, len);
	if (head >= 0 && (size_t)head < len)
		snprintf(why + head, len - (size_t)head, ": %s", verdict);
	return where;
}

/* ---- compute time and price ---- */

static bool finite_pos(double v)
{
	return isfinite(v) && v > 0;
}

double gb_step_time_from_work(double flop, double peak_flops, double efficiency)
{
	if (!finite_pos(flop) || !finite_pos(peak_flops) || !finite_pos(efficiency) ||
	    efficiency > 1)
		return NAN;
	return flop / (peak_flops * efficiency);
}

double gb_cost_per_tflops_hour(double usd_per_gpu_hour, double tflops_per_gpu)
{
	return gb_cost_per_tflops_hour_scaled(usd_per_gpu_hour, 1, tflops_per_gpu, 1);
}

double gb_cost_per_tflops_hour_scaled(double usd_per_gpu_hour, int n_gpus, double tflops_per_gpu,
				      double speedup)
{
	if (!finite_pos(usd_per_gpu_hour) || n_gpus < 1 || !finite_pos(tflops_per_gpu) ||
	    !finite_pos(speedup))
		return NAN;
	/* n GPUs bill n hours per hour and deliver speedup x one GPU's rate. */
	return n_gpus * usd_per_gpu_hour / (speedup * tflops_per_gpu);
}
