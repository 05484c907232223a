/* SPDX-License-Identifier: MIT */
/* gpu_test.c - skip-or-require logic for gpu-labelled tests; see gpu_test.h. */
#include "gpu_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/device/gpu.h"

int gb_test_require_gpu(void)
{
	char reason[256];
	int count = 0;
	const char *require = getenv("GPUBENCH_REQUIRE_GPU");

	if (gb_gpu_probe(&count, getenv("CUDA_VISIBLE_DEVICES"), reason, sizeof(reason)) ==
	    GB_PROBE_OK)
		return count;
	if (require && !strcmp(require, "1")) {
		fprintf(stderr, "GPU required (GPUBENCH_REQUIRE_GPU=1) but %s\n", reason);
		exit(1);
	}
	fprintf(stderr, "skipped: %s\n", reason);
	exit(77);
}

bool gb_test_on_simulator(void)
{
	/* the fake runtime's own symbol: the real static runtime has none */
	return dlsym(RTLD_DEFAULT, "gbsim_report_label") != NULL;
}

int gb_test_sim_args(const char *const *args, int n, const char **out, const char *opt,
		     const char *value)
{
	memcpy(out, args, sizeof(*args) * (size_t)n);
	if (!gb_test_on_simulator())
		return n;
	out[n] = opt;
	out[n + 1] = value;
	return n + 2;
}
