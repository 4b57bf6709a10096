#!/bin/bash
# Record the trace behind tests/data/ftrace/funcs-v6.dat: trace_marker writes
# of a fixed size from two processes pinned to CPUs 0 and 1 (with sched
# events around them), then tests/ftrace/mk-funcs.py rewrites the markers
# into ftrace function, func_repeats and raw_data records and cuts kallsyms.
# Needs root, tracefs and trace-cmd (../shared/tools/tc-ns.sh); one recording
# at a time (tracefs is global).
# With --graph: funcgraph_entry/funcgraph_exit records instead
# (tests/data/ftrace/funcgraph-v6.dat).
# Usage: tests/ftrace/mk-funcs.sh [--graph] OUT.dat
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=()
if [ "${1:-}" = --graph ]; then mode=(--graph); shift; fi
out=$(realpath -m "${1:?usage: mk-funcs.sh [--graph] OUT.dat}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/w.sh" <<'W'
#!/bin/bash
w() { for i in $(seq 1 30); do printf 'AAAAAAAAAAAAAAAAAAAAAAAA' > /sys/kernel/tracing/trace_marker; done; }
# one CPU after the other, then both at once
taskset -c 0 bash -c "$(declare -f w); w"
taskset -c 1 bash -c "$(declare -f w); w"
v() { for i in $(seq 1 30); do printf 'AAAAAAAAAAAAAAAAAAAAAAAA' > /sys/kernel/tracing/trace_marker; sleep 0.002; done; }
taskset -c 0 bash -c "$(declare -f v); v" &
taskset -c 1 bash -c "$(declare -f v); v" &
wait
W
chmod +x "$work/w.sh"
(cd "$work" && "$top/../shared/tools/tc-ns.sh" trace-cmd record --file-version 6 -e sched:sched_switch \
	-o "$work/rec.dat" ./w.sh > "$work/rec.log" 2>&1)
python3 "$top/tests/ftrace/mk-funcs.py" "${mode[@]}" "$work/rec.dat" "$out"
