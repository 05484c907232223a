#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPUs users have (issue 19, item 4), through the simulated GPU
# (gpubench-sim, docs/simulation.md), whose NVML is tests/fake_nvml:
#   - a GPU older than every architecture of the build is refused at the
#     probe: exit 3, one line, nothing measured;
#   - power figures say whether they are instantaneous: a driver without
#     NVML_FI_DEV_POWER_INSTANT leaves a `power_source` note on an H100
#     (nvmlDeviceGetPowerUsage averages over 1 s there), none otherwise;
#   - an NVLink version naming another generation than the GPU model has is a
#     warning, and the NVLink peak keeps the model's generation.
# Skipped (77) where the build has no gpubench-sim.
. "$(dirname "$0")/lib.sh"

SIM="$(dirname "$BIN")/gpubench-sim"
MACHINES="$HERE/../sim/machines"
if [ ! -x "$SIM" ]; then
	echo "skipped: no gpubench-sim beside $BIN"
	exit 77
fi
unset FAKE_NVML_NO_POWER_INSTANT FAKE_NVML_ABSENT FAKE_NVML_MISSING FAKE_NVML_FAIL

# ---- the probe: a GPU the build has no code for ----
archs=$("$BIN" --version | sed -n 's/^CUDA architectures: //p')
checks=$((checks + 1))
[ -n "$archs" ] || fail "gpubench --version names no CUDA architectures"
# the oldest built architecture as a number (80 for "80,89,90" or "80-real;90a")
oldest=$(printf '%s' "$archs" | tr ',;' '\n' | sed -n 's/^\([0-9][0-9]*\).*/\1/p' | sort -n | head -1)
# a catalog model older than that: sm_75 T4, else sm_70 V100
old_model=""
if [ -n "$oldest" ] && [ "$oldest" -gt 75 ]; then
	old_model=t4 old_sm=75
elif [ -n "$oldest" ] && [ "$oldest" -gt 70 ]; then
	old_model=v100-sxm2 old_sm=70
fi
if [ -n "$old_model" ]; then
	printf '{ "name": "old", "gpus": [ { "model": "%s", "memory": "256M" } ] }\n' \
		"$old_model" >"$TMP/old.json"
	GPUBENCH_SIM_MACHINE="$TMP/old.json" run "$SIM" info -o "$TMP/old-report.json"
	expect_rc 3 "$old_model (sm_$old_sm) on a build for $archs"
	if [ "$old_sm" -lt 75 ]; then
		# CUDA 13 builds nothing older than sm_75: no rebuild can help
		expect_one_error "^gpubench: error: GPU 0 is sm_$old_sm, which CUDA 13 no longer supports \\(this build's oldest is sm_$oldest\\)" \
			"$old_model refused at the probe"
	else
		expect_one_error "^gpubench: error: GPU 0 is sm_$old_sm, which this build cannot run on \\(built for $archs, the oldest sm_$oldest\\)" \
			"$old_model refused at the probe"
	fi
	checks=$((checks + 1))
	[ "$(json_get "$TMP/old-report.json" '["verdict"]["status"]')" = error ] ||
		fail "the refused run's report does not say error"
	checks=$((checks + 1))
	[ "$(json_get "$TMP/old-report.json" '["benchmarks"]')" = "[]" ] ||
		fail "the refused run measured something"
	# the same GPU model on a machine whose GPUs the build covers is fine
	GPUBENCH_SIM_MACHINE="$MACHINES/h100-sxm.json" run "$SIM" info -q
	expect_rc 0 "an H100 on the same build"
else
	echo "note: the build's oldest architecture (sm_$oldest) has no older GPU in the catalog"
fi

# ---- power: instantaneous where the driver has it ----
GPUBENCH_SIM_MACHINE="$MACHINES/h100-sxm.json" run "$SIM" info -q -o "$TMP/power.json"
expect_rc 0 "h100 info with the instantaneous power field"
checks=$((checks + 1))
[ "$(json_get "$TMP/power.json" '["benchmarks"]')" = "[]" ] ||
	fail "a driver with the instantaneous field leaves a note: $(json_get "$TMP/power.json" '["benchmarks"]')"

FAKE_NVML_NO_POWER_INSTANT=1 GPUBENCH_SIM_MACHINE="$MACHINES/h100-sxm.json" \
	run "$SIM" info -q -o "$TMP/power-avg.json"
expect_rc 0 "h100 info without the instantaneous power field: a note, no warning"
validate "$TMP/power-avg.json"
checks=$((checks + 1))
note=$(json_get "$TMP/power-avg.json" \
	'["benchmarks"][0]["checks"][0]["name"] + " " + d["benchmarks"][0]["checks"][0]["status"]')
[ "$note" = "power_source passed" ] || fail "no power_source note: '$note'"
checks=$((checks + 1))
json_get "$TMP/power-avg.json" '["benchmarks"][0]["checks"][0]["message"]' |
	grep -q "averaged over one second" || fail "the power note does not say it is an average"
checks=$((checks + 1))
[ "$(json_get "$TMP/power-avg.json" '["verdict"]["status"]')" = passed ] ||
	fail "a power note changed the verdict"

# ---- NVLink: a driver naming another generation than the model's ----
python3 - "$MACHINES/2x-a100-nvlink.json" "$TMP/a100-gen4.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["links"]["nvlink_gen"] = 4  # NVML then answers NVML_NVLINK_VERSION_4_0 for an A100
json.dump(m, open(sys.argv[2], "w"))
PY
GPUBENCH_SIM_MACHINE="$TMP/a100-gen4.json" run "$SIM" info -q -o "$TMP/nvlink.json"
expect_rc 0 "a100 info with NVLink 4 answered"
validate "$TMP/nvlink.json"
checks=$((checks + 1))
[ "$(json_get "$TMP/nvlink.json" '["verdict"]["status"]')" = warning ] ||
	fail "an NVLink version disagreement is not a warning"
checks=$((checks + 1))
json_get "$TMP/nvlink.json" '["benchmarks"][0]["checks"][0]["message"]' |
	grep -q "NVML answers NVLink version 6 (NVLink 4) for GPU 0, whose model has NVLink 3" ||
	fail "the NVLink warning does not give both generations"
checks=$((checks + 1))
[ "$(json_get "$TMP/nvlink.json" '["devices"][0]["nvlink"]["gen"]')" = 3 ] ||
	fail "devices[0].nvlink.gen is not the model's 3"
checks=$((checks + 1))
[ "$(json_get "$TMP/nvlink.json" '["devices"][0]["peaks"]["nvlink_gbps_per_direction"]')" = 300 ] ||
	fail "the A100's NVLink peak is not 12 x 25 GB/s"

# the machine as shipped agrees with its model: no entry at all
GPUBENCH_SIM_MACHINE="$MACHINES/2x-a100-nvlink.json" run "$SIM" info -q -o "$TMP/nvlink-ok.json"
expect_rc 0 "a100 info as shipped"
checks=$((checks + 1))
[ "$(json_get "$TMP/nvlink-ok.json" '["benchmarks"]')" = "[]" ] ||
	fail "an agreeing NVLink version left an entry"
finish
