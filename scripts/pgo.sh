#!/bin/bash
# Configure a new optimized build directory with profile-guided optimization
# (gcc): build the library instrumented, run scripts/pgo-train.sh, then
# configure it to compile again with the profile.  The caller builds.  When a
# step fails the directory is configured without it; with another compiler
# than gcc, CMakeLists.txt ignores TIO_PGO.
#   scripts/pgo.sh BUILD_DIR [cmake generator args...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=$1
shift
cd "$top"
cmake -S . -B "$b" "$@" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIO_PGO=generate >/dev/null || exit 1
echo "traceio: profile-guided build: instrumented build and training run first" >&2
find "$b" -name '*.gcda' -delete 2>/dev/null
if cmake --build "$b" -j "$(nproc)" --target traceio_cli >"$b/pgo-build.log" 2>&1 &&
	scripts/pgo-train.sh "$b" >"$b/pgo-train.log" 2>&1; then
	cmake -S . -B "$b" -DTIO_PGO=use >/dev/null
else
	echo "traceio: profile-guided build skipped (see $b/pgo-*.log)" >&2
	cmake -S . -B "$b" -DTIO_PGO= >/dev/null
fi
