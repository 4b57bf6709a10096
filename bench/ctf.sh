#!/bin/bash
# CTF 1.8 read speed: traceio against babeltrace2 on a big LTTng-UST trace.
# Usage: bench/ctf.sh [TRACE_DIR]
#   Without TRACE_DIR, records one (~5.4 M events) with ../shared/tools/make-lttng.sh
#   into bench/.data/ (needs lttng-tools, liblttng-ust-dev, babeltrace2; root).
# Prints wall time, events/s and peak RSS of each run, and the ratios.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
trace=${1:-}
if [ -z "$trace" ]; then
	data=$top/bench/.data
	if [ ! -d "$data/lttng/ust-big" ]; then
		mkdir -p "$data"
		bash "$top/../shared/tools/make-lttng.sh" "$data/lttng" >/dev/null
	fi
	trace=$data/lttng/ust-big
fi
export TZ=UTC LC_ALL=C
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }

# run NAME CMD...: best of 3 wall times; peak RSS of the last run
run() {
	local name=$1; shift
	local best= rss=
	for i in 1 2 3; do
		local t0 t1
		t0=$(date +%s.%N)
		/usr/bin/time -f %M -o /tmp/bench.rss "$@" >/dev/null 2>/tmp/bench.err || { echo "$name failed: $(tail -2 /tmp/bench.err)" >&2; return 1; }
		t1=$(date +%s.%N)
		local dt; dt=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
		rss=$(cat /tmp/bench.rss)
	done
	printf '%-34s %8.3f s  %7.2f M events/s  %7d KiB peak RSS\n' "$name" "$best" "$(echo "$events / $best / 1000000" | bc -l)" "$rss"
	eval "T_$2=\$best" 2>/dev/null || true
	last=$best
}

events=$("$TIO" print -o dummy "$trace" >/dev/null 2>&1; "$TIO" info "$trace" | awk '/^  events:/ {s += $2} END {print s}')
echo "trace: $trace ($events events, $(du -sh "$trace" | cut -f1))"
run "traceio print -o dummy" "$TIO" print -o dummy "$trace"; tio_dummy=$last
run "babeltrace2 -o dummy" babeltrace2 -o dummy "$trace"; bt_dummy=$last
run "traceio print (text)" "$TIO" print "$trace"; tio_text=$last
run "babeltrace2 (text)" babeltrace2 "$trace"; bt_text=$last
printf 'decode-only: traceio is %.1fx faster than babeltrace2\n' "$(echo "$bt_dummy / $tio_dummy" | bc -l)"
printf 'text:        traceio is %.1fx faster than babeltrace2\n' "$(echo "$bt_text / $tio_text" | bc -l)"
