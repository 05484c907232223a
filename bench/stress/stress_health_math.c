/* SPDX-License-Identifier: MIT */
/*
 * stress_health_math.c - the observing half of `gpubench stress`: health
 * counters before and after, XID events, and one telemetry sample per GPU
 * per interval folded into the verdict's observations (stress_math.h).
 *
 * It lives in the CPU-only core (the _math suffix) and talks to NVML only
 * through bench/device/nvml.c, so tests/bench/stress/test_stress_telemetry.c drives it against
 * the fake libnvidia-ml with scripted throttle reasons, ECC counts and XIDs.
 * gpubench's background sampler (bench/device/telemetry.c) is not used here: the
 * verdict needs every sample (per-reason shares of time, the telemetry at
 * the moment of a mismatch, throughput aligned with the same ticks), and
 * the sampler only exposes a window summary.
 */
#include "bench/stress/stress_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* telemetry fields, in the order of field_seen[] */
static const char *const tel_fields[GB_STRESS_TEL_FIELDS] = {
	"temp_c", "power_w", "sm_mhz", "mem_mhz", "util_pct", "mem_used_bytes",
	"clock_event_reasons",
};

static void free_monitor(struct gb_stress_monitor *m)
{
	for (size_t i = 0; m->pci && i < m->n; i++)
		free(m->pci[i]);
	free(m->pci);
	free(m->last);
	free(m->have_last);
	free(m->field_seen);
	m->pci = NULL;
	m->last = NULL;
	m->have_last = NULL;
	m->field_seen = NULL;
}

static void open_xid_events(struct gb_stress_monitor *m)
{
	const char **ids = calloc(m->n ? m->n : 1, sizeof(*ids));
	size_t n_ids = 0;
	int got;

	m->xid_watch = -1;
	if (!ids)
		return;
	/* only devices NVML knows can register; the others are not watched */
	for (size_t i = 0; i < m->n; i++)
		if (m->pci[i] && gb_nvml_device_by_pci(m->pci[i]))
			ids[n_ids++] = m->pci[i];
	got = n_ids ? gb_nvml_events_open(ids, n_ids) : -1;
	m->xid_watch = got;
	for (size_t i = 0; i < m->n; i++) {
		bool known = m->pci[i] && gb_nvml_device_by_pci(m->pci[i]);

		m->obs[i].xid_watch = got > 0 && known;
		/* some devices would not register, and NVML does not say which */
		if (known && got > 0 && (size_t)got < n_ids)
			gb_stress_obs_missing(&m->obs[i], "xid_events(some devices)");
	}
	free(ids);
}

int gb_stress_monitor_begin(struct gb_stress_monitor *m, const char *const *pci,
			    struct gb_stress_obs *obs, size_t n, uint64_t throttle_mask)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->obs = obs;
	m->nvml = gb_nvml_loaded();
	m->xid_watch = -1;
	m->pci = calloc(n ? n : 1, sizeof(*m->pci));
	m->last = calloc(n ? n : 1, sizeof(*m->last));
	m->have_last = calloc(n ? n : 1, sizeof(*m->have_last));
	m->field_seen = calloc((n ? n : 1) * GB_STRESS_TEL_FIELDS, sizeof(*m->field_seen));
	if (!m->pci || !m->last || !m->have_last || !m->field_seen) {
		free_monitor(m);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		m->pci[i] = pci[i] ? strdup(pci[i]) : NULL;
		obs[i].nvml = m->nvml;
		obs[i].throttle_mask = throttle_mask;
		obs[i].have_health = false;
		if (m->nvml && m->pci[i])
			obs[i].have_health = gb_nvml_health(m->pci[i], &obs[i].before) == 0;
	}
	if (m->nvml)
		open_xid_events(m);
	return 0;
}

static void mark_seen(bool *seen, const struct gb_telemetry_sample *s)
{
	const double v[] = { s->temp_c, s->power_w, s->sm_mhz, s->mem_mhz, s->util_pct,
			     s->mem_used_bytes };

	for (size_t f = 0; f < sizeof(v) / sizeof(v[0]); f++)
		seen[f] |= isfinite(v[f]);
	seen[GB_STRESS_TEL_FIELDS - 1] |= s->have_reasons;
}

size_t gb_stress_monitor_sample(struct gb_stress_monitor *m, double t_s, const double *tflops,
				struct gb_telemetry_sample *samples)
{
	size_t answered = 0;

	m->rounds++;
	for (size_t i = 0; i < m->n; i++) {
		struct gb_telemetry_sample *s = &samples[i];

		memset(s, 0, sizeof(*s));
		s->device = m->obs[i].device;
		s->t_s = t_s;
		s->tflops = tflops ? tflops[i] : NAN;
		s->temp_c = s->power_w = s->sm_mhz = s->mem_mhz = NAN;
		s->util_pct = s->mem_used_bytes = NAN;
		if (!m->nvml || !m->pci[i] || gb_nvml_sample(m->pci[i], s))
			continue;
		/* gb_nvml_sample keeps the caller's device, t_s and tflops */
		answered++;
		gb_stress_obs_add_sample(&m->obs[i], s);
		mark_seen(&m->field_seen[i * GB_STRESS_TEL_FIELDS], s);
		m->last[i] = *s;
		m->have_last[i] = true;
	}
	return answered;
}

/* the index of the device with this bus id (NVML's normalisation decides), or -1 */
static long device_of(const struct gb_stress_monitor *m, const char *bus_id)
{
	struct gb_nvml_device *d = gb_nvml_device_by_pci(bus_id);

	for (size_t i = 0; d && i < m->n; i++)
		if (m->pci[i] && gb_nvml_device_by_pci(m->pci[i]) == d)
			return (long)i;
	return -1;
}

size_t gb_stress_monitor_poll_xids(struct gb_stress_monitor *m, unsigned timeout_ms)
{
	struct gb_nvml_xid ev[16];
	size_t taken = 0;
	int got;

	if (m->xid_watch <= 0)
		return 0;
	/* a bounded number of rounds: a storm of events cannot hold the caller */
	for (int round = 0; round < 8; round++) {
		got = gb_nvml_events_poll(round ? 0 : timeout_ms, ev, sizeof(ev) / sizeof(ev[0]));
		if (got <= 0)
			break;
		for (int e = 0; e < got; e++) {
			long i = device_of(m, ev[e].pci_bus_id);

			if (i >= 0) {
				gb_stress_obs_add_xid(&m->obs[i], ev[e].xid);
				taken++;
			}
		}
	}
	return taken;
}

void gb_stress_viol_read(struct gb_stress_viol *v, const char *pci, bool end, double now_s)
{
	struct gb_nvml_violations *into = end ? &v->end : &v->start;

	/* unknown device or no NVML: every counter stays not ok, and the share NaN */
	if (!pci || gb_nvml_violations(pci, into) < 0)
		memset(into, 0, sizeof(*into));
	if (end)
		v->end_s = now_s;
	else
		v->start_s = now_s;
}

/* health fields either reading left unknown */
static void health_missing(struct gb_stress_obs *o)
{
	const struct gb_nvml_health *b = &o->before, *a = &o->after;

	if (b->ecc_sbe_volatile < 0 || a->ecc_sbe_volatile < 0)
		gb_stress_obs_missing(o, "ecc_sbe");
	if (b->ecc_dbe_volatile < 0 || a->ecc_dbe_volatile < 0)
		gb_stress_obs_missing(o, "ecc_dbe");
	/* retired pages and NVLink counters are absent by design on many GPUs
	 * (Ampere replaced page retirement; PCIe cards have no NVLink): their
	 * rules say so as SKIPPED instead */
	if (a->remap_pending < 0 && a->retired_pending < 0)
		gb_stress_obs_missing(o, "row_remap");
	if (b->pcie_replays < 0 || a->pcie_replays < 0)
		gb_stress_obs_missing(o, "pcie_replays");
}

void gb_stress_monitor_end(struct gb_stress_monitor *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct gb_stress_obs *o = &m->obs[i];

		if (!m->nvml) {
			gb_stress_obs_missing(o, "nvml");
			continue;
		}
		if (!m->pci[i] || !o->have_health ||
		    gb_nvml_health(m->pci[i], &o->after) != 0) {
			o->have_health = false;
			gb_stress_obs_missing(o, "health");
		} else {
			health_missing(o);
		}
		/* a run stopped before the first sample has not failed to read anything */
		for (size_t f = 0; m->rounds && f < GB_STRESS_TEL_FIELDS; f++)
			if (!m->field_seen[i * GB_STRESS_TEL_FIELDS + f])
				gb_stress_obs_missing(o, tel_fields[f]);
		if (o->xid_watch <= 0)
			gb_stress_obs_missing(o, "xid_events");
	}
	if (m->nvml && m->xid_watch > 0)
		gb_nvml_events_close();
	free_monitor(m);
}
