#!/bin/bash
# bench/tracedat.sh [BIG-V6.dat]
# Times `traceio print` (text and -o dummy) against `trace-cmd report` on a
# >= 5 M-event trace.dat, as recorded (v6) and `trace-cmd convert`ed to v7
# zstd, and checks that the texts are identical.  Without an argument it
# records one (root + tracefs + ../shared/tools/tc-ns.sh; ~1 min), like
# ../shared/tools/make-ftrace.sh's big trace.
# Env: TIO (default build/traceio), WORK (scratch dir, default /tmp/tio-bench),
# REPS (timed runs of each command, default 3: the one with the least CPU time counts).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
WORK=${WORK:-/tmp/tio-bench}
mkdir -p "$WORK"
V6=${1:-$WORK/big-v6.dat}
if [ ! -f "$V6" ]; then
	echo "recording $V6 ..." >&2
	NS=$top/../shared/tools/tc-ns.sh
	( cd "$WORK" && "$NS" trace-cmd record -o "$V6" --file-version 6 -b 262144 -e syscalls -e sched -e irq \
		sh -c "dd if=/dev/zero of=/dev/null bs=1 count=1500000 2>/dev/null; ls -R /usr/share > /dev/null" \
		> "$WORK/record.log" 2>&1 )
fi
V7=${V6%.dat}-v7-zstd.dat
case "$V6" in *-v6.dat) V7=${V6%-v6.dat}-v7-zstd.dat;; esac
[ -f "$V7" ] || trace-cmd convert -i "$V6" -o "$V7" --file-version 7 --compression zstd > /dev/null 2>&1

# run OUT CMD...: REPS runs (default 3) of CMD with its output to /dev/null;
# prints "wall kib cpu" of the run with the least CPU time (user+sys: the fair
# figure on a shared machine; wall time includes waiting for a core).  The
# output goes to /dev/null so that the figures are the tools' own, not the
# page cache's: writing a new 600 MB file cost 0.2 to 1.5 s of system time
# from one run to the next here.  OUT gets the text of one more run, to check
# that the texts are identical.
REPS=${REPS:-3}
run() {
	local out=$1; shift
	local best= line
	for _ in $(seq "$REPS"); do
		"$top/bench/rtime.py" -f '%e %M %U %S' -o "$WORK/time" "$@" > /dev/null 2> /dev/null
		line=$(awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$WORK/time")
		if [ -z "$best" ] || awk -v a="${line##* }" -v b="${best##* }" 'BEGIN { exit !(a < b) }'; then best=$line; fi
	done
	[ "$out" = /dev/null ] || "$@" > "$out" 2> /dev/null
	echo "$best"
}
events=$("$TIO" info --count "$V6" 2>/dev/null | awk '/^  events:/ {print $2; exit}')
printf 'trace: %s (%s bytes), v7 zstd: %s (%s bytes), %s events\n' "$V6" "$(stat -c %s "$V6")" \
	"$V7" "$(stat -c %s "$V7")" "${events:-?}"
echo "best of $REPS runs each (least CPU time), output to /dev/null"
printf '%-34s %9s %9s %9s\n' "command" "seconds" "cpu-secs" "maxRSS-MB"
declare -A T M C
for f in v6 v7; do
	file=$V6; [ $f = v7 ] && file=$V7
	read -r T[tc_$f] M[tc_$f] C[tc_$f] < <(run "$WORK/tc-$f.txt" trace-cmd report -i "$file")
	read -r T[tio_$f] M[tio_$f] C[tio_$f] < <(run "$WORK/tio-$f.txt" "$TIO" print "$file")
	read -r T[dummy_$f] M[dummy_$f] C[dummy_$f] < <(run /dev/null "$TIO" print -o dummy "$file")
	for k in tc tio dummy; do
		case $k in tc) c="trace-cmd report ($f)";; tio) c="traceio print ($f)";; dummy) c="traceio print -o dummy ($f)";; esac
		printf '%-34s %9s %9s %9s\n' "$c" "${T[${k}_$f]}" "${C[${k}_$f]}" "$(( ${M[${k}_$f]} / 1024 ))"
	done
	if cmp -s "$WORK/tc-$f.txt" "$WORK/tio-$f.txt"; then echo "  $f: texts identical ($(wc -l < "$WORK/tio-$f.txt") lines)"
	else echo "  $f: TEXTS DIFFER: $(cmp "$WORK/tc-$f.txt" "$WORK/tio-$f.txt" | head -1)"; fi
	rm -f "$WORK/tc-$f.txt" "$WORK/tio-$f.txt"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "speed-up of traceio print over trace-cmd report, wall: v6 $(ratio "${T[tc_v6]}" "${T[tio_v6]}")x, v7 zstd $(ratio "${T[tc_v7]}" "${T[tio_v7]}")x"
echo "speed-up of traceio print over trace-cmd report, cpu:  v6 $(ratio "${C[tc_v6]}" "${C[tio_v6]}")x, v7 zstd $(ratio "${C[tc_v7]}" "${C[tio_v7]}")x"
echo "traceio print v7 zstd / v6, wall: $(ratio "${T[tio_v7]}" "${T[tio_v6]}")x, cpu: $(ratio "${C[tio_v7]}" "${C[tio_v6]}")x (trace-cmd: $(ratio "${T[tc_v7]}" "${T[tc_v6]}")x, $(ratio "${C[tc_v7]}" "${C[tc_v6]}")x)"
