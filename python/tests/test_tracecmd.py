"""trace.dat values against `trace-cmd report -R` (trace-cmd 3.1.6's output
kept in ../shared/peer-data for its samples and their v7 conversions, and
trace-cmd run now on a recording made now when this machine can record):
for every event, the event name,
CPU, time (rounded to µs, as trace-cmd prints it), common_pid, the comm trace-cmd shows
(from saved cmdlines: Trace.comm() and the __comm column), and every payload
field that -R prints as a number (strings and arrays are printed in ways that
do not split on spaces: not compared here; the text sink's tests cover them)."""
import glob
import lzma
import os
import re

import shutil
import subprocess
import sys

import pytest

import traceio
from conftest import EXPECT_TC, SHARED, TRACEDAT

LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{6}):\s+([^:\s]+):\s?(.*)$")
FIELD = re.compile(r"(?:^|\s)(\w+)=(-?(?:0x[0-9a-fA-F]+|\d+))(?=\s|$)")


def samples():
    out = []
    conv = os.path.join(os.path.dirname(TRACEDAT), "converted-by-trace-cmd-3.1.6")
    for f in sorted(glob.glob(os.path.join(TRACEDAT, "*.dat")) + glob.glob(os.path.join(conv, "*.dat"))):
        base = os.path.join(EXPECT_TC, os.path.basename(f)[:-4] + ".report-R.txt")
        exp = base if os.path.exists(base) else base + ".xz" if os.path.exists(base + ".xz") else None
        if exp:
            out.append((f, exp))
    return out


def lines(path):
    op = lzma.open if path.endswith(".xz") else open
    with op(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            yield line.rstrip("\n")


def compare(dat, expected_lines):
    t = traceio.open(dat)
    it = iter(t)
    n = values = 0
    for line in expected_lines:
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, cpu, sec, usec, name, rest = m.groups()
        ev = next(it)
        where = "%s event %d (%s)" % (os.path.basename(dat), n, line[:120])
        assert ev.name == name, where
        assert ev.cpu == int(cpu), where
        assert (ev.time_ns + 500) // 1000 == int(sec) * 1000000 + int(usec), where  # rounded to µs
        assert ev["common_pid"] == int(pid), where
        if comm != "<...>":
            assert t.comm(int(pid)) == comm, where
        payload = ev.payload
        for k, v in FIELD.findall(rest):
            got = payload.get(k)
            if isinstance(got, bool) or not isinstance(got, int):
                continue
            neg = v.startswith("-")
            digits = v.lstrip("-")
            # -R prints a field as libtraceevent's raw printer does: decimal, or hex
            # with or without 0x (pointers, longs), signed or not as the C type says
            wants = {int(digits, 16)}
            if not digits.startswith("0x"):
                wants.add(int(digits, 10))
            wants = {-w if neg else w for w in wants}
            assert any(got == w or got % (1 << 64) == w % (1 << 64) or got % (1 << 32) == w % (1 << 32)
                       for w in wants), "%s: %s = %r, trace-cmd %s" % (where, k, got, v)
            values += 1
        n += 1
    assert next(it, None) is None, "traceio has more events than trace-cmd"
    assert n > 0 and values > 0
    print("%s: %d events, %d numeric values equal" % (os.path.basename(dat), n, values))


@pytest.mark.parametrize("dat,expected", samples() or [("none", "none")], ids=lambda p: os.path.basename(p))
def test_report_R(dat, expected):
    if dat == "none":
        pytest.skip("no peer data")
    compare(dat, lines(expected))


def test_recording(tmp_path):
    """A trace.dat recorded now (sched, irq, syscalls of a small workload), read against
    `trace-cmd report -R` run now."""
    ns = os.path.join(SHARED, "tools", "tc-ns.sh")
    if os.geteuid() != 0 or not shutil.which("trace-cmd") or not os.path.exists(ns):
        pytest.skip("cannot record here (root, trace-cmd, ../shared/tools/tc-ns.sh)")
    dat = str(tmp_path / "rec.dat")
    r = subprocess.run([ns, "trace-cmd", "record", "-o", dat, "-e", "sched", "-e", "irq", "-e", "syscalls",
                        "sh", "-c", "ls -R /usr/share/doc > /dev/null"], cwd=str(tmp_path),
                       capture_output=True, text=True)
    if r.returncode or not os.path.exists(dat):
        pytest.skip("trace-cmd record failed here: " + (r.stderr or r.stdout)[-300:])
    rep = subprocess.run(["trace-cmd", "report", "-R", "-i", dat], capture_output=True, text=True,
                         errors="surrogateescape")
    assert rep.returncode == 0, rep.stderr[-300:]
    compare(dat, rep.stdout.split("\n"))


def test_options(tmp_path):
    """Reader options: ts2secs scales every time (as `trace-cmd report --ts2secs`); raw-ts
    leaves out the TIME_SHIFT a guest's file carries (tests/tools/add-time-shift.py gives a
    peer sample one: +1 s on every CPU), and trace-cmd agrees on both; an option no reader
    takes, a bad value, a value of another type are refused."""
    import itertools
    from conftest import TOP
    igt = os.path.join(TRACEDAT, "igt-tests-trace-x86_64-i915-v6.dat")
    if not os.path.exists(igt):
        pytest.skip("no peer data")
    first = lambda t, n=200: [e.time_ns for e in itertools.islice(t, n)]
    plain = first(traceio.open(igt))
    assert first(traceio.open(igt, options={"ts2secs": 1000000})) == [x * 1000 for x in plain]
    assert first(traceio.open(igt, options={"ts2secs": "1000000"})) == [x * 1000 for x in plain]
    shifted = str(tmp_path / "shifted.dat")
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "tools", "add-time-shift.py"), igt, shifted,
                    "--sample", "0:0:1000000000", "--sample", "1:0:1000000000"], check=True)
    assert first(traceio.open(shifted)) == [x + 10**9 for x in plain]
    assert first(traceio.open(shifted, options={"raw-ts": True})) == plain
    if shutil.which("trace-cmd"):
        for opts, py in ((["--ts2secs", "1000000"], {"ts2secs": 1000000}), (["--raw-ts"], {"raw-ts": True}),
                         ([], None)):
            rep = subprocess.run(["trace-cmd", "report", "-t"] + opts + ["-i", shifted], capture_output=True,
                                 text=True, errors="surrogateescape").stdout.split("\n")
            tc = [int(m.group(1)) * 10**9 + int(m.group(2))
                  for m in (re.search(r"\] +(\d+)\.(\d{9}):", l) for l in rep[:201]) if m]
            assert first(traceio.open(shifted, options=py)) == tc[:200]
    with pytest.raises(traceio.UsageError, match="no trace's reader takes 'ltt-tsc'"):
        traceio.open(igt, options={"ltt-tsc": "auto"})
    with pytest.raises(traceio.UsageError, match="not a frequency"):
        traceio.open(igt, options={"ts2secs": 0})
    with pytest.raises(TypeError):
        traceio.open(igt, options={"ts2secs": 1.5})
    with pytest.raises(TypeError):
        traceio.open(igt, options=[("ts2secs", 1)])
