#!/bin/sh
# Install the Parquet readers of the Parquet tests into tests/.node/ from the
# npm registry (test-only dependencies: never needed to build or run
# traceio): DuckDB (@duckdb/node-api, which ships the engine), and Apache
# Arrow's Rust reader (parquet-wasm: the arrow-rs parquet crate as
# WebAssembly) with apache-arrow's JavaScript tables.  Run by scripts/deps.sh
# test and by tests/parquet/test-*.sh when one is missing.
# Prints the directory of node_modules on success.
set -e
dir=$(cd "$(dirname "$0")/.." && pwd)/.node
if [ ! -f "$dir/node_modules/@duckdb/node-api/package.json" ] || [ ! -f "$dir/node_modules/parquet-wasm/package.json" ] ||
	[ ! -f "$dir/node_modules/apache-arrow/package.json" ]; then
	command -v npm >/dev/null || { echo "duckdb-setup: npm not found (install nodejs)" >&2; exit 1; }
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 parquet-wasm@0.8.0 apache-arrow@21.2.0 >&2
fi
echo "$dir/node_modules"
