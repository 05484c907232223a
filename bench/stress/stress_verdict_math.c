/* SPDX-License-Identifier: MIT */
/*
 * stress_verdict_math.c - the per-GPU verdict of `gpubench stress` as pure
 * functions: thresholds (defaults and a JSON override) and one check per
 * rule. The observations the rules read and the metrics are in
 * stress_obs_math.c. See stress_math.h and docs/stress.md for the rules and
 * where each default comes from.
 */
#include "bench/device/peer_math.h"
#include "bench/stress/stress_math.h"
#include "bench/stress/stress_math_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================= */
/* verdict                                                                 */

struct judge {
	struct gb_stress_check *out;
	size_t n, max;
};

/* Append a check; it, or NULL when out is full. */
__attribute__((format(printf, 6, 7)))
static struct gb_stress_check *add(struct judge *j, const char *name, enum gb_status st,
				   double observed, double threshold, const char *fmt, ...)
{
	struct gb_stress_check *c;
	va_list ap;

	if (j->n >= j->max)
		return NULL;
	c = &j->out[j->n++];
	c->name = name;
	c->status = st;
	c->severity = st == GB_STATUS_FAILED || st == GB_STATUS_ERROR ? GB_SEV_ERROR
		      : st == GB_STATUS_WARNING                        ? GB_SEV_WARNING
									: GB_SEV_INFO;
	c->observed = observed;
	c->threshold = threshold;
	c->xids = NULL;
	c->n_xids = 0;
	va_start(ap, fmt);
	vsnprintf(c->message, sizeof(c->message), fmt, ap);
	va_end(ap);
	return c;
}

static void judge_run(struct judge *j, const struct gb_stress_obs *o)
{
	if (o->error[0])
		add(j, "could_run", GB_STATUS_ERROR, NAN, NAN, "could not run: %s", o->error);
	else if (!o->ran)
		add(j, "could_run", GB_STATUS_ERROR, NAN, NAN,
		    "could not run: no result was verified");
	else if (o->memtest)
		add(j, "could_run", GB_STATUS_PASSED, o->load_s, NAN,
		    "tested %.3g GB of memory for %.0f s", (double)o->mem_bytes_tested / 1e9,
		    o->load_s);
	else
		add(j, "could_run", GB_STATUS_PASSED, (double)o->gemms, NAN,
		    "ran %llu GEMMs in %llu batches over %.0f s",
		    (unsigned long long)o->gemms, (unsigned long long)o->batches, o->load_s);
	if (o->cuda_failure[0])
		add(j, "cuda_error", GB_STATUS_FAILED, NAN, NAN, "%s", o->cuda_failure);
	else if (o->ran && !o->error[0])
		add(j, "cuda_error", GB_STATUS_PASSED, NAN, NAN, "no CUDA error");
}

/*
 * A clean count passes only when the load ran to its end: on a GPU that
 * hung or stopped with an error (o->error), "no mismatch" covers only the
 * batches before that, so the rule is skipped with that count, never
 * passed. Returns true when it added that check (or the no-result one).
 */
static bool skip_unfinished(struct judge *j, const struct gb_stress_obs *o, const char *name)
{
	if (!o->ran)
		add(j, name, GB_STATUS_SKIPPED, NAN, NAN, "no result to check");
	else if (o->error[0])
		add(j, name, GB_STATUS_SKIPPED, 0, 0,
		    "nothing found in the %llu batches verified before the load stopped",
		    (unsigned long long)o->batches);
	else
		return false;
	return true;
}

/*
 * One verification layer: off, a mismatch, or clean. A mismatch that was
 * counted fails whatever happened later: a GPU that corrupts results and
 * then hangs is a finding (exit 1), not only a GPU that could not run.
 * where (NULL: none) is the first element the layer located, named with
 * the mismatch: the row, column and flipped bit a user reports.
 */
static void judge_layer(struct judge *j, const struct gb_stress_obs *o, const char *name,
			bool on, uint64_t count, const char *off_flag, const char *what,
			const struct gb_stress_corrupt *where)
{
	char first[200] = "";

	if (where)
		gb_stress_corrupt_text(where, first, sizeof(first));
	if (!on)
		add(j, name, GB_STATUS_SKIPPED, NAN, NAN, "turned off (%s)", off_flag);
	else if (count)
		add(j, name, GB_STATUS_FAILED, (double)count, 0, "%llu %s%s%s",
		    (unsigned long long)count, what, first[0] ? "; " : "", first);
	else if (!skip_unfinished(j, o, name))
		add(j, name, GB_STATUS_PASSED, 0, 0, "no mismatch");
}

static void judge_cross(struct judge *j, const struct gb_stress_obs *o)
{
	const char *d = o->cross_detail[0] ? o->cross_detail : "";

	if (!o->cross_on) {
		add(j, "cross_gpu", GB_STATUS_SKIPPED, NAN, NAN, "turned off (--no-cross)");
		return;
	}
	switch (o->cross) {
	case GB_CROSS_AGREE:
		add(j, "cross_gpu", GB_STATUS_PASSED, NAN, NAN, "digests agree %s", d);
		break;
	case GB_CROSS_OUTLIER:
		add(j, "cross_gpu", GB_STATUS_FAILED, NAN, NAN,
		    "this GPU's result differs from the majority's %s", d);
		break;
	case GB_CROSS_UNDECIDED:
		/* not this GPU's failure: the run's (gb_stress_cross_tie) */
		add(j, "cross_gpu", GB_STATUS_WARNING, NAN, NAN,
		    "results differ between GPUs %s and no majority names the outlier: not "
		    "this GPU's failure, the run's cross_gpu check fails", d);
		break;
	default:
		add(j, "cross_gpu", GB_STATUS_SKIPPED, NAN, NAN,
		    "no other GPU of the same model ran the same computation %s", d);
		break;
	}
}

/*
 * Repeat-and-compare, and what the pinned algorithms' self-check said: a
 * phase with no bit-reproducible algorithm was not compared, which is a
 * warning (a library property, or a fault that shows as non-determinism:
 * the other layers still ran), never a silent pass.
 */
static void judge_repeat(struct judge *j, const struct gb_stress_obs *o)
{
	const char *note = o->repeat_note;

	if (!o->repeat_on) {
		add(j, "repeat", GB_STATUS_SKIPPED, NAN, NAN, "turned off (--no-repeat)");
		return;
	}
	if (o->repeat_mismatches) {
		add(j, "repeat", GB_STATUS_FAILED, (double)o->repeat_mismatches, 0,
		    "%llu elements differ from the same GEMM's earlier result%s%s",
		    (unsigned long long)o->repeat_mismatches, note[0] ? "; " : "", note);
		return;
	}
	if (skip_unfinished(j, o, "repeat"))
		return;
	if (o->repeat_uncompared)
		add(j, "repeat", GB_STATUS_WARNING, 0, 0,
		    "no mismatch, but %zu phase%s could not be compared: %s", o->repeat_uncompared,
		    o->repeat_uncompared > 1 ? "s" : "", note);
	else
		add(j, "repeat", GB_STATUS_PASSED, 0, 0, "no mismatch%s%s%s", note[0] ? " (" : "",
		    note, note[0] ? ")" : "");
}

static void judge_verification(struct judge *j, const struct gb_stress_obs *o)
{
	if (o->memtest) {
		judge_layer(j, o, "memtest", true, o->mem_errors, "",
			    "memory words read back wrong", NULL);
		return;
	}
	judge_layer(j, o, "abft", o->abft_on, o->abft_mismatches, "--no-abft",
		    "row or column checksums outside the rounding-error bound", &o->abft_first);
	judge_layer(j, o, "exact", o->exact_on, o->exact_mismatches, "--no-exact",
		    "checksums of exact integer products differ", &o->exact_first);
	judge_repeat(j, o);
	judge_cross(j, o);
	if (o->nan_count)
		add(j, "nan", GB_STATUS_FAILED, (double)o->nan_count, 0,
		    "%llu NaN or infinite result elements", (unsigned long long)o->nan_count);
	else if (!skip_unfinished(j, o, "nan"))
		add(j, "nan", GB_STATUS_PASSED, 0, 0, "no NaN or infinity");
}

static void judge_temperature(struct judge *j, const struct gb_stress_obs *o,
			      const struct gb_stress_thresholds *th)
{
	if (!o->n_temp)
		add(j, "temperature", GB_STATUS_SKIPPED, NAN, th->temp_limit_c,
		    "temperature could not be read");
	else if (o->temp_max > th->temp_limit_c)
		add(j, "temperature", GB_STATUS_FAILED, o->temp_max, th->temp_limit_c,
		    "reached %.0f C, above the %.0f C limit", o->temp_max, th->temp_limit_c);
	else
		add(j, "temperature", GB_STATUS_PASSED, o->temp_max, th->temp_limit_c,
		    "at most %.0f C (limit %.0f C)", o->temp_max, th->temp_limit_c);
}

/* The share of clock-event samples that count covers; NaN when none could be read. */
double sampled_share(const struct gb_stress_obs *o, uint64_t count)
{
	return o->n_reasons ? (double)count / (double)o->n_reasons : NAN;
}

/* "hw_slowdown 3.0%, sw_thermal 1.0%" for the bits of mask that were seen */
static void reason_shares(const struct gb_stress_obs *o, uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < GB_CLOCK_REASON_COUNT && used < len; i++) {
		int b = __builtin_ctzll(gb_clock_reasons[i].bit), w;

		if (!(mask & gb_clock_reasons[i].bit) || b >= GB_STRESS_REASON_BITS ||
		    !o->reason_samples[b])
			continue;
		w = snprintf(buf + used, len - used, "%s%s %.1f%%", used ? ", " : "",
			     gb_clock_reasons[i].name,
			     100.0 * sampled_share(o, o->reason_samples[b]));
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* " (sampled)" or " (exact, NVML violation counter)": where a share came from */
static const char *share_source(bool exact)
{
	return exact ? " (exact, NVML violation counter)" : " (sampled)";
}

/*
 * The throttle rule: the sampled share of the mask's reasons, and, where
 * NVML counts it, the exact share of time in thermal slowdown (sw_thermal;
 * the counters do not cover hw_slowdown, hw_thermal or hw_power_brake, so
 * the samples stay the judge of those). Either over the limit fails; an
 * exact share is a duration, so it needs no minimum count of samples.
 */
static void judge_throttle(struct judge *j, const struct gb_stress_obs *o,
			   const struct gb_stress_thresholds *th)
{
	double thermal = (o->throttle_mask & GB_CLK_SW_THERMAL)
				 ? gb_stress_viol_share(&o->viol, GB_VIOL_THERMAL)
				 : NAN;
	double share = sampled_share(o, o->throttled_samples);
	bool sampled_over = o->n_reasons && share > th->throttle_share_max &&
			    o->throttled_samples >= th->throttle_min_samples;
	bool exact_over = !isnan(thermal) && thermal > th->throttle_share_max;
	double observed = isnan(share) || thermal > share ? thermal : share;
	char list[192] = "", exact[96] = "", what[400];

	if (o->n_reasons)
		reason_shares(o, o->throttle_mask, list, sizeof(list));
	if (!isnan(thermal))
		snprintf(exact, sizeof(exact), "; thermal slowdown %.1f%% of the time%s",
			 100 * thermal, share_source(true));
	if (!o->n_reasons && !exact_over) {
		add(j, "throttle", GB_STATUS_SKIPPED, NAN, th->throttle_share_max,
		    "clock-event reasons could not be read%s", exact);
		return;
	}
	snprintf(what, sizeof(what), "throttled %.1f%% of the time%s%s%s%s", 100 * observed,
		 list[0] ? " (" : "", list, list[0] ? ")" : "", exact);
	if (sampled_over || exact_over)
		add(j, "throttle", GB_STATUS_FAILED, observed, th->throttle_share_max,
		    "%s, above %.1f%%", what, 100 * th->throttle_share_max);
	else
		add(j, "throttle", GB_STATUS_PASSED, observed, th->throttle_share_max, "%s", what);
}

/*
 * The power-cap rule prefers NVML's power violation counter (exact time at
 * the power limit) to the share of samples showing sw_power_cap.
 */
static void judge_power_cap(struct judge *j, const struct gb_stress_obs *o,
			    const struct gb_stress_thresholds *th)
{
	double cap = gb_stress_viol_share(&o->viol, GB_VIOL_POWER);
	bool exact = !isnan(cap);

	if (!exact && !o->n_reasons) {
		add(j, "power_cap", GB_STATUS_SKIPPED, NAN, th->power_cap_share_warn,
		    "clock-event reasons could not be read");
		return;
	}
	if (!exact)
		cap = sampled_share(o, o->reason_samples[__builtin_ctzll(GB_CLK_SW_POWER_CAP)]);
	if (cap > th->power_cap_share_warn)
		add(j, "power_cap", GB_STATUS_WARNING, cap, th->power_cap_share_warn,
		    "held at the power limit %.1f%% of the time%s: clocks and throughput are "
		    "below boost",
		    100 * cap, share_source(exact));
	else
		add(j, "power_cap", GB_STATUS_PASSED, cap, th->power_cap_share_warn,
		    "power-capped %.1f%% of the time%s", 100 * cap, share_source(exact));
}

static void judge_clocks(struct judge *j, const struct gb_stress_obs *o,
			 const struct gb_stress_thresholds *th)
{
	judge_throttle(j, o, th);
	judge_power_cap(j, o, th);
}

/* after - before, or -1 when either is unknown */
int64_t delta(int64_t before, int64_t after)
{
	return before < 0 || after < 0 ? -1 : after - before;
}

static void judge_counter(struct judge *j, const char *name, int64_t d, int64_t limit,
			  enum gb_status over, const char *what)
{
	if (d < 0)
		add(j, name, GB_STATUS_SKIPPED, NAN, (double)limit, "%s could not be read", what);
	else if (d > limit)
		add(j, name, over, (double)d, (double)limit, "%lld new %s during the run (limit %lld)",
		    (long long)d, what, (long long)limit);
	else
		add(j, name, GB_STATUS_PASSED, (double)d, (double)limit, "%lld new %s",
		    (long long)d, what);
}

/*
 * With ECC off the driver counts no ECC error and remaps no row (a GeForce
 * card, or ECC turned off): "0 new errors" would be a pass for a check that
 * cannot fail, so each of those rules is skipped and says why.
 */
static void judge_ecc_off(struct judge *j, const struct gb_stress_obs *o,
			  const struct gb_stress_thresholds *th)
{
	add(j, "ecc_dbe", GB_STATUS_SKIPPED, NAN, (double)th->ecc_dbe_max,
	    "ECC is off on GPU %d: uncorrectable memory errors are not counted", o->device);
	add(j, "ecc_sbe", GB_STATUS_SKIPPED, NAN, (double)th->ecc_sbe_warn,
	    "ECC is off on GPU %d: corrected memory errors are not counted", o->device);
	add(j, "row_remap", GB_STATUS_SKIPPED, NAN, 0,
	    "ECC is off on GPU %d: no row is remapped without it", o->device);
	add(j, "retired_pages", GB_STATUS_SKIPPED, NAN, 0,
	    "ECC is off on GPU %d: no page is retired without it", o->device);
}

static void judge_memory_repair(struct judge *j, const struct gb_stress_obs *o)
{
	const struct gb_nvml_health *a = &o->after;
	int64_t retired;

	if (a->remap_pending < 0 && a->remap_failed < 0)
		add(j, "row_remap", GB_STATUS_SKIPPED, NAN, 0,
		    "row remapping could not be read on GPU %d (data-center GPUs have it from "
		    "Ampere on)",
		    o->device);
	else if (a->remap_failed == 1 || a->remap_pending == 1)
		add(j, "row_remap", GB_STATUS_FAILED, 1, 0, "row remapping %s%s%s",
		    a->remap_failed == 1 ? "failed" : "", a->remap_failed == 1 && a->remap_pending == 1 ? " and " : "",
		    a->remap_pending == 1 ? "pending: the GPU needs a reset" : "");
	else
		add(j, "row_remap", GB_STATUS_PASSED, 0, 0, "no row remap pending or failed");
	retired = delta(o->before.retired_pages_sbe, a->retired_pages_sbe);
	if (retired >= 0 && delta(o->before.retired_pages_dbe, a->retired_pages_dbe) >= 0)
		retired += delta(o->before.retired_pages_dbe, a->retired_pages_dbe);
	if (a->retired_pending < 0 && retired < 0)
		add(j, "retired_pages", GB_STATUS_SKIPPED, NAN, 0,
		    "page retirement could not be read (replaced by row remapping since Ampere)");
	else if (a->retired_pending == 1)
		add(j, "retired_pages", GB_STATUS_FAILED, 1, 0,
		    "page retirement pending: the GPU needs a reset");
	else if (retired > 0)
		add(j, "retired_pages", GB_STATUS_WARNING, (double)retired, 0,
		    "%lld pages retired during the run", (long long)retired);
	else
		add(j, "retired_pages", GB_STATUS_PASSED, 0, 0, "no page retired or pending");
}

static void judge_links(struct judge *j, const struct gb_stress_obs *o,
			const struct gb_stress_thresholds *th)
{
	int64_t crc = delta(o->before.nvlink_crc_errors, o->after.nvlink_crc_errors);
	int64_t rec = delta(o->before.nvlink_recovery_errors, o->after.nvlink_recovery_errors);

	judge_counter(j, "pcie_replays", delta(o->before.pcie_replays, o->after.pcie_replays),
		      th->pcie_replay_warn, GB_STATUS_WARNING, "PCIe replays");
	if (crc < 0 && rec < 0)
		add(j, "nvlink", GB_STATUS_SKIPPED, NAN, NAN,
		    "GPU %d has no NVLink error counters (no NVLink, or none the driver counts)",
		    o->device);
	else if (crc > th->nvlink_crc_warn || rec > th->nvlink_recovery_warn)
		add(j, "nvlink", GB_STATUS_WARNING, (double)(crc > 0 ? crc : 0) + (rec > 0 ? rec : 0),
		    NAN, "%lld NVLink CRC and %lld recovery errors during the run (limits %lld, %lld)",
		    (long long)crc, (long long)rec, (long long)th->nvlink_crc_warn,
		    (long long)th->nvlink_recovery_warn);
	else
		add(j, "nvlink", GB_STATUS_PASSED, (double)(crc > 0 ? crc : 0) + (rec > 0 ? rec : 0),
		    NAN, "no NVLink errors above the limits");
}

static void judge_xids(struct judge *j, const struct gb_stress_obs *o)
{
	struct gb_stress_check *c;
	char hw[160] = "", other[160] = "";
	size_t n_hw = 0, n_other = 0, uh = 0, uo = 0;

	if (o->xid_watch <= 0) {
		add(j, "xid", GB_STATUS_SKIPPED, NAN, 0, "XID events of GPU %d could not be watched",
		    o->device);
		return;
	}
	for (size_t i = 0; i < o->n_xids; i++) {
		bool is_hw = gb_stress_xid_is_hardware(o->xids[i]);
		char *buf = is_hw ? hw : other;
		size_t *u = is_hw ? &uh : &uo;

		if (*u < sizeof(hw))
			*u += (size_t)snprintf(buf + *u, sizeof(hw) - *u, "%s%llu", *u ? ", " : "",
					       o->xids[i]);
		n_hw += is_hw;
		n_other += !is_hw;
	}
	if (n_hw)
		c = add(j, "xid", GB_STATUS_FAILED, (double)n_hw, 0,
			"hardware XID%s %s during the run%s%s", n_hw > 1 ? "s" : "", hw,
			n_other ? "; also " : "", other);
	else if (n_other)
		c = add(j, "xid", GB_STATUS_WARNING, (double)n_other, 0,
			"XID%s %s during the run (not in the hardware set)", n_other > 1 ? "s" : "",
			other);
	else
		c = add(j, "xid", GB_STATUS_PASSED, 0, 0, "no XID event");
	/* the numbers themselves, for the action (report/fault_action.c) and for jq */
	if (c && o->n_xids) {
		c->xids = o->xids;
		c->n_xids = o->n_xids;
	}
}

/* "fp16 " when the run has several series, else "" */
static const char *series_label(const struct gb_stress_obs *o, size_t series, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s%s", o->tp[series].label, o->tp[series].label[0] ? " " : "");
	return buf;
}

/* "fp64 61.2, fp16 702" of each series' value (NaN: "-") */
static void list_series(const struct gb_stress_obs *o, const double *v, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t s = 0; s < o->n_series && used < len; s++) {
		int w = snprintf(buf + used, len - used, isfinite(v[s]) ? "%s%s %.4g" : "%s%s -",
				 s ? ", " : "", o->tp[s].label, v[s]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Each series against its own settled value: the worst fall decides. */
static void judge_drop(struct judge *j, const struct gb_stress_obs *o,
		       const struct gb_stress_thresholds *th, const double *settled)
{
	double worst = NAN, worst_at = NAN;
	size_t ws = 0;
	char label[16], list[160];

	for (size_t s = 0; s < o->n_series; s++) {
		double at, drop = gb_stress_drop(o, s, &at);

		if (isfinite(drop) && !(drop <= worst)) {
			worst = drop;
			worst_at = at;
			ws = s;
		}
	}
	series_label(o, ws, label, sizeof(label));
	if (o->ran && o->error[0])
		add(j, "throughput_drop", GB_STATUS_SKIPPED, NAN, th->tflops_drop_max,
		    "not judged: the load stopped before its end");
	else if (!o->ran || isnan(worst))
		add(j, "throughput_drop", GB_STATUS_SKIPPED, NAN, th->tflops_drop_max,
		    "too few intervals to judge (needs 3 in the second quarter of %s and 2 in a "
		    "later eighth)",
		    o->steady_from_s > 0 ? "the ramp's final, full-load step" : "the run");
	else if (worst > th->tflops_drop_max)
		add(j, "throughput_drop", GB_STATUS_FAILED, worst, th->tflops_drop_max,
		    "%sfell %.1f%% below its settled %.4g %s from %.0f s, more than %.0f%%", label,
		    100 * worst, settled[ws], o->tp_unit, worst_at, 100 * th->tflops_drop_max);
	else if (o->n_series > 1) {
		list_series(o, settled, list, sizeof(list));
		add(j, "throughput_drop", GB_STATUS_PASSED, worst, th->tflops_drop_max,
		    "each precision stayed within %.1f%% of its settled throughput (%s %s)",
		    100 * (worst > 0 ? worst : 0), list, o->tp_unit);
	} else {
		add(j, "throughput_drop", GB_STATUS_PASSED, worst, th->tflops_drop_max,
		    "stayed within %.1f%% of its settled %.4g %s", 100 * (worst > 0 ? worst : 0),
		    settled[0], o->tp_unit);
	}
}

/*
 * Each series against the same series of the best GPU of the model, with
 * the arithmetic and words every benchmark's peer check uses (peer_math.h).
 */
static void judge_peer(struct judge *j, const struct gb_stress_obs *o,
		       const struct gb_stress_thresholds *th, const double *settled,
		       const double *peer_best)
{
	double worst = NAN;
	size_t ws = 0;
	char who[16], best_who[16], what[24], msg[256];

	for (size_t s = 0; peer_best && s < o->n_series; s++) {
		double pair[2] = { settled[s], peer_best[s] }, below[2];

		if (gb_peer_best(pair, 2, below) < 0)
			continue;
		if (!(below[0] <= worst)) {
			worst = below[0];
			ws = s;
		}
	}
	if (isnan(worst)) {
		if (!peer_best)
			add(j, "peer_throughput", GB_STATUS_SKIPPED, NAN, th->peer_slow_max,
			    "no other GPU of the same model to compare GPU %d with", o->device);
		else
			add(j, "peer_throughput", GB_STATUS_SKIPPED, NAN, th->peer_slow_max,
			    "GPU %d or its peers have no settled throughput to compare (too few "
			    "intervals)",
			    o->device);
		return;
	}
	snprintf(who, sizeof(who), "GPU %d", o->device);
	if (o->peer_best_dev[ws] >= 0)
		snprintf(best_who, sizeof(best_who), "GPU %d", o->peer_best_dev[ws]);
	else
		snprintf(best_who, sizeof(best_who), "a peer");
	snprintf(what, sizeof(what), "%s", o->tp[ws].label[0] ? o->tp[ws].label : "throughput");
	gb_peer_message(msg, sizeof(msg), who, what, settled[ws], peer_best[ws], best_who,
			o->tp_unit, th->peer_slow_max);
	add(j, "peer_throughput",
	    gb_peer_fails(worst, th->peer_slow_max) ? GB_STATUS_FAILED : GB_STATUS_PASSED, worst,
	    th->peer_slow_max, "%s", msg);
}

static void judge_throughput(struct judge *j, const struct gb_stress_obs *o,
			     const struct gb_stress_thresholds *th, const double *peer_best)
{
	double settled[GB_STRESS_MAX_SERIES];

	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++)
		settled[s] = s < o->n_series ? gb_stress_settled(o, s) : NAN;
	judge_drop(j, o, th, settled);
	judge_peer(j, o, th, settled, peer_best);
}

static void judge_telemetry(struct judge *j, const struct gb_stress_obs *o)
{
	if (!o->nvml)
		add(j, "telemetry", GB_STATUS_WARNING, NAN, NAN,
		    "NVML is not available: temperature, clock, ECC and XID rules were skipped");
	else if (o->missing[0])
		add(j, "telemetry", GB_STATUS_WARNING, NAN, NAN,
		    "NVML could not read: %s; the rules that need them were skipped", o->missing);
	else
		add(j, "telemetry", GB_STATUS_PASSED, NAN, NAN, "every telemetry field was read");
}

size_t gb_stress_judge(const struct gb_stress_obs *o, const struct gb_stress_thresholds *th,
		       const double *peer_best, struct gb_stress_check *out, size_t max)
{
	struct judge j = { out, 0, max };
	const struct gb_nvml_health *b = &o->before, *a = &o->after;

	judge_run(&j, o);
	judge_verification(&j, o);
	judge_temperature(&j, o, th);
	judge_clocks(&j, o, th);
	if (o->have_health && o->ecc == 0) {
		judge_ecc_off(&j, o, th);
		judge_links(&j, o, th);
	} else if (o->have_health) {
		judge_counter(&j, "ecc_dbe", delta(b->ecc_dbe_volatile, a->ecc_dbe_volatile),
			      th->ecc_dbe_max, GB_STATUS_FAILED, "uncorrectable (double-bit) ECC errors");
		judge_counter(&j, "ecc_sbe", delta(b->ecc_sbe_volatile, a->ecc_sbe_volatile),
			      th->ecc_sbe_warn, GB_STATUS_WARNING, "corrected (single-bit) ECC errors");
		judge_memory_repair(&j, o);
		judge_links(&j, o, th);
	} else {
		add(&j, "ecc_dbe", GB_STATUS_SKIPPED, NAN, (double)th->ecc_dbe_max,
		    "health counters could not be read");
	}
	judge_xids(&j, o);
	judge_throughput(&j, o, th, peer_best);
	judge_telemetry(&j, o);
	return j.n;
}

/* Whether a GPU failed a verification layer of its own (or lost its context). */
static bool failed_own_checks(const struct gb_stress_obs *o)
{
	return o->abft_mismatches || o->exact_mismatches || o->repeat_mismatches || o->nan_count ||
	       o->cuda_failure[0];
}

/* The GPUs that pass `pick` ("GPU 1", "GPUs 0 and 1", "GPUs 0, 2 and 3"; "" none); their count */
static size_t list_gpus(const struct gb_stress_obs *obs, size_t n,
			bool (*pick)(const struct gb_stress_obs *), char *buf, size_t len)
{
	size_t count = 0, total = 0, used;

	for (size_t i = 0; i < n; i++)
		total += pick(&obs[i]);
	used = (size_t)snprintf(buf, len, "GPU%s", total > 1 ? "s" : "");
	for (size_t i = 0; i < n && used < len; i++) {
		if (!pick(&obs[i]))
			continue;
		count++;
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 count == 1 ? " " : count == total ? " and " : ", ",
					 obs[i].device);
	}
	if (!total)
		buf[0] = '\0';
	return total;
}

static bool undecided(const struct gb_stress_obs *o)
{
	return o->cross_on && o->cross == GB_CROSS_UNDECIDED;
}

static bool undecided_and_failed(const struct gb_stress_obs *o)
{
	return undecided(o) && failed_own_checks(o);
}

size_t gb_stress_cross_tie(const struct gb_stress_obs *obs, size_t n, struct gb_stress_check *out)
{
	char who[96], bad[96];
	size_t n_bad;

	if (!list_gpus(obs, n, undecided, who, sizeof(who)))
		return 0;
	n_bad = list_gpus(obs, n, undecided_and_failed, bad, sizeof(bad));
	out->name = "cross_gpu";
	out->status = GB_STATUS_FAILED;
	out->severity = GB_SEV_ERROR;
	out->observed = out->threshold = NAN;
	snprintf(out->message, sizeof(out->message),
		 "%s computed different results and no majority names the outlier%s%s%s", who,
		 n_bad ? "; " : "", bad, n_bad ? (n_bad > 1 ? " failed their own checks"
						     : " failed its own checks") : "");
	return 1;
}

void gb_stress_add_checks(struct gb_bench_result *b, int device, const struct gb_stress_check *c,
			  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct gb_check *added = gb_bench_add_check(b, c[i].name, c[i].status, c[i].severity,
							    device, c[i].observed, c[i].threshold,
							    "%s", c[i].message);

		gb_check_set_xids(added, c[i].xids, c[i].n_xids);
	}
}
