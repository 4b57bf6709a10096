"""traceio's Python API: iteration, values, lifetimes, errors, columns, pandas."""
import gc
import os
import pickle
import warnings

import numpy as np
import pytest

import traceio
from conftest import BT_SUITE, DATA, TRACEDAT, need

UST = os.path.join(DATA, "ctf", "lttng-ust-discard")   # LTTng-UST, every corpus field type, discarded events
HB = os.path.join(DATA, "ctf", "wk-heartbeat-u")


def test_iterate_in_time_order():
    t = traceio.open(UST)
    times = [ev.time_ns for ev in t]
    assert len(times) == 7039
    assert times == sorted(times)
    # every pass reads the trace anew
    assert sum(1 for _ in t) == 7039


def test_event_attributes():
    ev = next(iter(traceio.open(UST)))
    assert ev.name == "corpus:ints"
    assert isinstance(ev.time_ns, int) and isinstance(ev.cycles, int)
    assert ev.cpu == 1 and ev.stream == 1
    assert ev.packet["cpu_id"] == 1
    assert ev["cpu_id"] == 1                     # packet context, found after the event scopes
    assert ev["s64"] == -7046029254386353131    # signed 64
    assert ev["u64"] == 11400714819323198485    # unsigned above INT64_MAX
    assert ev["payload.u16_net"] == 1792        # scope prefix
    assert ev.keys() == tuple(ev.payload)
    assert "s8" in ev and "nope" not in ev
    with pytest.raises(KeyError):
        ev["nope"]
    assert ev.get("nope", 5) == 5
    d = ev.to_dict()
    assert d["name"] == "corpus:ints" and d["payload"] == ev.payload and d["cpu"] == 1
    assert ev.header is not None and ev.context is None


def test_value_types():
    seen = {}
    for ev in traceio.open(UST):
        if ev.name not in seen:
            seen[ev.name] = ev.detach()
    f = seen["corpus:floats"].payload
    assert isinstance(f["f32"], float) and isinstance(f["f64"], float)
    s = seen["corpus:strings"].payload
    assert all(isinstance(s[k], str) for k in ("str", "text16", "seq_text", "const_str"))
    assert s["const_str"] == 'constant "quoted" \\ tab\tend'
    a = seen["corpus:arrays"].payload
    assert isinstance(a["arr4"], list) and len(a["arr4"]) == 4 and all(isinstance(x, int) for x in a["arr4"])
    e = seen["corpus:enums"].payload
    assert isinstance(e["state"], traceio.Enum) and isinstance(e["state"], int)
    assert isinstance(e["state"].labels, tuple)
    assert int(e["state"]) == e["state_raw"]
    assert pickle.loads(pickle.dumps(e["state"])).labels == e["state"].labels


def test_enum_labels():
    labels = {}
    for ev in traceio.open(UST):
        if ev.name == "corpus:enums":
            v = ev["state"]
            labels[int(v)] = v.labels
    assert labels.get(1) == ("RUNNING",)
    assert labels.get(3) == ("WAITING",)
    assert labels.get(-1) == ("NEGATIVE",)


def test_events_kept_stay_valid():
    kept = []
    for ev in traceio.open(UST):
        kept.append(ev)               # a second reference: materialized when the iteration moves on
        if len(kept) == 50:
            break
    fresh = [ev.to_dict() for ev in traceio.open(UST)][:50]
    assert repr([ev.to_dict() for ev in kept]) == repr(fresh)  # repr: NaN floats compare equal
    assert [ev["s8"] if "s8" in ev else None for ev in kept] == [d["payload"].get("s8") for d in fresh]
    i = [k for k, ev in enumerate(kept) if ev.name == "corpus:ints"][-1]
    assert kept[i]["payload.s8"] == fresh[i]["payload"]["s8"]
    j = [k for k, ev in enumerate(kept) if ev.name == "corpus:arrays"][-1]
    assert kept[j]["arr4[2]"] == fresh[j]["payload"]["arr4"][2]


def test_event_held_by_one_name_is_read_again():
    it = iter(traceio.open(UST))
    e1 = next(it)
    name, t = e1.name, e1.time_ns
    e2 = next(it)        # e1 was held by one name only: not copied when the iteration moved on
    assert e1.name == name and e1.time_ns == t and not e1.is_current
    assert e2.is_current and e2.payload is not None
    want = [ev.to_dict() for ev in traceio.open(UST)][:2]
    assert repr(e1.to_dict()) == repr(want[0])   # read again from the trace (heal)
    assert e1.is_current is False and e1["s8"] == want[0]["payload"]["s8"]
    e2.detach()
    next(it)
    assert repr(e2.to_dict()) == repr(want[1])


def test_list_of_trace():
    evs = list(traceio.open(UST))              # every Event held by the list alone
    fresh = [ev.to_dict() for ev in traceio.open(UST)]
    assert len(evs) == len(fresh)
    assert repr(evs[-1].to_dict()) == repr(fresh[-1])   # one second pass heals them all
    assert repr([ev.to_dict() for ev in evs]) == repr(fresh)
    sub = list(traceio.open(UST, begin=fresh[10]["time_ns"], end=fresh[20]["time_ns"]))
    assert repr(sub[3].payload) == repr(fresh[10:21][3]["payload"])


def test_lifetime_iterator_dropped():
    it = iter(traceio.open(HB))
    ev = next(it)
    del it
    gc.collect()
    assert ev.payload is not None   # the event keeps its pass alive


def test_messages_discarded():
    n_ev = n_disc = 0
    total = 0
    for m in traceio.open(UST).messages():
        if isinstance(m, traceio.Discarded):
            n_disc += 1
            assert m.kind == "events"
            assert m.count > 0 and m.begin_ns <= m.end_ns
            total += m.count
        else:
            n_ev += 1
    assert n_ev == 7039 and n_disc == 77 and total > 0


def test_begin_end():
    times = [ev.time_ns for ev in traceio.open(UST)]
    b, e = times[100], times[200]
    got = [ev.time_ns for ev in traceio.open(UST, begin=b, end=e)]
    assert got == [x for x in times if b <= x <= e]


def test_several_paths_merge():
    a = sum(1 for _ in traceio.open(UST))
    b = sum(1 for _ in traceio.open(HB))
    both = [ev.time_ns for ev in traceio.open([UST, HB])]
    assert len(both) == a + b and both == sorted(both)


def test_errors():
    with pytest.raises(traceio.IOError) as e:
        traceio.open("/nonexistent/trace")
    assert isinstance(e.value, OSError) and isinstance(e.value, traceio.Error)
    assert "/nonexistent/trace" in str(e.value.args[0])
    bad = need(os.path.join(BT_SUITE, "fail", "metadata-syntax-error"))
    with pytest.raises(traceio.FormatError) as e:
        traceio.open(bad)
    assert "metadata:3:58" in e.value.args[0] and e.value.args[1] == -3
    assert str(e.value) == e.value.message == e.value.args[0] and e.value.status == -3
    with pytest.raises(traceio.IOError) as e:
        traceio.open("/nonexistent/trace")
    assert str(e.value).startswith("/nonexistent/trace")
    with pytest.raises(traceio.Error):
        traceio.open(HB, format="nosuchformat")
    with pytest.raises(TypeError):
        traceio.open(HB, begin=1.5)


def test_damaged_packet_warns_and_goes_on():
    bad = need(os.path.join(BT_SUITE, "fail", "valid-events-then-invalid-events"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        names = [ev.name for ev in traceio.open(bad)]
    assert len(names) == 2
    assert any(issubclass(x.category, traceio.DamagedDataWarning) and "dummystream@0x2" in str(x.message) for x in w)
    with pytest.raises(traceio.FormatError) as e:
        for ev in traceio.open(bad, strict=True):
            pass
    assert "no event class with id 255" in e.value.args[0]


def test_columns_dtypes_and_values():
    t = traceio.open(UST)
    c = t.columns("corpus:ints")
    assert c["time_ns"].dtype == np.int64 and c["cpu"].dtype == np.int32
    want = {"s8": np.int8, "u8": np.uint8, "s16": np.int16, "u16": np.uint16, "s32": np.int32, "u32": np.uint32,
            "s64": np.int64, "u64": np.uint64, "ptr": np.uint64}
    for k, dt in want.items():
        assert c[k].dtype == dt, k
    rows = [ev.to_dict() for ev in t if ev.name == "corpus:ints"]
    assert len(c["time_ns"]) == len(rows)
    assert c["time_ns"].tolist() == [r["time_ns"] for r in rows]
    assert c["cpu"].tolist() == [r["cpu"] for r in rows]
    for k in rows[0]["payload"]:
        assert c[k].tolist() == [r["payload"][k] for r in rows], k
    f = t.columns("corpus:floats")
    assert f["f32"].dtype == np.float32 and f["f64"].dtype == np.float64
    s = t.columns("corpus:strings")
    assert s["str"].dtype == object and all(isinstance(x, str) for x in s["str"])
    e = t.columns("corpus:enums")
    assert e["state"].dtype == np.int32 and e["flag"].dtype == np.uint8
    assert (e["state"] == e["state_raw"]).all()


def test_columns_explicit_fields():
    t = traceio.open(UST)
    c = t.columns("corpus:arrays", fields=["arr4[1]", "seq16", "payload.bytes8"])
    assert list(c) == ["time_ns", "cpu", "arr4[1]", "seq16", "payload.bytes8"]
    rows = [ev.payload for ev in t if ev.name == "corpus:arrays"]
    assert c["seq16"].tolist() == [r["seq16"] for r in rows]
    assert c["arr4[1]"].tolist() == [r["arr4"][1] for r in rows]
    assert c["arr4[1]"].dtype == object  # under an array: may be absent in general
    with pytest.raises(traceio.UsageError):
        t.columns("corpus:arrays", fields=["nope"])
    with pytest.raises(KeyError):
        t.columns("no-such-event")


def test_columns_empty_class_has_its_columns():
    t = traceio.open(UST, begin=0, end=1)
    c = t.columns("corpus:ints")
    assert len(c["s8"]) == 0 and c["s8"].dtype == np.int8


def test_columns_arrays_outlive_everything():
    c = traceio.open(UST).columns("corpus:strings")
    gc.collect()
    assert c["str"][0] is not None and c["time_ns"][0] > 0
    v = c["str"][:10].copy()
    del c
    gc.collect()
    assert len(v) == 10


def test_info():
    t = traceio.open(UST)
    (i,) = t.info()
    assert i["format"] == "ctf" and i["env"]["domain"] == "ust"
    assert "corpus:ints" in t.event_classes
    assert i["clocks"][0]["frequency"] == 1000000000
    assert "ctf" in traceio.formats()


def test_pandas_ctf():
    pd = pytest.importorskip("pandas")
    t = traceio.open(UST)
    df = t.to_pandas("corpus:ints")
    assert df.index.name == "Time" and df.index.dtype == np.int64
    assert "__cpu" in df.columns and "s8" in df.columns and "__comm" not in df.columns
    c = t.columns("corpus:ints")
    assert (df["u64"].to_numpy() == c["u64"]).all()
    dfs = t.dataframes()
    assert set(dfs) >= {"corpus:ints", "corpus:strings"}
    assert len(dfs["corpus:ints"]) == len(df)
    assert t.to_pandas("corpus:ints", index="s").index.dtype == np.float64


def test_pandas_tracedat_lisa_columns():
    pd = pytest.importorskip("pandas")
    dat = need(os.path.join(TRACEDAT, "lisa-tests-assets-sched_load-arm64-v6.dat"))
    t = traceio.open(dat)
    df = t.to_pandas("sched_switch")
    assert list(df.columns[:3]) == ["__cpu", "__pid", "__comm"]
    assert not any(c.startswith("common_") for c in df.columns)
    rows = [(ev.time_ns, ev.cpu, ev["common_pid"], ev["prev_comm"], ev["next_pid"]) for ev in t if ev.name == "sched_switch"]
    assert df.index.tolist() == [r[0] for r in rows]
    assert df["__cpu"].tolist() == [r[1] for r in rows]
    assert df["__pid"].tolist() == [r[2] for r in rows]
    assert df["prev_comm"].tolist() == [r[3] for r in rows]
    assert df["next_pid"].tolist() == [r[4] for r in rows]
    assert df["__comm"].tolist() == [t.comm(p) or "<...>" for p in df["__pid"]]
    assert df["__comm"].iloc[0] == "<idle>"
    dfs = t.dataframes()
    assert len(dfs["sched_switch"]) == len(df)


def test_readme_example():
    """The example of README.md's "Python" section runs and prints what it should."""
    import re
    import subprocess
    import sys
    from conftest import TOP

    text = open(os.path.join(TOP, "README.md")).read()
    sec = text[text.index("## Python\n"):]
    m = re.search(r"^/usr/bin/python3 -c '([^']*)'$", sec, re.M)
    assert m, "README.md's Python section has no /usr/bin/python3 -c example"
    r = subprocess.run([sys.executable, "-c", m.group(1)], cwd=TOP, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['heartbeat:msg', 'heartbeat:msg', 'heartbeat:msg']"


def test_columns_widened_across_traces():
    """One event name in two traces with different integer sizes (ARM 32 and 64-bit bprint.ip):
    the column takes the wider dtype and every value equals the events'."""
    a = need(os.path.join(TRACEDAT, "lisa-trappy-tests-trace-arm32-v6.dat"))
    b = need(os.path.join(TRACEDAT, "lisa-trappy-tests-raw_trace-arm64-v6.dat"))
    assert traceio.open(a).columns("bprint")["ip"].dtype == np.uint32
    t = traceio.open([a, b])
    c = t.columns("bprint")
    assert c["ip"].dtype == np.uint64
    assert c["ip"].tolist() == [ev["ip"] for ev in t if ev.name == "bprint"]
    d = t.dataframes(fields=["prev_pid"])          # classes without the field: None
    assert d["sched_switch"]["prev_pid"].tolist() == [ev["prev_pid"] for ev in t if ev.name == "sched_switch"]
    assert set(d["bprint"]["prev_pid"]) == {None}
