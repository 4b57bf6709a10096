#!/bin/bash
# Python: traceio's module against babeltrace2's Python bindings (python3-bt2),
# side by side in one run, on the big LTTng-UST trace of bench/ctf.sh.
# Usage: bench/python.sh [BIG_TRACE_DIR [BIG_TRACE_DAT]]
#   Without BIG_TRACE_DIR: bench/.data/lttng/ust-big, recorded as bench/ctf.sh
#   does (../shared/tools/make-lttng.sh; root, lttng-tools, liblttng-ust-dev).
#   Also columns() on the trace's corpus:ints and corpus:enums events alone
#   (traceio convert -n into bench/.data/ust-big-CLASS), where no other class is decoded.
#   BIG_TRACE_DAT (optional, e.g. bench/tracedat.sh's /tmp/tio-bench/big-v6.dat):
#   dataframes() against `trace-cmd report` printing it.
# Env: BUILD (default build: the module in BUILD/python, `make build`),
#   BT2_EVENTS (babeltrace2 reads only that many events, its rate then stands for
#   the whole trace; default 0 = all: ~2.5 to 4 minutes), REPS (traceio runs, best kept, default 3).
# Prints, for each: events (rows), wall and CPU seconds, events/s on CPU time,
# then the ratios (CPU time: on a shared machine the figure to trust), and
# columns()'s peak RSS against the arrays it returns.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
PY=/usr/bin/python3
trace=${1:-}
dat=${2:-}
if [ -z "$trace" ]; then
	data=$top/bench/.data
	if [ ! -d "$data/lttng/ust-big" ]; then
		mkdir -p "$data"
		bash "$top/../shared/tools/make-lttng.sh" "$data/lttng" >/dev/null
	fi
	trace=$data/lttng/ust-big
fi
[ -f "$BUILD/python/traceio/__init__.py" ] || "$top/python/build.sh" "$BUILD"
export PYTHONPATH=$BUILD/python TZ=UTC LC_ALL=C
B="$PY $top/bench/python-bench.py"
REPS=${REPS:-3}

# best CMD...: the run with the least CPU time of REPS; sets out="events rows wall cpu extra" and rss (KiB)
best() {
	local r line cpu bestcpu=
	for ((r = 0; r < REPS; r++)); do
		line=$("$top/bench/rtime.py" -f '%M' -o /tmp/pybench.$$ "$@")
		cpu=$(echo "$line" | awk '{print $4}')
		if [ -z "$bestcpu" ] || [ "$(echo "$cpu < $bestcpu" | bc -l)" = 1 ]; then
			bestcpu=$cpu out=$line rss=$(cat /tmp/pybench.$$)
		fi
	done
	rm -f /tmp/pybench.$$
}
show() { # LABEL "events rows wall cpu extra"
	local n rows w c x
	read -r n rows w c x <<<"$2"
	local k=$n; [ "$n" = 0 ] && k=$rows
	printf '%-68s %9d %7.2f s wall %7.2f s CPU %8.3f M/s\n' "$1" "$k" "$w" "$c" "$(echo "$k / $c / 1000000" | bc -l)"
}
rate() { echo "$1" | awk '{k = $1 ? $1 : $2; printf "%.3f\n", k / $4}'; }

echo "trace: $trace ($(du -sh --apparent-size "$trace" | cut -f1)); $(nproc) CPUs; $(date -u +%F)"
BT2_EVENTS=${BT2_EVENTS:-0}
saved=$REPS; REPS=1
best $B bt2 "$trace" "$BT2_EVENTS"; bt=$out
REPS=$saved
best $B tio "$trace"; tio=$out
best $B tio-keys "$trace"; keys=$out
best $B columns "$trace" corpus:ints; cols=$out; cols_rss=$rss
# one class alone in a trace (traceio convert -n): columns() without the other classes' decoding;
# corpus:ints (17 integer fields) and corpus:enums (3)
alone=()
for cls in ints enums; do
	d=$top/bench/.data/ust-big-$cls
	if [ ! -d "$d" ] && [ "$trace" = "$top/bench/.data/lttng/ust-big" ]; then
		"$BUILD/traceio" convert -q -n corpus:$cls -o "$d" "$trace"
	fi
	[ -d "$d" ] && { best $B columns "$d" corpus:$cls; alone+=("corpus:$cls|$out"); }
done
"$top/bench/rtime.py" -f '%M' -o /tmp/pybench.$$ $PY -c 'import numpy, traceio' ; base_rss=$(cat /tmp/pybench.$$); rm -f /tmp/pybench.$$
show "babeltrace2 bindings: every payload field as a Python value" "$bt"
show "traceio: for ev in trace: ev.payload" "$tio"
show "traceio: for ev in trace: ev[k] for k in ev.keys()" "$keys"
show "traceio: trace.columns('corpus:ints') (rows)" "$cols"
events=$(echo "$tio" | awk '{print $1}')
printf '%-68s %9d events scanned: %.2f M events/s\n' "  (columns() decodes every event of the trace)" "$events" \
	"$(echo "$events / $(echo "$cols" | awk '{print $4}') / 1000000" | bc -l)"
for a in "${alone[@]}"; do
	show "traceio: columns('${a%%|*}'), a trace of that class alone (rows)" "${a#*|}"
done
bts=$(rate "$bt")
printf 'iteration, every payload field: traceio %.1fx faster than babeltrace2 bindings (ev.payload), %.1fx (ev[k])\n' \
	"$(echo "$(rate "$tio") / $bts" | bc -l)" "$(echo "$(rate "$keys") / $bts" | bc -l)"
printf 'columns(): %.1fx the babeltrace2 bindings'"'"' events/s in rows/s\n' "$(echo "$(rate "$cols") / $bts" | bc -l)"
arr_kib=$(( $(echo "$cols" | awk '{print $5}') / 1024 ))
printf 'columns() memory: peak RSS %d KiB = %d KiB (python3 + numpy + traceio imported) + %d KiB; arrays %d KiB; over the arrays: %d KiB (limit 65536)\n' \
	"$cols_rss" "$base_rss" "$((cols_rss - base_rss))" "$arr_kib" "$((cols_rss - base_rss - arr_kib))"

if [ -n "$dat" ]; then
	tcbest=
	for ((r = 0; r < REPS; r++)); do
		"$top/bench/rtime.py" -f '%e %U %S' -o /tmp/pybench.$$ trace-cmd report -i "$dat" >/dev/null 2>&1
		c=$(awk '{print $2 + $3}' /tmp/pybench.$$)
		if [ -z "$tcbest" ] || [ "$(echo "$c < $tcbest" | bc -l)" = 1 ]; then tcbest=$c tcwall=$(awk '{print $1}' /tmp/pybench.$$); fi
	done
	rm -f /tmp/pybench.$$
	best $B frames "$dat"; fr=$out
	echo "trace.dat: $dat ($(du -sh --apparent-size "$dat" | cut -f1))"
	printf '%-68s %9s %7.2f s wall %7.2f s CPU\n' "trace-cmd report (text to /dev/null)" "" "$tcwall" "$tcbest"
	show "traceio: trace.dataframes() (rows)" "$fr"
	printf 'dataframes(): %.1fx faster than trace-cmd report (CPU time)\n' "$(echo "$tcbest / $(echo "$fr" | awk '{print $4}')" | bc -l)"
fi
