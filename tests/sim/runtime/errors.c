/* SPDX-License-Identifier: MIT */
/*
 * errors.c - error names and strings, the per-thread last error, the sticky
 * per-device error a faulting kernel leaves, and the simulator's log.
 */
#include "tests/sim/runtime/rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct err_text {
	cudaError_t err;
	const char *name;
	const char *text;
};

#define E(code, text) {code, #code, text}
/* the texts the real runtime gives, for the errors this project can meet */
static const struct err_text err_texts[] = {
	E(cudaSuccess, "no error"),
	E(cudaErrorInvalidValue, "invalid argument"),
	E(cudaErrorMemoryAllocation, "out of memory"),
	E(cudaErrorInitializationError, "initialization error"),
	E(cudaErrorCudartUnloading, "driver shutting down"),
	E(cudaErrorInvalidConfiguration, "invalid configuration argument"),
	E(cudaErrorInvalidPitchValue, "invalid pitch argument"),
	E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
	E(cudaErrorInsufficientDriver,
	  "CUDA driver version is insufficient for CUDA runtime version"),
	E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
	E(cudaErrorInvalidDevice, "invalid device ordinal"),
	E(cudaErrorDeviceUninitialized, "invalid device context"),
	E(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
	E(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
	E(cudaErrorInvalidDeviceFunction, "invalid device function"),
	E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
	E(cudaErrorSymbolNotFound, "named symbol not found"),
	E(cudaErrorNotReady, "device not ready"),
	E(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
	E(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
	E(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
	E(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
	E(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
	E(cudaErrorPeerAccessUnsupported, "peer access is not supported between these two devices"),
	E(cudaErrorECCUncorrectable, "uncorrectable ECC error encountered"),
	E(cudaErrorHardwareStackError, "hardware stack error"),
	E(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
	E(cudaErrorMisalignedAddress, "misaligned address"),
	E(cudaErrorAssert, "device-side assert triggered"),
	E(cudaErrorLaunchFailure, "unspecified launch failure"),
	E(cudaErrorNotPermitted, "operation not permitted"),
	E(cudaErrorNotSupported, "operation not supported"),
	E(cudaErrorDevicesUnavailable, "CUDA-capable device(s) is/are busy or unavailable"),
	E(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
	E(cudaErrorStreamCaptureInvalidated,
	  "operation failed due to a previous error during capture"),
	E(cudaErrorStreamCaptureUnmatched, "capture was not initiated in this stream"),
	E(cudaErrorStreamCaptureImplicit,
	  "operation would make the legacy stream depend on a capturing blocking stream"),
	E(cudaErrorTimeout, "wait operation timed out"),
	E(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
	E(cudaErrorContextIsDestroyed, "context is destroyed"),
	E(cudaErrorUnknown, "unknown error"),
};
#undef E

static const struct err_text *find_err(cudaError_t err)
{
	for (size_t i = 0; i < sizeof(err_texts) / sizeof(err_texts[0]); i++)
		if (err_texts[i].err == err)
			return &err_texts[i];
	return NULL;
}

const char *cudaGetErrorName(cudaError_t error)
{
	const struct err_text *t = find_err(error);

	return t ? t->name : "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
	const struct err_text *t = find_err(error);

	return t ? t->text : "unrecognized error code";
}

/* ---- last error (per thread) and sticky errors (per device) ---- */

static _Thread_local cudaError_t last_error = cudaSuccess;
static pthread_mutex_t sticky_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaError_t sticky[GBSIM_MAX_GPUS];

cudaError_t rt_ret(cudaError_t err)
{
	if (err != cudaSuccess)
		last_error = err;
	return err;
}

cudaError_t rt_sticky(int device)
{
	cudaError_t e;

	if (device < 0 || device >= GBSIM_MAX_GPUS)
		return cudaSuccess;
	pthread_mutex_lock(&sticky_lock);
	e = sticky[device];
	pthread_mutex_unlock(&sticky_lock);
	return e;
}

void rt_set_sticky(int device, cudaError_t err, const char *what)
{
	bool first;

	if (device < 0 || device >= GBSIM_MAX_GPUS || err == cudaSuccess)
		return;
	pthread_mutex_lock(&sticky_lock);
	first = sticky[device] == cudaSuccess;
	if (first)
		sticky[device] = err;
	pthread_mutex_unlock(&sticky_lock);
	if (first)
		gbsim_log("GPU %d: '%s' failed with %s: the device's context is now unusable "
			  "(sticky error) until cudaDeviceReset", device, what, cudaGetErrorName(err));
}

void rt_clear_sticky(int device)
{
	if (device < 0 || device >= GBSIM_MAX_GPUS)
		return;
	pthread_mutex_lock(&sticky_lock);
	sticky[device] = cudaSuccess;
	pthread_mutex_unlock(&sticky_lock);
}

/* The last error, or the sticky error of the current device, which never clears. */
cudaError_t cudaGetLastError(void)
{
	cudaError_t s = rt_sticky(gbsim_current_device());
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return s != cudaSuccess ? s : e;
}

cudaError_t cudaPeekAtLastError(void)
{
	cudaError_t s = rt_sticky(gbsim_current_device());

	return s != cudaSuccess ? s : last_error;
}

/* ---- log ---- */

void gbsim_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write per line, so lines from several threads do not interleave */
	fprintf(stderr, "gpubench-sim: %s\n", line);
}

void rt_fatal(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "gpubench-sim: fatal: %s\n", line);
	fflush(NULL);
	_Exit(2);
}

/* "2x-rtx4090-pcie (tests/sim/machines/2x-rtx4090-pcie.json)", built once */
static char report_label[sizeof(((struct gbsim_machine *)0)->name) +
			 sizeof(((struct gbsim_machine *)0)->path) + 4];
static pthread_once_t report_label_once = PTHREAD_ONCE_INIT;

static void make_report_label(void)
{
	const struct gbsim_machine *m = gbsim_machine();

	snprintf(report_label, sizeof(report_label), "%s (%s)", m->name, m->path);
}

__attribute__((visibility("default"))) const char *gbsim_report_label(void)
{
	pthread_once(&report_label_once, make_report_label);
	return report_label;
}

__attribute__((visibility("default"))) const char *gbsim_hostname(void)
{
	const struct gbsim_machine *m = gbsim_machine();

	return m->hostname[0] ? m->hostname : NULL;
}
