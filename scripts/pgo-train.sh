#!/bin/bash
# The training run of the profile-guided build: the CLI of BUILD_DIR on the
# bundled real traces (tests/data), in the ways users run it most: decode,
# babeltrace2 and trace-cmd text, JSON, info, conversions.
#   scripts/pgo-train.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
t=$1/traceio
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TZ=UTC LC_ALL=C
# one thread: the decoders run the same code on worker threads, and a profile
# made there (counters updated atomically: CMakeLists.txt) weighs them otherwise
export TIO_THREADS=1
for ctf in "$top"/tests/data/ctf/lttng-ust-discard "$top"/tests/data/ctf/wk-heartbeat-u; do
	for i in 1 2 3; do
		"$t" print -o dummy "$ctf" >/dev/null 2>&1
		"$t" print "$ctf" >/dev/null 2>&1
	done
	"$t" print --style json "$ctf" >/dev/null 2>&1
	"$t" info --count "$ctf" >/dev/null
	"$t" convert -q -o "$out/ctf-$RANDOM" "$ctf" 2>/dev/null
done
for dat in "$top"/tests/data/ftrace/*.dat; do
	for opt in "" -t -R; do
		"$t" print $opt "$dat" >/dev/null 2>&1
	done
	"$t" print -o dummy "$dat" >/dev/null 2>&1
	"$t" convert -q -o "$out/copy-$RANDOM.dat" "$dat" 2>/dev/null
done
# Parquet, its compression inline: with the compression thread (and counters that were
# not atomic then) the profile slowed the decoders by 60%
for tr in "$top"/tests/data/ctf/lttng-ust-discard "$top"/tests/data/ftrace/*.dat; do
	TIO_PQ_THREADS=0 "$t" convert -q --to parquet -o "$out/pq-$RANDOM" "$tr" 2>/dev/null
done
