#!/bin/bash
# traceio's Python module (python/): built for Debian's /usr/bin/python3 into
# $TIO_BUILD/python, then its pytest suite (python/tests: the API, values
# against babeltrace2's Python bindings and against `trace-cmd report -R`),
# each pytest test turned into an "ok"/"not ok" line; a failing or erroring
# test, or pytest failing to run, is a "not ok".
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
if is_sanitized; then
	ok "python # skip: the module is built and tested with the normal build"
	exit 0
fi
if ! "$PY" -c 'import numpy, pytest' 2>"$TMP/imp"; then
	notok "python: python3-numpy and python3-pytest for $PY" "$(tail -2 "$TMP/imp")" "install them: scripts/deps.sh test"
	exit 0
fi
if ! "$TIO_TOP/python/build.sh" "$TIO_BUILD" >"$TMP/build.log" 2>&1; then
	notok "python: module builds" "$(tail -15 "$TMP/build.log")"
	exit 0
fi
ok "python: module builds"
cd "$TMP"   # not python/: `python3 -m pytest` puts the current directory first on sys.path
PYTHONPATH=$TIO_BUILD/python PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -rA -p no:cacheprovider \
	--rootdir "$TIO_TOP/python" "$TIO_TOP/python/tests" >"$TMP/pytest.out" 2>&1
rc=$?
awk '
	/^PASSED / { t = $2; sub(/^.*python\/tests\//, "", t); print "ok python: " t; n++ }
	/^(FAILED|ERROR) / { t = $0; sub(/^(FAILED|ERROR) /, "", t); sub(/^.*python\/tests\//, "", t); print "not ok python: " t; n++ }
	/^SKIPPED / { t = $0; sub(/^SKIPPED \[[0-9]+\] /, "", t); sub(/^.*python\/tests\//, "", t); print "ok python: # skip " t; n++ }
	END { if (!n) print "not ok python: pytest ran no test" }
' "$TMP/pytest.out"
if [ $rc -ne 0 ]; then
	# the details of each failure, and a "not ok" even when none was parsed
	grep -q '^\(FAILED\|ERROR\) ' "$TMP/pytest.out" || notok "python: pytest exited $rc"
	sed -n '/= FAILURES =\|= ERRORS =/,$p' "$TMP/pytest.out" | head -80
fi
tail -1 "$TMP/pytest.out"
