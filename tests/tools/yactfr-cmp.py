#!/usr/bin/env python3
"""Compare traceio's decoded values (JSON sink) with yactfr's element sequence.

Usage: yactfr-cmp.py EXPECTED_ELEMENTS METADATA JSON_LINES [--fail]

EXPECTED_ELEMENTS is a yactfr iteration test's expected element sequence
(one "BIT_OFFSET ELEMENT" per line, nested elements indented, an error
line last for failing cases).  JSON_LINES is what `traceio print --style
json` printed for the same metadata and data stream.

Both sides are reduced to a list of *units*:
  - a packet preamble: the data stream class id and the leaf values of the
    packet header and context (yactfr: the packet elements before PI;
    traceio: a "packet_begin" message);
  - an event record: its class id (and name when yactfr gives one), its
    default clock value when the stream has one, and the leaf values of
    its header, common context, specific context and payload, in order.
A leaf is (path, value): the path joins with '/' the names of the
containers above the leaf and its own name (array elements, variant and
optional contents have no name of their own, in yactfr as in the JSON).

Pass cases (default): the units must be equal.  Fail cases (--fail):
every unit that yactfr completed before its error must be the start of
traceio's units (traceio then goes on after the damaged packet, yactfr
stops; a unit that yactfr left unfinished at its error is not counted,
traceio delivers whole events only).

Prints one line "MATCH <n units>" or "DIFF <first difference>", exit 0/1.
"""
import json
import re
import sys

LINE = re.compile(r'^\s*(\d+) (\s*)(.*)$')
KIND = re.compile(r'^([A-Z]+)(?::(.*?))?( \{)?$')
INT_KINDS = {'FLUI', 'FLSI', 'FLBA', 'VLUI', 'VLSI'}
STR_KINDS = {'NTS', 'SLS', 'DLS'}
BLOB_KINDS = {'SLB', 'DLB'}


def rd_bytes(text):
    """yactfr raw data text: printable bytes as is, others as $XX."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == '$' and i + 2 < len(text) + 0 and re.match(r'[0-9a-fA-F]{2}', text[i + 1:i + 3]):
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out += text[i].encode('utf-8')
            i += 1
    return bytes(out)


def decode_str(raw, enc):
    unit = {'utf-8': 1, 'utf-16be': 2, 'utf-16le': 2, 'utf-32be': 4, 'utf-32le': 4}[enc]
    # the string ends at its first zero code unit
    for k in range(0, len(raw) - unit + 1, unit):
        if raw[k:k + unit] == b'\0' * unit:
            raw = raw[:k]
            break
    else:
        raw = raw[:len(raw) - len(raw) % unit]
    return raw.decode(enc, 'replace')


def split_name_value(rest, nvals):
    """'name:v1:v2' -> (name, [v1, v2]); 'v1:v2' -> (None, [v1, v2])."""
    parts = rest.split(':') if rest is not None else []
    if len(parts) > nvals:
        return ':'.join(parts[:len(parts) - nvals]), parts[len(parts) - nvals:]
    return None, parts


def parse_expected(path, enc):
    """Returns (units, partial_leaves, error_text)."""
    units = []

    def leaf(name, value):
        # a leaf is named by the path of the named containers above it and its own name
        path = tuple(e[1] for e in stack if e[1]) + ((name,) if name else ())
        cur['leaves'].append(('/'.join(path) or None, value))

    cur = None          # unit being built
    stack = []          # open containers: (kind, name, extra)
    clock = None
    error = None
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        lines = f.read().split('\n')
    for ln in lines:
        if not ln.strip():
            continue
        m = LINE.match(ln)
        if not m:
            error = ln.strip()
            continue
        text = m.group(3)
        if text == '}':
            kind, name, extra = stack.pop()
            if kind in STR_KINDS:
                leaf(name, ('str', decode_str(extra, enc)))
            elif kind in BLOB_KINDS:
                leaf(name, ('blob', extra.decode('ascii').lower()))
            elif kind == 'ER':
                units.append(cur)
                cur = None
            elif kind == 'PC' and cur is not None and cur['kind'] == 'packet':
                # a packet whose preamble never completed (no PI)
                pass
            continue
        km = KIND.match(text)
        if not km:
            error = text
            continue
        kind, rest, opens = km.group(1), km.group(2), bool(km.group(3))
        if opens:
            name = None
            extra = b''
            if kind in STR_KINDS or kind in ('ST', 'SLA', 'DLA'):
                name = rest
            elif kind in BLOB_KINDS:
                name, _ = split_name_value(rest, 1)
            elif kind in ('VU', 'VS'):
                name, _ = split_name_value(rest, 1)
            elif kind in ('OU', 'OS'):
                name, _ = split_name_value(rest, 2)
            elif kind == 'OB':
                name, _ = split_name_value(rest, 1)
            stack.append([kind, name, extra])
            if kind == 'PC':
                cur = {'kind': 'packet', 'sc': None, 'leaves': []}
            elif kind == 'ER':
                cur = {'kind': 'event', 'id': None, 'name': None, 'ts': None, 'leaves': []}
            continue
        # leaves and info elements
        if kind == 'RD':
            n, _, data = (rest or '').partition(':')
            top = stack[-1]
            if top[0] in BLOB_KINDS:
                top[2] += data.encode('ascii')
            else:
                top[2] += rd_bytes(data)
        elif kind in INT_KINDS:
            name, v = split_name_value(rest, 1)
            leaf(name, ('int', int(v[0])))
        elif kind == 'FLB':
            name, v = split_name_value(rest, 1)
            leaf(name, ('bool', v[0] == 'true'))
        elif kind == 'FLBM':
            name, v = split_name_value(rest, 2)
            flags = frozenset(x for x in v[1].split(',') if x)
            leaf(name, ('bitmap', int(v[0]), flags))
        elif kind == 'FLFPN':
            name, v = split_name_value(rest, 1)
            leaf(name, ('float', v[0]))
        elif kind == 'DCV':
            clock = int(rest)
        elif kind == 'DSI':
            for p in rest.split(':'):
                if p.startswith('T'):
                    cur['sc'] = int(p[1:])
        elif kind == 'PI':
            units.append(cur)
            cur = None
        elif kind == 'ERI':
            t, _, nm = rest.partition(':')
            cur['id'] = int(t[1:])
            cur['name'] = nm[1:] if nm.startswith('#') else None
            cur['ts'] = clock
        # PMN, MSU: derived from leaves already compared
    partial = len(cur['leaves']) if cur else 0
    return units, partial, error


def json_leaves(v, name, out, path=()):
    if name is not None:
        path = path + (name,)
    name = '/'.join(path) or None
    if v is None:
        return
    if isinstance(v, bool):
        out.append((name, ('bool', v)))
    elif isinstance(v, int):
        out.append((name, ('int', v)))
    elif isinstance(v, float):
        out.append((name, ('float', v)))
    elif isinstance(v, str):
        out.append((name, ('str', v)))
    elif isinstance(v, list):
        for e in v:
            json_leaves(e, None, out, path)
    elif isinstance(v, dict):
        keys = list(v.keys())
        if keys == ['value', 'labels']:
            out.append((name, ('int', v['value'])))
        elif keys == ['value', 'flags']:
            out.append((name, ('bitmap', v['value'], frozenset(v['flags']))))
        elif keys == ['option', 'value']:
            json_leaves(v['value'], None, out, path)
        else:
            for k, e in v.items():
                json_leaves(e, k, out, path)


def parse_json(path):
    units = []
    with open(path, encoding='utf-8') as f:
        for ln in f:
            o = json.loads(ln)
            leaves = []
            if o['type'] == 'packet_begin':
                json_leaves(o.get('packet_header'), None, leaves)
                json_leaves(o.get('packet_context'), None, leaves)
                units.append({'kind': 'packet', 'sc': o.get('stream_class_id'), 'leaves': leaves})
            elif o['type'] == 'event':
                for s in ('event_header', 'common_context', 'specific_context', 'payload'):
                    json_leaves(o.get(s), None, leaves)
                units.append({'kind': 'event', 'id': o.get('event_class_id'), 'name': o.get('event_class'),
                              'ts': o.get('cycles'), 'leaves': leaves})
    # top-level scope structures are unnamed in yactfr too (ST without name)
    return units


def leaf_eq(e, g):
    (en, ev), (gn, gv) = e, g
    if en != gn:
        return False
    if ev[0] == 'float':
        if gv[0] == 'str' and gv[1] in ('nan', 'inf', '-inf'):
            return ev[1] == gv[1]
        if gv[0] not in ('float', 'int'):
            return False
        if '%g' % gv[1] == ev[1]:
            return True
        x = float(ev[1])
        return abs(x - gv[1]) <= 1e-5 * max(1.0, abs(x))
    if ev[0] == 'blob':
        return gv[0] == 'str' and gv[1] == ev[1]
    if ev[0] == 'str' and gv[0] == 'int':
        return False
    return ev == gv


def unit_diff(k, e, g):
    """None when equal, else a description."""
    if e['kind'] != g['kind']:
        return 'unit %d: expected a %s, got a %s' % (k, e['kind'], g['kind'])
    if e['kind'] == 'packet':
        if e['sc'] is not None and e['sc'] != g['sc']:
            return 'unit %d (packet): stream class %s, got %s' % (k, e['sc'], g['sc'])
    else:
        if e['id'] != g['id'] or (e['name'] is not None and e['name'] != g['name']):
            return 'unit %d (event): class %s %s, got %s %s' % (k, e['id'], e['name'], g['id'], g['name'])
        if e['ts'] is not None and g['ts'] is not None and e['ts'] != g['ts']:
            return 'unit %d (event %s): clock value %s, got %s' % (k, e['name'], e['ts'], g['ts'])
    el, gl = e['leaves'], g['leaves']
    for i in range(max(len(el), len(gl))):
        if i >= len(el):
            return 'unit %d (%s): extra leaf %r' % (k, e['kind'], gl[i])
        if i >= len(gl):
            return 'unit %d (%s): missing leaf %r' % (k, e['kind'], el[i])
        if not leaf_eq(el[i], gl[i]):
            return 'unit %d (%s): leaf %d: expected %r, got %r' % (k, e['kind'], i, el[i], gl[i])
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    fail = '--fail' in sys.argv
    exp_path, meta_path, json_path = args
    with open(meta_path, encoding='utf-8', errors='replace') as f:
        encs = set(re.findall(r'"encoding"\s*:\s*"([a-z0-9-]+)"', f.read()))
    enc = encs.pop() if len(encs) == 1 else 'utf-8'
    exp, partial, error = parse_expected(exp_path, enc)
    try:
        got = parse_json(json_path)
    except (ValueError, KeyError) as e:
        print('DIFF invalid JSON output: %s' % e)
        return 1
    n = len(exp)
    if not fail and len(got) != n:
        # report the first differing unit if any, else the count
        for k in range(min(n, len(got))):
            d = unit_diff(k, exp[k], got[k])
            if d:
                print('DIFF ' + d)
                return 1
        print('DIFF %d units expected, got %d' % (n, len(got)))
        return 1
    if fail and len(got) < n:
        for k in range(len(got)):
            d = unit_diff(k, exp[k], got[k])
            if d:
                print('DIFF ' + d)
                return 1
        print('DIFF yactfr completed %d units before its error, traceio delivered %d' % (n, len(got)))
        return 1
    for k in range(n):
        d = unit_diff(k, exp[k], got[k])
        if d:
            print('DIFF ' + d)
            return 1
    leaves = sum(len(u['leaves']) for u in exp)
    extra = ' (yactfr error: %s; %d leaves of its unfinished unit not compared)' % (error, partial) if fail else ''
    print('MATCH %d units, %d leaves%s' % (n, leaves, extra))
    return 0


if __name__ == '__main__':
    sys.exit(main())
