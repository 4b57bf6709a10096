#!/usr/bin/python3
"""Every row and column of converted traces, as DuckDB reads them, against
`traceio print --style json` of the same traces (docs/formats/json.md).

usage: pq-compare.py TIO DUMP.jsonl MANIFEST [READER]

MANIFEST: lines "INPUTS<TAB>OUTDIR": the inputs of one `traceio convert
--to parquet` (space-separated) and the directory of one of its traces
(OUT, or OUT/<trace>/ for several): the events of that trace in
`traceio print --style json INPUTS` are compared with it.
DUMP.jsonl: tests/parquet/duck.mjs dump (or arrow.mjs dump: READER names
the reader in the lines printed) of every .parquet file under them.
Prints one "ok"/"not ok" line per trace (tests/lib.sh style).

A column's values come from the event scope path meta.json gives for it
("source": scope, then member names and {"option": NAME} steps for
flattened variant options); nested values (lists, groups) are compared
with the JSON value as a whole: enumerations and bit maps by their integer,
a variant by the one non-null member of its group, BLOBs and integers
wider than 64 bits by their bytes; an enumeration's labels are those of
meta.json's mappings whose ranges hold the integer.
"""
import json
import math
import os
import struct
import subprocess
import sys

SCOPE = {"common_context": "common_context", "context": "specific_context", "payload": "payload"}


class Diff(Exception):
    pass


def f32(x):
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except (OverflowError, struct.error):
        return None


def walk(ev, source):
    """The JSON value at a meta.json source path; None when absent."""
    v = ev.get(SCOPE[source[0]])
    for step in source[1:]:
        if v is None:
            return None
        if isinstance(step, dict):  # a variant option
            if not (isinstance(v, dict) and set(v) == {"option", "value"}):
                raise Diff("source %r: no variant at %r" % (source, step))
            if v["option"] != step["option"]:
                return None
            v = v["value"]
        else:
            if not isinstance(v, dict) or step not in v:
                raise Diff("source %r: no member %r in %r" % (source, step, v))
            v = v[step]
    return v


def same(j, g, ctype, where):
    """JSON value j against the value DuckDB gave (g); counts the leaves."""
    if isinstance(j, dict) and set(j) in ({"value", "labels"}, {"value", "flags"}):
        j = j["value"]
    if j is None:
        if g is not None:
            raise Diff("%s: expected null, got %r" % (where, g))
        return 1
    if g is None:
        raise Diff("%s: expected %r, got null" % (where, j))
    if isinstance(j, dict) and set(j) == {"option", "value"}:
        if not isinstance(g, dict):
            raise Diff("%s: variant %r, got %r" % (where, j, g))
        n = 0
        for k, v in g.items():
            if k == str(j["option"]):
                n += same(j["value"], v, "", where + "<" + k + ">")
            elif v is not None:
                raise Diff("%s: option %s not chosen but %r" % (where, k, v))
        return n
    if isinstance(j, dict):
        if not isinstance(g, dict):
            raise Diff("%s: structure %r, got %r" % (where, j, g))
        n = 0
        for k, v in g.items():
            if k not in j:
                raise Diff("%s: member %s not in %r" % (where, k, j))
            n += same(j[k], v, "", where + "." + k)
        return n
    if isinstance(j, list):
        if not isinstance(g, list) or len(g) != len(j):
            raise Diff("%s: %r, got %r" % (where, j, g))
        return sum(same(a, b, "", "%s[%d]" % (where, i)) for i, (a, b) in enumerate(zip(j, g)))
    if isinstance(j, bool):
        if g is not j:
            raise Diff("%s: %r, got %r" % (where, j, g))
        return 1
    if isinstance(j, int):
        try:
            ok = int(g) == j and not isinstance(g, bool)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise Diff("%s: %r, got %r" % (where, j, g))
        return 1
    if isinstance(j, float) or j in ("nan", "inf", "-inf"):
        x = float(j)
        try:
            y = float(g.lower().replace("infinity", "inf")) if isinstance(g, str) else float(g)
        except ValueError:
            raise Diff("%s: %r, got %r" % (where, j, g))
        if not (x == y or (math.isnan(x) and math.isnan(y)) or f32(x) == f32(y)):
            raise Diff("%s: %r, got %r" % (where, j, g))
        return 1
    if isinstance(j, str):
        if ctype == "BLOB" and isinstance(g, str):
            if j.startswith("0x"):  # an integer wider than 64 bits: big-endian bytes
                ok = int(j, 16) == int(g, 16)
            else:
                ok = j == g.lower()
        else:
            ok = j == g
        if not ok:
            raise Diff("%s: %r, got %r" % (where, j, g))
        return 1
    raise Diff("%s: %r, got %r" % (where, j, g))


def compare(tio, trace, outdir, dumps, reader):
    meta = json.load(open(os.path.join(outdir, "meta.json"), encoding="utf-8"))
    streams = {}
    for s in meta["streams"]:
        streams[(s["stream_class_id"], s["id"], s["name"])] = s
    classes = {}
    for c in meta["classes"]:
        classes[(c["stream_class_id"], c["id"])] = c
    p = subprocess.run([tio, "print", "--style", "json"] + trace.split(" "), capture_output=True)
    events, cpu_of, disc = [], {}, []
    for line in p.stdout.decode("utf-8").splitlines():
        o = json.loads(line)
        if o.get("trace") != meta["trace"]["path"]:
            continue
        key = (o.get("stream_class_id"), o.get("stream_id"), o.get("stream"))
        if o["type"] == "packet_begin":
            pc = o.get("packet_context") or {}
            c = pc.get("cpu_id", pc.get("_cpu_id"))
            cpu_of[key] = c["value"] if isinstance(c, dict) else c
        elif o["type"] in ("discarded_events", "discarded_packets"):
            d = {"kind": o["type"][10:], "stream": streams[key]["stream"], "count": o["count"]}
            for k in ("begin_ns", "end_ns", "begin_cycles", "end_cycles"):
                if k in o:
                    d[k] = o[k]
            disc.append(d)
        elif o["type"] == "event":
            s = streams[key]
            events.append((o, s["stream"], s["cpu"] if "cpu" in s else cpu_of.get(key)))
    # meta.json: every discarded-events/packets record, in order
    if meta["discarded"] != disc:
        raise Diff("meta.json discarded: %r, print: %r" % (meta["discarded"][:3], disc[:3]))
    # events.parquet: every event in order (ts, name, cpu, stream)
    ev = dumps[os.path.join(outdir, "events.parquet")]
    if "error" in ev:
        raise Diff("events.parquet: %s: %s" % (reader, ev["error"]))
    if len(ev["rows"]) != len(events):
        raise Diff("events.parquet: %d rows, %d events" % (len(ev["rows"]), len(events)))
    names = [c[0] for c in ev["columns"]]
    values = 0
    for i, (row, (o, sidx, cpu)) in enumerate(zip(ev["rows"], events)):
        r = dict(zip(names, row))
        values += same(o.get("ns"), r["ts"], "", "events[%d].ts" % i)
        values += same(o["event_class"], r["name"], "", "events[%d].name" % i)
        values += same(cpu, r["cpu"], "", "events[%d].cpu" % i)
        values += same(sidx, r["stream"], "", "events[%d].stream" % i)
        if "trace" in r and r["trace"] != meta["trace"]["name"]:
            raise Diff("events[%d].trace: %r" % (i, r["trace"]))
    # one file per class, rows in the order of the class's events
    per = {}
    for o, sidx, cpu in events:
        per.setdefault((o["stream_class_id"], o["event_class_id"]), []).append((o, sidx, cpu))
    for key, evs in per.items():
        c = classes[key]
        if c["rows"] != len(evs):
            raise Diff("%s: meta.json says %d rows, %d events" % (c["file"], c["rows"], len(evs)))
        d = dumps.get(os.path.join(outdir, c["file"]))
        if d is None or "error" in d:
            raise Diff("%s: %s: %s" % (c["file"], reader, d and d.get("error")))
        if len(d["rows"]) != len(evs):
            raise Diff("%s: %d rows, %d events" % (c["file"], len(d["rows"]), len(evs)))
        ctypes = dict((n, t) for n, t in d["columns"])
        names = [n for n, t in d["columns"]]
        want = ["ts", "cpu", "stream"] + (["trace"] if meta["trace_column"] else [])
        if "__comm" in ctypes:
            want.append("__comm")
        want += [col["name"] for col in c.get("columns", [])]
        if names != want:
            raise Diff("%s: columns %r, meta.json %r" % (c["file"], names, want))
        for i, (row, (o, sidx, cpu)) in enumerate(zip(d["rows"], evs)):
            r = dict(zip(names, row))
            where = "%s[%d]" % (c["file"], i)
            values += same(o.get("ns"), r["ts"], "", where + ".ts")
            values += same(cpu, r["cpu"], "", where + ".cpu")
            values += same(sidx, r["stream"], "", where + ".stream")
            for col in c.get("columns", []):
                n = col["name"]
                j = walk(o, col["source"])
                values += same(j, r[n], ctypes[n], where + "." + n)
                if "labels" in col and isinstance(j, dict) and "labels" in j:  # meta.json's mappings
                    v = j["value"]
                    got = [m["label"] for m in col["labels"] if any(lo <= v <= hi for lo, hi in m["ranges"])]
                    if got != j["labels"]:
                        raise Diff("%s.%s: labels %r from meta.json, print: %r" % (where, n, got, j["labels"]))
    return len(events), values + len(disc)


def main():
    tio, dump, manifest = sys.argv[1:4]
    reader = sys.argv[4] if len(sys.argv) > 4 else "DuckDB"
    label = "" if reader == "DuckDB" else " (%s)" % reader
    dumps = {}
    with open(dump, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            dumps[d["file"]] = d
    bad = 0
    for line in open(manifest, encoding="utf-8"):
        trace, outdir = line.rstrip("\n").split("\t")
        name = os.path.basename(trace.split(" ")[0].rstrip("/"))
        sub = os.path.basename(outdir.rstrip("/"))
        if not sub.isdigit():
            name += "/" + sub
        try:
            n, v = compare(tio, trace, outdir, dumps, reader)
            print("ok parquet values%s %s: %d events, %d values" % (label, name, n, v))
        except Diff as e:
            bad += 1
            print("not ok parquet values%s %s (%s)" % (label, name, trace))
            print("    " + str(e)[:600])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
