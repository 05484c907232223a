/* SPDX-License-Identifier: MIT */
/*
 * gemm_report.c - what a finished gemm job puts in the result: its
 * extra.runs entry (algorithm, tile, stages, split-K), the throughput
 * metrics and their checks against the peaks (report/theory.h), the
 * --repeat spread, the verification check, and a failed or lost job's
 * error. Fills the result model only (bench/bench.h); never prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/gemm/gemm_internal.h"
#include "bench/device/gpu.h"
#include "bench/device/lost_math.h"
#include "bench/device/nvml.h"

/* ---- reporting ---- */

static double tera(double flops)
{
	return isfinite(flops) && flops > 0 ? flops / 1e12 : NAN;
}

static const char *tile_name(int64_t id)
{
	return id >= 0 && id <= UINT32_MAX ? gb_lt_tile_name((uint32_t)id) : NULL;
}

static const char *stages_name(int64_t id)
{
	return id >= 0 && id <= UINT32_MAX ? gb_lt_stages_name((uint32_t)id) : NULL;
}

/* key: the name, or null when this build has no name for the id (a newer cuBLASLt) */
static void add_name(cJSON *o, const char *key, const char *name)
{
	if (name)
		cJSON_AddStringToObject(o, key, name);
	else
		cJSON_AddNullToObject(o, key);
}

/* The attributes cuBLASLt reported (ids as numbers, tile and stages also named). */
static void add_config(cJSON *o, const struct gb_cublaslt *lt, const cublasLtMatmulAlgo_t *a)
{
	struct gb_lt_algo_config c;

	gb_lt_algo_config(lt, a, &c);
#define GB_CFG_NUM(field, key) \
	if (c.field >= 0)      \
		cJSON_AddNumberToObject(o, key, (double)c.field);
	GB_CFG_NUM(id, "algo_id")
	GB_CFG_NUM(tile, "tile_id")
	if (c.tile >= 0)
		add_name(o, "tile", tile_name(c.tile));
	GB_CFG_NUM(stages, "stages_id")
	if (c.stages >= 0)
		add_name(o, "stages", stages_name(c.stages));
	GB_CFG_NUM(splitk, "splitk")
	GB_CFG_NUM(reduction_scheme, "reduction_scheme")
	GB_CFG_NUM(cta_swizzling, "cta_swizzling")
	GB_CFG_NUM(custom_option, "custom_option")
	GB_CFG_NUM(inner_shape_id, "inner_shape_id")
	GB_CFG_NUM(cluster_shape_id, "cluster_shape_id")
#undef GB_CFG_NUM
}

/* "128x256"; "id 700" for an id this build cannot name; "?" when not reported */
static void lt_name_str(char *buf, size_t len, const char *name, int64_t id)
{
	if (id < 0)
		snprintf(buf, len, "?");
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "id %lld", (long long)id);
}

/*
 * ", algo 66, tile 128x256, stages 64x4, split-K 1" for the job's chosen
 * cuBLASLt algorithm, for progress lines and descriptions; "" when the job
 * has none (an own kernel, or nothing was chosen).
 */
void algo_str(char *buf, size_t len, const struct gb_cublaslt *lt,
	      const struct gemm_job *j)
{
	struct gb_lt_algo_config c;
	char tile[32], stages[32];

	buf[0] = '\0';
	if (!chosen_algo_config(lt, j, &c))
		return;
	lt_name_str(tile, sizeof(tile), tile_name(c.tile), c.tile);
	lt_name_str(stages, sizeof(stages), stages_name(c.stages), c.stages);
	snprintf(buf, len, ", algo %lld, tile %s, stages %s, split-K %lld", (long long)c.id, tile,
		 stages, (long long)c.splitk);
}

cJSON *job_json(const struct gb_cublaslt *lt, const struct gemm_dev *g,
		const struct gemm_job *j)
{
	cJSON *o = cJSON_CreateObject(), *algo, *cands;
	char reasons[256];

	cJSON_AddNumberToObject(o, "device", g->dev);
	cJSON_AddStringToObject(o, "impl", impl_names[j->impl]);
	cJSON_AddStringToObject(o, "precision", gb_precision_name(j->prec));
	cJSON_AddNumberToObject(o, "m", (double)j->s.m);
	cJSON_AddNumberToObject(o, "n", (double)j->s.n);
	cJSON_AddNumberToObject(o, "k", (double)j->s.k);
	cJSON_AddStringToObject(o, "a_type", gb_dtype_name(j->t_ab));
	cJSON_AddStringToObject(o, "d_type", gb_dtype_name(j->t_d));
	cJSON_AddNumberToObject(o, "rotating_copies", (double)j->copies);
	cJSON_AddNumberToObject(o, "rotating_copies_wanted", (double)j->copies_wanted);
	cJSON_AddNumberToObject(o, "gemms_per_sample", (double)j->batch);
	if (j->impl == GEMM_IMPL_CUBLASLT)
		cJSON_AddNumberToObject(o, "preselect_warmup_s", j->preselect_s);
	cJSON_AddNumberToObject(o, "warmup_s", j->warmup_done_s);
	cJSON_AddNumberToObject(o, "warmup_windows", (double)j->warmup_windows);
	cJSON_AddBoolToObject(o, "warmup_settled", j->settled);
	if (j->n_runs > 1) {
		cJSON *runs = cJSON_AddArrayToObject(o, "run_medians");
		double med;

		for (size_t r = 0; r < j->n_runs; r++) {
			med = gb_percentile(j->tflops + r * j->per_run, j->per_run, 50);
			cJSON_AddItemToArray(runs, isfinite(med) ? cJSON_CreateNumber(med)
								 : cJSON_CreateNull());
		}
	}
	if (j->best >= 0 && j->best < j->n_cand) {
		algo = cJSON_AddObjectToObject(o, "algorithm");
		add_config(algo, lt, &j->cand[j->best].algo);
		cJSON_AddNumberToObject(algo, "workspace_bytes",
					(double)j->cand[j->best].workspaceSize);
		cJSON_AddNumberToObject(algo, "waves", j->cand[j->best].wavesCount);
		cJSON_AddNumberToObject(algo, "heuristic_rank", j->best);
		cJSON_AddBoolToObject(algo, "fp8_fast_accum", false);
	}
	if (j->impl != GEMM_IMPL_CUBLASLT && j->plan.grid) {
		cJSON *k = cJSON_AddObjectToObject(o, "kernel");

		cJSON_AddNumberToObject(k, "tile_m", j->plan.tile_m);
		cJSON_AddNumberToObject(k, "tile_n", j->plan.tile_n);
		cJSON_AddNumberToObject(k, "tile_k", j->plan.tile_k);
		cJSON_AddNumberToObject(k, "threads", j->plan.threads);
		cJSON_AddNumberToObject(k, "blocks", j->plan.grid);
		cJSON_AddNumberToObject(k, "stages", j->plan.stages);
		cJSON_AddNumberToObject(k, "smem_bytes",
					(double)(j->plan.smem_bytes + j->plan.smem_static));
		cJSON_AddBoolToObject(k, "vector_loads", j->plan.vector_loads);
		cJSON_AddBoolToObject(k, "edge_tiles", j->plan.edge);
		cJSON_AddBoolToObject(k, "padded_k", j->plan.padded_k);
		cJSON_AddNumberToObject(k, "scratch_bytes", (double)j->plan.scratch_bytes);
	}
	cands = j->impl == GEMM_IMPL_CUBLASLT ? cJSON_AddArrayToObject(o, "candidates") : NULL;
	for (int i = 0; cands && i < j->n_cand; i++) {
		cJSON *c = cJSON_CreateObject();

		add_config(c, lt, &j->cand[i].algo);
		if (isfinite(j->cand_s[i]))
			cJSON_AddNumberToObject(c, "tflops", j->flops / j->cand_s[i] / 1e12);
		else
			cJSON_AddNullToObject(c, "tflops");
		cJSON_AddItemToArray(cands, c);
	}
	if (j->tel.valid) {
		cJSON *t = cJSON_AddObjectToObject(o, "telemetry");

		cJSON_AddNumberToObject(t, "samples", (double)j->tel.n);
		if (isfinite(j->tel.sm_mhz_mean)) {
			cJSON_AddNumberToObject(t, "sm_mhz_mean", j->tel.sm_mhz_mean);
			cJSON_AddNumberToObject(t, "sm_mhz_min", j->tel.sm_mhz_min);
		}
		if (isfinite(j->tel.power_w_mean)) {
			cJSON_AddNumberToObject(t, "power_w_mean", j->tel.power_w_mean);
			cJSON_AddNumberToObject(t, "power_w_max", j->tel.power_w_max);
		}
		if (isfinite(j->tel.temp_c_max))
			cJSON_AddNumberToObject(t, "temp_c_max", j->tel.temp_c_max);
		if (isfinite(j->tel.throttled_frac))
			cJSON_AddNumberToObject(t, "throttled_frac", j->tel.throttled_frac);
		gb_nvml_reasons_str(j->tel.reasons_union, reasons, sizeof(reasons));
		cJSON_AddStringToObject(t, "clock_event_reasons", reasons);
	}
	return o;
}

/* "_8192x8192x8192" when a run measures several shapes, so metric names stay unique */
void name_suffix(char *buf, size_t len, const struct gemm_job *j, bool several)
{
	buf[0] = '\0';
	if (several)
		snprintf(buf, len, "_%llux%llux%llu", (unsigned long long)j->s.m,
			 (unsigned long long)j->s.n, (unsigned long long)j->s.k);
}

/* The peak a precision is judged against: the spec sheet when known, else the max clock. */
double judged_peak(const struct gb_device_info *d, enum gb_precision pp)
{
	double spec = tera(d->peaks.spec[pp]);

	return isfinite(spec) ? spec : tera(d->peaks.max_clock[pp]);
}

/* "" for cuBLASLt, "_sgemm" for an own kernel: metric and check names */
static void impl_tag(char *buf, size_t len, const struct gemm_job *j)
{
	buf[0] = '\0';
	if (j->impl != GEMM_IMPL_CUBLASLT)
		snprintf(buf, len, "_%s", impl_names[j->impl]);
}

/*
 * A metric that is tflops over a fixed reference, in percent: the same
 * samples scaled, so it has tflops's median and spread (compare judges a
 * change by the spread; a single value would let noise in tflops fail it).
 */
static void add_percent_of(struct gb_bench_result *res, const char *name, int dev,
			   const struct gemm_job *j, double ref)
{
	double *pct = gb_xrealloc(NULL, sizeof(double) * (j->n_tflops ? j->n_tflops : 1));

	for (size_t i = 0; i < j->n_tflops; i++)
		pct[i] = 100 * j->tflops[i] / ref;
	gb_bench_add_metric(res, name, "%", GB_BETTER_HIGHER, dev, pct, j->n_tflops, NAN);
	free(pct);
}

/*
 * The metrics of one measured job. For an own kernel, cublas is the
 * cuBLASLt job of the same precision and shape from this run: the ratio of
 * medians becomes pct_of_cublas_<p>_<impl> (absent when cuBLASLt was not
 * measured). algo: algo_str() of the job, for the description.
 */
void report_job(struct gb_bench_result *res, const struct gemm_dev *g,
		const struct gemm_job *j, bool several, const struct gemm_job *cublas,
		const char *algo)
{
	const struct gb_device_info *d = g->info;
	enum gb_precision pp = gb_gemm_peak_precision(j->prec, d->cc_major, d->cc_minor);
	const char *pn = gb_precision_name(j->prec), *unit = gb_gemm_rate_unit(j->prec);
	double maxc = tera(d->peaks.max_clock[pp]);
	char sfx[64], tag[16], name[160], shape[80];
	struct gb_metric *m;

	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	shape_str(shape, sizeof(shape), &j->s);
	snprintf(name, sizeof(name), "tflops_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_metric(res, name, unit, GB_BETTER_HIGHER, g->dev, j->tflops, j->n_tflops,
				judged_peak(d, pp));
	if (j->impl == GEMM_IMPL_CUBLASLT)
		m->description = gb_strdupf("cuBLASLt %s GEMM %s (TN, 2mnk), %llu per sample%s; "
					    "peak: %s %s", pn, shape,
					    (unsigned long long)j->batch, algo,
					    isfinite(tera(d->peaks.spec[pp])) ? "spec sheet"
									      : "max clock",
					    gb_precision_name(pp));
	else
		m->description = gb_strdupf("gpubench's %s kernel, %s GEMM %s (TN, 2mnk), %llu "
					    "per sample; peak: %s %s", impl_names[j->impl], pn,
					    shape, (unsigned long long)j->batch,
					    isfinite(tera(d->peaks.spec[pp])) ? "spec sheet"
									      : "max clock",
					    gb_precision_name(pp));
	if (cublas && cublas->measured && cublas->n_tflops) {
		double ref = gb_percentile(cublas->tflops, cublas->n_tflops, 50);

		snprintf(name, sizeof(name), "pct_of_cublas_%s%s%s", pn, tag, sfx);
		if (ref > 0) {
			add_percent_of(res, name, g->dev, j, ref);
			m = gb_bench_find_metric(res, name, g->dev);
		} else {
			m = gb_bench_add_value(res, name, "%", GB_BETTER_HIGHER, g->dev, NAN, NAN);
		}
		m->description = gb_strdupf("tflops_%s%s%s's samples over the median of "
					    "cuBLASLt's tflops_%s%s, same run", pn, tag, sfx, pn,
					    sfx);
	}
	if (isfinite(maxc) && maxc > 0) {
		snprintf(name, sizeof(name), "pct_of_max_clock_peak_%s%s%s", pn, tag, sfx);
		add_percent_of(res, name, g->dev, j, maxc);
	}
	if (!j->tel.valid)
		return;
	if (isfinite(j->tel.sm_mhz_mean)) {
		double obs = tera(gb_peak_flops(d->cc_major, d->cc_minor, pp,
						gb_product_class_of(d->name, d->brand), d->sm_count,
						j->tel.sm_mhz_mean));

		if (isfinite(obs) && obs > 0) {
			snprintf(name, sizeof(name), "pct_of_observed_clock_peak_%s%s%s", pn, tag,
				 sfx);
			add_percent_of(res, name, g->dev, j, obs);
		}
		snprintf(name, sizeof(name), "sm_mhz_mean_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "MHz", GB_BETTER_NONE, g->dev, j->tel.sm_mhz_mean,
				   NAN);
	}
	if (isfinite(j->tel.power_w_mean)) {
		snprintf(name, sizeof(name), "power_w_mean_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "W", GB_BETTER_NONE, g->dev, j->tel.power_w_mean,
				   NAN);
	}
	if (isfinite(j->tel.temp_c_max)) {
		snprintf(name, sizeof(name), "temp_c_max_%s%s%s", pn, tag, sfx);
		gb_bench_add_value(res, name, "C", GB_BETTER_LOWER, g->dev, j->tel.temp_c_max, NAN);
	}
}

/* ", run-to-run CV 0.31% over 5 runs" with --repeat, for progress lines; else "" */
void repeat_str(char *buf, size_t len, const struct gemm_job *j)
{
	double med[1000];  /* --repeat is at most 1000 */
	size_t n = j->n_runs < 1000 ? j->n_runs : 1000;

	buf[0] = '\0';
	if (n < 2)
		return;
	gb_gemm_run_medians(j->tflops, j->per_run, n, med);
	snprintf(buf, len, ", run-to-run CV %.2f%% over %zu runs", 100 * gb_gemm_cv(med, n), n);
}

/*
 * --repeat: the medians of the job's runs as run_median_tflops_<p> (their
 * spread in its stats) and their CV as run_cv_<p> in %, with a run_cv_<p>
 * check against issue 3's 1% once there are enough runs to judge. A spread
 * above it is a warning, not a failure: the results were right, the GPU
 * did not hold its rate from run to run (clocks, power, temperature).
 */
void report_repeat(struct gb_bench_result *res, const struct gemm_dev *g,
		   const struct gemm_job *j, bool several)
{
	const char *pn = gb_precision_name(j->prec);
	char sfx[64], tag[16], name[160], shape[80], what[48];
	double med[1000], cv;  /* --repeat is at most 1000 */
	size_t n = j->n_runs < 1000 ? j->n_runs : 1000;
	struct gb_metric *m;

	if (n < 2)
		return;
	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	shape_str(shape, sizeof(shape), &j->s);
	job_label(what, sizeof(what), j);
	gb_gemm_run_medians(j->tflops, j->per_run, n, med);
	cv = gb_gemm_cv(med, n);
	snprintf(name, sizeof(name), "run_median_tflops_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_metric(res, name, gb_gemm_rate_unit(j->prec), GB_BETTER_HIGHER, g->dev,
				med, n, NAN);
	m->description = gb_strdupf("median of each of %zu timed phases of %zu samples, back to "
				    "back after one warm-up", n, j->per_run);
	snprintf(name, sizeof(name), "run_cv_%s%s%s", pn, tag, sfx);
	m = gb_bench_add_value(res, name, "%", GB_BETTER_LOWER, g->dev, 100 * cv, NAN);
	m->description = gb_strdupf("coefficient of variation of run_median_tflops_%s%s%s", pn,
				    tag, sfx);
	switch (gb_gemm_run_cv_verdict(cv, n)) {
	case GB_GEMM_CV_WITHIN:
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_INFO, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "the medians of %zu runs of %s %s vary by %.2f%% (CV), within "
				   "%.0f%%", n, what, shape, 100 * cv, 100 * GB_GEMM_RUN_CV_MAX);
		break;
	case GB_GEMM_CV_ABOVE:
		gb_bench_add_check(res, name, GB_STATUS_WARNING, GB_SEV_WARNING, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "the medians of %zu runs of %s %s vary by %.2f%% (CV), above "
				   "%.0f%%: the rate moved between runs (see clocks, power and "
				   "temperature)", n, what, shape, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX);
		break;
	case GB_GEMM_CV_TOO_FEW:
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, 100 * cv,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "%zu runs of %s %s: judging the run-to-run CV takes at least %d",
				   n, what, shape, GB_GEMM_RUN_CV_MIN_RUNS);
		break;
	case GB_GEMM_CV_INVALID:
		gb_bench_add_check(res, name, GB_STATUS_ERROR, GB_SEV_ERROR, g->dev, NAN,
				   100 * GB_GEMM_RUN_CV_MAX,
				   "a run of %s %s has no median: no run-to-run CV", what, shape);
		break;
	}
}

void report_verify(const struct gemm_params *p, struct gb_bench_result *res,
		   const struct gemm_dev *g, const struct gemm_job *j, bool several)
{
	char sfx[64], tag[16], name[160];

	name_suffix(sfx, sizeof(sfx), j, several);
	impl_tag(tag, sizeof(tag), j);
	snprintf(name, sizeof(name), "verify_%s%s%s", gb_precision_name(j->prec), tag, sfx);
	if (!p->verify) {
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, g->dev, NAN, NAN,
				   "verification disabled by --no-verify");
		return;
	}
	if (!j->ver.done)
		return;
	gb_bench_add_check(res, name, j->ver.status,
			   j->ver.status == GB_STATUS_PASSED ? GB_SEV_INFO : GB_SEV_ERROR, g->dev,
			   j->ver.max_err, j->ver.bound, "%s", j->ver.msg);
}

/*
 * A job failed: the GB_*_GOTO macros set the benchmark ERROR with the
 * reason. Record that as a check naming device, precision and shape so the
 * other jobs still run and are reported, and keep an earlier FAILED status:
 * a finding outranks a could-not-run.
 */
void record_error(struct gb_bench_result *res, enum gb_status before, char *before_reason,
		  int dev, const char *name)
{
	char *why = gb_strdup(res->reason ? res->reason : "unknown error");

	if (before == GB_STATUS_FAILED) {
		res->status = GB_STATUS_FAILED;
		free(res->reason);
		res->reason = before_reason;
		before_reason = NULL;
	}
	gb_bench_add_check(res, name, GB_STATUS_ERROR, GB_SEV_ERROR, dev, NAN, NAN, "%s", why);
	free(why);
	free(before_reason);
}

void job_failed(struct gb_bench_result *res, enum gb_status before, char *before_reason,
		const struct gemm_dev *g, const struct gemm_job *j)
{
	char name[160], shape[80];

	shape_str(shape, sizeof(shape), &j->s);
	snprintf(name, sizeof(name), "run_%s_%s", gb_precision_name(j->prec), shape);
	record_error(res, before, before_reason, g->dev, name);
}

/*
 * After an error: true when the device's context is gone and nothing more can
 * run on it. It never blocks (a kernel that hangs is the watchdog's): a sticky
 * error is what every later call answers, so a query of the stream finds it.
 * cuBLASLt answers with its own status codes, so an error met there was not
 * yet judged as sticky: mark the GPU lost here, as gb_cuda_fail() would have.
 */
bool device_lost(struct gb_bench_result *res, const struct gemm_dev *g)
{
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess)
		e = cudaStreamQuery(g->stream);
	if (!gb_cuda_error_is_sticky(e))
		return false;
	if (!gb_bench_device_is_lost(res, g->dev))
		gb_cuda_fail(res, g->dev, "cudaStreamQuery(stream)", e, __FILE__, __LINE__);
	return true;
}

