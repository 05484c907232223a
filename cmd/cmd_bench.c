/* SPDX-License-Identifier: MIT */
/*
 * cmd_bench.c - the one entry point of every benchmark subcommand: parse the
 * shared and the benchmark's options, probe, check support, run, report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cmd.h"
#include "log.h"
#include "report/exitcodes.h"

int cmd_bench(const struct gb_bench *bench, int argc, const char **argv)
{
	struct gb_common common;
	void *params = calloc(1, bench->params_size ? bench->params_size : 1);
	struct gb_opt_set sets[] = { { bench->opts, params }, { gb_common_opts, &common } };
	struct gb_run run;
	char err[512];
	int rc;

	gb_common_defaults(&common);
	if (bench->set_defaults)
		bench->set_defaults(params);
	rc = gb_cmd_parse(bench->usage, bench->summary, sets, 2, argc, argv, NULL, 0, NULL);
	if (rc >= 0)
		goto out;
	rc = GB_EXIT_USAGE;
	if (bench->validate && bench->validate(params, err, sizeof(err))) {
		gb_error("%s", err);
		goto out;
	}
	if (gb_cmd_check_common(&common))
		goto out;
	gb_log_set_verbosity(common.quiet ? -1 : common.verbose ? 1 : 0);
	gb_cmd_catch_signals();
	gb_cmd_run_begin(&run, bench->name, argc, argv);
	gb_cmd_watchdog_start(&run, &common, false); /* so GPU setup is watched too */
	if (bench->unavailable_reason) {
		gb_error("%s: %s", bench->name, bench->unavailable_reason);
		gb_run_set_status(&run, GB_STATUS_NOT_BUILT, bench->unavailable_reason);
	} else if (gb_cmd_gpu_setup(&run) == 0) {
		/* an index beyond the last GPU is bad input: exit 2, no report written */
		if (gb_device_list_resolve(&common.devices, (int)run.n_devices) ||
		    gb_cmd_resolve_bench_devices(bench, params, (int)run.n_devices)) {
			gb_run_release(&run);
			goto out;
		}
		gb_cmd_run_one_bench(bench, &run, &common, params);
	}
	rc = gb_cmd_run_finish(&run, &common, false);
	gb_run_release(&run);
out:
	free(params);
	return rc;
}
