#!/usr/bin/env python3
"""cmp-tracedat.py IN.jsonl OUT.jsonl

Checks that a trace.dat written by `traceio convert` from a trace of another
format (CTF, LTT) holds every event of the input with the same time stamp,
name and field values.  Both files are `traceio print --style json` output:
IN of the input trace, OUT of the written trace.dat (whose `trace-cmd report`
the test compares separately with `traceio print`).

The writer flattens each event's common context, specific context and
payload (structures become their members) into the fields of one ftrace
record, in that order; so the leaves of the input, in order, must equal the
payload members of the output.  A variant is its chosen option's name then
the fields of every option (only the chosen one's compared; the others must
hold 0 or nothing).  Integers and strings compare exactly, integer arrays as
the bytes the trace.dat holds, floats by value (binary32 at its precision);
other compound values (optionals, arrays of strings...) are written as text
and only counted.
Events with equal time stamps may come out in another order, so both sides
are sorted.  Prints one line; exit status 0 when everything matched.
"""
import json
import math
import re
import struct
import sys


def events(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = json.loads(line)
            if m.get("type") == "event":
                yield m


def special(v):
    """Enum, bit map and variant objects of the JSON sink (not structures)."""
    return isinstance(v, dict) and (set(v) in ({"value", "labels"}, {"value", "flags"}, {"option", "value"}))


def leaves(v, out):
    if isinstance(v, dict) and set(v) == {"option", "value"}:
        # the selector field, then the chosen option's fields (the writer also
        # writes the other options' fields: ANY marks where they may be)
        out.append(str(v["option"]))
        out.append(ANY)
        leaves(v["value"], out)
        out.append(ANY)
    elif isinstance(v, dict) and not special(v):
        for x in v.values():
            leaves(x, out)
    else:
        out.append(v)


ANY = object()  # any number of fields holding 0 or nothing


def empty(v):
    return v in (0, "", []) and not isinstance(v, bool)


def align(a, b):
    """Input leaves a (with ANY markers) against output fields b: the pairs to
    compare, or None when the shapes cannot match"""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[i, j]
        r = None
        if i == len(a):
            r = [] if j == len(b) else None
        elif a[i] is ANY:
            r = go(i + 1, j)
            if r is None and j < len(b) and empty(b[j]):
                r = go(i, j + 1)
        elif j < len(b) and same(a[i], b[j])[0]:
            rest = go(i + 1, j + 1)
            r = None if rest is None else [(a[i], b[j])] + rest
        memo[i, j] = r
        return r

    return go(0, 0)


def in_leaves(m):
    out = []
    for scope in ("common_context", "specific_context", "payload"):
        if scope in m:
            leaves(m[scope], out)
    return out


def scalar(v):
    if isinstance(v, dict) and set(v) in ({"value", "labels"}, {"value", "flags"}):
        return v["value"]
    if isinstance(v, bool):
        return int(v)
    return v


def same(a, b):
    """Input leaf a, output field b: (matched, compared)."""
    a = scalar(a)
    if a is None:
        return True, False
    if isinstance(a, int) and isinstance(b, int):
        return a == b or (a - b) % (1 << 64) == 0, True
    # floats written as float/double: JSON numbers on both sides (or nan/inf strings)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b), True
    if isinstance(a, str) and isinstance(b, str) and a in ("nan", "inf", "-inf"):
        return a == b, True
    if isinstance(a, str) and isinstance(b, str):
        return a == b, True
    # floats (JSON numbers, integral ones too, or "nan"/"inf"/"-inf") written as text
    if isinstance(b, str) and (isinstance(a, (int, float)) or (isinstance(a, str) and a in ("nan", "inf", "-inf"))):
        try:
            x, y = float(a), float(b)
        except (TypeError, ValueError):
            return False, True
        if x == y or (math.isnan(x) and math.isnan(y)):
            return True, True
        try:  # a binary32 value: written with 9 digits, the JSON sink uses the fewest
            return struct.pack("<f", x) == struct.pack("<f", y), True
        except OverflowError:
            return False, True
    if isinstance(a, list) and all(isinstance(scalar(e), int) for e in a) and isinstance(b, str):
        raw = bytes.fromhex(b)
        if not a:
            return raw == b"", True
        size = len(raw) // len(a) if len(raw) % len(a) == 0 else 0
        if size not in (1, 2, 4, 8):
            return False, True
        got = [int.from_bytes(raw[i * size:(i + 1) * size], "little") for i in range(len(a))]
        want = [scalar(e) % (1 << (8 * size)) for e in a]
        return got == want, True
    return True, False  # written as text: counted only


def key(m, vals):
    return (m.get("ns", 0), m["event_class"], json.dumps(vals, sort_keys=True, default=str))


def main():
    ins = []
    for m in events(sys.argv[1]):
        name = m["event_class"]
        i = name.find(":")
        if i > 0 and i + 1 < len(name):
            name = name[i + 1:].lstrip(":") or name
        name = re.sub(r"[^A-Za-z0-9]", "_", name)  # the writer's event names
        ins.append(({"ns": m.get("ns", 0), "event_class": name}, in_leaves(m)))
    outs = [(m, list(m.get("payload", {}).values())) for m in events(sys.argv[2])]
    if len(ins) != len(outs):
        print(f"event counts differ: input {len(ins)}, output {len(outs)}")
        return 1
    # sort both by time and name, then by the values as the output holds them
    ins.sort(key=lambda e: (e[0]["ns"], e[0]["event_class"], len(e[1])))
    outs.sort(key=lambda e: (e[0].get("ns", 0), e[0]["event_class"], len(e[1])))
    bad = compared = 0
    first = None
    i = 0
    while i < len(ins):
        # a run of events with one time stamp and name: match them in any order
        j = i
        while j < len(ins) and ins[j][0]["ns"] == ins[i][0]["ns"] and ins[j][0]["event_class"] == ins[i][0]["event_class"]:
            j += 1
        pool = list(range(i, j))
        for k in range(i, j):
            a_meta, a = ins[k]
            found = None
            for p in pool:
                b_meta, b = outs[p]
                if b_meta.get("ns", 0) != a_meta["ns"] or b_meta["event_class"] != a_meta["event_class"]:
                    continue
                pairs = align(a, b)
                if pairs is not None:
                    found = (p, pairs)
                    break
            if found is None:
                bad += 1
                if first is None:
                    first = f"no output event matches input {a_meta['event_class']} at {a_meta['ns']}: {a}"
            else:
                pool.remove(found[0])
                compared += sum(1 for x, y in found[1] if same(x, y)[1])
        i = j
    if bad:
        print(f"{bad} of {len(ins)} events differ; first: {first}")
        return 1
    print(f"{len(ins)} events, {compared} field values identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
