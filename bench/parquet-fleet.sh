#!/bin/bash
# A fleet's traces to Parquet, one run: N inputs (hosts/hK/trace.dat, links to one
# trace.dat) converted by one `traceio convert --to parquet -o OUT hosts/*/trace.dat`
# on one thread (TIO_THREADS=1: one input after another, its pages compressed on a
# second thread) and as it runs by default (a thread per range of the inputs,
# src/cli/convert.c convert_each), and, for comparison, as the docs' alternative
# does it: one conversion per trace, `nproc` at a time (xargs -P, TIO_THREADS=1).
# Reports wall and CPU time, peak RSS (of the one command; the xargs run's is a
# single conversion's) and the ratios; checks that the two one-command outputs
# hold the same files (the same names and sizes: row groups may end elsewhere,
# each thread having its share of --buffer-size).
# Usage: bench/parquet-fleet.sh [TRACE.dat]
#   TRACE.dat: default a ~3 MB recording made with ../shared/tools/tc-ns.sh
#     (`-e syscalls -e sched -e irq` around `ls -R /usr`; root and tracefs) in $WORK.
#   N=40 inputs; REPS=3 (the run with the least CPU time counts); WORK=/tmp/tio-bench.
#   TMPDIR: where the outputs go (default /tmp).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
N=${N:-40}
REPS=${REPS:-3}
WORK=${WORK:-/tmp/tio-bench}
export TZ=UTC LC_ALL=C
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
mkdir -p "$WORK"
t=${1:-$WORK/fleet-host.dat}
if [ ! -f "$t" ]; then
	echo "recording $t ..." >&2
	( cd "$WORK" && "$top/../shared/tools/tc-ns.sh" trace-cmd record -o "$t" -e syscalls -e sched -e irq \
		sh -c "ls -R /usr > /dev/null; ls -R /usr/share > /dev/null" > "$WORK/fleet-record.log" 2>&1 ) ||
		{ echo "recording failed: $(tail -3 "$WORK/fleet-record.log")" >&2; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-fleet.XXXXXX")
trap 'rm -rf "$work"' EXIT
for ((k = 1; k <= N; k++)); do
	mkdir -p "$work/hosts/h$k"
	ln -s "$(realpath "$t")" "$work/hosts/h$k/trace.dat"
done
"$top/bench/pagecache.sh" keep "$t"
ev=$("$TIO" info --count "$t" | awk '/^  events:/ {s += $2} END {print s + 0}')
echo "== $N inputs of $t: $ev events each, $(du -shL "$t" | cut -f1) each"

# run NAME CMD...: one run, the one with the least CPU time of each NAME kept in bcpu, bwall,
# brss (bench/lib.sh; the caller's loop alternates the commands)
source "$top/bench/lib.sh"
run() {
	rm -rf "$work/out" "$work/runs"
	bench_keep "$@"
}
one() { env TIO_THREADS=1 "$TIO" convert -q --to parquet -o "$work/out" "$work"/hosts/*/trace.dat; }
each() {
	mkdir -p "$work/runs"
	ls -d "$work"/hosts/* | TIO_THREADS=1 xargs -P "$(nproc)" -I{} sh -c \
		"\"$TIO\" convert -q --to parquet --partition-by trace -o \"$work/runs/\$(basename {})\" {}/trace.dat"
}
export -f one each
export TIO work
for ((r = 0; r < REPS; r++)); do
	run one bash -c one
	(cd "$work/out" && find . -type f -printf '%p %s\n' | sort) > "$work/one.sizes"
	run default "$TIO" convert -q --to parquet -o "$work/out" "$work"/hosts/*/trace.dat
	(cd "$work/out" && find . -type f -printf '%p\n' | sort) > "$work/default.files"
	run xargs bash -c each
done
cut -d' ' -f1 "$work/one.sizes" | cmp -s - "$work/default.files" && same="the same files" || same="OTHER FILES"
for k in one default xargs; do
	case $k in
	one) label="one command, TIO_THREADS=1" ;;
	default) label="one command, default threads" ;;
	xargs) label="xargs -P $(nproc), one per trace" ;;
	esac
	printf '%-34s %7.2f s wall %7.2f s CPU %6.2f M ev/s %7d KiB peak RSS\n' "$label" "${bwall[$k]}" "${bcpu[$k]}" \
		"$(echo "$N * $ev / ${bwall[$k]} / 1000000" | bc -l)" "${brss[$k]}"
done
printf 'default threads against one: %.2fx wall, %.2fx CPU; against xargs: %.2fx wall (%s)\n' \
	"$(echo "${bwall[default]} / ${bwall[one]}" | bc -l)" "$(echo "${bcpu[default]} / ${bcpu[one]}" | bc -l)" \
	"$(echo "${bwall[default]} / ${bwall[xargs]}" | bc -l)" "$same"
