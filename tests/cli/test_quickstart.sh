#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command (issue 19, item 6): on a machine without a GPU it
# must end with gpubench's own exit code, 3, and gpubench's one line, not
# make's (make answers 2 for any failing recipe, and 2 means bad input here).
#
# The command is taken from the README's quick start as written and run in a
# scratch directory where `build/gpubench` is the binary under test and `make`
# a stand-in that succeeds (building is not what is tested, and a real `make`
# here would install packages). With a GPU present the acceptance suite would
# really run, so there only the command's shape is checked.
. "$(dirname "$0")/lib.sh"

readme="$HERE/../../README.md"

# the first line of the first code block under "## Quick start"
first=$(awk '/^## Quick start/ { q = 1; next }
	q && /^## / { exit }
	q && /^```/ { if (inblock) exit; inblock = 1; next }
	q && inblock { print; exit }' "$readme")
checks=$((checks + 1))
[ -n "$first" ] || { fail "no command in the README's quick start"; finish; }
cmd=${first%%#*}
cmd=$(printf '%s' "$cmd" | sed 's/[[:space:]]*$//')

# gpubench itself must be the last command, so its exit code is the line's
checks=$((checks + 1))
case "$cmd" in
*"build/gpubench run") ;;
*) fail "the quick start's first command does not end by running build/gpubench: '$cmd'" ;;
esac
checks=$((checks + 1))
case "$cmd" in
*"make run"*) fail "the quick start runs 'make run', whose exit code is make's: '$cmd'" ;;
esac

# what make would do to the code: a recipe failing with 3 is make's 2
mkdir -p "$TMP/mk"
printf 'run:\n\t@exit 3\n' >"$TMP/mk/Makefile"
if command -v make >/dev/null 2>&1; then
	make -s -C "$TMP/mk" run >/dev/null 2>&1
	# shellcheck disable=SC2034 # rc and err are read by expect_rc (lib.sh)
	rc=$? err=""
	expect_rc 2 "make's own code for a failing recipe (why the quick start avoids 'make run')"
fi

if have_gpu; then
	echo "skipped: a GPU is present and the acceptance suite would run for real"
	finish
fi

mkdir -p "$TMP/tree/build"
ln -s "$BIN" "$TMP/tree/build/gpubench"
cd "$TMP/tree" || exit 1
run bash -c "make() { return 0; }; $cmd"
expect_rc 3 "the README's first command without a GPU ($cmd)"
expect_one_error '^gpubench: error: (no NVIDIA driver|NVIDIA driver too old|no CUDA-capable GPU|cannot count CUDA devices)' "the README's first command: gpubench's one line"
finish
