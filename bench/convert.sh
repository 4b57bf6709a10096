#!/bin/bash
# Conversion speed against the peers, in one run:
#   1. CTF: `traceio convert` (CTF 1.8 writer) against
#      `babeltrace2 IN -o ctf -w OUT` on a big LTTng-UST trace;
#   2. trace.dat: `traceio convert -o OUT.dat` against `trace-cmd convert`
#      on a big recorded trace.dat, to v7 zstd and to v6.
# Every output is read back by traceio and its event count compared with the
# input's.  Usage: bench/convert.sh [CTF_TRACE_DIR [TRACE_DAT]]
#   CTF_TRACE_DIR: /work/cache/lttng/ust-big when it exists, else one is
#     recorded (~5.4 M events) with ../shared/tools/make-lttng.sh into bench/.data/.
#   TRACE_DAT: /work/cache/ftrace-big/big-v6.dat when it exists, else the
#     trace.dat part is skipped (record one with ../shared/tools/make-ftrace.sh:
#     it needs root, and only one recording at a time: tracefs is global).
#   REPS=N runs each command N times (default 1) and keeps the run with the
#   least CPU time; SKIP_CTF=1 / SKIP_TRACEDAT=1 leave a part out.
# Prints wall time, CPU time (user + sys: the figure to trust on a shared
# machine), events/s of CPU time, peak RSS and output size of each, and the
# CPU-time ratios.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
REPS=${REPS:-1}
trace=${1:-}
dat=${2:-}
if [ -z "$trace" ] && [ -z "${SKIP_CTF:-}" ]; then
	if [ -d /work/cache/lttng/ust-big ]; then
		trace=/work/cache/lttng/ust-big
	else
		data=$top/bench/.data
		[ -d "$data/lttng/ust-big" ] || { mkdir -p "$data"; bash "$top/../shared/tools/make-lttng.sh" "$data/lttng" >/dev/null; }
		trace=$data/lttng/ust-big
	fi
fi
[ -z "$dat" ] && [ -f /work/cache/ftrace-big/big-v6.dat ] && dat=/work/cache/ftrace-big/big-v6.dat
export TZ=UTC LC_ALL=C
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-convert.XXXXXX")
trap 'rm -rf "$work"' EXIT

count() { "$TIO" info --count "$1" | awk '/^  events:/ {s += $2} END {print s + 0}'; }

# run NAME OUT CMD...: the run with the least CPU time of REPS; sets cpu, wall
run() {
	local name=$1 out=$2; shift 2
	local best_cpu= best_wall= best_rss= k
	for ((k = 0; k < REPS; k++)); do
		rm -rf "$out"
		"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
			{ echo "$name failed: $(tail -2 "$work/err")" >&2; exit 1; }
		read -r w u s m < <(tail -1 "$work/time")
		local c
		c=$(echo "$u + $s" | bc -l)
		if [ -z "$best_cpu" ] || [ "$(echo "$c < $best_cpu" | bc -l)" = 1 ]; then
			best_cpu=$c best_wall=$w best_rss=$m
		fi
	done
	cpu=$best_cpu wall=$best_wall
	local n
	n=$(count "$out")
	printf '%-36s %7.2f s wall %7.2f s CPU %6.2f M ev/CPU-s %7d KiB RSS %6s out, %s events back\n' "$name" \
		"$wall" "$cpu" "$(echo "$events / $cpu / 1000000" | bc -l)" "$best_rss" "$(du -sh "$out" | cut -f1)" "$n"
	[ "$n" = "$events" ] || { echo "$name: $n events in the output, $events in the input" >&2; exit 1; }
}
# ratio LABEL PEER_CPU TIO_CPU PEER_WALL TIO_WALL: peer / traceio (> 1: traceio is faster)
ratio() { printf '%-52s peer/traceio CPU time %5.2f, wall %5.2f\n' "$1" "$(echo "$2 / $3" | bc -l)" "$(echo "$4 / $5" | bc -l)"; }

if [ -z "${SKIP_CTF:-}" ]; then
	command -v babeltrace2 >/dev/null || { echo "babeltrace2 is not installed" >&2; exit 1; }
	events=$(count "$trace")
	echo "CTF input: $trace ($events events, $(du -sh "$trace" | cut -f1))"
	"$TIO" print -o dummy "$trace" >/dev/null 2>&1 || true # warm the page cache
	run "traceio convert -o DIR" "$work/tio" "$TIO" convert -q -o "$work/tio" "$trace"
	c_tio=$cpu w_tio=$wall
	run "babeltrace2 -o ctf" "$work/bt2" babeltrace2 "$trace" -o ctf -w "$work/bt2"
	ratio "babeltrace2 -o ctf / traceio convert:" "$cpu" "$c_tio" "$wall" "$w_tio"
	rm -rf "$work/tio" "$work/bt2"
fi

if [ -z "${SKIP_TRACEDAT:-}" ] && [ -n "$dat" ]; then
	command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed" >&2; exit 1; }
	events=$(count "$dat")
	echo "trace.dat input: $dat ($events events, $(du -sh "$dat" | cut -f1))"
	cat "$dat" >/dev/null # warm the page cache
	run "traceio convert --compression zstd" "$work/t7.dat" "$TIO" convert -q --compression zstd -o "$work/t7.dat" "$dat"
	c_t7=$cpu w_t7=$wall
	run "trace-cmd convert (v7 zstd)" "$work/c7.dat" trace-cmd convert --file-version 7 --compression zstd -i "$dat" -o "$work/c7.dat"
	ratio "trace-cmd convert / traceio convert, v7 zstd:" "$cpu" "$c_t7" "$wall" "$w_t7"
	rm -f "$work/t7.dat" "$work/c7.dat"
	run "traceio convert --file-version 6" "$work/t6.dat" "$TIO" convert -q --file-version 6 -o "$work/t6.dat" "$dat"
	c_t6=$cpu w_t6=$wall
	run "trace-cmd convert (v6)" "$work/c6.dat" trace-cmd convert --file-version 6 -i "$dat" -o "$work/c6.dat"
	ratio "trace-cmd convert / traceio convert, v6:" "$cpu" "$c_t6" "$wall" "$w_t6"
elif [ -z "${SKIP_TRACEDAT:-}" ]; then
	echo "no trace.dat input: pass one as the second argument (see the usage above)" >&2
fi
