/* SPDX-License-Identifier: MIT */
/*
 * compare_key.h - the parts of compare's match key, shared with the fleet
 * merge (compare_key.c). Below both compare and fleet.
 */
#ifndef GPUBENCH_REPORT_COMPARE_KEY_H
#define GPUBENCH_REPORT_COMPARE_KEY_H

#include <stdbool.h>

struct cJSON;

/*
 * true for parameters that do not decide what is measured:
 * - how long or how often: duration*, warmup*, iterations, iters, samples,
 *   repeat*, runs, seed, timeout*, and keys ending in "_s" or "_ms";
 * - the software measured with: keys ending in "_version" (cuBLASLt, NCCL),
 *   so an upgrade is compared, not a new test; compare lists what differs;
 * - how it was measured, written down for the reader: layout, data,
 *   flop_count, timing, statistic, allreduce, launch, alltoall, rotation,
 *   rotating_copies, rotation_bytes, and keys ending in "_note".
 */
bool gb_param_ignored(const char *key);

/* "dtype=bf16,k=8192,m=8192" from the params object (sorted keys, ignored keys left out). Owned. */
char *gb_params_key(const struct cJSON *params);
/*
 * The same with the software versions kept: the fleet merge keeps nodes
 * that ran different cuBLASLt or NCCL versions apart, each with its own
 * params, where compare matches across them.
 */
char *gb_params_key_versioned(const struct cJSON *params);

#endif
