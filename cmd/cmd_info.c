/* SPDX-License-Identifier: MIT */
/*
 * cmd_info.c - `gpubench info`: every visible GPU, its links and its
 * theoretical peaks; the driver and library versions.
 */
#include <stdio.h>

#include "cmd.h"
#include "log.h"
#include "report/exitcodes.h"

static const char info_usage[] = "gpubench info [options]";
static const char info_summary[] =
	"Describe every visible GPU: identity, clocks, memory, PCIe and NVLink, topology, and "
	"theoretical peaks (FP64 to INT8 TFLOPS, memory and PCIe bandwidth).";

int cmd_info(int argc, const char **argv)
{
	struct gb_common common;
	struct gb_opt_set sets[] = { { gb_common_opts, &common } };
	struct gb_run run;
	int rc;

	gb_common_defaults(&common);
	rc = gb_cmd_parse(info_usage, info_summary, sets, 1, argc, argv, NULL, 0, NULL);
	if (rc >= 0)
		return rc;
	if (gb_cmd_check_common(&common))
		return GB_EXIT_USAGE;
	gb_log_set_verbosity(common.quiet ? -1 : common.verbose ? 1 : 0);
	/* enumeration can block for long on a broken node: Ctrl-C must still
	 * leave a report, and the watchdog ends a probe that never returns */
	gb_cmd_catch_signals();
	gb_cmd_run_begin(&run, "info", argc, argv);
	gb_cmd_watchdog_start(&run, &common, true);
	gb_cmd_library_versions(&run);
	if (gb_cmd_gpu_setup(&run) == 0) {
		/* an index beyond the last GPU is bad input: exit 2, no report written */
		if (gb_device_list_resolve(&common.devices, (int)run.n_devices)) {
			gb_run_release(&run);
			return GB_EXIT_USAGE;
		}
		gb_run_keep_devices(&run, common.devices.idx, common.devices.n);
	}
	rc = gb_cmd_run_finish(&run, &common, true);
	gb_run_release(&run);
	return rc;
}
