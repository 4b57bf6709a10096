#!/bin/bash
# Parquet conversion speed, one run: `traceio convert --to parquet` against
# traceio's decode-only time (`print -o dummy` on one thread, and as it runs
# by default: in parts on every core) of the same trace, output
# size against the input's, peak RSS, then DuckDB queries on the output
# (count(*) GROUP BY name on events.parquet; a GROUP BY on a class file).
# Usage: bench/parquet.sh [TRACE...]
#   TRACE: default bench/.data/lttng/ust-big (5.4 M-event LTTng-UST trace;
#     recorded with ../shared/tools/make-lttng.sh when missing, see
#     bench/convert.sh), and /work/cache/ftrace-big/big-v6.dat (or
#     /tmp/tio-bench/big-v6.dat) when it exists.
#   COMPRESSION=none|zstd|snappy (default zstd; then also converted without
#   compressing, to show what the codec costs); REPS=N: N rounds of the
#   commands in turn, each keeping its run with the least CPU time (default 1).  TIO_PQ_THREADS=0: pages compressed
#   on the decoding thread; TIO_THREADS=1: no decoding worker (both apply to
#   the decode-only run too when they concern it).  CACHE=disk: the traces
#   read back as from disk first (bench/pagecache.sh).
# Peers: DuckDB and polars write the same tables again (bench/parquet-peers.mjs:
# the tables loaded into memory first, only their writing timed, zstd at LEVEL,
# default 1 as traceio's, on every CPU); PEERS=0 leaves them out.
# DuckDB comes from tests/parquet/duckdb-setup.sh (npm @duckdb/node-api).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TIO=${TIO:-$top/build/traceio}
REPS=${REPS:-1}
COMPRESSION=${COMPRESSION:-zstd}
export TZ=UTC LC_ALL=C
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
	for t in "$top/bench/.data/lttng/ust-big" /work/main/bench/.data/lttng/ust-big /work/cache/lttng/ust-big; do
		[ -d "$t" ] && { traces+=("$t"); break; }
	done
	for t in /work/cache/ftrace-big/big-v6.dat /tmp/tio-bench/big-v6.dat; do
		[ -f "$t" ] && { traces+=("$t"); break; }
	done
fi
[ ${#traces[@]} -gt 0 ] || { echo "no trace: record one with ../shared/tools/make-lttng.sh" >&2; exit 1; }
[ -x "$TIO" ] || { echo "build first: make build" >&2; exit 1; }
"$top/bench/pagecache.sh" "${CACHE:-keep}" "${traces[@]}"
echo "page cache: ${CACHE:-keep}"
work=$(mktemp -d "${TMPDIR:-/tmp}/tio-bench-parquet.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run NAME CMD...: one run; the one with the least CPU time of each NAME is kept (bcpu, bwall,
# brss).  The callers alternate the commands, REPS rounds of each in turn, so that the
# machine's drift over minutes touches every command alike (before session 21 each command's
# REPS ran in a row: the same build's UST ratio was 3.46x in one run and 2.74x in another)
source "$top/bench/lib.sh"
run() {
	rm -rf "$work/out"
	bench_keep "$@"
}

for t in "${traces[@]}"; do
	n=$("$TIO" info --count "$t" | awk '/^  events:/ {s += $2} END {print s + 0}')
	echo "== $t: $n events, $(du -sh "$t" | cut -f1) ($COMPRESSION)"
	bcpu=() bwall=() brss=() bwalls=()
	for ((k = 0; k < REPS; k++)); do
		# decode-only on one thread (the figure this bench has compared with), and as
		# print -o dummy runs by default (in parts on every core: src/cli/parts.c)
		run decode1 env TIO_THREADS=1 "$TIO" print -o dummy "$t"
		run decode "$TIO" print -o dummy "$t"
		# the same without compressing: what the codec costs, and what remains without it
		[ "$COMPRESSION" = none ] ||
			run none "$TIO" convert -q --to parquet --compression none -o "$work/out" "$t"
		run convert "$TIO" convert -q --to parquet --compression "$COMPRESSION" -o "$work/out" "$t" # last: its OUT stays
	done
	dcpu=${bcpu[decode1]} dwall=${bwall[decode1]} pwall=${bwall[decode]}
	printf '%-28s %7.2f s wall %7.2f s CPU %6.2f M ev/s %7d KiB peak RSS\n' "decode, one thread" "$dwall" "$dcpu" \
		"$(echo "$n / $dwall / 1000000" | bc -l)" "${brss[decode1]}"
	printf '%-28s %7.2f s wall %7.2f s CPU %6.2f M ev/s %7d KiB peak RSS\n' "decode, default (in parts)" "$pwall" \
		"${bcpu[decode]}" "$(echo "$n / $pwall / 1000000" | bc -l)" "${brss[decode]}"
	[ "$COMPRESSION" = none ] ||
		printf '%-28s %7.2f s wall %7.2f s CPU (%.2fx the one-thread decode'"'"'s CPU)\n' "convert --compression none" \
			"${bwall[none]}" "${bcpu[none]}" "$(echo "${bcpu[none]} / $dcpu" | bc -l)"
	wall=${bwall[convert]} cpu=${bcpu[convert]} rss=${brss[convert]}
	printf '%-28s %7.2f s wall %7.2f s CPU %6.2f M ev/s %7d KiB peak RSS\n' "convert --to parquet" "$wall" "$cpu" \
		"$(echo "$n / $wall / 1000000" | bc -l)" "$rss"
	in_b=$(du -sb "$t" | cut -f1)
	out_b=$(du -sb "$work/out" | cut -f1)
	printf 'ratio to decode on one thread: %.2fx wall, %.2fx CPU (to the default decode: %.2fx wall); output %s (%.1f%% of the input, %d files); peak RSS %d MiB\n' \
		"$(echo "$wall / $dwall" | bc -l)" "$(echo "$cpu / $dcpu" | bc -l)" "$(echo "$wall / $pwall" | bc -l)" "$(du -sh "$work/out" | cut -f1)" \
		"$(echo "100 * $out_b / $in_b" | bc -l)" "$(find "$work/out" -name '*.parquet' | wc -l)" $((rss / 1024))
	# the wall times of every round: the line above takes each command's least-CPU run, whose
	# wall time in parts moves with the machine (the decode's: 0.11-0.18 s for trace.dat)
	printf 'wall time over %d rounds, to the default decode: %s; to the one-thread decode: %s\n' "$REPS" \
		"$(bench_ratios decode convert)" "$(bench_ratios decode1 convert)"
	if nm=$("$top/tests/parquet/duckdb-setup.sh" 2> /dev/null); then
		big=$(ls -S "$work/out"/*.parquet | grep -v '/events.parquet$' | head -1)
		for q in "SELECT name, count(*) AS n FROM '$work/out/events.parquet' GROUP BY name ORDER BY n DESC LIMIT 3" \
			"SELECT cpu, count(*) AS n, min(ts) AS first, max(ts) AS last FROM '$big' GROUP BY cpu ORDER BY cpu LIMIT 4"; do
			s0=$(date +%s.%N)
			res=$(TIO_NODE_MODULES=$nm node "$top/tests/parquet/duck.mjs" sql "$q")
			s1=$(date +%s.%N)
			printf 'DuckDB %.2f s (node start included): %s\n  -> %s\n' "$(echo "$s1 - $s0" | bc -l)" "$q" "$res"
		done
		# the peers' writers on the same tables (bench/parquet-peers.mjs: loaded into memory
		# first, only the writing timed), against the whole conversion (the trace read too)
		if [ "$COMPRESSION" = zstd ] && [ "${PEERS:-1}" != 0 ]; then
			TIO_NODE_MODULES=$nm node "$top/bench/parquet-peers.mjs" "$work/out" "$work/peer" "$(nproc)" \
				"${LEVEL:-1}" "$REPS" > "$work/peers" 2> "$work/err" ||
				echo "(the peers' writers failed: $(grep -m1 Error "$work/err" || tail -1 "$work/err"))"
			while read -r line; do
				echo "$line" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read()); wall, cpu, out_b = map(float, sys.argv[1:4])
print("%-28s %7.2f s wall %7.2f s CPU %6.1f MB  (writing only; traceio reads and converts in %.2fx that wall time, %.2fx that CPU time, %.1f MB of .parquet files)"
      % (r["writer"] + " writes the same", r["wall_s"], r["cpu_s"], r["bytes"] / 1e6, wall / r["wall_s"], cpu / r["cpu_s"], out_b / 1e6))
if r["rows_written"] != r["rows"]: print("  (it wrote %d rows of %d: not the same work)" % (r["rows_written"], r["rows"]))' \
					"$wall" "$cpu" "$(find "$work/out" -maxdepth 1 -name '*.parquet' -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
			done < "$work/peers"
		fi
	else
		echo "(DuckDB not installed: tests/parquet/duckdb-setup.sh)"
	fi
done
