"""Every value the module gives against `traceio print --style json` (the
library's own JSON sink, docs/formats/json.md), message by message, on traces
of every format and every field kind: babeltrace 2.1's CTF 2 suite, yactfr's
CTF 1/CTF 2 decoding tests (UTF-16/32 strings, BLOBs, bit maps, booleans,
LEB128 integers, optionals, variants, wide integers), trace.dat samples and
LTTng 0.x traces.  The JSON sink and this module read the values through
different code (the model directly; the public C API), so this checks the
API's getters and the module's conversion together."""
import glob
import json
import math
import os
import struct
import subprocess
import warnings

import pytest

import traceio
from conftest import PEER, TRACEDAT

TIO = os.environ.get("TIO")


def traces():
    out = []
    for pat in ("ctf/babeltrace-2.1/ctf-traces/2/succeed/*", "ctf/yactfr-iter-data/*/pass-*",
                "ltt0x/traces/*"):
        out += sorted(glob.glob(os.path.join(PEER, pat)))
    out += sorted(glob.glob(os.path.join(TRACEDAT, "*.dat")))[:3]
    return [p for p in out if os.path.isdir(p) or p.endswith(".dat")]


def f32(x):
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except (OverflowError, struct.error):
        return None


def same(j, v, where):
    """JSON value j (docs/formats/json.md) against module value v."""
    if isinstance(j, dict) and set(j) == {"value", "labels"}:
        assert isinstance(v, traceio.Enum) and int(v) == j["value"] and list(v.labels) == j["labels"], where
        return 1
    if isinstance(j, dict) and set(j) == {"value", "flags"}:
        assert isinstance(v, int) and int(v) == j["value"], where
        assert list(getattr(v, "labels", ())) == j["flags"], where
        return 1
    if isinstance(j, dict) and set(j) == {"option", "value"}:
        return same(j["value"], v, where + "<" + str(j["option"]) + ">")
    if isinstance(j, dict):
        assert isinstance(v, dict) and list(j) == list(v), "%s: %r vs %r" % (where, list(j), v)
        return sum(same(j[k], v[k], where + "." + k) for k in j)
    if isinstance(j, list):
        assert isinstance(v, list) and len(j) == len(v), "%s: %r vs %r" % (where, j, v)
        return sum(same(a, b, "%s[%d]" % (where, i)) for i, (a, b) in enumerate(zip(j, v)))
    if isinstance(v, bytes):
        assert j == v.hex(), where
        return 1
    if isinstance(v, bool) or j is None:
        assert j == v, "%s: %r vs %r" % (where, j, v)
        return 1
    if isinstance(v, float):
        if j in ("nan", "inf", "-inf"):
            assert (math.isnan(v) and j == "nan") or v == float(j), where
        else:
            assert v == j or f32(v) == f32(float(j)), "%s: %r vs %r" % (where, j, v)
        return 1
    if isinstance(v, int):
        if isinstance(j, str):  # wider than 64 bits: "0x..."
            assert j == hex(v if v >= 0 else v) or int(j, 16) == v or int(j, 16) == v % (1 << 128), where
        else:
            assert j == v, "%s: %r vs %r" % (where, j, v)
        return 1
    assert j == v, "%s: %r vs %r" % (where, j, v)
    return 1


@pytest.mark.parametrize("path", traces() or ["(none)"], ids=lambda p: os.path.relpath(p, PEER))
def test_json(path):
    if not TIO or not os.path.exists(path):
        pytest.skip("no $TIO or no peer data")
    r = subprocess.run([TIO, "print", "--style", "json", path], capture_output=True, text=True,
                       errors="surrogateescape")
    msgs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    msgs = [m for m in msgs if m["type"] in ("event", "discarded_events", "discarded_packets")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = list(traceio.open(path).messages())
        except traceio.Error:
            assert r.returncode != 0
            return
    assert len(got) == len(msgs)
    values = 0
    for i, (j, v) in enumerate(zip(msgs, got)):
        where = "%s message %d" % (os.path.basename(path), i)
        if j["type"] == "event":
            assert isinstance(v, traceio.Event) and v.name == j["event_class"], where
            assert v.time_ns == j.get("ns") and v.cycles == j.get("cycles"), where
            assert v.stream == j["stream_id"], where
            for key, attr in (("event_header", "header"), ("common_context", "common_context"),
                              ("specific_context", "context"), ("payload", "payload")):
                if key in j:
                    values += same(j[key], getattr(v, attr), where + " " + key)
                else:
                    assert getattr(v, attr) is None, where + " " + key
        else:
            assert isinstance(v, traceio.Discarded) and v.kind == j["type"][len("discarded_"):], where
            assert v.count == j["count"] and v.begin_ns == j.get("begin_ns") and v.end_ns == j.get("end_ns"), where
    print("%s: %d messages, %d values equal" % (path, len(got), values))
