#!/usr/bin/env bash
# check-style.sh - the project's rules that a grep can check, over the product
# code (cmd/ bench/ report/ kernels/, *.c *.h *.cu *.cuh) and scripts/.
# Comments are ignored (and string literals, except where a rule is about
# what a string says), line numbers kept. Each violation prints as
#   file:line: rule-id: what
# and the script exits 1 when there is any. tests/ is exempt.
#
#   banned-function   sprintf vsprintf strcpy strcat gets atoi atol atoll atof
#                     strtok (use snprintf, memcpy with a length, strtol/strtod
#                     with an end pointer, strtok_r)
#   shell             system( popen( or a "/bin/sh" string: no shell is ever
#                     run, least of all with user text (exec* with an argv is fine)
#   exit-outside-cmd  exit( _exit( quick_exit( in bench/ report/ kernels/: only
#                     cmd/ decides the exit code
#   stdout-outside-cmd  printf( puts( putchar( or the stream stdout in bench/
#                     and report/: they fill the result model or write to the
#                     FILE * they are given; only cmd/ prints results
#   nvml-set          NVML calls that change a GPU (nvmlDeviceSet*, *Reset*,
#                     *Clear*, nvmlUnitSet*, nvmlDeviceModifyDrainState,
#                     nvmlDeviceRemoveGpu), anywhere: gpubench never changes
#                     GPU settings
#   nvidia-smi-set    nvidia-smi with an option that changes a GPU (-pm -e -c -ac
#                     -rac -pl -lgc -rgc -lmc -rmc -r --gpu-reset ...) in a script
#                     or a string
#   getenv-outside-cmd  getenv( secure_getenv( environ outside cmd/: only cmd/
#                     reads the environment (and records only whitelisted
#                     variables in the report)
#
# A line that must break a rule says so in a comment on that line:
#   /* check-style: allow <rule-id>: why */
#
#   scripts/check-style.sh           the checks (exit 1 on a violation)
#   scripts/check-style.sh --format  also count files clang-format would change
#                                    (informational; formatting is not enforced yet)
set -euo pipefail

# CHECK_STYLE_ROOT: check another tree (the script's own tests use a fixture)
root=${CHECK_STYLE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

want_format=no
for a in "$@"; do
	case "$a" in
	--format) want_format=yes ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "check-style: unknown argument '$a'" >&2
		exit 2
		;;
	esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
violations=0

# strip FILE MODE: comments blanked; MODE=code also blanks string and char literals
strip() {
	perl -e '
		my $mode = shift;
		local $/;
		my $s = <STDIN>;
		$s =~ s{(/\*.*?\*/)|(//[^\n]*)|("(?:\\.|[^"\\\n])*")|('"'"'(?:\\.|[^'"'"'\\\n])*'"'"')}{
			my ($blk, $line, $str, $chr) = ($1, $2, $3, $4);
			if (defined $blk) { (my $t = $blk) =~ s/[^\n]/ /g; $t }
			elsif (defined $line) { " " x length($line) }
			elsif ($mode eq "code") {
				my $t = defined $str ? $str : $chr;
				my $q = substr($t, 0, 1);
				$q . (" " x (length($t) - 2)) . $q
			}
			else { defined $str ? $str : $chr }
		}gse;
		print $s;
	' "$2" <"$1"
}

mapfile -t sources < <(find cmd bench report kernels -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) 2>/dev/null | sort)
mapfile -t scripts < <(find scripts -type f -name '*.sh' 2>/dev/null | sort)

for f in "${sources[@]}"; do
	mkdir -p "$tmp/code/$(dirname "$f")" "$tmp/text/$(dirname "$f")"
	strip "$f" code >"$tmp/code/$f"
	strip "$f" text >"$tmp/text/$f"
done

# report VIEW RULE WHAT REGEX FILE...: every match in the stripped VIEW (code or
# text) of the files, unless the original line allows the rule
report() {
	local view=$1 rule=$2 what=$3 regex=$4
	shift 4
	local f hit line
	for f in "$@"; do
		[ -f "$tmp/$view/$f" ] || continue
		while IFS= read -r hit; do
			line=${hit%%:*}
			if sed -n "${line}p" "$f" | grep -q "check-style: allow $rule"; then
				continue
			fi
			printf '%s:%s: %s: %s\n' "$f" "$line" "$rule" "$what"
			violations=$((violations + 1))
		done < <(grep -nE -- "$regex" "$tmp/$view/$f" || true)
	done
}

in_dirs() {
	local d f
	for f in "${sources[@]}"; do
		for d in "$@"; do
			case "$f" in "$d"/*) printf '%s\n' "$f" ;; esac
		done
	done
}

id='(^|[^A-Za-z0-9_.>])' # start of an identifier: not a member (.x, ->x) or longer name

mapfile -t all_src < <(printf '%s\n' "${sources[@]}")
mapfile -t below_cmd < <(in_dirs bench report kernels)
mapfile -t bench_report < <(in_dirs bench report)

report code banned-function "sprintf/vsprintf: use snprintf/vsnprintf" \
	"${id}v?sprintf[[:space:]]*\(" "${all_src[@]}"
report code banned-function "strcpy/strcat: use snprintf or memcpy with a length" \
	"${id}(strcpy|strcat)[[:space:]]*\(" "${all_src[@]}"
report code banned-function "gets: use fgets" "${id}gets[[:space:]]*\(" "${all_src[@]}"
report code banned-function "atoi/atol/atoll/atof: use strtol/strtod with an end pointer" \
	"${id}ato(i|l|ll|f)[[:space:]]*\(" "${all_src[@]}"
report code banned-function "strtok: use strtok_r" "${id}strtok[[:space:]]*\(" "${all_src[@]}"

report code shell "system(): no shell is ever run" "${id}system[[:space:]]*\(" "${all_src[@]}"
report code shell "popen(): no shell is ever run" "${id}popen[[:space:]]*\(" "${all_src[@]}"
report text shell "a /bin/sh string: no shell is ever run" '"/bin/(ba|da)?sh"' "${all_src[@]}"

report code exit-outside-cmd "only cmd/ exits; return an error code" \
	"${id}(_?exit|_Exit|quick_exit)[[:space:]]*\(" "${below_cmd[@]}"

report code stdout-outside-cmd "only cmd/ prints results; write to the FILE * given" \
	"${id}(printf|puts|putchar)[[:space:]]*\(" "${bench_report[@]}"
report code stdout-outside-cmd "only cmd/ prints results; write to the FILE * given" \
	"${id}stdout([^A-Za-z0-9_]|$)" "${bench_report[@]}"

nvml_set='nvml(Device|Unit|System|GpuInstance|ComputeInstance|VgpuInstance)?(Set|Reset|Clear)[A-Za-z0-9_]*|nvmlDeviceModifyDrainState|nvmlDeviceRemoveGpu'
report code nvml-set "gpubench never changes GPU settings" "${id}($nvml_set)" "${all_src[@]}"
report text nvml-set "gpubench never changes GPU settings" "\"($nvml_set)\"" "${all_src[@]}"

smi_set='nvidia-smi([^|;&]*[[:space:]])(-pm|-e|-c|-ac|-rac|-acp|-pl|-lgc|-rgc|-lmc|-rmc|-r|-am|-caa|-mig|--persistence-mode|--ecc-config|--compute-mode|--applications-clocks|--reset-applications-clocks|--power-limit|--lock-gpu-clocks|--reset-gpu-clocks|--lock-memory-clocks|--reset-memory-clocks|--gpu-reset|--auto-boost-default|--multi-instance-gpu)([[:space:]=]|$)'
report text nvidia-smi-set "gpubench never changes GPU settings" "$smi_set" "${all_src[@]}"
for f in "${scripts[@]}"; do
	mkdir -p "$tmp/text/$(dirname "$f")"
	# shell comments out, line numbers kept
	sed 's/^[[:space:]]*#.*$//' "$f" >"$tmp/text/$f"
done
report text nvidia-smi-set "gpubench never changes GPU settings" "$smi_set" "${scripts[@]}"

mapfile -t outside_cmd < <(in_dirs bench report kernels)
report code getenv-outside-cmd "only cmd/ reads the environment; pass the value in" \
	"${id}(secure_)?getenv[[:space:]]*\(" "${outside_cmd[@]}"
report code getenv-outside-cmd "only cmd/ reads the environment; pass the value in" \
	"${id}(__)?environ([^A-Za-z0-9_]|$)" "${outside_cmd[@]}"

if [ "$want_format" = yes ]; then
	if command -v clang-format >/dev/null 2>&1 && [ -f .clang-format ]; then
		n=0
		for f in "${sources[@]}"; do
			clang-format --dry-run "$f" 2>&1 | grep -q . && n=$((n + 1))
		done
		echo "check-style: clang-format would change $n of ${#sources[@]} files (not enforced yet)"
	else
		echo "check-style: clang-format or .clang-format missing: formatting not checked"
	fi
fi

if [ "$violations" -gt 0 ]; then
	echo "check-style: $violations violation(s)" >&2
	exit 1
fi
echo "check-style: ok (${#sources[@]} sources, ${#scripts[@]} scripts)"
