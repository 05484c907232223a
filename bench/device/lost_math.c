/* SPDX-License-Identifier: MIT */
/*
 * lost_math.c - which GPUs a run has lost, from the result model (CPU only).
 * See lost_math.h.
 */
#include "bench/device/lost_math.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool gb_cuda_code_is_sticky(int code)
{
	switch (code) {
	case 214: /* cudaErrorECCUncorrectable */
	case 220: /* cudaErrorNvlinkUncorrectable */
	case 226: /* cudaErrorContained: Hopper error containment (Xid 94/95) */
	case 700: /* cudaErrorIllegalAddress */
	case 702: /* cudaErrorLaunchTimeout */
	case 710: /* cudaErrorAssert */
	case 714: /* cudaErrorHardwareStackError */
	case 715: /* cudaErrorIllegalInstruction */
	case 716: /* cudaErrorMisalignedAddress */
	case 717: /* cudaErrorInvalidAddressSpace */
	case 718: /* cudaErrorInvalidPc */
	case 719: /* cudaErrorLaunchFailure */
	case 721: /* cudaErrorTensorMemoryLeak */
	case 810: /* cudaErrorMpsClientTerminated */
	case 911: /* cudaErrorExternalDevice */
	case 999: /* cudaErrorUnknown: what many calls answer after Xid 79 (off the bus) */
		return true;
	default:
		/*
		 * Not 46 (cudaErrorDevicesUnavailable): that is a GPU busy in
		 * exclusive-process mode, which says nothing about its health.
		 */
		return false;
	}
}

void gb_bench_device_lost(struct gb_bench_result *res, int device, enum gb_status st,
			  const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gb_bench_add_check(res, GB_CHECK_DEVICE_LOST, st, GB_SEV_ERROR, device, NAN, NAN, "%s",
			   msg);
}

static bool is_bad(enum gb_status st)
{
	return st == GB_STATUS_FAILED || st == GB_STATUS_ERROR;
}

/* Whether check c marks its device lost, and whether as hung. */
static bool marks_lost(const struct gb_check *c, bool *hung)
{
	const char *msg = c->message ? c->message : "";

	*hung = strstr(msg, "hung:") != NULL;
	if (c->device < 0 || !is_bad(c->status) || !c->name)
		return false;
	if (!strcmp(c->name, GB_CHECK_DEVICE_LOST))
		return true;
	if (!strcmp(c->name, "cuda_error") && c->status == GB_STATUS_FAILED)
		return true;
	return *hung;
}

bool gb_bench_device_is_lost(const struct gb_bench_result *res, int device)
{
	bool hung;

	for (size_t i = 0; res && i < res->n_checks; i++)
		if (res->checks[i].device == device && marks_lost(&res->checks[i], &hung))
			return true;
	return false;
}

const struct gb_lost *gb_lost_find(const struct gb_lost_set *set, int device)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (set->gpu[i].device == device)
			return &set->gpu[i];
	return NULL;
}

size_t gb_lost_scan(struct gb_lost_set *set, const struct gb_bench_result *res)
{
	size_t added = 0;

	for (size_t i = 0; i < res->n_checks; i++) {
		const struct gb_check *c = &res->checks[i];
		struct gb_lost *l;
		bool hung;

		if (!marks_lost(c, &hung) || gb_lost_find(set, c->device) || set->n >= GB_LOST_MAX)
			continue;
		l = &set->gpu[set->n++];
		l->device = c->device;
		l->hung = hung;
		snprintf(l->bench, sizeof(l->bench), "%s", res->name ? res->name : "?");
		snprintf(l->reason, sizeof(l->reason), "%s", c->message ? c->message : c->name);
		added++;
	}
	return added;
}

bool gb_lost_any_hung(const struct gb_lost_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->gpu[i].hung)
			return true;
	return false;
}

size_t gb_lost_filter(const struct gb_lost_set *set, const int *in, size_t n, int *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!gb_lost_find(set, in[i]))
			out[k++] = in[i];
	return k;
}

size_t gb_lost_note(const struct gb_lost_set *set, const int *wanted, size_t n,
		    struct gb_bench_result *res)
{
	size_t noted = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gb_lost *l = gb_lost_find(set, wanted[i]);

		if (!l)
			continue;
		gb_bench_add_check(res, GB_CHECK_LOST_GPU_SKIPPED, GB_STATUS_SKIPPED, GB_SEV_WARNING,
				   l->device, NAN, NAN, "GPU %d lost in %s: %s", l->device,
				   l->bench, l->reason);
		noted++;
	}
	return noted;
}
