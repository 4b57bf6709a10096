#!/bin/bash
# The print fmt of every event class of this machine's kernel, fired or not,
# against trace-cmd 3.1.6: a real v6 recording with `-e all` (so that it
# carries every format; only the events of its own command, -F) and 2500
# trace_marker writes, whose records tests/tools/synth-records.py rewrites
# into records of every other class with chosen field values (3 seeds, the
# third with every common_flags byte for -l, and
# seed 1 swapped to big-endian by tests/tools/tracedat-swap.py); `report`,
# `-t`, `-R` and `-l` compared.  Needs a machine that can record.
. "$TIO_TOP/tests/lib.sh"
T=/sys/kernel/tracing
skip() { echo "ok all formats # skip $1"; exit 0; }
why=$(why_no_recording)
[ -z "$why" ] || skip "$why"
timeout 300 flock /tmp/tio-record.lock $NS trace-cmd record -q --file-version 6 -b 60000 -o "$TMP/m.dat" -e all -F \
	bash -c "for i in \$(seq 2500); do printf '%1400s' x > $T/trace_marker; done" > "$TMP/rec.log" 2>&1
[ -s "$TMP/m.dat" ] || { notok "all formats: recorded" "$(tail -3 "$TMP/rec.log")"; exit 0; }
n=$("$TIO" info --count "$TMP/m.dat" 2>/dev/null | sed -n 's/.*(buffer ""): \([0-9]*\) event classes.*/\1/p')
for seed in 1 2 3; do
	if ! python3 "$TIO_TOP/tests/tools/synth-records.py" "$TMP/m.dat" "$TMP/s.dat" $seed > "$TMP/synth" 2>&1; then
		notok "all formats: records rewritten (seed $seed)" "$(tail -3 "$TMP/synth")"
		continue
	fi
	report_same "all formats seed $seed: $(cat "$TMP/synth") of $n," "$TMP/s.dat"
	# the same records as a big-endian machine would have written them
	if [ $seed = 1 ]; then
		if python3 "$TIO_TOP/tests/tools/tracedat-swap.py" "$TMP/s.dat" "$TMP/be.dat" > "$TMP/swap" 2>&1; then
			report_same "all formats seed 1, big-endian," "$TMP/be.dat"
		else
			notok "all formats: big-endian copy made" "$(tail -3 "$TMP/swap")"
		fi
	fi
done
