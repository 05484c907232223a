/* SPDX-License-Identifier: MIT */
/* info_math.c - findings of GPU collection as report checks (see info_math.h). */
#include "bench/info_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/lost_math.h"

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

static bool has_findings(const struct gb_run *run, const struct gb_info_notes *notes)
{
	int slot;

	if (notes->nvml_error[0])
		return true;
	for (size_t i = 0; i < notes->n; i++) {
		const struct gb_device_note *n = &notes->dev[i];

		if (n->cuda_error[0] || (n->nvml_asked && n->nvml.n_unread) ||
		    slot_slower(run, n, &slot))
			return true;
	}
	return false;
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
	/* warnings alone leave it passed; a lost GPU has already made it ERROR */
	if (res->status == GB_STATUS_PASSED)
		gb_bench_set_status(res, GB_STATUS_WARNING, "%s", res->checks[0].message);
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
