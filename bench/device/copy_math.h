/* SPDX-License-Identifier: MIT */
/*
 * copy_math.h - the CPU-only arithmetic behind `gpubench bandwidth` and
 * `gpubench p2p`: size sweeps, how many bytes a copy counts, the theoretical
 * ceiling of each copy path, the link and peer-to-peer findings and the N x N
 * matrices of the report. Everything here is testable without a GPU; the
 * drivers (bench/copies/bandwidth.c, bench/copies/p2p.c) only measure and call these.
 *
 * Byte convention (stated in every report): GB/s are decimal (1e9 bytes/s)
 * and each byte is counted once per direction. A device-local copy of S
 * bytes counts S (payload, as nvbandwidth does) and is also reported as DRAM
 * traffic 2S (read + write). STREAM counts the bytes each kernel reads and
 * writes (BabelStream): copy and scale 2 arrays, add and triad 3 arrays. A
 * bidirectional copy counts S in each direction, 2S in all.
 *
 * The data pattern is defined once, in kernels/pattern_hd.h, so the device
 * (kernels/copy.cu) and the unit tests agree on it.
 */
#ifndef GPUBENCH_BENCH_COPY_MATH_H
#define GPUBENCH_BENCH_COPY_MATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/stats.h"
#include "kernels/pattern_hd.h"


#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Most points in one sweep (factor >= 2 over 64-bit sizes never needs more). */
#define GB_COPY_SWEEP_MAX 64

/*
 * The sizes of a sweep: min, min*factor, min*factor^2, ... up to max, each
 * rounded down to a multiple of GB_COPY_GRAIN (and at least one grain), and
 * max itself as the last point when the geometric steps do not land on it
 * (so the largest size the user asked for is always measured). Returns the
 * number of sizes written (at most cap), 0 on bad input (min 0, factor < 2,
 * min above max).
 */
size_t gb_copy_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t *out,
		     size_t cap);

/* A size the way a user types it: "1G", "64M", "4K", "1536" (largest binary unit dividing it). */
void gb_copy_size_short(char *buf, size_t len, uint64_t bytes);

/*
 * The cross-field check of a sweep's options. 0, or -1 with one line in err:
 * "--min-size (1G) is above --max-size (64M)".
 */
int gb_copy_check_sweep(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, char *err,
			size_t errlen);

enum gb_copy_test {
	GB_CT_H2D = 0,
	GB_CT_D2H,
	GB_CT_BIDIR,         /* H2D and D2H at once */
	GB_CT_D2D,           /* device-local copy */
	GB_CT_STREAM_COPY,   /* c = a */
	GB_CT_STREAM_SCALE,  /* b = q c */
	GB_CT_STREAM_ADD,    /* c = a + b */
	GB_CT_STREAM_TRIAD,  /* a = b + q c */
	GB_CT_P2P_UNI,       /* GPU to GPU, peer access enabled */
	GB_CT_P2P_BIDIR,     /* both directions at once, peer access enabled */
	GB_CT_P2P_STAGED,    /* GPU to GPU with peer access disabled: the driver stages through the host */
	GB_CT_COUNT
};

enum gb_copy_method { GB_CM_CE = 0, GB_CM_SM, GB_CM_COUNT };
enum gb_copy_memory {
	GB_MEM_PINNED = 0,
	GB_MEM_PAGEABLE,
	GB_MEM_MANAGED,
	GB_MEM_DEVICE,   /* device-only tests */
	GB_MEM_COUNT
};

/* "h2d", "d2h", "bidir", "d2d", "stream_copy", ..., "p2p_staged" */
const char *gb_copy_test_name(enum gb_copy_test t);
/* "ce", "sm" */
const char *gb_copy_method_name(enum gb_copy_method m);
/* "pinned", "pageable", "managed", "device" */
const char *gb_copy_memory_name(enum gb_copy_memory m);
/* true for the four STREAM kernels */
bool gb_copy_test_is_stream(enum gb_copy_test t);

/*
 * Bytes one copy (or one STREAM kernel) of `size` bytes per buffer counts in
 * its GB/s figure, under the convention above. NAN for an unknown test.
 */
double gb_copy_counted_bytes(enum gb_copy_test t, double size);
/* Bytes of device-memory traffic (reads + writes) of the same operation; NAN if none. */
double gb_copy_dram_bytes(enum gb_copy_test t, double size);

/*
 * NULL when this combination is measured, else the reason it is not (for
 * the report): pageable memory is only reachable by the copy engine, a GPU
 * write to managed memory migrates the pages instead of crossing the link,
 * bidirectional copies of pageable or managed memory cannot overlap, and the
 * device-only tests take no host memory.
 */
const char *gb_copy_unsupported(enum gb_copy_test t, enum gb_copy_method m,
				enum gb_copy_memory mem);

/* ---- theory ---- */

/* What bounds each copy path, bytes/s per direction; NAN where unknown. */
struct gb_copy_theory {
	double pcie_bps;     /* host link at max generation and width (staged: the slower GPU's) */
	double mem_bw_bps;   /* device memory, from clocks and bus width (gb_copy_mem_bps) */
	double peer_bps;     /* the link between two GPUs (NVLink links x per-link, or PCIe) */
};

/*
 * A GPU's memory bandwidth for the copy ceilings: from its clocks and bus
 * width, else the spec sheet's when NVML could not read the clocks; NAN
 * for NULL or when neither is known.
 */
struct gb_device_info;
double gb_copy_mem_bps(const struct gb_device_info *d);

/*
 * The ceiling of a test in the unit of its counted bytes (bytes/s): H2D and
 * D2H the PCIe link; bidirectional twice that; a device-local copy half the
 * memory bandwidth (each payload byte is read and written); STREAM the
 * memory bandwidth; peer copies the peer link (twice for bidirectional);
 * staged the host link. NAN when the needed input is unknown.
 */
double gb_copy_ceiling_bps(enum gb_copy_test t, const struct gb_copy_theory *th);

/*
 * The link between two GPUs, per direction, bytes/s: NVLink count x
 * per-link rate of the generation when type is "nvlink", otherwise the
 * slower of the two GPUs' PCIe links. NAN when unknown.
 */
double gb_p2p_peer_bps(const char *type, int nvlink_count, int nvlink_gen, double pcie_a_bps,
		       double pcie_b_bps);

/* 100 * value / peak; NAN when either is unknown or peak <= 0. */
double gb_percent_of(double value, double peak);

/* GB/s (decimal) of `loops` operations of counted_bytes each in `seconds`; NAN if seconds <= 0. */
double gb_copy_gbps(double counted_bytes, long loops, double seconds);

/*
 * Fit t = alpha + n / beta to a sweep given as sizes (bytes per buffer) and
 * the GB/s measured at each: each point becomes the time of one copy of its
 * counted bytes, so beta comes back in the test's own byte convention.
 * Non-finite or non-positive GB/s points, and sizes below min_size, are left
 * out. Returns 0 or -1 as gb_fit_alpha_beta; *used (may be NULL) gets the
 * number of points fitted.
 */
int gb_copy_fit(enum gb_copy_test t, const double *sizes, const double *gbps, size_t n,
		double min_size, struct gb_alpha_beta *fit, size_t *used);

/*
 * The smallest size per buffer a sweep point of test t may have to be
 * fitted: device-local tests re-read the same buffers every copy, so below
 * a footprint of twice the L2 cache they measure the cache, not memory
 * (ARCHITECTURE 4). 0 for tests that cross a link, and when l2_bytes is
 * unknown (NaN or <= 0).
 */
double gb_copy_fit_min_size(enum gb_copy_test t, double l2_bytes);

/* beta is only reported when the fit explains at least this much of the variance */
#define GB_COPY_FIT_MIN_R2 0.9
/* ... and is at most this multiple of the ceiling (clock and rounding slack) */
#define GB_COPY_FIT_MAX_OF_CEILING 1.1

/*
 * Whether beta of a fit can be reported as the path's asymptotic bandwidth.
 * False, with one line in why, when the slope is noise: r2 below
 * GB_COPY_FIT_MIN_R2, the largest fitted size (counted bytes) below 2 x
 * n_half (the curve never got close to its asymptote, so beta is an
 * extrapolation), or beta above GB_COPY_FIT_MAX_OF_CEILING x the ceiling
 * (bytes/s; NaN: not checked). A sweep of small copies is all latency: its
 * alpha is sound but its beta is not.
 */
bool gb_copy_beta_usable(const struct gb_alpha_beta *fit, double largest_counted_bytes,
			 double ceiling_bps, char *why, size_t len);

/* Run-to-run spread goal: CV at most this at sizes of at least GB_COPY_SPREAD_MIN_BYTES. */
#define GB_COPY_SPREAD_MAX_CV 0.02
#define GB_COPY_SPREAD_MIN_BYTES (64.0 * 1024 * 1024)

/* True when a point of `bytes` per buffer with this CV (a fraction) misses the spread goal. */
bool gb_copy_spread_high(double bytes, double cv);

/*
 * One line for a failed allocation, naming what and how much:
 * "cannot allocate 2 x 512 MiB of pinned host memory (NUMA node 0) for
 * device 1: cudaErrorMemoryAllocation (out of memory)". kind says which
 * memory and where ("device memory", "pinned host memory (NUMA node 0)");
 * cause is the error and anything that explains it ("...; 3 GiB of 80 GiB free").
 */
void gb_copy_alloc_msg(char *buf, size_t len, int count, double bytes, const char *kind, int dev,
		       const char *cause);

/* ---- findings ---- */

/*
 * Link training under load. 1 when the link runs below its maximum
 * generation or width (a finding; msg says which), 0 when at maximum, -1
 * when any value is unknown (<= 0). Read it while copies run: idle links
 * drop to Gen1 to save power, so an idle reading would be a false finding.
 */
int gb_pcie_downtrain(int gen, int width, int max_gen, int max_width, char *msg, size_t len);

/* NVLink links down: expected - up (> 0 is a finding), 0 if all up, -1 when unknown. */
int gb_nvlink_links_down(int links_up, int links_expected);

/* What the NVLink check knows about one GPU. */
struct gb_nvlink_view {
	int links_up;       /* NVML, -1 unknown */
	int links_expected; /* the catalog's count for this model, 0 none or unknown */
	bool pcie_board;    /* a PCIe card: its NVLinks need a bridge, which may not be fitted */
	int n_gpus;         /* GPUs in the run */
	bool nvlink_peer;   /* the topology shows NVLink from this GPU to another GPU of the run */
};

/*
 * The "NVLink link down" judgement. Returns GB_STATUS_PASSED, FAILED,
 * WARNING or SKIPPED with *sev and one line in msg; -1 when there is
 * nothing to judge (no NVLink expected, or the link state unknown).
 * - every expected link up: passed;
 * - some links up but fewer than expected: failed (a link that did not
 *   train), except on a PCIe card, where a partial bridge set is a
 *   warning;
 * - no link up: failed when NVLink to another GPU of the run is seen
 *   (which contradicts it) or when several SXM GPUs are in the run; a
 *   warning for one SXM GPU alone (a VM given one GPU of a board sees its
 *   links down); skipped for a PCIe card (no bridge fitted).
 */
int gb_nvlink_judge(const struct gb_nvlink_view *v, int *sev, char *msg, size_t len);

/*
 * "P2P slower than staged through the host": peer access gives less than
 * (1 - margin) of the staged bandwidth. False when either is unknown.
 */
bool gb_p2p_slower_than_staged(double p2p_gbps, double staged_gbps, double margin);

enum gb_p2p_data {
	GB_P2P_DATA_OK = 0,
	GB_P2P_DATA_UNTESTED,            /* not verified (disabled, or nothing ran) */
	GB_P2P_DATA_WRONG_ADVERTISED,    /* peer access advertised and enabled, data wrong: the finding */
	GB_P2P_DATA_WRONG                /* data wrong on a path that does not use peer access */
};
/*
 * Judge a peer path's verification. p2p_access: cudaDeviceCanAccessPeer
 * (1/0/-1); peer_path: the copy used peer access; mismatches < 0: not verified.
 */
enum gb_p2p_data gb_p2p_data_verdict(int p2p_access, bool peer_path, long long mismatches);

/*
 * A human label for a pair's topology: "NVLink x18", "PCIe switch", "PCIe
 * host bridge", "across sockets", "same board", "unknown". Written to buf,
 * which is returned.
 */
const char *gb_p2p_topology_label(const char *type, int nvlink_count, char *buf, size_t len);

/* ---- report matrices ---- */

/* rows x cols row-major doubles as a JSON array of arrays; NAN (or Inf) becomes null. */
struct cJSON *gb_matrix_json(const double *m, size_t rows, size_t cols);
/* The same for strings; NULL becomes null. */
struct cJSON *gb_string_matrix_json(const char *const *m, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

#endif
