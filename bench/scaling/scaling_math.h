/* SPDX-License-Identifier: MIT */
/*
 * scaling_math.h - the CPU-only arithmetic behind `gpubench scaling`: the
 * options and their checks, the step plan (gradient buckets and the compute
 * slices they overlap with), how many GEMMs make a step, which worker lists
 * repeat a GPU (contention), speedup and efficiency with their spread over
 * steps, turning an all-reduce sweep into the scaling model's link price,
 * and the judgement of a measured speedup against the model's range.
 * Everything here is testable without a GPU; bench/scaling/scaling.c only measures.
 *
 * The model itself (bounds, placement, explanations) is report/scaling.h;
 * docs/scaling.md derives it and describes the measurement.
 *
 * A synthetic data-parallel step on one worker (weak scaling: every worker
 * does the same work, the one-GPU step's work):
 *   compute  `gemms` square GEMMs of side n (2 n^3 FLOP each), cut into
 *            slices, one per gradient bucket with --overlap, else one;
 *   reduce   k buckets of fp32 gradients all-reduced (sum), bucket i after
 *            slice i with --overlap (as DDP starts a bucket once backward
 *            has produced it), else all k after the whole compute.
 * Units: seconds, bytes, FLOP; nothing here prints.
 */
#ifndef GPUBENCH_BENCH_SCALING_MATH_H
#define GPUBENCH_BENCH_SCALING_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/options.h"
#include "report/result.h"
#include "report/scaling.h"
#include "report/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ---- */

enum gb_scaling_workload { GB_SCALING_WL_GEMM = 0, GB_SCALING_WL_DDP, GB_SCALING_WL_COUNT };
/* "gemm", "ddp", NULL */
extern const char *const gb_scaling_workload_names[];

/* --step-ms when neither it nor --step-tflop is given */
#define GB_SCALING_DEFAULT_STEP_MS 100.0
/* GEMM side when --gemm-size is not given: bf16 and the fp32 fallback (cc < 8.0) */
#define GB_SCALING_GEMM_SIZE_BF16 8192
#define GB_SCALING_GEMM_SIZE_FP32 4096
/* Gradients are fp32, DDP's default: a bucket is a whole number of 4-byte elements. */
#define GB_SCALING_GRAD_ELEM_BYTES 4
/* Buckets per step at most: each is a collective call and two events per worker. */
#define GB_SCALING_MAX_BUCKETS 4096
/* GEMMs per step at most (a step of a million GEMMs is a configuration error). */
#define GB_SCALING_MAX_GEMMS 1000000

struct gb_scaling_params {
	int workload;                  /* enum gb_scaling_workload */
	int64_t steps;                 /* measured steps per worker count */
	int64_t warmup_steps;          /* untimed steps before them */
	double step_ms;                /* 0: not given */
	double step_tflop;             /* 0: not given */
	uint64_t grad_bytes;           /* 0: not given; read through gb_scaling_grad_bytes() */
	uint64_t bucket_bytes;         /* bucket cap; 0: not given (gb_scaling_bucket_bytes()) */
	bool overlap;
	int link;                      /* index into gb_link_model_names; -1: measure */
	int64_t gemm_size;             /* 0: by precision */
	struct gb_device_list workers; /* --devices with repeats allowed ("0,0") */
};

/* The option table (struct gb_scaling_params offsets), shared by the benchmark and the tests. */
extern const struct gb_opt gb_scaling_opts[];
/* Defaults: ddp, 20 steps after 3, 100 ms, 256 MiB in 25 MiB buckets, no overlap, measured link. */
void gb_scaling_set_defaults(void *params);
/*
 * Cross-field checks: 0, or -1 with one line in err: both --step-ms and
 * --step-tflop, more than GB_SCALING_MAX_BUCKETS buckets, a bucket cap below
 * one gradient element, an option of the ddp workload (--grad-bytes,
 * --bucket, --overlap, --link) with --workload gemm.
 */
int gb_scaling_validate(const void *params, char *err, size_t errlen);
/* Gradient bytes per step (--grad-bytes, else 256 MiB) and the bucket cap (--bucket, else 25 MiB). */
uint64_t gb_scaling_grad_bytes(const struct gb_scaling_params *p);
uint64_t gb_scaling_bucket_bytes(const struct gb_scaling_params *p);

/* The step in ms the run aims at when it is time-based: --step-ms, or the default. */
double gb_scaling_target_step_ms(const struct gb_scaling_params *p);
/* true when the step is sized by --step-tflop (work), false when by time */
bool gb_scaling_step_by_work(const struct gb_scaling_params *p);

/* ---- GEMM sizing ---- */

/* 2 n^3: one square GEMM's FLOP */
double gb_scaling_gemm_flop(uint64_t n);
/*
 * GEMMs of side n that make `flop` of work: round(flop / 2n^3), at least 1,
 * at most GB_SCALING_MAX_GEMMS; 0 for non-finite or non-positive input.
 */
uint64_t gb_scaling_gemms_for_work(double flop, uint64_t n);
/*
 * GEMMs that fill a step of step_s at t_gemm_s each (the one-GPU
 * calibration): round(step_s / t_gemm_s), same limits and 0 as above.
 */
uint64_t gb_scaling_gemms_for_time(double step_s, double t_gemm_s);

/* ---- the step plan ---- */

struct gb_scaling_plan {
	uint64_t grad_elems;   /* fp32 gradients all-reduced per step (0: compute only) */
	uint64_t grad_bytes;   /* grad_elems x 4: the G of the model */
	int n_buckets;         /* k = ceil(G / bucket cap), as the model counts them */
	uint64_t gemms;        /* GEMMs per step */
	int n_slices;          /* compute slices: k with overlap, else 1 */
	bool overlap;
};

/*
 * Plan a step: grad_bytes rounded up to whole fp32 elements (0: the gemm
 * workload, no buckets), k = ceil(G / bucket_cap), buckets as equal as whole
 * elements allow (the model's G / k each), gemms split into n_slices slices
 * as equal as whole GEMMs allow (with fewer GEMMs than buckets some slices
 * are empty: their buckets start with the previous one). Returns 0, or -1
 * for gemms == 0, bucket_cap < one element, or more than
 * GB_SCALING_MAX_BUCKETS buckets (then *out is zeroed).
 */
int gb_scaling_plan_make(uint64_t grad_bytes, uint64_t bucket_cap, uint64_t gemms, bool overlap,
			 struct gb_scaling_plan *out);
/* Bucket i (0..k-1): first element and element count. */
void gb_scaling_bucket(const struct gb_scaling_plan *p, int i, uint64_t *first, uint64_t *count);
/* Largest bucket, bytes (0 without gradients). */
uint64_t gb_scaling_bucket_max_bytes(const struct gb_scaling_plan *p);
/* Compute slice i (0..n_slices-1): first GEMM and GEMM count (may be 0). */
void gb_scaling_slice(const struct gb_scaling_plan *p, int i, uint64_t *first, uint64_t *count);

/* ---- workers ---- */

/* Distinct GPUs among dev[0..n). */
size_t gb_scaling_distinct(const int *dev, size_t n);
/* true when dev[0..n) names a GPU twice: NCCL cannot put two ranks on one GPU */
bool gb_scaling_has_repeat(const int *dev, size_t n);
/* "0,0,1" into buf */
void gb_scaling_devices_str(const int *dev, size_t n, char *buf, size_t len);

/*
 * P2P among dev[0..n) from run->links (cudaDeviceCanAccessPeer both ways):
 * 1 when every pair of distinct GPUs has it, 0 when any pair lacks it, -1
 * when unknown (no link recorded, or fewer than two distinct GPUs).
 */
int gb_scaling_p2p_among(const struct gb_run *run, const int *dev, size_t n);
/*
 * NVLink links per GPU among dev[0..n): the smallest nvlink_up of their
 * run->devices entries; -1 when any is unknown or missing.
 */
int gb_scaling_nvlinks_among(const struct gb_run *run, const int *dev, size_t n);

/*
 * The path NCCL's all-reduce most likely takes among dev[0..n), from what
 * the run recorded: its NCCL_* environment and the topology. NCCL uses its
 * P2P transport between two GPUs when CUDA allows peer access and the PCIe
 * path is within NCCL's P2P level (graph/paths.cc ncclTopoCheckP2p, NCCL
 * 2.28: PXB, so not through a CPU host bridge, but SYS for two GPUs on an AMD
 * CPU; older releases: SYS except PXB on Intel and ARM; NCCL_P2P_DISABLE=1
 * and NCCL_P2P_LEVEL override it), else SHM (host memory), else NET when
 * NCCL_SHM_DISABLE=1 too. Returns "P2P", "SHM", "NET", or NULL when unknown
 * (fewer than two distinct GPUs, a pair without a recorded answer, or a path
 * the CPU or the NCCL release leaves open); writes what decided it into
 * cause ("NCCL_P2P_DISABLE=1", "cudaDeviceCanAccessPeer says no between GPU
 * 0 and GPU 1", ...), empty when nothing stands out. A proxy: NCCL itself
 * reports its choice only in its log (NCCL_DEBUG=INFO, "via P2P/..." or
 * "via SHM/...").
 */
const char *gb_scaling_transport(const struct gb_run *run, const int *dev, size_t n, char *cause,
				 size_t len);

/*
 * The link among dev[0..n) in words, for the one-line statement: "NVLink4
 * × 18" when every pair is NVLink, "PCIe Gen4 x16" (the smallest maximum
 * generation and width of the GPUs) when any pair is PCIe or the GPUs have
 * no NVLink up, with " across CPU sockets" and " without P2P"
 * (host_path) as they apply. NULL (and buf empty) when nothing is known.
 */
const char *gb_scaling_link_label(const struct gb_run *run, const int *dev, size_t n,
				  bool host_path, char *buf, size_t len);

/*
 * The nominal price of link model m for GPUs with nvlinks links up each
 * (gb_scaling_nvlinks_among: -1 unknown). 0, or -1 with why: NVLink on GPUs
 * with none up says so ("these GPUs have no NVLink up"), an unknown count
 * says it is unknown.
 */
int gb_scaling_nominal_link(const struct gb_link_model *m, int nvlinks, struct gb_ar_link *out,
			    char *why, size_t len);

/*
 * true when the N = 2 phase repeats a GPU (dev[0] == dev[1]), so every phase
 * after N = 1 shows contention and replaces the all-reduce with a
 * device-local copy: N = 1 then copies too, so both sides of the comparison
 * move the same bytes.
 */
bool gb_scaling_baseline_copies(const int *dev, size_t n);

/* ---- measured numbers ---- */

/*
 * The step time of N workers in lockstep is the slowest worker's:
 * out[s] = max over w of per_worker[w * stride + s], for s < count.
 */
void gb_scaling_step_max(const double *per_worker, size_t n_workers, size_t stride, size_t count,
			 double *out);

/*
 * Per step s of N workers (step_s[s] seconds) against the one-worker step
 * t1_s (its median): speedup = N t1 / t, efficiency = speedup / N,
 * throughput = N x work_flop / t in TFLOP/s. Any output may be NULL.
 * Returns 0, or -1 for N < 1, t1 or work not finite and positive, or a step
 * time that is not (outputs untouched).
 */
int gb_scaling_speedups(int n, double t1_s, double work_flop, const double *step_s, size_t count,
			double *speedup, double *efficiency, double *tflops);

/* ---- pricing the all-reduce from a sweep ---- */

/* most sizes of the all-reduce sweep */
#define GB_SCALING_SWEEP_MAX 16
/* the sweep starts here: below, every all-reduce is latency */
#define GB_SCALING_SWEEP_MIN_BYTES (64u * 1024)

/*
 * All-reduce sizes to time: x4 from 64 KiB while below the largest bucket,
 * then the largest bucket itself (rounded up to whole elements; at least
 * 1 MiB, so two distinct sizes always fit a line). Returns the count.
 */
size_t gb_scaling_sweep_sizes(uint64_t bucket_max_bytes, uint64_t *out, size_t max);

/*
 * Fit t = alpha + S / beta (report/stats.h) to an all-reduce sweep on
 * nranks GPUs and convert it to the model's per-step price with
 * gb_ar_link_from_fit. Returns 0, or -1 when the fit or the conversion
 * fails (fewer than two sizes, no finite bandwidth, nranks < 2).
 */
int gb_scaling_link_from_sweep(const double *bytes, const double *seconds, size_t n, int nranks,
			       struct gb_alpha_beta *fit, struct gb_ar_link *link);

/* ---- the model's inputs and the judgement ---- */

/*
 * The model's inputs for N workers: T_c = t1_s (the measured one-worker
 * step), G and the bucket cap from the plan, the link. A compute-only step
 * (no gradients: the gemm workload) has delta 0: nothing runs beside the
 * compute, so its range is the ideal N itself.
 */
void gb_scaling_model_in(int n, double t1_s, const struct gb_scaling_plan *plan,
			 uint64_t bucket_cap, const struct gb_ar_link *link,
			 struct gb_scaling_in *in);

/*
 * Independent GPUs running independent GEMMs should scale perfectly; a
 * compute-only speedup counts as inside when it is at least this share of
 * N. 5 %: boost clocks of two boards of one model differ by a few percent
 * under load (power and temperature), which is not a scaling loss.
 */
#define GB_SCALING_COMPUTE_EFF_MIN 0.95

struct gb_scaling_judgement {
	enum gb_status status;     /* PASSED (inside) or WARNING (outside, or no valid number) */
	enum gb_severity severity; /* INFO when PASSED, else WARNING: a finding, not a fault */
	enum gb_scaling_place place;
	char message[640];
};

/* A GPU whose step alone is this much slower than the fastest GPU's is a straggler. */
#define GB_SCALING_STRAGGLER_TOL 0.02

/*
 * How fast each GPU is, to name a straggler: alone (the gemm workload times
 * every distinct GPU by itself) and together (each worker's median step in
 * a phase). Devices are -1 and times NaN where unknown.
 */
struct gb_scaling_spread {
	int slow_dev, fast_dev;     /* alone: slowest and fastest median step */
	double slow_s, fast_s;
	int lag_dev, lead_dev;      /* together: slowest and fastest worker */
	double lag_s, lead_s;
};
void gb_scaling_spread_init(struct gb_scaling_spread *sp);
/* Fill the alone part from median steps step_s[i] of GPU dev[i]; NaN entries are skipped. */
void gb_scaling_spread_alone(struct gb_scaling_spread *sp, const int *dev, const double *step_s,
			     size_t n);
/* Fill the together part from each worker's median step in one phase. */
void gb_scaling_spread_together(struct gb_scaling_spread *sp, const int *dev,
				const double *step_s, size_t n);

/*
 * The ddp workload's straggler: each worker's median compute part of a step
 * (its GEMMs, before the all-reduce it waits for) in compute_s[i], GPU
 * dev[i]. When the slowest is more than GB_SCALING_STRAGGLER_TOL slower than
 * the fastest, writes "GPU d computes slowest: ..." naming both into b and
 * returns true; else b is "" and false (also with fewer than two known).
 */
bool gb_scaling_compute_straggler(const int *dev, const double *compute_s, size_t n, char *b,
				  size_t len);

/*
 * Judge a measured speedup of N > 1 workers on distinct GPUs against the
 * expected range (gb_scaling_place with facts, GB_SCALING_PLACE_TOL; a run
 * without overlap, facts->overlap false, against the no-overlap speedup with
 * and without delta): inside -> PASSED with the explanation; below ->
 * WARNING with the explanation; above -> WARNING "faster than the model
 * allows: check the measurement". compute_only (the gemm workload) judges
 * against the ideal N instead: at least GB_SCALING_COMPUTE_EFF_MIN of it is
 * inside; below it names the straggler from spread (NULL: unknown), or says
 * that every GPU alone is as fast as the others.
 */
void gb_scaling_judge(const struct gb_scaling_in *in, const struct gb_scaling_out *out,
		      double measured, const struct gb_scaling_facts *facts,
		      const struct gb_scaling_spread *spread, bool compute_only,
		      struct gb_scaling_judgement *j);

/*
 * N workers that share fewer GPUs (--devices 0,0): no model applies, the
 * result shows contention. PASSED, INFO, with a message naming the workers,
 * the GPUs, the speedup against the ideal of `gpus` (the GPUs shared), and
 * when with_copy that the all-reduce was a device-local copy: at N = 1 too
 * when baseline_copy (a like-for-like comparison), else that N = 1 copied
 * nothing, so the contention includes the copies' memory traffic.
 */
void gb_scaling_judge_contention(int workers, int gpus, const char *devices, double measured,
				 bool with_copy, bool baseline_copy,
				 struct gb_scaling_judgement *j);

/* The reason of a run that had one GPU to measure. */
#define GB_SCALING_ONE_GPU_REASON "scaling needs two GPUs: measured the single-GPU path only"

#ifdef __cplusplus
}
#endif

#endif
