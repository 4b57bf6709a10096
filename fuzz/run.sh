#!/bin/bash
# Run fuzz targets one after the other, each for SECS seconds of wall time,
# on one core at low priority, and record what they did.
#
#   make fuzz                      # builds build-fuzz/ (clang, libFuzzer, ASan+UBSan)
#   fuzz/run.sh 1800 [TARGET...]   # default: every fuzz/*_fuzzer.c
#
# Each target starts from fuzz/corpora/<target>/ and keeps what it finds in
# build-fuzz/work/<target>/ (not in the repo).  Crashes, leaks and timeouts
# go to build-fuzz/findings/<target>-*: replay one with
# build-fuzz/<target>-replay FILE, fix it, and add the file to
# fuzz/corpora/<target>/found-<what> so tests/fuzz/test-replay.sh keeps it
# fixed.  build-fuzz/run/<target>.{log,time} hold libFuzzer's log and the
# CPU time used (user + sys, children included).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build-fuzz
secs=${1:-1800}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$top"/fuzz/*_fuzzer.c; do t=$(basename "$f" .c); targets+=("${t%_fuzzer}"); done
fi
mkdir -p "$b/run" "$b/findings"
for t in "${targets[@]}"; do
	[ -x "$b/${t}_fuzzer" ] || { echo "$t: no $b/${t}_fuzzer (make fuzz)"; continue; }
	mkdir -p "$b/work/$t"
	[ -n "$(ls -A "$b/work/$t")" ] || cp "$top/fuzz/corpora/$t/"* "$b/work/$t/"
	/usr/bin/time -o "$b/run/$t.time" -f "%e s wall, %U s user, %S s sys" \
		nice -n 10 "$b/${t}_fuzzer" "$b/work/$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$b/findings/$t-" -print_final_stats=1 >"$b/run/$t.log" 2>&1
	echo "$t: $(grep -E '^#[0-9]+' "$b/run/$t.log" | tail -1); $(cat "$b/run/$t.time")"
done
ls "$b/findings"
