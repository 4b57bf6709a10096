#!/bin/bash
# Decoded values against yactfr's iteration tests: for every case of
# yactfr-iter-data/{ctf-1,ctf-2,ctf-2-auto-translated}, traceio's JSON output
# (`print --style json`) reduced to packet preambles and event records with
# their leaf values must equal yactfr's expected element sequence
# (tests/tools/yactfr-cmp.py says how).  pass-* cases: equal, exit 0.
# fail-* cases: exit non-zero, the error names the file, a byte offset and a
# field, and every unit yactfr completed before its error was delivered.
#
# Cases that traceio does not decode like yactfr yet are listed in
# tests/ctf/yactfr-known.txt with the reason; such a case must still fail
# (when it starts passing, the list must shrink: that is reported too).
# Last lines: per-directory counts "DIR: M/N match".
. "$(dirname "$0")/../lib.sh"
Y=$PEER/ctf/yactfr-iter-data
CMP=$TIO_TOP/tests/tools/yactfr-cmp.py
KNOWN=$TIO_TOP/tests/ctf/yactfr-known.txt
summary=()
for dir in ctf-1 ctf-2 ctf-2-auto-translated; do
	[ -d "$Y/$dir" ] || { notok "yactfr/$dir: missing $Y/$dir"; continue; }
	total=0 matched=0
	for c in "$Y/$dir"/*/; do
		c=${c%/}
		n=$(basename "$c")
		id=$dir/$n
		total=$((total + 1))
		# the reader would take the expected file for a data stream: copy the two inputs
		w=$TMP/$dir/$n
		mkdir -p "$w"
		cp "$c/metadata" "$c/stream" "$w/"
		timeout 20 "$TIO" print --style json "$w" >"$TMP/out.json" 2>"$TMP/err"
		rc=$?
		why=
		case $n in
		pass-*)
			if [ $rc -ne 0 ]; then
				why="exit $rc: $(head -c 300 "$TMP/err")"
			elif ! res=$(python3 "$CMP" "$c/expected-yactfr-elements.txt" "$c/metadata" "$TMP/out.json"); then
				why=$res
			fi
			;;
		fail-*)
			if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
				why="exit $rc, expected an error"
			elif ! grep -qE "/stream@0x[0-9a-f]+: [a-z_.]+[a-z_.\[\]]*" "$TMP/err" &&
			     ! grep -qE "/metadata(:[0-9]+:[0-9]+)?: " "$TMP/err"; then
				why="error does not name file, offset and field: $(head -c 300 "$TMP/err")"
			elif ! res=$(python3 "$CMP" --fail "$c/expected-yactfr-elements.txt" "$c/metadata" "$TMP/out.json"); then
				why=$res
			fi
			;;
		esac
		known=$(grep -E "^$id( |$)" "$KNOWN" 2>/dev/null | cut -d' ' -f2-)
		if [ -z "$why" ]; then
			matched=$((matched + 1))
			if [ -n "$known" ]; then
				notok "yactfr/$id matches now: remove it from tests/ctf/yactfr-known.txt"
			else
				ok "yactfr/$id${res:+: $res}"
			fi
		elif [ -n "$known" ]; then
			ok "yactfr/$id: known difference ($known): $(echo "$why" | head -1 | cut -c1-200)"
		else
			notok "yactfr/$id" "$why" "$(head -3 "$TMP/err")"
		fi
		res=
	done
	summary+=("yactfr $dir: $matched/$total match")
done
# the comparison can fail: one changed value, one dropped event, one renamed field
c=$Y/ctf-1/pass-vars
"$TIO" print --style json "$TMP/ctf-1/pass-vars" >"$TMP/good.json" 2>/dev/null
for mut in 's/305419896/305419897/' '$d' 's/"v_abs"/"v_abz"/'; do
	sed "$mut" "$TMP/good.json" >"$TMP/bad.json"
	if ! cmp -s "$TMP/good.json" "$TMP/bad.json" &&
	   ! python3 "$CMP" "$c/expected-yactfr-elements.txt" "$c/metadata" "$TMP/bad.json" >/dev/null; then
		ok "yactfr comparison catches a damaged output ($mut)"
	else
		notok "yactfr comparison does not catch a damaged output ($mut)"
	fi
done
printf '%s\n' "${summary[@]}"
