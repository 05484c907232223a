/* SPDX-License-Identifier: MIT */
/*
 * fault_action.h - what to do about a fault finding (CPU only).
 *
 * Each check that finds a fault (an XID, ECC errors, a row remap, retired
 * pages, PCIe replays, NVLink errors, a hang, a corrupted result, a slow GPU,
 * a degraded link) carries a recommended action from one table built from
 * NVIDIA's Xid catalog and GPU memory error documentation (docs/faults.md):
 * none, run again, reset the GPU, reboot, drain and inspect, replace. As with
 * published figures (published.h) the action is derived after the verdict by
 * one function, written to the JSON, and derived again by the loader. When a
 * fleet merge sees the same GPU (by UUID) fail in another report too, the
 * action goes one step up and says why (gb_fault_actions_escalate).
 */
#ifndef GPUBENCH_REPORT_FAULT_ACTION_H
#define GPUBENCH_REPORT_FAULT_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result.h"

/* mildest first: escalation moves one step along this order */
enum gb_action {
	GB_ACTION_NONE,
	GB_ACTION_RUN_AGAIN,
	GB_ACTION_RESET_GPU,
	GB_ACTION_REBOOT,
	GB_ACTION_DRAIN_INSPECT,
	GB_ACTION_REPLACE,
};
#define GB_ACTION_COUNT 6

/* One row of the table: a fault and what to do about it. Static data. */
struct gb_fault_action {
	const char *fault;  /* "xid 79", "row_remap pending", "peer_throughput" */
	enum gb_action act;
	const char *why;    /* one line */
	const char *source; /* where the action comes from */
};

/* "reset_gpu" (the JSON name), NULL if out of range */
const char *gb_action_name(enum gb_action a);
/* "reset the GPU" (the text report's words) */
const char *gb_action_words(enum gb_action a);
/* the action of a JSON name, -1 if none */
int gb_action_from_name(const char *name);

/*
 * The table row for a check, NULL when it is not a fault finding (passed,
 * skipped, or a check that judges something other than a fault).
 */
const struct gb_fault_action *gb_fault_action_of(const struct gb_check *c);

/* The row of one XID: the catalog's immediate action; an unlisted one by its class. */
const struct gb_fault_action *gb_fault_action_xid(unsigned long long xid, bool hardware);

/* The table, for docs and tests. */
const struct gb_fault_action *gb_fault_action_table(size_t *n);

/* The action a check's reader should take: the table's, escalated by its steps. */
enum gb_action gb_check_action(const struct gb_check *c);

/* Set check.action on every check of run (idempotent; the loader calls it too). */
void gb_fault_actions_annotate(struct gb_run *run);

/*
 * Escalate: every check of `run` with an action on a GPU whose UUID also
 * failed a fault check in one of others[0..n) goes one step up per such
 * report (up to replace), with `because` naming the GPU, the check there and
 * that report's started_at. Returns how many checks it escalated.
 */
size_t gb_fault_actions_escalate(struct gb_run *run, const struct gb_run *const *others,
				 size_t n);

/*
 * The same for a merged fleet whose GPU d came from a report that started at
 * self_of[d] (indexed by the fleet's device index): runs[0..n) are every
 * report given to the merge, the ones left out as the same node included; a
 * report that started at the same time as the GPU's own is the same run.
 */
size_t gb_fault_actions_escalate_fleet(struct gb_run *fleet, const char *const *self_of,
				       const struct gb_run *const *runs, size_t n);

/* " → action: reset the GPU", with "(up from ...: because)" when escalated; "" for none */
void gb_fault_action_text(const struct gb_check *c, char *buf, size_t len);

/* "what to do (LABEL)" and a line per check with an action; nothing when none has one */
void gb_fault_actions_print(FILE *out, const struct gb_run *run, const char *label);

#endif
