#!/bin/sh
# Install the Parquet readers of the Parquet tests into tests/.node/ from the
# npm registry (test-only dependencies: never needed to build or run
# traceio): DuckDB (@duckdb/node-api, which ships the engine), and Apache
# Arrow's Rust reader (parquet-wasm: the arrow-rs parquet crate as
# WebAssembly) with apache-arrow's JavaScript tables, polars (its own
# Rust reader; nodejs-polars, a native module), and hyparquet (a JavaScript
# reader that plans its reads with the page index: tests/parquet/pageindex.mjs).  Run by scripts/deps.sh
# test and by tests/parquet/test-*.sh when one is missing.
# Prints the directory of node_modules on success.
set -e
dir=$(cd "$(dirname "$0")/.." && pwd)/.node
# polars' native module is its own package, per machine (npm does not pick it
# on node 20: its package asks for node 22, and works on 20)
case $(uname -m) in
x86_64) plarch=x64 ;;
aarch64) plarch=arm64 ;;
*) plarch=$(uname -m) ;;
esac
polars=nodejs-polars-linux-$plarch-gnu
if [ ! -f "$dir/node_modules/@duckdb/node-api/package.json" ] || [ ! -f "$dir/node_modules/parquet-wasm/package.json" ] ||
	[ ! -f "$dir/node_modules/apache-arrow/package.json" ] || [ ! -f "$dir/node_modules/$polars/package.json" ] ||
	[ ! -f "$dir/node_modules/hyparquet/package.json" ]; then
	command -v npm >/dev/null || { echo "duckdb-setup: npm not found (install nodejs)" >&2; exit 1; }
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 parquet-wasm@0.8.0 apache-arrow@21.2.0 \
		nodejs-polars@0.26.1 "$polars@0.26.1" hyparquet@1.33.0 >&2
fi
echo "$dir/node_modules"
