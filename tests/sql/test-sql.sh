#!/bin/bash
# traceio sql and the loadable extension (docs/sql.md): per event class,
# count(*) and the sum of every integer field equal what `traceio print
# --style json` gives (tests/tools/sql-check.py computes them from the JSON),
# through the CLI, the sqlite3 shell (.load) and Python's sqlite3; ts bounds,
# cpu/name filters, output formats, the prompt, errors, a damaged packet.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
EXT=$TIO_BUILD/libtraceio_sqlite
D=$TIO_TOP/tests/data
K=$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed/lttng-tracefile-rotation/kernel
S=$PEER/tracedat/samples

# every bundled trace, LTTng kernel and UST, trace.dat v6/v7, LTTng 0.x, new LTT
traces="$D/ctf/wk-heartbeat-u $D/ctf/handmade-bitfields $D/ctf/lttng-ust-discard $K
$D/ftrace/funcs-v6.dat $D/ftrace/funcgraph-v6.dat $D/ftrace/kvm-v7-zstd.dat $D/ftrace/v7-zstd-small.dat
$S/lisa-tests-assets-sched_load-arm64-v6.dat $S/langraph-x86_64-v7-zstd.dat $S/igt-tests-trace-x86_64-i915-v6.dat
$PEER/ltt0x/traces/trace-15316events_nolost_newformat"
if ! is_sanitized; then
	traces="$traces $D/ftrace/kmem-tlb-v7-zstd.dat $S/lisa-tests-trace-arm32-v6-large.dat $S/lisa-tutorial-example_rtapp-arm64-v6.dat
$S/lisa-trappy-tests-raw_trace-arm64-v6.dat $S/lisa-trappy-tests-trace-arm32-v6.dat $S/lisa-trappy-tests-trace_idle-arm64-v6.dat
$PEER/ltt0x/traces/trace-2.6"
	for t in "$PEER"/ctf/babeltrace-2.1/ctf-traces/1/succeed/*/; do
		case "$t" in *lttng-tracefile-rotation*|*session-rotation*) continue;; esac
		"$TIO" print "$t" 2>/dev/null | grep -q . && traces="$traces $t"
	done
fi
# shellcheck disable=SC2086
"$PY" "$TIO_TOP/tests/tools/sql-check.py" "$TIO" cli $traces
few="$K $D/ftrace/v7-zstd-small.dat $D/ctf/wk-heartbeat-u $S/lisa-tests-assets-sched_load-arm64-v6.dat"
# a program loading the ASan-built extension needs the ASan runtime first
PRE=()
if is_sanitized; then
	PRE=(env LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" ASAN_OPTIONS=detect_leaks=0)
fi
# shellcheck disable=SC2086
"${PRE[@]}" env SQLITE_EXT="$EXT" "$PY" "$TIO_TOP/tests/tools/sql-check.py" "$TIO" shell $few
# shellcheck disable=SC2086
"${PRE[@]}" env SQLITE_EXT="$EXT" "$PY" "$TIO_TOP/tests/tools/sql-check.py" "$TIO" python $few
SQLITE3=$(command -v sqlite3)
sqlite3() { "${PRE[@]}" "$SQLITE3" "$@"; }

# ts bounds (pushed to the reader) give the rows a full scan filtered by Python gives
"$TIO" print --style json "$K" | "$PY" -c '
import json, sys
ts = [json.loads(l)["ns"] for l in sys.stdin if "\"event\"" in l[:20]]
a, b = ts[1000], ts[3000]
print(a, b, sum(a <= t <= b for t in ts), sum(t > a for t in ts), sum(t < b for t in ts), sum(t == a for t in ts))
' >"$TMP/bounds"
read -r A B NBETWEEN NGT NLT NEQ <"$TMP/bounds"
got=$("$TIO" sql --csv --no-header "$K" -q "SELECT count(*) FROM events WHERE ts BETWEEN $A AND $B" \
	-q "SELECT count(*) FROM events WHERE ts > $A" -q "SELECT count(*) FROM events WHERE ts < $B" \
	-q "SELECT count(*) FROM events WHERE ts = $A" -q "SELECT count(*) FROM events WHERE ts >= $B AND ts <= $A" | tr '\n' ' ')
[ "$got" = "$NBETWEEN $NGT $NLT $NEQ 0 " ] && ok "ts bounds: BETWEEN, >, <, =, empty range ($got)" ||
	notok "ts bounds" "got $got" "expected $NBETWEEN $NGT $NLT $NEQ 0"
# the same through a join's inner loop (the cursor is filtered again per outer row)
got=$("$TIO" sql --csv --no-header "$K" "SELECT count(*) FROM (SELECT ts FROM sched_switch LIMIT 3) s JOIN events e ON e.ts = s.ts")
[ "$got" -ge 3 ] && ok "ts = from a join: $got rows" || notok "ts = from a join" "$got"

# cpu and name filters equal the unfiltered rows grouped
got=$("$TIO" sql --csv --no-header "$K" -q "SELECT count(*) FROM events WHERE cpu = 2 AND name = 'sched_switch'" \
	-q "SELECT count(*) FROM sched_switch WHERE cpu = 2" \
	-q "SELECT count(*) FROM (SELECT cpu, name FROM events) WHERE cpu + 0 = 2 AND name || '' = 'sched_switch'" | tr '\n' ' ')
set -- $got
[ "$1" = "$2" ] && [ "$2" = "$3" ] && [ "$1" -gt 0 ] && ok "cpu = and name = filters: $1 rows" || notok "cpu/name filters" "$got"

# args as JSON: json_extract gives the payload's values
# (a join of two trace tables: one side materialized, else each outer row reads the trace again)
got=$("$TIO" sql --csv --no-header "$K" "WITH s AS MATERIALIZED (SELECT * FROM sched_switch) SELECT count(*) FROM events e JOIN s ON e.ts = s.ts AND e.cpu = s.cpu WHERE e.name = 'sched_switch' AND json_extract(e.args, '\$.next_tid') = s.next_tid AND json_extract(e.args, '\$.prev_comm') = s.prev_comm")
[ "$got" = 4687 ] && ok "events.args: json_extract equals the class table's columns (4687 sched_switch)" ||
	notok "events.args json_extract" "$got"
# pid/tid/comm: trace.dat from common_pid and the saved cmdlines, LTTng from contexts
got=$("$TIO" sql --csv --no-header "$D/ftrace/v7-zstd-small.dat" "WITH s AS MATERIALIZED (SELECT * FROM sched_switch) SELECT count(*) FROM events e JOIN s USING (ts, cpu) WHERE e.tid = s.common_pid AND e.tid = s.prev_pid AND e.comm IS NOT NULL")
[ "$got" = 30 ] && ok "trace.dat: events.tid is common_pid, comm known" || notok "trace.dat tid/comm" "$got"
got=$("$TIO" sql --csv --no-header "$D/ctf/wk-heartbeat-u" "SELECT count(*) FROM events WHERE tid >= 3208 AND pid = 3208")
all=$("$TIO" sql --csv --no-header "$D/ctf/wk-heartbeat-u" "SELECT count(*) FROM events")
[ "$got" = "$all" ] && [ "$all" -gt 0 ] && ok "LTTng UST: tid, pid from the vtid, vpid contexts ($all events)" ||
	notok "LTTng contexts" "$got of $all"
got=$("$TIO" sql --csv --no-header "$D/ctf/lttng-ust-discard" -q "SELECT kind, sum(count) > 0 FROM discarded GROUP BY kind" -q "SELECT count(*) FROM clocks" -q "SELECT value FROM env WHERE key = 'domain'" | tr '\n' ' ')
[ "$got" = "events,1 1 ust " ] && ok "discarded, clocks, env tables" || notok "discarded/clocks/env" "$got"

# output formats: CSV read back by Python's csv, JSON by json, the aligned table
"$TIO" sql --csv "$K" "SELECT ts, name, args FROM events LIMIT 50" >"$TMP/o.csv"
"$TIO" sql --json "$K" "SELECT ts, name, args FROM events LIMIT 50" >"$TMP/o.json"
"$PY" - "$TMP/o.csv" "$TMP/o.json" <<'PYEOF' && ok "--csv and --json read back: same 50 rows" || notok "--csv/--json read back"
import csv, json, sys
c = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
assert len(c) == len(j) == 50
for a, b in zip(c, j):
    assert int(a["ts"]) == b["ts"] and a["name"] == b["name"] and json.loads(a["args"]) == json.loads(b["args"])
PYEOF
"$TIO" sql "$K" "SELECT cpu, count(*) AS n FROM sched_switch GROUP BY cpu" >"$TMP/o.txt"
if [ "$(sed -n 1p "$TMP/o.txt")" = "cpu     n" ] && [ "$(sed -n 2p "$TMP/o.txt")" = "---  ----" ] &&
	[ "$(wc -l <"$TMP/o.txt")" -eq 6 ]; then ok "aligned table: header, rule, numbers right-aligned"; else
	notok "aligned table" "$(cat "$TMP/o.txt")"; fi

# the prompt (stdin not a terminal: the same loop without line editing)
printf '.tables\n.schema sched_waking\nSELECT count(*)\n  FROM sched_switch;\nSELEC;\n.quit\nSELECT 1;\n' |
	"$TIO" sql --csv "$K" >"$TMP/p.out" 2>"$TMP/p.err"; rc=$?
if grep -qx sched_slice "$TMP/p.out" && grep -q '^CREATE TABLE "sched_waking"(.*"target_cpu" INTEGER);$' "$TMP/p.out" &&
	grep -qx 4687 "$TMP/p.out" && grep -q 'syntax error' "$TMP/p.err" && ! grep -qx 1 "$TMP/p.out" && [ $rc -eq 1 ]; then
	ok "prompt: .tables, .schema, a statement over two lines, an error, .quit"
else
	notok "prompt" "exit $rc" "$(head -5 "$TMP/p.out")" "$(cat "$TMP/p.err")"
fi
if command -v tmux >/dev/null && ! is_sanitized; then
	tmux new-session -d -s tiosql$$ -x 120 -y 30 "$TIO sql $K"
	sleep 1
	tmux send-keys -t tiosql$$ 'SELECT count(*) FROM sched_wakeup\;' Enter
	sleep 1
	tmux send-keys -t tiosql$$ Up Enter
	sleep 1
	tmux capture-pane -t tiosql$$ -p >"$TMP/tmux"
	tmux kill-session -t tiosql$$ 2>/dev/null
	[ "$(grep -cx ' *2378' "$TMP/tmux")" -eq 2 ] && grep -q '^traceio> ' "$TMP/tmux" &&
		ok "prompt on a terminal (tmux): libedit history recalls the query" || notok "prompt on a terminal" "$(cat "$TMP/tmux")"
fi

# errors: SQLite's message, nothing printed on stdout, exit 1
"$TIO" sql "$K" "SELECT * FROM nope" >"$TMP/e.out" 2>"$TMP/e.err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/e.out" ] && grep -qx 'traceio: sql: no such table: nope' "$TMP/e.err" &&
	ok "unknown table: SQLite's message, exit 1" || notok "unknown table" "exit $rc" "$(cat "$TMP/e.err")"
"$TIO" sql "$K" "SELECT ts, CASE WHEN ts > $A THEN json('not json') END FROM events" >"$TMP/e.out" 2>"$TMP/e.err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/e.out" ] && grep -q 'malformed JSON' "$TMP/e.err" &&
	ok "an error after rows were made: nothing half printed" || notok "error mid-result" "exit $rc" "$(head -3 "$TMP/e.out")" "$(cat "$TMP/e.err")"
"$TIO" sql /nonexistent "SELECT 1" >"$TMP/e.out" 2>"$TMP/e.err"; rc=$?
[ $rc -ne 0 ] && grep -q nonexistent "$TMP/e.err" && ok "missing trace: named, exit $rc" || notok "missing trace" "$(cat "$TMP/e.err")"
sqlite3 :memory: ".load $EXT" "CREATE VIRTUAL TABLE t USING traceio('$K', 'no_such_class')" >"$TMP/e.out" 2>&1
grep -q "no event class or table named 'no_such_class'" "$TMP/e.out" && ok "extension: unknown class named" || notok "extension: unknown class" "$(cat "$TMP/e.out")"
sqlite3 :memory: ".load $EXT" "CREATE VIRTUAL TABLE t USING traceio('$K', bogus=1)" >"$TMP/e.out" 2>&1
grep -q "bogus=1: unknown key" "$TMP/e.out" && ok "extension: bad argument named" || notok "extension: bad argument" "$(cat "$TMP/e.out")"
sqlite3 :memory: ".load $EXT" "CREATE VIRTUAL TABLE t USING traceio('/nonexistent/x')" >"$TMP/e.out" 2>&1
grep -q "traceio: .*nonexistent" "$TMP/e.out" && ok "extension: missing trace named" || notok "extension: missing trace" "$(cat "$TMP/e.out")"
# the two forms of the extension: events table and one class
got=$(sqlite3 :memory: ".load $EXT" "CREATE VIRTUAL TABLE e USING traceio('$K')" "CREATE VIRTUAL TABLE s USING traceio('$K', 'sched_switch')" \
	"SELECT (SELECT count(*) FROM e WHERE name = 'sched_switch') = (SELECT count(*) FROM s), (SELECT count(*) FROM e)")
[ "$got" = "1|12305" ] && ok "extension: USING traceio('path') and traceio('path', 'sched_switch')" || notok "extension forms" "$got"

# trace.dat reader options (trace-cmd report's --ts2secs and --raw-ts): the CLI's, the
# extension's arguments ts2secs= and raw_ts=, convert --to sqlite; on a peer sample and the same
# given a TIME_SHIFT of +1 s on each CPU (tests/tools/add-time-shift.py)
IGT=$PEER/tracedat/samples/igt-tests-trace-x86_64-i915-v6.dat
python3 "$TIO_TOP/tests/tools/add-time-shift.py" "$IGT" "$TMP/shift.dat" --sample 0:0:1000000000 --sample 1:0:1000000000
q="SELECT min(ts), max(ts), count(*) FROM events"
base=$("$TIO" sql --csv --no-header "$IGT" "$q")
got=$("$TIO" sql --csv --no-header --ts2secs 1000000 "$IGT" "$q")
ext=$(sqlite3 -csv :memory: ".load $EXT" "CREATE VIRTUAL TABLE e USING traceio('$IGT', ts2secs='1000000')" "${q/events/e}")
rm -f "$TMP/ts.db"
"$TIO" convert -q --to sqlite --ts2secs 1000000 -o "$TMP/ts.db" "$IGT" && db=$(sqlite3 -csv "$TMP/ts.db" "$q")
want=$(echo "$base" | awk -F, '{printf "%s000,%s000,%s\n", $1, $2, $3}')
[ -n "$base" ] && [ "$got" = "$want" ] && [ "$ext" = "$want" ] && [ "${db:-}" = "$want" ] &&
	ok "ts2secs 1000000: ts 1000 times the file's (CLI, extension, convert --to sqlite): $want" ||
	notok "ts2secs" "base $base" "want $want" "cli $got" "ext $ext" "db ${db:-}"
shifted=$("$TIO" sql --csv --no-header "$TMP/shift.dat" "$q")
raw=$("$TIO" sql --csv --no-header --raw-ts "$TMP/shift.dat" "$q")
rawx=$(sqlite3 -csv :memory: ".load $EXT" "CREATE VIRTUAL TABLE e USING traceio('$TMP/shift.dat', raw_ts=1)" "${q/events/e}")
[ "$raw" = "$base" ] && [ "$rawx" = "$base" ] && [ "$shifted" != "$base" ] &&
	ok "raw_ts: the TIME_SHIFT left out (CLI, extension)" || notok "raw_ts" "base $base" "shifted $shifted" "raw $raw" "ext $rawx"
for a in "ts2secs='0'" "ts2secs='12x'" "raw_ts=2" "ts2secs='99999999999999999999'"; do
	sqlite3 :memory: ".load $EXT" "CREATE VIRTUAL TABLE e USING traceio('$IGT', $a)" > "$TMP/e.out" 2>&1
	grep -q "traceio: .*give" "$TMP/e.out" && ok "extension: $a refused" || notok "extension: $a refused" "$(cat "$TMP/e.out")"
done
"$TIO" sql --ts2secs 1000 "$K" "SELECT 1" > "$TMP/e.out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "ts2secs is for trace.dat inputs" "$TMP/e.out" && ok "ts2secs on a CTF trace refused" ||
	notok "ts2secs on a CTF trace" "exit $rc" "$(cat "$TMP/e.out")"

# a damaged packet: a warning naming file@offset and field, the answer from the other packets, exit 1
F=$PEER/ctf/babeltrace-2.1/ctf-traces
cp -r "$F/1/succeed/trace-with-index" "$TMP/t" && chmod -R u+w "$TMP/t"
printf '\xff\xff\xff\xff' | dd of="$TMP/t/ust_channel_0" bs=1 seek=4096 conv=notrunc 2>/dev/null
"$TIO" print "$TMP/t" 2>/dev/null | wc -l >"$TMP/n"
"$TIO" sql --csv --no-header "$TMP/t" "SELECT count(*) FROM events" >"$TMP/d.out" 2>"$TMP/d.err"; rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$TMP/d.out")" = "$(cat "$TMP/n")" ] &&
	grep -qF 'warning: ' "$TMP/d.err" && grep -qF 'ust_channel_0@0x1000: packet.header.magic' "$TMP/d.err"; then
	ok "damaged packet: warning with file@offset and field, $(cat "$TMP/n") events as print, exit 1"
else
	notok "damaged packet" "exit $rc, $(cat "$TMP/d.out") vs $(cat "$TMP/n")" "$(cat "$TMP/d.err")"
fi

# convert --to sqlite: the same tables in a database file that the sqlite3 shell reads, an index on ts
"$TIO" convert -o "$TMP/k.db" "$K" 2>"$TMP/c.err"; rc=$?
want=$("$TIO" sql --csv --no-header "$K" "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM sched_switch), (SELECT sum(next_tid) FROM sched_switch), (SELECT count(*) || ':' || sum(dur) FROM sched_slice), (SELECT count(*) FROM thread)")
got=$(sqlite3 -csv "$TMP/k.db" "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM sched_switch), (SELECT sum(next_tid) FROM sched_switch), (SELECT count(*) || ':' || sum(dur) FROM sched_slice), (SELECT count(*) FROM thread)" | tr -d '"')
idx=$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%(ts)'")
plan=$(sqlite3 "$TMP/k.db" "EXPLAIN QUERY PLAN SELECT * FROM sched_switch WHERE ts > 5")
if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ "$idx" -ge 10 ] && [[ "$plan" == *"USING INDEX"* ]] &&
	[ "$(sqlite3 "$TMP/k.db" 'PRAGMA integrity_check')" = ok ]; then
	ok "convert --to sqlite: the sqlite3 shell reads the same rows ($got), $idx indexes on ts"
else
	notok "convert --to sqlite" "exit $rc" "got  $got" "want $want" "$idx indexes; $plan" "$(cat "$TMP/c.err")"
fi
"$TIO" convert -o "$TMP/k.db" "$K" 2>"$TMP/c.err"; rc1=$?
"$TIO" convert --force --to sqlite -o "$TMP/k.db" "$D/ctf/wk-heartbeat-u" 2>>"$TMP/c.err"; rc2=$?
n=$(sqlite3 "$TMP/k.db" "SELECT count(*) FROM events")
"$TIO" convert -o "$TMP/bad.db" /nonexistent 2>>"$TMP/c.err"; rc3=$?
if [ $rc1 -ne 0 ] && [ $rc2 -eq 0 ] && [ "$n" = 20 ] && [ $rc3 -ne 0 ] && [ ! -e "$TMP/bad.db" ] &&
	[ -z "$(ls "$TMP" | grep tmp-)" ]; then
	ok "convert --to sqlite: refuses to replace without --force, replaces with it, a failure leaves no file"
else
	notok "convert --to sqlite: replace/failure" "$rc1 $rc2 $n $rc3" "$(ls "$TMP")" "$(cat "$TMP/c.err")"
fi

# events read for their name alone and grouped by it: one counting pass, no sorter; the
# same answers as over a materialized copy of the table
bad=0
for q in "SELECT name, count(*) FROM events GROUP BY name" "SELECT DISTINCT name FROM events" \
	"SELECT name, count(*) FROM events WHERE cpu = 1 GROUP BY name" "SELECT name, count(*), min(ts) FROM events GROUP BY name" \
	"SELECT name, count(*) FROM events WHERE ts BETWEEN $A AND $B GROUP BY name HAVING count(*) > 10"; do
	a=$("$TIO" sql --csv "$K" "$q" | sort)
	b=$("$TIO" sql --csv "$K" "WITH e AS MATERIALIZED (SELECT * FROM events) ${q/FROM events/FROM e}" | sort)
	[ "$a" = "$b" ] && [ -n "$a" ] || { bad=1; notok "grouped scan: $q"; }
done
[ $bad = 0 ] && ok "GROUP BY name / DISTINCT name (grouped scan) equal the materialized table's answers"

# a join of two trace tables on ts: the inner table keeps its traces open and seeks for each
# outer row; the same answer as with one side materialized
q="SELECT count(*), sum(s.next_tid), sum(length(e.args)) FROM events e JOIN sched_switch s ON e.ts = s.ts AND e.cpu = s.cpu WHERE e.name = 'sched_switch'"
a=$("$TIO" sql --csv --no-header "$K" "$q")
b=$("$TIO" sql --csv --no-header "$K" "WITH s AS MATERIALIZED (SELECT * FROM sched_switch) ${q/JOIN sched_switch s/JOIN s}")
[ "$a" = "$b" ] && [ "${a%%,*}" = 4687 ] && ok "join on ts (inner table seeks per row) = materialized join ($a)" || notok "join on ts" "$a" "$b"
j=$("$TIO" sql --csv --no-header "$K" "SELECT json_type(json_object('a', args), '\$.a') FROM events LIMIT 1")
[ "$j" = object ] && ok "args carries SQLite's JSON subtype: json_object() embeds it as an object" || notok "args JSON subtype" "$j"
# thread and process as the inner table of a join: their rows are kept by the cursor, not recomputed
got=$("$TIO" sql --csv --no-header "$K" -q "SELECT count(*) FROM thread_state t1 JOIN thread t2 USING (utid)" -q "SELECT count(*) FROM thread_state" \
	-q "SELECT count(*) FROM thread t1 JOIN thread t2 USING (utid)" -q "SELECT count(*) FROM thread" | tr '\n' ' ')
set -- $got
[ "$1" = "$2" ] && [ "$3" = "$4" ] && [ "$1" -gt 1000 ] && ok "thread as the inner table of joins ($got)" || notok "thread in joins" "$got"
