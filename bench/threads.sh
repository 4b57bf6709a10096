#!/bin/bash
# Decoding on several cores: `traceio print -o dummy` (decode only) with
# TIO_THREADS=1 and with more threads, next to `babeltrace2 -o dummy` on the
# same CTF trace (and, for trace.dat, events per second); also `info
# --count`, `check`, the text and JSON styles (print -o dummy, info --count and check with
# TIO_THREADS=N > 1 read the trace in N parts, one thread each: src/cli/parts.c;
# the others hand messages from worker threads to the caller's: src/mux/pipe.c).
# Elapsed time (the figure threads
# improve), CPU time (user + sys) and peak RSS; each command REPS times
# (default 5), the fastest run kept.
# Usage: bench/threads.sh [CTF_TRACE [TRACE_DAT]]
#   defaults: bench/.data/lttng/ust-big (../shared/tools/make-lttng.sh) and
#   /tmp/tio-bench/big-v6.dat (bench/tracedat.sh records it)
#   THREADS="1 2" the thread counts to run (default: 1, 2 and the CPUs online)
#   CACHE=disk: the traces dropped from the page cache and read back first
#   (bench/pagecache.sh; default CACHE=keep: as they are)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
REPS=${REPS:-5}
ctf=${1:-$top/bench/.data/lttng/ust-big}
dat=${2:-/tmp/tio-bench/big-v6.dat}
ncpu=$(nproc)
THREADS=${THREADS:-$(echo 1 2 "$ncpu" | tr ' ' '\n' | sort -un | tr '\n' ' ')}
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
export TZ=UTC LC_ALL=C
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-threads.XXXXXX")
trap 'rm -rf "$work"' EXIT

# best CMD...: the fastest of REPS runs (elapsed, to the microsecond:
# bench/rtime.py); sets wall, cpu, rss
best() {
	local k w u s m
	wall= cpu= rss=
	for ((k = 0; k < REPS; k++)); do
		"$top/bench/rtime.py" -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
			{ echo "failed: $* $(tail -2 "$work/err")" >&2; exit 1; }
		read -r w u s m < <(tail -1 "$work/time")
		if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc -l)" = 1 ]; then
			wall=$w cpu=$(echo "$u + $s" | bc -l) rss=$m
		fi
	done
	[ "$(echo "$wall < 0.001" | bc -l)" = 1 ] && wall=0.001
	return 0
}

line() { # LABEL EVENTS [REF_WALL]
	local ratio=""
	[ -n "${3:-}" ] && ratio=$(printf '  %5.1fx babeltrace2' "$(echo "$3 / $wall" | bc -l)")
	printf '  %-44s %6.3f s %6.2f s CPU %6.1f M ev/s %7d KiB%s\n' "$1" "$wall" "$cpu" \
		"$(echo "$2 / $wall / 1000000" | bc -l)" "$rss" "$ratio"
}

CACHE=${CACHE:-keep}
for p in "$ctf" "$dat"; do
	if [ -e "$p" ]; then "$top/bench/pagecache.sh" "$CACHE" "$p"; fi
done
echo "machine: $ncpu CPUs online; $(date -u +%F); page cache: $CACHE"
if [ -e "$ctf" ]; then
	ev=$(TIO_THREADS=1 "$TIO" info --count "$ctf" | awk '/^  events:/ {s += $2} END {print s + 0}')
	echo "CTF: $ctf ($ev events, $(du -sh "$ctf" | cut -f1))"
	ref=
	if command -v babeltrace2 >/dev/null; then
		best babeltrace2 -o dummy "$ctf"
		ref=$wall
		line "babeltrace2 -o dummy" "$ev"
	fi
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" print -o dummy "$ctf"
		line "traceio print -o dummy, TIO_THREADS=$t" "$ev" "$ref"
	done
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" info --count "$ctf"
		line "traceio info --count, TIO_THREADS=$t" "$ev"
	done
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" check "$ctf"
		line "traceio check, TIO_THREADS=$t" "$ev"
	done
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" print "$ctf"
		line "traceio print (text), TIO_THREADS=$t" "$ev"
	done
fi
if [ -e "$dat" ]; then
	ev=$(TIO_THREADS=1 "$TIO" info --count "$dat" | awk '/^  events:/ {s += $2} END {print s + 0}')
	echo "trace.dat: $dat ($ev events, $(du -sh "$dat" | cut -f1))"
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" print -o dummy "$dat"
		line "traceio print -o dummy, TIO_THREADS=$t" "$ev"
	done
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" check "$dat"
		line "traceio check, TIO_THREADS=$t" "$ev"
	done
	for t in $THREADS; do
		best env TIO_THREADS="$t" "$TIO" print --style trace-cmd "$dat"
		line "traceio print --style trace-cmd, TIO_THREADS=$t" "$ev"
	done
fi
