/* SPDX-License-Identifier: MIT */
/*
 * registry.c - expands bench_list.h into the table of benchmarks: the one
 * place that names every family, so it stands above them all (cmd/ asks it
 * for a benchmark by name). The benchmarks' own runtime (progress, liveness,
 * the result model's lock) is bench/bench.c, below the families.
 */
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_list.h"

#define GB_BENCH_EXTERN(n) extern const struct gb_bench gb_bench_##n;
GB_BENCHES(GB_BENCH_EXTERN)

#define GB_BENCH_PTR(n) &gb_bench_##n,
static const struct gb_bench *const benches[] = { GB_BENCHES(GB_BENCH_PTR) NULL };

const struct gb_bench *const *gb_bench_all(size_t *n)
{
	*n = sizeof(benches) / sizeof(benches[0]) - 1;
	return benches;
}

const struct gb_bench *gb_bench_find(const char *name)
{
	for (size_t i = 0; benches[i]; i++)
		if (!strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}
