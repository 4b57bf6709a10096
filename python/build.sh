#!/bin/sh
# Build traceio's Python module (traceio._traceio) for Debian's /usr/bin/python3
# against the library of a build directory, into BUILD/python:
#   python/build.sh [BUILD]          (default: build; `make build` runs it)
#   PYTHONPATH=BUILD/python /usr/bin/python3 -c 'import traceio'
# Needs python3-dev, python3-numpy, python3-setuptools (scripts/deps.sh);
# TIO_PYTHON picks another interpreter.  The module finds BUILD/libtraceio.so
# by its rpath.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${1:-$top/build}" && pwd)
PY=${TIO_PYTHON:-/usr/bin/python3}
[ -f "$b/libtraceio.so" ] || { echo "python/build.sh: no $b/libtraceio.so: build the library first" >&2; exit 1; }
cd "$top/python"
TRACEIO_BUILD="$b" PYTHONDONTWRITEBYTECODE=1 "$PY" setup.py -q build --build-base "$b/python-build" \
	--build-lib "$b/python" 2>&1 | grep -v 'byte-compiling is disabled' >&2 || true
[ -f "$b/python/traceio/__init__.py" ] && ls "$b"/python/traceio/_traceio*.so >/dev/null 2>&1
