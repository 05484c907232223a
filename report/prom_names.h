/* SPDX-License-Identifier: MIT */
/*
 * prom_names.h - Prometheus names for report metrics (prom_names.c): the
 * base unit of each report unit and the family name of each metric, as the
 * naming conventions ask (https://prometheus.io/docs/practices/naming/):
 * seconds not us, bytes per second not GB/s, ratio 0..1 not percent,
 * hertz not MHz, one unit suffix at the end. CPU only.
 */
#ifndef GPUBENCH_REPORT_PROM_NAMES_H
#define GPUBENCH_REPORT_PROM_NAMES_H

/* A report unit ("GB/s") and what it is in base units (x 1e9, bytes_per_second). */
struct gb_prom_unit {
	const char *unit;   /* as the report writes it */
	double scale;       /* value in base units = value x scale */
	const char *suffix; /* the family's last word(s); "" for a plain number */
};

/* The base unit of a report unit; NULL when the unit is not in the table. */
const struct gb_prom_unit *gb_prom_unit_of(const char *unit);

/*
 * The family of metric `metric` of benchmark `bench` with unit u:
 * gpubench_<bench>_<metric without its unit words>_<suffix>, lowercase,
 * other characters than [a-z0-9_] as '_' ("tflops_bf16", TFLOP/s ->
 * gpubench_gemm_bf16_flops). keep_units keeps the metric's unit words (for
 * two metrics that would share a family otherwise). An unknown unit (u NULL)
 * keeps the name as it is, with no suffix. Never ends in _total, _count,
 * _sum, _bucket or _info (a gauge with those would read as another type),
 * never starts with a family of the report's own (gpubench_gpu_, ...).
 * Allocated.
 */
char *gb_prom_metric_family(const char *bench, const char *metric, const struct gb_prom_unit *u,
			    int keep_units);

#endif
