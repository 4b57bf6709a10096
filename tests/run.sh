#!/bin/bash
# Run every test: tests/**/test-*.sh scripts (each prints "ok NAME" or
# "not ok NAME" lines) and the unit test programs built from tests/unit/.
# Usage: tests/run.sh BUILD_DIR [MORE_BUILD_DIRS...]
# Each build dir is tested in turn (e.g. the normal and the ASan+UBSan one).
# The last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export TIO_TOP=$top
export TIO_SHARED=${TIO_SHARED:-$(cd "$top/.." && pwd)/shared}
passed=0
failed=0
failures=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
only=${TIO_TESTS:-}

for b in "$@"; do
	bdir=$(cd "$b" && pwd)
	export TIO_BUILD=$bdir TIO="$bdir/traceio"
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	tag=$(basename "$bdir")
	for u in "$bdir"/unit-*; do
		[ -x "$u" ] || continue
		n=$(basename "$u")
		[ -n "$only" ] && [[ "$n" != *$only* ]] && continue
		if "$u" >"$log/out" 2>&1; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1)); failures+=("$tag/$n"); sed 's/^/    /' "$log/out" | tail -20
		fi
	done
	for t in $(find "$top/tests" -name 'test-*.sh' | sort); do
		n=${t#$top/tests/}
		[ -n "$only" ] && [[ "$n" != *$only* ]] && continue
		bash "$t" >"$log/out" 2>&1
		rc=$?
		p=$(grep -c '^ok ' "$log/out")
		f=$(grep -c '^not ok ' "$log/out")
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1; echo "not ok $n exited $rc" >>"$log/out"
		fi
		passed=$((passed + p)); failed=$((failed + f))
		echo "$tag $n: $p passed, $f failed"
		if [ "$f" -ne 0 ]; then
			grep -A15 '^not ok ' "$log/out" | head -60 | sed 's/^/    /'
			failures+=("$tag/$n")
		fi
	done
done
[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
