#!/bin/bash
# traceio info on trace.dat files: its trace-cmd part is byte for byte what
# `trace-cmd dump --summary` (3.1.6) prints, and its event count, counts per
# event and per CPU, time range and dropped events agree with the lines of
# `trace-cmd report -t` (peer corpus; tests/ftrace/test-live.sh does the same
# on fresh recordings).
. "$TIO_TOP/tests/lib.sh"
D=$PEER/tracedat
E=$D/expected-trace-cmd-3.1.6
CMP=$TIO_TOP/tests/tools/cmp-info-report.py

# summary INFO-OUTPUT: the lines trace-cmd's summary has (from " Tracing meta data").
summary() { awk '/^ Tracing meta data/{p=1; print ""} p && /^  [a-z]/{exit} p' "$1"; }

cd "$D" || exit 1
for f in samples/*.dat converted-by-trace-cmd-3.1.6/*.dat; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .dat)
	if ! "$TIO" info --count "$f" > "$TMP/info" 2> "$TMP/err"; then
		notok "info $b" "exit status $?" "$(head -3 "$TMP/err")"
		continue
	fi
	if [ -f "$E/$b.dump-summary.txt" ]; then
		summary "$TMP/info" > "$TMP/sum"
		same "info $b = dump --summary" "$E/$b.dump-summary.txt" "$TMP/sum"
	fi
	r=$E/$b.report-t.txt
	if [ -f "$r.xz" ]; then xz -dc "$r.xz" > "$TMP/rep"; elif [ -f "$r" ]; then cp "$r" "$TMP/rep"; else continue; fi
	if python3 "$CMP" "$TMP/info" "$TMP/rep" > "$TMP/diff"; then
		ok "info $b counts = report -t"
	else
		notok "info $b counts = report -t" "$(head -5 "$TMP/diff")"
	fi
done

# other formats keep the generic listing (no trace-cmd part)
"$TIO" info --count "$TIO_TOP/tests/data/ctf/wk-heartbeat-u" > "$TMP/ctf" 2>&1
if grep -q "Tracing meta data" "$TMP/ctf" || ! grep -q "^  stream class 0: .* event classes$" "$TMP/ctf"; then
	notok "info CTF without trace-cmd summary" "$(head -5 "$TMP/ctf")"
else
	ok "info CTF without trace-cmd summary"
fi
