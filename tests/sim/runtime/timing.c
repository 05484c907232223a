/* SPDX-License-Identifier: MIT */
/*
 * timing.c - the simulated time model.
 *
 * Every operation on a stream starts at the latest of: the end of the
 * stream's previous operation, the end of every operation it waits for
 * (events, the legacy stream's implicit ordering), and the host's simulated
 * clock when it was queued. It lasts its cost times (1 + noise * N(0,1)),
 * N drawn from the machine's seed, the stream and the operation's number
 * (so a run is reproducible whatever the threads' interleaving). Host
 * synchronisation (stream, event, device sync, blocking copies, a query that
 * finds the work done) moves the host's clock to the end of what it waited
 * for; nothing else moves it. Events carry the simulated time at which their
 * stream reached them.
 *
 * Costs, with speed = the GPU's "speed" (times value/100, or 1/2 if value is
 * 0, under a "slow" fault):
 *   kernel / library work  max(flops / (peak[prec] * speed * 0.85),
 *                              bytes / (mem_bw * speed * 0.9)) + fixed + 1.5 us
 *                          (a precision without a peak runs at the FP32 peak)
 *   host <-> device copy   8 us + n / (0.85 * pcie(gen, width)) when the host
 *                          side is pinned or managed; pageable: 15 us +
 *                          n / (0.6 * 0.85 * pcie)
 *   same-device copy       1.5 us + 2n / (mem_bw * speed * 0.9), memset n bytes
 *   peer copy              10 us + n / (0.85 * links * nvlink(gen)) over
 *                          NVLink with peer access on; without NVLink but with
 *                          peer access: 10 us + n / (0.8 * min(pcie)); without
 *                          peer access, staged through the host:
 *                          20 us + n / (0.5 * min(pcie))
 *   host <-> host copy     1 us + n / 10 GB/s
 * pcie() and nvlink() are the product's theory (report/theory.c), per
 * direction, with the machine file's generation and width.
 */
#include "tests/sim/runtime/rt.h"
#include "report/theory.h"

#include <math.h>

static const double flop_efficiency = 0.85; /* cuBLAS reaches ~75% of a dense peak at large sizes */
static const double mem_efficiency = 0.9;
static const double pcie_efficiency = 0.85;

/*
 * Is a fault of this kind active on device? Its trigger is the first of
 * after_launches, after_allocs, after_s that is set (>= 0), counted up to
 * this launch or allocation (launch, alloc: their 1-based numbers on the
 * device, or -1 for the counts so far); none set: from the start.
 */
bool rt_fault_active(enum gbsim_fault_kind kind, int device, long launch, long alloc)
{
	const struct gbsim_machine *m = gbsim_machine();

	for (int i = 0; i < m->fault_count; i++) {
		const struct gbsim_fault *f = &m->faults[i];
		bool on;

		if (f->kind != kind || (f->gpu >= 0 && f->gpu != device))
			continue;
		if (f->after_launches >= 0)
			on = (launch >= 0 ? launch : rt_launch_count(device)) > f->after_launches;
		else if (f->after_allocs >= 0)
			on = (alloc >= 0 ? alloc : rt_alloc_count(device)) > f->after_allocs;
		else if (f->after_s >= 0)
			on = gbsim_now_s() >= f->after_s;
		else
			on = true;
		if (on)
			return true;
	}
	return false;
}

/* The GPU's speed now: the machine file's, halved (or value%) by a triggered "slow" fault. */
static double speed_of(int device)
{
	const struct gbsim_machine *m = gbsim_machine();
	double speed = m->gpus[device].speed > 0 ? m->gpus[device].speed : 1.0;

	for (int i = 0; i < m->fault_count; i++) {
		const struct gbsim_fault *f = &m->faults[i];

		/* one "slow" fault at a time is what the machine files describe */
		if (f->kind == GBSIM_FAULT_SLOW && rt_fault_active(GBSIM_FAULT_SLOW, device, -1, -1))
			return speed * (f->value > 0 ? (double)f->value / 100.0 : 0.5);
	}
	return speed;
}

double gbsim_cost_seconds(int device, const struct gbsim_cost *c)
{
	const struct gbsim_gpu *g;
	double speed, t_flops = 0, t_bytes = 0, peak;

	if (!c || !rt_device_valid(device))
		return RT_LAUNCH_OVERHEAD_S;
	g = &gbsim_machine()->gpus[device];
	speed = speed_of(device);
	if (c->flops > 0) {
		peak = c->prec >= 0 && c->prec < GBSIM_PREC_COUNT ? g->peak_flops[c->prec] : 0;
		if (peak <= 0)
			peak = g->peak_flops[GBSIM_FP32];
		if (peak > 0)
			t_flops = c->flops / (peak * speed * flop_efficiency);
	}
	if (c->bytes > 0 && g->mem_bw_bps > 0)
		t_bytes = c->bytes / (g->mem_bw_bps * speed * mem_efficiency);
	return (t_flops > t_bytes ? t_flops : t_bytes) + (c->fixed_s > 0 ? c->fixed_s : 0) +
	       RT_LAUNCH_OVERHEAD_S;
}

static double pcie_bps(int device)
{
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[device];
	double bw = gb_pcie_bandwidth_bps(g->pcie_gen, g->pcie_width);

	return bw > 0 ? bw : gb_pcie_bandwidth_bps(4, 16);
}

static double peer_seconds(double n, int a, int b)
{
	const struct gbsim_machine *m = gbsim_machine();
	double pcie = fmin(pcie_bps(a), pcie_bps(b));
	bool peer = rt_peer_enabled(a, b) || rt_peer_enabled(b, a);
	int links = m->nvlinks[a][b];

	if (peer && links > 0 && gb_nvlink_link_bps(m->nvlink_gen) > 0)
		return 10e-6 + n / (pcie_efficiency * links * gb_nvlink_link_bps(m->nvlink_gen));
	if (peer)
		return 10e-6 + n / (0.8 * pcie);
	return 20e-6 + n / (0.5 * pcie);
}

static bool on_device(enum gbsim_mem_kind k)
{
	return k == GBSIM_MEM_DEVICE;
}

double rt_copy_seconds(size_t bytes, int src_device, enum gbsim_mem_kind src_kind,
		       int dst_device, enum gbsim_mem_kind dst_kind)
{
	double n = (double)bytes;
	int dev;
	bool pinned;

	if (on_device(src_kind) && on_device(dst_kind)) {
		if (src_device != dst_device)
			return peer_seconds(n, src_device, dst_device);
		dev = src_device;
		return RT_LAUNCH_OVERHEAD_S + 2 * n / (gbsim_machine()->gpus[dev].mem_bw_bps *
						       speed_of(dev) * mem_efficiency);
	}
	if (!on_device(src_kind) && !on_device(dst_kind))
		return 1e-6 + n / 10e9;
	dev = on_device(src_kind) ? src_device : dst_device;
	pinned = on_device(src_kind) ? dst_kind != GBSIM_MEM_UNKNOWN : src_kind != GBSIM_MEM_UNKNOWN;
	if (pinned)
		return 8e-6 + n / (pcie_efficiency * pcie_bps(dev));
	return 15e-6 + n / (0.6 * pcie_efficiency * pcie_bps(dev));
}

/* splitmix64: a good 64-bit mix, so neighbouring (stream, op) pairs are independent */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

double rt_noise_factor(int stream_id, uint64_t seq)
{
	const struct gbsim_machine *m = gbsim_machine();
	uint64_t h = mix64(m->seed ^ mix64((uint64_t)stream_id * 0x100000001b3ull ^ mix64(seq)));
	double u1 = ((double)(h >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
	double u2 = ((double)(mix64(h) >> 11) + 0.5) / 9007199254740992.0;
	double z = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
	double f = 1.0 + m->noise * z;

	return f > 0.05 ? f : 0.05;
}
