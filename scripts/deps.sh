#!/bin/sh
# Install the Debian packages traceio needs, if any is missing.
#   scripts/deps.sh          build deps only
#   scripts/deps.sh test     also the peers the tests compare with
set -e
pkgs="cmake make gcc clang pkg-config zlib1g-dev libzstd-dev libjson-c-dev libxml2-dev libsnappy-dev"
# clang's sanitizer runtimes (make check's ASan/UBSan build, make fuzz): clang only recommends them
pkgs="$pkgs libclang-rt-14-dev"
# SQL over traces (src/sqlite/, traceio sql's prompt)
pkgs="$pkgs libsqlite3-dev libedit-dev"
# the Python module (python/, built by `make build` for /usr/bin/python3)
pkgs="$pkgs python3-dev python3-numpy python3-setuptools"
if [ "$1" = test ]; then
	pkgs="$pkgs babeltrace2 babeltrace trace-cmd xz-utils xxd lttng-tools liblttng-ust-dev python3 bc time man-db groff-base"
	# protoc reads the Perfetto writer's output (tests/perfetto); libprotobuf-dev holds
	# google/protobuf/descriptor.proto, which protoc only recommends
	pkgs="$pkgs protobuf-compiler libprotobuf-dev"
	# the Python module's tests: pytest, DataFrames, babeltrace2's Python bindings to compare with
	pkgs="$pkgs python3-pytest python3-pandas python3-bt2"
	# the SQLite extension read by the sqlite3 shell; the prompt on a terminal
	pkgs="$pkgs sqlite3 tmux"
	# tests/ftrace/test-probes.sh: btrfs events on a btrfs loop mount (%pU of its fsid)
	pkgs="$pkgs btrfs-progs"
fi
# npm installs the Parquet tests' readers (below); Debian's node and npm when there is none
[ "$1" = test ] && ! command -v npm >/dev/null && pkgs="$pkgs nodejs npm"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing" >&2
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ "$1" = test ]; then
	# the Parquet tests' readers, DuckDB, arrow-rs and polars (npm packages into tests/.node; test-only)
	sh "$(dirname "$0")/../tests/parquet/duckdb-setup.sh" >/dev/null || echo "deps: the Parquet readers (npm) not installed" >&2
fi
