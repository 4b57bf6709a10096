#!/bin/bash
# TSDL corner cases where traceio must agree with babeltrace (issue 12, items
# 2 and 3), on hand-made traces (tests/tools/gen-ctf-tsdl.py): blank space and
# a BOM before the metadata signature, string escapes and \0 in values, a
# top-level structure without its ';', reserved keywords as names, an empty
# structure aligned past the packet content's end.  Where Debian's babeltrace2
# (2.0.4) reads the trace, traceio's text must be the same; where it refuses
# the trace, traceio must refuse it too, saying what and where.
. "$(dirname "$0")/../lib.sh"
command -v babeltrace2 >/dev/null || { notok "babeltrace2 installed" "install it: scripts/deps.sh test"; exit 0; }
GEN="python3 $TIO_TOP/tests/tools/gen-ctf-tsdl.py"
for c in $($GEN list); do
	$GEN "$c" "$TMP/t/$c" || notok "generate $c"
done
T=$TMP/t

# same_as_bt2 NAME CASE: babeltrace2 reads CASE; traceio prints the same, exit 0.
same_as_bt2() {
	babeltrace2 "$T/$2" >"$TMP/bt.out" 2>/dev/null || { notok "$1: babeltrace2 failed"; return; }
	"$TIO" print "$T/$2" >"$TMP/tio.out" 2>"$TMP/tio.err" || { notok "$1: exit $?" "$(head -3 "$TMP/tio.err")"; return; }
	same "$1 ($(wc -l <"$TMP/tio.out") lines, as babeltrace2)" "$TMP/bt.out" "$TMP/tio.out"
}

# refused NAME CASE TEXT: traceio refuses CASE saying TEXT (fixed string); babeltrace2 refuses it too
# (unless BT2_READS=1: babeltrace2 2.0.4 reads it).
refused() {
	"$TIO" print "$T/$2" >"$TMP/tio.out" 2>"$TMP/tio.err"
	local rc=$?
	babeltrace2 "$T/$2" >/dev/null 2>&1
	local btrc=$?
	if [ $rc -eq 0 ]; then
		notok "$1: accepted" "$(head -3 "$TMP/tio.out")"
	elif ! grep -qF -- "$3" "$TMP/tio.err"; then
		notok "$1: message" "got:      $(head -1 "$TMP/tio.err")" "expected: $3"
	elif [ $btrc -eq 0 ] && [ "${BT2_READS:-0}" != 1 ]; then
		notok "$1: babeltrace2 reads it"
	else
		ok "$1: refused ($(head -1 "$TMP/tio.err" | sed 's/^traceio: //' | cut -c1-150))"
	fi
}

# --- item 2: blank space and a UTF-8 BOM before "/* CTF 1.8" (babeltrace 2.1 reads them;
# Debian's 2.0.4 does not, so the text is compared with the same trace without them)
babeltrace2 "$T/base" >"$TMP/base.bt" 2>/dev/null || notok "base: babeltrace2 failed"
for c in ws-newline ws-mixed bom bom-ws; do
	if "$TIO" print "$T/$c" >"$TMP/tio.out" 2>"$TMP/tio.err"; then
		same "$c: metadata with leading blank space/BOM prints as babeltrace2 prints it without" \
			"$TMP/base.bt" "$TMP/tio.out"
	else
		notok "$c: exit $?" "$(head -3 "$TMP/tio.err")"
	fi
done
same_as_bt2 "ws-packetized: packet text starting with blank lines" ws-packetized
# the format probe and the directory search find such a trace
mkdir -p "$TMP/dir/sub" && cp -r "$T/ws-newline" "$TMP/dir/sub/"
"$TIO" print "$TMP/dir" >"$TMP/tio.out" 2>"$TMP/tio.err" &&
	same "ws-newline: found by the directory search" "$TMP/base.bt" "$TMP/tio.out" ||
	notok "ws-newline: directory search" "$(head -3 "$TMP/tio.err")"
"$TIO" info --count "$T/bom-ws" >"$TMP/info" 2>&1 && grep -q '^  events: 3' "$TMP/info" &&
	ok "bom-ws: info reads 3 events" || notok "bom-ws: info" "$(head -5 "$TMP/info")"
refused "not-tsdl: text that is not TSDL" not-tsdl \
	'not-tsdl/metadata: not a CTF metadata stream (no "/* CTF 1.8" signature, no packet magic)'
refused "ws-no-sig: blank space, then no signature" ws-no-sig 'not a CTF metadata stream'
refused "ws-bad-version: blank space, then /* CTF 1.9 */" ws-bad-version \
	'unsupported metadata version 1.9 (expected 1.8)'

# --- item 3a: escapes in an env value; \x and octal take at most 3 digits, \0 ends the value
same_as_bt2 "escapes: hostname with \\x, octal, \\\" and \\0" escapes
"$TIO" info --count "$T/escapes" 2>&1 | sed -n '/^  env hostname/,/^  env domain/p' | sed '$d' >"$TMP/host"
printf '  env hostname = "\nabc " hex: A, #, #, #1,\noct: A, #, #, #1, "\n' >"$TMP/host.want"
same "escapes: env hostname ends at the \\0 (info)" "$TMP/host.want" "$TMP/host"

# --- item 3b: top-level struct without ';' before another specifier or typedef
same_as_bt2 "struct-nosemi: struct { } struct { }; and struct { } typedef" struct-nosemi
refused "struct-nosemi-stream: struct { } then stream (babeltrace refuses it too)" struct-nosemi-stream \
	"struct-nosemi-stream/metadata:27:1: syntax error: expected ';' (top-level declarations only declare types), got 'stream'"

# --- item 3c: reserved keywords as names: refused, naming the keyword and line:column
refused "kw-member: field named trace" kw-member \
	'kw-member/metadata:45:12: `trace` is a reserved keyword, it cannot be a field name'
refused "kw-member-string: field named string" kw-member-string \
	'kw-member-string/metadata:45:12: `string` is a reserved keyword, it cannot be a field name'
refused "kw-typedef: typedef uint32_t int" kw-typedef \
	'kw-typedef/metadata:26:18: `int` is a reserved keyword, it cannot be a type name'
refused "kw-typealias: typealias ... := event" kw-typealias \
	'kw-typealias/metadata:26:37: `event` is a reserved keyword, it cannot be a typealias name'
refused "kw-variant-tag: variant <variant>" kw-variant-tag \
	'kw-variant-tag/metadata:46:12: `variant` is a reserved keyword, it cannot be a variant tag'
same_as_bt2 "kw-escaped: LTTng's _trace, _variant, _event, _string" kw-escaped

# --- item 3d: an empty structure aligned past the end of the packet content
"$TIO" print "$T/empty-struct-align" >"$TMP/tio.out" 2>"$TMP/tio.err"
rc=$?
want='empty-struct-align/stream@0x38: event.payload.e: aligned on 64 bits, the field starts 32 bits past the end of the packet content'
if [ $rc -ne 1 ] || [ -s "$TMP/tio.out" ] || ! grep -qF "$want" "$TMP/tio.err"; then
	notok "empty-struct-align: packet error" "exit $rc, stdout: $(head -1 "$TMP/tio.out")" "$(head -2 "$TMP/tio.err")"
else
	ok "empty-struct-align: packet error, no event"
fi
babeltrace2 "$T/empty-struct-align" >/dev/null 2>&1 && notok "empty-struct-align: babeltrace2 exits 0" ||
	ok "empty-struct-align: babeltrace2 fails too"
"$TIO" check "$T/empty-struct-align" >"$TMP/check" 2>&1
grep -qF "$want" "$TMP/check" && grep -q '0 events, 1 problem' "$TMP/check" &&
	ok "empty-struct-align: check lists the problem" || notok "empty-struct-align: check" "$(cat "$TMP/check")"
"$TIO" print "$T/empty-array-align" >"$TMP/tio.out" 2>"$TMP/tio.err"
rc=$?
want='empty-array-align/stream@0x38: event.payload.a: aligned on 64 bits, the field starts 32 bits past the end of the packet content'
[ $rc -eq 1 ] && [ ! -s "$TMP/tio.out" ] && grep -qF "$want" "$TMP/tio.err" &&
	ok "empty-array-align: a zero-length array too" || notok "empty-array-align" "exit $rc" "$(head -2 "$TMP/tio.err")"
same_as_bt2 "empty-struct-fits: the same structure ending at the content's end" empty-struct-fits
