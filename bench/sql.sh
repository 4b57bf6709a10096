#!/bin/bash
# SQL over a big trace (docs/sql.md), side by side in one run:
#   1. `SELECT name, count(*) FROM events GROUP BY name` with `traceio sql`
#      against `babeltrace2 TRACE -o dummy` decoding the same trace (the
#      cheapest thing babeltrace2 does with it), with peak RSS;
#   2. a ts-bounded query (1 ms in the middle of the trace: the bound goes to
#      the reader's begin/end) against the same count made by a full scan
#      (`ts + 0 BETWEEN ...` keeps SQLite from handing the bound over);
#   3. with TRACEDAT=FILE (a big trace.dat, e.g. from ../shared/tools/make-ftrace.sh):
#      the GROUP BY against `trace-cmd report | awk | sort | uniq -c`.
# Best of REPS (default 3) runs each.
# Usage: bench/sql.sh [TRACE]   (default: bench/.data/lttng/ust-big)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$top/build}
trace=${1:-$top/bench/.data/lttng/ust-big}
REPS=${REPS:-3}
T=$B/traceio
[ -x "$T" ] || { echo "build first: make build" >&2; exit 1; }
[ -d "$trace" ] || [ -f "$trace" ] || { echo "no trace $trace (bench/ctf.sh records one)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best NAME CMD...: run REPS times, keep the best wall time (s) and its peak RSS (KB)
declare -A best rss
run() {
	local name=$1
	shift
	for _ in $(seq "$REPS"); do
		"$top/bench/rtime.py" -f '%e %M' -o "$tmp/t" "$@" >"$tmp/$name.out" 2>/dev/null
		read -r t m <"$tmp/t"
		if [ -z "${best[$name]:-}" ] || [ "$(echo "$t < ${best[$name]}" | bc -l)" = 1 ]; then
			best[$name]=$t
			rss[$name]=$m
		fi
	done
}
q='SELECT name, count(*) FROM events GROUP BY name'
run sql "$T" sql --csv "$trace" "$q"
run bt2 babeltrace2 "$trace" -o dummy
events=$(awk -F, 'NR > 1 {n += $2} END {print n}' "$tmp/sql.out")
echo "trace $trace: $events events; best of $REPS"
printf '%-44s %7.2f s  peak RSS %4d MB\n' "traceio sql '$q'" "${best[sql]}" $((rss[sql] / 1024))
printf '%-44s %7.2f s  peak RSS %4d MB\n' "babeltrace2 -o dummy" "${best[bt2]}" $((rss[bt2] / 1024))
printf '  -> %.1fx babeltrace2\n' "$(echo "${best[bt2]} / ${best[sql]}" | bc -l)"

read -r lo hi < <("$T" sql --csv --no-header "$trace" 'SELECT min(ts), max(ts) FROM events' | tr , ' ')
a=$(((lo + hi) / 2))
b=$((a + 1000000))
run bounded "$T" sql --csv --no-header "$trace" "SELECT count(*) FROM events WHERE ts BETWEEN $a AND $b"
run full "$T" sql --csv --no-header "$trace" "SELECT count(*) FROM events WHERE ts + 0 BETWEEN $a AND $b"
[ "$(cat "$tmp/bounded.out")" = "$(cat "$tmp/full.out")" ] || { echo "bounded and full scan differ" >&2; exit 1; }
printf '%-44s %7.2f s  (%s rows)\n' "ts BETWEEN (1 ms mid-trace, bound pushed)" "${best[bounded]}" "$(cat "$tmp/bounded.out")"
printf '%-44s %7.2f s\n' "ts + 0 BETWEEN (the same by a full scan)" "${best[full]}"
printf '  -> %.1fx faster with the bound\n' "$(echo "${best[full]} / ${best[bounded]}" | bc -l)"

if [ -n "${TRACEDAT:-}" ]; then
	run sqldat "$T" sql --csv "$TRACEDAT" "$q"
	run tc sh -c "trace-cmd report -i '$TRACEDAT' 2>/dev/null | awk '{for (i = 1; i <= NF; i++) if (\$i ~ /^[0-9]+\\.[0-9]+:\$/) {print \$(i + 1); break}}' | sort | uniq -c"
	printf '%-44s %7.2f s  peak RSS %4d MB\n' "traceio sql on $(basename "$TRACEDAT")" "${best[sqldat]}" $((rss[sqldat] / 1024))
	printf '%-44s %7.2f s\n' "trace-cmd report | awk | sort | uniq -c" "${best[tc]}"
	printf '  -> %.1fx trace-cmd report\n' "$(echo "${best[tc]} / ${best[sqldat]}" | bc -l)"
fi
