#!/bin/bash
# sched_slice against an independent recomputation (tests/tools/sched-check.py)
# from trace-cmd's text (trace.dat: a recording made here when possible, the
# bundled one, real LISA and LanGraph samples) and from babeltrace2's text (an
# LTTng kernel CTF trace); the other derived tables' basic properties.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
K=$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed/lttng-tracefile-rotation/kernel
S=$PEER/tracedat/samples
dats="$TIO_TOP/tests/data/ftrace/v7-zstd-small.dat $S/lisa-tests-assets-sched_load-arm64-v6.dat $S/langraph-x86_64-v7-zstd.dat"
why=$(why_no_recording)
if [ -z "$why" ]; then
	# a busy workload: three CPU-bound loops, forks and short sleeps
	if timeout 120 flock /tmp/tio-record.lock $NS trace-cmd record -q -e sched:sched_switch -e sched:sched_waking \
		-e sched:sched_wakeup -e sched:sched_wakeup_new -e sched:sched_process_fork -e sched:sched_process_exit \
		-e sched:sched_process_exec -e power:cpu_idle -e power:cpu_frequency -o "$TMP/rec.dat" -- \
		sh -c 'for k in 1 2 3; do (i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done) & done; for j in $(seq 30); do /bin/true; sleep 0.005; done; wait' \
		>"$TMP/rec.log" 2>&1; then
		dats="$TMP/rec.dat $dats"
	else
		notok "recording a trace.dat with sched events" "$(tail -3 "$TMP/rec.log")"
	fi
else
	echo "# no recording made here: $why"
fi
for f in $dats; do
	trace-cmd report -t -i "$f" >"$TMP/rep.txt" 2>/dev/null
	"$TIO" sql --csv "$f" 'SELECT ts, dur, cpu, tid FROM sched_slice' >"$TMP/ss.csv"
	"$PY" "$TIO_TOP/tests/tools/sched-check.py" tracecmd "$TMP/rep.txt" "$TMP/ss.csv" | sed "s|\$| ($(basename "$f"))|"
done
babeltrace2 --clock-seconds "$K" >"$TMP/bt.txt"
"$TIO" sql --csv "$K" 'SELECT ts, dur, cpu, tid FROM sched_slice' >"$TMP/ss.csv"
"$PY" "$TIO_TOP/tests/tools/sched-check.py" babeltrace "$TMP/bt.txt" "$TMP/ss.csv" | sed 's/$/ (LTTng kernel)/'

# the slice's comm and priority are those the switch gave (next_comm, next_prio), end_state the next switch's prev_state
got=$("$TIO" sql --csv --no-header "$K" "WITH s AS MATERIALIZED (SELECT ts, cpu, next_comm, next_prio FROM sched_switch)
SELECT count(*), sum(sl.comm = s.next_comm AND sl.priority = s.next_prio) FROM sched_slice sl JOIN s USING (ts, cpu)")
[ "$got" = "4687,4687" ] && ok "sched_slice: comm and priority from the switch (4687)" || notok "sched_slice comm/priority" "$got"
got=$("$TIO" sql --csv --no-header "$K" "SELECT end_state, count(*) FROM sched_slice GROUP BY 1 ORDER BY 2 DESC LIMIT 3" | tr '\n' ' ')
case "$got" in R,*|S,*|D,*) ok "sched_slice end_state letters: $got";; *) notok "sched_slice end_state" "$got";; esac
# thread_state: per thread, intervals contiguous; Running intervals are the sched_slice rows of that thread
"$TIO" sql --csv "$K" 'SELECT ts, dur, utid, state FROM thread_state ORDER BY utid, ts' >"$TMP/ts.csv"
"$TIO" sql --csv --no-header "$K" 'SELECT count(*), sum(dur) FROM sched_slice WHERE tid != 0' >"$TMP/run"
"$PY" - "$TMP/ts.csv" "$TMP/run" <<'PYEOF' && ok "thread_state: contiguous per thread, Running = sched_slice (tid != 0)" || notok "thread_state"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n, total = map(int, open(sys.argv[2]).read().split(","))
prev = {}
for r in rows:
    u, ts, dur = r["utid"], int(r["ts"]), int(r["dur"])
    if u in prev:
        assert prev[u] == ts, (u, prev[u], ts)
    prev[u] = ts + dur
run = [r for r in rows if r["state"] == "Running"]
assert len(run) == n, (len(run), n)
assert sum(int(r["dur"]) for r in run) == total
PYEOF
# thread and process: fork/exec/exit in the LTTng trace (5 forks, 3 execs, 6 exits)
got=$("$TIO" sql --csv --no-header "$K" -q "SELECT count(*) FROM thread WHERE start_ts IS NOT NULL" \
	-q "SELECT count(*) FROM thread WHERE end_ts IS NOT NULL" -q "SELECT name FROM process WHERE pid = 6741" | tr '\n' ' ')
[ "$got" = "5 6 /bin/sleep " ] && ok "thread/process: 5 forks, 6 exits, exec'd name" || notok "thread/process" "$got"
got=$("$TIO" sql --csv --no-header "$S/lisa-tests-assets-sched_load-arm64-v6.dat" -q "SELECT name, count(*) FROM counter GROUP BY name" | tr '\n' ' ')
[ "$got" = "cpufreq,16 cpuidle,474 " ] && ok "counter: cpu_frequency and cpu_idle events ($got)" || notok "counter" "$got"
