#!/bin/bash
# The value API's cost on a big LTTng-UST trace (bench/api-read.c): reading
# the events of one class and one payload field through a reference resolved
# once, through a path lookup per event, or every payload field, against
# decoding alone. Best of REPS (default 3) runs each; events/s and ns per value.
# Usage: bench/api.sh [TRACE [CLASS [PATH]]]   (default: bench/.data/lttng/ust-big, corpus:ints, payload.s64)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$top/build}
trace=${1:-$top/bench/.data/lttng/ust-big}
cls=${2:-corpus:ints}
path=${3:-payload.s64}
REPS=${REPS:-3}
[ -f "$B/libtraceio.so" ] || { echo "build first: make build" >&2; exit 1; }
[ -d "$trace" ] || { echo "no trace $trace (bench/ctf.sh records one)" >&2; exit 1; }
exe=$(mktemp)
trap 'rm -f "$exe" "$exe.t" "$exe.o"' EXIT
cc -O2 -I"$top/include" "$top/bench/api-read.c" -L"$B" -ltraceio -Wl,-rpath,"$B" -o "$exe"
declare -A best out
for r in $(seq "$REPS"); do
	for mode in none ref lookup all; do
		"$top/bench/rtime.py" -f '%e' -o "$exe.t" "$exe" $mode "$trace" "$cls" "$path" >"$exe.o"
		t=$(cat "$exe.t")
		if [ -z "${best[$mode]:-}" ] || [ "$(echo "$t < ${best[$mode]}" | bc -l)" = 1 ]; then best[$mode]=$t; fi
		out[$mode]=$(cat "$exe.o")
	done
done
events=$(awk '{print $1}' <<<"${out[none]}")
echo "trace $trace: $events events; class $cls, path $path; best of $REPS"
for mode in none ref lookup all; do
	vals=$(awk '{print $3}' <<<"${out[$mode]}")
	extra=$(echo "${best[$mode]} - ${best[none]}" | bc -l)
	per=$( [ "$vals" -gt 0 ] && echo "scale=1; $extra * 1000000000 / $vals" | bc -l || echo -)
	printf '%-7s %6.2f s  %6.1f M events/s  %9s values  %s ns per value over decoding\n' \
		"$mode" "${best[$mode]}" "$(echo "$events / ${best[$mode]} / 1000000" | bc -l)" "$vals" "$per"
done
