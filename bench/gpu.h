/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - finding out whether and which GPUs can run, and the checked-call
 * macros every CUDA-using benchmark shares.
 *
 * gb_gpu_probe() tells apart the three ways a machine cannot run: no driver,
 * a driver too old for this build, no GPU. gb_devices_collect() fills the
 * run's device list from the CUDA runtime, enriches it from NVML (matched by
 * PCI bus id) and adds each GPU's theoretical peaks and the pairwise topology.
 */
#ifndef GPUBENCH_BENCH_GPU_H
#define GPUBENCH_BENCH_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../report/result.h"

enum gb_probe {
	GB_PROBE_OK = 0,
	GB_PROBE_NO_DRIVER,      /* libcuda.so.1 missing */
	GB_PROBE_OLD_DRIVER,     /* driver supports an older CUDA than this build */
	GB_PROBE_NO_GPU,         /* driver present, no visible CUDA device */
	GB_PROBE_CUDA_ERROR      /* any other failure, reason says which */
};

/*
 * Probe once. *count gets the number of visible devices (0 unless OK). reason
 * gets one line for the user when not OK, e.g. "no NVIDIA driver found
 * (libcuda.so.1 could not be loaded)". cuda_visible is the value of
 * CUDA_VISIBLE_DEVICES or NULL, mentioned in the no-GPU reason.
 */
enum gb_probe gb_gpu_probe(int *count, const char *cuda_visible, char *reason, size_t len);

/* Driver and runtime versions (0 when absent) into host. */
void gb_gpu_versions(struct gb_host_info *host);

/*
 * Append every visible device to run->devices with CUDA properties, NVML
 * fields (when NVML is loaded), and peaks; then the topology pairs. missing
 * collects NVML fields that could not be read. Returns 0, -1 on CUDA error.
 */
int gb_devices_collect(struct gb_run *run, char *missing, size_t missing_len);

/* The exact CUDA error name and text for messages: "cudaErrorMemoryAllocation (out of memory)" */
const char *gb_cuda_errstr(cudaError_t e, char *buf, size_t len);

/* Sticky errors poison the context: the GPU needs a process restart or reset. */
int gb_cuda_error_is_sticky(cudaError_t e);

/*
 * GB_CUDA_GOTO(res, call, label): on failure set the benchmark ERROR with
 * "'call' failed: name (text) at file:line", set rc = -1 and jump to label.
 * Expects `int rc` in scope.
 */
#define GB_CUDA_GOTO(res, call, label)                                                        \
	do {                                                                                  \
		cudaError_t gb_e_ = (call);                                                   \
		if (gb_e_ != cudaSuccess) {                                                   \
			char gb_b_[160];                                                      \
			gb_bench_set_status((res), GB_STATUS_ERROR, "'%s' failed: %s at %s:%d", \
					    #call, gb_cuda_errstr(gb_e_, gb_b_, sizeof(gb_b_)), \
					    __FILE__, __LINE__);                              \
			rc = -1;                                                              \
			goto label;                                                           \
		}                                                                             \
	} while (0)

#endif
