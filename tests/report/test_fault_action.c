/* SPDX-License-Identifier: MIT */
/*
 * test_fault_action.c - report/fault_action.c: each fault check maps to its
 * row of the table, XIDs take the most severe action among them, passed and
 * skipped checks get none, escalation goes one step up per other report in
 * which the same GPU (by UUID) failed, and the JSON writer and loader carry
 * the action and its escalation through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/fault_action.h"
#include "report/json.h"
#include "report/result.h"

/* the action's number for check c, -1 for none at all */
static int action_num(const struct gb_check *c)
{
	const struct gb_fault_action *a = gb_fault_action_of(c);

	return a ? (int)a->act : -1;
}

static int action_of(const char *name, enum gb_status st, const char *msg)
{
	struct gb_check c = { .name = (char *)name, .status = st, .message = (char *)msg };

	return action_num(&c);
}

/* an "xid" check that saw xids[0..n) */
static int xid_action_of(enum gb_status st, const unsigned long long *xids, size_t n)
{
	struct gb_check c = { .name = (char *)"xid", .status = st, .message = (char *)"",
			      .xids = (unsigned long long *)xids, .n_xids = n };

	return action_num(&c);
}

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(action_of("ecc_dbe", GB_STATUS_FAILED, "2 new"), GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("ecc_sbe", GB_STATUS_WARNING, "5 new"), GB_ACTION_NONE);
	assert_int_equal(action_of("row_remap", GB_STATUS_FAILED,
				   "row remapping pending: the GPU needs a reset"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("row_remap", GB_STATUS_FAILED, "row remapping failed"),
			 GB_ACTION_REPLACE);
	assert_int_equal(action_of("retired_pages", GB_STATUS_FAILED,
				   "page retirement pending: the GPU needs a reset"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("retired_pages", GB_STATUS_WARNING, "3 pages retired"),
			 GB_ACTION_NONE);
	assert_int_equal(action_of("pcie_replays", GB_STATUS_WARNING, "9 new"),
			 GB_ACTION_DRAIN_INSPECT);
	assert_int_equal(action_of("nvlink", GB_STATUS_WARNING, "4 CRC"), GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("nvlink_links_up", GB_STATUS_FAILED, "down"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("could_run", GB_STATUS_ERROR, "hung: no progress"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("could_run", GB_STATUS_ERROR, "could not run: oom"),
			 GB_ACTION_RUN_AGAIN);
	assert_int_equal(action_of("rank_hung", GB_STATUS_ERROR, "rank 1 (GPU 1) hangs"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("collective_timeout", GB_STATUS_ERROR, "did not finish"),
			 GB_ACTION_RUN_AGAIN);
	assert_int_equal(action_of("device_1", GB_STATUS_ERROR, "cudaErrorMemoryAllocation"),
			 GB_ACTION_RUN_AGAIN);
	assert_int_equal(action_of("verify_fp32", GB_STATUS_FAILED, "wrong"),
			 GB_ACTION_DRAIN_INSPECT);
	assert_int_equal(action_of("allreduce_correct", GB_STATUS_FAILED, "1 wrong"),
			 GB_ACTION_DRAIN_INSPECT);
	assert_int_equal(action_of("peer_throughput", GB_STATUS_FAILED, "slower"),
			 GB_ACTION_RUN_AGAIN);
	assert_int_equal(action_of("pcie_link_under_load", GB_STATUS_FAILED, "x8"),
			 GB_ACTION_DRAIN_INSPECT);
	/* not faults, or nothing found */
	assert_int_equal(action_of("ecc_dbe", GB_STATUS_PASSED, "0 new"), -1);
	assert_int_equal(action_of("xid", GB_STATUS_SKIPPED, "not watched"), -1);
	assert_int_equal(action_of("sample_spread", GB_STATUS_WARNING, "cv 9%"), -1);
}

static void test_xid_severity(void **state)
{
	(void)state;
	assert_int_equal(gb_fault_action_xid(79, true)->act, GB_ACTION_REBOOT);
	assert_int_equal(gb_fault_action_xid(48, true)->act, GB_ACTION_RESET_GPU);
	assert_int_equal(gb_fault_action_xid(13, false)->act, GB_ACTION_RUN_AGAIN);
	assert_int_equal(gb_fault_action_xid(64, true)->act, GB_ACTION_REPLACE);
	assert_int_equal(gb_fault_action_xid(9999, true)->act, GB_ACTION_RESET_GPU);
	assert_int_equal(gb_fault_action_xid(9999, false)->act, GB_ACTION_RUN_AGAIN);
	/* the most severe of the XIDs the check carries */
	assert_int_equal(xid_action_of(GB_STATUS_FAILED, (unsigned long long[]){ 79 }, 1),
			 GB_ACTION_REBOOT);
	assert_int_equal(xid_action_of(GB_STATUS_FAILED, (unsigned long long[]){ 48, 79, 13 }, 3),
			 GB_ACTION_REBOOT);
	assert_int_equal(xid_action_of(GB_STATUS_FAILED, (unsigned long long[]){ 48, 64, 13 }, 3),
			 GB_ACTION_REPLACE);
	assert_int_equal(xid_action_of(GB_STATUS_WARNING, (unsigned long long[]){ 13 }, 1),
			 GB_ACTION_RUN_AGAIN);
	/* an unlisted XID: a failed check saw a hardware one, a warning did not */
	assert_int_equal(xid_action_of(GB_STATUS_FAILED, (unsigned long long[]){ 9999 }, 1),
			 GB_ACTION_RESET_GPU);
	/* the message is for people: its numbers are not read (a node named node79, an old report) */
	assert_int_equal(action_of("xid", GB_STATUS_FAILED, "node79: hardware XID 79 during the run"),
			 GB_ACTION_RESET_GPU);
	assert_int_equal(action_of("xid", GB_STATUS_WARNING, "XID 64 during the run"),
			 GB_ACTION_RUN_AGAIN);
	for (int a = 0; a < GB_ACTION_COUNT; a++)
		assert_int_equal(gb_action_from_name(gb_action_name((enum gb_action)a)), a);
	assert_int_equal(gb_action_from_name("reboot_now"), -1);
}

/* a one-GPU stress run that started at `when` with one check on GPU uuid */
static void make_run(struct gb_run *run, const char *uuid, const char *when, const char *check,
		     enum gb_status st, const char *msg)
{
	struct gb_device_info *d;
	struct gb_bench_result *b;

	gb_run_init(run, "stress", 0, NULL);
	free(run->started_at);
	run->started_at = gb_strdup(when);
	d = gb_run_add_device(run);
	d->index = 0;
	d->uuid = gb_strdup(uuid);
	b = gb_run_add_bench(run, "stress");
	gb_bench_add_check(b, check, st, GB_SEV_ERROR, 0, 1, 0, "%s", msg);
}

static void test_escalation(void **state)
{
	struct gb_run now, before, again, other;
	const struct gb_run *hist[3];
	struct gb_check *c;

	(void)state;
	make_run(&now, "GPU-aaaa", "2026-11-28T12:00:00Z", "xid", GB_STATUS_FAILED,
		 "hardware XID 48 during the run");
	make_run(&before, "GPU-aaaa", "2026-11-27T12:00:00Z", "ecc_dbe", GB_STATUS_FAILED, "1 new");
	make_run(&again, "GPU-aaaa", "2026-11-28T12:00:00Z", "xid", GB_STATUS_FAILED,
		 "hardware XID 48 during the run");
	make_run(&other, "GPU-bbbb", "2026-11-26T12:00:00Z", "ecc_dbe", GB_STATUS_FAILED, "1 new");
	hist[0] = &again; /* the same run given twice: no recurrence */
	hist[1] = &other; /* another GPU: no recurrence */
	assert_int_equal(gb_fault_actions_escalate(&now, hist, 2), 0);
	c = &now.benches[0].checks[0];
	assert_int_equal(gb_check_action(c), GB_ACTION_RESET_GPU);
	assert_null(c->action_because);
	hist[2] = &before;
	assert_int_equal(gb_fault_actions_escalate(&now, hist, 3), 1);
	assert_int_equal(gb_check_action(c), GB_ACTION_REBOOT);
	assert_string_equal(c->action_because, "GPU-aaaa failed ecc_dbe also in 2026-11-27T12:00:00Z");
	{
		char text[512];

		gb_fault_action_text(c, text, sizeof(text));
		assert_string_equal(text, " → action: reboot the node (up from reset the GPU: "
					  "GPU-aaaa failed ecc_dbe also in 2026-11-27T12:00:00Z)");
	}
	/* the steps stay through a later annotate */
	gb_fault_actions_annotate(&now);
	assert_int_equal(gb_check_action(c), GB_ACTION_REBOOT);
	/* capped at replace */
	c->action_steps = 9;
	assert_int_equal(gb_check_action(c), GB_ACTION_REPLACE);
	gb_run_release(&now);
	gb_run_release(&before);
	gb_run_release(&again);
	gb_run_release(&other);
}

static const cJSON *first_check(const cJSON *doc)
{
	return cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "benchmarks"), 0),
				    "checks"),
		0);
}

static void test_write_load(void **state)
{
	struct gb_run run, before, back;
	const struct gb_run *hist[1] = { &before };
	const cJSON *a;
	cJSON *doc;
	char err[256], *xids;

	(void)state;
	make_run(&run, "GPU-aaaa", "2026-11-28T12:00:00Z", "row_remap", GB_STATUS_FAILED,
		 "row remapping pending: the GPU needs a reset");
	make_run(&before, "GPU-aaaa", "2026-11-27T12:00:00Z", "xid", GB_STATUS_FAILED,
		 "hardware XID 79 during the run");
	gb_fault_actions_escalate(&run, hist, 1);
	doc = gb_report_to_json(&run);
	a = cJSON_GetObjectItem(first_check(doc), "action");
	assert_string_equal(cJSON_GetObjectItem(a, "do")->valuestring, "reboot");
	assert_string_equal(cJSON_GetObjectItem(a, "escalated_from")->valuestring, "reset_gpu");
	assert_string_equal(cJSON_GetObjectItem(a, "because")->valuestring,
			    "GPU-aaaa failed xid also in 2026-11-27T12:00:00Z");
	assert_non_null(strstr(cJSON_GetObjectItem(a, "source")->valuestring, "Memory Error"));
	assert_int_equal(gb_report_from_json(doc, &back, err, sizeof(err)), 0);
	assert_int_equal(gb_check_action(&back.benches[0].checks[0]), GB_ACTION_REBOOT);
	assert_int_equal(back.benches[0].checks[0].action->act, GB_ACTION_RESET_GPU);
	assert_string_equal(back.benches[0].checks[0].action_because,
			    "GPU-aaaa failed xid also in 2026-11-27T12:00:00Z");
	cJSON_Delete(doc);
	gb_run_release(&back);
	/* the XIDs a check saw go through the file, and its action with them */
	gb_check_set_xids(&before.benches[0].checks[0], (unsigned long long[]){ 48, 79 }, 2);
	gb_fault_actions_annotate(&before);
	doc = gb_report_to_json(&before);
	xids = cJSON_PrintUnformatted(cJSON_GetObjectItem(first_check(doc), "xids"));
	assert_string_equal(xids, "[48,79]");
	free(xids);
	assert_int_equal(gb_report_from_json(doc, &back, err, sizeof(err)), 0);
	assert_int_equal(back.benches[0].checks[0].n_xids, 2);
	assert_int_equal(back.benches[0].checks[0].xids[1], 79);
	assert_int_equal(gb_check_action(&back.benches[0].checks[0]), GB_ACTION_REBOOT);
	gb_run_release(&back);
	cJSON_ReplaceItemInObject((cJSON *)first_check(doc), "xids", cJSON_Parse("[48,-1]"));
	assert_int_not_equal(gb_report_from_json(doc, &back, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "xids[1]"));
	cJSON_Delete(doc);
	gb_check_set_xids(&before.benches[0].checks[0], NULL, 0);
	/* a check that found nothing writes null, and a bad name is refused */
	before.benches[0].checks[0].status = GB_STATUS_PASSED;
	gb_fault_actions_annotate(&before);
	doc = gb_report_to_json(&before);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(first_check(doc), "action")));
	cJSON_ReplaceItemInObject((cJSON *)first_check(doc), "action",
				  cJSON_Parse("{\"do\":\"pray\"}"));
	assert_int_not_equal(gb_report_from_json(doc, &back, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "action.do"));
	cJSON_Delete(doc);
	gb_run_release(&run);
	gb_run_release(&before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_xid_severity),
		cmocka_unit_test(test_escalation),
		cmocka_unit_test(test_write_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
