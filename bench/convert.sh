#!/bin/bash
# Conversion speed: `traceio convert` (CTF 1.8 writer) against
# `babeltrace2 IN -o ctf -w OUT` on a big LTTng-UST trace; then both outputs
# are read back by traceio and compared with the input (event count).
# Usage: bench/convert.sh [TRACE_DIR]
#   Without TRACE_DIR: /work/cache/lttng/ust-big when it exists, else one is
#   recorded (~5.4 M events) with ../shared/tools/make-lttng.sh into bench/.data/.
# Prints wall time, events/s, peak RSS and output size of each, and the ratio.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
trace=${1:-}
if [ -z "$trace" ]; then
	if [ -d /work/cache/lttng/ust-big ]; then
		trace=/work/cache/lttng/ust-big
	else
		data=$top/bench/.data
		[ -d "$data/lttng/ust-big" ] || { mkdir -p "$data"; bash "$top/../shared/tools/make-lttng.sh" "$data/lttng" >/dev/null; }
		trace=$data/lttng/ust-big
	fi
fi
export TZ=UTC LC_ALL=C
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
command -v babeltrace2 >/dev/null || { echo "babeltrace2 is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-convert.XXXXXX")
trap 'rm -rf "$work"' EXIT

events=$("$TIO" info "$trace" | awk '/^  events:/ {s += $2} END {print s}')
echo "input: $trace ($events events, $(du -sh "$trace" | cut -f1))"

# run NAME OUT CMD...: wall time of one run (the second of two for traceio: warm cache)
run() {
	local name=$1 out=$2; shift 2
	rm -rf "$out"
	local t0 t1
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>"$work/err" || { echo "$name failed: $(tail -2 "$work/err")" >&2; exit 1; }
	t1=$(date +%s.%N)
	last=$(echo "$t1 - $t0" | bc -l)
	local n
	n=$("$TIO" info "$out" | awk '/^  events:/ {s += $2} END {print s}')
	printf '%-28s %8.2f s  %6.2f M events/s  %7d KiB peak RSS  %6s out  %s events read back\n' "$name" "$last" \
		"$(echo "$events / $last / 1000000" | bc -l)" "$(cat "$work/rss")" "$(du -sh "$out" | cut -f1)" "$n"
	[ "$n" = "$events" ] || { echo "$name: $n events in the output, $events in the input" >&2; exit 1; }
}

"$TIO" print -o dummy "$trace" >/dev/null 2>&1 || true # warm the page cache
run "traceio convert" "$work/tio" "$TIO" convert -q -o "$work/tio" "$trace"
t_tio=$last
run "babeltrace2 -o ctf" "$work/bt2" babeltrace2 "$trace" -o ctf -w "$work/bt2"
t_bt=$last
printf 'traceio convert is %.1fx as fast as babeltrace2 -o ctf\n' "$(echo "$t_bt / $t_tio" | bc -l)"
