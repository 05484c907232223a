/* SPDX-License-Identifier: MIT */
/*
 * stress_obs_math.c - the observations of `gpubench stress`,
 * CPU-only: what the workers and the monitor gathered for one GPU during a
 * run (counters, telemetry samples, throughput series, XIDs, NVML violation
 * counters) joined into one struct gb_stress_obs, the steady window and its
 * drop, and the metrics the report gets from them. The rules that judge
 * them are in stress_verdict_math.c. May use the C library and cJSON; no
 * CUDA.
 */
#include "bench/stress/stress_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/device/peer_math.h"
#include "bench/stress/stress_math_internal.h"

/* ======================================================================= */
/* observations                                                            */

void gb_stress_obs_init(struct gb_stress_obs *o, int device)
{
	memset(o, 0, sizeof(*o));
	o->device = device;
	o->temp_max = o->power_max = NAN;
	o->throttle_mask = GB_STRESS_THROTTLE_DEFAULT;
	o->cross = GB_CROSS_NONE;
	o->tp_unit = "TFLOP/s";
	o->n_series = 1;
	o->abft_max_ratio = NAN;
	gb_stress_corrupt_init(&o->abft_first);
	gb_stress_corrupt_init(&o->exact_first);
	o->before.ecc_dbe_volatile = o->after.ecc_dbe_volatile = -1;
	o->ecc = -1;
	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++)
		o->peer_best_dev[s] = -1;
	gb_stress_viol_init(&o->viol);
}

void gb_stress_viol_init(struct gb_stress_viol *v)
{
	memset(v, 0, sizeof(*v));
	v->start_s = v->end_s = NAN;
}

double gb_stress_time_share(bool ok_before, uint64_t before_ns, bool ok_after, uint64_t after_ns,
			    double window_ns)
{
	double share;

	if (!ok_before || !ok_after || !(window_ns > 0) || !isfinite(window_ns) ||
	    after_ns < before_ns)
		return NAN;
	share = (double)(after_ns - before_ns) / window_ns;
	return share > 1.0 ? 1.0 : share;
}

double gb_stress_viol_share(const struct gb_stress_viol *v, enum gb_nvml_viol kind)
{
	if ((unsigned)kind >= GB_VIOL_KINDS)
		return NAN;
	return gb_stress_time_share(v->start.ok[kind], v->start.ns[kind], v->end.ok[kind],
				    v->end.ns[kind], (v->end_s - v->start_s) * 1e9);
}

void gb_stress_obs_release(struct gb_stress_obs *o)
{
	for (size_t s = 0; s < GB_STRESS_MAX_SERIES; s++) {
		free(o->tp[s].t);
		free(o->tp[s].v);
		o->tp[s].t = o->tp[s].v = NULL;
		o->tp[s].n = o->tp[s].cap = 0;
	}
}

void gb_stress_obs_series(struct gb_stress_obs *o, size_t n, const char *const *labels)
{
	if (n < 1)
		n = 1;
	if (n > GB_STRESS_MAX_SERIES)
		n = GB_STRESS_MAX_SERIES;
	o->n_series = n;
	for (size_t s = 0; s < n; s++)
		snprintf(o->tp[s].label, sizeof(o->tp[s].label), "%s",
			 labels && labels[s] ? labels[s] : "");
}

const char *gb_stress_series_name(const struct gb_stress_obs *o, size_t series, char *buf,
				  size_t len)
{
	const char *base = o->memtest ? "mem_gbps" : "tflops";
	const char *label = series < GB_STRESS_MAX_SERIES ? o->tp[series].label : "";

	snprintf(buf, len, "%s%s%s", base, label[0] ? "_" : "", label);
	return buf;
}

void gb_stress_obs_add_abft_ratio(struct gb_stress_obs *o, double ratio)
{
	if (isnan(ratio) || ratio < 0)
		return;
	if (isnan(o->abft_max_ratio) || ratio > o->abft_max_ratio)
		o->abft_max_ratio = ratio;
}

void gb_stress_obs_add_algo_pick(struct gb_stress_obs *o, const struct gb_stress_algo_pick *p,
				 const char *what)
{
	char note[256];
	size_t used = strlen(o->repeat_note);

	o->repeat_uncompared += p->chosen < 0 && p->n_tried > 0;
	gb_stress_algo_pick_note(p, what, note, sizeof(note));
	if (note[0] && used < sizeof(o->repeat_note))
		snprintf(o->repeat_note + used, sizeof(o->repeat_note) - used, "%s%s",
			 used ? "; " : "", note);
}

void gb_stress_obs_add_sample(struct gb_stress_obs *o, const struct gb_telemetry_sample *s)
{
	o->n_samples++;
	if (isfinite(s->temp_c)) {
		o->temp_max = o->n_temp++ ? fmax(o->temp_max, s->temp_c) : s->temp_c;
	}
	if (isfinite(s->power_w)) {
		o->power_sum += s->power_w;
		o->power_max = o->n_power++ ? fmax(o->power_max, s->power_w) : s->power_w;
	}
	if (isfinite(s->sm_mhz)) {
		o->n_sm++;
		o->sm_sum += s->sm_mhz;
	}
	o->n_mem += isfinite(s->mem_mhz);
	o->n_util += isfinite(s->util_pct);
	if (!s->have_reasons)
		return;
	o->n_reasons++;
	for (int b = 0; b < GB_STRESS_REASON_BITS; b++)
		o->reason_samples[b] += (s->clock_event_reasons >> b) & 1;
	/* any throttling bit counts once per sample: bitmask, never equality (gpu-fryer's bug) */
	o->throttled_samples += (s->clock_event_reasons & o->throttle_mask) != 0;
}

void gb_stress_obs_add_throughput(struct gb_stress_obs *o, size_t series, double t, double v)
{
	struct gb_stress_tp *tp = &o->tp[series < GB_STRESS_MAX_SERIES ? series : 0];

	if (!isfinite(v) || v < 0 || !isfinite(t) || series >= o->n_series)
		return;
	if (tp->n == tp->cap) {
		size_t cap = tp->cap ? tp->cap * 2 : 64;
		double *nt = realloc(tp->t, cap * sizeof(double));
		double *nv;

		if (!nt)
			return;
		tp->t = nt;
		nv = realloc(tp->v, cap * sizeof(double));
		if (!nv)
			return;
		tp->v = nv;
		tp->cap = cap;
	}
	tp->t[tp->n] = t;
	tp->v[tp->n] = v;
	tp->n++;
	if (t > o->load_s)
		o->load_s = t;
}

void gb_stress_obs_add_xid(struct gb_stress_obs *o, unsigned long long xid)
{
	if (o->n_xids < GB_STRESS_MAX_XIDS)
		o->xids[o->n_xids++] = xid;
}

void gb_stress_obs_missing(struct gb_stress_obs *o, const char *field)
{
	size_t n = strlen(field), used = strlen(o->missing);

	for (const char *p = o->missing; *p;) {
		size_t l = strcspn(p, ",");

		if (l == n && !strncmp(p, field, n))
			return;
		p += l + (p[l] == ',');
	}
	snprintf(o->missing + used, sizeof(o->missing) - used, "%s%s", used ? "," : "", field);
}

/* median of the series' samples with t in [lo, hi); NaN with fewer than min_n */
static double window_median(const struct gb_stress_tp *tp, double lo, double hi, size_t min_n,
			    bool last)
{
	double *v = malloc((tp->n ? tp->n : 1) * sizeof(double)), r;
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < tp->n; i++)
		if (tp->t[i] >= lo && (tp->t[i] < hi || (last && tp->t[i] <= hi)))
			v[n++] = tp->v[i];
	r = n >= min_n ? gb_percentile(v, n, 50.0) : NAN;
	free(v);
	return r;
}

/*
 * The stretch of the load the throughput rules judge: [*from, *from + *len]
 * from steady_from_s to the end. Every interval in it ran at one load
 * level, so a change of throughput in it is the GPU's and not the profile's.
 * false when it is empty (a ramp stopped before its final step).
 */
static bool steady_span(const struct gb_stress_obs *o, double *from, double *len)
{
	*from = o->steady_from_s > 0 ? o->steady_from_s : 0;
	*len = o->load_s - *from;
	return *len > 0;
}

double gb_stress_settled(const struct gb_stress_obs *o, size_t series)
{
	double s0, l;

	if (!steady_span(o, &s0, &l) || series >= o->n_series)
		return NAN;
	return window_median(&o->tp[series], s0 + l / 4, s0 + l / 2, 3, false);
}

double gb_stress_drop(const struct gb_stress_obs *o, size_t series, double *at)
{
	double settled = gb_stress_settled(o, series), worst = NAN, worst_at = NAN, s0, l;

	if (at)
		*at = NAN;
	if (!(settled > 0) || !steady_span(o, &s0, &l))
		return NAN;
	for (int w = 0; w < 4; w++) {
		double lo = s0 + l / 2 + w * l / 8;
		double med = window_median(&o->tp[series], lo, lo + l / 8, 2, w == 3);

		if (isfinite(med) && !(med >= worst)) {
			worst = med;
			worst_at = lo;
		}
	}
	if (!isfinite(worst))
		return NAN;
	if (at)
		*at = worst_at;
	return 1.0 - worst / settled;
}

/* ======================================================================= */
/* metrics                                                                 */

static void add_count(struct gb_bench_result *b, const char *name, int device, double v,
		      const char *what)
{
	struct gb_metric *m = gb_bench_add_value(b, name, "count", GB_BETTER_LOWER, device, v, NAN);

	m->description = gb_strdup(what);
}

/* A share of the load's time (lower is better), described */
static void add_fraction(struct gb_bench_result *b, const struct gb_stress_obs *o,
			 const char *name, double v, const char *what)
{
	struct gb_metric *m =
		gb_bench_add_value(b, name, "fraction", GB_BETTER_LOWER, o->device, v, NAN);

	m->description = gb_strdup(what);
}

static void add_share(struct gb_bench_result *b, const struct gb_stress_obs *o, const char *name,
		      uint64_t count, const char *what)
{
	add_fraction(b, o, name, sampled_share(o, count), what);
}

/* null where the driver has no violation counters */
static void add_exact_share(struct gb_bench_result *b, const struct gb_stress_obs *o,
			    const char *name, enum gb_nvml_viol kind, const char *what)
{
	add_fraction(b, o, name, gb_stress_viol_share(&o->viol, kind), what);
}

static void add_health_metrics(struct gb_bench_result *b, const struct gb_stress_obs *o)
{
	const struct gb_nvml_health *x = &o->before, *y = &o->after;
	bool h = o->have_health;
	bool ecc = h && o->ecc != 0; /* ECC off counts nothing: null, not 0 */

	add_count(b, "ecc_sbe_delta", o->device,
		  ecc ? (double)delta(x->ecc_sbe_volatile, y->ecc_sbe_volatile) : NAN,
		  "corrected ECC errors during the run (volatile count, after - before)");
	add_count(b, "ecc_dbe_delta", o->device,
		  ecc ? (double)delta(x->ecc_dbe_volatile, y->ecc_dbe_volatile) : NAN,
		  "uncorrectable ECC errors during the run (volatile count, after - before)");
	add_count(b, "pcie_replays_delta", o->device,
		  h ? (double)delta(x->pcie_replays, y->pcie_replays) : NAN,
		  "PCIe replays during the run");
	add_count(b, "nvlink_crc_delta", o->device,
		  h ? (double)delta(x->nvlink_crc_errors, y->nvlink_crc_errors) : NAN,
		  "NVLink CRC errors during the run, all links");
}

/* the delta helper returns -1 for unknown: metrics want NaN there */
static void fix_unknown(struct gb_bench_result *b, size_t from)
{
	for (size_t i = from; i < b->n_metrics; i++)
		if (b->metrics[i].value < 0)
			b->metrics[i].value = NAN;
}

/* One series: its samples per interval, settled, lowest, and the series over time. */
static void add_series_metrics(struct gb_bench_result *b, const struct gb_stress_obs *o,
			       size_t series)
{
	const struct gb_stress_tp *tp = &o->tp[series];
	char base[32], name[64];
	struct gb_series *s;
	double lo = NAN;

	gb_stress_series_name(o, series, base, sizeof(base));
	gb_bench_add_metric(b, base, o->tp_unit, GB_BETTER_HIGHER, o->device, tp->v, tp->n, NAN);
	snprintf(name, sizeof(name), "%s_settled", base);
	gb_bench_add_value(b, name, o->tp_unit, GB_BETTER_HIGHER, o->device,
			   gb_stress_settled(o, series), NAN)
		->description = gb_strdup(
			o->steady_from_s > 0 ? "median of the intervals in the second quarter "
					       "of the ramp's final, full-load step"
					     : "median of the intervals in the second quarter "
					       "of the run");
	for (size_t i = 0; i < tp->n; i++)
		lo = isnan(lo) || tp->v[i] < lo ? tp->v[i] : lo;
	snprintf(name, sizeof(name), "%s_min", base);
	gb_bench_add_value(b, name, o->tp_unit, GB_BETTER_HIGHER, o->device, lo, NAN);
	s = gb_bench_add_series(b, base, "s", o->tp_unit, o->device);
	for (size_t i = 0; i < tp->n; i++)
		gb_series_push(s, tp->t[i], tp->v[i]);
}

void gb_stress_add_metrics(struct gb_bench_result *b, const struct gb_stress_obs *o)
{
	int d = o->device;
	size_t first;

	for (size_t s = 0; s < o->n_series; s++)
		add_series_metrics(b, o, s);
	gb_bench_add_value(b, "temp_c_max", "C", GB_BETTER_LOWER, d, o->n_temp ? o->temp_max : NAN,
			   NAN);
	gb_bench_add_value(b, "power_w_mean", "W", GB_BETTER_NONE, d,
			   o->n_power ? o->power_sum / (double)o->n_power : NAN, NAN);
	gb_bench_add_value(b, "power_w_max", "W", GB_BETTER_NONE, d,
			   o->n_power ? o->power_max : NAN, NAN);
	gb_bench_add_value(b, "sm_mhz_mean", "MHz", GB_BETTER_HIGHER, d,
			   o->n_sm ? o->sm_sum / (double)o->n_sm : NAN, NAN);
	add_share(b, o, "throttle_share", o->throttled_samples,
		  "share of samples with a throttling clock event (hw slowdown, thermal, power brake)");
	add_share(b, o, "power_cap_share",
		  o->reason_samples[__builtin_ctzll(GB_CLK_SW_POWER_CAP)],
		  "share of samples held at the power limit");
	add_exact_share(b, o, "throttle_power_share", GB_VIOL_POWER,
			"share of the load's time held below application clocks by the power "
			"limit (NVML violation counter, exact)");
	add_exact_share(b, o, "throttle_thermal_share", GB_VIOL_THERMAL,
			"share of the load's time held below application clocks by thermal "
			"slowdown (NVML violation counter, exact)");
	if (o->memtest) {
		add_count(b, "mem_errors", d, (double)o->mem_errors, "memory words read back wrong");
	} else {
		add_count(b, "gemms", d, (double)o->gemms, "GEMMs run and verified");
		add_count(b, "abft_mismatches", d, (double)o->abft_mismatches,
			  "checksums outside the bound (random phases)");
		add_count(b, "exact_mismatches", d, (double)o->exact_mismatches,
			  "checksums that differ (exact phases)");
		add_count(b, "repeat_mismatches", d, (double)o->repeat_mismatches,
			  "elements that differ from the reference result");
		add_count(b, "nan_count", d, (double)o->nan_count, "NaN or infinite elements");
		gb_bench_add_value(b, "abft_max_ratio", "ratio", GB_BETTER_LOWER, d,
				   o->abft_on ? o->abft_max_ratio : NAN, NAN)
			->description = gb_strdup(
			"largest |checksum - expected| / bound of the random-phase checksums: the "
			"share of the ABFT bound a result used (above 1 is a mismatch)");
	}
	first = b->n_metrics;
	add_health_metrics(b, o);
	fix_unknown(b, first);
	add_count(b, "xid_count", d, o->xid_watch > 0 ? (double)o->n_xids : NAN,
		  "XID events during the run");
}
