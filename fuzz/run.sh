#!/bin/bash
# Run fuzz targets one after the other at the lowest priority and record what
# they did.
#
#   make fuzz                          # builds build-fuzz/ (clang, libFuzzer, ASan+UBSan)
#   fuzz/run.sh 1800 [TARGET...]       # each target for 1800 s of wall time
#   fuzz/run.sh -c 1800 [TARGET...]    # each target until it has used 1800 s of CPU
#   (default targets: every fuzz/*_fuzzer.c)
#
# On a machine shared with others, wall time is not CPU time: `-c` stops a
# target when the CPU time (user + sys) of the fuzzer and of its fork-mode
# children reaches the budget.  The CPU time is read every 5 s from
# /proc/PID/stat: utime + stime + cutime + cstime of every live process of
# the run (the children that ended are in their parent's cutime/cstime);
# /usr/bin/time's figure for the whole run is recorded too.  `-w SECS` bounds
# the wall time of a `-c` run (default 6 h).  Fuzzers run under `nice -n 19`,
# `-fork=1` (one job at a time: one core); run two instances of this script
# with different targets to use two cores.
#
# Each target starts from fuzz/corpora/<target>/ and keeps what it finds in
# build-fuzz/work/<target>/ (not in the repo).  Crashes, leaks and timeouts
# go to build-fuzz/findings/<target>-*: replay one with
# build-fuzz/<target>-replay FILE, fix it, and add the file to
# fuzz/corpora/<target>/found-<what> so tests/fuzz/test-replay.sh keeps it
# fixed.  build-fuzz/run/<target>.log is libFuzzer's log,
# build-fuzz/run/<target>.time /usr/bin/time's figures,
# build-fuzz/run/<target>.summary one line: wall, CPU, executions, coverage,
# corpus, findings.  The fuzzer binary is copied to build-fuzz/run/bin/ first,
# so rebuilding build-fuzz/ during a run does not change the binary the
# fork-mode children run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build-fuzz
cpu=0
wall=1800
maxwall=21600
while [ $# -gt 0 ]; do
	case $1 in
	-c) cpu=$2; shift 2 ;;
	-w) maxwall=$2; shift 2 ;;
	-*) echo "usage: $0 [-c CPUSECS [-w MAXWALL] | SECS] [TARGET...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ "$cpu" = 0 ] && [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
	wall=$1
	shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$top"/fuzz/*_fuzzer.c; do t=$(basename "$f" .c); targets+=("${t%_fuzzer}"); done
fi
hz=$(getconf CLK_TCK)

# /proc/PID/stat of every process (cat goes on when one ends meanwhile).
all_stat() {
	cat /proc/[0-9]*/stat 2>/dev/null
}

# CPU seconds (x100) used so far by process ROOT and every live descendant.
tree_cpu() {
	all_stat | awk -v root="$1" -v hz="$hz" '
	{
		line = $0
		pid = $1
		sub(/^.*\) /, "", line)   # the command name may hold spaces and parens
		split(line, f, " ")
		ppid[pid] = f[2]
		t[pid] = f[12] + f[13] + f[14] + f[15]
	}
	END {
		for (p in ppid) {
			q = p
			for (i = 0; i < 64 && q != "" && q != root && q > 1; i++)
				q = ppid[q]
			if (q == root)
				sum += t[p]
		}
		printf "%d\n", sum * 100 / hz
	}'
}

# The live descendants of process ROOT.
tree_pids() {
	all_stat | awk -v root="$1" '
	{
		line = $0
		pid = $1
		sub(/^.*\) /, "", line)
		split(line, f, " ")
		ppid[pid] = f[2]
	}
	END {
		for (p in ppid) {
			q = ppid[p]
			for (i = 0; i < 64 && q != "" && q != root && q > 1; i++)
				q = ppid[q]
			if (q == root)
				print p
		}
	}'
}

mkdir -p "$b/run/bin" "$b/findings"
for t in "${targets[@]}"; do
	[ -x "$b/${t}_fuzzer" ] || { echo "$t: no $b/${t}_fuzzer (make fuzz)"; continue; }
	mkdir -p "$b/work/$t"
	[ -n "$(ls -A "$b/work/$t")" ] || cp "$top/fuzz/corpora/$t/"* "$b/work/$t/"
	# a new file (not cp over it: a running copy makes it busy)
	rm -f "$b/run/bin/${t}_fuzzer" && cp "$b/${t}_fuzzer" "$b/run/bin/${t}_fuzzer" || continue
	nfound0=$(ls "$b/findings" | grep -c "^$t-")
	limit=$wall
	[ "$cpu" = 0 ] || limit=$maxwall
	start=$(date +%s)
	# setsid: the run is its own process group, stopped as one.
	setsid /usr/bin/time -o "$b/run/$t.time" -f "%e s wall, %U s user, %S s sys" \
		nice -n 19 "$b/run/bin/${t}_fuzzer" "$b/work/$t" -fork=1 -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$limit" -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$b/findings/$t-" -print_final_stats=1 \
		>"$b/run/$t.log" 2>&1 &
	pid=$!
	used=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		c=$(tree_cpu "$pid")
		[ -n "$c" ] && [ "$c" -gt "$used" ] && used=$c
		if [ "$cpu" != 0 ] && [ "$used" -ge $((cpu * 100)) ]; then
			echo "$t: CPU budget ${cpu} s reached ($((used / 100)) s) after $(($(date +%s) - start)) s, stopping"
			# SIGTERM to the fuzzer and its children, not to /usr/bin/time
			# (which then reports); the whole group if they do not end.
			kill -TERM $(tree_pids "$pid") 2>/dev/null
			for _ in 1 2 3 4 5 6; do kill -0 "$pid" 2>/dev/null || break; sleep 5; done
			kill -KILL -- "-$pid" 2>/dev/null
			break
		fi
	done
	wait "$pid" 2>/dev/null
	end=$(date +%s)
	# /usr/bin/time's figure includes every child; prefer it when it is there.
	tcpu=$(awk '/user/ { printf "%d", ($4 + $7) * 100 }' "$b/run/$t.time" 2>/dev/null)
	[ -n "$tcpu" ] && [ "$tcpu" -gt "$used" ] && used=$tcpu
	last=$(grep -E '^#[0-9]+' "$b/run/$t.log" | tail -1)
	execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	oom=$(echo "$last" | sed -n 's/.* oom\/timeout\/crash: \([0-9/]*\).*/\1/p')
	nfound=$(($(ls "$b/findings" | grep -c "^$t-") - nfound0))
	s="$t: $(date -u +%F) wall $((end - start)) s, CPU $((used / 100)) s ($((used / 6000)) min), $execs execs, cov $cov, corp $corp, oom/timeout/crash ${oom:-?}, $nfound new findings"
	echo "$s" >"$b/run/$t.summary"
	echo "$s"
done
ls "$b/findings"
