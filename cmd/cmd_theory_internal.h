/* SPDX-License-Identifier: MIT */
/*
 * cmd_theory_internal.h - what cmd_theory.c (options, configurations, the
 * report) and cmd_theory_text.c (the text output, --list) share.
 * May use: cmd/cmd.h, report/theory.h, report/scaling.h.
 */
#ifndef GPUBENCH_CMD_THEORY_INTERNAL_H
#define GPUBENCH_CMD_THEORY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "report/scaling.h"
#include "report/theory.h"

/* In enum gb_precision order, for the --precision option. */
extern const char *const precision_choices[];

struct theory_params {
	const char *gpu;
	bool list;
	int64_t count;
	int link;              /* index into gb_link_model_names; -1: the GPU's default */
	uint64_t grad_bytes;
	uint64_t bucket_bytes;
	double step_ms;        /* 0: not given */
	double step_tflop;     /* 0: not given */
	double mfu;            /* 0: not given (DEFAULT_MFU, and only with --step-tflop) */
	double overhead;
	double busbw_gbps;     /* 0: the link's nominal */
	double alpha_us;       /* < 0: the link's nominal */
	double price;          /* 0: not given */
	int precision;
	const char *compare;
	int compare_link;      /* -1: the compared GPU's default */
	double compare_price;  /* 0: not given */
	double compare_step_ms; /* 0: scaled from --step-ms */
};

enum step_source { STEP_GIVEN = 0, STEP_DEFAULT, STEP_FROM_WORK, STEP_SCALED };

struct theory_config {
	const struct gb_gpu_spec *spec;
	const struct gb_link_model *link;
	bool link_given;         /* --link/--compare-link, not the default */
	bool link_measured;      /* --busbw: priced from a measurement, not the nominal */
	enum step_source step_source;
	double price;            /* per GPU-hour, NAN if none */
	double rel_speed;        /* first configuration's step / this step: same work, this fast */
	double headline_flops;   /* --precision peak per GPU: spec sheet, else tables; 0 if none */
	struct gb_scaling_in in;
	struct gb_scaling_out out;
};

/* cmd_theory.c */
double headline_flops(const struct gb_gpu_spec *s, enum gb_precision p);

/* cmd_theory_text.c */
void print_text(FILE *out, const struct theory_config *cfg, size_t n,
		const struct theory_params *p);
void list_catalog(FILE *out);

#endif
