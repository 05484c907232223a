/* SPDX-License-Identifier: MIT */
/*
 * host.h - facts about the host that change results: name, OS, kernel, CPU.
 * Reads uname and /proc; never the whole environment.
 */
#ifndef GPUBENCH_REPORT_HOST_H
#define GPUBENCH_REPORT_HOST_H

#include "result.h"

/*
 * Fill hostname, os, kernel and cpu (those it can read; the rest stay NULL),
 * and whether this process is the simulator (gb_host_simulation).
 */
void gb_host_collect(struct gb_host_info *host);

/*
 * host->simulated and host->simulated_machine: true, with the label, when
 * the process has a gbsim_report_label symbol (dlsym(RTLD_DEFAULT), found
 * only in gpubench-sim's stand-in CUDA runtime, tests/sim/sim.h); else
 * false and NULL.
 */
void gb_host_simulation(struct gb_host_info *host);

/*
 * The environment variables recorded in reports: those that change what is
 * measured (device selection, NCCL and CUDA tuning). NULL-terminated list of
 * exact names and of prefixes ending in '_' followed by '*'.
 */
extern const char *const gb_env_whitelist[];
/* true if name may be recorded */
int gb_env_is_whitelisted(const char *name);

#endif
