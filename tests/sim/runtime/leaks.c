/* SPDX-License-Identifier: MIT */
/*
 * leaks.c - the leak report at exit.
 *
 * An atexit handler, registered when the library loads (so it runs after
 * every handler the program registers later, i.e. last), lists what was
 * never released: device and managed allocations, pinned host allocations,
 * streams and events per GPU, graphs and executable graphs. With
 * GBSIM_LEAKS_FATAL=1 a leak ends the process with status 99 (_exit after
 * flushing stdio): by then the program's own exit status is out of reach,
 * and a test must fail on the leak it caused.
 */
#include "tests/sim/runtime/rt.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pid_t owner_pid;

void rt_describe_site(const void *site, char *buf, size_t len)
{
	Dl_info info;

	if (!site || !dladdr(site, &info) || !info.dli_fname) {
		snprintf(buf, len, "%p", site);
		return;
	}
	if (info.dli_sname && info.dli_saddr)
		snprintf(buf, len, "%s+0x%lx", info.dli_sname,
			 (unsigned long)((const char *)site - (const char *)info.dli_saddr));
	else
		snprintf(buf, len, "%s+0x%lx", strrchr(info.dli_fname, '/')
			 ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
			 (unsigned long)((const char *)site - (const char *)info.dli_fbase));
}

static void size_text(size_t bytes, char *buf, size_t len)
{
	if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, len, "%zu bytes", bytes);
}

static int report_memory(int device, struct rt_leak_mem *pinned_total)
{
	struct rt_leak_mem dev, pinned;
	char size[32], site[256];

	rt_memory_leaks(device, &dev, &pinned);
	if (dev.count) {
		size_text(dev.bytes, size, sizeof(size));
		rt_describe_site(dev.first_site, site, sizeof(site));
		gbsim_log("leak: %d device allocation%s (%s) on GPU %d, first from %s", dev.count,
			  dev.count == 1 ? "" : "s", size, device, site);
	}
	if (pinned.count && !pinned_total->count)
		pinned_total->first_site = pinned.first_site;
	pinned_total->count += pinned.count;
	pinned_total->bytes += pinned.bytes;
	return dev.count;
}

static int report_handles(int device)
{
	const void *first = NULL;
	char site[256];
	int streams = rt_stream_leaks(device, &first), events = rt_event_leaks(device);

	if (streams) {
		rt_describe_site(first, site, sizeof(site));
		gbsim_log("leak: %d stream%s on GPU %d, first from %s", streams,
			  streams == 1 ? "" : "s", device, site);
	}
	if (events)
		gbsim_log("leak: %d event%s on GPU %d", events, events == 1 ? "" : "s", device);
	return streams + events;
}

static _Atomic bool hung[GBSIM_MAX_GPUS];

void rt_mark_hung(int device)
{
	if (device >= 0 && device < GBSIM_MAX_GPUS)
		atomic_store(&hung[device], true);
}

bool rt_hung(int device)
{
	return device >= 0 && device < GBSIM_MAX_GPUS && atomic_load(&hung[device]);
}

static void report_leaks(void)
{
	struct rt_leak_mem pinned = {0, 0, NULL};
	const char *fatal = getenv("GBSIM_LEAKS_FATAL");
	char size[32], site[256];
	int leaks = 0, graphs, execs;

	if (getpid() != owner_pid)
		return; /* a forked child: the leaks are its parent's */
	/* every slot, not the machine's count: the report must not load the machine */
	for (int d = 0; d < GBSIM_MAX_GPUS; d++) {
		if (rt_hung(d)) {
			/* given up by the product while a kernel ran: abandoned, not leaked */
			gbsim_log("GPU %d hung (fault 'hang'): its allocations and handles are "
				  "not counted as leaks", d);
			continue;
		}
		leaks += report_memory(d, &pinned);
		leaks += report_handles(d);
	}
	if (pinned.count) {
		size_text(pinned.bytes, size, sizeof(size));
		rt_describe_site(pinned.first_site, site, sizeof(site));
		gbsim_log("leak: %d pinned host allocation%s (%s), first from %s", pinned.count,
			  pinned.count == 1 ? "" : "s", size, site);
		leaks += pinned.count;
	}
	graphs = rt_graph_leaks(&execs);
	if (graphs)
		gbsim_log("leak: %d graph%s", graphs, graphs == 1 ? "" : "s");
	if (execs)
		gbsim_log("leak: %d executable graph%s", execs, execs == 1 ? "" : "s");
	leaks += graphs + execs;
	if (leaks && fatal && !strcmp(fatal, "1")) {
		gbsim_log("leaks are fatal (GBSIM_LEAKS_FATAL=1): exit status 99");
		fflush(NULL);
		_exit(99);
	}
}

__attribute__((constructor)) static void register_leak_report(void)
{
	owner_pid = getpid();
	atexit(report_leaks);
}
