#!/bin/bash
# CTF 1.8 read speed: traceio against babeltrace2 on a big LTTng-UST trace.
# Usage: bench/ctf.sh [BIG_TRACE_DIR [SMALL_TRACE_DIR]]
#   Without BIG_TRACE_DIR, records one (~5.4 M events, ~250 MB) with
#   ../shared/tools/make-lttng.sh into bench/.data/ (needs lttng-tools,
#   liblttng-ust-dev, babeltrace2; root).
# Each traceio command and its babeltrace2 twin run in turn REPS times
# (default 5); for each, the best wall time, the CPU time (user+sys) of that run,
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

# one VAR CMD...: one run; sets VAR_wall, VAR_cpu (seconds) and VAR_rss (KiB)
# of the best (lowest wall) run so far
one() {
	local var=$1; shift
	"$top/bench/rtime.py" -f '%e %U %S %M' -o /tmp/bench.$$ "$@" >/dev/null 2>/tmp/bench.err.$$ ||
		{ echo "failed: $* ($(tail -2 /tmp/bench.err.$$))" >&2; return 1; }
	local w u s m best
	read -r w u s m </tmp/bench.$$
	eval "best=\${${var}_wall:-}"
	if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" = 1 ]; then
		eval "${var}_wall=$w ${var}_cpu=$(echo "$u + $s" | bc -l) ${var}_rss=$m"
	fi
	rm -f /tmp/bench.$$ /tmp/bench.err.$$
}

show() {
	local var=$1; shift
	local w c r
	eval "w=\$${var}_wall c=\$${var}_cpu r=\$${var}_rss"
	printf '%-28s %7.2f s wall %7.2f s CPU %7.2f M events/s %8d KiB peak RSS\n' "$*" "$w" "$c" \
		"$(echo "$events / $c / 1000000" | bc -l)" "$r" | sed "s|$trace|TRACE|; s|$TIO|traceio|"
}

# pair A B: traceio's command A and the peer's B run in turn REPS times (a
# slow spell of a shared machine then hits both), the best run of each kept
REPS=${REPS:-5}
pair() {
	local a=$1 b=$2
	eval "${a}_wall= ${b}_wall="
	for ((i = 0; i < REPS; i++)); do
		one "$a" "${cmd[@]}"
		one "$b" "${peer[@]}"
	done
	show "$a" "${cmd[@]}"
	show "$b" "${peer[@]}"
}

events=$("$TIO" info --count "$trace" | awk '/^  events:/ {s += $2} END {print s}')
echo "trace: $trace: $events events, $(du -sh --apparent-size "$trace" | cut -f1)"
cmd=("$TIO" print -o dummy "$trace") peer=(babeltrace2 -o dummy "$trace")
pair td bd
cmd=("$TIO" print "$trace") peer=(babeltrace2 "$trace")
pair tt bt
ratio() { printf '%s: traceio is %.1fx faster than babeltrace2 (wall), %.1fx (CPU)\n' "$1" \
	"$(echo "$2 / $3" | bc -l)" "$(echo "$4 / $5" | bc -l)"; }
ratio "decode only (-o dummy)" "$bd_wall" "$td_wall" "$bd_cpu" "$td_cpu"
ratio "text                  " "$bt_wall" "$tt_wall" "$bt_cpu" "$tt_cpu"
"$top/bench/rtime.py" -f '%M' -o /tmp/bench.$$ "$TIO" print -o dummy "$small" >/dev/null
echo "memory: traceio peak RSS $(cat /tmp/bench.$$) KiB on $(du -sh --apparent-size "$small" | cut -f1) ($small), $td_rss KiB on the big trace"
rm -f /tmp/bench.$$
