/* SPDX-License-Identifier: MIT */
/*
 * fault.c - the machine file's NCCL faults (issue 18), as the simulated NCCL
 * applies them:
 *
 *   nccl_wrong  from its trigger on, every collective's output on `gpu`
 *               (every GPU: -1) has one element wrong: element `value`
 *               (modulo the output's length) gets bit 6 of its most
 *               significant byte flipped, a change no tolerance forgives
 *               (an exponent bit of every float type, 64 in an integer)
 *   nccl_hang   at its trigger, the rank on `gpu` delivers its part of the
 *               collective (the peers complete it) but its own kernel never
 *               completes, until its communicator is aborted or revoked; its
 *               stream never reaches the next collective, where the peers
 *               then wait (until theirs are aborted), as they would behind a
 *               hung NCCL kernel
 *
 * Triggers: none (from the start); after_s (the operation starts at or after
 * that simulated second, gbsim_now_s); after_launches, which here counts the
 * collectives begun on that GPU (NCCL kernels, not the runtime's launches).
 * after_allocs is not counted by NCCL: such a fault never fires here.
 */
#include "nccl_sim.h"

bool gbn_fault(enum gbsim_fault_kind kind, int device, double now_s, long nth, long *value)
{
	const struct gbsim_machine *m = gbsim_machine();

	for (int i = 0; i < m->fault_count; i++) {
		const struct gbsim_fault *f = &m->faults[i];
		bool fires;

		if (f->kind != kind || (f->gpu >= 0 && f->gpu != device))
			continue;
		if (f->after_launches >= 0)
			fires = nth >= f->after_launches;
		else if (f->after_s >= 0)
			fires = now_s >= f->after_s;
		else
			fires = f->after_allocs < 0;
		if (fires) {
			if (value)
				*value = f->value;
			return true;
		}
	}
	return false;
}
