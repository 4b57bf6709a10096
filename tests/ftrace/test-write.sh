#!/bin/bash
# The trace.dat writer (`traceio convert ... -o OUT.dat`):
#  - trace.dat -> trace.dat, v6 and v7 (none, zstd): `trace-cmd report` of the
#    output prints what trace-cmd 3.1.6 printed for the input (the peer corpus'
#    expected reports, the fixtures in tests/data/ftrace); v7 zlib (which
#    Debian's trace-cmd cannot read) read back by traceio instead;
#  - CTF -> trace.dat: trace-cmd reads the output (exit 0, same text as
#    `traceio print` of it) and every event, time stamp and field value of the
#    input is in it (tests/tools/cmp-tracedat.py over both JSON dumps);
#  - usage errors and the temporary file.
. "$TIO_TOP/tests/lib.sh"
D=$PEER/tracedat
E=$D/expected-trace-cmd-3.1.6
F=$TIO_TOP/tests/data/ftrace
CMP=$TIO_TOP/tests/tools/cmp-tracedat.py
expected() { if [ -f "$1.xz" ]; then xz -dc "$1.xz"; else cat "$1"; fi; }
have_tc=true
command -v trace-cmd > /dev/null || have_tc=false

inputs=("$F"/*.dat)
if ! is_sanitized; then
	inputs+=("$D"/samples/*.dat "$D"/converted-by-trace-cmd-3.1.6/*.dat)
fi
for f in "${inputs[@]}"; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .dat)
	base=$E/$b
	[ -f "$base.report.txt" ] || [ -f "$base.report.txt.xz" ] || base=${f%.dat}
	expected "$base.report.txt" > "$TMP/exp"
	for v in v6 v7-none v7-zstd v7-zlib; do
		case $v in
		v6) opt="--file-version 6";; v7-none) opt="";; v7-zstd) opt="--compression zstd";;
		v7-zlib) opt="--compression zlib";;
		esac
		rm -f "$TMP/o.dat"
		if ! "$TIO" convert -q $opt -o "$TMP/o.dat" "$f" 2> "$TMP/err"; then
			notok "write $b $v" "convert failed: $(head -3 "$TMP/err")"
			continue
		fi
		if [ $v = v7-zlib ] || ! $have_tc; then
			"$TIO" print "$TMP/o.dat" > "$TMP/got" 2> "$TMP/err"
		else
			trace-cmd report -i "$TMP/o.dat" > "$TMP/got" 2> "$TMP/err"
		fi
		same "write $b $v" "$TMP/exp" "$TMP/got"
		# traceio reads its own uncompressed v7 too: kallsyms and printk
		# formats from an uncompressed section, read on first use
		if [ $v = v7-none ] && $have_tc; then
			"$TIO" print "$TMP/o.dat" > "$TMP/got" 2> "$TMP/err"
			same "write $b $v read by traceio" "$TMP/exp" "$TMP/got"
		fi
	done
done

# CTF -> trace.dat
ctf=("$TIO_TOP"/tests/data/ctf/*/)
if ! is_sanitized; then
	for t in "$PEER"/ctf/babeltrace-2.1/ctf-traces/1/succeed/*/; do ctf+=("$t"); done
fi
# new LTT traces: floats (written as float/double bits) and variants (the
# option's name, then every option's fields) read back with their values
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/lttnew-le" little ILP32 > /dev/null 2>&1
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/lttnew-be" big LP64 --freq > /dev/null 2>&1
ctf+=("$TMP/lttnew-le" "$TMP/lttnew-be")
for t in "${ctf[@]}"; do
	t=${t%/}
	[ -d "$t" ] || continue
	b=$(basename "$t")
	rm -f "$TMP/c.dat"
	if ! "$TIO" convert -q -o "$TMP/c.dat" "$t" 2> "$TMP/err"; then
		notok "ctf to tracedat $b" "convert failed: $(head -3 "$TMP/err")"
		continue
	fi
	"$TIO" print --style json "$t" > "$TMP/in.jsonl" 2> /dev/null
	"$TIO" print --style json "$TMP/c.dat" > "$TMP/out.jsonl" 2> "$TMP/err"
	if ! r=$(python3 "$CMP" "$TMP/in.jsonl" "$TMP/out.jsonl"); then
		notok "ctf to tracedat $b values" "$r"
		continue
	fi
	ok "ctf to tracedat $b values ($r)"
	$have_tc || continue
	if ! trace-cmd report -i "$TMP/c.dat" > "$TMP/tc" 2> "$TMP/err"; then
		notok "ctf to tracedat $b trace-cmd" "trace-cmd report failed: $(head -3 "$TMP/err")"
		continue
	fi
	# a trace without events: trace-cmd still says "cpus=N", traceio print prints nothing
	grep -q '"type":"event"' "$TMP/in.jsonl" || continue
	"$TIO" print "$TMP/c.dat" > "$TMP/tio" 2>&1
	same "ctf to tracedat $b trace-cmd" "$TMP/tc" "$TMP/tio"
	case $b in lttnew-*)
		# libtraceevent prints a double's bits (0.25 = 0x3fd0...), the variant's
		# option by name, an enumeration's labels (__print_symbolic)
		if grep -q 'state=Waiting name=task1 .* load=0x3fd0000000000000$' "$TMP/tc" &&
			grep -q 'body_value=b body_value_a=0 body_value_b=text 1 ' "$TMP/tc"; then
			ok "ctf to tracedat $b float bits, variant fields and enum labels in trace-cmd report"
		else
			notok "ctf to tracedat $b float bits, variant fields and enum labels in trace-cmd report" "$(grep -m2 -E 'sched:|net:' "$TMP/tc")"
		fi
		;;
	esac
done

# discarded-event counts: every one is in the output, except those after a
# CPU's last record (no record to carry them), which the warning counts
d=$TIO_TOP/tests/data/ctf/lttng-ust-discard
rm -f "$TMP/d.dat"
"$TIO" convert -q -o "$TMP/d.dat" "$d" 2> "$TMP/err"
disc() { "$TIO" info --count "$1" | awk '/^  discarded events:/ {s += $3} END {print s + 0}'; }
n_in=$(disc "$d") n_out=$(disc "$TMP/d.dat")
n_late=$(sed -n 's/.*warning: tracedat writer: \([0-9]*\) discarded events.*/\1/p' "$TMP/err")
if [ "$n_in" -gt 0 ] && [ "$n_in" = $((n_out + ${n_late:-0})) ]; then
	ok "discarded events kept ($n_out of $n_in in the file, ${n_late:-0} after the last records reported)"
else
	notok "discarded events kept" "input $n_in, output $n_out, reported ${n_late:-none}: $(cat "$TMP/err")"
fi

# usage errors; nothing left behind
src=$F/v7-zstd-small.dat
if "$TIO" convert -q --file-version 6 --compression zstd -o "$TMP/u.dat" "$src" > /dev/null 2> "$TMP/err"; then
	notok "v6 with compression refused" "exit status 0"
elif [ -e "$TMP/u.dat" ] || ls "$TMP"/u.dat.tmp-* > /dev/null 2>&1; then
	notok "v6 with compression refused" "an output file was left: $(ls "$TMP")"
else
	ok "v6 with compression refused ($(head -1 "$TMP/err"))"
fi
if "$TIO" convert -q --compression lz4 -o "$TMP/u.dat" "$src" > /dev/null 2> "$TMP/err"; then
	notok "unknown compression refused" "exit status 0"
else
	ok "unknown compression refused"
fi
: > "$TMP/exists.dat"
if "$TIO" convert -q -o "$TMP/exists.dat" "$src" > /dev/null 2>&1 || [ -s "$TMP/exists.dat" ]; then
	notok "existing output kept without --force"
else
	ok "existing output kept without --force"
fi
