#!/bin/bash
# Clock values and CTF 2 floats on hand-made traces (tests/tools/gen-ctf-clocks.py;
# issue 12, items 4 to 7):
# - revfloat: CTF 2 floats whose bit order is opposite to their byte order
#   are decoded, and written back (bit order kept) by the CTF 2 writer;
# - ghz28: a 2.8 GHz clock: times are babeltrace2's (doubles) by default,
#   exact integer floors with --clock-exact, and the 1 ns between them
#   reorders two events of two streams;
# - bigoffset: a clock offset whose seconds do not fit in 64-bit ns: one
#   warning, every event read, times as babeltrace 1 computes them (mod 2^64);
# - endonly: packets with an end time only and events without a timestamp:
#   the stream's clock value carries the previous packet's end, as babeltrace2.
# - ties: discarded records and another stream's events at the same time come
#   in babeltrace2's order (the stream before the message kind); uuidties,
#   nameties: equal times in two traces in the order of their UUIDs, or of
#   their names when they have none, as babeltrace2.
. "$(dirname "$0")/../lib.sh"
GEN="python3 $TIO_TOP/tests/tools/gen-ctf-clocks.py"
cd "$TMP" || exit 1
for k in revfloat ghz28 bigoffset endonly ties uuidties nameties; do
	$GEN $k $k || notok "generate $k"
done

# --- item 4: reversed bit order floats
cat >exp-rev <<'EOF'
rev: { f32le = 1.5, f32be = 1.5, f64le = 1.5, f64be = 1.5, pad = 5, f32le_odd = 1.5, pad2 = 17 }
rev: { f32le = -0.15625, f32be = 0.001, f64le = 6.02214e+23, f64be = -2.5e-300, pad = 2, f32le_odd = 3.25, pad2 = 0 }
EOF
"$TIO" print revfloat >got-rev 2>err-rev
same "revfloat: CTF 2 floats with the reversed bit order decoded (fc 03 00 00 LE, 00 00 03 fc BE = 1.5)" exp-rev got-rev
"$TIO" convert --ctf-version 2 -o rev2 revfloat >/dev/null 2>&1 && "$TIO" print rev2 >got-rev2 2>&1
same "revfloat -> CTF 2 -> print: same values" exp-rev got-rev2
n=$(grep -o '"bit-order" *: *"[a-z-]*"' rev2/metadata 2>/dev/null | wc -l)
if [ "$n" -eq 5 ] && xxd -p rev2/stream | tr -d '\n' | grep -q 'fc030000000003fc' ; then
	ok "revfloat -> CTF 2: the bit orders written back (5 fields), the first float's bytes fc 03 00 00 / 00 00 03 fc"
else
	notok "revfloat -> CTF 2 keeps the bit order" "bit-order properties: $n" "$(xxd rev2/stream 2>&1 | head -2)"
fi
"$TIO" convert -o rev1 revfloat >/dev/null 2>&1
if command -v babeltrace2 >/dev/null; then
	babeltrace2 rev1 >got-rev1 2>&1
	same "revfloat -> CTF 1.8: babeltrace2 reads the same values" exp-rev got-rev1
fi

# --- item 6: ns from a 2.8 GHz clock. Expected: the generator's ns per event
# (`n cycles ns`), in time order, ties by stream (n / 100)
expect_order() { # FILE: "s.nnnnnnnnn n" lines sorted as the mux does
	python3 -c '
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
for n, c, ns in sorted(rows, key=lambda r: (r[2], r[0] // 100)):
    print("%d.%09d %d" % (ns // 10**9, ns % 10**9, n))
' "$1"
}
expect_order ghz28.bt2 >exp-bt2
expect_order ghz28.exact >exp-exact
"$TIO" print --clock-seconds ghz28 | sed -E 's/^\[([0-9.]+)\].* n = ([0-9]+) \}$/\1 \2/' >got-bt2
"$TIO" print --clock-seconds --clock-exact ghz28 | sed -E 's/^\[([0-9.]+)\].* n = ([0-9]+) \}$/\1 \2/' >got-exact
same "ghz28: default times are babeltrace2's ($(wc -l <exp-bt2) events, 12 of them 1 ns below the exact floor)" exp-bt2 got-bt2
same "ghz28: --clock-exact gives exact integer floors" exp-exact got-exact
if ! cmp -s exp-bt2 exp-exact && [ "$(awk '{print $2}' got-bt2 | head -3 | tr '\n' ' ')" = "100 0 101 " ] &&
	[ "$(awk '{print $2}' got-exact | head -3 | tr '\n' ' ')" = "100 101 0 " ]; then
	ok "ghz28: the 1 ns reorders events 0 and 101 between the two rules"
else
	notok "ghz28: the two rules differ and reorder" "$(head -3 got-bt2)" "$(head -3 got-exact)"
fi
if command -v babeltrace2 >/dev/null; then
	babeltrace2 ghz28 >bt-ghz 2>&1
	"$TIO" print ghz28 >tio-ghz 2>&1
	same "ghz28: text identical to babeltrace2's" bt-ghz tio-ghz
fi
"$TIO" print --style json --clock-exact ghz28 >/dev/null 2>&1 && ok "--clock-exact accepted by print --style json" ||
	notok "--clock-exact accepted by print --style json"

# --- item 5: a clock offset out of range
"$TIO" print --clock-seconds bigoffset >got-big 2>err-big
rc=$?
nw=$(grep -c 'warning: bigoffset: clock monotonic: offset 1351530929945824323 s + 0 cycles does not fit in 64-bit ns' err-big)
if [ $rc -eq 0 ] && [ "$nw" -eq 1 ] && [ "$(grep -c 'ev: ' got-big)" -eq 3 ] && [ "$(wc -l <err-big)" -eq 1 ]; then
	ok "bigoffset: one warning naming the clock and its offset, 3 events, exit 0"
else
	notok "bigoffset: one warning, every event" "rc=$rc" "$(cat err-big)" "$(cat got-big)"
fi
# babeltrace 1's times (unsigned, modulo 2^64): ours are the same modulo 2^64
ns_of() { sed -E 's/^\[(-?)([0-9]+)\.([0-9]+)\].*/\1\2\3/' "$1"; }
ns_of got-big >ns-big
if command -v babeltrace >/dev/null; then
	babeltrace --clock-seconds bigoffset 2>/dev/null | ns_of /dev/stdin >ns-bt1
	if [ -s ns-bt1 ] && paste -d' ' ns-big ns-bt1 | python3 -c '
import sys
for l in sys.stdin:
    a, b = map(int, l.split())
    assert (a - b) % 2**64 == 0, l
' 2>/dev/null && [ "$(wc -l <ns-bt1)" -eq 3 ]; then
		ok "bigoffset: times equal babeltrace 1's modulo 2^64 ($(head -1 ns-bt1) ns)"
	else
		notok "bigoffset: times as babeltrace 1's" "$(cat ns-big)" "$(cat ns-bt1)"
	fi
fi
# computed here: (offset_s * 1e9 + 10) mod 2^64, taken as signed
want=$(python3 -c 'v = (1351530929945824323 * 10**9 + 10) % 2**64; print(v - 2**64 if v >= 2**63 else v)')
[ "$(head -1 ns-big)" = "$want" ] && ok "bigoffset: the first event at $want ns (signed 64-bit)" ||
	notok "bigoffset: first event at $want ns" "$(head -1 ns-big)"
"$TIO" check bigoffset >chk-big 2>&1
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c 'clock monotonic: offset' chk-big)" -eq 1 ] && grep -q 'bigoffset: 3 events, 1 problem' chk-big; then
	ok "bigoffset: check reports the offset once, reads the 3 events, exit 1"
else
	notok "bigoffset: check reports it once" "rc=$rc" "$(cat chk-big)"
fi

# --- item 7: end-only packets, events without a timestamp
cat >exp-end <<'EOF'
0.000000000 0
0.000000000 1
0.000000001 10
0.000000001 11
0.000000003 20
0.000000003 21
0.000000005 30
0.000000005 31
EOF
"$TIO" print --clock-seconds endonly | sed -E 's/^\[([0-9.]+)\].* n = ([0-9]+) \}$/\1 \2/' >got-end
same "endonly: events take the previous packet's end time (0, 1, 3, 5 for ends 1, 3, 5, 7)" exp-end got-end
if command -v babeltrace2 >/dev/null; then
	babeltrace2 endonly >bt-end 2>&1
	"$TIO" print endonly >tio-end 2>&1
	same "endonly: text identical to babeltrace2's" bt-end tio-end
fi

# --- ties between streams: babeltrace2's muxer orders equal times by stream
# (class id, id) before the message kind, so stream 0's event at 20 comes
# before stream 1's lost packet that begins at 20 (and its discarded events
# at 45 after stream 0's event at 45), and stream 0's lost packet at 50
# before stream 1's event at 50. python/tests/test_bt2.py compares the same
# trace message by message with babeltrace2's Python bindings.
cat >exp-ties <<'EOF'
5 100
10 0
15 101
20 1
D 1 packet 20 25 stream 1
25 102
30 2
40 103
45 3
D 3 events 45 60 stream 1
48 104
50 4
D 1 packet 50 70 stream 0
50 105
70 5
80 6
EOF
"$TIO" print --clock-cycles ties 2>&1 | sed -E -e 's/^\[0*([0-9]+)\].* n = ([0-9]+) \}$/\1 \2/' \
	-e 's/^WARNING: Tracer discarded ([0-9]+) ([a-z]+) between \[00:00:00\.0*([0-9]+)\] and \[00:00:00\.0*([0-9]+)\].*stream ID: ([0-9]+)\)\.$/D \1 \2 \3 \4 stream \5/' >got-ties
same "ties: a stream's discarded records and another stream's events at the same time in babeltrace2's order" exp-ties got-ties

# --- ties between traces: by trace UUID (babeltrace2's order), or by trace
# name (hostname/path) for traces without one, whatever the order the traces
# are found or given in
cat >exp-uuidties <<'EOF'
10 100
10 0
20 101
20 1
30 102
30 2
EOF
for k in uuidties nameties; do
	for args in "$k" "$k/a $k/b" "$k/b $k/a"; do
		"$TIO" print --clock-cycles $args 2>&1 | sed -E 's/^\[0*([0-9]+)\].* n = ([0-9]+) \}$/\1 \2/' >got-$k
		same "$k ($args): equal times in babeltrace2's order of the traces (b's before a's)" exp-uuidties got-$k
	done
	if command -v babeltrace2 >/dev/null; then
		babeltrace2 $k >bt-$k 2>&1
		"$TIO" print $k >tio-$k 2>&1
		same "$k: text identical to babeltrace2's" bt-$k tio-$k
	fi
done
