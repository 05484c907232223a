/* SPDX-License-Identifier: MIT */
/*
 * stress_math.c - the arithmetic of `gpubench stress` that needs no GPU:
 * precisions, phases, sizing, the pinned algorithm, load profiles, fault
 * injection, the hardware XID set and progress lines; see stress_math.h.
 * The ABFT reference, the cross-GPU vote and locating corruption are in
 * stress_verify_math.c, forensics in stress_forensics_math.c, the thresholds
 * and verdict rules in stress_verdict_math.c, the observations and metrics
 * in stress_obs_math.c, the NVML observation in stress_health_math.c.
 */
#include "bench/stress/stress_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/options.h"
#include "report/json_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================= */
/* precisions                                                              */

const char *const gb_stress_prec_names[] = { "bf16", "fp16", "tf32", "fp32",
					     "fp64", "fp8",  "mixed", NULL };

/*
 * u_acc, the unit roundoff assumed for the accumulation:
 *  - fp64 (DMMA or DFMA) and fp32 on CUDA cores round to nearest: 2^-53, 2^-24.
 *  - tensor-core paths accumulating in FP32 (tf32, fp16, bf16): 2^-23, twice
 *    FP32's, because tensor cores align and normalise with truncation rather
 *    than rounding (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of
 *    NVIDIA tensor cores", PeerJ CS 2021).
 *  - fp8: 2^-13, because Hopper's FP8 tensor cores keep only about 14 bits
 *    while accumulating (DeepSeek-V3 technical report, section 3.3.2).
 * Random inputs have sig_bits significand bits so the stored value is the
 * generated one (TF32 data are generated with TF32's 11 bits, so the tensor
 * core's own rounding of FP32 inputs to TF32 changes nothing).
 */
static const struct gb_stress_gemm_type gemm_types[] = {
	{ GB_SP_BF16, GB_DT_BF16, GB_DT_F32, 8, 0x1p-23, 256, 24, GB_PREC_BF16 },
	{ GB_SP_FP16, GB_DT_F16, GB_DT_F32, 11, 0x1p-23, 2048, 24, GB_PREC_FP16 },
	{ GB_SP_TF32, GB_DT_F32, GB_DT_F32, 11, 0x1p-23, 2048, 24, GB_PREC_TF32 },
	{ GB_SP_FP32, GB_DT_F32, GB_DT_F32, 24, 0x1p-24, 1LL << 24, 24, GB_PREC_FP32 },
	{ GB_SP_FP64, GB_DT_F64, GB_DT_F64, 53, 0x1p-53, 1LL << 53, 53, GB_PREC_FP64 },
	/* FP8 accumulation: 14 exact bits (see gb_stress_exact_range) */
	{ GB_SP_FP8, GB_DT_E4M3, GB_DT_F32, 4, 0x1p-13, 16, 14, GB_PREC_FP8 },
};

int gb_stress_gemm_type(enum gb_stress_prec p, struct gb_stress_gemm_type *t)
{
	for (size_t i = 0; i < ARRAY_LEN(gemm_types); i++) {
		if (gemm_types[i].prec == p) {
			*t = gemm_types[i];
			return 0;
		}
	}
	return -1;
}

size_t gb_stress_expand_prec(enum gb_stress_prec p, enum gb_stress_prec out[2])
{
	if (p == GB_SP_MIXED) {
		/* DCGM targeted power mixes FP64 and FP16 GEMMs to draw the most power */
		out[0] = GB_SP_FP64;
		out[1] = GB_SP_FP16;
		return 2;
	}
	out[0] = p;
	return 1;
}

/* packed major * 10 + minor: fp16 7.0, bf16 and tf32 8.0, fp8 8.9 */
static int min_cc(enum gb_stress_prec p)
{
	switch (p) {
	case GB_SP_BF16:
	case GB_SP_TF32:
		return 80;
	case GB_SP_FP16:
	case GB_SP_MIXED:
		return 70;
	case GB_SP_FP8:
		return 89;
	default:
		return 0;
	}
}

const char *gb_stress_unsupported(enum gb_stress_prec p, int cc_major, int cc_minor, char *buf,
				  size_t len)
{
	int need = min_cc(p);

	if ((unsigned)p >= GB_SP_COUNT) {
		snprintf(buf, len, "unknown precision %d", (int)p);
		return buf;
	}
	if (cc_major * 10 + cc_minor >= need)
		return NULL;
	snprintf(buf, len, "%s needs compute capability %d.%d or newer (this GPU is %d.%d)",
		 gb_stress_prec_names[p], need / 10, need % 10, cc_major, cc_minor);
	return buf;
}

/* ======================================================================= */
/* phases                                                                  */

/* floor(sqrt(limit / mult)) with integer correction, for limit < 2^63 */
static int64_t isqrt_div(uint64_t limit, uint64_t mult)
{
	uint64_t q = mult ? limit / mult : limit;
	uint64_t r = (uint64_t)sqrt((double)q);

	while (r > 0 && r * r > q)
		r--;
	while ((r + 1) * (r + 1) <= q)
		r++;
	return (int64_t)r;
}

int64_t gb_stress_exact_range(enum gb_stress_prec p, uint64_t m, uint64_t n, uint64_t k)
{
	struct gb_stress_gemm_type t;
	uint64_t mn = m > n ? m : n;
	int64_t r, r_sum;

	if (gb_stress_gemm_type(p, &t) || !k || !mn)
		return 0;
	r = t.int_max;
	/* every partial sum of the dot product below 2^acc_exact_bits */
	r_sum = isqrt_div((1ULL << t.acc_exact_bits) - 1, k);
	if (r_sum < r)
		r = r_sum;
	/* row and column sums (mn terms of up to k r^2) below 2^53 in double */
	if (mn <= (1ULL << 53) / k) {
		r_sum = isqrt_div((1ULL << 53) - 1, mn * k);
		if (r_sum < r)
			r = r_sum;
	} else {
		r = 0;
	}
	return r;
}

size_t gb_stress_phases(enum gb_stress_prec p, bool exact, uint64_t m, uint64_t n, uint64_t k,
			struct gb_stress_phase *out, size_t max)
{
	enum gb_stress_prec ps[2];
	size_t np = gb_stress_expand_prec(p, ps), count = 0;

	for (size_t i = 0; i < np && count < max; i++)
		out[count++] = (struct gb_stress_phase){ ps[i], GB_STRESS_RANDOM, 0 };
	for (size_t i = 0; exact && i < np && count < max; i++) {
		int64_t r = gb_stress_exact_range(ps[i], m, n, k);

		/* no integer range fits this shape: that precision has no exact phase */
		if (r > 0)
			out[count++] = (struct gb_stress_phase){ ps[i], GB_STRESS_EXACT, r };
	}
	return count;
}

size_t gb_stress_batch_phase(size_t n_random, size_t n_exact, uint64_t batch)
{
	uint64_t cycle, c;

	if (!n_random)
		return n_exact ? (size_t)(batch % n_exact) : 0;
	if (!n_exact)
		return (size_t)(batch % n_random);
	/* three random rounds, then one exact round */
	cycle = 3 * (uint64_t)n_random + n_exact;
	c = batch % cycle;
	if (c < 3 * (uint64_t)n_random)
		return (size_t)(c % n_random);
	return n_random + (size_t)(c - 3 * (uint64_t)n_random);
}

/* ======================================================================= */
/* sizing                                                                  */

static uint64_t inputs_bytes(const struct gb_stress_phase *ph, size_t n_phases, uint64_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n_phases; i++) {
		struct gb_stress_gemm_type t;

		if (!gb_stress_gemm_type(ph[i].prec, &t))
			sum += 2 * n * n * gb_dtype_size(t.in);
	}
	return sum;
}

static uint64_t slot_bytes(const struct gb_stress_phase *ph, size_t n_phases, uint64_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n_phases; i++) {
		struct gb_stress_gemm_type t;

		if (!gb_stress_gemm_type(ph[i].prec, &t) && gb_dtype_size(t.out) > out)
			out = gb_dtype_size(t.out);
	}
	return n * n * out;
}

/* working slots (beyond the references) that fit in budget at dimension n */
static int64_t working_slots(double budget, const struct gb_stress_phase *ph, size_t n_phases,
			     uint64_t n, uint64_t fixed)
{
	double left = budget - (double)inputs_bytes(ph, n_phases, n) - (double)fixed;
	double slot = (double)slot_bytes(ph, n_phases, n);

	if (left <= 0 || slot <= 0)
		return -1;
	return (int64_t)floor(left / slot) - (int64_t)n_phases;
}

static void fill_sizing(struct gb_stress_sizing *out, const struct gb_stress_phase *ph,
			size_t n_phases, uint64_t n, uint64_t slots, uint64_t fixed)
{
	out->n = n;
	out->slots = slots;
	out->bytes_inputs = inputs_bytes(ph, n_phases, n);
	out->bytes_slot = slot_bytes(ph, n_phases, n);
	out->bytes_total = out->bytes_inputs + slots * out->bytes_slot + fixed;
}

int gb_stress_size(double free_bytes, double fraction, uint64_t n_req,
		   const struct gb_stress_phase *ph, size_t n_phases, uint64_t fixed_bytes,
		   struct gb_stress_sizing *out, char *err, size_t len)
{
	double budget = free_bytes * fraction;
	uint64_t n = n_req ? n_req : GB_STRESS_N_MAX;
	int64_t w;
	char need[32], have[32];

	memset(out, 0, sizeof(*out));
	if (!n_phases || !(budget > 0)) {
		snprintf(err, len, "no memory to test (%.0f bytes free)", free_bytes);
		return -1;
	}
	/* auto: the largest power of two with room for two working slots */
	for (; !n_req && n > GB_STRESS_N_MIN; n /= 2)
		if (working_slots(budget, ph, n_phases, n, fixed_bytes) >= 2)
			break;
	w = working_slots(budget, ph, n_phases, n, fixed_bytes);
	if (w < 1) {
		fill_sizing(out, ph, n_phases, n, n_phases + 1, fixed_bytes);
		gb_format_bytes(need, sizeof(need), (double)out->bytes_total);
		gb_format_bytes(have, sizeof(have), budget);
		snprintf(err, len,
			 "%llu x %llu GEMMs need %s (inputs, %zu reference and 1 working slot), "
			 "%.0f%% of free memory is %s",
			 (unsigned long long)n, (unsigned long long)n, need, n_phases,
			 fraction * 100.0, have);
		return -1;
	}
	fill_sizing(out, ph, n_phases, n, n_phases + (uint64_t)w, fixed_bytes);
	return 0;
}

uint64_t gb_stress_batch_gemms(double t_gemm_s, double target_s, uint64_t max)
{
	double g;

	if (!max)
		return 1;
	if (!(t_gemm_s > 0) || !(target_s > 0))
		return 1;
	g = floor(target_s / t_gemm_s + 0.5);
	if (g < 1)
		return 1;
	if (g > (double)max)
		return max;
	return (uint64_t)g;
}

void gb_stress_batcher_init(struct gb_stress_batcher *b, uint64_t max, double target_s)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
	b->target_s = target_s;
}

uint64_t gb_stress_batcher_next(const struct gb_stress_batcher *b, size_t phase)
{
	if (phase >= GB_STRESS_MAX_PHASES || !b->gemms[phase])
		return 1;
	return b->gemms[phase];
}

void gb_stress_batcher_done(struct gb_stress_batcher *b, size_t phase, uint64_t gemms,
			    double busy_s)
{
	if (phase >= GB_STRESS_MAX_PHASES || !gemms)
		return;
	/* only this phase's own speed decides its next batch */
	b->gemms[phase] = gb_stress_batch_gemms(busy_s / (double)gemms, b->target_s, b->max);
}

/* ======================================================================= */
/* the pinned algorithm                                                    */

int gb_stress_pick_algo(int n_cand, gb_stress_algo_trial_fn *trial, void *user,
			struct gb_stress_algo_pick *out)
{
	memset(out, 0, sizeof(*out));
	out->n_cand = n_cand;
	out->chosen = -1;
	for (int c = 0; c < n_cand && c < GB_STRESS_MAX_ALGOS; c++) {
		uint64_t diffs = 0;

		if (trial(user, c, &diffs))
			return -1;
		out->diffs[c] = diffs;
		out->n_tried = c + 1;
		if (!diffs) {
			out->chosen = c;
			break;
		}
	}
	return 0;
}

/* "1: 5120, 2: 12" for the tried candidates that differed; returns the length written */
static size_t list_diffs(const struct gb_stress_algo_pick *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < p->n_tried && used < len; c++) {
		int w;

		if (!p->diffs[c])
			continue;
		w = snprintf(buf + used, len - used, "%s%d: %llu", used ? ", " : "", c + 1,
			     (unsigned long long)p->diffs[c]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return used;
}

const char *gb_stress_algo_pick_note(const struct gb_stress_algo_pick *p, const char *what,
				     char *buf, size_t len)
{
	char diffs[192], which[32];

	if (!len)
		return buf;
	buf[0] = '\0';
	/* the heuristic's first repeated (or nothing was tried): nothing to say */
	if (p->chosen == 0 || !p->n_tried)
		return buf;
	/* candidates are numbered from 1: "algorithm 1" is the heuristic's first choice */
	list_diffs(p, diffs, sizeof(diffs));
	if (p->chosen == 1)
		snprintf(which, sizeof(which), "algorithm 1");
	else
		snprintf(which, sizeof(which), "algorithms 1-%d", p->chosen);
	if (p->chosen > 0)
		snprintf(buf, len,
			 "%s: %s of %d differed run to run (%s elements), pinned algorithm %d",
			 what, which, p->n_cand, diffs, p->chosen + 1);
	else
		snprintf(buf, len,
			 "%s: none of %d algorithm%s repeated bit for bit (%s elements differed), "
			 "not compared",
			 what, p->n_tried, p->n_tried > 1 ? "s" : "", diffs);
	return buf;
}

/* ======================================================================= */
/* load profiles                                                           */

const char *const gb_stress_profile_names[] = { "sustained", "pulse", "ramp", NULL };

static int ramp_step(const struct gb_stress_schedule *s, double t)
{
	int step;

	if (!(s->duration_s > 0))
		return GB_STRESS_RAMP_STEPS - 1;
	step = (int)floor(t / s->duration_s * GB_STRESS_RAMP_STEPS);
	if (step < 0)
		step = 0;
	if (step > GB_STRESS_RAMP_STEPS - 1)
		step = GB_STRESS_RAMP_STEPS - 1;
	return step;
}

double gb_stress_load_level(const struct gb_stress_schedule *s, double t)
{
	switch (s->profile) {
	case GB_PROFILE_PULSE:
		if (!(s->period_s > 0))
			return 1.0;
		return fmod(t < 0 ? 0 : t, s->period_s) < s->duty * s->period_s ? 1.0 : 0.0;
	case GB_PROFILE_RAMP:
		return (double)(ramp_step(s, t) + 1) / GB_STRESS_RAMP_STEPS;
	case GB_PROFILE_SUSTAINED:
	default:
		return 1.0;
	}
}

double gb_stress_idle_after(const struct gb_stress_schedule *s, double t, double busy_s)
{
	double level = gb_stress_load_level(s, t), idle, next;

	if (level >= 1.0)
		return 0.0;
	if (level <= 0.0) {
		/* pulse off-phase: until the next period starts */
		return s->period_s - fmod(t < 0 ? 0 : t, s->period_s);
	}
	idle = busy_s * (1.0 - level) / level;
	/* never idle into the next, higher step */
	next = (ramp_step(s, t) + 1) * s->duration_s / GB_STRESS_RAMP_STEPS - t;
	if (next > 0 && idle > next)
		idle = next;
	return idle > 0 ? idle : 0.0;
}

double gb_stress_steady_from(const struct gb_stress_schedule *s)
{
	if (s->profile != GB_PROFILE_RAMP || !(s->duration_s > 0))
		return 0.0;
	/* the same boundary ramp_step() uses: the last of GB_STRESS_RAMP_STEPS equal steps */
	return (double)(GB_STRESS_RAMP_STEPS - 1) * s->duration_s / GB_STRESS_RAMP_STEPS;
}

/* ======================================================================= */
/* fault injection                                                         */

bool gb_stress_inject_ok(enum gb_stress_mode mode, bool abft, bool compared)
{
	if (mode == GB_STRESS_EXACT)
		return !abft;
	return abft || compared;
}

int gb_stress_inject_options(enum gb_stress_prec p, uint64_t n, bool abft, bool exact,
			     bool repeat, char *err, size_t len)
{
	struct gb_stress_phase ph[GB_STRESS_MAX_PHASES];
	uint64_t dim = n ? n : GB_STRESS_N_MAX;
	size_t np, n_exact = 0;

	if (!abft && !exact && !repeat) {
		snprintf(err, len,
			 "--inject-fault needs a layer that can catch it on one GPU; drop "
			 "--no-abft, --no-exact or --no-repeat");
		return -1;
	}
	if (abft || repeat)
		return 0;
	/* only exact phases are left; the automatic size is at most N_MAX (smaller only helps) */
	np = gb_stress_phases(p, true, dim, dim, dim, ph, GB_STRESS_MAX_PHASES);
	for (size_t i = 0; i < np; i++)
		n_exact += ph[i].mode == GB_STRESS_EXACT;
	if (n_exact)
		return 0;
	snprintf(err, len,
		 "--inject-fault with --no-abft and --no-repeat needs an exact phase, and %s at "
		 "--size %llu has none; drop --no-abft or --no-repeat, or use a smaller --size",
		 (unsigned)p < GB_SP_COUNT ? gb_stress_prec_names[p] : "this precision",
		 (unsigned long long)dim);
	return -1;
}

/* ======================================================================= */
/* XIDs                                                                    */

bool gb_stress_xid_is_hardware(unsigned long long xid)
{
	static const unsigned ranges[][2] = {
		{ 48, 48 },   { 56, 58 },   { 62, 64 },   { 68, 77 },   { 79, 86 },
		{ 88, 89 },   { 92, 92 },   { 94, 105 },  { 110, 120 }, { 122, 125 },
	};

	for (size_t i = 0; i < ARRAY_LEN(ranges); i++)
		if (xid >= ranges[i][0] && xid <= ranges[i][1])
			return true;
	return false;
}

/* ======================================================================= */
/* progress                                                                */

const char *gb_stress_fmt_eta(double s, char *buf, size_t len)
{
	if (!(s >= 0))
		snprintf(buf, len, "-");
	else if (s >= 3600)
		snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, len, "%.0fs", s);
	return buf;
}

/* a number, or "-" when unknown */
static const char *fmt_num(char *buf, size_t len, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "705.2" or "fp64 61.2  fp16 702" */
static void format_tp(const struct gb_stress_progress *p, char *buf, size_t len)
{
	size_t used = 0;
	char v[24];

	buf[0] = '\0';
	for (size_t s = 0; s < p->n_tp && s < GB_STRESS_MAX_SERIES && used < len; s++) {
		const char *label = p->tp_label[s] ? p->tp_label[s] : "";
		int w = snprintf(buf + used, len - used, "%s%s%s%s", s ? "  " : "", label,
				 label[0] ? " " : "", fmt_num(v, sizeof(v), "%.4g", p->tp[s]));

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (!p->n_tp)
		snprintf(buf, len, "-");
}

void gb_stress_progress_text(const struct gb_stress_progress *p, char *buf, size_t len)
{
	char eta[16], tp[96], v[3][24];
	bool running = p->state && !strcmp(p->state, "running");

	gb_stress_fmt_eta(p->eta_s, eta, sizeof(eta));
	format_tp(p, tp, sizeof(tp));
	snprintf(buf, len, "stress gpu %d: %3.0f%% eta %s  %s %s  %s C  %s W  %s MHz  errors %llu%s%s",
		 p->device, 100 * p->frac, eta, tp, p->memtest ? "GB/s" : "TFLOP/s",
		 fmt_num(v[0], sizeof(v[0]), "%.0f", p->temp_c),
		 fmt_num(v[1], sizeof(v[1]), "%.0f", p->power_w),
		 fmt_num(v[2], sizeof(v[2]), "%.0f", p->sm_mhz), (unsigned long long)p->errors,
		 running ? "" : "  ", running ? "" : (p->state ? p->state : "?"));
}

/* a JSON number, or null */
static const char *json_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, isfinite(v) ? "%.6g" : "null", v);
	return buf;
}

void gb_stress_progress_jsonl(const struct gb_stress_progress *p, char *buf, size_t len)
{
	const char *unit = p->memtest ? "gbps" : "tflops";
	char v[5][24], extra[128] = "";
	size_t used = 0;

	/* with several series each is its own field too: "tflops_fp64":61.2 */
	for (size_t s = 0; p->n_tp > 1 && s < p->n_tp && s < GB_STRESS_MAX_SERIES; s++) {
		char n[24];
		int w;

		if (!p->tp_label[s] || !p->tp_label[s][0] || used >= sizeof(extra))
			continue;
		w = snprintf(extra + used, sizeof(extra) - used, ",\"%s_%s\":%s", unit,
			     p->tp_label[s], json_num(n, sizeof(n), p->tp[s]));
		if (w < 0)
			break;
		used += (size_t)w;
	}
	snprintf(buf, len,
		 "{\"type\":\"stress_progress\",\"gpu\":%d,\"t_s\":%.3f,\"progress\":%.4f,"
		 "\"eta_s\":%s,\"%s\":%s%s,\"temp_c\":%s,\"power_w\":%s,\"sm_mhz\":%s,"
		 "\"errors\":%llu,\"state\":\"%s\"}",
		 p->device, p->t_s, p->frac, json_num(v[0], sizeof(v[0]), p->eta_s), unit,
		 json_num(v[1], sizeof(v[1]), p->tp_total), extra,
		 json_num(v[2], sizeof(v[2]), p->temp_c), json_num(v[3], sizeof(v[3]), p->power_w),
		 json_num(v[4], sizeof(v[4]), p->sm_mhz), (unsigned long long)p->errors,
		 p->state ? p->state : "?");
}
