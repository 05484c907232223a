/* SPDX-License-Identifier: MIT */
/*
 * host.c - host metadata for the report. Only whitelisted environment
 * variables are ever recorded: reports get shared, and an environment can
 * hold credentials (nccl-tests dumps all of it; we do not).
 */
#include "host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *const gb_env_whitelist[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_DEVICE_MAX_CONNECTIONS",
	"CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING", "NVIDIA_TF32_OVERRIDE",
	"CUBLAS_WORKSPACE_CONFIG", "CUBLASLT_*", "NCCL_*", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_JOB_ID", "SLURM_PROCID",
	"SLURM_LOCALID", "SLURM_NTASKS", "GPUBENCH_NVML_LIBRARY", NULL,
};

int gb_env_is_whitelisted(const char *name)
{
	for (size_t i = 0; gb_env_whitelist[i]; i++) {
		const char *w = gb_env_whitelist[i];
		size_t n = strlen(w);

		if (n && w[n - 1] == '*') {
			if (!strncmp(name, w, n - 1))
				return 1;
		} else if (!strcmp(name, w)) {
			return 1;
		}
	}
	return 0;
}

/* "model name : AMD EPYC ..." from /proc/cpuinfo, with the CPU count */
static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], model[256] = "";
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!strncmp(line, "model name", 10) && colon) {
				snprintf(model, sizeof(model), "%s", colon + 2);
				model[strcspn(model, "\n")] = '\0';
				break;
			}
		}
		fclose(f);
	}
	if (!model[0])
		return NULL;
	return gb_strdupf("%s (%ld logical CPUs)", model, ncpu);
}

/* PRETTY_NAME from /etc/os-release */
static char *os_name(void)
{
	FILE *f = fopen("/etc/os-release", "r");
	char line[512];
	char *out = NULL;

	if (!f)
		return NULL;
	while (!out && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "PRETTY_NAME=", 12)) {
			char *v = line + 12;

			v[strcspn(v, "\n")] = '\0';
			if (*v == '"') {
				v++;
				v[strcspn(v, "\"")] = '\0';
			}
			out = gb_strdup(v);
		}
	}
	fclose(f);
	return out;
}

/*
 * The simulated GPU (tests/sim, docs/simulation.md): gpubench-sim is linked
 * against a stand-in CUDA runtime that exports gbsim_report_label(); the
 * shipped gpubench has no such symbol anywhere in its process. This lookup
 * is the one place that decides host.simulated, so a report says it is
 * simulated exactly when it is.
 */
void gb_host_simulation(struct gb_host_info *host)
{
	typedef const char *label_fn(void);
	void *sym = dlsym(RTLD_DEFAULT, "gbsim_report_label");
	label_fn *label;
	const char *text;

	free(host->simulated_machine);
	host->simulated_machine = NULL;
	host->simulated = sym != NULL;
	if (!sym)
		return;
	/* object pointer to function pointer: memcpy, as POSIX's dlsym() intends */
	memcpy(&label, &sym, sizeof(label));
	text = label();
	if (text && *text)
		host->simulated_machine = gb_str_printable(gb_strdup(text));
}

void gb_host_collect(struct gb_host_info *host)
{
	struct utsname u;
	char name[256];

	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		host->hostname = gb_strdup(name);
	}
	if (uname(&u) == 0)
		host->kernel = gb_strdupf("%s %s %s", u.sysname, u.release, u.machine);
	host->os = os_name();
	host->cpu = cpu_model();
	gb_host_simulation(host);
}
