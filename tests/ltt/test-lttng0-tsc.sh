#!/bin/bash
# LTTng 0.x compact event headers (27 low TSC bits).  On a 32-bit trace the
# default rule keeps the high bits of the previous TSC (the 32-bit tracer
# changed them only through full 64-bit TSCs), so an event 16 us earlier than
# the one before it stays 16 us earlier, in file order, and `check` lists it
# as a note (exit 0); LTTV's rule (--ltt-tsc lttv) adds 2^27 cycles instead,
# as LTTV printed, and the next full TSC then goes back 67 ms: problems for
# `check`.  On a 64-bit trace the default carries, as the 64-bit tracer wrote
# a full TSC only for a move of 2^27 cycles or more or a move back.
# Hand-made format 2.3 traces: tests/ltt/mk-lttng0.py.  The peers' traces
# (32-bit) read the same under every rule.
. "$(dirname "$0")/../lib.sh"

T=$TMP/l23
/usr/bin/python3 "$(dirname "$0")/mk-lttng0.py" "$T" || { notok tsc-generator; exit 0; }

# kernel events as "irq_entry SEC.NSEC irq_id" from the LTTV-style text
kernel_lines() { sed -n 's/^kernel\.\(irq_entry\): \([0-9.]*\) .*irq_id = \([0-9]*\) }$/\1 \2 \3/p'; }

"$TIO" print "$T" 2>"$TMP/err" | kernel_lines >"$TMP/default.txt"
same tsc-default-nocarry "$T.expect-nocarry" "$TMP/default.txt"
"$TIO" print --ltt-tsc auto "$T" 2>>"$TMP/err" | kernel_lines >"$TMP/auto.txt"
same tsc-option-auto-32 "$T.expect-nocarry" "$TMP/auto.txt"
"$TIO" print --ltt-tsc nocarry "$T" 2>>"$TMP/err" | kernel_lines >"$TMP/nocarry.txt"
same tsc-option-nocarry "$T.expect-nocarry" "$TMP/nocarry.txt"
"$TIO" print --ltt-tsc lttv "$T" 2>>"$TMP/err" | kernel_lines >"$TMP/lttv.txt"
same tsc-option-lttv "$T.expect-lttv" "$TMP/lttv.txt"
[ -s "$TMP/err" ] && notok tsc-print-quiet "$(head -3 "$TMP/err")" || ok tsc-print-quiet

# the 2^27 jump itself, as LTTV computes it: event 2 - event 1 under lttv
read -r off cyc ns <"$T.note"
d=$(awk 'NR==1{split($2,a,".");t1=a[1]*1e9+a[2]} NR==2{split($2,a,".");t2=a[1]*1e9+a[2]} END{printf "%d", t2-t1}' "$TMP/lttv.txt")
want=$(/usr/bin/python3 -c "print(int((2**27 - $cyc) * 1e9 / 1989000000))")
if [ "${d#-}" -ge $((want - 1)) ] && [ "${d#-}" -le $((want + 1)) ] && [ "$d" -gt 60000000 ]; then
	ok tsc-lttv-jump-67ms
else
	notok tsc-lttv-jump-67ms "event 2 - event 1 = $d ns, wanted about $want"
fi

# check: one note naming the file, the offset and how far back; exit 0
"$TIO" check "$T" >"$TMP/check.txt" 2>&1
rc=$?
want="note: $T/kernel_0@$off: event 'irq_entry': $ns ns ($cyc cycles) earlier than an event before it in its file, kept in file order"
if [ $rc -eq 0 ] && grep -qxF "  $want" "$TMP/check.txt" && grep -q ': 8 events, 1 note, ok$' "$TMP/check.txt"; then
	ok tsc-check-note
else
	notok tsc-check-note "rc=$rc" "wanted: $want" "$(cat "$TMP/check.txt")"
fi
"$TIO" check -q "$T" >"$TMP/checkq.txt" 2>&1
[ $? -eq 0 ] && ! grep -q 'note:' "$TMP/checkq.txt" && ok tsc-check-quiet || notok tsc-check-quiet "$(cat "$TMP/checkq.txt")"

# check --ltt-tsc lttv: LTTV's times go back at the full TSC: problems, exit 1
"$TIO" check --ltt-tsc lttv "$T" >"$TMP/checkl.txt" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "kernel_0@0x54: event 'irq_entry': time .* went backwards" "$TMP/checkl.txt" &&
	! grep -q 'note:' "$TMP/checkl.txt"; then
	ok tsc-check-lttv-problems
else
	notok tsc-check-lttv-problems "rc=$rc" "$(cat "$TMP/checkl.txt")"
fi

# info and convert take the option too; a bad rule is a usage error
"$TIO" info --ltt-tsc lttv "$T" >/dev/null 2>&1 && ok tsc-info-option || notok tsc-info-option
"$TIO" print --ltt-tsc carry "$T" >/dev/null 2>"$TMP/bad.err"
rc=$?
[ $rc -ne 0 ] && grep -q "not a rule (auto, nocarry, lttv)" "$TMP/bad.err" && ok tsc-bad-rule || notok tsc-bad-rule "rc=$rc" "$(cat "$TMP/bad.err")"
# with no LTTng 0.x input it is refused (print, info, convert), as --ts2secs is without a trace.dat
C=$TIO_TOP/tests/data/ctf/wk-heartbeat-u
for cmd in "print --ltt-tsc lttv" "info --ltt-tsc nocarry" "convert -q --to ctf -o $TMP/nope --ltt-tsc auto" "print -o dummy --ltt-tsc lttv"; do
	TIO_THREADS=2 "$TIO" $cmd "$C" > /dev/null 2> "$TMP/err"; rc=$?
	name=$(echo "$cmd" | sed 's/ -q.*//; s/ --.*//')
	if [ $rc -ne 0 ] && grep -q -- "--ltt-tsc is for LTTng 0.x inputs, and none is one" "$TMP/err" && [ ! -e "$TMP/nope" ]; then
		ok "tsc-refused-$name"
	else notok "tsc-refused-$name" "exit $rc" "$(cat "$TMP/err")"; fi
done
"$TIO" print --ltt-tsc nocarry "$C" "$T" > /dev/null 2>&1 && ok tsc-with-other-inputs || notok tsc-with-other-inputs
for c in print info check convert; do
	"$TIO" help $c 2>&1 | grep -q -- '--ltt-tsc RULE' || "$TIO" $c --help 2>&1 | grep -q -- '--ltt-tsc' || { notok "tsc-help-$c"; continue; }
	ok "tsc-help-$c"
done

# 64-bit: a compact event whose low bits wrapped carries (default), the
# full TSC 10 us back is a note
T=$TMP/l64
/usr/bin/python3 "$(dirname "$0")/mk-lttng0.py" "$T" 64 || notok tsc-generator-64
"$TIO" print "$T" 2>&1 | kernel_lines >"$TMP/d64.txt"
same tsc-default-64-carries "$T.expect-lttv" "$TMP/d64.txt"
"$TIO" print --ltt-tsc nocarry "$T" 2>&1 | kernel_lines >"$TMP/n64.txt"
same tsc-option-nocarry-64 "$T.expect-nocarry" "$TMP/n64.txt"
read -r off cyc ns <"$T.note"
"$TIO" check "$T" >"$TMP/check64.txt" 2>&1
rc=$?
want="note: $T/kernel_0@$off: event 'irq_entry': $ns ns ($cyc cycles) earlier than an event before it in its file, kept in file order"
if [ $rc -eq 0 ] && grep -qxF "  $want" "$TMP/check64.txt"; then
	ok tsc-check-note-64
else
	notok tsc-check-note-64 "rc=$rc" "wanted: $want" "$(cat "$TMP/check64.txt")"
fi

# the peers' real traces (2.5, 2.6): no compact event goes back, both rules
# give the same text, check is clean under both
for t in "$PEER"/ltt0x/traces/*/; do
	t=${t%/}
	n=$(basename "$t")
	a=$("$TIO" print --ltt-tsc nocarry "$t" 2>&1 | md5sum)
	b=$("$TIO" print --ltt-tsc lttv "$t" 2>&1 | md5sum)
	c=$("$TIO" print "$t" 2>&1 | md5sum)
	[ "$a" = "$b" ] && [ "$a" = "$c" ] && ok "tsc-peer-same-$n" || notok "tsc-peer-same-$n"
	"$TIO" check "$t" >"$TMP/pc.txt" 2>&1 && grep -q 'events, ok$' "$TMP/pc.txt" && ok "tsc-peer-check-$n" ||
		notok "tsc-peer-check-$n" "$(tail -3 "$TMP/pc.txt")"
done
