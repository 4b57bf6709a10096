#!/bin/bash
# Record the trace behind tests/data/ftrace/funcs-v6.dat: trace_marker writes
# of a fixed size from two processes pinned to CPUs 0 and 1 (with sched
# events around them), then tests/ftrace/mk-funcs.py rewrites the markers
# into ftrace function, func_repeats and raw_data records and cuts kallsyms.
# Needs root, tracefs and trace-cmd (../shared/tools/tc-ns.sh); one recording
# at a time (tracefs is global).
# Usage: tests/ftrace/mk-funcs.sh OUT.dat
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:?usage: mk-funcs.sh OUT.dat}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/w.sh" <<'W'
#!/bin/bash
w() { for i in $(seq 1 60); do printf 'AAAAAAAAAAAAAAAAAAAAAAAA' > /sys/kernel/tracing/trace_marker; done; }
taskset -c 0 bash -c "$(declare -f w); w" &
taskset -c 1 bash -c "$(declare -f w); w" &
wait
W
chmod +x "$work/w.sh"
(cd "$work" && "$top/../shared/tools/tc-ns.sh" trace-cmd record --file-version 6 -e sched:sched_switch \
	-o "$work/rec.dat" ./w.sh > "$work/rec.log" 2>&1)
python3 "$top/tests/ftrace/mk-funcs.py" "$work/rec.dat" "$out"
