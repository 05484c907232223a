/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - finding out whether and which GPUs can run, and the checked-call
 * macros every CUDA-using benchmark shares.
 *
 * gb_gpu_probe() tells apart the ways a machine cannot run: no driver, a
 * driver too old for this build, no GPU, a GPU older than every architecture
 * the build has (GPUBENCH_CUDA_ARCHS). gb_devices_collect() fills the
 * run's device list from the CUDA runtime, enriches it from NVML (matched by
 * PCI bus id) and adds each GPU's theoretical peaks and the pairwise topology.
 */
#ifndef GPUBENCH_BENCH_GPU_H
#define GPUBENCH_BENCH_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "report/result.h"

enum gb_probe {
	GB_PROBE_OK = 0,
	GB_PROBE_NO_DRIVER,      /* libcuda.so.1 missing */
	GB_PROBE_OLD_DRIVER,     /* driver supports an older CUDA than this build */
	GB_PROBE_NO_GPU,         /* driver present, no visible CUDA device */
	GB_PROBE_OLD_GPU,        /* a visible GPU none of the built architectures runs on */
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
 * collects NVML fields that could not be read. A GPU whose properties
 * cannot be read is still listed (index, and what NVML knows), so one bad
 * GPU does not hide the others. Returns 0 when at least one GPU could be
 * read, -1 when none (or the devices cannot even be counted).
 */
int gb_devices_collect(struct gb_run *run, char *missing, size_t missing_len);

/*
 * The same, recording per GPU what the report must show (an unreadable GPU,
 * NVML fields it could not read, the GPU's own maximum PCIe generation) in
 * notes; notes->nvml_error is left as the caller set it. Apply them with
 * gb_info_notes_apply(). Returns the number of GPUs whose properties were
 * read, or -1 when the devices cannot be counted.
 */
struct gb_info_notes;
int gb_devices_collect_noted(struct gb_run *run, struct gb_info_notes *notes);

/* The exact CUDA error name and text for messages: "cudaErrorMemoryAllocation (out of memory)" */
const char *gb_cuda_errstr(cudaError_t e, char *buf, size_t len);

/* Sticky errors poison the context: the GPU needs a process restart or reset. */
int gb_cuda_error_is_sticky(cudaError_t e);

/*
 * A CUDA call of a benchmark failed on GPU device. A sticky error is a
 * finding about that GPU: a FAILED `device_lost` check on it (the benchmark
 * becomes FAILED, exit 1), which also tells `run` to leave the GPU out of
 * its later steps. Any other error is could-not-run: the benchmark ERROR
 * with the message (a benchmark already FAILED or interrupted stays so,
 * with an ERROR check `cuda_call`). The message is "'call' failed on GPU n:
 * name (text) at file:line" (no "on GPU n" when device is -1, unknown).
 * Returns -1, for `rc = gb_cuda_fail(...)`.
 */
int gb_cuda_fail(struct gb_bench_result *res, int device, const char *call, cudaError_t e,
		 const char *file, int line);

/*
 * GB_CUDA_GOTO_DEV(res, dev, call, label): on failure of a call on GPU dev,
 * rc = gb_cuda_fail(...) and jump to label. Expects `int rc` in scope.
 */
#define GB_CUDA_GOTO_DEV(res, dev, call, label)                                           \
	do {                                                                              \
		cudaError_t gb_e_ = (call);                                               \
		if (gb_e_ != cudaSuccess) {                                               \
			rc = gb_cuda_fail((res), (dev), #call, gb_e_, __FILE__, __LINE__); \
			goto label;                                                       \
		}                                                                         \
	} while (0)

/*
 * The calling thread's current CUDA device (what cudaSetDevice last chose
 * on this thread), or -1 when CUDA cannot say. For GB_CUDA_GOTO, which is
 * used where the device is implied rather than named.
 */
int gb_cuda_current_device(void);

/*
 * GB_CUDA_GOTO(res, call, label): GB_CUDA_GOTO_DEV on the calling thread's
 * current device. Every call site of a benchmark sets its device before its
 * CUDA calls, so a sticky error still marks the right GPU lost (FAILED, and
 * `run` leaves it out later) rather than passing as could-not-run. Expects
 * `int rc` in scope.
 */
#define GB_CUDA_GOTO(res, call, label)                                                        \
	do {                                                                                  \
		cudaError_t gb_e_ = (call);                                                   \
		if (gb_e_ != cudaSuccess) {                                                   \
			rc = gb_cuda_fail((res), gb_cuda_current_device(), #call, gb_e_,       \
					  __FILE__, __LINE__);                                \
			goto label;                                                           \
		}                                                                             \
	} while (0)

#endif
