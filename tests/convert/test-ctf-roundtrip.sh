#!/bin/bash
# traceio convert to CTF 1.8 (src/ctf/ctf-writer.c), read back by babeltrace2
# and by traceio:
#  - CTF -> CTF, babeltrace's CTF 1.8 suite (succeed/, packet-seq-num/,
#    intersection/) and LTTng-UST recordings: `babeltrace2 --no-delta OUT`
#    prints what `babeltrace2 --no-delta IN` prints (modulo babeltrace2
#    2.0.4's stale-empty-string bug: both are checked against traceio's
#    text of IN with tests/tools/cmp-bt2.py), the same "Tracer discarded"
#    warnings (trace and stream names aside: they are paths), and
#    `traceio print OUT` == `traceio print IN`.  def-clk-freq and
#    meta-ctx-sequence (babeltrace2 2.0.4 crashes on them): traceio only.
#  - trace.dat -> CTF (peer samples) and LTTng 0.x -> CTF: babeltrace2 reads
#    OUT, prints what traceio prints for OUT, and that equals
#    `traceio print --style babeltrace IN` event for event, field for field
#    (tests/tools/cmp-conv.py: BLOBs and names the CTF 1.8 way).
#  - options (--names, --begin/--end, --packet-size, --packetize-metadata,
#    several inputs), refusals (existing OUT, bad option) and a damaged
#    input.
# TIO_LTTNG_REC=DIR uses the LTTng recordings of DIR (make-lttng.sh output) first.
. "$(dirname "$0")/../lib.sh"
command -v babeltrace2 >/dev/null || { notok "babeltrace2 installed" "install it: scripts/deps.sh test"; exit 0; }
BT=$PEER/ctf/babeltrace-2.1/ctf-traces/1
CMPBT=$TIO_TOP/tests/tools/cmp-bt2.py
CMPCONV=$TIO_TOP/tests/tools/cmp-conv.py

warnings() { # FILE: discarded-record warnings without trace/stream names
	grep 'WARNING.*Tracer discarded' "$1" | sed -E 's/in trace "[^"]*"/in trace T/; s/within stream "[^"]*"/within stream S/'
}

# ctf NAME IN [CONVERT OPTIONS...]: CTF -> CTF
ctf() {
	local name=$1 in=$2; shift 2
	local out=$TMP/out
	rm -rf "$out"
	if ! "$TIO" convert -q "$@" -o "$out" "$in" 2>"$TMP/conv.err"; then
		notok "$name: convert failed" "$(head -3 "$TMP/conv.err")"; return
	fi
	"$TIO" print "$in" >"$TMP/ti" 2>"$TMP/ti.err"
	"$TIO" print "$out" >"$TMP/to" 2>"$TMP/to.err" || { notok "$name: traceio cannot read OUT" "$(head -3 "$TMP/to.err")"; return; }
	if ! cmp -s "$TMP/ti" "$TMP/to"; then
		notok "$name: traceio print OUT != IN" "$(diff "$TMP/ti" "$TMP/to" | head -6 | cut -c1-300)"; return
	fi
	if [ "$(warnings "$TMP/ti.err")" != "$(warnings "$TMP/to.err")" ]; then
		notok "$name: traceio warnings" "$(diff <(warnings "$TMP/ti.err") <(warnings "$TMP/to.err") | head -6)"; return
	fi
	case $name in *def-clk-freq*|*meta-ctx-sequence*)
		ok "$name: traceio only (babeltrace2 2.0.4 crashes on IN), $(wc -l <"$TMP/to") lines"; return;;
	esac
	babeltrace2 --no-delta "$in" >"$TMP/bi" 2>"$TMP/bi.err"
	if ! babeltrace2 --no-delta "$out" >"$TMP/bo" 2>"$TMP/bo.err"; then
		notok "$name: babeltrace2 cannot read OUT" "$(grep -m3 -i 'error\|fail' "$TMP/bo.err" | cut -c1-300)"; return
	fi
	"$TIO" print --no-delta "$in" >"$TMP/tn" 2>/dev/null
	local how
	if cmp -s "$TMP/bi" "$TMP/bo"; then
		how="identical"
	elif python3 "$CMPBT" "$TMP/bi" "$TMP/tn" >/dev/null && python3 "$CMPBT" "$TMP/bo" "$TMP/tn" >"$TMP/cmp"; then
		how="identical but for babeltrace2 2.0.4's stale empty strings"
	else
		notok "$name: babeltrace2 OUT != IN" "$(diff "$TMP/bi" "$TMP/bo" | head -6 | cut -c1-300)"; return
	fi
	if [ "$(warnings "$TMP/bi.err")" != "$(warnings "$TMP/bo.err")" ]; then
		notok "$name: babeltrace2 warnings" "$(diff <(warnings "$TMP/bi.err") <(warnings "$TMP/bo.err") | head -6)"; return
	fi
	ok "$name: $(wc -l <"$TMP/bo") lines $how, $(warnings "$TMP/bo.err" | wc -l) discarded warnings"
}

# other NAME IN: trace.dat / LTTng 0.x -> CTF
other() {
	local name=$1 in=$2 out=$TMP/out
	rm -rf "$out"
	if ! "$TIO" convert -q -o "$out" "$in" 2>"$TMP/conv.err"; then
		notok "$name: convert failed" "$(head -3 "$TMP/conv.err")"; return
	fi
	"$TIO" print --style babeltrace "$in" >"$TMP/ti" 2>"$TMP/ti.err"
	"$TIO" print "$out" >"$TMP/to" 2>"$TMP/to.err" || { notok "$name: traceio cannot read OUT" "$(head -3 "$TMP/to.err")"; return; }
	if ! python3 "$CMPCONV" "$TMP/ti" "$TMP/to" >"$TMP/cmp"; then
		notok "$name: events differ" "$(cut -c1-300 "$TMP/cmp")"; return
	fi
	if [ "$(warnings "$TMP/ti.err")" != "$(warnings "$TMP/to.err")" ]; then
		notok "$name: warnings" "$(diff <(warnings "$TMP/ti.err") <(warnings "$TMP/to.err") | head -6)"; return
	fi
	if ! babeltrace2 "$out" >"$TMP/bo" 2>"$TMP/bo.err"; then
		notok "$name: babeltrace2 cannot read OUT" "$(grep -m3 -i 'error\|fail' "$TMP/bo.err" | cut -c1-300)"; return
	fi
	if ! python3 "$CMPBT" "$TMP/bo" "$TMP/to" >"$TMP/cmp2"; then
		notok "$name: babeltrace2 and traceio read OUT differently" "$(cat "$TMP/cmp2")"; return
	fi
	ok "$name: $(wc -l <"$TMP/to") events $(cat "$TMP/cmp"), babeltrace2 agrees, $(warnings "$TMP/to.err" | wc -l) discarded warnings"
}

for d in "$BT"/succeed/*/ "$BT"/packet-seq-num/*/ "$BT"/intersection/*/; do
	d=${d%/}
	ctf "${d#$BT/}" "$d"
done
ctf "succeed/wk-heartbeat-u --packet-size 512" "$BT/succeed/wk-heartbeat-u" --packet-size 512
ctf "succeed/lttng-tracefile-rotation --packet-size 1K --packetize-metadata" "$BT/succeed/lttng-tracefile-rotation" \
	--packet-size 1K --packetize-metadata

# LTTng-UST recordings: this machine's cache, else record now when lttng is here
rec=
for c in ${TIO_LTTNG_REC:-} /work/cache/lttng "$TIO_SHARED/../cache/lttng"; do
	[ -d "$c/ust-uid-small" ] && { rec=$c; break; }
done
if [ -z "$rec" ] && ! is_sanitized && command -v lttng >/dev/null && [ "$(id -u)" = 0 ] &&
	SKIP_BIG=1 bash "$TIO_SHARED/tools/make-lttng.sh" "$TMP/lttng" >"$TMP/rec.log" 2>&1; then
	rec=$TMP/lttng
fi
if [ -n "$rec" ]; then
	for t in "$rec"/ust-*-small "$rec"/bt2-rewritten-ctx; do
		[ -d "$t" ] && ctf "lttng/$(basename "$t")" "$t"
	done
	[ -d "$rec/ust-discard-small" ] && ctf "lttng/ust-discard-small --packet-size 4K" "$rec/ust-discard-small" --packet-size 4K
	[ -d "$rec/ust-overwrite-small" ] && ctf "lttng/ust-overwrite-small --packet-size 4K" "$rec/ust-overwrite-small" --packet-size 4K
else
	ok "lttng recordings # skip: no /work/cache/lttng and lttng cannot record here"
fi

for f in "$PEER"/tracedat/samples/*.dat; do
	if is_sanitized && [ "$(stat -c %s "$f")" -gt 20000000 ]; then continue; fi
	other "tracedat/$(basename "$f")" "$f"
done
for d in "$PEER"/ltt0x/traces/*/; do
	d=${d%/}
	other "ltt0x/$(basename "$d")" "$d"
done

# several inputs: one output directory per trace, merged like the inputs
out=$TMP/multi
"$TIO" convert -q -o "$out" "$BT/succeed/wk-heartbeat-u" "$BT/succeed/debug-info" 2>"$TMP/err"
"$TIO" print "$BT/succeed/wk-heartbeat-u" "$BT/succeed/debug-info" >"$TMP/a" 2>&1
"$TIO" print "$out" >"$TMP/b" 2>&1
n=$(find "$out" -name metadata | wc -l)
if [ "$n" = 2 ] && cmp -s "$TMP/a" "$TMP/b"; then ok "two inputs: two traces in OUT, same merged text"
else notok "two inputs" "metadata files: $n" "$(diff "$TMP/a" "$TMP/b" | head -4)" "$(head -2 "$TMP/err")"; fi

# --names, --begin/--end: the output holds what print would show
t=$BT/succeed/multi-domains
first=$("$TIO" print --clock-seconds "$t" 2>/dev/null | sed -n '100s/^\[\([0-9.]*\)\].*/\1/p')
last=$("$TIO" print --clock-seconds "$t" 2>/dev/null | sed -n '200s/^\[\([0-9.]*\)\].*/\1/p')
rm -rf "$TMP/out"
"$TIO" convert -q -b "$first" -e "$last" -o "$TMP/out" "$t"
"$TIO" print -b "$first" -e "$last" "$t" >"$TMP/a" 2>/dev/null
"$TIO" print "$TMP/out" >"$TMP/b" 2>/dev/null
if [ -s "$TMP/a" ] && cmp -s "$TMP/a" "$TMP/b"; then ok "--begin/--end ($(wc -l <"$TMP/b") events)"
else notok "--begin/--end" "$(diff "$TMP/a" "$TMP/b" | head -4)"; fi
name=$("$TIO" print --names none "$t" 2>/dev/null | sed -n '1s/^[^)]*) [^ ]* \([^:]*\):.*/\1/p')
rm -rf "$TMP/out"
"$TIO" convert -q --names "$name" -o "$TMP/out" "$t"
"$TIO" print "$t" 2>/dev/null | grep -F " $name: " >"$TMP/a"
"$TIO" print "$TMP/out" >"$TMP/b" 2>/dev/null
if [ -s "$TMP/a" ] && cmp -s "$TMP/a" "$TMP/b"; then ok "--names $name ($(wc -l <"$TMP/b") events)"
else notok "--names $name" "$(diff "$TMP/a" "$TMP/b" | head -4)"; fi

# refusals: an existing OUT, an unknown option; nothing left behind
mkdir -p "$TMP/exists/x"
if "$TIO" convert -q -o "$TMP/exists" "$BT/succeed/smalltrace" 2>"$TMP/err"; then notok "existing OUT refused"
elif [ -d "$TMP/exists/x" ] && grep -q 'already exists' "$TMP/err"; then ok "existing OUT refused: $(cat "$TMP/err")"
else notok "existing OUT refused" "$(cat "$TMP/err")"; fi
if "$TIO" convert -q --force -o "$TMP/exists" "$BT/succeed/smalltrace" 2>"$TMP/err"; then
	notok "--force does not replace a directory that holds no trace"
else ok "--force keeps a directory without a CTF trace: $(cat "$TMP/err")"; fi
rm -rf "$TMP/out"
"$TIO" convert -q -o "$TMP/out" "$BT/succeed/smalltrace" && "$TIO" convert -q --force -o "$TMP/out" "$BT/succeed/2packets"
"$TIO" print "$BT/succeed/2packets" >"$TMP/a"
"$TIO" print "$TMP/out" >"$TMP/b"
same "--force replaces a CTF output" "$TMP/a" "$TMP/b"
if "$TIO" convert --packet-size 12 -o "$TMP/bad" "$BT/succeed/smalltrace" 2>"$TMP/err" || [ -e "$TMP/bad" ]; then
	notok "bad --packet-size refused"
else ok "bad --packet-size refused: $(cat "$TMP/err")"; fi
left=$(find "$TMP" -maxdepth 1 -name '*.tmp-*' | wc -l)
[ "$left" = 0 ] && ok "no temporary directory left" || notok "temporary directories left: $left"

# a damaged input: the error names file and offset, the good events are written, exit 1
cp -r "$BT/succeed/wk-heartbeat-u" "$TMP/damaged"
f=$(ls "$TMP"/damaged/u_* | head -1)
printf "\xde\xad\xbe\xef" | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
rm -rf "$TMP/out"
"$TIO" convert -q -o "$TMP/out" "$TMP/damaged" 2>"$TMP/err"
rc=$?
"$TIO" print "$TMP/damaged" >"$TMP/a" 2>/dev/null
"$TIO" print "$TMP/out" >"$TMP/b" 2>/dev/null
if [ $rc = 1 ] && grep -q "$(basename "$f")@0x" "$TMP/err" && cmp -s "$TMP/a" "$TMP/b"; then
	ok "damaged input: exit 1, $(head -1 "$TMP/err" | cut -c1-160), $(wc -l <"$TMP/b") events kept"
else
	notok "damaged input (exit $rc)" "$(head -2 "$TMP/err")" "$(diff "$TMP/a" "$TMP/b" | head -4)"
fi
