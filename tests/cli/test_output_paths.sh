#!/usr/bin/env bash
# -o FILE never destroys what is at FILE (issue 19, item 1): a symbolic link
# stays a link (its target is written), a FIFO and a character device are
# written in place (not replaced by a regular file), /dev/stdout and '-o -'
# carry the JSON alone, and a path that cannot be written is exit 2 with one
# line before anything runs. CI runs as root, so mknod is real there.
. "$(dirname "$0")/lib.sh"
DATA=${GPUBENCH_TEST_DATA:?GPUBENCH_TEST_DATA must point at tests/data}
cd "$TMP" || exit 1

# is_json FILE DESCRIPTION: FILE holds one JSON document and nothing else
is_json() {
	checks=$((checks + 1))
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null ||
		fail "$2: not one JSON document"
}

# ---- a symbolic link: the target is written atomically, the link stays ----
mkdir targets
printf 'old\n' >targets/real.json
ln -s targets/real.json link.json
run "$BIN" report "$DATA/base.json" -o link.json
expect_rc 0 "report -o a symbolic link"
checks=$((checks + 1))
[ -L link.json ] || fail "the symbolic link was replaced"
is_json targets/real.json "the link's target"
checks=$((checks + 1))
compgen -G "targets/real.json.tmp.*" >/dev/null && fail "a temporary file was left beside the target"
# a measuring command (no GPU here: exit 3, the report is still written) through a link
ln -s targets/info.json info-link.json
run "$BIN" info -o info-link.json
checks=$((checks + 1))
[ -L info-link.json ] || fail "info -o: the symbolic link was replaced"
is_json targets/info.json "info -o: the link's target"
# a dangling link: the file it names is created, in its folder
ln -s targets/new.json dangling.json
run "$BIN" report "$DATA/base.json" -o dangling.json
expect_rc 0 "report -o a dangling link"
checks=$((checks + 1))
[ -L dangling.json ] || fail "the dangling link was replaced"
is_json targets/new.json "the dangling link's target"
# a link into a missing folder: exit 2, one line, before anything runs
ln -s nowhere/x.json broken.json
run "$BIN" info -o broken.json
expect_rc 2 "a link into a missing folder"
expect_one_error "cannot write report 'broken.json': folder '.*nowhere'" "the missing folder named"
# a kept file keeps its mode
printf 'old\n' >private.json
chmod 600 private.json
run "$BIN" report "$DATA/base.json" -o private.json
checks=$((checks + 1))
[ "$(stat -c %a private.json)" = 600 ] || fail "a 0600 report became $(stat -c %a private.json)"

# ---- a named pipe with a reader: written through, still a FIFO ----
mkfifo pipe
timeout 20 cat pipe >from_pipe &
reader=$!
run "$BIN" report "$DATA/base.json" -o pipe
expect_rc 0 "report -o a FIFO"
wait "$reader"
checks=$((checks + 1))
[ -p pipe ] || fail "the FIFO was replaced by a regular file"
is_json from_pipe "what the FIFO's reader got"
# a measuring command: the up-front check must not open the FIFO (its reader
# would see the end) and the report at the end goes through it
timeout 20 cat pipe >from_pipe2 &
reader=$!
run "$BIN" info -o pipe
wait "$reader"
checks=$((checks + 1))
[ -p pipe ] || fail "info -o: the FIFO was replaced"
is_json from_pipe2 "info -o: what the FIFO's reader got"

# ---- a character device: written in place, never replaced ----
if mknod nulldev c 1 3 2>/dev/null && mknod fulldev c 1 7 2>/dev/null; then
	run "$BIN" report "$DATA/base.json" -o nulldev
	expect_rc 0 "report -o a character device (null)"
	checks=$((checks + 1))
	[ -c nulldev ] || fail "the character device was replaced by a regular file"
	run "$BIN" info -o nulldev
	checks=$((checks + 1))
	[ -c nulldev ] || fail "info -o: the character device was replaced"
	# a device that refuses the data (full): exit 3, one line, still a device
	run "$BIN" report "$DATA/base.json" -o fulldev
	expect_rc 3 "report -o a full device"
	expect_one_error "cannot write 'fulldev': No space left on device" "the device's error"
	checks=$((checks + 1))
	[ -c fulldev ] || fail "the full device was replaced"
elif [ "$(id -u)" = 0 ]; then
	# root without mknod: a container that forbids it; /dev/null is then the device
	echo "note: mknod refused here; testing /dev/null itself" >&2
fi
# /dev/null itself (the issue's first report: root replaced it with a file)
if [ -w /dev/null ]; then
	run "$BIN" report "$DATA/base.json" -o /dev/null
	expect_rc 0 "report -o /dev/null"
	checks=$((checks + 1))
	[ -c /dev/null ] || fail "/dev/null is no longer a character device"
fi

# ---- stdout: '-o -' and /dev/stdout carry the JSON alone ----
"$BIN" info -o - >stdout.json 2>stderr.txt
rc=$?
err=$(cat stderr.txt)
expect_rc 3 "info -o - without a GPU"
is_json stdout.json "info -o -: stdout"
checks=$((checks + 1))
grep -q '^verdict: ' stderr.txt || fail "info -o -: the summary did not go to stderr"
checks=$((checks + 1))
"$BIN" gemm -o - 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "gemm -o - piped to a JSON parser"
checks=$((checks + 1))
"$BIN" report "$DATA/base.json" -o - | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "report -o - piped to a JSON parser"
checks=$((checks + 1))
"$BIN" report "$DATA/base.json" -o /dev/stdout >stdout2.json 2>/dev/null
is_json stdout2.json "report -o /dev/stdout"
run "$BIN" compare "$DATA/base.json" "$DATA/base.json" -o -
expect_rc 0 "compare -o -"
printf '%s' "$out" >cmp.json
is_json cmp.json "compare -o -: stdout"
checks=$((checks + 1))
printf '%s' "$err" | grep -q '^result: passed' || fail "compare -o -: the table did not go to stderr"
run "$BIN" info -o - --format csv
expect_rc 2 "info -o - with --format csv"
expect_one_error "'-o -' writes the JSON report to stdout, '--format csv'" "the conflict named"
run "$BIN" info -o - --json
expect_rc 2 "info -o - with --json"
run "$BIN" compare "$DATA/base.json" "$DATA/base.json" -o - --format markdown
expect_rc 2 "compare -o - with --format markdown"

# ---- what cannot be written: exit 2, one line, before anything runs ----
run "$BIN" info -o ""
expect_rc 2 "info -o ''"
expect_one_error "cannot write report '': empty file name" "the empty name"
mkdir adir
run "$BIN" info -o adir
expect_rc 2 "info -o a directory"
expect_one_error "cannot write report 'adir': it is a directory" "the directory named"
ln -s adir dirlink
run "$BIN" report "$DATA/base.json" -o dirlink
expect_rc 2 "report -o a link to a directory"
checks=$((checks + 1))
[ -L dirlink ] || fail "the link to a directory was replaced"
run "$BIN" compare "$DATA/base.json" "$DATA/base.json" -o missing/cmp.json
expect_rc 2 "compare -o into a missing folder"
expect_one_error "folder 'missing': No such file or directory" "the missing folder"
ln -s loop1 loop2
ln -s loop2 loop1
run "$BIN" report "$DATA/base.json" -o loop1
expect_rc 2 "a link loop"
expect_one_error "cannot write report 'loop1': Too many levels of symbolic links" "the loop"

finish
