/* SPDX-License-Identifier: MIT */
/*
 * scaling.h - the data-parallel scaling model (CPU only): what N GPUs should
 * gain over one when every step ends with an all-reduce of the gradients.
 *
 * A step on one GPU takes T_c. On N GPUs each GPU still computes T_c (weak
 * scaling, fixed per-GPU batch) and then the gradients are all-reduced in
 * buckets (PyTorch DDP style). The ring all-reduce of G bytes in k buckets
 * over a link with per-step latency alpha and bus bandwidth B_bus costs
 *
 *     T_ar = 2(N-1)*alpha*k + 2(N-1)/N * G / B_bus
 *
 * and the speedup is N / (1 + delta + T_exposed / T_c), where delta is the
 * overhead of running NCCL beside compute and T_exposed is the part of T_ar
 * that does not hide behind compute: all of it with no overlap, only the last
 * bucket with perfect overlap. delta is a loss, so it lowers only the lower
 * bound: the range a measured speedup is placed in runs from no overlap with
 * delta (the least a sound system gets) to perfect overlap without it (the
 * most any system gets). A run that cannot overlap (the all-reduce starts
 * after compute) is expected between no overlap with and without delta.
 * docs/scaling.md derives the model and lists every constant with its source
 * (research notes: bandwidth_nccl.md sections 5 and 6).
 *
 * Units: seconds, bytes, bytes/s (decimal), FLOP/s; nothing here prints.
 */
#ifndef GPUBENCH_REPORT_SCALING_H
#define GPUBENCH_REPORT_SCALING_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/* PyTorch DDP bucket_cap_mb = 25, in MiB (torch/nn/parallel/distributed.py). */
#define GB_DDP_BUCKET_BYTES (25.0 * 1024 * 1024)
/*
 * delta: 2% default. 2-GPU runs on NVSwitch, where T_ar is negligible, still
 * lose 3-7% (DeepLearningExamples Transformer-XL, research 6.3); 2% is the
 * optimistic end, so the no-overlap bound stays a bound for clean systems.
 */
#define GB_SCALING_DELTA_DEFAULT 0.02
/* PCIe with P2P: NCCL bus bandwidth ~ per-direction link rate x 0.8 (research 6.1: 0.8-0.85). */
#define GB_PCIE_P2P_EFFICIENCY 0.8
/*
 * PCIe without P2P (host-staged, NCCL's SHM transport): PLACEHOLDER, half of
 * the P2P figure, because every byte crosses PCIe twice (GPU -> host memory
 * -> GPU). Gen4 gives 12.6 GB/s, next to the 12 GB/s placeholder of research
 * 6.2; no trustworthy public figure exists (research 5.3, 9). Measure it.
 */
#define GB_PCIE_HOST_STAGED_FACTOR 0.5
/* NCCL tuning.cc Ring/Simple hardware latency per hop (research 6.1). */
#define GB_NCCL_HOP_LATENCY_NVLINK_S 3.4e-6
#define GB_NCCL_HOP_LATENCY_PCIE_S 5.7e-6
/* Measured speedups within this fraction of a bound count as on it (timing noise). */
#define GB_SCALING_PLACE_TOL 0.01

/* How an all-reduce is priced: the alpha-beta (Hockney) parameters of one ring step. */
struct gb_ar_link {
	double alpha_s;   /* latency per ring step, seconds (>= 0) */
	double busbw_bps; /* bus bandwidth (nccl-tests convention: algbw x 2(N-1)/N), bytes/s */
};

/* A nominal interconnect, for `theory --link` and when nothing was measured. */
struct gb_link_model {
	const char *name;  /* "pcie4", "pcie4-nop2p", "nvlink4" */
	const char *label; /* "PCIe Gen4 x16", "PCIe Gen4 x16 without P2P", "NVLink4" */
	int pcie_gen;      /* 0 for NVLink */
	int nvlink_gen;    /* 0 for PCIe */
	bool p2p;          /* the GPUs reach each other's memory directly */
	bool placeholder;  /* the bandwidth is a placeholder, not a model: measure it */
};

/*
 * The link names, NULL-terminated, in the order of gb_link_models(): pcie3,
 * pcie4, pcie5, pcie6, pcie4-nop2p, pcie5-nop2p, nvlink2, nvlink3, nvlink4,
 * nvlink5. Usable as the choices of an enum option.
 */
extern const char *const gb_link_model_names[];
const struct gb_link_model *gb_link_models(size_t *n);
/* NULL if unknown (case-sensitive, like every option value) */
const struct gb_link_model *gb_link_model_by_name(const char *name);

/*
 * Effective per-link NVLink bandwidth in NCCL's topology model (topo.h
 * SM70/SM80_NVLINK_BW 20, SM90 20.6, SM100 40.1 GB/s), bytes/s; 0 if unknown.
 */
double gb_nvlink_nccl_link_bps(int gen);

/*
 * Nominal all-reduce price of a link: PCIe x16 per direction x 0.8 (x 0.5
 * again without P2P); NVLink nvlink_links x the NCCL per-link figure. alpha is
 * NCCL's per-hop latency. Returns 0, or -1 for NVLink with nvlink_links < 1.
 */
int gb_link_nominal(const struct gb_link_model *m, int nvlink_links, struct gb_ar_link *out);

/*
 * Convert a fit t = alpha + S/beta of all-reduce time against message bytes S
 * (algbw bytes) on nranks GPUs into per-step terms: alpha / (2(N-1)) and
 * busbw = beta x 2(N-1)/N. Returns -1 for nranks < 2 or a fit without a
 * finite positive beta.
 */
int gb_ar_link_from_fit(const struct gb_alpha_beta *fit, int nranks, struct gb_ar_link *out);

/* The model's inputs. gb_scaling_in_init() sets the defaults. */
struct gb_scaling_in {
	int n_gpus;          /* >= 1 */
	double t_compute_s;  /* one GPU's step (forward, backward, optimizer), > 0 */
	double grad_bytes;   /* gradient bytes all-reduced per step, >= 0 */
	struct gb_ar_link link;
	double bucket_bytes; /* bucket cap, > 0; default GB_DDP_BUCKET_BYTES */
	double delta;        /* overhead fraction, >= 0; default GB_SCALING_DELTA_DEFAULT */
};
void gb_scaling_in_init(struct gb_scaling_in *in);

struct gb_scaling_out {
	int n_buckets;              /* k = ceil(G / bucket cap); 0 when G = 0 */
	double bucket_bytes;        /* G / k, the size of each (and so the last) bucket */
	double t_allreduce_s;       /* T_ar of all k buckets */
	double t_last_bucket_s;     /* T_ar of the last bucket alone */
	double t_exposed_no_overlap_s;
	double t_exposed_perfect_s; /* max(last bucket, T_ar - T_c): compute hides at most T_c */
	double speedup_ideal;       /* N */
	double speedup_no_overlap;  /* lower bound: no overlap, delta paid */
	double speedup_no_overlap_max; /* no overlap, delta = 0: the most without overlap */
	double speedup_perfect;     /* upper bound: perfect overlap, delta = 0 */
	double efficiency_no_overlap; /* speedup / N */
	double efficiency_perfect;
};

/*
 * Predict. delta applies only with N > 1 (one GPU runs no NCCL), so N = 1
 * gives exactly 1x, and only to the lower bound (a loss cannot raise what is
 * possible): speedup_no_overlap <= speedup_no_overlap_max <= speedup_perfect.
 * Returns 0, or -1 for inputs out of range (then *out is zeroed): N < 1,
 * T_c <= 0, G < 0, alpha < 0, delta < 0, a bucket cap <= 0, busbw <= 0 when
 * there is something to all-reduce, or anything not finite.
 */
int gb_scaling_predict(const struct gb_scaling_in *in, struct gb_scaling_out *out);

/*
 * The model's point estimate when a fraction f (0..1) of the all-reduce hides
 * behind compute and delta is paid: exposed = max((1-f) T_ar, the
 * perfect-overlap exposure). f = 0 is the no-overlap (lower) bound; f = 1 is
 * perfect overlap with delta, at or below the upper bound (which has no
 * delta). NaN for f outside 0..1.
 */
double gb_scaling_speedup_at_overlap(const struct gb_scaling_in *in,
				     const struct gb_scaling_out *out, double f);

/*
 * The least fraction of the all-reduce that must have hidden behind compute
 * for a measured speedup: the inverse of speedup = N / (1 + exposed / T_c)
 * with delta = 0 (any real overhead means more hid), clamped to 0..1. NaN
 * when nothing can hide (one bucket, no gradients, N = 1) or the measurement
 * is not finite and positive.
 */
double gb_scaling_implied_overlap(const struct gb_scaling_in *in,
				  const struct gb_scaling_out *out, double measured);

/* Where a measured speedup falls against the predicted range. */
enum gb_scaling_place {
	GB_PLACE_BELOW = 0, /* below the no-overlap bound */
	GB_PLACE_INSIDE,    /* within the expected range (tolerance included) */
	GB_PLACE_ABOVE,     /* above it: the perfect-overlap bound, or without overlap
			     * the no-overlap speedup at delta = 0 */
	GB_PLACE_INVALID    /* the measurement is not a finite positive number */
};
/* "below", "inside", "above", "invalid" */
const char *gb_scaling_place_name(enum gb_scaling_place p);

/* What is known about the run and the system, to name the link and explain a gap. */
struct gb_scaling_facts {
	bool overlap;          /* the run may overlap the all-reduce with compute (default);
				* false: it starts after compute, so the expected range is
				* the no-overlap speedup with and without delta */
	const char *link;      /* the link priced, named in the line ("PCIe Gen4 x16 without
				* P2P", "NVLink4 × 18"); NULL: not named */
	int p2p_access;        /* between the GPUs: 1 yes, 0 no, -1 unknown */
	const char *transport; /* NCCL transport ("P2P", "SHM", "NET"), NULL if unknown */
	const char *transport_cause; /* what decided it ("NCCL_P2P_DISABLE=1"), NULL */
	bool link_measured;    /* alpha and busbw come from an nccl measurement on these GPUs */
	bool link_host_staged; /* the model already priced the all-reduce through host memory */
};
/* overlap possible, link not named, p2p unknown, no transport, nominal link */
void gb_scaling_facts_init(struct gb_scaling_facts *f);

/* The expected range of a run: [lo, hi], by facts->overlap (NULL facts: overlap). */
void gb_scaling_expected(const struct gb_scaling_out *out, const struct gb_scaling_facts *facts,
			 double *lo, double *hi);

/*
 * Place measured against the expected range (gb_scaling_expected) with
 * tolerance tol (a fraction; GB_SCALING_PLACE_TOL) and write one line saying
 * what was measured, what was expected over which link, where it falls and
 * why into why (always NUL-terminated when len > 0), e.g. "1.62× measured,
 * 1.81–1.85× expected without overlap over PCIe Gen4 x16 (nominal busbw
 * 25.2 GB/s): below the no-overlap bound: P2P is off, the all-reduce goes
 * through host memory (the model assumed a direct path)". A run without
 * overlap is never told that part of its all-reduce hid.
 */
enum gb_scaling_place gb_scaling_place(const struct gb_scaling_in *in,
				       const struct gb_scaling_out *out, double measured,
				       const struct gb_scaling_facts *facts, double tol, char *why,
				       size_t len);

/* ---- compute time and price ---- */

/*
 * Step time from work: flop / (peak_flops x efficiency). NaN unless all three
 * are finite and positive and efficiency <= 1.
 */
double gb_step_time_from_work(double flop, double peak_flops, double efficiency);

/*
 * Dollars per TFLOPS-hour: usd_per_gpu_hour / tflops_per_gpu. With n GPUs at
 * a speedup s: n x usd_per_gpu_hour / (s x tflops_per_gpu), i.e. what one
 * delivered TFLOPS-hour costs once scaling losses are paid for. NaN unless
 * every input is finite and positive (n >= 1).
 */
double gb_cost_per_tflops_hour(double usd_per_gpu_hour, double tflops_per_gpu);
double gb_cost_per_tflops_hour_scaled(double usd_per_gpu_hour, int n_gpus, double tflops_per_gpu,
				      double speedup);

#endif
