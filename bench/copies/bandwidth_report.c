/* SPDX-License-Identifier: MIT */
/*
 * bandwidth_report.c - what `gpubench bandwidth` reports of a device: the
 * headline metrics and series of each sweep, the fit t = alpha + n/beta,
 * the per-size spread, the checks (data, spread, PCIe link under load) and
 * extra.devices[]. CPU arithmetic over the result model; reads NVML only to
 * say whether it was loaded.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>

#include "bench/copies/bandwidth_internal.h"
#include "bench/device/nvml.h"
#include "report/theory.h"

/* ---- small helpers ---- */

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* "h2d_ce_pinned", "d2d_sm", "stream_triad" */
void bw_metric_base(char *buf, size_t len, const struct op *op)
{
	if (gb_copy_test_is_stream(op->test))
		snprintf(buf, len, "%s", gb_copy_test_name(op->test));
	else if (op->mem == GB_MEM_DEVICE)
		snprintf(buf, len, "%s_%s", gb_copy_test_name(op->test),
			 gb_copy_method_name(op->method));
	else
		snprintf(buf, len, "%s_%s_%s", gb_copy_test_name(op->test),
			 gb_copy_method_name(op->method), gb_copy_memory_name(op->mem));
}

/* ---- the curve of one test ---- */

static void add_fit_value(struct bw *b, const struct dev_state *st, const char *base,
			  const char *suffix, const char *unit, enum gb_better better, double v,
			  double peak)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_%s", base, suffix);
	gb_bench_add_value(b->res, name, unit, better, st->dev, v, peak);
}

/*
 * The fit t = alpha + n/beta of a sweep. alpha (latency) comes from every
 * size. beta comes from the sizes that measure the path rather than a cache
 * (device tests: a footprint of 2 x L2 or more) and is reported only when
 * that fit can pin it (gb_copy_beta_usable); otherwise extra.devices[].fits
 * says why it is missing, since a short or latency-bound sweep gives a slope
 * that is noise.
 */
static void add_fit(struct bw *b, struct dev_state *st, const char *base, const struct op *op,
		    const struct curve *c, double peak_gbps)
{
	struct gb_alpha_beta all, mem;
	double floor = gb_copy_fit_min_size(op->test, st->info ? st->info->l2_bytes : NAN);
	double largest = gb_copy_counted_bytes(op->test, c->last_size);
	size_t n_all = 0, n_mem = 0;
	bool have_all, have_mem, usable = false;
	char why[256] = "", fl[32];
	cJSON *o = cJSON_CreateObject();

	have_all = gb_copy_fit(op->test, c->size, c->gbps, c->n, 0, &all, &n_all) == 0;
	have_mem = floor > 0 ? gb_copy_fit(op->test, c->size, c->gbps, c->n, floor, &mem, &n_mem) == 0
			     : have_all;
	if (floor <= 0) {
		mem = all;
		n_mem = n_all;
	}
	if (have_mem) {
		usable = gb_copy_beta_usable(&mem, largest, peak_gbps * 1e9, why, sizeof(why));
	} else if (floor > 0) {
		gb_format_bytes(fl, sizeof(fl), floor);
		snprintf(why, sizeof(why),
			 "fewer than 2 sizes of %s or more (a footprint of twice the L2 cache): "
			 "smaller copies measure the cache",
			 fl);
	} else {
		snprintf(why, sizeof(why), "fewer than 2 sizes with a positive slope to fit");
	}
	if (have_all)
		add_fit_value(b, st, base, "alpha_us", "us", GB_BETTER_LOWER, all.alpha_s * 1e6, NAN);
	if (usable) {
		add_fit_value(b, st, base, "beta_gbps", "GB/s", GB_BETTER_HIGHER, mem.beta_bps / 1e9,
			      peak_gbps);
		add_fit_value(b, st, base, "n_half_bytes", "B", GB_BETTER_LOWER, mem.n_half_bytes,
			      NAN);
	}
	if (have_mem || have_all)
		add_fit_value(b, st, base, "fit_r2", "1", GB_BETTER_NONE,
			      have_mem ? mem.r2 : all.r2, NAN);
	cJSON_AddStringToObject(o, "test", base);
	cJSON_AddNumberToObject(o, "points", (double)c->n);
	cJSON_AddItemToObject(o, "alpha_us", num_or_null(have_all ? all.alpha_s * 1e6 : NAN));
	cJSON_AddItemToObject(o, "beta_min_size", num_or_null(floor > 0 ? floor : NAN));
	cJSON_AddNumberToObject(o, "beta_points", (double)(have_mem ? n_mem : 0));
	cJSON_AddItemToObject(o, "beta_gbps", num_or_null(usable ? mem.beta_bps / 1e9 : NAN));
	cJSON_AddItemToObject(o, "n_half_bytes", num_or_null(usable ? mem.n_half_bytes : NAN));
	cJSON_AddItemToObject(o, "r2", num_or_null(have_mem ? mem.r2 : have_all ? all.r2 : NAN));
	if (!usable)
		cJSON_AddStringToObject(o, "beta_note", why);
	cJSON_AddItemToArray(st->fits, o);
}

/* Per-size spread, and the spread goal (CV <= 2% from 64 MiB) on pinned and device tests. */
static void add_curve_extra(struct dev_state *st, const char *base, const struct op *op,
			    const struct curve *c)
{
	cJSON *pts = cJSON_AddArrayToObject(st->curves, base);
	/* pageable and managed copies ride on the host's memcpy and page faults: recorded,
	 * not judged */
	bool judged = op->mem == GB_MEM_PINNED || op->mem == GB_MEM_DEVICE;
	char size[32];

	for (size_t i = 0; i < c->n; i++) {
		const struct gb_stats *sx = &c->stats[i];
		cJSON *p = cJSON_CreateObject();

		cJSON_AddNumberToObject(p, "bytes", c->size[i]);
		cJSON_AddItemToObject(p, "gbps", num_or_null(c->gbps[i]));
		cJSON_AddItemToObject(p, "cv", num_or_null(sx->n ? sx->cv : NAN));
		cJSON_AddItemToObject(p, "min", num_or_null(sx->n ? sx->min : NAN));
		cJSON_AddItemToObject(p, "max", num_or_null(sx->n ? sx->max : NAN));
		cJSON_AddNumberToObject(p, "n", (double)sx->n);
		cJSON_AddItemToArray(pts, p);
		if (!judged || sx->n < 2 || c->size[i] < GB_COPY_SPREAD_MIN_BYTES)
			continue;
		st->spread_points++;
		if (!gb_copy_spread_high(c->size[i], sx->cv))
			continue;
		st->spread_high++;
		if (sx->cv > st->spread_worst_cv) {
			st->spread_worst_cv = sx->cv;
			gb_format_bytes(size, sizeof(size), c->size[i]);
			snprintf(st->spread_worst, sizeof(st->spread_worst), "%s at %s", base, size);
		}
	}
}

static const char *convention_of(const struct op *op)
{
	if (op->test == GB_CT_D2D)
		return "payload counted once (DRAM traffic is twice this)";
	if (op->test == GB_CT_BIDIR)
		return "both directions summed, each byte counted once per direction";
	if (gb_copy_test_is_stream(op->test))
		return "bytes read plus bytes written";
	return "each byte counted once per direction";
}

static void add_scaled_metric(struct bw *b, struct dev_state *st, const char *name,
			      const double *samples, size_t n_samples, double scale, double peak,
			      const char *desc)
{
	double v[1000];
	size_t n = n_samples < 1000 ? n_samples : 1000;
	struct gb_metric *m;

	for (size_t i = 0; i < n; i++)
		v[i] = samples[i] * scale;
	m = gb_bench_add_metric(b->res, name, "GB/s", GB_BETTER_HIGHER, st->dev, v, n, peak);
	m->description = gb_strdup(desc);
}

void bw_report_curve(struct bw *b, struct dev_state *st, const struct op *op,
		     const struct curve *c)
{
	double peak = gb_copy_ceiling_bps(op->test, &st->theory) / 1e9;
	char base[64], name[96], size[32], desc[256];
	struct gb_series *series;

	if (c->n == 0)
		return;
	bw_metric_base(base, sizeof(base), op);
	gb_format_bytes(size, sizeof(size), c->last_size);
	snprintf(name, sizeof(name), "%s_gbps", base);
	snprintf(desc, sizeof(desc), "%s at %s; decimal GB/s, %s", base, size, convention_of(op));
	add_scaled_metric(b, st, name, b->last, b->n_last, 1.0, peak, desc);
	if (op->test == GB_CT_D2D) {
		snprintf(name, sizeof(name), "%s_dram_gbps", base);
		snprintf(desc, sizeof(desc), "%s at %s as DRAM traffic: bytes read plus written",
			 base, size);
		add_scaled_metric(b, st, name, b->last, b->n_last, 2.0, st->theory.mem_bw_bps / 1e9,
				  desc);
	}
	for (int i = 0; i < 2 && op->test == GB_CT_BIDIR && op->nstreams == 2; i++) {
		if (!b->n_half[i])
			continue;
		snprintf(name, sizeof(name), "%s_%s_gbps", base, i ? "d2h" : "h2d");
		snprintf(desc, sizeof(desc),
			 "the %s half of %s at %s, timed while %s ran twice as many copies, so "
			 "under two-way load throughout",
			 i ? "d2h" : "h2d", base, size, i ? "h2d" : "d2h");
		add_scaled_metric(b, st, name, b->half[i], b->n_half[i], 1.0,
				  st->theory.pcie_bps / 1e9, desc);
	}
	series = gb_bench_add_series(b->res, base, "B", "GB/s", st->dev);
	for (size_t i = 0; i < c->n; i++)
		gb_series_push(series, c->size[i], c->gbps[i]);
	add_curve_extra(st, base, op, c);
	add_fit(b, st, base, op, c, peak);
}

/* ---- checks and extra ---- */

void bw_check_data(struct bw *b, const struct dev_state *st)
{
	if (!b->verify) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, NAN, "verification disabled by --no-verify");
	} else if (st->mismatches < 0) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, NAN, "no copy ran, so nothing was verified");
	} else if (st->mismatches > 0) {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_FAILED, GB_SEV_ERROR, st->dev,
				   (double)st->mismatches, 0,
				   "copied data is wrong: %lld 16-byte words in all; first %s",
				   st->mismatches, st->first_bad);
	} else {
		gb_bench_add_check(b->res, "data_verified", GB_STATUS_PASSED, GB_SEV_INFO, st->dev, 0,
				   0, "every copy of every sample matched its source pattern");
	}
}

/* The run-to-run spread goal of issue 5: CV at most 2% from 64 MiB up. */
void bw_check_spread(struct bw *b, const struct dev_state *st)
{
	if (st->spread_points == 0)
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_SKIPPED, GB_SEV_INFO, st->dev,
				   NAN, GB_COPY_SPREAD_MAX_CV,
				   "no pinned or device test ran at 64 MiB or more with 2 samples or "
				   "more: the spread goal was not judged");
	else if (st->spread_high)
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_WARNING, GB_SEV_WARNING,
				   st->dev, st->spread_worst_cv, GB_COPY_SPREAD_MAX_CV,
				   "samples spread more than %.0f%% (CV) at %d of %d sizes of 64 MiB "
				   "or more; worst %.1f%% (%s): clocks, the link or other load moved "
				   "during the run",
				   GB_COPY_SPREAD_MAX_CV * 100, st->spread_high, st->spread_points,
				   st->spread_worst_cv * 100, st->spread_worst);
	else
		gb_bench_add_check(b->res, "sample_spread", GB_STATUS_PASSED, GB_SEV_INFO, st->dev,
				   NAN, GB_COPY_SPREAD_MAX_CV,
				   "samples within %.0f%% (CV) at all %d sizes of 64 MiB or more",
				   GB_COPY_SPREAD_MAX_CV * 100, st->spread_points);
}

/*
 * The link as read under load, as values the run's thresholds can judge (and
 * a --thresholds file relax). No peak: the thresholds take the link's
 * maximum from the device record, as for any other benchmark's reading.
 */
void bw_add_link_metrics(struct bw *b, const struct dev_state *st)
{
	struct gb_metric *m;

	if (st->link_gen > 0) {
		m = gb_bench_add_value(b->res, "pcie_gen_under_load", "gen", GB_BETTER_HIGHER,
				       st->dev, st->link_gen, NAN);
		m->description = gb_strdup("PCIe generation NVML reported while pinned copies of "
					   "512 MiB or more a sample ran (best reading)");
	}
	if (st->link_width > 0) {
		m = gb_bench_add_value(b->res, "pcie_width_under_load", "lanes", GB_BETTER_HIGHER,
				       st->dev, st->link_width, NAN);
		m->description = gb_strdup("PCIe width NVML reported while pinned copies of "
					   "512 MiB or more a sample ran (best reading)");
	}
}

void bw_check_link(struct bw *b, const struct dev_state *st)
{
	const struct gb_device_info *d = st->info;
	char msg[256];
	int r;

	if (st->link_gen < 0) {
		gb_bench_add_check(b->res, "pcie_link_under_load", GB_STATUS_SKIPPED, GB_SEV_INFO,
				   st->dev, NAN, NAN, "%s",
				   gb_nvml_loaded()
					   ? "no pinned host copy ran long enough (512 MiB a sample at "
					     "the largest size) for the link to be read under load"
					   : "NVML not loaded: the link could not be read under load");
		return;
	}
	r = gb_pcie_downtrain(st->link_gen, st->link_width, d ? d->pcie_max_gen : -1,
			      d ? d->pcie_max_width : -1, msg, sizeof(msg));
	if (r < 0)
		gb_bench_add_check(b->res, "pcie_link_under_load", GB_STATUS_SKIPPED, GB_SEV_INFO,
				   st->dev, NAN, NAN, "%s", msg);
	else
		gb_bench_add_check(b->res, "pcie_link_under_load",
				   r ? GB_STATUS_FAILED : GB_STATUS_PASSED,
				   r ? GB_SEV_ERROR : GB_SEV_INFO, st->dev,
				   gb_pcie_bandwidth_bps(st->link_gen, st->link_width) / 1e9,
				   gb_pcie_bandwidth_bps(d->pcie_max_gen, d->pcie_max_width) / 1e9,
				   "%s", msg);
}

/* What the GPU looked like while this device's tests ran ("are the clocks locked?"). */
static void add_telemetry(struct bw *b, size_t k, cJSON *o)
{
	struct gb_telemetry_summary sum;
	cJSON *t;

	if (!b->sampler)
		return;
	gb_sampler_summary(b->sampler, k, &sum);
	if (!sum.valid)
		return;
	t = cJSON_AddObjectToObject(o, "telemetry");
	cJSON_AddNumberToObject(t, "samples", (double)sum.n);
	cJSON_AddItemToObject(t, "sm_mhz_mean", num_or_null(sum.sm_mhz_mean));
	cJSON_AddItemToObject(t, "sm_mhz_min", num_or_null(sum.sm_mhz_min));
	cJSON_AddItemToObject(t, "mem_mhz_mean", num_or_null(sum.mem_mhz_mean));
	cJSON_AddItemToObject(t, "power_w_max", num_or_null(sum.power_w_max));
	cJSON_AddItemToObject(t, "temp_c_max", num_or_null(sum.temp_c_max));
	cJSON_AddItemToObject(t, "throttled_frac", num_or_null(sum.throttled_frac));
}

/* Where host buffers and the thread were placed, and what the kernel says of the pages. */
static void add_host_extra(const struct dev_state *st, cJSON *o)
{
	cJSON_AddItemToObject(o, "host_node", num_or_null(st->host_node >= 0 ? st->host_node : NAN));
	if (st->host_node_from)
		cJSON_AddStringToObject(o, "host_node_from", st->host_node_from);
	else
		cJSON_AddNullToObject(o, "host_node_from");
	if (st->host_node_note[0])
		cJSON_AddStringToObject(o, "host_node_note", st->host_node_note);
	cJSON_AddBoolToObject(o, "numa_bound", st->numa_bound);
	cJSON_AddItemToObject(o, "pinned_node_observed",
			      num_or_null(st->pinned_node_seen >= 0 ? st->pinned_node_seen : NAN));
	cJSON_AddItemToObject(o, "pinned_on_node_fraction",
			      num_or_null(st->pinned_node_seen >= 0 ? st->pinned_node_frac : NAN));
	cJSON_AddItemToObject(o, "pageable_node_observed",
			      num_or_null(st->pageable_node_seen >= 0 ? st->pageable_node_seen
								      : NAN));
	cJSON_AddItemToObject(o, "pageable_on_node_fraction",
			      num_or_null(st->pageable_node_seen >= 0 ? st->pageable_node_frac
								      : NAN));
	cJSON_AddBoolToObject(o, "cpus_pinned", st->cpus_pinned);
	if (st->cpus[0])
		cJSON_AddStringToObject(o, st->cpus_pinned ? "cpus" : "cpus_note", st->cpus);
	cJSON_AddStringToObject(o, "managed_host_location",
				st->managed_host.type == cudaMemLocationTypeHost ? "host" : "host_numa");
}

void bw_add_device_extra(struct bw *b, struct dev_state *st, size_t k)
{
	cJSON *o = cJSON_CreateObject(), *link, *th;
	const struct gb_device_info *d = st->info;

	cJSON_AddNumberToObject(o, "device", st->dev);
	cJSON_AddItemToObject(o, "numa_node", num_or_null(d && d->numa_node >= 0 ? d->numa_node
									  : NAN));
	add_host_extra(st, o);
	link = cJSON_AddObjectToObject(o, "pcie_under_load");
	cJSON_AddItemToObject(link, "gen", num_or_null(st->link_gen > 0 ? st->link_gen : NAN));
	cJSON_AddItemToObject(link, "width", num_or_null(st->link_width > 0 ? st->link_width : NAN));
	cJSON_AddItemToObject(link, "max_gen",
			      num_or_null(d && d->pcie_max_gen > 0 ? d->pcie_max_gen : NAN));
	cJSON_AddItemToObject(link, "max_width",
			      num_or_null(d && d->pcie_max_width > 0 ? d->pcie_max_width : NAN));
	th = cJSON_AddObjectToObject(o, "theory_gbps");
	cJSON_AddItemToObject(th, "pcie_per_direction", num_or_null(st->theory.pcie_bps / 1e9));
	cJSON_AddItemToObject(th, "memory", num_or_null(st->theory.mem_bw_bps / 1e9));
	cJSON_AddItemToObject(o, "mismatched_words",
			      num_or_null(st->mismatches >= 0 ? (double)st->mismatches : NAN));
	cJSON_AddItemToObject(o, "not_run", st->not_run);
	cJSON_AddItemToObject(o, "curves", st->curves);
	cJSON_AddItemToObject(o, "fits", st->fits);
	cJSON_AddItemToObject(o, "notes", st->notes);
	st->not_run = st->curves = st->fits = st->notes = NULL;
	add_telemetry(b, k, o);
	cJSON_AddItemToArray(b->dev_extra, o);
}
