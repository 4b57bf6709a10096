#!/bin/bash
# Random access, side by side with the peers in one run:
#  - CTF: printing the last 1% of the events of the big LTTng-UST trace of
#    bench/ctf.sh with --begin: babeltrace2 --begin, traceio print --begin
#    (through the packet index), and traceio printing a trace that holds only
#    those events (made with traceio convert --begin);
#  - trace.dat: the last 1% of the big v6 file of bench/tracedat.sh: trace-cmd
#    report (it has no seek: the whole text, as a user would pipe it to tail),
#    traceio print --begin in the trace-cmd style (it reads the events before
#    the bound that its comm names need) and in the babeltrace style (no such
#    state: straight through the index);
#  - traceio info (from the index) against info --count, on both traces.
# Usage: bench/seek.sh [CTF_TRACE_DIR [BIG_V6_DAT]]
# Env: BUILD (default build), REPS (traceio runs, best kept; default 3),
#   CACHE=disk (the traces read back as from disk first: bench/pagecache.sh).
# Prints wall and CPU seconds and peak RSS of each command, then the ratios
# (CPU time: on a shared machine the figure to trust).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
TIO=$BUILD/traceio
REPS=${REPS:-3}
export TZ=UTC LC_ALL=C
ctf=${1:-$top/bench/.data/lttng/ust-big}
dat=${2:-/tmp/tio-bench/big-v6.dat}
[ -d "$ctf" ] || { mkdir -p "$top/bench/.data"; bash "$top/../shared/tools/make-lttng.sh" "$top/bench/.data/lttng" >/dev/null; }
[ -f "$dat" ] || bash "$top/bench/tracedat.sh" "$dat" >/dev/null
"$top/bench/pagecache.sh" "${CACHE:-keep}" "$ctf" "$dat"
echo "page cache: ${CACHE:-keep}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run LABEL CMD...: best of REPS by CPU time (REPS=1 for peers); sets cpu, wall, rss
run() {
	local label=$1 reps=$REPS r c
	shift
	[ "$label" = peer ] && reps=1
	cpu=
	for ((r = 0; r < reps; r++)); do
		"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/t" "$@" >"$work/out" 2>/dev/null || true
		c=$(awk '{print $2 + $3}' "$work/t")
		if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc -l)" = 1 ]; then
			cpu=$c wall=$(awk '{print $1}' "$work/t") rss=$(awk '{print $4}' "$work/t")
			cp "$work/out" "$work/best"
		fi
	done
}
show() { printf '%-66s %8.3f s wall %8.3f s CPU %7d KB  %s\n' "$1" "$wall" "$cpu" "$rss" "$(wc -l <"$work/best") lines"; }
ratio() { echo "$1 / ($2 + 0.0005)" | bc -l; }

# the time 99% of the events in: the events' times from the text
begin_at() { # TRACE STYLE-OPTS...: SEC.NS of the event at 99%
	local t=$1
	shift
	"$TIO" print --style json "$t" 2>/dev/null | grep '^{"type":"event"' |
		sed -n 's/.*"ns":\(-\{0,1\}[0-9]*\).*/\1/p' >"$work/times"
	local n ns
	n=$(wc -l <"$work/times")
	ns=$(sed -n "$((n * 99 / 100))p" "$work/times")
	awk -v n="$ns" 'BEGIN { s = int(n / 1e9); printf "%d.%09d\n", s, n - s * 1e9 }'
}

echo "$(nproc) CPUs; $(date -u +%F)"
B=$(begin_at "$ctf")
echo "CTF: $ctf ($(du -sh --apparent-size "$ctf" | cut -f1)), last 1%: --begin $B"
run peer babeltrace2 --begin "$B" "$ctf"; bt_cpu=$cpu; show "babeltrace2 --begin"
run tio "$TIO" print --begin "$B" "$ctf"; seek_cpu=$cpu; show "traceio print --begin (packet index)"
run tio env TIO_SEEK=0 "$TIO" print --begin "$B" "$ctf"; show "traceio print --begin, TIO_SEEK=0 (decodes from the start)"
"$TIO" convert -q --begin "$B" -o "$work/only" "$ctf"
run tio "$TIO" print "$work/only"; only_cpu=$cpu; show "traceio print of a trace holding only those events"
run tio "$TIO" info "$ctf"; show "traceio info (index)"
run tio "$TIO" info --count "$ctf"; show "traceio info --count (reads everything)"
printf 'CTF last 1%%: traceio %.0fx faster than babeltrace2 --begin (CPU); %.2fx the time of printing a trace of those events alone\n' \
	"$(ratio "$bt_cpu" "$seek_cpu")" "$(echo "$seek_cpu / ($only_cpu + 0.0005)" | bc -l)"

B=$(begin_at "$dat")
echo "trace.dat: $dat ($(du -sh --apparent-size "$dat" | cut -f1)), last 1%: --begin $B"
run peer trace-cmd report -i "$dat"; tc_cpu=$cpu; show "trace-cmd report (all of it: no seek)"
run tio "$TIO" print --begin "$B" "$dat"; tcs_cpu=$cpu; show "traceio print --begin (trace-cmd style)"
run tio env TIO_SEEK=0 "$TIO" print --begin "$B" "$dat"; show "traceio print --begin (trace-cmd style), TIO_SEEK=0"
run tio "$TIO" print --style babeltrace --begin "$B" "$dat"; bts_cpu=$cpu; show "traceio print --style babeltrace --begin (packet index)"
run tio "$TIO" info "$dat"; show "traceio info (index)"
run tio "$TIO" info --count "$dat"; show "traceio info --count (reads everything)"
printf 'trace.dat last 1%%: traceio %.0fx faster than trace-cmd report in its style, %.0fx in the babeltrace style (CPU)\n' \
	"$(ratio "$tc_cpu" "$tcs_cpu")" "$(ratio "$tc_cpu" "$bts_cpu")"
