/* SPDX-License-Identifier: MIT */
/*
 * machine.c - the simulated machine: a JSON machine file (docs/simulation.md)
 * read into struct gbsim_machine, with every GPU built from the simulator's
 * own catalog (tests/sim/catalog.c) and the file's efficiencies, never from
 * the product's theory: what the product measures on a simulated GPU is then
 * checked against figures it did not compute. The product's catalog is only
 * asked whether it recognises each device name as the model it came from.
 *
 * Validation is strict: a key this file does not know, a number out of range
 * or of the wrong type, an unknown model or fault kind is an error naming the
 * file and the key ("m.json: gpus[1].memory: ..."), never a silent default.
 */
#include "tests/sim/sim.h"

#include "report/theory.h"
#include "tests/sim/catalog.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MACHINE_FILE_MAX_BYTES (1 << 20) /* a machine file is a page of text */
#define PATH_LEN 96                        /* "gpus[7].pcie.max_width" */
#define MAX_NVLINKS_PER_PAIR 36            /* NVML_NVLINK_MAX_LINKS */
#define DEFAULT_NOISE 0.01
#define DEFAULT_SEED 1
/*
 * The shares of the spec figures a healthy machine reaches, when the file
 * gives none: just above the product's pass limits (GEMM 0.70, host copies
 * 0.75, memory 0.80 of peak in `run --profile quick`), as a good real
 * machine is. cuBLAS reaches 75-90% of a dense peak at large sizes, copies
 * 85-92% of the link; NCCL's ring about 20 of NVLink's 25 GB/s per link.
 */
#define DEFAULT_GEMM_EFFICIENCY 0.85
#define DEFAULT_MEMORY_EFFICIENCY 0.9
#define DEFAULT_PCIE_EFFICIENCY 0.85
#define DEFAULT_PCIE_P2P_EFFICIENCY 0.8
#define DEFAULT_NVLINK_EFFICIENCY 0.85
#define DEFAULT_NCCL_NVLINK_EFFICIENCY 0.8
#define DEFAULT_NCCL_PCIE_EFFICIENCY 0.85

/* ---------------------------------------------------------------- errors */

struct ctx {
	const char *file;
	char *err;
	size_t len;
};

/* "FILE: KEY: message"; always returns -1 so callers can `return fail(...)`. */
__attribute__((format(printf, 3, 4))) static int fail(const struct ctx *c, const char *key,
						      const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->len) {
		if (key && *key)
			snprintf(c->err, c->len, "%s: %s: %s", c->file, key, msg);
		else
			snprintf(c->err, c->len, "%s: %s", c->file, msg);
	}
	return -1;
}

/* parent.key or parent[i], for messages */
static void sub_key(char *out, const char *parent, const char *key)
{
	if (parent && *parent)
		snprintf(out, PATH_LEN, "%s.%s", parent, key);
	else
		snprintf(out, PATH_LEN, "%s", key);
}

static void sub_index(char *out, const char *parent, int i)
{
	snprintf(out, PATH_LEN, "%s[%d]", parent, i);
}

/* Every member of obj must be one of known (NULL-terminated). */
static int check_keys(const struct ctx *c, const cJSON *obj, const char *path,
		      const char *const *known)
{
	char where[PATH_LEN], list[256];
	const cJSON *it;

	cJSON_ArrayForEach(it, obj) {
		bool ok = false;

		for (const char *const *k = known; *k && !ok; k++)
			ok = it->string && strcmp(it->string, *k) == 0;
		if (ok)
			continue;
		list[0] = '\0';
		for (const char *const *k = known; *k; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 k == known ? "" : ", ", *k);
		sub_key(where, path, it->string ? it->string : "?");
		return fail(c, where, "unknown key (known: %s)", list);
	}
	return 0;
}

/* ---------------------------------------------------------------- scalars */

/* A whole number in [min, max]; *out untouched when the key is absent. */
static int get_long(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		    long min, long max, long *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];
	double v;

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (!cJSON_IsNumber(it))
		return fail(c, where, "expected a whole number");
	v = it->valuedouble;
	if (v != floor(v))
		return fail(c, where, "expected a whole number, got %g", v);
	if (v < (double)min || v > (double)max)
		return fail(c, where, "%g is out of range [%ld, %ld]", v, min, max);
	*out = (long)v;
	return 0;
}

static int get_int(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		   int min, int max, int *out)
{
	long v = *out;

	if (get_long(c, obj, path, key, min, max, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* A number in [min, max] (min exclusive when open_min). */
static int get_double(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		      double min, bool open_min, double max, double *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];
	double v;

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (!cJSON_IsNumber(it))
		return fail(c, where, "expected a number");
	v = it->valuedouble;
	if (!isfinite(v) || v < min || (open_min && v == min) || v > max)
		return fail(c, where, "%g is out of range %s%g, %g]", v, open_min ? "(" : "[", min,
			    max);
	*out = v;
	return 0;
}

static int get_bool(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		    bool *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (!cJSON_IsBool(it))
		return fail(c, where, "expected true or false");
	*out = cJSON_IsTrue(it);
	return 0;
}

/* A non-empty string shorter than len; *out untouched when absent. */
static int get_string(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		      char *out, size_t len)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (!cJSON_IsString(it) || !it->valuestring[0])
		return fail(c, where, "expected a non-empty string");
	if (strlen(it->valuestring) >= len)
		return fail(c, where, "'%s' is longer than %zu characters", it->valuestring,
			    len - 1);
	snprintf(out, len, "%s", it->valuestring);
	return 0;
}

/* ---------------------------------------------------------------- sizes */

struct size_unit {
	const char *name;
	double mult;
};

/* the product's size units (cmd/cli.c): K, M, G, T binary; KB, MB, GB, TB decimal */
static const struct size_unit size_units[] = {
	{ "", 1 },		{ "b", 1 },	     { "k", 1024.0 },	{ "kib", 1024.0 },
	{ "kb", 1e3 },		{ "m", 1048576.0 },  { "mib", 1048576.0 }, { "mb", 1e6 },
	{ "g", 1073741824.0 }, { "gib", 1073741824.0 }, { "gb", 1e9 },
	{ "t", 1099511627776.0 }, { "tib", 1099511627776.0 }, { "tb", 1e12 },
};

/* "512M", "2G", "1.5GB", "1048576" -> bytes; -1 when it is none of those. */
static int parse_size_text(const char *s, uint64_t *bytes)
{
	char unit[8];
	char *end;
	double v;
	size_t n = 0;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	for (; end[n] && n + 1 < sizeof(unit); n++)
		unit[n] = (char)tolower((unsigned char)end[n]);
	unit[n] = '\0';
	if (end[n])
		return -1; /* longer than any unit */
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcmp(unit, size_units[i].name) != 0)
			continue;
		v *= size_units[i].mult;
		if (v != floor(v) || v >= 18446744073709551616.0)
			return -1;
		*bytes = (uint64_t)v;
		return 0;
	}
	return -1;
}

/* memory: a size string or a whole number of bytes; at least 1 MiB. */
static int get_size(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		    uint64_t *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];
	uint64_t v = 0;

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (cJSON_IsString(it)) {
		if (parse_size_text(it->valuestring, &v))
			return fail(c, where, "cannot parse '%s' as a size (like 512M, 2G or bytes)",
				    it->valuestring);
	} else if (cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) &&
		   it->valuedouble >= 0 && it->valuedouble < 9007199254740992.0) {
		v = (uint64_t)it->valuedouble;
	} else {
		return fail(c, where, "expected a size like \"512M\" or a whole number of bytes");
	}
	if (v < (1u << 20))
		return fail(c, where, "%llu bytes is less than 1M", (unsigned long long)v);
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------- models */

/* Levenshtein distance, case-folded, of two short strings (keys). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 63 || lb >= 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The catalog key nearest to an unknown one, or NULL when none is close. */
static const char *nearest_key(const char *key)
{
	const char *best = NULL;
	size_t best_d = 4; /* farther than 3 edits is no suggestion */

	for (const struct gbsim_model *s = gbsim_models(); s->key; s++) {
		size_t d = edit_distance(key, s->key);

		if (strncasecmp(s->key, key, strlen(key)) == 0 && d > 1)
			d = 1; /* "h100" is a prefix of "h100-sxm" */
		if (d < best_d) {
			best_d = d;
			best = s->key;
		}
	}
	return best;
}

/*
 * The device's own name (a V100 says "Tesla V100-SXM2-32GB"), so the
 * simulator exercises the product's name matching as a real GPU would. A
 * check, not a source of numbers: the product must recognise the name, with
 * the SM count, as the same model.
 */
static int derive_name(const struct ctx *c, const char *where, const struct gbsim_model *model,
		       struct gbsim_gpu *g)
{
	const struct gb_gpu_spec *found;

	snprintf(g->name, sizeof(g->name), "%s", model->device_name);
	found = gb_gpu_spec_match(g->name, model->sm_count);
	if (!found || strcasecmp(found->key, model->key) != 0)
		return fail(c, where, "model '%s': the product does not recognise its device name "
			    "'%s' as it (gb_gpu_spec_match: %s)", model->key, g->name,
			    found ? found->key : "no model");
	return 0;
}

/* memory clock such that 2 x clock x 1e6 x bus / 8 = the spec bandwidth */
static void derive_memory_bus(const struct gbsim_model *model, struct gbsim_gpu *g)
{
	g->mem_bus_width = model->bus_bits;
	g->mem_bw_bps = model->mem_bw_gbps * 1e9;
	g->mem_clock_mhz = (int)lround(g->mem_bw_bps / (2.0 * 1e6 * model->bus_bits / 8.0));
}

/* 32-bit FNV-1a, to derive stable identifiers from the machine's name */
static uint32_t fnv1a(const char *s, uint32_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* Bus numbers of an 8-GPU HGX H100 board, so ids look like a real machine's. */
static const unsigned hgx_bus[GBSIM_MAX_GPUS] = { 0x18, 0x2a, 0x3a, 0x5d,
						  0x9a, 0xab, 0xba, 0xdb };

static void derive_ids(const char *machine_name, struct gbsim_gpu *g)
{
	uint32_t h = fnv1a(machine_name, 2166136261u);
	uint32_t h2 = fnv1a(g->model, h ^ (uint32_t)g->index);

	snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x-%04x-4%03x-8%03x-%04x%08x", h,
		 (unsigned)(h2 & 0xffff), (unsigned)((h2 >> 16) & 0xfff),
		 (unsigned)(g->index & 0xfff), 0x5157u /* "SIM" */, (unsigned)g->index);
	snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "00000000:%02X:00.0",
		 hgx_bus[g->index]);
}

/* ---------------------------------------------------------------- gpus */

static int parse_pcie(const struct ctx *c, const cJSON *obj, const char *path,
		      const struct gbsim_model *model, struct gbsim_gpu *g)
{
	static const char *const known[] = { "gen", "width", "max_gen", "max_width", NULL };
	int gen = model->pcie_gen, width = 16, max_gen = -1, max_width = -1;
	static const int widths[] = { 1, 2, 4, 8, 16, 32 };
	bool width_ok = false, max_width_ok = false;

	if (obj && !cJSON_IsObject(obj))
		return fail(c, path, "expected an object like {\"gen\": 4, \"width\": 16}");
	if (obj && (check_keys(c, obj, path, known) ||
		    get_int(c, obj, path, "gen", 1, 6, &gen) ||
		    get_int(c, obj, path, "width", 1, 32, &width) ||
		    get_int(c, obj, path, "max_gen", 1, 6, &max_gen) ||
		    get_int(c, obj, path, "max_width", 1, 32, &max_width)))
		return -1;
	/* the card's own maximum unless told: a slot that trains lower is a finding */
	if (max_gen < 0)
		max_gen = gen > model->pcie_gen ? gen : model->pcie_gen;
	if (max_width < 0)
		max_width = width > 16 ? width : 16;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		width_ok |= widths[i] == width;
		max_width_ok |= widths[i] == max_width;
	}
	if (!width_ok || !max_width_ok)
		return fail(c, path, "a PCIe width is one of 1, 2, 4, 8, 16, 32");
	if (gen > max_gen || width > max_width)
		return fail(c, path, "the trained link (gen %d x%d) exceeds the maximum (gen %d x%d)",
			    gen, width, max_gen, max_width);
	g->pcie_gen = gen;
	g->pcie_width = width;
	g->pcie_max_gen = max_gen;
	g->pcie_max_width = max_width;
	return 0;
}

static int parse_model(const struct ctx *c, const cJSON *obj, const char *path,
		       const struct gbsim_model **model)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "model");
	char where[PATH_LEN];
	const char *near;

	sub_key(where, path, "model");
	if (!it)
		return fail(c, where, "missing (a key of 'gpubench theory --list')");
	if (!cJSON_IsString(it))
		return fail(c, where, "expected a string (a key of 'gpubench theory --list')");
	*model = gbsim_model_by_key(it->valuestring);
	if (*model)
		return 0;
	near = nearest_key(it->valuestring);
	if (near)
		return fail(c, where, "unknown model '%s' (did you mean '%s'? see 'gpubench "
			    "theory --list')", it->valuestring, near);
	return fail(c, where, "unknown model '%s' (see 'gpubench theory --list')",
		    it->valuestring);
}

/* A uuid as NVML gives it: "GPU-" and 8-4-4-4-12 hex digits. */
static bool uuid_valid(const char *s)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };

	if (strncmp(s, "GPU-", 4) != 0)
		return false;
	s += 4;
	for (int g = 0; g < 5; g++) {
		for (int i = 0; i < groups[g]; i++, s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		if (*s != (g == 4 ? '\0' : '-'))
			return false;
		s += g < 4;
	}
	return true;
}

/* "domain:bus:device.function" in hex, normalised to NVML's "00000000:18:00.0". */
static int parse_bus_id(const struct ctx *c, const cJSON *obj, const char *path,
			struct gbsim_gpu *g)
{
	char text[32] = "", where[PATH_LEN], tail;
	unsigned dom, bus, dev, fn;

	if (get_string(c, obj, path, "pci_bus_id", text, sizeof(text)))
		return -1;
	if (!text[0])
		return 0;
	sub_key(where, path, "pci_bus_id");
	if (sscanf(text, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 || bus > 0xff ||
	    dev > 0x1f || fn > 7)
		return fail(c, where, "'%s' is not a PCI bus id like 00000000:18:00.0", text);
	snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "%08X:%02X:%02X.%X", dom, bus, dev, fn);
	return 0;
}

static int parse_identity(const struct ctx *c, const cJSON *obj, const char *path,
			  struct gbsim_gpu *g)
{
	char where[PATH_LEN];

	if (get_string(c, obj, path, "name", g->name, sizeof(g->name)) ||
	    get_string(c, obj, path, "uuid", g->uuid, sizeof(g->uuid)) ||
	    parse_bus_id(c, obj, path, g))
		return -1;
	sub_key(where, path, "uuid");
	if (!uuid_valid(g->uuid))
		return fail(c, where, "'%s' is not a uuid like GPU-12345678-1234-1234-1234-"
			    "123456789abc", g->uuid);
	return 0;
}

/*
 * L2 size by architecture, bytes: what the flagship of each generation has.
 * A machine file may shrink it with "l2" (CI machines have little memory, and
 * benchmarks size their buffers from L2 to defeat it: nccl rotates over twice
 * L2, gemm over copies of its operands that exceed L2).
 */
static uint64_t arch_l2_bytes(int cc_major, int cc_minor)
{
	switch (cc_major * 10 + cc_minor) {
	case 70: return 6 << 20;
	case 75: return 4 << 20;
	case 80: return 40 << 20;
	case 86: return 6 << 20;
	case 89: return 72 << 20;
	case 90: return 50 << 20;
	case 100: return 126 << 20;
	case 120: return 96 << 20;
	default: return 32 << 20;
	}
}

static int parse_gpu(const struct ctx *c, const cJSON *obj, const char *path, int index,
		     const struct gbsim_machine *m, struct gbsim_gpu *g)
{
	static const char *const known[] = { "model", "memory", "l2", "speed", "name", "uuid",
					     "pci_bus_id", "pcie", "numa_node", NULL };
	const struct gbsim_model *model;
	char pcie_path[PATH_LEN];

	if (!cJSON_IsObject(obj))
		return fail(c, path, "expected an object like {\"model\": \"h100-sxm\"}");
	if (check_keys(c, obj, path, known) || parse_model(c, obj, path, &model))
		return -1;
	memset(g, 0, sizeof(*g));
	g->index = index;
	snprintf(g->model, sizeof(g->model), "%s", model->key);
	if (derive_name(c, path, model, g))
		return -1;
	g->cc_major = model->cc_major;
	g->cc_minor = model->cc_minor;
	g->sm_count = model->sm_count;
	g->sm_clock_mhz = model->boost_mhz;
	derive_memory_bus(model, g);
	/* marketed GB are binary on HBM and GDDR parts alike: 80 GB is 80 GiB of chips */
	g->memory_bytes = (uint64_t)(model->memory_gb * 1073741824.0);
	g->l2_bytes = arch_l2_bytes(g->cc_major, g->cc_minor);
	for (int p = 0; p < GBSIM_PREC_COUNT; p++)
		g->peak_flops[p] = model->dense_tflops[p] * 1e12;
	g->speed = 1.0;
	g->geforce = model->geforce;
	g->power_limit_w = model->tdp_w;
	g->model_pcie_gen = model->pcie_gen;
	g->model_nvlink_gen = model->nvlink_gen;
	g->model_nvlink_links = model->nvlink_links;
	/* spread over the NUMA nodes in order, as sockets hold consecutive GPUs */
	g->numa_node = m->numa_nodes > 0 ? index * m->numa_nodes / m->gpu_count : -1;
	derive_ids(m->name, g);
	if (get_size(c, obj, path, "memory", &g->memory_bytes) ||
	    get_size(c, obj, path, "l2", &g->l2_bytes) ||
	    get_double(c, obj, path, "speed", 0, true, 10, &g->speed) ||
	    get_int(c, obj, path, "numa_node", -1, m->numa_nodes - 1, &g->numa_node) ||
	    parse_identity(c, obj, path, g))
		return -1;
	sub_key(pcie_path, path, "pcie");
	return parse_pcie(c, cJSON_GetObjectItemCaseSensitive(obj, "pcie"), pcie_path, model, g);
}

/* Two GPUs may not share a uuid or a bus id: CUDA<->NVML mapping relies on both. */
static int check_unique_ids(const struct ctx *c, const struct gbsim_machine *m)
{
	char where[PATH_LEN];

	for (int i = 0; i < m->gpu_count; i++) {
		for (int j = 0; j < i; j++) {
			snprintf(where, sizeof(where), "gpus[%d]", i);
			if (!strcasecmp(m->gpus[i].uuid, m->gpus[j].uuid))
				return fail(c, where, "uuid '%s' is also gpus[%d]'s",
					    m->gpus[i].uuid, j);
			if (!strcasecmp(m->gpus[i].pci_bus_id, m->gpus[j].pci_bus_id))
				return fail(c, where, "pci_bus_id '%s' is also gpus[%d]'s",
					    m->gpus[i].pci_bus_id, j);
		}
	}
	return 0;
}

static int parse_gpus(const struct ctx *c, const cJSON *root, struct gbsim_machine *m)
{
	const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(root, "gpus");
	char where[PATH_LEN];
	int n;

	if (!gpus)
		return fail(c, "gpus", "missing (a list of {\"model\": KEY})");
	if (!cJSON_IsArray(gpus))
		return fail(c, "gpus", "expected a list of {\"model\": KEY}");
	n = cJSON_GetArraySize(gpus);
	if (n < 1 || n > GBSIM_MAX_GPUS)
		return fail(c, "gpus", "%d GPUs; a machine has 1 to %d", n, GBSIM_MAX_GPUS);
	m->gpu_count = n;
	for (int i = 0; i < n; i++) {
		sub_index(where, "gpus", i);
		if (parse_gpu(c, cJSON_GetArrayItem(gpus, i), where, i, m, &m->gpus[i]))
			return -1;
	}
	return check_unique_ids(c, m);
}

/* ---------------------------------------------------------------- links */

/* An element [i, j] or [i, j, n] of GPU indices (and a count in [1, max_n]). */
static int parse_pair(const struct ctx *c, const cJSON *it, const char *where, int want,
		      const struct gbsim_machine *m, int v[3])
{
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != want)
		return fail(c, where, want == 3 ? "expected [gpu, gpu, links]" : "expected [gpu, gpu]");
	for (int k = 0; k < want; k++) {
		const cJSON *e = cJSON_GetArrayItem(it, k);

		if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble))
			return fail(c, where, "expected whole numbers");
		if (fabs(e->valuedouble) > 1e6)
			return fail(c, where, "%g is out of range", e->valuedouble);
		v[k] = (int)e->valuedouble;
	}
	for (int k = 0; k < 2; k++)
		if (v[k] < 0 || v[k] >= m->gpu_count)
			return fail(c, where, "GPU index %d is out of range [0, %d]", v[k],
				    m->gpu_count - 1);
	if (v[0] == v[1])
		return fail(c, where, "a GPU is not linked to itself");
	return 0;
}

/* The most links a GPU of this model has (the catalog's), or the NVML ceiling. */
static int links_of(const struct gbsim_gpu *g)
{
	return g->model_nvlink_links > 0 ? g->model_nvlink_links : MAX_NVLINKS_PER_PAIR;
}

/*
 * "nvlink": [[i, j, n], ...] links per pair, or "all": every pair through an
 * NVSwitch, each with every link its GPUs have (as an HGX board gives).
 */
static int parse_nvlink(const struct ctx *c, const cJSON *nv, struct gbsim_machine *m)
{
	char where[PATH_LEN];
	int v[3], i = 0;
	const cJSON *it;

	if (cJSON_IsString(nv) && strcmp(nv->valuestring, "all") == 0) {
		for (int a = 0; a < m->gpu_count; a++)
			for (int b = 0; b < m->gpu_count; b++) {
				int la = links_of(&m->gpus[a]), lb = links_of(&m->gpus[b]);

				m->nvlinks[a][b] = a == b ? 0 : (la < lb ? la : lb);
			}
		return 0;
	}
	if (!cJSON_IsArray(nv))
		return fail(c, "links.nvlink", "expected \"all\" or a list of [gpu, gpu, links]");
	cJSON_ArrayForEach(it, nv) {
		int most;

		sub_index(where, "links.nvlink", i++);
		if (parse_pair(c, it, where, 3, m, v))
			return -1;
		most = links_of(&m->gpus[v[0]]) < links_of(&m->gpus[v[1]]) ?
			       links_of(&m->gpus[v[0]]) : links_of(&m->gpus[v[1]]);
		if (v[2] < 1 || v[2] > most)
			return fail(c, where, "%d links; this pair has 1 to %d", v[2], most);
		if (m->nvlinks[v[0]][v[1]])
			return fail(c, where, "pair %d-%d is given twice", v[0], v[1]);
		m->nvlinks[v[0]][v[1]] = m->nvlinks[v[1]][v[0]] = v[2];
	}
	return 0;
}

/* "p2p": "all" | "none" | [[i, j], ...]; absent: where NVLink joins the pair. */
static int parse_p2p(const struct ctx *c, const cJSON *p2p, struct gbsim_machine *m)
{
	char where[PATH_LEN];
	int v[3], i = 0;
	const cJSON *it;

	for (int a = 0; a < m->gpu_count; a++)
		for (int b = 0; b < m->gpu_count; b++)
			m->p2p[a][b] = a != b && (p2p ? cJSON_IsString(p2p) &&
						       !strcmp(p2p->valuestring, "all") :
						       m->nvlinks[a][b] > 0);
	if (!p2p || (cJSON_IsString(p2p) && (!strcmp(p2p->valuestring, "all") ||
					     !strcmp(p2p->valuestring, "none"))))
		return 0;
	if (!cJSON_IsArray(p2p))
		return fail(c, "links.p2p", "expected \"all\", \"none\" or a list of [gpu, gpu]");
	cJSON_ArrayForEach(it, p2p) {
		sub_index(where, "links.p2p", i++);
		if (parse_pair(c, it, where, 2, m, v))
			return -1;
		m->p2p[v[0]][v[1]] = m->p2p[v[1]][v[0]] = true;
	}
	return 0;
}

static int parse_links(const struct ctx *c, const cJSON *root, struct gbsim_machine *m)
{
	static const char *const known[] = { "nvlink_gen", "nvlink", "p2p", NULL };
	const cJSON *links = cJSON_GetObjectItemCaseSensitive(root, "links");
	const cJSON *nv = links ? cJSON_GetObjectItemCaseSensitive(links, "nvlink") : NULL;
	bool any = false;
	int gen = 0;

	if (links && !cJSON_IsObject(links))
		return fail(c, "links", "expected an object");
	if (links && (check_keys(c, links, "links", known) ||
		      get_int(c, links, "links", "nvlink_gen", 1, 5, &gen)))
		return -1;
	if (nv && parse_nvlink(c, nv, m))
		return -1;
	for (int a = 0; a < m->gpu_count; a++)
		for (int b = 0; b < m->gpu_count; b++)
			any |= m->nvlinks[a][b] > 0;
	/* the catalog's generation when the file names none; none without links */
	if (any && !gen)
		gen = m->gpus[0].model_nvlink_gen;
	if (any && !gen)
		return fail(c, "links.nvlink_gen", "model '%s' has no NVLink in the catalog; "
			    "give the generation", m->gpus[0].model);
	m->nvlink_gen = any ? gen : 0;
	return parse_p2p(c, links ? cJSON_GetObjectItemCaseSensitive(links, "p2p") : NULL, m);
}

/* ---------------------------------------------------------------- efficiency */

static const char *const precision_names[GBSIM_PREC_COUNT] = {
	[GBSIM_FP64] = "fp64", [GBSIM_FP32] = "fp32", [GBSIM_TF32] = "tf32", [GBSIM_FP16] = "fp16",
	[GBSIM_BF16] = "bf16", [GBSIM_FP8] = "fp8",   [GBSIM_INT8] = "int8",
};

static void default_efficiency(struct gbsim_efficiency *e)
{
	for (int p = 0; p < GBSIM_PREC_COUNT; p++)
		e->gemm[p] = DEFAULT_GEMM_EFFICIENCY;
	e->memory = DEFAULT_MEMORY_EFFICIENCY;
	e->pcie = DEFAULT_PCIE_EFFICIENCY;
	e->pcie_p2p = DEFAULT_PCIE_P2P_EFFICIENCY;
	e->nvlink = DEFAULT_NVLINK_EFFICIENCY;
	e->nccl_nvlink = DEFAULT_NCCL_NVLINK_EFFICIENCY;
	e->nccl_pcie = DEFAULT_NCCL_PCIE_EFFICIENCY;
}

/* An efficiency: a number in (0, 1]. */
static int get_share(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
		     double *out)
{
	return get_double(c, obj, path, key, 0, true, 1, out);
}

/*
 * "key": a share for every field of out, or {"name": share, ...} with the
 * names given (NULL-terminated, one per field); fields not named keep theirs.
 */
static int parse_shares(const struct ctx *c, const cJSON *obj, const char *path, const char *key,
			const char *const *names, double *const *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	char where[PATH_LEN];
	double all = -1;

	if (!it)
		return 0;
	sub_key(where, path, key);
	if (cJSON_IsNumber(it)) {
		if (get_share(c, obj, path, key, &all))
			return -1;
		for (int i = 0; names[i]; i++)
			*out[i] = all;
		return 0;
	}
	if (!cJSON_IsObject(it))
		return fail(c, where, "expected a number in (0, 1] or an object of them by kind");
	if (check_keys(c, it, where, names))
		return -1;
	for (int i = 0; names[i]; i++)
		if (get_share(c, it, where, names[i], out[i]))
			return -1;
	return 0;
}

static int parse_efficiency(const struct ctx *c, const cJSON *root, struct gbsim_efficiency *e)
{
	static const char *const known[] = { "gemm", "memory", "pcie", "pcie_p2p", "nvlink", "nccl",
					     NULL };
	static const char *const nccl_names[] = { "nvlink", "pcie", NULL };
	const char *gemm_names[GBSIM_PREC_COUNT + 1] = { NULL };
	double *gemm[GBSIM_PREC_COUNT], *nccl[] = { &e->nccl_nvlink, &e->nccl_pcie };
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "efficiency");

	default_efficiency(e);
	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return fail(c, "efficiency", "expected an object like {\"gemm\": 0.8, \"memory\": 0.9}");
	for (int p = 0; p < GBSIM_PREC_COUNT; p++) {
		gemm_names[p] = precision_names[p];
		gemm[p] = &e->gemm[p];
	}
	if (check_keys(c, obj, "efficiency", known) ||
	    parse_shares(c, obj, "efficiency", "gemm", gemm_names, gemm) ||
	    get_share(c, obj, "efficiency", "memory", &e->memory) ||
	    get_share(c, obj, "efficiency", "pcie", &e->pcie) ||
	    get_share(c, obj, "efficiency", "pcie_p2p", &e->pcie_p2p) ||
	    get_share(c, obj, "efficiency", "nvlink", &e->nvlink) ||
	    parse_shares(c, obj, "efficiency", "nccl", nccl_names, nccl))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- faults */

static const char *const fault_names[] = {
	[GBSIM_FAULT_NONE] = "none",
	[GBSIM_FAULT_OOM] = "oom",
	[GBSIM_FAULT_STICKY_ERROR] = "sticky_error",
	[GBSIM_FAULT_HANG] = "hang",
	[GBSIM_FAULT_BITFLIP_GEMM] = "bitflip_gemm",
	[GBSIM_FAULT_XID] = "xid",
	[GBSIM_FAULT_ECC_DBE] = "ecc_dbe",
	[GBSIM_FAULT_ROW_REMAP_PENDING] = "row_remap_pending",
	[GBSIM_FAULT_THERMAL_THROTTLE] = "thermal_throttle",
	[GBSIM_FAULT_POWER_BRAKE] = "power_brake",
	[GBSIM_FAULT_SLOW] = "slow",
	[GBSIM_FAULT_PCIE_DEGRADED] = "pcie_degraded",
	[GBSIM_FAULT_P2P_CORRUPT] = "p2p_corrupt",
	[GBSIM_FAULT_NVLINK_DOWN] = "nvlink_down",
	[GBSIM_FAULT_NCCL_WRONG] = "nccl_wrong",
	[GBSIM_FAULT_NCCL_HANG] = "nccl_hang",
	[GBSIM_FAULT_DRIVER_STALL] = "driver_stall",
};
#define FAULT_KINDS ((int)(sizeof(fault_names) / sizeof(fault_names[0])))

static int parse_fault_kind(const struct ctx *c, const cJSON *obj, const char *path,
			    enum gbsim_fault_kind *kind)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "kind");
	char where[PATH_LEN];

	sub_key(where, path, "kind");
	if (!it || !cJSON_IsString(it))
		return fail(c, where, "expected one of oom, sticky_error, hang, bitflip_gemm, xid, "
			    "ecc_dbe, row_remap_pending, thermal_throttle, power_brake, slow, "
			    "pcie_degraded, p2p_corrupt, nvlink_down, nccl_wrong, nccl_hang, "
			    "driver_stall");
	for (int k = GBSIM_FAULT_NONE + 1; k < FAULT_KINDS; k++) {
		if (strcmp(it->valuestring, fault_names[k]) == 0) {
			*kind = (enum gbsim_fault_kind)k;
			return 0;
		}
	}
	return fail(c, where, "unknown fault kind '%s' (known: oom, sticky_error, hang, "
		    "bitflip_gemm, xid, ecc_dbe, row_remap_pending, thermal_throttle, power_brake, "
		    "slow, pcie_degraded, p2p_corrupt, nvlink_down, nccl_wrong, nccl_hang, "
		    "driver_stall)",
		    it->valuestring);
}

static int parse_fault(const struct ctx *c, const cJSON *obj, const char *path,
		       const struct gbsim_machine *m, struct gbsim_fault *f)
{
	static const char *const known[] = { "kind", "gpu", "peer", "after_launches",
					     "after_allocs", "after_s", "value", NULL };
	int triggers;

	if (!cJSON_IsObject(obj))
		return fail(c, path, "expected an object like {\"kind\": \"slow\", \"gpu\": 0}");
	*f = (struct gbsim_fault){ .gpu = -1, .peer = -1, .after_launches = -1,
				   .after_allocs = -1, .after_s = -1 };
	if (check_keys(c, obj, path, known) || parse_fault_kind(c, obj, path, &f->kind) ||
	    get_int(c, obj, path, "gpu", -1, m->gpu_count - 1, &f->gpu) ||
	    get_int(c, obj, path, "peer", -1, m->gpu_count - 1, &f->peer) ||
	    get_long(c, obj, path, "after_launches", 0, 1000000000L, &f->after_launches) ||
	    get_long(c, obj, path, "after_allocs", 0, 1000000000L, &f->after_allocs) ||
	    get_double(c, obj, path, "after_s", 0, false, 1e9, &f->after_s) ||
	    get_long(c, obj, path, "value", -1000000000L, 1000000000L, &f->value))
		return -1;
	triggers = (f->after_launches >= 0) + (f->after_allocs >= 0) + (f->after_s >= 0);
	if (triggers > 1)
		return fail(c, path, "give at most one of after_launches, after_allocs, after_s");
	if (f->peer >= 0 && f->peer == f->gpu)
		return fail(c, path, "peer %d is the fault's own gpu", f->peer);
	return 0;
}

static int parse_faults(const struct ctx *c, const cJSON *root, struct gbsim_machine *m)
{
	const cJSON *faults = cJSON_GetObjectItemCaseSensitive(root, "faults");
	char where[PATH_LEN];
	int n;

	if (!faults)
		return 0;
	if (!cJSON_IsArray(faults))
		return fail(c, "faults", "expected a list of {\"kind\": ...}");
	n = cJSON_GetArraySize(faults);
	if (n > GBSIM_MAX_FAULTS)
		return fail(c, "faults", "%d faults; at most %d", n, GBSIM_MAX_FAULTS);
	for (int i = 0; i < n; i++) {
		sub_index(where, "faults", i);
		if (parse_fault(c, cJSON_GetArrayItem(faults, i), where, m, &m->faults[i]))
			return -1;
	}
	m->fault_count = n;
	return 0;
}

/* ---------------------------------------------------------------- file */

/* "dir/2x-rtx4090-pcie.json" -> "2x-rtx4090-pcie" */
static void default_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), base);
}

static int parse_top(const struct ctx *c, const cJSON *root, struct gbsim_machine *m)
{
	static const char *const known[] = { "name", "description", "seed", "noise", "lazy",
					     "numa_nodes", "efficiency", "gpus", "links", "faults",
					     "hostname", "driver_version", NULL };
	char description[1024];
	long seed = DEFAULT_SEED;

	if (!cJSON_IsObject(root))
		return fail(c, NULL, "expected a JSON object at the top");
	m->noise = DEFAULT_NOISE;
	m->numa_nodes = 1;
	m->driver_version = GBSIM_CUDA_VERSION;
	default_name(c->file, m->name, sizeof(m->name));
	/* the seed stays below 2^53: JSON numbers are doubles */
	if (check_keys(c, root, "", known) ||
	    get_string(c, root, "", "name", m->name, sizeof(m->name)) ||
	    get_string(c, root, "", "description", description, sizeof(description)) ||
	    get_string(c, root, "", "hostname", m->hostname, sizeof(m->hostname)) ||
	    get_long(c, root, "", "seed", 0, 9007199254740991L, &seed) ||
	    get_double(c, root, "", "noise", 0, false, 0.5, &m->noise) ||
	    get_bool(c, root, "", "lazy", &m->lazy) ||
	    get_int(c, root, "", "driver_version", 0, 99999, &m->driver_version) ||
	    get_int(c, root, "", "numa_nodes", 1, GBSIM_MAX_GPUS, &m->numa_nodes))
		return -1;
	m->seed = (uint64_t)seed;
	if (parse_efficiency(c, root, &m->efficiency) || parse_gpus(c, root, m) ||
	    parse_links(c, root, m) || parse_faults(c, root, m))
		return -1;
	return 0;
}

/* The whole file, NUL-terminated, or NULL with the reason in err. */
static char *read_text(const struct ctx *c)
{
	FILE *f = fopen(c->file, "rb");
	char *buf;
	size_t n;

	if (!f) {
		fail(c, NULL, "cannot open: %s", strerror(errno));
		return NULL;
	}
	buf = malloc(MACHINE_FILE_MAX_BYTES + 1);
	n = buf ? fread(buf, 1, MACHINE_FILE_MAX_BYTES + 1, f) : 0;
	if (buf && (ferror(f) || n > MACHINE_FILE_MAX_BYTES)) {
		fail(c, NULL, ferror(f) ? "cannot read" : "larger than 1 MiB");
		free(buf);
		buf = NULL;
	} else if (!buf) {
		fail(c, NULL, "out of memory");
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* 1-based line of the byte at off, for a parse error a user can find */
static int line_of(const char *text, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

int gbsim_machine_load(const char *path, struct gbsim_machine *m, char *err, size_t len)
{
	struct ctx c = { path ? path : "(null)", err, len };
	const char *end = NULL;
	cJSON *root;
	char *text;
	int rc;

	if (err && len)
		err[0] = '\0';
	if (!path || !*path || !m)
		return fail(&c, NULL, "no machine file given");
	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s", path);
	text = read_text(&c);
	if (!text)
		return -1;
	root = cJSON_ParseWithOpts(text, &end, true);
	if (!root) {
		rc = fail(&c, NULL, "not valid JSON (line %d)",
			  line_of(text, end ? (size_t)(end - text) : 0));
		free(text);
		return rc;
	}
	rc = parse_top(&c, root, m);
	cJSON_Delete(root);
	free(text);
	return rc;
}

/* ---------------------------------------------------------------- the process's machine */

static struct gbsim_machine the_machine;
static char the_error[640];
static int the_rc = -1;
static pthread_once_t the_once = PTHREAD_ONCE_INIT;

/*
 * The rank this process has under a launcher (the variables cmd/launcher.c
 * reads), or NULL alone: "%r" in GPUBENCH_SIM_MACHINE becomes it, so every
 * rank of `mpirun -np 4 gpubench-sim run` may simulate a node of its own.
 */
static const char *launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	return NULL;
}

/*
 * path with every "%r" replaced by the rank ("0" alone) and "%%" by "%";
 * -1 with a message when the result does not fit.
 */
int gbsim_machine_path(const char *path, char *out, size_t len, char *err, size_t err_len)
{
	const char *rank = launcher_rank();
	size_t n = 0;

	if (!rank)
		rank = "0";
	for (const char *s = path; *s; s++) {
		const char *piece = s;
		size_t plen = 1;

		if (s[0] == '%' && (s[1] == 'r' || s[1] == '%')) {
			piece = s[1] == 'r' ? rank : "%";
			plen = strlen(piece);
			s++;
		}
		if (n + plen >= len) {
			snprintf(err, err_len, "%s: machine file path too long", path);
			return -1;
		}
		memcpy(out + n, piece, plen);
		n += plen;
	}
	out[n] = '\0';
	return 0;
}

static void load_once(void)
{
	const char *path = getenv("GPUBENCH_SIM_MACHINE");
	char expanded[512];

#ifdef GBSIM_DEFAULT_MACHINE
	if (!path || !*path)
		path = GBSIM_DEFAULT_MACHINE;
#endif
	if (!path || !*path) {
		snprintf(the_error, sizeof(the_error),
			 "no machine: set GPUBENCH_SIM_MACHINE=FILE (see docs/simulation.md)");
		return;
	}
	if (gbsim_machine_path(path, expanded, sizeof(expanded), the_error, sizeof(the_error)))
		return;
	the_rc = gbsim_machine_load(expanded, &the_machine, the_error, sizeof(the_error));
}

const struct gbsim_machine *gbsim_machine(void)
{
	pthread_once(&the_once, load_once);
	if (the_rc != 0) {
		fprintf(stderr, "gpubench-sim: %s\n", the_error);
		exit(2);
	}
	return &the_machine;
}
