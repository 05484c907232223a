/* SPDX-License-Identifier: MIT */
/*
 * cost.c - how long a simulated NCCL operation takes. This is the
 * simulator's own model, deliberately independent of the product's theory
 * code (report/theory.c, bench/nccl/nccl_math.c), so the product's expectations
 * are checked against something they did not produce.
 *
 * A ring over the ranks in rank order, limited by its slowest link:
 *
 *   t = base + steps x hop + S x f / B_ring
 *
 *   S       nccl-tests' bytes: count x type size (allreduce, broadcast,
 *           reduce), times nranks (allgather, reducescatter, alltoall)
 *   f       bus factor: 2(n-1)/n allreduce; (n-1)/n allgather,
 *           reducescatter, alltoall; 1 broadcast, reduce
 *   steps   2(n-1) allreduce, n-1 for the others
 *   base    8 us (a kernel launch and the protocol's set-up)
 *   hop     per step: 3.4 us over NVLink, 5.7 us over PCIe (NCCL's own
 *           Simple-protocol ring constants, src/graph/tuning.cc)
 *   B_ring  the smallest pair bandwidth around the ring (rank i to i+1):
 *             NVLink: links x per-link rate of the generation x the machine
 *                     file's efficiency.nccl nvlink share (default 0.8, the
 *                     20 of 25 GB/s NCCL reaches per link)
 *             else PCIe: the slower GPU's gen/width x its nccl pcie share
 *                     (default 0.85, packet overhead); halved when peer
 *                     access between the two is not allowed (staged through
 *                     host memory: two crossings of the host bridge)
 *           The link rates are the simulator's own (tests/sim/catalog.c):
 *           per direction, NVLink gen 1 20 GB/s a link, gen 2-4 25, gen 5
 *           50; PCIe 0.25, 0.5, 0.985, 1.969, 3.938, 7.563 GB/s a lane
 *           (gen 1-6).
 *
 * One rank: nothing crosses a link; t = base + S x 2 / memory bandwidth
 * (a local copy, read and write). A send/receive pair: base + one hop +
 * bytes / pair bandwidth. The runtime adds its seeded noise to each rank's
 * share (sim.h, struct gbsim_work).
 */
#include "nccl_sim.h"
#include "tests/sim/catalog.h"

#include <math.h>

#define BASE_S 8e-6
#define HOP_NVLINK_S 3.4e-6
#define HOP_PCIE_S 5.7e-6

static const struct gbsim_gpu *gpu_of(int d)
{
	const struct gbsim_machine *m = gbsim_machine();

	return d >= 0 && d < m->gpu_count ? &m->gpus[d] : NULL;
}

/* what NCCL reaches over a GPU's PCIe link, bytes/s per direction */
static double pcie_bps(int d)
{
	const struct gbsim_gpu *g = gpu_of(d);
	int width = g && g->pcie_width > 0 ? g->pcie_width : 16;
	int gen = g && g->pcie_gen > 0 ? g->pcie_gen : 4;

	return gbsim_pcie_bps(gen, width) * gbsim_machine()->efficiency.nccl_pcie;
}

static int nvlinks_between(int a, int b)
{
	const struct gbsim_machine *m = gbsim_machine();

	if (a < 0 || b < 0 || a >= GBSIM_MAX_GPUS || b >= GBSIM_MAX_GPUS || !m->nvlink_gen)
		return 0;
	return m->nvlinks[a][b];
}

double gbn_pair_bw_bps(int a, int b)
{
	const struct gbsim_machine *m = gbsim_machine();
	int links = nvlinks_between(a, b);
	double bw;

	if (links > 0)
		return links * gbsim_nvlink_link_bps(m->nvlink_gen) * m->efficiency.nccl_nvlink;
	bw = fmin(pcie_bps(a), pcie_bps(b));
	if (a >= 0 && b >= 0 && a < GBSIM_MAX_GPUS && b < GBSIM_MAX_GPUS && a != b && !m->p2p[a][b])
		bw /= 2;
	return bw;
}

double gbn_pair_latency_s(int a, int b)
{
	return nvlinks_between(a, b) > 0 ? HOP_NVLINK_S : HOP_PCIE_S;
}

double gbn_ring_bw_bps(const int *device, int n)
{
	double bw = INFINITY;

	for (int i = 0; i < n && n > 1; i++)
		bw = fmin(bw, gbn_pair_bw_bps(device[i], device[(i + 1) % n]));
	return bw;
}

/* the slowest hop's latency around the ring */
static double ring_hop_s(const int *device, int n)
{
	double hop = 0;

	for (int i = 0; i < n && n > 1; i++)
		hop = fmax(hop, gbn_pair_latency_s(device[i], device[(i + 1) % n]));
	return hop;
}

static double local_copy_s(size_t bytes, int device)
{
	const struct gbsim_gpu *g = gpu_of(device);
	double bw = g && g->mem_bw_bps > 0 ? g->mem_bw_bps * (g->speed > 0 ? g->speed : 1) : 1e12;

	return 2.0 * (double)bytes / bw;
}

double gbn_coll_seconds(enum gbn_kind kind, size_t bytes, const int *device, int n)
{
	double f, steps;

	if (n <= 1)
		return BASE_S + local_copy_s(bytes, n == 1 ? device[0] : 0);
	switch (kind) {
	case GBN_ALLREDUCE:
		f = 2.0 * (n - 1) / n;
		steps = 2.0 * (n - 1);
		break;
	case GBN_BROADCAST:
	case GBN_REDUCE:
		f = 1.0;
		steps = n - 1;
		break;
	default: /* allgather, reducescatter, alltoall */
		f = (double)(n - 1) / n;
		steps = n - 1;
		break;
	}
	return BASE_S + steps * ring_hop_s(device, n) + (double)bytes * f / gbn_ring_bw_bps(device, n);
}

double gbn_p2p_seconds(size_t bytes, int a, int b)
{
	if (a == b)
		return BASE_S + local_copy_s(bytes, a);
	return BASE_S + gbn_pair_latency_s(a, b) + (double)bytes / gbn_pair_bw_bps(a, b);
}
