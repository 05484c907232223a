/* SPDX-License-Identifier: MIT */
/* info_math.c - findings of GPU collection as report checks (see info_math.h). */
#include "bench/device/info_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/device/copy_math.h"
#include "bench/device/lost_math.h"
#include "report/theory.h"

/* "a,b,c" as "a, b, c" for a message. */
static void spaced_list(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; in[i] && k + 2 < len; i++) {
		out[k++] = in[i];
		if (in[i] == ',' && k + 2 < len)
			out[k++] = ' ';
	}
	out[k < len ? k : len - 1] = '\0';
}

/* The slot allows less than the GPU can do: observed slot gen, threshold GPU gen. */
static bool slot_slower(const struct gb_run *run, const struct gb_device_note *n, int *slot)
{
	const struct gb_device_info *d = gb_run_find_device(run, n->device);

	*slot = d ? d->pcie_max_gen : -1;
	return n->nvml_asked && *slot > 0 && n->nvml.gpu_max_pcie_gen > *slot;
}

/*
 * The link trained narrower than card and slot allow. Idle, a GPU lowers
 * its link generation to save power but keeps its width, so only the width
 * is judged here: gb_pcie_downtrain's rule with the generation taken at its
 * maximum (`bandwidth` judges both under load).
 */
static bool link_narrow(const struct gb_run *run, const struct gb_device_note *n)
{
	const struct gb_device_info *d = gb_run_find_device(run, n->device);
	char why[256];

	return d && n->nvml_asked && d->pcie_gen > 0 &&
	       gb_pcie_downtrain(d->pcie_max_gen, d->pcie_width, d->pcie_max_gen,
				 d->pcie_max_width, why, sizeof(why)) == 1;
}

void gb_pcie_link_figures(int gen, int width, int max_gen, int max_width,
			  struct gb_pcie_figures *f)
{
	double now = gb_pcie_bandwidth_bps(gen, width);
	double at_max_gen = gb_pcie_bandwidth_bps(max_gen, width);
	double max = gb_pcie_bandwidth_bps(max_gen, max_width);

	f->now_bps = now > 0 ? now : NAN;
	f->at_max_gen_bps = at_max_gen > 0 ? at_max_gen : NAN;
	f->max_bps = max > 0 ? max : NAN;
}

static void pcie_link_check(struct gb_bench_result *res, const struct gb_run *run,
			    const struct gb_device_note *n)
{
	const struct gb_device_info *d = gb_run_find_device(run, n->device);
	struct gb_pcie_figures f;
	char back[96] = "";

	if (!link_narrow(run, n))
		return;
	gb_pcie_link_figures(d->pcie_gen, d->pcie_width, d->pcie_max_gen, d->pcie_max_width, &f);
	/* the figure is the link as trained now; an idle GPU may have lowered its
	 * generation, so say what the width allows back at the full generation */
	if (d->pcie_gen < d->pcie_max_gen)
		snprintf(back, sizeof(back), "; %.1f at Gen%d x%d if it returns to Gen%d under load",
			 f.at_max_gen_bps / 1e9, d->pcie_max_gen, d->pcie_width, d->pcie_max_gen);
	gb_bench_add_check(res, "pcie_link", GB_STATUS_WARNING, GB_SEV_WARNING, n->device,
			   d->pcie_width, d->pcie_max_width,
			   "GPU %d's PCIe link trained at Gen%d x%d, card and slot allow Gen%d x%d: "
			   "host transfers reach at most %.1f of %.1f GB/s per direction%s "
			   "(reseat the card or check the slot; `gpubench bandwidth` reads the "
			   "link under load)",
			   n->device, d->pcie_gen, d->pcie_width, d->pcie_max_gen, d->pcie_max_width,
			   f.now_bps / 1e9, f.max_bps / 1e9, back);
}

/* GPUs of one model: the same name and SM count. */
static bool same_model(const struct gb_device_info *a, const struct gb_device_info *b)
{
	return a->name && b->name && !strcmp(a->name, b->name) && a->sm_count == b->sm_count;
}

/*
 * The GPU has fewer NVLink links up than another GPU of its model here: its
 * peers' links show what the board has, so a GPU short of them has links
 * down (an HGX GPU whose links did not train). *most gets the peers' count
 * and *peer the first GPU that has it.
 */
static bool nvlink_behind(const struct gb_run *run, const struct gb_device_note *n, int *most,
			  int *peer)
{
	const struct gb_device_info *d = gb_run_find_device(run, n->device);

	*most = -1;
	*peer = -1;
	if (!d || !n->nvml_asked || d->nvlink_up < 0)
		return false;
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct gb_device_info *o = &run->devices[i];

		if (o->index != d->index && same_model(d, o) && o->nvlink_up > *most) {
			*most = o->nvlink_up;
			*peer = o->index;
		}
	}
	return *most > 0 && d->nvlink_up < *most;
}

static void nvlink_peer_check(struct gb_bench_result *res, const struct gb_run *run,
			      const struct gb_device_note *n)
{
	const struct gb_device_info *d = gb_run_find_device(run, n->device);
	int most, peer;

	if (!nvlink_behind(run, n, &most, &peer))
		return;
	gb_bench_add_check(res, "nvlink_peers", GB_STATUS_WARNING, GB_SEV_WARNING, n->device,
			   d->nvlink_up, most,
			   "GPU %d has %d NVLink link%s up while GPU %d of the same model has %d: "
			   "%s; peer traffic of GPU %d takes a slower path (`gpubench p2p` "
			   "measures it)",
			   n->device, d->nvlink_up, d->nvlink_up == 1 ? "" : "s", peer, most,
			   d->nvlink_up == 0 ? "its NVLinks are down" : "some of its NVLinks are down",
			   n->device);
}

/* NVML named another NVLink generation than the GPU model has. */
static bool nvlink_disagrees(const struct gb_device_note *n)
{
	return n->nvml_asked && n->nvml.nvlink_gen_nvml > 0 && n->nvml.nvlink_gen_known > 0 &&
	       n->nvml.nvlink_gen_nvml != n->nvml.nvlink_gen_known;
}

/* Power figures are not instantaneous (or of unknown kind): worth a note. */
static bool power_not_instant(const struct gb_device_note *n)
{
	return n->nvml_asked && n->nvml.power_fallback &&
	       n->nvml.power_source != GB_POWER_SOURCE_INSTANT;
}

static bool has_findings(const struct gb_run *run, const struct gb_info_notes *notes)
{
	int slot, most, peer;

	if (notes->nvml_error[0])
		return true;
	for (size_t i = 0; i < notes->n; i++) {
		const struct gb_device_note *n = &notes->dev[i];

		if (n->cuda_error[0] || (n->nvml_asked && n->nvml.n_unread) ||
		    slot_slower(run, n, &slot) || link_narrow(run, n) || nvlink_disagrees(n) ||
		    power_not_instant(n) || nvlink_behind(run, n, &most, &peer))
			return true;
	}
	return false;
}

static void nvlink_power_checks(struct gb_bench_result *res, const struct gb_device_note *n)
{
	const struct gb_nvml_gaps *g = &n->nvml;

	if (nvlink_disagrees(n))
		gb_bench_add_check(res, "nvlink_version", GB_STATUS_WARNING, GB_SEV_WARNING,
				   n->device, g->nvlink_gen_nvml, g->nvlink_gen_known,
				   "NVML answers NVLink version %d (NVLink %d) for GPU %d, whose model "
				   "has NVLink %d; its NVLink peak uses NVLink %d",
				   g->nvlink_version_raw, g->nvlink_gen_nvml, n->device,
				   g->nvlink_gen_known, g->nvlink_gen_known);
	if (power_not_instant(n))
		gb_bench_add_check(res, "power_source", GB_STATUS_PASSED, GB_SEV_INFO, n->device,
				   NAN, NAN,
				   "the driver has no instantaneous power reading for GPU %d: its "
				   "power figures are nvmlDeviceGetPowerUsage's, %s",
				   n->device,
				   g->power_source == GB_POWER_SOURCE_AVERAGE_1S ?
					   "averaged over one second" :
					   "of a kind NVML does not say (instantaneous or averaged)");
}

static void device_checks(struct gb_bench_result *res, const struct gb_run *run,
			  const struct gb_device_note *n)
{
	char fields[320];
	int slot;

	if (n->cuda_error[0])
		gb_bench_device_lost(res, n->device, GB_STATUS_ERROR,
				     "cannot read the properties of GPU %d: %s; it is left out",
				     n->device, n->cuda_error);
	if (n->nvml_asked && n->nvml.n_unread) {
		spaced_list(n->nvml.unread, fields, sizeof(fields));
		gb_bench_add_check(res, "nvml_fields", GB_STATUS_WARNING, GB_SEV_WARNING, n->device,
				   n->nvml.n_unread, 0,
				   "NVML could not read %d field%s of GPU %d: %s (null in the report)",
				   n->nvml.n_unread, n->nvml.n_unread == 1 ? "" : "s", n->device,
				   fields);
	}
	if (slot_slower(run, n, &slot))
		gb_bench_add_check(res, "pcie_slot", GB_STATUS_WARNING, GB_SEV_WARNING, n->device,
				   slot, n->nvml.gpu_max_pcie_gen,
				   "GPU %d supports PCIe Gen%d but its slot allows Gen%d at most; host "
				   "transfers are judged against Gen%d",
				   n->device, n->nvml.gpu_max_pcie_gen, slot, slot);
	pcie_link_check(res, run, n);
	nvlink_peer_check(res, run, n);
	nvlink_power_checks(res, n);
}

static const struct gb_check *first_warning(const struct gb_bench_result *res)
{
	for (size_t i = 0; i < res->n_checks; i++)
		if (res->checks[i].status == GB_STATUS_WARNING)
			return &res->checks[i];
	return NULL;
}

struct gb_bench_result *gb_info_notes_apply(struct gb_run *run, const struct gb_info_notes *notes)
{
	struct gb_bench_result *res;

	if (!has_findings(run, notes))
		return NULL;
	res = gb_run_add_bench(run, "info");
	for (size_t i = 0; i < notes->n; i++)
		gb_bench_add_device(res, notes->dev[i].device);
	if (notes->nvml_error[0])
		gb_bench_add_check(res, "nvml", GB_STATUS_WARNING, GB_SEV_WARNING, -1, NAN, NAN,
				   "telemetry unavailable: %s; clocks, power, ECC, PCIe and NVLink "
				   "fields are null and no telemetry is recorded",
				   notes->nvml_error);
	for (size_t i = 0; i < notes->n; i++)
		device_checks(res, run, &notes->dev[i]);
	/* warnings alone leave it passed; a lost GPU has already made it ERROR;
	 * notes (a passed power_source) leave it passed */
	if (res->status == GB_STATUS_PASSED && first_warning(res))
		gb_bench_set_status(res, GB_STATUS_WARNING, "%s", first_warning(res)->message);
	return res;
}

const char *gb_cuda_probe_hint(int cuda_error)
{
	switch (cuda_error) {
	case GB_CUDA_ERR_SYSTEM_NOT_READY:
		return "the system is not ready for CUDA: on an NVSwitch system (HGX, DGX) "
		       "start the NVIDIA fabric manager (nvidia-fabricmanager)";
	case GB_CUDA_ERR_DRIVER_MISMATCH:
		return "the driver's library (libcuda) and its kernel module are different "
		       "versions, often a container given another driver's libcuda: use the "
		       "host's, or reload the driver";
	case GB_CUDA_ERR_COMPAT_NOT_SUPPORTED:
		return "a CUDA forward-compatibility libcuda (cuda-compat) is in use on a GPU "
		       "it does not support: take it off the library path";
	default:
		return NULL;
	}
}

int gb_nvlink_gen_trusted(int nvml_gen, int known_gen, bool *mismatch)
{
	*mismatch = nvml_gen > 0 && known_gen > 0 && nvml_gen != known_gen;
	if (known_gen > 0)
		return known_gen;
	return nvml_gen > 0 ? nvml_gen : -1;
}

/* One entry of a CUDA architecture list. */
struct arch_entry {
	int major, minor;
	bool sass;     /* machine code: "-real", or a plain entry */
	bool ptx;      /* PTX: "-virtual", or a plain entry */
	bool specific; /* "a": runs on exactly this GPU */
};

/* "90", "90a", "100f", "75-real", "120-virtual"; false for anything else. */
static bool parse_arch(const char *s, size_t len, struct arch_entry *e)
{
	size_t digits = 0;
	int num = 0;

	while (digits < len && s[digits] >= '0' && s[digits] <= '9' && digits < 4)
		num = num * 10 + (s[digits++] - '0');
	if (digits < 2 || (digits < len && s[digits] >= '0' && s[digits] <= '9'))
		return false;
	e->major = num / 10;
	e->minor = num % 10;
	e->specific = digits < len && s[digits] == 'a';
	if (digits < len && (s[digits] == 'a' || s[digits] == 'f'))
		digits++;
	e->sass = e->ptx = true;
	if (digits == len)
		return true;
	if (len - digits == 5 && !strncmp(s + digits, "-real", 5)) {
		e->ptx = false;
		return true;
	}
	if (len - digits == 8 && !strncmp(s + digits, "-virtual", 8)) {
		e->sass = false;
		return true;
	}
	return false;
}

static bool entry_runs_on(const struct arch_entry *e, int major, int minor)
{
	int arch = e->major * 10 + e->minor, cc = major * 10 + minor;

	if (e->specific)
		return cc == arch;
	if (e->sass && major == e->major && minor >= e->minor)
		return true;
	return e->ptx && cc >= arch;
}

bool gb_cuda_archs_run_on(const char *archs, int cc_major, int cc_minor, int *oldest)
{
	bool judged = false, runs = false;
	struct arch_entry e;

	*oldest = -1;
	for (const char *p = archs ? archs : ""; *p;) {
		size_t len = strcspn(p, ",;");

		if (!parse_arch(p, len, &e))
			return true; /* "all", "native", a form this does not know */
		judged = true;
		if (*oldest < 0 || e.major * 10 + e.minor < *oldest)
			*oldest = e.major * 10 + e.minor;
		runs = runs || entry_runs_on(&e, cc_major, cc_minor);
		p += len;
		if (*p)
			p++;
	}
	return !judged || runs;
}
