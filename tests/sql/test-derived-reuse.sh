#!/bin/bash
# The derived tables (sched_slice, thread_state, counter, thread, process) are
# made once per table and served from memory afterwards (docs/sql.md): as the
# inner side of a join, from a second cursor of the same table and in later
# statements they give the same rows as the `WITH ... AS MATERIALIZED` form,
# and fast (each walk of a 41 k-event trace.dat takes ~0.2 s: a join or 1000
# statements that walked it again per outer row or per statement would take
# minutes, past the timeouts); ts bounds answered from the kept rows.
. "$(dirname "$0")/../lib.sh"
EXT=$TIO_BUILD/libtraceio_sqlite
S=$PEER/tracedat/samples
L=$S/langraph-x86_64-v7-zstd.dat          # 2255 slices, 3755 thread states
A=$S/lisa-tests-assets-sched_load-arm64-v6.dat # 399 slices, 490 counter rows
# a program loading the ASan-built extension needs the ASan runtime first
PRE=()
is_sanitized && PRE=(env LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" ASAN_OPTIONS=detect_leaks=0)

# check NAME TRACE QUERY MATERIALIZED_QUERY MIN_COUNT: both forms give the same
# (non-empty) answer, the first within 60 s
check() {
	local got want
	got=$(timeout 60 "$TIO" sql --csv --no-header "$2" "$3" 2>&1)
	local rc=$?
	want=$("$TIO" sql --csv --no-header "$2" "$4" 2>&1)
	if [ $rc -ne 0 ]; then
		notok "$1" "exit $rc (124: timeout)" "$got"
	elif [ "$got" != "$want" ] || [ "${got%%,*}" -lt "$5" ] 2>/dev/null; then
		notok "$1" "got:  $got" "want: $want"
	else
		ok "$1 ($got)"
	fi
}

# sched_slice x thread_state on (ts, utid): thread_state the inner table, ts = a bound
check "join sched_slice, thread_state on ts and utid (inner: ts bound from memory)" "$L" \
	"SELECT count(*), sum(a.dur), sum(b.dur) FROM sched_slice a JOIN thread_state b ON b.ts = a.ts AND b.utid = a.utid WHERE b.state = 'Running'" \
	"WITH a AS MATERIALIZED (SELECT * FROM sched_slice), b AS MATERIALIZED (SELECT * FROM thread_state)
	 SELECT count(*), sum(a.dur), sum(b.dur) FROM a JOIN b ON b.ts = a.ts AND b.utid = a.utid WHERE b.state = 'Running'" 1000
# two cursors of one table, joined on a column that is no bound (the inner one read whole per outer row)
check "self-join of sched_slice on utid (second cursor reuses the rows)" "$L" \
	"SELECT count(*), sum(a.dur % 1000 * (b.dur % 1000)) FROM sched_slice a JOIN sched_slice b USING (utid)" \
	"WITH a AS MATERIALIZED (SELECT * FROM sched_slice) SELECT count(*), sum(a.dur % 1000 * (b.dur % 1000)) FROM a JOIN a b USING (utid)" 2255
# (490 counter rows only: the old per-row walks of this small trace fit in 60 s too; a check of the rows)
check "counter joined with itself on ts and cpu" "$A" \
	"SELECT count(*), sum(a.value), sum(b.value) FROM counter a JOIN counter b ON b.ts = a.ts AND b.cpu = a.cpu" \
	"WITH a AS MATERIALIZED (SELECT * FROM counter) SELECT count(*), sum(a.value), sum(b.value) FROM a JOIN a b ON b.ts = a.ts AND b.cpu = a.cpu" 490
check "sched_slice x thread x process (thread, process inner)" "$L" \
	"SELECT count(*), count(t.name), count(p.upid) FROM sched_slice s JOIN thread t USING (utid) LEFT JOIN process p ON p.upid = t.upid" \
	"WITH s AS MATERIALIZED (SELECT * FROM sched_slice), t AS MATERIALIZED (SELECT * FROM thread), p AS MATERIALIZED (SELECT * FROM process)
	 SELECT count(*), count(t.name), count(p.upid) FROM s JOIN t USING (utid) LEFT JOIN p ON p.upid = t.upid" 2255

# ts bounds (and cpu =) answered from the kept rows: every form against SQLite's own filtering of the materialized rows
mid=$("$TIO" sql --csv --no-header "$L" "SELECT ts FROM sched_slice ORDER BY ts LIMIT 1 OFFSET 1000")
cpu=$("$TIO" sql --csv --no-header "$L" "SELECT cpu FROM sched_slice WHERE ts = $mid LIMIT 1")
for w in "ts = $mid" "ts < $mid" "ts <= $mid" "ts > $mid" "ts >= $mid" "ts BETWEEN $mid - 5000000 AND $mid + 5000000" \
	"ts > $mid AND ts < $mid + 20000000 AND cpu = $cpu" "ts >= $mid.5" "ts < '$mid'" "ts > 9223372036854775807" "ts < -1"; do
	for t in sched_slice thread_state; do
		got=$("$TIO" sql --csv --no-header "$L" "SELECT count(*), coalesce(sum(dur), 0), coalesce(sum(utid * ts % 1000003), 0) FROM $t WHERE $w")
		want=$("$TIO" sql --csv --no-header "$L" "WITH x AS MATERIALIZED (SELECT * FROM $t) SELECT count(*), coalesce(sum(dur), 0), coalesce(sum(utid * ts % 1000003), 0) FROM x WHERE $w")
		[ "$got" = "$want" ] || { notok "$t WHERE $w" "got:  $got" "want: $want"; continue 2; }
	done
done
[ -n "$mid" ] && [ "$w" = "ts < -1" ] && ok "ts bounds and cpu = from memory: 11 forms x 2 tables equal SQLite's filtering"
got=$("$TIO" sql --csv --no-header "$L" "SELECT count(*) FROM sched_slice WHERE ts = $mid")
[ "${got:-0}" -ge 1 ] && ok "ts = an existing slice's ts: $got row(s)" || notok "ts = $mid" "$got"

# later statements and new cursors of one table (the sqlite3 shell, .load): 1000 statements, each
# with a ts bound, answered from the rows the first one made; the same numbers from a copy
"$TIO" sql --csv --no-header "$L" "SELECT ts FROM sched_slice WHERE rowid % 2 = 0 LIMIT 1000" >"$TMP/ts"
{
	echo "CREATE VIRTUAL TABLE s USING traceio('$L', 'sched_slice');"
	echo "CREATE TEMP TABLE c AS SELECT * FROM s;"
	while read -r t; do echo "SELECT (SELECT count(*) FROM s WHERE ts >= $t) = (SELECT count(*) FROM c WHERE ts >= $t);"; done <"$TMP/ts"
} >"$TMP/q.sql"
timeout 60 "${PRE[@]}" sqlite3 -batch -cmd ".load $EXT" :memory: <"$TMP/q.sql" >"$TMP/q.out" 2>&1
rc=$?
n=$(grep -cx 1 "$TMP/q.out")
[ $rc -eq 0 ] && [ "$n" = "$(wc -l <"$TMP/ts")" ] && [ "$n" -ge 1000 ] &&
	ok "1000 statements on one sched_slice table (sqlite3 shell) within 60 s, each equal to a copy's count" ||
	notok "statements reusing the rows" "exit $rc, $n equal" "$(grep -vx 1 "$TMP/q.out" | head -3)"
