/* SPDX-License-Identifier: MIT */
/*
 * nccl_math.c - options, sweep, shapes, link theory, rows, summary and the
 * report of `gpubench nccl` (CPU only; see nccl_math.h).
 */
#include "bench/nccl/nccl_math.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/device/copy_math.h"
#include "report/json_util.h"
#include "report/result.h"
#include "report/stats.h"
#include "report/theory.h"

const char *const gb_nccl_coll_names[] = {
	[GB_NCCL_ALLREDUCE] = "allreduce",
	[GB_NCCL_ALLGATHER] = "allgather",
	[GB_NCCL_REDUCESCATTER] = "reducescatter",
	[GB_NCCL_BROADCAST] = "broadcast",
	[GB_NCCL_REDUCE] = "reduce",
	[GB_NCCL_ALLTOALL] = "alltoall",
	[GB_NCCL_COLL_COUNT] = NULL,
};

const char *const gb_nccl_dtype_names[] = {
	[GB_NCCL_INT8] = "int8",     [GB_NCCL_UINT8] = "uint8",	  [GB_NCCL_INT32] = "int32",
	[GB_NCCL_UINT32] = "uint32", [GB_NCCL_INT64] = "int64",	  [GB_NCCL_UINT64] = "uint64",
	[GB_NCCL_HALF] = "half",     [GB_NCCL_FLOAT] = "float",	  [GB_NCCL_DOUBLE] = "double",
	[GB_NCCL_BFLOAT16] = "bfloat16",
	[GB_NCCL_DTYPE_COUNT] = NULL,
};

const char *const gb_nccl_redop_names[] = {
	[GB_NCCL_SUM] = "sum", [GB_NCCL_PROD] = "prod", [GB_NCCL_MAX] = "max",
	[GB_NCCL_MIN] = "min", [GB_NCCL_AVG] = "avg",	[GB_NCCL_REDOP_COUNT] = NULL,
};

size_t gb_nccl_dtype_size(enum gb_nccl_dtype t)
{
	return (size_t)gb_nccl_dtype_bits((int)t) / 8;
}

bool gb_nccl_coll_reduces(enum gb_nccl_coll c)
{
	return c == GB_NCCL_ALLREDUCE || c == GB_NCCL_REDUCESCATTER || c == GB_NCCL_REDUCE;
}

bool gb_nccl_coll_rooted(enum gb_nccl_coll c)
{
	return c == GB_NCCL_BROADCAST || c == GB_NCCL_REDUCE;
}

bool gb_nccl_coll_has_inplace(enum gb_nccl_coll c)
{
	return c != GB_NCCL_ALLTOALL;
}

/* ---- options ---- */

#define P(field) offsetof(struct gb_nccl_params, field)

const struct gb_opt gb_nccl_opts[] = {
	{ GB_OPT_ENUM_LIST, 0, "op", P(colls), "LIST", "collectives to time (default allreduce)", 0,
	  0, gb_nccl_coll_names, 0 },
	{ GB_OPT_SIZE, 'b', "min-bytes", P(min_bytes), "SIZE",
	  "smallest size of the sweep (nccl-tests -b)", 1, 64.0 * (1ULL << 30), NULL, 0 },
	{ GB_OPT_SIZE, 'e', "max-bytes", P(max_bytes), "SIZE",
	  "largest size of the sweep (nccl-tests -e)", 1, 64.0 * (1ULL << 30), NULL, 0 },
	{ GB_OPT_COUNT, 'f', "factor", P(factor), "N",
	  "multiply the size by N at each step (nccl-tests -f)", 2, 1024, NULL, 0 },
	{ GB_OPT_ENUM_LIST, 0, "dtype", P(dtypes), "LIST",
	  "data types, NCCL's names (default float)", 0, 0, gb_nccl_dtype_names, 0 },
	{ GB_OPT_ENUM_LIST, 0, "redop", P(redops), "LIST",
	  "reduction operators of allreduce, reducescatter, reduce (default sum)", 0, 0,
	  gb_nccl_redop_names, 0 },
	{ GB_OPT_COUNT, 0, "iters", P(iters), "N",
	  "timed operations per sample (nccl-tests -n)", 1, 1e6, NULL, 0 },
	{ GB_OPT_COUNT, 0, "samples", P(samples), "N",
	  "timed loops per size: the time is their median, with their spread", 1,
	  GB_NCCL_SAMPLES_MAX, NULL, 0 },
	{ GB_OPT_COUNT, 'w', "warmup-iters", P(warmup), "N",
	  "untimed operations per size before the timed ones (nccl-tests -w)", 0, 1e6, NULL, 0 },
	{ GB_OPT_COUNT, 'r', "root", P(root), "RANK", "root rank of broadcast and reduce", 0, 65535,
	  NULL, 0 },
	{ GB_OPT_BOOL, 0, "inplace", P(inplace), NULL,
	  "time in-place only (default: out-of-place and in-place)", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 0, "outofplace", P(outofplace), NULL,
	  "time out-of-place only (default: out-of-place and in-place)", 0, 0, NULL, 0 },
	{ GB_OPT_BOOL, 'G', "graph", P(graph), NULL,
	  "capture the timed operations in a CUDA graph and replay it: no launch overhead "
	  "(nccl-tests -G)",
	  0, 0, NULL, 0 },
	{ GB_OPT_DURATION, 0, "timeout", P(timeout_s), "TIME",
	  "longest wait for a collective or for another rank before giving up", 1, 86400, NULL, 0 },
	GB_OPT_REFUSED('n', NULL,
		       "is no longer short for '--iters'; use '--iters' ('-n' is '--samples' in "
		       "bandwidth and p2p)"),
	GB_OPT_REFUSED(0, "warmup",
		       "is now '--warmup-iters' (a count of operations; gemm's '--warmup' is "
		       "a time)"),
	{ GB_OPT_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0 },
};

#undef P

void gb_nccl_set_defaults(void *params)
{
	struct gb_nccl_params *p = params;

	memset(p, 0, sizeof(*p));
	p->colls = 1u << GB_NCCL_ALLREDUCE;
	p->dtypes = 1u << GB_NCCL_FLOAT;
	p->redops = 1u << GB_NCCL_SUM;
	p->min_bytes = 8;
	p->max_bytes = 1ULL << 30;
	p->factor = 2;
	p->iters = 20;
	p->samples = 5;
	p->warmup = 5;
	p->root = -1;
	p->timeout_s = 120;
}

int64_t gb_nccl_root(const struct gb_nccl_params *p)
{
	return p->root >= 0 ? p->root : 0;
}

/* Whether colls names broadcast or reduce, the collectives with a root. */
static bool any_rooted(uint32_t colls)
{
	for (int c = 0; c < GB_NCCL_COLL_COUNT; c++)
		if ((colls & (1u << c)) && gb_nccl_coll_rooted((enum gb_nccl_coll)c))
			return true;
	return false;
}

int gb_nccl_validate(const void *params, char *err, size_t errlen)
{
	const struct gb_nccl_params *p = params;
	char a[32], b[32];

	if (p->min_bytes > p->max_bytes) {
		gb_format_bytes(a, sizeof(a), (double)p->min_bytes);
		gb_format_bytes(b, sizeof(b), (double)p->max_bytes);
		snprintf(err, errlen, "--min-bytes (%s) is above --max-bytes (%s)", a, b);
		return -1;
	}
	if (p->factor < 2) {
		snprintf(err, errlen, "--factor must be at least 2 (got %lld)",
			 (long long)p->factor);
		return -1;
	}
	if (p->min_bytes == 0) {
		snprintf(err, errlen, "--min-bytes must be at least 1 B (got 0)");
		return -1;
	}
	if (!p->colls || !p->dtypes || !p->redops) {
		snprintf(err, errlen, "--op, --dtype and --redop each need at least one value");
		return -1;
	}
	if (p->root >= 0 && !any_rooted(p->colls)) {
		snprintf(err, errlen,
			 "'--root' applies only to '--op broadcast' and '--op reduce'; the "
			 "collectives chosen have no root");
		return -1;
	}
	return 0;
}

bool gb_nccl_want_outofplace(const struct gb_nccl_params *p)
{
	return p->outofplace || !p->inplace;
}

bool gb_nccl_want_inplace(const struct gb_nccl_params *p)
{
	return p->inplace || !p->outofplace;
}

/* ---- sizes and shapes ---- */

size_t gb_nccl_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t *out,
		     size_t cap)
{
	size_t n = 0;

	if (min_bytes == 0 || factor < 2 || min_bytes > max_bytes)
		return 0;
	for (uint64_t v = min_bytes; n < cap; v *= factor) {
		out[n++] = v;
		if (v > max_bytes / factor)
			break;
	}
	return n;
}

int gb_nccl_shape_of(enum gb_nccl_coll c, uint64_t bytes, enum gb_nccl_dtype t, int nranks,
		     struct gb_nccl_shape *s)
{
	size_t elt = gb_nccl_dtype_size(t);
	uint64_t count, chunk;

	memset(s, 0, sizeof(*s));
	if (!elt || nranks < 1 || (int)c < 0 || c >= GB_NCCL_COLL_COUNT)
		return -1;
	count = bytes / elt;
	/* per-rank chunks rounded down to whole 16-byte units: aligned for every rank */
	chunk = count / (uint64_t)nranks;
	chunk -= chunk % (16 / elt);
	switch (c) {
	case GB_NCCL_ALLGATHER:
		s->send_count = s->param_count = s->inplace_send_offset = chunk;
		s->recv_count = chunk * (uint64_t)nranks;
		break;
	case GB_NCCL_REDUCESCATTER:
		s->recv_count = s->param_count = s->inplace_recv_offset = chunk;
		s->send_count = chunk * (uint64_t)nranks;
		break;
	case GB_NCCL_ALLTOALL:
		s->param_count = chunk;
		s->send_count = s->recv_count = chunk * (uint64_t)nranks;
		break;
	default: /* allreduce, broadcast, reduce: the whole buffer on every rank */
		s->send_count = s->recv_count = s->param_count = count;
		break;
	}
	return s->param_count ? 0 : -1;
}

double gb_nccl_algbw_bytes(enum gb_nccl_coll c, const struct gb_nccl_shape *s, enum gb_nccl_dtype t,
			   int nranks)
{
	return gb_algbw_bytes(gb_nccl_coll_names[c], (double)s->param_count,
			      (double)gb_nccl_dtype_size(t), nranks);
}

/* ---- rotation ---- */

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

uint64_t gb_nccl_rotation_span(uint64_t largest_bytes, double l2_bytes)
{
	double l2 = l2_bytes > 0 ? l2_bytes : GB_NCCL_ROTATION_FALLBACK_BYTES / 2.0;
	uint64_t floor_bytes = (uint64_t)(2.0 * l2);

	return round_up(largest_bytes > floor_bytes ? largest_bytes : floor_bytes,
			GB_NCCL_ROTATION_ALIGN);
}

void gb_nccl_rotation_of(uint64_t point_bytes, uint64_t span_bytes, struct gb_nccl_rotation *r)
{
	r->stride = round_up(point_bytes ? point_bytes : 1, GB_NCCL_ROTATION_ALIGN);
	r->slots = span_bytes / r->stride;
	if (r->slots < 1)
		r->slots = 1;
}

uint64_t gb_nccl_rotation_offset(const struct gb_nccl_rotation *r, uint64_t turn)
{
	return r->slots > 1 ? r->stride * (turn % r->slots) : 0;
}

bool gb_nccl_noop(enum gb_nccl_coll c, enum gb_nccl_dtype t, int redop, int nranks, bool inplace)
{
	bool premul = gb_nccl_coll_reduces(c) && redop == GB_NCCL_AVG && gb_nccl_dtype_float((int)t);

	return nranks == 1 && inplace && gb_nccl_coll_has_inplace(c) && !premul;
}

/* ---- theory ---- */

static bool same_hosts(const struct gb_nccl_rank_link *r, size_t n, size_t *n_hosts)
{
	size_t hosts = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = r[i].host && r[j].host && !strcmp(r[i].host, r[j].host);
		hosts += !seen;
	}
	*n_hosts = hosts;
	return hosts <= 1;
}

static double nvlink_theory(const struct gb_nccl_rank_link *r, size_t n, char *basis, size_t len)
{
	double best = INFINITY;
	size_t slowest = 0;

	for (size_t i = 0; i < n; i++) {
		double bps = r[i].nvlink_up > 0
				     ? r[i].nvlink_up * gb_nvlink_link_bps(r[i].nvlink_gen)
				     : 0;

		if (!(bps > 0)) {
			snprintf(basis, len, "NVLink rate of rank %zu unknown", i);
			return NAN;
		}
		if (bps < best) {
			best = bps;
			slowest = i;
		}
	}
	snprintf(basis, len,
		 "NVLink %d: %d links x %.0f GB/s = %.0f GB/s per direction (the slowest GPU, "
		 "rank %zu)",
		 r[slowest].nvlink_gen, r[slowest].nvlink_up,
		 gb_nvlink_link_bps(r[slowest].nvlink_gen) / 1e9, best / 1e9, slowest);
	return best;
}

static double pcie_theory(const struct gb_nccl_rank_link *r, size_t n, char *basis, size_t len)
{
	double best = INFINITY;
	size_t slowest = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(r[i].pcie_bps > 0)) {
			snprintf(basis, len, "PCIe link of rank %zu unknown", i);
			return NAN;
		}
		if (r[i].pcie_bps < best) {
			best = r[i].pcie_bps;
			slowest = i;
		}
	}
	snprintf(basis, len, "PCIe: %.1f GB/s per direction (the slowest GPU's link, rank %zu)",
		 best / 1e9, slowest);
	return best;
}

double gb_nccl_link_theory(const struct gb_nccl_rank_link *r, size_t n, bool all_pairs_nvlink,
			   char *basis, size_t len)
{
	size_t hosts = 0;

	if (n <= 1) {
		snprintf(basis, len, "one rank: nothing crosses a link");
		return NAN;
	}
	if (!same_hosts(r, n, &hosts)) {
		snprintf(basis, len,
			 "ranks on %zu hosts: the network between them bounds bus bandwidth, and "
			 "gpubench does not know its rate",
			 hosts);
		return NAN;
	}
	return all_pairs_nvlink ? nvlink_theory(r, n, basis, len) : pcie_theory(r, n, basis, len);
}

void gb_nccl_rank_link_of(const struct gb_device_info *d, const char *host,
			  struct gb_nccl_rank_link *out)
{
	out->host = host;
	out->nvlink_up = d->nvlink_up;
	out->nvlink_gen =
		d->nvlink_gen > 0 ? d->nvlink_gen : gb_nvlink_gen_for_cc(d->cc_major, d->cc_minor);
	/*
	 * The slot's maximum: the current link was read at set-up, when an idle
	 * GPU has dropped its link to Gen1 to save power, which would make a
	 * ceiling of 4 GB/s. A link that stays slow under load is bandwidth's
	 * finding (pcie_link_under_load).
	 */
	out->pcie_bps = d->peaks.pcie_bps > 0 ? d->peaks.pcie_bps : d->peaks.pcie_bps_current;
	if (!(out->pcie_bps > 0))
		out->pcie_bps = NAN;
}

bool gb_nccl_pairs_nvlink(const struct gb_run *run, const int *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			const struct gb_link *l = i == j ? NULL : gb_run_find_link(run, devs[i], devs[j]);

			if (i != j && (!l || !l->type || strcmp(l->type, "nvlink")))
				return false;
		}
	}
	return n > 1;
}

/* ---- rows ---- */

void gb_nccl_row_shape(struct gb_nccl_row *r, const struct gb_nccl_shape *s, int nranks)
{
	size_t elt = gb_nccl_dtype_size(r->dtype);
	uint64_t big = s->send_count > s->recv_count ? s->send_count : s->recv_count;

	r->size = big * elt;
	r->count = s->param_count;
	r->algbytes = gb_nccl_algbw_bytes(r->coll, s, r->dtype, nranks);
	r->wrong_rank = r->wrong_gpu = -1; /* a new point: nothing found wrong yet */
}

static void row_untimed(struct gb_nccl_row *r)
{
	r->time_us = r->time_min_us = r->time_max_us = r->time_stdev_us = r->time_cv = NAN;
	r->n_samples = 0;
	r->untimed = true;
}

void gb_nccl_row_samples(struct gb_nccl_row *r, const double *time_us, size_t n)
{
	struct gb_stats st;

	if (gb_stats_compute(&st, time_us, n)) {
		row_untimed(r);
		return;
	}
	r->untimed = false;
	r->n_samples = (int)st.n;
	r->time_us = st.median;
	r->time_min_us = st.min;
	r->time_max_us = st.max;
	r->time_stdev_us = st.stdev;
	r->time_cv = st.n >= 2 ? st.cv : NAN;
}

void gb_nccl_row_bw(struct gb_nccl_row *r, int nranks)
{
	double factor = gb_busbw_factor(gb_nccl_coll_names[r->coll], nranks);

	if (!(r->time_us > 0) || !isfinite(r->time_us)) {
		r->algbw_gbps = r->busbw_gbps = NAN;
		return;
	}
	r->algbw_gbps = r->algbytes / (r->time_us * 1e-6) / 1e9;
	r->busbw_gbps = r->algbw_gbps * factor;
}

cJSON *gb_nccl_row_to_json(const struct gb_nccl_row *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "collective", gb_nccl_coll_names[r->coll]);
	cJSON_AddStringToObject(o, "placement", r->inplace ? "in_place" : "out_of_place");
	cJSON_AddNumberToObject(o, "size", (double)r->size);
	cJSON_AddNumberToObject(o, "count", (double)r->count);
	cJSON_AddStringToObject(o, "type", gb_nccl_dtype_names[r->dtype]);
	cJSON_AddStringToObject(o, "redop", r->redop >= 0 ? gb_nccl_redop_names[r->redop] : "none");
	gb_json_add_num(o, "root", r->root >= 0 ? (double)r->root : NAN);
	gb_json_add_num(o, "algbytes", r->algbytes);
	gb_json_add_num(o, "time_us", r->time_us);
	gb_json_add_num(o, "time_min_us", r->time_min_us);
	gb_json_add_num(o, "time_max_us", r->time_max_us);
	gb_json_add_num(o, "time_stdev_us", r->time_stdev_us);
	gb_json_add_num(o, "time_cv", r->time_cv);
	cJSON_AddNumberToObject(o, "samples", r->n_samples);
	if (r->untimed)
		cJSON_AddStringToObject(o, "skipped", GB_NCCL_NOOP_REASON);
	gb_json_add_num(o, "algbw", r->algbw_gbps);
	gb_json_add_num(o, "busbw", r->busbw_gbps);
	gb_json_add_num(o, "nwrong", r->nwrong >= 0 ? (double)r->nwrong : NAN);
	gb_json_add_num(o, "wrong_rank", r->wrong_rank >= 0 ? (double)r->wrong_rank : NAN);
	gb_json_add_num(o, "wrong_gpu", r->wrong_gpu >= 0 ? (double)r->wrong_gpu : NAN);
	return o;
}

static int name_index(const char *const *names, const cJSON *v)
{
	if (!cJSON_IsString(v))
		return -2;
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], v->valuestring))
			return i;
	return -2;
}

static double num_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int gb_nccl_row_from_json(const cJSON *o, struct gb_nccl_row *r)
{
	const cJSON *redop = cJSON_GetObjectItemCaseSensitive(o, "redop");
	const cJSON *place = cJSON_GetObjectItemCaseSensitive(o, "placement");
	double root = num_field(o, "root"), nwrong = num_field(o, "nwrong");
	double wrong_rank = num_field(o, "wrong_rank"), wrong_gpu = num_field(o, "wrong_gpu");
	double samples = num_field(o, "samples");

	memset(r, 0, sizeof(*r));
	r->coll = name_index(gb_nccl_coll_names, cJSON_GetObjectItemCaseSensitive(o, "collective"));
	r->dtype = name_index(gb_nccl_dtype_names, cJSON_GetObjectItemCaseSensitive(o, "type"));
	r->redop = cJSON_IsString(redop) && !strcmp(redop->valuestring, "none")
			   ? -1
			   : name_index(gb_nccl_redop_names, redop);
	if (r->coll < 0 || r->dtype < 0 || r->redop < -1 || !cJSON_IsString(place))
		return -1;
	r->inplace = !strcmp(place->valuestring, "in_place");
	r->root = isfinite(root) ? (int)root : -1;
	r->size = (uint64_t)num_field(o, "size");
	r->count = (uint64_t)num_field(o, "count");
	r->algbytes = num_field(o, "algbytes");
	r->time_us = num_field(o, "time_us");
	r->time_min_us = num_field(o, "time_min_us");
	r->time_max_us = num_field(o, "time_max_us");
	r->time_stdev_us = num_field(o, "time_stdev_us");
	r->time_cv = num_field(o, "time_cv");
	/* reports from before --samples had one loop per size and no spread */
	r->n_samples = isfinite(samples) ? (int)samples : isfinite(r->time_us) ? 1 : 0;
	r->untimed = cJSON_GetObjectItemCaseSensitive(o, "skipped") != NULL;
	r->algbw_gbps = num_field(o, "algbw");
	r->busbw_gbps = num_field(o, "busbw");
	r->nwrong = isfinite(nwrong) ? (int64_t)nwrong : -1;
	/* reports from before wrong_rank name no rank */
	r->wrong_rank = isfinite(wrong_rank) ? (int)wrong_rank : -1;
	r->wrong_gpu = isfinite(wrong_gpu) ? (int)wrong_gpu : -1;
	return 0;
}

static bool same_point(const struct gb_nccl_row *a, const struct gb_nccl_row *b)
{
	return a->coll == b->coll && a->dtype == b->dtype && a->redop == b->redop &&
	       a->root == b->root && a->inplace == b->inplace && a->size == b->size &&
	       a->count == b->count;
}

/* The widest spread of r and out, into out (NAN-aware: a known figure wins). */
static void widen_spread(struct gb_nccl_row *out, const struct gb_nccl_row *r)
{
	out->time_min_us = fmin(out->time_min_us, r->time_min_us);
	out->time_max_us = fmax(out->time_max_us, r->time_max_us);
	out->time_stdev_us = fmax(out->time_stdev_us, r->time_stdev_us);
	out->time_cv = fmax(out->time_cv, r->time_cv);
	if (r->n_samples < out->n_samples)
		out->n_samples = r->n_samples;
}

/* Combine row i of every part into out; -1 when the parts' rows differ. */
static int combine_row(const struct gb_nccl_row *const *rows, size_t parts, size_t i,
		       struct gb_nccl_row *out)
{
	double t = 0;
	int64_t wrong = -1;

	*out = rows[0][i];
	for (size_t k = 0; k < parts; k++) {
		const struct gb_nccl_row *r = &rows[k][i];

		if (!same_point(r, out))
			return -1;
		t += r->time_us;
		out->untimed |= r->untimed;
		widen_spread(out, r);
		if (r->nwrong >= 0)
			wrong = (wrong < 0 ? 0 : wrong) + r->nwrong;
		/* the lowest rank that saw wrong elements, whichever part it came in */
		if (r->wrong_rank >= 0 && (out->wrong_rank < 0 || r->wrong_rank < out->wrong_rank)) {
			out->wrong_rank = r->wrong_rank;
			out->wrong_gpu = r->wrong_gpu;
		}
	}
	out->time_us = t / (double)parts;
	out->nwrong = wrong;
	if (out->untimed)
		row_untimed(out);
	return 0;
}

int gb_nccl_rows_combine(const struct gb_nccl_row *const *rows, const size_t *n, size_t parts,
			 int nranks, struct gb_nccl_row *out)
{
	if (!parts)
		return -1;
	for (size_t k = 1; k < parts; k++)
		if (n[k] != n[0])
			return -1;
	for (size_t i = 0; i < n[0]; i++) {
		if (combine_row(rows, parts, i, &out[i]))
			return -1;
		gb_nccl_row_bw(&out[i], nranks);
	}
	return 0;
}

/* ---- summary ---- */

static void summary_fit(const struct gb_nccl_row *rows, size_t n, int nranks,
			struct gb_nccl_summary *s)
{
	double *x = calloc(n ? n : 1, sizeof(double)), *t = calloc(n ? n : 1, sizeof(double));
	struct gb_alpha_beta fit;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (rows[i].time_us > 0 && isfinite(rows[i].time_us)) {
			x[m] = rows[i].algbytes;
			t[m++] = rows[i].time_us * 1e-6;
		}
	}
	if (m >= 2 && gb_fit_alpha_beta(&fit, x, t, m) == 0) {
		s->fit_ok = true;
		s->alpha_us = fit.alpha_s * 1e6;
		s->beta_gbps = fit.beta_bps / 1e9;
		s->beta_bus_gbps =
			s->beta_gbps * gb_busbw_factor(gb_nccl_coll_names[rows[0].coll], nranks);
		s->r2 = fit.r2;
	}
	free(x);
	free(t);
}

int gb_nccl_summarize(const struct gb_nccl_row *rows, size_t n, int nranks,
		      struct gb_nccl_summary *s)
{
	size_t lo = 0, hi = 0;

	memset(s, 0, sizeof(*s));
	s->busbw_peak_gbps = s->algbw_peak_gbps = NAN;
	s->alpha_us = s->beta_gbps = s->beta_bus_gbps = s->r2 = NAN;
	s->nwrong = s->first_wrong = -1;
	if (!n)
		return -1;
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct gb_nccl_row *r = &rows[i];
		bool first;

		if (r->nwrong >= 0)
			s->nwrong = (s->nwrong < 0 ? 0 : s->nwrong) + r->nwrong;
		if (r->nwrong > 0 && s->first_wrong < 0)
			s->first_wrong = (int64_t)i;
		if (r->untimed)
			continue;
		if (isfinite(r->busbw_gbps) && !(r->busbw_gbps <= s->busbw_peak_gbps))
			s->busbw_peak_gbps = r->busbw_gbps;
		if (isfinite(r->algbw_gbps) && !(r->algbw_gbps <= s->algbw_peak_gbps))
			s->algbw_peak_gbps = r->algbw_gbps;
		first = s->n_timed++ == 0;
		if (first || r->size < rows[lo].size)
			lo = i;
		if (first || r->size > rows[hi].size)
			hi = i;
	}
	s->smallest_bytes = rows[lo].size;
	s->largest_bytes = rows[hi].size;
	s->latency_smallest_us = s->n_timed ? rows[lo].time_us : NAN;
	s->busbw_largest_gbps = s->n_timed ? rows[hi].busbw_gbps : NAN;
	summary_fit(rows, n, nranks, s);
	return 0;
}

int gb_nccl_lagging_rank(const int *incomplete, int n)
{
	int most = -1, least = 0, ties = 0;

	for (int i = 0; i < n; i++) {
		if (most < 0 || incomplete[i] > incomplete[most]) {
			most = i;
			ties = 0;
		} else if (incomplete[i] == incomplete[most]) {
			ties++;
		}
		if (incomplete[i] < incomplete[least])
			least = i;
	}
	if (most < 0 || ties || incomplete[most] == incomplete[least])
		return -1;
	return most;
}

enum gb_nccl_spread gb_nccl_spread_judge(const struct gb_nccl_row *rows, size_t n,
					 int64_t *worst)
{
	bool large = false;

	*worst = -1;
	for (size_t i = 0; i < n; i++) {
		const struct gb_nccl_row *r = &rows[i];

		if (r->untimed || r->size < GB_NCCL_SPREAD_MIN_BYTES)
			continue;
		large = true;
		if (r->n_samples < 2 || !isfinite(r->time_cv))
			continue;
		if (*worst < 0 || r->time_cv > rows[*worst].time_cv)
			*worst = (int64_t)i;
	}
	if (!large)
		return GB_NCCL_SPREAD_NO_LARGE;
	if (*worst < 0)
		return GB_NCCL_SPREAD_TOO_FEW;
	return rows[*worst].time_cv <= GB_NCCL_SPREAD_MAX ? GB_NCCL_SPREAD_WITHIN
							  : GB_NCCL_SPREAD_ABOVE;
}

void gb_nccl_group_name(const struct gb_nccl_row *r, bool multi_dtype, bool multi_redop, char *buf,
			size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s", gb_nccl_coll_names[r->coll], multi_dtype ? "_" : "",
		 multi_dtype ? gb_nccl_dtype_names[r->dtype] : "",
		 multi_redop && r->redop >= 0 ? "_" : "",
		 multi_redop && r->redop >= 0 ? gb_nccl_redop_names[r->redop] : "",
		 r->inplace ? "_inplace" : "");
}

/* ---- the report ---- */

static bool same_group(const struct gb_nccl_row *a, const struct gb_nccl_row *b)
{
	return a->coll == b->coll && a->dtype == b->dtype && a->redop == b->redop &&
	       a->inplace == b->inplace;
}

static void distinct(const struct gb_nccl_row *rows, size_t n, bool *multi_dtype, bool *multi_redop)
{
	*multi_dtype = *multi_redop = false;
	for (size_t i = 1; i < n; i++) {
		*multi_dtype |= rows[i].dtype != rows[0].dtype;
		if (rows[i].redop >= 0)
			for (size_t j = 0; j < i; j++)
				*multi_redop |=
					rows[j].redop >= 0 && rows[j].redop != rows[i].redop;
	}
}

static struct gb_metric *metric(struct gb_bench_result *res, const char *grp, const char *what,
				const char *unit, enum gb_better better, double v, double peak)
{
	char name[160];

	snprintf(name, sizeof(name), "%s_%s", grp, what);
	return gb_bench_add_value(res, name, unit, better, -1, v, peak);
}

static void describe(struct gb_metric *m, const char *text)
{
	free(m->description);
	m->description = gb_strdup(text);
}

/* "<what>, 1 MiB": a description naming the size a value was read at */
static void describe_at(struct gb_metric *m, const char *what, double bytes)
{
	char b[32], text[128];

	gb_format_bytes(b, sizeof(b), bytes);
	snprintf(text, sizeof(text), "%s, %s", what, b);
	describe(m, text);
}

static void group_metrics(struct gb_bench_result *res, const char *grp,
			  const struct gb_nccl_summary *s, double theory_gbps)
{
	struct gb_metric *m;

	metric(res, grp, "busbw_peak_gbps", "GB/s", GB_BETTER_HIGHER, s->busbw_peak_gbps,
	       theory_gbps);
	m = metric(res, grp, "busbw_largest_gbps", "GB/s", GB_BETTER_HIGHER, s->busbw_largest_gbps,
		   theory_gbps);
	describe_at(m, "bus bandwidth at the largest size", (double)s->largest_bytes);
	metric(res, grp, "algbw_peak_gbps", "GB/s", GB_BETTER_HIGHER, s->algbw_peak_gbps, NAN);
	m = metric(res, grp, "latency_smallest_us", "us", GB_BETTER_LOWER, s->latency_smallest_us,
		   NAN);
	describe_at(m, "time of one operation at the smallest size", (double)s->smallest_bytes);
	if (!s->fit_ok)
		return;
	m = metric(res, grp, "alpha_us", "us", GB_BETTER_LOWER, s->alpha_us, NAN);
	describe(m, "latency of the fit t = alpha + S / beta over the sweep");
	m = metric(res, grp, "beta_gbps", "GB/s", GB_BETTER_HIGHER, s->beta_gbps, NAN);
	describe(m, "asymptotic algorithm bandwidth of the fit");
	metric(res, grp, "beta_busbw_gbps", "GB/s", GB_BETTER_HIGHER, s->beta_bus_gbps,
	       theory_gbps);
}

/* which column of the rows a series plots */
enum row_column { COL_BUSBW, COL_ALGBW, COL_TIME };

/*
 * One series of a group, filled before the next is added: adding a series
 * may move the bench's series array, so a pointer to an earlier one must not
 * outlive the next add (it did, and wrote freed memory past 8 series).
 */
static void row_series(struct gb_bench_result *res, const char *grp, const char *suffix,
		       const char *unit, enum row_column col, const struct gb_nccl_row *rows,
		       size_t n)
{
	char name[160];
	struct gb_series *ser;

	snprintf(name, sizeof(name), "%s_%s", grp, suffix);
	ser = gb_bench_add_series(res, name, "B", unit, -1);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].untimed)
			continue;
		gb_series_push(ser, (double)rows[i].size,
			       col == COL_BUSBW ? rows[i].busbw_gbps
			       : col == COL_ALGBW ? rows[i].algbw_gbps : rows[i].time_us);
	}
}

static void group_series(struct gb_bench_result *res, const char *grp,
			 const struct gb_nccl_row *rows, size_t n)
{
	row_series(res, grp, "busbw", "GB/s", COL_BUSBW, rows, n);
	row_series(res, grp, "algbw", "GB/s", COL_ALGBW, rows, n);
	row_series(res, grp, "time", "us", COL_TIME, rows, n);
}

static void group_check(struct gb_bench_result *res, const char *grp,
			const struct gb_nccl_row *rows, const struct gb_nccl_summary *s)
{
	char name[160], b[32], who[64];
	const struct gb_nccl_row *w;

	snprintf(name, sizeof(name), "%s_correct", grp);
	if (s->nwrong < 0) {
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_ERROR, -1, NAN, 0,
				   "results were not checked");
		return;
	}
	if (s->nwrong == 0) {
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_ERROR, -1, 0, 0,
				   "every element right at all %zu sizes", s->n);
		return;
	}
	w = &rows[s->first_wrong];
	gb_format_bytes(b, sizeof(b), (double)w->size);
	if (w->wrong_rank >= 0)
		snprintf(who, sizeof(who), " in the output of rank %d (GPU %d)", w->wrong_rank,
			 w->wrong_gpu);
	else
		who[0] = '\0';
	/* the check's device is the GPU whose output was wrong first */
	gb_bench_add_check(res, name, GB_STATUS_FAILED, GB_SEV_ERROR, w->wrong_gpu,
			   (double)s->nwrong, 0,
			   "%lld wrong elements in all; first at %s (count %llu %s, %s)%s: data "
			   "corrupted on a link or in NCCL",
			   (long long)s->nwrong, b, (unsigned long long)w->count,
			   gb_nccl_dtype_names[w->dtype], w->inplace ? "in-place" : "out-of-place",
			   who);
}

static void spread_check(struct gb_bench_result *res, const char *grp,
			 const struct gb_nccl_row *rows, size_t n)
{
	char name[160], b[32], lim[32];
	int64_t w;
	enum gb_nccl_spread v = gb_nccl_spread_judge(rows, n, &w);
	double cv = w >= 0 ? 100 * rows[w].time_cv : NAN;

	snprintf(name, sizeof(name), "%s_timing_spread", grp);
	gb_format_bytes(b, sizeof(b), w >= 0 ? (double)rows[w].size : 0);
	gb_format_bytes(lim, sizeof(lim), (double)GB_NCCL_SPREAD_MIN_BYTES);
	switch (v) {
	case GB_NCCL_SPREAD_WITHIN:
		gb_bench_add_check(res, name, GB_STATUS_PASSED, GB_SEV_INFO, -1, cv,
				   100 * GB_NCCL_SPREAD_MAX,
				   "samples of every size from %s vary by at most %.2f%% (CV, at %s), "
				   "within %.0f%%",
				   lim, cv, b, 100 * GB_NCCL_SPREAD_MAX);
		break;
	case GB_NCCL_SPREAD_ABOVE:
		gb_bench_add_check(res, name, GB_STATUS_WARNING, GB_SEV_WARNING, -1, cv,
				   100 * GB_NCCL_SPREAD_MAX,
				   "samples at %s vary by %.2f%% (CV), above %.0f%%: the time moved "
				   "between loops (other traffic on the links, clocks, or a rank that "
				   "lagged)",
				   b, cv, 100 * GB_NCCL_SPREAD_MAX);
		break;
	case GB_NCCL_SPREAD_NO_LARGE:
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN,
				   100 * GB_NCCL_SPREAD_MAX,
				   "no timed size reaches %s, where the spread is judged", lim);
		break;
	case GB_NCCL_SPREAD_TOO_FEW:
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN,
				   100 * GB_NCCL_SPREAD_MAX,
				   "one sample per size: judging the spread takes --samples 2 or more");
		break;
	}
}

/* The checks and numbers of one group: nothing timed gets a SKIPPED check instead. */
static void group_report(struct gb_bench_result *res, const char *grp,
			 const struct gb_nccl_row *rows, size_t n, int nranks, double theory_gbps)
{
	struct gb_nccl_summary s;
	char name[160];

	gb_nccl_summarize(rows, n, nranks, &s);
	group_check(res, grp, rows, &s);
	if (s.n_timed) {
		group_metrics(res, grp, &s, theory_gbps);
		group_series(res, grp, rows, n);
		spread_check(res, grp, rows, n);
	} else {
		snprintf(name, sizeof(name), "%s_timed", grp);
		gb_bench_add_check(res, name, GB_STATUS_SKIPPED, GB_SEV_INFO, -1, NAN, NAN,
				   "%s: nothing to time at any of %zu sizes", GB_NCCL_NOOP_REASON,
				   n);
	}
}

static void fill_extra(struct gb_bench_result *res, const struct gb_nccl_row *rows, size_t n,
		       int nranks, double theory_bps, const char *basis)
{
	cJSON *extra = gb_bench_extra(res), *arr = cJSON_AddArrayToObject(extra, "rows");
	cJSON *th = cJSON_AddObjectToObject(extra, "theory");

	cJSON_AddNumberToObject(extra, "nranks", nranks);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, gb_nccl_row_to_json(&rows[i]));
	gb_json_add_num(th, "busbw_gbps", theory_bps / 1e9);
	if (basis)
		cJSON_AddStringToObject(th, "basis", basis);
	else
		cJSON_AddNullToObject(th, "basis");
	if (nranks == 1)
		cJSON_AddStringToObject(
			extra, "note",
			"one rank: nothing crosses a link, so bus bandwidth is 0 by definition for "
			"allreduce, allgather, reducescatter and alltoall (factor (n-1)/n); read "
			"the algorithm bandwidth (algbw). broadcast and reduce keep nccl-tests' "
			"factor 1. In place, NCCL does no work with one rank (except float avg), "
			"so those rows are not timed (\"skipped\") and only checked");
}

void gb_nccl_fill_result(struct gb_bench_result *res, const struct gb_nccl_row *rows, size_t n,
			 int nranks, double theory_bps, const char *basis)
{
	bool multi_dtype, multi_redop;
	double theory_gbps = nranks > 1 ? theory_bps / 1e9 : NAN;
	bool *done = calloc(n ? n : 1, sizeof(bool));
	struct gb_nccl_row *grp = calloc(n ? n : 1, sizeof(*grp));

	distinct(rows, n, &multi_dtype, &multi_redop);
	for (size_t i = 0; i < n; i++) {
		char name[128];
		size_t m = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < n; j++) {
			if (!done[j] && same_group(&rows[i], &rows[j])) {
				grp[m++] = rows[j];
				done[j] = true;
			}
		}
		gb_nccl_group_name(&rows[i], multi_dtype, multi_redop, name, sizeof(name));
		group_report(res, name, grp, m, nranks, theory_gbps);
	}
	fill_extra(res, rows, n, nranks, theory_bps, basis);
	free(done);
	free(grp);
}
