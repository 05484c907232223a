/* SPDX-License-Identifier: MIT */
/*
 * exitcodes.h - the process exit codes of gpubench, one place for all of them.
 *
 * These are part of the interface: scripts and CI gates rely on them, tests pin
 * them, and the README documents them. Never renumber.
 */
#ifndef GPUBENCH_REPORT_EXITCODES_H
#define GPUBENCH_REPORT_EXITCODES_H

enum gb_exit {
	GB_EXIT_OK = 0,           /* every check passed */
	GB_EXIT_CHECK_FAILED = 1, /* a check failed: a hardware or performance finding */
	GB_EXIT_USAGE = 2,        /* usage error or bad input */
	GB_EXIT_CANNOT_RUN = 3,   /* no driver, no GPU, library missing, out of memory */
	GB_EXIT_NOT_BUILT = 4,    /* feature compiled out (e.g. built without NCCL) */
	GB_EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM; the report is still written */
};

#endif
