#!/usr/bin/python3
"""Check traceio's SQL tables against `traceio print --style json`.

usage: sql-check.py TRACEIO MODE TRACE...
  MODE: cli     `traceio sql --json` (the CLI's tables)
        shell   the sqlite3 shell with `.load libtraceio_sqlite` (SQLITE_EXT env:
                the extension's path without suffix) and traceio_attach()
        python  Python's sqlite3, load_extension() and traceio_attach()

For every event class with events, computes from the JSON lines alone (an
independent reading): the number of events and, for every integer leaf of the
payload, specific context and common context, the sum of its values; then asks
the SQL table named after the class for count(*) and sum() (total() when the
sum does not fit in 64 bits) of the same columns and compares.  Column names
follow docs/sql.md: payload members by their names (nested names joined with
'.'), context members the same unless the name is taken (then
"context.NAME", "common_context.NAME"); a name taken by a fixed column (ts,
cpu, stream, trace) gets its scope's prefix.  Prints "ok"/"not ok" lines.
"""
import json
import os
import sqlite3
import subprocess
import sys

FIXED = {"ts", "cpu", "stream", "trace"}
RESERVED = {"events", "discarded", "clocks", "env", "sched_slice", "thread_state",
            "thread", "process", "counter"}
I64 = (-(1 << 63), (1 << 63) - 1)


def leaves(prefix, v, out):
    """Integer leaves of a JSON value: (name, int or None) pairs; structures recurse."""
    if isinstance(v, dict) and not ("value" in v and ("labels" in v or "flags" in v)) \
            and not ("option" in v and "value" in v):
        for k, x in v.items():
            leaves(prefix + "." + k if prefix else k, x, out)
        return
    if isinstance(v, dict) and ("labels" in v or "flags" in v):
        out.append((prefix, v["value"]))
    elif isinstance(v, bool):
        out.append((prefix, None))
    elif isinstance(v, int):
        out.append((prefix, v))
    else:
        out.append((prefix, None))


def column_names(ev):
    """Column name per (scope, leaf) as the tables name them."""
    cols = {}
    taken = {}
    for scope, key in (("payload", "payload"), ("context", "specific_context"),
                       ("common_context", "common_context")):
        lv = []
        if key in ev:
            leaves("", ev[key], lv)
        for name, val in lv:
            path = scope + "." + name
            low = name.lower()
            if low in FIXED or (low in taken and taken[low] != path):
                cname = path
            else:
                cname = name
            taken.setdefault(cname.lower(), path)
            cols[(scope, name)] = (cname, val)
    return cols


def expected(traceio, trace):
    """Per class: [count, {column: [sum, all_fit_int64]}] from the JSON output."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # (the ASan runtime for the extension)
    out = subprocess.run([traceio, "print", "--style", "json", trace], capture_output=True, text=True, env=env)
    per = {}
    for line in out.stdout.splitlines():
        ev = json.loads(line)
        if ev.get("type") != "event" or not ev.get("event_class"):
            continue
        c = per.setdefault(ev["event_class"], [0, {}])
        c[0] += 1
        for (scope, name), (cname, val) in column_names(ev).items():
            if val is None:
                c[1].setdefault(cname, None)
                continue
            s = c[1].setdefault(cname, [0, True])
            if s is None:
                continue
            s[0] += val
            s[1] = s[1] and I64[0] <= val <= I64[1]
    return per


def qid(name):
    return '"' + name.replace('"', '""') + '"'


def table_of(cls):
    return "class:" + cls if cls.lower() in RESERVED else cls


def queries(per):
    """One SELECT per class: count(*) then sum()/total() of its integer columns."""
    qs = []
    for cls, (n, cols) in sorted(per.items()):
        ints = [(k, v) for k, v in sorted(cols.items()) if v is not None]
        sel = ["count(*)"]
        for k, (s, fit) in ints:
            exact = fit and I64[0] <= s <= I64[1]
            sel.append(("sum(%s)" if exact else "total(%s)") % qid(k))
        qs.append((cls, n, ints, "SELECT %s FROM %s" % (", ".join(sel), qid(table_of(cls)))))
    return qs


def compare(trace, cls, n, ints, row, tag):
    bad = []
    if row[0] != n:
        bad.append("count %s != %s" % (row[0], n))
    for (k, (s, fit)), got in zip(ints, row[1:]):
        exact = fit and I64[0] <= s <= I64[1]
        if exact and got != s:
            bad.append("sum(%s) %r != %r" % (k, got, s))
        elif not exact and (got is None or abs(got - s) > abs(s) * 1e-9 + 1e-6):
            bad.append("total(%s) %r != %r" % (k, got, s))
    name = "%s %s %s" % (tag, os.path.basename(trace.rstrip("/")), cls)
    if bad:
        print("not ok " + name)
        for b in bad[:5]:
            print("   ", b)
        return False
    return True


def main():
    traceio, mode = sys.argv[1], sys.argv[2]
    ext = os.environ.get("SQLITE_EXT", "")
    allok = True
    for trace in sys.argv[3:]:
        per = expected(traceio, trace)
        qs = queries(per)
        ok_all = True
        if not qs:
            print("not ok %s %s: no event" % (mode, trace))
            allok = False
            continue
        if mode == "cli":
            args = [traceio, "sql", "--json", trace]
            for q in qs:
                args += ["-q", q[3]]
            env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
            r = subprocess.run(args, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                print("not ok cli %s: exit %d: %s" % (trace, r.returncode, r.stderr[:300]))
                allok = False
                continue
            rows = [list(json.loads(line).values()) for line in r.stdout.splitlines()
                    if line.startswith("{")]
        elif mode == "shell":
            script = ".load %s\nSELECT traceio_attach(%s);\n.mode list\n.separator \" \"\n" % (
                ext, "'" + trace.replace("'", "''") + "'")
            for q in qs:
                script += ".mode json\n%s;\n" % q[3]
            r = subprocess.run(["sqlite3", ":memory:"], input=script, capture_output=True, text=True)
            if r.returncode != 0:
                print("not ok shell %s: exit %d: %s" % (trace, r.returncode, r.stderr[:300]))
                allok = False
                continue
            rows = []
            for line in r.stdout.splitlines()[1:]:
                line = line.strip().rstrip(",")
                if line.startswith("[{"):
                    line = line[1:]
                if line.endswith("}]"):
                    line = line[:-1]
                if line.startswith("{"):
                    rows.append(list(json.loads(line).values()))
        else:
            con = sqlite3.connect(":memory:")
            con.enable_load_extension(True)
            con.load_extension(ext)
            con.execute("SELECT traceio_attach(?)", (trace,))
            rows = [list(con.execute(q[3]).fetchone()) for q in qs]
            con.close()
        if len(rows) != len(qs):
            print("not ok %s %s: %d rows for %d queries" % (mode, trace, len(rows), len(qs)))
            allok = False
            continue
        for (cls, n, ints, _), row in zip(qs, rows):
            ok_all &= compare(trace, cls, n, ints, row, mode)
        if ok_all:
            print("ok %s %s: %d classes, %d events" % (mode, os.path.basename(trace.rstrip("/")), len(qs),
                                                      sum(q[1] for q in qs)))
        allok &= ok_all
    return 0 if allok else 1


if __name__ == "__main__":
    sys.exit(main())
