#!/usr/bin/env python3
"""Compare the events of two `traceio print --style json` outputs (IN, OUT).

usage: cmp-matrix.py IN.jsonl OUT.jsonl

Prints one word and exits 0 when the events are the same:
  identical            same multiset of (event name, ns, common context,
                       specific context, payload)
  documented:A,B       the same once the named normalizations below are
                       applied to both sides (each a difference a target
                       format forces, see docs/formats/conversion.md)
and exits 1 with the first differences otherwise.  Events are compared as
multisets: the merge order of events with the same time may differ.
Stream names, offsets, ids, cycles and event headers are not compared: they
are the writer's (paths, layouts, its own clock values for the same ns).
"""
import json
import re
import sys
from collections import Counter

# name -> reason (docs/formats/conversion.md lists the same)
NORMS = {
    "writer-markers": "marker_id/marker_format events are the 2008 layout's metadata: the lttng0 writer writes its own, a 2008 trace's own are ordinary events elsewhere",
    "ctf-variant-tag": "CTF 1.8 names a variant's selector: the writer adds a NAME__tag member before it",
    "scopes-merged": "lttng0 (one marker format) and tracedat (one format file) keep context fields as payload fields",
    "no-time": "an input event without a time gets the previous one (or the trace start) in a format whose events all have one",
    "enum-as-int": "lttng0 and tracedat have no enumeration type: the integer is kept, the labels are not",
    "bool-as-int": "lttng0 and tracedat have no boolean type: 0 or 1",
    "tracedat-names": "trace.dat event names are C identifiers after the provider's ':'; fields are flattened C identifiers",
    "tracedat-common": "trace.dat events carry common_type/flags/preempt_count/pid fields",
    "tracedat-arrays": "trace.dat integer arrays read back as their bytes (hex text, or a byte list with a __len field after a second conversion)",
    "marker-names": "a marker field name is one word: ' ', '%' and '#' become '_'",
    "tracedat-variants": "a trace.dat variant NAME is the chosen option's name (a string) then NAME_OPTION fields for every option, 0 or empty when not chosen",
    "ltt-blobs": "new LTT has no BLOB type: a BLOB is written as a sequence of bytes, which reads back as {length, elements}",
}
# applied to the output side only: tried apart from the others (see main)
ONE_SIDED = {"ltt-blobs"}
ORDER = list(NORMS)
HEX = re.compile(r"[0-9a-f]*")


ARR = re.compile(r'"@(ints|hex):([^"]*)"')


def arrays_as_bytes(a, b):
    """an IN list of ints equals an OUT hex string when its elements, little-endian
    two's complement of the one size that fits the length, are those bytes"""
    if a.startswith("@hex:") and b.startswith("@hex:"):
        return a == b
    if a.startswith("@ints:") and b.startswith("@ints:") and a != b:
        bs = [int(x) for x in b[6:].split(",") if x]
        if all(0 <= x < 256 for x in bs):
            b = "@hex:" + bytes(bs).hex()  # the bytes of a __data_loc array
    if not (a.startswith("@ints:") and b.startswith("@hex:")):
        return a == b
    ints = [int(x) for x in a[6:].split(",") if x]
    if not ints:
        return b == "@hex:"
    n = len(b) - 5
    if n % (2 * len(ints)):
        return False
    sz = n // 2 // len(ints)
    return "".join((x % (1 << (8 * sz))).to_bytes(sz, "little").hex() for x in ints) == b[5:]


def shape(row):
    return ARR.sub('"@A"', row)


def same_rows(ca, cb):
    """Counters equal, array values compared as bytes (rows matched by their shape)"""
    if ca == cb:
        return True
    ra, rb = sorted(ca.elements(), key=shape), sorted(cb.elements(), key=shape)
    if len(ra) != len(rb):
        return False
    for x, y in zip(ra, rb):
        if shape(x) != shape(y):
            return False
        vx = ["@" + m.group(1) + ":" + m.group(2) for m in ARR.finditer(x)]
        vy = ["@" + m.group(1) + ":" + m.group(2) for m in ARR.finditer(y)]
        if len(vx) != len(vy) or not all(arrays_as_bytes(p, q) for p, q in zip(vx, vy)):
            return False
    return True


def load(path):
    evs = []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") == "event":
                evs.append(o)
    return evs


def ident(s):
    s = re.sub(r"[^A-Za-z0-9_]", "_", s)
    return "f_" + s if s[:1].isdigit() else s


def flatten(d, pre="", variants=False):
    out = {}
    for k, v in d.items():
        if variants and isinstance(v, dict) and set(v) == {"option", "value"}:
            # NAME = the option's name, its value under NAME_OPTION (flattened too)
            out[pre + k] = v["option"]
            out.update(flatten({k + "_" + str(v["option"]): v["value"]}, pre, variants))
        elif isinstance(v, dict) and not ("value" in v and ("labels" in v or "flags" in v)) and "option" not in v:
            out.update(flatten(v, pre + k + "_", variants))
        else:
            out[pre + k] = v
    return out


def drop_tags(d):
    """without the NAME__tag members the CTF 1.8 writer adds (at any depth)"""
    if isinstance(d, dict):
        return {k: drop_tags(v) for k, v in d.items() if not k.endswith("__tag")}
    if isinstance(d, list):
        return [drop_tags(x) for x in d]
    return d


EMPTY = (0, 0.0, "", [], None)


def drop_unchosen(s):
    """NAME_OTHER fields next to a variant selector NAME (a string naming the
    chosen option OPT, NAME_OPT present) when they hold 0 or nothing"""
    sel = {k: v for k, v in s.items() if isinstance(v, str) and v and ident(k + "_" + v) in s}
    if not sel:
        return s
    out = {}
    for k, v in s.items():
        drop = False
        for n, o in sel.items():
            keep = ident(n + "_" + o)
            if k.startswith(n + "_") and k != keep and not k.startswith(keep + "_") and k not in sel:
                drop = drop or (v in EMPTY and not isinstance(v, bool))
        if not drop:
            out[k] = v
    return out


def ltt_bytes(v):
    """OUT side: a BLOB written by the new LTT writer reads back as a sequence
    {length: N, elements: [N bytes]}: its byte list"""
    if isinstance(v, dict):
        if set(v) == {"length", "elements"} and isinstance(v["elements"], list) and v["length"] == len(v["elements"]) \
                and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256 for x in v["elements"]):
            return v["elements"]
        return {k: ltt_bytes(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ltt_bytes(x) for x in v]
    return v


def val(v, norms):
    if isinstance(v, dict) and "value" in v and ("labels" in v or "flags" in v) and "enum-as-int" in norms:
        return v["value"]
    if isinstance(v, bool) and "bool-as-int" in norms:
        return int(v)
    if isinstance(v, list) and "tracedat-arrays" in norms and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return "@ints:" + ",".join(map(str, v))
    if isinstance(v, str) and "tracedat-arrays" in norms and HEX.fullmatch(v) and len(v) % 2 == 0:
        return "@hex:" + v
    if isinstance(v, dict):
        return {k: val(x, norms) for k, x in v.items()}
    if isinstance(v, list):
        return [val(x, norms) for x in v]
    return v


def canon(evs, norms, side, in_has_time, in_names=()):
    rows = Counter()
    for o in evs:
        if "writer-markers" in norms and o["event_class"] in ("marker_id", "marker_format") \
                and "facility" in o.get("payload", {}):
            continue
        name = o["event_class"]
        scopes = [o.get("common_context", {}), o.get("specific_context", {}), o.get("payload", {})]
        if "ltt-blobs" in norms and side == "out":
            scopes = [ltt_bytes(s) for s in scopes]
        if "scopes-merged" in norms:
            m = {}
            for s in scopes:
                m.update(s)
            scopes = [{}, {}, m]
        if "marker-names" in norms:
            scopes = [{re.sub(r"[ %#]", "_", k): v for k, v in s.items()} for s in scopes]
        if "tracedat-names" in norms:
            name = ident(name.split(":", 1)[1] if ":" in name else name)
            scopes = [{re.sub(r"^f_common_", "common_", ident(k)): v for k, v in flatten(s).items()} for s in scopes]
        if "tracedat-variants" in norms:
            scopes = [drop_unchosen({ident(k): v for k, v in flatten(s, variants=True).items()}) for s in scopes]
        if "tracedat-common" in norms:
            scopes = [{k: v for k, v in s.items() if not k.startswith("common_")} for s in scopes]
        if "ctf-variant-tag" in norms:
            scopes = [drop_tags(s) for s in scopes]
        if "tracedat-arrays" in norms:
            scopes = [{k: v for k, v in s.items() if not k.endswith("__len")} for s in scopes]
        scopes = [val(s, norms) for s in scopes]
        ns = o.get("ns")
        if "no-time" in norms and not in_has_time:
            ns = None
        rows[json.dumps([name, ns, scopes], sort_keys=False)] += 1
    return rows


def same(a, b, norms, in_has_time):
    names = {o["event_class"] for o in a}
    return same_rows(canon(a, norms, "in", in_has_time), canon(b, norms, "out", in_has_time, names))


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    in_has_time = all("ns" in o for o in a)
    if same(a, b, set(), in_has_time):
        print("identical")
        return 0
    allnorms = set(ORDER)
    if not same(a, b, allnorms, in_has_time):
        # a one-sided normalization can make sequences that were the same differ
        allnorms -= ONE_SIDED
    if not same(a, b, allnorms, in_has_time):
        ca = canon(a, allnorms, "in", in_has_time)
        cb = canon(b, allnorms, "out", in_has_time, {o["event_class"] for o in a})
        only_a, only_b = ca - cb, cb - ca
        print("DIFFERENT: %d events in, %d out; %d only in IN, %d only in OUT" % (len(a), len(b), sum(only_a.values()),
                                                                                 sum(only_b.values())))
        for r in list(only_a)[:3]:
            print("  IN : " + r[:300])
        for r in list(only_b)[:3]:
            print("  OUT: " + r[:300])
        return 1
    need = set(allnorms)
    for n in ORDER:
        if same(a, b, need - {n}, in_has_time):
            need.discard(n)
    print("documented:" + ",".join(n for n in ORDER if n in need))
    return 0


sys.exit(main())
