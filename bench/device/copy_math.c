/* SPDX-License-Identifier: MIT */
/*
 * copy_math.c - sweeps, byte accounting, ceilings, findings and matrices
 * for the bandwidth and p2p benchmarks (CPU only; see copy_math.h).
 */
#include "bench/device/copy_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/options.h"
#include "report/result.h"
#include "report/theory.h"

static uint64_t round_to_grain(uint64_t v)
{
	v -= v % GB_COPY_GRAIN;
	return v ? v : GB_COPY_GRAIN;
}

size_t gb_copy_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t *out,
		     size_t cap)
{
	size_t n = 0;
	uint64_t v = min_bytes;

	if (min_bytes == 0 || factor < 2 || min_bytes > max_bytes || cap == 0)
		return 0;
	for (;;) {
		uint64_t r = round_to_grain(v);

		/* rounding can merge neighbours at the small end (e.g. 17 and 20 -> 16) */
		if (n == 0 || r != out[n - 1])
			out[n++] = r;
		if (n == cap || v > max_bytes / factor)
			break;
		v *= factor;
	}
	/* always measure the largest size asked for, even off the geometric grid */
	if (n < cap && round_to_grain(max_bytes) > out[n - 1])
		out[n++] = round_to_grain(max_bytes);
	return n;
}

void gb_copy_size_short(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (bytes && u < 5 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

int gb_copy_check_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, char *err,
			size_t errlen)
{
	char a[32], b[32];

	if (min_bytes > max_bytes) {
		gb_copy_size_short(a, sizeof(a), min_bytes);
		gb_copy_size_short(b, sizeof(b), max_bytes);
		snprintf(err, errlen, "--min-size (%s) is above --max-size (%s)", a, b);
		return -1;
	}
	if (factor < 2) {
		snprintf(err, errlen, "--factor must be at least 2 (got %llu)",
			 (unsigned long long)factor);
		return -1;
	}
	if (min_bytes == 0) {
		snprintf(err, errlen, "--min-size must be at least %u (got 0)", GB_COPY_GRAIN);
		return -1;
	}
	return 0;
}

static const char *const test_names[GB_CT_COUNT] = {
	[GB_CT_H2D] = "h2d",
	[GB_CT_D2H] = "d2h",
	[GB_CT_BIDIR] = "bidir",
	[GB_CT_D2D] = "d2d",
	[GB_CT_STREAM_COPY] = "stream_copy",
	[GB_CT_STREAM_SCALE] = "stream_scale",
	[GB_CT_STREAM_ADD] = "stream_add",
	[GB_CT_STREAM_TRIAD] = "stream_triad",
	[GB_CT_P2P_UNI] = "p2p_uni",
	[GB_CT_P2P_BIDIR] = "p2p_bidir",
	[GB_CT_P2P_STAGED] = "p2p_staged",
};

const char *gb_copy_test_name(enum gb_copy_test t)
{
	return (unsigned)t < GB_CT_COUNT ? test_names[t] : "unknown";
}

const char *gb_copy_method_name(enum gb_copy_method m)
{
	return m == GB_CM_CE ? "ce" : m == GB_CM_SM ? "sm" : "unknown";
}

const char *gb_copy_memory_name(enum gb_copy_memory m)
{
	static const char *const names[GB_MEM_COUNT] = { "pinned", "pageable", "managed", "device" };

	return (unsigned)m < GB_MEM_COUNT ? names[m] : "unknown";
}

bool gb_copy_test_is_stream(enum gb_copy_test t)
{
	return t >= GB_CT_STREAM_COPY && t <= GB_CT_STREAM_TRIAD;
}

double gb_copy_counted_bytes(enum gb_copy_test t, double size)
{
	switch (t) {
	case GB_CT_H2D:
	case GB_CT_D2H:
	case GB_CT_D2D:
	case GB_CT_P2P_UNI:
	case GB_CT_P2P_STAGED:
		return size;
	case GB_CT_BIDIR:
	case GB_CT_P2P_BIDIR:
		return 2 * size; /* S each way */
	case GB_CT_STREAM_COPY:
	case GB_CT_STREAM_SCALE:
		return 2 * size; /* read one array, write one */
	case GB_CT_STREAM_ADD:
	case GB_CT_STREAM_TRIAD:
		return 3 * size; /* read two arrays, write one */
	case GB_CT_COUNT:
		break;
	}
	return NAN;
}

double gb_copy_dram_bytes(enum gb_copy_test t, double size)
{
	switch (t) {
	case GB_CT_H2D:
	case GB_CT_D2H:
	case GB_CT_P2P_UNI:
	case GB_CT_P2P_STAGED:
		return size; /* one device writes (or reads) each byte once */
	case GB_CT_BIDIR:
	case GB_CT_P2P_BIDIR:
		return 2 * size;
	case GB_CT_D2D:
		return 2 * size; /* the same device reads and writes every byte */
	case GB_CT_STREAM_COPY:
	case GB_CT_STREAM_SCALE:
	case GB_CT_STREAM_ADD:
	case GB_CT_STREAM_TRIAD:
		return gb_copy_counted_bytes(t, size);
	case GB_CT_COUNT:
		break;
	}
	return NAN;
}

static bool is_host_test(enum gb_copy_test t)
{
	return t == GB_CT_H2D || t == GB_CT_D2H || t == GB_CT_BIDIR;
}

const char *gb_copy_unsupported(enum gb_copy_test t, enum gb_copy_method m,
				enum gb_copy_memory mem)
{
	if ((unsigned)t >= GB_CT_COUNT || (unsigned)m >= GB_CM_COUNT ||
	    (unsigned)mem >= GB_MEM_COUNT)
		return "unknown test, method or memory";
	if (is_host_test(t) && mem == GB_MEM_DEVICE)
		return "a host-device test needs host memory";
	if (!is_host_test(t) && mem != GB_MEM_DEVICE)
		return "a device-only test takes no host memory";
	if (gb_copy_test_is_stream(t) && m != GB_CM_SM)
		return "STREAM kernels run on the SMs; there is no copy-engine form";
	if (t == GB_CT_P2P_STAGED && m != GB_CM_CE)
		return "staging through the host is a copy-engine path";
	if (mem == GB_MEM_PAGEABLE && m == GB_CM_SM)
		return "an SM kernel cannot reach pageable memory without HMM or ATS; only the copy "
		       "engine is measured";
	if (mem == GB_MEM_MANAGED && m == GB_CM_SM && t == GB_CT_D2H)
		return "a GPU write to managed memory migrates the pages to the GPU instead of "
		       "crossing the link";
	if (t == GB_CT_BIDIR && mem == GB_MEM_PAGEABLE)
		return "pageable copies are staged by the host thread one at a time and cannot "
		       "overlap";
	if (t == GB_CT_BIDIR && mem == GB_MEM_MANAGED)
		return "a managed buffer migrates one way at a time; bidirectional is not defined";
	return NULL;
}

static double known(double v)
{
	return isfinite(v) && v > 0 ? v : NAN;
}

double gb_copy_mem_bps(const struct gb_device_info *d)
{
	if (!d)
		return NAN;
	return isfinite(d->peaks.mem_bw_bps) ? d->peaks.mem_bw_bps : d->peaks.mem_bw_bps_spec;
}

double gb_copy_ceiling_bps(enum gb_copy_test t, const struct gb_copy_theory *th)
{
	switch (t) {
	case GB_CT_H2D:
	case GB_CT_D2H:
	case GB_CT_P2P_STAGED:
		return known(th->pcie_bps);
	case GB_CT_BIDIR:
		return 2 * known(th->pcie_bps);
	case GB_CT_D2D:
		/* payload counted once, but every byte is read and written */
		return known(th->mem_bw_bps) / 2;
	case GB_CT_STREAM_COPY:
	case GB_CT_STREAM_SCALE:
	case GB_CT_STREAM_ADD:
	case GB_CT_STREAM_TRIAD:
		return known(th->mem_bw_bps);
	case GB_CT_P2P_UNI:
		return known(th->peer_bps);
	case GB_CT_P2P_BIDIR:
		return 2 * known(th->peer_bps);
	case GB_CT_COUNT:
		break;
	}
	return NAN;
}

double gb_p2p_peer_bps(const char *type, int nvlink_count, int nvlink_gen, double pcie_a_bps,
		       double pcie_b_bps)
{
	if (type && !strcmp(type, "nvlink")) {
		double link = gb_nvlink_link_bps(nvlink_gen);

		if (nvlink_count <= 0 || link <= 0)
			return NAN;
		return nvlink_count * link;
	}
	pcie_a_bps = known(pcie_a_bps);
	pcie_b_bps = known(pcie_b_bps);
	if (isnan(pcie_a_bps) || isnan(pcie_b_bps))
		return NAN;
	return fmin(pcie_a_bps, pcie_b_bps);
}

double gb_percent_of(double value, double peak)
{
	if (!isfinite(value) || !isfinite(peak) || peak <= 0)
		return NAN;
	return 100.0 * value / peak;
}

double gb_copy_gbps(double counted_bytes, long loops, double seconds)
{
	if (!(seconds > 0) || !isfinite(seconds) || loops <= 0)
		return NAN;
	return counted_bytes * (double)loops / seconds / 1e9;
}

int gb_copy_fit(enum gb_copy_test t, const double *sizes, const double *gbps, size_t n,
		double min_size, struct gb_alpha_beta *fit, size_t *used)
{
	double bytes[GB_COPY_SWEEP_MAX], secs[GB_COPY_SWEEP_MAX];
	size_t m = 0;

	for (size_t i = 0; i < n && m < GB_COPY_SWEEP_MAX; i++) {
		double b = gb_copy_counted_bytes(t, sizes[i]);

		if (!isfinite(gbps[i]) || gbps[i] <= 0 || !isfinite(b) || sizes[i] < min_size)
			continue;
		bytes[m] = b;
		secs[m] = b / (gbps[i] * 1e9);
		m++;
	}
	if (used)
		*used = m;
	return gb_fit_alpha_beta(fit, bytes, secs, m);
}

double gb_copy_fit_min_size(enum gb_copy_test t, double l2_bytes)
{
	double per_byte;

	if (t != GB_CT_D2D && !gb_copy_test_is_stream(t))
		return 0;
	if (!isfinite(l2_bytes) || l2_bytes <= 0)
		return 0;
	/* device memory each buffer byte touches: d2d reads and writes, add/triad three arrays */
	per_byte = gb_copy_dram_bytes(t, 1.0);
	return 2.0 * l2_bytes / per_byte;
}

bool gb_copy_beta_usable(const struct gb_alpha_beta *fit, double largest_counted_bytes,
			 double ceiling_bps, char *why, size_t len)
{
	if (!isfinite(fit->beta_bps) || fit->beta_bps <= 0) {
		snprintf(why, len, "the fit has no positive slope");
		return false;
	}
	if (!(fit->r2 >= GB_COPY_FIT_MIN_R2)) {
		snprintf(why, len, "the fit explains too little of the sweep (r2 %.2f, below %.2f)",
			 fit->r2, GB_COPY_FIT_MIN_R2);
		return false;
	}
	if (!(largest_counted_bytes >= 2 * fit->n_half_bytes)) {
		snprintf(why, len,
			 "the largest size fitted (%.0f B) is below twice n_half (%.0f B): the "
			 "curve did not approach its asymptote, so beta would be an extrapolation",
			 largest_counted_bytes, fit->n_half_bytes);
		return false;
	}
	if (isfinite(ceiling_bps) && ceiling_bps > 0 &&
	    fit->beta_bps > GB_COPY_FIT_MAX_OF_CEILING * ceiling_bps) {
		snprintf(why, len, "beta %.1f GB/s is above %.0f%% of the ceiling %.1f GB/s",
			 fit->beta_bps / 1e9, GB_COPY_FIT_MAX_OF_CEILING * 100, ceiling_bps / 1e9);
		return false;
	}
	why[0] = '\0';
	return true;
}

bool gb_copy_spread_high(double bytes, double cv)
{
	return bytes >= GB_COPY_SPREAD_MIN_BYTES && isfinite(cv) && cv > GB_COPY_SPREAD_MAX_CV;
}

void gb_copy_alloc_msg(char *buf, size_t len, int count, double bytes, const char *kind, int dev,
		       const char *cause)
{
	char size[32];

	gb_format_bytes(size, sizeof(size), bytes);
	snprintf(buf, len, "cannot allocate %d x %s of %s for device %d: %s", count, size, kind,
		 dev, cause);
}

int gb_pcie_downtrain(int gen, int width, int max_gen, int max_width, char *msg, size_t len)
{
	bool low_gen, low_width;

	if (gen <= 0 || width <= 0 || max_gen <= 0 || max_width <= 0) {
		snprintf(msg, len, "PCIe generation or width unknown");
		return -1;
	}
	low_gen = gen < max_gen;
	low_width = width < max_width;
	if (!low_gen && !low_width) {
		snprintf(msg, len, "PCIe link at Gen%d x%d under load, its maximum", gen, width);
		return 0;
	}
	snprintf(msg, len,
		 "PCIe link trained at Gen%d x%d under load, below its maximum Gen%d x%d (%s): "
		 "%.1f of %.1f GB/s per direction",
		 gen, width, max_gen, max_width,
		 low_gen && low_width ? "generation and width" : low_gen ? "generation" : "width",
		 gb_pcie_bandwidth_bps(gen, width) / 1e9,
		 gb_pcie_bandwidth_bps(max_gen, max_width) / 1e9);
	return 1;
}

int gb_nvlink_links_down(int links_up, int links_expected)
{
	if (links_up < 0 || links_expected <= 0)
		return -1;
	return links_up >= links_expected ? 0 : links_expected - links_up;
}

int gb_nvlink_judge(const struct gb_nvlink_view *v, int *sev, char *msg, size_t len)
{
	int up = v->links_up, want = v->links_expected;

	if (up < 0 || want <= 0)
		return -1;
	if (up >= want) {
		*sev = GB_SEV_INFO;
		snprintf(msg, len, "all %d of %d NVLink links up", up, want);
		return GB_STATUS_PASSED;
	}
	if (up > 0) {
		/* some links trained and others did not: a link is down, unless a card has
		 * fewer bridges fitted than it can take */
		*sev = v->pcie_board ? GB_SEV_WARNING : GB_SEV_ERROR;
		snprintf(msg, len, "NVLink link down: %d of %d links up%s", up, want,
			 v->pcie_board ? " (a PCIe card: a bridge may be missing)" : "");
		return v->pcie_board ? GB_STATUS_WARNING : GB_STATUS_FAILED;
	}
	if (v->nvlink_peer || (!v->pcie_board && v->n_gpus >= 2)) {
		*sev = GB_SEV_ERROR;
		snprintf(msg, len, "NVLink link down: 0 of %d links up%s", want,
			 v->nvlink_peer ? ", yet the topology shows NVLink to another GPU" : "");
		return GB_STATUS_FAILED;
	}
	if (!v->pcie_board) {
		*sev = GB_SEV_WARNING;
		snprintf(msg, len,
			 "0 of %d NVLink links up on a GPU seen alone: a link fault, or one GPU of "
			 "a board given to this machine (a VM) without its NVLink peers",
			 want);
		return GB_STATUS_WARNING;
	}
	*sev = GB_SEV_INFO;
	snprintf(msg, len, "no NVLink link up on a PCIe card: no bridge fitted (it takes %d links)",
		 want);
	return GB_STATUS_SKIPPED;
}

bool gb_p2p_slower_than_staged(double p2p_gbps, double staged_gbps, double margin)
{
	if (!isfinite(p2p_gbps) || !isfinite(staged_gbps) || staged_gbps <= 0 || p2p_gbps < 0)
		return false;
	return p2p_gbps < staged_gbps * (1.0 - margin);
}

enum gb_p2p_data gb_p2p_data_verdict(int p2p_access, bool peer_path, long long mismatches)
{
	if (mismatches < 0)
		return GB_P2P_DATA_UNTESTED;
	if (mismatches == 0)
		return GB_P2P_DATA_OK;
	/* wrong data through peer access the driver advertised: the RTX 4090 story */
	if (peer_path && p2p_access == 1)
		return GB_P2P_DATA_WRONG_ADVERTISED;
	return GB_P2P_DATA_WRONG;
}

const char *gb_p2p_topology_label(const char *type, int nvlink_count, char *buf, size_t len)
{
	static const struct {
		const char *type, *label;
	} labels[] = {
		{ "pcie_switch", "PCIe switch" },
		{ "pcie_host_bridge", "PCIe host bridge" },
		{ "cross_socket", "across sockets" },
		{ "same_board", "same board" },
	};

	if (type && !strcmp(type, "nvlink")) {
		if (nvlink_count > 0)
			snprintf(buf, len, "NVLink x%d", nvlink_count);
		else
			snprintf(buf, len, "NVLink");
		return buf;
	}
	snprintf(buf, len, "unknown");
	for (size_t i = 0; type && i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(type, labels[i].type))
			snprintf(buf, len, "%s", labels[i].label);
	return buf;
}

struct cJSON *gb_matrix_json(const double *m, size_t rows, size_t cols)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < rows; i++) {
		cJSON *row = cJSON_CreateArray();

		for (size_t j = 0; j < cols; j++) {
			double v = m[i * cols + j];

			/* a value that does not exist is null, never a string like "N/A" */
			cJSON_AddItemToArray(row, isfinite(v) ? cJSON_CreateNumber(v)
							      : cJSON_CreateNull());
		}
		cJSON_AddItemToArray(arr, row);
	}
	return arr;
}

struct cJSON *gb_string_matrix_json(const char *const *m, size_t rows, size_t cols)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < rows; i++) {
		cJSON *row = cJSON_CreateArray();

		for (size_t j = 0; j < cols; j++) {
			const char *s = m[i * cols + j];

			cJSON_AddItemToArray(row, s ? cJSON_CreateString(s) : cJSON_CreateNull());
		}
		cJSON_AddItemToArray(arr, row);
	}
	return arr;
}
