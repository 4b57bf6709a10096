#!/bin/bash
# Conversion between every pair of formats: for each source trace (a few small
# ones per format read) and each writer (ctf = CTF 1.8, ctf2 when `convert
# --ctf-version 2` exists, tracedat, ltt, lttng0), convert A -> B and read B
# back: the events (names, times, every field value) must be the input's,
# allowing only the documented normalizations of tests/tools/cmp-matrix.py
# (each with its reason there and in docs/formats/conversion.md); a writer
# that cannot express a trace must refuse it naming the event and field and
# leave no output.  Then B -> A back to the source's own format and the same
# comparison (A -> B -> A).
# TIO_MATRIX_MD=FILE also writes the table of results as Markdown rows.
. "$(dirname "$0")/../lib.sh"
CMP="python3 $TIO_TOP/tests/tools/cmp-matrix.py"
BT1=$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed
BT2=$PEER/ctf/babeltrace-2.1/ctf-traces/2/succeed

# --- sources: FORMAT NAME PATH ------------------------------------------------------------------
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/src-ltt-le" little ILP32 >/dev/null 2>&1
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/src-ltt-be" big LP64 --freq >/dev/null 2>&1
python3 "$TIO_TOP/tests/ltt/mk-ltt2008.py" "$TMP/src-l8-little" little
python3 "$TIO_TOP/tests/ltt/mk-ltt2008.py" "$TMP/src-l8-big" big
SOURCES=(
	"ctf wk-heartbeat-u $BT1/wk-heartbeat-u"
	"ctf smalltrace $BT1/smalltrace"
	"ctf 2packets $BT1/2packets"
	"ctf sequence $BT1/sequence"
	"ctf2 wk-heartbeat-u $BT2/wk-heartbeat-u"
	"ctf2 struct-array-align-elem $BT2/struct-array-align-elem"
	"tracedat v7-zstd-small $TIO_TOP/tests/data/ftrace/v7-zstd-small.dat"
	"tracedat kmem-tlb-v7-zstd $TIO_TOP/tests/data/ftrace/kmem-tlb-v7-zstd.dat"
	"ltt handmade-le $TMP/src-ltt-le"
	"ltt handmade-be $TMP/src-ltt-be"
	"lttng0 15316events $PEER/ltt0x/traces/trace-15316events_nolost_newformat"
	"lttng0-2008 handmade-little $TMP/src-l8-little"
	"lttng0-2008 handmade-big $TMP/src-l8-big"
)
TARGETS=(ctf tracedat ltt lttng0)
CTF2=
"$TIO" convert --help 2>/dev/null | grep -q -- '--ctf-version' && CTF2=1 && TARGETS=(ctf ctf2 tracedat ltt lttng0)

# convert TARGET IN OUT: 0 done, 1 failed (message in $TMP/conv.err)
convert() {
	local tg=$1 in=$2 out=$3
	rm -rf "$out"
	case $tg in
	ctf2) "$TIO" convert -q --to ctf --ctf-version 2 -o "$out" "$in" 2>"$TMP/conv.err" ;;
	*) "$TIO" convert -q --to "$tg" -o "$out" "$in" 2>"$TMP/conv.err" ;;
	esac
}
# the writer of a source format (A -> B -> A)
own() { case $1 in lttng0 | lttng0-2008) echo lttng0 ;; *) echo "$1" ;; esac; }
# a refusal says which writer, which event and why, and leaves nothing
refusal() {
	[ ! -e "$2" ] && [ -z "$(ls -d "$2".tmp-* 2>/dev/null)" ] &&
		grep -qE "(writer|convert)[^:]*: .*(event|field|class)[^:]*: " "$1"
}

# Known defects of writers (KEY<TAB>what): the pair is reported as known while it
# fails the same way, and the test fails once it passes (remove the line then).
KNOWN=$(dirname "$0")/matrix-known.txt
known() { grep -F -- "$1	" "$KNOWN" 2>/dev/null | head -1 | cut -f2; }
# result KEY OK? TEXT...: ok / not ok, through the known list
result() {
	local key=$1 good=$2; shift 2
	local k; k=$(known "$key")
	if [ -n "$k" ]; then
		if [ "$good" = 1 ]; then notok "matrix $key: known defect fixed, remove it from matrix-known.txt" "$@"; else
			n_known=$((n_known + 1)); R[$key]="known defect: $k"; ok "matrix $key: known defect: $k"; fi
		return
	fi
	if [ "$good" = 1 ]; then ok "matrix $key: $1"; else notok "matrix $key" "$@"; fi
}
declare -A R
n_ident=0 n_doc=0 n_ref=0 n_known=0
for s in "${SOURCES[@]}"; do
	read -r fmt name in <<<"$s"
	[ -e "$in" ] || { notok "matrix source $fmt:$name missing"; continue; }
	if ! "$TIO" print --style json "$in" >"$TMP/in.json" 2>"$TMP/in.err"; then
		notok "matrix source $fmt:$name reads" "$(head -2 "$TMP/in.err")"
		continue
	fi
	for tg in "${TARGETS[@]}"; do
		out=$TMP/out-$tg
		[ $tg = tracedat ] && out=$TMP/out.dat
		key="$fmt:$name -> $tg"
		if ! convert "$tg" "$in" "$out"; then
			if refusal "$TMP/conv.err" "$out"; then
				R[$key]="refused: $(head -1 "$TMP/conv.err" | sed 's/^traceio: //' | cut -c1-150)"
				n_ref=$((n_ref + 1))
				result "$key" 1 "${R[$key]}"
			else
				result "$key" 0 "unclear failure" "$(head -3 "$TMP/conv.err")"
			fi
			continue
		fi
		if ! "$TIO" print --style json "$out" >"$TMP/out.json" 2>"$TMP/out.err"; then
			result "$key" 0 "output does not read" "$(head -3 "$TMP/out.err")"
			continue
		fi
		if ! res=$($CMP "$TMP/in.json" "$TMP/out.json"); then
			result "$key" 0 "events differ" "$res"
			continue
		fi
		# back to the source's own format
		a=$(own "$fmt")
		back=$TMP/back-$a
		[ "$a" = tracedat ] && back=$TMP/back.dat
		bres=
		if ! convert "$a" "$out" "$back"; then
			if refusal "$TMP/conv.err" "$back"; then bres="refused ($(head -1 "$TMP/conv.err" | sed 's/^traceio: //' | cut -c1-100))"; else
				result "$key -> $a" 0 "unclear failure" "$(head -3 "$TMP/conv.err")"
				continue
			fi
		elif ! "$TIO" print --style json "$back" >"$TMP/back.json" 2>/dev/null ||
			! bres=$($CMP "$TMP/in.json" "$TMP/back.json"); then
			result "$key -> $a" 0 "events differ" "$bres"
			continue
		fi
		case $res in identical) n_ident=$((n_ident + 1)) ;; *) n_doc=$((n_doc + 1)) ;; esac
		R[$key]="$res; back to $a: $bres"
		result "$key" 1 "${R[$key]}"
	done
done
echo "# $n_ident identical, $n_doc with documented differences, $n_ref refused, $n_known known defects of writers"
# each writer takes something from each source format
[ $((n_ident + n_doc)) -ge $((${#SOURCES[@]} * 2)) ] && ok "matrix coverage" || notok "matrix coverage" "$n_ident + $n_doc conversions"

if [ -n "${TIO_MATRIX_MD:-}" ]; then
	{
		printf '| source | trace |'
		for tg in "${TARGETS[@]}"; do printf ' → %s |' "$tg"; done
		printf '\n|---|---|'
		for tg in "${TARGETS[@]}"; do printf -- '---|'; done
		printf '\n'
		for s in "${SOURCES[@]}"; do
			read -r fmt name in <<<"$s"
			printf '| %s | %s |' "$fmt" "$name"
			for tg in "${TARGETS[@]}"; do
				k="$fmt:$name -> $tg"
				b="$k -> $(own "$fmt")"
				printf ' %s |' "${R[$k]:-${R[$b]:-?}}"
			done
			printf '\n'
		done
	} >"$TIO_MATRIX_MD"
fi
