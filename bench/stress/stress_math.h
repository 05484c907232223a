/* SPDX-License-Identifier: MIT */
/*
 * stress_math.h - the CPU-only core of `gpubench stress` (in gpubench_core,
 * unit tested without a GPU): the precisions and their GEMM types, the data
 * generator shared with the kernels, the ABFT (Huang-Abraham) checksum
 * reference and its rounding-error bound, the exact-phase integer ranges,
 * memory sizing, load-profile schedules, the cross-GPU vote, the hardware
 * XID set, forensics formatting, the thresholds and the per-GPU verdict
 * rules as pure functions over a struct of observations.
 *
 * Layout (the same "TN" convention as bench/gemm/gemm_math.h): C = A^T B with
 *   A stored k x m column-major (lda = k): A(i, p) is element p + i k,
 *   B stored k x n column-major (ldb = k): B(p, j) is element p + j k,
 *   C stored m x n column-major (ldc = m): C(i, j) is element i + j m.
 * So "row i of the product" is column i of A's storage, and both operands of
 * one dot product are contiguous.
 *
 * The generator and the memtest patterns are header-inline in
 * kernels/stress_data_hd.h and compile for the device too (kernels/stress.cu
 * includes it), so the CPU reference and the GPU fill agree bit for bit.
 */
#ifndef GPUBENCH_BENCH_STRESS_MATH_H
#define GPUBENCH_BENCH_STRESS_MATH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/device/dtype_math.h"
#include "bench/device/nvml.h"
#include "kernels/stress_data_hd.h"
#include "report/theory.h"
#include "report/result.h"
#include "report/stress_thresholds.h"


#ifdef __cplusplus
extern "C" {
#endif

/* the data generator and the memtest patterns (host and device): kernels/stress_data_hd.h */

/* ======================================================================= */
/* precisions                                                              */

/* --precision, in option order */
enum gb_stress_prec {
	GB_SP_BF16 = 0,
	GB_SP_FP16,
	GB_SP_TF32,
	GB_SP_FP32,
	GB_SP_FP64,
	GB_SP_FP8,
	GB_SP_MIXED, /* FP64 and FP16 GEMMs in turn (DCGM targeted power's mix) */
	GB_SP_COUNT
};
/* "bf16", "fp16", "tf32", "fp32", "fp64", "fp8", "mixed", NULL */
extern const char *const gb_stress_prec_names[];

/* What one concrete GEMM flavour (never "mixed") runs with. */
struct gb_stress_gemm_type {
	enum gb_stress_prec prec;
	enum gb_dtype in;      /* A and B */
	enum gb_dtype out;     /* C: F32, or F64 for fp64 (so exact sums stay exact) */
	int sig_bits;          /* significand bits of the generated random inputs */
	double u_acc;          /* unit roundoff assumed for the accumulation (see .c) */
	int64_t int_max;       /* largest integer n with every |i| <= n exact in the input type */
	int acc_exact_bits;    /* integers below 2^this are exact in the accumulator */
	enum gb_precision peak_prec; /* theory.h precision for peaks */
};
/* 0, or -1 for MIXED or an unknown value */
int gb_stress_gemm_type(enum gb_stress_prec p, struct gb_stress_gemm_type *t);

/* The concrete precisions behind p (mixed: fp64 then fp16). Returns the count (1 or 2). */
size_t gb_stress_expand_prec(enum gb_stress_prec p, enum gb_stress_prec out[2]);

/* NULL when compute capability cc_major.cc_minor runs p; else a reason in buf */
const char *gb_stress_unsupported(enum gb_stress_prec p, int cc_major, int cc_minor, char *buf,
				  size_t len);

/* ======================================================================= */
/* phases: which inputs a batch multiplies                                 */

enum gb_stress_mode { GB_STRESS_RANDOM = 0, GB_STRESS_EXACT };

/* a random and an exact phase for each of at most two concrete precisions */
#define GB_STRESS_MAX_PHASES 4

struct gb_stress_phase {
	enum gb_stress_prec prec;  /* concrete */
	enum gb_stress_mode mode;
	int64_t r;                 /* exact: integers in [-r, r]; random: 0 */
};

/*
 * Largest r such that integer inputs in [-r, r] of an m x n x k GEMM give
 * an exact product in any summation order, and exact checksums in double:
 *   r <= int_max of the input type (FP16 and TF32 2048, BF16 256, FP8 16),
 *   k r^2 < 2^acc_exact_bits (FP32 accumulation: 2^24; FP64: 2^53),
 *   max(m, n) k r^2 < 2^53 (the row and column sums in double),
 *   and for FP8 k r^2 <= 2^14, exact even if the tensor core keeps only
 *   about 14 bits while accumulating (DeepSeek-V3 report on H800).
 * 0 when no r >= 1 fits.
 */
int64_t gb_stress_exact_range(enum gb_stress_prec p, uint64_t m, uint64_t n, uint64_t k);

/*
 * The phases of a run: the random phase of each concrete precision, then
 * (when exact) the exact phase of each. Returns the count (at most 4).
 */
size_t gb_stress_phases(enum gb_stress_prec p, bool exact, uint64_t m, uint64_t n, uint64_t k,
			struct gb_stress_phase *out, size_t max);

/*
 * The phase index of batch b when phases[0, n_random) are random and
 * phases[n_random, n_random + n_exact) exact: random phases take three
 * batches in four (precisions in turn), exact phases the fourth; without
 * exact phases the random ones in turn.
 */
size_t gb_stress_batch_phase(size_t n_random, size_t n_exact, uint64_t batch);

/* ======================================================================= */
/* ABFT (Huang-Abraham checksums) reference and bound                      */

/* GB_STRESS_ABFT_TAU, the safety factor of the probabilistic bound: report/stress_thresholds.h */

/* How a checksum difference is bounded (see stress_math.c for each). */
enum gb_abft_kind {
	GB_ABFT_EXACT = 0,     /* integer data: sums are exact, the bound is 0 */
	GB_ABFT_PROBABILISTIC, /* random zero-mean data: tau u sqrt(k) x scale (the default) */
	GB_ABFT_RIGOROUS       /* any data: gamma_k |e^T| |A| |B| (never a false alarm, loose) */
};

/*
 * Expected row and column sums of C = A^T B and the largest difference a
 * correct result may show, for every column j (n) and row i (m).
 */
struct gb_abft_ref {
	uint64_t m, n, k;
	double *col_exp, *col_bound;  /* n each */
	double *row_exp, *row_bound;  /* m each */
};

/* Supplies column `col` (k values) of matrix 0 (A's storage) or 1 (B's). */
typedef void gb_stress_column_fn(void *user, unsigned matrix, uint64_t col, double *out,
				 uint64_t k);

/*
 * Build the reference from any inputs in O((m + n) k) without forming C,
 * with bounds of the given kind for an accumulation of unit roundoff u_acc
 * (tau: the probabilistic safety factor; <= 0 means GB_STRESS_ABFT_TAU).
 * stop (may be NULL) is polled between columns: Ctrl-C need not wait for
 * seconds of hashing. Returns 0, -1 on allocation failure, -2 when stopped
 * (out is released then).
 */
int gb_stress_abft_build(gb_stress_column_fn *column, void *user, uint64_t m, uint64_t n,
			 uint64_t k, enum gb_abft_kind kind, double u_acc, double tau,
			 const volatile sig_atomic_t *stop, struct gb_abft_ref *out);

/*
 * The bound of one checksum over len elements (m for a column sum, n for a
 * row sum) of dot products of length k: scale is the checksum's
 * sqrt(sum_p (sum_i A(i,p)^2) B(p,j)^2) (the expected 2-norm of the summed
 * elements for zero-mean data), abs_sum its sum_p (sum_i |A(i,p)|) |B(p,j)|.
 */
double gb_stress_abft_bound(enum gb_abft_kind kind, double u_acc, double tau, uint64_t k,
			    uint64_t len, double scale, double abs_sum);

/* The reference of a phase's generated inputs (seed as the fill kernels use it). */
int gb_stress_abft_reference(const struct gb_stress_phase *ph, uint64_t seed, uint64_t m,
			     uint64_t n, uint64_t k, double tau, const volatile sig_atomic_t *stop,
			     struct gb_abft_ref *out);
void gb_stress_abft_release(struct gb_abft_ref *r);

/* The bound kind of a phase: EXACT for exact phases, else PROBABILISTIC */
enum gb_abft_kind gb_stress_abft_kind(const struct gb_stress_phase *ph);

/*
 * Element (row, col) of a phase's product computed on the CPU from the
 * generator in O(k): exact for exact phases (integers below 2^53), the
 * double-precision value of the exact product otherwise. For forensics.
 */
double gb_stress_element(const struct gb_stress_phase *ph, uint64_t seed, uint64_t k, uint64_t row,
			 uint64_t col);

/* Column sums (n) and row sums (m) of a CPU result C (m x n column-major). */
void gb_stress_abft_sums(const double *c, uint64_t m, uint64_t n, double *col, double *row);

/*
 * Compare observed sums with the reference. Returns the number of columns
 * plus rows whose |observed - expected| exceeds the bound (NaN counts);
 * the first failing column and row go to *first_col / *first_row (-1 none).
 */
uint64_t gb_stress_abft_check(const struct gb_abft_ref *r, const double *col, const double *row,
			      int64_t *first_col, int64_t *first_row);

/* ======================================================================= */
/* sizing                                                                  */

struct gb_stress_sizing {
	uint64_t n;              /* m = n = k of every GEMM */
	uint64_t slots;          /* result slots in all (the first n_phases are references) */
	uint64_t bytes_inputs;   /* A and B of every phase */
	uint64_t bytes_slot;
	uint64_t bytes_total;    /* inputs + slots + fixed */
};

/* Largest default matrix dimension (gpu-burn's 8192; see the bound's margin) */
#define GB_STRESS_N_MAX 8192
#define GB_STRESS_N_MIN 256

/*
 * Fill `fraction` of free_bytes: inputs for every phase, a reference slot
 * per phase and as many working slots as fit (at least one). n_req = 0
 * picks the largest power of two <= GB_STRESS_N_MAX that fits with at least
 * 2 working slots; fixed_bytes is what the worker needs besides (workspace,
 * checksums). Returns 0, or -1 with a reason ("needs 1.1 GiB, 90% of free
 * memory is 512 MiB").
 */
int gb_stress_size(double free_bytes, double fraction, uint64_t n_req,
		   const struct gb_stress_phase *ph, size_t n_phases, uint64_t fixed_bytes,
		   struct gb_stress_sizing *out, char *err, size_t len);

/* GEMMs per batch so that one batch lasts about target_s (1 .. max). */
uint64_t gb_stress_batch_gemms(double t_gemm_s, double target_s, uint64_t max);

/*
 * The batch size of each phase, learnt from that phase's own last batch.
 * Phases alternate batch by batch and differ in speed (mixed: an FP64 GEMM
 * takes about ten times an FP16 one), so one size shared by all phases
 * would be learnt from the other precision: ten times too long a batch, then
 * ten times too short, and "mixed" would be FP64 nearly all the time.
 */
struct gb_stress_batcher {
	uint64_t gemms[GB_STRESS_MAX_PHASES];
	uint64_t max;       /* working slots */
	double target_s;
};

void gb_stress_batcher_init(struct gb_stress_batcher *b, uint64_t max, double target_s);
/* GEMMs in the next batch of a phase: 1 until that phase has run once. */
uint64_t gb_stress_batcher_next(const struct gb_stress_batcher *b, size_t phase);
/* A batch of `gemms` GEMMs of `phase` took busy_s of device time. */
void gb_stress_batcher_done(struct gb_stress_batcher *b, size_t phase, uint64_t gemms,
			    double busy_s);

/* ======================================================================= */
/* the pinned algorithm                                                    */

/* heuristic candidates tried for one that is bitwise reproducible */
#define GB_STRESS_MAX_ALGOS 8

/*
 * Repeat-and-compare needs an algorithm whose result is the same bits every
 * time. cuBLAS promises that for one architecture, SM count and stream, but
 * a split-K or stream-K kernel that reduces with atomics would differ run to
 * run on a healthy GPU. So each random phase's candidates are tried in the
 * heuristic's order, and the first that repeats bit for bit is pinned.
 */
struct gb_stress_algo_pick {
	int n_cand;      /* candidates offered */
	int n_tried;
	int chosen;      /* index of the pinned one; -1 none repeated */
	uint64_t diffs[GB_STRESS_MAX_ALGOS]; /* elements that differed, per tried candidate */
};

/* Run candidate `cand` again and count the elements that differ: 0, or -1 on an error. */
typedef int gb_stress_algo_trial_fn(void *user, int cand, uint64_t *diffs);

/*
 * Try candidates 0 .. n_cand-1 (at most GB_STRESS_MAX_ALGOS) until one
 * repeats (diffs 0). Returns 0 (out->chosen may be -1: none repeated), or -1
 * when a trial failed.
 */
int gb_stress_pick_algo(int n_cand, gb_stress_algo_trial_fn *trial, void *user,
			struct gb_stress_algo_pick *out);

/*
 * "" when the heuristic's first candidate repeated; otherwise one clause
 * for a report, e.g. "fp16: algorithm 1 of 8 differed run to run (5120
 * elements), pinned algorithm 2" or "fp16: none of 8 algorithms repeated
 * bit for bit (1: 5120 elements, ...), not compared". Returns buf.
 */
const char *gb_stress_algo_pick_note(const struct gb_stress_algo_pick *p, const char *what,
				     char *buf, size_t len);

/* ======================================================================= */
/* load profiles                                                           */

enum gb_stress_profile { GB_PROFILE_SUSTAINED = 0, GB_PROFILE_PULSE, GB_PROFILE_RAMP };
extern const char *const gb_stress_profile_names[]; /* "sustained", "pulse", "ramp", NULL */

/* ramp: the load climbs in this many equal steps over the run (25, 50, 75, 100%) */
#define GB_STRESS_RAMP_STEPS 4

struct gb_stress_schedule {
	enum gb_stress_profile profile;
	double duration_s;
	double period_s;  /* pulse */
	double duty;      /* pulse: share of the period under load */
};

/* The load level (0 idle .. 1 full) at t seconds into the run. */
double gb_stress_load_level(const struct gb_stress_schedule *s, double t);

/*
 * Where the throughput rules start judging (obs.steady_from_s): a ramp's
 * final, full-load step (its earlier steps idle between batches, so clocks,
 * temperature and device-time TFLOPS differ from step to step on a healthy
 * GPU); 0 for sustained and pulse (every batch runs at full load).
 */
double gb_stress_steady_from(const struct gb_stress_schedule *s);

/*
 * How long to idle after a batch that ran busy_s and ended at t: 0 at full
 * load; busy (1 - L) / L at a partial level L (duty-cycle modulation); to
 * the next "on" edge when idle (pulse off-phase).
 */
double gb_stress_idle_after(const struct gb_stress_schedule *s, double t, double busy_s);

/* ======================================================================= */
/* fault injection                                                         */

/*
 * Whether --inject-fault may flip a result of a batch of this phase: a layer
 * on this GPU must look at it. Exact batches always have their checksums,
 * but with ABFT on the flip waits for a random batch, so the default layer
 * is the one tested; a random batch is checked by ABFT (abft) or by
 * repeat-and-compare when that phase is compared (compared: repeat is on and
 * the phase has a bit-reproducible algorithm).
 */
bool gb_stress_inject_ok(enum gb_stress_mode mode, bool abft, bool compared);

/*
 * Options that leave --inject-fault nothing on one GPU to catch it: every
 * layer off, or --no-abft --no-repeat where precision p at size n has no
 * exact phase (fp8 at 16384: no integer range is exact). n = 0 is the
 * automatic size (at most GB_STRESS_N_MAX). Returns 0, or -1 with one line
 * in err.
 */
int gb_stress_inject_options(enum gb_stress_prec p, uint64_t n, bool abft, bool exact,
			     bool repeat, char *err, size_t len);

/* ======================================================================= */
/* cross-GPU vote                                                          */

enum gb_cross { GB_CROSS_NONE = 0, GB_CROSS_AGREE, GB_CROSS_OUTLIER, GB_CROSS_UNDECIDED };

/*
 * Digests of the same computation on n GPUs (valid[i] false: no digest).
 * Every valid GPU gets AGREE when all agree; with a strict majority the
 * others are OUTLIER; without one (two GPUs that differ, or a split) every
 * valid GPU is UNDECIDED. Fewer than two valid digests: NONE for all.
 */
void gb_stress_cross_vote(const uint64_t *digest, const bool *valid, size_t n,
			  enum gb_cross *out);

/* Order-independent digest of n 32-bit words (the kernel's, for tests). */
uint64_t gb_stress_digest(const uint32_t *words, size_t n);

/* ======================================================================= */
/* XIDs                                                                    */

/*
 * The XIDs that indicate hardware trouble (Imbue cluster-health's list):
 * 48, 56-58, 62-64, 68-77, 79-86, 88-89, 92, 94-105, 110-120, 122-125.
 * Others (13, 31, 43: application faults, ...) are reported as warnings.
 */
bool gb_stress_xid_is_hardware(unsigned long long xid);

/* ======================================================================= */
/* forensics                                                               */

/* Bit positions set in x into pos (up to max), lowest first; returns the count. */
size_t gb_stress_flipped_bits(uint64_t x, int *pos, size_t max);

/* "sign", "exponent" or "mantissa" of bit `bit` of a type (f32, f64; u32 for memtest words) */
const char *gb_stress_bit_field(enum gb_dtype t, int bit);

struct gb_stress_forensic {
	int device;
	double t_s;            /* seconds since the run started */
	const char *layer;     /* "abft", "exact", "repeat", "memtest", "nan" (static) */
	uint64_t batch;
	int64_t slot, row, col; /* -1 when unknown */
	int64_t offset;        /* memtest: byte offset in the tested region; -1 otherwise */
	uint64_t address;      /* memtest: device (virtual) address of the word; 0 unknown */
	char pattern[64];      /* memtest: gb_memtest_pattern_name() of the pass; "" otherwise */
	uint64_t pass;         /* memtest: the full pass (every pattern once), from 1; 0 unknown */
	enum gb_dtype type;    /* of expected/got: F32, F64, or I32 for memtest words */
	bool have_bits;
	uint64_t expected_bits, got_bits;
	double expected, got;  /* values (NAN when unknown) */
	double sum_observed, sum_expected, sum_bound; /* an ABFT checksum, NAN if none */
	bool injected;         /* the --inject-fault flip, not a hardware error */
	bool have_tel;
	struct gb_telemetry_sample tel;  /* telemetry nearest the moment */
};

/* A forensic record with every field unknown. */
void gb_stress_forensic_init(struct gb_stress_forensic *f);

/*
 * One line: "gpu 0 at 12.5 s, repeat, batch 7 slot 3 (row 10, col 20):
 * expected 0x41f00000 (30) got 0x49f00000 (1966080), flipped bit 27
 * (exponent); 71 C, 650 W, 1755 MHz, sw_power_cap". A memtest word reads
 * "memtest, offset 0x1000 (address 0x7f2a00001000), walking ones (bit 3),
 * pass 2: expected ...".
 */
void gb_stress_forensic_format(const struct gb_stress_forensic *f, char *buf, size_t len);

/* The same as a JSON object for the report's extra.forensics[] (caller owns it). */
struct cJSON *gb_stress_forensic_json(const struct gb_stress_forensic *f);

/* ======================================================================= */
/* locating a corrupted element from its checksums                         */

/* One failing checksum of a verification pass (the kernel's record, CPU side). */
struct gb_stress_sum_fail {
	uint32_t slot;   /* the result slot */
	uint32_t index;  /* the row (is_row) or column */
	bool is_row;
};

/*
 * The element that the failing checksums of result `slot` point at: exactly
 * one failing row and one failing column in that slot cross at one element
 * (Huang-Abraham). f[0..n) are the records kept, in claim order (the
 * kernel keeps the first GB_STRESS_MAX_RECORDS), of `total` checksums that
 * failed in the pass (its sum_mismatches, every slot's). A slot's
 * checksums are compared by one launch on the worker's stream before the
 * next slot's, so its records are complete when none was left out or when
 * a record of another slot follows its last one; otherwise a second row
 * or column may be among those left out. Returns true with *row and *col;
 * false when the slot has no failure, several rows or columns fail
 * (several elements, or one whole row or column), or its records may be
 * incomplete.
 */
bool gb_stress_locate(const struct gb_stress_sum_fail *f, size_t n, uint64_t total, uint32_t slot,
		      uint32_t *row, uint32_t *col);

/* Bits of a stored element of type t (F64 64, F32 and I32 32, F16 and BF16 16; 0 others). */
int gb_stress_type_bits(enum gb_dtype t);

/* The value of the low gb_stress_type_bits(t) bits of `bits` as type t (NaN for other types). */
double gb_stress_bits_value(enum gb_dtype t, uint64_t bits);

/*
 * The bits of v rounded to nearest (ties to even) in type t (F64, F32, F16,
 * BF16; I32 rounds to the nearest integer and saturates). 0 for other types.
 */
uint64_t gb_stress_value_bits(enum gb_dtype t, double v);

/* Which bits of a wrong element differ from the value it should have had. */
struct gb_stress_bitdiff {
	int n_bits;             /* bits that differ; 0: got is within tol of expected */
	int bit;                /* the bit when n_bits == 1, else -1 */
	uint64_t expected_bits; /* the bits the element should hold (see below) */
};

/*
 * Explain a wrong element: got_bits as stored in type t against the value
 * it should be, known within tol (0 for exact integer products; in random
 * phases the CPU knows the exact product, not the GPU's rounding of it, so
 * tol is the rounding-error bound). When flipping one bit of got lands
 * within tol of expected (the closest such bit when several do), that is
 * the flip: expected_bits is got with the bit restored. Otherwise
 * expected_bits is expected rounded to t and n_bits counts the bits that
 * differ (bit names it when that is one). A NaN expected: n_bits -1.
 */
void gb_stress_explain(enum gb_dtype t, uint64_t got_bits, double expected, double tol,
		       struct gb_stress_bitdiff *out);

/* The first corrupted element a layer (abft, exact) located on one GPU, and how many. */
struct gb_stress_corrupt {
	uint64_t located;       /* elements located in all (one failing row and column) */
	bool have;              /* the first one is below */
	uint64_t batch;
	double t_s;             /* seconds since the run started */
	uint32_t row, col;
	enum gb_dtype type;     /* of the result */
	bool read;              /* the element was read back (else got is unknown) */
	uint64_t got_bits;
	double expected, got;
	struct gb_stress_bitdiff diff;
};

void gb_stress_corrupt_init(struct gb_stress_corrupt *c);

/*
 * Count a located element; the first one's details are kept. Returns true
 * when it was the first (the caller needs those details only then).
 */
bool gb_stress_corrupt_add(struct gb_stress_corrupt *c, const struct gb_stress_corrupt *elem);

/*
 * The clause a failing check appends: "first at row 128, column 128
 * (batch 0): bit 30 (exponent) flipped, expected 0.939 got 3.2e+38; 18119
 * elements located", "... 3 bits differ ...", or "" when nothing was
 * located. Returns buf.
 */
const char *gb_stress_corrupt_text(const struct gb_stress_corrupt *c, char *buf, size_t len);

/* The same for the report: {"row", "col", "batch", ..., "bit", "field"}; JSON null when none. */
struct cJSON *gb_stress_corrupt_json(const struct gb_stress_corrupt *c);

/* ======================================================================= */
/* thresholds                                                              */

/* struct gb_stress_thresholds, its defaults and its JSON override: report/stress_thresholds.h */

/* ======================================================================= */
/* observations and verdict                                                */

#define GB_STRESS_MAX_XIDS 64
#define GB_STRESS_REASON_BITS 16
/* throughput series per GPU: one per concrete precision (mixed has two) */
#define GB_STRESS_MAX_SERIES 2

/*
 * One throughput series: per interval, the FLOPs of the random-data batches
 * of one precision finished in it over their device time (memtest: bytes).
 * Exact batches are left out: small integers toggle fewer bits, draw less
 * power and, under a power cap, run faster, so intervals would differ by
 * how many exact batches they happened to hold.
 */
struct gb_stress_tp {
	char label[8];             /* "fp64": the precision when a run has several; "" */
	double *t, *v;             /* t seconds since this GPU's load started */
	size_t n, cap;
};

/*
 * NVML's violation counters at the start and at the end of one GPU's load
 * (the time from its first batch to its last), with when each was read.
 */
struct gb_stress_viol {
	struct gb_nvml_violations start, end;
	double start_s, end_s;     /* gb_now_s() of each read; NaN when not read */
};

/*
 * The exact share of a window spent throttled, from two reads of a
 * cumulative ns counter: (after - before) / window, clamped to [0, 1]
 * (a counter that updates a little behind the clock may overshoot a short
 * window). NaN when either read failed, the window is not positive, or the
 * counter went down (a driver reload reset it: a 64-bit ns counter does not
 * wrap in centuries, so a decrease is never a wrap).
 */
double gb_stress_time_share(bool ok_before, uint64_t before_ns, bool ok_after, uint64_t after_ns,
			    double window_ns);

/* gb_stress_time_share() of one counter of v over its own window. */
double gb_stress_viol_share(const struct gb_stress_viol *v, enum gb_nvml_viol kind);

/* No reads yet: every counter not ok, times NaN. */
void gb_stress_viol_init(struct gb_stress_viol *v);

/*
 * Read the counters of the GPU with bus id pci (NULL: none) into v's start
 * or end, stamped now_s (stress_health_math.c). A driver without them
 * leaves the counters not ok: the verdict then uses the sampled reasons.
 */
void gb_stress_viol_read(struct gb_stress_viol *v, const char *pci, bool end, double now_s);

/* Everything the verdict rules look at for one GPU. */
struct gb_stress_obs {
	int device;
	/* could it run */
	bool ran;                  /* a batch was verified (also when the GPU later hung) */
	char error[256];           /* could not run / hung: the reason (ERROR); "" when none */
	char cuda_failure[256];    /* sticky CUDA error during the run (FAILED); "" when none */
	/* verification */
	bool memtest;
	bool abft_on, exact_on, repeat_on, cross_on;
	uint64_t gemms, batches;
	uint64_t abft_mismatches, exact_mismatches, repeat_mismatches, nan_count;
	/* the largest |observed - expected| / bound of any random-phase checksum; NaN none */
	double abft_max_ratio;
	/* the corrupted elements the abft and exact checksums located (first one, count) */
	struct gb_stress_corrupt abft_first, exact_first;
	/* repeat: phases that could not be compared (no bit-reproducible algorithm) */
	size_t repeat_uncompared;
	char repeat_note[384];     /* gb_stress_algo_pick_note() clauses, "; " between */
	uint64_t mem_errors, mem_bytes_tested;
	enum gb_cross cross;
	char cross_detail[160];
	/* telemetry */
	bool nvml;
	size_t n_samples, n_temp, n_power, n_sm, n_mem, n_util, n_reasons;
	double temp_max, power_sum, power_max, sm_sum;
	uint64_t reason_samples[GB_STRESS_REASON_BITS]; /* samples with bit b set */
	uint64_t throttled_samples; /* samples with any bit of the throttle mask */
	uint64_t throttle_mask;     /* the mask throttled_samples was counted with */
	/* NVML's violation counters over the load: exact power and thermal shares */
	struct gb_stress_viol viol;
	/* health before and after */
	int ecc;                   /* ECC mode: 1 on, 0 off (its counters mean nothing), -1 unknown */
	bool have_health;
	struct gb_nvml_health before, after;
	/* XID events */
	int xid_watch;             /* 1 watched, 0 not supported (or no NVML) */
	unsigned long long xids[GB_STRESS_MAX_XIDS];
	size_t n_xids;
	/* throughput per interval, one series per precision (n_series >= 1) */
	struct gb_stress_tp tp[GB_STRESS_MAX_SERIES];
	size_t n_series;
	double load_s;             /* how long the load ran */
	double steady_from_s;      /* throughput rules judge t >= this (gb_stress_steady_from) */
	const char *tp_unit;       /* "TFLOP/s" or "GB/s" (static) */
	/* per series, the GPU whose settled throughput is its model's best here; -1 unknown */
	int peer_best_dev[GB_STRESS_MAX_SERIES];
	/* fields NVML could not read, comma separated */
	char missing[256];
};

/* One series with no label (init's default). */
void gb_stress_obs_init(struct gb_stress_obs *o, int device);
void gb_stress_obs_release(struct gb_stress_obs *o);
/* n throughput series (1 .. GB_STRESS_MAX_SERIES) labelled "fp64", ...; call before adding. */
void gb_stress_obs_series(struct gb_stress_obs *o, size_t n, const char *const *labels);
/* Fold one telemetry sample in (unknown fields are skipped). */
void gb_stress_obs_add_sample(struct gb_stress_obs *o, const struct gb_telemetry_sample *s);
/* One interval's throughput of a series (NaN or negative, or no such series: ignored). */
void gb_stress_obs_add_throughput(struct gb_stress_obs *o, size_t series, double t, double v);
/* A checksum's |observed - expected| / bound (NaN ignored): keeps the largest. */
void gb_stress_obs_add_abft_ratio(struct gb_stress_obs *o, double ratio);
/*
 * A phase's pick of its pinned algorithm: a phase that could not be
 * compared is counted, and any fallback is noted ("what": "fp16").
 */
void gb_stress_obs_add_algo_pick(struct gb_stress_obs *o, const struct gb_stress_algo_pick *p,
				 const char *what);
/* "tflops", "tflops_fp64" (a labelled series), "mem_gbps": the metric base name. */
const char *gb_stress_series_name(const struct gb_stress_obs *o, size_t series, char *buf,
				  size_t len);
void gb_stress_obs_add_xid(struct gb_stress_obs *o, unsigned long long xid);
/* Append a field name to missing (once). */
void gb_stress_obs_missing(struct gb_stress_obs *o, const char *field);

/*
 * Settled throughput of a series: the median of the intervals in the second
 * quarter of the judged span, from S = steady_from_s to the end of the load
 * L (t in [S + (L-S)/4, S + (L-S)/2)), after clocks and temperature have had
 * a quarter of it to settle. S is 0 except for a ramp (its final step). NaN
 * with fewer than 3 samples there.
 */
double gb_stress_settled(const struct gb_stress_obs *o, size_t series);

/*
 * The largest fall of a series below its settled value: the second half of
 * the judged span in four windows (eighths of it), each window's median
 * against settled; returns 1 - worst/settled (>= 0 means slower) and the
 * window start in *at (may be NULL). NaN when settled is NaN or no window
 * has 2 samples.
 */
double gb_stress_drop(const struct gb_stress_obs *o, size_t series, double *at);

struct gb_stress_check {
	const char *name;          /* static */
	enum gb_status status;     /* PASSED, WARNING, FAILED, SKIPPED or ERROR */
	enum gb_severity severity;
	double observed, threshold;
	char message[256];
	/* the XIDs an "xid" finding saw (the observation's own array), NULL if none */
	const unsigned long long *xids;
	size_t n_xids;
};

#define GB_STRESS_MAX_CHECKS 24

/*
 * Judge one GPU. peer_best[s] is the settled throughput of series s on the
 * best GPU of the same model in this run (NaN when there is none); NULL when
 * this GPU has no peer. Throughput rules judge each series against itself
 * and report the worst. Writes one check per rule (see docs/stress.md) and
 * returns the count. A GPU that could not run gets an ERROR check, never a
 * pass; rules whose data are missing are SKIPPED with the reason.
 */
size_t gb_stress_judge(const struct gb_stress_obs *o, const struct gb_stress_thresholds *th,
		       const double *peer_best, struct gb_stress_check *out, size_t max);

/*
 * The run's own cross_gpu finding: GPUs whose results differ with no
 * majority to name the outlier (UNDECIDED: two GPUs that differ, or a
 * split) cannot be told apart, so none of them is failed as the culprit
 * (each gets a warning from gb_stress_judge) and the run fails here, with
 * no device: "GPUs 0 and 1 computed different results and no majority
 * names the outlier; GPU 1 failed its own checks". obs: every GPU of the
 * run. Returns 1 with that check in *out, 0 when no GPU is UNDECIDED.
 */
size_t gb_stress_cross_tie(const struct gb_stress_obs *obs, size_t n, struct gb_stress_check *out);

/* Add the checks to a benchmark result for device `device` (FAILED and ERROR set its status). */
void gb_stress_add_checks(struct gb_bench_result *b, int device, const struct gb_stress_check *c,
			  size_t n);

/*
 * Add one GPU's metrics (per throughput series: a sample per interval,
 * settled and lowest; temperature, power, clock, throttle shares, mismatch
 * and NaN counts, the ABFT ratio, health deltas, XIDs) and its
 * throughput-over-time series.
 */
void gb_stress_add_metrics(struct gb_bench_result *b, const struct gb_stress_obs *o);

/* ======================================================================= */
/* progress                                                                */

/* One GPU at one moment, as the progress line shows it. */
struct gb_stress_progress {
	int device;
	double t_s;                /* seconds since the run started */
	double frac;               /* share of the duration done, 0 .. 1 */
	double eta_s;              /* NaN unknown */
	size_t n_tp;               /* throughput values (one per series) */
	const char *tp_label[GB_STRESS_MAX_SERIES]; /* "" or NULL for the only one */
	double tp[GB_STRESS_MAX_SERIES];            /* NaN when the interval had none */
	double tp_total;           /* all series together: work over device time; NaN none */
	bool memtest;              /* GB/s instead of TFLOP/s */
	double temp_c, power_w, sm_mhz;             /* NaN unknown */
	uint64_t errors;
	const char *state;         /* "running", "done", "failed", "error", "hung", "starting" */
};

/* "5m30s", "1h02m", "12s", "-" when unknown. Returns buf. */
const char *gb_stress_fmt_eta(double s, char *buf, size_t len);

/*
 * The human line: "stress gpu 0:  45% eta 5m30s  705.2 TFLOP/s  71 C  650 W
 * 1755 MHz  errors 0" ("fp64 61.2  fp16 702 TFLOP/s" with two series; "-"
 * for what is unknown; the state appended unless running).
 */
void gb_stress_progress_text(const struct gb_stress_progress *p, char *buf, size_t len);

/*
 * The machine line, one JSON object: {"type":"stress_progress","gpu":0,
 * "t_s":..,"progress":0..1,"eta_s":..,"tflops":..,"temp_c":..,"power_w":..,
 * "sm_mhz":..,"errors":..,"state":".."}; "gbps" for memtest; "tflops" is
 * tp_total, and with two series "tflops_fp64", "tflops_fp16" follow. null
 * for what is unknown.
 */
void gb_stress_progress_jsonl(const struct gb_stress_progress *p, char *buf, size_t len);

/* ======================================================================= */
/* telemetry and health through NVML (stress_health_math.c)                */

/*
 * The observing half of a stress run, CPU-only so it is tested against the
 * fake libnvidia-ml: health counters before and after, XID events, and a
 * telemetry sample per device per interval folded into each obs.
 */
struct gb_stress_monitor {
	size_t n;
	char **pci;                   /* PCI bus id per device (NULL unknown) */
	struct gb_stress_obs *obs;    /* n, the caller's */
	struct gb_telemetry_sample *last; /* the latest sample of each device */
	bool *have_last;
	bool nvml;
	int xid_watch;                /* registered devices, -1 not supported */
	bool *field_seen;             /* n x GB_STRESS_TEL_FIELDS: read at least once */
	size_t rounds;                /* gb_stress_monitor_sample calls */
};
#define GB_STRESS_TEL_FIELDS 7

/*
 * Read health "before" and open XID events for the devices (pci[i] for
 * obs[i]). Without NVML every obs says so (missing "nvml"). Returns 0, -1
 * on allocation failure.
 */
int gb_stress_monitor_begin(struct gb_stress_monitor *m, const char *const *pci,
			    struct gb_stress_obs *obs, size_t n, uint64_t throttle_mask);

/*
 * Sample every device at t_s (seconds since the run started); samples[i]
 * gets device i's sample (device index and tflops from the caller's obs and
 * tflops[i], which may be NULL). Returns how many devices answered.
 */
size_t gb_stress_monitor_sample(struct gb_stress_monitor *m, double t_s, const double *tflops,
				struct gb_telemetry_sample *samples);

/* Take queued XID events into the obs of their device; returns how many. */
size_t gb_stress_monitor_poll_xids(struct gb_stress_monitor *m, unsigned timeout_ms);

/* Health "after", close events, fill each obs->missing. Frees m's own memory. */
void gb_stress_monitor_end(struct gb_stress_monitor *m);

#ifdef __cplusplus
}
#endif

#endif
