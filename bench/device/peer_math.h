/* SPDX-License-Identifier: MIT */
/*
 * peer_math.h - GPUs of one model compared with each other (CPU only).
 *
 * Eight GPUs of one model should measure alike; one that reads well below
 * the best of its peers is a finding even when it clears its absolute
 * limit (a GPU at 80 % of its speed still reaches 70 % of peak). Every
 * benchmark that runs on several GPUs (gemm, bandwidth, p2p, stress, nccl
 * per rank) judges its headline figures with this one arithmetic, with one
 * tolerance the user sets with --peer-tolerance (gpu-fryer's default: 10 %
 * below the best fails). docs/thresholds.md, "Peers".
 */
#ifndef GPUBENCH_BENCH_PEER_MATH_H
#define GPUBENCH_BENCH_PEER_MATH_H

#include <stdbool.h>
#include <stddef.h>

#include "report/result.h"

/* a GPU more than this fraction below the best of its model fails */
#define GB_PEER_TOLERANCE_DEFAULT 0.10

/*
 * The best of n values (higher is better) and how far each lies below it:
 * below[i] = (best - v[i]) / best, NAN where v[i] is not a positive finite
 * number. Returns the index of the best, or -1 when fewer than two values
 * are usable (nothing to compare).
 */
int gb_peer_best(const double *v, size_t n, double *below);

/* Whether a GPU below[i] under the best fails at tolerance tol (NAN never fails). */
bool gb_peer_fails(double below, double tol);

/*
 * One line for a GPU against its peers, e.g. "GPU 2 bf16 18.6% below its
 * peers (99.5 vs best 122.3 TFLOP/s on GPU 0)", or "GPU 1 bf16 within 0.4%
 * of its peers (best 122.3 TFLOP/s on GPU 0)" when it does not fail. who
 * names the GPU ("GPU 2", "rank 3 (GPU 3)", "GPU 0 -> 1"), what the
 * quantity ("bf16", "h2d_gbps").
 */
void gb_peer_message(char *buf, size_t len, const char *who, const char *what, double value,
		     double best, const char *best_who, const char *unit, double tol);

/*
 * Add peer checks to b for every metric it holds that want() selects
 * (NULL: every metric), higher is better, with a device, of GPUs of the
 * same model in run (devices[].name and SM count; a report without device
 * records groups by metric name alone): for each group of two or more GPUs,
 * a FAILED check "<metric>_peers" (severity error) on each GPU more than tol
 * below the best, naming it and the best GPU; when none is, one PASSED
 * check of the group (device -1) saying how far apart they were. what() turns a metric name into
 * the words of the message (NULL: the name). Returns the number of GPUs
 * that failed.
 */
size_t gb_peer_checks(struct gb_bench_result *b, const struct gb_run *run,
		      bool (*want)(const struct gb_metric *m), const char *(*what)(const char *metric),
		      double tol);

#endif
