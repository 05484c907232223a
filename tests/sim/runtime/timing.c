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
 * 0, under a "slow" fault) and e = the machine file's "efficiency" (defaults
 * in brackets):
 *   kernel / library work  max(flops / (peak[prec] * speed * e.gemm[prec] (0.85)),
 *                              bytes / (mem_bw * speed * e.memory (0.9)))
 *                          + fixed + 1.5 us
 *                          (a precision without a peak runs at the FP32 peak)
 *   host <-> device copy   8 us + n / (e.pcie (0.85) * pcie(gen, width)) when the
 *                          host side is pinned or managed; pageable: 15 us +
 *                          n / (0.6 * e.pcie * pcie)
 *   same-device copy       1.5 us + 2n / (mem_bw * speed * e.memory), memset n bytes
 *   peer copy a -> b       with peer access enabled from a to b (the direction
 *                          the copy goes; cudaDeviceEnablePeerAccess(b) on a):
 *                          10 us + n / (e.nvlink (0.85) * links * nvlink(gen))
 *                          over NVLink, else 10 us + n / (e.pcie_p2p (0.8) *
 *                          min(pcie)); without it, staged through the host:
 *                          20 us + n / (0.5 * min(pcie))
 *   host <-> host copy     1 us + n / 10 GB/s
 * pcie() and nvlink() are the simulator's own per-direction link rates
 * (tests/sim/catalog.c), with the machine file's generation and width.
 */
#include "tests/sim/runtime/rt.h"
#include "tests/sim/catalog.h"

#include <math.h>
#include <stdlib.h>

/* a pageable copy is staged by the driver through a pinned buffer: 0.6 of a pinned one */
#define PAGEABLE_SHARE 0.6
/* a staged peer copy crosses the host twice, each crossing sharing the slower link */
#define STAGED_PEER_SHARE 0.5

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
/*
 * GBSIM_SPEED_SCALE=X, 0 < X <= 1 (tests): every GPU's compute and memory
 * speed times X. Simulated time gives a command all the work its GPUs do in
 * that time, and the CPU computes it: the tests of stress's checks need
 * batches, not speed, and a simulated second of 256^3 GEMMs at full speed is
 * hundreds of thousands of them. Anything else is an error, said once.
 */
static double speed_scale;
static pthread_once_t speed_scale_once = PTHREAD_ONCE_INIT;

static void read_speed_scale(void)
{
	const char *v = getenv("GBSIM_SPEED_SCALE");
	char *end;

	speed_scale = 1.0;
	if (!v || !*v)
		return;
	speed_scale = strtod(v, &end);
	if (*end || !(speed_scale > 0 && speed_scale <= 1)) {
		gbsim_log("GBSIM_SPEED_SCALE='%s': want a number in (0, 1]; using 1", v);
		speed_scale = 1.0;
	}
}

static double speed_of(int device)
{
	const struct gbsim_machine *m = gbsim_machine();
	double speed = m->gpus[device].speed > 0 ? m->gpus[device].speed : 1.0;

	pthread_once(&speed_scale_once, read_speed_scale);
	speed *= speed_scale;

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
	const struct gbsim_efficiency *eff;
	const struct gbsim_gpu *g;
	double speed, t_flops = 0, t_bytes = 0, peak;

	if (!c || !rt_device_valid(device))
		return RT_LAUNCH_OVERHEAD_S;
	g = &gbsim_machine()->gpus[device];
	eff = &gbsim_machine()->efficiency;
	speed = speed_of(device);
	if (c->flops > 0) {
		enum gbsim_precision p = c->prec >= 0 && c->prec < GBSIM_PREC_COUNT ? c->prec
										    : GBSIM_FP32;

		peak = g->peak_flops[p];
		if (peak <= 0) {
			p = GBSIM_FP32;
			peak = g->peak_flops[p];
		}
		if (peak > 0)
			t_flops = c->flops / (peak * speed * eff->gemm[p]);
	}
	if (c->bytes > 0 && g->mem_bw_bps > 0)
		t_bytes = c->bytes / (g->mem_bw_bps * speed * eff->memory);
	return (t_flops > t_bytes ? t_flops : t_bytes) + (c->fixed_s > 0 ? c->fixed_s : 0) +
	       RT_LAUNCH_OVERHEAD_S;
}

static double pcie_bps(int device)
{
	const struct gbsim_gpu *g = &gbsim_machine()->gpus[device];
	double bw = gbsim_pcie_bps(g->pcie_gen, g->pcie_width);

	return bw > 0 ? bw : gbsim_pcie_bps(4, 16);
}

/*
 * A copy from a's memory to b's. It goes directly only over a direction
 * whose peer access is on: a enabled access to b. Access b enabled to a
 * alone does not carry it (as a kernel on a may not touch b's memory then),
 * so a product that enables one direction of a pair sees the other direction
 * at the staged cost, not quietly at the peer rate.
 */
static double peer_seconds(double n, int a, int b)
{
	const struct gbsim_machine *m = gbsim_machine();
	const struct gbsim_efficiency *eff = &m->efficiency;
	double pcie = fmin(pcie_bps(a), pcie_bps(b)), link_bps = gbsim_nvlink_link_bps(m->nvlink_gen);
	int links = m->nvlinks[a][b];

	if (!rt_peer_enabled(a, b))
		return 20e-6 + n / (STAGED_PEER_SHARE * pcie);
	if (links > 0 && link_bps > 0)
		return 10e-6 + n / (eff->nvlink * links * link_bps);
	return 10e-6 + n / (eff->pcie_p2p * pcie);
}

static bool on_device(enum gbsim_mem_kind k)
{
	return k == GBSIM_MEM_DEVICE;
}

double rt_copy_seconds(size_t bytes, int src_device, enum gbsim_mem_kind src_kind,
		       int dst_device, enum gbsim_mem_kind dst_kind)
{
	double n = (double)bytes, eff;
	int dev;
	bool pinned;

	if (on_device(src_kind) && on_device(dst_kind)) {
		if (src_device != dst_device)
			return peer_seconds(n, src_device, dst_device);
		dev = src_device;
		return RT_LAUNCH_OVERHEAD_S + 2 * n / (gbsim_machine()->gpus[dev].mem_bw_bps *
						       speed_of(dev) *
						       gbsim_machine()->efficiency.memory);
	}
	if (!on_device(src_kind) && !on_device(dst_kind))
		return 1e-6 + n / 10e9;
	dev = on_device(src_kind) ? src_device : dst_device;
	pinned = on_device(src_kind) ? dst_kind != GBSIM_MEM_UNKNOWN : src_kind != GBSIM_MEM_UNKNOWN;
	eff = gbsim_machine()->efficiency.pcie;
	if (pinned)
		return 8e-6 + n / (eff * pcie_bps(dev));
	return 15e-6 + n / (PAGEABLE_SHARE * eff * pcie_bps(dev));
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
