"""LTTng 0.x values against LTTV's text dump (../shared/peer-data/ltt0x:
LTTV's dump of trace-15316events_nolost_newformat): for every event, its
name, time (ns) and every payload value (integers, hex or decimal; strings
compared where LTTV's quoting leaves them unambiguous).  The dump's producer
rewrote two recorded strings ("/tmp/trace1", where the trace was written, and
"protocol.txt": tests/ltt/test-lttng0.sh, docs/formats/ltt0x.md); traceio
gives the bytes of the trace, rewritten the same way before comparing."""
import os
import re

import pytest

import traceio
from conftest import PEER

TRACE = os.path.join(PEER, "ltt0x", "traces", "trace-15316events_nolost_newformat")
DUMP = os.path.join(PEER, "ltt0x", "expected-text", "trace-15316events_nolost_newformat.txt")
LINE = re.compile(r"^([\w.]+)\.(\w+): (\d+)\.(\d{9}) \(([^)]*)\), .*?(?: \{ (.*) \})?$")
REWRITTEN = [("/tmp/trace1", "traceset/trace_15316events_nolost_newformat"),
             ("/usr/lib/xorg/protocol.txt", "/usr/lib/xorg/protocol")]
NUM = re.compile(r"^(-?(?:0x[0-9A-Fa-f]+|\d+))(?: |$)")
FIELD = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)')


def test_lttv_dump():
    if not (os.path.isdir(TRACE) and os.path.exists(DUMP)):
        pytest.skip("no peer data")
    it = iter(traceio.open(TRACE))
    n = values = 0
    with open(DUMP, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                assert not line.strip() or line.startswith(("Trace set", "End trace set")), line
                continue
            channel, name, sec, nsec, path, body = m.groups()
            ev = next(it)
            where = "event %d: %s" % (n, line[:150])
            assert ev.name == name, where
            assert ev.time_ns == int(sec) * 1000000000 + int(nsec), where
            payload = ev.payload or {}
            fields = FIELD.findall(body or "")
            assert [k for k, _ in fields] == list(payload), where
            for k, v in fields:
                got = payload[k]
                if v.startswith('"'):
                    if "\\" not in v:
                        for a, b in REWRITTEN:
                            got = got.replace(a, b)
                        assert got == v[1:-1], where
                        values += 1
                elif isinstance(got, int) and NUM.match(v):
                    v = NUM.match(v).group(1)  # "1 [softirq 1]": LTTV adds a name after some numbers
                    want = int(v, 16) if v.startswith("0x") else int(v)
                    assert got == want or got % (1 << 32) == want % (1 << 32) or got % (1 << 64) == want % (1 << 64), \
                        "%s: %s = %r" % (where, k, got)
                    values += 1
            n += 1
    assert next(it, None) is None, "traceio has more events than LTTV's dump"
    assert n == 15316 and values > 0
    print("%d events, %d values equal" % (n, values))
