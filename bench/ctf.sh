#!/bin/bash
# CTF 1.8 read speed: traceio against babeltrace2 on a big LTTng-UST trace.
# Usage: bench/ctf.sh [BIG_TRACE_DIR [SMALL_TRACE_DIR]]
#   Without BIG_TRACE_DIR, records one (~5.4 M events, ~250 MB) with
#   ../shared/tools/make-lttng.sh into bench/.data/ (needs lttng-tools,
#   liblttng-ust-dev, babeltrace2; root).
# For each run: best of 3 wall times, the CPU time (user+sys) of that run,
# events/s, peak RSS; then the ratios (wall and CPU: on a loaded machine the
# CPU ratio is the one to trust). Memory: peak RSS on a small trace and the
# big one, to show it does not grow with the trace.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
trace=${1:-}
small=${2:-$top/tests/data/ctf/lttng-ust-discard}
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
command -v babeltrace2 >/dev/null || { echo "needs babeltrace2" >&2; exit 1; }

# run VAR CMD...: sets VAR_wall, VAR_cpu (seconds) and VAR_rss (KiB)
run() {
	local var=$1; shift
	local best= cpu= rss=
	for i in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o /tmp/bench.$$ "$@" >/dev/null 2>/tmp/bench.err.$$ ||
			{ echo "failed: $* ($(tail -2 /tmp/bench.err.$$))" >&2; return 1; }
		read -r w u s m </tmp/bench.$$
		if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" = 1 ]; then
			best=$w; cpu=$(echo "$u + $s" | bc -l); rss=$m
		fi
	done
	rm -f /tmp/bench.$$ /tmp/bench.err.$$
	printf '%-28s %7.2f s wall %7.2f s CPU %7.2f M events/s %8d KiB peak RSS\n' "$*" "$best" "$cpu" \
		"$(echo "$events / $cpu / 1000000" | bc -l)" "$rss" | sed "s|$trace|TRACE|; s|$TIO|traceio|"
	eval "${var}_wall=$best ${var}_cpu=$cpu ${var}_rss=$rss"
}

events=$("$TIO" info "$trace" | awk '/^  events:/ {s += $2} END {print s}')
echo "trace: $trace: $events events, $(du -sh --apparent-size "$trace" | cut -f1)"
run td "$TIO" print -o dummy "$trace"
run bd babeltrace2 -o dummy "$trace"
run tt "$TIO" print "$trace"
run bt babeltrace2 "$trace"
ratio() { printf '%s: traceio is %.1fx faster than babeltrace2 (wall), %.1fx (CPU)\n' "$1" \
	"$(echo "$2 / $3" | bc -l)" "$(echo "$4 / $5" | bc -l)"; }
ratio "decode only (-o dummy)" "$bd_wall" "$td_wall" "$bd_cpu" "$td_cpu"
ratio "text                  " "$bt_wall" "$tt_wall" "$bt_cpu" "$tt_cpu"
/usr/bin/time -f '%M' -o /tmp/bench.$$ "$TIO" print -o dummy "$small" >/dev/null
echo "memory: traceio peak RSS $(cat /tmp/bench.$$) KiB on $(du -sh --apparent-size "$small" | cut -f1) ($small), $td_rss KiB on the big trace"
rm -f /tmp/bench.$$
