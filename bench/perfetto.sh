#!/bin/bash
# `traceio convert --to perfetto` against decoding alone (`print -o dummy`) on
# big traces: CPU time (user + sys, the figure to trust on a shared machine),
# wall time, events/s of CPU time, peak RSS, input and output sizes (and their ratio); with
# PROTOC_CHECK=1 also the output's packet count as protoc reads it (slow: the
# text of a 600 MB output is several GB).
# Usage: bench/perfetto.sh TRACE...   (default: bench/.data/lttng/ust-big, the
#   5.4 M-event LTTng-UST trace made by ../shared/tools/make-lttng.sh)
#   REPS=N runs each command N times (default 3) and keeps the run with the
#   least CPU time.  Figures: docs/formats/perfetto.md, "Speed and size".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
REPS=${REPS:-3}
[ $# -gt 0 ] || set -- "$top/bench/.data/lttng/ust-big"
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
export TZ=UTC LC_ALL=C
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-perfetto.XXXXXX")
trap 'rm -rf "$work"' EXIT

# best NAME CMD...: the run with the least CPU time of REPS; sets cpu, wall, rss
best() {
	local name=$1; shift
	local k u s w m c
	cpu= wall= rss=
	for ((k = 0; k < REPS; k++)); do
		"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
			{ echo "$name failed: $(tail -2 "$work/err")" >&2; exit 1; }
		read -r w u s m < <(tail -1 "$work/time")
		c=$(echo "$u + $s" | bc -l)
		if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc -l)" = 1 ]; then
			cpu=$c wall=$w rss=$m
		fi
	done
	[ "$(echo "$cpu < 0.01" | bc -l)" = 1 ] && cpu=0.01 # a tiny trace: no ratio to a few ms
	return 0
}

for trace in "$@"; do
	events=$("$TIO" info --count "$trace" | awk '/^  events:/ {s += $2} END {print s + 0}')
	echo "input: $trace ($events events, $(du -sh "$trace" | cut -f1))"
	best "decode only" "$TIO" print -o dummy "$trace"
	dcpu=$cpu
	printf '  %-22s %6.2f s CPU %6.2f s wall %6.2f M ev/CPU-s %7d KiB RSS\n' "decode only" "$cpu" "$wall" \
		"$(echo "$events / $cpu / 1000000" | bc -l)" "$rss"
	best "convert --to perfetto" "$TIO" convert -q -f --to perfetto -o "$work/out.pftrace" "$trace"
	isz=$(du -sb "$trace" | cut -f1) osz=$(stat -c %s "$work/out.pftrace")
	printf '  %-22s %6.2f s CPU %6.2f s wall %6.2f M ev/CPU-s %7d KiB RSS, %s output (%.2fx the input), %.2fx decode-only CPU\n' \
		"convert --to perfetto" "$cpu" "$wall" "$(echo "$events / $cpu / 1000000" | bc -l)" "$rss" \
		"$(du -h "$work/out.pftrace" | cut -f1)" "$(echo "$osz / $isz" | bc -l)" "$(echo "$cpu / $dcpu" | bc -l)"
	if [ -n "${PROTOC_CHECK:-}" ]; then
		n=$(protoc --proto_path="$top/../shared/perfetto" --decode=perfetto.protos.Trace perfetto_trace.proto \
			<"$work/out.pftrace" | grep -c '^packet {')
		echo "  protoc reads $n packets"
	fi
	rm -f "$work/out.pftrace"
done
