/* SPDX-License-Identifier: MIT */
/*
 * info_math.h - what collecting the GPUs found that the report must show
 * (CPU only): NVML missing or partial, a GPU whose properties cannot be
 * read, a PCIe slot slower than its GPU. Each becomes a check of an "info"
 * entry in benchmarks[], so it reaches the verdict and every output format,
 * not only stderr.
 */
#ifndef GPUBENCH_BENCH_INFO_MATH_H
#define GPUBENCH_BENCH_INFO_MATH_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/device/nvml.h"
#include "report/result.h"

#define GB_INFO_MAX_DEVICES 64

/* One GPU as collection left it. */
struct gb_device_note {
	int device;               /* CUDA index */
	char cuda_error[256];     /* its properties could not be read: why; "" when they could */
	bool nvml_asked;          /* NVML was loaded and asked about it: nvml is valid */
	struct gb_nvml_gaps nvml;
};

struct gb_info_notes {
	char nvml_error[512];     /* NVML could not be loaded: why; "" when it was (or not tried) */
	struct gb_device_note dev[GB_INFO_MAX_DEVICES];
	size_t n;
};

/*
 * Add an "info" benchmark entry to run holding a check per finding in
 * notes, and return it; NULL (and nothing added) when there is none.
 *   nvml         WARNING  NVML could not be loaded (no telemetry, fields null)
 *   nvml_fields  WARNING  per GPU: the fields NVML could not read (unsupported
 *                         features, like ECC on GeForce, are not a finding)
 *   pcie_slot    WARNING  per GPU: the slot's maximum generation is below the
 *                         GPU's (observed: slot, threshold: GPU)
 *   pcie_link    WARNING  per GPU: the link trained narrower than card and
 *                         slot allow (observed: width, threshold: maximum
 *                         width); a lower generation is not judged, an idle
 *                         GPU lowers it to save power. The message gives
 *                         the link's figure as trained (Gen3 x8: 7.9 GB/s)
 *                         and, when the generation is lower too, the width's
 *                         figure at the maximum generation
 *   nvlink_peers WARNING  per GPU: fewer NVLink links up than another GPU of
 *                         its model in the run has (observed: its links up,
 *                         threshold: the most its peers have); `p2p` and
 *                         `bandwidth` fail it by measurement
 *   device_lost  ERROR    per GPU: its properties could not be read; `run`
 *                         leaves it out of every step (lost_math.h)
 *   nvlink_version WARNING per GPU: NVML's NVLink version names another
 *                         generation than the GPU model has (observed: NVML's
 *                         reading, threshold: the model's); peaks use the model's
 *   power_source INFO     per GPU (a passed note): the driver has no
 *                         instantaneous power field, so power figures are
 *                         nvmlDeviceGetPowerUsage's, a one-second average on
 *                         Ampere and newer (or of unknown kind)
 * The entry is WARNING when any check is, else it stays as its checks make it.
 */
/* A PCIe link's per-direction figures in bytes/s, NAN where unknown. */
struct gb_pcie_figures {
	double now_bps;        /* as trained now: generation and width */
	double at_max_gen_bps; /* its width at the maximum generation */
	double max_bps;        /* the maximum generation and width */
};
void gb_pcie_link_figures(int gen, int width, int max_gen, int max_width,
			  struct gb_pcie_figures *f);

struct gb_bench_result *gb_info_notes_apply(struct gb_run *run, const struct gb_info_notes *notes);

/*
 * What a user can do about a CUDA error met while counting the GPUs, for
 * the errors that have a known cause on a machine with a driver; NULL for
 * the others. Values are cudaError_t's (bench/device/gpu.c checks them against
 * the runtime's header): 802 cudaErrorSystemNotReady, 803
 * cudaErrorSystemDriverMismatch, 804 cudaErrorCompatNotSupportedOnDevice.
 */
#define GB_CUDA_ERR_SYSTEM_NOT_READY 802
#define GB_CUDA_ERR_DRIVER_MISMATCH 803
#define GB_CUDA_ERR_COMPAT_NOT_SUPPORTED 804
const char *gb_cuda_probe_hint(int cuda_error);

/*
 * The NVLink generation to price a GPU's links with. nvml_gen is what
 * NVML's nvmlDeviceGetNvLinkVersion names (-1 unread); known_gen the GPU
 * model's (catalog, else by compute capability; 0 unknown). A driver that
 * answers in another convention (the generation itself rather than an
 * nvmlNvlinkVersion_t) would halve or double the NVLink peak silently, so
 * the model's generation wins where it is known, and *mismatch says that
 * NVML disagreed (the report then warns). Returns the generation, -1 when
 * neither knows.
 */
int gb_nvlink_gen_trusted(int nvml_gen, int known_gen, bool *mismatch);

/*
 * Whether a GPU of compute capability cc_major.cc_minor can run anything of
 * a build whose CUDA architectures are archs (GPUBENCH_CUDA_ARCHS: CMake's
 * list with ',' or ';', entries like "80", "90a", "100f", "75-real",
 * "120-virtual"). Machine code for sm_XY runs on sm_XZ with Z >= Y ("a":
 * only on XY itself); PTX (plain entries and -virtual) is compiled by the
 * driver for any later GPU. oldest gets the oldest architecture as major*10
 * + minor (-1 if the list names none). True as well when the list cannot be
 * judged ("all", "native", empty): the probe refuses only what it knows.
 */
bool gb_cuda_archs_run_on(const char *archs, int cc_major, int cc_minor, int *oldest);

#endif
