#!/bin/bash
# Hostile CTF 2 metadata (the sibling of test-bad-metadata.sh): large but
# legal numbers of members, options, stream classes, clock classes,
# aliases and field locations must cost time in proportion to the text,
# never a search of every earlier one per new one (each of these took
# from 10 s to many minutes before), and duplicates are still errors
# naming the fragment and the JSON path.  Aliases that double at each step
# stop at 2 Mi field classes (40 of them asked for 2^41), locations through
# variants at 4 Mi field classes visited (each visits all the options).
. "$TIO_TOP/tests/lib.sh"

# gen MODE DIR N: a trace whose metadata has N of something
gen() {
	python3 - "$@" <<'PY'
import json, os, struct, sys
mode, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def fl(bits): return {'type': 'fixed-length-unsigned-integer', 'length': bits, 'byte-order': 'little-endian', 'alignment': 8}
def st(members): return {'type': 'structure', 'member-classes': members}
def mb(name, fc='u'): return {'name': name, 'field-class': fc}
frags = [{'type': 'preamble', 'version': 2}, {'type': 'trace-class'},
         {'type': 'field-class-alias', 'name': 'u', 'field-class': fl(8)},
         {'type': 'field-class-alias', 'name': 'w', 'field-class': fl(32)}]
sc = {'type': 'data-stream-class', 'id': 0}
ev = {'type': 'event-record-class', 'name': 'e'}
data = b''
if mode in ('members', 'members-dup'):  # a structure of n members
    m = [mb('a%d' % i) for i in range(n)]
    if mode == 'members-dup':
        m.append(mb('a7'))
    frags += [sc, dict(ev, **{'payload-field-class': st(m)})]
    data = bytes(n)
elif mode in ('options', 'options-dup', 'options-overlap'):  # a variant of n options
    o = [{'name': 'o%d' % i, 'selector-field-ranges': [[i, i]], 'field-class': 'u'} for i in range(n)]
    if mode == 'options-dup':
        o.append({'name': 'o7', 'selector-field-ranges': [[n, n]], 'field-class': 'u'})
    if mode == 'options-overlap':
        o.append({'name': 'x', 'selector-field-ranges': [[n + 1, n + 9], [n // 2, n // 2]], 'field-class': 'u'})
    v = {'type': 'variant', 'selector-field-location': {'path': ['s']}, 'options': o}
    frags += [sc, dict(ev, **{'payload-field-class': st([mb('s', 'w'), mb('v', v)])})]
    data = struct.pack('<IB', n - 1, 42)
elif mode in ('streams', 'streams-dup'):  # n data stream classes, an event record class in each
    frags += [{'type': 'data-stream-class', 'id': i} for i in range(n)]
    if mode == 'streams-dup':
        frags.append({'type': 'data-stream-class', 'id': 9})
    frags += [{'type': 'event-record-class', 'data-stream-class-id': i} for i in range(n)]
elif mode in ('clocks', 'clocks-dup'):  # n clock classes, the last one used
    frags += [{'type': 'clock-class', 'id': 'c%d' % i, 'frequency': 1000} for i in range(n)]
    if mode == 'clocks-dup':
        frags.append({'type': 'clock-class', 'id': 'c7', 'frequency': 1000})
    frags += [dict(sc, **{'default-clock-class-id': 'c%d' % (n - 1)}), ev]
elif mode in ('aliases', 'aliases-dup'):  # n aliases, each used once
    frags += [{'type': 'field-class-alias', 'name': 'a%d' % i, 'field-class': 'u'} for i in range(n)]
    if mode == 'aliases-dup':
        frags.append({'type': 'field-class-alias', 'name': 'a7', 'field-class': 'u'})
    frags += [sc, dict(ev, **{'payload-field-class': st([mb('m%d' % i, 'a%d' % i) for i in range(n)])})]
    data = bytes(n)
elif mode == 'locations':  # n lengths, then n strings, each with its length (relative location)
    m = [mb('l%d' % i) for i in range(n)]
    m += [mb('s%d' % i, {'type': 'dynamic-length-string', 'length-field-location': {'path': ['l%d' % i]}}) for i in range(n)]
    frags += [sc, dict(ev, **{'payload-field-class': st(m)})]
    data = bytes(n)
elif mode == 'doubling':  # n aliases, each a structure naming the previous one twice
    frags += [{'type': 'field-class-alias', 'name': 'd%d' % i,
               'field-class': st([mb('x', 'd%d' % (i - 1) if i else 'u'), mb('y', 'd%d' % (i - 1) if i else 'u')])} for i in range(n)]
    frags += [sc, dict(ev, **{'payload-field-class': 'd%d' % (n - 1)})]
elif mode == 'through':  # n locations through a variant of 700 options, each a variant of 700 with the length
    o = lambda fc: [{'selector-field-ranges': [[i, i]], 'field-class': fc} for i in range(700)]
    var = lambda fc: {'type': 'variant', 'selector-field-location': {'origin': 'event-record-payload', 'path': ['s']}, 'options': o(fc)}
    frags += [{'type': 'field-class-alias', 'name': 'L', 'field-class': st([mb('l')])},
              {'type': 'field-class-alias', 'name': 'W', 'field-class': st([mb('w', var('L'))])},
              {'type': 'field-class-alias', 'name': 'D', 'field-class': {'type': 'dynamic-length-string',
               'length-field-location': {'origin': 'event-record-payload', 'path': ['v', 'w', 'l']}}}]
    frags += [sc, dict(ev, **{'payload-field-class': st([mb('s'), mb('v', var('W'))] + [mb('x%d' % i, 'D') for i in range(n)])})]
elif mode == 'targets':  # a length in each of the n options of a variant
    o = [{'selector-field-ranges': [[i, i]], 'field-class': st([mb('l')])} for i in range(n)]
    v = {'type': 'variant', 'selector-field-location': {'path': ['s']}, 'options': o}
    x = {'type': 'dynamic-length-string', 'length-field-location': {'path': ['v', 'l']}}
    frags += [sc, dict(ev, **{'payload-field-class': st([mb('s', 'w'), mb('v', v), mb('x', x)])})]
    data = struct.pack('<IB', n - 1, 2) + b'hi'
os.makedirs(d)
open(os.path.join(d, 'metadata'), 'w').write(''.join('\x1e' + json.dumps(f, separators=(',', ':')) + '\n' for f in frags))
open(os.path.join(d, 's'), 'wb').write(data)
PY
}

# check MODE N RC WHAT PATTERN: print the trace within 20 s, with exit code
# RC and PATTERN in its output (RC 0; no PATTERN: no output) or its errors
check() {
	local t0=$SECONDS secs rc
	gen "$1" "$TMP/$1" "$2"
	timeout 20 "$TIO" print "$TMP/$1" > "$TMP/out" 2> "$TMP/err"; rc=$?
	secs=$((SECONDS - t0))
	local f=$TMP/out
	[ "$3" -ne 0 ] && f=$TMP/err
	if [ $rc -eq "$3" ] && { [ -z "$5" ] && [ ! -s "$f" ] || grep -qF -- "$5" "$f"; }; then ok "$4: exit $rc in ${secs}s"
	else notok "$4: exit $rc in ${secs}s" "$(head -3 "$TMP/err")" "$(head -c 300 "$TMP/out")"; fi
}

m="fragment 6 (event-record-class)"
check members 200000 0 "a structure of 200000 members" 'a199999 = 0 }'
check members-dup 200000 1 "a structure of 200000 members, a name twice" \
	"members-dup/metadata: $m: duplicate member name 'a7', at JSON path /payload-field-class/member-classes/200000"
check options 100000 0 "a variant of 100000 options" 's = 99999, v = { 42 } }'
check options-dup 100000 1 "a variant of 100000 options, a name twice" \
	"options-dup/metadata: $m: duplicate option name 'o7', at JSON path /payload-field-class/member-classes/1/field-class/options/100000"
check options-overlap 100000 1 "a variant of 100000 options, the last one's 2nd range on the 50000th" \
	"options-overlap/metadata: $m: options 50000 and 100000 have overlapping selector-field-ranges, at JSON path /payload-field-class/member-classes/1/field-class/selector-field-location"
check streams 200000 0 "200000 data stream classes, an event record class in each" ''
check streams-dup 200000 1 "200000 data stream classes, an id twice" \
	"streams-dup/metadata: fragment 200005 (data-stream-class): duplicate data stream class id 9, at JSON path /id"
check clocks 200000 0 "200000 clock classes" ''
check clocks-dup 200000 1 "200000 clock classes, an id twice" \
	"clocks-dup/metadata: fragment 200005 (clock-class): duplicate clock class id 'c7', at JSON path /id"
check aliases 200000 0 "200000 field-class aliases, each used" 'm199999 = 0 }'
check aliases-dup 200000 1 "200000 field-class aliases, a name twice" \
	"aliases-dup/metadata: fragment 200005 (field-class-alias): duplicate field-class alias name 'a7', at JSON path /name"
check locations 50000 0 "50000 dynamic-length strings, each with its length" 's49999 = "" }'
check targets 100000 0 "a length in each of 100000 variant options" 's = 99999, v = { { l = 2 } }, x = "hi" }'

# 40 aliases, each twice the previous: 2^41 field classes; 22 took 3.9 GB
gen doubling "$TMP/doubling" 40
t0=$SECONDS
/usr/bin/time -f '%M' -o "$TMP/rss" timeout 20 "$TIO" print "$TMP/doubling" > "$TMP/out" 2> "$TMP/err"; rc=$?
secs=$((SECONDS - t0)); rss=$(tail -1 "$TMP/rss")
if [ $rc -eq 1 ] && grep -qF "doubling/metadata: fragment 24 (field-class-alias): metadata describes more than 2097152 field classes, at JSON path /field-class/member-classes/0/field-class" "$TMP/err" &&
	{ is_sanitized || [ "$rss" -lt 600000 ]; }; then
	ok "40 aliases, each twice the previous: refused in ${secs}s, ${rss} kB"
else notok "40 aliases, each twice the previous: exit $rc in ${secs}s, ${rss} kB" "$(head -3 "$TMP/err")"; fi

# 400 locations, each through 700 x 700 options: 400 x 490000 candidates
gen through "$TMP/through" 400
t0=$SECONDS
/usr/bin/time -f '%M' -o "$TMP/rss" timeout 20 "$TIO" print "$TMP/through" > "$TMP/out" 2> "$TMP/err"; rc=$?
secs=$((SECONDS - t0)); rss=$(tail -1 "$TMP/rss")
if [ $rc -eq 1 ] && grep -qF "through/metadata: fragment 9 (event-record-class): length-field-location: field locations visit more than 4194304 field classes in all, at JSON path /field-class/length-field-location of fragment 7 (field-class alias)" "$TMP/err" &&
	{ is_sanitized || [ "$rss" -lt 600000 ]; }; then
	ok "400 locations through 700 x 700 variant options: refused in ${secs}s, ${rss} kB"
else notok "400 locations through 700 x 700 variant options: exit $rc in ${secs}s, ${rss} kB" "$(head -3 "$TMP/err")"; fi
