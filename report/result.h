/* SPDX-License-Identifier: MIT */
/*
 * result.h - the result model: everything one gpubench run measured and
 * concluded, independent of how it is printed (CPU only).
 *
 * bench/ fills it (metrics with units, direction and sample statistics;
 * checks with status and reason), report/ serialises it (json.c, text.c) and
 * loads it back (load.c), cmd/ decides the exit code from it. Every struct
 * starts zeroed; numbers that are unknown are NAN (doubles) or -1 (ints) and
 * become JSON null. Strings are owned copies (gb_strdup), freed by
 * gb_run_release().
 */
#ifndef GPUBENCH_REPORT_RESULT_H
#define GPUBENCH_REPORT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "report/better.h"

#define GB_REPORT_SCHEMA "gpubench.report/1"

struct cJSON;
struct gb_published;
struct gb_fault_action;

/* Status of a run, a benchmark, or a check. */
enum gb_status {
	GB_STATUS_PASSED = 0, /* ran, and every check passed */
	GB_STATUS_WARNING,    /* ran, passed, with warnings (checks only, and verdicts) */
	GB_STATUS_FAILED,     /* ran, and a check failed: a finding */
	GB_STATUS_SKIPPED,    /* not applicable here (reason says why); never a pass */
	GB_STATUS_ERROR,      /* could not run: no driver, no GPU, OOM, library missing */
	GB_STATUS_NOT_BUILT,  /* compiled out */
	GB_STATUS_INTERRUPTED /* stopped by SIGINT/SIGTERM; partial data */
};
/* "passed", "warning", "failed", "skipped", "error", "not_built", "interrupted" */
const char *gb_status_name(enum gb_status s);
/* -1 if unknown */
int gb_status_from_name(const char *name);

/* "none", "higher", "lower" */
const char *gb_better_name(enum gb_better b);
int gb_better_from_name(const char *name);

enum gb_severity { GB_SEV_INFO = 0, GB_SEV_WARNING, GB_SEV_ERROR };
const char *gb_severity_name(enum gb_severity s);
int gb_severity_from_name(const char *name);

/* One measured quantity. */
struct gb_metric {
	char *name;          /* short snake_case id: "tflops", "h2d_bw_gbps" */
	char *unit;          /* "TFLOP/s", "GB/s" (decimal), "us" */
	enum gb_better better;
	int device;          /* CUDA device index it belongs to, -1 for none/all */
	double value;        /* headline value: the median of samples when there are samples */
	struct gb_stats stats; /* stats.n == 0 when there are no samples */
	double *samples;     /* raw samples, owned; may be NULL */
	size_t n_samples;
	double peak;         /* theoretical peak in the same unit, NAN if none */
	double efficiency;   /* value / peak, a fraction; NAN if no peak */
	char *description;   /* optional human text, may be NULL */
	/* what healthy GPUs of this model reach (report/published.h), NULL if no figure;
	 * static data, not owned; set by gb_published_annotate() */
	const struct gb_published *published;
};

/* One pass/fail judgement, e.g. "bf16 TFLOPS at least 70% of peak". */
struct gb_check {
	char *name;
	enum gb_status status;   /* PASSED, WARNING, FAILED, SKIPPED or ERROR */
	enum gb_severity severity;
	int device;              /* -1 for none */
	double observed;         /* NAN if not numeric */
	double threshold;        /* NAN if none */
	char *message;           /* one line saying what was seen and why it matters */
	/* the XIDs the check saw, in the order seen (the stress "xid" check;
	 * report/fault_action.c takes the action from them); owned, NULL if none */
	unsigned long long *xids;
	size_t n_xids;
	/* what to do about a fault finding (report/fault_action.h), NULL if none;
	 * static data, not owned; set by gb_fault_actions_annotate() */
	const struct gb_fault_action *action;
	int action_steps;        /* steps the action went up because the GPU failed again */
	char *action_because;    /* why it went up (owned), NULL when it did not */
};

/* An x/y curve, e.g. bandwidth against size, TFLOPS over time. */
struct gb_series {
	char *name;
	char *x_unit;
	char *y_unit;
	int device;              /* -1 for none */
	double *x;
	double *y;
	size_t n;
	size_t cap;
};

/* One benchmark's result (one entry of report.benchmarks[]). */
struct gb_bench_result {
	char *name;              /* "gemm", "bandwidth", ... */
	enum gb_status status;
	char *reason;            /* why skipped/error/failed; may be NULL when passed */
	struct cJSON *params;    /* object: the parameters it ran with (owned) */
	struct cJSON *extra;     /* object: benchmark-specific detail, e.g. matrices (owned, may be NULL) */
	int *devices;            /* CUDA indices it ran on */
	size_t n_devices;
	struct gb_metric *metrics;
	size_t n_metrics, cap_metrics;
	struct gb_check *checks;
	size_t n_checks, cap_checks;
	struct gb_series *series;
	size_t n_series, cap_series;
	double started_s;        /* seconds since run start, NAN if unknown */
	double duration_s;
};

/* What one GPU is and what it could do in theory. Unknown: NAN / -1 / NULL. */
struct gb_peaks {
	/* FLOP/s (OP/s for int8) by enum gb_precision at three clocks */
	double spec[16];         /* spec sheet (NAN when the GPU is not in the catalog) */
	double max_clock[16];    /* tables x SM count x device max SM clock */
	double mem_bw_bps_spec;  /* spec sheet */
	double mem_bw_bps;       /* from max memory clock and bus width */
	double pcie_bps;         /* per direction at max generation and width */
	double pcie_bps_current; /* per direction at current generation and width */
	double nvlink_bps;       /* per direction, all links up */
};

struct gb_device_info {
	int index;               /* CUDA index as the process sees it */
	char *name;
	char *uuid;
	char *pci_bus_id;        /* "00000000:65:00.0" */
	char *brand;             /* NVML brand, may be NULL */
	char *spec_key;          /* catalog key when recognised, else NULL */
	int cc_major, cc_minor;
	int sm_count;
	double memory_bytes;
	double l2_bytes;
	double max_sm_mhz;
	double max_mem_mhz;
	int mem_bus_bits;
	int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
	int pcie_gpu_max_gen;    /* the GPU's own maximum; pcie_max_gen is the lesser of GPU and slot */
	double power_limit_w;
	/* what this GPU's power figures are: "instant", "average_1s" (a static string), NULL unknown */
	const char *power_source;
	int ecc;                 /* 1 on, 0 off, -1 unknown */
	int numa_node;
	int nvlink_up;           /* links up, -1 unknown */
	int nvlink_gen;          /* -1 unknown */
	int nvlink_version_raw;  /* NVML's own answer, before it is checked against the model; -1 unknown */
	struct gb_peaks peaks;
};

/* Relationship of one ordered pair of GPUs. */
struct gb_link {
	int a, b;
	char *type;              /* "nvlink", "pcie_switch", "pcie_host_bridge", "cross_socket", "same_board", "unknown" */
	int nvlink_count;        /* links between a and b, -1 unknown */
	int p2p_access;          /* cudaDeviceCanAccessPeer: 1/0, -1 unknown */
};

struct gb_telemetry_sample {
	int device;
	double t_s;              /* seconds since run start */
	double temp_c, power_w, sm_mhz, mem_mhz, util_pct, mem_used_bytes;
	uint64_t clock_event_reasons; /* NVML clocks-event bitmask */
	bool have_reasons;
	double tflops;           /* per-interval throughput when the load reports it, else NAN */
};

struct gb_host_info {
	char *hostname;
	char *os;
	char *kernel;
	char *cpu;
	char *driver_version;    /* NVML "580.65.06", NULL if unknown */
	int cuda_driver_version; /* cudaDriverGetVersion, 0 when no driver, -1 unknown */
	int cuda_runtime_version;
	/* versions of the libraries gpubench loads at run time (cublasLtGetVersion,
	 * ncclGetVersion); -1 when not looked at or not loadable */
	int cublaslt_version;
	int nccl_version;
	/* written by gpubench-sim, the simulated GPU of tests/sim (host.c): the numbers
	 * are not measurements, and compare refuses to set them against real ones */
	bool simulated;
	char *simulated_machine; /* the simulator's label of its machine file, NULL if none */
};

struct gb_tool_info {
	char *version;
	char *git;
	int built_cuda;          /* CUDART_VERSION at build time */
	int built_cublas;        /* CUBLAS_VERSION, -1 if none */
	int built_nccl;          /* NCCL_VERSION_CODE, -1 if built without NCCL */
	char *built_mpi;         /* MPI library version string, NULL if built without MPI */
	char *cuda_archs;
};

/* A named key/value string pair (whitelisted environment). */
struct gb_kv {
	char *key;
	char *value;
};

struct gb_run {
	struct gb_tool_info tool;
	char *command;           /* "info", "gemm", ... */
	char **argv;             /* full command line, owned */
	int argc;
	char *started_at;        /* ISO 8601 UTC */
	char *finished_at;
	enum gb_status status;
	char *reason;            /* why the run as a whole is error/skipped, NULL otherwise */
	int exit_code;
	struct gb_host_info host;
	struct gb_kv *env;       /* whitelisted variables only (CUDA_VISIBLE_DEVICES, NCCL_*, ...) */
	size_t n_env;
	struct gb_device_info *devices;
	size_t n_devices;
	struct gb_link *links;
	size_t n_links;
	struct gb_bench_result *benches;
	size_t n_benches, cap_benches;
	struct gb_telemetry_sample *telemetry;
	size_t n_telemetry, cap_telemetry;
	/* filled by gb_run_verdict() */
	enum gb_status verdict;
	char **verdict_failed;   /* "gemm/bf16_efficiency (device 0): ..." */
	size_t n_verdict_failed;
	char **verdict_warnings;
	size_t n_verdict_warnings;
};

/* ---- memory helpers (abort on OOM: the model is small and failure there is unrecoverable) ---- */
char *gb_strdup(const char *s);            /* NULL stays NULL */
/*
 * Make s safe to print as one line: control characters (newline, ESC, ...)
 * that came from user input become '?', so input can neither forge a second
 * diagnostic line nor drive the terminal. Returns s.
 */
char *gb_str_printable(char *s);
char *gb_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *gb_xrealloc(void *p, size_t n);

/* ---- run ---- */
void gb_run_init(struct gb_run *run, const char *command, int argc, const char *const *argv);
void gb_run_release(struct gb_run *run);
/* set the whole run to could-not-run etc. with a reason */
void gb_run_set_status(struct gb_run *run, enum gb_status st, const char *reason);
struct gb_bench_result *gb_run_add_bench(struct gb_run *run, const char *name);
struct gb_device_info *gb_run_add_device(struct gb_run *run);
struct gb_link *gb_run_add_link(struct gb_run *run, int a, int b, const char *type);
/* The device record of CUDA index index in run (the first), NULL if none or run is NULL. */
const struct gb_device_info *gb_run_find_device(const struct gb_run *run, int index);
/* The topology record of the ordered pair (a, b) in run, NULL if none or run is NULL. */
const struct gb_link *gb_run_find_link(const struct gb_run *run, int a, int b);
void gb_run_add_env(struct gb_run *run, const char *key, const char *value);
void gb_run_add_telemetry(struct gb_run *run, const struct gb_telemetry_sample *s);
/* Keep only the devices with these CUDA indices (and the links between them). */
void gb_run_keep_devices(struct gb_run *run, const int *idx, size_t n);
/* ISO 8601 UTC "2026-11-22T10:00:00Z" of now into buf */
void gb_now_iso8601(char *buf, size_t len);

/*
 * Compute run->verdict and the failed/warnings lists from every benchmark
 * status and check: any FAILED check or benchmark -> FAILED (also when the
 * run was then interrupted: a finding outranks an interrupt, and a warning
 * says the run was cut short); else INTERRUPTED (run or benchmark); else any
 * ERROR -> ERROR (could not run is never passed); else all SKIPPED (or
 * nothing ran) -> SKIPPED; else WARNING if any warning, else PASSED.
 */
void gb_run_verdict(struct gb_run *run);
/* exit code for a verdict (see exitcodes.h) */
int gb_exit_code_for_status(enum gb_status st);

/* ---- device ---- */
void gb_device_info_init(struct gb_device_info *d); /* all unknown */

/* ---- benchmark result ---- */
void gb_bench_set_status(struct gb_bench_result *b, enum gb_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void gb_bench_param_num(struct gb_bench_result *b, const char *key, double v);
void gb_bench_param_str(struct gb_bench_result *b, const char *key, const char *v);
void gb_bench_param_bool(struct gb_bench_result *b, const char *key, bool v);
void gb_bench_add_device(struct gb_bench_result *b, int device);

/*
 * Add a metric whose value is the median of samples (copied), with full
 * statistics. peak may be NAN. Returns the metric for optional tweaks.
 * better is used only for a metric the table of directions
 * (metric_directions.h) does not list: the table wins, for this and
 * gb_bench_add_value.
 */
struct gb_metric *gb_bench_add_metric(struct gb_bench_result *b, const char *name,
				      const char *unit, enum gb_better better, int device,
				      const double *samples, size_t n, double peak);
/* Add a single-value metric (no samples). */
struct gb_metric *gb_bench_add_value(struct gb_bench_result *b, const char *name,
				     const char *unit, enum gb_better better, int device,
				     double value, double peak);
/* Find a metric by name and device, NULL if none. */
struct gb_metric *gb_bench_find_metric(const struct gb_bench_result *b, const char *name,
				       int device);

/*
 * Add a check. A FAILED check also sets the benchmark FAILED (reporting and
 * counting a failure is one call); ERROR sets it ERROR unless already FAILED.
 */
struct gb_check *gb_bench_add_check(struct gb_bench_result *b, const char *name,
				    enum gb_status status, enum gb_severity sev, int device,
				    double observed, double threshold, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/* Give check c a copy of xids[0..n) in place of its own (gb_xrealloc: aborts when out of memory). */
void gb_check_set_xids(struct gb_check *c, const unsigned long long *xids, size_t n);

struct gb_series *gb_bench_add_series(struct gb_bench_result *b, const char *name,
				      const char *x_unit, const char *y_unit, int device);
void gb_series_push(struct gb_series *s, double x, double y);

/* Owned extra object for benchmark-specific detail; created on first call. */
struct cJSON *gb_bench_extra(struct gb_bench_result *b);

#endif
