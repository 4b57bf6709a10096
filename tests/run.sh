#!/bin/bash
# Run every test: tests/**/test-*.sh scripts (each prints "ok NAME" or
# "not ok NAME" lines) and the unit test programs built from tests/unit/.
# Usage: tests/run.sh BUILD_DIR [MORE_BUILD_DIRS...]
# Each build dir gets its own pass (e.g. the normal and the ASan+UBSan one).
# The passes run side by side when there are CPUs for them (TIO_TEST_JOBS,
# default the CPUs online; 1: one after the other); their reports are
# printed in the order of the arguments.  The last line is "N passed, N
# failed".  Tests share nothing but what they lock (trace-cmd recordings:
# flock /tmp/tio-record.lock; the sanitized builds do not record).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export TIO_TOP=$top
export TIO_SHARED=${TIO_SHARED:-$(cd "$top/.." && pwd)/shared}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
only=${TIO_TESTS:-}
jobs=${TIO_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}

# pass K BUILD_DIR: one build's tests; the report to $log/K.out, the counts
# and the failures to $log/K.sum
pass() {
	local k=$1 bdir passed=0 failed=0 failures=() u n t rc p f tag
	bdir=$(cd "$2" && pwd)
	export TIO_BUILD=$bdir TIO="$bdir/traceio"
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	tag=$(basename "$bdir")
	local out=$log/$k.test
	for u in "$bdir"/unit-*; do
		[ -x "$u" ] || continue
		n=$(basename "$u")
		[ -n "$only" ] && [[ "$n" != *$only* ]] && continue
		if "$u" >"$out" 2>&1; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1)); failures+=("$tag/$n"); sed 's/^/    /' "$out" | tail -20
		fi
	done
	for t in $(find "$top/tests" -name 'test-*.sh' | sort); do
		n=${t#$top/tests/}
		[ -n "$only" ] && [[ "$n" != *$only* ]] && continue
		bash "$t" >"$out" 2>&1
		rc=$?
		p=$(grep -c '^ok ' "$out")
		f=$(grep -c '^not ok ' "$out")
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1; echo "not ok $n exited $rc" >>"$out"
		fi
		passed=$((passed + p)); failed=$((failed + f))
		echo "$tag $n: $p passed, $f failed"
		if [ "$f" -ne 0 ]; then
			grep -A15 '^not ok ' "$out" | head -60 | sed 's/^/    /'
			failures+=("$tag/$n")
		fi
	done
	{
		echo "$passed $failed"
		printf '%s\n' "${failures[@]+"${failures[@]}"}"
	} >"$log/$k.sum"
}

# side by side: the first pass reports as it goes, the others once done
k=0
pids=()
for b in "$@"; do
	if [ "$jobs" -gt 1 ] && [ $# -gt 1 ] && [ $k -gt 0 ]; then
		pass $k "$b" >"$log/$k.out" 2>&1 &
		pids+=($!)
	elif [ "$jobs" -gt 1 ] && [ $# -gt 1 ]; then
		pass $k "$b" 2>&1 &
		pids+=($!)
	else
		pass $k "$b" 2>&1
	fi
	k=$((k + 1))
done
for p in "${pids[@]+"${pids[@]}"}"; do
	wait "$p"
done
passed=0
failed=0
failures=()
for ((i = 0; i < k; i++)); do
	[ ${#pids[@]} -gt 0 ] && [ $i -gt 0 ] && cat "$log/$i.out"
	if [ ! -f "$log/$i.sum" ]; then
		failed=$((failed + 1)); failures+=("pass $i did not finish")
		continue
	fi
	read -r p f <"$log/$i.sum"
	passed=$((passed + p)); failed=$((failed + f))
	while IFS= read -r x; do
		[ -n "$x" ] && failures+=("$x")
	done < <(tail -n +2 "$log/$i.sum")
done
[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
