#!/usr/bin/env bash
# The HTML report opened by a real browser: headless Chromium renders
# `gpubench report --format html` of a saved report to a PNG, which must be a
# real, non-trivial image. Skipped (77) when no Chromium is installed
# (Debian package `chromium`).
. "$(dirname "$0")/lib.sh"
DATA=${GPUBENCH_TEST_DATA:?GPUBENCH_TEST_DATA must point at tests/data}

browser=
for b in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "skipped: no chromium, chromium-browser or google-chrome on PATH"
	exit 77
fi

run "$BIN" report "$DATA/base.json" --format html -o "$TMP/report.html"
expect_rc 0 "html report written"
checks=$((checks + 1))
if grep -qE '(https?:)?//[a-z]|<script|<link|src=' "$TMP/report.html"; then
	fail "the page refers to something outside itself"
fi

# a fresh profile and no sandbox (CI containers run as root); a timeout so a
# wedged browser fails the test instead of hanging it
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$TMP/profile" --window-size=1280,2000 \
	--screenshot="$TMP/report.png" "file://$TMP/report.html" >"$TMP/browser.log" 2>&1
checks=$((checks + 1))
if [ ! -s "$TMP/report.png" ]; then
	fail "no screenshot: $(tail -5 "$TMP/browser.log")"
else
	# a PNG of the asked size, and not one flat colour: the page drew something
	if ! python3 - "$TMP/report.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1280, 2000), (w, h)
# decompress the image data and count distinct bytes: a blank page has a handful
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
assert len(set(raw)) > 64, "the screenshot is blank"
PY
	then
		fail "the screenshot is not a rendered page"
	fi
fi
if [ -n "${GPUBENCH_KEEP_SCREENSHOT:-}" ]; then
	cp "$TMP/report.png" "$GPUBENCH_KEEP_SCREENSHOT"
fi

finish
