/* SPDX-License-Identifier: MIT */
/*
 * fault_action.c - the table of fault findings and what to do about them
 * (see fault_action.h and docs/faults.md, which lists the same rows).
 */
#include "fault_action.h"

#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define SRC_XID "NVIDIA Xid catalog, Resolution Bucket (Immediate Action)"
#define SRC_MEM "NVIDIA GPU Memory Error Management"
#define SRC_RMA "NVIDIA GPU Memory Error Management, RMA Policy"
#define SRC_GB "gpubench (docs/faults.md)"

static const char *const names[GB_ACTION_COUNT] = {
	"none", "run_again", "reset_gpu", "reboot", "drain_inspect", "replace",
};
static const char *const words[GB_ACTION_COUNT] = {
	"none", "run again", "reset the GPU", "reboot the node", "drain the node and inspect",
	"replace the GPU",
};

const char *gb_action_name(enum gb_action a)
{
	return (unsigned)a < GB_ACTION_COUNT ? names[a] : NULL;
}

const char *gb_action_words(enum gb_action a)
{
	return (unsigned)a < GB_ACTION_COUNT ? words[a] : "?";
}

int gb_action_from_name(const char *name)
{
	for (int i = 0; name && i < GB_ACTION_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/*
 * XIDs by number: the catalog's immediate action (RESTART_APP: run again,
 * RESET_GPU: reset, RESTART_BM: reboot, CONTACT_SUPPORT: drain and inspect).
 */
#define XID(n, act, src, why) { n, { "xid " #n, act, why, src } }
static const struct {
	unsigned xid;
	struct gb_fault_action a;
} xids[] = {
	XID(8, GB_ACTION_RUN_AGAIN, SRC_XID,
	    "GPU stopped processing (idle timeout)"),
	XID(13, GB_ACTION_RUN_AGAIN, SRC_XID,
	    "graphics engine exception, usually the application's"),
	XID(31, GB_ACTION_RUN_AGAIN, SRC_XID,
	    "GPU memory page fault, usually the application's"),
	XID(43, GB_ACTION_NONE, SRC_XID,
	    "GPU stopped processing a channel the application owned: its own fault, the GPU "
	    "stays healthy"),
	XID(45, GB_ACTION_NONE, SRC_XID,
	    "preemptive cleanup after another error: act on that one"),
	XID(48, GB_ACTION_RESET_GPU, SRC_XID,
	    "uncorrectable (double-bit) ECC error"),
	XID(61, GB_ACTION_DRAIN_INSPECT, SRC_XID,
	    "internal microcontroller breakpoint: unused since Ampere, contact support"),
	XID(62, GB_ACTION_RESET_GPU, SRC_XID,
	    "internal microcontroller halt"),
	XID(63, GB_ACTION_RESET_GPU, SRC_MEM,
	    "row remap or page retirement recorded: a reset applies it"),
	XID(64, GB_ACTION_REPLACE, SRC_RMA,
	    "row remap or page retirement failed"),
	XID(74, GB_ACTION_RESET_GPU, SRC_XID,
	    "NVLink error"),
	XID(79, GB_ACTION_REBOOT, SRC_XID,
	    "GPU has fallen off the bus"),
	XID(92, GB_ACTION_NONE, SRC_XID,
	    "high single-bit ECC error rate: corrected, watch the trend"),
	XID(94, GB_ACTION_RUN_AGAIN, SRC_MEM,
	    "contained ECC error: only the application that met it is stopped"),
	XID(95, GB_ACTION_RESET_GPU, SRC_MEM,
	    "uncontained ECC error: every application on the GPU is stopped"),
	XID(119, GB_ACTION_RESET_GPU, SRC_XID,
	    "GSP RPC timeout"),
	XID(120, GB_ACTION_RESET_GPU, SRC_XID,
	    "GSP error"),
};
#undef XID

/* XIDs the table does not list, by the class the stress check gave them */
static const struct gb_fault_action xid_hw = {
	"xid (other, hardware)", GB_ACTION_RESET_GPU,
	"a hardware XID this table does not list", SRC_GB
};
static const struct gb_fault_action xid_other = {
	"xid (other)", GB_ACTION_RUN_AGAIN, "an XID outside the hardware set", SRC_GB
};

/* The checks that find a fault, by name (a prefix when it ends in '*'). */
static const struct gb_fault_action checks[] = {
	{ "ecc_dbe", GB_ACTION_RESET_GPU,
	  "uncorrectable ECC errors: a reset clears the error and applies any row remap", SRC_MEM },
	{ "ecc_sbe", GB_ACTION_NONE,
	  "corrected in hardware; a count that keeps growing shows up as remaps or retired pages",
	  SRC_MEM },
	{ "row_remap pending", GB_ACTION_RESET_GPU,
	  "a row remap is pending: it takes effect at the next GPU reset", SRC_MEM },
	{ "row_remap failed", GB_ACTION_REPLACE,
	  "row remapping failed: the RMA criterion once the field diagnostic confirms it", SRC_RMA },
	{ "retired_pages pending", GB_ACTION_RESET_GPU,
	  "a page retirement is pending: a reset (or driver reload) applies it", SRC_MEM },
	{ "retired_pages", GB_ACTION_NONE,
	  "pages were retired and are out of use; many retirements call for an RMA review", SRC_MEM },
	{ "pcie_replays", GB_ACTION_DRAIN_INSPECT,
	  "the link retransmits packets: reseat the card or riser, check the slot", SRC_GB },
	{ "nvlink", GB_ACTION_RESET_GPU, "NVLink CRC or recovery errors (as Xid 74)", SRC_XID },
	{ "nvlink_links_up", GB_ACTION_RESET_GPU, "NVLink links down (as Xid 74)", SRC_XID },
	{ "pcie_link", GB_ACTION_DRAIN_INSPECT,
	  "the PCIe link trained below its maximum: reseat the card, check slot and riser", SRC_GB },
	{ "pcie_link_under_load", GB_ACTION_DRAIN_INSPECT,
	  "the PCIe link ran below its maximum under load: reseat the card, check slot and riser",
	  SRC_GB },
	{ "could_run hung", GB_ACTION_RESET_GPU,
	  "the GPU stopped making progress (as Xid 8); the process abandoned it", SRC_XID },
	{ "could_run", GB_ACTION_RUN_AGAIN, "the load could not run on this GPU", SRC_GB },
	{ "hung", GB_ACTION_RESET_GPU,
	  "no progress within the watchdog's limit: a GPU or driver call that does not return "
	  "(as Xid 8); reboot if the reset fails", SRC_XID },
	{ "rank_hung", GB_ACTION_RESET_GPU,
	  "a collective never completed on this GPU while its peers finished it (as Xid 8); "
	  "the process abandoned it", SRC_XID },
	{ "collective_timeout", GB_ACTION_RUN_AGAIN,
	  "a collective timed out with no GPU behind the others: a peer process or a link; "
	  "the same again escalates", SRC_GB },
	{ "device_lost", GB_ACTION_RUN_AGAIN,
	  "a sticky CUDA error ended the context (as Xid 13, 31, 43)", SRC_XID },
	{ "cuda_error", GB_ACTION_RUN_AGAIN, "a CUDA error during the load (as Xid 13, 31, 43)",
	  SRC_XID },
	{ "device_*", GB_ACTION_RUN_AGAIN, "the benchmark could not run on this GPU", SRC_GB },
	{ "abft", GB_ACTION_DRAIN_INSPECT, "wrong GEMM results: silent data corruption", SRC_GB },
	{ "exact", GB_ACTION_DRAIN_INSPECT, "wrong GEMM results: silent data corruption", SRC_GB },
	{ "repeat", GB_ACTION_DRAIN_INSPECT, "the same GEMM gave different results", SRC_GB },
	{ "nan", GB_ACTION_DRAIN_INSPECT, "NaN or infinity out of finite inputs", SRC_GB },
	{ "cross_gpu", GB_ACTION_DRAIN_INSPECT, "the GPU computed a result its peers did not",
	  SRC_GB },
	{ "verify_*", GB_ACTION_DRAIN_INSPECT, "wrong GEMM results: silent data corruption", SRC_GB },
	{ "data_verified", GB_ACTION_DRAIN_INSPECT, "copied data arrived wrong", SRC_GB },
	{ "p2p_data", GB_ACTION_DRAIN_INSPECT, "peer-to-peer data arrived wrong", SRC_GB },
	{ "*_correct", GB_ACTION_DRAIN_INSPECT, "a collective's output was wrong", SRC_GB },
	{ "peer_throughput", GB_ACTION_RUN_AGAIN,
	  "slower than its peers: run again alone; a GPU slow again escalates", SRC_GB },
	{ "nvlink_peers", GB_ACTION_RESET_GPU,
	  "fewer NVLink links up than its peers of the same model (as Xid 74)", SRC_XID },
	/* each benchmark's comparison of GPUs of one model: tflops_bf16_peers, uni_ce_peers */
	{ "*_peers", GB_ACTION_RUN_AGAIN,
	  "slower than its peers: run again alone; a GPU slow again escalates", SRC_GB },
	{ "throughput_drop", GB_ACTION_RUN_AGAIN, "throughput fell during the load", SRC_GB },
	{ "temperature", GB_ACTION_DRAIN_INSPECT,
	  "too hot: check fans, airflow and the cooling of the slot", SRC_GB },
	{ "throttle", GB_ACTION_DRAIN_INSPECT,
	  "clocks held down by thermal or hardware slowdown: check cooling and power", SRC_GB },
};

const struct gb_fault_action *gb_fault_action_table(size_t *n)
{
	*n = ARRAY_LEN(checks);
	return checks;
}

static const struct gb_fault_action *listed_xid(unsigned long long xid)
{
	for (size_t i = 0; i < ARRAY_LEN(xids); i++)
		if (xids[i].xid == xid)
			return &xids[i].a;
	return NULL;
}

const struct gb_fault_action *gb_fault_action_xid(unsigned long long xid, bool hardware)
{
	const struct gb_fault_action *a = listed_xid(xid);

	return a ? a : hardware ? &xid_hw : &xid_other;
}

/*
 * The stress "xid" check carries the XIDs it saw (gb_check.xids): the most
 * severe action of them. Whether an unlisted XID is a hardware one the
 * check's status says (failed: it saw one); report/ does not reach into
 * bench/'s XID classes. A check without its XIDs (a report from before they
 * were written) gets its class's action.
 */
static const struct gb_fault_action *xid_action(const struct gb_check *c)
{
	const struct gb_fault_action *worst = NULL;
	bool hw = c->status == GB_STATUS_FAILED;

	for (size_t i = 0; i < c->n_xids; i++) {
		unsigned long long x = c->xids[i];
		const struct gb_fault_action *a = gb_fault_action_xid(x, hw && !listed_xid(x));

		if (!worst || a->act > worst->act)
			worst = a;
	}
	return worst ? worst : hw ? &xid_hw : &xid_other;
}

static bool name_matches(const char *pattern, const char *name)
{
	size_t lp = strlen(pattern), ln = strlen(name);

	if (pattern[0] == '*')
		return ln >= lp - 1 && !strcmp(name + ln - (lp - 1), pattern + 1);
	if (pattern[lp - 1] == '*')
		return !strncmp(name, pattern, lp - 1);
	return !strcmp(pattern, name);
}

/* a row by its fault, with an optional variant ("row_remap" + "failed") */
static const struct gb_fault_action *row(const char *name, const char *variant)
{
	char key[96];

	if (variant)
		snprintf(key, sizeof(key), "%s %s", name, variant);
	for (size_t i = 0; i < ARRAY_LEN(checks); i++)
		if (variant ? !strcmp(checks[i].fault, key) : name_matches(checks[i].fault, name))
			return &checks[i];
	return NULL;
}

static bool says(const struct gb_check *c, const char *what)
{
	return c->message && strstr(c->message, what);
}

const struct gb_fault_action *gb_fault_action_of(const struct gb_check *c)
{
	if (!c->name || (c->status != GB_STATUS_FAILED && c->status != GB_STATUS_WARNING &&
			 c->status != GB_STATUS_ERROR))
		return NULL;
	if (!strcmp(c->name, "xid"))
		return xid_action(c);
	if (!strcmp(c->name, "row_remap"))
		return row("row_remap", says(c, "failed") ? "failed" : "pending");
	if (!strcmp(c->name, "retired_pages") && says(c, "pending"))
		return row("retired_pages", "pending");
	if (!strcmp(c->name, "could_run") && says(c, "hung"))
		return row("could_run", "hung");
	return row(c->name, NULL);
}

enum gb_action gb_check_action(const struct gb_check *c)
{
	int a;

	if (!c->action)
		return GB_ACTION_NONE;
	a = (int)c->action->act;
	/* "none" is not a step on the ladder: a finding that needs nothing stays so */
	if (a != GB_ACTION_NONE)
		a += c->action_steps;
	return a > GB_ACTION_REPLACE ? GB_ACTION_REPLACE : (enum gb_action)a;
}

void gb_fault_actions_annotate(struct gb_run *run)
{
	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_checks; j++) {
			struct gb_check *c = &run->benches[i].checks[j];

			c->action = gb_fault_action_of(c);
		}
}

/* ---- escalation ---- */

static const char *uuid_of(const struct gb_run *run, int device)
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (run->devices[i].index == device)
			return run->devices[i].uuid && run->devices[i].uuid[0] ? run->devices[i].uuid
									      : NULL;
	return NULL;
}

/* the first check of `other` with an action (other than none) on the GPU `uuid`, NULL if none */
static const char *failed_on(const struct gb_run *other, const char *uuid)
{
	for (size_t i = 0; i < other->n_benches; i++)
		for (size_t j = 0; j < other->benches[i].n_checks; j++) {
			const struct gb_check *c = &other->benches[i].checks[j];
			const struct gb_fault_action *a = gb_fault_action_of(c);
			const char *u = c->device >= 0 ? uuid_of(other, c->device) : NULL;

			if (a && a->act != GB_ACTION_NONE && u && !strcmp(u, uuid))
				return c->name;
		}
	return NULL;
}

static bool same_started(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* escalate one check by the reports of others that failed on its GPU too */
static bool escalate_check(struct gb_check *c, const char *uuid, const char *self_started,
			   const struct gb_run *const *others, size_t n)
{
	char *because = NULL;
	int steps = 0;

	for (size_t k = 0; k < n; k++) {
		const char *name;
		char *next;

		/* the same run given twice is not a recurrence */
		if (same_started(self_started, others[k]->started_at))
			continue;
		name = failed_on(others[k], uuid);
		if (!name)
			continue;
		steps++;
		next = gb_strdupf("%s%s%s failed %s also in %s", because ? because : "",
				  because ? "; " : "", uuid, name,
				  others[k]->started_at ? others[k]->started_at : "a report without a start time");
		free(because);
		because = next;
	}
	if (!steps) {
		free(because);
		return false;
	}
	c->action_steps += steps;
	free(c->action_because);
	c->action_because = gb_str_printable(because);
	return true;
}

/*
 * self_of[d] (NULL: run->started_at for every GPU) is the start time of the
 * report GPU d's findings came from: a merged fleet holds several.
 */
static size_t escalate(struct gb_run *run, const char *const *self_of,
		       const struct gb_run *const *others, size_t n)
{
	size_t count = 0;

	gb_fault_actions_annotate(run);
	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_checks; j++) {
			struct gb_check *c = &run->benches[i].checks[j];
			const char *uuid = c->device >= 0 ? uuid_of(run, c->device) : NULL;
			const char *self = run->started_at;

			if (!c->action || c->action->act == GB_ACTION_NONE || !uuid)
				continue;
			if (self_of)
				self = (size_t)c->device < run->n_devices ? self_of[c->device] : NULL;
			count += escalate_check(c, uuid, self, others, n);
		}
	return count;
}

size_t gb_fault_actions_escalate(struct gb_run *run, const struct gb_run *const *others,
				 size_t n)
{
	return escalate(run, NULL, others, n);
}

size_t gb_fault_actions_escalate_fleet(struct gb_run *fleet, const char *const *self_of,
				       const struct gb_run *const *runs, size_t n)
{
	return escalate(fleet, self_of, runs, n);
}

/* ---- text ---- */

void gb_fault_action_text(const struct gb_check *c, char *buf, size_t len)
{
	enum gb_action a = gb_check_action(c);

	buf[0] = '\0';
	if (!c->action)
		return;
	if (a != c->action->act && c->action_because)
		snprintf(buf, len, " → action: %s (up from %s: %s)", gb_action_words(a),
			 gb_action_words(c->action->act), c->action_because);
	else
		snprintf(buf, len, " → action: %s", gb_action_words(a));
}

void gb_fault_actions_print(FILE *out, const struct gb_run *run, const char *label)
{
	char what[1024];
	bool any = false;

	for (size_t i = 0; i < run->n_benches; i++)
		for (size_t j = 0; j < run->benches[i].n_checks; j++) {
			const struct gb_check *c = &run->benches[i].checks[j];

			if (!c->action)
				continue;
			if (!any)
				fprintf(out, "\nwhat to do (%s)\n", label);
			any = true;
			gb_fault_action_text(c, what, sizeof(what));
			fprintf(out, "  %s/%s", run->benches[i].name, c->name);
			if (c->device >= 0)
				fprintf(out, " (GPU %d)", c->device);
			fprintf(out, ": %s%s\n", c->message ? c->message : "", what);
		}
}
