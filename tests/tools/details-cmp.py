#!/usr/bin/env python3
"""Compare babeltrace2 `sink.text.details` output with traceio's JSON output.

Usage: details-cmp.py [--known FILE] [--name NAME] EXPECT JSON_LINES [ROOT]

EXPECT is a details file (babeltrace's `trace-*.expect`, made with
with-trace-name=no,with-stream-name=no, compact or not).  JSON_LINES is
what `traceio print --style json` printed for the same trace(s); ROOT is the
directory the traces were opened from (the JSON "trace" paths are relative
to it), where each trace's CTF 2 `metadata` is read for the field roles.

Compared, message by message, for each stream (the details' {Trace T,
Stream class ID S, Stream ID I} against traceio's trace, stream_class_id,
stream_id; a details trace is matched to a traceio trace by the trace class
UID, or by order of first appearance when the details do not show it):
  - events: class name, class id, clock cycles and ns from origin, and every
    value of the common context, specific context and payload: each member
    name in order, array lengths, and each leaf value (integers as numbers
    whatever the display base, reals as "%f" of the value, strings as text);
  - packet beginnings: cycles, ns, and the packet context values.  babeltrace
    hides the members that have a role (sizes, timestamps, counters): a JSON
    member missing from the details must have a role in the metadata;
  - packet ends: cycles, against the packet context member whose role is
    packet-end-default-clock-timestamp.
Then the order of all those messages across streams (time order: among
messages of one timestamp, babeltrace's muxer and traceio may differ; that
is counted, not an error).

A mismatch is an error unless a line of --known matches it: "NAME<TAB>TEXT
<TAB>REASON", NAME the --name (default: EXPECT's base name), TEXT a
substring of the mismatch message.  A known line that matches nothing is an
error too (the list must shrink when the reader is fixed).

Last line: "MATCH N events, N packets, N values (N known differences, N
same-time reorderings)" or the mismatches; exit 0 when everything matches.
"""
import glob
import json
import os
import re
import sys

TS = re.compile(r'^\[(?:Unknown|(-?[\d,]+) cycles, (-?[\d,]+) ns from origin)\]$')
WHO = re.compile(r'^\{Trace (\d+), Stream class ID (\d+), Stream ID (\d+)\}$')
COMPACT = re.compile(r'^\[(?:Unknown|(-?[\d,]+) (-?[\d,]+))\] \{(\d+) (\d+) (\d+)\} (.*)$')
EVENT = re.compile(r'^Event `(.*)` \((?:Class ID )?(\d+)\)(:?)$')
UID = re.compile(r'^  Trace \(.*UID `([0-9a-f-]+)`\)')
CTF1_ROLES = {None: {'packet_context': {
    'timestamp_begin': ['default-clock-timestamp'],
    'timestamp_end': ['packet-end-default-clock-timestamp'],
    'content_size': ['packet-content-length'], 'packet_size': ['packet-total-length'],
    'events_discarded': ['discarded-event-record-counter-snapshot'],
    'packet_seq_num': ['packet-sequence-number']}}}
REAL = re.compile(r'-?\d+\.\d{6}')
SCOPES = {'Common context': 'common_context', 'Specific context': 'specific_context',
          'Payload': 'payload', 'Context': 'packet_context'}


class Fail(Exception):
    pass


def num(text):
    return int(text.replace(',', ''))


def parse_tree(lines, i, indent):
    """Members at `indent` from lines[i]: returns ([(name, value)], next i).
    A value is a str (leaf text), a list (array) or a list of pairs in a
    Struct (structure)."""
    out = []
    while i < len(lines):
        line = lines[i]
        depth = len(line) - len(line.lstrip(' '))
        if depth < indent:
            break
        if depth > indent:
            raise Fail(f'details line {i + 1}: unexpected indentation: {line!r}')
        name, sep, rest = line.lstrip(' ').partition(': ')
        if not sep:
            if not line.endswith(':'):
                raise Fail(f'details line {i + 1}: not "name: value": {line!r}')
            name, rest = line.lstrip(' ')[:-1], None
        i += 1
        if rest is None:                    # structure
            members, i = parse_tree(lines, i, indent + 2)
            out.append((name, Struct(members)))
        elif re.fullmatch(r'Length [\d,]+:', rest):
            elems, i = parse_tree(lines, i, indent + 2)
            if [n for n, _ in elems] != [f'[{k}]' for k in range(len(elems))] or \
               len(elems) != num(rest[7:-1]):
                raise Fail(f'details line {i}: array {name}: bad elements')
            out.append((name, [v for _, v in elems]))
        elif rest == 'Empty':
            out.append((name, EMPTY))
        else:
            out.append((name, rest))
    return out, i


class Struct(list):
    pass


EMPTY = object()


def parse_details(path):
    """Returns [msg]: msg = dict(kind, trace, sc, stream, cycles, ns, name,
    cid, scopes {json scope: Struct}, line) and {trace index: uid}."""
    lines = open(path, encoding='utf-8').read().split('\n')
    msgs, uids = [], {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == 'Trace class:' or line == '':
            i += 1
            while i < len(lines) and lines[i].startswith(' '):
                i += 1
            continue
        m = COMPACT.match(line)
        if m:
            cyc, ns, t, sc, st, rest = m.groups()
            msg = dict(trace=int(t), sc=int(sc), stream=int(st), line=i + 1, compact=True,
                       cycles=None if cyc is None else num(cyc), ns=None if ns is None else num(ns),
                       scopes={})
            body = []
            i += 1
        else:
            # "[time]" then "{Trace...}", or "{Trace...}" alone (a stream without a clock)
            m = TS.match(line)
            skip = 1 if m else 0
            w = WHO.match(lines[i + skip]) if i + skip < len(lines) else None
            if not w or i + skip + 1 >= len(lines):
                raise Fail(f'details line {i + 1}: not a message: {line!r}')
            cyc, ns = m.groups() if m else (None, None)
            msg = dict(trace=int(w.group(1)), sc=int(w.group(2)), stream=int(w.group(3)),
                       line=i + 1, cycles=None if cyc is None else num(cyc),
                       ns=None if ns is None else num(ns), scopes={})
            rest = lines[i + skip + 1]
            i += skip + 2
            j = i
            while i < len(lines) and lines[i].startswith(' '):
                i += 1
            body = lines[j:i]
        e = EVENT.match(rest)
        if e:
            msg.update(kind='event', name=e.group(1), cid=int(e.group(2)))
        elif rest in ('Packet beginning', 'Packet beginning:'):
            msg['kind'] = 'packet_begin'
        elif rest == 'Packet end':
            msg['kind'] = 'packet_end'
        elif rest.startswith('Stream beginning'):
            msg['kind'] = 'stream_begin'
            for b in body:
                u = UID.match(b)
                if u:
                    uids[msg['trace']] = u.group(1)
        elif rest == 'Stream end':
            msg['kind'] = 'stream_end'
        else:
            raise Fail(f'details line {msg["line"]}: message not handled: {rest!r}')
        if msg['kind'] in ('event', 'packet_begin'):
            tree, k = parse_tree(body, 0, 2)
            if k != len(body):
                raise Fail(f'details line {msg["line"]}: body not understood')
            for scope, value in tree:
                if value is EMPTY:
                    value = Struct()
                if scope not in SCOPES or not isinstance(value, Struct):
                    raise Fail(f'details line {msg["line"]}: unknown scope {scope!r}')
                msg['scopes'][SCOPES[scope]] = value
        elif body:
            if msg['kind'] != 'stream_begin':
                raise Fail(f'details line {msg["line"]}: unexpected body')
        msgs.append(msg)
    return msgs, uids


def load_metadata(root, trace):
    """The CTF 2 metadata of a trace directory: (uid, {sc id: {scope: {member:
    [roles]}}}); for CTF 1.8, the packet context members that CTF 1.8.3
    gives a meaning by their name."""
    path = os.path.join(root, trace, 'metadata')
    if not os.path.isfile(path):
        found = glob.glob(os.path.join(root, trace, '**', 'metadata'), recursive=True)
        if not found:
            return None, CTF1_ROLES
        path = found[0]
    data = open(path, 'rb').read()
    if not data.startswith(b'\x1e'):
        return None, CTF1_ROLES
    uid, roles = None, {}
    names = {'packet-context-field-class': 'packet_context',
             'event-record-common-context-field-class': 'common_context'}
    for frag in data.split(b'\x1e'):
        if not frag.strip():
            continue
        f = json.loads(frag)
        if f.get('type') == 'trace-class':
            uid = f.get('uid')
        elif f.get('type') == 'data-stream-class':
            sc = roles.setdefault(f.get('id', 0), {})
            for key, scope in names.items():
                fc = f.get(key) or {}
                sc[scope] = {m['name']: m['field-class'].get('roles', [])
                             for m in fc.get('member-classes', []) if isinstance(m.get('field-class'), dict)}
    return uid, roles


class Cmp:
    def __init__(self):
        self.values = 0
        self.errors = []

    def err(self, where, text):
        self.errors.append(f'{where}: {text}')

    def leaf(self, where, text, v):
        self.values += 1
        if isinstance(v, bool):
            ok = text == ('Yes' if v else 'No') or text == str(int(v))
        elif isinstance(v, int) and not REAL.fullmatch(text):
            ok = parse_int(text) == v
        elif isinstance(v, (int, float)):     # a real written without a fraction: 2222
            ok = text == '%f' % v
        elif isinstance(v, str):
            if v in ('nan', 'inf', '-inf') and text in ('nan', 'inf', '-inf'):
                ok = text == v
            elif re.fullmatch(r'0x[0-9a-f]+', v) and parse_int(text) is not None:
                ok = parse_int(text) == int(v, 16)        # integer wider than 64 bits
            else:
                ok = text == v
        elif isinstance(v, dict) and 'labels' in v:     # enumeration
            ok = parse_int(text.split(' ')[0]) == v['value']
        elif isinstance(v, dict) and 'flags' in v:      # bit map
            ok = parse_int(text.split(' ')[0]) == v['value']
        elif v is None:
            ok = text == 'None'
        else:
            self.err(where, f'value {json.dumps(v)[:80]} against {text!r}: shape not compared')
            return
        if not ok:
            self.err(where, f'details {text!r}, traceio {json.dumps(v)[:200]}')

    def value(self, where, d, v):
        if isinstance(d, Struct):
            if not isinstance(v, dict):
                self.err(where, f'details a structure, traceio {json.dumps(v)[:80]}')
                return
            self.struct(where, d, v, {})
        elif isinstance(d, list):
            if isinstance(v, str):      # CTF 1 text array shown as a string by traceio
                self.err(where, f'details an array, traceio a string {v!r}')
                return
            if not isinstance(v, list) or len(v) != len(d):
                self.err(where, f'details an array of {len(d)}, traceio {json.dumps(v)[:80]}')
                return
            self.values += 1            # the length
            for k, (de, ve) in enumerate(zip(d, v)):
                self.value(f'{where}[{k}]', de, ve)
        elif d is EMPTY:
            self.values += 1
            if v not in ([], {}):
                self.err(where, f'details empty, traceio {json.dumps(v)[:80]}')
        else:
            self.leaf(where, d, v)

    def struct(self, where, d, v, roles):
        dnames = [n for n, _ in d]
        shown = [n for n in v if n in dnames]
        for n in v:
            if n not in dnames and not roles.get(n):
                self.err(where, f'member {n} (no role) missing from the details')
        if shown != dnames:
            missing = [n for n in dnames if n not in v]
            self.err(where, f'members differ: details {dnames}, traceio {list(v)}'
                     if not missing else f'details member(s) {missing} missing from traceio')
            return
        for n, dv in d:
            self.value(f'{where}/{n}', dv, v[n])


def parse_int(text):
    t = text.replace(',', '')
    neg = t.startswith('-')
    if neg:
        t = t[1:]
    try:
        if t.startswith('0x'):
            n = int(t[2:].replace(':', ''), 16)
        elif t.startswith('0b'):
            n = int(t[2:].replace(':', ''), 2)
        elif len(t) > 1 and t.startswith('0'):
            n = int(t[1:].replace(':', ''), 8)
        else:
            n = int(t)
    except ValueError:
        return None
    return -n if neg else n


def main(argv):
    known_path, name = None, None
    while argv and argv[0].startswith('--'):
        if argv[0] == '--known':
            known_path = argv[1]
        elif argv[0] == '--name':
            name = argv[1]
        else:
            raise SystemExit(f'unknown option {argv[0]}')
        argv = argv[2:]
    expect, jpath = argv[0], argv[1]
    root = argv[2] if len(argv) > 2 else '.'
    name = name or os.path.basename(expect)
    try:
        dmsgs, uids = parse_details(expect)
    except Fail as e:
        print(f'DIFF {e}')
        return 1

    tmsgs = [json.loads(line) for line in open(jpath, encoding='utf-8')]
    meta = {}
    for t in tmsgs:
        if t['trace'] not in meta:
            meta[t['trace']] = load_metadata(root, t['trace'])

    # details trace index -> traceio trace
    tmap = {}
    by_uid = {m[0]: tr for tr, m in meta.items() if m and m[0]}
    first_d = [m['trace'] for m in dmsgs]
    order_d = list(dict.fromkeys(first_d))
    order_t = list(dict.fromkeys(t['trace'] for t in tmsgs))
    c = Cmp()
    for k, idx in enumerate(order_d):
        if idx in uids:
            if uids[idx] not in by_uid:
                c.err(f'trace {idx}', f'UID {uids[idx]}: no traceio trace has it')
                continue
            tmap[idx] = by_uid[uids[idx]]
        elif k < len(order_t):
            tmap[idx] = order_t[k]
    if len(order_d) != len(order_t):
        c.err('traces', f'details {len(order_d)}, traceio {len(order_t)}')

    # per stream sequences
    def dkey(m):
        return (tmap.get(m['trace']), m['sc'], m['stream'])

    def tkey(t):
        return (t['trace'], t['stream_class_id'], t['stream_id'])

    dstreams, tstreams = {}, {}
    for m in dmsgs:
        if m['kind'] in ('event', 'packet_begin', 'packet_end'):
            dstreams.setdefault(dkey(m), []).append(m)
    for t in tmsgs:
        if t['type'] in ('event', 'packet_begin'):
            tstreams.setdefault(tkey(t), []).append(t)
        elif t['type'] != 'discarded_events' or t.get('count'):
            c.err(f'traceio {tkey(t)}', f'message {t["type"]} not in the details')
    events = packets = 0
    if set(dstreams) != set(tstreams):
        c.err('streams', f'details {sorted(map(str, dstreams))}, traceio {sorted(map(str, tstreams))}')
    for key in dstreams:
        ds, ts = dstreams[key], tstreams.get(key, [])
        sroles = (meta.get(key[0]) or (None, {}))[1]
        roles = sroles.get(key[1], sroles.get(None, {}))
        proles = roles.get('packet_context', {})
        endname = [n for n, r in proles.items() if 'packet-end-default-clock-timestamp' in r]
        tpk = None
        ti = 0
        for m in ds:
            where = f'{name} line {m["line"]}'
            if m['kind'] == 'packet_end':
                if tpk is None:
                    c.err(where, 'packet end without a traceio packet')
                    continue
                c.values += 1
                end = tpk.get('packet_context', {}).get(endname[0]) if endname else None
                if m['cycles'] != end:
                    c.err(where, f'packet end at {m["cycles"]} cycles, traceio packet end timestamp {end}')
                continue
            if ti >= len(ts):
                c.err(where, f'{m["kind"]}: traceio has no more messages in stream {key}')
                break
            t = ts[ti]
            ti += 1
            if t['type'] != m['kind']:
                c.err(where, f'details {m["kind"]}, traceio {t["type"]} (offset {t.get("offset")})')
                break
            where += f' (traceio {os.path.basename(t["stream"])}@{t.get("offset")})'
            if (m['cycles'], m['ns']) != (t.get('cycles'), t.get('ns')):
                c.err(where, f'{m["kind"]} time: details {m["cycles"]} cycles {m["ns"]} ns, traceio '
                      f'{t.get("cycles")} cycles {t.get("ns")} ns')
            if m['kind'] == 'event':
                events += 1
                if (m['name'], m['cid']) != (t['event_class'], t['event_class_id']):
                    c.err(where, f'event class: details {m["name"]} ({m["cid"]}), '
                          f'traceio {t["event_class"]} ({t["event_class_id"]})')
                    continue
                scopes = ('common_context', 'specific_context', 'payload')
            else:
                packets += 1
                tpk = t
                scopes = ('packet_context',)
            for s in scopes if not m.get('compact') else ():
                d = m['scopes'].get(s, Struct())
                v = t.get(s, {})
                c.struct(f'{where} {s}', d, v, roles.get(s, {}) if s == 'packet_context' else {})
        if ti < len(ts):
            c.err(f'{name} stream {key}', f'traceio has {len(ts) - ti} more messages from offset '
                  f'{ts[ti].get("offset")}')

    # global order (events and packet beginnings)
    dorder = [(dkey(m), m['kind'], m['cycles']) for m in dmsgs if m['kind'] in ('event', 'packet_begin')]
    torder = [(tkey(t), t['type'], t.get('cycles')) for t in tmsgs if t['type'] in ('event', 'packet_begin')]
    reorder = 0
    if sorted(dorder, key=str) == sorted(torder, key=str):
        dns = [m['ns'] for m in dmsgs if m['kind'] in ('event', 'packet_begin')]
        for k, (a, b) in enumerate(zip(dorder, torder)):
            if a != b:
                reorder += 1
                # the same ns at that position: a tie broken differently
                tns = [t.get('ns') for t in tmsgs if t['type'] in ('event', 'packet_begin')]
                if dns[k] != tns[k]:
                    c.err(name, f'message order differs at message {k + 1}: details {a}, traceio {b}')
                    break

    known = []
    if known_path:
        for line in open(known_path, encoding='utf-8'):
            if line.strip() and not line.startswith('#'):
                parts = line.rstrip('\n').split('\t')
                if len(parts) != 3:
                    raise SystemExit(f'{known_path}: not NAME<TAB>TEXT<TAB>REASON: {line!r}')
                if parts[0] == name:
                    known.append([parts[1], parts[2], 0])
    left = []
    for e in c.errors:
        hit = [k for k in known if k[0] in e]
        if hit:
            hit[0][2] += 1
        else:
            left.append(e)
    unused = [k for k in known if not k[2]]
    nknown = sum(k[2] for k in known)
    for e in left[:20]:
        print(f'DIFF {e}')
    if len(left) > 20:
        print(f'DIFF ... {len(left) - 20} more')
    for k in unused:
        print(f'DIFF known difference no longer seen (remove it): {k[0]!r}')
    summary = (f'{events} events, {packets} packets, {c.values} values '
               f'({nknown} known differences, {reorder} same-time reorderings)')
    if left or unused:
        print(f'FAIL {summary}')
        return 1
    print(f'MATCH {summary}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
