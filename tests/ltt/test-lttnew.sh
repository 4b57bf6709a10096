#!/bin/bash
# The new LTT format (seed 001): hand-made traces read as worked out by hand
# (both byte orders, ILP32 and LP64, per-block interpolated time and a
# system.xml clock), the writer reproducing them byte for byte, round trips
# new LTT -> model -> new LTT, the LTTng 0.x peers and the babeltrace CTF
# traces converted and read back with the same events, and damaged copies
# rejected with file, offset and field named while every good block is read.
. "$(dirname "$0")/../lib.sh"

MK="python3 $(dirname "$0")/mk-lttnew.py"
CONV=$TIO_BUILD/unit-lttnew-write # the conversion tool (sink "ltt")
P="$TIO print --clock-seconds --no-delta"

# --- hand-made traces ----------------------------------------------------------
$MK "$TMP/le" little ILP32 && $MK "$TMP/be" big LP64 --freq || { notok handmade-generate; exit 0; }
for x in le be; do
	$P "$TMP/$x" >"$TMP/$x.out" 2>"$TMP/$x.err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$TMP/$x.err" ]; then ok "handmade-$x-reads"; else notok "handmade-$x-reads" "rc=$rc" "$(head -3 "$TMP/$x.err")"; fi
	same "handmade-$x-events" "$TMP/$x.expect" "$TMP/$x.out"
done
echo "# hand-made: $(wc -l <"$TMP/le.expect") events each"

# bookmarks are listed by info
"$TIO" info --count "$TMP/le" >"$TMP/info.txt" 2>&1
if grep -q '^  annotation "boot" cpu 0 \[1200000000.000000010, 1200000000.500000000\]: Boot & login$' "$TMP/info.txt" &&
	grep -q '^  annotation "spike" cycles \[5030, 5030\]: A spike$' "$TMP/info.txt"; then
	ok bookmarks-listed
else
	notok bookmarks-listed "$(grep annotation "$TMP/info.txt")"
fi

# --- the writer ------------------------------------------------------------------
for x in le be; do
	"$CONV" "$TMP/$x" "$TMP/$x.w1" 2>"$TMP/w.err" && "$CONV" "$TMP/$x.w1" "$TMP/$x.w2" 2>>"$TMP/w.err"
	$P "$TMP/$x.w1" >"$TMP/$x.w1.out" 2>&1
	same "write-$x-events" "$TMP/$x.expect" "$TMP/$x.w1.out"
	# the tracefiles are what the seed fixes: byte for byte the hand-made ones
	bad=
	for f in cpu/0 cpu/1 control/processes control/facilities; do
		cmp -s "$TMP/$x/$f" "$TMP/$x.w1/$f" || bad="$bad $f"
	done
	if [ -z "$bad" ]; then ok "write-$x-tracefiles-identical"; else notok "write-$x-tracefiles-identical" "differ:$bad"; fi
	if diff -r "$TMP/$x.w1" "$TMP/$x.w2" >/dev/null; then ok "roundtrip-$x-same-bytes"; else notok "roundtrip-$x-same-bytes" "$(diff -r "$TMP/$x.w1" "$TMP/$x.w2" | head -5)"; fi
	cmp -s "$TMP/$x/eventdefs/proc.xml" "$TMP/$x.w1/eventdefs/proc.xml" && notok "write-$x-proper-xml" "the seed's sloppy XML was copied"
	grep -q '<field name="pid">' "$TMP/$x.w1/eventdefs/proc.xml" && ok "write-$x-proper-xml"
	grep -q '<location name="boot" cpu="0" start_time="1200000000.000000010" end_time="1200000000.500000000">Boot &amp; login</location>' \
		"$TMP/$x.w1/info/bookmarks.xml" && ok "write-$x-bookmarks" || notok "write-$x-bookmarks" "$(cat "$TMP/$x.w1/info/bookmarks.xml")"
done
# another byte order, arch and block size: same events
"$CONV" "$TMP/le" "$TMP/flip" byte-order=big arch=LP64 block-size=4096 2>"$TMP/w.err"
$P "$TMP/flip" >"$TMP/flip.out" 2>&1
same write-le-as-big-lp64 "$TMP/le.expect" "$TMP/flip.out"
grep -q 'endian="big"' "$TMP/flip/info/system.xml" && [ "$(stat -c %s "$TMP/flip/cpu/0")" = 4096 ] && ok write-options || notok write-options
# the writer refuses what it cannot write, naming the option
"$CONV" "$TMP/le" "$TMP/x" block-size=10 >/dev/null 2>"$TMP/w.err"
grep -q "block-size '10' is not in" "$TMP/w.err" && ok write-bad-option || notok write-bad-option "$(cat "$TMP/w.err")"

# --- real traces of the other formats ---------------------------------------------
# LTTng 0.x peers: same events with the same times and fields (events at the
# same time in different tracefiles may come in another order: compared sorted too)
for t in "$PEER"/ltt0x/traces/*/; do
	t=${t%/}
	n=$(basename "$t")
	is_sanitized && [ "$n" = trace-2.6 ] && continue
	"$CONV" "$t" "$TMP/l0-$n" 2>"$TMP/w.err"
	$P --style babeltrace "$t" >"$TMP/a.txt" 2>/dev/null
	$P "$TMP/l0-$n" >"$TMP/b.txt" 2>"$TMP/b.err"
	na=$(wc -l <"$TMP/a.txt")
	nd=$(diff "$TMP/a.txt" "$TMP/b.txt" | grep -c '^<')
	echo "# $n: $na events, $nd lines in another order after lttng0 -> ltt"
	if [ "$na" -gt 1000 ] && [ ! -s "$TMP/b.err" ] && cmp -s <(sort "$TMP/a.txt") <(sort "$TMP/b.txt"); then
		ok "lttng0-to-ltt-$n"
	else
		notok "lttng0-to-ltt-$n" "$(head -2 "$TMP/b.err")" "$(diff <(sort "$TMP/a.txt") <(sort "$TMP/b.txt") | head -4)"
	fi
done
cmp -s "$TMP/a.txt" "$TMP/b.txt" 2>/dev/null
T15=$PEER/ltt0x/traces/trace-15316events_nolost_newformat
$P --style babeltrace "$T15" >"$TMP/a.txt" 2>/dev/null
$P "$TMP/l0-trace-15316events_nolost_newformat" >"$TMP/b.txt" 2>/dev/null
same lttng0-15316-identical-order "$TMP/a.txt" "$TMP/b.txt"

# CTF (babeltrace2's own test traces): every trace the format can express
# reads back with the same text; the others are refused naming the event and field
conv=0 refused=0
for t in "$PEER"/ctf/babeltrace-2.1/ctf-traces/1/succeed/*/; do
	t=${t%/}
	n=$(basename "$t")
	rm -rf "$TMP/c"
	if ! "$CONV" "$t" "$TMP/c" >/dev/null 2>"$TMP/w.err"; then
		if grep -q "ltt writer: event .*: .*has no new LTT type" "$TMP/w.err" && [ ! -e "$TMP/c" ]; then
			refused=$((refused + 1))
		else
			notok "ctf-to-ltt-$n" "$(cat "$TMP/w.err")"
		fi
		continue
	fi
	conv=$((conv + 1))
	# events without a time (clock-less CTF) get one in the new LTT format: compare without it
	$P "$t" 2>/dev/null | sed 's/^\[[^]]*\] //' >"$TMP/a.txt"
	$P "$TMP/c" 2>"$TMP/b.err" | sed 's/^\[[^]]*\] //' >"$TMP/b.txt"
	if cmp -s "$TMP/a.txt" "$TMP/b.txt" || cmp -s <(sort "$TMP/a.txt") <(sort "$TMP/b.txt"); then
		ok "ctf-to-ltt-$n"
	else
		notok "ctf-to-ltt-$n" "$(diff "$TMP/a.txt" "$TMP/b.txt" | head -4)"
	fi
done
echo "# CTF succeed traces: $conv converted and read back the same, $refused refused (sequences/variants with outside lengths/selectors)"
[ "$conv" -ge 20 ] && ok ctf-to-ltt-count || notok ctf-to-ltt-count "$conv converted"
# with times: a CTF trace with a clock keeps its times exactly
$P "$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed/trace-with-index" >"$TMP/a.txt" 2>/dev/null
"$CONV" "$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed/trace-with-index" "$TMP/twi" 2>/dev/null
$P "$TMP/twi" >"$TMP/b.txt" 2>&1
same ctf-to-ltt-times "$TMP/a.txt" "$TMP/b.txt"

# --- damaged copies ------------------------------------------------------------------
# put FILE OFFSET HEXBYTES: overwrite bytes
put() { printf "$(echo "$3" | sed 's/\(..\)/\\x\1/g')" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none; }
# expect_err NAME ERRFILE PATTERN
expect_err() { if grep -q -- "$3" "$2"; then ok "$1"; else notok "$1" "wanted: $3" "$(head -3 "$2")"; fi; }
good=$TMP/le.out

# 1. block 1 of cpu/0 has a trailer pointing outside the block: that block
#    is skipped, exactly as if it were not there
cp -r "$TMP/le" "$TMP/d1"
put "$TMP/d1/cpu/0" 0x1fc ffff0000
cp -r "$TMP/le" "$TMP/cut"
{ head -c 256 "$TMP/le/cpu/0"; tail -c +513 "$TMP/le/cpu/0"; } >"$TMP/cut/cpu/0"
$P "$TMP/d1" >"$TMP/d1.out" 2>"$TMP/d1.err"
rc=$?
$P "$TMP/cut" >"$TMP/cut.out" 2>/dev/null
expect_err damaged-trailer-error "$TMP/d1.err" "d1/cpu/0@0x1fc: block trailer (offset of the block_end event): 65535 is outside \[26, 226\]"
[ $rc -eq 1 ] && ok damaged-trailer-status || notok damaged-trailer-status "rc=$rc"
same damaged-trailer-good-blocks "$TMP/cut.out" "$TMP/d1.out"
[ "$(wc -l <"$TMP/d1.out")" -lt "$(wc -l <"$good")" ] && ok damaged-trailer-lost-one-block || notok damaged-trailer-lost-one-block

# 2. an unknown event id in block 2 of cpu/0: the rest of that block is
#    skipped (event sizes are not stored), every other block is read
cp -r "$TMP/le" "$TMP/d2"
put "$TMP/d2/cpu/0" $((512 + 26)) 3930
$P "$TMP/d2" >"$TMP/d2.out" 2>"$TMP/d2.err"
expect_err damaged-id-error "$TMP/d2.err" "d2/cpu/0@0x21a: event header.id: 12345 is not the id of an event of any loaded facility (rest of the block skipped)"
{ head -c 512 "$TMP/le/cpu/0"; tail -c +769 "$TMP/le/cpu/0"; } >"$TMP/cut/cpu/0"
$P "$TMP/cut" >"$TMP/cut.out" 2>/dev/null
same damaged-id-good-blocks "$TMP/cut.out" "$TMP/d2.out"

# 3. the last block cut short: the blocks before it are read
cp -r "$TMP/le" "$TMP/d3"
head -c 1400 "$TMP/le/cpu/0" >"$TMP/d3/cpu/0"
$P "$TMP/d3" >"$TMP/d3.out" 2>"$TMP/d3.err"
expect_err damaged-truncated-error "$TMP/d3.err" "d3/cpu/0@0x500: block: truncated: 120 bytes left, blocks are 256 bytes"
head -c 1280 "$TMP/le/cpu/0" >"$TMP/cut/cpu/0"
$P "$TMP/cut" >"$TMP/cut.out" 2>/dev/null
same damaged-truncated-good-blocks "$TMP/cut.out" "$TMP/d3.out"

# 4. a facility_load whose checksum matches no eventdefs facility: named, and
#    the events of the other facilities are all read
cp -r "$TMP/le" "$TMP/d4"
put "$TMP/d4/control/facilities" $((26 + 6 + 5)) 00000000
$P "$TMP/d4" >"$TMP/d4.out" 2>"$TMP/d4.err"
expect_err damaged-checksum-error "$TMP/d4.err" "d4/control/facilities@0x25: facility_load.checksum: no facility core with checksum 0x00000000 in eventdefs"
expect_err damaged-checksum-unknown-ids "$TMP/d4.err" "d4/cpu/0@0x1a: event header.id: 10 is not the id"
n=$(grep -c -E '(process|sched: \{ prev = 6000[0-4] \})' "$TMP/d4.out")
[ "$n" = 7 ] && ok damaged-checksum-other-facilities || notok damaged-checksum-other-facilities "$n of 7"

# 5. a string running into the block_end event (no NUL before it)
cp -r "$TMP/le" "$TMP/d5"
python3 -c "
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
last = struct.unpack('<I', b[252:256])[0]
b[32:last] = b'i' * (last - 32)
open(p, 'wb').write(b)" "$TMP/d5/control/processes"
$P "$TMP/d5" >"$TMP/d5.out" 2>"$TMP/d5.err"
expect_err damaged-string-error "$TMP/d5.err" "d5/control/processes@0x20: process.name: string runs into the block_end event"
[ "$(grep -c '' "$TMP/d5.out")" = $(($(wc -l <"$good") - 2)) ] && ok damaged-string-others || notok damaged-string-others

# 6. block_start nanoseconds out of range
cp -r "$TMP/le" "$TMP/d6"
put "$TMP/d6/cpu/1" 10 ffffffff
$P "$TMP/d6" >"$TMP/d6.out" 2>"$TMP/d6.err"
expect_err damaged-timespec "$TMP/d6.err" "d6/cpu/1@0xa: block_start.timestamp.time.nanoseconds: 4294967295 is not below 1000000000"
[ "$(grep -c 'prev = 6000' "$TMP/d6.out")" = 0 ] && [ "$(wc -l <"$TMP/d6.out")" = $(($(wc -l <"$good") - 5)) ] &&
	ok damaged-timespec-others || notok damaged-timespec-others

# 7. system.xml and bookmarks errors name file, line and attribute
cp -r "$TMP/le" "$TMP/d7"
sed -i 's/endian="little"/endian="middle"/' "$TMP/d7/info/system.xml"
$P "$TMP/d7" >/dev/null 2>"$TMP/d7.err"
expect_err damaged-system "$TMP/d7.err" "d7/info/system.xml:1: <system>.endian: \"middle\" is not little or big"
cp -r "$TMP/le" "$TMP/d8"
sed -i 's/cycle=5030/cycle=50x30/' "$TMP/d8/info/bookmarks.xml"
$P "$TMP/d8" >/dev/null 2>"$TMP/d8.err"
expect_err damaged-bookmark "$TMP/d8.err" "d8/info/bookmarks.xml:3: <location>.cycle: \"50x30\" is not a cycle count"
# a time beyond an int64 count of ns (no signed overflow: the UBSan pass checks it)
cp -r "$TMP/le" "$TMP/d9"
sed -i 's/end_time=1200000000.5/end_time=9999999999.5/' "$TMP/d9/info/bookmarks.xml"
$P "$TMP/d9" >/dev/null 2>"$TMP/d9.err"
expect_err bookmark-time-range "$TMP/d9.err" "d9/info/bookmarks.xml:2: <location>.end_time: \"9999999999.5\" is not a time in seconds"

# 8. types that read no byte: event comm made an array of 4194000 empty
#    arrays, and 4 of its events (6 header bytes each) in cpu/0.  Each one
#    was 4 Mi values (75 ms, 128 MB of values per tracefile: a 1 MB file
#    of them, hours); now at most 256 values per byte of the event
python3 - "$(dirname "$0")/mk-lttnew.py" "$TMP/mkzero.py" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = "comm = T('struct', [('comm', T('array', [T('int', size='1', format='%c')], size='8'))])"
new = "comm = T('struct', [('comm', T('array', [T('array', [T('uint', size='1')], size='0')], size='4194000'))])"
assert s.count(old) == 1
s = s.replace(old, new)
old = """emit('cpu/0', cyc, ('core', 1), 2, {'comm': list(b'bash\\0\\0\\0\\0')})
emit('cpu/0', cyc + 1, ('core', 1), 2, {'comm': list(b'exactly8')})"""
assert s.count(old) == 1
s = s.replace(old, """for k in range(4):
    files['cpu/0'].append((cyc + k, BASES[('core', 1)] + 2, b''))""")
open(sys.argv[2], 'w').write(s)
PY
python3 "$TMP/mkzero.py" "$TMP/zero" little ILP32
timeout 60 $P "$TMP/zero" >"$TMP/zero.out" 2>"$TMP/zero.err"
rc=$?
[ $rc -eq 1 ] && ok zero-size-values-status || notok zero-size-values-status "rc=$rc"
expect_err zero-size-values-error "$TMP/zero.err" "zero/cpu/0@0x[0-9a-f]*: comm.comm.\[1534\]: more than 1536 fields for the 6 bytes of the event read so far (types that read no byte) (rest of the block skipped)"
same zero-size-values-others "$TMP/zero.expect" "$TMP/zero.out"

# 9. typerefs are expanded: a chain of 21 types each naming the next twice
#    (facility proc, event bomb) asked for 2^22 field classes (600 MB; 26
#    types, 3 kB of XML: 23 GB); more than 256 Ki in all is refused
python3 - "$(dirname "$0")/mk-lttnew.py" "$TMP/mkbomb.py" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = "proc = ('proc', None, [('process', 'Existing process', process)], [])"
assert s.count(old) == 1
s = s.replace(old, """chain = [('t%d' % i, T('struct', [('a', T('typeref', name='t%d' % (i + 1))), ('b', T('typeref', name='t%d' % (i + 1)))]))
         for i in range(21)] + [('t21', T('uint', size='1'))]
proc = ('proc', None, [('process', 'Existing process', process), ('bomb', None, T('typeref', name='t0'))], chain)""")
open(sys.argv[2], 'w').write(s)
PY
python3 "$TMP/mkbomb.py" "$TMP/bomb" little ILP32
timeout 60 $P "$TMP/bomb" >/dev/null 2>"$TMP/bomb.err"
rc=$?
[ $rc -eq 1 ] && ok typeref-doubling-status || notok typeref-doubling-status "rc=$rc"
expect_err typeref-doubling-error "$TMP/bomb.err" "bomb/control/facilities: facility proc: event bomb: more than 262144 field classes once typerefs are expanded"

# 10. an eventdefs file whose description is 1,000,000 runs of text split by
#     <?>: each run copied all the text before it (4 MB: 73 s); now appended
cp -r "$TMP/le" "$TMP/runs"
python3 -c "
import sys
open(sys.argv[1], 'w').write('<facility name=runs><description>' + 'a<?>' * 1000000 + '</description></facility>\n')" "$TMP/runs/eventdefs/runs.xml"
timeout 20 $P "$TMP/runs" >"$TMP/runs.out" 2>"$TMP/runs.err"
rc=$?
[ $rc -eq 0 ] && ok xml-text-runs-linear || notok xml-text-runs-linear "rc=$rc" "$(head -3 "$TMP/runs.err")"
same xml-text-runs-events "$good" "$TMP/runs.out"

# 11. the same chain of 31 types: the check that typerefs end walked every
#     path of it, 2^31 steps (50 s) before any class was made; now each
#     type once, and the classes are refused by their number (section 9)
sed 's/for i in range(21)\] + \[(.t21./for i in range(31)] + [(\x27t31\x27/' "$TMP/mkbomb.py" >"$TMP/mkbomb31.py"
python3 "$TMP/mkbomb31.py" "$TMP/bomb31" little ILP32
grep -q "t30" "$TMP/bomb31/eventdefs/proc.xml" && ok typeref-walk-generated || notok typeref-walk-generated
timeout 20 $P "$TMP/bomb31" >/dev/null 2>"$TMP/bomb31.err"
rc=$?
[ $rc -eq 1 ] && ok typeref-walk-status || notok typeref-walk-status "rc=$rc"
expect_err typeref-walk-error "$TMP/bomb31.err" "bomb31/control/facilities: facility proc: event bomb: more than 262144 field classes once typerefs are expanded"

# 12. an eventdefs facility of 100,000 types, each a typeref to the last
#     one (4.5 MB): every typeref searched the types one by one (40 s); now
#     a sorted index
cp -r "$TMP/le" "$TMP/refs"
python3 -c "
import sys
l = ['<facility name=refs>'] + ['<type name=t%d><typeref name=z/></type>' % i for i in range(100000)]
open(sys.argv[1], 'w').write('\n'.join(l + ['<type name=z><uint size=1/></type>', '</facility>']) + '\n')" "$TMP/refs/eventdefs/refs.xml"
timeout 20 $P "$TMP/refs" >"$TMP/refs.out" 2>"$TMP/refs.err"
rc=$?
[ $rc -eq 0 ] && ok xml-typerefs-indexed || notok xml-typerefs-indexed "rc=$rc" "$(head -3 "$TMP/refs.err")"
same xml-typerefs-events "$good" "$TMP/refs.out"

# 13. 50,000 eventdefs facilities and 50,000 facility_load events naming
#     none of them: each load searched the facilities one by one, each
#     facility's text the tables one by one, and each load's message the
#     loads one by one (4 min); now sorted indexes
python3 - "$(dirname "$0")/mk-lttnew.py" "$TMP/mkloads.py" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = """    fl.append((5000, 0, f[0].encode() + b'\\0' + struct.pack(E + 'II', checksum(f), BASES[key])))
"""
assert s.count(old) == 1
s = s.replace(old, old + """fl += [(5000, 0, b'zzz\\0' + struct.pack(E + 'II', 0, 0))] * 50000
""")
open(sys.argv[2], 'w').write(s)
PY
python3 "$TMP/mkloads.py" "$TMP/loads" little ILP32
python3 -c "
import sys
open(sys.argv[1], 'w').write(''.join('<facility name=f%d></facility>\n' % i for i in range(50000)))" "$TMP/loads/eventdefs/many.xml"
timeout 60 $P "$TMP/loads" >"$TMP/loads.out" 2>"$TMP/loads.err"
rc=$?
n=$(grep -c 'facility_load.name: no facility zzz with checksum 0x00000000 in eventdefs' "$TMP/loads.err")
[ $rc -eq 1 ] && [ "$n" = 50000 ] && ok many-loads-indexed || notok many-loads-indexed "rc=$rc, $n load errors"
same many-loads-events "$good" "$TMP/loads.out"

# --- through `traceio convert --to ltt` ----------------------------------------------
if "$TIO" convert --help 2>/dev/null | grep -q ltt; then
	"$TIO" convert -q --to ltt -o "$TMP/cv" "$TMP/be" 2>"$TMP/cv.err"
	$P "$TMP/cv" >"$TMP/cv.out" 2>&1
	same convert-to-ltt "$TMP/be.expect" "$TMP/cv.out"
	cmp -s "$TMP/be/cpu/0" "$TMP/cv/cpu/0" && ok convert-to-ltt-bytes || notok convert-to-ltt-bytes

	# back from CTF 1.8 and CTF 2 (docs/formats/ltt.md, "Back from CTF"): the same events,
	# times and types (sequences, unions, text arrays as the reader made them)
	for x in le be; do
		for v in 1.8 2; do
			rm -rf "$TMP/$x.ctf$v" "$TMP/$x.ctf$v.ltt"
			"$TIO" convert -q --to ctf --ctf-version $v -o "$TMP/$x.ctf$v" "$TMP/$x" 2>"$TMP/cv.err" &&
				"$TIO" convert -q --to ltt -o "$TMP/$x.ctf$v.ltt" "$TMP/$x.ctf$v" 2>>"$TMP/cv.err"
			$P "$TMP/$x.ctf$v.ltt" >"$TMP/cv.out" 2>&1
			same "ltt-ctf$v-ltt-$x" "$TMP/$x.expect" "$TMP/cv.out"
			# the copy kept each event class's facility version and base code, and the control
			# files their names: the same tracefiles (only the facilities' texts are rebuilt)
			bad=
			for f in cpu/0 cpu/1 control/processes; do
				cmp -s "$TMP/$x/$f" "$TMP/$x.ctf$v.ltt/$f" || bad="$bad $f"
			done
			[ -z "$bad" ] && [ -e "$TMP/$x.ctf$v.ltt/eventdefs/core.xml" ] && [ -e "$TMP/$x.ctf$v.ltt/eventdefs/proc.xml" ] &&
				ok "ltt-ctf$v-ltt-$x-tracefiles-identical" ||
				notok "ltt-ctf$v-ltt-$x-tracefiles-identical" "differ:$bad" "$(ls "$TMP/$x.ctf$v.ltt/eventdefs")"
			grep -q '<sequence lengthsize="2">' "$TMP/$x.ctf$v.ltt"/eventdefs/*.xml &&
				grep -q '<union typecodesize="1">' "$TMP/$x.ctf$v.ltt"/eventdefs/*.xml &&
				grep -A1 '<array size="8">' "$TMP/$x.ctf$v.ltt"/eventdefs/*.xml | grep -q '<int size="1" format="%c"/>' &&
				ok "ltt-ctf$v-ltt-$x-types" || notok "ltt-ctf$v-ltt-$x-types" "$(cat "$TMP/$x.ctf$v.ltt"/eventdefs/*.xml | head -60)"
		done
	done
	# a union after CTF 1.8 is written with its own tag, which must select the option the
	# CTF writer's value__tag chose: a CTF trace where they differ is refused, naming the event
	mkctf() {
		mkdir -p "$1"
		cat >"$1/metadata" <<-'EOT'
			/* CTF 1.8 */
			trace { major = 1; minor = 8; byte_order = le;
				packet.header := struct { integer { size = 32; align = 8; signed = false; } magic; }; };
			stream { event.header := struct { integer { size = 8; align = 8; signed = false; } id; }; };
			event { name = "u"; id = 0; fields := struct {
				integer { size = 8; align = 8; signed = false; } _tag;
				enum : integer { size = 32; align = 8; signed = false; } { "_x" = 0, "_y" = 1 } _value__tag;
				variant <_value__tag> { integer { size = 32; align = 8; signed = false; } _x; string _y; } _value;
			}; };
		EOT
		# magic, then events: id, tag, value__tag, option (u32 7 / "hi" / u32 8)
		printf '\xc1\x1f\xfc\xc1\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x01\x01\x00\x00\x00hi\x00\x00%b\x00\x00\x00\x00\x08\x00\x00\x00' "$2" >"$1/stream"
	}
	mkctf "$TMP/u-good" '\x00'
	mkctf "$TMP/u-bad" '\x01'
	"$TIO" convert -q --to ltt -o "$TMP/u-good.ltt" "$TMP/u-good" 2>"$TMP/cv.err"
	$P "$TMP/u-good.ltt" 2>&1 | sed 's/^\[[^]]*\] //' >"$TMP/cv.out"
	printf '%s\n' 'u: { tag = 0, value = { 7 } }' 'u: { tag = 1, value = { "hi" } }' 'u: { tag = 0, value = { 8 } }' >"$TMP/cv.expect"
	same ctf-tagged-union-to-ltt "$TMP/cv.expect" "$TMP/cv.out"
	"$TIO" convert -q --to ltt -o "$TMP/u-bad.ltt" "$TMP/u-bad" >/dev/null 2>"$TMP/cv.err"
	rc=$?
	if [ $rc = 1 ] && [ ! -e "$TMP/u-bad.ltt" ] &&
		grep -qF "ltt writer: event u at 0x17 of $TMP/u-bad/stream: a union whose tag 1 does not select its option 0 (x)" "$TMP/cv.err"; then
		ok ctf-tagged-union-mismatch-refused
	else
		notok ctf-tagged-union-mismatch-refused "rc=$rc" "$(cat "$TMP/cv.err")"
	fi
	# a text sequence: CTF 1.8 {length, elements[length]} -> new LTT sequence of %c -> CTF 2
	# (a dynamic-length string) -> new LTT: the same sequence and text
	mkdir -p "$TMP/ts"
	cat >"$TMP/ts/metadata" <<-'EOT'
		/* CTF 1.8 */
		trace { major = 1; minor = 8; byte_order = le;
			packet.header := struct { integer { size = 32; align = 8; signed = false; } magic; }; };
		stream { event.header := struct { integer { size = 8; align = 8; signed = false; } id; }; };
		event { name = "t"; id = 0; fields := struct {
			struct { integer { size = 8; align = 8; signed = false; } _length;
				integer { size = 8; align = 8; signed = true; encoding = UTF8; } _elements[_length]; } _s;
			integer { size = 8; align = 8; signed = false; } _z;
		}; };
	EOT
	printf '\xc1\x1f\xfc\xc1\x00\x03abc\x07\x00\x00\x09\x00\x05hello\x01' >"$TMP/ts/stream"
	"$TIO" convert -q --to ltt -o "$TMP/ts.ltt" "$TMP/ts" 2>"$TMP/cv.err" &&
		"$TIO" convert -q --to ctf --ctf-version 2 -o "$TMP/ts.c2" "$TMP/ts.ltt" 2>>"$TMP/cv.err" &&
		"$TIO" convert -q --to ltt -o "$TMP/ts.back" "$TMP/ts.c2" 2>>"$TMP/cv.err"
	$P "$TMP/ts" 2>&1 | sed 's/^\[[^]]*\] //' >"$TMP/cv.expect"
	$P "$TMP/ts.back" 2>&1 | sed 's/^\[[^]]*\] //' >"$TMP/cv.out"
	same ctf-text-sequence-ltt-ctf2-ltt "$TMP/cv.expect" "$TMP/cv.out"
	grep -q 'dynamic-length-string' "$TMP/ts.c2/metadata" && grep -A1 '<sequence lengthsize="1">' "$TMP/ts.back"/eventdefs/*.xml |
		grep -q '<int size="1" format="%c"/>' && ok ctf-text-sequence-types || notok ctf-text-sequence-types "$(cat "$TMP/cv.err")"
else
	echo "# traceio convert has no ltt writer in this build: the writer is tested through $CONV"
fi
