#!/bin/sh
# Install DuckDB for the Parquet tests (a test-only dependency: never needed
# to build or run traceio): the @duckdb/node-api package from the npm
# registry, which ships the engine, into tests/.node/.  Run by
# scripts/deps.sh test and by tests/parquet/test-*.sh when it is missing.
# Prints the directory of node_modules on success.
set -e
dir=$(cd "$(dirname "$0")/.." && pwd)/.node
if [ ! -f "$dir/node_modules/@duckdb/node-api/package.json" ]; then
	command -v npm >/dev/null || { echo "duckdb-setup: npm not found (install nodejs)" >&2; exit 1; }
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 >&2
fi
echo "$dir/node_modules"
