#!/usr/bin/python3
"""One measurement of bench/python.sh; prints "events rows wall_s cpu_s extra"
(times from after the imports: opening the trace and reading it).

  bt2      TRACE [MAX]  babeltrace2's Python bindings (python3-bt2): every event
                        message, every payload field converted to a Python value
                        (int, float, str, list), MAX events at most
  tio      TRACE        traceio: every event, ev.payload (a dict of every payload value)
  tio-keys TRACE        traceio: every event, ev[name] for each payload field name
  columns  TRACE EVENT  traceio: trace.columns(EVENT) (numpy arrays); extra = bytes of the arrays
  frames   TRACE        traceio: trace.dataframes() (pandas); extra = rows
"""
import sys
import time


def bt2_value(f, bt2):
    if isinstance(f, bt2._IntegerFieldConst):
        return int(f)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._StructureFieldConst):
        return {k: bt2_value(v, bt2) for k, v in f.items()}
    if isinstance(f, bt2._ArrayFieldConst):
        return [bt2_value(v, bt2) for v in f]
    if isinstance(f, bt2._VariantFieldConst):
        return bt2_value(f.selected_option, bt2)
    if isinstance(f, bt2._BoolFieldConst):
        return bool(f)
    return f


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "bt2":
        import bt2
    else:
        import traceio
    # timed from here: the modules are imported (numpy with traceio)
    w0, c0 = time.perf_counter(), time.process_time()
    n = rows = extra = 0
    if what == "bt2":
        limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
        ev_type = bt2._EventMessageConst
        for m in bt2.TraceCollectionMessageIterator(path):
            if type(m) is ev_type:
                for k, f in m.event.payload_field.items():
                    bt2_value(f, bt2)
                n += 1
                if n == limit:
                    break
    else:
        t = traceio.open(path)
        if what == "tio":
            for ev in t:
                ev.payload
                n += 1
        elif what == "tio-keys":
            for ev in t:
                for k in ev.keys():
                    ev[k]
                n += 1
        elif what == "columns":
            c = t.columns(sys.argv[3])
            rows = len(c["time_ns"])
            extra = sum(a.nbytes for a in c.values())
        elif what == "frames":
            d = t.dataframes()
            rows = extra = sum(len(df) for df in d.values())
    print(n, rows, "%.3f" % (time.perf_counter() - w0), "%.3f" % (time.process_time() - c0), extra)


main()
