/* SPDX-License-Identifier: MIT */
/*
 * test_info_links.c - unit tests for what collection says about links and
 * about checks that do not apply (bench/device/info_math.c, stress's verdict):
 *   - a PCIe link trained below its maximum is given with the figure of the
 *     link as trained (Gen3 x8 is 7.9 GB/s, not Gen4 x8's 15.8);
 *   - a GPU with fewer NVLinks up than another GPU of its model warns,
 *     naming both;
 *   - stress on a GPU with ECC off skips the ECC and memory-repair rules
 *     with that reason instead of passing "0 new errors".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/device/info_math.h"
#include "bench/stress/stress_math.h"
#include "report/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void test_pcie_figures(void **state)
{
	struct gb_pcie_figures f;

	(void)state;
	/* Gen3 x8 trained on a Gen4 x16 card and slot: 7.877 now, 15.75 at Gen4 x8, 31.5 max */
	gb_pcie_link_figures(3, 8, 4, 16, &f);
	assert_true(fabs(f.now_bps / 1e9 - 7.877) < 0.01);
	assert_true(fabs(f.at_max_gen_bps / 1e9 - 15.75) < 0.01);
	assert_true(fabs(f.max_bps / 1e9 - 31.5) < 0.01);
	/* Gen5 x16 trained at x4 */
	gb_pcie_link_figures(5, 4, 5, 16, &f);
	assert_true(fabs(f.now_bps / 1e9 - 15.75) < 0.01);
	assert_true(fabs(f.max_bps / 1e9 - 63.0) < 0.05);
	/* unknown generation: unknown figures, never 0 GB/s */
	gb_pcie_link_figures(-1, 8, 4, 16, &f);
	assert_true(isnan(f.now_bps));
}

struct machine {
	struct gb_run run;
	struct gb_info_notes *notes;
};

/* n GPUs of one model, all asked of NVML, PCIe Gen4 x16 unless changed */
static void machine_init(struct machine *m, const char *name, int n)
{
	const char *argv[] = { "gpubench", "info" };

	gb_run_init(&m->run, "info", 2, argv);
	m->notes = calloc(1, sizeof(*m->notes));
	assert_non_null(m->notes);
	for (int i = 0; i < n; i++) {
		struct gb_device_info *d = gb_run_add_device(&m->run);

		d->index = i;
		d->name = gb_strdup(name);
		d->sm_count = 132;
		d->pcie_gen = d->pcie_max_gen = 4;
		d->pcie_width = d->pcie_max_width = 16;
		m->notes->dev[i].device = i;
		m->notes->dev[i].nvml_asked = true;
		m->notes->dev[i].nvml.gpu_max_pcie_gen = 4;
	}
	m->notes->n = (size_t)n;
}

static void machine_release(struct machine *m)
{
	gb_run_release(&m->run);
	free(m->notes);
}

static const struct gb_check *find_check(const struct gb_bench_result *b, const char *name,
					 int device)
{
	for (size_t i = 0; b && i < b->n_checks; i++)
		if (!strcmp(b->checks[i].name, name) && b->checks[i].device == device)
			return &b->checks[i];
	return NULL;
}

static void test_pcie_message_figure(void **state)
{
	struct machine m;
	struct gb_bench_result *res;
	const struct gb_check *c;

	(void)state;
	machine_init(&m, "NVIDIA L40S", 2);
	m.run.devices[1].pcie_gen = 3;
	m.run.devices[1].pcie_width = 8;
	res = gb_info_notes_apply(&m.run, m.notes);
	c = find_check(res, "pcie_link", 1);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_WARNING);
	/* the link as trained: Gen3 x8 carries 7.9, not Gen4 x8's 15.8 */
	assert_non_null(strstr(c->message, "trained at Gen3 x8, card and slot allow Gen4 x16: "
					   "host transfers reach at most 7.9 of 31.5 GB/s"));
	assert_non_null(strstr(c->message, "15.8 at Gen4 x8 if it returns to Gen4 under load"));
	assert_null(find_check(res, "pcie_link", 0));
	machine_release(&m);

	/* the generation at its maximum: only the width's figure, no "returns to" */
	machine_init(&m, "NVIDIA L40S", 1);
	m.run.devices[0].pcie_width = 8;
	res = gb_info_notes_apply(&m.run, m.notes);
	c = find_check(res, "pcie_link", 0);
	assert_non_null(c);
	assert_non_null(strstr(c->message, "at most 15.8 of 31.5 GB/s per direction ("));
	assert_null(strstr(c->message, "returns to"));
	machine_release(&m);
}

static void test_nvlink_behind_peers(void **state)
{
	struct machine m;
	struct gb_bench_result *res;
	const struct gb_check *c;

	(void)state;
	/* an HGX: eight H100, GPU 3 has no NVLink up */
	machine_init(&m, "NVIDIA H100 80GB HBM3", 8);
	for (int i = 0; i < 8; i++)
		m.run.devices[i].nvlink_up = i == 3 ? 0 : 18;
	res = gb_info_notes_apply(&m.run, m.notes);
	assert_non_null(res);
	c = find_check(res, "nvlink_peers", 3);
	assert_non_null(c);
	assert_int_equal(c->status, GB_STATUS_WARNING);
	assert_true(c->observed == 0 && c->threshold == 18);
	assert_string_equal(c->message,
			    "GPU 3 has 0 NVLink links up while GPU 0 of the same model has 18: "
			    "its NVLinks are down; peer traffic of GPU 3 takes a slower path "
			    "(`gpubench p2p` measures it)");
	for (int i = 0; i < 8; i++)
		if (i != 3)
			assert_null(find_check(res, "nvlink_peers", i));
	assert_int_equal(res->status, GB_STATUS_WARNING);
	gb_run_verdict(&m.run);
	assert_int_equal(m.run.verdict, GB_STATUS_WARNING);
	machine_release(&m);

	/* some links down: a warning that says so */
	machine_init(&m, "NVIDIA H100 80GB HBM3", 4);
	for (int i = 0; i < 4; i++)
		m.run.devices[i].nvlink_up = i == 1 ? 12 : 18;
	res = gb_info_notes_apply(&m.run, m.notes);
	c = find_check(res, "nvlink_peers", 1);
	assert_non_null(c);
	assert_non_null(strstr(c->message, "GPU 1 has 12 NVLink links up while GPU 0 of the same "
					   "model has 18: some of its NVLinks are down"));
	machine_release(&m);

	/* every GPU's links up: nothing to say */
	machine_init(&m, "NVIDIA H100 80GB HBM3", 8);
	for (int i = 0; i < 8; i++)
		m.run.devices[i].nvlink_up = 18;
	assert_null(gb_info_notes_apply(&m.run, m.notes));
	machine_release(&m);

	/* GeForce (no NVLink, 0 up everywhere) and unknown link state: no finding */
	machine_init(&m, "NVIDIA GeForce RTX 4090", 2);
	m.run.devices[0].nvlink_up = 0;
	m.run.devices[1].nvlink_up = -1;
	assert_null(gb_info_notes_apply(&m.run, m.notes));
	machine_release(&m);
}

static const struct gb_stress_check *stress_check(const struct gb_stress_check *c, size_t n,
						  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	fail_msg("no check '%s'", name);
	return NULL;
}

static void test_stress_ecc_off(void **state)
{
	static const char *const skipped[] = { "ecc_dbe", "ecc_sbe", "row_remap", "retired_pages" };
	struct gb_stress_thresholds th;
	struct gb_stress_check c[GB_STRESS_MAX_CHECKS];
	struct gb_stress_obs o;
	size_t n;

	(void)state;
	gb_stress_thresholds_default(&th);
	gb_stress_obs_init(&o, 1);
	o.ran = true;
	o.nvml = true;
	o.have_health = true;
	/* what the driver answers for a GeForce card: counters at 0, no remapping */
	memset(&o.before, 0, sizeof(o.before));
	memset(&o.after, 0, sizeof(o.after));
	o.after.remap_pending = o.after.remap_failed = -1;
	o.ecc = 0;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	for (size_t i = 0; i < ARRAY_LEN(skipped); i++) {
		const struct gb_stress_check *k = stress_check(c, n, skipped[i]);

		assert_int_equal(k->status, GB_STATUS_SKIPPED);
		assert_non_null(strstr(k->message, "ECC is off on GPU 1"));
	}
	/* ECC on: the counters are judged, 0 new errors pass */
	o.ecc = 1;
	n = gb_stress_judge(&o, &th, NULL, c, ARRAY_LEN(c));
	assert_int_equal(stress_check(c, n, "ecc_dbe")->status, GB_STATUS_PASSED);
	/* ... and a GPU without row remapping says which GPU */
	assert_int_equal(stress_check(c, n, "row_remap")->status, GB_STATUS_SKIPPED);
	assert_non_null(strstr(stress_check(c, n, "row_remap")->message, "GPU 1"));
	gb_stress_obs_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie_figures),
		cmocka_unit_test(test_pcie_message_figure),
		cmocka_unit_test(test_nvlink_behind_peers),
		cmocka_unit_test(test_stress_ecc_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
